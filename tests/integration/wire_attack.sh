#!/bin/bash
# A stranger on the link: a namespace on the hosts' bridge with no daemon
# sends forged RoCEv2 frames from a plain UDP socket (wire_forge).
#  - a flood of 200,000 UD, then SRD, SENDs from random source QPs at the
#    QP of a real pair's server, while the pair runs (wire_verbs checks
#    every byte): the pair's traffic arrives intact, the daemon's peak RSS
#    grows by less than FLOOD_RSS_KB, softefa stats answers throughout,
#    and SRD's senders beyond the QP's windows are counted (no_window);
#  - RC by LID and by GID (extended profile): with the real peer's daemon
#    stopped, forged ACKs for every PSN the sender may have out complete
#    nothing (no more sends complete than the peer's device received):
#    the sender ends in IBV_WC_RETRY_EXC_ERR (12), and the forgeries are
#    counted (not_peer); forged requests to a LID-connected
#    QP are dropped and counted, its real traffic intact;
#  - RC peer death (SIGKILL of the server) ends the sender in
#    IBV_WC_RETRY_EXC_ERR, on one host and across hosts.
# Usage: wire_attack.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
. "$(dirname "$0")/hosts.sh"
WV=$BUILD/bin/wire_verbs
FORGE=$BUILD/bin/wire_forge
QKEY=0x11111111
PORT=18620
# A flooded QP holds at most 1024 windows of about 600 bytes (softefad(8),
# LIMITS): 0.6 MiB; the rest is room for the allocator and the sockets.
FLOOD_RSS_KB=8192
RETRY_EXC="status 12 (transport retry counter exceeded)"

# wv_bg HOST OUT ARGS...: wire_verbs ARGS on HOST in the background, its
# output in OUT and its own pid in OUT.pid
wv_bg() {
	local h=$1 out=$2

	shift 2
	hx "$h" -- sh -c 'echo $$ >"$0"; exec "$@"' "$out.pid" "$WV" "$@" \
		>"$out" 2>&1 &
}

# the QP number wire_verbs printed in OUT, once it did
qpn_of() {
	wait_for 30 "wire_verbs's QP in $1" grep -q '^qpn ' "$1" ||
		fail "no QP in $1: $(cat "$1")"
	awk '$1 == "qpn" { print $2; exit }' "$1"
}

# forge HOST ARGS...: wire_forge from the stranger to HOST's GID
forge() {
	local to=$1

	shift
	ip netns exec "$(hns "$BARE")" "$FORGE" \
		--to "$(hgid "$to")%eth0" "$@"
}

hosts_up 2 --wire
hosts_bare
BARE=${HOSTS_BARE[-1]}

# --- (a) the flood, with a real pair running
for mode in ud srd; do
	n=20000
	wv_bg 1 "$RUN/$mode.server" "$mode" -n "$n" -p "$PORT"
	server=$!
	on_host 1 wait_listen "$PORT" || fail "$mode server: $(cat "$RUN/$mode.server")"
	hwm0=$(hdaemon_kb 1 VmHWM)
	nw0=$(hdrops 1 no_window)
	wv_bg 2 "$RUN/$mode.client" "$mode" -n "$n" -p "$PORT" "$(haddr 1)"
	client=$!
	qpn=$(qpn_of "$RUN/$mode.server")
	t0=$SECONDS
	forge 1 "--$mode-send" --dqpn "$qpn" --qkey "$QKEY" --random-sqpn \
		--count 200000 --len 64 >"$RUN/forge.out" 2>&1 &
	forger=$!
	# softefa stats answers while the flood lasts, each within 5 s
	answers=0
	while kill -0 "$forger" 2>/dev/null; do
		timeout 5 "$SOFTEFA" --run-dir "$(hdir 1)" stats >/dev/null 2>&1 ||
			ip netns exec "$(hns 1)" timeout 5 "$SOFTEFA" \
				--run-dir "$(hdir 1)" stats >/dev/null ||
			fail "$mode flood: softefa stats did not answer"
		answers=$((answers + 1))
		sleep 0.2
	done
	wait "$forger" || fail "wire_forge: $(cat "$RUN/forge.out")"
	secs=$((SECONDS - t0))
	wait "$client" || fail "$mode client: $(cat "$RUN/$mode.client" "$RUN/$mode.server")"
	wait "$server" || fail "$mode server: $(cat "$RUN/$mode.server")"
	out=$(grep '^received' "$RUN/$mode.server")
	got=$(awk '{ print $2 }' <<<"$out")
	grep -q ", 0 duplicates, 0 corrupt" <<<"$out" || fail "$mode: $out"
	[ "$mode" = ud ] || [ "$got" -eq "$n" ] || fail "$mode: $out"
	[ "$got" -gt 0 ] || fail "$mode: $out"
	grep -q "sent 200000 of 200000" "$RUN/forge.out" ||
		fail "wire_forge: $(cat "$RUN/forge.out")"
	nw=$(($(hdrops 1 no_window) - nw0))
	if [ "$mode" = srd ]; then
		[ "$nw" -gt 0 ] || fail "srd: no sender refused for want of a window"
	else
		expect_eq "ud senders refused" "$nw" 0
	fi
	hgrew_less 1 "$hwm0" "$FLOOD_RSS_KB" "$mode flood"
	echo "$mode flood: $out; no_window $nw; softefad VmRSS" \
		"$(hdaemon_kb 1 VmRSS) kB; stats answered $answers times in $secs s"
done

# --- (b) forged answers and requests on RC
hosts_restart --profile extended --wire

# stopped HOST: its daemon stopped (SIGSTOP) until resumed, so that its
# QPs answer nothing; resumed on the way out whatever happens
daemon_signal() { kill "-$2" "$(cat "$(hdir "$1")/softefad.pid")"; }

# The client retries a lost packet 7 times, each after 1.07 s (timeout
# 18): the forged ACKs must come while it still waits for real ones, and
# on a loaded machine wire_forge takes more than the default's 0.5 s.
for mode in rc-lid rc; do
	wv_bg 1 "$RUN/$mode.server" "$mode" -n 100000000 -p "$PORT"
	server=$!
	on_host 1 wait_listen "$PORT" || fail "$mode server: $(cat "$RUN/$mode.server")"
	wv_bg 2 "$RUN/$mode.client" "$mode" -n 100000000 -p "$PORT" -t 18 "$(haddr 1)"
	client=$!
	cqpn=$(qpn_of "$RUN/$mode.client")
	under_way() { [ "$(hstat 2 tx_pkts)" -ge 2000 ]; }
	wait_for 60 "the $mode client to send 2000 messages" under_way ||
		fail "$mode client: $(cat "$RUN/$mode.client")"
	np0=$(hdrops 2 not_peer)
	daemon_signal 1 STOP
	# PSNs start at 0, one a message: ACK every one it may have out
	sent=$(hstat 2 tx_pkts)
	rc=0
	forge 2 --rc-ack --dqpn "$cqpn" --psn $((sent > 100 ? sent - 100 : 0)) \
		--psn-sweep --count 4000 >"$RUN/forge.out" 2>&1 || rc=$?
	t0=$SECONDS
	wait "$client" && rc=1
	daemon_signal 1 CONT
	[ "$rc" -eq 0 ] || fail "$mode: a forged ACK completed a send, or wire_forge failed:" \
		"$(cat "$RUN/forge.out" "$RUN/$mode.client")"
	grep -qF "$RETRY_EXC" "$RUN/$mode.client" ||
		fail "$mode client: $(cat "$RUN/$mode.client")"
	# no send completed that the server's device did not take (one more
	# may land from its socket once the daemon goes on)
	ok=$(awk '/send completion/ { print $(NF - 1); exit }' "$RUN/$mode.client")
	[ "$ok" -le "$(hstat 1 rx_pkts)" ] ||
		fail "$mode: $ok sends completed, $(hstat 1 rx_pkts) received"
	np=$(($(hdrops 2 not_peer) - np0))
	[ "$np" -gt 0 ] || fail "$mode: no forged ACK counted as not_peer: $(hsefa 2 stats)"
	kill "$(cat "$RUN/$mode.server.pid")" 2>/dev/null || :
	wait "$server" || :
	echo "$mode: forged ACKs for PSN $((sent - 100))+4000: not_peer $np;" \
		"$ok sends completed, $(hstat 1 rx_pkts) received;" \
		"the sender ended in $((SECONDS - t0)) s: $(grep -F "$RETRY_EXC" "$RUN/$mode.client")"
done

# forged requests to a LID-connected QP, with its real peer sending
n=20000
wv_bg 1 "$RUN/req.server" rc-lid -n "$n" -p "$PORT"
server=$!
on_host 1 wait_listen "$PORT" || fail "server: $(cat "$RUN/req.server")"
wv_bg 2 "$RUN/req.client" rc-lid -n "$n" -p "$PORT" "$(haddr 1)"
client=$!
sqpn=$(qpn_of "$RUN/req.server")
np0=$(hdrops 1 not_peer)
forge 1 --rc-send --dqpn "$sqpn" --psn 0 --psn-sweep --count 2000 --len 64 \
	>"$RUN/forge.out" 2>&1 || fail "wire_forge: $(cat "$RUN/forge.out")"
wait "$client" || fail "client: $(cat "$RUN/req.client" "$RUN/req.server")"
wait "$server" || fail "server: $(cat "$RUN/req.server")"
grep -q "received $n of $n, 0 duplicates, 0 corrupt, 0 from strangers" \
	"$RUN/req.server" || fail "server: $(cat "$RUN/req.server")"
np=$(($(hdrops 1 not_peer) - np0))
[ "$np" -gt 0 ] && [ "$np" -le 2000 ] || fail "forged requests: not_peer $np"
echo "rc-lid: 2000 forged requests: not_peer $np; $(cat "$RUN/req.server")"

# --- (c) RC peer death: SIGKILL of the server, on one host and across
for ch in 1 2; do
	wv_bg 1 "$RUN/death.server" rc-lid -n 100000000 -p "$PORT"
	server=$!
	on_host 1 wait_listen "$PORT" || fail "server: $(cat "$RUN/death.server")"
	wv_bg "$ch" "$RUN/death.client" rc-lid -n 100000000 -p "$PORT" "$(haddr 1)"
	client=$!
	qpn_of "$RUN/death.client" >/dev/null
	tx0=$(hstat "$ch" tx_pkts)
	moving() { [ "$(hstat "$ch" tx_pkts)" -ge $((tx0 + 1000)) ]; }
	wait_for 60 "the client on host $ch to send" moving ||
		fail "client: $(cat "$RUN/death.client")"
	kill -KILL "$(cat "$RUN/death.server.pid")"
	t0=$SECONDS
	wait "$client" && fail "the client went on without its peer"
	wait "$server" || :
	grep -qF "$RETRY_EXC" "$RUN/death.client" ||
		fail "client on host $ch: $(cat "$RUN/death.client")"
	echo "peer killed, client on host $ch: ended in $((SECONDS - t0)) s:" \
		"$(grep -F "$RETRY_EXC" "$RUN/death.client")"
done
echo "PASS: wire-attack"
