#!/bin/bash
# Install what is missing, build, start a SoftEFA host, run real tools on it
# through our provider and through Debian's stock one, and stop it again.
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
echo "== stopping the host"
run "$SOFTEFA" --run-dir "$RUN" stop
