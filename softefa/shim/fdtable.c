// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which fds name a device file of the daemon's.  Looking an fd up takes no
 * lock, so the process's other fds pay nothing for the table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "shim.h"

#define FD_PAGE_BITS	10
#define FD_PAGE_SIZE	(1 << FD_PAGE_BITS)
#define FD_PAGES	64

static _Atomic(struct shim_file *) *fd_pages[FD_PAGES];
/*
 * Calls on a uverbs fd hold it for reading; close() and the dup family,
 * which change which fds name which file, hold it for writing.  Other fds
 * never touch it.
 */
static pthread_rwlock_t files_lock = PTHREAD_RWLOCK_INITIALIZER;

struct shim_file *file_new(enum node_kind kind, unsigned int index)
{
	struct shim_file *f = calloc(1, sizeof(*f));

	if (!f) {
		errno = ENOMEM;
		return NULL;
	}
	f->kind = kind;
	f->index = index;
	f->conn = -1;
	pthread_mutex_init(&f->lock, NULL);
	f->refs = 1;
	return f;
}

void file_free(struct shim_file *f)
{
	pthread_mutex_destroy(&f->lock);
	free(f);
}

struct shim_file *file_get(int fd)
{
	_Atomic(struct shim_file *) *page;

	if (fd < 0 || fd >= FD_PAGES * FD_PAGE_SIZE)
		return NULL;
	page = atomic_load_explicit((_Atomic(void *) *)&fd_pages[fd >> FD_PAGE_BITS],
				    memory_order_acquire);
	if (!page)
		return NULL;
	return atomic_load_explicit(&page[fd & (FD_PAGE_SIZE - 1)],
				    memory_order_acquire);
}

static int file_set(int fd, struct shim_file *f)
{
	_Atomic(struct shim_file *) *page, *fresh;
	_Atomic(void *) *slot;
	void *expected = NULL;

	if (fd < 0 || fd >= FD_PAGES * FD_PAGE_SIZE)
		return -EMFILE;
	slot = (_Atomic(void *) *)&fd_pages[fd >> FD_PAGE_BITS];
	page = atomic_load_explicit(slot, memory_order_acquire);
	if (!page) {
		fresh = calloc(FD_PAGE_SIZE, sizeof(*fresh));
		if (!fresh)
			return -ENOMEM;
		if (atomic_compare_exchange_strong(slot, &expected, fresh)) {
			page = fresh;
		} else {
			free(fresh);
			page = expected;
		}
	}
	atomic_store_explicit(&page[fd & (FD_PAGE_SIZE - 1)], f,
			      memory_order_release);
	return 0;
}

/* @fd, just opened, names @f from now on. */
int file_install(int fd, struct shim_file *f)
{
	int err;

	pthread_rwlock_wrlock(&files_lock);
	err = file_set(fd, f);
	pthread_rwlock_unlock(&files_lock);
	return err;
}

/*
 * The file @fd names, looked up again under files_lock: another thread may
 * have closed the fd since the caller saw it.  The lock stays held for
 * reading until file_release(), so no close() frees the file meanwhile;
 * NULL, with the lock let go, if @fd is not ours (any more).
 */
struct shim_file *file_hold(int fd)
{
	struct shim_file *f;

	pthread_rwlock_rdlock(&files_lock);
	f = file_get(fd);
	if (!f)
		pthread_rwlock_unlock(&files_lock);
	return f;
}

void file_release(void)
{
	pthread_rwlock_unlock(&files_lock);
}

/*
 * Which node @fd opened, read under files_lock: a concurrent close() may
 * free the file the moment the lock is gone.  EBADF if @fd is not ours
 * (any more).
 */
int file_node(int fd, enum node_kind *kind, unsigned int *index)
{
	struct shim_file *f = file_hold(fd);

	if (!f)
		return -EBADF;
	*kind = f->kind;
	*index = f->index;
	file_release();
	return 0;
}

/* Forget that @fd names a uverbs file; files_lock held for writing. */
static void file_drop(int fd)
{
	struct shim_file *f = file_get(fd);

	if (!f)
		return;
	file_set(fd, NULL);
	if (--f->refs)
		return;
	if (f->conn >= 0)
		real_close(f->conn);
	file_free(f);
}

/* close(@fd) is about to run. */
void file_forget(int fd)
{
	if (!file_get(fd))
		return;
	/* waits for calls in flight on this file */
	pthread_rwlock_wrlock(&files_lock);
	file_drop(fd);
	pthread_rwlock_unlock(&files_lock);
}

/*
 * The dup family: the new fd names the same uverbs file, like a dup of
 * the real device would; an fd it replaces is closed first.
 */
int file_dup(int oldfd, int newfd)
{
	struct shim_file *f;

	if (newfd < 0)
		return newfd;
	pthread_rwlock_wrlock(&files_lock);
	f = file_get(oldfd);
	if (newfd != oldfd) {
		file_drop(newfd);
		if (f && !file_set(newfd, f))
			f->refs++;
	}
	pthread_rwlock_unlock(&files_lock);
	return newfd;
}
