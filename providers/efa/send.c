// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting sends through ibv_post_send().
 *
 * Every WR is one 64-byte WQE: a meta descriptor (request id, operation,
 * phase, destination) and either up to two buffer descriptors, inline
 * payload, or an RDMA request (remote address and one local buffer).  A QP
 * that asked for more inline data, or for inline RDMA write, has 128-byte
 * WQEs, the same with room for 80 inline bytes after the meta descriptor
 * or after an RDMA write's remote address.  The LLQ the WQEs go to is
 * write-combining device memory; the doorbell takes the new producer
 * counter every max_batch_wr WQEs and at the end, after the
 * write-combining buffers are flushed.
 *
 * UD and SRD take sends only here (RDMA on SRD is for the ibv_wr_* API, as
 * upstream) and every WQE asks for a completion: EFA has no unsignaled
 * sends.  RC takes RDMA too, names no destination (the device uses the
 * QP's connection), and asks for completions of signaled WRs only.
 */

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "efa.h"
#include "efa_dp.h"

/*
 * ibv_post_send() writes a WQE straight into its LLQ slot as the eight (or
 * sixteen) little-endian 64-bit words the device reads, so that nothing is
 * staged and copied.  Inline payload goes in as it comes, in pieces.
 */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "EFA descriptors are little-endian; this layout assumes a LE host"
#endif
#define EFA_WQE_OFF(f) offsetof(struct efa_io_tx_wqe, f)
/* Where inline data starts: after the meta descriptor, or for an RDMA
 * write (128-byte WQEs only) after the remote address.
 */
#define EFA_WQE_INLINE_OFF EFA_WQE_OFF(data.inline_data)
#define EFA_WQE_INLINE_WRITE_OFF 48
_Static_assert(EFA_WQE_OFF(meta.ctrl1) == 2 && EFA_WQE_OFF(meta.ctrl2) == 3 &&
	       EFA_WQE_OFF(meta.dest_qp_num) == 4 &&
	       EFA_WQE_OFF(meta.length) == 6 &&
	       EFA_WQE_OFF(meta.immediate_data) == 8 &&
	       EFA_WQE_OFF(meta.ah) == 12 && EFA_WQE_OFF(meta.qkey) == 16 &&
	       EFA_WQE_OFF(data.sgl[0].lkey) == 36 &&
	       EFA_WQE_OFF(data.sgl[0].buf_addr_lo) == 40 &&
	       EFA_WQE_OFF(data.sgl[1]) == 48 &&
	       EFA_WQE_OFF(data.rdma_req.remote_mem.rkey) == 36 &&
	       EFA_WQE_OFF(data.rdma_req.remote_mem.buf_addr_lo) == 40 &&
	       EFA_WQE_OFF(data.rdma_req.local_mem[0]) == 48 &&
	       offsetof(struct efa_io_tx_wqe_128,
			data.rdma_req.inline_data) == EFA_WQE_INLINE_WRITE_OFF,
	       "WQE word layout");

/* ctrl1 of the opcodes RC takes; efa_send_opcode_ok() checks first. */
static const uint8_t efa_wr_ctrl1[] = {
	[IBV_WR_RDMA_WRITE] = EFA_IO_RDMA_WRITE,
	[IBV_WR_RDMA_WRITE_WITH_IMM] = EFA_IO_RDMA_WRITE |
				       EFA_IO_TX_META_DESC_HAS_IMM,
	[IBV_WR_SEND] = EFA_IO_SEND,
	[IBV_WR_SEND_WITH_IMM] = EFA_IO_SEND | EFA_IO_TX_META_DESC_HAS_IMM,
	[IBV_WR_RDMA_READ] = EFA_IO_RDMA_READ,
};

/* rc is sq->connected, a constant in each copy of the posting path. */
static inline bool efa_send_opcode_ok(const struct efa_sq *sq,
				      enum ibv_wr_opcode opcode, bool rc)
{
	if (!rc)
		return opcode == IBV_WR_SEND || opcode == IBV_WR_SEND_WITH_IMM;
	return (unsigned int)opcode < 32 && ((sq->wr_opcodes >> opcode) & 1);
}

static inline void efa_put64(void *p, uint64_t v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

/*
 * A buffer descriptor's first word; its second is the address.  The lkey is
 * masked before the shift, where the mask is a 32-bit immediate, not a
 * 64-bit constant to hold in a register.
 */
static inline uint64_t efa_tx_buf_word(const struct ibv_sge *sge)
{
	uint32_t lkey = sge->lkey & EFA_IO_LKEY_MASK;

	return sge->length | (uint64_t)lkey << 32;
}

/*
 * The second half of a 128-byte WQE holds nothing but inline data: zeroes
 * where the WQE has none, as the device reads the whole slot.
 */
static inline void efa_tx_tail_clear(const struct efa_sq *sq, uint8_t *w)
{
	if (sq->wqe_size != EFA_IO_TX_WQE_128_SIZE)
		return;
	for (uint32_t off = EFA_IO_TX_WQE_SIZE; off < EFA_IO_TX_WQE_128_SIZE;
	     off += sizeof(uint64_t))
		efa_put64(w + off, 0);
}

/*
 * The WR's buffers copied into the WQE from byte off on, the rest of the
 * slot zeroed; *len is their total.  EINVAL, and nothing written, when
 * they hold more than the QP's max_inline_data.
 */
static int efa_tx_inline_fill(const struct efa_sq *sq,
			      const struct ibv_send_wr *wr, uint8_t *w,
			      uint32_t off, uint32_t *len)
{
	const struct ibv_sge *sge = wr->sg_list;
	uint32_t total = 0;

	for (int i = 0; i < wr->num_sge; i++) {
		if (sge[i].length > sq->max_inline_data - total)
			return EINVAL;
		total += sge[i].length;
	}
	memset(w + off, 0, sq->wqe_size - off);
	for (int i = 0; i < wr->num_sge; i++) {
		memcpy(w + off, (void *)(uintptr_t)sge[i].addr, sge[i].length);
		off += sge[i].length;
	}
	*len = total;
	return 0;
}

/*
 * The data half of an RDMA WQE: the remote buffer, as long as the one local
 * buffer (or empty), or for an inline write (a QP with sq->inline_write)
 * as long as the data after it.  *len is meta.length: buffers, or inline
 * bytes.
 */
static int efa_tx_rdma_fill(const struct efa_sq *sq,
			    const struct ibv_send_wr *wr, uint8_t *w,
			    bool inline_data, uint32_t *len)
{
	const struct ibv_sge *sge = wr->sg_list;
	bool one = wr->num_sge == 1;
	uint64_t rkey = (uint64_t)wr->wr.rdma.rkey << 32;

	if (inline_data) {
		if (!sq->inline_write || wr->opcode == IBV_WR_RDMA_READ ||
		    efa_tx_inline_fill(sq, wr, w, EFA_WQE_INLINE_WRITE_OFF,
				       len))
			return EINVAL;
		efa_put64(w + 32, *len | rkey);
		efa_put64(w + 40, wr->wr.rdma.remote_addr);
		return 0;
	}
	if ((unsigned int)wr->num_sge > sq->max_rdma_sge)
		return EINVAL;
	efa_put64(w + 32, (one ? sge->length : 0) | rkey);
	efa_put64(w + 40, wr->wr.rdma.remote_addr);
	efa_put64(w + 48, one ? efa_tx_buf_word(sge) : 0);
	efa_put64(w + 56, one ? sge->addr : 0);
	efa_tx_tail_clear(sq, w);
	*len = wr->num_sge;
	return 0;
}

/*
 * Builds the WQE for a WR into wqe, all sq->wqe_size bytes of it, or
 * nothing when the WR does not fit: everything but the validity of opcode
 * and flags, which the caller checked.
 */
static __attribute__((always_inline)) inline int
efa_tx_wqe_build(const struct efa_sq *sq, const struct ibv_send_wr *wr,
		 uint16_t req_id, struct efa_io_tx_wqe *wqe, bool rc)
{
	const struct ibv_sge *sge = wr->sg_list;
	/* The WR's part of ctrl1; the queue has the rest (efa_tx_ctrl()). */
	uint32_t ctrl1 = rc ? efa_wr_ctrl1[wr->opcode] : 0;
	uint8_t *w = (uint8_t *)wqe;
	uint64_t meta0, meta1, dest = 0, ah = 0, qkey = 0;
	uint32_t length = 0;

	if (rc && efa_unlikely((ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) !=
			       EFA_IO_SEND)) {
		bool inl = wr->send_flags & IBV_SEND_INLINE;

		if (efa_tx_rdma_fill(sq, wr, w, inl, &length))
			return EINVAL;
		if (inl)
			ctrl1 |= EFA_IO_TX_META_DESC_INLINE_MSG;
	} else if (efa_unlikely(wr->send_flags & IBV_SEND_INLINE)) {
		if (efa_tx_inline_fill(sq, wr, w, EFA_WQE_INLINE_OFF, &length))
			return EINVAL;
		ctrl1 |= EFA_IO_TX_META_DESC_INLINE_MSG;
	} else {
		/* max_sge is at most EFA_IO_TX_DESC_NUM_BUFS, i.e. 2. */
		if (efa_unlikely((unsigned int)wr->num_sge > sq->wq.max_sge))
			return EINVAL;
		length = wr->num_sge;
		efa_put64(w + 32, length > 0 ? efa_tx_buf_word(&sge[0]) : 0);
		efa_put64(w + 40, length > 0 ? sge[0].addr : 0);
		efa_put64(w + 48, length > 1 ? efa_tx_buf_word(&sge[1]) : 0);
		efa_put64(w + 56, length > 1 ? sge[1].addr : 0);
		efa_tx_tail_clear(sq, w);
	}

	/* wr.ud shares its storage with wr.rdma: read it for datagrams only. */
	if (!rc) {
		dest = (uint16_t)wr->wr.ud.remote_qpn;
		ah = to_efa_ah(wr->wr.ud.ah)->efa_ah;
		qkey = wr->wr.ud.remote_qkey;
	}
	meta0 = req_id | efa_tx_ctrl(sq, wr->send_flags, rc) |
		EFA_TX_CTRL(ctrl1, 0) | dest << 32 | (uint64_t)length << 48;
	meta1 = ah << 32;
	/*
	 * The immediate last, its flag and its value in one branch: held
	 * through the build, they would cost registers.
	 */
	if (rc ? ctrl1 & EFA_IO_TX_META_DESC_HAS_IMM :
		 wr->opcode == IBV_WR_SEND_WITH_IMM) {
		meta0 |= EFA_TX_CTRL(EFA_IO_TX_META_DESC_HAS_IMM, 0);
		meta1 |= be32toh(wr->imm_data);
	}
	efa_put64(w, meta0);
	efa_put64(w + 8, meta1);
	efa_put64(w + 16, qkey);
	efa_put64(w + 24, 0);
	return 0;
}

/* The same, for the unit tests. */
int efa_tx_wqe_from_wr(const struct efa_sq *sq, const struct ibv_send_wr *wr,
		       uint16_t req_id, struct efa_io_tx_wqe *wqe)
{
	return efa_tx_wqe_build(sq, wr, req_id, wqe, sq->connected);
}

/*
 * Whether the queue had WQEs outstanding before the post (efa_db_kick()),
 * while the post has rung no doorbell of its own: its WQEs are the batch.
 */
static inline bool efa_sq_was_busy(const struct efa_wq *wq, uint32_t batch)
{
	return wq->wrid_idx_pool_next != batch;
}

/*
 * The end of a post: a doorbell for the WQEs written since the last one,
 * the WQ lock dropped, and then the device kicked (efa_db_kick()), which
 * needs no lock: the call it may make comes last, where it costs the post
 * no registers saved and restored.
 */
static inline void efa_post_send_end(struct efa_sq *sq, uint32_t batch,
				     bool busy)
{
	if (!batch) {
		efa_spin_unlock(&sq->wq.lock);
		return;
	}
	efa_sq_db(sq, sq->wq.pc);
	efa_spin_unlock(&sq->wq.lock);
	efa_db_kick(sq->wq.wake, sq->wq.db, busy);
}

/*
 * Refuses wr, and ends the post (efa_post_send_end()) with the batch
 * before it.  Why it is refused is worked out here, off the fast path,
 * which only knows that it is.
 */
static __attribute__((cold, noinline)) int
efa_post_send_refuse(struct efa_qp *qp, struct ibv_send_wr *wr,
		     struct ibv_send_wr **bad_wr, uint32_t batch, bool busy)
{
	struct ibv_qp *ibvqp = &qp->verbs_qp.qp;
	const char *why = "too many SGEs, too much inline data, or inline "
			  "RDMA other than a write on a QP made for it";
	int err = EINVAL;

	bool rc = qp->sq.connected;

	if (!efa_sq_state_ok(&qp->sq, ibvqp->state)) {
		why = rc ? "QP is not in RTS, SQD or ERR" :
			   "QP is not in RTS or SQD";
	} else if (!efa_send_flags_ok(&qp->sq, wr->send_flags, rc)) {
		why = rc ? "send_flags other than signaled and inline" :
			   "send_flags other than signaled (required) and inline";
	} else if (!efa_send_opcode_ok(&qp->sq, wr->opcode, rc)) {
		why = rc ?
			      "opcode other than send, RDMA write and read (as offered), with immediate" :
			      "opcode other than send and send with immediate";
	} else if (efa_wq_full(&qp->sq.wq)) {
		why = "SQ is full";
		err = ENOMEM;
	}
	verbs_err(to_verbs_context(ibvqp->context), "SQ %u: %s\n",
		  ibvqp->qp_num, why);
	*bad_wr = wr;
	efa_post_send_end(&qp->sq, batch, busy);
	return err;
}

static int efa_post_send_more(struct efa_qp *qp, struct ibv_send_wr *wr,
			      struct ibv_send_wr **bad_wr, uint32_t batch);

/*
 * Posts wr and the WRs after it, batch WQEs after the last doorbell, and
 * ends the post.  WQ lock held.  calls: whether this copy makes calls on
 * its way, to copy inline data or to kick the device after the doorbell
 * of a full batch.  They would cost every post registers saved and
 * restored, so the common path (calls false) hands the WR that needs one
 * on to efa_post_send_more(), and makes no call but its last.
 *
 * busy is efa_sq_was_busy() as the post began.  The copy that calls
 * nothing rings nothing before its end either, so it works that out where
 * it needs it, rather than hold it through the loop.
 */
static __attribute__((always_inline)) inline int
efa_post_send_loop(struct efa_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr, uint32_t batch, bool busy,
		   bool rc, bool calls)
{
	struct efa_sq *sq = &qp->sq;
	struct efa_wq *wq = &sq->wq;
	unsigned int flags;
	uint16_t req_id;

	while (wr) {
		flags = wr->send_flags;
		if (efa_unlikely(!efa_send_flags_ok(sq, flags, rc) ||
				 !efa_send_opcode_ok(sq, wr->opcode, rc) ||
				 efa_wq_full(wq)))
			goto refuse;
		if (!calls && efa_unlikely(flags & IBV_SEND_INLINE))
			return efa_post_send_more(qp, wr, bad_wr, batch);
		req_id = efa_wq_peek_idx(wq, rc);
		if (efa_unlikely(efa_tx_wqe_build(sq, wr, req_id,
						  efa_sq_slot(sq), rc)))
			goto refuse;
		efa_wq_commit_idx(wq, req_id, wr->wr_id);
		efa_sq_advance(sq);
		batch++;
		/* A full batch is rung once another WR follows: the last
		 * one's doorbell is the end's, and a lone WR checks nothing.
		 */
		wr = wr->next;
		if (wr && efa_unlikely(batch == sq->max_batch_wr)) {
			if (!calls)
				return efa_post_send_more(qp, wr, bad_wr,
							  batch);
			efa_sq_ring(sq, wq->pc, busy);
			batch = 0;
		}
	}
	if (!calls)
		busy = efa_sq_was_busy(wq, batch);
	efa_post_send_end(sq, batch, busy);
	return 0;

refuse:
	if (!calls)
		busy = efa_sq_was_busy(wq, batch);
	return efa_post_send_refuse(qp, wr, bad_wr, batch, busy);
}

/*
 * The datagram path from wr on, which needs a call: it has inline data,
 * or a full batch before it is to be rung first.
 */
static __attribute__((noinline)) int
efa_post_send_more(struct efa_qp *qp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr, uint32_t batch)
{
	struct efa_sq *sq = &qp->sq;
	bool busy = efa_sq_was_busy(&sq->wq, batch);

	if (batch == sq->max_batch_wr) {
		efa_sq_ring(sq, sq->wq.pc, busy);
		batch = 0;
	}
	return efa_post_send_loop(qp, wr, bad_wr, batch, busy, false, true);
}

static __attribute__((always_inline)) inline int
efa_post_send_wrs(struct efa_qp *qp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr, bool rc, bool calls)
{
	struct efa_sq *sq = &qp->sq;
	bool busy;

	efa_spin_lock(&sq->wq.lock);
	busy = efa_sq_was_busy(&sq->wq, 0);
	if (efa_unlikely(!efa_sq_state_ok(sq, qp->verbs_qp.qp.state)))
		return efa_post_send_refuse(qp, wr, bad_wr, 0, busy);
	return efa_post_send_loop(qp, wr, bad_wr, 0, busy, rc, calls);
}

/*
 * The RC copy of the posting path.  Its own function, so that the datagram
 * copy inlined into efa_post_send() is compiled for itself alone.
 */
static __attribute__((noinline)) int
efa_post_send_rc(struct efa_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr)
{
	return efa_post_send_wrs(qp, wr, bad_wr, true, true);
}

int efa_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct efa_qp *qp = to_efa_qp(ibvqp);

	if (qp->sq.connected)
		return efa_post_send_rc(qp, wr, bad_wr);
	return efa_post_send_wrs(qp, wr, bad_wr, false, false);
}
