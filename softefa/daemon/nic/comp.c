// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The completer: retires a requester's WQE into the send CQ, with the
 * status the answer to its packet carries or the requester's own.  A
 * receiver that was not ready has the WQE sent again, rnr_retry times (7:
 * for ever) before the RNR error: SRD after the device's own waits, RC
 * after the time the receiver asked for.  An RC error takes the QP to
 * error, and a QP in error has everything posted flushed.
 */
#include <errno.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

static void complete_send(struct sefa_qp *qp, const struct efa_io_tx_wqe *w,
			  int status)
{
	struct efa_io_rx_cdesc_ex e = {};
	unsigned int op = w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK;

	if (status == EFA_IO_COMP_STATUS_OK &&
	    !(w->meta.ctrl2 & EFA_IO_TX_META_DESC_COMP_REQ))
		return;
	if (status != EFA_IO_COMP_STATUS_OK)
		NIC_COUNT(qp, errors, 1);
	e.base.common.req_id = w->meta.req_id;
	e.base.common.status = status;
	e.base.common.flags = EFA_IO_SEND_QUEUE << EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT |
			      (op << EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT &
			       EFA_IO_CDESC_COMMON_OP_TYPE_MASK);
	e.base.common.qp_num = qp->qpn;
	sefa_cq_write(qp->send_cq, qp->send_sub_cq, &e,
		      sizeof(struct efa_io_tx_cdesc));
}

/* Everything posted completes with FLUSHED: the QP went to error. */
void nic_comp_flush(struct sefa_qp *qp)
{
	struct sefa_pending *p;

	while ((p = qp->pending)) {
		qp->pending = p->next;
		complete_send(qp, &p->wqe, EFA_IO_COMP_STATUS_FLUSHED);
		free(p);
	}
	nic_resp_flush(qp);
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

void nic_comp_retire(struct nic_send *s, int status)
{
	struct sefa_qp *qp = s->qp;

	s->state = NIC_SEND_RETIRED;
	if (!s->at_head) {
		complete_send(qp, s->wqe, status);
		return;
	}
	qp->rnr_due_ns = 0;
	qp->rnr_tries = 0;
	qp->sq_ci++;
	qp->sq_psn = (qp->sq_psn + 1) & 0xffffff;
	complete_send(qp, s->wqe, status);
	if (status != EFA_IO_COMP_STATUS_OK)
		rc_fail(qp);
}

/* The IB RNR timer encoding, in microseconds; 0 means the longest. */
static const uint32_t rnr_timer_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

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

/* An SRD send's first RNR: it waits on the QP's list, in order. */
static int add_pending(struct nic_engine *eng, const struct nic_send *s)
{
	struct sefa_pending *p = calloc(1, sizeof(*p)), **pp;

	if (!p)
		return -ENOMEM;
	p->wqe = *s->wqe;
	p->due_ns = eng->now + srd_rnr_wait(1);
	for (pp = &s->qp->pending; *pp; pp = &(*pp)->next)
		;
	*pp = p;
	return 0;
}

/* The receiver was not ready: send again while rnr_retry allows. */
static void comp_rnr(struct nic_engine *eng, struct nic_send *s,
		     const struct sefa_pkt *nak)
{
	struct sefa_qp *qp = s->qp;

	NIC_COUNT(qp, rnr_retries, 1);
	if (s->at_head)
		qp->rnr_wait_ns = rnr_timer_us[nak->rnr_timer & 31] * 1000ULL;
	if (qp->rnr_retry != 7 && s->rnr_done >= qp->rnr_retry) {
		nic_comp_retire(s, EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR);
		return;
	}
	s->state = NIC_SEND_RNR;
	if (s->at_head) {
		/* Tries count only against a finite rnr_retry. */
		qp->rnr_tries += qp->rnr_retry != 7;
		qp->rnr_due_ns = eng->now + qp->rnr_wait_ns;
	} else if (s->retry) {
		s->retry->due_ns = eng->now + srd_rnr_wait(s->rnr_done + 1);
	} else if (add_pending(eng, s)) {
		nic_comp_retire(s, EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR);
	}
}

/* What an RDMA carried out counts, at the requester. */
static void comp_count_rdma(struct nic_send *s)
{
	uint64_t len = s->wqe->data.rdma_req.remote_mem.length;

	switch (s->wqe->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) {
	case EFA_IO_RDMA_WRITE:
		NIC_COUNT(s->qp, rdma_writes, 1);
		NIC_COUNT(s->qp, tx_bytes, len);
		break;
	case EFA_IO_RDMA_READ:
		NIC_COUNT(s->qp, rdma_reads, 1);
		NIC_COUNT(s->qp, rx_bytes, len);
		break;
	}
}

/*
 * The answer the wire brought to @dev.  Only the WQE whose packet is on the
 * wire waits for one: any other answer is stale and dropped.
 */
void nic_comp_recv(struct nic_engine *eng, struct sefa_device *dev,
		   const struct sefa_pkt *ack)
{
	struct nic_send *s = eng->send;

	if (!s || s->qp->dev != dev || s->qp->qpn != ack->dqpn ||
	    s->psn != ack->psn)
		return;
	eng->send = NULL;
	if (ack->status == EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR) {
		comp_rnr(eng, s, ack);
		return;
	}
	if (ack->status == EFA_IO_COMP_STATUS_OK)
		comp_count_rdma(s);
	nic_comp_retire(s, ack->status);
}
