# shellcheck shell=bash
# The benchmark's helpers, sourced by bench/run.sh: its daemons and the
# programs run through them, the table of targets printed last, and the
# runs of fi_pingpong and perftest it measures.  They read run.sh's
# settings (SOFTEFA, RUN, BENCH, ports and namespaces) and record figures
# in its array M.

# stop_bench_daemons: the bench's daemon, and those of the pairs spread
# over devices
stop_bench_daemons() {
	local r

	for r in "$RUN" "$RUN"/spread.*; do
		[ -d "$r" ] && "$SOFTEFA" --run-dir "$r" stop >/dev/null 2>&1
	done
	rm -rf "$RUN"
}

# bench_exec PROVIDER [ARGS...] -- PROGRAM...: PROGRAM through the bench's
# daemon and PROVIDER
bench_exec() { "$SOFTEFA" --run-dir "$RUN" exec --provider "$@"; }

# rates_cell KEY DIR PROVIDER N [VAR=VALUE...]: "efa_bench rates N" through
# the daemon in DIR, its aggregate as M[KEY], "aggregate (slowest-fastest)"
# added to row
rates_cell() {
	local key=$1 dir=$2 p=$3 n=$4 out agg lo hi
	shift 4

	out=$("$SOFTEFA" --run-dir "$dir" exec --provider "$p" -- \
		env "$@" timeout 120 "$BENCH" rates "$n" 50000 |
		awk '/^aggregate/ { print $2, $7, $9 }')
	read -r agg lo hi <<<"$out"
	row+=("$agg ($lo-$hi)")
	M[$key]=$agg
}

# daemon_cpu_ticks: utime + stime of the daemon DPID, all its threads
daemon_cpu_ticks() {
	sed 's/.*) //' "/proc/$DPID/stat" |
		awk '{ print $12 + $13 }'
}

# The benchmark's targets against this run's figures, printed last (also
# when the sections after the idle one are skipped).  A ratio the run could
# not measure is n/a.
# measured KEY: the figure run.sh recorded as M[KEY], or n/a
measured() { echo "${M[$1]:-n/a}"; }
# ratio A B [K]: A / (B * K), or n/a
ratio() {
	awk -v a="$1" -v b="$2" -v k="${3:-1}" 'BEGIN {
		if (a ~ /^[0-9]+(\.[0-9]+)?$/ && b ~ /^[0-9]+(\.[0-9]+)?$/ && b > 0)
			printf "%.2f", a / (b * k)
		else
			print "n/a" }'
}
# print_target WHAT MEASURED VALUE OP GOAL: one row of the table
print_target() {
	local verdict

	verdict=$(awk -v v="$3" -v op="$4" -v g="$5" 'BEGIN {
		if (v !~ /^[0-9]+(\.[0-9]+)?$/) { print "n/a"; exit }
		v += 0
		ok = op == "<=" ? v <= g : op == ">=" ? v >= g : \
		     op == "<" ? v < g : v == g
		print ok ? "met" : "not met" }')
	printf "%-42s %-26s %8s %3s %-4s %s\n" "$1" "$2" "$3" "$4" "$5" "$verdict"
}
# print_targets: the table of targets, each with its verdict
print_targets() {
	local p shm tcp

	shm=$(ratio "$(measured fi_lat.shm)" 0.5)	# round trips, 2 x usec/xfer
	tcp=$(ratio "$(measured fi_lat.tcp)" 0.5)
	echo
	echo "targets"
	printf "%-42s %-26s %8s %-8s %s\n" target measured ratio goal verdict
	for p in ours stock; do
		print_target "64 B rtt, $p / shm rtt" "$(measured rtt.$p) vs $shm us" \
			"$(ratio "$(measured rtt.$p)" "$shm")" "<=" 2
		print_target "64 B rtt, $p / tcp rtt" "$(measured rtt.$p) vs $tcp us" \
			"$(ratio "$(measured rtt.$p)" "$tcp")" "<=" 1
	done
	for p in ours stock; do
		print_target "64 B rate, one pair, $p (Mmsg/s)" "$(measured rate.$p) Mmsg/s" \
			"$(measured rate.$p)" ">=" 1
	done
	# several pairs, a device each, against one pair: the engines scale
	for p in ours stock; do
		print_target "2 pairs on 2 devices / 1 pair, $p" \
			"$(measured spread.$p.2) vs $(measured rates.$p.1) Mmsg/s" \
			"$(ratio "$(measured spread.$p.2)" "$(measured rates.$p.1)")" ">=" 1.5
	done
	print_target "instructions per pair, ours / stock" \
		"$(measured instr.ours) vs $(measured instr.stock)" \
		"$(ratio "$(measured instr.ours)" "$(measured instr.stock)")" "<=" 0.8
	print_target "system calls per round, ours" "$(measured sys.ours)" \
		"$(measured sys.ours)" "==" 0
	print_target "allocator calls per pair, ours" "$(measured alloc.ours)" \
		"$(measured alloc.ours)" "==" 0
	print_target "64 KiB RDMA write / memcpy" \
		"$(measured wbw) vs $(measured memcpy) MB/s" \
		"$(ratio "$(measured wbw)" "$(measured memcpy)")" ">=" 0.9
	for p in ours stock; do
		print_target "fi_pingpong 1-64 B, efa $p / shm" \
			"$(measured fi_lat.efa.$p) vs $(measured fi_lat.shm) us" \
			"$(ratio "$(measured fi_lat.efa.$p)" "$(measured fi_lat.shm)")" "<=" 2
		print_target "fi_pingpong 1 MiB, efa $p / shm" \
			"$(measured fi_bw.efa.$p) vs $(measured fi_bw.shm) MB/s" \
			"$(ratio "$(measured fi_bw.efa.$p)" "$(measured fi_bw.shm)")" ">=" 0.5
		print_target "fi_pingpong 1 MiB, efa $p / tcp" \
			"$(measured fi_bw.efa.$p) vs $(measured fi_bw.tcp) MB/s" \
			"$(ratio "$(measured fi_bw.efa.$p)" "$(measured fi_bw.tcp)")" ">=" 1
	done
	for p in ours stock; do
		print_target "idle daemon, $p clients (% of a core)" \
			"$(measured idle.$p) %" "$(measured idle.$p)" "<" 1
	done
}

# fi_pingpong_side PROVIDER FABRIC ARGS...: one side of fi_pingpong,
# line-buffered
fi_pingpong_side() {
	local sp=$1 prov=$2

	shift 2
	FI_EFA_ENABLE_SHM_TRANSFER=0 exec "$SOFTEFA" --run-dir "$RUN" exec \
		--provider "$sp" -- timeout 120 stdbuf -oL \
		fi_pingpong -p "$prov" -e rdm -S all "$@"
}
# fi_pingpong_sizes RUNNER ARGS ITERS LAST: the result rows (bytes, MB/s,
# usec/xfer) of "-S all -I ITERS", up to the row of LAST bytes.  Both
# sides are stopped as soon as that row is out, before the client goes on
# to the larger sizes (up to 8 MiB) and the server waits for it.
fi_pingpong_sizes() {
	local run=$1 args=$2 iters=$3 last=$4 out=$RUN/fi_sizes.out srv cli

	# shellcheck disable=SC2086
	"$run" $args -I "$iters" -B "$FIPORT" >/dev/null 2>&1 &
	srv=$!
	wait_for 30 "fi_pingpong's server on TCP port $FIPORT" \
		tcp_listens "$FIPORT" "${FI_SERVER_NS:-}"
	# shellcheck disable=SC2086
	"$run" $args -I "$iters" -P "$FIPORT" "$FI_PEER" >"$out" 2>&1 &
	cli=$!
	while kill -0 "$cli" 2>/dev/null &&
	      ! awk -v last="$last" '$3 ~ /^=/ && $1 == last { f = 1 }
				      END { exit !f }' "$out"; do
		sleep 0.1
	done
	kill "$cli" "$srv" 2>/dev/null || true
	wait "$cli" "$srv" 2>/dev/null || true
	awk -v last="$last" '$3 ~ /^=/ { print $1, $6, $7 }
			     $3 ~ /^=/ && $1 == last { exit }' "$out"
	FIPORT=$((FIPORT + 1))
}
# fi_small_median ITERS: from the rows of a run up to 64 bytes, "usec/xfer
# start-up-ms": the median over the sizes of 1 to 64 bytes, as small as
# each other, so that one size's odd row does not decide (libfabric tcp's
# 64-byte row can take 70-80 us in such a run, its neighbours 14); and how
# much longer the 0-byte size took than the 1-byte one
fi_small_median() {
	awk -v n="$1" '
		$1 == "0" { u0 = $3; next }
		$1 == "1" { u1 = $3 }
		{ u[k++] = $3 + 0 }
		END {
			for (i = 1; i < k; i++)
				for (j = i; j > 0 && u[j - 1] > u[j]; j--) {
					t = u[j]; u[j] = u[j - 1]; u[j - 1] = t
				}
			lat = "failed"
			if (k % 2)
				lat = sprintf("%.2f", u[int(k / 2)])
			else if (k)
				lat = sprintf("%.2f", (u[k / 2 - 1] + u[k / 2]) / 2)
			# 0 when the 0-byte size was no slower
			start = "failed"
			if (u0 != "" && u1 != "")
				start = u0 > u1 ? (u0 - u1) * 2 * n / 1000 : 0
			if (start != "failed")
				start = sprintf("%.0f", start)
			print lat, start
		}'
}
# fi_pingpong_figures RUNNER ARGS: "small usec/xfer, 1 MiB MB/s, start-up ms"
fi_pingpong_figures() {
	local lat bw start

	read -r lat start <<<"$(fi_pingpong_sizes "$1" "$2" 1000 64 |
		fi_small_median 1000)"
	bw=$(fi_pingpong_sizes "$1" "$2" 100 1m |
		awk '$1 == "1m" { bw = $2 } END { print bw == "" ? "failed" : bw }')
	echo "$lat $bw $start"
}

# stop_bench_hosts: the two hosts' daemons and namespaces, then the bench's
# own daemon
stop_bench_hosts() {
	local i

	for i in 1 2; do
		ip netns exec "sefa-bench-$$-$i" "$SOFTEFA" --run-dir "$RUN/h$i" \
			stop >/dev/null 2>&1 || true
		ip netns del "sefa-bench-$$-$i" 2>/dev/null || true
	done
	"$SOFTEFA" --run-dir "$RUN" stop >/dev/null 2>&1 || true
	rm -rf "$RUN"
}

# host_exec I PROGRAM...: PROGRAM on host I, through its daemon
host_exec() {
	local i=$1

	shift
	ip netns exec "sefa-bench-$$-$i" "$SOFTEFA" --run-dir "$RUN/h$i" \
		exec -- "$@"
}

# perftest_two_hosts TOOL ARGS...: server on host 1, client on host 2
perftest_two_hosts() {
	host_exec 1 timeout 120 "$@" -p "$PTPORT" >/dev/null 2>&1 &
	wait_for 30 "$1's server on TCP port $PTPORT in $NS1" \
		tcp_listens "$PTPORT" "$NS1"
	host_exec 2 timeout 120 "$@" -p "$PTPORT" 10.99.0.1 2>&1 || true
	wait
	PTPORT=$((PTPORT + 1))
}
# perftest_one_host TOOL ARGS...: both on the bench's own host
perftest_one_host() {
	bench_exec ours -- timeout 120 "$@" -p "$PTPORT" >/dev/null 2>&1 &
	wait_for 30 "$1's server on TCP port $PTPORT" tcp_listens "$PTPORT"
	bench_exec ours -- timeout 120 "$@" -p "$PTPORT" 127.0.0.1 2>&1 || true
	wait
	PTPORT=$((PTPORT + 1))
}
# perftest_row COLUMN: that column of perftest's result row, the one after
# the header
perftest_row() {
	awk -v c="$1" 'p && NF > 3 { print $c; exit } /#bytes/ { p = 1 }'
}

# fi_pingpong -p tcp across the namespaces, warmed up as above: the
# server in the first, the client (-P) in the second
fi_pingpong_netns() {
	local ns=$FI_SERVER_NS

	case " $* " in *" -P "*) ns=$NS2 ;; esac
	exec ip netns exec "$ns" timeout 120 stdbuf -oL \
		fi_pingpong -p tcp -e rdm -S all "$@"
}
