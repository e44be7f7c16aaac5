// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fault engine (fault/): the rule parser's refusals, each naming the
 * word, and the table's decisions: matchers, nth=, count=, rnr's tries
 * per packet, and seeded shares that fire on the same packets every run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "efa/efa_io_defs.h"
#include "fault/fault.h"

static struct sefa_faults *f;
static char why[256];

static void setup(void)
{
	ck_assert_int_eq(sefa_faults_new(2, &f), 0);
	why[0] = '\0';
}

static void teardown(void)
{
	sefa_faults_free(f);
}

static unsigned int add_ok(const char *rule)
{
	unsigned int id = 0;

	ck_assert_msg(!sefa_fault_add(f, rule, &id, why, sizeof(why)),
		      "'%s' refused: %s", rule, why);
	return id;
}

/* @rule is refused with EINVAL, and the reason holds @word. */
static void add_bad(const char *rule, const char *word)
{
	unsigned int id = 0;

	why[0] = '\0';
	ck_assert_int_eq(sefa_fault_add(f, rule, &id, why, sizeof(why)),
			 -EINVAL);
	ck_assert_msg(strstr(why, word), "'%s': reason '%s' lacks '%s'", rule,
		      why, word);
}

/* A packet of QP 5 on efa_0 to peer QP 9, a send. */
static int ask(unsigned int actions, uint64_t pkt, struct sefa_fault_hit *h)
{
	struct sefa_fault_ctx w;

	sefa_fault_ctx_init(&w, actions);
	w.dev = 0;
	w.qpn = 5;
	w.peer_qpn = 9;
	w.op = SEFA_FAULT_OP_SEND;
	w.pkt = pkt;
	return sefa_fault_match(f, &w, h);
}

START_TEST(parse_refusals)
{
	add_bad("", "no action");
	add_bad("qp=5", "no action");
	add_bad("rnr loss", "one action");
	add_bad("rnr status=loc-len", "one action");
	add_bad("explode", "'explode'");
	add_bad("rnr colour=red", "'colour=red'");
	add_bad("rnr qp=5 qp=6", "'qp' given twice");
	add_bad("rnr qp=abc", "qp=abc");
	add_bad("rnr qp=16777216", "qp=16777216");
	add_bad("rnr qp=-1", "qp=-1");
	add_bad("rnr dev=efa_2", "dev=efa_2");
	add_bad("rnr dev=mlx5_0", "dev=mlx5_0");
	add_bad("rnr op=atomic", "op=atomic");
	add_bad("rnr nth=0", "nth=0");
	add_bad("rnr count=0", "count=0");
	add_bad("rnr tries=0", "tries=0");
	add_bad("rnr tries=4294967296", "tries=4294967296");
	add_bad("loss share=0", "share=0");
	add_bad("loss share=101", "share=101");
	add_bad("loss share=nan", "share=nan");
	add_bad("loss seed=3", "seed=");
	add_bad("status=success", "status=success");
	add_bad("status=", "status=");
	/* no EFA completion status is reported as these */
	add_bad("status=mw-bind", "status=mw-bind");
	add_bad("status=fatal", "status=fatal");
	/* a receive fails on its own side, never a remote's */
	add_bad("status=rem-access op=recv", "not status=rem-access");
	add_bad("status=wr-flush op=recv", "loc-len, loc-qp-op, loc-prot or general");
	add_bad("fail-create", "obj=");
	add_bad("fail-create obj=srq", "obj=srq");
	add_bad("fail-create obj=ah errno=EWHAT", "errno=EWHAT");
	add_bad("event", "type=");
	add_bad("event type=boom", "type=boom");
	add_bad("delay", "usec=");
	add_bad("delay usec=0", "usec=0");
	add_bad("delay usec=3600000001", "usec=3600000001");
	add_bad("blackhole", "peer-gid");
	add_bad("blackhole peer-gid=fe80::zz", "peer-gid=fe80::zz");
	add_bad("loss tries=3", "'tries' is no key of loss");
	add_bad("rnr errno=EIO", "'errno' is no key of rnr");
	/* nothing refused was added: the first good rule is rule 1 */
	ck_assert_uint_eq(add_ok("rnr"), 1);
}
END_TEST

START_TEST(parse_accepts)
{
	struct sefa_fault_hit h;

	add_ok("status=rem-access qp=5 op=send count=1");
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_STATUS), 1, &h), 1);
	ck_assert_int_eq(h.action, SEFA_FAULT_STATUS);
	/* what libefa reports as IBV_WC_REM_ACCESS_ERR */
	ck_assert_int_eq(h.status, EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS);
	ck_assert_uint_eq(h.id, 1);
	add_ok("fail-create obj=ah");
	add_ok("fail-create obj=mr errno=eio");
	add_ok("  blackhole   dev=efa_0\tpeer-dev=efa_1  ");
	add_ok("blackhole peer-gid=fe80::1");
	add_ok("delay usec=3600000000 share=0.5 seed=18446744073709551615");
	add_ok("event type=device-fatal");
	add_ok("freeze");
	add_ok("rnr tries=4294967295 peer=16777215");
}
END_TEST

START_TEST(matchers)
{
	struct sefa_fault_hit h;

	add_ok("status=general qp=6");
	add_ok("status=general peer=8");
	add_ok("status=general op=write");
	add_ok("status=general dev=efa_1");
	add_ok("status=general peer-gid=fe80::1");
	/* none of them is about QP 5's send to QP 9 on efa_0 */
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_STATUS), 1, &h), 0);
	add_ok("rnr qp=5 peer=9 op=send dev=efa_0");
	/* a point that carries no rnr is not asked for one */
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_STATUS), 1, &h), 0);
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 1, &h), 1);
	ck_assert_uint_eq(h.id, 6);
	ck_assert_uint_eq(sefa_fault_dev_total(f, 0), 1);
	ck_assert_uint_eq(sefa_fault_dev_total(f, 1), 0);
}
END_TEST

/* QP 5's receive on efa_0 of a message from QP 9. */
static int ask_recv(struct sefa_fault_hit *h)
{
	struct sefa_fault_ctx w;

	sefa_fault_ctx_init(&w, SEFA_FAULT_BIT(SEFA_FAULT_STATUS));
	w.dev = 0;
	w.qpn = 5;
	w.peer_qpn = 9;
	w.op = SEFA_FAULT_OP_RECV;
	return sefa_fault_match(f, &w, h);
}

START_TEST(recv_status)
{
	struct sefa_fault_hit h;

	/* a status rule without op= is the send queue's alone */
	add_ok("status=loc-len");
	ck_assert_int_eq(ask_recv(&h), 0);
	ck_assert_int_eq(sefa_fault_clear(f, 1), 0);
	add_ok("status=loc-prot op=recv qp=5 peer=9");
	/* and one with op=recv the receive queue's alone */
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_STATUS), 1, &h), 0);
	ck_assert_int_eq(ask_recv(&h), 1);
	ck_assert_uint_eq(h.id, 2);
	ck_assert_int_eq(h.status, EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY);
}
END_TEST

START_TEST(nth_and_count)
{
	struct sefa_fault_hit h;
	unsigned int i, fired = 0;
	char list[1024];

	add_ok("status=loc-len nth=3");
	for (i = 1; i <= 6; i++) {
		int got = ask(SEFA_FAULT_BIT(SEFA_FAULT_STATUS), i, &h);

		ck_assert_int_eq(got, i == 3);
	}
	ck_assert_int_eq(sefa_fault_clear(f, 1), 0);
	ck_assert_int_eq(sefa_fault_clear(f, 1), -ENOENT);
	add_ok("status=loc-len count=2");
	for (i = 1; i <= 6; i++)
		fired += ask(SEFA_FAULT_BIT(SEFA_FAULT_STATUS), i, &h);
	ck_assert_uint_eq(fired, 2);
	sefa_fault_list_text(f, list, sizeof(list));
	ck_assert_msg(strstr(list, "2    2          yes"), "list: %s", list);
	ck_assert_msg(strstr(list, "status=loc-len count=2"), "list: %s", list);
}
END_TEST

START_TEST(rnr_tries)
{
	struct sefa_fault_hit h;

	add_ok("rnr tries=2 nth=2");
	/* packet 1 is not the 2nd; packet 2 is refused twice, then taken */
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 1, &h), 0);
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 2, &h), 1);
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 2, &h), 1);
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 2, &h), 0);
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 3, &h), 0);
	ck_assert_int_eq(sefa_fault_clear(f, 0), 0);
	/* packets in flight together: each is refused its own tries */
	add_ok("rnr tries=2");
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 11, &h), 1);
		ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 12, &h), 1);
	}
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 11, &h), 0);
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 12, &h), 0);
	ck_assert_int_eq(sefa_fault_clear(f, 0), 0);
	/* without tries=, the packet is refused until the rule goes */
	add_ok("rnr");
	for (int i = 0; i < 50; i++)
		ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 7, &h), 1);
	ck_assert_int_eq(sefa_fault_clear(f, 0), 0);
	ck_assert_int_eq(ask(SEFA_FAULT_BIT(SEFA_FAULT_RNR), 7, &h), 0);
}
END_TEST

/* Which of 1000 packets a share rule fires on, as a bit string. */
static void share_run(const char *rule, char out[1001])
{
	struct sefa_fault_hit h;
	unsigned int i;

	ck_assert_int_eq(sefa_fault_clear(f, 0), 0);
	add_ok(rule);
	for (i = 0; i < 1000; i++)
		out[i] = '0' + ask(SEFA_FAULT_BIT(SEFA_FAULT_LOSS), i + 1, &h);
	out[1000] = '\0';
}

START_TEST(seeded_shares)
{
	char a[1001], b[1001], c[1001];
	unsigned int n = 0, i;

	share_run("loss share=20 seed=42", a);
	share_run("loss share=20 seed=42", b);
	ck_assert_str_eq(a, b);
	share_run("loss share=20 seed=43", c);
	ck_assert_str_ne(a, c);
	for (i = 0; i < 1000; i++)
		n += a[i] == '1';
	/* 20% of 1000, give or take what a fair draw strays */
	ck_assert_msg(n > 140 && n < 260, "fired %u of 1000", n);
}
END_TEST

START_TEST(default_seed_is_id)
{
	char list[1024];

	add_ok("rnr");
	add_ok("loss share=50");
	sefa_fault_list_text(f, list, sizeof(list));
	ck_assert_msg(strstr(list, "\n2    0          no    2 "), "list: %s",
		      list);
}
END_TEST

START_TEST(rule_file)
{
	char path[] = "/tmp/test_fault_XXXXXX";
	int fd = mkstemp(path);
	FILE *fp;

	ck_assert_int_ge(fd, 0);
	fp = fdopen(fd, "w");
	fputs("# faults for a test\n\nrnr qp=5 # the server's\n"
	      "   \nstatus=general\nloss share=bogus\nrnr\n", fp);
	fclose(fp);
	ck_assert_int_eq(sefa_fault_add_file(f, path, why, sizeof(why)),
			 -EINVAL);
	ck_assert_msg(strstr(why, ":6: bad value in 'share=bogus'"), "%s",
		      why);
	ck_assert_int_eq(sefa_fault_clear(f, 2), 0);
	ck_assert_int_eq(sefa_fault_clear(f, 3), -ENOENT);
	unlink(path);
	ck_assert_int_eq(sefa_fault_add_file(f, path, why, sizeof(why)),
			 -ENOENT);
}
END_TEST

START_TEST(no_table)
{
	struct sefa_fault_ctx w;
	struct sefa_fault_hit h;

	sefa_fault_ctx_init(&w, SEFA_FAULT_BIT(SEFA_FAULT_RNR));
	ck_assert_int_eq(sefa_fault_match(NULL, &w, &h), 0);
	ck_assert_uint_eq(sefa_fault_dev_total(NULL, 0), 0);
}
END_TEST

static Suite *fault_suite(void)
{
	Suite *s = suite_create("fault");
	TCase *tc = tcase_create("fault");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, parse_refusals);
	tcase_add_test(tc, parse_accepts);
	tcase_add_test(tc, matchers);
	tcase_add_test(tc, recv_status);
	tcase_add_test(tc, nth_and_count);
	tcase_add_test(tc, rnr_tries);
	tcase_add_test(tc, seeded_shares);
	tcase_add_test(tc, default_seed_is_id);
	tcase_add_test(tc, rule_file);
	tcase_add_test(tc, no_table);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(fault_suite)
