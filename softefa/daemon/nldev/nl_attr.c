// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netlink messages, taken apart and put together: a request's attributes
 * checked as the kernel's nlmsg_parse() checks them against nldev's
 * policy, and the answers built attribute by attribute.
 */
#include <errno.h>
#include <string.h>

#include "host/host.h"
#include "nldev/nl_local.h"

/* The attributes nldev reads, and the least each must hold. */
static size_t attr_min_len(int type)
{
	switch (type) {
	case RDMA_NLDEV_ATTR_DEV_INDEX:
	case RDMA_NLDEV_ATTR_PORT_INDEX:
	case RDMA_NLDEV_ATTR_RES_LQPN:
	case RDMA_NLDEV_ATTR_STAT_RES:
	case RDMA_NLDEV_ATTR_RES_CQN:
	case RDMA_NLDEV_ATTR_RES_PDN:
	case RDMA_NLDEV_ATTR_RES_MRN:
		return sizeof(uint32_t);
	default:
		return 0;
	}
}

static bool attr_is_string(int type)
{
	return type == RDMA_NLDEV_ATTR_DEV_NAME ||
	       type == RDMA_NLDEV_ATTR_CHARDEV_TYPE;
}

/*
 * Every attribute must lie inside the message, and those nldev reads must
 * be as long as their type (a string ends in its NUL); any failure is
 * -EINVAL, as nldev answers a failed parse.  Types beyond the table are
 * skipped, as the kernel's lenient parse skips them.
 */
int nl_parse(struct nl_req *r)
{
	const uint8_t *p = (const uint8_t *)NLMSG_DATA(r->hdr);
	size_t rem = r->hdr->nlmsg_len - NLMSG_HDRLEN;
	const struct nlattr *a;
	size_t alen;
	int type;

	memset(r->tb, 0, sizeof(r->tb));
	while (rem >= NLA_HDRLEN) {
		a = (const struct nlattr *)p;
		if (a->nla_len < NLA_HDRLEN || a->nla_len > rem)
			return -EINVAL;
		type = a->nla_type & NLA_TYPE_MASK;
		alen = a->nla_len - NLA_HDRLEN;
		if (type > 0 && type < RDMA_NLDEV_ATTR_MAX) {
			if (alen < attr_min_len(type))
				return -EINVAL;
			if (attr_is_string(type) &&
			    (!alen || memchr((const char *)a + NLA_HDRLEN, 0,
					     alen) == NULL))
				return -EINVAL;
			r->tb[type] = a;
		}
		if ((size_t)NLA_ALIGN(a->nla_len) >= rem)
			break;
		rem -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	return 0;
}

int nl_get_u32(const struct nl_req *r, int type, uint32_t *v)
{
	if (!r->tb[type])
		return -EINVAL;
	memcpy(v, (const char *)r->tb[type] + NLA_HDRLEN, sizeof(*v));
	return 0;
}

const char *nl_get_str(const struct nl_req *r, int type)
{
	return r->tb[type] ? (const char *)r->tb[type] + NLA_HDRLEN : NULL;
}

/* The device a request's RDMA_NLDEV_ATTR_DEV_INDEX names, or NULL. */
struct sefa_device *nl_device(const struct nl_req *r)
{
	uint32_t index;

	if (nl_get_u32(r, RDMA_NLDEV_ATTR_DEV_INDEX, &index) ||
	    index >= r->d->ndev)
		return NULL;
	return &r->d->dev[index];
}

void nl_start(struct nl_msg *m, const struct nl_req *r, unsigned int cmd,
	      uint16_t flags)
{
	memset(&m->hdr, 0, sizeof(m->hdr));
	m->hdr.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	m->hdr.nlmsg_flags = flags;
	m->hdr.nlmsg_seq = r->hdr->nlmsg_seq;
	m->len = NLMSG_HDRLEN;
}

int nl_put(struct nl_msg *m, int type, const void *data, size_t len)
{
	struct nlattr a = { .nla_len = NLA_HDRLEN + len, .nla_type = type };
	size_t room = NLA_ALIGN(NLA_HDRLEN + len);

	if (room > sizeof(m->data) - m->len)
		return -EMSGSIZE;
	memcpy(m->data + m->len, &a, sizeof(a));
	if (len)
		memcpy(m->data + m->len + NLA_HDRLEN, data, len);
	memset(m->data + m->len + NLA_HDRLEN + len, 0,
	       room - NLA_HDRLEN - len);
	m->len += room;
	return 0;
}

int nl_put_u8(struct nl_msg *m, int type, uint8_t v)
{
	return nl_put(m, type, &v, sizeof(v));
}

int nl_put_u32(struct nl_msg *m, int type, uint32_t v)
{
	return nl_put(m, type, &v, sizeof(v));
}

/*
 * The kernel pads a 64-bit attribute only where unaligned loads cost;
 * x86-64 and arm64 take it as it comes, so no RDMA_NLDEV_ATTR_PAD.
 */
int nl_put_u64(struct nl_msg *m, int type, uint64_t v)
{
	return nl_put(m, type, &v, sizeof(v));
}

int nl_put_str(struct nl_msg *m, int type, const char *s)
{
	return nl_put(m, type, s, strlen(s) + 1);
}

/* nldev nests without NLA_F_NESTED, as older kernels did. */
size_t nl_nest_start(struct nl_msg *m, int type)
{
	size_t at = m->len;

	return nl_put(m, type, NULL, 0) ? 0 : at;
}

void nl_nest_end(struct nl_msg *m, size_t nest)
{
	struct nlattr a;

	memcpy(&a, m->data + nest, sizeof(a));
	a.nla_len = m->len - nest;
	memcpy(m->data + nest, &a, sizeof(a));
}

int nl_emit(const struct nl_req *r, struct nl_msg *m)
{
	m->hdr.nlmsg_len = m->len;
	return r->out->emit(r->out->ctx, m->data, m->len) ? -EPIPE : 0;
}

/*
 * The end of a dump: NLMSG_DONE with its error word, 0 or why the dump
 * failed (a negative errno), where the kernel reports a dump's failure.
 */
int nl_done(const struct nl_req *r, int err)
{
	struct nl_msg m;

	nl_start(&m, r, 0, NLM_F_MULTI);
	m.hdr.nlmsg_type = NLMSG_DONE;
	memcpy(m.data + m.len, &err, sizeof(err));
	m.len += sizeof(err);
	return nl_emit(r, &m);
}

/* What names a device in every answer: its index and its name. */
int nl_handle(struct nl_msg *m, const struct sefa_device *dev)
{
	if (nl_put_u32(m, RDMA_NLDEV_ATTR_DEV_INDEX, dev->index) ||
	    nl_put_str(m, RDMA_NLDEV_ATTR_DEV_NAME, dev->name))
		return -EMSGSIZE;
	return 0;
}

/*
 * A command about devices: the one its index names, or, in a dump, every
 * device in a message of its own and then NLMSG_DONE.  @fill puts one
 * device's attributes.
 */
int nl_each_device(const struct nl_req *r, unsigned int cmd,
		   nl_fill_dev_fn *fill)
{
	const struct sefa_device *dev;
	struct nl_msg m;
	unsigned int i;
	int ret;

	if (!r->dump) {
		dev = nl_device(r);
		if (!dev)
			return -EINVAL;
		nl_start(&m, r, cmd, 0);
		ret = fill(r, &m, dev);
		return ret ? ret : nl_emit(r, &m);
	}
	for (i = 0; i < r->d->ndev; i++) {
		nl_start(&m, r, cmd, NLM_F_MULTI);
		ret = fill(r, &m, &r->d->dev[i]);
		if (!ret)
			ret = nl_emit(r, &m);
		if (ret)
			return ret;
	}
	return nl_done(r, 0);
}
