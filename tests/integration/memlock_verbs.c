// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a process may make the device hold.  Registered memory counts
 * against the process's RLIMIT_MEMLOCK, in pages, unless it has
 * CAP_IPC_LOCK; and each open device file has caps on its objects and on
 * its queue memory.  Uses libibverbs alone, so "softefa exec --provider
 * stock" runs it on the stock provider.  memlock.sh runs it:
 *
 *   MEMLOCK_MODE=limited  without CAP_IPC_LOCK, under a small limit
 *   MEMLOCK_MODE=bypass   with CAP_IPC_LOCK, under the same limit
 *   MEMLOCK_MODE=caps     on a daemon started with --max-objects
 *                         SEFA_MAX_OBJECTS and --max-queue-mem SEFA_MAX_QUEUE
 *
 * SEFA_CLI names softefa, for "softefa stats".
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "check_main.h"
#include "dp.h"

#define MAX_MRS		64
/* The tests of the limit need one of 5 to 60 pages. */
#define MIN_LIMIT	5
#define MAX_LIMIT	60
#define BUF_PAGES	(MAX_LIMIT + 4)

static struct {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_mr *mr[MAX_MRS];
	unsigned int nmr;
	uint8_t *buf;
	size_t page;
	size_t limit;		/* RLIMIT_MEMLOCK, in pages */
} e;

static void setup(void)
{
	struct rlimit lim;

	ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &lim), 0);
	e.page = (size_t)sysconf(_SC_PAGESIZE);
	e.limit = lim.rlim_cur == RLIM_INFINITY ? SIZE_MAX :
						  lim.rlim_cur / e.page;
	e.buf = aligned_alloc(e.page, BUF_PAGES * e.page);
	ck_assert_ptr_nonnull(e.buf);
	memset(e.buf, 0, BUF_PAGES * e.page);
	e.ctx = dp_open_device();
	e.pd = ibv_alloc_pd(e.ctx);
	ck_assert_ptr_nonnull(e.pd);
	e.nmr = 0;
}

static void teardown(void)
{
	while (e.nmr)
		ck_assert_int_eq(ibv_dereg_mr(e.mr[--e.nmr]), 0);
	ck_assert_int_eq(ibv_dealloc_pd(e.pd), 0);
	ck_assert_int_eq(ibv_close_device(e.ctx), 0);
	free(e.buf);
}

static void need_small_limit(void)
{
	ck_assert_msg(e.limit >= MIN_LIMIT && e.limit <= MAX_LIMIT,
		      "RLIMIT_MEMLOCK: %zu pages, not %d to %d", e.limit,
		      MIN_LIMIT, MAX_LIMIT);
}

/* Register @len bytes from @off of the buffer on @pd; NULL with errno. */
static struct ibv_mr *reg_on(struct ibv_pd *pd, size_t off, size_t len)
{
	struct ibv_mr *mr = ibv_reg_mr(pd, e.buf + off, len,
				       IBV_ACCESS_LOCAL_WRITE);

	if (mr) {
		ck_assert_uint_lt(e.nmr, MAX_MRS);
		e.mr[e.nmr++] = mr;
	}
	return mr;
}

static void reg_ok(size_t off, size_t len)
{
	ck_assert_msg(reg_on(e.pd, off, len), "reg %zu bytes at %zu: %s",
		      len, off, strerror(errno));
}

static void reg_enomem_on(struct ibv_pd *pd, size_t off, size_t len)
{
	errno = 0;
	ck_assert_msg(!reg_on(pd, off, len),
		      "reg %zu bytes at %zu beyond the limit succeeded", len,
		      off);
	ck_assert_int_eq(errno, ENOMEM);
}

static void reg_enomem(size_t off, size_t len)
{
	reg_enomem_on(e.pd, off, len);
}

/* Deregister the region registered last. */
static void dereg_last(void)
{
	ck_assert_uint_gt(e.nmr, 0);
	ck_assert_int_eq(ibv_dereg_mr(e.mr[--e.nmr]), 0);
}

/* The limit holds to the page, and deregistration gives the pages back. */
START_TEST(reg_up_to_limit)
{
	need_small_limit();
	reg_ok(0, e.limit * e.page);
	reg_enomem(e.limit * e.page, 1);
	dereg_last();
	reg_ok(e.limit * e.page, 1);
	reg_ok(0, (e.limit - 1) * e.page);
	reg_enomem(e.limit * e.page + e.page, e.page);
}
END_TEST

/*
 * Every page a region touches counts, however few of its bytes; the same
 * pages registered twice count twice.
 */
START_TEST(pages_spanned)
{
	need_small_limit();
	reg_ok(0, (e.limit - 2) * e.page);
	/* two bytes across a page boundary: two pages */
	reg_ok(e.limit * e.page - 1, 2);
	reg_enomem(0, 1);
	dereg_last();
	/* two bytes inside one page, twice: one page each time */
	reg_ok(e.limit * e.page + 8, 2);
	reg_ok(e.limit * e.page + 8, 2);
	reg_enomem(e.limit * e.page + 8, 2);
}
END_TEST

/* A page past the limit registers; until then, ENOMEM and no region. */
static bool reg_past_limit(void)
{
	if (reg_on(e.pd, e.limit * e.page, e.page))
		return true;
	ck_assert_int_eq(errno, ENOMEM);
	return false;
}

/* The count is the process's: two open device files share it. */
START_TEST(per_process)
{
	struct ibv_context *ctx2 = dp_open_device();
	struct ibv_pd *pd2 = ibv_alloc_pd(ctx2);

	need_small_limit();
	ck_assert_ptr_nonnull(pd2);
	reg_ok(0, (e.limit - 1) * e.page);
	reg_enomem_on(pd2, e.limit * e.page, 2 * e.page);
	ck_assert_ptr_nonnull(reg_on(pd2, e.limit * e.page, e.page));
	reg_enomem(0, 1);
	/*
	 * A file closed with a region still on it gives its pages back,
	 * once the daemon has seen the close.
	 */
	e.nmr--;
	ck_assert_int_eq(ibv_close_device(ctx2), 0);
	CK_WAIT_UNTIL(20000, reg_past_limit(),
		      "the closed file's pages to come back");
}
END_TEST

/* With CAP_IPC_LOCK the limit does not apply. */
START_TEST(cap_ipc_lock_bypasses)
{
	need_small_limit();
	reg_ok(0, (e.limit + 4) * e.page);
	reg_ok(0, (e.limit + 4) * e.page);
}
END_TEST

/*
 * Field @key of this process's line of "softefa stats" (the first with
 * its pid), or -1 if there is none.
 */
static long long client_stat(const char *key)
{
	const char *cli = getenv("SEFA_CLI");
	char cmd[4096], line[512], want[64];
	long long v = -1;
	FILE *f;

	ck_assert_ptr_nonnull(cli);
	snprintf(cmd, sizeof(cmd), "'%s' stats", cli);
	snprintf(want, sizeof(want), "client pid %d ", (int)getpid());
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		char *k = strstr(line, key);

		if (v < 0 && !strncmp(line, want, strlen(want)) && k &&
		    k[-1] == ' ')
			v = strtoll(k + strlen(key), NULL, 10);
	}
	ck_assert_int_eq(pclose(f), 0);
	return v;
}

/* softefa stats shows what the regions pin: whole pages, in bytes. */
START_TEST(stats_pinned_bytes)
{
	ck_assert_int_eq(client_stat("pinned_bytes "), 0);
	reg_ok(0, 2 * e.page + 1);
	ck_assert_int_eq(client_stat("pinned_bytes "), 3 * e.page);
	reg_ok(e.page / 2, e.page);
	ck_assert_int_eq(client_stat("pinned_bytes "), 5 * e.page);
	dereg_last();
	dereg_last();
	ck_assert_int_eq(client_stat("pinned_bytes "), 0);
}
END_TEST

static unsigned long env_ulong(const char *name)
{
	const char *s = getenv(name);

	ck_assert_msg(s, "%s is not set", name);
	return strtoul(s, NULL, 0);
}

/*
 * --max-objects: every verbs object counts, each file on its own; one
 * beyond is EAGAIN, and one destroyed makes room again.
 */
START_TEST(object_cap)
{
	unsigned long max = env_ulong("SEFA_MAX_OBJECTS"), i;
	struct ibv_context *ctx2;
	struct ibv_pd **pd = calloc(max, sizeof(*pd)), *pd2;

	ck_assert_ptr_nonnull(pd);
	/* the fixture's PD is one */
	for (i = 1; i < max; i++) {
		pd[i] = ibv_alloc_pd(e.ctx);
		ck_assert_msg(pd[i], "PD %lu of %lu: %s", i, max,
			      strerror(errno));
	}
	ck_assert_int_eq(client_stat("objects "), max);
	errno = 0;
	ck_assert_ptr_null(ibv_alloc_pd(e.ctx));
	ck_assert_int_eq(errno, EAGAIN);
	errno = 0;
	ck_assert_ptr_null(ibv_create_cq(e.ctx, 1, NULL, NULL, 0));
	ck_assert_int_eq(errno, EAGAIN);
	errno = 0;
	ck_assert_ptr_null(reg_on(e.pd, 0, e.page));
	ck_assert_int_eq(errno, EAGAIN);

	/* another file of the same process has its own count */
	ctx2 = dp_open_device();
	pd2 = ibv_alloc_pd(ctx2);
	ck_assert_msg(pd2, "PD on a second file: %s", strerror(errno));
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_close_device(ctx2), 0);

	ck_assert_int_eq(ibv_dealloc_pd(pd[max - 1]), 0);
	reg_ok(0, e.page);
	for (i = 1; i < max - 1; i++)
		ck_assert_int_eq(ibv_dealloc_pd(pd[i]), 0);
	free(pd);
}
END_TEST

/*
 * --max-queue-mem: CQ rings and doorbells count until the cap, then
 * ENOMEM; a destroyed CQ gives its memory back.
 */
START_TEST(queue_cap)
{
	unsigned long max = env_ulong("SEFA_MAX_QUEUE");
	struct ibv_cq *cq[256];
	long long held;
	unsigned int n;

	for (n = 0; n < 256; n++) {
		errno = 0;
		cq[n] = ibv_create_cq(e.ctx, 256, NULL, NULL, 0);
		if (!cq[n])
			break;
	}
	ck_assert_msg(n > 0 && n < 256, "%u CQs under %lu bytes", n, max);
	ck_assert_int_eq(errno, ENOMEM);
	held = client_stat("queue_bytes ");
	ck_assert_int_le(held, max);
	/* what the last CQ took, the next did not find */
	ck_assert_int_gt(held + held / n, max);
	ck_assert_int_eq(ibv_destroy_cq(cq[--n]), 0);
	ck_assert_int_eq(client_stat("queue_bytes "), held - held / (n + 1));
	cq[n] = ibv_create_cq(e.ctx, 256, NULL, NULL, 0);
	ck_assert_msg(cq[n], "CQ after one was destroyed: %s",
		      strerror(errno));
	n++;
	while (n)
		ck_assert_int_eq(ibv_destroy_cq(cq[--n]), 0);
	ck_assert_int_eq(client_stat("queue_bytes "), 0);
}
END_TEST

static Suite *memlock_suite(void)
{
	const char *mode = getenv("MEMLOCK_MODE");
	Suite *s = suite_create("memlock");
	TCase *tc = tcase_create(mode ? mode : "none");

	/* Each "softefa stats" takes a while on a busy machine. */
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	if (mode && !strcmp(mode, "limited")) {
		tcase_add_test(tc, reg_up_to_limit);
		tcase_add_test(tc, pages_spanned);
		tcase_add_test(tc, per_process);
		tcase_add_test(tc, stats_pinned_bytes);
	} else if (mode && !strcmp(mode, "bypass")) {
		tcase_add_test(tc, cap_ipc_lock_bypasses);
		tcase_add_test(tc, stats_pinned_bytes);
	} else if (mode && !strcmp(mode, "caps")) {
		tcase_add_test(tc, object_cap);
		tcase_add_test(tc, queue_cap);
	} else {
		fprintf(stderr, "MEMLOCK_MODE: limited, bypass or caps\n");
		exit(2);
	}
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(memlock_suite)
