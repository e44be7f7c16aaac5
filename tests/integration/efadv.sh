#!/bin/bash
# efadv through our libefa.so.1, on both profiles: efadv_query_device's
# values, then EFA_1.4 to 1.7, unsolicited write receive and the QP's
# service level (efadv_verbs).
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
# 128-byte WQEs: inline RDMA write and inline data up to 80 bytes
expect_eq inline_buf_size_ex "$(v inline_buf_size_ex)" 80
expect_eq max_rdma_size "$(v max_rdma_size)" 1073741824
# RDMA read, RNR retry, CQ with SGID, RDMA write and unsolicited write
# receive, as efadv numbers them: what a real 0xefa2 device reports; and
# CQs on external memory where libibverbs can pass the buffer (ABI 64)
caps=0x1f
[ "$(provider_abi)" = 64 ] && caps=0x3f
expect_eq device_caps "$(v device_caps)" "$caps"

# The profiles' sub-CQs per CQ (softefad's profile.c: one ring on every
# generation but 0xefa0, which generations.sh runs this on).
export SEFA_SUB_CQS=1
out=$(sx --provider ours -- "$BUILD/bin/efadv_verbs" 2>&1) ||
	fail "efadv_verbs: $out"
echo "$out"
# what it saw: 128-byte WQEs, 80 inline bytes written, the depths
grep -q "^wqe_size inline_write 128$" <<<"$out" || fail "no 128-byte WQEs"
grep -q "^inline_writes 80$" <<<"$out" || fail "no inline writes of 1-80"
grep -q "^inline_send 80$" <<<"$out" || fail "no inline send of 80"
grep -q "^sq_depth 64 4096 inline_write 2048$" <<<"$out" ||
	fail "SQ depths of 64- and 128-byte WQEs"
# writes with immediate that took no receive, as upstream reports them
grep -q "^unsolicited_write_imm ok$" <<<"$out" ||
	fail "no unsolicited write with immediate"
grep -q "^sl 0 8 255 ok$" <<<"$out" || fail "no QPs of service level 0, 8, 255"
# libibverbs 64's port speed, through ours (4X EDR: 100 Gb/s, in 100 Mb/s)
if grep -q IBVERBS_PRIVATE_64 <<<"$(objdump -T "$BUILD/lib/libefa.so.1")"; then
	grep -q "^port_speed 1000$" <<<"$out" || fail "ibv_query_port_speed"
fi
expect_eq objects "$(status_field objects)" 0

echo ok
