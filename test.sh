#!/bin/bash
# Install what is missing, build, and run the whole test suite: once in a
# plain -Werror build, once with AddressSanitizer and UBSan; then build and
# check the .deb and .rpm packages.
set -euo pipefail
. "$(dirname "$0")/scripts/common.sh"

install_packages "${PACKAGING_PACKAGES[@]}"
cd "$TOP"

echo "== build (build/)"
build build
echo "== tests"
(cd build && ctest --output-on-failure -j"$(nproc)")

echo "== build with ASan/UBSan (build-asan/)"
build build-asan -DENABLE_SANITIZERS=ON
echo "== tests with ASan/UBSan"
(cd build-asan && ASAN_OPTIONS=detect_leaks=1 \
	ctest --output-on-failure -j"$(nproc)")

echo "== packages: .deb (dpkg-buildpackage, lintian, diversions) and .rpm"
tests/packaging/packages.sh build
echo "== all tests passed"
