// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl() ABI of ib_uverbs (RDMA_VERBS_IOCTL): the header rules of the
 * kernel's uverbs_ioctl.c, and the way to the method a call names.  The
 * methods libibverbs 44 and 64 issue live by object in ioctl_*.c; their
 * attributes are checked and read by ioctl_attr.c.
 */
#include <errno.h>
#include <stdlib.h>

#include "uverbs/ioctl.h"

static const struct ioctl_methods *const objects[] = {
	&ioctl_device_methods,
	&ioctl_mr_methods,
	&ioctl_cq_methods,
	&ioctl_qp_methods,
};

static const struct ioctl_method *find_method(uint16_t object,
					      uint16_t method)
{
	size_t i, j;

	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		const struct ioctl_methods *o = objects[i];

		for (j = 0; j < o->count; j++)
			if (o->methods[j].object == object &&
			    o->methods[j].method == method)
				return &o->methods[j];
	}
	return NULL;
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
	ret = attr_parse(b);
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
