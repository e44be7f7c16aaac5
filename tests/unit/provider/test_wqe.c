// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Descriptor encoding: the bytes of the send WQEs and receive descriptors
 * the provider hands the device, written out independently of the
 * provider's structs.
 */

#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "efa_dp.h"
#include "efa_fixture.h"
#include "check_bytes.h"
#include "check_main.h"

#define QPN 3
#define AHN 0x0077
#define DEST_QPN 0x1234
#define QKEY 0x11111111

static struct efa_fixture fx;
static struct efa_fake_cq fc;
static struct efa_fake_qp fq;
static struct efa_ah ah;

static void put16(uint8_t *b, size_t off, uint16_t v)
{
	b[off] = v;
	b[off + 1] = v >> 8;
}

static void put32(uint8_t *b, size_t off, uint32_t v)
{
	put16(b, off, v);
	put16(b, off + 2, v >> 16);
}

static void put64(uint8_t *b, size_t off, uint64_t v)
{
	put32(b, off, v);
	put32(b, off + 4, v >> 32);
}

#define CTRL2_SIGNALED (0x04 | 0x08 | 0x10)	/* first, last, comp_req */
#define CTRL2_UNSIGNALED (0x04 | 0x08)

/* The meta descriptor of an RC WQE: no destination. */
static void expect_meta_rc(uint8_t *b, uint16_t req_id, uint8_t ctrl1,
			   uint8_t ctrl2, uint16_t length, uint32_t imm)
{
	memset(b, 0, 64);
	put16(b, 0, req_id);
	b[2] = ctrl1;
	b[3] = ctrl2;
	put16(b, 6, length);
	put32(b, 8, imm);
}

/* The meta descriptor every datagram test WQE starts with. */
static void expect_meta(uint8_t *b, uint16_t req_id, uint8_t ctrl1,
			uint8_t phase, uint16_t length, uint32_t imm)
{
	expect_meta_rc(b, req_id, ctrl1, CTRL2_SIGNALED | phase, length, imm);
	put16(b, 4, DEST_QPN);
	put16(b, 12, AHN);
	put32(b, 16, QKEY);
}

/* The remote half of an RDMA request. */
static void expect_remote(uint8_t *b, uint32_t len, uint32_t rkey,
			  uint64_t addr)
{
	put32(b, 32, len);
	put32(b, 36, rkey);
	put64(b, 40, addr);
}

static void expect_buf(uint8_t *b, size_t off, uint32_t len, uint32_t lkey,
		       uint64_t addr)
{
	put32(b, off, len);
	put32(b, off + 4, lkey);
	put64(b, off + 8, addr);
}

static void setup_qp(enum ibv_qp_type type)
{
	const struct efa_fake_dp_attr attr = {
		.qp_type = type,
		.qpn = QPN,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 2, .max_recv_sge = 3 },
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
		.sq_sig_all = type != IBV_QPT_RC,
		.cq_entries = 16,
		.cqe_size = EFA_IO_CQE_SIZE,
	};

	efa_fake_dp_open(&fx, &fc, &fq, &attr);
	efa_fake_ah_init(&fx, &ah, AHN);
}

static void setup(void)
{
	setup_qp(IBV_QPT_DRIVER);
}

static void setup_rc(void)
{
	setup_qp(IBV_QPT_RC);
}

static void teardown(void)
{
	efa_fake_dp_close(&fx, &fc, &fq);
}

static struct ibv_send_wr send_wr(struct ibv_sge *sge, int num_sge)
{
	return (struct ibv_send_wr){
		.wr_id = 1,
		.sg_list = sge,
		.num_sge = num_sge,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = &ah.ibvah, .remote_qpn = DEST_QPN,
			   .remote_qkey = QKEY },
	};
}

START_TEST(test_send_two_sges)
{
	struct ibv_sge sge[2] = {
		{ .addr = 0x1122334455667788ULL, .length = 100,
		  .lkey = 0xab123456 },
		{ .addr = 0x0000000000001000ULL, .length = 7, .lkey = 0x42 },
	};
	struct ibv_send_wr wr = send_wr(sge, 2);
	struct efa_io_tx_wqe wqe;
	uint8_t want[64];

	memset(&wqe, 0xee, sizeof(wqe));
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 5, &wqe), 0);

	expect_meta(want, 5, 0x80, 0, 2, 0);
	/* lkeys are 24 bits: the top byte is not the device's. */
	expect_buf(want, 32, 100, 0x123456, 0x1122334455667788ULL);
	expect_buf(want, 48, 7, 0x42, 0x1000);
	sefa_assert_bytes(&wqe, want, sizeof(want));
}
END_TEST

START_TEST(test_send_imm)
{
	struct ibv_sge sge = { .addr = 0xcafe0000, .length = 64, .lkey = 9 };
	struct ibv_send_wr wr = send_wr(&sge, 1);
	struct efa_io_tx_wqe wqe;
	uint8_t want[64];

	wr.opcode = IBV_WR_SEND_WITH_IMM;
	wr.imm_data = htobe32(0xdeadbeef);
	memset(&wqe, 0xee, sizeof(wqe));
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0x321, &wqe), 0);

	/* has_imm; the immediate goes in host order */
	expect_meta(want, 0x321, 0x90, 0, 1, 0xdeadbeef);
	expect_buf(want, 32, 64, 9, 0xcafe0000);
	sefa_assert_bytes(&wqe, want, sizeof(want));
}
END_TEST

START_TEST(test_send_inline)
{
	char a[] = "hello ", b[] = "inline";
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)a, .length = 6 },
		{ .addr = (uintptr_t)b, .length = 6 },
	};
	struct ibv_send_wr wr = send_wr(sge, 2);
	struct efa_io_tx_wqe wqe;
	uint8_t want[64];

	wr.send_flags |= IBV_SEND_INLINE;
	memset(&wqe, 0xee, sizeof(wqe));
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 2, &wqe), 0);

	/* inline_msg; length is the payload's, unused inline bytes zero */
	expect_meta(want, 2, 0xa0, 0, 12, 0);
	memcpy(want + 32, "hello inline", 12);
	sefa_assert_bytes(&wqe, want, sizeof(want));
}
END_TEST

START_TEST(test_send_inline_too_long)
{
	static char payload[33];
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)payload, .length = 16 },
		{ .addr = (uintptr_t)payload, .length = 17 },
	};
	struct ibv_send_wr wr = send_wr(sge, 2);
	struct efa_io_tx_wqe wqe;

	wr.send_flags |= IBV_SEND_INLINE;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0, &wqe), EINVAL);
	sge[1].length = 16;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0, &wqe), 0);
}
END_TEST

START_TEST(test_send_too_many_sges)
{
	struct ibv_sge sge[3] = {};
	struct ibv_send_wr wr = send_wr(sge, 3);
	struct efa_io_tx_wqe wqe;

	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0, &wqe), EINVAL);
	wr.num_sge = -1;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0, &wqe), EINVAL);
}
END_TEST

/* The phase of a WQE is (index / ring size) & 1. */
START_TEST(test_send_phase)
{
	struct ibv_sge sge = { .addr = 0x1000, .length = 1, .lkey = 1 };
	struct ibv_send_wr wr = send_wr(&sge, 1), *bad;
	uint32_t n = fq.geom.sq_wqe_cnt;

	for (uint32_t i = 0; i < 2 * n + 1; i++) {
		uint32_t slot = i % n;

		ck_assert_int_eq(efa_post_send(efa_fake_ibvqp(&fq), &wr, &bad),
				 0);
		ck_assert_uint_eq(fq.llq[slot].meta.ctrl2 & 1, (i / n) & 1);
		/* complete it at once so that the queue never fills */
		efa_wq_put_idx(&fq.qp->sq.wq, fq.llq[slot].meta.req_id);
	}
}
END_TEST

START_TEST(test_rdma_read)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);
	uint8_t want[64];

	qpx->wr_id = 77;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(qpx);
	ibv_wr_rdma_read(qpx, 0x5555, 0xaaaabbbbccccdddd);
	ibv_wr_set_ud_addr(qpx, &ah.ibvah, DEST_QPN, QKEY);
	ibv_wr_set_sge(qpx, 0x01020304, 0x7000, 4096);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);

	/* op_type RDMA_READ, one local buffer */
	expect_meta(want, 0, 0x81, 0, 1, 0);
	/* remote: as many bytes as the local buffer takes */
	expect_remote(want, 4096, 0x5555, 0xaaaabbbbccccddddULL);
	expect_buf(want, 48, 4096, 0x020304, 0x7000);
	sefa_assert_bytes(&fq.llq[0], want, sizeof(want));
	ck_assert_uint_eq(fq.sq_db, 1);
	ck_assert_uint_eq(fq.qp->sq.wq.wrid[0], 77);
}
END_TEST

/* SRD: RDMA write through the ibv_wr_* API, with and without immediate. */
START_TEST(test_rdma_write)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);
	uint8_t want[64];

	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	ibv_wr_rdma_write(qpx, 0x87654321, 0x1122334455667788ULL);
	ibv_wr_set_ud_addr(qpx, &ah.ibvah, DEST_QPN, QKEY);
	ibv_wr_set_sge(qpx, 0x0a0b0c0d, 0x9000, 100);
	qpx->wr_id = 2;
	ibv_wr_rdma_write_imm(qpx, 7, 0x2000, htobe32(0xfeedf00d));
	ibv_wr_set_ud_addr(qpx, &ah.ibvah, DEST_QPN, QKEY);
	ibv_wr_set_sge_list(qpx, 1, &(struct ibv_sge){ .addr = 0xa000,
						      .length = 1 << 20,
						      .lkey = 5 });
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);

	/* op_type RDMA_WRITE (2); the rkey keeps all 32 bits */
	expect_meta(want, 0, 0x82, 0, 1, 0);
	expect_remote(want, 100, 0x87654321, 0x1122334455667788ULL);
	expect_buf(want, 48, 100, 0x0b0c0d, 0x9000);
	sefa_assert_bytes(&fq.llq[0], want, sizeof(want));

	/* has_imm, the immediate in host order; lengths beyond 16 bits */
	expect_meta(want, 1, 0x92, 0, 1, 0xfeedf00d);
	expect_remote(want, 1 << 20, 7, 0x2000);
	expect_buf(want, 48, 1 << 20, 5, 0xa000);
	sefa_assert_bytes(&fq.llq[1], want, sizeof(want));
	ck_assert_uint_eq(fq.sq_db, 2);
}
END_TEST

/* One local buffer and no inline data: the RDMA request fills the WQE. */
START_TEST(test_rdma_write_limits)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);
	struct ibv_sge two[2] = {};

	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_start(qpx);
	ibv_wr_rdma_write(qpx, 1, 0x1000);
	ibv_wr_set_sge_list(qpx, 2, two);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);

	ibv_wr_start(qpx);
	ibv_wr_rdma_write(qpx, 1, 0x1000);
	ibv_wr_set_inline_data(qpx, "x", 1);
	ck_assert_int_eq(ibv_wr_complete(qpx), EINVAL);
	ck_assert_uint_eq(fq.sq_db, 0);
}
END_TEST

static struct ibv_send_wr rc_wr(enum ibv_wr_opcode opcode,
				struct ibv_sge *sge, int num_sge)
{
	return (struct ibv_send_wr){
		.wr_id = 1,
		.sg_list = sge,
		.num_sge = num_sge,
		.opcode = opcode,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = 0x0102030405060708ULL,
			     .rkey = 0xa1b2c3d4 },
	};
}

/*
 * RC: the WQE names no destination; wr.ud, which shares its storage with
 * wr.rdma, is not read (its AH pointer would be the remote address).
 */
START_TEST(test_rc_send)
{
	struct ibv_sge sge[2] = {
		{ .addr = 0x1000, .length = 10, .lkey = 1 },
		{ .addr = 0x2000, .length = 20, .lkey = 2 },
	};
	struct ibv_send_wr wr = rc_wr(IBV_WR_SEND_WITH_IMM, sge, 2);
	struct efa_io_tx_wqe wqe;
	uint8_t want[64];

	wr.imm_data = htobe32(0x01020304);
	memset(&wqe, 0xee, sizeof(wqe));
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 9, &wqe), 0);
	expect_meta_rc(want, 9, 0x90, CTRL2_SIGNALED, 2, 0x01020304);
	expect_buf(want, 32, 10, 1, 0x1000);
	expect_buf(want, 48, 20, 2, 0x2000);
	sefa_assert_bytes(&wqe, want, sizeof(want));

	/* unsignaled: no completion requested */
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = 0;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 10, &wqe), 0);
	expect_meta_rc(want, 10, 0x80, CTRL2_UNSIGNALED, 2, 0);
	expect_buf(want, 32, 10, 1, 0x1000);
	expect_buf(want, 48, 20, 2, 0x2000);
	sefa_assert_bytes(&wqe, want, sizeof(want));
}
END_TEST

START_TEST(test_rc_rdma_write)
{
	struct ibv_sge sge = { .addr = 0xdead0000, .length = 70000,
			       .lkey = 0x77123456 };
	struct ibv_send_wr wr = rc_wr(IBV_WR_RDMA_WRITE, &sge, 1);
	struct efa_io_tx_wqe wqe;
	uint8_t want[64];

	memset(&wqe, 0xee, sizeof(wqe));
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 3, &wqe), 0);
	expect_meta_rc(want, 3, 0x82, CTRL2_SIGNALED, 1, 0);
	expect_remote(want, 70000, 0xa1b2c3d4, 0x0102030405060708ULL);
	expect_buf(want, 48, 70000, 0x123456, 0xdead0000);
	sefa_assert_bytes(&wqe, want, sizeof(want));

	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htobe32(0xcafebabe);
	wr.send_flags = 0;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 4, &wqe), 0);
	expect_meta_rc(want, 4, 0x92, CTRL2_UNSIGNALED, 1, 0xcafebabe);
	expect_remote(want, 70000, 0xa1b2c3d4, 0x0102030405060708ULL);
	expect_buf(want, 48, 70000, 0x123456, 0xdead0000);
	sefa_assert_bytes(&wqe, want, sizeof(want));

	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 5, &wqe), 0);
	expect_meta_rc(want, 5, 0x81, CTRL2_SIGNALED, 1, 0);
	expect_remote(want, 70000, 0xa1b2c3d4, 0x0102030405060708ULL);
	expect_buf(want, 48, 70000, 0x123456, 0xdead0000);
	sefa_assert_bytes(&wqe, want, sizeof(want));
}
END_TEST

START_TEST(test_rc_rdma_limits)
{
	struct ibv_sge sge[2] = {};
	struct ibv_send_wr wr = rc_wr(IBV_WR_RDMA_WRITE, sge, 2);
	struct efa_io_tx_wqe wqe;

	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0, &wqe), EINVAL);
	wr.num_sge = 1;
	wr.send_flags |= IBV_SEND_INLINE;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0, &wqe), EINVAL);
	wr.opcode = IBV_WR_RDMA_READ;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0, &wqe), EINVAL);
	wr.send_flags = 0;
	ck_assert_int_eq(efa_tx_wqe_from_wr(&fq.qp->sq, &wr, 0, &wqe), 0);
}
END_TEST

/* The ibv_wr_* API on RC: unsignaled WRs, no address to set. */
START_TEST(test_rc_wr_api)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);
	uint8_t want[64];

	ck_assert_ptr_null(qpx->wr_set_ud_addr);
	qpx->wr_id = 5;
	qpx->wr_flags = 0;
	ibv_wr_start(qpx);
	ibv_wr_rdma_write_imm(qpx, 0x42, 0x3000, htobe32(1));
	ibv_wr_set_sge(qpx, 3, 0x4000, 64);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qpx, 0x43, 0x5000);
	ibv_wr_set_sge(qpx, 3, 0x6000, 32);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);

	expect_meta_rc(want, 0, 0x92, CTRL2_UNSIGNALED, 1, 1);
	expect_remote(want, 64, 0x42, 0x3000);
	expect_buf(want, 48, 64, 3, 0x4000);
	sefa_assert_bytes(&fq.llq[0], want, sizeof(want));
	expect_meta_rc(want, 1, 0x81, CTRL2_SIGNALED, 1, 0);
	expect_remote(want, 32, 0x43, 0x5000);
	expect_buf(want, 48, 32, 3, 0x6000);
	sefa_assert_bytes(&fq.llq[1], want, sizeof(want));
}
END_TEST

START_TEST(test_wr_send_inline_list)
{
	struct ibv_qp_ex *qpx = efa_fake_ibvqpx(&fq);
	struct ibv_data_buf bufs[2] = {
		{ .addr = "abc", .length = 3 },
		{ .addr = "defg", .length = 4 },
	};
	uint8_t want[64];

	qpx->wr_id = 1;
	qpx->wr_flags = 0;		/* sq_sig_all makes it signaled */
	ibv_wr_start(qpx);
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	ibv_wr_set_ud_addr(qpx, &ah.ibvah, DEST_QPN, QKEY);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);

	expect_meta(want, 0, 0xa0, 0, 7, 0);
	memcpy(want + 32, "abcdefg", 7);
	sefa_assert_bytes(&fq.llq[0], want, sizeof(want));
}
END_TEST

START_TEST(test_rx_desc)
{
	struct ibv_sge sge = { .addr = 0x123456789abcdef0ULL, .length = 9000,
			       .lkey = 0xff000042 };
	struct efa_io_rx_desc desc;
	uint8_t want[16];

	efa_rx_desc_fill(&desc, &sge, 0x0abc, true, false);
	put64(want, 0, 0x123456789abcdef0ULL);
	put16(want, 8, 0x0abc);
	put16(want, 10, 9000);
	put32(want, 12, 0x40000042);		/* first, 24-bit lkey */
	sefa_assert_bytes(&desc, want, sizeof(want));

	efa_rx_desc_fill(&desc, &sge, 0, false, true);
	put16(want, 8, 0);
	put32(want, 12, 0x80000042);		/* last */
	sefa_assert_bytes(&desc, want, sizeof(want));

	/* 16-bit lengths: longer buffers are offered as 64 KiB - 1 */
	sge.length = 1 << 20;
	efa_rx_desc_fill(&desc, &sge, 1, true, true);
	ck_assert_uint_eq(desc.length, 0xffff);
	ck_assert_uint_eq(desc.lkey_ctrl, 0xc0000042);
}
END_TEST

/* One descriptor per SGE; the request id only in the first. */
START_TEST(test_post_recv_descs)
{
	struct ibv_sge sge[3] = {
		{ .addr = 0x1000, .length = 10, .lkey = 1 },
		{ .addr = 0x2000, .length = 20, .lkey = 2 },
		{ .addr = 0x3000, .length = 30, .lkey = 3 },
	};
	struct ibv_recv_wr wr2 = { .wr_id = 200, .sg_list = &sge[2],
				   .num_sge = 1 };
	struct ibv_recv_wr wr1 = { .wr_id = 100, .sg_list = sge, .num_sge = 2,
				   .next = &wr2 };
	struct ibv_recv_wr *bad = NULL;

	ck_assert_int_eq(efa_post_recv(efa_fake_ibvqp(&fq), &wr1, &bad), 0);
	ck_assert_ptr_null(bad);

	ck_assert_uint_eq(fq.rq_ring[0].req_id, 0);
	ck_assert_uint_eq(fq.rq_ring[0].lkey_ctrl, 0x40000001);
	ck_assert_uint_eq(fq.rq_ring[0].length, 10);
	ck_assert_uint_eq(fq.rq_ring[1].req_id, 0);
	ck_assert_uint_eq(fq.rq_ring[1].lkey_ctrl, 0x80000002);
	ck_assert_uint_eq(fq.rq_ring[1].buf_addr_lo, 0x2000);
	ck_assert_uint_eq(fq.rq_ring[2].req_id, 1);
	ck_assert_uint_eq(fq.rq_ring[2].lkey_ctrl, 0xc0000003);
	ck_assert_uint_eq(fq.qp->rq.wq.wrid[0], 100);
	ck_assert_uint_eq(fq.qp->rq.wq.wrid[1], 200);
	/* the doorbell counts descriptors, not WRs */
	ck_assert_uint_eq(fq.rq_db, 3);
}
END_TEST

static Suite *wqe_suite(void)
{
	Suite *s = suite_create("descriptors");
	TCase *tc = tcase_create("encoding");
	TCase *rc = tcase_create("rc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_send_two_sges);
	tcase_add_test(tc, test_send_imm);
	tcase_add_test(tc, test_send_inline);
	tcase_add_test(tc, test_send_inline_too_long);
	tcase_add_test(tc, test_send_too_many_sges);
	tcase_add_test(tc, test_send_phase);
	tcase_add_test(tc, test_rdma_read);
	tcase_add_test(tc, test_wr_send_inline_list);
	tcase_add_test(tc, test_rx_desc);
	tcase_add_test(tc, test_post_recv_descs);
	tcase_add_test(tc, test_rdma_write);
	tcase_add_test(tc, test_rdma_write_limits);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(rc, setup_rc, teardown);
	tcase_add_test(rc, test_rc_send);
	tcase_add_test(rc, test_rc_rdma_write);
	tcase_add_test(rc, test_rc_rdma_limits);
	tcase_add_test(rc, test_rc_wr_api);
	suite_add_tcase(s, rc);
	return s;
}

SEFA_CHECK_MAIN(wqe_suite)
