#!/bin/bash
# Async events on demand (softefa inject add event ...), seen by a real
# client at ibv_get_async_event, with what the kernel does around each:
#  - qp-fatal: IBV_EVENT_QP_FATAL, and the QP is in the error state;
#  - cq-error: IBV_EVENT_CQ_ERR;
#  - port-down, port-up: IBV_EVENT_PORT_ERR and _ACTIVE, the port's state
#    in query_port, ibv_devinfo, sysfs and RDMA netlink (rdma link show);
#  - device-fatal: IBV_EVENT_DEVICE_FATAL, then EIO on the next verb and
#    on a new context.
# Each on our provider and the stock one.
# Usage: inject_event.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"
AE=$BUILD/bin/async_events
SYSFS_STATE=$RUN/sys/class/infiniband/efa_0/ports/1/state

# watch PROVIDER N: async_events waiting for N events, in the background;
# its output in $RUN/ae.out, its pid in $watcher, its QPN in $qpn
watch() {
	sx --provider "$1" -- stdbuf -oL "$AE" -d efa_0 -n "$2" -t 20 \
		>"$RUN/ae.out" 2>&1 &
	watcher=$!
	wait_for 30 "async_events to make its QP" grep -q '^qpn ' "$RUN/ae.out" ||
		fail "async_events: $(cat "$RUN/ae.out")"
	qpn=$(awk '$1 == "qpn" { print $2 }' "$RUN/ae.out")
}

# saw LINE: async_events printed LINE, within 20 s
saw() {
	wait_for 20 "async_events to print '$1'" grep -qx "$1" "$RUN/ae.out" ||
		fail "no '$1' in: $(cat "$RUN/ae.out")"
}

done_ok() {
	wait "$watcher" || fail "async_events failed: $(cat "$RUN/ae.out")"
}

port_state() {
	sx -- ibv_devinfo -d efa_0 | devinfo_field state
}

# link_state: "STATE PHYSICAL_STATE" of efa_0/1 as iproute2's rdma tool
# reads them from RDMA netlink
link_state() {
	local out

	out=$(sx -- timeout 30 rdma -j link show efa_0/1) ||
		fail "rdma link show efa_0/1: exit status $?: $out"
	jq -r '.[0] | "\(.state) \(.physical_state)"' <<<"$out"
}

command -v rdma >/dev/null || fail "no rdma tool (iproute2)"
command -v jq >/dev/null || fail "no jq"

for provider in ours stock; do
	start_host

	watch "$provider" 2
	sefa inject add event type=qp-fatal dev=efa_0 qp="$qpn" >/dev/null
	saw "event local work queue catastrophic error"
	saw "qp state ERR"
	sefa inject add event type=cq-error dev=efa_0 qp="$qpn" >/dev/null
	saw "event CQ error"
	done_ok

	watch "$provider" 2
	sefa inject add event type=port-down dev=efa_0 >/dev/null
	saw "event port error"
	saw "port 1 state down"
	expect_eq "devinfo state, port down" "$(port_state)" "PORT_DOWN (1)"
	expect_eq "sysfs state, port down" "$(cat "$SYSFS_STATE")" "1: DOWN"
	expect_eq "rdma link, port down" "$(link_state)" "DOWN DISABLED"
	sefa inject add event type=port-up dev=efa_0 >/dev/null
	saw "event port active"
	saw "port 1 state active"
	expect_eq "devinfo state, port up" "$(port_state)" "PORT_ACTIVE (4)"
	expect_eq "sysfs state, port up" "$(cat "$SYSFS_STATE")" "4: ACTIVE"
	expect_eq "rdma link, port up" "$(link_state)" "ACTIVE LINK_UP"
	done_ok

	watch "$provider" 1
	sefa inject add event type=device-fatal dev=efa_0 >/dev/null
	saw "event local catastrophic error"
	saw "alloc_pd: Input/output error"
	done_ok
	# a new context on the dead device fails too
	out=$(sx --provider "$provider" -- ibv_devinfo -d efa_0 2>&1) &&
		fail "ibv_devinfo on a dead device succeeded: $out"
	echo "$provider: $(grep -c '^event' "$RUN/ae.out") event after device-fatal, then EIO"
	stop_host
done
echo ok
