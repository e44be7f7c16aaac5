// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder's sequence checks on packets from another host (seq.c):
 * what comes twice is answered but delivered once, on SRD and UD by the
 * window of each sending QP, on RC by the PSN it expects; a packet ahead
 * of what RC expects is ignored; an RC message of several packets lands
 * whole in one receive.
 */
#include <string.h>

#include "check_main.h"
#include "nic_fixture.h"

static uint8_t dst[4096];
static struct sefa_pd *pd0, *pd1;
static struct sefa_mr *mr1;
static struct sefa_qp *a, *b;

static void setup(void)
{
	fx_setup();
	memset(dst, 0xee, sizeof(dst));
	pd0 = fx_pd(0);
	pd1 = fx_pd(1);
	mr1 = fx_mr(pd1, dst, sizeof(dst), IBV_ACCESS_LOCAL_WRITE);
}

static void pair(int type)
{
	a = fx_qp(pd0, fx_cq(0), type);
	b = fx_qp(pd1, fx_cq(1), type);
}

/* @data as a SEND from another host, with @psn and the sender's @lwm. */
static void net_send(const char *data, uint32_t psn, uint32_t lwm,
		     uint8_t flags)
{
	struct sefa_pkt pkt = fx_req(a, b, SEFA_PKT_SEND, strlen(data));

	pkt.flags = SEFA_PKT_NET | flags;
	pkt.data = data;
	pkt.psn = psn;
	pkt.lwm = lwm;
	nic_resp_recv(fx_eng, b->dev, &pkt);
}

#define WHOLE	(SEFA_PKT_FIRST | SEFA_PKT_LAST)

/* SRD: a resend is acknowledged again, delivered once. */
START_TEST(srd_twice_once)
{
	pair(IBV_QPT_DRIVER);
	fx_post_recv(b, dst, 64, mr1->lkey, 1);
	fx_post_recv(b, dst + 64, 64, mr1->lkey, 2);
	net_send("one", 100, 100, WHOLE);
	net_send("one", 100, 100, WHOLE);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	ck_assert_uint_eq(fx_npkts, 2);
	ck_assert_uint_eq(fx_pkt[1].status, EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(fx_pkt[1].psn, 100);
	ck_assert_uint_eq(b->cnt.dup_drops, 1);
	/* out of order is fine: 102 before 101 */
	net_send("three", 102, 100, WHOLE);
	ck_assert_uint_eq(fx_ncqes(b, true), 2);
	ck_assert_mem_eq(dst + 64, "three", 5);
}
END_TEST

/*
 * An RNR'd packet is not delivered, so its resend is new; the sender's
 * oldest PSN out holds the window where it is.
 */
START_TEST(srd_rnr_then_resend)
{
	pair(IBV_QPT_DRIVER);
	net_send("late", 7, 7, WHOLE);
	ck_assert_uint_eq(fx_pkt[0].status, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
	net_send("next", 8, 7, WHOLE);		/* RNR too: nothing posted */
	fx_post_recv(b, dst, 64, mr1->lkey, 1);
	net_send("late", 7, 7, WHOLE);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	ck_assert_mem_eq(dst, "late", 4);
	ck_assert_uint_eq(b->cnt.dup_drops, 0);
}
END_TEST

/*
 * Once the sender has nothing out before @lwm, what came before it is
 * forgotten, and a very late copy counts as having come before.
 */
START_TEST(srd_window_moves)
{
	pair(IBV_QPT_DRIVER);
	fx_post_recv(b, dst, 64, mr1->lkey, 1);
	net_send("x", 5, 5, WHOLE);
	net_send("x", 5, 6000, WHOLE);		/* the window moved past it */
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	ck_assert_uint_eq(b->cnt.dup_drops, 1);
	/* far ahead of the window: ignored, no answer */
	net_send("y", 6000 + SEFA_PEER_WIN, 6000, WHOLE);
	ck_assert_uint_eq(fx_npkts, 2);
}
END_TEST

/* UD: a duplicate is dropped, and nobody answers either. */
START_TEST(ud_twice_once)
{
	pair(IBV_QPT_UD);
	fx_post_recv(b, dst, 128, mr1->lkey, 1);
	fx_post_recv(b, dst + 128, 128, mr1->lkey, 2);
	net_send("dg", 40, 0, WHOLE);
	net_send("dg", 40, 0, WHOLE);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	ck_assert_uint_eq(fx_npkts, 0);
	ck_assert_uint_eq(b->cnt.dup_drops, 1);
}
END_TEST

/* @data from QP @sqpn of a's device, a stranger to b. */
static void stranger_send(const char *data, uint32_t sqpn, uint32_t psn)
{
	struct sefa_pkt pkt = fx_req(a, b, SEFA_PKT_SEND, strlen(data));

	pkt.flags = SEFA_PKT_NET | WHOLE;
	pkt.data = data;
	pkt.sqpn = sqpn;
	pkt.psn = pkt.lwm = psn;
	fx_npkts = 0;
	nic_resp_recv(fx_eng, b->dev, &pkt);
}

/*
 * SRD: a flood of senders never seen fills at most SEFA_PEER_MAX windows;
 * the senders beyond are refused, unanswered and counted, and the peer
 * that was there first keeps its window.  A window quiet for long enough
 * goes to a new sender.
 */
START_TEST(srd_flood_keeps_peers)
{
	uint64_t refused;
	unsigned int i;

	pair(IBV_QPT_DRIVER);
	fx_post_recv(b, dst, 64, mr1->lkey, 1);
	net_send("real", 10, 10, WHOLE);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	/* too long for the 1-byte receive: NAKed, but delivered for good */
	fx_post_recv(b, dst, 1, mr1->lkey, 2);
	for (i = 0; i < SEFA_PEER_MAX + 100; i++)
		stranger_send("zz", 0x100000 + i, i);
	ck_assert_uint_eq(b->resp.seen->n, SEFA_PEER_MAX);
	refused = fx_d.wire_cnt.drops[SEFA_DROP_NO_WINDOW];
	ck_assert_uint_eq(refused, 101);
	ck_assert_uint_eq(fx_npkts, 0);
	/* the real peer's resend is still known as one */
	fx_npkts = 0;
	net_send("real", 10, 10, WHOLE);
	ck_assert_uint_eq(b->cnt.dup_drops, 1);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	/* 30 s later, the oldest stranger's window is free again */
	fx_eng->now += 31ULL * 1000 * 1000 * 1000;
	stranger_send("zz", 0x200000, 0);
	ck_assert_uint_eq(fx_d.wire_cnt.drops[SEFA_DROP_NO_WINDOW], refused);
	ck_assert_uint_eq(fx_npkts, 1);
	ck_assert_uint_eq(b->resp.seen->n, SEFA_PEER_MAX);
}
END_TEST

/*
 * A sender whose packets were not delivered (no receive posted) holds
 * no window against others; UD with no window to spare delivers as it
 * is, since it promises nothing about duplicates.
 */
START_TEST(strangers_recycled)
{
	unsigned int i;

	pair(IBV_QPT_DRIVER);
	for (i = 0; i < SEFA_PEER_MAX + 100; i++)
		stranger_send("zz", 0x100000 + i, i);
	ck_assert_uint_eq(b->resp.seen->n, SEFA_PEER_MAX);
	ck_assert_uint_eq(fx_d.wire_cnt.drops[SEFA_DROP_NO_WINDOW], 0);
	ck_assert_uint_eq(fx_pkt[0].status, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
}
END_TEST

START_TEST(ud_flood_delivers)
{
	unsigned int i;

	pair(IBV_QPT_UD);
	/* too long for the receive: each fails it, for good */
	for (i = 0; i < SEFA_PEER_MAX; i++) {
		fx_post_recv(b, dst, 1, mr1->lkey, 1);
		stranger_send("zz", 0x100000 + i, i);
	}
	fx_post_recv(b, dst, 64, mr1->lkey, 2);
	stranger_send("ud", 0x200000, 0);
	ck_assert_uint_eq(fx_ncqes(b, true), SEFA_PEER_MAX + 1);
	ck_assert_uint_eq(fx_cqe(b, true, SEFA_PEER_MAX)->base.common.status,
			  EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(b->resp.seen->n, SEFA_PEER_MAX);
	ck_assert_uint_eq(fx_d.wire_cnt.drops[SEFA_DROP_NO_WINDOW], 0);
}
END_TEST

/*
 * RC: only the expected PSN is taken; the one before is acknowledged
 * again, one ahead ignored.  Three packets make one message.
 */
START_TEST(rc_in_order)
{
	uint32_t psn;

	pair(IBV_QPT_RC);
	fx_rc_connect(a, b, false);
	psn = b->resp.rq_psn;
	fx_post_recv(b, dst, 64, mr1->lkey, 1);
	net_send("ahead", psn + 1, 0, WHOLE);
	ck_assert_uint_eq(fx_npkts, 0);
	net_send("abc", psn, 0, SEFA_PKT_FIRST);
	net_send("def", psn + 1, 0, 0);
	net_send("def", psn + 1, 0, 0);		/* again: not placed twice */
	net_send("ghi", psn + 2, 0, SEFA_PKT_LAST);
	ck_assert_uint_eq(fx_npkts, 4);
	ck_assert_uint_eq(fx_pkt[2].psn, psn + 1);
	ck_assert_uint_eq(fx_pkt[2].status, EFA_IO_COMP_STATUS_OK);
	ck_assert_uint_eq(b->resp.rq_psn, psn + 3);
	ck_assert_uint_eq(fx_ncqes(b, true), 1);
	ck_assert_uint_eq(fx_cqe(b, true, 0)->base.length, 9);
	ck_assert_mem_eq(dst, "abcdefghi", 9);
	ck_assert_uint_eq(b->cnt.dup_drops, 1);
}
END_TEST

static Suite *seq_suite(void)
{
	Suite *s = suite_create("nic seq");
	TCase *t = tcase_create("seq");

	tcase_add_checked_fixture(t, setup, fx_teardown);
	tcase_add_test(t, srd_twice_once);
	tcase_add_test(t, srd_rnr_then_resend);
	tcase_add_test(t, srd_window_moves);
	tcase_add_test(t, ud_twice_once);
	tcase_add_test(t, rc_in_order);
	tcase_add_test(t, srd_flood_keeps_peers);
	tcase_add_test(t, strangers_recycled);
	tcase_add_test(t, ud_flood_delivers);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(seq_suite)
