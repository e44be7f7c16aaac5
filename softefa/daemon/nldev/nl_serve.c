// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A NETLINK_RDMA connection: each message the shim sends is what one
 * sendmsg() carried, taken apart here message by message as the kernel's
 * rdma_nl_rcv_skb() does, handed to its nldev command, and answered with
 * an NLMSG_ERROR where the kernel acknowledges or refuses.  The answers
 * are gathered under the daemon lock and sent after it, so a process that
 * does not read its socket holds up no one but itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "core/core.h"
#include "nldev/nl_local.h"

/* What the kernel takes in one sendmsg() on a netlink socket, about. */
#define NL_REQ_MAX	65536

/* nldev's commands that only CAP_NET_ADMIN may give. */
static bool admin_only(unsigned int op)
{
	switch (op) {
	case RDMA_NLDEV_CMD_SET:
	case RDMA_NLDEV_CMD_NEWLINK:
	case RDMA_NLDEV_CMD_DELLINK:
	case RDMA_NLDEV_CMD_SYS_SET:
	case RDMA_NLDEV_CMD_STAT_SET:
	case RDMA_NLDEV_CMD_STAT_DEL:
	case RDMA_NLDEV_CMD_RES_QP_GET_RAW:
	case RDMA_NLDEV_CMD_RES_CQ_GET_RAW:
	case RDMA_NLDEV_CMD_RES_MR_GET_RAW:
		return true;
	default:
		return false;
	}
}

/* Which commands can dump, as nldev registers them. */
static bool can_dump(unsigned int op)
{
	switch (op) {
	case RDMA_NLDEV_CMD_GET:
	case RDMA_NLDEV_CMD_PORT_GET:
	case RDMA_NLDEV_CMD_RES_GET:
	case RDMA_NLDEV_CMD_RES_QP_GET:
	case RDMA_NLDEV_CMD_RES_CM_ID_GET:
	case RDMA_NLDEV_CMD_RES_CQ_GET:
	case RDMA_NLDEV_CMD_RES_MR_GET:
	case RDMA_NLDEV_CMD_RES_PD_GET:
	case RDMA_NLDEV_CMD_STAT_GET:
	case RDMA_NLDEV_CMD_RES_CTX_GET:
	case RDMA_NLDEV_CMD_RES_SRQ_GET:
		return true;
	default:
		return false;
	}
}

static int command(struct nl_req *r, unsigned int op)
{
	switch (op) {
	case RDMA_NLDEV_CMD_GET:
		return nldev_get(r);
	case RDMA_NLDEV_CMD_PORT_GET:
		return nldev_port_get(r);
	case RDMA_NLDEV_CMD_SYS_GET:
		return nldev_sys_get(r);
	case RDMA_NLDEV_CMD_GET_CHARDEV:
		return nldev_get_chardev(r);
	case RDMA_NLDEV_CMD_STAT_GET:
		return nldev_stat_get(r);
	case RDMA_NLDEV_CMD_RES_GET:
		return nl_res_get(r);
	case RDMA_NLDEV_CMD_RES_QP_GET:
	case RDMA_NLDEV_CMD_RES_CM_ID_GET:
	case RDMA_NLDEV_CMD_RES_CQ_GET:
	case RDMA_NLDEV_CMD_RES_MR_GET:
	case RDMA_NLDEV_CMD_RES_PD_GET:
		return nl_res_obj_get(r, op);
	case RDMA_NLDEV_CMD_RES_CTX_GET:
	case RDMA_NLDEV_CMD_RES_SRQ_GET:
		/* no contexts listed one by one, and SoftEFA has no SRQs */
		return r->dump ? nl_done(r, 0) : -ENOENT;
	default:
		/* renaming, namespaces, counter binding: not SoftEFA's */
		return -EOPNOTSUPP;
	}
}

/*
 * One request, as rdma_nl_rcv_msg() takes it: nldev's client only, an
 * operation it has, the caller allowed; a dump only of a command that
 * dumps.  A dump that fails says so in its NLMSG_DONE.
 */
static int request(struct nl_req *r)
{
	unsigned int client = RDMA_NL_GET_CLIENT(r->hdr->nlmsg_type);
	unsigned int op = RDMA_NL_GET_OP(r->hdr->nlmsg_type);
	int ret;

	if (client != RDMA_NL_NLDEV || op >= RDMA_NLDEV_NUM_OPS)
		return -EINVAL;
	if (admin_only(op) && !r->admin)
		return -EPERM;
	r->dump = r->hdr->nlmsg_flags & NLM_F_DUMP;
	if (r->dump && !can_dump(op))
		return -EINVAL;
	ret = nl_parse(r);
	if (!ret)
		ret = command(r, op);
	if (r->dump && ret < 0 && ret != -EPIPE)
		ret = nl_done(r, ret);
	return ret;
}

/*
 * NLMSG_ERROR: @err for the request @hdr (0 acknowledges it).  A refusal
 * carries the whole request after it; an acknowledgement only its header.
 */
static int nl_ack(const struct sefa_nl_sink *out, const struct nlmsghdr *hdr,
		  size_t hdr_len, int err)
{
	size_t body = err ? hdr_len : sizeof(*hdr);
	size_t len = NLMSG_HDRLEN + sizeof(int) + body;
	struct nlmsghdr ack = {
		.nlmsg_len = len,
		.nlmsg_type = NLMSG_ERROR,
		.nlmsg_flags = err ? 0 : NLM_F_CAPPED,
		.nlmsg_seq = hdr->nlmsg_seq,
	};
	uint8_t *msg = calloc(1, len);
	int ret;

	if (!msg)
		return -ENOMEM;
	memcpy(msg, &ack, sizeof(ack));
	memcpy(msg + NLMSG_HDRLEN, &err, sizeof(err));
	memcpy(msg + NLMSG_HDRLEN + sizeof(int), hdr, body);
	ret = out->emit(out->ctx, msg, len) ? -EPIPE : 0;
	free(msg);
	return ret;
}

/*
 * Where the kernel stops without a word at a message whose length is
 * short or runs past what was sent, SoftEFA answers -EINVAL, so that no
 * process waits for an answer that never comes; a fragment too short for
 * a header is answered with what of a header there was.
 */
static int malformed(const struct sefa_nl_sink *out, const uint8_t *p,
		     size_t rem)
{
	struct nlmsghdr hdr = { 0 };

	memcpy(&hdr, p, rem < sizeof(hdr) ? rem : sizeof(hdr));
	return nl_ack(out, &hdr, sizeof(hdr), -EINVAL);
}

static int input(struct sefa_daemon *d, bool admin, const uint8_t *p,
		 size_t rem, const struct sefa_nl_sink *out)
{
	struct nl_req r = { .d = d, .admin = admin, .out = out };
	const struct nlmsghdr *hdr;
	size_t step;
	int err;

	while (rem) {
		hdr = (const struct nlmsghdr *)p;
		if (rem < NLMSG_HDRLEN || hdr->nlmsg_len < NLMSG_HDRLEN ||
		    hdr->nlmsg_len > rem)
			return malformed(out, p, rem);
		err = 0;
		r.dump = false;
		/* only requests are the kernel's to answer; skip controls */
		if ((hdr->nlmsg_flags & NLM_F_REQUEST) &&
		    hdr->nlmsg_type >= NLMSG_MIN_TYPE) {
			r.hdr = hdr;
			err = request(&r);
			if (err == -EPIPE)
				return err;
			if (r.dump && err >= 0)
				goto next;
		}
		if (((hdr->nlmsg_flags & NLM_F_ACK) || err) &&
		    nl_ack(out, hdr, hdr->nlmsg_len, err))
			return -EPIPE;
next:
		step = NLMSG_ALIGN(hdr->nlmsg_len);
		if (step >= rem)
			break;
		p += step;
		rem -= step;
	}
	return 0;
}

int sefa_netlink_input(struct sefa_daemon *d, bool admin, const void *buf,
		       size_t len, const struct sefa_nl_sink *out)
{
	int ret;

	if (!len)
		return 0;
	sefa_daemon_lock(d);
	ret = input(d, admin, buf, len, out);
	sefa_daemon_unlock(d);
	return ret;
}

/* The answers to one sendmsg(), kept until the lock is let go. */
struct answers {
	uint8_t *buf;
	size_t len, cap;
};

static int keep(void *ctx, const void *msg, size_t len)
{
	struct answers *a = ctx;
	size_t need = a->len + sizeof(uint32_t) + len;
	uint32_t n = len;
	uint8_t *grown;

	if (need > a->cap) {
		grown = realloc(a->buf, need * 2);
		if (!grown)
			return -ENOMEM;
		a->buf = grown;
		a->cap = need * 2;
	}
	memcpy(a->buf + a->len, &n, sizeof(n));
	memcpy(a->buf + a->len + sizeof(n), msg, len);
	a->len = need;
	return 0;
}

static int send_answers(int sock, const struct answers *a)
{
	size_t at = 0;
	uint32_t n;

	while (at < a->len) {
		memcpy(&n, a->buf + at, sizeof(n));
		at += sizeof(n);
		if (send(sock, a->buf + at, n, MSG_NOSIGNAL) != (ssize_t)n)
			return -EPIPE;
		at += n;
	}
	return 0;
}

void sefa_netlink_serve(struct sefa_client *c, bool admin)
{
	struct answers a = { 0 };
	struct sefa_nl_sink out = { .emit = keep, .ctx = &a };
	uint8_t *buf = malloc(NL_REQ_MAX);
	ssize_t n;
	int ret;

	if (!buf)
		return;
	for (;;) {
		n = recv(c->sock, buf, NL_REQ_MAX, MSG_TRUNC);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		a.len = 0;
		/* beyond what the kernel would take: refuse the lot */
		ret = n > NL_REQ_MAX ?
		      malformed(&out, buf, 0) :
		      sefa_netlink_input(c->d, admin, buf, n, &out);
		if (ret || send_answers(c->sock, &a))
			break;
	}
	free(a.buf);
	free(buf);
}
