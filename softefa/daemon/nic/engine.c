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
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>

#include "efa_abi_compat.h"
#include "efa_ext_abi.h"
#include "nic/loc.h"

static uint64_t addr64(uint32_t lo, uint32_t hi)
{
	return (uint64_t)hi << 32 | lo;
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
		    nic_key_resolve(qp->dev, qp->pd, b[i].lkey, iova, b[i].length,
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
static int resolve_rc(struct nic_engine *eng, struct sefa_qp *qp,
		      struct sefa_qp **out)
{
	struct sefa_daemon *d = eng->d;
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

static int resolve_dest(struct nic_engine *eng, struct sefa_qp *qp,
			const struct efa_io_tx_wqe *w, struct sefa_qp **out)
{
	const struct sefa_dev_ah *ah = w->meta.ah < SEFA_MAX_AH ?
				       &qp->dev->ah[w->meta.ah] : NULL;
	struct sefa_device *tdev;
	struct sefa_qp *tqp;

	*out = NULL;
	if (qp->type == IBV_QPT_RC)
		return resolve_rc(eng, qp, out);
	if (!ah || !ah->users || ah->pd != qp->pd)
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_AH;
	tdev = device_by_gid(eng->d, ah->gid);
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

		if (nic_key_resolve(tqp->dev, tqp->pd,
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
static int exec_send(struct nic_engine *eng, struct sefa_qp *qp,
		     const struct efa_io_tx_wqe *w, int *status)
{
	bool ud = qp->type == IBV_QPT_UD;
	uint64_t grh = ud ? UD_GRH_LEN : 0;
	bool is_inline = w->meta.ctrl1 & EFA_IO_TX_META_DESC_INLINE_MSG;
	struct seg_list src = { .seg = eng->local_segs };
	struct seg_list dst = { .seg = eng->peer_segs };
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

	st = resolve_dest(eng, qp, w, &tqp);
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
		    nic_dma_buf(&dst, (void *)w->data.inline_data, len, true) :
		    nic_dma_copy(eng, &src, &dst, len))
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
static int exec_rdma(struct nic_engine *eng, struct sefa_qp *qp,
		     const struct efa_io_tx_wqe *w, bool write, int *status)
{
	const struct efa_io_remote_mem_addr *rm = &w->data.rdma_req.remote_mem;
	uint64_t raddr = addr64(rm->buf_addr_lo, rm->buf_addr_hi);
	uint32_t cap = write ? EFA_QUERY_DEVICE_CAPS_RDMA_WRITE :
			       EFA_QUERY_DEVICE_CAPS_RDMA_READ;
	uint32_t access = write ? IBV_ACCESS_REMOTE_WRITE :
				  IBV_ACCESS_REMOTE_READ;
	bool imm = write && (w->meta.ctrl1 & EFA_IO_TX_META_DESC_HAS_IMM);
	struct seg_list local = { .seg = eng->local_segs };
	struct seg_list remote = { .seg = eng->peer_segs };
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
		st = resolve_dest(eng, qp, w, &tqp);
	/* SRD: the target must know the initiator, by an AH. */
	if (!st && qp->type == IBV_QPT_DRIVER &&
	    sefa_ah_find(tqp->pd, qp->dev->gid) == EFA_IO_AH_UNKNOWN)
		st = EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER;
	if (st) {
		*status = st;
		return SEND_DONE;
	}
	if (nic_key_resolve(tqp->dev, tqp->pd, rm->rkey, raddr, rm->length, access,
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
	if (write ? nic_dma_copy(eng, &local, &remote, rm->length) :
		    nic_dma_copy(eng, &remote, &local, rm->length)) {
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
static int exec_umr(struct nic_engine *eng, struct sefa_qp *qp,
		    const struct efa_io_tx_wqe *w)
{
	const struct efa_io_umr_req *u = &w->data.umr_req;
	uint32_t caps = qp->dev->profile->device_caps;
	struct seg_list list = { .seg = eng->local_segs };
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
	if (nic_dma_buf(&list, eng->umr_list, len, false) ||
	    sefa_mr_fill(mkey, eng->umr_list, n, u->base_addr, u->access))
		return EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY;
	return EFA_IO_COMP_STATUS_OK;
}

/* Execute one WQE; SEND_RNR keeps it for a retry. */
static int exec_wqe(struct nic_engine *eng, struct sefa_qp *qp,
		    const struct efa_io_tx_wqe *w, int *status)
{
	const uint8_t need = EFA_IO_TX_META_DESC_FIRST | EFA_IO_TX_META_DESC_LAST;

	if (!(w->meta.ctrl1 & EFA_IO_TX_META_DESC_META_DESC) ||
	    (w->meta.ctrl2 & need) != need) {
		*status = EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR;
		return SEND_DONE;
	}
	switch (w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) {
	case EFA_IO_SEND:
		return exec_send(eng, qp, w, status);
	case EFA_IO_RDMA_READ:
		return exec_rdma(eng, qp, w, false, status);
	case EFA_IO_RDMA_WRITE:
		return exec_rdma(eng, qp, w, true, status);
	case EFA_IO_UMR:
		*status = exec_umr(eng, qp, w);
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
unsigned int nic_req_retry(struct nic_engine *eng, struct sefa_qp *qp)
{
	struct sefa_pending **pp = &qp->pending, *p;
	unsigned int work = 0;
	int status;

	while ((p = *pp)) {
		if (p->due_ns > eng->now) {
			pp = &p->next;
			continue;
		}
		work++;
		p->retries++;
		if (exec_wqe(eng, qp, &p->wqe, &status) == SEND_RNR &&
		    (qp->rnr_retry == 7 || p->retries < qp->rnr_retry)) {
			p->due_ns = eng->now + srd_rnr_wait(p->retries + 1);
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
void nic_comp_flush(struct sefa_qp *qp)
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
	nic_comp_flush(qp);
}

/*
 * RC is in order: the WQE at the head waits for the receiver, and nothing
 * behind it moves.  Returns false while the head must wait.
 */
static bool rc_step(struct nic_engine *eng, struct sefa_qp *qp,
		    const struct efa_io_tx_wqe *w)
{
	int status;

	if (qp->rnr_due_ns > eng->now)
		return false;
	if (exec_wqe(eng, qp, w, &status) == SEND_RNR &&
	    (qp->rnr_retry == 7 || qp->rnr_tries++ < qp->rnr_retry)) {
		qp->rnr_due_ns = eng->now + qp->rnr_wait_ns;
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

unsigned int nic_req_sq(struct nic_engine *eng, struct sefa_qp *qp)
{
	const struct efa_io_tx_wqe *ring = qp->sq_ring->addr;
	uint16_t pc = sq_producer(qp);
	unsigned int work = 0;

	/* A doorbell beyond the ring is the provider's bug: do one lap. */
	while (qp->sq_ci != pc && work < qp->sq_entries) {
		struct efa_io_tx_wqe w = ring[qp->sq_ci & (qp->sq_entries - 1)];
		int status;

		if (qp->type == IBV_QPT_RC && qp->state != IBV_QPS_ERR) {
			if (!rc_step(eng, qp, &w))
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
		if (exec_wqe(eng, qp, &w, &status) == SEND_RNR && qp->rnr_retry) {
			add_pending(qp, &w, eng->now);
			continue;
		}
		complete_send(qp, &w, status);
	}
	return work;
}
