// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device and port queries, through libibverbs and as a direct verb.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "efa.h"
#include "efa/efa_io_defs.h"

void efa_device_attr_fixup(const struct efa_context *ctx,
			   struct ibv_device_attr *attr,
			   const struct ib_uverbs_query_device_resp *base)
{
	uint32_t llq_wqes = ctx->max_llq_size / EFA_IO_TX_WQE_SIZE;
	uint8_t fw[sizeof(base->fw_ver)];

	/* A send queue can never be deeper than its LLQ. */
	if ((uint32_t)attr->max_qp_wr > llq_wqes)
		attr->max_qp_wr = llq_wqes;

	/* The kernel packs major.minor.subminor.build into the first four
	 * bytes of fw_ver, as laid out in memory.
	 */
	memcpy(fw, &base->fw_ver, sizeof(fw));
	snprintf(attr->fw_ver, sizeof(attr->fw_ver), "%u.%u.%u.%u", fw[0],
		 fw[1], fw[2], fw[3]);
}

int efa_query_device_ex(struct ibv_context *ibvctx,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct efa_context *ctx = to_efa_context(ibvctx);
	struct efa_query_device_ex_resp resp = {};
	size_t resp_size = sizeof(resp);
	int err;

	err = ibv_cmd_query_device_any(ibvctx, input, attr, attr_size,
				       &resp.ibv_resp, &resp_size);
	if (err) {
		verbs_err(&ctx->ibvctx, "QUERY_DEVICE failed: %s\n",
			  strerror(err));
		return err;
	}

	efa_device_attr_fixup(ctx, &attr->orig_attr, &resp.ibv_resp.base);
	return 0;
}

int efa_query_port(struct ibv_context *ibvctx, uint8_t port_num,
		   struct ibv_port_attr *port_attr)
{
	struct ibv_query_port cmd = {};

	return ibv_cmd_query_port(ibvctx, port_num, port_attr, &cmd,
				  sizeof(cmd));
}

#if EFA_IBVERBS_PABI >= 64
/* A port's bandwidth in 100 Mb/s units, as the kernel works it out. */
int efa_query_port_speed(struct ibv_context *ibvctx, uint32_t port_num,
			 uint64_t *speed)
{
	return ibv_cmd_query_port_speed(ibvctx, port_num, speed);
}
#endif

uint32_t efa_dv_device_caps(uint32_t kernel_caps, bool with_rdma_size)
{
	uint32_t caps = 0;

	if (kernel_caps & EFA_QUERY_DEVICE_CAPS_RNR_RETRY)
		caps |= EFADV_DEVICE_ATTR_CAPS_RNR_RETRY;
	if (kernel_caps & EFA_QUERY_DEVICE_CAPS_CQ_WITH_SGID)
		caps |= EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID;
	if (kernel_caps & EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV)
		caps |= EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV;
	/* Only where libibverbs can carry the buffer (ABI 64). */
	if ((kernel_caps & EFA_QUERY_DEVICE_CAPS_CQ_WITH_EXT_MEM) &&
	    EFA_CMD_CQ_DMABUF)
		caps |= EFADV_DEVICE_ATTR_CAPS_CQ_WITH_EXT_MEM_DMABUF;

	/* RDMA is only usable by a caller that can also see its size limit. */
	if (!with_rdma_size)
		return caps;
	if (kernel_caps & EFA_QUERY_DEVICE_CAPS_RDMA_READ)
		caps |= EFADV_DEVICE_ATTR_CAPS_RDMA_READ;
	if (kernel_caps & EFA_QUERY_DEVICE_CAPS_RDMA_WRITE)
		caps |= EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE;
	return caps;
}

/*
 * inlen is the size of the caller's struct efadv_device_attr, which grew
 * from 24 to 32 bytes (device_caps, max_rdma_size), and whose reserved
 * bytes became inline_buf_size_ex.  A field is filled when it starts inside
 * inlen; nothing else beyond inlen is written.  The struct is output only,
 * so a longer inlen is accepted and its tail zeroed.  inline_buf_size_ex
 * is inline_buf_size where the device has no 128-byte WQEs, as upstream.
 */
int efadv_query_device(struct ibv_context *ibvctx,
		       struct efadv_device_attr *attr, uint32_t inlen)
{
	struct efa_context *ctx;

	if (!efa_is_dev(ibvctx->device)) {
		verbs_err(to_verbs_context(ibvctx), "not an EFA device\n");
		return EOPNOTSUPP;
	}

	ctx = to_efa_context(ibvctx);
	if (!vext_field_avail(struct efadv_device_attr, inline_buf_size,
			      inlen)) {
		verbs_err(&ctx->ibvctx, "attr of %u bytes is too short\n",
			  inlen);
		return EINVAL;
	}

	memset(attr, 0, inlen);
	attr->max_sq_wr = ctx->max_sq_wr;
	attr->max_rq_wr = ctx->max_rq_wr;
	attr->max_sq_sge = ctx->max_sq_sge;
	attr->max_rq_sge = ctx->max_rq_sge;
	attr->inline_buf_size = ctx->inline_buf_size;
	if (vext_field_avail(struct efadv_device_attr, inline_buf_size_ex,
			     inlen))
		attr->inline_buf_size_ex = efa_ctx_max_inline(ctx);

	if (vext_field_avail(struct efadv_device_attr, device_caps, inlen))
		attr->device_caps = efa_dv_device_caps(
			ctx->device_caps,
			vext_field_avail(struct efadv_device_attr,
					 max_rdma_size, inlen));

	if (vext_field_avail(struct efadv_device_attr, max_rdma_size, inlen))
		attr->max_rdma_size = ctx->max_rdma_size;

	return 0;
}
