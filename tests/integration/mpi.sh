#!/bin/bash
# Open MPI over libfabric's efa provider on SoftEFA, as EFA users run it
# (pml cm, mtl ofi, efa only): point-to-point from 1 byte to 1 MiB,
# collectives and one-sided operations, every byte checked by mpi_check;
# the device's counters show the traffic crossed it.
# Usage: mpi.sh BUILD NRANKS
. "$(dirname "$0")/lib.sh" "$1"
NP=$2
command -v mpirun >/dev/null || fail "openmpi-bin is not installed"
start_host

# One host: keep libfabric's shm provider out of the way (see
# libfabric.sh); osc pt2pt carries one-sided operations over the MTL,
# where osc sm would use shared memory.
export FI_EFA_ENABLE_SHM_TRANSFER=0
out=$(timeout -k 10 300 "$SOFTEFA" --run-dir "$RUN" exec -- \
	mpirun --allow-run-as-root --oversubscribe -np "$NP" \
	--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include efa \
	--mca osc pt2pt --mca btl self -x FI_EFA_ENABLE_SHM_TRANSFER \
	"$BUILD/bin/mpi_check" 2>&1) || fail "mpirun: $out"
for part in point-to-point collectives one-sided "ok: $NP ranks"; do
	grep -q "^$part" <<<"$out" || fail "no '$part' line: $out"
done

# Each rank sent at least two copies of every point-to-point size (about
# 2 x 3 x 2 MiB) through the device: sent, or read by the receiver (on
# 0xefa2 libfabric moves long messages by RDMA read).
tx=$(($(stat_field efa_0 tx_bytes) + $(stat_field efa_0 rdma_read_bytes)))
[ "$tx" -ge $((NP * 12 * 1024 * 1024)) ] ||
	fail "only $tx bytes crossed the device"
expect_only_rnr_errors efa_0
echo "$out"
echo "ok: $NP ranks, $tx bytes through efa_0"
