// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: UD, and RC where the device offers it, through the generic
 * verbs; SRD through the direct verbs; modify, query and destroy.
 *
 * The send queue is the device's LLQ (write-combining device memory), the
 * receive queue a ring of receive descriptors in host memory; each has a
 * doorbell page.  All four are mapped here, in the order the kernel's
 * stock provider maps them.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "efa.h"
#include "efa_dp.h"
#include "efa/efa_ext_abi.h"

static const char *efa_qp_type_str(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_UC:
		return "UC";
	case IBV_QPT_RAW_PACKET:
		return "RAW_PACKET";
	case IBV_QPT_XRC_SEND:
	case IBV_QPT_XRC_RECV:
		return "XRC";
	case IBV_QPT_DRIVER:
		return "DRIVER (use efadv_create_qp_ex)";
	default:
		return "this QP type";
	}
}

static void *efa_mmap(struct efa_context *ctx, size_t len, uint64_t key)
{
	void *p = mmap(NULL, len, PROT_WRITE, MAP_SHARED,
		       ctx->ibvctx.context.cmd_fd, key);

	return p == MAP_FAILED ? NULL : p;
}

static void efa_qp_unmap(struct efa_context *ctx, struct efa_qp *qp)
{
	if (qp->sq.desc_map)
		munmap(qp->sq.desc_map, qp->sq.desc_map_size);
	if (qp->sq.wq.db_page)
		munmap(qp->sq.wq.db_page, ctx->page_size);
	if (qp->rq.buf)
		munmap(qp->rq.buf, qp->rq.buf_size);
	if (qp->rq.wq.db_page)
		munmap(qp->rq.wq.db_page, ctx->page_size);
}

/* A work queue's doorbell: one page of the device, the register at offset. */
static int efa_wq_map_db(struct efa_context *ctx, struct efa_wq *wq,
			 uint64_t key, uint32_t offset)
{
	wq->db_page = efa_mmap(ctx, ctx->page_size, key);
	if (!wq->db_page)
		return -1;
	wq->db = (uint32_t *)((uint8_t *)wq->db_page + offset);
	wq->wake = ctx->wake;
	return 0;
}

static int efa_qp_map(struct efa_context *ctx, struct efa_qp *qp,
		      const struct efa_ibv_create_qp_resp *resp,
		      const struct efa_qp_geom *geom)
{
	size_t db_max = ctx->page_size - sizeof(uint32_t);
	size_t rq_ring = (size_t)geom->rq_desc_cnt * EFA_IO_RX_DESC_SIZE;
	size_t sq_ring = (size_t)geom->sq_wqe_cnt * geom->sq_wqe_size;
	int err;

	if (resp->rq_db_offset > db_max || resp->sq_db_offset > db_max ||
	    resp->llq_desc_offset >= ctx->page_size ||
	    (rq_ring && resp->rq_mmap_size < rq_ring)) {
		verbs_err(&ctx->ibvctx, "QP mapping offsets out of range\n");
		return EINVAL;
	}

	if (geom->rq_wqe_cnt) {
		if (efa_wq_map_db(ctx, &qp->rq.wq, resp->rq_db_mmap_key,
				  resp->rq_db_offset))
			goto err_mmap;

		qp->rq.buf_size = resp->rq_mmap_size;
		qp->rq.buf = efa_mmap(ctx, qp->rq.buf_size, resp->rq_mmap_key);
		if (!qp->rq.buf)
			goto err_mmap;
	}

	if (geom->sq_wqe_cnt) {
		if (efa_wq_map_db(ctx, &qp->sq.wq, resp->sq_db_mmap_key,
				  resp->sq_db_offset))
			goto err_mmap;

		qp->sq.desc_map_size = (sq_ring + resp->llq_desc_offset +
					ctx->page_size - 1) &
				       ~(ctx->page_size - 1);
		qp->sq.desc_map = efa_mmap(ctx, qp->sq.desc_map_size,
					   resp->llq_desc_mmap_key);
		if (!qp->sq.desc_map)
			goto err_mmap;
	}
	return 0;

err_mmap:
	err = errno;
	verbs_err(&ctx->ibvctx, "QP queue mmap failed: %s\n", strerror(err));
	return err;
}

/* The ibv_wr_* operations a QP of this type may ask for. */
static uint64_t efa_send_ops(const struct efa_context *ctx,
			     enum ibv_qp_type type)
{
	uint64_t ops = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM;

	if (type == IBV_QPT_UD)
		return ops;
	if (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_READ)
		ops |= IBV_QP_EX_WITH_RDMA_READ;
	if (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_WRITE)
		ops |= IBV_QP_EX_WITH_RDMA_WRITE |
		       IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	return ops;
}

static int efa_qp_check_attr(struct efa_context *ctx,
			     const struct ibv_qp_init_attr_ex *attr,
			     uint32_t driver_qp_type)
{
	uint64_t ops = efa_send_ops(ctx, attr->qp_type);

	if (attr->qp_type == IBV_QPT_DRIVER &&
	    driver_qp_type != EFADV_QP_DRIVER_TYPE_SRD) {
		verbs_err(&ctx->ibvctx, "driver QP type %u is not SRD\n",
			  driver_qp_type);
		return EOPNOTSUPP;
	}

	if (attr->comp_mask & ~(uint32_t)(IBV_QP_INIT_ATTR_PD |
					  IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		verbs_err(&ctx->ibvctx, "unsupported comp_mask 0x%x\n",
			  attr->comp_mask);
		return EOPNOTSUPP;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD)) {
		verbs_err(&ctx->ibvctx, "a PD is required\n");
		return EINVAL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    (attr->send_ops_flags & ~ops)) {
		verbs_err(&ctx->ibvctx,
			  "unsupported send_ops_flags 0x%llx (have 0x%llx)\n",
			  (unsigned long long)attr->send_ops_flags,
			  (unsigned long long)ops);
		return EOPNOTSUPP;
	}
	if (!attr->send_cq || !attr->recv_cq) {
		verbs_err(&ctx->ibvctx, "send and receive CQs are required\n");
		return EINVAL;
	}
	if (attr->srq) {
		verbs_err(&ctx->ibvctx, "SRQ is not supported\n");
		return EINVAL;
	}
	return 0;
}

static void efa_lock_cqs(struct ibv_qp *ibvqp)
{
	struct efa_cq *send_cq = to_efa_cq(ibvqp->send_cq);
	struct efa_cq *recv_cq = to_efa_cq(ibvqp->recv_cq);

	efa_spin_lock(&recv_cq->lock);
	if (send_cq != recv_cq)
		efa_spin_lock(&send_cq->lock);
}

static void efa_unlock_cqs(struct ibv_qp *ibvqp)
{
	struct efa_cq *send_cq = to_efa_cq(ibvqp->send_cq);
	struct efa_cq *recv_cq = to_efa_cq(ibvqp->recv_cq);

	if (send_cq != recv_cq)
		efa_spin_unlock(&send_cq->lock);
	efa_spin_unlock(&recv_cq->lock);
}

/* Starts polling the sub-CQs the device picked for the QP's queues. */
static int efa_qp_activate_sub_cqs(struct ibv_qp *ibvqp,
				   const struct efa_ibv_create_qp_resp *resp)
{
	struct efa_cq *send_cq = to_efa_cq(ibvqp->send_cq);
	struct efa_cq *recv_cq = to_efa_cq(ibvqp->recv_cq);
	int err;

	efa_lock_cqs(ibvqp);
	err = efa_cq_activate_sub_cq(send_cq, resp->send_sub_cq_idx);
	if (!err)
		err = efa_cq_activate_sub_cq(recv_cq, resp->recv_sub_cq_idx);
	efa_unlock_cqs(ibvqp);

	if (err)
		verbs_err(to_verbs_context(ibvqp->context),
			  "QP %u: sub-CQ %u/%u out of range\n", ibvqp->qp_num,
			  resp->send_sub_cq_idx, resp->recv_sub_cq_idx);
	return err;
}

static void efa_qp_free(struct efa_qp *qp)
{
	free(qp->sq.local_queue);
	efa_wq_fini(&qp->sq.wq);
	efa_wq_fini(&qp->rq.wq);
	free(qp);
}

static struct efa_qp *efa_qp_alloc(const struct efa_qp_geom *geom,
				   const struct ibv_qp_init_attr_ex *attr)
{
	struct efa_qp *qp = calloc(1, sizeof(*qp));

	if (!qp)
		return NULL;

	if (efa_wq_init(&qp->sq.wq, geom->sq_wqe_cnt, geom->sq_wqe_cnt,
			attr->cap.max_send_sge, NULL))
		goto err_free;
	if (efa_wq_init(&qp->rq.wq, geom->rq_wqe_cnt, geom->rq_desc_cnt,
			attr->cap.max_recv_sge, NULL))
		goto err_fini_sq;

	/* Only the ibv_wr_* API stages WQEs. */
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    geom->sq_wqe_cnt) {
		qp->sq.local_queue = malloc((size_t)geom->sq_wqe_cnt *
					    geom->sq_wqe_size);
		if (!qp->sq.local_queue)
			goto err_fini_rq;
	}
	return qp;

err_fini_rq:
	efa_wq_fini(&qp->rq.wq);
err_fini_sq:
	efa_wq_fini(&qp->sq.wq);
err_free:
	free(qp);
	return NULL;
}

/*
 * The kernel's part of CREATE_QP: the rings in bytes, the SRD type, and
 * from @dv unsolicited write receive and the service level, which the
 * kernel hands to the device unchecked, as upstream's provider does.
 */
void efa_qp_udata_fill(struct efa_compat_create_qp *drv,
		       enum ibv_qp_type type,
		       const struct efadv_qp_init_attr *dv,
		       const struct efa_qp_geom *geom)
{
	drv->rq_ring_size = geom->rq_desc_cnt * EFA_IO_RX_DESC_SIZE;
	/* The device learns the WQE size from this over max_send_wr. */
	drv->sq_ring_size = geom->sq_wqe_cnt * geom->sq_wqe_size;
	/* The kernel reads driver_qp_type for IBV_QPT_DRIVER only. */
	if (type == IBV_QPT_DRIVER)
		drv->driver_qp_type = dv->driver_qp_type;
	if (dv->flags & EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV)
		drv->flags |= EFA_CREATE_QP_WITH_UNSOLICITED_WRITE_RECV;
	drv->sl = dv->sl;
}

/*
 * dv: what the caller of efadv_create_qp_ex() asked for, checked by
 * efa_dv_qp_attr_parse(); zeroes but driver_qp_type for the other verbs.
 */
static struct ibv_qp *create_qp(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *attr,
				const struct efadv_qp_init_attr *dv)
{
	struct efa_context *ctx = to_efa_context(ibvctx);
	struct efa_create_qp_resp resp = {};
	struct efa_create_qp cmd = {};
	struct ibv_qp_cap cap = attr->cap;
	struct efa_qp_geom geom;
	struct ibv_qp *ibvqp;
	struct efa_qp *qp;
	int err;

	err = efa_qp_check_attr(ctx, attr, dv->driver_qp_type);
	if (err)
		goto err_out;
	err = efa_qp_geometry(ctx, &attr->cap, attr->qp_type, dv->flags, &geom);
	if (err)
		goto err_out;

	qp = efa_qp_alloc(&geom, attr);
	if (!qp) {
		err = ENOMEM;
		goto err_out;
	}

	efa_qp_udata_fill(&cmd.drv, attr->qp_type, dv, &geom);

	/* The kernel sizes the QP from the depths really allocated. */
	attr->cap.max_send_wr = geom.sq_wqe_cnt;
	attr->cap.max_recv_wr = geom.rq_wqe_cnt;
	err = ibv_cmd_create_qp_ex(ibvctx, &qp->verbs_qp, attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "CREATE_QP failed: %s\n",
			  strerror(err));
		attr->cap = cap;
		goto err_free;
	}

	ibvqp = &qp->verbs_qp.qp;
	err = efa_qp_map(ctx, qp, &resp.drv, &geom);
	if (err)
		goto err_destroy;
	err = efa_qp_activate_sub_cqs(ibvqp, &resp.drv);
	if (err)
		goto err_destroy;

	efa_qp_setup(ctx, qp, attr->qp_type, &geom,
		     qp->sq.desc_map ? (uint8_t *)qp->sq.desc_map +
						resp.drv.llq_desc_offset :
				       NULL,
		     attr->sq_sig_all);
	ibvqp->state = IBV_QPS_RESET;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		efa_qp_fill_wr_pfns(qp, attr->send_ops_flags, dv->wr_flags);
		qp->verbs_qp.comp_mask |= VERBS_QP_EX;
	}

	pthread_spin_lock(&ctx->qp_table_lock);
	ctx->qp_table[ibvqp->qp_num & ctx->qp_table_mask] = qp;
	pthread_spin_unlock(&ctx->qp_table_lock);

	attr->cap.max_send_wr = geom.sq_wqe_cnt;
	attr->cap.max_recv_wr = geom.rq_wqe_cnt;
	attr->cap.max_inline_data = qp->sq.max_inline_data;
	return ibvqp;

err_destroy:
	efa_qp_unmap(ctx, qp);
	ibv_cmd_destroy_qp(ibvqp);
	attr->cap = cap;
err_free:
	efa_qp_free(qp);
err_out:
	errno = err;
	return NULL;
}

/* RC only where the device says so: the efa kernel ABI has no RC. */
static bool efa_qp_type_ok(struct ibv_context *ibvctx, enum ibv_qp_type type)
{
	struct efa_context *ctx = to_efa_context(ibvctx);

	if (type == IBV_QPT_UD ||
	    (type == IBV_QPT_RC && (ctx->device_caps & SEFA_QUERY_DEVICE_CAPS_RC)))
		return true;

	if (type == IBV_QPT_RC)
		verbs_err(&ctx->ibvctx,
			  "RC is not offered by this device (EFA has UD and SRD only)\n");
	else
		verbs_err(&ctx->ibvctx, "%s is not supported by this device\n",
			  efa_qp_type_str(type));
	errno = EOPNOTSUPP;
	return false;
}

/* Through a struct ibv_qp_init_attr_ex, copying the resulting caps back. */
static struct ibv_qp *create_qp_legacy(struct ibv_pd *ibvpd,
				       struct ibv_qp_init_attr *attr,
				       uint32_t driver_qp_type)
{
	struct efadv_qp_init_attr dv = { .driver_qp_type = driver_qp_type };
	struct ibv_qp_init_attr_ex attr_ex = {};
	struct ibv_qp *ibvqp;

	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = ibvpd;

	ibvqp = create_qp(ibvpd->context, &attr_ex, &dv);
	if (ibvqp)
		memcpy(attr, &attr_ex, sizeof(*attr));
	return ibvqp;
}

struct ibv_qp *efa_create_qp(struct ibv_pd *ibvpd,
			     struct ibv_qp_init_attr *attr)
{
	if (!efa_qp_type_ok(ibvpd->context, attr->qp_type))
		return NULL;

	return create_qp_legacy(ibvpd, attr, 0);
}

struct ibv_qp *efa_create_qp_ex(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *attr)
{
	struct efadv_qp_init_attr dv = {};

	if (!efa_qp_type_ok(ibvctx, attr->qp_type))
		return NULL;

	return create_qp(ibvctx, attr, &dv);
}

struct ibv_qp *efadv_create_driver_qp(struct ibv_pd *ibvpd,
				      struct ibv_qp_init_attr *attr,
				      uint32_t driver_qp_type)
{
	struct verbs_context *vctx = to_verbs_context(ibvpd->context);

	if (!efa_is_dev(ibvpd->context->device)) {
		verbs_err(vctx, "not an EFA device\n");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->qp_type != IBV_QPT_DRIVER) {
		verbs_err(vctx, "qp_type must be IBV_QPT_DRIVER\n");
		errno = EINVAL;
		return NULL;
	}

	return create_qp_legacy(ibvpd, attr, driver_qp_type);
}

/*
 * efa_attr is the caller's struct of inlen bytes: it must reach
 * driver_qp_type, and comp_mask, reserved and anything a newer caller has
 * beyond our struct must be zero (EINVAL).  Of what upstream defines, flags
 * take inline RDMA write where the device writes in 128-byte WQEs and
 * unsolicited write receive where the device has it, and wr_flags takes
 * processing hints only (EOPNOTSUPP).  sl is the device's to judge: any
 * value goes, as upstream's provider and the kernel let it.  *out is the
 * struct as if the caller's were ours.
 */
int efa_dv_qp_attr_parse(struct efa_context *ctx,
			 const struct ibv_qp_init_attr_ex *attr_ex,
			 const struct efadv_qp_init_attr *efa_attr,
			 uint32_t inlen, struct efadv_qp_init_attr *out)
{
	struct efadv_qp_init_attr in = {};
	uint16_t flags_ok = 0;

	if (attr_ex->qp_type != IBV_QPT_DRIVER ||
	    !vext_field_avail(struct efadv_qp_init_attr, driver_qp_type,
			      inlen)) {
		verbs_err(&ctx->ibvctx,
			  "needs IBV_QPT_DRIVER and driver_qp_type\n");
		return EINVAL;
	}

	/* Fields the caller's struct does not reach read as 0. */
	memcpy(&in, efa_attr, inlen < sizeof(in) ? inlen : sizeof(in));
	if (in.comp_mask || in.reserved ||
	    (inlen > sizeof(in) &&
	     !efa_buf_cleared((const uint8_t *)efa_attr + sizeof(in),
			      inlen - sizeof(in)))) {
		verbs_err(&ctx->ibvctx,
			  "efa_attr has comp_mask, reserved or unknown fields set\n");
		return EINVAL;
	}
	/* As upstream, with RDMA write; here also only with 128-byte WQEs. */
	if ((ctx->device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_WRITE) &&
	    ctx->inline_buf_size_ex)
		flags_ok |= EFADV_QP_FLAGS_INLINE_WRITE;
	if (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV)
		flags_ok |= EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV;
	if ((in.flags & ~flags_ok) ||
	    (in.wr_flags & ~(uint64_t)EFADV_WR_EX_WITH_PROCESSING_HINTS)) {
		verbs_err(&ctx->ibvctx,
			  "unsupported flags 0x%x (have 0x%x) or wr_flags 0x%llx\n",
			  in.flags, flags_ok, (unsigned long long)in.wr_flags);
		return EOPNOTSUPP;
	}

	*out = in;
	return 0;
}

struct ibv_qp *efadv_create_qp_ex(struct ibv_context *ibvctx,
				  struct ibv_qp_init_attr_ex *attr_ex,
				  struct efadv_qp_init_attr *efa_attr,
				  uint32_t inlen)
{
	struct efadv_qp_init_attr in;
	int err;

	if (!efa_is_dev(ibvctx->device)) {
		verbs_err(to_verbs_context(ibvctx), "not an EFA device\n");
		errno = EOPNOTSUPP;
		return NULL;
	}

	err = efa_dv_qp_attr_parse(to_efa_context(ibvctx), attr_ex, efa_attr,
				   inlen, &in);
	if (err) {
		errno = err;
		return NULL;
	}
	/* Hints are set on a WR being built: the ibv_wr_* API only. */
	if ((in.wr_flags & EFADV_WR_EX_WITH_PROCESSING_HINTS) &&
	    !(attr_ex->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		verbs_err(to_verbs_context(ibvctx),
			  "processing hints need IBV_QP_INIT_ATTR_SEND_OPS_FLAGS\n");
		errno = EINVAL;
		return NULL;
	}

	return create_qp(ibvctx, attr_ex, &in);
}

int efa_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask)
{
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibvqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err) {
		verbs_err(to_verbs_context(ibvqp->context),
			  "MODIFY_QP %u failed: %s\n", ibvqp->qp_num,
			  strerror(err));
		return err;
	}

	/* The posting paths check the state without asking the kernel. */
	if (attr_mask & IBV_QP_STATE) {
		ibvqp->state = attr->qp_state;
		if (attr->qp_state == IBV_QPS_RESET)
			efa_qp_reset_indices(to_efa_qp(ibvqp));
	}
	return 0;
}

int efa_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd = {};

	return ibv_cmd_query_qp(ibvqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

#if EFA_IBVERBS_PABI >= 64
/*
 * What the device guarantees of the order a receive's data lands in, as
 * capabilities (libibverbs turns them into the yes or no of callers that
 * asked for none): 128-byte units where it polls data in them
 * (DATA_POLLING_128), else nothing.  Before ABI 64 the answer was a yes
 * or no, which libibverbs' default of 0 already gives.
 */
int efa_query_qp_data_in_order(struct ibv_qp *ibvqp, enum ibv_wr_opcode op,
			       uint32_t flags)
{
	const struct efa_context *ctx = to_efa_context(ibvqp->context);

	if (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_DATA_POLLING_128)
		return IBV_QUERY_QP_DATA_IN_ORDER_ALIGNED_128_BYTES;
	return 0;
}
#endif

/*
 * The rings as posted to: the SQ's slots in the LLQ and the RQ's receive
 * descriptors, each with its doorbell, which takes the producer counter.
 * A queue the QP does not have reads as NULL and 0 entries.  inlen must
 * reach max_batch; caps and reserved (EFA_1.7) are written when it reaches
 * them.
 */
static void efa_wq_attr_fill(struct efadv_wq_attr *attr, uint8_t *buf,
			     uint32_t entry_size, const struct efa_wq *wq,
			     uint32_t max_batch, uint32_t inlen)
{
	bool has = wq->wqe_cnt;

	attr->comp_mask = 0;
	attr->buffer = has ? buf : NULL;
	attr->entry_size = entry_size;
	attr->num_entries = has ? (uint32_t)wq->desc_mask + 1 : 0;
	attr->doorbell = has ? wq->db : NULL;
	attr->max_batch = has ? max_batch : 0;
	if (vext_field_avail(struct efadv_wq_attr, reserved, inlen)) {
		/* Request ids stay 16 bits wide: the pool names WRs. */
		attr->caps = 0;
		memset(attr->reserved, 0, sizeof(attr->reserved));
	}
}

int efadv_query_qp_wqs(struct ibv_qp *ibvqp, struct efadv_wq_attr *sq_attr,
		       struct efadv_wq_attr *rq_attr, uint32_t inlen)
{
	struct efa_qp *qp;

	if (!efa_is_dev(ibvqp->context->device)) {
		verbs_err(to_verbs_context(ibvqp->context),
			  "not an EFA device\n");
		return EOPNOTSUPP;
	}
	if (!vext_field_avail(struct efadv_wq_attr, max_batch, inlen)) {
		verbs_err(to_verbs_context(ibvqp->context),
			  "efadv_wq_attr of %u bytes is too short\n", inlen);
		return EINVAL;
	}

	qp = to_efa_qp(ibvqp);
	efa_wq_attr_fill(sq_attr, qp->sq.desc, qp->sq.wqe_size, &qp->sq.wq,
			 qp->sq.max_batch_wr, inlen);
	/* Receive descriptors need no batching: the ring takes them all. */
	efa_wq_attr_fill(rq_attr, (uint8_t *)qp->rq.buf, EFA_IO_RX_DESC_SIZE,
			 &qp->rq.wq, (uint32_t)qp->rq.wq.desc_mask + 1, inlen);
	return 0;
}

struct efadv_qp *efadv_qp_from_ibv_qp_ex(struct ibv_qp_ex *ibvqpx)
{
	/*
	 * ibv_qp_to_qp_ex() gives NULL for a QP created without send ops
	 * flags, and callers hand that on unchecked.
	 */
	if (!ibvqpx) {
		errno = EINVAL;
		return NULL;
	}
	if (!efa_is_dev(ibvqpx->qp_base.context->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	return &to_efa_qp_ex(ibvqpx)->dv_qp;
}

int efa_destroy_qp(struct ibv_qp *ibvqp)
{
	struct efa_context *ctx = to_efa_context(ibvqp->context);
	struct efa_qp *qp = to_efa_qp(ibvqp);
	struct efa_qp **slot;
	int err;

	err = ibv_cmd_destroy_qp(ibvqp);
	if (err) {
		verbs_err(&ctx->ibvctx, "DESTROY_QP %u failed: %s\n",
			  ibvqp->qp_num, strerror(err));
		return err;
	}

	/* With the CQs locked no poller is looking at this QP.  The number
	 * may already belong to a new QP, whose entry must stay.
	 */
	pthread_spin_lock(&ctx->qp_table_lock);
	efa_lock_cqs(ibvqp);
	slot = &ctx->qp_table[ibvqp->qp_num & ctx->qp_table_mask];
	if (*slot == qp)
		*slot = NULL;
	efa_unlock_cqs(ibvqp);
	pthread_spin_unlock(&ctx->qp_table_lock);

	efa_qp_unmap(ctx, qp);
	efa_umr_fini(qp);
	efa_qp_free(qp);
	return 0;
}
