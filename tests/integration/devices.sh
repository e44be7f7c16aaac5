#!/bin/bash
# Two devices on one host, each with an engine thread of its own: a QP on
# efa_0 talks to one on efa_1 through the engines' inboxes, or on the short
# path while the other engine is idle.  Real clients
# with their checks on, server on efa_0 and client on efa_1: ibv_ud_pingpong
# -c, perftest's SRD send and read (ours and the stock provider, and one of
# each), and on the extended profile ibv_rc_pingpong -c and RC writes.  Both
# devices must count the traffic, with no error and nothing resent.  An
# engine whose device has no QP sleeps until woken.
# Last, a client killed mid-traffic across the devices.
# Usage: devices.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
PORT=$(pick_port)
export SERVER_ARGS="-d efa_0" CLIENT_ARGS="-d efa_1"

# One engine per device, named for it, as top and perf show them.
engines() {
	cat "/proc/$(cat "$RUN/softefad.pid")/task/"*/comm |
		grep -c '^engine efa_[01]$' || true
}

# perftest gives up when it cannot calibrate its clock on a busy machine:
# that run proves nothing, so it is run again, up to three times.
perf() {
	local sp=$1 cp=$2 try
	shift 2

	for try in 1 2 3; do
		pair "$sp" "$cp" "$@" -p "$PORT" && return 0
		grep -q "Correlation coefficient" "$RUN/server.out" "$RUN/client.out" ||
			fail "$*"
	done
	fail "$*: perftest never calibrated its clock"
}

# Both devices carried it all: each sent and received, no error, and no
# packet lost between the engines.  A packet may still be sent again: an
# engine that a busy machine does not run for longer than SRD's timeout
# (4 ms) answers late, as a congested fabric would.
counted() {
	local d

	for d in efa_0 efa_1; do
		[ "$(stat_field "$d" tx_pkts)" -gt 0 ] || fail "$1: $d sent nothing"
		[ "$(stat_field "$d" rx_pkts)" -gt 0 ] ||
			fail "$1: $d received nothing"
		expect_eq "$1: $d errors" "$(stat_field "$d" errors)" 0
	done
	expect_eq "$1: inbox drops" "$(engine_field inbox_drops)" 0
	echo "$1: retransmits $(stat_field efa_0 retransmits) and $(stat_field efa_1 retransmits)"
}

# The context switches of the engine of DEVICE so far.
switches() {
	local t

	for t in "/proc/$(cat "$RUN/softefad.pid")/task/"*; do
		grep -qx "engine $1" "$t/comm" || continue
		awk '/^voluntary_ctxt_switches/ { print $2 }' "$t/status"
		return
	done
	fail "no engine thread for $1"
}

# efa1: Debian 12's perftest takes no later part id for EFA (its
# ib_read_bw posts reads where EFA refuses them; softefad(8), GENERATIONS)
start_host --profile efa1 --devices 2
expect_eq "engine threads" "$(engines)" 2
# With no QP of its device, an engine has nothing to look for by itself:
# it sleeps until woken, where it would look every 8 ms.
s0=$(switches efa_1)
sleep 1
[ $(($(switches efa_1) - s0)) -le 5 ] ||
	fail "efa_1's engine woke by itself: $(($(switches efa_1) - s0)) times in 1 s"
for sides in "ours ours" "stock stock" "ours stock"; do
	# shellcheck disable=SC2086
	pair $sides ibv_ud_pingpong -g 0 -p "$PORT" -n 200 -s 1024 -c ||
		fail "ibv_ud_pingpong, $sides"
	grep -q "200 iters in" "$RUN/client.out" || fail "ud_pingpong, $sides"
	grep -q "invalid data" "$RUN/server.out" "$RUN/client.out" &&
		fail "ud_pingpong, $sides: $(cat "$RUN/server.out")"
	# shellcheck disable=SC2086
	perf $sides ib_send_bw -c SRD -x 0 -n 300
	grep -Eq '^ +8928 +300 ' "$RUN/client.out" ||
		fail "ib_send_bw, $sides: $(cat "$RUN/client.out")"
	# shellcheck disable=SC2086
	perf $sides ib_read_bw -c SRD -x 0 -n 100
	grep -Eq '^ +65536 +100 ' "$RUN/client.out" ||
		fail "ib_read_bw, $sides: $(cat "$RUN/client.out")"
done
counted efa1
[ "$(stat_field efa_1 rdma_reads)" -ge 300 ] ||
	fail "rdma_reads: $(stat_field efa_1 rdma_reads)"
stop_host

start_host --profile extended --devices 2
expect_eq "engine threads" "$(engines)" 2
pair ours ours ibv_rc_pingpong -g 0 -p "$PORT" -n 500 -s 150000 -c ||
	fail "ibv_rc_pingpong"
grep -q "500 iters in" "$RUN/client.out" || fail "rc_pingpong: $(cat "$RUN/client.out")"
perf ours ours ib_write_bw -n 300
grep -Eq '^ +65536 +300 ' "$RUN/client.out" ||
	fail "ib_write_bw: $(cat "$RUN/client.out")"
counted extended

# A client killed mid-traffic, then its server: everything of theirs goes,
# and the two devices carry the next pair's traffic as before.
sx -- timeout 60 stdbuf -oL ibv_rc_pingpong -d efa_0 -g 0 -p "$PORT" -n 100000000 -s 70000 \
	>"$RUN/server.out" 2>&1 &
spid=$!
wait_listen "$PORT" || fail "rc_pingpong server did not listen"
p0=$(stat_field efa_1 tx_pkts)
sx -- timeout 60 stdbuf -oL ibv_rc_pingpong -d efa_1 -g 0 -p "$PORT" -n 100000000 -s 70000 \
	127.0.0.1 >"$RUN/client.out" 2>&1 &
cpid=$!
# killed once the traffic runs, however slow the start
sent() { [ "$(stat_field efa_1 tx_pkts)" -ge $((p0 + 1000)) ]; }
wait_for 30 "the rc_pingpong client to send 1000 packets" sent ||
	fail "rc_pingpong: $(cat "$RUN/client.out")"
pkill -KILL -f "^ibv_rc_pingpong -d efa_1 -g 0 -p $PORT " || fail "no client to kill"
pkill -KILL -f "^ibv_rc_pingpong -d efa_0 -g 0 -p $PORT " || true
wait "$cpid" "$spid" 2>/dev/null || true
wait_for 30 "the daemon to drop the killed pair's contexts" \
	status_is contexts 0 || :
expect_eq "contexts after the kill" "$(status_field contexts)" 0
pair ours ours ibv_rc_pingpong -g 0 -p "$PORT" -n 200 -s 4096 -c ||
	fail "ibv_rc_pingpong after the kill"
echo "ok"
