#!/bin/bash
# Usage: dist.sh SOURCE_DIR NAME-VERSION OUTPUT_DIR
#
# Writes OUTPUT_DIR/NAME-VERSION.tar.gz, the source tarball the .deb and
# .rpm builds start from: the files of the working tree git knows about or
# would (tracked and new, not ignored), as they are now, below
# NAME-VERSION/.  Owners and times are fixed, so the same tree gives the
# same tarball.
set -euo pipefail
src=$1 name=$2 out=$3

cd "$src"
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "dist: $src is not a git work tree" >&2
	exit 1
fi
mtime=$(git log -1 --format=%ct 2>/dev/null || date +%s)
git ls-files -z --cached --others --exclude-standard |
	while IFS= read -r -d '' f; do
		# tracked but deleted in the work tree
		[ -e "$f" ] || [ -L "$f" ] && printf '%s\0' "$f"
	done | sort -z |
	tar --null -T - --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime="@$mtime" --transform="s,^,$name/,S" -cf - |
	gzip -n >"$out/$name.tar.gz.tmp"
mv "$out/$name.tar.gz.tmp" "$out/$name.tar.gz"
echo "dist: $out/$name.tar.gz"
