// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl() ABI of ib_uverbs (RDMA_VERBS_IOCTL): the header and attribute
 * rules of the kernel's uverbs_ioctl.c, and the methods libibverbs 44 and 64
 * issue for the device-level verbs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

#include "efa/efa_abi_compat.h"
#include "efa/efa_ext_abi.h"
#include "uverbs/uverbs.h"

#define IOCTL_PAGE_SIZE	4096
#define MAX_ATTRS	((IOCTL_PAGE_SIZE - sizeof(struct ib_uverbs_ioctl_hdr)) / \
			 sizeof(struct ib_uverbs_attr))

enum attr_type {
	ATTR_PTR_IN,	/* also UVERBS_ATTR_CONST_IN and flags */
	ATTR_PTR_OUT,
	ATTR_FD_NEW,
	ATTR_FD_IN,
	ATTR_IDR,	/* an existing object, by handle */
	ATTR_IDR_NEW,	/* the handle of the object made is written back */
};

struct attr_spec {
	uint16_t id;
	uint8_t type;
	bool mandatory;
	uint16_t min_len;
	uint16_t max_len;
};

struct bundle;

struct ioctl_method {
	uint16_t object;
	uint16_t method;
	bool has_udata;
	bool needs_ucontext;
	int (*handler)(struct bundle *b);
	const struct attr_spec *attrs;
	unsigned int nattrs;
};

struct bundle {
	struct sefa_client *c;
	const struct ioctl_method *m;
	uint64_t user_attrs;	/* where the attribute array lives */
	unsigned int nattrs;
	struct ib_uverbs_attr uattr[MAX_ATTRS];
	/* for each spec entry, its index in uattr[], or -1 */
	int present[20];
};

#define IN(_id, _min, _max, _mand) \
	{ .id = _id, .type = ATTR_PTR_IN, .mandatory = _mand, \
	  .min_len = _min, .max_len = _max }
#define OUT(_id, _min, _max, _mand) \
	{ .id = _id, .type = ATTR_PTR_OUT, .mandatory = _mand, \
	  .min_len = _min, .max_len = _max }
#define CONST_IN(_id, _mand)	IN(_id, 0, sizeof(uint64_t), _mand)
#define FLAGS_IN(_id, _mand)	IN(_id, sizeof(uint32_t), sizeof(uint64_t), _mand)
#define UHW_ATTRS \
	IN(UVERBS_ATTR_UHW_IN, 0, UINT16_MAX, false), \
	OUT(UVERBS_ATTR_UHW_OUT, 0, UINT16_MAX, false)

static const struct attr_spec *attr_spec(const struct bundle *b, uint16_t id,
					 int *slot)
{
	unsigned int i;

	for (i = 0; i < b->m->nattrs; i++) {
		if (b->m->attrs[i].id == id) {
			*slot = i;
			return &b->m->attrs[i];
		}
	}
	return NULL;
}

static const struct ib_uverbs_attr *get_attr(const struct bundle *b,
					     uint16_t id)
{
	int slot;

	if (!attr_spec(b, id, &slot) || b->present[slot] < 0)
		return NULL;
	return &b->uattr[b->present[slot]];
}

static void attr_to_ubuf(const struct ib_uverbs_attr *a, struct sefa_ubuf *u)
{
	memset(u, 0, sizeof(*u));
	if (!a)
		return;
	u->len = a->len;
	if (a->len <= sizeof(a->data)) {
		/* PTR_IN this short travels inside the attribute */
		u->is_inline = true;
		memcpy(u->inline_data, &a->data, a->len);
	}
	u->addr = a->data;
}

/* uverbs_get_const(): the value of a CONST_IN attribute. */
static int get_const(const struct bundle *b, uint16_t id, uint64_t max,
		     uint64_t *val)
{
	const struct ib_uverbs_attr *a = get_attr(b, id);

	if (!a)
		return -ENOENT;
	*val = 0;
	memcpy(val, &a->data, a->len < 8 ? a->len : 8);
	if (*val > max)
		return sefa_refuse(b->c, -EINVAL,
				   "attribute %#x: %llu is above %llu", id,
				   (unsigned long long)*val,
				   (unsigned long long)max);
	return 0;
}

static int bad_attr_len(const struct bundle *b, const struct ib_uverbs_attr *a)
{
	return sefa_refuse(b->c, -EINVAL, "attribute %#x: bad length %u",
			   a->attr_id, a->len);
}

/* uverbs_get_flags32() with nothing allowed: the flags must be zero. */
static int check_no_flags(const struct bundle *b, uint16_t id)
{
	const struct ib_uverbs_attr *a = get_attr(b, id);
	uint64_t flags = 0;

	if (!a)
		return 0;
	if (a->len != 4 && a->len != 8)
		return bad_attr_len(b, a);
	memcpy(&flags, &a->data, a->len);
	return flags ? sefa_refuse(b->c, -EINVAL,
				   "attribute %#x: flags %#llx not supported",
				   id, (unsigned long long)flags) : 0;
}

/* Tell userspace an output was written (UVERBS_ATTR_F_VALID_OUTPUT). */
static int set_output(struct bundle *b, const struct ib_uverbs_attr *a)
{
	uint16_t flags = a->flags | UVERBS_ATTR_F_VALID_OUTPUT;
	uint64_t at = b->user_attrs + (a - b->uattr) * sizeof(*a) +
		      offsetof(struct ib_uverbs_attr, flags);

	return sefa_copy_to_user(b->c, at, &flags, sizeof(flags));
}

/* uverbs_copy_to(): as much of @src as the attribute has room for. */
static int copy_to(struct bundle *b, uint16_t id, const void *src, size_t len)
{
	const struct ib_uverbs_attr *a = get_attr(b, id);
	int ret;

	if (!a)
		return -ENOENT;
	ret = sefa_copy_to_user(b->c, a->data, src, len < a->len ? len : a->len);
	if (ret)
		return ret;
	return set_output(b, a);
}

/* uverbs_copy_to_struct_or_zero(): also clear what @src does not cover. */
static int copy_to_struct_or_zero(struct bundle *b, uint16_t id,
				  const void *src, size_t len)
{
	const struct ib_uverbs_attr *a = get_attr(b, id);
	int ret;

	if (!a)
		return -ENOENT;
	if (a->len > len) {
		ret = sefa_clear_user(b->c, a->data + len, a->len - len);
		if (ret)
			return ret;
	}
	return copy_to(b, id, src, len);
}

/* Where the kernel writes back into the attribute itself (new ids, fds). */
static uint64_t attr_data_addr(const struct bundle *b,
			       const struct ib_uverbs_attr *a)
{
	return b->user_attrs + (a - b->uattr) * sizeof(*a) +
	       offsetof(struct ib_uverbs_attr, data);
}

/* The handle an IDR attribute names; absent or too large, no object's. */
static uint32_t get_handle(const struct bundle *b, uint16_t id)
{
	const struct ib_uverbs_attr *a = get_attr(b, id);

	return a && a->data <= UINT32_MAX ? a->data : SEFA_NO_HANDLE;
}

/* A u32 or u64 PTR_IN; absent means @def. */
static int get_in(const struct bundle *b, uint16_t id, uint64_t def,
		  uint64_t *val)
{
	const struct ib_uverbs_attr *a = get_attr(b, id);

	*val = def;
	if (!a)
		return 0;
	if (a->len != 4 && a->len != 8)
		return bad_attr_len(b, a);
	*val = 0;
	memcpy(val, &a->data, a->len);
	return 0;
}

static int get_fd(const struct bundle *b, uint16_t id)
{
	const struct ib_uverbs_attr *a = get_attr(b, id);

	return a ? (int)(int64_t)a->data : -1;
}

static int not_async_fd(const struct bundle *b, int fd)
{
	return sefa_refuse(b->c, -EBADF, "fd %d is not the async event file",
			   fd);
}

/* The ucore and udata of an ioctl: only UHW carries driver data. */
static void bundle_cmd(const struct bundle *b, struct sefa_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->c = b->c;
	cmd->from_ioctl = true;
	attr_to_ubuf(get_attr(b, UVERBS_ATTR_UHW_IN), &cmd->udata_in);
	attr_to_ubuf(get_attr(b, UVERBS_ATTR_UHW_OUT), &cmd->udata_out);
	cmd->udata_out.is_inline = false;
}

static int set_new_handle(struct bundle *b, uint16_t id, uint32_t handle)
{
	uint64_t v = handle;

	return sefa_copy_to_user(b->c, attr_data_addr(b, get_attr(b, id)), &v,
				 sizeof(v));
}

static int is_copy_err(int ret)
{
	return ret && ret != -ENOENT;
}

static int method_invoke_write(struct bundle *b)
{
	struct sefa_cmd cmd;
	uint64_t command;
	int ret;

	ret = get_const(b, UVERBS_ATTR_WRITE_CMD, UINT32_MAX, &command);
	if (ret)
		return ret;
	bundle_cmd(b, &cmd);
	attr_to_ubuf(get_attr(b, UVERBS_ATTR_CORE_IN), &cmd.core_in);
	attr_to_ubuf(get_attr(b, UVERBS_ATTR_CORE_OUT), &cmd.core_out);
	cmd.core_out.is_inline = false;
	return sefa_invoke_write(&cmd, command);
}

static int method_get_context(struct bundle *b)
{
	struct sefa_cmd cmd;
	uint32_t ncomp = b->c->dev->num_comp_vectors;
	uint64_t core_support = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
	int ret;

	ret = copy_to(b, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &ncomp,
		      sizeof(ncomp));
	if (is_copy_err(ret))
		return ret;
	ret = copy_to(b, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &core_support,
		      sizeof(core_support));
	if (is_copy_err(ret))
		return ret;

	if (b->c->has_ucontext)
		return sefa_refuse(b->c, -EINVAL, "the file has a context already");
	bundle_cmd(b, &cmd);
	ret = efa_alloc_ucontext(&cmd);
	if (ret)
		return ret;
	b->c->has_ucontext = true;
	return 0;
}

static int method_query_port(struct bundle *b)
{
	struct ib_uverbs_query_port_resp_ex resp = {};
	uint64_t port;
	int ret;

	ret = get_const(b, UVERBS_ATTR_QUERY_PORT_PORT_NUM, UINT8_MAX, &port);
	if (ret)
		return ret;
	ret = efa_fill_port_attr(b->c->dev, port, &resp.legacy_resp);
	if (ret)
		return ret;
	return copy_to_struct_or_zero(b, UVERBS_ATTR_QUERY_PORT_RESP, &resp,
				      sizeof(resp));
}

static int method_query_port_speed(struct bundle *b)
{
	uint64_t port, speed;
	int ret;

	ret = get_const(b, UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, UINT32_MAX,
			&port);
	if (ret)
		return ret;
	if (efa_port_speed(b->c->dev, port, &speed))
		return sefa_refuse(b->c, -EINVAL, "port speed of port %llu",
				   (unsigned long long)port);
	return copy_to(b, UVERBS_ATTR_QUERY_PORT_SPEED_RESP, &speed,
		       sizeof(speed));
}

static void fill_gid_entry(const struct sefa_device *dev, uint32_t port,
			   uint32_t index, struct ib_uverbs_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->gid, dev->gid, sizeof(e->gid));
	e->gid_index = index;
	e->port_num = port;
	e->gid_type = IB_UVERBS_GID_TYPE_IB;
}

static int method_query_gid_entry(struct bundle *b)
{
	struct ib_uverbs_gid_entry entry;
	uint64_t port, index;
	int ret;

	ret = get_const(b, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, UINT32_MAX,
			&port);
	if (ret)
		return ret;
	ret = get_const(b, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, UINT32_MAX,
			&index);
	if (ret)
		return ret;
	ret = check_no_flags(b, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS);
	if (ret)
		return ret;
	if (port != 1 || index >= SEFA_GID_TBL_LEN)
		return sefa_refuse(b->c, -EINVAL, "no GID %llu on port %llu",
				   (unsigned long long)index,
				   (unsigned long long)port);

	fill_gid_entry(b->c->dev, port, index, &entry);
	return copy_to_struct_or_zero(b, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
				      &entry, sizeof(entry));
}

static int method_query_gid_table(struct bundle *b)
{
	const struct ib_uverbs_attr *out;
	struct ib_uverbs_gid_entry entry;
	uint64_t entry_size, max_entries, num = 0, i;
	int ret;

	ret = get_const(b, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, UINT16_MAX,
			&entry_size);
	if (ret)
		return ret;
	ret = check_no_flags(b, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS);
	if (ret)
		return ret;
	out = get_attr(b, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES);
	if (!entry_size || out->len % entry_size)
		return sefa_refuse(b->c, -EINVAL,
				   "entries of %llu bytes do not fill %u bytes",
				   (unsigned long long)entry_size, out->len);
	max_entries = out->len / entry_size;
	if (max_entries < SEFA_GID_TBL_LEN)
		return sefa_refuse(b->c, -EINVAL,
				   "room for %llu GIDs, the table has %u",
				   (unsigned long long)max_entries,
				   SEFA_GID_TBL_LEN);

	for (i = 0; i < SEFA_GID_TBL_LEN; i++, num++) {
		uint64_t at = out->data + i * entry_size;
		size_t n = entry_size < sizeof(entry) ? entry_size :
							 sizeof(entry);

		fill_gid_entry(b->c->dev, 1, i, &entry);
		ret = sefa_copy_to_user(b->c, at, &entry, n);
		if (!ret && entry_size > n)
			ret = sefa_clear_user(b->c, at + n, entry_size - n);
		if (ret)
			return ret;
	}
	ret = set_output(b, out);
	if (ret)
		return ret;
	return copy_to(b, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num,
		       sizeof(num));
}

static int method_async_event_alloc(struct bundle *b)
{
	uint64_t at = attr_data_addr(b,
		get_attr(b, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE));
	int64_t fd64;
	int fd;
	int ret;

	/* The destination must take the number before the fd exists. */
	ret = sefa_clear_user(b->c, at, sizeof(fd64));
	if (ret)
		return ret;
	ret = sefa_alloc_async_fd(b->c, &fd);
	if (ret)
		return ret;
	fd64 = fd;
	return sefa_copy_to_user(b->c, at, &fd64, sizeof(fd64));
}

/* The handle of a destroy method; its object type is the method's. */
static int destroy_handle(struct bundle *b, uint16_t id,
			  enum sefa_obj_type type)
{
	return sefa_uobj_destroy(b->c, get_handle(b, id), type);
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
 * The CQ ring's BUFFER attributes as given, for sefa_cq_ext_get() to
 * judge: which are there, and the fd a RAW_FD, an int.
 */
static int get_cq_buf(const struct bundle *b, struct sefa_cq_buf_attrs *buf)
{
	const struct ib_uverbs_attr *fd = get_attr(b,
		UVERBS_ATTR_CREATE_CQ_BUFFER_FD);
	int ret;

	memset(buf, 0, sizeof(*buf));
	buf->has_va = get_attr(b, UVERBS_ATTR_CREATE_CQ_BUFFER_VA);
	buf->has_length = get_attr(b, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH);
	buf->has_offset = get_attr(b, UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET);
	buf->has_fd = fd;
	ret = get_in(b, UVERBS_ATTR_CREATE_CQ_BUFFER_VA, 0, &buf->va);
	if (!ret)
		ret = get_in(b, UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH, 0,
			     &buf->length);
	if (!ret)
		ret = get_in(b, UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET, 0,
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

	ret = get_in(b, UVERBS_ATTR_CREATE_CQ_CQE, 0, &cqe);
	if (!ret)
		ret = get_in(b, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 0,
			     &p.user_handle);
	if (!ret)
		ret = get_in(b, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 0, &vector);
	if (!ret)
		ret = get_in(b, UVERBS_ATTR_CREATE_CQ_FLAGS, 0, &flags);
	if (ret)
		return ret;
	if (cqe > UINT32_MAX || vector > UINT32_MAX || flags > UINT32_MAX)
		return sefa_refuse(b->c, -EINVAL,
				   "cqe, vector or flags beyond 32 bits");
	evfd = get_fd(b, UVERBS_ATTR_CREATE_CQ_EVENT_FD);
	if (evfd >= 0 && !sefa_is_async_fd(b->c, evfd))
		return not_async_fd(b, evfd);
	p.cqe = cqe;
	p.comp_vector = vector;
	p.flags = flags;
	p.channel_fd = get_fd(b, UVERBS_ATTR_CREATE_CQ_COMP_CHANNEL);
	ret = get_cq_buf(b, &p.buf);
	if (ret)
		return ret;

	bundle_cmd(b, &cmd);
	ret = sefa_cq_create(&cmd, &p, &cq);
	if (ret)
		return ret;
	ret = copy_to(b, UVERBS_ATTR_CREATE_CQ_RESP_CQE, &cq->depth,
		      sizeof(cq->depth));
	if (!ret)
		ret = set_new_handle(b, UVERBS_ATTR_CREATE_CQ_HANDLE,
				     cq->uobj.handle);
	if (ret) {
		struct ib_uverbs_destroy_cq_resp unused;

		sefa_cq_destroy(cq, &unused);
	}
	return ret;
}

static int method_cq_destroy(struct bundle *b)
{
	struct sefa_cq *cq = sefa_cq_from_handle(b->c,
		get_handle(b, UVERBS_ATTR_DESTROY_CQ_HANDLE));
	const struct ib_uverbs_attr *out = get_attr(b, UVERBS_ATTR_DESTROY_CQ_RESP);
	struct ib_uverbs_destroy_cq_resp resp;
	int ret;

	if (!cq)
		return sefa_bad_handle(b->c, -ENOENT, SEFA_OBJ_CQ,
				       get_handle(b, UVERBS_ATTR_DESTROY_CQ_HANDLE));
	ret = sefa_clear_user(b->c, out->data, out->len);
	if (!ret)
		ret = sefa_cq_destroy(cq, &resp);
	if (!ret)
		ret = copy_to(b, UVERBS_ATTR_DESTROY_CQ_RESP, &resp,
			      sizeof(resp));
	return ret;
}

static int method_qp_create(struct bundle *b)
{
	const struct ib_uverbs_attr *cap_attr =
		get_attr(b, UVERBS_ATTR_CREATE_QP_CAP);
	struct ib_uverbs_qp_cap cap;
	struct sefa_qp_params p = {};
	uint64_t type, flags;
	struct sefa_cmd cmd;
	struct sefa_qp *qp;
	struct sefa_ubuf u;
	uint32_t qpn;
	int ret, evfd;

	if (get_attr(b, UVERBS_ATTR_CREATE_QP_XRCD_HANDLE) ||
	    get_attr(b, UVERBS_ATTR_CREATE_QP_IND_TABLE_HANDLE) ||
	    get_attr(b, UVERBS_ATTR_CREATE_QP_SOURCE_QPN))
		return sefa_refuse(b->c, -EOPNOTSUPP,
				   "XRC, RSS and source QPN are not supported");
	ret = get_const(b, UVERBS_ATTR_CREATE_QP_TYPE, UINT8_MAX, &type);
	if (!ret)
		ret = get_in(b, UVERBS_ATTR_CREATE_QP_USER_HANDLE, 0,
			     &p.user_handle);
	if (!ret)
		ret = get_in(b, UVERBS_ATTR_CREATE_QP_FLAGS, 0, &flags);
	if (ret)
		return ret;
	attr_to_ubuf(cap_attr, &u);
	ret = sefa_ubuf_read(b->c, &u, &cap, sizeof(cap));
	if (ret)
		return ret;
	evfd = get_fd(b, UVERBS_ATTR_CREATE_QP_EVENT_FD);
	if (evfd >= 0 && !sefa_is_async_fd(b->c, evfd))
		return not_async_fd(b, evfd);

	p.type = type;
	p.pd = sefa_pd_from_handle(b->c,
		get_handle(b, UVERBS_ATTR_CREATE_QP_PD_HANDLE));
	p.send_cq = sefa_cq_from_handle(b->c,
		get_handle(b, UVERBS_ATTR_CREATE_QP_SEND_CQ_HANDLE));
	p.recv_cq = sefa_cq_from_handle(b->c,
		get_handle(b, UVERBS_ATTR_CREATE_QP_RECV_CQ_HANDLE));
	p.has_srq = get_attr(b, UVERBS_ATTR_CREATE_QP_SRQ_HANDLE);
	p.sq_sig_all = flags & IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	p.create_flags = flags & ~(uint64_t)IB_UVERBS_QP_CREATE_SQ_SIG_ALL;
	p.max_send_wr = cap.max_send_wr;
	p.max_recv_wr = cap.max_recv_wr;
	p.max_send_sge = cap.max_send_sge;
	p.max_recv_sge = cap.max_recv_sge;
	p.max_inline = cap.max_inline_data;

	bundle_cmd(b, &cmd);
	ret = sefa_qp_create_cmd(&cmd, &p, &qp);
	if (ret)
		return ret;
	qpn = qp->qpn;
	ret = copy_to(b, UVERBS_ATTR_CREATE_QP_RESP_CAP, &cap, sizeof(cap));
	if (!ret)
		ret = copy_to(b, UVERBS_ATTR_CREATE_QP_RESP_QP_NUM, &qpn,
			      sizeof(qpn));
	if (!ret)
		ret = set_new_handle(b, UVERBS_ATTR_CREATE_QP_HANDLE,
				     qp->uobj.handle);
	if (ret)
		sefa_qp_abort(qp);
	return ret;
}

static int method_qp_destroy(struct bundle *b)
{
	struct sefa_qp *qp = sefa_qp_from_handle(b->c,
		get_handle(b, UVERBS_ATTR_DESTROY_QP_HANDLE));
	const struct ib_uverbs_attr *out = get_attr(b, UVERBS_ATTR_DESTROY_QP_RESP);
	struct ib_uverbs_destroy_qp_resp resp = {};
	int ret;

	if (!qp)
		return sefa_bad_handle(b->c, -ENOENT, SEFA_OBJ_QP,
				       get_handle(b, UVERBS_ATTR_DESTROY_QP_HANDLE));
	ret = sefa_clear_user(b->c, out->data, out->len);
	if (ret)
		return ret;
	resp.events_reported = sefa_qp_destroy(qp);
	return copy_to(b, UVERBS_ATTR_DESTROY_QP_RESP, &resp, sizeof(resp));
}

/*
 * The efa driver's MR query: interconnect ids, each with a validity bit.
 * The extended profile reports them; a device that does not know them
 * answers with no bit set, which is legal.
 */
static int method_efa_mr_query(struct bundle *b)
{
	struct sefa_mr *mr = sefa_mr_from_handle(b->c,
		get_handle(b, EFA_IB_ATTR_QUERY_MR_HANDLE));
	uint16_t validity = 0, recv = 0, rdma_read = 0, rdma_recv = 0;
	int ret;

	if (!mr)
		return sefa_bad_handle(b->c, -ENOENT, SEFA_OBJ_MR,
				       get_handle(b, EFA_IB_ATTR_QUERY_MR_HANDLE));
	if (mr->pd->dev->profile->mr_ic_ids) {
		validity = EFA_QUERY_MR_VALIDITY_RECV_IC_ID |
			   EFA_QUERY_MR_VALIDITY_RDMA_READ_IC_ID |
			   EFA_QUERY_MR_VALIDITY_RDMA_RECV_IC_ID;
		recv = mr->pd->dev->index;
		rdma_read = mr->pd->dev->index;
		rdma_recv = mr->pd->dev->index;
	}
	ret = copy_to(b, EFA_IB_ATTR_QUERY_MR_RESP_RECV_IC_ID, &recv, 2);
	if (!ret)
		ret = copy_to(b, EFA_IB_ATTR_QUERY_MR_RESP_RDMA_READ_IC_ID,
			      &rdma_read, 2);
	if (!ret)
		ret = copy_to(b, EFA_IB_ATTR_QUERY_MR_RESP_RDMA_RECV_IC_ID,
			      &rdma_recv, 2);
	if (!ret)
		ret = copy_to(b, EFA_IB_ATTR_QUERY_MR_RESP_IC_ID_VALIDITY,
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
		get_handle(b, SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE));
	uint64_t max_entries, access;
	struct sefa_mr *mr;
	int ret;

	if (!pd)
		return sefa_bad_handle(b->c, -ENOENT, SEFA_OBJ_PD,
				       get_handle(b, SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE));
	ret = get_in(b, SEFA_IB_ATTR_INDIRECT_MR_MAX_ENTRIES, 0, &max_entries);
	if (!ret)
		ret = get_in(b, SEFA_IB_ATTR_INDIRECT_MR_ACCESS, 0, &access);
	if (ret)
		return ret;
	ret = sefa_mr_create_indirect(b->c, pd, max_entries, access, &mr);
	if (ret)
		return ret;
	ret = copy_to(b, SEFA_IB_ATTR_INDIRECT_MR_RESP_LKEY, &mr->lkey,
		      sizeof(mr->lkey));
	if (!ret)
		ret = copy_to(b, SEFA_IB_ATTR_INDIRECT_MR_RESP_RKEY, &mr->lkey,
			      sizeof(mr->lkey));
	if (!ret)
		ret = copy_to(b, SEFA_IB_ATTR_INDIRECT_MR_RESP_MAX_ENTRIES,
			      &mr->max_entries, sizeof(mr->max_entries));
	if (!ret)
		ret = set_new_handle(b, SEFA_IB_ATTR_INDIRECT_MR_HANDLE,
				     mr->uobj.handle);
	if (ret)
		sefa_mr_dereg(mr);
	return ret;
}

static const struct attr_spec invoke_write_attrs[] = {
	CONST_IN(UVERBS_ATTR_WRITE_CMD, true),
	IN(UVERBS_ATTR_CORE_IN, sizeof(uint32_t), UINT16_MAX, false),
	OUT(UVERBS_ATTR_CORE_OUT, 0, UINT16_MAX, false),
	UHW_ATTRS,
};

static const struct attr_spec get_context_attrs[] = {
	OUT(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, 4, 4, false),
	OUT(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, 8, 8, false),
	UHW_ATTRS,
};

static const struct attr_spec query_port_attrs[] = {
	CONST_IN(UVERBS_ATTR_QUERY_PORT_PORT_NUM, true),
	OUT(UVERBS_ATTR_QUERY_PORT_RESP,
	    sizeof(struct ib_uverbs_query_port_resp_ex),
	    sizeof(struct ib_uverbs_query_port_resp_ex), true),
};

static const struct attr_spec query_port_speed_attrs[] = {
	CONST_IN(UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, true),
	OUT(UVERBS_ATTR_QUERY_PORT_SPEED_RESP, sizeof(uint64_t),
	    sizeof(uint64_t), true),
};

static const struct attr_spec query_gid_entry_attrs[] = {
	CONST_IN(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, true),
	CONST_IN(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, true),
	FLAGS_IN(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, true),
	OUT(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
	    sizeof(struct ib_uverbs_gid_entry),
	    sizeof(struct ib_uverbs_gid_entry), true),
};

static const struct attr_spec query_gid_table_attrs[] = {
	CONST_IN(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, true),
	FLAGS_IN(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, false),
	OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, 0, UINT16_MAX, true),
	OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, 8, 8, true),
};

static const struct attr_spec async_event_alloc_attrs[] = {
	{ .id = UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, .type = ATTR_FD_NEW,
	  .mandatory = true },
};

#define IDR(_id, _mand)	{ .id = _id, .type = ATTR_IDR, .mandatory = _mand }
#define IDR_NEW(_id)	{ .id = _id, .type = ATTR_IDR_NEW, .mandatory = true }
#define FD_IN(_id)	{ .id = _id, .type = ATTR_FD_IN }
#define U32_IN(_id, _mand)	IN(_id, 4, 4, _mand)
#define U64_IN(_id, _mand)	IN(_id, 8, 8, _mand)

static const struct attr_spec pd_destroy_attrs[] = {
	IDR(UVERBS_ATTR_DESTROY_PD_HANDLE, true),
};

static const struct attr_spec mr_destroy_attrs[] = {
	IDR(UVERBS_ATTR_DESTROY_MR_HANDLE, true),
};

static const struct attr_spec ah_destroy_attrs[] = {
	IDR(UVERBS_ATTR_DESTROY_AH_HANDLE, true),
};

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

#define METHOD(_obj, _meth, _fn, _attrs, _udata, _uctx) {		\
	.object = _obj, .method = _meth, .handler = _fn,		\
	.attrs = _attrs, .nattrs = sizeof(_attrs) / sizeof(_attrs[0]),	\
	.has_udata = _udata, .needs_ucontext = _uctx }

static const struct ioctl_method methods[] = {
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE,
	       method_invoke_write, invoke_write_attrs, true, false),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT,
	       method_get_context, get_context_attrs, true, false),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT,
	       method_query_port, query_port_attrs, false, true),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT_SPEED,
	       method_query_port_speed, query_port_speed_attrs, false, true),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY,
	       method_query_gid_entry, query_gid_entry_attrs, false, true),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE,
	       method_query_gid_table, query_gid_table_attrs, false, true),
	METHOD(UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC,
	       method_async_event_alloc, async_event_alloc_attrs, false, true),
	METHOD(UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY,
	       method_pd_destroy, pd_destroy_attrs, false, true),
	METHOD(UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY,
	       method_mr_destroy, mr_destroy_attrs, false, true),
	METHOD(UVERBS_OBJECT_AH, UVERBS_METHOD_AH_DESTROY,
	       method_ah_destroy, ah_destroy_attrs, false, true),
	METHOD(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE,
	       method_cq_create, cq_create_attrs, true, true),
	METHOD(UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY,
	       method_cq_destroy, cq_destroy_attrs, false, true),
	METHOD(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_CREATE,
	       method_qp_create, qp_create_attrs, true, true),
	METHOD(UVERBS_OBJECT_QP, UVERBS_METHOD_QP_DESTROY,
	       method_qp_destroy, qp_destroy_attrs, false, true),
	METHOD(UVERBS_OBJECT_MR, EFA_IB_METHOD_MR_QUERY,
	       method_efa_mr_query, efa_mr_query_attrs, false, true),
	METHOD(UVERBS_OBJECT_MR, SEFA_IB_METHOD_MR_CREATE_INDIRECT,
	       method_mr_create_indirect, mr_create_indirect_attrs, false,
	       true),
};

static const struct ioctl_method *find_method(uint16_t object,
					      uint16_t method)
{
	size_t i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (methods[i].object == object && methods[i].method == method)
			return &methods[i];
	return NULL;
}

static int reserved_set(const struct bundle *b, const struct ib_uverbs_attr *a)
{
	return sefa_refuse(b->c, -EINVAL, "attribute %#x: reserved bits set",
			   a->attr_id);
}

/* uverbs_process_attr() for the attribute types this device uses. */
static int check_attr(const struct bundle *b, const struct attr_spec *s,
		      const struct ib_uverbs_attr *a)
{
	switch (s->type) {
	case ATTR_PTR_IN:
	case ATTR_PTR_OUT:
		if (a->len < s->min_len || a->len > s->max_len)
			return sefa_refuse(b->c, -EINVAL,
					   "attribute %#x: length %u not within %u..%u",
					   a->attr_id, a->len, s->min_len,
					   s->max_len);
		if (a->attr_data.reserved)
			return reserved_set(b, a);
		if (s->type == ATTR_PTR_OUT && !a->data && a->len)
			return sefa_refuse(b->c, -EFAULT,
					   "attribute %#x: no buffer", a->attr_id);
		return 0;
	case ATTR_FD_NEW:
	case ATTR_FD_IN:
	case ATTR_IDR:
	case ATTR_IDR_NEW:
		if (a->attr_data.reserved)
			return reserved_set(b, a);
		if (a->len)
			return bad_attr_len(b, a);
		return 0;
	}
	return -EOPNOTSUPP;
}

static int parse_attrs(struct bundle *b)
{
	unsigned int i;
	int ret;

	for (i = 0; i < b->m->nattrs; i++)
		b->present[i] = -1;

	for (i = 0; i < b->nattrs; i++) {
		const struct ib_uverbs_attr *a = &b->uattr[i];
		const struct attr_spec *s;
		int slot;

		s = attr_spec(b, a->attr_id, &slot);
		if (!s) {
			/* Unknown and optional: an older kernel ignores it. */
			if (a->flags & UVERBS_ATTR_F_MANDATORY)
				return sefa_refuse(b->c, -EPROTONOSUPPORT,
						   "attribute %#x unknown and mandatory",
						   a->attr_id);
			continue;
		}
		if (b->present[slot] >= 0)
			return sefa_refuse(b->c, -EINVAL,
					   "attribute %#x given twice", a->attr_id);
		ret = check_attr(b, s, a);
		if (ret)
			return ret;
		b->present[slot] = i;
	}

	for (i = 0; i < b->m->nattrs; i++)
		if (b->m->attrs[i].mandatory && b->present[i] < 0)
			return sefa_refuse(b->c, -EINVAL, "attribute %#x missing",
					   b->m->attrs[i].id);
	return 0;
}

static void note_method(struct sefa_client *c,
			const struct ib_uverbs_ioctl_hdr *hdr)
{
	c->note.object = hdr->object_id;
	c->note.method = hdr->method_id;
	c->note.has_method = true;
}

/*
 * libibverbs' has_ioctl_write(), on every context it opens: INVOKE_WRITE
 * of QUERY_DEVICE with no buffer at all, to learn whether write commands
 * may go through ioctl().  A kernel with the framework answers ENOSPC
 * (the request is too short for QUERY_DEVICE), one without it ENOTTY;
 * either answer is what libibverbs asked for.
 */
static bool is_write_probe(const struct ib_uverbs_ioctl_hdr *hdr,
			   const struct ib_uverbs_attr *attrs)
{
	return hdr->object_id == UVERBS_OBJECT_DEVICE &&
	       hdr->method_id == UVERBS_METHOD_INVOKE_WRITE &&
	       hdr->num_attrs == 1 &&
	       attrs[0].attr_id == UVERBS_ATTR_WRITE_CMD &&
	       attrs[0].data == IB_USER_VERBS_CMD_QUERY_DEVICE;
}

/*
 * --abi write: as a kernel without the ioctl framework, ENOTTY to every
 * ioctl.  Per context libibverbs counts on two of them: its probe, and
 * the first ioctl it has a write() for, from whose ENOTTY it learns to
 * send only write()s from then on.  What comes after has no write()
 * (a direct verb): that one the device refuses.
 */
static int no_ioctl_framework(struct sefa_client *c, uint64_t request,
			      uint64_t arg)
{
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attr;

	if (request != RDMA_VERBS_IOCTL)
		return sefa_refuse(c, -ENOTTY, "not RDMA_VERBS_IOCTL");
	/* only to name the request: the answer is ENOTTY anyway */
	if (sefa_copy_from_user(c, &hdr, arg, sizeof(hdr)))
		return -ENOTTY;
	note_method(c, &hdr);
	if (hdr.num_attrs == 1 &&
	    !sefa_copy_from_user(c, &attr, arg + sizeof(hdr), sizeof(attr)) &&
	    is_write_probe(&hdr, &attr))
		return sefa_routine(c, -ENOTTY);
	if (!c->told_no_ioctl) {
		c->told_no_ioctl = true;
		return sefa_routine(c, -ENOTTY);
	}
	return sefa_refuse(c, -ENOTTY, "no ioctl ABI (softefad --abi write)");
}

/* ioctl(2) on a uverbs fd.  Returns 0 or a negative errno. */
int sefa_uverbs_ioctl(struct sefa_client *c, uint64_t request, uint64_t arg)
{
	struct ib_uverbs_ioctl_hdr hdr;
	struct bundle *b;
	int ret;

	if (c->d->abi == SEFA_ABI_WRITE)
		return no_ioctl_framework(c, request, arg);
	if (request != RDMA_VERBS_IOCTL)
		return sefa_refuse(c, -ENOTTY, "not RDMA_VERBS_IOCTL");

	ret = sefa_copy_from_user(c, &hdr, arg, sizeof(hdr));
	if (ret)
		return ret;
	note_method(c, &hdr);
	if (hdr.length > IOCTL_PAGE_SIZE ||
	    hdr.length != sizeof(hdr) + hdr.num_attrs * sizeof(hdr.attrs[0]))
		return sefa_refuse(c, -EINVAL,
				   "length %u does not fit %u attributes",
				   hdr.length, hdr.num_attrs);
	if (hdr.reserved1 || hdr.reserved2)
		return sefa_refuse(c, -EPROTONOSUPPORT,
				   "reserved header fields set");
	if (hdr.driver_id != RDMA_DRIVER_EFA)
		return sefa_refuse(c, -EINVAL, "driver id %u is not efa's",
				   hdr.driver_id);

	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->c = c;
	b->m = find_method(hdr.object_id, hdr.method_id);
	if (!b->m) {
		ret = sefa_refuse(c, -EPROTONOSUPPORT, "method not implemented");
		goto out;
	}
	b->nattrs = hdr.num_attrs;
	b->user_attrs = arg + sizeof(hdr);
	ret = sefa_copy_from_user(c, b->uattr, b->user_attrs,
				  b->nattrs * sizeof(b->uattr[0]));
	if (ret)
		goto out;
	if (is_write_probe(&hdr, b->uattr))
		sefa_routine(c, -ENOSPC);
	ret = parse_attrs(b);
	if (ret)
		goto out;
	if (b->m->needs_ucontext && !c->has_ucontext) {
		ret = sefa_refuse(c, -EINVAL,
				  "no context yet (GET_CONTEXT comes first)");
		goto out;
	}
	ret = b->m->handler(b);
out:
	free(b);
	return ret;
}
