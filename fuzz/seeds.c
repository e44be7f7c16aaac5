// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * fuzz_seeds DIR: writes the seed corpora of the harnesses into
 * DIR/<harness>/, valid inputs each harness's fuzzing starts from: the
 * verbs a program runs through each ABI, the umad calls of a MAD tool,
 * MADs of every class the daemon answers, a packet of every operation of
 * every transport, WQEs of every operation in each send queue, and the
 * shim's ordinary answers.  Run once; the output
 * is committed (fuzz/README.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_mad.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

#include "efa/efa_ext_abi.h"
#include "fuzz.h"
#include "mad/format.h"
#include "nic/loc.h"

struct seed {
	uint8_t b[16384];
	size_t n;
	uint64_t resp;		/* the next response buffer in scratch */
};

static const char *out_dir;

static void seed_init(struct seed *s, int flags)
{
	s->n = 0;
	s->resp = FUZZ_USER_SCRATCH;
	if (flags >= 0)
		s->b[s->n++] = (uint8_t)flags;
}

static void put(struct seed *s, const void *p, size_t len)
{
	if (s->n + len > sizeof(s->b))
		abort();
	memcpy(s->b + s->n, p, len);
	s->n += len;
}

/* A record; returns the client address of its payload. */
static uint64_t rec(struct seed *s, uint8_t op, const void *p, size_t len)
{
	uint8_t h[3] = { op, (uint8_t)len, (uint8_t)(len >> 8) };

	put(s, h, 3);
	put(s, p, len);
	return FUZZ_USER_BASE + s->n - len;
}

static uint64_t resp_buf(struct seed *s, size_t len)
{
	uint64_t a = s->resp;

	s->resp += (len + 63) & ~63UL;
	return a;
}

static void save(const char *harness, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, harness);
	if (mkdir(path, 0755) && errno != EEXIST)
		abort();
	snprintf(path, sizeof(path), "%s/%s/%s", out_dir, harness, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->n, f) != s->n || fclose(f))
		abort();
}

/* ---- uverbs: a write() command, or the same through INVOKE_WRITE ---- */

struct wcmd {
	uint32_t command;
	uint8_t core[256];
	size_t core_len;
	uint8_t udata[64];
	size_t udata_len;
	size_t out_len;		/* the core response and the driver's */
};

/* @c's response pointer, the first field of the core, into scratch */
static void wcmd_resp(struct seed *s, struct wcmd *c)
{
	uint64_t r = resp_buf(s, c->out_len);

	if (c->out_len)
		memcpy(c->core, &r, 8);
}

static void emit_write(struct seed *s, struct wcmd *c)
{
	uint8_t buf[512];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = c->command,
		.in_words = (uint16_t)((sizeof(hdr) + c->core_len +
					c->udata_len) / 4),
		.out_words = (uint16_t)(c->out_len / 4),
	};

	wcmd_resp(s, c);
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), c->core, c->core_len);
	memcpy(buf + sizeof(hdr) + c->core_len, c->udata, c->udata_len);
	rec(s, 0, buf, sizeof(hdr) + c->core_len + c->udata_len);
}

struct ioc {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr a[12];
};

static void ioc_init(struct ioc *b, uint16_t obj, uint16_t meth)
{
	memset(b, 0, sizeof(*b));
	b->hdr.object_id = obj;
	b->hdr.method_id = meth;
	b->hdr.driver_id = RDMA_DRIVER_EFA;
}

static void ioc_attr(struct ioc *b, uint16_t id, uint16_t len, uint64_t data)
{
	b->a[b->hdr.num_attrs++] = (struct ib_uverbs_attr){
		.attr_id = id, .len = len, .data = data,
	};
}

static void emit_ioctl(struct seed *s, struct ioc *b)
{
	b->hdr.length = (uint16_t)(sizeof(b->hdr) +
				   b->hdr.num_attrs * sizeof(b->a[0]));
	rec(s, 0, b, b->hdr.length);
}

/*
 * A write command through the ioctl ABI: its core and udata in a record
 * of their own (op 0xff, which the ioctl harness also sends, and fails),
 * then the ioctl naming them.
 */
static void emit_invoke(struct seed *s, struct wcmd *c)
{
	struct ioc b;
	uint64_t core, udata = 0, out;

	out = resp_buf(s, c->out_len);
	core = rec(s, 0xff, c->core, c->core_len);
	if (c->udata_len)
		udata = rec(s, 0xff, c->udata, c->udata_len);
	ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE);
	ioc_attr(&b, UVERBS_ATTR_WRITE_CMD, 8, c->command);
	ioc_attr(&b, UVERBS_ATTR_CORE_IN, (uint16_t)c->core_len, core);
	if (c->out_len)
		ioc_attr(&b, UVERBS_ATTR_CORE_OUT, (uint16_t)c->out_len, out);
	if (c->udata_len)
		ioc_attr(&b, UVERBS_ATTR_UHW_IN, (uint16_t)c->udata_len, udata);
	emit_ioctl(s, &b);
}

#define CORE(c, type, ...) do {						\
	type v_ = { __VA_ARGS__ };					\
	memcpy((c)->core, &v_, sizeof(v_));				\
	(c)->core_len = sizeof(v_);					\
} while (0)
#define UDATA(c, type, ...) do {					\
	type v_ = { __VA_ARGS__ };					\
	memcpy((c)->udata, &v_, sizeof(v_));				\
	(c)->udata_len = sizeof(v_);					\
} while (0)

static struct wcmd get_context(void)
{
	struct wcmd c = { .command = IB_USER_VERBS_CMD_GET_CONTEXT };

	CORE(&c, struct ib_uverbs_get_context, 0);
	UDATA(&c, struct efa_ibv_alloc_ucontext_cmd,
	      .comp_mask = EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH |
			   EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR);
	c.out_len = sizeof(struct ib_uverbs_get_context_resp) +
		    sizeof(struct efa_ibv_alloc_ucontext_resp);
	return c;
}

static struct wcmd simple(uint32_t command, size_t out_len)
{
	struct wcmd c = { .command = command };

	CORE(&c, struct ib_uverbs_query_port, .port_num = 1);
	if (command != IB_USER_VERBS_CMD_QUERY_PORT)
		c.core_len = 8;
	c.out_len = out_len;
	return c;
}

static struct wcmd alloc_pd(void)
{
	struct wcmd c = simple(IB_USER_VERBS_CMD_ALLOC_PD,
			       sizeof(struct ib_uverbs_alloc_pd_resp) +
			       sizeof(struct efa_ibv_alloc_pd_resp));
	return c;
}

static struct wcmd reg_mr(uint32_t pd, uint32_t access)
{
	struct wcmd c = { .command = IB_USER_VERBS_CMD_REG_MR };

	CORE(&c, struct ib_uverbs_reg_mr, .start = FUZZ_USER_BASE,
	     .length = 4096, .hca_va = FUZZ_USER_BASE, .pd_handle = pd,
	     .access_flags = access);
	c.out_len = sizeof(struct ib_uverbs_reg_mr_resp);
	return c;
}

static struct wcmd create_cq(int channel, uint16_t subs)
{
	struct wcmd c = { .command = IB_USER_VERBS_CMD_CREATE_CQ };

	CORE(&c, struct ib_uverbs_create_cq, .user_handle = 0x1234,
	     .cqe = 64, .comp_channel = channel);
	UDATA(&c, struct efa_ibv_create_cq, .cq_entry_size = 32,
	      .num_sub_cqs = subs,
	      .flags = channel >= 0 ? EFA_CREATE_CQ_WITH_COMPLETION_CHANNEL :
				      0);
	c.out_len = sizeof(struct ib_uverbs_create_cq_resp) +
		    sizeof(struct efa_ibv_create_cq_resp);
	return c;
}

static struct wcmd create_qp(uint32_t pd, uint32_t cq, uint8_t type,
			     uint32_t driver_type)
{
	struct wcmd c = { .command = IB_USER_VERBS_CMD_CREATE_QP };

	CORE(&c, struct ib_uverbs_create_qp, .user_handle = 0x5678,
	     .pd_handle = pd, .send_cq_handle = cq, .recv_cq_handle = cq,
	     .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 1,
	     .max_recv_sge = 1, .qp_type = type);
	UDATA(&c, struct efa_ibv_create_qp, .rq_ring_size = 16 * 16,
	      .sq_ring_size = 16 * 64, .driver_qp_type = driver_type);
	c.out_len = sizeof(struct ib_uverbs_create_qp_resp) +
		    sizeof(struct efa_ibv_create_qp_resp);
	return c;
}

static struct wcmd modify_qp(uint32_t qp, int state, uint32_t mask)
{
	struct wcmd c = { .command = IB_USER_VERBS_CMD_MODIFY_QP };

	CORE(&c, struct ib_uverbs_modify_qp, .dest = { .port_num = 1 },
	     .qp_handle = qp, .attr_mask = IBV_QP_STATE | mask,
	     .qkey = 0x11111111, .qp_state = (uint8_t)state, .port_num = 1,
	     .path_mtu = IBV_MTU_4096, .dest_qp_num = 0x102,
	     .qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE,
	     .min_rnr_timer = 12, .retry_cnt = 7, .rnr_retry = 7,
	     .timeout = 14);
	/* no response: the core starts with dest, not a pointer */
	c.out_len = 0;
	return c;
}

static struct wcmd handle_cmd(uint32_t command, uint32_t handle,
			      size_t out_len)
{
	struct wcmd c = { .command = command };
	struct {
		uint64_t response;
		uint32_t handle;
		uint32_t more;
	} core = { 0, handle, 0 };

	if (!out_len) {
		memcpy(c.core, &handle, 4);
		memset(c.core + 4, 0, 4);
		c.core_len = command == IB_USER_VERBS_CMD_DEREG_MR ||
			     command == IB_USER_VERBS_CMD_DEALLOC_PD ||
			     command == IB_USER_VERBS_CMD_DESTROY_AH ? 4 : 8;
	} else {
		core.more = command == IB_USER_VERBS_CMD_QUERY_QP ?
			    IBV_QP_STATE | IBV_QP_QKEY : 0;
		memcpy(c.core, &core, sizeof(core));
		c.core_len = sizeof(core);
	}
	c.out_len = out_len;
	return c;
}

static struct wcmd create_ah(uint32_t pd, const uint8_t gid[16])
{
	struct wcmd c = { .command = IB_USER_VERBS_CMD_CREATE_AH };
	struct ib_uverbs_create_ah a = {
		.user_handle = 9, .pd_handle = pd,
		.attr = { .is_global = 1, .port_num = 1,
			  .grh = { .hop_limit = 255 } },
	};

	memcpy(a.attr.grh.dgid, gid, 16);
	memcpy(c.core, &a, sizeof(a));
	c.core_len = sizeof(a);
	c.out_len = sizeof(struct ib_uverbs_create_ah_resp) +
		    sizeof(struct efa_ibv_create_ah_resp);
	return c;
}

/* What a verbs program does first to last; @emit takes each command. */
static void verbs_program(struct seed *s, bool extended, int qpt,
			  void (*emit)(struct seed *, struct wcmd *))
{
	static const uint8_t gid[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 1 };
	uint16_t subs = 2;
	struct wcmd c;

	c = get_context(); emit(s, &c);
	c = simple(IB_USER_VERBS_CMD_QUERY_DEVICE,
		   sizeof(struct ib_uverbs_query_device_resp)); emit(s, &c);
	c = simple(IB_USER_VERBS_CMD_QUERY_PORT,
		   sizeof(struct ib_uverbs_query_port_resp)); emit(s, &c);
	c = alloc_pd(); emit(s, &c);
	c = reg_mr(0, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		   IBV_ACCESS_REMOTE_READ); emit(s, &c);
	c = simple(IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
		   sizeof(struct ib_uverbs_create_comp_channel_resp));
	emit(s, &c);
	c = create_cq(-1, subs); emit(s, &c);
	if (qpt == IBV_QPT_DRIVER)
		c = create_qp(0, 2, IBV_QPT_DRIVER, EFA_QP_DRIVER_TYPE_SRD);
	else
		c = create_qp(0, 2, (uint8_t)qpt, 0);
	emit(s, &c);
	c = modify_qp(3, IBV_QPS_INIT, qpt == IBV_QPT_RC ?
		      IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS :
		      IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	emit(s, &c);
	if (qpt == IBV_QPT_RC) {
		c = modify_qp(3, IBV_QPS_RTR, IBV_QP_AV | IBV_QP_PATH_MTU |
			      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			      IBV_QP_MAX_DEST_RD_ATOMIC |
			      IBV_QP_MIN_RNR_TIMER);
		emit(s, &c);
	} else {
		c = modify_qp(3, IBV_QPS_RTR, 0); emit(s, &c);
		c = modify_qp(3, IBV_QPS_RTS, IBV_QP_SQ_PSN); emit(s, &c);
	}
	c = handle_cmd(IB_USER_VERBS_CMD_QUERY_QP, 3,
		       sizeof(struct ib_uverbs_query_qp_resp)); emit(s, &c);
	c = create_ah(0, gid); emit(s, &c);
	c = handle_cmd(IB_USER_VERBS_CMD_DESTROY_AH, 4, 0); emit(s, &c);
	c = handle_cmd(IB_USER_VERBS_CMD_DESTROY_QP, 3,
		       sizeof(struct ib_uverbs_destroy_qp_resp)); emit(s, &c);
	c = handle_cmd(IB_USER_VERBS_CMD_DESTROY_CQ, 2,
		       sizeof(struct ib_uverbs_destroy_cq_resp)); emit(s, &c);
	c = handle_cmd(IB_USER_VERBS_CMD_DEREG_MR, 1, 0); emit(s, &c);
	c = handle_cmd(IB_USER_VERBS_CMD_DEALLOC_PD, 0, 0); emit(s, &c);
	(void)extended;
}

static void write_seeds(void)
{
	static const int qpts[] = { IBV_QPT_UD, IBV_QPT_DRIVER, IBV_QPT_RC };
	struct seed s;
	struct wcmd c;
	char name[64];
	unsigned int i, flags;

	for (flags = 0; flags < 4; flags++) {
		for (i = 0; i < 3; i++) {
			if (qpts[i] == IBV_QPT_RC && !(flags & 1))
				continue;
			seed_init(&s, (int)flags);
			verbs_program(&s, flags & 1, qpts[i], emit_write);
			snprintf(name, sizeof(name), "program-%u-%s", flags,
				 i == 0 ? "ud" : i == 1 ? "srd" : "rc");
			save("write", name, &s);
		}
	}
	/* each command alone, without a context first, and after one */
	for (i = 0; i < 2; i++) {
		seed_init(&s, 0);
		if (i) {
			c = get_context();
			emit_write(&s, &c);
		}
		c = simple(IB_USER_VERBS_CMD_QUERY_PORT,
			   sizeof(struct ib_uverbs_query_port_resp));
		emit_write(&s, &c);
		snprintf(name, sizeof(name), "query-port-%u", i);
		save("write", name, &s);
	}
	/* the extended query of the device */
	seed_init(&s, 0);
	c = get_context();
	emit_write(&s, &c);
	{
		struct {
			struct ib_uverbs_cmd_hdr hdr;
			struct ib_uverbs_ex_cmd_hdr ex;
			struct ib_uverbs_ex_query_device core;
		} q = {
			.hdr = { .command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
					    IB_USER_VERBS_EX_CMD_QUERY_DEVICE,
				 .in_words = sizeof(q.core) / 8,
				 .out_words = sizeof(struct ib_uverbs_ex_query_device_resp) / 8 },
			.ex = { .provider_out_words =
				sizeof(struct efa_ibv_ex_query_device_resp) / 8 },
		};

		q.ex.response = resp_buf(&s, 512);
		rec(&s, 0, &q, sizeof(q));
	}
	save("write", "ex-query-device", &s);
}

static void ioctl_seeds(void)
{
	static const int qpts[] = { IBV_QPT_UD, IBV_QPT_DRIVER, IBV_QPT_RC };
	struct seed s;
	struct ioc b;
	char name[64];
	unsigned int i;

	for (i = 0; i < 3; i++) {
		seed_init(&s, i == 2);
		verbs_program(&s, i == 2, qpts[i], emit_invoke);
		snprintf(name, sizeof(name), "invoke-write-%s",
			 i == 0 ? "ud" : i == 1 ? "srd" : "rc");
		save("ioctl", name, &s);
	}

	/* the native methods a current libibverbs calls */
	seed_init(&s, 1);
	ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT);
	{
		struct wcmd c = get_context();

		ioc_attr(&b, UVERBS_ATTR_UHW_IN, (uint16_t)c.udata_len,
			 rec(&s, 0xff, c.udata, c.udata_len));
		ioc_attr(&b, UVERBS_ATTR_UHW_OUT,
			 sizeof(struct efa_ibv_alloc_ucontext_resp),
			 resp_buf(&s, 64));
	}
	ioc_attr(&b, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, 4,
		 resp_buf(&s, 4));
	ioc_attr(&b, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, 8, resp_buf(&s, 8));
	emit_ioctl(&s, &b);
	ioc_init(&b, UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC);
	ioc_attr(&b, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, 0, 0);
	emit_ioctl(&s, &b);
	ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT);
	ioc_attr(&b, UVERBS_ATTR_QUERY_PORT_PORT_NUM, 8, 1);
	ioc_attr(&b, UVERBS_ATTR_QUERY_PORT_RESP,
		 sizeof(struct ib_uverbs_query_port_resp_ex),
		 resp_buf(&s, sizeof(struct ib_uverbs_query_port_resp_ex)));
	emit_ioctl(&s, &b);
	ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY);
	ioc_attr(&b, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, 8, 1);
	ioc_attr(&b, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, 8, 0);
	ioc_attr(&b, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 4, 0);
	ioc_attr(&b, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
		 sizeof(struct ib_uverbs_gid_entry),
		 resp_buf(&s, sizeof(struct ib_uverbs_gid_entry)));
	emit_ioctl(&s, &b);
	ioc_init(&b, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE);
	ioc_attr(&b, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, 8,
		 sizeof(struct ib_uverbs_gid_entry));
	ioc_attr(&b, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES,
		 4 * sizeof(struct ib_uverbs_gid_entry), resp_buf(&s, 256));
	ioc_attr(&b, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, 8,
		 resp_buf(&s, 8));
	emit_ioctl(&s, &b);
	{
		struct wcmd c = alloc_pd();

		emit_invoke(&s, &c);
	}
	ioc_init(&b, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_CREATE);
	ioc_attr(&b, UVERBS_ATTR_CREATE_CQ_HANDLE, 0, 0);
	ioc_attr(&b, UVERBS_ATTR_CREATE_CQ_CQE, 4, 64);
	ioc_attr(&b, UVERBS_ATTR_CREATE_CQ_USER_HANDLE, 8, 0x77);
	ioc_attr(&b, UVERBS_ATTR_CREATE_CQ_COMP_VECTOR, 4, 0);
	ioc_attr(&b, UVERBS_ATTR_CREATE_CQ_RESP_CQE, 4, resp_buf(&s, 4));
	{
		struct efa_ibv_create_cq u = { .cq_entry_size = 32,
					       .num_sub_cqs = 2 };
		uint64_t ua;

		/* the udata first, in a record the harness sends and fails */
		b.hdr.length = 0;
		ua = rec(&s, 0xff, &u, sizeof(u));
		ioc_attr(&b, UVERBS_ATTR_UHW_IN, sizeof(u), ua);
		ioc_attr(&b, UVERBS_ATTR_UHW_OUT,
			 sizeof(struct efa_ibv_create_cq_resp),
			 resp_buf(&s, 64));
	}
	emit_ioctl(&s, &b);
	ioc_init(&b, UVERBS_OBJECT_MR, SEFA_IB_METHOD_MR_CREATE_INDIRECT);
	ioc_attr(&b, SEFA_IB_ATTR_INDIRECT_MR_HANDLE, 0, 0);
	ioc_attr(&b, SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE, 0, 0);
	ioc_attr(&b, SEFA_IB_ATTR_INDIRECT_MR_MAX_ENTRIES, 4, 16);
	ioc_attr(&b, SEFA_IB_ATTR_INDIRECT_MR_ACCESS, 4,
		 IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		 IBV_ACCESS_REMOTE_READ);
	ioc_attr(&b, SEFA_IB_ATTR_INDIRECT_MR_RESP_LKEY, 4, resp_buf(&s, 4));
	ioc_attr(&b, SEFA_IB_ATTR_INDIRECT_MR_RESP_RKEY, 4, resp_buf(&s, 4));
	ioc_attr(&b, SEFA_IB_ATTR_INDIRECT_MR_RESP_MAX_ENTRIES, 4,
		 resp_buf(&s, 4));
	emit_ioctl(&s, &b);
	ioc_init(&b, UVERBS_OBJECT_MR, UVERBS_METHOD_MR_DESTROY);
	ioc_attr(&b, UVERBS_ATTR_DESTROY_MR_HANDLE, 0, 2);
	emit_ioctl(&s, &b);
	ioc_init(&b, UVERBS_OBJECT_PD, UVERBS_METHOD_PD_DESTROY);
	ioc_attr(&b, UVERBS_ATTR_DESTROY_PD_HANDLE, 0, 0);
	emit_ioctl(&s, &b);
	save("ioctl", "native-methods", &s);
}

/* ---- MADs ---- */

static void mad_hdr(uint8_t *m, uint8_t mgmt_class, uint8_t version,
		    uint8_t method, uint16_t attr, uint32_t mod, uint64_t tid)
{
	mad_hdr_init(m, mgmt_class, version, method, attr, tid);
	put32(m + MAD_OFF_ATTR_MOD, mod);
}

/* A MAD record of the mad harness: where to, from which LID. */
static void mad_rec(struct seed *s, uint8_t op, uint16_t slid,
		    const uint8_t *m)
{
	uint8_t p[2 + MAD_SIZE];

	p[0] = slid >> 8;
	p[1] = (uint8_t)slid;
	memcpy(p + 2, m, MAD_SIZE);
	rec(s, op, p, sizeof(p));
}

/* An RMPP segment of @len data bytes, first/last as the flags say. */
static void rmpp_seg(uint8_t *m, uint8_t type, uint8_t flags, uint32_t seg,
		     uint32_t paylen)
{
	m[RMPP_OFF_VERSION] = 1;
	m[RMPP_OFF_TYPE] = type;
	m[RMPP_OFF_RTIME_FLAGS] = flags | RMPP_FLAG_ACTIVE;
	put32(m + RMPP_OFF_SEG_NUM, seg);
	put32(m + RMPP_OFF_PAYLEN, paylen);
}

/* The LIDs of an extended host 0: the SM at 1, devices from 2 on. */
#define LID_DEV0	2
#define LID_DEV1	3

static void mad_seeds(void)
{
	static const struct { uint16_t attr; uint32_t mod; const char *n; }
		smps[] = {
		{ 0x0011, 0, "nodeinfo" }, { 0x0010, 0, "nodedesc" },
		{ 0x0015, 1, "portinfo" }, { 0x0016, 0, "pkeytable" },
		{ 0x0014, 0, "guidinfo" }, { 0x0020, 0, "sminfo" },
		{ 0x0017, 0, "slvl" }, { 0x0018, 0, "vlarb" },
	};
	static const struct { uint16_t attr; const char *n; } pmas[] = {
		{ 0x0001, "classportinfo" }, { 0x0012, "portcounters" },
		{ 0x001d, "portcounters-ext" },
	};
	uint8_t m[MAD_SIZE];
	struct seed s;
	char name[64];
	unsigned int i;

	/* SMA: LID routed to each port, and directed route to itself */
	for (i = 0; i < sizeof(smps) / sizeof(smps[0]); i++) {
		seed_init(&s, -1);
		mad_hdr(m, MAD_CLASS_SUBN_LID, 1, MAD_METHOD_GET, smps[i].attr,
			smps[i].mod, 0x100 + i);
		mad_rec(&s, 0, LID_DEV1, m);
		mad_rec(&s, 1, LID_DEV0, m);
		mad_hdr(m, MAD_CLASS_SUBN_DR, 1, MAD_METHOD_GET, smps[i].attr,
			smps[i].mod, 0x200 + i);
		put16(m + 32, MAD_PERMISSIVE_LID);
		put16(m + 34, MAD_PERMISSIVE_LID);
		mad_rec(&s, 3, MAD_PERMISSIVE_LID, m);
		snprintf(name, sizeof(name), "sma-%s", smps[i].n);
		save("mad", name, &s);
	}
	/* SMA Set: refused as unsupported */
	seed_init(&s, -1);
	mad_hdr(m, MAD_CLASS_SUBN_LID, 1, MAD_METHOD_SET, 0x0015, 1, 0x300);
	mad_rec(&s, 0, LID_DEV1, m);
	save("mad", "sma-set-portinfo", &s);
	/* PMA */
	for (i = 0; i < sizeof(pmas) / sizeof(pmas[0]); i++) {
		seed_init(&s, -1);
		mad_hdr(m, MAD_CLASS_PERF, 1, MAD_METHOD_GET, pmas[i].attr, 0,
			0x400 + i);
		m[PERF_OFF_DATA + 1] = 1;		/* port select */
		mad_rec(&s, 4, LID_DEV1, m);
		m[MAD_OFF_METHOD] = MAD_METHOD_SET;
		put16(m + PERF_OFF_DATA + 2, 0xffff);	/* clear all */
		mad_rec(&s, 4, LID_DEV1, m);
		snprintf(name, sizeof(name), "pma-%s", pmas[i].n);
		save("mad", name, &s);
	}
	/*
	 * A stranger on the link (softefa-wire(7) TRUST): PMA Gets from
	 * source LIDs nobody has, responses nobody asked for, and NodeInfo
	 * answers to the SM's sweep with a TID it did not give.
	 */
	seed_init(&s, -1);
	mad_hdr(m, MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0012, 0, 0x480);
	for (i = 0; i < 4; i++)
		mad_rec(&s, 4 | (i & 1), 0x1000 + 0x3777 * i, m);
	mad_hdr(m, MAD_CLASS_PERF, 1, MAD_METHOD_RESP | MAD_METHOD_GET, 0x0012,
		0, 0x5efa00000481ULL);
	mad_rec(&s, 4, LID_DEV1, m);
	save("mad", "stranger-pma", &s);
	seed_init(&s, -1);
	for (i = 0; i < 3; i++) {
		mad_hdr(m, MAD_CLASS_SUBN_LID, 1,
			MAD_METHOD_RESP | MAD_METHOD_GET, 0x0011, 0,
			0x500 + i);
		m[SMP_OFF_DATA] = MAD_BASE_VERSION;
		put64(m + SMP_OFF_DATA + 20, 0x0200000000000099ULL + i);
		mad_rec(&s, 2, 0x40 + i, m);
	}
	save("mad", "stranger-sweep-answers", &s);
	/* SA: records by Get, tables by GetTable (answered with RMPP) */
	{
		static const uint16_t attrs[] = { 0x0011, 0x0035, 0x0001 };

		for (i = 0; i < 3; i++) {
			seed_init(&s, -1);
			mad_hdr(m, MAD_CLASS_SUBN_ADM, 2, MAD_METHOD_GET,
				attrs[i], 0, 0x500 + i);
			mad_rec(&s, 6, LID_DEV0, m);
			mad_hdr(m, MAD_CLASS_SUBN_ADM, 2, MAD_METHOD_GET_TABLE,
				attrs[i], 0, 0x510 + i);
			m[RMPP_OFF_VERSION] = 1;
			mad_rec(&s, 6, LID_DEV0, m);
			/* the ACK of the table's only segment */
			mad_hdr(m, MAD_CLASS_SUBN_ADM, 2,
				MAD_METHOD_GET_TABLE | MAD_METHOD_RESP,
				attrs[i], 0, 0x510 + i);
			rmpp_seg(m, RMPP_TYPE_ACK, 0, 1, 1);
			mad_rec(&s, 6, LID_DEV0, m);
			snprintf(name, sizeof(name), "sa-%04x", attrs[i]);
			save("mad", name, &s);
		}
	}
	/* RMPP to the vendor agent of kernel RMPP: one, two and three
	 * segments; then a STOP and an ABORT of a transfer */
	for (i = 1; i <= 3; i++) {
		unsigned int k;

		seed_init(&s, -1);
		for (k = 1; k <= i; k++) {
			mad_hdr(m, 0x30, 1, MAD_METHOD_SET, 0x10, 0, 0x600 + i);
			m[VENDOR_OFF_OUI] = 0x00;
			m[VENDOR_OFF_OUI + 1] = 0x14;
			m[VENDOR_OFF_OUI + 2] = 0x05;
			rmpp_seg(m, RMPP_TYPE_DATA,
				 (k == 1 ? RMPP_FLAG_FIRST : 0) |
				 (k == i ? RMPP_FLAG_LAST : 0), k,
				 k == 1 ? i * MAD_RMPP_DATA :
				 k == i ? MAD_RMPP_DATA : 0);
			mad_rec(&s, 5, LID_DEV1, m);
		}
		snprintf(name, sizeof(name), "rmpp-data-%u", i);
		save("mad", name, &s);
	}
	for (i = 0; i < 2; i++) {
		seed_init(&s, -1);
		mad_hdr(m, 0x30, 1, MAD_METHOD_SET, 0x10, 0, 0x700);
		m[VENDOR_OFF_OUI + 1] = 0x14;
		m[VENDOR_OFF_OUI + 2] = 0x05;
		rmpp_seg(m, RMPP_TYPE_DATA, RMPP_FLAG_FIRST, 1,
			 3 * MAD_RMPP_DATA);
		mad_rec(&s, 5, LID_DEV1, m);
		rmpp_seg(m, i ? RMPP_TYPE_ABORT : RMPP_TYPE_STOP, 0, 0, 0);
		m[RMPP_OFF_STATUS] = i ? RMPP_STATUS_T2L : RMPP_STATUS_RESX;
		mad_rec(&s, 5, LID_DEV1, m);
		save("mad", i ? "rmpp-abort" : "rmpp-stop", &s);
	}
	/* the user-RMPP agent, a trap to the SMI agent, a stray response */
	seed_init(&s, -1);
	mad_hdr(m, 0x31, 1, MAD_METHOD_GET, 0x10, 0, 0x800);
	m[VENDOR_OFF_OUI + 1] = 0x14;
	m[VENDOR_OFF_OUI + 2] = 0x05;
	rmpp_seg(m, RMPP_TYPE_DATA, RMPP_FLAG_FIRST | RMPP_FLAG_LAST, 1, 10);
	mad_rec(&s, 5, LID_DEV1, m);
	mad_hdr(m, MAD_CLASS_SUBN_LID, 1, 0x05, 0x0002, 0, 0x801);
	mad_rec(&s, 0, LID_DEV1, m);
	mad_hdr(m, MAD_CLASS_PERF, 1, MAD_METHOD_RESP | MAD_METHOD_GET, 0x12,
		0, (uint64_t)1 << 32 | 5);
	mad_rec(&s, 4, LID_DEV1, m);
	save("mad", "agents", &s);
}

/* ---- umad: a MAD tool's calls ---- */

static void umad_send(struct seed *s, uint32_t agent, uint16_t dlid,
		      uint32_t qpn, const uint8_t *m, size_t len,
		      uint32_t timeout)
{
	uint8_t buf[sizeof(struct ib_user_mad_hdr) + 1024];
	struct ib_user_mad_hdr h = {
		.id = agent, .timeout_ms = timeout, .retries = 1,
		.qpn = htobe32(qpn), .qkey = htobe32(MAD_QP1_QKEY),
		.lid = htobe16(dlid),
	};

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), m, len);
	rec(s, 4, buf, sizeof(h) + len);
}

static void umad_reg(struct seed *s, uint8_t qpn, uint8_t mgmt_class,
		     uint8_t version, uint8_t rmpp, uint32_t flags)
{
	struct ib_user_mad_reg_req2 r = {
		.qpn = qpn, .mgmt_class = mgmt_class,
		.mgmt_class_version = version, .rmpp_version = rmpp,
		.flags = flags, .method_mask = { ~0ULL, ~0ULL },
	};

	if (mgmt_class >= 0x30 && mgmt_class <= 0x4f)
		r.oui = 0x001405;
	rec(s, 1, &r, sizeof(r));
}

/*
 * A read() record: only its length counts.  Its bytes are zeros, not the
 * MAD buffer, which is shorter than the longest read.
 */
static void umad_read(struct seed *s, size_t len)
{
	static const uint8_t zero[2048];

	if (len > sizeof(zero))
		abort();
	rec(s, 5, zero, len);
}

static void umad_seeds(void)
{
	uint8_t m[1024];
	struct seed s;
	uint8_t none = 0;

	/* smpquery: a GSI-less SMI agent, Get NodeInfo, read the answer */
	seed_init(&s, -1);
	rec(&s, 3, &none, 0);				/* ENABLE_PKEY */
	umad_reg(&s, 0, MAD_CLASS_SUBN_LID, 1, 0, 0);
	mad_hdr(m, MAD_CLASS_SUBN_LID, 1, MAD_METHOD_GET, 0x0011, 0, 1);
	umad_send(&s, 0, LID_DEV1, 0, m, MAD_SIZE, 100);
	umad_read(&s, 320);				/* read */
	save("umad", "smp-nodeinfo", &s);

	/* the same by directed route, the old header */
	seed_init(&s, -1);
	{
		struct ib_user_mad_reg_req r = {
			.qpn = 0, .mgmt_class = MAD_CLASS_SUBN_DR,
			.mgmt_class_version = 1,
		};

		memset(r.method_mask, 0xff, sizeof(r.method_mask));
		rec(&s, 0, &r, sizeof(r));
	}
	mad_hdr(m, MAD_CLASS_SUBN_DR, 1, MAD_METHOD_GET, 0x0015, 1, 2);
	put16(m + 32, MAD_PERMISSIVE_LID);
	put16(m + 34, MAD_PERMISSIVE_LID);
	{
		uint8_t buf[56 + MAD_SIZE];
		struct ib_user_mad_hdr_old h = {
			.id = 0, .timeout_ms = 100, .lid = htobe16(0xffff),
		};

		memcpy(buf, &h, sizeof(h));
		memcpy(buf + sizeof(h), m, MAD_SIZE);
		rec(&s, 4, buf, sizeof(buf));
	}
	umad_read(&s, 312);
	save("umad", "smp-dr-portinfo", &s);

	/* perfquery */
	seed_init(&s, -1);
	umad_reg(&s, 1, MAD_CLASS_PERF, 1, 0, 0);
	mad_hdr(m, MAD_CLASS_PERF, 1, MAD_METHOD_GET, 0x0012, 0, 3);
	m[PERF_OFF_DATA + 1] = 1;
	umad_send(&s, 0, LID_DEV1, 1, m, MAD_SIZE, 100);
	umad_read(&s, 320);
	save("umad", "pma-portcounters", &s);

	/* saquery: a table, reassembled by the kernel's RMPP */
	seed_init(&s, -1);
	umad_reg(&s, 1, MAD_CLASS_SUBN_ADM, 2, 1, 0);
	mad_hdr(m, MAD_CLASS_SUBN_ADM, 2, MAD_METHOD_GET_TABLE, 0x0011, 0, 4);
	m[RMPP_OFF_VERSION] = 1;
	umad_send(&s, 0, SEFA_SM_LID, 1, m, MAD_SIZE, 100);
	umad_read(&s, 2048);
	save("umad", "sa-nodes", &s);

	/* a kernel-RMPP send of three segments to another port's agent */
	seed_init(&s, -1);
	umad_reg(&s, 1, 0x30, 1, 1, 0);
	memset(m, 0, sizeof(m));
	mad_hdr(m, 0x30, 1, MAD_METHOD_SET, 0x10, 0, 5);
	m[VENDOR_OFF_OUI + 1] = 0x14;
	m[VENDOR_OFF_OUI + 2] = 0x05;
	m[RMPP_OFF_VERSION] = 1;
	m[RMPP_OFF_RTIME_FLAGS] = RMPP_FLAG_ACTIVE;
	umad_send(&s, 0, LID_DEV1, 1, m, 40 + 3 * MAD_RMPP_DATA, 100);
	umad_send(&s, 0, LID_DEV0, 1, m, 40 + 2 * MAD_RMPP_DATA, 0);
	umad_read(&s, 64);
	save("umad", "rmpp-send", &s);

	/* agents come and go */
	seed_init(&s, -1);
	umad_reg(&s, 1, 0x31, 1, 1, IB_USER_MAD_USER_RMPP);
	umad_reg(&s, 1, 0, 0, 0, 0);
	{
		uint32_t id = 0;

		rec(&s, 2, &id, sizeof(id));
	}
	mad_hdr(m, MAD_CLASS_PERF, 1, MAD_METHOD_RESP | MAD_METHOD_GET, 0x12,
		0, 6);
	umad_send(&s, 1, LID_DEV1, 1, m, MAD_SIZE, 0);
	save("umad", "agents", &s);
}

/* ---- wire ---- */

/* The QPs of the wire harness's host as the fixture numbers them, and
 * its region's key (rkey 1). */
#define WIRE_UD_QPN	0x100
#define WIRE_SRD_QPN	0x101
#define WIRE_RC_QPN	0x102
#define WIRE_PEER_QPN	0x100

static void wire_rec(struct seed *s, uint8_t op, const struct sefa_pkt *p,
		     uint64_t len)
{
	uint8_t buf[NIC_FRAME_MAX];
	size_t n = nic_frame_hdr(p, len, buf);

	if (p->op != SEFA_PKT_READ && p->op != SEFA_PKT_ACK) {
		memset(buf + n, 0x5a, len);
		n += len;
	}
	if (p->op == SEFA_PKT_ACK && p->data) {
		memset(buf + n, 0x6b, len);
		n += len;
	}
	n += nic_frame_trailer(p->op == SEFA_PKT_READ ? 0 : len, buf + n);
	rec(s, op, buf, n);
}

/* The wire harness's op bits (fuzz_wire.c), and the LID its SM knows. */
#define WIRE_FROM_DEV1	2
#define WIRE_SM_HERE	4
#define WIRE_TO_GROUP	8
#define WIRE_SM_LID	7

/* A LID packet (nic/loc.h) of @len bytes: short or long ones are not. */
static void lid_rec(struct seed *s, uint8_t op, uint8_t type, uint16_t lid,
		    uint64_t tid, const uint8_t *gid, size_t len)
{
	uint8_t buf[NIC_LID_PKT_LEN + 1] = {};
	unsigned int i;

	buf[0] = type;
	buf[2] = buf[3] = 0xff;
	buf[NIC_LID_OFF_LID] = lid >> 8;
	buf[NIC_LID_OFF_LID + 1] = (uint8_t)lid;
	for (i = 0; i < 8; i++)
		buf[NIC_LID_OFF_TID + i] = tid >> (56 - 8 * i);
	if (gid)
		memcpy(buf + NIC_LID_OFF_GID, gid, 16);
	rec(s, op, buf, len);
}

/*
 * The LID packets: questions to this host's SM, or to a host that is not
 * it; answers no question here asked (forged ids, from a stranger or a
 * device of the link), at a device or the group; and not quite one.
 */
static void lid_seeds(void)
{
	static const uint8_t thief[16] = { 0xfe, 0x80, [15] = 0x66 };
	struct seed s;

	seed_init(&s, -1);
	lid_rec(&s, WIRE_SM_HERE, NIC_OP_LID_QUERY, WIRE_SM_LID, 1, NULL,
		NIC_LID_PKT_LEN);
	lid_rec(&s, WIRE_SM_HERE | WIRE_FROM_DEV1, NIC_OP_LID_QUERY, 9, 2,
		NULL, NIC_LID_PKT_LEN);
	lid_rec(&s, WIRE_SM_HERE | WIRE_TO_GROUP, NIC_OP_SM_QUERY, 0, 3, NULL,
		NIC_LID_PKT_LEN);
	lid_rec(&s, WIRE_TO_GROUP, NIC_OP_SM_QUERY, 0, 4, NULL,
		NIC_LID_PKT_LEN);
	lid_rec(&s, 1, NIC_OP_LID_QUERY, WIRE_SM_LID, 5, NULL,
		NIC_LID_PKT_LEN);
	save("wire", "lid-questions", &s);

	seed_init(&s, -1);
	lid_rec(&s, 0, NIC_OP_SM_REPLY, 0, 0x1234, NULL, NIC_LID_PKT_LEN);
	lid_rec(&s, WIRE_FROM_DEV1, NIC_OP_SM_REPLY, 0, 0x1234, NULL,
		NIC_LID_PKT_LEN);
	lid_rec(&s, 0, NIC_OP_LID_REPLY, WIRE_SM_LID, 0x1234, thief,
		NIC_LID_PKT_LEN);
	lid_rec(&s, WIRE_TO_GROUP, NIC_OP_LID_REPLY, WIRE_SM_LID, 0x1234,
		thief, NIC_LID_PKT_LEN);
	lid_rec(&s, 0, NIC_OP_LID_REPLY, WIRE_SM_LID, 0x1234, thief,
		NIC_LID_PKT_LEN - 1);
	lid_rec(&s, WIRE_SM_HERE, NIC_OP_LID_QUERY, WIRE_SM_LID, 6, NULL,
		NIC_LID_PKT_LEN + 1);
	save("wire", "lid-answers", &s);
}

static void wire_seeds(void)
{
	struct sefa_pkt p;
	struct seed s;
	uint32_t psn;

	/* UD: a send, with immediate */
	seed_init(&s, -1);
	p = (struct sefa_pkt){ .op = SEFA_PKT_SEND, .qpt = IBV_QPT_UD,
		.dqpn = WIRE_UD_QPN, .sqpn = 0x200, .qkey = 0x11111111,
		.len = 100 };
	wire_rec(&s, 0, &p, 100);
	p.flags = SEFA_PKT_IMM;
	p.imm = 0xcafe;
	wire_rec(&s, 0, &p, 33);
	save("wire", "ud-send", &s);

	/* SRD: send, write, read, in sequence from one peer QP */
	seed_init(&s, -1);
	p = (struct sefa_pkt){ .op = SEFA_PKT_SEND, .qpt = IBV_QPT_DRIVER,
		.dqpn = WIRE_SRD_QPN, .sqpn = 0x300, .qkey = 0x11111111,
		.len = 64 };
	for (psn = 0; psn < 3; psn++) {
		p.psn = psn;
		p.lwm = 0;
		wire_rec(&s, 0, &p, 64);
	}
	p.op = SEFA_PKT_WRITE;
	p.psn = 3;
	p.raddr = FUZZ_USER_BASE + 1024;
	p.rkey = 1;
	p.len = 128;
	wire_rec(&s, 0, &p, 128);
	p.op = SEFA_PKT_READ;
	p.psn = 4;
	wire_rec(&s, 0, &p, 128);
	save("wire", "srd-ops", &s);

	/* RC from the peer QP on device 1: send in three packets, write,
	 * read, each in order */
	seed_init(&s, -1);
	p = (struct sefa_pkt){ .op = SEFA_PKT_SEND, .qpt = IBV_QPT_RC,
		.dqpn = WIRE_RC_QPN, .len = 3000,
		.flags = SEFA_PKT_FIRST };
	wire_rec(&s, 2, &p, 1024);
	p.flags = 0;
	p.psn = 1;
	p.off = 1024;
	wire_rec(&s, 2, &p, 1024);
	p.flags = SEFA_PKT_LAST;
	p.psn = 2;
	p.off = 2048;
	wire_rec(&s, 2, &p, 952);
	p = (struct sefa_pkt){ .op = SEFA_PKT_WRITE, .qpt = IBV_QPT_RC,
		.dqpn = WIRE_RC_QPN, .psn = 3, .raddr = FUZZ_USER_BASE,
		.rkey = 1, .len = 256, .flags = SEFA_PKT_IMM,
		.imm = 7 };
	wire_rec(&s, 2, &p, 256);
	p.op = SEFA_PKT_READ;
	p.flags = 0;
	p.psn = 4;
	wire_rec(&s, 2, &p, 256);
	save("wire", "rc-ops", &s);

	/* answers: ACK, NAK and a read response, to either device */
	seed_init(&s, -1);
	p = (struct sefa_pkt){ .op = SEFA_PKT_ACK, .qpt = IBV_QPT_DRIVER,
		.dqpn = WIRE_SRD_QPN, .sqpn = 0x300 };
	wire_rec(&s, 0, &p, 0);
	p.status = EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
	p.rnr_timer = 3;
	wire_rec(&s, 0, &p, 0);
	p = (struct sefa_pkt){ .op = SEFA_PKT_ACK, .qpt = IBV_QPT_RC,
		.dqpn = WIRE_PEER_QPN, .len = 64, .data = "" };
	wire_rec(&s, 3, &p, 64);
	save("wire", "answers", &s);

	/* a stranger's: UD and SRD sends from many QPs, as a flood is; RC
	 * requests and ACKs not from the connected peer */
	seed_init(&s, -1);
	p = (struct sefa_pkt){ .op = SEFA_PKT_SEND, .qpt = IBV_QPT_UD,
		.dqpn = WIRE_UD_QPN, .qkey = 0x11111111, .len = 16 };
	for (psn = 0; psn < 16; psn++) {
		p.qpt = psn & 1 ? IBV_QPT_DRIVER : IBV_QPT_UD;
		p.dqpn = psn & 1 ? WIRE_SRD_QPN : WIRE_UD_QPN;
		p.sqpn = 0x800000 + psn;
		p.psn = p.lwm = psn;
		wire_rec(&s, 0, &p, 16);
	}
	p = (struct sefa_pkt){ .op = SEFA_PKT_SEND, .qpt = IBV_QPT_RC,
		.dqpn = WIRE_RC_QPN, .len = 16,
		.flags = SEFA_PKT_FIRST | SEFA_PKT_LAST };
	wire_rec(&s, 0, &p, 16);
	p = (struct sefa_pkt){ .op = SEFA_PKT_ACK, .qpt = IBV_QPT_RC,
		.dqpn = WIRE_RC_QPN };
	wire_rec(&s, 0, &p, 0);
	save("wire", "strangers", &s);
	lid_seeds();
}

/* ---- sq ---- */

/*
 * The sq harness's host as the fixture numbers it: each device's region
 * (key 1), device 0's indirect key, the AHs of device 0's PD (to device 1,
 * then to itself) and of device 1's (to device 0), the QPs on each device.
 */
#define SQ_KEY		1
#define SQ_INDIRECT	0x101
#define SQ_AH_DEV1	0
#define SQ_AH_SELF	1
#define SQ_AH_BACK	0
#define SQ_UD_QPN	0x100
#define SQ_SRD_QPN	0x101
#define SQ_QKEY		0x11111111
/* where writes and reads land: past the harness's receive buffers */
#define SQ_REMOTE	(FUZZ_USER_SCRATCH + 60 * 1024)
#define SQ_LOCAL	(FUZZ_USER_SCRATCH + 62 * 1024)

static struct efa_io_tx_wqe sq_wqe(unsigned int op, uint16_t id)
{
	return (struct efa_io_tx_wqe){
		.meta = {
			.req_id = id,
			.ctrl1 = EFA_IO_TX_META_DESC_META_DESC | op,
			.ctrl2 = EFA_IO_TX_META_DESC_FIRST |
				 EFA_IO_TX_META_DESC_LAST |
				 EFA_IO_TX_META_DESC_COMP_REQ,
		},
	};
}

static struct efa_io_tx_buf_desc sq_desc(uint64_t addr, uint32_t len,
					 uint32_t key)
{
	return (struct efa_io_tx_buf_desc){
		.length = len, .lkey = key,
		.buf_addr_lo = (uint32_t)addr,
		.buf_addr_hi = (uint32_t)(addr >> 32),
	};
}

/* A SEND of @len bytes at @addr by @key, to @qpn behind AH @ah. */
static struct efa_io_tx_wqe sq_send(uint16_t id, uint16_t ah, uint32_t qpn,
				    uint64_t addr, uint32_t len, uint32_t key)
{
	struct efa_io_tx_wqe w = sq_wqe(EFA_IO_SEND, id);

	w.meta.ah = ah;
	w.meta.dest_qp_num = qpn;
	w.meta.qkey = SQ_QKEY;
	w.meta.length = 1;
	w.data.sgl[0] = sq_desc(addr, len, key);
	return w;
}

/* An RDMA read or write of @len bytes between SQ_LOCAL and SQ_REMOTE. */
static struct efa_io_tx_wqe sq_rdma(unsigned int op, uint16_t id,
				    uint32_t qpn, uint32_t len)
{
	struct efa_io_tx_wqe w = sq_wqe(op, id);
	struct efa_io_remote_mem_addr *rm = &w.data.rdma_req.remote_mem;

	w.meta.ah = SQ_AH_DEV1;
	w.meta.dest_qp_num = qpn;
	w.meta.qkey = SQ_QKEY;
	w.meta.length = EFA_IO_TX_DESC_NUM_RDMA_BUFS;
	w.data.rdma_req.local_mem[0] = sq_desc(SQ_LOCAL, len, SQ_KEY);
	*rm = (struct efa_io_remote_mem_addr){
		.length = len, .rkey = SQ_KEY,
		.buf_addr_lo = (uint32_t)SQ_REMOTE,
		.buf_addr_hi = (uint32_t)(SQ_REMOTE >> 32),
	};
	return w;
}

static void sq_seeds(void)
{
	struct efa_io_tx_wqe w[6];
	struct efa_io_klm klm[2] = {
		{ .length = 512, .lkey = SQ_KEY, .addr = FUZZ_USER_BASE },
		{ .length = 512, .lkey = SQ_KEY, .addr = FUZZ_USER_BASE + 4096 },
	};
	uint8_t tick = 2;			/* no WQE; 2 ms on */
	struct seed s;
	uint64_t list;
	unsigned int i;

	/* UD: a send by key and an inline one, to device 1 */
	seed_init(&s, -1);
	w[0] = sq_send(1, SQ_AH_DEV1, SQ_UD_QPN, FUZZ_USER_BASE, 100, SQ_KEY);
	w[1] = sq_send(2, SQ_AH_DEV1, SQ_UD_QPN, 0, 0, 0);
	w[1].meta.ctrl1 |= EFA_IO_TX_META_DESC_INLINE_MSG;
	w[1].meta.length = 20;
	memset(w[1].data.inline_data, 0x42, 20);
	rec(&s, 0, w, 2 * sizeof(w[0]));
	save("sq", "ud-send", &s);

	/*
	 * SRD: six sends rung at once (read ahead), two more than device 1
	 * has receives for, then the clock on for their RNR retries; one to
	 * this very device.
	 */
	seed_init(&s, -1);
	for (i = 0; i < 6; i++)
		w[i] = sq_send(i, SQ_AH_DEV1, SQ_SRD_QPN,
			       FUZZ_USER_BASE + i * 64, 64, SQ_KEY);
	rec(&s, 1, w, 6 * sizeof(w[0]));
	rec(&s, 1 | 8, &tick, 1);
	rec(&s, 8, &tick, 1);
	w[0] = sq_send(7, SQ_AH_SELF, SQ_SRD_QPN, FUZZ_USER_BASE, 64, SQ_KEY);
	rec(&s, 1, w, sizeof(w[0]));
	save("sq", "srd-stream", &s);

	/* SRD and RC: a write with immediate, a read; RC a send first */
	for (i = 1; i <= 2; i++) {
		seed_init(&s, -1);
		w[0] = sq_send(1, SQ_AH_DEV1, 0x100 + i, FUZZ_USER_BASE, 300,
			       SQ_KEY);
		w[1] = sq_rdma(EFA_IO_RDMA_WRITE, 2, 0x100 + i, 256);
		w[1].meta.ctrl1 |= EFA_IO_TX_META_DESC_HAS_IMM;
		w[1].meta.immediate_data = 0xfeed;
		w[2] = sq_rdma(EFA_IO_RDMA_READ, 3, 0x100 + i, 128);
		rec(&s, i, w, 3 * sizeof(w[0]));
		save("sq", i == 1 ? "srd-rdma" : "rc-ops", &s);
	}

	/* RC: a UMR fills the indirect key, a send goes through it */
	seed_init(&s, -1);
	list = rec(&s, 0, klm, sizeof(klm));
	w[0] = sq_wqe(EFA_IO_UMR, 1);
	w[0].meta.length = 2;
	w[0].data.umr_req = (struct efa_io_umr_req){
		.mkey = SQ_INDIRECT,
		.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			  IBV_ACCESS_REMOTE_READ,
		.base_addr = 0x1000,
		.klm_list = sq_desc(list, sizeof(klm), SQ_KEY),
	};
	w[1] = sq_send(2, 0, 0, 0x1000 + 100, 600, SQ_INDIRECT);
	rec(&s, 2, w, 2 * sizeof(w[0]));
	save("sq", "umr", &s);

	/* device 1 sends back; then a doorbell rung past the ring */
	seed_init(&s, -1);
	w[0] = sq_send(1, SQ_AH_BACK, SQ_SRD_QPN, FUZZ_USER_BASE, 64, SQ_KEY);
	rec(&s, 3, w, sizeof(w[0]));
	w[0].meta.req_id = 40;
	rec(&s, 1 | 4, w, sizeof(w[0]));
	save("sq", "back-and-past", &s);
}

/* ---- shim: the daemon's ordinary answers ---- */

static void shim_seeds(void)
{
	struct sefa_reply done = { .type = SEFA_REPLY_DONE, .ret = 16 };
	struct sefa_reply fd = { .type = SEFA_REPLY_FD };
	struct sefa_reply err = { .type = SEFA_REPLY_DONE, .ret = -1,
				  .err = EINVAL };
	struct seed s;

	seed_init(&s, 0);
	rec(&s, 0, &done, sizeof(done));
	save("shim", "write-done", &s);
	seed_init(&s, 0);
	rec(&s, 0, &err, sizeof(err));
	save("shim", "write-error", &s);
	seed_init(&s, 0);
	rec(&s, 1, &fd, sizeof(fd));
	rec(&s, 0, &done, sizeof(done));
	save("shim", "write-with-fd", &s);
	seed_init(&s, 1);
	rec(&s, 1, &fd, sizeof(fd));
	done.ret = 0;
	rec(&s, 0, &done, sizeof(done));
	save("shim", "mmap", &s);
	seed_init(&s, 0);
	save("shim", "daemon-gone", &s);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: fuzz_seeds DIR\n");
		return 2;
	}
	out_dir = argv[1];
	if (mkdir(out_dir, 0755) && errno != EEXIST) {
		perror(out_dir);
		return 1;
	}
	write_seeds();
	ioctl_seeds();
	mad_seeds();
	umad_seeds();
	wire_seeds();
	sq_seeds();
	shim_seeds();
	return 0;
}
