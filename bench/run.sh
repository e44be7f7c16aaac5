#!/bin/bash
# Print, for our provider and for the stock one on the same SoftEFA device:
# the 64-byte SRD message rate and round trip between two processes, and the
# instructions of one ibv_post_send() plus ibv_poll_cq() pair (callgrind);
# the system calls (strace) and allocations (callgrind) of the data path;
# then RDMA write against memcpy, what the machine's timer makes of the
# engine's shortest sleep, the message rate of several pairs at once,
# the daemon's CPU time while its clients sit idle and the first round trip
# after, fi_pingpong against shm and tcp, and, as root, the round trip and
# bandwidth between two hosts over the wire.  Last, the benchmark's
# targets against what this run measured.
# Usage: bench/run.sh [BUILD_DIR]
set -euo pipefail
# wait_for, tcp_listens
. "$(dirname "$0")/../scripts/common.sh"
# the benchmark's helpers
. "$(dirname "$0")/lib.sh"
BUILD=${1:-$(dirname "$0")/../build}
SOFTEFA=$BUILD/bin/softefa
BENCH=$BUILD/bin/efa_bench
RUN=$(mktemp -d /tmp/softefa-bench.XXXXXX)
trap stop_bench_daemons EXIT

# efa1: Debian 12's perftest takes no later part id for EFA, and its
# ib_read_bw below fails on one (softefad(8), GENERATIONS)
"$SOFTEFA" --run-dir "$RUN" start --profile efa1 >/dev/null

PAIRS=2000
# what the targets table at the end compares, by name
declare -A M=()
printf "%-8s %14s %12s %16s\n" provider "rate(Mmsg/s)" "rtt(us)" "instr/pair"
for p in ours stock; do
	rate=$(bench_exec "$p" -- "$BENCH" rate 200000 | awk '/^rate/ { print $2 }')
	rtt=$(bench_exec "$p" -- "$BENCH" lat 20000 | awk '/^rtt/ { print $2 }')
	out=$RUN/callgrind.$p
	bench_exec "$p" -- valgrind --tool=callgrind --collect-atstart=no \
		--callgrind-out-file="$out" "$BENCH" pair "$PAIRS" \
		>"$RUN/pair.$p" 2>"$RUN/valgrind.$p" ||
		{ cat "$RUN/valgrind.$p" >&2; exit 1; }
	empty=$(awk '/^pairs/ { print $4 }' "$RUN/pair.$p")
	ir=$(awk '/^summary:|^totals:/ { print $2; exit }' "$out")
	instr=$(awk -v ir="$ir" -v n="$PAIRS" 'BEGIN { printf "%.1f", ir / n }')
	printf "%-8s %14s %12s %16s\n" "$p" "$rate" "$rtt" "$instr"
	[ "$empty" = 0 ] || echo "  ($p: $empty empty polls counted too)"
	M[rate.$p]=$rate M[rtt.$p]=$rtt M[instr.$p]=$instr
done

# System calls of the data path: strace -c over "efa_bench spin" for two
# counts of rounds, whose difference leaves out set-up and teardown.  A
# round is an ibv_post_recv(), an ibv_post_send() and ibv_poll_cq() until
# both completions, with no call of the benchmark's own in between.
SPIN1=1000 SPIN2=21000
echo
echo "system calls per round (strace -f -c, spin $SPIN2 minus spin $SPIN1;" \
	"a round: post_recv, post_send, polls to both completions)"
printf "%-8s %12s %15s  %s\n" provider "total/round" "all, spin $SPIN1" \
	"per round, by name"
for p in ours stock; do
	if ! command -v strace >/dev/null; then
		printf "%-8s %12s\n" "$p" "no strace"
		continue
	fi
	for n in "$SPIN1" "$SPIN2"; do
		bench_exec "$p" -- strace -f -c -o "$RUN/strace.$p.$n" \
			"$BENCH" spin "$n" >/dev/null
	done
	# strace -c rows: % time, seconds, usecs/call, calls, [errors,] name
	sys=$(awk -v f2="$RUN/strace.$p.$SPIN2" -v d=$((SPIN2 - SPIN1)) '
		FNR == 1 { second = FILENAME == f2 }
		$1 ~ /^[0-9.]+$/ && NF >= 5 && $NF != "total" {
			c[$NF] += second ? $4 : -$4
			if (!second)
				all += $4
		}
		END {
			for (k in c)
				if (c[k]) {
					by = by sprintf(" %s=%.3f", k, c[k] / d)
					t += c[k]
				}
			printf "%.3f %d%s\n", t / d, all, by ? by : " none"
		}' "$RUN/strace.$p.$SPIN1" "$RUN/strace.$p.$SPIN2")
	read -r per base by <<<"$sys"
	printf "%-8s %12s %15s  %s\n" "$p" "$per" "$base" "$by"
	M[sys.$p]=$per
done

# Allocations of the data path: the calls to the allocator inside the
# region callgrind collected above (ibv_post_send() and ibv_poll_cq() of
# "efa_bench pair"), the allocator's calls into itself left out.
echo
echo "allocator calls per pair (callgrind, the same $PAIRS post_send + poll_cq pairs)"
printf "%-8s %10s %10s %10s %10s %12s\n" provider malloc calloc realloc free "total/pair"
for p in ours stock; do
	read -r ma ca re fr <<<"$(awk '
		function base(n) {
			sub(/\047[0-9]+$/, "", n); sub(/@.*/, "", n)
			sub(/^__libc_/, "", n)
			if (n == "cfree") n = "free"
			if (n == "reallocarray") n = "realloc"
			if (n ~ /^(posix_memalign|aligned_alloc|memalign|valloc|pvalloc)$/)
				n = "malloc"
			return n
		}
		function alloc(n) { return n ~ /^(malloc|calloc|realloc|free)$/ }
		/^c?fn=\(/ {
			id = $0; sub(/^c?fn=\(/, "", id); sub(/\).*/, "", id)
			if (match($0, /\) /))
				name[id] = base(substr($0, RSTART + 2))
			if ($0 ~ /^cfn/)
				callee = name[id]
			else
				caller = name[id]
			next
		}
		/^calls=/ && alloc(callee) && !alloc(caller) {
			split($0, a, /[= ]/); c[callee] += a[2]
		}
		END { print c["malloc"] + 0, c["calloc"] + 0, c["realloc"] + 0,
			    c["free"] + 0 }' "$RUN/callgrind.$p")"
	M[alloc.$p]=$(awk -v t=$((ma + ca + re + fr)) -v n="$PAIRS" \
		'BEGIN { printf "%.3f", t / n }')
	printf "%-8s %10s %10s %10s %10s %12s\n" "$p" "$ma" "$ca" "$re" "$fr" \
		"${M[alloc.$p]}"
done

# RDMA write needs a provider newer than the stock one (rdma-core 46).
echo
wbw=$(bench_exec ours -- "$BENCH" wbw 4000 | awk '/^wbw/ { print $2 }')
cpy=$("$BENCH" memcpy 40000 | awk '/^memcpy/ { print $2 }')
printf "%-44s %10s MB/s\n" "64 KiB RDMA write over SRD (ours)" "$wbw" \
	"64 KiB memcpy, one core, same machine" "$cpy"
M[wbw]=$wbw M[memcpy]=$cpy

# What this machine makes of the engine's shortest timed sleep (20 us):
# the stock provider never wakes the device, so its doorbells wait for
# such looks, and a slow timer shows in its round trip.
nap=$("$BENCH" nap 2000 | awk '/^nap/ { print $2 }')
echo
printf "%-44s %10s us\n" "the engine's 20 us timed sleep takes" "$nap"

# Several pairs of processes at once under the one daemon, each pair as
# "efa_bench rate", all started together: all their messages over the span
# from the first pair's first receive to the last pair's last.
NPROC=$(nproc)
MANY=$((2 * NPROC < 4 ? 4 : 2 * NPROC))
echo
echo "64 B message rate, pairs of processes at once (Mmsg/s, all pairs;" \
	"slowest and fastest pair; $NPROC cores)"
printf "%-8s %24s %24s\n" pairs ours stock
for n in 1 2 "$MANY"; do
	row=()
	for p in ours stock; do
		rates_cell "rates.$p.$n" "$RUN" "$p" "$n"
	done
	printf "%-8s %24s %24s\n" "$n" "${row[@]}"
done

# The same pairs, each on a device of its own (a daemon started with
# --devices N): a device has an engine thread and a lock of its own, so
# the pairs' QPs do not wait for each other's.
echo
echo "the same, pair i on device i (a daemon of N devices, an engine each)"
printf "%-8s %24s %24s\n" pairs ours stock
for n in 2 "$MANY"; do
	row=()
	"$SOFTEFA" --run-dir "$RUN/spread.$n" start --devices "$n" >/dev/null
	for p in ours stock; do
		rates_cell "spread.$p.$n" "$RUN/spread.$n" "$p" "$n" \
			EFA_BENCH_SPREAD=1
	done
	"$SOFTEFA" --run-dir "$RUN/spread.$n" stop >/dev/null
	printf "%-8s %24s %24s\n" "$n" "${row[@]}"
done

# Idle: two processes with their QPs set up and their first round trips
# made (the very first, "fresh", pays for first touches), asleep for IDLE
# seconds; the daemon's CPU time (utime + stime of all its threads,
# /proc/PID/stat) over that time, then the first 64-byte round trip after
# it and the next ones.
IDLE=10
DPID=$(cat "$RUN/softefad.pid")
HZ=$(getconf CLK_TCK)
echo
echo "idle: two processes with their QPs, ${IDLE} s asleep (softefad pid $DPID," \
	"CPU time in 1/$HZ s)"
printf "%-8s %18s %16s %18s %14s\n" provider "daemon % of a core" \
	"fresh rtt (us)" "first rtt (us)" "then rtt (us)"
for p in ours stock; do
	c0=0 c1=0 t0=0 t1=0 fresh=n/a first=n/a after=n/a
	while read -r what val _; do
		case $what in
		idle_start) c0=$(daemon_cpu_ticks) t0=$(date +%s.%N) ;;
		idle_end) c1=$(daemon_cpu_ticks) t1=$(date +%s.%N) ;;
		fresh_rtt) fresh=$val ;;
		first_rtt) first=$val ;;
		rtt) after=$val ;;
		esac
	done < <(bench_exec "$p" -- timeout 120 "$BENCH" idle "$IDLE")
	wait $! || { echo "efa_bench idle failed ($p)" >&2; exit 1; }
	M[idle.$p]=$(awk -v c="$((c1 - c0))" -v hz="$HZ" -v t0="$t0" -v t1="$t1" \
		'BEGIN { printf "%.2f", c / hz / (t1 - t0) * 100 }')
	printf "%-8s %18s %16s %18s %14s\n" "$p" "${M[idle.$p]}" "$fresh" \
		"$first" "$after"
done


# libfabric's fi_pingpong (RDM endpoints): efa on SoftEFA through each
# provider, beside libfabric's own shm and tcp providers on loopback, in
# the same run.  fi_pingpong's usec/xfer is half a round trip.  Its clock
# starts before the first message, so a run of one size also times the
# provider's start: efa grows its packet pools on its first progress call
# (tens of MB of page faults) while the peer's first packet waits out
# receiver-not-ready.  So each run is "-S all" (every size from 0 bytes
# up, in one process), cut short after the size wanted: the sizes before
# it warm the path up, and the start shows apart as how much longer the
# 0-byte size took than the 1-byte one.  The small-message figure is the
# median over the sizes of 1 to 64 bytes (fi_small_median).
command -v fi_pingpong >/dev/null || { print_targets; exit 0; }
FIPORT=$((20000 + RANDOM % 10000))

echo
printf "%-30s %16s %14s %14s\n" "fi_pingpong -e rdm" "1-64 B usec/xfer" \
	"1 MiB MB/s" "start-up ms"
FI_PEER=127.0.0.1
for row in "efa, our provider:ours:efa:efa.ours" \
	   "efa, stock provider:stock:efa:efa.stock" \
	   "shm (loopback):ours:shm:shm" "tcp (loopback):ours:tcp:tcp"; do
	IFS=: read -r name sp prov key <<<"$row"
	read -r lat bw start <<<"$(fi_pingpong_figures fi_pingpong_side "$sp $prov")"
	printf "%-30s %16s %14s %14s\n" "$name" "$lat" "$bw" "$start"
	M[fi_lat.$key]=$lat M[fi_bw.$key]=$bw
done

# Across two hosts: a daemon in each of two network namespaces joined by a
# veth pair, the wire between them (softefa-wire(7)), beside the same
# tools on one host and libfabric's tcp provider across the same pair.
# perftest's t_avg is half a round trip.  Needs root.
[ "$(id -u)" = 0 ] || { print_targets; exit 0; }
NS1=sefa-bench-$$-1 NS2=sefa-bench-$$-2
trap stop_bench_hosts EXIT
ip netns add "$NS1"
ip netns add "$NS2"
ip link add eth0 netns "$NS1" type veth peer name eth0 netns "$NS2"
for i in 1 2; do
	ip -n "sefa-bench-$$-$i" addr add "10.99.0.$i/24" dev eth0
	ip -n "sefa-bench-$$-$i" link set lo up
	ip -n "sefa-bench-$$-$i" link set eth0 up
	ip netns exec "sefa-bench-$$-$i" "$SOFTEFA" --run-dir "$RUN/h$i" start \
		--wire --netdev eth0 --host-id "$i" --profile efa1 >/dev/null
done

PTPORT=$((30000 + RANDOM % 10000))
lat1=$(perftest_one_host ib_send_lat -c SRD -x 0 -s 64 -n 2000 |
	perftest_row 6)
lat2=$(perftest_two_hosts ib_send_lat -c SRD -x 0 -s 64 -n 2000 |
	perftest_row 6)
bw1=$(perftest_one_host ib_read_bw -c SRD -x 0 -s 65536 -n 1000 |
	perftest_row 4)
bw2=$(perftest_two_hosts ib_read_bw -c SRD -x 0 -s 65536 -n 1000 |
	perftest_row 4)

FI_PEER=10.99.0.1 FI_SERVER_NS=$NS1
tcplat=$(fi_pingpong_sizes fi_pingpong_netns "" 1000 64 |
	fi_small_median 1000 | awk '{ print $1 == "failed" ? $1 : $1 * 2 }')
tcpbw=$(fi_pingpong_sizes fi_pingpong_netns "" 100 64k |
	awk '$1 == "64k" { print $2 }')

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
print_targets
