// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire that carries QP0 and QP1 MADs between the ports of this daemon,
 * and to and from other hosts through the NIC.  The queue (packet.c) is
 * drained in order by whoever put the first MAD on it, so an answer that
 * causes an answer never recurses.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "mad/layer.h"

static struct sefa_mad_port *port_by_lid(struct sefa_daemon *d, uint16_t lid)
{
	unsigned int i;

	if (d->sm_port && d->sm_port->lid == lid)
		return d->sm_port;
	for (i = 0; i < d->ndev; i++)
		if (d->dev[i].mad && d->dev[i].lid == lid)
			return d->dev[i].mad;
	return NULL;
}

/* To the port at the packet's DLID: one of this host, else another's. */
static void wire_deliver(struct sefa_daemon *d, struct mad_pkt *pkt)
{
	struct sefa_mad_port *port = pkt->loopback ? pkt->loopback :
				     port_by_lid(d, pkt->dlid);
	struct sefa_mad_frame f = {
		.slid = pkt->slid,
		.dlid = pkt->dlid,
		.src_qp = pkt->src_qp,
		.dst_qp = pkt->dst_qp,
		.mad = pkt->mad,
	};

	if (port) {
		mad_port_recv(port, pkt);
		return;
	}
	if (!d->mad_out)
		return;
	memcpy(f.sgid, pkt->sgid, 16);
	memcpy(f.dgid, pkt->dgid, 16);
	f.by_gid = pkt->by_gid;
	d->mad_out(d, &f);
}

static void wire_in(struct sefa_mad_port *port, const struct sefa_mad_frame *f)
{
	struct mad_pkt *pkt = calloc(1, sizeof(*pkt));

	if (!pkt)
		return;
	pkt->slid = f->slid;
	pkt->dlid = port->lid;
	pkt->src_qp = f->src_qp;
	pkt->dst_qp = f->dst_qp;
	pkt->from_wire = true;
	memcpy(pkt->sgid, f->sgid, 16);
	memcpy(pkt->dgid, port->gid, 16);
	memcpy(pkt->mad, f->mad, MAD_SIZE);
	mad_xmit(port->d, pkt);
}

/*
 * A MAD from another host (the NIC's mad_in): to the port at its DLID on
 * the device it came to, or the SM's sweep to every device's port.  The
 * RoCEv2 packet had no LRH to carry an SL or a GRH flag: it reads as SL 0,
 * routed by LID.
 */
void sefa_mad_wire_in(struct sefa_daemon *d, const struct sefa_mad_frame *f)
{
	struct sefa_mad_port *port;
	unsigned int i;

	if (f->dlid == MAD_PERMISSIVE_LID) {
		/* to the group: every port; else the one of the GID asked */
		for (i = 0; i < d->ndev; i++)
			if (d->dev[i].mad && (f->to_group ||
			    !memcmp(d->dev[i].gid, f->dgid, 16)))
				wire_in(d->dev[i].mad, f);
	} else {
		port = port_by_lid(d, f->dlid);
		if (!port || memcmp(port->gid, f->dgid, 16)) {
			d->wire_cnt.drops[SEFA_DROP_NO_DEVICE]++;
			return;
		}
		wire_in(port, f);
	}
	mad_run(d);
}

/* Deliver everything on the wire, and what that sends in turn. */
void mad_run(struct sefa_daemon *d)
{
	struct mad_pkt *pkt;

	if (d->mad_draining)
		return;
	d->mad_draining = true;
	while ((pkt = d->mad_wire)) {
		d->mad_wire = pkt->next;
		wire_deliver(d, pkt);
		free(pkt);
	}
	d->mad_draining = false;
}

