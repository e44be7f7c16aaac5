// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The log line of a refused request (softefad(8), LOG): what was asked, by
 * name, the errno and why.  With --verbose every refusal is logged;
 * without it the first of each kind (what was asked, and the errno) on a
 * connection, for up to SEFA_LOGGED_KINDS kinds, so that a program that
 * fails without a word still leaves a trace.  An answer the client asked
 * for (sefa_routine()) is no refusal.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <rdma/ib_user_verbs.h>

#include "client.h"
#include "mad/mad.h"
#include "uverbs/uverbs.h"

/* "CREATE_QP", "ex CREATE_CQ", or the number */
static void write_cmd_str(char *buf, size_t len, uint32_t cmd)
{
	const char *name = sefa_write_cmd_name(cmd);

	if (!name)
		snprintf(buf, len, "%#x", cmd);
	else
		snprintf(buf, len, "%s%s",
			 cmd & IB_USER_VERBS_CMD_FLAG_EXTENDED ? "ex " : "",
			 name);
}

/* "CQ/CQ_CREATE", "DEVICE/INVOKE_WRITE QUERY_DEVICE", or numbers */
static void method_str(char *buf, size_t len, const struct sefa_req_note *n)
{
	const char *object = sefa_ioctl_object_name(n->object);
	const char *method = sefa_ioctl_method_name(n->object, n->method);
	char o[16], m[16], cmd[48] = "";

	if (!object)
		snprintf(o, sizeof(o), "%#x", n->object);
	if (!method)
		snprintf(m, sizeof(m), "%#x", n->method);
	if (n->has_cmd) {
		cmd[0] = ' ';
		write_cmd_str(cmd + 1, sizeof(cmd) - 1, n->cmd);
	}
	snprintf(buf, len, "%s/%s%s", object ? object : o, method ? method : m,
		 cmd);
}

static const char *op_name(uint32_t op)
{
	switch (op) {
	case SEFA_OP_WRITE:
		return "write";
	case SEFA_OP_READ:
		return "read";
	case SEFA_OP_IOCTL:
		return "ioctl";
	case SEFA_OP_MMAP:
		return "mmap";
	case SEFA_OP_FD_NUM:
		return "fd-number";
	default:
		return NULL;
	}
}

/*
 * "write CREATE_QP", "ioctl CQ/CQ_CREATE", "umad ioctl REGISTER_AGENT2":
 * as far as the request was decoded, numbers where a name is unknown.
 */
static void request_name(const struct sefa_client *c,
			 const struct sefa_req *req, char *buf, size_t len)
{
	const struct sefa_req_note *n = &c->note;
	const char *file = c->umad ? "umad " : "";
	const char *op = op_name(req->op);
	char what[96];

	if (!op) {
		snprintf(buf, len, "%srequest %u", file, req->op);
		return;
	}
	if (c->umad && req->op == SEFA_OP_IOCTL) {
		const char *name = sefa_umad_ioctl_name(req->arg);

		if (name)
			snprintf(buf, len, "umad ioctl %s", name);
		else
			snprintf(buf, len, "umad ioctl %#llx",
				 (unsigned long long)req->arg);
		return;
	}
	if (n->has_method)
		method_str(what, sizeof(what), n);
	else if (n->has_cmd)
		write_cmd_str(what, sizeof(what), n->cmd);
	else if (req->op == SEFA_OP_IOCTL)
		snprintf(what, sizeof(what), "%#llx",
			 (unsigned long long)req->arg);
	else
		what[0] = '\0';
	snprintf(buf, len, "%s%s%s%s", file, op, what[0] ? " " : "", what);
}

static struct sefa_refusal_kind kind_of(const struct sefa_client *c,
					const struct sefa_req *req, int err)
{
	const struct sefa_req_note *n = &c->note;
	struct sefa_refusal_kind k = {
		.op = req->op, .has_cmd = n->has_cmd,
		.has_method = n->has_method, .err = err,
	};

	if (n->has_cmd)
		k.cmd = n->cmd;
	else if (req->op == SEFA_OP_IOCTL)
		k.cmd = req->arg;
	if (n->has_method) {
		k.object = n->object;
		k.method = n->method;
	}
	return k;
}

static bool same_kind(const struct sefa_refusal_kind *a,
		      const struct sefa_refusal_kind *b)
{
	return a->op == b->op && a->cmd == b->cmd && a->object == b->object &&
	       a->method == b->method && a->has_cmd == b->has_cmd &&
	       a->has_method == b->has_method && a->err == b->err;
}

/*
 * Without --verbose: whether this kind is new on the connection and there
 * is room to log it; the first kind beyond the room says so, once.
 */
static bool first_of_kind(struct sefa_client *c, const struct sefa_req *req,
			  int err)
{
	struct sefa_refusal_kind k = kind_of(c, req, err);
	unsigned int i;

	for (i = 0; i < c->nlogged && i < SEFA_LOGGED_KINDS; i++)
		if (same_kind(&c->logged[i], &k))
			return false;
	if (c->nlogged > SEFA_LOGGED_KINDS)
		return false;
	if (c->nlogged == SEFA_LOGGED_KINDS) {
		c->nlogged++;
		fprintf(stderr,
			"softefad: pid %d: further refusals not logged (softefad --verbose logs them all)\n",
			(int)c->pid);
		return false;
	}
	c->logged[c->nlogged++] = k;
	return true;
}

/* dispatch(): @req failed with @err, a negative errno. */
void sefa_log_refusal(struct sefa_client *c, const struct sefa_req *req,
		      int err)
{
	const char *errname = strerrorname_np(-err);
	char name[160];

	if (c->note.routine == err)
		return;
	if (!c->d->verbose && !first_of_kind(c, req, err))
		return;
	request_name(c, req, name, sizeof(name));
	fprintf(stderr, "softefad: pid %d: refused %s: %s (%s)%s%s\n",
		(int)c->pid, name, errname ? errname : "?", strerror(-err),
		c->note.err == err ? ": " : "",
		c->note.err == err ? c->note.why : "");
}
