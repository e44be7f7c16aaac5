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

#include "nic/net_loc.h"

#define SOCK_BUF	(8 << 20)

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
	nic_net_sockaddr(d, gid, &sa);
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
	memcpy(&mr.ipv6mr_multiaddr, nic_lid_group, 16);
	if (setsockopt(fd, IPPROTO_IPV6, IPV6_JOIN_GROUP, &mr, sizeof(mr))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
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
	nic_net_held_free(n->held);
	nic_net_held_free(n->waits);
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
	n->rng = (nic_net_now_ns() ^ (uint64_t)getpid() << 32) | 1;
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

/*
 * A MAD to another host: a UD SEND with immediate to QP0 or QP1, the LIDs
 * (which RoCEv2 has no header for) in the immediate data.  Under the daemon
 * lock, from any thread.
 */
int sefa_net_mad_xmit(struct sefa_daemon *d, const struct sefa_mad_frame *f)
{
	struct nic_net *n = d->net;
	struct sefa_device *dev = n ? nic_device_by_gid(d, f->sgid) : NULL;
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
	uint64_t now = nic_net_now_ns();
	const uint8_t *dgid = nic_lid_group;
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
		dgid = nic_net_lid_route(d, now, fd, f->dlid);
	len = nic_frame_hdr(&pkt, SEFA_MAD_LEN, n->tx);
	memcpy(n->tx + len, f->mad, SEFA_MAD_LEN);
	len += SEFA_MAD_LEN;
	len += nic_frame_trailer(SEFA_MAD_LEN, n->tx + len);
	if (!dgid) {
		nic_net_lid_wait(n, now, f->dlid, fd, len);
		return 0;
	}
	nic_net_sockaddr(d, dgid, &to);
	nic_net_send_faulty(d, now, fd, &to, len);
	return 0;
}

/*
 * Whether a black hole (softefa inject) takes @pkt between @dev of this
 * host and the device at @remote on another, going out when @out: lost,
 * as on a path where nothing comes through, which the requester's timer
 * finds.  A packet it takes coming in was never seen, so the sender's
 * GID stays unknown until something else comes.
 */
static bool net_holed(struct sefa_daemon *d, const struct sefa_device *dev,
		      const uint8_t *remote, const struct sefa_pkt *pkt,
		      bool out)
{
	struct sefa_path_pkt p = nic_path_pkt(pkt);
	struct sefa_path_verdict v = {};

	p.src = out ? dev : NULL;
	p.dst = out ? NULL : dev;
	p.remote_gid = remote;
	return d->path_fault && d->path_fault(d, &p, &v) && v.drop;
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

	dev = n ? nic_device_by_gid(d, pkt->sgid) : NULL;
	if (!dev)
		return -EHOSTUNREACH;
	if (pkt->dlid) {
		dgid = nic_net_lid_route(d, eng->now, n->fd[dev->index],
					 pkt->dlid);
		if (!dgid)
			return -EHOSTUNREACH;
	}
	/* RC has no NAK for a QP that is not there: the sender times out. */
	if (pkt->op == SEFA_PKT_ACK && pkt->qpt == IBV_QPT_RC &&
	    pkt->status == EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE)
		return 0;
	if (net_holed(d, dev, dgid, pkt, true))
		return 0;
	len = nic_frame_pkt(pkt, n->tx);
	if (len < 0)
		return len;
	nic_net_sockaddr(d, dgid, &to);
	nic_net_send_faulty(d, eng->now, n->fd[dev->index], &to, len);
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
 * Whether @gid ever sent us a packet of its transport: a reliable send
 * that got no answer then failed on an unresponsive remote, else on an
 * unreachable one, as EFA tells a peer that once answered from one that
 * never did.  A MAD does not count: the SM and the ports' agents answer
 * whatever the peer's QPs do.
 */
bool nic_net_gid_seen(struct sefa_daemon *d, const uint8_t gid[16])
{
	return d->net && gid_seen(d->net, gid);
}

/* A datagram received and not taken, counted by why (softefa stats). */
static void wire_drop(struct sefa_daemon *d, enum sefa_wire_drop why)
{
	d->wire_cnt.drops[why]++;
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

	if (nic_net_lid_recv(eng, buf, len, from))
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
	if (net_holed(d, dev, pkt.sgid, &pkt, false))
		return;
	d->wire_cnt.rx_pkts++;
	memcpy(pkt.dgid, dev->gid, 16);
	note_seen(d->net, pkt.sgid);
	eng->deliver(eng, dev, &pkt);
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
	if (!n->sm_sought)
		nic_net_lid_find_sm(d, eng->now);
	work += nic_net_send_held(eng);
	if (n->waits)
		nic_net_lid_waits_run(d, eng->now, 0, NULL);
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
