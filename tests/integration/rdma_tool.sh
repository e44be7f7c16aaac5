#!/bin/bash
# iproute2's rdma tool under softefa exec, answered by the daemon's RDMA
# netlink: the device as sysfs shows it, its port ACTIVE, the resources of
# a live ibv_ud_pingpong server (its QP by number, type and owner, its MR
# by length, its CQ and PD), and the port hw_counters grown by the
# traffic.  The JSON output is read with jq.
# Usage: rdma_tool.sh BUILD PROFILE
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2
PORT=$(pick_port)
SIZE=1024
ITERS=100
command -v rdma >/dev/null || fail "no rdma tool (iproute2)"
command -v jq >/dev/null || fail "no jq"
start_host --profile "$PROFILE"
SYS=$RUN/sys/class/infiniband/efa_0

rd() {
	timeout 30 "$SOFTEFA" --run-dir "$RUN" exec -- rdma "$@" ||
		fail "rdma $*: exit status $?"
}

# jf JSON FILTER: one value of the tool's JSON
jf() {
	jq -r "$2" <<<"$1"
}

# The device: name, node GUID and type as sysfs has them.
dev=$(rd -j dev show)
expect_eq "device count" "$(jf "$dev" length)" 1
expect_eq ifname "$(jf "$dev" '.[0].ifname')" efa_0
expect_eq node_guid "$(jf "$dev" '.[0].node_guid')" "$(cat "$SYS/node_guid")"
expect_eq sys_image_guid "$(jf "$dev" '.[0].sys_image_guid')" \
	"$(cat "$SYS/sys_image_guid")"
expect_eq fw "$(jf "$dev" '.[0].fw')" "$(cat "$SYS/fw_ver")"
case $PROFILE in
extended) type=ca ;;
*) type=unspecified ;;
esac
expect_eq node_type "$(jf "$dev" '.[0].node_type')" "$type"
rd dev show efa_0 -d | grep "adaptive-moderation off" >/dev/null ||
	fail "rdma dev show -d: no details"

# The port: ACTIVE and LinkUp; a LID only on an InfiniBand port, as sysfs's.
link=$(rd -j link show)
expect_eq "link" "$(jf "$link" '.[0].ifname')/$(jf "$link" '.[0].port')" \
	efa_0/1
expect_eq state "$(jf "$link" '.[0].state')" ACTIVE
expect_eq physical_state "$(jf "$link" '.[0].physical_state')" LINK_UP
expect_eq netdev "$(jf "$link" '.[0].netdev // "none"')" none
if [ "$PROFILE" = extended ]; then
	expect_eq lid "$(jf "$link" '.[0].lid')" "$(($(cat "$SYS/ports/1/lid")))"
	expect_eq sm_lid "$(jf "$link" '.[0].sm_lid')" \
		"$(($(cat "$SYS/ports/1/sm_lid")))"
	expect_eq lmc "$(jf "$link" '.[0].lmc')" 0
else
	expect_eq lid "$(jf "$link" '.[0].lid // "none"')" none
fi
rd link show efa_0/1 | grep "state ACTIVE physical_state LINK_UP" \
	>/dev/null || fail "rdma link show efa_0/1: $(rd link show efa_0/1)"
rd sys show | grep "copy-on-fork on" >/dev/null ||
	fail "rdma sys show: $(rd sys show)"

# summary NAME: how many of NAME the device holds
summary() {
	jf "$(rd -j res show)" ".[0].$1"
}
for k in pd cq qp mr ctx; do
	expect_eq "$k before" "$(summary "$k")" 0
done

# A server that holds its PD, MR, CQ and QP while it waits for a client.
stats_before=$(rd -j statistic show)
timeout -k 10 60 "$SOFTEFA" --run-dir "$RUN" exec -- stdbuf -oL \
	ibv_ud_pingpong -g 0 -p "$PORT" -s "$SIZE" -n "$ITERS" \
	>"$RUN/server.out" 2>&1 &
spid=$!
wait_listen "$PORT" || fail "the server did not listen: $(cat "$RUN/server.out")"
qpn=$(sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\).*/\1/p' "$RUN/server.out")
[ -n "$qpn" ] || fail "no QPN from the server: $(cat "$RUN/server.out")"

for k in pd cq qp mr ctx; do
	expect_eq "$k while the server runs" "$(summary "$k")" 1
done
qp=$(rd -j res show qp)
expect_eq "qp count" "$(jf "$qp" length)" 1
expect_eq lqpn "$(jf "$qp" '.[0].lqpn')" "$((qpn))"
expect_eq "qp type" "$(jf "$qp" '.[0].type')" UD
# ibv_ud_pingpong moves it on to RTR and RTS once a client came
expect_eq "qp state" "$(jf "$qp" '.[0].state')" INIT
pid=$(jf "$qp" '.[0].pid')
# the owner is the server: the tool read its name from /proc/PID/comm
expect_eq "qp owner" "$(jf "$qp" '.[0].comm')" ibv_ud_pingpong
expect_eq "owner's comm" "$(cat "/proc/$pid/comm")" ibv_ud_pingpong
rd res show qp lqpn "$((qpn))" | grep "lqpn $((qpn)) " >/dev/null ||
	fail "rdma res show qp lqpn $((qpn)): $(rd res show qp lqpn "$((qpn))")"

mr=$(rd -j res show mr)
expect_eq "mr count" "$(jf "$mr" length)" 1
# ibv_ud_pingpong registers its buffer with room for the GRH: 40 bytes
expect_eq mrlen "$(jf "$mr" '.[0].mrlen')" $((SIZE + 40))
expect_eq "mr owner" "$(jf "$mr" '.[0].pid')" "$pid"
cq=$(rd -j res show cq)
expect_eq "cq count" "$(jf "$cq" length)" 1
expect_eq "cq owner" "$(jf "$cq" '.[0].pid')" "$pid"
# rx_depth 500, plus one
[ "$(jf "$cq" '.[0].cqe')" -ge 501 ] || fail "cqe: $(jf "$cq" '.[0].cqe')"
# the QP holds the CQ twice, as its send and its receive CQ
expect_eq "cq users" "$(jf "$cq" '.[0].users')" 2
pd=$(rd -j res show pd)
expect_eq "pd count" "$(jf "$pd" length)" 1
expect_eq "pd owner" "$(jf "$pd" '.[0].pid')" "$pid"
expect_eq "pd of the qp" "$(jf "$qp" '.[0].pdn')" "$(jf "$pd" '.[0].pdn')"

# The client: both ends on efa_0, ITERS round trips.
timeout -k 10 60 "$SOFTEFA" --run-dir "$RUN" exec -- ibv_ud_pingpong -g 0 \
	-p "$PORT" -s "$SIZE" -n "$ITERS" 127.0.0.1 >"$RUN/client.out" 2>&1 ||
	fail "client: $(cat "$RUN/client.out")"
wait "$spid" || fail "server: $(cat "$RUN/server.out")"

stats=$(rd -j statistic show link efa_0/1)
for k in tx_pkts rx_pkts send_wrs recv_wrs; do
	grown=$(($(jf "$stats" ".[0].$k") - $(jf "$stats_before" ".[0].$k")))
	expect_eq "$k grown" "$grown" $((2 * ITERS))
	expect_eq "$k as softefa stats" "$(jf "$stats" ".[0].$k")" \
		"$(stat_field efa_0 "$k")"
done
expect_eq "rx_drops" "$(jf "$stats" '.[0].rx_drops')" 0
rd statistic show | grep "^link efa_0/1 tx_bytes" >/dev/null ||
	fail "rdma statistic show: $(rd statistic show)"

# The objects went with the server.
for k in pd cq qp mr ctx; do
	expect_eq "$k after" "$(summary "$k")" 0
done
expect_eq "qps after" "$(jf "$(rd -j res show qp)" length)" 0
echo "ok: $PROFILE: rdma dev, link, sys, res and statistic as sysfs and the server have them"
