#!/bin/bash
# The MAD API (mad_api) between two processes on two devices of one
# extended-profile host, and between two processes on one device; on the
# efa profile registration is refused with EOPNOTSUPP.
# Usage: mad.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"

start_host --profile extended --devices 2
sx -- "$BUILD/bin/mad_api" || fail "mad_api, two devices"
first=$(sx -- ibv_devices | awk 'NR > 2 { print $1; exit }')
MAD_DEV_A=$first MAD_DEV_B=$first sx -- "$BUILD/bin/mad_api" ||
	fail "mad_api, one device"
expect_eq objects "$(status_field objects)" 0
stop_host

start_host --profile efa
MAD_EXPECT=unsupported sx -- "$BUILD/bin/mad_api" || fail "efa profile"
echo ok
