// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ib_umad's files: umadN (agents, write() to send, read() to receive) and
 * issmN (holding it makes the port's IsSM capability bit true).
 *
 * A umad file is a connection like a uverbs one, plus a readiness socket
 * that holds one byte while MADs are queued (proto.h): the fd the process
 * polls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rdma/rdma_user_ioctl.h>

#include "mad/layer.h"

#define UMAD_MAX_AGENTS		32
#define HDR_OLD_SIZE		offsetof(struct ib_user_mad_hdr, pkey_index)

/*
 * What one file may make the daemon hold.  Receives past either queue
 * bound are dropped, as current kernels drop them past 200000 packets
 * (the byte bound is ours: a packet here may be a reassembled message of
 * MAD_MAX_MSG_LEN).  Sends still tracked (waiting for a response, or an
 * RMPP transfer for its ACKs; with retries and nobody answering that can
 * be long) are bounded likewise: past them write() fails with ENOMEM, as
 * ib_post_send_mad() does when the kernel cannot allocate.  Either kind
 * ends with its response, its timeout after the retries, or the file.
 */
#define UMAD_MAX_QUEUED		200000
#define UMAD_MAX_QUEUED_BYTES	(64U << 20)
#define UMAD_MAX_SENDS		1024
#define UMAD_MAX_SEND_BYTES	(64U << 20)

struct umad_file {
	struct sefa_client *c;
	struct sefa_mad_port *port;
	bool issm;
	bool use_pkey_index;		/* the 64-byte header */
	bool already_used;		/* an agent was registered */
	struct mad_agent *agent[UMAD_MAX_AGENTS];
	struct mad_recv *head;
	struct mad_recv **tail;
	unsigned int queued;
	size_t queued_bytes;
	struct sefa_event_file *ready;	/* the process's fd: readiness */
	bool token;			/* its byte is in */
};

static size_t hdr_size(const struct umad_file *f)
{
	return f->use_pkey_index ? sizeof(struct ib_user_mad_hdr) :
				   HDR_OLD_SIZE;
}

/* The readiness byte follows the queue: there while it is not empty. */
static void readiness(struct umad_file *f)
{
	uint8_t b = 1;

	if (f->head && !f->token)
		f->token = !sefa_event_send(f->ready, &b);
	else if (!f->head && f->token)
		f->token = recv(f->ready->peer_fd, &b, 1, MSG_DONTWAIT) != 1;
}

/* Queue @r for read(): bounded, as the kernel bounds its receive list. */
static void umad_queue(struct umad_file *f, struct mad_recv *r)
{
	if (f->queued >= UMAD_MAX_QUEUED ||
	    f->queued_bytes + r->len > UMAD_MAX_QUEUED_BYTES) {
		free(r);
		return;
	}
	r->next = NULL;
	if (!f->head)
		f->tail = &f->head;
	*f->tail = r;
	f->tail = &r->next;
	f->queued++;
	f->queued_bytes += r->len;
	readiness(f);
}

/* What an agent of a file receives, and its sends' timeouts: for read(). */
static void umad_deliver(struct mad_agent *agent, struct mad_recv *r,
			 const struct mad_pkt *pkt)
{
	(void)pkt;
	umad_queue(agent->file, r);
}

static void umad_timed_out(struct mad_agent *agent, struct mad_recv *r)
{
	umad_queue(agent->file, r);
}

static struct umad_file *file_new(struct sefa_client *c,
				  struct sefa_mad_port *port, bool issm)
{
	struct umad_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->c = c;
	f->port = port;
	f->issm = issm;
	f->tail = &f->head;
	return f;
}

static bool peer_gone(const struct sefa_client *c)
{
	struct pollfd pfd = { .fd = c->sock, .events = POLLRDHUP };

	return poll(&pfd, 1, 0) > 0 &&
	       (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

/*
 * issmN: one holder per port; the next opener waits for it to close (or
 * hears EAGAIN).  The daemon lock is let go while it waits.
 */
static int take_sm(struct sefa_client *c, struct sefa_mad_port *port,
		   bool nonblock)
{
	struct sefa_daemon *d = c->d;

	while (port->sm_holder) {
		struct timespec ts;

		if (nonblock)
			return -EAGAIN;
		if (peer_gone(c))
			return -EINTR;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 100 * 1000 * 1000;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		sefa_daemon_cond_timedwait(d, &d->sm_cond, &ts);
	}
	port->sm_holder = c->umad;
	port->dev->cap_mask |= SEFA_CAP_IS_SM;
	sefa_sysfs_port_update(d, port->dev);
	return 0;
}

/*
 * open() of umadN or issmN.  The daemon lock is let go while the
 * readiness fd is installed and while issmN waits for the port's holder:
 * the new file is nobody else's before the return, and the holder is
 * looked at again after each wait.
 */
int sefa_umad_open(struct sefa_client *c, unsigned int index, bool issm,
		   bool nonblock)
{
	struct sefa_daemon *d = c->d;
	struct sefa_mad_port *port;
	struct umad_file *f;
	int ret;

	if (index >= d->ndev || !d->dev[index].mad)
		return -ENXIO;
	port = d->dev[index].mad;
	f = file_new(c, port, issm);
	if (!f)
		return -ENOMEM;
	ret = issm ? 0 : sefa_event_file_new(c, SEFA_FD_UMAD_READY, 1,
						  &f->ready);
	if (ret)
		goto err_free;
	c->umad = f;
	if (!issm)
		return 0;
	ret = take_sm(c, port, nonblock);
	if (!ret)
		return 0;
	c->umad = NULL;
err_free:
	free(f);
	return ret;
}

static void agent_free(struct umad_file *f, unsigned int id)
{
	mad_agent_unregister(f->agent[id]);
	free(f->agent[id]);
	f->agent[id] = NULL;
}

/* close(): every agent goes, and what was queued for them. */
void sefa_umad_close(struct sefa_client *c)
{
	struct umad_file *f = c->umad;
	struct mad_recv *r;
	unsigned int i;

	if (!f)
		return;
	for (i = 0; i < UMAD_MAX_AGENTS; i++)
		if (f->agent[i])
			agent_free(f, i);
	while ((r = f->head)) {
		f->head = r->next;
		free(r);
	}
	if (f->port->sm_holder == f) {
		f->port->sm_holder = NULL;
		f->port->dev->cap_mask &= ~SEFA_CAP_IS_SM;
		sefa_sysfs_port_update(c->d, f->port->dev);
		pthread_cond_broadcast(&c->d->sm_cond);
	}
	sefa_event_file_free(f->ready);
	free(f);
	c->umad = NULL;
}

static int free_slot(const struct umad_file *f)
{
	unsigned int i;

	for (i = 0; i < UMAD_MAX_AGENTS; i++)
		if (!f->agent[i])
			return (int)i;
	return -ENOMEM;
}

/* Register @reg in the lowest free slot and tell the caller its id. */
static int add_agent(struct umad_file *f, const struct mad_reg *reg,
		     uint64_t id_addr)
{
	struct mad_agent *agent;
	int slot = free_slot(f), ret;
	uint32_t id;

	if (slot < 0)
		return sefa_refuse(f->c, slot, "%u agents on the file already",
				   UMAD_MAX_AGENTS);
	agent = calloc(1, sizeof(*agent));
	if (!agent)
		return -ENOMEM;
	agent->file = f;
	agent->id = slot;
	agent->handler = umad_deliver;
	agent->timed_out = umad_timed_out;
	ret = mad_agent_register(f->port, reg, agent);
	if (ret) {
		free(agent);
		return sefa_refuse(f->c, ret,
				   "class %#x version %u on QP %u: not allowed or taken",
				   reg->mgmt_class, reg->class_version, reg->qpn);
	}
	f->agent[slot] = agent;
	id = slot;
	ret = sefa_copy_to_user(f->c, id_addr, &id, sizeof(id));
	if (ret) {
		agent_free(f, slot);
		return ret;
	}
	return 0;
}

static void mask_from_longs(uint64_t mask[2], const packed_ulong *l)
{
	size_t i;

	memset(mask, 0, 2 * sizeof(uint64_t));
	for (i = 0; i < IB_USER_MAD_LONGS_PER_METHOD_MASK; i++)
		mask[i * sizeof(long) / 8] |= (uint64_t)l[i]
					      << (i * sizeof(long) * 8 % 64);
}

static int bad_qpn(const struct umad_file *f, unsigned int qpn)
{
	return sefa_refuse(f->c, -EINVAL, "QP %u is neither 0 nor 1", qpn);
}

static int reg_agent(struct umad_file *f, uint64_t arg)
{
	struct ib_user_mad_reg_req req;
	struct mad_reg reg = {};
	int ret;

	ret = sefa_copy_from_user(f->c, &req, arg, sizeof(req));
	if (ret)
		return ret;
	if (req.qpn > 1)
		return bad_qpn(f, req.qpn);
	reg.qpn = req.qpn;
	reg.mgmt_class = req.mgmt_class;
	reg.class_version = req.mgmt_class_version;
	reg.oui = (uint32_t)req.oui[0] << 16 | req.oui[1] << 8 | req.oui[2];
	mask_from_longs(reg.method_mask, req.method_mask);
	reg.rmpp_version = req.rmpp_version;
	ret = add_agent(f, &reg, arg + offsetof(struct ib_user_mad_reg_req, id));
	/* a first agent without ENABLE_PKEY keeps the 56-byte header */
	if (!ret)
		f->already_used = true;
	return ret;
}

static int reg_agent2(struct umad_file *f, uint64_t arg)
{
	struct ib_user_mad_reg_req2 req;
	struct mad_reg reg = {};
	uint32_t cap = IB_USER_MAD_REG_FLAGS_CAP;
	int ret;

	ret = sefa_copy_from_user(f->c, &req, arg, sizeof(req));
	if (ret)
		return ret;
	if (req.qpn > 1)
		return bad_qpn(f, req.qpn);
	if (req.flags & ~IB_USER_MAD_REG_FLAGS_CAP) {
		/* say what is supported, then refuse */
		ret = sefa_copy_to_user(f->c, arg +
					offsetof(struct ib_user_mad_reg_req2, flags),
					&cap, sizeof(cap));
		return ret ? ret : sefa_refuse(f->c, -EINVAL,
					       "flags %#x unknown (supported written back)",
					       req.flags);
	}
	if (req.oui & 0xff000000)
		return sefa_refuse(f->c, -EINVAL, "OUI %#x beyond 24 bits",
				   req.oui);
	reg.qpn = req.qpn;
	reg.mgmt_class = req.mgmt_class;
	reg.class_version = req.mgmt_class_version;
	reg.oui = req.oui;
	memcpy(reg.method_mask, req.method_mask, sizeof(reg.method_mask));
	reg.rmpp_version = req.rmpp_version;
	reg.flags = req.flags;
	ret = add_agent(f, &reg,
			arg + offsetof(struct ib_user_mad_reg_req2, id));
	if (!ret && !f->already_used) {
		f->already_used = true;
		f->use_pkey_index = true;
	}
	return ret;
}

static int no_agent(const struct umad_file *f, int err, uint32_t id)
{
	return sefa_refuse(f->c, err, "no agent %u on the file", id);
}

static int unreg_agent(struct umad_file *f, uint64_t arg)
{
	uint32_t id;
	int ret;

	ret = sefa_copy_from_user(f->c, &id, arg, sizeof(id));
	if (ret)
		return ret;
	if (id >= UMAD_MAX_AGENTS || !f->agent[id])
		return no_agent(f, -EINVAL, id);
	agent_free(f, id);
	return 0;
}

static int umad_ioctl(struct umad_file *f, uint64_t cmd, uint64_t arg)
{
	switch (cmd) {
	case IB_USER_MAD_REGISTER_AGENT:
		return reg_agent(f, arg);
	case IB_USER_MAD_REGISTER_AGENT2:
		return reg_agent2(f, arg);
	case IB_USER_MAD_UNREGISTER_AGENT:
		return unreg_agent(f, arg);
	case IB_USER_MAD_ENABLE_PKEY:
		if (f->already_used)
			return sefa_refuse(f->c, -EINVAL,
					   "an agent was registered already");
		f->use_pkey_index = true;
		return 0;
	default:
		return sefa_refuse(f->c, -ENOTTY, "not a umad ioctl");
	}
}

/* The umad ioctl requests by name, for the log; NULL for another one. */
const char *sefa_umad_ioctl_name(uint64_t request)
{
	switch (request) {
	case IB_USER_MAD_REGISTER_AGENT:
		return "REGISTER_AGENT";
	case IB_USER_MAD_REGISTER_AGENT2:
		return "REGISTER_AGENT2";
	case IB_USER_MAD_UNREGISTER_AGENT:
		return "UNREGISTER_AGENT";
	case IB_USER_MAD_ENABLE_PKEY:
		return "ENABLE_PKEY";
	default:
		return NULL;
	}
}

/*
 * read(): one queued MAD, header first.  Too small for the header or the
 * first segment is EINVAL; too small for a reassembled message is ENOSPC
 * with the needed length in the header.  Either way the MAD stays queued.
 */
static int64_t umad_read(struct umad_file *f, uint64_t buf, uint64_t count)
{
	struct mad_recv *r = f->head;
	size_t hs = hdr_size(f), n;
	struct ib_user_mad_hdr hdr;
	int ret;

	if (count < hs)
		return sefa_refuse(f->c, -EINVAL,
				   "buffer smaller than the %zu-byte header", hs);
	/* what a non-blocking read says when nothing came: the reader polls */
	if (!r)
		return sefa_routine(f->c, -EAGAIN);
	n = r->len < MAD_SIZE ? r->len : MAD_SIZE;
	if (count < hs + n)
		return sefa_refuse(f->c, -EINVAL,
				   "buffer smaller than header and MAD (%zu bytes)",
				   hs + n);
	hdr = r->hdr;
	if (!hdr.status)
		hdr.length = hs + r->len;
	if (count >= hs + r->len)
		n = r->len;
	ret = sefa_copy_to_user(f->c, buf, &hdr, hs);
	if (!ret)
		ret = sefa_copy_to_user(f->c, buf + hs, r->data, n);
	if (ret)
		return ret;
	/*
	 * The kernel's way to ask for a bigger buffer: the length is in the
	 * header, and libibumad's reader reads again with room for it.
	 */
	if (n < r->len)
		return sefa_routine(f->c, -ENOSPC);
	f->head = r->next;
	f->queued--;
	f->queued_bytes -= r->len;
	free(r);
	readiness(f);
	return hs + n;
}

/*
 * A second request with a TID and class still outstanding on this file,
 * or a second response to the same place, is refused.
 */
static bool is_duplicate(const struct umad_file *f, uint64_t tid,
			 const uint8_t *msg, const struct mad_addr *addr)
{
	bool resp = mad_is_response(msg);
	const struct mad_send *s;
	unsigned int i;

	for (i = 0; i < UMAD_MAX_AGENTS; i++) {
		if (!f->agent[i])
			continue;
		for (s = f->agent[i]->sends; s; s = s->next) {
			if (s->tid != tid || s->mgmt_class != msg[MAD_OFF_CLASS] ||
			    s->response != resp)
				continue;
			if (!resp || mad_send_went_to(s, addr->dlid, addr->grh,
						      addr->dgid))
				return true;
		}
	}
	return false;
}

static int parse_addr(const struct umad_file *f,
		      const struct ib_user_mad_hdr *hdr, struct mad_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->dlid = be16toh(hdr->lid);
	a->dst_qp = be32toh(hdr->qpn);
	a->sl = hdr->sl;
	a->pkey_index = f->use_pkey_index ? hdr->pkey_index : 0;
	if (!hdr->grh_present)
		return 0;
	/* the AH's source GID index must exist */
	if (hdr->gid_index >= SEFA_GID_TBL_LEN)
		return -EINVAL;
	a->grh = true;
	memcpy(a->dgid, hdr->gid, 16);
	return 0;
}

/* Room for one more send of @len bytes on the file, or ENOMEM. */
static int send_room(const struct umad_file *f, size_t len)
{
	unsigned int i, nsends = 0;
	size_t bytes = len;

	for (i = 0; i < UMAD_MAX_AGENTS; i++) {
		if (!f->agent[i])
			continue;
		nsends += f->agent[i]->nsends;
		bytes += f->agent[i]->send_bytes;
	}
	return nsends < UMAD_MAX_SENDS && bytes <= UMAD_MAX_SEND_BYTES ?
	       0 : -ENOMEM;
}

/* write(): one MAD, or one whole RMPP message for a kernel-RMPP agent. */
static int64_t umad_write(struct umad_file *f, uint64_t buf, uint64_t count)
{
	struct ib_user_mad_hdr hdr = {};
	size_t hs = hdr_size(f), len;
	struct mad_agent *agent;
	struct mad_addr addr;
	uint8_t *msg;
	int ret;

	if (count < hs + MAD_RMPP_HDR_LEN)
		return sefa_refuse(f->c, -EINVAL,
				   "shorter than the header and the RMPP header");
	ret = sefa_copy_from_user(f->c, &hdr, buf, hs);
	if (ret)
		return ret;
	if (hdr.id >= UMAD_MAX_AGENTS)
		return no_agent(f, -EINVAL, hdr.id);
	agent = f->agent[hdr.id];
	if (!agent)
		return no_agent(f, -EIO, hdr.id);
	ret = parse_addr(f, &hdr, &addr);
	if (ret)
		return sefa_refuse(f->c, ret, "no GID index %u", hdr.gid_index);
	len = count - hs;
	if (len > MAD_MAX_MSG_LEN)
		return sefa_refuse(f->c, -ENOMEM, "message above %u bytes",
				   MAD_MAX_MSG_LEN);
	ret = send_room(f, len);
	if (ret)
		return sefa_refuse(f->c, ret,
				   "%u sends or %u bytes outstanding on the file",
				   UMAD_MAX_SENDS, UMAD_MAX_SEND_BYTES);
	msg = malloc(len);
	if (!msg)
		return -ENOMEM;
	ret = sefa_copy_from_user(f->c, msg, buf + hs, len);
	if (ret)
		goto out;
	if (len < mad_data_offset(msg[MAD_OFF_CLASS])) {
		ret = sefa_refuse(f->c, -EINVAL, "shorter than class %#x's header",
				  msg[MAD_OFF_CLASS]);
		goto out;
	}
	/* user RMPP agents may repeat a TID for each segment they send */
	if (!(agent->flags & IB_USER_MAD_USER_RMPP &&
	      mad_is_rmpp_class(msg[MAD_OFF_CLASS]) &&
	      (msg[RMPP_OFF_RTIME_FLAGS] & RMPP_FLAG_ACTIVE)) &&
	    is_duplicate(f, mad_wire_tid(agent, msg), msg, &addr)) {
		ret = sefa_refuse(f->c, -EINVAL,
				  "TID and class still outstanding on the file");
		goto out;
	}
	ret = mad_send(agent, &hdr, &addr, msg, len, hdr.timeout_ms,
		       hdr.retries);
out:
	free(msg);
	return ret ? ret : (int64_t)count;
}

/* One system call on a umad or issm file, under the daemon lock. */
int64_t sefa_umad_call(struct sefa_client *c, const struct sefa_req *req)
{
	struct umad_file *f = c->umad;
	int64_t ret;

	if (f->issm) {
		/* issm has open and close, nothing else */
		return sefa_refuse(c, req->op == SEFA_OP_IOCTL ? -ENOTTY :
				      req->op == SEFA_OP_MMAP ? -ENODEV : -EINVAL,
				   "issm has open and close only");
	}
	switch (req->op) {
	case SEFA_OP_WRITE:
		ret = umad_write(f, req->addr, req->len);
		break;
	case SEFA_OP_READ:
		ret = umad_read(f, req->addr, req->len);
		break;
	case SEFA_OP_IOCTL:
		ret = umad_ioctl(f, req->arg, req->addr);
		break;
	case SEFA_OP_MMAP:
		ret = sefa_refuse(c, -ENODEV, "umad files do not map");
		break;
	default:
		ret = sefa_refuse(c, -EINVAL, "not a umad operation");
	}
	mad_run(c->d);
	return ret;
}
