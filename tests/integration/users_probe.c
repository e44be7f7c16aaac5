// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Two users on one host (users.sh): one owns verbs objects, the other
 * tries every way to reach them.
 *   users_probe owner SOCK  a PD, a region full of a pattern, a CQ with a
 *                           completion channel and an SRD QP; listens on
 *                           the unix socket SOCK, prints "ready" and the
 *                           names of its objects, hands its device file
 *                           to whoever connects, then waits for a line on
 *                           stdin: checks its region is untouched and its
 *                           QP still reads it, prints "intact"
 *   users_probe intrude SOCK LKEY RKEY ADDR PD MR CQ QP CHANNEL
 *                           as another user, with the owner's names: keys
 *                           on its own QP, handles, mmap keys and the
 *                           channel on a context of its own, requests on
 *                           the owner's file; prints one line per try and
 *                           "refused all" when every one failed
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "dev.h"
#include "proto.h"

#define PROG		"users_probe"
#define BUF_SIZE	4096
#define PATTERN		0xa5
#define QKEY		0x11111111
#define WAIT_MS		2000

struct side {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t *buf;
	bool no_write;			/* the provider offers no RDMA write */
};

/* An SRD QP in RTS, an AH to its own port, and a region of BUF_SIZE. */
static int side_open(struct side *s)
{
	struct efadv_qp_init_attr dv = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
	};
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_DRIVER,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_RDMA_WRITE,
	};
	union ibv_gid gid;

	s->ctx = dev_open_probe(PROG, NULL);
	if (!s->ctx)
		return -1;
	s->buf = aligned_alloc(BUF_SIZE, BUF_SIZE);
	s->pd = ibv_alloc_pd(s->ctx);
	s->ch = ibv_create_comp_channel(s->ctx);
	s->cq = s->ch ? ibv_create_cq(s->ctx, 8, NULL, s->ch, 0) : NULL;
	if (!s->buf || !s->pd || !s->cq)
		goto err;
	s->mr = ibv_reg_mr(s->pd, s->buf, BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
			   IBV_ACCESS_REMOTE_WRITE);
	a.pd = s->pd;
	a.send_cq = a.recv_cq = s->cq;
	s->qp = s->mr ? efadv_create_qp_ex(s->ctx, &a, &dv, sizeof(dv)) : NULL;
	if (!s->qp && errno == EOPNOTSUPP) {
		/* Debian 12's libefa predates RDMA write. */
		a.send_ops_flags &= ~IBV_QP_EX_WITH_RDMA_WRITE;
		s->qp = efadv_create_qp_ex(s->ctx, &a, &dv, sizeof(dv));
		s->no_write = true;
	}
	if (!s->qp || dev_ud_to_rts(s->qp, QKEY, 0) ||
	    ibv_query_gid(s->ctx, 1, 0, &gid))
		goto err;
	s->ah = dev_create_ah(s->pd, &gid);
	if (!s->ah)
		goto err;
	return 0;

err:
	fprintf(stderr, PROG ": setting up verbs objects failed: %s\n",
		strerror(errno));
	return -1;
}

/*
 * One work request from @s's QP to itself, signalled: a send from its
 * buffer under @lkey, or an RDMA read or write of @len bytes between its
 * buffer (under @lkey) and @raddr under @rkey.  The completion's status,
 * or -1 when none came.
 */
static int side_post(struct side *s, enum ibv_wr_opcode opcode,
		     uint32_t lkey, uint32_t rkey, uint64_t raddr,
		     uint32_t len)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(s->qp);
	struct ibv_wc wc;

	ibv_wr_start(qpx);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	if (opcode == IBV_WR_SEND)
		ibv_wr_send(qpx);
	else if (opcode == IBV_WR_RDMA_READ)
		ibv_wr_rdma_read(qpx, rkey, raddr);
	else
		ibv_wr_rdma_write(qpx, rkey, raddr);
	ibv_wr_set_ud_addr(qpx, s->ah, s->qp->qp_num, QKEY);
	ibv_wr_set_sge(qpx, lkey, (uintptr_t)s->buf, len);
	if (ibv_wr_complete(qpx) || dev_poll_wc(s->cq, WAIT_MS, &wc) != 1)
		return -1;
	return wc.status;
}

static int region_intact(const struct side *s)
{
	int i;

	for (i = 0; i < BUF_SIZE; i++)
		if (s->buf[i] != PATTERN)
			return 0;
	return 1;
}

static int listen_at(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	/* Connecting takes write permission: the other user's. */
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(path, 0666) || listen(fd, 1)) {
		perror(PROG ": listen");
		return -1;
	}
	return fd;
}

/* Hand @fd to the one process that connects to @lfd. */
static int give_fd(int lfd, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = "f", .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
	int sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (sock < 0)
		return -1;
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	if (sendmsg(sock, &msg, 0) != 1) {
		close(sock);
		return -1;
	}
	return sock;
}

static int owner(const char *path)
{
	struct side s = {};
	char line[16];
	int lfd, sock, st;

	if (side_open(&s))
		return 1;
	memset(s.buf, PATTERN, BUF_SIZE);
	lfd = listen_at(path);
	if (lfd < 0)
		return 1;
	printf("ready %u %u %" PRIu64 " %u %u %u %u %d\n", s.mr->lkey,
	       s.mr->rkey, (uint64_t)(uintptr_t)s.buf, s.pd->handle,
	       s.mr->handle, s.cq->handle, s.qp->handle, s.ch->fd);
	fflush(stdout);
	sock = give_fd(lfd, s.ctx->cmd_fd);
	if (sock < 0) {
		perror(PROG ": passing the device file");
		return 1;
	}
	if (!fgets(line, sizeof(line), stdin))
		return 1;
	if (!region_intact(&s)) {
		fprintf(stderr, PROG ": the region changed\n");
		return 1;
	}
	/* Its objects all still work: the QP reads its own region. */
	st = side_post(&s, IBV_WR_RDMA_READ, s.mr->lkey, s.mr->rkey,
		       (uintptr_t)s.buf, 64);
	if (st != IBV_WC_SUCCESS || !region_intact(&s)) {
		fprintf(stderr, PROG ": own RDMA read: status %d\n", st);
		return 1;
	}
	printf("intact\n");
	close(sock);
	close(lfd);
	return 0;
}

/* Report one try; a try that got through counts against the result. */
static int tried(const char *what, int got_through, int detail)
{
	printf("%s: %s (%d)\n", what, got_through ? "GOT THROUGH" : "refused",
	       detail);
	return got_through;
}

/* The owner's keys, used on the intruder's own QP and buffer. */
static int try_keys(struct side *s, uint32_t lkey, uint32_t rkey,
		    uint64_t addr)
{
	struct ibv_sge sge = { .addr = (uintptr_t)s->buf + BUF_SIZE / 2,
			       .length = BUF_SIZE / 2, .lkey = s->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;
	int bad = 0, st;

	/* A send that got out would land here, and complete as a success. */
	if (ibv_post_recv(s->qp, &rwr, &rbad))
		return 1;
	memset(s->buf, 0, BUF_SIZE);
	st = side_post(s, IBV_WR_SEND, lkey, 0, 0, 64);
	bad += tried("send from the owner's lkey", st == IBV_WC_SUCCESS, st);
	st = side_post(s, IBV_WR_RDMA_READ, s->mr->lkey, rkey, addr, 64);
	bad += tried("RDMA read with the owner's rkey",
		     st == IBV_WC_SUCCESS || s->buf[0] == PATTERN, st);
	if (s->no_write)
		return bad;
	memset(s->buf, 0x5a, BUF_SIZE);
	st = side_post(s, IBV_WR_RDMA_WRITE, s->mr->lkey, rkey, addr, 64);
	bad += tried("RDMA write with the owner's rkey", st == IBV_WC_SUCCESS,
		     st);
	return bad;
}

/*
 * A raw write() command on @fd: header and body, with room for a response
 * of @out bytes.  0, or the negative errno.
 */
static int raw_cmd(int fd, uint32_t command, const void *body, size_t len,
		   size_t out)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		uint8_t body[64];
	} c = { .hdr = { .command = command,
			 .in_words = (sizeof(c.hdr) + len) / 4,
			 .out_words = out / 4 } };

	memcpy(c.body, body, len);
	return write(fd, &c, sizeof(c.hdr) + len) < 0 ? -errno : 0;
}

/*
 * On a context of its own: destroy the owner's objects by their handles,
 * map mmap keys as the owner's, make a CQ on the owner's channel.
 */
static int try_names(uint32_t pd, uint32_t mr, uint32_t cq, uint32_t qp,
		     int channel)
{
	struct ib_uverbs_destroy_qp_resp qp_resp;
	struct ib_uverbs_destroy_cq_resp cq_resp;
	struct ib_uverbs_destroy_qp dqp = {
		.response = (uintptr_t)&qp_resp, .qp_handle = qp };
	struct ib_uverbs_destroy_cq dcq = {
		.response = (uintptr_t)&cq_resp, .cq_handle = cq };
	struct ib_uverbs_dereg_mr dmr = { .mr_handle = mr };
	struct ib_uverbs_dealloc_pd dpd = { .pd_handle = pd };
	/* Each refused as a handle this file never made, not otherwise. */
	const struct {
		const char *what;
		uint32_t command;
		const void *body;
		size_t len, out;
	} cmds[] = {
		{ "destroy the owner's QP handle", IB_USER_VERBS_CMD_DESTROY_QP,
		  &dqp, sizeof(dqp), sizeof(qp_resp) },
		{ "deregister the owner's MR handle", IB_USER_VERBS_CMD_DEREG_MR,
		  &dmr, sizeof(dmr), 0 },
		{ "destroy the owner's CQ handle", IB_USER_VERBS_CMD_DESTROY_CQ,
		  &dcq, sizeof(dcq), sizeof(cq_resp) },
		{ "free the owner's PD handle", IB_USER_VERBS_CMD_DEALLOC_PD,
		  &dpd, sizeof(dpd), 0 },
	};
	struct ibv_context *ctx = dev_open_probe(PROG, NULL);
	int bad = 0, ret, k;
	void *p;

	if (!ctx)
		return 1;
	for (k = 0; k < (int)(sizeof(cmds) / sizeof(cmds[0])); k++) {
		ret = raw_cmd(ctx->cmd_fd, cmds[k].command, cmds[k].body,
			      cmds[k].len, cmds[k].out);
		bad += tried(cmds[k].what, ret != -EINVAL && ret != -ENOENT,
			     ret);
	}

	/*
	 * The owner's rings and doorbells are its first mmap keys.  Key 1 of
	 * this context may be its own: the wake page our provider asks for.
	 */
	for (k = 2, ret = 0; k <= 32; k++) {
		p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, ctx->cmd_fd,
			 (off_t)k * 4096);
		if (p != MAP_FAILED) {
			munmap(p, 4096);
			ret++;
		}
	}
	bad += tried("map the owner's mmap keys", ret, ret);

	if (channel >= 0) {
		struct ibv_comp_channel ch = { .context = ctx, .fd = channel };
		struct ibv_cq *c = ibv_create_cq(ctx, 4, NULL, &ch, 0);

		bad += tried("a CQ on the owner's channel number", !!c,
			     c ? 0 : -errno);
		if (c)
			ibv_destroy_cq(c);
	}
	ibv_close_device(ctx);
	return bad;
}

/* The owner's device file itself: a request on it, as its user would. */
static int try_file(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char cbuf[CMSG_SPACE(sizeof(int))], c;
	struct iovec iov = { .iov_base = &c, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct sefa_req req = { .op = SEFA_OP_WRITE,
				.version = SEFA_PROTO_VERSION };
	struct cmsghdr *cm;
	int sock, err, fd = -1;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (sock < 0 || connect(sock, (struct sockaddr *)&sa, sizeof(sa)) ||
	    recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != 1) {
		perror(PROG ": receiving the owner's file");
		return 1;
	}
	cm = CMSG_FIRSTHDR(&msg);
	if (cm && cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	if (fd < 0) {
		fprintf(stderr, PROG ": no file came\n");
		return 1;
	}
	/*
	 * Any request: the file is the device's memory, and the requests
	 * go over a connection its owner keeps, never over the file.
	 */
	err = send(fd, &req, sizeof(req), MSG_NOSIGNAL) < 0 ? errno : 0;
	close(fd);
	close(sock);
	return tried("a request on the owner's file", err != ENOTSOCK, err);
}

static int intrude(char **argv)
{
	struct side s = {};
	int bad;

	if (side_open(&s))
		return 1;
	bad = try_keys(&s, strtoul(argv[1], NULL, 0),
		       strtoul(argv[2], NULL, 0),
		       strtoull(argv[3], NULL, 0));
	bad += try_names(strtoul(argv[4], NULL, 0), strtoul(argv[5], NULL, 0),
			 strtoul(argv[6], NULL, 0), strtoul(argv[7], NULL, 0),
			 atoi(argv[8]));
	bad += try_file(argv[0]);
	if (bad)
		return 1;
	printf("refused all\n");
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 3 && !strcmp(argv[1], "owner"))
		return owner(argv[2]);
	if (argc == 11 && !strcmp(argv[1], "intrude"))
		return intrude(argv + 2);
	fprintf(stderr, "usage: " PROG " owner SOCK | intrude SOCK LKEY RKEY ADDR PD MR CQ QP CHANNEL\n");
	return 2;
}
