/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the data-path test programs share: the first device, UD and SRD
 * queue pairs taken to RTS, and address handles by GID.
 */
#ifndef SEFA_TEST_DP_H
#define SEFA_TEST_DP_H

#include <check.h>

#include <infiniband/verbs.h>

static inline struct ibv_context *dp_open_device(void)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx;

	ck_assert_ptr_nonnull(list);
	ck_assert_ptr_nonnull(list[0]);
	ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	ck_assert_ptr_nonnull(ctx);
	return ctx;
}

/* RESET to RTS with @qkey; rnr_retry too unless @rnr_retry is negative. */
static inline int dp_to_rts(struct ibv_qp *qp, uint32_t qkey, int rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = qkey,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (rnr_retry >= 0) {
		a.rnr_retry = rnr_retry;
		mask |= IBV_QP_RNR_RETRY;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* EFA addresses are GIDs: a global AH, on port 1. */
static inline struct ibv_ah *dp_create_ah(struct ibv_pd *pd,
					  const union ibv_gid *gid)
{
	struct ibv_ah_attr a = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *gid, .hop_limit = 1 },
	};

	return ibv_create_ah(pd, &a);
}

#endif
