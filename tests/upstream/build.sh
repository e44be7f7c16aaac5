#!/bin/bash
# build.sh [rdma-core|pyverbs|libfabric|fabtests|efa-unit|all]: build the
# current upstream EFA stack (rdma-core v64, libfabric 2.x, fabtests,
# libfabric's EFA unit test) from the source archives in $SEFA_UPSTREAM_DIR
# (by default ../shared/upstream beside the checkout) once, and print the
# prefix it is installed in.
#
# The result is cached outside the checkout, in $SEFA_UPSTREAM_CACHE
# (/var/cache/softefa-upstream), under the archives' checksums: a new archive
# builds anew, a second checkout reuses the first one's build.  A lock keeps
# two tests from building at once.  Exit 77 (skip) when the archives are
# absent, saying where they were looked for.
#
# Prints on stdout one line: the prefix P, with P/rdma-core (libibverbs,
# libefa, their tools, pkg-config files), P/libfabric (libfabric and
# fabtests) and P/efa-unit/efa_unit_test, libfabric's EFA unit test
# (cmocka), built apart: configured for it, libfabric has test hooks and
# wrapped calls in it, and must not replace P/libfabric.  The build's own
# output goes to P/*.log.
# pyverbs adds rdma-core's python bindings and test suite to its build
# tree: P/src/rdma-core/build then holds bin/run_tests.py and
# python/pyverbs, for /usr/bin/python3.  all builds every step.
set -euo pipefail
. "$(dirname "$0")/../../scripts/common.sh"

want=${1:-all}
SRC=${SEFA_UPSTREAM_DIR:-$TOP/../shared/upstream}
CACHE=${SEFA_UPSTREAM_CACHE:-/var/cache/softefa-upstream}
RDMA=rdma-core-64.0.tar.xz
FABRIC=libfabric-2.6.0.tar.xz

case $want in
rdma-core | pyverbs | libfabric | fabtests | efa-unit | all) ;;
*)
	echo "usage: $0 [rdma-core|pyverbs|libfabric|fabtests|efa-unit|all]" >&2
	exit 2
	;;
esac
for f in "$RDMA" "$FABRIC"; do
	if [ ! -r "$SRC/$f" ]; then
		echo "SKIP: no $SRC/$f (set SEFA_UPSTREAM_DIR to the folder" \
			"with the upstream archives)" >&2
		exit 77
	fi
done

install_packages "${UPSTREAM_PACKAGES[@]}" >&2

sum() { sha256sum "$SRC/$1" | cut -c1-16; }
P=$CACHE/$(sum "$RDMA")-$(sum "$FABRIC")
mkdir -p "$P"
exec 9>"$P/.lock"
# one build at a time; a cold build of the first three takes about 8
# minutes on 2 cores, and much longer on a loaded machine; the EFA unit
# test's own libfabric about 4.5 more (12.5 on a loaded machine)
if ! timeout 3600 flock 9; then
	echo "another build of $P held its lock for an hour" >&2
	exit 1
fi

# step NAME CMD...: run the build step NAME once; its log in $P/NAME.log
step() {
	local name=$1
	shift
	[ -e "$P/.$name.done" ] && return 0
	echo "== building upstream $name into $P (log: $P/$name.log)" >&2
	if ! "$@" >"$P/$name.log" 2>&1; then
		echo "building upstream $name failed; the end of $P/$name.log:" >&2
		tail -20 "$P/$name.log" >&2
		exit 1
	fi
	touch "$P/.$name.done"
}

unpack() {
	local dir=$P/src/$2
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$SRC/$1" -C "$dir" --strip-components=1
}

build_rdma_core() {
	unpack "$RDMA" rdma-core
	cmake -S "$P/src/rdma-core" -B "$P/src/rdma-core/build" \
		-DNO_PYVERBS=1 -DNO_MAN_PAGES=1 \
		-DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_INSTALL_PREFIX="$P/rdma-core" &&
		cmake --build "$P/src/rdma-core/build" -j"$(nproc)" &&
		cmake --install "$P/src/rdma-core/build"
}

# pyverbs in the rdma-core build tree, configured again with it, building
# its targets alone: the libraries they link are built already and stay as
# they are, and nothing is installed, so $P/rdma-core does not change for
# the other users.  Debian's cython3 is built for /usr/bin/python3, which
# is named, as another python3 may come first on PATH.
build_pyverbs() {
	local b=$P/src/rdma-core/build start=$SECONDS

	cmake -S "$P/src/rdma-core" -B "$b" -DNO_PYVERBS=0 \
		-DPYTHON_EXECUTABLE=/usr/bin/python3 || return
	[ -e "$b/pyverbs/Makefile" ] || {
		echo "cmake found no cython for pyverbs" >&2
		return 1
	}
	make -C "$b/pyverbs" -j"$(nproc)" || return
	echo "pyverbs built in $((SECONDS - start)) s"
}

# Each step's commands are chained: step() runs them inside an if, where
# set -e does not act, and a failure in the middle must fail the step.
build_libfabric() {
	unpack "$FABRIC" libfabric
	cd "$P/src/libfabric" &&
		./autogen.sh &&
		./configure --prefix="$P/libfabric" \
			--enable-efa="$P/rdma-core" --enable-shm \
			--disable-verbs --disable-psm3 --disable-psm2 \
			--disable-usnic --disable-opx --disable-cxi \
			--disable-ucx --disable-lpp --disable-static &&
		make -j"$(nproc)" install
}

build_fabtests() {
	cd "$P/src/libfabric/fabtests" &&
		./autogen.sh &&
		./configure --prefix="$P/libfabric" \
			--with-libfabric="$P/libfabric" &&
		make -j"$(nproc)" install
}

# The unit test alone, libfabric linked into it statically (no libtool
# wrapper, nothing to install) with the efa and shm providers only: the
# rest of libfabric's providers are not what it tests.  configure makes
# "-R" with no directory of cmocka in a system directory, which libtool
# refuses: cmocka_rpath is emptied.
build_efa_unit() {
	local start=$SECONDS

	unpack "$FABRIC" libfabric-unit
	cd "$P/src/libfabric-unit" &&
		./autogen.sh &&
		./configure --enable-efa="$P/rdma-core" \
			--enable-efa-unit-test=/usr --enable-shm \
			--disable-shared --enable-static \
			--disable-verbs --disable-psm3 --disable-psm2 \
			--disable-usnic --disable-opx --disable-cxi \
			--disable-ucx --disable-lpp --disable-sockets \
			--disable-udp --disable-tcp --disable-rxm \
			--disable-mrail --disable-rxd --disable-sm2 \
			--disable-lnx --disable-perf --disable-trace \
			--disable-profile --disable-monitor \
			--disable-hook_debug --disable-hook_hmem \
			--disable-dmabuf_peer_mem &&
		make -j"$(nproc)" cmocka_rpath= prov/efa/test/efa_unit_test &&
		mkdir -p "$P/efa-unit" &&
		cp prov/efa/test/efa_unit_test "$P/efa-unit/" || return 1
	echo "efa-unit built in $((SECONDS - start)) s"
}

# The fabtests that call efadv themselves (fi_efa_rdma_checker, which the
# pytest suite asks whether the device does RDMA read and write, and
# fi_efa_hw_cntr): fabtests' configure builds them only where it finds
# libibverbs' headers, which rdma-core v64 has under its own prefix.  Only
# these two are built, in a copy of the tree configured to see them.
build_fabtests_efadv() {
	local dir=$P/src/fabtests-efadv rc=$P/rdma-core

	rm -rf "$dir" &&
		cp -a "$P/src/libfabric/fabtests" "$dir" &&
		cd "$dir" &&
		make distclean &&
		./configure --prefix="$P/libfabric" \
			--with-libfabric="$P/libfabric" \
			CPPFLAGS="-I$rc/include" \
			LDFLAGS="-L$rc/lib -Wl,-rpath,$rc/lib" &&
		make -j"$(nproc)" prov/efa/src/fi_efa_rdma_checker \
			prov/efa/src/fi_efa_hw_cntr &&
		./libtool --mode=install install \
			prov/efa/src/fi_efa_rdma_checker \
			prov/efa/src/fi_efa_hw_cntr "$P/libfabric/bin"
}

step rdma-core build_rdma_core
case $want in
rdma-core) ;;
pyverbs) step pyverbs build_pyverbs ;;
efa-unit) step efa-unit build_efa_unit ;;
*)
	step libfabric build_libfabric
	if [ "$want" != libfabric ]; then
		step fabtests build_fabtests
		step fabtests-efadv build_fabtests_efadv
	fi
	if [ "$want" = all ]; then
		step efa-unit build_efa_unit
		step pyverbs build_pyverbs
	fi
	;;
esac
echo "$P"
