#!/bin/bash
# libfabric 2.x and fabtests on SoftEFA through rdma-core v64's libefa, or
# through our provider built against rdma-core v64 (PROVIDER ours:
# SEFA_BUILD_V64, skipped with 77 without it): one case of the current
# upstream stack, its server and client on one host.
# Every requested
# size must print a result line on both sides (efa-direct caps a message
# at the port's max_msg_sz and exits 0 having sent nothing for a larger
# one), the traffic must have crossed the device, libfabric must have
# driven the device's rings itself (its direct data path: the efadv calls
# it starts from succeeded) and warned of nothing.
# Where the profile's generation lacks what an efa-direct RMA case needs
# (RDMA read and write; unsolicited write receive), libfabric must not
# offer it, as on such hardware: fi_info and the fabtest find no provider.
# Usage: [UP_HOSTS=2] fabtests.sh BUILD PROFILE CASE [v64|ours]	(default v64)
# CASE: pingpong-direct, rdm-pingpong, rdm-tagged-pingpong,
#	rma-{write,read,writedata}-{efa,efa-direct},
#	rma-writedata-unsolicited-efa-direct, rdm-cntr-pingpong
# UP_HOSTS=2: the server on one host, the client on another, across the
# wire (tests/integration/hosts.sh), libfabric's shm transfer left on.
UP_EFA=${4:-v64}
. "$(dirname "$0")/lib.sh" "$1" all
PROFILE=$2 CASE=$3
PORT=$(pick_port)
# fabtests' sizes: each protocol of the efa fabric (eager, medium, long
# CTS, long read) up to 1 MiB
RDM_SIZES=(1 64 4096 8192 65536 393216 1048576)

UP_HOSTS=${UP_HOSTS:-1}
# One host: without this, libfabric's efa fabric reaches a peer with a
# local GID through its shm provider and the device sees nothing.  A peer
# on another host has another GID: there it must take the device, shm on.
if [ "$UP_HOSTS" -eq 1 ]; then
	export FI_EFA_ENABLE_SHM_TRANSFER=0
else
	export FI_EFA_ENABLE_SHM_TRANSFER=1
fi
# What libfabric warns of, into the programs' output; the test reads it.
export FI_LOG_LEVEL=warn

# sizes_printed SIDE SIZE...: SIDE's output has a result line for each
# SIZE, in fabtests' and fi_pingpong's units (1k, 8.7k, 384k, 1m)
sizes_printed() {
	local side=$1 out s want
	shift

	out=$RUN/$side.out
	for s in "$@"; do
		want=$(awk -v s="$s" 'BEGIN {
			u = ""; n = s
			if (n >= 1048576) { n /= 1048576; u = "m" }
			else if (n >= 1024) { n /= 1024; u = "k" }
			if (n == int(n)) printf "%d%s", n, u
			else printf "%.1f%s", n, u }')
		grep -Eq "^$want +[0-9]+ " "$out" ||
			fail "$side printed no result for $s bytes ($want): $(cat "$out")"
	done
}

# no_warnings SIDE: libfabric warned of nothing but the host id file, which
# only EC2 instances have
no_warnings() {
	local w

	w=$(grep "<warn>" "$RUN/$1.out" | grep -v "efa_get_host_id()" || true)
	[ -z "$w" ] || fail "$1: libfabric warned: $w"
}

# fabtest SIZES_VAR PROGRAM ARGS...: a fabtests benchmark with data
# verification (-v) at each size, its address exchanged out of band on
# PORT; non-zero when it failed
fabtest() {
	local -n _sizes=$1
	local list

	shift
	list=$(IFS=,; echo "${_sizes[*]}")
	up_pair "$@" -v -I 10 -S "l:$list" -E="$PORT" || return 1
	sizes_printed server "${_sizes[@]}"
	sizes_printed client "${_sizes[@]}"
}

# a busy-polling pair on a loaded 2-core machine: minutes at worst
export PAIR_TIMEOUT=120
# ON_HOSTS: the hosts' numbers; on HOST CMD: CMD with lib.sh's helpers
# pointed at host HOST (one host: the only one)
if [ "$UP_HOSTS" -eq 2 ]; then
	. "$UPSTREAM/../integration/hosts.sh"
	hosts_up 2 --wire --profile "$PROFILE"
	ON_HOSTS=(1 2)
	on() { on_host "$@"; }
	up_pair() { hosts_pair "$UP_PROVIDER" "$UP_PROVIDER" "${UP_WRAP[@]}" "$@"; }
else
	start_host --profile "$PROFILE"
	ON_HOSTS=(1)
	on() { "${@:2}"; }
fi
part=$(on 1 up_run ibv_devinfo | devinfo_field vendor_part_id)
# the provider that ran is the one asked for
log=$(VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=/dev/stderr on 1 up_run ibv_devinfo 2>&1 >/dev/null)
if [ "$UP_EFA" = ours ]; then
	grep -q "efa_alloc_context: sub_cqs" <<<"$log" ||
		fail "not our provider: $log"
else
	! grep -q "efa_alloc_context: sub_cqs" <<<"$log" ||
		fail "our provider, not v64's libefa: $log"
fi
up_spy

# not_offered WHY FI_INFO_ARGS...: the case cannot run on this
# generation: fi_info finds no efa-direct provider with FI_RMA for these
# hints (while the efa fabric offers FI_RMA, its own protocol over sends),
# and the fabtest (run by the caller) found none either
not_offered() {
	local why=$1 out
	shift

	out=$(on 1 up_run fi_info -p efa -f efa-direct -c FI_RMA "$@" 2>&1) &&
		fail "fi_info -f efa-direct -c FI_RMA $*: offered: $out"
	grep -q "fi_getinfo: -61 (No data available)" <<<"$out" ||
		fail "fi_info -f efa-direct -c FI_RMA $*: $out"
	on 1 up_run fi_info -p efa -f efa -c FI_RMA >/dev/null ||
		fail "the efa fabric offers no FI_RMA"
	grep -q "fi_getinfo.*No data available" "$RUN/server.out" ||
		fail "fi_rma_bw: $(cat "$RUN/server.out")"
	echo "ok: $PROFILE $CASE not offered, as on hardware: part $(printf %#x "$part") $why (fi_info -f efa-direct -c FI_RMA${*:+ $*}: ${out##*$'\n'})"
	exit 0
}
# what the profile's device reports (softefa start --profile list)
CAPS=$("$SOFTEFA" start --profile list | awk -v p="$PROFILE" '$1 == p {
	getline; sub(/.* caps /, ""); sub(/;.*/, ""); print }')
has_cap() { [[ ,$CAPS, == *,$1,* ]]; }

case $CASE in
pingpong-direct)
	# efa-direct: no protocol of libfabric's own, a message per packet
	for size in 64 8928; do
		SERVER_ARGS="-B $PORT" CLIENT_ARGS="-P $PORT" up_pair fi_pingpong \
			-p efa -f efa-direct -e rdm -c -I 20 -S "$size" ||
			fail "fi_pingpong -f efa-direct -S $size"
		for side in server client; do
			sizes_printed "$side" "$size"
			grep -Eq " 20 +=20 " "$RUN/$side.out" ||
				fail "$side: not 20 acknowledged: $(cat "$RUN/$side.out")"
			no_warnings "$side"
		done
		echo "fi_pingpong -f efa-direct -S $size: $(grep -E ' =20 ' "$RUN/client.out")"
		MOVED=$((${MOVED:-0} + size * 20))
	done
	;;
rdm-pingpong | rdm-tagged-pingpong | rdm-cntr-pingpong)
	# The efa fabric's FI_MSG_PREFIX mode (fabtests' -k) is broken in
	# libfabric 2.6.0 itself (the sender stopped skipping the prefix,
	# the receiver did not), on hardware too: not run.
	fabtest RDM_SIZES "fi_${CASE//-/_}" -p efa -f efa || fail "$CASE"
	MOVED=$(($(IFS=+; echo "${RDM_SIZES[*]}") * 10))
	;;
rma-*-efa | rma-*-efa-direct)
	op=${CASE#rma-}
	op=${op%%-*}
	fabric=${CASE##*-efa}
	fabric=efa$fabric
	op_sizes=("${RDM_SIZES[@]}")
	# efa-direct moves one packet per operation
	[ "$fabric" = efa ] || op_sizes=(1 64 4096 8928)
	extra=()
	if [ "$CASE" = rma-writedata-unsolicited-efa-direct ]; then
		# Without FI_RX_CQ_DATA a write with immediate data must not
		# take a receive: efa-direct offers it only on a device with
		# unsolicited write receive, and the fabtest finds no
		# provider (-FI_ENODATA) elsewhere.
		extra=(--no-rx-cq-data)
	fi
	# what the generation lacks for it, and fi_info's hints that ask
	# for it (efa-direct needs FI_CONTEXT2; no FI_RX_CQ_DATA: unsolicited)
	why='' hints=()
	if [ "$fabric" = efa-direct ] &&
		! { has_cap rdma-read && has_cap rdma-write; }; then
		why="has no RDMA read and write"
	elif [ ${#extra[@]} -gt 0 ] && ! has_cap unsolicited-write-recv; then
		why="has no unsolicited write receive" hints=(-m FI_CONTEXT2)
	fi
	if [ -n "$why" ]; then
		! fabtest op_sizes fi_rma_bw -p efa -f "$fabric" -o "$op" \
			"${extra[@]}" 2>/dev/null ||
			fail "fi_rma_bw -f $fabric -o $op ${extra[*]} ran on a device that $why"
		not_offered "$why" "${hints[@]}"
	fi
	fabtest op_sizes fi_rma_bw -p efa -f "$fabric" -o "$op" "${extra[@]}" ||
		fail "fi_rma_bw -f $fabric -o $op ${extra[*]}"
	;;
*)
	fail "unknown case $CASE"
	;;
esac
for side in server client; do
	no_warnings "$side"
done
grep -E '^(bytes|[0-9])' "$RUN/client.out" || true

# libfabric drives the device's rings itself unless the device still has
# sub-CQs (part 0xefa0), when it calls neither: the calls it starts from
# succeeded, and none failed.
if [ "$(printf %#x "$part")" = 0xefa0 ]; then
	[ ! -s "$EFADV_SPY" ] ||
		fail "libfabric asked for the rings of a sub-CQ device: $(cat "$EFADV_SPY")"
else
	grep -q "^query_cq ret 0 " "$EFADV_SPY" ||
		fail "libfabric did not take its direct data path: $(cat "$EFADV_SPY")"
	grep -q "^query_qp_wqs ret 0 " "$EFADV_SPY" ||
		fail "no direct QP: $(cat "$EFADV_SPY")"
	! grep -q " ret [1-9]" "$EFADV_SPY" ||
		fail "an efadv call failed: $(cat "$EFADV_SPY")"
fi

# traffic: each host's device (UP_HOSTS=2: sizes' worth of bytes)
traffic() {
	local tx rx b=

	tx=$(stat_field efa_0 tx_pkts)
	rx=$(stat_field efa_0 rx_pkts)
	[ "$tx" -gt 0 ] && [ "$rx" -gt 0 ] ||
		fail "no traffic crossed the device${NETNS:+ of $NETNS}: $(sefa stats)"
	expect_only_rnr_errors efa_0
	# each side of a pingpong moves every size I times: sends it, or
	# reads the other side's (the efa fabric's long-read protocol)
	if [ "$UP_HOSTS" -eq 2 ] && [ -n "${MOVED:-}" ]; then
		b=$(($(stat_field efa_0 tx_bytes) + $(stat_field efa_0 rdma_read_bytes)))
		[ "$b" -ge "$MOVED" ] ||
			fail "$NETNS sent and read $b bytes, not $MOVED: $(sefa stats)"
	fi
	echo "${NETNS:+$NETNS: }$tx packets sent, $rx received${b:+, $b bytes sent or read}"
}
counts=$(for h in "${ON_HOSTS[@]}"; do on "$h" traffic; done | paste -sd/)
echo "ok: $PROFILE $CASE, libefa $UP_EFA (part $(printf %#x "$part"), $counts; $(sort -u "$EFADV_SPY" | tr '\n' ';'))"
