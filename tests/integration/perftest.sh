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

perf_run() {
	pair "$P" "$P" "$@"
}

perf_srd
expect_eq errors "$(stat_field efa_0 errors)" 0
# ib_read_bw's 200 iterations at every size ran as the device's reads.
[ "$(stat_field efa_0 rdma_reads)" -ge 200 ] ||
	fail "rdma_reads: $(stat_field efa_0 rdma_reads)"
echo "ok: $ABI $P"
