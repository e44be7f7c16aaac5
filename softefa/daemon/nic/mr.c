// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory keys as the NIC resolves them: an lkey or rkey, checked against
 * its protection domain, bounds and access rights, becomes the process
 * segments it leads to, through a region or a filled indirect (KLM) key.
 */
#include <errno.h>

#include "nic/loc.h"

/* The segment of @mr for [iova, iova + len). */
static struct dma_seg mr_seg(const struct sefa_mr *mr, uint64_t iova,
			     uint64_t len)
{
	return (struct dma_seg){
		.mm = mr->mm,
		.addr = mr->addr + (iova - mr->iova),
		.len = len,
	};
}

static int seg_add(struct seg_list *l, const struct sefa_mr *mr,
		   uint64_t iova, uint64_t len)
{
	/* The arrays are sized for the largest WR: this is a bug guard. */
	if (l->n == MAX_SEGS)
		return -ENOSPC;
	l->seg[l->n++] = mr_seg(mr, iova, len);
	return 0;
}

/* The entry of a filled indirect key that holds offset @off of its range. */
static unsigned int klm_find(const struct sefa_mr *mkey, uint64_t off)
{
	unsigned int lo = 0, hi = mkey->nentries - 1;

	while (lo < hi) {
		unsigned int mid = (lo + hi + 1) / 2;

		if (mkey->klm[mid].offset <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/*
 * [iova, iova + len) of a filled indirect key, split over the entries it
 * covers.  Each entry's region is looked up again: one deregistered since
 * the fill fails the access, and its rights must allow it too.
 */
static int resolve_indirect(struct sefa_device *dev, const struct sefa_mr *mkey,
			    uint64_t iova, uint64_t len, uint32_t need_access,
			    struct seg_list *out)
{
	uint64_t off = iova - mkey->iova;
	unsigned int i;
	int ret;

	for (i = len ? klm_find(mkey, off) : 0; len; i++) {
		const struct sefa_klm *e = &mkey->klm[i];
		uint64_t skip = off - e->offset;
		uint64_t n = e->length - skip < len ? e->length - skip : len;
		const struct sefa_mr *mr;

		mr = sefa_mr_lookup(dev, e->lkey, e->addr + skip, n);
		if (!mr || mr->pd != mkey->pd ||
		    (mr->access & need_access) != need_access)
			return -EACCES;
		ret = seg_add(out, mr, e->addr + skip, n);
		if (ret)
			return ret;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * Where @key leads for [iova, iova + len) with @need_access, appended to
 * @out: a region of @pd that holds the range, or a filled indirect key of
 * @pd whose range, rights and entries do.  0 or a negative errno.
 */
int nic_key_resolve(struct sefa_device *dev, const struct sefa_pd *pd,
		    uint32_t key, uint64_t iova, uint64_t len,
		    uint32_t need_access, struct seg_list *out)
{
	const struct sefa_mr *mr = sefa_mr_get(dev, key);

	if (!mr || mr->pd != pd || (mr->indirect && !mr->filled) ||
	    !sefa_mr_holds(mr, iova, len) ||
	    (mr->access & need_access) != need_access)
		return -EACCES;
	if (mr->indirect)
		return resolve_indirect(dev, mr, iova, len, need_access, out);
	return seg_add(out, mr, iova, len);
}

