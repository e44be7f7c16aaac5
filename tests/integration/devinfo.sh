#!/bin/bash
# ibv_devices and ibv_devinfo -v, unmodified, against a SoftEFA host.
# Usage: devinfo.sh BUILD PROFILE ABI PROVIDER
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2 ABI=$3 PROVIDER=$4

start_host --profile "$PROFILE" --abi "$ABI" --devices 2
status=$("$SOFTEFA" --run-dir "$RUN" status)

check_provider "$PROVIDER" ibv_devinfo
out=$(sx --provider "$PROVIDER" -- ibv_devices)
for i in 0 1; do
	guid=$(echo "$status" | awk -v d="efa_$i" '$1 == "device" && $2 == d { print $5 }')
	grep -Eq "^\s+efa_$i\s+$guid\$" <<<"$out" ||
		fail "ibv_devices lacks efa_$i $guid: $out"
done

if [ "$PROFILE" = efa ]; then
	part=61346 transport="unspecified (4)" ll=Unspecified lmc=0x01
else
	part=61346 transport="InfiniBand (0)" ll=InfiniBand lmc=0x00
fi

for i in 0 1; do
	dev="efa_$i"
	line=$(echo "$status" | awk -v d="$dev" '$1 == "device" && $2 == d')
	gid=$(echo "$line" | awk '{ print $7 }')
	lid=$(echo "$line" | awk '{ print $9 }')
	guid=$(echo "$line" | awk '{ print $5 }' |
	       sed -E 's/(....)(....)(....)(....)/\1:\2:\3:\4/')

	info=$(sx --provider "$PROVIDER" -- ibv_devinfo -v -d "$dev") ||
		fail "ibv_devinfo -v -d $dev failed: $info"
	f() { echo "$info" | devinfo_field "$1"; }
	expect_eq "$dev transport" "$(f transport)" "$transport"
	expect_eq "$dev vendor_id" "$(f vendor_id)" 0x1d0f
	expect_eq "$dev vendor_part_id" "$(f vendor_part_id)" "$part"
	expect_eq "$dev node_guid" "$(f node_guid)" "$guid"
	expect_eq "$dev max_qp" "$(f max_qp)" 256
	expect_eq "$dev max_cqe" "$(f max_cqe)" 32768
	expect_eq "$dev max_sge" "$(f max_sge)" 2
	expect_eq "$dev max_ah" "$(f max_ah)" 1024
	expect_eq "$dev phys_port_cnt" "$(f phys_port_cnt)" 1
	expect_eq "$dev state" "$(f state)" "PORT_ACTIVE (4)"
	expect_eq "$dev active_mtu" "$(f active_mtu)" "4096 (5)"
	expect_eq "$dev max_msg_sz" "$(f max_msg_sz)" 0x22e0
	expect_eq "$dev link_layer" "$(f link_layer)" "$ll"
	expect_eq "$dev port_lid" "$(f port_lid)" "$lid"
	expect_eq "$dev port_lmc" "$(f port_lmc)" "$lmc"
	expect_eq "$dev GID" "$(echo "$info" | awk '$1 == "GID[" && $2 == "0]:" { print $3 }')" "$gid"
done

# After the tools exit, nothing is left open on the host.
expect_eq contexts "$(status_field contexts)" 0
expect_eq clients "$(status_field clients)" 0
echo "ok: $PROFILE $ABI $PROVIDER"
