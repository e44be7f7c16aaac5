// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl() methods of the QP: create and destroy.
 */
#include <errno.h>

#include "uverbs/ioctl.h"

static int method_qp_create(struct bundle *b)
{
	const struct ib_uverbs_attr *cap_attr =
		attr_get(b, UVERBS_ATTR_CREATE_QP_CAP);
	struct ib_uverbs_qp_cap cap;
	struct sefa_qp_params p = {};
	uint64_t type, flags;
	struct sefa_cmd cmd;
	struct sefa_qp *qp;
	struct sefa_ubuf u;
	uint32_t qpn;
	int ret, evfd;

	if (attr_get(b, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE) ||
	    attr_get(b, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE) ||
	    attr_get(b, UVERBS_ATTR_CREATE_QP_SOURCE_QPN))
		return sefa_refuse(b->c, -EOPNOTSUPP,
				   "XRC, RSS and source QPN are not supported");
	ret = attr_const(b, UVERBS_ATTR_CREATE_QP_TYPE, UINT8_MAX, &type);
	if (!ret)
		ret = attr_in(b, UVERBS_ATTR_CREATE_QP_USER_HANDLE, 0,
			      &p.user_handle);
	if (!ret)
		ret = attr_in(b, UVERBS_ATTR_CREATE_QP_FLAGS, 0, &flags);
	if (ret)
		return ret;
	attr_to_ubuf(cap_attr, &u);
	ret = sefa_ubuf_read(b->c, &u, &cap, sizeof(cap));
	if (ret)
		return ret;
	evfd = attr_fd(b, UVERBS_ATTR_CREATE_QP_EVENT_FD);
	if (evfd >= 0 && !sefa_is_async_fd(b->c, evfd))
		return attr_not_async_fd(b, evfd);

	p.type = type;
	p.pd = sefa_pd_from_handle(b->c,
		attr_handle(b, UVERBS_ATTR_CREATE_QP_PD_HANDLE));
	p.send_cq = sefa_cq_from_handle(b->c,
		attr_handle(b, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE));
	p.recv_cq = sefa_cq_from_handle(b->c,
		attr_handle(b, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE));
	p.has_srq = attr_get(b, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE);
	p.sq_sig_all = flags & IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	p.create_flags = flags & ~(uint64_t)IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	p.max_send_wr = cap.max_send_wr;
	p.max_recv_wr = cap.max_recv_wr;
	p.max_send_sge = cap.max_send_sge;
	p.max_recv_sge = cap.max_recv_sge;
	p.max_inline = cap.max_inline_data;

	attr_cmd(b, &cmd);
	ret = sefa_qp_create_cmd(&cmd, &p, &qp);
	if (ret)
		return ret;
	qpn = qp->qpn;
	ret = attr_copy(b, UVERBS_ATTR_CREATE_QP_RESP_CAP, &cap, sizeof(cap));
	if (!ret)
		ret = attr_copy(b, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &qpn,
				sizeof(qpn));
	if (!ret)
		ret = attr_new_handle(b, UVERBS_ATTR_CREATE_QP_HANDLE,
				      qp->uobj.handle);
	if (ret)
		sefa_qp_abort(qp);
	return ret;
}

static int method_qp_destroy(struct bundle *b)
{
	return ioctl_destroy_reporting(b, SEFA_OBJ_QP);
}

static const struct attr_spec qp_create_attrs[] = {
	IDR_NEW(UVERBS_ATTR_CREATE_QP_HANDLE),
	IDR(UVERBS_ATTR_CREATE_QP_XRCD_HANDLE, false),
	IDR(UVERBS_ATTR_CREATE_QP_PD_HANDLE, false),
	IDR(UVERBS_ATTR_CREATE_QP_SRQ_HANDLE, false),
	IDR(UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE, false),
	IDR(UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE, false),
	IDR(UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE, false),
	U64_IN(UVERBS_ATTR_CREATE_QP_USER_HANDLE, true),
	IN(UVERBS_ATTR_CREATE_QP_CAP, sizeof(struct ib_uverbs_qp_cap),
	   sizeof(struct ib_uverbs_qp_cap), true),
	CONST_IN(UVERBS_ATTR_CREATE_QP_TYPE, true),
	FLAGS_IN(UVERBS_ATTR_CREATE_QP_FLAGS, false),
	U32_IN(UVERBS_ATTR_CREATE_QP_SOURCE_QPN, false),
	FD_IN(UVERBS_ATTR_CREATE_QP_EVENT_FD),
	OUT(UVERBS_ATTR_CREATE_QP_RESP_CAP, sizeof(struct ib_uverbs_qp_cap),
	    sizeof(struct ib_uverbs_qp_cap), true),
	OUT(UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, 4, 4, true),
	UHW_ATTRS,
};

static const struct attr_spec qp_destroy_attrs[] = {
	IDR(UVERBS_ATTR_DESTROY_QP_HANDLE, true),
	OUT(UVERBS_ATTR_DESTROY_QP_RESP,
	    sizeof(struct ib_uverbs_destroy_qp_resp),
	    sizeof(struct ib_uverbs_destroy_qp_resp), true),
};

static const struct ioctl_method qp_table[] = {
	METHOD(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
	       method_qp_create, qp_create_attrs, true, true),
	METHOD(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY,
	       method_qp_destroy, qp_destroy_attrs, false, true),
};

const struct ioctl_methods ioctl_qp_methods = METHODS(qp_table);
