#!/bin/bash
# Install what is missing, build, start a SoftEFA host, run real tools on it
# through our provider and through Debian's stock one (device queries and a
# ping-pong with one of each, libfabric's fi_pingpong and a short Open MPI
# run over libfabric's efa provider), and stop it again; then an InfiniBand-style
# host (the "extended" profile) for RC and the MAD tools; then, as root, two
# hosts in two network namespaces talking over the wire.
set -euo pipefail
. "$(dirname "$0")/scripts/common.sh"

install_packages
cd "$TOP"
echo "== building into build/"
build build

SOFTEFA=$TOP/build/bin/softefa
RUN=$(mktemp -d /tmp/softefa-demo.XXXXXX)
stop() {
	"$SOFTEFA" --run-dir "$RUN" stop >/dev/null 2>&1 || true
	rm -rf "$RUN"
}
trap stop EXIT

run() {
	echo
	echo "\$ $*"
	"$@"
}

echo "== starting a SoftEFA host with two devices in $RUN"
run "$SOFTEFA" --run-dir "$RUN" start --devices 2
run "$SOFTEFA" --run-dir "$RUN" status

echo
echo "== unmodified ibverbs-utils through our provider (libefa.so.1 from build/lib)"
run "$SOFTEFA" --run-dir "$RUN" exec -- ibv_devices
run "$SOFTEFA" --run-dir "$RUN" exec -- ibv_devinfo -d efa_0

echo
echo "== the same device through Debian's stock EFA provider"
run "$SOFTEFA" --run-dir "$RUN" exec --provider stock -- ibv_devinfo -d efa_1

echo
echo "== efadv_query_device() through our libefa.so.1"
run "$SOFTEFA" --run-dir "$RUN" exec -- "$TOP/build/bin/efadv_probe" efa_0

echo
echo "== ibv_ud_pingpong: our provider serves, the stock one is the client"
PORT=18600
"$SOFTEFA" --run-dir "$RUN" exec -- ibv_ud_pingpong -g 0 -c -p "$PORT" -n 500 \
	>"$RUN/server.out" 2>&1 &
wait_for 30 "the server to listen on TCP port $PORT" tcp_listens "$PORT"
run "$SOFTEFA" --run-dir "$RUN" exec --provider stock -- \
	ibv_ud_pingpong -g 0 -c -p "$PORT" -n 500 127.0.0.1
wait
echo "(server side:)"
tail -2 "$RUN/server.out"
run "$SOFTEFA" --run-dir "$RUN" stats

echo
echo "== libfabric's efa provider (RDM over SRD) through our provider:"
echo "   fi_pingpong with its data check, 64 B and 1 MiB"
# One host: keep libfabric's shm provider out of the way, so the traffic
# crosses the device.
export FI_EFA_ENABLE_SHM_TRANSFER=0
run "$SOFTEFA" --run-dir "$RUN" exec -- fi_info -p efa -t FI_EP_RDM
for size in 64 1048576; do
	"$SOFTEFA" --run-dir "$RUN" exec -- fi_pingpong -p efa -e rdm -c \
		-S "$size" -I 200 -B "$PORT" >"$RUN/server.out" 2>&1 &
	wait_for 30 "the server to listen on TCP port $PORT" \
		tcp_listens "$PORT"
	run "$SOFTEFA" --run-dir "$RUN" exec -- fi_pingpong -p efa -e rdm -c \
		-S "$size" -I 200 -P "$PORT" 127.0.0.1
	wait
done

echo
echo "== Open MPI over libfabric's efa provider (pml cm, mtl ofi), 2 ranks:"
echo "   point-to-point 1 B to 1 MiB, collectives, one-sided, every byte checked"
run "$SOFTEFA" --run-dir "$RUN" exec -- mpirun --allow-run-as-root \
	--oversubscribe -np 2 --mca pml cm --mca mtl ofi \
	--mca mtl_ofi_provider_include efa --mca osc pt2pt --mca btl self \
	-x FI_EFA_ENABLE_SHM_TRANSFER "$TOP/build/bin/mpi_check"
run "$SOFTEFA" --run-dir "$RUN" stats

echo
echo "== stopping the host"
run "$SOFTEFA" --run-dir "$RUN" stop

echo
echo "== an extended-profile host: RC, LIDs, and the kernel's MAD layer"
run "$SOFTEFA" --run-dir "$RUN" start --profile extended --devices 2
"$SOFTEFA" --run-dir "$RUN" exec -- ibv_rc_pingpong -p "$PORT" -n 200 \
	>"$RUN/server.out" 2>&1 &
wait_for 30 "the server to listen on TCP port $PORT" tcp_listens "$PORT"
run "$SOFTEFA" --run-dir "$RUN" exec -- \
	ibv_rc_pingpong -p "$PORT" -n 200 127.0.0.1
wait
run "$SOFTEFA" --run-dir "$RUN" exec -- ibstat efa_0
run "$SOFTEFA" --run-dir "$RUN" exec -- smpquery nodedesc 3
run "$SOFTEFA" --run-dir "$RUN" exec -- saquery -p --slid 2 --dlid 3
run "$SOFTEFA" --run-dir "$RUN" exec -- perfquery
run "$SOFTEFA" --run-dir "$RUN" stop

[ "$(id -u)" = 0 ] || exit 0
echo
echo "== two hosts in two network namespaces, joined by a veth pair, over the"
echo "   wire (RoCEv2 framing on UDP 4791, see softefa-wire(7))"
NS=softefa-demo-$$
hosts_stop() {
	local i

	for i in 1 2; do
		ip netns exec "$NS-$i" "$SOFTEFA" --run-dir "$RUN/h$i" stop \
			>/dev/null 2>&1 || true
		ip netns del "$NS-$i" 2>/dev/null || true
	done
	stop
}
trap hosts_stop EXIT
run ip netns add "$NS-1"
run ip netns add "$NS-2"
run ip link add eth0 netns "$NS-1" type veth peer name eth0 netns "$NS-2"
for i in 1 2; do
	run ip -n "$NS-$i" addr add "10.0.0.$i/24" dev eth0
	run ip -n "$NS-$i" link set eth0 up
	run ip netns exec "$NS-$i" "$SOFTEFA" --run-dir "$RUN/h$i" start \
		--wire --netdev eth0 --host-id "$i"
done
ip netns exec "$NS-1" "$SOFTEFA" --run-dir "$RUN/h1" exec -- \
	ibv_ud_pingpong -g 0 -c -p "$PORT" >"$RUN/server.out" 2>&1 &
wait_for 30 "the server to listen on TCP port $PORT in $NS-1" \
	tcp_listens "$PORT" "$NS-1"
run ip netns exec "$NS-2" "$SOFTEFA" --run-dir "$RUN/h2" exec -- \
	ibv_ud_pingpong -g 0 -c -p "$PORT" 10.0.0.1
wait
run ip netns exec "$NS-2" "$SOFTEFA" --run-dir "$RUN/h2" stats
