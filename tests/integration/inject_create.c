// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Makes the verbs objects a UD client makes, one after the other, on the
 * first device: context, PD, CQ, MR, QP and an AH to the port's own GID.
 * Prints "NAME ok" for each, or "NAME: <errno text> (errno N)" for the
 * first that fails and exits 1 there, so that a test sees which create
 * failed and with what.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static int failed(const char *what)
{
	int err = errno;

	printf("%s: %s (errno %d)\n", what, strerror(err), err);
	return 1;
}

int main(void)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_ah_attr aa = { .is_global = 1, .port_num = 1 };
	struct ibv_device **list;
	struct ibv_context *ctx;
	static char buf[4096];
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	struct ibv_ah *ah;
	int n;

	list = ibv_get_device_list(&n);
	if (!list || !n)
		return failed("devices");
	errno = 0;
	ctx = ibv_open_device(list[0]);
	if (!ctx)
		return failed("ctx");
	printf("ctx ok\n");
	pd = ibv_alloc_pd(ctx);
	if (!pd)
		return failed("pd");
	printf("pd ok\n");
	cq = ibv_create_cq(ctx, 2, NULL, NULL, 0);
	if (!cq)
		return failed("cq");
	printf("cq ok\n");
	mr = ibv_reg_mr(pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr)
		return failed("mr");
	printf("mr ok\n");
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = ibv_create_qp(pd, &qa);
	if (!qp)
		return failed("qp");
	printf("qp ok\n");
	if (ibv_query_gid(ctx, 1, 0, &aa.grh.dgid))
		return failed("gid");
	ah = ibv_create_ah(pd, &aa);
	if (!ah)
		return failed("ah");
	printf("ah ok\n");

	ibv_destroy_ah(ah);
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
