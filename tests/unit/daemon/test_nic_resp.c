// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder, fed crafted request packets: what it places, the receive
 * completion it writes, and the ACK or NAK it answers with.
 */
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "efa/efa_abi_compat.h"
#include "nic_fixture.h"

#define LEN	100
#define GRH	40

static uint8_t src[4096], dst[4096];
static struct sefa_pd *pd0, *pd1;
static struct sefa_mr *mr1;
static struct sefa_qp *a, *b;

static void setup(void)
{
	fx_setup();
	memset(src, 0x5a, sizeof(src));
	memset(dst, 0xee, sizeof(dst));
	pd0 = fx_pd(0);
	pd1 = fx_pd(1);
	mr1 = fx_mr(pd1, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE |
		    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
}

/* The requester's QP on device 0 and the target's on device 1. */
static void pair(int type)
{
	a = fx_qp(pd0, fx_cq(0), type);
	b = fx_qp(pd1, fx_cq(1), type);
}

/* A request carrying src as the requester's one buffer. */
static struct sefa_pkt req(const struct sefa_qp *from,
			   const struct sefa_qp *to, uint8_t op, uint64_t len)
{
	struct sefa_pkt pkt = fx_req(from, to, op, len);

	fx_eng->local_segs[0] = (struct dma_seg){
		.mm = &fx_self_mm, .addr = (uintptr_t)src, .len = sizeof(src),
	};
	pkt.segs = (struct seg_list){ .seg = fx_eng->local_segs, .n = 1 };
	return pkt;
}

/* A pair, and a send of LEN bytes between them. */
static struct sefa_pkt pair_send(int type)
{
	pair(type);
	return req(a, b, SEFA_PKT_SEND, LEN);
}

static void deliver(struct sefa_pkt *pkt, const struct sefa_qp *to)
{
	nic_resp_recv(fx_eng, to->dev, pkt);
}

/* The one answer the responder gave, to @from. */
static const struct sefa_pkt *answer(const struct sefa_qp *from, int status)
{
	const struct sefa_pkt *ack = &fx_pkt[0];

	ck_assert_uint_eq(fx_npkts, 1);
	ck_assert_uint_eq(ack->op, SEFA_PKT_ACK);
	ck_assert_uint_eq(ack->status, status);
	ck_assert_uint_eq(ack->dqpn, from->qpn);
	ck_assert_mem_eq(ack->dgid, from->dev->gid, 16);
	return ack;
}

START_TEST(ud_send_behind_grh)
{
	const struct efa_io_rx_cdesc_ex *e;
	struct sefa_pkt pkt;
	uint16_t ahn;

	pair(IBV_QPT_UD);
	ahn = fx_ah(pd1, 0);
	pkt = req(a, b, SEFA_PKT_SEND, LEN);
	fx_post_recv(b, dst, GRH + LEN, mr1->lkey, 7);
	pkt.flags = SEFA_PKT_IMM;
	pkt.imm = 0xabcd;
	deliver(&pkt, b);

	/* Nothing in the GRH area; the payload right behind it. */
	ck_assert_uint_eq(dst[GRH - 1], 0xee);
	ck_assert_mem_eq(dst + GRH, src, LEN);
	ck_assert_uint_eq(dst[GRH + LEN], 0xee);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	e = fx_cqe(b, true, 0);
	ck_assert_uint_eq(e->base.common.req_id, 7);
	ck_assert_uint_eq(e->base.common.status, EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(fx_cqe_op(e), EFA_IO_SEND);
	ck_assert(e->base.common.flags & EFA_IO_CDESC_COMMON_HAS_IMM);
	ck_assert_uint_eq(e->base.imm, 0xabcd);
	ck_assert_uint_eq(e->base.common.qp_num, b->qpn);
	ck_assert_uint_eq(e->base.length, GRH + LEN);
	ck_assert_uint_eq(e->base.src_qp_num, (uint16_t)a->qpn);
	ck_assert_uint_eq(e->base.ah, ahn);
	ck_assert_uint_eq(b->resp.rq_ci, 1);
	ck_assert_uint_eq(b->cnt.rx_pkts, 1);
	ck_assert_uint_eq(b->dev->cnt.rx_bytes, LEN);
	/* Nobody answers UD. */
	ck_assert_uint_eq(fx_npkts, 0);
}
END_TEST

/* A sender the receiver has no AH for: its GID, in the 32-byte entry. */
START_TEST(ud_unknown_sender_gid)
{
	struct sefa_pkt pkt = pair_send(IBV_QPT_UD);
	const struct efa_io_rx_cdesc_ex *e;

	fx_post_recv(b, dst, GRH + LEN, mr1->lkey, 1);
	deliver(&pkt, b);
	e = fx_cqe(b, true, 0);
	ck_assert_uint_eq(e->base.ah, EFA_IO_AH_UNKNOWN);
	ck_assert_mem_eq(e->u.src_addr, a->dev->gid, 16);
}
END_TEST

/* UD loses what it cannot take, unanswered; only no buffer is counted. */
START_TEST(ud_lost)
{
	struct sefa_pkt pkt = pair_send(IBV_QPT_UD);

	deliver(&pkt, b);
	ck_assert_uint_eq(b->cnt.rx_drops, 1);
	ck_assert_uint_eq(b->dev->cnt.rx_drops, 1);

	fx_post_recv(b, dst, GRH + LEN, mr1->lkey, 1);
	pkt.qkey = FX_QKEY + 1;
	deliver(&pkt, b);
	pkt.qkey = FX_QKEY;
	pkt.dqpn = b->qpn + 1;
	deliver(&pkt, b);
	ck_assert_uint_eq(b->cnt.rx_drops, 1);
	ck_assert_uint_eq(b->resp.rq_ci, 0);
	ck_assert_uint_eq(fx_ncqes(b, true), 0);
	ck_assert_uint_eq(fx_npkts, 0);
}
END_TEST

/* A UD message longer than the receive fails the receive, and no more. */
START_TEST(ud_too_long)
{
	struct sefa_pkt pkt = pair_send(IBV_QPT_UD);

	fx_post_recv(b, dst, LEN, mr1->lkey, 1);
	deliver(&pkt, b);
	ck_assert_uint_eq(fx_cqe(b, true, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH);
	ck_assert_uint_eq(b->cnt.errors, 1);
	ck_assert_uint_eq(dst[GRH], 0xee);
	ck_assert_uint_eq(fx_npkts, 0);
}
END_TEST

START_TEST(srd_inline_ack)
{
	struct sefa_pkt pkt;

	pair(IBV_QPT_DRIVER);
	pkt = fx_req(a, b, SEFA_PKT_SEND, 5);
	uint32_t rq_psn = b->resp.rq_psn;

	pkt.data = "hello";
	pkt.psn = 0x123456;
	fx_post_recv(b, dst, 64, mr1->lkey, 3);
	deliver(&pkt, b);
	/* SRD has no GRH area. */
	ck_assert_mem_eq(dst, "hello", 5);
	ck_assert_uint_eq(fx_cqe(b, true, 0)->base.length, 5);
	ck_assert_uint_eq(b->resp.rq_psn, rq_psn + 1);
	ck_assert_uint_eq(answer(a, EFA_IO_COMP_STATUS_OK)->psn, 0x123456);
	ck_assert_uint_eq(fx_pkt[0].sqpn, b->qpn);
	ck_assert_mem_eq(fx_pkt[0].sgid, b->dev->gid, 16);
}
END_TEST

/* Not ready: an RNR NAK carrying the receiver's min_rnr_timer. */
START_TEST(srd_no_recv_rnr)
{
	struct sefa_pkt pkt = pair_send(IBV_QPT_DRIVER);

	b->min_rnr_timer = 14;
	deliver(&pkt, b);
	ck_assert_uint_eq(answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR)->rnr_timer,
			  14);
	ck_assert_uint_eq(b->cnt.rx_drops, 0);
}
END_TEST

/*
 * An rnr fault rule of tries=2: the packet is refused twice as if no
 * receive were posted, the receive staying; its third try is taken.
 */
START_TEST(srd_rnr_fault)
{
	struct sefa_pkt pkt = pair_send(IBV_QPT_DRIVER);
	unsigned int id, i;
	char why[128];

	ck_assert_int_eq(sefa_faults_new(fx_d.ndev, &fx_d.faults), 0);
	ck_assert_int_eq(sefa_fault_add(fx_d.faults, "rnr tries=2 dev=efa_1",
					&id, why, sizeof(why)), 0);
	fx_post_recv(b, dst, sizeof(dst), mr1->lkey, 3);
	for (i = 0; i < 2; i++) {
		fx_npkts = 0;
		deliver(&pkt, b);
		answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
		ck_assert_uint_eq(b->resp.rq_ci, 0);
	}
	fx_npkts = 0;
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(dst[0], 0x5a);
	ck_assert_uint_eq(fx_cqe(b, true, 0)->base.length, LEN);
	ck_assert_uint_eq(sefa_fault_dev_total(fx_d.faults, 1), 2);
	sefa_faults_free(fx_d.faults);
	fx_d.faults = NULL;
}
END_TEST

START_TEST(srd_bad_qkey_nak)
{
	struct sefa_pkt pkt = pair_send(IBV_QPT_DRIVER);

	fx_post_recv(b, dst, LEN, mr1->lkey, 1);
	pkt.qkey++;
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN);
	ck_assert_uint_eq(b->resp.rq_ci, 0);
}
END_TEST

START_TEST(srd_no_such_qp_nak)
{
	struct sefa_pkt pkt;

	pair(IBV_QPT_UD);
	/* a UD QP is no SRD QP */
	pkt = req(a, b, SEFA_PKT_SEND, LEN);
	pkt.qpt = IBV_QPT_DRIVER;
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN);
}
END_TEST

/* Too long for the receive: SRD keeps it, and the sender is told. */
START_TEST(srd_too_long_keeps_recv)
{
	struct sefa_pkt pkt = pair_send(IBV_QPT_DRIVER);

	fx_post_recv(b, dst, LEN - 1, mr1->lkey, 1);
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH);
	ck_assert_uint_eq(b->resp.rq_ci, 0);
	ck_assert_uint_eq(fx_ncqes(b, true), 0);
}
END_TEST

/* A receive through a bad key fails, and the sender gets an abort. */
START_TEST(srd_bad_recv_key)
{
	struct sefa_pkt pkt = pair_send(IBV_QPT_DRIVER);

	fx_post_recv(b, dst, LEN, mr1->lkey + 1, 1);
	deliver(&pkt, b);
	ck_assert_uint_eq(fx_cqe(b, true, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY);
	answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT);
}
END_TEST

/* An RDMA of LEN bytes at @off of dst, by its rkey. */
static struct sefa_pkt rdma(uint8_t op, uint64_t off)
{
	struct sefa_pkt pkt = req(a, b, op, LEN);

	pkt.rkey = mr1->lkey;
	pkt.raddr = (uintptr_t)dst + off;
	return pkt;
}

START_TEST(srd_write_checks)
{
	struct sefa_pkt pkt;

	pair(IBV_QPT_DRIVER);
	pkt = rdma(SEFA_PKT_WRITE, 0);

	/* SRD: only a peer the target has an AH for */
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER);
	fx_ah(pd1, 0);
	fx_npkts = 0;
	pkt.raddr = (uintptr_t)dst + sizeof(dst) - LEN + 1;
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
	/* a key of the target's PD, without remote write */
	fx_npkts = 0;
	pkt = rdma(SEFA_PKT_WRITE, 0);
	pkt.rkey = fx_mr(pd1, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE)->lkey;
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
	ck_assert_uint_eq(dst[0], 0xee);
}
END_TEST

START_TEST(srd_write_imm)
{
	struct sefa_pkt pkt;

	pair(IBV_QPT_DRIVER);
	pkt = rdma(SEFA_PKT_WRITE, 1000);
	const struct efa_io_rx_cdesc_ex *e;

	fx_ah(pd1, 0);
	pkt.flags = SEFA_PKT_IMM;
	pkt.imm = 99;
	/* the immediate needs a receive */
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
	ck_assert_uint_eq(dst[1000], 0xee);

	fx_npkts = 0;
	fx_post_recv(b, dst, 8, mr1->lkey, 4);
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_OK);
	ck_assert_mem_eq(dst + 1000, src, LEN);
	e = fx_cqe(b, true, 0);
	ck_assert_uint_eq(fx_cqe_op(e), EFA_IO_RDMA_WRITE);
	ck_assert_uint_eq(e->base.imm, 99);
	ck_assert_uint_eq(e->base.length, LEN);
	ck_assert_uint_eq(b->cnt.rx_bytes, LEN);
	ck_assert_uint_eq(b->cnt.rx_pkts, 0);
}
END_TEST

/*
 * A QP made with unsolicited write receive completes a write with
 * immediate without a receive: no RNR, the receive posted stays, and the
 * entry says unsolicited.
 */
START_TEST(srd_write_imm_unsolicited)
{
	struct sefa_pkt pkt;
	const struct efa_io_rx_cdesc_ex *e;

	a = fx_qp(pd0, fx_cq(0), IBV_QPT_DRIVER);
	b = fx_qp_ex(pd1, fx_cq(1), IBV_QPT_DRIVER, EFA_IO_TX_WQE_SIZE,
		     EFA_CREATE_QP_WITH_UNSOLICITED_WRITE_RECV);
	ck_assert(b->unsolicited_write_recv);
	pkt = rdma(SEFA_PKT_WRITE, 1000);
	fx_ah(pd1, 0);
	pkt.flags = SEFA_PKT_IMM;
	pkt.imm = 77;
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_OK);
	ck_assert_mem_eq(dst + 1000, src, LEN);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	e = fx_cqe(b, true, 0);
	ck_assert(e->base.common.flags & EFA_IO_CDESC_COMMON_UNSOLICITED);
	ck_assert(e->base.common.flags & EFA_IO_CDESC_COMMON_HAS_IMM);
	ck_assert_uint_eq(fx_cqe_op(e), EFA_IO_RDMA_WRITE);
	ck_assert_uint_eq(e->base.common.req_id, 0);
	ck_assert_uint_eq(e->base.imm, 77);
	ck_assert_uint_eq(e->base.length, LEN);

	/* a receive posted is for a SEND, not taken by the write */
	fx_npkts = 0;
	fx_post_recv(b, dst, 8, mr1->lkey, 4);
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(b->resp.rq_ci, 0);
	ck_assert(fx_cqe(b, true, 1)->base.common.flags &
		  EFA_IO_CDESC_COMMON_UNSOLICITED);
}
END_TEST

/* A read's data goes straight into the requester's buffers. */
START_TEST(srd_read)
{
	struct sefa_pkt pkt;

	pair(IBV_QPT_DRIVER);
	pkt = rdma(SEFA_PKT_READ, 200);

	fx_ah(pd1, 0);
	memset(dst + 200, 0x33, LEN);
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(src[0], 0x33);
	ck_assert_uint_eq(src[LEN - 1], 0x33);
	ck_assert_uint_eq(src[LEN], 0x5a);
	ck_assert_uint_eq(fx_ncqes(b, true), 0);
}
END_TEST

/* RC: only the QP the target is connected to; others meet silence. */
START_TEST(rc_connection)
{
	struct sefa_qp *c;
	struct sefa_pkt pkt;

	pair(IBV_QPT_RC);
	c = fx_qp(pd0, a->send_cq, IBV_QPT_RC);
	fx_rc_connect(a, b, false);
	fx_post_recv(b, dst, LEN, mr1->lkey, 1);
	pkt = req(c, b, SEFA_PKT_SEND, LEN);
	deliver(&pkt, b);
	ck_assert_uint_eq(fx_npkts, 0);
	ck_assert_uint_eq(fx_ncqes(b, true), 0);

	fx_npkts = 0;
	pkt = req(a, b, SEFA_PKT_SEND, LEN);
	deliver(&pkt, b);
	answer(a, EFA_IO_COMP_STATUS_OK);
	ck_assert_mem_eq(dst, src, LEN);
	/* RC entries carry the length's high half, and no AH look-up */
	ck_assert_uint_eq(fx_cqe(b, true, 0)->u.rdma_write.length_hi, 0);
}
END_TEST

START_TEST(flush)
{
	pair(IBV_QPT_DRIVER);
	fx_post_recv(b, dst, LEN, mr1->lkey, 1);
	fx_post_recv(b, dst, LEN, mr1->lkey, 2);
	nic_resp_flush(b);
	ck_assert_uint_eq(fx_ncqes(b, true), 2);
	ck_assert_uint_eq(fx_cqe(b, true, 1)->base.common.req_id, 2);
	ck_assert_uint_eq(fx_cqe(b, true, 1)->base.common.status,
			  EFA_IO_COMP_STATUS_FLUSHED);
	ck_assert_uint_eq(b->cnt.errors, 2);
}
END_TEST

static Suite *resp_suite(void)
{
	Suite *s = suite_create("nic responder");
	TCase *t = tcase_create("resp");

	tcase_add_checked_fixture(t, setup, fx_teardown);
	tcase_add_test(t, ud_send_behind_grh);
	tcase_add_test(t, ud_unknown_sender_gid);
	tcase_add_test(t, ud_lost);
	tcase_add_test(t, ud_too_long);
	tcase_add_test(t, srd_inline_ack);
	tcase_add_test(t, srd_no_recv_rnr);
	tcase_add_test(t, srd_rnr_fault);
	tcase_add_test(t, srd_bad_qkey_nak);
	tcase_add_test(t, srd_no_such_qp_nak);
	tcase_add_test(t, srd_too_long_keeps_recv);
	tcase_add_test(t, srd_bad_recv_key);
	tcase_add_test(t, srd_write_checks);
	tcase_add_test(t, srd_write_imm);
	tcase_add_test(t, srd_write_imm_unsolicited);
	tcase_add_test(t, srd_read);
	tcase_add_test(t, rc_connection);
	tcase_add_test(t, flush);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(resp_suite)
