// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one-host path under faults on demand: one engine serving both
 * devices, the packets between them judged by a stand-in for the fault
 * engine that loses, doubles or holds them back as told.  SRD must stay
 * exactly-once and deliver what was sent intact, a packet held back must
 * wait for its time, and a peer nothing reaches must end in the status
 * EFA gives for an unreachable one.  A port that is down loses what it
 * sends and what comes to it.
 */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "nic_fixture.h"

#define LEN		64
#define MS		(1000 * 1000ULL)

static uint8_t src[4096], dst[4096];
static struct sefa_pd *pd0, *pd1;
static struct sefa_mr *mr0, *mr1;
static struct sefa_qp *qa, *qb;
static uint16_t ah_ab;

/* What the stand-in does to requests: the answers always pass. */
static struct {
	unsigned int drop_first;	/* lose the first this many */
	bool dup;
	uint64_t delay_ns;
	unsigned int seen;		/* requests judged */
} rule;

static bool rules_on;

static bool judge(struct sefa_daemon *d, const struct sefa_path_pkt *p,
		  struct sefa_path_verdict *v)
{
	(void)d;
	if (!rules_on || p->answer)
		return rules_on;
	ck_assert_ptr_eq(p->src, &fx_d.dev[0]);
	ck_assert_ptr_eq(p->dst, &fx_d.dev[1]);
	ck_assert_uint_eq(p->dqpn, qb->qpn);
	v->drop = rule.seen++ < rule.drop_first;
	v->dup = rule.dup;
	v->delay_ns = rule.delay_ns;
	return true;
}

static void setup(void)
{
	fx_setup();
	memset(&rule, 0, sizeof(rule));
	fx_eng->xmit = nic_wire_xmit;
	ck_assert_int_eq(nic_inbox_open(fx_eng), 0);
	fx_d.dev[0].engine = fx_eng;
	fx_d.dev[1].engine = fx_eng;
	fx_d.path_fault = judge;
	rules_on = true;
	memset(src, 0x5a, sizeof(src));
	memset(dst, 0, sizeof(dst));
	pd0 = fx_pd(0);
	pd1 = fx_pd(1);
	mr0 = fx_mr(pd0, src, sizeof(src), IBV_ACCESS_LOCAL_WRITE);
	mr1 = fx_mr(pd1, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE);
	qa = fx_qp(pd0, fx_cq(0), IBV_QPT_DRIVER);
	qb = fx_qp(pd1, fx_cq(1), IBV_QPT_DRIVER);
	ah_ab = fx_ah(pd0, 1);
	fx_ah(pd1, 0);
}

static void teardown(void)
{
	fx_d.dev[0].engine = NULL;
	fx_d.dev[1].engine = NULL;
	nic_inbox_close(fx_eng);
	fx_teardown();
}

/* An SRD send of LEN bytes from qa to a receive posted on qb. */
static void post_send(void)
{
	struct efa_io_tx_wqe_128 w = fx_wqe(EFA_IO_SEND, 3);

	fx_wqe_buf(&w, src, LEN, mr0->lkey);
	w.meta.ah = ah_ab;
	w.meta.dest_qp_num = qb->qpn;
	w.meta.qkey = FX_QKEY;
	fx_post_recv(qb, dst, LEN, mr1->lkey, 4);
	fx_post_send(qa, &w);
}

/* Passes @step_ns apart until qa's send completed, at most @max_ns on. */
static void run_until_sent(uint64_t step_ns, uint64_t max_ns)
{
	uint64_t end = fx_eng->now + max_ns;

	while (!fx_ncqes(qa, false) && fx_eng->now < end) {
		nic_engine_run(fx_eng);
		fx_eng->now += step_ns;
	}
	ck_assert_uint_eq(fx_ncqes(qa, false), 1);
}

/* The receive came once, with the bytes sent, and the send completed OK. */
static void delivered_once(void)
{
	ck_assert_uint_eq(fx_ncqes(qb, true), 1);
	ck_assert_mem_eq(dst, src, LEN);
	ck_assert_uint_eq(fx_cqe(qa, false, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_OK);
}

/* A doubled request is delivered once and answered twice. */
START_TEST(dup_once)
{
	rule.dup = true;
	post_send();
	run_until_sent(1000, 10 * MS);
	delivered_once();
	ck_assert_uint_eq(qb->cnt.dup_drops, 1);
	ck_assert_uint_eq(rule.seen, 1);
}
END_TEST

/* A lost request is sent again on its timer and then delivered. */
START_TEST(lost_then_resent)
{
	rule.drop_first = 1;
	post_send();
	nic_engine_run(fx_eng);
	ck_assert_uint_eq(fx_ncqes(qb, true), 0);
	run_until_sent(MS, 1000 * MS);
	delivered_once();
	ck_assert_uint_eq(rule.seen, 2);
	ck_assert_uint_ge(qa->cnt.retransmits, 1);
}
END_TEST

/* A request held back arrives at its due time, not before. */
START_TEST(delayed)
{
	uint64_t t0 = fx_eng->now;

	rule.delay_ns = 3 * MS;
	post_send();
	nic_engine_run(fx_eng);
	ck_assert_uint_eq(nic_inbox_next_due(fx_eng), t0 + 3 * MS);
	fx_eng->now = t0 + 3 * MS - 1;
	nic_engine_run(fx_eng);
	ck_assert_uint_eq(fx_ncqes(qb, true), 0);
	fx_eng->now = t0 + 3 * MS;
	nic_engine_run(fx_eng);
	ck_assert_uint_eq(fx_ncqes(qb, true), 1);
	run_until_sent(1000, 10 * MS);
	delivered_once();
	ck_assert_uint_eq(nic_inbox_next_due(fx_eng), 0);
}
END_TEST

/* Nothing reaches the peer: after SRD's resends, an unreachable remote. */
START_TEST(blackholed)
{
	rule.drop_first = ~0U;
	post_send();
	run_until_sent(10 * MS, 60 * 1000 * MS);
	ck_assert_uint_eq(fx_ncqes(qb, true), 0);
	ck_assert_uint_eq(fx_cqe(qa, false, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_LOCAL_ERROR_UNREACH_REMOTE);
	ck_assert_uint_gt(rule.seen, 1);
}
END_TEST

/* A port that is down loses what comes to it, whatever the rules. */
START_TEST(port_down)
{
	rules_on = false;
	atomic_store(&fx_d.dev[1].port_down, true);
	post_send();
	run_until_sent(10 * MS, 60 * 1000 * MS);
	ck_assert_uint_eq(fx_ncqes(qb, true), 0);
	ck_assert_uint_eq(fx_cqe(qa, false, 0)->base.common.status,
			  EFA_IO_COMP_STATUS_LOCAL_ERROR_UNREACH_REMOTE);
	ck_assert_uint_eq(rule.seen, 0);
}
END_TEST

static Suite *path_suite(void)
{
	Suite *s = suite_create("nic one-host path faults");
	TCase *t = tcase_create("path");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, dup_once);
	tcase_add_test(t, lost_then_resent);
	tcase_add_test(t, delayed);
	tcase_add_test(t, blackholed);
	tcase_add_test(t, port_down);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(path_suite)
