// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Malformed input to a live softefad: raw messages on its socket, and raw
 * uverbs commands on /dev/infiniband/uverbs0 through the preload shim.
 * Each must get its errno, and the daemon must go on serving.  Run under
 * "softefa exec".
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include <rdma/efa-abi.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

#include "proto.h"
#include "check_main.h"

static int daemon_sock(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *dir = getenv(SEFA_RUN_DIR_ENV);
	int fd;

	ck_assert_ptr_nonnull(dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir,
		 SEFA_SOCKET_NAME);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	return fd;
}

static struct sefa_reply exchange(int fd, const void *msg, size_t len)
{
	struct sefa_reply r = {};

	ck_assert_int_eq(send(fd, msg, len, 0), (ssize_t)len);
	ck_assert_int_eq(recv(fd, &r, sizeof(r), 0), sizeof(r));
	return r;
}

static struct sefa_req req(uint32_t op, uint64_t arg)
{
	return (struct sefa_req){ .op = op, .version = SEFA_PROTO_VERSION,
				  .arg = arg };
}

START_TEST(proto_short_message)
{
	int fd = daemon_sock();
	struct sefa_reply r = exchange(fd, "abc", 3);

	ck_assert_int_eq(r.type, SEFA_REPLY_DONE);
	ck_assert_int_eq(r.err, EINVAL);
	close(fd);
}
END_TEST

START_TEST(proto_bad_version)
{
	struct sefa_req q = req(SEFA_OP_OPEN, 0);
	int fd = daemon_sock();
	struct sefa_reply r;

	q.version = 99;
	r = exchange(fd, &q, sizeof(q));
	ck_assert_int_eq(r.err, EINVAL);
	close(fd);
}
END_TEST

START_TEST(proto_bad_device)
{
	struct sefa_req q = req(SEFA_OP_OPEN, 15);
	int fd = daemon_sock();
	struct sefa_reply r = exchange(fd, &q, sizeof(q));

	ck_assert_int_eq(r.err, ENXIO);
	close(fd);
}
END_TEST

/*
 * The open of uverbs0: the daemon hands over the file's memory, a file
 * the process can map, and answers once told its number.
 */
static void open_uverbs(int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct sefa_reply r = {};
	struct iovec iov = { .iov_base = &r, .iov_len = sizeof(r) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct sefa_req q = req(SEFA_OP_OPEN, 0);
	struct cmsghdr *cm;
	struct stat st;
	int file = -1;

	ck_assert_int_eq(send(fd, &q, sizeof(q), 0), sizeof(q));
	ck_assert_int_eq(recvmsg(fd, &msg, MSG_CMSG_CLOEXEC), sizeof(r));
	ck_assert_int_eq(r.type, SEFA_REPLY_FD);
	ck_assert_int_eq(r.ret, SEFA_FD_UVERBS_FILE);
	cm = CMSG_FIRSTHDR(&msg);
	ck_assert_ptr_nonnull(cm);
	ck_assert_int_eq(cm->cmsg_type, SCM_RIGHTS);
	memcpy(&file, CMSG_DATA(cm), sizeof(int));
	ck_assert_int_eq(fstat(file, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	close(file);
	q = req(SEFA_OP_FD_NUM, (uint64_t)file);
	r = exchange(fd, &q, sizeof(q));
	ck_assert_int_eq(r.type, SEFA_REPLY_DONE);
	ck_assert_int_eq(r.err, 0);
}

START_TEST(proto_unknown_ops)
{
	struct sefa_req q;
	int fd = daemon_sock();
	struct sefa_reply r;

	open_uverbs(fd);
	q = req(77, 0);
	r = exchange(fd, &q, sizeof(q));
	ck_assert_int_eq(r.err, EINVAL);
	/* an fd number nobody asked for */
	q = req(SEFA_OP_FD_NUM, 3);
	r = exchange(fd, &q, sizeof(q));
	ck_assert_int_eq(r.err, EINVAL);
	/* a write whose buffer is nowhere */
	q = req(SEFA_OP_WRITE, 0);
	q.addr = 8;
	q.len = 64;
	r = exchange(fd, &q, sizeof(q));
	ck_assert_int_eq(r.ret, -1);
	ck_assert_int_eq(r.err, EFAULT);
	close(fd);
}
END_TEST

START_TEST(proto_unknown_control)
{
	struct sefa_req q = req(SEFA_OP_CTL, 1234);
	int fd = daemon_sock();
	struct sefa_reply r = exchange(fd, &q, sizeof(q));

	ck_assert_int_eq(r.type, SEFA_REPLY_TEXT);
	ck_assert_int_eq(r.err, EINVAL);
	close(fd);
}
END_TEST

START_TEST(node_stat)
{
	struct stat st;
	int fd;

	ck_assert_int_eq(stat("/dev/infiniband/uverbs0", &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(major(st.st_rdev), 231);
	ck_assert_int_eq(minor(st.st_rdev), 192);

	errno = 0;
	ck_assert_int_eq(stat("/dev/infiniband/uverbs9", &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	fd = open("/dev/infiniband/uverbs9", O_RDWR);
	ck_assert_int_eq(fd, -1);
	ck_assert_int_eq(errno, ENXIO);

	fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	ck_assert_int_eq(st.st_rdev, makedev(231, 192));
	ck_assert_int_eq(read(fd, &st, 8), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(close(fd), 0);
}
END_TEST

static int uverbs_open(void)
{
	int fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

struct query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core;
};

static void query_port_init(struct query_port *qp,
			    struct ib_uverbs_query_port_resp *resp)
{
	*qp = (struct query_port){
		.hdr = { .command = IB_USER_VERBS_CMD_QUERY_PORT,
			 .in_words = sizeof(*qp) / 4,
			 .out_words = sizeof(*resp) / 4 },
		.core = { .response = (uintptr_t)resp, .port_num = 1 },
	};
}

struct get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core;
	struct efa_ibv_alloc_ucontext_cmd efa;
};

struct get_context_resp {
	struct ib_uverbs_get_context_resp core;
	struct efa_ibv_alloc_ucontext_resp efa;
};

static void get_context(int fd, struct get_context_resp *resp)
{
	struct get_context cmd = {
		.hdr = { .command = IB_USER_VERBS_CMD_GET_CONTEXT,
			 .in_words = sizeof(cmd) / 4,
			 .out_words = sizeof(*resp) / 4 },
		.core = { .response = (uintptr_t)resp },
		.efa = { .comp_mask = EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH |
				      EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR },
	};

	ck_assert_int_eq(write(fd, &cmd, sizeof(cmd)), sizeof(cmd));
}

START_TEST(write_malformed)
{
	struct query_port qp;
	struct ib_uverbs_query_port_resp presp;
	struct ib_uverbs_cmd_hdr hdr = { .command = 62, .in_words = 2 };
	/* hidden from the compiler, which rightly sees no object there */
	void *volatile nowhere = (void *)8;
	int fd = uverbs_open();

	query_port_init(&qp, &presp);
	ck_assert_int_eq(write(fd, &hdr, 4), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(write(fd, &hdr, sizeof(hdr)), -1);
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(write(fd, nowhere, 16), -1);
	ck_assert_int_eq(errno, EFAULT);
	/* before GET_CONTEXT */
	ck_assert_int_eq(write(fd, &qp, sizeof(qp)), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ioctl(fd, 0x1234, NULL), -1);
	ck_assert_int_eq(errno, ENOTTY);
	close(fd);
}
END_TEST

/* The completion vectors softefad gives a device on this machine. */
static unsigned int comp_vectors(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 2 ? 2 : n > 32 ? 32 : (unsigned int)n;
}

START_TEST(context_and_async_fd)
{
	struct ib_uverbs_query_port_resp presp;
	struct query_port qp;
	struct get_context_resp resp;
	struct get_context cmd = {
		.hdr = { .command = IB_USER_VERBS_CMD_GET_CONTEXT,
			 .in_words = sizeof(cmd) / 4,
			 .out_words = sizeof(resp) / 4 },
		.core = { .response = (uintptr_t)&resp },
	};
	int fd = uverbs_open();
	int afd, flags;
	char ev[16];

	/* without the TX batch handshake the device refuses */
	ck_assert_int_eq(write(fd, &cmd, sizeof(cmd)), -1);
	ck_assert_int_eq(errno, EOPNOTSUPP);

	memset(&resp, 0xaa, sizeof(resp));
	get_context(fd, &resp);
	afd = resp.core.async_fd;
	ck_assert_int_gt(afd, 2);
	/* one a CPU, as the efa driver's EQs; at least 2, at most 32 */
	ck_assert_int_eq(resp.core.num_comp_vectors, comp_vectors());
	ck_assert(resp.efa.cmds_supp_udata_mask &
		  EFA_USER_CMDS_SUPP_UDATA_CREATE_AH);
	ck_assert_int_eq(resp.efa.inline_buf_size, 32);

	/* a real fd of this process, close-on-exec, with no event yet */
	flags = fcntl(afd, F_GETFD);
	ck_assert_int_ge(flags, 0);
	ck_assert(flags & FD_CLOEXEC);
	ck_assert_int_eq(fcntl(afd, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(read(afd, ev, sizeof(ev)), -1);
	ck_assert_int_eq(errno, EAGAIN);

	/* one context per file */
	cmd.efa.comp_mask = EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH |
			    EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR;
	ck_assert_int_eq(write(fd, &cmd, sizeof(cmd)), -1);
	ck_assert_int_eq(errno, EINVAL);

	query_port_init(&qp, &presp);
	ck_assert_int_eq(write(fd, &qp, sizeof(qp)), sizeof(qp));
	ck_assert_int_eq(presp.state, 4);
	qp.core.response = 16;
	ck_assert_int_eq(write(fd, &qp, sizeof(qp)), -1);
	ck_assert_int_eq(errno, EFAULT);

	/* the file going away ends the event file too: EIO, as the kernel's */
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(fcntl(afd, F_SETFL, 0), 0);
	ck_assert_int_eq(read(afd, ev, sizeof(ev)), -1);
	ck_assert_int_eq(errno, EIO);
	close(afd);
}
END_TEST

/* A dup of the device fd names the same file, as with the real device. */
START_TEST(dup_shares_file)
{
	struct ib_uverbs_query_port_resp presp;
	struct get_context_resp resp;
	struct query_port qp;
	int fd = uverbs_open(), d1, d2, other;
	struct stat st;

	d1 = dup(fd);
	ck_assert_int_ge(d1, 0);
	memset(&resp, 0, sizeof(resp));
	get_context(d1, &resp);		/* through the copy */
	ck_assert_int_gt(resp.core.async_fd, 2);
	ck_assert_int_eq(close(fd), 0);	/* the file lives on */
	query_port_init(&qp, &presp);
	presp.state = 0;
	ck_assert_int_eq(write(d1, &qp, sizeof(qp)), sizeof(qp));
	ck_assert_int_eq(presp.state, 4);

	d2 = fcntl(d1, F_DUPFD_CLOEXEC, 100);
	ck_assert_int_ge(d2, 100);
	ck_assert_int_eq(fstat(d2, &st), 0);
	ck_assert(S_ISCHR(st.st_mode));
	presp.state = 0;
	ck_assert_int_eq(write(d2, &qp, sizeof(qp)), sizeof(qp));
	ck_assert_int_eq(presp.state, 4);

	/* dup2 over another open device file replaces it */
	other = uverbs_open();
	ck_assert_int_eq(dup2(d2, other), other);
	presp.state = 0;
	ck_assert_int_eq(write(other, &qp, sizeof(qp)), sizeof(qp));
	ck_assert_int_eq(presp.state, 4);

	close(d1);
	close(d2);
	close(other);
	/* all gone: a plain closed fd again */
	ck_assert_int_eq(write(other, &qp, sizeof(qp)), -1);
	ck_assert_int_eq(errno, EBADF);
	close(resp.core.async_fd);
}
END_TEST

static Suite *raw_suite(void)
{
	Suite *s = suite_create("softefad raw");
	TCase *p = tcase_create("protocol");
	TCase *u = tcase_create("uverbs");

	tcase_add_test(p, proto_short_message);
	tcase_add_test(p, proto_bad_version);
	tcase_add_test(p, proto_bad_device);
	tcase_add_test(p, proto_unknown_ops);
	tcase_add_test(p, proto_unknown_control);
	suite_add_tcase(s, p);
	tcase_add_test(u, node_stat);
	tcase_add_test(u, write_malformed);
	tcase_add_test(u, context_and_async_fd);
	tcase_add_test(u, dup_shares_file);
	suite_add_tcase(s, u);
	return s;
}

SEFA_CHECK_MAIN(raw_suite)
