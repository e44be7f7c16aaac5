// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which device of this daemon a GID or a LID names: the lookups both the
 * wire and the network make, kept below them so that neither asks the
 * other.
 */
#include <string.h>

#include "nic/loc.h"

/* The device of this daemon at @gid, or NULL. */
struct sefa_device *nic_device_by_gid(struct sefa_daemon *d,
				      const uint8_t gid[16])
{
	unsigned int i;

	for (i = 0; i < d->ndev; i++)
		if (!memcmp(d->dev[i].gid, gid, 16))
			return &d->dev[i];
	return NULL;
}

/* The device of this daemon with LID @lid, or NULL. */
struct sefa_device *nic_device_by_lid(struct sefa_daemon *d, uint16_t lid)
{
	unsigned int i;

	for (i = 0; i < d->ndev; i++)
		if (d->dev[i].lid && d->dev[i].lid == lid)
			return &d->dev[i];
	return NULL;
}
