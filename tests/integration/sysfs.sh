#!/bin/bash
# The sysfs tree as the kernel presents an EFA device: class directories
# are links into a PCI function bound to the efa driver.  Checked by path
# and by what libfabric's efa provider makes of it.
# Usage: sysfs.sh BUILD PROFILE
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2
start_host --profile "$PROFILE" --devices 2
SYS=$RUN/sys

# resolved DIR PATH: the real path of PATH relative to DIR's real path
resolved() {
	local p

	p=$(realpath -e "$SYS/$1") || fail "$1 does not resolve"
	echo "${p#"$(realpath "$SYS")"/}"
}

expect_file() {
	[ -f "$SYS/$1" ] || fail "$1 missing"
	expect_eq "$1" "$(cat "$SYS/$1")" "$2"
}

if [ -d /sys/devices/system/node/node0 ]; then
	cpulist=$(cat /sys/devices/system/node/node0/cpulist) numa=0
else
	cpulist=$(cat /sys/devices/system/cpu/online) numa=-1
fi

for i in 0 1; do
	dev=efa_$i
	addr=$(printf '0000:00:%02x.0' $((0x10 + i)))
	pci=devices/pci0000:00/$addr
	part=$(sx -- ibv_devinfo -d "$dev" | devinfo_field vendor_part_id)
	part=$(printf '0x%04x' "$part")

	[ -L "$SYS/class/infiniband/$dev" ] ||
		fail "class/infiniband/$dev is not a link"
	expect_eq "$dev" "$(resolved "class/infiniband/$dev")" \
		"$pci/infiniband/$dev"
	expect_eq "$dev/device" "$(resolved "class/infiniband/$dev/device")" \
		"$pci"
	expect_eq uverbs$i "$(resolved "class/infiniband_verbs/uverbs$i/device")" \
		"$pci"
	expect_eq "$dev driver" \
		"$(resolved "class/infiniband/$dev/device/driver")" \
		bus/pci/drivers/efa
	expect_eq "$dev bound" "$(resolved "bus/pci/drivers/efa/$addr")" "$pci"
	expect_eq "$dev bus" "$(resolved "bus/pci/devices/$addr")" "$pci"
	expect_eq "$dev subsystem" \
		"$(resolved "class/infiniband/$dev/subsystem")" class/infiniband

	expect_file "$pci/vendor" 0x1d0f
	expect_file "$pci/device" "$part"
	expect_file "$pci/subsystem_vendor" 0x1d0f
	expect_file "$pci/subsystem_device" "$part"
	expect_file "$pci/class" 0x020000
	expect_file "$pci/revision" 0x00
	expect_file "$pci/numa_node" "$numa"
	expect_file "$pci/local_cpulist" "$cpulist"
	expect_file "$pci/modalias" \
		"$(printf "pci:v00001D0Fd0000%Xsv00001D0Fsd0000%Xbc02sc00i00" "$part" "$part")"
	grep -qx "PCI_SLOT_NAME=$addr" "$SYS/$pci/uevent" ||
		fail "$pci/uevent: $(cat "$SYS/$pci/uevent")"

	if [ "$PROFILE" = extended ]; then
		expect_eq umad$i \
			"$(resolved "class/infiniband_mad/umad$i/device")" "$pci"
		expect_file "class/infiniband_mad/umad$i/ibdev" "$dev"
	else
		[ -e "$SYS/class/infiniband_mad/umad$i" ] &&
			fail "umad$i on a profile without MADs"
	fi
done
expect_eq module "$(resolved bus/pci/drivers/efa/module)" module/efa
[ -s "$SYS/module/efa/version" ] || fail "module/efa/version missing"
expect_file class/infiniband_verbs/abi_version 6

# What libfabric's efa provider makes of it: both endpoint types of both
# devices, the PCI address and the driver's name.
if command -v fi_info >/dev/null; then
	out=$(sx -- fi_info -p efa) || fail "fi_info -p efa: $out"
	for i in 0 1; do
		for ep in rdm dgrm; do
			grep -q "domain: efa_$i-$ep\$" <<<"$out" ||
				fail "fi_info lists no efa_$i-$ep: $out"
		done
		v=$(sx -- fi_info -p efa -v -d "efa_$i-rdm")
		for kv in "driver: efa" "bus_type: FI_BUS_PCI" \
			"device_id: $((0x10 + i))" "function_id: 0" \
			"vendor_id: 0x1d0f"; do
			grep -q "^ *$kv\$" <<<"$v" ||
				fail "efa_$i: fi_info -v lacks '$kv'"
		done
	done
	# The attributes libfabric derives from the device, as a real EFA
	# device gives them (fi_info -v of an EC2 instance).
	if [ "$PROFILE" = efa ]; then
		v=$(sx -- fi_info -p efa -v -d efa_0-dgrm)
		for kv in "inject_size: 0" "size: 4096" "iov_limit: 2" \
			"size: 8192" "iov_limit: 3" "max_msg_size: 8928" \
			"msg_prefix_size: 40" "cq_cnt: 512" "ep_cnt: 256" \
			"mr_cnt: 262144" "mtu: 8760" "device_version: 6" \
			"device_id: 0xefa2" "firmware: 0.0.0.0"; do
			grep -q "^ *$kv\$" <<<"$v" ||
				fail "efa_0-dgrm: fi_info -v lacks '$kv'"
		done
	fi
fi
echo "ok: $PROFILE"
