// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Work queues: how deep the rings of a QP are, the request-id pools, and
 * the rules each QP type posts by.
 *
 * UD and SRD follow EFA: every WQE asks for a completion, completions
 * come in any order, a receive offers at most one descriptor per SGE.
 * RC follows InfiniBand: unsignaled sends, in-order send completions,
 * RDMA through ibv_post_send, messages longer than a receive descriptor.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "efa.h"
#include "efa_dp.h"

/* Producer counters and request ids are 16 bits wide. */
#define EFA_MAX_RING_ENTRIES (1U << 16)

#define EFA_QPS(s) (1U << IBV_QPS_##s)

/*
 * The bytes of a send WQE, as the device and upstream size them: 128 where
 * the inline data asked for outgrows a 64-byte WQE or RDMA write is to
 * take inline data.  The caller checked that the device has them.
 */
static uint32_t efa_sq_wqe_size(uint32_t max_inline_data, bool inline_write)
{
	if (max_inline_data > EFA_IO_TX_DESC_INLINE_MAX_SIZE || inline_write)
		return EFA_IO_TX_WQE_128_SIZE;
	return EFA_IO_TX_WQE_SIZE;
}

/*
 * Whether RDMA write may carry inline data: in a 128-byte WQE, on a device
 * that writes, when efadv_create_qp_ex() asked for it (dv_flags), or on RC,
 * whose max_inline_data covers writes as on InfiniBand.
 */
static bool efa_qp_inline_write(const struct efa_context *ctx,
				enum ibv_qp_type type, uint16_t dv_flags,
				uint32_t wqe_size)
{
	return wqe_size == EFA_IO_TX_WQE_128_SIZE &&
	       (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_WRITE) &&
	       ((dv_flags & EFADV_QP_FLAGS_INLINE_WRITE) || type == IBV_QPT_RC);
}

/*
 * dv_flags: the EFADV_QP_FLAGS_* efa_dv_qp_attr_parse() let through, 0 for
 * the generic verbs.
 */
int efa_qp_geometry(const struct efa_context *ctx,
		    const struct ibv_qp_cap *cap, enum ibv_qp_type type,
		    uint16_t dv_flags, struct efa_qp_geom *geom)
{
	struct verbs_context *vctx = (struct verbs_context *)&ctx->ibvctx;
	uint32_t wr_descs = cap->max_recv_sge;
	uint32_t sq_wrs = cap->max_send_wr > ctx->min_sq_wr ?
				  cap->max_send_wr : ctx->min_sq_wr;
	uint32_t max_inline = efa_ctx_max_inline(ctx);
	uint64_t rq_descs, sq_bytes;
	bool inline_write;

	if (cap->max_send_sge > ctx->max_sq_sge ||
	    cap->max_send_sge > EFA_IO_TX_DESC_NUM_BUFS ||
	    cap->max_recv_sge > ctx->max_rq_sge ||
	    cap->max_send_wr > ctx->max_sq_wr ||
	    cap->max_recv_wr > ctx->max_rq_wr ||
	    cap->max_inline_data > max_inline) {
		verbs_err(vctx,
			  "caps sq %u/%u rq %u/%u inline %u exceed sq %u/%u rq %u/%u inline %u\n",
			  cap->max_send_wr, cap->max_send_sge,
			  cap->max_recv_wr, cap->max_recv_sge,
			  cap->max_inline_data, ctx->max_sq_wr,
			  ctx->max_sq_sge, ctx->max_rq_wr, ctx->max_rq_sge,
			  max_inline);
		return EINVAL;
	}

	/*
	 * RC splits long SGEs: a WR may take as many descriptors as the
	 * device takes, or as many as a ring of that depth has room for.
	 */
	if (type == IBV_QPT_RC && wr_descs && cap->max_recv_wr) {
		wr_descs = EFA_MAX_RING_ENTRIES / cap->max_recv_wr;
		if (wr_descs > ctx->max_rq_sge)
			wr_descs = ctx->max_rq_sge;
		if (wr_descs < cap->max_recv_sge)
			wr_descs = cap->max_recv_sge;
	}
	rq_descs = (uint64_t)wr_descs * cap->max_recv_wr;

	if (sq_wrs > EFA_MAX_RING_ENTRIES || rq_descs > EFA_MAX_RING_ENTRIES) {
		verbs_err(vctx, "rings of %u WQEs / %llu descriptors\n",
			  sq_wrs, (unsigned long long)rq_descs);
		return EINVAL;
	}

	/* The device needs power-of-two rings; an RQ holds as many WRs as
	 * fit when each uses all the descriptors it may.
	 */
	geom->sq_wqe_cnt = efa_roundup_pow2(sq_wrs);
	inline_write = dv_flags & EFADV_QP_FLAGS_INLINE_WRITE;
	geom->sq_wqe_size = efa_sq_wqe_size(cap->max_inline_data, inline_write);
	geom->inline_write = efa_qp_inline_write(ctx, type, dv_flags,
						 geom->sq_wqe_size);
	/* The LLQ holds half as many 128-byte WQEs. */
	sq_bytes = (uint64_t)geom->sq_wqe_cnt * geom->sq_wqe_size;
	if (sq_bytes > ctx->max_llq_size) {
		verbs_err(vctx,
			  "SQ of %u %u-byte WQEs exceeds the LLQ's %u bytes\n",
			  geom->sq_wqe_cnt, geom->sq_wqe_size,
			  ctx->max_llq_size);
		return EINVAL;
	}
	geom->rq_desc_cnt = efa_roundup_pow2(rq_descs);
	geom->rq_wqe_cnt = rq_descs ? geom->rq_desc_cnt / wr_descs : 0;
	geom->rq_wr_descs = wr_descs;
	return 0;
}

int efa_wq_init(struct efa_wq *wq, uint32_t wqe_cnt, uint32_t desc_cnt,
		uint16_t max_sge, uint32_t *db)
{
	memset(wq, 0, sizeof(*wq));
	efa_spin_init(&wq->lock);
	wq->wqe_cnt = wqe_cnt;
	wq->desc_mask = desc_cnt - 1;
	wq->max_sge = max_sge;
	wq->db = db;
	if (!wqe_cnt)
		return 0;

	wq->wrid = malloc(wqe_cnt * sizeof(*wq->wrid));
	wq->wrid_idx_pool = malloc(wqe_cnt * sizeof(*wq->wrid_idx_pool));
	if (!wq->wrid || !wq->wrid_idx_pool) {
		efa_wq_fini(wq);
		return ENOMEM;
	}

	for (uint32_t i = 0; i < wqe_cnt; i++)
		wq->wrid_idx_pool[i] = i;
	return 0;
}

void efa_wq_fini(struct efa_wq *wq)
{
	free(wq->wrid);
	free(wq->wrid_idx_pool);
	wq->wrid = NULL;
	wq->wrid_idx_pool = NULL;
}

/* The WR opcodes ibv_post_send() takes: RDMA only on RC, as offered. */
static uint32_t efa_wr_opcodes(const struct efa_context *ctx,
			       enum ibv_qp_type type)
{
	uint32_t ops = 1U << IBV_WR_SEND | 1U << IBV_WR_SEND_WITH_IMM;

	if (type != IBV_QPT_RC)
		return ops;
	if (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_WRITE)
		ops |= 1U << IBV_WR_RDMA_WRITE | 1U << IBV_WR_RDMA_WRITE_WITH_IMM;
	if (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_READ)
		ops |= 1U << IBV_WR_RDMA_READ;
	return ops;
}

static void efa_sq_setup(const struct efa_context *ctx, struct efa_sq *sq,
			 enum ibv_qp_type type, const struct efa_qp_geom *geom,
			 uint8_t *desc, int sq_sig_all)
{
	bool rc = type == IBV_QPT_RC;
	uint32_t batch = UINT16_MAX;

	sq->desc = desc;
	sq->wqe_size = geom->sq_wqe_size;
	sq->inline_write = geom->inline_write;
	sq->max_inline_data = sq->wqe_size == EFA_IO_TX_WQE_128_SIZE ?
				      ctx->inline_buf_size_ex :
				      ctx->inline_buf_size;
	sq->max_rdma_sge = ctx->max_sge_rd < EFA_IO_TX_DESC_NUM_RDMA_BUFS ?
				   ctx->max_sge_rd :
				   EFA_IO_TX_DESC_NUM_RDMA_BUFS;
	sq->sig_all = sq_sig_all ? IBV_SEND_SIGNALED : 0;
	sq->wqe_ctrl = EFA_TX_CTRL(EFA_IO_TX_META_DESC_META_DESC,
				   EFA_IO_TX_META_DESC_FIRST |
				   EFA_IO_TX_META_DESC_LAST |
				   (rc ? 0 : EFA_IO_TX_META_DESC_COMP_REQ));
	sq->wr_opcodes = efa_wr_opcodes(ctx, type);
	sq->connected = rc;
	sq->wq.in_order = rc;
	/*
	 * RC takes WRs in ERR too, as InfiniBand does: the device completes
	 * them as flushed.  So the provider need not follow the device into
	 * ERR after an error completion; the state it tracks changes only
	 * through modify_qp (and ibv_query_qp, which reads the device's).
	 */
	sq->ok_states = EFA_QPS(RTS) | EFA_QPS(SQD) | (rc ? EFA_QPS(ERR) : 0);

	/* max_tx_batch counts 64-byte units the device takes per doorbell. */
	if (ctx->max_tx_batch)
		batch = ctx->max_tx_batch * 64 / sq->wqe_size;
	/* A device with a minimum SQ size cannot take a doorbell for the
	 * whole ring at once.
	 */
	if (ctx->min_sq_wr && batch > sq->wq.wqe_cnt - 1)
		batch = sq->wq.wqe_cnt - 1;
	sq->max_batch_wr = batch ? batch : 1;
}

void efa_qp_setup(const struct efa_context *ctx, struct efa_qp *qp,
		  enum ibv_qp_type type, const struct efa_qp_geom *geom,
		  uint8_t *desc, int sq_sig_all)
{
	bool rc = type == IBV_QPT_RC;

	efa_sq_setup(ctx, &qp->sq, type, geom, desc, sq_sig_all);

	/* EFA refuses receives in ERR; InfiniBand flushes them. */
	qp->rq.ok_states = ~(EFA_QPS(RESET) | (rc ? 0 : EFA_QPS(ERR)));
	qp->rq.split_sges = rc;
	qp->rq.wr_descs = geom->rq_wr_descs;
}

/*
 * Back to a fresh queue after a move to RESET.  The SQ phase restarts too,
 * so that a WQE's phase stays (index / ring size) & 1 counted from the
 * reset, the same as for a new QP.  WRs still outstanding are forgotten,
 * so the free list is rebuilt rather than rewound: rewinding would keep
 * whatever order out-of-order completions left it in, with the ids of
 * the forgotten WRs missing.
 */
void efa_qp_reset_indices(struct efa_qp *qp)
{
	struct efa_wq *wqs[] = { &qp->sq.wq, &qp->rq.wq };

	for (size_t i = 0; i < sizeof(wqs) / sizeof(wqs[0]); i++) {
		struct efa_wq *wq = wqs[i];

		efa_spin_lock(&wq->lock);
		wq->pc = 0;
		wq->ci = 0;
		wq->wrid_idx_pool_next = 0;
		for (uint32_t j = 0; j < wq->wqe_cnt; j++)
			wq->wrid_idx_pool[j] = j;
		if (wq == &qp->sq.wq)
			qp->sq.wqe_ctrl &= ~EFA_TX_CTRL(0,
						EFA_IO_TX_META_DESC_PHASE);
		efa_spin_unlock(&wq->lock);
	}
}

static inline uint32_t efa_rounddown_pow2(uint32_t n)
{
	return n ? 1U << (31 - __builtin_clz(n)) : 0;
}

/*
 * The caller's struct of inlen bytes must reach @need bytes, and have no
 * comp_mask nor anything set beyond ours.
 */
static bool efa_depth_attr_ok(const void *attr, uint32_t inlen, size_t need,
			      size_t ours)
{
	const uint64_t *comp_mask = attr;

	return inlen >= need && !*comp_mask &&
	       (inlen <= ours ||
		efa_buf_cleared((const uint8_t *)attr + ours, inlen - ours));
}

/*
 * The deepest SQ efa_qp_geometry() and the device take: a power of two of
 * WQEs in the LLQ, no more than the device's max_sq_wr nor the 16-bit
 * producer counter.  The WQEs are 128 bytes for inline data beyond 32
 * bytes or inline RDMA write (efa_sq_wqe_size()), on a device that has
 * them; inline RDMA write on another is EOPNOTSUPP.
 */
int efadv_get_max_sq_depth(struct ibv_context *ibvctx,
			   struct efadv_sq_depth_attr *attr, uint32_t inlen)
{
	struct efa_context *ctx;
	uint32_t depth, wqe_size;
	bool inline_write;

	if (!efa_is_dev(ibvctx->device))
		return -EOPNOTSUPP;
	ctx = to_efa_context(ibvctx);
	if (!efa_depth_attr_ok(attr, inlen,
			       offsetof(struct efadv_sq_depth_attr,
					max_inline_data) +
			       sizeof(attr->max_inline_data),
			       sizeof(*attr)) ||
	    (attr->flags & ~(uint32_t)EFADV_SQ_DEPTH_ATTR_INLINE_WRITE)) {
		verbs_err(&ctx->ibvctx,
			  "efadv_sq_depth_attr: inlen %u, comp_mask, flags 0x%x\n",
			  inlen, attr->flags);
		return -EINVAL;
	}
	if (attr->max_send_sge > ctx->max_sq_sge ||
	    attr->max_send_sge > EFA_IO_TX_DESC_NUM_BUFS ||
	    attr->max_rdma_sge > ctx->max_sge_rd ||
	    attr->max_rdma_sge > EFA_IO_TX_DESC_NUM_RDMA_BUFS ||
	    attr->max_inline_data > efa_ctx_max_inline(ctx)) {
		verbs_err(&ctx->ibvctx,
			  "SGEs %u, RDMA SGEs %u, inline %u exceed the device's\n",
			  attr->max_send_sge, attr->max_rdma_sge,
			  attr->max_inline_data);
		return -EINVAL;
	}
	inline_write = attr->flags & EFADV_SQ_DEPTH_ATTR_INLINE_WRITE;
	wqe_size = efa_sq_wqe_size(attr->max_inline_data, inline_write);
	if (inline_write &&
	    !efa_qp_inline_write(ctx, IBV_QPT_DRIVER,
				 EFADV_QP_FLAGS_INLINE_WRITE, wqe_size)) {
		verbs_err(&ctx->ibvctx, "no inline RDMA write\n");
		return -EOPNOTSUPP;
	}

	depth = ctx->max_sq_wr < EFA_MAX_RING_ENTRIES ? ctx->max_sq_wr :
							EFA_MAX_RING_ENTRIES;
	if (depth > ctx->max_llq_size / wqe_size)
		depth = ctx->max_llq_size / wqe_size;
	return (int)efa_rounddown_pow2(depth);
}

/*
 * The deepest RQ of UD and SRD QPs for WRs of max_recv_sge SGEs: the
 * device's max_rq_wr, and each SGE takes a descriptor of a ring indexed by
 * 16 bits (efa_qp_geometry()).
 */
int efadv_get_max_rq_depth(struct ibv_context *ibvctx,
			   struct efadv_rq_depth_attr *attr, uint32_t inlen)
{
	struct efa_context *ctx;
	uint32_t depth;

	if (!efa_is_dev(ibvctx->device))
		return -EOPNOTSUPP;
	ctx = to_efa_context(ibvctx);
	if (!efa_depth_attr_ok(attr, inlen,
			       offsetof(struct efadv_rq_depth_attr,
					max_recv_sge) +
			       sizeof(attr->max_recv_sge),
			       sizeof(*attr))) {
		verbs_err(&ctx->ibvctx,
			  "efadv_rq_depth_attr: inlen %u or comp_mask\n", inlen);
		return -EINVAL;
	}
	if (!attr->max_recv_sge || attr->max_recv_sge > ctx->max_rq_sge) {
		verbs_err(&ctx->ibvctx, "receive SGEs %u, not 1 to %u\n",
			  attr->max_recv_sge, ctx->max_rq_sge);
		return -EINVAL;
	}

	depth = EFA_MAX_RING_ENTRIES / attr->max_recv_sge;
	return (int)(depth < ctx->max_rq_wr ? depth : ctx->max_rq_wr);
}
