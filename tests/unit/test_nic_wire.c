// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire's routing on the short local path, with the real responder and
 * completer at either end: requests by GID or LID to the device that has
 * them, answers back to the requester's completer, silence or a NAK where
 * nobody is; and one engine pass carrying a send end to end.
 */
#include <string.h>

#include "check_main.h"
#include "nic_fixture.h"

#define LEN	64

static uint8_t src[4096], dst[4096];
static struct sefa_pd *pd0, *pd1;
static struct sefa_mr *mr0, *mr1;
static struct efa_io_tx_wqe wqe;
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
		.qp = a, .wqe = &wqe, .psn = a->sq_psn,
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
	ck_assert_uint_eq(a->sq_ci, 1);
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
		.qp = a, .wqe = &wqe, .psn = a->sq_psn, .state = NIC_SEND_OUT,
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
	struct efa_io_tx_wqe w = fx_wqe(EFA_IO_SEND, 3);

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

static Suite *wire_suite(void)
{
	Suite *s = suite_create("nic wire");
	TCase *t = tcase_create("wire");

	tcase_add_checked_fixture(t, setup, fx_teardown);
	tcase_add_test(t, by_gid);
	tcase_add_test(t, by_lid);
	tcase_add_test(t, nobody_there);
	tcase_add_test(t, lost);
	tcase_add_test(t, engine_pass);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(wire_suite)
