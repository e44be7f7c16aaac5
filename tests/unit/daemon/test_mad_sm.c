// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the SM believes of the wire (mad/sm.c, softefa-wire(7) TRUST): a
 * NodeInfo only from the GID it asked, with the id it asked with, whose
 * port GUID is that GID's interface id, for a LID no other live port
 * holds, while it has room.  Every other answer is dropped, by reason.
 */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "mad/layer.h"

#define FX_MAX_NODES	1024

/* Reachable from here to the end, so nothing of it reads as leaked. */
static struct sefa_daemon d;
/* What the SM put on the wire last, and how many it put. */
static struct sefa_mad_frame out;
static uint8_t out_mad[MAD_SIZE];
static unsigned int nout;

static int capture(struct sefa_daemon *dd, const struct sefa_mad_frame *f)
{
	(void)dd;
	out = *f;
	memcpy(out_mad, f->mad, MAD_SIZE);
	out.mad = out_mad;
	nout++;
	return 0;
}

static void setup(void)
{
	d.profile = sefa_profile_find("extended");
	ck_assert_ptr_nonnull(d.profile);
	memcpy(d.netdev.mac, "\x02\x00\x00\x00\x00\x01", 6);
	d.run_sm = true;
	ck_assert_int_eq(sefa_devices_init(&d, 1), 0);
	d.mad_out = capture;
	ck_assert_int_eq(sefa_mad_init(&d), 0);
}

/* A peer's link-local GID; its interface id is its port GUID. */
static void peer_gid(uint8_t gid[16], unsigned int n)
{
	memset(gid, 0, 16);
	gid[0] = 0xfe;
	gid[1] = 0x80;
	gid[8] = 0x02;
	put16(gid + 14, n);
}

static uint64_t guid_of(const uint8_t gid[16])
{
	return get64(gid + 8);
}

/* The SM's last question went to @gid for @attr: its id. */
static uint64_t asked(const uint8_t gid[16], uint16_t attr)
{
	ck_assert(out.by_gid);
	ck_assert_mem_eq(out.dgid, gid, 16);
	ck_assert_uint_eq(get16(out_mad + MAD_OFF_ATTR_ID), attr);
	return get64(out_mad + MAD_OFF_TID);
}

/* The SM asks @gid who it is: the id of the question that went out. */
static uint64_t ask(const uint8_t gid[16])
{
	unsigned int sent = nout;

	sefa_sm_candidate(&d, gid);
	ck_assert_uint_eq(nout, sent + 1);
	return asked(gid, SMP_ATTR_NODE_INFO);
}

/* @gid answers @tid for @attr from @slid, with @guid as its port GUID. */
static void answer(const uint8_t gid[16], uint16_t slid, uint64_t tid,
		   uint16_t attr, uint64_t guid)
{
	uint8_t m[MAD_SIZE] = {};
	struct sefa_mad_frame f = {
		.slid = slid,
		.dlid = SEFA_SM_LID,
		.mad = m,
	};

	m[MAD_OFF_BASE_VERSION] = MAD_BASE_VERSION;
	m[MAD_OFF_CLASS] = MAD_CLASS_SUBN_LID;
	m[MAD_OFF_CLASS_VERSION] = 1;
	m[MAD_OFF_METHOD] = MAD_METHOD_RESP | MAD_METHOD_GET;
	put64(m + MAD_OFF_TID, tid);
	put16(m + MAD_OFF_ATTR_ID, attr);
	if (attr == SMP_ATTR_NODE_INFO)
		put64(m + SMP_OFF_DATA + 20, guid);	/* its port GUID */
	memcpy(f.sgid, gid, 16);
	memcpy(f.dgid, d.sm_port->gid, 16);
	sefa_mad_wire_in(&d, &f);
}

static const struct sm_node *node_at(uint16_t lid)
{
	const struct sm_node *node;
	unsigned int n, i;

	node = sm_nodes(d.sm_port, &n);
	for (i = 0; i < n; i++)
		if (node[i].lid == lid)
			return &node[i];
	return NULL;
}

static unsigned int nnodes(void)
{
	unsigned int n;

	sm_nodes(d.sm_port, &n);
	return n;
}

static uint64_t drops(enum sefa_wire_drop why)
{
	return d.wire_cnt.drops[why];
}

/* @gid, asked, answers as itself from @lid: recorded there. */
static void join(const uint8_t gid[16], uint16_t lid)
{
	answer(gid, lid, ask(gid), SMP_ATTR_NODE_INFO, guid_of(gid));
	ck_assert_ptr_nonnull(node_at(lid));
	ck_assert_mem_eq(node_at(lid)->gid, gid, 16);
}

START_TEST(forged_guid)
{
	uint8_t a[16], b[16];
	uint64_t tid;

	peer_gid(a, 1);
	peer_gid(b, 2);
	/* asked at A, with A's id, from A: but B's port GUID */
	tid = ask(a);
	answer(a, 0x100, tid, SMP_ATTR_NODE_INFO, guid_of(b));
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_FORGED), 1);
	ck_assert_ptr_null(node_at(0x100));
	ck_assert_uint_eq(nnodes(), d.ndev);
	/* A asked again answers as itself: believed */
	join(a, 0x100);
	ck_assert_uint_eq(nnodes(), d.ndev + 1);
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_FORGED), 1);
}
END_TEST

START_TEST(taken_lid)
{
	uint8_t a[16], c[16];
	uint64_t tid;

	peer_gid(a, 1);
	peer_gid(c, 3);
	join(a, 0x100);
	/* C, asked and answering as itself, claims the LID A holds */
	tid = ask(c);
	answer(c, 0x100, tid, SMP_ATTR_NODE_INFO, guid_of(c));
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_TAKEN), 1);
	ck_assert_mem_eq(node_at(0x100)->gid, a, 16);
	ck_assert_uint_eq(nnodes(), d.ndev + 1);
	/* nor does this host's own LID move */
	tid = ask(c);
	answer(c, d.dev[0].lid, tid, SMP_ATTR_NODE_INFO, guid_of(c));
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_TAKEN), 2);
	ck_assert_mem_eq(node_at(d.dev[0].lid)->gid, d.dev[0].gid, 16);
}
END_TEST

START_TEST(unasked)
{
	uint8_t a[16], b[16];
	uint64_t tid;

	peer_gid(a, 1);
	peer_gid(b, 2);
	/* an id no agent here gave: the MAD layer's drop, not the SM's */
	answer(a, 0x100, 0x1234, SMP_ATTR_NODE_INFO, guid_of(a));
	ck_assert_uint_eq(drops(SEFA_DROP_MAD_UNASKED), 1);
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_UNASKED), 0);
	tid = ask(a);
	/* B, never asked, with an id of the SM's */
	answer(b, 0x100, tid ^ 1, SMP_ATTR_NODE_INFO, guid_of(b));
	/* another id from A, or A's id from B */
	answer(a, 0x100, tid ^ 1, SMP_ATTR_NODE_INFO, guid_of(a));
	answer(b, 0x100, tid, SMP_ATTR_NODE_INFO, guid_of(b));
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_UNASKED), 3);
	ck_assert_ptr_null(node_at(0x100));
	answer(a, 0x100, tid, SMP_ATTR_NODE_INFO, guid_of(a));
	ck_assert_mem_eq(node_at(0x100)->gid, a, 16);
	/* the same answer again: no question outstanding any more */
	answer(a, 0x100, tid, SMP_ATTR_NODE_INFO, guid_of(a));
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_UNASKED), 4);
}
END_TEST

START_TEST(full)
{
	uint8_t g[16];
	uint64_t tid;
	unsigned int i, sent;

	for (i = 1; nnodes() < FX_MAX_NODES; i++) {
		peer_gid(g, i);
		tid = ask(g);
		sent = nout;
		answer(g, 0x100 + i, tid, SMP_ATTR_NODE_INFO, guid_of(g));
		/* its description, asked next, frees its question's slot */
		ck_assert_uint_eq(nout, sent + 1);
		tid = asked(g, SMP_ATTR_NODE_DESC);
		answer(g, 0x100 + i, tid, SMP_ATTR_NODE_DESC, 0);
	}
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_FULL), 0);
	peer_gid(g, i);
	tid = ask(g);
	answer(g, 0x100 + i, tid, SMP_ATTR_NODE_INFO, guid_of(g));
	ck_assert_uint_eq(drops(SEFA_DROP_SWEEP_FULL), 1);
	ck_assert_ptr_null(node_at(0x100 + i));
	ck_assert_uint_eq(nnodes(), FX_MAX_NODES);
}
END_TEST

static Suite *sm_suite(void)
{
	Suite *s = suite_create("mad sm");
	TCase *t = tcase_create("sweep");

	/* each test in its own process, from a fresh SM */
	tcase_add_checked_fixture(t, setup, NULL);
	tcase_add_test(t, forged_guid);
	tcase_add_test(t, taken_lid);
	tcase_add_test(t, unasked);
	tcase_add_test(t, full);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(sm_suite)
