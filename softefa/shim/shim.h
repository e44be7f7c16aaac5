/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libsoftefa-preload.so: makes /dev/infiniband/{uverbs,umad,issm}N of a
 * SoftEFA host look like character devices to an unmodified process.
 *
 * RDMA netlink is the daemon's too (netlink.c), so iproute2's rdma tool
 * and libibverbs ask it, and libibverbs reads the daemon's sysfs tree
 * (SYSFS_PATH) for the rest; libibumad hard-codes
 * /sys/class/infiniband{,_mad}, so those paths are redirected there for
 * the calls it uses (open, stat, opendir, scandir), as ibsim's umad2sim
 * does.  A device node is reported as its cdev; open() connects to
 * softefad, and read()/write()/ioctl() on that fd are forwarded as (call,
 * pointer, length).  The shim understands no verbs and no MADs: the
 * daemon reads and writes this process's memory itself.
 *
 * wrappers.c holds the libc entry points, and netlink.c those of the
 * socket calls, the only symbols exported; init.c finds the calls they
 * stand in front of, fdtable.c knows which fds are the daemon's,
 * redirect.c where a path goes, call.c how the daemon is asked.
 */
#ifndef SEFA_SOFTEFA_SHIM_SHIM_H
#define SEFA_SOFTEFA_SHIM_SHIM_H

#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "rundir.h"

/* init.c */

/* The daemon's run directory; empty when there is none to ask. */
extern char run_dir[PATH_MAX];

extern int (*real_openat)(int, const char *, int, ...);
extern ssize_t (*real_write)(int, const void *, size_t);
extern ssize_t (*real_read)(int, void *, size_t);
extern int (*real_ioctl)(int, unsigned long, ...);
extern int (*real_close)(int);
extern int (*real_dup)(int);
extern int (*real_dup2)(int, int);
extern int (*real_dup3)(int, int, int);
extern int (*real_fcntl)(int, int, ...);
extern int (*real_socket)(int, int, int);
extern int (*real_fstatat)(int, const char *, struct stat *, int);
extern int (*real_fstat)(int, struct stat *);
extern void *(*real_mmap)(void *, size_t, int, int, int, off_t);
extern int (*real_statx)(int, const char *, int, unsigned int,
			 struct statx *);
extern DIR *(*real_opendir)(const char *);
extern FILE *(*real_fopen)(const char *, const char *);
extern FILE *(*real_fopen64)(const char *, const char *);
typedef int (*filter_fn)(const struct dirent *);
typedef int (*compar_fn)(const struct dirent **, const struct dirent **);
extern int (*real_scandir)(const char *, struct dirent ***, filter_fn,
			   compar_fn);
typedef int (*filter64_fn)(const struct dirent64 *);
typedef int (*compar64_fn)(const struct dirent64 **,
			   const struct dirent64 **);
extern int (*real_scandir64)(const char *, struct dirent64 ***, filter64_fn,
			     compar64_fn);

void ensure_init(void);

/* redirect.c */

/* The device nodes the daemon stands behind. */
enum node_kind { NODE_UVERBS, NODE_UMAD, NODE_ISSM };

struct node_type {
	const char *name;
	unsigned int major, minor_base;
	uint32_t open_op;
};

extern const struct node_type nodes[];

int fake_cdev_stat(enum node_kind kind, unsigned int index, struct stat *st);
const char *sys_redirect(const char *path, char *buf, size_t len);
int redirect_open(int dirfd, const char *path, int flags, mode_t mode);
int redirect_fstatat(int dirfd, const char *path, struct stat *st, int flags);
int redirect_statx(int dirfd, const char *path, int flags, unsigned int mask,
		   struct statx *stx);

/* fdtable.c */

/*
 * One open of a device node; dup()ed fds share it, as they share a file.
 * The fd the process holds is what the daemon handed over at the open
 * (proto.h): for uverbsN the file's memory, so that mmap(2) works even
 * unseen by us, for umadN the file's readiness socket, so that poll()
 * works; the connection is one more fd of ours.  issmN's fd is the
 * connection itself.
 */
struct shim_file {
	enum node_kind kind;
	unsigned int index;	/* the N of the node */
	int conn;		/* the connection; -1 when the fd is */
	unsigned int refs;	/* fds naming it, under files_lock */
	pthread_mutex_t lock;	/* one system call on the wire at a time */
};

struct shim_file *file_new(enum node_kind kind, unsigned int index);
void file_free(struct shim_file *f);
struct shim_file *file_get(int fd);
int file_install(int fd, struct shim_file *f);
struct shim_file *file_hold(int fd);
void file_release(void);
int file_node(int fd, enum node_kind *kind, unsigned int *index);
void file_forget(int fd);
int file_dup(int oldfd, int newfd);

/* netlink.c */
int nl_socket(int type);
void nl_forget(int fd);

/* call.c */

/* events.c */
void event_fd_watch(int fd, enum sefa_fd_kind kind, int dev_fd);
void event_fd_forget(int fd);
bool event_fd_watched(int fd);
ssize_t event_fd_read(int fd, void *buf, size_t count);

int open_node(enum node_kind kind, unsigned int index, int flags);
int64_t shim_call(int fd, uint32_t op, uint64_t arg, uint64_t addr,
		  uint64_t len, int *keep_fd);
ssize_t node_read(int fd, enum node_kind kind, void *buf, size_t count);
void *node_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off);

#endif
