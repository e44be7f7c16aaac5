// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Traffic between two hosts, counted message by message: each side runs
 * this program, the server first, and they swap addresses over TCP.
 *
 *   wire_verbs srd|ud [-n N] [-p PORT] [SERVER]
 *
 * The client sends N numbered messages, each filled with a pattern of its
 * number.  The server checks every payload and counts each number once:
 * one that comes twice, or a corrupt one, fails it.  Messages from any
 * QP but the client's, a stranger's, it counts apart and does not check.
 *  - srd: every message must arrive, and every send complete successfully;
 *    then the client writes 1 MiB into the server's memory by RDMA and
 *    reads back 1 MiB the server filled, both checked byte by byte.
 *  - ud: some may be lost; the server reports how many came, after the
 *    client is done and nothing more arrives.
 * The server prints "received R of N, 0 duplicates"; exit 0 when all is
 * well, 1 with a message otherwise.
 *
 *  - rc, rc-lid (extended profile): as srd, on an RC connection by GID
 *    or by LID, with no RDMA; a send that fails ends the client with its
 *    status.  -t sets the QP's timeout (14: a lost packet is retried 7
 *    times, each after 67 ms).
 * -d DEV picks the device (default: the first), for two devices of one
 * host.  Each side prints "qpn N" once its QP is there (and, on RC, connected:
 * its PSNs start at 0, one a message), for a test that forges packets.
 *
 *   wire_verbs srd -u GID
 *
 * sends one message to a GID nobody has and prints the error completion it
 * ends in: exit 0 if it is the unreachable remote's (vendor error 15).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>

#include "dev.h"

#define MSG		1024
#define RECVS		256
#define WINDOW		64
#define RDMA_LEN	(1 << 20)
#define QKEY		0x11111111
#define WAIT_MS		30000
/* EFA's vendor error for a remote that never answered */
#define UNREACH_REMOTE	15

struct side {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
	union ibv_gid gid;
	uint16_t lid;
};

enum mode { MODE_UD, MODE_SRD, MODE_RC, MODE_RC_LID };

struct ctx {
	const char *dev;		/* -d: NULL, the first device */
	enum mode mode;
	bool srd;
	bool rc;
	uint8_t timeout;		/* RC: 4.096 us << timeout per try */
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;			/* receives, or sends; then RDMA */
	uint8_t *rdma;
	struct ibv_mr *rdma_mr;
};

static void die(const char *what)
{
	fprintf(stderr, "wire_verbs: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pattern(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(seed * 31 + i * 7 + (i >> 8));
}

static int tcp_meet(const char *server, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd, one = 1, c;

	hints.ai_flags = server ? 0 : AI_PASSIVE;
	if (getaddrinfo(server, port, &hints, &ai))
		die("getaddrinfo");
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0)
		die("socket");
	if (server) {
		if (connect(fd, ai->ai_addr, ai->ai_addrlen))
			die("connect");
		freeaddrinfo(ai);
		return fd;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))
		die("listen");
	freeaddrinfo(ai);
	c = accept(fd, NULL, NULL);
	if (c < 0)
		die("accept");
	close(fd);
	return c;
}

static void xfer(int fd, void *p, size_t len, bool out)
{
	ssize_t n = out ? write(fd, p, len) : read(fd, p, len);

	if (n != (ssize_t)len)
		die(out ? "tcp write" : "tcp read");
}

static void setup(struct ctx *c)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = c->rc ? IBV_QPT_RC :
			   c->srd ? IBV_QPT_DRIVER : IBV_QPT_UD,
		.cap = { .max_send_wr = 256, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct efadv_qp_init_attr dv = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
	};
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;

	c->ctx = dev_open(c->dev, false);
	if (!c->ctx)
		die("open device");
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = ibv_create_cq(c->ctx, 1024, NULL, NULL, 0);
	c->buf = calloc(RECVS, MSG + 40);
	c->rdma = calloc(2, RDMA_LEN);
	if (!c->pd || !c->cq || !c->buf || !c->rdma)
		die("resources");
	c->mr = ibv_reg_mr(c->pd, c->buf, RECVS * (MSG + 40), acc);
	c->rdma_mr = ibv_reg_mr(c->pd, c->rdma, 2 * RDMA_LEN,
				c->srd ? acc : IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr || !c->rdma_mr)
		die("ibv_reg_mr");
	if (c->srd)
		a.send_ops_flags |= IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_RDMA_READ;
	a.pd = c->pd;
	a.send_cq = c->cq;
	a.recv_cq = c->cq;
	c->qp = c->srd ? efadv_create_qp_ex(c->ctx, &a, &dv, sizeof(dv)) :
			 ibv_create_qp_ex(c->ctx, &a);
	if (!c->qp || (c->rc ? dev_rc_to_init(c->qp, IBV_ACCESS_LOCAL_WRITE) :
			       dev_ud_to_rts(c->qp, QKEY, c->srd ? 7 : -1)))
		die("QP");
}

/* This side, for the peer; printed once ready, for a forging test. */
static void side_of(struct ctx *c, struct side *me)
{
	struct ibv_port_attr port;

	me->qpn = c->qp->qp_num;
	ibv_query_gid(c->ctx, 1, 0, &me->gid);
	if (!ibv_query_port(c->ctx, 1, &port))
		me->lid = port.lid;
}

/* RC: connected to @peer, by GID or by LID, with RNR retried for ever. */
static void rc_connect(struct ctx *c, const struct side *peer)
{
	struct ibv_ah_attr av = { .port_num = 1 };

	if (c->mode == MODE_RC_LID) {
		av.dlid = peer->lid;
	} else {
		av.is_global = 1;
		av.grh.dgid = peer->gid;
		av.grh.hop_limit = 1;
	}
	if (dev_rc_to_rtr(c->qp, peer->qpn, &av) || dev_rc_to_rts_timeout(c->qp, 7, c->timeout))
		die("RC connect");
}

static void ready(struct ctx *c)
{
	printf("qpn %u\n", c->qp->qp_num);
	fflush(stdout);
}

/* The receive of slot @i: UD leaves 40 bytes in front for the GRH. */
static void post_recv(struct ctx *c, unsigned int i)
{
	unsigned int room = MSG + 40;
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->buf + i * room), .length = room,
		.lkey = c->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (ibv_post_recv(c->qp, &wr, &bad))
		die("ibv_post_recv");
}

static int serve(struct ctx *c, int fd, unsigned int n)
{
	unsigned int got = 0, dups = 0, bad = 0, strangers = 0, i;
	unsigned int off = c->srd || c->rc ? 0 : 40;
	uint8_t *seen = calloc(n, 1), want[MSG];
	struct side me = {}, peer;
	struct wait idle;
	char done;

	if (!seen)
		die("calloc");
	for (i = 0; i < RECVS; i++)
		post_recv(c, i);
	pattern(c->rdma + RDMA_LEN, RDMA_LEN, 0xbeef);
	side_of(c, &me);
	me.rkey = c->rdma_mr->rkey;
	me.addr = (uintptr_t)c->rdma;
	xfer(fd, &me, sizeof(me), true);
	xfer(fd, &peer, sizeof(peer), false);
	if (c->rc)
		rc_connect(c, &peer);
	/* EFA lets only a peer it has an AH for use its memory */
	else if (!dev_create_ah(c->pd, &peer.gid))
		die("ibv_create_ah");
	ready(c);

	/* until all came, or (UD, which loses) nothing more for 2 s */
	idle = wait_start(c->srd || c->rc ? WAIT_MS : 2000);
	while (got < n) {
		struct ibv_wc wc;
		uint32_t seq;

		if (dev_poll_wc(c->cq, 10, &wc) <= 0) {
			if (wait_ms(&idle) < idle.limit_ms)
				continue;
			if (c->srd || c->rc)
				fprintf(stderr, "wire_verbs: gave up waiting %ld ms for message %u of %u\n",
					wait_ms(&idle), got + 1, n);
			break;
		}
		idle = wait_start(idle.limit_ms);
		if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV) {
			fprintf(stderr, "wire_verbs: receive status %d opcode %d\n",
				wc.status, wc.opcode);
			return 1;
		}
		if (wc.src_qp != peer.qpn) {
			strangers++;
			post_recv(c, wc.wr_id);
			continue;
		}
		memcpy(&seq, c->buf + wc.wr_id * (MSG + 40) + off, 4);
		pattern(want, MSG, seq);
		memcpy(want, &seq, 4);
		if (seq >= n || wc.byte_len != MSG + off ||
		    memcmp(want, c->buf + wc.wr_id * (MSG + 40) + off, MSG))
			bad++;
		else if (seen[seq]++)
			dups++;
		else
			got++;
		post_recv(c, wc.wr_id);
	}
	/* a duplicate would come late: look half a second longer */
	idle = wait_start(500);
	do {
		struct ibv_wc wc;

		if (dev_poll_wc(c->cq, 10, &wc) <= 0)
			continue;
		if (wc.src_qp == peer.qpn)
			dups++;
		else
			strangers++;
	} while (wait_more(&idle, 0));
	printf("received %u of %u, %u duplicates, %u corrupt, %u from strangers\n",
	       got, n, dups, bad, strangers);
	xfer(fd, &done, 1, false);
	if (c->srd) {
		pattern(want, MSG, 0xcafe);
		for (i = 0; i < RDMA_LEN; i += MSG)
			if (memcmp(c->rdma + i, want, MSG))
				break;
		if (i < RDMA_LEN) {
			fprintf(stderr, "wire_verbs: RDMA write data wrong at %u\n", i);
			return 1;
		}
		printf("RDMA write of %u bytes intact\n", RDMA_LEN);
	}
	xfer(fd, &done, 1, true);
	return dups || bad || ((c->srd || c->rc) && got != n);
}

/*
 * Wait for one send completion, which must be a success: its wr_id.  A
 * failure says how many succeeded before it.
 */
static uint64_t reap(struct ctx *c)
{
	static unsigned long done;
	struct ibv_wc wc = dev_wait_wc(c->cq, WAIT_MS);

	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "wire_verbs: send completion status %d (%s), vendor error %u, after %lu sends\n",
			wc.status, wc.status == (enum ibv_wc_status)-1 ? "none" :
			ibv_wc_status_str(wc.status), wc.vendor_err, done);
		exit(1);
	}
	done++;
	return wc.wr_id;
}

static void rdma(struct ctx *c, struct ibv_ah *ah, const struct side *peer,
		 bool write)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(c->qp);
	unsigned int i, chunk = RDMA_LEN / 4;

	for (i = 0; i < 4; i++) {
		ibv_wr_start(qpx);
		qpx->wr_id = i;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		if (write)
			ibv_wr_rdma_write(qpx, peer->rkey, peer->addr + i * chunk);
		else
			ibv_wr_rdma_read(qpx, peer->rkey,
					 peer->addr + RDMA_LEN + i * chunk);
		ibv_wr_set_sge(qpx, c->rdma_mr->lkey,
			       (uintptr_t)c->rdma + i * chunk, chunk);
		ibv_wr_set_ud_addr(qpx, ah, peer->qpn, QKEY);
		if (ibv_wr_complete(qpx))
			die("ibv_wr_complete");
	}
	for (i = 0; i < 4; i++)
		reap(c);
}

static int client(struct ctx *c, int fd, unsigned int n)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(c->qp);
	unsigned int i, out = 0;
	bool busy[WINDOW] = {};
	struct side me = {}, peer;
	struct ibv_ah *ah;
	uint8_t want[MSG];
	char done = 1;

	side_of(c, &me);
	xfer(fd, &peer, sizeof(peer), false);
	xfer(fd, &me, sizeof(me), true);
	if (c->rc) {
		rc_connect(c, &peer);
		ah = NULL;
	} else {
		ah = dev_create_ah(c->pd, &peer.gid);
		if (!ah)
			die("ibv_create_ah");
	}
	ready(c);

	for (i = 0; i < n; i++) {
		uint8_t *p = c->buf + (i % WINDOW) * MSG;

		/* SRD completes in any order: the slot's own send first */
		while (busy[i % WINDOW]) {
			busy[reap(c) % WINDOW] = false;
			out--;
		}
		busy[i % WINDOW] = true;
		pattern(p, MSG, i);
		memcpy(p, &i, 4);
		ibv_wr_start(qpx);
		qpx->wr_id = i;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, c->mr->lkey, (uintptr_t)p, MSG);
		if (ah)
			ibv_wr_set_ud_addr(qpx, ah, peer.qpn, QKEY);
		if (ibv_wr_complete(qpx))
			die("ibv_wr_complete");
		out++;
	}
	while (out--)
		reap(c);

	if (c->srd) {
		pattern(want, MSG, 0xcafe);
		for (i = 0; i < RDMA_LEN; i += MSG)
			memcpy(c->rdma + i, want, MSG);
		rdma(c, ah, &peer, true);
		memset(c->rdma, 0, RDMA_LEN);
		rdma(c, ah, &peer, false);
		pattern(c->rdma + RDMA_LEN, RDMA_LEN, 0xbeef);
		if (memcmp(c->rdma, c->rdma + RDMA_LEN, RDMA_LEN)) {
			fprintf(stderr, "wire_verbs: RDMA read data wrong\n");
			return 1;
		}
		printf("RDMA read of %u bytes intact\n", RDMA_LEN);
	}
	printf("sent %u\n", n);
	xfer(fd, &done, 1, true);
	xfer(fd, &done, 1, false);
	return 0;
}

/* One send to @gid, where nobody answers: its completion's error. */
static int unreachable(struct ctx *c, const char *gid)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(c->qp);
	union ibv_gid dgid;
	struct ibv_ah *ah;
	struct ibv_wc wc;

	if (inet_pton(AF_INET6, gid, &dgid) != 1) {
		fprintf(stderr, "wire_verbs: bad GID %s\n", gid);
		return 2;
	}
	ah = dev_create_ah(c->pd, &dgid);
	if (!ah)
		die("ibv_create_ah");
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, c->mr->lkey, (uintptr_t)c->buf, MSG);
	ibv_wr_set_ud_addr(qpx, ah, 0x100, QKEY);
	if (ibv_wr_complete(qpx))
		die("ibv_wr_complete");
	if (dev_poll_wc(c->cq, WAIT_MS, &wc) <= 0) {
		fprintf(stderr, "wire_verbs: no completion\n");
		return 1;
	}
	printf("send to %s: status %d (%s), vendor error %u\n", gid, wc.status,
	       ibv_wc_status_str(wc.status), wc.vendor_err);
	return wc.status == IBV_WC_SUCCESS ||
	       wc.vendor_err != UNREACH_REMOTE;
}

int main(int argc, char **argv)
{
	const char *port = "18600", *nowhere = NULL;
	unsigned int n = 1000;
	struct ctx c = {};
	int opt, fd, ret;

	static const char *const modes[] = {
		[MODE_UD] = "ud", [MODE_SRD] = "srd", [MODE_RC] = "rc",
		[MODE_RC_LID] = "rc-lid",
	};
	unsigned int m;

	for (m = 0; argc >= 2 && m < sizeof(modes) / sizeof(modes[0]); m++)
		if (!strcmp(argv[1], modes[m]))
			break;
	if (argc < 2 || m == sizeof(modes) / sizeof(modes[0])) {
		fprintf(stderr, "usage: wire_verbs srd|ud|rc|rc-lid [-d DEV] [-n N] [-p PORT] [-t RC_TIMEOUT] [SERVER]\n");
		return 2;
	}
	c.mode = m;
	c.srd = m == MODE_SRD;
	c.rc = m == MODE_RC || m == MODE_RC_LID;
	optind = 2;
	c.timeout = 14;
	while ((opt = getopt(argc, argv, "d:n:p:t:u:")) != -1) {
		if (opt == 'n')
			n = strtoul(optarg, NULL, 0);
		else if (opt == 't')
			c.timeout = strtoul(optarg, NULL, 0);
		else if (opt == 'p')
			port = optarg;
		else if (opt == 'u')
			nowhere = optarg;
		else if (opt == 'd')
			c.dev = optarg;
		else
			return 2;
	}
	setup(&c);
	if (nowhere)
		return unreachable(&c, nowhere);
	fd = tcp_meet(optind < argc ? argv[optind] : NULL, port);
	ret = optind < argc ? client(&c, fd, n) : serve(&c, fd, n);
	close(fd);
	return ret;
}
