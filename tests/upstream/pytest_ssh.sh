#!/bin/bash
# The ssh that fabtests' pytest harness finds on its PATH when it runs on
# SoftEFA (fabtests_pytest.sh links it as "ssh"): the harness starts every
# program "on a host" as "ssh [-n] [-o OPTION]... HOST COMMAND...", and here
# each host is the test's one SoftEFA host, so the command runs locally
# under softefa exec, through the upstream stack lib.sh's up_run sets up.
# Like ssh, it joins the command's words with spaces and hands them to a
# shell, and exits with the command's status (255 for its own errors).
# SEFA_SSH_ENV names the file with the host's settings that
# fabtests_pytest.sh wrote (declare -p of SOFTEFA, RUN, NETNS, UP_PROVIDER
# and UP_WRAP); SEFA_SSH_LOG, when set, gets one line per command run.
# Each command's process id goes into RUN/ssh.pids, so that the test can
# end what the harness left running (a side it gave up on).
set -uo pipefail

die() {
	echo "ssh (SoftEFA stand-in): $*" >&2
	exit 255
}

[ -r "${SEFA_SSH_ENV:-}" ] ||
	die "SEFA_SSH_ENV (${SEFA_SSH_ENV:-unset}) names no readable settings file"
# shellcheck disable=SC1090
. "$SEFA_SSH_ENV"

# the options the harness passes; those with an argument take it along
while [ $# -gt 0 ]; do
	case $1 in
	-[46AaCfGgKkMNnqsTtVvXxYy]) shift ;;
	-[BbcDEeFIiJLlmOoPpQRSWw])
		[ $# -ge 2 ] || die "option $1 needs an argument"
		shift 2
		;;
	-[BbcDEeFIiJLlmOoPpQRSWw]?*) shift ;;
	--) shift; break ;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "no host named"
host=$1
shift
[ $# -ge 1 ] || die "no command for $host: a login session is not offered"

if [ -n "${SEFA_SSH_LOG:-}" ]; then
	printf '%s: %s\n' "$host" "$*" >>"$SEFA_SSH_LOG"
fi
# shellcheck disable=SC2154
echo "$$" >>"$RUN/ssh.pids" || die "cannot write $RUN/ssh.pids"
exec ${NETNS:+ip netns exec "$NETNS"} "$SOFTEFA" --run-dir "$RUN" exec \
	--provider "$UP_PROVIDER" -- "${UP_WRAP[@]}" bash -c "$*"
