// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting receives.
 *
 * A receive WR becomes one 16-byte descriptor per SGE in the RQ ring, in
 * host memory.  The first descriptor of a WR carries its request id and
 * the first bit, the last one the last bit.  The RQ doorbell takes the
 * producer counter in descriptors, once per call.
 */

#include <errno.h>

#include "efa.h"
#include "efa_dp.h"

/* The device takes 16-bit lengths and receives at most an MTU anyway. */
void efa_rx_desc_fill(struct efa_io_rx_desc *desc, const struct ibv_sge *sge,
		      uint16_t req_id, bool first, bool last)
{
	*desc = (struct efa_io_rx_desc){
		.buf_addr_lo = (uint32_t)sge->addr,
		.buf_addr_hi = sge->addr >> 32,
		.req_id = req_id,
		.length = sge->length > UINT16_MAX ? UINT16_MAX : sge->length,
		.lkey_ctrl = (sge->lkey & EFA_IO_RX_DESC_LKEY_MASK) |
			     (first ? EFA_IO_RX_DESC_FIRST : 0) |
			     (last ? EFA_IO_RX_DESC_LAST : 0),
	};
}

static inline bool efa_rq_state_ok(const struct ibv_qp *ibvqp)
{
	return ibvqp->state != IBV_QPS_RESET && ibvqp->state != IBV_QPS_ERR;
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

/* Why a WR is refused; off the fast path, which only knows that it is. */
static __attribute__((cold, noinline)) int
efa_post_recv_refuse(struct efa_qp *qp, const struct ibv_recv_wr *wr)
{
	struct ibv_qp *ibvqp = &qp->verbs_qp.qp;
	const char *why = "RQ is full";
	int err = ENOMEM;

	if (!efa_rq_state_ok(ibvqp)) {
		why = "QP is in RESET or ERR";
		err = EINVAL;
	} else if (!efa_recv_sges_ok(&qp->rq.wq, wr)) {
		why = "number of SGEs";
		err = EINVAL;
	}
	verbs_err(to_verbs_context(ibvqp->context), "RQ %u: %s\n",
		  ibvqp->qp_num, why);
	return err;
}

int efa_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr)
{
	struct efa_qp *qp = to_efa_qp(ibvqp);
	struct efa_rq *rq = &qp->rq;
	struct efa_wq *wq = &rq->wq;
	struct ibv_recv_wr *first = wr;
	int err = 0;

	pthread_spin_lock(&wq->lock);
	if (efa_unlikely(!efa_rq_state_ok(ibvqp)))
		goto refuse;

	for (; wr; wr = wr->next) {
		int last = wr->num_sge - 1;
		uint16_t req_id;

		if (efa_unlikely(!efa_recv_sges_ok(wq, wr) || efa_wq_full(wq)))
			goto refuse;

		req_id = efa_wq_get_idx(wq, wr->wr_id);
		for (int i = 0; i <= last; i++) {
			efa_rx_desc_fill(&rq->buf[wq->pc & wq->desc_mask],
					 &wr->sg_list[i], i ? 0 : req_id,
					 i == 0, i == last);
			wq->pc++;
		}
	}
	goto out;

refuse:
	err = efa_post_recv_refuse(qp, wr);
	*bad_wr = wr;
out:
	if (wr != first)
		efa_db_write(wq->db, wq->pc);
	pthread_spin_unlock(&wq->lock);
	return err;
}
