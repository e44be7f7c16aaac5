#!/bin/bash
# check_man.sh fails, naming the symbol, when one exported symbol of the
# library has no page, and naming the page when one has an en dash where
# "--run-dir" was written (what pandoc's smart typography made of it).
# Usage: man_missing.sh CHECK_MAN LIBRARY MANDIR
set -euo pipefail
check=$1 lib=$2 mandir=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sym=$(nm -D --defined-only "$lib" |
      awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort | tail -1)
cp "$mandir"/*.[1-9] "$tmp"/
rm "$tmp/$sym.3"
sed -i '0,/--run-dir/s//\\[en]run-dir/' "$tmp/softefa.8"
grep -q '\\\[en\]run-dir' "$tmp/softefa.8" ||
	{ echo "FAIL: no --run-dir in softefa.8 to spoil" >&2; exit 1; }
if out=$(sh "$check" "$lib" "$tmp" 2>&1); then
	echo "FAIL: check_man.sh passed without $sym.3 and with an en dash" >&2
	exit 1
fi
for want in "missing man page for $sym" \
	    "softefa.8: typographic dashes or quotes in the rendered page" \
	    "softefa.8: groff escapes for typographic dashes or quotes"; do
	grep -qF "$want" <<<"$out" || {
		echo "FAIL: check_man.sh did not say '$want': $out" >&2
		exit 1
	}
done
echo "ok: a missing $sym.3 and an en dash in softefa.8 are caught"
