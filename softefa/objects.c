// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The uobject handle table of a context, and the simple objects: protection
 * domains, memory regions and address handles.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>

#include "efa_abi_compat.h"
#include "softefad.h"

int sefa_uobj_add(struct sefa_client *c, struct sefa_uobj *u,
		  enum sefa_obj_type type)
{
	unsigned int i;

	for (i = 0; i < c->nuobj; i++)
		if (!c->uobj[i])
			break;
	if (i == c->nuobj) {
		struct sefa_uobj **t;

		if (c->nuobj >= (1U << 20))
			return -EMFILE;
		t = realloc(c->uobj, (c->nuobj + 64) * sizeof(*t));
		if (!t)
			return -ENOMEM;
		memset(t + c->nuobj, 0, 64 * sizeof(*t));
		c->uobj = t;
		c->nuobj += 64;
	}
	u->type = type;
	u->handle = i;
	u->c = c;
	c->uobj[i] = u;
	c->nobjects++;
	return 0;
}

struct sefa_uobj *sefa_uobj_get(struct sefa_client *c, uint32_t handle,
				enum sefa_obj_type type)
{
	if (handle >= c->nuobj || !c->uobj[handle] ||
	    c->uobj[handle]->type != type)
		return NULL;
	return c->uobj[handle];
}

void sefa_uobj_del(struct sefa_uobj *u)
{
	u->c->uobj[u->handle] = NULL;
	u->c->nobjects--;
}

int sefa_pd_alloc(struct sefa_client *c, struct sefa_pd **out)
{
	struct sefa_device *dev = c->dev;
	struct sefa_pd *pd;
	unsigned int n;
	int ret;

	for (n = 0; n < SEFA_MAX_PD && dev->pdn_used[n]; n++)
		;
	if (n == SEFA_MAX_PD)
		return -ENOMEM;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return -ENOMEM;
	ret = sefa_uobj_add(c, &pd->uobj, SEFA_OBJ_PD);
	if (ret) {
		free(pd);
		return ret;
	}
	pd->dev = dev;
	pd->pdn = n;
	dev->pdn_used[n] = 1;
	*out = pd;
	return 0;
}

int sefa_pd_destroy(struct sefa_pd *pd)
{
	if (pd->uobj.usecnt)
		return -EBUSY;
	pd->dev->pdn_used[pd->pdn] = 0;
	sefa_uobj_del(&pd->uobj);
	free(pd);
	return 0;
}

/*
 * What access flags the device honours: remote read needs RDMA read, and
 * remote write RDMA write; the optional-access range is ignored.
 */
static int mr_access_ok(const struct sefa_device *dev, uint32_t access)
{
	uint32_t ok = IBV_ACCESS_LOCAL_WRITE;

	if (dev->profile->device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_READ)
		ok |= IBV_ACCESS_REMOTE_READ;
	if (dev->profile->device_caps & EFA_QUERY_DEVICE_CAPS_RDMA_WRITE)
		ok |= IBV_ACCESS_REMOTE_WRITE;
	access &= ~IBV_ACCESS_OPTIONAL_RANGE;
	if (access & ~ok)
		return -EOPNOTSUPP;
	/* The IB rule: remote write needs local write. */
	if ((access & IBV_ACCESS_REMOTE_WRITE) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

int sefa_mr_reg(struct sefa_client *c, struct sefa_pd *pd, uint64_t addr,
		uint64_t length, uint64_t iova, uint32_t access,
		struct sefa_mr **out)
{
	struct sefa_device *dev = pd->dev;
	struct sefa_mr *mr;
	unsigned int i, idx;
	uint8_t probe;
	int ret;

	ret = mr_access_ok(dev, access);
	if (ret)
		return ret;
	if (!length || addr + length < addr || iova + length < iova ||
	    length > dev->profile->max_mr_size)
		return -EINVAL;
	/* Pinning would fault on memory the process does not have. */
	if (sefa_copy_from_user(c, &probe, addr, 1) ||
	    sefa_copy_from_user(c, &probe, addr + length - 1, 1))
		return -EFAULT;

	for (i = 0; i < SEFA_MAX_MR_IDX; i++) {
		idx = (dev->mr_hint + i) % SEFA_MAX_MR_IDX;
		if (!dev->mr[idx])
			break;
	}
	if (i == SEFA_MAX_MR_IDX)
		return -ENOMEM;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	ret = sefa_uobj_add(c, &mr->uobj, SEFA_OBJ_MR);
	if (ret) {
		free(mr);
		return ret;
	}
	mr->pd = pd;
	mr->pid = c->pid;
	mr->addr = addr;
	mr->length = length;
	mr->iova = iova;
	mr->access = access;
	/* A stale key never finds a new region: the generation moves on. */
	mr->lkey = idx << 8 | ++dev->mr_gen[idx];
	dev->mr[idx] = mr;
	dev->mr_hint = idx + 1;
	pd->uobj.usecnt++;
	*out = mr;
	return 0;
}

int sefa_mr_dereg(struct sefa_mr *mr)
{
	struct sefa_device *dev = mr->pd->dev;

	dev->mr[mr->lkey >> 8] = NULL;
	mr->pd->uobj.usecnt--;
	sefa_uobj_del(&mr->uobj);
	free(mr);
	return 0;
}

/*
 * The region behind @key, if [iova, iova + len) lies inside it; NULL for a
 * stale or unknown key and for an access out of bounds.
 */
struct sefa_mr *sefa_mr_lookup(struct sefa_device *dev, uint32_t key,
			       uint64_t iova, uint64_t len)
{
	struct sefa_mr *mr;

	key &= EFA_IO_LKEY_MASK;
	mr = dev->mr[key >> 8];
	if (!mr || mr->lkey != key)
		return NULL;
	if (iova < mr->iova || iova + len < iova ||
	    iova + len > mr->iova + mr->length)
		return NULL;
	return mr;
}

int sefa_ah_create(struct sefa_client *c, struct sefa_pd *pd,
		   const uint8_t gid[16], struct sefa_ah **out)
{
	struct sefa_device *dev = pd->dev;
	struct sefa_ah *ah;
	unsigned int n;
	int ret;

	for (n = 0; n < SEFA_MAX_AH && dev->ah[n]; n++)
		;
	if (n == SEFA_MAX_AH)
		return -ENOMEM;
	ah = calloc(1, sizeof(*ah));
	if (!ah)
		return -ENOMEM;
	ret = sefa_uobj_add(c, &ah->uobj, SEFA_OBJ_AH);
	if (ret) {
		free(ah);
		return ret;
	}
	ah->pd = pd;
	ah->ahn = n;
	memcpy(ah->gid, gid, 16);
	dev->ah[n] = ah;
	pd->uobj.usecnt++;
	*out = ah;
	return 0;
}

int sefa_ah_destroy(struct sefa_ah *ah)
{
	ah->pd->dev->ah[ah->ahn] = NULL;
	ah->pd->uobj.usecnt--;
	sefa_uobj_del(&ah->uobj);
	free(ah);
	return 0;
}

/* The AH a receiver's PD has for @gid: how a completion names the sender. */
uint16_t sefa_ah_find(const struct sefa_pd *pd, const uint8_t gid[16])
{
	unsigned int n;

	for (n = 0; n < SEFA_MAX_AH; n++) {
		const struct sefa_ah *ah = pd->dev->ah[n];

		if (ah && ah->pd == pd && !memcmp(ah->gid, gid, 16))
			return ah->ahn;
	}
	return EFA_IO_AH_UNKNOWN;
}

/*
 * Destroy a PD, MR or AH by handle: the objects whose destroy answers
 * nothing.  -ENOENT when the handle names no such object.
 */
int sefa_uobj_destroy(struct sefa_client *c, uint32_t handle,
		      enum sefa_obj_type type)
{
	struct sefa_uobj *u = sefa_uobj_get(c, handle, type);

	if (!u)
		return -ENOENT;
	switch (type) {
	case SEFA_OBJ_PD:
		return sefa_pd_destroy((struct sefa_pd *)u);
	case SEFA_OBJ_MR:
		return sefa_mr_dereg((struct sefa_mr *)u);
	case SEFA_OBJ_AH:
		return sefa_ah_destroy((struct sefa_ah *)u);
	default:
		return -EINVAL;
	}
}
