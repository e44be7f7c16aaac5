// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sysfs tree libibverbs reads when RDMA netlink is absent (it is, under
 * the shim) and libibumad reads always (the shim redirects its hard-coded
 * /sys/class/infiniband*), and the device nodes the shim stands in for.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "softefad.h"

static int mkdir_p(const char *path)
{
	char tmp[PATH_MAX];
	char *p;

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(tmp, 0755) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (mkdir(tmp, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

/*
 * Write "<content>\n" to <root>/<dir>/<name>, creating the directories.
 * The file is replaced whole: a reader never sees it half written.
 */
static int __attribute__((format(printf, 4, 5)))
put(const char *root, const char *base, const char *name, const char *fmt, ...)
{
	char full[PATH_MAX], tmp[PATH_MAX + 8], *slash;
	va_list ap;
	FILE *f;
	int ret;

	if (snprintf(full, sizeof(full), "%s/%s/%s", root, base, name) >=
	    (int)sizeof(full))
		return -ENAMETOOLONG;
	snprintf(tmp, sizeof(tmp), "%s.new", full);
	slash = strrchr(tmp, '/');
	*slash = 0;
	ret = mkdir_p(tmp);
	if (ret)
		return ret;
	*slash = '/';

	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	if (fclose(f) || rename(tmp, full))
		return -errno;
	return 0;
}

static void guid_str(uint64_t g, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x:%04x:%04x", (unsigned int)(g >> 48),
		 (unsigned int)(g >> 32) & 0xffff,
		 (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
}

#define PUT(root, base, name, ...) do {				\
		int __ret = put(root, base, name, __VA_ARGS__);	\
		if (__ret)					\
			return __ret;				\
	} while (0)

/*
 * What libibumad (and so ibstat) reads of port 1, besides the files
 * libibverbs wants: every one of these is mandatory to it.
 */
static int port_tree(const struct sefa_device *dev, const char *sys,
		     const char *ib)
{
	const struct sefa_profile *p = dev->profile;
	char port[160], gid[64];

	snprintf(port, sizeof(port), "%s/ports/1", ib);
	sefa_gid_str(dev->gid, gid, sizeof(gid));
	PUT(sys, port, "gids/0", "%s", gid);
	PUT(sys, port, "pkeys/0", "0xffff");
	PUT(sys, port, "lid", "0x%x", dev->lid);
	PUT(sys, port, "lid_mask_count", "%u", p->has_lid ? 0 : 1);
	PUT(sys, port, "sm_lid", "0x%x", dev->sm_lid);
	PUT(sys, port, "sm_sl", "0");
	PUT(sys, port, "state", "4: ACTIVE");
	PUT(sys, port, "phys_state", "5: LinkUp");
	PUT(sys, port, "rate", "100 Gb/sec (4X EDR)");
	PUT(sys, port, "cap_mask", "0x%08x", dev->cap_mask);
	PUT(sys, port, "link_layer", "%s",
	    p->link_layer == 1 ? "InfiniBand" : "Unknown");
	return 0;
}

/*
 * ib_umad's nodes of port 1: umadN and issmN, N the device index (one
 * port each), under class/infiniband_mad and in the device directory.
 */
static int umad_tree(const char *run_dir, const char *sys,
		     const struct sefa_device *dev)
{
	static const struct {
		const char *name;
		unsigned int minor_base;
	} nodes[] = {
		{ "umad", SEFA_UMAD_BASE_MINOR },
		{ "issm", SEFA_ISSM_BASE_MINOR },
	};
	char base[96], node[32];
	size_t i;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		unsigned int minor = nodes[i].minor_base + dev->index;

		snprintf(node, sizeof(node), "%s%u", nodes[i].name, dev->index);
		snprintf(base, sizeof(base), "class/infiniband_mad/%s", node);
		PUT(sys, base, "ibdev", "%s", dev->name);
		PUT(sys, base, "port", "1");
		PUT(sys, base, "dev", "%u:%u", SEFA_UMAD_MAJOR, minor);
		PUT(run_dir, SEFA_DEV_DIR, node, "%u:%u", SEFA_UMAD_MAJOR,
		    minor);
	}
	return 0;
}

static int device_tree(const struct sefa_daemon *d,
		       const struct sefa_device *dev, const char *sys)
{
	const struct sefa_profile *p = dev->profile;
	char ib[128], uv[128], guid[32], node[32];
	int ret;

	snprintf(ib, sizeof(ib), "class/infiniband/%s", dev->name);
	snprintf(uv, sizeof(uv), "class/infiniband_verbs/uverbs%u", dev->index);
	snprintf(node, sizeof(node), "uverbs%u", dev->index);
	guid_str(dev->node_guid, guid, sizeof(guid));

	PUT(sys, uv, "ibdev", "%s", dev->name);
	PUT(sys, uv, "abi_version", "1");
	PUT(sys, uv, "dev", "%u:%u", SEFA_UVERBS_MAJOR,
	    SEFA_UVERBS_BASE_MINOR + dev->index);
	/* The device node: only its existence matters, the shim reports a cdev. */
	PUT(d->run_dir, SEFA_DEV_DIR, node, "%u:%u", SEFA_UVERBS_MAJOR,
	    SEFA_UVERBS_BASE_MINOR + dev->index);
	PUT(sys, ib, "node_type", "%s", p->node_type_str);
	PUT(sys, ib, "node_guid", "%s", guid);
	PUT(sys, ib, "sys_image_guid", "%s", guid);
	PUT(sys, ib, "node_desc", "SoftEFA host %u %s", d->host_id, dev->name);
	PUT(sys, ib, "fw_ver", "0.0.0.0");
	PUT(sys, ib, "hw_rev", "0x%x", SEFA_HW_REV);
	PUT(sys, ib, "device/vendor", "0x%04x", SEFA_VENDOR_ID);
	PUT(sys, ib, "device/device", "0x%04x", p->vendor_part_id);
	PUT(sys, ib, "device/modalias",
	    "pci:v%08Xd%08Xsv%08Xsd%08Xbc02sc00i00", SEFA_VENDOR_ID,
	    p->vendor_part_id, SEFA_VENDOR_ID, p->vendor_part_id);
	ret = port_tree(dev, sys, ib);
	if (ret || !p->has_mad)
		return ret;
	return umad_tree(d->run_dir, sys, dev);
}

static int sysfs_root(const struct sefa_daemon *d, char *sys, size_t len)
{
	if (snprintf(sys, len, "%s/" SEFA_SYSFS_DIR, d->run_dir) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/* The port's capability mask changed (an SM came or went). */
int sefa_sysfs_port_update(const struct sefa_daemon *d,
			   const struct sefa_device *dev)
{
	char sys[PATH_MAX], port[96];
	int ret = sysfs_root(d, sys, sizeof(sys));

	if (ret)
		return ret;
	snprintf(port, sizeof(port), "class/infiniband/%s/ports/1", dev->name);
	return put(sys, port, "cap_mask", "0x%08x", dev->cap_mask);
}

int sefa_sysfs_create(const struct sefa_daemon *d)
{
	char sys[PATH_MAX];
	unsigned int i;
	int ret;

	sefa_sysfs_remove(d);
	ret = sysfs_root(d, sys, sizeof(sys));
	if (ret)
		return ret;
	PUT(sys, "class/infiniband_verbs", "abi_version", "6");
	/* ib_umad is loaded even where no port offers MADs (real EFA). */
	PUT(sys, "class/infiniband_mad", "abi_version", "%u",
	    SEFA_UMAD_ABI_VERSION);
	for (i = 0; i < d->ndev; i++) {
		ret = device_tree(d, &d->dev[i], sys);
		if (ret)
			return ret;
	}
	return 0;
}
#undef PUT

static int rm_entry(const char *path, const struct stat *st, int flag,
		    struct FTW *ftw)
{
	return remove(path) && errno != ENOENT ? -1 : 0;
}

static void rm_tree(const char *run_dir, const char *sub)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", run_dir, sub) >=
	    (int)sizeof(path))
		return;
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void sefa_sysfs_remove(const struct sefa_daemon *d)
{
	rm_tree(d->run_dir, SEFA_SYSFS_DIR);
	rm_tree(d->run_dir, "dev");
}
