// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MADs as packets: the clock of the layer's timers, the messages agents
 * receive, and the queue of QP0/QP1 packets in flight between ports.  Here
 * a packet is only put on the queue; the route (route.c) drains it, so a
 * stage that sends never calls into the stage that receives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "mad/layer.h"

uint64_t mad_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

struct mad_recv *mad_recv_new(size_t len)
{
	return calloc(1, sizeof(struct mad_recv) + len);
}

/* Put a MAD on the wire (taking it); mad_run() delivers it. */
void mad_xmit(struct sefa_daemon *d, struct mad_pkt *pkt)
{
	pkt->next = NULL;
	if (!d->mad_wire)
		d->mad_wire_tail = &d->mad_wire;
	*d->mad_wire_tail = pkt;
	d->mad_wire_tail = &pkt->next;
}

/* The answer's packet: back where the request came from. */
struct mad_pkt *mad_pkt_reply(const struct mad_pkt *req,
			      const struct sefa_mad_port *port)
{
	struct mad_pkt *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->slid = port->lid;
	p->dlid = req->slid;
	p->src_qp = req->dst_qp;
	p->dst_qp = req->src_qp;
	p->sl = req->sl;
	p->pkey_index = req->pkey_index;
	p->loopback = req->loopback;
	p->grh = req->grh;
	/* where it came from, not where its SLID, which anyone writes, says */
	p->by_gid = true;
	memcpy(p->sgid, port->gid, 16);
	memcpy(p->dgid, req->sgid, 16);
	return p;
}

/* process_mad()'s IB_MAD_RESULT_REPLY: one MAD back to the asker. */
int mad_reply(struct sefa_mad_port *port, const struct mad_pkt *req,
	      const uint8_t *resp)
{
	struct mad_pkt *p = mad_pkt_reply(req, port);

	if (!p)
		return -ENOMEM;
	memcpy(p->mad, resp, MAD_SIZE);
	mad_xmit(port->d, p);
	return 0;
}
