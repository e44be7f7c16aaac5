#!/bin/bash
# The umad ABI byte by byte (umad_raw), then the daemon still serves the
# tools; nothing a test file registered is left behind.
# Usage: umad.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"

start_host --profile extended --devices 2
sx -- "$BUILD/bin/umad_raw" || fail "umad_raw"
out=$(sx -- smpquery -D nodeinfo 0) || fail "smpquery after umad_raw: $out"
out=$(sx -- saquery) || fail "saquery after umad_raw: $out"
expect_eq "NodeRecords" "$(grep -c 'NodeRecord dump' <<<"$out")" 2
sx -- ibv_devinfo >/dev/null || fail "ibv_devinfo after umad_raw"
echo ok
