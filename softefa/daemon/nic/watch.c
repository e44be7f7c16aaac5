// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine's sleep, and what ends it.
 *
 * Doorbells are plain stores into shared pages, as on hardware, and a
 * thread that polled them without end would take a whole core from the
 * clients that spin on their CQs.  So the engine sleeps when it finds
 * nothing to do, and says so in the first word of the wake page, which
 * every context may map read-only (efa_ext_abi.h).  A provider that knows
 * the page reads the word after each doorbell and, when it is set, wakes
 * the engine with FUTEX_WAKE; a provider that does not (the stock one) is
 * found by the engine's timed polls, which sleep shorter while doorbells
 * keep coming unannounced.  Commands of the daemon's own threads wake it
 * the same way.
 *
 * With a wire the engine sleeps in ppoll() on its sockets instead, and a
 * relay thread, the futex's only waiter then, turns a wake into a write
 * to an eventfd among them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "nic/loc.h"

struct nic_watch {
	struct sefa_shm *page;
	_Atomic uint32_t *word;		/* odd: the engine sleeps */
	int kick_fd;			/* with a wire: the relay's eventfd */
	bool relay_on;
	pthread_t relay;
	_Atomic bool relay_stop;
};

static long futex(_Atomic uint32_t *word, int op, uint32_t val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/*
 * The relay: any FUTEX_WAKE on the word wakes it, and while the engine
 * sleeps it passes the wake on to the engine's ppoll().
 */
static void *relay_main(void *arg)
{
	struct nic_watch *w = arg;
	uint64_t one = 1;

	while (!atomic_load(&w->relay_stop)) {
		uint32_t v = atomic_load(w->word);

		if (futex(w->word, FUTEX_WAIT, v, NULL))
			continue;	/* the word moved on, or a signal */
		if (atomic_load(w->word) & 1 &&
		    write(w->kick_fd, &one, sizeof(one)) != sizeof(one))
			continue;	/* the counter is full: already woken */
	}
	return NULL;
}

int nic_watch_open(struct sefa_daemon *d)
{
	struct nic_watch *w = calloc(1, sizeof(*w));
	int ret = -ENOMEM;

	if (!w)
		return -ENOMEM;
	w->kick_fd = -1;
	w->page = sefa_shm_new_ro(SEFA_PAGE_SIZE);
	if (!w->page)
		goto err_free;
	w->word = w->page->addr;
	if (d->net) {
		w->kick_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (w->kick_fd < 0) {
			ret = -errno;
			goto err_page;
		}
		ret = -pthread_create(&w->relay, NULL, relay_main, w);
		if (ret)
			goto err_fd;
		w->relay_on = true;
	}
	d->watch = w;
	d->wake_page = w->page;
	return 0;

err_fd:
	close(w->kick_fd);
err_page:
	sefa_shm_put(w->page);
err_free:
	free(w);
	return ret;
}

void nic_watch_close(struct sefa_daemon *d)
{
	struct nic_watch *w = d->watch;

	if (!w)
		return;
	if (w->relay_on) {
		atomic_store(&w->relay_stop, true);
		atomic_fetch_add(w->word, 2);
		futex(w->word, FUTEX_WAKE, INT_MAX, NULL);
		pthread_join(w->relay, NULL);
		close(w->kick_fd);
	}
	d->watch = NULL;
	d->wake_page = NULL;
	sefa_shm_put(w->page);
	free(w);
}

/*
 * Say the engine is about to sleep.  The caller then looks at every
 * doorbell once more: a provider stores its doorbell and then reads the
 * word, the engine stores the word and then reads the doorbells, so one
 * of the two sees the other's store.
 */
void nic_watch_doze(struct sefa_daemon *d)
{
	atomic_fetch_add(d->watch->word, 1);
}

/* Awake again, or not asleep after all. */
void nic_watch_rouse(struct sefa_daemon *d)
{
	uint32_t v = atomic_load(d->watch->word);

	if (v & 1)
		atomic_store(d->watch->word, v + 1);
}

/*
 * Sleep up to @ns, until a wake or, with a wire, a packet.  Returns true
 * when something woke the engine before its time.
 */
bool nic_watch_sleep(struct sefa_daemon *d, long ns)
{
	struct nic_watch *w = d->watch;
	struct timespec ts = { .tv_sec = ns / 1000000000L,
			       .tv_nsec = ns % 1000000000L };
	uint64_t n;
	bool woken;

	if (d->net) {
		woken = nic_net_wait(d, w->kick_fd, ns);
		if (read(w->kick_fd, &n, sizeof(n)) == sizeof(n))
			woken = true;
	} else {
		woken = !futex(w->word, FUTEX_WAIT, atomic_load(w->word) | 1,
			       &ts) || errno != ETIMEDOUT;
	}
	nic_watch_rouse(d);
	return woken;
}

/* Wake the engine, if it sleeps: for the daemon's own threads. */
void sefa_engine_kick(struct sefa_daemon *d)
{
	struct nic_watch *w = d->watch;

	if (w && atomic_load(w->word) & 1)
		futex(w->word, FUTEX_WAKE, 1, NULL);
}
