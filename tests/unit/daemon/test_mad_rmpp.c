// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RMPP as the layer runs it for kernel-RMPP agents (mad/rmpp.c), against a
 * peer on the wire: reassembly in order, segments out of order or again,
 * the receive window and its ACKs, the send window the peer's ACKs move,
 * and the aborts.  The vendor class 0x30 carries 216 data bytes a segment.
 */
#include "check_main.h"
#include "mad_fixture.h"

#define CLASS		0x30
#define HDR		MAD_VENDOR_HDR_LEN
#define SEG_DATA	(MAD_SIZE - HDR)
#define TID		0x4242

static uint8_t msg[HDR + 70 * SEG_DATA];

/* The message: its header a Set of class 0x30, its data counting up. */
static void msg_init(uint8_t method)
{
	size_t i;

	mad_hdr_init(msg, CLASS, 1, method, 0x10, TID);
	msg[VENDOR_OFF_OUI] = MFX_OUI >> 16;
	put16(msg + VENDOR_OFF_OUI + 1, MFX_OUI & 0xffff);
	msg[RMPP_OFF_VERSION] = 1;
	msg[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
	msg[RMPP_OFF_RTIME_FLAGS] = RMPP_FLAG_ACTIVE;
	for (i = HDR; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7);
}

/*
 * Segment @n of @count of a message with @len data bytes, from the peer
 * to device 0, PayloadLength as a kernel sender writes it.
 */
static void peer_seg(unsigned int n, unsigned int count, size_t len)
{
	size_t pad = count * SEG_DATA - len;
	uint8_t seg[MAD_SIZE] = {};
	uint8_t flags = RMPP_FLAG_ACTIVE;

	memcpy(seg, msg, HDR);
	memcpy(seg + HDR, msg + HDR + (n - 1) * SEG_DATA,
	       n < count ? SEG_DATA : SEG_DATA - pad);
	if (n == 1) {
		flags |= RMPP_FLAG_FIRST;
		put32(seg + RMPP_OFF_PAYLEN, count * MAD_RMPP_DATA - pad);
	}
	if (n == count) {
		flags |= RMPP_FLAG_LAST;
		put32(seg + RMPP_OFF_PAYLEN, MAD_RMPP_DATA - pad);
	}
	seg[RMPP_OFF_RTIME_FLAGS] = flags;
	put32(seg + RMPP_OFF_SEG_NUM, n);
	mfx_from_peer(0, 1, 1, seg);
}

/* What went to the peer @i-th: an RMPP packet of @type and @status. */
static const uint8_t *to_peer(unsigned int i, uint8_t type, uint8_t status)
{
	const uint8_t *m;

	ck_assert_uint_lt(i, mfx_nout);
	m = mfx_out[i].mad;
	ck_assert_uint_eq(mfx_out[i].f.dlid, MFX_PEER_LID);
	ck_assert_uint_eq(m[RMPP_OFF_TYPE], type);
	ck_assert_uint_eq(m[RMPP_OFF_STATUS], status);
	ck_assert(m[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_ACTIVE);
	return m;
}

static void acked(unsigned int i, uint32_t seg, uint32_t newwin)
{
	const uint8_t *m = to_peer(i, RMPP_TYPE_ACK, 0);

	ck_assert_uint_eq(get64(m + MAD_OFF_TID), TID);
	ck_assert_uint_eq(m[MAD_OFF_METHOD], MAD_METHOD_SET | MAD_METHOD_RESP);
	ck_assert_uint_eq(get32(m + RMPP_OFF_SEG_NUM), seg);
	ck_assert_uint_eq(get32(m + RMPP_OFF_PAYLEN), newwin);
}

static struct mad_agent *receiver(uint32_t flags)
{
	const struct mad_reg reg = {
		.qpn = 1, .mgmt_class = CLASS, .class_version = 1,
		.oui = MFX_OUI, .method_mask = { 1ULL << MAD_METHOD_SET },
		.rmpp_version = 1, .flags = flags,
	};

	msg_init(MAD_METHOD_SET);
	return mfx_agent(0, &reg, NULL);
}

/* The message @agent got: the first segment's headers, then the data. */
static void got_msg(const struct mad_agent *agent, size_t len)
{
	const struct mfx_got *g = mfx_got_by(agent, 0);

	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_null(mfx_got_by(agent, 1));
	ck_assert_uint_eq(g->r->len, HDR + len);
	ck_assert_mem_eq(g->r->data, msg, MAD_OFF_TID);
	ck_assert_mem_eq(g->r->data + HDR, msg + HDR, len);
	ck_assert_uint_eq(get32(g->r->data + RMPP_OFF_PAYLEN),
			  3 * MAD_RMPP_DATA - (3 * SEG_DATA - len));
}

START_TEST(in_order)
{
	struct mad_agent *r = receiver(0);

	peer_seg(1, 3, 500);
	acked(0, 1, 64);
	peer_seg(2, 3, 500);
	ck_assert_uint_eq(mfx_nout, 1);
	ck_assert_uint_eq(mfx_ngot, 0);
	peer_seg(3, 3, 500);
	acked(1, 3, 64);
	got_msg(r, 500);
	/* a segment again, after the end: re-ACKed, not delivered again */
	peer_seg(2, 3, 500);
	acked(2, 3, 64);
	ck_assert_uint_eq(mfx_ngot, 1);
}
END_TEST

START_TEST(out_of_order)
{
	struct mad_agent *r = receiver(0);

	peer_seg(1, 3, 500);
	/* 3 before 2 follows a loss: dropped, the sender will retry */
	peer_seg(3, 3, 500);
	ck_assert_uint_eq(mfx_nout, 1);
	/* 1 again: where we are */
	peer_seg(1, 3, 500);
	acked(1, 1, 64);
	peer_seg(2, 3, 500);
	peer_seg(3, 3, 500);
	acked(2, 3, 64);
	got_msg(r, 500);
}
END_TEST

/* 64 segments a window: its end is ACKed with the next; past it, ignored. */
START_TEST(window)
{
	struct mad_agent *r = receiver(0);
	size_t len = 70 * SEG_DATA;
	const struct mfx_got *g;
	unsigned int n;

	for (n = 1; n <= 64; n++)
		peer_seg(n, 70, len);
	ck_assert_uint_eq(mfx_nout, 2);
	acked(0, 1, 64);
	acked(1, 64, 128);
	peer_seg(66, 70, len);		/* out of order */
	peer_seg(129, 200, 200 * SEG_DATA);	/* beyond the window */
	ck_assert_uint_eq(mfx_nout, 2);
	peer_seg(10, 70, len);		/* a duplicate */
	acked(2, 64, 128);
	for (n = 65; n <= 70; n++)
		peer_seg(n, 70, len);
	acked(3, 70, 128);
	g = mfx_got_by(r, 0);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->r->len, HDR + len);
	ck_assert_mem_eq(g->r->data + HDR, msg + HDR, len);
}
END_TEST

/* Segments that cannot start or belong to no transfer are aborted. */
START_TEST(aborts)
{
	uint8_t seg[MAD_SIZE];

	receiver(0);
	peer_seg(2, 3, 500);		/* no transfer, not a first segment */
	to_peer(0, RMPP_TYPE_ABORT, RMPP_STATUS_BAD_SEG);
	memcpy(seg, msg, MAD_SIZE);
	seg[RMPP_OFF_VERSION] = 2;
	mfx_from_peer(0, 1, 1, seg);
	to_peer(1, RMPP_TYPE_ABORT, RMPP_STATUS_UNV);
	seg[RMPP_OFF_VERSION] = 1;
	seg[RMPP_OFF_TYPE] = 9;
	mfx_from_peer(0, 1, 1, seg);
	to_peer(2, RMPP_TYPE_ABORT, RMPP_STATUS_BADT);
	ck_assert_uint_eq(mfx_ngot, 0);
}
END_TEST

/* A reassembly that takes too long ends with T2L to the sender. */
START_TEST(too_long)
{
	receiver(0);
	peer_seg(1, 3, 500);
	mfx_tick(mad_now_ns() + 39ULL * 1000000000ULL);
	ck_assert_uint_eq(mfx_nout, 1);
	mfx_tick(mad_now_ns() + 41ULL * 1000000000ULL);
	to_peer(1, RMPP_TYPE_ABORT, RMPP_STATUS_T2L);
	ck_assert_ptr_null(mfx_port(0)->agents->rmpp_recvs);
}
END_TEST

/* An agent that runs RMPP itself gets every segment as it came. */
START_TEST(user_rmpp)
{
	struct mad_agent *r = receiver(IB_USER_MAD_USER_RMPP);

	peer_seg(1, 3, 500);
	peer_seg(3, 3, 500);
	ck_assert_uint_eq(mfx_nout, 0);
	ck_assert_uint_eq(mfx_ngot, 2);
	ck_assert_uint_eq(mfx_got_by(r, 1)->r->len, MAD_SIZE);
	ck_assert_uint_eq(get32(mfx_got_by(r, 1)->r->data + RMPP_OFF_SEG_NUM),
			  3);
}
END_TEST

static struct mad_agent *sender(void)
{
	const struct mad_reg reg = { .qpn = 1, .rmpp_version = 1 };
	struct mad_agent *s = mfx_agent(0, &reg, NULL);

	msg_init(MAD_METHOD_SET);
	ck_assert_int_eq(mfx_send(s, MFX_PEER_LID, 1, msg, HDR + 500, 0, 0),
			 0);
	return s;
}

/* The peer's ACK of @seg, window up to @newwin, for @s's message. */
static void peer_ack(const struct mad_agent *s, uint32_t seg,
		     uint32_t newwin, uint8_t type)
{
	uint8_t m[MAD_SIZE];

	memcpy(m, msg, HDR);
	put64(m + MAD_OFF_TID, (uint64_t)s->hi_tid << 32 | TID);
	m[MAD_OFF_METHOD] ^= MAD_METHOD_RESP;
	m[RMPP_OFF_TYPE] = type;
	m[RMPP_OFF_RTIME_FLAGS] = RMPP_FLAG_ACTIVE;
	put32(m + RMPP_OFF_SEG_NUM, seg);
	put32(m + RMPP_OFF_PAYLEN, newwin);
	mfx_from_peer(0, 1, 1, m);
}

/* Segment @n of @s's message went out @i-th, cut as the kernel cuts it. */
static void sent_seg(const struct mad_agent *s, unsigned int i,
		     unsigned int n)
{
	const uint8_t *m = to_peer(i, RMPP_TYPE_DATA, 0);
	size_t k = n < 3 ? SEG_DATA : 500 - 2 * SEG_DATA;

	ck_assert_uint_eq(get64(m + MAD_OFF_TID),
			  (uint64_t)s->hi_tid << 32 | TID);
	ck_assert_uint_eq(get32(m + RMPP_OFF_SEG_NUM), n);
	ck_assert_uint_eq(m[RMPP_OFF_RTIME_FLAGS] & 7,
			  RMPP_FLAG_ACTIVE | (n == 1 ? RMPP_FLAG_FIRST : 0) |
			  (n == 3 ? RMPP_FLAG_LAST : 0));
	if (n == 1)
		ck_assert_uint_eq(get32(m + RMPP_OFF_PAYLEN),
				  3 * MAD_RMPP_DATA - (3 * SEG_DATA - 500));
	if (n == 3)
		ck_assert_uint_eq(get32(m + RMPP_OFF_PAYLEN),
				  MAD_RMPP_DATA - (3 * SEG_DATA - 500));
	ck_assert_mem_eq(m + HDR, msg + HDR + (n - 1) * SEG_DATA, k);
}

/* One segment first; each ACK opens the window it grants. */
START_TEST(send_window)
{
	struct mad_agent *s = sender();

	ck_assert_uint_eq(mfx_nout, 1);
	sent_seg(s, 0, 1);
	ck_assert_uint_eq(s->nsends, 1);
	peer_ack(s, 1, 2, RMPP_TYPE_ACK);
	ck_assert_uint_eq(mfx_nout, 2);
	sent_seg(s, 1, 2);
	peer_ack(s, 2, 3, RMPP_TYPE_ACK);
	ck_assert_uint_eq(mfx_nout, 3);
	sent_seg(s, 2, 3);
	/* an old ACK changes nothing */
	peer_ack(s, 1, 3, RMPP_TYPE_ACK);
	ck_assert_uint_eq(mfx_nout, 3);
	ck_assert_uint_eq(s->nsends, 1);
	/* all there, no response asked for: the send is over */
	peer_ack(s, 3, 3, RMPP_TYPE_ACK);
	ck_assert_uint_eq(s->nsends, 0);
	ck_assert_uint_eq(s->send_bytes, 0);
	ck_assert_uint_eq(mfx_ngot, 0);
}
END_TEST

/* An ACK whose window ends before it is aborted; a STOP ends the send. */
START_TEST(send_ends)
{
	struct mad_agent *s = sender();

	ck_assert_uint_eq(s->send_bytes, HDR + 500);
	peer_ack(s, 1, 0, RMPP_TYPE_ACK);
	to_peer(1, RMPP_TYPE_ABORT, RMPP_STATUS_W2S);
	ck_assert_uint_eq(s->nsends, 0);
	msg_init(MAD_METHOD_SET);
	ck_assert_int_eq(mfx_send(s, MFX_PEER_LID, 1, msg, HDR + 500, 0, 0),
			 0);
	ck_assert_uint_eq(s->nsends, 1);
	peer_ack(s, 0, 0, RMPP_TYPE_STOP);
	ck_assert_uint_eq(s->nsends, 0);
	ck_assert_uint_eq(mfx_ngot, 0);
}
END_TEST

static Suite *rmpp_suite(void)
{
	Suite *s = suite_create("mad rmpp");
	TCase *t = tcase_create("rmpp");

	tcase_add_checked_fixture(t, mfx_setup, NULL);
	tcase_add_test(t, in_order);
	tcase_add_test(t, out_of_order);
	tcase_add_test(t, window);
	tcase_add_test(t, aborts);
	tcase_add_test(t, too_long);
	tcase_add_test(t, user_rmpp);
	tcase_add_test(t, send_window);
	tcase_add_test(t, send_ends);
	suite_add_tcase(s, t);
	return s;
}

SEFA_CHECK_MAIN(rmpp_suite)
