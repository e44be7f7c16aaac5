#!/bin/sh
# Usage: check_man.sh LIBRARY MANDIR
#
# Fails unless every symbol LIBRARY exports (its dynamic symbol table, not
# a list kept here) has a rendered page MANDIR/<symbol>.3, and every page in
# MANDIR renders without warnings.
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

for page in "$mandir"/*.[1-9]; do
	[ -f "$page" ] || continue
	warnings=$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
	if [ -n "$warnings" ]; then
		echo "$page:" >&2
		echo "$warnings" >&2
		status=1
	fi
done

exit $status
