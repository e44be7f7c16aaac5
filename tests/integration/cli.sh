#!/bin/bash
# softefa and softefad as Unix tools: --help and --version print to stdout
# and start nothing, a bad option or a stray argument is refused with exit
# status 2 before anything is done, exec exits 126 or 127 as a shell does.
# And a daemon that died never blocks its run directory: status says so,
# stop clears what it left but its log, start clears it and starts; a
# start that fails halfway (a full disk) leaves nothing behind.
. "$(dirname "$0")/lib.sh" "$1"
SOFTEFAD=$BUILD/bin/softefad
VERSION=$(sed -n 's/^project([^ ]* VERSION \([0-9.]*\).*/\1/p' \
	"$(dirname "$0")/../../CMakeLists.txt")
[ -n "$VERSION" ] || fail "no version in CMakeLists.txt"
OUT=$(mktemp -d /tmp/softefa-cli.XXXXXX)
FULL=$OUT/full

cli_cleanup() {
	local rc=$?

	# a failed start there may have left a daemon: stop it first
	"$SOFTEFA" --run-dir "$FULL/run" stop >/dev/null 2>&1 || true
	! mountpoint -q "$FULL" || umount "$FULL" || rc=1
	rm -rf "$OUT"
	cleanup "$rc"
}
trap cli_cleanup EXIT

# run CMD...: its exit status in $rc, its stdout in $out, its stderr in $err
run() {
	rc=0
	"$@" >"$OUT/stdout" 2>"$OUT/stderr" </dev/null || rc=$?
	out=$(cat "$OUT/stdout")
	err=$(cat "$OUT/stderr")
}

# expect RC [STDOUT-PATTERN|-] [STDERR-PATTERN|-] WHAT: the last run; a
# pattern of "" means that stream must be empty, "-" anything
expect() {
	[ "$rc" -eq "$1" ] ||
		fail "$4: exit status $rc, not $1; stdout: $out; stderr: $err"
	if [ "$2" = "" ]; then
		[ -z "$out" ] || fail "$4: printed to stdout: $out"
	elif [ "$2" != - ]; then
		grep -Eq -- "$2" <<<"$out" ||
			fail "$4: stdout lacks '$2': $out"
	fi
	if [ "$3" = "" ]; then
		[ -z "$err" ] || fail "$4: printed to stderr: $err"
	elif [ "$3" != - ]; then
		grep -Eq -- "$3" <<<"$err" ||
			fail "$4: stderr lacks '$3': $err"
	fi
}

# Nothing was started in $RUN, and nothing made there.
nothing_started() {
	[ -z "$(ls -A "$RUN")" ] || fail "$1: made $(ls -A "$RUN")"
	! pgrep -f -- "--run-dir $RUN" >/dev/null ||
		fail "$1: a softefad runs: $(pgrep -af -- "--run-dir $RUN")"
}

# wait_dead PID: until PID has exited (gone, or a zombie), at most 10 s
wait_dead() {
	local deadline=$((SECONDS + 10)) state

	while :; do
		state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || state=
		[ -z "$state" ] || [ "$state" = Z ] && return 0
		[ "$SECONDS" -lt "$deadline" ] ||
			fail "pid $1 still runs 10 s after SIGKILL"
		sleep 0.05
	done
}

# kill_daemon: SIGKILL to the host's daemon; its pid in $dead
kill_daemon() {
	dead=$(cat "$RUN/softefad.pid")
	kill -KILL "$dead"
	wait_dead "$dead"
}

echo "== --version and --help"
run "$SOFTEFA" --version
expect 0 "^softefa $VERSION\$" "" "softefa --version"
run "$SOFTEFAD" --version
expect 0 "^softefad $VERSION\$" "" "softefad --version"
for h in --help -h; do
	run "$SOFTEFA" "$h"
	expect 0 "^usage: softefa " "" "softefa $h"
	for cmd in start stop status stats exec; do
		grep -q "^  $cmd" <<<"$out" || fail "softefa $h lacks $cmd: $out"
	done
	run "$SOFTEFAD" --run-dir "$RUN" "$h"
	expect 0 "^usage: softefad " "" "softefad $h"
done
for cmd in start stop status stats exec; do
	for h in --help -h; do
		run sefa $cmd "$h"
		expect 0 "^usage: softefa \[--run-dir DIR\] $cmd" "" "$cmd $h"
	done
	nothing_started "$cmd --help"
done
run sefa start --profile extended --help
expect 0 "^usage: softefa \[--run-dir DIR\] start" "" "start ... --help"
nothing_started "start ... --help"

echo "== bad options and stray arguments: 2, before anything is done"
for cmd in start stop status stats exec; do
	run sefa $cmd --bogus
	expect 2 "" "unrecognized option '--bogus'" "$cmd --bogus"
	grep -q "^usage: " <<<"$err" || fail "$cmd --bogus: no usage: $err"
	nothing_started "$cmd --bogus"
done
for cmd in start stop status stats; do
	run sefa $cmd stray
	expect 2 "" "unexpected argument 'stray'" "$cmd stray"
	grep -q "^usage: " <<<"$err" || fail "$cmd stray: no usage: $err"
	nothing_started "$cmd stray"
done
run sefa exec
expect 2 "" "no program to run" "exec without a program"
run sefa exec --provider bogus -- true
expect 2 "" "unknown provider 'bogus'" "exec --provider bogus"
run sefa start --devices 0
expect 2 "" "--devices takes" "start --devices 0"
run sefa start --sm
expect 2 "" "--sm needs --wire" "start --sm"
nothing_started "refused starts"
run "$SOFTEFA"
expect 2 "" "^usage: softefa" "softefa alone"
run "$SOFTEFA" bogus
expect 2 "" "unknown command 'bogus'" "softefa bogus"
run "$SOFTEFA" --bogus
expect 2 "" "unknown option '--bogus'" "softefa --bogus"
run "$SOFTEFAD" --run-dir "$RUN" --bogus
expect 2 "" "unrecognized option '--bogus'" "softefad --bogus"
run "$SOFTEFAD" --run-dir "$RUN" stray
expect 2 "" "unexpected argument 'stray'" "softefad stray"
nothing_started "refused softefad"

echo "== no host: the hint names where it looked and how to reach another"
run sefa status
expect 1 "" "no softefad is running in $RUN \(--run-dir\)" "status, no host"
grep -qF "'softefa --run-dir $RUN start' starts one there" <<<"$err" ||
	fail "status, no host: no way to start one: $err"
run env SOFTEFA_RUN_DIR="$RUN" "$SOFTEFA" stats
expect 1 "" "no softefad is running in $RUN \(SOFTEFA_RUN_DIR\)" \
	"stats, no host, SOFTEFA_RUN_DIR"

echo "== a refused stop leaves the daemon running"
start_host
run sefa stop --bogus
expect 2 "" "unrecognized option" "stop --bogus"
sefa status >/dev/null || fail "stop --bogus stopped the daemon"
run sefa status extra
expect 2 "" "unexpected argument" "status extra"
run sefa start --bogus
expect 2 "" "unrecognized option '--bogus'" "start --bogus beside a daemon"
run sefa start
expect 1 "" "a softefad already runs in $RUN" "a second start"
sefa status >/dev/null || fail "a refused start stopped the daemon"

echo "== exec: 126 when it cannot run, 127 when not found"
echo "echo hello" >"$OUT/not-executable"
run sefa exec -- "$OUT/not-executable"
expect 126 "" "Permission denied" "exec of a file not executable"
run sefa exec -- "$OUT"
expect 126 "" "Permission denied" "exec of a directory"
run sefa exec -- "$OUT/no-such-program"
expect 127 "" "No such file or directory" "exec of a missing file"
run sefa exec -- no-such-program-in-path
expect 127 "" "No such file or directory" "exec of a missing command"
run sefa exec -- sh -c 'exit 3'
expect 3 "" "" "exec of a program that exits 3"

echo "== a daemon killed: status says so, stop clears, the log stays"
kill_daemon
for f in softefad.pid softefad.sock sys dev softefad.log; do
	[ -e "$RUN/$f" ] || fail "$f not left by a killed daemon: the test proves nothing"
done
run sefa status
expect 1 "" "softefad \(pid $dead\) is not running: it died; its log: $RUN/softefad.log" \
	"status of a killed daemon"
run sefa exec -- true
expect 1 "" "softefad \(pid $dead\) is not running: it died" \
	"exec on a killed daemon"
[ -e "$RUN/softefad.pid" ] || fail "status removed the pid file"
run sefa stop
expect 0 "softefad \(pid $dead\) had died; removed what it left" "" \
	"stop of a killed daemon"
for f in softefad.pid softefad.sock sys dev; do
	[ ! -e "$RUN/$f" ] || fail "stop of a killed daemon left $f"
done
[ -f "$RUN/softefad.log" ] || fail "stop of a killed daemon took its log"
run sefa stop
expect 1 "" "no softefad is running in $RUN" "a second stop"

echo "== start over what a killed daemon left"
start_host
kill_daemon
run sefa start
expect 0 "serves $RUN" "softefad \(pid $dead\) died; clearing what it left" \
	"start over a killed daemon"
sx -- ibv_devinfo -l | grep -q efa_0 || fail "the new daemon shows no device"
# a pid file naming a process that is not softefad, a socket nobody
# listens on: stale too
kill_daemon
sleep 60 &
sleeper=$!
echo "$sleeper" >"$RUN/softefad.pid"
run sefa status
kill "$sleeper"
expect 1 "" "softefad \(pid $sleeper\) is not running: it died" \
	"status, pid file of another program"
start_host
sefa status >/dev/null || fail "no daemon after a start over a reused pid"

echo "== a live daemon that does not answer: its run directory is not touched"
mv "$RUN/softefad.sock" "$OUT/softefad.sock"
pid=$(cat "$RUN/softefad.pid")
for cmd in status stop start; do
	run sefa $cmd
	expect 1 "" "softefad.*\(pid $pid\).* (runs in|still owns) $RUN" \
		"$cmd of a daemon without a socket"
	[ -e "$RUN/softefad.pid" ] && [ -e "$RUN/sys" ] && [ -e "$RUN/dev" ] ||
		fail "$cmd removed a live daemon's files: $(ls -A "$RUN")"
done
mv "$OUT/softefad.sock" "$RUN/softefad.sock"
stop_host

echo "== a start waits for a daemon that is stopping there"
start_host
pid=$(cat "$RUN/softefad.pid")
# stopping: its socket gone first, its pid file last, after a while
mv "$RUN/softefad.sock" "$OUT/softefad.sock"
(sleep 2; kill -TERM "$pid") &
stopper=$!
run sefa start
wait "$stopper"
expect 0 "serves $RUN" \
	"softefad \(pid $pid\) in $RUN does not answer; waiting up to 20 s for it to stop" \
	"start beside a stopping daemon"
[ "$(cat "$RUN/softefad.pid")" != "$pid" ] || fail "the old daemon's pid file stayed"
sefa status >/dev/null || fail "no daemon after a start that waited"
rm -f "$OUT/softefad.sock"
stop_host

echo "== a start on a full disk leaves nothing"
mkdir "$FULL"
mount -t tmpfs -o size=1M softefa-cli-full "$FULL" || fail "cannot mount a tmpfs"
# room for the pid file and a few files of the sysfs tree, not all of it
avail=$(df -k --output=avail "$FULL" | tail -1)
dd if=/dev/zero of="$FULL/fill" bs=1k count=$((avail - 40)) 2>/dev/null
run "$SOFTEFA" --run-dir "$FULL/run" start
expect 1 "" "cannot build sysfs tree in $FULL/run: No space left on device" \
	"start with little room"
[ ! -e "$FULL/run" ] || fail "a failed start left $(find "$FULL/run")"
# no room at all, in a run directory that was there: it stays, empty
dd if=/dev/zero of="$FULL/fill" bs=1k oflag=append conv=notrunc 2>/dev/null || true
mkdir "$FULL/run"
run "$SOFTEFA" --run-dir "$FULL/run" start
expect 1 "" "pid file in $FULL/run: No space left on device" \
	"start with no room"
[ -z "$(ls -A "$FULL/run")" ] || fail "a failed start left $(ls -A "$FULL/run")"
! pgrep -f -- "--run-dir $FULL/run" >/dev/null || fail "a failed start left a daemon"
echo ok
