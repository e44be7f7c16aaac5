#!/bin/sh
# Usage: check_man.sh LIBRARY MANDIR
#
# Fails unless every symbol LIBRARY exports (its dynamic symbol table, not
# a list kept here) has a rendered page MANDIR/<symbol>.3, and every page in
# MANDIR renders without warnings and without a typographic dash or quote.
set -u

lib=$1
mandir=$2
status=0

# Everything defined but the version nodes (EFA_1.0, ...: type A).
syms=$(nm -D --defined-only "$lib" |
	awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort -u)
if [ -z "$syms" ]; then
	echo "no symbols exported by $lib" >&2
	exit 1
fi

for sym in $syms; do
	if [ ! -f "$mandir/$sym.3" ]; then
		echo "missing man page for $sym: $mandir/$sym.3" >&2
		status=1
	fi
done

if ! command -v man >/dev/null 2>&1; then
	echo "man not installed: rendering not checked" >&2
	exit $status
fi

# A command or option copied out of a page must be what was written: no
# en or em dash (a "--run-dir" made typographic) and no curly quote, in
# the page as a UTF-8 terminal shows it (U+2013, U+2014, U+2018, U+2019,
# U+201C, U+201D) nor as groff escapes in its source.  No page needs one.
typo=$(printf '\342\200[\223\224\230\231\234\235]')
escapes='\\(\*?\[(en|em|oq|cq|lq|rq|u201[3489CD])\]|\*?\((en|em|oq|cq|lq|rq))'
out=$(mktemp)
trap 'rm -f "$out"' EXIT

for page in "$mandir"/*.[1-9]; do
	[ -f "$page" ] || continue
	warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" \
		2>&1 >"$out")
	if [ -n "$warnings" ]; then
		echo "$page:" >&2
		echo "$warnings" >&2
		status=1
	fi
	if LC_ALL=C grep -n "$typo" "$out" >&2; then
		echo "$page: typographic dashes or quotes in the rendered page" >&2
		status=1
	fi
	if LC_ALL=C grep -En "$escapes" "$page" >&2; then
		echo "$page: groff escapes for typographic dashes or quotes" >&2
		status=1
	fi
done

exit $status
