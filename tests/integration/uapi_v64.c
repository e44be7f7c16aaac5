// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The current efa kernel uapi on SoftEFA, through rdma-core v64's own
 * libibverbs and libefa (built by uapi_v64.sh against them, never against
 * this tree): the port's speed, QPs with a service level and with 128-byte
 * WQEs (max inline 64, and inline RDMA write up to the device's 80 bytes),
 * inline RDMA writes in a row with their bytes checked at the target, a
 * write with immediate to a QP that takes it unsolicited, and WQEs written
 * into the send queue by hand that claim more than their slot holds, which
 * must complete in error with the target untouched.
 *
 * Prints "name value" lines for the script to check; exits non-zero on
 * the first failure, saying what.
 */
#include <endian.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>

#define QKEY		0x11111111
#define BUF_LEN		65536
#define POLL_NS		(10ULL * 1000 * 1000 * 1000)
/* the WQE meta bits this test sets by hand (efa_io_defs.h) */
#define META_INLINE_MSG	0x20
#define WQE_META_LEN	32
#define WQE_REMOTE_LEN	32	/* remote_mem.length, after the meta */
#define WQE_RDMA_DATA	48	/* the local buffer, or inline bytes */

#define die(...) do { fprintf(stderr, "uapi_v64: " __VA_ARGS__); \
		      fputc('\n', stderr); exit(1); } while (0)

struct ctx {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cq;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t *buf;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* The next completion of @cq, within POLL_NS; its fields in @wc. */
static void poll_one(struct ibv_cq_ex *cq, struct ibv_wc *wc, bool *unsol)
{
	struct ibv_poll_cq_attr attr = {};
	uint64_t end = now_ns() + POLL_NS;
	int ret;

	while ((ret = ibv_start_poll(cq, &attr)) == ENOENT)
		if (now_ns() > end)
			die("no completion in 10 s");
	if (ret)
		die("ibv_start_poll: %s", strerror(ret));
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = cq->wr_id;
	wc->status = cq->status;
	wc->opcode = ibv_wc_read_opcode(cq);
	wc->vendor_err = ibv_wc_read_vendor_err(cq);
	wc->byte_len = ibv_wc_read_byte_len(cq);
	wc->wc_flags = ibv_wc_read_wc_flags(cq);
	if (wc->wc_flags & IBV_WC_WITH_IMM)
		wc->imm_data = ibv_wc_read_imm_data(cq);
	if (unsol)
		*unsol = efadv_wc_is_unsolicited(efadv_cq_from_ibv_cq_ex(cq));
	ibv_end_poll(cq);
}

static void expect_ok(struct ibv_cq_ex *cq, const char *what)
{
	struct ibv_wc wc;

	poll_one(cq, &wc, NULL);
	if (wc.status != IBV_WC_SUCCESS)
		die("%s: %s (vendor %u)", what, ibv_wc_status_str(wc.status),
		    wc.vendor_err);
}

static struct ibv_cq_ex *new_cq(struct ctx *c)
{
	struct ibv_cq_ex *cq = efadv_create_cq(c->ctx,
		&(struct ibv_cq_init_attr_ex){
			.cqe = 256,
			.wc_flags = IBV_WC_STANDARD_FLAGS,
		}, &(struct efadv_cq_init_attr){
			.wc_flags = EFADV_WC_EX_WITH_IS_UNSOLICITED,
		}, sizeof(struct efadv_cq_init_attr));

	if (!cq)
		die("CQ: %s", strerror(errno));
	return cq;
}

static struct ibv_qp *srd_qp(struct ctx *c, struct ibv_cq_ex *cq,
			     uint32_t max_inline, uint32_t flags, uint8_t sl)
{
	struct ibv_qp_init_attr_ex attr = {
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
		.pd = c->pd,
		.send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.qp_type = IBV_QPT_DRIVER,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1,
			 .max_inline_data = max_inline },
	};
	struct efadv_qp_init_attr efa = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
		.flags = flags,
		.sl = sl,
	};
	struct ibv_qp_attr m = { .qp_state = IBV_QPS_INIT, .port_num = 1,
				 .qkey = QKEY };
	struct ibv_qp *qp;

	qp = efadv_create_qp_ex(c->ctx, &attr, &efa, sizeof(efa));
	if (!qp)
		die("create QP (inline %u, flags %#x, sl %u): %s", max_inline,
		    flags, sl, strerror(errno));
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		die("INIT: %s", strerror(errno));
	m.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE))
		die("RTR: %s", strerror(errno));
	m.qp_state = IBV_QPS_RTS;
	m.sq_psn = 0;
	if (ibv_modify_qp(qp, &m, IBV_QP_STATE | IBV_QP_SQ_PSN))
		die("RTS: %s", strerror(errno));
	return qp;
}

static uint32_t wqe_size(struct ibv_qp *qp)
{
	struct efadv_wq_attr sq = {}, rq = {};
	int ret = efadv_query_qp_wqs(qp, &sq, &rq, sizeof(sq));

	if (ret)
		die("efadv_query_qp_wqs: %s", strerror(ret));
	return sq.entry_size;
}

/* Inline RDMA writes of every size to 80 in a row, each checked. */
static void inline_writes(struct ctx *c, struct ibv_qp *qp, uint32_t dqpn,
			  uint32_t max)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	uint8_t data[128];
	uint32_t len, off = 0, i;

	for (len = 1; len <= max; len++) {
		for (i = 0; i < len; i++)
			data[i] = (uint8_t)(len * 7 + i);
		memset(c->buf + 4096 + off, 0xee, len);
		ibv_wr_start(qpx);
		qpx->wr_id = len;
		qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
		ibv_wr_rdma_write(qpx, c->mr->rkey,
				  (uintptr_t)c->buf + 4096 + off);
		ibv_wr_set_inline_data(qpx, data, len);
		ibv_wr_set_ud_addr(qpx, c->ah, dqpn, QKEY);
		if (ibv_wr_complete(qpx))
			die("inline write of %u: post: %s", len,
			    strerror(errno));
		expect_ok(c->cq, "inline write");
		if (memcmp(c->buf + 4096 + off, data, len))
			die("inline write of %u bytes: wrong data at the target",
			    len);
		off += len;
	}
	printf("inline_writes %u\n", max);
}

/* A plain RDMA write, through the local buffer, after the inline ones. */
static void sge_write(struct ctx *c, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);

	memset(c->buf + 16384, 0x3c, 1000);
	memset(c->buf + 20480, 0, 1000);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, c->mr->rkey, (uintptr_t)c->buf + 20480);
	ibv_wr_set_sge(qpx, c->mr->lkey, (uintptr_t)c->buf + 16384, 1000);
	ibv_wr_set_ud_addr(qpx, c->ah, dqpn, QKEY);
	if (ibv_wr_complete(qpx))
		die("sge write: post: %s", strerror(errno));
	expect_ok(c->cq, "sge write");
	if (memcmp(c->buf + 20480, c->buf + 16384, 1000))
		die("sge write: wrong data at the target");
}

/* An inline SEND of 64 bytes, a 128-byte WQE's, received by @to. */
static void inline_send(struct ctx *c, struct ibv_qp *qp, struct ibv_qp *to)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct ibv_sge sge = { .addr = (uintptr_t)c->buf + 24576,
			       .length = 128, .lkey = c->mr->lkey };
	struct ibv_recv_wr rwr = { .wr_id = 77, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;
	uint8_t data[64];
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 64; i++)
		data[i] = (uint8_t)(200 - i);
	if (ibv_post_recv(to, &rwr, &bad))
		die("post recv: %s", strerror(errno));
	ibv_wr_start(qpx);
	qpx->wr_id = 2;
	qpx->wr_flags = IBV_SEND_SIGNALED | IBV_SEND_INLINE;
	ibv_wr_send(qpx);
	ibv_wr_set_inline_data(qpx, data, 64);
	ibv_wr_set_ud_addr(qpx, c->ah, to->qp_num, QKEY);
	if (ibv_wr_complete(qpx))
		die("inline send: post: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		poll_one(c->cq, &wc, NULL);
		if (wc.status != IBV_WC_SUCCESS)
			die("inline send: %s", ibv_wc_status_str(wc.status));
		if (wc.opcode == IBV_WC_RECV &&
		    (wc.wr_id != 77 || wc.byte_len != 64 ||
		     memcmp(c->buf + 24576, data, 64)))
			die("inline send: wrong receive");
	}
	printf("inline_send 64\n");
}

/* A write with immediate to @to, which has no receive posted. */
static void unsolicited(struct ctx *c, struct ibv_qp *qp, struct ibv_qp *to)
{
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	bool unsol = false, got_recv = false;
	struct ibv_wc wc;
	int i;

	memset(c->buf + 32768, 0x5a, 512);
	memset(c->buf + 36864, 0, 512);
	ibv_wr_start(qpx);
	qpx->wr_id = 3;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write_imm(qpx, c->mr->rkey, (uintptr_t)c->buf + 36864,
			      htobe32(0xfeed));
	ibv_wr_set_sge(qpx, c->mr->lkey, (uintptr_t)c->buf + 32768, 512);
	ibv_wr_set_ud_addr(qpx, c->ah, to->qp_num, QKEY);
	if (ibv_wr_complete(qpx))
		die("write with imm: post: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		poll_one(c->cq, &wc, &unsol);
		if (wc.status != IBV_WC_SUCCESS)
			die("write with imm: %s (vendor %u)",
			    ibv_wc_status_str(wc.status), wc.vendor_err);
		if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM)
			continue;
		got_recv = true;
		if (!unsol || wc.wr_id != 0 || wc.byte_len != 512 ||
		    !(wc.wc_flags & IBV_WC_WITH_IMM) ||
		    be32toh(wc.imm_data) != 0xfeed)
			die("write with imm: receive unsolicited %d wr_id %llu len %u imm %#x",
			    unsol, (unsigned long long)wc.wr_id, wc.byte_len,
			    be32toh(wc.imm_data));
	}
	if (!got_recv || memcmp(c->buf + 36864, c->buf + 32768, 512))
		die("write with imm: no receive completion, or wrong data");
	printf("unsolicited_write_imm ok\n");
}

/*
 * A WQE written by hand into the SQ of a fresh QP with a CQ of its own: a
 * copy of the one the provider wrote for a valid 8-byte RDMA write, turned
 * by @inline_len into an inline write of that many bytes.  The device must complete it in error, with
 * @want_vendor, and write nothing.
 */
static void claim_too_much(struct ctx *c, struct ibv_qp *qp,
			   struct ibv_cq_ex *cq, uint32_t dqpn,
			   uint16_t inline_len, uint32_t want_vendor)
{
	struct ibv_poll_cq_attr pattr = {};
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(qp);
	struct efadv_wq_attr sq = {}, rq = {};
	uint64_t end = now_ns() + POLL_NS;
	uint8_t wqe[128], *slot;
	uint8_t *dst = c->buf + 40960;
	struct ibv_wc wc;
	uint32_t n;
	int ret;

	ret = efadv_query_qp_wqs(qp, &sq, &rq, sizeof(sq));
	if (ret)
		die("efadv_query_qp_wqs: %s", strerror(ret));
	memset(dst, 0xee, 128);
	ibv_wr_start(qpx);
	qpx->wr_id = 4;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_write(qpx, c->mr->rkey, (uintptr_t)dst);
	ibv_wr_set_sge(qpx, c->mr->lkey, (uintptr_t)c->buf + 16384, 8);
	ibv_wr_set_ud_addr(qpx, c->ah, dqpn, QKEY);
	if (ibv_wr_complete(qpx))
		die("claim: post: %s", strerror(errno));
	expect_ok(cq, "claim: the valid write");
	memset(dst, 0xee, 128);

	memcpy(wqe, sq.buffer, sq.entry_size);
	wqe[2] |= META_INLINE_MSG;
	memcpy(wqe + 6, &inline_len, 2);
	n = inline_len;
	memcpy(wqe + WQE_REMOTE_LEN, &n, 4);
	memset(wqe + WQE_RDMA_DATA, 0x77, sq.entry_size - WQE_RDMA_DATA);
	slot = sq.buffer + sq.entry_size;
	memcpy(slot, wqe, sq.entry_size);
	__atomic_store_n(sq.doorbell, 2, __ATOMIC_RELEASE);

	/*
	 * Its completion, read but not ended: ibv_end_poll() would give the
	 * provider back a request id it never handed out.  The CQ, which
	 * stays locked, is not polled again.
	 */
	while ((ret = ibv_start_poll(cq, &pattr)) == ENOENT)
		if (now_ns() > end)
			die("claim: no completion in 10 s");
	if (ret)
		die("claim: ibv_start_poll: %s", strerror(ret));
	wc.status = cq->status;
	wc.vendor_err = ibv_wc_read_vendor_err(cq);
	if (wc.status == IBV_WC_SUCCESS || wc.vendor_err != want_vendor)
		die("WQE of %u-byte slot, inline write of %u: %s, vendor %u, not %u",
		    sq.entry_size, inline_len, ibv_wc_status_str(wc.status),
		    wc.vendor_err, want_vendor);
	for (n = 0; n < 128; n++)
		if (dst[n] != 0xee)
			die("refused WQE wrote the target");
	printf("refused_wqe %u %u %u\n", sq.entry_size, inline_len,
	       wc.vendor_err);
}

int main(int argc, char **argv)
{
	struct efadv_device_attr dattr = {};
	struct ibv_device **list;
	struct ibv_qp *q128, *qin64, *qsl, *qtarget, *q64, *qbad;
	struct ibv_ah_attr ah = { .port_num = 1, .is_global = 1 };
	struct ibv_cq_ex *cq64, *cqbad;
	struct ctx c = {};
	uint64_t speed;
	int i, n, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&n);
	for (i = 0; list && i < n; i++)
		if (argc < 2 || !strcmp(ibv_get_device_name(list[i]), argv[1]))
			break;
	if (!list || i == n)
		die("no device %s", argc > 1 ? argv[1] : "");
	c.ctx = ibv_open_device(list[i]);
	if (!c.ctx)
		die("open: %s", strerror(errno));

	ret = efadv_query_device(c.ctx, &dattr, sizeof(dattr));
	if (ret)
		die("efadv_query_device: %s", strerror(ret));
	printf("inline_buf_size %u\n", dattr.inline_buf_size);
	printf("inline_buf_size_ex %u\n", dattr.inline_buf_size_ex);
	printf("unsolicited_cap %d\n",
	       !!(dattr.device_caps & EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV));
	ret = ibv_query_port_speed(c.ctx, 1, &speed);
	if (ret)
		die("ibv_query_port_speed: %s", strerror(ret));
	printf("port_speed %llu\n", (unsigned long long)speed);
	ret = ibv_query_port_speed(c.ctx, 2, &speed);
	printf("port_speed_2 %s\n", ret ? strerror(ret) : "answered");

	c.pd = ibv_alloc_pd(c.ctx);
	c.buf = aligned_alloc(4096, BUF_LEN);
	c.cq = new_cq(&c);
	if (!c.pd || !c.buf)
		die("PD, buffer or CQ: %s", strerror(errno));
	memset(c.buf, 0, BUF_LEN);
	c.mr = ibv_reg_mr(c.pd, c.buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			  IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!c.mr || ibv_query_gid(c.ctx, 1, 0, &ah.grh.dgid))
		die("MR or GID: %s", strerror(errno));
	c.ah = ibv_create_ah(c.pd, &ah);
	if (!c.ah)
		die("AH: %s", strerror(errno));

	qtarget = srd_qp(&c, c.cq, 0, EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV, 0);
	q128 = srd_qp(&c, c.cq, dattr.inline_buf_size_ex,
		      EFADV_QP_FLAGS_INLINE_WRITE, 0);
	qin64 = srd_qp(&c, c.cq, 64, 0, 0);
	qsl = srd_qp(&c, c.cq, 0, 0, 5);
	/* each on a CQ of its own: see claim_too_much() */
	cq64 = new_cq(&c);
	q64 = srd_qp(&c, cq64, 0, 0, 0);
	cqbad = new_cq(&c);
	qbad = srd_qp(&c, cqbad, dattr.inline_buf_size_ex,
		      EFADV_QP_FLAGS_INLINE_WRITE, 0);
	printf("sl_qp ok\n");
	printf("wqe_size inline_write %u max_inline_64 %u plain %u\n",
	       wqe_size(q128), wqe_size(qin64), wqe_size(q64));

	inline_writes(&c, q128, qtarget->qp_num, dattr.inline_buf_size_ex);
	sge_write(&c, q128, qtarget->qp_num);
	sge_write(&c, q128, qtarget->qp_num);
	inline_send(&c, qin64, qsl);
	unsolicited(&c, q128, qtarget);
	/* an inline write in a 64-byte slot: an operation it cannot hold */
	claim_too_much(&c, q64, cq64, qtarget->qp_num, 16, 3);
	/* more inline bytes than a 128-byte slot holds: a bad length */
	claim_too_much(&c, qbad, cqbad, qtarget->qp_num, 81, 6);
	printf("done\n");
	return 0;
}
