#!/bin/bash
# Where a UD message lands in its receive WR (sefa_probe ud: after the
# 40-byte GRH area, which byte_len counts), through both providers.
# Usage: udrecv.sh BUILD PROFILE
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2
start_host --profile "$PROFILE"
for provider in ours stock; do
	check_provider "$provider" "$BUILD/bin/sefa_probe" ud efa_0
done
# each run's receive one byte short is the only error
expect_eq errors "$(stat_field efa_0 errors)" 2
expect_eq contexts "$(status_field contexts)" 0
echo ok
