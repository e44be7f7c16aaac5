// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Completion vectors: every vector below the context's num_comp_vectors
 * takes a CQ with a completion channel, and that CQ can be armed; the
 * vector num_comp_vectors is refused with EINVAL, as the uverbs core
 * refuses it.  libibverbs alone, so it runs on the stock provider too.
 * Usage: cq_vectors DEVICE; prints "num_comp_vectors N", exits 0 when all
 * held.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	return ctx;
}

int main(int argc, char **argv)
{
	struct ibv_comp_channel *ch;
	struct ibv_context *ctx;
	struct ibv_cq *cq;
	int v, ret = 1;

	if (argc != 2) {
		fprintf(stderr, "usage: cq_vectors DEVICE\n");
		return 2;
	}
	ctx = open_dev(argv[1]);
	if (!ctx) {
		fprintf(stderr, "cannot open %s\n", argv[1]);
		return 1;
	}
	printf("num_comp_vectors %d\n", ctx->num_comp_vectors);
	ch = ibv_create_comp_channel(ctx);
	if (!ch) {
		perror("ibv_create_comp_channel");
		goto err_close;
	}
	for (v = 0; v < ctx->num_comp_vectors; v++) {
		cq = ibv_create_cq(ctx, 16, NULL, ch, v);
		if (!cq) {
			fprintf(stderr, "vector %d: %s\n", v, strerror(errno));
			goto err_ch;
		}
		if (ibv_req_notify_cq(cq, 0)) {
			fprintf(stderr, "vector %d: arm failed\n", v);
			ibv_destroy_cq(cq);
			goto err_ch;
		}
		ibv_destroy_cq(cq);
	}
	errno = 0;
	cq = ibv_create_cq(ctx, 16, NULL, ch, v);
	if (cq || errno != EINVAL) {
		fprintf(stderr, "vector %d: %s, not EINVAL\n", v,
			cq ? "created" : strerror(errno));
		if (cq)
			ibv_destroy_cq(cq);
		goto err_ch;
	}
	printf("vectors 0..%d take a CQ, %d is EINVAL\n", v - 1, v);
	ret = 0;
err_ch:
	ibv_destroy_comp_channel(ch);
err_close:
	ibv_close_device(ctx);
	return ret;
}
