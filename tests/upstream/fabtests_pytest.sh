#!/bin/bash
# fabtests 2.6's pytest suite for the efa provider (the harness libfabric's
# own CI runs on two EC2 instances) on one SoftEFA host, through rdma-core
# v64's libefa and libfabric 2.6: runfabtests.py -p efa with out-of-band
# address exchange, one worker, its server and client started "on two
# hosts" through pytest_ssh.sh, an ssh that runs them on this host under
# softefa exec.  Server and client share the device, so libfabric's shm
# transfer is off (as in fabtests.sh) and the traffic crosses SoftEFA.
#
# By default a CI slice runs: the suite's short tests (runfabtests.py -t
# short,unit: few iterations; its standard ones move hundreds of MiB each,
# minutes apiece on SoftEFA) that SLICE below picks, one of each kind of
# traffic: tagged and untagged messages at every size class of the efa
# fabric (eager, medium, long CTS, long read), RMA read, write and
# writedata, efa-direct where the device offers it, multi-recv, MR, CQ,
# dgram, fi_info and efadv attributes: 37 tests, about 5 minutes on 2
# loaded cores.
# The whole efa list (-t all, hours on 2 cores) runs with PYTEST_ALL=1:
#	PYTEST_ALL=1 fabtests_pytest.sh BUILD [PROFILE]
# PYTEST_SETS=SETS (runfabtests.py -t) and PYTEST_EXPR=EXPRESSION (pytest
# -k) choose other tests; PYTEST_TIMEOUT bounds each side of a test (120 s).
# PROFILE is a softefa start profile (default efa).
#
# The harness runs a test's server and client "on two hosts", here
# 127.0.0.1 and 127.0.0.2, both this one SoftEFA host (as the harness's
# device selection test needs two host names): each host's hw_counters
# are the one device's.
# Tests that cannot pass on SoftEFA are deselected, each with its reason
# printed, from pytest_skip.txt beside this script.  Every selected test
# must pass or be skipped by the suite itself (a feature the device lacks);
# the script prints the counts and the wall time.
. "$(dirname "$0")/lib.sh" "$1" all
PROFILE=${2:-efa}
SKIPS=$UPSTREAM/pytest_skip.txt

# pytest -k expression of the CI slice, among the short tests
SLICE='(test_rdm_pingpong and not no_mr_local)'
SLICE+=' or (test_rdm_tagged_bw and transmit_complete and queue)'
SLICE+=' or (test_rma_bw and delivery_complete and not no-rx-cq-data)'
SLICE+=' or test_multi_recv or test_mr_host or test_cq or test_dgram'
SLICE+=' or test_efa_info or test_setopt or test_rdm_atomic'

# memory of accelerators SoftEFA's host has none of (CUDA, Neuron, ROCr)
HOST_ONLY='not cuda and not neuron and not rocr'

sets=${PYTEST_SETS:-short,unit}
expr=${PYTEST_EXPR:-$SLICE}
if [ "${PYTEST_ALL:-0}" = 1 ]; then
	sets=all
	expr=${PYTEST_EXPR:-}
fi
expr="${expr:+($expr) and }$HOST_ONLY"

# strays_down: end what the stand-in ssh started and still runs (the
# harness leaves a side it gave up on behind), each with its process group
# (timeout's), before the host goes down
strays_down() {
	local pid

	[ -r "$RUN/ssh.pids" ] || return 0
	while read -r pid; do
		grep -qz "^SEFA_SSH_ENV=$RUN/ssh.env$" "/proc/$pid/environ" \
			2>/dev/null || continue
		echo "ending what the harness left running: $(tr '\0' ' ' \
			<"/proc/$pid/cmdline")" >&2
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
	done <"$RUN/ssh.pids"
}
trap 'rc=$?; strays_down; cleanup "$rc"' EXIT

start_host --profile "$PROFILE"
export FI_EFA_ENABLE_SHM_TRANSFER=0

# the stand-in ssh and what it needs to reach this host
declare -p SOFTEFA RUN NETNS UP_PROVIDER UP_WRAP >"$RUN/ssh.env"
mkdir "$RUN/bin"
ln -s "$UPSTREAM/pytest_ssh.sh" "$RUN/bin/ssh"
export SEFA_SSH_ENV=$RUN/ssh.env SEFA_SSH_LOG=$RUN/ssh.log
export PATH=$RUN/bin:$P/libfabric/bin:$PATH
# the suite is read from the shared upstream cache: write nothing there
export PYTHONDONTWRITEBYTECODE=1

deselect=()
while read -r id reason; do
	case $id in
	'' | '#'*) continue ;;
	esac
	echo "not run: $id: $reason"
	deselect+=(--deselect "efa/$id")
done <"$SKIPS"
export PYTEST_ADDOPTS="-p no:cacheprovider -o junit_logging=no ${deselect[*]}"

# a test's own bound: each side runs under the harness's timeout
start=$(date +%s)
rc=0
/usr/bin/python3 "$P/libfabric/bin/runfabtests.py" efa 127.0.0.1 127.0.0.2 -b \
	-v --nworkers 1 -t "$sets" -T "${PYTEST_TIMEOUT:-120}" \
	--binpath "$P/libfabric/bin" --junit-xml "$RUN/junit.xml" \
	${expr:+--expression "$expr"} >"$RUN/pytest.out" 2>&1 || rc=$?
took=$(($(date +%s) - start))

grep -E " (PASSED|FAILED|SKIPPED|ERROR)" "$RUN/pytest.out" || true
summary=$(grep -E "^=+ .*[0-9]+ (passed|failed|skipped|errors?)\b" \
	"$RUN/pytest.out" | tail -1) || {
	tail -100 "$RUN/pytest.out" >&2
	fail "runfabtests.py printed no summary (exit status $rc)"
}
count() { grep -oE "[0-9]+ $1" <<<"$summary" | cut -d' ' -f1 || echo 0; }
passed=$(count passed) failed=$(count failed) skipped=$(count skipped)
errors=$(count error)
echo "pytest efa on SoftEFA ($PROFILE): $passed passed, $failed failed," \
	"$skipped skipped, $errors errors in ${took}s"
if [ "$rc" -ne 0 ] || [ "${failed:-0}" -gt 0 ] || [ "${errors:-0}" -gt 0 ]; then
	# what failed, and why, with the device's view
	sed -n '/^=* FAILURES =*$/,$p' "$RUN/pytest.out" | tail -200 >&2
	sefa stats >&2 || true
	fail "runfabtests.py: exit status $rc, $failed failed, $errors errors"
fi
[ "${passed:-0}" -gt 0 ] || fail "no test passed: $summary"
# the traffic crossed the device
[ "$(stat_field efa_0 tx_pkts)" -gt 0 ] ||
	fail "no traffic crossed the device: $(sefa stats)"
expect_only_rnr_errors efa_0
