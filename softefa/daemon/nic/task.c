// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine thread: its passes over every device's CQs and QPs, and its
 * naps between them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * One pass at the engine's time: what came from other hosts, every armed
 * CQ looked at, then each QP's flush, send queue and due retries, then the
 * hook's timed work.  Returns the work done.
 */
unsigned int nic_engine_run(struct nic_engine *eng)
{
	struct sefa_daemon *d = eng->d;
	unsigned int work = 0, i, q;

	work += nic_net_poll(eng);
	for (i = 0; i < d->ndev; i++) {
		struct sefa_cq *cq;

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
			if (qp->pending)
				work += nic_req_retry(eng, qp);
		}
	}
	return d->engine_tick ? work + d->engine_tick(d) : work;
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

/* The send queues' doorbells the sleep waits on, as the last look saw. */
static void engine_watch_doorbells(struct sefa_daemon *d)
{
	unsigned int i, q;

	for (i = 0; i < d->ndev; i++) {
		for (q = 0; q < SEFA_MAX_QP_IDX; q++) {
			struct sefa_qp *qp = d->dev[i].qp[q];
			uint8_t *db;

			/* the QPs whose send queues the pass reads */
			if (!qp || qp->state < IBV_QPS_RTS)
				continue;
			db = (uint8_t *)qp->db->addr + SEFA_SQ_DB_OFF;
			nic_watch_doorbell(d, (const uint32_t *)db,
					   qp->sq_db_seen);
		}
	}
}

/*
 * A pass, and when it finds nothing, the engine says it is going to sleep
 * and looks once more: a doorbell rung before the provider could see that
 * is found now, one rung after it comes with a wake.  The sleep then waits
 * on the send queues' doorbells too, with the values this look saw, so
 * that a wake that lands before the wait began is not lost: the doorbell
 * it came for has moved, and the wait ends at once.  A packet from another
 * host needs no second look: the sleep polls the sockets.
 */
static unsigned int engine_look(struct nic_engine *eng)
{
	struct sefa_daemon *d = eng->d;
	unsigned int work = nic_engine_pass(eng);

	if (work)
		return work;
	nic_watch_doze(d);
	nic_net_read_none(d);
	work = nic_engine_pass(eng);
	if (work) {
		nic_watch_rouse(d);
		return work;
	}
	engine_watch_doorbells(d);
	return 0;
}

static void *engine_main(void *arg)
{
	struct nic_engine *eng = arg;
	struct sefa_daemon *d = eng->d;
	long poll = POLL_MAX_NS;
	unsigned int busy = 0;
	enum nic_watch_wake why = WATCH_WAKE;
	bool slept = false;

	/* Sleeps this short are only worth it with a precise timer. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	engine_priority();
	for (;;) {
		unsigned int work;

		/*
		 * The daemon lock: the objects the pass reads and writes
		 * (devices' tables, QPs, CQs, keys, counters) are also the
		 * commands', and the stop flag is main's.
		 */
		pthread_mutex_lock(&d->lock);
		if (d->engine_stop) {
			pthread_mutex_unlock(&d->lock);
			free(eng);
			return NULL;
		}
		work = engine_look(eng);
		if (slept) {
			d->engine_cnt.sleeps++;
			d->engine_cnt.woken += why != WATCH_TIMEOUT;
			d->engine_cnt.unannounced += why == WATCH_TIMEOUT && work;
		}
		pthread_mutex_unlock(&d->lock);

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
		 * between, other hosts' engines at the same priority get
		 * their turn, or a busy host would starve them past their
		 * peers' retry budgets.
		 */
		if (work) {
			if (++busy % BUSY_PASSES) {
				sched_yield();
				continue;
			}
			nic_watch_doze(d);
			nic_watch_sleep(d, POLL_MIN_NS);
			continue;
		}
		nic_watch_polling(d, poll == POLL_MIN_NS);
		why = nic_watch_sleep(d, poll);
		slept = true;
	}
}

/* An engine of @d that has done nothing yet, over whatever @eng held. */
void nic_engine_init(struct nic_engine *eng, struct sefa_daemon *d)
{
	memset(eng, 0, sizeof(*eng));
	eng->d = d;
	eng->xmit = nic_wire_xmit;
}

/* The engine thread owns its state and frees it when it stops. */
struct nic_engine *nic_engine_new(struct sefa_daemon *d)
{
	struct nic_engine *eng = malloc(sizeof(*eng));

	if (!eng)
		return NULL;
	nic_engine_init(eng, d);
	return eng;
}

int sefa_engine_start(struct sefa_daemon *d)
{
	struct nic_engine *eng = nic_engine_new(d);
	int ret;

	if (!eng)
		return -ENOMEM;
	ret = nic_watch_open(d);
	if (ret)
		goto err_free;
	ret = -pthread_create(&d->engine, NULL, engine_main, eng);
	if (ret)
		goto err_watch;
	return 0;

err_watch:
	nic_watch_close(d);
err_free:
	free(eng);
	return ret;
}

void sefa_engine_stop(struct sefa_daemon *d)
{
	/* the stop flag, which the engine reads at each pass */
	pthread_mutex_lock(&d->lock);
	d->engine_stop = true;
	pthread_mutex_unlock(&d->lock);
	sefa_engine_kick(d);
	pthread_join(d->engine, NULL);
	nic_watch_close(d);
}
