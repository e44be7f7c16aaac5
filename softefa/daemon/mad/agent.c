// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The agents of the kernel's MAD layer (ib_mad) on this daemon's ports:
 * registration and its rules, the hi_tid that routes a response back to
 * the agent that asked, the receive path where the driver's process_mad()
 * (mad_local.c) has the first word and agents the rest, and sends with
 * their timeouts and retries.  An agent's owner takes what it receives
 * through the handlers it set: umad queues it for read(), the SM and SA
 * answer it themselves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "mad/layer.h"

/*
 * Agents get hi_tids below 2^24, as current kernels allocate them; never
 * 0, so that a request's wire TID always shows the layer rewrote it.
 */
#define HI_TID_END	(1U << 24)

static bool is_smi_class(uint8_t c)
{
	return c == MAD_CLASS_SUBN_LID || c == MAD_CLASS_SUBN_DR;
}

static bool masks_overlap(const uint64_t a[2], const uint64_t b[2])
{
	return (a[0] & b[0]) || (a[1] & b[1]);
}

/*
 * Whether @a takes requests of @r's QP, class, version (and OUI, for the
 * vendor classes that have one) for any of @r's methods.
 */
static bool reg_matches(const struct mad_agent *a, const struct mad_reg *r)
{
	return a->has_reg && a->qpn == r->qpn &&
	       a->mgmt_class == r->mgmt_class &&
	       a->class_version == r->class_version &&
	       (!mad_is_vendor2_class(r->mgmt_class) || a->oui == r->oui) &&
	       masks_overlap(a->method_mask, r->method_mask);
}

/* The agent that takes requests of this class, version and method. */
static struct mad_agent *find_receiver(struct sefa_mad_port *port,
				       uint8_t qpn, uint8_t mgmt_class,
				       uint8_t version, uint8_t method,
				       uint32_t oui)
{
	const struct mad_reg key = {
		.qpn = qpn,
		.mgmt_class = mgmt_class,
		.class_version = version,
		.oui = oui,
		.method_mask = {
			method < 64 ? 1ULL << method : 0,
			method >= 64 ? 1ULL << (method - 64) : 0,
		},
	};
	struct mad_agent *a;

	for (a = port->agents; a; a = a->next)
		if (reg_matches(a, &key))
			return a;
	return NULL;
}

/* ib_register_mad_agent()'s checks, in its order. */
static int check_reg(struct sefa_mad_port *port, const struct mad_reg *reg)
{
	struct mad_agent *a;

	if (reg->rmpp_version > 1)
		return -EINVAL;
	if (!reg->mgmt_class)
		return (reg->flags & IB_USER_MAD_USER_RMPP) ? -EINVAL : 0;
	if (reg->class_version >= MAD_MAX_CLASS_VERSION)
		return -EINVAL;
	if (reg->mgmt_class >= MAD_MAX_CLASS &&
	    reg->mgmt_class != MAD_CLASS_SUBN_DR)
		return -EINVAL;
	if (mad_is_vendor2_class(reg->mgmt_class) && !reg->oui)
		return -EINVAL;
	if (reg->rmpp_version && !mad_is_rmpp_class(reg->mgmt_class))
		return -EINVAL;
	if (is_smi_class(reg->mgmt_class) != (reg->qpn == 0))
		return -EINVAL;
	/* one receiver per method of a class and version (and OUI) */
	for (a = port->agents; a; a = a->next)
		if (reg_matches(a, reg))
			return -EINVAL;
	return 0;
}

static struct mad_agent *agent_by_hi_tid(struct sefa_mad_port *port,
					 uint32_t hi_tid)
{
	struct mad_agent *a;

	for (a = port->agents; a; a = a->next)
		if (a->hi_tid == hi_tid)
			return a;
	return NULL;
}

/*
 * The hi_tid after the last one given, cyclically, that no agent of the
 * port holds (the kernel's xa_alloc_cyclic()): responses are routed by it,
 * so after a wrap-around it must still name one agent only.
 */
static int alloc_hi_tid(struct sefa_mad_port *port, uint32_t *hi_tid)
{
	struct sefa_daemon *d = port->d;
	uint32_t id = d->mad_last_hi_tid, n;

	for (n = 1; n < HI_TID_END; n++) {
		id = id + 1 < HI_TID_END ? id + 1 : 1;
		if (!agent_by_hi_tid(port, id)) {
			d->mad_last_hi_tid = id;
			*hi_tid = id;
			return 0;
		}
	}
	return -EBUSY;
}

int mad_agent_register(struct sefa_mad_port *port, const struct mad_reg *reg,
		       struct mad_agent *agent)
{
	int ret = check_reg(port, reg);

	if (ret)
		return ret;
	ret = alloc_hi_tid(port, &agent->hi_tid);
	if (ret)
		return ret;
	agent->port = port;
	agent->qpn = reg->qpn;
	agent->has_reg = reg->mgmt_class != 0;
	agent->mgmt_class = reg->mgmt_class;
	agent->class_version = reg->class_version;
	agent->oui = reg->oui;
	memcpy(agent->method_mask, reg->method_mask, sizeof(agent->method_mask));
	agent->rmpp_version = reg->rmpp_version;
	agent->flags = reg->flags;
	agent->next = port->agents;
	port->agents = agent;
	return 0;
}

/* Cancels every send and receive in progress; nothing is reported. */
void mad_agent_unregister(struct mad_agent *agent)
{
	struct mad_agent **pp;
	struct mad_send *s;
	struct rmpp_recv *rr;

	for (pp = &agent->port->agents; *pp; pp = &(*pp)->next) {
		if (*pp == agent) {
			*pp = agent->next;
			break;
		}
	}
	while ((s = agent->sends)) {
		agent->sends = s->next;
		mad_send_free(s);
	}
	while ((rr = agent->rmpp_recvs)) {
		agent->rmpp_recvs = rr->next;
		rmpp_recv_free(rr);
	}
}

/* The work completion of a receive, as ib_umad reports it. */
static void recv_hdr(struct mad_recv *r, const struct mad_pkt *pkt)
{
	r->hdr.qpn = htobe32(pkt->src_qp);
	r->hdr.lid = htobe16(pkt->loopback ? MAD_PERMISSIVE_LID : pkt->slid);
	r->hdr.sl = pkt->sl;
	r->hdr.grh_present = pkt->grh;
	if (pkt->grh) {
		r->hdr.hop_limit = 255;
		memcpy(r->hdr.gid, pkt->sgid, 16);
	}
	r->hdr.pkey_index = 0;	/* the only entry of the table */
}

/* Hand a whole message to its agent. */
static void mad_deliver_done(struct mad_agent *agent, struct mad_recv *r,
			     const struct mad_pkt *pkt)
{
	recv_hdr(r, pkt);
	r->hdr.id = agent->id;
	agent->handler(agent, r, pkt);
}

/* The request a response answers. */
static struct mad_send *find_send(struct mad_agent *agent,
				  const struct mad_pkt *pkt)
{
	struct mad_send *s;

	for (s = agent->sends; s; s = s->next)
		if (s->waiting_resp && mad_send_matches(s, pkt))
			return s;
	return NULL;
}

/* ib_mad's validate_mad(): what the QPs accept at all. */
static bool valid_mad(const struct mad_pkt *pkt)
{
	uint8_t c = pkt->mad[MAD_OFF_CLASS];

	if (pkt->mad[MAD_OFF_BASE_VERSION] != MAD_BASE_VERSION)
		return false;
	if (pkt->dst_qp == 0)
		return is_smi_class(c);
	return pkt->dst_qp == 1 && !is_smi_class(c);
}

/*
 * A Get or Set nobody took: answered "unsupported method/attribute", as
 * ib_mad's generate_unmatched_resp() does.
 */
static void reply_unmatched(struct sefa_mad_port *port,
			    const struct mad_pkt *pkt)
{
	uint8_t resp[MAD_SIZE];
	uint8_t method = pkt->mad[MAD_OFF_METHOD];
	uint16_t status = MAD_STATUS_UNSUP_METH_ATTR;

	if ((method != MAD_METHOD_GET && method != MAD_METHOD_SET) ||
	    get16(pkt->mad + MAD_OFF_STATUS))
		return;
	memcpy(resp, pkt->mad, MAD_SIZE);
	resp[MAD_OFF_METHOD] = MAD_METHOD_RESP | MAD_METHOD_GET;
	if (pkt->mad[MAD_OFF_CLASS] == MAD_CLASS_SUBN_DR)
		status |= MAD_STATUS_DR_DIRECTION;
	put16(resp + MAD_OFF_STATUS, status);
	mad_reply(port, pkt, resp);
}

/* A response nobody here asked for: counted, when another host sent it. */
static void unasked(struct sefa_mad_port *port, const struct mad_pkt *pkt)
{
	if (pkt->from_wire)
		port->d->wire_cnt.drops[SEFA_DROP_MAD_UNASKED]++;
}

/* A MAD arrives at a port's QP0 or QP1: ib_mad_recv_done(). */
void mad_port_recv(struct sefa_mad_port *port, const struct mad_pkt *pkt)
{
	const uint8_t *m = pkt->mad;
	struct mad_agent *agent;
	struct mad_send *s;
	struct mad_recv *r;
	bool resp = mad_is_response(m);

	if (!valid_mad(pkt) || mad_local_process(port, pkt))
		return;
	if (resp)
		agent = agent_by_hi_tid(port, get64(m + MAD_OFF_TID) >> 32);
	else
		agent = find_receiver(port, pkt->dst_qp, m[MAD_OFF_CLASS],
				      m[MAD_OFF_CLASS_VERSION],
				      m[MAD_OFF_METHOD],
				      (uint32_t)m[VENDOR_OFF_OUI] << 16 |
					      get16(m + VENDOR_OFF_OUI + 1));
	if (!agent) {
		if (resp)
			unasked(port, pkt);
		else
			reply_unmatched(port, pkt);
		return;
	}
	if (rmpp_agent(agent) && mad_is_rmpp_class(m[MAD_OFF_CLASS]) &&
	    (m[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_ACTIVE)) {
		r = rmpp_recv(agent, pkt);
	} else {
		r = mad_recv_new(MAD_SIZE);
		if (r) {
			r->len = MAD_SIZE;
			memcpy(r->data, m, MAD_SIZE);
		}
	}
	if (!r)
		return;
	if (!resp) {
		mad_deliver_done(agent, r, pkt);
		return;
	}
	/*
	 * A response completes its request: the response first.  Unmatched
	 * ones are dropped, except RMPP traffic for an agent that runs RMPP
	 * itself (or not at all): its ACKs and aborts are the user's.
	 */
	s = find_send(agent, pkt);
	if (!s) {
		if (agent->all_responses ||
		    (!rmpp_agent(agent) && mad_is_rmpp_class(m[MAD_OFF_CLASS]) &&
		     (m[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_ACTIVE))) {
			mad_deliver_done(agent, r, pkt);
			return;
		}
		unasked(port, pkt);
		free(r);
		return;
	}
	mad_deliver_done(agent, r, pkt);
	mad_send_finish(s);
}

/*
 * ib_create_send_mad() + ib_post_send_mad() for one message of an agent:
 * @msg holds the MAD headers and the data, @len bytes; a single MAD is
 * padded to 256 bytes, an RMPP message goes out in segments.
 */
int mad_send(struct mad_agent *agent, const struct ib_user_mad_hdr *uhdr,
	     const struct mad_addr *addr, const uint8_t *msg, size_t len,
	     uint32_t timeout_ms, uint32_t retries)
{
	uint8_t mgmt_class = msg[MAD_OFF_CLASS];
	bool rmpp_active = rmpp_agent(agent) && mad_is_rmpp_class(mgmt_class) &&
			   (msg[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_ACTIVE);
	struct mad_send *s;
	int ret;

	if (agent->rmpp_version && !mad_is_rmpp_class(mgmt_class))
		return -EINVAL;
	if (!rmpp_active && len > MAD_SIZE)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->agent = agent;
	s->addr = *addr;
	if (uhdr)
		s->uhdr = *uhdr;
	memcpy(s->mad, msg, len < MAD_SIZE ? len : MAD_SIZE);
	s->response = mad_is_response(msg);
	s->tid = mad_wire_tid(agent, msg);
	put64(s->mad + MAD_OFF_TID, s->tid);
	s->mgmt_class = mgmt_class;
	s->timeout_ms = timeout_ms;
	s->retries_left = s->max_retries = retries;

	if (rmpp_active) {
		ret = rmpp_send_start(s, msg, len);
		if (ret) {
			mad_send_free(s);
			return ret;
		}
		mad_send_link(s);
		rmpp_send_window(s);
		return 0;
	}
	/*
	 * Tracked only once on the wire: a send that failed is no request
	 * to time out.  The wire is drained later, so no response can come
	 * before the send waits for it.
	 */
	ret = mad_send_pkt(s, s->mad);
	if (ret || !timeout_ms) {
		mad_send_free(s);
		return ret;
	}
	s->waiting_resp = true;
	s->due_ns = mad_now_ns() + timeout_ms * 1000000ULL;
	mad_send_link(s);
	return 0;
}

/*
 * A request's time is up: send it again while retries are left, else
 * report IB_WC_RESP_TIMEOUT_ERR, which umad turns into an ETIMEDOUT read
 * of the request's common header.
 */
static void send_timeout(struct mad_send *s, uint64_t now)
{
	struct mad_agent *agent = s->agent;
	struct mad_recv *r;

	if (s->retries_left) {
		s->retries_left--;
		if (s->rmpp) {
			/* no response: the whole message again */
			if (s->waiting_resp) {
				s->waiting_resp = false;
				s->rmpp->last_ack = 0;
				s->rmpp->newwin = 1;
			}
			/* no ACK: the window again */
			s->rmpp->seg_sent = s->rmpp->last_ack;
			rmpp_send_window(s);
			return;
		}
		s->due_ns = now + s->timeout_ms * 1000000ULL;
		mad_send_pkt(s, s->mad);
		return;
	}
	if (agent->timed_out) {
		r = mad_recv_new(MAD_HDR_LEN);
		if (r) {
			r->hdr = s->uhdr;
			r->hdr.status = ETIMEDOUT;
			r->len = MAD_HDR_LEN;
			memcpy(r->data, s->mad, MAD_HDR_LEN);
			agent->timed_out(agent, r);
		}
	}
	mad_send_finish(s);
}

/* The sends and reassemblies of @port's agents whose time is up at @now. */
unsigned int mad_port_tick(struct sefa_mad_port *port, uint64_t now)
{
	struct mad_agent *a;
	struct mad_send *s, *next;
	unsigned int work = 0;

	for (a = port->agents; a; a = a->next) {
		for (s = a->sends; s; s = next) {
			next = s->next;
			if (s->due_ns > now)
				continue;
			send_timeout(s, now);
			work++;
		}
		work += rmpp_tick(a, now);
	}
	return work;
}
