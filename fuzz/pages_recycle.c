// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Shared segments recycled (linked with --wrap=sefa_pages_new and
 * --wrap=sefa_pages_free): every input makes and destroys a host's queues,
 * and unmapping a fresh memfd each time cost fuzz_wire a TLB flush per
 * ring, most of its time.  A segment freed here is zeroed and waits for
 * the next one of its length.  Unmapped, a write after the free would
 * have crashed; here the next taker finds it not zero and aborts, so the
 * fuzzer still sees it (a read after the free it does not).  Sealed ones
 * (the host's read-only pages) cannot be sealed twice and go for real.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/core.h"

#define POOL_MAX	64

int __real_sefa_pages_new(struct sefa_shm *s, unsigned int memfd_flags);
void __real_sefa_pages_free(struct sefa_shm *s);
int __wrap_sefa_pages_new(struct sefa_shm *s, unsigned int memfd_flags);
void __wrap_sefa_pages_free(struct sefa_shm *s);

static struct {
	int fd;
	void *addr;
	size_t len;
} pool[POOL_MAX];
static unsigned int npool;

static bool page_zero(const void *addr, size_t len)
{
	const uint64_t *w = addr;
	size_t i;

	for (i = 0; i < len / sizeof(*w); i++)
		if (w[i])
			return false;
	return true;
}

int __wrap_sefa_pages_new(struct sefa_shm *s, unsigned int memfd_flags)
{
	unsigned int i;

	if (memfd_flags)
		return __real_sefa_pages_new(s, memfd_flags);
	for (i = 0; i < npool; i++) {
		if (pool[i].len != s->len)
			continue;
		s->fd = pool[i].fd;
		s->addr = pool[i].addr;
		pool[i] = pool[--npool];
		if (!page_zero(s->addr, s->len))
			abort();	/* written after it was freed */
		return 0;
	}
	return __real_sefa_pages_new(s, 0);
}

void __wrap_sefa_pages_free(struct sefa_shm *s)
{
	/*
	 * A memfd made without sealing reports the seal on sealing itself;
	 * a range of a device file is the file's, not a segment to pool.
	 */
	if (s->in_file || npool == POOL_MAX ||
	    fcntl(s->fd, F_GET_SEALS) != F_SEAL_SEAL) {
		__real_sefa_pages_free(s);
		return;
	}
	memset(s->addr, 0, s->len);
	pool[npool].fd = s->fd;
	pool[npool].addr = s->addr;
	pool[npool].len = s->len;
	npool++;
}
