#!/bin/bash
# rnr on real clients: the responder answers receiver-not-ready for the
# packets a rule matches, and the requester does what the device does with
# the QP's rnr_retry.  libfabric's efa provider (Debian's fi_pingpong, data
# checked with -c) asks for 3 retries: refusals within them are absorbed by
# the device, a packet refused more often ends in an RNR error completion,
# which libfabric answers by sending again; ibv_rc_pingpong retries for
# ever (rnr_retry 7).  Every run completes with its data intact, softefa
# stats counts each refusal as an rnr retry of the sender.
# Usage: inject_rnr.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
PORT=$(pick_port)
command -v fi_pingpong >/dev/null || fail "libfabric-bin is not installed"
start_host --profile extended --devices 2
# one host: libfabric must not take its shm provider
export FI_EFA_ENABLE_SHM_TRANSFER=0

# fi_checked's runner: both sides through our provider
pair_ours() {
	pair ours ours "$@"
}

# A third of the packets refused twice each: within rnr_retry 3, so the
# device sends them again; an error completion only where libfabric's own
# late receives added refusals of their own, and then an RNR one.
id=$(sefa inject add rnr tries=2 share=30 seed=5 | awk '{ print $2 }')
fi_checked pair_ours "rule $id" -p efa
h=$(rule_hits "$id")
[ "$h" -gt 0 ] || fail "rule $id never fired"
[ $((h % 2)) -eq 0 ] || fail "rule $id: $h refusals, not 2 per packet"
expect_only_rnr_errors efa_0
retries=$(stat_field efa_0 rnr_retries)
[ "$retries" -ge "$h" ] || fail "rnr_retries $retries < $h refusals"
sefa inject clear "$id" >/dev/null

# The 10th packet refused past rnr_retry: 1 + 3 retries, then the RNR
# error completion, and libfabric's own resend is another packet.
id=$(sefa inject add rnr tries=100 nth=10 | awk '{ print $2 }')
fi_checked pair_ours "rule $id" -p efa
expect_eq "refusals of the 10th packet" "$(rule_hits "$id")" 4
[ "$(stat_field efa_0 rnr_errors)" -ge 1 ] ||
	fail "no RNR error completion: $(sefa stats)"
expect_only_rnr_errors efa_0
sefa inject clear "$id" >/dev/null

# RC retries for ever: 20 refusals, then the rule is spent.
id=$(sefa inject add rnr dev=efa_1 count=20 | awk '{ print $2 }')
before=$(stat_field efa_0 rnr_retries)
SERVER_ARGS="-d efa_1" CLIENT_ARGS="-d efa_0" \
	pair ours ours ibv_rc_pingpong -g 0 -p "$PORT" -n 100 -c ||
	fail "ibv_rc_pingpong under rule $id"
both_iterated 100 "rc under rule $id"
! grep -q "invalid data" "$RUN/server.out" "$RUN/client.out" ||
	fail "rc data: $(cat "$RUN/server.out" "$RUN/client.out")"
sefa inject list | grep -Eq "^$id +20 +yes " ||
	fail "rule $id: $(sefa inject list)"
after=$(stat_field efa_0 rnr_retries)
[ $((after - before)) -ge 20 ] ||
	fail "efa_0's rnr_retries rose by $((after - before)), not 20"
echo "ok: fi_pingpong and ibv_rc_pingpong through $h + 4 + 20 refusals"
