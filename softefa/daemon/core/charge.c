// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a client may make the daemon hold.  Registered memory is pinned
 * memory as ib_umem_get() counts it: pages, in the registering process's
 * mm->pinned_vm, against that process's RLIMIT_MEMLOCK unless it has
 * CAP_IPC_LOCK.  Objects and queue memory are this daemon's own caps per
 * open device file (struct sefa_caps), so that no client makes it hold
 * without bound.  Device objects count against the device's limits, the
 * same for every process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include "core/core.h"

/*
 * Whether the process behind @mm still holds its pid.  A zombie does too,
 * and nobody else can have the pid until it is reaped.
 */
static bool mm_alive(const struct sefa_mm *mm)
{
	return !syscall(SYS_pidfd_send_signal, mm->pidfd, 0, NULL, 0);
}

/*
 * The process-exit watch: a set the daemon's main loop polls, with the
 * pidfd of every process that has pinned memory.  Made here for a daemon
 * that made none (the tests' hosts), which then never reaps.
 */
static int mm_watch(struct sefa_daemon *d)
{
	if (!d->mm_watch_on) {
		d->mm_watch = epoll_create1(EPOLL_CLOEXEC);
		if (d->mm_watch < 0)
			return -errno;
		d->mm_watch_on = true;
	}
	return d->mm_watch;
}

int sefa_mm_watch_init(struct sefa_daemon *d)
{
	int fd = mm_watch(d);

	return fd < 0 ? fd : 0;
}

static struct sefa_mm *mm_new(struct sefa_daemon *d, pid_t pid)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct sefa_mm *mm;
	int watch = mm_watch(d);

	if (watch < 0)
		return NULL;
	mm = calloc(1, sizeof(*mm));
	if (!mm)
		return NULL;
	mm->pid = pid;
	mm->pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (mm->pidfd < 0)
		goto err_free;
	ev.data.ptr = mm;
	if (epoll_ctl(watch, EPOLL_CTL_ADD, mm->pidfd, &ev))
		goto err_close;
	return mm;

err_close:
	close(mm->pidfd);
err_free:
	free(mm);
	return NULL;
}

/*
 * The mm of the calling process @pid: the one it has, or a new one.  One
 * of that pid whose process has gone is another process's: it stays with
 * the regions that hold it, marked gone, and this process gets its own.
 */
static struct sefa_mm *mm_get(struct sefa_daemon *d, pid_t pid)
{
	struct sefa_mm *mm;

	for (mm = d->mms; mm; mm = mm->next) {
		if (mm->pid != pid || mm->gone)
			continue;
		if (mm_alive(mm))
			break;
		mm->gone = true;
	}
	if (!mm) {
		mm = mm_new(d, pid);
		if (!mm)
			return NULL;
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
	/* Out of the set before it is freed: reaping reads the pointer. */
	epoll_ctl(d->mm_watch, EPOLL_CTL_DEL, mm->pidfd, NULL);
	close(mm->pidfd);
	free(mm);
}

/*
 * What the main loop does when the watch says a process exited: its
 * memory is no more, and no DMA may reach whatever process gets its pid
 * next.  Under the daemon lock, so every pointer in the set is live.
 */
void sefa_mm_reap(struct sefa_daemon *d)
{
	struct epoll_event ev[16];
	int i, n;

	do {
		n = epoll_wait(d->mm_watch, ev, 16, 0);
		for (i = 0; i < n; i++) {
			struct sefa_mm *mm = ev[i].data.ptr;

			mm->gone = true;
			epoll_ctl(d->mm_watch, EPOLL_CTL_DEL, mm->pidfd, NULL);
		}
	} while (n == 16);
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
 * @pid's RLIMIT_MEMLOCK soft limit in bytes, UINT64_MAX for none.  From
 * /proc, which shows every process's limits to anyone: prlimit() would
 * need CAP_SYS_RESOURCE for another user's process, which a root daemon
 * in a container may lack.
 */
static int memlock_limit(pid_t pid, uint64_t *bytes)
{
	char path[64], line[256], soft[32];
	unsigned long long v;
	int ret = -ESRCH;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/limits", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Max locked memory %31s", soft) != 1)
			continue;
		if (!strcmp(soft, "unlimited"))
			*bytes = UINT64_MAX;
		else if (sscanf(soft, "%llu", &v) == 1)
			*bytes = v;
		else
			break;
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
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
	uint64_t limit;
	int ret;

	ret = memlock_limit(c->pid, &limit);
	if (ret)
		return sefa_refuse(c, ret, "cannot read the process's limits");
	*npages = (end - first) / page;
	*mm = mm_get(c->d, c->pid);
	if (!*mm)
		return -ENOMEM;
	(*mm)->pinned += *npages;
	if (limit != UINT64_MAX && (*mm)->pinned > limit / page &&
	    !can_ipc_lock(c->pid)) {
		(*mm)->pinned -= *npages;
		mm_put(c->d, *mm);
		return sefa_refuse(c, -ENOMEM,
				   "RLIMIT_MEMLOCK: %llu more pages, %llu pinned, limit %llu bytes",
				   (unsigned long long)*npages,
				   (unsigned long long)(*mm)->pinned,
				   (unsigned long long)limit);
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

	if (max && c->nobjects >= max)
		return sefa_refuse(c, -EAGAIN, "--max-objects %u reached", max);
	return 0;
}

/*
 * @len more bytes of rings or doorbells for @c.  Over the cap the answer
 * is -ENOMEM, as when the kernel cannot allocate a queue's memory.
 */
int sefa_charge_queue(struct sefa_client *c, uint64_t len)
{
	uint64_t max = c->d->caps.max_queue_bytes;

	if (max && (len > max || c->queue_bytes > max - len))
		return sefa_refuse(c, -ENOMEM,
				   "--max-queue-mem: %llu more bytes, %llu held",
				   (unsigned long long)len,
				   (unsigned long long)c->queue_bytes);
	c->queue_bytes += len;
	return 0;
}

void sefa_uncharge_queue(struct sefa_client *c, uint64_t len)
{
	c->queue_bytes -= len;
}

/*
 * One more object of kind @k on the client's device, whichever process
 * holds the others: the device's own limit (--limit), as the hardware
 * counts its objects.  Beyond it the device refuses the admin command
 * with a resource allocation failure, which the efa driver answers with
 * -ENOMEM.
 */
int sefa_limit_take(struct sefa_client *c, enum sefa_limit k)
{
	struct sefa_device *dev = c->dev;

	if (dev->used[k] >= dev->limit[k])
		return sefa_refuse(c, -ENOMEM, "device limit %s=%llu reached",
				   sefa_limit_name(k),
				   (unsigned long long)dev->limit[k]);
	dev->used[k]++;
	return 0;
}

/* An object of kind @k gone from @dev: room for another. */
void sefa_limit_give(struct sefa_device *dev, enum sefa_limit k)
{
	dev->used[k]--;
}
