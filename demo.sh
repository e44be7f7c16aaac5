#!/bin/bash
# Install what is missing, build, start a SoftEFA host, run real tools on it
# through our provider and through Debian's stock one (device queries and a
# ping-pong with one of each), and stop it again; then an InfiniBand-style
# host (the "extended" profile) for RC and the MAD tools.
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
"$SOFTEFA" --run-dir "$RUN" exec -- ibv_ud_pingpong -g 0 -p "$PORT" -n 500 \
	>"$RUN/server.out" 2>&1 &
for _ in $(seq 100); do
	[ -n "$(ss -Hltn "sport = :$PORT")" ] && break
	sleep 0.05
done
run "$SOFTEFA" --run-dir "$RUN" exec --provider stock -- \
	ibv_ud_pingpong -g 0 -p "$PORT" -n 500 127.0.0.1
wait
echo "(server side:)"
tail -2 "$RUN/server.out"
run "$SOFTEFA" --run-dir "$RUN" stats

echo
echo "== stopping the host"
run "$SOFTEFA" --run-dir "$RUN" stop

echo
echo "== an extended-profile host: RC, LIDs, and the kernel's MAD layer"
run "$SOFTEFA" --run-dir "$RUN" start --profile extended --devices 2
"$SOFTEFA" --run-dir "$RUN" exec -- ibv_rc_pingpong -p "$PORT" -n 200 \
	>"$RUN/server.out" 2>&1 &
for _ in $(seq 100); do
	[ -n "$(ss -Hltn "sport = :$PORT")" ] && break
	sleep 0.05
done
run "$SOFTEFA" --run-dir "$RUN" exec -- \
	ibv_rc_pingpong -p "$PORT" -n 200 127.0.0.1
wait
run "$SOFTEFA" --run-dir "$RUN" exec -- ibstat efa_0
run "$SOFTEFA" --run-dir "$RUN" exec -- smpquery nodedesc 3
run "$SOFTEFA" --run-dir "$RUN" exec -- saquery -p --slid 2 --dlid 3
run "$SOFTEFA" --run-dir "$RUN" exec -- perfquery
run "$SOFTEFA" --run-dir "$RUN" stop
