// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder: a request packet the wire brought to one of this host's
 * devices.  It checks the packet against the target QP (transport, state,
 * Q_Key, or RC's connection) and its keys, takes the next receive, places
 * the data, writes the receive completion, and answers the reliable
 * transports with an ACK or a NAK through the wire.  Every check comes
 * before any byte moves.  A packet from another host passes seq.c's
 * checks first, so that nothing is delivered twice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

/*
 * A UD receive, on EFA as on InfiniBand, leaves the first 40 bytes of the
 * WR's scatter list to a GRH, wherever the SGEs split them: the payload
 * follows.  EFA has no GRH to put there and never reports IBV_WC_GRH, so,
 * as for an IB message without one, the area is undefined: the device
 * writes nothing in it.  The completion's length counts it, as IB's does.
 */
#define UD_GRH_LEN	sizeof(struct ibv_grh)

/*
 * What the responder answers when an RC packet must get no answer at all
 * (resp_qp(), place_status()).
 */
#define RESP_SILENT	(-1)

/*
 * What the responder answers when the requester's own memory failed on
 * the local path, where it moves the bytes between the two processes: EFA
 * reads the sender's buffers (or writes a read's) at the sender, so a
 * fault there is the sender's local error on its key, as an unreadable
 * buffer behind a valid lkey is, and the receiver sees nothing: no
 * receive taken, no abort.  Even UD hears it: the sender's completion
 * carries it.  resp_answer() turns it into that status.
 */
#define RESP_SENDER_FAULT	(-2)

static uint64_t addr64(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

static bool qp_receives(const struct sefa_qp *qp)
{
	return qp->state == IBV_QPS_RTR || qp->state == IBV_QPS_RTS ||
	       qp->state == IBV_QPS_SQD;
}

static uint16_t rq_producer(const struct sefa_qp *qp)
{
	return __atomic_load_n((uint32_t *)((uint8_t *)qp->db->addr +
					    SEFA_RQ_DB_OFF), __ATOMIC_ACQUIRE);
}

/* The RX descriptors of the next receive WR, or 0 when none is posted. */
static unsigned int next_recv(struct sefa_qp *qp, struct efa_io_rx_desc *d)
{
	const struct efa_io_rx_desc *ring = qp->rq_ring ? qp->rq_ring->addr :
							  NULL;
	uint16_t avail = rq_producer(qp) - qp->resp.rq_ci;
	unsigned int n = 0;

	if (!ring)
		return 0;
	if (avail > qp->rq_entries)
		avail = qp->rq_entries;
	while (n < avail && n < MAX_SGE) {
		d[n] = ring[(uint16_t)(qp->resp.rq_ci + n) &
			    (qp->rq_entries - 1)];
		if (d[n++].lkey_ctrl & EFA_IO_RX_DESC_LAST)
			return n;
	}
	return 0;
}

/*
 * The receive completion; @pkt is the message's, or NULL for a flush.  @d
 * is the receive taken, or NULL for a write with immediate that took none
 * (unsolicited).
 */
static void complete_recv(struct sefa_qp *tqp, const struct efa_io_rx_desc *d,
			  int status, const struct sefa_pkt *pkt, uint64_t len)
{
	struct efa_io_rx_cdesc_ex e = {};

	if (status != EFA_IO_COMP_STATUS_OK) {
		NIC_COUNT(tqp, errors, 1);
		nic_log_failed(tqp, &tqp->resp.failed, "receive", status);
	}
	e.base.common.req_id = d ? d->req_id : 0;
	e.base.common.status = status;
	e.base.common.flags = EFA_IO_RECV_QUEUE << EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT;
	if (!d)
		e.base.common.flags |= EFA_IO_CDESC_COMMON_UNSOLICITED;
	e.base.common.qp_num = tqp->qpn;
	if (pkt) {
		if (pkt->flags & SEFA_PKT_IMM) {
			e.base.common.flags |= EFA_IO_CDESC_COMMON_HAS_IMM;
			e.base.imm = pkt->imm;
		}
		/*
		 * A write with immediate, and any RC message, may pass 64
		 * KiB: the entry carries the length's high half too.
		 */
		e.base.common.flags |= pkt->op << EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT &
				       EFA_IO_CDESC_COMMON_OP_TYPE_MASK;
		if (pkt->op == SEFA_PKT_WRITE || tqp->type == IBV_QPT_RC)
			e.u.rdma_write.length_hi = len >> 16;
		e.base.length = len;
		e.base.src_qp_num = pkt->sqpn;
		e.base.ah = sefa_ah_find(tqp->pd, pkt->sgid);
		if (e.base.ah == EFA_IO_AH_UNKNOWN && tqp->recv_cq->with_sgid &&
		    pkt->op != SEFA_PKT_WRITE && tqp->type != IBV_QPT_RC)
			memcpy(e.u.src_addr, pkt->sgid, 16);
	}
	sefa_cq_write(tqp->recv_cq, tqp->recv_sub_cq, &e, sizeof(e));
}

/* What a fault rule of @kind matches a packet arriving at @tqp by. */
static void recv_fault_ctx(struct sefa_fault_ctx *what, unsigned int kind,
			   const struct sefa_qp *tqp, const struct sefa_pkt *pkt)
{
	sefa_fault_ctx_init(what, SEFA_FAULT_BIT(kind));
	what->dev = (int)tqp->dev->index;
	what->qpn = tqp->qpn;
	what->peer_qpn = pkt->sqpn;
	what->peer_gid = pkt->sgid;
}

/*
 * An rnr fault rule makes the receiver answer as if no receive were
 * posted, before it takes one.  A packet is the same on every retry: its
 * sender's QP and PSN.
 */
static bool rnr_fault(const struct sefa_qp *tqp, const struct sefa_pkt *pkt)
{
	struct sefa_fault_ctx what;
	struct sefa_fault_hit hit;

	recv_fault_ctx(&what, SEFA_FAULT_RNR, tqp, pkt);
	what.op = pkt->op == SEFA_PKT_SEND ? SEFA_FAULT_OP_SEND :
		  SEFA_FAULT_OP_WRITE_IMM;
	what.pkt = (uint64_t)pkt->sqpn << 32 | pkt->psn | 1ULL << 63;
	return sefa_fault_match(tqp->uobj.c->d->faults, &what, &hit);
}

/*
 * A status= op=recv fault rule gives a receive that succeeded its status
 * instead: the receive completes with it, and the requester hears what a
 * receive that failed so tells it (resp_recv_failed()).
 */
static int recv_fault(const struct sefa_qp *tqp, const struct sefa_pkt *pkt)
{
	struct sefa_fault_ctx what;
	struct sefa_fault_hit hit;

	recv_fault_ctx(&what, SEFA_FAULT_STATUS, tqp, pkt);
	what.op = SEFA_FAULT_OP_RECV;
	if (!sefa_fault_match(tqp->uobj.c->d->faults, &what, &hit))
		return EFA_IO_COMP_STATUS_OK;
	return hit.status;
}

/*
 * The answer to a request whose receive completed in error on the
 * receiver's side.  An RC QP goes to error with it, as InfiniBand's does,
 * and the engine flushes what is posted on its next pass; the requester
 * gets InfiniBand's NAK: an invalid request for a message too long, a
 * remote operation error for any other.  SRD's requester hears that its
 * message was aborted; UD's nothing.
 */
static int resp_recv_failed(struct sefa_qp *tqp, int st)
{
	if (tqp->type != IBV_QPT_RC)
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT;
	tqp->state = IBV_QPS_ERR;
	return st == EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH ?
	       EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH :
	       EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER;
}

/* Take the receive of @n descriptors and complete it. */
static void consume_recv(struct sefa_qp *tqp, const struct efa_io_rx_desc *d,
			 unsigned int n, int status,
			 const struct sefa_pkt *pkt, uint64_t len)
{
	tqp->resp.rq_ci += n;
	complete_recv(tqp, d, status, pkt, len);
}

/* Everything posted to the RQ completes with FLUSHED: the QP is in error. */
void nic_resp_flush(struct sefa_qp *qp)
{
	struct efa_io_rx_desc rx[MAX_SGE];
	unsigned int n;

	while ((n = next_recv(qp, rx)))
		consume_recv(qp, rx, n, EFA_IO_COMP_STATUS_FLUSHED, NULL, 0);
}

/* Step over the first @n bytes of the segments, which must hold them. */
static void seg_skip(struct seg_list *l, uint64_t n)
{
	while (n && n >= l->seg->len) {
		n -= l->seg->len;
		l->seg++;
		l->n--;
	}
	if (n) {
		l->seg->addr += n;
		l->seg->len -= n;
	}
}

/* Receive buffers of one WR, checked as the receiver's local writes. */
static int scatter_local(struct sefa_qp *tqp, const struct efa_io_rx_desc *d,
			 unsigned int n, struct seg_list *out, uint64_t *room)
{
	unsigned int i;

	*room = 0;
	out->n = 0;
	for (i = 0; i < n; i++) {
		uint64_t iova = addr64(d[i].buf_addr_lo, d[i].buf_addr_hi);

		if (nic_key_resolve(tqp->dev, tqp->pd,
				    d[i].lkey_ctrl & EFA_IO_RX_DESC_LKEY_MASK,
				    iova, d[i].length, IBV_ACCESS_LOCAL_WRITE,
				    out))
			return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
		*room += d[i].length;
	}
	return EFA_IO_COMP_STATUS_OK;
}

/*
 * The answer to a reliable transport's request: an ACK, or a NAK by its
 * status; an RNR NAK carries the time this receiver asks the sender to
 * wait.  UD gets none.
 */
static void resp_answer(struct nic_engine *eng, const struct sefa_device *dev,
			const struct sefa_pkt *pkt, int status,
			uint8_t rnr_timer)
{
	if (status == RESP_SENDER_FAULT)
		nic_wire_answer(eng, pkt, dev->gid,
				EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY, 0);
	else if (pkt->qpt != IBV_QPT_UD)
		nic_wire_answer(eng, pkt, dev->gid, status, rnr_timer);
}

/*
 * The status of memory that could not be moved (@err from dma.c): the
 * requester's, when @sender says so, else the receiver's fault, @st; but
 * a receiver that is gone has its QP destroyed next: RC's requester hears
 * nothing, as from a QP destroyed already, and a UD datagram is dropped
 * with no completion that nobody would read (on hardware the pages stay
 * pinned until the QP is gone, so the datagram would land unseen).
 */
static int place_status(struct sefa_qp *tqp, const struct sefa_pkt *pkt,
			int err, bool sender, int st)
{
	struct sefa_client *c = tqp->uobj.c;

	/* The first of the QP, or each with --verbose (softefad(8), LOG). */
	if (!tqp->resp.dma_faults++ || c->d->verbose)
		fprintf(stderr, "softefad: pid %d: QP %u: %s of %llu bytes from QP %u: %s memory %s\n",
			(int)c->pid, tqp->qpn,
			pkt->op == SEFA_PKT_SEND ? "send" :
			pkt->op == SEFA_PKT_WRITE ? "RDMA write" : "RDMA read",
			(unsigned long long)pkt->len, pkt->sqpn,
			sender ? "the requester's" : "this QP's",
			err == -ESRCH ? "is gone with its process" :
					"cannot be reached (unmapped)");
	if (sender)
		return RESP_SENDER_FAULT;
	if (err == -ESRCH &&
	    (tqp->type == IBV_QPT_RC || tqp->type == IBV_QPT_UD))
		return RESP_SILENT;
	return st;
}

/*
 * The payload into the segments of a receive or of an rkey: from the
 * packet, or on the local path straight from the sender's buffers.
 * Returns 0 or the status place_status() makes of a failure, with @st
 * for the receiver's.
 */
static int resp_place(struct nic_engine *eng, struct sefa_qp *tqp,
		      const struct sefa_pkt *pkt, const struct seg_list *dst,
		      int st)
{
	bool sender = false;
	int err;

	if (pkt->data)
		err = nic_dma_buf(dst, 0, (void *)pkt->data, pkt->len, true);
	else
		err = nic_dma_copy(eng, &pkt->segs, dst, pkt->len, &sender);
	return err ? place_status(tqp, pkt, err, sender, st) :
		     EFA_IO_COMP_STATUS_OK;
}

/* The payload into a receive's segments past their first @skip bytes. */
static int place_recv(struct nic_engine *eng, struct sefa_qp *tqp,
		      const struct sefa_pkt *pkt, struct seg_list *dst,
		      uint64_t skip)
{
	seg_skip(dst, skip);
	return resp_place(eng, tqp, pkt, dst,
			  EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY);
}

/*
 * RC SEND of several packets from another host, in order: the first takes
 * the receive, each is placed behind the last, and the last completes it.
 * Returns the answer's status.
 */
static int resp_send_part(struct nic_engine *eng, struct sefa_qp *tqp,
			  const struct sefa_pkt *pkt)
{
	struct seg_list dst = { .seg = eng->peer_segs };
	struct sefa_rc_rx *rx = tqp->resp.rc_rx;
	uint64_t room;
	int st, forced;

	if (pkt->flags & SEFA_PKT_FIRST) {
		if (!rx) {
			rx = calloc(1, sizeof(*rx));
			if (!rx)
				return EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
			tqp->resp.rc_rx = rx;
		}
		rx->n = rnr_fault(tqp, pkt) ? 0 : next_recv(tqp, rx->desc);
		rx->off = 0;
		if (!rx->n)
			return EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
	} else if (!rx || !rx->n) {
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH;
	}

	st = scatter_local(tqp, rx->desc, rx->n, &dst, &room);
	if (!st && rx->off + pkt->len > room) {
		consume_recv(tqp, rx->desc, rx->n,
			     EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH, pkt,
			     rx->off);
		rx->n = 0;
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH;
	}
	if (!st)
		st = place_recv(eng, tqp, pkt, &dst, rx->off);
	if (st == RESP_SILENT || st == RESP_SENDER_FAULT)
		return st;
	rx->off += pkt->len;
	if (pkt->flags & SEFA_PKT_LAST) {
		forced = st ? st : recv_fault(tqp, pkt);
		consume_recv(tqp, rx->desc, rx->n, forced, pkt, rx->off);
		rx->n = 0;
		if (!st) {
			NIC_COUNT(tqp, rx_pkts, 1);
			NIC_COUNT(tqp, rx_bytes, rx->off);
			NIC_COUNT(tqp, recv_wrs, 1);
			NIC_COUNT(tqp, recv_bytes, rx->off);
		}
		if (!st && forced)
			return resp_recv_failed(tqp, forced);
	}
	return st ? EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT :
		    EFA_IO_COMP_STATUS_OK;
}

/*
 * SEND: into the next receive, behind the GRH area on UD.  With no receive
 * posted UD drops the message and the others NAK it as not ready; a
 * message too long for the receive fails it on UD, while SRD and RC keep
 * the receive and NAK.  Returns the answer's status.
 */
static int resp_send(struct nic_engine *eng, struct sefa_qp *tqp,
		     const struct sefa_pkt *pkt)
{
	bool ud = pkt->qpt == IBV_QPT_UD;
	uint64_t grh = ud ? UD_GRH_LEN : 0;
	struct seg_list dst = { .seg = eng->peer_segs };
	struct efa_io_rx_desc rx[MAX_SGE];
	unsigned int nrx;
	uint64_t room;
	int st, forced;

	/* Only a message from another host comes in several packets. */
	if ((pkt->flags & SEFA_PKT_NET) &&
	    (pkt->flags & (SEFA_PKT_FIRST | SEFA_PKT_LAST)) !=
	    (SEFA_PKT_FIRST | SEFA_PKT_LAST))
		return resp_send_part(eng, tqp, pkt);

	nrx = rnr_fault(tqp, pkt) ? 0 : next_recv(tqp, rx);
	if (!nrx) {
		if (ud)
			NIC_COUNT(tqp, rx_drops, 1);
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
	}

	st = scatter_local(tqp, rx, nrx, &dst, &room);
	if (!st && grh + pkt->len > room) {
		if (!ud)
			return EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH;
		st = EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH;
	}
	if (!st)
		st = place_recv(eng, tqp, pkt, &dst, grh);
	/* The receive stays posted when the sender's memory failed. */
	if (st == RESP_SILENT || st == RESP_SENDER_FAULT)
		return st;

	forced = st ? st : recv_fault(tqp, pkt);
	consume_recv(tqp, rx, nrx, forced, pkt, grh + pkt->len);
	if (!st) {
		NIC_COUNT(tqp, rx_pkts, 1);
		NIC_COUNT(tqp, rx_bytes, pkt->len);
		NIC_COUNT(tqp, recv_wrs, 1);
		NIC_COUNT(tqp, recv_bytes, pkt->len);
	}
	if (!st && forced)
		return resp_recv_failed(tqp, forced);
	return st ? EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT :
		    EFA_IO_COMP_STATUS_OK;
}

/*
 * RDMA read and write: the target's memory by its rkey, which on SRD only
 * a peer the target has an AH for may use.  A write with immediate takes
 * a receive too.  A read from another host is answered here, with its
 * data.  Returns the status of the answer still to give, or of the one
 * given (*answered).
 */
static int resp_rdma(struct nic_engine *eng, struct sefa_qp *tqp,
		     const struct sefa_pkt *pkt, bool *answered)
{
	bool write = pkt->op == SEFA_PKT_WRITE;
	uint32_t access = write ? IBV_ACCESS_REMOTE_WRITE :
				  IBV_ACCESS_REMOTE_READ;
	struct seg_list remote = { .seg = eng->peer_segs };
	struct efa_io_rx_desc rx[MAX_SGE];
	unsigned int nrx = 0;
	bool target;
	int err, st;

	if (pkt->qpt == IBV_QPT_DRIVER &&
	    sefa_ah_find(tqp->pd, pkt->sgid) == EFA_IO_AH_UNKNOWN)
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER;
	if (nic_key_resolve(tqp->dev, tqp->pd, pkt->rkey, pkt->raddr, pkt->len,
			    access, &remote) ||
	    (tqp->type == IBV_QPT_RC && !(tqp->access_flags & access)))
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS;
	/*
	 * A write with immediate takes a receive, but on a QP made with
	 * unsolicited write receive only completes there.
	 */
	if ((pkt->flags & SEFA_PKT_IMM) && !tqp->unsolicited_write_recv) {
		nrx = rnr_fault(tqp, pkt) ? 0 : next_recv(tqp, rx);
		if (!nrx)
			return EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
	}

	if (!write && (pkt->flags & SEFA_PKT_NET)) {
		err = nic_dma_buf(&remote, 0, eng->bounce, pkt->len, false);
		if (err)
			return place_status(tqp, pkt, err, false,
					    EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
		nic_wire_read_resp(eng, pkt, tqp->dev->gid, eng->bounce,
				   pkt->len);
		NIC_COUNT(tqp, rdma_read_resp_bytes, pkt->len);
		*answered = true;
		return EFA_IO_COMP_STATUS_OK;
	}
	if (write) {
		st = resp_place(eng, tqp, pkt, &remote,
				EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
		if (st)
			return st;
	} else {
		/* A local read: the target's memory is the source. */
		err = nic_dma_copy(eng, &remote, &pkt->segs, pkt->len, &target);
		if (err)
			return place_status(tqp, pkt, err, !target,
					    EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
	}
	if (write) {
		NIC_COUNT(tqp, rx_bytes, pkt->len);
		NIC_COUNT(tqp, rdma_write_recv_bytes, pkt->len);
	} else {
		NIC_COUNT(tqp, rdma_read_resp_bytes, pkt->len);
	}
	if (nrx) {
		st = recv_fault(tqp, pkt);
		consume_recv(tqp, rx, nrx, st, pkt, pkt->len);
		if (st)
			return resp_recv_failed(tqp, st);
	} else if (write && (pkt->flags & SEFA_PKT_IMM)) {
		complete_recv(tqp, NULL, EFA_IO_COMP_STATUS_OK, pkt, pkt->len);
	}
	return EFA_IO_COMP_STATUS_OK;
}

/*
 * The QP a packet is for, or the status its requester gets; RESP_SILENT:
 * none.  A datagram QP must have the Q_Key.  An RC QP must be connected
 * back to the sender (the wire checked the sender's GID, nic_wire_deliver()),
 * and, as InfiniBand drops a packet for a QP that is not there or not
 * connected to its sender, nobody answers: the requester times out and,
 * after retry_cnt resends, completes with IBV_WC_RETRY_EXC_ERR, whether the
 * peer is on this host or another.  RC carries no source QP between
 * hosts: the connection names it.
 */
static int resp_qp(struct sefa_device *dev, struct sefa_pkt *pkt,
		   struct sefa_qp **out)
{
	struct sefa_qp *tqp = sefa_qp_lookup(dev, pkt->dqpn);
	bool rc = pkt->qpt == IBV_QPT_RC;
	int bad = rc ? RESP_SILENT : EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN;

	if (!tqp || tqp->type != pkt->qpt || !qp_receives(tqp))
		return bad;
	if (rc && (pkt->flags & SEFA_PKT_NET))
		pkt->sqpn = tqp->dest_qpn;
	if (rc ? tqp->dest_qpn != pkt->sqpn : tqp->qkey != pkt->qkey)
		return bad;
	*out = tqp;
	return EFA_IO_COMP_STATUS_OK;
}

/* A packet that came before is answered as it was, not delivered again. */
static void resp_dup(struct nic_engine *eng, struct sefa_qp *tqp,
		     const struct sefa_pkt *pkt)
{
	NIC_COUNT(tqp, dup_drops, 1);
	resp_answer(eng, tqp->dev, pkt, EFA_IO_COMP_STATUS_OK, 0);
}

void nic_resp_recv(struct nic_engine *eng, struct sefa_device *dev,
		   const struct sefa_pkt *in)
{
	struct sefa_pkt pkt = *in;
	struct sefa_peer_win *w = NULL;
	enum seq_verdict v = SEQ_NEW;
	bool answered = false, net = pkt.flags & SEFA_PKT_NET;
	struct sefa_qp *tqp;
	int st;

	st = resp_qp(dev, &pkt, &tqp);
	if (st == RESP_SILENT)
		return;
	if (st) {
		resp_answer(eng, dev, &pkt, st, 0);
		return;
	}
	if (net)
		v = nic_seq_check(tqp, &pkt, eng->now, &w);
	if (v == SEQ_REFUSE)
		nic_wire_dropped(eng, &pkt, SEFA_DROP_NO_WINDOW);
	if (v == SEQ_DROP || v == SEQ_REFUSE)
		return;
	if (v == SEQ_DUP && pkt.op != SEFA_PKT_READ) {
		resp_dup(eng, tqp, &pkt);
		return;
	}

	if (pkt.op == SEFA_PKT_SEND)
		st = resp_send(eng, tqp, &pkt);
	else
		st = resp_rdma(eng, tqp, &pkt, &answered);
	if (st == RESP_SILENT)
		return;
	if (st != EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR && v == SEQ_NEW)
		nic_seq_done(tqp, w, &pkt);
	if (!answered)
		resp_answer(eng, dev, &pkt, st, tqp->min_rnr_timer);
}
