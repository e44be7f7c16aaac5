#!/bin/bash
# Open MPI across two hosts over the wire: one rank on each, mpirun on
# host 1 starting the other through an rsh agent that enters host 2's
# namespace under its SoftEFA host; mpi_check's every byte checked, and
# the traffic counted on both wires.
# Usage: wire_mpi.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
. "$(dirname "$0")/hosts.sh"
command -v mpirun >/dev/null || fail "openmpi-bin is not installed"

hosts_up 2 --wire
agent=$RUN/rsh
{
	echo '#!/bin/sh'
	echo '# "host" ADDR is the host whose eth0 has it'
	echo 'host=$1; shift'
	echo 'case $host in'
	for i in 1 2; do
		echo "$(haddr "$i")) exec ip netns exec $(hns "$i") $SOFTEFA --run-dir $(hdir "$i") exec -- sh -c \"\$*\" ;;"
	done
	echo '*) echo "rsh: unknown host $host" >&2; exit 1 ;;'
	echo 'esac'
} >"$agent"
chmod +x "$agent"
printf "%s slots=1\n" "$(haddr 1)" "$(haddr 2)" >"$RUN/hostfile"

export FI_EFA_ENABLE_SHM_TRANSFER=0
out=$(cd "$RUN" && timeout -k 10 300 ip netns exec "$(hns 1)" "$SOFTEFA" \
	--run-dir "$(hdir 1)" exec -- mpirun --allow-run-as-root -np 2 \
	--hostfile "$RUN/hostfile" --mca plm_rsh_agent "$agent" \
	--mca oob_tcp_if_include eth0 --mca btl self \
	--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include efa \
	--mca osc pt2pt -x FI_EFA_ENABLE_SHM_TRANSFER \
	"$BUILD/bin/mpi_check" 2>&1) || fail "mpirun: $out"
for part in point-to-point collectives one-sided "ok: 2 ranks"; do
	grep -q "^$part" <<<"$out" || fail "no '$part' line: $out"
done
# about 2 x 3 x 2 MiB each way crossed the wire: sent, or read by the
# receiver (on 0xefa2 libfabric moves long messages by RDMA read)
for i in 1 2; do
	tx=$(($(hstat "$i" tx_bytes) + $(hstat "$i" rdma_read_bytes)))
	[ "$tx" -ge $((12 * 1024 * 1024)) ] ||
		fail "host $i sent and read only $tx bytes"
done
echo "$out"
echo "ok: Open MPI across two hosts, $(hstat 1 tx_bytes) and $(hstat 2 tx_bytes) bytes"
