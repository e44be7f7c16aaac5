// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Polling completions, through ibv_poll_cq() and the extended CQ API.
 *
 * An entry is the device's when its phase bit differs from the sub-CQ's
 * current phase, ours when it matches.  The sub-CQs QPs complete into are
 * visited round-robin so that a busy one cannot starve the others.  The
 * entry names the local QP and echoes the request id the WQE carried,
 * which gives back the wr_id.  On RC a send completion also retires the
 * unsignaled WQEs before it.
 */

#include <endian.h>
#include <errno.h>
#include <string.h>

#include "efa.h"
#include "efa_dp.h"
#include "efa/efa_ext_abi.h"

static const uint8_t efa_wc_status_map[] = {
	[EFA_IO_COMP_STATUS_OK] = IBV_WC_SUCCESS,
	[EFA_IO_COMP_STATUS_FLUSHED] = IBV_WC_WR_FLUSH_ERR,
	[EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR] = IBV_WC_LOC_QP_OP_ERR,
	[EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE] = IBV_WC_LOC_QP_OP_ERR,
	[EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_AH] = IBV_WC_LOC_QP_OP_ERR,
	[EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY] = IBV_WC_LOC_PROT_ERR,
	[EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH] = IBV_WC_LOC_LEN_ERR,
	[EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS] = IBV_WC_REM_ACCESS_ERR,
	[EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT] = IBV_WC_REM_ABORT_ERR,
	[EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN] = IBV_WC_REM_INV_RD_REQ_ERR,
	[EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR] = IBV_WC_RNR_RETRY_EXC_ERR,
	[EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH] = IBV_WC_REM_INV_REQ_ERR,
	[EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_STATUS] = IBV_WC_BAD_RESP_ERR,
	[EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE] = IBV_WC_RESP_TIMEOUT_ERR,
	[EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER] = IBV_WC_REM_OP_ERR,
	[EFA_IO_COMP_STATUS_LOCAL_ERROR_UNREACH_REMOTE] = IBV_WC_RESP_TIMEOUT_ERR,
};

/* The mapping of current rdma-core, which names statuses that v44 did not
 * know (and reported as general errors).
 */
__attribute__((always_inline)) inline enum ibv_wc_status
efa_wc_status(uint8_t status)
{
	if (efa_likely(status == EFA_IO_COMP_STATUS_OK))
		return IBV_WC_SUCCESS;
	if (status < sizeof(efa_wc_status_map))
		return efa_wc_status_map[status];
	if (status == SEFA_IO_COMP_STATUS_REMOTE_ERROR_RETRY_EXC)
		return IBV_WC_RETRY_EXC_ERR;
	return IBV_WC_GENERAL_ERR;
}

/*
 * Takes the next entry of a sub-CQ of cq into *cqe, counting it in the
 * CQ's total.  A found entry is a return value of its own, which spares
 * the callers a second test of the pointer.
 */
static inline bool efa_sub_cq_next(struct efa_cq *cq,
				   struct efa_sub_cq *sub_cq,
				   const struct efa_io_cdesc_common **cqe)
{
	uint32_t idx = sub_cq->consumed_cnt & sub_cq->qmask;
	const struct efa_io_cdesc_common *e;

	e = (const void *)(sub_cq->buf + (size_t)idx * cq->cqe_size);
	if ((__atomic_load_n(&e->flags, __ATOMIC_RELAXED) &
	     EFA_IO_CDESC_COMMON_PHASE) != sub_cq->phase)
		return false;

	/* The device wrote the entry before its phase: read it after. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);

	sub_cq->consumed_cnt++;
	if (efa_unlikely(idx == sub_cq->qmask))
		sub_cq->phase ^= 1;
	cq->cc++;
	*cqe = e;
	return true;
}

/* Takes the next completion of any sub-CQ into *cqe.  CQ lock held. */
static __attribute__((always_inline)) inline bool
efa_cq_take_cqe(struct efa_cq *cq, const struct efa_io_cdesc_common **cqe)
{
	uint16_t n;

	if (efa_likely(cq->sole))
		return efa_sub_cq_next(cq, cq->sole, cqe);

	n = cq->num_active;
	for (uint16_t i = 0; i < n; i++) {
		struct efa_sub_cq *sub_cq = cq->active[cq->next_poll_idx];

		if (++cq->next_poll_idx == n)
			cq->next_poll_idx = 0;
		if (efa_sub_cq_next(cq, sub_cq, cqe))
			return true;
	}
	return false;
}

/* The same, or NULL. */
__attribute__((always_inline)) inline const struct efa_io_cdesc_common *
efa_cq_next_cqe(struct efa_cq *cq)
{
	const struct efa_io_cdesc_common *cqe;

	return efa_cq_take_cqe(cq, &cqe) ? cqe : NULL;
}

static inline bool efa_cqe_is_send(uint8_t flags)
{
	return (flags & EFA_IO_CDESC_COMMON_Q_TYPE_MASK) ==
	       (EFA_IO_SEND_QUEUE << EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT);
}

/*
 * The receive of an RDMA write with immediate on a QP that takes them
 * unsolicited: no posted receive was consumed, so no request id to give
 * back, and the wr_id is 0.
 */
static inline bool efa_cqe_is_unsolicited(uint8_t flags)
{
	return !efa_cqe_is_send(flags) &&
	       (flags & EFA_IO_CDESC_COMMON_UNSOLICITED);
}

/* The QP a completion belongs to, or NULL if it is not ours. */
static inline struct efa_qp *efa_cqe_qp(struct efa_cq *cq, uint16_t qpn)
{
	struct efa_context *ctx = to_efa_context(cq->verbs_cq.cq.context);
	struct efa_qp *qp = ctx->qp_table[qpn & ctx->qp_table_mask];

	if (efa_unlikely(!qp || qp->verbs_qp.qp.qp_num != qpn)) {
		verbs_err(&ctx->ibvctx, "completion for unknown QP %u\n", qpn);
		return NULL;
	}
	return qp;
}

/*
 * Hands a completed request id back to its queue and returns its wr_id.
 * The checks keep a device that echoes a bad id from corrupting the pool.
 */
static inline int efa_wq_complete(struct efa_wq *wq, uint16_t req_id,
				  uint64_t *wr_id)
{
	bool ok;

	efa_spin_lock(&wq->lock);
	if (wq->in_order) {
		ok = efa_wq_retire_to(wq, req_id);
	} else {
		ok = req_id < wq->wqe_cnt && wq->wrid_idx_pool_next;
		if (efa_likely(ok))
			efa_wq_put_idx(wq, req_id);
	}
	/* Still ours: nobody posts while we hold the lock. */
	if (efa_likely(ok))
		*wr_id = wq->wrid[req_id];
	efa_spin_unlock(&wq->lock);
	return ok ? 0 : EINVAL;
}

static inline uint8_t efa_cqe_op(uint8_t flags)
{
	return (flags & EFA_IO_CDESC_COMMON_OP_TYPE_MASK) >>
	       EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT;
}

/* RDMA read completes as a send on SRD, as on EFA hardware, not on RC. */
static inline enum ibv_wc_opcode efa_wc_tx_opcode(const struct efa_qp *qp,
						  uint8_t flags)
{
	if (efa_likely(!(flags & EFA_IO_CDESC_COMMON_OP_TYPE_MASK)))
		return IBV_WC_SEND;
	switch (efa_cqe_op(flags)) {
	case EFA_IO_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case EFA_IO_RDMA_READ:
		return qp->sq.connected ? IBV_WC_RDMA_READ : IBV_WC_SEND;
	case EFA_IO_UMR:
		/* as mlx5dv reports its UMR: ibv_exp_poll_cq() says so */
		return IBV_WC_DRIVER1;
	default:
		return IBV_WC_SEND;
	}
}

/* A receive of op_type RDMA_WRITE is the immediate of a write. */
static inline enum ibv_wc_opcode efa_wc_rx_opcode(uint8_t flags)
{
	return efa_cqe_op(flags) == EFA_IO_RDMA_WRITE ?
		       IBV_WC_RECV_RDMA_WITH_IMM :
		       IBV_WC_RECV;
}

/*
 * A 32-byte entry has bits 31:16 of the length of an RDMA write, and on RC
 * of every receive (efa_ext_abi.h); other lengths fit 16 bits.
 */
static inline uint32_t efa_rx_byte_len(const struct efa_cq *cq,
				       const struct efa_qp *qp,
				       const struct efa_io_rx_cdesc *rcqe)
{
	const struct efa_io_rx_cdesc_ex *ex = (const void *)rcqe;
	uint32_t length = rcqe->length;

	if (cq->cqe_size == EFA_IO_CQE_EX_SIZE &&
	    (qp->sq.connected ||
	     efa_cqe_op(rcqe->common.flags) == EFA_IO_RDMA_WRITE))
		length |= (uint32_t)ex->u.rdma_write.length_hi << 16;
	return length;
}

/*
 * Every field is read from the entry once, before the first store to wc,
 * which the compiler could not otherwise keep apart from the entry.
 */
static inline int efa_cqe_to_wc(struct efa_cq *cq,
				const struct efa_io_cdesc_common *cqe,
				struct ibv_wc *wc)
{
	const struct efa_io_rx_cdesc *rcqe = (const void *)cqe;
	uint16_t req_id = cqe->req_id;
	uint8_t status = cqe->status;
	uint8_t flags = cqe->flags;
	uint16_t qpn = cqe->qp_num;
	struct efa_qp *qp = efa_cqe_qp(cq, qpn);
	struct efa_wq *wq;

	if (efa_unlikely(!qp))
		return EINVAL;

	wc->status = efa_wc_status(status);
	wc->vendor_err = status;
	wc->qp_num = qpn;
	if (efa_cqe_is_send(flags)) {
		wq = &qp->sq.wq;
		wc->opcode = efa_wc_tx_opcode(qp, flags);
		wc->wc_flags = 0;
		wc->byte_len = 0;
	} else {
		uint32_t length = efa_rx_byte_len(cq, qp, rcqe);
		uint16_t ah = rcqe->ah;
		uint16_t src_qp = rcqe->src_qp_num;
		uint32_t imm = rcqe->imm;

		wq = &qp->rq.wq;
		wc->opcode = efa_wc_rx_opcode(flags);
		wc->byte_len = length;
		wc->src_qp = src_qp;
		wc->slid = ah;
		wc->sl = 0;
		wc->dlid_path_bits = 0;
		if (flags & EFA_IO_CDESC_COMMON_HAS_IMM) {
			wc->imm_data = htobe32(imm);
			wc->wc_flags = IBV_WC_WITH_IMM;
		} else {
			wc->wc_flags = 0;
		}
		if (flags & EFA_IO_CDESC_COMMON_UNSOLICITED) {
			wc->wr_id = 0;
			return 0;
		}
	}
	return efa_wq_complete(wq, req_id, &wc->wr_id);
}

/*
 * Tell the device how far the CQ was read, after every poll that took an
 * entry: it judges arms and overruns by it.
 */
static inline void efa_cq_update_db(struct efa_cq *cq)
{
	if (cq->db)
		efa_db_write(cq->db, efa_cq_db_val(cq, false));
}

int efa_poll_cq(struct ibv_cq *ibvcq, int nwc, struct ibv_wc *wc)
{
	struct efa_cq *cq = to_efa_cq(ibvcq);
	const struct efa_io_cdesc_common *cqe;
	int err;
	int i;

	efa_spin_lock(&cq->lock);
	for (i = 0; i < nwc; i++) {
		if (!efa_cq_take_cqe(cq, &cqe))
			break;
		err = efa_cqe_to_wc(cq, cqe, &wc[i]);
		if (efa_unlikely(err))
			goto bad_cqe;
	}
	if (i)
		efa_cq_update_db(cq);
	efa_spin_unlock(&cq->lock);
	return i;

bad_cqe:
	/* The bad entry is taken too. */
	efa_cq_update_db(cq);
	efa_spin_unlock(&cq->lock);
	return i ? i : -err;
}

/* Extended CQ API: start_poll takes the CQ lock, end_poll drops it. */
static int efa_poll_one_ex(struct efa_cq *cq)
{
	struct ibv_cq_ex *ibvcqx = &cq->verbs_cq.cq_ex;
	const struct efa_io_cdesc_common *cqe;
	struct efa_wq *wq;
	struct efa_qp *qp;

	cqe = efa_cq_next_cqe(cq);
	if (!cqe)
		return ENOENT;
	cq->cur_cqe = cqe;

	qp = efa_cqe_qp(cq, cqe->qp_num);
	cq->cur_qp = qp;
	if (efa_unlikely(!qp))
		return EINVAL;
	ibvcqx->status = efa_wc_status(cqe->status);
	if (efa_cqe_is_unsolicited(cqe->flags)) {
		ibvcqx->wr_id = 0;
		return 0;
	}
	wq = efa_cqe_is_send(cqe->flags) ? &qp->sq.wq : &qp->rq.wq;
	return efa_wq_complete(wq, cqe->req_id, &ibvcqx->wr_id);
}

static int efa_start_poll(struct ibv_cq_ex *ibvcqx,
			  struct ibv_poll_cq_attr *attr)
{
	struct efa_cq *cq = to_efa_cq_ex(ibvcqx);
	int err;

	if (efa_unlikely(attr->comp_mask))
		return EINVAL;

	efa_spin_lock(&cq->lock);
	err = efa_poll_one_ex(cq);
	if (err) {
		if (err != ENOENT)
			efa_cq_update_db(cq);
		efa_spin_unlock(&cq->lock);
	}
	return err;
}

static int efa_next_poll(struct ibv_cq_ex *ibvcqx)
{
	return efa_poll_one_ex(to_efa_cq_ex(ibvcqx));
}

/*
 * Only called after a start_poll that found an entry, so always update.
 * The last entry stays the current one until a poll finds another, as in
 * upstream's provider: callers such as pyverbs ask efadv_wc_is_unsolicited()
 * once the poll is over, and the entry stays in the ring until the device
 * comes round to its slot again.
 */
static void efa_end_poll(struct ibv_cq_ex *ibvcqx)
{
	struct efa_cq *cq = to_efa_cq_ex(ibvcqx);

	efa_cq_update_db(cq);
	efa_spin_unlock(&cq->lock);
}

static inline const struct efa_io_rx_cdesc *
efa_cur_rx(struct ibv_cq_ex *ibvcqx)
{
	return (const void *)to_efa_cq_ex(ibvcqx)->cur_cqe;
}

static enum ibv_wc_opcode efa_wc_read_opcode(struct ibv_cq_ex *ibvcqx)
{
	struct efa_cq *cq = to_efa_cq_ex(ibvcqx);
	uint8_t flags = cq->cur_cqe->flags;

	return efa_cqe_is_send(flags) ? efa_wc_tx_opcode(cq->cur_qp, flags) :
					efa_wc_rx_opcode(flags);
}

static uint32_t efa_wc_read_vendor_err(struct ibv_cq_ex *ibvcqx)
{
	return to_efa_cq_ex(ibvcqx)->cur_cqe->status;
}

static uint32_t efa_wc_read_byte_len(struct ibv_cq_ex *ibvcqx)
{
	struct efa_cq *cq = to_efa_cq_ex(ibvcqx);
	const struct efa_io_rx_cdesc *rcqe = efa_cur_rx(ibvcqx);

	return efa_cqe_is_send(rcqe->common.flags) ?
		       0 :
		       efa_rx_byte_len(cq, cq->cur_qp, rcqe);
}

static __be32 efa_wc_read_imm_data(struct ibv_cq_ex *ibvcqx)
{
	return htobe32(efa_cur_rx(ibvcqx)->imm);
}

static uint32_t efa_wc_read_qp_num(struct ibv_cq_ex *ibvcqx)
{
	return to_efa_cq_ex(ibvcqx)->cur_cqe->qp_num;
}

static uint32_t efa_wc_read_src_qp(struct ibv_cq_ex *ibvcqx)
{
	return efa_cur_rx(ibvcqx)->src_qp_num;
}

static unsigned int efa_wc_read_wc_flags(struct ibv_cq_ex *ibvcqx)
{
	return to_efa_cq_ex(ibvcqx)->cur_cqe->flags &
			       EFA_IO_CDESC_COMMON_HAS_IMM ?
		       IBV_WC_WITH_IMM :
		       0;
}

static uint32_t efa_wc_read_slid(struct ibv_cq_ex *ibvcqx)
{
	return efa_cur_rx(ibvcqx)->ah;
}

static uint8_t efa_wc_read_sl(struct ibv_cq_ex *ibvcqx)
{
	return 0;
}

static uint8_t efa_wc_read_dlid_path_bits(struct ibv_cq_ex *ibvcqx)
{
	return 0;
}

/*
 * The sender's GID is there only on a CQ created for it, and the device
 * fills it in only for a sender of a datagram the receiver has no AH for:
 * the same bytes hold the high length bits of an RDMA write or an RC
 * receive.
 */
static int efa_wc_read_sgid(struct efadv_cq *efadv_cq, union ibv_gid *sgid)
{
	struct efa_cq *cq = to_efa_cq_dv(efadv_cq);
	const struct efa_io_rx_cdesc_ex *rcqe = (const void *)cq->cur_cqe;
	uint8_t flags;

	if (!cq->with_sgid)
		return -EOPNOTSUPP;
	/* no entry polled yet */
	if (!rcqe)
		return -ENOENT;
	flags = rcqe->base.common.flags;
	if (efa_cqe_is_send(flags) || rcqe->base.ah != EFA_IO_AH_UNKNOWN ||
	    efa_cqe_op(flags) == EFA_IO_RDMA_WRITE || cq->cur_qp->sq.connected)
		return -ENOENT;

	memcpy(sgid->raw, rcqe->u.src_addr, sizeof(sgid->raw));
	return 0;
}

/*
 * Set on every CQ, unlike upstream's, which sets it only on a CQ created
 * with EFADV_WC_EX_WITH_IS_UNSOLICITED: the bit is in every entry.
 */
static bool efa_wc_is_unsolicited(struct efadv_cq *efadv_cq)
{
	const struct efa_io_cdesc_common *cqe = to_efa_cq_dv(efadv_cq)->cur_cqe;

	/* no entry polled yet */
	return cqe && efa_cqe_is_unsolicited(cqe->flags);
}

void efa_cq_fill_pfns(struct efa_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *ibvcqx = &cq->verbs_cq.cq_ex;

	ibvcqx->start_poll = efa_start_poll;
	ibvcqx->next_poll = efa_next_poll;
	ibvcqx->end_poll = efa_end_poll;
	ibvcqx->read_opcode = efa_wc_read_opcode;
	ibvcqx->read_vendor_err = efa_wc_read_vendor_err;
	ibvcqx->read_wc_flags = efa_wc_read_wc_flags;

	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ibvcqx->read_byte_len = efa_wc_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		ibvcqx->read_imm_data = efa_wc_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ibvcqx->read_qp_num = efa_wc_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ibvcqx->read_src_qp = efa_wc_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		ibvcqx->read_slid = efa_wc_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		ibvcqx->read_sl = efa_wc_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ibvcqx->read_dlid_path_bits = efa_wc_read_dlid_path_bits;

	cq->dv_cq.comp_mask = 0;
	cq->dv_cq.wc_read_sgid = efa_wc_read_sgid;
	cq->dv_cq.wc_is_unsolicited = efa_wc_is_unsolicited;
}
