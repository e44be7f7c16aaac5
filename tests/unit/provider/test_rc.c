// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RC queue pairs: the states posting is allowed in, the WR opcodes and
 * flags, unsignaled WQEs and the in-order release of their request ids,
 * receives split into descriptors, and the completions the device writes
 * for them.
 */

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "efa_dp.h"
#include "efa/efa_ext_abi.h"
#include "efa_fixture.h"
#include "check_main.h"

#define QPN 0x21

static struct efa_fixture fx;
static struct efa_fake_cq fc;
static struct efa_fake_qp fq;
static char buf[64];
static struct ibv_sge sge = { .length = 8, .lkey = 1 };

static void setup(void)
{
	const struct efa_fake_dp_attr attr = {
		.qp_type = IBV_QPT_RC,
		.qpn = QPN,
		.cap = { .max_send_wr = 8, .max_recv_wr = 4,
			 .max_send_sge = 2, .max_recv_sge = 1 },
		.device_caps = SEFA_QUERY_DEVICE_CAPS_RC,
		.cq_entries = 64,
		/* a device with RDMA write: 32-byte entries */
		.cqe_size = EFA_IO_CQE_EX_SIZE,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};

	efa_fake_dp_open(&fx, &fc, &fq, &attr);
	sge.addr = (uintptr_t)buf;
}

static void teardown(void)
{
	efa_fake_dp_close(&fx, &fc, &fq);
}

static struct ibv_send_wr wr_of(uint64_t wr_id, enum ibv_wr_opcode opcode,
				unsigned int flags)
{
	return (struct ibv_send_wr){
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = flags,
		.wr.rdma = { .remote_addr = 0x1000, .rkey = 2 },
	};
}

static int post1(uint64_t wr_id, enum ibv_wr_opcode opcode,
		 unsigned int flags)
{
	struct ibv_send_wr wr = wr_of(wr_id, opcode, flags), *bad = NULL;

	return efa_post_send(efa_fake_ibvqp(&fq), &wr, &bad);
}

static int poll_wc(struct ibv_wc *wc, int n)
{
	return efa_poll_cq(&fc.cq->verbs_cq.cq, n, wc);
}

START_TEST(test_send_states)
{
	static const struct {
		enum ibv_qp_state state;
		int err;
	} cases[] = {
		{ IBV_QPS_RESET, EINVAL }, { IBV_QPS_INIT, EINVAL },
		{ IBV_QPS_RTR, EINVAL },   { IBV_QPS_RTS, 0 },
		{ IBV_QPS_SQD, 0 },	   { IBV_QPS_SQE, EINVAL },
		/* taken, and flushed by the device, as in InfiniBand */
		{ IBV_QPS_ERR, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		efa_fake_ibvqp(&fq)->state = cases[i].state;
		ck_assert_int_eq(post1(i, IBV_WR_SEND, IBV_SEND_SIGNALED),
				 cases[i].err);
	}
	ck_assert_uint_eq(fq.sq_db, 3);
}
END_TEST

START_TEST(test_recv_states)
{
	static const struct {
		enum ibv_qp_state state;
		int err;
	} cases[] = {
		{ IBV_QPS_RESET, EINVAL }, { IBV_QPS_INIT, 0 },
		{ IBV_QPS_RTR, 0 },	   { IBV_QPS_RTS, 0 },
		{ IBV_QPS_SQD, 0 },	   { IBV_QPS_SQE, 0 },
		{ IBV_QPS_ERR, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		efa_fake_ibvqp(&fq)->state = cases[i].state;
		if (!cases[i].err)
			/* keep the RQ from filling */
			fq.qp->rq.wq.wrid_idx_pool_next = 0;
		ck_assert_int_eq(efa_fake_post_recv(&fq, 50, &sge, 1),
				 cases[i].err);
	}
	ck_assert_uint_eq(fq.rq_db, 6);
}
END_TEST

/* Opcodes as the device offers them; flags signaled and inline only. */
START_TEST(test_opcodes_flags)
{
	static const enum ibv_wr_opcode ok[] = {
		IBV_WR_SEND, IBV_WR_SEND_WITH_IMM, IBV_WR_RDMA_WRITE,
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_RDMA_READ,
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		ck_assert_int_eq(post1(i, ok[i], 0), 0);
	ck_assert_int_eq(post1(9, IBV_WR_ATOMIC_CMP_AND_SWP, 0), EINVAL);
	ck_assert_int_eq(post1(9, IBV_WR_SEND_WITH_INV, 0), EINVAL);
	ck_assert_int_eq(post1(9, 99, 0), EINVAL);
	ck_assert_int_eq(post1(9, IBV_WR_SEND, IBV_SEND_FENCE), EINVAL);
	ck_assert_int_eq(post1(9, IBV_WR_SEND, IBV_SEND_SOLICITED), EINVAL);

	/* a device without RDMA write */
	fx.ctx->device_caps &= ~EFA_QUERY_DEVICE_CAPS_RDMA_WRITE;
	efa_qp_setup(fx.ctx, fq.qp, IBV_QPT_RC, &fq.geom, (uint8_t *)fq.llq,
		     0);
	ck_assert_int_eq(post1(9, IBV_WR_RDMA_WRITE, 0), EINVAL);
	ck_assert_int_eq(post1(9, IBV_WR_RDMA_WRITE_WITH_IMM, 0), EINVAL);
	ck_assert_int_eq(post1(9, IBV_WR_RDMA_READ, 0), 0);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 6);
}
END_TEST

/*
 * Successful unsignaled WQEs complete silently; the next signaled
 * completion retires them with it, across the end of the ring.
 */
START_TEST(test_unsignaled_release)
{
	struct efa_wq *wq = &fq.qp->sq.wq;
	uint32_t n = fq.geom.sq_wqe_cnt;
	struct ibv_wc wc[2];

	for (uint64_t i = 1; i <= 3; i++)
		ck_assert_int_eq(post1(i, IBV_WR_RDMA_WRITE, 0), 0);
	ck_assert_int_eq(post1(4, IBV_WR_SEND, IBV_SEND_SIGNALED), 0);
	for (uint32_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(fq.llq[i].meta.req_id, i);
		ck_assert_uint_eq(fq.llq[i].meta.ctrl2 &
					  EFA_IO_TX_META_DESC_COMP_REQ,
				  i == 3 ? EFA_IO_TX_META_DESC_COMP_REQ : 0);
	}
	ck_assert_uint_eq(wq->wrid_idx_pool_next, 4);

	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 3, EFA_IO_SEND, 0);
	ck_assert_int_eq(poll_wc(wc, 2), 1);
	ck_assert_uint_eq(wc[0].wr_id, 4);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_SEND);
	ck_assert_uint_eq(wq->wrid_idx_pool_next, 0);
	ck_assert_uint_eq(wq->ci, 4);

	/* a whole ring, the last one signaled: ids wrap to 3 */
	for (uint32_t i = 0; i < n; i++)
		ck_assert_int_eq(post1(100 + i, IBV_WR_SEND,
				       i == n - 1 ? IBV_SEND_SIGNALED : 0),
				 0);
	ck_assert_int_eq(post1(999, IBV_WR_SEND, 0), ENOMEM);
	ck_assert_uint_eq(fq.llq[3].meta.req_id, 3);
	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 3, EFA_IO_SEND, 0);
	ck_assert_int_eq(poll_wc(wc, 2), 1);
	ck_assert_uint_eq(wc[0].wr_id, 100 + n - 1);
	ck_assert_uint_eq(wq->wrid_idx_pool_next, 0);
	ck_assert_uint_eq(wq->ci, 4 + n);
	ck_assert_int_eq(post1(1000, IBV_WR_SEND, 0), 0);
	ck_assert_uint_eq(fq.llq[4].meta.req_id, 4);
}
END_TEST

/* With sq_sig_all every WQE asks for a completion, whatever the WR says. */
/*
 * RC asking max_inline_data beyond 32 bytes, on a device with 128-byte
 * WQEs: an inline RDMA write through ibv_post_send() carries its bytes
 * after the remote address, the rest of the slot zero; inline read, and
 * inline write on a 64-byte QP, refused.
 */
START_TEST(test_inline_write_128)
{
	struct ibv_qp_cap cap = { .max_send_wr = 8, .max_send_sge = 1,
				  .max_inline_data = 80 };
	struct efa_fake_qp fq128;
	struct efa_io_tx_wqe_128 *w;
	struct ibv_send_wr wr = wr_of(5, IBV_WR_RDMA_WRITE, IBV_SEND_INLINE);
	struct ibv_send_wr *bad;
	uint8_t zero[48] = {};

	ck_assert_int_eq(post1(1, IBV_WR_RDMA_WRITE, IBV_SEND_INLINE), EINVAL);
	fx.ctx->inline_buf_size_ex = 80;
	efa_fake_qp_init(&fx, &fq128, &fc, IBV_QPT_RC, &cap, QPN + 1, 0, 0);
	ck_assert_uint_eq(fq128.qp->sq.wqe_size, 128);
	memcpy(buf, "0123456789abcdef", 16);
	memset(fq128.llq, 0xff, 128);
	ck_assert_int_eq(efa_post_send(efa_fake_ibvqp(&fq128), &wr, &bad), 0);
	w = (struct efa_io_tx_wqe_128 *)fq128.llq;
	ck_assert_uint_eq(w->meta.ctrl1, EFA_IO_TX_META_DESC_META_DESC |
					 EFA_IO_RDMA_WRITE |
					 EFA_IO_TX_META_DESC_INLINE_MSG);
	ck_assert_uint_eq(w->meta.length, 8);
	ck_assert_uint_eq(w->data.rdma_req.remote_mem.length, 8);
	ck_assert_uint_eq(w->data.rdma_req.remote_mem.rkey, 2);
	ck_assert_uint_eq(w->data.rdma_req.remote_mem.buf_addr_lo, 0x1000);
	ck_assert_mem_eq(w->data.rdma_req.inline_data, "01234567", 8);
	ck_assert_mem_eq(w->data.rdma_req.inline_data + 8, zero, 48);

	/* 80 bytes fit, 81 do not; no inline read */
	sge.length = 81;
	ck_assert_int_eq(efa_post_send(efa_fake_ibvqp(&fq128), &wr, &bad),
			 EINVAL);
	sge.length = 8;
	wr.opcode = IBV_WR_RDMA_READ;
	ck_assert_int_eq(efa_post_send(efa_fake_ibvqp(&fq128), &wr, &bad),
			 EINVAL);
	efa_fake_qp_fini(&fx, &fq128);
	fx.ctx->inline_buf_size_ex = 0;
}
END_TEST

START_TEST(test_sig_all)
{
	efa_qp_setup(fx.ctx, fq.qp, IBV_QPT_RC, &fq.geom, (uint8_t *)fq.llq,
		     1);
	ck_assert_int_eq(post1(1, IBV_WR_RDMA_WRITE, 0), 0);
	ck_assert_uint_eq(fq.llq[0].meta.ctrl2, EFA_IO_TX_META_DESC_FIRST |
							EFA_IO_TX_META_DESC_LAST |
							EFA_IO_TX_META_DESC_COMP_REQ);
}
END_TEST

/* An unsignaled WQE that fails completes, and so do those flushed after. */
START_TEST(test_error_and_flush)
{
	struct ibv_wc wc[4];

	ck_assert_int_eq(post1(1, IBV_WR_RDMA_WRITE, 0), 0);
	ck_assert_int_eq(post1(2, IBV_WR_RDMA_WRITE, 0), 0);
	ck_assert_int_eq(post1(3, IBV_WR_SEND, IBV_SEND_SIGNALED), 0);

	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 0, EFA_IO_RDMA_WRITE,
			  EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 1, EFA_IO_RDMA_WRITE,
			  EFA_IO_COMP_STATUS_FLUSHED);
	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 2, EFA_IO_SEND,
			  EFA_IO_COMP_STATUS_FLUSHED);
	ck_assert_int_eq(poll_wc(wc, 4), 3);
	ck_assert_uint_eq(wc[0].wr_id, 1);
	ck_assert_int_eq(wc[0].status, IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_RDMA_WRITE);
	ck_assert_uint_eq(wc[1].wr_id, 2);
	ck_assert_int_eq(wc[1].status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(wc[2].wr_id, 3);
	ck_assert_int_eq(wc[2].status, IBV_WC_WR_FLUSH_ERR);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 0);

	/* the statuses an RC requester meets */
	ck_assert_int_eq(efa_wc_status(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR),
			 IBV_WC_RNR_RETRY_EXC_ERR);
	ck_assert_int_eq(efa_wc_status(EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE),
			 IBV_WC_RESP_TIMEOUT_ERR);
}
END_TEST

/* A completion for an id that is not outstanding changes nothing. */
START_TEST(test_bad_req_id)
{
	struct efa_wq *wq = &fq.qp->sq.wq;
	struct ibv_wc wc;

	ck_assert_int_eq(post1(1, IBV_WR_SEND, 0), 0);
	ck_assert_int_eq(post1(2, IBV_WR_SEND, 0), 0);
	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 2, EFA_IO_SEND, 0);
	ck_assert_int_eq(poll_wc(&wc, 1), -EINVAL);
	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 0xffff, EFA_IO_SEND, 0);
	ck_assert_int_eq(poll_wc(&wc, 1), -EINVAL);
	ck_assert_uint_eq(wq->wrid_idx_pool_next, 2);
	ck_assert_uint_eq(wq->ci, 0);
	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 1, EFA_IO_SEND, 0);
	ck_assert_int_eq(poll_wc(&wc, 1), 1);
	ck_assert_uint_eq(wc.wr_id, 2);
}
END_TEST

/* RDMA read is itself on RC (on SRD it completes as a send). */
START_TEST(test_tx_opcodes)
{
	struct ibv_cq_ex *cqx = &fc.cq->verbs_cq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc[3];

	for (int round = 0; round < 2; round++) {
		ck_assert_int_eq(post1(1, IBV_WR_RDMA_WRITE,
				       IBV_SEND_SIGNALED), 0);
		ck_assert_int_eq(post1(2, IBV_WR_RDMA_READ,
				       IBV_SEND_SIGNALED), 0);
		ck_assert_int_eq(post1(3, IBV_WR_SEND, IBV_SEND_SIGNALED), 0);
		efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 3 * round,
				  EFA_IO_RDMA_WRITE, 0);
		efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 3 * round + 1,
				  EFA_IO_RDMA_READ, 0);
		efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 3 * round + 2,
				  EFA_IO_SEND, 0);
		if (!round) {
			ck_assert_int_eq(poll_wc(wc, 3), 3);
			ck_assert_int_eq(wc[0].opcode, IBV_WC_RDMA_WRITE);
			ck_assert_int_eq(wc[1].opcode, IBV_WC_RDMA_READ);
			ck_assert_int_eq(wc[2].opcode, IBV_WC_SEND);
			continue;
		}
		ck_assert_int_eq(ibv_start_poll(cqx, &attr), 0);
		ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_RDMA_WRITE);
		ck_assert_int_eq(ibv_next_poll(cqx), 0);
		ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_RDMA_READ);
		ck_assert_int_eq(ibv_next_poll(cqx), 0);
		ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_SEND);
		ck_assert_uint_eq(ibv_wc_read_byte_len(cqx), 0);
		ibv_end_poll(cqx);
	}
}
END_TEST

/*
 * A receive SGE longer than a descriptor holds takes several, up to the
 * device's SGE limit for the WR; the completion carries the high half of
 * the length.
 */
START_TEST(test_recv_long)
{
	struct ibv_cq_ex *cqx = &fc.cq->verbs_cq.cq_ex;
	struct ibv_sge big = { .addr = 0x7f0000000000ULL, .length = 0x20001,
			       .lkey = 0x42 };
	struct efa_io_rx_cdesc_ex rx = efa_fake_cqe(&fq, EFA_IO_RECV_QUEUE, 0,
						    0, 0);
	struct ibv_poll_cq_attr attr = {};
	union ibv_gid gid;
	struct ibv_wc wc;

	/* the ring has room for the device's 3 descriptors per WR */
	ck_assert_uint_eq(fq.geom.rq_wr_descs, 3);
	ck_assert_uint_eq(fq.geom.rq_desc_cnt, 16);
	ck_assert_uint_eq(fq.geom.rq_wqe_cnt, 5);

	ck_assert_int_eq(efa_fake_post_recv(&fq, 50, &big, 1), 0);
	ck_assert_uint_eq(fq.rq_db, 3);
	ck_assert_uint_eq(fq.rq_ring[0].length, 0xffff);
	ck_assert_uint_eq(fq.rq_ring[0].lkey_ctrl, 0x40000042);
	ck_assert_uint_eq(fq.rq_ring[0].buf_addr_hi, 0x7f00);
	ck_assert_uint_eq(fq.rq_ring[1].length, 0xffff);
	ck_assert_uint_eq(fq.rq_ring[1].buf_addr_lo, 0xffff);
	ck_assert_uint_eq(fq.rq_ring[1].lkey_ctrl, 0x42);
	ck_assert_uint_eq(fq.rq_ring[1].req_id, 0);
	ck_assert_uint_eq(fq.rq_ring[2].length, 3);
	ck_assert_uint_eq(fq.rq_ring[2].buf_addr_lo, 0x1fffe);
	ck_assert_uint_eq(fq.rq_ring[2].lkey_ctrl, 0x80000042);

	big.length = 3 * 0xffff + 1;
	ck_assert_int_eq(efa_fake_post_recv(&fq, 50, &big, 1), EINVAL);
	big.length = 0;
	ck_assert_int_eq(efa_fake_post_recv(&fq, 50, &big, 1), 0);
	ck_assert_uint_eq(fq.rq_ring[3].lkey_ctrl, 0xc0000042);
	ck_assert_uint_eq(fq.rq_db, 4);

	/* a send of 128 KiB + 1: 16 bits in length, the rest in length_hi */
	rx.base.length = 1;
	rx.u.rdma_write.length_hi = 2;
	efa_fake_cq_push(&fc, rx);
	ck_assert_int_eq(poll_wc(&wc, 1), 1);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.byte_len, 0x20001);
	ck_assert_uint_eq(wc.wr_id, 50);

	/* an RDMA write with immediate */
	rx.base.common.req_id = 1;
	rx.base.common.flags |= EFA_IO_CDESC_COMMON_HAS_IMM |
				EFA_IO_RDMA_WRITE
					<< EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT;
	rx.base.imm = 0x11223344;
	rx.base.length = 0;
	rx.u.rdma_write.length_hi = 0x10;
	rx.base.ah = EFA_IO_AH_UNKNOWN;
	efa_fake_cq_push(&fc, rx);
	ck_assert_int_eq(ibv_start_poll(cqx, &attr), 0);
	ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(ibv_wc_read_byte_len(cqx), 0x100000);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(cqx), IBV_WC_WITH_IMM);
	ck_assert_uint_eq(ibv_wc_read_imm_data(cqx), htobe32(0x11223344));
	/* those bytes are the length, not a GID */
	ck_assert_int_eq(efadv_wc_read_sgid(&fc.cq->dv_cq, &gid), -ENOENT);
	ibv_end_poll(cqx);
}
END_TEST

static Suite *rc_suite(void)
{
	Suite *s = suite_create("rc");
	TCase *tc = tcase_create("rc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_send_states);
	tcase_add_test(tc, test_recv_states);
	tcase_add_test(tc, test_opcodes_flags);
	tcase_add_test(tc, test_unsignaled_release);
	tcase_add_test(tc, test_sig_all);
	tcase_add_test(tc, test_inline_write_128);
	tcase_add_test(tc, test_error_and_flush);
	tcase_add_test(tc, test_bad_req_id);
	tcase_add_test(tc, test_tx_opcodes);
	tcase_add_test(tc, test_recv_long);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(rc_suite)
