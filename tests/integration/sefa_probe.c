// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A small verbs program for the integration tests.  It links libibverbs
 * only, so whichever provider "softefa exec" selects drives the device.
 *   sefa_probe hold DEV     open DEV, print "ready", keep it open until
 *                           stdin closes
 *   sefa_probe threads DEV  query port and GID from several threads at
 *                           once on one context, checking every answer
 *   sefa_probe ud DEV       where a UD message lands in its receive WR
 *   sefa_probe orphan DEV   with a CQ armed, print "ready", wait in
 *                           ibv_get_cq_event() and ibv_get_async_event()
 *                           and report how each ended once the device
 *                           went away (the daemon killed), then what a
 *                           new verb and a poll of the CQ do
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "dev.h"

static int hold(struct ibv_context *ctx)
{
	char c;

	printf("ready\n");
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	return ibv_close_device(ctx) ? 1 : 0;
}

#define NTHREADS	4
#define NQUERIES	500

struct worker {
	pthread_t thread;
	struct ibv_context *ctx;
	const struct ibv_port_attr *want;
	const union ibv_gid *gid;
	int bad;
};

static void *query_loop(void *arg)
{
	struct worker *w = arg;
	struct ibv_port_attr attr;
	union ibv_gid gid;
	int i;

	for (i = 0; i < NQUERIES; i++) {
		if (ibv_query_port(w->ctx, 1, &attr) ||
		    attr.max_msg_sz != w->want->max_msg_sz ||
		    attr.lid != w->want->lid ||
		    ibv_query_gid(w->ctx, 1, 0, &gid) ||
		    memcmp(&gid, w->gid, sizeof(gid)))
			w->bad++;
	}
	return NULL;
}

/* The shim serialises calls per fd; answers must never cross. */
static int threads(struct ibv_context *ctx)
{
	struct worker w[NTHREADS];
	struct ibv_port_attr want;
	union ibv_gid gid;
	int i, bad = 0;

	if (ibv_query_port(ctx, 1, &want) || ibv_query_gid(ctx, 1, 0, &gid)) {
		fprintf(stderr, "sefa_probe: query failed\n");
		return 1;
	}
	for (i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .ctx = ctx, .want = &want, .gid = &gid };
		if (pthread_create(&w[i].thread, NULL, query_loop, &w[i]))
			return 1;
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(w[i].thread, NULL);
		bad += w[i].bad;
	}
	printf("%d queries, %d wrong\n", 2 * NTHREADS * NQUERIES, bad);
	return ibv_close_device(ctx) || bad ? 1 : 0;
}

#define QKEY		0x11111111
#define GRH_LEN		40
#define UD_LEN		100
#define MARK		0xa5

/* Two UD QPs of one PD, sending to each other, and what they use. */
struct ud {
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *tx, *rx;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t buf[2][4096];
};

static int ud_fail(const char *what)
{
	fprintf(stderr, "sefa_probe ud: %s\n", what);
	return 1;
}

static struct ibv_qp *ud_qp(struct ud *u)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = u->scq, .recv_cq = u->rcq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 3 },
	};
	struct ibv_qp *qp = ibv_create_qp(u->pd, &ia);

	return qp && !dev_ud_to_rts(qp, QKEY, -1) ? qp : NULL;
}

static int ud_open(struct ibv_context *ctx, struct ud *u)
{
	union ibv_gid gid;

	u->pd = ibv_alloc_pd(ctx);
	u->scq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	u->rcq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!u->pd || !u->scq || !u->rcq)
		return -1;
	u->mr = ibv_reg_mr(u->pd, u->buf, sizeof(u->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	u->tx = ud_qp(u);
	u->rx = ud_qp(u);
	if (!u->mr || !u->tx || !u->rx || ibv_query_gid(ctx, 1, 0, &gid))
		return -1;
	u->ah = dev_create_ah(u->pd, &gid);
	return u->ah ? 0 : -1;
}

static int ud_close(struct ud *u)
{
	return ibv_destroy_ah(u->ah) || ibv_destroy_qp(u->tx) ||
	       ibv_destroy_qp(u->rx) || ibv_dereg_mr(u->mr) ||
	       ibv_destroy_cq(u->scq) || ibv_destroy_cq(u->rcq) ||
	       ibv_dealloc_pd(u->pd);
}

/*
 * Send UD_LEN bytes of buf[0] to a receive WR of @n SGEs of buf[1]; the
 * completion of the receive, once the send's succeeded.
 */
static struct ibv_wc ud_send(struct ud *u, struct ibv_sge *sge, int n)
{
	struct ibv_sge tx = { (uintptr_t)u->buf[0], UD_LEN, u->mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = sge, .num_sge = n }, *rbad;
	struct ibv_send_wr swr = {
		.sg_list = &tx, .num_sge = 1, .opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = u->ah, .remote_qpn = u->rx->qp_num,
			   .remote_qkey = QKEY },
	}, *sbad;
	struct ibv_wc none = { .status = -1 };
	int i;

	for (i = 0; i < n; i++)
		sge[i].lkey = u->mr->lkey;
	if (ibv_post_recv(u->rx, &rwr, &rbad) ||
	    ibv_post_send(u->tx, &swr, &sbad) ||
	    dev_wait_wc(u->scq, 2000).status != IBV_WC_SUCCESS)
		return none;
	return dev_wait_wc(u->rcq, 2000);
}

/* No byte of [p, p + len) was written. */
static bool ud_untouched(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++ != MARK)
			return false;
	return true;
}

/*
 * The GRH area is the first 40 bytes of the scatter list, here across two
 * SGEs: 16 bytes, then 24 of 30, whose last 6 take the payload's start;
 * the third SGE takes the rest exactly.  byte_len counts the area, nothing
 * in it or around the SGEs is written, and no GRH is reported.  One byte
 * less room and the receive fails, its buffer as it was.
 */
static int ud_layout(struct ibv_context *ctx)
{
	/* where the second and third SGEs start, with gaps before them */
	enum { AT1 = 100, AT2 = 200 };
	static struct ud u;
	uint8_t *r = u.buf[1], *pay = u.buf[0];
	struct ibv_sge sge[3] = {
		{ .addr = (uintptr_t)r, .length = 16 },
		{ .addr = (uintptr_t)r + AT1, .length = 30 },
		{ .addr = (uintptr_t)r + AT2, .length = UD_LEN - 6 },
	};
	struct ibv_sge short_sge = {
		.addr = (uintptr_t)r, .length = GRH_LEN + UD_LEN - 1,
	};
	struct ibv_wc wc;
	int i;

	for (i = 0; i < UD_LEN; i++)
		pay[i] = (uint8_t)(i * 7 + 1);
	memset(r, MARK, sizeof(u.buf[1]));
	if (ud_open(ctx, &u))
		return ud_fail(strerror(errno));

	wc = ud_send(&u, sge, 3);
	if (wc.status != IBV_WC_SUCCESS || wc.opcode != IBV_WC_RECV)
		return ud_fail("the receive did not complete");
	if (wc.byte_len != GRH_LEN + UD_LEN)
		return ud_fail("byte_len does not count the GRH area");
	if (wc.wc_flags & IBV_WC_GRH)
		return ud_fail("a GRH is reported");
	if (!memcmp(r, pay, 16))
		return ud_fail("the payload is at offset 0");
	if (memcmp(r + AT1 + 24, pay, 6) || memcmp(r + AT2, pay + 6, UD_LEN - 6))
		return ud_fail("the payload is not after the GRH area");
	if (!ud_untouched(r, AT1) || !ud_untouched(r + AT1, 24) ||
	    !ud_untouched(r + AT1 + 30, AT2 - AT1 - 30) ||
	    !ud_untouched(r + AT2 + UD_LEN - 6, 64))
		return ud_fail("the GRH area or bytes around the SGEs were written");

	memset(r, MARK, sizeof(u.buf[1]));
	wc = ud_send(&u, &short_sge, 1);
	if (wc.status != IBV_WC_LOC_LEN_ERR)
		return ud_fail("a receive short of GRH + payload did not fail");
	if (!ud_untouched(r, sizeof(u.buf[1])))
		return ud_fail("a failed receive wrote its buffer");

	if (ud_close(&u) || ibv_close_device(ctx))
		return ud_fail("teardown");
	printf("ud: payload at %d, byte_len %d\n", GRH_LEN, GRH_LEN + UD_LEN);
	return 0;
}

struct orphan {
	struct ibv_context *ctx;
	struct ibv_comp_channel *ch;
	int ret, err;
	struct ibv_async_event ev;
};

static void *wait_cq_event(void *arg)
{
	struct orphan *o = arg;
	struct ibv_cq *cq;
	void *cq_ctx;

	o->ret = ibv_get_cq_event(o->ch, &cq, &cq_ctx);
	o->err = errno;
	return NULL;
}

static void *wait_async_event(void *arg)
{
	struct orphan *o = arg;

	o->ret = ibv_get_async_event(o->ctx, &o->ev);
	o->err = errno;
	if (!o->ret)
		ibv_ack_async_event(&o->ev);
	return NULL;
}

/* Join @t within 10 s, or say it still waits. */
static bool joined(pthread_t t)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	return !pthread_timedjoin_np(t, NULL, &ts);
}

static int orphan(struct ibv_context *ctx)
{
	struct orphan cqo = { .ctx = ctx }, aso = { .ctx = ctx };
	struct ibv_port_attr attr;
	pthread_t tc, ta;
	struct ibv_wc wc;
	struct ibv_cq *cq;
	struct ibv_pd *pd;

	cqo.ch = ibv_create_comp_channel(ctx);
	cq = cqo.ch ? ibv_create_cq(ctx, 16, NULL, cqo.ch, 0) : NULL;
	if (!cq || ibv_req_notify_cq(cq, 0)) {
		perror("sefa_probe: CQ");
		return 1;
	}
	if (pthread_create(&tc, NULL, wait_cq_event, &cqo) ||
	    pthread_create(&ta, NULL, wait_async_event, &aso))
		return 1;
	printf("ready\n");
	fflush(stdout);

	if (!joined(tc)) {
		printf("cq_event: still waiting\n");
		return 1;
	}
	printf("cq_event: %d %s\n", cqo.ret, cqo.ret ? strerror(cqo.err) : "");
	if (!joined(ta)) {
		printf("async_event: still waiting\n");
		return 1;
	}
	if (aso.ret)
		printf("async_event: %d %s\n", aso.ret, strerror(aso.err));
	else
		printf("async_event: %s\n", ibv_event_type_str(aso.ev.event_type));
	wait_async_event(&aso);
	printf("async_again: %d %s\n", aso.ret, strerror(aso.err));
	pd = ibv_alloc_pd(ctx);
	printf("alloc_pd: %s\n", pd ? "ok" : strerror(errno));
	errno = 0;
	printf("query_port: %s\n", ibv_query_port(ctx, 1, &attr) ?
	       strerror(errno ? errno : EIO) : "ok");
	printf("poll_cq: %d\n", ibv_poll_cq(cq, 1, &wc));
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;

	if (argc != 3) {
		fprintf(stderr, "usage: sefa_probe hold|threads|ud|orphan DEVICE\n");
		return 2;
	}
	ctx = dev_open_probe("sefa_probe", argv[2]);
	if (!ctx)
		return 1;
	if (!strcmp(argv[1], "hold"))
		return hold(ctx);
	if (!strcmp(argv[1], "threads"))
		return threads(ctx);
	if (!strcmp(argv[1], "ud"))
		return ud_layout(ctx);
	if (!strcmp(argv[1], "orphan"))
		return orphan(ctx);
	fprintf(stderr, "sefa_probe: unknown command %s\n", argv[1]);
	return 2;
}
