// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fault rule parser: words "action" or "key=value", separated by
 * blanks, one action per rule.  Every word is checked; a bad one is
 * named in the reason, so that softefa inject and --inject can say
 * which.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "efa/efa_ext_abi.h"
#include "efa/efa_io_defs.h"
#include "fault/rule.h"

/* The longest wait a delay or freeze may ask for: an hour, in us. */
#define FAULT_USEC_MAX		3600000000ULL
/* QP numbers are 24 bits wide on the wire. */
#define FAULT_QPN_MAX		0xffffffu

struct name_val {
	const char *name;
	int val;
};

static const struct name_val action_names[] = {
	{ "rnr", SEFA_FAULT_RNR },
	{ "fail-create", SEFA_FAULT_FAIL_CREATE },
	{ "event", SEFA_FAULT_EVENT },
	{ "loss", SEFA_FAULT_LOSS },
	{ "dup", SEFA_FAULT_DUP },
	{ "reorder", SEFA_FAULT_REORDER },
	{ "delay", SEFA_FAULT_DELAY },
	{ "blackhole", SEFA_FAULT_BLACKHOLE },
	{ "freeze", SEFA_FAULT_FREEZE },
	{ NULL, 0 }
};

static const struct name_val op_names[] = {
	{ "any", SEFA_FAULT_OP_ANY },
	{ "send", SEFA_FAULT_OP_SEND },
	{ "recv", SEFA_FAULT_OP_RECV },
	{ "write", SEFA_FAULT_OP_WRITE },
	{ "read", SEFA_FAULT_OP_READ },
	{ "write-imm", SEFA_FAULT_OP_WRITE_IMM },
	{ NULL, 0 }
};

static const struct name_val obj_names[] = {
	{ "ah", SEFA_FAULT_OBJ_AH },
	{ "mr", SEFA_FAULT_OBJ_MR },
	{ "qp", SEFA_FAULT_OBJ_QP },
	{ "cq", SEFA_FAULT_OBJ_CQ },
	{ "pd", SEFA_FAULT_OBJ_PD },
	{ "ctx", SEFA_FAULT_OBJ_CTX },
	{ NULL, 0 }
};

static const struct name_val event_names[] = {
	{ "qp-fatal", SEFA_FAULT_EV_QP_FATAL },
	{ "cq-error", SEFA_FAULT_EV_CQ_ERROR },
	{ "port-down", SEFA_FAULT_EV_PORT_DOWN },
	{ "port-up", SEFA_FAULT_EV_PORT_UP },
	{ "device-fatal", SEFA_FAULT_EV_DEVICE_FATAL },
	{ NULL, 0 }
};

/*
 * A status rule names the ibv_wc_status a client is to see; the device
 * writes an EFA completion status, and these are the ones libefa reports
 * as each name.  Names that no EFA status gives are refused (-1).
 * "general" is a status no EFA device defines, which libefa reports as
 * IBV_WC_GENERAL_ERR; "retry-exc" is SoftEFA's own status of an RC QP
 * whose retries ran out.
 */
#define STATUS_GENERAL		255

static const struct name_val status_names[] = {
	{ "loc-len", EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH },
	{ "loc-qp-op", EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR },
	{ "loc-eec-op", -1 },
	{ "loc-prot", EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY },
	{ "wr-flush", EFA_IO_COMP_STATUS_FLUSHED },
	{ "mw-bind", -1 },
	{ "bad-resp", EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_STATUS },
	{ "loc-access", -1 },
	{ "rem-inv-req", EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH },
	{ "rem-access", EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS },
	{ "rem-op", EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER },
	{ "retry-exc", SEFA_IO_COMP_STATUS_REMOTE_ERROR_RETRY_EXC },
	{ "rnr-retry-exc", EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR },
	{ "loc-rdd-viol", -1 },
	{ "rem-inv-rd-req", EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN },
	{ "rem-abort", EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT },
	{ "inv-eecn", -1 },
	{ "inv-eec-state", -1 },
	{ "fatal", -1 },
	{ "resp-timeout", EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE },
	{ "general", STATUS_GENERAL },
	{ NULL, 0 }
};

/*
 * The statuses a receive completes with on EFA: its own errors.  The
 * remote ones are a requester's, and a flush follows an error rather than
 * being one.
 */
static bool recv_status(int status)
{
	return status == EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH ||
	       status == EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR ||
	       status == EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY ||
	       status == STATUS_GENERAL;
}

static const char *status_name(int status)
{
	const struct name_val *t;

	for (t = status_names; t->name; t++)
		if (t->val == status)
			return t->name;
	return "?";
}

/* What a failed create command may return, by name. */
static const struct name_val errno_names[] = {
	{ "ENOMEM", ENOMEM }, { "EINVAL", EINVAL }, { "ENOSPC", ENOSPC },
	{ "EAGAIN", EAGAIN }, { "EBUSY", EBUSY }, { "EPERM", EPERM },
	{ "EACCES", EACCES }, { "EFAULT", EFAULT }, { "EIO", EIO },
	{ "ENODEV", ENODEV }, { "ENXIO", ENXIO }, { "ENOENT", ENOENT },
	{ "EMFILE", EMFILE }, { "ENFILE", ENFILE }, { "ENOBUFS", ENOBUFS },
	{ "EOPNOTSUPP", EOPNOTSUPP }, { "EOVERFLOW", EOVERFLOW },
	{ "ETIMEDOUT", ETIMEDOUT }, { "E2BIG", E2BIG }, { "EEXIST", EEXIST },
	{ NULL, 0 }
};

/* The keys, each given at most once. */
enum key {
	K_DEV, K_PEER_DEV, K_QP, K_PEER, K_PEER_GID, K_OP, K_NTH, K_SHARE,
	K_SEED, K_COUNT, K_TRIES, K_OBJ, K_ERRNO, K_TYPE, K_USEC, K_STATUS,
	K_NKEYS,
};

static const char *const key_names[K_NKEYS] = {
	[K_DEV] = "dev", [K_PEER_DEV] = "peer-dev", [K_QP] = "qp",
	[K_PEER] = "peer", [K_PEER_GID] = "peer-gid", [K_OP] = "op",
	[K_NTH] = "nth", [K_SHARE] = "share", [K_SEED] = "seed",
	[K_COUNT] = "count", [K_TRIES] = "tries", [K_OBJ] = "obj",
	[K_ERRNO] = "errno", [K_TYPE] = "type", [K_USEC] = "usec",
	[K_STATUS] = "status",
};

/* What each key takes, for the reason a value is refused. */
static const char *const key_takes[K_NKEYS] = {
	[K_DEV] = "efa_N, a device of this host",
	[K_PEER_DEV] = "efa_N, a device of this host",
	[K_QP] = "a QP number, 0 to 16777215",
	[K_PEER] = "a QP number, 0 to 16777215",
	[K_PEER_GID] = "a GID such as fe80::1",
	[K_OP] = "send, recv, write, read, write-imm or any",
	[K_NTH] = "a number from 1",
	[K_SHARE] = "a percentage above 0, at most 100",
	[K_SEED] = "a number from 0",
	[K_COUNT] = "a number from 1",
	[K_TRIES] = "a number from 1 to 4294967295",
	[K_OBJ] = "ah, mr, qp, cq, pd or ctx",
	[K_ERRNO] = "an errno name such as ENOMEM",
	[K_TYPE] = "qp-fatal, cq-error, port-down, port-up or device-fatal",
	[K_USEC] = "microseconds, 1 to 3600000000",
	[K_STATUS] = "a completion status an EFA device gives: loc-len, loc-qp-op, loc-prot, wr-flush, bad-resp, rem-inv-req, rem-access, rem-op, retry-exc, rnr-retry-exc, rem-inv-rd-req, rem-abort, resp-timeout or general",
};

static int bad(char *why, size_t why_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int bad(char *why, size_t why_len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, why_len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int lookup(const struct name_val *t, const char *name, bool nocase)
{
	for (; t->name; t++)
		if (nocase ? !strcasecmp(t->name, name) : !strcmp(t->name, name))
			return t->val;
	return -1;
}

static int find_key(const char *key, size_t len)
{
	int k;

	for (k = 0; k < K_NKEYS; k++)
		if (strlen(key_names[k]) == len &&
		    !strncmp(key_names[k], key, len))
			return k;
	return -1;
}

/* A whole decimal word in [min, max]. */
static int number(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

/* efa_N, N a device of this host. */
static int device(const char *s, unsigned int ndev, int *out)
{
	uint64_t n;

	if (strncmp(s, "efa_", 4) || number(s + 4, 0, ndev ? ndev - 1 : 0, &n) ||
	    !ndev)
		return -EINVAL;
	*out = (int)n;
	return 0;
}

static int share(const char *s, double *out)
{
	char *end;
	double v;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -EINVAL;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v <= 0 || v > 100)
		return -EINVAL;
	*out = v;
	return 0;
}

static int value(struct fault_rule *r, int k, const char *v, unsigned int ndev)
{
	uint64_t n;
	int x;

	switch (k) {
	case K_DEV:
		return device(v, ndev, &r->dev);
	case K_PEER_DEV:
		return device(v, ndev, &r->peer_dev);
	case K_QP:
	case K_PEER:
		if (number(v, 0, FAULT_QPN_MAX, &n))
			return -EINVAL;
		*(k == K_QP ? &r->qpn : &r->peer_qpn) = (uint32_t)n;
		return 0;
	case K_PEER_GID:
		r->has_peer_gid = true;
		return inet_pton(AF_INET6, v, r->peer_gid) == 1 ? 0 : -EINVAL;
	case K_OP:
		x = lookup(op_names, v, false);
		r->op = x;
		return x < 0 ? -EINVAL : 0;
	case K_NTH:
		return number(v, 1, UINT64_MAX, &r->nth);
	case K_COUNT:
		return number(v, 1, UINT64_MAX, &r->count);
	case K_TRIES:
		return number(v, 1, UINT32_MAX, &r->tries);
	case K_SHARE:
		r->has_share = true;
		return share(v, &r->share);
	case K_SEED:
		r->has_seed = true;
		return number(v, 0, UINT64_MAX, &r->seed);
	case K_OBJ:
		x = lookup(obj_names, v, false);
		r->obj = x;
		return x < 0 ? -EINVAL : 0;
	case K_ERRNO:
		x = lookup(errno_names, v, true);
		r->hit.err = x;
		return x < 0 ? -EINVAL : 0;
	case K_TYPE:
		x = lookup(event_names, v, false);
		r->hit.event = x;
		return x < 0 ? -EINVAL : 0;
	case K_USEC:
		return number(v, 1, FAULT_USEC_MAX, &r->hit.usec);
	default:	/* K_STATUS */
		x = lookup(status_names, v, false);
		r->hit.status = x;
		return x < 0 ? -EINVAL : 0;
	}
}

/* Which keys each action takes, besides the matchers every rule may have. */
static unsigned int action_keys(enum sefa_fault_action a)
{
	switch (a) {
	case SEFA_FAULT_RNR:
		return 1u << K_TRIES;
	case SEFA_FAULT_STATUS:
		return 1u << K_STATUS;
	case SEFA_FAULT_FAIL_CREATE:
		return 1u << K_OBJ | 1u << K_ERRNO;
	case SEFA_FAULT_EVENT:
		return 1u << K_TYPE;
	case SEFA_FAULT_DELAY:
	case SEFA_FAULT_FREEZE:
		return 1u << K_USEC;
	default:
		return 0;
	}
}

#define MATCHER_KEYS	(1u << K_DEV | 1u << K_PEER_DEV | 1u << K_QP | \
			 1u << K_PEER | 1u << K_PEER_GID | 1u << K_OP | \
			 1u << K_NTH | 1u << K_SHARE | 1u << K_SEED | \
			 1u << K_COUNT)

/* What each action needs, and what makes no sense together. */
static int check(const struct fault_rule *r, unsigned int given, char *why,
		 size_t why_len)
{
	const char *name = "status";
	unsigned int extra = given & ~(MATCHER_KEYS | action_keys(r->action));
	const struct name_val *a;
	int k;

	for (a = action_names; a->name; a++)
		if (a->val == (int)r->action)
			name = a->name;
	for (k = 0; k < K_NKEYS; k++)
		if (extra & (1u << k))
			return bad(why, why_len, "'%s' is no key of %s",
				   key_names[k], name);
	if (r->action == SEFA_FAULT_FAIL_CREATE && !(given & 1u << K_OBJ))
		return bad(why, why_len, "fail-create needs obj=ah|mr|qp|cq|pd|ctx");
	if (r->action == SEFA_FAULT_EVENT && !(given & 1u << K_TYPE))
		return bad(why, why_len,
			   "event needs type=qp-fatal|cq-error|port-down|port-up|device-fatal");
	if (r->action == SEFA_FAULT_DELAY && !(given & 1u << K_USEC))
		return bad(why, why_len, "delay needs usec=N");
	if (r->action == SEFA_FAULT_BLACKHOLE && !r->has_peer_gid &&
	    (r->dev == SEFA_FAULT_NO_DEV || r->peer_dev == SEFA_FAULT_NO_DEV))
		return bad(why, why_len,
			   "blackhole needs peer-gid=GID or dev=A peer-dev=B");
	if (r->action == SEFA_FAULT_STATUS && r->op == SEFA_FAULT_OP_RECV &&
	    !recv_status(r->hit.status))
		return bad(why, why_len,
			   "a receive completes with loc-len, loc-qp-op, loc-prot or general, not status=%s",
			   status_name(r->hit.status));
	if ((given & 1u << K_SEED) && !(given & 1u << K_SHARE))
		return bad(why, why_len, "seed= goes with share=");
	return 0;
}

int fault_rule_parse(struct fault_rule *r, const char *text,
		     unsigned int ndev, char *why, size_t why_len)
{
	char words[FAULT_TEXT_MAX], *save, *w;
	unsigned int given = 0;
	bool has_action = false;
	size_t off = 0;

	memset(r, 0, sizeof(*r));
	r->dev = SEFA_FAULT_NO_DEV;
	r->peer_dev = SEFA_FAULT_NO_DEV;
	r->qpn = SEFA_FAULT_NO_QPN;
	r->peer_qpn = SEFA_FAULT_NO_QPN;
	r->hit.err = ENOMEM;
	if (strlen(text) >= sizeof(words))
		return bad(why, why_len, "a rule is at most %d characters",
			   FAULT_TEXT_MAX - 1);
	strcpy(words, text);
	for (w = strtok_r(words, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		const char *eq = strchr(w, '=');
		int k, a;

		/* The text kept: the words, one blank apart. */
		off += snprintf(r->text + off, sizeof(r->text) - off, "%s%s",
				off ? " " : "", w);
		if (!eq) {
			a = lookup(action_names, w, false);
			if (a < 0)
				return bad(why, why_len, "unknown word '%s'", w);
			if (has_action)
				return bad(why, why_len,
					   "'%s': a rule has one action", w);
			has_action = true;
			r->action = a;
			continue;
		}
		k = find_key(w, eq - w);
		if (k < 0)
			return bad(why, why_len, "unknown key in '%s'", w);
		if (given & (1u << k))
			return bad(why, why_len, "'%s' given twice",
				   key_names[k]);
		given |= 1u << k;
		if (k == K_STATUS) {
			if (has_action)
				return bad(why, why_len,
					   "'%s': a rule has one action", w);
			has_action = true;
			r->action = SEFA_FAULT_STATUS;
		}
		if (value(r, k, eq + 1, ndev))
			return bad(why, why_len, "bad value in '%s': %s takes %s",
				   w, key_names[k], key_takes[k]);
	}
	if (!has_action)
		return bad(why, why_len,
			   "no action (rnr, status=, fail-create, event, loss, dup, reorder, delay, blackhole, freeze)");
	r->hit.action = r->action;
	return check(r, given, why, why_len);
}
