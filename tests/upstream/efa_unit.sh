#!/bin/bash
# libfabric 2.6's EFA unit tests (prov/efa/test, cmocka), which need an EFA
# device, on a SoftEFA host: the binary that build.sh efa-unit builds, run
# under softefa exec through rdma-core v64's libefa, or through our
# provider built against rdma-core v64 (ours: SEFA_BUILD_V64, skipped with
# 77 without it).
# The cases in efa_unit.skip are left out (cmocka_skip.c), each printed
# with its reason; every other case must pass or skip itself (cmocka's
# skip(): what needs a GPU or the device's hardware counters).  A case
# that fails, or ends the program, fails the test, named.  Prints the
# counts and the wall time.
# Usage: efa_unit.sh BUILD PROFILE [v64|ours]	(default v64)
# lib.sh reads UP_EFA
# shellcheck disable=SC2034
UP_EFA=${3:-v64}
. "$(dirname "$0")/lib.sh" "$1" efa-unit
PROFILE=$2
SKIP=$UPSTREAM/efa_unit.skip
# the whole run takes about a minute on 2 idle cores
LIMIT=900

cc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC \
	-o "$RUN/cmocka_skip.so" "$UPSTREAM/cmocka_skip.c" -ldl ||
	fail "cannot build cmocka_skip.so"
start_host --profile "$PROFILE"

listed=$(grep -Ev '^(#|$)' "$SKIP" || true)
nlisted=$(grep -Evc '^(#|$)' "$SKIP" || true)
if [ -n "$listed" ]; then
	echo "left out ($SKIP):"
	sed 's/^/  /' <<<"$listed"
fi

start=$SECONDS
rc=0
UP_PRELOAD=$RUN/cmocka_skip.so CMOCKA_SKIP_LIST=$SKIP \
	CMOCKA_MESSAGE_OUTPUT=stdout \
	up_run timeout "$LIMIT" "$P/efa-unit/efa_unit_test" \
	>"$RUN/unit.out" 2>&1 || rc=$?
wall=$((SECONDS - start))
[ "$rc" -ne 124 ] ||
	fail "efa_unit_test did not end within $LIMIT s; its last lines: $(tail -20 "$RUN/unit.out")"

# Each case's outcome from cmocka's lines: "[ RUN      ] name" then
# "[       OK ] name", "[  SKIPPED ] name", "[  FAILED  ] name" or, when
# its setup or teardown failed, "[  ERROR   ] name"; a case with none
# ended the program.  The summary at the end repeats failed names,
# outside any case, and is not counted.
read -r run passed failed skipped crashed < <(awk '
	/^\[ RUN      \] / { cur = $4; run++; next }
	cur != "" && /^\[       OK \] / { passed++; cur = ""; next }
	cur != "" && /^\[  (FAILED  |ERROR   )\] / { failed++; cur = ""; next }
	cur != "" && /^\[  SKIPPED \] / { skipped++; cur = ""; next }
	END { printf "%d %d %d %d %s\n", run, passed, failed, skipped,
		cur == "" ? "-" : cur }' "$RUN/unit.out")
echo "efa_unit_test on $PROFILE through $UP_PROVIDER: $run run, $passed" \
	"passed, $failed failed, $skipped skipped, $nlisted" \
	"left out; $wall s"

echo "skipped themselves: $(awk '/^\[ RUN      \] / { cur = $4; next }
	cur != "" && /^\[  SKIPPED \] / { print cur }
	/^\[ +(OK|FAILED|ERROR|SKIPPED) +\] / { cur = "" }' "$RUN/unit.out" | paste -sd' ')"
grep "^cmocka_skip: " "$RUN/unit.out" >/dev/null ||
	fail "cmocka_skip.so did not filter the cases: $(head -20 "$RUN/unit.out")"
# a name in the list that the binary no longer has is a stale entry
want="$nlisted listed"
grep "^cmocka_skip: .* $want in " "$RUN/unit.out" >/dev/null ||
	fail "efa_unit.skip names cases the binary does not have:" \
		"$(grep "^cmocka_skip: " "$RUN/unit.out"), want $want"
[ "$crashed" = - ] ||
	fail "$crashed ended efa_unit_test (exit status $rc): $(grep -A30 "RUN      \] $crashed\$" "$RUN/unit.out")"
if [ "$failed" -ne 0 ]; then
	for name in $(awk '/^\[ RUN      \] / { cur = $4; next }
		cur != "" && /^\[  (FAILED  |ERROR   )\] / { print cur }
		/^\[ +(OK|FAILED|ERROR|SKIPPED) +\] / { cur = "" }' "$RUN/unit.out"); do
		echo "--- $name" >&2
		awk -v n="$name" '$0 ~ "^\\[ RUN      \\] " n "$" { on = 1 }
			on { print } on && /^\[  (FAILED  |ERROR   )\] / { exit }' \
			"$RUN/unit.out" >&2
	done
	fail "$failed cases failed (above)"
fi
[ "$rc" -eq 0 ] ||
	fail "efa_unit_test: exit status $rc with no case failed: $(tail -20 "$RUN/unit.out")"
[ "$run" -gt 0 ] && [ "$run" -eq $((passed + skipped)) ] ||
	fail "efa_unit_test ran $run cases, $passed passed, $skipped skipped: $(tail -20 "$RUN/unit.out")"
echo "ok: $PROFILE, libfabric's EFA unit tests through $UP_PROVIDER"
