#!/bin/bash
# perftest over SRD: send latency and bandwidth, RDMA read bandwidth.
# Usage: perftest.sh BUILD ABI PROVIDER
. "$(dirname "$0")/lib.sh" "$1"
ABI=$2 P=$3
PORT=$(pick_port)
command -v ib_send_lat >/dev/null || fail "perftest is not installed"
# perftest 4.5 (Debian 12) takes 0xefa0 and 0xefa1 alone for EFA and on
# any other part id posts RDMA reads through ibv_post_send(), which EFA
# refuses ("Couldn't post send"), as it would on such hardware: efa1.
start_host --abi "$ABI" --profile efa1

# perftest calibrates its clock first and gives up ("Correlation
# coefficient ... Can't produce a report") when the machine is busy: that
# run proves nothing either way, so it is run again, up to three times.
perf() {
	local try

	for try in 1 2 3; do
		pair "$P" "$P" "$@" -p "$PORT" && return 0
		grep -q "Correlation coefficient" "$RUN/server.out" "$RUN/client.out" ||
			fail "$*"
		echo "perftest could not calibrate its clock; again" >&2
	done
	fail "$*: perftest never calibrated its clock"
}

perf ib_send_lat -c SRD -x 0 -n 500
grep -Eq '^ +2 +500 ' "$RUN/client.out" || fail "ib_send_lat: $(cat "$RUN/client.out")"
perf ib_send_bw -c SRD -x 0 -n 500
grep -Eq '^ +8928 +500 ' "$RUN/client.out" || fail "ib_send_bw: $(cat "$RUN/client.out")"
perf ib_read_bw -c SRD -x 0 -n 200
grep -Eq '^ +65536 +200 ' "$RUN/client.out" || fail "ib_read_bw: $(cat "$RUN/client.out")"
expect_eq errors "$(stat_field efa_0 errors)" 0
# ib_read_bw's 200 iterations at every size ran as the device's reads.
[ "$(stat_field efa_0 rdma_reads)" -ge 200 ] ||
	fail "rdma_reads: $(stat_field efa_0 rdma_reads)"
echo "ok: $ABI $P"
