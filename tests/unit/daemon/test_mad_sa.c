// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The SA on the SM's port (mad/sa.c) as a process on a device asks it:
 * NodeRecords and PathRecords of the ports the SM knows, one by Get, all
 * by GetTable through kernel RMPP, and the SA's status when a Get does
 * not name exactly one.
 */
#include <stdio.h>

#include "check_main.h"
#include "mad_fixture.h"

#define SA_GET_TABLE		0x12
#define NODE_RECORD		0x0011
#define PATH_RECORD		0x0035
#define NODE_SLOT		112
#define PATH_SLOT		64

static struct mad_agent *q;

static void setup(void)
{
	const struct mad_reg reg = { .qpn = 1, .rmpp_version = 1 };

	mfx_setup();
	q = mfx_agent(0, &reg, NULL);
	ck_assert_ptr_nonnull(q);
}

/*
 * Device 0 asks the SA (@method of @attr, components @mask of @rec): the
 * whole answer, which must have come, a response of the same TID.
 */
static const struct mad_recv *ask(uint8_t method, uint16_t attr,
				  uint64_t mask, const uint8_t *rec,
				  size_t rec_len)
{
	unsigned int got = mfx_ngot;
	uint8_t m[MAD_SIZE];
	const struct mad_recv *r;

	mad_hdr_init(m, MAD_CLASS_SUBN_ADM, 2, method, attr, 0x99);
	put64(m + SA_OFF_COMP_MASK, mask);
	if (rec)
		memcpy(m + MAD_SA_HDR_LEN, rec, rec_len);
	ck_assert_int_eq(mfx_send(q, SEFA_SM_LID, 1, m, MAD_SIZE, 1000, 0), 0);
	ck_assert_uint_eq(mfx_ngot, got + 1);
	r = mfx_got[got].r;
	ck_assert_uint_eq(r->data[MAD_OFF_CLASS], MAD_CLASS_SUBN_ADM);
	ck_assert_uint_eq(r->data[MAD_OFF_METHOD], method | MAD_METHOD_RESP);
	ck_assert_uint_eq(get64(r->data + MAD_OFF_TID),
			  (uint64_t)q->hi_tid << 32 | 0x99);
	ck_assert_uint_eq(get64(r->data + SA_OFF_COMP_MASK), mask);
	ck_assert_uint_eq(q->nsends, 0);
	return r;
}

/* The NodeRecord of device @i at @rec. */
static void is_node_record(const uint8_t *rec, unsigned int i)
{
	const struct sefa_device *dev = &mfx_d.dev[i];
	char desc[MAD_NODE_DESC_LEN] = {};

	snprintf(desc, sizeof(desc), "SoftEFA host %u %s", mfx_d.host_id,
		 dev->name);
	ck_assert_uint_eq(get16(rec), dev->lid);
	ck_assert_uint_eq(rec[4], MAD_BASE_VERSION);		/* NodeInfo */
	ck_assert_uint_eq(get64(rec + 4 + 12), dev->node_guid);
	ck_assert_mem_eq(rec + 44, desc, MAD_NODE_DESC_LEN);
}

START_TEST(node_record_get)
{
	uint8_t rec[NODE_SLOT] = {};
	const struct mad_recv *r;

	put16(rec, mfx_d.dev[1].lid);
	r = ask(MAD_METHOD_GET, NODE_RECORD, 1, rec, sizeof(rec));
	ck_assert_uint_eq(r->len, MAD_SIZE);
	ck_assert_uint_eq(get16(r->data + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(get16(r->data + SA_OFF_ATTR_OFFSET), NODE_SLOT / 8);
	is_node_record(r->data + MAD_SA_HDR_LEN, 1);
}
END_TEST

/* All of them: more than a MAD holds, so in RMPP segments, reassembled. */
START_TEST(node_record_table)
{
	const struct mad_recv *r = ask(SA_GET_TABLE, NODE_RECORD, 0, NULL, 0);

	ck_assert_uint_eq(get16(r->data + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(r->len, MAD_SA_HDR_LEN + 2 * NODE_SLOT);
	ck_assert(r->data[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_ACTIVE);
	ck_assert_uint_eq(get16(r->data + SA_OFF_ATTR_OFFSET), NODE_SLOT / 8);
	is_node_record(r->data + MAD_SA_HDR_LEN, 0);
	is_node_record(r->data + MAD_SA_HDR_LEN + NODE_SLOT, 1);
	/* the SA's send ended with the last ACK */
	ck_assert_ptr_null(mfx_port(MFX_SM)->agents->sends);
}
END_TEST

/* A Get must name one record: none and many are the SA's errors. */
START_TEST(get_not_one)
{
	uint8_t rec[NODE_SLOT] = {};
	const struct mad_recv *r;

	r = ask(MAD_METHOD_GET, NODE_RECORD, 0, NULL, 0);
	ck_assert_uint_eq(get16(r->data + MAD_OFF_STATUS), 4 << 8);
	put16(rec, 0x777);
	r = ask(MAD_METHOD_GET, NODE_RECORD, 1, rec, sizeof(rec));
	ck_assert_uint_eq(get16(r->data + MAD_OFF_STATUS), 3 << 8);
	r = ask(MAD_METHOD_GET, 0x0020, 0, NULL, 0);
	ck_assert_uint_eq(get16(r->data + MAD_OFF_STATUS),
			  MAD_STATUS_UNSUP_METH_ATTR);
}
END_TEST

START_TEST(path_record)
{
	uint8_t rec[PATH_SLOT] = {};
	const uint8_t *p;
	const struct mad_recv *r;

	/* from device 0 to device 1, by DLID and SLID */
	put16(rec + 40, mfx_d.dev[1].lid);
	put16(rec + 42, mfx_d.dev[0].lid);
	r = ask(MAD_METHOD_GET, PATH_RECORD, 1 << 4 | 1 << 5, rec,
		sizeof(rec));
	ck_assert_uint_eq(get16(r->data + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(get16(r->data + SA_OFF_ATTR_OFFSET), PATH_SLOT / 8);
	p = r->data + MAD_SA_HDR_LEN;
	ck_assert_mem_eq(p + 8, mfx_d.dev[1].gid, 16);
	ck_assert_mem_eq(p + 24, mfx_d.dev[0].gid, 16);
	ck_assert_uint_eq(get16(p + 40), mfx_d.dev[1].lid);
	ck_assert_uint_eq(get16(p + 42), mfx_d.dev[0].lid);
	ck_assert_uint_eq(p[49], 0x81);		/* reversible, one path */
	ck_assert_uint_eq(get16(p + 50), 0xffff);
	ck_assert_uint_eq(p[54], 2 << 6 | 5);	/* MTU exactly 4096 */
	/* every port to every port, itself too */
	r = ask(SA_GET_TABLE, PATH_RECORD, 0, NULL, 0);
	ck_assert_uint_eq(r->len, MAD_SA_HDR_LEN + 4 * PATH_SLOT);
}
END_TEST

static Suite *sa_suite(void)
{
	Suite *s = suite_create("mad sa");
	TCase *t = tcase_create("queries");

	tcase_add_checked_fixture(t, setup, NULL);
	tcase_add_test(t, node_record_get);
	tcase_add_test(t, node_record_table);
	tcase_add_test(t, get_not_one);
	tcase_add_test(t, path_record);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(sa_suite)
