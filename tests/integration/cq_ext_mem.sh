#!/bin/bash
# A CQ on external memory through our provider (cq_ext_mem.c): built
# against libibverbs 64 (abi_v64.sh runs it on that build), traffic
# completes into a memfd and every refused buffer gets the kernel's errno,
# named in softefad's log (cq_ext_mem_check.sh); built against libibverbs
# 44, which cannot pass the buffer, efadv reports no capability and the
# flag is refused with EOPNOTSUPP and a reason, the daemon asked nothing.
# Usage: cq_ext_mem.sh BUILD PROFILE
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2
LOG=$RUN/softefad.log

start_host --profile "$PROFILE" --verbose
out=$(VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=$RUN/verbs.log \
	sx --provider ours -- "$BUILD/bin/cq_ext_mem" efa_0 2>&1) ||
	fail "cq_ext_mem: $out"
echo "$out"
abi=$(provider_abi)
if [ "$abi" = 34 ]; then
	expect_eq ext_mem_cap "$(awk '$1 == "ext_mem_cap" { print $2 }' <<<"$out")" 0
	expect_eq without_cap "$(awk '$1 == "without_cap" { print $2 }' <<<"$out")" \
		EOPNOTSUPP
	grep -F "cannot pass the buffer to the kernel" "$RUN/verbs.log" >/dev/null ||
		fail "no reason in the verbs log: $(cat "$RUN/verbs.log")"
	! grep -F "CQ buffer" "$LOG" >/dev/null ||
		fail "the daemon was asked: $(grep -F "CQ buffer" "$LOG")"
else
	"$(dirname "$0")/cq_ext_mem_check.sh" "$out" "$LOG" ||
		fail "cq_ext_mem on ABI $abi"
fi
expect_eq objects "$(status_field objects)" 0
echo ok
