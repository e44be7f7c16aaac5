#!/bin/bash
# infiniband-diags over the MAD layer of the extended profile: smpquery
# (LID-routed and directed route) answered by the ports' SMA, sminfo and
# saquery (NodeRecord and PathRecord tables through RMPP) by the daemon's
# SM/SA, perfquery by the PMA, whose counters follow the device's; a port
# taken down (softefa inject) is Down in its PortInfo and to ibstat, and
# Active again once up.
# Usage: mad_tools.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
PORT=$(pick_port)

start_host --profile extended --devices 2
status=$("$SOFTEFA" --run-dir "$RUN" status)
dev_field() {
	echo "$status" | awk -v d="$1" -v f="$2" '$1 == "device" && $2 == d { print $f }'
}
GUID0=0x$(dev_field efa_0 5) GUID1=0x$(dev_field efa_1 5)
LID0=$(dev_field efa_0 9) LID1=$(dev_field efa_1 9)
# "Key:....value" of the diags' dumps
field() { sed -nE "s/^$1:\.+//p" | head -n 1; }
mad() { timeout 30 "$SOFTEFA" --run-dir "$RUN" exec -- "$@"; }

out=$(mad smpquery -D nodeinfo 0) || fail "smpquery -D nodeinfo 0: $out"
expect_eq "DR self Guid" "$(field Guid <<<"$out")" "$GUID0"
expect_eq "DR self NodeType" "$(field NodeType <<<"$out")" "Channel Adapter"
out=$(mad smpquery nodeinfo "$LID1") || fail "smpquery nodeinfo $LID1: $out"
expect_eq "nodeinfo $LID1 Guid" "$(field Guid <<<"$out")" "$GUID1"
expect_eq "nodeinfo $LID1 PortGuid" "$(field PortGuid <<<"$out")" "$GUID1"
out=$(mad smpquery portinfo "$LID1") || fail "smpquery portinfo $LID1: $out"
expect_eq "portinfo Lid" "$(field Lid <<<"$out")" "$LID1"
expect_eq "portinfo SMLid" "$(field SMLid <<<"$out")" 1
expect_eq "portinfo LinkState" "$(field LinkState <<<"$out")" Active
expect_eq "portinfo NeighborMTU" "$(field NeighborMTU <<<"$out")" 4096
# port_is STATE PHYS: efa_1's port as its own SMA (directed route, no hop)
# and ibstat (sysfs) give it
port_is() {
	local out

	out=$(mad smpquery -C efa_1 -P 1 -D portinfo 0) ||
		fail "smpquery -C efa_1 -D portinfo 0: $out"
	expect_eq "efa_1 LinkState" "$(field LinkState <<<"$out")" "$1"
	expect_eq "efa_1 PhysLinkState" "$(field PhysLinkState <<<"$out")" "$2"
	out=$(mad ibstat efa_1 1) || fail "ibstat efa_1 1: $out"
	expect_eq "efa_1 ibstat State" \
		"$(awk -F': ' '$1 ~ /^\s*State$/ { print $2 }' <<<"$out")" "$1"
	expect_eq "efa_1 ibstat Physical state" \
		"$(awk -F': ' '$1 ~ /Physical state/ { print $2 }' <<<"$out")" "$2"
}
port_is Active LinkUp
sefa inject add event type=port-down dev=efa_1 >/dev/null
port_is Down Disabled
sefa inject add event type=port-up dev=efa_1 >/dev/null
port_is Active LinkUp

out=$(mad smpquery nodedesc "$LID0") || fail "smpquery nodedesc: $out"
grep -q "SoftEFA host 0 efa_0" <<<"$out" || fail "nodedesc: $out"
out=$(mad smpquery pkeys "$LID0") || fail "smpquery pkeys: $out"
grep -q "0: 0xffff" <<<"$out" || fail "pkeys: $out"
# an attribute the SMA does not know, and a route past the port: errors
mad smpquery switchinfo "$LID0" >/dev/null 2>&1 && fail "switchinfo of a CA"
mad smpquery -D nodeinfo 0,1 >/dev/null 2>&1 && fail "DR beyond the port"

out=$(mad sminfo) || fail "sminfo: $out"
grep -q "sm lid 1 .*SMINFO_MASTER" <<<"$out" || fail "sminfo: $out"

# NodeRecords: two of 108 bytes do not fit one MAD
out=$(mad saquery) || fail "saquery: $out"
expect_eq "NodeRecords" "$(grep -c 'NodeRecord dump' <<<"$out")" 2
expect_eq "NodeRecord lids" "$(sed -nE 's/^\s+lid\.+//p' <<<"$out" | tr '\n' ' ')" "$LID0 $LID1 "
grep -q "node_guid\.*$GUID1" <<<"$out" || fail "saquery lacks $GUID1: $out"
out=$(mad saquery -p) || fail "saquery -p: $out"
expect_eq "PathRecords" "$(grep -c 'PathRecord dump' <<<"$out")" 4
out=$(mad saquery -p --slid "$LID0" --dlid "$LID1") || fail "saquery -p 0->1: $out"
expect_eq "one PathRecord" "$(grep -c 'PathRecord dump' <<<"$out")" 1
grep -Eq "dlid\.+$LID1\$" <<<"$out" || fail "path dlid: $out"

# the PMA follows the device's counters, and clears them
out=$(mad perfquery) || fail "perfquery: $out"
expect_eq "idle PortXmitPkts" "$(field PortXmitPkts <<<"$out")" 0
pair ours ours ibv_ud_pingpong -d efa_0 -g 0 -p "$PORT" -n 200 ||
	fail "ibv_ud_pingpong"
tx=$(stat_field efa_0 tx_pkts) txb=$(stat_field efa_0 tx_bytes)
[ "$tx" -ge 200 ] || fail "no traffic: $tx"
out=$(mad perfquery "$LID0" 1) || fail "perfquery $LID0: $out"
expect_eq "PortXmitPkts" "$(field PortXmitPkts <<<"$out")" "$tx"
expect_eq "PortXmitData" "$(field PortXmitData <<<"$out")" $((txb / 4))
expect_eq "PortRcvPkts" "$(field PortRcvPkts <<<"$out")" "$(stat_field efa_0 rx_pkts)"
out=$(mad perfquery -x -r "$LID0" 1) || fail "perfquery -x -r: $out"
expect_eq "ext PortXmitPkts" "$(field PortXmitPkts <<<"$out")" "$tx"
out=$(mad perfquery "$LID0" 1) || fail "perfquery after reset: $out"
expect_eq "cleared PortXmitPkts" "$(field PortXmitPkts <<<"$out")" 0
echo "ok"
