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

# The current upstream stack, rdma-core 64, libfabric 2.6 and fabtests,
# built once and cached outside the tree (about 8 minutes the first time on
# 2 cores), for the upstream tests; and this tree against rdma-core 64, for
# its unit tests and the abi-v64 test, which runs rdma-core 64's tools on
# this build's provider.
echo "== the upstream stack (tests/upstream/build.sh), and build-v64/"
rc=0
P=$(tests/upstream/build.sh all) || rc=$?
if [ "$rc" -eq 0 ]; then
	PKG_CONFIG_PATH=$P/rdma-core/lib/pkgconfig \
		build build-v64 -DCMAKE_PREFIX_PATH="$P/rdma-core"
	(cd build-v64 && ctest --output-on-failure -j"$(nproc)" -R '^unit-')
	export SEFA_BUILD_V64=$TOP/build-v64
elif [ "$rc" -eq 77 ]; then
	echo "== SKIPPED: no upstream archives; the upstream tests skip too"
else
	exit "$rc"
fi
echo "== tests"
(cd build && ctest --output-on-failure -j"$(nproc)")

echo "== build with ASan/UBSan (build-asan/)"
build build-asan -DENABLE_SANITIZERS=ON
echo "== tests with ASan/UBSan"
# libfabric 2.6's fabtests, the five generations and the README's CI
# recipe (which builds and installs a SoftEFA of its own) once, in the
# plain build: minutes that would show the sanitizers nothing new
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 \
	ctest --output-on-failure -j"$(nproc)" \
	-E '^(upstream-(fabtests|generation)-|readme-ci-recipe$)')

echo "== build with -O2 (build-o2/, CMAKE_BUILD_TYPE=RelWithDebInfo)"
build build-o2 -DCMAKE_BUILD_TYPE=RelWithDebInfo
echo "== -O2: unit tests, device queries, data path, UD and RC"
(cd build-o2 && ctest --output-on-failure -j"$(nproc)" \
	-R '^(unit-|devinfo-|sysfs-|lifecycle$|dp-verbs-|udpingpong-|rc-)')

echo "== packages: .deb (dpkg-buildpackage, lintian, diversions) and .rpm"
tests/packaging/packages.sh build
echo "== all tests passed"
