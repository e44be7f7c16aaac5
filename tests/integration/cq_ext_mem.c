// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A CQ on external memory (efadv_create_cq with
 * EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF): a memfd stands in for the dma-buf.
 * Sends between two SRD QPs complete into it, several laps of the ring,
 * with every wr_id checked; the completions are found in the memfd through
 * a mapping of this program's own, and the bytes around the ring are left
 * alone.  Then each buffer the kernel refuses, with its errno.
 *
 * Built against rdma-core v64 by uapi_v64.sh and against this tree by
 * CMake: both efadv.h have the flag.  Prints "name value" lines; exits
 * non-zero on the first failure, saying what.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>

#include "dev.h"

#define QKEY		0x11111111
#define FILE_LEN	65536
#define RING_OFF	4160	/* past a page, 8-byte aligned */
#define RING_LEN	8192	/* 64 entries of 48 bytes, 2 sub-CQs, in pages */
#define CQE		64
#define CANARY		0xab
#define ROUNDS		6
#define PER_ROUND	20	/* sends; as many receives */
#define POLL_NS		(10ULL * 1000 * 1000 * 1000)

#define die(...) do { fprintf(stderr, "cq_ext_mem: " __VA_ARGS__); \
		      fputc('\n', stderr); exit(1); } while (0)

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static struct ibv_cq_ex *ext_cq(struct ibv_context *ctx, void *buffer,
				int fd, uint64_t offset, uint64_t length)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = CQE,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct efadv_cq_init_attr efa = {
		.flags = EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF,
		.ext_mem_dmabuf = {
			.buffer = buffer,
			.length = length,
			.offset = offset,
			.fd = fd,
		},
	};

	return efadv_create_cq(ctx, &attr, &efa, sizeof(efa));
}

static struct ibv_qp *srd_qp(struct ibv_pd *pd, struct ibv_cq_ex *cq)
{
	struct ibv_qp_init_attr_ex attr = {
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = pd,
		.send_cq = ibv_cq_ex_to_cq(cq),
		.recv_cq = ibv_cq_ex_to_cq(cq),
		.qp_type = IBV_QPT_DRIVER,
		.cap = { .max_send_wr = PER_ROUND, .max_recv_wr = PER_ROUND,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct efadv_qp_init_attr efa = {
		.driver_qp_type = EFADV_QP_DRIVER_TYPE_SRD,
	};
	struct ibv_qp *qp;

	qp = efadv_create_qp_ex(pd->context, &attr, &efa, sizeof(efa));
	if (!qp)
		die("create QP: %s", strerror(errno));
	if (dev_ud_to_rts(qp, QKEY, -1))
		die("QP to RTS: %s", strerror(errno));
	return qp;
}

/* Entries in the ring (as this program's own mapping shows) with a phase. */
static unsigned int ring_written(const uint8_t *ring, unsigned int entries,
				 unsigned int entry_size)
{
	unsigned int i, n = 0;

	/* efa_io_cdesc_common: flags, with the phase in bit 0, at byte 3 */
	for (i = 0; i < entries; i++)
		n += ring[i * entry_size + 3] & 1;
	return n;
}

static void canaries(const uint8_t *file, uint64_t ring_end)
{
	uint64_t i;

	for (i = 0; i < FILE_LEN; i++)
		if ((i < RING_OFF || i >= ring_end) && file[i] != CANARY)
			die("byte %llu outside the ring changed",
			    (unsigned long long)i);
}

/*
 * One round: PER_ROUND receives on @b and as many sends from @a, all
 * completing into the one CQ; every wr_id must come back once.
 */
static void round_trip(struct ibv_cq_ex *cq, struct ibv_qp *a,
		       struct ibv_qp *b, struct ibv_ah *ah, struct ibv_mr *mr,
		       uint8_t *buf, unsigned int round)
{
	uint8_t seen[2][PER_ROUND] = {};
	struct ibv_poll_cq_attr pattr = {};
	uint64_t end = now_ns() + POLL_NS;
	unsigned int i, got = 0;
	int ret;

	for (i = 0; i < PER_ROUND; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf + 4096 + i * 64,
				       .length = 64, .lkey = mr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 1000 * round + 500 + i,
					  .sg_list = &sge, .num_sge = 1 };
		struct ibv_recv_wr *bad;

		if (ibv_post_recv(b, &wr, &bad))
			die("post recv: %s", strerror(errno));
	}
	for (i = 0; i < PER_ROUND; i++) {
		struct ibv_sge sge = { .addr = (uintptr_t)buf + i * 64,
				       .length = 64, .lkey = mr->lkey };
		struct ibv_send_wr wr = {
			.wr_id = 1000 * round + i, .sg_list = &sge,
			.num_sge = 1, .opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.wr.ud = { .ah = ah, .remote_qpn = b->qp_num,
				   .remote_qkey = QKEY },
		};
		struct ibv_send_wr *bad;

		if (ibv_post_send(a, &wr, &bad))
			die("post send: %s", strerror(errno));
	}
	while (got < 2 * PER_ROUND) {
		uint64_t id;
		bool recv;

		ret = ibv_start_poll(cq, &pattr);
		if (ret == ENOENT) {
			if (now_ns() > end)
				die("round %u: %u of %u completions in 10 s",
				    round, got, 2 * PER_ROUND);
			continue;
		}
		if (ret)
			die("ibv_start_poll: %s", strerror(ret));
		do {
			if (cq->status != IBV_WC_SUCCESS)
				die("completion %s", ibv_wc_status_str(cq->status));
			id = cq->wr_id - 1000 * round;
			recv = ibv_wc_read_opcode(cq) == IBV_WC_RECV;
			if (id - (recv ? 500 : 0) >= PER_ROUND ||
			    (recv ? id < 500 : id >= 500) ||
			    seen[recv][id - (recv ? 500 : 0)]++)
				die("round %u: wr_id %llu unexpected", round,
				    (unsigned long long)cq->wr_id);
			got++;
		} while (got < 2 * PER_ROUND && !ibv_next_poll(cq));
		ibv_end_poll(cq);
	}
}

/*
 * efadv_create_cq() with a buffer the kernel refuses: the errno it says.
 * The ring's address here is one the provider may poll, so that only the
 * kernel's checks are tried.
 */
static void refuse(struct ibv_context *ctx, void *at, const char *what,
		   int fd, uint64_t offset, uint64_t length, int want)
{
	struct ibv_cq_ex *cq = ext_cq(ctx, at, fd, offset, length);

	if (cq)
		die("%s: a CQ was made", what);
	printf("refused %s %s\n", what, strerrorname_np(errno));
	if (errno != want)
		die("%s: %s, not %s", what, strerrorname_np(errno),
		    strerrorname_np(want));
}

int main(int argc, char **argv)
{
	union ibv_gid gid;
	struct efadv_device_attr dattr = {};
	struct efadv_cq_attr cattr = {};
	struct ibv_context *ctx;
	uint8_t *file, *view, *buf;
	struct ibv_qp *a, *b;
	struct ibv_cq_ex *cq;
	struct ibv_mr *mr;
	struct ibv_ah *ah;
	struct ibv_pd *pd;
	int fd, pipefd[2], ret;
	unsigned int round;

	setvbuf(stdout, NULL, _IOLBF, 0);
	ctx = dev_open(argc > 1 ? argv[1] : NULL, false);
	if (!ctx)
		die("open %s: %s", argc > 1 ? argv[1] : "the first device",
		    strerror(errno));
	ret = efadv_query_device(ctx, &dattr, sizeof(dattr));
	if (ret)
		die("efadv_query_device: %s", strerror(ret));
	printf("ext_mem_cap %d\n", !!(dattr.device_caps &
	       EFADV_DEVICE_ATTR_CAPS_CQ_WITH_EXT_MEM_DMABUF));

	fd = memfd_create("cq_ext_mem", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, FILE_LEN))
		die("memfd: %s", strerror(errno));
	/* Without the capability the flag must be refused, and only that. */
	if (!(dattr.device_caps & EFADV_DEVICE_ATTR_CAPS_CQ_WITH_EXT_MEM_DMABUF)) {
		cq = ext_cq(ctx, &dattr, fd, RING_OFF, RING_LEN);
		printf("without_cap %s\n", cq ? "made" : strerrorname_np(errno));
		printf("done\n");
		return 0;
	}
	file = mmap(NULL, FILE_LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	view = mmap(NULL, FILE_LEN, PROT_READ, MAP_SHARED, fd, 0);
	if (file == MAP_FAILED || view == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	/* The ring starts zeroed (phase 0), the rest is a canary. */
	memset(file, CANARY, FILE_LEN);
	memset(file + RING_OFF, 0, RING_LEN);

	cq = ext_cq(ctx, file + RING_OFF, fd, RING_OFF, RING_LEN);
	if (!cq)
		die("CQ on the memfd: %s", strerror(errno));
	/* Our provider has no one ring to give for a CQ of sub-CQs. */
	ret = efadv_query_cq(ibv_cq_ex_to_cq(cq), &cattr, sizeof(cattr));
	if (ret && ret != EOPNOTSUPP)
		die("efadv_query_cq: %s", strerror(ret));
	if (ret) {
		printf("ring_query %s\n", strerrorname_np(ret));
	} else {
		printf("ring_is_buffer %d\n", cattr.buffer == file + RING_OFF);
		printf("entry_size %u\n", cattr.entry_size);
	}

	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, 16384);
	if (!pd || !buf)
		die("PD or buffer: %s", strerror(errno));
	memset(buf, 0x42, 16384);
	mr = ibv_reg_mr(pd, buf, 16384, IBV_ACCESS_LOCAL_WRITE);
	if (!mr || ibv_query_gid(ctx, 1, 0, &gid))
		die("MR or GID: %s", strerror(errno));
	ah = dev_create_ah(pd, &gid);
	if (!ah)
		die("AH: %s", strerror(errno));
	a = srd_qp(pd, cq);
	b = srd_qp(pd, cq);

	for (round = 1; round <= ROUNDS; round++) {
		round_trip(cq, a, b, ah, mr, buf, round);
		/* 40 entries of 64 per sub-CQ: the first lap, all phase 1 */
		if (round == 1 && cattr.entry_size)
			printf("ring_entries %u\n",
			       ring_written(view + RING_OFF,
					    RING_LEN / cattr.entry_size,
					    cattr.entry_size));
	}
	printf("completions %u\n", ROUNDS * 2 * PER_ROUND);
	canaries(view, RING_OFF + RING_LEN);

	ibv_destroy_qp(a);
	ibv_destroy_qp(b);
	if (ibv_destroy_cq(ibv_cq_ex_to_cq(cq)))
		die("destroy CQ: %s", strerror(errno));

	if (pipe(pipefd))
		die("pipe: %s", strerror(errno));
	refuse(ctx, file, "bad_fd", 1000, 0, RING_LEN, EBADF);
	refuse(ctx, file, "pipe", pipefd[0], 0, RING_LEN, EINVAL);
	refuse(ctx, file, "too_small", fd, 0, 1024, EINVAL);
	refuse(ctx, file, "zero_length", fd, 0, 0, EINVAL);
	refuse(ctx, file, "misaligned", fd, 4099, RING_LEN, EINVAL);
	refuse(ctx, file, "overflow", fd, UINT64_MAX - 100, RING_LEN, EINVAL);
	refuse(ctx, file, "beyond_file", fd, FILE_LEN - 4096, RING_LEN, EINVAL);
	printf("done\n");
	return 0;
}
