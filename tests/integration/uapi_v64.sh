#!/bin/bash
# The current efa kernel uapi on SoftEFA, through rdma-core v64's own
# libibverbs and libefa (tests/upstream/build.sh): uapi_v64.c's 128-byte
# WQEs and inline RDMA writes with the data checked, an unsolicited write
# with immediate, max inline 64, a QP's service level, the port's speed,
# and WQEs that claim too much refused and named in softefad's log.
# Usage: uapi_v64.sh BUILD PROFILE
. "$(dirname "$0")/lib.sh" "$1"
PROFILE=$2
LOG=$RUN/softefad.log

set +e
P=$("$TOP/tests/upstream/build.sh" rdma-core)
rc=$?
set -e
if [ "$rc" -eq 77 ]; then
	echo "SKIP: no rdma-core v64 to test with (tests/upstream/build.sh" \
		"rdma-core exited 77)" >&2
	exit 77
fi
[ "$rc" -eq 0 ] || fail "tests/upstream/build.sh rdma-core: exit $rc"
V64=$P/rdma-core

# Built against v64 alone: its headers, libibverbs and libefa.
PKG_CONFIG_PATH=$V64/lib/pkgconfig
export PKG_CONFIG_PATH
# shellcheck disable=SC2046
cc -std=gnu11 -Wall -Wextra -Werror -o "$RUN/uapi_v64" \
	"$(dirname "$0")/uapi_v64.c" $(pkg-config --cflags --libs libefa libibverbs) \
	-Wl,-rpath,"$V64/lib" || fail "cannot build uapi_v64.c against $V64"

# v64 PROGRAM...: PROGRAM on the host with the shim alone preloaded, so
# that v64's libibverbs loads v64's own libefa plugin (softefa exec would
# preload a provider of its choosing).
v64() {
	SOFTEFA_RUN_DIR=$RUN SYSFS_PATH=$RUN/sys \
		LD_PRELOAD=$BUILD/lib/libsoftefa-preload.so \
		LD_LIBRARY_PATH=$V64/lib "$@"
}

start_host --profile "$PROFILE" --verbose
v64 "$V64/bin/ibv_devinfo" -d efa_0 >/dev/null || fail "v64 ibv_devinfo"
out=$(v64 "$RUN/uapi_v64" efa_0 2>&1) || fail "uapi_v64: $out"
echo "$out"
v() { echo "$out" | awk -v k="$1" '$1 == k { print $2 }'; }
# the libefa that ran is v64's, not ours nor Debian's
libs=$(LD_DEBUG=libs v64 "$V64/bin/ibv_devinfo" -d efa_0 2>&1 >/dev/null)
grep -q "calling init: $V64/lib/libibverbs/libefa-rdmav64.so" <<<"$libs" ||
	fail "v64's libefa was not loaded"
efas=$(echo "$libs" | grep "calling init: .*libefa" | grep -vc "$V64/lib/") || true
expect_eq "other libefa loaded" "$efas" 0

expect_eq inline_buf_size "$(v inline_buf_size)" 32
expect_eq inline_buf_size_ex "$(v inline_buf_size_ex)" 80
expect_eq unsolicited_cap "$(v unsolicited_cap)" 1
# 4X EDR: 100 Gb/s, in 100 Mb/s units, as sysfs rate says
expect_eq port_speed "$(v port_speed)" 1000
grep -q '^100 Gb/sec' "$RUN/sys/class/infiniband/efa_0/ports/1/rate" ||
	fail "sysfs rate: $(cat "$RUN/sys/class/infiniband/efa_0/ports/1/rate")"
expect_eq port_speed_2 "$(echo "$out" | sed -n 's/^port_speed_2 //p')" \
	"Invalid argument"
expect_eq sl_qp "$(v sl_qp)" ok
expect_eq wqe_sizes "$(echo "$out" | sed -n 's/^wqe_size //p')" \
	"inline_write 128 max_inline_64 128 plain 64"
expect_eq inline_writes "$(v inline_writes)" 80
expect_eq inline_send "$(v inline_send)" 64
expect_eq unsolicited_write_imm "$(v unsolicited_write_imm)" ok
expect_eq refused "$(echo "$out" | grep '^refused_wqe' | tr '\n' ' ')" \
	"refused_wqe 64 16 3 refused_wqe 128 81 6 "
expect_eq done "$(echo "$out" | tail -n1)" done

grep -q "refused a send WQE: inline RDMA write in a 64-byte WQE (completion status 3)" "$LOG" ||
	fail "no log line for the inline write in a 64-byte WQE: $(cat "$LOG")"
grep -q "refused a send WQE: inline RDMA write of 81 bytes (remote 81) in a 128-byte WQE (completion status 6)" "$LOG" ||
	fail "no log line for 81 inline bytes: $(cat "$LOG")"
grep -q "refused ioctl DEVICE/QUERY_PORT_SPEED: EINVAL (Invalid argument): port speed of port 2" "$LOG" ||
	fail "no log line for port 2's speed: $(cat "$LOG")"

# A CQ on external memory through v64's libefa (cq_ext_mem.c): a memfd
# in place of the dma-buf, traffic into it, and each refused buffer.
# shellcheck disable=SC2046
cc -std=gnu11 -Wall -Wextra -Werror -o "$RUN/cq_ext_mem" \
	"$(dirname "$0")/cq_ext_mem.c" $(pkg-config --cflags --libs libefa libibverbs) \
	-Wl,-rpath,"$V64/lib" || fail "cannot build cq_ext_mem.c against $V64"
out=$(v64 "$RUN/cq_ext_mem" efa_0 2>&1) || fail "cq_ext_mem: $out"
echo "$out"
"$(dirname "$0")/cq_ext_mem_check.sh" "$out" "$LOG" || fail "cq_ext_mem"
echo ok
