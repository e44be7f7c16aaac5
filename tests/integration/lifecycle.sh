#!/bin/bash
# A client killed while it holds a context leaves nothing behind, and the
# command line fails clearly (never hangs) without a daemon.
. "$(dirname "$0")/lib.sh" "$1"
PROBE="$BUILD/bin/sefa_probe"

# No daemon: every command says so and fails.
for cmd in status stop "exec -- ibv_devices"; do
	if out=$("$SOFTEFA" --run-dir "$RUN" $cmd 2>&1); then
		fail "softefa $cmd without a daemon succeeded"
	fi
	grep -q "no softefad is running in $RUN" <<<"$out" ||
		fail "softefa $cmd: unclear message: $out"
done

# Bad arguments are refused before anything starts.
"$SOFTEFA" --run-dir "$RUN" start --profile bogus 2>/dev/null &&
	fail "start accepted an unknown profile"
"$SOFTEFA" --run-dir "$RUN" start --devices 0 2>/dev/null &&
	fail "start accepted zero devices"
out=$("$SOFTEFA" --run-dir "$RUN" start --netdev no-such-if 2>&1) &&
	fail "start accepted a missing netdev"
grep -q "network interface no-such-if" <<<"$out" ||
	fail "start with a missing netdev: no clear message: $out"

start_host
out=$("$SOFTEFA" --run-dir "$RUN" start 2>&1) &&
	fail "a second daemon on the same run directory was started"
grep -q "already runs" <<<"$out" ||
	fail "second start: unclear message: $out"

for provider in ours stock; do
	check_provider "$provider" "$PROBE" hold efa_0 </dev/null
	coproc HOLD { sx --provider "$provider" -- "$PROBE" hold efa_0; }
	read -r -t 30 line <&"${HOLD[0]}" ||
		fail "$provider: gave up waiting 30 s for the probe to start"
	expect_eq "$provider probe" "$line" ready
	expect_eq "$provider contexts while held" "$(status_field contexts)" 1
	kill -KILL "$HOLD_PID"
	wait "$HOLD_PID" 2>/dev/null || true
	wait_for 30 "the daemon to drop the $provider probe's context" \
		status_is contexts 0 || :
	expect_eq "$provider contexts after SIGKILL" "$(status_field contexts)" 0
	expect_eq "$provider clients after SIGKILL" "$(status_field clients)" 0
done

# The daemon still serves.
sx -- ibv_devinfo >/dev/null || fail "ibv_devinfo after the kills"
stop_host
[ -e "$RUN/softefad.sock" ] && fail "socket left behind after stop"
[ -e "$RUN/sys" ] && fail "sysfs tree left behind after stop"
echo ok
