// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Requests softefad refuses, each for a reason its log names (log.sh):
 *   refusals verbs ioctl|write   commands of both ABIs, refused for their
 *                                own reasons (the argument: the host's ABI)
 *   refusals kinds N             N kinds of refusal, each twice
 * Exits non-zero when a request does not fail with the errno expected.
 * Run under "softefa exec".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <rdma/efa-abi.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl.h>

static int failed;

static void expect(const char *what, long ret, int err)
{
	if (ret == -1 && errno == err)
		return;
	fprintf(stderr, "%s: got %ld (%s), expected %s\n", what, ret,
		ret == -1 ? strerror(errno) : "success", strerror(err));
	failed = 1;
}

static int uverbs_open(void)
{
	int fd = open("/dev/infiniband/uverbs0", O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("/dev/infiniband/uverbs0");
		exit(1);
	}
	return fd;
}

/* A context, through write() in either ABI: the efa handshake included. */
static void get_context(int fd)
{
	struct {
		struct ib_uverbs_get_context_resp core;
		struct efa_ibv_alloc_ucontext_resp efa;
	} resp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_get_context core;
		struct efa_ibv_alloc_ucontext_cmd efa;
	} cmd = {
		.hdr = { .command = IB_USER_VERBS_CMD_GET_CONTEXT,
			 .in_words = sizeof(cmd) / 4,
			 .out_words = sizeof(resp) / 4 },
		.core = { .response = (uintptr_t)&resp },
		.efa = { .comp_mask = EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH |
				      EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR },
	};

	if (write(fd, &cmd, sizeof(cmd)) != sizeof(cmd)) {
		perror("GET_CONTEXT");
		exit(1);
	}
}

struct ioctl_cmd {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[2];
};

static long ioctl_cmd(int fd, uint16_t object, uint16_t method,
		      const struct ib_uverbs_attr *attrs, unsigned int n)
{
	struct ioctl_cmd c = {
		.hdr = { .length = sizeof(c.hdr) + n * sizeof(c.attrs[0]),
			 .object_id = object, .method_id = method,
			 .num_attrs = n, .driver_id = RDMA_DRIVER_EFA },
	};

	memcpy(c.attrs, attrs, n * sizeof(*attrs));
	return ioctl(fd, RDMA_VERBS_IOCTL, &c);
}

static void verbs(const char *abi)
{
	int noioctl = !strcmp(abi, "write") ? ENOTTY : 0;
	struct ib_uverbs_attr cq999 = {
		.attr_id = UVERBS_ATTR_DESTROY_CQ_HANDLE, .data = 999,
	};
	struct ib_uverbs_attr dealloc[2] = {
		{ .attr_id = UVERBS_ATTR_WRITE_CMD, .len = 8,
		  .data = IB_USER_VERBS_CMD_DEALLOC_PD },
		{ .attr_id = UVERBS_ATTR_CORE_IN, .len = 4, .data = 12345 },
	};
	struct ib_uverbs_destroy_cq_resp dresp;
	struct ib_uverbs_attr cq999_resp[2] = {
		cq999,
		{ .attr_id = UVERBS_ATTR_DESTROY_CQ_RESP, .len = sizeof(dresp),
		  .data = (uintptr_t)&dresp },
	};
	struct ib_uverbs_create_qp_resp qresp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_create_qp core;
		struct efa_ibv_create_qp efa;
	} qp = {
		.hdr = { .command = IB_USER_VERBS_CMD_CREATE_QP,
			 .in_words = sizeof(qp) / 4,
			 .out_words = sizeof(qresp) / 4 },
		.core = { .response = (uintptr_t)&qresp, .pd_handle = 777,
			  .qp_type = 4 /* IBV_QPT_UD */ },
	};
	struct ib_uverbs_ex_create_cq_resp cresp;
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_ex_cmd_hdr ex;
		struct ib_uverbs_ex_create_cq core;
	} cq = {
		.hdr = { .command = IB_USER_VERBS_CMD_FLAG_EXTENDED |
				    IB_USER_VERBS_EX_CMD_CREATE_CQ,
			 .in_words = sizeof(cq.core) / 8,
			 .out_words = sizeof(cresp) / 8 },
		.ex = { .response = (uintptr_t)&cresp },
		.core = { .cqe = 16, .comp_channel = -1, .comp_mask = 1 },
	};
	int fd = uverbs_open();

	get_context(fd);
	/*
	 * On --abi write, libibverbs learns from its first ioctl's ENOTTY
	 * that there is no ioctl ABI: that one is no refusal.
	 */
	if (noioctl)
		expect("first ioctl", ioctl_cmd(fd, UVERBS_OBJECT_CQ,
						UVERBS_METHOD_CQ_DESTROY,
						cq999_resp, 2), ENOTTY);
	expect("CQ_DESTROY of handle 999",
	       ioctl_cmd(fd, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY,
			 cq999_resp, 2), noioctl ? noioctl : ENOENT);
	expect("CQ_DESTROY without its response",
	       ioctl_cmd(fd, UVERBS_OBJECT_CQ, UVERBS_METHOD_CQ_DESTROY,
			 &cq999, 1), noioctl ? noioctl : EINVAL);
	expect("INVOKE_WRITE of DEALLOC_PD",
	       ioctl_cmd(fd, UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE,
			 dealloc, 2), noioctl ? noioctl : EINVAL);
	expect("method 3 of object 0x77",
	       ioctl_cmd(fd, 0x77, 3, NULL, 0),
	       noioctl ? noioctl : EPROTONOSUPPORT);
	expect("CREATE_QP in PD 777", write(fd, &qp, sizeof(qp)), EINVAL);
	expect("ex CREATE_CQ with a comp_mask", write(fd, &cq, sizeof(cq)),
	       EINVAL);
	close(fd);
}

/* Commands nobody defined: a kind of refusal each. */
static void kinds(int n)
{
	struct ib_uverbs_cmd_hdr hdr = { .in_words = sizeof(hdr) / 4 };
	int fd = uverbs_open(), i;

	for (i = 0; i < 2 * n; i++) {
		hdr.command = 0x60 + i % n;
		expect("unknown command", write(fd, &hdr, sizeof(hdr)),
		       EOPNOTSUPP);
	}
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "verbs"))
		verbs(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "kinds"))
		kinds(atoi(argv[2]));
	else
		return 2;
	return failed;
}
