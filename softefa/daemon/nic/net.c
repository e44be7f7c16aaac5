// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire between hosts: one UDP socket per device, bound to port 4791 of
 * the device's GID, which the daemon adds to its network interface as an
 * IPv6 address.  A packet for a GID of another host goes to that address,
 * and the host's routes and neighbour discovery take it there, as RoCE's
 * do.  What each daemon sends may be lost, sent twice, held back behind
 * later packets or delayed, as asked with --wire-*: the faults a fabric has.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

#define ROCE_PORT	4791
#define RX_BATCH	16
#define SEEN_MAX	256
/* A MAD waits this long for the SM's word on its DLID. */
#define LID_WAIT_NS	(10 * 1000 * 1000ULL)

/* ff02::5efa, link scope */
static const uint8_t lid_group[16] = {
	0xff, 0x02, [14] = 0x5e, [15] = 0xfa,
};
/* A packet held back for reordering waits this long after the delay. */
#define REORDER_NS	(200 * 1000)
#define SOCK_BUF	(8 << 20)

/*
 * A packet held back: by the fault injection until @due_ns, to @to; or,
 * a MAD, until the answer about @lid gives it an address or @due_ns
 * passes and it is lost (lid_wait()).
 */
struct held_pkt {
	struct held_pkt *next;
	uint64_t due_ns;
	int fd;
	struct sockaddr_in6 to;
	uint16_t lid;
	size_t len;
	uint8_t data[];
};

#define LID_WAITS_MAX	64

struct nic_net {
	int fd[SEFA_MAX_DEVICES];
	bool added[SEFA_MAX_DEVICES];	/* the GID was ours to add */
	int mc_fd;			/* the LID queries of the link */
	struct nic_lids *lids;
	uint8_t sm_said[16];		/* this host's SM's word on a LID */
	bool said_hello;		/* lid_hello() */
	struct held_pkt *waits;		/* MADs for a LID asked for */
	unsigned int nwaits;
	uint64_t rng;
	struct held_pkt *held;		/* by due time */
	/* GIDs that answered or asked something, newest last, a ring. */
	uint8_t seen[SEEN_MAX][16];
	unsigned int nseen;
	/*
	 * After a nap, the sockets it found readable (bit i: device i, bit
	 * ndev: the LID queries'): the next pass reads only those.
	 */
	bool napped;
	uint32_t ready;
	uint8_t tx[NIC_FRAME_MAX];
	uint8_t rx[RX_BATCH][NIC_FRAME_MAX];
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* xorshift64*: the faults need only be unpredictable, not secret. */
static unsigned int rand_pct(struct nic_net *n)
{
	n->rng ^= n->rng >> 12;
	n->rng ^= n->rng << 25;
	n->rng ^= n->rng >> 27;
	return (n->rng * 0x2545f4914f6cdd1dULL >> 32) % 100;
}

static void gid_sockaddr(const struct sefa_daemon *d, const uint8_t gid[16],
			 struct sockaddr_in6 *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin6_family = AF_INET6;
	sa->sin6_port = htons(ROCE_PORT);
	if (gid)
		memcpy(&sa->sin6_addr, gid, 16);
	sa->sin6_scope_id = d->netdev.ifindex;
}

/*
 * A socket on port 4791 of @gid, or of any address (the LID queries).
 * Both kinds share the port: the kernel gives a packet to the socket of
 * its destination address, and only multicast to the other.
 */
static int device_socket(struct sefa_daemon *d, const uint8_t gid[16])
{
	int fd, one = 1, size = SOCK_BUF;
	struct sockaddr_in6 sa;

	fd = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Bursts of packets must not overflow the default buffers. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	gid_sockaddr(d, gid, &sa);
	if (!gid)
		memset(&sa.sin6_addr, 0, sizeof(sa.sin6_addr));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

static int lid_socket(struct sefa_daemon *d)
{
	struct ipv6_mreq mr = { .ipv6mr_interface = d->netdev.ifindex };
	int fd = device_socket(d, NULL);

	if (fd < 0)
		return fd;
	memcpy(&mr.ipv6mr_multiaddr, lid_group, 16);
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

/* A copy of @len bytes of @buf to hold until @due_ns, or NULL. */
static struct held_pkt *held_new(uint64_t due_ns, int fd, const void *buf,
				 size_t len)
{
	struct held_pkt *h = calloc(1, sizeof(*h) + len);

	if (!h)
		return NULL;
	h->due_ns = due_ns;
	h->fd = fd;
	h->len = len;
	memcpy(h->data, buf, len);
	return h;
}

static void held_free(struct held_pkt *h)
{
	struct held_pkt *next;

	for (; h; h = next) {
		next = h->next;
		free(h);
	}
}

void sefa_net_close(struct sefa_daemon *d)
{
	struct nic_net *n = d->net;
	unsigned int i;

	if (!n)
		return;
	if (n->mc_fd >= 0)
		close(n->mc_fd);
	for (i = 0; i < d->ndev; i++) {
		if (n->fd[i] >= 0)
			close(n->fd[i]);
		if (n->added[i])
			sefa_netdev_gid_del(&d->netdev, d->dev[i].gid);
	}
	held_free(n->held);
	held_free(n->waits);
	nic_lids_free(n->lids);
	free(n);
	d->net = NULL;
}

/*
 * The wire's state with no socket yet: what nic_net_deliver() needs, so
 * that the wire fuzz harness feeds it datagrams as the sockets would.
 * sefa_net_close() frees it.
 */
int sefa_net_new(struct sefa_daemon *d)
{
	struct nic_net *n = calloc(1, sizeof(*n));
	unsigned int i;
	int ret;

	if (!n)
		return -ENOMEM;
	for (i = 0; i < SEFA_MAX_DEVICES; i++)
		n->fd[i] = -1;
	n->mc_fd = -1;
	n->rng = (mono_ns() ^ (uint64_t)getpid() << 32) | 1;
	d->net = n;
	ret = nic_lids_new(&n->lids);
	if (ret)
		sefa_net_close(d);
	return ret;
}

int sefa_net_open(struct sefa_daemon *d)
{
	struct nic_net *n;
	unsigned int i;
	int ret;

	ret = sefa_net_new(d);
	if (ret)
		return ret;
	n = d->net;
	for (i = 0; i < d->ndev; i++) {
		ret = sefa_netdev_gid_add(&d->netdev, d->dev[i].gid,
					  &n->added[i]);
		if (ret)
			goto err;
		ret = device_socket(d, d->dev[i].gid);
		if (ret < 0)
			goto err;
		n->fd[i] = ret;
	}
	ret = lid_socket(d);
	if (ret < 0)
		goto err;
	n->mc_fd = ret;
	return 0;
err:
	sefa_net_close(d);
	return ret;
}

static void send_now(struct sefa_daemon *d, int fd,
		     const struct sockaddr_in6 *to, const void *buf, size_t len)
{
	if (sendto(fd, buf, len, 0, (const struct sockaddr *)to,
		   sizeof(*to)) != (ssize_t)len) {
		d->wire_cnt.tx_errors++;
		return;
	}
	d->wire_cnt.tx_pkts++;
}

static int hold(struct nic_net *n, uint64_t due_ns, int fd,
		const struct sockaddr_in6 *to, const void *buf, size_t len)
{
	struct held_pkt *h = held_new(due_ns, fd, buf, len), **pp;

	if (!h)
		return -ENOMEM;
	h->to = *to;
	for (pp = &n->held; *pp && (*pp)->due_ns <= due_ns; pp = &(*pp)->next)
		;
	h->next = *pp;
	*pp = h;
	return 0;
}

/* n->tx onto the network, through the faults asked for. */
static void send_faulty(struct sefa_daemon *d, uint64_t now, int fd,
			const struct sockaddr_in6 *to, size_t len)
{
	const struct sefa_wire_opts *o = &d->wire;
	struct nic_net *n = d->net;
	uint64_t delay = o->delay_us * 1000ULL;
	unsigned int copies = 1;

	if (o->loss && rand_pct(n) < o->loss) {
		d->wire_cnt.lost++;
		return;
	}
	if (o->dup && rand_pct(n) < o->dup) {
		d->wire_cnt.dups++;
		copies = 2;
	}
	if (o->reorder && rand_pct(n) < o->reorder) {
		d->wire_cnt.reordered++;
		delay += REORDER_NS;
	}
	while (copies--) {
		if (!delay || hold(n, now + delay, fd, to, n->tx, len))
			send_now(d, fd, to, n->tx, len);
	}
}

static void put_be16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static void put_be64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static uint16_t get_be16(const uint8_t *p)
{
	return p[0] << 8 | p[1];
}

static uint64_t get_be64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

/* SoftEFA's own small packets: BTH, LID, id and GID (or zero), ICRC. */
static void lid_pkt(uint8_t *buf, uint8_t op, uint16_t lid, uint64_t tid,
		    const uint8_t *gid)
{
	memset(buf, 0, NIC_LID_PKT_LEN);
	buf[0] = op;
	buf[2] = buf[3] = 0xff;		/* the default P_Key */
	put_be16(buf + NIC_LID_OFF_LID, lid);
	put_be64(buf + NIC_LID_OFF_TID, tid);
	if (gid)
		memcpy(buf + NIC_LID_OFF_GID, gid, 16);
}

static void lid_send(struct sefa_daemon *d, int fd, const uint8_t gid[16],
		     const uint8_t *buf)
{
	struct sockaddr_in6 to;

	gid_sockaddr(d, gid, &to);
	send_now(d, fd, &to, buf, NIC_LID_PKT_LEN);
}

/*
 * Where @lid is, as the SM says: this host's, or the one asked (now and
 * then, lid.c), while the packet waiting for it is lost to its
 * requester's timer.
 */
static const uint8_t *lid_route(struct sefa_daemon *d, uint64_t now, int fd,
				uint16_t lid)
{
	struct nic_net *n = d->net;
	struct nic_lid_ask q;
	const uint8_t *gid;

	if (d->sm_where)
		return d->sm_where(d, lid, n->sm_said) ? NULL : n->sm_said;
	gid = nic_lid_route(n->lids, lid, now, &q);
	if (q.what == NIC_LID_ASK_SM) {
		lid_pkt(n->tx, NIC_OP_SM_QUERY, 0, q.tid, NULL);
		lid_send(d, fd, lid_group, n->tx);
	} else if (q.what == NIC_LID_ASK_LID) {
		lid_pkt(n->tx, NIC_OP_LID_QUERY, lid, q.tid, NULL);
		lid_send(d, fd, q.to, n->tx);
	}
	return gid;
}

/*
 * A host with LIDs looks for the SM as its wire comes up, from every
 * device's GID: the SM, which sweeps every two seconds, then asks each
 * device who it is at once, and can tell the others where its LIDs are.
 */
static void lid_hello(struct sefa_daemon *d, uint64_t now)
{
	struct nic_net *n = d->net;
	struct nic_lid_ask q;
	unsigned int i;

	n->said_hello = true;
	if (d->sm_where || !d->profile->has_lid)
		return;
	nic_lid_route(n->lids, SEFA_SM_LID, now, &q);
	if (q.what != NIC_LID_ASK_SM)
		return;
	lid_pkt(n->tx, NIC_OP_SM_QUERY, 0, q.tid, NULL);
	for (i = 0; i < d->ndev; i++)
		lid_send(d, n->fd[i], lid_group, n->tx);
}

/*
 * A MAD for a LID not known yet waits for the answer to the query, as a
 * packet waits for neighbour discovery: a MAD's sender would otherwise
 * wait its whole timeout.  Data packets do not; their requester resends.
 */
static void lid_wait(struct nic_net *n, uint64_t now, uint16_t lid, int fd,
		     size_t len)
{
	struct held_pkt *w;

	if (n->nwaits >= LID_WAITS_MAX)
		return;
	w = held_new(now + LID_WAIT_NS, fd, n->tx, len);
	if (!w)
		return;
	w->lid = lid;
	w->next = n->waits;
	n->waits = w;
	n->nwaits++;
}

/* The MADs waiting for @lid go (@gid known), or those expired are lost. */
static void lid_waits_run(struct sefa_daemon *d, uint64_t now, uint16_t lid,
			  const uint8_t *gid)
{
	struct nic_net *n = d->net;
	struct held_pkt **pp = &n->waits, *w;
	struct sockaddr_in6 to;

	while ((w = *pp)) {
		if (gid ? w->lid != lid : w->due_ns > now) {
			pp = &w->next;
			continue;
		}
		*pp = w->next;
		n->nwaits--;
		if (gid) {
			gid_sockaddr(d, gid, &to);
			memcpy(n->tx, w->data, w->len);
			send_faulty(d, now, w->fd, &to, w->len);
		}
		free(w);
	}
}

/*
 * A MAD to another host: a UD SEND with immediate to QP0 or QP1, the LIDs
 * (which RoCEv2 has no header for) in the immediate data.  Under the daemon
 * lock, from any thread.
 */
int sefa_net_mad_xmit(struct sefa_daemon *d, const struct sefa_mad_frame *f)
{
	struct nic_net *n = d->net;
	struct sefa_device *dev = n ? nic_wire_device(d, f->sgid) : NULL;
	struct sefa_pkt pkt = {
		.op = SEFA_PKT_SEND,
		.qpt = IBV_QPT_UD,
		.flags = SEFA_PKT_IMM,
		.sqpn = f->src_qp,
		.dqpn = f->dst_qp,
		.qkey = f->dst_qp ? SEFA_QP1_QKEY : 0,
		.imm = (uint32_t)f->slid << 16 | f->dlid,
		.len = SEFA_MAD_LEN,
		.data = f->mad,
	};
	uint64_t now = mono_ns();
	const uint8_t *dgid = lid_group;
	struct sockaddr_in6 to;
	size_t len;
	int fd;

	if (!dev)
		return -EHOSTUNREACH;
	fd = n->fd[dev->index];
	/* first, as it may send a query from n->tx */
	if (f->by_gid)
		dgid = f->dgid;
	else if (f->dlid != SEFA_PERMISSIVE_LID)
		dgid = lid_route(d, now, fd, f->dlid);
	len = nic_frame_hdr(&pkt, SEFA_MAD_LEN, n->tx);
	memcpy(n->tx + len, f->mad, SEFA_MAD_LEN);
	len += SEFA_MAD_LEN;
	len += nic_frame_trailer(SEFA_MAD_LEN, n->tx + len);
	if (!dgid) {
		lid_wait(n, now, f->dlid, fd, len);
		return 0;
	}
	gid_sockaddr(d, dgid, &to);
	send_faulty(d, now, fd, &to, len);
	return 0;
}

/*
 * One packet of @pkt to another host: an answer, or the part of a
 * request's message from pkt->off on.  Returns 0, or -EHOSTUNREACH when it
 * cannot leave (no wire, a LID not known yet), and the requester's timer
 * tells, or -EFAULT when the requester's buffers cannot be read.
 */
int nic_net_xmit(struct nic_engine *eng, const struct sefa_pkt *pkt)
{
	struct sefa_daemon *d = eng->d;
	struct nic_net *n = d->net;
	const uint8_t *dgid = pkt->dgid;
	struct sockaddr_in6 to;
	struct sefa_device *dev;
	ssize_t len;

	dev = n ? nic_wire_device(d, pkt->sgid) : NULL;
	if (!dev)
		return -EHOSTUNREACH;
	if (pkt->dlid) {
		dgid = lid_route(d, eng->now, n->fd[dev->index], pkt->dlid);
		if (!dgid)
			return -EHOSTUNREACH;
	}
	/* RC has no NAK for a QP that is not there: the sender times out. */
	if (pkt->op == SEFA_PKT_ACK && pkt->qpt == IBV_QPT_RC &&
	    pkt->status == EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE)
		return 0;
	len = nic_frame_pkt(pkt, n->tx);
	if (len < 0)
		return len;
	gid_sockaddr(d, dgid, &to);
	send_faulty(d, eng->now, n->fd[dev->index], &to, len);
	return 0;
}

static bool gid_seen(const struct nic_net *n, const uint8_t gid[16])
{
	unsigned int i, last = n->nseen < SEEN_MAX ? n->nseen : SEEN_MAX;

	for (i = 0; i < last; i++)
		if (!memcmp(n->seen[i], gid, 16))
			return true;
	return false;
}

static void note_seen(struct nic_net *n, const uint8_t gid[16])
{
	if (!gid_seen(n, gid))
		memcpy(n->seen[n->nseen++ % SEEN_MAX], gid, 16);
}

/*
 * Whether @gid ever sent us anything: a reliable send that got no answer
 * then failed on an unresponsive remote, else on an unreachable one.
 */
bool nic_net_gid_seen(struct sefa_daemon *d, const uint8_t gid[16])
{
	return d->net && gid_seen(d->net, gid);
}

/*
 * Whether the link says @lid is at @gid: an RC QP connected by LID takes
 * packets only from there.  A LID not known yet is asked for, from @dev,
 * and the packet waits for its sender's resend.
 */
bool nic_net_lid_is(struct nic_engine *eng, const struct sefa_device *dev,
		    uint16_t lid, const uint8_t gid[16])
{
	struct sefa_daemon *d = eng->d;
	const uint8_t *at;

	if (!d->net)
		return false;
	at = lid_route(d, eng->now, d->net->fd[dev->index], lid);
	return at && !memcmp(at, gid, 16);
}

/* The held packets that are due go out. */
static unsigned int send_held(struct nic_engine *eng)
{
	struct nic_net *n = eng->d->net;
	unsigned int work = 0;
	struct held_pkt *h;

	while ((h = n->held) && h->due_ns <= eng->now) {
		n->held = h->next;
		send_now(eng->d, h->fd, &h->to, h->data, h->len);
		free(h);
		work++;
	}
	return work;
}

/* A datagram received and not taken, counted by why (softefa stats). */
static void wire_drop(struct sefa_daemon *d, enum sefa_wire_drop why)
{
	d->wire_cnt.drops[why]++;
}

/* A question to the SM of this host: answered, or why not. */
static int lid_answer(struct sefa_daemon *d, const uint8_t *buf,
		      const struct sockaddr_in6 *from)
{
	struct nic_net *n = d->net;
	uint64_t tid = get_be64(buf + NIC_LID_OFF_TID);
	uint16_t lid = get_be16(buf + NIC_LID_OFF_LID);
	uint8_t gid[16];

	if (!d->sm_where || !d->ndev)
		return SEFA_DROP_LID_NOT_SM;
	if (buf[0] == NIC_OP_SM_QUERY) {
		/* a host that looks for the SM is one to sweep */
		d->sm_candidate(d, (const uint8_t *)&from->sin6_addr);
		lid_pkt(n->tx, NIC_OP_SM_REPLY, 0, tid, NULL);
	} else {
		if (d->sm_where(d, lid, gid))
			return SEFA_DROP_LID_UNKNOWN;
		lid_pkt(n->tx, NIC_OP_LID_REPLY, lid, tid, gid);
	}
	/* from the GID the SM's port uses, the first device's */
	send_now(d, n->fd[0], from, n->tx, NIC_LID_PKT_LEN);
	return -1;
}

/*
 * SoftEFA's LID packets: a question to this host's SM, or the SM's answer
 * to one of ours, believed only as lid.c says.  Returns false if @buf is
 * not one.
 */
static bool lid_recv(struct nic_engine *eng, const uint8_t *buf, size_t len,
		     const struct sockaddr_in6 *from)
{
	struct sefa_daemon *d = eng->d;
	struct nic_net *n = d->net;
	const uint8_t *gid = (const uint8_t *)&from->sin6_addr;
	uint16_t lid;
	uint64_t tid;
	int why = -1;

	if (len != NIC_LID_PKT_LEN || buf[0] < NIC_OP_LID_QUERY || buf[0] > NIC_OP_SM_REPLY)
		return false;
	lid = get_be16(buf + NIC_LID_OFF_LID);
	tid = get_be64(buf + NIC_LID_OFF_TID);
	switch (buf[0]) {
	case NIC_OP_SM_QUERY:
	case NIC_OP_LID_QUERY:
		why = lid_answer(d, buf, from);
		break;
	case NIC_OP_SM_REPLY:
		if (!nic_lid_sm_found(n->lids, tid, gid)) {
			why = SEFA_DROP_LID_UNASKED;
			break;
		}
		lid_waits_run(d, eng->now, SEFA_SM_LID, gid);
		break;
	case NIC_OP_LID_REPLY:
		if (!nic_lid_learn(n->lids, lid, tid, gid, buf + NIC_LID_OFF_GID,
				   eng->now)) {
			why = SEFA_DROP_LID_UNASKED;
			break;
		}
		lid_waits_run(d, eng->now, lid, buf + NIC_LID_OFF_GID);
		break;
	}
	if (why >= 0)
		wire_drop(d, why);
	else
		d->wire_cnt.rx_pkts++;
	return true;
}

/*
 * A MAD from another host, to the MAD layer: one to a device's socket for
 * the port at its DLID, or the SM's sweep to every port.  Its SLID teaches
 * nothing: anyone may write any; the answer goes back to the GID it came
 * from.  Returns false if @pkt is not a MAD.
 */
static bool mad_recv(struct nic_engine *eng, struct sefa_device *dev,
		     const struct sefa_pkt *pkt)
{
	struct sefa_daemon *d = eng->d;
	struct sefa_mad_frame f = {
		.slid = pkt->imm >> 16,
		.dlid = (uint16_t)pkt->imm,
		.src_qp = pkt->sqpn,
		.dst_qp = pkt->dqpn,
		.mad = pkt->data,
	};

	if (pkt->qpt != IBV_QPT_UD || pkt->dqpn > 1)
		return false;
	if (!d->mad_in || !(pkt->flags & SEFA_PKT_IMM) ||
	    pkt->len != SEFA_MAD_LEN || !f.slid ||
	    f.slid == SEFA_PERMISSIVE_LID ||
	    (!dev && f.dlid != SEFA_PERMISSIVE_LID)) {
		wire_drop(d, SEFA_DROP_BAD_MAD);
		return true;
	}
	d->wire_cnt.rx_pkts++;
	memcpy(f.sgid, pkt->sgid, 16);
	if (dev)
		memcpy(f.dgid, dev->gid, 16);
	f.to_group = !dev;
	note_seen(d->net, f.sgid);
	d->mad_in(d, &f);
	return true;
}

/*
 * A datagram from @from, to device @dev's socket or (@dev NULL) the link's
 * LID group's: the one way in, for the sockets and the wire fuzz harness.
 */
void nic_net_deliver(struct nic_engine *eng, struct sefa_device *dev,
		     const uint8_t *buf, size_t len,
		     const struct sockaddr_in6 *from)
{
	struct sefa_daemon *d = eng->d;
	struct sefa_pkt pkt;

	if (lid_recv(eng, buf, len, from))
		return;
	if (nic_frame_parse(buf, len, &pkt)) {
		wire_drop(d, SEFA_DROP_MALFORMED);
		return;
	}
	memcpy(pkt.sgid, &from->sin6_addr, 16);
	if (mad_recv(eng, dev, &pkt))
		return;
	if (!dev) {
		wire_drop(d, SEFA_DROP_NO_DEVICE);
		return;
	}
	d->wire_cnt.rx_pkts++;
	memcpy(pkt.dgid, dev->gid, 16);
	note_seen(d->net, pkt.sgid);
	nic_wire_deliver(eng, dev, &pkt);
}

/*
 * The sockets were read on this pass: the next leaves them, as the sleep
 * that may follow it polls them and sees whatever came meanwhile.
 */
void nic_net_read_none(struct sefa_daemon *d)
{
	if (d->net) {
		d->net->napped = true;
		d->net->ready = 0;
	}
}

/* What came from other hosts, into the devices' responders and completers. */
unsigned int nic_net_poll(struct nic_engine *eng)
{
	struct sefa_daemon *d = eng->d;
	struct nic_net *n = d->net;
	struct sockaddr_in6 from[RX_BATCH];
	struct mmsghdr msg[RX_BATCH];
	struct iovec iov[RX_BATCH];
	unsigned int work = 0, i;
	int got, k;

	if (!n)
		return 0;
	if (!n->said_hello)
		lid_hello(d, eng->now);
	work += send_held(eng);
	if (n->waits)
		lid_waits_run(d, eng->now, 0, NULL);
	/* the devices' sockets, then the link's LID queries */
	for (i = 0; i <= d->ndev; i++) {
		int fd = i < d->ndev ? n->fd[i] : n->mc_fd;

		if (n->napped && !(n->ready & 1U << i))
			continue;
		memset(msg, 0, sizeof(msg));
		for (k = 0; k < RX_BATCH; k++) {
			iov[k].iov_base = n->rx[k];
			iov[k].iov_len = sizeof(n->rx[k]);
			msg[k].msg_hdr.msg_iov = &iov[k];
			msg[k].msg_hdr.msg_iovlen = 1;
			msg[k].msg_hdr.msg_name = &from[k];
			msg[k].msg_hdr.msg_namelen = sizeof(from[k]);
		}
		got = recvmmsg(fd, msg, RX_BATCH, MSG_DONTWAIT, NULL);
		for (k = 0; k < got; k++) {
			if (msg[k].msg_hdr.msg_flags & MSG_TRUNC ||
			    msg[k].msg_hdr.msg_namelen != sizeof(from[k])) {
				wire_drop(d, SEFA_DROP_TRUNCATED);
				continue;
			}
			nic_net_deliver(eng, i < d->ndev ? &d->dev[i] : NULL,
					n->rx[k], msg[k].msg_len, &from[k]);
		}
		work += got > 0 ? got : 0;
	}
	n->napped = false;
	return work;
}

/*
 * The engine's sleep with a wire: until a packet comes, @kick_fd is
 * readable, or @ns pass.  Returns true when woken before the time.
 * Called without the daemon lock, so it reads only what does not change
 * while the engine runs, and writes only what the engine thread alone
 * uses.
 */
bool nic_net_wait(struct sefa_daemon *d, int kick_fd, long ns)
{
	struct nic_net *n = d->net;
	struct pollfd pfd[SEFA_MAX_DEVICES + 2];
	struct timespec ts = { .tv_sec = ns / 1000000000L,
			       .tv_nsec = ns % 1000000000L };
	unsigned int i;
	int got;

	for (i = 0; i <= d->ndev; i++) {
		pfd[i].fd = i < d->ndev ? n->fd[i] : n->mc_fd;
		pfd[i].events = POLLIN;
	}
	pfd[i].fd = kick_fd;
	pfd[i].events = POLLIN;
	n->ready = 0;
	got = ppoll(pfd, d->ndev + 2, &ts, NULL);
	if (got < 0) {
		n->napped = false;	/* interrupted: look at every socket */
		return true;
	}
	for (i = 0; i <= d->ndev; i++)
		if (pfd[i].revents)
			n->ready |= 1U << i;
	n->napped = true;
	return got > 0;
}
