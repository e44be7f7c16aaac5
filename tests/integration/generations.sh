#!/bin/bash
# Every profile reports what its EFA generation reports (softefad(8),
# GENERATIONS): part id, sub-CQs, caps, limits and link through ibv_devinfo
# -v with our provider and the stock one, and efadv through ours; every
# completion vector takes a CQ and one more is EINVAL; ibv_ud_pingpong -c
# and our data-path suite run on it; the port's hw_counters grow with the
# traffic, as softefa stats says.
# Usage: generations.sh BUILD
. "$(dirname "$0")/lib.sh" "$1"

# profile part sub_cqs efadv_caps max_rdma_size speed width
table="efa0 61344 2 0x6 0 25.0 4X
efa1 61345 1 0xf 1073741824 25.0 4X
efa2 61346 1 0x1f 1073741824 25.0 4X
efa3 61347 1 0x1f 1073741824 50.0 4X
efa4 61348 1 0x1f 1073741824 50.0 8X
efa 61346 1 0x1f 1073741824 25.0 4X
extended 61346 1 0x1f 1073741824 25.0 4X"

hw() {
	cat "$RUN/sys/class/infiniband/efa_0/ports/1/hw_counters/$1"
}

hwdev() {
	cat "$RUN/sys/class/infiniband/efa_0/hw_counters/$1"
}

# Value of KEY on efa_0's admin line of softefa stats
admin_field() {
	sefa stats | awk -v k="$1" '$1 == "admin" && $2 == "efa_0" {
		for (i = 3; i < NF; i += 2) if ($i == k) print $(i + 1) }'
}

# hw_is NAME VALUE: a condition for wait_for
hw_is() {
	[ "$(hw "$1")" = "$2" ]
}

while read -r prof part subcqs caps rdma speed width; do
	start_host --profile "$prof"
	# Debian 12's stock provider (rdma-core 44) names 0xefa0-0xefa2 by
	# PCI id, and takes every part by the driver id RDMA netlink gives,
	# as with a real kernel: newer parts are its too.
	for provider in ours stock; do
		check_provider "$provider" ibv_devinfo
		info=$(sx --provider "$provider" -- ibv_devinfo -v -d efa_0) ||
			fail "$prof $provider: ibv_devinfo -v: $info"
		f() { echo "$info" | devinfo_field "$1"; }
		expect_eq "$prof $provider vendor_part_id" "$(f vendor_part_id)" "$part"
		expect_eq "$prof $provider max_qp" "$(f max_qp)" 256
		expect_eq "$prof $provider max_cqe" "$(f max_cqe)" 32768
		expect_eq "$prof $provider max_qp_wr" "$(f max_qp_wr)" 4096
		expect_eq "$prof $provider max_sge" "$(f max_sge)" 2
		expect_eq "$prof $provider max_msg_sz" "$(f max_msg_sz)" 0x22e0
		expect_eq "$prof $provider active_width" \
			"$(f active_width | awk '{ print $1 }')" "$width"
		expect_eq "$prof $provider active_speed" \
			"$(f active_speed | awk '{ print $1 }')" "$speed"
		out=$(sx --provider "$provider" -- "$BUILD/bin/cq_vectors" efa_0) ||
			fail "$prof $provider: completion vectors: $out"
		n=$(awk '$1 == "num_comp_vectors" { print $2 }' <<<"$out")
		[ "$n" -ge 2 ] ||
			fail "$prof $provider: num_comp_vectors $n, not 2 or more"
	done
	# what only the context and efadv tell: sub-CQs, caps, RDMA size
	log=$(VERBS_LOG_LEVEL=4 VERBS_LOG_FILE=/dev/stderr \
		sx --provider ours -- ibv_devinfo -d efa_0 2>&1 >/dev/null)
	grep -q "efa_alloc_context: sub_cqs $subcqs " <<<"$log" ||
		fail "$prof: not $subcqs sub-CQs: $log"
	out=$(sx --provider ours -- "$BUILD/bin/efadv_probe" efa_0) ||
		fail "$prof: efadv_query_device: $out"
	v() { echo "$out" | awk -v k="$1" '$1 == k { print $2 }'; }
	expect_eq "$prof device_caps" "$(v device_caps)" "$caps"
	expect_eq "$prof max_rdma_size" "$(v max_rdma_size)" "$rdma"
	expect_eq "$prof inline_buf_size" "$(v inline_buf_size)" 32
	# 128-byte WQEs with RDMA write (0xefa1 on); upstream's 32 without
	ex=80
	[ "$rdma" != 0 ] || ex=32
	expect_eq "$prof inline_buf_size_ex" "$(v inline_buf_size_ex)" "$ex"
	expect_eq "$prof max_sq_wr" "$(v max_sq_wr)" 4096
	expect_eq "$prof max_rq_wr" "$(v max_rq_wr)" 32768

	# traffic, with the payload checked, and the counters that saw it
	expect_eq "$prof hw tx_pkts before" "$(hw tx_pkts)" 0
	PORT=$(pick_port)
	pair ours stock ibv_ud_pingpong -g 0 -p "$PORT" -n 100 -c -s 1024 ||
		fail "$prof: ibv_ud_pingpong"
	! grep -q "invalid data" "$RUN/server.out" ||
		fail "$prof: payload: $(cat "$RUN/server.out")"
	wait_for 10 "hw_counters tx_pkts of 200 on $prof" hw_is tx_pkts 200
	wait_for 10 "hw_counters rx_pkts of 200 on $prof" hw_is rx_pkts 200
	expect_eq "$prof hw rx_drops" "$(hw rx_drops)" 0
	[ "$(hw tx_bytes)" -ge $((200 * 1024)) ] ||
		fail "$prof: hw_counters tx_bytes $(hw tx_bytes)"
	# 100 SENDs each way on efa_0, each a work request on one side and a
	# receive on the other; no RDMA, no error, nothing sent again
	expect_eq "$prof hw send_wrs" "$(hw send_wrs)" 200
	expect_eq "$prof hw recv_wrs" "$(hw recv_wrs)" 200
	expect_eq "$prof hw send_bytes" "$(hw send_bytes)" "$(hw tx_bytes)"
	expect_eq "$prof hw recv_bytes" "$(hw recv_bytes)" "$(hw rx_bytes)"
	for k in rdma_read_wrs rdma_write_wrs rdma_read_wr_err \
		rdma_write_wr_err rdma_read_resp_bytes rdma_write_recv_bytes \
		retrans_pkts retrans_bytes retrans_timeout_events; do
		expect_eq "$prof hw $k" "$(hw $k)" 0
	done
	# and softefa stats says the same, by the same names
	for k in tx_pkts tx_bytes rx_pkts rx_bytes send_wrs send_bytes \
		recv_wrs recv_bytes; do
		expect_eq "$prof stats $k" "$(stat_field efa_0 $k)" "$(hw $k)"
	done
	# the two pingpongs' contexts, PDs, CQs, QPs, MRs and AHs were
	# admin commands, each answered; sysfs had a lifespan to catch up
	sleep 0.3
	[ "$(hwdev submitted_cmds)" -ge 12 ] ||
		fail "$prof: submitted_cmds $(hwdev submitted_cmds)"
	expect_eq "$prof completed_cmds" "$(hwdev completed_cmds)" \
		"$(hwdev submitted_cmds)"
	for k in submitted_cmds completed_cmds cmds_err alloc_pd_err \
		create_qp_err create_cq_err reg_mr_err create_ah_err mmap_err; do
		expect_eq "$prof stats $k" "$(admin_field $k)" "$(hwdev $k)"
	done
	# dp_verbs registers its memory for RDMA, which 0xefa0 refuses
	if [ "$rdma" != 0 ]; then
		SEFA_PROFILE=$prof SEFA_CLI=$SOFTEFA \
			sx -- "$BUILD/bin/dp_verbs" >"$RUN/dp.out" 2>&1 ||
			fail "$prof: dp_verbs: $(tail -20 "$RUN/dp.out")"
	fi
	# efadv, after the counters were checked: on sub-CQs efadv_query_cq
	# gives the first ring, as upstream's; unsolicited write receive
	# where the caps say so (efadv's 0x10), else its flag refused
	dvout=$(SEFA_SUB_CQS=$subcqs sx --provider ours -- \
		"$BUILD/bin/efadv_verbs" 2>&1) ||
		fail "$prof: efadv_verbs: $dvout"
	if [ "$subcqs" -gt 1 ]; then
		grep -q "^query_cq sub_cqs $subcqs entry_size 16 num_entries 128$" \
			<<<"$dvout" || fail "$prof: efadv_query_cq: $dvout"
	fi
	unsol="unsolicited refused"
	[ $((caps & 0x10)) = 0 ] || unsol="unsolicited_write_imm ok"
	grep -qx "$unsol" <<<"$dvout" || fail "$prof: not '$unsol': $dvout"
	stop_host
	echo "ok: $prof"
done <<<"$table"
echo ok
