# Shared helpers of the integration tests: a private SoftEFA host per test.
# Usage: . lib.sh BUILD_DIR
set -euo pipefail

BUILD=${1:?build directory}
shift
SOFTEFA="$BUILD/bin/softefa"
RUN=$(mktemp -d /tmp/softefa-test.XXXXXX)

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The daemon logs into the run directory; under ASan/UBSan its reports land
# there too, and fail the test.
cleanup() {
	local rc=$?

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
