#!/bin/bash
# rdma-core v64's pyverbs test suite (its tests/, as its run_tests.py runs
# it) on a SoftEFA host of profile efa, through rdma-core v64's libefa, or
# through our provider built against rdma-core v64 (PROVIDER ours:
# SEFA_BUILD_V64, skipped with 77 without it).
# Every test must pass or be skipped by the suite itself (printed with its
# reason: no GPU, not mlx5, ...), except those pyverbs.skip leaves out,
# each with its reason: what only real hardware or another driver shows.
# Usage: pyverbs.sh BUILD [v64|ours] [PREFIX...]
# PREFIX: run only the test ids starting with one, e.g.
# tests.test_efadv tests.test_qp.QPTest.test_create_ud_qp; without any,
# the whole suite, as by hand:
#	ctest -R upstream-pyverbs	(as CI runs it)
#	tests/upstream/pyverbs.sh build v64	(the whole suite)
# The suite's set-up asks iproute2's "rdma link show -j" (RDMA netlink)
# which network device goes with the RDMA port: under softefa exec the
# shim answers it for the SoftEFA device.
UP_EFA=${2:-v64}
LIBEFA="v64's libefa"
[ "$UP_EFA" != ours ] || LIBEFA="our libefa"
. "$(dirname "$0")/lib.sh" "$1" pyverbs
shift 2 || shift $#
TESTS=$P/src/rdma-core/tests
PY=$P/src/rdma-core/build/python
start_host --profile efa

# the harness's set-up fails every traffic test when "rdma link" does not
# work, with the same error each time: said once, here
out=$(up_run rdma link show -j 2>&1) ||
	fail "\"rdma link show -j\" under softefa exec failed (RDMA netlink," \
		"which pyverbs' tests/base.py asks for the port's netdev): $out"
/usr/bin/python3 -c '
import json, sys
links = json.loads(sys.argv[1])
if not any(l.get("ifname") == "efa_0" and l.get("port") == 1 for l in links):
	sys.exit("no efa_0 port 1 in it")' "$out" ||
	fail "\"rdma link show -j\" under softefa exec: $out"
echo "rdma link show -j: $out"

start=$SECONDS
rc=0
# a hung test would otherwise hang the test: the whole suite takes a few
# minutes even on a loaded machine
up_run env PYTHONPATH="$PY" timeout 1200 /usr/bin/python3 \
	"$UPSTREAM/pyverbs_run.py" "$TESTS" "$UPSTREAM/pyverbs.skip" "$@" \
	>"$RUN/pyverbs.out" 2>&1 || rc=$?
cat "$RUN/pyverbs.out"
[ "$rc" -ne 124 ] || fail "the suite did not end within 1200 s"
[ "$rc" -eq 0 ] || fail "pyverbs through $LIBEFA: exit status $rc"
grep -q "^pyverbs: [1-9][0-9]* run, [1-9][0-9]* passed" "$RUN/pyverbs.out" ||
	fail "no test of the suite passed"
echo "ok: pyverbs through $LIBEFA, in $((SECONDS - start)) s"
