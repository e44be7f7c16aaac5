// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An engine's sleep, and what ends it.  Each engine thread has its own
 * watch and wake page, which the contexts of the devices it serves map.
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
 * the same way.  A provider wakes it on another word of the page for a
 * queue that had work outstanding already: WQEs stream, and the engine
 * then looks by itself every few tens of microseconds and says so in the
 * page, so that the provider leaves out such wakes and each look takes a
 * batch, where each wake took one WQE.
 *
 * With a wire the engine sleeps in ppoll() on its sockets instead, and a
 * relay thread, the futexes' only waiter then, turns a wake into a write
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

/* futex_waitv() takes at most 128 words: the page's two, and doorbells. */
#define WATCH_MAX	128

struct nic_watch {
	struct sefa_daemon *d;
	struct sefa_shm *page;
	_Atomic uint32_t *word;		/* the page's, efa_ext_abi.h */
	bool waitv;			/* the kernel has futex_waitv() */
	/*
	 * What the next sleep waits on, set by the look before it: the
	 * sleep word as nic_watch_prepare_sleep() left it, then the stream
	 * word and the doorbells with the values the look saw.  @full: more doorbells
	 * than fit, so providers wake on the sleep word instead.
	 */
	uint32_t sleep_v;
	struct futex_waitv wait[WATCH_MAX];
	unsigned int nwait;
	bool full;
	int kick_fd;			/* with a wire: the relay's eventfd */
	bool relay_on;
	pthread_t relay;
	_Atomic bool relay_stop;
};

/* What the relay adds to its eventfd for a wake, and for one of a stream. */
#define RELAY_WAKE	1ULL
#define RELAY_STREAM	(1ULL << 32)

static long futex(_Atomic uint32_t *word, int op, uint32_t val,
		  const struct timespec *ts)
{
	return syscall(SYS_futex, word, op, val, ts, NULL, 0);
}

/*
 * Wait while the sleep word reads @v, for a wake on it or on the stream
 * word, until @ns (0: for ever); and on the first @ndb doorbells of the
 * list too, which end the wait at once if they moved.  Returns WATCH_WAKE
 * or WATCH_STREAM, or WATCH_TIMEOUT.  Without futex_waitv() (Linux before
 * 5.16) only the sleep word is waited on, and the page says the engine
 * looks by itself, so that no provider wakes it on another word.
 */
static enum nic_watch_wake watch_wait(struct nic_watch *w, uint32_t v,
				      unsigned int ndb, long ns)
{
	struct timespec ts, *tp = NULL;
	long ret;

	if (ns) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += (ts.tv_nsec + ns) / 1000000000L;
		ts.tv_nsec = (ts.tv_nsec + ns) % 1000000000L;
		tp = &ts;
	}
	if (!w->waitv) {
		struct timespec rel = { ns / 1000000000L, ns % 1000000000L };

		ret = futex(w->word, FUTEX_WAIT, v, ns ? &rel : NULL);
		return ret && errno == ETIMEDOUT ? WATCH_TIMEOUT : WATCH_WAKE;
	}
	w->wait[0] = (struct futex_waitv){
		.uaddr = (uintptr_t)&w->word[SEFA_WAKE_SLEEPING], .val = v,
		.flags = FUTEX_32,
	};
	w->wait[1] = (struct futex_waitv){
		.uaddr = (uintptr_t)&w->word[SEFA_WAKE_STREAM], .val = 0,
		.flags = FUTEX_32,
	};
	ret = syscall(SYS_futex_waitv, w->wait, 2 + ndb, 0, tp,
		      CLOCK_MONOTONIC);
	if (ret == 1)
		return WATCH_STREAM;
	return ret < 0 && errno == ETIMEDOUT ? WATCH_TIMEOUT : WATCH_WAKE;
}

/*
 * The relay: any FUTEX_WAKE on the page wakes it, and while the engine
 * sleeps it passes the wake on to the engine's ppoll().
 */
static void *relay_main(void *arg)
{
	struct nic_watch *w = arg;

	while (!atomic_load(&w->relay_stop)) {
		uint32_t v = atomic_load(w->word);
		enum nic_watch_wake why = watch_wait(w, v, 0, 0);
		uint64_t add = why == WATCH_STREAM ? RELAY_STREAM : RELAY_WAKE;

		if (why == WATCH_TIMEOUT || !(atomic_load(w->word) & 1))
			continue;	/* the word moved on: nobody to wake */
		if (write(w->kick_fd, &add, sizeof(add)) != sizeof(add))
			continue;	/* the counter is full: already woken */
	}
	return NULL;
}

/* The watch of @eng, whose page its devices' contexts are given. */
int nic_watch_open(struct nic_engine *eng)
{
	struct sefa_daemon *d = eng->d;
	struct nic_watch *w = calloc(1, sizeof(*w));
	unsigned int i;
	int ret = -ENOMEM;

	if (!w)
		return -ENOMEM;
	w->d = d;
	w->kick_fd = -1;
	w->page = sefa_shm_new_ro(SEFA_PAGE_SIZE);
	if (!w->page)
		goto err_free;
	w->word = w->page->addr;
	/* a kernel without futex_waitv() says ENOSYS, whatever the values */
	w->waitv = syscall(SYS_futex_waitv, NULL, 0, 0, NULL, 0) < 0 &&
		   errno != ENOSYS;
	if (!w->waitv)
		w->word[SEFA_WAKE_POLLING] = 1;
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
	eng->watch = w;
	for (i = 0; i < eng->ndev; i++)
		d->dev[eng->first + i].wake_page = w->page;
	return 0;

err_fd:
	close(w->kick_fd);
err_page:
	sefa_shm_put(w->page);
err_free:
	free(w);
	return ret;
}

void nic_watch_close(struct nic_engine *eng)
{
	struct nic_watch *w = eng->watch;
	unsigned int i;

	if (!w)
		return;
	if (w->relay_on) {
		atomic_store(&w->relay_stop, true);
		atomic_fetch_add(w->word, 2);
		futex(w->word, FUTEX_WAKE, INT_MAX, NULL);
		pthread_join(w->relay, NULL);
		close(w->kick_fd);
	}
	eng->watch = NULL;
	for (i = 0; i < eng->ndev; i++)
		eng->d->dev[eng->first + i].wake_page = NULL;
	sefa_shm_put(w->page);
	free(w);
}

/*
 * Say the engine is about to sleep.  The caller then looks at every
 * doorbell once more: a provider stores its doorbell and then reads the
 * word, the engine stores the word and then reads the doorbells, so one
 * of the two sees the other's store.
 */
void nic_watch_prepare_sleep(struct nic_watch *w)
{
	w->sleep_v = atomic_fetch_add(w->word, 1) + 1;
	w->nwait = 0;
	w->full = false;
}

/*
 * A send queue's doorbell, which read @seen at the look after
 * nic_watch_prepare_sleep(): the sleep that follows waits on it too
 * (without a wire, which has its own wait).
 */
void nic_watch_doorbell(struct nic_watch *w, const uint32_t *db,
			uint32_t seen)
{
	if (!w->waitv || w->d->net)
		return;
	if (2 + w->nwait == WATCH_MAX) {
		w->full = true;
		return;
	}
	w->wait[2 + w->nwait++] = (struct futex_waitv){
		.uaddr = (uintptr_t)db, .val = seen, .flags = FUTEX_32,
	};
}

/*
 * Whether the engine looks at the doorbells by itself every few tens of
 * microseconds: a provider may then leave out the wake for a queue that
 * had work outstanding.
 */
void nic_watch_polling(struct nic_watch *w, bool on)
{
	_Atomic uint32_t *polling = w->word + SEFA_WAKE_POLLING;

	if (w->waitv &&
	    atomic_load_explicit(polling, memory_order_relaxed) != on)
		atomic_store_explicit(polling, on, memory_order_relaxed);
}

/* Awake again, or not asleep after all. */
void nic_watch_end_sleep(struct nic_watch *w)
{
	/* Only the engine makes it even; a kick adds two. */
	if (atomic_load(w->word) & 1)
		atomic_fetch_add(w->word, 1);
}

/*
 * Sleep up to @ns (0, without a wire: until woken), until a wake or, with
 * a wire, a packet.  Returns what ended the sleep: its time, a wake, or a
 * wake for a queue that had work outstanding already (a packet counts as
 * a wake).
 */
enum nic_watch_wake nic_watch_sleep(struct nic_watch *w, long ns)
{
	enum nic_watch_wake why;
	uint64_t n;

	if (w->d->net) {
		why = nic_net_wait(w->d, w->kick_fd, ns) ? WATCH_WAKE :
							WATCH_TIMEOUT;
		if (read(w->kick_fd, &n, sizeof(n)) == sizeof(n))
			why = n >= RELAY_STREAM ? WATCH_STREAM : WATCH_WAKE;
	} else {
		/*
		 * Providers wake a sleep on the doorbells on the doorbell
		 * they rang, else on the sleep word: say which before the
		 * sleep, for the next doorbell.  A wake that read the other
		 * waits for a timed look, only when this changes.
		 */
		if (w->waitv)
			atomic_store_explicit(&w->word[SEFA_WAKE_DOORBELL],
					      !w->full && w->nwait,
					      memory_order_relaxed);
		why = watch_wait(w, w->sleep_v, w->full ? 0 : w->nwait, ns);
	}
	nic_watch_end_sleep(w);
	return why;
}

/*
 * Wake the engine of @w, if it sleeps: for the daemon's own threads and
 * the other engines.  The word moves (by two: still odd) before the wake,
 * so a sleep that has not begun yet does not begin.
 */
void nic_watch_kick(struct nic_watch *w)
{
	if (w && atomic_load(w->word) & 1) {
		atomic_fetch_add(w->word, 2);
		futex(w->word, FUTEX_WAKE, 1, NULL);
	}
}

/* Wake every engine that sleeps; under the daemon lock, which keeps them. */
void sefa_engine_kick(struct sefa_daemon *d)
{
	unsigned int i;

	for (i = 0; i < d->nengines; i++)
		nic_watch_kick(d->engines[i]->watch);
}
