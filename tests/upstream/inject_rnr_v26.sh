#!/bin/bash
# rnr on the current upstream stack: libfabric 2.6 through rdma-core v64's
# libefa, both processes on one device, while rnr rules make the
# responder answer receiver-not-ready: fabtests' fi_rdm_pingpong (data
# checked with -v) on the efa fabric, fi_pingpong (-c) on efa-direct.
# (fi_pingpong on the efa fabric fails in libfabric 2.6 whenever its first
# packet ends in an RNR error completion, as it does when the server is
# slow to post its buffers, rule or none: the receiver takes the resent
# packet for a wrong size.)
# The efa fabric asks the device for rnr_retry 3 (the QP's attribute,
# since the device offers the RNR retry capability): refusals within it
# are absorbed by the device, a packet refused more often ends in an RNR
# error completion, which libfabric answers by queueing the packet and
# sending it again itself.  efa-direct has no protocol of its own to send
# again: it leaves the QP at SRD's default, rnr_retry 7 (for ever), so the
# device keeps sending a refused packet until it is taken, and the client
# never sees an RNR error completion; one it would see (with a smaller
# rnr_retry it set) would reach the application as an FI_ENORX error
# entry of its CQ, which fabtests_pytest.sh's RNR tests check.
# Every run completes with its data intact; softefa stats counts each
# refusal as an rnr retry of the sender, each RNR error completion as an
# rnr_errors, and the rule's hits.
# Usage: inject_rnr_v26.sh BUILD
. "$(dirname "$0")/lib.sh" "$1" all
PORT=$(pick_port)
start_host --profile efa
# one host: libfabric must not take its shm provider
export FI_EFA_ENABLE_SHM_TRANSFER=0

# stats_hits ID: rule ID's hits as softefa stats gives them
stats_hits() {
	sefa stats | awk -v id="$1" '$1 == "fault" && $2 == "rule" &&
		$3 == id { print $5 }'
}

# efa_run WHAT: fi_rdm_pingpong on the efa fabric, 50 round trips of 1 KiB
# with their data checked, both sides done
efa_run() {
	local side

	PAIR_TIMEOUT=${PAIR_TIMEOUT:-120} up_pair fi_rdm_pingpong -p efa -f efa \
		-v -I 50 -S 1024 -E="$PORT" || fail "fi_rdm_pingpong, $1"
	for side in server client; do
		grep -Eq '^1k +50 ' "$RUN/$side.out" ||
			fail "$side, $1: $(cat "$RUN/$side.out")"
	done
}

# direct_run WHAT: fi_pingpong -c on efa-direct
direct_run() {
	fi_checked up_pair "$1" -p efa -f efa-direct
}

# rnr_case FABRIC RULE...: a pingpong on FABRIC under RULE; sets H, the
# rule's hits, checked to be those stats gives, and RETRIES and ERRORS,
# the rnr_retries and rnr_errors the run added, RETRIES checked against H
rnr_case() {
	local fabric=$1 id r0 e0
	shift

	r0=$(stat_field efa_0 rnr_retries)
	e0=$(stat_field efa_0 rnr_errors)
	id=$(sefa inject add "$@" | awk '{ print $2 }')
	if [ "$fabric" = efa ]; then
		efa_run "under rule $id ($*)"
	else
		direct_run "under rule $id ($*)"
	fi
	H=$(rule_hits "$id")
	expect_eq "rule $id's hits in stats" "$(stats_hits "$id")" "$H"
	[ "$H" -gt 0 ] || fail "rule $id ($*) never fired"
	RETRIES=$(($(stat_field efa_0 rnr_retries) - r0))
	ERRORS=$(($(stat_field efa_0 rnr_errors) - e0))
	[ "$RETRIES" -ge "$H" ] ||
		fail "$fabric: rnr_retries rose by $RETRIES, under $H refusals"
	expect_only_rnr_errors efa_0
	sefa inject clear "$id" >/dev/null
	echo "$fabric under $*: $H refusals, rnr_retries +$RETRIES," \
		"rnr_errors +$ERRORS"
}

# A third of the packets refused twice each: within rnr_retry 3, unless
# the receiver was not ready of its own as well (libfabric 2.6 posts its
# buffers late), when the packet's last retry may be the rule's first
# refusal, and its RNR error completion is then answered by libfabric.
rnr_case efa rnr tries=2 share=30 seed=5

# The 10th packet the rule meets refused past rnr_retry 3: at most 1 + 3
# answers (fewer when it met the rule on a retry), then the RNR error
# completion, and libfabric's resend is another packet.
rnr_case efa rnr tries=100 nth=10
[ "$H" -le 4 ] || fail "efa: $H refusals of one packet under rnr_retry 3"
[ "$ERRORS" -ge 1 ] || fail "efa: no RNR error completion: $(sefa stats)"

# efa-direct: the 10th packet refused 20 times, each retried by the
# device, the QP's retries being endless: no error completion.
rnr_case efa-direct rnr tries=20 nth=10
expect_eq "efa-direct: refusals of the 10th packet" "$H" 20
expect_eq "efa-direct: RNR error completions" "$ERRORS" 0
echo "ok: libfabric 2.6 on efa and efa-direct under rnr rules, data intact"
