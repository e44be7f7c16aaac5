#!/bin/bash
# Install what is missing, build, and run the whole test suite: once in a
# plain -Werror build, once with AddressSanitizer and UBSan; build with -O2
# and -Werror too, whose warnings only an optimising compiler sees, and run
# the unit tests and the verbs tests there; build against rdma-core 64 too
# (when its archive is there) and run its unit tests; then build and check
# the .deb and .rpm packages.
set -euo pipefail
. "$(dirname "$0")/scripts/common.sh"

install_packages "${PACKAGING_PACKAGES[@]}"
cd "$TOP"

echo "== build (build/)"
build build

# The tree against rdma-core 64 (tests/upstream builds it once, cached), for
# its unit tests and the abi-v64 test, which runs rdma-core 64's tools on
# this build's provider.
echo "== build against rdma-core 64 (build-v64/)"
rc=0
P=$(tests/upstream/build.sh rdma-core) || rc=$?
if [ "$rc" -eq 0 ]; then
	PKG_CONFIG_PATH=$P/rdma-core/lib/pkgconfig \
		build build-v64 -DCMAKE_PREFIX_PATH="$P/rdma-core"
	(cd build-v64 && ctest --output-on-failure -j"$(nproc)" -R '^unit-')
	export SEFA_BUILD_V64=$TOP/build-v64
elif [ "$rc" -eq 77 ]; then
	echo "== SKIPPED: no rdma-core 64 archive; abi-v64 skips too"
else
	exit "$rc"
fi
echo "== tests"
(cd build && ctest --output-on-failure -j"$(nproc)")

echo "== build with ASan/UBSan (build-asan/)"
build build-asan -DENABLE_SANITIZERS=ON
echo "== tests with ASan/UBSan"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 \
	ctest --output-on-failure -j"$(nproc)")

echo "== build with -O2 (build-o2/, CMAKE_BUILD_TYPE=RelWithDebInfo)"
build build-o2 -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== -O2: unit tests, device queries, data path, UD and RC"
(cd build-o2 && ctest --output-on-failure -j"$(nproc)" \
	-R '^(unit-|devinfo-|sysfs-|lifecycle$|dp-verbs-|udpingpong-|rc-)')

echo "== packages: .deb (dpkg-buildpackage, lintian, diversions) and .rpm"
tests/packaging/packages.sh build
echo "== all tests passed"
