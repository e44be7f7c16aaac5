#!/bin/bash
# Malformed input to a live daemon, then real tools still work.
. "$(dirname "$0")/lib.sh" "$1"
ABI=$2
start_host --abi "$ABI"
sx -- "$BUILD/bin/uverbs_raw" || fail "uverbs_raw"
sx -- ibv_devinfo -v >/dev/null || fail "ibv_devinfo after malformed input"
for provider in ours stock; do
	check_provider "$provider" "$BUILD/bin/sefa_probe" threads efa_0
done
sx --provider stock -- ibv_devinfo -v >/dev/null ||
	fail "stock ibv_devinfo after malformed input"
expect_eq contexts "$(status_field contexts)" 0
echo ok
