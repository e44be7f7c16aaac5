// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine threads: their passes over their devices' CQs and QPs, and
 * their naps between them.
 *
 * Without a wire, each device has an engine of its own, which holds only
 * that device's lock for its pass: QPs of different devices do not wait
 * for each other, as on a host with several NICs.  Packets between them
 * go through the engines' inboxes (inbox.c).  With a wire, one engine
 * serves every device under the daemon lock: the sockets, the LID tables
 * and the MAD layer that packets from other hosts reach are the daemon's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "fault/fault.h"
#include "nic/loc.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * One pass at the engine's time: what came from other hosts and other
 * engines, every armed CQ of its devices looked at, then each QP's flush,
 * send queue and due retries.  Returns the work done.
 */
unsigned int nic_engine_run(struct nic_engine *eng)
{
	struct sefa_daemon *d = eng->d;
	unsigned int work = 0, i, q;

	work += nic_net_poll(eng);
	work += nic_inbox_poll(eng);
	for (i = eng->first; i < eng->first + eng->ndev; i++) {
		struct sefa_cq *cq;

		/* a dead device's queues are nobody's to serve */
		if (atomic_load(&d->dev[i].fatal))
			continue;
		for (cq = d->dev[i].armable; cq; cq = cq->next_armable)
			work += sefa_cq_poll_arm(cq);
		for (q = 0; q < SEFA_MAX_QP_IDX; q++) {
			struct sefa_qp *qp = d->dev[i].qp[q];

			if (!qp)
				continue;
			/* in error, receives posted meanwhile complete flushed */
			if (qp->state == IBV_QPS_ERR)
				nic_comp_flush(qp);
			if (qp->state < IBV_QPS_RTS)
				continue;
			work += nic_req_sq(eng, qp);
			if (qp->comp.pending)
				work += nic_req_retry(eng, qp);
		}
	}
	return work;
}

/* One pass, now. */
unsigned int nic_engine_pass(struct nic_engine *eng)
{
	eng->now = now_ns();
	return nic_engine_run(eng);
}

/*
 * The engine sleeps whenever a pass finds nothing (nic/watch.c).  Doorbells
 * rung without a wake are found by timed looks: every POLL_MIN_NS while
 * they find work, twice as far apart after each that finds none, up to
 * POLL_MAX_NS when idle.  Timeouts and retries are due within that too.
 * A wake for a queue that had work outstanding already means WQEs stream:
 * the engine then looks every POLL_MIN_NS as well, and says so, so that
 * providers leave out such wakes and each look takes a batch.
 */
#define POLL_MIN_NS	(20 * 1000L)
#define POLL_MAX_NS	(8 * 1000 * 1000L)
#define BUSY_PASSES	256

/*
 * Clients busy-poll their CQs, so with as many spinning clients as CPUs a
 * plain thread waits a scheduler time slice for every packet.  A NIC does
 * not queue behind the host's threads: where allowed, the engine runs at a
 * real-time priority.  It sleeps whenever it finds nothing to do, so it
 * takes only what the traffic needs.
 */
static void engine_priority(void)
{
	struct sched_param sp = { .sched_priority = 1 };

	pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

/*
 * The send queues' doorbells the sleep waits on, as the last look saw.
 * Returns whether timed looks have anything to find on @eng's devices: a
 * QP, whose doorbells a provider may ring without a wake, whose retries
 * and timeouts fall due and whose receives an error state flushes, or a
 * CQ a provider may arm without one.
 */
static bool engine_watch_doorbells(struct nic_engine *eng)
{
	struct sefa_daemon *d = eng->d;
	unsigned int i, q;
	bool any = false;

	for (i = eng->first; i < eng->first + eng->ndev; i++) {
		any |= d->dev[i].armable != NULL;
		for (q = 0; q < SEFA_MAX_QP_IDX; q++) {
			struct sefa_qp *qp = d->dev[i].qp[q];
			uint8_t *db;

			any |= qp != NULL;
			/* the QPs whose send queues the pass reads */
			if (!qp || qp->state < IBV_QPS_RTS)
				continue;
			db = (uint8_t *)qp->db->addr + SEFA_SQ_DB_OFF;
			nic_watch_doorbell(eng->watch, (const uint32_t *)db,
					   qp->req.sq_db_seen);
		}
	}
	return any;
}

/*
 * Whether @eng serves every device: it then holds the daemon lock for its
 * passes and does the higher layer's timed work in each; an engine of one
 * device of several holds that device's lock alone.
 */
static bool engine_whole(const struct nic_engine *eng)
{
	return eng->ndev == eng->d->ndev;
}

/* Whether the higher layer's timed work is @eng's: the first engine's. */
static bool engine_ticks(const struct nic_engine *eng)
{
	return eng->d->engine_tick && !eng->first;
}

/*
 * One pass, and the higher layer's timed work with it when it is ours and
 * the pass holds the daemon lock.
 */
static unsigned int engine_pass(struct nic_engine *eng)
{
	unsigned int work = nic_engine_pass(eng);

	if (engine_ticks(eng) && engine_whole(eng))
		work += eng->d->engine_tick(eng->d);
	return work;
}

/*
 * A pass, and when it finds nothing, the engine says it is going to sleep
 * and looks once more: a doorbell rung before the provider could see that
 * is found now, one rung after it comes with a wake.  The sleep then waits
 * on the send queues' doorbells too, with the values this look saw, so
 * that a wake that lands before the wait began is not lost: the doorbell
 * it came for has moved, and the wait ends at once.  A packet from another
 * host needs no second look: the sleep polls the sockets.  One from
 * another engine comes with a wake.  An engine with nothing for timed
 * looks to find, and no timed work of a higher layer, sleeps until a wake
 * (eng->timeless): a command, which every new QP comes with, or a packet.
 */
static unsigned int engine_pass_before_sleep(struct nic_engine *eng)
{
	unsigned int work = engine_pass(eng);

	if (work)
		return work;
	nic_watch_prepare_sleep(eng->watch);
	nic_net_read_none(eng->d);
	work = engine_pass(eng);
	if (work) {
		nic_watch_end_sleep(eng->watch);
		return work;
	}
	eng->timeless = !engine_watch_doorbells(eng) && !eng->d->net &&
			!engine_ticks(eng) && !nic_inbox_next_due(eng);
	return 0;
}

/*
 * How long the engine may nap at most: @poll, or less when a frame held
 * back in its inbox falls due before.  0 is until a wake.
 */
static long engine_nap(struct nic_engine *eng, long poll)
{
	uint64_t due = nic_inbox_next_due(eng), now;

	if (!due)
		return eng->timeless ? 0 : poll;
	now = now_ns();
	if (due <= now)
		return 1;
	if (eng->timeless || due - now < (uint64_t)poll)
		return (long)(due - now);
	return poll;
}

/*
 * A frozen host's engines do nothing, as a NIC whose firmware stalls: no
 * packet goes or comes, no completion is written, no doorbell read, while
 * the freeze rule is there (fault/fault.h) and its time runs.  They
 * look again every FREEZE_LOOK_NS: a plain sleep, as neither a wake nor a
 * packet from another host, which the frozen engine leaves unread, may
 * end it early, or it would spin.
 */
#define FREEZE_LOOK_NS	(1000 * 1000L)

static bool engine_frozen(struct nic_engine *eng)
{
	uint64_t until = atomic_load(&eng->d->freeze_until_ns), now;
	struct timespec nap = { 0 };

	if (!until)
		return false;
	now = now_ns();
	/* its time ran out, or its rule was cleared */
	if (until <= now ||
	    !sefa_fault_any(eng->d->faults, SEFA_FAULT_BIT(SEFA_FAULT_FREEZE))) {
		atomic_compare_exchange_strong(&eng->d->freeze_until_ns,
					       &until, 0);
		return false;
	}
	nap.tv_nsec = until - now < (uint64_t)FREEZE_LOOK_NS ?
		      (long)(until - now) : FREEZE_LOOK_NS;
	nanosleep(&nap, NULL);
	return true;
}

/* How often an engine of one device does the higher layer's timed work. */
#define TICK_NS		(1000 * 1000L)

/*
 * The higher layer's timed work, for the first of several engines: under
 * the daemon lock, so apart from its passes.  Soon after a command, which
 * may have given it work; else at most every TICK_NS, about as often as
 * the MAD layer's shortest timeouts need.
 */
static unsigned int engine_timed_work(struct nic_engine *eng)
{
	struct sefa_daemon *d = eng->d;
	uint64_t now = now_ns();
	unsigned int work;

	if (!engine_ticks(eng) || engine_whole(eng))
		return 0;
	if (!atomic_exchange(&d->tick_asked, false) &&
	    now - eng->tick_ns < TICK_NS)
		return 0;
	eng->tick_ns = now;
	sefa_daemon_lock(d);
	work = d->engine_tick(d);
	sefa_daemon_unlock(d);
	return work;
}

/*
 * What a pass reads and writes (its devices' tables, QPs, CQs, keys and
 * counters) is also the commands'.
 */
static void engine_lock(struct nic_engine *eng)
{
	if (engine_whole(eng))
		sefa_daemon_lock(eng->d);
	else
		pthread_mutex_lock(&eng->d->dev[eng->first].lock);
}

static void engine_unlock(struct nic_engine *eng)
{
	if (engine_whole(eng))
		sefa_daemon_unlock(eng->d);
	else
		pthread_mutex_unlock(&eng->d->dev[eng->first].lock);
}

/* "engine", or "engine efa_N" for one device's, as top and perf show. */
static void engine_name(const struct nic_engine *eng)
{
	char name[48] = "engine";

	if (!engine_whole(eng))
		snprintf(name, sizeof(name), "engine %s",
			 eng->d->dev[eng->first].name);
	name[15] = '\0';		/* what a thread's name holds */
	pthread_setname_np(pthread_self(), name);
}

static void *engine_main(void *arg)
{
	struct nic_engine *eng = arg;
	struct sefa_engine_counters *cnt = &eng->d->dev[eng->first].engine_cnt;
	long poll = POLL_MAX_NS;
	unsigned int busy = 0;
	enum nic_watch_wake why = WATCH_WAKE;
	bool slept = false;

	engine_name(eng);
	/* Sleeps this short are only worth it with a precise timer. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	engine_priority();
	while (!atomic_load(&eng->stop)) {
		unsigned int work;

		if (engine_frozen(eng))
			continue;
		work = engine_timed_work(eng);

		engine_lock(eng);
		work += engine_pass_before_sleep(eng);
		if (slept) {
			cnt->sleeps++;
			cnt->woken += why != WATCH_TIMEOUT;
			cnt->unannounced += why == WATCH_TIMEOUT && work;
		}
		engine_unlock(eng);

		/* work that a timed look found came unannounced */
		if (slept && why == WATCH_TIMEOUT)
			poll = work ? POLL_MIN_NS :
			       poll < POLL_MAX_NS / 2 ? poll * 2 : POLL_MAX_NS;
		else if (slept && why == WATCH_STREAM)
			poll = POLL_MIN_NS;
		slept = false;

		/*
		 * Busy, go round again, but sleep now and then: at real-time
		 * priority a flood of doorbells must not starve the host.  In
		 * between, other engines at the same priority get their
		 * turn, or a busy one would starve them past their peers'
		 * retry budgets.
		 */
		if (work) {
			if (++busy % BUSY_PASSES) {
				sched_yield();
				continue;
			}
			nic_watch_prepare_sleep(eng->watch);
			nic_watch_sleep(eng->watch, POLL_MIN_NS);
			continue;
		}
		nic_watch_polling(eng->watch, poll == POLL_MIN_NS);
		why = nic_watch_sleep(eng->watch, engine_nap(eng, poll));
		slept = true;
	}
	return NULL;
}

/* An engine of every device of @d that has done nothing yet. */
void nic_engine_init(struct nic_engine *eng, struct sefa_daemon *d)
{
	memset(eng, 0, sizeof(*eng));
	eng->d = d;
	eng->ndev = d->ndev;
	eng->xmit = nic_wire_xmit;
	eng->deliver = nic_wire_deliver;
	eng->resp_recv = nic_resp_recv;
	eng->comp_recv = nic_comp_recv;
}

struct nic_engine *nic_engine_new(struct sefa_daemon *d)
{
	struct nic_engine *eng = malloc(sizeof(*eng));

	if (!eng)
		return NULL;
	nic_engine_init(eng, d);
	return eng;
}

/* An engine of @ndev devices from @first on, with its sleep and inbox. */
static struct nic_engine *engine_new(struct sefa_daemon *d,
				     unsigned int first, unsigned int ndev)
{
	struct nic_engine *eng = nic_engine_new(d);
	unsigned int i;

	if (!eng)
		return NULL;
	eng->first = first;
	eng->ndev = ndev;
	if (nic_watch_open(eng))
		goto err_free;
	/* a whole engine's own: what the one-host path's faults hold back */
	if (nic_inbox_open(eng))
		goto err_watch;
	for (i = first; i < first + ndev; i++)
		d->dev[i].engine = eng;
	return eng;

err_watch:
	nic_watch_close(eng);
err_free:
	free(eng);
	return NULL;
}

static void engine_free(struct nic_engine *eng)
{
	unsigned int i;

	for (i = eng->first; i < eng->first + eng->ndev; i++)
		eng->d->dev[i].engine = NULL;
	nic_inbox_close(eng);
	nic_watch_close(eng);
	free(eng);
}

/*
 * The engines, all made before any starts, so that none sends to one
 * without an inbox yet.
 */
int sefa_engine_start(struct sefa_daemon *d)
{
	unsigned int n = d->net ? 1 : d->ndev, i;
	int ret;

	for (i = 0; i < n; i++) {
		struct nic_engine *eng = n == 1 ? engine_new(d, 0, d->ndev) :
						  engine_new(d, i, 1);

		if (!eng) {
			ret = -ENOMEM;
			goto err_engines;
		}
		d->engines[d->nengines++] = eng;
	}
	for (i = 0; i < n; i++) {
		ret = -pthread_create(&d->engines[i]->thread, NULL, engine_main,
				      d->engines[i]);
		if (ret)
			goto err_threads;
	}
	return 0;

err_threads:
	d->nengines = i;
	sefa_engine_stop(d);
	return ret;
err_engines:
	while (d->nengines)
		engine_free(d->engines[--d->nengines]);
	return ret;
}

/*
 * The engines started, told to stop, then taken out of the daemon (under
 * its lock, which a client's kick takes) and freed once none runs.
 */
void sefa_engine_stop(struct sefa_daemon *d)
{
	struct nic_engine *gone[SEFA_MAX_DEVICES];
	unsigned int i;

	for (i = 0; i < d->nengines; i++) {
		atomic_store(&d->engines[i]->stop, true);
		nic_watch_kick(d->engines[i]->watch);
	}
	for (i = 0; i < d->nengines; i++)
		pthread_join(d->engines[i]->thread, NULL);
	sefa_daemon_lock(d);
	memcpy(gone, d->engines, sizeof(gone));
	memset(d->engines, 0, sizeof(d->engines));
	d->nengines = 0;
	sefa_daemon_unlock(d);
	for (i = 0; i < SEFA_MAX_DEVICES; i++)
		if (gone[i])
			engine_free(gone[i]);
}
