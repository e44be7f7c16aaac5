/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A device and its queue pairs with plain verbs, for every test program:
 * the probes and the peers, which report failures themselves, and the
 * Check programs, which assert on them (dp.h).  Port 1 throughout.
 */
#ifndef SEFA_TESTS_INTEGRATION_DEV_H
#define SEFA_TESTS_INTEGRATION_DEV_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "wait.h"

/*
 * The device named @name; without a name the first, or the last with
 * @last.  NULL, with errno, if there is no such device or it did not open.
 */
static inline struct ibv_context *dev_open(const char *name, bool last)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int i, n, err = ENODEV;

	list = ibv_get_device_list(&n);
	if (!list)
		return NULL;
	for (i = 0; i < n; i++) {
		if (name ? strcmp(ibv_get_device_name(list[i]), name) :
			   i != (last ? n - 1 : 0))
			continue;
		ctx = ibv_open_device(list[i]);
		err = errno;
		break;
	}
	ibv_free_device_list(list);
	errno = err;
	return ctx;
}

/* A probe's device: @name, or NULL once @prog said on stderr why not. */
static inline struct ibv_context *dev_open_probe(const char *prog,
						 const char *name)
{
	struct ibv_context *ctx = dev_open(name, false);

	if (!ctx)
		fprintf(stderr, "%s: cannot open %s: %s\n", prog,
			name ? name : "the first device", strerror(errno));
	return ctx;
}

/* A UD or SRD QP from RESET to RTS with @qkey; rnr_retry too unless it is
 * negative.
 */
static inline int dev_ud_to_rts(struct ibv_qp *qp, uint32_t qkey,
				int rnr_retry)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
		.qkey = qkey,
	};
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (rnr_retry >= 0) {
		a.rnr_retry = rnr_retry;
		mask |= IBV_QP_RNR_RETRY;
	}
	return ibv_modify_qp(qp, &a, mask);
}

/* EFA addresses are GIDs: a global AH. */
static inline struct ibv_ah *dev_create_ah(struct ibv_pd *pd,
					   const union ibv_gid *gid)
{
	struct ibv_ah_attr a = {
		.is_global = 1, .port_num = 1,
		.grh = { .dgid = *gid, .hop_limit = 1 },
	};

	return ibv_create_ah(pd, &a);
}

/* An RC QP: RESET to INIT, serving remote access as @access says. */
static inline int dev_rc_to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1,
		.qp_access_flags = access,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* INIT to RTR, to QP @dqpn at the end of the path @av. */
static inline int dev_rc_to_rtr(struct ibv_qp *qp, uint32_t dqpn,
				const struct ibv_ah_attr *av)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024,
		.dest_qp_num = dqpn, .rq_psn = 0, .max_dest_rd_atomic = 1,
		.min_rnr_timer = 1, .ah_attr = *av,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

/*
 * RTR to RTS, @rnr_retry retries for a receiver not ready, 7 for a lost
 * packet, each after 4.096 us << @timeout.
 */
static inline int dev_rc_to_rts_timeout(struct ibv_qp *qp, uint8_t rnr_retry,
					uint8_t timeout)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS, .timeout = timeout, .retry_cnt = 7,
		.rnr_retry = rnr_retry, .sq_psn = 0, .max_rd_atomic = 1,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			     IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
}

/* RTR to RTS, a lost packet retried after 67 ms */
static inline int dev_rc_to_rts(struct ibv_qp *qp, uint8_t rnr_retry)
{
	return dev_rc_to_rts_timeout(qp, rnr_retry, 14);
}

/*
 * The next completion of @cq within @ms: 1 with *wc, 0 if none came, or
 * ibv_poll_cq()'s error.
 */
static inline int dev_poll_wc(struct ibv_cq *cq, int ms, struct ibv_wc *wc)
{
	struct wait w = wait_start(ms);
	int n;

	do {
		n = ibv_poll_cq(cq, 1, wc);
		if (n)
			return n;
	} while (wait_more(&w, 0));
	return 0;
}

/* The next completion of @cq within @ms, or one of status -1. */
static inline struct ibv_wc dev_wait_wc(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;

	if (dev_poll_wc(cq, ms, &wc) <= 0)
		wc.status = -1;
	return wc;
}

#endif
