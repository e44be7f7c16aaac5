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

#ifndef EFA_ABI_COMPAT_H
#define EFA_ABI_COMPAT_H

#include <rdma/efa-abi.h>

/* efa_ibv_ex_query_device_resp.device_caps, added after Linux 6.1 */
#ifndef EFA_QUERY_DEVICE_CAPS_RDMA_WRITE
#define EFA_QUERY_DEVICE_CAPS_RDMA_WRITE (1 << 5)
#endif

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

#ifndef EFA_QUERY_MR_VALIDITY_RECV_IC_ID
#define EFA_QUERY_MR_VALIDITY_RECV_IC_ID	(1 << 0)
#define EFA_QUERY_MR_VALIDITY_RDMA_READ_IC_ID	(1 << 1)
#define EFA_QUERY_MR_VALIDITY_RDMA_RECV_IC_ID	(1 << 2)
#endif

#endif /* EFA_ABI_COMPAT_H */
