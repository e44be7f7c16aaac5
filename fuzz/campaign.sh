#!/bin/bash
# fuzz/campaign.sh [SECONDS] [HARNESS...]: a fuzzing campaign.
#
# Builds the harnesses with clang, libFuzzer, ASan and UBSan in build-fuzz/
# (its own CMake configuration, -DENABLE_FUZZ=ON), then runs each harness
# (all of them by default) for SECONDS (default 60) on a copy of its
# committed corpus, leak detection on, and prints per harness the
# executions, the coverage (edges and features) and the crashes.  New
# inputs land in build-fuzz/corpus/<harness>/ (merge the ones worth
# keeping into fuzz/corpus/ with -merge=1), crashes in
# build-fuzz/crashes/<harness>/.  Non-zero if any harness crashed.
#
# Needs Debian's clang and libclang-rt-14-dev.
set -euo pipefail

TOP=$(cd "$(dirname "$0")/.." && pwd)
SECONDS_EACH=${1:-60}
shift || true
BUILD=${FUZZ_BUILD:-$TOP/build-fuzz}
HARNESSES=(write ioctl umad mad wire sq shim)
[ $# -eq 0 ] || HARNESSES=("$@")

CC=clang cmake -S "$TOP" -B "$BUILD" -DENABLE_FUZZ=ON \
	-DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)" --target fuzz_harnesses >/dev/null

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=0
printf '%-8s %12s %10s %10s %8s\n' harness execs edges features crashes
for h in "${HARNESSES[@]}"; do
	corpus=$BUILD/corpus/$h
	crashes=$BUILD/crashes/$h
	log=$BUILD/fuzz-$h.log
	mkdir -p "$corpus" "$crashes"
	cp -n "$TOP/fuzz/corpus/$h"/* "$corpus"/ 2>/dev/null || true
	# crashes of this run only: older ones stay, uncounted
	touch "$BUILD/.start-$h"
	set +e
	"$BUILD/bin/fuzz_$h" -max_total_time="$SECONDS_EACH" \
		-print_final_stats=1 -artifact_prefix="$crashes/" \
		-max_len=8192 -timeout=10 -rss_limit_mb=2048 \
		"$corpus" >"$log" 2>&1
	rc=$?
	set -e
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	feats=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	ncrash=$(find "$crashes" -type f -newer "$BUILD/.start-$h" | wc -l)
	printf '%-8s %12s %10s %10s %8s\n' "$h" "${execs:-?}" "${edges:-?}" \
		"${feats:-?}" "$ncrash"
	if [ "$rc" -ne 0 ] || [ "$ncrash" -ne 0 ]; then
		echo "  $h: exit $rc, see $log" >&2
		failed=1
	fi
done
exit $failed
