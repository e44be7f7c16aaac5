// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where a shared segment's pages come from: a range of the client's device
 * file, or a memfd of its length, that the daemon maps for itself and
 * hands to clients on mmap() (shm.c).  Apart
 * so that the fuzz harnesses, which make and destroy queues for every
 * input, can recycle segments instead of paying for a TLB flush each.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/core.h"

/* Zeroed pages for @s->len bytes, in a memfd made with @memfd_flags. */
int sefa_pages_new(struct sefa_shm *s, unsigned int memfd_flags)
{
	int ret;

	s->fd = memfd_create("softefa", MFD_CLOEXEC | memfd_flags);
	if (s->fd < 0)
		return -errno;
	if (ftruncate(s->fd, s->len))
		goto err_close;
	s->addr = mmap(NULL, s->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->fd, 0);
	if (s->addr == MAP_FAILED)
		goto err_close;
	return 0;

err_close:
	ret = -errno;
	close(s->fd);
	return ret;
}

/*
 * @s->len bytes at @s->base of the device file @file_fd: its own
 * descriptor of the file, so the pages outlive a close of the client's.
 */
int sefa_pages_in_file(struct sefa_shm *s, int file_fd)
{
	int ret;

	s->fd = fcntl(file_fd, F_DUPFD_CLOEXEC, 0);
	if (s->fd < 0)
		return -errno;
	s->addr = mmap(NULL, s->len, PROT_READ | PROT_WRITE, MAP_SHARED,
		       s->fd, s->base);
	if (s->addr == MAP_FAILED) {
		ret = -errno;
		close(s->fd);
		return ret;
	}
	s->in_file = true;
	return 0;
}

/*
 * A range of the device file goes back to the system; its offsets stay
 * taken, so a mapping the process made, or makes, of its key sees fresh
 * zeroes, never another object's memory.
 */
void sefa_pages_free(struct sefa_shm *s)
{
	munmap(s->addr, s->len);
	if (s->in_file)
		fallocate(s->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			  s->base, s->len);
	close(s->fd);
}
