/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the ioctl() decoder's files share: a method's attribute rules, the
 * bundle of attributes one call brings, the helpers that read and answer
 * them (ioctl_attr.c), and each object's table of methods.  Only the
 * files of uverbs/ include it.
 */
#ifndef SEFA_SOFTEFA_DAEMON_UVERBS_IOCTL_H
#define SEFA_SOFTEFA_DAEMON_UVERBS_IOCTL_H

#include <stddef.h>

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

#define IDR(_id, _mand)	{ .id = _id, .type = ATTR_IDR, .mandatory = _mand }
#define IDR_NEW(_id)	{ .id = _id, .type = ATTR_IDR_NEW, .mandatory = true }
#define FD_IN(_id)	{ .id = _id, .type = ATTR_FD_IN }
#define U32_IN(_id, _mand)	IN(_id, 4, 4, _mand)
#define U64_IN(_id, _mand)	IN(_id, 8, 8, _mand)

#define METHOD(_obj, _meth, _fn, _attrs, _udata, _uctx) {		\
	.object = _obj, .method = _meth, .handler = _fn,		\
	.attrs = _attrs, .nattrs = sizeof(_attrs) / sizeof(_attrs[0]),	\
	.has_udata = _udata, .needs_ucontext = _uctx }

/* The methods of one object (or of a few that belong together). */
struct ioctl_methods {
	const struct ioctl_method *methods;
	size_t count;
};

#define METHODS(_table) { .methods = _table, \
	.count = sizeof(_table) / sizeof(_table[0]) }

/* each in its ioctl_<object>.c */
extern const struct ioctl_methods ioctl_device_methods;
extern const struct ioctl_methods ioctl_mr_methods;
extern const struct ioctl_methods ioctl_cq_methods;
extern const struct ioctl_methods ioctl_qp_methods;

/* ioctl_attr.c: the attribute rules, and reading and answering them */
int attr_parse(struct bundle *b);
const struct ib_uverbs_attr *attr_get(const struct bundle *b, uint16_t id);
void attr_to_ubuf(const struct ib_uverbs_attr *a, struct sefa_ubuf *u);
int attr_const(const struct bundle *b, uint16_t id, uint64_t max,
	       uint64_t *val);
int attr_no_flags(const struct bundle *b, uint16_t id);
int attr_set_output(struct bundle *b, const struct ib_uverbs_attr *a);
int attr_copy(struct bundle *b, uint16_t id, const void *src, size_t len);
int attr_copy_or_zero(struct bundle *b, uint16_t id,
		      const void *src, size_t len);
uint64_t attr_data_addr(const struct bundle *b, const struct ib_uverbs_attr *a);
uint32_t attr_handle(const struct bundle *b, uint16_t id);
int attr_in(const struct bundle *b, uint16_t id, uint64_t def, uint64_t *val);
int attr_fd(const struct bundle *b, uint16_t id);
int attr_not_async_fd(const struct bundle *b, int fd);
void attr_cmd(const struct bundle *b, struct sefa_cmd *cmd);
int attr_new_handle(struct bundle *b, uint16_t id, uint32_t handle);

/* ioctl_cq.c: DESTROY of a CQ or a QP, which report events alike. */
int ioctl_destroy_reporting(struct bundle *b, enum sefa_obj_type type);

#endif
