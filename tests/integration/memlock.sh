#!/bin/bash
# What a process may make the device hold, through one provider
# (memlock_verbs): registrations against RLIMIT_MEMLOCK without
# CAP_IPC_LOCK, the limit ignored with it, and the daemon's caps on objects
# and queue memory per open device file.
# Usage: memlock.sh BUILD ours|stock
. "$(dirname "$0")/lib.sh" "$1"
PROVIDER=$2
MAX_OBJECTS=16
# below what 16 CQs of 256 entries take on one CQ ring: the cap on queue
# memory comes before the cap on objects
MAX_QUEUE=$((64 * 1024))
# 16 pages on 4 KiB ones; the tests want 5 to 60
LIMIT=$(($(getconf PAGESIZE) * 16))

# memlock MODE [WRAPPER...]: memlock_verbs in MODE under a memlock limit of
# LIMIT, run by WRAPPER (which may drop capabilities).
memlock() {
	local mode=$1
	shift
	MEMLOCK_MODE=$mode SEFA_CLI=$SOFTEFA SEFA_MAX_OBJECTS=$MAX_OBJECTS \
		SEFA_MAX_QUEUE=$MAX_QUEUE \
		prlimit --memlock="$LIMIT:$LIMIT" "$@" \
		"$SOFTEFA" --run-dir "$RUN" exec --provider "$PROVIDER" -- \
		"$BUILD/bin/memlock_verbs"
}

has_ipc_lock() {
	local eff

	eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)
	(( (0x$eff >> 14) & 1 ))
}

start_host --profile efa --max-objects "$MAX_OBJECTS" \
	--max-queue-mem "$MAX_QUEUE"
if has_ipc_lock; then
	memlock limited setpriv --inh-caps=-ipc_lock \
		--bounding-set=-ipc_lock || fail "without CAP_IPC_LOCK"
	memlock bypass || fail "with CAP_IPC_LOCK"
else
	memlock limited || fail "without CAP_IPC_LOCK"
	echo "no CAP_IPC_LOCK here: its bypass is not tested" >&2
fi
memlock caps || fail "object and queue memory caps"
expect_eq objects "$(status_field objects)" 0
echo ok
