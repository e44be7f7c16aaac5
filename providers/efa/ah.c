// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Address handles.  The device addresses a peer by its GID only and
 * answers create_ah with an AH number, which send WQEs carry and which
 * receive completions use to name the sender.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "efa.h"

struct ibv_ah *efa_create_ah(struct ibv_pd *ibvpd, struct ibv_ah_attr *attr)
{
	struct verbs_context *vctx = to_verbs_context(ibvpd->context);
	struct efa_create_ah_resp resp = {};
	struct efa_ah *ah;
	int err;

	if (!attr->is_global) {
		verbs_err(vctx, "an EFA address needs a GRH (is_global)\n");
		errno = EINVAL;
		return NULL;
	}

	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return NULL;

	err = ibv_cmd_create_ah(ibvpd, &ah->ibvah, attr, &resp.ibv_resp,
				sizeof(resp));
	if (err) {
		verbs_err(vctx, "CREATE_AH failed: %s\n", strerror(err));
		free(ah);
		errno = err;
		return NULL;
	}

	ah->efa_ah = resp.drv.efa_address_handle;
	return &ah->ibvah;
}

int efa_destroy_ah(struct ibv_ah *ibvah)
{
	int err;

	err = ibv_cmd_destroy_ah(ibvah);
	if (err) {
		verbs_err(to_verbs_context(ibvah->context),
			  "DESTROY_AH failed: %s\n", strerror(err));
		return err;
	}

	free(to_efa_ah(ibvah));
	return 0;
}

/* attr is output only; the caller's first inlen bytes are cleared. */
int efadv_query_ah(struct ibv_ah *ibvah, struct efadv_ah_attr *attr,
		   uint32_t inlen)
{
	struct verbs_context *vctx = to_verbs_context(ibvah->context);
	struct efadv_ah_attr result = {};

	if (!efa_is_dev(ibvah->context->device)) {
		verbs_err(vctx, "not an EFA device\n");
		return EOPNOTSUPP;
	}

	if (!vext_field_avail(struct efadv_ah_attr, ahn, inlen)) {
		verbs_err(vctx, "attr of %u bytes is too short\n", inlen);
		return EINVAL;
	}

	result.ahn = to_efa_ah(ibvah)->efa_ah;
	memset(attr, 0, inlen);
	memcpy(attr, &result,
	       inlen < sizeof(result) ? inlen : sizeof(result));
	return 0;
}
