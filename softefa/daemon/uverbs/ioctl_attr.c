// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The attribute rules of ib_uverbs' ioctl() (those of the kernel's
 * uverbs_ioctl.c): checking a call's attributes against its method's
 * table, then reading them and writing the answers back into them.
 */
#include <errno.h>
#include <string.h>

#include "uverbs/ioctl.h"

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

const struct ib_uverbs_attr *attr_get(const struct bundle *b, uint16_t id)
{
	int slot;

	if (!attr_spec(b, id, &slot) || b->present[slot] < 0)
		return NULL;
	return &b->uattr[b->present[slot]];
}

void attr_to_ubuf(const struct ib_uverbs_attr *a, struct sefa_ubuf *u)
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
int attr_const(const struct bundle *b, uint16_t id, uint64_t max, uint64_t *val)
{
	const struct ib_uverbs_attr *a = attr_get(b, id);

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
int attr_no_flags(const struct bundle *b, uint16_t id)
{
	const struct ib_uverbs_attr *a = attr_get(b, id);
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
int attr_set_output(struct bundle *b, const struct ib_uverbs_attr *a)
{
	uint16_t flags = a->flags | UVERBS_ATTR_F_VALID_OUTPUT;
	uint64_t at = b->user_attrs + (a - b->uattr) * sizeof(*a) +
		      offsetof(struct ib_uverbs_attr, flags);

	return sefa_copy_to_user(b->c, at, &flags, sizeof(flags));
}

/* uverbs_copy_to(): as much of @src as the attribute has room for. */
int attr_copy(struct bundle *b, uint16_t id, const void *src, size_t len)
{
	const struct ib_uverbs_attr *a = attr_get(b, id);
	int ret;

	if (!a)
		return -ENOENT;
	ret = sefa_copy_to_user(b->c, a->data, src, len < a->len ? len : a->len);
	if (ret)
		return ret;
	return attr_set_output(b, a);
}

/* uverbs_copy_to_struct_or_zero(): also clear what @src does not cover. */
int attr_copy_or_zero(struct bundle *b, uint16_t id,
		      const void *src, size_t len)
{
	const struct ib_uverbs_attr *a = attr_get(b, id);
	int ret;

	if (!a)
		return -ENOENT;
	if (a->len > len) {
		ret = sefa_clear_user(b->c, a->data + len, a->len - len);
		if (ret)
			return ret;
	}
	return attr_copy(b, id, src, len);
}

/* Where the kernel writes back into the attribute itself (new ids, fds). */
uint64_t attr_data_addr(const struct bundle *b, const struct ib_uverbs_attr *a)
{
	return b->user_attrs + (a - b->uattr) * sizeof(*a) +
	       offsetof(struct ib_uverbs_attr, data);
}

/* The handle an IDR attribute names; absent or too large, no object's. */
uint32_t attr_handle(const struct bundle *b, uint16_t id)
{
	const struct ib_uverbs_attr *a = attr_get(b, id);

	return a && a->data <= UINT32_MAX ? a->data : SEFA_NO_HANDLE;
}

/* A u32 or u64 PTR_IN; absent means @def. */
int attr_in(const struct bundle *b, uint16_t id, uint64_t def, uint64_t *val)
{
	const struct ib_uverbs_attr *a = attr_get(b, id);

	*val = def;
	if (!a)
		return 0;
	if (a->len != 4 && a->len != 8)
		return bad_attr_len(b, a);
	*val = 0;
	memcpy(val, &a->data, a->len);
	return 0;
}

int attr_fd(const struct bundle *b, uint16_t id)
{
	const struct ib_uverbs_attr *a = attr_get(b, id);

	return a ? (int)(int64_t)a->data : -1;
}

int attr_not_async_fd(const struct bundle *b, int fd)
{
	return sefa_refuse(b->c, -EBADF, "fd %d is not the async event file",
			   fd);
}

/* The ucore and udata of an ioctl: only UHW carries driver data. */
void attr_cmd(const struct bundle *b, struct sefa_cmd *cmd)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->c = b->c;
	cmd->from_ioctl = true;
	attr_to_ubuf(attr_get(b, UVERBS_ATTR_UHW_IN), &cmd->udata_in);
	attr_to_ubuf(attr_get(b, UVERBS_ATTR_UHW_OUT), &cmd->udata_out);
	cmd->udata_out.is_inline = false;
}

int attr_new_handle(struct bundle *b, uint16_t id, uint32_t handle)
{
	uint64_t v = handle;

	return sefa_copy_to_user(b->c, attr_data_addr(b, attr_get(b, id)), &v,
				 sizeof(v));
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

int attr_parse(struct bundle *b)
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
