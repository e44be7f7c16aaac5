#!/bin/bash
# libfabric's efa provider on SoftEFA: fi_pingpong with its own data checks
# (-c) at every size (-S all), the traffic shown by the device's counters.
# Usage: libfabric.sh BUILD rdm|dgram SERVER_PROVIDER CLIENT_PROVIDER
#        [rdma-read|memhooks]
# With "rdma-read", the RDM run asks for the device's RDMA read
# (FI_EFA_USE_DEVICE_RDMA=1) and checks that the long messages used it.
# With "memhooks", libfabric's MR cache watches memory through its
# memhooks monitor, which patches mmap() into a bare system call: the
# device file must then map by itself, as a kernel's does.
. "$(dirname "$0")/lib.sh" "$1"
EP=$2 SP=$3 CP=$4 MODE=${5:-}
READ=
[ "$MODE" = rdma-read ] && READ=$MODE
PORT=$(pick_port)
command -v fi_pingpong >/dev/null || fail "libfabric-bin is not installed"
start_host

# One host: without this, libfabric sends to a peer with a local GID
# through its shm provider and the device sees nothing.
export FI_EFA_ENABLE_SHM_TRANSFER=0
if [ -n "$READ" ]; then
	export FI_EFA_USE_DEVICE_RDMA=1
	sizes=(-S 4194304)
else
	sizes=(-S all)
fi
if [ "$MODE" = memhooks ]; then
	export FI_MR_CACHE_MONITOR=memhooks FI_EFA_MR_CACHE_ENABLE=1
fi
SERVER_ARGS="-B $PORT" CLIENT_ARGS="-P $PORT" PAIR_TIMEOUT=240 \
	pair "$SP" "$CP" fi_pingpong -p efa -e "$EP" -c -I 20 "${sizes[@]}" ||
	fail "fi_pingpong -e $EP"

# The last size of the table reached both sides, and the check ran.
for side in server client; do
	out=$RUN/$side.out
	grep -Eq '^[0-9]+[kmg]? +20 +=20 ' "$out" || fail "$side: $(cat "$out")"
	grep -qi "error\\|fail" "$out" && fail "$side: $(cat "$out")"
done
if [ -z "$READ" ]; then
	last=$(awk '$2 == 20 { s = $1 } END { print s }' "$RUN/client.out")
	if [ "$EP" = rdm ]; then
		want=6m
	else
		want=8k
	fi
	expect_eq "largest size" "$last" "$want"
fi

tx=$(stat_field efa_0 tx_pkts)
[ "$tx" -gt 0 ] || fail "no packet crossed the device"
expect_only_rnr_errors efa_0
if [ -n "$READ" ]; then
	reads=$(stat_field efa_0 rdma_reads)
	[ "${reads:-0}" -gt 0 ] || fail "no RDMA read: $("$SOFTEFA" --run-dir "$RUN" stats)"
fi
echo "ok: $EP $SP/$CP ${MODE:-} ($tx packets)"
