#!/bin/bash
# efadv through our libefa.so.1, on both profiles: efadv_query_device's
# values, then EFA_1.4 to 1.7 (efadv_verbs).
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2
start_host --profile "$PROFILE"
out=$(sx --provider ours -- "$BUILD/bin/efadv_probe" efa_0) ||
	fail "efadv_query_device: $out"
v() { echo "$out" | awk -v k="$1" '$1 == k { print $2 }'; }
expect_eq max_sq_wr "$(v max_sq_wr)" 4096
expect_eq max_rq_wr "$(v max_rq_wr)" 32768
expect_eq max_sq_sge "$(v max_sq_sge)" 2
expect_eq max_rq_sge "$(v max_rq_sge)" 3
expect_eq inline_buf_size "$(v inline_buf_size)" 32
expect_eq max_rdma_size "$(v max_rdma_size)" 1073741824
# RDMA read, RNR retry, CQ with SGID and RDMA write, as efadv numbers
# them: 15, what a real 0xefa1 device reports
expect_eq device_caps "$(v device_caps)" 0xf

# The profiles' sub-CQs per CQ (softefad's profile.c: one ring on every
# generation but 0xefa0): with more than one, efadv_query_cq has no single
# ring to give.
export SEFA_SUB_CQS=1
sx --provider ours -- "$BUILD/bin/efadv_verbs" || fail "efadv_verbs"
expect_eq objects "$(status_field objects)" 0

echo ok
