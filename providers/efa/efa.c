// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Registration with libibverbs: which devices are ours and how a device
 * object is made for them.
 */

#include <stdlib.h>

#include "efa.h"

#define PCI_VENDOR_ID_AMAZON 0x1d0f

#define EFA_PCI_MATCH(_device)                                                 \
	{                                                                      \
		.vendor = PCI_VENDOR_ID_AMAZON,                                \
		.device = (_device),                                           \
		.kind = VERBS_MATCH_PCI,                                       \
	}

/*
 * The driver id matches devices found over netlink; the PCI ids match the
 * modalias of devices found in sysfs, which is how libibverbs sees a device
 * when the kernel has no RDMA netlink (and under SoftEFA).
 */
static const struct verbs_match_ent efa_match_table[] = {
	{ .u.driver_id = RDMA_DRIVER_EFA, .kind = VERBS_MATCH_DRIVER_ID },
	EFA_PCI_MATCH(0xefa0),
	EFA_PCI_MATCH(0xefa1),
	EFA_PCI_MATCH(0xefa2),
	EFA_PCI_MATCH(0xefa3),
	EFA_PCI_MATCH(0xefa4),
	{ .kind = VERBS_MATCH_SENTINEL },
};

static struct verbs_device *efa_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct efa_dev *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	return &dev->vdev;
}

static void efa_uninit_device(struct verbs_device *vdev)
{
	free((struct efa_dev *)((char *)vdev - offsetof(struct efa_dev, vdev)));
}

const struct verbs_device_ops efa_dev_ops = {
	.name = "efa",
	.match_min_abi_version = EFA_ABI_VERSION,
	.match_max_abi_version = EFA_ABI_VERSION,
	.match_table = efa_match_table,
	.alloc_device = efa_alloc_device,
	.uninit_device = efa_uninit_device,
	.alloc_context = efa_alloc_context,
};

/*
 * The name a static link asks for, as rdma-core's providers define it:
 * RDMA_STATIC_PROVIDERS=efa makes ibv_get_device_list() refer to it, which
 * pulls the provider out of libefa.a.  libefa.so.1 keeps it local.
 */
extern const struct verbs_device_ops verbs_provider_efa
	__attribute__((alias("efa_dev_ops")));

bool efa_is_dev(const struct ibv_device *ibdev)
{
	return verbs_get_device(ibdev)->ops == &efa_dev_ops;
}

/*
 * Runs when libibverbs dlopen()s us as a plugin, and equally when an
 * application links or preloads libefa.so.1 directly: either way the
 * driver is known before the device list is built.
 */
static void __attribute__((constructor)) efa_register_driver(void)
{
	verbs_register_driver(&efa_dev_ops);
}
