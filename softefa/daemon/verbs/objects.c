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

#include "efa/efa_abi_compat.h"
#include "efa/efa_ext_abi.h"
#include "verbs/verbs.h"

/*
 * A fault rule may fail a create command, as the device's admin command
 * can fail; nothing is made and the caller unwinds what it prepared.
 */
int sefa_create_fault(struct sefa_client *c, enum sefa_fault_obj obj)
{
	struct sefa_fault_ctx what;
	struct sefa_fault_hit hit;

	sefa_fault_ctx_init(&what, SEFA_FAULT_BIT(SEFA_FAULT_FAIL_CREATE));
	what.dev = (int)c->dev->index;
	what.obj = obj;
	if (!sefa_fault_match(c->d->faults, &what, &hit))
		return 0;
	return sefa_refuse(c, -hit.err, "fault rule %u", hit.id);
}

static const enum sefa_fault_obj fault_objs[] = {
	[SEFA_OBJ_PD] = SEFA_FAULT_OBJ_PD,
	[SEFA_OBJ_MR] = SEFA_FAULT_OBJ_MR,
	[SEFA_OBJ_CQ] = SEFA_FAULT_OBJ_CQ,
	[SEFA_OBJ_QP] = SEFA_FAULT_OBJ_QP,
	[SEFA_OBJ_AH] = SEFA_FAULT_OBJ_AH,
};

int sefa_uobj_add(struct sefa_client *c, struct sefa_uobj *u,
		  enum sefa_obj_type type)
{
	unsigned int i;
	int ret;

	ret = sefa_create_fault(c, fault_objs[type]);
	if (ret)
		return ret;
	ret = sefa_charge_object(c);
	if (ret)
		return ret;
	for (i = 0; i < c->nuobj; i++)
		if (!c->uobj[i])
			break;
	if (i == c->nuobj) {
		struct sefa_uobj **t;

		if (c->nuobj >= (1U << 20))
			return sefa_refuse(c, -EMFILE, "handle table full");
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

static struct sefa_uobj *uobj_get(struct sefa_client *c, uint32_t handle,
				  enum sefa_obj_type type)
{
	if (handle >= c->nuobj || !c->uobj[handle] ||
	    c->uobj[handle]->type != type)
		return NULL;
	return c->uobj[handle];
}

/*
 * sefa_pd_from_handle() and its kin: the object of one type behind a
 * handle, NULL when the handle names nothing or an object of another type.
 */
#define UOBJ_FROM_HANDLE(name, kind)					\
struct sefa_##name *sefa_##name##_from_handle(struct sefa_client *c,	\
					      uint32_t handle)		\
{									\
	struct sefa_uobj *u = uobj_get(c, handle, kind);		\
									\
	return u ? container_of(u, struct sefa_##name, uobj) : NULL;	\
}

UOBJ_FROM_HANDLE(pd, SEFA_OBJ_PD)
UOBJ_FROM_HANDLE(mr, SEFA_OBJ_MR)
UOBJ_FROM_HANDLE(ah, SEFA_OBJ_AH)
UOBJ_FROM_HANDLE(cq, SEFA_OBJ_CQ)
UOBJ_FROM_HANDLE(qp, SEFA_OBJ_QP)

/* A handle that names no object of @type: refuse the request with @err. */
int sefa_bad_handle(struct sefa_client *c, int err, enum sefa_obj_type type,
		    uint32_t handle)
{
	static const char *const names[] = {
		[SEFA_OBJ_PD] = "PD", [SEFA_OBJ_MR] = "MR", [SEFA_OBJ_CQ] = "CQ",
		[SEFA_OBJ_QP] = "QP", [SEFA_OBJ_AH] = "AH",
	};

	return sefa_refuse(c, err, "unknown %s handle %u", names[type], handle);
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
		return sefa_refuse(c, -ENOMEM, "the device's %u PDs are taken",
				   SEFA_MAX_PD);
	ret = sefa_limit_take(c, SEFA_LIMIT_PD);
	if (ret)
		return ret;
	pd = calloc(1, sizeof(*pd));
	if (!pd) {
		ret = -ENOMEM;
		goto err_give;
	}
	ret = sefa_uobj_add(c, &pd->uobj, SEFA_OBJ_PD);
	if (ret)
		goto err_free;
	pd->dev = dev;
	pd->pdn = n;
	dev->pdn_used[n] = 1;
	*out = pd;
	return 0;

err_free:
	free(pd);
err_give:
	sefa_limit_give(dev, SEFA_LIMIT_PD);
	return ret;
}

int sefa_pd_destroy(struct sefa_pd *pd)
{
	if (pd->uobj.usecnt)
		return sefa_refuse(pd->uobj.c, -EBUSY,
				   "PD still used by %u objects", pd->uobj.usecnt);
	pd->dev->pdn_used[pd->pdn] = 0;
	sefa_limit_give(pd->dev, SEFA_LIMIT_PD);
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

static int access_refused(struct sefa_client *c, int err, uint32_t access)
{
	return sefa_refuse(c, err, "access flags %#x %s", access,
			   err == -EOPNOTSUPP ? "beyond what the device offers" :
			   "not valid here");
}

/*
 * The key table twice as large, up to the device's max_mr; the search for
 * a free slot goes on from the first new one.
 */
static int mr_table_grow(struct sefa_device *dev)
{
	uint64_t n = (uint64_t)dev->mr_slots * 2;
	struct sefa_mr **mr;
	uint8_t *gen;

	if (n > dev->limit[SEFA_LIMIT_MR])
		n = dev->limit[SEFA_LIMIT_MR];
	mr = realloc(dev->mr, n * sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	dev->mr = mr;
	gen = realloc(dev->mr_gen, n);
	if (!gen)
		return -ENOMEM;
	dev->mr_gen = gen;
	memset(mr + dev->mr_slots, 0, (n - dev->mr_slots) * sizeof(*mr));
	memset(gen + dev->mr_slots, 0, n - dev->mr_slots);
	dev->mr_hint = dev->mr_slots;
	dev->mr_slots = n;
	return 0;
}

/*
 * Give @mr a handle and a key: a free slot of the device's key table, at
 * the slot's next generation.  A region and an indirect key alike.  Under
 * max_mr a slot is free or the table can grow.
 */
static int mr_add(struct sefa_client *c, struct sefa_pd *pd,
		  struct sefa_mr *mr)
{
	struct sefa_device *dev = pd->dev;
	unsigned int i, idx = 0;
	int ret;

	ret = sefa_limit_take(c, SEFA_LIMIT_MR);
	if (ret)
		return ret;
	for (i = 0; i < dev->mr_slots; i++) {
		idx = (dev->mr_hint + i) % dev->mr_slots;
		if (!dev->mr[idx])
			break;
	}
	if (i == dev->mr_slots) {
		ret = mr_table_grow(dev);
		if (ret) {
			sefa_refuse(c, ret, "no room for a key table of more than %u",
				    dev->mr_slots);
			goto err_give;
		}
		idx = dev->mr_hint;
	}
	ret = sefa_uobj_add(c, &mr->uobj, SEFA_OBJ_MR);
	if (ret)
		goto err_give;
	mr->pd = pd;
	/* A stale key never finds a new region: the generation moves on. */
	dev->mr_gen[idx] = (dev->mr_gen[idx] + 1) & SEFA_MR_GEN_MASK;
	mr->lkey = idx << SEFA_MR_GEN_BITS | dev->mr_gen[idx];
	dev->mr[idx] = mr;
	dev->mr_hint = idx + 1;
	pd->uobj.usecnt++;
	return 0;

err_give:
	sefa_limit_give(dev, SEFA_LIMIT_MR);
	return ret;
}

/* The rights that let the device write a region's pages. */
#define MR_WRITABLE (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
		     IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_MW_BIND)

int sefa_mr_reg(struct sefa_client *c, struct sefa_pd *pd, uint64_t addr,
		uint64_t length, uint64_t iova, uint32_t access,
		struct sefa_mr **out)
{
	struct sefa_device *dev = pd->dev;
	struct sefa_mr *mr;
	int ret;

	ret = mr_access_ok(dev, access);
	if (ret)
		return access_refused(c, ret, access);
	if (!length || addr + length < addr || iova + length < iova ||
	    length > dev->limit[SEFA_LIMIT_MR_PAGES] * SEFA_PAGE_SIZE)
		return sefa_refuse(c, -EINVAL,
				   "length %llu is 0, wraps or is above max_mr_size",
				   (unsigned long long)length);
	/*
	 * Pinning faults on memory the process does not have, or may not
	 * write when the access lets the device write (ib_umem_get() and
	 * ib_access_writable()).
	 */
	ret = sefa_user_pages_ok(c, addr, length, access & MR_WRITABLE);
	if (ret)
		return ret;

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	ret = sefa_pin(c, addr, length, &mr->mm, &mr->npages);
	if (ret)
		goto err_free;
	mr->addr = addr;
	mr->length = length;
	mr->iova = iova;
	mr->access = access;
	ret = mr_add(c, pd, mr);
	if (ret)
		goto err_unpin;
	*out = mr;
	return 0;

err_unpin:
	sefa_unpin(c, mr->mm, mr->npages);
err_free:
	free(mr);
	return ret;
}

/* What an indirect key may grant: local write and the remote rights. */
#define INDIRECT_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)

/*
 * For a key's create access and every fill: only those rights, and the IB
 * rule that remote write or atomic needs local write.
 */
static int indirect_access_ok(uint32_t access)
{
	if (access & ~INDIRECT_ACCESS)
		return -EINVAL;
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	return 0;
}

/*
 * An indirect key for lists of up to @max_entries ranges, created free:
 * nothing goes through it until a UMR fills it.  @access bounds what any
 * fill grants.
 */
int sefa_mr_create_indirect(struct sefa_client *c, struct sefa_pd *pd,
			    uint32_t max_entries, uint32_t access,
			    struct sefa_mr **out)
{
	struct sefa_device *dev = pd->dev;
	struct sefa_mr *mr;
	int ret;

	if (!(dev->profile->device_caps & SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR))
		return sefa_refuse(c, -EOPNOTSUPP,
				   "no indirect keys on this profile");
	if (!max_entries || max_entries > SEFA_INDIRECT_MR_MAX_ENTRIES)
		return sefa_refuse(c, -EINVAL, "max_entries %u not within 1..%u",
				   max_entries, SEFA_INDIRECT_MR_MAX_ENTRIES);
	ret = indirect_access_ok(access);
	/* No atomics on this device, as REG_MR says too. */
	if (!ret && (access & IBV_ACCESS_REMOTE_ATOMIC))
		ret = -EOPNOTSUPP;
	if (!ret)
		ret = mr_access_ok(dev, access);
	if (ret)
		return access_refused(c, ret, access);

	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -ENOMEM;
	mr->klm = calloc(max_entries, sizeof(*mr->klm));
	if (!mr->klm) {
		ret = -ENOMEM;
		goto err_free_mr;
	}
	mr->indirect = true;
	mr->max_entries = max_entries;
	mr->max_access = access;
	ret = mr_add(c, pd, mr);
	if (ret)
		goto err_free_klm;
	*out = mr;
	return 0;

err_free_klm:
	free(mr->klm);
err_free_mr:
	free(mr);
	return ret;
}

/* Whatever the state of an indirect key: its list goes with it. */
int sefa_mr_dereg(struct sefa_mr *mr)
{
	struct sefa_device *dev = mr->pd->dev;

	dev->mr[SEFA_MR_SLOT(mr->lkey)] = NULL;
	sefa_limit_give(dev, SEFA_LIMIT_MR);
	mr->pd->uobj.usecnt--;
	/* An indirect key pins nothing: it names other regions. */
	if (mr->mm)
		sefa_unpin(mr->uobj.c, mr->mm, mr->npages);
	sefa_uobj_del(&mr->uobj);
	free(mr->klm);
	free(mr);
	return 0;
}

/* The region or indirect key behind @key; NULL for a stale or unknown key. */
struct sefa_mr *sefa_mr_get(struct sefa_device *dev, uint32_t key)
{
	struct sefa_mr *mr;

	key &= EFA_IO_LKEY_MASK;
	if (SEFA_MR_SLOT(key) >= dev->mr_slots)
		return NULL;
	mr = dev->mr[SEFA_MR_SLOT(key)];
	if (!mr || mr->lkey != key)
		return NULL;
	return mr;
}

/* Whether [iova, iova + len) lies inside what @mr covers. */
bool sefa_mr_holds(const struct sefa_mr *mr, uint64_t iova, uint64_t len)
{
	return iova >= mr->iova && iova + len >= iova &&
	       iova + len <= mr->iova + mr->length;
}

/*
 * The region behind @key, if [iova, iova + len) lies inside it; NULL for a
 * stale or unknown key, for an indirect key and for an access out of
 * bounds.
 */
struct sefa_mr *sefa_mr_lookup(struct sefa_device *dev, uint32_t key,
			       uint64_t iova, uint64_t len)
{
	struct sefa_mr *mr = sefa_mr_get(dev, key);

	if (!mr || mr->indirect || !sefa_mr_holds(mr, iova, len))
		return NULL;
	return mr;
}

/*
 * A UMR fill of @mkey: @n entries, each a nonzero range of a region of the
 * key's PD, laid end to end from @base.  The rights are those of the fill
 * within those of the key.  On any error the key stays as it was.
 */
int sefa_mr_fill(struct sefa_mr *mkey, const struct efa_io_klm *klm,
		 unsigned int n, uint64_t base, uint32_t access)
{
	struct sefa_device *dev = mkey->pd->dev;
	uint64_t total = 0;
	unsigned int i;
	int ret;

	if (!n || n > mkey->max_entries)
		return -EINVAL;
	ret = indirect_access_ok(access);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		const struct sefa_mr *mr;

		if (!klm[i].length)
			return -EINVAL;
		mr = sefa_mr_lookup(dev, klm[i].lkey, klm[i].addr,
				    klm[i].length);
		if (!mr || mr->pd != mkey->pd)
			return -EINVAL;
		/* At most 2^8 entries of less than 2^32: no overflow. */
		total += klm[i].length;
	}
	if (base + total < base)
		return -EINVAL;

	for (i = 0, total = 0; i < n; i++) {
		mkey->klm[i] = (struct sefa_klm){
			.lkey = klm[i].lkey & EFA_IO_LKEY_MASK,
			.addr = klm[i].addr,
			.length = klm[i].length,
			.offset = total,
		};
		total += klm[i].length;
	}
	mkey->nentries = n;
	mkey->iova = base;
	mkey->length = total;
	mkey->access = access & mkey->max_access;
	mkey->filled = true;
	return 0;
}

/* Back to free: the key stays, nothing goes through it. */
void sefa_mr_invalidate(struct sefa_mr *mkey)
{
	mkey->filled = false;
	mkey->nentries = 0;
	mkey->iova = 0;
	mkey->length = 0;
	mkey->access = 0;
}

/*
 * The device's AH for (@pd, @gid), with one more user: the one the PD has,
 * or a free slot of the table.  EFA devices take no second AH to the same
 * destination on a PD, and the efa driver's AH cache (efa_ah_cache.c) gives
 * every create of the pair the number it has, counting users.  libfabric
 * relies on it: it makes an AH to its own address for itself and another
 * for its address vector, and maps a completion's AH number back to the
 * vector's peer.  So one slot per pair, and the max_ah limit counts slots,
 * not AH objects.
 */
static int dev_ah_get(struct sefa_client *c, struct sefa_pd *pd,
		      const uint8_t gid[16])
{
	struct sefa_device *dev = pd->dev;
	int n, ret, free_n = -1;

	for (n = 0; n < SEFA_MAX_AH; n++) {
		struct sefa_dev_ah *dah = &dev->ah[n];

		if (!dah->users) {
			if (free_n < 0)
				free_n = n;
			continue;
		}
		if (dah->pd == pd && !memcmp(dah->gid, gid, 16)) {
			dah->users++;
			return n;
		}
	}
	if (free_n < 0)
		return sefa_refuse(c, -ENOMEM,
				   "the device's %u AH numbers are taken",
				   SEFA_MAX_AH);
	ret = sefa_limit_take(c, SEFA_LIMIT_AH);
	if (ret)
		return ret;
	dev->ah[free_n] = (struct sefa_dev_ah){ .pd = pd, .users = 1 };
	memcpy(dev->ah[free_n].gid, gid, 16);
	return free_n;
}

/* The last user gone, the number is free for another pair. */
static void dev_ah_put(struct sefa_device *dev, uint16_t ahn)
{
	struct sefa_dev_ah *dah = &dev->ah[ahn];

	if (!--dah->users) {
		*dah = (struct sefa_dev_ah){};
		sefa_limit_give(dev, SEFA_LIMIT_AH);
	}
}

/*
 * Every create is an object of its own, with its own handle and its own
 * reference on the PD, as in the kernel; only the AH number is shared.
 */
int sefa_ah_create(struct sefa_client *c, struct sefa_pd *pd,
		   const uint8_t gid[16], struct sefa_ah **out)
{
	struct sefa_ah *ah;
	int n, ret;

	n = dev_ah_get(c, pd, gid);
	if (n < 0)
		return n;
	ah = calloc(1, sizeof(*ah));
	if (!ah) {
		ret = -ENOMEM;
		goto err_put;
	}
	ret = sefa_uobj_add(c, &ah->uobj, SEFA_OBJ_AH);
	if (ret)
		goto err_free;
	ah->pd = pd;
	ah->ahn = n;
	pd->uobj.usecnt++;
	*out = ah;
	return 0;

err_free:
	free(ah);
err_put:
	dev_ah_put(pd->dev, n);
	return ret;
}

/* Other AH objects to the same destination keep the number working. */
int sefa_ah_destroy(struct sefa_ah *ah)
{
	dev_ah_put(ah->pd->dev, ah->ahn);
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
		const struct sefa_dev_ah *dah = &pd->dev->ah[n];

		if (dah->users && dah->pd == pd && !memcmp(dah->gid, gid, 16))
			return n;
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
	struct sefa_uobj *u = uobj_get(c, handle, type);

	if (!u)
		return sefa_bad_handle(c, -ENOENT, type, handle);
	switch (type) {
	case SEFA_OBJ_PD:
		return sefa_pd_destroy(container_of(u, struct sefa_pd, uobj));
	case SEFA_OBJ_MR:
		return sefa_mr_dereg(container_of(u, struct sefa_mr, uobj));
	case SEFA_OBJ_AH:
		return sefa_ah_destroy(container_of(u, struct sefa_ah, uobj));
	default:
		return -EINVAL;
	}
}
