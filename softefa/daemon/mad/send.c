// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sends an agent tracks: how each is linked to its agent and counted
 * for umad's caps, which packet answers which send, and how one packet of
 * a send goes on the wire with the TID the layer gives it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "mad/layer.h"

static void rmpp_send_free(struct rmpp_send *r)
{
	free(r->msg);
	free(r);
}

void mad_send_free(struct mad_send *s)
{
	if (s->rmpp)
		rmpp_send_free(s->rmpp);
	free(s);
}

static size_t send_bytes(const struct mad_send *s)
{
	return s->rmpp ? s->rmpp->hdr_len + s->rmpp->data_len : 0;
}

/* The agent tracks @s, and counts what it holds for umad's caps. */
void mad_send_link(struct mad_send *s)
{
	struct mad_agent *agent = s->agent;

	s->next = agent->sends;
	agent->sends = s;
	agent->nsends++;
	agent->send_bytes += send_bytes(s);
}

/*
 * Whether @s went to the port at @lid, or at @gid when both sides name
 * one in a GRH: the peer that may answer it, or send it again.
 */
bool mad_send_went_to(const struct mad_send *s, uint16_t lid, bool grh,
		      const uint8_t *gid)
{
	/* a question to a GID is answered from there only */
	if (s->addr.by_gid)
		return !memcmp(s->addr.dgid, gid, 16);
	if (s->addr.grh && grh)
		return !memcmp(s->addr.dgid, gid, 16);
	return s->addr.dlid == lid;
}

/*
 * ib_find_send_mad()'s test: @pkt (a response, or an RMPP ACK, STOP or
 * ABORT) is about @s when TID and class are its and it comes from the
 * peer asked, except for DR SMPs, whose route changes the addresses.
 */
bool mad_send_matches(const struct mad_send *s, const struct mad_pkt *pkt)
{
	uint8_t mgmt_class = pkt->mad[MAD_OFF_CLASS];

	if (s->tid != get64(pkt->mad + MAD_OFF_TID) ||
	    s->mgmt_class != mgmt_class)
		return false;
	if (mgmt_class == MAD_CLASS_SUBN_DR || pkt->loopback)
		return true;
	return mad_send_went_to(s, pkt->slid, pkt->grh, pkt->sgid);
}

/* A send is over: it leaves its agent, reported or not. */
void mad_send_finish(struct mad_send *s)
{
	struct mad_agent *agent = s->agent;
	struct mad_send **pp;

	for (pp = &agent->sends; *pp; pp = &(*pp)->next) {
		if (*pp == s) {
			*pp = s->next;
			agent->nsends--;
			agent->send_bytes -= send_bytes(s);
			break;
		}
	}
	mad_send_free(s);
}

/* One packet of a send to its address. */
int mad_send_pkt(struct mad_send *s, const uint8_t *mad)
{
	struct sefa_mad_port *port = s->agent->port;
	struct mad_pkt *p;

	/* one P_Key in the table: another index fails the work request */
	if (s->addr.dst_qp == 1 && s->addr.pkey_index >= SEFA_PKEY_TBL_LEN)
		return 0;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->slid = port->lid;
	p->dlid = s->addr.dlid;
	p->src_qp = s->agent->qpn;
	p->dst_qp = s->addr.dst_qp;
	p->sl = s->addr.sl;
	p->pkey_index = s->addr.pkey_index;
	p->grh = s->addr.grh;
	p->by_gid = s->addr.by_gid;
	memcpy(p->sgid, port->gid, 16);
	memcpy(p->dgid, s->addr.dgid, 16);
	memcpy(p->mad, mad, MAD_SIZE);
	if (mad[MAD_OFF_CLASS] == MAD_CLASS_SUBN_DR) {
		/*
		 * Directed route: an empty path ends at our own port, where
		 * the SMA answers (handle_outgoing_dr_smp).  A port has no
		 * neighbour to forward a longer path to.
		 */
		if (mad[MAD_OFF_HOP_CNT]) {
			free(p);
			return 0;
		}
		p->loopback = port;
	}
	mad_xmit(port->d, p);
	return 0;
}

/* The TID a message of @agent goes out with: requests carry its hi_tid. */
uint64_t mad_wire_tid(const struct mad_agent *agent, const uint8_t *msg)
{
	uint64_t tid = get64(msg + MAD_OFF_TID);

	if (mad_is_response(msg))
		return tid;
	return (uint64_t)agent->hi_tid << 32 | (uint32_t)tid;
}
