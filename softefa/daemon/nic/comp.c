// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completer: retires a requester's WQE into the send CQ, with the
 * status the answer to its packet carries or the requester's own.  A
 * receiver that was not ready has the WQE sent again, rnr_retry times (7:
 * for ever) before the RNR error: SRD after the device's own waits, RC
 * after the time the receiver asked for.  An RC error takes the QP to
 * error, and a QP in error has everything posted flushed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

static void complete_send(struct sefa_qp *qp,
			  const struct efa_io_tx_wqe_128 *w, int status)
{
	struct efa_io_rx_cdesc_ex e = {};
	unsigned int op = w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK;

	if (status == EFA_IO_COMP_STATUS_OK &&
	    !(w->meta.ctrl2 & EFA_IO_TX_META_DESC_COMP_REQ))
		return;
	if (status != EFA_IO_COMP_STATUS_OK)
		NIC_COUNT(qp, errors, 1);
	/*
	 * Told apart, as a client that sets a small rnr_retry (libfabric's
	 * RNR tests: 0) gets one for each refusal and handles it, while
	 * any other error is a failure.
	 */
	if (status == EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR)
		NIC_COUNT(qp, rnr_errors, 1);
	else if (status != EFA_IO_COMP_STATUS_OK)
		nic_log_failed(qp, &qp->comp.failed, "send", status);
	e.base.common.req_id = w->meta.req_id;
	e.base.common.status = status;
	e.base.common.flags = EFA_IO_SEND_QUEUE << EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT |
			      (op << EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT &
			       EFA_IO_CDESC_COMMON_OP_TYPE_MASK);
	e.base.common.qp_num = qp->qpn;
	sefa_cq_write(qp->send_cq, qp->send_sub_cq, &e,
		      sizeof(struct efa_io_tx_cdesc));
}

/*
 * Everything posted completes with FLUSHED: the QP went to error.  RC's
 * head is still on the ring, and flushed from there.
 */
void nic_comp_flush(struct sefa_qp *qp)
{
	struct sefa_pending *p;

	while ((p = qp->comp.pending)) {
		qp->comp.pending = p->next;
		complete_send(qp, &p->wqe, EFA_IO_COMP_STATUS_FLUSHED);
		free(p);
	}
	qp->comp.npending = 0;
	free(qp->comp.rc_head);
	qp->comp.rc_head = NULL;
	nic_resp_flush(qp);
}

/* A WQE retired: what the NIC kept of it goes. */
static void drop_pending(struct nic_send *s)
{
	struct sefa_pending **pp;

	if (!s->retry)
		return;
	if (s->qp->comp.rc_head == s->retry) {
		s->qp->comp.rc_head = NULL;
	} else {
		for (pp = &s->qp->comp.pending; *pp && *pp != s->retry;
		     pp = &(*pp)->next)
			;
		if (*pp) {
			*pp = s->retry->next;
			s->qp->comp.npending--;
		}
	}
	free(s->retry);
	s->retry = NULL;
}

/*
 * An RC error completion takes the QP to error: what is posted behind the
 * failed WQE, and every receive, completes as flushed.
 */
static void rc_fail(struct sefa_qp *qp)
{
	qp->state = IBV_QPS_ERR;
	qp->comp.rnr_due_ns = 0;
	qp->comp.rnr_tries = 0;
	nic_comp_flush(qp);
}

/* The GID an SRD WQE went to: its AH's. */
static const uint8_t *srd_peer(const struct sefa_qp *qp,
			       const struct efa_io_tx_wqe_128 *w)
{
	return qp->dev->ah[w->meta.ah < SEFA_MAX_AH ? w->meta.ah : 0].gid;
}

/*
 * A status= fault rule gives a WQE that succeeded its status instead; the
 * QP then does what it does after that error (RC: error state).
 */
static int comp_fault(const struct nic_send *s, unsigned int op)
{
	const struct efa_io_tx_wqe_128 *w = s->wqe;
	const struct sefa_qp *qp = s->qp;
	struct sefa_fault_ctx what;
	struct sefa_fault_hit hit;

	sefa_fault_ctx_init(&what, SEFA_FAULT_BIT(SEFA_FAULT_STATUS));
	what.dev = (int)qp->dev->index;
	what.qpn = qp->qpn;
	if (qp->type == IBV_QPT_RC) {
		what.peer_qpn = qp->dest_qpn;
		what.peer_gid = qp->dest.dgid;
	} else {
		what.peer_qpn = w->meta.dest_qp_num;
		what.peer_gid = srd_peer(qp, w);
	}
	what.op = op == EFA_IO_RDMA_READ ? SEFA_FAULT_OP_READ :
		  op != EFA_IO_RDMA_WRITE ? SEFA_FAULT_OP_SEND :
		  w->meta.ctrl1 & EFA_IO_TX_META_DESC_HAS_IMM ?
		  SEFA_FAULT_OP_WRITE_IMM : SEFA_FAULT_OP_WRITE;
	if (!sefa_fault_match(qp->uobj.c->d->faults, &what, &hit))
		return EFA_IO_COMP_STATUS_OK;
	return hit.status;
}

void nic_comp_retire(struct nic_send *s, int status)
{
	struct sefa_qp *qp = s->qp;
	unsigned int op = s->wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK;

	s->state = NIC_SEND_RETIRED;
	if (status == EFA_IO_COMP_STATUS_OK)
		status = comp_fault(s, op);
	/* An RDMA the device gave up on, not one flushed by a QP in error. */
	if (status != EFA_IO_COMP_STATUS_OK &&
	    status != EFA_IO_COMP_STATUS_FLUSHED) {
		if (op == EFA_IO_RDMA_READ)
			NIC_COUNT(qp, rdma_read_wr_err, 1);
		else if (op == EFA_IO_RDMA_WRITE)
			NIC_COUNT(qp, rdma_write_wr_err, 1);
	}
	if (!s->at_head) {
		complete_send(qp, s->wqe, status);
		drop_pending(s);
		return;
	}
	qp->comp.rnr_due_ns = 0;
	qp->comp.rnr_tries = 0;
	/* The requester moves the SQ past it on its next look. */
	qp->comp.heads_done++;
	/* The receiver expects the next PSN only after a packet took one. */
	if (!s->no_packet)
		nic_seq_next_psn(qp);
	complete_send(qp, s->wqe, status);
	drop_pending(s);
	if (status != EFA_IO_COMP_STATUS_OK)
		rc_fail(qp);
}

/* The IB RNR timer encoding, in microseconds; 0 means the longest. */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * SRD's wait before retry @n (from 1) of a send the receiver was not ready
 * for.  EFA documents the number of retries (rnr_retry, 7: for ever) but no
 * interval, and SRD has no RNR timer a receiver could set: the interval is
 * the device's, and it decides how fast libfabric gets going.  Its efa
 * provider asks for 3 retries; when a packet meets RNR errors again, it
 * backs off from that peer, 40-120 us at first and twice as long after each
 * further error, until a resent packet gets through.  The longer the
 * device's retries last, the fewer errors it sees, and the shorter the last
 * back-off by which it overshoots a receiver that became ready.  So the
 * first retry comes after 1 ms, soon enough for a receiver reposting its
 * buffers, and each wait is 8 times the last, up to 64 ms: libfabric's 3
 * retries span 73 ms, which rides out most peers still starting up or
 * waiting for a CPU on a busy host, while one that never posts is reported
 * within a tenth of a second.  For ever is a retry every 64 ms at most.
 */
#define SRD_RNR_FIRST_NS	(1000 * 1000ULL)
#define SRD_RNR_MAX_NS		(64 * 1000 * 1000ULL)

static uint64_t srd_rnr_wait(unsigned int n)
{
	uint64_t ns = SRD_RNR_FIRST_NS;

	while (--n && ns < SRD_RNR_MAX_NS)
		ns *= 8;
	return ns < SRD_RNR_MAX_NS ? ns : SRD_RNR_MAX_NS;
}

/*
 * What the NIC keeps of a WQE it let go of and has not retired: the RC
 * head's, or an entry at the end of an SRD QP's list.
 */
static struct sefa_pending *pending_entry(struct nic_send *s)
{
	struct sefa_pending *p = s->retry, **pp;

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->wqe = *s->wqe;
	p->psn = s->psn;
	p->off = s->off;
	if (s->at_head) {
		s->qp->comp.rc_head = p;
	} else {
		for (pp = &s->qp->comp.pending; *pp; pp = &(*pp)->next)
			;
		*pp = p;
		s->qp->comp.npending++;
	}
	s->retry = p;
	s->wqe = &p->wqe;
	return p;
}

/*
 * How long a packet out to another host waits for its answer.  RC's is
 * the QP's timeout, 4.096 us << timeout (0: for ever), at least 1 ms, the
 * engine's own reaction time when idle.  SRD's is the device's: the
 * smoothed round trip and four times its variation (as TCP's, RFC 6298),
 * at least 4 ms, doubling with each resend, up to a second.  A busy host
 * answers late, and resending then only adds to it: round trips that grow
 * as a burst of reads queues up at the responder must raise the timeout
 * as fast, which a multiple of the smoothed round trip alone does not.
 */
#define SRD_RTO_NS		(4 * 1000 * 1000ULL)
#define SRD_RTO_MAX_NS		(1000 * 1000 * 1000ULL)
#define RC_RTO_MIN_NS		(1000 * 1000ULL)
/* SRD gives up after these many resends: 12 at the least wait is 1.5 s. */
#define SRD_TRIES		12

static uint64_t rto_ns(const struct sefa_qp *qp, unsigned int tries)
{
	uint64_t ns;

	if (qp->type == IBV_QPT_RC) {
		if (!qp->timeout)
			return UINT64_MAX / 2;
		/* 4.096 us, that is 4096 ns, times 2^timeout */
		ns = 4096ULL << (qp->timeout < 31 ? qp->timeout : 31);
		return ns > RC_RTO_MIN_NS ? ns : RC_RTO_MIN_NS;
	}
	ns = qp->comp.srtt_ns + 4 * qp->comp.rttvar_ns;
	if (ns < SRD_RTO_NS)
		ns = SRD_RTO_NS;
	ns <<= tries < 8 ? tries : 8;
	return ns < SRD_RTO_MAX_NS ? ns : SRD_RTO_MAX_NS;
}

/* A first answer times the round trip: a resent packet's would mislead. */
static void rtt_sample(struct sefa_qp *qp, const struct sefa_pending *p,
		       uint64_t now)
{
	struct sefa_qp_comp *c = &qp->comp;
	uint64_t rtt = now - p->sent_ns, err;

	if (p->tries)
		return;
	if (!c->srtt_ns) {
		c->srtt_ns = rtt;
		c->rttvar_ns = rtt / 2;
		return;
	}
	err = rtt > c->srtt_ns ? rtt - c->srtt_ns : c->srtt_ns - rtt;
	c->rttvar_ns = c->rttvar_ns - c->rttvar_ns / 4 + err / 4;
	c->srtt_ns = c->srtt_ns - c->srtt_ns / 8 + rtt / 8;
}

void nic_comp_await(struct nic_engine *eng, struct nic_send *s,
		    const struct sefa_pkt *pkt)
{
	struct sefa_pending *p = pending_entry(s);

	if (!p) {
		nic_comp_retire(s, EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR);
		return;
	}
	if (!p->tries)
		p->sent_ns = eng->now;
	p->out = true;
	p->psn = s->psn;
	p->off = s->off;
	p->len = pkt->len;
	p->due_ns = eng->now + rto_ns(s->qp, p->tries);
}

/*
 * Whether an SRD packet out past its timeout is lost, or only waits behind
 * others at a busy responder.  Each packet's timer runs from its own send,
 * so in a burst of reads those deep in the queue would time out while the
 * responder still works through it, and their resends would only add to
 * its queue.  So, as TCP restarts its timer on each ACK, answers that keep
 * coming put a timeout off: the packet counts as lost once a packet sent
 * after it was answered, or once no answer at all came for a timeout.
 */
bool nic_comp_overdue(const struct nic_engine *eng, const struct sefa_qp *qp,
		      const struct sefa_pending *p)
{
	return qp->comp.acked_sent_ns > p->sent_ns ||
	       qp->comp.ack_ns + rto_ns(qp, p->tries) <= eng->now;
}

/*
 * A packet out got no answer in time: it goes again, or, past the retry
 * budget, the WQE fails; an RC QP with it.  Returns true when retired.
 */
bool nic_comp_timeout(struct nic_engine *eng, struct nic_send *s)
{
	struct sefa_pending *p = s->retry;
	struct sefa_qp *qp = s->qp;
	unsigned int budget = qp->type == IBV_QPT_RC ? qp->retry_cnt : SRD_TRIES;
	const uint8_t *gid;

	if (++p->tries <= budget) {
		uint64_t left = p->len - p->off;

		NIC_COUNT(qp, retransmits, 1);
		NIC_COUNT(qp, retrans_bytes,
			  left < NIC_WIRE_CHUNK ? left : NIC_WIRE_CHUNK);
		return false;
	}
	NIC_COUNT(qp, retrans_timeout_events, 1);
	if (qp->type == IBV_QPT_RC) {
		nic_comp_retire(s, SEFA_IO_COMP_STATUS_REMOTE_ERROR_RETRY_EXC);
		return true;
	}
	gid = srd_peer(qp, s->wqe);
	if (!nic_net_gid_seen(eng->d, gid)) {
		nic_comp_retire(s, EFA_IO_COMP_STATUS_LOCAL_ERROR_UNREACH_REMOTE);
		return true;
	}
	NIC_COUNT(qp, unresponsive_remote_events, 1);
	nic_comp_retire(s, EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE);
	return true;
}

/* The receiver was not ready: send again while rnr_retry allows. */
static void comp_rnr(struct nic_engine *eng, struct nic_send *s,
		     const struct sefa_pkt *nak)
{
	struct sefa_qp *qp = s->qp;

	NIC_COUNT(qp, rnr_retries, 1);
	if (s->at_head)
		qp->comp.rnr_wait_ns =
			rnr_timer_us[nak->rnr_timer & 31] * 1000ULL;
	if (qp->rnr_retry != 7 && s->rnr_done >= qp->rnr_retry) {
		nic_comp_retire(s, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
		return;
	}
	s->state = NIC_SEND_RNR;
	if (s->at_head) {
		/* Tries count only against a finite rnr_retry. */
		qp->comp.rnr_tries += qp->rnr_retry != 7;
		qp->comp.rnr_due_ns = eng->now + qp->comp.rnr_wait_ns;
		if (s->retry) {
			s->retry->out = false;
			s->retry->due_ns = qp->comp.rnr_due_ns;
		}
		return;
	}
	if (!pending_entry(s)) {
		nic_comp_retire(s, EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR);
		return;
	}
	s->retry->out = false;
	s->retry->psn = s->psn;
	s->retry->due_ns = eng->now + srd_rnr_wait(s->rnr_done + 1);
}

/* What an RDMA carried out counts, at the requester. */
static void comp_count_rdma(struct nic_send *s)
{
	uint64_t len = s->wqe->data.rdma_req.remote_mem.length;

	switch (s->wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) {
	case EFA_IO_RDMA_WRITE:
		NIC_COUNT(s->qp, rdma_writes, 1);
		NIC_COUNT(s->qp, rdma_write_bytes, len);
		NIC_COUNT(s->qp, tx_bytes, len);
		break;
	case EFA_IO_RDMA_READ:
		NIC_COUNT(s->qp, rdma_reads, 1);
		NIC_COUNT(s->qp, rdma_read_bytes, len);
		NIC_COUNT(s->qp, rx_bytes, len);
		break;
	}
}

/*
 * A read's data from another host, into the WQE's local buffer at the
 * packet's place.  Returns a status.
 */
static int comp_read_data(struct nic_engine *eng, struct nic_send *s,
			  const struct sefa_pkt *ack)
{
	const struct efa_io_tx_buf_desc *b = &s->wqe->data.rdma_req.local_mem[0];
	struct seg_list local = { .seg = eng->local_segs };
	uint64_t iova = (uint64_t)b->buf_addr_hi << 32 | b->buf_addr_lo;

	uint64_t want = s->retry->len - s->off;

	if (want > NIC_WIRE_CHUNK)
		want = NIC_WIRE_CHUNK;
	if (!ack->data || ack->len != want)
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_STATUS;
	if (nic_key_resolve(s->qp->dev, s->qp->pd, b->lkey, iova, b->length,
			    IBV_ACCESS_LOCAL_WRITE, &local) ||
	    nic_dma_buf(&local, s->off, (void *)ack->data, ack->len, true))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
	return EFA_IO_COMP_STATUS_OK;
}

/*
 * A packet of a message out to another host was acknowledged: the WQE is
 * done, or its next packet takes the next PSN and is due at once.  The
 * requester sends it on its part of this pass (nic_req_retry(), or the RC
 * head's turn), as it sends every packet: the completer only says when.
 * A due time of 0 tells it from a wait for a receiver, which is always
 * later than a pass's time.
 */
static void comp_next(struct nic_send *s)
{
	struct sefa_pending *p = s->retry;
	struct sefa_qp *qp = s->qp;
	uint64_t left = p->len - s->off;

	s->off += left < NIC_WIRE_CHUNK ? left : NIC_WIRE_CHUNK;
	if (s->off >= p->len) {
		comp_count_rdma(s);
		nic_comp_retire(s, EFA_IO_COMP_STATUS_OK);
		return;
	}
	if (qp->type == IBV_QPT_RC) {
		nic_seq_next_psn(qp);
		s->psn = qp->req.sq_psn;
	} else {
		s->psn = nic_seq_next_psn(qp);
	}
	p->tries = 0;
	p->psn = s->psn;
	p->off = s->off;
	p->due_ns = 0;
}

/*
 * An answer from another host: for the RC head, or for one of an SRD QP's
 * sends out, by its PSN.  One that matches none came twice, or too late.
 * An SRD answer must come from the GID the send went to (the wire checked
 * RC's peer): from anywhere else it is a stranger's, dropped and counted.
 */
static void comp_net_recv(struct nic_engine *eng, struct sefa_device *dev,
			  const struct sefa_pkt *ack)
{
	struct sefa_qp *qp = sefa_qp_lookup(dev, ack->dqpn);
	struct sefa_pending *p = NULL;
	struct nic_send s = {};
	int st;

	if (!qp || qp->type != ack->qpt || qp->state == IBV_QPS_ERR)
		return;
	if (qp->type == IBV_QPT_RC)
		p = qp->comp.rc_head;
	else
		for (p = qp->comp.pending; p && !(p->out && p->psn == ack->psn);
		     p = p->next)
			;
	if (!p || !p->out || p->psn != ack->psn) {
		NIC_COUNT(qp, dup_drops, 1);
		return;
	}
	if (qp->type != IBV_QPT_RC &&
	    memcmp(srd_peer(qp, &p->wqe), ack->sgid, 16)) {
		eng->d->wire_cnt.drops[SEFA_DROP_NOT_PEER]++;
		return;
	}
	s.qp = qp;
	s.wqe = &p->wqe;
	s.psn = p->psn;
	s.off = p->off;
	s.retry = p;
	s.at_head = qp->type == IBV_QPT_RC;
	s.rnr_done = s.at_head ? qp->comp.rnr_tries : p->retries;
	s.state = NIC_SEND_OUT;
	p->out = false;
	rtt_sample(qp, p, eng->now);
	qp->comp.ack_ns = eng->now;
	if (p->sent_ns > qp->comp.acked_sent_ns)
		qp->comp.acked_sent_ns = p->sent_ns;

	if (ack->status == EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR) {
		comp_rnr(eng, &s, ack);
		return;
	}
	st = ack->status;
	if (!st && (s.wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) ==
		   EFA_IO_RDMA_READ)
		st = comp_read_data(eng, &s, ack);
	if (st) {
		nic_comp_retire(&s, st);
		return;
	}
	comp_next(&s);
}

/*
 * The answer the wire brought to @dev.  On the local path, the WQE whose
 * packet is on the wire waits for it; any other answer is stale and
 * dropped.  From another host, the QP's list says whom it is for.
 */
void nic_comp_recv(struct nic_engine *eng, struct sefa_device *dev,
		   const struct sefa_pkt *ack)
{
	struct nic_send *s = eng->send;

	if (ack->flags & SEFA_PKT_NET) {
		comp_net_recv(eng, dev, ack);
		return;
	}
	if (!s || s->qp->dev != dev || s->qp->qpn != ack->dqpn ||
	    s->psn != ack->psn)
		return;
	eng->send = NULL;
	if (ack->status == EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR) {
		comp_rnr(eng, s, ack);
		return;
	}
	if (ack->status == EFA_IO_COMP_STATUS_OK)
		comp_count_rdma(s);
	nic_comp_retire(s, ack->status);
}
