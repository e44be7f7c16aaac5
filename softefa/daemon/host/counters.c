// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The names of the device's counters, once: sysfs hw_counters writes the
 * files the efa driver has (efa_verbs.c, EFA_DEFINE_PORT_STATS and
 * EFA_DEFINE_DEVICE_STATS) from these tables, and softefa stats prints
 * its lines from them, so the two cannot name a counter differently.
 */
#include <stddef.h>
#include <stdint.h>

#include "host/host.h"

#define CNT(field)	offsetof(struct sefa_counters, field)
/*
 * The efa driver's port counters in its order, which rdma statistic shows
 * too, then those softefa stats alone has.  softefa stats keeps its own
 * names where sysfs has others (rdma_reads is rdma_read_wrs), and a QP's
 * line leaves out the device_only ones.  impaired_remote_conn_events
 * stays 0, as SoftEFA's connections to a peer are either answered or
 * time out, never degraded.
 */
const struct sefa_counter_name sefa_port_counter_names[] = {
	{ "tx_bytes", "tx_bytes", CNT(tx_bytes), false },
	{ "tx_pkts", "tx_pkts", CNT(tx_pkts), false },
	{ "rx_bytes", "rx_bytes", CNT(rx_bytes), false },
	{ "rx_pkts", "rx_pkts", CNT(rx_pkts), false },
	{ "rx_drops", "rx_drops", CNT(rx_drops), false },
	{ "send_bytes", "send_bytes", CNT(send_bytes), true },
	{ "send_wrs", "send_wrs", CNT(send_wrs), true },
	{ "recv_bytes", "recv_bytes", CNT(recv_bytes), true },
	{ "recv_wrs", "recv_wrs", CNT(recv_wrs), true },
	{ "rdma_reads", "rdma_read_wrs", CNT(rdma_reads), false },
	{ "rdma_read_bytes", "rdma_read_bytes", CNT(rdma_read_bytes), false },
	{ "rdma_read_wr_err", "rdma_read_wr_err", CNT(rdma_read_wr_err),
	  true },
	{ "rdma_read_resp_bytes", "rdma_read_resp_bytes",
	  CNT(rdma_read_resp_bytes), true },
	{ "rdma_writes", "rdma_write_wrs", CNT(rdma_writes), false },
	{ "rdma_write_bytes", "rdma_write_bytes", CNT(rdma_write_bytes),
	  false },
	{ "rdma_write_wr_err", "rdma_write_wr_err", CNT(rdma_write_wr_err),
	  true },
	{ "rdma_write_recv_bytes", "rdma_write_recv_bytes",
	  CNT(rdma_write_recv_bytes), true },
	{ "retrans_bytes", "retrans_bytes", CNT(retrans_bytes), true },
	{ "retransmits", "retrans_pkts", CNT(retransmits), false },
	{ "retrans_timeout_events", "retrans_timeout_events",
	  CNT(retrans_timeout_events), true },
	{ "unresponsive_remote_events", "unresponsive_remote_events",
	  CNT(unresponsive_remote_events), true },
	{ NULL, "impaired_remote_conn_events", SEFA_NO_COUNTER, true },
	{ "rnr_retries", NULL, CNT(rnr_retries), false },
	{ "errors", NULL, CNT(errors), false },
	{ "rnr_errors", NULL, CNT(rnr_errors), false },
	{ "dup_drops", NULL, CNT(dup_drops), false },
};
#undef CNT
const size_t sefa_port_counter_count =
	sizeof(sefa_port_counter_names) / sizeof(sefa_port_counter_names[0]);

#define ADMIN(field)	\
	{ #field, #field, offsetof(struct sefa_admin_counters, field), true }
const struct sefa_counter_name sefa_device_counter_names[] = {
	ADMIN(submitted_cmds), ADMIN(completed_cmds), ADMIN(cmds_err),
	ADMIN(no_completion_cmds), ADMIN(keep_alive_rcvd), ADMIN(alloc_pd_err),
	ADMIN(create_qp_err), ADMIN(create_cq_err), ADMIN(reg_mr_err),
	ADMIN(alloc_ucontext_err), ADMIN(create_ah_err), ADMIN(mmap_err),
};
#undef ADMIN
const size_t sefa_device_counter_count =
	sizeof(sefa_device_counter_names) /
	sizeof(sefa_device_counter_names[0]);

uint64_t sefa_counter_value(const struct sefa_counter_name *n, const void *k)
{
	uint64_t v = 0;

	if (n->off != SEFA_NO_COUNTER)
		v = *(const uint64_t *)((const char *)k + n->off);
	return v;
}
