#!/bin/bash
# ibstat (libibumad's view of sysfs, through the shim's redirection of
# /sys/class/infiniband*) against the daemon's own values, and ibv_devinfo
# beside it; on the efa profile no CA has MAD service.
# Usage: ibstat.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"

start_host --profile extended --devices 2
status=$("$SOFTEFA" --run-dir "$RUN" status)

expect_eq "ibstat -l" "$(sx -- ibstat -l | tr '\n' ' ')" "efa_0 efa_1 "
all=$(sx -- ibstat) || fail "ibstat: $all"
for i in 0 1; do
	dev="efa_$i"
	line=$(echo "$status" | awk -v d="$dev" '$1 == "device" && $2 == d')
	guid=0x$(echo "$line" | awk '{ print $5 }')
	lid=$(echo "$line" | awk '{ print $9 }')

	grep -q "^CA '$dev'" <<<"$all" || fail "ibstat lacks $dev: $all"
	out=$(sx -- ibstat "$dev" 1) || fail "ibstat $dev 1: $out"
	f() { awk -F': ' -v k="$1" '$1 == k { print $2 }' <<<"$out"; }
	expect_eq "$dev state" "$(f State)" Active
	expect_eq "$dev physical state" "$(f 'Physical state')" LinkUp
	expect_eq "$dev base lid" "$(f 'Base lid')" "$lid"
	expect_eq "$dev sm lid" "$(f 'SM lid')" 1
	expect_eq "$dev port guid" "$(f 'Port GUID')" "$guid"
	expect_eq "$dev link layer" "$(f 'Link layer')" InfiniBand
	expect_eq "$dev rate" "$(f Rate)" 100
	expect_eq "$dev node guid" \
		"$(sx -- ibstat -s "$dev" | awk -F': ' '$1 ~ /Node GUID/ { print $2 }')" "$guid"
	info=$(sx -- ibv_devinfo -d "$dev") || fail "ibv_devinfo -d $dev: $info"
	expect_eq "$dev devinfo lid" "$(echo "$info" | devinfo_field port_lid)" "$lid"
done
expect_eq "ibstat -p" "$(sx -- ibstat -p | tr '\n' ' ')" \
	"$(echo "$status" | awk '$1 == "device" { printf "0x%s ", $5 }')"
# the nodes behind them
sx -- stat -c %t:%T /dev/infiniband/umad1 | grep -qx "e7:1" ||
	fail "umad1 is not char 231:1"
sx -- stat -c %t:%T /dev/infiniband/issm0 | grep -qx "e7:40" ||
	fail "issm0 is not char 231:64"
stop_host

# Real EFA has no umad devices: libibumad sees no CA.
start_host --profile efa
expect_eq "efa ibstat -l" "$(sx -- ibstat -l)" ""
sx -- stat /dev/infiniband/umad0 >/dev/null 2>&1 && fail "umad0 on the efa profile"
sx -- ibv_devinfo >/dev/null || fail "ibv_devinfo on efa"
echo "ok"
