#!/bin/bash
# The daemon's own end, under clients that hold contexts and wait for
# events: killed with SIGKILL, or stopped with "softefa stop".  As when a
# device goes away under open uverbs files: IBV_EVENT_DEVICE_FATAL on the
# async fd (queued by the stopping daemon, or given by the shim when the
# daemon vanished), every blocked call returns, reads of event files and
# new verbs fail with EIO, a poll of a mapped CQ still answers, and a new
# daemon starts in the same directory.
. "$(dirname "$0")/lib.sh" "$1"
PROBE="$BUILD/bin/sefa_probe"

# orphan PROVIDER HOW: the probe's report once the daemon went HOW
orphan() {
	local provider=$1 how=$2 log=$RUN.orphan pid

	sx --provider "$provider" -- "$PROBE" orphan efa_0 >"$log" 2>&1 &
	pid=$!
	wait_for 30 "the $provider probe to be ready" grep -q '^ready$' "$log" ||
		fail "$provider: probe did not start: $(cat "$log")"
	if [ "$how" = kill ]; then
		kill -KILL "$(cat "$RUN/softefad.pid")"
	else
		sefa stop >/dev/null || fail "$provider: stop with a client attached"
	fi
	# the probe gives up on a call after 10 s and says so
	wait "$pid" || fail "$provider/$how: probe failed: $(cat "$log")"
	cat "$log"
	rm -f "$log"
}

for provider in ours stock; do
	for how in kill stop; do
		start_host
		out=$(orphan "$provider" "$how")
		echo "$provider, daemon gone by $how:"
		echo "$out"
		grep -qx "cq_event: -1 Input/output error" <<<"$out" ||
			fail "$provider/$how: ibv_get_cq_event did not fail with EIO"
		grep -qx "async_event: local catastrophic error" <<<"$out" ||
			fail "$provider/$how: no IBV_EVENT_DEVICE_FATAL"
		grep -qx "async_again: -1 Input/output error" <<<"$out" ||
			fail "$provider/$how: the async fd did not end with EIO"
		grep -qx "alloc_pd: Input/output error" <<<"$out" ||
			fail "$provider/$how: a new verb did not fail with EIO"
		grep -qx "query_port: Input/output error" <<<"$out" ||
			fail "$provider/$how: query_port did not fail with EIO"
		grep -qx "poll_cq: 0" <<<"$out" ||
			fail "$provider/$how: polling the CQ did not answer 0"
		# a new daemon in the same run directory serves at once, past
		# the pid file and socket a SIGKILLed one left
		start_host
		sx -- ibv_devinfo -d efa_0 >/dev/null ||
			fail "$provider/$how: the new daemon does not serve"
		stop_host
	done
done
echo ok
