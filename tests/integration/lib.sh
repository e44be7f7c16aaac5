# Shared helpers of the integration tests: a private SoftEFA host per test.
# Usage: . lib.sh BUILD_DIR
set -euo pipefail
# Under pipefail "CMD | grep -q PATTERN" fails at random when grep stops
# reading at its match while CMD still writes (SIGPIPE): where CMD may
# write more than one block, "grep PATTERN >/dev/null" reads to the end.
# wait_for, tcp_listens
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/common.sh"

BUILD=${1:?build directory}
# absolute, since tests hand it to programs that run elsewhere (the
# fabtests harness's stand-in ssh runs in pytest's directory)
[ -d "$BUILD" ] || { echo "$0: $BUILD: no such build directory" >&2; exit 1; }
BUILD=$(cd "$BUILD" && pwd)
shift
SOFTEFA="$BUILD/bin/softefa"
# infiniband-diags live in sbin
PATH=$PATH:/usr/sbin:/sbin
RUN=$(mktemp -d /tmp/softefa-test.XXXXXX)
# A sanitized softefa may run inside softefa exec (nested, or for stats
# from a test program), where the shim and libefa are preloaded ahead of
# the ASan runtime; neither replaces the allocator, so let it start.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

# The host the helpers below talk to: the daemon of run directory $RUN, in
# network namespace $NETNS when that is set.  hosts.sh's on_host sets both
# for one call, so that every helper serves any of its hosts.
NETNS=

# the build under test has ASan and UBSan in it
sanitized() {
	grep -q '^ENABLE_SANITIZERS:BOOL=ON$' "$BUILD/CMakeCache.txt"
}

# softefa ARGS... on that host
sefa() {
	${NETNS:+ip netns exec "$NETNS"} "$SOFTEFA" --run-dir "$RUN" "$@"
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# host_down RC: stop the host's daemon, if one runs.  The daemon logs into
# the run directory, shown when the test failed (RC non-zero); under
# ASan/UBSan its reports land there too: then non-zero.
host_down() {
	local log=$RUN/softefad.log out

	if [ "$1" -ne 0 ] && [ -s "$log" ]; then
		echo "--- softefad.log${NETNS:+ of $NETNS}" >&2
		cat "$log" >&2
	fi
	# a stop that fails is worth a word, unless nothing ran
	out=$(sefa stop 2>&1 >/dev/null) || case $out in
		*"no softefad is running"*) ;;
		*) echo "host_down: softefa stop${NETNS:+ in $NETNS}: $out" >&2 ;;
		esac
	if grep -Eq "Sanitizer|runtime error" "$log" 2>/dev/null; then
		echo "FAIL: softefad${NETNS:+ of $NETNS} reported:" >&2
		cat "$log" >&2
		return 1
	fi
	return 0
}

# cleanup [RC]: on exit, with the test's status (or RC)
cleanup() {
	local rc=${1:-$?}

	host_down "$rc" || rc=1
	rm -rf "$RUN"
	exit "$rc"
}
trap cleanup EXIT

start_host() {
	sefa start "$@" >/dev/null
}

stop_host() {
	sefa stop >/dev/null
}

sx() {
	sefa exec "$@"
}

status_field() {
	sefa status | awk -v k="$1:" '$1 == k { print $2 }'
}

# status_is FIELD VALUE: a condition for wait_for
status_is() {
	[ "$(status_field "$1")" = "$2" ]
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

# wait_listen PORT [SECONDS]: wait until something listens on TCP port PORT
# in the host's network namespace, at most SECONDS (30: a program's start
# on a loaded machine).
wait_listen() {
	wait_for "${2:-30}" "a listener on TCP port $1${NETNS:+ in $NETNS}" \
		tcp_listens "$1" "$NETNS"
}

# pair SERVER_PROVIDER CLIENT_PROVIDER PROGRAM ARGS...: run PROGRAM as a
# server and as its client (the client gets 127.0.0.1 appended); non-zero
# unless both succeed.  Output goes to $RUN/server.out and $RUN/client.out.
# SERVER_ARGS and CLIENT_ARGS, when set, go to one side only (fi_pingpong
# names its control port differently on each side); PAIR_TIMEOUT bounds
# each side (60 s); a side that ignores SIGTERM (fi_pingpong was seen
# blocking it) is killed 10 s later, so a test can never hang.
# The client runs on another host (hosts.sh's hosts_pair) with
# PAIR_CLIENT_RUN and PAIR_CLIENT_NETNS, reaching the server at PAIR_ADDR;
# the output then goes to PAIR_OUT.
pair() {
	local sp=$1 cp=$2 spid rc=0 limit=${PAIR_TIMEOUT:-60}
	local out=${PAIR_OUT:-$RUN} crun=${PAIR_CLIENT_RUN:-$RUN}
	local cns=${PAIR_CLIENT_NETNS-$NETNS}
	shift 2

	# line-buffered, so a run that has to be killed still says how far
	# it got
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" ${NETNS:+ip netns exec "$NETNS"} \
		"$SOFTEFA" --run-dir "$RUN" exec --provider "$sp" -- \
		stdbuf -oL "$@" ${SERVER_ARGS:-} >"$out/server.out" 2>&1 &
	spid=$!
	if ! wait_listen "$PORT"; then
		kill "$spid" 2>/dev/null
		cat "$out/server.out" >&2
		echo "$1: the server did not listen" >&2
		return 1
	fi
	# shellcheck disable=SC2086
	timeout -k 10 "$limit" ${cns:+ip netns exec "$cns"} \
		"$SOFTEFA" --run-dir "$crun" exec --provider "$cp" -- \
		stdbuf -oL "$@" ${CLIENT_ARGS:-} "${PAIR_ADDR:-127.0.0.1}" \
		>"$out/client.out" 2>&1 || rc=$?
	wait "$spid" || rc=$((rc ? rc : $?))
	if [ "$rc" -ne 0 ]; then
		echo "--- server" >&2; cat "$out/server.out" >&2
		echo "--- client" >&2; cat "$out/client.out" >&2
		echo "--- device" >&2
		sefa stats >&2 || true
		if [ "$crun" != "$RUN" ]; then
			echo "--- client's device" >&2
			RUN=$crun NETNS=$cns sefa stats >&2 || true
		fi
		echo "$*: exit status $rc" >&2
	fi
	return "$rc"
}

# both_iterated N WHAT: both sides of a pair of ibv_*_pingpong said they
# completed their N round trips
both_iterated() {
	local side

	for side in server client; do
		grep -q "$1 iters in" "$RUN/$side.out" ||
			fail "$side, $2: $(cat "$RUN/$side.out")"
	done
}

stat_field() {
	sefa stats |
		awk -v d="$1" -v k="$2" '$1 == "device" && $2 == d {
			for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

# Value of KEY in softefa stats' engine line (all engines together)
engine_field() {
	sefa stats | awk -v k="$1" '$1 == "engine" {
		for (i = 2; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

# libfabric's efa provider answers an RNR error completion by sending
# again (after rnr_retry 3, or at once under rnr_retry 0, as its RNR tests
# set): the only error completions allowed on DEVICE are RNR ones, which
# the device counts apart (rnr_errors).
expect_only_rnr_errors() {
	local errors rnr

	errors=$(stat_field "$1" errors)
	rnr=$(stat_field "$1" rnr_errors)
	[ "$errors" -eq "$rnr" ] ||
		fail "$((errors - rnr)) error completions other than RNR: $(sefa stats)"
}

# rule_hits ID: how often fault rule ID fired (softefa inject list)
rule_hits() {
	sefa inject list | awk -v id="$1" '$1 == id { print $2 }'
}

# fi_checked RUNNER WHAT ARGS...: fi_pingpong ARGS -e rdm -c, 50 round
# trips of 1 KiB with their data checked, through RUNNER (a function
# called as lib.sh's pair without its providers: the caller's own, or the
# upstream tests' up_pair) on PORT; both sides must print their 50 round
# trips acknowledged and no error, else the test fails naming WHAT.
fi_checked() {
	local runner=$1 what=$2 side
	shift 2

	SERVER_ARGS="-B $PORT" CLIENT_ARGS="-P $PORT" PAIR_TIMEOUT=${PAIR_TIMEOUT:-120} \
		"$runner" fi_pingpong "$@" -e rdm -c -I 50 -S 1024 ||
		fail "fi_pingpong $*, $what"
	for side in server client; do
		grep -Eq '^1k +50 +=50 ' "$RUN/$side.out" ||
			fail "$side, $what: $(cat "$RUN/$side.out")"
		! grep -qi "error\\|fail" "$RUN/$side.out" ||
			fail "$side, $what: $(cat "$RUN/$side.out")"
	done
}

# The private libibverbs ABI (34, 64) our provider in BUILD was built for.
# (awk reads to the end: objdump must not meet a closed pipe)
provider_abi() {
	objdump -T "$BUILD/lib/libefa.so.1" |
		awk '/IBVERBS_PRIVATE_/ && !abi { abi = $0
			sub(/.*IBVERBS_PRIVATE_/, "", abi); sub(/\).*/, "", abi) }
		     END { print abi }'
}

# perf ARGS...: one perftest run through the caller's perf_run (which says
# where its server and client run), on PORT.  perftest calibrates its clock
# first and gives up ("Correlation coefficient ... Can't produce a report")
# when the machine is busy: that run proves nothing either way, so it is
# run again, up to three times.
perf() {
	for _ in 1 2 3; do
		perf_run "$@" -p "$PORT" && return 0
		grep -q "Correlation coefficient" "$RUN/server.out" \
			"$RUN/client.out" || fail "$*"
		echo "perftest could not calibrate its clock; again" >&2
	done
	fail "$*: perftest never calibrated its clock"
}

# perf_srd: send latency, send bandwidth and RDMA read bandwidth over SRD,
# each run to its last line of results.
perf_srd() {
	perf ib_send_lat -c SRD -x 0 -n 500
	grep -Eq '^ +2 +500 ' "$RUN/client.out" ||
		fail "ib_send_lat: $(cat "$RUN/client.out")"
	perf ib_send_bw -c SRD -x 0 -n 500
	grep -Eq '^ +8928 +500 ' "$RUN/client.out" ||
		fail "ib_send_bw: $(cat "$RUN/client.out")"
	perf ib_read_bw -c SRD -x 0 -n 200
	grep -Eq '^ +65536 +200 ' "$RUN/client.out" ||
		fail "ib_read_bw: $(cat "$RUN/client.out")"
}
