#!/bin/bash
# The pingpong tools between hosts, each in its network namespace, over
# the wire (softefa-wire(7)); a third host on the same bridge.  The server
# runs on host 1, the client on host 2 (once on host 3), and they meet
# through host 1's IPv4 address; the verbs traffic must cross the wire.
#  - efa profile: ibv_ud_pingpong -g 0 -c (both providers), perftest SRD
#    (ib_send_lat, ib_send_bw, ib_read_bw with -c SRD -x 0: the tree has no
#    SRD pingpong of its own), fi_pingpong -p efa -e rdm -c;
#  - extended profile: ibv_rc_pingpong -c by GID (-g 0) and by LID (no -g),
#    perftest RC (ib_write_bw, ib_read_lat), and ibv_ud_pingpong once more.
# What the wire is expected to do, beside carrying the packets: add each
# device's GID to eth0 (and take it away when the daemon stops) and bind
# UDP port 4791.
# Usage: wire_pingpong.sh BUILD [START_OPTION...] (given to every host)
. "$(dirname "$0")/lib.sh" "$1"
. "$(dirname "$0")/hosts.sh"
shift
PORT=18515
command -v ib_send_lat >/dev/null || fail "perftest is not installed"

# wire_up: every host's GID on its eth0, UDP 4791 bound there
wire_up() {
	local i addrs

	for i in 1 2; do
		addrs=$(ip -n "$(hns "$i")" -6 -o addr show dev eth0 |
			awk '{ sub(/\/.*/, "", $4); print $4 }' |
			while read -r a; do gid_full "$a"; done)
		grep -qx "$(hgid "$i")" <<<"$addrs" ||
			fail "host $i: GID $(hgid "$i") not on eth0: $addrs"
		[ -n "$(ip netns exec "$(hns "$i")" ss -Hlun 'sport = :4791')" ] ||
			fail "host $i: nothing bound on UDP port 4791"
	done
}

# ud WHAT SERVER_PROVIDER CLIENT_PROVIDER ARGS...: 200 round trips of
# ibv_ud_pingpong, the payload where -c puts it, each side's peer the
# other host's GID
ud() {
	local what=$1 sp=$2 cp=$3
	shift 3

	hosts_pair "$sp" "$cp" ibv_ud_pingpong -g 0 -p "$PORT" -n 200 "$@" ||
		fail "ibv_ud_pingpong $what"
	both_iterated 200 "$what"
	! grep -q "invalid data" "$RUN/server.out" ||
		fail "payload not at offset 40, $what: $(cat "$RUN/server.out")"
	remote_gid server 2
	remote_gid client 1
	ud_runs=$((ud_runs + 1))
}

# remote_gid SIDE HOST: SIDE's tool saw HOST's GID as its peer's
remote_gid() {
	local gid

	gid=$(awk '$1 == "remote" { print $NF; exit }' "$RUN/$1.out")
	expect_eq "$1's peer" "$(gid_full "$gid")" "$(hgid "$2")"
}

perf_run() {
	hosts_pair ours ours "$@"
}

# no loss on the veths: what one host sent, the other received (SRD's and
# RC's acknowledgements and resends count on both sides alike)
balanced() {
	local i

	for i in 1 2; do
		expect_eq "host $i rx_drops" "$(hstat "$i" rx_drops)" 0
		expect_eq "host $i errors" "$(hstat "$i" errors)" 0
	done
	expect_eq "host 1 rx_pkts" "$(hstat 1 rx_pkts)" "$(hstat 2 tx_pkts)"
	expect_eq "host 2 rx_pkts" "$(hstat 2 rx_pkts)" "$(hstat 1 tx_pkts)"
}

# efa1: Debian 12's perftest takes no later part id for EFA (its
# ib_read_bw posts reads where EFA refuses them; softefad(8), GENERATIONS)
hosts_up 3 --wire --profile efa1 "$@"
wire_up
ud_runs=0
for size in 1 1024 4096; do
	for ev in "" -e; do
		# shellcheck disable=SC2086
		ud "size $size $ev" ours ours -c -s "$size" $ev
	done
done
ud "stock/ours" stock ours -c -s 1024
ud "ours/stock" ours stock -c -s 1024
# each side sent its 200 messages over the wire, none was lost
for i in 1 2; do
	expect_eq "host $i tx_pkts" "$(hstat "$i" tx_pkts)" $((ud_runs * 200))
	expect_eq "host $i rx_pkts" "$(hstat "$i" rx_pkts)" $((ud_runs * 200))
done
balanced

perf_srd
# the reads crossed the wire as the devices' own RDMA reads
[ $(($(hstat 1 rdma_reads) + $(hstat 2 rdma_reads))) -ge 200 ] ||
	fail "rdma_reads: $(hsefa 1 stats) $(hsefa 2 stats)"
balanced

# libfabric's efa provider across the hosts, with its own data checks
FI_EFA_ENABLE_SHM_TRANSFER=0 SERVER_ARGS="-B $PORT" CLIENT_ARGS="-P $PORT" \
	PAIR_TIMEOUT=240 hosts_pair ours ours fi_pingpong -p efa -e rdm -c \
	-I 20 -S 65536 || fail "fi_pingpong -p efa: $(cat "$RUN/client.out")"
grep -Eq '^64k +20 +=20 ' "$RUN/client.out" || fail "fi_pingpong: $(cat "$RUN/client.out")"

# a third host reaches the first as well
PAIR_CLIENT_HOST=3 hosts_pair ours ours ibv_ud_pingpong -g 0 -p "$PORT" -n 200 \
	-c -s 1024 || fail "ibv_ud_pingpong from host 3"
grep -q "200 iters in" "$RUN/client.out" || fail "host 3: $(cat "$RUN/client.out")"
remote_gid client 1
expect_eq "host 3 rx_pkts" "$(hstat 3 rx_pkts)" 200

# RC on the extended profile.  Each host's LIDs are its own (--host-id);
# a LID of another host is found by asking the link (softefa-wire(7)).
hosts_restart --wire --profile extended "$@"
wire_up
lid1=$(hlid 1) lid2=$(hlid 2)
[ "$lid1" -ne 0 ] && [ "$lid2" -ne 0 ] && [ "$lid1" -ne "$lid2" ] ||
	fail "LIDs $lid1 and $lid2"
for args in "-g 0 -s 1" "-g 0 -s 4096" "-g 0 -s 150000 -n 100" \
	"-g 0 -e -s 8192" "-s 1" "-s 4096" "-e -s 8192"; do
	# shellcheck disable=SC2086
	hosts_pair ours ours ibv_rc_pingpong -p "$PORT" -c $args ||
		fail "ibv_rc_pingpong -c $args"
	grep -q "iters in" "$RUN/client.out" || fail "rc_pingpong $args"
	# by LID, each side addressed the other host's
	if [[ $args != *-g* ]]; then
		grep -q "remote address: LID $(printf 0x%04x "$lid2")," \
			"$RUN/server.out" || fail "server's peer: $(cat "$RUN/server.out")"
		grep -q "remote address: LID $(printf 0x%04x "$lid1")," \
			"$RUN/client.out" || fail "client's peer: $(cat "$RUN/client.out")"
	else
		remote_gid server 2
		remote_gid client 1
	fi
done
# perftest over RC: RDMA write bandwidth, RDMA read latency
perf ib_write_bw -x 0 -n 200
grep -Eq '^ +65536 +200 ' "$RUN/client.out" || fail "ib_write_bw: $(cat "$RUN/client.out")"
perf ib_read_lat -x 0 -n 200
grep -Eq '^ +2 +200 ' "$RUN/client.out" || fail "ib_read_lat: $(cat "$RUN/client.out")"
ud "extended" ours stock -c -s 1024
balanced
for i in 1 2; do
	expect_eq "host $i contexts" "$(hstatus "$i" contexts)" 0
done

# a stopped daemon takes its GID off eth0 and its port with it
gid=$(hgid 2)
on_host 2 host_down 0 || fail "host 2: softefad reported errors"
! ip -n "$(hns 2)" -6 -o addr show dev eth0 | awk '{ sub(/\/.*/, "", $4); print $4 }' |
	while read -r a; do gid_full "$a"; done | grep -x "$gid" >/dev/null ||
	fail "host 2: GID $gid still on eth0 after stop"
[ -z "$(ip netns exec "$(hns 2)" ss -Hlun 'sport = :4791')" ] ||
	fail "host 2: UDP 4791 still bound after stop"
echo "ok: UD, SRD and RC between two hosts over the wire"
