// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The text of softefa status and softefa stats: what the daemon holds and
 * what its devices, engines and wire counted, read under the daemon lock.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "status.h"
#include "fault/fault.h"
#include "mad/mad.h"
#include "nic/nic.h"
#include "uverbs/uverbs.h"

/* softefa status: the devices, and each client's objects. */
void sefa_status_text(struct sefa_daemon *d, char *buf, size_t len)
{
	struct sefa_client *c;
	unsigned int i, contexts = 0, objects = 0, files = 0;
	size_t off = 0;

	/* The clients list, and each connection's device and counts. */
	sefa_daemon_lock(d);
	for (c = d->clients; c; c = c->next) {
		if (!c->dev)
			continue;
		files++;
		contexts += c->has_ucontext;
		objects += c->nobjects;
	}
	off += snprintf(buf + off, len - off,
			"run-dir: %s\nprofile: %s\nabi: %s\nnetdev: %s %s\n"
			"devices: %u\nclients: %u\ncontexts: %u\nobjects: %u\n",
			d->run_dir, d->profile->name,
			d->abi == SEFA_ABI_IOCTL ? "ioctl" : "write",
			d->netdev.name, d->netdev.addr, d->ndev, files,
			contexts, objects);
	for (i = 0; i < d->ndev && off < len; i++) {
		const struct sefa_device *dev = &d->dev[i];
		char gid[64];

		sefa_gid_str(dev->gid, gid, sizeof(gid));
		off += snprintf(buf + off, len - off,
				"device %s uverbs%u guid %016llx gid %s lid %u\n",
				dev->name, dev->index,
				(unsigned long long)dev->node_guid, gid,
				dev->lid);
	}
	for (c = d->clients; c && off < len; c = c->next) {
		if (!c->dev)
			continue;
		off += snprintf(buf + off, len - off,
				"client pid %d device %s context %s objects %u\n",
				(int)c->pid, c->dev->name,
				c->has_ucontext ? "yes" : "no", c->nobjects);
	}
	sefa_daemon_unlock(d);
}

/*
 * A device's or a QP's counters on one line.  The device's line also has
 * those only its sysfs hw_counters show, by their names there, so the two
 * can be compared; a QP's stays short, as a stats reply holds many.
 */
static size_t counters_text(char *buf, size_t len, const char *what,
			    const struct sefa_counters *k, bool hw)
{
	int n = snprintf(buf, len,
			 "%s tx_pkts %llu tx_bytes %llu rx_pkts %llu rx_bytes %llu "
			 "rx_drops %llu rnr_retries %llu errors %llu "
			 "rdma_reads %llu rdma_writes %llu retransmits %llu "
			 "dup_drops %llu rdma_read_bytes %llu "
			 "rdma_write_bytes %llu", what,
			 (unsigned long long)k->tx_pkts,
			 (unsigned long long)k->tx_bytes,
			 (unsigned long long)k->rx_pkts,
			 (unsigned long long)k->rx_bytes,
			 (unsigned long long)k->rx_drops,
			 (unsigned long long)k->rnr_retries,
			 (unsigned long long)k->errors,
			 (unsigned long long)k->rdma_reads,
			 (unsigned long long)k->rdma_writes,
			 (unsigned long long)k->retransmits,
			 (unsigned long long)k->dup_drops,
			 (unsigned long long)k->rdma_read_bytes,
			 (unsigned long long)k->rdma_write_bytes);
	size_t off = n < 0 ? 0 : (size_t)n;

	if (hw && off < len) {
		n = snprintf(buf + off, len - off,
			     " send_wrs %llu send_bytes %llu recv_wrs %llu "
			     "recv_bytes %llu rdma_read_wr_err %llu "
			     "rdma_write_wr_err %llu rdma_read_resp_bytes %llu "
			     "rdma_write_recv_bytes %llu retrans_bytes %llu "
			     "retrans_timeout_events %llu "
			     "unresponsive_remote_events %llu",
			     (unsigned long long)k->send_wrs,
			     (unsigned long long)k->send_bytes,
			     (unsigned long long)k->recv_wrs,
			     (unsigned long long)k->recv_bytes,
			     (unsigned long long)k->rdma_read_wr_err,
			     (unsigned long long)k->rdma_write_wr_err,
			     (unsigned long long)k->rdma_read_resp_bytes,
			     (unsigned long long)k->rdma_write_recv_bytes,
			     (unsigned long long)k->retrans_bytes,
			     (unsigned long long)k->retrans_timeout_events,
			     (unsigned long long)k->unresponsive_remote_events);
		off += n < 0 ? 0 : (size_t)n;
	}
	if (off < len) {
		n = snprintf(buf + off, len - off, "\n");
		off += n < 0 ? 0 : (size_t)n;
	}
	return off < len ? off : len;
}

/* The device's hw_counters of its admin commands, by their sysfs names. */
static size_t admin_text(char *buf, size_t len, const struct sefa_device *dev)
{
	const struct sefa_admin_counters *k = &dev->admin;
	int n = snprintf(buf, len,
			 "admin %s submitted_cmds %llu completed_cmds %llu "
			 "cmds_err %llu no_completion_cmds %llu "
			 "keep_alive_rcvd %llu alloc_pd_err %llu "
			 "create_qp_err %llu create_cq_err %llu reg_mr_err %llu "
			 "alloc_ucontext_err %llu create_ah_err %llu "
			 "mmap_err %llu\n", dev->name,
			 (unsigned long long)k->submitted_cmds,
			 (unsigned long long)k->completed_cmds,
			 (unsigned long long)k->cmds_err,
			 (unsigned long long)k->no_completion_cmds,
			 (unsigned long long)k->keep_alive_rcvd,
			 (unsigned long long)k->alloc_pd_err,
			 (unsigned long long)k->create_qp_err,
			 (unsigned long long)k->create_cq_err,
			 (unsigned long long)k->reg_mr_err,
			 (unsigned long long)k->alloc_ucontext_err,
			 (unsigned long long)k->create_ah_err,
			 (unsigned long long)k->mmap_err);

	return n < 0 ? 0 : (size_t)n;
}

/* How the engines slept, all of them together. */
static size_t engine_text(char *buf, size_t len, const struct sefa_daemon *d)
{
	struct sefa_engine_counters e = {};
	unsigned int i;
	int n;

	for (i = 0; i < d->ndev; i++) {
		e.sleeps += d->dev[i].engine_cnt.sleeps;
		e.woken += d->dev[i].engine_cnt.woken;
		e.unannounced += d->dev[i].engine_cnt.unannounced;
		e.inbox_drops += d->dev[i].engine_cnt.inbox_drops;
	}
	n = snprintf(buf, len,
		     "engine sleeps %llu woken %llu unannounced %llu inbox_drops %llu\n",
		     (unsigned long long)e.sleeps,
		     (unsigned long long)e.woken,
		     (unsigned long long)e.unannounced,
		     (unsigned long long)e.inbox_drops);
	return n < 0 ? 0 : (size_t)n;
}

/* softefa stats' names of enum sefa_wire_drop, in its order */
static const char *const wire_drop_names[] = {
	[SEFA_DROP_TRUNCATED] = "truncated",
	[SEFA_DROP_MALFORMED] = "malformed",
	[SEFA_DROP_NO_DEVICE] = "no_device",
	[SEFA_DROP_BAD_MAD] = "bad_mad",
	[SEFA_DROP_LID_UNASKED] = "lid_unasked",
	[SEFA_DROP_LID_NOT_SM] = "lid_not_sm",
	[SEFA_DROP_LID_UNKNOWN] = "lid_unknown",
	[SEFA_DROP_SWEEP_UNASKED] = "sweep_unasked",
	[SEFA_DROP_SWEEP_FORGED] = "sweep_forged",
	[SEFA_DROP_SWEEP_TAKEN] = "sweep_taken",
	[SEFA_DROP_SWEEP_FULL] = "sweep_full",
	[SEFA_DROP_MAD_UNASKED] = "mad_unasked",
	[SEFA_DROP_NOT_PEER] = "not_peer",
	[SEFA_DROP_NO_WINDOW] = "no_window",
};
_Static_assert(sizeof(wire_drop_names) / sizeof(wire_drop_names[0]) ==
	       SEFA_DROP_MAX, "a drop reason without a name");

/*
 * What the wire to other hosts carried, the faults it injected, and what
 * it received but dropped: rx_bad in all, then by reason.
 */
static size_t wire_text(char *buf, size_t len, const struct sefa_daemon *d)
{
	const struct sefa_wire_counters *w = &d->wire_cnt;
	unsigned long long bad = 0;
	size_t off;
	int n, i;

	if (!d->wire.on)
		return 0;
	for (i = 0; i < SEFA_DROP_MAX; i++)
		bad += w->drops[i];
	n = snprintf(buf, len,
		     "wire %s tx_pkts %llu rx_pkts %llu rx_bad %llu tx_errors %llu "
		     "lost %llu dups %llu reordered %llu\nwire drops",
		     d->netdev.name, (unsigned long long)w->tx_pkts,
		     (unsigned long long)w->rx_pkts, bad,
		     (unsigned long long)w->tx_errors,
		     (unsigned long long)w->lost,
		     (unsigned long long)w->dups,
		     (unsigned long long)w->reordered);
	for (i = 0; n >= 0 && i < SEFA_DROP_MAX; i++) {
		off = (size_t)n < len ? (size_t)n : len;
		n += snprintf(buf + off, len - off, " %s %llu",
			      wire_drop_names[i],
			      (unsigned long long)w->drops[i]);
	}
	if (n >= 0) {
		off = (size_t)n < len ? (size_t)n : len;
		n += snprintf(buf + off, len - off, "\n");
	}
	return n < 0 ? 0 : (size_t)n;
}

/*
 * What each open device file makes the daemon hold: objects, rings and
 * doorbells, and the memory its regions pin, in bytes.
 */
static size_t holdings_text(char *buf, size_t len, struct sefa_daemon *d)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	const struct sefa_client *c;
	size_t off = 0;
	int n;

	for (c = d->clients; c && off < len; c = c->next) {
		if (!c->dev)
			continue;
		n = snprintf(buf + off, len - off,
			     "client pid %d device %s objects %u queue_bytes %llu pinned_bytes %llu\n",
			     (int)c->pid, c->dev->name, c->nobjects,
			     (unsigned long long)c->queue_bytes,
			     (unsigned long long)(c->pinned_pages * page));
		if (n < 0)
			break;
		off += (size_t)n;
	}
	return off;
}

/*
 * Per-device counters, one line per live QP, the wire's, then each
 * client's holdings.
 */
void sefa_stats_text(struct sefa_daemon *d, char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i, q;
	char what[96];

	/* The QP tables and the counters, which the engine updates. */
	sefa_daemon_lock(d);
	for (i = 0; i < d->ndev && off < len; i++) {
		struct sefa_device *dev = &d->dev[i];

		snprintf(what, sizeof(what), "device %s", dev->name);
		off += counters_text(buf + off, len - off, what, &dev->cnt,
				     true);
		if (off < len)
			off += admin_text(buf + off, len - off, dev);
		if (off < len)
			off += snprintf(buf + off, len - off,
					"faults %s injected %llu\n", dev->name,
					(unsigned long long)
					sefa_fault_dev_total(d->faults, i));
		for (q = 0; q < SEFA_MAX_QP_IDX && off < len; q++) {
			const struct sefa_qp *qp = dev->qp[q];

			if (!qp)
				continue;
			snprintf(what, sizeof(what), "qp %s %#x %s pid %d",
				 dev->name, qp->qpn,
				 qp->type == IBV_QPT_UD ? "ud" :
				 qp->type == IBV_QPT_RC ? "rc" : "srd",
				 (int)qp->uobj.c->pid);
			off += counters_text(buf + off, len - off, what,
					     &qp->cnt, false);
		}
	}
	if (off < len)
		off += engine_text(buf + off, len - off, d);
	if (off < len)
		off += wire_text(buf + off, len - off, d);
	if (off < len)
		off += holdings_text(buf + off, len - off, d);
	if (off < len && d->faults)
		sefa_fault_stats_text(d->faults, buf + off, len - off);
	sefa_daemon_unlock(d);
}
