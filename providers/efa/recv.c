// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting receives.
 *
 * A receive WR becomes one 16-byte descriptor per SGE in the RQ ring, in
 * host memory, or on RC one per 64 KiB - 1 of it (see struct efa_rq).  The
 * first descriptor of a WR carries its request id and the first bit, the
 * last one the last bit.  The RQ doorbell takes the producer counter in
 * descriptors, once per call.
 */

#include <errno.h>

#include "efa.h"
#include "efa_dp.h"

#define EFA_RX_DESC_MAX_LEN UINT16_MAX

/* Longer buffers are offered as the most a descriptor holds. */
void efa_rx_desc_fill(struct efa_io_rx_desc *desc, const struct ibv_sge *sge,
		      uint16_t req_id, bool first, bool last)
{
	*desc = (struct efa_io_rx_desc){
		.buf_addr_lo = (uint32_t)sge->addr,
		.buf_addr_hi = sge->addr >> 32,
		.req_id = req_id,
		.length = sge->length > EFA_RX_DESC_MAX_LEN ?
				  EFA_RX_DESC_MAX_LEN :
				  sge->length,
		.lkey_ctrl = (sge->lkey & EFA_IO_RX_DESC_LKEY_MASK) |
			     (first ? EFA_IO_RX_DESC_FIRST : 0) |
			     (last ? EFA_IO_RX_DESC_LAST : 0),
	};
}

static inline bool efa_rq_state_ok(const struct efa_rq *rq,
				   enum ibv_qp_state state)
{
	return (rq->ok_states >> state) & 1;
}

/*
 * A WR without a buffer would take a request id that no descriptor could
 * ever complete, so it needs one to max_sge SGEs.
 */
static inline bool efa_recv_sges_ok(const struct efa_wq *wq,
				    const struct ibv_recv_wr *wr)
{
	return (unsigned int)wr->num_sge - 1 < wq->max_sge;
}

/* The descriptors a WR takes, when the RQ splits SGEs. */
static inline uint32_t efa_recv_split_descs(const struct ibv_recv_wr *wr)
{
	uint32_t n = 0;

	for (int i = 0; i < wr->num_sge; i++) {
		uint32_t len = wr->sg_list[i].length;

		n += len ? (len - 1) / EFA_RX_DESC_MAX_LEN + 1 : 1;
	}
	return n;
}

/* Why a WR is refused; off the fast path, which only knows that it is. */
static __attribute__((cold, noinline)) int
efa_post_recv_refuse(struct efa_qp *qp, const struct ibv_recv_wr *wr)
{
	struct ibv_qp *ibvqp = &qp->verbs_qp.qp;
	const char *why = "RQ is full";
	int err = ENOMEM;

	if (!efa_rq_state_ok(&qp->rq, ibvqp->state)) {
		why = qp->rq.split_sges ? "QP is in RESET" :
					  "QP is in RESET or ERR";
		err = EINVAL;
	} else if (!efa_recv_sges_ok(&qp->rq.wq, wr)) {
		why = "number of SGEs";
		err = EINVAL;
	} else if (!efa_wq_full(&qp->rq.wq)) {
		why = "WR needs more descriptors of 64 KiB - 1 than the device takes";
		err = EINVAL;
	}
	verbs_err(to_verbs_context(ibvqp->context), "RQ %u: %s\n",
		  ibvqp->qp_num, why);
	return err;
}

/* The ndesc descriptors of a WR, from the ring's producer counter on. */
static inline void efa_rq_put_wr(struct efa_rq *rq,
				 const struct ibv_recv_wr *wr, uint16_t req_id,
				 uint32_t ndesc)
{
	struct efa_wq *wq = &rq->wq;
	uint32_t d = 0;

	for (int i = 0; i < wr->num_sge; i++) {
		struct ibv_sge part = wr->sg_list[i];
		uint32_t left = part.length;

		do {
			if (rq->split_sges && left > EFA_RX_DESC_MAX_LEN)
				part.length = EFA_RX_DESC_MAX_LEN;
			else
				part.length = left;
			efa_rx_desc_fill(&rq->buf[wq->pc++ & wq->desc_mask],
					 &part, d ? 0 : req_id, d == 0,
					 d == ndesc - 1);
			d++;
			part.addr += part.length;
			left -= part.length;
		} while (rq->split_sges && left);
	}
}

int efa_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct efa_qp *qp = to_efa_qp(ibvqp);
	struct efa_rq *rq = &qp->rq;
	struct efa_wq *wq = &rq->wq;
	struct ibv_recv_wr *first = wr;
	int err = 0;

	efa_spin_lock(&wq->lock);
	if (efa_unlikely(!efa_rq_state_ok(rq, ibvqp->state)))
		goto refuse;

	for (; wr; wr = wr->next) {
		uint32_t ndesc = wr->num_sge;
		uint16_t req_id;

		if (efa_unlikely(!efa_recv_sges_ok(wq, wr) || efa_wq_full(wq)))
			goto refuse;
		if (rq->split_sges) {
			ndesc = efa_recv_split_descs(wr);
			if (ndesc > rq->wr_descs)
				goto refuse;
		}
		/* request ids from the pool: an RQ is never in order */
		req_id = efa_wq_peek_idx(wq, false);
		efa_wq_commit_idx(wq, req_id, wr->wr_id);
		efa_rq_put_wr(rq, wr, req_id, ndesc);
	}
	goto out;

refuse:
	err = efa_post_recv_refuse(qp, wr);
	*bad_wr = wr;
out:
	/*
	 * No wake: a send that found no receive is sent again when its
	 * receiver-not-ready timer says, whenever the device sees this.
	 */
	if (wr != first)
		efa_db_write(wq->db, wq->pc);
	efa_spin_unlock(&wq->lock);
	return err;
}
