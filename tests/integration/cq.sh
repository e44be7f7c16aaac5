#!/bin/bash
# Completion queues driven by a provider: cq_verbs on the efa profile (one
# CQ ring), or on PROFILE (efa0: two sub-CQs).
# Usage: cq.sh BUILD ours|stock [PROFILE]
. "$(dirname "$0")/lib.sh" "$1"
PROVIDER=$2 PROFILE=${3:-efa}
start_host --profile "$PROFILE"
sub_cqs=1
[ "$PROFILE" = efa0 ] && sub_cqs=2
CQ_SUB_CQS=$sub_cqs sx --provider "$PROVIDER" -- "$BUILD/bin/cq_verbs" ||
	fail "cq_verbs on the $PROVIDER provider"
expect_eq objects "$(status_field objects)" 0
echo ok
