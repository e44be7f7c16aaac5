#!/bin/bash
# The harness of several hosts (hosts.sh), without the wire: three hosts in
# three network namespaces on one bridge, each with its daemon; and nothing
# left behind afterwards, whether the test passed or failed.
# Usage: hosts_selftest.sh BUILD
# (hosts_selftest.sh BUILD --run pass|fail is one run of the harness.)
if [ "$(id -u)" -ne 0 ] || ! ip netns list >/dev/null 2>&1; then
	echo "skipped: network namespaces need root"
	exit 77
fi
. "$(dirname "$0")/lib.sh" "$1"

# One run of the harness, in a process of its own, so that the outer one
# sees what its exit left.
if [ "${2:-}" = --run ]; then
	. "$(dirname "$0")/hosts.sh"
	echo "names: sefa-$$- $RUN"
	hosts_up 3
	if [ "$3" = fail ]; then
		# what the daemon of host 2 logged must be shown
		echo "a line of host 2's log" >>"$(hdir 2)/softefad.log"
		fail "a failing test (on purpose)"
	fi
	for i in 1 2 3; do
		ns=$(hns "$i")
		# the daemon answers inside its namespace and stands on its eth0
		out=$(ip netns exec "$ns" "$SOFTEFA" --run-dir "$(hdir "$i")" status) ||
			fail "host $i: softefa status"
		grep -q "^netdev: eth0 $(haddr "$i")/24$" <<<"$out" ||
			fail "host $i does not stand on its eth0: $out"
		expect_eq "host $i devices" "$(hstatus "$i" devices)" 1
		expect_eq "host $i tx_pkts" "$(hstat "$i" tx_pkts)" 0
		expect_eq "host $i tx_pkts of efa_0" "$(hstat "$i" efa_0 tx_pkts)" 0
		# ibv_devinfo through the provider shows the GID status shows
		gid=$(hgid "$i")
		[[ $gid == fe80:0000:0000:0000:* ]] || fail "host $i: GID '$gid'"
		hx "$i" -- ibv_devinfo -v | grep "GID\[  0\]:.*$gid" >/dev/null ||
			fail "host $i: ibv_devinfo does not show $gid"
		# each host reaches the others over the bridge
		for j in 1 2 3; do
			[ "$i" = "$j" ] && continue
			ip netns exec "$ns" ping -6 -c1 -W2 "$(hll "$j")%eth0" \
				>/dev/null || fail "host $i cannot ping6 host $j"
		done
	done
	gids=$(for i in 1 2 3; do hgid "$i"; done | sort -u | wc -l)
	expect_eq "distinct GIDs" "$gids" 3

	# a host with no daemon on the same bridge reaches them, and a
	# sleeper left there goes with it
	hosts_bare
	bare=${HOSTS_BARE[-1]}
	expect_eq "the bare host's number" "$bare" 4
	ip netns exec "$(hns "$bare")" ping -6 -c1 -W2 "$(hll 1)%eth0" \
		>/dev/null || fail "the bare host cannot ping6 host 1"
	ip netns exec "$(hns "$bare")" sleep 600 "$RUN" &

	# pair across namespaces: the server listens on one host, the client
	# reaches it from another by its address (perl: no wire needed)
	PORT=18515
	prog='use IO::Socket::INET;
		if (@ARGV) { IO::Socket::INET->new("$ARGV[0]:18515") or die "connect: $!";
			print "connected to $ARGV[0]\n" }
		else { $l = IO::Socket::INET->new(LocalPort => 18515, Listen => 1)
			or die "listen: $!"; $c = $l->accept; print "accepted ",
			$c->peerhost, "\n" }'
	hosts_pair ours ours perl -e "$prog" || fail "hosts_pair"
	grep -q "accepted $(haddr 2)" "$RUN/server.out" || fail "$(cat "$RUN/server.out")"
	grep -q "connected to $(haddr 1)" "$RUN/client.out" || fail "$(cat "$RUN/client.out")"
	PAIR_SERVER_HOST=3 PAIR_CLIENT_HOST=1 hosts_pair stock ours perl -e "$prog" ||
		fail "hosts_pair 3 1"
	grep -q "accepted $(haddr 1)" "$RUN/server.out" || fail "$(cat "$RUN/server.out")"

	# the daemons start again with other options, on the same network
	hosts_restart --profile extended --devices 2
	expect_eq "profile after restart" "$(hstatus 2 profile)" extended
	[ -n "$(hgid 3 efa_1)" ] || fail "no efa_1 after restart"
	lids=$(for i in 1 2 3; do hlid "$i"; hlid "$i" efa_1; done | sort -u)
	expect_eq "distinct LIDs" "$(wc -l <<<"$lids")" 6
	! grep -qx 0 <<<"$lids" || fail "LID 0 on the extended profile: $lids"
	echo "ok: three hosts"
	exit 0
fi

# run pass|fail: one run of the harness; then nothing of it may be left
run() {
	local out rc=0 prefix run

	out=$("$0" "$BUILD" --run "$1" 2>&1) || rc=$?
	prefix=$(awk '$1 == "names:" { print $2 }' <<<"$out")
	run=$(awk '$1 == "names:" { print $3 }' <<<"$out")
	[ -n "$prefix" ] && [ -n "$run" ] || fail "$1: $out"
	if [ "$1" = pass ]; then
		[ "$rc" -eq 0 ] || fail "the harness failed: $out"
	else
		[ "$rc" -ne 0 ] || fail "a failing test passed: $out"
		# the daemons' logs were shown
		grep -A1 -- "--- softefad.log of ${prefix}h2" <<<"$out" |
			grep -q "a line of host 2's log" ||
			fail "no daemon log after a failure: $out"
	fi
	! ip netns list | grep "^$prefix" >/dev/null ||
		fail "$1: namespaces left: $(ip netns list)"
	! pgrep -f "$run" >/dev/null ||
		fail "$1: processes left: $(pgrep -af "$run")"
	[ ! -e "$run" ] || fail "$1: $run left"
}
run pass
run fail
echo "ok: three hosts up and down, after a pass and after a failure"
