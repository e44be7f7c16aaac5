#!/bin/bash
# Indirect memory regions through the experimental verbs (umr_verbs): on
# the extended profile with the ioctl ABI they work; the efa profile and a
# kernel without ioctl refuse them with EOPNOTSUPP.
# Usage: umr.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"

start_host --profile extended --abi ioctl
sx -- "$BUILD/bin/umr_verbs" || fail "umr_verbs"
expect_eq objects "$(status_field objects)" 0
stop_host

start_host --profile efa --abi ioctl
UMR_EXPECT=unsupported sx -- "$BUILD/bin/umr_verbs" || fail "efa profile"
stop_host

start_host --profile extended --abi write
SEFA_ABI_WRITE=1 UMR_EXPECT=unsupported sx -- "$BUILD/bin/umr_verbs" ||
	fail "write ABI"
echo ok
