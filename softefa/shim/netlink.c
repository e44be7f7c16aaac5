// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * NETLINK_RDMA sockets, answered by the daemon as the kernel's RDMA
 * netlink would be.  The process gets one end of a SOCK_SEQPACKET
 * connection to softefad (proto.h) in place of the netlink socket, and
 * these entry points make it look like one to libmnl and libnl: bind()
 * and getsockname() give a netlink address with the socket's port id,
 * sendto() and sendmsg() take one addressed to the kernel, recvmsg() and
 * recvfrom() say the kernel sent it and fill the port id into what came.
 * Every other fd goes straight through.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proto.h"
#include "shim.h"

#define EXPORT __attribute__((visibility("default")))

/*
 * Netlink fds the shim tells apart, their port ids (0: not one) and their
 * sockets' inodes: an fd closed where close() does not see it (dup2()
 * over it, close_range()) and then reused names another inode.
 */
#define NL_MAX_FD	65536
static _Atomic uint32_t nl_port[NL_MAX_FD];
static _Atomic uint64_t nl_ino[NL_MAX_FD];
/* After the first socket's pid, autobind's ids count down from here. */
static _Atomic int32_t nl_rover = -4096;
static atomic_bool nl_pid_taken;

static int (*real_bind)(int, const struct sockaddr *, socklen_t);
static int (*real_getsockname)(int, struct sockaddr *, socklen_t *);
static int (*real_setsockopt)(int, int, int, const void *, socklen_t);
static int (*real_getsockopt)(int, int, int, void *, socklen_t *);
static ssize_t (*real_sendto)(int, const void *, size_t, int,
			      const struct sockaddr *, socklen_t);
static ssize_t (*real_sendmsg)(int, const struct msghdr *, int);
static ssize_t (*real_recvmsg)(int, struct msghdr *, int);
static ssize_t (*real_recvfrom)(int, void *, size_t, int, struct sockaddr *,
				socklen_t *);
static pthread_once_t nl_once = PTHREAD_ONCE_INIT;

static void nl_init(void)
{
	real_bind = dlsym(RTLD_NEXT, "bind");
	real_getsockname = dlsym(RTLD_NEXT, "getsockname");
	real_setsockopt = dlsym(RTLD_NEXT, "setsockopt");
	real_getsockopt = dlsym(RTLD_NEXT, "getsockopt");
	real_sendto = dlsym(RTLD_NEXT, "sendto");
	real_sendmsg = dlsym(RTLD_NEXT, "sendmsg");
	real_recvmsg = dlsym(RTLD_NEXT, "recvmsg");
	real_recvfrom = dlsym(RTLD_NEXT, "recvfrom");
	if (!real_bind || !real_getsockname || !real_setsockopt ||
	    !real_getsockopt || !real_sendto || !real_sendmsg ||
	    !real_recvmsg || !real_recvfrom) {
		fprintf(stderr,
			"libsoftefa-preload: no socket calls in libc\n");
		abort();
	}
}

static uint32_t port_of(int fd)
{
	struct stat st;
	uint32_t port;

	pthread_once(&nl_once, nl_init);
	if (fd < 0 || fd >= NL_MAX_FD)
		return 0;
	port = atomic_load_explicit(&nl_port[fd], memory_order_acquire);
	if (!port)
		return 0;
	if (real_fstat(fd, &st) || st.st_ino != atomic_load(&nl_ino[fd])) {
		atomic_store(&nl_port[fd], 0);
		return 0;
	}
	return port;
}

/* The kernel's autobind: the process's pid first, then -4096 down. */
static uint32_t autobind(void)
{
	if (!atomic_exchange(&nl_pid_taken, true))
		return (uint32_t)getpid();
	return (uint32_t)atomic_fetch_sub(&nl_rover, 1);
}

/*
 * socket(AF_NETLINK, type, NETLINK_RDMA): with no daemon to ask, there is
 * no RDMA netlink, as on a kernel without ib_core.
 */
int nl_socket(int type)
{
	struct sefa_req req = {
		.op = SEFA_OP_OPEN_NETLINK, .version = SEFA_PROTO_VERSION,
	};
	int kind = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	struct sefa_reply r;
	struct stat st;
	int fd, err;

	pthread_once(&nl_once, nl_init);
	if (kind != SOCK_RAW && kind != SOCK_DGRAM) {
		errno = ESOCKTNOSUPPORT;
		return -1;
	}
	if (!run_dir[0]) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	fd = sefa_host_connect(run_dir, type & SOCK_CLOEXEC);
	if (fd < 0) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	err = EPROTONOSUPPORT;
	if (send(fd, &req, sizeof(req), MSG_NOSIGNAL) != sizeof(req) ||
	    recv(fd, &r, sizeof(r), 0) != sizeof(r) ||
	    r.type != SEFA_REPLY_DONE || r.ret < 0)
		goto err_close;
	err = EMFILE;
	if (fd >= NL_MAX_FD)
		goto err_close;
	if (real_fstat(fd, &st)) {
		err = errno;
		goto err_close;
	}
	if (type & SOCK_NONBLOCK)
		real_fcntl(fd, F_SETFL, O_NONBLOCK);
	atomic_store(&nl_ino[fd], st.st_ino);
	atomic_store_explicit(&nl_port[fd], autobind(), memory_order_release);
	return fd;

err_close:
	real_close(fd);
	errno = err;
	return -1;
}

void nl_forget(int fd)
{
	if (port_of(fd))
		atomic_store(&nl_port[fd], 0);
}

static int check_addr(const struct sockaddr *addr, socklen_t len)
{
	const struct sockaddr_nl *nl = (const struct sockaddr_nl *)addr;

	if (!addr || len < sizeof(*nl) || nl->nl_family != AF_NETLINK) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/*
 * A port id of one's own, or autobind's (0); the RDMA groups carry
 * nothing from SoftEFA, so joining them changes nothing.
 */
EXPORT int bind(int fd, const struct sockaddr *addr, socklen_t len)
{
	const struct sockaddr_nl *nl = (const struct sockaddr_nl *)addr;

	if (!port_of(fd))
		return real_bind(fd, addr, len);
	if (check_addr(addr, len))
		return -1;
	if (nl->nl_pid)
		atomic_store(&nl_port[fd], nl->nl_pid);
	return 0;
}

EXPORT int getsockname(int fd, struct sockaddr *addr, socklen_t *len)
{
	struct sockaddr_nl nl = { .nl_family = AF_NETLINK };

	nl.nl_pid = port_of(fd);
	if (!nl.nl_pid)
		return real_getsockname(fd, addr, len);
	if (!addr || !len) {
		errno = EFAULT;
		return -1;
	}
	memcpy(addr, &nl, *len < sizeof(nl) ? *len : sizeof(nl));
	*len = sizeof(nl);
	return 0;
}

/* The SOL_NETLINK options libmnl and libnl set; none changes an answer. */
EXPORT int setsockopt(int fd, int level, int name, const void *val,
		      socklen_t len)
{
	if (!port_of(fd) || level != SOL_NETLINK)
		return real_setsockopt(fd, level, name, val, len);
	switch (name) {
	case NETLINK_ADD_MEMBERSHIP:
	case NETLINK_DROP_MEMBERSHIP:
	case NETLINK_PKTINFO:
	case NETLINK_BROADCAST_ERROR:
	case NETLINK_NO_ENOBUFS:
	case NETLINK_CAP_ACK:
	case NETLINK_EXT_ACK:
	case NETLINK_GET_STRICT_CHK:
		if (len < sizeof(int)) {
			errno = EINVAL;
			return -1;
		}
		return 0;
	default:
		errno = ENOPROTOOPT;
		return -1;
	}
}

EXPORT int getsockopt(int fd, int level, int name, void *val,
		      socklen_t *len)
{
	if (!port_of(fd) || level != SOL_NETLINK)
		return real_getsockopt(fd, level, name, val, len);
	if (!val || !len || *len < sizeof(int)) {
		errno = EINVAL;
		return -1;
	}
	memset(val, 0, sizeof(int));
	*len = sizeof(int);
	return 0;
}

/* Only the kernel, port 0, answers; no other socket is there to reach. */
static int check_dest(const struct sockaddr *addr, socklen_t len)
{
	if (!addr)
		return 0;
	if (check_addr(addr, len))
		return -1;
	if (((const struct sockaddr_nl *)addr)->nl_pid) {
		errno = ECONNREFUSED;
		return -1;
	}
	return 0;
}

EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags,
		      const struct sockaddr *addr, socklen_t alen)
{
	if (!port_of(fd))
		return real_sendto(fd, buf, len, flags, addr, alen);
	if (check_dest(addr, alen))
		return -1;
	return real_sendto(fd, buf, len, flags | MSG_NOSIGNAL, NULL, 0);
}

EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	struct msghdr m;

	if (!port_of(fd))
		return real_sendmsg(fd, msg, flags);
	if (check_dest(msg->msg_name, msg->msg_namelen))
		return -1;
	m = *msg;
	m.msg_name = NULL;
	m.msg_namelen = 0;
	return real_sendmsg(fd, &m, flags | MSG_NOSIGNAL);
}

/* The daemon leaves nlmsg_pid 0: the socket's port id is ours to give. */
static void fill_port(uint32_t port, const struct msghdr *msg, size_t n)
{
	size_t len = msg->msg_iovlen ? msg->msg_iov[0].iov_len : 0;
	uint8_t *p = msg->msg_iovlen ? msg->msg_iov[0].iov_base : NULL;
	struct nlmsghdr h;

	if (len > n)
		len = n;
	while (len >= sizeof(h)) {
		memcpy(&h, p, sizeof(h));
		h.nlmsg_pid = port;
		memcpy(p, &h, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || NLMSG_ALIGN(h.nlmsg_len) >= len)
			break;
		p += NLMSG_ALIGN(h.nlmsg_len);
		len -= NLMSG_ALIGN(h.nlmsg_len);
	}
}

static ssize_t nl_recvmsg(int fd, uint32_t port, struct msghdr *msg,
			  int flags)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	void *name = msg->msg_name;
	socklen_t room = msg->msg_namelen;
	ssize_t n;

	msg->msg_name = NULL;
	msg->msg_namelen = 0;
	n = real_recvmsg(fd, msg, flags);
	msg->msg_name = name;
	if (n < 0) {
		msg->msg_namelen = room;
		return n;
	}
	/* the daemon gone is the end of the stream, not an answer */
	if (!n) {
		errno = ECONNRESET;
		return -1;
	}
	if (name) {
		memcpy(name, &kernel, room < sizeof(kernel) ? room :
							      sizeof(kernel));
		msg->msg_namelen = sizeof(kernel);
	}
	fill_port(port, msg, n);
	return n;
}

EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	uint32_t port = port_of(fd);

	return port ? nl_recvmsg(fd, port, msg, flags) :
		      real_recvmsg(fd, msg, flags);
}

EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags,
			struct sockaddr *addr, socklen_t *alen)
{
	uint32_t port = port_of(fd);
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (!port)
		return real_recvfrom(fd, buf, len, flags, addr, alen);
	if (addr && alen) {
		m.msg_name = addr;
		m.msg_namelen = *alen;
	}
	n = nl_recvmsg(fd, port, &m, flags);
	if (n >= 0 && addr && alen)
		*alen = m.msg_namelen;
	return n;
}
