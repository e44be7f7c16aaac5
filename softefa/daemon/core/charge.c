// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a client may make the daemon hold.  Registered memory is pinned
 * memory as ib_umem_get() counts it: pages, in the registering process's
 * mm->pinned_vm, against that process's RLIMIT_MEMLOCK unless it has
 * CAP_IPC_LOCK.  Objects and queue memory are this daemon's own caps per
 * open device file (struct sefa_caps), so that no client makes it hold
 * without bound.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/capability.h>

#include "core/core.h"

/*
 * A process with pinned memory: the kernel's mm, found by pid.  Its
 * regions hold it, so a pid is reused only once the process's regions are
 * gone, unless a forked child keeps them on an inherited file: then the
 * new process of that pid shares the count, where the kernel would keep
 * the dead process's mm apart.
 */
struct sefa_mm {
	pid_t pid;
	uint64_t pinned;		/* pages */
	unsigned int refs;		/* regions charged to it */
	struct sefa_mm *next;
};

static struct sefa_mm *mm_get(struct sefa_daemon *d, pid_t pid)
{
	struct sefa_mm *mm;

	for (mm = d->mms; mm; mm = mm->next)
		if (mm->pid == pid)
			break;
	if (!mm) {
		mm = calloc(1, sizeof(*mm));
		if (!mm)
			return NULL;
		mm->pid = pid;
		mm->next = d->mms;
		d->mms = mm;
	}
	mm->refs++;
	return mm;
}

static void mm_put(struct sefa_daemon *d, struct sefa_mm *mm)
{
	struct sefa_mm **pp;

	if (--mm->refs)
		return;
	for (pp = &d->mms; *pp != mm; pp = &(*pp)->next)
		;
	*pp = mm->next;
	free(mm);
}

/*
 * capable(CAP_IPC_LOCK) for @pid: its effective set, which /proc shows to
 * anyone.  A process that is gone has no capabilities.
 */
static bool can_ipc_lock(pid_t pid)
{
	unsigned long long eff;
	char path[64], line[256];
	bool cap = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "CapEff: %llx", &eff) == 1) {
			cap = eff & (1ULL << CAP_IPC_LOCK);
			break;
		}
	}
	fclose(f);
	return cap;
}

/*
 * Pin [addr, addr + len) for @c's current process: every page the range
 * touches counts, as ib_umem_num_pages() counts them, and a second region
 * over the same pages counts them again.  Beyond the process's
 * RLIMIT_MEMLOCK, read when the region is registered as the kernel reads
 * it, only CAP_IPC_LOCK lets it through; else -ENOMEM.  On success *@mm
 * and *@npages are what sefa_unpin() gives back.
 */
int sefa_pin(struct sefa_client *c, uint64_t addr, uint64_t len,
	     struct sefa_mm **mm, uint64_t *npages)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t first = addr & ~(page - 1);
	uint64_t end = (addr + len + page - 1) & ~(page - 1);
	struct rlimit lim;

	/* The daemon runs as root, or as the user whose process this is. */
	if (prlimit(c->pid, RLIMIT_MEMLOCK, NULL, &lim))
		return -errno;
	*npages = (end - first) / page;
	*mm = mm_get(c->d, c->pid);
	if (!*mm)
		return -ENOMEM;
	(*mm)->pinned += *npages;
	if (lim.rlim_cur != RLIM_INFINITY &&
	    (*mm)->pinned > lim.rlim_cur / page && !can_ipc_lock(c->pid)) {
		(*mm)->pinned -= *npages;
		mm_put(c->d, *mm);
		return -ENOMEM;
	}
	c->pinned_pages += *npages;
	return 0;
}

/* Deregistration: the pages go back to the process that pinned them. */
void sefa_unpin(struct sefa_client *c, struct sefa_mm *mm, uint64_t npages)
{
	mm->pinned -= npages;
	c->pinned_pages -= npages;
	mm_put(c->d, mm);
}

/*
 * One more object on @c's file.  Over the cap the answer is -EAGAIN: the
 * kernel's own per-group object cap, the rdma cgroup's hca_object, is what
 * refuses a uobject there (rdmacg_try_charge()), and it says EAGAIN.
 */
int sefa_charge_object(struct sefa_client *c)
{
	unsigned int max = c->d->caps.max_objects;

	return max && c->nobjects >= max ? -EAGAIN : 0;
}

/*
 * @len more bytes of rings or doorbells for @c.  Over the cap the answer
 * is -ENOMEM, as when the kernel cannot allocate a queue's memory.
 */
int sefa_charge_queue(struct sefa_client *c, uint64_t len)
{
	uint64_t max = c->d->caps.max_queue_bytes;

	if (max && (len > max || c->queue_bytes > max - len))
		return -ENOMEM;
	c->queue_bytes += len;
	return 0;
}

void sefa_uncharge_queue(struct sefa_client *c, uint64_t len)
{
	c->queue_bytes -= len;
}
