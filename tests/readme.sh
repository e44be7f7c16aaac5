#!/bin/bash
# The README's command blocks, run as written: every ```sh block but those
# right below a "<!-- not run: REASON -->" line, which are listed with
# their reason.  Each block runs as a machine of its own would run it:
# from the README's directory, but with BUILD as its build/ (a directory
# of symbolic links to both), as root, in new mount, network
# and pid namespaces, with /run and /tmp empty (so root's host in
# /run/softefa is the block's alone), lo and an Ethernet eth0 up.  When
# the block's shell ends, every process of the block dies with its pid
# namespace, and the network namespaces it made with its /run.
#
# A block fails at its first failing command (bash -e), or when it takes
# longer than BLOCK_TIMEOUT seconds (300), or when a job it put in the
# background fails or still runs 30 s after the block, or when it leaves
# a daemon or a network namespace behind: a reader runs the next block on
# the same machine.  A failed block is shown with its output.
#
# What a block writes below /usr/local (where "cmake --install" puts
# things) and to apt's and dpkg's state (an "apt-get install" of what is
# installed already) stays on its machine: those directories, and those
# README_OVERLAY names (a list separated by spaces), are overlays whose
# changes are thrown away with the block.  With no network in its
# namespace, a block's "apt-get update" finds nothing new and "apt-get
# install" succeeds only for what is installed.
# README_OUT=DIR keeps each block's output as DIR/N.out (N from 1, the
# blocks in order, those not run counted too).
# Usage: readme.sh BUILD README [TOP]	(TOP, where the blocks run from,
# is README's directory unless named)
set -euo pipefail

# The block's machine, inside the namespaces: readme.sh --inside BUILD TOP
# runs the script on stdin there.
if [ "${1:-}" = --inside ]; then
	script=$(cat)
	mount -t tmpfs -o mode=0755 readme-run /run
	n=0
	for dir in /usr/local /var/lib/apt /var/cache/apt /var/lib/dpkg \
		${README_OVERLAY:-}; do
		[ -d "$dir" ] || continue
		n=$((n + 1))
		o=/run/.readme-overlay/$n
		mkdir -p "$o/up" "$o/work"
		mount -t overlay "readme-overlay-$n" \
			-o "lowerdir=$dir,upperdir=$o/up,workdir=$o/work" "$dir"
	done
	# The tree and the build may live under /tmp (a clone there): they
	# stay where they are, by their own paths, which binaries remember.
	mkdir /run/.readme-tmp
	mount --bind /tmp /run/.readme-tmp
	mount -t tmpfs -o mode=1777 readme-tmp /tmp
	for keep in "$2" "$3"; do
		case $keep in
		/tmp/*)
			mkdir -p "$keep"
			mount --bind "/run/.readme-tmp/${keep#/tmp/}" "$keep"
			;;
		esac
	done
	ip link set lo up
	ip link add eth0 type veth peer name eth0-peer
	ip link set eth0 up
	mkdir /tmp/top
	ln -s "$3"/* /tmp/top/
	ln -sfn "$2" /tmp/top/build
	cd /tmp/top
	rc=0
	bash -eE -o pipefail -c "$script" || rc=$?
	[ "$rc" -eq 0 ] || exit "$rc"
	# a zombie is a daemon that went, its parent (this shell, init of
	# the namespace) not yet told
	left=$(ps -eo pid=,stat=,args= | awk '$2 !~ /^Z/ && $3 ~ /softefad/')
	if [ -n "$left" ]; then
		echo "readme: the block left a daemon running:" >&2
		echo "$left" >&2
		rc=1
	fi
	left=$(ip netns list | awk '{ printf "%s ", $1 }')
	if [ -n "$left" ]; then
		echo "readme: the block left network namespaces: $left" >&2
		rc=1
	fi
	exit "$rc"
fi

BUILD=$(cd "${1:?build directory}" && pwd)
README=${2:?README.md}
TOP=$(cd "${3:-$(dirname "$README")}" && pwd)
LIMIT=${BLOCK_TIMEOUT:-300}

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIPPED: the README's blocks run as root (namespaces, /run/softefa)" >&2
	exit 77
fi

tmp=$(mktemp -d /tmp/softefa-readme.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# Each block to $tmp/N.sh; $tmp/N.line its line in the README, and
# $tmp/N.skip its reason when it is not run.
awk -v dir="$tmp" '
	/^```sh$/ && !inside {
		inside = 1; n++
		print NR > (dir "/" n ".line")
		printf "" > (dir "/" n ".sh")
		if (prev ~ /^<!-- not run:.*-->$/) {
			reason = prev
			sub(/^<!-- not run: */, "", reason)
			sub(/ *-->$/, "", reason)
			print reason > (dir "/" n ".skip")
		}
		next
	}
	/^```/ && inside { inside = 0; next }
	inside { print > (dir "/" n ".sh") }
	{ prev = $0 }
	END { if (inside) { print "unclosed block at the end" > "/dev/stderr"; exit 1 } }
' "$README"

# script N: what runs block N under bash -e: the block, traced, then its
# background jobs waited for.
script() {
	cat <<'EOF'
trap '{ readme_rc=$?; set +x; } 2>/dev/null
echo "readme: failed ($readme_rc): $BASH_COMMAND" >&2' ERR
set -x
EOF
	cat "$tmp/$1.sh"
	cat <<'EOF'
{ set +x; } 2>/dev/null
trap - ERR
set +e
readme_rc=0
for readme_pid in $(jobs -p); do
	for _ in $(seq 300); do
		kill -0 "$readme_pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$readme_pid" 2>/dev/null; then
		echo "readme: a background job still runs 30 s after the block:" >&2
		ps -o args= -p "$readme_pid" >&2
		readme_rc=1
	else
		wait "$readme_pid" && continue
		echo "readme: a background job failed: exit status $?" >&2
		readme_rc=1
	fi
done
exit $readme_rc
EOF
}

status=0 ran=0 n=1
while [ -f "$tmp/$n.sh" ]; do
	where="$README:$(cat "$tmp/$n.line")"
	if [ -f "$tmp/$n.skip" ]; then
		reason=$(cat "$tmp/$n.skip")
		if [ -z "$reason" ]; then
			echo "FAIL: $where: a block not run must say why" >&2
			status=1
		fi
		echo "not run: $where: $reason"
		n=$((n + 1))
		continue
	fi
	ran=$((ran + 1))
	start=$SECONDS
	rc=0
	script "$n" | timeout -k 10 "$LIMIT" unshare --mount --net --pid \
		--fork --mount-proc --kill-child "$0" --inside "$BUILD" "$TOP" \
		>"$tmp/$n.out" 2>&1 || rc=$?
	[ -z "${README_OUT:-}" ] || cp "$tmp/$n.out" "$README_OUT/$n.out"
	if [ "$rc" -eq 0 ]; then
		echo "ok: $where ($((SECONDS - start)) s)"
	else
		[ "$rc" -ne 124 ] || echo "readme: gave up waiting for the" \
			"block after $LIMIT s" >>"$tmp/$n.out"
		echo "FAIL: $where, exit status $rc:" >&2
		sed 's/^/	/' "$tmp/$n.sh" >&2
		echo "--- its output" >&2
		cat "$tmp/$n.out" >&2
		status=1
	fi
	n=$((n + 1))
done

if [ "$ran" -eq 0 ]; then
	echo "FAIL: no block of $README to run" >&2
	exit 1
fi
exit "$status"
