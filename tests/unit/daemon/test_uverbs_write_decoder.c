// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's write() decoder of the uverbs ABI against malformed input:
 * headers, lengths, pointers and the commands that depend on a context.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>
#include <rdma/ib_user_verbs.h>

#include "decoder_fixture.h"
#include "check_main.h"

START_TEST(write_short)
{
	uint32_t four = 0;

	ck_assert_int_eq(wr(&four, sizeof(four)), -EINVAL);
	ck_assert_int_eq(wr(&four, 0), -EINVAL);
}
END_TEST

START_TEST(write_bad_pointer)
{
	ck_assert_int_eq(wr(unmapped, 64), -EFAULT);
	ck_assert_int_eq(wr(NULL, 64), -EFAULT);
}
END_TEST

START_TEST(write_unknown_command)
{
	struct ib_uverbs_cmd_hdr hdr = {
		.command = 63, .in_words = 2, .out_words = 0,
	};

	ck_assert_int_eq(wr(&hdr, sizeof(hdr)), -EOPNOTSUPP);
	hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | 40;
	ck_assert_int_eq(wr(&hdr, sizeof(hdr)), -EOPNOTSUPP);
	/* bits outside the command and the extended flag */
	hdr.command = 1 << 20;
	ck_assert_int_eq(wr(&hdr, sizeof(hdr)), -EINVAL);
}
END_TEST

START_TEST(write_needs_context)
{
	struct ib_uverbs_query_port_resp resp;
	struct query_port_cmd cmd;

	query_port_cmd(&cmd, &resp);
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -EINVAL);
}
END_TEST

/*
 * The device's hw_counters count a verb that would be an admin command on
 * EFA, and its failure by kind; a query answered by the driver is none.
 */
static void count_wr(const void *buf, size_t len, int want)
{
	int ret;

	c.note.has_cmd = false;
	c.note.has_method = false;
	ret = wr(buf, len);
	ck_assert_int_eq(ret, want);
	sefa_uverbs_count_admin(&c, false, ret);
}

START_TEST(write_admin_counted)
{
	const struct sefa_admin_counters *k = &d.dev[0].admin;
	struct ib_uverbs_query_port_resp resp;
	struct query_port_cmd cmd;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_alloc_pd core;
	} pd = {
		.hdr = {
			.command = IB_USER_VERBS_CMD_ALLOC_PD,
			.in_words = sizeof(pd) / 4,
			.out_words = sizeof(struct ib_uverbs_alloc_pd_resp) / 4,
		},
	};
	struct ib_uverbs_alloc_pd_resp pd_resp;

	pd.core.response = (uintptr_t)&pd_resp;
	query_port_cmd(&cmd, &resp);
	count_wr(&cmd, sizeof(cmd), -EINVAL);
	ck_assert_uint_eq(k->submitted_cmds, 0);
	count_wr(&pd, sizeof(pd), -EINVAL);
	ck_assert_uint_eq(k->submitted_cmds, 1);
	ck_assert_uint_eq(k->completed_cmds, 1);
	ck_assert_uint_eq(k->cmds_err, 1);
	ck_assert_uint_eq(k->alloc_pd_err, 1);
	ck_assert_uint_eq(k->create_qp_err + k->reg_mr_err + k->mmap_err, 0);
	sefa_uverbs_count_admin(&c, true, -EINVAL);
	ck_assert_uint_eq(k->mmap_err, 1);
	ck_assert_uint_eq(k->submitted_cmds, 1);
}
END_TEST

START_TEST(write_in_words)
{
	struct ib_uverbs_query_port_resp resp;
	struct query_port_cmd cmd;

	c.has_ucontext = true;
	query_port_cmd(&cmd, &resp);
	cmd.hdr.in_words++;
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -EINVAL);
	/* consistent, but shorter than the command needs */
	cmd.hdr.in_words = 4;
	ck_assert_int_eq(wr(&cmd, 16), -ENOSPC);
}
END_TEST

START_TEST(write_out_words)
{
	struct ib_uverbs_query_port_resp resp;
	struct query_port_cmd cmd;

	c.has_ucontext = true;
	query_port_cmd(&cmd, &resp);
	cmd.hdr.out_words = sizeof(resp) / 4 - 1;
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -ENOSPC);
}
END_TEST

START_TEST(write_bad_response_pointer)
{
	struct ib_uverbs_query_port_resp resp;
	struct query_port_cmd cmd;

	c.has_ucontext = true;
	query_port_cmd(&cmd, &resp);
	cmd.core.response = (uintptr_t)unmapped;
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -EFAULT);
	cmd.core.response = UINT64_MAX - 8;
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -EFAULT);
}
END_TEST

START_TEST(write_query_port)
{
	struct ib_uverbs_query_port_resp resp;
	struct query_port_cmd cmd;

	c.has_ucontext = true;
	query_port_cmd(&cmd, &resp);
	memset(&resp, 0xff, sizeof(resp));
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), sizeof(cmd));
	ck_assert_int_eq(resp.state, 4);
	ck_assert_int_eq(resp.max_msg_sz, 8928);
	ck_assert_int_eq(resp.lid, 0);
	ck_assert_int_eq(resp.link_layer, 0);

	cmd.core.port_num = 2;
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -EINVAL);
	cmd.core.port_num = 0;
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -EINVAL);
}
END_TEST

struct ex_query_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	struct ib_uverbs_ex_query_device core;
	uint64_t extra;
};

struct ex_query_resp {
	struct ib_uverbs_ex_query_device_resp core;
	struct efa_ibv_ex_query_device_resp efa;
};

static void ex_query_cmd(struct ex_query_cmd *cmd, struct ex_query_resp *resp)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
			   IB_USER_VERBS_EX_CMD_QUERY_DEVICE;
	cmd->hdr.in_words = sizeof(cmd->core) / 8;
	cmd->hdr.out_words = sizeof(resp->core) / 8;
	cmd->ex.response = (uintptr_t)resp;
	cmd->ex.provider_out_words = sizeof(resp->efa) / 8;
}

static size_t ex_len(const struct ex_query_cmd *cmd)
{
	return sizeof(cmd->hdr) + sizeof(cmd->ex) +
	       (cmd->hdr.in_words + cmd->ex.provider_in_words) * 8;
}

START_TEST(write_ex_query_device)
{
	struct ex_query_resp resp;
	struct ex_query_cmd cmd;

	c.has_ucontext = true;
	ex_query_cmd(&cmd, &resp);
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd)), ex_len(&cmd));
	ck_assert_int_eq(resp.core.base.vendor_id, 0x1d0f);
	ck_assert_int_eq(resp.core.base.vendor_part_id, 0xefa2);
	ck_assert_int_eq(resp.core.response_length, sizeof(resp.core));
	ck_assert_int_eq(resp.efa.max_sq_sge, 2);
	ck_assert_int_eq(resp.efa.max_rq_sge, 3);
	ck_assert(resp.efa.device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_READ);
}
END_TEST

START_TEST(write_ex_malformed)
{
	struct ex_query_resp resp;
	struct ex_query_cmd cmd;

	c.has_ucontext = true;
	ex_query_cmd(&cmd, &resp);
	cmd.ex.cmd_hdr_reserved = 1;
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd)), -EINVAL);

	ex_query_cmd(&cmd, &resp);
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd) + 8), -EINVAL);

	ex_query_cmd(&cmd, &resp);
	cmd.hdr.out_words = 1;		/* below response_length */
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd)), -ENOSPC);

	ex_query_cmd(&cmd, &resp);
	cmd.ex.response = 0;
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd)), -EINVAL);

	ex_query_cmd(&cmd, &resp);
	cmd.core.comp_mask = 1;
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd)), -EINVAL);

	/* a longer request from newer userspace must be zero beyond */
	ex_query_cmd(&cmd, &resp);
	cmd.hdr.in_words = 2;
	cmd.extra = 1;
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd)), -EOPNOTSUPP);
	cmd.extra = 0;
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd)), ex_len(&cmd));

	/* efa insists its query udata input is zero */
	ex_query_cmd(&cmd, &resp);
	cmd.ex.provider_in_words = 1;
	cmd.extra = 5;
	ck_assert_int_eq(wr(&cmd, ex_len(&cmd)), -EINVAL);
}
END_TEST

START_TEST(write_get_context_twice)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_get_context core;
		struct efa_ibv_alloc_ucontext_cmd efa;
	} cmd = {};
	struct {
		struct ib_uverbs_get_context_resp core;
		struct efa_ibv_alloc_ucontext_resp efa;
	} resp;

	cmd.hdr.command = IB_USER_VERBS_CMD_GET_CONTEXT;
	cmd.hdr.in_words = sizeof(cmd) / 4;
	cmd.hdr.out_words = sizeof(resp) / 4;
	cmd.core.response = (uintptr_t)&resp;
	c.has_ucontext = true;
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -EINVAL);

	/* userspace that does not honour TX batching is refused */
	c.has_ucontext = false;
	ck_assert_int_eq(wr(&cmd, sizeof(cmd)), -EOPNOTSUPP);
	ck_assert(!c.has_ucontext);
}

static Suite *write_decoder_suite(void)
{
	Suite *s = suite_create("uverbs write decoder");
	TCase *w = tcase_create("write");

	tcase_add_checked_fixture(w, decoder_setup, NULL);
	tcase_add_test(w, write_short);
	tcase_add_test(w, write_bad_pointer);
	tcase_add_test(w, write_unknown_command);
	tcase_add_test(w, write_needs_context);
	tcase_add_test(w, write_in_words);
	tcase_add_test(w, write_out_words);
	tcase_add_test(w, write_bad_response_pointer);
	tcase_add_test(w, write_query_port);
	tcase_add_test(w, write_ex_query_device);
	tcase_add_test(w, write_ex_malformed);
	tcase_add_test(w, write_get_context_twice);
	tcase_add_test(w, write_admin_counted);
	suite_add_tcase(s, w);
	return s;
}

SEFA_CHECK_MAIN(write_decoder_suite)
