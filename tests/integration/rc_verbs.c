// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reliable connected QPs on SoftEFA's extended profile, in one process:
 * the state machine and its masks, RDMA write, write with immediate and
 * read, byte-exact, inline RDMA writes in 128-byte WQEs, in-order delivery, and the protection rules: every
 * violation is a remote access error for the requester, the target memory
 * stays as it was, and the requester's QP flushes what follows.
 */
#define _GNU_SOURCE
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "check_bytes.h"
#include "check_main.h"
#include "dp.h"

#define BUF_SIZE	(1 << 20)
#define HALF		(BUF_SIZE / 2)
#define REMOTE_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)
/* How long a completion may take. */
#define WAIT_MS		20000

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_port_attr port;
	union ibv_gid gid;
} e;

static void env_open(void)
{
	e.ctx = dp_open_device();
	ck_assert_int_eq(ibv_query_port(e.ctx, 1, &e.port), 0);
	ck_assert_int_ne(e.port.lid, 0);
	ck_assert_int_eq(ibv_query_gid(e.ctx, 1, 0, &e.gid), 0);
	e.pd = ibv_alloc_pd(e.ctx);
	e.cq = ibv_create_cq(e.ctx, 512, NULL, NULL, 0);
	e.buf = aligned_alloc(4096, BUF_SIZE);
	ck_assert(e.pd && e.cq && e.buf);
	memset(e.buf, 0, BUF_SIZE);
	e.mr = ibv_reg_mr(e.pd, e.buf, BUF_SIZE, REMOTE_ALL);
	ck_assert_ptr_nonnull(e.mr);
}

static void env_close(void)
{
	ibv_dereg_mr(e.mr);
	ibv_destroy_cq(e.cq);
	ibv_dealloc_pd(e.pd);
	ibv_close_device(e.ctx);
	free(e.buf);
}

static struct ibv_qp *rc_qp(struct ibv_pd *pd)
{
	struct ibv_qp_init_attr a = {
		.send_cq = e.cq, .recv_cq = e.cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 128, .max_recv_wr = 128,
			 .max_send_sge = 2, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &a);

	ck_assert_msg(qp, "create RC QP: %s", strerror(errno));
	return qp;
}

/* The path to this port, by GID or by LID. */
static struct ibv_ah_attr path(bool global)
{
	return (struct ibv_ah_attr){
		.dlid = e.port.lid, .port_num = 1, .is_global = global,
		.grh = { .dgid = e.gid, .hop_limit = 1 },
	};
}

/* a <-> b, b serving remote access as @b_access says. */
static void connect2(struct ibv_qp *a, struct ibv_qp *b, int b_access,
		     bool global, uint8_t rnr_retry)
{
	struct ibv_ah_attr av = path(global);

	ck_assert_int_eq(dev_rc_to_init(a, REMOTE_ALL), 0);
	ck_assert_int_eq(dev_rc_to_init(b, b_access), 0);
	ck_assert_int_eq(dev_rc_to_rtr(a, b->qp_num, &av), 0);
	ck_assert_int_eq(dev_rc_to_rtr(b, a->qp_num, &av), 0);
	ck_assert_int_eq(dev_rc_to_rts(a, rnr_retry), 0);
	ck_assert_int_eq(dev_rc_to_rts(b, rnr_retry), 0);
}

static void post_recv(struct ibv_qp *qp, uint64_t off, uint32_t len,
		      uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e.buf + off, len, e.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

static void post(struct ibv_qp *qp, enum ibv_wr_opcode op, uint64_t off,
		 uint32_t len, uint64_t raddr, uint32_t rkey, uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e.buf + off, len, e.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0x5eed0001),
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;

	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

static void fill(uint64_t off, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		e.buf[off + i] = (uint8_t)(seed ^ i * 13);
}

static void expect(struct ibv_wc wc, uint64_t id, enum ibv_wc_status st)
{
	ck_assert_int_eq(wc.wr_id, id);
	ck_assert_msg(wc.status == st, "wr %llu: %s, expected %s",
		      (unsigned long long)id, ibv_wc_status_str(wc.status),
		      ibv_wc_status_str(st));
}

START_TEST(transitions)
{
	struct ibv_qp *qp = rc_qp(e.pd);
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct ibv_qp_init_attr ia;
	struct ibv_ah_attr av;

	/* INIT without the access flags RC requires */
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE |
				       IBV_QP_PKEY_INDEX | IBV_QP_PORT), EINVAL);
	/* RESET straight to RTR */
	a.qp_state = IBV_QPS_RTR;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
	ck_assert_int_eq(dev_rc_to_init(qp, REMOTE_ALL), 0);
	/* RTR without a path */
	a.qp_state = IBV_QPS_RTR;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), EINVAL);
	/* a Q_Key means nothing to RC */
	a.qkey = 1;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_QKEY),
			 EINVAL);
	av = path(false);
	ck_assert_int_eq(dev_rc_to_rtr(qp, qp->qp_num, &av), 0);
	/* RTS without the retry counts */
	a.qp_state = IBV_QPS_RTS;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN),
			 EINVAL);
	ck_assert_int_eq(dev_rc_to_rts(qp, 7), 0);
	ck_assert_int_eq(ibv_query_qp(qp, &a, IBV_QP_STATE | IBV_QP_DEST_QPN,
				      &ia), 0);
	ck_assert_int_eq(a.qp_state, IBV_QPS_RTS);
	ck_assert_int_eq(a.dest_qp_num, qp->qp_num);
	ck_assert_int_eq(a.ah_attr.dlid, e.port.lid);
	/* any state to RESET, and back up */
	a.qp_state = IBV_QPS_RESET;
	ck_assert_int_eq(ibv_modify_qp(qp, &a, IBV_QP_STATE), 0);
	ck_assert_int_eq(dev_rc_to_init(qp, 0), 0);
	ibv_destroy_qp(qp);
}
END_TEST

/* Sends arrive in order and intact, by LID or by GID. */
START_TEST(in_order)
{
	struct ibv_qp *a = rc_qp(e.pd), *b = rc_qp(e.pd);
	int i;

	connect2(a, b, REMOTE_ALL, _i, 7);
	for (i = 0; i < 64; i++)
		post_recv(b, HALF + i * 4096, 4096, 1000 + i);
	for (i = 0; i < 64; i++) {
		fill(i * 4096, 1 + i * 63, i);
		post(a, IBV_WR_SEND, i * 4096, 1 + i * 63, 0, 0, i);
	}
	for (i = 0; i < 128; i++) {
		struct ibv_wc wc = dp_poll_one(e.cq, WAIT_MS);

		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.wr_id >= 1000) {
			int k = wc.wr_id - 1000;

			ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
			ck_assert_int_eq(wc.byte_len, 1 + k * 63);
			sefa_assert_bytes(e.buf + HALF + k * 4096,
					  e.buf + k * 4096, wc.byte_len);
		}
	}
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}
END_TEST

START_TEST(rdma_write_read)
{
	struct ibv_qp *a = rc_qp(e.pd), *b = rc_qp(e.pd);
	uint32_t len = 300000;
	struct ibv_wc wc;

	connect2(a, b, REMOTE_ALL, false, 7);
	fill(0, len, 7);
	post(a, IBV_WR_RDMA_WRITE, 0, len, (uintptr_t)e.buf + HALF,
	     e.mr->rkey, 1);
	wc = dp_poll_one(e.cq, WAIT_MS);
	expect(wc, 1, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_WRITE);
	sefa_assert_bytes(e.buf + HALF, e.buf, len);

	/* read it back elsewhere */
	memset(e.buf + 4096, 0, 8192);
	post(a, IBV_WR_RDMA_READ, 4096, 8192, (uintptr_t)e.buf + HALF + 100,
	     e.mr->rkey, 2);
	wc = dp_poll_one(e.cq, WAIT_MS);
	expect(wc, 2, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RDMA_READ);
	sefa_assert_bytes(e.buf + 4096, e.buf + HALF + 100, 8192);

	/* write with immediate: the target gets a receive completion */
	post_recv(b, 0, 0, 3);
	post(a, IBV_WR_RDMA_WRITE_WITH_IMM, 0, 70000,
	     (uintptr_t)e.buf + HALF, e.mr->rkey, 4);
	for (int i = 0; i < 2; i++) {
		wc = dp_poll_one(e.cq, WAIT_MS);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.wr_id == 3) {
			ck_assert_int_eq(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
			ck_assert_int_eq(wc.byte_len, 70000);
			ck_assert(wc.wc_flags & IBV_WC_WITH_IMM);
			ck_assert_int_eq(be32toh(wc.imm_data), 0x5eed0001);
		}
	}
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}
END_TEST

/*
 * RC asking 80 inline bytes gets 128-byte WQEs (the extended profile
 * reports inline_buf_size_ex 80), and ibv_post_send() takes inline RDMA
 * writes of 1 to 80 bytes, with and without immediate, each landing byte
 * for byte with the byte after it untouched; 81 bytes and an inline read
 * are refused with EINVAL.
 */
START_TEST(rdma_write_inline)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = e.cq, .recv_cq = e.cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 128, .max_recv_wr = 128,
			 .max_send_sge = 2, .max_recv_sge = 1,
			 .max_inline_data = 80 },
	};
	struct ibv_qp *a = ibv_create_qp(e.pd, &qa), *b = rc_qp(e.pd);
	uint8_t data[81];
	struct ibv_sge sge = { (uintptr_t)data, 0, 0 };
	struct ibv_send_wr wr = {
		.sg_list = &sge, .num_sge = 1,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
		.imm_data = htobe32(0x1a11e),
	}, *bad;
	struct ibv_wc wc;

	ck_assert_msg(a, "RC QP of 80 inline bytes: %s", strerror(errno));
	ck_assert_uint_eq(qa.cap.max_inline_data, 80);
	connect2(a, b, REMOTE_ALL, false, 7);
	memset(e.buf + HALF, 0xee, 128 * 81);
	for (uint32_t len = 1; len <= 80; len++) {
		uint8_t *at = e.buf + HALF + 128 * len;
		bool imm = len % 8 == 0;

		for (uint32_t i = 0; i < len; i++)
			data[i] = (uint8_t)(len ^ i * 29);
		if (imm)
			post_recv(b, 0, 0, 1000 + len);
		sge.length = len;
		wr.wr_id = len;
		wr.opcode = imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
		wr.wr.rdma.remote_addr = (uintptr_t)at;
		wr.wr.rdma.rkey = e.mr->rkey;
		ck_assert_int_eq(ibv_post_send(a, &wr, &bad), 0);
		memset(data, 0, sizeof(data));
		for (int n = imm ? 2 : 1; n; n--) {
			wc = dp_poll_one(e.cq, WAIT_MS);
			ck_assert_msg(wc.status == IBV_WC_SUCCESS,
				      "inline write of %u: %s", len,
				      ibv_wc_status_str(wc.status));
			if (wc.wr_id == 1000 + len)
				ck_assert_int_eq(wc.byte_len, len);
			else
				ck_assert_int_eq(wc.wr_id, len);
		}
		for (uint32_t i = 0; i < len; i++)
			ck_assert_msg(at[i] == (uint8_t)(len ^ i * 29),
				      "write of %u, byte %u: %#x", len, i,
				      at[i]);
		ck_assert_int_eq(at[len], 0xee);
	}

	sge.length = 81;
	wr.opcode = IBV_WR_RDMA_WRITE;
	ck_assert_int_eq(ibv_post_send(a, &wr, &bad), EINVAL);
	sge.length = 8;
	wr.opcode = IBV_WR_RDMA_READ;
	ck_assert_int_eq(ibv_post_send(a, &wr, &bad), EINVAL);
	/* a QP of 64-byte WQEs takes no inline write */
	wr.opcode = IBV_WR_RDMA_WRITE;
	ck_assert_int_eq(ibv_post_send(b, &wr, &bad), EINVAL);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}
END_TEST

/*
 * One protection violation per case: the requester gets REM_ACCESS_ERR,
 * the target bytes stay, and the requester's QP flushes what follows.
 */
enum { NO_REMOTE_WRITE, STALE_RKEY, OUT_OF_BOUNDS, OTHER_PD, QP_NO_WRITE,
       NCASES };

START_TEST(protection)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(e.ctx);
	struct ibv_qp *a = rc_qp(e.pd), *b = rc_qp(e.pd);
	struct ibv_mr *target;
	uint32_t rkey;
	uint64_t raddr = (uintptr_t)e.buf + HALF;
	int access = _i == QP_NO_WRITE ? IBV_ACCESS_REMOTE_READ : REMOTE_ALL;
	struct ibv_wc wc;

	ck_assert_ptr_nonnull(pd2);
	connect2(a, b, access, false, 7);
	switch (_i) {
	case NO_REMOTE_WRITE:
		target = ibv_reg_mr(e.pd, e.buf + HALF, 4096,
				    IBV_ACCESS_LOCAL_WRITE);
		break;
	case OTHER_PD:
		target = ibv_reg_mr(pd2, e.buf + HALF, 4096, REMOTE_ALL);
		break;
	default:
		target = ibv_reg_mr(e.pd, e.buf + HALF, 4096, REMOTE_ALL);
	}
	ck_assert_ptr_nonnull(target);
	rkey = target->rkey;
	if (_i == STALE_RKEY) {
		ck_assert_int_eq(ibv_dereg_mr(target), 0);
		target = NULL;
	}
	if (_i == OUT_OF_BOUNDS)
		raddr += 4096 - 8;

	memset(e.buf + HALF, 0x77, 4096);
	fill(0, 64, 1);
	post_recv(a, 8192, 64, 9);
	post(a, IBV_WR_RDMA_WRITE, 0, 64, raddr, rkey, 1);
	post(a, IBV_WR_RDMA_WRITE, 0, 64, (uintptr_t)e.buf + HALF,
	     e.mr->rkey, 2);
	/*
	 * The failed write, then the queue behind it and the receive,
	 * flushed.  Send and receive queue complete into different sub-CQs,
	 * so only each queue's own order is given.
	 */
	for (int i = 0, sends = 0; i < 3; i++) {
		wc = dp_poll_one(e.cq, WAIT_MS);
		if (wc.wr_id == 9) {
			ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
			continue;
		}
		expect(wc, sends ? 2 : 1, sends ? IBV_WC_WR_FLUSH_ERR :
						   IBV_WC_REM_ACCESS_ERR);
		sends++;
	}
	sefa_assert_all(e.buf, HALF, HALF + 4096, 0x77, "written");
	if (target)
		ibv_dereg_mr(target);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_dealloc_pd(pd2);
}
END_TEST

/* Nobody posted a receive: RNR retries run out, the QP goes to error. */
START_TEST(rnr)
{
	struct ibv_qp *a = rc_qp(e.pd), *b = rc_qp(e.pd);

	connect2(a, b, REMOTE_ALL, false, 2);
	post(a, IBV_WR_SEND, 0, 16, 0, 0, 1);
	expect(dp_poll_one(e.cq, WAIT_MS), 1, IBV_WC_RNR_RETRY_EXC_ERR);
	post(a, IBV_WR_SEND, 0, 16, 0, 0, 2);
	expect(dp_poll_one(e.cq, WAIT_MS), 2, IBV_WC_WR_FLUSH_ERR);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}
END_TEST

/* Moved to error, a QP flushes what was posted. */
START_TEST(flush_on_error)
{
	struct ibv_qp *a = rc_qp(e.pd), *b = rc_qp(e.pd);
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	int i;

	connect2(a, b, REMOTE_ALL, false, 7);
	for (i = 0; i < 5; i++)
		post_recv(b, 0, 64, i);
	ck_assert_int_eq(ibv_modify_qp(b, &attr, IBV_QP_STATE), 0);
	for (i = 0; i < 5; i++) {
		struct ibv_wc wc = dp_poll_one(e.cq, WAIT_MS);

		ck_assert_int_eq(wc.status, IBV_WC_WR_FLUSH_ERR);
		ck_assert_int_eq(wc.qp_num, b->qp_num);
	}
	/* and a peer in error answers nobody: the requester times out,
	 * retry_cnt (7) times 67 ms, as on InfiniBand */
	post(a, IBV_WR_SEND, 0, 16, 0, 0, 7);
	expect(dp_poll_one(e.cq, WAIT_MS), 7, IBV_WC_RETRY_EXC_ERR);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}
END_TEST

static Suite *rc_suite(void)
{
	Suite *s = suite_create("rc");
	TCase *t = tcase_create("rc");

	tcase_add_checked_fixture(t, env_open, env_close);
	tcase_set_timeout(t, 20);
	tcase_add_test(t, transitions);
	tcase_add_loop_test(t, in_order, 0, 2);
	tcase_add_test(t, rdma_write_read);
	tcase_add_test(t, rdma_write_inline);
	tcase_add_loop_test(t, protection, 0, NCASES);
	tcase_add_test(t, rnr);
	tcase_add_test(t, flush_on_error);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(rc_suite)
