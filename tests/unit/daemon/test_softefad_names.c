// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What softefad's log says of a refused request: the ABI's names of its
 * numbers, and the reason a refusal site gives (softefad(8), LOG).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>

#include "efa/efa_abi_compat.h"
#include "efa/efa_ext_abi.h"
#include "uverbs/uverbs.h"
#include "check_main.h"

START_TEST(write_names)
{
	ck_assert_str_eq(sefa_write_cmd_name(IB_USER_VERBS_CMD_GET_CONTEXT),
			 "GET_CONTEXT");
	ck_assert_str_eq(sefa_write_cmd_name(IB_USER_VERBS_CMD_CREATE_QP),
			 "CREATE_QP");
	ck_assert_str_eq(sefa_write_cmd_name(IB_USER_VERBS_CMD_OPEN_QP),
			 "OPEN_QP");
	ck_assert_str_eq(sefa_write_cmd_name(IB_USER_VERBS_CMD_FLAG_EXTENDED |
					     IB_USER_VERBS_EX_CMD_CREATE_CQ),
			 "CREATE_CQ");
	ck_assert_str_eq(sefa_write_cmd_name(IB_USER_VERBS_CMD_FLAG_EXTENDED |
					     IB_USER_VERBS_EX_CMD_MODIFY_CQ),
			 "MODIFY_CQ");
	/* ALLOC_PD has no extended form; 62 and bit 20 are nobody's */
	ck_assert_ptr_null(sefa_write_cmd_name(IB_USER_VERBS_CMD_FLAG_EXTENDED |
					       IB_USER_VERBS_CMD_ALLOC_PD));
	ck_assert_ptr_null(sefa_write_cmd_name(62));
	ck_assert_ptr_null(sefa_write_cmd_name(1U << 20));
}
END_TEST

START_TEST(ioctl_names)
{
	ck_assert_str_eq(sefa_ioctl_object_name(UVERBS_OBJECT_DEVICE),
			 "DEVICE");
	ck_assert_str_eq(sefa_ioctl_object_name(UVERBS_OBJECT_ASYNC_EVENT),
			 "ASYNC_EVENT");
	ck_assert_ptr_null(sefa_ioctl_object_name(0x77));
	/* method ids are per object */
	ck_assert_str_eq(sefa_ioctl_method_name(UVERBS_OBJECT_DEVICE, 0),
			 "INVOKE_WRITE");
	ck_assert_str_eq(sefa_ioctl_method_name(UVERBS_OBJECT_QP, 0),
			 "QP_CREATE");
	ck_assert_str_eq(sefa_ioctl_method_name(UVERBS_OBJECT_CQ,
						UVERBS_METHOD_CQ_DESTROY),
			 "CQ_DESTROY");
	ck_assert_str_eq(sefa_ioctl_method_name(UVERBS_OBJECT_MR,
						EFA_IB_METHOD_MR_QUERY),
			 "EFA_MR_QUERY");
	ck_assert_str_eq(sefa_ioctl_method_name(UVERBS_OBJECT_MR,
						SEFA_IB_METHOD_MR_CREATE_INDIRECT),
			 "SEFA_MR_CREATE_INDIRECT");
	ck_assert_ptr_null(sefa_ioctl_method_name(UVERBS_OBJECT_CQ, 7));
	ck_assert_ptr_null(sefa_ioctl_method_name(UVERBS_OBJECT_PD,
						  EFA_IB_METHOD_MR_QUERY));
}
END_TEST

/* The first reason for an errno stands; one for another errno replaces it. */
START_TEST(refuse_reasons)
{
	struct sefa_client c = {};

	ck_assert_int_eq(sefa_refuse(&c, -ENOENT, "unknown %s handle %u",
				     "CQ", 7), -ENOENT);
	ck_assert_int_eq(sefa_refuse(&c, -ENOENT, "generic"), -ENOENT);
	ck_assert_int_eq(c.note.err, -ENOENT);
	ck_assert_str_eq(c.note.why, "unknown CQ handle 7");
	ck_assert_int_eq(sefa_refuse(&c, -EINVAL, "as EINVAL"), -EINVAL);
	ck_assert_int_eq(c.note.err, -EINVAL);
	ck_assert_str_eq(c.note.why, "as EINVAL");
	ck_assert_int_eq(sefa_routine(&c, -ENOSPC), -ENOSPC);
	ck_assert_int_eq(c.note.routine, -ENOSPC);
}
END_TEST

/* The write() decoder names the command, and says why it refuses it. */
START_TEST(decoder_notes)
{
	struct ib_uverbs_cmd_hdr hdr = { .command = 62, .in_words = 2 };
	struct sefa_daemon d = {};
	struct sefa_client c = { .d = &d, .pid = getpid(), .sock = -1 };

	ck_assert_int_eq(sefa_uverbs_write(&c, (uintptr_t)&hdr, sizeof(hdr)),
			 -EOPNOTSUPP);
	ck_assert(c.note.has_cmd);
	ck_assert_int_eq(c.note.cmd, 62);
	ck_assert_int_eq(c.note.err, -EOPNOTSUPP);
	ck_assert_str_eq(c.note.why, "command not implemented");
}
END_TEST

static Suite *names_suite(void)
{
	Suite *s = suite_create("softefad names");
	TCase *t = tcase_create("names");

	tcase_add_test(t, write_names);
	tcase_add_test(t, ioctl_names);
	tcase_add_test(t, refuse_reasons);
	tcase_add_test(t, decoder_notes);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(names_suite)
