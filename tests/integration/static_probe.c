// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * static_probe DEV: open DEV through the provider linked into the program
 * (static.sh links it against libefa.a and libibverbs.a) and print
 * efadv_query_device()'s max_sq_wr.  Built with RDMA_STATIC_PROVIDERS=efa,
 * it calls no efadv_*: the provider is in the program only because
 * ibv_get_device_list() then names it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>

#include "dev.h"

static int show_efadv(struct ibv_context *ctx)
{
#ifdef RDMA_STATIC_PROVIDERS
	return 0;
#else
	struct efadv_device_attr attr;
	int ret = efadv_query_device(ctx, &attr, sizeof(attr));

	if (ret) {
		fprintf(stderr, "static_probe: efadv_query_device: %s\n",
			strerror(ret));
		return 1;
	}
	printf("max_sq_wr %u\n", attr.max_sq_wr);
	return 0;
#endif
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: static_probe DEVICE\n");
		return 2;
	}
	ctx = dev_open_probe("static_probe", argv[1]);
	if (!ctx)
		return 1;
	printf("opened %s\n", argv[1]);
	ret = show_efadv(ctx);
	return ibv_close_device(ctx) || ret;
}
