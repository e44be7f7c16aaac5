// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The NIC's DMA, between segment lists of this process's memory: bytes
 * land where the lists say however the two sides split them, across the
 * bounce buffer's chunks and across more segments than one system call
 * takes; a fault or a process gone fails the copy.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check_main.h"
#include "nic_fixture.h"

/* Past one bounce chunk, so that a copy takes two rounds. */
#define SPAN	(DMA_CHUNK + 4096 + 77)

static uint8_t src[SPAN], dst[SPAN];
static struct dma_seg from[MAX_SEGS], to[MAX_SEGS];

static void setup(void)
{
	unsigned int i;

	fx_setup();
	for (i = 0; i < SPAN; i++)
		src[i] = (uint8_t)(i * 7 + i / 251);
	memset(dst, 0, sizeof(dst));
}

/*
 * @buf cut into segments of the lengths in @cut, taken in turn, the last
 * whatever is left of @len.  Returns the count.
 */
static unsigned int cut_segs(struct dma_seg *s, uint8_t *buf, uint64_t len,
			     const uint64_t *cut, unsigned int ncut)
{
	unsigned int n = 0;
	uint64_t off = 0;

	while (off < len) {
		uint64_t k = cut[n % ncut];

		if (k > len - off || n == MAX_SEGS - 1)
			k = len - off;
		s[n++] = (struct dma_seg){
			.mm = &fx_self_mm, .addr = (uintptr_t)buf + off,
			.len = k,
		};
		off += k;
	}
	return n;
}

static void copy_and_check(const uint64_t *scut, unsigned int nscut,
			   const uint64_t *dcut, unsigned int ndcut)
{
	struct seg_list s = { .seg = from }, d = { .seg = to };
	bool src_fault;

	memset(dst, 0, sizeof(dst));
	s.n = cut_segs(from, src, SPAN, scut, nscut);
	d.n = cut_segs(to, dst, SPAN, dcut, ndcut);
	ck_assert_int_eq(nic_dma_copy(fx_eng, &s, &d, SPAN, &src_fault), 0);
	ck_assert_mem_eq(dst, src, SPAN);
}

START_TEST(split_both_sides)
{
	static const uint64_t one[] = { SPAN };
	static const uint64_t odd[] = { 1, 4095, 3, DMA_CHUNK - 1, 10 };
	static const uint64_t even[] = { 4096 };
	/* more segments than one system call takes: 3 bytes each */
	static const uint64_t tiny[] = { 3 };

	copy_and_check(one, 1, one, 1);
	copy_and_check(odd, 5, even, 1);
	copy_and_check(even, 1, odd, 5);
	copy_and_check(tiny, 1, one, 1);
	copy_and_check(one, 1, tiny, 1);
}
END_TEST

/* Part of the region from an offset, both ways, as inline data does. */
START_TEST(buffer_at_offset)
{
	static const uint64_t odd[] = { 5, 1, 300 };
	struct seg_list d = { .seg = to };
	uint8_t back[1000];

	d.n = cut_segs(to, dst, 2000, odd, 3);
	ck_assert_int_eq(nic_dma_buf(&d, 333, src, 1000, true), 0);
	ck_assert_mem_eq(dst + 333, src, 1000);
	ck_assert_uint_eq(dst[332], 0);
	ck_assert_uint_eq(dst[1333], 0);
	ck_assert_int_eq(nic_dma_buf(&d, 333, back, sizeof(back), false), 0);
	ck_assert_mem_eq(back, src, sizeof(back));
}
END_TEST

/* A hole in the middle of the list: -EFAULT; a process gone: -ESRCH. */
START_TEST(faults)
{
	static const uint64_t even[] = { 4096 };
	struct seg_list s = { .seg = from }, d = { .seg = to };
	long page = sysconf(_SC_PAGESIZE);
	struct sefa_mm gone = fx_self_mm;
	bool src_fault;
	void *hole = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			  -1, 0);

	ck_assert_ptr_ne(hole, MAP_FAILED);
	s.n = cut_segs(from, src, 3 * 4096, even, 1);
	d.n = cut_segs(to, dst, 3 * 4096, even, 1);
	to[1].addr = (uintptr_t)hole;
	ck_assert_int_eq(nic_dma_copy(fx_eng, &s, &d, 3 * 4096, &src_fault),
			 -EFAULT);
	ck_assert(!src_fault);
	/* the same hole on the source's side: the source's fault */
	d.n = cut_segs(to, dst, 3 * 4096, even, 1);
	from[1].addr = (uintptr_t)hole;
	ck_assert_int_eq(nic_dma_copy(fx_eng, &s, &d, 3 * 4096, &src_fault),
			 -EFAULT);
	ck_assert(src_fault);
	munmap(hole, page);

	s.n = cut_segs(from, src, 3 * 4096, even, 1);
	d.n = cut_segs(to, dst, 3 * 4096, even, 1);
	gone.gone = true;
	from[2].mm = &gone;
	ck_assert_int_eq(nic_dma_copy(fx_eng, &s, &d, 3 * 4096, &src_fault),
			 -ESRCH);
	ck_assert(src_fault);
	from[2].mm = &fx_self_mm;
	ck_assert_int_eq(nic_dma_copy(fx_eng, &s, &d, 3 * 4096, &src_fault), 0);
	ck_assert_mem_eq(dst, src, 3 * 4096);
}
END_TEST

static Suite *dma_suite(void)
{
	Suite *s = suite_create("nic dma");
	TCase *t = tcase_create("dma");

	tcase_add_checked_fixture(t, setup, fx_teardown);
	tcase_add_test(t, split_both_sides);
	tcase_add_test(t, buffer_at_offset);
	tcase_add_test(t, faults);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(dma_suite)
