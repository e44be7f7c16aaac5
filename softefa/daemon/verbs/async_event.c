// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Async events on demand, each with what the kernel and the device do
 * around it: a QP that hit a fatal error is in the error state and its
 * work requests flush; a CQ in error writes nothing more; a port that
 * goes down reports PORT_DOWN in query_port and sysfs, and its device
 * sends and takes no packet until it is up again; a device that died
 * tells every context, and, as the kernel does once it disassociates the
 * open files from a device that is gone, answers every later command of
 * theirs with EIO (client.c) while its engine leaves it be.
 *
 * The caller holds the daemon lock, which covers the clients list and
 * every object.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>

#include <infiniband/verbs.h>

#include "verbs/verbs.h"

/* The async file of @c, if it has a context on @dev. */
static bool client_on(const struct sefa_client *c,
		      const struct sefa_device *dev)
{
	return c->dev == dev && !c->umad && atomic_load(&c->has_ucontext);
}

static unsigned int qp_fatal(struct sefa_qp *qp)
{
	unsigned int before = qp->events_queued;

	/* the engine flushes a QP in error on its next pass */
	qp->state = IBV_QPS_ERR;
	sefa_async_event(qp->uobj.c, qp->user_handle, IBV_EVENT_QP_FATAL,
			 &qp->events_queued);
	return qp->events_queued - before;
}

static unsigned int cq_err(struct sefa_cq *cq)
{
	unsigned int before = cq->async_events_queued;

	cq->overrun = true;
	sefa_async_event(cq->uobj.c, cq->user_handle, IBV_EVENT_CQ_ERR,
			 &cq->async_events_queued);
	return cq->async_events_queued - before;
}

/*
 * The QPs of @dev (those with QP number @qpn, when not negative) into the
 * error state, each with IBV_EVENT_QP_FATAL; or, for @cqs, their CQs
 * into error with IBV_EVENT_CQ_ERR (every CQ of the device, when @qpn is
 * negative).  Returns the events queued, or -ENOENT when no object
 * matched.
 */
static int objects_fatal(struct sefa_daemon *d, struct sefa_device *dev,
			 int64_t qpn, bool cqs)
{
	unsigned int n = 0, i;
	bool found = false;
	struct sefa_client *c;

	for (c = d->clients; c; c = c->next) {
		if (!client_on(c, dev))
			continue;
		for (i = 0; i < c->nuobj; i++) {
			struct sefa_uobj *u = c->uobj[i];
			struct sefa_qp *qp;

			if (!u)
				continue;
			if (cqs && qpn < 0 && u->type == SEFA_OBJ_CQ) {
				found = true;
				n += cq_err(container_of(u, struct sefa_cq,
							 uobj));
				continue;
			}
			if (u->type != SEFA_OBJ_QP)
				continue;
			qp = container_of(u, struct sefa_qp, uobj);
			if (qpn >= 0 && qp->qpn != qpn)
				continue;
			found = true;
			if (!cqs) {
				n += qp_fatal(qp);
				continue;
			}
			n += cq_err(qp->send_cq);
			if (qp->recv_cq != qp->send_cq)
				n += cq_err(qp->recv_cq);
		}
	}
	return found ? (int)n : -ENOENT;
}

/* @type, about port 1 or the device, to every context on @dev. */
static unsigned int dev_event(struct sefa_daemon *d, struct sefa_device *dev,
			      uint32_t type, uint64_t element)
{
	unsigned int n = 0;
	struct sefa_client *c;

	for (c = d->clients; c; c = c->next) {
		uint32_t sent = 0;

		if (!client_on(c, dev))
			continue;
		sefa_async_event(c, element, type, &sent);
		n += sent;
	}
	return n;
}

static int port_set(struct sefa_daemon *d, struct sefa_device *dev, bool up)
{
	int ret;

	if (dev->port_down == !up)
		return 0;
	dev->port_down = !up;
	ret = sefa_sysfs_port_update(d, dev);
	if (ret)
		return ret;
	return dev_event(d, dev, up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR,
			 1);
}

/*
 * Raise @kind on @dev now; @qpn (negative: every one) picks the QPs of a
 * QP or CQ event.  A port already in the state asked for raises nothing.
 * Returns the events queued, -ENOENT when no QP or CQ matched, -ENODEV
 * when the device is dead already.
 */
int sefa_async_raise(struct sefa_daemon *d, struct sefa_device *dev,
		     enum sefa_async_kind kind, int64_t qpn)
{
	if (atomic_load(&dev->fatal))
		return -ENODEV;
	switch (kind) {
	case SEFA_ASYNC_QP_FATAL:
		return objects_fatal(d, dev, qpn, false);
	case SEFA_ASYNC_CQ_ERR:
		return objects_fatal(d, dev, qpn, true);
	case SEFA_ASYNC_PORT_DOWN:
		return port_set(d, dev, false);
	case SEFA_ASYNC_PORT_UP:
		return port_set(d, dev, true);
	case SEFA_ASYNC_DEVICE_FATAL:
		atomic_store(&dev->fatal, true);
		return dev_event(d, dev, IBV_EVENT_DEVICE_FATAL, 0);
	}
	return -EINVAL;
}
