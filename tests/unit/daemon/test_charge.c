// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a client may make the daemon hold, on the NIC fixture's host, where
 * the client is this very process: the pages its regions pin against its
 * own RLIMIT_MEMLOCK (CAP_IPC_LOCK dropped first, as root keeps it), a
 * region whose process exited, the caps on objects and queue memory
 * per file, and where a file's keys are in its memory.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>

#include "check_main.h"
#include "nic_fixture.h"
#include "nic/loc.h"
#include "verbs/verbs.h"

static size_t page;
static uint8_t *buf;

static void setup(void)
{
	fx_setup();
	page = (size_t)sysconf(_SC_PAGESIZE);
	buf = aligned_alloc(page, 16 * page);
	ck_assert_ptr_nonnull(buf);
}

static void teardown(void)
{
	fx_teardown();
	free(buf);
}

/* This process, in its Check child: @pages of RLIMIT_MEMLOCK, no cap. */
static void limit_self(size_t pages)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	struct rlimit lim = { pages * page, pages * page };

	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &lim), 0);
	ck_assert_int_eq(syscall(SYS_capget, &hdr, data), 0);
	data[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	ck_assert_int_eq(syscall(SYS_capset, &hdr, data), 0);
}

static int reg(struct sefa_pd *pd, size_t off, size_t len,
	       struct sefa_mr **mr)
{
	uint64_t addr = (uintptr_t)buf + off;

	return sefa_mr_reg(pd->uobj.c, pd, addr, len, addr,
			   IBV_ACCESS_LOCAL_WRITE, mr);
}

/* Pages touched, not bytes; given back on deregistration. */
START_TEST(pages_touched)
{
	struct sefa_pd *pd = fx_pd(0);
	struct sefa_mr *a, *b;

	ck_assert_int_eq(reg(pd, page - 1, 2, &a), 0);
	ck_assert_uint_eq(a->npages, 2);
	ck_assert_int_eq(reg(pd, 0, 3 * page, &b), 0);
	ck_assert_uint_eq(b->npages, 3);
	ck_assert_uint_eq(pd->uobj.c->pinned_pages, 5);
	ck_assert_int_eq(sefa_mr_dereg(a), 0);
	ck_assert_uint_eq(pd->uobj.c->pinned_pages, 3);
	ck_assert_int_eq(sefa_mr_dereg(b), 0);
	ck_assert_uint_eq(pd->uobj.c->pinned_pages, 0);
	ck_assert_ptr_null(fx_d.mms);
}
END_TEST

/*
 * Beyond the limit ENOMEM, and nothing changed; the count is the
 * process's, across files (the fixture's two devices).
 */
START_TEST(limit)
{
	struct sefa_pd *pd0 = fx_pd(0), *pd1 = fx_pd(1);
	struct sefa_mr *a, *b, *c;

	limit_self(4);
	ck_assert_int_eq(reg(pd0, 0, 3 * page, &a), 0);
	ck_assert_int_eq(reg(pd1, 3 * page, page + 1, &b), -ENOMEM);
	ck_assert_uint_eq(pd1->uobj.c->pinned_pages, 0);
	ck_assert_uint_eq(pd1->uobj.c->nobjects, 1);
	ck_assert_int_eq(reg(pd1, 3 * page, page, &b), 0);
	ck_assert_int_eq(reg(pd0, 0, 1, &c), -ENOMEM);
	ck_assert_int_eq(sefa_mr_dereg(b), 0);
	ck_assert_int_eq(reg(pd0, 0, 1, &c), 0);
	ck_assert_int_eq(sefa_mr_dereg(c), 0);
	ck_assert_int_eq(sefa_mr_dereg(a), 0);
}
END_TEST

/*
 * Keys up to the device's max_mr: the key table grows past its first
 * slots, and no further than max_mr; each key finds its region, a key
 * deregistered finds nothing, its slot's next key is another, and one
 * region more than max_mr is refused with ENOMEM.
 */
START_TEST(keys_grow)
{
	unsigned int n = SEFA_MR_SLOTS_FIRST * 2 + 1, i;
	struct sefa_pd *pd = fx_pd(0);
	struct sefa_mr **mr = calloc(n, sizeof(*mr)), *more;
	uint32_t key;

	ck_assert_ptr_nonnull(mr);
	pd->dev->limit[SEFA_LIMIT_MR] = n;
	for (i = 0; i < n; i++)
		ck_assert_int_eq(reg(pd, 0, 1, &mr[i]), 0);
	ck_assert_uint_eq(pd->dev->mr_slots, n);
	ck_assert_int_eq(reg(pd, 0, 1, &more), -ENOMEM);
	for (i = 0; i < n; i++)
		ck_assert_ptr_eq(sefa_mr_get(pd->dev, mr[i]->lkey), mr[i]);
	key = mr[0]->lkey;
	ck_assert_int_eq(sefa_mr_dereg(mr[0]), 0);
	ck_assert_ptr_null(sefa_mr_get(pd->dev, key));
	ck_assert_int_eq(reg(pd, 0, 1, &mr[0]), 0);
	ck_assert_uint_eq(SEFA_MR_SLOT(mr[0]->lkey), SEFA_MR_SLOT(key));
	ck_assert_uint_ne(mr[0]->lkey, key);
	ck_assert_ptr_null(sefa_mr_get(pd->dev, key));
	for (i = 0; i < n; i++)
		ck_assert_int_eq(sefa_mr_dereg(mr[i]), 0);
	free(mr);
}
END_TEST

START_TEST(object_cap)
{
	struct sefa_pd *pd = fx_pd(0), *more;
	struct sefa_mr *mr;

	fx_d.caps.max_objects = 2;
	ck_assert_int_eq(reg(pd, 0, 1, &mr), 0);
	ck_assert_int_eq(sefa_pd_alloc(pd->uobj.c, &more), -EAGAIN);
	/* and a region refused for it pins nothing */
	ck_assert_int_eq(sefa_mr_dereg(mr), 0);
	ck_assert_int_eq(sefa_pd_alloc(pd->uobj.c, &more), 0);
	ck_assert_int_eq(reg(pd, 0, 1, &mr), -EAGAIN);
	ck_assert_uint_eq(pd->uobj.c->pinned_pages, 0);
	ck_assert_int_eq(sefa_pd_destroy(more), 0);
}
END_TEST

START_TEST(queue_cap)
{
	struct sefa_client *c = fx_pd(0)->uobj.c;
	struct sefa_shm *a, *b;

	fx_d.caps.max_queue_bytes = 3 * SEFA_PAGE_SIZE;
	a = sefa_shm_new(c, SEFA_PAGE_SIZE + 1);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(c->queue_bytes, 2 * SEFA_PAGE_SIZE);
	ck_assert_ptr_null(sefa_shm_new(c, 2 * SEFA_PAGE_SIZE));
	ck_assert_uint_eq(c->queue_bytes, 2 * SEFA_PAGE_SIZE);
	b = sefa_shm_new(c, SEFA_PAGE_SIZE);
	ck_assert_ptr_nonnull(b);
	/* a mapping's reference keeps the memory charged */
	sefa_shm_get(a);
	sefa_shm_put(a);
	ck_assert_uint_eq(c->queue_bytes, 3 * SEFA_PAGE_SIZE);
	sefa_shm_put(a);
	ck_assert_uint_eq(c->queue_bytes, SEFA_PAGE_SIZE);
	sefa_shm_put(b);
	ck_assert_uint_eq(c->queue_bytes, 0);
}
END_TEST

/*
 * A file's keys are where their pages are in the file's memory, so a bare
 * mmap(2) of the file at a key maps them; a freed range reads zero and
 * its offsets never come back for another object.
 */
START_TEST(file_keys)
{
	struct sefa_client *c = fx_pd(0)->uobj.c;
	struct sefa_shm *a, *b, *host;
	uint64_t ka, kh;
	uint8_t byte;
	uint8_t *p;

	ck_assert_int_eq(sefa_file_open(c), 0);
	a = sefa_shm_new(c, SEFA_PAGE_SIZE);
	ck_assert_ptr_nonnull(a);
	ck_assert(a->in_file);
	ck_assert_int_eq(sefa_mmap_insert(c, a, 0, SEFA_PAGE_SIZE, &ka), 0);
	ck_assert_uint_ne(ka, 0);
	ck_assert_uint_eq(ka, a->base);
	p = mmap(NULL, SEFA_PAGE_SIZE, PROT_READ, MAP_SHARED, c->file_fd, ka);
	ck_assert_ptr_ne(p, MAP_FAILED);
	((uint8_t *)a->addr)[7] = 0x5a;
	ck_assert_uint_eq(p[7], 0x5a);
	ck_assert_int_eq(munmap(p, SEFA_PAGE_SIZE), 0);

	/* the host's page is no file's: a key of its own, past a's */
	host = sefa_shm_new_ro(SEFA_PAGE_SIZE);
	ck_assert_ptr_nonnull(host);
	ck_assert_int_eq(sefa_mmap_insert(c, host, 0, SEFA_PAGE_SIZE, &kh), 0);
	ck_assert_uint_gt(kh, ka);

	sefa_mmap_remove(c, a);
	sefa_shm_put(a);
	ck_assert_int_eq(pread(c->file_fd, &byte, 1, ka + 7), 1);
	ck_assert_uint_eq(byte, 0);
	b = sefa_shm_new(c, SEFA_PAGE_SIZE);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_gt(b->base, kh);

	sefa_mmap_remove(c, host);
	sefa_shm_put(host);
	sefa_shm_put(b);
	sefa_file_close(c);
}
END_TEST

/*
 * A region whose process exited moves nothing any more, whichever process
 * gets its pid next; the next process of that pid has an mm of its own.
 */
START_TEST(process_gone)
{
	struct sefa_pd *pd = fx_pd(0);
	struct sefa_client *c = pd->uobj.c;
	struct dma_seg seg[MAX_SEGS];
	struct seg_list segs = { .seg = seg };
	struct sefa_mr *mr, *mine;
	uint8_t got[8];
	pid_t child;

	/* The child has this process's memory: it registers its copy. */
	memset(buf, 0x3c, page);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		pause();
		_exit(0);
	}
	c->pid = child;
	ck_assert_int_eq(reg(pd, 0, page, &mr), 0);
	ck_assert_int_eq(nic_key_resolve(pd->dev, pd, mr->lkey,
					 (uintptr_t)buf, 8, 0, &segs), 0);
	ck_assert_int_eq(nic_dma_buf(&segs, 0, got, 8, false), 0);
	ck_assert_uint_eq(got[7], 0x3c);

	kill(child, SIGKILL);
	ck_assert_int_eq(waitpid(child, NULL, 0), child);
	/* What the main loop does when the watch fires. */
	ck_assert_int_eq(poll(&(struct pollfd){ .fd = fx_d.mm_watch,
						.events = POLLIN }, 1, 5000), 1);
	sefa_mm_reap(&fx_d);
	ck_assert(mr->mm->gone);
	/*
	 * Its pid reused by a live process, this one, with the same memory:
	 * the region's process is gone (ESRCH), nothing is read.
	 */
	mr->mm->pid = getpid();
	memset(got, 0, 8);
	ck_assert_int_eq(nic_dma_buf(&segs, 0, got, 8, false), -ESRCH);
	ck_assert_uint_eq(got[7], 0);

	c->pid = getpid();
	ck_assert_int_eq(reg(pd, 0, page, &mine), 0);
	ck_assert_ptr_ne(mine->mm, mr->mm);
	ck_assert(!mine->mm->gone);
	ck_assert_int_eq(sefa_mr_dereg(mr), 0);
	ck_assert_int_eq(sefa_mr_dereg(mine), 0);
	ck_assert_ptr_null(fx_d.mms);
}
END_TEST

static Suite *charge_suite(void)
{
	Suite *s = suite_create("charge");
	TCase *tc = tcase_create("charge");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, pages_touched);
	tcase_add_test(tc, limit);
	tcase_add_test(tc, keys_grow);
	tcase_add_test(tc, object_cap);
	tcase_add_test(tc, queue_cap);
	tcase_add_test(tc, file_keys);
	tcase_add_test(tc, process_gone);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(charge_suite)
