/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device limits: how many objects of each kind a device holds at once,
 * across every process of the host, and how deep its queues may be.  The
 * profile's hardware gives the defaults and the ceilings; softefad's
 * --limit lowers them, so that what exhausts a device shows with few
 * objects.  The devices report what is in force (query_device).
 */
#ifndef SEFA_SOFTEFA_COMMON_DEV_LIMITS_H
#define SEFA_SOFTEFA_COMMON_DEV_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

enum sefa_limit {
	/* objects the device holds, counted in use */
	SEFA_LIMIT_AH,
	SEFA_LIMIT_QP,
	SEFA_LIMIT_CQ,
	SEFA_LIMIT_MR,
	SEFA_LIMIT_PD,
	/* what one object may ask for */
	SEFA_LIMIT_CQ_DEPTH,
	SEFA_LIMIT_SQ_DEPTH,
	SEFA_LIMIT_RQ_DEPTH,
	SEFA_LIMIT_MR_PAGES,
	SEFA_LIMIT_MAX
};

/* The kinds below this one are counted objects. */
#define SEFA_LIMIT_COUNTED	(SEFA_LIMIT_PD + 1)

/* What the command line asked for: 0 leaves the profile's value. */
struct sefa_limits {
	uint64_t max[SEFA_LIMIT_MAX];
};

const char *sefa_limit_name(enum sefa_limit k);
/* The profile's hardware value of @k: the default and the ceiling. */
uint64_t sefa_limit_hw(const struct sefa_profile *p, enum sefa_limit k);
/*
 * "NAME=N[,NAME=N...]" into @l, later values winning; -EINVAL with the
 * reason in @err on an unknown name, a value that is no number or 0.
 */
int sefa_limits_parse(struct sefa_limits *l, const char *arg, char *err,
		      size_t errlen);
/*
 * Whether every value asked for fits @p's hardware: -ERANGE with the
 * reason in @err for one above it (or an SQ depth below what the
 * profile's QPs need).
 */
int sefa_limits_check(const struct sefa_limits *l,
		      const struct sefa_profile *p, char *err, size_t errlen);
/* The value in force of @k: the one asked for, or the profile's. */
uint64_t sefa_limit_value(const struct sefa_limits *l,
			  const struct sefa_profile *p, enum sefa_limit k);

#endif
