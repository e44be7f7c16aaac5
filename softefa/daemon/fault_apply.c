// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fault rules that the daemon carries out itself: an async event or a
 * freeze, at the moment its rule is added, and the verdict on each packet
 * of the one-host path, and on each to or from another host, which the
 * NIC asks through d->path_fault.  The
 * fault engine (fault/) says which rule fires; what follows is here, in
 * the layer that may reach both it and the verbs objects.
 */
#define _GNU_SOURCE
#include <time.h>

#include "client.h"
#include "fault/fault.h"
#include "nic/nic.h"
#include "verbs/verbs.h"

static const enum sefa_async_kind async_kind[] = {
	[SEFA_FAULT_EV_QP_FATAL] = SEFA_ASYNC_QP_FATAL,
	[SEFA_FAULT_EV_CQ_ERROR] = SEFA_ASYNC_CQ_ERR,
	[SEFA_FAULT_EV_PORT_DOWN] = SEFA_ASYNC_PORT_DOWN,
	[SEFA_FAULT_EV_PORT_UP] = SEFA_ASYNC_PORT_UP,
	[SEFA_FAULT_EV_DEVICE_FATAL] = SEFA_ASYNC_DEVICE_FATAL,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A rule that acts when added: under the daemon lock, which the control
 * request took before the table's (sefa_fault_apply_add()).
 */
static void on_add(void *arg, const struct sefa_fault_hit *hit, int dev)
{
	struct sefa_daemon *d = arg;
	int64_t qpn = hit->qpn == SEFA_FAULT_NO_QPN ? -1 : (int64_t)hit->qpn;
	unsigned int i;

	if (hit->action == SEFA_FAULT_FREEZE) {
		atomic_store(&d->freeze_until_ns, hit->usec ?
			     now_ns() + hit->usec * 1000 : UINT64_MAX);
		return;
	}
	if (hit->action != SEFA_FAULT_EVENT)
		return;
	for (i = 0; i < d->ndev; i++) {
		if (dev != SEFA_FAULT_NO_DEV && (unsigned int)dev != i)
			continue;
		sefa_async_raise(d, &d->dev[i], async_kind[hit->event], qpn);
	}
	/* what an event changed (a QP in error, a port) is the engines' */
	sefa_engine_kick(d);
}

#define PATH_ACTIONS	(SEFA_FAULT_BIT(SEFA_FAULT_LOSS) |		\
			 SEFA_FAULT_BIT(SEFA_FAULT_DUP) |		\
			 SEFA_FAULT_BIT(SEFA_FAULT_REORDER) |		\
			 SEFA_FAULT_BIT(SEFA_FAULT_DELAY) |		\
			 SEFA_FAULT_BIT(SEFA_FAULT_BLACKHOLE))

static enum sefa_fault_op path_op(const struct sefa_path_pkt *p)
{
	switch (p->op) {
	case EFA_IO_SEND:
		return SEFA_FAULT_OP_SEND;
	case EFA_IO_RDMA_READ:
		return SEFA_FAULT_OP_READ;
	case EFA_IO_RDMA_WRITE:
		return p->imm ? SEFA_FAULT_OP_WRITE_IMM : SEFA_FAULT_OP_WRITE;
	default:
		return SEFA_FAULT_OP_ANY;
	}
}

/*
 * A black hole swallows both ways: a packet to this host's device from
 * the one a blackhole peer-gid= names, seen from that device's side.
 */
static bool blackhole_back(struct sefa_daemon *d, const struct sefa_path_pkt *p,
			   const struct sefa_fault_ctx *fwd,
			   struct sefa_fault_hit *hit)
{
	struct sefa_fault_ctx w = *fwd;

	if (!p->dst || (!p->src && !p->remote_gid))
		return false;
	w.actions = SEFA_FAULT_BIT(SEFA_FAULT_BLACKHOLE);
	w.dev = p->dst->index;
	w.peer_dev = p->src ? (int)p->src->index : SEFA_FAULT_NO_DEV;
	w.qpn = p->dqpn;
	w.peer_qpn = p->sqpn;
	w.peer_gid = p->src ? p->src->gid : p->remote_gid;
	return sefa_fault_match(d->faults, &w, hit) > 0;
}

/*
 * A packet from the device that sends it (dev=, qp=) to the other end
 * (peer-dev=, peer=, peer-gid=); an answer is the responder's packet.
 * Between hosts only a black hole applies: the wire's own faults are
 * softefad's --wire-* options.
 */
static bool path_judge(struct sefa_daemon *d, const struct sefa_path_pkt *p,
		       struct sefa_path_verdict *v)
{
	unsigned int actions = p->remote_gid ?
			       SEFA_FAULT_BIT(SEFA_FAULT_BLACKHOLE) :
			       PATH_ACTIONS;
	struct sefa_fault_hit hit;
	struct sefa_fault_ctx w;

	if (!sefa_fault_any(d->faults, actions))
		return false;
	sefa_fault_ctx_init(&w, actions);
	if (p->src)
		w.dev = p->src->index;
	if (p->dst)
		w.peer_dev = p->dst->index;
	w.qpn = p->sqpn;
	w.peer_qpn = p->dqpn;
	w.peer_gid = p->dst ? p->dst->gid : p->remote_gid;
	w.op = p->answer ? SEFA_FAULT_OP_ANY : path_op(p);
	if (sefa_fault_match(d->faults, &w, &hit) <= 0 &&
	    !blackhole_back(d, p, &w, &hit))
		return true;
	switch (hit.action) {
	case SEFA_FAULT_LOSS:
	case SEFA_FAULT_BLACKHOLE:
		v->drop = true;
		break;
	case SEFA_FAULT_DUP:
		v->dup = true;
		break;
	case SEFA_FAULT_REORDER:
		v->reorder = true;
		break;
	case SEFA_FAULT_DELAY:
		v->delay_ns = hit.usec * 1000;
		break;
	default:
		break;
	}
	return true;
}

void sefa_fault_apply_init(struct sefa_daemon *d)
{
	d->path_fault = path_judge;
	sefa_fault_on_add(d->faults, on_add, d);
}

/*
 * softefa inject add: the rule into the table under the daemon lock, so
 * that one acting when added finds the objects it acts on as they are.
 */
int sefa_fault_apply_add(struct sefa_daemon *d, const char *text,
			 unsigned int *id, char *why, size_t why_len)
{
	int ret;

	sefa_daemon_lock(d);
	ret = sefa_fault_add(d->faults, text, id, why, why_len);
	sefa_daemon_unlock(d);
	return ret;
}
