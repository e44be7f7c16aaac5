#!/bin/bash
# One libefa per process under "softefa exec", and the provider's: read
# from the mappings of running programs that link libefa.so.1 (perftest
# from Debian's, efadv_probe from the build tree's by its RUNPATH) or do
# not (ibv_ud_pingpong, for which libibverbs would load the plugins
# /etc/libibverbs.d names), also under an outer exec of the other provider.
# Usage: one_libefa.sh BUILD PROVIDER PABI (libibverbs' private ABI, 34|64)
. "$(dirname "$0")/lib.sh" "$1"
P=$2 PABI=$3
PORT=$(pick_port)
command -v ib_send_bw >/dev/null || fail "perftest is not installed"
start_host

# The one libefa: ours from the build tree, or Debian's, whose plugin our
# package diverts when it is installed.
if [ "$P" = ours ]; then
	other=stock
	want=$(readlink -f "$BUILD/lib/libefa.so.1")
else
	other=ours
	plugins=$(pkg-config --variable=libdir libibverbs)/libibverbs
	plugin=$plugins/libefa-stock-rdmav$PABI.so
	[ -e "$plugin" ] || plugin=$plugins/libefa-rdmav$PABI.so
	want=$(readlink -f "$plugin")
	owner=$(dpkg-query -S "$want" 2>/dev/null | cut -d: -f1)
	expect_eq "owner of $want" "$owner" ibverbs-providers
fi

# expect_libefa WHAT PATHS: PATHS (one a line) is $want alone
expect_libefa() {
	expect_eq "$1: the libefa files mapped" "$(sort -u <<<"$2")" "$want"
}

# served PROGRAM ARGS...: PROGRAM, through exec, as a server with the
# device open and waiting for its client, maps $want alone.
served() {
	local pid contexts rc=0

	"$SOFTEFA" --run-dir "$RUN" exec --provider "$P" -- \
		"$@" -p "$PORT" >"$RUN/server.out" 2>&1 &
	pid=$!
	if wait_listen "$PORT"; then
		contexts=$(status_field contexts)
		awk '$6 ~ /\/libefa[^/]*$/ { print $6 }' "/proc/$pid/maps" \
			>"$RUN/maps" || rc=$?
	else
		rc=1
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	[ "$rc" -eq 0 ] || fail "$1 did not serve: $(cat "$RUN/server.out")"
	expect_eq "$1: contexts" "$contexts" 1
	expect_libefa "$1" "$(cat "$RUN/maps")"
}

served ib_send_bw -c SRD -x 0
served ibv_ud_pingpong -g 0

probe() {
	local out

	out=$("$@" "$BUILD/bin/efadv_probe" efa_0) || fail "$*: $out"
	expect_eq "$*: max_sq_wr" \
		"$(awk '$1 == "max_sq_wr" { print $2 }' <<<"$out")" 4096
	awk '$1 == "libefa" { print $2 }' <<<"$out"
}
expect_libefa efadv_probe "$(probe sx --provider "$P" --)"
# An exec inside another one: the inner one's provider alone.
expect_libefa "efadv_probe in exec --provider $other" \
	"$(probe sx --provider "$other" -- \
		"$SOFTEFA" --run-dir "$RUN" exec --provider "$P" --)"

expect_eq contexts "$(status_field contexts)" 0
echo "ok: $P"
