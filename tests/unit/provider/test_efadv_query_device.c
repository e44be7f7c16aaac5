// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * efadv_query_device() against callers built with every size of
 * struct efadv_device_attr, and against a context that is not ours.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "efa_fixture.h"
#include "check_bytes.h"
#include "check_main.h"

/* The public layout is ABI: upstream's v26 struct ended at 24 bytes, v27
 * added device_caps and max_rdma_size.
 */
_Static_assert(sizeof(struct efadv_device_attr) == 32, "size");
_Static_assert(offsetof(struct efadv_device_attr, comp_mask) == 0, "comp_mask");
_Static_assert(offsetof(struct efadv_device_attr, max_sq_wr) == 8, "max_sq_wr");
_Static_assert(offsetof(struct efadv_device_attr, max_rq_wr) == 12, "max_rq_wr");
_Static_assert(offsetof(struct efadv_device_attr, max_sq_sge) == 16, "max_sq_sge");
_Static_assert(offsetof(struct efadv_device_attr, max_rq_sge) == 18, "max_rq_sge");
_Static_assert(offsetof(struct efadv_device_attr, inline_buf_size) == 20,
	       "inline_buf_size");
_Static_assert(offsetof(struct efadv_device_attr, inline_buf_size_ex) == 22,
	       "inline_buf_size_ex");
_Static_assert(offsetof(struct efadv_device_attr, device_caps) == 24,
	       "device_caps");
_Static_assert(offsetof(struct efadv_device_attr, max_rdma_size) == 28,
	       "max_rdma_size");

#define BUF_LEN 48

static struct efa_fixture fx;

/* The caller's memory: an attr followed by what lies beyond it. */
static union {
	struct efadv_device_attr attr;
	uint8_t bytes[BUF_LEN];
} buf;

static void setup(void)
{
	efa_fixture_open(&fx);
	memset(&buf, SEFA_POISON, sizeof(buf));
}

static void teardown(void)
{
	efa_fixture_close(&fx);
}

static int query(uint32_t inlen)
{
	return efadv_query_device(&fx.ctx->ibvctx.context, &buf.attr, inlen);
}

static void assert_base_fields(void)
{
	ck_assert_uint_eq(buf.attr.comp_mask, 0);
	ck_assert_uint_eq(buf.attr.max_sq_wr, 4096);
	ck_assert_uint_eq(buf.attr.max_rq_wr, 32768);
	ck_assert_uint_eq(buf.attr.max_sq_sge, 2);
	ck_assert_uint_eq(buf.attr.max_rq_sge, 3);
	ck_assert_uint_eq(buf.attr.inline_buf_size, 32);
	ck_assert_uint_eq(buf.attr.inline_buf_size_ex, 32);
}

START_TEST(test_too_short)
{
	static const uint32_t lens[] = { 0, 1, 8, 16, 20 };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		ck_assert_int_eq(query(lens[i]), EINVAL);
		sefa_assert_poisoned(&buf, 0, BUF_LEN);
	}
}
END_TEST

/* inline_buf_size starting inside inlen is enough, as upstream. */
START_TEST(test_shortest_accepted)
{
	ck_assert_int_eq(query(21), 0);
	ck_assert_uint_eq(buf.attr.max_sq_wr, 4096);
	ck_assert_uint_eq(buf.attr.inline_buf_size, 32);
	sefa_assert_poisoned(&buf, 24, BUF_LEN);
}
END_TEST

START_TEST(test_v26_layout)
{
	ck_assert_int_eq(query(24), 0);
	assert_base_fields();
	sefa_assert_poisoned(&buf, 24, BUF_LEN);
}
END_TEST

/*
 * inline_buf_size_ex, in what the first version's struct had as reserved
 * bytes: the 128-byte WQE's room where the device has one, written only
 * when inlen reaches it.
 */
START_TEST(test_inline_buf_size_ex)
{
	fx.ctx->inline_buf_size_ex = 80;
	ck_assert_int_eq(query(24), 0);
	ck_assert_uint_eq(buf.attr.inline_buf_size, 32);
	ck_assert_uint_eq(buf.attr.inline_buf_size_ex, 80);
	memset(&buf, SEFA_POISON, sizeof(buf));
	ck_assert_int_eq(query(22), 0);
	ck_assert_uint_eq(buf.attr.inline_buf_size, 32);
	sefa_assert_poisoned(&buf, 22, BUF_LEN);
}
END_TEST

/* device_caps without max_rdma_size: no RDMA capabilities. */
START_TEST(test_caps_without_rdma_size)
{
	ck_assert_int_eq(query(28), 0);
	assert_base_fields();
	ck_assert_uint_eq(buf.attr.device_caps,
			  EFADV_DEVICE_ATTR_CAPS_RNR_RETRY |
			  EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID);
	sefa_assert_poisoned(&buf, 28, BUF_LEN);
}
END_TEST

START_TEST(test_full_layout)
{
	ck_assert_int_eq(query(sizeof(struct efadv_device_attr)), 0);
	assert_base_fields();
	ck_assert_uint_eq(buf.attr.device_caps,
			  EFADV_DEVICE_ATTR_CAPS_RDMA_READ |
			  EFADV_DEVICE_ATTR_CAPS_RNR_RETRY |
			  EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID |
			  EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE);
	ck_assert_uint_eq(buf.attr.max_rdma_size, 1U << 30);
	sefa_assert_poisoned(&buf, 32, BUF_LEN);
}
END_TEST

/* A caller with a newer, longer struct gets its unknown tail zeroed. */
START_TEST(test_longer_struct)
{
	ck_assert_int_eq(query(40), 0);
	assert_base_fields();
	ck_assert_uint_eq(buf.attr.max_rdma_size, 1U << 30);
	sefa_assert_zeroed(&buf, 32, 40);
	sefa_assert_poisoned(&buf, 40, BUF_LEN);
}
END_TEST

START_TEST(test_no_device_caps)
{
	fx.ctx->device_caps = 0;
	ck_assert_int_eq(query(sizeof(struct efadv_device_attr)), 0);
	ck_assert_uint_eq(buf.attr.device_caps, 0);
}
END_TEST

static void setup_other(void)
{
	setup();
	fx.vdev.ops = &efa_other_dev_ops;
}

START_TEST(test_not_efa_device)
{
	ck_assert_int_eq(query(sizeof(struct efadv_device_attr)), EOPNOTSUPP);
	sefa_assert_poisoned(&buf, 0, BUF_LEN);
}
END_TEST

static Suite *efadv_suite(void)
{
	Suite *s = suite_create("efadv_query_device");
	TCase *tc = tcase_create("inlen");
	TCase *other = tcase_create("other_device");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_too_short);
	tcase_add_test(tc, test_shortest_accepted);
	tcase_add_test(tc, test_v26_layout);
	tcase_add_test(tc, test_inline_buf_size_ex);
	tcase_add_test(tc, test_caps_without_rdma_size);
	tcase_add_test(tc, test_full_layout);
	tcase_add_test(tc, test_longer_struct);
	tcase_add_test(tc, test_no_device_caps);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(other, setup_other, teardown);
	tcase_add_test(other, test_not_efa_device);
	suite_add_tcase(s, other);
	return s;
}

SEFA_CHECK_MAIN(efadv_suite)
