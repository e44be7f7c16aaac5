// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Polling: phase bits and sub-CQ walking over a CQ ring in memory that
 * the test writes as the device would; the work completions built from
 * the entries; the extended CQ API; status mapping; the CQ doorbell.
 */

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "efa_dp.h"
#include "efa/efa_ext_abi.h"
#include "efa_fixture.h"
#include "check_main.h"

#define QPN 0x105		/* table index 5: the high bits must match */

static struct efa_fixture fx;
static struct efa_fake_cq fc;
static struct efa_fake_qp fq;
static char buf[64];
static struct ibv_sge sge = { .length = 64, .lkey = 1 };

static void setup_cq(uint16_t num_sub_cqs, uint32_t cqe_size)
{
	const struct efa_fake_dp_attr attr = {
		.qp_type = IBV_QPT_DRIVER,
		.qpn = QPN,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_all = 1,
		.num_sub_cqs = num_sub_cqs,
		.cq_entries = 4,
		.cqe_size = cqe_size,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};

	efa_fake_dp_open(&fx, &fc, &fq, &attr);
	sge.addr = (uintptr_t)buf;
}

static void setup(void)
{
	setup_cq(1, EFA_IO_CQE_SIZE);
}

static void setup_sub_cqs(void)
{
	setup_cq(3, EFA_IO_CQE_SIZE);
}

static void setup_sgid(void)
{
	setup_cq(1, EFA_IO_CQE_EX_SIZE);
}

static void teardown(void)
{
	efa_fake_dp_close(&fx, &fc, &fq);
}

/* The device's entry for request req_id of the QP's queue q. */
static struct efa_io_rx_cdesc_ex cqe(uint16_t req_id, enum efa_io_queue_type q,
				     uint8_t status)
{
	return efa_fake_cqe(&fq, q, req_id, 0, status);
}

static uint16_t next_req_id(void)
{
	const struct efa_io_cdesc_common *c = efa_cq_next_cqe(fc.cq);

	ck_assert_ptr_nonnull(c);
	return c->req_id;
}

START_TEST(test_phase_and_wrap)
{
	/* zeroed ring: phase 0 entries are the device's */
	ck_assert_ptr_null(efa_cq_next_cqe(fc.cq));
	efa_fake_cq_write(&fc, 0, 0, cqe(10, EFA_IO_SEND_QUEUE, 0), 0);
	ck_assert_ptr_null(efa_cq_next_cqe(fc.cq));

	for (uint32_t i = 0; i < 4; i++)
		efa_fake_cq_write(&fc, 0, i, cqe(i, EFA_IO_SEND_QUEUE, 0), 1);
	for (uint32_t i = 0; i < 4; i++)
		ck_assert_uint_eq(next_req_id(), i);
	ck_assert_uint_eq(fc.cq->cc, 4);

	/* second lap: last lap's phase is stale */
	ck_assert_ptr_null(efa_cq_next_cqe(fc.cq));
	efa_fake_cq_write(&fc, 0, 0, cqe(20, EFA_IO_SEND_QUEUE, 0), 0);
	ck_assert_uint_eq(next_req_id(), 20);
	ck_assert_ptr_null(efa_cq_next_cqe(fc.cq));
}
END_TEST

START_TEST(test_sub_cq_round_robin)
{
	/* sub-CQ 2 joins after 1: the walk follows that order */
	ck_assert_int_eq(efa_cq_activate_sub_cq(fc.cq, 1), 0);
	ck_assert_int_eq(efa_cq_activate_sub_cq(fc.cq, 2), 0);
	ck_assert_int_eq(efa_cq_activate_sub_cq(fc.cq, 1), 0);
	ck_assert_int_eq(efa_cq_activate_sub_cq(fc.cq, 3), EINVAL);
	ck_assert_uint_eq(fc.cq->num_active, 3);

	efa_fake_cq_write(&fc, 0, 0, cqe(0x00, EFA_IO_SEND_QUEUE, 0), 1);
	efa_fake_cq_write(&fc, 0, 1, cqe(0x01, EFA_IO_SEND_QUEUE, 0), 1);
	efa_fake_cq_write(&fc, 0, 2, cqe(0x02, EFA_IO_SEND_QUEUE, 0), 1);
	efa_fake_cq_write(&fc, 1, 0, cqe(0x10, EFA_IO_SEND_QUEUE, 0), 1);
	efa_fake_cq_write(&fc, 2, 0, cqe(0x20, EFA_IO_SEND_QUEUE, 0), 1);
	/* stale */
	efa_fake_cq_write(&fc, 2, 1, cqe(0x21, EFA_IO_SEND_QUEUE, 0), 0);

	/* each sub-CQ gets its turn, however busy the others are */
	ck_assert_uint_eq(next_req_id(), 0x00);
	ck_assert_uint_eq(next_req_id(), 0x10);
	ck_assert_uint_eq(next_req_id(), 0x20);
	ck_assert_uint_eq(next_req_id(), 0x01);
	ck_assert_uint_eq(next_req_id(), 0x02);
	ck_assert_ptr_null(efa_cq_next_cqe(fc.cq));
	ck_assert_uint_eq(fc.cq->cc, 5);

	efa_fake_cq_write(&fc, 2, 1, cqe(0x21, EFA_IO_SEND_QUEUE, 0), 1);
	ck_assert_uint_eq(next_req_id(), 0x21);
}
END_TEST

/* The device writes only sub-CQs that a QP completes into. */
START_TEST(test_sub_cq_inactive)
{
	efa_fake_cq_write(&fc, 1, 0, cqe(0x10, EFA_IO_SEND_QUEUE, 0), 1);
	efa_fake_cq_write(&fc, 0, 0, cqe(0x00, EFA_IO_SEND_QUEUE, 0), 1);
	ck_assert_uint_eq(next_req_id(), 0x00);
	ck_assert_ptr_null(efa_cq_next_cqe(fc.cq));
	ck_assert_int_eq(efa_cq_activate_sub_cq(fc.cq, 1), 0);
	ck_assert_uint_eq(next_req_id(), 0x10);
}
END_TEST

static uint16_t post_send(uint64_t wr_id)
{
	struct efa_wq *wq = &fq.qp->sq.wq;

	return efa_wq_get_idx(wq, wr_id);
}

START_TEST(test_poll_wc)
{
	struct efa_io_rx_cdesc_ex rx = cqe(0, EFA_IO_RECV_QUEUE, 0);
	struct efa_io_rx_cdesc_ex tx;
	struct ibv_wc wc[4];
	uint16_t sreq;

	ck_assert_int_eq(efa_fake_post_recv(&fq, 100, &sge, 1), 0);
	sreq = post_send(200);
	rx.base.common.flags |= EFA_IO_CDESC_COMMON_HAS_IMM;
	rx.base.length = 1234;
	rx.base.ah = EFA_IO_AH_UNKNOWN;
	rx.base.src_qp_num = 55;
	rx.base.imm = 0x01020304;
	efa_fake_cq_push(&fc, rx);
	tx = cqe(sreq, EFA_IO_SEND_QUEUE, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
	efa_fake_cq_push(&fc, tx);

	memset(wc, 0xee, sizeof(wc));
	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 4, wc), 2);

	ck_assert_uint_eq(wc[0].wr_id, 100);
	ck_assert_int_eq(wc[0].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc[0].vendor_err, 0);
	ck_assert_uint_eq(wc[0].byte_len, 1234);
	ck_assert_uint_eq(wc[0].qp_num, QPN);
	ck_assert_uint_eq(wc[0].src_qp, 55);
	ck_assert_uint_eq(wc[0].slid, 0xffff);
	ck_assert_uint_eq(wc[0].sl, 0);
	ck_assert_uint_eq(wc[0].wc_flags, IBV_WC_WITH_IMM);
	ck_assert_uint_eq(wc[0].imm_data, htobe32(0x01020304));

	ck_assert_uint_eq(wc[1].wr_id, 200);
	ck_assert_int_eq(wc[1].status, IBV_WC_RNR_RETRY_EXC_ERR);
	ck_assert_uint_eq(wc[1].vendor_err, 10);
	ck_assert_int_eq(wc[1].opcode, IBV_WC_SEND);
	ck_assert_uint_eq(wc[1].wc_flags, 0);
	ck_assert_uint_eq(wc[1].qp_num, QPN);

	/* the ids went back to their queues */
	ck_assert_uint_eq(fq.qp->rq.wq.wrid_idx_pool_next, 0);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 0);
	/* consumer index to the doorbell, not armed */
	ck_assert_uint_eq(fc.db, 2);

	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 4, wc), 0);
}
END_TEST

/* On SRD, RDMA read completes as IBV_WC_SEND, as on EFA hardware. */
START_TEST(test_poll_rdma_read)
{
	struct efa_io_rx_cdesc_ex tx = cqe(post_send(7), EFA_IO_SEND_QUEUE, 0);
	struct ibv_wc wc;

	tx.base.common.flags |= EFA_IO_RDMA_READ
				<< EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT;
	efa_fake_cq_push(&fc, tx);
	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 1, &wc), 1);
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
	ck_assert_uint_eq(wc.wr_id, 7);
}
END_TEST

/* The target's entry for a write with immediate of @len bytes. */
static struct efa_io_rx_cdesc_ex write_imm_cqe(uint16_t req_id, uint32_t len,
					       uint32_t imm)
{
	struct efa_io_rx_cdesc_ex rx = cqe(req_id, EFA_IO_RECV_QUEUE, 0);

	rx.base.common.flags |= EFA_IO_CDESC_COMMON_HAS_IMM |
				EFA_IO_RDMA_WRITE
					<< EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT;
	rx.base.length = (uint16_t)len;
	rx.u.rdma_write.length_hi = len >> 16;
	rx.base.imm = imm;
	return rx;
}

/*
 * The same, taking no receive (EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV):
 * req_id names nothing.
 */
static struct efa_io_rx_cdesc_ex unsolicited_cqe(uint32_t len, uint32_t imm)
{
	struct efa_io_rx_cdesc_ex rx = write_imm_cqe(0x3ff, len, imm);

	rx.base.common.flags |= EFA_IO_CDESC_COMMON_UNSOLICITED;
	rx.base.src_qp_num = 66;
	return rx;
}

static void expect_write_imm(const struct ibv_wc *wc, uint64_t wr_id,
			     uint32_t len, uint32_t imm)
{
	ck_assert_int_eq(wc->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc->opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(wc->wc_flags, IBV_WC_WITH_IMM);
	ck_assert_uint_eq(wc->byte_len, len);
	ck_assert_uint_eq(wc->imm_data, htobe32(imm));
	ck_assert_uint_eq(wc->wr_id, wr_id);
	ck_assert_uint_eq(wc->qp_num, QPN);
}

/* SRD RDMA write: the requester's completion, the target's immediate. */
START_TEST(test_poll_rdma_write)
{
	struct efa_io_rx_cdesc_ex tx = cqe(post_send(8), EFA_IO_SEND_QUEUE, 0);
	struct ibv_wc wc[2];

	tx.base.common.flags |= EFA_IO_RDMA_WRITE
				<< EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT;
	efa_fake_cq_push(&fc, tx);
	ck_assert_int_eq(efa_fake_post_recv(&fq, 9, &sge, 1), 0);
	efa_fake_cq_push(&fc, write_imm_cqe(0, 0x12345678, 3));

	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 2, wc), 2);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_RDMA_WRITE);
	ck_assert_uint_eq(wc[0].wr_id, 8);
	expect_write_imm(&wc[1], 9, 0x12345678, 3);
}
END_TEST

/*
 * An unsolicited write with immediate through ibv_poll_cq(): wr_id 0, the
 * write's length and immediate, and the receive posted before it still
 * there for the send after it.
 */
START_TEST(test_poll_unsolicited)
{
	struct efa_io_rx_cdesc_ex rx = cqe(0, EFA_IO_RECV_QUEUE, 0);
	struct ibv_wc wc[2];

	ck_assert_int_eq(efa_fake_post_recv(&fq, 9, &sge, 1), 0);
	efa_fake_cq_push(&fc, unsolicited_cqe(0x12345, 0xfeed));
	rx.base.length = 40;
	efa_fake_cq_push(&fc, rx);

	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 1, wc), 1);
	expect_write_imm(&wc[0], 0, 0x12345, 0xfeed);
	ck_assert_uint_eq(wc[0].src_qp, 66);
	/* no request id given back: the receive is still outstanding */
	ck_assert_uint_eq(fq.qp->rq.wq.wrid_idx_pool_next, 1);

	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 2, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 9);
	ck_assert_int_eq(wc[0].opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc[0].byte_len, 40);
	ck_assert_uint_eq(fq.qp->rq.wq.wrid_idx_pool_next, 0);
	ck_assert_uint_eq(fc.db, 2);
}
END_TEST

/* The same through the extended API, efadv_wc_is_unsolicited() telling. */
START_TEST(test_poll_ex_unsolicited)
{
	struct ibv_cq_ex *cqx = &fc.cq->verbs_cq.cq_ex;
	struct efadv_cq *dv = efadv_cq_from_ibv_cq_ex(cqx);
	struct efa_io_rx_cdesc_ex rx = cqe(0, EFA_IO_RECV_QUEUE, 0);
	struct efa_io_rx_cdesc_ex tx = cqe(post_send(400), EFA_IO_SEND_QUEUE,
					   0);
	struct ibv_poll_cq_attr attr = {};

	ck_assert_ptr_eq(dv, &fc.cq->dv_cq);
	ck_assert_int_eq(efa_fake_post_recv(&fq, 9, &sge, 1), 0);
	efa_fake_cq_push(&fc, unsolicited_cqe(512, 0xbeef));
	efa_fake_cq_push(&fc, rx);
	tx.base.common.flags |= EFA_IO_CDESC_COMMON_UNSOLICITED;
	efa_fake_cq_push(&fc, tx);

	ck_assert_int_eq(ibv_start_poll(cqx, &attr), 0);
	ck_assert(efadv_wc_is_unsolicited(dv));
	ck_assert_int_eq(cqx->status, IBV_WC_SUCCESS);
	ck_assert_uint_eq(cqx->wr_id, 0);
	ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(cqx), IBV_WC_WITH_IMM);
	ck_assert_uint_eq(ibv_wc_read_imm_data(cqx), htobe32(0xbeef));
	ck_assert_uint_eq(ibv_wc_read_byte_len(cqx), 512);
	ck_assert_uint_eq(ibv_wc_read_qp_num(cqx), QPN);
	ck_assert_uint_eq(fq.qp->rq.wq.wrid_idx_pool_next, 1);

	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	ck_assert(!efadv_wc_is_unsolicited(dv));
	ck_assert_uint_eq(cqx->wr_id, 9);
	ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_RECV);
	ck_assert_uint_eq(fq.qp->rq.wq.wrid_idx_pool_next, 0);

	/* on a send entry, the bit means nothing */
	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	ck_assert(!efadv_wc_is_unsolicited(dv));
	ck_assert_uint_eq(cqx->wr_id, 400);
	ibv_end_poll(cqx);
}
END_TEST

/*
 * The last entry stays readable by efadv_wc_is_unsolicited() after
 * ibv_end_poll() and a poll that found nothing, as pyverbs reads it then;
 * before any entry was polled, nothing is unsolicited.
 */
START_TEST(test_unsolicited_after_end_poll)
{
	struct ibv_cq_ex *cqx = &fc.cq->verbs_cq.cq_ex;
	struct efadv_cq *dv = efadv_cq_from_ibv_cq_ex(cqx);
	struct ibv_poll_cq_attr attr = {};

	ck_assert(!efadv_wc_is_unsolicited(dv));
	efa_fake_cq_push(&fc, unsolicited_cqe(64, 0xbeef));
	ck_assert_int_eq(ibv_start_poll(cqx, &attr), 0);
	ibv_end_poll(cqx);
	ck_assert(efadv_wc_is_unsolicited(dv));
	ck_assert_int_eq(ibv_start_poll(cqx, &attr), ENOENT);
	ck_assert(efadv_wc_is_unsolicited(dv));
}
END_TEST

/* A datagram's receive length is 16 bits: the rest of the entry is not. */
START_TEST(test_poll_send_len_16)
{
	struct efa_io_rx_cdesc_ex rx = cqe(0, EFA_IO_RECV_QUEUE, 0);
	struct ibv_wc wc;

	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, &sge, 1), 0);
	rx.base.length = 8928;
	rx.base.ah = EFA_IO_AH_UNKNOWN;
	memset(rx.u.src_addr, 0xfe, sizeof(rx.u.src_addr));
	efa_fake_cq_push(&fc, rx);
	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 1, &wc), 1);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.byte_len, 8928);
}
END_TEST

START_TEST(test_poll_unknown_qp)
{
	struct efa_io_rx_cdesc_ex good = cqe(post_send(1), EFA_IO_SEND_QUEUE,
					     0);
	struct efa_io_rx_cdesc_ex other = cqe(0, EFA_IO_SEND_QUEUE, 0);
	struct ibv_wc wc[2];

	/* same table slot, other QP number */
	other.base.common.qp_num = QPN + 0x100;
	efa_fake_cq_push(&fc, other);
	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 2, wc), -EINVAL);
	/* consumed, and the device told so */
	ck_assert_uint_eq(fc.db, 1);

	efa_fake_cq_push(&fc, good);
	efa_fake_cq_push(&fc, other);
	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 2, wc), 1);
	ck_assert_uint_eq(wc[0].wr_id, 1);
}
END_TEST

/* A device echoing an id that is not outstanding cannot corrupt the pool. */
START_TEST(test_poll_bad_req_id)
{
	struct ibv_wc wc;

	efa_fake_cq_push(&fc, cqe(3, EFA_IO_SEND_QUEUE, 0));
	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 1, &wc), -EINVAL);
	efa_fake_cq_push(&fc, cqe(0xffff, EFA_IO_RECV_QUEUE, 0));
	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 1, &wc), -EINVAL);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid_idx_pool_next, 0);
}
END_TEST

START_TEST(test_poll_ex)
{
	struct ibv_cq_ex *cqx = &fc.cq->verbs_cq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	struct efa_io_rx_cdesc_ex rx = cqe(0, EFA_IO_RECV_QUEUE, 0);

	ck_assert_int_eq(ibv_start_poll(cqx, &attr), ENOENT);
	ck_assert_uint_eq(fc.db, 0);

	ck_assert_int_eq(efa_fake_post_recv(&fq, 300, &sge, 1), 0);
	rx.base.length = 77;
	rx.base.ah = 3;
	rx.base.src_qp_num = 66;
	efa_fake_cq_push(&fc, rx);
	efa_fake_cq_push(&fc, cqe(post_send(400), EFA_IO_SEND_QUEUE, 14));

	ck_assert_int_eq(ibv_start_poll(cqx, &attr), 0);
	ck_assert_uint_eq(cqx->wr_id, 300);
	ck_assert_int_eq(cqx->status, IBV_WC_SUCCESS);
	ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_RECV);
	ck_assert_uint_eq(ibv_wc_read_byte_len(cqx), 77);
	ck_assert_uint_eq(ibv_wc_read_qp_num(cqx), QPN);
	ck_assert_uint_eq(ibv_wc_read_src_qp(cqx), 66);
	ck_assert_uint_eq(ibv_wc_read_slid(cqx), 3);
	ck_assert_uint_eq(ibv_wc_read_sl(cqx), 0);
	ck_assert_uint_eq(ibv_wc_read_dlid_path_bits(cqx), 0);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(cqx), 0);
	ck_assert_uint_eq(ibv_wc_read_vendor_err(cqx), 0);

	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	ck_assert_uint_eq(cqx->wr_id, 400);
	ck_assert_int_eq(cqx->status, IBV_WC_REM_OP_ERR);
	ck_assert_uint_eq(ibv_wc_read_vendor_err(cqx), 14);
	ck_assert_int_eq(ibv_wc_read_opcode(cqx), IBV_WC_SEND);
	ck_assert_uint_eq(ibv_wc_read_byte_len(cqx), 0);

	ck_assert_int_eq(ibv_next_poll(cqx), ENOENT);
	ck_assert_uint_eq(fc.db, 0);
	ibv_end_poll(cqx);
	ck_assert_uint_eq(fc.db, 2);

	attr.comp_mask = 1;
	ck_assert_int_eq(ibv_start_poll(cqx, &attr), EINVAL);
}
END_TEST

START_TEST(test_poll_ex_imm)
{
	struct ibv_cq_ex *cqx = &fc.cq->verbs_cq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	struct efa_io_rx_cdesc_ex rx = cqe(0, EFA_IO_RECV_QUEUE, 0);

	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, &sge, 1), 0);
	rx.base.common.flags |= EFA_IO_CDESC_COMMON_HAS_IMM;
	rx.base.imm = 0xa0b0c0d0;
	efa_fake_cq_push(&fc, rx);
	ck_assert_int_eq(ibv_start_poll(cqx, &attr), 0);
	ck_assert_uint_eq(ibv_wc_read_wc_flags(cqx), IBV_WC_WITH_IMM);
	ck_assert_uint_eq(ibv_wc_read_imm_data(cqx), htobe32(0xa0b0c0d0));
	ibv_end_poll(cqx);
}
END_TEST

START_TEST(test_read_sgid)
{
	static const uint8_t gid[16] = { 0xfe, 0x80, [8] = 1, [15] = 0x42 };
	struct ibv_cq_ex *cqx = &fc.cq->verbs_cq.cq_ex;
	struct efadv_cq *dv = &fc.cq->dv_cq;
	struct efa_io_rx_cdesc_ex rx = cqe(0, EFA_IO_RECV_QUEUE, 0);
	struct ibv_poll_cq_attr attr = {};
	union ibv_gid sgid;

	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, &sge, 1), 0);
	ck_assert_int_eq(efa_fake_post_recv(&fq, 2, &sge, 1), 0);
	rx.base.ah = EFA_IO_AH_UNKNOWN;
	memcpy(rx.u.src_addr, gid, sizeof(gid));
	efa_fake_cq_push(&fc, rx);
	rx.base.common.req_id = 1;
	rx.base.ah = 12;
	efa_fake_cq_push(&fc, rx);

	ck_assert_uint_eq(dv->comp_mask, 0);
	ck_assert_int_eq(ibv_start_poll(cqx, &attr), 0);
	ck_assert_int_eq(efadv_wc_read_sgid(dv, &sgid), 0);
	ck_assert_mem_eq(sgid.raw, gid, sizeof(gid));
	/* a known sender is named by its AH, not its GID */
	ck_assert_int_eq(ibv_next_poll(cqx), 0);
	ck_assert_int_eq(efadv_wc_read_sgid(dv, &sgid), -ENOENT);
	ibv_end_poll(cqx);
}
END_TEST

START_TEST(test_read_sgid_small_cqe)
{
	struct ibv_cq_ex *cqx = &fc.cq->verbs_cq.cq_ex;
	struct ibv_poll_cq_attr attr = {};
	union ibv_gid sgid;

	ck_assert_int_eq(efa_fake_post_recv(&fq, 1, &sge, 1), 0);
	efa_fake_cq_push(&fc, cqe(0, EFA_IO_RECV_QUEUE, 0));
	ck_assert_int_eq(ibv_start_poll(cqx, &attr), 0);
	ck_assert_int_eq(efadv_wc_read_sgid(&fc.cq->dv_cq, &sgid),
			 -EOPNOTSUPP);
	ibv_end_poll(cqx);
}
END_TEST

START_TEST(test_status_map)
{
	static const enum ibv_wc_status want[] = {
		[0] = IBV_WC_SUCCESS,
		[1] = IBV_WC_WR_FLUSH_ERR,
		[2] = IBV_WC_LOC_QP_OP_ERR,
		[3] = IBV_WC_LOC_QP_OP_ERR,
		[4] = IBV_WC_LOC_QP_OP_ERR,
		[5] = IBV_WC_LOC_PROT_ERR,
		[6] = IBV_WC_LOC_LEN_ERR,
		[7] = IBV_WC_REM_ACCESS_ERR,
		[8] = IBV_WC_REM_ABORT_ERR,
		[9] = IBV_WC_REM_INV_RD_REQ_ERR,
		[10] = IBV_WC_RNR_RETRY_EXC_ERR,
		[11] = IBV_WC_REM_INV_REQ_ERR,
		[12] = IBV_WC_BAD_RESP_ERR,
		[13] = IBV_WC_RESP_TIMEOUT_ERR,
		[14] = IBV_WC_REM_OP_ERR,
		[15] = IBV_WC_RESP_TIMEOUT_ERR,
	};

	for (unsigned int i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_msg(efa_wc_status(i) == want[i], "status %u", i);
	for (unsigned int i = 16; i < 256; i++)
		ck_assert_int_eq(efa_wc_status(i),
				 i == SEFA_IO_COMP_STATUS_REMOTE_ERROR_RETRY_EXC ?
				 IBV_WC_RETRY_EXC_ERR : IBV_WC_GENERAL_ERR);
}
END_TEST

START_TEST(test_arm)
{
	struct ibv_cq *ibvcq = &fc.cq->verbs_cq.cq;
	struct ibv_wc wc;

	efa_fake_cq_push(&fc, cqe(post_send(1), EFA_IO_SEND_QUEUE, 0));
	ck_assert_int_eq(efa_poll_cq(ibvcq, 1, &wc), 1);

	ck_assert_int_eq(efa_arm_cq(ibvcq, 0), 0);
	ck_assert_uint_eq(fc.db, EFA_IO_REGS_CQ_DB_ARM | 1);

	/* each event read advances cmd_sn, two bits of it on the doorbell */
	for (int i = 0; i < 5; i++)
		efa_cq_event(ibvcq);
	ck_assert_int_eq(efa_arm_cq(ibvcq, 0), 0);
	ck_assert_uint_eq(fc.db, EFA_IO_REGS_CQ_DB_ARM | (1U << 29) | 1);

	ck_assert_int_eq(efa_arm_cq(ibvcq, 1), EOPNOTSUPP);
	fc.cq->db = NULL;
	ck_assert_int_eq(efa_arm_cq(ibvcq, 0), EOPNOTSUPP);
}
END_TEST

static Suite *poll_suite(void)
{
	Suite *s = suite_create("poll");
	TCase *tc = tcase_create("one_sub_cq");
	TCase *subs = tcase_create("sub_cqs");
	TCase *sgid = tcase_create("sgid");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_phase_and_wrap);
	tcase_add_test(tc, test_poll_wc);
	tcase_add_test(tc, test_poll_rdma_read);
	tcase_add_test(tc, test_poll_unknown_qp);
	tcase_add_test(tc, test_poll_bad_req_id);
	tcase_add_test(tc, test_poll_ex);
	tcase_add_test(tc, test_poll_ex_imm);
	tcase_add_test(tc, test_read_sgid_small_cqe);
	tcase_add_test(tc, test_status_map);
	tcase_add_test(tc, test_arm);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(subs, setup_sub_cqs, teardown);
	tcase_add_test(subs, test_sub_cq_round_robin);
	tcase_add_test(subs, test_sub_cq_inactive);
	suite_add_tcase(s, subs);

	tcase_add_checked_fixture(sgid, setup_sgid, teardown);
	tcase_add_test(sgid, test_read_sgid);
	tcase_add_test(sgid, test_poll_rdma_write);
	tcase_add_test(sgid, test_poll_send_len_16);
	tcase_add_test(sgid, test_poll_unsolicited);
	tcase_add_test(sgid, test_poll_ex_unsolicited);
	tcase_add_test(sgid, test_unsolicited_after_end_poll);
	suite_add_tcase(s, sgid);
	return s;
}

SEFA_CHECK_MAIN(poll_suite)
