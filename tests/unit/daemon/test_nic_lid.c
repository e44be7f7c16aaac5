// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which GID holds a LID (nic/lid.c): only the SM's answer, with the id of
 * a question outstanding, from the SM's GID, is believed; questions are
 * paced per LID and in all, and one unknown LID does not starve another.
 */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "nic/loc.h"

#define MS	(1000 * 1000ULL)

static const uint8_t sm[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t peer[16] = { 0xfe, 0x80, [15] = 2 };
static const uint8_t stranger[16] = { 0xfe, 0x80, [15] = 0x66 };
static struct nic_lids *l;

static void setup(void)
{
	ck_assert_int_eq(nic_lids_new(&l), 0);
}

static void teardown(void)
{
	nic_lids_free(l);
}

/* The SM found, at @now, from the search its first route sends. */
static void find_sm(uint64_t now)
{
	struct nic_lid_ask q;

	ck_assert_ptr_null(nic_lid_route(l, 7, now, &q));
	ck_assert_int_eq(q.what, NIC_LID_ASK_SM);
	ck_assert(!nic_lid_sm_found(l, q.tid + 1, stranger));
	ck_assert(nic_lid_sm_found(l, q.tid, sm));
	/* once found, no other answer moves it; the SM's again is no news */
	ck_assert(!nic_lid_sm_found(l, q.tid, stranger));
	ck_assert(nic_lid_sm_found(l, q.tid, sm));
	ck_assert_ptr_nonnull(nic_lid_route(l, SEFA_SM_LID, now, &q));
	ck_assert_mem_eq(nic_lid_route(l, SEFA_SM_LID, now, &q), sm, 16);
}

START_TEST(only_the_sm_answering_asked)
{
	struct nic_lid_ask q;
	uint64_t now = 1000 * MS, tid;

	/* an answer before any question, or before the SM is known */
	ck_assert(!nic_lid_learn(l, 7, 0, sm, stranger, now));
	find_sm(now);
	ck_assert_ptr_null(nic_lid_route(l, 7, now + 20 * MS, &q));
	ck_assert_int_eq(q.what, NIC_LID_ASK_LID);
	ck_assert_mem_eq(q.to, sm, 16);
	ck_assert_uint_ne(q.tid, 0);
	tid = q.tid;
	/* a wrong id, a stranger's address, another LID: not believed */
	ck_assert(!nic_lid_learn(l, 7, tid ^ 1, sm, stranger, now));
	ck_assert(!nic_lid_learn(l, 7, tid, stranger, stranger, now));
	ck_assert(!nic_lid_learn(l, 8, tid, sm, stranger, now));
	ck_assert_ptr_null(nic_lid_route(l, 7, now + 21 * MS, &q));
	ck_assert_int_eq(q.what, NIC_LID_ASK_NONE);
	/* the forgeries cost the real answer nothing */
	ck_assert(nic_lid_learn(l, 7, tid, sm, peer, now + 22 * MS));
	ck_assert_mem_eq(nic_lid_route(l, 7, now + 23 * MS, &q), peer, 16);
}
END_TEST

START_TEST(answer_then_replay)
{
	struct nic_lid_ask q;
	uint64_t now = 1000 * MS, tid;

	find_sm(now);
	ck_assert_ptr_null(nic_lid_route(l, 7, now + 20 * MS, &q));
	tid = q.tid;
	ck_assert(nic_lid_learn(l, 7, tid, sm, peer, now + 21 * MS));
	ck_assert_mem_eq(nic_lid_route(l, 7, now + 22 * MS, &q), peer, 16);
	/* the same answer again is not a question outstanding */
	ck_assert(!nic_lid_learn(l, 7, tid, sm, stranger, now + 23 * MS));
	ck_assert_mem_eq(nic_lid_route(l, 7, now + 24 * MS, &q), peer, 16);
	ck_assert_int_eq(q.what, NIC_LID_ASK_NONE);
}
END_TEST

START_TEST(pacing)
{
	struct nic_lid_ask q;
	uint64_t now = 1000 * MS;
	unsigned int lid, asked = 0;

	find_sm(now);
	now += 20 * MS;
	/* one LID asked again only after 10 ms */
	nic_lid_route(l, 7, now, &q);
	ck_assert_int_eq(q.what, NIC_LID_ASK_LID);
	nic_lid_route(l, 7, now + 1 * MS, &q);
	ck_assert_int_eq(q.what, NIC_LID_ASK_NONE);
	/* a flood of unknown LIDs: 64 questions per 10 ms in all */
	for (lid = 100; lid < 1100; lid++) {
		nic_lid_route(l, lid, now + 2 * MS, &q);
		asked += q.what == NIC_LID_ASK_LID;
	}
	ck_assert_uint_eq(asked, 63);
	/* ... and LID 7 gets its turn in the next window all the same */
	nic_lid_route(l, 7, now + 12 * MS, &q);
	ck_assert_int_eq(q.what, NIC_LID_ASK_LID);
}
END_TEST

static Suite *lid_suite(void)
{
	Suite *s = suite_create("nic lid");
	TCase *t = tcase_create("lid");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, only_the_sm_answering_asked);
	tcase_add_test(t, answer_then_replay);
	tcase_add_test(t, pacing);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(lid_suite)
