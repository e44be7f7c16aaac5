// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the provider sends and accepts when a context is opened: the
 * GET_CONTEXT udata, the checks on the kernel's answers and the limits it
 * keeps from them, and how it reports the device to libibverbs.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "efa_fixture.h"
#include "check_main.h"

static struct efa_fixture fx;

static void setup(void)
{
	efa_fixture_init(&fx, &efa_dev_ops);
}

static void teardown(void)
{
	efa_fixture_fini(&fx);
}

START_TEST(test_ucontext_cmd_layout)
{
	struct efa_alloc_ucontext cmd;

	memset(&cmd, 0xff, sizeof(cmd));
	efa_ucontext_cmd_init(&cmd);

	/* 8 bytes of header, 8 of core payload, 8 of EFA udata: the write
	 * of 24 bytes that the kernel driver expects.
	 */
	ck_assert_uint_eq(sizeof(cmd), 24);
	ck_assert_uint_eq(offsetof(struct efa_alloc_ucontext, drv), 16);
	ck_assert_uint_eq(cmd.drv.comp_mask,
			  EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH |
			  EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR);
	ck_assert_uint_eq(cmd.drv.comp_mask, 3);
	for (size_t i = 0; i < sizeof(cmd.drv.reserved_20); i++)
		ck_assert_uint_eq(cmd.drv.reserved_20[i], 0);
	/* libibverbs fills the header and the response pointer. */
	ck_assert_uint_eq(cmd.ibv_cmd.hdr.command, 0);
	ck_assert_uint_eq(cmd.ibv_cmd.core_payload.response, 0);
}
END_TEST

START_TEST(test_ucontext_resp_layout)
{
	ck_assert_uint_eq(sizeof(struct efa_alloc_ucontext_resp), 40);
	ck_assert_uint_eq(offsetof(struct efa_alloc_ucontext_resp, drv), 8);
	ck_assert_uint_eq(sizeof(struct efa_query_device_ex_resp), 304 + 24);
	ck_assert_uint_eq(offsetof(struct efa_query_device_ex_resp, drv), 304);
}
END_TEST

START_TEST(test_ucontext_resp_accepted)
{
	struct efa_alloc_ucontext_resp resp;
	struct efa_context *ctx = fx.ctx;

	efa_fixture_ucontext_resp(&resp);
	ck_assert_int_eq(efa_ucontext_resp_parse(ctx, &resp), 0);

	ck_assert_uint_eq(ctx->cmds_supp_udata_mask, 3);
	ck_assert_uint_eq(ctx->sub_cqs_per_cq, 1);
	ck_assert_uint_eq(ctx->inline_buf_size, 32);
	ck_assert_uint_eq(ctx->max_llq_size, 4096 * 64);
	ck_assert_uint_eq(ctx->max_tx_batch, 16);
	ck_assert_uint_eq(ctx->min_sq_wr, 32);
}
END_TEST

/* A refused response must leave the context as it was. */
static void check_refused(const struct efa_alloc_ucontext_resp *resp, int err)
{
	struct efa_context before;

	memcpy(&before, fx.ctx, sizeof(before));
	ck_assert_int_eq(efa_ucontext_resp_parse(fx.ctx, resp), err);
	ck_assert_mem_eq(&before, fx.ctx, sizeof(before));
}

START_TEST(test_ucontext_resp_needs_create_ah)
{
	struct efa_alloc_ucontext_resp resp;

	efa_fixture_ucontext_resp(&resp);
	resp.drv.cmds_supp_udata_mask = EFA_USER_CMDS_SUPP_UDATA_QUERY_DEVICE;
	check_refused(&resp, EOPNOTSUPP);
}
END_TEST

START_TEST(test_ucontext_resp_needs_query_device)
{
	struct efa_alloc_ucontext_resp resp;

	efa_fixture_ucontext_resp(&resp);
	resp.drv.cmds_supp_udata_mask = EFA_USER_CMDS_SUPP_UDATA_CREATE_AH;
	check_refused(&resp, EOPNOTSUPP);

	resp.drv.cmds_supp_udata_mask = 0;
	check_refused(&resp, EOPNOTSUPP);
}
END_TEST

START_TEST(test_ucontext_resp_needs_sub_cqs)
{
	struct efa_alloc_ucontext_resp resp;

	efa_fixture_ucontext_resp(&resp);
	resp.drv.sub_cqs_per_cq = 0;
	check_refused(&resp, EINVAL);
}
END_TEST

START_TEST(test_ucontext_resp_needs_llq)
{
	struct efa_alloc_ucontext_resp resp;

	efa_fixture_ucontext_resp(&resp);
	resp.drv.max_llq_size = 0;
	check_refused(&resp, EINVAL);

	resp.drv.max_llq_size = 63;
	check_refused(&resp, EINVAL);

	resp.drv.max_llq_size = 64;
	ck_assert_int_eq(efa_ucontext_resp_parse(fx.ctx, &resp), 0);
}
END_TEST

START_TEST(test_ucontext_resp_inline_fits_wqe)
{
	struct efa_alloc_ucontext_resp resp;

	efa_fixture_ucontext_resp(&resp);
	resp.drv.inline_buf_size = 33;
	check_refused(&resp, EINVAL);

	resp.drv.inline_buf_size = 0;
	ck_assert_int_eq(efa_ucontext_resp_parse(fx.ctx, &resp), 0);
	ck_assert_uint_eq(fx.ctx->inline_buf_size, 0);
}
END_TEST

START_TEST(test_device_limits)
{
	struct efa_query_device_ex_resp resp;
	struct efa_context *ctx = fx.ctx;

	efa_fixture_query_device_resp(&resp);
	ck_assert_int_eq(efa_device_limits_parse(ctx, &resp,
						 sizeof(resp.ibv_resp)), 0);

	ck_assert_uint_eq(ctx->max_sq_wr, 4096);
	ck_assert_uint_eq(ctx->max_rq_wr, 32768);
	ck_assert_uint_eq(ctx->max_sq_sge, 2);
	ck_assert_uint_eq(ctx->max_rq_sge, 3);
	ck_assert_uint_eq(ctx->max_rdma_size, 1U << 30);
	ck_assert_uint_eq(ctx->device_caps, resp.drv.device_caps);
	ck_assert_uint_eq(ctx->max_qp, 256);
	ck_assert_uint_eq(ctx->max_cq, 512);
	ck_assert_uint_eq(ctx->max_cqe, 32768);
	ck_assert_uint_eq(ctx->max_sge, 2);
	ck_assert_uint_eq(ctx->max_sge_rd, 1);
}
END_TEST

START_TEST(test_device_limits_need_extended_query)
{
	struct efa_query_device_ex_resp resp;
	struct efa_context before;

	efa_fixture_query_device_resp(&resp);
	memcpy(&before, fx.ctx, sizeof(before));
	ck_assert_int_eq(efa_device_limits_parse(fx.ctx, &resp,
						 sizeof(resp.ibv_resp.base)),
			 EOPNOTSUPP);
	ck_assert_mem_eq(&before, fx.ctx, sizeof(before));
}
END_TEST

START_TEST(test_device_attr_fixup)
{
	struct efa_query_device_ex_resp resp;
	struct ibv_device_attr attr = {};
	const uint8_t fw[8] = { 1, 2, 3, 40, 0xff, 0xff, 0xff, 0xff };

	efa_fixture_query_device_resp(&resp);
	memcpy(&resp.ibv_resp.base.fw_ver, fw, sizeof(fw));
	fx.ctx->max_llq_size = 4096 * 64;

	/* The LLQ, not the kernel's max_qp_wr, bounds the send queue. */
	attr.max_qp_wr = 32768;
	efa_device_attr_fixup(fx.ctx, &attr, &resp.ibv_resp.base);
	ck_assert_int_eq(attr.max_qp_wr, 4096);
	ck_assert_str_eq(attr.fw_ver, "1.2.3.40");

	attr.max_qp_wr = 100;
	efa_device_attr_fixup(fx.ctx, &attr, &resp.ibv_resp.base);
	ck_assert_int_eq(attr.max_qp_wr, 100);

	/* RDMA reads in flight, which RC peers negotiate, stay the kernel's */
	attr.max_qp_rd_atom = 16;
	attr.max_qp_init_rd_atom = 16;
	efa_device_attr_fixup(fx.ctx, &attr, &resp.ibv_resp.base);
	ck_assert_int_eq(attr.max_qp_rd_atom, 16);
	ck_assert_int_eq(attr.max_qp_init_rd_atom, 16);
}
END_TEST

START_TEST(test_dv_caps_mapping)
{
	static const struct {
		uint32_t kernel;
		uint32_t dv;
		bool needs_rdma_size;
	} map[] = {
		{ EFA_QUERY_DEVICE_CAPS_RDMA_READ,
		  EFADV_DEVICE_ATTR_CAPS_RDMA_READ, true },
		{ EFA_QUERY_DEVICE_CAPS_RNR_RETRY,
		  EFADV_DEVICE_ATTR_CAPS_RNR_RETRY, false },
		{ EFA_QUERY_DEVICE_CAPS_CQ_WITH_SGID,
		  EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID, false },
		{ EFA_QUERY_DEVICE_CAPS_RDMA_WRITE,
		  EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE, true },
		{ EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV,
		  EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV, false },
		/* Kernel-only capabilities are not surfaced. */
		{ EFA_QUERY_DEVICE_CAPS_CQ_NOTIFICATIONS, 0, false },
		{ 1 << 4, 0, false },
		{ 1U << 31, 0, false },
	};

	ck_assert_uint_eq(EFA_QUERY_DEVICE_CAPS_RDMA_WRITE, 1 << 5);
	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		ck_assert_uint_eq(efa_dv_device_caps(map[i].kernel, true),
				  map[i].dv);
		ck_assert_uint_eq(efa_dv_device_caps(map[i].kernel, false),
				  map[i].needs_rdma_size ? 0 : map[i].dv);
	}
	ck_assert_uint_eq(efa_dv_device_caps(0x2b, true), 0xf);
	ck_assert_uint_eq(efa_dv_device_caps(0x2b, false), 0x6);
	/* 0xefa2 on, as softefad's profiles and upstream's efadv see it */
	ck_assert_uint_eq(efa_dv_device_caps(0x6b, true), 0x1f);
	ck_assert_uint_eq(efa_dv_device_caps(0x6b, false), 0x16);
}
END_TEST

static Suite *context_suite(void)
{
	Suite *s = suite_create("efa_context");
	TCase *tc = tcase_create("udata");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_ucontext_cmd_layout);
	tcase_add_test(tc, test_ucontext_resp_layout);
	tcase_add_test(tc, test_ucontext_resp_accepted);
	tcase_add_test(tc, test_ucontext_resp_needs_create_ah);
	tcase_add_test(tc, test_ucontext_resp_needs_query_device);
	tcase_add_test(tc, test_ucontext_resp_needs_sub_cqs);
	tcase_add_test(tc, test_ucontext_resp_needs_llq);
	tcase_add_test(tc, test_ucontext_resp_inline_fits_wqe);
	tcase_add_test(tc, test_device_limits);
	tcase_add_test(tc, test_device_limits_need_extended_query);
	tcase_add_test(tc, test_device_attr_fixup);
	tcase_add_test(tc, test_dv_caps_mapping);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(context_suite)
