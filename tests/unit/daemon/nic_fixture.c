// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The fake host of the NIC's unit tests: see nic_fixture.h. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rdma/efa-abi.h>
#include <rdma/ib_user_verbs.h>

#include "efa/efa_abi_compat.h"
#include "nic_fixture.h"

#define FX_NDEV		2
#define FX_MAX_OBJS	16
#define FX_SQ_WQES	16
#define FX_RQ_DESCS	16
/* Any fixed clock: the stages only add waits to it. */
#define FX_NOW		(1000ULL * 1000 * 1000)

struct sefa_daemon fx_d;
struct sefa_mm fx_self_mm;
struct nic_engine *fx_eng;
struct sefa_pkt fx_pkt[FX_MAX_PKTS];
uint8_t fx_pkt_data[FX_MAX_PKTS][FX_PKT_DATA];
unsigned int fx_npkts;
int fx_answer;
uint8_t fx_answer_rnr_timer;

static struct sefa_client fx_c[FX_NDEV];

/*
 * The devices as sefa_devices_init() first made them, whose key tables
 * every later setup clears and uses again: fuzz_wire sets a host up for
 * each input, and fresh tables of this size took most of its time in page
 * faults and TLB flushes.
 */
static struct sefa_device fx_pristine[FX_NDEV];
static bool fx_have_pristine;

/* The key tables as large as a test grew them, kept by the teardown. */
static struct {
	struct sefa_mr **mr;
	uint8_t *gen;
	unsigned int slots;
} fx_pristine_mr[FX_NDEV];

static void fx_keep_tables(void)
{
	unsigned int i;

	for (i = 0; i < FX_NDEV; i++) {
		fx_pristine_mr[i].mr = fx_d.dev[i].mr;
		fx_pristine_mr[i].gen = fx_d.dev[i].mr_gen;
		fx_pristine_mr[i].slots = fx_d.dev[i].mr_slots;
	}
}

static void fx_devices(void)
{
	unsigned int i;

	if (!fx_have_pristine) {
		ck_assert_int_eq(sefa_devices_init(&fx_d, FX_NDEV), 0);
		memcpy(fx_pristine, fx_d.dev, sizeof(fx_pristine));
		fx_keep_tables();
		fx_have_pristine = true;
		return;
	}
	fx_d.ndev = FX_NDEV;
	memcpy(fx_d.dev, fx_pristine, sizeof(fx_pristine));
	for (i = 0; i < FX_NDEV; i++) {
		struct sefa_device *dev = &fx_d.dev[i];

		dev->mr = fx_pristine_mr[i].mr;
		dev->mr_gen = fx_pristine_mr[i].gen;
		dev->mr_slots = fx_pristine_mr[i].slots;
		memset(dev->mr, 0, dev->mr_slots * sizeof(*dev->mr));
		memset(dev->mr_gen, 0, dev->mr_slots);
	}
}

/* What the tests made, to destroy in the order the kernel would. */
static struct {
	struct sefa_qp *qp[FX_MAX_OBJS];
	struct sefa_cq *cq[FX_MAX_OBJS];
	struct sefa_mr *mr[FX_MAX_OBJS];
	struct sefa_ah *ah[FX_MAX_OBJS];
	struct sefa_pd *pd[FX_MAX_OBJS];
	unsigned int nqp, ncq, nmr, nah, npd;
} fx_objs;

/* Keep @obj of @kind (qp, cq, mr, ah, pd) for the teardown. */
#define FX_KEEP(kind, obj)						\
	do {								\
		ck_assert_uint_lt(fx_objs.n##kind, FX_MAX_OBJS);		\
		fx_objs.kind[fx_objs.n##kind++] = (obj);		\
	} while (0)

void fx_setup(void)
{
	unsigned int i;

	memset(&fx_d, 0, sizeof(fx_d));
	memset(fx_c, 0, sizeof(fx_c));
	memset(&fx_objs, 0, sizeof(fx_objs));
	fx_self_mm = (struct sefa_mm){ .pid = getpid(), .pidfd = -1 };
	fx_npkts = 0;
	fx_answer = FX_NONE;
	fx_answer_rnr_timer = 0;
	fx_d.profile = sefa_profile_find("extended");
	memcpy(fx_d.netdev.mac, "\x02\x00\x00\x00\x00\x01", 6);
	fx_devices();
	for (i = 0; i < FX_NDEV; i++) {
		fx_c[i].d = &fx_d;
		fx_c[i].dev = &fx_d.dev[i];
		fx_c[i].pid = getpid();
		fx_c[i].sock = -1;
	}
	/* kept between setups for the same reason as the key tables */
	if (!fx_eng)
		fx_eng = nic_engine_new(&fx_d);
	ck_assert_ptr_nonnull(fx_eng);
	nic_engine_init(fx_eng, &fx_d);
	fx_eng->xmit = fx_wire;
	fx_eng->now = FX_NOW;
}

void fx_teardown(void)
{
	struct ib_uverbs_destroy_cq_resp cq_resp;
	unsigned int i;

	while (fx_objs.nqp)
		sefa_qp_destroy(fx_objs.qp[--fx_objs.nqp]);
	while (fx_objs.nah)
		sefa_ah_destroy(fx_objs.ah[--fx_objs.nah]);
	while (fx_objs.nmr)
		sefa_mr_dereg(fx_objs.mr[--fx_objs.nmr]);
	fx_keep_tables();
	while (fx_objs.ncq)
		sefa_cq_destroy(fx_objs.cq[--fx_objs.ncq], &cq_resp);
	while (fx_objs.npd)
		sefa_pd_destroy(fx_objs.pd[--fx_objs.npd]);
	for (i = 0; i < FX_NDEV; i++) {
		sefa_mmap_remove_all(&fx_c[i]);
		free(fx_c[i].uobj);
	}
	/* Regions made the process watch; each setup makes its own. */
	if (fx_d.mm_watch_on)
		close(fx_d.mm_watch);
}

static struct sefa_device *fx_dev_by_gid(const uint8_t gid[16])
{
	unsigned int i;

	for (i = 0; i < fx_d.ndev; i++)
		if (!memcmp(fx_d.dev[i].gid, gid, 16))
			return &fx_d.dev[i];
	return NULL;
}

/*
 * The stub wire: records the packet; answers a reliable request with
 * fx_answer unless it is FX_NONE; takes an answer to the completer of the
 * device it is addressed to.
 */
void fx_wire(struct nic_engine *eng, const struct sefa_pkt *pkt)
{
	ck_assert_uint_lt(fx_npkts, FX_MAX_PKTS);
	fx_pkt[fx_npkts] = *pkt;
	if (pkt->data)
		memcpy(fx_pkt_data[fx_npkts], pkt->data,
		       pkt->len < FX_PKT_DATA ? pkt->len : FX_PKT_DATA);
	fx_npkts++;
	if (pkt->op == SEFA_PKT_ACK) {
		nic_comp_recv(eng, fx_dev_by_gid(pkt->dgid), pkt);
		return;
	}
	if (fx_answer != FX_NONE && pkt->qpt != IBV_QPT_UD)
		nic_wire_answer(eng, pkt, pkt->dgid, fx_answer,
				fx_answer_rnr_timer);
}

struct sefa_pd *fx_pd(unsigned int dev)
{
	struct sefa_pd *pd;

	ck_assert_int_eq(sefa_pd_alloc(&fx_c[dev], &pd), 0);
	FX_KEEP(pd, pd);
	return pd;
}

struct sefa_mr *fx_mr(struct sefa_pd *pd, void *buf, size_t len,
		      uint32_t access)
{
	struct sefa_mr *mr;

	ck_assert_int_eq(sefa_mr_reg(&fx_c[pd->dev->index], pd, (uintptr_t)buf,
				     len, (uintptr_t)buf, access, &mr), 0);
	FX_KEEP(mr, mr);
	return mr;
}

struct sefa_mr *fx_mr_indirect(struct sefa_pd *pd, uint32_t max_entries,
			       uint32_t access)
{
	struct sefa_mr *mr;

	ck_assert_int_eq(sefa_mr_create_indirect(&fx_c[pd->dev->index], pd,
						 max_entries, access, &mr), 0);
	FX_KEEP(mr, mr);
	return mr;
}

/* A command whose driver udata is @in and @out, in this process. */
static struct sefa_cmd fx_cmd(unsigned int dev, void *in, size_t inlen,
			      void *out, size_t outlen)
{
	return (struct sefa_cmd){
		.c = &fx_c[dev],
		.udata_in = { .addr = (uintptr_t)in, .len = inlen },
		.udata_out = { .addr = (uintptr_t)out, .len = outlen },
	};
}

struct sefa_cq *fx_cq(unsigned int dev)
{
	struct efa_ibv_create_cq ucmd = {
		.cq_entry_size = EFA_IO_CQE_EX_SIZE,
		.num_sub_cqs = fx_d.profile->sub_cqs_per_cq,
		.flags = EFA_CREATE_CQ_WITH_SGID,
	};
	struct efa_ibv_create_cq_resp resp;
	struct sefa_cq_params p = { .cqe = 64, .channel_fd = -1 };
	struct sefa_cmd cmd = fx_cmd(dev, &ucmd, sizeof(ucmd), &resp,
				     sizeof(resp));
	struct sefa_cq *cq;

	ck_assert_int_eq(sefa_cq_create(&cmd, &p, &cq), 0);
	FX_KEEP(cq, cq);
	return cq;
}

static void fx_modify(struct sefa_qp *qp, struct ib_uverbs_modify_qp *m,
		      int state, uint32_t mask)
{
	m->qp_state = state;
	m->attr_mask = IBV_QP_STATE | mask;
	ck_assert_int_eq(sefa_qp_modify(qp, m), 0);
}

struct sefa_qp *fx_qp(struct sefa_pd *pd, struct sefa_cq *cq, int type)
{
	return fx_qp_ex(pd, cq, type, EFA_IO_TX_WQE_SIZE, 0);
}

/* A QP of @wqe_size-byte send WQEs, with the v64 create flags @flags. */
struct sefa_qp *fx_qp_ex(struct sefa_pd *pd, struct sefa_cq *cq, int type,
			 uint32_t wqe_size, uint16_t flags)
{
	struct efa_compat_create_qp ucmd = {
		.rq_ring_size = FX_RQ_DESCS * EFA_IO_RX_DESC_SIZE,
		.sq_ring_size = FX_SQ_WQES * wqe_size,
		.driver_qp_type = EFA_QP_DRIVER_TYPE_SRD,
		.flags = flags,
	};
	struct sefa_qp_params p = {
		.pd = pd, .send_cq = cq, .recv_cq = cq, .type = type,
		.max_send_wr = FX_SQ_WQES, .max_recv_wr = FX_RQ_DESCS,
		.max_send_sge = 1, .max_recv_sge = 1,
	};
	struct efa_ibv_create_qp_resp resp;
	struct sefa_cmd cmd = fx_cmd(pd->dev->index, &ucmd, sizeof(ucmd),
				     &resp, sizeof(resp));
	struct ib_uverbs_modify_qp m = { .port_num = 1, .qkey = FX_QKEY };
	struct sefa_qp *qp;

	ck_assert_int_eq(sefa_qp_create(&cmd, &p, &qp, &resp), 0);
	FX_KEEP(qp, qp);
	if (type == IBV_QPT_RC) {
		m.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				    IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_REMOTE_READ;
		fx_modify(qp, &m, IBV_QPS_INIT, IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
		return qp;
	}
	fx_modify(qp, &m, IBV_QPS_INIT, IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		  IBV_QP_QKEY);
	fx_modify(qp, &m, IBV_QPS_RTR, 0);
	fx_modify(qp, &m, IBV_QPS_RTS, IBV_QP_SQ_PSN);
	return qp;
}

static void fx_rc_rtr_rts(struct sefa_qp *qp, const struct sefa_qp *peer,
			  bool by_lid)
{
	struct ib_uverbs_modify_qp m = {
		.dest = { .port_num = 1 },
		.path_mtu = IBV_MTU_4096,
		.dest_qp_num = peer->qpn,
		.min_rnr_timer = 12,
		.retry_cnt = 7,
		.rnr_retry = 7,
	};

	if (by_lid) {
		m.dest.dlid = peer->dev->lid;
	} else {
		m.dest.is_global = 1;
		memcpy(m.dest.dgid, peer->dev->gid, 16);
	}
	fx_modify(qp, &m, IBV_QPS_RTR, IBV_QP_AV | IBV_QP_PATH_MTU |
		  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
		  IBV_QP_MIN_RNR_TIMER);
	fx_modify(qp, &m, IBV_QPS_RTS, IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
		  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

void fx_rc_connect(struct sefa_qp *a, struct sefa_qp *b, bool by_lid)
{
	fx_rc_rtr_rts(a, b, by_lid);
	fx_rc_rtr_rts(b, a, by_lid);
}

uint16_t fx_ah(struct sefa_pd *pd, unsigned int to_dev)
{
	struct sefa_ah *ah;

	ck_assert_int_eq(sefa_ah_create(&fx_c[pd->dev->index], pd,
					fx_d.dev[to_dev].gid, &ah), 0);
	FX_KEEP(ah, ah);
	return ah->ahn;
}

static uint32_t *fx_doorbell(struct sefa_qp *qp, size_t off)
{
	return (uint32_t *)((uint8_t *)qp->db->addr + off);
}

void fx_post_recv(struct sefa_qp *qp, const void *buf, uint32_t len,
		  uint32_t lkey, uint16_t req_id)
{
	uint32_t *db = fx_doorbell(qp, SEFA_RQ_DB_OFF);
	struct efa_io_rx_desc *ring = qp->rq_ring->addr;

	ring[*db & (qp->rq_entries - 1)] = (struct efa_io_rx_desc){
		.buf_addr_lo = (uint32_t)(uintptr_t)buf,
		.buf_addr_hi = (uint32_t)((uintptr_t)buf >> 32),
		.length = len,
		.req_id = req_id,
		.lkey_ctrl = lkey | EFA_IO_RX_DESC_FIRST | EFA_IO_RX_DESC_LAST,
	};
	(*db)++;
}

/* Into the slot the QP's WQE size gives; a 64-byte WQE is w's first half. */
void fx_post_send(struct sefa_qp *qp, const struct efa_io_tx_wqe_128 *w)
{
	uint32_t *db = fx_doorbell(qp, SEFA_SQ_DB_OFF);
	uint8_t *ring = qp->sq_ring->addr;

	memcpy(ring + (*db & (qp->sq_entries - 1)) * qp->sq_wqe_size, w,
	       qp->sq_wqe_size);
	(*db)++;
}

struct efa_io_tx_wqe_128 fx_wqe(unsigned int op, uint16_t req_id)
{
	return (struct efa_io_tx_wqe_128){
		.meta = {
			.req_id = req_id,
			.ctrl1 = EFA_IO_TX_META_DESC_META_DESC | op,
			.ctrl2 = EFA_IO_TX_META_DESC_FIRST |
				 EFA_IO_TX_META_DESC_LAST |
				 EFA_IO_TX_META_DESC_COMP_REQ,
		},
	};
}

void fx_wqe_buf(struct efa_io_tx_wqe_128 *w, const void *buf, uint32_t len,
		uint32_t lkey)
{
	struct efa_io_tx_buf_desc *b = &w->data.sgl[0];

	if ((w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK) != EFA_IO_SEND)
		b = &w->data.rdma_req.local_mem[0];
	*b = (struct efa_io_tx_buf_desc){
		.length = len,
		.lkey = lkey,
		.buf_addr_lo = (uint32_t)(uintptr_t)buf,
		.buf_addr_hi = (uint32_t)((uintptr_t)buf >> 32),
	};
	w->meta.length = 1;
}

void fx_wqe_inline(struct efa_io_tx_wqe_128 *w, const void *buf, uint16_t len)
{
	w->meta.ctrl1 |= EFA_IO_TX_META_DESC_INLINE_MSG;
	memcpy(w->data.inline_data, buf, len);
	w->meta.length = len;
}

static const struct sefa_cq *fx_sub(const struct sefa_qp *qp, bool recv,
				    unsigned int *sub)
{
	*sub = recv ? qp->recv_sub_cq : qp->send_sub_cq;
	return recv ? qp->recv_cq : qp->send_cq;
}

/*
 * The ring's entry @i of the sub-CQ a queue of @qp completes into; a QP's
 * SQ and RQ share it where the device has one sub-CQ per CQ.
 */
static const struct efa_io_rx_cdesc_ex *fx_ring(const struct sefa_cq *cq,
						unsigned int sub,
						unsigned int i)
{
	return (const void *)((const uint8_t *)cq->ring->addr +
			      ((size_t)sub * cq->depth + i % cq->depth) *
			      cq->entry_size);
}

static bool fx_is(const struct efa_io_rx_cdesc_ex *e, bool recv)
{
	unsigned int q = (e->base.common.flags &
			  EFA_IO_CDESC_COMMON_Q_TYPE_MASK) >>
			 EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT;

	return q == (recv ? EFA_IO_RECV_QUEUE : EFA_IO_SEND_QUEUE);
}

/* The completions of @qp's SQ (or RQ, @recv) in its CQ so far. */
unsigned int fx_ncqes(const struct sefa_qp *qp, bool recv)
{
	unsigned int sub, i, n = 0;
	const struct sefa_cq *cq = fx_sub(qp, recv, &sub);

	for (i = 0; i < cq->produced[sub]; i++)
		n += fx_is(fx_ring(cq, sub, i), recv);
	return n;
}

/* The @n-th completion of @qp's SQ (or RQ, @recv). */
const struct efa_io_rx_cdesc_ex *fx_cqe(const struct sefa_qp *qp, bool recv,
					unsigned int n)
{
	unsigned int sub, i;
	const struct sefa_cq *cq = fx_sub(qp, recv, &sub);

	for (i = 0; i < cq->produced[sub]; i++)
		if (fx_is(fx_ring(cq, sub, i), recv) && !n--)
			return fx_ring(cq, sub, i);
	ck_abort_msg("no completion %u of the %s queue", n, recv ? "receive" : "send");
	return NULL;
}

unsigned int fx_cqe_op(const struct efa_io_rx_cdesc_ex *e)
{
	return (e->base.common.flags & EFA_IO_CDESC_COMMON_OP_TYPE_MASK) >>
	       EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT;
}

struct sefa_pkt fx_req(const struct sefa_qp *from, const struct sefa_qp *to,
		       uint8_t op, uint64_t len)
{
	struct sefa_pkt pkt = {
		.op = op,
		.qpt = from->type,
		.sqpn = from->qpn,
		.dqpn = to->qpn,
		.qkey = to->qkey,
		.psn = from->req.sq_psn,
		.len = len,
	};

	memcpy(pkt.sgid, from->dev->gid, 16);
	memcpy(pkt.dgid, to->dev->gid, 16);
	return pkt;
}
