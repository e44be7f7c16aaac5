#!/bin/bash
# The engine sleeps when it has nothing to do.  Our provider wakes it after
# each doorbell (the wake page), so no message of ours waits for one of the
# engine's timed looks; the stock provider's doorbells are found by those
# looks.  Idle, the looks back off to a few hundred a second.
. "$(dirname "$0")/lib.sh" "$1"
start_host
B="$BUILD/bin/efa_bench"

for p in ours stock; do
	w0=$(engine_field woken) u0=$(engine_field unannounced)
	grep -q '^rtt ' <<<"$(sx --provider "$p" -- "$B" lat 500)" ||
		fail "$p: ping-pong"
	w1=$(engine_field woken) u1=$(engine_field unannounced)
	echo "$p: 1002 messages, woken $((w1 - w0)), found unannounced $((u1 - u0))"
	if [ "$p" = ours ]; then
		[ $((w1 - w0)) -gt 0 ] || fail "ours never woke the engine"
		# a look may find a doorbell that rang as it came round
		[ $((u1 - u0)) -le 10 ] ||
			fail "ours: $((u1 - u0)) messages waited for a timed look"
	fi
done

# idle: timed looks only, a few hundred a second at most
sleep 0.5
s0=$(engine_field sleeps)
sleep 2
s1=$(engine_field sleeps)
echo "idle: $((s1 - s0)) sleeps in 2 s"
[ $((s1 - s0)) -le 2000 ] || fail "the idle engine did not back off"
expect_eq errors "$(stat_field efa_0 errors)" 0
echo ok
