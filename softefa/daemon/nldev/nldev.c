// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The nldev commands about devices, their port, the RDMA subsystem, the
 * char devices and the port hw_counters, with what ib_core's nldev.c puts
 * in each answer for an EFA device: EFA is neither InfiniBand, iWARP nor
 * RoCE to ib_core, so a device says no protocol and its port no LID,
 * subnet prefix or capability mask; EFA sets no netdev, so a port names
 * none.  The "extended" profile's InfiniBand port says what an IB port
 * says.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "host/host.h"
#include "host/port.h"
#include "nldev/nl_local.h"

/* ib_user_verbs' ABI of the efa driver, its sysfs abi_version. */
#define EFA_UVERBS_ABI	1

static bool port_is_ib(const struct sefa_device *dev)
{
	return dev->profile->link_layer == IBV_LINK_LAYER_INFINIBAND;
}

static int fill_dev_info(const struct nl_req *r, struct nl_msg *m,
			 const struct sefa_device *dev)
{
	if (nl_handle(m, dev) ||
	    nl_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, 1) ||
	    nl_put_u64(m, RDMA_NLDEV_ATTR_CAP_FLAGS, 0) ||
	    nl_put_str(m, RDMA_NLDEV_ATTR_FW_VERSION, "0.0.0.0") ||
	    nl_put_u64(m, RDMA_NLDEV_ATTR_NODE_GUID, dev->node_guid) ||
	    nl_put_u64(m, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID, dev->node_guid) ||
	    nl_put_u8(m, RDMA_NLDEV_ATTR_DEV_NODE_TYPE,
		      dev->profile->node_type) ||
	    nl_put_u8(m, RDMA_NLDEV_ATTR_DEV_DIM, 0))
		return -EMSGSIZE;
	if (port_is_ib(dev) &&
	    nl_put_str(m, RDMA_NLDEV_ATTR_DEV_PROTOCOL, "ib"))
		return -EMSGSIZE;
	return 0;
}

static int fill_port_info(struct nl_msg *m, const struct sefa_device *dev)
{
	/* an IB port's, as ib_query_port() gives it: prefix fe80::/64 */
	const uint64_t subnet_prefix = 0xfe80000000000000ULL;

	if (nl_handle(m, dev) || nl_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, 1))
		return -EMSGSIZE;
	if (port_is_ib(dev) &&
	    (nl_put_u64(m, RDMA_NLDEV_ATTR_CAP_FLAGS, dev->cap_mask) ||
	     nl_put_u64(m, RDMA_NLDEV_ATTR_SUBNET_PREFIX, subnet_prefix) ||
	     nl_put_u32(m, RDMA_NLDEV_ATTR_LID, dev->lid) ||
	     nl_put_u32(m, RDMA_NLDEV_ATTR_SM_LID, dev->sm_lid) ||
	     nl_put_u8(m, RDMA_NLDEV_ATTR_LMC, 0)))
		return -EMSGSIZE;
	if (nl_put_u8(m, RDMA_NLDEV_ATTR_PORT_STATE, sefa_port_state(dev)) ||
	    nl_put_u8(m, RDMA_NLDEV_ATTR_PORT_PHYS_STATE,
		      sefa_port_phys_state(dev)))
		return -EMSGSIZE;
	return 0;
}

int nldev_get(const struct nl_req *r)
{
	return nl_each_device(r, RDMA_NLDEV_CMD_GET, fill_dev_info);
}

/* Every device has one port, 1. */
static int port_check(const struct nl_req *r)
{
	uint32_t port;

	if (nl_get_u32(r, RDMA_NLDEV_ATTR_PORT_INDEX, &port) || port != 1)
		return -EINVAL;
	return 0;
}

int nldev_port_get(const struct nl_req *r)
{
	const struct sefa_device *dev = nl_device(r);
	struct nl_msg m;
	int ret;

	/* both want the device; a dump gives all its ports */
	if (!dev)
		return -EINVAL;
	if (!r->dump) {
		if (port_check(r))
			return -EINVAL;
		/* the kernel's answer names the command GET, not PORT_GET */
		nl_start(&m, r, RDMA_NLDEV_CMD_GET, 0);
		ret = fill_port_info(&m, dev);
		return ret ? ret : nl_emit(r, &m);
	}
	nl_start(&m, r, RDMA_NLDEV_CMD_PORT_GET, NLM_F_MULTI);
	ret = fill_port_info(&m, dev);
	if (!ret)
		ret = nl_emit(r, &m);
	return ret ? ret : nl_done(r, 0);
}

/*
 * Devices shared by every network namespace, and copy-on-fork: the daemon
 * reads a process's memory through its pid, so after fork() the pages of
 * a region stay the parent's, as a kernel that copies pinned pages at
 * fork keeps them.
 */
int nldev_sys_get(const struct nl_req *r)
{
	struct nl_msg m;

	nl_start(&m, r, RDMA_NLDEV_CMD_SYS_GET, 0);
	if (nl_put_u8(&m, RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1) ||
	    nl_put_u8(&m, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1))
		return -EMSGSIZE;
	return nl_emit(r, &m);
}

/* The kernel's huge_encode_dev() of a dev_t. */
static uint64_t encode_dev(unsigned int major, unsigned int minor)
{
	return (minor & 0xff) | ((uint64_t)major << 8) |
	       ((uint64_t)(minor & ~0xffU) << 12);
}

/*
 * Which /dev node a device's client (uverbs, umad) made: libibverbs asks
 * it for uverbsN before it looks in sysfs.
 */
int nldev_get_chardev(const struct nl_req *r)
{
	const char *type = nl_get_str(r, RDMA_NLDEV_ATTR_CHARDEV_TYPE);
	const struct sefa_device *dev = nl_device(r);
	unsigned int major, minor, abi;
	char name[32];
	struct nl_msg m;

	if (!type || !dev)
		return -EINVAL;
	if (r->tb[RDMA_NLDEV_ATTR_PORT_INDEX] && port_check(r))
		return -EINVAL;
	nl_start(&m, r, RDMA_NLDEV_CMD_GET_CHARDEV, 0);
	if (!strcmp(type, "uverbs")) {
		major = SEFA_UVERBS_MAJOR;
		minor = SEFA_UVERBS_BASE_MINOR + dev->index;
		abi = EFA_UVERBS_ABI;
		snprintf(name, sizeof(name), "uverbs%u", dev->index);
		if (nl_put_u32(&m, RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID,
			       RDMA_DRIVER_EFA))
			return -EMSGSIZE;
	} else if (!strcmp(type, "umad") && dev->profile->has_mad) {
		if (!r->tb[RDMA_NLDEV_ATTR_PORT_INDEX])
			return -EINVAL;
		major = SEFA_UMAD_MAJOR;
		minor = SEFA_UMAD_BASE_MINOR + dev->index;
		abi = SEFA_UMAD_ABI_VERSION;
		snprintf(name, sizeof(name), "umad%u", dev->index);
	} else {
		/* no such client, or none on this device (EFA has no MADs) */
		return -EOPNOTSUPP;
	}
	if (nl_put_u64(&m, RDMA_NLDEV_ATTR_CHARDEV, encode_dev(major, minor)) ||
	    nl_put_u64(&m, RDMA_NLDEV_ATTR_CHARDEV_ABI, abi) ||
	    nl_put_str(&m, RDMA_NLDEV_ATTR_CHARDEV_NAME, name))
		return -EMSGSIZE;
	return nl_emit(r, &m);
}

/* The port's hw_counters, by the names sysfs gives them, as they are now. */
static int stat_default(const struct nl_req *r)
{
	const struct sefa_device *dev = nl_device(r);
	const char *name;
	struct nl_msg m;
	size_t table, entry, i;
	uint64_t v;

	if (!dev || port_check(r))
		return -EINVAL;
	nl_start(&m, r, RDMA_NLDEV_CMD_STAT_GET, 0);
	if (nl_handle(&m, dev) || nl_put_u32(&m, RDMA_NLDEV_ATTR_PORT_INDEX, 1))
		return -EMSGSIZE;
	table = nl_nest_start(&m, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < sefa_port_counter_count; i++) {
		name = sefa_port_counter_names[i].sysfs;
		if (!name)
			continue;
		v = sefa_counter_value(&sefa_port_counter_names[i], &dev->cnt);
		entry = nl_nest_start(&m, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		if (!entry ||
		    nl_put_str(&m, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
			       name) ||
		    nl_put_u64(&m, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
			       v))
			return -EMSGSIZE;
		nl_nest_end(&m, entry);
	}
	nl_nest_end(&m, table);
	return nl_emit(r, &m);
}

/*
 * Without a resource, the port's counters; a dump of the QP counters
 * bound finds none (SoftEFA binds none).  Counter modes and binding are
 * not SoftEFA's.
 */
int nldev_stat_get(const struct nl_req *r)
{
	uint32_t res;

	if (!r->dump)
		return r->tb[RDMA_NLDEV_ATTR_STAT_RES] ? -EOPNOTSUPP :
		       stat_default(r);
	if (nl_get_u32(r, RDMA_NLDEV_ATTR_STAT_RES, &res))
		return -EINVAL;
	return res == RDMA_NLDEV_ATTR_RES_QP ? nl_done(r, 0) : -EOPNOTSUPP;
}
