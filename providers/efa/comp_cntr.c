// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion counters (efadv EFA_1.7): the caller's arguments checked as
 * upstream checks them, and then refused.
 *
 * A counter is a struct ibv_comp_cntr of libibverbs' own, created through
 * its UVERBS_OBJECT_COMP_CNTR methods and used through ibv_inc_comp_cntr()
 * and the like, all of which arrived with private ABI 65 (rdma-core 65).
 * The libibverbs this provider is built against (ABI 34 or 64) has none of
 * it, so there is no counter to hand out even on a device that reports
 * EFA_QUERY_DEVICE_CAPS_COMP_CNTR.
 */

#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "efa.h"

/*
 * The head of struct ibv_comp_cntr_init_attr of rdma-core 65's verbs.h,
 * which the libibverbs headers built against do not declare.
 */
struct efa_comp_cntr_init_attr_v65 {
	uint32_t comp_mask;
	uint32_t type;			/* enum ibv_comp_cntr_type */
	uint32_t flags;
};

#define EFA_COMP_CNTR_TYPE_WRS	0	/* IBV_COMP_CNTR_TYPE_WRS */

static bool efa_mem_loc_type_ok(const struct efadv_memory_location *loc)
{
	return loc->type == EFADV_MEMORY_LOCATION_VA ||
	       loc->type == EFADV_MEMORY_LOCATION_DMABUF;
}

/*
 * inlen must reach err_cntr_ext_mem and anything beyond our struct be zero
 * (EINVAL); a type, flag or memory location EFA does not count with is
 * EOPNOTSUPP, and so is a counter, for want of libibverbs' (see above).
 */
struct ibv_comp_cntr *
efadv_create_comp_cntr(struct ibv_context *ibvctx,
		       struct ibv_comp_cntr_init_attr *attr,
		       struct efadv_comp_cntr_init_attr *efa_attr,
		       uint32_t inlen)
{
	const uint32_t flags = EFADV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM |
			       EFADV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM;
	const struct efa_comp_cntr_init_attr_v65 *cc = (const void *)attr;
	struct verbs_context *vctx = to_verbs_context(ibvctx);
	struct efa_context *ctx;

	if (!efa_is_dev(ibvctx->device)) {
		verbs_err(vctx, "not an EFA device\n");
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = to_efa_context(ibvctx);

	if (!vext_field_avail(struct efadv_comp_cntr_init_attr,
			      err_cntr_ext_mem, inlen) ||
	    (inlen > sizeof(*efa_attr) &&
	     !efa_buf_cleared((const uint8_t *)efa_attr + sizeof(*efa_attr),
			      inlen - sizeof(*efa_attr)))) {
		verbs_err(vctx, "efadv_comp_cntr_init_attr of %u bytes\n",
			  inlen);
		errno = EINVAL;
		return NULL;
	}

	if (cc->comp_mask || cc->flags || cc->type != EFA_COMP_CNTR_TYPE_WRS ||
	    efa_attr->comp_mask || (efa_attr->flags & ~flags) ||
	    !efa_mem_loc_type_ok(&efa_attr->comp_cntr_ext_mem) ||
	    !efa_mem_loc_type_ok(&efa_attr->err_cntr_ext_mem)) {
		verbs_err(vctx, "unsupported counter type or flags\n");
		errno = EOPNOTSUPP;
		return NULL;
	}

	if (!(ctx->device_caps & EFA_QUERY_DEVICE_CAPS_COMP_CNTR))
		verbs_err(vctx, "the device has no completion counters\n");
	else
		verbs_err(vctx,
			  "libibverbs before private ABI 65 has no completion counters\n");
	errno = EOPNOTSUPP;
	return NULL;
}
