// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The subnet manager's view of the fabric: the ports its SA answers for.
 * This host's own are known from the start.  With a wire, the SM sweeps
 * the link now and then: a SubnGet(NodeInfo) to the permissive LID, which
 * the NIC sends to every daemon of the link (softefa-wire(7)), draws one
 * answer from each port's SMA, and a SubnGet(NodeDescription) to each new
 * port completes its record.  A port that stops answering leaves the view.
 * The LIDs themselves follow from each host's id (device.c): the sweep
 * finds them, it does not hand them out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "mad/mad.h"

/*
 * Every two seconds (opensm sweeps every ten): each sweep wakes every
 * engine of the link from its idle naps for a while.
 */
#define SM_SWEEP_NS		(2000 * 1000 * 1000ULL)
/* Sweeps a port may miss before it leaves the view. */
#define SM_SWEEPS_MISSED	3
#define SM_NODES_MAX		1024

struct sm_fabric {
	struct mad_agent *agent;	/* QP0: the sweep's answers */
	struct sm_node *node;
	unsigned int n;
	uint64_t next_sweep_ns;
	uint32_t tid;
};

static struct sm_node *node_find(struct sm_fabric *f, uint16_t lid)
{
	unsigned int i;

	for (i = 0; i < f->n; i++)
		if (f->node[i].lid == lid)
			return &f->node[i];
	return NULL;
}

static struct sm_node *node_get(struct sm_fabric *f, uint16_t lid)
{
	struct sm_node *node = node_find(f, lid), *grown;

	if (node)
		return node;
	if (f->n == SM_NODES_MAX)
		return NULL;
	grown = realloc(f->node, (f->n + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	f->node = grown;
	node = &f->node[f->n++];
	memset(node, 0, sizeof(*node));
	node->lid = lid;
	return node;
}

/* A SubnGet of @attr, from the SM's port to @dlid, answered or not. */
static void smp_get(struct sm_fabric *f, uint16_t dlid, uint16_t attr)
{
	struct mad_addr addr = { .dlid = dlid, .dst_qp = 0 };
	uint8_t smp[MAD_SIZE] = {};

	smp[MAD_OFF_BASE_VERSION] = MAD_BASE_VERSION;
	smp[MAD_OFF_CLASS] = MAD_CLASS_SUBN_LID;
	smp[MAD_OFF_CLASS_VERSION] = 1;
	smp[MAD_OFF_METHOD] = MAD_METHOD_GET;
	put64(smp + MAD_OFF_TID, ++f->tid);
	put16(smp + MAD_OFF_ATTR_ID, attr);
	mad_send(f->agent, NULL, &addr, smp, MAD_SIZE, 0, 0);
}

/* An SMA's answer to the sweep. */
static void sweep_answer(struct mad_agent *agent, struct mad_recv *r,
			 const struct mad_pkt *pkt)
{
	struct sm_fabric *f = agent->port->fabric;
	const uint8_t *m = r->data, *data = r->data + SMP_OFF_DATA;
	struct sm_node *node;

	if (r->len < MAD_SIZE || m[MAD_OFF_CLASS] != MAD_CLASS_SUBN_LID ||
	    get16(m + MAD_OFF_STATUS) || !pkt->slid ||
	    pkt->slid == MAD_PERMISSIVE_LID)
		goto out;
	switch (get16(m + MAD_OFF_ATTR_ID)) {
	case SMP_ATTR_NODE_INFO:
		node = node_get(f, pkt->slid);
		if (!node)
			break;
		/* another node at the LID: its description is asked again */
		if (memcmp(node->node_info, data, sizeof(node->node_info)))
			node->has_desc = node->local;
		memcpy(node->node_info, data, sizeof(node->node_info));
		memcpy(node->gid, pkt->sgid, 16);
		node->seen_ns = mad_now_ns();
		break;
	case SMP_ATTR_NODE_DESC:
		node = node_find(f, pkt->slid);
		if (!node)
			break;
		memcpy(node->desc, data, sizeof(node->desc));
		node->has_desc = true;
		break;
	}
out:
	free(r);
}

/*
 * Ports gone quiet leave; the link is asked again; new ports are named.
 * Background work: it does not keep the engine from its idle naps.
 */
void sm_tick(struct sefa_mad_port *port, uint64_t now)
{
	struct sm_fabric *f = port->fabric;
	uint64_t gone = SM_SWEEPS_MISSED * SM_SWEEP_NS;
	unsigned int i;

	if (!port->d->mad_out || now < f->next_sweep_ns)
		return;
	for (i = 0; i < f->n;) {
		struct sm_node *node = &f->node[i];

		if (node->local || now - node->seen_ns < gone) {
			if (!node->has_desc)
				smp_get(f, node->lid, SMP_ATTR_NODE_DESC);
			i++;
			continue;
		}
		*node = f->node[--f->n];
	}
	smp_get(f, MAD_PERMISSIVE_LID, SMP_ATTR_NODE_INFO);
	f->next_sweep_ns = now + SM_SWEEP_NS;
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
	for (i = 0; i < d->ndev; i++) {
		node = node_get(f, d->dev[i].lid);
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
