# Shared helpers of the integration tests: a private SoftEFA host per test.
# Usage: . lib.sh BUILD_DIR
set -euo pipefail

BUILD=${1:?build directory}
shift
SOFTEFA="$BUILD/bin/softefa"
# infiniband-diags live in sbin
PATH=$PATH:/usr/sbin:/sbin
RUN=$(mktemp -d /tmp/softefa-test.XXXXXX)
# A sanitized softefa may run inside softefa exec (nested, or for stats
# from a test program), where the shim and libefa are preloaded ahead of
# the ASan runtime; neither replaces the allocator, so let it start.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The daemon logs into the run directory; under ASan/UBSan its reports land
# there too, and fail the test.
cleanup() {
	local rc=$?

	if [ "$rc" -ne 0 ] && [ -s "$RUN/softefad.log" ]; then
		echo "--- softefad.log" >&2
		cat "$RUN/softefad.log" >&2
	fi
	"$SOFTEFA" --run-dir "$RUN" stop >/dev/null 2>&1 || true
	if grep -Eq "Sanitizer|runtime error" "$RUN/softefad.log" 2>/dev/null; then
		echo "FAIL: softefad reported:" >&2
		cat "$RUN/softefad.log" >&2
		rc=1
	fi
	rm -rf "$RUN"
	exit $rc
}
trap cleanup EXIT

start_host() {
	"$SOFTEFA" --run-dir "$RUN" start "$@" >/dev/null
}

stop_host() {
	"$SOFTEFA" --run-dir "$RUN" stop >/dev/null
}

sx() {
	"$SOFTEFA" --run-dir "$RUN" exec "$@"
}

status_field() {
	"$SOFTEFA" --run-dir "$RUN" status | awk -v k="$1:" '$1 == k { print $2 }'
}

# Value of "key:<tabs>value" in ibv_devinfo output
devinfo_field() {
	awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ +/, ""); print; exit }'
}

expect_eq() {
	[ "$2" = "$3" ] || fail "$1: expected '$3', got '$2'"
}

# check_provider ours|stock CMD...: CMD opens a device through the named
# provider.  Ours logs its context limits at debug level; the stock one
# logs nothing there.
check_provider() {
	local provider=$1 log
	shift
	log=$(VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=/dev/stderr \
		sx --provider "$provider" -- "$@" 2>&1 >/dev/null) ||
		fail "$provider: $*: $log"
	if [ "$provider" = ours ]; then
		grep -q "efa_alloc_context: sub_cqs" <<<"$log" ||
			fail "$* did not run on our provider: $log"
	else
		grep -q "efa_alloc_context" <<<"$log" &&
			fail "$* ran on our provider, not the stock one: $log"
	fi
	return 0
}

# A TCP port for one test's out-of-band exchange, unlikely to collide with
# a test running beside it.
# A TCP port for a tool's out-of-band exchange: below the ephemeral range
# (32768 up), where clients' own ports would collide with it, and not used
# by any socket in any state, since the tools do not set SO_REUSEADDR.
pick_port() {
	local p

	while :; do
		p=$((10000 + (RANDOM * 32768 + RANDOM) % 22000))
		[ -z "$(ss -Hatn "sport = :$p")" ] && break
	done
	echo "$p"
}

# Wait until something listens on TCP port $1 (at most ten seconds).
# Only look: a test connection would be taken for the client.
wait_listen() {
	local i

	for i in $(seq 200); do
		[ -n "$(ss -Hltn "sport = :$1")" ] && return 0
		sleep 0.05
	done
	return 1
}

# pair SERVER_PROVIDER CLIENT_PROVIDER PROGRAM ARGS...: run PROGRAM as a
# server and as its client (the client gets 127.0.0.1 appended); non-zero
# unless both succeed.  Output goes to $RUN/server.out and $RUN/client.out.
# SERVER_ARGS and CLIENT_ARGS, when set, go to one side only (fi_pingpong
# names its control port differently on each side); PAIR_TIMEOUT bounds
# each side (60 s); a side that ignores SIGTERM (fi_pingpong was seen
# blocking it) is killed 10 s later, so a test can never hang.
pair() {
	local sp=$1 cp=$2 spid rc=0 limit=${PAIR_TIMEOUT:-60}
	shift 2

	# line-buffered, so a run that has to be killed still says how far
	# it got
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" "$SOFTEFA" --run-dir "$RUN" exec --provider "$sp" -- \
		stdbuf -oL "$@" ${SERVER_ARGS:-} >"$RUN/server.out" 2>&1 &
	spid=$!
	if ! wait_listen "$PORT"; then
		kill "$spid" 2>/dev/null
		cat "$RUN/server.out" >&2
		echo "$1: the server did not listen" >&2
		return 1
	fi
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" "$SOFTEFA" --run-dir "$RUN" exec --provider "$cp" -- \
		stdbuf -oL "$@" ${CLIENT_ARGS:-} 127.0.0.1 >"$RUN/client.out" 2>&1 ||
		rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	if [ "$rc" -ne 0 ]; then
		echo "--- server" >&2; cat "$RUN/server.out" >&2
		echo "--- client" >&2; cat "$RUN/client.out" >&2
		echo "--- device" >&2
		"$SOFTEFA" --run-dir "$RUN" stats >&2 || true
		echo "$*: exit status $rc" >&2
	fi
	return "$rc"
}

stat_field() {
	"$SOFTEFA" --run-dir "$RUN" stats |
		awk -v d="$1" -v k="$2" '$1 == "device" && $2 == d {
			for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

# libfabric's efa provider asks for rnr_retry 3 and resends after an RNR
# error completion itself: the only error completions allowed on DEVICE
# are those, each after four receiver-not-ready answers.
expect_only_rnr_errors() {
	local errors

	errors=$(stat_field "$1" errors)
	[ $((errors * 4)) -le "$(stat_field "$1" rnr_retries)" ] ||
		fail "error completions other than RNR: $("$SOFTEFA" --run-dir "$RUN" stats)"
}
