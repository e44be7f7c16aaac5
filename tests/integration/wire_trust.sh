#!/bin/bash
# A stranger on the link (softefa-wire(7) TRUST): a namespace on the bridge
# with no daemon sends forgeries from a plain UDP socket (wire_forge) to
# two extended hosts, host 1 the SM, while RC by LID runs between them.
#  - forged LID replies (opcode 0xe1) claiming host 1's LID for the
#    stranger's address, and PerfMgt MADs with host 1's LID as their
#    source, before and during ibv_rc_pingpong -e -c by LID: the pingpong
#    passes with its own checks, none of its payload reaches the stranger,
#    and the drops are counted by reason (lid_unasked);
#  - floods: 8,000 PerfMgt MADs with random source LIDs to both hosts,
#    1,100 NodeInfo answers with random TIDs and source LIDs to the SM:
#    softefa stats answers during the flood, the daemons' peak RSS stays
#    flat, the SM counts sweep_unasked, saquery -p still names the real
#    GIDs, a host started after the flood joins, and RC by LID works.
. "$(dirname "$0")/lib.sh" "$1"
. "$(dirname "$0")/hosts.sh"
command -v saquery >/dev/null || fail "infiniband-diags is not installed"
command -v tcpdump >/dev/null || fail "tcpdump is not installed"
FORGE=$BUILD/bin/wire_forge
[ -x "$FORGE" ] || fail "no $FORGE"

hosts_up 3 --profile extended --wire
# host 3 starts later, after the floods
hsefa 3 stop >/dev/null || fail "host 3: stop"
hosts_bare
X=${HOSTS_BARE[-1]}
XLL=$(hll "$X")
mad() { on_host "$1" timeout 60 "$SOFTEFA" --run-dir "$(hdir "$1")" exec -- "${@:2}"; }
forge() { ip netns exec "$(hns "$X")" "$FORGE" "$@" >/dev/null; }
# datagrams to port 4791 (0x12b7) the kernel of host $1 dropped, its
# sockets' buffers full: a flood on a busy machine loses some before the
# daemon could count them
udp_drops() {
	ip netns exec "$(hns "$1")" awk '$2 ~ /:12B7$/ { n += $NF }
		END { print n + 0 }' /proc/net/udp6
}
# host $1 dropped a datagram for reason $2
dropped() { [ "$(hdrops "$1" "$2")" -gt 0 ]; }
gid_hex() { gid_full "$1" | tr -d :; }

L1=$(hlid 1) L2=$(hlid 2)
G1=$(hgid 1) G2=$(hgid 2)
# the devices' GIDs, as the stranger addresses them (host 1's is the SM's)
to1="$G1%eth0"
to2="$G2%eth0"

# the stranger's capture: anything of 1 KiB or more that comes to it
cap=$RUN/stranger.pcap
ip netns exec "$(hns "$X")" tcpdump --immediate-mode -i eth0 -U -w "$cap" \
	"udp port 4791 and dst host $XLL and greater 1024" \
	2>"$RUN/tcpdump.err" &
tcpdump_pid=$!
wait_for 30 "tcpdump to listen on the stranger's eth0" \
	grep -q "listening on" "$RUN/tcpdump.err" ||
	fail "tcpdump: $(cat "$RUN/tcpdump.err")"

# A LID reply: BTH (op 0xe1, P_Key 0xffff), the LID, 2 zero bytes, a TID,
# the GID said to hold it, the ICRC: host 1's LID is the stranger's.
lid_reply=$(printf 'e100ffff%016x%04x0000%016x%s00000000' 0 "$L1" 1 \
	"$(gid_hex "$XLL")")
# mad_hdr CLASS METHOD ATTR [TID]: a MAD's common header
mad_hdr() {
	printf '01%02x01%02x00000000%s%04x000000000000' "$1" "$2" \
		"${4:-0000000000000000}" "$3"
}
# A PerfMgt Get(PortCounters); the source LID comes with --slid
pma_get=$(mad_hdr 4 1 0x12)
# the answer to a question nobody asked
pma_resp=$(mad_hdr 4 0x81 0x12)

# forged before and while the pingpong runs, from the stranger's address
(
	end=$((SECONDS + 40))
	while [ "$SECONDS" -lt "$end" ]; do
		forge --to "$to2" --count 20 --hex "$lid_reply"
		forge --to "$to2" --count 20 --mad "$pma_get" --slid "$L1" \
			--dlid "$L2" --random-tid
		sleep 0.05
	done
) &
forger=$!
wait_for 30 "host 2 to drop forged LID replies" dropped 2 lid_unasked ||
	fail "host 2 counts no lid_unasked: $(hsefa 2 stats)"
PAIR_SERVER_HOST=1 PAIR_CLIENT_HOST=2 PORT=18520 hosts_pair ours ours \
	ibv_rc_pingpong -p 18520 -n 50 -s 4096 -e -c ||
	fail "ibv_rc_pingpong -e -c by LID between hosts 1 and 2"
grep -q "50 iters" "$RUN/client.out" || fail "pingpong: $(cat "$RUN/client.out")"
kill "$forger" 2>/dev/null
wait "$forger" || true	# killed
kill -INT "$tcpdump_pid"
wait "$tcpdump_pid" || fail "tcpdump: $(cat "$RUN/tcpdump.err")"
n=$(tcpdump -r "$cap" 2>/dev/null | wc -l)
[ "$n" -eq 0 ] || fail "the stranger received $n large packets: $(tcpdump -nr "$cap" 2>/dev/null | head)"
echo "forged LID replies dropped by host 2: $(hdrops 2 lid_unasked)"

# The SM's sweep, as the stranger sees it on the group: its TID is at byte
# 80 of the IPv6 packet (IPv6, UDP, BTH, DETH, ImmDt, 8 bytes of MAD).
sweep_tid() {
	ip netns exec "$(hns "$X")" timeout 30 tcpdump -c 1 -x -i eth0 \
		"dst ff02::5efa and udp port 4791 and ip6[48] == 0x65" \
		2>/dev/null | awk '/0x/ { for (i = 2; i <= NF; i++) printf "%s", $i }' |
		cut -c161-176
}
tid=$(sweep_tid)
[ ${#tid} -eq 16 ] || fail "the stranger read no sweep TID: '$tid'"
# The sweep answered: SubnGetResp(NodeInfo) with the sweep's TID and host
# 2's port GUID, after the SMP's M_Key and reserved bytes
guid2=${G2//:/}
node_info=$(mad_hdr 1 0x81 0x11 "$tid")$(printf '%080d' 0)
node_info+=0101010100000000000000000000000000000000${guid2:16:16}

# the floods, with softefa stats answering during them
hwm1=$(hdaemon_kb 1 VmHWM) hwm2=$(hdaemon_kb 2 VmHWM) lost1=$(udp_drops 1)
forge --to "$to1" --count 1100 --mad "$node_info" --random-slid --random-tid \
	--dlid 1 --dqpn 0 --qkey 0 &
f1=$!
forge --to "$to2" --count 8000 --mad "$pma_get" --random-slid --dlid "$L2" &
f2=$!
forge --to "$to1" --count 8000 --mad "$pma_resp" --random-slid --dlid "$L1" \
	--random-tid &
f3=$!
for i in 1 2; do
	timeout 20 "$SOFTEFA" --run-dir "$(hdir $i)" stats >/dev/null ||
		fail "host $i: softefa stats did not answer within 20 s during the flood"
done
wait "$f1" && wait "$f2" && wait "$f3" || fail "wire_forge's flood"
hgrew_less 1 "$hwm1" 2048 "the floods"
hgrew_less 2 "$hwm2" 2048 "the floods"
# every forgery that reached the daemon is counted
lost1=$(($(udp_drops 1) - lost1))
[ "$(hdrops 1 sweep_unasked)" -ge $((1000 - lost1)) ] ||
	fail "the SM counts too few sweep_unasked ($lost1 lost before it): $(hsefa 1 stats)"
[ "$(hdrops 1 mad_unasked)" -ge $((8000 - lost1)) ] ||
	fail "host 1 counts too few mad_unasked ($lost1 lost before it): $(hsefa 1 stats)"
echo "host 1's kernel dropped $lost1 datagrams of the flood, its sockets full"
echo "the SM's drops: $(hsefa 1 stats | grep "^wire drops")"

# a host started after the floods joins; the SA's paths are the real ones
on_host 3 sefa start --netdev eth0 --host-id 3 --profile extended --wire \
	>/dev/null || fail "host 3: start"
L3=$(hlid 3) G3=$(hgid 3)
gid_of() { awk -v k="$1" '$1 ~ "^" k "\\." { sub(/^[a-z]+\.+/, "", $1); print $1 }'; }
path_dgid() {
	PATH_OUT=$(mad 2 saquery -p --slid "$L2" --dlid "$1") || return 1
	[ "$(gid_full "$(gid_of dgid <<<"$PATH_OUT")")" = "$2" ]
}
wait_for 30 "the SA's path to host 3" path_dgid "$L3" "$G3" ||
	fail "saquery -p to host 3 (LID $L3): $PATH_OUT"
path_dgid "$L1" "$G1" || fail "saquery -p to host 1 (LID $L1): $PATH_OUT"
PAIR_SERVER_HOST=3 PAIR_CLIENT_HOST=2 PORT=18521 hosts_pair ours ours \
	ibv_rc_pingpong -p 18521 -n 50 -s 4096 -e -c ||
	fail "ibv_rc_pingpong by LID between hosts 2 and 3 after the floods"
echo "PASS"
