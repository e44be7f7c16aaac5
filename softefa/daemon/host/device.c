// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Identity of the simulated devices: names, GUIDs, GIDs and LIDs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"

/*
 * The node GUID is the EUI-64 of the host interface's MAC, as IB and RoCE
 * devices derive theirs.  Several simulated hosts may share one netdev, so
 * the host id and the device index go into the bytes EUI-64 fixes to ff:fe,
 * keeping every GUID of every host distinct.
 */
static uint64_t make_guid(const uint8_t mac[6], unsigned int host,
			  unsigned int index)
{
	uint8_t g[8] = {
		mac[0] ^ 0x02, mac[1], mac[2],
		0xff ^ (uint8_t)host, 0xfe ^ (uint8_t)index,
		mac[3], mac[4], mac[5],
	};
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = v << 8 | g[i];
	return v;
}

/* One completion vector per online CPU, as the efa driver's EQs. */
static uint32_t comp_vectors(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	if (n < SEFA_MIN_COMP_VECTORS)
		return SEFA_MIN_COMP_VECTORS;
	return n > SEFA_MAX_COMP_VECTORS ? SEFA_MAX_COMP_VECTORS : (uint32_t)n;
}

int sefa_devices_init(struct sefa_daemon *d, unsigned int ndev)
{
	uint32_t nvec = comp_vectors();
	unsigned int i;
	int b, k;

	d->ndev = ndev;
	for (i = 0; i < ndev; i++) {
		struct sefa_device *dev = &d->dev[i];

		for (k = 0; k < SEFA_LIMIT_MAX; k++)
			dev->limit[k] = sefa_limit_value(&d->limits,
							 d->profile, k);
		/* A profile offering more keys than a key can name. */
		if (dev->limit[SEFA_LIMIT_MR] > SEFA_MR_SLOTS_MAX)
			return -ERANGE;
		dev->mr_slots = dev->limit[SEFA_LIMIT_MR] < SEFA_MR_SLOTS_FIRST ?
				dev->limit[SEFA_LIMIT_MR] : SEFA_MR_SLOTS_FIRST;
		dev->mr = calloc(dev->mr_slots, sizeof(*dev->mr));
		dev->mr_gen = calloc(dev->mr_slots, sizeof(*dev->mr_gen));
		if (!dev->mr || !dev->mr_gen)
			return -ENOMEM;

		pthread_mutex_init(&dev->lock, NULL);
		dev->index = i;
		dev->profile = d->profile;
		dev->num_comp_vectors = nvec;
		snprintf(dev->name, sizeof(dev->name), "efa_%u", i);
		dev->node_guid = make_guid(d->netdev.mac, d->host_id, i);
		/* A link-local GID: fe80::/64 and the GUID as interface id. */
		memset(dev->gid, 0, sizeof(dev->gid));
		dev->gid[0] = 0xfe;
		dev->gid[1] = 0x80;
		for (b = 0; b < 8; b++)
			dev->gid[8 + b] = dev->node_guid >> (56 - 8 * b);
		if (d->profile->has_mad)
			dev->cap_mask = SEFA_CA_CAP_MASK;
		if (d->profile->has_lid) {
			/*
			 * What the SM gives: LIDs apart for each host, and
			 * its own.  Without a wire, every host runs one.
			 */
			dev->lid = SEFA_SM_LID + d->host_id * SEFA_MAX_DEVICES +
				   i + 1;
			dev->sm_lid = SEFA_SM_LID;
		}
	}
	return 0;
}

/* Every device's lock, in their order; let go in the reverse. */
static void devices_lock(struct sefa_daemon *d)
{
	unsigned int i;

	for (i = 0; i < d->ndev; i++)
		pthread_mutex_lock(&d->dev[i].lock);
}

static void devices_unlock(struct sefa_daemon *d)
{
	unsigned int i = d->ndev;

	while (i--)
		pthread_mutex_unlock(&d->dev[i].lock);
}

/*
 * The daemon lock, then every device's, in their order: what a command,
 * the MAD layer and the wire need to see every device at rest.  An
 * engine of one device takes only that device's lock, and no other lock
 * while it holds it but leaf ones, so that this order cannot deadlock.
 */
void sefa_daemon_lock(struct sefa_daemon *d)
{
	pthread_mutex_lock(&d->lock);
	devices_lock(d);
}

void sefa_daemon_unlock(struct sefa_daemon *d)
{
	devices_unlock(d);
	pthread_mutex_unlock(&d->lock);
}

/*
 * Wait on @cond, which is signalled under the daemon lock, with the
 * devices' locks let go too, so that their engines run meanwhile.
 */
int sefa_daemon_cond_timedwait(struct sefa_daemon *d, pthread_cond_t *cond,
			       const struct timespec *abstime)
{
	int ret;

	devices_unlock(d);
	ret = pthread_cond_timedwait(cond, &d->lock, abstime);
	devices_lock(d);
	return ret;
}

void sefa_gid_str(const uint8_t gid[16], char *buf, size_t len)
{
	snprintf(buf, len,
		 "%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x:%02x%02x",
		 gid[0], gid[1], gid[2], gid[3], gid[4], gid[5], gid[6], gid[7],
		 gid[8], gid[9], gid[10], gid[11], gid[12], gid[13], gid[14],
		 gid[15]);
}
