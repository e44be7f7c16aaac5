#!/bin/bash
# A program built against rdma-core v64's efadv.h and libefa (upstream's
# symbol versions EFA_1.0 to EFA_1.6) runs against our libefa.so.1 with
# every symbol bound at start.  Skips (77) without the upstream archives.
. "$(dirname "$0")/lib.sh" "$1"
P=$("$TOP/tests/upstream/build.sh" rdma-core)
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -eq 0 ] || fail "upstream rdma-core build: $rc"
R=$P/rdma-core
exe=$RUN/efadv_abi
cc -std=c11 -Wall -Wextra -Werror -I"$R/include" \
	-o "$exe" "$TOP/tests/integration/efadv_abi.c" \
	-L"$R/lib" -Wl,-rpath-link,"$R/lib" -lefa ||
	fail "build against v64's headers"
for v in EFA_1.4 EFA_1.5 EFA_1.6; do
	objdump -T "$exe" | grep "($v)" >/dev/null ||
		fail "the program asks for no $v symbol"
done
ours=$BUILD/lib/libefa.so.1
for v in EFA_1.4 EFA_1.5 EFA_1.6 EFA_1.7; do
	n=$(objdump -T "$ours" | grep -c " $v  *efadv_")
	[ "$n" -ge 1 ] || fail "our libefa.so.1 exports nothing at $v"
done
out=$(LD_BIND_NOW=1 LD_LIBRARY_PATH=$BUILD/lib "$exe" 2>&1) ||
	fail "against our libefa.so.1: $out"
expect_eq resolved "$out" "resolved 12"
# and it was ours that it bound to
LD_LIBRARY_PATH=$BUILD/lib ldd "$exe" | grep "$BUILD/lib/libefa.so.1" >/dev/null ||
	fail "not bound to $BUILD/lib/libefa.so.1"
echo ok
