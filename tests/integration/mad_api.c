// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The MAD API of <infiniband/efadv_mad.h> against a device with umad
 * (SoftEFA's extended profile), between two processes:
 *
 * - this one (A) registers an agent for a subnet administration method
 *   (class 0x03, version 2, RMPP version 1: GetMulti, the method whose
 *   requests are multi-packet);
 * - the peer (B, this program run again with --peer) sends it a 20 KiB
 *   RMPP request; A receives it first with a one-MAD buffer (ENOSPC and
 *   the length), then whole, checks every byte, and sends it back as the
 *   response, which B receives whole and checks;
 * - a request A does not answer comes back to B as ETIMEDOUT after its
 *   retries, A having received it once per try;
 * - MADs of a class, version or method A did not register for are not
 *   delivered to A;
 * - bad registrations and malformed writes get errors, and the agents
 *   go on working.
 *
 * A uses device MAD_DEV_A (default: the first), B device MAD_DEV_B
 * (default: the last), port 1 of each.  MAD_EXPECT=unsupported checks
 * only that registration fails with EOPNOTSUPP (the efa profile).
 */
#define _GNU_SOURCE
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_mad.h>
#include <infiniband/efadv_mad.h>
#include <infiniband/verbs.h>

#include "dev.h"
#include "peer.h"

#define PORT		1
#define BIG_LEN		(20 * 1024)
#define SA_HDR		EFADV_MAD_SA_HDR_SIZE
#define SA_VERSION	2
#define ATTR_ID		0x0031
#define COMP_MASK	0x0123456789abcdefULL
#define ATTR_OFFSET	0x0007

/* ---- what both processes do ---- */

static uint16_t port_lid(struct ibv_context *ctx)
{
	struct ibv_port_attr attr;

	return ibv_query_port(ctx, PORT, &attr) ? 0 : attr.lid;
}

static uint8_t pattern(uint8_t seed, size_t i)
{
	return (uint8_t)(seed + i * 31 + (i >> 8));
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static uint32_t tid_low(const struct efadv_mad_hdr *h)
{
	return be64toh(h->tid) & 0xffffffff;
}

/* Common and SA headers of the test's SA messages. */
static void sa_headers(void *mad, uint8_t method, uint8_t version,
		       uint32_t tid)
{
	struct efadv_mad_hdr *h = mad;
	struct efadv_mad_sa_hdr *sa = (void *)((uint8_t *)mad +
					       EFADV_MAD_RMPP_HDR_SIZE);

	h->base_version = EFADV_MAD_BASE_VERSION_IB;
	h->mgmt_class = EFADV_MAD_CLASS_SUBN_ADM;
	h->class_version = version;
	h->method = method;
	h->tid = htobe64(tid);
	h->attr_id = htobe16(ATTR_ID);
	sa->attr_offset = htobe16(ATTR_OFFSET);
	sa->comp_mask = htobe64(COMP_MASK);
}

/* 0, or what is wrong with an SA message of data_len pattern bytes. */
static int check_sa_message(const uint8_t *mad, size_t len, uint8_t method,
			    uint32_t tid, size_t data_len, uint8_t seed)
{
	const struct efadv_mad_hdr *h = (const void *)mad;
	const struct efadv_mad_rmpp_hdr *r = (const void *)(h + 1);
	const struct efadv_mad_sa_hdr *sa = (const void *)(r + 1);

	if (len != SA_HDR + data_len)
		return 1;
	if (h->base_version != 1 || h->mgmt_class != 3 ||
	    h->class_version != SA_VERSION || h->method != method ||
	    tid_low(h) != tid || h->attr_id != htobe16(ATTR_ID))
		return 2;
	if (r->rmpp_version != 1 || r->rmpp_type != EFADV_MAD_RMPP_TYPE_DATA ||
	    !(r->rmpp_rtime_flags & EFADV_MAD_RMPP_FLAG_ACTIVE) ||
	    r->rmpp_status)
		return 3;
	if (sa->attr_offset != htobe16(ATTR_OFFSET) ||
	    sa->comp_mask != htobe64(COMP_MASK) || sa->sm_key)
		return 4;
	for (size_t i = 0; i < data_len; i++)
		if (mad[SA_HDR + i] != pattern(seed, i))
			return 5;
	return 0;
}

/* ---- the peer, B ---- */

enum { P_OPEN = 1, P_SEND_BIG, P_RECV_BIG, P_UNANSWERED, P_SEND_OTHER,
       P_QUIT };

struct msg {
	uint32_t op;
	int32_t status;			/* 0, an errno, or a check's code */
	int32_t detail;
	uint32_t tid;
	uint16_t lid;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	uint8_t seed;
	int32_t timeout_ms;
	int32_t retries;
	int64_t elapsed_ms;
};

struct peer {
	struct ibv_context *ctx;
	struct efadv_mad_agent *rmpp;	/* responses only, RMPP */
	struct efadv_mad_agent *plain;	/* responses only */
};

static int peer_open(struct peer *p, struct msg *r)
{
	p->ctx = dev_open(getenv("MAD_DEV_B"), true);
	if (!p->ctx)
		return ENODEV;
	r->lid = port_lid(p->ctx);
	p->rmpp = efadv_register_mad_agent(p->ctx, PORT, EFADV_MAD_QPT_GSI,
					   NULL, 1, 0);
	if (!p->rmpp)
		return errno;
	p->plain = efadv_register_mad_agent(p->ctx, PORT, EFADV_MAD_QPT_GSI,
					    NULL, 0, 0);
	return p->plain ? 0 : errno;
}

static int peer_send_big(struct peer *p, const struct msg *m)
{
	struct efadv_mad_addr addr = { .lid = m->lid };
	struct efadv_mad_send_buf *b;
	uint8_t *data;
	int err;

	b = efadv_create_send_mad(p->rmpp, 1, 0, 1, SA_HDR, BIG_LEN,
				  EFADV_MAD_BASE_VERSION_IB);
	if (!b)
		return errno;
	sa_headers(b->mad, EFADV_MAD_METHOD_GET_MULTI, SA_VERSION, m->tid);
	data = (uint8_t *)b->mad + SA_HDR;
	for (size_t i = 0; i < BIG_LEN; i++)
		data[i] = pattern(m->seed, i);
	err = efadv_post_send_mad(b, &addr, m->timeout_ms, m->retries);
	/* posting copied it */
	efadv_free_send_mad(b);
	return err;
}

static int peer_recv_big(struct peer *p, const struct msg *m, struct msg *r)
{
	struct efadv_mad_recv_info info;
	size_t len = 64 * 1024;
	uint8_t *buf = malloc(len);
	int err;

	if (!buf)
		return ENOMEM;
	err = efadv_recv_mad(p->rmpp, buf, &len, 10000, &info);
	if (!err && info.status)
		err = info.status;
	if (!err) {
		r->detail = check_sa_message(buf, len,
					     EFADV_MAD_METHOD_GET_MULTI_RESP,
					     m->tid, BIG_LEN, m->seed);
		err = r->detail ? -1 : 0;
	}
	free(buf);
	return err;
}

/* A one-MAD request nobody answers: ETIMEDOUT, and how long it took. */
static int peer_unanswered(struct peer *p, const struct msg *m,
			   struct msg *r)
{
	struct efadv_mad_addr addr = { .lid = m->lid };
	struct efadv_mad_recv_info info;
	struct efadv_mad_send_buf *b;
	uint8_t buf[256];
	size_t len = sizeof(buf);
	long long t0;
	int err;

	b = efadv_create_send_mad(p->rmpp, 1, 0, 0, SA_HDR, 16,
				  EFADV_MAD_BASE_VERSION_IB);
	if (!b)
		return errno;
	sa_headers(b->mad, EFADV_MAD_METHOD_GET_MULTI, SA_VERSION, m->tid);
	t0 = now_ms();
	err = efadv_post_send_mad(b, &addr, m->timeout_ms, m->retries);
	efadv_free_send_mad(b);
	if (err)
		return err;
	err = efadv_recv_mad(p->rmpp, buf, &len,
			     m->timeout_ms * (m->retries + 1) + 10000, &info);
	r->elapsed_ms = now_ms() - t0;
	if (err)
		return err;
	if (len != EFADV_MAD_HDR_SIZE ||
	    tid_low((const void *)buf) != m->tid ||
	    ((struct efadv_mad_hdr *)buf)->method != EFADV_MAD_METHOD_GET_MULTI)
		r->detail = 1;
	return info.status;
}

/*
 * A request of a class, version and method nobody may have registered
 * for: the answer is a timeout, or a response with an error status.
 */
static int peer_send_other(struct peer *p, const struct msg *m,
			   struct msg *r)
{
	struct efadv_mad_addr addr = { .lid = m->lid };
	struct efadv_mad_recv_info info;
	struct efadv_mad_send_buf *b;
	struct efadv_mad_hdr *h;
	uint8_t buf[256];
	size_t len = sizeof(buf);
	int err;

	b = efadv_create_send_mad(p->plain, 1, 0, 0,
				  efadv_get_mad_data_offset(m->mgmt_class), 0,
				  EFADV_MAD_BASE_VERSION_IB);
	if (!b)
		return errno;
	h = b->mad;
	h->base_version = 1;
	h->mgmt_class = m->mgmt_class;
	h->class_version = m->class_version;
	h->method = m->method;
	h->tid = htobe64(m->tid);
	err = efadv_post_send_mad(b, &addr, m->timeout_ms, 0);
	efadv_free_send_mad(b);
	if (err)
		return err;
	err = efadv_recv_mad(p->plain, buf, &len, m->timeout_ms + 10000,
			     &info);
	if (err)
		return err;
	h = (void *)buf;
	if (info.status)
		return info.status;
	/* a response for us: it must say no */
	r->detail = be16toh(h->status);
	return tid_low(h) == m->tid && h->status ? EPROTO : -1;
}

static int peer_main(int sock)
{
	struct peer p = {};
	struct msg m;

	while (read(sock, &m, sizeof(m)) == sizeof(m)) {
		struct msg r = { .op = m.op };

		switch (m.op) {
		case P_OPEN:
			r.status = peer_open(&p, &r);
			break;
		case P_SEND_BIG:
			r.status = peer_send_big(&p, &m);
			break;
		case P_RECV_BIG:
			r.status = peer_recv_big(&p, &m, &r);
			break;
		case P_UNANSWERED:
			r.status = peer_unanswered(&p, &m, &r);
			break;
		case P_SEND_OTHER:
			r.status = peer_send_other(&p, &m, &r);
			break;
		case P_QUIT:
			efadv_unregister_mad_agent(p.rmpp);
			efadv_unregister_mad_agent(p.plain);
			if (p.ctx)
				ibv_close_device(p.ctx);
			return write(sock, &r, sizeof(r)) == sizeof(r) ? 0 : 1;
		}
		if (write(sock, &r, sizeof(r)) != sizeof(r))
			return 1;
	}
	return 1;
}

/* ---- the test side, A ---- */

static struct ibv_context *ctx;
static uint16_t lid_a, lid_b;
static int peer_sock = -1;
static pid_t peer_pid;
static uint32_t next_tid = 0x5eed0000;

static struct msg peer_call(struct msg m)
{
	struct msg r;

	peer_exchange(peer_sock, &m, &r, sizeof(m));
	return r;
}

static void setup(void)
{
	struct msg r;

	peer_sock = peer_spawn("mad_api", &peer_pid);

	ctx = dev_open(getenv("MAD_DEV_A"), false);
	ck_assert_ptr_nonnull(ctx);
	lid_a = port_lid(ctx);
	ck_assert_uint_ne(lid_a, 0);
	r = peer_call((struct msg){ .op = P_OPEN });
	ck_assert_msg(!r.status, "peer: %s", strerror(r.status));
	lid_b = r.lid;
}

static void teardown(void)
{
	peer_call((struct msg){ .op = P_QUIT });
	peer_reap(peer_sock, peer_pid);
	ibv_close_device(ctx);
}

static struct efadv_mad_agent *sa_agent(uint8_t method)
{
	struct efadv_mad_reg_req req = {
		.mgmt_class = EFADV_MAD_CLASS_SUBN_ADM,
		.mgmt_class_version = SA_VERSION,
	};
	struct efadv_mad_agent *a;

	efadv_mad_reg_req_set_method(&req, method);
	a = efadv_register_mad_agent(ctx, PORT, EFADV_MAD_QPT_GSI, &req, 1, 0);
	ck_assert_msg(a, "register: %s", strerror(errno));
	return a;
}

/* Nothing for the agent within ms. */
static void expect_nothing(struct efadv_mad_agent *a, int ms)
{
	uint8_t buf[256];
	size_t len = sizeof(buf);

	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, ms, NULL), ETIMEDOUT);
}

START_TEST(rmpp_round_trip)
{
	const size_t whole = SA_HDR + BIG_LEN;
	struct efadv_mad_agent *a = sa_agent(EFADV_MAD_METHOD_GET_MULTI);
	struct efadv_mad_recv_info info;
	struct efadv_mad_send_buf *resp;
	struct efadv_mad_hdr *h;
	uint32_t tid = next_tid++;
	uint8_t *buf = malloc(whole);
	size_t len = EFADV_MAD_SIZE;
	struct msg r;

	ck_assert_ptr_nonnull(buf);
	r = peer_call((struct msg){ .op = P_SEND_BIG, .lid = lid_a, .tid = tid,
				    .seed = 17, .timeout_ms = 5000,
				    .retries = 2 });
	ck_assert_msg(!r.status, "peer send: %s", strerror(r.status));

	/* a one-MAD buffer: the length, and the message stays */
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 10000, &info), ENOSPC);
	ck_assert_uint_eq(len, whole);
	len = whole - 1;
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, &info), ENOSPC);
	ck_assert_uint_eq(len, whole);
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, &info), 0);
	ck_assert_uint_eq(len, whole);
	ck_assert_int_eq(check_sa_message(buf, len, EFADV_MAD_METHOD_GET_MULTI,
					  tid, BIG_LEN, 17), 0);
	ck_assert_uint_eq(info.status, 0);
	ck_assert_uint_eq(info.src_qpn, 1);
	ck_assert_uint_eq(info.src.lid, lid_b);
	h = (void *)buf;
	/* the kernel gave the request the sender's agent's TID bits */
	ck_assert_uint_eq(tid_low(h), tid);

	/* the same bytes back, as the response */
	resp = efadv_create_send_mad(a, info.src_qpn, info.pkey_index, 1,
				     SA_HDR, BIG_LEN,
				     EFADV_MAD_BASE_VERSION_IB);
	ck_assert_ptr_nonnull(resp);
	ck_assert_int_eq(resp->seg_count, 103);
	memcpy(resp->mad, buf, EFADV_MAD_HDR_SIZE);
	memcpy((uint8_t *)resp->mad + EFADV_MAD_RMPP_HDR_SIZE,
	       buf + EFADV_MAD_RMPP_HDR_SIZE, whole - EFADV_MAD_RMPP_HDR_SIZE);
	((struct efadv_mad_hdr *)resp->mad)->method =
		EFADV_MAD_METHOD_GET_MULTI_RESP;
	ck_assert_int_eq(efadv_post_send_mad(resp, &info.src, 0, 0), 0);
	efadv_free_send_mad(resp);

	r = peer_call((struct msg){ .op = P_RECV_BIG, .tid = tid,
				    .seed = 17 });
	ck_assert_msg(!r.status, "peer receive: %d (check %d)", r.status,
		      r.detail);

	/* nothing more: the response settled the request */
	expect_nothing(a, 200);
	efadv_unregister_mad_agent(a);
	free(buf);
}
END_TEST

START_TEST(unanswered_request)
{
	struct efadv_mad_agent *a = sa_agent(EFADV_MAD_METHOD_GET_MULTI);
	struct efadv_mad_recv_info info;
	uint32_t tid = next_tid++;
	uint8_t buf[256];
	size_t len;
	struct msg r;

	r = peer_call((struct msg){ .op = P_UNANSWERED, .lid = lid_a,
				    .tid = tid, .timeout_ms = 300,
				    .retries = 2 });
	ck_assert_msg(r.status == ETIMEDOUT, "peer: %d", r.status);
	ck_assert_int_eq(r.detail, 0);
	/* three tries of 300 ms each */
	ck_assert_msg(r.elapsed_ms >= 850 && r.elapsed_ms < 10000,
		      "timed out after %lld ms", (long long)r.elapsed_ms);

	/* A got every try, the same request */
	for (int i = 0; i < 3; i++) {
		len = sizeof(buf);
		ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 1000, &info), 0);
		ck_assert_uint_eq(len, EFADV_MAD_SIZE);
		ck_assert_uint_eq(info.status, 0);
		ck_assert_uint_eq(tid_low((void *)buf), tid);
		ck_assert_uint_eq(((struct efadv_mad_hdr *)buf)->method,
				  EFADV_MAD_METHOD_GET_MULTI);
	}
	len = sizeof(buf);
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, NULL), EAGAIN);
	efadv_unregister_mad_agent(a);
}
END_TEST

static void send_other(uint8_t cls, uint8_t version, uint8_t method)
{
	struct msg r;

	r = peer_call((struct msg){ .op = P_SEND_OTHER, .lid = lid_a,
				    .tid = next_tid++, .mgmt_class = cls,
				    .class_version = version,
				    .method = method, .timeout_ms = 300 });
	/* a timeout, or a response saying no: never a yes */
	ck_assert_msg(r.status == ETIMEDOUT || r.status == EPROTO,
		      "class 0x%x: %d (status 0x%x)", cls, r.status, r.detail);
}

START_TEST(not_registered)
{
	struct efadv_mad_agent *a = sa_agent(EFADV_MAD_METHOD_GET_MULTI);

	/* another class, another version, another method */
	send_other(EFADV_MAD_CLASS_VENDOR_RANGE1_START, 1,
		   EFADV_MAD_METHOD_GET);
	send_other(EFADV_MAD_CLASS_SUBN_ADM, 1, EFADV_MAD_METHOD_GET_MULTI);
	send_other(EFADV_MAD_CLASS_SUBN_ADM, SA_VERSION,
		   EFADV_MAD_METHOD_GET_TRACE_TABLE);
	expect_nothing(a, 300);
	efadv_unregister_mad_agent(a);
}
END_TEST

static void reg_fails(enum efadv_mad_qp_type qpt, uint8_t cls,
		      uint8_t version, uint8_t rmpp, uint32_t flags, int err)
{
	struct efadv_mad_reg_req req = { .mgmt_class = cls,
					 .mgmt_class_version = version };

	efadv_mad_reg_req_set_method(&req, EFADV_MAD_METHOD_GET);
	errno = 0;
	ck_assert_ptr_null(efadv_register_mad_agent(ctx, PORT, qpt, &req, rmpp,
						    flags));
	ck_assert_msg(errno == err, "class 0x%x: %s", cls, strerror(errno));
}

START_TEST(bad_registrations)
{
	struct efadv_mad_reg_req a_req = {
		.mgmt_class = EFADV_MAD_CLASS_SUBN_ADM,
		.mgmt_class_version = SA_VERSION,
	};
	struct efadv_mad_agent *a, *b;

	efadv_mad_reg_req_set_method(&a_req, EFADV_MAD_METHOD_GET_MULTI);

	reg_fails(EFADV_MAD_QPT_SMI, EFADV_MAD_CLASS_SUBN_ADM, 2, 0, 0, EINVAL);
	reg_fails(EFADV_MAD_QPT_GSI, EFADV_MAD_CLASS_SUBN_LID_ROUTED, 1, 0, 0,
		  EINVAL);
	reg_fails(EFADV_MAD_QPT_GSI, 0, 1, 0, 0, EINVAL);
	reg_fails(EFADV_MAD_QPT_GSI, EFADV_MAD_CLASS_PERF_MGMT, 1, 1, 0,
		  EINVAL);
	reg_fails(EFADV_MAD_QPT_GSI, 0x30, 1, 0, 0, EINVAL);
	reg_fails(EFADV_MAD_QPT_GSI, EFADV_MAD_CLASS_SUBN_ADM, 2, 2, 0, EINVAL);
	reg_fails(EFADV_MAD_QPT_GSI, EFADV_MAD_CLASS_SUBN_ADM, 2, 1, 4, EINVAL);
	errno = 0;
	ck_assert_ptr_null(efadv_register_mad_agent(ctx, PORT + 1,
						    EFADV_MAD_QPT_GSI, NULL,
						    0, 0));
	ck_assert_int_eq(errno, ENODEV);

	/* one agent per method: the kernel says no to the second */
	a = sa_agent(EFADV_MAD_METHOD_GET_MULTI);
	errno = 0;
	ck_assert_ptr_null(efadv_register_mad_agent(ctx, PORT,
						    EFADV_MAD_QPT_GSI,
						    &a_req, 1, 0));
	ck_assert_int_eq(errno, EINVAL);
	/* another method of the class is free; and the first, once freed */
	b = sa_agent(EFADV_MAD_METHOD_GET_TRACE_TABLE);
	efadv_unregister_mad_agent(a);
	a = sa_agent(EFADV_MAD_METHOD_GET_MULTI);
	efadv_unregister_mad_agent(a);
	efadv_unregister_mad_agent(b);
}
END_TEST

/* The umad file refuses what is not a MAD, and the agent goes on. */
START_TEST(malformed_writes)
{
	struct efadv_mad_agent *a = sa_agent(EFADV_MAD_METHOD_GET_MULTI);
	uint8_t raw[sizeof(struct ib_user_mad_hdr) + 256] = {};
	struct ib_user_mad_hdr *u = (void *)raw;
	uint8_t buf[256];
	size_t len;
	struct msg r;

	u->id = a->id;
	u->qpn = htobe32(1);
	u->lid = htobe16(lid_b);
	/* shorter than the header and an RMPP header */
	ck_assert_int_eq(write(a->fd, raw, sizeof(*u) + 35), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* an agent id out of range, or not registered */
	u->id = 32;
	ck_assert_int_eq(write(a->fd, raw, sizeof(raw)), -1);
	ck_assert_int_eq(errno, EINVAL);
	u->id = a->id + 1;
	ck_assert_int_eq(write(a->fd, raw, sizeof(raw)), -1);
	ck_assert(errno == EIO || errno == EINVAL);
	/* a read shorter than the header */
	ck_assert_int_eq(read(a->fd, raw, 10), -1);
	ck_assert_int_eq(errno, EINVAL);

	/* it still receives */
	r = peer_call((struct msg){ .op = P_UNANSWERED, .lid = lid_a,
				    .tid = next_tid++, .timeout_ms = 200,
				    .retries = 0 });
	ck_assert_int_eq(r.status, ETIMEDOUT);
	len = sizeof(buf);
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 1000, NULL), 0);
	efadv_unregister_mad_agent(a);
}
END_TEST

/* The efa profile: no umad devices. */
START_TEST(unsupported)
{
	struct ibv_context *c = dev_open(getenv("MAD_DEV_A"), false);

	ck_assert_ptr_nonnull(c);
	errno = 0;
	ck_assert_ptr_null(efadv_register_mad_agent(c, PORT, EFADV_MAD_QPT_GSI,
						    NULL, 0, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ibv_close_device(c);
}
END_TEST

static Suite *mad_suite(void)
{
	Suite *s = suite_create("mad_api");
	TCase *t = tcase_create("mad_api");
	const char *expect = getenv("MAD_EXPECT");

	tcase_set_timeout(t, 120);
	if (expect && !strcmp(expect, "unsupported")) {
		tcase_add_test(t, unsupported);
	} else {
		tcase_add_checked_fixture(t, setup, teardown);
		tcase_add_test(t, rmpp_round_trip);
		tcase_add_test(t, unanswered_request);
		tcase_add_test(t, not_registered);
		tcase_add_test(t, bad_registrations);
		tcase_add_test(t, malformed_writes);
	}
	suite_add_tcase(s, t);
	return s;
}

SEFA_PEER_MAIN(mad_suite, peer_main)
