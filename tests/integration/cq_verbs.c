// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues as any provider drives them, in one process.  rdma-core
 * 44's stock provider writes the consumer index into the CQ doorbell only
 * when a poll ends on a completion, and libfabric's polls end on an empty
 * CQ: the device must not take the missing index for an overrun.  A real
 * overrun, once the provider's index proves it, is still reported.  Uses
 * libibverbs alone, so "softefa exec --provider stock" runs it on the stock
 * provider.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "check_main.h"
#include "dp.h"

#define QKEY		0x11111111
#define NQP		2
#define CQ_DEPTH	256
#define SQ_DEPTH	256
/*
 * Per QP: with sub-CQs both together more than a sub-CQ holds; with one
 * ring (CQ_SUB_CQS=1, every generation but 0xefa0) together less than it.
 */
#define WINDOW_SUB_CQS	200
#define WINDOW_ONE_RING	(CQ_DEPTH / NQP - 16)
/* Past libfabric's stall at 16384, with every sub-CQ lapping many times. */
#define PER_QP		12288
/* How long a completion may take, on a loaded machine too. */
#define WAIT_MS		20000

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	uint8_t buf[4096];
	union ibv_gid gid;
} e;

static void env_open(void)
{
	e.ctx = dp_open_device();
	ck_assert_int_eq(ibv_query_gid(e.ctx, 1, 0, &e.gid), 0);
	e.pd = ibv_alloc_pd(e.ctx);
	ck_assert_ptr_nonnull(e.pd);
	e.mr = ibv_reg_mr(e.pd, e.buf, sizeof(e.buf), IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(e.mr);
}

static void env_close(void)
{
	ck_assert_int_eq(ibv_dereg_mr(e.mr), 0);
	ck_assert_int_eq(ibv_dealloc_pd(e.pd), 0);
	ck_assert_int_eq(ibv_close_device(e.ctx), 0);
}

/* A UD QP in RTS; its receives complete on @rcq. */
static struct ibv_qp *ud_qp(struct ibv_cq *scq, struct ibv_cq *rcq)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = SQ_DEPTH, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(e.pd, &ia);

	ck_assert_msg(qp, "create UD QP: %s", strerror(errno));
	ck_assert_int_eq(dev_ud_to_rts(qp, QKEY, -1), 0);
	return qp;
}

static struct ibv_ah *self_ah(void)
{
	struct ibv_ah *ah = dev_create_ah(e.pd, &e.gid);

	ck_assert_msg(ah, "create AH: %s", strerror(errno));
	return ah;
}

static void send_to(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t qpn,
		    uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e.buf, 8, e.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = qpn, .remote_qkey = QKEY },
	}, *bad;

	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

static void post_recv(struct ibv_qp *qp, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e.buf + 2048, 64, e.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

struct tally {
	uint32_t done[NQP];		/* completions seen, per QP */
	uint8_t *seen;			/* per wr_id */
};

static void tally_one(struct tally *t, uint64_t wr_id, enum ibv_wc_status st)
{
	unsigned int q = wr_id >> 32;
	uint32_t n = (uint32_t)wr_id;

	ck_assert_msg(st == IBV_WC_SUCCESS, "wr %#llx: %s",
		      (unsigned long long)wr_id, ibv_wc_status_str(st));
	ck_assert_msg(q < NQP && n < PER_QP, "unknown wr_id %#llx",
		      (unsigned long long)wr_id);
	ck_assert_msg(!t->seen[q * PER_QP + n], "wr %#llx completed twice",
		      (unsigned long long)wr_id);
	t->seen[q * PER_QP + n] = 1;
	t->done[q]++;
}

/*
 * As libfabric polls: start, next until the CQ is empty, end.  The stock
 * provider's end_poll then leaves the doorbell as it was.
 */
static unsigned int drain_ex(struct ibv_cq_ex *cq, struct tally *t)
{
	struct ibv_poll_cq_attr pa = {};
	unsigned int n = 0;
	int ret;

	ret = ibv_start_poll(cq, &pa);
	if (ret == ENOENT)
		return 0;
	ck_assert_int_eq(ret, 0);
	do {
		tally_one(t, cq->wr_id, cq->status);
		n++;
		ret = ibv_next_poll(cq);
	} while (!ret);
	ck_assert_int_eq(ret, ENOENT);
	ibv_end_poll(cq);
	return n;
}

/* ibv_poll_cq(), which writes the consumer index after every batch. */
static unsigned int drain(struct ibv_cq *cq, struct tally *t)
{
	struct ibv_wc wc[32];
	unsigned int total = 0;
	int i, n;

	do {
		n = ibv_poll_cq(cq, 32, wc);
		ck_assert_int_ge(n, 0);
		for (i = 0; i < n; i++)
			tally_one(t, wc[i].wr_id, wc[i].status);
		total += n;
	} while (n == 32);
	return total;
}

/*
 * Far more completions than the CQ holds, through two QPs on the two
 * sub-CQs, each keeping up to WINDOW sends in flight: together more than a
 * sub-CQ holds, each less; or, where the CQ is one ring, both in it,
 * together less than it holds.  The extended
 * poll (_i 0) never reports a consumer index on the stock provider;
 * ibv_poll_cq (_i 1) reports it after every batch.  Every completion must
 * arrive once, successful, and the CQ must never stall.
 */
START_TEST(many_completions)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = CQ_DEPTH, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *cqx = ibv_create_cq_ex(e.ctx, &ca);
	struct tally t = { .seen = calloc(NQP, PER_QP) };
	struct ibv_qp *qp[NQP];
	uint32_t posted[NQP] = {};
	struct ibv_ah *ah = self_ah();
	struct wait idle = wait_start(WAIT_MS);
	const char *nsub = getenv("CQ_SUB_CQS");
	bool one_ring = nsub && !strcmp(nsub, "1");
	uint32_t window = one_ring ? WINDOW_ONE_RING : WINDOW_SUB_CQS;
	unsigned int q, got;

	ck_assert_ptr_nonnull(cqx);
	ck_assert_ptr_nonnull(t.seen);
	ck_assert_int_ge(ibv_cq_ex_to_cq(cqx)->cqe, CQ_DEPTH);
	for (q = 0; q < NQP; q++)
		qp[q] = ud_qp(ibv_cq_ex_to_cq(cqx), ibv_cq_ex_to_cq(cqx));
	/* SoftEFA puts a send queue on sub-CQ (QP number mod 2). */
	ck_assert_msg(one_ring || (qp[0]->qp_num ^ qp[1]->qp_num) & 1,
		      "QPs %#x and %#x share a sub-CQ", qp[0]->qp_num,
		      qp[1]->qp_num);
	while (t.done[0] + t.done[1] < NQP * PER_QP) {
		/* No receives anywhere: UD drops each message, the send is done. */
		for (q = 0; q < NQP; q++)
			while (posted[q] < PER_QP &&
			       posted[q] - t.done[q] < window) {
				send_to(qp[q], ah, qp[!q]->qp_num,
					(uint64_t)q << 32 | posted[q]);
				posted[q]++;
			}
		got = _i ? drain(ibv_cq_ex_to_cq(cqx), &t) : drain_ex(cqx, &t);
		if (got)
			idle = wait_start(WAIT_MS);
		ck_assert_msg(wait_ms(&idle) < WAIT_MS,
			      "gave up waiting %d ms for a completion: the CQ stalled after %u",
			      WAIT_MS, t.done[0] + t.done[1]);
	}
	for (q = 0; q < NQP; q++)
		ck_assert_int_eq(ibv_destroy_qp(qp[q]), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	free(t.seen);
}
END_TEST

/*
 * A real overrun: twelve completions into a CQ of four before the
 * application reads any.  Once ibv_poll_cq() reports having read four, the
 * device knows eight were overwritten unread, and its next completion for
 * the CQ puts the CQ in error with IBV_EVENT_CQ_ERR.
 */
START_TEST(overrun)
{
	struct ibv_cq *small = ibv_create_cq(e.ctx, 4, NULL, NULL, 0);
	struct ibv_cq *big = ibv_create_cq(e.ctx, 64, NULL, NULL, 0);
	struct pollfd pfd = { .fd = e.ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	struct ibv_qp *a, *b;
	struct ibv_ah *ah = self_ah();
	struct ibv_wc wc[4];
	struct wait t0;
	int i, n;

	ck_assert_ptr_nonnull(small);
	ck_assert_ptr_nonnull(big);
	ck_assert_int_eq(small->cqe, 4);
	a = ud_qp(small, big);
	b = ud_qp(big, big);
	for (i = 0; i < 13; i++)
		post_recv(b, 100 + i);
	for (i = 0; i < 12; i++)
		send_to(a, ah, b->qp_num, i);
	/* Each send completes right after its message lands at b. */
	t0 = wait_start(WAIT_MS);
	for (n = 0; n < 12; n += ibv_poll_cq(big, 1, wc))
		ck_assert_msg(wait_more(&t0, 0),
			      "gave up waiting %d ms for 12 messages: %d came",
			      WAIT_MS, n);
	/* The sends' completions, on the small CQ that overran: some came. */
	t0 = wait_start(WAIT_MS);
	while (!(n = ibv_poll_cq(small, 4, wc)))
		ck_assert_msg(wait_more(&t0, 1000),
			      "gave up waiting %d ms for a send completion",
			      WAIT_MS);
	ck_assert_int_gt(n, 0);
	send_to(a, ah, b->qp_num, 12);
	ck_assert_msg(poll(&pfd, 1, WAIT_MS) == 1,
		      "gave up waiting %d ms for IBV_EVENT_CQ_ERR", WAIT_MS);
	ck_assert_int_eq(ibv_get_async_event(e.ctx, &ev), 0);
	ck_assert_int_eq(ev.event_type, IBV_EVENT_CQ_ERR);
	ck_assert_ptr_eq(ev.element.cq, small);
	ibv_ack_async_event(&ev);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_cq(small), 0);
	ck_assert_int_eq(ibv_destroy_cq(big), 0);
}
END_TEST

static Suite *cq_suite(void)
{
	Suite *s = suite_create("completion queues");
	TCase *t = tcase_create("cq");

	tcase_add_checked_fixture(t, env_open, env_close);
	tcase_set_timeout(t, 60);
	tcase_add_loop_test(t, many_completions, 0, 2);
	tcase_add_test(t, overrun);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(cq_suite)
