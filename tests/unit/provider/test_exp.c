// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The experimental verbs without a kernel: the UMR WQE and the KLM list
 * the device reads, what is refused before anything is posted, the UMR
 * completion through both poll calls, and the refusals for contexts of
 * other drivers and devices without indirect regions.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <infiniband/verbs_exp.h>

#include "efa_dp.h"
#include "efa/efa_ext_abi.h"
#include "efa_fixture.h"
#include "check_main.h"

#define QPN		0x31
#define MAX_KLMS	4
#define STAGE_LKEY	0x1234
#define ACCESS		(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			 IBV_ACCESS_REMOTE_READ)

static struct efa_fixture fx;
static struct efa_fake_cq fc;
static struct efa_fake_qp fq;
static struct ibv_pd pd, other_pd;
static struct ibv_mr stage;
static struct efa_mr imr, child[2], foreign;
static uint8_t mem[8192];
static struct ibv_exp_mem_region list[2];

static void mr_init(struct efa_mr *mr, struct ibv_pd *p, uint32_t lkey,
		    bool indirect)
{
	memset(mr, 0, sizeof(*mr));
	mr->vmr.ibv_mr.context = &fx.ctx->ibvctx.context;
	mr->vmr.ibv_mr.pd = p;
	mr->vmr.ibv_mr.lkey = lkey;
	mr->vmr.ibv_mr.rkey = lkey;
	mr->indirect = indirect;
	mr->max_entries = indirect ? 8 : 0;
	if (!indirect) {
		mr->vmr.ibv_mr.addr = mem;
		mr->vmr.ibv_mr.length = sizeof(mem);
		mr->iova = (uintptr_t)mem;
	}
}

static void setup(void)
{
	const struct efa_fake_dp_attr attr = {
		.qp_type = IBV_QPT_RC,
		.qpn = QPN,
		.cap = { .max_send_wr = 8, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.device_caps = SEFA_QUERY_DEVICE_CAPS_RC |
			       SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR,
		.cq_entries = 64,
		.cqe_size = EFA_IO_CQE_EX_SIZE,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct efa_qp *qp;

	efa_fake_dp_open(&fx, &fc, &fq, &attr);
	pd.context = other_pd.context = &fx.ctx->ibvctx.context;
	efa_fake_ibvqp(&fq)->pd = &pd;

	/* what ibv_exp_create_qp() adds for a UMR QP */
	qp = fq.qp;
	qp->umr.max_klms = MAX_KLMS;
	qp->umr.klms = calloc((size_t)(qp->sq.wq.desc_mask + 1) * MAX_KLMS,
			      sizeof(struct efa_io_klm));
	ck_assert_ptr_nonnull(qp->umr.klms);
	stage.lkey = STAGE_LKEY;
	qp->umr.mr = &stage;

	mr_init(&imr, &pd, 0x300, true);
	mr_init(&child[0], &pd, 0x401, false);
	mr_init(&child[1], &pd, 0x502, false);
	mr_init(&foreign, &other_pd, 0x603, false);
	list[0] = (struct ibv_exp_mem_region){ (uintptr_t)mem + 100,
					       &child[0].vmr.ibv_mr, 1000 };
	list[1] = (struct ibv_exp_mem_region){ (uintptr_t)mem,
					       &child[1].vmr.ibv_mr, 8192 };
}

static void teardown(void)
{
	free(fq.qp->umr.klms);
	fq.qp->umr.mr = NULL;
	efa_fake_dp_close(&fx, &fc, &fq);
}

static struct ibv_exp_send_wr umr_wr(enum ibv_exp_wr_opcode op, uint32_t n)
{
	struct ibv_exp_send_wr wr = {
		.wr_id = 0xabc, .exp_opcode = op,
		.exp_send_flags = IBV_EXP_SEND_SIGNALED | IBV_EXP_SEND_INLINE,
	};

	wr.ext_op.umr.umr_type = IBV_EXP_UMR_MR_LIST;
	wr.ext_op.umr.exp_access = ACCESS;
	wr.ext_op.umr.modified_mr = &imr.vmr.ibv_mr;
	wr.ext_op.umr.base_addr = 0x7000000000ULL;
	wr.ext_op.umr.num_mrs = n;
	wr.ext_op.umr.mem_list.mem_reg_list = list;
	return wr;
}

static int post(struct ibv_exp_send_wr *wr)
{
	struct ibv_exp_send_wr *bad = NULL;
	int err = ibv_exp_post_send(efa_fake_ibvqp(&fq), wr, &bad);

	ck_assert_ptr_eq(bad, err ? wr : NULL);
	return err;
}

START_TEST(test_fill_wqe)
{
	struct ibv_exp_send_wr wr = umr_wr(IBV_EXP_WR_UMR_FILL, 2);
	const struct efa_io_tx_wqe *w = &fq.llq[0];
	const struct efa_io_klm *klm = fq.qp->umr.klms;
	uint64_t at;

	ck_assert_int_eq(post(&wr), 0);
	ck_assert_uint_eq(fq.sq_db, 1);
	ck_assert_uint_eq(w->meta.req_id, 0);
	ck_assert_uint_eq(w->meta.ctrl1, EFA_IO_TX_META_DESC_META_DESC | EFA_IO_UMR);
	ck_assert_uint_eq(w->meta.ctrl2 & ~EFA_IO_TX_META_DESC_PHASE,
			  EFA_IO_TX_META_DESC_FIRST | EFA_IO_TX_META_DESC_LAST |
			  EFA_IO_TX_META_DESC_COMP_REQ);
	ck_assert_uint_eq(w->meta.length, 2);
	ck_assert_uint_eq(w->data.umr_req.mkey, 0x300);
	ck_assert_uint_eq(w->data.umr_req.access, ACCESS);
	ck_assert_uint_eq(w->data.umr_req.base_addr, 0x7000000000ULL);
	ck_assert_uint_eq(w->data.umr_req.klm_list.length, 32);
	ck_assert_uint_eq(w->data.umr_req.klm_list.lkey, STAGE_LKEY);
	at = (uint64_t)w->data.umr_req.klm_list.buf_addr_hi << 32 |
	     w->data.umr_req.klm_list.buf_addr_lo;
	ck_assert_uint_eq(at, (uintptr_t)klm);
	ck_assert_uint_eq(klm[0].length, 1000);
	ck_assert_uint_eq(klm[0].lkey, 0x401);
	ck_assert_uint_eq(klm[0].addr, (uintptr_t)mem + 100);
	ck_assert_uint_eq(klm[1].length, 8192);
	ck_assert_uint_eq(klm[1].lkey, 0x502);

	/* the next WQE's list goes to the next slot; unsignaled, no comp_req */
	wr.exp_send_flags = IBV_EXP_SEND_INLINE;
	list[0].length = 7;
	ck_assert_int_eq(post(&wr), 0);
	ck_assert_uint_eq(fq.llq[1].meta.req_id, 1);
	ck_assert_uint_eq(fq.llq[1].meta.ctrl2 & EFA_IO_TX_META_DESC_COMP_REQ, 0);
	at = (uint64_t)fq.llq[1].data.umr_req.klm_list.buf_addr_hi << 32 |
	     fq.llq[1].data.umr_req.klm_list.buf_addr_lo;
	ck_assert_uint_eq(at, (uintptr_t)(klm + MAX_KLMS));
	ck_assert_uint_eq(klm[MAX_KLMS].length, 7);
	ck_assert_uint_eq(klm[0].length, 1000);

	wr = umr_wr(IBV_EXP_WR_UMR_INVALIDATE, 0);
	ck_assert_int_eq(post(&wr), 0);
	w = &fq.llq[2];
	ck_assert_uint_eq(w->meta.ctrl1 & EFA_IO_TX_META_DESC_OP_TYPE_MASK,
			  EFA_IO_UMR);
	ck_assert_uint_eq(w->meta.length, 0);
	ck_assert_uint_eq(w->data.umr_req.mkey, 0x300);
	ck_assert_uint_eq(w->data.umr_req.klm_list.length, 0);
	ck_assert_uint_eq(fq.sq_db, 3);
}
END_TEST

START_TEST(test_fill_refused)
{
	struct ibv_exp_send_wr wr;
	struct efa_mr nested;

	wr = umr_wr(IBV_EXP_WR_UMR_FILL, MAX_KLMS + 1);	/* QP's limit */
	ck_assert_int_eq(post(&wr), EINVAL);
	imr.max_entries = 1;					/* region's */
	wr = umr_wr(IBV_EXP_WR_UMR_FILL, 2);
	ck_assert_int_eq(post(&wr), EINVAL);
	imr.max_entries = 8;

	list[1].mr = &foreign.vmr.ibv_mr;			/* other PD */
	ck_assert_int_eq(post(&wr), EINVAL);
	mr_init(&nested, &pd, 0x700, true);
	list[1].mr = &nested.vmr.ibv_mr;			/* indirect */
	ck_assert_int_eq(post(&wr), EINVAL);
	list[1].mr = &child[1].vmr.ibv_mr;
	list[1].base_addr = (uintptr_t)mem + 1;			/* past the end */
	ck_assert_int_eq(post(&wr), EINVAL);
	list[1].base_addr = (uintptr_t)mem;
	list[1].length = 0;
	ck_assert_int_eq(post(&wr), EINVAL);
	list[1].length = 8192;


	wr.ext_op.umr.exp_access = IBV_ACCESS_REMOTE_WRITE;
	ck_assert_int_eq(post(&wr), EINVAL);
	wr.ext_op.umr.exp_access = IBV_EXP_ACCESS_ON_DEMAND;
	ck_assert_int_eq(post(&wr), EINVAL);
	wr = umr_wr(IBV_EXP_WR_UMR_FILL, 2);
	wr.exp_send_flags = IBV_EXP_SEND_SIGNALED;
	ck_assert_int_eq(post(&wr), EOPNOTSUPP);
	wr.exp_send_flags |= IBV_EXP_SEND_INLINE | IBV_EXP_SEND_FENCE;
	ck_assert_int_eq(post(&wr), EINVAL);
	wr = umr_wr(IBV_EXP_WR_UMR_FILL, 2);
	wr.ext_op.umr.umr_type = IBV_EXP_UMR_REPEAT;
	ck_assert_int_eq(post(&wr), EOPNOTSUPP);
	wr = umr_wr(IBV_EXP_WR_UMR_INVALIDATE, 0);
	wr.ext_op.umr.modified_mr = &child[0].vmr.ibv_mr;	/* not indirect */
	ck_assert_int_eq(post(&wr), EINVAL);
	imr.vmr.ibv_mr.pd = &other_pd;				/* not the QP's PD */
	wr = umr_wr(IBV_EXP_WR_UMR_INVALIDATE, 0);
	ck_assert_int_eq(post(&wr), EINVAL);
	imr.vmr.ibv_mr.pd = &pd;

	efa_fake_ibvqp(&fq)->state = IBV_QPS_INIT;
	ck_assert_int_eq(post(&wr), EINVAL);
	efa_fake_ibvqp(&fq)->state = IBV_QPS_RTS;
	fq.qp->umr.max_klms = 0;				/* no UMR QP */
	ck_assert_int_eq(post(&wr), EINVAL);
	fq.qp->umr.max_klms = MAX_KLMS;

	/* Nothing reached the device. */
	ck_assert_uint_eq(fq.sq_db, 0);
	ck_assert_int_eq(post(&wr), 0);
	ck_assert_uint_eq(fq.sq_db, 1);

	/* A region registered at another iova is addressed by it. */
	child[1].iova = 0x100000;
	wr = umr_wr(IBV_EXP_WR_UMR_FILL, 2);
	ck_assert_int_eq(post(&wr), EINVAL);
	list[1].base_addr = 0x100000;
	ck_assert_int_eq(post(&wr), 0);
	ck_assert_uint_eq(fq.sq_db, 2);
}
END_TEST

START_TEST(test_umr_completion)
{
	struct ibv_exp_send_wr wr = umr_wr(IBV_EXP_WR_UMR_FILL, 2);
	struct ibv_exp_wc xwc[3];
	struct ibv_wc wc;

	ck_assert_int_eq(post(&wr), 0);
	wr.wr_id = 0xdef;
	ck_assert_int_eq(post(&wr), 0);
	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 0, EFA_IO_UMR, 0);
	efa_fake_complete(&fc, &fq, EFA_IO_SEND_QUEUE, 1, EFA_IO_UMR, 0);

	ck_assert_int_eq(efa_poll_cq(&fc.cq->verbs_cq.cq, 1, &wc), 1);
	ck_assert_int_eq(wc.status, IBV_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IBV_WC_DRIVER1);
	ck_assert_uint_eq(wc.wr_id, 0xabc);

	/* a wider stride than this library's structure is fine */
	memset(xwc, 0x5a, sizeof(xwc));
	ck_assert_int_eq(ibv_exp_poll_cq(&fc.cq->verbs_cq.cq, 1, xwc,
					 sizeof(xwc[0]) - 1), -EINVAL);
	ck_assert_int_eq(ibv_exp_poll_cq(&fc.cq->verbs_cq.cq, 2, xwc,
					 2 * sizeof(xwc[0])), 1);
	ck_assert_int_eq(xwc[0].status, IBV_WC_SUCCESS);
	ck_assert_int_eq(xwc[0].exp_opcode, IBV_EXP_WC_UMR);
	ck_assert_uint_eq(xwc[0].wr_id, 0xdef);
	ck_assert_uint_eq(xwc[0].qp_num, QPN);
	ck_assert_uint_eq(xwc[0].exp_wc_flags, 0);
	ck_assert_uint_eq(xwc[1].wr_id, 0x5a5a5a5a5a5a5a5aULL);
	ck_assert_int_eq(ibv_exp_poll_cq(&fc.cq->verbs_cq.cq, 1, xwc,
					 sizeof(xwc[0])), 0);
}
END_TEST

/* Each call refuses, before looking at anything else. */
static void expect_refused(void)
{
	struct ibv_context *ibvctx = &fx.ctx->ibvctx.context;
	struct ibv_exp_device_attr attr = {};
	struct ibv_exp_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC, .comp_mask = IBV_EXP_QP_INIT_ATTR_PD |
			IBV_EXP_QP_INIT_ATTR_CREATE_FLAGS |
			IBV_EXP_QP_INIT_ATTR_MAX_INL_KLMS,
		.pd = &pd, .exp_create_flags = IBV_EXP_QP_CREATE_UMR,
		.max_inl_send_klms = 1,
	};
	struct ibv_exp_create_mr_in in = {
		.pd = &pd, .attr = { 4, IBV_EXP_MR_INDIRECT_KLMS, ACCESS },
	};

	errno = 0;
	ck_assert_ptr_null(ibv_exp_create_mr(&in));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_ptr_null(ibv_exp_create_mr(NULL));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(ibv_exp_create_qp(ibvctx, &qa));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	if (fx.vdev.ops == &efa_other_dev_ops) {
		struct ibv_exp_send_wr wr = umr_wr(IBV_EXP_WR_UMR_INVALIDATE, 0);
		struct ibv_exp_wc wc;

		ck_assert_int_eq(ibv_exp_query_device(ibvctx, &attr), EOPNOTSUPP);
		ck_assert_int_eq(post(&wr), EOPNOTSUPP);
		ck_assert_int_eq(ibv_exp_poll_cq(&fc.cq->verbs_cq.cq, 1, &wc,
						 sizeof(wc)), -EOPNOTSUPP);
	}
}

START_TEST(test_other_driver)
{
	fx.vdev.ops = &efa_other_dev_ops;
	expect_refused();
	fx.vdev.ops = &efa_dev_ops;
}
END_TEST

START_TEST(test_no_indirect_mr)
{
	fx.ctx->device_caps &= ~SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR;
	expect_refused();
	/* the device has them, the kernel (no ioctl, no method) cannot */
	fx.ctx->device_caps |= SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR;
	fx.ctx->indirect_mr = -1;
	expect_refused();
}
END_TEST

static Suite *exp_suite(void)
{
	Suite *s = suite_create("exp");
	TCase *t = tcase_create("exp");

	tcase_add_checked_fixture(t, setup, teardown);
	tcase_add_test(t, test_fill_wqe);
	tcase_add_test(t, test_fill_refused);
	tcase_add_test(t, test_umr_completion);
	tcase_add_test(t, test_other_driver);
	tcase_add_test(t, test_no_indirect_mr);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(exp_suite)
