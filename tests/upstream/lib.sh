# Helpers of the upstream tests: integration/lib.sh's private SoftEFA host,
# and the current upstream stack (rdma-core v64, libfabric 2.x, fabtests)
# that build.sh builds once and caches.
# Usage: . lib.sh BUILD [rdma-core|libfabric|all]	(default all)
# Sets P, the stack's prefix.  Exits 77 (skip), saying why, when the
# upstream archives are absent.
# shellcheck shell=bash
# (UP_PROVIDER and UP_WRAP are for the scripts that source this)
# shellcheck disable=SC2034
. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh" "$1"
UPSTREAM=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

rc=0
P=$("$UPSTREAM/build.sh" "${2:-all}") || rc=$?
if [ "$rc" -eq 77 ]; then
	echo "SKIP: the upstream archives are absent (see above)" >&2
	exit 77
fi
[ "$rc" -eq 0 ] || fail "tests/upstream/build.sh ${2:-all}: exit status $rc"

# up_provider [v64|ours]: how a program runs on the host through rdma-core
# v64 with its own libibverbs; sets UP_PROVIDER, softefa exec's
# --provider, and UP_WRAP, the words before the program.
# v64 (the default): rdma-core v64's own libefa.  softefa exec knows the
# providers of Debian's libibverbs (34) alone: it runs here with the stock
# one, whose preloaded libefa the wrapper takes out again, and points the
# loader at v64's libibverbs, which finds its plugin (libefa-rdmav64.so)
# in its own prefix.
# ours: this tree built against rdma-core v64 (SEFA_BUILD_V64, test.sh's
# build-v64), whose softefa exec --provider ours preloads that libefa.so.1
# for v64's libibverbs, and for libfabric's efadv calls too (same soname).
# Exits 77, saying so, when there is no such build.  The efadv spy goes
# first in LD_PRELOAD, so that the libefa it looks up next is ours.
up_provider() {
	UP_PROVIDER=stock
	if [ "${1:-v64}" = ours ]; then
		if [ ! -x "${SEFA_BUILD_V64:-}/bin/softefa" ] ||
			[ ! -e "$SEFA_BUILD_V64/lib/libefa-rdmav64.so" ]; then
			echo "SKIP (77), NOT RUN: our provider for libibverbs 64" \
				"wanted, but SEFA_BUILD_V64 (${SEFA_BUILD_V64:-unset})" \
				"holds no build against rdma-core v64 (test.sh" \
				"makes build-v64)" >&2
			exit 77
		fi
		UP_PROVIDER=ours
		SOFTEFA=$SEFA_BUILD_V64/bin/softefa
	fi
	# shellcheck disable=SC2016
	UP_WRAP=(bash -c 'if [ "$3" = ours ]; then
			LD_PRELOAD=${UP_PRELOAD:+$UP_PRELOAD:}$LD_PRELOAD
		else
			LD_PRELOAD=$(printf %s "$LD_PRELOAD" | tr : "\n" |
			grep -v "/libefa\.so" | paste -sd:)${UP_PRELOAD:+:$UP_PRELOAD}
		fi
		export LD_PRELOAD LD_LIBRARY_PATH=$1 PATH=$2:$PATH
		shift 3
		exec "$@"' up_exec "$P/rdma-core/lib:$P/libfabric/lib"
		"$P/rdma-core/bin:$P/libfabric/bin" "$UP_PROVIDER")
}
up_provider "${UP_EFA:-v64}"

# up_run CMD...: CMD on the host through rdma-core v64
up_run() {
	sx --provider "$UP_PROVIDER" -- "${UP_WRAP[@]}" "$@"
}

# up_pair PROGRAM ARGS...: lib.sh's pair() through rdma-core v64: PROGRAM
# as a server and as its client, output in $RUN/server.out, client.out.
up_pair() {
	pair "$UP_PROVIDER" "$UP_PROVIDER" "${UP_WRAP[@]}" "$@"
}

# up_spy: build efadv_spy.so, which logs what efadv_query_cq and
# efadv_query_qp_wqs return into $EFADV_SPY, and preload it in what
# up_run and up_pair start from now on.
up_spy() {
	cc -std=gnu11 -Wall -Wextra -Werror -shared -fPIC \
		-I"$P/rdma-core/include" \
		-Wl,--version-script="$UPSTREAM/efadv_spy.map" \
		-o "$RUN/efadv_spy.so" "$UPSTREAM/efadv_spy.c" -ldl ||
		fail "cannot build efadv_spy.so"
	export UP_PRELOAD=$RUN/efadv_spy.so EFADV_SPY=$RUN/efadv_spy.log
	: >"$EFADV_SPY"
}
