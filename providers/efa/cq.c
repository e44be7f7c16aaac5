// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: creation, the direct verbs around them, arming.
 *
 * A CQ is num_sub_cqs rings laid out back to back in one buffer the kernel
 * maps read-only into the process, or in a dma-buf of the caller's
 * (efadv_create_cq() with EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF); each of the
 * QP's queues completes into the sub-CQ the device picked for it.  Polling
 * is in poll.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "efa.h"
#include "efa_dp.h"
#include "efa/efa_ext_abi.h"

/* The CQ with its sub-CQs and room for the list of active ones. */
struct efa_cq *efa_cq_alloc(uint16_t num_sub_cqs)
{
	struct efa_cq *cq;

	cq = calloc(1, sizeof(*cq) + num_sub_cqs * (sizeof(cq->sub_cq_arr[0]) +
						    sizeof(cq->active[0])));
	if (cq)
		cq->active = (struct efa_sub_cq **)&cq->sub_cq_arr[num_sub_cqs];
	return cq;
}

/* A QP completes into sub-CQ idx from now on.  CQ lock held. */
int efa_cq_activate_sub_cq(struct efa_cq *cq, uint16_t idx)
{
	struct efa_sub_cq *sub_cq;

	if (idx >= cq->num_sub_cqs)
		return EINVAL;
	sub_cq = &cq->sub_cq_arr[idx];
	for (uint16_t i = 0; i < cq->num_active; i++)
		if (cq->active[i] == sub_cq)
			return 0;
	cq->active[cq->num_active++] = sub_cq;
	cq->sole = cq->num_active == 1 ? sub_cq : NULL;
	return 0;
}

void efa_cq_init_sub_cqs(struct efa_cq *cq, const void *buf,
			 uint16_t num_sub_cqs, uint32_t entries,
			 uint32_t cqe_size)
{
	const uint8_t *ring = buf;

	cq->num_sub_cqs = num_sub_cqs;
	cq->cqe_size = cqe_size;
	cq->num_active = 0;
	cq->next_poll_idx = 0;
	cq->sole = NULL;
	cq->cc = 0;
	for (uint16_t i = 0; i < num_sub_cqs; i++) {
		cq->sub_cq_arr[i] = (struct efa_sub_cq){
			.buf = ring,
			.qmask = entries - 1,
			.phase = 1,
		};
		ring += (size_t)entries * cqe_size;
	}
}

/*
 * The ring: the caller's (@ext, @ext_len bytes), or the kernel's, mapped
 * from the response's key.  Then the doorbell, when the kernel offers one
 * (it does not for a ring in the caller's memory).
 */
static int efa_cq_map(struct efa_context *ctx, struct efa_cq *cq,
		      const struct efa_ibv_create_cq_resp *resp,
		      uint16_t num_sub_cqs, uint32_t cqe_size,
		      void *ext, uint64_t ext_len)
{
	uint64_t size = ext ? ext_len : resp->q_mmap_size;
	uint32_t entries = cq->verbs_cq.cq.cqe;
	int cmd_fd = ctx->ibvctx.context.cmd_fd;
	int err = EINVAL;

	/* Ring walking masks indexes, and the rings must fit the buffer. */
	if (!entries || (entries & (entries - 1)) ||
	    size < (uint64_t)entries * cqe_size * num_sub_cqs) {
		verbs_err(&ctx->ibvctx,
			  "CQ of %u entries does not fit %llu bytes\n",
			  entries, (unsigned long long)size);
		return EINVAL;
	}

	cq->buf_size = size;
	cq->buf_ext = ext;
	if (ext) {
		cq->buf = ext;
	} else {
		cq->buf = mmap(NULL, cq->buf_size, PROT_READ, MAP_SHARED,
			       cmd_fd, resp->q_mmap_key);
		if (cq->buf == MAP_FAILED) {
			err = errno;
			cq->buf = NULL;
			verbs_err(&ctx->ibvctx, "CQ ring mmap failed: %s\n",
				  strerror(err));
			return err;
		}
	}

	if (resp->comp_mask & EFA_CREATE_CQ_RESP_DB_OFF) {
		if (resp->db_off > ctx->page_size - sizeof(uint32_t)) {
			verbs_err(&ctx->ibvctx, "CQ doorbell offset %u\n",
				  resp->db_off);
			goto err_unmap_buf;
		}
		cq->db_page = mmap(NULL, ctx->page_size, PROT_WRITE,
				   MAP_SHARED, cmd_fd, resp->db_mmap_key);
		if (cq->db_page == MAP_FAILED) {
			err = errno;
			cq->db_page = NULL;
			verbs_err(&ctx->ibvctx,
				  "CQ doorbell mmap failed: %s\n",
				  strerror(err));
			goto err_unmap_buf;
		}
		cq->db = (uint32_t *)((uint8_t *)cq->db_page + resp->db_off);
	}

	efa_cq_init_sub_cqs(cq, cq->buf, num_sub_cqs, entries, cqe_size);
	return 0;

err_unmap_buf:
	if (!cq->buf_ext)
		munmap(cq->buf, cq->buf_size);
	cq->buf = NULL;
	return err;
}

static void efa_cq_unmap(struct efa_context *ctx, struct efa_cq *cq)
{
	if (cq->db_page)
		munmap(cq->db_page, ctx->page_size);
	if (!cq->buf_ext)
		munmap(cq->buf, cq->buf_size);
}

/*
 * EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF: what the kernel is told (the
 * dma-buf) and where this process reads the ring (@buffer, which must
 * be there: the provider polls it).  EOPNOTSUPP where the device or the
 * libibverbs cannot.
 */
static int efa_cq_ext_mem(struct efa_context *ctx,
			  const struct efadv_cq_init_attr *in,
			  struct efa_cq_dmabuf *dmabuf)
{
	if (!(ctx->device_caps & EFA_QUERY_DEVICE_CAPS_CQ_WITH_EXT_MEM)) {
		verbs_err(&ctx->ibvctx,
			  "the device takes no CQ in external memory\n");
		return EOPNOTSUPP;
	}
	if (!EFA_CMD_CQ_DMABUF) {
		verbs_err(&ctx->ibvctx,
			  "CQ in a dma-buf: this libibverbs (private ABI %d) cannot pass the buffer to the kernel\n",
			  EFA_IBVERBS_PABI);
		return EOPNOTSUPP;
	}
	if (!in->ext_mem_dmabuf.buffer) {
		verbs_err(&ctx->ibvctx,
			  "CQ in a dma-buf without its address in this process: nothing to poll\n");
		return EINVAL;
	}
	dmabuf->fd = in->ext_mem_dmabuf.fd;
	dmabuf->offset = in->ext_mem_dmabuf.offset;
	dmabuf->length = in->ext_mem_dmabuf.length;
	return 0;
}

/* @efa: efadv_create_cq()'s parsed attributes, or NULL */
static struct ibv_cq_ex *create_cq(struct ibv_context *ibvctx,
				   struct ibv_cq_init_attr_ex *attr,
				   const struct efadv_cq_init_attr *efa)
{
	struct efa_context *ctx = to_efa_context(ibvctx);
	bool with_sgid = efa && (efa->wc_flags & EFADV_WC_EX_WITH_SGID);
	uint16_t num_sub_cqs = ctx->sub_cqs_per_cq;
	struct efa_create_cq_resp resp = {};
	struct efa_cq_dmabuf dmabuf, *ext = NULL;
	struct efa_create_cq cmd = {};
	uint32_t cqe_size;
	struct efa_cq *cq;
	int err;

	if (attr->comp_mask) {
		verbs_err(&ctx->ibvctx, "unsupported comp_mask 0x%x\n",
			  attr->comp_mask);
		err = EOPNOTSUPP;
		goto err_out;
	}
	if (attr->wc_flags & ~(uint64_t)IBV_WC_STANDARD_FLAGS) {
		verbs_err(&ctx->ibvctx, "unsupported wc_flags 0x%llx\n",
			  (unsigned long long)attr->wc_flags);
		err = EOPNOTSUPP;
		goto err_out;
	}
	if (attr->channel &&
	    !(ctx->device_caps & EFA_QUERY_DEVICE_CAPS_CQ_NOTIFICATIONS)) {
		verbs_err(&ctx->ibvctx,
			  "device cannot notify: no completion channel\n");
		err = EOPNOTSUPP;
		goto err_out;
	}
	if (attr->cqe > ctx->max_cqe) {
		verbs_err(&ctx->ibvctx, "%u entries > %u\n", attr->cqe,
			  ctx->max_cqe);
		err = EINVAL;
		goto err_out;
	}
	if (efa && (efa->flags & EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF)) {
		err = efa_cq_ext_mem(ctx, efa, &dmabuf);
		if (err)
			goto err_out;
		ext = &dmabuf;
	}

	cq = efa_cq_alloc(num_sub_cqs);
	if (!cq) {
		err = ENOMEM;
		goto err_out;
	}

	/*
	 * The kernel takes 16-byte entries only without the sender's GID; an
	 * RDMA write's length, and an RC receive's, needs 32 (as upstream
	 * uses whenever the device writes).
	 */
	cqe_size = EFA_IO_CQE_SIZE;
	if (with_sgid || (ctx->device_caps & (EFA_QUERY_DEVICE_CAPS_RDMA_WRITE |
					      SEFA_QUERY_DEVICE_CAPS_RC)))
		cqe_size = EFA_IO_CQE_EX_SIZE;
	cmd.drv.cq_entry_size = cqe_size;
	cmd.drv.num_sub_cqs = num_sub_cqs;
	if (with_sgid)
		cmd.drv.flags |= EFA_CREATE_CQ_WITH_SGID;
	if (attr->channel)
		cmd.drv.flags |= EFA_CREATE_CQ_WITH_COMPLETION_CHANNEL;

	attr->cqe = efa_roundup_pow2(attr->cqe);
	err = efa_cmd_create_cq_ex(ibvctx, attr, ext, &cq->verbs_cq,
				   &cmd.ibv_cmd, sizeof(cmd), &resp.ibv_resp,
				   sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "CREATE_CQ failed: %s\n",
			  strerror(err));
		goto err_free;
	}

	cq->cqn = resp.drv.cq_idx;
	cq->with_sgid = with_sgid;
	err = efa_cq_map(ctx, cq, &resp.drv, num_sub_cqs, cqe_size,
			 ext ? efa->ext_mem_dmabuf.buffer : NULL,
			 ext ? ext->length : 0);
	if (err)
		goto err_destroy;

	efa_spin_init(&cq->lock);
	efa_cq_fill_pfns(cq, attr->wc_flags);
	return &cq->verbs_cq.cq_ex;

err_destroy:
	ibv_cmd_destroy_cq(&cq->verbs_cq.cq);
err_free:
	free(cq);
err_out:
	errno = err;
	return NULL;
}

struct ibv_cq *efa_create_cq(struct ibv_context *ibvctx, int ncqe,
			     struct ibv_comp_channel *channel, int vec)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = ncqe,
		.channel = channel,
		.comp_vector = vec,
	};
	struct ibv_cq_ex *ibvcqx;

	if (ncqe < 0) {
		errno = EINVAL;
		return NULL;
	}

	ibvcqx = create_cq(ibvctx, &attr, NULL);
	return ibvcqx ? ibv_cq_ex_to_cq(ibvcqx) : NULL;
}

struct ibv_cq_ex *efa_create_cq_ex(struct ibv_context *ibvctx,
				   struct ibv_cq_init_attr_ex *attr)
{
	return create_cq(ibvctx, attr, NULL);
}

/*
 * efa_attr grew over time; a caller passes the size it knows.  comp_mask
 * must be 0, wc_flags must start inside inlen, and whatever a newer caller
 * has beyond our struct must be zero (the check that upstream fixed in
 * v61: the extension is measured from the struct, not from a pointer).
 * Only the flags the device supports are accepted.
 */
int efa_dv_cq_attr_parse(struct efa_context *ctx,
			 const struct efadv_cq_init_attr *efa_attr,
			 uint32_t inlen, struct efadv_cq_init_attr *out)
{
	struct efadv_cq_init_attr in = {};
	uint64_t supp_wc_flags = 0;

	if (!vext_field_avail(struct efadv_cq_init_attr, wc_flags, inlen)) {
		verbs_err(&ctx->ibvctx, "efa_attr of %u bytes is too short\n",
			  inlen);
		return EINVAL;
	}

	/* Fields the caller's struct does not reach read as 0. */
	memcpy(&in, efa_attr, inlen < sizeof(in) ? inlen : sizeof(in));
	if (in.comp_mask ||
	    (inlen > sizeof(in) &&
	     !efa_buf_cleared((const uint8_t *)efa_attr + sizeof(in),
			      inlen - sizeof(in)))) {
		verbs_err(&ctx->ibvctx,
			  "efa_attr has comp_mask or unknown fields set\n");
		return EINVAL;
	}

	if (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_CQ_WITH_SGID)
		supp_wc_flags |= EFADV_WC_EX_WITH_SGID;
	if (ctx->device_caps & EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV)
		supp_wc_flags |= EFADV_WC_EX_WITH_IS_UNSOLICITED;
	if (in.wc_flags & ~supp_wc_flags) {
		verbs_err(&ctx->ibvctx, "unsupported EFA wc_flags 0x%llx\n",
			  (unsigned long long)in.wc_flags);
		return EOPNOTSUPP;
	}
	if (in.flags & ~(uint64_t)EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF) {
		verbs_err(&ctx->ibvctx, "unknown EFA CQ flags 0x%llx\n",
			  (unsigned long long)in.flags);
		return EOPNOTSUPP;
	}

	*out = in;
	return 0;
}

struct ibv_cq_ex *efadv_create_cq(struct ibv_context *ibvctx,
				  struct ibv_cq_init_attr_ex *attr_ex,
				  struct efadv_cq_init_attr *efa_attr,
				  uint32_t inlen)
{
	struct efadv_cq_init_attr in;
	struct ibv_cq_ex *ibvcqx;
	int err;

	if (!efa_is_dev(ibvctx->device)) {
		verbs_err(to_verbs_context(ibvctx), "not an EFA device\n");
		errno = EOPNOTSUPP;
		return NULL;
	}

	err = efa_dv_cq_attr_parse(to_efa_context(ibvctx), efa_attr, inlen,
				   &in);
	if (err) {
		errno = err;
		return NULL;
	}

	ibvcqx = create_cq(ibvctx, attr_ex, &in);
	if (!ibvcqx)
		return NULL;

	/* libibverbs does this after its own create calls, not after ours. */
	verbs_init_cq(ibv_cq_ex_to_cq(ibvcqx), ibvctx, attr_ex->channel,
		      attr_ex->cq_context);
	return ibvcqx;
}

struct efadv_cq *efadv_cq_from_ibv_cq_ex(struct ibv_cq_ex *ibvcqx)
{
	/* a failed ibv_create_cq_ex() handed on unchecked */
	if (!ibvcqx) {
		errno = EINVAL;
		return NULL;
	}
	if (!efa_is_dev(ibvcqx->context->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}

	return &to_efa_cq_ex(ibvcqx)->dv_cq;
}

/*
 * The ring the device writes completions to, and its doorbell (NULL: the
 * device has none).  A device that splits a CQ into sub-CQs (part 0xefa0)
 * gets its first ring, as upstream answers: a caller that polls it alone
 * misses what the device writes to the others, which is why libfabric asks
 * only devices of one ring.  inlen must reach num_entries; doorbell is
 * written when it reaches that too.
 */
int efadv_query_cq(struct ibv_cq *ibvcq, struct efadv_cq_attr *attr,
		   uint32_t inlen)
{
	struct efa_cq *cq;

	if (!efa_is_dev(ibvcq->context->device)) {
		verbs_err(to_verbs_context(ibvcq->context),
			  "not an EFA device\n");
		return EOPNOTSUPP;
	}
	if (!vext_field_avail(struct efadv_cq_attr, num_entries, inlen)) {
		verbs_err(to_verbs_context(ibvcq->context),
			  "efadv_cq_attr of %u bytes is too short\n", inlen);
		return EINVAL;
	}

	cq = to_efa_cq(ibvcq);
	attr->comp_mask = 0;
	attr->buffer = cq->buf;
	attr->entry_size = cq->cqe_size;
	attr->num_entries = cq->sub_cq_arr[0].qmask + 1;
	if (vext_field_avail(struct efadv_cq_attr, doorbell, inlen))
		attr->doorbell = cq->db;
	return 0;
}

int efa_destroy_cq(struct ibv_cq *ibvcq)
{
	struct efa_context *ctx = to_efa_context(ibvcq->context);
	struct efa_cq *cq = to_efa_cq(ibvcq);
	int err;

	/* Until the kernel lets go of it (no QP uses it), it stays whole. */
	err = ibv_cmd_destroy_cq(ibvcq);
	if (err) {
		verbs_err(&ctx->ibvctx, "DESTROY_CQ %u failed: %s\n", cq->cqn,
			  strerror(err));
		return err;
	}

	efa_cq_unmap(ctx, cq);
	free(cq);
	return 0;
}

/*
 * Asks for one completion event by ringing the doorbell with the arm bit.
 * The doorbell also carries the consumer index and, in cmd_sn, the number
 * of events the application has read so far (efa_cq_event()), which lets
 * the device tell a new arm from a repeated one.
 */
int efa_arm_cq(struct ibv_cq *ibvcq, int solicited_only)
{
	struct efa_cq *cq = to_efa_cq(ibvcq);

	if (solicited_only || !cq->db)
		return EOPNOTSUPP;

	efa_db_write(cq->db, efa_cq_db_val(cq, true));
	/*
	 * The caller polls next.  The arm must be visible before that poll
	 * reads the ring, or an entry the device writes meanwhile could be
	 * missed by both: by the device checking the arm, and by the poll.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	efa_db_kick(to_efa_context(ibvcq->context)->wake, NULL, false);
	return 0;
}

/* Counted where the doorbell carries it, ready for every poll's doorbell. */
void efa_cq_event(struct ibv_cq *ibvcq)
{
	struct efa_cq *cq = to_efa_cq(ibvcq);
	uint32_t one = 1U << EFA_IO_REGS_CQ_DB_CMD_SN_SHIFT;

	cq->db_cmd_sn = (cq->db_cmd_sn + one) & EFA_IO_REGS_CQ_DB_CMD_SN_MASK;
}
