// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl() methods of the CQ: create, with its ring in the device's
 * memory or the caller's (the BUFFER attributes), and destroy.
 */
#include <errno.h>
#include <string.h>

#include "uverbs/ioctl.h"

/*
 * The CQ ring's BUFFER attributes as given, for sefa_cq_ext_get() to
 * judge: which are there, and the fd a RAW_FD, an int.
 */
static int get_cq_buf(const struct bundle *b, struct sefa_cq_buf_attrs *buf)
{
	const struct ib_uverbs_attr *fd = attr_get(b,
		UVERBS_ATTR_CREATE_CQ_BUFFER_FD);
	int ret;

	memset(buf, 0, sizeof(*buf));
	buf->has_va = attr_get(b, UVERBS_ATTR_CREATE_CQ_BUFFER_VA);
	buf->has_length = attr_get(b, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH);
	buf->has_offset = attr_get(b, UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET);
	buf->has_fd = fd;
	ret = attr_in(b, UVERBS_ATTR_CREATE_CQ_BUFFER_VA, 0, &buf->va);
	if (!ret)
		ret = attr_in(b, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, 0,
			      &buf->length);
	if (!ret)
		ret = attr_in(b, UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET, 0,
			      &buf->offset);
	if (ret)
		return ret;
	if (fd && ((int64_t)fd->data < INT32_MIN ||
		   (int64_t)fd->data > INT32_MAX))
		return sefa_refuse(b->c, -EINVAL, "CQ buffer fd %lld",
				   (long long)fd->data);
	buf->fd = fd ? (int)(int64_t)fd->data : -1;
	return 0;
}

static int method_cq_create(struct bundle *b)
{
	struct sefa_cq_params p = { .channel_fd = -1 };
	uint64_t cqe, vector, flags;
	struct sefa_cmd cmd;
	struct sefa_cq *cq;
	int ret, evfd;

	ret = attr_in(b, UVERBS_ATTR_CREATE_CQ_CQE, 0, &cqe);
	if (!ret)
		ret = attr_in(b, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 0,
			      &p.user_handle);
	if (!ret)
		ret = attr_in(b, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 0, &vector);
	if (!ret)
		ret = attr_in(b, UVERBS_ATTR_CREATE_CQ_FLAGS, 0, &flags);
	if (ret)
		return ret;
	if (cqe > UINT32_MAX || vector > UINT32_MAX || flags > UINT32_MAX)
		return sefa_refuse(b->c, -EINVAL,
				   "cqe, vector or flags beyond 32 bits");
	evfd = attr_fd(b, UVERBS_ATTR_CREATE_CQ_EVENT_FD);
	if (evfd >= 0 && !sefa_is_async_fd(b->c, evfd))
		return attr_not_async_fd(b, evfd);
	p.cqe = cqe;
	p.comp_vector = vector;
	p.flags = flags;
	p.channel_fd = attr_fd(b, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL);
	ret = get_cq_buf(b, &p.buf);
	if (ret)
		return ret;

	attr_cmd(b, &cmd);
	ret = sefa_cq_create(&cmd, &p, &cq);
	if (ret)
		return ret;
	ret = attr_copy(b, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &cq->depth,
			sizeof(cq->depth));
	if (!ret)
		ret = attr_new_handle(b, UVERBS_ATTR_CREATE_CQ_HANDLE,
				      cq->uobj.handle);
	if (ret) {
		struct ib_uverbs_destroy_cq_resp unused;

		sefa_cq_destroy(cq, &unused);
	}
	return ret;
}

/*
 * DESTROY of a CQ or a QP: the two methods' attributes are a handle and a
 * response of the events reported, in the same places.  The response is
 * cleared first, so that a bad address fails the method while the object
 * is still there.
 */
_Static_assert(UVERBS_ATTR_DESTROY_CQ_HANDLE ==
	       (int)UVERBS_ATTR_DESTROY_QP_HANDLE &&
	       UVERBS_ATTR_DESTROY_CQ_RESP == (int)UVERBS_ATTR_DESTROY_QP_RESP,
	       "CQ and QP destroy attributes share their ids");

int ioctl_destroy_reporting(struct bundle *b, enum sefa_obj_type type)
{
	uint32_t handle = attr_handle(b, UVERBS_ATTR_DESTROY_CQ_HANDLE);
	const struct ib_uverbs_attr *out = attr_get(b, UVERBS_ATTR_DESTROY_CQ_RESP);
	union {
		struct ib_uverbs_destroy_cq_resp cq;
		struct ib_uverbs_destroy_qp_resp qp;
	} resp = {};
	struct sefa_cq *cq = NULL;
	struct sefa_qp *qp = NULL;
	int ret;

	if (type == SEFA_OBJ_CQ)
		cq = sefa_cq_from_handle(b->c, handle);
	else
		qp = sefa_qp_from_handle(b->c, handle);
	if (!cq && !qp)
		return sefa_bad_handle(b->c, -ENOENT, type, handle);
	ret = sefa_clear_user(b->c, out->data, out->len);
	if (ret)
		return ret;
	if (qp) {
		resp.qp.events_reported = sefa_qp_destroy(qp);
		return attr_copy(b, UVERBS_ATTR_DESTROY_QP_RESP, &resp.qp,
				 sizeof(resp.qp));
	}
	ret = sefa_cq_destroy(cq, &resp.cq);
	return ret ? ret : attr_copy(b, UVERBS_ATTR_DESTROY_CQ_RESP, &resp.cq,
				     sizeof(resp.cq));
}

static int method_cq_destroy(struct bundle *b)
{
	return ioctl_destroy_reporting(b, SEFA_OBJ_CQ);
}

static const struct attr_spec cq_create_attrs[] = {
	IDR_NEW(UVERBS_ATTR_CREATE_CQ_HANDLE),
	U32_IN(UVERBS_ATTR_CREATE_CQ_CQE, true),
	U64_IN(UVERBS_ATTR_CREATE_CQ_USER_HANDLE, true),
	FD_IN(UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL),
	U32_IN(UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, true),
	FLAGS_IN(UVERBS_ATTR_CREATE_CQ_FLAGS, false),
	OUT(UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4, 4, true),
	FD_IN(UVERBS_ATTR_CREATE_CQ_EVENT_FD),
	U64_IN(UVERBS_ATTR_CREATE_CQ_BUFFER_VA, false),
	U64_IN(UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, false),
	FD_IN(UVERBS_ATTR_CREATE_CQ_BUFFER_FD),
	U64_IN(UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET, false),
	UHW_ATTRS,
};

static const struct attr_spec cq_destroy_attrs[] = {
	IDR(UVERBS_ATTR_DESTROY_CQ_HANDLE, true),
	OUT(UVERBS_ATTR_DESTROY_CQ_RESP,
	    sizeof(struct ib_uverbs_destroy_cq_resp),
	    sizeof(struct ib_uverbs_destroy_cq_resp), true),
};

static const struct ioctl_method cq_table[] = {
	METHOD(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
	       method_cq_create, cq_create_attrs, true, true),
	METHOD(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY,
	       method_cq_destroy, cq_destroy_attrs, false, true),
};

const struct ioctl_methods ioctl_cq_methods = METHODS(cq_table);
