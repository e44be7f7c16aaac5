// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Makes COUNT objects of one kind on the first device, one at a time,
 * and says how many it made and why the first one that failed did:
 * "created N", then "failed: <strerror> (errno E)".  With "hold" it then
 * keeps them until its standard input ends, so that another process
 * meets the device's limit meanwhile.  Exit status 0 when all were made,
 * 1 when one failed, 2 on a bad command line or a setup that failed.
 * Usage: limit_verbs ah|qp|cq|mr|pd COUNT [hold]
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

enum kind { K_AH, K_QP, K_CQ, K_MR, K_PD };

static const char *const kinds[] = { "ah", "qp", "cq", "mr", "pd" };

struct setup {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	void *buf;
};

/* Object @i of @k, or NULL with errno set. */
static void *make(const struct setup *s, enum kind k, unsigned int i)
{
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1 };
	struct ibv_qp_init_attr qp = {
		.qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 32, .max_recv_wr = 32,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	switch (k) {
	case K_AH:
		/* a destination of its own: the device keeps one AH each */
		ah.grh.dgid.raw[0] = 0xfe;
		ah.grh.dgid.raw[1] = 0x80;
		ah.grh.dgid.raw[14] = i >> 8;
		ah.grh.dgid.raw[15] = i;
		return ibv_create_ah(s->pd, &ah);
	case K_QP:
		qp.send_cq = s->cq;
		qp.recv_cq = s->cq;
		return ibv_create_qp(s->pd, &qp);
	case K_CQ:
		return ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
	case K_MR:
		return ibv_reg_mr(s->pd, s->buf, 4096, IBV_ACCESS_LOCAL_WRITE);
	default:
		return ibv_alloc_pd(s->ctx);
	}
}

static int unmake(enum kind k, void *o)
{
	switch (k) {
	case K_AH:
		return ibv_destroy_ah(o);
	case K_QP:
		return ibv_destroy_qp(o);
	case K_CQ:
		return ibv_destroy_cq(o);
	case K_MR:
		return ibv_dereg_mr(o);
	default:
		return ibv_dealloc_pd(o);
	}
}

static int setup(struct setup *s)
{
	struct ibv_device **list = ibv_get_device_list(NULL);

	if (!list || !list[0]) {
		fprintf(stderr, "no device\n");
		return -1;
	}
	s->ctx = ibv_open_device(list[0]);
	ibv_free_device_list(list);
	if (!s->ctx) {
		perror("ibv_open_device");
		return -1;
	}
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = ibv_create_cq(s->ctx, 16, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, 4096);
	if (!s->pd || !s->cq || !s->buf) {
		perror("PD, CQ or buffer");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct setup s = {};
	unsigned int i, n, count;
	char line[64];
	void **objs;
	int k, rc = 0;

	if (argc < 3 || argc > 4 || (argc == 4 && strcmp(argv[3], "hold")))
		goto usage;
	for (k = 0; k < 5 && strcmp(argv[1], kinds[k]); k++)
		;
	count = strtoul(argv[2], NULL, 10);
	if (k == 5 || !count)
		goto usage;
	objs = calloc(count, sizeof(*objs));
	if (!objs || setup(&s))
		return 2;

	for (n = 0; n < count; n++) {
		objs[n] = make(&s, k, n + 1);
		if (!objs[n])
			break;
	}
	printf("created %u\n", n);
	if (n < count) {
		printf("failed: %s (errno %d)\n", strerror(errno), errno);
		rc = 1;
	}
	if (argc == 4) {
		printf("holding\n");
		fflush(stdout);
		while (fgets(line, sizeof(line), stdin))
			;
	}
	for (i = n; i--;) {
		if (unmake(k, objs[i])) {
			perror("destroy");
			rc = 2;
		}
	}
	free(objs);
	free(s.buf);
	ibv_destroy_cq(s.cq);
	ibv_dealloc_pd(s.pd);
	ibv_close_device(s.ctx);
	return rc;

usage:
	fprintf(stderr, "usage: limit_verbs ah|qp|cq|mr|pd COUNT [hold]\n");
	return 2;
}
