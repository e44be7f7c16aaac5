// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The experimental verbs of <infiniband/verbs_exp.h>: indirect memory
 * regions (KLM lists) created empty, and filled or invalidated by a UMR
 * work request on an RC QP.  Only on devices that offer them
 * (SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR, efa_ext_abi.h); EFA has none.
 *
 * A UMR WQE is one 64-byte WQE like any other.  Its KLM list does not fit
 * in it, so the provider copies the caller's list into a staging area of
 * the QP, one slot per WQE, registered at QP creation; the device reads the
 * list from there when it executes the WQE.  The caller's list is free
 * again when ibv_exp_post_send() returns, as with inline data.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include <infiniband/verbs_exp.h>

#include "efa.h"
#include "efa_dp.h"
#include "efa/efa_ext_abi.h"

#define EFA_EXP_ACCESS (IBV_EXP_ACCESS_LOCAL_WRITE |			\
			IBV_EXP_ACCESS_REMOTE_WRITE |			\
			IBV_EXP_ACCESS_REMOTE_READ |			\
			IBV_EXP_ACCESS_REMOTE_ATOMIC)

#define EFA_OFFSETOFEND(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))

/*
 * The shared prefixes the conversions below copy in one piece: up to the
 * last common member, not sizeof, which includes the padding where the
 * experimental structures have comp_mask.
 */
#define EFA_EXP_DEVICE_ATTR_BASE \
	EFA_OFFSETOFEND(struct ibv_device_attr, phys_port_cnt)
#define EFA_EXP_QP_INIT_ATTR_BASE \
	EFA_OFFSETOFEND(struct ibv_qp_init_attr, sq_sig_all)
_Static_assert(offsetof(struct ibv_exp_device_attr, reserved) ==
		       offsetof(struct ibv_device_attr, device_cap_flags) &&
	       offsetof(struct ibv_exp_device_attr, exp_atomic_cap) ==
		       offsetof(struct ibv_device_attr, atomic_cap) &&
	       EFA_OFFSETOFEND(struct ibv_exp_device_attr, phys_port_cnt) ==
		       EFA_EXP_DEVICE_ATTR_BASE,
	       "ibv_exp_device_attr starts as ibv_device_attr");
_Static_assert(EFA_OFFSETOFEND(struct ibv_exp_qp_init_attr, sq_sig_all) ==
		       EFA_EXP_QP_INIT_ATTR_BASE,
	       "ibv_exp_qp_init_attr starts as ibv_qp_init_attr");
_Static_assert(offsetof(struct ibv_exp_send_wr, wr) ==
		       offsetof(struct ibv_send_wr, wr) &&
	       sizeof(((struct ibv_exp_send_wr *)0)->wr) ==
		       sizeof(((struct ibv_send_wr *)0)->wr),
	       "ibv_exp_send_wr.wr is ibv_send_wr.wr");

static int efa_create_indirect(struct ibv_context *ibvctx, uint32_t pd_handle,
			       uint32_t max_entries, uint32_t access,
			       struct efa_mr *mr)
{
	struct {
		struct ib_uverbs_ioctl_hdr hdr;
		struct ib_uverbs_attr attrs[7];
	} cmd = {};
	uint32_t lkey = 0, rkey = 0, entries = 0;
	struct ib_uverbs_attr *a = cmd.attrs;

	cmd.hdr.length = sizeof(cmd);
	cmd.hdr.object_id = UVERBS_OBJECT_MR;
	cmd.hdr.method_id = SEFA_IB_METHOD_MR_CREATE_INDIRECT;
	cmd.hdr.num_attrs = 7;
	cmd.hdr.driver_id = RDMA_DRIVER_EFA;

	a[0] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_HANDLE,
		.flags = UVERBS_ATTR_F_MANDATORY };
	a[1] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE,
		.flags = UVERBS_ATTR_F_MANDATORY, .data = pd_handle };
	a[2] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_MAX_ENTRIES,
		.flags = UVERBS_ATTR_F_MANDATORY, .len = 4,
		.data = max_entries };
	a[3] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_ACCESS,
		.flags = UVERBS_ATTR_F_MANDATORY, .len = 4, .data = access };
	a[4] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_RESP_LKEY,
		.flags = UVERBS_ATTR_F_MANDATORY, .len = 4,
		.data = (uintptr_t)&lkey };
	a[5] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_RESP_RKEY,
		.flags = UVERBS_ATTR_F_MANDATORY, .len = 4,
		.data = (uintptr_t)&rkey };
	a[6] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_RESP_MAX_ENTRIES,
		.flags = UVERBS_ATTR_F_MANDATORY, .len = 4,
		.data = (uintptr_t)&entries };

	/* A kernel without the method (or without ioctl) does not offer it. */
	if (ioctl(ibvctx->cmd_fd, RDMA_VERBS_IOCTL, &cmd))
		return errno == ENOTTY || errno == EPROTONOSUPPORT ? EOPNOTSUPP :
								      errno;

	mr->vmr.ibv_mr.handle = a[0].data;
	mr->vmr.ibv_mr.lkey = lkey;
	mr->vmr.ibv_mr.rkey = rkey;
	mr->max_entries = entries;
	return 0;
}

/*
 * The capability says the device has indirect keys; whether the kernel can
 * make them (a kernel without ioctl, or without the method, cannot) is
 * learned once, by asking for one in a PD that does not exist.
 */
static bool efa_has_indirect(struct efa_context *ctx)
{
	int8_t known = __atomic_load_n(&ctx->indirect_mr, __ATOMIC_RELAXED);
	struct efa_mr probe;

	if (!(ctx->device_caps & SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR))
		return false;
	if (!known) {
		known = efa_create_indirect(&ctx->ibvctx.context, UINT32_MAX, 1,
					    0, &probe) == EOPNOTSUPP ? -1 : 1;
		__atomic_store_n(&ctx->indirect_mr, known, __ATOMIC_RELAXED);
	}
	return known > 0;
}

static bool efa_indirect_ok(struct ibv_context *ibvctx)
{
	if (!efa_is_dev(ibvctx->device))
		return false;
	if (efa_has_indirect(to_efa_context(ibvctx)))
		return true;
	verbs_err(to_verbs_context(ibvctx),
		  "indirect memory regions are not offered by this device\n");
	return false;
}

/* The IB rule for every region: remote write or atomic needs local write. */
static int efa_exp_access_check(uint64_t access)
{
	if (access & ~(uint64_t)EFA_EXP_ACCESS)
		return EINVAL;
	if ((access & (IBV_EXP_ACCESS_REMOTE_WRITE |
		       IBV_EXP_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_EXP_ACCESS_LOCAL_WRITE))
		return EINVAL;
	return 0;
}

/*
 * The comp_mask asks for parts of attr, and the answer keeps the parts
 * filled.  Only the fields of those parts and of the part every version of
 * the structure has are written: an older program's structure is shorter.
 */
int ibv_exp_query_device(struct ibv_context *ibvctx,
			 struct ibv_exp_device_attr *attr)
{
	struct efa_context *ctx = to_efa_context(ibvctx);
	uint32_t supported = IBV_EXP_DEVICE_ATTR_EXP_CAP_FLAGS;
	struct ibv_device_attr base;
	bool umr;
	int err;

	if (!efa_is_dev(ibvctx->device))
		return EOPNOTSUPP;

	err = ibv_query_device(ibvctx, &base);
	if (err)
		return err;

	memcpy(attr, &base, EFA_EXP_DEVICE_ATTR_BASE);
	attr->reserved = 0;

	umr = efa_has_indirect(ctx);
	if (umr)
		supported |= IBV_EXP_DEVICE_ATTR_UMR;
	attr->comp_mask &= supported;

	if (attr->comp_mask & IBV_EXP_DEVICE_ATTR_EXP_CAP_FLAGS)
		attr->exp_device_cap_flags = base.device_cap_flags |
					     (umr ? IBV_EXP_DEVICE_UMR : 0);
	if (attr->comp_mask & IBV_EXP_DEVICE_ATTR_UMR) {
		attr->umr_caps.max_klm_list_size = SEFA_INDIRECT_MR_MAX_ENTRIES;
		attr->umr_caps.max_send_wqe_inline_klms =
			SEFA_UMR_MAX_ENTRIES_PER_WQE;
		attr->umr_caps.max_umr_recursion_depth = 1;
		attr->umr_caps.max_umr_stride_dimension = 0;
	}
	return 0;
}

static int efa_exp_qp_attr_check(struct efa_context *ctx,
				 const struct ibv_exp_qp_init_attr *attr,
				 bool *umr)
{
	const uint32_t known = IBV_EXP_QP_INIT_ATTR_RESERVED1 - 1;
	const uint32_t ours = IBV_EXP_QP_INIT_ATTR_PD |
			      IBV_EXP_QP_INIT_ATTR_CREATE_FLAGS |
			      IBV_EXP_QP_INIT_ATTR_MAX_INL_KLMS;
	uint32_t flags = 0;
	bool klms;

	if (attr->comp_mask & ~known)
		return EINVAL;
	if (attr->comp_mask & ~ours)
		return EOPNOTSUPP;
	if (!(attr->comp_mask & IBV_EXP_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != &ctx->ibvctx.context)
		return EINVAL;
	if (attr->comp_mask & IBV_EXP_QP_INIT_ATTR_CREATE_FLAGS)
		flags = attr->exp_create_flags;
	if (flags & ~IBV_EXP_QP_CREATE_UMR)
		return EOPNOTSUPP;

	*umr = flags & IBV_EXP_QP_CREATE_UMR;
	klms = attr->comp_mask & IBV_EXP_QP_INIT_ATTR_MAX_INL_KLMS;
	if (!*umr)
		return klms ? EINVAL : 0;
	if (!efa_has_indirect(ctx))
		return EOPNOTSUPP;
	if (!klms || attr->qp_type != IBV_QPT_RC ||
	    !attr->max_inl_send_klms ||
	    attr->max_inl_send_klms > SEFA_UMR_MAX_ENTRIES_PER_WQE)
		return EINVAL;
	return 0;
}

struct ibv_qp *ibv_exp_create_qp(struct ibv_context *ibvctx,
				 struct ibv_exp_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {};
	struct efa_context *ctx;
	struct ibv_qp *ibvqp;
	bool umr = false;
	int err;

	if (!efa_is_dev(ibvctx->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = to_efa_context(ibvctx);
	err = efa_exp_qp_attr_check(ctx, attr, &umr);
	if (err) {
		verbs_err(&ctx->ibvctx,
			  "ibv_exp_create_qp: comp_mask 0x%x, create flags 0x%x, %u inline KLMs: %s\n",
			  attr->comp_mask, attr->exp_create_flags,
			  attr->max_inl_send_klms, strerror(err));
		errno = err;
		return NULL;
	}

	memcpy(&attr_ex, attr, EFA_EXP_QP_INIT_ATTR_BASE);
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = attr->pd;
	ibvqp = efa_create_qp_ex(ibvctx, &attr_ex);
	if (!ibvqp)
		return NULL;

	if (umr) {
		err = efa_umr_init(to_efa_qp(ibvqp), attr->pd,
				   attr->max_inl_send_klms);
		if (err) {
			efa_destroy_qp(ibvqp);
			errno = err;
			return NULL;
		}
	}
	attr->cap = attr_ex.cap;
	return ibvqp;
}

/*
 * The region is empty: addr and length stay NULL and 0, as the historical
 * library left them, and no access through it works until a fill.
 */
struct ibv_mr *ibv_exp_create_mr(struct ibv_exp_create_mr_in *in)
{
	const struct ibv_exp_mr_init_attr *attr;
	struct ibv_context *ibvctx;
	struct efa_mr *mr;
	int err = EINVAL;

	if (!in || !in->pd)
		goto err_out;
	attr = &in->attr;
	ibvctx = in->pd->context;
	if (!efa_indirect_ok(ibvctx)) {
		err = EOPNOTSUPP;
		goto err_out;
	}
	if (in->comp_mask || efa_exp_access_check(attr->exp_access_flags) ||
	    !attr->max_klm_list_size ||
	    attr->max_klm_list_size > SEFA_INDIRECT_MR_MAX_ENTRIES)
		goto err_log;
	if (attr->create_flags != IBV_EXP_MR_INDIRECT_KLMS) {
		if (attr->create_flags & ~IBV_EXP_MR_INDIRECT_KLMS)
			err = EOPNOTSUPP;
		goto err_log;
	}

	mr = calloc(1, sizeof(*mr));
	if (!mr) {
		err = ENOMEM;
		goto err_out;
	}
	err = efa_create_indirect(ibvctx, in->pd->handle,
				  attr->max_klm_list_size,
				  attr->exp_access_flags, mr);
	if (err) {
		free(mr);
		goto err_log;
	}
	mr->vmr.ibv_mr.context = ibvctx;
	mr->vmr.ibv_mr.pd = in->pd;
	/* No pages of its own: ibv_dereg_mr() has no fork state to undo. */
	mr->vmr.mr_type = IBV_MR_TYPE_NULL_MR;
	mr->indirect = true;
	return &mr->vmr.ibv_mr;

err_log:
	verbs_err(to_verbs_context(in->pd->context),
		  "ibv_exp_create_mr: comp_mask 0x%x, create flags 0x%x, %u entries, access 0x%llx: %s\n",
		  in->comp_mask, attr->create_flags, attr->max_klm_list_size,
		  (unsigned long long)attr->exp_access_flags, strerror(err));
err_out:
	errno = err;
	return NULL;
}

static struct efa_mr *to_efa_mr(struct ibv_mr *ibvmr)
{
	return (struct efa_mr *)((char *)ibvmr -
				 offsetof(struct efa_mr, vmr.ibv_mr));
}

/* An indirect region of this QP's PD. */
static bool efa_umr_target_ok(const struct efa_qp *qp, struct ibv_mr *ibvmr)
{
	return ibvmr && ibvmr->context == qp->verbs_qp.qp.context &&
	       ibvmr->pd == qp->verbs_qp.qp.pd && to_efa_mr(ibvmr)->indirect;
}

/*
 * Everything the device would refuse, refused before posting: entries of
 * plain regions of the target's PD, each inside its region, and no more
 * than the target and the QP take.
 */
static int efa_umr_fill_check(const struct efa_qp *qp,
			      const struct ibv_exp_send_wr *wr)
{
	const struct ibv_exp_mem_region *list = wr->ext_op.umr.mem_list.mem_reg_list;
	struct ibv_mr *target = wr->ext_op.umr.modified_mr;
	uint32_t n = wr->ext_op.umr.num_mrs;
	uint64_t end = wr->ext_op.umr.base_addr;

	if (wr->ext_op.umr.umr_type != IBV_EXP_UMR_MR_LIST)
		return EOPNOTSUPP;
	if (efa_exp_access_check(wr->ext_op.umr.exp_access) || !n || !list ||
	    n > to_efa_mr(target)->max_entries || n > qp->umr.max_klms)
		return EINVAL;

	for (uint32_t i = 0; i < n; i++) {
		const struct ibv_mr *mr = list[i].mr;
		uint64_t lo, hi;

		if (!mr || mr->context != target->context ||
		    mr->pd != target->pd || to_efa_mr((struct ibv_mr *)mr)->indirect)
			return EINVAL;
		/* Entries address a region as its keys do: by its iova. */
		lo = to_efa_mr((struct ibv_mr *)mr)->iova;
		hi = lo + mr->length;
		if (!list[i].length || list[i].length > UINT32_MAX ||
		    list[i].base_addr < lo || list[i].base_addr > hi ||
		    list[i].length > hi - list[i].base_addr)
			return EINVAL;
		if (end + list[i].length < end)
			return EINVAL;
		end += list[i].length;
	}
	return 0;
}

/* The WQE, and for a fill its list in the staging slot of req_id. */
static void efa_umr_wqe_build(struct efa_qp *qp,
			      const struct ibv_exp_send_wr *wr, uint16_t req_id,
			      struct efa_io_tx_wqe *wqe)
{
	bool fill = wr->exp_opcode == IBV_EXP_WR_UMR_FILL;
	uint32_t n = fill ? wr->ext_op.umr.num_mrs : 0;
	struct efa_io_klm *klm = qp->umr.klms + (size_t)req_id * qp->umr.max_klms;
	struct efa_io_umr_req *req = &wqe->data.umr_req;
	uint64_t list = (uintptr_t)klm;

	for (uint32_t i = 0; i < n; i++) {
		const struct ibv_exp_mem_region *r =
			&wr->ext_op.umr.mem_list.mem_reg_list[i];

		klm[i].length = r->length;
		klm[i].lkey = r->mr->lkey & EFA_IO_LKEY_MASK;
		klm[i].addr = r->base_addr;
	}

	memset(wqe, 0, sizeof(*wqe));
	wqe->meta.req_id = req_id;
	wqe->meta.ctrl1 = EFA_IO_TX_META_DESC_META_DESC | EFA_IO_UMR;
	wqe->meta.ctrl2 = efa_tx_ctrl2(&qp->sq, wr->exp_send_flags, true);
	wqe->meta.length = n;
	req->mkey = wr->ext_op.umr.modified_mr->lkey & EFA_IO_LKEY_MASK;
	if (fill) {
		req->access = wr->ext_op.umr.exp_access;
		req->base_addr = wr->ext_op.umr.base_addr;
		req->klm_list.length = n * sizeof(*klm);
		req->klm_list.lkey = qp->umr.mr->lkey & EFA_IO_LKEY_MASK;
		req->klm_list.buf_addr_lo = (uint32_t)list;
		req->klm_list.buf_addr_hi = list >> 32;
	}
}

static int efa_post_umr(struct efa_qp *qp, const struct ibv_exp_send_wr *wr)
{
	struct efa_wq *wq = &qp->sq.wq;
	struct efa_io_tx_wqe wqe;
	uint8_t *slot;
	uint16_t req_id;
	bool busy;
	int err = 0;

	if (!qp->umr.max_klms || wr->comp_mask ||
	    (wr->exp_send_flags & ~(uint64_t)(IBV_EXP_SEND_SIGNALED |
					      IBV_EXP_SEND_INLINE)) ||
	    !efa_umr_target_ok(qp, wr->ext_op.umr.modified_mr))
		return EINVAL;
	/* No ibv_exp_alloc_mkey_list_memory(): the list always goes inline. */
	if (!(wr->exp_send_flags & IBV_EXP_SEND_INLINE))
		return EOPNOTSUPP;
	if (wr->exp_opcode == IBV_EXP_WR_UMR_FILL) {
		err = efa_umr_fill_check(qp, wr);
		if (err)
			return err;
	}

	efa_spin_lock(&wq->lock);
	if (!efa_sq_state_ok(&qp->sq, qp->verbs_qp.qp.state)) {
		err = EINVAL;
		goto out;
	}
	if (efa_wq_full(wq)) {
		err = ENOMEM;
		goto out;
	}
	busy = wq->wrid_idx_pool_next;
	req_id = efa_wq_peek_idx(wq, true);
	efa_umr_wqe_build(qp, wr, req_id, &wqe);
	slot = (uint8_t *)efa_sq_slot(&qp->sq);
	memcpy(slot, &wqe, sizeof(wqe));
	/* A 128-byte slot's second half: nothing of a UMR. */
	memset(slot + sizeof(wqe), 0, qp->sq.wqe_size - sizeof(wqe));
	efa_wq_commit_idx(wq, req_id, wr->wr_id);
	efa_sq_advance(&qp->sq);
	efa_sq_ring(&qp->sq, wq->pc, busy);
out:
	efa_spin_unlock(&wq->lock);
	return err;
}

/* Any other WR is an ibv_send_wr in the experimental layout. */
static int efa_post_exp_wr(struct efa_qp *qp, const struct ibv_exp_send_wr *wr)
{
	struct ibv_send_wr swr = {}, *bad;

	if (wr->comp_mask)
		return EINVAL;
	/* NOP, LOCAL_INV, BIND_MW, masked atomics...: not offered. */
	if ((unsigned int)wr->exp_opcode >= IBV_EXP_START_ENUM)
		return EOPNOTSUPP;
	/* The upstream flags are the low half; efa_post_send() checks them. */
	if (wr->exp_send_flags >> IBV_EXP_START_FLAG_LOC)
		return EOPNOTSUPP;

	swr.wr_id = wr->wr_id;
	swr.sg_list = wr->sg_list;
	swr.num_sge = wr->num_sge;
	swr.opcode = (enum ibv_wr_opcode)wr->exp_opcode;
	swr.send_flags = (unsigned int)wr->exp_send_flags;
	swr.imm_data = wr->ex.imm_data;
	memcpy(&swr.wr, &wr->wr, sizeof(swr.wr));
	return efa_post_send(&qp->verbs_qp.qp, &swr, &bad);
}

int ibv_exp_post_send(struct ibv_qp *ibvqp, struct ibv_exp_send_wr *wr,
		      struct ibv_exp_send_wr **bad_wr)
{
	struct efa_qp *qp = to_efa_qp(ibvqp);
	int err = 0;

	if (!efa_is_dev(ibvqp->context->device)) {
		*bad_wr = wr;
		return EOPNOTSUPP;
	}

	for (; wr; wr = wr->next) {
		if (wr->exp_opcode == IBV_EXP_WR_UMR_FILL ||
		    wr->exp_opcode == IBV_EXP_WR_UMR_INVALIDATE)
			err = efa_post_umr(qp, wr);
		else
			err = efa_post_exp_wr(qp, wr);
		if (err) {
			verbs_err(to_verbs_context(ibvqp->context),
				  "QP %u: experimental WR opcode 0x%x: %s\n",
				  ibvqp->qp_num, wr->exp_opcode, strerror(err));
			*bad_wr = wr;
			return err;
		}
	}
	return 0;
}

static enum ibv_exp_wc_opcode efa_exp_wc_opcode(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_DRIVER1:
		return IBV_EXP_WC_UMR;
	case IBV_WC_RDMA_WRITE:
		return IBV_EXP_WC_RDMA_WRITE;
	case IBV_WC_RDMA_READ:
		return IBV_EXP_WC_RDMA_READ;
	case IBV_WC_RECV:
		return IBV_EXP_WC_RECV;
	case IBV_WC_RECV_RDMA_WITH_IMM:
		return IBV_EXP_WC_RECV_RDMA_WITH_IMM;
	default:
		return IBV_EXP_WC_SEND;
	}
}

static void efa_exp_wc_fill(struct ibv_exp_wc *x, const struct ibv_wc *wc)
{
	memset(x, 0, sizeof(*x));
	x->wr_id = wc->wr_id;
	x->status = wc->status;
	x->exp_opcode = efa_exp_wc_opcode(wc->opcode);
	x->vendor_err = wc->vendor_err;
	x->byte_len = wc->byte_len;
	x->imm_data = wc->imm_data;
	x->qp_num = wc->qp_num;
	x->src_qp = wc->src_qp;
	x->pkey_index = wc->pkey_index;
	x->slid = wc->slid;
	x->sl = wc->sl;
	x->dlid_path_bits = wc->dlid_path_bits;
	x->exp_wc_flags = wc->wc_flags & (IBV_WC_GRH | IBV_WC_WITH_IMM);
}

/*
 * Entries are wc_size bytes apart, which may be more than this library's
 * struct ibv_exp_wc, never less.
 */
int ibv_exp_poll_cq(struct ibv_cq *ibvcq, int num_entries,
		    struct ibv_exp_wc *wc, uint32_t wc_size)
{
	struct ibv_wc batch[16];
	int done = 0;

	if (!efa_is_dev(ibvcq->context->device))
		return -EOPNOTSUPP;
	if (num_entries < 0 || wc_size < sizeof(*wc))
		return -EINVAL;

	while (done < num_entries) {
		int want = num_entries - done, got;

		if (want > 16)
			want = 16;
		got = efa_poll_cq(ibvcq, want, batch);
		if (got < 0)
			return done ? done : got;
		for (int i = 0; i < got; i++)
			efa_exp_wc_fill((struct ibv_exp_wc *)((char *)wc +
							      (size_t)(done + i) * wc_size),
					&batch[i]);
		done += got;
		if (got < want)
			break;
	}
	return done;
}
