// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire's framing (softefa-wire(7)): packets made into bytes and parsed
 * back, field by field, for each transport and operation; the bytes where
 * the IB spec puts them; and what is malformed refused.
 */
#include <string.h>

#include <infiniband/verbs.h>

#include "check_main.h"
#include "nic_fixture.h"

static uint8_t buf[NIC_FRAME_MAX];
static const char payload[] = "0123456789abcdefghij";

/* @pkt as the wire carries it, @len bytes of its payload from pkt->off. */
static size_t frame(const struct sefa_pkt *pkt, uint64_t len)
{
	size_t n = nic_frame_hdr(pkt, len, buf);
	bool data = !(pkt->op == SEFA_PKT_READ);

	if (data && len)
		memcpy(buf + n, (const char *)pkt->data + pkt->off, len);
	if (data)
		n += len;
	return n + nic_frame_trailer(data ? len : 0, buf + n);
}

static struct sefa_pkt req(int qpt, uint8_t op)
{
	return (struct sefa_pkt){
		.op = op, .qpt = qpt, .dqpn = 0x123456, .sqpn = 0x654321,
		.psn = 0xabcdef, .qkey = 0x11111111, .lwm = 0xabcd00,
		.len = 20, .data = payload, .rkey = 0xdeadbeef,
		.raddr = 0x1122334455667788ULL,
	};
}

START_TEST(ud_send)
{
	struct sefa_pkt p = req(IBV_QPT_UD, SEFA_PKT_SEND), q;
	size_t n = frame(&p, 20);

	/* BTH, DETH, 20 bytes, the ICRC */
	ck_assert_uint_eq(n, 12 + 8 + 20 + 4);
	ck_assert_uint_eq(buf[0], 0x64);		/* UD SEND Only */
	ck_assert_uint_eq(buf[1] >> 4 & 3, 0);		/* no pad */
	ck_assert_uint_eq(buf[2] << 8 | buf[3], 0xffff);
	ck_assert_uint_eq(buf[8] & 0x80, 0);		/* nobody answers UD */
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), 0);
	ck_assert_uint_eq(q.op, SEFA_PKT_SEND);
	ck_assert_uint_eq(q.qpt, IBV_QPT_UD);
	ck_assert_uint_eq(q.flags, SEFA_PKT_NET | SEFA_PKT_FIRST | SEFA_PKT_LAST);
	ck_assert_uint_eq(q.dqpn, 0x123456);
	ck_assert_uint_eq(q.sqpn, 0x654321);
	ck_assert_uint_eq(q.psn, 0xabcdef);
	ck_assert_uint_eq(q.qkey, 0x11111111);
	ck_assert_uint_eq(q.len, 20);
	ck_assert_mem_eq(q.data, payload, 20);
}
END_TEST

/* Pad to four bytes, counted in BTH; immediate data in ImmDt. */
START_TEST(srd_send_imm_padded)
{
	struct sefa_pkt p = req(IBV_QPT_DRIVER, SEFA_PKT_SEND), q;
	size_t n;

	p.flags = SEFA_PKT_IMM;
	p.imm = 0xcafef00d;
	p.len = 17;
	n = frame(&p, 17);
	ck_assert_uint_eq(n, 12 + 8 + 4 + 4 + 17 + 3 + 4);
	ck_assert_uint_eq(buf[0], 0xc5);		/* SRD SEND Only w/ imm */
	ck_assert_uint_eq(buf[1] >> 4 & 3, 3);
	ck_assert_uint_eq(buf[8] & 0x80, 0x80);		/* AckReq */
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), 0);
	ck_assert_uint_eq(q.qpt, IBV_QPT_DRIVER);
	ck_assert_uint_eq(q.imm, 0xcafef00d);
	ck_assert_uint_eq(q.lwm, 0xabcd00);
	ck_assert_uint_eq(q.len, 17);
	ck_assert_uint_eq(q.flags & SEFA_PKT_IMM, SEFA_PKT_IMM);
}
END_TEST

/* RC: a message of three packets is FIRST, MIDDLE, LAST with immediate. */
START_TEST(rc_send_parts)
{
	static char big[3 * NIC_WIRE_CHUNK];
	static const uint8_t want[] = { 0x00, 0x01, 0x03 };
	struct sefa_pkt p = req(IBV_QPT_RC, SEFA_PKT_SEND), q;
	unsigned int i;

	p.len = sizeof(big);
	p.data = big;
	p.flags = SEFA_PKT_IMM;
	for (i = 0; i < 3; i++) {
		size_t n;

		p.off = i * NIC_WIRE_CHUNK;
		n = frame(&p, NIC_WIRE_CHUNK);
		ck_assert_uint_eq(buf[0], want[i]);
		ck_assert_int_eq(nic_frame_parse(buf, n, &q), 0);
		ck_assert_uint_eq(q.len, NIC_WIRE_CHUNK);
		ck_assert_uint_eq(!!(q.flags & SEFA_PKT_FIRST), i == 0);
		ck_assert_uint_eq(!!(q.flags & SEFA_PKT_LAST), i == 2);
		ck_assert_uint_eq(!!(q.flags & SEFA_PKT_IMM), i == 2);
	}
}
END_TEST

/* RDMA: RETH at the packet's place in the transfer; a read carries none. */
START_TEST(rdma_reth)
{
	struct sefa_pkt p = req(IBV_QPT_RC, SEFA_PKT_WRITE), q;
	size_t n;

	p.off = 4;
	p.len = 20;
	n = frame(&p, 16);
	ck_assert_uint_eq(buf[0], 0x0a);		/* RC RDMA WRITE Only */
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), 0);
	ck_assert_uint_eq(q.raddr, 0x1122334455667788ULL + 4);
	ck_assert_uint_eq(q.rkey, 0xdeadbeef);
	ck_assert_uint_eq(q.len, 16);
	ck_assert_mem_eq(q.data, payload + 4, 16);

	p = req(IBV_QPT_DRIVER, SEFA_PKT_READ);
	n = frame(&p, 20);
	ck_assert_uint_eq(buf[0], 0xcc);		/* SRD READ Request */
	ck_assert_uint_eq(n, 12 + 8 + 4 + 16 + 4);
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), 0);
	ck_assert_uint_eq(q.op, SEFA_PKT_READ);
	ck_assert_uint_eq(q.len, 20);
	ck_assert_ptr_null(q.data);
}
END_TEST

/* Answers: RC's syndromes are IB's, SRD's the EFA status itself. */
START_TEST(acks)
{
	static const struct { int status; uint8_t rnr, syn; } rc[] = {
		{ EFA_IO_COMP_STATUS_OK, 0, 0x1f },
		{ EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR, 14, 0x2e },
		{ EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH, 0, 0x61 },
		{ EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS, 0, 0x62 },
		{ EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT, 0, 0x63 },
	};
	struct sefa_pkt a = { .op = SEFA_PKT_ACK, .dqpn = 7, .psn = 9 }, q;
	unsigned int i;
	size_t n;

	for (i = 0; i < sizeof(rc) / sizeof(rc[0]); i++) {
		a.qpt = IBV_QPT_RC;
		a.status = rc[i].status;
		a.rnr_timer = rc[i].rnr;
		n = frame(&a, 0);
		ck_assert_uint_eq(n, 12 + 4 + 4);
		ck_assert_uint_eq(buf[0], 0x11);
		ck_assert_uint_eq(buf[12], rc[i].syn);
		ck_assert_int_eq(nic_frame_parse(buf, n, &q), 0);
		ck_assert_uint_eq(q.op, SEFA_PKT_ACK);
		ck_assert_uint_eq(q.status, rc[i].status);
		ck_assert_uint_eq(q.rnr_timer, rc[i].rnr);
		ck_assert_uint_eq(q.psn, 9);
	}
	a.qpt = IBV_QPT_DRIVER;
	a.status = EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER;
	a.data = payload;
	a.len = 20;
	n = frame(&a, 20);
	ck_assert_uint_eq(buf[0], 0xd0);		/* SRD READ Response */
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), 0);
	ck_assert_uint_eq(q.status, EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER);
	ck_assert_mem_eq(q.data, payload, 20);
}
END_TEST

/* Short, unknown, inconsistent or oversized packets are refused. */
START_TEST(malformed)
{
	struct sefa_pkt p = req(IBV_QPT_RC, SEFA_PKT_WRITE), q;
	size_t n = frame(&p, 20), len;

	for (len = 0; len < n; len++)
		ck_assert_int_eq(nic_frame_parse(buf, len, &q), -EINVAL);
	/* RETH's length must be the payload's */
	buf[12 + 15] = 19;
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), -EINVAL);

	p = req(IBV_QPT_UD, SEFA_PKT_SEND);
	n = frame(&p, 20);
	buf[0] = 0x60;					/* UD SEND First */
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), -EINVAL);
	buf[0] = 0x20;					/* UC: not ours */
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), -EINVAL);
	buf[0] = 0x7f;
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), -EINVAL);

	/* a read of more than a packet's worth */
	p = req(IBV_QPT_RC, SEFA_PKT_READ);
	p.len = NIC_WIRE_CHUNK + 1;
	n = frame(&p, NIC_WIRE_CHUNK + 1);
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), -EINVAL);
	/* a PSN sequence NAK is left to the timer */
	p = (struct sefa_pkt){ .op = SEFA_PKT_ACK, .qpt = IBV_QPT_RC };
	n = frame(&p, 0);
	buf[12] = 0x60;
	ck_assert_int_eq(nic_frame_parse(buf, n, &q), -EINVAL);
}
END_TEST

static Suite *frame_suite(void)
{
	Suite *s = suite_create("nic frame");
	TCase *t = tcase_create("frame");

	tcase_add_test(t, ud_send);
	tcase_add_test(t, srd_send_imm_padded);
	tcase_add_test(t, rc_send_parts);
	tcase_add_test(t, rdma_reth);
	tcase_add_test(t, acks);
	tcase_add_test(t, malformed);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(frame_suite)
