// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libsoftefa-preload.so: makes /dev/infiniband/{uverbs,umad,issm}N of a
 * SoftEFA host look like character devices to an unmodified process.
 *
 * RDMA netlink is refused so libibverbs reads the daemon's sysfs tree
 * (SYSFS_PATH); libibumad hard-codes /sys/class/infiniband{,_mad}, so those
 * paths are redirected there for the calls it uses (open, stat, opendir,
 * scandir), as ibsim's umad2sim does.  A device node is reported as its
 * cdev; open() connects to softefad, and read()/write()/ioctl() on that fd
 * are forwarded as (call, pointer, length).  The shim understands no verbs
 * and no MADs: the daemon reads and writes this process's memory itself.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "rundir.h"

#define EXPORT __attribute__((visibility("default")))

#define DEV_PREFIX	"/dev/infiniband/"
#define SYS_PREFIX	"/sys/class/infiniband"
#define FD_PAGE_BITS	10
#define FD_PAGE_SIZE	(1 << FD_PAGE_BITS)
#define FD_PAGES	64

/* The device nodes the daemon stands behind. */
enum node_kind { NODE_UVERBS, NODE_UMAD, NODE_ISSM };

static const struct {
	const char *name;
	unsigned int major, minor_base;
	uint32_t open_op;
} nodes[] = {
	[NODE_UVERBS] = { "uverbs", SEFA_UVERBS_MAJOR, SEFA_UVERBS_BASE_MINOR,
			  SEFA_OP_OPEN },
	[NODE_UMAD] = { "umad", SEFA_UMAD_MAJOR, SEFA_UMAD_BASE_MINOR,
			SEFA_OP_OPEN_UMAD },
	[NODE_ISSM] = { "issm", SEFA_UMAD_MAJOR, SEFA_ISSM_BASE_MINOR,
			SEFA_OP_OPEN_ISSM },
};

/*
 * One open of a device node; dup()ed fds share it, as they share a file.
 * The fd the process holds is the connection to the daemon, except for
 * umadN: there it is the file's readiness socket (proto.h), so poll()
 * works, and the connection is one more fd of ours.
 */
struct shim_file {
	enum node_kind kind;
	unsigned int index;	/* the N of the node */
	int conn;		/* umad: the connection; else -1, the fd is */
	unsigned int refs;	/* fds naming it, under files_lock */
	pthread_mutex_t lock;	/* one system call on the wire at a time */
};

static char run_dir[PATH_MAX];
static _Atomic(struct shim_file *) *fd_pages[FD_PAGES];
static pthread_once_t init_once = PTHREAD_ONCE_INIT;
/*
 * Calls on a uverbs fd hold it for reading; close() and the dup family,
 * which change which fds name which file, hold it for writing.  Other fds
 * never touch it.
 */
static pthread_rwlock_t files_lock = PTHREAD_RWLOCK_INITIALIZER;

static int (*real_open)(const char *, int, ...);
static int (*real_openat)(int, const char *, int, ...);
static ssize_t (*real_write)(int, const void *, size_t);
static ssize_t (*real_read)(int, void *, size_t);
static int (*real_ioctl)(int, unsigned long, ...);
static int (*real_close)(int);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_fcntl)(int, int, ...);
static int (*real_socket)(int, int, int);
static int (*real_fstatat)(int, const char *, struct stat *, int);
static int (*real_fstat)(int, struct stat *);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_statx)(int, const char *, int, unsigned int,
			 struct statx *);
static DIR *(*real_opendir)(const char *);
static FILE *(*real_fopen)(const char *, const char *);
static FILE *(*real_fopen64)(const char *, const char *);
typedef int (*filter_fn)(const struct dirent *);
typedef int (*compar_fn)(const struct dirent **, const struct dirent **);
static int (*real_scandir)(const char *, struct dirent ***, filter_fn,
			   compar_fn);
typedef int (*filter64_fn)(const struct dirent64 *);
typedef int (*compar64_fn)(const struct dirent64 **,
			   const struct dirent64 **);
static int (*real_scandir64)(const char *, struct dirent64 ***, filter64_fn,
			     compar64_fn);

static void *next_sym(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);

	if (!p) {
		fprintf(stderr, "libsoftefa-preload: no %s in libc\n", name);
		abort();
	}
	return p;
}

static void shim_init(void)
{
	real_open = next_sym("open");
	real_openat = next_sym("openat");
	real_write = next_sym("write");
	real_read = next_sym("read");
	real_ioctl = next_sym("ioctl");
	real_close = next_sym("close");
	real_dup = next_sym("dup");
	real_dup2 = next_sym("dup2");
	real_dup3 = next_sym("dup3");
	real_fcntl = next_sym("fcntl");
	real_socket = next_sym("socket");
	real_fstatat = next_sym("fstatat");
	real_fstat = next_sym("fstat");
	real_mmap = next_sym("mmap");
	real_statx = next_sym("statx");
	real_opendir = next_sym("opendir");
	real_fopen = next_sym("fopen");
	real_fopen64 = next_sym("fopen64");
	real_scandir = next_sym("scandir");
	real_scandir64 = next_sym("scandir64");

	if (sefa_run_dir(run_dir, sizeof(run_dir)))
		run_dir[0] = 0;
}

static inline void ensure_init(void)
{
	pthread_once(&init_once, shim_init);
}

__attribute__((constructor)) static void shim_ctor(void)
{
	char sys[PATH_MAX];

	ensure_init();
	/* libibverbs reads SYSFS_PATH lazily, at its first device listing. */
	if (run_dir[0] && !getenv("SYSFS_PATH") &&
	    snprintf(sys, sizeof(sys), "%s/%s", run_dir, SEFA_SYSFS_DIR) <
		    (int)sizeof(sys))
		setenv("SYSFS_PATH", sys, 0);
}

static struct shim_file *file_get(int fd)
{
	_Atomic(struct shim_file *) *page;

	if (fd < 0 || fd >= FD_PAGES * FD_PAGE_SIZE)
		return NULL;
	page = atomic_load_explicit((_Atomic(void *) *)&fd_pages[fd >> FD_PAGE_BITS],
				    memory_order_acquire);
	if (!page)
		return NULL;
	return atomic_load_explicit(&page[fd & (FD_PAGE_SIZE - 1)],
				    memory_order_acquire);
}

static int file_set(int fd, struct shim_file *f)
{
	_Atomic(struct shim_file *) *page, *fresh;
	_Atomic(void *) *slot;
	void *expected = NULL;

	if (fd < 0 || fd >= FD_PAGES * FD_PAGE_SIZE)
		return -EMFILE;
	slot = (_Atomic(void *) *)&fd_pages[fd >> FD_PAGE_BITS];
	page = atomic_load_explicit(slot, memory_order_acquire);
	if (!page) {
		fresh = calloc(FD_PAGE_SIZE, sizeof(*fresh));
		if (!fresh)
			return -ENOMEM;
		if (atomic_compare_exchange_strong(slot, &expected, fresh)) {
			page = fresh;
		} else {
			free(fresh);
			page = expected;
		}
	}
	atomic_store_explicit(&page[fd & (FD_PAGE_SIZE - 1)], f,
			      memory_order_release);
	return 0;
}

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
static const char *sys_redirect(const char *path, char *buf, size_t len)
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
static int fake_cdev_stat(enum node_kind kind, unsigned int index,
			  struct stat *st)
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
	st->st_mode = S_IFCHR | 0666;
	st->st_rdev = makedev(nodes[kind].major,
			      nodes[kind].minor_base + index);
	st->st_size = 0;
	return 0;
}

static int shim_send(int sock, uint32_t op, uint64_t arg, uint64_t addr,
		     uint64_t len)
{
	struct sefa_req req = {
		.op = op, .version = SEFA_PROTO_VERSION,
		.arg = arg, .addr = addr, .len = len,
	};
	ssize_t n;

	do {
		n = send(sock, &req, sizeof(req), MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	return n == sizeof(req) ? 0 : -1;
}

/*
 * Wait for the daemon's answer to one call.  On the way it may hand over a
 * file descriptor (the async event file, say); install it and say which
 * number it got.  A vanished daemon is EIO, like a device that went away.
 */
static int64_t shim_wait(int sock, int *err, int *keep_fd)
{
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct sefa_reply r;
		struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
		struct msghdr msg = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
		};
		struct cmsghdr *cm;
		ssize_t n;
		int fd = -1;

		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
		if (n < 0 && errno == EINTR)
			continue;
		for (cm = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL; cm;
		     cm = CMSG_NXTHDR(&msg, cm))
			if (cm->cmsg_level == SOL_SOCKET &&
			    cm->cmsg_type == SCM_RIGHTS)
				memcpy(&fd, CMSG_DATA(cm), sizeof(int));
		if (n != sizeof(r)) {
			if (fd >= 0)
				real_close(fd);
			*err = EIO;
			return -1;
		}
		if (r.type == SEFA_REPLY_DONE) {
			if (fd >= 0)
				real_close(fd);
			*err = r.err;
			return r.ret;
		}
		if (r.type != SEFA_REPLY_FD || fd < 0 ||
		    shim_send(sock, SEFA_OP_FD_NUM, fd, 0, 0)) {
			if (fd >= 0)
				real_close(fd);
			*err = EIO;
			return -1;
		}
		/* mmap: the memory itself, for the shim to map, not to keep */
		if (keep_fd)
			*keep_fd = fd;
	}
}

/*
 * One system call on uverbs fd @fd.  The file is looked up again under
 * files_lock: another thread may have closed the fd since the caller saw it.
 */
static int64_t shim_call(int fd, uint32_t op, uint64_t arg, uint64_t addr,
			 uint64_t len, int *keep_fd)
{
	struct shim_file *f;
	int64_t ret = -1;
	int err = EBADF;

	pthread_rwlock_rdlock(&files_lock);
	f = file_get(fd);
	if (f) {
		err = EIO;
		pthread_mutex_lock(&f->lock);
		int sock = f->conn >= 0 ? f->conn : fd;

		ret = shim_send(sock, op, arg, addr, len) ? -1 :
		      shim_wait(sock, &err, keep_fd);
		pthread_mutex_unlock(&f->lock);
	}
	pthread_rwlock_unlock(&files_lock);
	if (ret < 0)
		errno = err;
	return ret;
}

/*
 * Which node @fd opened, read under files_lock: a concurrent close() may
 * free the file the moment the lock is gone.  EBADF if @fd is not ours
 * (any more).
 */
static int file_node(int fd, enum node_kind *kind, unsigned int *index)
{
	struct shim_file *f;
	int ret = -EBADF;

	pthread_rwlock_rdlock(&files_lock);
	f = file_get(fd);
	if (f) {
		*kind = f->kind;
		*index = f->index;
		ret = 0;
	}
	pthread_rwlock_unlock(&files_lock);
	return ret;
}

/* Forget that @fd names a uverbs file; files_lock held for writing. */
static void file_drop(int fd)
{
	struct shim_file *f = file_get(fd);

	if (!f)
		return;
	file_set(fd, NULL);
	if (--f->refs)
		return;
	if (f->conn >= 0)
		real_close(f->conn);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

static int daemon_connect(int cloexec)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd;

	if (!run_dir[0] ||
	    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", run_dir,
		     SEFA_SOCKET_NAME) >= (int)sizeof(sa.sun_path)) {
		errno = ENXIO;
		return -1;
	}
	fd = real_socket(AF_UNIX, SOCK_SEQPACKET | (cloexec ? SOCK_CLOEXEC : 0),
			 0);
	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		real_close(fd);
		/* A node without its driver behind it. */
		errno = ENXIO;
		return -1;
	}
	/* Let the daemon, our "kernel", reach our memory under Yama too. */
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		prctl(PR_SET_PTRACER, cred.pid, 0, 0, 0);
	return fd;
}

static int open_node(enum node_kind kind, unsigned int index, int flags)
{
	struct shim_file *f;
	int64_t ret;
	int sock, fd, err, ready = -1;

	f = calloc(1, sizeof(*f));
	if (!f) {
		errno = ENOMEM;
		return -1;
	}
	f->kind = kind;
	f->index = index;
	f->conn = -1;
	pthread_mutex_init(&f->lock, NULL);

	f->refs = 1;
	sock = daemon_connect(flags & O_CLOEXEC);
	if (sock < 0)
		goto err_free;
	err = EIO;
	ret = shim_send(sock, nodes[kind].open_op, index, (unsigned int)flags,
			0) ? -1 : shim_wait(sock, &err, &ready);
	if (ret < 0 || (kind == NODE_UMAD) != (ready >= 0)) {
		errno = ret < 0 ? err : EIO;
		goto err_close;
	}
	fd = sock;
	if (ready >= 0) {
		/* what the process asked for goes to the fd it gets */
		if (!(flags & O_CLOEXEC))
			real_fcntl(ready, F_SETFD, 0);
		if (flags & O_NONBLOCK)
			real_fcntl(ready, F_SETFL, O_NONBLOCK);
		f->conn = sock;
		fd = ready;
	}
	pthread_rwlock_wrlock(&files_lock);
	err = file_set(fd, f);
	pthread_rwlock_unlock(&files_lock);
	if (err) {
		errno = -err;
		goto err_close;
	}
	return fd;

err_close:
	err = errno;
	if (ready >= 0)
		real_close(ready);
	real_close(sock);
	errno = err;
err_free:
	pthread_mutex_destroy(&f->lock);
	free(f);
	return -1;
}

static int do_open(int dirfd, const char *path, int flags, mode_t mode)
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

static mode_t open_mode(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return do_open(AT_FDCWD, path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return do_open(AT_FDCWD, path, flags | O_LARGEFILE, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return do_open(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return do_open(dirfd, path, flags | O_LARGEFILE, mode);
}

/* The _FORTIFY_SOURCE entry points, which no header declares. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);

EXPORT int __open_2(const char *path, int flags)
{
	return do_open(AT_FDCWD, path, flags, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
	return do_open(AT_FDCWD, path, flags | O_LARGEFILE, 0);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return do_open(dirfd, path, flags, 0);
}

static int do_fstatat(int dirfd, const char *path, struct stat *st, int flags)
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

/* coreutils and friends ask statx(). */
EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask,
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

/*
 * glibc opens files inside fopen() and directories inside opendir() and
 * scandir(), out of our reach.
 */
EXPORT FILE *fopen(const char *path, const char *mode)
{
	char buf[PATH_MAX];

	ensure_init();
	return real_fopen(sys_redirect(path, buf, sizeof(buf)), mode);
}

EXPORT FILE *fopen64(const char *path, const char *mode)
{
	char buf[PATH_MAX];

	ensure_init();
	return real_fopen64(sys_redirect(path, buf, sizeof(buf)), mode);
}

EXPORT DIR *opendir(const char *path)
{
	char buf[PATH_MAX];

	ensure_init();
	return real_opendir(sys_redirect(path, buf, sizeof(buf)));
}

EXPORT int scandir(const char *path, struct dirent ***list, filter_fn filter,
		   compar_fn compar)
{
	char buf[PATH_MAX];

	ensure_init();
	return real_scandir(sys_redirect(path, buf, sizeof(buf)), list, filter,
			    compar);
}

EXPORT int scandir64(const char *path, struct dirent64 ***list,
		     filter64_fn filter, compar64_fn compar)
{
	char buf[PATH_MAX];

	ensure_init();
	return real_scandir64(sys_redirect(path, buf, sizeof(buf)), list,
			      filter, compar);
}

EXPORT int stat(const char *path, struct stat *st)
{
	return do_fstatat(AT_FDCWD, path, st, 0);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	return do_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	return do_fstatat(AT_FDCWD, path, (struct stat *)st,
			  AT_SYMLINK_NOFOLLOW);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return do_fstatat(dirfd, path, st, flags);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st,
		     int flags)
{
	return do_fstatat(dirfd, path, (struct stat *)st, flags);
}

EXPORT int fstat(int fd, struct stat *st)
{
	enum node_kind kind;
	unsigned int index;

	ensure_init();
	/* the lock only for our fds: the lookup alone tells those apart */
	if (file_get(fd) && !file_node(fd, &kind, &index))
		return fake_cdev_stat(kind, index, st);
	return real_fstat(fd, st);
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	return fstat(fd, (struct stat *)st);
}

EXPORT ssize_t write(int fd, const void *buf, size_t count)
{
	struct shim_file *f = file_get(fd);

	if (!f) {
		ensure_init();
		return real_write(fd, buf, count);
	}
	return shim_call(fd, SEFA_OP_WRITE, 0, (uintptr_t)buf, count, NULL);
}

/*
 * umad read(): the daemon never blocks, so a blocking fd waits here until
 * the readiness socket says a MAD is queued, and asks again.  uverbs and
 * issm files have no read(): never block on the socket behind them.
 */
EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	enum node_kind kind;
	unsigned int index;
	ssize_t n;

	ensure_init();
	/* the lock only for our fds: the lookup alone tells those apart */
	if (!file_get(fd) || file_node(fd, &kind, &index))
		return real_read(fd, buf, count);
	if (kind != NODE_UMAD) {
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		n = shim_call(fd, SEFA_OP_READ, 0, (uintptr_t)buf, count, NULL);
		if (n >= 0 || errno != EAGAIN ||
		    (real_fcntl(fd, F_GETFL) & O_NONBLOCK))
			return n;
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
}

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	struct shim_file *f = file_get(fd);
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!f) {
		ensure_init();
		return real_ioctl(fd, request, arg);
	}
	return shim_call(fd, SEFA_OP_IOCTL, request, (uintptr_t)arg, 0, NULL);
}

/*
 * mmap of the uverbs fd: the daemon hands over the memory (a memfd) that
 * backs the key, and the offset inside it; map that instead.
 */
static void *do_mmap(void *addr, size_t len, int prot, int flags, int fd,
		     off_t off)
{
	struct shim_file *f = file_get(fd);
	int memfd = -1, err;
	int64_t where;
	void *p;

	ensure_init();
	if (!f)
		return real_mmap(addr, len, prot, flags, fd, off);
	where = shim_call(fd, SEFA_OP_MMAP, off, flags, len, &memfd);
	if (where < 0) {
		if (memfd >= 0)
			real_close(memfd);
		return MAP_FAILED;
	}
	p = real_mmap(addr, len, prot, flags, memfd, where);
	err = errno;
	real_close(memfd);
	errno = err;
	return p;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd,
		  off_t off)
{
	return do_mmap(addr, len, prot, flags, fd, off);
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd,
		    off64_t off)
{
	return do_mmap(addr, len, prot, flags, fd, off);
}

EXPORT int close(int fd)
{
	ensure_init();
	if (file_get(fd)) {
		/* waits for calls in flight on this file */
		pthread_rwlock_wrlock(&files_lock);
		file_drop(fd);
		pthread_rwlock_unlock(&files_lock);
	}
	return real_close(fd);
}

/*
 * The dup family: the new fd names the same uverbs file, like a dup of
 * the real device would; an fd it replaces is closed first.
 */
static int dup_done(int oldfd, int newfd)
{
	struct shim_file *f;

	if (newfd < 0)
		return newfd;
	pthread_rwlock_wrlock(&files_lock);
	f = file_get(oldfd);
	if (newfd != oldfd) {
		file_drop(newfd);
		if (f && !file_set(newfd, f))
			f->refs++;
	}
	pthread_rwlock_unlock(&files_lock);
	return newfd;
}

EXPORT int dup(int oldfd)
{
	ensure_init();
	return dup_done(oldfd, real_dup(oldfd));
}

EXPORT int dup2(int oldfd, int newfd)
{
	ensure_init();
	return dup_done(oldfd, real_dup2(oldfd, newfd));
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	ensure_init();
	return dup_done(oldfd, real_dup3(oldfd, newfd, flags));
}

EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	long arg;
	int ret;

	va_start(ap, cmd);
	arg = va_arg(ap, long);
	va_end(ap);
	ensure_init();
	ret = real_fcntl(fd, cmd, arg);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return dup_done(fd, ret);
	return ret;
}

/*
 * Without RDMA netlink libibverbs falls back to sysfs, ours.  Refuse it
 * even where the host kernel has RDMA, or real devices would hide ours.
 */
EXPORT int socket(int domain, int type, int protocol)
{
	ensure_init();
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return real_socket(domain, type, protocol);
}
