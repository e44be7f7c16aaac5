// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * async_events [-d DEV] [-n N] [-t SEC]: opens DEV (default: the first
 * device), makes a PD, a CQ and a UD QP in RTS, prints "qpn N" and waits
 * for N async events (default 1), each for at most SEC seconds (default
 * 10).  Each event is printed as "event NAME" with what the verbs say
 * after it: the QP's state after a QP event, the port's after a port
 * event, and after IBV_EVENT_DEVICE_FATAL what a new PD gets.  Exits 0
 * once N events came, 1 when one did not come in time, 2 on a verb that
 * failed before.
 */
#include <errno.h>
#include <poll.h>
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

	if (!list)
		return NULL;
	for (i = 0; list[i]; i++) {
		if (name && strcmp(ibv_get_device_name(list[i]), name))
			continue;
		ctx = ibv_open_device(list[i]);
		break;
	}
	ibv_free_device_list(list);
	return ctx;
}

static struct ibv_qp *ud_qp(struct ibv_pd *pd, struct ibv_cq *cq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_UD,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = 0x11111111,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		goto err;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		goto err;
	a.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto err;
	return qp;
err:
	ibv_destroy_qp(qp);
	return NULL;
}

static const char *qp_state_str(enum ibv_qp_state s)
{
	static const char *const names[] = {
		"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR",
	};

	return (unsigned int)s < sizeof(names) / sizeof(names[0]) ?
	       names[s] : "?";
}

/* What the verbs say after @ev. */
static void after(struct ibv_context *ctx, struct ibv_qp *qp,
		  const struct ibv_async_event *ev)
{
	struct ibv_qp_init_attr init;
	struct ibv_port_attr port;
	struct ibv_qp_attr qa;
	struct ibv_pd *pd;

	switch (ev->event_type) {
	case IBV_EVENT_QP_FATAL:
		if (ibv_query_qp(qp, &qa, IBV_QP_STATE, &init))
			printf("query_qp: %s\n", strerror(errno));
		else
			printf("qp state %s\n", qp_state_str(qa.qp_state));
		break;
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_PORT_ACTIVE:
		printf("port %d", ev->element.port_num);
		if (ibv_query_port(ctx, 1, &port))
			printf(": query_port: %s\n", strerror(errno));
		else
			printf(" state %s\n", ibv_port_state_str(port.state));
		break;
	case IBV_EVENT_DEVICE_FATAL:
		pd = ibv_alloc_pd(ctx);
		if (pd) {
			printf("alloc_pd: succeeded\n");
			ibv_dealloc_pd(pd);
		} else {
			printf("alloc_pd: %s\n", strerror(errno));
		}
		break;
	default:
		break;
	}
}

int main(int argc, char **argv)
{
	const char *name = NULL;
	int n = 1, secs = 10, opt, i;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;

	while ((opt = getopt(argc, argv, "d:n:t:")) != -1) {
		switch (opt) {
		case 'd':
			name = optarg;
			break;
		case 'n':
			n = atoi(optarg);
			break;
		case 't':
			secs = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-n N] [-t SEC]\n",
				argv[0]);
			return 2;
		}
	}
	ctx = open_dev(name);
	if (!ctx) {
		fprintf(stderr, "no device %s\n", name ? name : "at all");
		return 2;
	}
	pd = ibv_alloc_pd(ctx);
	cq = pd ? ibv_create_cq(ctx, 4, NULL, NULL, 0) : NULL;
	qp = cq ? ud_qp(pd, cq) : NULL;
	if (!qp) {
		fprintf(stderr, "PD, CQ or QP: %s\n", strerror(errno));
		return 2;
	}
	printf("qpn %u\n", qp->qp_num);
	fflush(stdout);

	for (i = 0; i < n; i++) {
		struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
		struct ibv_async_event ev;

		if (poll(&pfd, 1, secs * 1000) != 1) {
			printf("no event %d within %d s\n", i + 1, secs);
			return 1;
		}
		if (ibv_get_async_event(ctx, &ev)) {
			printf("get_async_event: %s\n", strerror(errno));
			return 1;
		}
		printf("event %s\n", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		after(ctx, qp, &ev);
		fflush(stdout);
	}
	return 0;
}
