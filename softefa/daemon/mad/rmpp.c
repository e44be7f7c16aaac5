// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RMPP as the kernel runs it for agents registered with rmpp_version 1
 * (and not IB_USER_MAD_USER_RMPP): the sender cuts a message into 256-byte
 * segments and sends them a window at a time, the receiver grants windows
 * of 64 segments, ACKs the first segment and each window's end, and
 * reassembles; both sides time out and abort with the RMPP status codes.
 *
 * The wire keeps order, so a segment beyond the next expected one can only
 * follow a lost one: it is dropped and comes again with the sender's retry.
 *
 * Unlike the kernel, a receiver bounds what one sender can make it hold:
 * RMPP_MAX_RECVS transfers in progress per agent, MAD_MAX_MSG_LEN bytes
 * per message.  A transfer past either bound is refused with STOP(RESX),
 * the receiver's "out of resources" in IBA, which ends the send at a
 * kernel-RMPP sender (IB_WC_REM_ABORT_ERR).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "mad/layer.h"

#define RMPP_VERSION		1
#define RECV_WINDOW		64	/* 512 receive buffers >> 3 */
#define ACK_TIMEOUT_MS		2000
#define REASSEMBLY_NS		(40ULL * 1000000000ULL)
#define KEEP_DONE_NS		(10ULL * 1000000000ULL)
#define RMPP_MAX_RECVS		64	/* transfers an agent keeps */

bool rmpp_agent(const struct mad_agent *agent)
{
	return agent->rmpp_version && !(agent->flags & IB_USER_MAD_USER_RMPP);
}

void rmpp_recv_free(struct rmpp_recv *rr)
{
	free(rr->data);
	free(rr);
}

/* ib_create_send_mad()'s segment arithmetic for an RMPP message. */
int rmpp_send_start(struct mad_send *s, const uint8_t *msg, size_t len)
{
	size_t hdr_len = mad_data_offset(msg[MAD_OFF_CLASS]);
	size_t seg_size = MAD_SIZE - hdr_len;
	struct rmpp_send *r;

	if (len < hdr_len)
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->msg = malloc(len);
	if (!r->msg) {
		free(r);
		return -ENOMEM;
	}
	memcpy(r->msg, msg, len);
	put64(r->msg + MAD_OFF_TID, s->tid);
	r->hdr_len = hdr_len;
	r->data_len = len - hdr_len;
	r->seg_count = r->data_len ? (r->data_len + seg_size - 1) / seg_size : 1;
	r->pad = r->seg_count * seg_size - r->data_len;
	r->newwin = 1;
	s->rmpp = r;
	return 0;
}

/* Segment @n (1-based) of the message, headers first. */
static void build_seg(const struct mad_send *s, unsigned int n, uint8_t *seg)
{
	const struct rmpp_send *r = s->rmpp;
	size_t seg_size = MAD_SIZE - r->hdr_len;
	size_t off = (size_t)(n - 1) * seg_size;
	size_t k = r->data_len - off < seg_size ? r->data_len - off : seg_size;
	uint8_t flags = RMPP_FLAG_ACTIVE;
	uint32_t paylen = 0;

	memset(seg, 0, MAD_SIZE);
	memcpy(seg, r->msg, r->hdr_len);
	memcpy(seg + r->hdr_len, r->msg + r->hdr_len + off, k);
	if (n == 1) {
		flags |= RMPP_FLAG_FIRST;
		paylen = r->seg_count * MAD_RMPP_DATA - r->pad;
	}
	if (n == r->seg_count) {
		flags |= RMPP_FLAG_LAST;
		paylen = MAD_RMPP_DATA - r->pad;
	}
	seg[RMPP_OFF_VERSION] = s->agent->rmpp_version;
	seg[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
	seg[RMPP_OFF_RTIME_FLAGS] = RMPP_NO_RESPTIME << 3 | flags;
	seg[RMPP_OFF_STATUS] = 0;
	put32(seg + RMPP_OFF_SEG_NUM, n);
	put32(seg + RMPP_OFF_PAYLEN, paylen);
}

/* Send what the window allows, then wait for its ACK. */
void rmpp_send_window(struct mad_send *s)
{
	struct rmpp_send *r = s->rmpp;
	uint32_t wait = s->timeout_ms && s->timeout_ms <= ACK_TIMEOUT_MS ?
			s->timeout_ms : ACK_TIMEOUT_MS;
	uint8_t seg[MAD_SIZE];

	while (r->seg_sent < r->newwin && r->seg_sent < r->seg_count) {
		build_seg(s, ++r->seg_sent, seg);
		if (mad_send_pkt(s, seg))
			break;
	}
	s->due_ns = mad_now_ns() + wait * 1000000ULL;
}

/*
 * An ACK, STOP or ABORT about @pkt, from @agent's port back to its sender:
 * the received headers with the response bit of the method flipped.
 */
static void send_ctl(struct mad_agent *agent, const struct mad_pkt *pkt,
		     uint8_t type, uint8_t status, uint32_t seg_num,
		     uint32_t newwin)
{
	struct mad_pkt *p = mad_pkt_reply(pkt, agent->port);
	size_t hdr_len = mad_data_offset(pkt->mad[MAD_OFF_CLASS]);

	if (!p)
		return;
	memcpy(p->mad, pkt->mad, hdr_len);
	p->mad[MAD_OFF_METHOD] ^= MAD_METHOD_RESP;
	p->mad[RMPP_OFF_VERSION] = RMPP_VERSION;
	p->mad[RMPP_OFF_TYPE] = type;
	p->mad[RMPP_OFF_RTIME_FLAGS] =
		(pkt->mad[RMPP_OFF_RTIME_FLAGS] & ~7) | RMPP_FLAG_ACTIVE;
	p->mad[RMPP_OFF_STATUS] = status;
	put32(p->mad + RMPP_OFF_SEG_NUM, seg_num);
	put32(p->mad + RMPP_OFF_PAYLEN, newwin);
	mad_xmit(agent->port->d, p);
}

static void send_abort(struct mad_agent *agent, const struct mad_pkt *pkt,
		       uint8_t status)
{
	send_ctl(agent, pkt, RMPP_TYPE_ABORT, status, 0, 0);
}

static void send_stop(struct mad_agent *agent, const struct mad_pkt *pkt)
{
	send_ctl(agent, pkt, RMPP_TYPE_STOP, RMPP_STATUS_RESX, 0, 0);
}

/* The transfer an ACK, STOP or ABORT from its receiver is about. */
static struct mad_send *find_rmpp_send(struct mad_agent *agent,
				       const struct mad_pkt *pkt)
{
	struct mad_send *s;

	for (s = agent->sends; s; s = s->next)
		if (s->rmpp && mad_send_matches(s, pkt))
			return s;
	return NULL;
}

/* The receiver's ACK moves the sender's window on. */
static void process_ack(struct mad_agent *agent, const struct mad_pkt *pkt)
{
	struct mad_send *s = find_rmpp_send(agent, pkt);
	uint32_t seg = get32(pkt->mad + RMPP_OFF_SEG_NUM);
	uint32_t newwin = get32(pkt->mad + RMPP_OFF_PAYLEN);
	struct rmpp_send *r;

	if (!s || s->waiting_resp)
		return;
	r = s->rmpp;
	if (pkt->mad[RMPP_OFF_STATUS]) {
		send_abort(agent, pkt, RMPP_STATUS_BAD_STATUS);
		mad_send_finish(s);
		return;
	}
	if (newwin < seg) {
		send_abort(agent, pkt, RMPP_STATUS_W2S);
		mad_send_finish(s);
		return;
	}
	if (seg > r->seg_count || seg > r->newwin) {
		send_abort(agent, pkt, RMPP_STATUS_S2B);
		mad_send_finish(s);
		return;
	}
	if (seg < r->last_ack)
		return;		/* an old one */
	r->last_ack = seg;
	r->newwin = newwin;
	s->retries_left = s->max_retries;	/* retries count per window */
	if (r->last_ack < r->seg_count) {
		if (r->seg_sent < r->last_ack)
			r->seg_sent = r->last_ack;
		rmpp_send_window(s);
		return;
	}
	/* all there: wait for the response, or done */
	if (!s->timeout_ms) {
		mad_send_finish(s);
		return;
	}
	s->waiting_resp = true;
	s->due_ns = mad_now_ns() + s->timeout_ms * 1000000ULL;
}

/* The transfer a data segment belongs to. */
static struct rmpp_recv *find_recv(struct mad_agent *agent,
				   const struct mad_pkt *pkt)
{
	const uint8_t *m = pkt->mad;
	struct rmpp_recv *rr;

	for (rr = agent->rmpp_recvs; rr; rr = rr->next)
		if (rr->tid == get64(m + MAD_OFF_TID) &&
		    rr->src_qp == pkt->src_qp && rr->slid == pkt->slid &&
		    rr->mgmt_class == m[MAD_OFF_CLASS] &&
		    rr->class_version == m[MAD_OFF_CLASS_VERSION] &&
		    rr->method == m[MAD_OFF_METHOD])
			return rr;
	return NULL;
}

static void ack(struct mad_agent *agent, struct rmpp_recv *rr,
		const struct mad_pkt *pkt)
{
	send_ctl(agent, pkt, RMPP_TYPE_ACK, 0, rr->seg_num, rr->newwin);
}

/*
 * The length read() would give a message whose first segment announces
 * @paylen bytes of RMPP payload, class header included: whole segments,
 * less the last one's pad.
 */
static uint64_t announced_len(size_t hdr_len, uint32_t paylen)
{
	uint64_t n = paylen ? ((uint64_t)paylen + MAD_RMPP_DATA - 1) /
			     MAD_RMPP_DATA : 1;
	uint64_t pad = n * MAD_RMPP_DATA - paylen;

	return hdr_len + n * (MAD_SIZE - hdr_len) - pad;
}

/*
 * Room for one more transfer on @agent: past RMPP_MAX_RECVS the oldest
 * finished one, kept only to re-ACK duplicates, makes way; when all are
 * still in progress there is none.
 */
static int recv_room(struct mad_agent *agent)
{
	struct rmpp_recv **pp, **oldest = NULL, *rr;
	unsigned int n = 0;

	for (pp = &agent->rmpp_recvs; (rr = *pp); pp = &rr->next) {
		n++;
		if (rr->done &&
		    (!oldest || rr->expire_ns < (*oldest)->expire_ns))
			oldest = pp;
	}
	if (n < RMPP_MAX_RECVS)
		return 0;
	if (!oldest)
		return -ENOSPC;
	rr = *oldest;
	*oldest = rr->next;
	rmpp_recv_free(rr);
	return 0;
}

/* Segment 1 opens a transfer, if the receiver can take it. */
static struct rmpp_recv *start_recv(struct mad_agent *agent,
				    const struct mad_pkt *pkt)
{
	const uint8_t *m = pkt->mad;
	struct rmpp_recv *rr;

	if (!(m[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_FIRST) ||
	    get32(m + RMPP_OFF_SEG_NUM) != 1) {
		send_abort(agent, pkt, RMPP_STATUS_BAD_SEG);
		return NULL;
	}
	if (announced_len(mad_data_offset(m[MAD_OFF_CLASS]),
			  get32(m + RMPP_OFF_PAYLEN)) > MAD_MAX_MSG_LEN ||
	    recv_room(agent)) {
		send_stop(agent, pkt);
		return NULL;
	}
	rr = calloc(1, sizeof(*rr));
	if (!rr)
		return NULL;
	rr->data = malloc(MAD_SIZE);
	if (!rr->data) {
		free(rr);
		return NULL;
	}
	rr->tid = get64(m + MAD_OFF_TID);
	rr->src_qp = pkt->src_qp;
	rr->slid = pkt->slid;
	rr->mgmt_class = m[MAD_OFF_CLASS];
	rr->class_version = m[MAD_OFF_CLASS_VERSION];
	rr->method = m[MAD_OFF_METHOD];
	rr->first = *pkt;
	rr->first.next = NULL;
	memcpy(rr->data, m, MAD_SIZE);
	rr->len = MAD_SIZE;
	rr->seg_num = 1;
	rr->newwin = (m[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_LAST) ? 1 :
		     RECV_WINDOW;
	rr->expire_ns = mad_now_ns() + REASSEMBLY_NS;
	rr->next = agent->rmpp_recvs;
	agent->rmpp_recvs = rr;
	return rr;
}

/*
 * Only the data part of segments after the first is kept.  A message may
 * not grow past MAD_MAX_MSG_LEN, whatever its first segment announced;
 * the last segment's pad, trimmed at the end, may take the buffer up to
 * a segment beyond.
 */
static int append_seg(struct rmpp_recv *rr, const uint8_t *m)
{
	size_t hdr_len = mad_data_offset(rr->mgmt_class);
	size_t k = MAD_SIZE - hdr_len;
	uint8_t *grown;

	if (rr->len >= MAD_MAX_MSG_LEN)
		return -EMSGSIZE;
	grown = realloc(rr->data, rr->len + k);
	if (!grown)
		return -ENOMEM;
	rr->data = grown;
	memcpy(rr->data + rr->len, m + hdr_len, k);
	rr->len += k;
	rr->seg_num++;
	return 0;
}

/*
 * The whole message, the last segment's PayloadLength giving the pad.  The
 * transfer stays a while, without its data, to re-ACK duplicates.
 */
static struct mad_recv *complete_recv(struct rmpp_recv *rr, const uint8_t *m)
{
	uint32_t paylen = get32(m + RMPP_OFF_PAYLEN);
	size_t pad = paylen <= MAD_RMPP_DATA ? MAD_RMPP_DATA - paylen : 0;
	struct mad_recv *r;

	if (pad > rr->len - MAD_HDR_LEN)
		pad = 0;
	r = mad_recv_new(rr->len - pad);
	if (!r)
		return NULL;
	r->len = rr->len - pad;
	memcpy(r->data, rr->data, r->len);
	free(rr->data);
	rr->data = NULL;
	rr->done = true;
	rr->expire_ns = mad_now_ns() + KEEP_DONE_NS;
	return r;
}

/* A transfer that will not fit: the sender hears STOP, the receiver forgets. */
static void drop_recv(struct mad_agent *agent, struct rmpp_recv *rr,
		      const struct mad_pkt *pkt)
{
	struct rmpp_recv **pp;

	send_stop(agent, pkt);
	for (pp = &agent->rmpp_recvs; *pp != rr; pp = &(*pp)->next)
		;
	*pp = rr->next;
	rmpp_recv_free(rr);
}

static struct mad_recv *data_seg(struct mad_agent *agent,
				 const struct mad_pkt *pkt)
{
	const uint8_t *m = pkt->mad;
	struct rmpp_recv *rr = find_recv(agent, pkt);
	uint32_t seg = get32(m + RMPP_OFF_SEG_NUM);
	int ret;

	if (!rr) {
		rr = start_recv(agent, pkt);
		if (!rr)
			return NULL;
		ack(agent, rr, pkt);
		return (m[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_LAST) ?
		       complete_recv(rr, m) : NULL;
	}
	if (seg > rr->newwin)
		return NULL;
	/* a duplicate, or a transfer already complete: say where we are */
	if (rr->done || seg <= rr->seg_num) {
		ack(agent, rr, pkt);
		return NULL;
	}
	if (seg != rr->seg_num + 1)
		return NULL;
	ret = append_seg(rr, m);
	if (ret == -EMSGSIZE)
		drop_recv(agent, rr, pkt);
	if (ret)
		return NULL;
	if (m[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_LAST) {
		ack(agent, rr, pkt);
		return complete_recv(rr, m);
	}
	if (rr->seg_num == rr->newwin) {
		rr->newwin += RECV_WINDOW;
		ack(agent, rr, pkt);
	}
	return NULL;
}

/*
 * An RMPP-active MAD for a kernel-RMPP agent: a data segment (returns the
 * message once complete), or an ACK, STOP or ABORT about one of its sends.
 */
struct mad_recv *rmpp_recv(struct mad_agent *agent, const struct mad_pkt *pkt)
{
	const uint8_t *m = pkt->mad;
	struct mad_send *s;

	if (m[RMPP_OFF_VERSION] != RMPP_VERSION) {
		send_abort(agent, pkt, RMPP_STATUS_UNV);
		return NULL;
	}
	switch (m[RMPP_OFF_TYPE]) {
	case RMPP_TYPE_DATA:
		return data_seg(agent, pkt);
	case RMPP_TYPE_ACK:
		process_ack(agent, pkt);
		return NULL;
	case RMPP_TYPE_STOP:
	case RMPP_TYPE_ABORT:
		/* the peer gave up: the send ends, reported to nobody */
		s = find_rmpp_send(agent, pkt);
		if (s)
			mad_send_finish(s);
		return NULL;
	default:
		send_abort(agent, pkt, RMPP_STATUS_BADT);
		return NULL;
	}
}

/* Reassembly that took too long ends with T2L; finished ones are forgotten. */
unsigned int rmpp_tick(struct mad_agent *agent, uint64_t now)
{
	struct rmpp_recv **pp = &agent->rmpp_recvs, *rr;
	unsigned int work = 0;

	while ((rr = *pp)) {
		if (rr->expire_ns > now) {
			pp = &rr->next;
			continue;
		}
		if (!rr->done)
			send_abort(agent, &rr->first, RMPP_STATUS_T2L);
		*pp = rr->next;
		rmpp_recv_free(rr);
		work++;
	}
	return work;
}
