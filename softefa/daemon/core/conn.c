// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A connection's own socket, below everything that runs on it: requests
 * with the credentials the kernel vouches for, and file descriptors passed
 * into the client's process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>

#include "core/core.h"

/*
 * Receive one request.  The kernel vouches for the sender of every message
 * (SO_PASSCRED), and that process is "current": after a fork the child's
 * calls touch the child's memory, as with copy_from_user().
 */
int sefa_conn_recv_req(struct sefa_client *c, struct sefa_req *req)
{
	char cbuf[CMSG_SPACE(sizeof(struct ucred))];
	struct iovec iov = { .iov_base = req, .iov_len = sizeof(*req) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm;
	ssize_t n;

	do {
		n = recvmsg(c->sock, &msg, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	if (n <= 0)
		return -EPIPE;
	for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
		struct ucred cred;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_CREDENTIALS)
			continue;
		memcpy(&cred, CMSG_DATA(cm), sizeof(cred));
		/*
		 * pid 0 is the kernel saying it recorded no sender: a
		 * message queued before SO_PASSCRED took effect.  It came
		 * from the process that connected.
		 */
		if (!cred.pid)
			continue;
		/* Only the opener's user (or root) may use the file. */
		if (cred.uid != c->uid && cred.uid != 0)
			return -EACCES;
		c->pid = cred.pid;
	}
	if (n != sizeof(*req) || req->version != SEFA_PROTO_VERSION)
		return -EINVAL;
	return 0;
}

/*
 * fd_install() into another process: the fd travels with SCM_RIGHTS, and
 * the shim tells which number the process got.  Only then can a response
 * that carries the number be written.  The caller holds the daemon lock
 * (sefa_daemon_lock()): it is let go while the client answers, never held
 * while a client decides to, and taken again before the return; what the
 * caller looked up under it may have changed meanwhile.
 */
int sefa_conn_install_fd(struct sefa_client *c, int fd,
			 enum sefa_fd_kind kind, int *client_fd)
{
	struct sefa_reply r = { .type = SEFA_REPLY_FD, .ret = kind };
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr msg = {
		.msg_iov = &iov,
		.msg_iovlen = 1,
		.msg_control = cbuf,
		.msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	struct sefa_req req;
	int ret;

	sefa_daemon_unlock(c->d);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(c->sock, &msg, MSG_NOSIGNAL) != sizeof(r))
		ret = -EPIPE;
	else
		ret = sefa_conn_recv_req(c, &req);
	sefa_daemon_lock(c->d);
	if (ret)
		return ret;
	if (req.op != SEFA_OP_FD_NUM || req.arg > INT32_MAX)
		return -EINVAL;
	*client_fd = (int)req.arg;
	return 0;
}
