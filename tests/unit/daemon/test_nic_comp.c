// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completer, fed ACK and NAK packets for a WQE on the wire: the send
 * completion it writes, the retry it schedules, the QP it fails.
 */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "efa/efa_ext_abi.h"
#include "nic_fixture.h"

#define MS	(1000 * 1000ULL)

static struct sefa_qp *qp;
static struct efa_io_tx_wqe_128 wqe;
static struct nic_send snd;

static void setup_qp(int type)
{
	struct sefa_pd *pd;

	fx_setup();
	pd = fx_pd(0);
	qp = fx_qp(pd, fx_cq(0), type);
	wqe = fx_wqe(EFA_IO_SEND, 42);
	snd = (struct nic_send){ .qp = qp, .wqe = &wqe, .psn = qp->req.sq_psn };
	snd.at_head = type == IBV_QPT_RC;
}

static void setup_srd(void)
{
	setup_qp(IBV_QPT_DRIVER);
}

static void setup_rc(void)
{
	setup_qp(IBV_QPT_RC);
	/* no peer needed: the completer only sees answers */
	qp->state = IBV_QPS_RTS;
	qp->rnr_retry = 7;
}

/* An answer to the QP's packet of @psn, as a responder would give it. */
static void answer_psn(uint32_t psn, int status, uint8_t rnr_timer)
{
	struct sefa_pkt ack = {
		.op = SEFA_PKT_ACK, .qpt = qp->type, .status = status,
		.rnr_timer = rnr_timer, .dqpn = qp->qpn, .psn = psn,
	};

	memcpy(ack.dgid, qp->dev->gid, 16);
	snd.state = NIC_SEND_OUT;
	fx_eng->send = &snd;
	nic_comp_recv(fx_eng, qp->dev, &ack);
}

static void answer(int status, uint8_t rnr_timer)
{
	answer_psn(snd.psn, status, rnr_timer);
}

static const struct efa_io_rx_cdesc_ex *send_cqe(unsigned int n, int status)
{
	const struct efa_io_rx_cdesc_ex *e;

	ck_assert_uint_eq(fx_ncqes(qp, false), n + 1);
	e = fx_cqe(qp, false, n);
	ck_assert_uint_eq(e->base.common.status, status);
	ck_assert_uint_eq(e->base.common.req_id, 42);
	ck_assert_uint_eq(e->base.common.qp_num, qp->qpn);
	ck_assert_uint_eq((e->base.common.flags &
			   EFA_IO_CDESC_COMMON_Q_TYPE_MASK) >>
			  EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT, EFA_IO_SEND_QUEUE);
	return e;
}

START_TEST(ack_retires)
{
	answer(EFA_IO_COMP_STATUS_OK, 0);
	ck_assert_int_eq(snd.state, NIC_SEND_RETIRED);
	ck_assert_ptr_null(fx_eng->send);
	ck_assert_uint_eq(fx_cqe_op(send_cqe(0, EFA_IO_COMP_STATUS_OK)),
			  EFA_IO_SEND);
	ck_assert_uint_eq(qp->cnt.errors, 0);
}
END_TEST

START_TEST(ack_unsignaled)
{
	wqe.meta.ctrl2 &= ~EFA_IO_TX_META_DESC_COMP_REQ;
	answer(EFA_IO_COMP_STATUS_OK, 0);
	ck_assert_int_eq(snd.state, NIC_SEND_RETIRED);
	ck_assert_uint_eq(fx_ncqes(qp, false), 0);
}
END_TEST

/* A NAK's status is the completion's, signaled or not. */
START_TEST(nak_status)
{
	wqe.meta.ctrl2 &= ~EFA_IO_TX_META_DESC_COMP_REQ;
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN, 0);
	send_cqe(0, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN);
	ck_assert_uint_eq(qp->cnt.errors, 1);
	ck_assert_uint_eq(qp->dev->cnt.errors, 1);
}
END_TEST

/* Rule @text in a fault table of the fixture's daemon. */
static void fault_rule(const char *text)
{
	unsigned int id;
	char why[128];

	ck_assert_int_eq(sefa_faults_new(fx_d.ndev, &fx_d.faults), 0);
	ck_assert_int_eq(sefa_fault_add(fx_d.faults, text, &id, why,
					sizeof(why)), 0);
}

static void fault_done(void)
{
	sefa_faults_free(fx_d.faults);
	fx_d.faults = NULL;
}

/*
 * A status= rule: the WQE that succeeded completes with the rule's status
 * (what libefa reports as IBV_WC_REM_ACCESS_ERR); an SRD QP goes on.
 */
START_TEST(srd_status_fault)
{
	int state = qp->state;

	fault_rule("status=rem-access op=send");
	answer(EFA_IO_COMP_STATUS_OK, 0);
	send_cqe(0, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
	ck_assert_uint_eq(qp->cnt.errors, 1);
	ck_assert_int_eq(qp->state, state);
	fault_done();
}
END_TEST

/* Only the WQE on the wire takes an answer. */
START_TEST(stale_answer)
{
	answer_psn(snd.psn + 1, EFA_IO_COMP_STATUS_OK, 0);
	ck_assert_int_eq(snd.state, NIC_SEND_OUT);
	ck_assert_ptr_eq(fx_eng->send, &snd);
	ck_assert_uint_eq(fx_ncqes(qp, false), 0);
}
END_TEST

START_TEST(rdma_counted)
{
	wqe = fx_wqe(EFA_IO_RDMA_WRITE, 42);
	wqe.data.rdma_req.remote_mem.length = 300;
	answer(EFA_IO_COMP_STATUS_OK, 0);
	ck_assert_uint_eq(qp->cnt.rdma_writes, 1);
	ck_assert_uint_eq(qp->cnt.tx_bytes, 300);
	wqe = fx_wqe(EFA_IO_RDMA_READ, 42);
	wqe.data.rdma_req.remote_mem.length = 200;
	answer(EFA_IO_COMP_STATUS_OK, 0);
	ck_assert_uint_eq(qp->dev->cnt.rdma_reads, 1);
	ck_assert_uint_eq(qp->dev->cnt.rx_bytes, 200);
	/* a failed RDMA counts as an error only */
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS, 0);
	ck_assert_uint_eq(qp->cnt.rdma_reads, 1);
}
END_TEST

/* An SRD send on its QP's list, as the NIC keeps one that waits. */
static struct sefa_pending *keep_pending(void)
{
	struct sefa_pending *p = calloc(1, sizeof(*p));

	ck_assert_ptr_nonnull(p);
	p->wqe = wqe;
	qp->comp.pending = p;
	qp->comp.npending = 1;
	snd.retry = p;
	snd.wqe = &p->wqe;
	return p;
}

/* SRD's first RNR: the WQE waits 1 ms on the pending list. */
START_TEST(srd_rnr_first)
{
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 0);
	ck_assert_int_eq(snd.state, NIC_SEND_RNR);
	ck_assert_uint_eq(fx_ncqes(qp, false), 0);
	ck_assert_uint_eq(qp->cnt.rnr_retries, 1);
	ck_assert_ptr_nonnull(qp->comp.pending);
	ck_assert_ptr_null(qp->comp.pending->next);
	ck_assert_uint_eq(qp->comp.pending->due_ns, fx_eng->now + 1 * MS);
	ck_assert_uint_eq(qp->comp.pending->wqe.meta.req_id, 42);
}
END_TEST

/* Each later wait is 8 times the last, up to 64 ms. */
START_TEST(srd_rnr_waits)
{
	static const uint64_t wait_ms[] = { 8, 64, 64, 64 };
	struct sefa_pending *p = keep_pending();
	unsigned int i;

	for (i = 0; i < 4; i++) {
		snd.rnr_done = i + 1;
		answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 0);
		ck_assert_int_eq(snd.state, NIC_SEND_RNR);
		ck_assert_uint_eq(p->due_ns, fx_eng->now + wait_ms[i] * MS);
	}
	/* the entry it had waits on: no second one */
	ck_assert_ptr_eq(qp->comp.pending, p);
	ck_assert_ptr_null(p->next);
}
END_TEST

/* rnr_retry retries, then vendor error 10; 0 retries none. */
START_TEST(srd_rnr_exhausted)
{
	qp->rnr_retry = 3;
	keep_pending();
	snd.rnr_done = 2;
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 0);
	ck_assert_int_eq(snd.state, NIC_SEND_RNR);
	snd.rnr_done = 3;
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 0);
	ck_assert_int_eq(snd.state, NIC_SEND_RETIRED);
	send_cqe(0, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
	ck_assert_uint_eq(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 10);
	/* retired: its entry is gone */
	ck_assert_ptr_null(qp->comp.pending);
	ck_assert_ptr_null(snd.retry);

	qp->rnr_retry = 0;
	snd.wqe = &wqe;
	snd.rnr_done = 0;
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 0);
	send_cqe(1, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
	ck_assert_ptr_null(qp->comp.pending);
	ck_assert_uint_eq(qp->cnt.rnr_retries, 3);
	/* each RNR error completion counted apart from other errors */
	ck_assert_uint_eq(qp->cnt.rnr_errors, 2);
	ck_assert_uint_eq(qp->cnt.errors, 2);
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS, 0);
	ck_assert_uint_eq(qp->cnt.errors, 3);
	ck_assert_uint_eq(qp->cnt.rnr_errors, 2);
}
END_TEST

/* RC's head waits as long as the receiver's min_rnr_timer says. */
START_TEST(rc_rnr_waits)
{
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 14);
	ck_assert_int_eq(snd.state, NIC_SEND_RNR);
	ck_assert_uint_eq(qp->comp.rnr_due_ns, fx_eng->now + 1280 * 1000ULL);
	ck_assert_uint_eq(qp->req.sq_ci, 0);
	ck_assert_ptr_null(qp->comp.pending);
	/* rnr_retry 7 never runs out, nor counts */
	ck_assert_uint_eq(qp->comp.rnr_tries, 0);

	qp->rnr_retry = 1;
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 0);
	ck_assert_uint_eq(qp->comp.rnr_tries, 1);
	ck_assert_uint_eq(qp->comp.rnr_due_ns, fx_eng->now + 655360 * 1000ULL);
	snd.rnr_done = 1;
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 0);
	ck_assert_int_eq(snd.state, NIC_SEND_RETIRED);
	send_cqe(0, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
	ck_assert_int_eq(qp->state, IBV_QPS_ERR);
}
END_TEST

/*
 * The completer counts a head done in its own part; the requester moves
 * the SQ past it when it runs, and past it once.
 */
static void head_passed(void)
{
	ck_assert_uint_eq(qp->req.sq_ci, 0);
	ck_assert_uint_eq(qp->comp.heads_done, 1);
	ck_assert_uint_eq(nic_req_sq(fx_eng, qp), 0);
	ck_assert_uint_eq(qp->req.sq_ci, 1);
	ck_assert_uint_eq(nic_req_sq(fx_eng, qp), 0);
	ck_assert_uint_eq(qp->req.sq_ci, 1);
}

/* RC retires its head: the SQ and its PSN move on. */
START_TEST(rc_ack_moves_head)
{
	uint32_t psn = qp->req.sq_psn;

	fx_post_send(qp, &wqe);
	qp->comp.rnr_due_ns = 5;
	qp->comp.rnr_tries = 2;
	answer(EFA_IO_COMP_STATUS_OK, 0);
	head_passed();
	ck_assert_uint_eq(qp->req.sq_psn, (psn + 1) & 0xffffff);
	ck_assert_uint_eq(qp->comp.rnr_due_ns, 0);
	ck_assert_uint_eq(qp->comp.rnr_tries, 0);
	ck_assert_int_eq(qp->state, IBV_QPS_RTS);
}
END_TEST

/*
 * A local operation (a UMR) retires at the head without a packet: the
 * receiver's expected PSN did not move, so the next packet keeps this one.
 */
START_TEST(rc_local_op_keeps_psn)
{
	uint32_t psn = qp->req.sq_psn;

	fx_post_send(qp, &wqe);
	snd.no_packet = true;
	nic_comp_retire(&snd, EFA_IO_COMP_STATUS_OK);
	head_passed();
	ck_assert_uint_eq(qp->req.sq_psn, psn);
	send_cqe(0, EFA_IO_COMP_STATUS_OK);
	ck_assert_int_eq(qp->state, IBV_QPS_RTS);
}
END_TEST

/* An RC error fails the QP: its receives complete flushed after it. */
START_TEST(rc_error_flushes)
{
	static uint8_t buf[64];
	struct sefa_mr *mr = fx_mr(qp->pd, buf, sizeof(buf),
				   IBV_ACCESS_LOCAL_WRITE);

	fx_post_recv(qp, buf, sizeof(buf), mr->lkey, 9);
	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS, 0);
	ck_assert_int_eq(qp->state, IBV_QPS_ERR);
	send_cqe(0, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
	ck_assert_uint_eq(fx_ncqes(qp, true), 1);
	ck_assert_uint_eq(fx_cqe(qp, true, 0)->base.common.req_id, 9);
	ck_assert_uint_eq(fx_cqe(qp, true, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_FLUSHED);
}
END_TEST

/* A status= rule on RC: the forced error takes the QP to error. */
START_TEST(rc_status_fault)
{
	fault_rule("status=retry-exc");
	answer(EFA_IO_COMP_STATUS_OK, 0);
	send_cqe(0, SEFA_IO_COMP_STATUS_REMOTE_ERROR_RETRY_EXC);
	ck_assert_int_eq(qp->state, IBV_QPS_ERR);
	fault_done();
}
END_TEST

/* A flush completes the waiting sends, then the receives. */
START_TEST(srd_flush)
{
	static uint8_t buf[64];
	struct sefa_mr *mr = fx_mr(qp->pd, buf, sizeof(buf),
				   IBV_ACCESS_LOCAL_WRITE);

	answer(EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 0);
	fx_post_recv(qp, buf, sizeof(buf), mr->lkey, 9);
	nic_comp_flush(qp);
	ck_assert_ptr_null(qp->comp.pending);
	send_cqe(0, EFA_IO_COMP_STATUS_FLUSHED);
	ck_assert_uint_eq(fx_cqe(qp, true, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_FLUSHED);
}
END_TEST

static Suite *comp_suite(void)
{
	Suite *s = suite_create("nic completer");
	TCase *srd = tcase_create("srd");
	TCase *rc = tcase_create("rc");

	tcase_add_checked_fixture(srd, setup_srd, fx_teardown);
	tcase_add_test(srd, ack_retires);
	tcase_add_test(srd, ack_unsignaled);
	tcase_add_test(srd, nak_status);
	tcase_add_test(srd, srd_status_fault);
	tcase_add_test(srd, stale_answer);
	tcase_add_test(srd, rdma_counted);
	tcase_add_test(srd, srd_rnr_first);
	tcase_add_test(srd, srd_rnr_waits);
	tcase_add_test(srd, srd_rnr_exhausted);
	tcase_add_test(srd, srd_flush);
	suite_add_tcase(s, srd);

	tcase_add_checked_fixture(rc, setup_rc, fx_teardown);
	tcase_add_test(rc, rc_rnr_waits);
	tcase_add_test(rc, rc_ack_moves_head);
	tcase_add_test(rc, rc_local_op_keeps_psn);
	tcase_add_test(rc, rc_error_flushes);
	tcase_add_test(rc, rc_status_fault);
	suite_add_tcase(s, rc);
	return s;
}

SEFA_CHECK_MAIN(comp_suite)
