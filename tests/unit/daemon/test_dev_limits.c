// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefad's --limit list: names, values and the profile's ceilings, and
 * the values in force that the devices report.
 */
#include <check.h>
#include <errno.h>
#include <string.h>

#include "dev_limits.h"
#include "check_main.h"

static struct sefa_limits l;
static char err[160];

static int parse(const char *arg)
{
	return sefa_limits_parse(&l, arg, err, sizeof(err));
}

static void setup(void)
{
	memset(&l, 0, sizeof(l));
	err[0] = '\0';
}

START_TEST(lists)
{
	const struct sefa_profile *p = sefa_profile_find("efa");

	ck_assert_int_eq(parse("ah=4,qp=2"), 0);
	ck_assert_int_eq(parse("cq-depth=64"), 0);
	/* repeated: the last counts */
	ck_assert_int_eq(parse("ah=8,mr-pages=16,ah=3"), 0);
	ck_assert_uint_eq(l.max[SEFA_LIMIT_AH], 3);
	ck_assert_uint_eq(l.max[SEFA_LIMIT_QP], 2);
	ck_assert_uint_eq(l.max[SEFA_LIMIT_CQ_DEPTH], 64);
	ck_assert_uint_eq(l.max[SEFA_LIMIT_MR_PAGES], 16);
	ck_assert_int_eq(sefa_limits_check(&l, p, err, sizeof(err)), 0);
	/* what is in force: the one asked for, or the hardware's */
	ck_assert_uint_eq(sefa_limit_value(&l, p, SEFA_LIMIT_AH), 3);
	ck_assert_uint_eq(sefa_limit_value(&l, p, SEFA_LIMIT_PD), p->max_pd);
	ck_assert_uint_eq(sefa_limit_value(&l, p, SEFA_LIMIT_SQ_DEPTH),
			  p->max_sq_wr);
	ck_assert_uint_eq(sefa_limit_hw(p, SEFA_LIMIT_MR_PAGES),
			  p->max_mr_size / 4096);
}
END_TEST

START_TEST(bad_lists)
{
	static const struct {
		const char *arg, *why;
	} bad[] = {
		{ "", "'' is not NAME=N" },
		{ "ah", "'ah' is not NAME=N" },
		{ "ah=4,", "'' is not NAME=N" },
		{ "ah=4,,qp=2", "'' is not NAME=N" },
		{ "foo=3", "unknown limit 'foo'" },
		{ "AH=3", "unknown limit 'AH'" },
		{ "=3", "unknown limit ''" },
		{ "ah=0", "limit ah takes a number from 1 up, not '0'" },
		{ "ah=", "limit ah takes a number from 1 up, not ''" },
		{ "ah=-1", "limit ah takes a number from 1 up, not '-1'" },
		{ "ah= 4", "limit ah takes a number from 1 up, not ' 4'" },
		{ "qp=4x", "limit qp takes a number from 1 up, not '4x'" },
		{ "qp=4294967296",
		  "limit qp takes a number from 1 up, not '4294967296'" },
		{ "qp=99999999999999999999999",
		  "limit qp takes a number from 1 up, not '99999999999999999999999'" },
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		setup();
		ck_assert_msg(parse(bad[i].arg) == -EINVAL, "%s", bad[i].arg);
		ck_assert_msg(strstr(err, bad[i].why), "%s: %s", bad[i].arg,
			      err);
	}
}
END_TEST

START_TEST(ceilings)
{
	const struct sefa_profile *p = sefa_profile_find("efa0");

	ck_assert_int_eq(parse("ah=1024,qp=256,sq-depth=32"), 0);
	ck_assert_int_eq(sefa_limits_check(&l, p, err, sizeof(err)), 0);
	ck_assert_int_eq(parse("ah=1025"), 0);
	ck_assert_int_eq(sefa_limits_check(&l, p, err, sizeof(err)), -ERANGE);
	ck_assert_str_eq(err, "limit ah=1025 is above the efa0 hardware's 1024");
	setup();
	ck_assert_int_eq(parse("sq-depth=31"), 0);
	ck_assert_int_eq(sefa_limits_check(&l, p, err, sizeof(err)), -ERANGE);
	ck_assert_str_eq(err, "limit sq-depth=31 is below the 32 every SQ takes");
	setup();
	ck_assert_int_eq(parse("mr-pages=25165825"), 0);
	ck_assert_int_eq(sefa_limits_check(&l, p, err, sizeof(err)), -ERANGE);
}
END_TEST

static Suite *limits_suite(void)
{
	Suite *s = suite_create("device limits");
	TCase *t = tcase_create("parse");

	tcase_add_checked_fixture(t, setup, NULL);
	tcase_add_test(t, lists);
	tcase_add_test(t, bad_lists);
	tcase_add_test(t, ceilings);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(limits_suite)
