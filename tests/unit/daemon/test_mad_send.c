// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sends of the MAD layer (mad/agent.c, mad/send.c): what a send may be,
 * which sends it tracks, and the retries and timeout report of a request
 * nobody answers, which umad reads as ETIMEDOUT with the request's header.
 */
#include <errno.h>

#include "check_main.h"
#include "mad_fixture.h"

#define MS		1000000ULL

static struct mad_agent *a;
static uint8_t req[MAD_SIZE];

static void setup(void)
{
	const struct mad_reg reg = { .qpn = 1 };

	mfx_setup();
	a = mfx_agent(1, &reg, NULL);
	ck_assert_ptr_nonnull(a);
	mad_hdr_init(req, 0x31, 1, MAD_METHOD_GET, 0x10, 0x66);
}

START_TEST(what_may_go)
{
	const struct mad_reg rmpp = { .qpn = 1, .rmpp_version = 1 };
	struct mad_agent *r = mfx_agent(1, &rmpp, NULL);
	uint8_t big[2 * MAD_SIZE] = {};

	memcpy(big, req, MAD_SIZE);
	/* longer than a MAD without RMPP; RMPP on a class without it */
	ck_assert_int_eq(mfx_send(a, MFX_PEER_LID, 1, big, sizeof(big), 0, 0),
			 -EINVAL);
	req[MAD_OFF_CLASS] = MAD_CLASS_PERF;
	ck_assert_int_eq(mfx_send(r, MFX_PEER_LID, 1, req, MAD_SIZE, 0, 0),
			 -EINVAL);
	ck_assert_uint_eq(mfx_nout, 0);
	/* shorter than a MAD: padded with zeros */
	memset(big, 0xee, sizeof(big));
	memcpy(big, req, MAD_HDR_LEN);
	ck_assert_int_eq(mfx_send(a, MFX_PEER_LID, 1, big, 100, 0, 0), 0);
	ck_assert_uint_eq(mfx_nout, 1);
	ck_assert_mem_eq(mfx_out[0].mad + MAD_HDR_LEN, big + MAD_HDR_LEN,
			 100 - MAD_HDR_LEN);
	ck_assert_uint_eq(mfx_out[0].mad[100], 0);
	ck_assert_uint_eq(mfx_out[0].mad[MAD_SIZE - 1], 0);
}
END_TEST

/* Requests carry the agent's hi_tid; responses go out as they are. */
START_TEST(wire_tid)
{
	ck_assert_int_eq(mfx_send(a, MFX_PEER_LID, 1, req, MAD_SIZE, 0, 0), 0);
	ck_assert_uint_eq(get64(mfx_out[0].mad + MAD_OFF_TID),
			  (uint64_t)a->hi_tid << 32 | 0x66);
	ck_assert_uint_eq(mfx_out[0].f.slid, mfx_d.dev[1].lid);
	ck_assert_uint_eq(mfx_out[0].f.src_qp, 1);
	req[MAD_OFF_METHOD] = MAD_METHOD_RESP | MAD_METHOD_GET;
	put64(req + MAD_OFF_TID, 0x1234567812345678ULL);
	ck_assert_int_eq(mfx_send(a, MFX_PEER_LID, 1, req, MAD_SIZE, 0, 0), 0);
	ck_assert_uint_eq(get64(mfx_out[1].mad + MAD_OFF_TID),
			  0x1234567812345678ULL);
	/* neither waits for anything */
	ck_assert_uint_eq(a->nsends, 0);
}
END_TEST

/* No answer: sent again per retry, then reported, then forgotten. */
START_TEST(timeout)
{
	const struct mfx_got *g;
	uint64_t t0 = mad_now_ns();

	ck_assert_int_eq(mfx_send(a, MFX_PEER_LID, 1, req, MAD_SIZE, 50, 2),
			 0);
	ck_assert_uint_eq(a->nsends, 1);
	ck_assert_uint_eq(mfx_nout, 1);
	mfx_tick(t0);			/* not yet */
	ck_assert_uint_eq(mfx_nout, 1);
	mfx_tick(t0 + 1000 * MS);
	ck_assert_uint_eq(mfx_nout, 2);
	ck_assert_mem_eq(mfx_out[1].mad, mfx_out[0].mad, MAD_SIZE);
	mfx_tick(t0 + 2000 * MS);
	ck_assert_uint_eq(mfx_nout, 3);
	ck_assert_uint_eq(mfx_ngot, 0);
	mfx_tick(t0 + 3000 * MS);
	ck_assert_uint_eq(mfx_nout, 3);
	ck_assert_uint_eq(mfx_ngot, 1);
	g = &mfx_got[0];
	ck_assert(g->timed_out);
	ck_assert_ptr_eq(g->agent, a);
	ck_assert_int_eq(g->r->hdr.status, ETIMEDOUT);
	ck_assert_uint_eq(g->r->len, MAD_HDR_LEN);
	ck_assert_mem_eq(g->r->data, mfx_out[0].mad, MAD_HDR_LEN);
	ck_assert_uint_eq(a->nsends, 0);
	mfx_tick(t0 + 9000 * MS);
	ck_assert_uint_eq(mfx_ngot, 1);
}
END_TEST

/* The peer answers before the time is up: no timeout follows. */
START_TEST(answered)
{
	uint8_t resp[MAD_SIZE];

	ck_assert_int_eq(mfx_send(a, MFX_PEER_LID, 1, req, MAD_SIZE, 50, 0),
			 0);
	memcpy(resp, mfx_out[0].mad, MAD_SIZE);
	resp[MAD_OFF_METHOD] |= MAD_METHOD_RESP;
	mfx_from_peer(1, 1, 1, resp);
	ck_assert_uint_eq(mfx_ngot, 1);
	ck_assert(!mfx_got[0].timed_out);
	ck_assert_mem_eq(mfx_got[0].r->data, resp, MAD_SIZE);
	ck_assert_uint_eq(a->nsends, 0);
	mfx_tick(mad_now_ns() + 1000 * MS);
	ck_assert_uint_eq(mfx_ngot, 1);
	/* the same answer again: nobody waits for it any more */
	mfx_from_peer(1, 1, 1, resp);
	ck_assert_uint_eq(mfx_ngot, 1);
	ck_assert_uint_eq(mfx_d.wire_cnt.drops[SEFA_DROP_MAD_UNASKED], 1);
}
END_TEST

/* An answer from another LID than the one asked answers nothing. */
START_TEST(answer_from_elsewhere)
{
	const struct mad_reg reg = { .qpn = 1 };
	struct mad_agent *other = mfx_agent(0, &reg, NULL);
	uint8_t resp[MAD_SIZE];

	ck_assert_int_eq(mfx_send(a, mfx_d.dev[0].lid + 100, 1, req, MAD_SIZE,
				  50, 0), 0);
	memcpy(resp, mfx_out[0].mad, MAD_SIZE);
	resp[MAD_OFF_METHOD] |= MAD_METHOD_RESP;
	/* device 0 sends it to device 1, with the asker's TID */
	ck_assert_int_eq(mfx_send(other, mfx_d.dev[1].lid, 1, resp, MAD_SIZE,
				  0, 0), 0);
	ck_assert_uint_eq(mfx_ngot, 0);
	ck_assert_uint_eq(a->nsends, 1);
}
END_TEST

/* Unregistering cancels what is in flight, reporting nothing. */
START_TEST(unregister_cancels)
{
	ck_assert_int_eq(mfx_send(a, MFX_PEER_LID, 1, req, MAD_SIZE, 50, 3),
			 0);
	ck_assert_uint_eq(a->nsends, 1);
	mfx_unregister(a);
	mfx_tick(mad_now_ns() + 10000 * MS);
	ck_assert_uint_eq(mfx_ngot, 0);
	ck_assert_uint_eq(mfx_nout, 1);
}
END_TEST

static Suite *send_suite(void)
{
	Suite *s = suite_create("mad send");
	TCase *t = tcase_create("sends");

	tcase_add_checked_fixture(t, setup, NULL);
	tcase_add_test(t, what_may_go);
	tcase_add_test(t, wire_tid);
	tcase_add_test(t, timeout);
	tcase_add_test(t, answered);
	tcase_add_test(t, answer_from_elsewhere);
	tcase_add_test(t, unregister_cancels);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(send_suite)
