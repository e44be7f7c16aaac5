#!/bin/bash
# The data path through our provider: integrity, EFA semantics and the
# negative cases (dp_verbs), then the device still serves a ping-pong.
# Usage: dp.sh BUILD PROFILE ABI
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2 ABI=$3
start_host --profile "$PROFILE" --abi "$ABI"
export SEFA_PROFILE=$PROFILE
[ "$ABI" = write ] && export SEFA_ABI_WRITE=1
# the RNR tests read the device's counters
export SEFA_CLI=$SOFTEFA
sx -- "$BUILD/bin/dp_verbs" || fail "dp_verbs"
expect_eq contexts "$(status_field contexts)" 0
expect_eq objects "$(status_field objects)" 0
PORT=$(pick_port)
pair ours ours ibv_ud_pingpong -g 0 -p "$PORT" -n 100 || fail "ping-pong after"
echo ok
