// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * softefad's RDMA netlink parser fed whole and broken requests in-process:
 * every broken one is answered with NLMSG_ERROR and the errno the kernel
 * gives (or -EINVAL where the kernel would say nothing), never a crash.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <linux/netlink.h>
#include <stdatomic.h>
#include <rdma/rdma_netlink.h>
#include <stdlib.h>
#include <string.h>

#include "decoder_fixture.h"
#include "nldev/nl.h"
#include "check_main.h"

/* The answers of one call, each kept whole. */
#define MAX_ANSWERS	16
static struct {
	uint8_t msg[MAX_ANSWERS][4096];
	size_t len[MAX_ANSWERS];
	unsigned int n;
} got;

static int keep(void *ctx, const void *msg, size_t len)
{
	(void)ctx;
	ck_assert_uint_lt(got.n, MAX_ANSWERS);
	ck_assert_uint_le(len, sizeof(got.msg[0]));
	memcpy(got.msg[got.n], msg, len);
	got.len[got.n++] = len;
	return 0;
}

static const struct sefa_nl_sink sink = { .emit = keep };

static void setup(void)
{
	decoder_setup();
	memset(&got, 0, sizeof(got));
}

static void input(const void *buf, size_t len)
{
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(sefa_netlink_input(&d, true, buf, len, &sink), 0);
}

static const struct nlmsghdr *answer(unsigned int i)
{
	ck_assert_uint_lt(i, got.n);
	return (const struct nlmsghdr *)got.msg[i];
}

/* The one answer is NLMSG_ERROR with @err, for the request of @seq. */
static void expect_error(int err, uint32_t seq)
{
	const struct nlmsghdr *h;
	int e;

	ck_assert_uint_eq(got.n, 1);
	h = answer(0);
	ck_assert_uint_eq(h->nlmsg_type, NLMSG_ERROR);
	ck_assert_uint_eq(h->nlmsg_len, got.len[0]);
	ck_assert_uint_eq(h->nlmsg_seq, seq);
	memcpy(&e, NLMSG_DATA(h), sizeof(e));
	ck_assert_int_eq(e, err);
}

struct req {
	struct nlmsghdr h;
	uint8_t attrs[256];
};

static void req_init(struct req *r, unsigned int cmd, uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->h.nlmsg_len = NLMSG_HDRLEN;
	r->h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	r->h.nlmsg_flags = NLM_F_REQUEST | flags;
	r->h.nlmsg_seq = 77;
}

static void req_attr(struct req *r, uint16_t type, const void *v,
		     uint16_t len)
{
	struct nlattr a = { .nla_len = NLA_HDRLEN + len, .nla_type = type };
	uint8_t *p = (uint8_t *)r + r->h.nlmsg_len;

	memcpy(p, &a, sizeof(a));
	memcpy(p + NLA_HDRLEN, v, len);
	r->h.nlmsg_len += NLA_ALIGN(a.nla_len);
}

static void req_u32(struct req *r, uint16_t type, uint32_t v)
{
	req_attr(r, type, &v, sizeof(v));
}

/* The attribute @type of answer @i, or NULL. */
static const struct nlattr *find(unsigned int i, uint16_t type)
{
	const struct nlmsghdr *h = answer(i);
	const uint8_t *p = NLMSG_DATA(h);
	size_t rem = h->nlmsg_len - NLMSG_HDRLEN;
	const struct nlattr *a;

	while (rem >= NLA_HDRLEN) {
		a = (const struct nlattr *)p;
		ck_assert_uint_ge(a->nla_len, NLA_HDRLEN);
		ck_assert_uint_le(a->nla_len, rem);
		if (a->nla_type == type)
			return a;
		if ((size_t)NLA_ALIGN(a->nla_len) >= rem)
			break;
		rem -= NLA_ALIGN(a->nla_len);
		p += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

START_TEST(get_one_device)
{
	struct req r;
	const struct nlattr *a;
	uint64_t guid;

	req_init(&r, RDMA_NLDEV_CMD_GET, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	input(&r, r.h.nlmsg_len);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_uint_eq(answer(0)->nlmsg_type,
			  RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_GET));
	ck_assert_uint_eq(answer(0)->nlmsg_seq, 77);
	a = find(0, RDMA_NLDEV_ATTR_DEV_NAME);
	ck_assert_ptr_nonnull(a);
	ck_assert_str_eq((const char *)a + NLA_HDRLEN, d.dev[0].name);
	a = find(0, RDMA_NLDEV_ATTR_NODE_GUID);
	ck_assert_ptr_nonnull(a);
	memcpy(&guid, (const char *)a + NLA_HDRLEN, sizeof(guid));
	ck_assert_uint_eq(guid, d.dev[0].node_guid);
	/* EFA: node type unspecified, and no protocol */
	a = find(0, RDMA_NLDEV_ATTR_DEV_NODE_TYPE);
	ck_assert_uint_eq(*((const uint8_t *)a + NLA_HDRLEN), 7);
	ck_assert_ptr_null(find(0, RDMA_NLDEV_ATTR_DEV_PROTOCOL));
}
END_TEST

START_TEST(dump_ends_with_done)
{
	struct req r;
	int err;

	req_init(&r, RDMA_NLDEV_CMD_GET, NLM_F_DUMP | NLM_F_ACK);
	input(&r, r.h.nlmsg_len);
	/* one device, then NLMSG_DONE; a dump is never acknowledged */
	ck_assert_uint_eq(got.n, 2);
	ck_assert(answer(0)->nlmsg_flags & NLM_F_MULTI);
	ck_assert_uint_eq(answer(1)->nlmsg_type, NLMSG_DONE);
	memcpy(&err, NLMSG_DATA(answer(1)), sizeof(err));
	ck_assert_int_eq(err, 0);
}
END_TEST

/*
 * The resource summary as the device answers: one device by its index,
 * every device in a dump, none for an index no device has.
 */
START_TEST(res_summary_one_or_all)
{
	const uint16_t type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
					       RDMA_NLDEV_CMD_RES_GET);
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_RES_GET, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	input(&r, r.h.nlmsg_len);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_uint_eq(answer(0)->nlmsg_type, type);
	ck_assert_uint_eq(answer(0)->nlmsg_flags & NLM_F_MULTI, 0);
	ck_assert_ptr_nonnull(find(0, RDMA_NLDEV_ATTR_RES_SUMMARY));

	req_init(&r, RDMA_NLDEV_CMD_RES_GET, NLM_F_DUMP);
	input(&r, r.h.nlmsg_len);
	ck_assert_uint_eq(got.n, d.ndev + 1);
	ck_assert_uint_eq(answer(0)->nlmsg_type, type);
	ck_assert(answer(0)->nlmsg_flags & NLM_F_MULTI);
	ck_assert_ptr_nonnull(find(0, RDMA_NLDEV_ATTR_RES_SUMMARY));
	ck_assert_uint_eq(answer(d.ndev)->nlmsg_type, NLMSG_DONE);

	req_init(&r, RDMA_NLDEV_CMD_RES_GET, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, d.ndev);
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(ack_when_asked)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_SYS_GET, NLM_F_ACK);
	input(&r, r.h.nlmsg_len);
	ck_assert_uint_eq(got.n, 2);
	ck_assert_ptr_nonnull(find(0, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK));
	ck_assert_uint_eq(answer(1)->nlmsg_type, NLMSG_ERROR);
	ck_assert_int_eq(*(const int *)NLMSG_DATA(answer(1)), 0);
}
END_TEST

START_TEST(short_header)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_GET, 0);
	input(&r, NLMSG_HDRLEN - 1);
	/* what of a header there was: the seq made it */
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(length_past_the_end)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_GET, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	r.h.nlmsg_len += 8;
	input(&r, r.h.nlmsg_len - 8);
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(length_below_header)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_GET, 0);
	r.h.nlmsg_len = 4;
	input(&r, NLMSG_HDRLEN);
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(attribute_overrun)
{
	struct req r;
	struct nlattr *a;

	req_init(&r, RDMA_NLDEV_CMD_GET, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	a = (struct nlattr *)((uint8_t *)&r + NLMSG_HDRLEN);
	a->nla_len = 64;	/* beyond the message */
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);

	a->nla_len = 2;		/* shorter than its own header */
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(attribute_too_short)
{
	struct req r;
	uint16_t half = 0;

	req_init(&r, RDMA_NLDEV_CMD_GET, 0);
	req_attr(&r, RDMA_NLDEV_ATTR_DEV_INDEX, &half, sizeof(half));
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(string_without_nul)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_GET_CHARDEV, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	req_attr(&r, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", 6);
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(no_such_device)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_GET, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 5);
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);

	/* nor does a doit go without its device */
	req_init(&r, RDMA_NLDEV_CMD_PORT_GET, 0);
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(no_such_port)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_STAT_GET, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
	req_u32(&r, RDMA_NLDEV_ATTR_PORT_INDEX, 2);
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
}
END_TEST

/* The u8 attribute @type of the one answer. */
static uint8_t answer_u8(uint16_t type)
{
	const struct nlattr *a = find(0, type);

	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(a->nla_len, NLA_HDRLEN + 1);
	return *((const uint8_t *)a + NLA_HDRLEN);
}

/*
 * A port taken down says so to netlink as to query_port: DOWN and
 * Disabled, then ACTIVE and LinkUp again once it is up.
 */
START_TEST(port_state_follows_the_port)
{
	static const struct {
		bool down;
		uint8_t state, phys;
	} want[] = { { false, 4, 5 }, { true, 1, 3 }, { false, 4, 5 } };
	struct ib_uverbs_query_port_resp resp;
	struct query_port_cmd cmd;
	struct req r;
	size_t i;

	c.has_ucontext = true;
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		atomic_store(&d.dev[0].port_down, want[i].down);
		req_init(&r, RDMA_NLDEV_CMD_PORT_GET, 0);
		req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
		req_u32(&r, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		input(&r, r.h.nlmsg_len);
		ck_assert_uint_eq(got.n, 1);
		ck_assert_uint_eq(answer_u8(RDMA_NLDEV_ATTR_PORT_STATE),
				  want[i].state);
		ck_assert_uint_eq(answer_u8(RDMA_NLDEV_ATTR_PORT_PHYS_STATE),
				  want[i].phys);

		memset(&resp, 0xff, sizeof(resp));
		query_port_cmd(&cmd, &resp);
		ck_assert_int_eq(wr(&cmd, sizeof(cmd)), sizeof(cmd));
		ck_assert_uint_eq(resp.state, want[i].state);
		ck_assert_uint_eq(resp.phys_state, want[i].phys);
	}
}
END_TEST

START_TEST(unknown_commands)
{
	struct req r;

	/* beyond nldev's operations, or another client's */
	req_init(&r, RDMA_NLDEV_NUM_OPS, 0);
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
	req_init(&r, 1, 0);
	r.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_LS, 1);
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
	/* nldev's, but not SoftEFA's */
	req_init(&r, RDMA_NLDEV_CMD_SET, 0);
	input(&r, r.h.nlmsg_len);
	expect_error(-EOPNOTSUPP, 77);
	/* a dump of what does not dump */
	req_init(&r, RDMA_NLDEV_CMD_SYS_GET, NLM_F_DUMP);
	input(&r, r.h.nlmsg_len);
	expect_error(-EINVAL, 77);
}
END_TEST

START_TEST(admin_only)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_SET, 0);
	memset(&got, 0, sizeof(got));
	ck_assert_int_eq(sefa_netlink_input(&d, false, &r, r.h.nlmsg_len,
					    &sink), 0);
	expect_error(-EPERM, 77);
}
END_TEST

/* A dump that fails says why in its NLMSG_DONE, as the kernel's do. */
START_TEST(failed_dump)
{
	struct req r;
	int err;

	req_init(&r, RDMA_NLDEV_CMD_RES_QP_GET, NLM_F_DUMP);
	input(&r, r.h.nlmsg_len);
	ck_assert_uint_eq(got.n, 1);
	ck_assert_uint_eq(answer(0)->nlmsg_type, NLMSG_DONE);
	memcpy(&err, NLMSG_DATA(answer(0)), sizeof(err));
	ck_assert_int_eq(err, -EINVAL);
}
END_TEST

/* Two requests in one send: both answered, a broken third stops it. */
START_TEST(several_in_one)
{
	struct req r[3];
	uint8_t buf[sizeof(r)];
	size_t len = 0;
	int i;

	for (i = 0; i < 3; i++) {
		req_init(&r[i], RDMA_NLDEV_CMD_SYS_GET, 0);
		r[i].h.nlmsg_seq = 10 + i;
	}
	r[2].h.nlmsg_len = 1000;
	for (i = 0; i < 3; i++) {
		memcpy(buf + len, &r[i], NLMSG_HDRLEN);
		len += NLMSG_HDRLEN;
	}
	input(buf, len);
	ck_assert_uint_eq(got.n, 3);
	ck_assert_uint_eq(answer(0)->nlmsg_seq, 10);
	ck_assert_uint_eq(answer(1)->nlmsg_seq, 11);
	ck_assert_uint_eq(answer(2)->nlmsg_type, NLMSG_ERROR);
	ck_assert_uint_eq(answer(2)->nlmsg_seq, 12);
}
END_TEST

/* Controls and answers are no requests: nothing to say, unless asked. */
START_TEST(not_a_request)
{
	struct req r;

	req_init(&r, RDMA_NLDEV_CMD_GET, 0);
	r.h.nlmsg_flags = 0;
	input(&r, r.h.nlmsg_len);
	ck_assert_uint_eq(got.n, 0);
	r.h.nlmsg_type = NLMSG_NOOP;
	r.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	input(&r, r.h.nlmsg_len);
	expect_error(0, 77);
}
END_TEST

/*
 * Requests with bytes changed at random (a fixed seed, so a failure comes
 * again): each answer is whole, and one naming an error names one the
 * parser gives.
 */
START_TEST(mutated)
{
	static const unsigned int cmds[] = {
		RDMA_NLDEV_CMD_GET, RDMA_NLDEV_CMD_PORT_GET,
		RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_CMD_STAT_GET,
		RDMA_NLDEV_CMD_GET_CHARDEV, RDMA_NLDEV_CMD_RES_GET,
	};
	unsigned int seed = 1, i, j, k;
	struct req r;
	size_t len;
	int err;

	for (i = 0; i < 3000; i++) {
		req_init(&r, cmds[i % 6], i & 1 ? NLM_F_DUMP : 0);
		req_u32(&r, RDMA_NLDEV_ATTR_DEV_INDEX, 0);
		req_u32(&r, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
		req_attr(&r, RDMA_NLDEV_ATTR_CHARDEV_TYPE, "uverbs", 7);
		len = r.h.nlmsg_len;
		for (j = 0; j < 1 + i % 4; j++)
			((uint8_t *)&r)[rand_r(&seed) % len] = rand_r(&seed);
		input(&r, 1 + rand_r(&seed) % sizeof(r));
		for (k = 0; k < got.n; k++) {
			ck_assert_uint_eq(answer(k)->nlmsg_len, got.len[k]);
			if (answer(k)->nlmsg_type != NLMSG_ERROR)
				continue;
			memcpy(&err, NLMSG_DATA(answer(k)), sizeof(err));
			ck_assert(err == 0 || err == -EINVAL ||
				  err == -EOPNOTSUPP || err == -ENOENT);
		}
	}
}
END_TEST

static Suite *nldev_suite(void)
{
	Suite *s = suite_create("nldev");
	TCase *tc = tcase_create("parse");

	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, get_one_device);
	tcase_add_test(tc, dump_ends_with_done);
	tcase_add_test(tc, res_summary_one_or_all);
	tcase_add_test(tc, ack_when_asked);
	tcase_add_test(tc, short_header);
	tcase_add_test(tc, length_past_the_end);
	tcase_add_test(tc, length_below_header);
	tcase_add_test(tc, attribute_overrun);
	tcase_add_test(tc, attribute_too_short);
	tcase_add_test(tc, string_without_nul);
	tcase_add_test(tc, no_such_device);
	tcase_add_test(tc, no_such_port);
	tcase_add_test(tc, port_state_follows_the_port);
	tcase_add_test(tc, unknown_commands);
	tcase_add_test(tc, admin_only);
	tcase_add_test(tc, failed_dump);
	tcase_add_test(tc, several_in_one);
	tcase_add_test(tc, not_a_request);
	tcase_add_test(tc, mutated);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(nldev_suite)
