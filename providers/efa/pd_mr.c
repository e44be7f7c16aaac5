// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Protection domains and memory regions, and the MR query direct verb.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "efa.h"

struct ibv_pd *efa_alloc_pd(struct ibv_context *ibvctx)
{
	struct efa_alloc_pd_resp resp = {};
	struct ibv_alloc_pd cmd = {};
	struct efa_pd *pd;
	int err;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;

	err = ibv_cmd_alloc_pd(ibvctx, &pd->ibvpd, &cmd, sizeof(cmd),
			       &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(to_verbs_context(ibvctx), "ALLOC_PD failed: %s\n",
			  strerror(err));
		free(pd);
		errno = err;
		return NULL;
	}

	pd->pdn = resp.drv.pdn;
	return &pd->ibvpd;
}

int efa_dealloc_pd(struct ibv_pd *ibvpd)
{
	int err;

	err = ibv_cmd_dealloc_pd(ibvpd);
	if (err) {
		verbs_err(to_verbs_context(ibvpd->context),
			  "DEALLOC_PD failed: %s\n", strerror(err));
		return err;
	}

	free(to_efa_pd(ibvpd));
	return 0;
}

struct ibv_mr *efa_reg_mr(struct ibv_pd *ibvpd, void *addr, size_t len,
			  uint64_t hca_va, int access)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ibv_reg_mr cmd = {};
	struct efa_mr *mr;
	int err;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;

	err = ibv_cmd_reg_mr(ibvpd, addr, len, hca_va, access, &mr->vmr, &cmd,
			     sizeof(cmd), &resp, sizeof(resp));
	if (err) {
		verbs_err(to_verbs_context(ibvpd->context),
			  "REG_MR failed: %s\n", strerror(err));
		free(mr);
		errno = err;
		return NULL;
	}

	mr->iova = hca_va;
	return &mr->vmr.ibv_mr;
}

int efa_dereg_mr(struct verbs_mr *vmr)
{
	int err;

	err = ibv_cmd_dereg_mr(vmr);
	if (err) {
		verbs_err(to_verbs_context(vmr->ibv_mr.context),
			  "DEREG_MR failed: %s\n", strerror(err));
		return err;
	}

	free((struct efa_mr *)((char *)vmr - offsetof(struct efa_mr, vmr)));
	return 0;
}

static void efa_ioctl_attr_out(struct ib_uverbs_attr *attr, uint16_t id,
			       uint16_t *out)
{
	attr->attr_id = id;
	attr->len = sizeof(*out);
	attr->flags = UVERBS_ATTR_F_MANDATORY;
	attr->data = (uintptr_t)out;
}

/*
 * Built by hand rather than with libibverbs' command buffers, which are
 * not part of any ABI it exports.  The layout is the kernel's.
 */
void efa_query_mr_cmd_init(struct efa_query_mr_cmd *cmd, uint32_t mr_handle,
			   struct efa_query_mr_out *out)
{
	struct ib_uverbs_attr *attrs = cmd->attrs;

	memset(cmd, 0, sizeof(*cmd));
	memset(out, 0, sizeof(*out));

	cmd->hdr.length = sizeof(*cmd);
	cmd->hdr.object_id = UVERBS_OBJECT_MR;
	cmd->hdr.method_id = EFA_IB_METHOD_MR_QUERY;
	cmd->hdr.num_attrs = EFA_QUERY_MR_NUM_ATTRS;
	cmd->hdr.driver_id = RDMA_DRIVER_EFA;

	/* An object attribute carries its handle inline. */
	attrs[EFA_QUERY_MR_ATTR_HANDLE].attr_id = EFA_IB_ATTR_QUERY_MR_HANDLE;
	attrs[EFA_QUERY_MR_ATTR_HANDLE].flags = UVERBS_ATTR_F_MANDATORY;
	attrs[EFA_QUERY_MR_ATTR_HANDLE].data = mr_handle;

	efa_ioctl_attr_out(&attrs[EFA_QUERY_MR_ATTR_IC_ID_VALIDITY],
			   EFA_IB_ATTR_QUERY_MR_RESP_IC_ID_VALIDITY,
			   &out->ic_id_validity);
	efa_ioctl_attr_out(&attrs[EFA_QUERY_MR_ATTR_RECV_IC_ID],
			   EFA_IB_ATTR_QUERY_MR_RESP_RECV_IC_ID,
			   &out->recv_ic_id);
	efa_ioctl_attr_out(&attrs[EFA_QUERY_MR_ATTR_RDMA_READ_IC_ID],
			   EFA_IB_ATTR_QUERY_MR_RESP_RDMA_READ_IC_ID,
			   &out->rdma_read_ic_id);
	efa_ioctl_attr_out(&attrs[EFA_QUERY_MR_ATTR_RDMA_RECV_IC_ID],
			   EFA_IB_ATTR_QUERY_MR_RESP_RDMA_RECV_IC_ID,
			   &out->rdma_recv_ic_id);
}

/* An id counts only when the kernel marks it valid; the others stay 0. */
void efa_mr_attr_fill(struct efadv_mr_attr *attr,
		      const struct efa_query_mr_out *out)
{
	if (out->ic_id_validity & EFA_QUERY_MR_VALIDITY_RECV_IC_ID) {
		attr->recv_ic_id = out->recv_ic_id;
		attr->ic_id_validity |= EFADV_MR_ATTR_VALIDITY_RECV_IC_ID;
	}
	if (out->ic_id_validity & EFA_QUERY_MR_VALIDITY_RDMA_READ_IC_ID) {
		attr->rdma_read_ic_id = out->rdma_read_ic_id;
		attr->ic_id_validity |= EFADV_MR_ATTR_VALIDITY_RDMA_READ_IC_ID;
	}
	if (out->ic_id_validity & EFA_QUERY_MR_VALIDITY_RDMA_RECV_IC_ID) {
		attr->rdma_recv_ic_id = out->rdma_recv_ic_id;
		attr->ic_id_validity |= EFADV_MR_ATTR_VALIDITY_RDMA_RECV_IC_ID;
	}
}

/*
 * attr is output only: the caller's first inlen bytes are cleared, which
 * also answers comp_mask with 0.  A kernel without the method fails the
 * ioctl (ENOTTY, EOPNOTSUPP or EPROTONOSUPPORT), and that errno is
 * returned as it is, so callers can tell "not supported" apart.
 *
 * An inlen that ends inside rdma_recv_ic_id is accepted, as upstream does;
 * unlike upstream, nothing is written past inlen.
 */
int efadv_query_mr(struct ibv_mr *ibvmr, struct efadv_mr_attr *attr,
		   uint32_t inlen)
{
	struct verbs_context *vctx = to_verbs_context(ibvmr->context);
	struct efadv_mr_attr result = {};
	struct efa_query_mr_out out;
	struct efa_query_mr_cmd cmd;

	if (!efa_is_dev(ibvmr->context->device)) {
		verbs_err(vctx, "not an EFA device\n");
		return EOPNOTSUPP;
	}

	if (!vext_field_avail(struct efadv_mr_attr, rdma_recv_ic_id, inlen)) {
		verbs_err(vctx, "attr of %u bytes is too short\n", inlen);
		return EINVAL;
	}

	memset(attr, 0, inlen);

	efa_query_mr_cmd_init(&cmd, ibvmr->handle, &out);
	if (ioctl(ibvmr->context->cmd_fd, RDMA_VERBS_IOCTL, &cmd)) {
		int err = errno;

		verbs_err(vctx, "MR query failed: %s\n", strerror(err));
		return err;
	}

	efa_mr_attr_fill(&result, &out);
	memcpy(attr, &result,
	       inlen < sizeof(result) ? inlen : sizeof(result));
	return 0;
}
