// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shim's side of a call: what it does with whatever the daemon
 * answers (call.c), here played by the harness on a socket pair.
 *
 * Input: a byte that picks the call (bit 0: an mmap() of the device, else
 * a write()), then records (fuzz.h), each one message of the daemon, in
 * order; bit 0 of a record's op sends an fd with it (a memfd of a page).
 * After the last the daemon's end is shut, as if it died.
 *
 * What must hold: the call returns; every fd that came with a message is
 * either closed again or, for a write(), one the shim told the daemon it
 * installed, and open; nothing else was left open.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proto.h"
#include "shim.h"

/* libFuzzer's entry point, which the replay driver calls too. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MSGS	32
#define MAX_FD		1024

static void send_msg(int sock, const uint8_t *p, size_t len, bool with_fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = (void *)p, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	int fd = -1;

	if (with_fd) {
		fd = memfd_create("fuzz", MFD_CLOEXEC);
		if (fd < 0 || ftruncate(fd, 4096))
			abort();
		msg.msg_control = cbuf;
		msg.msg_controllen = sizeof(cbuf);
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	/* too long for one message is the daemon's problem, not ours */
	(void)sendmsg(sock, &msg, MSG_NOSIGNAL);
	if (fd >= 0)
		close(fd);
}

/*
 * Which fds are open: one poll() marks the closed ones POLLNVAL, where an
 * fcntl() per fd cost two thousand system calls an input.
 */
static void open_fds(bool *open)
{
	static struct pollfd pfd[MAX_FD];
	int fd;

	for (fd = 0; fd < MAX_FD; fd++)
		pfd[fd] = (struct pollfd){ .fd = fd };
	if (poll(pfd, MAX_FD, 0) < 0)
		abort();
	for (fd = 0; fd < MAX_FD; fd++)
		open[fd] = !(pfd[fd].revents & POLLNVAL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool before[MAX_FD], after[MAX_FD], told[MAX_FD];
	struct shim_file *f;
	struct sefa_req req;
	unsigned int n = 0;
	size_t pos = 1;
	int sv[2], fd;
	void *p;

	if (!size)
		return 0;
	ensure_init();
	open_fds(before);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		abort();
	f = file_new(NODE_UVERBS, 0);
	if (!f || file_install(sv[0], f))
		abort();
	while (n++ < MAX_MSGS && size - pos >= 3) {
		size_t len = data[pos + 1] | (size_t)data[pos + 2] << 8;

		if (len > size - pos - 3)
			len = size - pos - 3;
		send_msg(sv[1], data + pos + 3, len, data[pos] & 1);
		pos += 3 + len;
	}
	shutdown(sv[1], SHUT_WR);

	if (data[0] & 1) {
		p = node_mmap(NULL, 4096, PROT_READ, MAP_SHARED, sv[0], 0);
		if (p != MAP_FAILED)
			munmap(p, 4096);
	} else {
		shim_call(sv[0], SEFA_OP_WRITE, 0, 0, 0, NULL);
	}

	/* the fds the shim said it installed: the process's now */
	memset(told, 0, sizeof(told));
	while (recv(sv[1], &req, sizeof(req), MSG_DONTWAIT) == sizeof(req)) {
		if (req.op != SEFA_OP_FD_NUM)
			continue;	/* the call itself */
		/* mmap's fd is only borrowed: closed by now */
		if (req.arg >= MAX_FD || before[req.arg] ||
		    (!(data[0] & 1) && fcntl((int)req.arg, F_GETFD) < 0))
			abort();
		told[req.arg] = true;
	}
	file_forget(sv[0]);
	close(sv[0]);
	close(sv[1]);
	open_fds(after);
	for (fd = 0; fd < MAX_FD; fd++) {
		if (told[fd] && !(data[0] & 1))
			close(fd);
		else if (after[fd] != before[fd])
			abort();
	}
	return 0;
}
