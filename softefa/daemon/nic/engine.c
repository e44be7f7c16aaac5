// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The device engine: the NIC of every device of this host.  It polls the
 * send doorbells in shared memory, executes send WQEs, moves payload with
 * process_vm_readv/writev as its DMA after checking keys, protection
 * domains, bounds and access rights, consumes receive descriptors, and
 * writes completions.  Delivery between QPs of this host is the wire.
 *
 * UD is unreliable: a packet with no receive buffer, a wrong Q_Key or no
 * such QP is dropped and counted.  SRD is reliable and at most once: the
 * sender learns the outcome, and receiver-not-ready is retried rnr_retry
 * times (7: forever), at the waits of srd_rnr_wait(), before an RNR error
 * completion.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>

#include "efa_abi_compat.h"
#include "efa_ext_abi.h"
#include "nic/nic.h"

#define DMA_CHUNK		(64 * 1024)
#define MAX_SGE			16
/* A receive WR of MAX_SGE buffers, each through a full indirect key. */
#define MAX_SEGS		(MAX_SGE * SEFA_INDIRECT_MR_MAX_ENTRIES)

/* A piece of process memory the engine reads or writes. */
struct dma_seg {
	pid_t pid;
	uint64_t addr;
	uint64_t len;
};

/* Where the keys of one side of a transfer lead. */
struct seg_list {
	struct dma_seg *seg;
	unsigned int n;
};

/*
 * The engine is one thread, under the daemon lock: the payload bounce
 * buffer, the two sides' segments and a UMR's list are its own, too big
 * for its stack.
 */
static uint8_t bounce[DMA_CHUNK];
static struct dma_seg local_segs[MAX_SEGS];
static struct dma_seg peer_segs[MAX_SEGS];
static struct efa_io_klm umr_list[SEFA_INDIRECT_MR_MAX_ENTRIES];

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static uint64_t addr64(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
}

/* The segment of @mr for [iova, iova + len). */
static struct dma_seg mr_seg(const struct sefa_mr *mr, uint64_t iova,
			     uint64_t len)
{
	return (struct dma_seg){
		.pid = mr->pid,
		.addr = mr->addr + (iova - mr->iova),
		.len = len,
	};
}

/*
 * Copy @len bytes from the source segments to the destination segments.
 * Returns 0, or -EFAULT when a process no longer has that memory.
 */
static int dma_copy(const struct dma_seg *src, unsigned int nsrc,
		    const struct dma_seg *dst, unsigned int ndst, uint64_t len)
{
	uint64_t soff = 0, doff = 0;
	unsigned int si = 0, di = 0;

	while (len) {
		uint64_t n = len < DMA_CHUNK ? len : DMA_CHUNK, got = 0;

		while (got < n) {
			uint64_t k = src[si].len - soff;
			struct iovec l, r;

			if (k > n - got)
				k = n - got;
			l.iov_base = bounce + got;
			l.iov_len = k;
			r.iov_base = (void *)(uintptr_t)(src[si].addr + soff);
			r.iov_len = k;
			if (process_vm_readv(src[si].pid, &l, 1, &r, 1, 0) !=
			    (ssize_t)k)
				return -EFAULT;
			got += k;
			soff += k;
			if (soff == src[si].len) {
				si++;
				soff = 0;
			}
		}
		for (got = 0; got < n;) {
			uint64_t k = dst[di].len - doff;
			struct iovec l, r;

			if (k > n - got)
				k = n - got;
			l.iov_base = bounce + got;
			l.iov_len = k;
			r.iov_base = (void *)(uintptr_t)(dst[di].addr + doff);
			r.iov_len = k;
			if (process_vm_writev(dst[di].pid, &l, 1, &r, 1, 0) !=
			    (ssize_t)k)
				return -EFAULT;
			got += k;
			doff += k;
			if (doff == dst[di].len) {
				di++;
				doff = 0;
			}
		}
		len -= n;
	}
	return 0;
}

/*
 * Between the engine's own memory and process segments: inline payload of
 * a WQE goes out (@out), a UMR's list comes in.
 */
static int dma_engine(const struct dma_seg *seg, unsigned int nseg, void *buf,
		      uint64_t len, bool out)
{
	uint8_t *p = buf;
	unsigned int i;

	for (i = 0; i < nseg && len; i++) {
		uint64_t k = seg[i].len < len ? seg[i].len : len;
		struct iovec l = { p, k };
		struct iovec r = { (void *)(uintptr_t)seg[i].addr, k };
		ssize_t done = out ?
			process_vm_writev(seg[i].pid, &l, 1, &r, 1, 0) :
			process_vm_readv(seg[i].pid, &l, 1, &r, 1, 0);

		if (done != (ssize_t)k)
			return -EFAULT;
		p += k;
		len -= k;
	}
	return 0;
}

static struct sefa_device *device_by_gid(struct sefa_daemon *d,
					 const uint8_t gid[16])
{
	unsigned int i;

	for (i = 0; i < d->ndev; i++)
		if (!memcmp(d->dev[i].gid, gid, 16))
			return &d->dev[i];
	return NULL;
}

static void count_error(struct sefa_qp *qp)
{
	qp->cnt.errors++;
	qp->dev->cnt.errors++;
}

static void complete_send(struct sefa_qp *qp, const struct efa_io_tx_wqe *w,
			  int status)
{
	struct efa_io_rx_cdesc_ex e = {};
	unsigned int op = w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK;

	if (status == EFA_IO_COMP_STATUS_OK &&
	    !(w->meta.ctrl2 & EFA_IO_TX_META_DESC_COMP_REQ))
		return;
	if (status != EFA_IO_COMP_STATUS_OK)
		count_error(qp);
	e.base.common.req_id = w->meta.req_id;
	e.base.common.status = status;
	e.base.common.flags = EFA_IO_SEND_QUEUE << EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT |
			      (op << EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT &
			       EFA_IO_CDESC_COMMON_OP_TYPE_MASK);
	e.base.common.qp_num = qp->qpn;
	sefa_cq_write(qp->send_cq, qp->send_sub_cq, &e,
		      sizeof(struct efa_io_tx_cdesc));
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
static int resolve_key(struct sefa_device *dev, const struct sefa_pd *pd,
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

/*
 * The local buffers of a send WQE, checked: each key must lead to memory
 * of the QP's PD that holds the range.  Returns a status.
 */
static int gather_local(struct sefa_qp *qp, const struct efa_io_tx_buf_desc *b,
			unsigned int n, uint32_t need_access,
			struct seg_list *out, uint64_t *total)
{
	unsigned int i;

	*total = 0;
	out->n = 0;
	for (i = 0; i < n; i++) {
		uint64_t iova = addr64(b[i].buf_addr_lo, b[i].buf_addr_hi);

		if (b[i].lkey & ~EFA_IO_LKEY_MASK ||
		    resolve_key(qp->dev, qp->pd, b[i].lkey, iova, b[i].length,
				need_access, out))
			return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
		*total += b[i].length;
	}
	return EFA_IO_COMP_STATUS_OK;
}

/* Where an AH of @qp points: the target QP, or a status. */
static struct sefa_device *device_by_lid(struct sefa_daemon *d, uint16_t lid)
{
	unsigned int i;

	for (i = 0; i < d->ndev; i++)
		if (d->dev[i].lid && d->dev[i].lid == lid)
			return &d->dev[i];
	return NULL;
}

static bool qp_receives(const struct sefa_qp *qp)
{
	return qp->state == IBV_QPS_RTR || qp->state == IBV_QPS_RTS ||
	       qp->state == IBV_QPS_SQD;
}

/*
 * An RC QP's peer is fixed at RTR: the path names its device, by GID or
 * LID, and the peer must be connected back to this QP.  Nobody answering
 * is a timeout for the requester.
 */
static int resolve_rc(struct sefa_qp *qp, struct sefa_qp **out)
{
	struct sefa_daemon *d = qp->uobj.c->d;
	struct sefa_device *tdev;
	struct sefa_qp *tqp;

	tdev = qp->dest.is_global ? device_by_gid(d, qp->dest.dgid) :
				    device_by_lid(d, qp->dest.dlid);
	tqp = tdev ? sefa_qp_lookup(tdev, qp->dest_qpn) : NULL;
	if (!tqp || tqp->type != IBV_QPT_RC || !qp_receives(tqp) ||
	    tqp->dest_qpn != qp->qpn)
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE;
	*out = tqp;
	return EFA_IO_COMP_STATUS_OK;
}

static int resolve_dest(struct sefa_qp *qp, const struct efa_io_tx_wqe *w,
			struct sefa_qp **out)
{
	const struct sefa_dev_ah *ah = w->meta.ah < SEFA_MAX_AH ?
				       &qp->dev->ah[w->meta.ah] : NULL;
	struct sefa_device *tdev;
	struct sefa_qp *tqp;

	*out = NULL;
	if (qp->type == IBV_QPT_RC)
		return resolve_rc(qp, out);
	if (!ah || !ah->users || ah->pd != qp->pd)
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_AH;
	tdev = device_by_gid(qp->uobj.c->d, ah->gid);
	if (!tdev)
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE;
	tqp = sefa_qp_lookup(tdev, w->meta.dest_qp_num);
	/* A 16-bit QPN on the wire: the device's QPNs fit. */
	if (!tqp || tqp->type != qp->type || !qp_receives(tqp))
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN;
	if (tqp->qkey != w->meta.qkey)
		return EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN;
	*out = tqp;
	return EFA_IO_COMP_STATUS_OK;
}

static uint16_t rq_producer(const struct sefa_qp *qp)
{
	return __atomic_load_n((uint32_t *)((uint8_t *)qp->db->addr +
					    SEFA_RQ_DB_OFF), __ATOMIC_ACQUIRE);
}

static uint16_t sq_producer(const struct sefa_qp *qp)
{
	return __atomic_load_n((uint32_t *)((uint8_t *)qp->db->addr +
					    SEFA_SQ_DB_OFF), __ATOMIC_ACQUIRE);
}

/* The RX descriptors of the next receive WR, or 0 when none is posted. */
static unsigned int next_recv(struct sefa_qp *qp, struct efa_io_rx_desc *d)
{
	const struct efa_io_rx_desc *ring = qp->rq_ring ? qp->rq_ring->addr :
							  NULL;
	uint16_t avail = rq_producer(qp) - qp->rq_ci;
	unsigned int n = 0;

	if (!ring)
		return 0;
	if (avail > qp->rq_entries)
		avail = qp->rq_entries;
	while (n < avail && n < MAX_SGE) {
		d[n] = ring[(uint16_t)(qp->rq_ci + n) & (qp->rq_entries - 1)];
		if (d[n++].lkey_ctrl & EFA_IO_RX_DESC_LAST)
			return n;
	}
	return 0;
}

static void complete_recv(struct sefa_qp *tqp, const struct efa_io_rx_desc *d,
			  int status, const struct sefa_qp *src,
			  const struct efa_io_tx_wqe *w, uint64_t len)
{
	struct efa_io_rx_cdesc_ex e = {};

	if (status != EFA_IO_COMP_STATUS_OK)
		count_error(tqp);
	e.base.common.req_id = d->req_id;
	e.base.common.status = status;
	e.base.common.flags = EFA_IO_RECV_QUEUE << EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT;
	e.base.common.qp_num = tqp->qpn;
	if (src) {
		unsigned int op = w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK;

		if (w->meta.ctrl1 & EFA_IO_TX_META_DESC_HAS_IMM) {
			e.base.common.flags |= EFA_IO_CDESC_COMMON_HAS_IMM;
			e.base.imm = w->meta.immediate_data;
		}
		/*
		 * A write with immediate, and any RC message, may pass 64
		 * KiB: the entry carries the length's high half too.
		 */
		e.base.common.flags |= op << EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT &
				       EFA_IO_CDESC_COMMON_OP_TYPE_MASK;
		if (op == EFA_IO_RDMA_WRITE || tqp->type == IBV_QPT_RC)
			e.u.rdma_write.length_hi = len >> 16;
		e.base.length = len;
		e.base.src_qp_num = src->qpn;
		e.base.ah = sefa_ah_find(tqp->pd, src->dev->gid);
		if (e.base.ah == EFA_IO_AH_UNKNOWN && tqp->recv_cq->with_sgid &&
		    op != EFA_IO_RDMA_WRITE && tqp->type != IBV_QPT_RC)
			memcpy(e.u.src_addr, src->dev->gid, 16);
	}
	sefa_cq_write(tqp->recv_cq, tqp->recv_sub_cq, &e, sizeof(e));
}

/*
 * A UD receive, on EFA as on InfiniBand, leaves the first 40 bytes of the
 * WR's scatter list to a GRH, wherever the SGEs split them: the payload
 * follows.  EFA has no GRH to put there and never reports IBV_WC_GRH, so,
 * as for an IB message without one, the area is undefined: the device
 * writes nothing in it.  The completion's length counts it, as IB's does.
 */
#define UD_GRH_LEN	sizeof(struct ibv_grh)

/* Step over the first @n bytes of the segments, which must hold them. */
static void seg_skip(struct seg_list *l, uint64_t n)
{
	while (n && n >= l->seg->len) {
		n -= l->seg->len;
		l->seg++;
		l->n--;
	}
	if (n) {
		l->seg->addr += n;
		l->seg->len -= n;
	}
}

/* Receive buffers of one WR, checked as the receiver's local writes. */
static int scatter_local(struct sefa_qp *tqp, const struct efa_io_rx_desc *d,
			 unsigned int n, struct seg_list *out, uint64_t *room)
{
	unsigned int i;

	*room = 0;
	out->n = 0;
	for (i = 0; i < n; i++) {
		uint64_t iova = addr64(d[i].buf_addr_lo, d[i].buf_addr_hi);

		if (resolve_key(tqp->dev, tqp->pd,
				d[i].lkey_ctrl & EFA_IO_RX_DESC_LKEY_MASK, iova,
				d[i].length, IBV_ACCESS_LOCAL_WRITE, out))
			return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
		*room += d[i].length;
	}
	return EFA_IO_COMP_STATUS_OK;
}

enum { SEND_DONE, SEND_RNR };

/* The IB RNR timer encoding, in microseconds; 0 means the longest. */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * The receiver has no buffer.  An RC requester waits for the time the
 * receiver asked for; SRD's waits are the device's own (srd_rnr_wait()).
 */
static int rnr(struct sefa_qp *qp, const struct sefa_qp *tqp, int *status)
{
	qp->cnt.rnr_retries++;
	qp->dev->cnt.rnr_retries++;
	if (qp->type == IBV_QPT_RC)
		qp->rnr_wait_ns = rnr_timer_us[tqp->min_rnr_timer & 31] * 1000ULL;
	*status = EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
	return SEND_RNR;
}

/*
 * SRD's wait before retry @n (from 1) of a send the receiver was not ready
 * for.  EFA documents the number of retries (rnr_retry, 7: for ever) but no
 * interval, and SRD has no RNR timer a receiver could set: the interval is
 * the device's, and it decides how fast libfabric gets going.  Its efa
 * provider asks for 3 retries; when a packet meets RNR errors again, it
 * backs off from that peer, 40-120 us at first and twice as long after each
 * further error, until a resent packet gets through.  The longer the
 * device's retries last, the fewer errors it sees, and the shorter the last
 * back-off by which it overshoots a receiver that became ready.  So the
 * first retry comes after 1 ms, soon enough for a receiver reposting its
 * buffers, and each wait is 8 times the last, up to 64 ms: libfabric's 3
 * retries span 73 ms, which rides out most peers still starting up or
 * waiting for a CPU on a busy host, while one that never posts is reported
 * within a tenth of a second.  For ever is a retry every 64 ms at most.
 */
#define SRD_RNR_FIRST_NS	(1000 * 1000ULL)
#define SRD_RNR_MAX_NS		(64 * 1000 * 1000ULL)

static uint64_t srd_rnr_wait(unsigned int n)
{
	uint64_t ns = SRD_RNR_FIRST_NS;

	while (--n && ns < SRD_RNR_MAX_NS)
		ns *= 8;
	return ns < SRD_RNR_MAX_NS ? ns : SRD_RNR_MAX_NS;
}

/* Message size limit: one MTU on the datagram transports. */
static uint64_t max_msg(const struct sefa_qp *qp)
{
	return qp->type == IBV_QPT_RC ? qp->dev->profile->max_rdma_size :
					qp->dev->profile->mtu;
}

static void drop(struct sefa_qp *tqp)
{
	tqp->cnt.rx_drops++;
	tqp->dev->cnt.rx_drops++;
}

/* SEND and SEND with immediate: one message, at most one MTU. */
static int exec_send(struct sefa_qp *qp, const struct efa_io_tx_wqe *w,
		     int *status)
{
	bool ud = qp->type == IBV_QPT_UD;
	uint64_t grh = ud ? UD_GRH_LEN : 0;
	bool is_inline = w->meta.ctrl1 & EFA_IO_TX_META_DESC_INLINE_MSG;
	struct seg_list src = { .seg = local_segs }, dst = { .seg = peer_segs };
	struct efa_io_rx_desc rx[MAX_SGE];
	uint64_t len, room;
	struct sefa_qp *tqp;
	unsigned int nrx;
	int st;

	if (is_inline) {
		len = w->meta.length;
		if (len > EFA_IO_TX_DESC_INLINE_MAX_SIZE) {
			*status = EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH;
			return SEND_DONE;
		}
	} else {
		if (w->meta.length > EFA_IO_TX_DESC_NUM_BUFS) {
			*status = EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR;
			return SEND_DONE;
		}
		st = gather_local(qp, w->data.sgl, w->meta.length, 0, &src, &len);
		if (st) {
			*status = st;
			return SEND_DONE;
		}
	}
	if (len > max_msg(qp)) {
		*status = EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH;
		return SEND_DONE;
	}

	st = resolve_dest(qp, w, &tqp);
	qp->cnt.tx_pkts++;
	qp->cnt.tx_bytes += len;
	qp->dev->cnt.tx_pkts++;
	qp->dev->cnt.tx_bytes += len;
	if (st == EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_AH) {
		*status = st;
		return SEND_DONE;
	}
	if (st) {
		/* Unreliable: the packet is lost and the sender never knows. */
		if (tqp)
			drop(tqp);
		*status = ud ? EFA_IO_COMP_STATUS_OK : st;
		return SEND_DONE;
	}

	nrx = next_recv(tqp, rx);
	if (!nrx) {
		if (ud) {
			drop(tqp);
			*status = EFA_IO_COMP_STATUS_OK;
			return SEND_DONE;
		}
		return rnr(qp, tqp, status);
	}

	st = scatter_local(tqp, rx, nrx, &dst, &room);
	if (!st && grh + len > room)
		st = ud ? EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH : -1;
	if (st == -1) {
		/* SRD: the receiver keeps its buffer, the sender is told. */
		*status = EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH;
		return SEND_DONE;
	}
	if (!st) {
		seg_skip(&dst, grh);
		if (is_inline ?
		    dma_engine(dst.seg, dst.n, (void *)w->data.inline_data, len,
			       true) :
		    dma_copy(src.seg, src.n, dst.seg, dst.n, len))
			st = EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
	}

	tqp->rq_ci += nrx;
	tqp->rq_psn = (tqp->rq_psn + 1) & 0xffffff;
	complete_recv(tqp, rx, st, qp, w, grh + len);
	if (!st) {
		tqp->cnt.rx_pkts++;
		tqp->cnt.rx_bytes += len;
		tqp->dev->cnt.rx_pkts++;
		tqp->dev->cnt.rx_bytes += len;
	}
	*status = st && !ud ? EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT :
			      EFA_IO_COMP_STATUS_OK;
	return SEND_DONE;
}

/*
 * RDMA read and write, over SRD and RC: the target's memory, by its rkey,
 * from or into our one local buffer.  Every check comes before any byte
 * moves.  A write with immediate also takes a receive at the target.
 */
static int exec_rdma(struct sefa_qp *qp, const struct efa_io_tx_wqe *w,
		     bool write, int *status)
{
	const struct efa_io_remote_mem_addr *rm = &w->data.rdma_req.remote_mem;
	uint64_t raddr = addr64(rm->buf_addr_lo, rm->buf_addr_hi);
	uint32_t cap = write ? EFA_QUERY_DEVICE_CAPS_RDMA_WRITE :
			       EFA_QUERY_DEVICE_CAPS_RDMA_READ;
	uint32_t access = write ? IBV_ACCESS_REMOTE_WRITE :
				  IBV_ACCESS_REMOTE_READ;
	bool imm = write && (w->meta.ctrl1 & EFA_IO_TX_META_DESC_HAS_IMM);
	struct seg_list local = { .seg = local_segs };
	struct seg_list remote = { .seg = peer_segs };
	struct efa_io_rx_desc rx[MAX_SGE];
	struct sefa_qp *tqp;
	unsigned int nrx = 0;
	uint64_t len;
	int st;

	*status = EFA_IO_COMP_STATUS_OK;
	if (qp->type == IBV_QPT_UD || !(qp->dev->profile->device_caps & cap)) {
		*status = EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE;
		return SEND_DONE;
	}
	if (w->meta.length != EFA_IO_TX_DESC_NUM_RDMA_BUFS) {
		*status = EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR;
		return SEND_DONE;
	}
	st = gather_local(qp, w->data.rdma_req.local_mem, 1,
			  write ? 0 : IBV_ACCESS_LOCAL_WRITE, &local, &len);
	if (!st && (rm->length > len ||
		    rm->length > qp->dev->profile->max_rdma_size))
		st = EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH;
	if (!st)
		st = resolve_dest(qp, w, &tqp);
	/* SRD: the target must know the initiator, by an AH. */
	if (!st && qp->type == IBV_QPT_DRIVER &&
	    sefa_ah_find(tqp->pd, qp->dev->gid) == EFA_IO_AH_UNKNOWN)
		st = EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER;
	if (st) {
		*status = st;
		return SEND_DONE;
	}
	if (resolve_key(tqp->dev, tqp->pd, rm->rkey, raddr, rm->length, access,
			&remote) ||
	    (tqp->type == IBV_QPT_RC && !(tqp->access_flags & access))) {
		*status = EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS;
		return SEND_DONE;
	}
	if (imm) {
		nrx = next_recv(tqp, rx);
		if (!nrx)
			return rnr(qp, tqp, status);
	}

	/* The local buffer may be longer: the copy stops at rm->length. */
	if (write ? dma_copy(local.seg, local.n, remote.seg, remote.n,
			     rm->length) :
		    dma_copy(remote.seg, remote.n, local.seg, local.n,
			     rm->length)) {
		*status = EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS;
		return SEND_DONE;
	}
	tqp->rq_psn = (tqp->rq_psn + 1) & 0xffffff;
	if (write) {
		qp->cnt.rdma_writes++;
		qp->dev->cnt.rdma_writes++;
		qp->cnt.tx_bytes += rm->length;
		qp->dev->cnt.tx_bytes += rm->length;
		tqp->cnt.rx_bytes += rm->length;
		tqp->dev->cnt.rx_bytes += rm->length;
	} else {
		qp->cnt.rdma_reads++;
		qp->dev->cnt.rdma_reads++;
		qp->cnt.rx_bytes += rm->length;
		qp->dev->cnt.rx_bytes += rm->length;
	}
	if (imm) {
		tqp->rq_ci += nrx;
		complete_recv(tqp, rx, EFA_IO_COMP_STATUS_OK, qp, w, rm->length);
	}
	return SEND_DONE;
}

/*
 * UMR, on RC: fill an indirect key of the QP's PD with the list the WQE
 * points at, read now through a local key, or invalidate it (no list).
 * Returns a status; a failure leaves the key as it was.
 */
static int exec_umr(struct sefa_qp *qp, const struct efa_io_tx_wqe *w)
{
	const struct efa_io_umr_req *u = &w->data.umr_req;
	uint32_t caps = qp->dev->profile->device_caps;
	struct seg_list list = { .seg = local_segs };
	unsigned int n = w->meta.length;
	struct sefa_mr *mkey;
	uint64_t len;
	int st;

	if (qp->type != IBV_QPT_RC || !(caps & SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE;
	mkey = sefa_mr_get(qp->dev, u->mkey);
	if (!mkey || !mkey->indirect || mkey->pd != qp->pd)
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
	if (!n) {
		sefa_mr_invalidate(mkey);
		return EFA_IO_COMP_STATUS_OK;
	}
	if (n > mkey->max_entries ||
	    u->klm_list.length != n * sizeof(struct efa_io_klm))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH;

	st = gather_local(qp, &u->klm_list, 1, 0, &list, &len);
	if (st)
		return st;
	if (dma_engine(list.seg, list.n, umr_list, len, false) ||
	    sefa_mr_fill(mkey, umr_list, n, u->base_addr, u->access))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
	return EFA_IO_COMP_STATUS_OK;
}

/* Execute one WQE; SEND_RNR keeps it for a retry. */
static int exec_wqe(struct sefa_qp *qp, const struct efa_io_tx_wqe *w,
		    int *status)
{
	const uint8_t need = EFA_IO_TX_META_DESC_FIRST | EFA_IO_TX_META_DESC_LAST;

	if (!(w->meta.ctrl1 & EFA_IO_TX_META_DESC_META_DESC) ||
	    (w->meta.ctrl2 & need) != need) {
		*status = EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR;
		return SEND_DONE;
	}
	switch (w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) {
	case EFA_IO_SEND:
		return exec_send(qp, w, status);
	case EFA_IO_RDMA_READ:
		return exec_rdma(qp, w, false, status);
	case EFA_IO_RDMA_WRITE:
		return exec_rdma(qp, w, true, status);
	case EFA_IO_UMR:
		*status = exec_umr(qp, w);
		return SEND_DONE;
	default:
		*status = EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE;
		return SEND_DONE;
	}
}

static void add_pending(struct sefa_qp *qp, const struct efa_io_tx_wqe *w,
			uint64_t now)
{
	struct sefa_pending *p = calloc(1, sizeof(*p)), **pp;

	if (!p) {
		complete_send(qp, w, EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR);
		return;
	}
	p->wqe = *w;
	p->due_ns = now + srd_rnr_wait(1);
	for (pp = &qp->pending; *pp; pp = &(*pp)->next)
		;
	*pp = p;
}

/*
 * Retry receiver-not-ready sends that are due: after rnr_retry retries, the
 * RNR error.
 */
static unsigned int retry_pending(struct sefa_qp *qp, uint64_t now)
{
	struct sefa_pending **pp = &qp->pending, *p;
	unsigned int work = 0;
	int status;

	while ((p = *pp)) {
		if (p->due_ns > now) {
			pp = &p->next;
			continue;
		}
		work++;
		p->retries++;
		if (exec_wqe(qp, &p->wqe, &status) == SEND_RNR &&
		    (qp->rnr_retry == 7 || p->retries < qp->rnr_retry)) {
			p->due_ns = now + srd_rnr_wait(p->retries + 1);
			pp = &p->next;
			continue;
		}
		complete_send(qp, &p->wqe, status);
		*pp = p->next;
		free(p);
	}
	return work;
}

/* Everything posted completes with FLUSHED: the QP went to error. */
static void qp_flush(struct sefa_qp *qp)
{
	struct efa_io_rx_desc rx[MAX_SGE];
	struct sefa_pending *p;
	unsigned int n;

	while ((p = qp->pending)) {
		qp->pending = p->next;
		complete_send(qp, &p->wqe, EFA_IO_COMP_STATUS_FLUSHED);
		free(p);
	}
	while ((n = next_recv(qp, rx))) {
		qp->rq_ci += n;
		complete_recv(qp, rx, EFA_IO_COMP_STATUS_FLUSHED, NULL, NULL, 0);
	}
}

/*
 * An RC error completion takes the QP to error: what is posted behind the
 * failed WQE, and every receive, completes as flushed.
 */
static void rc_fail(struct sefa_qp *qp)
{
	qp->state = IBV_QPS_ERR;
	qp->rnr_due_ns = 0;
	qp->rnr_tries = 0;
	qp_flush(qp);
}

/*
 * RC is in order: the WQE at the head waits for the receiver, and nothing
 * behind it moves.  Returns false while the head must wait.
 */
static bool rc_step(struct sefa_qp *qp, const struct efa_io_tx_wqe *w,
		    uint64_t now)
{
	int status;

	if (qp->rnr_due_ns > now)
		return false;
	if (exec_wqe(qp, w, &status) == SEND_RNR &&
	    (qp->rnr_retry == 7 || qp->rnr_tries++ < qp->rnr_retry)) {
		qp->rnr_due_ns = now + qp->rnr_wait_ns;
		return false;
	}
	qp->rnr_due_ns = 0;
	qp->rnr_tries = 0;
	qp->sq_ci++;
	qp->sq_psn = (qp->sq_psn + 1) & 0xffffff;
	complete_send(qp, w, status);
	if (status != EFA_IO_COMP_STATUS_OK)
		rc_fail(qp);
	return true;
}

static unsigned int process_sq(struct sefa_qp *qp, uint64_t now)
{
	const struct efa_io_tx_wqe *ring = qp->sq_ring->addr;
	uint16_t pc = sq_producer(qp);
	unsigned int work = 0;

	/* A doorbell beyond the ring is the provider's bug: do one lap. */
	while (qp->sq_ci != pc && work < qp->sq_entries) {
		struct efa_io_tx_wqe w = ring[qp->sq_ci & (qp->sq_entries - 1)];
		int status;

		if (qp->type == IBV_QPT_RC && qp->state != IBV_QPS_ERR) {
			if (!rc_step(qp, &w, now))
				break;
			work++;
			continue;
		}
		qp->sq_ci++;
		work++;
		if (qp->state == IBV_QPS_ERR) {
			complete_send(qp, &w, EFA_IO_COMP_STATUS_FLUSHED);
			continue;
		}
		if (exec_wqe(qp, &w, &status) == SEND_RNR && qp->rnr_retry) {
			add_pending(qp, &w, now);
			continue;
		}
		complete_send(qp, &w, status);
	}
	return work;
}

static unsigned int engine_pass(struct sefa_daemon *d)
{
	uint64_t now = now_ns();
	unsigned int work = 0, i, q;

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
				qp_flush(qp);
			if (qp->state < IBV_QPS_RTS)
				continue;
			work += process_sq(qp, now);
			if (qp->pending)
				work += retry_pending(qp, now);
		}
	}
	return d->engine_tick ? work + d->engine_tick(d) : work;
}

/*
 * Doorbells are plain stores, so the engine polls.  After traffic it naps
 * for a few microseconds between passes: a sleeper that wakes preempts the
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
	struct sefa_daemon *d = arg;
	unsigned int idle = 0, busy = 0;

	/* Naps this short are only worth it with a precise timer. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	engine_priority();
	for (;;) {
		struct timespec ts = { .tv_nsec = NAP_NS };
		unsigned int work;

		pthread_mutex_lock(&d->lock);
		if (d->engine_stop) {
			pthread_mutex_unlock(&d->lock);
			return NULL;
		}
		work = engine_pass(d);
		pthread_mutex_unlock(&d->lock);

		/*
		 * Busy, go round again, but nap now and then: at real-time
		 * priority a flood of doorbells must not starve the host.
		 */
		if (work) {
			idle = 0;
			if (++busy % 256)
				continue;
		}
		if (++idle > IDLE_NAPS)
			ts.tv_nsec = 1000 * 1000;
		nanosleep(&ts, NULL);
	}
}

int sefa_engine_start(struct sefa_daemon *d)
{
	return -pthread_create(&d->engine, NULL, engine_main, d);
}

void sefa_engine_stop(struct sefa_daemon *d)
{
	pthread_mutex_lock(&d->lock);
	d->engine_stop = true;
	pthread_mutex_unlock(&d->lock);
	pthread_join(d->engine, NULL);
}
