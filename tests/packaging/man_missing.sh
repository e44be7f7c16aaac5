#!/bin/bash
# check_man.sh fails, naming the symbol, when one exported symbol of the
# library has no page.
# Usage: man_missing.sh CHECK_MAN LIBRARY MANDIR
set -euo pipefail
check=$1 lib=$2 mandir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sym=$(nm -D --defined-only "$lib" |
      awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort | tail -1)
cp "$mandir"/*.[1-9] "$tmp"/
rm "$tmp/$sym.3"
if out=$(sh "$check" "$lib" "$tmp" 2>&1); then
	echo "FAIL: check_man.sh passed without $sym.3" >&2
	exit 1
fi
grep -q "missing man page for $sym" <<<"$out" || {
	echo "FAIL: check_man.sh did not name $sym: $out" >&2
	exit 1
}
echo "ok: a missing $sym.3 is caught"
