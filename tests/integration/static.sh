#!/bin/bash
# libefa.a: programs linked statically against it and Debian's libibverbs.a
# register our provider and open a SoftEFA device with it.
# Usage: static.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
SRC=$(cd "$(dirname "$0")" && pwd)
start_host

# What libibverbs.a needs, libefa.a first: -L puts ours before the stock
# libefa.a that libibverbs.pc names too.
libs="-L$BUILD/lib -lefa $(pkg-config --static --libs-only-l libibverbs)"

# link NAME CC_ARGS...: static_probe.c built as $RUN/NAME
link() {
	local name=$1
	shift
	# shellcheck disable=SC2086
	cc -Wall -Werror -I"$SRC/../../include" -o "$RUN/$name" \
		"$SRC/static_probe.c" "$@" 2>"$RUN/$name.log" ||
		fail "linking $name: $(cat "$RUN/$name.log")"
	# a symbol the stock libefa.a of rdma-core 44 lacks
	grep -q " T efadv_query_mr$" < <(nm "$RUN/$name") ||
		fail "$name holds no libefa.a of ours"
}

# probe NAME PROVIDER: NAME opens efa_0 with the provider in it, whatever
# softefa exec preloads for others.
probe() {
	local out

	out=$(VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=/dev/stderr \
		sx --provider "$2" -- "$RUN/$1" efa_0 2>&1) || fail "$1: $out"
	grep -q "^opened efa_0$" <<<"$out" || fail "$1: $out"
	grep -q "efa_alloc_context: sub_cqs" <<<"$out" ||
		fail "$1 did not run on our provider: $out"
}

# As static as SoftEFA can run: all but the C library, since its preload
# shim reaches a program through the dynamic loader.
# shellcheck disable=SC2086
link efadv -Wl,-Bstatic $libs -Wl,-Bdynamic
needed=$(objdump -p "$RUN/efadv" | awk '$1 == "NEEDED" { print $2 }')
! grep -Eq "libefa|libibverbs|libnl" <<<"$needed" ||
	fail "efadv links dynamically: $needed"
for p in ours stock; do
	probe efadv "$p"
done
expect_eq max_sq_wr \
	"$(sx -- "$RUN/efadv" efa_0 | awk '$1 == "max_sq_wr" { print $2 }')" 4096

# rdma-core's way to name a provider with no call into it.
# shellcheck disable=SC2086
link named -DRDMA_STATIC_PROVIDERS=efa -Wl,-Bstatic $libs -Wl,-Bdynamic
probe named ours

# Entirely static, it links as well (glibc warns of what libnl-3 resolves
# through NSS), but SoftEFA cannot serve it: no loader, no preload shim.
# shellcheck disable=SC2086
link full -static $libs
[ -z "$(objdump -p "$RUN/full" | awk '$1 == "NEEDED"')" ] ||
	fail "full is not static"

expect_eq contexts "$(status_field contexts)" 0
echo ok
