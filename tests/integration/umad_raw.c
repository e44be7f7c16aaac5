// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The umad ABI of a live softefad (extended profile, two devices), byte by
 * byte through /dev/infiniband/umadN: registration rules and errnos, the
 * header layouts, TID rewriting and response routing, timeouts after
 * retries, the read() buffer rules, undelivered classes, malformed writes,
 * issmN, a 20 KiB RMPP message to an agent in another process and back,
 * RMPP aborts, an RMPP send nobody acknowledges and ACKs from elsewhere,
 * an SA request shorter than its header, and the caps on what one file may
 * hold in the daemon.
 * Run under "softefa exec".
 */
#define _GNU_SOURCE
#include <check.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_mad.h>
#include <rdma/rdma_user_ioctl.h>

#include "check_main.h"
#include "wait.h"

#define HDR		sizeof(struct ib_user_mad_hdr)
#define HDR_OLD		56
#define MAD		256
#define VENDOR_CLASS	0x31	/* vendor range 2: RMPP capable, OUI */
#define RMPP_CLASS	0x33
#define OUI		0x0a0b0c
#define METHOD_GET	0x01
#define METHOD_SET	0x02
#define METHOD_RESP	0x80
#define BIG		20480
#define SA_CLASS	0x03
#define SM_LID		1
#define METHOD_GET_TABLE	0x12
#define ATTR_NODE_RECORD	0x0011
#define RMPP_DATA	1
#define RMPP_ACK	2
#define RMPP_STOP	3
#define RMPP_ACTIVE	1
#define RMPP_FIRST	2
#define RMPP_LAST	4
#define RMPP_RESX	1
#define MAX_SENDS	1024	/* tracked sends a file may hold */
#define MAX_RECVS	64	/* RMPP transfers in progress per agent */

/* An address no process maps; a variable keeps the compiler out of it. */
static void *volatile nowhere = (void *)8;

struct umad {
	struct ib_user_mad_hdr hdr;
	uint8_t mad[MAD];
};

static unsigned int sysfs_uint(const char *path)
{
	FILE *f = fopen(path, "r");
	unsigned int v = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%i", &v), 1);
	fclose(f);
	return v;
}

static uint16_t lid_of(int dev)
{
	char path[96];

	snprintf(path, sizeof(path), "/sys/class/infiniband/efa_%d/ports/1/lid",
		 dev);
	return (uint16_t)sysfs_uint(path);
}

static int umad_open(int n)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/dev/infiniband/umad%d", n);
	fd = open(path, O_RDWR | O_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* REGISTER_AGENT2 (the 64-byte header); the agent id, or -errno. */
static int reg2(int fd, uint32_t qpn, uint8_t cls, uint8_t version,
		uint8_t rmpp, uint32_t oui, uint64_t methods)
{
	struct ib_user_mad_reg_req2 r = {
		.qpn = qpn, .mgmt_class = cls, .mgmt_class_version = version,
		.oui = oui, .rmpp_version = rmpp,
		.method_mask = { methods },
	};

	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT2, &r))
		return -errno;
	return (int)r.id;
}

/* The old REGISTER_AGENT; the agent id, or -errno. */
static int reg1(int fd, uint8_t qpn, uint8_t cls, uint8_t version,
		uint8_t rmpp)
{
	struct ib_user_mad_reg_req r = {
		.qpn = qpn, .mgmt_class = cls, .mgmt_class_version = version,
		.rmpp_version = rmpp,
	};

	if (ioctl(fd, IB_USER_MAD_REGISTER_AGENT, &r))
		return -errno;
	return (int)r.id;
}

static void mad_init(struct umad *u, uint32_t agent, uint16_t lid,
		     uint8_t cls, uint8_t method, uint64_t tid)
{
	memset(u, 0, sizeof(*u));
	u->hdr.id = agent;
	u->hdr.qpn = htobe32(1);
	u->hdr.qkey = htobe32(0x80010000);
	u->hdr.lid = htobe16(lid);
	u->mad[0] = 1;
	u->mad[1] = cls;
	u->mad[2] = 1;
	u->mad[3] = method;
	tid = htobe64(tid);
	memcpy(u->mad + 8, &tid, 8);
	u->mad[37] = OUI >> 16;
	u->mad[38] = OUI >> 8 & 0xff;
	u->mad[39] = OUI & 0xff;
}

static void put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return be16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

/* The RMPP header of a MAD: version 1, no response time. */
static void rmpp_hdr(struct umad *u, uint8_t type, uint8_t flags,
		     uint8_t status, uint32_t seg, uint32_t paylen)
{
	u->mad[24] = 1;
	u->mad[25] = type;
	u->mad[26] = flags;
	u->mad[27] = status;
	put32(u->mad + 28, seg);
	put32(u->mad + 32, paylen);
}

static uint64_t tid_of(const uint8_t *mad)
{
	return get64(mad + 8);
}

static ssize_t send_umad(int fd, struct umad *u, uint32_t timeout_ms,
			 uint32_t retries)
{
	u->hdr.timeout_ms = timeout_ms;
	u->hdr.retries = retries;
	return write(fd, u, sizeof(*u));
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

/* Wait for one MAD and read it whole. */
static ssize_t recv_umad(int fd, void *buf, size_t len)
{
	ck_assert_msg(readable(fd, 5000), "gave up waiting 5000 ms for a MAD");
	return read(fd, buf, len);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

START_TEST(registration_errors)
{
	struct ib_user_mad_reg_req2 r2 = { .qpn = 1, .flags = 0x6 };
	int fd = umad_open(0), fd2 = umad_open(0);
	uint32_t id;
	int i, a;

	ck_assert_int_eq(reg2(fd, 2, 0x04, 1, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(reg2(fd, 1, 0x01, 1, 0, 0, 0), -EINVAL); /* SMP, GSI */
	ck_assert_int_eq(reg2(fd, 0, 0x04, 1, 0, 0, 0), -EINVAL); /* GMP, SMI */
	ck_assert_int_eq(reg2(fd, 1, 0x04, 0x83, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(reg2(fd, 1, 0x50, 1, 0, 0, 0), -EINVAL);
	ck_assert_int_eq(reg2(fd, 1, 0x04, 1, 1, 0, 0), -EINVAL); /* RMPP */
	ck_assert_int_eq(reg2(fd, 1, 0x03, 2, 2, 0, 0), -EINVAL);
	ck_assert_int_eq(reg2(fd, 1, VENDOR_CLASS, 1, 0, 0, 2), -EINVAL);
	ck_assert_int_eq(reg2(fd, 1, VENDOR_CLASS, 1, 0, 0x1000000, 2),
			 -EINVAL);
	/* an unknown flag: EINVAL, and the supported ones written back */
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_REGISTER_AGENT2, &r2), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(r2.flags, IB_USER_MAD_USER_RMPP);

	/* one receiver per class, version and method, across files */
	ck_assert_int_eq(reg2(fd, 1, VENDOR_CLASS, 1, 0, OUI, 1 << METHOD_GET), 0);
	ck_assert_int_eq(reg2(fd2, 1, VENDOR_CLASS, 1, 0, OUI,
			      1 << METHOD_GET | 1 << METHOD_SET), -EINVAL);
	ck_assert_int_eq(reg2(fd2, 1, VENDOR_CLASS, 1, 0, OUI,
			      1 << METHOD_SET), 0);
	ck_assert_int_eq(reg2(fd2, 1, VENDOR_CLASS, 1, 0, OUI + 1,
			      1 << METHOD_GET), 1);	/* another OUI */
	ck_assert_int_eq(reg2(fd2, 1, VENDOR_CLASS, 2, 0, OUI,
			      1 << METHOD_GET), 2);	/* another version */

	/* 32 agents a file, the lowest free slot first */
	for (i = 1; i < 32; i++)
		ck_assert_int_eq(reg2(fd, 1, 0, 0, 0, 0, 0), i);
	ck_assert_int_eq(reg2(fd, 1, 0, 0, 0, 0, 0), -ENOMEM);
	id = 5;
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id), 0);
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id), -1);
	ck_assert_int_eq(errno, EINVAL);
	a = reg2(fd, 1, 0, 0, 0, 0, 0);
	ck_assert_int_eq(a, 5);
	id = 32;
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_UNREGISTER_AGENT, &id), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(ioctl(fd, _IO(RDMA_IOCTL_MAGIC, 0x77)), -1);
	ck_assert_int_eq(errno, ENOTTY);
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_REGISTER_AGENT2, nowhere), -1);
	ck_assert_int_eq(errno, EFAULT);

	/* a closed file's registrations are gone (once the daemon saw it) */
	close(fd);
	CK_WAIT_UNTIL(20000, (a = reg2(fd2, 1, VENDOR_CLASS, 1, 0, OUI,
				       1 << METHOD_GET)) != -EINVAL,
		      "the daemon to drop the closed file's agents");
	ck_assert_int_eq(a, 3);
	close(fd2);
}
END_TEST

START_TEST(pkey_layout)
{
	uint8_t buf[HDR + MAD];
	int fd = umad_open(0);

	/* ENABLE_PKEY before any agent; not after */
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_ENABLE_PKEY), 0);
	ck_assert_int_eq(reg1(fd, 1, 0x04, 1, 0), 0);
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_ENABLE_PKEY), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(read(fd, buf, HDR - 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(read(fd, buf, HDR), -1);
	ck_assert_int_eq(errno, EAGAIN);
	close(fd);

	/* REGISTER_AGENT alone keeps the 56-byte header */
	fd = umad_open(0);
	ck_assert_int_eq(reg1(fd, 1, 0x04, 1, 0), 0);
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_ENABLE_PKEY), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(read(fd, buf, HDR_OLD), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(read(fd, buf, HDR_OLD - 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	close(fd);

	/* REGISTER_AGENT2 on a fresh file switches to 64 bytes */
	fd = umad_open(0);
	ck_assert_int_eq(reg2(fd, 1, 0x04, 1, 0, 0, 0), 0);
	ck_assert_int_eq(ioctl(fd, IB_USER_MAD_ENABLE_PKEY), -1);
	ck_assert_int_eq(read(fd, buf, HDR_OLD), -1);
	ck_assert_int_eq(errno, EINVAL);
	close(fd);
}
END_TEST

START_TEST(malformed_writes)
{
	struct umad u;
	int fd = umad_open(0);
	int rmpp = reg2(fd, 1, 0x03, 2, 1, 0, 0);
	int plain = reg2(fd, 1, 0, 0, 0, 0, 0);
	uint8_t big[HDR + MAD + 64] = {};

	ck_assert_int_eq(rmpp, 0);
	ck_assert_int_eq(plain, 1);
	mad_init(&u, plain, lid_of(1), 0x04, METHOD_GET, 1);
	ck_assert_int_eq(write(fd, &u, HDR + 35), -1);	/* short */
	ck_assert_int_eq(errno, EINVAL);
	u.hdr.id = 32;
	ck_assert_int_eq(write(fd, &u, sizeof(u)), -1);
	ck_assert_int_eq(errno, EINVAL);
	u.hdr.id = 7;					/* nobody */
	ck_assert_int_eq(write(fd, &u, sizeof(u)), -1);
	ck_assert_int_eq(errno, EIO);
	u.hdr.id = rmpp;				/* not an RMPP class */
	ck_assert_int_eq(write(fd, &u, sizeof(u)), -1);
	ck_assert_int_eq(errno, EINVAL);
	u.hdr.id = plain;
	u.hdr.grh_present = 1;
	u.hdr.gid_index = 3;				/* no such GID */
	ck_assert_int_eq(write(fd, &u, sizeof(u)), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* more than one MAD without RMPP */
	memcpy(big, &u, sizeof(u));
	((struct ib_user_mad_hdr *)big)->grh_present = 0;
	ck_assert_int_eq(write(fd, big, sizeof(big)), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(write(fd, nowhere, sizeof(u)), -1);
	ck_assert_int_eq(errno, EFAULT);
	/* and the file still works: a PMA answers */
	u.hdr.grh_present = 0;
	ck_assert_int_eq(send_umad(fd, &u, 1000, 0), (ssize_t)sizeof(u));
	memset(&u, 0, sizeof(u));
	ck_assert_int_eq(recv_umad(fd, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_int_eq(u.hdr.status, 0);
	ck_assert_int_eq(u.mad[3], METHOD_RESP | METHOD_GET);
	close(fd);
}
END_TEST

/*
 * A request to an agent of another file: the TID's upper half is the
 * sender's, the lower half its own; the response finds its way back.
 */
START_TEST(request_response)
{
	int srv = umad_open(1), cli = umad_open(0);
	int s = reg2(srv, 1, VENDOR_CLASS, 1, 0, OUI, 1 << METHOD_GET);
	int c = reg2(cli, 1, 0, 0, 0, 0, 0);
	struct umad u, got;
	uint64_t tid;

	ck_assert_int_ge(s, 0);
	ck_assert_int_ge(c, 0);
	mad_init(&u, c, lid_of(1), VENDOR_CLASS, METHOD_GET, 0x12345678);
	u.mad[64] = 0xab;
	ck_assert_int_eq(send_umad(cli, &u, 2000, 0), (ssize_t)sizeof(u));
	/* the same TID while the first waits: a duplicate */
	ck_assert_int_eq(send_umad(cli, &u, 2000, 0), -1);
	ck_assert_int_eq(errno, EINVAL);

	ck_assert_int_eq(recv_umad(srv, &got, sizeof(got)), (ssize_t)sizeof(got));
	ck_assert_int_eq(got.hdr.id, s);
	ck_assert_int_eq(got.hdr.length, sizeof(got));
	ck_assert_int_eq(be32toh(got.hdr.qpn), 1);
	ck_assert_int_eq(be16toh(got.hdr.lid), lid_of(0));
	tid = tid_of(got.mad);
	ck_assert_uint_eq(tid & 0xffffffff, 0x12345678);
	ck_assert_uint_ne(tid >> 32, 0);
	ck_assert_int_eq(got.mad[64], 0xab);

	/* answer: same TID, back to the sender's LID and QP */
	got.mad[3] = METHOD_RESP | METHOD_GET;
	got.mad[65] = 0xcd;
	got.hdr.id = s;
	ck_assert_int_eq(send_umad(srv, &got, 0, 0), (ssize_t)sizeof(got));
	ck_assert_int_eq(recv_umad(cli, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_int_eq(u.hdr.id, c);
	ck_assert_int_eq(u.hdr.status, 0);
	ck_assert_uint_eq(tid_of(u.mad), tid);
	ck_assert_int_eq(u.mad[65], 0xcd);
	ck_assert(!readable(cli, 0));

	/* a method nobody registered: not delivered, answered "unsupported" */
	mad_init(&u, c, lid_of(1), VENDOR_CLASS, METHOD_SET, 2);
	ck_assert_int_eq(send_umad(cli, &u, 2000, 0), (ssize_t)sizeof(u));
	ck_assert_int_eq(recv_umad(cli, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_int_eq(be16toh(*(uint16_t *)(u.mad + 4)), 0x000c);
	ck_assert(!readable(srv, 100));
	close(srv);
	close(cli);
}
END_TEST

START_TEST(timeout_after_retries)
{
	int fd = umad_open(0);
	int a = reg2(fd, 1, 0, 0, 0, 0, 0);
	uint8_t small[HDR + 23];
	struct umad u;
	uint64_t t0;

	ck_assert_int_ge(a, 0);
	/* no port has LID 77: nobody answers */
	mad_init(&u, a, 77, VENDOR_CLASS, METHOD_GET, 0xbeef);
	u.hdr.length = 1234;
	t0 = now_ms();
	ck_assert_int_eq(send_umad(fd, &u, 100, 2), (ssize_t)sizeof(u));
	ck_assert_msg(readable(fd, 5000), "no timeout reported");
	ck_assert_uint_ge(now_ms() - t0, 290);	/* three tries of 100 ms */
	/* the report holds the request's common header only */
	ck_assert_int_eq(read(fd, small, sizeof(small)), -1);
	ck_assert_int_eq(errno, EINVAL);
	memset(&u, 0, sizeof(u));
	ck_assert_int_eq(read(fd, &u, sizeof(u)), HDR + 24);
	ck_assert_int_eq(u.hdr.status, ETIMEDOUT);
	ck_assert_int_eq(u.hdr.id, a);
	ck_assert_int_eq(u.hdr.length, 1234);
	ck_assert_uint_eq(tid_of(u.mad) & 0xffffffff, 0xbeef);
	ck_assert_uint_ne(tid_of(u.mad) >> 32, 0);
	ck_assert_int_eq(u.mad[1], VENDOR_CLASS);
	close(fd);
}
END_TEST

START_TEST(read_too_small_keeps_mad)
{
	int fd = umad_open(0);
	int a = reg2(fd, 1, 0, 0, 0, 0, 0);
	struct umad u;

	mad_init(&u, a, lid_of(0), 0x04, METHOD_GET, 9);	/* our PMA */
	ck_assert_int_eq(send_umad(fd, &u, 1000, 0), (ssize_t)sizeof(u));
	ck_assert(readable(fd, 5000));
	ck_assert_int_eq(read(fd, &u, HDR + 100), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert(readable(fd, 0));
	ck_assert_int_eq(read(fd, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_uint_eq(tid_of(u.mad) & 0xffffffff, 9);
	ck_assert(!readable(fd, 0));
	ck_assert_int_eq(read(fd, &u, sizeof(u)), -1);
	ck_assert_int_eq(errno, EAGAIN);
	close(fd);
}
END_TEST

/* A blocking fd: read() waits for the MAD another process sends. */
START_TEST(blocking_read)
{
	int fd = open("/dev/infiniband/umad1", O_RDWR);
	int a = reg2(fd, 1, VENDOR_CLASS, 1, 0, OUI, 1 << METHOD_GET);
	struct umad u;
	uint64_t t0 = now_ms();
	pid_t pid;
	int status;

	ck_assert_int_ge(a, 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int c = umad_open(0);
		int ca = reg2(c, 1, 0, 0, 0, 0, 0);

		usleep(300 * 1000);
		mad_init(&u, ca, lid_of(1), VENDOR_CLASS, METHOD_GET, 77);
		_exit(ca < 0 || send_umad(c, &u, 0, 0) != sizeof(u));
	}
	ck_assert_int_eq(read(fd, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_uint_ge(now_ms() - t0, 250);
	ck_assert_uint_eq(tid_of(u.mad) & 0xffffffff, 77);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(status, 0);
	close(fd);
}
END_TEST

START_TEST(issm_holds_sm_bit)
{
	const char *cap = "/sys/class/infiniband/efa_1/ports/1/cap_mask";
	int fd, fd2;

	ck_assert_uint_eq(sysfs_uint(cap) & 2, 0);
	fd = open("/dev/infiniband/issm1", O_RDWR);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(sysfs_uint(cap) & 2, 2);
	fd2 = open("/dev/infiniband/issm1", O_RDWR | O_NONBLOCK);
	ck_assert_int_eq(fd2, -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(read(fd, &fd2, sizeof(fd2)), -1);
	ck_assert_int_eq(errno, EINVAL);
	close(fd);
	/* the daemon sees the close a moment later */
	CK_WAIT_UNTIL(20000, !(sysfs_uint(cap) & 2),
		      "the SM bit to go with issm1's close");
	fd = open("/dev/infiniband/issm1", O_RDWR | O_NONBLOCK);
	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

/* A vendor RMPP message: 40 bytes of headers, then @len bytes of data. */
static uint8_t *rmpp_msg(uint32_t agent, uint16_t lid, uint8_t method,
			 uint64_t tid, size_t len, uint8_t seed)
{
	uint8_t *buf = calloc(1, HDR + 40 + len);
	struct umad *u = (struct umad *)buf;
	size_t i;

	mad_init(u, agent, lid, RMPP_CLASS, method, tid);
	u->mad[24] = 1;			/* RMPP version */
	u->mad[25] = 1;			/* DATA */
	u->mad[26] = 1;			/* ACTIVE */
	for (i = 0; i < len; i++)
		buf[HDR + 40 + i] = (uint8_t)(i * 7 + seed);
	return buf;
}

static void check_data(const uint8_t *mad, size_t len, uint8_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (mad[40 + i] != (uint8_t)(i * 7 + seed))
			ck_abort_msg("byte %zu differs", i);
}

/*
 * The receiving process: a buffer too small first (ENOSPC and the needed
 * length, the message still queued), then the whole message, which goes
 * back as the response.
 */
static int rmpp_peer(int ready)
{
	int fd = umad_open(1);
	/* Get: the ACKs of our GetResp come back as Gets */
	int a = reg2(fd, 1, RMPP_CLASS, 1, 1, OUI, 1 << METHOD_GET);
	size_t need = HDR + 40 + BIG;
	uint8_t *buf = malloc(need);
	struct umad *u = (struct umad *)buf;
	ssize_t n;

	if (a < 0 || write(ready, "r", 1) != 1 || !readable(fd, 10000))
		return 1;
	n = read(fd, buf, HDR + MAD);
	if (n != -1 || errno != ENOSPC || u->hdr.length != need ||
	    !readable(fd, 0))
		return 2;
	n = read(fd, buf, need);
	if (n != (ssize_t)need || u->mad[3] != METHOD_GET)
		return 3;
	check_data(u->mad, BIG, 1);
	u->mad[3] = METHOD_RESP | METHOD_GET;
	memset(u->mad + 24, 0, 12);
	u->mad[24] = 1;
	u->mad[25] = 1;
	u->mad[26] = 1;
	u->hdr.id = a;
	u->hdr.timeout_ms = 0;
	for (n = 0; n < BIG; n++)
		u->mad[40 + n] = (uint8_t)(n * 7 + 2);
	if (write(fd, buf, need) != (ssize_t)need)
		return 4;
	/* stay until the transfer's ACKs came */
	usleep(500 * 1000);
	close(fd);
	free(buf);
	return 0;
}

START_TEST(rmpp_between_processes)
{
	size_t need = HDR + 40 + BIG;
	int p[2], status, fd, a;
	uint8_t *msg, *back;
	struct umad *u;
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(rmpp_peer(p[1]));
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	fd = umad_open(0);
	a = reg2(fd, 1, RMPP_CLASS, 1, 1, OUI, 0);
	ck_assert_int_ge(a, 0);
	msg = rmpp_msg(a, lid_of(1), METHOD_GET, 0x5151, BIG, 1);
	u = (struct umad *)msg;
	u->hdr.timeout_ms = 5000;
	ck_assert_int_eq(write(fd, msg, need), (ssize_t)need);
	free(msg);

	back = calloc(1, need);
	ck_assert_int_eq(recv_umad(fd, back, need), (ssize_t)need);
	u = (struct umad *)back;
	ck_assert_int_eq(u->hdr.status, 0);
	ck_assert_int_eq(u->hdr.id, a);
	ck_assert_int_eq(u->hdr.length, need);
	ck_assert_int_eq(be16toh(u->hdr.lid), lid_of(1));
	ck_assert_int_eq(u->mad[3], METHOD_RESP | METHOD_GET);
	ck_assert_uint_eq(tid_of(u->mad) & 0xffffffff, 0x5151);
	check_data(u->mad, BIG, 2);
	free(back);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status),
		      "peer failed: %d", WEXITSTATUS(status));
	close(fd);
}
END_TEST

/*
 * Segments a kernel-RMPP receiver refuses: it answers with an ABORT, which
 * a user-RMPP sender reads although it matches no request.
 */
START_TEST(rmpp_aborts)
{
	static const struct {
		uint8_t version, type, flags;
		uint32_t seg;
		uint8_t status;
	} bad[] = {
		{ 1, 1, 1, 2, 120 },		/* no FIRST: BAD_SEG */
		{ 2, 1, 3, 1, 125 },		/* version: UNV */
		{ 1, 9, 3, 1, 121 },		/* type: BADT */
	};
	int srv = umad_open(1), cli = umad_open(0);
	int s = reg2(srv, 1, RMPP_CLASS, 1, 1, OUI, 1 << METHOD_GET);
	struct ib_user_mad_reg_req2 r = {
		.qpn = 1, .mgmt_class = RMPP_CLASS, .mgmt_class_version = 1,
		.oui = OUI, .rmpp_version = 1, .flags = IB_USER_MAD_USER_RMPP,
	};
	struct umad u;
	uint32_t seg;
	size_t i;

	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(ioctl(cli, IB_USER_MAD_REGISTER_AGENT2, &r), 0);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mad_init(&u, r.id, lid_of(1), RMPP_CLASS, METHOD_GET, 100 + i);
		u.mad[24] = bad[i].version;
		u.mad[25] = bad[i].type;
		u.mad[26] = bad[i].flags;
		seg = htobe32(bad[i].seg);
		memcpy(u.mad + 28, &seg, 4);
		ck_assert_int_eq(send_umad(cli, &u, 0, 0), (ssize_t)sizeof(u));
		ck_assert_int_eq(recv_umad(cli, &u, sizeof(u)),
				 (ssize_t)sizeof(u));
		ck_assert_int_eq(u.mad[3], METHOD_RESP | METHOD_GET);
		ck_assert_int_eq(u.mad[25], 4);			/* ABORT */
		ck_assert_int_eq(u.mad[27], bad[i].status);
		ck_assert_uint_eq(tid_of(u.mad) & 0xffffffff, 100 + i);
	}
	ck_assert(!readable(srv, 0));
	close(srv);
	close(cli);
}
END_TEST

/* An RMPP send nobody ACKs: each window waits timeout_ms, then retries. */
START_TEST(rmpp_unacked_times_out)
{
	int fd = umad_open(0);
	int a = reg2(fd, 1, RMPP_CLASS, 1, 1, OUI, 0);
	uint8_t *msg = rmpp_msg(a, 77, METHOD_GET, 0x77, 2000, 0);
	struct umad *u = (struct umad *)msg;
	uint64_t t0 = now_ms();

	ck_assert_int_ge(a, 0);
	u->hdr.timeout_ms = 100;
	u->hdr.retries = 2;
	ck_assert_int_eq(write(fd, msg, HDR + 40 + 2000),
			 (ssize_t)(HDR + 40 + 2000));
	ck_assert(readable(fd, 5000));
	ck_assert_uint_ge(now_ms() - t0, 290);
	ck_assert_int_eq(read(fd, msg, HDR + 40 + 2000), HDR + 24);
	ck_assert_int_eq(u->hdr.status, ETIMEDOUT);
	ck_assert_uint_eq(tid_of(u->mad) & 0xffffffff, 0x77);
	free(msg);
	close(fd);
}
END_TEST

/*
 * ACKs, STOPs and ABORTs are matched to an RMPP send by TID, class and
 * peer: an ACK from another port moves nothing; the receiver's does.
 */
START_TEST(rmpp_ack_from_elsewhere)
{
	int snd = umad_open(0), rcv = umad_open(1), other = umad_open(0);
	int a = reg2(snd, 1, RMPP_CLASS, 1, 1, OUI, 0);
	int o = reg2(other, 1, 0, 0, 0, 0, 0);
	struct ib_user_mad_reg_req2 r = {
		.qpn = 1, .mgmt_class = RMPP_CLASS, .mgmt_class_version = 1,
		.oui = OUI, .rmpp_version = 1, .flags = IB_USER_MAD_USER_RMPP,
		.method_mask = { 1 << METHOD_GET },
	};
	uint8_t *msg = rmpp_msg(a, lid_of(1), METHOD_GET, 0xac, 300, 3);
	struct umad u, ack;

	ck_assert_int_ge(a, 0);
	ck_assert_int_ge(o, 0);
	ck_assert_int_eq(ioctl(rcv, IB_USER_MAD_REGISTER_AGENT2, &r), 0);
	/* 300 bytes: two segments, the first alone in the first window */
	ck_assert_int_eq(write(snd, msg, HDR + 40 + 300),
			 (ssize_t)(HDR + 40 + 300));
	free(msg);
	ck_assert_int_eq(recv_umad(rcv, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_int_eq(get32(u.mad + 28), 1);

	/* the sender's TID, class and method, from the sender's own port */
	memcpy(&ack, &u, sizeof(ack));
	ack.hdr.id = o;
	ack.hdr.lid = htobe16(lid_of(0));
	ack.mad[3] = METHOD_RESP | METHOD_GET;
	rmpp_hdr(&ack, RMPP_ACK, RMPP_ACTIVE, 0, 1, 2);
	ck_assert_int_eq(send_umad(other, &ack, 0, 0), (ssize_t)sizeof(ack));
	ck_assert(!readable(rcv, 300));

	/* the same ACK from the receiver opens the window */
	ack.hdr.id = r.id;
	ck_assert_int_eq(send_umad(rcv, &ack, 0, 0), (ssize_t)sizeof(ack));
	ck_assert_int_eq(recv_umad(rcv, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_int_eq(get32(u.mad + 28), 2);
	ck_assert_int_eq(u.mad[26] & RMPP_LAST, RMPP_LAST);
	rmpp_hdr(&ack, RMPP_ACK, RMPP_ACTIVE, 0, 2, 2);
	ck_assert_int_eq(send_umad(rcv, &ack, 0, 0), (ssize_t)sizeof(ack));
	ck_assert(!readable(other, 0));
	close(snd);
	close(rcv);
	close(other);
}
END_TEST

/* A NodeRecord query to the SA: template LID @lid, component mask @mask. */
static void sa_request(struct umad *u, uint32_t agent, uint8_t method,
		       uint64_t tid, uint64_t mask, uint16_t lid)
{
	mad_init(u, agent, SM_LID, SA_CLASS, method, tid);
	u->mad[2] = 2;
	memset(u->mad + 36, 0, 8);		/* SM_Key */
	put16(u->mad + 16, ATTR_NODE_RECORD);
	mask = htobe64(mask);
	memcpy(u->mad + 48, &mask, 8);
	put16(u->mad + 56, lid);
}

/*
 * A single-segment RMPP request whose PayloadLength (0) ends the message
 * inside the SA header: the kernel's reassembly makes it 36 bytes.  The SA
 * answers from those, the rest reading as zero, never from past them: the
 * component mask the MAD's tail holds is no part of the message.  The
 * receiver ACKs the segment first, and the ACK, echoing our headers,
 * would take a waiting request's place: send without one, and see the
 * answers that RMPP brings (a GetTable's) as a non-RMPP agent does.
 */
START_TEST(sa_short_rmpp_request)
{
	static const uint8_t methods[] = { METHOD_GET, METHOD_GET_TABLE };
	int fd = umad_open(0);
	int a = reg2(fd, 1, 0, 0, 0, 0, 0);
	struct umad u;
	size_t i;

	ck_assert_int_ge(a, 0);
	for (i = 0; i < sizeof(methods); i++) {
		sa_request(&u, a, methods[i], 0x5a + i, ~0ULL, lid_of(1));
		rmpp_hdr(&u, RMPP_DATA, RMPP_ACTIVE | RMPP_FIRST | RMPP_LAST,
			 0, 1, 0);
		ck_assert_int_eq(send_umad(fd, &u, 0, 0), (ssize_t)sizeof(u));
		ck_assert_int_eq(recv_umad(fd, &u, sizeof(u)),
				 (ssize_t)sizeof(u));
		ck_assert_int_eq(u.mad[25], RMPP_ACK);
		ck_assert_int_eq(get32(u.mad + 28), 1);
		ck_assert_uint_eq(tid_of(u.mad) & 0xffffffff, 0x5a + i);
	}
	/* the whole table, a mask of 0 selecting every node */
	memset(&u, 0xee, sizeof(u));
	ck_assert_int_eq(recv_umad(fd, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_int_eq(u.mad[3], METHOD_RESP | METHOD_GET_TABLE);
	ck_assert_uint_eq(tid_of(u.mad) & 0xffffffff, 0x5b);
	ck_assert_int_eq(get16(u.mad + 4), 0);
	ck_assert_int_eq(u.mad[25], RMPP_DATA);
	ck_assert_int_eq(u.mad[26] & 3, RMPP_ACTIVE | RMPP_FIRST);
	ck_assert_uint_eq(get64(u.mad + 48), 0);

	/* and a whole request still gets its record */
	sa_request(&u, a, METHOD_GET, 0x5c, 1, lid_of(1));
	ck_assert_int_eq(send_umad(fd, &u, 1000, 0), (ssize_t)sizeof(u));
	ck_assert_int_eq(recv_umad(fd, &u, sizeof(u)), (ssize_t)sizeof(u));
	ck_assert_int_eq(u.mad[3], METHOD_RESP | METHOD_GET);
	ck_assert_int_eq(get16(u.mad + 4), 0);
	ck_assert_uint_eq(get64(u.mad + 48), 1);
	ck_assert_int_eq(get16(u.mad + 56), lid_of(1));
	close(fd);
}
END_TEST

/*
 * A file holds so many sends awaiting their response; the next write
 * fails with ENOMEM, as the kernel's allocation would, until some end.
 */
START_TEST(send_cap)
{
	int fd = umad_open(0);
	int a = reg2(fd, 1, 0, 0, 0, 0, 0);
	struct umad u;
	unsigned int i;

	ck_assert_int_ge(a, 0);
	/* nobody has LID 77 */
	for (i = 0; i < MAX_SENDS; i++) {
		mad_init(&u, a, 77, VENDOR_CLASS, METHOD_GET, 1000 + i);
		ck_assert_int_eq(send_umad(fd, &u, 1500, 0),
				 (ssize_t)sizeof(u));
	}
	mad_init(&u, a, 77, VENDOR_CLASS, METHOD_GET, 1000 + i);
	ck_assert_int_eq(send_umad(fd, &u, 1500, 0), -1);
	ck_assert_int_eq(errno, ENOMEM);
	/* a send that expects nothing is refused alike */
	ck_assert_int_eq(send_umad(fd, &u, 0, 0), -1);
	ck_assert_int_eq(errno, ENOMEM);
	for (i = 0; i < MAX_SENDS; i++) {
		ck_assert_int_eq(recv_umad(fd, &u, sizeof(u)), HDR + 24);
		ck_assert_int_eq(u.hdr.status, ETIMEDOUT);
	}
	mad_init(&u, a, 77, VENDOR_CLASS, METHOD_GET, 1);
	ck_assert_int_eq(send_umad(fd, &u, 1500, 0), (ssize_t)sizeof(u));
	close(fd);
}
END_TEST

/* Segment 1 of a user-RMPP transfer; the receiver's answer. */
static void first_seg(int fd, uint32_t agent, uint64_t tid, uint32_t paylen,
		      struct umad *answer)
{
	struct umad u;

	mad_init(&u, agent, lid_of(1), RMPP_CLASS, METHOD_GET, tid);
	rmpp_hdr(&u, RMPP_DATA, RMPP_ACTIVE | RMPP_FIRST, 0, 1, paylen);
	ck_assert_int_eq(send_umad(fd, &u, 0, 0), (ssize_t)sizeof(u));
	ck_assert_int_eq(recv_umad(fd, answer, sizeof(*answer)),
			 (ssize_t)sizeof(*answer));
	ck_assert_uint_eq(tid_of(answer->mad) & 0xffffffff, tid);
}

/*
 * A kernel-RMPP receiver takes so many transfers in progress per agent,
 * and none that says it will be longer than a write may be: it answers
 * their first segment with STOP(RESX), the receiver out of resources.
 */
START_TEST(rmpp_recv_caps)
{
	int srv = umad_open(1), cli = umad_open(0);
	int s = reg2(srv, 1, RMPP_CLASS, 1, 1, OUI, 1 << METHOD_GET);
	struct ib_user_mad_reg_req2 r = {
		.qpn = 1, .mgmt_class = RMPP_CLASS, .mgmt_class_version = 1,
		.oui = OUI, .rmpp_version = 1, .flags = IB_USER_MAD_USER_RMPP,
	};
	struct umad u;
	unsigned int i;

	ck_assert_int_ge(s, 0);
	ck_assert_int_eq(ioctl(cli, IB_USER_MAD_REGISTER_AGENT2, &r), 0);
	first_seg(cli, r.id, 200, 9 << 20, &u);
	ck_assert_int_eq(u.mad[25], RMPP_STOP);
	ck_assert_int_eq(u.mad[27], RMPP_RESX);
	for (i = 0; i < MAX_RECVS; i++) {
		first_seg(cli, r.id, 300 + i, 1000, &u);
		ck_assert_int_eq(u.mad[25], RMPP_ACK);
		ck_assert_int_eq(get32(u.mad + 28), 1);
	}
	first_seg(cli, r.id, 300 + i, 1000, &u);
	ck_assert_int_eq(u.mad[25], RMPP_STOP);
	ck_assert_int_eq(u.mad[27], RMPP_RESX);
	ck_assert(!readable(srv, 0));
	close(srv);
	close(cli);
}
END_TEST

static Suite *umad_suite(void)
{
	Suite *s = suite_create("umad_raw");
	TCase *tc = tcase_create("abi");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, registration_errors);
	tcase_add_test(tc, pkey_layout);
	tcase_add_test(tc, malformed_writes);
	tcase_add_test(tc, request_response);
	tcase_add_test(tc, timeout_after_retries);
	tcase_add_test(tc, read_too_small_keeps_mad);
	tcase_add_test(tc, blocking_read);
	tcase_add_test(tc, issm_holds_sm_bit);
	tcase_add_test(tc, rmpp_between_processes);
	tcase_add_test(tc, rmpp_aborts);
	tcase_add_test(tc, rmpp_unacked_times_out);
	tcase_add_test(tc, rmpp_ack_from_elsewhere);
	tcase_add_test(tc, sa_short_rmpp_request);
	tcase_add_test(tc, send_cap);
	tcase_add_test(tc, rmpp_recv_caps);
	suite_add_tcase(s, tc);
	return s;
}

SEFA_CHECK_MAIN(umad_suite)
