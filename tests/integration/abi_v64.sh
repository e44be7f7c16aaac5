#!/bin/bash
# Our provider built against rdma-core 64 (private ABI 64), run on SoftEFA
# by rdma-core 64's own libibverbs and tools: ibv_devinfo -v through ours
# and through rdma-core 64's libefa, ibv_ud_pingpong -c (ours with ours,
# ours with theirs), our data-path tests, RC with ibv_rc_pingpong -c on
# the extended profile, efadv (inline RDMA writes, ibv_query_port_speed);
# then softefa exec --provider ours|stock|PATH and
# the values it refuses, and a provider of the wrong ABI refused loudly.
#
# rdma-core 64 comes from tests/upstream/build.sh (cached; exit 77 when its
# archive is absent).  The tree built against it is BUILD when that is one,
# else SEFA_BUILD_V64 (test.sh builds build-v64), else BUILD/v64,
# configured and built here.
# Usage: abi_v64.sh BUILD
T=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$T/../.." && pwd)

rc=0
P=$("$TOP/tests/upstream/build.sh" rdma-core) || rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP (77), NOT RUN: no rdma-core 64 archive (see above), so our" \
		"provider was neither built nor tested against libibverbs 64" >&2
	exit 77
fi
[ "$rc" -eq 0 ] || { echo "FAIL: building rdma-core 64 failed" >&2; exit 1; }
R=$P/rdma-core

. "$T/lib.sh" "$1"
SOFTEFA34=$SOFTEFA

# BUILD itself when it was built against rdma-core 64
V64=${SEFA_BUILD_V64:-$BUILD/v64}
# (the symbol versions it needs, whole: grep -q would cut objdump short)
needs() {
	objdump -T "$1" | awk 'NF >= 2 { print $(NF - 1), $NF }'
}
grep -q "IBVERBS_PRIVATE_64" <<<"$(needs "$BUILD/lib/libefa.so.1")" &&
	V64=$BUILD
if [ "$V64" = "$BUILD/v64" ]; then
	echo "== building this tree against rdma-core 64 in $V64"
	PKG_CONFIG_PATH=$R/lib/pkgconfig cmake -S "$TOP" -B "$V64" \
		-DCMAKE_PREFIX_PATH="$R" -DENABLE_WERROR=ON >"$RUN/cmake.log" 2>&1 ||
		fail "configure against rdma-core 64: $(tail -20 "$RUN/cmake.log")"
	nice cmake --build "$V64" -j"$(nproc)" --target efa softefa softefad \
		softefa-preload dp_verbs rc_verbs efadv_probe efadv_verbs \
		cq_ext_mem >"$RUN/build.log" 2>&1 ||
		fail "build against rdma-core 64: $(tail -30 "$RUN/build.log")"
fi

# What the build declared: ABI 64, in the library and the plugin's name.
ours64=$(readlink -f "$V64/lib/libefa.so.1")
syms=$(needs "$ours64")
grep -q "(IBVERBS_PRIVATE_64) verbs_register_driver_64" <<<"$syms" ||
	fail "$ours64 does not register through IBVERBS_PRIVATE_64: $syms"
! grep -q IBVERBS_PRIVATE_34 <<<"$syms" ||
	fail "$ours64 still needs IBVERBS_PRIVATE_34"
expect_eq "plugin" "$(readlink -f "$V64/lib/libefa-rdmav64.so")" "$ours64"
[ ! -e "$V64/lib/libefa-rdmav34.so" ] || fail "a v34 plugin in $V64/lib"

# rdma-core 64's libibverbs and tools for every program from here on
export LD_LIBRARY_PATH=$R/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export PATH=$R/bin:$PATH
theirs64=$(readlink -f "$R/lib/libefa.so.1")

# The existing tests, on the v64 build: each starts its own host, checks
# its data and the device's counters (softefa stats), and says "ok".
sub() {
	local out

	out=$("$T/$1" "$V64" "${@:2}" 2>&1) || fail "$*: $out"
	echo "$*: $(tail -1 <<<"$out")"
}
sub devinfo.sh efa ioctl ours
sub devinfo.sh extended ioctl ours
sub devinfo.sh efa write stock
sub udpingpong.sh efa ioctl ours ours
sub udpingpong.sh efa ioctl ours stock
sub dp.sh efa ioctl
sub rc.sh ioctl
# efadv, 128-byte WQEs with inline RDMA writes checked, port speed
sub efadv.sh efa
sub cq_ext_mem.sh efa
sub cq_ext_mem.sh efa0

start_host
# our v64 build's softefa: ours is our v64 library, stock is rdma-core's;
# the loader's list of what ibv_devinfo gets under exec
SOFTEFA=$V64/bin/softefa
libs=$(sefa exec --provider ours -- env LD_TRACE_LOADED_OBJECTS=1 \
	"$R/bin/ibv_devinfo") || fail "ldd under exec: $libs"
grep -q "libibverbs.so.1 => $R/lib/libibverbs.so.1 " <<<"$libs" ||
	fail "not rdma-core 64's libibverbs: $libs"
grep -q "$ours64" <<<"$libs" || fail "not our v64 libefa: $libs"
check_provider ours ibv_devinfo -v
check_provider stock ibv_devinfo -v
out=$(sefa exec --provider stock -- env LD_TRACE_LOADED_OBJECTS=1 ibv_devinfo)
grep -q "$theirs64" <<<"$out" || fail "stock is not rdma-core 64's: $out"

# --provider PATH from the v34 build's softefa: either v64 library
SOFTEFA=$SOFTEFA34
out=$(VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=/dev/stderr \
	sefa exec --provider "$V64/lib/libefa.so.1" -- ibv_devinfo 2>&1) ||
	fail "--provider PATH (ours v64): $out"
grep -q "efa_alloc_context: sub_cqs" <<<"$out" ||
	fail "--provider $V64/lib/libefa.so.1 did not run ours: $out"
grep -q "hca_id:.efa_0" <<<"$out" || fail "no device: $out"
out=$(VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=/dev/stderr \
	sefa exec --provider "$R/lib/libefa.so.1" -- ibv_devinfo 2>&1) ||
	fail "--provider PATH (rdma-core 64's): $out"
! grep -q "efa_alloc_context" <<<"$out" ||
	fail "--provider $R/lib/libefa.so.1 ran ours: $out"
grep -q "hca_id:.efa_0" <<<"$out" || fail "no device: $out"

# The v34 provider under libibverbs 64: the loader refuses, by name.
if grep -q IBVERBS_PRIVATE_34 <<<"$(needs "$BUILD/lib/libefa.so.1")"; then
	out=$(sefa exec --provider ours -- ibv_devinfo 2>&1) &&
		fail "a v34 provider ran under libibverbs 64: $out"
	grep -q "IBVERBS_PRIVATE_34" <<<"$out" ||
		fail "no word of the ABI: $out"
fi

# Bad values: exit 2, a message naming the value, nothing run.
bad() {
	local out rc=0

	out=$(sefa exec --provider "$1" -- touch "$RUN/ran" 2>&1) || rc=$?
	expect_eq "exit status of --provider $1" "$rc" 2
	grep -qF -- "$2" <<<"$out" || fail "--provider $1 said: $out"
	[ ! -e "$RUN/ran" ] || fail "--provider $1 ran the program"
}
bad bogus "unknown provider 'bogus'"
bad "$RUN/none/libefa.so.1" "provider $RUN/none/libefa.so.1: No such file"
bad /etc/hostname "provider /etc/hostname: not a shared library"
bad "" "unknown provider ''"
expect_eq contexts "$(status_field contexts)" 0
echo "ok: our provider on libibverbs 64 ($R)"
