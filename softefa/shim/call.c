// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Asking the daemon: a connection per open of a node, then one request
 * and its reply per system call, with the fds the daemon hands over on
 * the way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include "shim.h"

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
 * With @keep_fd (-1 on entry), the fd is the caller's to use and close.
 */
static int64_t shim_wait(int dev_fd, int sock, int *err, int *keep_fd)
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
		/* an fd is ours once received, even on an empty message */
		for (cm = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; cm;
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
		if (r.ret == SEFA_FD_ASYNC_EVENTS ||
		    r.ret == SEFA_FD_COMP_EVENTS)
			event_fd_watch(fd, r.ret, dev_fd);
		/*
		 * mmap: the memory itself, for the shim to map, not to keep.
		 * Should another come, the last is the one; none stays open.
		 */
		if (keep_fd) {
			if (*keep_fd >= 0)
				real_close(*keep_fd);
			*keep_fd = fd;
		}
	}
}

/* One system call on @fd, a device file's: its file is held meanwhile. */
int64_t shim_call(int fd, uint32_t op, uint64_t arg, uint64_t addr,
		  uint64_t len, int *keep_fd)
{
	struct shim_file *f = file_hold(fd);
	int64_t ret;
	int sock, err = EIO;

	if (!f) {
		errno = EBADF;
		return -1;
	}
	pthread_mutex_lock(&f->lock);
	sock = f->conn >= 0 ? f->conn : fd;
	ret = shim_send(sock, op, arg, addr, len) ? -1 :
	      shim_wait(fd, sock, &err, keep_fd);
	pthread_mutex_unlock(&f->lock);
	file_release();
	if (ret < 0)
		errno = err;
	return ret;
}

static int daemon_connect(int cloexec)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int fd;

	fd = run_dir[0] ? sefa_host_connect(run_dir, cloexec ? SOCK_CLOEXEC : 0)
			: -ENXIO;
	if (fd < 0) {
		/* ENXIO: a node without its driver behind it. */
		errno = -fd;
		return -1;
	}
	/* Let the daemon, our "kernel", reach our memory under Yama too. */
	if (!getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len))
		prctl(PR_SET_PTRACER, cred.pid, 0, 0, 0);
	return fd;
}

int open_node(enum node_kind kind, unsigned int index, int flags)
{
	struct shim_file *f;
	int64_t ret;
	int sock, fd, err, given = -1;

	f = file_new(kind, index);
	if (!f)
		return -1;
	sock = daemon_connect(flags & O_CLOEXEC);
	if (sock < 0)
		goto err_free;
	err = EIO;
	ret = shim_send(sock, nodes[kind].open_op, index, (unsigned int)flags,
			0) ? -1 : shim_wait(-1, sock, &err, &given);
	if (ret < 0 || (kind == NODE_ISSM) != (given < 0)) {
		errno = ret < 0 ? err : EIO;
		goto err_close;
	}
	fd = sock;
	if (given >= 0) {
		/* what the process asked for goes to the fd it gets */
		if (!(flags & O_CLOEXEC))
			real_fcntl(given, F_SETFD, 0);
		if (flags & O_NONBLOCK)
			real_fcntl(given, F_SETFL, O_NONBLOCK);
		f->conn = sock;
		fd = given;
	}
	err = file_install(fd, f);
	if (err) {
		errno = -err;
		goto err_close;
	}
	return fd;

err_close:
	err = errno;
	if (given >= 0)
		real_close(given);
	real_close(sock);
	errno = err;
err_free:
	file_free(f);
	return -1;
}

/*
 * umad read(): the daemon never blocks, so a blocking fd waits here until
 * the readiness socket says a MAD is queued, and asks again.  uverbs and
 * issm files have no read(): never block on the socket behind them.
 */
ssize_t node_read(int fd, enum node_kind kind, void *buf, size_t count)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

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

/*
 * mmap of the uverbs fd: the daemon hands over the memory (a memfd) that
 * backs the key, and the offset inside it; map that instead.  For the
 * keys of the file's own memory that is the same mapping a bare mmap(2)
 * makes; asking the daemon adds its checks of the key, as a kernel's
 * device file makes them, and reaches the host's pages outside the file.
 */
void *node_mmap(void *addr, size_t len, int prot, int flags, int fd,
		off_t off)
{
	int memfd = -1, err;
	int64_t where;
	void *p;

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
