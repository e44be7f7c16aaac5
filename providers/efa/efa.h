/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Provider-internal objects and the functions shared between its files.
 */

#ifndef EFA_H
#define EFA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/efadv.h>

#include "efa_abi.h"
#include "ibverbs_private.h"

struct efa_dev {
	struct verbs_device vdev;
};

/*
 * What the kernel told us about the device when the context was opened.
 * Later verbs size and check their requests against these values instead
 * of asking the kernel again.
 */
struct efa_context {
	struct verbs_context ibvctx;

	/* GET_CONTEXT response udata */
	uint32_t cmds_supp_udata_mask;
	uint16_t sub_cqs_per_cq;
	uint16_t inline_buf_size;
	uint32_t max_llq_size;		/* bytes */
	uint16_t max_tx_batch;		/* units of 64 bytes, 0: unlimited */
	uint16_t min_sq_wr;

	/* QUERY_DEVICE response udata */
	uint32_t device_caps;		/* EFA_QUERY_DEVICE_CAPS_* */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_rdma_size;

	/* QUERY_DEVICE core response */
	uint32_t max_qp;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_sge;
	uint32_t max_sge_rd;
};

static inline struct verbs_context *to_verbs_context(struct ibv_context *ibvctx)
{
	return (struct verbs_context *)((char *)ibvctx -
					offsetof(struct verbs_context, context));
}

static inline struct efa_context *to_efa_context(struct ibv_context *ibvctx)
{
	return (struct efa_context *)((char *)to_verbs_context(ibvctx) -
				      offsetof(struct efa_context, ibvctx));
}

/* efa.c */
extern const struct verbs_device_ops efa_dev_ops;
bool efa_is_dev(const struct ibv_device *ibdev);

/* context.c */
struct verbs_context *efa_alloc_context(struct ibv_device *ibdev, int cmd_fd,
					void *private_data);
void efa_ucontext_cmd_init(struct efa_alloc_ucontext *cmd);
int efa_ucontext_resp_parse(struct efa_context *ctx,
			    const struct efa_alloc_ucontext_resp *resp);
int efa_device_limits_parse(struct efa_context *ctx,
			    const struct efa_query_device_ex_resp *resp,
			    size_t resp_size);

/* device.c */
int efa_query_device_ex(struct ibv_context *ibvctx,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size);
int efa_query_port(struct ibv_context *ibvctx, uint8_t port_num,
		   struct ibv_port_attr *port_attr);
void efa_device_attr_fixup(const struct efa_context *ctx,
			   struct ibv_device_attr *attr,
			   const struct ib_uverbs_query_device_resp *base);
uint32_t efa_dv_device_caps(uint32_t kernel_caps, bool with_rdma_size);

#endif /* EFA_H */
