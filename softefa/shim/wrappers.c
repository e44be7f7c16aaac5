// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The libc entry points the shim exports, and all it exports: each one
 * tells the daemon's fds and paths from the rest and hands them on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "shim.h"

#define EXPORT __attribute__((visibility("default")))

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
	return redirect_open(AT_FDCWD, path, flags, mode);
}

EXPORT int open64(const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return redirect_open(AT_FDCWD, path, flags | O_LARGEFILE, mode);
}

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return redirect_open(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	mode_t mode;

	va_start(ap, flags);
	mode = open_mode(flags, ap);
	va_end(ap);
	return redirect_open(dirfd, path, flags | O_LARGEFILE, mode);
}

/* The _FORTIFY_SOURCE entry points, which no header declares. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);

EXPORT int __open_2(const char *path, int flags)
{
	return redirect_open(AT_FDCWD, path, flags, 0);
}

EXPORT int __open64_2(const char *path, int flags)
{
	return redirect_open(AT_FDCWD, path, flags | O_LARGEFILE, 0);
}

EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return redirect_open(dirfd, path, flags, 0);
}

/* coreutils and friends ask statx(). */
EXPORT int statx(int dirfd, const char *path, int flags, unsigned int mask,
		 struct statx *stx)
{
	return redirect_statx(dirfd, path, flags, mask, stx);
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
	return redirect_fstatat(AT_FDCWD, path, st, 0);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	return redirect_fstatat(AT_FDCWD, path, (struct stat *)st, 0);
}

EXPORT int lstat(const char *path, struct stat *st)
{
	return redirect_fstatat(AT_FDCWD, path, st, AT_SYMLINK_NOFOLLOW);
}

EXPORT int lstat64(const char *path, struct stat64 *st)
{
	return redirect_fstatat(AT_FDCWD, path, (struct stat *)st,
				AT_SYMLINK_NOFOLLOW);
}

EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	return redirect_fstatat(dirfd, path, st, flags);
}

EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st,
		     int flags)
{
	return redirect_fstatat(dirfd, path, (struct stat *)st, flags);
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

EXPORT ssize_t read(int fd, void *buf, size_t count)
{
	enum node_kind kind;
	unsigned int index;

	ensure_init();
	if (event_fd_watched(fd))
		return event_fd_read(fd, buf, count);
	/* the lock only for our fds: the lookup alone tells those apart */
	if (!file_get(fd) || file_node(fd, &kind, &index))
		return real_read(fd, buf, count);
	return node_read(fd, kind, buf, count);
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

static void *do_mmap(void *addr, size_t len, int prot, int flags, int fd,
		     off_t off)
{
	struct shim_file *f = file_get(fd);

	ensure_init();
	if (!f)
		return real_mmap(addr, len, prot, flags, fd, off);
	return node_mmap(addr, len, prot, flags, fd, off);
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
	file_forget(fd);
	event_fd_forget(fd);
	nl_forget(fd);
	return real_close(fd);
}

EXPORT int dup(int oldfd)
{
	ensure_init();
	return file_dup(oldfd, real_dup(oldfd));
}

EXPORT int dup2(int oldfd, int newfd)
{
	ensure_init();
	return file_dup(oldfd, real_dup2(oldfd, newfd));
}

EXPORT int dup3(int oldfd, int newfd, int flags)
{
	ensure_init();
	return file_dup(oldfd, real_dup3(oldfd, newfd, flags));
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
		return file_dup(fd, ret);
	return ret;
}

/* NETLINK_RDMA is the daemon's (netlink.c); every other socket the host's. */
EXPORT int socket(int domain, int type, int protocol)
{
	ensure_init();
	if (domain == AF_NETLINK && protocol == NETLINK_RDMA)
		return nl_socket(type);
	return real_socket(domain, type, protocol);
}
