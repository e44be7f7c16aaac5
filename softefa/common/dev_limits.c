// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device limits (dev_limits.h): their names, the profile's hardware values,
 * and softefad's --limit list.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dev_limits.h"

/* The efa driver reports max_mr_size as max_mr_pages of 4 KiB. */
#define MR_PAGE_SIZE	4096

static const char *const names[SEFA_LIMIT_MAX] = {
	[SEFA_LIMIT_AH] = "ah",
	[SEFA_LIMIT_QP] = "qp",
	[SEFA_LIMIT_CQ] = "cq",
	[SEFA_LIMIT_MR] = "mr",
	[SEFA_LIMIT_PD] = "pd",
	[SEFA_LIMIT_CQ_DEPTH] = "cq-depth",
	[SEFA_LIMIT_SQ_DEPTH] = "sq-depth",
	[SEFA_LIMIT_RQ_DEPTH] = "rq-depth",
	[SEFA_LIMIT_MR_PAGES] = "mr-pages",
};

const char *sefa_limit_name(enum sefa_limit k)
{
	return names[k];
}

uint64_t sefa_limit_hw(const struct sefa_profile *p, enum sefa_limit k)
{
	switch (k) {
	case SEFA_LIMIT_AH:
		return p->max_ah;
	case SEFA_LIMIT_QP:
		return p->max_qp;
	case SEFA_LIMIT_CQ:
		return p->max_cq;
	case SEFA_LIMIT_MR:
		return p->max_mr;
	case SEFA_LIMIT_PD:
		return p->max_pd;
	case SEFA_LIMIT_CQ_DEPTH:
		return p->max_cqe;
	case SEFA_LIMIT_SQ_DEPTH:
		return p->max_sq_wr;
	case SEFA_LIMIT_RQ_DEPTH:
		return p->max_rq_wr;
	default:
		return p->max_mr_size / MR_PAGE_SIZE;
	}
}

static int limit_find(const char *name, size_t len)
{
	int k;

	for (k = 0; k < SEFA_LIMIT_MAX; k++)
		if (strlen(names[k]) == len && !strncmp(names[k], name, len))
			return k;
	return -1;
}

/* One "NAME=N" of @len characters at @s. */
static int parse_one(struct sefa_limits *l, const char *s, size_t len,
		     char *err, size_t errlen)
{
	const char *eq = memchr(s, '=', len);
	unsigned long long v;
	char num[24], *end;
	size_t nlen;
	int k;

	if (!eq) {
		snprintf(err, errlen, "'%.*s' is not NAME=N", (int)len, s);
		return -EINVAL;
	}
	k = limit_find(s, eq - s);
	if (k < 0) {
		snprintf(err, errlen,
			 "unknown limit '%.*s' (ah, qp, cq, mr, pd, cq-depth, sq-depth, rq-depth, mr-pages)",
			 (int)(eq - s), s);
		return -EINVAL;
	}
	nlen = len - (eq + 1 - s);
	if (!nlen || nlen >= sizeof(num))
		goto err_value;
	memcpy(num, eq + 1, nlen);
	num[nlen] = '\0';
	errno = 0;
	v = strtoull(num, &end, 10);
	if (errno || *num < '0' || *num > '9' || *end || !v ||
	    v > UINT32_MAX)
		goto err_value;
	l->max[k] = v;
	return 0;

err_value:
	snprintf(err, errlen, "limit %s takes a number from 1 up, not '%.*s'",
		 names[k], (int)nlen, eq + 1);
	return -EINVAL;
}

int sefa_limits_parse(struct sefa_limits *l, const char *arg, char *err,
		      size_t errlen)
{
	const char *s = arg, *comma;
	size_t len;
	int ret;

	do {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		ret = parse_one(l, s, len, err, errlen);
		if (ret)
			return ret;
		s = comma + 1;
	} while (comma);
	return 0;
}

int sefa_limits_check(const struct sefa_limits *l,
		      const struct sefa_profile *p, char *err, size_t errlen)
{
	int k;

	for (k = 0; k < SEFA_LIMIT_MAX; k++) {
		if (l->max[k] > sefa_limit_hw(p, k)) {
			snprintf(err, errlen,
				 "limit %s=%llu is above the %s hardware's %llu",
				 names[k], (unsigned long long)l->max[k],
				 p->name,
				 (unsigned long long)sefa_limit_hw(p, k));
			return -ERANGE;
		}
	}
	/* The providers never make an SQ shallower than this. */
	if (l->max[SEFA_LIMIT_SQ_DEPTH] &&
	    l->max[SEFA_LIMIT_SQ_DEPTH] < p->min_sq_wr) {
		snprintf(err, errlen,
			 "limit sq-depth=%llu is below the %u every SQ takes",
			 (unsigned long long)l->max[SEFA_LIMIT_SQ_DEPTH],
			 p->min_sq_wr);
		return -ERANGE;
	}
	return 0;
}

uint64_t sefa_limit_value(const struct sefa_limits *l,
			  const struct sefa_profile *p, enum sefa_limit k)
{
	return l->max[k] ? l->max[k] : sefa_limit_hw(p, k);
}
