// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl() methods of the PD and what hangs off it: PD, MR and AH
 * destroy, the efa driver's MR query, and this project's indirect keys.
 */
#include <errno.h>

#include "uverbs/ioctl.h"

/* The handle of a destroy method; its object type is the method's. */
static int destroy_handle(struct bundle *b, uint16_t id,
			  enum sefa_obj_type type)
{
	return sefa_uobj_destroy(b->c, attr_handle(b, id), type);
}

static int method_pd_destroy(struct bundle *b)
{
	return destroy_handle(b, UVERBS_ATTR_DESTROY_PD_HANDLE, SEFA_OBJ_PD);
}

static int method_mr_destroy(struct bundle *b)
{
	return destroy_handle(b, UVERBS_ATTR_DESTROY_MR_HANDLE, SEFA_OBJ_MR);
}

static int method_ah_destroy(struct bundle *b)
{
	return destroy_handle(b, UVERBS_ATTR_DESTROY_AH_HANDLE, SEFA_OBJ_AH);
}

/*
 * The efa driver's MR query: interconnect ids, each with a validity bit.
 * The extended profile reports them; a device that does not know them
 * answers with no bit set, which is legal.
 */
static int method_efa_mr_query(struct bundle *b)
{
	struct sefa_mr *mr = sefa_mr_from_handle(b->c,
		attr_handle(b, EFA_IB_ATTR_QUERY_MR_HANDLE));
	uint16_t validity = 0, recv = 0, rdma_read = 0, rdma_recv = 0;
	int ret;

	if (!mr)
		return sefa_bad_handle(b->c, -ENOENT, SEFA_OBJ_MR,
				       attr_handle(b, EFA_IB_ATTR_QUERY_MR_HANDLE));
	if (mr->pd->dev->profile->mr_ic_ids) {
		validity = EFA_QUERY_MR_VALIDITY_RECV_IC_ID |
			   EFA_QUERY_MR_VALIDITY_RDMA_READ_IC_ID |
			   EFA_QUERY_MR_VALIDITY_RDMA_RECV_IC_ID;
		recv = mr->pd->dev->index;
		rdma_read = mr->pd->dev->index;
		rdma_recv = mr->pd->dev->index;
	}
	ret = attr_copy(b, EFA_IB_ATTR_QUERY_MR_RESP_RECV_IC_ID, &recv, 2);
	if (!ret)
		ret = attr_copy(b, EFA_IB_ATTR_QUERY_MR_RESP_RDMA_READ_IC_ID,
				&rdma_read, 2);
	if (!ret)
		ret = attr_copy(b, EFA_IB_ATTR_QUERY_MR_RESP_RDMA_RECV_IC_ID,
				&rdma_recv, 2);
	if (!ret)
		ret = attr_copy(b, EFA_IB_ATTR_QUERY_MR_RESP_IC_ID_VALIDITY,
				&validity, 2);
	return ret;
}

/*
 * This project's indirect keys (efa_ext_abi.h): a free key in a PD, that
 * UMR work requests fill.
 */
static int method_mr_create_indirect(struct bundle *b)
{
	struct sefa_pd *pd = sefa_pd_from_handle(b->c,
		attr_handle(b, SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE));
	uint64_t max_entries, access;
	struct sefa_mr *mr;
	int ret;

	if (!pd)
		return sefa_bad_handle(b->c, -ENOENT, SEFA_OBJ_PD,
				       attr_handle(b, SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE));
	ret = attr_in(b, SEFA_IB_ATTR_INDIRECT_MR_MAX_ENTRIES, 0, &max_entries);
	if (!ret)
		ret = attr_in(b, SEFA_IB_ATTR_INDIRECT_MR_ACCESS, 0, &access);
	if (ret)
		return ret;
	ret = sefa_mr_create_indirect(b->c, pd, max_entries, access, &mr);
	if (ret)
		return ret;
	ret = attr_copy(b, SEFA_IB_ATTR_INDIRECT_MR_RESP_LKEY, &mr->lkey,
			sizeof(mr->lkey));
	if (!ret)
		ret = attr_copy(b, SEFA_IB_ATTR_INDIRECT_MR_RESP_RKEY,
				&mr->lkey, sizeof(mr->lkey));
	if (!ret)
		ret = attr_copy(b, SEFA_IB_ATTR_INDIRECT_MR_RESP_MAX_ENTRIES,
				&mr->max_entries, sizeof(mr->max_entries));
	if (!ret)
		ret = attr_new_handle(b, SEFA_IB_ATTR_INDIRECT_MR_HANDLE,
				      mr->uobj.handle);
	if (ret)
		sefa_mr_dereg(mr);
	return ret;
}

static const struct attr_spec pd_destroy_attrs[] = {
	IDR(UVERBS_ATTR_DESTROY_PD_HANDLE, true),
};

static const struct attr_spec mr_destroy_attrs[] = {
	IDR(UVERBS_ATTR_DESTROY_MR_HANDLE, true),
};

static const struct attr_spec ah_destroy_attrs[] = {
	IDR(UVERBS_ATTR_DESTROY_AH_HANDLE, true),
};

static const struct attr_spec efa_mr_query_attrs[] = {
	IDR(EFA_IB_ATTR_QUERY_MR_HANDLE, true),
	OUT(EFA_IB_ATTR_QUERY_MR_RESP_IC_ID_VALIDITY, 2, 2, true),
	OUT(EFA_IB_ATTR_QUERY_MR_RESP_RECV_IC_ID, 2, 2, true),
	OUT(EFA_IB_ATTR_QUERY_MR_RESP_RDMA_READ_IC_ID, 2, 2, true),
	OUT(EFA_IB_ATTR_QUERY_MR_RESP_RDMA_RECV_IC_ID, 2, 2, true),
};

static const struct attr_spec mr_create_indirect_attrs[] = {
	IDR_NEW(SEFA_IB_ATTR_INDIRECT_MR_HANDLE),
	IDR(SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE, true),
	U32_IN(SEFA_IB_ATTR_INDIRECT_MR_MAX_ENTRIES, true),
	U32_IN(SEFA_IB_ATTR_INDIRECT_MR_ACCESS, true),
	OUT(SEFA_IB_ATTR_INDIRECT_MR_RESP_LKEY, 4, 4, true),
	OUT(SEFA_IB_ATTR_INDIRECT_MR_RESP_RKEY, 4, 4, true),
	OUT(SEFA_IB_ATTR_INDIRECT_MR_RESP_MAX_ENTRIES, 4, 4, true),
};

static const struct ioctl_method mr_table[] = {
	METHOD(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY,
	       method_pd_destroy, pd_destroy_attrs, false, true),
	METHOD(UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY,
	       method_mr_destroy, mr_destroy_attrs, false, true),
	METHOD(UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY,
	       method_ah_destroy, ah_destroy_attrs, false, true),
	METHOD(UVERBS_OBJECT_MR, EFA_IB_METHOD_MR_QUERY,
	       method_efa_mr_query, efa_mr_query_attrs, false, true),
	METHOD(UVERBS_OBJECT_MR, SEFA_IB_METHOD_MR_CREATE_INDIRECT,
	       method_mr_create_indirect, mr_create_indirect_attrs, false,
	       true),
};

const struct ioctl_methods ioctl_mr_methods = METHODS(mr_table);
