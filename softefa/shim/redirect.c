// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where a path goes: /dev/infiniband/ nodes to the daemon, libibumad's
 * /sys/class/infiniband* paths into the daemon's sysfs tree, the rest
 * where it was.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "shim.h"

#define DEV_PREFIX	"/dev/infiniband/"
#define SYS_PREFIX	"/sys/class/infiniband"

const struct node_type nodes[] = {
	[NODE_UVERBS] = { "uverbs", SEFA_UVERBS_MAJOR, SEFA_UVERBS_BASE_MINOR,
			  SEFA_OP_OPEN },
	[NODE_UMAD] = { "umad", SEFA_UMAD_MAJOR, SEFA_UMAD_BASE_MINOR,
			SEFA_OP_OPEN_UMAD },
	[NODE_ISSM] = { "issm", SEFA_UMAD_MAJOR, SEFA_ISSM_BASE_MINOR,
			SEFA_OP_OPEN_ISSM },
};

/* "/dev/infiniband/<node>N": which node, and N; else -1. */
static int node_parse(const char *path, enum node_kind *kind)
{
	const char *p;
	size_t i, n;
	char *end;
	long index;

	if (!path || strncmp(path, DEV_PREFIX, sizeof(DEV_PREFIX) - 1))
		return -1;
	path += sizeof(DEV_PREFIX) - 1;
	for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
		n = strlen(nodes[i].name);
		if (strncmp(path, nodes[i].name, n))
			continue;
		p = path + n;
		if (*p < '0' || *p > '9')
			return -1;
		index = strtol(p, &end, 10);
		if (*end || index >= SEFA_MAX_DEVICES)
			return -1;
		*kind = i;
		return (int)index;
	}
	return -1;
}

/*
 * libibumad's sysfs paths, moved into the daemon's tree: returns @path
 * itself when it is not one of them (or there is no daemon to ask).
 */
const char *sys_redirect(const char *path, char *buf, size_t len)
{
	static const char *const classes[] = { "", "_mad", "_verbs" };
	const char *rest;
	size_t i, n;

	if (!path || !run_dir[0] ||
	    strncmp(path, SYS_PREFIX, sizeof(SYS_PREFIX) - 1))
		return path;
	rest = path + sizeof(SYS_PREFIX) - 1;
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		n = strlen(classes[i]);
		if (strncmp(rest, classes[i], n) ||
		    (rest[n] && rest[n] != '/'))
			continue;
		if (snprintf(buf, len, "%s/" SEFA_SYSFS_DIR "%s", run_dir,
			     path + sizeof("/sys") - 1) >= (int)len)
			return path;
		return buf;
	}
	return path;
}

/* The daemon's stand-in for the node, present while the device is. */
int fake_cdev_stat(enum node_kind kind, unsigned int index, struct stat *st)
{
	char path[PATH_MAX];

	ensure_init();
	if (!run_dir[0] ||
	    snprintf(path, sizeof(path), "%s/" SEFA_DEV_DIR "/%s%u",
		     run_dir, nodes[kind].name, index) >= (int)sizeof(path)) {
		errno = ENOENT;
		return -1;
	}
	if (real_fstatat(AT_FDCWD, path, st, 0))
		return -1;
	/*
	 * As the kernel makes them: uverbsN for everyone, umadN and issmN
	 * for their owner (the daemon's user stands in for root).
	 */
	st->st_mode = S_IFCHR | (kind == NODE_UVERBS ? 0666 : 0600);
	st->st_rdev = makedev(nodes[kind].major,
			      nodes[kind].minor_base + index);
	st->st_size = 0;
	return 0;
}

int redirect_open(int dirfd, const char *path, int flags, mode_t mode)
{
	char buf[PATH_MAX];
	enum node_kind kind;
	int index;

	ensure_init();
	index = node_parse(path, &kind);
	if (index >= 0)
		return open_node(kind, index, flags);
	path = sys_redirect(path, buf, sizeof(buf));
	if (flags & (O_CREAT | O_TMPFILE))
		return real_openat(dirfd, path, flags, mode);
	return real_openat(dirfd, path, flags);
}

int redirect_fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	char buf[PATH_MAX];
	enum node_kind kind;
	int index;

	ensure_init();
	index = node_parse(path, &kind);
	if (index >= 0)
		return fake_cdev_stat(kind, index, st);
	return real_fstatat(dirfd, sys_redirect(path, buf, sizeof(buf)), st,
			    flags);
}

int redirect_statx(int dirfd, const char *path, int flags, unsigned int mask,
		   struct statx *stx)
{
	char buf[PATH_MAX];
	enum node_kind kind;
	struct stat st;
	int index;

	ensure_init();
	index = node_parse(path, &kind);
	if (index < 0)
		return real_statx(dirfd, sys_redirect(path, buf, sizeof(buf)),
				  flags, mask, stx);
	if (fake_cdev_stat(kind, index, &st))
		return -1;
	memset(stx, 0, sizeof(*stx));
	stx->stx_mask = STATX_TYPE | STATX_MODE | STATX_INO | STATX_NLINK;
	stx->stx_mode = st.st_mode;
	stx->stx_ino = st.st_ino;
	stx->stx_nlink = st.st_nlink;
	stx->stx_rdev_major = major(st.st_rdev);
	stx->stx_rdev_minor = minor(st.st_rdev);
	stx->stx_dev_major = major(st.st_dev);
	stx->stx_dev_minor = minor(st.st_dev);
	return 0;
}
