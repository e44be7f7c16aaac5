// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * efadv_probe DEV: print efadv_query_device() of DEV, as a program linked
 * against libefa.so.1 sees it, and then the libefa files it maps.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/efadv.h>
#include <infiniband/verbs.h>

#include "dev.h"

static int show_efadv(struct ibv_context *ctx)
{
	struct efadv_device_attr attr;
	int ret;

	ret = efadv_query_device(ctx, &attr, sizeof(attr));
	if (ret) {
		fprintf(stderr, "efadv_probe: efadv_query_device: %s\n",
			strerror(ret));
		return 1;
	}
	printf("max_sq_wr %u\nmax_rq_wr %u\nmax_sq_sge %u\nmax_rq_sge %u\n"
	       "inline_buf_size %u\ninline_buf_size_ex %u\ndevice_caps 0x%x\n"
	       "max_rdma_size %u\n",
	       attr.max_sq_wr, attr.max_rq_wr, attr.max_sq_sge,
	       attr.max_rq_sge, attr.inline_buf_size, attr.inline_buf_size_ex,
	       attr.device_caps, attr.max_rdma_size);
	return ibv_close_device(ctx) ? 1 : 0;
}

/* "libefa PATH" for each libefa file in /proc/self/maps. */
static int show_libefa(void)
{
	char line[PATH_MAX + 128], last[PATH_MAX + 128] = "";
	FILE *maps = fopen("/proc/self/maps", "r");
	char *path;

	if (!maps) {
		perror("efadv_probe: /proc/self/maps");
		return 1;
	}
	while (fgets(line, sizeof(line), maps)) {
		path = strchr(line, '/');
		if (!path || strncmp(strrchr(path, '/'), "/libefa", 7) ||
		    !strcmp(path, last))
			continue;
		printf("libefa %s", path);
		strcpy(last, path);
	}
	fclose(maps);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_context *ctx;

	if (argc != 2) {
		fprintf(stderr, "usage: efadv_probe DEVICE\n");
		return 2;
	}
	ctx = dev_open_probe("efadv_probe", argv[1]);
	if (!ctx)
		return 1;
	if (show_efadv(ctx))
		return 1;
	return show_libefa();
}
