/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The commands this provider writes, with their EFA udata.
 *
 * libibverbs expects a driver command as the core command (header
 * included) immediately followed by the driver's request, and a driver
 * response as the core response immediately followed by the driver's
 * response.  The checks below make sure no padding sneaks in between.
 */

#ifndef SEFA_PROVIDERS_EFA_EFA_ABI_H
#define SEFA_PROVIDERS_EFA_EFA_ABI_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "efa_abi_compat.h"
#include "efa_ext_abi.h"
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

/* drv in rdma-core v64's layout, whose inline_buf_size_ex Debian's header
 * has as reserved bytes (efa_abi_compat.h).
 */
struct efa_alloc_ucontext_resp {
	struct ib_uverbs_get_context_resp ibv_resp;
	struct efa_compat_alloc_ucontext_resp drv;
	__aligned_u64 wake_mmap_key;	/* efa_ext_abi.h, zero on EFA */
};

struct efa_query_device_ex_resp {
	struct ib_uverbs_ex_query_device_resp ibv_resp;
	struct efa_ibv_ex_query_device_resp drv;
};

struct efa_alloc_pd_resp {
	struct ib_uverbs_alloc_pd_resp ibv_resp;
	struct efa_ibv_alloc_pd_resp drv;
};

struct efa_create_cq {
	struct ibv_create_cq_ex ibv_cmd;
	struct efa_ibv_create_cq drv;
};

struct efa_create_cq_resp {
	struct ib_uverbs_ex_create_cq_resp ibv_resp;
	struct efa_ibv_create_cq_resp drv;
};

/* drv in rdma-core v64's layout, with flags and sl (efa_abi_compat.h) */
struct efa_create_qp {
	struct ibv_create_qp ibv_cmd;
	struct efa_compat_create_qp drv;
};

struct efa_create_qp_resp {
	struct ib_uverbs_create_qp_resp ibv_resp;
	struct efa_ibv_create_qp_resp drv;
};

struct efa_create_ah_resp {
	struct ib_uverbs_create_ah_resp ibv_resp;
	struct efa_ibv_create_ah_resp drv;
};

#ifdef __clang__
#pragma clang diagnostic pop
#endif

/*
 * The driver method on the MR object that reports interconnect ids, as one
 * RDMA_VERBS_IOCTL: the MR handle and the four u16 outputs, each of which
 * the kernel declares mandatory.
 */
enum {
	EFA_QUERY_MR_ATTR_HANDLE,
	EFA_QUERY_MR_ATTR_IC_ID_VALIDITY,
	EFA_QUERY_MR_ATTR_RECV_IC_ID,
	EFA_QUERY_MR_ATTR_RDMA_READ_IC_ID,
	EFA_QUERY_MR_ATTR_RDMA_RECV_IC_ID,
	EFA_QUERY_MR_NUM_ATTRS,
};

struct efa_query_mr_cmd {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[EFA_QUERY_MR_NUM_ATTRS];
};

struct efa_query_mr_out {
	uint16_t ic_id_validity;
	uint16_t recv_ic_id;
	uint16_t rdma_read_ic_id;
	uint16_t rdma_recv_ic_id;
};

_Static_assert(EFA_ABI_VERSION == EFA_UVERBS_ABI_VERSION,
	       "kernel EFA uverbs ABI changed");
_Static_assert(sizeof(struct efa_alloc_ucontext) ==
	       sizeof(struct ibv_get_context) +
	       sizeof(struct efa_ibv_alloc_ucontext_cmd),
	       "GET_CONTEXT command has padding");
_Static_assert(sizeof(struct efa_alloc_ucontext_resp) ==
	       sizeof(struct ib_uverbs_get_context_resp) +
	       sizeof(struct sefa_ibv_alloc_ucontext_resp),
	       "GET_CONTEXT response has padding");
_Static_assert(offsetof(struct efa_alloc_ucontext_resp, wake_mmap_key) -
	       offsetof(struct efa_alloc_ucontext_resp, drv) ==
	       offsetof(struct sefa_ibv_alloc_ucontext_resp, wake_mmap_key),
	       "GET_CONTEXT response extension out of place");
_Static_assert(sizeof(struct efa_query_device_ex_resp) ==
	       sizeof(struct ib_uverbs_ex_query_device_resp) +
	       sizeof(struct efa_ibv_ex_query_device_resp),
	       "QUERY_DEVICE response has padding");

_Static_assert(sizeof(struct efa_alloc_pd_resp) ==
	       sizeof(struct ib_uverbs_alloc_pd_resp) +
	       sizeof(struct efa_ibv_alloc_pd_resp),
	       "ALLOC_PD response has padding");
_Static_assert(sizeof(struct efa_create_cq) ==
	       sizeof(struct ibv_create_cq_ex) +
	       sizeof(struct efa_ibv_create_cq),
	       "CREATE_CQ command has padding");
_Static_assert(sizeof(struct efa_create_cq_resp) ==
	       sizeof(struct ib_uverbs_ex_create_cq_resp) +
	       sizeof(struct efa_ibv_create_cq_resp),
	       "CREATE_CQ response has padding");
_Static_assert(sizeof(struct efa_create_qp) ==
	       sizeof(struct ibv_create_qp) +
	       sizeof(struct efa_compat_create_qp),
	       "CREATE_QP command has padding");
_Static_assert(sizeof(struct efa_create_qp_resp) ==
	       sizeof(struct ib_uverbs_create_qp_resp) +
	       sizeof(struct efa_ibv_create_qp_resp),
	       "CREATE_QP response has padding");
_Static_assert(sizeof(struct efa_create_ah_resp) ==
	       sizeof(struct ib_uverbs_create_ah_resp) +
	       sizeof(struct efa_ibv_create_ah_resp),
	       "CREATE_AH response has padding");
_Static_assert(offsetof(struct efa_query_mr_cmd, attrs) ==
	       sizeof(struct ib_uverbs_ioctl_hdr),
	       "ioctl attributes must follow the header");

#endif /* SEFA_PROVIDERS_EFA_EFA_ABI_H */
