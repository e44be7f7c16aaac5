// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * efadv EFA_1.4 to EFA_1.7 through our libefa.so.1 on SoftEFA: the values
 * checked against the device and the QPs created with them, the rings of
 * efadv_query_qp_wqs()/efadv_query_cq() used as libfabric's efa-direct
 * data path uses them (WQEs and doorbells written here, payload checked,
 * completions read from the ring), and every bad argument's errno.
 * SEFA_SUB_CQS is the profile's sub-CQs per CQ.
 */
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>

#include "check_main.h"
#include "dp.h"
#include "efa/efa_io_defs.h"

#define QKEY		0x11111111
#define WAIT_MS		20000
#define MSG_LEN		256

/* The head of rdma-core 65's struct ibv_comp_cntr_init_attr. */
struct cc_init_attr {
	uint32_t comp_mask;
	uint32_t type;
	uint32_t flags;
};

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static struct ibv_mr *mr;
static uint8_t *buf;
static union ibv_gid gid;
static struct efadv_device_attr dv;

static void setup(void)
{
	ctx = dp_open_device();
	ck_assert_int_eq(ibv_query_gid(ctx, 1, 0, &gid), 0);
	ck_assert_int_eq(efadv_query_device(ctx, &dv, sizeof(dv)), 0);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	cq = ibv_create_cq(ctx, 100, NULL, NULL, 0);
	ck_assert_ptr_nonnull(cq);
	buf = aligned_alloc(4096, 4 * MSG_LEN);
	ck_assert_ptr_nonnull(buf);
	memset(buf, 0, 4 * MSG_LEN);
	mr = ibv_reg_mr(pd, buf, 4 * MSG_LEN, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
}

static void teardown(void)
{
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd), 0);
	ck_assert_int_eq(ibv_close_device(ctx), 0);
	free(buf);
}

/*
 * An SRD QP on @qcq; with @flags (EFADV_QP_FLAGS_*) or @max_inline, RDMA
 * write (with immediate too) where the device has it; service level @sl.
 */
static struct ibv_qp *srd_qp_on(struct ibv_cq *qcq, uint32_t sq,
				uint32_t max_inline, uint16_t flags,
				uint8_t sl, int *err)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_DRIVER, .send_cq = qcq, .recv_cq = qcq,
		.pd = pd,
		.cap = { .max_send_wr = sq, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = max_inline },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct efadv_qp_init_attr e = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
		.flags = flags,
		.sl = sl,
	};
	struct ibv_qp *qp;

	if (dv.device_caps & EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE)
		a.send_ops_flags |= IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	qp = efadv_create_qp_ex(ctx, &a, &e, sizeof(e));
	*err = qp ? 0 : errno;
	return qp;
}

static struct ibv_qp *srd_qp_flags(uint32_t sq, uint32_t max_inline,
				   uint16_t flags, int *err)
{
	return srd_qp_on(cq, sq, max_inline, flags, 0, err);
}

static struct ibv_qp *srd_qp(uint32_t sq, uint32_t rq, uint32_t rq_sge,
			     uint64_t wr_flags, int *err)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_DRIVER, .send_cq = cq, .recv_cq = cq,
		.pd = pd,
		.cap = { .max_send_wr = sq, .max_recv_wr = rq,
			 .max_send_sge = 1, .max_recv_sge = rq_sge },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct efadv_qp_init_attr e = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
		.wr_flags = wr_flags,
	};
	struct ibv_qp *qp = efadv_create_qp_ex(ctx, &a, &e, sizeof(e));

	*err = qp ? 0 : errno;
	return qp;
}

/* The device writes 128-byte WQEs with more inline data (efa1 and later). */
static bool wqe_128(void)
{
	return dv.inline_buf_size_ex > dv.inline_buf_size;
}

static bool inline_write(void)
{
	return wqe_128() && (dv.device_caps & EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE);
}

static struct ibv_qp *srd_qp_rts(uint64_t wr_flags)
{
	int err;
	struct ibv_qp *qp = srd_qp(16, 16, 1, wr_flags, &err);

	ck_assert_msg(qp, "SRD QP: %s", strerror(err));
	ck_assert_int_eq(dev_ud_to_rts(qp, QKEY, 7), 0);
	return qp;
}

static bool is_pow2(uint32_t n)
{
	return n && !(n & (n - 1));
}

START_TEST(test_query_qp_wqs)
{
	struct ibv_qp *qp = srd_qp_rts(0);
	struct efadv_wq_attr sq, rq;

	memset(&sq, 0xff, sizeof(sq));
	memset(&rq, 0xff, sizeof(rq));
	ck_assert_int_eq(efadv_query_qp_wqs(qp, &sq, &rq, sizeof(sq)), 0);
	ck_assert_uint_eq(sq.comp_mask, 0);
	ck_assert_ptr_nonnull(sq.buffer);
	ck_assert_uint_eq(sq.entry_size, EFA_IO_TX_WQE_SIZE);
	ck_assert(is_pow2(sq.num_entries) && sq.num_entries >= 16);
	ck_assert_ptr_nonnull(sq.doorbell);
	ck_assert(sq.max_batch >= 1 && sq.max_batch <= sq.num_entries);
	ck_assert_uint_eq(sq.caps, 0);
	ck_assert_ptr_nonnull(rq.buffer);
	ck_assert_uint_eq(rq.entry_size, EFA_IO_RX_DESC_SIZE);
	ck_assert(is_pow2(rq.num_entries) && rq.num_entries >= 16);
	ck_assert_ptr_nonnull(rq.doorbell);
	ck_assert_uint_eq(rq.max_batch, rq.num_entries);
	ck_assert_ptr_ne(sq.doorbell, rq.doorbell);

	/* A caller of EFA_1.4's struct: caps is not its to have written. */
	memset(&sq, 0xff, sizeof(sq));
	ck_assert_int_eq(efadv_query_qp_wqs(qp, &sq, &rq,
					    offsetof(struct efadv_wq_attr,
						     caps)), 0);
	ck_assert_uint_eq(sq.caps, 0xffff);
	ck_assert_uint_eq(sq.entry_size, EFA_IO_TX_WQE_SIZE);

	ck_assert_int_eq(efadv_query_qp_wqs(qp, &sq, &rq,
					    offsetof(struct efadv_wq_attr,
						     max_batch)), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
}
END_TEST

/* The profile's sub-CQs per CQ, as the script says. */
static int sub_cqs(void)
{
	const char *s = getenv("SEFA_SUB_CQS");

	return s ? atoi(s) : 1;
}

START_TEST(test_query_cq)
{
	int sub_cqs_per_cq = sub_cqs();
	uint32_t cqe = (dv.device_caps & EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE) ?
			       EFA_IO_CQE_EX_SIZE : EFA_IO_CQE_SIZE;
	struct efadv_cq_attr a;

	ck_assert_int_eq(efadv_query_cq(cq, &a,
					offsetof(struct efadv_cq_attr,
						 num_entries)), EINVAL);
	memset(&a, 0xff, sizeof(a));
	/* Sub-CQs (0xefa0): the first ring, as upstream answers. */
	ck_assert_int_eq(efadv_query_cq(cq, &a, sizeof(a)), 0);
	printf("query_cq sub_cqs %d entry_size %u num_entries %u\n",
	       sub_cqs_per_cq, a.entry_size, a.num_entries);
	ck_assert_uint_eq(a.comp_mask, 0);
	ck_assert_ptr_nonnull(a.buffer);
	ck_assert_uint_eq(a.entry_size, cqe);
	ck_assert(is_pow2(a.num_entries) && a.num_entries >= 100);
	ck_assert_ptr_nonnull(a.doorbell);

	/* Before EFA_1.4's doorbell: not written. */
	memset(&a, 0xff, sizeof(a));
	ck_assert_int_eq(efadv_query_cq(cq, &a,
					offsetof(struct efadv_cq_attr,
						 doorbell)), 0);
	ck_assert_ptr_eq(a.doorbell, (void *)~(uintptr_t)0);
}
END_TEST

/* The completion of @qpn's queue @q_type in the ring, phase 1 (first lap). */
static const struct efa_io_cdesc_common *
ring_find(const struct efadv_cq_attr *a, uint16_t qpn, int q_type)
{
	for (uint32_t i = 0; i < a->num_entries; i++) {
		const struct efa_io_cdesc_common *c =
			(const void *)(a->buffer + (size_t)i * a->entry_size);
		uint8_t flags = __atomic_load_n(&c->flags, __ATOMIC_ACQUIRE);

		if (!(flags & EFA_IO_CDESC_COMMON_PHASE))
			break;
		if (c->qp_num == qpn &&
		    ((flags & EFA_IO_CDESC_COMMON_Q_TYPE_MASK) >>
		     EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT) == q_type)
			return c;
	}
	return NULL;
}

/*
 * A receive and a send posted by writing the rings and doorbells as
 * efa-direct does; the payload must arrive, and where the CQ is one ring
 * both completions are read from it.
 */
START_TEST(test_direct_rings)
{
	struct ibv_qp *rx = srd_qp_rts(0), *tx = srd_qp_rts(0);
	struct efadv_wq_attr sq, rq, unused;
	struct efadv_ah_attr aha;
	struct efa_io_rx_desc rd = {};
	struct efa_io_tx_wqe wqe = {};
	struct efadv_cq_attr ca;
	struct ibv_ah *ah;
	bool ring;
	uint64_t src = (uintptr_t)buf, dst = (uintptr_t)buf + 2 * MSG_LEN;

	/* one ring, but on sub-CQs (0xefa0), where it is the first */
	ring = sub_cqs() == 1 && !efadv_query_cq(cq, &ca, sizeof(ca));
	ah = dev_create_ah(pd, &gid);
	ck_assert_ptr_nonnull(ah);
	ck_assert_int_eq(efadv_query_ah(ah, &aha, sizeof(aha)), 0);
	ck_assert_int_eq(efadv_query_qp_wqs(rx, &unused, &rq, sizeof(rq)), 0);
	ck_assert_int_eq(efadv_query_qp_wqs(tx, &sq, &unused, sizeof(sq)), 0);
	for (int i = 0; i < MSG_LEN; i++)
		buf[i] = (uint8_t)(i * 7 + 1);

	rd.buf_addr_lo = (uint32_t)dst;
	rd.buf_addr_hi = dst >> 32;
	rd.req_id = 0x1234 & (rq.num_entries - 1);
	rd.length = MSG_LEN;
	rd.lkey_ctrl = (mr->lkey & EFA_IO_RX_DESC_LKEY_MASK) |
		       EFA_IO_RX_DESC_FIRST | EFA_IO_RX_DESC_LAST;
	memcpy(rq.buffer, &rd, sizeof(rd));
	__atomic_store_n(rq.doorbell, 1, __ATOMIC_RELEASE);

	wqe.meta.req_id = 0x4321 & (sq.num_entries - 1);
	wqe.meta.ctrl1 = EFA_IO_TX_META_DESC_META_DESC | EFA_IO_SEND;
	/* phase 0 on the first lap over the ring */
	wqe.meta.ctrl2 = EFA_IO_TX_META_DESC_FIRST | EFA_IO_TX_META_DESC_LAST |
			 EFA_IO_TX_META_DESC_COMP_REQ;
	wqe.meta.dest_qp_num = rx->qp_num;
	wqe.meta.length = 1;
	wqe.meta.ah = aha.ahn;
	wqe.meta.qkey = QKEY;
	wqe.data.sgl[0].length = MSG_LEN;
	wqe.data.sgl[0].lkey = mr->lkey & EFA_IO_LKEY_MASK;
	wqe.data.sgl[0].buf_addr_lo = (uint32_t)src;
	wqe.data.sgl[0].buf_addr_hi = src >> 32;
	memcpy(sq.buffer, &wqe, sizeof(wqe));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(sq.doorbell, 1, __ATOMIC_RELEASE);

	CK_WAIT_UNTIL(WAIT_MS, !memcmp(buf + 2 * MSG_LEN, buf, MSG_LEN),
		      "the payload sent through the rings");

	if (ring) {
		const struct efa_io_cdesc_common *s, *r;

		CK_WAIT_UNTIL(WAIT_MS,
			      (s = ring_find(&ca, tx->qp_num,
					     EFA_IO_SEND_QUEUE)) &&
			      (r = ring_find(&ca, rx->qp_num,
					     EFA_IO_RECV_QUEUE)),
			      "both completions in the CQ ring");
		ck_assert_uint_eq(s->status, EFA_IO_COMP_STATUS_OK);
		ck_assert_uint_eq(s->req_id, wqe.meta.req_id);
		ck_assert_uint_eq(r->status, EFA_IO_COMP_STATUS_OK);
		ck_assert_uint_eq(r->req_id, rd.req_id);
		ck_assert_uint_eq(((const struct efa_io_rx_cdesc *)r)->length,
				  MSG_LEN);
	}
	ck_assert_int_eq(ibv_destroy_qp(tx), 0);
	ck_assert_int_eq(ibv_destroy_qp(rx), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

START_TEST(test_sq_depth)
{
	struct efadv_sq_depth_attr a = { .max_send_sge = 1 };
	struct ibv_qp *qp;
	int depth, err;

	depth = efadv_get_max_sq_depth(ctx, &a, sizeof(a));
	ck_assert_msg(depth > 0, "depth %d", depth);
	ck_assert(is_pow2(depth) && (uint32_t)depth <= dv.max_sq_wr);
	qp = srd_qp(depth, 1, 1, 0, &err);
	ck_assert_msg(qp, "QP of the depth %d: %s", depth, strerror(err));
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	ck_assert_ptr_null(srd_qp(depth + 1, 1, 1, 0, &err));
	ck_assert_int_eq(err, EINVAL);

	ck_assert_int_eq(efadv_get_max_sq_depth(ctx, &a, 20), -EINVAL);
	a.comp_mask = 1;
	ck_assert_int_eq(efadv_get_max_sq_depth(ctx, &a, sizeof(a)), -EINVAL);
	a.comp_mask = 0;
	a.flags = 2;
	ck_assert_int_eq(efadv_get_max_sq_depth(ctx, &a, sizeof(a)), -EINVAL);
	a.flags = EFADV_SQ_DEPTH_ATTR_INLINE_WRITE;
	if (!inline_write()) {
		ck_assert_int_eq(efadv_get_max_sq_depth(ctx, &a, sizeof(a)),
				 -EOPNOTSUPP);
	} else {
		/* 128-byte WQEs: half as many fit the LLQ */
		int depth_128 = efadv_get_max_sq_depth(ctx, &a, sizeof(a));

		printf("sq_depth 64 %d inline_write %d\n", depth, depth_128);
		ck_assert(is_pow2(depth_128) && depth_128 * 2 == depth);
		qp = srd_qp_flags(depth_128, 0, EFADV_QP_FLAGS_INLINE_WRITE,
				  &err);
		ck_assert_msg(qp, "inline write QP of %d: %s", depth_128,
			      strerror(err));
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
		ck_assert_ptr_null(srd_qp_flags(depth_128 + 1, 0,
						EFADV_QP_FLAGS_INLINE_WRITE,
						&err));
		ck_assert_int_eq(err, EINVAL);
		a.flags = 0;
		a.max_inline_data = dv.inline_buf_size_ex;
		ck_assert_int_eq(efadv_get_max_sq_depth(ctx, &a, sizeof(a)),
				 depth_128);
		a.max_inline_data = dv.inline_buf_size;
		ck_assert_int_eq(efadv_get_max_sq_depth(ctx, &a, sizeof(a)),
				 depth);
	}
	a.flags = 0;
	a.max_send_sge = dv.max_sq_sge + 1;
	ck_assert_int_eq(efadv_get_max_sq_depth(ctx, &a, sizeof(a)), -EINVAL);
	a.max_send_sge = 1;
	a.max_inline_data = dv.inline_buf_size_ex + 1;
	ck_assert_int_eq(efadv_get_max_sq_depth(ctx, &a, sizeof(a)), -EINVAL);
}

/*
 * 128-byte WQEs where the device has them: for EFADV_QP_FLAGS_INLINE_WRITE
 * and for inline data beyond 32 bytes, as efadv_query_qp_wqs() says; else
 * the 64-byte limits.
 */
START_TEST(test_wqe_128)
{
	struct efadv_wq_attr sq, rq;
	struct ibv_qp *qp;
	int err;

	ck_assert_uint_ge(dv.inline_buf_size_ex, dv.inline_buf_size);
	qp = srd_qp_flags(16, 0, EFADV_QP_FLAGS_INLINE_WRITE, &err);
	if (!inline_write()) {
		ck_assert_ptr_null(qp);
		ck_assert_int_eq(err, EOPNOTSUPP);
	} else {
		ck_assert_msg(qp, "inline write QP: %s", strerror(err));
		ck_assert_int_eq(efadv_query_qp_wqs(qp, &sq, &rq, sizeof(sq)),
				 0);
		ck_assert_uint_eq(sq.entry_size, EFA_IO_TX_WQE_128_SIZE);
		ck_assert(is_pow2(sq.num_entries) && sq.num_entries >= 32);
		printf("wqe_size inline_write %u\n", sq.entry_size);
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	}

	qp = srd_qp_flags(16, dv.inline_buf_size + 1, 0, &err);
	if (!wqe_128()) {
		ck_assert_ptr_null(qp);
		ck_assert_int_eq(err, EINVAL);
		return;
	}
	ck_assert_msg(qp, "max inline %u: %s", dv.inline_buf_size + 1,
		      strerror(err));
	ck_assert_int_eq(efadv_query_qp_wqs(qp, &sq, &rq, sizeof(sq)), 0);
	ck_assert_uint_eq(sq.entry_size, EFA_IO_TX_WQE_128_SIZE);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	qp = srd_qp_flags(16, dv.inline_buf_size, 0, &err);
	ck_assert_ptr_nonnull(qp);
	ck_assert_int_eq(efadv_query_qp_wqs(qp, &sq, &rq, sizeof(sq)), 0);
	ck_assert_uint_eq(sq.entry_size, EFA_IO_TX_WQE_SIZE);
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	ck_assert_ptr_null(srd_qp_flags(16, dv.inline_buf_size_ex + 1, 0,
					&err));
	ck_assert_int_eq(err, EINVAL);
}
END_TEST

/* One inline RDMA write through the ibv_wr_* API; its wr_complete(). */
static int wr_inline_write(struct ibv_qp *qp, struct ibv_ah *ah,
			   uint32_t dqpn, uint32_t rkey, uint64_t to,
			   const uint8_t *data, size_t len)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct ibv_data_buf halves[2] = {
		{ (void *)data, len / 2 },
		{ (void *)(data + len / 2), len - len / 2 },
	};

	ibv_wr_start(qpx);
	qpx->wr_id = len;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, rkey, to);
	/* both ways of giving inline data, in turn */
	if (len & 1)
		ibv_wr_set_inline_data(qpx, (void *)data, len);
	else
		ibv_wr_set_inline_data_list(qpx, 2, halves);
	ibv_wr_set_ud_addr(qpx, ah, dqpn, QKEY);
	return ibv_wr_complete(qpx);
}

/*
 * Inline RDMA writes of 1 to inline_buf_size_ex bytes, each into a place
 * of its own, checked byte for byte at the target with the byte after
 * untouched; one more byte, and inline write on a 64-byte QP, refused.
 */
START_TEST(test_inline_write)
{
	enum { SLOT = 128, TLEN = 128 * SLOT };
	struct ibv_qp *tx, *rx, *plain;
	uint8_t data[SLOT], *tbuf;
	struct ibv_mr *tmr;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	uint32_t n = dv.inline_buf_size_ex;
	int err;

	if (!inline_write())
		return;
	tbuf = aligned_alloc(4096, TLEN);
	ck_assert_ptr_nonnull(tbuf);
	memset(tbuf, 0xee, TLEN);
	tmr = ibv_reg_mr(pd, tbuf, TLEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(tmr);
	ah = dev_create_ah(pd, &gid);
	ck_assert_ptr_nonnull(ah);
	rx = srd_qp_rts(0);
	tx = srd_qp_flags(64, 0, EFADV_QP_FLAGS_INLINE_WRITE, &err);
	ck_assert_msg(tx, "inline write QP: %s", strerror(err));
	ck_assert_int_eq(dev_ud_to_rts(tx, QKEY, 7), 0);

	for (uint32_t len = 1; len <= n; len++) {
		uint8_t *at = tbuf + (size_t)len * SLOT;

		for (uint32_t i = 0; i < len; i++)
			data[i] = (uint8_t)(len * 31 + i);
		ck_assert_int_eq(wr_inline_write(tx, ah, rx->qp_num,
						 tmr->rkey, (uintptr_t)at,
						 data, len), 0);
		/* the data is in the WQE: the buffer may change at once */
		memset(data, 0, sizeof(data));
		wc = dp_poll_one(cq, WAIT_MS);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS && wc.wr_id == len,
			      "inline write of %u: status %d wr_id %llu", len,
			      wc.status, (unsigned long long)wc.wr_id);
		for (uint32_t i = 0; i < len; i++)
			ck_assert_msg(at[i] == (uint8_t)(len * 31 + i),
				      "write of %u, byte %u: %#x", len, i,
				      at[i]);
		ck_assert_uint_eq(at[len], 0xee);
	}
	printf("inline_writes %u\n", n);

	/* one byte more than the WQE holds; inline write in 64 bytes */
	ck_assert_int_eq(wr_inline_write(tx, ah, rx->qp_num, tmr->rkey,
					 (uintptr_t)tbuf, data, n + 1), EINVAL);
	plain = srd_qp_flags(16, 0, 0, &err);
	ck_assert_ptr_nonnull(plain);
	ck_assert_int_eq(dev_ud_to_rts(plain, QKEY, 7), 0);
	ck_assert_int_eq(wr_inline_write(plain, ah, rx->qp_num, tmr->rkey,
					 (uintptr_t)tbuf, data, 8), EINVAL);
	ck_assert_uint_eq(tbuf[0], 0xee);

	ck_assert_int_eq(ibv_destroy_qp(plain), 0);
	ck_assert_int_eq(ibv_destroy_qp(tx), 0);
	ck_assert_int_eq(ibv_destroy_qp(rx), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_dereg_mr(tmr), 0);
	free(tbuf);
}
END_TEST

/* Receives the next message into buf + 2 * MSG_LEN; its completion. */
static void expect_recv(struct ibv_qp *rx, const uint8_t *want, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)buf + 2 * MSG_LEN, MSG_LEN,
			       mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 77, .sg_list = &sge,
				   .num_sge = 1 }, *bad;
	int seen = 0;

	memset(buf + 2 * MSG_LEN, 0, MSG_LEN);
	ck_assert_int_eq(ibv_post_recv(rx, &rwr, &bad), 0);
	while (seen != 3) {
		struct ibv_wc wc = dp_poll_one(cq, WAIT_MS);

		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		if (wc.wr_id == 77) {
			ck_assert_uint_eq(wc.byte_len, len);
			seen |= 2;
		} else {
			seen |= 1;
		}
	}
	ck_assert_mem_eq(buf + 2 * MSG_LEN, want, len);
}

/*
 * Inline sends of inline_buf_size_ex bytes from a QP of 128-byte WQEs,
 * through ibv_post_send() and through the ibv_wr_* API, in two pieces.
 */
START_TEST(test_inline_send_128)
{
	uint32_t n = dv.inline_buf_size_ex, half = n / 2;
	struct ibv_qp *rx, *tx;
	struct ibv_qp_ex *qpx;
	struct ibv_ah *ah;
	uint8_t data[128];
	struct ibv_sge sges[2] = { { (uintptr_t)data, half, 0 },
				   { (uintptr_t)data + half, n - half, 0 } };
	struct ibv_data_buf bufs[2] = { { data, half },
					{ data + half, n - half } };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = sges, .num_sge = 2,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE,
	}, *bad;
	int err;

	if (!wqe_128())
		return;
	ah = dev_create_ah(pd, &gid);
	ck_assert_ptr_nonnull(ah);
	rx = srd_qp_rts(0);
	tx = srd_qp_flags(16, n, 0, &err);
	ck_assert_msg(tx, "QP of %u inline bytes: %s", n, strerror(err));
	ck_assert_int_eq(dev_ud_to_rts(tx, QKEY, 7), 0);
	for (uint32_t i = 0; i < n; i++)
		data[i] = (uint8_t)(i * 3 + 5);
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = rx->qp_num;
	wr.wr.ud.remote_qkey = QKEY;
	ck_assert_int_eq(ibv_post_send(tx, &wr, &bad), 0);
	expect_recv(rx, data, n);

	qpx = ibv_qp_to_qp_ex(tx);
	ibv_wr_start(qpx);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah, rx->qp_num, QKEY);
	ibv_wr_set_inline_data_list(qpx, 2, bufs);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	expect_recv(rx, data, n);
	printf("inline_send %u\n", n);

	/* one more byte: refused by both */
	sges[1].length++;
	ck_assert_int_eq(ibv_post_send(tx, &wr, &bad), EINVAL);
	ck_assert_int_eq(ibv_destroy_qp(tx), 0);
	ck_assert_int_eq(ibv_destroy_qp(rx), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

#if EFA_IBVERBS_PABI >= 64
/* libibverbs 64's port speed, which the provider asks the kernel for. */
START_TEST(test_port_speed)
{
	uint64_t speed = 0;

	ck_assert_int_eq(ibv_query_port_speed(ctx, 1, &speed), 0);
	printf("port_speed %llu\n", (unsigned long long)speed);
	ck_assert_uint_gt(speed, 0);
	ck_assert_int_eq(ibv_query_port_speed(ctx, 2, &speed), EINVAL);
}
END_TEST
#endif
END_TEST

START_TEST(test_rq_depth)
{
	struct efadv_rq_depth_attr a = {};
	struct ibv_qp *qp;
	int depth, err;

	for (uint32_t sge = 1; sge <= dv.max_rq_sge; sge++) {
		a.max_recv_sge = sge;
		depth = efadv_get_max_rq_depth(ctx, &a, sizeof(a));
		ck_assert_msg(depth > 0, "sge %u: depth %d", sge, depth);
		ck_assert_uint_le(depth, dv.max_rq_wr);
		qp = srd_qp(16, depth, sge, 0, &err);
		ck_assert_msg(qp, "RQ of %d x %u: %s", depth, sge,
			      strerror(err));
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
		ck_assert_ptr_null(srd_qp(16, depth + 1, sge, 0, &err));
		ck_assert_int_eq(err, EINVAL);
	}

	ck_assert_int_eq(efadv_get_max_rq_depth(ctx, &a, 8), -EINVAL);
	a.max_recv_sge = 0;
	ck_assert_int_eq(efadv_get_max_rq_depth(ctx, &a, sizeof(a)), -EINVAL);
	a.max_recv_sge = dv.max_rq_sge + 1;
	ck_assert_int_eq(efadv_get_max_rq_depth(ctx, &a, sizeof(a)), -EINVAL);
	a.max_recv_sge = 1;
	a.comp_mask = 1;
	ck_assert_int_eq(efadv_get_max_rq_depth(ctx, &a, sizeof(a)), -EINVAL);
}
END_TEST

/* A send with a processing hint: the hint changes nothing of the result. */
START_TEST(test_processing_hints)
{
	struct ibv_qp *rx = srd_qp_rts(0);
	struct ibv_qp *tx = srd_qp_rts(EFADV_WR_EX_WITH_PROCESSING_HINTS);
	struct ibv_qp *plain = srd_qp_rts(0);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(tx);
	struct efadv_qp *dq = efadv_qp_from_ibv_qp_ex(qpx);
	struct ibv_sge rsge = { (uintptr_t)buf + 2 * MSG_LEN, MSG_LEN,
				mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &rsge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	struct ibv_ah *ah = dev_create_ah(pd, &gid);
	struct ibv_wc wc;
	int err, seen = 0;

	ck_assert_ptr_nonnull(ah);
	ck_assert_ptr_nonnull(dq);
	ck_assert_ptr_nonnull(dq->wr_set_processing_hints);
	ck_assert_ptr_null(efadv_qp_from_ibv_qp_ex(ibv_qp_to_qp_ex(plain))
				   ->wr_set_processing_hints);
	for (int i = 0; i < MSG_LEN; i++)
		buf[i] = (uint8_t)(255 - i);
	ck_assert_int_eq(ibv_post_recv(rx, &rwr, &bad), 0);

	ibv_wr_start(qpx);
	qpx->wr_id = 9;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	efadv_wr_set_processing_hints(dq,
		EFADV_WR_PROCESSING_HINT_BURST_PPS_SENSITIVE);
	ibv_wr_set_ud_addr(qpx, ah, rx->qp_num, QKEY);
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, MSG_LEN);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	while (seen != 3) {
		wc = dp_poll_one(cq, WAIT_MS);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
		seen |= wc.wr_id == 9 ? 1 : wc.wr_id == 7 ? 2 : 4;
	}
	ck_assert_mem_eq(buf + 2 * MSG_LEN, buf, MSG_LEN);

	/* Hints are for the ibv_wr_* API; only known wr_flags and no flags */
	struct ibv_qp_init_attr_ex a = {
		.qp_type = IBV_QPT_DRIVER, .send_cq = cq, .recv_cq = cq,
		.pd = pd, .comp_mask = IBV_QP_INIT_ATTR_PD,
		.cap = { .max_send_wr = 1, .max_send_sge = 1 },
	};
	struct efadv_qp_init_attr e = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
		.wr_flags = EFADV_WR_EX_WITH_PROCESSING_HINTS,
	};
	ck_assert_ptr_null(efadv_create_qp_ex(ctx, &a, &e, sizeof(e)));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(srd_qp(1, 1, 1, 2, &err));
	ck_assert_int_eq(err, EOPNOTSUPP);
	e.wr_flags = 0;
	e.flags = 1 << 2;
	ck_assert_ptr_null(efadv_create_qp_ex(ctx, &a, &e, sizeof(e)));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	ck_assert_int_eq(ibv_destroy_qp(plain), 0);
	ck_assert_int_eq(ibv_destroy_qp(tx), 0);
	ck_assert_int_eq(ibv_destroy_qp(rx), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

/* The next completion of @cqx through the extended API, and its bit. */
static struct ibv_wc poll_ex_one(struct ibv_cq_ex *cqx, bool *unsol)
{
	struct ibv_poll_cq_attr attr = {};
	struct ibv_wc wc = {};
	int ret, ms = 0;

	while ((ret = ibv_start_poll(cqx, &attr)) == ENOENT) {
		ck_assert_msg(ms++ < WAIT_MS, "no completion in %d ms",
			      WAIT_MS);
		usleep(1000);
	}
	ck_assert_int_eq(ret, 0);
	wc.wr_id = cqx->wr_id;
	wc.status = cqx->status;
	wc.opcode = ibv_wc_read_opcode(cqx);
	wc.byte_len = ibv_wc_read_byte_len(cqx);
	wc.wc_flags = ibv_wc_read_wc_flags(cqx);
	wc.qp_num = ibv_wc_read_qp_num(cqx);
	if (wc.wc_flags & IBV_WC_WITH_IMM)
		wc.imm_data = ibv_wc_read_imm_data(cqx);
	*unsol = efadv_wc_is_unsolicited(efadv_cq_from_ibv_cq_ex(cqx));
	ibv_end_poll(cqx);
	return wc;
}

/* The target's receive of a write with immediate, as upstream reports it. */
static void expect_write_imm(struct ibv_wc wc, uint64_t wr_id, uint32_t qpn,
			     uint32_t len, uint32_t imm)
{
	ck_assert_msg(wc.status == IBV_WC_SUCCESS, "status %s",
		      ibv_wc_status_str(wc.status));
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(wc.wr_id, wr_id);
	ck_assert_uint_eq(wc.qp_num, qpn);
	ck_assert_uint_eq(wc.byte_len, len);
	ck_assert_uint_eq(wc.wc_flags & IBV_WC_WITH_IMM, IBV_WC_WITH_IMM);
	ck_assert_uint_eq(be32toh(wc.imm_data), imm);
}

/*
 * A write with immediate of @len bytes from buf to @to through @qp, wr_id
 * @imm (the ibv_wr_* API: ibv_post_send() takes sends only on SRD).
 */
static void write_imm(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t dqpn,
		      uint32_t rkey, uint8_t *to, uint32_t len, uint32_t imm)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);

	for (uint32_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(imm + i * 13);
	memset(to, 0, len + 1);
	ibv_wr_start(qpx);
	qpx->wr_id = imm;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, rkey, (uintptr_t)to, htobe32(imm));
	ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)buf, len);
	ibv_wr_set_ud_addr(qpx, ah, dqpn, QKEY);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
}

/* A send of @len bytes from buf, wr_id 5. */
static void send_to(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t dqpn,
		    uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)buf, len, mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 5, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { ah, dqpn, QKEY },
	}, *bad;

	ck_assert_int_eq(ibv_post_send(qp, &wr, &bad), 0);
}

/*
 * The sender's completion of @tx_wr_id from cq, and, when the target's
 * receive completes there too (@rx_here), the target's, in either order.
 */
static struct ibv_wc poll_tx_rx(uint64_t tx_wr_id, bool rx_here)
{
	struct ibv_wc wc, rx = { .status = IBV_WC_GENERAL_ERR };
	bool tx_seen = false;

	for (int n = rx_here ? 2 : 1; n; n--) {
		wc = dp_poll_one(cq, WAIT_MS);
		if (!tx_seen && wc.wr_id == tx_wr_id &&
		    (wc.opcode == IBV_WC_SEND ||
		     wc.opcode == IBV_WC_RDMA_WRITE)) {
			ck_assert_msg(wc.status == IBV_WC_SUCCESS,
				      "sender: %s",
				      ibv_wc_status_str(wc.status));
			tx_seen = true;
		} else {
			rx = wc;
		}
	}
	ck_assert_msg(tx_seen, "no sender's completion of %llu",
		      (unsigned long long)tx_wr_id);
	return rx;
}

static void post_recv_77(struct ibv_qp *rx)
{
	struct ibv_sge sge = { (uintptr_t)buf + 2 * MSG_LEN, MSG_LEN,
			       mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 77, .sg_list = &sge,
				   .num_sge = 1 }, *bad;

	memset(buf + 2 * MSG_LEN, 0, MSG_LEN);
	ck_assert_int_eq(ibv_post_recv(rx, &rwr, &bad), 0);
}

/*
 * Unsolicited RDMA write with immediate receive, where the device has it
 * (efa2 on): writes to QPs created with EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV
 * complete at the target with wr_id 0, IBV_WC_RECV_RDMA_WITH_IMM, the
 * immediate and length, efadv_wc_is_unsolicited() true, through the
 * extended API on a CQ asking for the bit and through ibv_poll_cq(); the
 * data is checked at the target, and the receive posted before is still
 * there for a send after.  A QP without the flag takes a receive for the
 * same write.  Where the device lacks it, the flag and the CQ bit are
 * refused with EOPNOTSUPP, as upstream's provider refuses them.
 */
START_TEST(test_unsolicited_write_recv)
{
	enum { TLEN = 4 * 4096, WLEN = 200 };
	struct efadv_cq_init_attr ce = {
		.wc_flags = EFADV_WC_EX_WITH_IS_UNSOLICITED,
	};
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_qp *tx, *rx_ex, *rx, *rx_plain;
	struct ibv_cq_ex *cqx;
	uint8_t *tbuf;
	struct ibv_mr *tmr;
	struct ibv_ah *ah;
	struct ibv_wc wc;
	bool unsol;
	int err;

	if (!(dv.device_caps & EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV)) {
		ck_assert_ptr_null(srd_qp_flags(16, 0,
			EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV, &err));
		ck_assert_int_eq(err, EOPNOTSUPP);
		errno = 0;
		ck_assert_ptr_null(efadv_create_cq(ctx, &ca, &ce, sizeof(ce)));
		ck_assert_int_eq(errno, EOPNOTSUPP);
		printf("unsolicited refused\n");
		return;
	}
	tbuf = aligned_alloc(4096, TLEN);
	ck_assert_ptr_nonnull(tbuf);
	tmr = ibv_reg_mr(pd, tbuf, TLEN,
			 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(tmr);
	cqx = efadv_create_cq(ctx, &ca, &ce, sizeof(ce));
	ck_assert_msg(cqx, "CQ with the unsolicited bit: %s", strerror(errno));
	ah = dev_create_ah(pd, &gid);
	ck_assert_ptr_nonnull(ah);
	tx = srd_qp_flags(16, 0, 0, &err);
	ck_assert_ptr_nonnull(tx);
	rx_ex = srd_qp_on(ibv_cq_ex_to_cq(cqx), 16, 0,
			  EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV, 0, &err);
	ck_assert_msg(rx_ex, "unsolicited QP: %s", strerror(err));
	rx = srd_qp_flags(16, 0, EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV, &err);
	ck_assert_msg(rx, "unsolicited QP: %s", strerror(err));
	rx_plain = srd_qp_flags(16, 0, 0, &err);
	ck_assert_ptr_nonnull(rx_plain);
	ck_assert_int_eq(dev_ud_to_rts(tx, QKEY, 7), 0);
	ck_assert_int_eq(dev_ud_to_rts(rx_ex, QKEY, 7), 0);
	ck_assert_int_eq(dev_ud_to_rts(rx, QKEY, 7), 0);
	ck_assert_int_eq(dev_ud_to_rts(rx_plain, QKEY, 7), 0);

	/* start_poll and efadv_wc_is_unsolicited(), a receive waiting */
	post_recv_77(rx_ex);
	write_imm(tx, ah, rx_ex->qp_num, tmr->rkey, tbuf, WLEN, 0xfeed1);
	poll_tx_rx(0xfeed1, false);
	wc = poll_ex_one(cqx, &unsol);
	ck_assert(unsol);
	expect_write_imm(wc, 0, rx_ex->qp_num, WLEN, 0xfeed1);
	ck_assert_mem_eq(tbuf, buf, WLEN);
	ck_assert_uint_eq(tbuf[WLEN], 0);
	send_to(tx, ah, rx_ex->qp_num, 64);
	poll_tx_rx(5, false);
	wc = poll_ex_one(cqx, &unsol);
	ck_assert(!unsol);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.wr_id, 77);
	ck_assert_uint_eq(wc.byte_len, 64);
	ck_assert_mem_eq(buf + 2 * MSG_LEN, buf, 64);

	/* ibv_poll_cq(), on a CQ created without asking for the bit */
	post_recv_77(rx);
	write_imm(tx, ah, rx->qp_num, tmr->rkey, tbuf + 4096, 500, 0xbeef0);
	wc = poll_tx_rx(0xbeef0, true);
	expect_write_imm(wc, 0, rx->qp_num, 500, 0xbeef0);
	ck_assert_mem_eq(tbuf + 4096, buf, 500);
	send_to(tx, ah, rx->qp_num, 32);
	wc = poll_tx_rx(5, true);
	ck_assert_int_eq(wc.opcode, IBV_WC_RECV);
	ck_assert_uint_eq(wc.wr_id, 77);
	ck_assert_uint_eq(wc.byte_len, 32);

	/* without the flag the write takes the posted receive */
	post_recv_77(rx_plain);
	write_imm(tx, ah, rx_plain->qp_num, tmr->rkey, tbuf + 8192, WLEN,
		  0xabc2);
	wc = poll_tx_rx(0xabc2, true);
	expect_write_imm(wc, 77, rx_plain->qp_num, WLEN, 0xabc2);
	ck_assert_mem_eq(tbuf + 8192, buf, WLEN);
	printf("unsolicited_write_imm ok\n");

	ck_assert_int_eq(ibv_destroy_qp(rx_plain), 0);
	ck_assert_int_eq(ibv_destroy_qp(rx), 0);
	ck_assert_int_eq(ibv_destroy_qp(rx_ex), 0);
	ck_assert_int_eq(ibv_destroy_qp(tx), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0);
	ck_assert_int_eq(ibv_dereg_mr(tmr), 0);
	free(tbuf);
}
END_TEST

/*
 * A QP's service level goes to the device as given: upstream's provider
 * and the kernel check no range of it.  0, libfabric's low-latency 8 and
 * 255 make working QPs.
 */
START_TEST(test_sl)
{
	static const uint8_t sls[] = { 0, 8, 255 };
	struct ibv_qp *rx = srd_qp_rts(0), *qp;
	struct ibv_ah *ah = dev_create_ah(pd, &gid);
	struct ibv_wc wc;
	int err;

	ck_assert_ptr_nonnull(ah);
	for (size_t i = 0; i < sizeof(sls); i++) {
		qp = srd_qp_on(cq, 16, 0, 0, sls[i], &err);
		ck_assert_msg(qp, "sl %u: %s", sls[i], strerror(err));
		ck_assert_int_eq(dev_ud_to_rts(qp, QKEY, 7), 0);
		for (int j = 0; j < MSG_LEN; j++)
			buf[j] = (uint8_t)(sls[i] + j);
		post_recv_77(rx);
		send_to(qp, ah, rx->qp_num, MSG_LEN);
		wc = poll_tx_rx(5, true);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS && wc.wr_id == 77 &&
			      wc.byte_len == MSG_LEN, "sl %u: receive", sls[i]);
		ck_assert_mem_eq(buf + 2 * MSG_LEN, buf, MSG_LEN);
		ck_assert_int_eq(ibv_destroy_qp(qp), 0);
	}
	printf("sl 0 8 255 ok\n");
	ck_assert_int_eq(ibv_destroy_qp(rx), 0);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
}
END_TEST

START_TEST(test_comp_cntr)
{
	struct cc_init_attr cc = {};
	struct efadv_comp_cntr_init_attr e = {};
	struct ibv_comp_cntr_init_attr *attr = (void *)&cc;

	/* never offered with this libibverbs */
	ck_assert_uint_eq(dv.device_caps & EFADV_DEVICE_ATTR_CAPS_COMP_CNTR, 0);

	errno = 0;
	ck_assert_ptr_null(efadv_create_comp_cntr(ctx, attr, &e,
		offsetof(struct efadv_comp_cntr_init_attr, err_cntr_ext_mem)));
	ck_assert_int_eq(errno, EINVAL);
	e.flags = 4;
	ck_assert_ptr_null(efadv_create_comp_cntr(ctx, attr, &e, sizeof(e)));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	e.flags = 0;
	e.err_cntr_ext_mem.type = 2;
	ck_assert_ptr_null(efadv_create_comp_cntr(ctx, attr, &e, sizeof(e)));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	e.err_cntr_ext_mem.type = EFADV_MEMORY_LOCATION_VA;
	cc.type = 1;		/* IBV_COMP_CNTR_TYPE_BYTES */
	ck_assert_ptr_null(efadv_create_comp_cntr(ctx, attr, &e, sizeof(e)));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	cc.type = 0;
	/* valid, and still none: the device reports no counters */
	errno = 0;
	ck_assert_ptr_null(efadv_create_comp_cntr(ctx, attr, &e, sizeof(e)));
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

static Suite *efadv_suite(void)
{
	Suite *s = suite_create("efadv EFA_1.4-1.7");
	TCase *tc = tcase_create("efadv");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_query_qp_wqs);
	tcase_add_test(tc, test_query_cq);
	tcase_add_test(tc, test_direct_rings);
	tcase_add_test(tc, test_sq_depth);
	tcase_add_test(tc, test_wqe_128);
	tcase_add_test(tc, test_inline_write);
	tcase_add_test(tc, test_inline_send_128);
#if EFA_IBVERBS_PABI >= 64
	tcase_add_test(tc, test_port_speed);
#endif
	tcase_add_test(tc, test_rq_depth);
	tcase_add_test(tc, test_processing_hints);
	tcase_add_test(tc, test_unsolicited_write_recv);
	tcase_add_test(tc, test_sl);
	tcase_add_test(tc, test_comp_cntr);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(efadv_suite)
