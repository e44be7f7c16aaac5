// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device profiles.  "efa" reports what a real 0xefa1 device reports (see
 * shared/research/efa.md, "Typical values"), so the stock provider and
 * libfabric see real hardware.  "extended" is an InfiniBand-style device
 * with LIDs, for what this project offers beyond EFA.
 */
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>

#include "efa_abi_compat.h"
#include "efa_ext_abi.h"

#include "host/host.h"

#define EFA_CAPS (EFA_QUERY_DEVICE_CAPS_RDMA_READ |			\
		  EFA_QUERY_DEVICE_CAPS_RNR_RETRY |			\
		  EFA_QUERY_DEVICE_CAPS_CQ_NOTIFICATIONS |		\
		  EFA_QUERY_DEVICE_CAPS_CQ_WITH_SGID |			\
		  EFA_QUERY_DEVICE_CAPS_RDMA_WRITE |			\
		  EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV)

#define EFA_COMMON_LIMITS						\
	.max_qp = 256,							\
	.max_qp_wr = 4096,						\
	.max_sge = 2,							\
	.max_sge_rd = 1,						\
	.max_cq = 512,							\
	.max_cqe = 32768,						\
	.max_mr = 262144,						\
	.max_pd = 256,							\
	.max_ah = 1024,							\
	.max_mr_size = 96ULL << 30,					\
	.page_size_cap = 0xfffff000,					\
	.mtu = 8928,							\
	.active_mtu = IBV_MTU_4096,					\
	.max_sq_wr = 4096,						\
	.max_rq_wr = 32768,						\
	.max_sq_sge = 2,						\
	.max_rq_sge = 3,						\
	.max_rdma_size = 1U << 30,					\
	.sub_cqs_per_cq = 2,						\
	.inline_buf_size = 32,						\
	/* 128-byte WQEs: rdma-core v64 uses them for inline RDMA write */\
	.inline_buf_size_ex = 80,					\
	.max_llq_size = 4096 * 64,					\
	.max_tx_batch = 16,						\
	/* The stock provider batches doorbells by at most SQ depth - 1: */\
	/* a one-WQE SQ would make its batch zero. */			\
	.min_sq_wr = 32

static const struct sefa_profile profiles[] = {
	{
		.name = "efa",
		.node_type = 7,		/* RDMA_NODE_UNSPECIFIED */
		.node_type_str = "7: unspecified",
		.link_layer = IBV_LINK_LAYER_UNSPECIFIED,
		.has_lid = false,
		.vendor_part_id = 0xefa1,
		.device_caps = EFA_CAPS,
		EFA_COMMON_LIMITS,
	},
	{
		.name = "extended",
		.node_type = IBV_NODE_CA,
		.node_type_str = "1: CA",
		.link_layer = IBV_LINK_LAYER_INFINIBAND,
		.has_lid = true,
		.has_mad = true,
		.vendor_part_id = 0xefa2,
		.mr_ic_ids = true,
		.device_caps = EFA_CAPS | SEFA_QUERY_DEVICE_CAPS_RC |
			       SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR,
		EFA_COMMON_LIMITS,
		.max_qp_rd_atom = 16,
	},
};

const struct sefa_profile *sefa_profile_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(profiles) / sizeof(profiles[0]); i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}
