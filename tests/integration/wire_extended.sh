#!/bin/bash
# The extended profile across hosts.  One subnet manager for the fabric, on
# host 1 (started with --sm), whose sweep finds the ports of every host on
# the wire; from hosts 2 and 3, MADs to other hosts' LIDs cross the wire:
#  - infiniband-diags: smpquery answered by a remote port's SMA, sminfo and
#    saquery (tables through RMPP) by host 1's SM/SA, perfquery by a remote
#    PMA whose counters follow that device's traffic;
#  - the MAD API (mad_api) with its peer on another host: a 20 KiB RMPP
#    request and response, timeouts, filtering;
#  - indirect (KLM) regions (umr_verbs) written and read by an RC peer on
#    another host, byte for byte;
#  - tshark reads the MADs on the wire as MADs: UD SEND with immediate
#    (the LIDs) to QP0 and QP1, SMPs and SA tables named, none malformed;
#  - a host that stops leaves the SA's tables.
# Usage: wire_extended.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
. "$(dirname "$0")/hosts.sh"
command -v saquery >/dev/null || fail "infiniband-diags is not installed"

hosts_up 3 --profile extended --devices 2 --wire
# "Key:....value" of the diags' dumps
field() { sed -nE "s/^$1:\.+//p" | head -n 1; }
mad() { on_host "$1" timeout 60 "$SOFTEFA" --run-dir "$(hdir "$1")" exec -- "${@:2}"; }
# GUID[host,dev], LID[host,dev], GID[host,dev] from one status each
declare -A GUID LID GID
for i in 1 2 3; do
	while read -r dev guid lid gid; do
		GUID[$i,$dev]=0x$guid LID[$i,$dev]=$lid GID[$i,$dev]=$gid
	done < <(hsefa "$i" status | awk '$1 == "device" {
		for (k = 3; k < NF; k++) {
			if ($k == "lid") lid = $(k + 1)
			if ($k == "gid") gid = $(k + 1)
		}
		print $2, $5, lid, gid }')
done

# host 2's eth0 captured (tcpdump says "listening" once it is), for tshark;
# at once, or what the buffer holds when it is stopped is lost
cap=$RUN/mad.pcap
ip netns exec "$(hns 2)" tcpdump --immediate-mode -i eth0 -U -w "$cap" \
	"udp port 4791 and ip6[48] == 0x65" 2>"$RUN/tcpdump.err" &
tcpdump_pid=$!
wait_for 30 "tcpdump to listen on host 2's eth0" \
	grep -q "listening on" "$RUN/tcpdump.err" ||
	fail "tcpdump: $(cat "$RUN/tcpdump.err")"

# The SM runs on host 1 only; every port names LID 1 as its SM.
for i in 2 3; do
	out=$(mad "$i" ibstat efa_0) || fail "host $i: ibstat: $out"
	grep -q "SM lid: 1$" <<<"$out" || fail "host $i: ibstat: $out"
	out=$(mad "$i" sminfo) || fail "host $i: sminfo: $out"
	grep -q "sm lid 1 .*SMINFO_MASTER" <<<"$out" || fail "host $i: sminfo: $out"
	smguid=$(awk '{ for (k = 1; k < NF; k++) if ($k == "guid") print $(k + 1) }' <<<"$out")
	[ $((${smguid%,})) -eq $((GUID[1,efa_0])) ] ||
		fail "host $i: sminfo not host 1's (${GUID[1,efa_0]}): $out"
done

# SMPs by LID to another host's ports
for dev in efa_0 efa_1; do
	lid=${LID[3,$dev]}
	out=$(mad 2 smpquery nodeinfo "$lid") || fail "smpquery nodeinfo $lid: $out"
	[ "$(field Guid <<<"$out")" = "${GUID[3,$dev]}" ] ||
		fail "nodeinfo of host 3 $dev (LID $lid): $out"
	out=$(mad 2 smpquery nodedesc "$lid") || fail "smpquery nodedesc $lid: $out"
	grep -q "SoftEFA host 3 $dev" <<<"$out" || fail "nodedesc $lid: $out"
	out=$(mad 2 smpquery portinfo "$lid") || fail "smpquery portinfo $lid: $out"
	[ "$(field Lid <<<"$out")" = "$lid" ] || fail "portinfo $lid: $out"
	[ "$(field SMLid <<<"$out")" = 1 ] || fail "portinfo $lid SMLid: $out"
done
# a LID nobody has: the tool times out, nothing hangs
mad 2 smpquery -t 200 nodeinfo 999 >/dev/null 2>&1 && fail "nodeinfo of LID 999"

# sa_records HOST N: the SA's NodeRecords from HOST are N; the last
# answer in SA_OUT, its count in SA_N
sa_records() {
	SA_OUT=$(mad "$1" saquery) || fail "host $1: saquery: $SA_OUT"
	SA_N=$(grep -c "^NodeRecord dump:" <<<"$SA_OUT") || true
	[ "$SA_N" -eq "$2" ]
}
# saquery_n HOST N: the SA's NodeRecords from HOST, once there are N (the
# sweep runs every 2 s, a host is gone after 3 missed)
saquery_n() {
	wait_for 60 "$2 NodeRecords in the SA from host $1" sa_records "$1" "$2" ||
		fail "host $1: saquery: $SA_N NodeRecords, not $2: $SA_OUT"
	echo "$SA_OUT"
}
out=$(saquery_n 2 6)
for i in 1 2 3; do
	for dev in efa_0 efa_1; do
		grep -q "node_guid\.*${GUID[$i,$dev]}" <<<"$out" ||
			fail "saquery lacks host $i $dev: $out"
		grep -q "NodeDescription\.*SoftEFA host $i $dev" <<<"$out" ||
			fail "saquery lacks host $i $dev's description: $out"
	done
done
out=$(mad 3 saquery -p --slid "${LID[2,efa_0]}" --dlid "${LID[3,efa_1]}") ||
	fail "saquery -p: $out"
gid_of() { awk -v k="$1" '$1 ~ "^" k "\\." { sub(/^[a-z]+\.+/, "", $1); print $1 }'; }
[ "$(gid_full "$(gid_of dgid <<<"$out")")" = "${GID[3,efa_1]}" ] ||
	fail "path 2 -> 3, dgid: $out"
[ "$(gid_full "$(gid_of sgid <<<"$out")")" = "${GID[2,efa_0]}" ] ||
	fail "path 2 -> 3, sgid: $out"
out=$(mad 3 saquery -p) || fail "saquery -p: $out"
n=$(grep -c "^PathRecord dump:" <<<"$out") || true
[ "$n" -eq 36 ] || fail "$n PathRecords, not 6 x 6: $out"

# tshark on the MADs (UD SEND with immediate) host 2 saw
kill -INT "$tcpdump_pid"
wait "$tcpdump_pid" || fail "tcpdump: $(cat "$RUN/tcpdump.err")"
{ tshark -r "$cap" && tshark -r "$cap" -V; } >"$RUN/mad.txt" 2>/dev/null ||
	fail "tshark -r $cap"
for words in "MAD Header - Common Management Datagram" \
	"IMMDT - Immediate Data Extended Transport Header" \
	"SMP (LID Routed) SubnGet(NodeInfo)" \
	"SMP (LID Routed) SubnGetResp(NodeDescription)" \
	"SubnAdmGetTableResp(NodeRecord)"; do
	grep -qF "$words" "$RUN/mad.txt" || fail "tshark -V does not show '$words'"
done
! grep -q "Malformed\|Expert Info (Error" "$RUN/mad.txt" ||
	fail "tshark finds malformed packets: $(grep -B30 "Malformed\|Expert Info (Error" "$RUN/mad.txt" | head -60)"

# A remote PMA: host 3's counters, cleared, then after host 2 talks to it
lid=${LID[3,efa_0]}
mad 2 perfquery -R "$lid" 1 >/dev/null || fail "perfquery -R $lid"
PAIR_SERVER_HOST=3 PAIR_CLIENT_HOST=2 PORT=18516 hosts_pair ours ours \
	ibv_rc_pingpong -g 0 -p 18516 -n 100 -s 1024 -c ||
	fail "ibv_rc_pingpong between hosts 2 and 3"
out=$(mad 2 perfquery -x "$lid" 1) || fail "perfquery -x $lid: $out"
rx=$(field PortRcvPkts <<<"$out")
[ "${rx:-0}" -ge 100 ] || fail "host 3's PMA counted ${rx:-no} packets: $out"


# The two-process tests with the peer on host 3 (CK_TIMEOUT_MULTIPLIER: each
# step of the peer crosses the wire and a namespace)
peer_run="ip netns exec $(hns 3) $SOFTEFA --run-dir $(hdir 3) exec --"
export CK_TIMEOUT_MULTIPLIER=4
SEFA_PEER_RUN=$peer_run on_host 2 sx -- "$BUILD/bin/mad_api" ||
	fail "mad_api, peer on host 3"
SEFA_PEER_RUN=$peer_run on_host 2 sx -- "$BUILD/bin/umr_verbs" ||
	fail "umr_verbs, peer on host 3"
for i in 2 3; do
	[ "$(on_host "$i" status_field objects)" = 0 ] ||
		fail "host $i: objects left: $(hsefa "$i" status)"
done

# Host 3 stops: within three sweeps it leaves the SA's tables
on_host 3 host_down 0 || fail "host 3: softefad reported errors"
saquery_n 2 4 >/dev/null
echo "PASS: wire-extended"
