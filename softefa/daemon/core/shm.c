// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device memory shared with a client: rings and doorbell pages live in
 * the open file's own memfd, which is the process's uverbs fd, at the
 * offset that is their key (rdma_user_mmap_entry_insert()).  A kernel's
 * device file maps a key by itself, whoever calls mmap(2): this one too,
 * so a process whose mmap() goes straight to the system call (a memory
 * monitor's hooks) reaches the device's memory all the same.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/core.h"

/* Beyond this the file has no offsets left: the calls that need one fail. */
#define SEFA_FILE_MAX	(1ULL << 44)

/* The device file of a uverbs open: empty, it grows as keys are taken. */
int sefa_file_open(struct sefa_client *c)
{
	c->file_fd = memfd_create("softefa-uverbs", MFD_CLOEXEC);
	if (c->file_fd < 0)
		return -errno;
	c->has_file = true;
	return 0;
}

void sefa_file_close(struct sefa_client *c)
{
	if (!c->has_file)
		return;
	close(c->file_fd);
	c->has_file = false;
}

/*
 * @len bytes of @c's key space, never taken before: the file grows to
 * cover them, so a mapping of them finds pages, not the end of the file.
 * Page 0 stays out, as key 0 means none.
 */
static int file_take(struct sefa_client *c, size_t len, uint64_t *off)
{
	uint64_t start = c->mmap_end ? c->mmap_end : SEFA_PAGE_SIZE;

	len = (len + SEFA_PAGE_SIZE - 1) & ~(size_t)(SEFA_PAGE_SIZE - 1);
	if (len > SEFA_FILE_MAX - start)
		return sefa_refuse(c, -ENOMEM, "the device file's offsets are spent");
	if (c->has_file && ftruncate(c->file_fd, start + len))
		return -errno;
	c->mmap_end = start + len;
	*off = start;
	return 0;
}

/*
 * Whole pages for a ring or a doorbell of client @c, charged to its queue
 * memory until the last reference goes; NULL when there is no memory or
 * the client may hold no more: the caller's ENOMEM either way.
 */
struct sefa_shm *sefa_shm_new(struct sefa_client *c, size_t len)
{
	struct sefa_shm *s;

	len = (len + SEFA_PAGE_SIZE - 1) & ~(size_t)(SEFA_PAGE_SIZE - 1);
	if (!len || sefa_charge_queue(c, len))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto err_uncharge;
	s->len = len;
	s->refs = 1;
	s->owner = c;
	if (!c->has_file) {
		if (sefa_pages_new(s, 0))
			goto err_free;
		return s;
	}
	if (file_take(c, len, &s->base) || sefa_pages_in_file(s, c->file_fd))
		goto err_free;
	return s;

err_free:
	free(s);
err_uncharge:
	sefa_uncharge_queue(c, len);
	return NULL;
}

/*
 * A page of the host's own that clients may map only to read: the memfd
 * is sealed against new writable mappings once the daemon has its own.
 */
struct sefa_shm *sefa_shm_new_ro(size_t len)
{
	struct sefa_shm *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->len = (len + SEFA_PAGE_SIZE - 1) & ~(size_t)(SEFA_PAGE_SIZE - 1);
	s->refs = 1;
	if (sefa_pages_new(s, MFD_ALLOW_SEALING))
		goto err_free;
	if (fcntl(s->fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE | F_SEAL_SHRINK |
				      F_SEAL_GROW | F_SEAL_SEAL))
		goto err_pages;
	return s;

err_pages:
	sefa_pages_free(s);
err_free:
	free(s);
	return NULL;
}

struct sefa_shm *sefa_shm_get(struct sefa_shm *s)
{
	s->refs++;
	return s;
}

void sefa_shm_put(struct sefa_shm *s)
{
	if (!s || --s->refs)
		return;
	if (s->owner)
		sefa_uncharge_queue(s->owner, s->len);
	sefa_pages_free(s);
	free(s);
}

/*
 * Offer @len bytes of @s from @off under a key of client @c: where they
 * are in its file.  Pages that are not the file's (the host's read-only
 * page) get offsets of their own that stay holes: a bare mmap(2) of
 * those finds zeroes, which mean an awake device, and only the shim's
 * mmap() reaches the real page.
 */
int sefa_mmap_insert(struct sefa_client *c, struct sefa_shm *s, size_t off,
		     size_t len, uint64_t *key)
{
	struct sefa_mmap_entry *e;
	uint64_t where;
	unsigned int i;
	int ret;

	if (s->in_file && s->owner == c) {
		where = s->base + off;
	} else {
		ret = file_take(c, len, &where);
		if (ret)
			return ret;
	}

	for (i = 0; i < c->nmmap; i++)
		if (!c->mmap[i].shm)
			break;
	if (i == c->nmmap) {
		e = realloc(c->mmap, (c->nmmap + 16) * sizeof(*e));
		if (!e)
			return -ENOMEM;
		memset(e + c->nmmap, 0, 16 * sizeof(*e));
		c->mmap = e;
		c->nmmap += 16;
	}
	e = &c->mmap[i];
	e->shm = sefa_shm_get(s);
	e->off = off;
	e->len = len;
	e->key = where;
	*key = e->key;
	return 0;
}

/* Forget every key of @s: existing mappings stay, new ones fail. */
void sefa_mmap_remove(struct sefa_client *c, struct sefa_shm *s)
{
	unsigned int i;

	for (i = 0; i < c->nmmap; i++) {
		if (c->mmap[i].shm != s)
			continue;
		sefa_shm_put(s);
		memset(&c->mmap[i], 0, sizeof(c->mmap[i]));
	}
}

void sefa_mmap_remove_all(struct sefa_client *c)
{
	unsigned int i;

	for (i = 0; i < c->nmmap; i++)
		sefa_shm_put(c->mmap[i].shm);
	free(c->mmap);
	c->mmap = NULL;
	c->nmmap = 0;
}

/*
 * mmap(2) of the uverbs fd at offset @key for @len bytes.  Hands the memfd
 * over, letting the daemon lock go meanwhile (sefa_conn_install_fd()), and
 * returns the offset inside it where the shim must map.
 */
int64_t sefa_uverbs_mmap(struct sefa_client *c, uint64_t key, uint64_t len,
			 uint64_t flags)
{
	struct sefa_mmap_entry *e = NULL;
	unsigned int i;
	int fd, ret;
	size_t off;

	/* mmap(2) maps whole pages, whatever length it was given. */
	len = (len + SEFA_PAGE_SIZE - 1) & ~(uint64_t)(SEFA_PAGE_SIZE - 1);
	if (!(flags & MAP_SHARED) || !len)
		return sefa_refuse(c, -EINVAL, "not MAP_SHARED, or no length");
	for (i = 0; i < c->nmmap; i++)
		if (c->mmap[i].shm && c->mmap[i].key == key)
			e = &c->mmap[i];
	if (!e)
		return sefa_refuse(c, -EINVAL, "unknown mmap key %#llx",
				   (unsigned long long)key);
	if (len > e->shm->len - e->off)
		return sefa_refuse(c, -EINVAL, "%llu bytes beyond the key's %zu",
				   (unsigned long long)len,
				   e->shm->len - e->off);
	off = e->shm->base + e->off;
	ret = sefa_conn_install_fd(c, e->shm->fd, SEFA_FD_MEMORY, &fd);
	return ret ? ret : (int64_t)off;
}
