// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The layer as the daemon starts and runs it: a port for each device's
 * QP0/QP1 and one for the SM and its SA, and the timers of them all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "mad/layer.h"

/* The layer's timers, from the engine's passes. */
unsigned int sefa_mad_tick(struct sefa_daemon *d)
{
	uint64_t now;
	unsigned int i, work = 0;

	if (!d->profile->has_mad)
		return 0;
	now = mad_now_ns();
	for (i = 0; i < d->ndev; i++)
		work += mad_port_tick(d->dev[i].mad, now);
	if (d->sm_port) {
		work += mad_port_tick(d->sm_port, now);
		sm_tick(d->sm_port, now);
	}
	mad_run(d);
	return work;
}

static struct sefa_mad_port *port_new(struct sefa_daemon *d,
				      struct sefa_device *dev)
{
	struct sefa_mad_port *port = calloc(1, sizeof(*port));

	if (!port)
		return NULL;
	port->d = d;
	port->dev = dev;
	if (dev) {
		port->lid = dev->lid;
		memcpy(port->gid, dev->gid, 16);
	}
	return port;
}

int sefa_mad_init(struct sefa_daemon *d)
{
	unsigned int i;
	int ret;

	if (!d->profile->has_mad)
		return 0;
	for (i = 0; i < d->ndev; i++) {
		d->dev[i].mad = port_new(d, &d->dev[i]);
		if (!d->dev[i].mad)
			return -ENOMEM;
	}
	if (!d->run_sm)
		return 0;
	d->sm_port = port_new(d, NULL);
	if (!d->sm_port)
		return -ENOMEM;
	/* at its own LID, sending from the first device's GID */
	d->sm_port->lid = SEFA_SM_LID;
	memcpy(d->sm_port->gid, d->dev[0].gid, 16);
	ret = sm_init(d, d->sm_port);
	return ret ? ret : sa_init(d->sm_port);
}
