// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Opening and closing a device context.
 *
 * Everything the kernel reports once per context (GET_CONTEXT and
 * QUERY_DEVICE udata) is decoded by pure functions, so the rules about
 * what the provider accepts can be tested without a device.
 */

#include <errno.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "efa.h"
#include "efa/efa_io_defs.h"

/* Without these the provider cannot work: AH numbers only come back in
 * the CREATE_AH udata, and queue sizes and SGE limits only in the
 * QUERY_DEVICE udata.
 */
#define EFA_REQUIRED_UDATA                                                     \
	(EFA_USER_CMDS_SUPP_UDATA_QUERY_DEVICE |                               \
	 EFA_USER_CMDS_SUPP_UDATA_CREATE_AH)

static void efa_free_context(struct ibv_context *ibvctx)
{
	struct efa_context *ctx = to_efa_context(ibvctx);

	if (ctx->wake)
		munmap((void *)ctx->wake, ctx->page_size);
	free(ctx->qp_table);
	pthread_spin_destroy(&ctx->qp_table_lock);
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static const struct verbs_context_ops efa_ctx_ops = {
	.alloc_pd = efa_alloc_pd,
	.cq_event = efa_cq_event,
	.create_ah = efa_create_ah,
	.create_cq = efa_create_cq,
	.create_cq_ex = efa_create_cq_ex,
	.create_qp = efa_create_qp,
	.create_qp_ex = efa_create_qp_ex,
	.dealloc_pd = efa_dealloc_pd,
	.dereg_mr = efa_dereg_mr,
	.destroy_ah = efa_destroy_ah,
	.destroy_cq = efa_destroy_cq,
	.destroy_qp = efa_destroy_qp,
	.free_context = efa_free_context,
	.modify_qp = efa_modify_qp,
	.poll_cq = efa_poll_cq,
	.post_recv = efa_post_recv,
	.post_send = efa_post_send,
	.query_device_ex = efa_query_device_ex,
	.query_port = efa_query_port,
#if EFA_IBVERBS_PABI >= 64
	.query_port_speed = efa_query_port_speed,
	.query_qp_data_in_order = efa_query_qp_data_in_order,
#endif
	.query_qp = efa_query_qp,
	.reg_mr = efa_reg_mr,
	.req_notify_cq = efa_arm_cq,
};

void efa_ucontext_cmd_init(struct efa_alloc_ucontext *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	/*
	 * Tell the kernel we honour the TX batch limit and the minimum SQ
	 * size; a kernel whose device imposes either refuses a context that
	 * does not say so.
	 */
	cmd->drv.comp_mask = EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH |
			     EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR;
}

/*
 * The inline bytes of the 128-byte WQE, where the device reports one with
 * more room than the 64-byte WQE (a kernel older than inline_buf_size_ex
 * leaves 0 in what were reserved bytes).  A device offering more than a
 * 128-byte WQE holds gets what it holds: a larger WQE is not written here.
 */
static uint16_t
efa_inline_buf_size_ex(const struct efa_compat_alloc_ucontext_resp *drv)
{
	if (drv->inline_buf_size_ex <= EFA_IO_TX_DESC_INLINE_MAX_SIZE)
		return 0;
	if (drv->inline_buf_size_ex > EFA_IO_TX_DESC_INLINE_MAX_SIZE_128)
		return EFA_IO_TX_DESC_INLINE_MAX_SIZE_128;
	return drv->inline_buf_size_ex;
}

int efa_ucontext_resp_parse(struct efa_context *ctx,
			    const struct efa_alloc_ucontext_resp *resp)
{
	const struct efa_compat_alloc_ucontext_resp *drv = &resp->drv;
	uint32_t missing = EFA_REQUIRED_UDATA & ~drv->cmds_supp_udata_mask;

	if (missing) {
		verbs_err(&ctx->ibvctx,
			  "kernel lacks udata support 0x%x (has 0x%x)\n",
			  missing, drv->cmds_supp_udata_mask);
		return EOPNOTSUPP;
	}
	if (!drv->sub_cqs_per_cq) {
		verbs_err(&ctx->ibvctx, "kernel reports no sub CQs per CQ\n");
		return EINVAL;
	}
	if (drv->max_llq_size < EFA_IO_TX_WQE_SIZE) {
		verbs_err(&ctx->ibvctx,
			  "LLQ of %u bytes cannot hold one send WQE\n",
			  drv->max_llq_size);
		return EINVAL;
	}
	if (drv->inline_buf_size > EFA_IO_TX_DESC_INLINE_MAX_SIZE) {
		verbs_err(&ctx->ibvctx,
			  "inline buffer of %u bytes exceeds a %u byte WQE slot\n",
			  drv->inline_buf_size, EFA_IO_TX_DESC_INLINE_MAX_SIZE);
		return EINVAL;
	}

	ctx->cmds_supp_udata_mask = drv->cmds_supp_udata_mask;
	ctx->sub_cqs_per_cq = drv->sub_cqs_per_cq;
	ctx->inline_buf_size = drv->inline_buf_size;
	ctx->inline_buf_size_ex = efa_inline_buf_size_ex(drv);
	ctx->max_llq_size = drv->max_llq_size;
	ctx->max_tx_batch = drv->max_tx_batch;
	ctx->min_sq_wr = drv->min_sq_wr;
	return 0;
}

int efa_device_limits_parse(struct efa_context *ctx,
			    const struct efa_query_device_ex_resp *resp,
			    size_t resp_size)
{
	const struct ib_uverbs_query_device_resp *base = &resp->ibv_resp.base;

	/*
	 * libibverbs falls back to the legacy QUERY_DEVICE, which carries no
	 * udata, when the extended command is refused; it then reports only
	 * the legacy response length.
	 */
	if (resp_size <= sizeof(*base)) {
		verbs_err(&ctx->ibvctx,
			  "kernel did not answer the extended QUERY_DEVICE\n");
		return EOPNOTSUPP;
	}

	ctx->device_caps = resp->drv.device_caps;
	ctx->max_sq_wr = resp->drv.max_sq_wr;
	ctx->max_rq_wr = resp->drv.max_rq_wr;
	ctx->max_sq_sge = resp->drv.max_sq_sge;
	ctx->max_rq_sge = resp->drv.max_rq_sge;
	ctx->max_rdma_size = resp->drv.max_rdma_size;

	ctx->max_qp = base->max_qp;
	ctx->max_cq = base->max_cq;
	ctx->max_cqe = base->max_cqe;
	ctx->max_sge = base->max_sge;
	ctx->max_sge_rd = base->max_sge_rd;
	return 0;
}

static int efa_query_device_ctx(struct efa_context *ctx)
{
	struct efa_query_device_ex_resp resp = {};
	size_t resp_size = sizeof(resp);
	struct ibv_device_attr_ex attr;
	int err;

	err = ibv_cmd_query_device_any(&ctx->ibvctx.context, NULL, &attr,
				       sizeof(attr), &resp.ibv_resp,
				       &resp_size);
	if (err) {
		verbs_err(&ctx->ibvctx, "QUERY_DEVICE failed: %s\n",
			  strerror(err));
		return err;
	}

	return efa_device_limits_parse(ctx, &resp, resp_size);
}

/*
 * One slot per QP the device can have, rounded up to a power of two;
 * completions carry 16-bit QP numbers, so never more than 64K.
 */
static int efa_qp_table_init(struct efa_context *ctx)
{
	uint32_t max_qp = ctx->max_qp;
	uint32_t size;

	if (max_qp > 1U << 16)
		max_qp = 1U << 16;
	size = efa_roundup_pow2(max_qp ? max_qp : 1);

	ctx->qp_table = calloc(size, sizeof(*ctx->qp_table));
	if (!ctx->qp_table)
		return ENOMEM;
	ctx->qp_table_mask = size - 1;
	ctx->page_size = sysconf(_SC_PAGESIZE);
	pthread_spin_init(&ctx->qp_table_lock, PTHREAD_PROCESS_PRIVATE);
	return 0;
}

/*
 * SoftEFA's wake page (efa_ext_abi.h).  Without it the device still finds
 * every doorbell, only later, so a failed mapping is no error.
 */
static void efa_wake_map(struct efa_context *ctx, uint64_t key)
{
	void *p;

	if (!key)
		return;
	p = mmap(NULL, ctx->page_size, PROT_READ, MAP_SHARED,
		 ctx->ibvctx.context.cmd_fd, key);
	if (p == MAP_FAILED) {
		verbs_debug(&ctx->ibvctx, "wake page: %s\n", strerror(errno));
		return;
	}
	ctx->wake = p;
}

/*
 * The device sleeps: wake it on a word of its page (efa_db_kick()).
 * FUTEX_WAKE reads the word, the op and the count, nothing more.
 */
void efa_wake_device(const uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, 1);
}

struct verbs_context *efa_alloc_context(struct ibv_device *ibdev, int cmd_fd,
					void *private_data)
{
	struct efa_alloc_ucontext_resp resp = {};
	struct efa_alloc_ucontext cmd;
	struct efa_context *ctx;
	int err;

	/* On failure this has closed cmd_fd and set errno. */
	ctx = verbs_alloc_context(ibdev, cmd_fd, struct efa_context, ibvctx,
				  RDMA_DRIVER_EFA);
	if (!ctx)
		return NULL;

	efa_ucontext_cmd_init(&cmd);
	err = efa_cmd_get_context(&ctx->ibvctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "GET_CONTEXT failed: %s\n",
			  strerror(err));
		goto err_uninit;
	}

	err = efa_ucontext_resp_parse(ctx, &resp);
	if (err)
		goto err_uninit;

	err = efa_query_device_ctx(ctx);
	if (err)
		goto err_uninit;

	err = efa_qp_table_init(ctx);
	if (err)
		goto err_uninit;
	efa_wake_map(ctx, resp.wake_mmap_key);

	verbs_debug(&ctx->ibvctx,
		    "sub_cqs %u inline %u/%u llq %u tx_batch %u min_sq_wr %u caps 0x%x sq %u/%u rq %u/%u rdma %u\n",
		    ctx->sub_cqs_per_cq, ctx->inline_buf_size,
		    ctx->inline_buf_size_ex,
		    ctx->max_llq_size, ctx->max_tx_batch, ctx->min_sq_wr,
		    ctx->device_caps, ctx->max_sq_wr, ctx->max_sq_sge,
		    ctx->max_rq_wr, ctx->max_rq_sge, ctx->max_rdma_size);

	verbs_set_ops(&ctx->ibvctx, &efa_ctx_ops);
	return &ctx->ibvctx;

err_uninit:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}
