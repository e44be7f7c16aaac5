// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Queue pairs: creation with the efa driver's udata and rings, the state
 * machine and its attribute masks, query, destroy, and flushing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>
#include <rdma/ib_user_verbs.h>

#include "efa/efa_abi_compat.h"
#include "efa/efa_ext_abi.h"
#include "verbs/verbs.h"

static bool is_pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The inline bytes the device takes in a send WQE of @wqe_size bytes. */
static uint32_t wqe_inline_max(const struct sefa_profile *p, uint32_t wqe_size)
{
	return wqe_size == EFA_IO_TX_WQE_128_SIZE ? p->inline_buf_size_ex :
						    p->inline_buf_size;
}

/*
 * The most inline bytes a QP may ask for: a 128-byte WQE's on a device
 * that takes them, else a 64-byte one's (inline_buf_size_ex is 0 there,
 * which the kernel and rdma-core's provider read as inline_buf_size).
 */
static int qp_check_caps(struct sefa_client *c, const struct sefa_qp_params *qp)
{
	const struct sefa_device *dev = c->dev;
	const struct sefa_profile *p = dev->profile;
	uint32_t inline_max = p->inline_buf_size_ex ? p->inline_buf_size_ex :
						      p->inline_buf_size;

	if (qp->max_send_wr > dev->limit[SEFA_LIMIT_SQ_DEPTH] ||
	    qp->max_recv_wr > dev->limit[SEFA_LIMIT_RQ_DEPTH] ||
	    qp->max_send_sge > p->max_sq_sge ||
	    qp->max_recv_sge > p->max_rq_sge ||
	    qp->max_inline > inline_max)
		return sefa_refuse(c, -EINVAL,
				   "caps above the device's (wr %u/%u, sge %u/%u, inline %u of %u)",
				   qp->max_send_wr, qp->max_recv_wr,
				   qp->max_send_sge, qp->max_recv_sge,
				   qp->max_inline, inline_max);
	return 0;
}

/*
 * The size of the SQ's WQEs, which the device learns as the efa driver
 * tells it: the ring's bytes over its depth, max_send_wr.  64 bytes, or
 * 128 on a device that takes them; never less than the inline data asked
 * for needs.
 */
static int qp_wqe_size(struct sefa_client *c, const struct sefa_qp_params *p,
		       uint32_t ring_size, uint32_t *wqe_size)
{
	const struct sefa_profile *prof = c->dev->profile;
	uint32_t size = p->max_send_wr ? ring_size / p->max_send_wr : 0;

	if (!p->max_send_wr || ring_size % p->max_send_wr ||
	    (size != EFA_IO_TX_WQE_SIZE && size != EFA_IO_TX_WQE_128_SIZE))
		return sefa_refuse(c, -EINVAL,
				   "SQ ring of %u bytes for %u WQEs: no WQE size",
				   ring_size, p->max_send_wr);
	if (size == EFA_IO_TX_WQE_128_SIZE &&
	    prof->inline_buf_size_ex <= prof->inline_buf_size)
		return sefa_refuse(c, -EINVAL,
				   "128-byte WQEs: not on profile %s",
				   prof->name);
	if (p->max_inline > wqe_inline_max(prof, size))
		return sefa_refuse(c, -EINVAL,
				   "inline %u does not fit a %u-byte WQE",
				   p->max_inline, size);
	*wqe_size = size;
	return 0;
}

/*
 * The efa driver's QP udata, Debian's 16 bytes or rdma-core v64's 24 with
 * flags and service level; fills the ring geometry.
 */
static int qp_udata(struct sefa_cmd *cmd, const struct sefa_qp_params *p,
		    struct efa_compat_create_qp *ucmd, uint32_t *wqe_size)
{
	const struct sefa_profile *prof = cmd->c->dev->profile;
	struct sefa_client *c = cmd->c;
	uint16_t flags_ok = 0;
	size_t i;
	int ret;

	if (cmd->udata_in.len < offsetofend(struct efa_compat_create_qp,
					    driver_qp_type))
		return sefa_refuse(c, -EINVAL, "udata too short for efa's");
	memset(ucmd, 0, sizeof(*ucmd));
	ret = sefa_udata_in(cmd, ucmd, sizeof(*ucmd));
	if (ret)
		return ret;
	ret = sefa_ubuf_is_zero_from(c, &cmd->udata_in, sizeof(*ucmd));
	if (ret <= 0)
		return ret ? ret : sefa_udata_unknown(c);
	for (i = 0; i < sizeof(ucmd->reserved_98); i++)
		if (ucmd->reserved_98[i])
			return sefa_udata_unknown(c);
	if (ucmd->comp_mask)
		return sefa_refuse(c, -EINVAL, "udata comp_mask %#x unknown",
				   ucmd->comp_mask);
	if (prof->device_caps & EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV)
		flags_ok |= EFA_CREATE_QP_WITH_UNSOLICITED_WRITE_RECV;
	if (ucmd->flags & ~flags_ok)
		return sefa_refuse(c, -EOPNOTSUPP,
				   "create flags %#x, this profile takes %#x",
				   ucmd->flags, flags_ok);
	if (p->type == IBV_QPT_DRIVER &&
	    ucmd->driver_qp_type != EFA_QP_DRIVER_TYPE_SRD)
		return sefa_refuse(c, -EOPNOTSUPP, "driver QP type %u",
				   ucmd->driver_qp_type);
	ret = qp_wqe_size(c, p, ucmd->sq_ring_size, wqe_size);
	if (ret)
		return ret;
	/* The device walks both rings modulo a power of two. */
	if (!is_pow2(p->max_send_wr) ||
	    ucmd->sq_ring_size > prof->max_llq_size)
		return sefa_refuse(c, -EINVAL, "SQ ring of %u bytes",
				   ucmd->sq_ring_size);
	if (ucmd->rq_ring_size &&
	    (ucmd->rq_ring_size % EFA_IO_RX_DESC_SIZE ||
	     !is_pow2(ucmd->rq_ring_size / EFA_IO_RX_DESC_SIZE) ||
	     ucmd->rq_ring_size / EFA_IO_RX_DESC_SIZE >
		     (uint64_t)prof->max_rq_wr * prof->max_rq_sge))
		return sefa_refuse(c, -EINVAL, "RQ ring of %u bytes",
				   ucmd->rq_ring_size);
	return 0;
}

static int qp_rings(struct sefa_cmd *cmd, struct sefa_qp *qp,
		    const struct efa_compat_create_qp *ucmd,
		    struct efa_ibv_create_qp_resp *resp)
{
	struct sefa_client *c = cmd->c;
	int ret;

	qp->sq_entries = ucmd->sq_ring_size / qp->sq_wqe_size;
	qp->rq_entries = ucmd->rq_ring_size / EFA_IO_RX_DESC_SIZE;
	qp->sq_ring = sefa_shm_new(c, ucmd->sq_ring_size);
	qp->db = sefa_shm_new(c, SEFA_PAGE_SIZE);
	if (!qp->sq_ring || !qp->db)
		return -ENOMEM;
	if (qp->rq_entries) {
		qp->rq_ring = sefa_shm_new(c, ucmd->rq_ring_size);
		if (!qp->rq_ring)
			return -ENOMEM;
	}

	resp->sq_db_offset = SEFA_SQ_DB_OFF;
	resp->rq_db_offset = SEFA_RQ_DB_OFF;
	resp->llq_desc_offset = 0;
	ret = sefa_mmap_insert(c, qp->db, 0, SEFA_PAGE_SIZE,
			       (uint64_t *)&resp->sq_db_mmap_key);
	if (!ret)
		ret = sefa_mmap_insert(c, qp->sq_ring, 0, qp->sq_ring->len,
				       (uint64_t *)&resp->llq_desc_mmap_key);
	if (!ret && qp->rq_ring) {
		ret = sefa_mmap_insert(c, qp->db, 0, SEFA_PAGE_SIZE,
				       (uint64_t *)&resp->rq_db_mmap_key);
		if (!ret)
			ret = sefa_mmap_insert(c, qp->rq_ring, 0,
					       qp->rq_ring->len,
					       (uint64_t *)&resp->rq_mmap_key);
		/* the kernel reports the page-aligned size it mapped */
		resp->rq_mmap_size = qp->rq_ring->len;
	}
	return ret;
}

/*
 * Forget what the NIC keeps of the QP's traffic: sends not retired, what
 * peers had delivered, a message half placed.
 */
static void qp_drop_transport(struct sefa_qp *qp)
{
	struct sefa_pending *p;
	struct sefa_peer_win *w, *next;

	while ((p = qp->comp.pending)) {
		qp->comp.pending = p->next;
		free(p);
	}
	qp->comp.npending = 0;
	for (w = qp->resp.seen ? qp->resp.seen->oldest : NULL; w; w = next) {
		next = w->newer;
		free(w);
	}
	free(qp->resp.seen);
	qp->resp.seen = NULL;
	free(qp->comp.rc_head);
	qp->comp.rc_head = NULL;
	free(qp->resp.rc_rx);
	qp->resp.rc_rx = NULL;
}

static void qp_free(struct sefa_client *c, struct sefa_qp *qp)
{
	qp_drop_transport(qp);
	if (qp->sq_ring)
		sefa_mmap_remove(c, qp->sq_ring);
	if (qp->rq_ring)
		sefa_mmap_remove(c, qp->rq_ring);
	if (qp->db)
		sefa_mmap_remove(c, qp->db);
	sefa_shm_put(qp->sq_ring);
	sefa_shm_put(qp->rq_ring);
	sefa_shm_put(qp->db);
	free(qp);
}

static int qpn_alloc(struct sefa_client *c, struct sefa_qp *qp)
{
	struct sefa_device *dev = c->dev;
	unsigned int i;
	int ret;

	for (i = 0; i < SEFA_MAX_QP_IDX; i++) {
		if (dev->qp[i])
			continue;
		ret = sefa_limit_take(c, SEFA_LIMIT_QP);
		if (ret)
			return ret;
		/* Never QPN 0 or 1; a reused slot gets a new QPN. */
		if (!++dev->qp_gen[i])
			dev->qp_gen[i] = 1;
		qp->qpn = dev->qp_gen[i] << 8 | i;
		dev->qp[i] = qp;
		return 0;
	}
	return sefa_refuse(c, -ENOMEM, "the device's %u QPs are taken",
			   SEFA_MAX_QP_IDX);
}

int sefa_qp_create(struct sefa_cmd *cmd, const struct sefa_qp_params *p,
		   struct sefa_qp **out, struct efa_ibv_create_qp_resp *resp)
{
	struct sefa_client *c = cmd->c;
	struct sefa_device *dev = c->dev;
	struct efa_compat_create_qp ucmd;
	struct sefa_qp *qp;
	uint32_t wqe_size = 0;	/* qp_udata() sets it when it succeeds */
	unsigned int idx;
	int ret;

	if (p->type != IBV_QPT_UD && p->type != IBV_QPT_DRIVER &&
	    !(p->type == IBV_QPT_RC &&
	      (dev->profile->device_caps & SEFA_QUERY_DEVICE_CAPS_RC)))
		return sefa_refuse(c, -EOPNOTSUPP,
				   "QP type %d not on this profile", p->type);
	if (p->has_srq || p->create_flags)
		return sefa_refuse(c, -EOPNOTSUPP,
				   "SRQ or create flags not supported");
	if (!p->pd)
		return sefa_refuse(c, -EINVAL, "unknown PD handle");
	if (!p->send_cq || !p->recv_cq)
		return sefa_refuse(c, -EINVAL, "unknown %s CQ handle",
				   p->send_cq ? "receive" : "send");
	ret = qp_check_caps(c, p);
	if (ret)
		return ret;
	ret = qp_udata(cmd, p, &ucmd, &wqe_size);
	if (ret)
		return ret;

	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return -ENOMEM;
	qp->sq_wqe_size = wqe_size;
	memset(resp, 0, sizeof(*resp));
	ret = qp_rings(cmd, qp, &ucmd, resp);
	if (ret)
		goto err_free;
	ret = qpn_alloc(c, qp);
	if (ret)
		goto err_free;
	ret = sefa_uobj_add(c, &qp->uobj, SEFA_OBJ_QP);
	if (ret)
		goto err_qpn;

	qp->dev = dev;
	qp->pd = p->pd;
	qp->send_cq = p->send_cq;
	qp->recv_cq = p->recv_cq;
	qp->user_handle = p->user_handle;
	qp->type = p->type;
	qp->state = IBV_QPS_RESET;
	qp->sq_sig_all = p->sq_sig_all;
	qp->max_send_wr = p->max_send_wr;
	qp->max_recv_wr = p->max_recv_wr;
	qp->max_send_sge = p->max_send_sge;
	qp->max_recv_sge = p->max_recv_sge;
	qp->max_inline = p->max_inline;
	qp->sl = ucmd.sl;
	qp->unsolicited_write_recv =
		ucmd.flags & EFA_CREATE_QP_WITH_UNSOLICITED_WRITE_RECV;
	/* SRD retries receiver-not-ready forever unless told otherwise. */
	qp->rnr_retry = 7;
	/* Spread the queues over the sub-CQs, as the device may. */
	idx = qp->qpn & (SEFA_MAX_QP_IDX - 1);
	qp->send_sub_cq = idx % p->send_cq->num_sub_cqs;
	qp->recv_sub_cq = (idx + 1) % p->recv_cq->num_sub_cqs;
	resp->send_sub_cq_idx = qp->send_sub_cq;
	resp->recv_sub_cq_idx = qp->recv_sub_cq;

	qp->pd->uobj.usecnt++;
	qp->send_cq->uobj.usecnt++;
	qp->recv_cq->uobj.usecnt++;
	*out = qp;
	return 0;

err_qpn:
	dev->qp[qp->qpn & (SEFA_MAX_QP_IDX - 1)] = NULL;
	sefa_limit_give(dev, SEFA_LIMIT_QP);
err_free:
	qp_free(c, qp);
	return ret;
}

static void qp_unlink(struct sefa_qp *qp)
{
	qp->dev->qp[qp->qpn & (SEFA_MAX_QP_IDX - 1)] = NULL;
	sefa_limit_give(qp->dev, SEFA_LIMIT_QP);
	qp->pd->uobj.usecnt--;
	qp->send_cq->uobj.usecnt--;
	qp->recv_cq->uobj.usecnt--;
	sefa_uobj_del(&qp->uobj);
}

/* The undo of a failed create that got as far as the client's tables. */
void sefa_qp_abort(struct sefa_qp *qp)
{
	struct sefa_client *c = qp->uobj.c;

	qp_unlink(qp);
	qp_free(c, qp);
}

uint32_t sefa_qp_destroy(struct sefa_qp *qp)
{
	struct sefa_client *c = qp->uobj.c;
	uint32_t reported;

	reported = qp->events_queued -
		   sefa_event_purge(c->async, qp->user_handle);
	qp_unlink(qp);
	qp_free(c, qp);
	return reported;
}

struct sefa_qp *sefa_qp_lookup(struct sefa_device *dev, uint32_t qpn)
{
	struct sefa_qp *qp = dev->qp[qpn & (SEFA_MAX_QP_IDX - 1)];

	return qp && qp->qpn == qpn ? qp : NULL;
}

/*
 * Attribute masks per transition: what must be given and what may be.  UD
 * follows the IB table; SRD adds the RNR retry count on RTR to RTS.
 */
struct qp_transition {
	bool valid;
	uint32_t req;
	uint32_t opt;
};

#define Q(s) IBV_QPS_##s
#define M(x) IBV_QP_##x

static const struct qp_transition ud_table[IBV_QPS_ERR + 1][IBV_QPS_ERR + 1] = {
	[Q(RESET)] = {
		[Q(RESET)] = { true },
		[Q(INIT)] = { true, M(PKEY_INDEX) | M(PORT) | M(QKEY), 0 },
	},
	[Q(INIT)] = {
		[Q(INIT)] = { true, 0, M(PKEY_INDEX) | M(PORT) | M(QKEY) },
		[Q(RTR)] = { true, 0, M(PKEY_INDEX) | M(QKEY) },
	},
	[Q(RTR)] = {
		[Q(RTS)] = { true, M(SQ_PSN), M(CUR_STATE) | M(QKEY) },
	},
	[Q(RTS)] = {
		[Q(RTS)] = { true, 0, M(CUR_STATE) | M(QKEY) },
		[Q(SQD)] = { true, 0, M(EN_SQD_ASYNC_NOTIFY) },
	},
	[Q(SQD)] = {
		[Q(RTS)] = { true, 0, M(CUR_STATE) | M(QKEY) },
		[Q(SQD)] = { true, 0, M(PKEY_INDEX) | M(QKEY) },
	},
	[Q(SQE)] = {
		[Q(RTS)] = { true, 0, M(CUR_STATE) | M(QKEY) },
	},
};

/* The IB table for RC (IBA 1.4, table 91), without alternate paths. */
static const struct qp_transition rc_table[IBV_QPS_ERR + 1][IBV_QPS_ERR + 1] = {
	[Q(RESET)] = {
		[Q(RESET)] = { true },
		[Q(INIT)] = { true, M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS), 0 },
	},
	[Q(INIT)] = {
		[Q(INIT)] = { true, 0, M(PKEY_INDEX) | M(PORT) | M(ACCESS_FLAGS) },
		[Q(RTR)] = { true, M(AV) | M(PATH_MTU) | M(DEST_QPN) | M(RQ_PSN) |
				   M(MAX_DEST_RD_ATOMIC) | M(MIN_RNR_TIMER),
			     M(ACCESS_FLAGS) | M(PKEY_INDEX) },
	},
	[Q(RTR)] = {
		[Q(RTS)] = { true, M(SQ_PSN) | M(TIMEOUT) | M(RETRY_CNT) |
				   M(RNR_RETRY) | M(MAX_QP_RD_ATOMIC),
			     M(CUR_STATE) | M(ACCESS_FLAGS) | M(MIN_RNR_TIMER) },
	},
	[Q(RTS)] = {
		[Q(RTS)] = { true, 0, M(CUR_STATE) | M(ACCESS_FLAGS) |
				      M(MIN_RNR_TIMER) },
		[Q(SQD)] = { true, 0, M(EN_SQD_ASYNC_NOTIFY) },
	},
	[Q(SQD)] = {
		[Q(RTS)] = { true, 0, M(CUR_STATE) | M(ACCESS_FLAGS) |
				      M(MIN_RNR_TIMER) },
		[Q(SQD)] = { true, 0, M(AV) | M(ACCESS_FLAGS) | M(PKEY_INDEX) |
				      M(MIN_RNR_TIMER) | M(TIMEOUT) |
				      M(RETRY_CNT) | M(RNR_RETRY) |
				      M(MAX_QP_RD_ATOMIC) |
				      M(MAX_DEST_RD_ATOMIC) },
	},
	[Q(SQE)] = {
		[Q(RTS)] = { true, 0, M(CUR_STATE) | M(ACCESS_FLAGS) },
	},
};

#define RC_MODIFY_SUPPORTED (M(STATE) | M(CUR_STATE) | M(EN_SQD_ASYNC_NOTIFY) | \
			     M(ACCESS_FLAGS) | M(PKEY_INDEX) | M(PORT) | \
			     M(AV) | M(PATH_MTU) | M(TIMEOUT) | M(RETRY_CNT) | \
			     M(RNR_RETRY) | M(RQ_PSN) | M(MAX_QP_RD_ATOMIC) | \
			     M(MIN_RNR_TIMER) | M(SQ_PSN) | \
			     M(MAX_DEST_RD_ATOMIC) | M(DEST_QPN) | \
			     M(QKEY))	/* never valid on RC: the table says EINVAL */

#define EFA_MODIFY_SUPPORTED (M(STATE) | M(CUR_STATE) | M(EN_SQD_ASYNC_NOTIFY) | \
			      M(PKEY_INDEX) | M(PORT) | M(QKEY) | M(SQ_PSN) | \
			      M(RNR_RETRY))

static const struct qp_transition *transition(const struct sefa_qp *qp,
					      int cur, int next,
					      struct qp_transition *tmp)
{
	if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) {
		*tmp = (struct qp_transition){ true, 0, 0 };
		return tmp;
	}
	*tmp = qp->type == IBV_QPT_RC ? rc_table[cur][next] :
					ud_table[cur][next];
	if (qp->type == IBV_QPT_DRIVER && cur == IBV_QPS_RTR &&
	    next == IBV_QPS_RTS)
		tmp->opt |= M(RNR_RETRY);
	return tmp;
}

/* Back to the state of a new QP: empty rings, doorbells at zero. */
static void qp_reset(struct sefa_qp *qp)
{
	qp_drop_transport(qp);
	qp->req.sq_ci = 0;
	qp->req.heads_passed = 0;
	qp->comp.heads_done = 0;
	qp->resp.rq_ci = 0;
	qp->comp.rnr_due_ns = 0;
	qp->comp.rnr_tries = 0;
	__atomic_store_n((uint32_t *)((uint8_t *)qp->db->addr + SEFA_SQ_DB_OFF),
			 0, __ATOMIC_RELEASE);
	__atomic_store_n((uint32_t *)((uint8_t *)qp->db->addr + SEFA_RQ_DB_OFF),
			 0, __ATOMIC_RELEASE);
}

/*
 * The checks of a modify that are about one attribute's value: @what
 * names it when it is refused.
 */
static int bad_value(const struct sefa_qp *qp, const struct ib_uverbs_modify_qp *m,
		     const char **what)
{
	uint32_t mask = m->attr_mask;

	*what = "port";
	if ((mask & M(PORT)) && m->port_num != 1)
		return -EOPNOTSUPP;
	*what = "P_Key index";
	if ((mask & M(PKEY_INDEX)) && m->pkey_index)
		return -EOPNOTSUPP;
	*what = "rnr_retry";
	if ((mask & M(RNR_RETRY)) && m->rnr_retry > 7)
		return -EINVAL;
	*what = "retry_cnt";
	if ((mask & M(RETRY_CNT)) && m->retry_cnt > 7)
		return -EINVAL;
	*what = "min_rnr_timer";
	if ((mask & M(MIN_RNR_TIMER)) && m->min_rnr_timer > 31)
		return -EINVAL;
	*what = "path MTU";
	if ((mask & M(PATH_MTU)) &&
	    (m->path_mtu < IBV_MTU_256 || m->path_mtu > IBV_MTU_4096))
		return -EINVAL;
	*what = "RDMA read depth";
	if ((mask & (M(MAX_QP_RD_ATOMIC) | M(MAX_DEST_RD_ATOMIC))) &&
	    (m->max_rd_atomic > qp->dev->profile->max_qp_rd_atom ||
	     m->max_dest_rd_atomic > qp->dev->profile->max_qp_rd_atom))
		return -EINVAL;
	*what = "address vector";
	if ((mask & M(AV)) &&
	    (m->dest.port_num != 1 ||
	     (!m->dest.is_global && !m->dest.dlid)))
		return -EINVAL;
	*what = "access flags";
	if ((mask & M(ACCESS_FLAGS)) &&
	    (m->qp_access_flags & ~(IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_ATOMIC)))
		return -EINVAL;
	return 0;
}

static const char *state_name(int state)
{
	static const char *const names[] = {
		[Q(RESET)] = "RESET", [Q(INIT)] = "INIT", [Q(RTR)] = "RTR",
		[Q(RTS)] = "RTS", [Q(SQD)] = "SQD", [Q(SQE)] = "SQE",
		[Q(ERR)] = "ERR",
	};

	return names[state];
}

int sefa_qp_modify(struct sefa_qp *qp, const struct ib_uverbs_modify_qp *m)
{
	struct sefa_client *c = qp->uobj.c;
	uint32_t mask = m->attr_mask;
	struct qp_transition tmp;
	const struct qp_transition *t;
	int cur = qp->state;
	int next = (mask & M(STATE)) ? m->qp_state : cur;
	const char *what;
	int ret;

	if (mask & ~(qp->type == IBV_QPT_RC ? RC_MODIFY_SUPPORTED :
					      EFA_MODIFY_SUPPORTED))
		return sefa_refuse(c, -EOPNOTSUPP,
				   "attribute mask %#x beyond what this QP type takes",
				   mask);
	if (next > IBV_QPS_ERR)
		return sefa_refuse(c, -EINVAL, "no QP state %d", next);
	if ((mask & M(CUR_STATE)) && m->cur_qp_state != cur)
		return sefa_refuse(c, -EINVAL,
				   "cur_qp_state %u, the QP is in %s",
				   m->cur_qp_state, state_name(cur));
	t = transition(qp, cur, next, &tmp);
	if (!t->valid)
		return sefa_refuse(c, -EINVAL,
				   "QP state does not allow this: %s to %s",
				   state_name(cur), state_name(next));
	if ((mask & t->req) != t->req ||
	    (mask & ~(t->req | t->opt | M(STATE) | M(CUR_STATE))))
		return sefa_refuse(c, -EINVAL,
				   "%s to %s takes attributes %#x (%#x more may be given), not %#x",
				   state_name(cur), state_name(next), t->req,
				   t->opt, mask & ~(M(STATE) | M(CUR_STATE)));
	ret = bad_value(qp, m, &what);
	if (ret)
		return sefa_refuse(c, ret, "%s %s", what,
				   ret == -EOPNOTSUPP ? "not supported" :
							"out of range");

	if (mask & M(QKEY))
		qp->qkey = m->qkey;
	if (mask & M(SQ_PSN))
		qp->req.sq_psn = m->sq_psn & 0xffffff;
	if (mask & M(RNR_RETRY))
		qp->rnr_retry = m->rnr_retry;
	if (mask & M(ACCESS_FLAGS))
		qp->access_flags = m->qp_access_flags;
	if (mask & M(AV))
		qp->dest = m->dest;
	if (mask & M(DEST_QPN))
		qp->dest_qpn = m->dest_qp_num;
	if (mask & M(RQ_PSN))
		qp->resp.rq_psn = m->rq_psn & 0xffffff;
	if (mask & M(PATH_MTU))
		qp->path_mtu = m->path_mtu;
	if (mask & M(TIMEOUT))
		qp->timeout = m->timeout;
	if (mask & M(RETRY_CNT))
		qp->retry_cnt = m->retry_cnt;
	if (mask & M(MIN_RNR_TIMER))
		qp->min_rnr_timer = m->min_rnr_timer;
	if (mask & M(MAX_QP_RD_ATOMIC))
		qp->max_rd_atomic = m->max_rd_atomic;
	if (mask & M(MAX_DEST_RD_ATOMIC))
		qp->max_dest_rd_atomic = m->max_dest_rd_atomic;
	/*
	 * A QP sent to the error state is flushed by the NIC on its next
	 * pass, as a device completes a modify asynchronously.
	 */
	if (next == IBV_QPS_RESET)
		qp_reset(qp);
	qp->state = next;
	return 0;
}

void sefa_qp_query(const struct sefa_qp *qp, struct ib_uverbs_query_qp_resp *r)
{
	memset(r, 0, sizeof(*r));
	r->qp_state = qp->state;
	r->cur_qp_state = qp->state;
	r->qkey = qp->qkey;
	r->sq_psn = qp->req.sq_psn;
	r->port_num = 1;
	r->pkey_index = 0;
	r->rnr_retry = qp->rnr_retry;
	r->sq_sig_all = qp->sq_sig_all;
	r->max_send_wr = qp->max_send_wr;
	r->max_recv_wr = qp->max_recv_wr;
	r->max_send_sge = qp->max_send_sge;
	r->max_recv_sge = qp->max_recv_sge;
	r->max_inline_data = qp->max_inline;
	r->path_mtu = qp->type == IBV_QPT_RC ? qp->path_mtu :
					       qp->dev->profile->active_mtu;
	r->qp_access_flags = qp->access_flags;
	r->dest = qp->dest;
	r->dest_qp_num = qp->dest_qpn;
	r->rq_psn = qp->resp.rq_psn;
	r->timeout = qp->timeout;
	r->retry_cnt = qp->retry_cnt;
	r->min_rnr_timer = qp->min_rnr_timer;
	r->max_rd_atomic = qp->max_rd_atomic;
	r->max_dest_rd_atomic = qp->max_dest_rd_atomic;
	r->sq_draining = 0;
}
