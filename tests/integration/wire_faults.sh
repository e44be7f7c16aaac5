#!/bin/bash
# The wire under faults: every daemon drops 10% of what it sends, holds
# back 10% behind later packets and sends 1% twice.
#  - SRD (wire_verbs srd): every message arrives once and intact, every
#    send completes successfully, 1 MiB written and read by RDMA intact;
#  - UD (wire_verbs ud): some are lost, none comes twice or corrupt, and
#    softefa stats counts the losses;
#  - RC (extended profile): ibv_rc_pingpong -c, one packet and several;
#  - a GID nobody has: SRD ends in the unreachable remote's error (15);
#  - a peer daemon killed mid-transfer: the sender's QP ends in error
#    completions within its retry budget, nothing hangs, its daemon
#    serves on with no context left.
# Usage: wire_faults.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
. "$(dirname "$0")/hosts.sh"
WV=$BUILD/bin/wire_verbs
FAULTS=(--wire --wire-loss 10 --wire-reorder 10 --wire-dup 1)
PORT=18600

# wv MODE N: wire_verbs between host 1 (server) and host 2 (client)
wv() {
	PAIR_TIMEOUT=240 hosts_pair ours ours "$WV" "$1" -n "$2" -p "$PORT" ||
		fail "wire_verbs $1: $(cat "$RUN/server.out" "$RUN/client.out")"
	cat "$RUN/server.out"
}

stat_sum() {
	echo $(($(hstat 1 "$1") + $(hstat 2 "$1")))
}

wire_field() {
	hsefa "$1" stats | awk -v k="$2" '$1 == "wire" {
		for (i = 3; i < NF; i++) if ($i == k) print $(i + 1) }'
}

hosts_up 2 "${FAULTS[@]}"

wv srd 2000
grep -q "received 2000 of 2000, 0 duplicates, 0 corrupt" "$RUN/server.out" ||
	fail "SRD: $(cat "$RUN/server.out")"
grep -q "RDMA write of 1048576 bytes intact" "$RUN/server.out" || fail "RDMA write"
grep -q "RDMA read of 1048576 bytes intact" "$RUN/client.out" || fail "RDMA read"
[ "$(stat_sum retransmits)" -gt 0 ] || fail "no retransmits under 10% loss"
[ "$(stat_sum dup_drops)" -gt 0 ] || fail "no duplicate dropped under 1% dups"
echo "srd: retransmits $(stat_sum retransmits) dup_drops $(stat_sum dup_drops)"

wv ud 2000
got=$(awk '/^received/ { print $2 }' "$RUN/server.out")
grep -q ", 0 duplicates, 0 corrupt" "$RUN/server.out" || fail "UD: $(cat "$RUN/server.out")"
# a busy receiver also drops what finds no receive posted (rx_drops)
[ "$got" -lt 2000 ] && [ "$got" -gt 0 ] || fail "UD received $got of 2000"
lost=$(($(wire_field 1 lost) + $(wire_field 2 lost)))
[ "$lost" -gt 0 ] || fail "softefa stats counts no loss"
echo "ud: received $got of 2000, wire lost $lost"

hosts_restart --profile extended "${FAULTS[@]}"
# ibv_rc_pingpong's last message: its receiver checks it and leaves,
# destroying its QP; if the ACK is lost then, the sender's resends find
# nobody and it ends in IBV_WC_RETRY_EXC_ERR, as on any lossy fabric, its
# QP in error with the receives still posted flushed (which the tool may
# poll first, from the other sub-CQ).  So one side may fail that way, once
# the other has had every message intact.
rc_pingpong_lossy() {
	local side other

	# shellcheck disable=SC2086
	PAIR_TIMEOUT=240 hosts_pair ours ours ibv_rc_pingpong -g 0 -p "$PORT" \
		-c "$@" && return 0
	for side in server client; do
		other=$([ $side = server ] && echo client || echo server)
		grep -q "iters in" "$RUN/$other.out" &&
			grep -Eq "transport retry counter exceeded|Work Request Flushed Error" \
				"$RUN/$side.out" &&
			! grep -q "iters in" "$RUN/$side.out" &&
			echo "rc: the $side lost its last ACK after its peer left" &&
			return 0
	done
	return 1
}
for args in "-s 4096 -n 200" "-s 100000 -n 50"; do
	# shellcheck disable=SC2086
	rc_pingpong_lossy $args ||
		fail "ibv_rc_pingpong -c $args: $(cat "$RUN/server.out" "$RUN/client.out")"
	! grep -q "invalid data" "$RUN/server.out" "$RUN/client.out" ||
		fail "rc_pingpong $args: data corrupted"
done
echo "rc: retransmits $(stat_sum retransmits) dup_drops $(stat_sum dup_drops)"

# no faults from here on
hosts_restart --wire

# a GID nobody has: SRD's send ends in the unreachable remote's error
# once its retries are spent
hx 2 "$WV" srd -u fe80::1:2:3:4 | tee "$RUN/nowhere.out" ||
	fail "SRD to nowhere: $(cat "$RUN/nowhere.out")"

# host 1's daemon dies under a long SRD transfer
hx 1 "$WV" srd -n 1000000 -p "$PORT" >"$RUN/server.out" 2>&1 &
server=$!
on_host 1 wait_listen "$PORT" || fail "server: $(cat "$RUN/server.out")"
p0=$(hstat 2 tx_pkts)
hx 2 "$WV" srd -n 1000000 -p "$PORT" "$(haddr 1)" >"$RUN/client.out" 2>&1 &
client=$!
# killed when the transfer is well under way, however slow the start
under_way() { [ "$(hstat 2 tx_pkts)" -ge $((p0 + 5000)) ]; }
wait_for 60 "host 2's client to send 5000 packets" under_way ||
	fail "client: $(cat "$RUN/client.out")"
kill -9 "$(cat "$(hdir 1)/softefad.pid")"
t0=$SECONDS
wait "$client" && fail "the client went on without its peer"
grep -q "send completion status" "$RUN/client.out" ||
	fail "client: $(cat "$RUN/client.out")"
echo "peer killed: client ended in $((SECONDS - t0)) s: $(tail -1 "$RUN/client.out")"
kill "$server" 2>/dev/null || :
wait "$server" || :
expect_eq "host 2 contexts after its client" "$(hstatus 2 contexts)" 0
echo "ok: the wire under 10% loss, 10% reorder, 1% duplication"
