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

#endif /* EFA_ABI_COMPAT_H */
