/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One fault rule as the parser (rule.c) makes it and the table (table.c)
 * keeps it: what it matches, what it orders, and what it has done.
 */
#ifndef SEFA_SOFTEFA_DAEMON_FAULT_RULE_H
#define SEFA_SOFTEFA_DAEMON_FAULT_RULE_H

#include "fault/fault.h"

/* The longest rule text kept, and so the longest accepted. */
#define FAULT_TEXT_MAX		256

struct fault_rule {
	unsigned int id;
	char text[FAULT_TEXT_MAX];
	enum sefa_fault_action action;

	/* matchers: "any" is SEFA_FAULT_NO_DEV, SEFA_FAULT_NO_QPN, 0 */
	int dev;
	int peer_dev;
	uint32_t qpn;
	uint32_t peer_qpn;
	bool has_peer_gid;
	uint8_t peer_gid[16];
	enum sefa_fault_op op;
	enum sefa_fault_obj obj;
	uint64_t nth;
	uint64_t count;
	bool has_share;
	double share;			/* percent */
	bool has_seed;
	uint64_t seed;

	/* orders */
	struct sefa_fault_hit hit;
	uint64_t tries;			/* rnr: 0 = until cleared */

	/* what it has done, under the table's lock */
	uint64_t rng;			/* the share's draws */
	uint64_t seen;			/* matching packets or requests */
	uint64_t hits;
	bool spent;
	uint64_t cur_pkt;		/* rnr: the packet it refuses */
	uint64_t cur_tries;

	struct fault_rule *next;
};

/*
 * Parse @text into @r for a host of @ndev devices: 0, or -EINVAL with the
 * reason in @why.  The id and the seed's default are the caller's.
 */
int fault_rule_parse(struct fault_rule *r, const char *text,
		     unsigned int ndev, char *why, size_t why_len);

#endif
