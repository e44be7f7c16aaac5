#!/bin/bash
# softefa's ssh for test harnesses (softefa/cli/ssh.sh, installed as
# <libexecdir>/softefa/ssh; softefa(8), TEST HARNESSES): under softefa
# exec, the command named "on a host" runs here, on the exec's SoftEFA host,
# with ssh's word joining, -n and exit status; every bad command line, and
# a run outside softefa exec, ends in 255 and a message, the command not run.
# Usage: ssh_standin.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
SSH=$(cd "$(dirname "$0")/../../softefa/cli" && pwd)/ssh.sh

start_host --profile efa

# expect_refusal WHY ARG...: the stand-in, under exec, refuses ARG... with
# 255 and a message saying WHY, and runs nothing
expect_refusal() {
	local why=$1 rc=0 out
	shift

	out=$(sx -- "$SSH" "$@" 2>&1) || rc=$?
	expect_eq "exit status of ssh $*" "$rc" 255
	grep -F "$why" <<<"$out" >/dev/null ||
		fail "ssh $*: the message does not say '$why': $out"
	grep -Fx ran <<<"$out" >/dev/null &&
		fail "ssh $*: the command ran: $out"
	return 0
}

# the harness's own options, then a command that reaches the host's device
out=$(sx -- "$SSH" -n -o StrictHostKeyChecking=no -o ConnectTimeout=30 \
	-oBatchMode=yes 127.0.0.2 ibv_devices) ||
	fail "ibv_devices through the stand-in: exit status $?: $out"
grep -w efa_0 <<<"$out" >/dev/null ||
	fail "ibv_devices through the stand-in does not see efa_0: $out"
expect_eq "run directory seen by the command" \
	"$(sx -- "$SSH" host 'echo $SOFTEFA_RUN_DIR')" "$RUN"

# words joined with spaces for a shell, as ssh does; its exit status
expect_eq "joined words" "$(sx -- "$SSH" host echo 'a   b' '"c   d"')" \
	"a b c   d"
rc=0
sx -- "$SSH" host 'exit 7' || rc=$?
expect_eq "the command's exit status" "$rc" 7

# -n: no standard input for the command; without it, the caller's
expect_eq "stdin with -n" "$(echo data | sx -- "$SSH" -n host cat)" ""
expect_eq "stdin without -n" "$(echo data | sx -- "$SSH" host cat)" data

expect_refusal "no host named"
expect_refusal "no command for host" host
expect_refusal "option -o needs an argument" -o
expect_refusal "unknown option --bogus" --bogus host echo ran
rc=0
out=$(env -u SOFTEFA_RUN_DIR "$SSH" host echo ran 2>&1) || rc=$?
expect_eq "exit status outside softefa exec" "$rc" 255
grep -F "not under softefa exec" <<<"$out" >/dev/null ||
	fail "outside softefa exec, the message does not say so: $out"
grep -Fx ran <<<"$out" >/dev/null && fail "outside softefa exec, it ran: $out"
echo "ok: ssh stand-in"
