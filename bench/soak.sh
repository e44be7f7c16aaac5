#!/bin/bash
# The soak: two SoftEFA hosts (network namespaces on a bridge, a daemon in
# each, --profile extended, the wire between them losing, reordering and
# duplicating what it carries) under mixed traffic for MINUTES:
#  - ud, srd, rc, umr: bench/soak_traffic pairs, server on one host and
#    client on the other, each run some seconds and then started again;
#    every payload, RDMA write and read checked; srd-local: an SRD pair
#    within host 2 (the daemon's local path);
#  - mad: smpquery and perfquery from each host to the other's port, and
#    to its own, through the SM host 1 runs;
#  - kills: a further pair of a random kind, one side of which is killed
#    with SIGKILL at a random moment mid-traffic.
# Then every client gone, it prints per kind the runs, messages sent,
# received, lost (only ud may lose), duplicates, bad data, RDMA operations
# checked, the kills, each daemon's RSS and open fds after a warm-up and at
# the end, and the devices' counters.  Non-zero on a lost or corrupt
# reliable message, a failed run, a hang, a daemon that died, an fd or
# object left behind, or RSS growth beyond RSS_LIMIT_KB (16 MiB).
# Needs root.  Usage: bench/soak.sh [MINUTES [BUILD_DIR]]
SRC=$(cd "$(dirname "$0")/.." && pwd)
MINUTES=${1:-30}
BUILD=$(realpath -m "${2:-$SRC/build}")
RSS_LIMIT_KB=${RSS_LIMIT_KB:-16384}
FAULTS=(--wire-loss 2 --wire-reorder 2 --wire-dup 1)

[[ $MINUTES =~ ^[0-9]+$ ]] && [ "$MINUTES" -gt 0 ] || {
	echo "usage: bench/soak.sh [MINUTES [BUILD_DIR]]" >&2
	exit 2
}
[ "$(id -u)" = 0 ] || { echo "soak.sh: needs root (network namespaces)" >&2; exit 2; }
if [ ! -f "$BUILD/CMakeCache.txt" ]; then
	cmake -S "$SRC" -B "$BUILD" >/dev/null || exit 1
fi
make -C "$BUILD" -j2 softefa softefad soak_traffic >/dev/null || exit 1

. "$SRC/tests/integration/lib.sh" "$BUILD"
. "$SRC/tests/integration/hosts.sh"
ST=$BUILD/bin/soak_traffic
WORKERS=()

soak_cleanup() {
	local rc=$? p

	set +e
	for p in "${WORKERS[@]}"; do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	(exit "$rc")
	hosts_cleanup
}
trap soak_cleanup EXIT
trap 'exit 130' INT TERM

# rss_fds I: VmRSS (kB) and open fds of host I's daemon
dpid() { cat "$(hdir "$1")/softefad.pid"; }
rss_fds() {
	local pid

	pid=$(dpid "$1")
	echo "$(awk '$1 == "VmRSS:" { print $2 }' "/proc/$pid/status")" \
		"$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 | wc -l)"
}

# The TCP port of the next pair: each worker (a subshell) takes ports of
# its own, PORT_BASE up, since lib.sh's pick_port looks only at this
# namespace, not the hosts'.
PORT_BASE=20000
PORT_N=0
next_port() {
	PORT_N=$(((PORT_N + 1) % 500))
	port=$((PORT_BASE + PORT_N))
}

# note FILE LINE...: one line appended (lines are short: atomic)
note() { local f=$1; shift; echo "$*" >>"$RUN/$f"; }

# run_pair KIND MODE SHOST CHOST SECS: one soak_traffic pair, its client's
# line tallied under KIND; a failure of either side is recorded with both
# sides' output
run_pair() {
	local kind=$1 mode=$2 sh=$3 ch=$4 secs=$5 port spid rc=0 src=0 addr
	local out=$RUN/out.$kind.$BASHPID

	next_port
	addr=$(haddr "$sh")
	[ "$sh" = "$ch" ] && addr=127.0.0.1
	hx "$sh" -- timeout -k 5 $((secs + 120)) "$ST" "$mode" -p "$port" \
		>"$out.s" 2>&1 &
	spid=$!
	NETNS=$(hns "$sh") wait_listen "$port" || {
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		note failures "$kind: the server did not listen: $(cat "$out.s")"
		return 1
	}
	hx "$ch" -- timeout -k 5 $((secs + 120)) "$ST" "$mode" -t "$secs" \
		-p "$port" -b "${BATCH[$mode]}" -i "${PAUSE[$mode]}" "$addr" \
		>"$out.c" 2>&1 || rc=$?
	wait "$spid" || src=$?
	note "tally.$kind" "$(grep '^soak ' "$out.c" || echo "soak $mode client none")"
	if [ "$rc" -ne 0 ] || [ "$src" -ne 0 ]; then
		note failures "$kind (client $rc, server $src;" \
			"124 is a hang): client: $(tr '\n' ' ' <"$out.c")" \
			"server: $(tr '\n' ' ' <"$out.s")"
	fi
	rm -f "$out.s" "$out.c"
}
declare -A BATCH=([ud]=128 [srd]=256 [rc]=64 [umr]=64)
declare -A PAUSE=([ud]=5 [srd]=1 [rc]=1 [umr]=1)

# traffic KIND MODE SHOST CHOST: pairs of 5 to 20 s until the end
traffic() {
	local secs left

	while [ "$SECONDS" -lt "$END" ]; do
		left=$((END - SECONDS))
		secs=$((5 + RANDOM % 16))
		[ "$secs" -le "$left" ] || secs=$((left < 1 ? 1 : left))
		run_pair "$@" "$secs"
	done
}

# mad HOST LID GUID: one query, tallied as mad: sent, and received when
# answered with the right port (smpquery's GUID, perfquery's LID)
mad_query() {
	local h=$1 lid=$2 guid=$3 out got

	if ((RANDOM % 2)); then
		out=$(hx "$h" -- timeout 30 smpquery nodeinfo "$lid" 2>&1) || true
		got=$(sed -nE 's/^Guid:\.+//p' <<<"$out")
	else
		out=$(hx "$h" -- timeout 30 perfquery "$lid" 1 2>&1) || true
		got=$(sed -nE 's/^# Port counters: Lid ([0-9]+) port.*/\1/p' <<<"$out")
		guid=$lid
	fi
	if [ -z "$got" ]; then
		# a MAD is a datagram: lost after the tool's retries
		note tally.mad "soak mad client sent 1 received 0 lost 1 dup 0 bad 0 rdma 0 errors 0"
		note mad_lost "host $h -> LID $lid: $(tr '\n' ' ' <<<"$out")"
	elif [ "$got" = "$guid" ]; then
		note tally.mad "soak mad client sent 1 received 1 lost 0 dup 0 bad 0 rdma 0 errors 0"
	else
		note tally.mad "soak mad client sent 1 received 0 lost 0 dup 0 bad 1 rdma 0 errors 0"
		note failures "mad: host $h asked LID $lid, answer for $got: $out"
	fi
}
mads() {
	local h o

	while [ "$SECONDS" -lt "$END" ]; do
		h=$((1 + RANDOM % 2))
		o=$((RANDOM % 3 ? 3 - h : h))
		mad_query "$h" "${LID[$o]}" "${GUID[$o]}"
		sleep 0.2
	done
}

# One victim pair at a time, a side of it killed after 1 to 8 s.
victim() {
	local mode=$1 sh=$2 ch=$3 port who pid spid cpid t

	next_port
	hx "$sh" -- sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/victim.s" \
		timeout 300 "$ST" "$mode" -p "$port" >/dev/null 2>&1 &
	spid=$!
	NETNS=$(hns "$sh") wait_listen "$port" || {
		kill "$spid" 2>/dev/null
		wait "$spid" || true
		return 0
	}
	hx "$ch" -- sh -c 'echo $$ >"$0"; exec "$@"' "$RUN/victim.c" \
		timeout 300 "$ST" "$mode" -t 250 -p "$port" \
		-b "${BATCH[$mode]}" -i "${PAUSE[$mode]}" "$(haddr "$sh")" \
		>/dev/null 2>&1 &
	cpid=$!
	sleep $((1 + RANDOM % 8))
	# the program itself, below timeout: the child of the pid written
	who=$([ $((RANDOM % 2)) = 0 ] && echo client || echo server)
	pid=$(pgrep -P "$(cat "$RUN/victim.${who:0:1}" 2>/dev/null)" \
		-x soak_traffic) || true
	if [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null; then
		note kills "$mode $who"
	fi
	# the other side sees its peer gone, or its QP in error: it ends
	t=$SECONDS
	wait "$cpid" "$spid" || true
	[ $((SECONDS - t)) -lt 200 ] || note failures "victim $mode: the survivor hung"
}
killer() {
	local modes=(ud srd rc umr) m h

	while [ "$SECONDS" -lt "$END" ]; do
		m=${modes[RANDOM % 4]}
		h=$((1 + RANDOM % 2))
		victim "$m" "$h" $((3 - h))
		sleep $((RANDOM % 4))
	done
}

# ---- the hosts ----

echo "soak: $MINUTES min, 2 hosts on a bridge, --profile extended --wire ${FAULTS[*]}"
hosts_up 2 --wire --profile extended "${FAULTS[@]}"
declare -A LID GUID
for i in 1 2; do
	LID[$i]=$(hlid "$i")
	GUID[$i]=0x$(hsefa "$i" status | awk '$1 == "device" { print $5; exit }')
	PID0[$i]=$(dpid "$i")
done
# the SM's sweep gives every port its LID; then MADs reach across
mad_reaches() { hx 2 -- timeout 10 smpquery nodeinfo "${LID[1]}" >/dev/null 2>&1; }
wait_for 60 "host 2's smpquery to reach host 1's LID ${LID[1]}" mad_reaches ||
	fail "no MAD from host 2 reaches host 1"

# Warm-up: each kind once, briefly, and one kill; then, every client
# gone, the daemons' figures the end is compared with.
END=$((SECONDS + 3))
for m in ud srd rc umr; do
	run_pair warmup "$m" 1 2 2
done
run_pair warmup srd 2 2 2
mad_query 2 "${LID[1]}" "${GUID[1]}"
victim srd 1 2 || true
for f in tally.ud tally.srd tally.srd-local tally.rc tally.umr tally.mad \
	kills mad_lost; do
	: >"$RUN/$f"
done
[ ! -s "$RUN/failures" ] || fail "warm-up: $(cat "$RUN/failures")"
: >"$RUN/failures"
sleep 1
for i in 1 2; do
	read -r RSS0[$i] FDS0[$i] <<<"$(rss_fds "$i")"
done

# ---- the soak ----

END=$((SECONDS + MINUTES * 60))
T0=$SECONDS
PORT_BASE=20500 traffic ud ud 1 2 & WORKERS+=($!)
PORT_BASE=21000 traffic srd srd 2 1 & WORKERS+=($!)
PORT_BASE=21500 traffic srd-local srd 2 2 & WORKERS+=($!)
PORT_BASE=22000 traffic rc rc 1 2 & WORKERS+=($!)
PORT_BASE=22500 traffic umr umr 2 1 & WORKERS+=($!)
mads & WORKERS+=($!)
PORT_BASE=23000 killer & WORKERS+=($!)
while [ "$SECONDS" -lt "$END" ]; do
	sleep 10
	for i in 1 2; do
		kill -0 "${PID0[$i]}" 2>/dev/null || break 2
	done
	[ $(((SECONDS - T0) % 60)) -ge 10 ] ||
		echo "  $(((SECONDS - T0) / 60)) min: host 1 rss/fds $(rss_fds 1)," \
			"host 2 $(rss_fds 2), failures" \
			"$(wc -l <"$RUN/failures" 2>/dev/null || echo 0)"
done
wait "${WORKERS[@]}" || true
WORKERS=()
sleep 2

# ---- the figures ----

verdict=()
printf "\n%-10s %6s %10s %10s %8s %5s %5s %8s %7s\n" kind runs sent received \
	lost dup bad rdma errors
for kind in ud srd srd-local rc umr mad; do
	awk -v k="$kind" '$1 == "soak" {
		runs++
		for (i = 4; i < NF; i += 2) v[$i] += $(i + 1)
	} END {
		printf "%-10s %6d %10d %10d %8d %5d %5d %8d %7d\n", k, runs,
			v["sent"], v["received"], v["lost"], v["dup"], v["bad"],
			v["rdma"], v["errors"]
	}' "$RUN/tally.$kind"
done | tee "$RUN/table"
while read -r kind runs sent received lost dup bad rdma errors; do
	[ "$runs" -gt 0 ] || verdict+=("$kind never ran")
	[ "${dup:-0}" = 0 ] || verdict+=("$kind: $dup duplicates")
	[ "${bad:-0}" = 0 ] || verdict+=("$kind: $bad bad")
	case $kind in
	ud|mad) ;;
	*) [ "${lost:-0}" = 0 ] || verdict+=("$kind: $lost reliable messages lost") ;;
	esac
done <"$RUN/table"
if [ -s "$RUN/mad_lost" ]; then
	echo "mad queries lost (UD, after the tools' retries), the first:"
	head -n 5 "$RUN/mad_lost" | sed 's/^/  /'
fi
kills=$(wc -l <"$RUN/kills")
echo "kills: $kills ($(grep -c client "$RUN/kills" || true) clients," \
	"$(grep -c server "$RUN/kills" || true) servers; by kind:" \
	"$(awk '{ n[$1]++ } END { for (k in n) printf "%s %d ", k, n[k] }' \
	"$RUN/kills"))"
[ "$kills" -gt 0 ] || verdict+=("no client was killed")

echo
printf "%-8s %8s %22s %12s %s\n" daemon pid "rss kB start->end" "fds" "left"
for i in 1 2; do
	pid=$(dpid "$i" 2>/dev/null)
	if [ "$pid" != "${PID0[$i]}" ] || ! kill -0 "$pid" 2>/dev/null; then
		verdict+=("host $i's daemon died")
		continue
	fi
	read -r rss fds <<<"$(rss_fds "$i")"
	left=$(hsefa "$i" status | awk '$1 ~ /^(clients|contexts|objects):$/ { printf "%s%s ", $1, $2 }')
	printf "%-8s %8s %22s %12s %s\n" "host $i" "$pid" "${RSS0[$i]} -> $rss" \
		"${FDS0[$i]} -> $fds" "$left"
	[ "$fds" -le "${FDS0[$i]}" ] || verdict+=("host $i: fds ${FDS0[$i]} -> $fds")
	[ $((rss - RSS0[i])) -le "$RSS_LIMIT_KB" ] ||
		verdict+=("host $i: RSS grew $((rss - RSS0[i])) kB")
	[ "$left" = "clients:0 contexts:0 objects:0 " ] ||
		verdict+=("host $i: left behind: $left")
done

echo
for i in 1 2; do
	hsefa "$i" stats 2>/dev/null | sed "s/^/host $i: /"
done

if [ -s "$RUN/failures" ]; then
	echo
	echo "failures ($(wc -l <"$RUN/failures")):"
	head -c 20000 "$RUN/failures"
	verdict+=("$(wc -l <"$RUN/failures") failed runs")
fi
echo
if [ ${#verdict[@]} -eq 0 ]; then
	echo "PASS: $MINUTES min, no reliable message lost, no data error, no leak"
	exit 0
fi
printf "FAIL: %s\n" "${verdict[@]}"
exit 1
