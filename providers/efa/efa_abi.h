/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The commands this provider writes, with their EFA udata.
 *
 * libibverbs expects a driver command as the core command (header
 * included) immediately followed by the driver's request, and a driver
 * response as the core response immediately followed by the driver's
 * response.  The checks below make sure no padding sneaks in between.
 */

#ifndef EFA_ABI_H
#define EFA_ABI_H

#include <rdma/ib_user_verbs.h>

#include "efa_abi_compat.h"
#include "ibverbs_private.h"

#define EFA_ABI_VERSION 1

/*
 * The core structs end in the kernel's flexible driver_data[] array, which
 * is exactly where the udata goes.  A member after such a struct is a GNU
 * extension that GCC accepts silently and clang warns about.
 */
#ifdef __clang__
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wgnu-variable-sized-type-not-at-end"
#endif

struct efa_alloc_ucontext {
	struct ibv_get_context ibv_cmd;
	struct efa_ibv_alloc_ucontext_cmd drv;
};

struct efa_alloc_ucontext_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct efa_ibv_alloc_ucontext_resp drv;
};

struct efa_query_device_ex_resp {
	struct ib_uverbs_ex_query_device_resp ibv_resp;
	struct efa_ibv_ex_query_device_resp drv;
};

#ifdef __clang__
#pragma clang diagnostic pop
#endif

_Static_assert(EFA_ABI_VERSION == EFA_UVERBS_ABI_VERSION,
	       "kernel EFA uverbs ABI changed");
_Static_assert(sizeof(struct efa_alloc_ucontext) ==
	       sizeof(struct ibv_get_context) +
	       sizeof(struct efa_ibv_alloc_ucontext_cmd),
	       "GET_CONTEXT command has padding");
_Static_assert(sizeof(struct efa_alloc_ucontext_resp) ==
	       sizeof(struct ib_uverbs_get_context_resp) +
	       sizeof(struct efa_ibv_alloc_ucontext_resp),
	       "GET_CONTEXT response has padding");
_Static_assert(sizeof(struct efa_query_device_ex_resp) ==
	       sizeof(struct ib_uverbs_ex_query_device_resp) +
	       sizeof(struct efa_ibv_ex_query_device_resp),
	       "QUERY_DEVICE response has padding");

#endif /* EFA_ABI_H */
