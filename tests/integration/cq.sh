#!/bin/bash
# Completion queues driven by a provider: cq_verbs on the efa profile.
# Usage: cq.sh BUILD ours|stock
. "$(dirname "$0")/lib.sh" "$1"
PROVIDER=$2
start_host --profile efa
sx --provider "$PROVIDER" -- "$BUILD/bin/cq_verbs" ||
	fail "cq_verbs on the $PROVIDER provider"
expect_eq objects "$(status_field objects)" 0
echo ok
