/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * EFA kernel ABI values newer than the system's <rdma/efa-abi.h>.
 *
 * Debian 12 ships the 6.1 UAPI headers; the efa driver gained these later
 * without changing any structure layout.  Upstream declares them as
 * enumerators, which #ifndef cannot see, so the system header is always
 * included first: with a newer header the macro below then shadows an
 * enumerator of the same value, which is harmless.
 */

#ifndef SEFA_PROVIDERS_EFA_EFA_ABI_COMPAT_H
#define SEFA_PROVIDERS_EFA_EFA_ABI_COMPAT_H

#include <rdma/efa-abi.h>

/* efa_ibv_ex_query_device_resp.device_caps, added after Linux 6.1 */
#ifndef EFA_QUERY_DEVICE_CAPS_RDMA_WRITE
#define EFA_QUERY_DEVICE_CAPS_RDMA_WRITE (1 << 5)
#endif
#ifndef EFA_QUERY_DEVICE_CAPS_DATA_POLLING_128
#define EFA_QUERY_DEVICE_CAPS_DATA_POLLING_128 (1 << 4)
#endif
#ifndef EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV
#define EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV (1 << 6)
#endif
#ifndef EFA_QUERY_DEVICE_CAPS_CQ_WITH_EXT_MEM
#define EFA_QUERY_DEVICE_CAPS_CQ_WITH_EXT_MEM (1 << 7)
#endif

/* efa_ibv_create_qp.flags (Linux 6.10) */
#ifndef EFA_CREATE_QP_WITH_UNSOLICITED_WRITE_RECV
#define EFA_CREATE_QP_WITH_UNSOLICITED_WRITE_RECV (1 << 0)
#endif

/*
 * The layouts of rdma-core v64's <rdma/efa-abi.h> where they outgrew
 * Debian's: create_qp's flags and service level (Linux 6.10 and 6.13, in
 * bytes Debian's struct does not have), and alloc_ucontext's
 * inline_buf_size_ex (2026, in Debian's reserved bytes).  Named apart so
 * that they compile against either header.
 */
struct efa_compat_create_qp {
	__u32 comp_mask;
	__u32 rq_ring_size;		/* bytes */
	__u32 sq_ring_size;		/* bytes */
	__u32 driver_qp_type;
	__u16 flags;			/* EFA_CREATE_QP_* */
	__u8 sl;
	__u8 reserved_98[5];
};

struct efa_compat_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 cmds_supp_udata_mask;
	__u16 sub_cqs_per_cq;
	__u16 inline_buf_size;
	__u32 max_llq_size;		/* bytes */
	__u16 max_tx_batch;		/* units of 64 bytes */
	__u16 min_sq_wr;
	__u16 inline_buf_size_ex;	/* 0: as inline_buf_size */
	__u8 reserved_b0[2];
};

_Static_assert(sizeof(struct efa_compat_create_qp) == 24, "create_qp v64");
_Static_assert(__builtin_offsetof(struct efa_compat_create_qp, driver_qp_type) ==
	       __builtin_offsetof(struct efa_ibv_create_qp, driver_qp_type),
	       "create_qp prefix");
_Static_assert(sizeof(struct efa_compat_alloc_ucontext_resp) ==
	       sizeof(struct efa_ibv_alloc_ucontext_resp), "ucontext resp");
_Static_assert(__builtin_offsetof(struct efa_compat_alloc_ucontext_resp, min_sq_wr) ==
	       __builtin_offsetof(struct efa_ibv_alloc_ucontext_resp, min_sq_wr),
	       "ucontext resp prefix");

/*
 * Completion counters (rdma-core master, after v64).  The provider only
 * reads this bit; the counter objects need a libibverbs that has them.
 */
#ifndef EFA_QUERY_DEVICE_CAPS_COMP_CNTR
#define EFA_QUERY_DEVICE_CAPS_COMP_CNTR (1 << 8)
#endif

/*
 * The driver method on the MR object that reports interconnect ids (Linux
 * 6.9), in the driver's id namespace, and its attributes.
 */
#include <rdma/ib_user_ioctl_cmds.h>

#ifndef EFA_IB_METHOD_MR_QUERY
#define EFA_IB_METHOD_MR_QUERY (1U << UVERBS_ID_NS_SHIFT)
#endif

#ifndef EFA_IB_ATTR_QUERY_MR_HANDLE
#define EFA_IB_ATTR_QUERY_MR_HANDLE			(1U << UVERBS_ID_NS_SHIFT)
#define EFA_IB_ATTR_QUERY_MR_RESP_IC_ID_VALIDITY	((1U << UVERBS_ID_NS_SHIFT) + 1)
#define EFA_IB_ATTR_QUERY_MR_RESP_RECV_IC_ID		((1U << UVERBS_ID_NS_SHIFT) + 2)
#define EFA_IB_ATTR_QUERY_MR_RESP_RDMA_READ_IC_ID	((1U << UVERBS_ID_NS_SHIFT) + 3)
#define EFA_IB_ATTR_QUERY_MR_RESP_RDMA_RECV_IC_ID	((1U << UVERBS_ID_NS_SHIFT) + 4)
#endif

/*
 * The device method that reports a port's bandwidth, in 100 Mb/s units
 * (rdma-core v64's ibv_query_port_speed()), and its attributes.
 */
#ifndef UVERBS_METHOD_QUERY_PORT_SPEED
#define UVERBS_METHOD_QUERY_PORT_SPEED		(UVERBS_METHOD_QUERY_GID_ENTRY + 1)
#define UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM	0
#define UVERBS_ATTR_QUERY_PORT_SPEED_RESP	1
#endif

/*
 * create_cq with the CQ ring in the caller's memory: a user address or a
 * dma-buf, after the event fd (the uverbs core after Linux 6.1; rdma-core
 * v64's headers have them).
 */
#ifndef UVERBS_ATTR_CREATE_CQ_BUFFER_VA
#define UVERBS_ATTR_CREATE_CQ_BUFFER_VA		(UVERBS_ATTR_CREATE_CQ_EVENT_FD + 1)
#define UVERBS_ATTR_CREATE_CQ_BUFFER_LENGTH	(UVERBS_ATTR_CREATE_CQ_EVENT_FD + 2)
#define UVERBS_ATTR_CREATE_CQ_BUFFER_FD		(UVERBS_ATTR_CREATE_CQ_EVENT_FD + 3)
#define UVERBS_ATTR_CREATE_CQ_BUFFER_OFFSET	(UVERBS_ATTR_CREATE_CQ_EVENT_FD + 4)
#endif

#ifndef EFA_QUERY_MR_VALIDITY_RECV_IC_ID
#define EFA_QUERY_MR_VALIDITY_RECV_IC_ID	(1 << 0)
#define EFA_QUERY_MR_VALIDITY_RDMA_READ_IC_ID	(1 << 1)
#define EFA_QUERY_MR_VALIDITY_RDMA_RECV_IC_ID	(1 << 2)
#endif

#endif /* SEFA_PROVIDERS_EFA_EFA_ABI_COMPAT_H */
