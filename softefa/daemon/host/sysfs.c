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
#include <stddef.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hoststate.h"
#include "host/host.h"
#include "host/port.h"

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
 * Entries are made under a temporary name and renamed into place, so a
 * reader never sees one half made.  Fill @full with <root>/<base>/<name>
 * and @tmp with its temporary name, creating the parent directories.
 */
struct entry_path {
	char full[PATH_MAX];
	char tmp[PATH_MAX + 8];
};

static int entry_prepare(struct entry_path *e, const char *root,
			 const char *base, const char *name)
{
	char *slash;
	int ret;

	if (snprintf(e->full, sizeof(e->full), "%s/%s/%s", root, base, name) >=
	    (int)sizeof(e->full))
		return -ENAMETOOLONG;
	snprintf(e->tmp, sizeof(e->tmp), "%s.new", e->full);
	slash = strrchr(e->tmp, '/');
	*slash = 0;
	ret = mkdir_p(e->tmp);
	*slash = '/';
	return ret;
}

/* Write "<content>\n" to <root>/<base>/<name>. */
static int __attribute__((format(printf, 4, 5)))
put(const char *root, const char *base, const char *name, const char *fmt, ...)
{
	struct entry_path e;
	va_list ap;
	FILE *f;
	int ret;

	ret = entry_prepare(&e, root, base, name);
	if (ret)
		return ret;
	f = fopen(e.tmp, "we");
	if (!f)
		return -errno;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	if (fclose(f) || rename(e.tmp, e.full))
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
 * The port's state and physical state as ib_core's sysfs shows them,
 * number and name: "4: ACTIVE", "5: LinkUp".
 */
static int put_port_state(const char *sys, const char *port,
			  const struct sefa_device *dev)
{
	enum ibv_port_state state = sefa_port_state(dev);
	enum sefa_phys_state phys = sefa_port_phys_state(dev);

	PUT(sys, port, "state", "%d: %s", state,
	    state == IBV_PORT_ACTIVE ? "ACTIVE" : "DOWN");
	return put(sys, port, "phys_state", "%d: %s", phys,
		   phys == SEFA_PHYS_LINK_UP ? "LinkUp" : "Disabled");
}

/*
 * What libibumad (and so ibstat) reads of port 1, besides the files
 * libibverbs wants: every one of these is mandatory to it.
 */
static int port_tree(const struct sefa_device *dev, const char *sys,
		     const char *ib)
{
	const struct sefa_profile *p = dev->profile;
	char port[PATH_MAX], gid[64];
	int ret;

	if (snprintf(port, sizeof(port), "%s/ports/1", ib) >= (int)sizeof(port))
		return -ENAMETOOLONG;
	sefa_gid_str(dev->gid, gid, sizeof(gid));
	PUT(sys, port, "gids/0", "%s", gid);
	PUT(sys, port, "pkeys/0", "0xffff");
	PUT(sys, port, "lid", "0x%x", dev->lid);
	PUT(sys, port, "lid_mask_count", "%u", p->has_lid ? 0 : 1);
	PUT(sys, port, "sm_lid", "0x%x", dev->sm_lid);
	PUT(sys, port, "sm_sl", "0");
	ret = put_port_state(sys, port, dev);
	if (ret)
		return ret;
	PUT(sys, port, "rate", "%s", sefa_link_rate_str(p->link_gbps));
	PUT(sys, port, "cap_mask", "0x%08x", dev->cap_mask);
	PUT(sys, port, "link_layer", "%s",
	    p->link_layer == 1 ? "InfiniBand" : "Unknown");
	return 0;
}

/*
 * The efa driver's hw_counters: port counters in ports/1/hw_counters,
 * admin command counters in hw_counters; their names are counters.c's.
 */
/* The files of @n counters in @sub of the device's directory, from @k. */
static int counters_put(const char *sys, const struct sefa_device *dev,
			const char *sub, const struct sefa_counter_name *f,
			size_t n, const void *k)
{
	char dir[128];
	size_t i;

	snprintf(dir, sizeof(dir), "class/infiniband/%s/%s", dev->name, sub);
	for (i = 0; i < n; i++) {
		if (!f[i].sysfs)
			continue;
		PUT(sys, dir, f[i].sysfs, "%llu",
		    (unsigned long long)sefa_counter_value(&f[i], k));
	}
	return 0;
}

static int port_counters_put(const char *sys, const struct sefa_device *dev,
			     const struct sefa_counters *k)
{
	return counters_put(sys, dev, "ports/1/hw_counters", sefa_port_counter_names,
			    sefa_port_counter_count, k);
}

static int device_counters_put(const char *sys, const struct sefa_device *dev,
			       const struct sefa_admin_counters *k)
{
	return counters_put(sys, dev, "hw_counters", sefa_device_counter_names,
			    sefa_device_counter_count, k);
}

static int counters_tree(const char *sys, const char *ib,
			 const struct sefa_device *dev)
{
	const struct sefa_admin_counters no_cmds = {};
	const struct sefa_counters zero = {};
	char dir[PATH_MAX];
	int ret;

	if (snprintf(dir, sizeof(dir), "%s/hw_counters", ib) >=
	    (int)sizeof(dir))
		return -ENAMETOOLONG;
	ret = device_counters_put(sys, dev, &no_cmds);
	if (ret)
		return ret;
	PUT(sys, dir, "lifespan", "%u", SEFA_HW_COUNTERS_LIFESPAN_MS);
	PUT(sys, ib, "ports/1/hw_counters/lifespan", "%u",
	    SEFA_HW_COUNTERS_LIFESPAN_MS);
	return port_counters_put(sys, dev, &zero);
}

/*
 * A real EFA device is a PCI function bound to the efa driver, and every
 * class directory of it is a link into that function's directory, as the
 * driver core makes them:
 *
 *   devices/pci0000:00/0000:00:NN.0/            vendor, device, ..., driver
 *     infiniband/efa_N/                         node_type, ports/1/..., device
 *     infiniband_verbs/uverbsN/                 ibdev, abi_version, dev
 *     infiniband_mad/{umadN,issmN}/             (profiles with MADs)
 *   class/infiniband/efa_N -> ../../devices/pci0000:00/0000:00:NN.0/...
 *   bus/pci/drivers/efa/{0000:00:NN.0,module}, module/efa/version
 *
 * libfabric resolves class/infiniband/<dev>/device and parses its last
 * component as a PCI address, and takes the driver's name from the last
 * component of device/driver.
 */
#define SEFA_PCI_SLOT0		0x10	/* slot of device 0 on bus 0 */
#define SEFA_PCI_CLASS		0x020000	/* network controller, Ethernet */
#define SEFA_PCI_REVISION	0x00
/* The out-of-tree efa driver's version, the one EFA installers load. */
#define SEFA_EFA_DRV_VERSION	"3.1.0g"

/*
 * Make <root>/<base>/<name> a symbolic link to the formatted target,
 * relative as sysfs's are, so the tree holds wherever the run directory
 * lives.
 */
static int __attribute__((format(printf, 4, 5)))
put_link(const char *root, const char *base, const char *name,
	 const char *fmt, ...)
{
	char target[PATH_MAX];
	struct entry_path e;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vsnprintf(target, sizeof(target), fmt, ap);
	va_end(ap);
	if (ret >= (int)sizeof(target))
		return -ENAMETOOLONG;
	ret = entry_prepare(&e, root, base, name);
	if (ret)
		return ret;
	unlink(e.tmp);
	if (symlink(target, e.tmp) || rename(e.tmp, e.full))
		return -errno;
	return 0;
}

#define LINK(root, base, name, ...) do {				\
		int __ret = put_link(root, base, name, __VA_ARGS__);	\
		if (__ret)						\
			return __ret;					\
	} while (0)

/* Where the device's PCI function hangs: "0000:00:NN.0". */
static void pci_addr(const struct sefa_device *dev, char *buf, size_t len)
{
	snprintf(buf, len, "0000:00:%02x.0", SEFA_PCI_SLOT0 + dev->index);
}

/* One line of a host file, without its newline; empty when unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, (int)len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * "0-3,8" as the kernel prints the same set as a mask: 32-bit groups,
 * most significant first, the first one only as wide as the CPU count
 * needs ("3" for CPUs 0-1, "ff,ffffffff" for 0-39).
 */
static void cpulist_to_mask(const char *list, char *buf, size_t len)
{
	uint32_t word[32] = {};
	unsigned long lo, hi, c, nbits = 1;
	const char *s = list;
	char *end;
	size_t off;
	int w;

	while (*s) {
		lo = strtoul(s, &end, 10);
		hi = *end == '-' ? strtoul(end + 1, &end, 10) : lo;
		if (end == s || hi < lo || hi >= 32 * 32)
			break;
		for (c = lo; c <= hi; c++)
			word[c / 32] |= 1u << (c % 32);
		nbits = hi + 1 > nbits ? hi + 1 : nbits;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			break;
	}
	if (!word[0] && nbits == 1)
		word[0] = 1;
	w = (int)(nbits - 1) / 32;
	off = snprintf(buf, len, "%0*x", (int)((nbits - 32 * w + 3) / 4),
		       word[w]);
	while (--w >= 0 && off < len)
		off += snprintf(buf + off, len - off, ",%08x", word[w]);
}

/*
 * The CPUs near the device, as the host's kernel prints them: NUMA node
 * 0's, or every online CPU on a machine without nodes (numa_node -1, as
 * the kernel reports a device outside any node).
 */
struct cpu_place {
	int numa_node;
	char mask[256];
	char list[256];
};

static void cpu_place(struct cpu_place *c)
{
	read_line("/sys/devices/system/node/node0/cpumap", c->mask,
		  sizeof(c->mask));
	read_line("/sys/devices/system/node/node0/cpulist", c->list,
		  sizeof(c->list));
	c->numa_node = c->mask[0] && c->list[0] ? 0 : -1;
	if (c->numa_node < 0) {
		read_line("/sys/devices/system/cpu/online", c->list,
			  sizeof(c->list));
		cpulist_to_mask(c->list, c->mask, sizeof(c->mask));
	}
}

/* The PCI function: configuration-space identity and the bound driver. */
static int pci_tree(const struct sefa_device *dev, const char *sys,
		    const char *pci, const struct cpu_place *cpu)
{
	const struct sefa_profile *p = dev->profile;
	char alias[64];

	snprintf(alias, sizeof(alias),
		 "pci:v%08Xd%08Xsv%08Xsd%08Xbc%02Xsc%02Xi%02X",
		 SEFA_VENDOR_ID, p->vendor_part_id, SEFA_VENDOR_ID,
		 p->vendor_part_id, SEFA_PCI_CLASS >> 16,
		 (SEFA_PCI_CLASS >> 8) & 0xff, SEFA_PCI_CLASS & 0xff);
	PUT(sys, pci, "vendor", "0x%04x", SEFA_VENDOR_ID);
	PUT(sys, pci, "device", "0x%04x", p->vendor_part_id);
	PUT(sys, pci, "subsystem_vendor", "0x%04x", SEFA_VENDOR_ID);
	/* The efa driver reports it as hw_ver, which is the part id. */
	PUT(sys, pci, "subsystem_device", "0x%04x", p->vendor_part_id);
	PUT(sys, pci, "class", "0x%06x", SEFA_PCI_CLASS);
	PUT(sys, pci, "revision", "0x%02x", SEFA_PCI_REVISION);
	PUT(sys, pci, "numa_node", "%d", cpu->numa_node);
	PUT(sys, pci, "local_cpus", "%s", cpu->mask);
	PUT(sys, pci, "local_cpulist", "%s", cpu->list);
	PUT(sys, pci, "enable", "1");
	PUT(sys, pci, "modalias", "%s", alias);
	PUT(sys, pci, "uevent",
	    "DRIVER=efa\nPCI_CLASS=%X\nPCI_ID=%04X:%04X\nPCI_SUBSYS_ID=%04X:%04X\n"
	    "PCI_SLOT_NAME=%s\nMODALIAS=%s", SEFA_PCI_CLASS, SEFA_VENDOR_ID,
	    p->vendor_part_id, SEFA_VENDOR_ID, p->vendor_part_id,
	    strrchr(pci, '/') + 1, alias);
	LINK(sys, pci, "driver", "../../../bus/pci/drivers/efa");
	LINK(sys, pci, "subsystem", "../../../bus/pci");
	return 0;
}

/*
 * A class device of the function: its directory under the function, the
 * link to it from class/<class>, and its own device and subsystem links.
 */
static int class_dev(const char *sys, const char *pci, const char *class,
		     const char *name, char *dir, size_t len)
{
	char cls[64];

	if (snprintf(dir, len, "%s/%s/%s", pci, class, name) >= (int)len)
		return -ENAMETOOLONG;
	snprintf(cls, sizeof(cls), "class/%s", class);
	LINK(sys, cls, name, "../../%s", dir);
	LINK(sys, dir, "device", "../../../%s", strrchr(pci, '/') + 1);
	LINK(sys, dir, "subsystem", "../../../../../class/%s", class);
	return 0;
}

/*
 * ib_umad's nodes of port 1: umadN and issmN, N the device index (one
 * port each), under class/infiniband_mad and in the device directory.
 */
static int umad_tree(const char *run_dir, const char *sys, const char *pci,
		     const struct sefa_device *dev)
{
	static const struct {
		const char *name;
		unsigned int minor_base;
	} nodes[] = {
		{ "umad", SEFA_UMAD_BASE_MINOR },
		{ "issm", SEFA_ISSM_BASE_MINOR },
	};
	char base[PATH_MAX], node[32];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		unsigned int minor = nodes[i].minor_base + dev->index;

		snprintf(node, sizeof(node), "%s%u", nodes[i].name, dev->index);
		ret = class_dev(sys, pci, "infiniband_mad", node, base,
				sizeof(base));
		if (ret)
			return ret;
		PUT(sys, base, "ibdev", "%s", dev->name);
		PUT(sys, base, "port", "1");
		PUT(sys, base, "dev", "%u:%u", SEFA_UMAD_MAJOR, minor);
		PUT(run_dir, SEFA_DEV_DIR, node, "%u:%u", SEFA_UMAD_MAJOR,
		    minor);
	}
	return 0;
}

static int device_tree(const struct sefa_daemon *d,
		       const struct sefa_device *dev, const char *sys,
		       const struct cpu_place *cpu)
{
	const struct sefa_profile *p = dev->profile;
	char pci[64], addr[16], ib[PATH_MAX], uv[PATH_MAX], guid[32],
	     node[32];
	int ret;

	pci_addr(dev, addr, sizeof(addr));
	snprintf(pci, sizeof(pci), "devices/pci0000:00/%s", addr);
	snprintf(node, sizeof(node), "uverbs%u", dev->index);
	guid_str(dev->node_guid, guid, sizeof(guid));

	ret = pci_tree(dev, sys, pci, cpu);
	if (ret)
		return ret;
	LINK(sys, "bus/pci/devices", addr, "../../../%s", pci);
	LINK(sys, "bus/pci/drivers/efa", addr, "../../../../%s", pci);

	ret = class_dev(sys, pci, "infiniband_verbs", node, uv, sizeof(uv));
	if (ret)
		return ret;
	PUT(sys, uv, "ibdev", "%s", dev->name);
	PUT(sys, uv, "abi_version", "1");
	PUT(sys, uv, "dev", "%u:%u", SEFA_UVERBS_MAJOR,
	    SEFA_UVERBS_BASE_MINOR + dev->index);
	/* The device node: only its existence matters, the shim reports a cdev. */
	PUT(d->run_dir, SEFA_DEV_DIR, node, "%u:%u", SEFA_UVERBS_MAJOR,
	    SEFA_UVERBS_BASE_MINOR + dev->index);

	ret = class_dev(sys, pci, "infiniband", dev->name, ib, sizeof(ib));
	if (ret)
		return ret;
	PUT(sys, ib, "node_type", "%s", p->node_type_str);
	PUT(sys, ib, "node_guid", "%s", guid);
	PUT(sys, ib, "sys_image_guid", "%s", guid);
	PUT(sys, ib, "node_desc", "SoftEFA host %u %s", d->host_id, dev->name);
	PUT(sys, ib, "fw_ver", "0.0.0.0");
	PUT(sys, ib, "hw_rev", "0x%x", SEFA_HW_REV);
	ret = port_tree(dev, sys, ib);
	if (!ret)
		ret = counters_tree(sys, ib, dev);
	if (ret || !p->has_mad)
		return ret;
	return umad_tree(d->run_dir, sys, pci, dev);
}

/* The efa module and its PCI driver, which every device is bound to. */
static int driver_tree(const char *sys)
{
	PUT(sys, "module/efa", "version", SEFA_EFA_DRV_VERSION);
	PUT(sys, "module/efa", "initstate", "live");
	PUT(sys, "module/efa", "refcnt", "0");
	LINK(sys, "module/efa/drivers", "pci:efa",
	     "../../../bus/pci/drivers/efa");
	LINK(sys, "bus/pci/drivers/efa", "module", "../../../../module/efa");
	return 0;
}

static int sysfs_root(const struct sefa_daemon *d, char *sys, size_t len)
{
	if (snprintf(sys, len, "%s/" SEFA_SYSFS_DIR, d->run_dir) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * What of the port changes while it runs: its capability mask (an SM came
 * or went) and its state (it went down or came up).
 */
int sefa_sysfs_port_update(const struct sefa_daemon *d,
			   const struct sefa_device *dev)
{
	char sys[PATH_MAX], port[96];
	int ret = sysfs_root(d, sys, sizeof(sys));

	if (ret)
		return ret;
	snprintf(port, sizeof(port), "class/infiniband/%s/ports/1", dev->name);
	ret = put_port_state(sys, port, dev);
	if (ret)
		return ret;
	return put(sys, port, "cap_mask", "0x%08x", dev->cap_mask);
}

int sefa_sysfs_create(const struct sefa_daemon *d)
{
	struct cpu_place cpu;
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
	ret = driver_tree(sys);
	if (ret)
		return ret;
	cpu_place(&cpu);
	for (i = 0; i < d->ndev; i++) {
		ret = device_tree(d, &d->dev[i], sys, &cpu);
		if (ret)
			return ret;
	}
	return 0;
}
#undef LINK
#undef PUT

/*
 * Bring hw_counters up to the devices' counters, where they moved: called
 * every SEFA_HW_COUNTERS_LIFESPAN_MS by the main thread, so a value read
 * there is at most that old, as the kernel's cached ones.
 */
void sefa_sysfs_counters_refresh(struct sefa_daemon *d)
{
	struct sefa_admin_counters a[SEFA_MAX_DEVICES];
	struct sefa_counters k[SEFA_MAX_DEVICES];
	struct sefa_device *dev;
	char sys[PATH_MAX];
	unsigned int i;

	if (sysfs_root(d, sys, sizeof(sys)))
		return;
	sefa_daemon_lock(d);
	for (i = 0; i < d->ndev; i++) {
		k[i] = d->dev[i].cnt;
		a[i] = d->dev[i].admin;
	}
	sefa_daemon_unlock(d);
	for (i = 0; i < d->ndev; i++) {
		dev = &d->dev[i];
		if (memcmp(&k[i], &dev->hw_shown, sizeof(k[i])) &&
		    !port_counters_put(sys, dev, &k[i]))
			dev->hw_shown = k[i];
		if (memcmp(&a[i], &dev->admin_shown, sizeof(a[i])) &&
		    !device_counters_put(sys, dev, &a[i]))
			dev->admin_shown = a[i];
	}
}

void sefa_sysfs_remove(const struct sefa_daemon *d)
{
	sefa_rm_tree(d->run_dir, SEFA_SYSFS_DIR);
	sefa_rm_tree(d->run_dir, "dev");
}
