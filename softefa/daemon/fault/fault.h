/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The fault engine: rules that make the device fail on purpose, given at
 * start (--inject FILE) or to a running daemon (softefa inject), and asked
 * by the stages at the points where a fault applies.  A rule is an action
 * and matchers (softefa(8), FAULT INJECTION).
 *
 * This folder holds the rule parser (rule.c) and the rule table with its
 * matching, seeded shares and counters (table.c).  It includes only the
 * system's headers and its own: the stages that ask it (nic/, uverbs/, the
 * engine loop) include this header, never the other way round, and what a
 * fault does is the asking stage's business; the engine only says whether
 * and which rule fires.
 *
 * The table has its own lock, taken after any other: the stages ask with
 * the daemon lock or a device's held.  A daemon without a table (NULL)
 * has no rules.
 */
#ifndef SEFA_SOFTEFA_DAEMON_FAULT_FAULT_H
#define SEFA_SOFTEFA_DAEMON_FAULT_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sefa_fault_action {
	SEFA_FAULT_RNR,			/* responder: no receive posted */
	SEFA_FAULT_STATUS,		/* a WR's status; op=recv: a receive's */
	SEFA_FAULT_FAIL_CREATE,		/* a create command fails */
	SEFA_FAULT_EVENT,		/* an async event, when added */
	SEFA_FAULT_LOSS,		/* one-host delivery */
	SEFA_FAULT_DUP,
	SEFA_FAULT_REORDER,
	SEFA_FAULT_DELAY,
	SEFA_FAULT_BLACKHOLE,
	SEFA_FAULT_FREEZE,		/* the engine loop */
	SEFA_FAULT_NACTIONS,
};

#define SEFA_FAULT_BIT(action)	(1u << (action))

/* What a work request or packet is, for op=. */
enum sefa_fault_op {
	SEFA_FAULT_OP_ANY,
	SEFA_FAULT_OP_SEND,
	SEFA_FAULT_OP_RECV,
	SEFA_FAULT_OP_WRITE,
	SEFA_FAULT_OP_READ,
	SEFA_FAULT_OP_WRITE_IMM,
};

/* What a create command makes, for fail-create obj=. */
enum sefa_fault_obj {
	SEFA_FAULT_OBJ_NONE,
	SEFA_FAULT_OBJ_AH,
	SEFA_FAULT_OBJ_MR,
	SEFA_FAULT_OBJ_QP,
	SEFA_FAULT_OBJ_CQ,
	SEFA_FAULT_OBJ_PD,
	SEFA_FAULT_OBJ_CTX,
};

enum sefa_fault_event {
	SEFA_FAULT_EV_QP_FATAL,
	SEFA_FAULT_EV_CQ_ERROR,
	SEFA_FAULT_EV_PORT_DOWN,
	SEFA_FAULT_EV_PORT_UP,
	SEFA_FAULT_EV_DEVICE_FATAL,
};

#define SEFA_FAULT_NO_DEV	(-1)
#define SEFA_FAULT_NO_QPN	UINT32_MAX

/*
 * The point that asks: which actions it can carry out and what it knows
 * of the work.  Fields it does not know stay "none" (SEFA_FAULT_NO_DEV,
 * SEFA_FAULT_NO_QPN, NULL, OP_ANY, OBJ_NONE, 0); a rule whose matcher
 * needs one of them does not match.  sefa_fault_ctx_init() sets them so.
 */
struct sefa_fault_ctx {
	unsigned int actions;		/* SEFA_FAULT_BIT()s */
	int dev;			/* the device index */
	int peer_dev;			/* the other end's, on this host */
	uint32_t qpn;			/* the local QP */
	uint32_t peer_qpn;		/* the remote one */
	const uint8_t *peer_gid;	/* the remote end's GID: 16 bytes */
	enum sefa_fault_op op;
	enum sefa_fault_obj obj;
	/*
	 * Which packet this is, the same on every retry of it (not 0): an
	 * rnr rule with tries=N refuses one packet N times, then takes it.
	 */
	uint64_t pkt;
};

/* What a firing rule asks the point to do. */
struct sefa_fault_hit {
	unsigned int id;
	enum sefa_fault_action action;
	int status;			/* STATUS: an EFA completion status */
	int err;			/* FAIL_CREATE: a positive errno */
	enum sefa_fault_event event;	/* EVENT */
	uint64_t usec;			/* DELAY, FREEZE: 0 = until cleared */
	uint32_t qpn;			/* EVENT, when added: its qp= */
};

struct sefa_faults;

void sefa_fault_ctx_init(struct sefa_fault_ctx *what, unsigned int actions);

/* table.c */
/* A table for a host of @ndev devices: rules may name efa_0 to its last. */
int sefa_faults_new(unsigned int ndev, struct sefa_faults **out);
void sefa_faults_free(struct sefa_faults *f);
/*
 * Parse and add one rule, and log it with its seed; its id in @id.
 * -EINVAL for a bad rule, with the reason (naming the word) in @why.
 */
int sefa_fault_add(struct sefa_faults *f, const char *text, unsigned int *id,
		   char *why, size_t why_len);
/*
 * Every rule of a file, one per line, # comments and blank lines aside,
 * not logged (the start logs the list).  @why says where one was refused.
 */
int sefa_fault_add_file(struct sefa_faults *f, const char *path, char *why,
			size_t why_len);
/* Remove rule @id, or every rule with 0: -ENOENT if there is no such. */
int sefa_fault_clear(struct sefa_faults *f, unsigned int id);
/*
 * Whether a rule fires at this point: 1 with the first firing rule's
 * orders in @hit (counted), 0 if none does.
 */
int sefa_fault_match(struct sefa_faults *f, const struct sefa_fault_ctx *what,
		     struct sefa_fault_hit *hit);
/* Whether a rule of @actions (SEFA_FAULT_BIT()s) is there, not spent. */
bool sefa_fault_any(struct sefa_faults *f, unsigned int actions);
/*
 * Rules that fire for a moment, not for a packet (event, freeze): each is
 * handed to @fn once, when added, while @fn is registered, under the
 * table's lock.  @dev is the rule's dev=, or SEFA_FAULT_NO_DEV.
 */
void sefa_fault_on_add(struct sefa_faults *f,
		       void (*fn)(void *arg, const struct sefa_fault_hit *hit,
				  int dev),
		       void *arg);

/* The text of softefa inject list, and of the fault lines of stats. */
void sefa_fault_list_text(struct sefa_faults *f, char *buf, size_t len);
void sefa_fault_stats_text(struct sefa_faults *f, char *buf, size_t len);
/* Faults injected on device @dev, for its stats. */
uint64_t sefa_fault_dev_total(struct sefa_faults *f, int dev);

#endif
