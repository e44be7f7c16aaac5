/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The state of a device's port 1, decided here alone for every report of
 * it: query_port, sysfs, RDMA netlink and the SMA's PortInfo.
 *
 * EFA's driver always reports its port ACTIVE with the link up.  A port
 * taken down on demand reports what a driver whose link went away
 * reports: DOWN, the physical link Disabled.  Both are numbered as
 * PortInfo:PortState and PortPhysicalState number them (ibv_port_state
 * keeps the spec's numbers), which query_port, sysfs and netlink pass on
 * unchanged.
 */
#ifndef SEFA_SOFTEFA_DAEMON_HOST_PORT_H
#define SEFA_SOFTEFA_DAEMON_HOST_PORT_H

#include <stdatomic.h>

#include <infiniband/verbs.h>

#include "host/host.h"

enum sefa_phys_state {
	SEFA_PHYS_POLLING = 2,
	SEFA_PHYS_DISABLED = 3,
	SEFA_PHYS_LINK_UP = 5,
};

/* Read without the daemon lock too: the fault that flips it is atomic. */
static inline enum ibv_port_state
sefa_port_state(const struct sefa_device *dev)
{
	return atomic_load(&dev->port_down) ? IBV_PORT_DOWN : IBV_PORT_ACTIVE;
}

static inline enum sefa_phys_state
sefa_port_phys_state(const struct sefa_device *dev)
{
	return atomic_load(&dev->port_down) ? SEFA_PHYS_DISABLED :
					      SEFA_PHYS_LINK_UP;
}

#endif
