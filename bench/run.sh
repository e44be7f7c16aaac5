#!/bin/bash
# Print, for our provider and for the stock one on the same SoftEFA device:
# the 64-byte SRD message rate and round trip between two processes, and the
# instructions of one ibv_post_send() plus ibv_poll_cq() pair (callgrind).
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
