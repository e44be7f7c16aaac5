/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the Check programs of the data path share: dev.h's device and
 * completions, asserted.
 */
#ifndef SEFA_TESTS_INTEGRATION_DP_H
#define SEFA_TESTS_INTEGRATION_DP_H

#include <check.h>

#include "dev.h"

/* The first device. */
static inline struct ibv_context *dp_open_device(void)
{
	struct ibv_context *ctx = dev_open(NULL, false);

	ck_assert_msg(ctx, "open the first device: %s", strerror(errno));
	return ctx;
}

/* The next completion of @cq; the test fails after @ms without one. */
static inline struct ibv_wc dp_poll_one(struct ibv_cq *cq, int ms)
{
	struct ibv_wc wc;
	int n = dev_poll_wc(cq, ms, &wc);

	ck_assert_int_ge(n, 0);
	ck_assert_msg(n, "gave up waiting %d ms for a completion", ms);
	return wc;
}

#endif
