// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sysfs tree libibverbs reads when RDMA netlink is absent (it is, under
 * the shim), and the device nodes the shim stands in for.
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

/* Write "<content>\n" to <root>/<dir>/<name>, creating the directories. */
static int __attribute__((format(printf, 4, 5)))
put(const char *root, const char *base, const char *name, const char *fmt, ...)
{
	char full[PATH_MAX], dir[PATH_MAX], *slash;
	va_list ap;
	FILE *f;
	int ret;

	if (snprintf(full, sizeof(full), "%s/%s/%s", root, base, name) >=
	    (int)sizeof(full))
		return -ENAMETOOLONG;
	strcpy(dir, full);
	slash = strrchr(dir, '/');
	*slash = 0;
	ret = mkdir_p(dir);
	if (ret)
		return ret;

	f = fopen(full, "we");
	if (!f)
		return -errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	return fclose(f) ? -errno : 0;
}

static int device_tree(const struct sefa_daemon *d,
		       const struct sefa_device *dev, const char *sys)
{
	const struct sefa_profile *p = dev->profile;
	char ib[128], uv[128], gid[64];
	uint64_t g = dev->node_guid;
	int ret = 0;

	snprintf(ib, sizeof(ib), "class/infiniband/%s", dev->name);
	snprintf(uv, sizeof(uv), "class/infiniband_verbs/uverbs%u", dev->index);
	sefa_gid_str(dev->gid, gid, sizeof(gid));

#define PUT(base, name, ...) do {				\
		ret = put(sys, base, name, __VA_ARGS__);	\
		if (ret)					\
			return ret;				\
	} while (0)
	PUT(uv, "ibdev", "%s", dev->name);
	PUT(uv, "abi_version", "1");
	PUT(uv, "dev", "%u:%u", SEFA_UVERBS_MAJOR,
	    SEFA_UVERBS_BASE_MINOR + dev->index);
	PUT(ib, "node_type", "%s", p->node_type_str);
	PUT(ib, "node_guid", "%04x:%04x:%04x:%04x",
	    (unsigned int)(g >> 48), (unsigned int)(g >> 32) & 0xffff,
	    (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	PUT(ib, "sys_image_guid", "%04x:%04x:%04x:%04x",
	    (unsigned int)(g >> 48), (unsigned int)(g >> 32) & 0xffff,
	    (unsigned int)(g >> 16) & 0xffff, (unsigned int)g & 0xffff);
	PUT(ib, "node_desc", "SoftEFA host %u %s", d->host_id, dev->name);
	PUT(ib, "fw_ver", "0.0.0.0");
	PUT(ib, "device/vendor", "0x%04x", SEFA_VENDOR_ID);
	PUT(ib, "device/device", "0x%04x", p->vendor_part_id);
	PUT(ib, "device/modalias",
	    "pci:v%08Xd%08Xsv%08Xsd%08Xbc02sc00i00", SEFA_VENDOR_ID,
	    p->vendor_part_id, SEFA_VENDOR_ID, p->vendor_part_id);
	PUT(ib, "ports/1/gids/0", "%s", gid);
	PUT(ib, "ports/1/pkeys/0", "0xffff");
	PUT(ib, "ports/1/lid", "0x%x", dev->lid);
	PUT(ib, "ports/1/sm_lid", "0x%x", dev->sm_lid);
	PUT(ib, "ports/1/state", "4: ACTIVE");
	PUT(ib, "ports/1/phys_state", "5: LinkUp");
	PUT(ib, "ports/1/link_layer", "%s",
	    p->link_layer == 1 ? "InfiniBand" : "Unknown");
#undef PUT
	return 0;
}

/* The device node: only its existence matters, the shim reports a cdev. */
static int device_node(const char *run_dir, const struct sefa_device *dev)
{
	char path[64];

	snprintf(path, sizeof(path), "uverbs%u", dev->index);
	return put(run_dir, SEFA_DEV_DIR, path, "%u:%u", SEFA_UVERBS_MAJOR,
		   SEFA_UVERBS_BASE_MINOR + dev->index);
}

int sefa_sysfs_create(const struct sefa_daemon *d)
{
	char sys[PATH_MAX];
	unsigned int i;
	int ret;

	sefa_sysfs_remove(d);
	if (snprintf(sys, sizeof(sys), "%s/" SEFA_SYSFS_DIR, d->run_dir) >=
	    (int)sizeof(sys))
		return -ENAMETOOLONG;
	ret = put(sys, "class/infiniband_verbs", "abi_version", "6");
	if (ret)
		return ret;
	for (i = 0; i < d->ndev; i++) {
		ret = device_tree(d, &d->dev[i], sys);
		if (ret)
			return ret;
		ret = device_node(d->run_dir, &d->dev[i]);
		if (ret)
			return ret;
	}
	return 0;
}

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
