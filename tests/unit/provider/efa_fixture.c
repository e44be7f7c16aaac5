// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "efa_fixture.h"

const struct verbs_device_ops efa_other_dev_ops = { .name = "other" };

void efa_fixture_init(struct efa_fixture *fx,
		      const struct verbs_device_ops *ops)
{
	memset(fx, 0, sizeof(*fx));
	fx->vdev.ops = ops;
	strcpy(fx->vdev.device.name, "efa_0");

	fx->ctx = calloc(1, sizeof(*fx->ctx));
	ck_assert_ptr_nonnull(fx->ctx);
	fx->ctx->ibvctx.context.device = &fx->vdev.device;
}

void efa_fixture_fini(struct efa_fixture *fx)
{
	free(fx->ctx);
	fx->ctx = NULL;
}

void efa_fixture_ucontext_resp(struct efa_alloc_ucontext_resp *resp)
{
	memset(resp, 0, sizeof(*resp));
	resp->ibv_resp.async_fd = 7;
	resp->ibv_resp.num_comp_vectors = 1;
	resp->drv.cmds_supp_udata_mask = EFA_USER_CMDS_SUPP_UDATA_QUERY_DEVICE |
					 EFA_USER_CMDS_SUPP_UDATA_CREATE_AH;
	resp->drv.sub_cqs_per_cq = 1;
	resp->drv.inline_buf_size = 32;
	resp->drv.max_llq_size = 4096 * 64;
	resp->drv.max_tx_batch = 16;
	resp->drv.min_sq_wr = 32;
}

void efa_fixture_query_device_resp(struct efa_query_device_ex_resp *resp)
{
	struct ib_uverbs_query_device_resp *base = &resp->ibv_resp.base;

	memset(resp, 0, sizeof(*resp));
	base->max_qp = 256;
	base->max_qp_wr = 32768;
	base->max_sge = 2;
	base->max_sge_rd = 1;
	base->max_cq = 512;
	base->max_cqe = 32768;
	resp->ibv_resp.response_length = sizeof(resp->ibv_resp);

	resp->drv.max_sq_wr = 4096;
	resp->drv.max_rq_wr = 32768;
	resp->drv.max_sq_sge = 2;
	resp->drv.max_rq_sge = 3;
	resp->drv.max_rdma_size = 1U << 30;
	resp->drv.device_caps = EFA_QUERY_DEVICE_CAPS_RDMA_READ |
				EFA_QUERY_DEVICE_CAPS_RNR_RETRY |
				EFA_QUERY_DEVICE_CAPS_CQ_NOTIFICATIONS |
				EFA_QUERY_DEVICE_CAPS_CQ_WITH_SGID |
				EFA_QUERY_DEVICE_CAPS_RDMA_WRITE;
}

void efa_fixture_open(struct efa_fixture *fx)
{
	struct efa_alloc_ucontext_resp uresp;
	struct efa_query_device_ex_resp dresp;
	struct efa_context *ctx;

	efa_fixture_init(fx, &efa_dev_ops);
	ctx = fx->ctx;
	efa_fixture_ucontext_resp(&uresp);
	efa_fixture_query_device_resp(&dresp);
	ck_assert_int_eq(efa_ucontext_resp_parse(ctx, &uresp), 0);
	ck_assert_int_eq(efa_device_limits_parse(ctx, &dresp,
						 sizeof(dresp.ibv_resp)), 0);

	ctx->page_size = 4096;
	ctx->qp_table_mask = 255;
	ctx->qp_table = calloc(256, sizeof(*ctx->qp_table));
	ck_assert_ptr_nonnull(ctx->qp_table);
	pthread_spin_init(&ctx->qp_table_lock, PTHREAD_PROCESS_PRIVATE);
}

void efa_fixture_close(struct efa_fixture *fx)
{
	pthread_spin_destroy(&fx->ctx->qp_table_lock);
	free(fx->ctx->qp_table);
	efa_fixture_fini(fx);
}

void efa_fake_cq_init(struct efa_fixture *fx, struct efa_fake_cq *fc,
		      uint16_t num_sub_cqs, uint32_t entries,
		      uint32_t cqe_size, uint64_t wc_flags)
{
	struct efa_cq *cq;

	memset(fc, 0, sizeof(*fc));
	fc->entries = entries;
	fc->cqe_size = cqe_size;
	fc->num_sub_cqs = num_sub_cqs;
	fc->ring = calloc(num_sub_cqs, (size_t)entries * cqe_size);
	ck_assert_ptr_nonnull(fc->ring);

	cq = efa_cq_alloc(num_sub_cqs);
	ck_assert_ptr_nonnull(cq);
	cq->verbs_cq.cq.context = &fx->ctx->ibvctx.context;
	cq->verbs_cq.cq.cqe = entries;
	cq->db = &fc->db;
	/* As a CQ asked for the sender's GID is: 32-byte entries. */
	cq->with_sgid = cqe_size == EFA_IO_CQE_EX_SIZE;
	efa_spin_init(&cq->lock);
	efa_cq_init_sub_cqs(cq, fc->ring, num_sub_cqs, entries, cqe_size);
	efa_cq_fill_pfns(cq, wc_flags);
	fc->cq = cq;
}

void efa_fake_cq_fini(struct efa_fake_cq *fc)
{
	free(fc->cq);
	free(fc->ring);
}

void efa_fake_cq_write(struct efa_fake_cq *fc, uint16_t sub_cq,
		       uint32_t idx, struct efa_io_rx_cdesc_ex cqe,
		       uint8_t phase)
{
	uint8_t *slot = fc->ring +
			((size_t)sub_cq * fc->entries + idx) * fc->cqe_size;
	struct efa_io_cdesc_common *common = (void *)slot;
	uint8_t flags;

	memcpy(slot, &cqe, fc->cqe_size);
	flags = (common->flags & ~EFA_IO_CDESC_COMMON_PHASE) | (phase & 1);
	__atomic_store_n(&common->flags, flags, __ATOMIC_RELEASE);
}

void efa_fake_cq_push(struct efa_fake_cq *fc, struct efa_io_rx_cdesc_ex cqe)
{
	uint32_t lap = fc->next / fc->entries;

	efa_fake_cq_write(fc, 0, fc->next % fc->entries, cqe, !(lap & 1));
	fc->next++;
}

struct efa_io_rx_cdesc_ex efa_fake_cqe(const struct efa_fake_qp *fq,
				       enum efa_io_queue_type q,
				       uint16_t req_id, uint8_t op_type,
				       uint8_t status)
{
	return (struct efa_io_rx_cdesc_ex){
		.base.common = {
			.req_id = req_id,
			.status = status,
			.flags = q << EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT |
				 op_type << EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT,
			.qp_num = fq->qp->verbs_qp.qp.qp_num,
		},
	};
}

void efa_fake_complete(struct efa_fake_cq *fc, const struct efa_fake_qp *fq,
		       enum efa_io_queue_type q, uint16_t req_id,
		       uint8_t op_type, uint8_t status)
{
	efa_fake_cq_push(fc, efa_fake_cqe(fq, q, req_id, op_type, status));
}

void efa_fake_qp_init(struct efa_fixture *fx, struct efa_fake_qp *fq,
		      struct efa_fake_cq *fc, enum ibv_qp_type type,
		      const struct ibv_qp_cap *cap, uint32_t qpn,
		      uint64_t send_ops_flags, int sq_sig_all)
{
	struct efa_context *ctx = fx->ctx;
	struct ibv_qp *ibvqp;
	struct efa_qp *qp;

	memset(fq, 0, sizeof(*fq));
	ck_assert_int_eq(efa_qp_geometry(ctx, cap, type, fx->qp_dv_flags,
					 &fq->geom), 0);

	qp = calloc(1, sizeof(*qp));
	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(efa_wq_init(&qp->sq.wq, fq->geom.sq_wqe_cnt,
				     fq->geom.sq_wqe_cnt, cap->max_send_sge,
				     &fq->sq_db), 0);
	ck_assert_int_eq(efa_wq_init(&qp->rq.wq, fq->geom.rq_wqe_cnt,
				     fq->geom.rq_desc_cnt, cap->max_recv_sge,
				     &fq->rq_db), 0);

	fq->llq = calloc(fq->geom.sq_wqe_cnt, fq->geom.sq_wqe_size);
	fq->rq_ring = calloc(fq->geom.rq_desc_cnt, sizeof(*fq->rq_ring));
	ck_assert_ptr_nonnull(fq->llq);
	ck_assert_ptr_nonnull(fq->rq_ring);
	qp->rq.buf = fq->rq_ring;
	efa_qp_setup(ctx, qp, type, &fq->geom, (uint8_t *)fq->llq, sq_sig_all);

	ibvqp = &qp->verbs_qp.qp;
	ibvqp->context = &ctx->ibvctx.context;
	ibvqp->qp_num = qpn;
	ibvqp->qp_type = type;
	ibvqp->state = IBV_QPS_RTS;
	ibvqp->send_cq = &fc->cq->verbs_cq.cq;
	ibvqp->recv_cq = &fc->cq->verbs_cq.cq;
	if (send_ops_flags) {
		qp->sq.local_queue = calloc(fq->geom.sq_wqe_cnt,
					    fq->geom.sq_wqe_size);
		ck_assert_ptr_nonnull(qp->sq.local_queue);
		efa_qp_fill_wr_pfns(qp, send_ops_flags, 0);
		qp->verbs_qp.comp_mask |= VERBS_QP_EX;
	}

	/* As the device does for the first QP: everything in sub-CQ 0. */
	ck_assert_int_eq(efa_cq_activate_sub_cq(fc->cq, 0), 0);
	ctx->qp_table[qpn & ctx->qp_table_mask] = qp;
	fq->qp = qp;
}

void efa_fake_qp_fini(struct efa_fixture *fx, struct efa_fake_qp *fq)
{
	struct efa_context *ctx = fx->ctx;
	struct efa_qp *qp = fq->qp;

	ctx->qp_table[qp->verbs_qp.qp.qp_num & ctx->qp_table_mask] = NULL;
	efa_wq_fini(&qp->sq.wq);
	efa_wq_fini(&qp->rq.wq);
	free(qp->sq.local_queue);
	free(qp);
	free(fq->llq);
	free(fq->rq_ring);
}

void efa_fake_dp_open(struct efa_fixture *fx, struct efa_fake_cq *fc,
		      struct efa_fake_qp *fq,
		      const struct efa_fake_dp_attr *attr)
{
	efa_fixture_open(fx);
	fx->ctx->device_caps |= attr->device_caps;
	efa_fake_cq_init(fx, fc, attr->num_sub_cqs ? attr->num_sub_cqs : 1,
			 attr->cq_entries, attr->cqe_size, attr->wc_flags);
	efa_fake_qp_init(fx, fq, fc, attr->qp_type, &attr->cap, attr->qpn,
			 attr->send_ops_flags, attr->sq_sig_all);
}

void efa_fake_dp_close(struct efa_fixture *fx, struct efa_fake_cq *fc,
		       struct efa_fake_qp *fq)
{
	efa_fake_qp_fini(fx, fq);
	efa_fake_cq_fini(fc);
	efa_fixture_close(fx);
}

int efa_fake_post_recv(struct efa_fake_qp *fq, uint64_t wr_id,
		       struct ibv_sge *sg, int num_sge)
{
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = sg,
				  .num_sge = num_sge };
	struct ibv_recv_wr *bad = NULL;
	int err = efa_post_recv(efa_fake_ibvqp(fq), &wr, &bad);

	ck_assert_ptr_eq(bad, err ? &wr : NULL);
	return err;
}

void efa_fake_ah_init(struct efa_fixture *fx, struct efa_ah *ah, uint16_t ahn)
{
	memset(ah, 0, sizeof(*ah));
	ah->ibvah.context = &fx->ctx->ibvctx.context;
	ah->efa_ah = ahn;
}
