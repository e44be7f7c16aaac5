// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting: the request-id pool, the rules post_send, post_recv and the
 * ibv_wr_* API enforce, doorbells, batching and rollback.
 */

#include <errno.h>
#include <linux/futex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <check.h>

#include "efa_dp.h"
#include "efa_fixture.h"
#include "check_main.h"

#define QPN 7

static struct efa_fixture fx;
static struct efa_fake_cq fc;
static struct efa_fake_qp fq;
static struct efa_ah ah;
static char buf[64];
static struct ibv_sge sge = { .length = 8, .lkey = 1 };

static void setup_qp(int sq_sig_all)
{
	const struct efa_fake_dp_attr attr = {
		.qp_type = IBV_QPT_UD,
		.qpn = QPN,
		.cap = { .max_send_wr = 32, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
		.sq_sig_all = sq_sig_all,
		.cq_entries = 64,
		.cqe_size = EFA_IO_CQE_SIZE,
	};

	efa_fake_dp_open(&fx, &fc, &fq, &attr);
	efa_fake_ah_init(&fx, &ah, 1);
	sge.addr = (uintptr_t)buf;
}

static void setup(void)
{
	setup_qp(0);
}

static void setup_sig_all(void)
{
	setup_qp(1);
}

static void teardown(void)
{
	efa_fake_dp_close(&fx, &fc, &fq);
}

static struct ibv_send_wr send_wr(uint64_t wr_id)
{
	return (struct ibv_send_wr){
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = &ah.ibvah, .remote_qpn = 9, .remote_qkey = 1 },
	};
}

/* n sends with wr_ids 1 to n, each the next of the one before. */
static void send_chain(struct ibv_send_wr *wr, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		wr[i] = send_wr(i + 1);
		if (i)
			wr[i - 1].next = &wr[i];
	}
}

static int post(struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	*bad = NULL;
	return efa_post_send(efa_fake_ibvqp(&fq), wr, bad);
}

/* The device's completion of request id req_id. */
static void complete_send(uint16_t req_id)
{
	efa_wq_put_idx(&fq.qp->sq.wq, req_id);
}

START_TEST(test_pool_lifo)
{
	struct efa_wq wq;

	ck_assert_int_eq(efa_wq_init(&wq, 4, 4, 1, NULL), 0);
	ck_assert_uint_eq(efa_wq_get_idx(&wq, 10), 0);
	ck_assert_uint_eq(efa_wq_get_idx(&wq, 11), 1);
	ck_assert_uint_eq(efa_wq_get_idx(&wq, 12), 2);

	/* the id completed last is the one reused first */
	efa_wq_put_idx(&wq, 1);
	ck_assert_uint_eq(efa_wq_get_idx(&wq, 13), 1);
	ck_assert_uint_eq(wq.wrid[1], 13);

	/* completions in any order */
	efa_wq_put_idx(&wq, 2);
	efa_wq_put_idx(&wq, 0);
	ck_assert_uint_eq(efa_wq_get_idx(&wq, 14), 0);
	ck_assert_uint_eq(efa_wq_get_idx(&wq, 15), 2);
	ck_assert_uint_eq(wq.wrid[2], 15);
	ck_assert(!efa_wq_full(&wq));
	ck_assert_uint_eq(efa_wq_get_idx(&wq, 16), 3);
	ck_assert(efa_wq_full(&wq));
	efa_wq_fini(&wq);
}
END_TEST

/* A full SQ refuses with ENOMEM; what went before is posted and rung. */
START_TEST(test_send_full)
{
	uint32_t n = fq.geom.sq_wqe_cnt;
	struct ibv_send_wr *wrs = calloc(n + 1, sizeof(*wrs)), *bad;

	for (uint32_t i = 0; i <= n; i++) {
		wrs[i] = send_wr(i);
		wrs[i].next = i < n ? &wrs[i + 1] : NULL;
	}
	ck_assert_int_eq(post(wrs, &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &wrs[n]);
	ck_assert_uint_eq(fq.sq_db, n);

	/* one completion makes room for one more */
	complete_send(fq.llq[3].meta.req_id);
	ck_assert_int_eq(post(&wrs[n], &bad), 0);
	ck_assert_uint_eq(fq.llq[0].meta.req_id, 3);
	ck_assert_uint_eq(fq.llq[0].meta.ctrl2 & 1, 1);	/* second lap */
	ck_assert_uint_eq(fq.qp->sq.wq.wrid[3], n);
	free(wrs);
}
END_TEST

START_TEST(test_send_unsignaled)
{
	struct ibv_send_wr wr = send_wr(1), *bad;

	wr.send_flags = 0;
	ck_assert_int_eq(post(&wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	ck_assert_uint_eq(fq.sq_db, 0);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 0);
}
END_TEST

/* With sq_sig_all every WR is signaled, whatever it says. */
START_TEST(test_send_sig_all)
{
	struct ibv_send_wr wr = send_wr(1), *bad;

	wr.send_flags = 0;
	ck_assert_int_eq(post(&wr, &bad), 0);
	ck_assert_uint_eq(fq.llq[0].meta.ctrl2 & EFA_IO_TX_META_DESC_COMP_REQ,
			  EFA_IO_TX_META_DESC_COMP_REQ);
	ck_assert_uint_eq(fq.sq_db, 1);
}
END_TEST

START_TEST(test_send_bad_flags_opcode)
{
	struct ibv_send_wr wr = send_wr(1), *bad;

	wr.send_flags |= IBV_SEND_FENCE;
	ck_assert_int_eq(post(&wr, &bad), EINVAL);
	wr = send_wr(1);
	wr.opcode = IBV_WR_RDMA_WRITE;
	ck_assert_int_eq(post(&wr, &bad), EINVAL);
	wr.opcode = IBV_WR_RDMA_READ;
	ck_assert_int_eq(post(&wr, &bad), EINVAL);
	ck_assert_uint_eq(fq.sq_db, 0);
}
END_TEST

START_TEST(test_send_state)
{
	static const enum ibv_qp_state bad_states[] = {
		IBV_QPS_RESET, IBV_QPS_INIT, IBV_QPS_RTR, IBV_QPS_SQE,
		IBV_QPS_ERR,
	};
	struct ibv_send_wr wr = send_wr(1), *bad;

	for (size_t i = 0; i < sizeof(bad_states) / sizeof(bad_states[0]);
	     i++) {
		efa_fake_ibvqp(&fq)->state = bad_states[i];
		ck_assert_int_eq(post(&wr, &bad), EINVAL);
		ck_assert_ptr_eq(bad, &wr);
	}
	ck_assert_uint_eq(fq.sq_db, 0);

	efa_fake_ibvqp(&fq)->state = IBV_QPS_SQD;
	ck_assert_int_eq(post(&wr, &bad), 0);
}
END_TEST

/* A bad WR in a chain stops the chain there; the ones before it go. */
START_TEST(test_send_chain_bad_middle)
{
	struct ibv_send_wr wr[3];
	struct ibv_send_wr *bad;

	send_chain(wr, 3);
	wr[1].num_sge = 2;
	ck_assert_int_eq(post(wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[1]);
	ck_assert_uint_eq(fq.sq_db, 1);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 1);
}
END_TEST

/*
 * A chain longer than the doorbell batch, with inline data on the way,
 * lands whole in the ring; too much inline data further on stops it there.
 */
START_TEST(test_send_chain_batches_inline)
{
	struct ibv_send_wr wrs[20], *bad;
	struct ibv_sge in = { .addr = (uintptr_t)buf, .length = 12 };
	uint32_t n = sizeof(wrs) / sizeof(wrs[0]);

	ck_assert_uint_lt(fq.qp->sq.max_batch_wr, n);
	memset(buf, 0x5a, sizeof(buf));
	for (uint32_t i = 0; i < n; i++) {
		wrs[i] = send_wr(i);
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	wrs[3].sg_list = &in;
	wrs[3].send_flags |= IBV_SEND_INLINE;
	ck_assert_int_eq(post(wrs, &bad), 0);
	ck_assert_uint_eq(fq.sq_db, n);
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_eq(fq.qp->sq.wq.wrid[fq.llq[i].meta.req_id], i);
		ck_assert_uint_eq(!!(fq.llq[i].meta.ctrl1 &
				     EFA_IO_TX_META_DESC_INLINE_MSG), i == 3);
	}
	ck_assert_uint_eq(fq.llq[3].meta.length, 12);
	ck_assert_mem_eq(fq.llq[3].data.inline_data, buf, 12);
	for (uint32_t i = 0; i < n; i++)
		complete_send(fq.llq[i].meta.req_id);

	in.length = 33;
	wrs[3].sg_list = &sge;
	wrs[3].send_flags = IBV_SEND_SIGNALED;
	wrs[18].sg_list = &in;
	wrs[18].send_flags |= IBV_SEND_INLINE;
	ck_assert_int_eq(post(wrs, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wrs[18]);
	ck_assert_uint_eq(fq.sq_db, n + 18);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 18);
}
END_TEST

/* The doorbell batch is the device's max_tx_batch (in 64-byte units, so
 * half as many 128-byte WQEs), and below the ring size when the device
 * imposes a minimum SQ size.
 */
START_TEST(test_batch_size)
{
	struct efa_context *ctx = fx.ctx;
	struct efa_qp qp = { .sq.wq.wqe_cnt = 32 };
	struct efa_qp_geom geom = { .sq_wqe_size = EFA_IO_TX_WQE_128_SIZE };

	ctx->max_tx_batch = 16;
	ctx->min_sq_wr = 32;
	efa_qp_setup(ctx, &qp, IBV_QPT_UD, &geom, NULL, 0);
	ck_assert_uint_eq(qp.sq.max_batch_wr, 8);
	ck_assert_uint_eq(qp.sq.wqe_size, 128);

	geom.sq_wqe_size = EFA_IO_TX_WQE_SIZE;
	efa_qp_setup(ctx, &qp, IBV_QPT_UD, &geom, NULL, 0);
	ck_assert_uint_eq(qp.sq.max_batch_wr, 16);

	ctx->max_tx_batch = 0;
	efa_qp_setup(ctx, &qp, IBV_QPT_UD, &geom, NULL, 0);
	ck_assert_uint_eq(qp.sq.max_batch_wr, 31);

	ctx->min_sq_wr = 0;
	efa_qp_setup(ctx, &qp, IBV_QPT_UD, &geom, NULL, 0);
	ck_assert_uint_eq(qp.sq.max_batch_wr, 65535);

	ctx->max_tx_batch = 1000;
	efa_qp_setup(ctx, &qp, IBV_QPT_UD, &geom, NULL, 0);
	ck_assert_uint_eq(qp.sq.max_batch_wr, 1000);
	ck_assert_uint_eq(qp.sq.max_rdma_sge, 1);
}
END_TEST

/* Moving to RESET forgets what was outstanding, in any order. */
START_TEST(test_reset_indices)
{
	struct ibv_send_wr wr[3];
	struct ibv_send_wr *bad;

	send_chain(wr, 3);
	ck_assert_int_eq(post(wr, &bad), 0);
	complete_send(0);
	efa_qp_reset_indices(fq.qp);

	ck_assert_uint_eq(fq.qp->sq.wq.pc, 0);
	for (uint32_t i = 0; i < fq.geom.sq_wqe_cnt; i++)
		ck_assert_uint_eq(efa_wq_get_idx(&fq.qp->sq.wq, i), i);
}
END_TEST

/*
 * Receives wait for INIT and stop in ERR; efa_fake_post_recv() checks that
 * one refused is named as the bad WR.
 */
START_TEST(test_recv_state)
{
	efa_fake_ibvqp(&fq)->state = IBV_QPS_RESET;
	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, &sge, 1), EINVAL);
	efa_fake_ibvqp(&fq)->state = IBV_QPS_ERR;
	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, &sge, 1), EINVAL);
	ck_assert_uint_eq(fq.rq_db, 0);

	/* receives may be posted before the QP can send */
	efa_fake_ibvqp(&fq)->state = IBV_QPS_INIT;
	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, &sge, 1), 0);
	efa_fake_ibvqp(&fq)->state = IBV_QPS_RTR;
	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, &sge, 1), 0);
	ck_assert_uint_eq(fq.rq_db, 2);
}
END_TEST

START_TEST(test_recv_sges)
{
	struct ibv_sge two[2] = { sge, sge };

	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, two, 2), EINVAL);
	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, two, 0), EINVAL);
	ck_assert_uint_eq(fq.rq_db, 0);
}
END_TEST

START_TEST(test_recv_full)
{
	uint32_t n = fq.geom.rq_wqe_cnt;
	struct ibv_recv_wr *wrs = calloc(n + 1, sizeof(*wrs)), *bad;

	for (uint32_t i = 0; i <= n; i++)
		wrs[i] = (struct ibv_recv_wr){
			.wr_id = i, .sg_list = &sge, .num_sge = 1,
			.next = i < n ? &wrs[i + 1] : NULL,
		};
	ck_assert_int_eq(efa_post_recv(efa_fake_ibvqp(&fq), wrs, &bad),
			 ENOMEM);
	ck_assert_ptr_eq(bad, &wrs[n]);
	ck_assert_uint_eq(fq.rq_db, n);
	free(wrs);
}
END_TEST

/* wr_abort takes back everything of the session. */
START_TEST(test_wr_abort)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);
	struct efa_wq *wq = &fq.qp->sq.wq;

	qpx->wr_flags = IBV_SEND_SIGNALED;
	for (uint32_t i = 0; i < fq.geom.sq_wqe_cnt - 1; i++) {
		qpx->wr_id = i;
		ibv_wr_start(qpx);
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, 1, (uintptr_t)buf, 8);
		ibv_wr_set_ud_addr(qpx, &ah.ibvah, 9, 1);
		ck_assert_int_eq(ibv_wr_complete(qpx), 0);
		complete_send(fq.llq[i].meta.req_id);
	}
	ck_assert_uint_eq(fq.sq_db, fq.geom.sq_wqe_cnt - 1);

	ibv_wr_start(qpx);
	for (int i = 0; i < 3; i++) {
		ibv_wr_send_imm(qpx, 5);
		ibv_wr_set_sge(qpx, 1, (uintptr_t)buf, 8);
		ibv_wr_set_ud_addr(qpx, &ah.ibvah, 9, 1);
	}
	ibv_wr_abort(qpx);

	ck_assert_uint_eq(wq->pc, fq.geom.sq_wqe_cnt - 1);
	ck_assert_uint_eq(efa_sq_phase(&fq.qp->sq), 0);
	ck_assert_uint_eq(wq->wrid_idx_pool_next, 0);
	ck_assert_uint_eq(fq.sq_db, fq.geom.sq_wqe_cnt - 1);
	/* the slot that wraps the ring still holds nothing */
	ck_assert_uint_eq(fq.llq[fq.geom.sq_wqe_cnt - 1].meta.ctrl1, 0);
}
END_TEST

/* The first error sticks to the session, which wr_complete rolls back. */
START_TEST(test_wr_session_error)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);
	struct ibv_sge two[2] = { sge, sge };

	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 1, (uintptr_t)buf, 8);
	ibv_wr_send(qpx);
	ibv_wr_set_sge_list(qpx, 2, two);
	ibv_wr_send(qpx);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);
	ck_assert_uint_eq(fq.qp->sq.wq.pc, 0);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 0);
	ck_assert_uint_eq(fq.sq_db, 0);

	/* unsignaled */
	qpx->wr_flags = 0;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_sge(qpx, 1, (uintptr_t)buf, 8);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);

	/* inline beyond the device's inline buffer */
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, buf, 33);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);

	/* not in RTS */
	efa_fake_ibvqp(&fq)->state = IBV_QPS_RTR;
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);
	ck_assert_uint_eq(fq.sq_db, 0);
}
END_TEST

START_TEST(test_wr_full)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);

	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(qpx);
	for (uint32_t i = 0; i <= fq.geom.sq_wqe_cnt; i++) {
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, 1, (uintptr_t)buf, 8);
		ibv_wr_set_ud_addr(qpx, &ah.ibvah, 9, 1);
	}
	ck_assert_int_eq(ibv_wr_complete(qpx), ENOMEM);
	ck_assert_uint_eq(fq.sq_db, 0);
}
END_TEST

/* A session longer than the doorbell batch lands whole in the ring. */
START_TEST(test_wr_many)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);
	uint32_t n = fq.geom.sq_wqe_cnt;

	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(qpx);
	for (uint32_t i = 0; i < n; i++) {
		qpx->wr_id = 100 + i;
		ibv_wr_send(qpx);
		ibv_wr_set_sge(qpx, 1, (uintptr_t)buf, 8);
		ibv_wr_set_ud_addr(qpx, &ah.ibvah, 9, 1);
	}
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	ck_assert_uint_eq(fq.sq_db, n);
	for (uint32_t i = 0; i < n; i++) {
		ck_assert_uint_eq(fq.llq[i].meta.req_id, i);
		ck_assert_uint_eq(fq.llq[i].meta.dest_qp_num, 9);
		ck_assert_uint_eq(fq.qp->sq.wq.wrid[i], 100 + i);
	}
}
END_TEST

/*
 * SoftEFA's wake page: a device that sleeps (first word odd) is woken
 * after the doorbell, on the doorbell itself when the page asks for that
 * (fourth word), on the stream word when the queue had work outstanding
 * already, and not at all when it is awake or, for a busy queue, looks by
 * itself soon (second word set).
 */
static uint32_t wake_page[4];
static const void *woken;		/* the word of the last wake */

/*
 * The provider wakes the device with futex(FUTEX_WAKE) through syscall():
 * this one stands in for the C library's in this program and notes the
 * word, so no thread and no scheduler decide what the test sees.
 */
long syscall(long nr, ...)
{
	va_list ap;
	void *word;
	int op;

	va_start(ap, nr);
	word = va_arg(ap, void *);
	op = va_arg(ap, int);
	va_end(ap);
	if (nr != SYS_futex || op != FUTEX_WAKE) {
		errno = ENOSYS;
		return -1;
	}
	woken = word;
	return 0;
}

/* Post one send; the word it woke the device on, or -1. */
static int post_wakes(uint32_t sleeping, uint32_t polling, uint32_t doorbell)
{
	struct ibv_send_wr wr = send_wr(1), *bad;

	wake_page[SEFA_WAKE_SLEEPING] = sleeping;
	wake_page[SEFA_WAKE_POLLING] = polling;
	wake_page[SEFA_WAKE_DOORBELL] = doorbell;
	woken = NULL;
	ck_assert_int_eq(post(&wr, &bad), 0);
	if (woken == &wake_page[SEFA_WAKE_SLEEPING])
		return SEFA_WAKE_SLEEPING;
	if (woken == &wake_page[SEFA_WAKE_STREAM])
		return SEFA_WAKE_STREAM;
	if (woken == &fq.sq_db)
		return SEFA_WAKE_DOORBELL;
	ck_assert_ptr_null(woken);
	return -1;
}

START_TEST(test_send_wakes_device)
{
	fq.qp->sq.wq.wake = (const uint32_t *)wake_page;

	ck_assert_int_eq(post_wakes(0, 0, 0), -1);	/* awake */
	complete_send(fq.llq[0].meta.req_id);
	/* asleep, the queue was empty */
	ck_assert_int_eq(post_wakes(1, 1, 0), SEFA_WAKE_SLEEPING);
	complete_send(fq.llq[1].meta.req_id);
	/* the same, asleep on the doorbells */
	ck_assert_int_eq(post_wakes(1, 0, 1), SEFA_WAKE_DOORBELL);
	/* looks by itself soon, the queue busy */
	ck_assert_int_eq(post_wakes(1, 1, 1), -1);
	/* asleep, the queue busy: WQEs stream */
	ck_assert_int_eq(post_wakes(1, 0, 1), SEFA_WAKE_STREAM);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 3);
	ck_assert_uint_eq(fq.sq_db, 5);
}
END_TEST

static Suite *post_suite(void)
{
	Suite *s = suite_create("post");
	TCase *tc = tcase_create("post");
	TCase *sig_all = tcase_create("sq_sig_all");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_pool_lifo);
	tcase_add_test(tc, test_send_full);
	tcase_add_test(tc, test_send_unsignaled);
	tcase_add_test(tc, test_send_bad_flags_opcode);
	tcase_add_test(tc, test_send_state);
	tcase_add_test(tc, test_send_chain_bad_middle);
	tcase_add_test(tc, test_send_chain_batches_inline);
	tcase_add_test(tc, test_batch_size);
	tcase_add_test(tc, test_reset_indices);
	tcase_add_test(tc, test_recv_state);
	tcase_add_test(tc, test_recv_sges);
	tcase_add_test(tc, test_recv_full);
	tcase_add_test(tc, test_wr_abort);
	tcase_add_test(tc, test_wr_session_error);
	tcase_add_test(tc, test_wr_full);
	tcase_add_test(tc, test_wr_many);
	tcase_add_test(tc, test_send_wakes_device);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(sig_all, setup_sig_all, teardown);
	tcase_add_test(sig_all, test_send_sig_all);
	suite_add_tcase(s, sig_all);
	return s;
}

SEFA_CHECK_MAIN(post_suite)
