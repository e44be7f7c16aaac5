#!/bin/sh
# Usage: static-lib.sh ARCHIVE SHARED_LIB PREFIX OBJECT...
# with the binutils in LD, NM, OBJCOPY and AR.
#
# Writes ARCHIVE, libefa.a, from the objects of SHARED_LIB (libefa.so.1)
# for static links against rdma-core's libibverbs.a:
# - the objects become one, so that whatever pulls the provider in (an
#   efadv_* call, or verbs_provider_efa named by RDMA_STATIC_PROVIDERS=efa)
#   brings all of it, the constructor that registers it included;
# - global stay what SHARED_LIB exports and verbs_provider_efa; the rest
#   turns local, as the version script makes it local in SHARED_LIB;
# - what SHARED_LIB takes from libibverbs' private ABI (IBVERBS_PRIVATE_*)
#   gets the name rdma-core's static build gives it in libibverbs.a:
#   PREFIX (rdmacore<release>_) before the name.
set -eu
archive=$1 shared=$2 prefix=$3
shift 3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

{
	"$NM" -D --defined-only "$shared" |
		awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }'
	echo verbs_provider_efa
} >"$tmp/keep"
"$NM" -D --undefined-only "$shared" |
	awk -v p="$prefix" '$2 ~ /@IBVERBS_PRIVATE_/ {
		sub(/@.*/, "", $2); print $2, p $2 }' >"$tmp/rename"
[ -s "$tmp/rename" ] || {
	echo "static-lib.sh: $shared takes nothing from IBVERBS_PRIVATE_*?" >&2
	exit 1
}

"$LD" -r -o "$tmp/efa.o" "$@"
"$OBJCOPY" --keep-global-symbols="$tmp/keep" \
	--redefine-syms="$tmp/rename" "$tmp/efa.o"
rm -f "$archive"
"$AR" rcsD "$archive" "$tmp/efa.o"
