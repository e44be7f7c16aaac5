#!/bin/bash
# RC on the extended profile: rc_verbs, ibv_rc_pingpong and perftest over
# RC through our provider; on the efa profile RC is refused, clearly.
# Usage: rc.sh BUILD ABI
. "$(dirname "$0")/lib.sh" "$1"
ABI=$2
PORT=$(pick_port)

start_host --profile efa --abi "$ABI"
out=$(VERBS_LOG_LEVEL=1 VERBS_LOG_FILE=/dev/stderr \
	sx -- ibv_rc_pingpong -p "$PORT" 2>&1) && fail "RC on the efa profile"
grep -q "RC" <<<"$out" || fail "no clear message for RC on efa: $out"
stop_host

start_host --profile extended --abi "$ABI"
sx -- "$BUILD/bin/rc_verbs" || fail "rc_verbs"
for args in "-s 1" "-s 4096" "-s 150000 -n 100 -c" "-g 0" "-e" "-e -g 0 -s 8192 -c"; do
	pair ours ours ibv_rc_pingpong -p "$PORT" $args ||
		fail "ibv_rc_pingpong $args"
	grep -q "iters in" "$RUN/client.out" || fail "rc_pingpong $args"
done

perf() {
	local try

	for try in 1 2 3; do
		pair ours ours "$@" -p "$PORT" && return 0
		grep -q "Correlation coefficient" "$RUN/server.out" "$RUN/client.out" ||
			fail "$*"
	done
	fail "$*: perftest never calibrated its clock"
}
perf ib_write_bw -n 500
grep -Eq '^ +65536 +500 ' "$RUN/client.out" || fail "ib_write_bw: $(cat "$RUN/client.out")"
perf ib_read_bw -n 200
grep -Eq '^ +65536 +200 ' "$RUN/client.out" || fail "ib_read_bw: $(cat "$RUN/client.out")"
perf ib_send_lat -n 500
grep -Eq '^ +2 +500 ' "$RUN/client.out" || fail "ib_send_lat: $(cat "$RUN/client.out")"
expect_eq contexts "$(status_field contexts)" 0
echo "ok: $ABI"
