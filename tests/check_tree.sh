#!/bin/sh
# Usage: check_tree.sh SOURCE_DIR
#
# Fails, naming each offender, unless the files git tracks in SOURCE_DIR
# keep the tree's rules:
#  - nothing under softefa/ includes a header of the provider's
#    (providers/): what both sides read is the contract in include/efa/;
#  - every header's guard is SEFA_ and its path from the root,
#    upper-cased, each / and . as _ (softefa/daemon/nic/loc.h:
#    SEFA_SOFTEFA_DAEMON_NIC_LOC_H), so that no two can collide;
#  - no source file name (C or shell) stands twice within softefa/, fuzz/
#    and bench/, and
#    efa.c and mad.c stand once in the whole tree (a debugger's or a
#    profiler's "mad.c:120" then names one file);
#  - no .c or .h file in softefa/, providers/ or include/ is over 700 lines;
#  - no circle of calls or includes between the files of a folder of
#    softefa/, providers/ or include/: a stage hands work on through a
#    queue or a callback its owner registered.  The shim's folder counts
#    the common code linked into it (softefa/CMakeLists.txt), whose calls
#    of libc names the shim exports would go through its wrappers.
# Only tracked files count, so build directories never do; outside a git
# work tree (a source tarball) there is nothing to ask and it skips (77).
set -u

top=$1
max_lines=700
status=0

cd "$top" || exit 1
if ! git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	echo "check_tree: $top is not a git work tree: skipped" >&2
	exit 77
fi

offend() {
	echo "$*" >&2
	status=1
}

# Tracked files that are there: a file moved in the work tree and not yet
# committed is judged where it stands now.
files=$(git ls-files | while IFS= read -r f; do
	[ -f "$f" ] && echo "$f"
done)

# softefa/ and the provider's headers.  A quoted include is looked for
# beside the file, then in the folders softefa's targets put on the
# include path (softefa/daemon, softefa/common, include); it is the
# provider's when it names providers/ or only providers/efa/ has it.
out=$(for f in $(echo "$files" | grep -E '^softefa/.*\.[ch]$'); do
	dir=$(dirname "$f")
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' \
		"$f" | while IFS= read -r inc; do
		case $inc in
		*providers/*)
			echo "$f: includes \"$inc\", a header of the provider's"
			continue ;;
		esac
		for d in "$dir" softefa/daemon softefa/common include; do
			[ -f "$d/$inc" ] && continue 2
		done
		[ -f "providers/efa/$inc" ] &&
			echo "$f: includes \"$inc\", a header of the provider's"
	done
done)
[ -z "$out" ] || offend "$out"

# Header guards: the first #ifndef and the #define after it.
for f in $(echo "$files" | grep -E '\.h$'); do
	want=SEFA_$(echo "$f" | tr 'a-z/.' 'A-Z__')
	got=$(sed -n 's/^[[:space:]]*#[[:space:]]*ifndef[[:space:]]*\([A-Za-z0-9_]*\).*/\1/p' \
		"$f" | head -n 1)
	def="^[[:space:]]*#[[:space:]]*define[[:space:]]+$want([[:space:]]|\$)"
	if [ "$got" != "$want" ]; then
		offend "$f: header guard ${got:-missing}, not $want"
	elif ! grep -Eq "$def" "$f"; then
		offend "$f: $want is tested but never defined"
	fi
done

# Source file names: once within softefa/, fuzz/ and bench/; efa.c and mad.c
# once anywhere.
for name in $(echo "$files" | grep -E '^(softefa|fuzz|bench)/.*\.([ch]|sh)$' |
	      sed 's,.*/,,' | sort | uniq -d); do
	where=$(echo "$files" | grep -E "^(softefa|fuzz|bench)/(.*/)?$name\$")
	offend "$name stands more than once in softefa/, fuzz/ and bench/:" \
		"$(echo "$where" | paste -sd ' ')"
done
for name in efa.c mad.c; do
	where=$(echo "$files" | grep -E "(^|/)$name\$")
	[ "$(echo "$where" | grep -c .)" -le 1 ] ||
		offend "$name stands more than once in the tree:" \
			"$(echo "$where" | paste -sd ' ')"
done

# Length.
for f in $(echo "$files" | grep -E '^(softefa|providers|include)/.*\.[ch]$'); do
	n=$(wc -l <"$f")
	[ "$n" -le "$max_lines" ] ||
		offend "$f: $n lines, over $max_lines"
done

# Circles.  A file calls another when it names, followed by "(", a
# function the other defines at the start of a line without "static" (an
# EXPORT of the shim's too); it includes another of the folder by name.
# Comments do not count, nor a call through a pointer in a struct;
# headers only include.  tsort names the files of each circle it finds.
circles() {
	awk '
	FNR == 1 {
		base = FILENAME
		sub(/.*\//, "", base)
		name[base] = FILENAME
		files[FILENAME] = 1
		incmt = 0
	}
	{
		line = $0
		if (incmt) {
			if (!sub(/.*\*\//, "", line))
				next
			incmt = 0
		}
		gsub(/\/\*([^*]|\*[^\/])*\*\//, "", line)
		if (sub(/\/\*.*/, "", line))
			incmt = 1
		sub(/\/\/.*/, "", line)
		if (line ~ /^[ \t]*#[ \t]*include[ \t]*"/) {
			inc = line
			sub(/^[^"]*"/, "", inc)
			sub(/".*/, "", inc)
			incs[FILENAME, inc] = 1
			next
		}
		if (FILENAME !~ /\.c$/)
			next
		if (line ~ /^(EXPORT )?[a-z][a-z0-9_ ]*[ *][a-z_][a-z0-9_]*\(.*[^;]$/ &&
		    line !~ /^static/) {
			d = line
			sub(/\(.*/, "", d)
			sub(/.*[ *]/, "", d)
			def[d] = def[d] " " FILENAME
		}
		while (match(line, /(->|\.)?[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
			c = substr(line, RSTART, RLENGTH)
			line = substr(line, RSTART + RLENGTH)
			if (c ~ /^(->|\.)/)
				continue
			sub(/[ \t]*\($/, "", c)
			calls[FILENAME, c] = 1
		}
	}
	END {
		for (f in files)
			print f, f
		for (k in incs) {
			split(k, p, SUBSEP)
			if ((p[2] in name) && name[p[2]] != p[1])
				print p[1], name[p[2]]
		}
		for (k in calls) {
			split(k, p, SUBSEP)
			n = (p[2] in def) ? split(def[p[2]], w, " ") : 0
			for (i = 1; i <= n; i++)
				if (w[i] != p[1])
					print p[1], w[i]
		}
	}' "$@" | tsort 2>&1 >/dev/null | sed -n 's/^tsort: \([^-].*\)/\1/p' |
		sort -u | paste -sd ' '
}
for dir in $(echo "$files" | grep -E '^(softefa|providers|include)/.*\.[ch]$' |
	     sed 's,/[^/]*$,,' | sort -u); do
	group=$(echo "$files" | grep -E "^$dir/[^/]*\.[ch]\$")
	[ "$dir" = softefa/shim ] &&
		group="$group softefa/common/rundir.c softefa/common/rundir.h"
	out=$(circles $group)
	[ -z "$out" ] || offend "$dir: a circle of calls or includes: $out"
done

exit $status
