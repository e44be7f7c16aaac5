// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Indirect memory regions through the experimental verbs, as a program
 * written against MLNX_OFED's verbs_exp.h uses them: an empty region over
 * three registered regions with gaps between them, filled by a UMR work
 * request, then written and read through by a peer in another process,
 * across entry boundaries, byte for byte; invalidated; refilled with
 * another layout.  And every rule with its errno or completion status.
 *
 * This process owns the indirect region.  The peer is this program run
 * again with --peer: it owns an RC QP and a buffer, and does the RDMA the
 * test asks for over a socket, answering with the completion status.
 *
 * UMR_EXPECT=unsupported runs only the checks for a device without
 * indirect regions (the efa profile, or a kernel without the method).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/verbs_exp.h>

#include "check_bytes.h"
#include "dev.h"
#include "peer.h"

#define BUF_SIZE	(1 << 20)
#define REMOTE_ALL	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)
/* An indirect region's addresses are its own: none of them is mapped. */
#define BASE		0x7e5700000000ULL
#define GAP_BYTE	0xee
/* How long a completion may take. */
#define WAIT_MS		20000

/* ---- what both processes do ---- */

struct node {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;		/* all of buf */
	struct ibv_qp *qp;
	uint8_t *buf;
	uint16_t lid;
};

static int node_open(struct node *n)
{
	struct ibv_port_attr port;

	n->ctx = dev_open(NULL, false);
	if (!n->ctx || ibv_query_port(n->ctx, 1, &port))
		return ENODEV;
	n->lid = port.lid;
	n->pd = ibv_alloc_pd(n->ctx);
	n->cq = ibv_create_cq(n->ctx, 256, NULL, NULL, 0);
	n->buf = aligned_alloc(4096, BUF_SIZE);
	if (!n->pd || !n->cq || !n->buf)
		return ENOMEM;
	memset(n->buf, GAP_BYTE, BUF_SIZE);
	n->mr = ibv_reg_mr(n->pd, n->buf, BUF_SIZE, REMOTE_ALL);
	return n->mr ? 0 : errno;
}

static void node_close(struct node *n)
{
	if (n->qp)
		ibv_destroy_qp(n->qp);
	ibv_dereg_mr(n->mr);
	ibv_destroy_cq(n->cq);
	ibv_dealloc_pd(n->pd);
	ibv_close_device(n->ctx);
	free(n->buf);
}

/* RESET to RTS, connected to QP dqpn of the port with dlid. */
static int qp_connect(struct ibv_qp *qp, uint32_t dqpn, uint16_t dlid)
{
	struct ibv_ah_attr av = { .dlid = dlid, .port_num = 1 };
	int err;

	err = dev_rc_to_init(qp, REMOTE_ALL);
	if (!err)
		err = dev_rc_to_rtr(qp, dqpn, &av);
	return err ? err : dev_rc_to_rts(qp, 7);
}

/* One RDMA operation of one local buffer; the completion's status. */
static int rdma(struct ibv_qp *qp, struct ibv_cq *cq, enum ibv_wr_opcode op,
		uint64_t laddr, uint32_t lkey, uint32_t len, uint64_t raddr,
		uint32_t rkey)
{
	struct ibv_sge sge = { laddr, len, lkey };
	struct ibv_send_wr wr = {
		.wr_id = 77, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = raddr, .rkey = rkey },
	}, *bad;
	int err = ibv_post_send(qp, &wr, &bad);

	return err ? -err : (int)dev_wait_wc(cq, WAIT_MS).status;
}

/* The peer's buffer holds this pattern where the test filled it. */
static uint8_t pattern(uint8_t seed, uint64_t x)
{
	return (uint8_t)(seed + x * 7 + (x >> 9));
}

/* ---- the peer ---- */

enum { P_CONNECT = 1, P_WRITE, P_READ, P_FILL, P_GET, P_QUIT };

struct msg {
	uint32_t op;
	int32_t status;
	uint32_t qpn;
	uint32_t rkey;
	uint64_t addr;			/* remote address, or the peer's buf */
	uint64_t off;			/* in the peer's buffer */
	uint32_t len;
	uint16_t lid;
	uint8_t seed;
};

static int peer_main(int sock)
{
	struct node n = {};
	struct msg m;
	int err = node_open(&n);

	if (err) {
		fprintf(stderr, "peer: %s\n", strerror(err));
		return 1;
	}
	while (read(sock, &m, sizeof(m)) == sizeof(m)) {
		struct msg r = { .op = m.op };
		enum ibv_wr_opcode op = m.op == P_WRITE ? IBV_WR_RDMA_WRITE :
							  IBV_WR_RDMA_READ;

		switch (m.op) {
		case P_CONNECT:
			if (n.qp)
				ibv_destroy_qp(n.qp);
			n.qp = ibv_create_qp(n.pd, &(struct ibv_qp_init_attr){
				.send_cq = n.cq, .recv_cq = n.cq,
				.qp_type = IBV_QPT_RC,
				.cap = { .max_send_wr = 16, .max_recv_wr = 16,
					 .max_send_sge = 1, .max_recv_sge = 1 },
			});
			r.status = n.qp ? qp_connect(n.qp, m.qpn, m.lid) : errno;
			r.qpn = n.qp ? n.qp->qp_num : 0;
			r.addr = (uintptr_t)n.buf;
			r.rkey = n.mr->rkey;
			r.lid = n.lid;
			break;
		case P_WRITE:
		case P_READ:
			r.status = rdma(n.qp, n.cq, op, (uintptr_t)n.buf + m.off,
					n.mr->lkey, m.len, m.addr, m.rkey);
			break;
		case P_FILL:
			for (uint32_t i = 0; i < m.len; i++)
				n.buf[m.off + i] = pattern(m.seed, m.off + i);
			break;
		case P_GET:
			if (write(sock, &r, sizeof(r)) != sizeof(r) ||
			    write(sock, n.buf + m.off, m.len) != m.len)
				return 1;
			continue;
		case P_QUIT:
			node_close(&n);
			return write(sock, &r, sizeof(r)) != sizeof(r);
		}
		if (write(sock, &r, sizeof(r)) != sizeof(r))
			return 1;
	}
	return 1;
}

/* ---- the test side: this process owns the indirect regions ---- */

static struct node a;
static uint8_t *shadow;		/* what a.buf must hold */
static int peer_sock = -1;
static pid_t peer_pid;
static struct msg peer;		/* the peer's answer to P_CONNECT */

static struct msg peer_call(struct msg m)
{
	struct msg r;

	peer_exchange(peer_sock, &m, &r, sizeof(m));
	return r;
}

static void setup(void)
{
	peer_sock = peer_spawn("umr_verbs", &peer_pid);
	ck_assert_int_eq(node_open(&a), 0);
	shadow = malloc(BUF_SIZE);
	ck_assert_ptr_nonnull(shadow);
	memcpy(shadow, a.buf, BUF_SIZE);
}

static void teardown(void)
{
	peer_call((struct msg){ .op = P_QUIT });
	peer_reap(peer_sock, peer_pid);
	node_close(&a);
	free(shadow);
}

static struct ibv_qp *umr_qp(uint32_t klms)
{
	struct ibv_exp_qp_init_attr ia = {
		.send_cq = a.cq, .recv_cq = a.cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 16,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_EXP_QP_INIT_ATTR_PD |
			     IBV_EXP_QP_INIT_ATTR_CREATE_FLAGS |
			     IBV_EXP_QP_INIT_ATTR_MAX_INL_KLMS,
		.pd = a.pd,
		.exp_create_flags = IBV_EXP_QP_CREATE_UMR,
		.max_inl_send_klms = klms,
	};
	struct ibv_qp *qp = ibv_exp_create_qp(a.ctx, &ia);

	ck_assert_msg(qp, "ibv_exp_create_qp: %s", strerror(errno));
	ck_assert_uint_ge(ia.cap.max_send_wr, 64);
	return qp;
}

/* A new QP pair: after an error completion a QP is in error. */
static void connect_peer(void)
{
	if (a.qp)
		ck_assert_int_eq(ibv_destroy_qp(a.qp), 0);
	a.qp = umr_qp(4);
	peer = peer_call((struct msg){ .op = P_CONNECT,
				       .qpn = a.qp->qp_num, .lid = a.lid });
	ck_assert_int_eq(peer.status, 0);
	ck_assert_int_eq(qp_connect(a.qp, peer.qpn, peer.lid), 0);
}

static int peer_rdma(uint32_t op, uint64_t raddr, uint32_t rkey,
		     uint64_t off, uint32_t len)
{
	return peer_call((struct msg){ .op = op, .addr = raddr, .rkey = rkey,
				       .off = off, .len = len }).status;
}

static void peer_fill(uint64_t off, uint32_t len, uint8_t seed)
{
	peer_call((struct msg){ .op = P_FILL, .off = off, .len = len,
				.seed = seed });
}

static void peer_get(uint64_t off, uint32_t len, uint8_t *out)
{
	struct msg m = { .op = P_GET, .off = off, .len = len };

	peer_call(m);
	ck_assert_int_eq(read(peer_sock, out, len), len);
}

static struct ibv_mr *indirect_mr(uint32_t max, uint64_t access)
{
	struct ibv_exp_create_mr_in in = {
		.pd = a.pd,
		.attr = { .max_klm_list_size = max,
			  .create_flags = IBV_EXP_MR_INDIRECT_KLMS,
			  .exp_access_flags = access },
	};
	struct ibv_mr *mr = ibv_exp_create_mr(&in);

	ck_assert_msg(mr, "ibv_exp_create_mr: %s", strerror(errno));
	ck_assert_ptr_eq(mr->pd, a.pd);
	ck_assert_ptr_null(mr->addr);
	ck_assert_uint_eq(mr->length, 0);
	return mr;
}

static struct ibv_exp_send_wr umr_wr(struct ibv_mr *imr,
				     const struct ibv_exp_mem_region *list,
				     uint32_t n, uint64_t access)
{
	struct ibv_exp_send_wr wr = {
		.wr_id = 0x1111,
		.exp_opcode = list ? IBV_EXP_WR_UMR_FILL :
				     IBV_EXP_WR_UMR_INVALIDATE,
		.exp_send_flags = IBV_EXP_SEND_SIGNALED | IBV_EXP_SEND_INLINE,
	};

	wr.ext_op.umr.umr_type = IBV_EXP_UMR_MR_LIST;
	wr.ext_op.umr.exp_access = access;
	wr.ext_op.umr.modified_mr = imr;
	wr.ext_op.umr.base_addr = BASE;
	wr.ext_op.umr.num_mrs = n;
	wr.ext_op.umr.mem_list.mem_reg_list = (struct ibv_exp_mem_region *)list;
	return wr;
}

/* The errno of posting wr alone; bad_wr must name it on failure. */
static int post_exp(struct ibv_exp_send_wr *wr)
{
	struct ibv_exp_send_wr *bad = NULL;
	int err = ibv_exp_post_send(a.qp, wr, &bad);

	if (err)
		ck_assert_ptr_eq(bad, wr);
	return err;
}

static struct ibv_exp_wc exp_wait(void)
{
	struct wait w = wait_start(WAIT_MS);
	struct ibv_exp_wc wc;
	int n;

	for (;;) {
		n = ibv_exp_poll_cq(a.cq, 1, &wc, sizeof(wc));
		ck_assert_int_ge(n, 0);
		if (n)
			return wc;
		ck_assert_msg(wait_more(&w, 0),
			      "gave up waiting %ld ms for a completion",
			      wait_ms(&w));
	}
}

/* Post a UMR WR and see it complete with status st. */
static void umr(struct ibv_exp_send_wr wr, enum ibv_wc_status st)
{
	struct ibv_exp_wc wc;

	ck_assert_int_eq(post_exp(&wr), 0);
	wc = exp_wait();
	ck_assert_msg(wc.status == st, "UMR: %s, expected %s",
		      ibv_wc_status_str(wc.status), ibv_wc_status_str(st));
	ck_assert_int_eq(wc.exp_opcode, IBV_EXP_WC_UMR);
	ck_assert_uint_eq(wc.wr_id, 0x1111);
}

static uint64_t region_len(const struct ibv_exp_mem_region *l, uint32_t n)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += l[i].length;
	return sum;
}

/* Where offset off of the region lies in this process's memory. */
static uint8_t *region_at(const struct ibv_exp_mem_region *l, uint32_t n,
			  uint64_t off)
{
	for (uint32_t i = 0; i < n; i++) {
		if (off < l[i].length)
			return (uint8_t *)(uintptr_t)l[i].base_addr + off;
		off -= l[i].length;
	}
	ck_abort_msg("offset beyond the region");
	return NULL;
}

/* The shadow of a.buf, as if the region's [off, off+len) took src. */
static void shadow_put(const struct ibv_exp_mem_region *l, uint32_t n,
		       uint64_t off, uint32_t len, const uint8_t *src)
{
	for (uint32_t i = 0; i < len; i++)
		shadow[region_at(l, n, off + i) - a.buf] = src[i];
}

/* The owner's buffer holds what the shadow says. */
static void expect_buf(void)
{
	sefa_assert_bytes(a.buf, shadow, BUF_SIZE);
}

/* The peer writes len bytes of pattern seed at region offset off. */
static void peer_writes(const struct ibv_exp_mem_region *l, uint32_t n,
			struct ibv_mr *imr, uint64_t off, uint32_t len,
			uint8_t seed)
{
	uint8_t *src = malloc(len);

	peer_fill(0, len, seed);
	for (uint32_t i = 0; i < len; i++)
		src[i] = pattern(seed, i);
	ck_assert_int_eq(peer_rdma(P_WRITE, BASE + off, imr->rkey, 0, len),
			 IBV_WC_SUCCESS);
	shadow_put(l, n, off, len, src);
	expect_buf();
	free(src);
}

/* The peer reads the region's [off, off+len) and gets what is there. */
static void peer_reads(const struct ibv_exp_mem_region *l, uint32_t n,
		       struct ibv_mr *imr, uint64_t off, uint32_t len)
{
	uint8_t *got = malloc(len);

	ck_assert_int_eq(peer_rdma(P_READ, BASE + off, imr->rkey, 0x80000, len),
			 IBV_WC_SUCCESS);
	peer_get(0x80000, len, got);
	for (uint32_t i = 0; i < len; i++)
		ck_assert_msg(got[i] == *region_at(l, n, off + i),
			      "read byte %u of [%llu, +%u)", i,
			      (unsigned long long)off, len);
	free(got);
}

/* New bytes in the entries, so that reads see something written here. */
static void scribble(const struct ibv_exp_mem_region *l, uint32_t n,
		     uint8_t seed)
{
	uint64_t len = region_len(l, n);

	for (uint64_t i = 0; i < len; i++)
		*region_at(l, n, i) = (uint8_t)(seed ^ i ^ (i >> 8));
	memcpy(shadow, a.buf, BUF_SIZE);
}

/* The owner's three regions, with gaps between them and around them. */
static struct ibv_mr *mr3[3];

static void reg3(void)
{
	static const size_t at[3] = { 0x1000, 0x20000, 0x50000 };
	static const size_t len[3] = { 8192, 8192, 4096 };

	for (int i = 0; i < 3; i++) {
		mr3[i] = ibv_reg_mr(a.pd, a.buf + at[i], len[i], REMOTE_ALL);
		ck_assert_ptr_nonnull(mr3[i]);
	}
}

static void dereg3(void)
{
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(ibv_dereg_mr(mr3[i]), 0);
}

START_TEST(query_device)
{
	struct ibv_exp_device_attr attr;
	struct ibv_device_attr base;

	memset(&attr, 0x5a, sizeof(attr));
	attr.comp_mask = IBV_EXP_DEVICE_ATTR_UMR |
			 IBV_EXP_DEVICE_ATTR_EXP_CAP_FLAGS |
			 IBV_EXP_DEVICE_ATTR_ODP;
	ck_assert_int_eq(ibv_exp_query_device(a.ctx, &attr), 0);
	ck_assert_int_eq(ibv_query_device(a.ctx, &base), 0);
	ck_assert_int_eq(attr.comp_mask, IBV_EXP_DEVICE_ATTR_UMR |
					 IBV_EXP_DEVICE_ATTR_EXP_CAP_FLAGS);
	ck_assert_int_eq(attr.vendor_part_id, base.vendor_part_id);
	ck_assert_int_eq(attr.max_qp, base.max_qp);
	ck_assert_int_eq(attr.phys_port_cnt, base.phys_port_cnt);
	ck_assert(attr.exp_device_cap_flags & IBV_EXP_DEVICE_UMR);
	ck_assert_uint_eq(attr.umr_caps.max_klm_list_size, 256);
	ck_assert_uint_eq(attr.umr_caps.max_send_wqe_inline_klms, 16);
	ck_assert_uint_eq(attr.umr_caps.max_umr_recursion_depth, 1);
	ck_assert_uint_eq(attr.umr_caps.max_umr_stride_dimension, 0);
}
END_TEST

/*
 * The whole life of a region: used before a fill, filled, written and read
 * through by the peer whole and across entry boundaries, used locally,
 * invalidated, refilled with another layout in the same post as a write
 * that must see it, freed.
 */
START_TEST(fill_write_read_refill)
{
	struct ibv_exp_mem_region one[3], two[2];
	struct ibv_exp_send_wr wr[2];
	struct ibv_exp_wc wc;
	struct ibv_sge sge;
	struct ibv_mr *imr;
	uint8_t *got;
	uint64_t len;

	reg3();
	one[0] = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x1000 + 100,
					      mr3[0], 4000 };
	one[1] = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x20000,
					      mr3[1], 7001 };
	one[2] = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x50000 + 3,
					      mr3[2], 3000 };
	two[0] = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x50000,
					      mr3[2], 4096 };
	two[1] = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x1000,
					      mr3[0], 8192 };
	imr = indirect_mr(8, REMOTE_ALL);
	ck_assert_uint_eq(imr->lkey, imr->rkey);
	connect_peer();

	/* Before any fill: nothing is copied either way. */
	peer_fill(0, 64, 9);
	ck_assert_int_eq(peer_rdma(P_WRITE, BASE, imr->rkey, 0, 64),
			 IBV_WC_REM_ACCESS_ERR);
	expect_buf();
	connect_peer();
	ck_assert_int_eq(rdma(a.qp, a.cq, IBV_WR_RDMA_WRITE, BASE, imr->lkey,
			      64, peer.addr + 0x40000, peer.rkey),
			 IBV_WC_LOC_PROT_ERR);
	connect_peer();

	umr(umr_wr(imr, one, 3, REMOTE_ALL), IBV_WC_SUCCESS);
	len = region_len(one, 3);
	peer_writes(one, 3, imr, 0, len, 1);
	peer_writes(one, 3, imr, 3990, 30, 2);			/* 0 -> 1 */
	peer_writes(one, 3, imr, 4000 + 7001 - 10, 20, 3);	/* 1 -> 2 */
	peer_writes(one, 3, imr, 3999, 7003, 4);		/* 0 -> 1 -> 2 */
	scribble(one, 3, 5);
	peer_reads(one, 3, imr, 0, len);
	peer_reads(one, 3, imr, 3990, 7030);
	peer_reads(one, 3, imr, len - 1, 1);

	/* This process's own use of the key, spanning two entries. */
	ck_assert_int_eq(rdma(a.qp, a.cq, IBV_WR_RDMA_WRITE, BASE + 3000,
			      imr->lkey, 5000, peer.addr + 0x30000, peer.rkey),
			 IBV_WC_SUCCESS);
	got = malloc(5000);
	peer_get(0x30000, 5000, got);
	for (int i = 0; i < 5000; i++)
		ck_assert_int_eq(got[i], *region_at(one, 3, 3000 + i));

	/* Beyond the region's end, by one byte. */
	ck_assert_int_eq(peer_rdma(P_WRITE, BASE + len - 8, imr->rkey, 0, 9),
			 IBV_WC_REM_ACCESS_ERR);
	expect_buf();
	connect_peer();

	umr(umr_wr(imr, NULL, 0, 0), IBV_WC_SUCCESS);
	ck_assert_int_eq(peer_rdma(P_WRITE, BASE, imr->rkey, 0, 64),
			 IBV_WC_REM_ACCESS_ERR);
	expect_buf();
	connect_peer();
	ck_assert_int_eq(peer_rdma(P_READ, BASE, imr->rkey, 0, 64),
			 IBV_WC_REM_ACCESS_ERR);
	connect_peer();

	/*
	 * Refill, and in the same post a write through the key that must see
	 * the new layout; the fill's completion through ibv_poll_cq().
	 */
	scribble(two, 2, 6);
	wr[0] = umr_wr(imr, two, 2, REMOTE_ALL);
	wr[0].next = &wr[1];
	sge = (struct ibv_sge){ BASE + 4000, 300, imr->lkey };
	wr[1] = (struct ibv_exp_send_wr){
		.wr_id = 0x2222, .sg_list = &sge, .num_sge = 1,
		.exp_opcode = IBV_EXP_WR_RDMA_WRITE,
		.exp_send_flags = IBV_EXP_SEND_SIGNALED,
		.wr.rdma = { .remote_addr = peer.addr + 0x30000,
			     .rkey = peer.rkey },
	};
	ck_assert_int_eq(post_exp(wr), 0);
	{
		struct ibv_wc w = dev_wait_wc(a.cq, WAIT_MS);

		ck_assert_int_eq(w.status, IBV_WC_SUCCESS);
		ck_assert_int_eq(w.opcode, IBV_WC_DRIVER1);
		ck_assert_uint_eq(w.wr_id, 0x1111);
	}
	wc = exp_wait();
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.exp_opcode, IBV_EXP_WC_RDMA_WRITE);
	ck_assert_uint_eq(wc.wr_id, 0x2222);
	peer_get(0x30000, 300, got);
	for (int i = 0; i < 300; i++)
		ck_assert_int_eq(got[i], *region_at(two, 2, 4000 + i));
	free(got);

	len = region_len(two, 2);
	peer_writes(two, 2, imr, 0, len, 7);
	peer_writes(two, 2, imr, 4090, 12, 8);
	scribble(two, 2, 9);
	peer_reads(two, 2, imr, 0, len);

	ck_assert_int_eq(ibv_dereg_mr(imr), 0);
	dereg3();
}
END_TEST

/*
 * The rights of an access through the region: its own (create and fill
 * access both) and those of every entry it touches.
 */
START_TEST(rights)
{
	struct ibv_exp_mem_region l[2];
	struct ibv_mr *ro, *imr, *tmp;

	reg3();
	ro = ibv_reg_mr(a.pd, a.buf + 0x60000, 4096,
			IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(ro);
	l[0] = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x1000, mr3[0], 100 };
	l[1] = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x60000, ro, 1000 };
	connect_peer();

	/* created without remote write: a fill cannot grant it */
	imr = indirect_mr(4, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	umr(umr_wr(imr, l, 1, REMOTE_ALL), IBV_WC_SUCCESS);
	peer_fill(0, 64, 1);
	ck_assert_int_eq(peer_rdma(P_WRITE, BASE, imr->rkey, 0, 64),
			 IBV_WC_REM_ACCESS_ERR);
	expect_buf();
	connect_peer();
	peer_reads(l, 1, imr, 0, 100);
	ck_assert_int_eq(ibv_dereg_mr(imr), 0);

	/* an entry without remote write: only the others take writes */
	imr = indirect_mr(4, REMOTE_ALL);
	umr(umr_wr(imr, l, 2, REMOTE_ALL), IBV_WC_SUCCESS);
	peer_writes(l, 2, imr, 0, 100, 2);
	ck_assert_int_eq(peer_rdma(P_WRITE, BASE + 50, imr->rkey, 0, 100),
			 IBV_WC_REM_ACCESS_ERR);
	expect_buf();
	connect_peer();
	peer_reads(l, 2, imr, 0, 1100);

	/* a fill without remote read */
	umr(umr_wr(imr, l, 1, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE),
	    IBV_WC_SUCCESS);
	ck_assert_int_eq(peer_rdma(P_READ, BASE, imr->rkey, 0, 10),
			 IBV_WC_REM_ACCESS_ERR);
	connect_peer();
	peer_writes(l, 1, imr, 0, 100, 3);

	/* an entry deregistered after the fill */
	tmp = ibv_reg_mr(a.pd, a.buf + 0x70000, 4096, REMOTE_ALL);
	ck_assert_ptr_nonnull(tmp);
	l[1] = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x70000, tmp, 4096 };
	umr(umr_wr(imr, l, 2, REMOTE_ALL), IBV_WC_SUCCESS);
	peer_writes(l, 2, imr, 0, 4196, 4);
	ck_assert_int_eq(ibv_dereg_mr(tmp), 0);
	ck_assert_int_eq(peer_rdma(P_WRITE, BASE + 90, imr->rkey, 0, 20),
			 IBV_WC_REM_ACCESS_ERR);
	expect_buf();

	ck_assert_int_eq(ibv_dereg_mr(imr), 0);
	ck_assert_int_eq(ibv_dereg_mr(ro), 0);
	dereg3();
}
END_TEST

static struct ibv_mr *create_mr_errno(uint32_t max, uint32_t flags,
				      uint64_t access, uint32_t comp_mask,
				      int err)
{
	struct ibv_exp_create_mr_in in = {
		.pd = a.pd,
		.attr = { .max_klm_list_size = max, .create_flags = flags,
			  .exp_access_flags = access },
		.comp_mask = comp_mask,
	};
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_exp_create_mr(&in);
	ck_assert_ptr_null(mr);
	ck_assert_msg(errno == err, "errno %d, expected %d", errno, err);
	return mr;
}

START_TEST(create_rules)
{
	const uint32_t klms = IBV_EXP_MR_INDIRECT_KLMS;
	struct ibv_exp_qp_init_attr ia;
	struct ibv_exp_create_mr_in in = {};

	create_mr_errno(4, klms, IBV_ACCESS_REMOTE_WRITE, 0, EINVAL);
	create_mr_errno(4, klms, IBV_ACCESS_REMOTE_ATOMIC, 0, EINVAL);
	create_mr_errno(4, klms, IBV_ACCESS_REMOTE_READ |
				 IBV_ACCESS_REMOTE_WRITE, 0, EINVAL);
	create_mr_errno(4, klms, REMOTE_ALL, 1, EINVAL);
	create_mr_errno(0, klms, REMOTE_ALL, 0, EINVAL);
	create_mr_errno(257, klms, REMOTE_ALL, 0, EINVAL);
	create_mr_errno(4, 0, REMOTE_ALL, 0, EINVAL);
	create_mr_errno(4, klms | IBV_EXP_MR_SIGNATURE_EN, REMOTE_ALL, 0,
			EOPNOTSUPP);
	create_mr_errno(4, klms, IBV_EXP_ACCESS_ON_DEMAND, 0, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_exp_create_mr(&in));
	ck_assert_int_eq(errno, EINVAL);
	/* a remote read-only region is fine */
	ck_assert_int_eq(ibv_dereg_mr(indirect_mr(256, IBV_ACCESS_REMOTE_READ)),
			 0);

	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = a.cq;
	ia.cap = (struct ibv_qp_cap){ 8, 8, 1, 1, 0 };
	ia.pd = a.pd;
	ia.qp_type = IBV_QPT_RC;
	ia.comp_mask = IBV_EXP_QP_INIT_ATTR_PD |
		       IBV_EXP_QP_INIT_ATTR_CREATE_FLAGS;
	ia.exp_create_flags = IBV_EXP_QP_CREATE_UMR;
	ck_assert_ptr_null(ibv_exp_create_qp(a.ctx, &ia));	/* no KLMs */
	ck_assert_int_eq(errno, EINVAL);
	ia.comp_mask |= IBV_EXP_QP_INIT_ATTR_MAX_INL_KLMS;
	ia.max_inl_send_klms = 17;
	ck_assert_ptr_null(ibv_exp_create_qp(a.ctx, &ia));
	ck_assert_int_eq(errno, EINVAL);
	ia.max_inl_send_klms = 16;
	ia.qp_type = IBV_QPT_UD;
	ck_assert_ptr_null(ibv_exp_create_qp(a.ctx, &ia));
	ck_assert_int_eq(errno, EINVAL);
	ia.qp_type = IBV_QPT_RC;
	ia.exp_create_flags = 0;				/* KLMs, no UMR */
	ck_assert_ptr_null(ibv_exp_create_qp(a.ctx, &ia));
	ck_assert_int_eq(errno, EINVAL);
	ia.exp_create_flags = IBV_EXP_QP_CREATE_CROSS_CHANNEL;
	ck_assert_ptr_null(ibv_exp_create_qp(a.ctx, &ia));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ia.exp_create_flags = IBV_EXP_QP_CREATE_UMR;
	ia.comp_mask |= IBV_EXP_QP_INIT_ATTR_XRCD;
	ck_assert_ptr_null(ibv_exp_create_qp(a.ctx, &ia));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ia.comp_mask &= ~IBV_EXP_QP_INIT_ATTR_PD & ~IBV_EXP_QP_INIT_ATTR_XRCD;
	ck_assert_ptr_null(ibv_exp_create_qp(a.ctx, &ia));
	ck_assert_int_eq(errno, EINVAL);
	ia.comp_mask |= IBV_EXP_QP_INIT_ATTR_PD;
	a.qp = ibv_exp_create_qp(a.ctx, &ia);
	ck_assert_ptr_nonnull(a.qp);
}
END_TEST

/* Refused at post, with bad_wr naming the WR, and nothing posted. */
START_TEST(post_rules)
{
	struct ibv_exp_mem_region l[5], other;
	struct ibv_exp_send_wr wr;
	struct ibv_pd *pd2;
	struct ibv_mr *imr, *small, *mr2;
	struct ibv_qp *qp;

	reg3();
	pd2 = ibv_alloc_pd(a.ctx);
	ck_assert_ptr_nonnull(pd2);
	mr2 = ibv_reg_mr(pd2, a.buf + 0x90000, 4096, REMOTE_ALL);
	ck_assert_ptr_nonnull(mr2);
	for (int i = 0; i < 5; i++)
		l[i] = (struct ibv_exp_mem_region){
			(uintptr_t)a.buf + 0x20000 + i * 100, mr3[1], 100 };
	imr = indirect_mr(8, REMOTE_ALL);
	small = indirect_mr(2, REMOTE_ALL);
	connect_peer();

	wr = umr_wr(small, l, 3, REMOTE_ALL);		/* over the region's 2 */
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	wr = umr_wr(imr, l, 5, REMOTE_ALL);		/* over the QP's 4 */
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	wr = umr_wr(imr, l, 0, REMOTE_ALL);
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	other = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x90000, mr2, 64 };
	wr = umr_wr(imr, &other, 1, REMOTE_ALL);	/* another PD */
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	other = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x1000 + 8000,
					     mr3[0], 193 };	/* past its end */
	wr = umr_wr(imr, &other, 1, REMOTE_ALL);
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	other = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x1000 - 1,
					     mr3[0], 16 };	/* before it */
	wr = umr_wr(imr, &other, 1, REMOTE_ALL);
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	other = (struct ibv_exp_mem_region){ (uintptr_t)a.buf + 0x1000,
					     mr3[0], 0 };
	wr = umr_wr(imr, &other, 1, REMOTE_ALL);
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	other = (struct ibv_exp_mem_region){ BASE, small, 16 };	/* nested */
	wr = umr_wr(imr, &other, 1, REMOTE_ALL);
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	wr = umr_wr(imr, l, 1, IBV_ACCESS_REMOTE_WRITE);
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	wr = umr_wr(mr3[0], l, 1, REMOTE_ALL);		/* not indirect */
	ck_assert_int_eq(post_exp(&wr), EINVAL);
	wr = umr_wr(imr, l, 1, REMOTE_ALL);
	wr.exp_send_flags = IBV_EXP_SEND_SIGNALED;	/* not inline */
	ck_assert_int_eq(post_exp(&wr), EOPNOTSUPP);
	wr = umr_wr(imr, l, 1, REMOTE_ALL);
	wr.ext_op.umr.umr_type = IBV_EXP_UMR_REPEAT;
	ck_assert_int_eq(post_exp(&wr), EOPNOTSUPP);

	/* a region of another PD is not this QP's to fill */
	{
		struct ibv_exp_create_mr_in in = {
			.pd = pd2,
			.attr = { 4, IBV_EXP_MR_INDIRECT_KLMS, REMOTE_ALL },
		};
		struct ibv_mr *imr2 = ibv_exp_create_mr(&in);

		ck_assert_ptr_nonnull(imr2);
		wr = umr_wr(imr2, NULL, 0, 0);
		ck_assert_int_eq(post_exp(&wr), EINVAL);
		ck_assert_int_eq(ibv_dereg_mr(imr2), 0);
	}

	/* a QP created without IBV_EXP_QP_CREATE_UMR */
	qp = ibv_create_qp(a.pd, &(struct ibv_qp_init_attr){
		.send_cq = a.cq, .recv_cq = a.cq, .qp_type = IBV_QPT_RC,
		.cap = { 8, 8, 1, 1, 0 } });
	ck_assert_ptr_nonnull(qp);
	wr = umr_wr(imr, l, 1, REMOTE_ALL);
	{
		struct ibv_exp_send_wr *bad;

		ck_assert_int_eq(ibv_exp_post_send(qp, &wr, &bad), EINVAL);
	}
	ck_assert_int_eq(ibv_destroy_qp(qp), 0);

	/* Nothing was posted: the next UMR completes first. */
	umr(umr_wr(imr, l, 4, REMOTE_ALL), IBV_WC_SUCCESS);
	peer_writes(l, 4, imr, 0, 400, 1);

	ck_assert_int_eq(ibv_dereg_mr(small), 0);
	ck_assert_int_eq(ibv_dereg_mr(imr), 0);
	ck_assert_int_eq(ibv_dereg_mr(mr2), 0);
	ck_assert_int_eq(ibv_dealloc_pd(pd2), 0);
	dereg3();
}
END_TEST

/* A device without indirect regions refuses every one of the calls. */
START_TEST(unsupported)
{
	struct ibv_exp_device_attr attr = {
		.comp_mask = IBV_EXP_DEVICE_ATTR_UMR |
			     IBV_EXP_DEVICE_ATTR_EXP_CAP_FLAGS,
	};
	struct ibv_exp_create_mr_in in = {
		.pd = a.pd,
		.attr = { 4, IBV_EXP_MR_INDIRECT_KLMS, REMOTE_ALL },
	};
	struct ibv_exp_qp_init_attr ia = {
		.send_cq = a.cq, .recv_cq = a.cq, .qp_type = IBV_QPT_RC,
		.cap = { 8, 8, 1, 1, 0 },
		.comp_mask = IBV_EXP_QP_INIT_ATTR_PD |
			     IBV_EXP_QP_INIT_ATTR_CREATE_FLAGS |
			     IBV_EXP_QP_INIT_ATTR_MAX_INL_KLMS,
		.pd = a.pd, .exp_create_flags = IBV_EXP_QP_CREATE_UMR,
		.max_inl_send_klms = 4,
	};

	/*
	 * On an old kernel (write ABI only) the device has them but the
	 * kernel cannot make them: not reported either.
	 */
	ck_assert_int_eq(ibv_exp_query_device(a.ctx, &attr), 0);
	ck_assert_int_eq(attr.comp_mask, IBV_EXP_DEVICE_ATTR_EXP_CAP_FLAGS);
	ck_assert(!(attr.exp_device_cap_flags & IBV_EXP_DEVICE_UMR));

	errno = 0;
	ck_assert_ptr_null(ibv_exp_create_mr(&in));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(ibv_exp_create_qp(a.ctx, &ia));
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

static Suite *umr_suite(void)
{
	Suite *s = suite_create("umr");
	TCase *t = tcase_create("umr");
	const char *expect = getenv("UMR_EXPECT");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_set_timeout(t, 60);
	if (expect && !strcmp(expect, "unsupported")) {
		tcase_add_test(t, unsupported);
	} else {
		tcase_add_test(t, query_device);
		tcase_add_test(t, fill_write_read_refill);
		tcase_add_test(t, rights);
		tcase_add_test(t, create_rules);
		tcase_add_test(t, post_rules);
	}
	suite_add_tcase(s, t);
	return s;
}

SEFA_PEER_MAIN(umr_suite, peer_main)
