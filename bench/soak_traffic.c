// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One traffic worker of bench/soak.sh: a client and a server (this program
 * run twice, the server first), which meet over TCP and then move checked
 * data for a while.
 *
 *   soak_traffic ud|srd|rc|umr [-t SECONDS] [-p PORT] [-b BATCH]
 *                [-i PAUSE_MS] [SERVER]
 *
 * The client repeats rounds until SECONDS are up: BATCH numbered sends of
 * lengths that vary with the number, each filled with a pattern of its
 * number, then (not on ud) an RDMA write of a pattern into the server's
 * memory and an RDMA read of it back, compared byte by byte.  The server
 * checks every receive: the number must be new (reliable and UD alike: the
 * wire's duplicates must never show), on rc it must be the next one, and
 * length and bytes must be those of the number.  At the end the client
 * tells the server how many it sent and where its last write went; the
 * server waits for the rest (ud: until nothing comes for a second), checks
 * that the last write's bytes are in its memory where they belong, and
 * answers with its counts.
 *
 *  - ud: UD QPs, addressed by GID; losses are allowed and counted;
 *  - srd: EFA SRD QPs through efadv, the extended send API;
 *  - rc: RC QPs connected by LID (the extended profile's SM);
 *  - umr: rc, but the server's memory is an indirect (KLM) region over
 *    three pieces of its buffer, filled by a UMR work request, so every
 *    RDMA crosses its entries.
 *
 * The server waits for completions on a completion channel, the client
 * polls.  Both print one line:
 *
 *   soak MODE SIDE sent S received R lost L dup D bad B rdma R errors E
 *
 * (rdma: writes and reads that completed and checked).  Exit status 0 when
 * all is well (ud may lose), 1 on a data error or a lost reliable message,
 * 2 on bad usage, 3 when the peer went away before the end (it was killed).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>
#include <infiniband/verbs_exp.h>

#include "dev.h"

#define MSG		2048
#define MSG_MIN		16
#define GRH		40
#define RECVS		256
#define WINDOW		64
#define REGION		(1 << 20)	/* what the client's RDMA reaches */
#define BUF		(3 << 20)
/* The server's memory: the receives, then the region from here on. */
#define AT_REGION	(1 << 20)
#define QKEY		0x11111111
#define WAIT_MS		30000
/* an indirect region's addresses are its own */
#define UMR_BASE	0x5eed00000000ULL

enum mode { M_UD, M_SRD, M_RC, M_UMR };
static const char *const mode_name[] = { "ud", "srd", "rc", "umr" };

enum { EXIT_OK, EXIT_BAD, EXIT_USAGE, EXIT_PEER };

/* What each side tells the other when they meet. */
struct side {
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;
	uint16_t lid;
	uint16_t pad[3];
	union ibv_gid gid;
};

/* The client's last word, and the server's answer. */
struct tally {
	uint64_t sent;
	uint64_t received;
	uint64_t dups;
	uint64_t bad;
	uint64_t last_off;		/* the last RDMA write, in the region */
	uint32_t last_len;
	uint32_t last_seed;
};

struct node {
	enum mode mode;
	bool server;
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	uint8_t *buf;			/* receives or sends, then RDMA */
	struct ibv_mr *mr;
	struct ibv_mr *imr;		/* umr: the indirect region */
	struct ibv_exp_mem_region klm[3];
	uint16_t lid;
	struct side peer;
	int sock;
};

/* Counters, printed at the end whatever happened. */
static struct tally t;
static uint64_t rdma_ok, errors;

static bool reliable(enum mode m)
{
	return m != M_UD;
}

static bool connected(enum mode m)
{
	return m == M_RC || m == M_UMR;
}

/* The byte at @pos of region memory written with @seed. */
static uint8_t rbyte(uint32_t seed, uint64_t pos)
{
	return (uint8_t)(seed * 131 + pos * 7 + (pos >> 9));
}

/* Message @seq's length and byte @i (its number is in the first four). */
static uint32_t msg_len(uint32_t seq)
{
	return MSG_MIN + (seq * 2654435761u >> 7) % (MSG - MSG_MIN + 1);
}

static uint8_t mbyte(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 31 + i * 13 + 5);
}

static void msg_fill(uint8_t *p, uint32_t seq)
{
	uint32_t i, len = msg_len(seq);

	memcpy(p, &seq, 4);
	for (i = 4; i < len; i++)
		p[i] = mbyte(seq, i);
}

static bool msg_ok(const uint8_t *p, uint32_t len, uint32_t seq)
{
	uint32_t i;

	if (len != msg_len(seq))
		return false;
	for (i = 4; i < len; i++)
		if (p[i] != mbyte(seq, i))
			return false;
	return true;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int tcp_meet(const char *server, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd, c = -1, one = 1;

	hints.ai_flags = server ? 0 : AI_PASSIVE;
	if (getaddrinfo(server, port, &hints, &ai))
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0)
		goto out;
	if (server) {
		if (connect(fd, ai->ai_addr, ai->ai_addrlen))
			goto err_close;
		c = fd;
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))
		goto err_close;
	c = accept(fd, NULL, NULL);
err_close:
	close(fd);
out:
	freeaddrinfo(ai);
	return c;
}

/* All @len bytes to or from the peer: 0, or -1 if it is gone. */
static int xfer(int fd, void *p, size_t len, bool out)
{
	uint8_t *b = p;

	while (len) {
		ssize_t n = out ? write(fd, b, len) : read(fd, b, len);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			return -1;
		}
		b += n;
		len -= n;
	}
	return 0;
}

/* The indirect region: three pieces of the buffer with gaps between. */
static int umr_fill(struct node *n)
{
	struct ibv_exp_create_mr_in in = {
		.pd = n->pd,
		.attr = { .max_klm_list_size = 4,
			  .create_flags = IBV_EXP_MR_INDIRECT_KLMS,
			  .exp_access_flags = IBV_ACCESS_LOCAL_WRITE |
					      IBV_ACCESS_REMOTE_WRITE |
					      IBV_ACCESS_REMOTE_READ },
	};
	struct ibv_exp_send_wr wr = {
		.wr_id = 0x11,
		.exp_opcode = IBV_EXP_WR_UMR_FILL,
		.exp_send_flags = IBV_EXP_SEND_SIGNALED | IBV_EXP_SEND_INLINE,
	}, *bad;
	struct ibv_exp_wc wc;
	struct wait w = wait_start(WAIT_MS);
	int r;
	uint8_t *at = n->buf + AT_REGION;

	n->klm[0] = (struct ibv_exp_mem_region){ (uintptr_t)at + 100,
						 n->mr, 300000 };
	n->klm[1] = (struct ibv_exp_mem_region){ (uintptr_t)at + 0x80000,
						 n->mr, 400000 };
	n->klm[2] = (struct ibv_exp_mem_region){ (uintptr_t)at + 0x100003,
						 n->mr, REGION - 700000 };
	n->imr = ibv_exp_create_mr(&in);
	if (!n->imr)
		return -1;
	wr.ext_op.umr.umr_type = IBV_EXP_UMR_MR_LIST;
	wr.ext_op.umr.exp_access = in.attr.exp_access_flags;
	wr.ext_op.umr.modified_mr = n->imr;
	wr.ext_op.umr.base_addr = UMR_BASE;
	wr.ext_op.umr.num_mrs = 3;
	wr.ext_op.umr.mem_list.mem_reg_list = n->klm;
	if (ibv_exp_post_send(n->qp, &wr, &bad))
		return -1;
	while (!(r = ibv_exp_poll_cq(n->cq, 1, &wc, sizeof(wc))))
		if (!wait_more(&w, 0)) {
			fprintf(stderr, "soak_traffic: gave up waiting %ld ms for the UMR fill's completion\n",
				wait_ms(&w));
			return -1;
		}
	if (r != 1 || wc.status != IBV_WC_SUCCESS ||
	    wc.exp_opcode != IBV_EXP_WC_UMR) {
		fprintf(stderr, "soak_traffic: UMR fill: %d, status %d\n", r,
			r == 1 ? (int)wc.status : -1);
		return -1;
	}
	return 0;
}

/* Where byte @pos of the region lies in the server's memory. */
static uint8_t *region_at(struct node *n, uint64_t pos)
{
	int i;

	if (n->mode != M_UMR)
		return n->buf + AT_REGION + pos;
	for (i = 0; i < 3; i++) {
		if (pos < n->klm[i].length)
			return (uint8_t *)(uintptr_t)n->klm[i].base_addr + pos;
		pos -= n->klm[i].length;
	}
	return NULL;
}

static int qp_create(struct node *n)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = n->mode == M_SRD ? IBV_QPT_DRIVER :
			   n->mode == M_UD ? IBV_QPT_UD : IBV_QPT_RC,
		.cap = { .max_send_wr = WINDOW + 4, .max_recv_wr = RECVS,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = n->pd, .send_cq = n->cq, .recv_cq = n->cq,
	};
	struct efadv_qp_init_attr dv = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
	};
	struct ibv_exp_qp_init_attr ea = {
		.send_cq = n->cq, .recv_cq = n->cq, .qp_type = IBV_QPT_RC,
		.cap = a.cap,
		.comp_mask = IBV_EXP_QP_INIT_ATTR_PD |
			     IBV_EXP_QP_INIT_ATTR_CREATE_FLAGS |
			     IBV_EXP_QP_INIT_ATTR_MAX_INL_KLMS,
		.pd = n->pd,
		.exp_create_flags = IBV_EXP_QP_CREATE_UMR,
		.max_inl_send_klms = 4,
	};

	if (n->mode == M_SRD) {
		a.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		a.send_ops_flags = IBV_QP_EX_WITH_SEND |
				   IBV_QP_EX_WITH_RDMA_WRITE |
				   IBV_QP_EX_WITH_RDMA_READ;
	}
	if (n->mode == M_UMR && n->server)
		n->qp = ibv_exp_create_qp(n->ctx, &ea);
	else if (n->mode == M_SRD)
		n->qp = efadv_create_qp_ex(n->ctx, &a, &dv, sizeof(dv));
	else
		n->qp = ibv_create_qp_ex(n->ctx, &a);
	return n->qp ? 0 : -1;
}

/* An RC QP from RESET to RTS, to the peer's QP by its LID. */
static int qp_rc_rts(struct node *n)
{
	const struct ibv_ah_attr av = { .dlid = n->peer.lid, .port_num = 1 };

	if (dev_rc_to_init(n->qp, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ) ||
	    dev_rc_to_rtr(n->qp, n->peer.qpn, &av))
		return -1;
	return dev_rc_to_rts(n->qp, 7);
}

static int node_open(struct node *n)
{
	struct ibv_port_attr port;
	int acc = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		  IBV_ACCESS_REMOTE_READ;

	n->ctx = dev_open(NULL, false);
	if (!n->ctx || ibv_query_port(n->ctx, 1, &port))
		return -1;
	n->lid = port.lid;
	n->pd = ibv_alloc_pd(n->ctx);
	if (!n->pd)
		return -1;
	if (n->server) {
		n->ch = ibv_create_comp_channel(n->ctx);
		if (!n->ch)
			return -1;
	}
	n->cq = ibv_create_cq(n->ctx, RECVS + WINDOW + 8, NULL, n->ch, 0);
	n->buf = aligned_alloc(4096, BUF);
	if (!n->cq || !n->buf)
		return -1;
	memset(n->buf, 0, BUF);
	n->mr = ibv_reg_mr(n->pd, n->buf, BUF,
			   n->mode == M_UD ? IBV_ACCESS_LOCAL_WRITE : acc);
	if (!n->mr)
		return -1;
	return qp_create(n);
}

static void node_close(struct node *n)
{
	if (n->ah)
		ibv_destroy_ah(n->ah);
	if (n->qp)
		ibv_destroy_qp(n->qp);
	if (n->imr)
		ibv_dereg_mr(n->imr);
	if (n->mr)
		ibv_dereg_mr(n->mr);
	if (n->cq)
		ibv_destroy_cq(n->cq);
	if (n->ch)
		ibv_destroy_comp_channel(n->ch);
	if (n->pd)
		ibv_dealloc_pd(n->pd);
	if (n->ctx)
		ibv_close_device(n->ctx);
	free(n->buf);
}

static int post_recv(struct node *n, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)n->buf + slot * (MSG + GRH),
		.length = MSG + GRH, .lkey = n->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	return ibv_post_recv(n->qp, &wr, &bad);
}

/*
 * Swap addresses, the client's first (the server's UMR needs its QP
 * connected before it can fill the region it then names), and bring the
 * QP up.
 */
static int meet(struct node *n)
{
	struct side me = { .qpn = n->qp->qp_num, .lid = n->lid };

	if (ibv_query_gid(n->ctx, 1, 0, &me.gid))
		return -1;
	if (!n->server && xfer(n->sock, &me, sizeof(me), true))
		return -1;
	if (xfer(n->sock, &n->peer, sizeof(n->peer), false))
		return -1;
	if (connected(n->mode)) {
		if (qp_rc_rts(n))
			return -1;
	} else {
		if (dev_ud_to_rts(n->qp, QKEY, n->mode == M_SRD ? 7 : -1))
			return -1;
		/* EFA lets only a peer it has an AH for use its memory */
		n->ah = dev_create_ah(n->pd, &n->peer.gid);
		if (!n->ah)
			return -1;
	}
	if (n->server) {
		unsigned int i;

		for (i = 0; i < RECVS; i++)
			if (post_recv(n, i))
				return -1;
		me.rkey = n->mr->rkey;
		me.addr = (uintptr_t)n->buf + AT_REGION;
		if (n->mode == M_UMR) {
			if (umr_fill(n))
				return -1;
			me.rkey = n->imr->rkey;
			me.addr = UMR_BASE;
		}
		if (xfer(n->sock, &me, sizeof(me), true))
			return -1;
	}
	return 0;
}

/* ---- the server ---- */

/* The set of numbers received, grown as they come. */
static uint8_t *seen;
static uint64_t seen_len;

/* 1 the first time @seq comes, 0 after; -1 if it cannot be told. */
static int seen_once(uint32_t seq)
{
	if (seq >= seen_len) {
		uint64_t len = seen_len ? seen_len : 65536;
		uint8_t *s;

		while (len <= seq)
			len *= 2;
		s = realloc(seen, len);
		if (!s)
			return -1;
		memset(s + seen_len, 0, len - seen_len);
		seen = s;
		seen_len = len;
	}
	return !seen[seq]++;
}

/* One receive completion: checked, counted, the slot posted again. */
static int take(struct node *n, const struct ibv_wc *wc)
{
	uint32_t off = n->mode == M_UD ? GRH : 0, seq;
	uint8_t *p;
	int first;

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV ||
	    wc->wr_id >= RECVS) {
		fprintf(stderr, "soak_traffic: receive status %d (%s) opcode %d\n",
			wc->status, ibv_wc_status_str(wc->status), wc->opcode);
		errors++;
		return -1;
	}
	p = n->buf + wc->wr_id * (MSG + GRH) + off;
	memcpy(&seq, p, 4);
	if (wc->byte_len < off + 4 || !msg_ok(p, wc->byte_len - off, seq) ||
	    (connected(n->mode) && seq != t.received + t.dups)) {
		if (t.bad++ < 5)
			fprintf(stderr, "soak_traffic: bad message %u (%u bytes), the %lu-th\n",
				seq, wc->byte_len - off,
				(unsigned long)(t.received + t.dups + t.bad));
		return post_recv(n, wc->wr_id);
	}
	first = seen_once(seq);
	if (first < 0) {
		errors++;
		return -1;
	}
	if (first)
		t.received++;
	else
		t.dups++;
	return post_recv(n, wc->wr_id);
}

/*
 * Receive until the client's tally came and, reliable, every message it
 * counted; or (ud) nothing more for a second after it.
 */
static int serve(struct node *n)
{
	struct pollfd pf[2] = {
		{ .fd = n->ch->fd, .events = POLLIN },
		{ .fd = n->sock, .events = POLLIN },
	};
	struct tally end = {};
	bool ended = false;
	double t_end = 0, t_last = now();
	uint64_t pos;

	if (meet(n)) {
		fprintf(stderr, "soak_traffic: meeting the client: %s\n",
			strerror(errno));
		return EXIT_PEER;
	}
	if (ibv_req_notify_cq(n->cq, 0))
		return EXIT_BAD;
	for (;;) {
		struct ibv_wc wc[16];
		int got, k;

		while ((got = ibv_poll_cq(n->cq, 16, wc)) > 0) {
			for (k = 0; k < got; k++)
				if (take(n, &wc[k]))
					return EXIT_BAD;
			t_last = now();
		}
		if (got < 0)
			return EXIT_BAD;
		if (ended) {
			if (t.received >= end.sent)
				break;
			if (now() - (reliable(n->mode) ? t_end : t_last) >
			    (reliable(n->mode) ? WAIT_MS / 1000 : 1))
				break;
		}
		if (poll(pf, 2, 100) < 0 && errno != EINTR)
			return EXIT_BAD;
		if (pf[0].revents) {
			struct ibv_cq *cq;
			void *cq_ctx;

			if (ibv_get_cq_event(n->ch, &cq, &cq_ctx))
				return EXIT_BAD;
			ibv_ack_cq_events(cq, 1);
			if (ibv_req_notify_cq(n->cq, 0))
				return EXIT_BAD;
		}
		if (pf[1].revents && !ended) {
			if (xfer(n->sock, &end, sizeof(end), false))
				return EXIT_PEER;
			ended = true;
			t_end = now();
			pf[1].fd = -1;
		}
	}
	/* a late duplicate: look a tenth of a second longer */
	if (reliable(n->mode)) {
		struct wait w = wait_start(100);

		do {
			struct ibv_wc wc;

			if (ibv_poll_cq(n->cq, 1, &wc) > 0 && take(n, &wc))
				return EXIT_BAD;
		} while (wait_more(&w, 5000));
	}
	t.sent = end.sent;
	/* the client's last RDMA write, where it belongs */
	for (pos = end.last_off; pos < end.last_off + end.last_len; pos++) {
		uint8_t *p = region_at(n, pos);

		if (!p || *p != rbyte(end.last_seed, pos)) {
			fprintf(stderr, "soak_traffic: the last RDMA write is not in memory at %lu\n",
				(unsigned long)pos);
			t.bad++;
			break;
		}
	}
	if (xfer(n->sock, &t, sizeof(t), true))
		return EXIT_PEER;
	return EXIT_OK;
}

/* ---- the client ---- */

static int pause_ms;

/* The next completion within WAIT_MS, which must be a success. */
static int reap(struct node *n, uint64_t *wr_id)
{
	struct wait w = wait_start(WAIT_MS);
	struct ibv_wc wc;
	unsigned int idle = 0;
	int r;

	/* spin a little, then pause; the clock only now and then */
	while (!(r = ibv_poll_cq(n->cq, 1, &wc))) {
		if (++idle % 256 == 0 && !wait_more(&w, 0))
			break;
		if (idle > 256)
			usleep(50);
	}
	if (!r) {
		fprintf(stderr, "soak_traffic: gave up waiting %ld ms for a send completion\n",
			wait_ms(&w));
		errors++;
		return -1;
	}
	if (r != 1 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "soak_traffic: send completion %s, vendor error %u\n",
			r == 1 ? ibv_wc_status_str(wc.status) : "poll error",
			r == 1 ? wc.vendor_err : 0);
		errors++;
		return -1;
	}
	*wr_id = wc.wr_id;
	return 0;
}

static int post(struct node *n, enum ibv_wr_opcode op, uint64_t wr_id,
		uint8_t *p, uint32_t len, uint64_t raddr)
{
	struct ibv_qp_ex *qpx;

	if (connected(n->mode)) {
		struct ibv_sge sge = { (uintptr_t)p, len, n->mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IBV_SEND_SIGNALED,
			.wr.rdma = { .remote_addr = raddr,
				     .rkey = n->peer.rkey },
		}, *bad;

		return ibv_post_send(n->qp, &wr, &bad);
	}
	if (n->mode == M_UD) {
		struct ibv_sge sge = { (uintptr_t)p, len, n->mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
			.opcode = op, .send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = n->ah, .remote_qpn = n->peer.qpn,
				   .remote_qkey = QKEY },
		}, *bad;

		return ibv_post_send(n->qp, &wr, &bad);
	}
	/* SRD: the extended API, as libfabric uses it */
	qpx = ibv_qp_to_qp_ex(n->qp);
	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	if (op == IBV_WR_SEND)
		ibv_wr_send(qpx);
	else if (op == IBV_WR_RDMA_WRITE)
		ibv_wr_rdma_write(qpx, n->peer.rkey, raddr);
	else
		ibv_wr_rdma_read(qpx, n->peer.rkey, raddr);
	ibv_wr_set_sge(qpx, n->mr->lkey, (uintptr_t)p, len);
	ibv_wr_set_ud_addr(qpx, n->ah, n->peer.qpn, QKEY);
	return ibv_wr_complete(qpx);
}

/* BATCH numbered sends, at most WINDOW outstanding, all completed. */
static int send_batch(struct node *n, unsigned int batch)
{
	bool busy[WINDOW] = {};
	unsigned int i, out = 0;
	uint64_t id;

	for (i = 0; i < batch; i++) {
		uint32_t seq = t.sent;
		unsigned int slot = seq % WINDOW;
		uint8_t *p = n->buf + slot * MSG;

		/* SRD completes in any order: the slot's own send first */
		while (busy[slot]) {
			if (reap(n, &id))
				return -1;
			busy[id % WINDOW] = false;
			out--;
		}
		msg_fill(p, seq);
		if (post(n, IBV_WR_SEND, seq, p, msg_len(seq), 0)) {
			fprintf(stderr, "soak_traffic: post send: %s\n",
				strerror(errno));
			errors++;
			return -1;
		}
		busy[slot] = true;
		out++;
		t.sent++;
	}
	while (out--)
		if (reap(n, &id))
			return -1;
	return 0;
}

/* A pattern written into the server's region and read back, compared. */
static int rdma_round(struct node *n, uint32_t seed)
{
	uint8_t *w = n->buf + WINDOW * MSG, *r = w + REGION / 2;
	uint32_t len = 1 + (uint32_t)(random() % (REGION / 2));
	uint64_t off = (uint64_t)random() % (REGION - len + 1), i, id;

	for (i = 0; i < len; i++)
		w[i] = rbyte(seed, off + i);
	memset(r, 0, len);
	if (post(n, IBV_WR_RDMA_WRITE, 1, w, len, n->peer.addr + off) ||
	    reap(n, &id))
		goto err;
	if (post(n, IBV_WR_RDMA_READ, 2, r, len, n->peer.addr + off) ||
	    reap(n, &id))
		goto err;
	if (memcmp(w, r, len)) {
		for (i = 0; i < len && w[i] == r[i]; i++)
			;
		fprintf(stderr, "soak_traffic: RDMA read back differs at %lu of %u (offset %lu)\n",
			(unsigned long)i, len, (unsigned long)off);
		t.bad++;
		return -1;
	}
	rdma_ok += 2;
	t.last_off = off;
	t.last_len = len;
	t.last_seed = seed;
	return 0;
err:
	errors++;
	return -1;
}

static int client(struct node *n, double secs, unsigned int batch)
{
	struct pollfd pf = { .fd = n->sock, .events = POLLIN };
	struct tally srv;
	double t_end = now() + secs;
	uint32_t seed = 0;

	if (meet(n)) {
		fprintf(stderr, "soak_traffic: meeting the server: %s\n",
			strerror(errno));
		return EXIT_PEER;
	}
	srandom(getpid());
	while (now() < t_end) {
		if (send_batch(n, batch))
			return EXIT_BAD;
		if (reliable(n->mode) && rdma_round(n, ++seed))
			return EXIT_BAD;
		if (pause_ms)
			usleep(pause_ms * 1000);
		/* the server says nothing before the end: it is gone */
		if (poll(&pf, 1, 0) > 0) {
			fprintf(stderr, "soak_traffic: the server left\n");
			return EXIT_PEER;
		}
	}
	if (xfer(n->sock, &t, sizeof(t), true) ||
	    xfer(n->sock, &srv, sizeof(srv), false))
		return EXIT_PEER;
	t.received = srv.received;
	t.dups = srv.dups;
	t.bad += srv.bad;
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	const char *port = "18700";
	unsigned int batch = 256;
	double secs = 10;
	struct node n = { .sock = -1 };
	int opt, ret = EXIT_USAGE, m;

	for (m = 0; m < 4 && argc > 1; m++)
		if (!strcmp(argv[1], mode_name[m]))
			break;
	if (argc < 2 || m == 4) {
		fprintf(stderr, "usage: soak_traffic ud|srd|rc|umr [-t SECONDS] [-p PORT] [-b BATCH] [-i PAUSE_MS] [SERVER]\n");
		return EXIT_USAGE;
	}
	n.mode = m;
	optind = 2;
	while ((opt = getopt(argc, argv, "t:p:b:i:")) != -1) {
		if (opt == 't')
			secs = atof(optarg);
		else if (opt == 'p')
			port = optarg;
		else if (opt == 'b')
			batch = strtoul(optarg, NULL, 0);
		else if (opt == 'i')
			pause_ms = atoi(optarg);
		else
			return EXIT_USAGE;
	}
	if (!batch)
		return EXIT_USAGE;
	signal(SIGPIPE, SIG_IGN);
	n.server = optind >= argc;
	if (node_open(&n)) {
		fprintf(stderr, "soak_traffic: %s set-up: %s\n",
			mode_name[m], strerror(errno));
		ret = EXIT_BAD;
		goto out;
	}
	n.sock = tcp_meet(n.server ? NULL : argv[optind], port);
	if (n.sock < 0) {
		fprintf(stderr, "soak_traffic: no peer at port %s: %s\n", port,
			strerror(errno));
		ret = EXIT_PEER;
		goto out;
	}
	ret = n.server ? serve(&n) : client(&n, secs, batch);
	if (ret == EXIT_OK && (t.bad || t.dups || errors ||
			       (reliable(n.mode) && t.received != t.sent)))
		ret = EXIT_BAD;
out:
	printf("soak %s %s sent %lu received %lu lost %lu dup %lu bad %lu rdma %lu errors %lu%s\n",
	       mode_name[m], n.server ? "server" : "client",
	       (unsigned long)t.sent, (unsigned long)t.received,
	       (unsigned long)(t.sent > t.received ? t.sent - t.received : 0),
	       (unsigned long)t.dups, (unsigned long)t.bad,
	       (unsigned long)rdma_ok, (unsigned long)errors,
	       ret == EXIT_PEER ? " peer-gone" : "");
	if (n.sock >= 0)
		close(n.sock);
	node_close(&n);
	free(seen);
	return ret;
}
