#!/bin/bash
# wire_tshark.sh with a tshark that takes SECONDS (8) to start, as its
# first start on a fresh machine can: the test waits for the capture by
# the clock, however many pings that takes.  The slow tshark is a wrapper,
# first in PATH, in a directory of its own that goes on exit.
# Usage: wire_tshark_slow.sh BUILD [SECONDS]
set -euo pipefail
real=$(command -v tshark) || { echo "FAIL: tshark is not installed" >&2; exit 1; }
dir=$(mktemp -d /tmp/softefa-slow-tshark.XXXXXX)
trap 'rm -rf "$dir"' EXIT
printf '#!/bin/sh\nsleep %s\nexec %s "$@"\n' "${2:-8}" "$real" >"$dir/tshark"
chmod +x "$dir/tshark"
t0=$SECONDS
rc=0
PATH=$dir:$PATH "$(dirname "$0")/wire_tshark.sh" "$1" || rc=$?
echo "wire_tshark.sh with a tshark ${2:-8} s slow: exit $rc after $((SECONDS - t0)) s"
exit "$rc"
