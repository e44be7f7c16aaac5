#!/bin/bash
# Black holes (softefa inject add blackhole) under real clients, RC on one
# host and SRD and RC between two hosts on the wire:
#  - one host, dev=efa_0 peer-dev=efa_1: ibv_rc_pingpong's client sends
#    into the hole and ends in IBV_WC_RETRY_EXC_ERR once its QP's 7
#    resends, each after timeout 14 (67 ms), are spent: well within 10 s;
#  - two hosts, a rule on host 2 for host 1's GID (peer-gid=): an SRD
#    send from host 2 there ends in the unreachable remote's error
#    (vendor error 15: nothing ever came back, the SM's sweeps aside)
#    and host 1 receives none of it; the same rule on host 1 for host 2's
#    GID swallows what comes in, with the same end;
#  - ibv_rc_pingpong between the hosts, into the hole: the client's send
#    ends in IBV_WC_RETRY_EXC_ERR, and with the rule cleared the same run
#    succeeds.
# Usage: inject_hole.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
. "$(dirname "$0")/hosts.sh"
WV=$BUILD/bin/wire_verbs
PORT=$(pick_port)
EXC="Failed status transport retry counter exceeded (12)"

# rule RULE...: add it on this host; its id
rule() {
	sefa inject add "$@" | awk '{ print $NF }'
}

hits() {
	sefa inject list | awk -v id="$1" '$1 == id { print $2 }'
}

# into_hole SERVER_HOST CLIENT_HOST SERVER_ARGS CLIENT_ARGS: ibv_rc_pingpong
# whose client's first send goes into a black hole; the client must fail
# with the retries exhausted within 10 s; the server, left waiting for a
# message that never comes, is stopped (timeout passes the signal on to
# the tool, which softefa exec became).  Hosts are on_host numbers, or ""
# for the one host.
into_hole() {
	local sh=$1 ch=$2 spid t0 rc=0 ns="" dir=$RUN

	if [ -n "$sh" ]; then
		ns=$(hns "$sh")
		dir=$(hdir "$sh")
	fi
	# shellcheck disable=SC2086
	timeout -k 5 60 ${ns:+ip netns exec "$ns"} "$SOFTEFA" --run-dir "$dir" \
		exec -- stdbuf -oL ibv_rc_pingpong -g 0 -p "$PORT" $3 \
		>"$RUN/server.out" 2>&1 &
	spid=$!
	${sh:+on_host "$sh"} wait_listen "$PORT" ||
		fail "server: $(cat "$RUN/server.out")"
	t0=$SECONDS
	# shellcheck disable=SC2086
	${ch:+on_host "$ch"} sx -- timeout -k 5 30 stdbuf -oL \
		ibv_rc_pingpong -g 0 -p "$PORT" $4 >"$RUN/client.out" 2>&1 || rc=$?
	kill "$spid" 2>/dev/null || :
	wait "$spid" || :
	[ "$rc" -ne 0 ] || fail "the client's send into the hole succeeded"
	grep -qF "$EXC" "$RUN/client.out" ||
		fail "client (exit $rc): $(cat "$RUN/client.out")"
	[ $((SECONDS - t0)) -le 10 ] ||
		fail "the client took $((SECONDS - t0)) s to run out of retries"
	echo "rc into the hole: retries exhausted after $((SECONDS - t0)) s"
}

start_host --profile extended --devices 2
id=$(rule blackhole dev=efa_0 peer-dev=efa_1)
into_hole "" "" "-d efa_0" "-d efa_1 127.0.0.1"
# the first packet and its 7 resends, at least
[ "$(hits "$id")" -ge 8 ] || fail "blackhole: $(sefa inject list)"
stop_host

hosts_up 2 --wire --profile extended
gid1=$(hgid 1)
gid2=$(hgid 2)
if [ -z "$gid1" ] || [ -z "$gid2" ]; then
	fail "no GIDs: '$gid1' '$gid2'"
fi

# out: host 2 drops what it sends to host 1
rx1=$(hstat 1 rx_pkts)
id=$(on_host 2 rule blackhole peer-gid="$gid1")
hx 2 "$WV" srd -u "$gid1" | tee "$RUN/hole.out" ||
	fail "SRD out into a black hole: $(cat "$RUN/hole.out")"
[ "$(on_host 2 hits "$id")" -gt 1 ] ||
	fail "host 2's rule did not take every resend: $(hsefa 2 inject list)"
expect_eq "packets host 1 received" "$(hstat 1 rx_pkts)" "$rx1"
hsefa 2 inject clear all >/dev/null

# in: host 1 swallows what comes from host 2, answering nothing
id=$(on_host 1 rule blackhole peer-gid="$gid2")
hx 2 "$WV" srd -u "$gid1" | tee "$RUN/hole.out" ||
	fail "SRD in through a black hole: $(cat "$RUN/hole.out")"
[ "$(on_host 1 hits "$id")" -gt 1 ] ||
	fail "host 1's rule did not take every resend: $(hsefa 1 inject list)"
expect_eq "packets host 1 received" "$(hstat 1 rx_pkts)" "$rx1"
hsefa 1 inject clear all >/dev/null

# RC between the hosts, by GID, into host 2's hole
id=$(on_host 2 rule blackhole peer-gid="$gid1")
into_hole 1 2 "" "$(haddr 1)"
hsefa 2 inject clear all >/dev/null
hosts_pair ours ours ibv_rc_pingpong -g 0 -p "$PORT" -n 10 ||
	fail "ibv_rc_pingpong with the rule cleared"
both_iterated 10 "with the rule cleared"
echo ok
