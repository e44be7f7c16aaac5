#!/bin/bash
# Print, for our provider and for the stock one on the same SoftEFA device:
# the 64-byte SRD message rate and round trip between two processes, and the
# instructions of one ibv_post_send() plus ibv_poll_cq() pair (callgrind);
# then RDMA write against memcpy, fi_pingpong against shm and tcp, and, as
# root, the round trip and bandwidth between two hosts over the wire.
# Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
BUILD=${1:-$(dirname "$0")/../build}
SOFTEFA=$BUILD/bin/softefa
BENCH=$BUILD/bin/efa_bench
RUN=$(mktemp -d /tmp/softefa-bench.XXXXXX)
trap '"$SOFTEFA" --run-dir "$RUN" stop >/dev/null 2>&1 || true; rm -rf "$RUN"' EXIT

"$SOFTEFA" --run-dir "$RUN" start >/dev/null
sx() { "$SOFTEFA" --run-dir "$RUN" exec --provider "$@"; }

PAIRS=2000
printf "%-8s %14s %12s %16s\n" provider "rate(Mmsg/s)" "rtt(us)" "instr/pair"
for p in ours stock; do
	rate=$(sx "$p" -- "$BENCH" rate 200000 | awk '/^rate/ { print $2 }')
	rtt=$(sx "$p" -- "$BENCH" lat 20000 | awk '/^rtt/ { print $2 }')
	out=$RUN/callgrind.$p
	sx "$p" -- valgrind --tool=callgrind --collect-atstart=no \
		--callgrind-out-file="$out" "$BENCH" pair "$PAIRS" \
		>"$RUN/pair.$p" 2>"$RUN/valgrind.$p" ||
		{ cat "$RUN/valgrind.$p" >&2; exit 1; }
	empty=$(awk '/^pairs/ { print $4 }' "$RUN/pair.$p")
	ir=$(awk '/^summary:|^totals:/ { print $2; exit }' "$out")
	printf "%-8s %14s %12s %16s\n" "$p" "$rate" "$rtt" \
		"$(awk -v ir="$ir" -v n="$PAIRS" 'BEGIN { printf "%.1f", ir / n }')"
	[ "$empty" = 0 ] || echo "  ($p: $empty empty polls counted too)"
done

# RDMA write needs a provider newer than the stock one (rdma-core 46).
echo
wbw=$(sx ours -- "$BENCH" wbw 4000 | awk '/^wbw/ { print $2 }')
cpy=$("$BENCH" memcpy 40000 | awk '/^memcpy/ { print $2 }')
printf "%-44s %10s MB/s\n" "64 KiB RDMA write over SRD (ours)" "$wbw" \
	"64 KiB memcpy, one core, same machine" "$cpy"

# libfabric's fi_pingpong (RDM endpoints): efa on SoftEFA through each
# provider, beside libfabric's own shm and tcp providers on loopback, in
# the same run.  fi_pingpong's usec/xfer is half a round trip.
command -v fi_pingpong >/dev/null || exit 0
FIPORT=$((20000 + RANDOM % 10000))
fipp() {
	local softefa_provider=$1 prov=$2 size=$3 iters=$4 out=$RUN/fipp.out

	# shellcheck disable=SC2086
	FI_EFA_ENABLE_SHM_TRANSFER=0 sx $softefa_provider -- timeout 120 \
		fi_pingpong -p "$prov" -e rdm -S "$size" -I "$iters" \
		-B "$FIPORT" >/dev/null 2>&1 &
	sleep 0.5
	FI_EFA_ENABLE_SHM_TRANSFER=0 sx $softefa_provider -- timeout 120 \
		fi_pingpong -p "$prov" -e rdm -S "$size" -I "$iters" \
		-P "$FIPORT" 127.0.0.1 >"$out" 2>&1 || true
	wait
	FIPORT=$((FIPORT + 1))
	# columns: bytes #sent #ack total time MB/sec usec/xfer Mxfers/sec
	awk '$3 ~ /^=/ { print $6, $7; found = 1 }
	     END { if (!found) print "failed", "failed" }' "$out"
}

echo
printf "%-30s %16s %18s\n" "fi_pingpong -e rdm" "64 B usec/xfer" "1 MiB MB/s"
for row in "efa, our provider:ours:efa" "efa, stock provider:stock:efa" \
	   "shm (loopback):ours:shm" "tcp (loopback):ours:tcp"; do
	IFS=: read -r name sp prov <<<"$row"
	lat=$(fipp "$sp" "$prov" 64 2000 | awk '{ print $2 }')
	bw=$(fipp "$sp" "$prov" 1048576 100 | awk '{ print $1 }')
	printf "%-30s %16s %18s\n" "$name" "$lat" "$bw"
done

# Across two hosts: a daemon in each of two network namespaces joined by a
# veth pair, the wire between them (softefa-wire(7)), beside the same
# tools on one host and libfabric's tcp provider across the same pair.
# perftest's t_avg is half a round trip.  Needs root.
[ "$(id -u)" = 0 ] || exit 0
NS1=sefa-bench-$$-1 NS2=sefa-bench-$$-2
hosts_down() {
	local i

	for i in 1 2; do
		ip netns exec "sefa-bench-$$-$i" "$SOFTEFA" --run-dir "$RUN/h$i" \
			stop >/dev/null 2>&1 || true
		ip netns del "sefa-bench-$$-$i" 2>/dev/null || true
	done
	"$SOFTEFA" --run-dir "$RUN" stop >/dev/null 2>&1 || true
	rm -rf "$RUN"
}
trap hosts_down EXIT
ip netns add "$NS1"
ip netns add "$NS2"
ip link add eth0 netns "$NS1" type veth peer name eth0 netns "$NS2"
for i in 1 2; do
	ip -n "sefa-bench-$$-$i" addr add "10.99.0.$i/24" dev eth0
	ip -n "sefa-bench-$$-$i" link set lo up
	ip -n "sefa-bench-$$-$i" link set eth0 up
	ip netns exec "sefa-bench-$$-$i" "$SOFTEFA" --run-dir "$RUN/h$i" start \
		--wire --netdev eth0 --host-id "$i" >/dev/null
done
hx() { local i=$1; shift; ip netns exec "sefa-bench-$$-$i" "$SOFTEFA" --run-dir "$RUN/h$i" exec -- "$@"; }

# two: TOOL ARGS...: server on host 1, client on host 2; one: on one host
PTPORT=$((30000 + RANDOM % 10000))
two() {
	hx 1 timeout 120 "$@" -p "$PTPORT" >/dev/null 2>&1 &
	sleep 1
	hx 2 timeout 120 "$@" -p "$PTPORT" 10.99.0.1 2>&1 || true
	wait
	PTPORT=$((PTPORT + 1))
}
one() {
	sx ours -- timeout 120 "$@" -p "$PTPORT" >/dev/null 2>&1 &
	sleep 1
	sx ours -- timeout 120 "$@" -p "$PTPORT" 127.0.0.1 2>&1 || true
	wait
	PTPORT=$((PTPORT + 1))
}
# perftest's result row: the one after the header
row() { awk -v c="$1" 'p && NF > 3 { print $c; exit } /#bytes/ { p = 1 }'; }
lat1=$(one ib_send_lat -c SRD -x 0 -s 64 -n 2000 | row 6)
lat2=$(two ib_send_lat -c SRD -x 0 -s 64 -n 2000 | row 6)
bw1=$(one ib_read_bw -c SRD -x 0 -s 65536 -n 1000 | row 4)
bw2=$(two ib_read_bw -c SRD -x 0 -s 65536 -n 1000 | row 4)

# fi_pingpong -p tcp across the namespaces
fitcp() {
	ip netns exec "$NS1" timeout 120 fi_pingpong -p tcp -e rdm -S "$1" \
		-I "$2" -B "$PTPORT" >/dev/null 2>&1 &
	sleep 0.5
	ip netns exec "$NS2" timeout 120 fi_pingpong -p tcp -e rdm -S "$1" \
		-I "$2" -P "$PTPORT" 10.99.0.1 2>&1 |
		awk '$3 ~ /^=/ { print $6, $7; found = 1 }
		     END { if (!found) print "failed", "failed" }'
	wait
	PTPORT=$((PTPORT + 1))
}
tcplat=$(fitcp 64 2000 | awk '{ print $2 * 2 }')
tcpbw=$(fitcp 65536 1000 | awk '{ print $1 }')

echo
printf "%-44s %16s %16s\n" "SRD, our provider" "64 B rtt (us)" "64 KiB MB/s"
printf "%-44s %16s %16s\n" "one host (ib_send_lat, ib_read_bw)" \
	"$(awk -v t="$lat1" 'BEGIN { print t * 2 }')" "$bw1" \
	"two hosts over veth, the wire" \
	"$(awk -v t="$lat2" 'BEGIN { print t * 2 }')" "$bw2" \
	"libfabric tcp over the same veth (fi_pingpong)" "$tcplat" "$tcpbw"
for i in 1 2; do
	ip netns exec "sefa-bench-$$-$i" "$SOFTEFA" --run-dir "$RUN/h$i" stats |
		awk -v h="$i" '$1 == "wire" || $1 == "device" { print "  host " h ": " $0 }'
done
