// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The MAD API without a kernel: send buffer geometry as
 * ib_create_send_mad() lays it out, the class tables, the registration
 * rules, and the umad ABI as the library speaks it, against a sysfs tree
 * in a temporary directory and a fake kernel (efa_fake_kernel.h) that
 * plays ib_umad for the files of that tree's /dev.
 */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <rdma/ib_user_mad.h>

#include "efa_fake_kernel.h"
#include "efa_fixture.h"
#include "check_main.h"

/* The public layouts are ABI. */
_Static_assert(sizeof(struct efadv_mad_hdr) == 24, "mad hdr");
_Static_assert(offsetof(struct efadv_mad_hdr, tid) == 8, "mad hdr");
_Static_assert(offsetof(struct efadv_mad_hdr, attr_id) == 16, "mad hdr");
_Static_assert(offsetof(struct efadv_mad_hdr, attr_mod) == 20, "mad hdr");
_Static_assert(sizeof(struct efadv_mad_rmpp_hdr) == 12, "rmpp hdr");
_Static_assert(offsetof(struct efadv_mad_rmpp_hdr, paylen_newwin) == 8,
	       "rmpp hdr");
_Static_assert(sizeof(struct efadv_mad_sa_hdr) == 20, "sa hdr");
_Static_assert(offsetof(struct efadv_mad_sa_hdr, comp_mask) == 12, "sa hdr");
_Static_assert(sizeof(struct efadv_mad_reg_req) == 24, "reg req");
_Static_assert(offsetof(struct efadv_mad_reg_req, method_mask) == 8, "reg");
_Static_assert(sizeof(struct efadv_mad_agent) == 32, "agent");
_Static_assert(sizeof(struct efadv_mad_addr) == 32, "addr");
_Static_assert(offsetof(struct efadv_mad_addr, gid) == 16, "addr");
_Static_assert(sizeof(struct efadv_mad_recv_info) == 48, "recv info");
_Static_assert(offsetof(struct efadv_mad_recv_info, src) == 16, "recv info");
_Static_assert(sizeof(struct efadv_mad_send_buf) == 64, "send buf");

#define UMAD_HDR	64
#define AGENT_ID	5
#define GARBAGE		0xa5

static struct efa_fixture fx;
static char top[64], sys_dir[96], dev_dir[96];
static ino_t dev_ino[2];		/* umad1 (port 1), umad3 (port 2) */

/* ---- ib_umad, played for the files in dev_dir ---- */

struct msg {
	struct msg *next;
	size_t len;			/* of the MAD */
	uint8_t data[];			/* umad header, MAD */
};

static struct {
	int reg_err, write_err, read_err, poll_err;
	int reg_calls, unreg_calls, writes, polls;
	struct ib_user_mad_reg_req2 reg;
	uint32_t unreg_id;
	uint8_t *sent;			/* the last write */
	size_t sent_len;
	struct msg *queue;
	struct msg *arrives;		/* queued by the next poll */
} kern;

static bool kern_owns(int fd)
{
	struct stat st;

	return fd >= 0 && !fstat(fd, &st) &&
	       (st.st_ino == dev_ino[0] || st.st_ino == dev_ino[1]);
}

static int kern_ioctl(int fd, unsigned long req, void *arg)
{
	switch (req) {
	case IB_USER_MAD_REGISTER_AGENT2:
		kern.reg_calls++;
		kern.reg = *(struct ib_user_mad_reg_req2 *)arg;
		if (kern.reg_err)
			return -kern.reg_err;
		((struct ib_user_mad_reg_req2 *)arg)->id = AGENT_ID;
		return 0;
	case IB_USER_MAD_UNREGISTER_AGENT:
		kern.unreg_calls++;
		kern.unreg_id = *(uint32_t *)arg;
		return 0;
	}
	return -ENOTTY;
}

static ssize_t kern_write(int fd, const void *buf, size_t count)
{
	kern.writes++;
	if (kern.write_err)
		return -kern.write_err;
	free(kern.sent);
	kern.sent = malloc(count);
	ck_assert_ptr_nonnull(kern.sent);
	memcpy(kern.sent, buf, count);
	kern.sent_len = count;
	return count;
}

/* The kernel's read rules: room for the header and a MAD at least; a
 * longer message that does not fit stays queued, ENOSPC, with its length
 * in the header.
 */
static ssize_t kern_read(int fd, void *buf, size_t count)
{
	struct ib_user_mad_hdr *hdr = buf;
	struct msg *m = kern.queue;

	if (kern.read_err)
		return -kern.read_err;
	if (!m)
		return -EAGAIN;
	if (count < UMAD_HDR + (m->len < 256 ? m->len : 256))
		return -EINVAL;
	if (count < UMAD_HDR + m->len) {
		memcpy(buf, m->data, UMAD_HDR + 256);
		hdr->length = UMAD_HDR + m->len;
		return -ENOSPC;
	}
	count = UMAD_HDR + m->len;
	memcpy(buf, m->data, count);
	kern.queue = m->next;
	free(m);
	return count;
}

static int kern_poll(struct pollfd *pfd, int timeout)
{
	kern.polls++;
	if (kern.poll_err)
		return -kern.poll_err;
	if (kern.arrives) {
		kern.arrives->next = kern.queue;
		kern.queue = kern.arrives;
		kern.arrives = NULL;
	}
	/* nothing comes: the wait ends at once */
	pfd->revents = kern.queue ? POLLIN : 0;
	return !!kern.queue;
}

static const struct efa_fake_kernel kernel = {
	.owns = kern_owns,
	.ioctl = kern_ioctl,
	.read = kern_read,
	.write = kern_write,
	.poll = kern_poll,
};

static struct msg *msg_new(size_t len, const struct ib_user_mad_hdr *hdr,
			   uint8_t seed)
{
	struct msg *m = calloc(1, sizeof(*m) + UMAD_HDR + len);

	ck_assert_ptr_nonnull(m);
	m->len = len;
	memcpy(m->data, hdr, UMAD_HDR);
	for (size_t i = 0; i < len; i++)
		m->data[UMAD_HDR + i] = (uint8_t)(seed + i * 13 + (i >> 8));
	return m;
}

static void queue_msg(struct msg *m)
{
	struct msg **p = &kern.queue;

	while (*p)
		p = &(*p)->next;
	*p = m;
}

/* ---- the sysfs tree ---- */

static void put_file(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void put_umad(int n, const char *ibdev, const char *port)
{
	char dir[160];

	snprintf(dir, sizeof(dir), "%s/umad%d", sys_dir, n);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	put_file(dir, "ibdev", ibdev);
	put_file(dir, "port", port);
}

static ino_t put_dev(int n)
{
	char name[16];
	char path[160];
	struct stat st;

	snprintf(name, sizeof(name), "umad%d", n);
	put_file(dev_dir, name, "");
	snprintf(path, sizeof(path), "%s/%s", dev_dir, name);
	ck_assert_int_eq(stat(path, &st), 0);
	return st.st_ino;
}

/* umad0 is another device's; efa_0 has umad1 (port 1) and umad3
 * (port 2); umad2 is a hole.
 */
static void setup(void)
{
	strcpy(top, "/tmp/test_mad.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(top));
	snprintf(sys_dir, sizeof(sys_dir), "%s/sys", top);
	snprintf(dev_dir, sizeof(dev_dir), "%s/dev", top);
	ck_assert_int_eq(mkdir(sys_dir, 0755), 0);
	ck_assert_int_eq(mkdir(dev_dir, 0755), 0);
	put_file(sys_dir, "abi_version", "5\n");
	put_umad(0, "mlx5_0\n", "1\n");
	put_umad(1, "efa_0\n", "1\n");
	put_umad(3, "efa_0\n", "2\n");
	dev_ino[0] = put_dev(1);
	dev_ino[1] = put_dev(3);

	memset(&kern, 0, sizeof(kern));
	efa_fake_kernel_set(&kernel);
	efa_fixture_open(&fx);
}

static void teardown(void)
{
	char cmd[128];

	efa_fixture_close(&fx);
	efa_fake_kernel_set(NULL);
	free(kern.sent);
	while (kern.queue) {
		struct msg *m = kern.queue;

		kern.queue = m->next;
		free(m);
	}
	free(kern.arrives);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", top);
	ck_assert_int_eq(system(cmd), 0);
}

static struct efadv_mad_agent *reg(uint8_t port, enum efadv_mad_qp_type qpt,
				   const struct efadv_mad_reg_req *req,
				   uint8_t rmpp_version, uint32_t flags)
{
	return efa_register_mad_agent_at(sys_dir, dev_dir,
					 &fx.ctx->ibvctx.context, port, qpt,
					 req, rmpp_version, flags);
}

static struct efadv_mad_reg_req reg_req(uint8_t cls, uint8_t version)
{
	return (struct efadv_mad_reg_req){ .mgmt_class = cls,
					   .mgmt_class_version = version };
}

/* A GSI agent of @cls answering @method, with or without RMPP. */
static struct efadv_mad_agent *gsi_agent(uint8_t cls, uint8_t version,
					 uint8_t method, uint8_t rmpp_version)
{
	struct efadv_mad_reg_req req = reg_req(cls, version);
	struct efadv_mad_agent *a;

	efadv_mad_reg_req_set_method(&req, method);
	a = reg(1, EFADV_MAD_QPT_GSI, &req, rmpp_version, 0);
	ck_assert_ptr_nonnull(a);
	return a;
}

static struct efadv_mad_agent *sa_agent(void)
{
	return gsi_agent(EFADV_MAD_CLASS_SUBN_ADM, 2,
			 EFADV_MAD_METHOD_GET_MULTI, 1);
}

static struct efadv_mad_agent *perf_agent(void)
{
	return gsi_agent(EFADV_MAD_CLASS_PERF_MGMT, 1, EFADV_MAD_METHOD_GET, 0);
}

static int open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) >= 0;
	return n;
}

/* ---- the class tables ---- */

START_TEST(test_class_tables)
{
	for (int c = 0; c < 256; c++) {
		int off = 24, rmpp = 0;

		if (c == 0x03) {
			off = 56;
			rmpp = 1;
		} else if (c == 0x06 || c == 0x10 || c == 0x12) {
			off = 64;
			rmpp = 1;
		} else if (c >= 0x30 && c <= 0x4f) {
			off = 40;
			rmpp = 1;
		}
		ck_assert_int_eq(efadv_get_mad_data_offset(c), off);
		ck_assert_int_eq(!!efadv_is_mad_class_rmpp(c), rmpp);
	}
	/* PerfMgt's attributes start at 64, but its data offset is 24 */
	ck_assert_int_eq(efadv_get_mad_data_offset(EFADV_MAD_CLASS_PERF_MGMT),
			 EFADV_MAD_HDR_SIZE);
	ck_assert(!efadv_is_mad_class_rmpp(EFADV_MAD_CLASS_SUBN_DIRECTED_ROUTE));
}
END_TEST

START_TEST(test_is_response)
{
	struct efadv_mad_hdr h = { .mgmt_class = 3, .method = 0x14 };

	ck_assert(!efadv_mad_is_response(&h));
	h.method = 0x94;
	ck_assert(efadv_mad_is_response(&h));
	h.method = EFADV_MAD_METHOD_TRAP_REPRESS;
	ck_assert(efadv_mad_is_response(&h));
	h = (struct efadv_mad_hdr){ .mgmt_class = EFADV_MAD_CLASS_BM,
				    .method = EFADV_MAD_METHOD_SEND };
	ck_assert(!efadv_mad_is_response(&h));
	h.attr_mod = htobe32(1);
	ck_assert(efadv_mad_is_response(&h));
	h.mgmt_class = 3;
	ck_assert(!efadv_mad_is_response(&h));
}
END_TEST

/* ---- send buffers ---- */

/* What ib_create_send_mad() makes of (hdr_len, data_len). */
static void check_geometry(struct efadv_mad_agent *a, int rmpp, int hdr_len,
			   int data_len)
{
	int seg = 256 - hdr_len;
	int count = data_len ? (data_len + seg - 1) / seg : 1;
	int pad = count * seg - data_len;
	struct efadv_mad_send_buf *b;
	uint8_t *mad;

	/* dirty heap first: whatever the buffer gets must be cleared */
	for (int i = 0; i < 4; i++) {
		void *junk = malloc(hdr_len + count * seg + 128 + i * 64);

		memset(junk, GARBAGE, hdr_len + count * seg + 128 + i * 64);
		free(junk);
	}

	b = efadv_create_send_mad(a, 1, 7, rmpp, hdr_len, data_len,
				  EFADV_MAD_BASE_VERSION_IB);
	ck_assert_msg(b, "hdr %d data %d: %s", hdr_len, data_len,
		      strerror(errno));
	ck_assert_ptr_eq(b->agent, a);
	ck_assert_uint_eq(b->remote_qpn, 1);
	ck_assert_uint_eq(b->pkey_index, 7);
	ck_assert_uint_eq(b->base_version, 1);
	ck_assert_int_eq(b->rmpp_active, rmpp);
	ck_assert_int_eq(b->hdr_len, hdr_len);
	ck_assert_int_eq(b->data_len, data_len);
	ck_assert_int_eq(b->seg_size, seg);
	ck_assert_msg(b->seg_count == count, "hdr %d data %d: %d segments",
		      hdr_len, data_len, b->seg_count);
	ck_assert_int_eq(b->seg_rmpp_size, rmpp ? 220 : 0);
	ck_assert(!b->context[0] && !b->context[1]);
	if (!rmpp)
		ck_assert_int_eq(hdr_len + count * seg, 256);

	/* the header (but an RMPP header) and the padding are cleared, and
	 * the whole buffer is there (ASan watches the last byte)
	 */
	mad = b->mad;
	ck_assert_uint_eq((uintptr_t)mad % 8, 0);
	for (int i = 0; i < hdr_len; i++)
		if (!rmpp || i < 24 || i >= 36)
			ck_assert_msg(!mad[i], "hdr byte %d", i);
	for (int i = 0; i < pad; i++)
		ck_assert_msg(!mad[hdr_len + data_len + i], "pad byte %d", i);
	mad[hdr_len + count * seg - 1] = 1;
	efadv_free_send_mad(b);
}

START_TEST(test_geometry)
{
	static const int sa[] = { 0, 1, 199, 200, 201, 399, 400, 401, 20480 };
	static const int vendor[] = { 0, 1, 215, 216, 217, 432, 1000 };
	static const int dev[] = { 0, 1, 191, 192, 193, 384, 385 };
	static const int perf[] = { 0, 1, 100, 231, 232 };
	struct efadv_mad_agent *rmpp = reg(1, EFADV_MAD_QPT_GSI, NULL, 1, 0);
	struct efadv_mad_agent *plain = perf_agent();

	ck_assert_ptr_nonnull(rmpp);
	for (size_t i = 0; i < sizeof(sa) / sizeof(sa[0]); i++) {
		check_geometry(rmpp, 1, 56, sa[i]);
		if (sa[i] <= 200) {
			check_geometry(rmpp, 0, 56, sa[i]);
			check_geometry(plain, 0, 56, sa[i]);
		}
	}
	for (size_t i = 0; i < sizeof(vendor) / sizeof(vendor[0]); i++)
		check_geometry(rmpp, 1, 40, vendor[i]);
	for (size_t i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
		check_geometry(rmpp, 1, 64, dev[i]);
	for (size_t i = 0; i < sizeof(perf) / sizeof(perf[0]); i++)
		check_geometry(plain, 0, 24, perf[i]);
	/* headers as long as the MAD: no room for data */
	check_geometry(plain, 0, 256, 0);

	efadv_unregister_mad_agent(rmpp);
	efadv_unregister_mad_agent(plain);
}
END_TEST

/* 20 KiB of SA data: 103 segments of 200 bytes, the last one 80 long. */
START_TEST(test_rmpp_buffer)
{
	struct efadv_mad_agent *a = sa_agent();
	struct efadv_mad_send_buf *b;
	struct efadv_mad_rmpp_hdr *r;

	b = efadv_create_send_mad(a, 1, 0, 1, 56, 20480, 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_int_eq(b->seg_count, 103);
	ck_assert_int_eq(b->seg_size, 200);
	r = (void *)((uint8_t *)b->mad + 24);
	ck_assert_uint_eq(r->rmpp_version, 1);
	ck_assert_uint_eq(r->rmpp_type, EFADV_MAD_RMPP_TYPE_DATA);
	ck_assert_uint_eq(r->rmpp_rtime_flags, EFADV_MAD_RMPP_FLAG_ACTIVE);
	ck_assert_uint_eq(r->rmpp_status, 0);
	ck_assert_uint_eq(r->seg_num, 0);
	ck_assert_uint_eq(r->paylen_newwin, 0);
	efadv_free_send_mad(b);

	/* without RMPP the same agent's RMPP header stays clear */
	b = efadv_create_send_mad(a, 1, 0, 0, 56, 200, 1);
	ck_assert_ptr_nonnull(b);
	ck_assert(efa_buf_cleared(b->mad, 256));
	ck_assert_int_eq(b->seg_rmpp_size, 0);
	efadv_free_send_mad(b);
	efadv_unregister_mad_agent(a);
}
END_TEST

static void create_fails(struct efadv_mad_agent *a, uint32_t qpn, int rmpp,
			 int hdr_len, int data_len, uint8_t base, int err)
{
	errno = 0;
	ck_assert_ptr_null(efadv_create_send_mad(a, qpn, 0, rmpp, hdr_len,
						 data_len, base));
	ck_assert_msg(errno == err, "rmpp %d hdr %d data %d: %s", rmpp,
		      hdr_len, data_len, strerror(errno));
}

START_TEST(test_create_errors)
{
	struct efadv_mad_agent *sa = sa_agent(), *perf = perf_agent();
	struct efadv_mad_agent *user;
	struct efadv_mad_reg_req req = reg_req(EFADV_MAD_CLASS_SUBN_ADM, 2);

	user = reg(1, EFADV_MAD_QPT_GSI, &req, 1, EFADV_MAD_USER_RMPP);
	ck_assert_ptr_nonnull(user);

	/* too long for one MAD without RMPP */
	create_fails(sa, 1, 0, 56, 201, 1, EINVAL);
	create_fails(perf, 1, 0, 24, 233, 1, EINVAL);
	create_fails(perf, 1, 0, 24, INT_MAX, 1, EINVAL);
	/* RMPP on an agent without (kernel) RMPP */
	create_fails(perf, 1, 1, 56, 100, 1, EINVAL);
	create_fails(user, 1, 1, 56, 100, 1, EINVAL);
	create_fails(user, 1, 0, 56, 201, 1, EINVAL);
	/* the RMPP header must fit in the header, and data in a segment */
	create_fails(sa, 1, 1, 24, 100, 1, EINVAL);
	create_fails(sa, 1, 1, 35, 100, 1, EINVAL);
	create_fails(sa, 1, 1, 256, 0, 1, EINVAL);
	/* bad arguments */
	create_fails(NULL, 1, 0, 24, 0, 1, EINVAL);
	create_fails(sa, 1, 0, 23, 0, 1, EINVAL);
	create_fails(sa, 1, 0, 257, 0, 1, EINVAL);
	create_fails(sa, 1, 0, 56, -1, 1, EINVAL);
	create_fails(sa, 1, 1, 56, INT_MAX, 1, EINVAL);
	create_fails(sa, 0x1000000, 0, 56, 0, 1, EINVAL);
	create_fails(sa, 1, 0, 56, 0, 0, EINVAL);
	create_fails(sa, 1, 0, 56, 0, 2, EINVAL);
	create_fails(sa, 1, 0, 56, 0, EFADV_MAD_BASE_VERSION_OPA, EOPNOTSUPP);

	/* the user-RMPP agent sends single segments it builds */
	efadv_free_send_mad(efadv_create_send_mad(user, 1, 0, 0, 56, 200, 1));
	efadv_unregister_mad_agent(sa);
	efadv_unregister_mad_agent(perf);
	efadv_unregister_mad_agent(user);
}
END_TEST

/* ---- registration ---- */

START_TEST(test_register)
{
	struct efadv_mad_reg_req req = reg_req(EFADV_MAD_CLASS_SUBN_ADM, 2);
	struct efadv_mad_agent *a;
	struct stat st;
	int fds = open_fds();

	efadv_mad_reg_req_set_method(&req, 0x14);
	efadv_mad_reg_req_set_method(&req, 0x12);
	efadv_mad_reg_req_set_method(&req, 0x7f);
	efadv_mad_reg_req_set_method(&req, 0x40);
	a = reg(2, EFADV_MAD_QPT_GSI, &req, 1, 0);
	ck_assert_ptr_nonnull(a);

	ck_assert_int_eq(kern.reg_calls, 1);
	ck_assert_uint_eq(kern.reg.qpn, 1);
	ck_assert_uint_eq(kern.reg.mgmt_class, 3);
	ck_assert_uint_eq(kern.reg.mgmt_class_version, 2);
	ck_assert_uint_eq(kern.reg.flags, 0);
	ck_assert_uint_eq(kern.reg.oui, 0);
	ck_assert_uint_eq(kern.reg.rmpp_version, 1);
	ck_assert_uint_eq(kern.reg.method_mask[0],
			  (1ULL << 0x14) | (1ULL << 0x12));
	ck_assert_uint_eq(kern.reg.method_mask[1], (1ULL << 63) | 1);
	ck_assert_uint_eq(kern.reg.res, 0);

	/* port 2 is umad3, opened non-blocking and close-on-exec */
	ck_assert_ptr_eq(a->context, &fx.ctx->ibvctx.context);
	ck_assert_int_eq(fstat(a->fd, &st), 0);
	ck_assert_uint_eq(st.st_ino, dev_ino[1]);
	ck_assert_int_eq(fcntl(a->fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(fcntl(a->fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK),
			 O_RDWR | O_NONBLOCK);
	ck_assert_uint_eq(a->id, AGENT_ID);
	ck_assert_uint_eq(a->port_num, 2);
	ck_assert_uint_eq(a->qp_type, EFADV_MAD_QPT_GSI);
	ck_assert_uint_eq(a->rmpp_version, 1);
	ck_assert_uint_eq(a->mgmt_class, 3);
	ck_assert_uint_eq(a->mgmt_class_version, 2);
	ck_assert_uint_eq(a->flags, 0);
	ck_assert_int_eq(open_fds(), fds + 1);

	efadv_unregister_mad_agent(a);
	ck_assert_int_eq(kern.unreg_calls, 1);
	ck_assert_uint_eq(kern.unreg_id, AGENT_ID);
	ck_assert_int_eq(open_fds(), fds);

	/* a vendor class's OUI goes as a number; responses only: no class */
	req = reg_req(0x30, 1);
	req.oui[0] = 0x00;
	req.oui[1] = 0x14;
	req.oui[2] = 0x05;
	a = reg(1, EFADV_MAD_QPT_GSI, &req, 1, EFADV_MAD_USER_RMPP);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(kern.reg.oui, 0x001405);
	ck_assert_uint_eq(kern.reg.flags, EFADV_MAD_USER_RMPP);
	ck_assert_uint_eq(a->flags, EFADV_MAD_USER_RMPP);
	efadv_unregister_mad_agent(a);

	a = reg(1, EFADV_MAD_QPT_SMI, NULL, 0, 0);
	ck_assert_ptr_nonnull(a);
	ck_assert_uint_eq(kern.reg.qpn, 0);
	ck_assert_uint_eq(kern.reg.mgmt_class, 0);
	ck_assert_uint_eq(kern.reg.method_mask[0], 0);
	ck_assert_uint_eq(a->mgmt_class, 0);
	efadv_unregister_mad_agent(a);
	efadv_unregister_mad_agent(NULL);
}
END_TEST

static void reg_fails(enum efadv_mad_qp_type qpt,
		      const struct efadv_mad_reg_req *req, uint8_t rmpp,
		      uint32_t flags)
{
	int calls = kern.reg_calls;

	errno = 0;
	ck_assert_ptr_null(reg(1, qpt, req, rmpp, flags));
	ck_assert_msg(errno == EINVAL, "class 0x%x: %s",
		      req ? req->mgmt_class : 0, strerror(errno));
	ck_assert_int_eq(kern.reg_calls, calls);
}

static void reg_ok(enum efadv_mad_qp_type qpt,
		   const struct efadv_mad_reg_req *req, uint8_t rmpp,
		   uint32_t flags)
{
	struct efadv_mad_agent *a = reg(1, qpt, req, rmpp, flags);

	ck_assert_msg(a, "class 0x%x: %s", req ? req->mgmt_class : 0,
		      strerror(errno));
	efadv_unregister_mad_agent(a);
}

/* The kernel's rules, in the kernel's order. */
START_TEST(test_register_rules)
{
	const enum efadv_mad_qp_type smi = EFADV_MAD_QPT_SMI;
	const enum efadv_mad_qp_type gsi = EFADV_MAD_QPT_GSI;
	struct efadv_mad_reg_req r;

	reg_fails(2, NULL, 0, 0);
	reg_fails(gsi, NULL, 0, 2);
	reg_fails(gsi, NULL, 2, 0);
	reg_fails(gsi, NULL, 0, EFADV_MAD_USER_RMPP);
	r = reg_req(3, 0x83);
	reg_fails(gsi, &r, 0, 0);
	r = reg_req(0, 1);
	reg_fails(gsi, &r, 0, 0);
	r = reg_req(0x50, 1);
	reg_fails(gsi, &r, 0, 0);
	r = reg_req(0x80, 1);
	reg_fails(smi, &r, 0, 0);
	r = reg_req(0x30, 1);			/* vendor range 2, no OUI */
	reg_fails(gsi, &r, 0, 0);
	r = reg_req(EFADV_MAD_CLASS_PERF_MGMT, 1);
	reg_fails(gsi, &r, 1, 0);
	r = reg_req(EFADV_MAD_CLASS_SUBN_DIRECTED_ROUTE, 1);
	reg_fails(smi, &r, 1, 0);
	reg_fails(gsi, &r, 0, 0);
	r = reg_req(EFADV_MAD_CLASS_SUBN_LID_ROUTED, 1);
	reg_fails(gsi, &r, 0, 0);
	r = reg_req(EFADV_MAD_CLASS_SUBN_ADM, 2);
	reg_fails(smi, &r, 0, 0);
	r.reserved[2] = 1;
	reg_fails(gsi, &r, 0, 0);

	r = reg_req(EFADV_MAD_CLASS_SUBN_LID_ROUTED, 1);
	reg_ok(smi, &r, 0, 0);
	r = reg_req(EFADV_MAD_CLASS_SUBN_DIRECTED_ROUTE, 1);
	reg_ok(smi, &r, 0, 0);
	r = reg_req(EFADV_MAD_CLASS_SUBN_ADM, 0x82);
	reg_ok(gsi, &r, 1, 0);
	r = reg_req(0x4f, 1);
	r.oui[2] = 1;
	reg_ok(gsi, &r, 1, 0);
	r = reg_req(0x09, 1);			/* vendor range 1: no OUI */
	reg_ok(gsi, &r, 0, 0);
	reg_ok(gsi, NULL, 1, 0);
	reg_ok(smi, NULL, 0, 0);
	/* without a class there is none to hold the RMPP version against */
	reg_ok(smi, NULL, 1, 0);
}
END_TEST

START_TEST(test_register_lookup)
{
	int fds = open_fds(), index = -1;
	char path[160];

	ck_assert_int_eq(efa_umad_find(sys_dir, "efa_0", 1, &index), 0);
	ck_assert_int_eq(index, 1);
	ck_assert_int_eq(efa_umad_find(sys_dir, "efa_0", 2, &index), 0);
	ck_assert_int_eq(index, 3);
	ck_assert_int_eq(efa_umad_find(sys_dir, "mlx5_0", 1, &index), 0);
	ck_assert_int_eq(index, 0);
	/* a port without, a device without */
	ck_assert_int_eq(efa_umad_find(sys_dir, "efa_0", 3, &index), ENODEV);
	ck_assert_int_eq(efa_umad_find(sys_dir, "efa_", 1, &index), EOPNOTSUPP);
	ck_assert_int_eq(efa_umad_find(sys_dir, "efa_00", 1, &index),
			 EOPNOTSUPP);
	errno = 0;
	ck_assert_ptr_null(reg(3, EFADV_MAD_QPT_GSI, NULL, 0, 0));
	ck_assert_int_eq(errno, ENODEV);
	strcpy(fx.vdev.device.name, "efa_1");
	ck_assert_ptr_null(reg(1, EFADV_MAD_QPT_GSI, NULL, 0, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	strcpy(fx.vdev.device.name, "efa_0");

	/* an ABI other than 5, or none */
	put_file(sys_dir, "abi_version", "6\n");
	ck_assert_int_eq(efa_umad_find(sys_dir, "efa_0", 1, &index),
			 EOPNOTSUPP);
	ck_assert_ptr_null(reg(1, EFADV_MAD_QPT_GSI, NULL, 0, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	snprintf(path, sizeof(path), "%s/abi_version", sys_dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(efa_umad_find(sys_dir, "efa_0", 1, &index),
			 EOPNOTSUPP);
	ck_assert_int_eq(efa_umad_find("/nonexistent", "efa_0", 1, &index),
			 EOPNOTSUPP);
	put_file(sys_dir, "abi_version", "5");
	ck_assert_int_eq(efa_umad_find(sys_dir, "efa_0", 1, &index), 0);

	/* sysfs has it, /dev does not */
	snprintf(path, sizeof(path), "%s/umad1", dev_dir);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_ptr_null(reg(1, EFADV_MAD_QPT_GSI, NULL, 0, 0));
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(kern.reg_calls, 0);

	/* the kernel's errno, and the file closed */
	static const int errs[] = { EINVAL, ENOMEM, EPROTONOSUPPORT, ENOTTY };
	for (size_t i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
		kern.reg_err = errs[i];
		errno = 0;
		ck_assert_ptr_null(reg(2, EFADV_MAD_QPT_GSI, NULL, 0, 0));
		ck_assert_int_eq(errno, errs[i]);
	}
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

START_TEST(test_register_other_driver)
{
	fx.vdev.ops = &efa_other_dev_ops;
	errno = 0;
	ck_assert_ptr_null(efadv_register_mad_agent(&fx.ctx->ibvctx.context, 1,
						    EFADV_MAD_QPT_GSI, NULL,
						    0, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_ptr_null(reg(1, EFADV_MAD_QPT_GSI, NULL, 0, 0));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(kern.reg_calls, 0);
}
END_TEST

/* ---- posting ---- */

static void fill_hdr(struct efadv_mad_send_buf *b, uint8_t cls,
		     uint8_t version, uint8_t method)
{
	struct efadv_mad_hdr *h = b->mad;

	h->base_version = 1;
	h->mgmt_class = cls;
	h->class_version = version;
	h->method = method;
	h->tid = htobe64(0x1122334455667788ULL);
}

START_TEST(test_post_rmpp)
{
	struct efadv_mad_agent *a = sa_agent();
	struct efadv_mad_addr addr = {
		.lid = 0x1234, .sl = 3, .path_bits = 1, .grh_present = 7,
		.sgid_index = 2, .hop_limit = 64, .traffic_class = 0x10,
		.flow_label = 0xabcde,
	};
	struct efadv_mad_send_buf *b;
	struct ib_user_mad_hdr *u;
	uint8_t *data;

	for (int i = 0; i < 16; i++)
		addr.gid.raw[i] = 0xf0 + i;
	b = efadv_create_send_mad(a, 1, 9, 1, 56, 20480, 1);
	ck_assert_ptr_nonnull(b);
	fill_hdr(b, EFADV_MAD_CLASS_SUBN_ADM, 2, EFADV_MAD_METHOD_GET_MULTI);
	data = (uint8_t *)b->mad + 56;
	for (int i = 0; i < 20480; i++)
		data[i] = (uint8_t)(i * 7 + (i >> 8));

	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 1500, 3), 0);
	ck_assert_int_eq(kern.writes, 1);
	/* headers and data, not the padding: the kernel pads again */
	ck_assert_uint_eq(kern.sent_len, 64 + 56 + 20480);
	u = (void *)kern.sent;
	ck_assert_uint_eq(u->id, AGENT_ID);
	ck_assert_uint_eq(u->status, 0);
	ck_assert_uint_eq(u->timeout_ms, 1500);
	ck_assert_uint_eq(u->retries, 3);
	ck_assert_uint_eq(u->length, 0);
	ck_assert_uint_eq(u->qpn, htobe32(1));
	ck_assert_uint_eq(u->qkey, htobe32(0x80010000));
	ck_assert_uint_eq(u->lid, htobe16(0x1234));
	ck_assert_uint_eq(u->sl, 3);
	ck_assert_uint_eq(u->path_bits, 1);
	ck_assert_uint_eq(u->grh_present, 1);
	ck_assert_uint_eq(u->gid_index, 2);
	ck_assert_uint_eq(u->hop_limit, 64);
	ck_assert_uint_eq(u->traffic_class, 0x10);
	ck_assert_uint_eq(u->flow_label, htobe32(0xabcde));
	ck_assert_mem_eq(u->gid, addr.gid.raw, 16);
	ck_assert_uint_eq(u->pkey_index, 9);
	ck_assert(efa_buf_cleared(u->reserved, sizeof(u->reserved)));
	ck_assert_mem_eq(kern.sent + 64, b->mad, 56 + 20480);

	/* the same buffer again, somewhere else, with no GRH */
	addr = (struct efadv_mad_addr){ .lid = 9, .hop_limit = 5 };
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, 0), 0);
	u = (void *)kern.sent;
	ck_assert_uint_eq(u->lid, htobe16(9));
	ck_assert_uint_eq(u->timeout_ms, 0);
	ck_assert_uint_eq(u->grh_present, 0);
	ck_assert_uint_eq(u->hop_limit, 0);
	ck_assert(efa_buf_cleared(u->gid, 16));

	/* the kernel's errno */
	kern.write_err = EIO;
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, 0), EIO);
	kern.write_err = 0;

	efadv_free_send_mad(b);
	efadv_unregister_mad_agent(a);
}
END_TEST

/* Without RMPP, one whole MAD; to QP0 with no Q_Key. */
START_TEST(test_post_single)
{
	struct efadv_mad_reg_req req = reg_req(EFADV_MAD_CLASS_SUBN_LID_ROUTED,
					       1);
	struct efadv_mad_agent *a = reg(1, EFADV_MAD_QPT_SMI, &req, 0, 0);
	struct efadv_mad_addr addr = { .lid = 0xffff };
	struct efadv_mad_send_buf *b;
	struct ib_user_mad_hdr *u;

	ck_assert_ptr_nonnull(a);
	b = efadv_create_send_mad(a, 0, 0, 0, 24, 40, 1);
	ck_assert_ptr_nonnull(b);
	fill_hdr(b, EFADV_MAD_CLASS_SUBN_LID_ROUTED, 1, EFADV_MAD_METHOD_GET);
	memset((uint8_t *)b->mad + 24, 0x5a, 40);
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 100, 1), 0);
	ck_assert_uint_eq(kern.sent_len, 64 + 256);
	u = (void *)kern.sent;
	ck_assert_uint_eq(u->qpn, 0);
	ck_assert_uint_eq(u->qkey, 0);
	ck_assert_uint_eq(u->lid, 0xffff);
	ck_assert_mem_eq(kern.sent + 64, b->mad, 256);
	ck_assert(efa_buf_cleared(kern.sent + 64 + 64, 192));
	efadv_free_send_mad(b);
	efadv_unregister_mad_agent(a);
}
END_TEST

START_TEST(test_post_errors)
{
	struct efadv_mad_agent *sa = sa_agent();
	struct efadv_mad_addr addr = { .lid = 1 };
	struct efadv_mad_send_buf *b, *small;
	struct efadv_mad_rmpp_hdr *r;

	b = efadv_create_send_mad(sa, 1, 0, 1, 56, 1000, 1);
	small = efadv_create_send_mad(sa, 1, 0, 0, 56, 100, 1);
	ck_assert(b && small);
	fill_hdr(b, EFADV_MAD_CLASS_SUBN_ADM, 2, EFADV_MAD_METHOD_GET_MULTI);
	fill_hdr(small, EFADV_MAD_CLASS_SUBN_ADM, 2, EFADV_MAD_METHOD_GET);

	ck_assert_int_eq(efadv_post_send_mad(NULL, &addr, 0, 0), EINVAL);
	ck_assert_int_eq(efadv_post_send_mad(b, NULL, 0, 0), EINVAL);
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, -1, 0), EINVAL);
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, -1), EINVAL);

	/* an RMPP agent sends RMPP classes only */
	fill_hdr(small, EFADV_MAD_CLASS_PERF_MGMT, 1, EFADV_MAD_METHOD_GET);
	ck_assert_int_eq(efadv_post_send_mad(small, &addr, 0, 0), EINVAL);
	/* the kernel segments by the class's header length */
	fill_hdr(b, 0x30, 1, EFADV_MAD_METHOD_GET);
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, 0), EINVAL);
	fill_hdr(b, EFADV_MAD_CLASS_SUBN_ADM, 2, EFADV_MAD_METHOD_GET_MULTI);
	/* and would take it for one MAD without the ACTIVE flag */
	r = (void *)((uint8_t *)b->mad + 24);
	r->rmpp_rtime_flags = 0;
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, 0), EINVAL);
	ck_assert_int_eq(kern.writes, 0);
	r->rmpp_rtime_flags = EFADV_MAD_RMPP_FLAG_ACTIVE;
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, 0), 0);
	ck_assert_uint_eq(kern.sent_len, 64 + 56 + 1000);

	/* a buffer outlives its agent, but cannot be sent any more */
	efadv_unregister_mad_agent(sa);
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, 0), EIO);
	ck_assert_int_eq(kern.writes, 1);
	efadv_free_send_mad(b);
	efadv_free_send_mad(small);
	efadv_free_send_mad(NULL);
}
END_TEST

/* A non-RMPP agent may send any class without RMPP. */
START_TEST(test_post_plain_agent)
{
	struct efadv_mad_agent *a = reg(1, EFADV_MAD_QPT_GSI, NULL, 0, 0);
	struct efadv_mad_addr addr = { .lid = 1 };
	struct efadv_mad_send_buf *b;

	ck_assert_ptr_nonnull(a);
	b = efadv_create_send_mad(a, 1, 0, 0, 56, 200, 1);
	ck_assert_ptr_nonnull(b);
	fill_hdr(b, EFADV_MAD_CLASS_SUBN_ADM, 2, EFADV_MAD_METHOD_GET);
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, 0), 0);
	fill_hdr(b, 0x09, 1, EFADV_MAD_METHOD_GET);
	ck_assert_int_eq(efadv_post_send_mad(b, &addr, 0, 0), 0);
	ck_assert_int_eq(kern.writes, 2);
	efadv_free_send_mad(b);
	efadv_unregister_mad_agent(a);
}
END_TEST

/* ---- receiving ---- */

static struct ib_user_mad_hdr recv_hdr(void)
{
	struct ib_user_mad_hdr h = {
		.id = AGENT_ID, .qpn = htobe32(0x12345678), .lid = htobe16(0x22),
		.sl = 4, .path_bits = 2, .grh_present = 1, .gid_index = 1,
		.hop_limit = 63, .traffic_class = 7,
		.flow_label = htobe32(0x54321), .pkey_index = 3,
	};

	for (int i = 0; i < 16; i++)
		h.gid[i] = i;
	return h;
}

START_TEST(test_recv)
{
	struct efadv_mad_agent *a = sa_agent();
	struct ib_user_mad_hdr h = recv_hdr();
	struct efadv_mad_recv_info info;
	struct msg *m = msg_new(256, &h, 1);
	uint8_t buf[300];
	size_t len;

	queue_msg(m);
	memset(&info, GARBAGE, sizeof(info));
	memset(buf, GARBAGE, sizeof(buf));
	len = sizeof(buf);
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, &info), 0);
	ck_assert_uint_eq(len, 256);
	ck_assert_uint_eq(buf[256], GARBAGE);
	ck_assert_ptr_null(kern.queue);
	ck_assert_uint_eq(info.status, 0);
	ck_assert_uint_eq(info.src_qpn, 0x345678);
	ck_assert_uint_eq(info.pkey_index, 3);
	ck_assert(efa_buf_cleared(info.reserved, sizeof(info.reserved)));
	ck_assert_uint_eq(info.src.lid, 0x22);
	ck_assert_uint_eq(info.src.sl, 4);
	ck_assert_uint_eq(info.src.path_bits, 2);
	ck_assert_uint_eq(info.src.grh_present, 1);
	ck_assert_uint_eq(info.src.sgid_index, 1);
	ck_assert_uint_eq(info.src.hop_limit, 63);
	ck_assert_uint_eq(info.src.traffic_class, 7);
	ck_assert_uint_eq(info.src.flow_label, 0x54321);
	ck_assert_mem_eq(info.src.gid.raw, h.gid, 16);
	ck_assert(efa_buf_cleared(info.src.reserved, 4));
	for (int i = 0; i < 256; i++)
		ck_assert_uint_eq(buf[i], (uint8_t)(1 + i * 13 + (i >> 8)));

	/* no GRH: its fields are zero; info is optional */
	h.grh_present = 0;
	queue_msg(msg_new(256, &h, 2));
	len = 256;
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, &info), 0);
	ck_assert_uint_eq(info.src.hop_limit, 0);
	ck_assert(efa_buf_cleared(info.src.gid.raw, 16));
	queue_msg(msg_new(256, &h, 3));
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, -1, NULL), 0);
	ck_assert_uint_eq(buf[0], 3);
	efadv_unregister_mad_agent(a);
}
END_TEST

/* A long message: ENOSPC and its length, until the buffer is enough. */
START_TEST(test_recv_enospc)
{
	struct efadv_mad_agent *a = sa_agent();
	struct ib_user_mad_hdr h = recv_hdr();
	size_t len, want = 56 + 20480;
	uint8_t *buf = malloc(want);

	ck_assert_ptr_nonnull(buf);
	queue_msg(msg_new(want, &h, 9));
	len = 256;
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, NULL), ENOSPC);
	ck_assert_uint_eq(len, want);
	ck_assert_ptr_nonnull(kern.queue);
	len = want - 1;
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 1000, NULL), ENOSPC);
	ck_assert_uint_eq(len, want);
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 1000, NULL), 0);
	ck_assert_uint_eq(len, want);
	ck_assert_ptr_null(kern.queue);
	for (size_t i = 0; i < want; i++)
		ck_assert_uint_eq(buf[i], (uint8_t)(9 + i * 13 + (i >> 8)));

	/* too small for any MAD: refused before the kernel sees it */
	queue_msg(msg_new(256, &h, 1));
	len = 255;
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, NULL), EINVAL);
	ck_assert_uint_eq(len, 255);
	ck_assert_ptr_nonnull(kern.queue);
	free(buf);
	efadv_unregister_mad_agent(a);
}
END_TEST

START_TEST(test_recv_wait)
{
	struct efadv_mad_agent *a = sa_agent();
	struct ib_user_mad_hdr h = recv_hdr();
	uint8_t buf[256];
	size_t len = sizeof(buf);

	/* nothing there: at once, or after the wait */
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, NULL), EAGAIN);
	ck_assert_int_eq(kern.polls, 0);
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 50, NULL), ETIMEDOUT);
	ck_assert_int_eq(kern.polls, 1);
	ck_assert_uint_eq(len, sizeof(buf));

	/* something arrives while waiting */
	kern.arrives = msg_new(256, &h, 4);
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, -1, NULL), 0);
	ck_assert_int_eq(kern.polls, 2);
	ck_assert_uint_eq(buf[0], 4);

	kern.poll_err = EINTR;
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 100, NULL), EINTR);
	kern.poll_err = 0;
	kern.read_err = EIO;
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 100, NULL), EIO);
	kern.read_err = 0;

	ck_assert_int_eq(efadv_recv_mad(NULL, buf, &len, 0, NULL), EINVAL);
	ck_assert_int_eq(efadv_recv_mad(a, NULL, &len, 0, NULL), EINVAL);
	ck_assert_int_eq(efadv_recv_mad(a, buf, NULL, 0, NULL), EINVAL);
	efadv_unregister_mad_agent(a);
}
END_TEST

/* A request nobody answered comes back as its common header. */
START_TEST(test_recv_timed_out_send)
{
	struct efadv_mad_agent *a = sa_agent();
	struct ib_user_mad_hdr h = { .id = AGENT_ID, .status = ETIMEDOUT,
				     .length = 12345 };
	struct efadv_mad_recv_info info;
	uint8_t buf[256];
	size_t len = sizeof(buf);

	queue_msg(msg_new(24, &h, 6));
	ck_assert_int_eq(efadv_recv_mad(a, buf, &len, 0, &info), 0);
	ck_assert_uint_eq(len, 24);
	ck_assert_uint_eq(info.status, ETIMEDOUT);
	ck_assert_uint_eq(buf[0], 6);
	efadv_unregister_mad_agent(a);
}
END_TEST

static Suite *mad_suite(void)
{
	Suite *s = suite_create("mad");
	TCase *tc = tcase_create("mad");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_class_tables);
	tcase_add_test(tc, test_is_response);
	tcase_add_test(tc, test_geometry);
	tcase_add_test(tc, test_rmpp_buffer);
	tcase_add_test(tc, test_create_errors);
	tcase_add_test(tc, test_register);
	tcase_add_test(tc, test_register_rules);
	tcase_add_test(tc, test_register_lookup);
	tcase_add_test(tc, test_register_other_driver);
	tcase_add_test(tc, test_post_rmpp);
	tcase_add_test(tc, test_post_single);
	tcase_add_test(tc, test_post_errors);
	tcase_add_test(tc, test_post_plain_agent);
	tcase_add_test(tc, test_recv);
	tcase_add_test(tc, test_recv_enospc);
	tcase_add_test(tc, test_recv_wait);
	tcase_add_test(tc, test_recv_timed_out_send);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(mad_suite)
