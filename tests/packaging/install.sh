#!/bin/bash
# "cmake --install" into a DESTDIR, then a SoftEFA host run entirely from
# that copy: the installed softefa, softefad, preload shim and provider,
# and a program built against the installed headers and libefa.pc.
# Nothing of the build tree may be loaded.
# Usage: install.sh BUILD BINDIR LIBDIR INCLUDEDIR MANDIR SYSCONFDIR PLUGIN
# (the configured absolute install directories, and the plugin's name for
# the libibverbs built against: libefa-rdmav34.so or libefa-rdmav64.so)
. "$(dirname "$0")/../integration/lib.sh" "$1"
BINDIR=$2 LIBDIR=$3 INCLUDEDIR=$4 MANDIR=$5 SYSCONFDIR=$6 PLUGIN=$7

ROOT=$RUN/root
out=$(DESTDIR=$ROOT cmake --install "$BUILD" 2>&1) ||
	fail "cmake --install: $out"
# From here on lib.sh's helpers (and its cleanup) use the installed copy.
SOFTEFA=$ROOT$BINDIR/softefa
LIB=$ROOT$LIBDIR
MAN=$ROOT$MANDIR

for f in "$SOFTEFA" "$ROOT$BINDIR/softefad" \
	"$LIB/softefa/libsoftefa-preload.so" \
	"$LIB/libefa.so" "$LIB/libefa.a" "$LIB/pkgconfig/libefa.pc" \
	"$ROOT$INCLUDEDIR/infiniband/efadv.h" \
	"$MAN/man7/efadv.7" "$MAN/man8/softefa.8" "$MAN/man8/softefad.8"; do
	[ -e "$f" ] || fail "not installed: $f"
done

# libefa.so.1 and the plugin are one file; the .driver names the plugin.
real=$(readlink -f "$LIB/libefa.so.1")
[ -f "$real" ] || fail "libefa.so.1 does not resolve: $real"
expect_eq "soname" "$(objdump -p "$real" | awk '$1 == "SONAME" { print $2 }')" \
	libefa.so.1
expect_eq "plugin" "$(readlink -f "$LIB/libibverbs/$PLUGIN")" "$real"
expect_eq "dev link" "$(readlink -f "$LIB/libefa.so")" "$real"
driver=$(awk '$1 == "driver" { print $2 }' \
	"$ROOT$SYSCONFDIR/libibverbs.d/efa-softefa.driver")
expect_eq "efa-softefa.driver" "$driver" "$LIBDIR/libibverbs/libefa"

# A manual page for every symbol the installed library exports.
for sym in $(nm -D --defined-only "$real" |
	     awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }'); do
	[ -f "$MAN/man3/$sym.3" ] || fail "no installed page for $sym"
done

# A program built the way a user of the package builds one.
cat >"$RUN/probe.c" <<'EOF'
#include <stdio.h>
#include <infiniband/efadv.h>

int main(void)
{
	struct efadv_device_attr attr = {};
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;

	if (!list || !list[0] || !(ctx = ibv_open_device(list[0])))
		return 1;
	if (efadv_query_device(ctx, &attr, sizeof(attr)))
		return 2;
	printf("max_sq_wr %u\n", attr.max_sq_wr);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
EOF
export PKG_CONFIG_PATH=$LIB/pkgconfig PKG_CONFIG_SYSROOT_DIR=$ROOT
flags=$(pkg-config --cflags --libs libefa libibverbs) ||
	fail "pkg-config libefa"
grep -q -- "-L$LIB" <<<"$flags" || fail "pkg-config found another libefa: $flags"
# shellcheck disable=SC2086
cc -o "$RUN/probe" "$RUN/probe.c" $flags || fail "building against the install"
# Static but for the C library, with what libefa.pc says a static link
# needs (efadv(7), STATIC LINKING).
flags=$(pkg-config --static --cflags --libs libefa) ||
	fail "pkg-config --static libefa"
# shellcheck disable=SC2086
cc -o "$RUN/probe-static" "$RUN/probe.c" -Wl,-Bstatic $flags -Wl,-Bdynamic ||
	fail "building statically against the install"
grep -q " T efadv_query_mr$" < <(nm "$RUN/probe-static") ||
	fail "the static probe holds no libefa.a of ours"

start_host --devices 1

env=$(sx -- env)
expect_eq LD_PRELOAD \
	"$(sed -n 's/^LD_PRELOAD=//p' <<<"$env" | cut -d: -f1-2)" \
	"$LIB/softefa/libsoftefa-preload.so:$real"

# The loader names each object it initialises; ours logs its context.
traced() {
	LD_DEBUG=libs VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=/dev/stderr \
		sx -- "$@" 2>"$RUN/trace" >"$RUN/out" ||
		fail "$*: $(cat "$RUN/out" "$RUN/trace")"
	grep -q "efa_alloc_context: sub_cqs" "$RUN/trace" ||
		fail "$* did not run on our provider"
	! grep -q "$BUILD" "$RUN/trace" ||
		fail "$* loaded from the build tree: $(grep "$BUILD" "$RUN/trace")"
}

traced ibv_devinfo -d efa_0
grep -q "calling init: $real" "$RUN/trace" ||
	fail "the installed libefa was not loaded"
expect_eq vendor_id "$(devinfo_field vendor_id <"$RUN/out")" 0x1d0f
expect_eq state "$(devinfo_field state <"$RUN/out")" "PORT_ACTIVE (4)"

traced "$RUN/probe"
grep -q "calling init: $real" "$RUN/trace" ||
	fail "the program did not bind to the installed libefa.so.1"
expect_eq max_sq_wr "$(awk '$1 == "max_sq_wr" { print $2 }' "$RUN/out")" 4096
traced "$RUN/probe-static"
expect_eq max_sq_wr "$(awk '$1 == "max_sq_wr" { print $2 }' "$RUN/out")" 4096

# The installed softefa still runs Debian's provider on request.
check_provider stock ibv_devinfo

expect_eq contexts "$(status_field contexts)" 0
echo "ok: installed into $ROOT"
