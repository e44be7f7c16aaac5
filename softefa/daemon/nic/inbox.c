// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The path between the engines of this daemon.  Each device without a
 * wire has an engine of its own (task.c), which alone holds the device's
 * lock while it runs, so a packet for a device of another engine cannot
 * be handed to its responder or completer there and then, as the short
 * local path does.  It goes as a frame into that engine's inbox instead,
 * as to another host but without a socket, and the other engine takes it
 * on its next pass, woken if it sleeps.  Waking an engine costs a few tens
 * of microseconds, so when the other engine is between passes and its
 * inbox is empty, the sender of a request locks that device instead: it
 * takes its lock, without waiting for it, and hands the packet over on
 * the short path, as if one engine served both, answer and all
 * (nic_inbox_trylock_device(); wire.c says which packets may go so).
 *
 * An inbox is a queue of frames, in the order they came, each with the
 * device it is for and the GID it came from.  It holds what the senders'
 * windows let out, up to INBOX_BYTES; past that, or when memory runs out,
 * it drops what comes, as a wire would, and the requester's timer sends
 * it again.  A frame the one-host path's faults delay waits in it until
 * its due time, behind those due before it and ahead of those due after,
 * as the wire's held packets do (net_tx.c); the engine naps no longer
 * than until the first is due.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "nic/loc.h"

#define INBOX_BYTES	(64U << 20)

struct inbox_rec {
	struct inbox_rec *next;
	unsigned int dev;		/* the index of the device it is for */
	uint64_t due_ns;		/* 0: at once */
	uint8_t sgid[16];		/* the sending device's */
	size_t len;
	uint8_t frame[];
};

struct nic_inbox {
	pthread_mutex_t lock;		/* a leaf: no lock is taken under it */
	struct inbox_rec *head, *last;
	size_t bytes;			/* of the frames queued */
};

int nic_inbox_open(struct nic_engine *eng)
{
	struct nic_inbox *in = calloc(1, sizeof(*in));

	if (!in)
		return -ENOMEM;
	pthread_mutex_init(&in->lock, NULL);
	eng->inbox = in;
	return 0;
}

void nic_inbox_close(struct nic_engine *eng)
{
	struct nic_inbox *in = eng->inbox;
	struct inbox_rec *r;

	if (!in)
		return;
	while ((r = in->head)) {
		in->head = r->next;
		free(r);
	}
	pthread_mutex_destroy(&in->lock);
	free(in);
	eng->inbox = NULL;
}

/* @r into the queue, behind every frame due no later than it. */
static void inbox_queue(struct nic_inbox *in, struct inbox_rec *r)
{
	struct inbox_rec **pp;

	if (!in->head || in->last->due_ns <= r->due_ns) {
		pp = in->head ? &in->last->next : &in->head;
	} else {
		for (pp = &in->head; (*pp)->due_ns <= r->due_ns;
		     pp = &(*pp)->next)
			;
	}
	r->next = *pp;
	*pp = r;
	if (!r->next)
		in->last = r;
}

/*
 * @pkt, from a device of @eng to @dev, a device of another engine or, as
 * the one-host path's faults have it, of @eng itself: one packet of it, as
 * nic_net_xmit() sends to another host, for @dev's engine to take once
 * @due_ns (0: at once) is past.  Returns 0, or -EFAULT when the
 * requester's buffers cannot be read: nothing leaves.
 */
int nic_inbox_xmit(struct nic_engine *eng, struct sefa_device *dev,
		   const struct sefa_pkt *pkt, uint64_t due_ns)
{
	struct nic_engine *to = dev->engine;
	struct nic_inbox *in = to->inbox;
	ssize_t len = nic_frame_pkt(pkt, eng->frame);
	struct inbox_rec *r;
	bool room;

	if (len < 0)
		return len;
	r = malloc(sizeof(*r) + len);
	if (!r)
		goto drop;
	r->next = NULL;
	r->dev = dev->index;
	r->due_ns = due_ns;
	memcpy(r->sgid, pkt->sgid, sizeof(r->sgid));
	r->len = len;
	memcpy(r->frame, eng->frame, len);

	pthread_mutex_lock(&in->lock);
	room = in->bytes + len <= INBOX_BYTES;
	if (room) {
		inbox_queue(in, r);
		in->bytes += len;
	}
	pthread_mutex_unlock(&in->lock);
	if (!room) {
		free(r);
		goto drop;
	}
	if (to != eng)
		nic_watch_kick(to->watch);
	return 0;

drop:
	/* other senders count here too */
	pthread_mutex_lock(&in->lock);
	dev->engine_cnt.inbox_drops++;
	pthread_mutex_unlock(&in->lock);
	return 0;
}

/* When the first frame held back is due: 0 when none waits. */
uint64_t nic_inbox_next_due(struct nic_engine *eng)
{
	struct nic_inbox *in = eng->inbox;
	uint64_t due;

	if (!in)
		return 0;
	pthread_mutex_lock(&in->lock);
	due = in->head ? in->head->due_ns : 0;
	pthread_mutex_unlock(&in->lock);
	return due;
}

/*
 * Whether @dev, a device of another engine, is the caller's to deliver to
 * on the short path now: its engine is not in a pass, so its lock is free,
 * and nothing sent before waits in its inbox, which keeps each QP's
 * packets in order.  Never waits: the caller already holds its own
 * device's lock.  On true the caller holds @dev's lock, until it gives
 * the device back.
 */
bool nic_inbox_trylock_device(struct sefa_device *dev)
{
	struct nic_inbox *in = dev->engine->inbox;
	bool empty;

	if (pthread_mutex_trylock(&dev->lock))
		return false;
	pthread_mutex_lock(&in->lock);
	empty = !in->head;
	pthread_mutex_unlock(&in->lock);
	if (!empty)
		pthread_mutex_unlock(&dev->lock);
	return empty;
}

void nic_inbox_unlock_device(struct sefa_device *dev)
{
	pthread_mutex_unlock(&dev->lock);
}

/* The first frame due by @now, taken off the queue; NULL if none. */
static struct inbox_rec *inbox_take(struct nic_inbox *in, uint64_t now)
{
	struct inbox_rec *r;

	pthread_mutex_lock(&in->lock);
	r = in->head;
	if (r && r->due_ns > now)
		r = NULL;
	if (r) {
		in->head = r->next;
		in->bytes -= r->len;
	}
	pthread_mutex_unlock(&in->lock);
	return r;
}

/*
 * What the other engines sent: each packet to its device's responder or
 * completer, as one from another host.  Returns how many came.
 */
unsigned int nic_inbox_poll(struct nic_engine *eng)
{
	unsigned int work = 0;
	struct inbox_rec *r;
	struct sefa_pkt pkt;

	if (!eng->inbox)
		return 0;
	while ((r = inbox_take(eng->inbox, eng->now))) {
		struct sefa_device *dev = &eng->d->dev[r->dev];

		work++;
		/* a frame nic_frame_pkt() made parses */
		if (!nic_frame_parse(r->frame, r->len, &pkt)) {
			memcpy(pkt.sgid, r->sgid, sizeof(pkt.sgid));
			memcpy(pkt.dgid, dev->gid, sizeof(pkt.dgid));
			eng->deliver(eng, dev, &pkt);
		}
		free(r);
	}
	return work;
}
