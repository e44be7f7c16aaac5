// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine thread: its passes over every device's CQs and QPs, and its
 * naps between them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
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
 * One pass: what came from other hosts, every armed CQ looked at, then
 * each QP's flush, send queue and due retries, then the hook's timed work.
 * Returns the work done.
 */
unsigned int nic_engine_pass(struct nic_engine *eng)
{
	struct sefa_daemon *d = eng->d;
	unsigned int work = 0, i, q;

	eng->now = now_ns();
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

/*
 * Doorbells are plain stores, so the engine polls.  After traffic it naps
 * (or waits for a packet from another host) for a few microseconds between
 * passes: a sleeper that wakes preempts the
 * clients spinning on their CQs, where yielding would queue behind them for
 * a whole time slice.  Idle for long, it backs off to a millisecond.
 */
#define NAP_NS		(20 * 1000)
#define IDLE_NAPS	5000		/* about 100 ms of naps */

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

static void *engine_main(void *arg)
{
	struct nic_engine *eng = arg;
	struct sefa_daemon *d = eng->d;
	unsigned int idle = 0, busy = 0;

	/* Naps this short are only worth it with a precise timer. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	engine_priority();
	for (;;) {
		long nap = NAP_NS;
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
		work = nic_engine_pass(eng);
		pthread_mutex_unlock(&d->lock);

		/*
		 * Busy, go round again, but nap now and then: at real-time
		 * priority a flood of doorbells must not starve the host.  In
		 * between, other hosts' engines at the same priority get
		 * their turn, or a busy host would starve them past their
		 * peers' retry budgets.
		 */
		if (work) {
			idle = 0;
			if (++busy % 256) {
				sched_yield();
				continue;
			}
		}
		if (++idle > IDLE_NAPS)
			nap = 1000 * 1000;
		nic_net_wait(d, nap);
	}
}

/* The engine thread owns its state and frees it when it stops. */
struct nic_engine *nic_engine_new(struct sefa_daemon *d)
{
	struct nic_engine *eng = calloc(1, sizeof(*eng));

	if (!eng)
		return NULL;
	eng->d = d;
	eng->xmit = nic_wire_xmit;
	return eng;
}

int sefa_engine_start(struct sefa_daemon *d)
{
	struct nic_engine *eng = nic_engine_new(d);
	int ret;

	if (!eng)
		return -ENOMEM;
	ret = pthread_create(&d->engine, NULL, engine_main, eng);
	if (ret) {
		free(eng);
		return -ret;
	}
	return 0;
}

void sefa_engine_stop(struct sefa_daemon *d)
{
	/* the stop flag, which the engine reads at each pass */
	pthread_mutex_lock(&d->lock);
	d->engine_stop = true;
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->engine, NULL);
}
