// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The subnet manager's view of the fabric: the ports its SA answers for,
 * and which GID holds each LID, which hosts ask it (nic/lid.c).  This
 * host's own are known from the start.  With a wire, the SM sweeps the
 * link now and then: a SubnGet(NodeInfo) to the permissive LID, which the
 * NIC sends to every daemon of the link (softefa-wire(7)).  An answer to
 * that names a candidate only, as anyone on the link may read the sweep
 * and answer it: the SM then asks the candidate at its own GID, with a
 * random transaction id, and believes only the answer from that GID with
 * that id, whose port GUID is the GID's interface id, for a LID no other
 * live port holds.  A SubnGet(NodeDescription) the same way completes the
 * record.  A port that stops answering leaves the view, and its LID is
 * free again.  The LIDs themselves follow from each host's id (device.c):
 * the sweep finds them, it does not hand them out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

#include "mad/layer.h"

/*
 * Every two seconds (opensm sweeps every ten): each sweep wakes every
 * engine of the link from its idle naps for a while.
 */
#define SM_SWEEP_NS		(2000 * 1000 * 1000ULL)
/* Sweeps a port may miss before it leaves the view. */
#define SM_SWEEPS_MISSED	3
#define SM_NODES_MAX		1024
/*
 * Questions in flight, one per GID, in sets of a few by the GID's hash:
 * two ports whose hashes meet still have their own; each waits this long.
 */
#define SM_PROBES		1024
#define SM_PROBE_WAYS		4
#define SM_PROBE_NS		(1000 * 1000 * 1000ULL)
#define SM_LIDS			(1U << 16)

/* A question to one GID: believed is the answer from it with @tid. */
struct sm_probe {
	uint8_t gid[16];
	uint64_t tid;		/* 0: none */
	uint64_t due_ns;
	uint16_t attr;
};

struct sm_fabric {
	struct mad_agent *agent;	/* QP0: the sweep's answers */
	struct sm_node *node;		/* SM_NODES_MAX */
	unsigned int n;
	uint16_t *by_lid;		/* LID: its node's index + 1, or 0 */
	uint64_t next_sweep_ns;
	uint64_t sweep_tid;		/* the sweep to the group */
	struct sm_probe probe[SM_PROBES];
};

static struct sm_node *node_find(struct sm_fabric *f, uint16_t lid)
{
	return f->by_lid[lid] ? &f->node[f->by_lid[lid] - 1] : NULL;
}

static struct sm_node *node_add(struct sm_fabric *f, uint16_t lid)
{
	struct sm_node *node;

	if (f->n == SM_NODES_MAX)
		return NULL;
	node = &f->node[f->n++];
	memset(node, 0, sizeof(*node));
	node->lid = lid;
	f->by_lid[lid] = f->n;
	return node;
}

static void node_del(struct sm_fabric *f, struct sm_node *node)
{
	struct sm_node *last = &f->node[--f->n];

	f->by_lid[node->lid] = 0;
	if (node == last)
		return;
	*node = *last;
	f->by_lid[node->lid] = node - f->node + 1;
}

static void drop(struct sm_fabric *f, enum sefa_wire_drop why)
{
	f->agent->port->d->wire_cnt.drops[why]++;
}

static bool live(const struct sm_node *node, uint64_t now)
{
	return node->local ||
	       now - node->seen_ns < SM_SWEEPS_MISSED * SM_SWEEP_NS;
}

static struct sm_probe *probe_set(struct sm_fabric *f, const uint8_t gid[16])
{
	uint32_t h = 2166136261U;	/* FNV-1a */
	unsigned int i;

	for (i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 16777619U;
	return &f->probe[h % (SM_PROBES / SM_PROBE_WAYS) * SM_PROBE_WAYS];
}

/* The question outstanding to @gid, or NULL. */
static struct sm_probe *probe_find(struct sm_fabric *f, const uint8_t gid[16])
{
	struct sm_probe *set = probe_set(f, gid);
	unsigned int i;

	for (i = 0; i < SM_PROBE_WAYS; i++)
		if (set[i].tid && !memcmp(set[i].gid, gid, 16))
			return &set[i];
	return NULL;
}

/* A slot for a new question to @gid, or NULL while one is in flight. */
static struct sm_probe *probe_slot(struct sm_fabric *f,
				   const uint8_t gid[16], uint64_t now)
{
	struct sm_probe *set = probe_set(f, gid), *free_slot = NULL;
	unsigned int i;

	for (i = 0; i < SM_PROBE_WAYS; i++) {
		bool idle = !set[i].tid || now >= set[i].due_ns;

		if (!memcmp(set[i].gid, gid, 16))
			return idle ? &set[i] : NULL;
		if (idle && !free_slot)
			free_slot = &set[i];
	}
	return free_slot;
}

/*
 * A SubnGet of @attr from the SM's port, to @dgid at the permissive LID
 * or, @dgid NULL, to the link's group.  Returns its transaction id.
 */
static uint64_t smp_get(struct sm_fabric *f, const uint8_t *dgid,
			uint16_t attr)
{
	struct mad_addr addr = { .dlid = MAD_PERMISSIVE_LID, .dst_qp = 0 };
	uint8_t smp[MAD_SIZE];
	uint32_t tid = 0;

	if (dgid) {
		addr.grh = addr.by_gid = true;
		memcpy(addr.dgid, dgid, 16);
	}
	/* unguessable: the answer is believed by its id and its GID */
	while (!tid)
		if (getrandom(&tid, sizeof(tid), 0) != sizeof(tid))
			tid = 0;
	mad_hdr_init(smp, MAD_CLASS_SUBN_LID, 1, MAD_METHOD_GET, attr, tid);
	mad_send(f->agent, NULL, &addr, smp, MAD_SIZE, 0, 0);
	return mad_wire_tid(f->agent, smp);
}

/*
 * Ask @gid for @attr, unless a question to it is in flight or its set has
 * no room.  Returns false then.
 */
static bool probe(struct sm_fabric *f, const uint8_t gid[16], uint16_t attr,
		  uint64_t now)
{
	struct sm_probe *p = probe_slot(f, gid, now);

	if (!p)
		return false;
	memcpy(p->gid, gid, 16);
	p->attr = attr;
	p->due_ns = now + SM_PROBE_NS;
	p->tid = smp_get(f, gid, attr);
	return true;
}

/* The port at @gid says it has @lid and @info: believed, if it may. */
static void node_info(struct sm_fabric *f, const struct mad_pkt *pkt,
		      const uint8_t *info, uint64_t now)
{
	struct sm_node *node = node_find(f, pkt->slid);
	unsigned int i;

	/* a port GUID is the interface id of its GID (device.c) */
	if (memcmp(info + 20, pkt->sgid + 8, 8)) {
		drop(f, SEFA_DROP_SWEEP_FORGED);
		return;
	}
	if (node && memcmp(node->gid, pkt->sgid, 16)) {
		if (live(node, now)) {
			drop(f, SEFA_DROP_SWEEP_TAKEN);
			return;
		}
		node_del(f, node);
		node = NULL;
	}
	if (!node) {
		/* a port holds one LID: a GID that had another leaves it */
		for (i = 0; i < f->n; i++)
			if (!f->node[i].local &&
			    !memcmp(f->node[i].gid, pkt->sgid, 16)) {
				node_del(f, &f->node[i]);
				break;
			}
		node = node_add(f, pkt->slid);
		if (!node) {
			drop(f, SEFA_DROP_SWEEP_FULL);
			return;
		}
		memcpy(node->gid, pkt->sgid, 16);
	}
	/* another node at the LID: its description is asked again */
	if (memcmp(node->node_info, info, sizeof(node->node_info)))
		node->has_desc = false;
	memcpy(node->node_info, info, sizeof(node->node_info));
	node->seen_ns = now;
	if (!node->has_desc)
		probe(f, node->gid, SMP_ATTR_NODE_DESC, now);
}

/* An SMA's answer: to a question of ours, or to the sweep, a candidate. */
static void sweep_answer(struct mad_agent *agent, struct mad_recv *r,
			 const struct mad_pkt *pkt)
{
	struct sm_fabric *f = agent->port->fabric;
	const uint8_t *m = r->data, *data = r->data + SMP_OFF_DATA;
	uint16_t attr = get16(m + MAD_OFF_ATTR_ID);
	uint64_t tid = get64(m + MAD_OFF_TID), now = mad_now_ns();
	struct sm_probe *p = probe_find(f, pkt->sgid);
	struct sm_node *node;

	if (r->len < MAD_SIZE || m[MAD_OFF_CLASS] != MAD_CLASS_SUBN_LID ||
	    get16(m + MAD_OFF_STATUS) || !pkt->slid ||
	    pkt->slid == MAD_PERMISSIVE_LID)
		goto out;
	if (!p || tid != p->tid || attr != p->attr) {
		/* the group's answers name whom to ask, no more */
		if (attr != SMP_ATTR_NODE_INFO || tid != f->sweep_tid ||
		    !probe(f, pkt->sgid, SMP_ATTR_NODE_INFO, now))
			drop(f, SEFA_DROP_SWEEP_UNASKED);
		goto out;
	}
	p->tid = 0;
	if (attr == SMP_ATTR_NODE_INFO) {
		node_info(f, pkt, data, now);
		goto out;
	}
	node = node_find(f, pkt->slid);
	if (attr == SMP_ATTR_NODE_DESC && node && !node->local &&
	    !memcmp(node->gid, pkt->sgid, 16)) {
		memcpy(node->desc, data, sizeof(node->desc));
		node->has_desc = true;
	}
out:
	free(r);
}

/*
 * Ports gone quiet leave; the link is asked again.  Background work: it
 * does not keep the engine from its idle naps.
 */
void sm_tick(struct sefa_mad_port *port, uint64_t now)
{
	struct sm_fabric *f = port->fabric;
	unsigned int i;

	if (!port->d->mad_out || now < f->next_sweep_ns)
		return;
	for (i = 0; i < f->n;) {
		if (live(&f->node[i], now))
			i++;
		else
			node_del(f, &f->node[i]);
	}
	f->sweep_tid = smp_get(f, NULL, SMP_ATTR_NODE_INFO);
	f->next_sweep_ns = now + SM_SWEEP_NS;
}

/* The GID that holds @lid, as the SM knows: 0, or -ENOENT. */
int sefa_sm_where(struct sefa_daemon *d, uint16_t lid, uint8_t gid[16])
{
	struct sm_fabric *f = d->sm_port->fabric;
	struct sm_node *node = node_find(f, lid);

	if (lid == SEFA_SM_LID) {
		memcpy(gid, d->sm_port->gid, 16);
		return 0;
	}
	if (!node || !live(node, mad_now_ns()))
		return -ENOENT;
	memcpy(gid, node->gid, 16);
	return 0;
}

/* @gid looked for the SM: a host to ask who it is. */
void sefa_sm_candidate(struct sefa_daemon *d, const uint8_t gid[16])
{
	probe(d->sm_port->fabric, gid, SMP_ATTR_NODE_INFO, mad_now_ns());
	mad_run(d);
}

const struct sm_node *sm_nodes(const struct sefa_mad_port *port,
			       unsigned int *n)
{
	*n = port->fabric->n;
	return port->fabric->node;
}

/* The view goes; its agent goes with the port's others. */
void sm_fini(struct sefa_mad_port *port)
{
	if (!port->fabric)
		return;
	free(port->fabric->node);
	free(port->fabric->by_lid);
	free(port->fabric);
	port->fabric = NULL;
}

/* The view of the SM on @port: this host's ports, and the sweep's agent. */
int sm_init(struct sefa_daemon *d, struct sefa_mad_port *port)
{
	struct mad_reg reg = { .qpn = 0 };
	struct sm_fabric *f = calloc(1, sizeof(*f));
	struct sm_node *node;
	unsigned int i;
	int ret = -ENOMEM;

	if (!f)
		return -ENOMEM;
	port->fabric = f;
	f->node = calloc(SM_NODES_MAX, sizeof(*f->node));
	f->by_lid = calloc(SM_LIDS, sizeof(*f->by_lid));
	if (!f->node || !f->by_lid)
		goto err;
	for (i = 0; i < d->ndev; i++) {
		node = node_add(f, d->dev[i].lid);
		if (!node)
			goto err;
		node->local = node->has_desc = true;
		memcpy(node->gid, d->dev[i].gid, 16);
		mad_node_info(&d->dev[i], node->node_info);
		mad_node_desc(d, &d->dev[i], node->desc);
	}
	f->agent = calloc(1, sizeof(*f->agent));
	if (!f->agent)
		goto err;
	f->agent->handler = sweep_answer;
	f->agent->all_responses = true;
	ret = mad_agent_register(port, &reg, f->agent);
	if (ret)
		goto err_agent;
	return 0;
err_agent:
	free(f->agent);
err:
	sm_fini(port);
	return ret;
}
