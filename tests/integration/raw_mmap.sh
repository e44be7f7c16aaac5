#!/bin/bash
# The device maps its keys without the shim's mmap(): cq_verbs, its CQs and
# QPs driven by PROVIDER, with every mmap() a bare system call (raw_mmap.c),
# as a process whose mmap() a memory monitor patched makes them.
# Usage: raw_mmap.sh BUILD ours|stock
. "$(dirname "$0")/lib.sh" "$1"
PROVIDER=$2
start_host
out=$RUN/cq_verbs_raw.out
CQ_SUB_CQS=1 sx --provider "$PROVIDER" -- "$BUILD/bin/cq_verbs_raw" \
	>"$out" 2>&1 || fail "cq_verbs with bare mmap: $(cat "$out")"
# each test's process says how many device mappings it made
maps=$(awk '/^raw mmap: / { n += $3 } END { print n + 0 }' "$out")
[ "$maps" -gt 0 ] || fail "no mmap of the device went the bare way: $(cat "$out")"
expect_eq objects "$(status_field objects)" 0
echo "ok: $PROVIDER, $maps bare mappings of the device"
