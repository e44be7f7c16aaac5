// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a port answers before any agent sees a MAD (mad/mad_local.c): the
 * SMA's NodeInfo, NodeDescription, PortInfo, GUIDInfo and P_KeyTable, and
 * the PMA's counters, as a process on the other device reads them.
 */
#include <stdatomic.h>
#include <stdio.h>

#include "check_main.h"
#include "mad_fixture.h"

static struct mad_agent *smi, *gsi;

static void setup(void)
{
	const struct mad_reg smi_reg = { .qpn = 0 }, gsi_reg = { .qpn = 1 };

	mfx_setup();
	smi = mfx_agent(1, &smi_reg, NULL);
	gsi = mfx_agent(1, &gsi_reg, NULL);
	ck_assert_ptr_nonnull(smi);
	ck_assert_ptr_nonnull(gsi);
}

/*
 * Device 1 asks device 0 (@method of @attr, modifier @mod): the answer's
 * MAD, which must have come, a GetResp of the same TID.
 */
static const uint8_t *ask(uint8_t mgmt_class, uint8_t version,
			  uint8_t method, uint16_t attr, uint32_t mod,
			  const uint8_t *data)
{
	bool smp = mgmt_class == MAD_CLASS_SUBN_LID;
	struct mad_agent *a = smp ? smi : gsi;
	unsigned int got = mfx_ngot;
	uint8_t m[MAD_SIZE];
	const uint8_t *resp;

	mad_hdr_init(m, mgmt_class, version, method, attr, 0x77);
	put32(m + MAD_OFF_ATTR_MOD, mod);
	if (data)
		memcpy(m + SMP_OFF_DATA, data, MAD_SIZE - SMP_OFF_DATA);
	ck_assert_int_eq(mfx_send(a, mfx_d.dev[0].lid, smp ? 0 : 1, m,
				  MAD_SIZE, 1000, 0), 0);
	ck_assert_uint_eq(mfx_ngot, got + 1);
	ck_assert_ptr_eq(mfx_got[got].agent, a);
	resp = mfx_got[got].r->data;
	ck_assert_uint_eq(resp[MAD_OFF_METHOD],
			  MAD_METHOD_RESP | MAD_METHOD_GET);
	ck_assert_uint_eq(get64(resp + MAD_OFF_TID),
			  (uint64_t)a->hi_tid << 32 | 0x77);
	ck_assert_uint_eq(get16(resp + MAD_OFF_ATTR_ID), attr);
	return resp;
}

static const uint8_t *smp_get(uint16_t attr, uint32_t mod)
{
	return ask(MAD_CLASS_SUBN_LID, 1, MAD_METHOD_GET, attr, mod, NULL);
}

START_TEST(node_info)
{
	const struct sefa_device *dev = &mfx_d.dev[0];
	const uint8_t *r = smp_get(SMP_ATTR_NODE_INFO, 0);
	const uint8_t *ni = r + SMP_OFF_DATA;

	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(ni[0], MAD_BASE_VERSION);
	ck_assert_uint_eq(ni[1], 1);
	ck_assert_uint_eq(ni[2], dev->profile->node_type);
	ck_assert_uint_eq(ni[3], 1);
	ck_assert_uint_eq(get64(ni + 4), dev->node_guid);
	ck_assert_uint_eq(get64(ni + 12), dev->node_guid);
	ck_assert_uint_eq(get64(ni + 20), dev->node_guid);
	ck_assert_uint_eq(get16(ni + 28), SEFA_PKEY_TBL_LEN);
	ck_assert_uint_eq(get16(ni + 30), dev->profile->vendor_part_id);
	ck_assert_uint_eq(get32(ni + 32), SEFA_HW_REV);
	ck_assert_uint_eq(ni[36], 1);
	ck_assert_uint_eq(get16(ni + 38), SEFA_VENDOR_ID);
	/* the other device's GUID is its own */
	ck_assert_uint_ne(mfx_d.dev[1].node_guid, dev->node_guid);
}
END_TEST

START_TEST(node_desc)
{
	const uint8_t *r = smp_get(SMP_ATTR_NODE_DESC, 0);
	char want[MAD_NODE_DESC_LEN] = {};

	snprintf(want, sizeof(want), "SoftEFA host %u %s", mfx_d.host_id,
		 mfx_d.dev[0].name);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
	ck_assert_mem_eq(r + SMP_OFF_DATA, want, MAD_NODE_DESC_LEN);
}
END_TEST

START_TEST(port_info)
{
	const struct sefa_device *dev = &mfx_d.dev[0];
	const uint8_t *r = smp_get(0x0015, 1);
	const uint8_t *pi = r + SMP_OFF_DATA;

	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(get64(pi + 8), 0xfe80000000000000ULL);
	ck_assert_uint_eq(get16(pi + 16), dev->lid);
	ck_assert_uint_eq(get16(pi + 18), dev->sm_lid);
	ck_assert_uint_eq(get32(pi + 20), dev->cap_mask);
	ck_assert_uint_eq(pi[28], 1);		/* local port */
	ck_assert_uint_eq(pi[32] & 0xf, 4);	/* Active */
	ck_assert_uint_eq(pi[33] >> 4, 5);	/* LinkUp */
	ck_assert_uint_eq(pi[41] & 0xf, 5);	/* MTU 4096 */
	/* port 2 does not exist; 0 is the port asked at */
	r = smp_get(0x0015, 2);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), MAD_STATUS_INVALID_FIELD);
	r = smp_get(0x0015, 0);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
}
END_TEST

/*
 * A port taken down says so in its PortInfo, as in query_port: state
 * Down, physical state Disabled, and Active and LinkUp once up again.
 * Its LinkDownDefaultState stays Polling.
 */
START_TEST(port_info_down)
{
	struct sefa_device *dev = &mfx_d.dev[0];
	const uint8_t *pi;

	atomic_store(&dev->port_down, true);
	pi = smp_get(0x0015, 1) + SMP_OFF_DATA;
	ck_assert_uint_eq(pi[32] & 0xf, 1);	/* Down */
	ck_assert_uint_eq(pi[33] >> 4, 3);	/* Disabled */
	ck_assert_uint_eq(pi[33] & 0xf, 2);	/* down default Polling */
	atomic_store(&dev->port_down, false);
	pi = smp_get(0x0015, 1) + SMP_OFF_DATA;
	ck_assert_uint_eq(pi[32] & 0xf, 4);
	ck_assert_uint_eq(pi[33] >> 4, 5);
}
END_TEST

START_TEST(guid_and_pkeys)
{
	const uint8_t *r = smp_get(0x0014, 0);

	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(get64(r + SMP_OFF_DATA), mfx_d.dev[0].node_guid);
	r = smp_get(0x0014, 1);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), MAD_STATUS_INVALID_FIELD);
	r = smp_get(0x0016, 0);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(get16(r + SMP_OFF_DATA), 0xffff);
	ck_assert_uint_eq(get16(r + SMP_OFF_DATA + 2), 0);
	r = smp_get(0x0016, 1);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), MAD_STATUS_INVALID_FIELD);
}
END_TEST

/* Attributes and methods the SMA has not: unsupported, as ib_mad says. */
START_TEST(sma_unsupported)
{
	const uint8_t *r = smp_get(0x0020, 0);	/* SMInfo: the SM's port only */

	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS),
			  MAD_STATUS_UNSUP_METH_ATTR);
	r = ask(MAD_CLASS_SUBN_LID, 1, MAD_METHOD_SET, 0x0015, 1, NULL);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS),
			  MAD_STATUS_UNSUP_METH_ATTR);
}
END_TEST

static void set_counters(struct sefa_counters *c, uint64_t tx_bytes,
			 uint64_t rx_bytes, uint64_t tx_pkts, uint64_t rx_pkts)
{
	c->tx_bytes = tx_bytes;
	c->rx_bytes = rx_bytes;
	c->tx_pkts = tx_pkts;
	c->rx_pkts = rx_pkts;
}

/* PortCounters in 4-byte words, saturated; a Set clears them all. */
START_TEST(pma_counters)
{
	struct sefa_counters *cnt = &mfx_d.dev[0].cnt;
	const uint8_t *r, *pc;

	set_counters(cnt, 4000, 8000, 10, 20);
	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0012, 0, NULL);
	pc = r + PERF_OFF_DATA;
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(get32(pc + 24), 1000);
	ck_assert_uint_eq(get32(pc + 28), 2000);
	ck_assert_uint_eq(get32(pc + 32), 10);
	ck_assert_uint_eq(get32(pc + 36), 20);
	set_counters(cnt, 4ULL << 40, 8000, 10, 20);
	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0012, 0, NULL);
	ck_assert_uint_eq(get32(r + PERF_OFF_DATA + 24), UINT32_MAX);
	/* Set: what they read now is the new zero */
	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_SET, 0x0012, 0, NULL);
	ck_assert_uint_eq(get32(r + PERF_OFF_DATA + 24), 0);
	set_counters(cnt, (4ULL << 40) + 400, 8800, 15, 21);
	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0012, 0, NULL);
	pc = r + PERF_OFF_DATA;
	ck_assert_uint_eq(get32(pc + 24), 100);
	ck_assert_uint_eq(get32(pc + 28), 200);
	ck_assert_uint_eq(get32(pc + 32), 5);
	ck_assert_uint_eq(get32(pc + 36), 1);
}
END_TEST

START_TEST(pma_counters_ext)
{
	const uint8_t *r, *pc;

	set_counters(&mfx_d.dev[0].cnt, 4ULL << 40, 4000, 1ULL << 33, 7);
	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x001d, 0, NULL);
	pc = r + PERF_OFF_DATA;
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(get64(pc + 8), 1ULL << 40);
	ck_assert_uint_eq(get64(pc + 16), 1000);
	ck_assert_uint_eq(get64(pc + 24), 1ULL << 33);
	ck_assert_uint_eq(get64(pc + 32), 7);
	ck_assert_uint_eq(get64(pc + 40), 1ULL << 33);	/* all unicast */
	ck_assert_uint_eq(get64(pc + 48), 7);
}
END_TEST

START_TEST(pma_refusals)
{
	uint8_t sel[MAD_SIZE - PERF_OFF_DATA] = {};
	const uint8_t *r;

	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0001, 0, NULL);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
	ck_assert_uint_eq(get16(r + PERF_OFF_DATA + 2), 1U << 9);
	r = ask(MAD_CLASS_PERF, 2, MAD_METHOD_GET, 0x0012, 0, NULL);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), MAD_STATUS_UNSUP_VERSION);
	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0013, 0, NULL);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS),
			  MAD_STATUS_UNSUP_METH_ATTR);
	/* port select: 0, 1 and all ports are this one; 2 is none */
	sel[1] = 2;
	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0012, 0, sel);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), MAD_STATUS_INVALID_FIELD);
	sel[1] = 0xff;
	r = ask(MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0012, 0, sel);
	ck_assert_uint_eq(get16(r + MAD_OFF_STATUS), 0);
}
END_TEST

static Suite *sma_suite(void)
{
	Suite *s = suite_create("mad sma");
	TCase *t = tcase_create("process_mad");

	tcase_add_checked_fixture(t, setup, NULL);
	tcase_add_test(t, node_info);
	tcase_add_test(t, node_desc);
	tcase_add_test(t, port_info);
	tcase_add_test(t, port_info_down);
	tcase_add_test(t, guid_and_pkeys);
	tcase_add_test(t, sma_unsupported);
	tcase_add_test(t, pma_counters);
	tcase_add_test(t, pma_counters_ext);
	tcase_add_test(t, pma_refusals);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(sma_suite)
