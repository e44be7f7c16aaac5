#!/bin/bash
# seeds_check.sh FUZZ_SEEDS CORPUS: the seed generator runs (under the
# sanitizers, in that build) and writes again, byte for byte, every named
# seed committed in CORPUS, so that the seeds stay what seeds.c says.
set -euo pipefail
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$1" "$out"
n=0
for f in "$out"/*/*; do
	rel=${f#"$out"/}
	cmp "$f" "$2/$rel" || { echo "seeds_check: $rel differs from $2" >&2; exit 1; }
	n=$((n + 1))
done
[ "$n" -gt 0 ] || { echo "seeds_check: no seeds written" >&2; exit 1; }
echo "seeds_check: $n seeds as committed"
