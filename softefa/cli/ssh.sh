#!/bin/bash
# ssh for test harnesses that start each side of a test "on a host" over
# ssh, such as fabtests' runfabtests.py, run whole under softefa exec on
# one SoftEFA host: installed as <libexecdir>/softefa/ssh, that directory
# goes first on the harness's PATH (softefa(8), TEST HARNESSES).
#
# It takes the command line the harness gives ssh, "ssh [OPTION]... HOST
# COMMAND...", and runs COMMAND here, whatever HOST is: the harness's own
# environment, set up by softefa exec, reaches the command as it is, so
# every side runs on the same host through the same provider.  As ssh
# does, it joins the command's words with spaces for a shell, reads no
# standard input with -n, and exits with the command's status, or 255 when
# it cannot run it.
set -u

die() {
	echo "ssh (SoftEFA stand-in): $*" >&2
	exit 255
}

if [ -z "${SOFTEFA_RUN_DIR:-}" ]; then
	die "not under softefa exec (no SOFTEFA_RUN_DIR): run the harness" \
		"as \"softefa exec -- HARNESS...\" so that what it starts" \
		"reaches the SoftEFA host"
fi

no_stdin=0
while [ $# -gt 0 ]; do
	case $1 in
	-n)
		no_stdin=1
		shift
		;;
	-[46AaCfGgKkMNqsTtVvXxYy]) shift ;;
	-[BbcDEeFIiJLlmOoPpQRSWw])
		[ $# -ge 2 ] || die "option $1 needs an argument"
		shift 2
		;;
	-[BbcDEeFIiJLlmOoPpQRSWw]?*) shift ;;
	--)
		shift
		break
		;;
	-*) die "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die "no host named"
host=$1
shift
[ $# -ge 1 ] || die "no command for $host: a login session is not offered"

if [ "$no_stdin" = 1 ]; then
	exec bash -c "$*" </dev/null
fi
exec bash -c "$*"
