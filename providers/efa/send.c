// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting sends: ibv_post_send() and the ibv_wr_* API.
 *
 * Every WR is one 64-byte WQE: a meta descriptor (request id, operation,
 * phase, destination) and either up to two buffer descriptors, inline
 * payload, or an RDMA request.  The LLQ the WQEs go to is write-combining
 * device memory, written a whole WQE at a time; the doorbell takes the new
 * producer counter every max_batch_wr WQEs and at the end, after the
 * write-combining buffers are flushed.  The device completes every WQE:
 * EFA has no unsignaled sends.
 */

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "efa.h"
#include "efa_dp.h"

#define EFA_TX_CTRL2 (EFA_IO_TX_META_DESC_FIRST | EFA_IO_TX_META_DESC_LAST | \
		      EFA_IO_TX_META_DESC_COMP_REQ)

static inline void efa_tx_buf_set(struct efa_io_tx_buf_desc *buf,
				  uint64_t addr, uint32_t lkey,
				  uint32_t length)
{
	buf->length = length;
	buf->lkey = lkey & EFA_IO_LKEY_MASK;
	buf->buf_addr_lo = (uint32_t)addr;
	buf->buf_addr_hi = addr >> 32;
}

static inline void efa_tx_meta_set(struct efa_io_tx_meta_desc *meta,
				   uint16_t req_id, uint8_t ctrl1,
				   uint8_t phase, uint16_t length,
				   uint32_t imm)
{
	*meta = (struct efa_io_tx_meta_desc){
		.req_id = req_id,
		.ctrl1 = EFA_IO_TX_META_DESC_META_DESC | ctrl1,
		.ctrl2 = EFA_TX_CTRL2 | phase,
		.length = length,
		.immediate_data = imm,
	};
}

static inline void efa_tx_addr_set(struct efa_io_tx_meta_desc *meta,
				   struct ibv_ah *ibvah, uint32_t remote_qpn,
				   uint32_t remote_qkey)
{
	meta->dest_qp_num = remote_qpn;
	meta->ah = to_efa_ah(ibvah)->efa_ah;
	meta->qkey = remote_qkey;
}

/* The LLQ slot of the next WQE. */
static inline struct efa_io_tx_wqe *efa_sq_slot(struct efa_sq *sq)
{
	return (struct efa_io_tx_wqe *)sq->desc +
	       (sq->wq.pc & sq->wq.desc_mask);
}

/* Copies a staged WQE to its LLQ slot in one go, so that the
 * write-combining buffer sends it whole.
 */
static inline void efa_sq_write(struct efa_sq *sq,
				const struct efa_io_tx_wqe *wqe)
{
	__builtin_memcpy(efa_sq_slot(sq), wqe, EFA_IO_TX_WQE_SIZE);
}

static inline void efa_sq_advance(struct efa_wq *wq)
{
	if (!(++wq->pc & wq->desc_mask))
		wq->phase ^= 1;
}

static inline void efa_sq_ring(struct efa_sq *sq, uint16_t pc)
{
	efa_wc_flush();
	efa_db_write(sq->wq.db, pc);
}

/*
 * ibv_post_send() writes a WQE straight into its LLQ slot as the eight
 * little-endian 64-bit words the device reads, so that nothing is staged
 * and copied.  Inline payload goes in as it comes, in pieces.
 */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "EFA descriptors are little-endian; this layout assumes a LE host"
#endif
_Static_assert(offsetof(struct efa_io_tx_meta_desc, ctrl1) == 2 &&
	       offsetof(struct efa_io_tx_meta_desc, ctrl2) == 3 &&
	       offsetof(struct efa_io_tx_meta_desc, dest_qp_num) == 4 &&
	       offsetof(struct efa_io_tx_meta_desc, length) == 6 &&
	       offsetof(struct efa_io_tx_meta_desc, immediate_data) == 8 &&
	       offsetof(struct efa_io_tx_meta_desc, ah) == 12 &&
	       offsetof(struct efa_io_tx_meta_desc, qkey) == 16 &&
	       offsetof(struct efa_io_tx_buf_desc, lkey) == 4 &&
	       offsetof(struct efa_io_tx_buf_desc, buf_addr_lo) == 8,
	       "WQE word layout");

static inline void efa_put64(void *p, uint64_t v)
{
	__builtin_memcpy(p, &v, sizeof(v));
}

/* A buffer descriptor's first word; its second is the address. */
static inline uint64_t efa_tx_buf_word(const struct ibv_sge *sge)
{
	return sge->length | (uint64_t)(sge->lkey & EFA_IO_LKEY_MASK) << 32;
}

/*
 * Builds the WQE for a send or send-with-immediate WR into wqe, all 64
 * bytes of it, or nothing when the WR does not fit: everything but the
 * validity of opcode and flags, which the caller checked.  Inlined into
 * efa_post_send(); the external copy serves the unit tests.
 */
__attribute__((always_inline)) inline int efa_tx_wqe_from_wr(
	const struct efa_sq *sq, const struct ibv_send_wr *wr, uint16_t req_id,
	struct efa_io_tx_wqe *wqe)
{
	const struct ibv_sge *sge = wr->sg_list;
	uint8_t ctrl1 = EFA_IO_TX_META_DESC_META_DESC | EFA_IO_SEND;
	uint8_t *w = (uint8_t *)wqe;
	uint32_t length = 0;
	uint32_t imm = 0;

	if (wr->opcode == IBV_WR_SEND_WITH_IMM) {
		ctrl1 |= EFA_IO_TX_META_DESC_HAS_IMM;
		imm = be32toh(wr->imm_data);
	}

	if (efa_unlikely(wr->send_flags & IBV_SEND_INLINE)) {
		for (int i = 0; i < wr->num_sge; i++) {
			if (sge[i].length > sq->max_inline_data - length)
				return EINVAL;
			length += sge[i].length;
		}
		memset(wqe->data.inline_data, 0, sizeof(wqe->data.inline_data));
		for (int i = 0, off = 0; i < wr->num_sge; i++) {
			memcpy(wqe->data.inline_data + off,
			       (void *)(uintptr_t)sge[i].addr, sge[i].length);
			off += sge[i].length;
		}
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
	}

	efa_put64(w, req_id | (uint32_t)ctrl1 << 16 |
			     (uint32_t)(EFA_TX_CTRL2 | sq->wq.phase) << 24 |
			     (uint64_t)(uint16_t)wr->wr.ud.remote_qpn << 32 |
			     (uint64_t)length << 48);
	efa_put64(w + 8, imm | (uint64_t)to_efa_ah(wr->wr.ud.ah)->efa_ah << 32);
	efa_put64(w + 16, wr->wr.ud.remote_qkey);
	efa_put64(w + 24, 0);
	return 0;
}

/*
 * A WR may ask for nothing but a completion (IBV_SEND_SIGNALED, implied by
 * sq_sig_all) and inline data.
 */
static inline bool efa_send_flags_ok(const struct efa_sq *sq,
				     unsigned int flags)
{
	return ((flags | sq->sig_all) & ~IBV_SEND_INLINE) == IBV_SEND_SIGNALED;
}

static inline bool efa_sq_state_ok(const struct ibv_qp *ibvqp)
{
	return ibvqp->state == IBV_QPS_RTS || ibvqp->state == IBV_QPS_SQD;
}

static inline bool efa_send_opcode_ok(enum ibv_wr_opcode opcode)
{
	return opcode == IBV_WR_SEND || opcode == IBV_WR_SEND_WITH_IMM;
}

/* Why a WR is refused; off the fast path, which only knows that it is. */
static __attribute__((cold, noinline)) int
efa_post_send_refuse(struct efa_qp *qp, const struct ibv_send_wr *wr)
{
	struct ibv_qp *ibvqp = &qp->verbs_qp.qp;
	const char *why = "too many SGEs or too much inline data";
	int err = EINVAL;

	if (!efa_sq_state_ok(ibvqp)) {
		why = "QP is not in RTS or SQD";
	} else if (!efa_send_flags_ok(&qp->sq, wr->send_flags)) {
		why = "send_flags other than signaled (required) and inline";
	} else if (!efa_send_opcode_ok(wr->opcode)) {
		why = "opcode other than send and send with immediate";
	} else if (efa_wq_full(&qp->sq.wq)) {
		why = "SQ is full";
		err = ENOMEM;
	}
	verbs_err(to_verbs_context(ibvqp->context), "SQ %u: %s\n",
		  ibvqp->qp_num, why);
	return err;
}

int efa_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr)
{
	struct efa_qp *qp = to_efa_qp(ibvqp);
	struct efa_sq *sq = &qp->sq;
	struct efa_wq *wq = &sq->wq;
	uint32_t batch = 0;
	uint16_t req_id;
	int err = 0;

	pthread_spin_lock(&wq->lock);
	if (efa_unlikely(!efa_sq_state_ok(ibvqp)))
		goto refuse;

	for (; wr; wr = wr->next) {
		if (efa_unlikely(!efa_send_flags_ok(sq, wr->send_flags) ||
				 !efa_send_opcode_ok(wr->opcode) ||
				 efa_wq_full(wq)))
			goto refuse;
		req_id = efa_wq_peek_idx(wq);
		if (efa_unlikely(efa_tx_wqe_from_wr(sq, wr, req_id,
						    efa_sq_slot(sq))))
			goto refuse;
		efa_wq_commit_idx(wq, req_id, wr->wr_id);
		efa_sq_advance(wq);
		if (efa_unlikely(++batch == sq->max_batch_wr)) {
			efa_sq_ring(sq, wq->pc);
			batch = 0;
		}
	}
	goto out;

refuse:
	err = efa_post_send_refuse(qp, wr);
	*bad_wr = wr;
out:
	if (batch)
		efa_sq_ring(sq, wq->pc);
	pthread_spin_unlock(&wq->lock);
	return err;
}

/*
 * The ibv_wr_* API.  wr_start takes the SQ lock and wr_complete or
 * wr_abort drops it; in between WQEs go to local_queue.  The first error
 * sticks to the session: later calls do nothing and wr_complete rolls the
 * whole session back and returns it.
 */
static inline void efa_wr_fail(struct efa_qp *qp, int err, const char *what)
{
	verbs_err(to_verbs_context(qp->verbs_qp.qp.context), "SQ %u: %s\n",
		  qp->verbs_qp.qp.qp_num, what);
	qp->sq.session_err = err;
}

static void efa_wr_start(struct ibv_qp_ex *ibvqpx)
{
	struct efa_sq *sq = &to_efa_qp_ex(ibvqpx)->sq;

	pthread_spin_lock(&sq->wq.lock);
	sq->session_err = 0;
	sq->num_wqe_pending = 0;
	sq->phase_rb = sq->wq.phase;
}

static struct efa_io_tx_wqe *efa_wr_new(struct ibv_qp_ex *ibvqpx,
					uint8_t ctrl1)
{
	struct efa_qp *qp = to_efa_qp_ex(ibvqpx);
	struct efa_sq *sq = &qp->sq;
	struct efa_io_tx_wqe *wqe;

	if (efa_unlikely(sq->session_err))
		return NULL;
	if (efa_unlikely(!efa_sq_state_ok(&ibvqpx->qp_base))) {
		efa_wr_fail(qp, EINVAL, "QP not in RTS");
		return NULL;
	}
	if (efa_unlikely(!efa_send_flags_ok(sq, ibvqpx->wr_flags))) {
		efa_wr_fail(qp, EINVAL, "wr_flags (signaled only)");
		return NULL;
	}
	if (efa_unlikely(efa_wq_full(&sq->wq))) {
		efa_wr_fail(qp, ENOMEM, "SQ is full");
		return NULL;
	}

	wqe = &sq->local_queue[sq->num_wqe_pending++];
	efa_tx_meta_set(&wqe->meta, efa_wq_get_idx(&sq->wq, ibvqpx->wr_id),
			ctrl1, sq->wq.phase, 0, 0);
	memset(&wqe->data, 0, sizeof(wqe->data));
	efa_sq_advance(&sq->wq);
	sq->curr_tx_wqe = wqe;
	return wqe;
}

static void efa_wr_send(struct ibv_qp_ex *ibvqpx)
{
	efa_wr_new(ibvqpx, EFA_IO_SEND);
}

static void efa_wr_send_imm(struct ibv_qp_ex *ibvqpx, __be32 imm_data)
{
	struct efa_io_tx_wqe *wqe;

	wqe = efa_wr_new(ibvqpx, EFA_IO_SEND | EFA_IO_TX_META_DESC_HAS_IMM);
	if (wqe)
		wqe->meta.immediate_data = be32toh(imm_data);
}

static void efa_wr_rdma_read(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	struct efa_io_tx_wqe *wqe = efa_wr_new(ibvqpx, EFA_IO_RDMA_READ);

	if (!wqe)
		return;
	wqe->data.rdma_req.remote_mem.rkey = rkey;
	wqe->data.rdma_req.remote_mem.buf_addr_lo = (uint32_t)remote_addr;
	wqe->data.rdma_req.remote_mem.buf_addr_hi = remote_addr >> 32;
}

static inline bool efa_wqe_is_rdma(const struct efa_io_tx_wqe *wqe)
{
	return (wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) ==
	       EFA_IO_RDMA_READ;
}

static void efa_wr_set_sge_list(struct ibv_qp_ex *ibvqpx, size_t num_sge,
				const struct ibv_sge *sg_list)
{
	struct efa_qp *qp = to_efa_qp_ex(ibvqpx);
	struct efa_io_tx_wqe *wqe = qp->sq.curr_tx_wqe;
	struct efa_io_tx_buf_desc *bufs;
	size_t max = qp->sq.wq.max_sge;
	uint32_t total = 0;
	bool rdma;

	if (efa_unlikely(qp->sq.session_err))
		return;

	bufs = wqe->data.sgl;
	rdma = efa_wqe_is_rdma(wqe);
	if (rdma) {
		max = qp->sq.max_rdma_sge;
		bufs = wqe->data.rdma_req.local_mem;
	}
	if (efa_unlikely(num_sge > max)) {
		efa_wr_fail(qp, EINVAL, "too many SGEs");
		return;
	}

	for (size_t i = 0; i < num_sge; i++) {
		efa_tx_buf_set(&bufs[i], sg_list[i].addr, sg_list[i].lkey,
			       sg_list[i].length);
		total += sg_list[i].length;
	}
	/* An RDMA read fetches as much as the local buffers take. */
	if (rdma)
		wqe->data.rdma_req.remote_mem.length = total;
	wqe->meta.length = num_sge;
}

static void efa_wr_set_sge(struct ibv_qp_ex *ibvqpx, uint32_t lkey,
			   uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	efa_wr_set_sge_list(ibvqpx, 1, &sge);
}

static void efa_wr_set_inline_data_list(struct ibv_qp_ex *ibvqpx,
					size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct efa_qp *qp = to_efa_qp_ex(ibvqpx);
	struct efa_io_tx_wqe *wqe = qp->sq.curr_tx_wqe;
	size_t total = 0;

	if (efa_unlikely(qp->sq.session_err))
		return;
	if (efa_unlikely(efa_wqe_is_rdma(wqe))) {
		efa_wr_fail(qp, EINVAL, "RDMA read with inline data");
		return;
	}

	for (size_t i = 0; i < num_buf; i++) {
		size_t len = buf_list[i].length;

		if (efa_unlikely(len > qp->sq.max_inline_data - total)) {
			efa_wr_fail(qp, EINVAL, "inline data too long");
			return;
		}
		memcpy(wqe->data.inline_data + total, buf_list[i].addr, len);
		total += len;
	}
	wqe->meta.ctrl1 |= EFA_IO_TX_META_DESC_INLINE_MSG;
	wqe->meta.length = total;
}

static void efa_wr_set_inline_data(struct ibv_qp_ex *ibvqpx, void *addr,
				   size_t length)
{
	struct ibv_data_buf buf = { .addr = addr, .length = length };

	efa_wr_set_inline_data_list(ibvqpx, 1, &buf);
}

static void efa_wr_set_ud_addr(struct ibv_qp_ex *ibvqpx, struct ibv_ah *ah,
			       uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct efa_qp *qp = to_efa_qp_ex(ibvqpx);

	if (efa_unlikely(qp->sq.session_err))
		return;
	efa_tx_addr_set(&qp->sq.curr_tx_wqe->meta, ah, remote_qpn,
			remote_qkey);
}

static void efa_sq_roll_back(struct efa_sq *sq)
{
	sq->wq.pc -= sq->num_wqe_pending;
	sq->wq.wrid_idx_pool_next -= sq->num_wqe_pending;
	sq->wq.phase = sq->phase_rb;
	sq->num_wqe_pending = 0;
}

static int efa_wr_complete(struct ibv_qp_ex *ibvqpx)
{
	struct efa_sq *sq = &to_efa_qp_ex(ibvqpx)->sq;
	struct efa_wq *wq = &sq->wq;
	int err = sq->session_err;
	uint32_t batch = 0;

	if (efa_unlikely(err)) {
		efa_sq_roll_back(sq);
		goto out;
	}

	/* The WQEs went into the ring accounting already; copy them to the
	 * slots they were counted in.
	 */
	wq->pc -= sq->num_wqe_pending;
	for (uint32_t i = 0; i < sq->num_wqe_pending; i++) {
		efa_sq_write(sq, &sq->local_queue[i]);
		wq->pc++;
		if (++batch == sq->max_batch_wr) {
			efa_sq_ring(sq, wq->pc);
			batch = 0;
		}
	}
	if (batch)
		efa_sq_ring(sq, wq->pc);
out:
	pthread_spin_unlock(&wq->lock);
	return err;
}

static void efa_wr_abort(struct ibv_qp_ex *ibvqpx)
{
	struct efa_sq *sq = &to_efa_qp_ex(ibvqpx)->sq;

	efa_sq_roll_back(sq);
	pthread_spin_unlock(&sq->wq.lock);
}

void efa_qp_fill_wr_pfns(struct efa_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *ibvqpx = &qp->verbs_qp.qp_ex;

	ibvqpx->wr_start = efa_wr_start;
	ibvqpx->wr_complete = efa_wr_complete;
	ibvqpx->wr_abort = efa_wr_abort;

	if (send_ops_flags & IBV_QP_EX_WITH_SEND)
		ibvqpx->wr_send = efa_wr_send;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		ibvqpx->wr_send_imm = efa_wr_send_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_READ)
		ibvqpx->wr_rdma_read = efa_wr_rdma_read;

	ibvqpx->wr_set_sge = efa_wr_set_sge;
	ibvqpx->wr_set_sge_list = efa_wr_set_sge_list;
	ibvqpx->wr_set_inline_data = efa_wr_set_inline_data;
	ibvqpx->wr_set_inline_data_list = efa_wr_set_inline_data_list;
	ibvqpx->wr_set_ud_addr = efa_wr_set_ud_addr;
}
