// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire's routing on the short local path, with the real responder and
 * completer at either end: requests by GID or LID to the device that has
 * them, answers back to the requester's completer, silence or a NAK where
 * nobody is; and one engine pass carrying a send end to end.  Then the
 * path between two engines of one daemon (nic/inbox.c): device 1 with an
 * engine of its own, reached through its inbox while that engine is busy,
 * locked for the short path while it is idle.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "nic_fixture.h"

#define LEN	64

static uint8_t src[4096], dst[4096];
static struct sefa_pd *pd0, *pd1;
static struct sefa_mr *mr0, *mr1;
static struct efa_io_tx_wqe_128 wqe;
static struct nic_send snd;

static void setup(void)
{
	fx_setup();
	fx_eng->xmit = nic_wire_xmit;
	memset(src, 0x77, sizeof(src));
	memset(dst, 0, sizeof(dst));
	pd0 = fx_pd(0);
	pd1 = fx_pd(1);
	mr0 = fx_mr(pd0, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	mr1 = fx_mr(pd1, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE);
	wqe = fx_wqe(EFA_IO_SEND, 8);
}

/*
 * Put an inline send from @a to @b on the wire, as @a's requester would,
 * addressed by GID or by LID.
 */
static void xmit(struct sefa_qp *a, struct sefa_qp *b, bool by_lid)
{
	struct sefa_pkt pkt = fx_req(a, b, SEFA_PKT_SEND, 5);

	pkt.data = "wired";
	if (by_lid) {
		memset(pkt.dgid, 0, sizeof(pkt.dgid));
		pkt.dlid = b->dev->lid;
	}
	snd = (struct nic_send){
		.qp = a, .wqe = &wqe, .psn = a->req.sq_psn,
		.at_head = a->type == IBV_QPT_RC, .state = NIC_SEND_OUT,
	};
	fx_eng->send = &snd;
	nic_wire_xmit(fx_eng, &pkt);
}

static void send_done(const struct sefa_qp *a, int status)
{
	ck_assert_int_eq(snd.state, NIC_SEND_RETIRED);
	ck_assert_uint_eq(fx_ncqes(a, false), 1);
	ck_assert_uint_eq(fx_cqe(a, false, 0)->base.common.status, status);
}

/* By GID to device 1's responder; its ACK back to device 0's completer. */
START_TEST(by_gid)
{
	struct sefa_qp *a = fx_qp(pd0, fx_cq(0), IBV_QPT_DRIVER);
	struct sefa_qp *b = fx_qp(pd1, fx_cq(1), IBV_QPT_DRIVER);

	fx_post_recv(b, dst, LEN, mr1->lkey, 1);
	xmit(a, b, false);
	ck_assert_mem_eq(dst, "wired", 5);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	send_done(a, EFA_IO_COMP_STATUS_OK);
}
END_TEST

/* An RC path without a GRH: by LID. */
START_TEST(by_lid)
{
	struct sefa_qp *a = fx_qp(pd0, fx_cq(0), IBV_QPT_RC);
	struct sefa_qp *b = fx_qp(pd1, fx_cq(1), IBV_QPT_RC);

	fx_rc_connect(a, b, true);
	fx_post_recv(b, dst, LEN, mr1->lkey, 1);
	xmit(a, b, true);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	send_done(a, EFA_IO_COMP_STATUS_OK);
	/* the completer counted the head done; the requester moves past it */
	ck_assert_uint_eq(a->comp.heads_done, 1);
}
END_TEST

/* Nobody at the address: a reliable sender learns it at once. */
START_TEST(nobody_there)
{
	struct sefa_qp *a = fx_qp(pd0, fx_cq(0), IBV_QPT_DRIVER);
	struct sefa_qp *b = fx_qp(pd1, fx_cq(1), IBV_QPT_DRIVER);
	struct sefa_pkt pkt = fx_req(a, b, SEFA_PKT_SEND, 5);

	pkt.dgid[15] ^= 0xff;
	snd = (struct nic_send){
		.qp = a, .wqe = &wqe, .psn = a->req.sq_psn,
		.state = NIC_SEND_OUT,
	};
	fx_eng->send = &snd;
	nic_wire_xmit(fx_eng, &pkt);
	send_done(a, EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE);
}
END_TEST

/* UD to nobody, and an answer to nobody, are lost without a trace. */
START_TEST(lost)
{
	struct sefa_qp *a = fx_qp(pd0, fx_cq(0), IBV_QPT_UD);
	struct sefa_qp *b = fx_qp(pd1, fx_cq(1), IBV_QPT_UD);
	struct sefa_pkt pkt = fx_req(a, b, SEFA_PKT_SEND, 5);

	pkt.dgid[0] = 0;
	nic_wire_xmit(fx_eng, &pkt);
	pkt.qpt = IBV_QPT_DRIVER;
	pkt.op = SEFA_PKT_ACK;
	nic_wire_xmit(fx_eng, &pkt);
	ck_assert_uint_eq(fx_ncqes(a, false), 0);
	ck_assert_uint_eq(fx_ncqes(b, true), 0);
}
END_TEST

/* One pass of the engine: a posted SRD send, delivered and completed. */
START_TEST(engine_pass)
{
	struct sefa_qp *a = fx_qp(pd0, fx_cq(0), IBV_QPT_DRIVER);
	struct sefa_qp *b = fx_qp(pd1, fx_cq(1), IBV_QPT_DRIVER);
	struct efa_io_tx_wqe_128 w = fx_wqe(EFA_IO_SEND, 3);

	fx_ah(pd1, 0);
	fx_wqe_buf(&w, src, LEN, mr0->lkey);
	w.meta.ah = fx_ah(pd0, 1);
	w.meta.dest_qp_num = b->qpn;
	w.meta.qkey = FX_QKEY;
	fx_post_recv(b, dst, LEN, mr1->lkey, 4);
	fx_post_send(a, &w);
	ck_assert_uint_eq(nic_engine_pass(fx_eng), 1);
	ck_assert_mem_eq(dst, src, LEN);
	ck_assert_uint_eq(fx_cqe(b, true, 0)->base.common.req_id, 4);
	ck_assert_uint_eq(fx_cqe(a, false, 0)->base.common.req_id, 3);
	ck_assert_uint_eq(fx_cqe(a, false, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(nic_engine_pass(fx_eng), 0);
}
END_TEST

/* Device 1's own engine, beside fx_eng, which serves device 0 alone. */
static struct nic_engine *eng1;
static uint8_t big0[256 * 1024], big1[256 * 1024];

static void inbox_setup(void)
{
	setup();
	fx_eng->ndev = 1;
	eng1 = nic_engine_new(&fx_d);
	ck_assert_ptr_nonnull(eng1);
	eng1->first = 1;
	eng1->ndev = 1;
	eng1->now = fx_eng->now;
	ck_assert_int_eq(nic_inbox_open(fx_eng), 0);
	ck_assert_int_eq(nic_inbox_open(eng1), 0);
	fx_d.dev[0].engine = fx_eng;
	fx_d.dev[1].engine = eng1;
}

static void inbox_teardown(void)
{
	fx_d.dev[0].engine = NULL;
	fx_d.dev[1].engine = NULL;
	nic_inbox_close(fx_eng);
	nic_inbox_close(eng1);
	free(eng1);
	fx_teardown();
}

/*
 * A pass of @e as its thread makes one, under its device's lock; with
 * @busy, under the other device's too, as while the other engine is in a
 * pass of its own: then no device is locked for the short path, and all
 * goes by the inboxes.
 */
static unsigned int run(struct nic_engine *e, bool busy)
{
	struct sefa_device *own = &fx_d.dev[e->first];
	struct sefa_device *other = &fx_d.dev[1 - e->first];
	unsigned int work;

	pthread_mutex_lock(&own->lock);
	if (busy)
		pthread_mutex_lock(&other->lock);
	work = nic_engine_run(e);
	if (busy)
		pthread_mutex_unlock(&other->lock);
	pthread_mutex_unlock(&own->lock);
	return work;
}

/* Passes of both engines, busy, until neither finds work; the rounds. */
static unsigned int both_run(void)
{
	unsigned int rounds = 0;

	while (run(fx_eng, true) + run(eng1, true)) {
		rounds++;
		ck_assert_uint_lt(rounds, 10000);
	}
	return rounds;
}

/* An SRD QP on each device, and AHs between them (SRD RDMA needs both). */
static struct sefa_qp *qa, *qb;
static uint16_t ah_ab;

static struct efa_io_tx_wqe_128 across_wqe(unsigned int op, uint16_t req_id,
				       const void *buf, uint32_t len)
{
	struct efa_io_tx_wqe_128 w = fx_wqe(op, req_id);

	fx_wqe_buf(&w, buf, len, mr0->lkey);
	w.meta.ah = ah_ab;
	w.meta.dest_qp_num = qb->qpn;
	w.meta.qkey = FX_QKEY;
	return w;
}

static void across_qps(void)
{
	qa = fx_qp(pd0, fx_cq(0), IBV_QPT_DRIVER);
	qb = fx_qp(pd1, fx_cq(1), IBV_QPT_DRIVER);
	ah_ab = fx_ah(pd0, 1);
	fx_ah(pd1, 0);
}

/*
 * A send to a device of a busy engine lands only when that engine runs,
 * and completes at the sender only when the answer has come back: by the
 * inbox too, even with the sender's engine idle then, as the WQE waits
 * for an answer in a frame.
 */
START_TEST(inbox_send)
{
	struct efa_io_tx_wqe_128 w;

	across_qps();
	w = across_wqe(EFA_IO_SEND, 3, src, LEN);
	fx_post_recv(qb, dst, LEN, mr1->lkey, 4);
	fx_post_send(qa, &w);
	ck_assert_uint_eq(run(fx_eng, true), 1);
	ck_assert_uint_eq(dst[0], 0);
	ck_assert_uint_eq(fx_ncqes(qb, true), 0);

	ck_assert_uint_eq(run(eng1, false), 1);
	ck_assert_mem_eq(dst, src, LEN);
	ck_assert_uint_eq(fx_cqe(qb, true, 0)->base.common.req_id, 4);
	ck_assert_uint_eq(fx_ncqes(qa, false), 0);

	ck_assert_uint_eq(run(fx_eng, false), 1);
	ck_assert_uint_eq(fx_cqe(qa, false, 0)->base.common.req_id, 3);
	ck_assert_uint_eq(fx_cqe(qa, false, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(both_run(), 0);
	ck_assert_uint_eq(qa->dev->cnt.tx_pkts, 1);
	ck_assert_uint_eq(qb->dev->cnt.rx_pkts, 1);
}
END_TEST

/*
 * The other engine idle (its lock free) and its inbox empty: the sender
 * locks the device, and the send lands and completes in one pass.  With
 * a packet of before still in the inbox, the next one queues behind it.
 */
START_TEST(inbox_trylock)
{
	struct efa_io_tx_wqe_128 w;

	across_qps();
	fx_post_recv(qb, dst, LEN, mr1->lkey, 4);
	fx_post_recv(qb, dst + LEN, LEN, mr1->lkey, 5);
	fx_post_recv(qb, dst + 2 * LEN, LEN, mr1->lkey, 6);
	w = across_wqe(EFA_IO_SEND, 1, src, LEN);
	fx_post_send(qa, &w);
	ck_assert_uint_eq(run(fx_eng, false), 1);
	ck_assert_mem_eq(dst, src, LEN);
	ck_assert_uint_eq(fx_cqe(qa, false, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(qa->cnt.tx_pkts, 1);

	/* one queued while the other engine is busy, then one while idle */
	src[LEN] = 0xa1;
	w = across_wqe(EFA_IO_SEND, 2, src + LEN, LEN);
	fx_post_send(qa, &w);
	ck_assert_uint_eq(run(fx_eng, true), 1);
	src[2 * LEN] = 0xa2;
	w = across_wqe(EFA_IO_SEND, 3, src + 2 * LEN, LEN);
	fx_post_send(qa, &w);
	ck_assert_uint_eq(run(fx_eng, false), 1);
	ck_assert_uint_eq(fx_ncqes(qb, true), 1);

	both_run();
	ck_assert_uint_eq(fx_ncqes(qb, true), 3);
	ck_assert_uint_eq(fx_cqe(qb, true, 1)->base.common.req_id, 5);
	ck_assert_uint_eq(fx_cqe(qb, true, 2)->base.common.req_id, 6);
	ck_assert_uint_eq(dst[LEN], 0xa1);
	ck_assert_uint_eq(dst[2 * LEN], 0xa2);
	ck_assert_uint_eq(fx_ncqes(qa, false), 3);
}
END_TEST

/*
 * RDMA both ways across the engines, longer than a packet: a read of
 * device 1's memory, then a write back into it, whole and in order; and
 * 16 rounds of them, each emptying the queues it filled.
 */
START_TEST(inbox_rdma)
{
	uint32_t len = sizeof(big0) - 1234, i, round, rounds;
	struct sefa_mr *m0, *m1;
	struct efa_io_tx_wqe_128 w;

	across_qps();
	m0 = fx_mr(pd0, big0, sizeof(big0), IBV_ACCESS_LOCAL_WRITE);
	m1 = fx_mr(pd1, big1, sizeof(big1),
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_WRITE);
	for (round = 0; round < 16; round++) {
		bool write = round & 1;

		for (i = 0; i < sizeof(big1); i++) {
			big1[i] = write ? 0 : (uint8_t)(i * 7 + round);
			big0[i] = write ? (uint8_t)(i * 13 + round) : 0;
		}
		w = across_wqe(write ? EFA_IO_RDMA_WRITE : EFA_IO_RDMA_READ,
			       round, big0, len);
		w.data.rdma_req.local_mem[0].lkey = m0->lkey;
		w.data.rdma_req.remote_mem = (struct efa_io_remote_mem_addr){
			.length = len,
			.rkey = m1->lkey,
			.buf_addr_lo = (uint32_t)(uintptr_t)big1,
			.buf_addr_hi = (uint32_t)((uintptr_t)big1 >> 32),
		};
		fx_post_send(qa, &w);
		rounds = both_run();
		ck_assert_uint_eq(fx_ncqes(qa, false), round + 1);
		ck_assert_uint_eq(fx_cqe(qa, false, round)->base.common.status,
				  EFA_IO_COMP_STATUS_OK);
		ck_assert_mem_eq(big0, big1, len);
		ck_assert_uint_eq(write ? big1[len] : big0[len], 0);
		ck_assert_uint_gt(rounds, len / NIC_WIRE_CHUNK);
	}
	ck_assert_uint_eq(qa->cnt.rdma_reads, 8);
	ck_assert_uint_eq(qa->cnt.rdma_writes, 8);
	ck_assert_uint_eq(qa->cnt.retransmits, 0);
}
END_TEST

/*
 * The efa driver's port hw_counters across the engines, each on the side
 * that counts it: sends and receives, a read and a write with the bytes
 * the target gave or took, and a read the target refused.
 */
START_TEST(inbox_hw_counters)
{
	const struct sefa_counters *a, *b;
	struct efa_io_tx_wqe_128 w;
	struct sefa_mr *m1;
	unsigned int i, op;

	across_qps();
	a = &qa->dev->cnt;
	b = &qb->dev->cnt;
	for (i = 0; i < 3; i++) {
		fx_post_recv(qb, dst + i * LEN, LEN, mr1->lkey, i);
		w = across_wqe(EFA_IO_SEND, i, src, LEN - i);
		fx_post_send(qa, &w);
	}
	both_run();
	ck_assert_uint_eq(a->send_wrs, 3);
	ck_assert_uint_eq(a->send_bytes, 3 * LEN - 3);
	ck_assert_uint_eq(b->recv_wrs, 3);
	ck_assert_uint_eq(b->recv_bytes, 3 * LEN - 3);
	ck_assert_uint_eq(a->recv_wrs + b->send_wrs, 0);

	m1 = fx_mr(pd1, big1, sizeof(big1),
		   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
		   IBV_ACCESS_REMOTE_WRITE);
	for (i = 0; i < 3; i++) {
		op = i == 1 ? EFA_IO_RDMA_WRITE : EFA_IO_RDMA_READ;
		w = across_wqe(op, 10 + i, src, 1000);
		w.data.rdma_req.remote_mem = (struct efa_io_remote_mem_addr){
			.length = 1000,
			.rkey = i == 2 ? m1->lkey + 1 : m1->lkey,
			.buf_addr_lo = (uint32_t)(uintptr_t)big1,
			.buf_addr_hi = (uint32_t)((uintptr_t)big1 >> 32),
		};
		fx_post_send(qa, &w);
		both_run();
	}
	ck_assert_uint_eq(fx_cqe(qa, false, 5)->base.common.status,
			  EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
	ck_assert_uint_eq(a->rdma_reads, 1);
	ck_assert_uint_eq(a->rdma_read_bytes, 1000);
	ck_assert_uint_eq(a->rdma_writes, 1);
	ck_assert_uint_eq(a->rdma_write_bytes, 1000);
	ck_assert_uint_eq(a->rdma_read_wr_err, 1);
	ck_assert_uint_eq(a->rdma_write_wr_err, 0);
	ck_assert_uint_eq(b->rdma_read_resp_bytes, 1000);
	ck_assert_uint_eq(b->rdma_write_recv_bytes, 1000);
	ck_assert_uint_eq(a->rdma_read_resp_bytes + a->rdma_write_recv_bytes,
			  0);
	ck_assert_uint_eq(a->send_wrs, 3);
}
END_TEST

/* RC by LID, across the engines: in order, each answered. */
START_TEST(inbox_rc)
{
	struct sefa_qp *a = fx_qp(pd0, fx_cq(0), IBV_QPT_RC);
	struct sefa_qp *b = fx_qp(pd1, fx_cq(1), IBV_QPT_RC);
	struct efa_io_tx_wqe_128 w;
	unsigned int i;

	fx_rc_connect(a, b, true);
	for (i = 0; i < 4; i++) {
		fx_post_recv(b, dst + i * LEN, LEN, mr1->lkey, 10 + i);
		w = fx_wqe(EFA_IO_SEND, 20 + i);
		fx_wqe_buf(&w, src + i * LEN, LEN, mr0->lkey);
		src[i * LEN] = i;
		fx_post_send(a, &w);
	}
	both_run();
	ck_assert_uint_eq(fx_ncqes(b, true), 4);
	ck_assert_uint_eq(fx_ncqes(a, false), 4);
	for (i = 0; i < 4; i++) {
		ck_assert_uint_eq(fx_cqe(b, true, i)->base.common.req_id,
				  10 + i);
		ck_assert_uint_eq(fx_cqe(a, false, i)->base.common.status,
				  EFA_IO_COMP_STATUS_OK);
		ck_assert_uint_eq(dst[i * LEN], i);
	}
	ck_assert_mem_eq(dst, src, 4 * LEN);
}
END_TEST

/*
 * An RC SEND of two packets whose first went to a busy engine's inbox
 * goes on in frames when that engine is idle: one message, whole.
 */
START_TEST(inbox_continues)
{
	struct sefa_qp *a = fx_qp(pd0, fx_cq(0), IBV_QPT_RC);
	struct sefa_qp *b = fx_qp(pd1, fx_cq(1), IBV_QPT_RC);
	uint32_t len = 2 * NIC_WIRE_CHUNK - 500, i;
	struct sefa_mr *m0, *m1;
	struct efa_io_tx_wqe_128 w;
	unsigned int rounds = 0;

	for (i = 0; i < len; i++)
		big0[i] = (uint8_t)(i * 31);
	memset(big1, 0, sizeof(big1));
	m0 = fx_mr(pd0, big0, sizeof(big0), IBV_ACCESS_LOCAL_WRITE);
	m1 = fx_mr(pd1, big1, sizeof(big1), IBV_ACCESS_LOCAL_WRITE);
	fx_rc_connect(a, b, true);
	/* a receive buffer's length is 16 bits */
	fx_post_recv(b, big1, UINT16_MAX, m1->lkey, 7);
	w = fx_wqe(EFA_IO_SEND, 8);
	fx_wqe_buf(&w, big0, len, m0->lkey);
	fx_post_send(a, &w);
	run(fx_eng, true);
	ck_assert_uint_eq(a->cnt.tx_pkts, 1);
	ck_assert_uint_eq(fx_ncqes(b, true), 0);
	while (run(eng1, false) + run(fx_eng, false))
		ck_assert_uint_lt(++rounds, 100);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	ck_assert_uint_eq(fx_cqe(b, true, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(fx_cqe(b, true, 0)->base.length, (uint16_t)len);
	ck_assert_mem_eq(big1, big0, len);
	ck_assert_uint_eq(fx_ncqes(a, false), 1);
	ck_assert_uint_eq(fx_cqe(a, false, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_ge(rounds, 2);
}
END_TEST

static Suite *wire_suite(void)
{
	Suite *s = suite_create("nic wire");
	TCase *t = tcase_create("wire");
	TCase *in = tcase_create("inbox");

	tcase_add_checked_fixture(t, setup, fx_teardown);
	tcase_add_test(t, by_gid);
	tcase_add_test(t, by_lid);
	tcase_add_test(t, nobody_there);
	tcase_add_test(t, lost);
	tcase_add_test(t, engine_pass);
	suite_add_tcase(s, t);
	tcase_add_checked_fixture(in, inbox_setup, inbox_teardown);
	tcase_add_test(in, inbox_send);
	tcase_add_test(in, inbox_trylock);
	tcase_add_test(in, inbox_rdma);
	tcase_add_test(in, inbox_hw_counters);
	tcase_add_test(in, inbox_rc);
	tcase_add_test(in, inbox_continues);
	suite_add_tcase(s, in);
	return s;
}

SEFA_CHECK_MAIN(wire_suite)
