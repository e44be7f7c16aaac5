// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause

#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "efa_fixture.h"

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
