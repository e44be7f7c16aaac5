// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Agents of the MAD layer (mad/agent.c): what may register and what
 * collides, with the errno ib_register_mad_agent() gives; the hi_tid that
 * routes each response back to the agent that asked; requests to the
 * agent registered for them, and the answer when nobody is.
 */
#include <errno.h>

#include "check_main.h"
#include "mad_fixture.h"

#define METHOD(m)	{ 1ULL << (m), 0 }

struct reg_case {
	const char *what;
	struct mad_reg reg;
	int err;
};

static const struct reg_case reg_cases[] = {
	{ "responses only", { .qpn = 1 }, 0 },
	{ "responses only, user RMPP",
	  { .qpn = 1, .flags = IB_USER_MAD_USER_RMPP }, -EINVAL },
	{ "RMPP version 2", { .qpn = 1, .rmpp_version = 2 }, -EINVAL },
	{ "class version 0x83",
	  { .qpn = 1, .mgmt_class = MAD_CLASS_PERF, .class_version = 0x83,
	    .method_mask = METHOD(MAD_METHOD_GET) }, -EINVAL },
	{ "class 0x50",
	  { .qpn = 1, .mgmt_class = 0x50, .class_version = 1,
	    .method_mask = METHOD(MAD_METHOD_GET) }, -EINVAL },
	{ "DR SMPs on QP0",
	  { .qpn = 0, .mgmt_class = MAD_CLASS_SUBN_DR, .class_version = 1,
	    .method_mask = METHOD(MAD_METHOD_GET) }, 0 },
	{ "SMPs on QP1",
	  { .qpn = 1, .mgmt_class = MAD_CLASS_SUBN_LID, .class_version = 1,
	    .method_mask = METHOD(MAD_METHOD_GET) }, -EINVAL },
	{ "a GSI class on QP0",
	  { .qpn = 0, .mgmt_class = MAD_CLASS_PERF, .class_version = 1,
	    .method_mask = METHOD(MAD_METHOD_GET) }, -EINVAL },
	{ "vendor class without OUI",
	  { .qpn = 1, .mgmt_class = 0x30, .class_version = 1,
	    .method_mask = METHOD(MAD_METHOD_GET) }, -EINVAL },
	{ "vendor class with OUI, RMPP",
	  { .qpn = 1, .mgmt_class = 0x30, .class_version = 1,
	    .oui = MFX_OUI, .method_mask = METHOD(MAD_METHOD_GET),
	    .rmpp_version = 1 }, 0 },
	{ "RMPP on a class without it",
	  { .qpn = 1, .mgmt_class = MAD_CLASS_PERF, .class_version = 1,
	    .method_mask = METHOD(MAD_METHOD_GET), .rmpp_version = 1 },
	  -EINVAL },
};

START_TEST(reg_rules)
{
	const struct reg_case *c = &reg_cases[_i];
	int err = 1;

	mfx_agent(0, &c->reg, &err);
	ck_assert_msg(err == c->err, "%s: %d, not %d", c->what, err, c->err);
}
END_TEST

/* One receiver per class, version, method (and OUI): others may share. */
START_TEST(reg_collides)
{
	struct mad_reg perf = {
		.qpn = 1, .mgmt_class = MAD_CLASS_PERF, .class_version = 1,
		.method_mask = { 1ULL << MAD_METHOD_GET |
				 1ULL << MAD_METHOD_SET },
	};
	struct mad_reg vendor = {
		.qpn = 1, .mgmt_class = 0x31, .class_version = 1,
		.oui = MFX_OUI, .method_mask = METHOD(MAD_METHOD_GET),
	};
	struct mad_agent *first;
	int err;

	first = mfx_agent(0, &perf, &err);
	ck_assert_ptr_nonnull(first);
	perf.method_mask[0] = 1ULL << MAD_METHOD_SET;
	ck_assert_ptr_null(mfx_agent(0, &perf, &err));
	ck_assert_int_eq(err, -EINVAL);
	/* another method, version or port: no collision */
	perf.method_mask[0] = 1ULL << MAD_METHOD_TRAP_REPRESS;
	ck_assert_ptr_nonnull(mfx_agent(0, &perf, &err));
	perf.method_mask[0] = 1ULL << MAD_METHOD_GET;
	perf.class_version = 2;
	ck_assert_ptr_nonnull(mfx_agent(0, &perf, &err));
	perf.class_version = 1;
	ck_assert_ptr_nonnull(mfx_agent(1, &perf, &err));
	/* once the first is gone its methods are free again */
	mfx_unregister(first);
	ck_assert_ptr_nonnull(mfx_agent(0, &perf, &err));
	/* a vendor class collides per OUI */
	ck_assert_ptr_nonnull(mfx_agent(0, &vendor, &err));
	ck_assert_ptr_null(mfx_agent(0, &vendor, &err));
	vendor.oui = MFX_OUI + 1;
	ck_assert_ptr_nonnull(mfx_agent(0, &vendor, &err));
}
END_TEST

/* Every agent of a port has its own hi_tid, never 0, never reused at once. */
START_TEST(hi_tids)
{
	const struct mad_reg reg = { .qpn = 1 };
	struct mad_agent *a = mfx_agent(0, &reg, NULL);
	struct mad_agent *b = mfx_agent(0, &reg, NULL);
	uint32_t gone;

	ck_assert_uint_ne(a->hi_tid, 0);
	ck_assert_uint_ne(b->hi_tid, 0);
	ck_assert_uint_ne(a->hi_tid, b->hi_tid);
	gone = b->hi_tid;
	mfx_unregister(b);
	b = mfx_agent(0, &reg, NULL);
	ck_assert_uint_ne(b->hi_tid, gone);
	ck_assert_uint_ne(b->hi_tid, a->hi_tid);
}
END_TEST

/* A PortCounters Get from @agent on device 1 to device 0's PMA. */
static void ask_pma(struct mad_agent *agent, uint64_t tid)
{
	uint8_t m[MAD_SIZE];

	mad_hdr_init(m, MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0012, tid);
	ck_assert_int_eq(mfx_send(agent, mfx_d.dev[0].lid, 1, m, MAD_SIZE,
				  1000, 0), 0);
}

/* Two agents ask with the same TID: each gets its own answer. */
START_TEST(tid_routing)
{
	const struct mad_reg reg = { .qpn = 1 };
	struct mad_agent *a = mfx_agent(1, &reg, NULL);
	struct mad_agent *b = mfx_agent(1, &reg, NULL);
	const struct mfx_got *g;

	ask_pma(b, 0x1234);
	ask_pma(a, 0x1234);
	ck_assert_uint_eq(mfx_ngot, 2);
	g = mfx_got_by(a, 0);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(get64(g->r->data + MAD_OFF_TID),
			  (uint64_t)a->hi_tid << 32 | 0x1234);
	ck_assert_uint_eq(g->r->data[MAD_OFF_METHOD],
			  MAD_METHOD_RESP | MAD_METHOD_GET);
	ck_assert_uint_eq(g->slid, mfx_d.dev[0].lid);
	ck_assert_uint_eq(be16toh(g->r->hdr.lid), mfx_d.dev[0].lid);
	ck_assert_uint_eq(be32toh(g->r->hdr.qpn), 1);
	g = mfx_got_by(b, 0);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(get64(g->r->data + MAD_OFF_TID),
			  (uint64_t)b->hi_tid << 32 | 0x1234);
	/* answered sends are over */
	ck_assert_uint_eq(a->nsends, 0);
	ck_assert_uint_eq(b->nsends, 0);
}
END_TEST

/* Responses nobody waits for are dropped; from the wire, counted. */
START_TEST(unasked_responses)
{
	const struct mad_reg reg = { .qpn = 1 };
	struct mad_agent *a = mfx_agent(0, &reg, NULL);
	uint8_t m[MAD_SIZE];

	/* a's hi_tid, but a sent nothing */
	mad_hdr_init(m, MAD_CLASS_PERF, 1, MAD_METHOD_RESP | MAD_METHOD_GET,
		     0x12, (uint64_t)a->hi_tid << 32 | 7);
	mfx_from_peer(0, 1, 1, m);
	/* a hi_tid no agent holds */
	put64(m + MAD_OFF_TID, (uint64_t)(a->hi_tid + 100) << 32 | 7);
	mfx_from_peer(0, 1, 1, m);
	ck_assert_uint_eq(mfx_ngot, 0);
	ck_assert_uint_eq(mfx_d.wire_cnt.drops[SEFA_DROP_MAD_UNASKED], 2);
	ck_assert_uint_eq(mfx_nout, 0);
}
END_TEST

/* A request goes to the agent registered for its class, version, method. */
START_TEST(request_to_receiver)
{
	const struct mad_reg reg = {
		.qpn = 1, .mgmt_class = 0x31, .class_version = 1,
		.oui = MFX_OUI, .method_mask = METHOD(MAD_METHOD_SET),
	};
	struct mad_agent *r = mfx_agent(0, &reg, NULL);
	uint8_t m[MAD_SIZE];
	const struct mfx_got *g;

	mad_hdr_init(m, 0x31, 1, MAD_METHOD_SET, 0x10, 0x55);
	m[VENDOR_OFF_OUI] = MFX_OUI >> 16;
	put16(m + VENDOR_OFF_OUI + 1, MFX_OUI & 0xffff);
	m[MAD_SIZE - 1] = 0xab;
	mfx_from_peer(0, 7, 1, m);
	g = mfx_got_by(r, 0);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->r->len, MAD_SIZE);
	ck_assert_mem_eq(g->r->data, m, MAD_SIZE);
	ck_assert_uint_eq(be32toh(g->r->hdr.qpn), 7);
	ck_assert_uint_eq(be16toh(g->r->hdr.lid), MFX_PEER_LID);
	ck_assert_uint_eq(g->r->hdr.id, r->id);
	/* the TID of a request is the sender's, untouched */
	ck_assert_uint_eq(get64(g->r->data + MAD_OFF_TID), 0x55);
	/* another OUI: nobody's; a Set nobody takes is answered */
	m[VENDOR_OFF_OUI + 2] ^= 1;
	mfx_from_peer(0, 7, 1, m);
	ck_assert_uint_eq(mfx_ngot, 1);
	ck_assert_uint_eq(mfx_nout, 1);
	ck_assert_uint_eq(mfx_out[0].mad[MAD_OFF_METHOD],
			  MAD_METHOD_RESP | MAD_METHOD_GET);
	ck_assert_uint_eq(get16(mfx_out[0].mad + MAD_OFF_STATUS),
			  MAD_STATUS_UNSUP_METH_ATTR);
	ck_assert_uint_eq(mfx_out[0].f.dlid, MFX_PEER_LID);
	ck_assert_uint_eq(mfx_out[0].f.dst_qp, 7);
	ck_assert_uint_eq(get64(mfx_out[0].mad + MAD_OFF_TID), 0x55);
}
END_TEST

/* What the QPs refuse, and requests nobody takes that get no answer. */
START_TEST(refused)
{
	const struct mad_reg reg = {
		.qpn = 1, .mgmt_class = 0x31, .class_version = 1,
		.oui = MFX_OUI, .method_mask = METHOD(MAD_METHOD_SET),
	};
	uint8_t m[MAD_SIZE];

	mfx_agent(0, &reg, NULL);
	/* an SMP on QP1, a GSI MAD on QP0, a base version 2 */
	mad_hdr_init(m, MAD_CLASS_SUBN_LID, 1, MAD_METHOD_GET, 0x11, 1);
	mfx_from_peer(0, 1, 1, m);
	mad_hdr_init(m, 0x31, 1, MAD_METHOD_SET, 0x10, 2);
	mfx_from_peer(0, 0, 0, m);
	m[MAD_OFF_BASE_VERSION] = 2;
	mfx_from_peer(0, 1, 1, m);
	/* a Get with a status set, a method other than Get and Set */
	mad_hdr_init(m, 0x32, 1, MAD_METHOD_GET, 0x10, 3);
	put16(m + MAD_OFF_STATUS, 1);
	mfx_from_peer(0, 1, 1, m);
	mad_hdr_init(m, 0x32, 1, 0x06, 0x10, 4);
	mfx_from_peer(0, 1, 1, m);
	ck_assert_uint_eq(mfx_ngot, 0);
	ck_assert_uint_eq(mfx_nout, 0);
}
END_TEST

static Suite *agent_suite(void)
{
	Suite *s = suite_create("mad agent");
	TCase *t = tcase_create("agents");

	tcase_add_checked_fixture(t, mfx_setup, NULL);
	tcase_add_loop_test(t, reg_rules, 0,
			    sizeof(reg_cases) / sizeof(reg_cases[0]));
	tcase_add_test(t, reg_collides);
	tcase_add_test(t, hi_tids);
	tcase_add_test(t, tid_routing);
	tcase_add_test(t, unasked_responses);
	tcase_add_test(t, request_to_receiver);
	tcase_add_test(t, refused);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(agent_suite)
