// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A small verbs program for the integration tests.  It links libibverbs
 * only, so whichever provider "softefa exec" selects drives the device.
 *   sefa_probe hold DEV     open DEV, print "ready", keep it open until
 *                           stdin closes
 *   sefa_probe threads DEV  query port and GID from several threads at
 *                           once on one context, checking every answer
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	if (!list) {
		fprintf(stderr, "sefa_probe: no device list: %s\n",
			strerror(errno));
		return NULL;
	}
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx)
		fprintf(stderr, "sefa_probe: cannot open %s: %s\n", name,
			strerror(errno));
	ibv_free_device_list(list);
	return ctx;
}

static int hold(struct ibv_context *ctx)
{
	char c;

	printf("ready\n");
	fflush(stdout);
	while (read(STDIN_FILENO, &c, 1) > 0)
		;
	return ibv_close_device(ctx) ? 1 : 0;
}

#define NTHREADS	4
#define NQUERIES	500

struct worker {
	pthread_t thread;
	struct ibv_context *ctx;
	const struct ibv_port_attr *want;
	const union ibv_gid *gid;
	int bad;
};

static void *query_loop(void *arg)
{
	struct worker *w = arg;
	struct ibv_port_attr attr;
	union ibv_gid gid;
	int i;

	for (i = 0; i < NQUERIES; i++) {
		if (ibv_query_port(w->ctx, 1, &attr) ||
		    attr.max_msg_sz != w->want->max_msg_sz ||
		    attr.lid != w->want->lid ||
		    ibv_query_gid(w->ctx, 1, 0, &gid) ||
		    memcmp(&gid, w->gid, sizeof(gid)))
			w->bad++;
	}
	return NULL;
}

/* The shim serialises calls per fd; answers must never cross. */
static int threads(struct ibv_context *ctx)
{
	struct worker w[NTHREADS];
	struct ibv_port_attr want;
	union ibv_gid gid;
	int i, bad = 0;

	if (ibv_query_port(ctx, 1, &want) || ibv_query_gid(ctx, 1, 0, &gid)) {
		fprintf(stderr, "sefa_probe: query failed\n");
		return 1;
	}
	for (i = 0; i < NTHREADS; i++) {
		w[i] = (struct worker){ .ctx = ctx, .want = &want, .gid = &gid };
		if (pthread_create(&w[i].thread, NULL, query_loop, &w[i]))
			return 1;
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(w[i].thread, NULL);
		bad += w[i].bad;
	}
	printf("%d queries, %d wrong\n", 2 * NTHREADS * NQUERIES, bad);
	return ibv_close_device(ctx) || bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;

	if (argc != 3) {
		fprintf(stderr, "usage: sefa_probe hold|threads DEVICE\n");
		return 2;
	}
	ctx = open_dev(argv[2]);
	if (!ctx)
		return 1;
	if (!strcmp(argv[1], "hold"))
		return hold(ctx);
	if (!strcmp(argv[1], "threads"))
		return threads(ctx);
	fprintf(stderr, "sefa_probe: unknown command %s\n", argv[1]);
	return 2;
}
