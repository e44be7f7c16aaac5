// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CQs on external memory in the daemon (verbs/cq_buf.c), on the fake host
 * whose client is this process: a ring at an address of it, pinned and
 * written through process_vm_writev(), and a ring in a memfd named by fd;
 * entries land there with their phase, the response offers no mmap key,
 * destroy gives the pinned pages back; then every buffer the kernel
 * refuses, with its errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check_main.h"
#include "efa/efa_abi_compat.h"
#include "nic_fixture.h"

#define CQE		64
#define RING_PAGES	2	/* 64 entries of 48 bytes, 2 sub-CQs at most */

static uint8_t *area;		/* RING_PAGES + 1 pages, page aligned */
static long page;
static struct sefa_client *c;	/* device 0's, this process */

static void setup(void)
{
	fx_setup();
	c = fx_pd(0)->uobj.c;
	page = sysconf(_SC_PAGESIZE);
	area = mmap(NULL, (RING_PAGES + 1) * page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(area, MAP_FAILED);
}

static void teardown(void)
{
	fx_teardown();
	munmap(area, (RING_PAGES + 1) * page);
}

/* CREATE_CQ on device 0 with @b; the response in @resp. */
static int ext_cq(const struct sefa_cq_buf_attrs *b, struct sefa_cq **cq,
		  struct efa_ibv_create_cq_resp *resp)
{
	struct efa_ibv_create_cq ucmd = {
		.cq_entry_size = EFA_IO_CQE_EX_SIZE,
		.num_sub_cqs = fx_d.profile->sub_cqs_per_cq,
	};
	struct sefa_cq_params p = { .cqe = CQE, .channel_fd = -1, .buf = *b };
	struct sefa_cmd cmd = {
		.c = c,
		.udata_in = { .addr = (uintptr_t)&ucmd, .len = sizeof(ucmd) },
		.udata_out = { .addr = (uintptr_t)resp, .len = sizeof(*resp) },
	};

	memset(resp, 0xff, sizeof(*resp));
	return sefa_cq_create(&cmd, &p, cq);
}

static struct sefa_cq_buf_attrs by_va(const void *va, uint64_t length)
{
	return (struct sefa_cq_buf_attrs){
		.va = (uintptr_t)va, .length = length,
		.has_va = true, .has_length = true, .fd = -1,
	};
}

static struct sefa_cq_buf_attrs by_fd(int fd, uint64_t offset,
				      uint64_t length)
{
	return (struct sefa_cq_buf_attrs){
		.fd = fd, .offset = offset, .length = length,
		.has_fd = true, .has_offset = true, .has_length = true,
	};
}

/* Entries 0..n-1 of sub-CQ 0, req_id 100 + i. */
static void write_entries(struct sefa_cq *cq, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct efa_io_rx_cdesc_ex e = {};

		e.base.common.req_id = 100 + i;
		e.base.common.qp_num = 7;
		e.base.length = 1000 + i;
		ck_assert(sefa_cq_write(cq, 0, &e, sizeof(e)));
	}
}

/* Entry @i of sub-CQ 0 in @ring: its request id, and phase 1. */
static void assert_entry(const uint8_t *ring, const struct sefa_cq *cq,
			 unsigned int i)
{
	const struct efa_io_rx_cdesc_ex *e =
		(const void *)(ring + (size_t)i * cq->entry_size);

	ck_assert_uint_eq(e->base.common.req_id, 100 + i);
	ck_assert_uint_eq(e->base.common.qp_num, 7);
	ck_assert_uint_eq(e->base.length, 1000 + i);
	ck_assert(e->base.common.flags & EFA_IO_CDESC_COMMON_PHASE);
}

static void destroy(struct sefa_cq *cq)
{
	struct ib_uverbs_destroy_cq_resp r;

	ck_assert_int_eq(sefa_cq_destroy(cq, &r), 0);
}

START_TEST(va_ring)
{
	struct sefa_cq_buf_attrs b = by_va(area + 64, RING_PAGES * page);
	struct efa_ibv_create_cq_resp resp;
	struct sefa_cq *cq;

	ck_assert_int_eq(ext_cq(&b, &cq, &resp), 0);
	/* the driver offers nothing to map: no ring, no doorbell */
	ck_assert_uint_eq(resp.q_mmap_key, 0);
	ck_assert_uint_eq(resp.q_mmap_size, 0);
	ck_assert_uint_eq(resp.comp_mask, 0);
	/* the whole range, as ib_umem_get() pins it: 3 pages touched */
	ck_assert_uint_eq(c->pinned_pages, 3);
	write_entries(cq, 3);
	assert_entry(area + 64, cq, 0);
	assert_entry(area + 64, cq, 2);
	ck_assert_uint_eq(area[64 + 3 * cq->entry_size + 3], 0);
	ck_assert_uint_eq(area[63], 0);
	destroy(cq);
	ck_assert_uint_eq(c->pinned_pages, 0);
}
END_TEST

START_TEST(fd_ring)
{
	int fd = memfd_create("cq", MFD_CLOEXEC);
	struct efa_ibv_create_cq_resp resp;
	struct sefa_cq_buf_attrs b;
	struct sefa_cq *cq;
	uint8_t *view;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4 * page), 0);
	view = mmap(NULL, 4 * page, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(view, MAP_FAILED);
	b = by_fd(fd, page + 8, RING_PAGES * page);
	ck_assert_int_eq(ext_cq(&b, &cq, &resp), 0);
	ck_assert_uint_eq(resp.q_mmap_key, 0);
	ck_assert_uint_eq(resp.comp_mask, 0);
	/* the daemon holds the file, not the descriptor */
	close(fd);
	write_entries(cq, 2);
	assert_entry(view + page + 8, cq, 0);
	assert_entry(view + page + 8, cq, 1);
	ck_assert_uint_eq(view[page + 7], 0);
	destroy(cq);
	munmap(view, 4 * page);
}
END_TEST

static void refused(struct sefa_cq_buf_attrs b, int err)
{
	struct efa_ibv_create_cq_resp resp;
	struct sefa_cq *cq;

	ck_assert_int_eq(ext_cq(&b, &cq, &resp), err);
	ck_assert_uint_eq(c->pinned_pages, 0);
}

START_TEST(refusals)
{
	struct sefa_cq_buf_attrs b;
	int fd = memfd_create("cq", MFD_CLOEXEC), pipefd[2];

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 4 * page), 0);
	ck_assert_int_eq(pipe(pipefd), 0);

	/* the uverbs core's combinations */
	b = by_va(area, RING_PAGES * page);
	b.has_fd = true;
	b.fd = fd;
	refused(b, -EINVAL);
	b = by_va(area, RING_PAGES * page);
	b.has_length = false;
	refused(b, -ENOENT);
	b = by_fd(fd, 0, RING_PAGES * page);
	b.has_offset = false;
	refused(b, -ENOENT);
	b = by_fd(fd, 0, RING_PAGES * page);
	b.has_fd = false;
	refused(b, -EINVAL);

	/* dma_buf_get() and ib_umem_dmabuf_get() */
	refused(by_fd(9999, 0, RING_PAGES * page), -EBADF);
	refused(by_fd(pipefd[0], 0, RING_PAGES * page), -EINVAL);
	refused(by_fd(fd, UINT64_MAX - 10, RING_PAGES * page), -EINVAL);
	refused(by_fd(fd, 3 * page, RING_PAGES * page), -EINVAL);
	refused(by_fd(fd, 0, 0), -EINVAL);
	refused(by_fd(fd, 12, RING_PAGES * page), -EINVAL);
	/* the driver: the ring in whole pages */
	refused(by_fd(fd, 0, 100), -EINVAL);

	/* ib_umem_get() */
	refused(by_va((void *)(UINTPTR_MAX - 100), RING_PAGES * page), -EINVAL);
	refused(by_va(area, 0), -EINVAL);
	refused(by_va(area + 4, RING_PAGES * page), -EINVAL);
	refused(by_va(area, 100), -EINVAL);
	ck_assert_int_eq(mprotect(area, page, PROT_READ), 0);
	refused(by_va(area, RING_PAGES * page), -EFAULT);
	ck_assert_int_eq(mprotect(area, page, PROT_READ | PROT_WRITE), 0);
	/* a page inside, its ends writable: every page is pinned */
	ck_assert_int_eq(mprotect(area + page, page, PROT_READ), 0);
	refused(by_va(area, (RING_PAGES + 1) * page), -EFAULT);
	ck_assert_int_eq(mprotect(area + page, page, PROT_NONE), 0);
	refused(by_va(area, (RING_PAGES + 1) * page), -EFAULT);
	ck_assert_int_eq(mprotect(area + page, page, PROT_READ | PROT_WRITE),
			 0);
	ck_assert_int_eq(munmap(area + page, page), 0);
	refused(by_va(area, RING_PAGES * page), -EFAULT);
	/* teardown unmaps the whole area, hole and all */

	close(fd);
	close(pipefd[0]);
	close(pipefd[1]);
}
END_TEST

static Suite *cq_ext_suite(void)
{
	Suite *s = suite_create("CQ on external memory");
	TCase *t = tcase_create("cq_ext");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, va_ring);
	tcase_add_test(t, fd_ring);
	tcase_add_test(t, refusals);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(cq_ext_suite)
