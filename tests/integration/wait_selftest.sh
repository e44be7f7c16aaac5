#!/bin/bash
# wait_for (scripts/common.sh), the wait of every test: done at once when
# the condition holds, as soon as it comes to hold, and otherwise given up
# after its time, measured by the clock, saying what it waited for.
# Usage: wait_selftest.sh
set -euo pipefail
. "$(dirname "$0")/../../scripts/common.sh"
dir=$(mktemp -d /tmp/softefa-wait.XXXXXX)
trap 'rm -rf "$dir"' EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# timed CMD...: CMD's status in $rc, how long it took in $t (ms)
timed() {
	local t0=${EPOCHREALTIME//[!0-9]/}

	rc=0
	"$@" || rc=$?
	t=$(((${EPOCHREALTIME//[!0-9]/} - t0) / 1000))
}

# a condition that holds: no pause, no word
timed wait_for 10 "nothing" true 2>"$dir/err"
[ "$rc" -eq 0 ] || fail "wait_for true: $rc"
[ "$t" -lt 100 ] || fail "wait_for true took $t ms"
[ ! -s "$dir/err" ] || fail "wait_for true said: $(cat "$dir/err")"

# one that comes to hold after 0.5 s: seen within a pause of that
(sleep 0.5 && touch "$dir/flag") &
timed wait_for 10 "the flag" test -e "$dir/flag" 2>"$dir/err"
wait
[ "$rc" -eq 0 ] || fail "wait_for the flag: $rc: $(cat "$dir/err")"
[ "$t" -ge 450 ] && [ "$t" -lt 1500 ] || fail "wait_for the flag took $t ms"

# one that never holds: given up after 2 s of the clock, however slow the
# tries (each 0.3 s here), with what and how long
slow_false() { sleep 0.3; return 1; }
timed wait_for 2 "the moon" slow_false 2>"$dir/err"
[ "$rc" -eq 1 ] || fail "wait_for that never holds: status $rc"
[ "$t" -ge 2000 ] && [ "$t" -lt 3500 ] || fail "gave up after $t ms, not 2 s"
grep -Eq '^gave up waiting 2 s for the moon \([0-9]+ tries in 2\.[0-9] s\)$' \
	"$dir/err" || fail "giving up said: $(cat "$dir/err")"

# under set -e, a wait given up ends the script unless the caller says
# what then
out=$(bash -c '. "$1"; set -euo pipefail; wait_for 1 "x" false; echo after' \
	_ "$(dirname "$0")/../../scripts/common.sh" 2>&1) &&
	fail "a failing wait_for did not end a set -e script: $out"
grep -q "gave up waiting 1 s for x" <<<"$out" || fail "set -e: $out"
! grep -q after <<<"$out" || fail "set -e went on: $out"

# a limit that is no number of seconds
rc=0
wait_for 1.5 "x" true 2>"$dir/err" || rc=$?
[ "$rc" -eq 2 ] || fail "wait_for 1.5: status $rc"
echo "ok: wait_for"
