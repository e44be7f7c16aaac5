// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The requester, fed WQEs through a send queue ring and its doorbell: the
 * packet it puts on a stub wire, what it completes itself, and what it
 * keeps to send again.
 */
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "nic_fixture.h"

#define LEN	100
#define MS	(1000 * 1000ULL)

static uint8_t buf[4096];
static struct sefa_pd *pd;
static struct sefa_mr *mr;
static struct sefa_cq *cq;

static void setup(void)
{
	fx_setup();
	pd = fx_pd(0);
	mr = fx_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	cq = fx_cq(0);
}

/* A send of buf's first LEN bytes to QP 0x1234 of device 1, by an AH. */
static struct efa_io_tx_wqe_128 send_wqe(uint16_t ahn)
{
	struct efa_io_tx_wqe_128 w = fx_wqe(EFA_IO_SEND, 5);

	fx_wqe_buf(&w, buf, LEN, mr->lkey);
	w.meta.ah = ahn;
	w.meta.dest_qp_num = 0x1234;
	w.meta.qkey = FX_QKEY;
	return w;
}

static const struct efa_io_rx_cdesc_ex *send_cqe(const struct sefa_qp *qp,
						 unsigned int n, int status)
{
	const struct efa_io_rx_cdesc_ex *e;

	ck_assert_uint_eq(fx_ncqes(qp, false), n + 1);
	e = fx_cqe(qp, false, n);
	ck_assert_uint_eq(e->base.common.status, status);
	ck_assert_uint_eq(e->base.common.qp_num, qp->qpn);
	return e;
}

/* One WQE through the SQ: the work the requester counts. */
static unsigned int post_run(struct sefa_qp *qp, const struct efa_io_tx_wqe_128 *w)
{
	fx_post_send(qp, w);
	return nic_req_sq(fx_eng, qp);
}

START_TEST(srd_send_packet)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_DRIVER);
	struct efa_io_tx_wqe_128 w = send_wqe(fx_ah(pd, 1));
	const struct sefa_pkt *p = &fx_pkt[0];
	uint32_t psn = qp->req.sq_psn;

	w.meta.ctrl1 |= EFA_IO_TX_META_DESC_HAS_IMM;
	w.meta.immediate_data = 0xfeed;
	fx_answer = EFA_IO_COMP_STATUS_OK;
	ck_assert_uint_eq(post_run(qp, &w), 1);

	/* the request, then the stub's ACK */
	ck_assert_uint_eq(fx_npkts, 2);
	ck_assert_uint_eq(p->op, SEFA_PKT_SEND);
	ck_assert_uint_eq(p->qpt, IBV_QPT_DRIVER);
	ck_assert_mem_eq(p->sgid, fx_d.dev[0].gid, 16);
	ck_assert_mem_eq(p->dgid, fx_d.dev[1].gid, 16);
	ck_assert_uint_eq(p->dlid, 0);
	ck_assert_uint_eq(p->sqpn, qp->qpn);
	ck_assert_uint_eq(p->dqpn, 0x1234);
	ck_assert_uint_eq(p->qkey, FX_QKEY);
	/* each datagram packet has its own PSN */
	ck_assert_uint_eq(p->psn, psn);
	ck_assert_uint_eq(qp->req.sq_psn, psn + 1);
	ck_assert_uint_eq(p->lwm, psn);
	ck_assert_uint_eq(p->len, LEN);
	ck_assert_uint_eq(p->flags,
			  SEFA_PKT_IMM | SEFA_PKT_FIRST | SEFA_PKT_LAST);
	ck_assert_uint_eq(p->imm, 0xfeed);
	ck_assert_ptr_null(p->data);
	/* the short local path: the requester's own memory */
	ck_assert_uint_eq(p->segs.n, 1);
	ck_assert_int_eq(p->segs.seg[0].mm->pid, getpid());
	ck_assert_uint_eq(p->segs.seg[0].addr, (uintptr_t)buf);
	ck_assert_uint_eq(p->segs.seg[0].len, LEN);
	ck_assert_uint_eq(fx_pkt[1].op, SEFA_PKT_ACK);

	ck_assert_uint_eq(send_cqe(qp, 0, EFA_IO_COMP_STATUS_OK)->base.common.req_id,
			  5);
	ck_assert_uint_eq(qp->req.sq_ci, 1);
	ck_assert_uint_eq(qp->cnt.tx_pkts, 1);
	ck_assert_uint_eq(qp->dev->cnt.tx_bytes, LEN);
}
END_TEST

START_TEST(inline_bytes)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_DRIVER);
	struct efa_io_tx_wqe_128 w = send_wqe(fx_ah(pd, 1));

	fx_wqe_inline(&w, "inline!", 7);
	fx_answer = EFA_IO_COMP_STATUS_OK;
	post_run(qp, &w);
	ck_assert_ptr_nonnull(fx_pkt[0].data);
	ck_assert_uint_eq(fx_pkt[0].len, 7);
	ck_assert_mem_eq(fx_pkt_data[0], "inline!", 7);
	send_cqe(qp, 0, EFA_IO_COMP_STATUS_OK);
}
END_TEST

/*
 * SENDs rung together: their payloads are read ahead and go as bytes, up
 * to the first WQE that is not one to read ahead (a bad key here), which
 * and what follows it take the usual way.
 */
START_TEST(sends_read_ahead)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_DRIVER);
	static const unsigned int at[] = { 0, 200, 400, 600 };
	unsigned int i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(i * 13 + 1);
	fx_answer = EFA_IO_COMP_STATUS_OK;
	for (i = 0; i < 4; i++) {
		struct efa_io_tx_wqe_128 w = send_wqe(fx_ah(pd, 1));

		fx_wqe_buf(&w, buf + at[i], LEN, i == 2 ? 0xdead : mr->lkey);
		fx_post_send(qp, &w);
	}
	ck_assert_uint_eq(nic_req_sq(fx_eng, qp), 4);

	/* the requests, each followed by its answer; the third refused */
	ck_assert_uint_eq(fx_npkts, 6);
	for (i = 0; i < 2; i++) {
		ck_assert_ptr_nonnull(fx_pkt[2 * i].data);
		ck_assert_uint_eq(fx_pkt[2 * i].len, LEN);
		ck_assert_mem_eq(fx_pkt_data[2 * i], buf + at[i], LEN);
	}
	ck_assert_ptr_null(fx_pkt[4].data);
	ck_assert_uint_eq(fx_pkt[4].len, LEN);
	ck_assert_uint_eq(fx_pkt[4].segs.seg[0].addr, (uintptr_t)(buf + at[3]));
	send_cqe(qp, 3, EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(fx_cqe(qp, false, 2)->base.common.status,
			  EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY);
}
END_TEST

/* UD: nobody answers, and the send completes once on the wire. */
START_TEST(ud_unanswered)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_UD);
	struct efa_io_tx_wqe_128 w = send_wqe(fx_ah(pd, 1));

	post_run(qp, &w);
	ck_assert_uint_eq(fx_npkts, 1);
	ck_assert_uint_eq(fx_pkt[0].qpt, IBV_QPT_UD);
	send_cqe(qp, 0, EFA_IO_COMP_STATUS_OK);
	ck_assert_ptr_null(fx_eng->send);
}
END_TEST

/* What fails the requester's own checks never reaches the wire. */
START_TEST(local_errors)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_DRIVER);
	uint16_t ahn = fx_ah(pd, 1);
	struct efa_io_tx_wqe_128 w = send_wqe(ahn);

	w.data.sgl[0].lkey = mr->lkey + 1;
	post_run(qp, &w);
	send_cqe(qp, 0, EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY);

	w = send_wqe(ahn);
	w.meta.ctrl1 |= EFA_IO_TX_META_DESC_INLINE_MSG;
	w.meta.length = EFA_IO_TX_DESC_INLINE_MAX_SIZE + 1;
	post_run(qp, &w);
	send_cqe(qp, 1, EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH);

	w = send_wqe(ahn);
	w.meta.ctrl2 &= ~EFA_IO_TX_META_DESC_LAST;
	post_run(qp, &w);
	send_cqe(qp, 2, EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR);

	w = send_wqe(ahn);
	w.meta.ctrl1 = (w.meta.ctrl1 & ~EFA_IO_TX_META_DESC_OP_TYPE_MASK) | 5;
	post_run(qp, &w);
	send_cqe(qp, 3, EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE);

	ck_assert_uint_eq(fx_npkts, 0);
	ck_assert_uint_eq(qp->cnt.tx_pkts, 0);
	ck_assert_uint_eq(qp->cnt.errors, 4);
}
END_TEST

/* A bad AH is found as the packet leaves: it counts as sent. */
START_TEST(bad_ah)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_UD);
	struct efa_io_tx_wqe_128 w = send_wqe(7);

	post_run(qp, &w);
	send_cqe(qp, 0, EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_AH);
	ck_assert_uint_eq(fx_npkts, 0);
	ck_assert_uint_eq(qp->cnt.tx_pkts, 1);
}
END_TEST

START_TEST(rdma_packets)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_DRIVER);
	struct efa_io_tx_wqe_128 w = fx_wqe(EFA_IO_RDMA_WRITE, 6);
	struct efa_io_remote_mem_addr *rm = &w.data.rdma_req.remote_mem;

	fx_wqe_buf(&w, buf, LEN, mr->lkey);
	w.meta.ah = fx_ah(pd, 1);
	w.meta.dest_qp_num = 0x1234;
	w.meta.qkey = FX_QKEY;
	rm->length = LEN / 2;
	rm->rkey = 0x777;
	rm->buf_addr_lo = 0x1000;
	rm->buf_addr_hi = 0x2;
	fx_answer = EFA_IO_COMP_STATUS_OK;
	post_run(qp, &w);
	ck_assert_uint_eq(fx_pkt[0].op, SEFA_PKT_WRITE);
	ck_assert_uint_eq(fx_pkt[0].len, LEN / 2);
	ck_assert_uint_eq(fx_pkt[0].rkey, 0x777);
	ck_assert_uint_eq(fx_pkt[0].raddr, 0x200001000ULL);
	ck_assert_uint_eq(fx_pkt[0].segs.seg[0].len, LEN);
	ck_assert_uint_eq(qp->cnt.rdma_writes, 1);
	ck_assert_uint_eq(qp->cnt.tx_pkts, 0);

	/* longer than the local buffer */
	rm->length = LEN + 1;
	post_run(qp, &w);
	send_cqe(qp, 1, EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH);
	/* a read writes the local buffer: its key must allow it */
	w.meta.ctrl1 = (w.meta.ctrl1 & ~EFA_IO_TX_META_DESC_OP_TYPE_MASK) |
		       EFA_IO_RDMA_READ;
	rm->length = LEN;
	w.data.rdma_req.local_mem[0].lkey =
		fx_mr(pd, buf, sizeof(buf), 0)->lkey;
	post_run(qp, &w);
	send_cqe(qp, 2, EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY);
	ck_assert_uint_eq(fx_npkts, 2);
}
END_TEST

/* An RDMA write of @len inline bytes, "0123..." */
static struct efa_io_tx_wqe_128 inline_write(uint16_t len)
{
	struct efa_io_tx_wqe_128 w = fx_wqe(EFA_IO_RDMA_WRITE, 7);
	uint16_t i;

	w.meta.ah = fx_ah(pd, 1);
	w.meta.dest_qp_num = 0x1234;
	w.meta.qkey = FX_QKEY;
	w.meta.ctrl1 |= EFA_IO_TX_META_DESC_INLINE_MSG;
	w.meta.length = len;
	w.data.rdma_req.remote_mem.length = len;
	w.data.rdma_req.remote_mem.rkey = 0x777;
	for (i = 0; i < len && i < sizeof(w.data.rdma_req.inline_data); i++)
		w.data.rdma_req.inline_data[i] = '0' + i % 10;
	return w;
}

/*
 * 128-byte WQEs, one after the other in the ring: inline RDMA writes of
 * up to 80 bytes carry their bytes, and a SEND up to 80 inline too.
 */
START_TEST(wqe_128_inline)
{
	struct sefa_qp *qp = fx_qp_ex(pd, cq, IBV_QPT_DRIVER,
				      EFA_IO_TX_WQE_128_SIZE, 0);
	struct efa_io_tx_wqe_128 w;
	uint16_t lens[] = { 1, 33, 64, 80 };
	uint8_t want[80];
	unsigned int i;

	ck_assert_uint_eq(qp->sq_wqe_size, 128);
	for (i = 0; i < 80; i++)
		want[i] = '0' + i % 10;
	fx_answer = EFA_IO_COMP_STATUS_OK;
	for (i = 0; i < 4; i++) {
		fx_npkts = 0;
		w = inline_write(lens[i]);
		post_run(qp, &w);
		ck_assert_uint_eq(fx_pkt[0].op, SEFA_PKT_WRITE);
		ck_assert_uint_eq(fx_pkt[0].len, lens[i]);
		ck_assert_uint_eq(fx_pkt[0].rkey, 0x777);
		ck_assert_mem_eq(fx_pkt_data[0], want, lens[i]);
		send_cqe(qp, i, EFA_IO_COMP_STATUS_OK);
	}
	fx_npkts = 0;
	w = send_wqe(fx_ah(pd, 1));
	fx_wqe_inline(&w, want, 80);
	post_run(qp, &w);
	ck_assert_uint_eq(fx_pkt[0].len, 80);
	ck_assert_mem_eq(fx_pkt_data[0], want, 80);
	send_cqe(qp, 4, EFA_IO_COMP_STATUS_OK);
}
END_TEST

/*
 * What a WQE claims beyond its slot completes in error and sends nothing:
 * an inline write in a 64-byte WQE, more inline bytes than the slot
 * holds, lengths that disagree, an inline read.
 */
START_TEST(wqe_claims_refused)
{
	struct sefa_qp *q64 = fx_qp(pd, cq, IBV_QPT_DRIVER);
	struct sefa_qp *q128 = fx_qp_ex(pd, fx_cq(0), IBV_QPT_DRIVER,
					EFA_IO_TX_WQE_128_SIZE, 0);
	struct efa_io_tx_wqe_128 w = inline_write(16);

	post_run(q64, &w);
	send_cqe(q64, 0, EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE);
	w = send_wqe(fx_ah(pd, 1));
	fx_wqe_inline(&w, "x", 1);
	w.meta.length = 33;
	post_run(q64, &w);
	send_cqe(q64, 1, EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH);

	w = inline_write(80);
	w.meta.length = 81;
	w.data.rdma_req.remote_mem.length = 81;
	post_run(q128, &w);
	send_cqe(q128, 0, EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH);
	w = inline_write(40);
	w.data.rdma_req.remote_mem.length = 4096;
	post_run(q128, &w);
	send_cqe(q128, 1, EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH);
	w = inline_write(8);
	w.meta.ctrl1 = (w.meta.ctrl1 & ~EFA_IO_TX_META_DESC_OP_TYPE_MASK) |
		       EFA_IO_RDMA_READ;
	post_run(q128, &w);
	send_cqe(q128, 2, EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE);
	ck_assert_uint_eq(fx_npkts, 0);
	ck_assert_uint_eq(q128->req.wqe_refused, 3);
}
END_TEST

/* An SRD send the receiver was not ready for waits, then goes again. */
START_TEST(srd_retry)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_DRIVER);
	struct efa_io_tx_wqe_128 w = send_wqe(fx_ah(pd, 1));

	fx_answer = EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
	post_run(qp, &w);
	ck_assert_uint_eq(qp->req.sq_ci, 1);
	ck_assert_ptr_nonnull(qp->comp.pending);
	ck_assert_uint_eq(fx_ncqes(qp, false), 0);

	/* not due yet */
	fx_eng->now += 1 * MS - 1;
	ck_assert_uint_eq(nic_req_retry(fx_eng, qp), 0);
	ck_assert_uint_eq(fx_npkts, 2);

	fx_eng->now += 1;
	ck_assert_uint_eq(nic_req_retry(fx_eng, qp), 1);
	ck_assert_uint_eq(qp->comp.pending->retries, 1);
	ck_assert_uint_eq(qp->comp.pending->due_ns, fx_eng->now + 8 * MS);

	fx_eng->now += 8 * MS;
	fx_answer = EFA_IO_COMP_STATUS_OK;
	ck_assert_uint_eq(nic_req_retry(fx_eng, qp), 1);
	ck_assert_ptr_null(qp->comp.pending);
	send_cqe(qp, 0, EFA_IO_COMP_STATUS_OK);
	/* three packets and their answers; every try counts as sent */
	ck_assert_uint_eq(fx_npkts, 6);
	ck_assert_uint_eq(qp->cnt.tx_pkts, 3);
	ck_assert_uint_eq(qp->cnt.rnr_retries, 2);
	/* but it is one work request */
	ck_assert_uint_eq(qp->dev->cnt.send_wrs, 1);
	ck_assert_uint_eq(qp->dev->cnt.send_bytes, LEN);
}
END_TEST

/* The answer another host gives the packet of @psn. */
/* An ACK for @psn from device @from's GID, as the wire brings it. */
static void net_answer_from(struct sefa_qp *qp, uint32_t psn,
			    unsigned int from)
{
	struct sefa_pkt ack = {
		.op = SEFA_PKT_ACK, .qpt = qp->type, .flags = SEFA_PKT_NET,
		.dqpn = qp->qpn, .psn = psn,
	};

	memcpy(ack.sgid, fx_d.dev[from].gid, 16);
	nic_comp_recv(fx_eng, qp->dev, &ack);
}

/* from the device the sends went to, by their AH */
static void net_answer(struct sefa_qp *qp, uint32_t psn)
{
	net_answer_from(qp, psn, 1);
}

/*
 * SRD sends out to another host: one past its timeout waits while answers
 * come for those before it, goes again once one sent after it is answered,
 * and, with no answer at all for a timeout, goes again too.
 */
START_TEST(srd_timeout_behind_answers)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_DRIVER);
	struct efa_io_tx_wqe_128 w = send_wqe(fx_ah(pd, 1));
	uint64_t t0 = fx_eng->now, rto;
	unsigned int i;

	fx_answer = FX_NONE;
	for (i = 0; i < 3; i++) {
		fx_eng->now = t0 + i * 1000;
		post_run(qp, &w);
	}
	ck_assert_uint_eq(fx_npkts, 3);
	ck_assert_uint_eq(qp->comp.npending, 3);

	/* the first answered after 3 ms: the round trip is 3 ms; the same
	 * answer from a GID the send did not go to is a stranger's */
	fx_eng->now = t0 + 3 * MS;
	net_answer_from(qp, fx_pkt[0].psn, 0);
	ck_assert_uint_eq(fx_ncqes(qp, false), 0);
	ck_assert_uint_eq(fx_d.wire_cnt.drops[SEFA_DROP_NOT_PEER], 1);
	net_answer(qp, fx_pkt[0].psn);
	send_cqe(qp, 0, EFA_IO_COMP_STATUS_OK);

	/* past the others' 4 ms, but the responder is still answering */
	fx_eng->now = t0 + 5 * MS;
	ck_assert_uint_eq(nic_req_retry(fx_eng, qp), 0);
	ck_assert_uint_eq(fx_npkts, 3);

	/* the third answered: the second was lost, and goes again */
	net_answer(qp, fx_pkt[2].psn);
	ck_assert_uint_eq(nic_req_retry(fx_eng, qp), 1);
	ck_assert_uint_eq(fx_npkts, 4);
	ck_assert_uint_eq(fx_pkt[3].psn, fx_pkt[1].psn);
	ck_assert_uint_eq(qp->cnt.retransmits, 1);

	/* no answer since: after the resend's timeout, doubled, again */
	rto = 2 * (qp->comp.srtt_ns + 4 * qp->comp.rttvar_ns);
	fx_eng->now += rto - 1;
	ck_assert_uint_eq(nic_req_retry(fx_eng, qp), 0);
	fx_eng->now++;
	ck_assert_uint_eq(nic_req_retry(fx_eng, qp), 1);
	ck_assert_uint_eq(fx_npkts, 5);
	ck_assert_uint_eq(qp->cnt.retransmits, 2);
	ck_assert_uint_eq(qp->dev->cnt.retrans_bytes, 2 * LEN);
	ck_assert_uint_eq(qp->dev->cnt.retrans_timeout_events, 0);
	ck_assert_uint_eq(qp->dev->cnt.send_wrs, 3);
}
END_TEST

/* RC: the head waits on the ring, and nothing behind it moves. */
START_TEST(rc_head_waits)
{
	struct sefa_qp *a = fx_qp(pd, cq, IBV_QPT_RC);
	struct sefa_qp *b = fx_qp(fx_pd(1), fx_cq(1), IBV_QPT_RC);
	struct efa_io_tx_wqe_128 w = send_wqe(0);

	fx_rc_connect(a, b, true);
	fx_answer = EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
	fx_answer_rnr_timer = 1;
	fx_post_send(a, &w);
	ck_assert_uint_eq(post_run(a, &w), 0);
	ck_assert_uint_eq(fx_npkts, 2);
	ck_assert_uint_eq(fx_pkt[0].qpt, IBV_QPT_RC);
	ck_assert_uint_eq(fx_pkt[0].dlid, fx_d.dev[1].lid);
	ck_assert_uint_eq(fx_pkt[0].dqpn, b->qpn);
	ck_assert_uint_eq(a->req.sq_ci, 0);
	ck_assert_uint_eq(a->comp.rnr_due_ns, fx_eng->now + 10 * 1000);

	ck_assert_uint_eq(nic_req_sq(fx_eng, a), 0);
	ck_assert_uint_eq(fx_npkts, 2);

	fx_eng->now += 10 * 1000;
	fx_answer = EFA_IO_COMP_STATUS_OK;
	ck_assert_uint_eq(nic_req_sq(fx_eng, a), 2);
	ck_assert_uint_eq(a->req.sq_ci, 2);
	ck_assert_uint_eq(fx_pkt[4].psn, fx_pkt[2].psn + 1);
	send_cqe(a, 1, EFA_IO_COMP_STATUS_OK);
}
END_TEST

/* In error, every WQE completes flushed, none goes out. */
START_TEST(flushed_in_error)
{
	struct sefa_qp *qp = fx_qp(pd, cq, IBV_QPT_DRIVER);
	struct efa_io_tx_wqe_128 w = send_wqe(fx_ah(pd, 1));

	qp->state = IBV_QPS_ERR;
	post_run(qp, &w);
	send_cqe(qp, 0, EFA_IO_COMP_STATUS_FLUSHED);
	ck_assert_uint_eq(fx_npkts, 0);
}
END_TEST

static Suite *req_suite(void)
{
	Suite *s = suite_create("nic requester");
	TCase *t = tcase_create("req");

	tcase_add_checked_fixture(t, setup, fx_teardown);
	tcase_add_test(t, srd_send_packet);
	tcase_add_test(t, inline_bytes);
	tcase_add_test(t, sends_read_ahead);
	tcase_add_test(t, ud_unanswered);
	tcase_add_test(t, local_errors);
	tcase_add_test(t, bad_ah);
	tcase_add_test(t, rdma_packets);
	tcase_add_test(t, wqe_128_inline);
	tcase_add_test(t, wqe_claims_refused);
	tcase_add_test(t, srd_retry);
	tcase_add_test(t, srd_timeout_behind_answers);
	tcase_add_test(t, rc_head_waits);
	tcase_add_test(t, flushed_in_error);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(req_suite)
