// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting sends through the ibv_wr_* API.
 *
 * wr_start takes the SQ lock and wr_complete or wr_abort drops it; in
 * between WQEs are built in local_queue, and wr_complete copies them to
 * the LLQ.  The first error sticks to the session: later calls do nothing
 * and wr_complete rolls the whole session back and returns it.
 */

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "efa.h"
#include "efa_dp.h"

static inline void efa_tx_buf_set(struct efa_io_tx_buf_desc *buf,
				  uint64_t addr, uint32_t lkey,
				  uint32_t length)
{
	buf->length = length;
	buf->lkey = lkey & EFA_IO_LKEY_MASK;
	buf->buf_addr_lo = (uint32_t)addr;
	buf->buf_addr_hi = addr >> 32;
}

/* Copies a staged WQE to its LLQ slot in one go, so that the
 * write-combining buffer sends it whole.
 */
static inline void efa_sq_write(struct efa_sq *sq, const uint8_t *wqe)
{
	if (sq->wqe_size == EFA_IO_TX_WQE_128_SIZE)
		__builtin_memcpy(efa_sq_slot(sq), wqe, EFA_IO_TX_WQE_128_SIZE);
	else
		__builtin_memcpy(efa_sq_slot(sq), wqe, EFA_IO_TX_WQE_SIZE);
}

static inline void efa_wr_fail(struct efa_qp *qp, int err, const char *what)
{
	verbs_err(to_verbs_context(qp->verbs_qp.qp.context), "SQ %u: %s\n",
		  qp->verbs_qp.qp.qp_num, what);
	qp->sq.session_err = err;
}

static void efa_wr_start(struct ibv_qp_ex *ibvqpx)
{
	struct efa_sq *sq = &to_efa_qp_ex(ibvqpx)->sq;

	efa_spin_lock(&sq->wq.lock);
	sq->session_err = 0;
	sq->num_wqe_pending = 0;
	sq->wqe_ctrl_rb = sq->wqe_ctrl;
}

static struct efa_io_tx_wqe *efa_wr_new(struct ibv_qp_ex *ibvqpx,
					uint8_t ctrl1)
{
	struct efa_qp *qp = to_efa_qp_ex(ibvqpx);
	struct efa_sq *sq = &qp->sq;
	struct efa_io_tx_wqe *wqe;

	if (efa_unlikely(sq->session_err))
		return NULL;
	if (efa_unlikely(!efa_sq_state_ok(sq, ibvqpx->qp_base.state))) {
		efa_wr_fail(qp, EINVAL, "QP state does not take sends");
		return NULL;
	}
	if (efa_unlikely(!efa_send_flags_ok(sq, ibvqpx->wr_flags,
					    sq->connected))) {
		efa_wr_fail(qp, EINVAL,
			    sq->connected ? "wr_flags (signaled, inline)" :
					    "wr_flags (signaled, required)");
		return NULL;
	}
	if (efa_unlikely(efa_wq_full(&sq->wq))) {
		efa_wr_fail(qp, ENOMEM, "SQ is full");
		return NULL;
	}

	wqe = (struct efa_io_tx_wqe *)(sq->local_queue +
				       (size_t)sq->num_wqe_pending++ *
					       sq->wqe_size);
	memset(wqe, 0, sq->wqe_size);
	wqe->meta.ctrl1 = EFA_IO_TX_META_DESC_META_DESC | ctrl1;
	wqe->meta.ctrl2 = efa_tx_ctrl2(sq, ibvqpx->wr_flags, sq->connected);
	wqe->meta.req_id = efa_wq_get_idx(&sq->wq, ibvqpx->wr_id);
	efa_sq_advance(sq);
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

/* The remote side of an RDMA WQE; its length comes with the local SGE. */
static struct efa_io_tx_wqe *efa_wr_rdma(struct ibv_qp_ex *ibvqpx,
					 uint8_t ctrl1, uint32_t rkey,
					 uint64_t remote_addr)
{
	struct efa_io_tx_wqe *wqe = efa_wr_new(ibvqpx, ctrl1);

	if (wqe) {
		wqe->data.rdma_req.remote_mem.rkey = rkey;
		wqe->data.rdma_req.remote_mem.buf_addr_lo = (uint32_t)remote_addr;
		wqe->data.rdma_req.remote_mem.buf_addr_hi = remote_addr >> 32;
	}
	return wqe;
}

static void efa_wr_rdma_read(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
			     uint64_t remote_addr)
{
	efa_wr_rdma(ibvqpx, EFA_IO_RDMA_READ, rkey, remote_addr);
}

static void efa_wr_rdma_write(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	efa_wr_rdma(ibvqpx, EFA_IO_RDMA_WRITE, rkey, remote_addr);
}

static void efa_wr_rdma_write_imm(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
				  uint64_t remote_addr, __be32 imm_data)
{
	struct efa_io_tx_wqe *wqe;

	wqe = efa_wr_rdma(ibvqpx,
			  EFA_IO_RDMA_WRITE | EFA_IO_TX_META_DESC_HAS_IMM,
			  rkey, remote_addr);
	if (wqe)
		wqe->meta.immediate_data = be32toh(imm_data);
}

static inline bool efa_wqe_is_rdma(const struct efa_io_tx_wqe *wqe)
{
	return (wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) !=
	       EFA_IO_SEND;
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
	/* RDMA moves as much as the local buffer holds. */
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

/*
 * Where the inline data of the WQE being built goes: after the meta
 * descriptor of a SEND, or after the remote address of an RDMA write on a
 * QP made for inline writes (128-byte WQEs); NULL for any other RDMA, as
 * upstream refuses it.
 */
static uint8_t *efa_wr_inline_dst(const struct efa_sq *sq,
				  struct efa_io_tx_wqe *wqe)
{
	struct efa_io_tx_wqe_128 *wqe_128 = (struct efa_io_tx_wqe_128 *)wqe;

	if (!efa_wqe_is_rdma(wqe))
		return sq->wqe_size == EFA_IO_TX_WQE_128_SIZE ?
			       wqe_128->data.inline_data :
			       wqe->data.inline_data;
	if (sq->inline_write && (wqe->meta.ctrl1 &
				 EFA_IO_TX_META_DESC_OP_TYPE_MASK) ==
					EFA_IO_RDMA_WRITE)
		return wqe_128->data.rdma_req.inline_data;
	return NULL;
}

static void efa_wr_set_inline_data_list(struct ibv_qp_ex *ibvqpx,
					size_t num_buf,
					const struct ibv_data_buf *buf_list)
{
	struct efa_qp *qp = to_efa_qp_ex(ibvqpx);
	struct efa_io_tx_wqe *wqe = qp->sq.curr_tx_wqe;
	uint8_t *dst;
	size_t total = 0;

	if (efa_unlikely(qp->sq.session_err))
		return;
	dst = efa_wr_inline_dst(&qp->sq, wqe);
	if (efa_unlikely(!dst)) {
		efa_wr_fail(qp, EINVAL,
			    qp->sq.inline_write ?
				    "RDMA read with inline data" :
				    "RDMA with inline data, on a QP without "
				    "EFADV_QP_FLAGS_INLINE_WRITE");
		return;
	}

	for (size_t i = 0; i < num_buf; i++) {
		size_t len = buf_list[i].length;

		if (efa_unlikely(len > qp->sq.max_inline_data - total)) {
			efa_wr_fail(qp, EINVAL, "inline data too long");
			return;
		}
		memcpy(dst + total, buf_list[i].addr, len);
		total += len;
	}
	wqe->meta.ctrl1 |= EFA_IO_TX_META_DESC_INLINE_MSG;
	wqe->meta.length = total;
	/* An inline write moves what the WQE carries. */
	if (efa_wqe_is_rdma(wqe))
		wqe->data.rdma_req.remote_mem.length = total;
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
	struct efa_io_tx_meta_desc *meta;

	if (efa_unlikely(qp->sq.session_err))
		return;
	meta = &qp->sq.curr_tx_wqe->meta;
	meta->dest_qp_num = remote_qpn;
	meta->ah = to_efa_ah(ah)->efa_ah;
	meta->qkey = remote_qkey;
}

/* The hints go to the WQE; the device may act on them or not. */
static void efa_wr_set_processing_hints(struct efadv_qp *dv_qp, uint32_t hints)
{
	struct efa_qp *qp = efadv_qp_to_efa_qp(dv_qp);
	uint8_t bits = 0;

	if (efa_unlikely(qp->sq.session_err))
		return;
	if (hints & EFADV_WR_PROCESSING_HINT_BURST_PPS_SENSITIVE)
		bits |= EFA_IO_PROCESSING_HINT_BURST_PPS_SENSITIVE;
	qp->sq.curr_tx_wqe->meta.ctrl3 =
		(qp->sq.curr_tx_wqe->meta.ctrl3 &
		 ~EFA_IO_TX_META_DESC_PROCESSING_HINTS_MASK) | bits;
}

static void efa_sq_roll_back(struct efa_sq *sq)
{
	sq->wq.pc -= sq->num_wqe_pending;
	sq->wq.wrid_idx_pool_next -= sq->num_wqe_pending;
	sq->wqe_ctrl = sq->wqe_ctrl_rb;
	sq->num_wqe_pending = 0;
}

static int efa_wr_complete(struct ibv_qp_ex *ibvqpx)
{
	struct efa_sq *sq = &to_efa_qp_ex(ibvqpx)->sq;
	struct efa_wq *wq = &sq->wq;
	int err = sq->session_err;
	uint32_t batch = 0;
	bool busy;

	if (efa_unlikely(err)) {
		efa_sq_roll_back(sq);
		goto out;
	}

	/* The WQEs went into the ring accounting already; copy them to the
	 * slots they were counted in.
	 */
	wq->pc -= sq->num_wqe_pending;
	busy = wq->wrid_idx_pool_next > sq->num_wqe_pending;
	for (uint32_t i = 0; i < sq->num_wqe_pending; i++) {
		efa_sq_write(sq, sq->local_queue + (size_t)i * sq->wqe_size);
		wq->pc++;
		if (++batch == sq->max_batch_wr) {
			efa_sq_ring(sq, wq->pc, busy);
			batch = 0;
		}
	}
	if (batch)
		efa_sq_ring(sq, wq->pc, busy);
out:
	efa_spin_unlock(&wq->lock);
	return err;
}

static void efa_wr_abort(struct ibv_qp_ex *ibvqpx)
{
	struct efa_sq *sq = &to_efa_qp_ex(ibvqpx)->sq;

	efa_sq_roll_back(sq);
	efa_spin_unlock(&sq->wq.lock);
}

/*
 * RC names no destination: it has no wr_set_ud_addr.  dv_wr_flags are the
 * EFADV_WR_EX_* of efadv_create_qp_ex().
 */
void efa_qp_fill_wr_pfns(struct efa_qp *qp, uint64_t send_ops_flags,
			 uint64_t dv_wr_flags)
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
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE)
		ibvqpx->wr_rdma_write = efa_wr_rdma_write;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		ibvqpx->wr_rdma_write_imm = efa_wr_rdma_write_imm;

	ibvqpx->wr_set_sge = efa_wr_set_sge;
	ibvqpx->wr_set_sge_list = efa_wr_set_sge_list;
	ibvqpx->wr_set_inline_data = efa_wr_set_inline_data;
	ibvqpx->wr_set_inline_data_list = efa_wr_set_inline_data_list;
	if (!qp->sq.connected)
		ibvqpx->wr_set_ud_addr = efa_wr_set_ud_addr;
	if (dv_wr_flags & EFADV_WR_EX_WITH_PROCESSING_HINTS)
		qp->dv_qp.wr_set_processing_hints = efa_wr_set_processing_hints;
}
