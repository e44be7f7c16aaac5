// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The MAD layer of the kernel (ib_mad) for this daemon's ports: agents and
 * their registrations, sends (TID rewriting, response matching, timeouts
 * and retries), and the wire that carries QP0 and QP1 MADs between the
 * ports of this daemon, where the driver's process_mad() (mad_local.c) has
 * the first word and agents the rest.
 *
 * The wire is a queue drained in order by whoever put the first MAD on it,
 * so an answer that causes an answer never recurses.  It reaches the ports
 * of this daemon only: MADs to other hosts are not carried yet.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "mad/mad.h"

/*
 * Agents get hi_tids below 2^24, as current kernels allocate them; never
 * 0, so that a request's wire TID always shows the layer rewrote it.
 */
#define HI_TID_END	(1U << 24)

uint64_t mad_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

bool mad_is_rmpp_class(uint8_t c)
{
	return c == MAD_CLASS_SUBN_ADM || c == MAD_CLASS_DEVICE_MGMT ||
	       c == MAD_CLASS_DEVICE_ADM || c == MAD_CLASS_BIS ||
	       (c >= MAD_CLASS_VENDOR2_START && c <= MAD_CLASS_VENDOR2_END);
}

unsigned int mad_data_offset(uint8_t c)
{
	if (c == MAD_CLASS_SUBN_ADM)
		return MAD_SA_HDR_LEN;
	if (c == MAD_CLASS_DEVICE_MGMT || c == MAD_CLASS_DEVICE_ADM ||
	    c == MAD_CLASS_BIS)
		return MAD_DEVICE_HDR_LEN;
	if (c >= MAD_CLASS_VENDOR2_START && c <= MAD_CLASS_VENDOR2_END)
		return MAD_VENDOR_HDR_LEN;
	return MAD_HDR_LEN;
}

bool mad_is_response(const uint8_t *mad)
{
	uint8_t method = mad[MAD_OFF_METHOD];

	return (method & MAD_METHOD_RESP) ||
	       method == MAD_METHOD_TRAP_REPRESS ||
	       (mad[MAD_OFF_CLASS] == 0x05 && (mad[MAD_OFF_ATTR_MOD + 3] & 1));
}

static bool is_smi_class(uint8_t c)
{
	return c == MAD_CLASS_SUBN_LID || c == MAD_CLASS_SUBN_DR;
}

static bool is_vendor2(uint8_t c)
{
	return c >= MAD_CLASS_VENDOR2_START && c <= MAD_CLASS_VENDOR2_END;
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
	       (!is_vendor2(r->mgmt_class) || a->oui == r->oui) &&
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
	if (is_vendor2(reg->mgmt_class) && !reg->oui)
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

static void mad_send_free(struct mad_send *s)
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
static void send_link(struct mad_send *s)
{
	struct mad_agent *agent = s->agent;

	s->next = agent->sends;
	agent->sends = s;
	agent->nsends++;
	agent->send_bytes += send_bytes(s);
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

struct mad_recv *mad_recv_new(size_t len)
{
	return calloc(1, sizeof(struct mad_recv) + len);
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
void mad_deliver_done(struct mad_agent *agent, struct mad_recv *r,
		      const struct mad_pkt *pkt)
{
	recv_hdr(r, pkt);
	r->hdr.id = agent->id;
	if (agent->file)
		umad_queue(agent->file, agent, r);
	else
		agent->handler(agent, r, pkt);
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
static void port_recv(struct sefa_mad_port *port, const struct mad_pkt *pkt)
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
		port_recv(port, pkt);
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

/* Put a MAD on the wire (taking it); mad_run() delivers it. */
void mad_xmit(struct sefa_daemon *d, struct mad_pkt *pkt)
{
	pkt->next = NULL;
	if (!d->mad_wire)
		d->mad_wire_tail = &d->mad_wire;
	*d->mad_wire_tail = pkt;
	d->mad_wire_tail = &pkt->next;
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
		send_link(s);
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
	send_link(s);
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
	if (agent->file) {
		r = mad_recv_new(MAD_HDR_LEN);
		if (r) {
			r->hdr = s->uhdr;
			r->hdr.status = ETIMEDOUT;
			r->len = MAD_HDR_LEN;
			memcpy(r->data, s->mad, MAD_HDR_LEN);
			umad_queue(agent->file, agent, r);
		}
	}
	mad_send_finish(s);
}

static unsigned int port_tick(struct sefa_mad_port *port, uint64_t now)
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

/* The layer's timers, from the engine's passes. */
unsigned int sefa_mad_tick(struct sefa_daemon *d)
{
	uint64_t now;
	unsigned int i, work = 0;

	if (!d->profile->has_mad)
		return 0;
	now = mad_now_ns();
	for (i = 0; i < d->ndev; i++)
		work += port_tick(d->dev[i].mad, now);
	if (d->sm_port) {
		work += port_tick(d->sm_port, now);
		sm_tick(d->sm_port, now);
	}
	mad_run(d);
	return work;
}

static struct sefa_mad_port *port_new(struct sefa_daemon *d,
				      struct sefa_device *dev)
{
	struct sefa_mad_port *port = calloc(1, sizeof(*port));

	if (!port)
		return NULL;
	port->d = d;
	port->dev = dev;
	if (dev) {
		port->lid = dev->lid;
		memcpy(port->gid, dev->gid, 16);
	}
	return port;
}

int sefa_mad_init(struct sefa_daemon *d)
{
	unsigned int i;
	int ret;

	if (!d->profile->has_mad)
		return 0;
	for (i = 0; i < d->ndev; i++) {
		d->dev[i].mad = port_new(d, &d->dev[i]);
		if (!d->dev[i].mad)
			return -ENOMEM;
	}
	if (!d->run_sm)
		return 0;
	d->sm_port = port_new(d, NULL);
	if (!d->sm_port)
		return -ENOMEM;
	/* at its own LID, sending from the first device's GID */
	d->sm_port->lid = SEFA_SM_LID;
	memcpy(d->sm_port->gid, d->dev[0].gid, 16);
	ret = sm_init(d, d->sm_port);
	return ret ? ret : sa_init(d->sm_port);
}
