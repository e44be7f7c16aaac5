// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The daemon's ioctl() decoder of the uverbs ABI against malformed input:
 * the header, the attributes, handles, this project's indirect keys, and
 * random commands through both decoders.
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

#include "efa/efa_ext_abi.h"
#include "decoder_fixture.h"
#include "check_main.h"


struct ioctl_buf {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[8];
};

static void ioctl_init(struct ioctl_buf *b, uint16_t obj, uint16_t meth,
		       unsigned int nattrs)
{
	memset(b, 0, sizeof(*b));
	b->hdr.length = sizeof(b->hdr) + nattrs * sizeof(b->attrs[0]);
	b->hdr.object_id = obj;
	b->hdr.method_id = meth;
	b->hdr.num_attrs = nattrs;
	b->hdr.driver_id = RDMA_DRIVER_EFA;
}

static int ioc(struct ioctl_buf *b)
{
	int ret;

	sefa_daemon_lock(&d);
	ret = sefa_uverbs_ioctl(&c, RDMA_VERBS_IOCTL, (uintptr_t)b);
	sefa_daemon_unlock(&d);
	return ret;
}

static void query_port_ioctl(struct ioctl_buf *b,
			     struct ib_uverbs_query_port_resp_ex *resp)
{
	ioctl_init(b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT, 2);
	b->attrs[0].attr_id = UVERBS_ATTR_QUERY_PORT_PORT_NUM;
	b->attrs[0].len = 8;
	b->attrs[0].data = 1;
	b->attrs[1].attr_id = UVERBS_ATTR_QUERY_PORT_RESP;
	b->attrs[1].len = sizeof(*resp);
	b->attrs[1].data = (uintptr_t)resp;
}

START_TEST(ioctl_header)
{
	struct ib_uverbs_query_port_resp_ex resp;
	struct ioctl_buf b;

	c.has_ucontext = true;
	query_port_ioctl(&b, &resp);
	sefa_daemon_lock(&d);
	ck_assert_int_eq(sefa_uverbs_ioctl(&c, 0x1234, (uintptr_t)&b),
			 -ENOTTY);
	ck_assert_int_eq(sefa_uverbs_ioctl(&c, RDMA_VERBS_IOCTL,
					   (uintptr_t)unmapped),
			 -EFAULT);
	sefa_daemon_unlock(&d);

	b.hdr.length += 16;
	ck_assert_int_eq(ioc(&b), -EINVAL);
	query_port_ioctl(&b, &resp);
	b.hdr.reserved1 = 1;
	ck_assert_int_eq(ioc(&b), -EPROTONOSUPPORT);
	query_port_ioctl(&b, &resp);
	b.hdr.driver_id = RDMA_DRIVER_MLX5;
	ck_assert_int_eq(ioc(&b), -EINVAL);
	query_port_ioctl(&b, &resp);
	b.hdr.method_id = 200;
	ck_assert_int_eq(ioc(&b), -EPROTONOSUPPORT);

	query_port_ioctl(&b, &resp);
	ck_assert_int_eq(ioc(&b), 0);
	ck_assert_int_eq(resp.legacy_resp.max_msg_sz, 8928);
	ck_assert(b.attrs[1].flags & UVERBS_ATTR_F_VALID_OUTPUT);
}
END_TEST

START_TEST(ioctl_attrs)
{
	struct ib_uverbs_query_port_resp_ex resp;
	struct ioctl_buf b;

	c.has_ucontext = true;
	/* a mandatory attribute missing */
	query_port_ioctl(&b, &resp);
	b.hdr.num_attrs = 1;
	b.hdr.length -= 16;
	ck_assert_int_eq(ioc(&b), -EINVAL);

	/* unknown: ignored when optional, refused when mandatory */
	query_port_ioctl(&b, &resp);
	b.hdr.num_attrs = 3;
	b.hdr.length += 16;
	b.attrs[2].attr_id = 77;
	ck_assert_int_eq(ioc(&b), 0);
	b.attrs[2].flags = UVERBS_ATTR_F_MANDATORY;
	ck_assert_int_eq(ioc(&b), -EPROTONOSUPPORT);

	/* the same attribute twice */
	b.attrs[2] = b.attrs[0];
	ck_assert_int_eq(ioc(&b), -EINVAL);

	/* a response buffer of the wrong size, or unwritable */
	query_port_ioctl(&b, &resp);
	b.attrs[1].len = 8;
	ck_assert_int_eq(ioc(&b), -EINVAL);
	query_port_ioctl(&b, &resp);
	b.attrs[1].data = (uintptr_t)unmapped;
	ck_assert_int_eq(ioc(&b), -EFAULT);

	/* reserved attribute bits */
	query_port_ioctl(&b, &resp);
	b.attrs[1].attr_data.reserved = 1;
	ck_assert_int_eq(ioc(&b), -EINVAL);

	/* port number out of range */
	query_port_ioctl(&b, &resp);
	b.attrs[0].data = 9;
	ck_assert_int_eq(ioc(&b), -EINVAL);
}
END_TEST

START_TEST(ioctl_invoke_write_probe)
{
	struct ioctl_buf b;

	/* libibverbs' has_ioctl_write(): a real kernel answers ENOSPC */
	ioctl_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE, 1);
	b.attrs[0].attr_id = UVERBS_ATTR_WRITE_CMD;
	b.attrs[0].len = 8;
	b.attrs[0].data = IB_USER_VERBS_CMD_QUERY_DEVICE;
	ck_assert_int_eq(ioc(&b), -ENOSPC);

	b.attrs[0].data = 60;
	ck_assert_int_eq(ioc(&b), -EOPNOTSUPP);
}
END_TEST

START_TEST(ioctl_write_mode)
{
	struct ib_uverbs_query_port_resp_ex resp;
	struct ioctl_buf b;

	d.abi = SEFA_ABI_WRITE;
	c.has_ucontext = true;
	query_port_ioctl(&b, &resp);
	ck_assert_int_eq(ioc(&b), -ENOTTY);
}
END_TEST

START_TEST(ioctl_gid_entry)
{
	struct ib_uverbs_gid_entry e;
	struct ioctl_buf b;

	c.has_ucontext = true;
	ioctl_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY, 4);
	b.attrs[0] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_PORT, .len = 8, .data = 1 };
	b.attrs[1] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, .len = 8 };
	b.attrs[2] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, .len = 4 };
	b.attrs[3] = (struct ib_uverbs_attr){
		.attr_id = UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
		.len = sizeof(e), .data = (uintptr_t)&e };
	ck_assert_int_eq(ioc(&b), 0);
	ck_assert_mem_eq(e.gid, d.dev[0].gid, 16);

	b.attrs[1].data = 1;		/* beyond the table */
	ck_assert_int_eq(ioc(&b), -EINVAL);
	b.attrs[1].data = 0;
	b.attrs[2].data = 1;		/* no flags are defined */
	ck_assert_int_eq(ioc(&b), -EINVAL);
}
END_TEST

/* A handle that names nothing, or an object of another type. */
START_TEST(bad_handles)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dealloc_pd core;
	} dealloc = {
		.hdr = { .command = IB_USER_VERBS_CMD_DEALLOC_PD, .in_words = 3 },
	};
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_query_qp core;
	} qq = {
		.hdr = { .command = IB_USER_VERBS_CMD_QUERY_QP,
			 .in_words = sizeof(qq) / 4,
			 .out_words = sizeof(struct ib_uverbs_query_qp_resp) / 4 },
	};
	struct ib_uverbs_query_qp_resp qresp;
	struct ioctl_buf b;
	struct sefa_pd *pd;

	c.has_ucontext = true;
	ck_assert_int_eq(sefa_pd_alloc(&c, &pd), 0);

	dealloc.core.pd_handle = 77;
	ck_assert_int_eq(wr(&dealloc, sizeof(dealloc)), -EINVAL);
	qq.core.response = (uintptr_t)&qresp;
	qq.core.qp_handle = pd->uobj.handle;	/* a PD, not a QP */
	ck_assert_int_eq(wr(&qq, sizeof(qq)), -EINVAL);

	/* the ioctl ABI says ENOENT */
	ioctl_init(&b, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY, 1);
	b.attrs[0].attr_id = UVERBS_ATTR_DESTROY_PD_HANDLE;
	b.attrs[0].data = 1234;
	ck_assert_int_eq(ioc(&b), -ENOENT);
	/* an IDR attribute with a length is malformed */
	b.attrs[0].len = 4;
	ck_assert_int_eq(ioc(&b), -EINVAL);

	/* the real one still goes, once */
	dealloc.core.pd_handle = pd->uobj.handle;
	ck_assert_int_eq(wr(&dealloc, sizeof(dealloc)), sizeof(dealloc));
	ck_assert_int_eq(wr(&dealloc, sizeof(dealloc)), -EINVAL);
	sefa_client_release(&c);
}
END_TEST

/* Outputs of the indirect key create method: lkey, rkey, max_entries. */
struct indirect_out {
	uint32_t lkey;
	uint32_t rkey;
	uint32_t max_entries;
};

static void create_indirect_ioctl(struct ioctl_buf *b, uint32_t pd_handle,
				  uint32_t max_entries, uint32_t access,
				  struct indirect_out *out)
{
	ioctl_init(b, UVERBS_OBJECT_MR, SEFA_IB_METHOD_MR_CREATE_INDIRECT, 7);
	b->attrs[0] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_HANDLE };
	b->attrs[1] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE,
		.data = pd_handle };
	b->attrs[2] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_MAX_ENTRIES, .len = 4,
		.data = max_entries };
	b->attrs[3] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_ACCESS, .len = 4,
		.data = access };
	b->attrs[4] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_RESP_LKEY, .len = 4,
		.data = (uintptr_t)&out->lkey };
	b->attrs[5] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_RESP_RKEY, .len = 4,
		.data = (uintptr_t)&out->rkey };
	b->attrs[6] = (struct ib_uverbs_attr){
		.attr_id = SEFA_IB_ATTR_INDIRECT_MR_RESP_MAX_ENTRIES, .len = 4,
		.data = (uintptr_t)&out->max_entries };
}

static void use_profile(const char *name)
{
	d.profile = sefa_profile_find(name);
	d.dev[0].profile = d.profile;
}

START_TEST(ioctl_create_indirect)
{
	const uint32_t rw = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	unsigned int nobjects;
	struct indirect_out out;
	struct ioctl_buf b;
	struct sefa_mr *mr;
	struct sefa_pd *pd;

	use_profile("extended");
	c.has_ucontext = true;
	ck_assert_int_eq(sefa_pd_alloc(&c, &pd), 0);
	nobjects = c.nobjects;

	/* a mandatory attribute missing */
	create_indirect_ioctl(&b, pd->uobj.handle, 16, rw, &out);
	b.hdr.num_attrs = 6;
	b.hdr.length -= sizeof(b.attrs[0]);
	ck_assert_int_eq(ioc(&b), -EINVAL);

	create_indirect_ioctl(&b, 1234, 16, rw, &out);
	ck_assert_int_eq(ioc(&b), -ENOENT);
	create_indirect_ioctl(&b, pd->uobj.handle, 0, rw, &out);
	ck_assert_int_eq(ioc(&b), -EINVAL);
	create_indirect_ioctl(&b, pd->uobj.handle,
			      SEFA_INDIRECT_MR_MAX_ENTRIES + 1, rw, &out);
	ck_assert_int_eq(ioc(&b), -EINVAL);
	create_indirect_ioctl(&b, pd->uobj.handle, 16,
			      IBV_ACCESS_REMOTE_WRITE, &out);
	ck_assert_int_eq(ioc(&b), -EINVAL);
	create_indirect_ioctl(&b, pd->uobj.handle, 16,
			      rw | IBV_ACCESS_MW_BIND, &out);
	ck_assert_int_eq(ioc(&b), -EINVAL);
	create_indirect_ioctl(&b, pd->uobj.handle, 16,
			      rw | IBV_ACCESS_REMOTE_ATOMIC, &out);
	ck_assert_int_eq(ioc(&b), -EOPNOTSUPP);
	/* an answer that cannot be written takes the key back */
	create_indirect_ioctl(&b, pd->uobj.handle, 16, rw, &out);
	b.attrs[6].data = (uintptr_t)unmapped;
	ck_assert_int_eq(ioc(&b), -EFAULT);
	ck_assert_uint_eq(c.nobjects, nobjects);
	ck_assert_uint_eq(pd->uobj.usecnt, 0);

	memset(&out, 0xff, sizeof(out));
	create_indirect_ioctl(&b, pd->uobj.handle, 16, rw, &out);
	ck_assert_int_eq(ioc(&b), 0);
	ck_assert(b.attrs[4].flags & UVERBS_ATTR_F_VALID_OUTPUT);
	ck_assert_uint_eq(out.lkey, out.rkey);
	ck_assert_uint_eq(out.max_entries, 16);
	mr = sefa_mr_from_handle(&c, b.attrs[0].data);
	ck_assert_ptr_nonnull(mr);
	ck_assert(mr->indirect);
	ck_assert(!mr->filled);
	ck_assert_uint_eq(mr->lkey, out.lkey);
	ck_assert_ptr_eq(sefa_mr_get(c.dev, out.lkey), mr);
	/* not a region: the direct lookup does not see it */
	ck_assert_ptr_null(sefa_mr_lookup(c.dev, out.lkey, 0, 0));

	/* it holds its PD, until MR destroy takes it, free as it is */
	ck_assert_int_eq(sefa_pd_destroy(pd), -EBUSY);
	ioctl_init(&b, UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY, 1);
	b.attrs[0].attr_id = UVERBS_ATTR_DESTROY_MR_HANDLE;
	b.attrs[0].data = mr->uobj.handle;
	ck_assert_int_eq(ioc(&b), 0);
	ck_assert_ptr_null(sefa_mr_get(c.dev, out.lkey));
	ck_assert_int_eq(sefa_pd_destroy(pd), 0);
	sefa_client_release(&c);
}
END_TEST

START_TEST(ioctl_create_indirect_no_cap)
{
	struct indirect_out out;
	struct ioctl_buf b;
	struct sefa_pd *pd;

	c.has_ucontext = true;
	ck_assert_int_eq(sefa_pd_alloc(&c, &pd), 0);
	create_indirect_ioctl(&b, pd->uobj.handle, 16,
			      IBV_ACCESS_LOCAL_WRITE, &out);
	ck_assert_int_eq(ioc(&b), -EOPNOTSUPP);
	ck_assert_uint_eq(pd->uobj.usecnt, 0);
	sefa_client_release(&c);
}
END_TEST

/*
 * What a UMR fill accepts: nonzero ranges of regions of the key's PD, and
 * rights within the IB rule.  A refused fill changes nothing.
 */
START_TEST(indirect_fill)
{
	static uint8_t mem[8192];
	const uint32_t lw = IBV_ACCESS_LOCAL_WRITE;
	uint64_t va = (uintptr_t)mem;
	struct sefa_mr *r1, *r2, *other, *mkey, *nested;
	struct sefa_pd *pd, *pd2;
	struct efa_io_klm klm[2];

	use_profile("extended");
	c.has_ucontext = true;
	ck_assert_int_eq(sefa_pd_alloc(&c, &pd), 0);
	ck_assert_int_eq(sefa_pd_alloc(&c, &pd2), 0);
	ck_assert_int_eq(sefa_mr_reg(&c, pd, va, 4096, va, lw, &r1), 0);
	ck_assert_int_eq(sefa_mr_reg(&c, pd, va + 4096, 4096, va + 4096,
				     lw | IBV_ACCESS_REMOTE_READ, &r2), 0);
	ck_assert_int_eq(sefa_mr_reg(&c, pd2, va, 4096, va, lw, &other), 0);
	ck_assert_int_eq(sefa_mr_create_indirect(&c, pd, 2,
			 lw | IBV_ACCESS_REMOTE_READ, &mkey), 0);
	ck_assert_int_eq(sefa_mr_create_indirect(&c, pd, 1, lw, &nested), 0);

	klm[0] = (struct efa_io_klm){ .length = 100, .lkey = r1->lkey,
				      .addr = va + 3996 };
	klm[1] = (struct efa_io_klm){ .length = 4096, .lkey = r2->lkey,
				      .addr = va + 4096 };
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 2, 0x10000,
				      lw | IBV_ACCESS_REMOTE_READ |
				      IBV_ACCESS_REMOTE_WRITE), 0);
	ck_assert(mkey->filled);
	ck_assert_uint_eq(mkey->iova, 0x10000);
	ck_assert_uint_eq(mkey->length, 4196);
	ck_assert_uint_eq(mkey->klm[1].offset, 100);
	/* the fill's rights within the key's */
	ck_assert_uint_eq(mkey->access, lw | IBV_ACCESS_REMOTE_READ);
	ck_assert(sefa_mr_holds(mkey, 0x10000 + 4195, 1));
	ck_assert(!sefa_mr_holds(mkey, 0x10000 + 4195, 2));

	/* each refused; the fill above stays */
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 3, 0, lw), -EINVAL);
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 2, 0,
				      IBV_ACCESS_REMOTE_WRITE), -EINVAL);
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 2, 0,
				      lw | IBV_ACCESS_MW_BIND), -EINVAL);
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 2, UINT64_MAX - 100, lw),
			 -EINVAL);
	klm[1].length = 0;
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 2, 0, lw), -EINVAL);
	klm[1].length = 4097;			/* beyond the region */
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 2, 0, lw), -EINVAL);
	klm[1] = (struct efa_io_klm){ .length = 16, .lkey = other->lkey,
				      .addr = va };
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 2, 0, lw), -EINVAL);
	klm[1] = (struct efa_io_klm){ .length = 16, .lkey = nested->lkey };
	ck_assert_int_eq(sefa_mr_fill(mkey, klm, 2, 0, lw), -EINVAL);
	ck_assert(mkey->filled);
	ck_assert_uint_eq(mkey->iova, 0x10000);
	ck_assert_uint_eq(mkey->length, 4196);
	ck_assert_uint_eq(mkey->nentries, 2);

	/* a refill needs no invalidation; the key never changes */
	klm[1] = (struct efa_io_klm){ .length = 8, .lkey = r2->lkey,
				      .addr = va + 4096 };
	ck_assert_int_eq(sefa_mr_fill(mkey, &klm[1], 1, 0, lw), 0);
	ck_assert_uint_eq(mkey->length, 8);
	sefa_mr_invalidate(mkey);
	ck_assert(!mkey->filled);
	sefa_client_release(&c);
}
END_TEST

/*
 * Random commands, and random mutations of valid ones, through both
 * decoders: every one must come back with a byte count or an errno, never
 * a crash (the sanitizer build runs this too).  Fixed seed: repeatable.
 *
 * The "client" is this process, so whatever a command points at gets
 * written like a kernel would: pointers go to a sacrificial buffer large
 * enough for any attribute length, and a valid command's response pointer
 * is left alone.
 */
START_TEST(random_commands)
{
	static uint8_t buf[128 * 1024];
	struct query_port_cmd qp;
	struct ib_uverbs_query_port_resp resp;
	struct ioctl_buf b;
	unsigned int seed = 20261129, i, j;
	int ret;

	c.has_ucontext = true;
	for (i = 0; i < 20000; i++) {
		size_t len = rand_r(&seed) % 4096;

		for (j = 0; j < len; j++)
			buf[j] = rand_r(&seed);
		if (i & 1) {
			/* a valid command with one byte changed */
			size_t at = rand_r(&seed) % (sizeof(qp) - 8);

			query_port_cmd(&qp, &resp);
			if (at >= offsetof(struct query_port_cmd, core.response))
				at += 8;
			((uint8_t *)&qp)[at] ^= 1 << (rand_r(&seed) % 8);
			ret = wr(&qp, sizeof(qp));
		} else {
			ret = wr(buf, len);
		}
		ck_assert(ret < 0 || ret == (int)(i & 1 ? sizeof(qp) : len));

		ioctl_init(&b, rand_r(&seed) % 12, rand_r(&seed) % 8,
			   rand_r(&seed) % 5);
		for (j = 0; j < sizeof(b.attrs); j++)
			((uint8_t *)b.attrs)[j] = rand_r(&seed);
		for (j = 0; j < 4; j++)
			if (rand_r(&seed) & 1)
				b.attrs[j].data = (uintptr_t)buf;
		ret = ioc(&b);
		ck_assert(ret <= 0);
	}
	sefa_client_release(&c);
}
END_TEST

static Suite *ioctl_decoder_suite(void)
{
	Suite *s = suite_create("uverbs ioctl decoder");
	TCase *i = tcase_create("ioctl");

	tcase_add_checked_fixture(i, decoder_setup, NULL);
	/* random_commands runs 20000 commands: seconds under ASan. */
	tcase_set_timeout(i, 60);
	tcase_add_test(i, ioctl_header);
	tcase_add_test(i, ioctl_attrs);
	tcase_add_test(i, ioctl_invoke_write_probe);
	tcase_add_test(i, ioctl_write_mode);
	tcase_add_test(i, ioctl_gid_entry);
	tcase_add_test(i, bad_handles);
	tcase_add_test(i, ioctl_create_indirect);
	tcase_add_test(i, ioctl_create_indirect_no_cap);
	tcase_add_test(i, indirect_fill);
	tcase_add_test(i, random_commands);
	suite_add_tcase(s, i);
	return s;
}

SEFA_CHECK_MAIN(ioctl_decoder_suite)
