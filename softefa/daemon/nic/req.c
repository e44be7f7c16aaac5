// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The requester: reads a QP's send queue behind its doorbell, checks each
 * WQE against the QP (op and transport, lengths, local keys, the AH), and
 * turns it into a packet for the wire; a UMR, which moves nothing, it
 * executes here.  What it cannot send it hands to the completer with a
 * local error.  It keeps what a WQE needs to be sent again: RC's head stays
 * on the ring until it retires, an SRD send the receiver was not ready for
 * waits on the QP's pending list.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>

#include "efa/efa_abi_compat.h"
#include "nic/loc.h"

static uint64_t addr64(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

/* The SQ doorbell, kept as this look saw it: the engine sleeps on it. */
static uint16_t sq_producer(struct sefa_qp *qp)
{
	const uint32_t *db = (const uint32_t *)((uint8_t *)qp->db->addr +
						SEFA_SQ_DB_OFF);

	qp->req.sq_db_seen = __atomic_load_n(db, __ATOMIC_ACQUIRE);
	return qp->req.sq_db_seen;
}

/*
 * The WQE at @idx of the SQ, in the slot size the QP was created with; a
 * 64-byte WQE's copy is zero past its end.
 */
static void sq_fetch(const struct sefa_qp *qp, uint16_t idx,
		     struct efa_io_tx_wqe_128 *w)
{
	const uint8_t *ring = qp->sq_ring->addr;

	if (qp->sq_wqe_size < sizeof(*w))
		memset((uint8_t *)w + qp->sq_wqe_size, 0,
		       sizeof(*w) - qp->sq_wqe_size);
	memcpy(w, ring + (size_t)(idx & (qp->sq_entries - 1)) * qp->sq_wqe_size,
	       qp->sq_wqe_size);
}

/*
 * A WQE that claims more than the device takes (softefad(8), LOG): its
 * status, and the reason in the log, for the first such WQE of the QP, or
 * for each with --verbose.
 */
static int wqe_refuse(struct sefa_qp *qp, int status, const char *fmt, ...)
{
	struct sefa_client *c = qp->uobj.c;
	char why[128];
	va_list ap;

	if (qp->req.wqe_refused++ && !c->d->verbose)
		return status;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	fprintf(stderr, "softefad: pid %d: QP %u refused a send WQE: %s (completion status %d)\n",
		(int)c->pid, qp->qpn, why, status);
	return status;
}

/*
 * The inline bytes a WQE of the QP holds: its slot's size decides, and an
 * RDMA write takes them only in a 128-byte slot.
 */
static uint32_t wqe_inline_room(const struct sefa_qp *qp, bool rdma)
{
	if (qp->sq_wqe_size == EFA_IO_TX_WQE_128_SIZE)
		return EFA_IO_TX_DESC_INLINE_MAX_SIZE_128;
	return rdma ? 0 : EFA_IO_TX_DESC_INLINE_MAX_SIZE;
}

/*
 * The local buffers of a send WQE, checked: each key must lead to memory
 * of the QP's PD that holds the range.  Returns a status.
 */
static int gather_local(struct sefa_qp *qp, const struct efa_io_tx_buf_desc *b,
			unsigned int n, uint32_t need_access,
			struct seg_list *out, uint64_t *total)
{
	unsigned int i;

	*total = 0;
	out->n = 0;
	for (i = 0; i < n; i++) {
		uint64_t iova = addr64(b[i].buf_addr_lo, b[i].buf_addr_hi);

		if (b[i].lkey & ~EFA_IO_LKEY_MASK ||
		    nic_key_resolve(qp->dev, qp->pd, b[i].lkey, iova,
				    b[i].length, need_access, out))
			return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
		*total += b[i].length;
	}
	return EFA_IO_COMP_STATUS_OK;
}

/* Message size limit: one MTU on the datagram transports. */
static uint64_t max_msg(const struct sefa_qp *qp)
{
	return qp->type == IBV_QPT_RC ? qp->dev->profile->max_rdma_size :
					qp->dev->profile->mtu;
}

/*
 * Where the packet goes.  An RC QP's peer is fixed at RTR: the path names
 * its device, by GID or LID, and its QP.  Otherwise the WQE names a
 * device's AH, which must be one of the QP's PD.  Returns a status.
 */
static int req_route(const struct sefa_qp *qp,
		     const struct efa_io_tx_wqe_128 *w, struct sefa_pkt *pkt)
{
	const struct sefa_dev_ah *ah;

	if (qp->type == IBV_QPT_RC) {
		if (qp->dest.is_global)
			memcpy(pkt->dgid, qp->dest.dgid, sizeof(pkt->dgid));
		else
			pkt->dlid = qp->dest.dlid;
		pkt->dqpn = qp->dest_qpn;
		return EFA_IO_COMP_STATUS_OK;
	}
	ah = w->meta.ah < SEFA_MAX_AH ? &qp->dev->ah[w->meta.ah] : NULL;
	if (!ah || !ah->users || ah->pd != qp->pd)
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_AH;
	memcpy(pkt->dgid, ah->gid, sizeof(pkt->dgid));
	/* A 16-bit QPN on the wire: the device's QPNs fit. */
	pkt->dqpn = w->meta.dest_qp_num;
	pkt->qkey = w->meta.qkey;
	return EFA_IO_COMP_STATUS_OK;
}

/*
 * The buffers of a SEND by key, checked: at most the descriptor's, each
 * key leading to memory of the QP's PD.  Returns a status.
 */
static int send_buffers(struct sefa_qp *qp, const struct efa_io_tx_wqe_128 *w,
			struct seg_list *out, uint64_t *len)
{
	if (w->meta.length > EFA_IO_TX_DESC_NUM_BUFS)
		return wqe_refuse(qp, EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR,
				  "%u buffers, at most %u", w->meta.length,
				  EFA_IO_TX_DESC_NUM_BUFS);
	return gather_local(qp, w->data.sgl, w->meta.length, 0, out, len);
}

/* SEND and SEND with immediate: one message, at most one MTU. */
static int req_send(struct nic_engine *eng, const struct nic_send *s,
		    struct sefa_pkt *pkt)
{
	const struct efa_io_tx_wqe_128 *w = s->wqe;
	struct sefa_qp *qp = s->qp;
	int st;

	if (w->meta.ctrl1 & EFA_IO_TX_META_DESC_INLINE_MSG) {
		if (w->meta.length > wqe_inline_room(qp, false))
			return wqe_refuse(qp, EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH,
					  "SEND of %u inline bytes in a %u-byte WQE",
					  w->meta.length, qp->sq_wqe_size);
		pkt->len = w->meta.length;
		pkt->data = w->data.inline_data;
	} else {
		pkt->segs.seg = eng->local_segs;
		st = send_buffers(qp, w, &pkt->segs, &pkt->len);
		if (st)
			return st;
		pkt->data = s->data;
	}
	if (pkt->len > max_msg(qp))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH;
	/*
	 * It counts as sent from here on, even to a bad AH; a message to
	 * another host once, not for each of its packets or resends.
	 */
	if (!s->off && !(s->retry && s->retry->tries)) {
		NIC_COUNT(qp, tx_pkts, 1);
		NIC_COUNT(qp, tx_bytes, pkt->len);
	}
	/* A work request once, however often the receiver was not ready. */
	if (!s->off && !(s->retry && s->retry->tries) && !s->rnr_done) {
		NIC_COUNT(qp, send_wrs, 1);
		NIC_COUNT(qp, send_bytes, pkt->len);
	}
	if (w->meta.ctrl1 & EFA_IO_TX_META_DESC_HAS_IMM) {
		pkt->flags |= SEFA_PKT_IMM;
		pkt->imm = w->meta.immediate_data;
	}
	return req_route(qp, w, pkt);
}

/* The local buffer of an RDMA read or write, which may be the longer. */
static int req_rdma_local(struct nic_engine *eng, struct sefa_qp *qp,
			  const struct efa_io_tx_wqe_128 *w, bool write,
			  struct sefa_pkt *pkt)
{
	const struct efa_io_remote_mem_addr *rm = &w->data.rdma_req.remote_mem;
	uint64_t len;
	int st;

	if (w->meta.length != EFA_IO_TX_DESC_NUM_RDMA_BUFS)
		return wqe_refuse(qp, EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR,
				  "RDMA with %u buffers, not %u",
				  w->meta.length, EFA_IO_TX_DESC_NUM_RDMA_BUFS);
	pkt->segs.seg = eng->local_segs;
	st = gather_local(qp, w->data.rdma_req.local_mem, 1,
			  write ? 0 : IBV_ACCESS_LOCAL_WRITE, &pkt->segs, &len);
	if (st)
		return st;
	if (rm->length > len || rm->length > qp->dev->profile->max_rdma_size)
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH;
	pkt->len = rm->length;
	return EFA_IO_COMP_STATUS_OK;
}

/*
 * An RDMA write whose data the 128-byte WQE carries in place of the local
 * buffer: remote_mem.length and meta.length both say how much.  A read
 * cannot be inline, nor a write in a 64-byte WQE.
 */
static int req_rdma_inline(struct sefa_qp *qp,
			   const struct efa_io_tx_wqe_128 *w,
			   struct sefa_pkt *pkt)
{
	const struct efa_io_remote_mem_addr *rm = &w->data.rdma_req.remote_mem;
	uint32_t room = wqe_inline_room(qp, true);

	if ((w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) !=
	    EFA_IO_RDMA_WRITE || !room)
		return wqe_refuse(qp, EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE,
				  "inline RDMA %s in a %u-byte WQE",
				  (w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) ==
				  EFA_IO_RDMA_WRITE ? "write" : "read",
				  qp->sq_wqe_size);
	if (w->meta.length > room || rm->length != w->meta.length)
		return wqe_refuse(qp, EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH,
				  "inline RDMA write of %u bytes (remote %u) in a %u-byte WQE",
				  w->meta.length, rm->length, qp->sq_wqe_size);
	pkt->len = w->meta.length;
	pkt->data = w->data.rdma_req.inline_data;
	return EFA_IO_COMP_STATUS_OK;
}

/*
 * RDMA read and write, over SRD and RC: the target's memory, by its rkey,
 * from or into our one local buffer, which may be longer.  A write with
 * immediate also takes a receive at the target.
 */
static int req_rdma(struct nic_engine *eng, const struct nic_send *s,
		    struct sefa_pkt *pkt)
{
	const struct efa_io_tx_wqe_128 *w = s->wqe;
	const struct efa_io_remote_mem_addr *rm = &w->data.rdma_req.remote_mem;
	bool write = (w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) ==
		     EFA_IO_RDMA_WRITE;
	uint32_t cap = write ? EFA_QUERY_DEVICE_CAPS_RDMA_WRITE :
			       EFA_QUERY_DEVICE_CAPS_RDMA_READ;
	struct sefa_qp *qp = s->qp;
	int st;

	if (qp->type == IBV_QPT_UD || !(qp->dev->profile->device_caps & cap))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE;
	if (w->meta.ctrl1 & EFA_IO_TX_META_DESC_INLINE_MSG)
		st = req_rdma_inline(qp, w, pkt);
	else
		st = req_rdma_local(eng, qp, w, write, pkt);
	if (st)
		return st;
	pkt->rkey = rm->rkey;
	pkt->raddr = addr64(rm->buf_addr_lo, rm->buf_addr_hi);
	if (write && (w->meta.ctrl1 & EFA_IO_TX_META_DESC_HAS_IMM)) {
		pkt->flags |= SEFA_PKT_IMM;
		pkt->imm = w->meta.immediate_data;
	}
	return req_route(qp, w, pkt);
}

/*
 * UMR, on RC: fill an indirect key of the QP's PD with the list the WQE
 * points at, read now through a local key, or invalidate it (no list).
 * Returns a status; a failure leaves the key as it was.
 */
static int req_umr(struct nic_engine *eng, const struct nic_send *s)
{
	const struct efa_io_umr_req *u = &s->wqe->data.umr_req;
	struct sefa_qp *qp = s->qp;
	uint32_t caps = qp->dev->profile->device_caps;
	struct seg_list list = { .seg = eng->local_segs };
	unsigned int n = s->wqe->meta.length;
	struct sefa_mr *mkey;
	uint64_t len;
	int st;

	if (qp->type != IBV_QPT_RC || !(caps & SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE;
	mkey = sefa_mr_get(qp->dev, u->mkey);
	if (!mkey || !mkey->indirect || mkey->pd != qp->pd)
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
	if (!n) {
		sefa_mr_invalidate(mkey);
		return EFA_IO_COMP_STATUS_OK;
	}
	if (n > mkey->max_entries ||
	    u->klm_list.length != n * sizeof(struct efa_io_klm))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH;

	st = gather_local(qp, &u->klm_list, 1, 0, &list, &len);
	if (st)
		return st;
	if (nic_dma_buf(&list, 0, eng->umr_list, len, false) ||
	    sefa_mr_fill(mkey, eng->umr_list, n, u->base_addr, u->access))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
	return EFA_IO_COMP_STATUS_OK;
}

/* The packet of a WQE that moves data, or the status that keeps it here. */
static int req_packet(struct nic_engine *eng, const struct nic_send *s,
		      struct sefa_pkt *pkt)
{
	switch (s->wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) {
	case EFA_IO_SEND:
		return req_send(eng, s, pkt);
	case EFA_IO_RDMA_READ:
	case EFA_IO_RDMA_WRITE:
		return req_rdma(eng, s, pkt);
	default:
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE;
	}
}

/*
 * The oldest PSN an SRD QP has not had answered, out or waiting for its
 * receiver to be ready: its receivers need not remember what they had
 * delivered before it.  UD has nothing out.
 */
static uint32_t req_lwm(const struct nic_send *s)
{
	const struct sefa_pending *p;
	uint32_t lwm = s->psn;

	for (p = s->qp->comp.pending; p; p = p->next)
		if (((lwm - p->psn) & 0xffffff) < 0x800000)
			lwm = p->psn;
	return lwm;
}

/*
 * Onto the wire, which on the local path has the answer back to the
 * completer before it returns; to another host, the completer waits for
 * it.  Nobody answers UD: its send is done once it is on the wire.
 */
static void req_xmit(struct nic_engine *eng, struct nic_send *s,
		     struct sefa_pkt *pkt)
{
	struct sefa_qp *qp = s->qp;

	pkt->op = s->wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK;
	pkt->qpt = qp->type;
	pkt->flags |= SEFA_PKT_FIRST | SEFA_PKT_LAST;
	memcpy(pkt->sgid, qp->dev->gid, sizeof(pkt->sgid));
	pkt->sqpn = qp->qpn;
	pkt->psn = s->psn;
	pkt->off = s->off;
	if (qp->type == IBV_QPT_DRIVER)
		pkt->lwm = req_lwm(s);
	s->state = NIC_SEND_OUT;
	eng->send = s;
	eng->xmit(eng, pkt);
	eng->send = NULL;
	/* Answered already: done, or failed on its own buffers (UD too). */
	if (s->state != NIC_SEND_OUT)
		return;
	if (qp->type == IBV_QPT_UD)
		nic_comp_retire(s, EFA_IO_COMP_STATUS_OK);
	else
		nic_comp_await(eng, s, pkt);
}

/* A WQE whole in one descriptor, as this device takes them. */
static bool wqe_whole(const struct efa_io_tx_wqe_128 *w)
{
	const uint8_t need = EFA_IO_TX_META_DESC_FIRST | EFA_IO_TX_META_DESC_LAST;

	return (w->meta.ctrl1 & EFA_IO_TX_META_DESC_META_DESC) &&
	       (w->meta.ctrl2 & need) == need;
}

/*
 * Execute one WQE: a local operation, or a packet onto the wire, that of
 * s->off, the bytes of the message answered so far.
 */
void nic_req_exec(struct nic_engine *eng, struct nic_send *s)
{
	struct sefa_pkt pkt = {};
	int st;

	s->no_packet = true;
	if (!wqe_whole(s->wqe)) {
		nic_comp_retire(s, wqe_refuse(s->qp,
					      EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR,
					      "not one whole descriptor (ctrl1 %#x, ctrl2 %#x)",
					      s->wqe->meta.ctrl1, s->wqe->meta.ctrl2));
		return;
	}
	if ((s->wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) ==
	    EFA_IO_UMR) {
		nic_comp_retire(s, req_umr(eng, s));
		return;
	}
	st = req_packet(eng, s, &pkt);
	if (st) {
		nic_comp_retire(s, st);
		return;
	}
	s->no_packet = false;
	req_xmit(eng, s, &pkt);
}

/*
 * RC is in order: the WQE at the head waits for the receiver, and nothing
 * behind it moves.  Returns false while the head must wait.
 */
static bool req_rc_head(struct nic_engine *eng, struct sefa_qp *qp,
			const struct efa_io_tx_wqe_128 *w)
{
	struct sefa_pending *p = qp->comp.rc_head;
	struct nic_send s = {
		.qp = qp, .wqe = w, .psn = qp->req.sq_psn, .at_head = true,
		.rnr_done = qp->comp.rnr_tries,
	};

	if (qp->comp.rnr_due_ns > eng->now)
		return false;
	if (p) {
		/* Out to another host: its answer, or the timeout's retry. */
		if (p->due_ns > eng->now)
			return false;
		s.wqe = &p->wqe;
		s.psn = p->psn;
		s.off = p->off;
		s.retry = p;
		if (p->out && nic_comp_timeout(eng, &s))
			return true;
	}
	nic_req_exec(eng, &s);
	return s.state == NIC_SEND_RETIRED;
}

/*
 * SRD sends out to other hosts, or waiting for a receiver, at most: more
 * stay on the send queue, so that a QP does not flood the wire faster
 * than the answers come back.
 */
#define SRD_WINDOW	64

/*
 * Whether SEND @w is one to read ahead, and its bytes: a whole SEND from
 * buffers whose keys hold, at most a datagram's MTU, whose segments fit in
 * what is left of @all.  They are added to it.
 */
static bool ahead_one(struct nic_engine *eng, struct sefa_qp *qp,
		      const struct efa_io_tx_wqe_128 *w, struct seg_list *all,
		      uint64_t *len)
{
	struct seg_list segs = { .seg = eng->local_segs };
	unsigned int i;

	if (!wqe_whole(w) ||
	    (w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) != EFA_IO_SEND ||
	    (w->meta.ctrl1 & EFA_IO_TX_META_DESC_INLINE_MSG) ||
	    send_buffers(qp, w, &segs, len) ||
	    *len > max_msg(qp) || all->n + segs.n > AHEAD_SEGS)
		return false;
	for (i = 0; i < segs.n; i++)
		all->seg[all->n++] = segs.seg[i];
	return true;
}

/*
 * Read the payloads of the SENDs at the head of the ring in one go, for
 * their packets to carry as bytes: a process_vm_readv() costs far more
 * than a small payload, and a stream of sends took one each.  The WQEs
 * are copied off the ring first, and those copies are what the lap
 * executes, so that a provider rewriting a slot it already rang for
 * cannot make a packet carry what another WQE asked for.  The read-ahead
 * stops at the first WQE that is not such a SEND (a READ must land before
 * a later SEND reads its buffer), and takes no more than the QP may send.
 * A fault reads nothing ahead: each WQE then meets it on its own.  Returns
 * the WQEs read ahead, 0 unless two or more.
 */
static unsigned int req_read_ahead(struct nic_engine *eng, struct sefa_qp *qp,
				   uint16_t pc)
{
	struct seg_list all = { .seg = eng->ahead_segs };
	unsigned int n = 0, max = (uint16_t)(pc - qp->req.sq_ci);
	uint64_t total = 0, len;

	if (qp->type == IBV_QPT_RC || qp->state != IBV_QPS_RTS)
		return 0;
	if (max > qp->sq_entries)
		max = qp->sq_entries;
	if (max > AHEAD_WQES)
		max = AHEAD_WQES;
	if (qp->type == IBV_QPT_DRIVER && qp->comp.npending + max > SRD_WINDOW)
		max = qp->comp.npending < SRD_WINDOW ?
		      SRD_WINDOW - qp->comp.npending : 0;
	if (max < 2)
		return 0;
	for (; n < max; n++) {
		struct efa_io_tx_wqe_128 *w = &eng->ahead_wqe[n];

		sq_fetch(qp, qp->req.sq_ci + n, w);
		if (!ahead_one(eng, qp, w, &all, &len) ||
		    total + len > AHEAD_BYTES)
			break;
		eng->ahead_data[n] = eng->ahead_buf + total;
		total += len;
	}
	if (n < 2 || nic_dma_buf(&all, 0, eng->ahead_buf, total, false))
		return 0;
	return n;
}

/*
 * The heads the completer retired, the WQEs it counted done while they
 * held the SQ (on an answer, or at once on this path): the SQ moves past
 * them.
 */
static void req_pass_heads(struct sefa_qp *qp)
{
	uint16_t n = qp->comp.heads_done - qp->req.heads_passed;

	qp->req.sq_ci += n;
	qp->req.heads_passed += n;
}

unsigned int nic_req_sq(struct nic_engine *eng, struct sefa_qp *qp)
{
	uint16_t pc = sq_producer(qp);
	unsigned int work = 0, ahead;

	req_pass_heads(qp);
	ahead = req_read_ahead(eng, qp, pc);

	/* A doorbell beyond the ring is the provider's bug: do one lap. */
	while (qp->req.sq_ci != pc && work < qp->sq_entries &&
	       (qp->comp.npending < SRD_WINDOW || qp->state == IBV_QPS_ERR)) {
		struct efa_io_tx_wqe_128 w;
		struct nic_send s = {
			.qp = qp, .wqe = &w, .psn = qp->req.sq_psn,
			.data = work < ahead ? eng->ahead_data[work] : NULL,
		};

		if (work < ahead)
			w = eng->ahead_wqe[work];
		else
			sq_fetch(qp, qp->req.sq_ci, &w);

		/* A datagram QP's packets each have their own PSN. */
		if (qp->type != IBV_QPT_RC)
			nic_seq_next_psn(qp);

		if (qp->type == IBV_QPT_RC && qp->state != IBV_QPS_ERR) {
			if (!req_rc_head(eng, qp, &w))
				break;
			req_pass_heads(qp);
			work++;
			continue;
		}
		qp->req.sq_ci++;
		work++;
		if (qp->state == IBV_QPS_ERR)
			nic_comp_retire(&s, EFA_IO_COMP_STATUS_FLUSHED);
		else
			nic_req_exec(eng, &s);
	}
	return work;
}

/*
 * Send again the SRD sends that are due: those whose receiver was not
 * ready, and those out to another host with no answer in time.  The
 * completer retires a WQE from the list or leaves it waiting.
 */
unsigned int nic_req_retry(struct nic_engine *eng, struct sefa_qp *qp)
{
	struct sefa_pending *p, *next;
	unsigned int work = 0;

	for (p = qp->comp.pending; p; p = next) {
		struct nic_send s = {
			.qp = qp, .wqe = &p->wqe, .psn = p->psn, .off = p->off,
			.retry = p,
		};

		next = p->next;
		if (p->due_ns > eng->now ||
		    (p->out && !nic_comp_overdue(eng, qp, p)))
			continue;
		work++;
		if (p->out) {
			if (nic_comp_timeout(eng, &s))
				continue;
		} else if (p->due_ns) {
			s.rnr_done = ++p->retries;
		} else {
			/* the completer's: the next packet, no retry */
			s.rnr_done = p->retries;
		}
		nic_req_exec(eng, &s);
	}
	return work;
}
