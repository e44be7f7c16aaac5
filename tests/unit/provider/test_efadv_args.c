// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The argument rules of the direct verbs and of QP and CQ creation, all
 * of which are decided before the kernel is asked: struct sizes callers
 * of every rdma-core version pass, comp_mask and reserved fields, device
 * capabilities, contexts of other drivers.  efadv_query_mr also runs its
 * ioctl, against a fake kernel (efa_fake_kernel.h) that answers it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "efa/efa_ext_abi.h"
#include "efa_fake_kernel.h"
#include "efa_fixture.h"
#include "check_bytes.h"
#include "check_main.h"

/* The public layouts are ABI. */
_Static_assert(sizeof(struct efadv_mr_attr) == 16, "mr attr");
_Static_assert(offsetof(struct efadv_mr_attr, ic_id_validity) == 8, "mr");
_Static_assert(offsetof(struct efadv_mr_attr, rdma_recv_ic_id) == 14, "mr");
_Static_assert(sizeof(struct efadv_ah_attr) == 16, "ah attr");
_Static_assert(offsetof(struct efadv_ah_attr, ahn) == 8, "ah attr");
_Static_assert(sizeof(struct efadv_qp_init_attr) == 24, "qp attr");
_Static_assert(offsetof(struct efadv_qp_init_attr, driver_qp_type) == 8,
	       "qp attr");
_Static_assert(offsetof(struct efadv_qp_init_attr, flags) == 12, "qp");
_Static_assert(offsetof(struct efadv_qp_init_attr, sl) == 14, "qp");
_Static_assert(offsetof(struct efadv_qp_init_attr, reserved) == 15, "qp");
_Static_assert(offsetof(struct efadv_qp_init_attr, wr_flags) == 16, "qp");
/* EFA_1.4 to EFA_1.7, as rdma-core's efadv.h lays them out */
_Static_assert(sizeof(struct efadv_wq_attr) == 40, "wq attr");
_Static_assert(offsetof(struct efadv_wq_attr, buffer) == 8, "wq attr");
_Static_assert(offsetof(struct efadv_wq_attr, entry_size) == 16, "wq");
_Static_assert(offsetof(struct efadv_wq_attr, num_entries) == 20, "wq");
_Static_assert(offsetof(struct efadv_wq_attr, doorbell) == 24, "wq");
_Static_assert(offsetof(struct efadv_wq_attr, max_batch) == 32, "wq");
_Static_assert(offsetof(struct efadv_wq_attr, caps) == 36, "wq");
_Static_assert(sizeof(struct efadv_cq_attr) == 32, "cq attr");
_Static_assert(offsetof(struct efadv_cq_attr, num_entries) == 20, "cq");
_Static_assert(offsetof(struct efadv_cq_attr, doorbell) == 24, "cq");
_Static_assert(sizeof(struct efadv_sq_depth_attr) == 24, "sq depth");
_Static_assert(offsetof(struct efadv_sq_depth_attr, max_inline_data) == 20,
	       "sq depth");
_Static_assert(sizeof(struct efadv_rq_depth_attr) == 16, "rq depth");
_Static_assert(offsetof(struct efadv_qp, wr_set_processing_hints) == 8,
	       "efadv_qp");
_Static_assert(sizeof(struct efadv_memory_location) == 32, "mem loc");
_Static_assert(offsetof(struct efadv_memory_location, type) == 24, "mem loc");
_Static_assert(sizeof(struct efadv_comp_cntr_init_attr) == 80, "cc attr");
_Static_assert(offsetof(struct efadv_comp_cntr_init_attr,
			err_cntr_ext_mem) == 48, "cc attr");
_Static_assert(sizeof(struct efadv_cq_init_attr) == 56, "cq attr");
_Static_assert(offsetof(struct efadv_cq_init_attr, wc_flags) == 8, "cq");
_Static_assert(offsetof(struct efadv_cq_init_attr, flags) == 16, "cq");
_Static_assert(offsetof(struct efadv_cq_init_attr, ext_mem_dmabuf.fd) == 48,
	       "cq");
_Static_assert(offsetof(struct efadv_cq, wc_read_sgid) == 8, "efadv_cq");
_Static_assert(offsetof(struct efadv_cq, wc_is_unsolicited) == 16, "efadv_cq");
_Static_assert(sizeof(struct efadv_cq) == 24, "efadv_cq");
/* the values of rdma-core v64's efadv.h and efa-abi.h */
_Static_assert(EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV == 1 << 4, "cap");
_Static_assert(EFADV_WC_EX_WITH_IS_UNSOLICITED == 1 << 1, "wc flag");
_Static_assert(EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV ==
	       EFA_CREATE_QP_WITH_UNSOLICITED_WRITE_RECV, "qp flag");
_Static_assert(offsetof(struct efa_compat_create_qp, flags) == 16, "cmd");
_Static_assert(offsetof(struct efa_compat_create_qp, sl) == 18, "cmd");

#define FAKE_FD 987

static struct efa_fixture fx;
static union {
	uint8_t bytes[64];
	struct efadv_mr_attr mr;
	struct efadv_ah_attr ah;
	struct efadv_cq_init_attr cq;
	struct efadv_qp_init_attr qp;
} buf;

/* What the fake kernel answers to the MR query, and what it was sent. */
static struct {
	int err;
	uint16_t out[4];
	struct efa_query_mr_cmd seen;
	int calls;
} kern;

static bool kern_owns(int fd)
{
	return fd == FAKE_FD;
}

static int kern_ioctl(int fd, unsigned long req, void *arg)
{
	struct efa_query_mr_cmd *cmd = arg;

	kern.calls++;
	kern.seen = *cmd;
	if (req != RDMA_VERBS_IOCTL)
		return -ENOTTY;
	if (kern.err)
		return -kern.err;
	for (int i = 0; i < 4; i++)
		memcpy((void *)(uintptr_t)cmd->attrs[i + 1].data, &kern.out[i],
		       sizeof(uint16_t));
	return 0;
}

static const struct efa_fake_kernel kernel = {
	.owns = kern_owns,
	.ioctl = kern_ioctl,
};

static void setup(void)
{
	efa_fixture_open(&fx);
	fx.ctx->ibvctx.context.cmd_fd = FAKE_FD;
	memset(&buf, SEFA_POISON, sizeof(buf));
	memset(&kern, 0, sizeof(kern));
	efa_fake_kernel_set(&kernel);
}

static void teardown(void)
{
	efa_fake_kernel_set(NULL);
	efa_fixture_close(&fx);
}

static void setup_other(void)
{
	setup();
	fx.vdev.ops = &efa_other_dev_ops;
}

static struct ibv_mr fake_mr(void)
{
	return (struct ibv_mr){ .context = &fx.ctx->ibvctx.context,
				.handle = 0x4242 };
}

START_TEST(test_query_mr_cmd)
{
	struct efa_query_mr_out out;
	struct efa_query_mr_cmd cmd;

	memset(&out, 0xff, sizeof(out));
	efa_query_mr_cmd_init(&cmd, 77, &out);

	ck_assert_uint_eq(cmd.hdr.length, 24 + 5 * 16);
	ck_assert_uint_eq(cmd.hdr.object_id, UVERBS_OBJECT_MR);
	ck_assert_uint_eq(cmd.hdr.method_id, 0x1000);
	ck_assert_uint_eq(cmd.hdr.num_attrs, 5);
	ck_assert_uint_eq(cmd.hdr.driver_id, RDMA_DRIVER_EFA);
	ck_assert_uint_eq(cmd.hdr.reserved1, 0);
	ck_assert_uint_eq(cmd.hdr.reserved2, 0);

	ck_assert_uint_eq(cmd.attrs[0].attr_id, 0x1000);
	ck_assert_uint_eq(cmd.attrs[0].len, 0);
	ck_assert_uint_eq(cmd.attrs[0].data, 77);
	for (int i = 0; i < 5; i++) {
		ck_assert_uint_eq(cmd.attrs[i].flags, UVERBS_ATTR_F_MANDATORY);
		ck_assert_uint_eq(cmd.attrs[i].attr_data.reserved, 0);
	}
	for (int i = 1; i < 5; i++) {
		ck_assert_uint_eq(cmd.attrs[i].attr_id, 0x1000 + i);
		ck_assert_uint_eq(cmd.attrs[i].len, 2);
	}
	ck_assert_uint_eq(cmd.attrs[1].data, (uintptr_t)&out.ic_id_validity);
	ck_assert_uint_eq(cmd.attrs[2].data, (uintptr_t)&out.recv_ic_id);
	ck_assert_uint_eq(cmd.attrs[3].data, (uintptr_t)&out.rdma_read_ic_id);
	ck_assert_uint_eq(cmd.attrs[4].data, (uintptr_t)&out.rdma_recv_ic_id);
	ck_assert_uint_eq(out.ic_id_validity, 0);
}
END_TEST

START_TEST(test_query_mr)
{
	struct ibv_mr mr = fake_mr();

	kern.out[0] = EFA_QUERY_MR_VALIDITY_RECV_IC_ID |
		      EFA_QUERY_MR_VALIDITY_RDMA_RECV_IC_ID;
	kern.out[1] = 11;
	kern.out[2] = 22;	/* not valid: must not be reported */
	kern.out[3] = 33;
	ck_assert_int_eq(efadv_query_mr(&mr, &buf.mr, sizeof(buf.mr)), 0);

	ck_assert_int_eq(kern.calls, 1);
	ck_assert_uint_eq(kern.seen.attrs[0].data, 0x4242);
	ck_assert_uint_eq(buf.mr.comp_mask, 0);
	ck_assert_uint_eq(buf.mr.ic_id_validity,
			  EFADV_MR_ATTR_VALIDITY_RECV_IC_ID |
			  EFADV_MR_ATTR_VALIDITY_RDMA_RECV_IC_ID);
	ck_assert_uint_eq(buf.mr.recv_ic_id, 11);
	ck_assert_uint_eq(buf.mr.rdma_read_ic_id, 0);
	ck_assert_uint_eq(buf.mr.rdma_recv_ic_id, 33);
	sefa_assert_poisoned(&buf, 16, sizeof(buf));
}
END_TEST

START_TEST(test_query_mr_inlen)
{
	static const uint32_t short_lens[] = { 0, 1, 8, 12, 14 };
	struct ibv_mr mr = fake_mr();

	for (size_t i = 0; i < sizeof(short_lens) / sizeof(short_lens[0]);
	     i++) {
		ck_assert_int_eq(efadv_query_mr(&mr, &buf.mr, short_lens[i]),
				 EINVAL);
		sefa_assert_poisoned(&buf, 0, sizeof(buf));
	}
	ck_assert_int_eq(kern.calls, 0);

	/* rdma_recv_ic_id starting inside inlen is enough; nothing is
	 * written past inlen.
	 */
	kern.out[0] = 7;
	kern.out[3] = 0x3333;
	ck_assert_int_eq(efadv_query_mr(&mr, &buf.mr, 15), 0);
	ck_assert_uint_eq(buf.bytes[14], 0x33);
	sefa_assert_poisoned(&buf, 15, sizeof(buf));

	/* a longer, newer struct gets its tail zeroed */
	memset(&buf, SEFA_POISON, sizeof(buf));
	ck_assert_int_eq(efadv_query_mr(&mr, &buf.mr, 24), 0);
	ck_assert_uint_eq(buf.mr.ic_id_validity, 7);
	sefa_assert_zeroed(&buf, 16, 24);
	sefa_assert_poisoned(&buf, 24, sizeof(buf));
}
END_TEST

/* A kernel without the method: its errno, unchanged, and a cleared attr. */
START_TEST(test_query_mr_unsupported)
{
	static const int errs[] = { ENOTTY, EOPNOTSUPP, EPROTONOSUPPORT };
	struct ibv_mr mr = fake_mr();

	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		memset(&buf, SEFA_POISON, sizeof(buf));
		kern.err = errs[i];
		ck_assert_int_eq(efadv_query_mr(&mr, &buf.mr, sizeof(buf.mr)),
				 errs[i]);
		sefa_assert_zeroed(&buf, 0, sizeof(buf.mr));
	}
}
END_TEST

START_TEST(test_mr_attr_fill)
{
	struct efa_query_mr_out out = { .ic_id_validity = 0xfff8,
					.recv_ic_id = 1,
					.rdma_read_ic_id = 2,
					.rdma_recv_ic_id = 3 };
	struct efadv_mr_attr attr = {};

	/* only the three known bits mean anything */
	efa_mr_attr_fill(&attr, &out);
	ck_assert_uint_eq(attr.ic_id_validity, 0);
	ck_assert_uint_eq(attr.recv_ic_id, 0);

	out.ic_id_validity = EFA_QUERY_MR_VALIDITY_RDMA_READ_IC_ID;
	efa_mr_attr_fill(&attr, &out);
	ck_assert_uint_eq(attr.ic_id_validity,
			  EFADV_MR_ATTR_VALIDITY_RDMA_READ_IC_ID);
	ck_assert_uint_eq(attr.rdma_read_ic_id, 2);
	ck_assert_uint_eq(attr.rdma_recv_ic_id, 0);
}
END_TEST

START_TEST(test_query_ah)
{
	struct efa_ah ah;

	efa_fake_ah_init(&fx, &ah, 0x1234);
	ck_assert_int_eq(efadv_query_ah(&ah.ibvah, &buf.ah, 8), EINVAL);
	sefa_assert_poisoned(&buf, 0, sizeof(buf));

	ck_assert_int_eq(efadv_query_ah(&ah.ibvah, &buf.ah, 9), 0);
	ck_assert_uint_eq(buf.bytes[8], 0x34);
	sefa_assert_poisoned(&buf, 9, sizeof(buf));

	ck_assert_int_eq(efadv_query_ah(&ah.ibvah, &buf.ah, 24), 0);
	ck_assert_uint_eq(buf.ah.comp_mask, 0);
	ck_assert_uint_eq(buf.ah.ahn, 0x1234);
	sefa_assert_zeroed(&buf, 10, 24);
	sefa_assert_poisoned(&buf, 24, sizeof(buf));
}
END_TEST

static int cq_parse(uint32_t inlen, bool *with_sgid)
{
	struct efadv_cq_init_attr in;
	int ret = efa_dv_cq_attr_parse(fx.ctx, &buf.cq, inlen, &in);

	if (!ret)
		*with_sgid = in.wc_flags & EFADV_WC_EX_WITH_SGID;
	return ret;
}

START_TEST(test_create_cq_attr)
{
	bool sgid = false;

	memset(&buf, 0, sizeof(buf));
	ck_assert_int_eq(cq_parse(0, &sgid), EINVAL);
	ck_assert_int_eq(cq_parse(8, &sgid), EINVAL);
	ck_assert_int_eq(cq_parse(16, &sgid), 0);
	ck_assert(!sgid);

	buf.cq.wc_flags = EFADV_WC_EX_WITH_SGID;
	ck_assert_int_eq(cq_parse(16, &sgid), 0);
	ck_assert(sgid);
	/* wc_flags partly beyond inlen: the bytes it reaches count */
	ck_assert_int_eq(cq_parse(9, &sgid), 0);
	ck_assert(sgid);

	/* a newer caller's extension must be zero */
	ck_assert_int_eq(cq_parse(64, &sgid), 0);
	buf.bytes[60] = 1;
	ck_assert_int_eq(cq_parse(64, &sgid), EINVAL);
	ck_assert_int_eq(cq_parse(56, &sgid), 0);
	buf.bytes[60] = 0;
	/* flags: the one there is; an older caller's 16 bytes have none */
	buf.bytes[20] = 1;
	ck_assert_int_eq(cq_parse(32, &sgid), EOPNOTSUPP);
	ck_assert_int_eq(cq_parse(16, &sgid), 0);
	buf.bytes[20] = 0;
	buf.cq.flags = EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF;
	ck_assert_int_eq(cq_parse(56, &sgid), 0);
	buf.cq.flags = 0;

	buf.cq.comp_mask = 1;
	ck_assert_int_eq(cq_parse(16, &sgid), EINVAL);
	buf.cq.comp_mask = 0;

	buf.cq.wc_flags = 1 << 2;
	ck_assert_int_eq(cq_parse(16, &sgid), EOPNOTSUPP);
	/* the unsolicited bit where the device has unsolicited receives */
	buf.cq.wc_flags = EFADV_WC_EX_WITH_IS_UNSOLICITED;
	ck_assert_int_eq(cq_parse(16, &sgid), EOPNOTSUPP);
	fx.ctx->device_caps |= EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV;
	ck_assert_int_eq(cq_parse(16, &sgid), 0);
	ck_assert(!sgid);
	buf.cq.wc_flags = EFADV_WC_EX_WITH_SGID;
	fx.ctx->device_caps &= ~EFA_QUERY_DEVICE_CAPS_CQ_WITH_SGID;
	ck_assert_int_eq(cq_parse(16, &sgid), EOPNOTSUPP);
}
END_TEST

START_TEST(test_create_cq_refused)
{
	struct ibv_context *ibvctx = &fx.ctx->ibvctx.context;
	struct ibv_cq_init_attr_ex attr = { .cqe = 16 };
	struct ibv_comp_channel channel = { .fd = -1 };

	memset(&buf, 0, sizeof(buf));
	buf.cq.comp_mask = 1;
	errno = 0;
	ck_assert_ptr_null(efadv_create_cq(ibvctx, &attr, &buf.cq, 16));
	ck_assert_int_eq(errno, EINVAL);
	buf.cq.comp_mask = 0;

	attr.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	ck_assert_ptr_null(efa_create_cq_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.wc_flags = 0;

	attr.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ck_assert_ptr_null(efadv_create_cq(ibvctx, &attr, &buf.cq, 16));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.comp_mask = 0;

	attr.cqe = fx.ctx->max_cqe + 1;
	ck_assert_ptr_null(efa_create_cq_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(efa_create_cq(ibvctx, -1, NULL, 0));
	ck_assert_int_eq(errno, EINVAL);
	attr.cqe = 16;

	/* completion events need the device's CQ notifications */
	fx.ctx->device_caps &= ~EFA_QUERY_DEVICE_CAPS_CQ_NOTIFICATIONS;
	attr.channel = &channel;
	ck_assert_ptr_null(efa_create_cq_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
}
END_TEST

static struct efadv_qp_init_attr qp_out;

static int qp_parse(struct ibv_qp_init_attr_ex *attr, uint32_t inlen,
		    uint32_t *type)
{
	int err = efa_dv_qp_attr_parse(fx.ctx, attr, &buf.qp, inlen, &qp_out);

	if (!err)
		*type = qp_out.driver_qp_type;
	return err;
}

START_TEST(test_create_qp_ex_attr)
{
	struct ibv_qp_init_attr_ex attr = { .qp_type = IBV_QPT_DRIVER };
	uint32_t type = 99;

	memset(&buf, 0, sizeof(buf));
	buf.qp.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD;
	ck_assert_int_eq(qp_parse(&attr, 8, &type), EINVAL);
	ck_assert_int_eq(qp_parse(&attr, 12, &type), 0);
	ck_assert_uint_eq(type, EFADV_QP_DRIVER_TYPE_SRD);
	ck_assert_int_eq(qp_parse(&attr, 16, &type), 0);
	ck_assert_int_eq(qp_parse(&attr, 24, &type), 0);

	buf.qp.driver_qp_type = 3;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), 0);
	ck_assert_uint_eq(type, 3);
	buf.qp.driver_qp_type = 0;

	attr.qp_type = IBV_QPT_UD;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), EINVAL);
	attr.qp_type = IBV_QPT_DRIVER;

	buf.qp.comp_mask = 2;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), EINVAL);
	buf.qp.comp_mask = 0;

	buf.qp.reserved = 1;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), EINVAL);
	/* reserved beyond inlen is not the caller's */
	ck_assert_int_eq(qp_parse(&attr, 15, &type), 0);
	buf.qp.reserved = 0;

	/* inline RDMA write with 128-byte WQEs only */
	buf.qp.flags = EFADV_QP_FLAGS_INLINE_WRITE;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), EOPNOTSUPP);
	fx.ctx->inline_buf_size_ex = 80;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), 0);
	fx.ctx->device_caps &= ~EFA_QUERY_DEVICE_CAPS_RDMA_WRITE;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), EOPNOTSUPP);
	fx.ctx->device_caps |= EFA_QUERY_DEVICE_CAPS_RDMA_WRITE;
	fx.ctx->inline_buf_size_ex = 0;

	/* unsolicited write receive where the device reports it, as upstream */
	buf.qp.flags = EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), EOPNOTSUPP);
	fx.ctx->device_caps |= EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), 0);
	ck_assert_uint_eq(qp_out.flags, EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV);
	buf.qp.flags = EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV | 1 << 2;
	ck_assert_int_eq(qp_parse(&attr, 16, &type), EOPNOTSUPP);
	/* flags beyond inlen are not the caller's */
	ck_assert_int_eq(qp_parse(&attr, 12, &type), 0);
	ck_assert_uint_eq(qp_out.flags, 0);
	buf.qp.flags = 0;

	/* sl: every value goes to the kernel, which hands it on unchecked */
	for (unsigned int sl = 0; sl <= 255; sl++) {
		buf.qp.sl = sl;
		ck_assert_int_eq(qp_parse(&attr, 16, &type), 0);
		ck_assert_uint_eq(qp_out.sl, sl);
	}
	/* a caller whose struct ends before sl gets the default, 0 */
	ck_assert_int_eq(qp_parse(&attr, 14, &type), 0);
	ck_assert_uint_eq(qp_out.sl, 0);
	buf.qp.sl = 0;

	/* wr_flags: processing hints only */
	buf.qp.wr_flags = EFADV_WR_EX_WITH_PROCESSING_HINTS;
	ck_assert_int_eq(qp_parse(&attr, 24, &type), 0);
	buf.qp.wr_flags = 2;
	ck_assert_int_eq(qp_parse(&attr, 24, &type), EOPNOTSUPP);
	ck_assert_int_eq(qp_parse(&attr, 16, &type), 0);
	buf.qp.wr_flags = 0;

	ck_assert_int_eq(qp_parse(&attr, 32, &type), 0);
	buf.bytes[31] = 1;
	ck_assert_int_eq(qp_parse(&attr, 32, &type), EINVAL);
}
END_TEST

/* What CREATE_QP's udata carries, at rdma-core v64's offsets. */
START_TEST(test_create_qp_udata)
{
	const struct efa_qp_geom geom = { .sq_wqe_cnt = 64,
					  .sq_wqe_size = 128,
					  .rq_desc_cnt = 32 };
	struct efadv_qp_init_attr dv = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
		.flags = EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV |
			 EFADV_QP_FLAGS_INLINE_WRITE,
		.sl = 8,
	};
	struct efa_compat_create_qp drv;
	uint8_t *b = (uint8_t *)&drv;

	memset(&drv, 0, sizeof(drv));
	efa_qp_udata_fill(&drv, IBV_QPT_DRIVER, &dv, &geom);
	ck_assert_uint_eq(drv.rq_ring_size, 32 * 16);
	ck_assert_uint_eq(drv.sq_ring_size, 64 * 128);
	ck_assert_uint_eq(drv.driver_qp_type, EFA_QP_DRIVER_TYPE_SRD);
	/* inline write is the provider's business, not the kernel's */
	ck_assert_uint_eq(b[16] | b[17] << 8,
			  EFA_CREATE_QP_WITH_UNSOLICITED_WRITE_RECV);
	ck_assert_uint_eq(b[18], 8);
	sefa_assert_zeroed(b, 19, sizeof(drv));

	memset(&drv, 0, sizeof(drv));
	dv.flags = 0;
	dv.sl = 255;
	dv.driver_qp_type = 3;
	efa_qp_udata_fill(&drv, IBV_QPT_UD, &dv, &geom);
	ck_assert_uint_eq(drv.flags, 0);
	ck_assert_uint_eq(drv.sl, 255);
	/* read for IBV_QPT_DRIVER only */
	ck_assert_uint_eq(drv.driver_qp_type, 0);
}
END_TEST

START_TEST(test_create_qp_refused)
{
	struct ibv_context *ibvctx = &fx.ctx->ibvctx.context;
	struct efa_fake_cq fc;
	struct efa_pd pd = { .ibvpd.context = ibvctx };
	struct ibv_qp_init_attr_ex attr;
	struct ibv_qp_init_attr init;
	struct ibv_srq srq;

	efa_fake_cq_init(&fx, &fc, 1, 4, EFA_IO_CQE_SIZE, 0);
	attr = (struct ibv_qp_init_attr_ex){
		.qp_type = IBV_QPT_RC,
		.send_cq = &fc.cq->verbs_cq.cq,
		.recv_cq = &fc.cq->verbs_cq.cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = &pd.ibvpd,
	};

	/* RC, and SRD without the direct verbs */
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.qp_type = IBV_QPT_DRIVER;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	memcpy(&init, &attr, sizeof(init));
	init.qp_type = IBV_QPT_RC;
	ck_assert_ptr_null(efa_create_qp(&pd.ibvpd, &init));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	attr.qp_type = IBV_QPT_UD;
	attr.comp_mask |= IBV_QP_INIT_ATTR_CREATE_FLAGS;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.comp_mask = IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EINVAL);

	/* RDMA read: SRD only */
	attr.comp_mask |= IBV_QP_INIT_ATTR_PD;
	attr.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_READ;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.send_ops_flags = IBV_QP_EX_WITH_SEND;

	attr.recv_cq = NULL;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.recv_cq = attr.send_cq;

	attr.srq = &srq;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.srq = NULL;

	attr.cap.max_send_sge = 3;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.cap.max_send_sge = 1;
	attr.cap.max_inline_data = 33;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.cap.max_inline_data = 0;

	/* SRD through the direct verbs, with the same checks */
	attr.qp_type = IBV_QPT_DRIVER;
	attr.cap.max_recv_wr = 32769;
	memset(&buf, 0, sizeof(buf));
	ck_assert_ptr_null(efadv_create_qp_ex(ibvctx, &attr, &buf.qp, 16));
	ck_assert_int_eq(errno, EINVAL);
	buf.qp.driver_qp_type = 1;
	ck_assert_ptr_null(efadv_create_qp_ex(ibvctx, &attr, &buf.qp, 16));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	init.qp_type = IBV_QPT_UD;
	ck_assert_ptr_null(efadv_create_driver_qp(&pd.ibvpd, &init, 0));
	ck_assert_int_eq(errno, EINVAL);
	init.qp_type = IBV_QPT_DRIVER;
	ck_assert_ptr_null(efadv_create_driver_qp(&pd.ibvpd, &init, 1));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	efa_fake_cq_fini(&fc);
}
END_TEST

START_TEST(test_geometry)
{
	struct ibv_qp_cap cap = { .max_send_wr = 100, .max_recv_wr = 100,
				  .max_send_sge = 2, .max_recv_sge = 3 };
	struct efa_qp_geom g;

	/* SQ: a power of two, at least the device's minimum */
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_UD, 0, &g), 0);
	ck_assert_uint_eq(g.sq_wqe_cnt, 128);
	/* RQ: descriptors for every SGE of every WR, rounded up */
	ck_assert_uint_eq(g.rq_desc_cnt, 512);
	ck_assert_uint_eq(g.rq_wqe_cnt, 170);

	cap.max_send_wr = 1;
	cap.max_recv_sge = 1;
	cap.max_recv_wr = 4096;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_UD, 0, &g), 0);
	ck_assert_uint_eq(g.sq_wqe_cnt, 32);
	ck_assert_uint_eq(g.rq_desc_cnt, 4096);
	ck_assert_uint_eq(g.rq_wqe_cnt, 4096);

	/* no receive queue at all */
	cap.max_recv_wr = 0;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_UD, 0, &g), 0);
	ck_assert_uint_eq(g.rq_desc_cnt, 0);
	ck_assert_uint_eq(g.rq_wqe_cnt, 0);

	cap.max_send_wr = 4097;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_UD, 0, &g), EINVAL);
	cap.max_send_wr = 1;
	cap.max_recv_wr = 32769;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_UD, 0, &g), EINVAL);
	/* more descriptors than 16-bit counters can track */
	cap.max_recv_wr = 32768;
	cap.max_recv_sge = 3;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_UD, 0, &g), EINVAL);

	/* RC: room for the device's 3 descriptors in every WR ... */
	cap.max_recv_wr = 100;
	cap.max_recv_sge = 1;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_RC, 0, &g), 0);
	ck_assert_uint_eq(g.rq_wr_descs, 3);
	ck_assert_uint_eq(g.rq_desc_cnt, 512);
	ck_assert_uint_eq(g.rq_wqe_cnt, 170);
	/* ... or as many as the ring takes, at least the WR's SGEs */
	cap.max_recv_wr = 30000;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_RC, 0, &g), 0);
	ck_assert_uint_eq(g.rq_wr_descs, 2);
	ck_assert_uint_eq(g.rq_desc_cnt, 65536);
	ck_assert_uint_eq(g.rq_wqe_cnt, 32768);
	cap.max_recv_sge = 3;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_RC, 0, &g), EINVAL);
}
END_TEST

/*
 * 128-byte WQEs on a device with inline_buf_size_ex: for inline data
 * beyond 32 bytes or inline RDMA write, half as many in the LLQ; RDMA
 * write takes inline data when asked, or on RC.
 */
START_TEST(test_geometry_wqe_128)
{
	struct ibv_qp_cap cap = { .max_send_wr = 100, .max_send_sge = 1,
				  .max_inline_data = 33 };
	struct efa_qp_geom g;

	/* without inline_buf_size_ex: the old limit */
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_UD, 0, &g),
			 EINVAL);
	cap.max_inline_data = 32;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_DRIVER, 0, &g),
			 0);
	ck_assert_uint_eq(g.sq_wqe_size, 64);
	ck_assert(!g.inline_write);

	fx.ctx->inline_buf_size_ex = 80;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_DRIVER, 0, &g),
			 0);
	ck_assert_uint_eq(g.sq_wqe_size, 64);
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_DRIVER,
					 EFADV_QP_FLAGS_INLINE_WRITE, &g), 0);
	ck_assert_uint_eq(g.sq_wqe_size, 128);
	ck_assert(g.inline_write);
	cap.max_inline_data = 80;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_DRIVER, 0, &g),
			 0);
	ck_assert_uint_eq(g.sq_wqe_size, 128);
	ck_assert(!g.inline_write);
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_RC, 0, &g), 0);
	ck_assert(g.inline_write);
	cap.max_inline_data = 81;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_DRIVER, 0, &g),
			 EINVAL);

	/* 4096 64-byte WQEs fill the LLQ: 2048 of 128 bytes */
	cap.max_inline_data = 64;
	cap.max_send_wr = 2048;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_DRIVER, 0, &g),
			 0);
	cap.max_send_wr = 2049;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_DRIVER, 0, &g),
			 EINVAL);
	cap.max_inline_data = 0;
	ck_assert_int_eq(efa_qp_geometry(fx.ctx, &cap, IBV_QPT_DRIVER, 0, &g),
			 0);
	fx.ctx->inline_buf_size_ex = 0;
}
END_TEST

/*
 * RC is for devices that offer it; with the offer the usual checks apply,
 * and RDMA write wherever the device offers that.
 */
START_TEST(test_create_rc)
{
	struct ibv_context *ibvctx = &fx.ctx->ibvctx.context;
	struct efa_pd pd = { .ibvpd.context = ibvctx };
	struct ibv_qp_init_attr_ex attr;
	struct efa_fake_cq fc;
	struct ibv_srq srq;

	efa_fake_cq_init(&fx, &fc, 1, 4, EFA_IO_CQE_SIZE, 0);
	attr = (struct ibv_qp_init_attr_ex){
		.qp_type = IBV_QPT_RC,
		.send_cq = &fc.cq->verbs_cq.cq,
		.recv_cq = &fc.cq->verbs_cq.cq,
		.srq = &srq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ,
		.pd = &pd.ibvpd,
	};

	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	/* offered: refused for the SRQ only */
	fx.ctx->device_caps |= SEFA_QUERY_DEVICE_CAPS_RC;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EINVAL);
	attr.send_ops_flags |= IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	/* no RDMA write on the device: neither on RC nor on SRD */
	fx.ctx->device_caps &= ~EFA_QUERY_DEVICE_CAPS_RDMA_WRITE;
	attr.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE;
	ck_assert_ptr_null(efa_create_qp_ex(ibvctx, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	attr.qp_type = IBV_QPT_DRIVER;
	memset(&buf, 0, sizeof(buf));
	buf.qp.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD;
	ck_assert_ptr_null(efadv_create_qp_ex(ibvctx, &attr, &buf.qp, 16));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	fx.ctx->device_caps |= EFA_QUERY_DEVICE_CAPS_RDMA_WRITE;
	ck_assert_ptr_null(efadv_create_qp_ex(ibvctx, &attr, &buf.qp, 16));
	ck_assert_int_eq(errno, EINVAL);

	efa_fake_cq_fini(&fc);
}
END_TEST

START_TEST(test_create_ah_needs_grh)
{
	struct efa_pd pd = { .ibvpd.context = &fx.ctx->ibvctx.context };
	struct ibv_ah_attr attr = { .is_global = 0, .port_num = 1 };

	ck_assert_ptr_null(efa_create_ah(&pd.ibvpd, &attr));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

START_TEST(test_other_device)
{
	struct ibv_context *ibvctx = &fx.ctx->ibvctx.context;
	struct efa_pd pd = { .ibvpd.context = ibvctx };
	struct ibv_qp_init_attr_ex attr_ex = { .qp_type = IBV_QPT_DRIVER };
	struct ibv_qp_init_attr attr = { .qp_type = IBV_QPT_DRIVER };
	struct ibv_cq_init_attr_ex cq_attr = { .cqe = 1 };
	struct efa_fake_cq fc;
	struct ibv_mr mr = fake_mr();
	struct efa_ah ah;

	ck_assert_int_eq(efadv_query_mr(&mr, &buf.mr, sizeof(buf.mr)),
			 EOPNOTSUPP);
	ck_assert_int_eq(kern.calls, 0);
	efa_fake_ah_init(&fx, &ah, 1);
	ck_assert_int_eq(efadv_query_ah(&ah.ibvah, &buf.ah, sizeof(buf.ah)),
			 EOPNOTSUPP);
	sefa_assert_poisoned(&buf, 0, sizeof(buf));

	memset(&buf, 0, sizeof(buf));
	ck_assert_ptr_null(efadv_create_cq(ibvctx, &cq_attr, &buf.cq, 16));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_ptr_null(efadv_create_qp_ex(ibvctx, &attr_ex, &buf.qp, 16));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_ptr_null(efadv_create_driver_qp(&pd.ibvpd, &attr, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);

	efa_fake_cq_init(&fx, &fc, 1, 4, EFA_IO_CQE_SIZE, 0);
	ck_assert_ptr_null(efadv_cq_from_ibv_cq_ex(&fc.cq->verbs_cq.cq_ex));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	efa_fake_cq_fini(&fc);
}
END_TEST

START_TEST(test_cq_from_ibv_cq_ex)
{
	struct efa_fake_cq fc;

	efa_fake_cq_init(&fx, &fc, 1, 4, EFA_IO_CQE_SIZE, 0);
	ck_assert_ptr_eq(efadv_cq_from_ibv_cq_ex(&fc.cq->verbs_cq.cq_ex),
			 &fc.cq->dv_cq);
	efa_fake_cq_fini(&fc);
}
END_TEST

/*
 * A QP created without send ops flags has no extended QP: pyverbs hands
 * ibv_qp_to_qp_ex()'s NULL for it straight to efadv_qp_from_ibv_qp_ex().
 */
START_TEST(test_from_null)
{
	errno = 0;
	ck_assert_ptr_null(efadv_qp_from_ibv_qp_ex(NULL));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(efadv_cq_from_ibv_cq_ex(NULL));
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *efadv_suite(void)
{
	Suite *s = suite_create("efadv_args");
	TCase *tc = tcase_create("efa");
	TCase *other = tcase_create("other_device");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_query_mr_cmd);
	tcase_add_test(tc, test_query_mr);
	tcase_add_test(tc, test_query_mr_inlen);
	tcase_add_test(tc, test_query_mr_unsupported);
	tcase_add_test(tc, test_mr_attr_fill);
	tcase_add_test(tc, test_query_ah);
	tcase_add_test(tc, test_create_cq_attr);
	tcase_add_test(tc, test_create_cq_refused);
	tcase_add_test(tc, test_create_qp_ex_attr);
	tcase_add_test(tc, test_create_qp_udata);
	tcase_add_test(tc, test_create_qp_refused);
	tcase_add_test(tc, test_geometry);
	tcase_add_test(tc, test_geometry_wqe_128);
	tcase_add_test(tc, test_create_rc);
	tcase_add_test(tc, test_create_ah_needs_grh);
	tcase_add_test(tc, test_cq_from_ibv_cq_ex);
	tcase_add_test(tc, test_from_null);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(other, setup_other, teardown);
	tcase_add_test(other, test_other_device);
	suite_add_tcase(s, other);
	return s;
}

SEFA_CHECK_MAIN(efadv_suite)
