#!/bin/bash
# The README's CI recipe ("Testing your EFA software in CI") run as a CI
# job runs it: readme.sh runs the block on a machine of its own, where
# /usr/local, apt's and dpkg's state and the upstream stack are overlays
# thrown away after it.  Its variables point at the upstream stack build.sh
# built, in place of a user's builds: rdma-core 64's libraries, libfabric
# 2.6's EFA unit test and fabtests; SOFTEFA_SRC at this tree.  Only those
# lines of the block change, and each must be there.
# How it differs from a CI job: the block's machine has no network, so
# "apt-get update" finds nothing new and "apt-get install" succeeds only
# for packages installed already (test.sh and build.sh install them; one
# the block names beyond those fails the block).
# PYTEST_EXPR (a pytest -k expression), when set, replaces the block's
# choice of pytest tests too (three short pingpongs).  The unit test program
# takes no filter: all its cases run (about a minute).  It checks that the
# unit cases ran and passed, and pytest's tests too, and prints the counts
# and the time.
# Usage: ci_recipe.sh BUILD
. "$(dirname "$0")/lib.sh" "$1" all
TOP=$(cd "$UPSTREAM/../.." && pwd)
README=$TOP/README.md
HEADING='## Testing your EFA software in CI'
# the build, the whole unit suite, apt-get's look for a network
LIMIT=1200

# the block below the heading: its first line in the README, then its lines
block=$(awk -v h="$HEADING" '
	$0 == h { found = 1; next }
	found && /^## / { exit }
	found && !inside && /^```sh$/ { inside = 1; print NR + 1; next }
	inside && /^```/ { exit }
	inside { print }' "$README")
[ -n "$block" ] || fail "$README has no sh block under \"$HEADING\""
line=${block%%$'\n'*}
block=${block#*$'\n'}

declare -A want=(
	[SOFTEFA_SRC]=$TOP
	[RDMA_LIB]=$P/rdma-core/lib
	[EFA_UNIT_TEST]=$P/efa-unit/efa_unit_test
	[FABTESTS]=$P/libfabric
)
[ -z "${PYTEST_EXPR:-}" ] || want[PYTEST_EXPR]=$PYTEST_EXPR
for name in "${!want[@]}"; do
	n=$(grep -c "^$name=" <<<"$block" || true)
	[ "$n" -eq 1 ] ||
		fail "README.md:$line: the recipe sets $name on $n lines, not one"
done
script=$(while IFS= read -r l; do
	name=${l%%=*}
	if [[ $name =~ ^[A-Z_]+$ ]] && [ -n "${want[$name]+set}" ]; then
		printf '%s=%q\n' "$name" "${want[$name]}"
	else
		printf '%s\n' "$l"
	fi
done <<<"$block")
echo "the recipe (README.md:$line) with its variables set:"
grep -E "^($(IFS='|'; echo "${!want[*]}"))=" <<<"$script" | sed 's/^/  /'

mkdir "$RUN/out"
printf '```sh\n%s\n```\n' "$script" >"$RUN/recipe.md"
start=$SECONDS
rc=0
README_OVERLAY=$P README_OUT=$RUN/out BLOCK_TIMEOUT=$LIMIT \
	"$TOP/tests/readme.sh" "$BUILD" "$RUN/recipe.md" "$TOP" || rc=$?
took=$((SECONDS - start))
[ "$rc" -ne 77 ] || exit 77
[ "$rc" -eq 0 ] || fail "the recipe failed (above), after $took s"
out=$RUN/out/1.out

# efa_unit_test reports in cmocka's XML: <testsuite name=... tests="N"
# failures="N" errors="N" skipped="N" ...>
suite=$(grep -E '^ *<testsuite .*tests="' "$out" | tail -1) ||
	fail "efa_unit_test printed no <testsuite> line: $(tail -40 "$out")"
attr() {
	local v

	v=$(sed -nE "s/.* $1=\"([0-9]+)\".*/\1/p" <<<"$suite")
	echo "${v:-0}"
}
run=$(attr tests) failures=$(attr failures) errors=$(attr errors)
skipped=$(attr skipped)
echo "efa_unit_test: $run run, $((run - failures - errors - skipped))" \
	"passed, $skipped skipped themselves, $failures failed, $errors errors"
if [ "$run" -eq 0 ] || [ "$failures" -ne 0 ] || [ "$errors" -ne 0 ] ||
	[ "$skipped" -ge "$run" ]; then
	fail "the unit suite ran no case, or not all passed: $suite"
fi

summary=$(grep -E "^=+ .*[0-9]+ (passed|failed|skipped|errors?)\b" "$out" |
	tail -1) || fail "runfabtests.py printed no summary: $(tail -40 "$out")"
echo "pytest efa: $summary"
grep -E "^=+ ([0-9]+ (passed|skipped|deselected|warnings?)(, )?)+ in " \
	<<<"$summary" >/dev/null || fail "not every pytest test passed: $summary"
grep -E "[1-9][0-9]* passed" <<<"$summary" >/dev/null ||
	fail "no pytest test passed: $summary"
grep -E "^efa/test_.* PASSED" "$out" | sed "s/^/  /" || true
echo "ok: the README's CI recipe ran as written in $took s"
