#!/bin/bash
# The wire as tshark sees it.  eth0 of host 2 is captured during an ibv_ud_pingpong
# between host 1 (server) and host 2 (client); tshark, with no option and
# no plug-in, must decode every packet as RoCEv2: UDP port 4791, IPv6
# between the two devices' GIDs, an InfiniBand BTH (UD SEND only, to the
# peer's QPN) and a DETH (the pingpong's Q_Key, from the sender's QPN),
# then the payload and the ICRC.
# Usage: wire_tshark.sh BUILD [START_OPTION...] (given to every host)
. "$(dirname "$0")/lib.sh" "$1"
. "$(dirname "$0")/hosts.sh"
shift
PORT=18515
N=20 SIZE=1024
command -v tshark >/dev/null || fail "tshark is not installed"

hosts_up 2 --wire "$@"
gid1=$(hgid 1) gid2=$(hgid 2)
cap=$RUN/wire.pcapng
# tshark says "Capturing on" before it does, and its first start on a
# fresh machine takes seconds: host 2 pings host 1, one ping at a time,
# until tshark has seen a reply (-P -l: a line per packet as it goes).
ip netns exec "$(hns 2)" tshark -l -P -i eth0 -f "udp port 4791 or icmp6" \
	-w "$cap" >"$RUN/tshark.out" 2>&1 &
tshark_pid=$!
captures() {
	kill -0 "$tshark_pid" 2>/dev/null ||
		fail "tshark exited: $(cat "$RUN/tshark.out")"
	ip netns exec "$(hns 2)" ping -6 -c1 -W1 "$(hll 1)%eth0" >/dev/null || :
	grep -q "ICMPv6.*Echo (ping) reply" "$RUN/tshark.out"
}
t0=$SECONDS
wait_for 60 "tshark to capture a ping reply on host 2's eth0" captures ||
	fail "tshark does not capture: $(cat "$RUN/tshark.out")"
echo "tshark captures after $((SECONDS - t0)) s"

hosts_pair ours ours ibv_ud_pingpong -g 0 -p "$PORT" -n "$N" -c -s "$SIZE" ||
	fail "ibv_ud_pingpong"
grep -q "$N iters in" "$RUN/client.out" || fail "$(cat "$RUN/client.out")"
# tshark prints each packet once it has it: stop it after the last
rroce() { [ "$(grep -c RRoCE "$RUN/tshark.out")" -ge $((2 * N)) ]; }
wait_for 30 "tshark to show the $((2 * N)) packets of the pingpong" rroce ||
	fail "tshark: $(cat "$RUN/tshark.out")"
kill -INT "$tshark_pid"
wait "$tshark_pid" || fail "tshark: $(cat "$RUN/tshark.out")"

# "  local address:  LID 0x0000, QPN 0x000100, PSN ..."
qpn() { awk '$1 == "local" { sub(/,$/, "", $6); print $6; exit }' "$RUN/$1.out"; }
sqpn=$(qpn server) cqpn=$(qpn client)
[ -n "$sqpn" ] && [ -n "$cqpn" ] || fail "no QPNs: $(cat "$RUN/server.out")"

# tshark's own words
text=$(tshark -r "$cap" -Y "udp.port == 4791" -V 2>/dev/null) || fail "tshark -r $cap"
for words in "InfiniBand" "Base Transport Header" \
	"DETH - Datagram Extended Transport Header" \
	"Destination Queue Pair: $(printf 0x%06x "$sqpn")" \
	"Destination Queue Pair: $(printf 0x%06x "$cqpn")"; do
	grep -qF "$words" <<<"$text" || fail "tshark -V does not show '$words'"
done
! grep -q "Malformed\|Expert Info (Error" <<<"$text" ||
	fail "tshark finds malformed packets: $(grep -B30 "Malformed\|Expert Info (Error" <<<"$text" | head -60)"

# packet by packet: each direction's N messages, addressed by GID and QPN
# UDP: 8, BTH: 12, DETH: 8, the payload, ICRC: 4
ulen=$((8 + 12 + 8 + SIZE + 4))
to1=0 to2=0
while read -r src dst dport udplen opcode destqp qkey srcqp; do
	src=$(gid_full "$src") dst=$(gid_full "$dst")
	pkt="$src > $dst port $dport len $udplen opcode $opcode destqp $destqp qkey $qkey srcqp $srcqp"
	[ "$dport" = 4791 ] || fail "not to UDP 4791: $pkt"
	[ "$opcode" = 100 ] || fail "not a UD SEND only: $pkt"
	[ "$udplen" = "$ulen" ] || fail "UDP length not $ulen: $pkt"
	[ $((qkey)) -eq $((0x11111111)) ] || fail "Q_Key: $pkt"
	if [ "$src $dst" = "$gid2 $gid1" ] && [ $((destqp)) -eq $((sqpn)) ] &&
		[ $((srcqp)) -eq $((cqpn)) ]; then
		to1=$((to1 + 1))
	elif [ "$src $dst" = "$gid1 $gid2" ] && [ $((destqp)) -eq $((cqpn)) ] &&
		[ $((srcqp)) -eq $((sqpn)) ]; then
		to2=$((to2 + 1))
	else
		fail "a packet between neither QP pair (server $gid1 QPN $sqpn, client $gid2 QPN $cqpn): $pkt"
	fi
done < <(tshark -r "$cap" -Y "udp.port == 4791" -T fields -E separator=' ' -e ipv6.src \
	-e ipv6.dst -e udp.dstport -e udp.length -e infiniband.bth.opcode \
	-e infiniband.bth.destqp -e infiniband.deth.q_key \
	-e infiniband.deth.srcqp 2>/dev/null)
expect_eq "packets to host 1" "$to1" "$N"
expect_eq "packets to host 2" "$to2" "$N"
echo "ok: $((to1 + to2)) RoCEv2 packets as tshark reads them"
