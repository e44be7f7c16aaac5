// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion queues: creation with the efa driver's udata, completion
 * entries written with the right phase into the right sub-CQ, arming through
 * the CQ doorbell, completion events, and overrun.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>
#include <rdma/ib_user_verbs.h>

#include "verbs/verbs.h"

int sefa_cq_create(struct sefa_cmd *cmd, const struct sefa_cq_params *p,
		   struct sefa_cq **out)
{
	struct sefa_client *c = cmd->c;
	const struct sefa_profile *prof = c->dev->profile;
	struct efa_ibv_create_cq_resp resp = {};
	struct efa_ibv_create_cq ucmd;
	struct sefa_event_file *ch = NULL;
	struct sefa_cq *cq;
	size_t ring_len;
	bool ext;
	int ret;

	/* The efa driver's rules for its udata. */
	if (cmd->udata_in.len < offsetofend(struct efa_ibv_create_cq,
					    num_sub_cqs))
		return sefa_refuse(c, -EINVAL, "udata too short for efa's");
	ret = sefa_udata_in(cmd, &ucmd, sizeof(ucmd));
	if (ret)
		return ret;
	ret = sefa_ubuf_is_zero_from(c, &cmd->udata_in, sizeof(ucmd));
	if (ret <= 0)
		return ret ? ret : sefa_udata_unknown(c);
	if (ucmd.comp_mask || ucmd.reserved_58[0] || ucmd.reserved_58[1] ||
	    ucmd.reserved_58[2] || ucmd.reserved_58[3] || ucmd.reserved_58[4])
		return sefa_refuse(c, -EINVAL,
				   "udata comp_mask or reserved bytes set");
	if (ucmd.flags & ~(EFA_CREATE_CQ_WITH_COMPLETION_CHANNEL |
			   EFA_CREATE_CQ_WITH_SGID))
		return sefa_refuse(c, -EINVAL, "udata flags %#x unknown",
				   ucmd.flags);
	if ((ucmd.flags & EFA_CREATE_CQ_WITH_SGID) &&
	    !(prof->device_caps & EFA_QUERY_DEVICE_CAPS_CQ_WITH_SGID))
		return sefa_refuse(c, -EOPNOTSUPP,
				   "no CQ with SGID on this profile");
	if (ucmd.cq_entry_size != EFA_IO_CQE_EX_SIZE &&
	    !(ucmd.cq_entry_size == EFA_IO_CQE_SIZE &&
	      !(ucmd.flags & EFA_CREATE_CQ_WITH_SGID)))
		return sefa_refuse(c, -EINVAL, "CQ entry size %u",
				   ucmd.cq_entry_size);
	if (ucmd.num_sub_cqs != prof->sub_cqs_per_cq)
		return sefa_refuse(c, -EINVAL, "%u sub-CQs, the device has %u",
				   ucmd.num_sub_cqs, prof->sub_cqs_per_cq);
	if (p->flags)
		return sefa_refuse(c, -EOPNOTSUPP, "CQ flags %#x not supported",
				   p->flags);
	if (!p->cqe || p->cqe > c->dev->limit[SEFA_LIMIT_CQ_DEPTH])
		return sefa_refuse(c, -EINVAL, "cqe %u not within 1..%llu",
				   p->cqe, (unsigned long long)
				   c->dev->limit[SEFA_LIMIT_CQ_DEPTH]);
	if (p->comp_vector >= c->dev->num_comp_vectors)
		return sefa_refuse(c, -EINVAL, "no completion vector %u",
				   p->comp_vector);
	if (p->channel_fd >= 0) {
		if (!(prof->device_caps & EFA_QUERY_DEVICE_CAPS_CQ_NOTIFICATIONS))
			return sefa_refuse(c, -EOPNOTSUPP,
					   "no completion channels on this profile");
		ch = sefa_channel_lookup(c, p->channel_fd);
		if (!ch)
			return sefa_refuse(c, -EBADF,
					   "fd %d is not a completion channel",
					   p->channel_fd);
	}

	ret = sefa_limit_take(c, SEFA_LIMIT_CQ);
	if (ret)
		return ret;
	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		ret = -ENOMEM;
		goto err_give;
	}
	cq->dev = c->dev;
	cq->user_handle = p->user_handle;
	cq->depth = p->cqe;
	cq->entry_size = ucmd.cq_entry_size;
	cq->num_sub_cqs = ucmd.num_sub_cqs;
	cq->with_sgid = ucmd.flags & EFA_CREATE_CQ_WITH_SGID;
	cq->channel = ch;
	ring_len = (size_t)cq->entry_size * cq->depth * cq->num_sub_cqs;
	ret = sefa_cq_ext_get(c, &p->buf, ring_len, &cq->ext, &ext,
			      &cq->ring_addr);
	if (ret)
		goto err_free;
	if (!ext) {
		cq->ring = sefa_shm_new(c, ring_len);
		if (cq->ring)
			cq->ring_addr = cq->ring->addr;
	}
	/*
	 * The doorbell page exists either way, but the driver offers it
	 * only with a ring of its own (efa_create_cq_umem() skips
	 * cq_mmap_entries_setup() for a umem): with the caller's memory,
	 * no mmap key at all, and nothing ever arms the CQ.
	 */
	cq->db = sefa_shm_new(c, SEFA_PAGE_SIZE);
	if ((!ext && !cq->ring) || !cq->db) {
		ret = -ENOMEM;
		goto err_free;
	}

	if (!ext) {
		resp.q_mmap_size = cq->ring->len;
		resp.comp_mask = EFA_CREATE_CQ_RESP_DB_OFF;
		resp.db_off = 0;
		ret = sefa_mmap_insert(c, cq->ring, 0, cq->ring->len,
				       (uint64_t *)&resp.q_mmap_key);
		if (ret)
			goto err_free;
		ret = sefa_mmap_insert(c, cq->db, 0, SEFA_PAGE_SIZE,
				       (uint64_t *)&resp.db_mmap_key);
		if (ret)
			goto err_mmap;
	}
	ret = sefa_uobj_add(c, &cq->uobj, SEFA_OBJ_CQ);
	if (ret)
		goto err_mmap;
	resp.cq_idx = cq->uobj.handle;
	ret = sefa_udata_out(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_uobj;
	if (ch) {
		cq->next_armable = cq->dev->armable;
		cq->dev->armable = cq;
	}
	*out = cq;
	return 0;

err_uobj:
	sefa_uobj_del(&cq->uobj);
err_mmap:
	sefa_mmap_remove(c, cq->ring);
	sefa_mmap_remove(c, cq->db);
err_free:
	sefa_shm_put(cq->ring);
	sefa_shm_put(cq->db);
	sefa_cq_ext_put(c, &cq->ext);
	free(cq);
err_give:
	sefa_limit_give(c->dev, SEFA_LIMIT_CQ);
	return ret;
}

/*
 * Destroy: refuse while QPs use it; report the events queued minus those
 * still unread, which are taken back.
 */
int sefa_cq_destroy(struct sefa_cq *cq, struct ib_uverbs_destroy_cq_resp *resp)
{
	struct sefa_client *c = cq->uobj.c;

	struct sefa_cq **pp;

	if (cq->uobj.usecnt)
		return sefa_refuse(c, -EBUSY, "CQ still used by %u QPs",
				   cq->uobj.usecnt);
	for (pp = &cq->dev->armable; *pp; pp = &(*pp)->next_armable) {
		if (*pp == cq) {
			*pp = cq->next_armable;
			break;
		}
	}
	resp->comp_events_reported = cq->comp_events_queued -
		sefa_event_purge(cq->channel, cq->user_handle);
	resp->async_events_reported = cq->async_events_queued -
		sefa_event_purge(c->async, cq->user_handle);
	sefa_mmap_remove(c, cq->ring);
	sefa_mmap_remove(c, cq->db);
	sefa_shm_put(cq->ring);
	sefa_shm_put(cq->db);
	sefa_cq_ext_put(c, &cq->ext);
	sefa_limit_give(cq->dev, SEFA_LIMIT_CQ);
	sefa_uobj_del(&cq->uobj);
	free(cq);
	return 0;
}

static uint32_t cq_doorbell(const struct sefa_cq *cq)
{
	return __atomic_load_n((uint32_t *)cq->db->addr, __ATOMIC_ACQUIRE);
}

/*
 * Follow the arm requests the provider writes into the doorbell.  An arm
 * carries a command sequence number that the provider advances once per
 * event it took; a request counts once, and a newer sequence number re-arms
 * even if the poll path already overwrote the arm bit.
 */
static void cq_check_arm(struct sefa_cq *cq)
{
	uint32_t db, sn;
	bool new_sn;

	if (!cq->channel || cq->armed)
		return;
	db = cq_doorbell(cq);
	sn = (db & EFA_IO_REGS_CQ_DB_CMD_SN_MASK) >> EFA_IO_REGS_CQ_DB_CMD_SN_SHIFT;
	new_sn = !cq->fired || sn != cq->armed_sn;
	if (new_sn && ((db & EFA_IO_REGS_CQ_DB_ARM) || cq->fired)) {
		cq->armed = true;
		cq->armed_sn = sn;
	}
}

static void cq_fire(struct sefa_cq *cq)
{
	struct ib_uverbs_comp_event_desc ev = { .cq_handle = cq->user_handle };

	cq->armed = false;
	cq->fired = true;
	if (!sefa_event_send(cq->channel, &ev))
		cq->comp_events_queued++;
}

static void cq_event(struct sefa_cq *cq)
{
	cq_check_arm(cq);
	if (cq->armed)
		cq_fire(cq);
}

void sefa_async_event(struct sefa_client *c, uint64_t element, uint32_t type,
		      uint32_t *counter)
{
	struct ib_uverbs_async_event_desc ev = {
		.element = element, .event_type = type,
	};

	if (c->async && !sefa_event_send(c->async, &ev) && counter)
		(*counter)++;
}

/*
 * Entries past the consumer index the provider wrote last.  An arm carries
 * the index of that moment, so right after one this counts entries the
 * provider has not seen.
 */
static uint16_t cq_unconsumed(struct sefa_cq *cq)
{
	uint16_t cc = cq_doorbell(cq) & EFA_IO_REGS_CQ_DB_CONSUMER_INDEX_MASK;
	uint64_t total = 0;
	unsigned int i;

	for (i = 0; i < cq->num_sub_cqs; i++)
		total += cq->produced[i];
	return (uint16_t)(total - cc);
}

/*
 * Overrun: an entry written over one the provider had not read.  The device
 * learns what was read only from the consumer index (all sub-CQs together,
 * 16 bits) the provider writes into the doorbell, and nothing obliges the
 * provider to write it: rdma-core 44 does after ibv_poll_cq() and at an
 * ibv_end_poll() that follows a completion, never when a poll ends on an
 * empty CQ, as libfabric's always do.  A stale index understates what was
 * read, so entries written past it prove nothing, and a device that stopped
 * there would stall a healthy CQ.  (The efa driver has no CQ error event;
 * EFA hardware writes each entry, phase and all, whatever was read.)
 *
 * What the device can know: a value that changed since its last look was
 * written after that look, and one without the arm bit comes from a poll,
 * under the provider's CQ lock, so it is exactly what had been read then.
 * If by that last look a sub-CQ held more than a ring beyond it, one of its
 * entries was overwritten before it was read: only then is this true.
 */
static bool cq_overrun_seen(struct sefa_cq *cq)
{
	uint32_t db = cq_doorbell(cq);
	uint64_t total = 0, read;
	uint16_t behind;
	bool proven = false;
	unsigned int i;

	for (i = 0; i < cq->num_sub_cqs; i++)
		total += cq->produced[i];
	behind = total - (db & EFA_IO_REGS_CQ_DB_CONSUMER_INDEX_MASK);
	/* The most it can mean: no more read than was written. */
	if (db != cq->db_seen && !(db & EFA_IO_REGS_CQ_DB_ARM) &&
	    behind <= total) {
		read = total - behind;
		for (i = 0; i < cq->num_sub_cqs; i++)
			if (cq->produced_seen[i] > read &&
			    cq->produced_seen[i] - read > cq->depth)
				proven = true;
	}
	cq->db_seen = db;
	memcpy(cq->produced_seen, cq->produced, sizeof(cq->produced));
	return proven;
}

/*
 * The engine's look at an armed CQ.  The provider stores its arm and then
 * polls; the device stores an entry and then reads the doorbell.  Neither
 * order is fenced against the other, so an entry can land just after the
 * poll found nothing, while the device read the doorbell from before the
 * arm.  As a device does on an arm write, fire at once when the arm finds
 * entries past its consumer index.  Returns 1 when an event went out.
 */
unsigned int sefa_cq_poll_arm(struct sefa_cq *cq)
{
	cq_check_arm(cq);
	if (!cq->armed || cq->overrun || !cq_unconsumed(cq))
		return 0;
	cq_fire(cq);
	return 1;
}

/*
 * Write one completion entry.  @e holds everything but the phase; the byte
 * carrying the phase is stored last, with release order, so a provider that
 * sees the new phase sees the whole entry.  Returns false when the CQ is in
 * error.
 */
bool sefa_cq_write(struct sefa_cq *cq, unsigned int sub,
		   const struct efa_io_rx_cdesc_ex *e, size_t len)
{
	uint8_t *slot, flags;
	uint32_t idx;
	size_t off;

	if (cq->overrun || sub >= cq->num_sub_cqs)
		return false;
	if (cq_overrun_seen(cq)) {
		cq->overrun = true;
		sefa_async_event(cq->uobj.c, cq->user_handle, IBV_EVENT_CQ_ERR,
				 &cq->async_events_queued);
		return false;
	}

	idx = cq->produced[sub] % cq->depth;
	off = ((size_t)sub * cq->depth + idx) * cq->entry_size;
	/* Lap 0 carries phase 1: the ring starts zeroed. */
	flags = e->base.common.flags & ~EFA_IO_CDESC_COMMON_PHASE;
	if (!((cq->produced[sub] / cq->depth) & 1))
		flags |= EFA_IO_CDESC_COMMON_PHASE;

	if (len > cq->entry_size)
		len = cq->entry_size;
	if (cq->ext.mm) {
		struct efa_io_rx_cdesc_ex img;

		memcpy(&img, e, len);
		img.base.common.flags = flags;
		sefa_cq_ext_write(&cq->ext, off, (const uint8_t *)&img, len,
				  offsetof(struct efa_io_cdesc_common, flags));
	} else {
		slot = cq->ring_addr + off;
		memcpy(slot, e, offsetof(struct efa_io_cdesc_common, flags));
		memcpy(slot + offsetof(struct efa_io_cdesc_common, qp_num),
		       &e->base.common.qp_num,
		       len - offsetof(struct efa_io_cdesc_common, qp_num));
		__atomic_store_n(slot + offsetof(struct efa_io_cdesc_common,
						 flags),
				 flags, __ATOMIC_RELEASE);
	}
	cq->produced[sub]++;
	if (cq->channel)
		cq_event(cq);
	return true;
}
