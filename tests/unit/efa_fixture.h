/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A provider context without a kernel: the device and context objects that
 * libibverbs would allocate, built by hand so that the provider's internal
 * functions can run on them.
 */

#ifndef EFA_FIXTURE_H
#define EFA_FIXTURE_H

#include "efa.h"

struct efa_fixture {
	struct verbs_device vdev;
	struct efa_context *ctx;
};

/* The device claims to belong to the driver described by ops. */
void efa_fixture_init(struct efa_fixture *fx,
		      const struct verbs_device_ops *ops);
void efa_fixture_fini(struct efa_fixture *fx);

/* Limits as a real 0xefa1 device reports them. */
void efa_fixture_ucontext_resp(struct efa_alloc_ucontext_resp *resp);
void efa_fixture_query_device_resp(struct efa_query_device_ex_resp *resp);

#endif /* EFA_FIXTURE_H */
