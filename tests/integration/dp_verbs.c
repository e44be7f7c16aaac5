// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The data path through a provider and SoftEFA, in one process: two QPs on
 * the device talk to each other.  Payload must arrive intact, completions
 * must carry EFA's semantics, and every bad request must get its errno or
 * completion status while the device goes on serving.  Run under
 * "softefa exec"; links our libefa.so.1 for the efadv calls.
 */
#define _GNU_SOURCE
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>

#include "check_bytes.h"
#include "check_main.h"
#include "dp.h"

#define QKEY		0x11111111
#define BUF_SIZE	(1 << 20)
#define EFA_MTU		8928
/* A UD receive buffer begins with the GRH area: the payload follows. */
#define GRH_LEN		40
/* What a receive buffer holds before the device writes into it. */
#define MARK		0xa5
/* How long a completion may take, on a loaded machine too. */
#define WAIT_MS		20000

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	struct efadv_device_attr dv;
};

static struct env e;

static void env_open(void)
{
	e.ctx = dp_open_device();
	ck_assert_int_eq(ibv_query_gid(e.ctx, 1, 0, &e.gid), 0);
	ck_assert_int_eq(efadv_query_device(e.ctx, &e.dv, sizeof(e.dv)), 0);
	e.pd = ibv_alloc_pd(e.ctx);
	ck_assert_ptr_nonnull(e.pd);
	e.cq = ibv_create_cq(e.ctx, 256, NULL, NULL, 0);
	ck_assert_ptr_nonnull(e.cq);
	e.buf = aligned_alloc(4096, BUF_SIZE);
	ck_assert_ptr_nonnull(e.buf);
	memset(e.buf, 0, BUF_SIZE);
	e.mr = ibv_reg_mr(e.pd, e.buf, BUF_SIZE,
			  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(e.mr);
}

static void env_close(void)
{
	ck_assert_int_eq(ibv_dereg_mr(e.mr), 0);
	ck_assert_int_eq(ibv_destroy_cq(e.cq), 0);
	ck_assert_int_eq(ibv_dealloc_pd(e.pd), 0);
	ck_assert_int_eq(ibv_close_device(e.ctx), 0);
	free(e.buf);
}

static int to_rts(struct ibv_qp *qp, int rnr_retry)
{
	return dev_ud_to_rts(qp, QKEY, rnr_retry);
}

/* A UD or SRD QP with the extended post API, in RTS. */
static struct ibv_qp *make_qp(bool srd, struct ibv_cq *cq, int rnr_retry)
{
	struct ibv_qp_init_attr_ex a = {
		.qp_type = srd ? IBV_QPT_DRIVER : IBV_QPT_UD,
		.send_cq = cq, .recv_cq = cq, .pd = e.pd,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
	};
	struct efadv_qp_init_attr dv = { .driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD };
	struct ibv_qp *qp;

	if (srd && (e.dv.device_caps & EFADV_DEVICE_ATTR_CAPS_RDMA_READ))
		a.send_ops_flags |= IBV_QP_EX_WITH_RDMA_READ;
	qp = srd ? efadv_create_qp_ex(e.ctx, &a, &dv, sizeof(dv)) :
		   ibv_create_qp_ex(e.ctx, &a);
	ck_assert_msg(qp, "create %s QP: %s", srd ? "SRD" : "UD",
		      strerror(errno));
	ck_assert_int_eq(to_rts(qp, rnr_retry), 0);
	return qp;
}

/* A QP of @type with a few WRs of one SGE, on the shared CQ. */
static struct ibv_qp_init_attr small_qp_attr(enum ibv_qp_type type)
{
	return (struct ibv_qp_init_attr){
		.send_cq = e.cq, .recv_cq = e.cq, .qp_type = type,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
}

/* An AH to this device, where both QPs of a test are. */
static struct ibv_ah *make_ah(void)
{
	struct ibv_ah *ah = dev_create_ah(e.pd, &e.gid);

	ck_assert_msg(ah, "create AH: %s", strerror(errno));
	return ah;
}

/*
 * The end of most tests: the two QPs and the AH between them go, unchecked,
 * before env_close() destroys the CQ they used.
 */
static void destroy_pair(struct ibv_qp *a, struct ibv_qp *b, struct ibv_ah *ah)
{
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	ibv_destroy_ah(ah);
}

static uint16_t ahn_of(struct ibv_ah *ah)
{
	struct efadv_ah_attr attr;

	ck_assert_int_eq(efadv_query_ah(ah, &attr, sizeof(attr)), 0);
	return attr.ahn;
}

static void post_recv(struct ibv_qp *qp, uint64_t off, uint32_t len,
		      uint64_t id)
{
	struct ibv_sge sge = { (uintptr_t)e.buf + off, len, e.mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	ck_assert_int_eq(ibv_post_recv(qp, &wr, &bad), 0);
}

static int post_send(struct ibv_qp *qp, struct ibv_ah *ah, uint32_t rqpn,
		     uint64_t addr, uint32_t len, uint32_t lkey, uint64_t id,
		     bool imm)
{
	struct ibv_sge sge = { addr, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = &sge, .num_sge = 1,
		.opcode = imm ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(0xabcd1234),
		.wr.ud = { .ah = ah, .remote_qpn = rqpn, .remote_qkey = QKEY },
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/* Nothing arrives within @ms of the clock. */
static void poll_none(struct ibv_cq *cq, int ms)
{
	struct wait w = wait_start(ms);
	struct ibv_wc wc;

	do
		ck_assert_int_eq(ibv_poll_cq(cq, 1, &wc), 0);
	while (wait_more(&w, 1000));
}

static void fill(uint64_t off, uint32_t len, uint8_t seed)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		e.buf[off + i] = (uint8_t)(seed + i * 7);
}

/*
 * Send from qp[0] to qp[1]; check data, byte_len, src_qp, slid, imm.  A
 * UD payload lands after the GRH area, which byte_len counts; SRD has none.
 */
static void exchange(bool srd, uint32_t len, bool imm)
{
	struct ibv_qp *a = make_qp(srd, e.cq, -1), *b = make_qp(srd, e.cq, -1);
	struct ibv_ah *ah = make_ah();
	uint32_t grh = srd ? 0 : GRH_LEN;
	uint64_t rbuf = BUF_SIZE / 2;
	uint16_t ahn = ahn_of(ah);
	struct ibv_wc wc[2];
	int i;

	fill(0, len, len);
	memset(e.buf + rbuf, MARK, grh + len + 16);
	post_recv(b, rbuf, grh + len + 16, 77);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, len,
				   e.mr->lkey, 55, imm), 0);
	wc[0] = dp_poll_one(e.cq, WAIT_MS);
	wc[1] = dp_poll_one(e.cq, WAIT_MS);
	for (i = 0; i < 2; i++) {
		ck_assert_msg(wc[i].status == IBV_WC_SUCCESS, "status %s",
			      ibv_wc_status_str(wc[i].status));
		if (wc[i].wr_id == 55) {
			ck_assert_int_eq(wc[i].opcode, IBV_WC_SEND);
			ck_assert_int_eq(wc[i].qp_num, a->qp_num);
			continue;
		}
		ck_assert_int_eq(wc[i].wr_id, 77);
		ck_assert_int_eq(wc[i].opcode, IBV_WC_RECV);
		ck_assert_int_eq(wc[i].qp_num, b->qp_num);
		ck_assert_int_eq(wc[i].byte_len, grh + len);
		ck_assert_int_eq(wc[i].src_qp, a->qp_num);
		/* The receiver's AH for the sender: the same PD has one. */
		ck_assert_int_eq(wc[i].slid, ahn);
		/* EFA has no GRH to report */
		ck_assert_int_eq(wc[i].wc_flags & ~IBV_WC_WITH_IMM, 0);
		ck_assert_int_eq(!!(wc[i].wc_flags & IBV_WC_WITH_IMM), imm);
		if (imm)
			ck_assert_int_eq(be32toh(wc[i].imm_data), 0xabcd1234);
	}
	sefa_assert_all(e.buf, rbuf, rbuf + grh, MARK, "written");
	sefa_assert_bytes(e.buf + rbuf + grh, e.buf, len);
	if (grh)
		ck_assert_msg(memcmp(e.buf, e.buf + rbuf, len),
			      "the payload is at offset 0");
	sefa_assert_all(e.buf, rbuf + grh + len, rbuf + grh + len + 16, MARK,
			"written");

	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
}

START_TEST(ud_sizes)
{
	static const uint32_t sizes[] = { 1, 32, 33, 1000, 4096, EFA_MTU };

	exchange(false, sizes[_i], _i & 1);
}
END_TEST

START_TEST(srd_sizes)
{
	static const uint32_t sizes[] = { 1, 32, 33, 1000, 4096, EFA_MTU };

	exchange(true, sizes[_i], !(_i & 1));
}
END_TEST

/* No AH on the receiving side for the sender: slid is 0xffff. */
START_TEST(unknown_sender_ah)
{
	struct ibv_pd *pd2 = ibv_alloc_pd(e.ctx);
	struct ibv_qp *a, *b;
	struct ibv_mr *mr2;
	struct ibv_wc wc;
	struct ibv_qp_init_attr ia = small_qp_attr(IBV_QPT_UD);
	struct ibv_ah *ah = make_ah();

	ck_assert_ptr_nonnull(pd2);
	a = make_qp(false, e.cq, -1);
	b = ibv_create_qp(pd2, &ia);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(to_rts(b, -1), 0);
	mr2 = ibv_reg_mr(pd2, e.buf + BUF_SIZE / 2, 4096, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr2);
	{
		struct ibv_sge sge = { (uintptr_t)e.buf + BUF_SIZE / 2, 64,
				       mr2->lkey };
		struct ibv_recv_wr wr = { .wr_id = 9, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		ck_assert_int_eq(ibv_post_recv(b, &wr, &bad), 0);
	}
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, 16,
				   e.mr->lkey, 1, false), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	if (wc.wr_id != 9)
		wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.slid, 0xffff);
	ck_assert_int_eq(wc.src_qp, a->qp_num);
	destroy_pair(a, b, ah);
	ibv_dereg_mr(mr2);
	ibv_dealloc_pd(pd2);
}
END_TEST

/*
 * The send @id of @len bytes to @b and the receive it took both succeed, in
 * either order; a UD receive counts its GRH area too.  Returns the
 * receive's completion.
 */
static struct ibv_wc both_done(struct ibv_qp *b, uint64_t id, uint32_t len)
{
	struct ibv_wc wc, rwc = {};
	int i;

	for (i = 0; i < 2; i++) {
		wc = dp_poll_one(e.cq, WAIT_MS);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS, "wr %llu: %s",
			      (unsigned long long)wc.wr_id,
			      ibv_wc_status_str(wc.status));
		if (wc.wr_id != id)
			rwc = wc;
	}
	ck_assert_int_eq(rwc.qp_num, b->qp_num);
	ck_assert_int_eq(rwc.byte_len,
			 len + (b->qp_type == IBV_QPT_UD ? GRH_LEN : 0));
	return rwc;
}

#define DELIVER_ID	0xd0

/* @len bytes from the head of the buffer, @a to @b through @ah. */
static struct ibv_wc deliver(struct ibv_qp *a, struct ibv_qp *b,
			     struct ibv_ah *ah, uint32_t len)
{
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, len,
				   e.mr->lkey, DELIVER_ID, false), 0);
	return both_done(b, DELIVER_ID, len);
}

/* One message through @ah: the receive names the sender by @ahn. */
static void send_via(struct ibv_qp *a, struct ibv_qp *b, struct ibv_ah *ah,
		     uint16_t ahn)
{
	post_recv(b, BUF_SIZE / 2, GRH_LEN + 64, 2);
	ck_assert_int_eq(deliver(a, b, ah, 64).slid, ahn);
}

/*
 * Two AHs of one PD to one address, as libfabric makes them: two objects,
 * each with its handle, and one device AH number, which receive
 * completions report.  Either goes on working once the other is gone.
 * Another PD has a number of its own.
 */
START_TEST(ah_shared)
{
	struct ibv_qp *a = make_qp(_i, e.cq, -1), *b = make_qp(_i, e.cq, -1);
	struct ibv_ah *ah1 = make_ah(), *ah2 = make_ah(), *other;
	struct ibv_pd *pd2 = ibv_alloc_pd(e.ctx);
	uint16_t ahn = ahn_of(ah1);

	ck_assert_uint_ne(ah1->handle, ah2->handle);
	ck_assert_uint_eq(ahn_of(ah2), ahn);
	ck_assert_uint_ne(ahn, 0xffff);
	ck_assert_ptr_nonnull(pd2);
	other = dev_create_ah(pd2, &e.gid);
	ck_assert_ptr_nonnull(other);
	ck_assert_uint_ne(ahn_of(other), ahn);

	send_via(a, b, ah1, ahn);
	send_via(a, b, ah2, ahn);
	ck_assert_int_eq(ibv_destroy_ah(ah1), 0);
	send_via(a, b, ah2, ahn);
	ck_assert_int_eq(ibv_destroy_ah(ah2), 0);
	ck_assert_int_eq(ibv_destroy_ah(other), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_qp(b), 0);
}
END_TEST

/* An address of no device here: fd00::@n. */
static union ibv_gid far_gid(unsigned int n)
{
	union ibv_gid g = { .raw = { 0xfd } };

	g.raw[14] = n >> 8;
	g.raw[15] = n;
	return g;
}

/*
 * The device has max_ah AH numbers, one per (PD, address): once they are
 * all taken a new address is ENOMEM, while more AHs to an address it has
 * need none.  Destroying every AH of an address frees its number.
 */
START_TEST(ah_table_full)
{
	struct ibv_device_attr da;
	struct ibv_ah **ah, *again, *last;
	union ibv_gid g;
	int i, n;

	ck_assert_int_eq(ibv_query_device(e.ctx, &da), 0);
	n = da.max_ah;
	ah = calloc(n, sizeof(*ah));
	ck_assert_ptr_nonnull(ah);
	for (i = 0; i < n; i++) {
		g = far_gid(i);
		ah[i] = dev_create_ah(e.pd, &g);
		ck_assert_msg(ah[i], "AH %d of %d: %s", i, n, strerror(errno));
	}
	g = far_gid(n);
	errno = 0;
	ck_assert_ptr_null(dev_create_ah(e.pd, &g));
	ck_assert_int_eq(errno, ENOMEM);

	g = far_gid(7);
	again = dev_create_ah(e.pd, &g);
	ck_assert_msg(again, "a second AH to a known address: %s",
		      strerror(errno));
	ck_assert_uint_eq(ahn_of(again), ahn_of(ah[7]));
	ck_assert_int_eq(ibv_destroy_ah(ah[7]), 0);
	g = far_gid(n);
	errno = 0;
	ck_assert_ptr_null(dev_create_ah(e.pd, &g));
	ck_assert_int_eq(errno, ENOMEM);
	ck_assert_int_eq(ibv_destroy_ah(again), 0);
	last = dev_create_ah(e.pd, &g);
	ck_assert_msg(last, "AH into a freed number: %s", strerror(errno));

	ck_assert_int_eq(ibv_destroy_ah(last), 0);
	for (i = 0; i < n; i++)
		if (i != 7)
			ck_assert_int_eq(ibv_destroy_ah(ah[i]), 0);
	free(ah);
}
END_TEST

START_TEST(post_not_rts)
{
	struct ibv_qp_init_attr ia = small_qp_attr(IBV_QPT_UD);
	struct ibv_qp *qp = ibv_create_qp(e.pd, &ia);
	struct ibv_ah *ah = make_ah();
	struct ibv_sge sge = { (uintptr_t)e.buf, 8, e.mr->lkey };
	struct ibv_recv_wr rwr = { .sg_list = &sge, .num_sge = 1 }, *rbad;

	ck_assert_ptr_nonnull(qp);
	/* RESET: neither sends nor receives */
	ck_assert_int_eq(post_send(qp, ah, qp->qp_num, (uintptr_t)e.buf, 8,
				   e.mr->lkey, 1, false), EINVAL);
	ck_assert_int_eq(ibv_post_recv(qp, &rwr, &rbad), EINVAL);
	ck_assert_ptr_eq(rbad, &rwr);
	ibv_destroy_qp(qp);
	ibv_destroy_ah(ah);
}
END_TEST

/* EFA has no RC; the extended profile offers it (see rc_verbs). */
START_TEST(rc_refused)
{
	struct ibv_qp_init_attr ia = small_qp_attr(IBV_QPT_RC);
	const char *profile = getenv("SEFA_PROFILE");

	if (profile && !strcmp(profile, "extended"))
		return;
	errno = 0;
	ck_assert_ptr_null(ibv_create_qp(e.pd, &ia));
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

/* A send whose key is wrong completes in error; nothing is copied. */
START_TEST(bad_lkey)
{
	struct ibv_qp *a = make_qp(true, e.cq, -1), *b = make_qp(true, e.cq, -1);
	struct ibv_ah *ah = make_ah();
	struct ibv_wc wc;

	memset(e.buf + BUF_SIZE / 2, 0x5a, 64);
	post_recv(b, BUF_SIZE / 2, 64, 2);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, 64,
				   e.mr->lkey ^ 0x100, 1, false), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_LOC_PROT_ERR);
	ck_assert_int_eq(wc.vendor_err, 5);
	poll_none(e.cq, 20);
	ck_assert_int_eq(e.buf[BUF_SIZE / 2], 0x5a);

	/* out of the region's bounds */
	ck_assert_int_eq(post_send(a, ah, b->qp_num,
				   (uintptr_t)e.buf + BUF_SIZE - 8, 64,
				   e.mr->lkey, 3, false), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.status, IBV_WC_LOC_PROT_ERR);

	/* and the QP still works */
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, 64,
				   e.mr->lkey, 4, false), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	sefa_assert_bytes(e.buf + BUF_SIZE / 2, e.buf, 64);
	destroy_pair(a, b, ah);
}
END_TEST

/* The next completion: @wr_id's, failed on its own memory's key. */
static void expect_own_fault(uint64_t wr_id)
{
	struct ibv_wc wc = dp_poll_one(e.cq, WAIT_MS);

	ck_assert_int_eq(wc.wr_id, wr_id);
	ck_assert_msg(wc.status == IBV_WC_LOC_PROT_ERR, "%llu: %s",
		      (unsigned long long)wr_id, ibv_wc_status_str(wc.status));
	ck_assert_int_eq(wc.vendor_err, 5);
}

/*
 * A region whose pages the process unmapped after registering it: the
 * sender's own memory fails.  EFA reads a sender's buffers at the sender,
 * so the error is the sender's, on its key (LOCAL_ERROR_INVALID_LKEY),
 * and the receiver sees nothing: no completion, no abort, its receive
 * still posted for the next message.  An RDMA read into such a buffer is
 * the reader's local error too, not the target's bad address.  _i: SRD,
 * UD.
 */
START_TEST(sender_fault)
{
	bool srd = !_i;
	struct ibv_qp *a = make_qp(srd, e.cq, -1), *b = make_qp(srd, e.cq, -1);
	uint32_t grh = srd ? 0 : GRH_LEN, rbuf = BUF_SIZE / 2;
	struct ibv_ah *ah = make_ah();
	long page = sysconf(_SC_PAGESIZE);
	struct ibv_mr *mr;
	struct ibv_wc wc;
	uint8_t *gone;

	gone = mmap(NULL, page, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(gone, MAP_FAILED);
	memset(gone, 0x77, page);
	mr = ibv_reg_mr(e.pd, gone, page, IBV_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	ck_assert_int_eq(munmap(gone, page), 0);

	memset(e.buf + rbuf, MARK, grh + 64);
	post_recv(b, rbuf, grh + 64, 2);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)gone, 64,
				   mr->lkey, 1, false), 0);
	expect_own_fault(1);
	poll_none(e.cq, 20);

	/* the receive is still there, for a message that can be read */
	fill(0, 64, 9);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, 64,
				   e.mr->lkey, 3, false), 0);
	for (int i = 0; i < 2; i++) {
		wc = dp_poll_one(e.cq, WAIT_MS);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS, "%llu: %s",
			      (unsigned long long)wc.wr_id,
			      ibv_wc_status_str(wc.status));
		ck_assert(wc.wr_id == 2 || wc.wr_id == 3);
	}
	sefa_assert_bytes(e.buf + rbuf + grh, e.buf, 64);

	if (srd && (e.dv.device_caps & EFADV_DEVICE_ATTR_CAPS_RDMA_READ)) {
		struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(a);

		ibv_wr_start(qpx);
		qpx->wr_id = 4;
		qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_rdma_read(qpx, e.mr->rkey, (uintptr_t)e.buf);
		ibv_wr_set_ud_addr(qpx, ah, b->qp_num, QKEY);
		ibv_wr_set_sge(qpx, mr->lkey, (uintptr_t)gone, 64);
		ck_assert_int_eq(ibv_wr_complete(qpx), 0);
		expect_own_fault(4);
	}
	poll_none(e.cq, 20);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	destroy_pair(a, b, ah);
}
END_TEST

START_TEST(ud_too_long)
{
	struct ibv_qp *a = make_qp(false, e.cq, -1), *b = make_qp(false, e.cq, -1);
	struct ibv_ah *ah = make_ah();
	struct ibv_wc wc;

	post_recv(b, BUF_SIZE / 2, 16384, 2);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf,
				   EFA_MTU + 1, e.mr->lkey, 1, false), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_LOC_LEN_ERR);
	ck_assert_int_eq(wc.vendor_err, 6);
	poll_none(e.cq, 20);
	destroy_pair(a, b, ah);
}
END_TEST

/* An AH destroyed while a work request still names it. */
START_TEST(destroyed_ah)
{
	struct ibv_qp *a = make_qp(true, e.cq, -1), *b = make_qp(true, e.cq, -1);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(a);
	struct ibv_ah *ah = make_ah();
	struct ibv_wc wc;

	post_recv(b, BUF_SIZE / 2, 64, 2);
	ibv_wr_start(qpx);
	qpx->wr_id = 1;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(qpx);
	ibv_wr_set_ud_addr(qpx, ah, b->qp_num, QKEY);
	ibv_wr_set_sge(qpx, e.mr->lkey, (uintptr_t)e.buf, 64);
	ck_assert_int_eq(ibv_destroy_ah(ah), 0);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_LOC_QP_OP_ERR);
	ck_assert_int_eq(wc.vendor_err, 4);
	poll_none(e.cq, 20);
	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
}
END_TEST

/*
 * What the device counted for QP @qpn: receiver-not-ready answers, the
 * first try's and each retry's.  From "softefa stats", which dp.sh names.
 */
static unsigned long rnr_answers(uint32_t qpn)
{
	const char *cli = getenv("SEFA_CLI");
	unsigned long n = ULONG_MAX;
	char cmd[4096], line[512], key[32];
	FILE *f;

	ck_assert_ptr_nonnull(cli);
	snprintf(cmd, sizeof(cmd), "'%s' stats", cli);
	snprintf(key, sizeof(key), " %#x srd ", qpn);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		const char *v = strstr(line, " rnr_retries ");

		if (!strncmp(line, "qp ", 3) && strstr(line, key) && v)
			n = strtoul(v + strlen(" rnr_retries "), NULL, 10);
	}
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_msg(n != ULONG_MAX, "no counters for QP %#x", qpn);
	return n;
}

/*
 * SRD: nobody posted a receive.  With rnr_retry N the device retries N
 * times, after waits of 1, 8 and 64 ms (softefad(8)), then completes the
 * send with the RNR error; the QP lives on.
 */
START_TEST(rnr_exhausted)
{
	static const int retries[] = { 0, 2, 3 };
	static const long window_ms[] = { 0, 1 + 8, 1 + 8 + 64 };
	struct ibv_qp *a = make_qp(true, e.cq, retries[_i]);
	struct ibv_qp *b = make_qp(true, e.cq, -1);
	struct ibv_ah *ah = make_ah();
	struct wait t0 = wait_start(0);
	struct ibv_wc wc;

	fill(0, 256, 3);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, 256,
				   e.mr->lkey, 1, false), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_ge(wait_ms(&t0), window_ms[_i]);
	ck_assert_int_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IBV_WC_RNR_RETRY_EXC_ERR);
	ck_assert_int_eq(wc.vendor_err, 10);
	ck_assert_uint_eq(rnr_answers(a->qp_num), retries[_i] + 1);

	post_recv(b, BUF_SIZE / 2, 256, 2);
	deliver(a, b, ah, 256);
	sefa_assert_bytes(e.buf + BUF_SIZE / 2, e.buf, 256);
	destroy_pair(a, b, ah);
}
END_TEST

/*
 * SRD: a receive posted while the device is still retrying takes the
 * message, once.  rnr_retry 7 keeps the send retrying however slow the
 * machine is; once the device has met the empty receive queue, two
 * receives go up.  The first gets the payload and the send succeeds; no
 * retry delivers it again, so the second stays posted until the next
 * message.
 */
START_TEST(rnr_receive_in_window)
{
	struct ibv_qp *a = make_qp(true, e.cq, 7), *b = make_qp(true, e.cq, -1);
	struct ibv_ah *ah = make_ah();
	uint64_t r1 = BUF_SIZE / 2, r2 = BUF_SIZE / 2 + 1024;

	fill(0, 1000, 11);
	memset(e.buf + r1, 0, 2048);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, 1000,
				   e.mr->lkey, 1, false), 0);
	CK_WAIT_UNTIL(WAIT_MS, rnr_answers(a->qp_num),
		      "the send to meet the empty receive queue");
	post_recv(b, r1, 1024, 2);
	post_recv(b, r2, 1024, 3);
	ck_assert_int_eq(both_done(b, 1, 1000).wr_id, 2);
	sefa_assert_bytes(e.buf + r1, e.buf, 1000);
	/* several retry intervals: nothing is delivered twice */
	poll_none(e.cq, 300);
	ck_assert_int_eq(e.buf[r2], 0);

	fill(0, 1000, 12);
	ck_assert_int_eq(deliver(a, b, ah, 1000).wr_id, 3);
	sefa_assert_bytes(e.buf + r2, e.buf, 1000);
	destroy_pair(a, b, ah);
}
END_TEST

/* SRD retries forever by default: a late receive still gets the data. */
START_TEST(rnr_late_receive)
{
	struct ibv_qp *a = make_qp(true, e.cq, -1), *b = make_qp(true, e.cq, -1);
	struct ibv_ah *ah = make_ah();

	fill(0, 128, 9);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, 128,
				   e.mr->lkey, 1, false), 0);
	poll_none(e.cq, 30);
	post_recv(b, BUF_SIZE / 2, 128, 2);
	ck_assert_int_eq(dp_poll_one(e.cq, WAIT_MS).status, IBV_WC_SUCCESS);
	ck_assert_int_eq(dp_poll_one(e.cq, WAIT_MS).status, IBV_WC_SUCCESS);
	sefa_assert_bytes(e.buf + BUF_SIZE / 2, e.buf, 128);
	destroy_pair(a, b, ah);
}
END_TEST

/* A wrong Q_Key: UD drops the packet; SRD tells the sender. */
START_TEST(wrong_qkey)
{
	bool srd = _i;
	struct ibv_qp *a = make_qp(srd, e.cq, -1), *b = make_qp(srd, e.cq, -1);
	struct ibv_ah *ah = make_ah();
	struct ibv_sge sge = { (uintptr_t)e.buf, 16, e.mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = 1, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		.wr.ud = { .ah = ah, .remote_qpn = b->qp_num,
			   .remote_qkey = QKEY + 1 },
	}, *bad;
	struct ibv_wc wc;

	post_recv(b, BUF_SIZE / 2, 64, 2);
	ck_assert_int_eq(ibv_post_send(a, &wr, &bad), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.wr_id, 1);
	if (srd) {
		ck_assert_int_eq(wc.status, IBV_WC_REM_INV_RD_REQ_ERR);
		ck_assert_int_eq(wc.vendor_err, 9);
	} else {
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	}
	/* nothing reached the receiver */
	poll_none(e.cq, 20);
	destroy_pair(a, b, ah);
}
END_TEST

/* UD: no receive buffer means the packet is dropped, the sender is fine. */
START_TEST(ud_drop)
{
	struct ibv_qp *a = make_qp(false, e.cq, -1), *b = make_qp(false, e.cq, -1);
	struct ibv_ah *ah = make_ah();
	struct ibv_wc wc;

	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf, 64,
				   e.mr->lkey, 1, false), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	poll_none(e.cq, 20);
	destroy_pair(a, b, ah);
}
END_TEST

START_TEST(rdma_read)
{
	struct ibv_qp *a = make_qp(true, e.cq, -1), *b = make_qp(true, e.cq, -1);
	struct ibv_qp_ex *qpx = ibv_qp_to_qp_ex(a);
	struct ibv_ah *ah = make_ah();
	uint32_t len = 200000;
	struct ibv_wc wc;

	if (!(e.dv.device_caps & EFADV_DEVICE_ATTR_CAPS_RDMA_READ))
		return;
	fill(0, len, 42);
	memset(e.buf + BUF_SIZE / 2, 0, len);
	ibv_wr_start(qpx);
	qpx->wr_id = 5;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qpx, e.mr->rkey, (uintptr_t)e.buf);
	ibv_wr_set_ud_addr(qpx, ah, b->qp_num, QKEY);
	ibv_wr_set_sge(qpx, e.mr->lkey, (uintptr_t)e.buf + BUF_SIZE / 2, len);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.wr_id, 5);
	/* EFA reports RDMA read completions as sends. */
	ck_assert_int_eq(wc.opcode, IBV_WC_SEND);
	sefa_assert_bytes(e.buf + BUF_SIZE / 2, e.buf, len);

	/* a wrong rkey: the remote refuses, nothing lands */
	memset(e.buf + BUF_SIZE / 2, 0, 64);
	ibv_wr_start(qpx);
	qpx->wr_id = 6;
	qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_rdma_read(qpx, e.mr->rkey ^ 0x200, (uintptr_t)e.buf);
	ibv_wr_set_ud_addr(qpx, ah, b->qp_num, QKEY);
	ibv_wr_set_sge(qpx, e.mr->lkey, (uintptr_t)e.buf + BUF_SIZE / 2, 64);
	ck_assert_int_eq(ibv_wr_complete(qpx), 0);
	wc = dp_poll_one(e.cq, WAIT_MS);
	ck_assert_int_eq(wc.status, IBV_WC_REM_ACCESS_ERR);
	ck_assert_int_eq(wc.vendor_err, 7);
	ck_assert_int_eq(e.buf[BUF_SIZE / 2], 0);
	destroy_pair(a, b, ah);
}
END_TEST

START_TEST(query_mr)
{
	struct efadv_mr_attr attr;
	uint8_t big[24];
	const char *profile = getenv("SEFA_PROFILE");
	int ret;

	ck_assert_int_eq(efadv_query_mr(e.mr, &attr, 14), EINVAL);
	ret = efadv_query_mr(e.mr, &attr, sizeof(attr));
	if (getenv("SEFA_ABI_WRITE")) {
		/* no ioctl framework: the provider passes the errno on */
		ck_assert_int_eq(ret, ENOTTY);
		return;
	}
	ck_assert_int_eq(ret, 0);
	ck_assert_int_eq(attr.comp_mask, 0);
	if (profile && !strcmp(profile, "extended"))
		ck_assert_int_eq(attr.ic_id_validity, 7);
	else
		ck_assert_int_eq(attr.ic_id_validity, 0);
	/* a longer struct: the tail is zeroed */
	memset(big, 0xaa, sizeof(big));
	ck_assert_int_eq(efadv_query_mr(e.mr, (void *)big, sizeof(big)), 0);
	ck_assert_int_eq(big[16], 0);
	ck_assert_int_eq(big[23], 0);
}
END_TEST

/*
 * A file mapped PROT_READ, as fabtests' test_efa_mmap maps one: the device
 * may read it, so a region without write rights registers and carries
 * the file's bytes; one that lets the device write cannot pin it for
 * writing (ib_umem_get()), EFAULT, and neither can any region of pages
 * the process may not read.
 */
START_TEST(reg_mr_read_only)
{
	static const int writable[] = {
		IBV_ACCESS_LOCAL_WRITE,
		IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ,
	};
	struct ibv_qp *a, *b;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	struct ibv_wc wc;
	char path[] = "/tmp/dp_verbs_ro.XXXXXX";
	uint8_t *ro, *none;
	unsigned int i;
	int fd;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	unlink(path);
	ck_assert_int_eq(ftruncate(fd, 2 * 4096), 0);
	ck_assert_int_eq(pwrite(fd, "read-only", 9, 4096), 9);
	ro = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, fd, 0);
	ck_assert_ptr_ne(ro, MAP_FAILED);
	close(fd);

	for (i = 0; i < sizeof(writable) / sizeof(writable[0]); i++) {
		errno = 0;
		ck_assert_ptr_null(ibv_reg_mr(e.pd, ro, 2 * 4096, writable[i]));
		ck_assert_int_eq(errno, EFAULT);
	}
	if (e.dv.device_caps & EFADV_DEVICE_ATTR_CAPS_RDMA_READ) {
		mr = ibv_reg_mr(e.pd, ro, 2 * 4096, IBV_ACCESS_REMOTE_READ);
		ck_assert_ptr_nonnull(mr);
		ck_assert_int_eq(ibv_dereg_mr(mr), 0);
	}
	mr = ibv_reg_mr(e.pd, ro, 2 * 4096, 0);
	ck_assert_ptr_nonnull(mr);

	/* the device reads it: the file's bytes arrive */
	a = make_qp(false, e.cq, -1);
	b = make_qp(false, e.cq, -1);
	ah = make_ah();
	memset(e.buf, MARK, GRH_LEN + 16);
	post_recv(b, 0, GRH_LEN + 16, 1);
	ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)ro + 4096, 9,
				   mr->lkey, 2, false), 0);
	for (i = 0; i < 2; i++) {
		wc = dp_poll_one(e.cq, WAIT_MS);
		ck_assert_msg(wc.status == IBV_WC_SUCCESS, "status %s",
			      ibv_wc_status_str(wc.status));
	}
	ck_assert_mem_eq(e.buf + GRH_LEN, "read-only", 9);
	destroy_pair(a, b, ah);
	ck_assert_int_eq(ibv_dereg_mr(mr), 0);

	/* pages it may not read at all, whatever the access */
	none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(none, MAP_FAILED);
	errno = 0;
	ck_assert_ptr_null(ibv_reg_mr(e.pd, none, 4096, 0));
	ck_assert_int_eq(errno, EFAULT);
	munmap(none, 4096);
	munmap(ro, 2 * 4096);
}
END_TEST

/*
 * libibverbs waits, in ibv_destroy_cq(), for the application to ack every
 * event the kernel says it read.  An event queued but never read must not
 * count, or the destroy would hang; one read and acked must.
 */
START_TEST(cq_events_on_destroy)
{
	struct ibv_comp_channel *ch = ibv_create_comp_channel(e.ctx);
	struct ibv_cq *cq, *ev_cq;
	struct ibv_qp *a, *b;
	struct ibv_ah *ah = make_ah();
	struct pollfd pfd;
	void *ev_ctx;
	int i;

	ck_assert_ptr_nonnull(ch);
	cq = ibv_create_cq(e.ctx, 16, NULL, ch, 0);
	ck_assert_ptr_nonnull(cq);
	a = make_qp(false, cq, -1);
	b = make_qp(false, e.cq, -1);
	pfd = (struct pollfd){ .fd = ch->fd, .events = POLLIN };
	for (i = 0; i < 2; i++) {
		struct ibv_wc wc;

		ck_assert_int_eq(ibv_req_notify_cq(cq, 0), 0);
		ck_assert_int_eq(post_send(a, ah, b->qp_num, (uintptr_t)e.buf,
					   8, e.mr->lkey, i, false), 0);
		ck_assert_msg(poll(&pfd, 1, WAIT_MS) == 1,
			      "gave up waiting %d ms for the CQ's event",
			      WAIT_MS);
		if (i == 0) {
			/* the first event is read and acked */
			ck_assert_int_eq(ibv_get_cq_event(ch, &ev_cq, &ev_ctx), 0);
			ck_assert_ptr_eq(ev_cq, cq);
			ibv_ack_cq_events(cq, 1);
		}
		wc = dp_poll_one(cq, WAIT_MS);
		ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	}
	/* the second stays unread */
	ck_assert_int_eq(ibv_destroy_qp(a), 0);
	ck_assert_int_eq(ibv_destroy_cq(cq), 0);
	ck_assert_int_eq(ibv_destroy_comp_channel(ch), 0);
	ibv_destroy_qp(b);
	ibv_destroy_ah(ah);
}
END_TEST

static Suite *dp_suite(void)
{
	Suite *s = suite_create("data path");
	TCase *t = tcase_create("verbs");

	tcase_add_checked_fixture(t, env_open, env_close);
	tcase_set_timeout(t, 20);
	tcase_add_loop_test(t, ud_sizes, 0, 6);
	tcase_add_loop_test(t, srd_sizes, 0, 6);
	tcase_add_test(t, unknown_sender_ah);
	tcase_add_loop_test(t, ah_shared, 0, 2);
	tcase_add_test(t, ah_table_full);
	tcase_add_test(t, post_not_rts);
	tcase_add_test(t, rc_refused);
	tcase_add_test(t, bad_lkey);
	tcase_add_loop_test(t, sender_fault, 0, 2);
	tcase_add_test(t, ud_too_long);
	tcase_add_test(t, destroyed_ah);
	tcase_add_loop_test(t, rnr_exhausted, 0, 3);
	tcase_add_test(t, rnr_receive_in_window);
	tcase_add_test(t, rnr_late_receive);
	tcase_add_test(t, ud_drop);
	tcase_add_loop_test(t, wrong_qkey, 0, 2);
	tcase_add_test(t, rdma_read);
	tcase_add_test(t, query_mr);
	tcase_add_test(t, reg_mr_read_only);
	tcase_add_test(t, cq_events_on_destroy);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(dp_suite)
