// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire: takes a packet to the device it is addressed to, a request to
 * that device's responder and an answer to its completer.  Between the
 * devices of one engine it is a short path, where a packet arrives before
 * nic_wire_xmit() returns; to a device of another engine of this daemon,
 * it is that short path too while the other engine is idle, else that
 * engine's inbox (inbox.c); to another host's, the network (net.c).  From
 * an inbox or the network, the answer comes in later, on an engine pass.
 */
#include <string.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

/*
 * The answer to @req from the device at @gid: back to the requester's QP
 * with its PSN, and a read's @data.
 */
static void wire_answer(struct nic_engine *eng, const struct sefa_pkt *req,
			const uint8_t gid[16], int status, uint8_t rnr_timer,
			const void *data, uint64_t len)
{
	struct sefa_pkt ack = {
		.op = SEFA_PKT_ACK,
		.qpt = req->qpt,
		.status = status,
		.rnr_timer = rnr_timer,
		/* an answer to a request in frames goes in frames */
		.flags = req->flags & SEFA_PKT_NET,
		.sqpn = req->dqpn,
		.dqpn = req->sqpn,
		.psn = req->psn,
		.len = len,
		.data = data,
	};

	memcpy(ack.sgid, gid, sizeof(ack.sgid));
	memcpy(ack.dgid, req->sgid, sizeof(ack.dgid));
	eng->xmit(eng, &ack);
}

/* An ACK, or a NAK by its status. */
void nic_wire_answer(struct nic_engine *eng, const struct sefa_pkt *req,
		     const uint8_t gid[16], int status, uint8_t rnr_timer)
{
	wire_answer(eng, req, gid, status, rnr_timer, NULL, 0);
}

/* A read from another host is answered with the data it asked for. */
void nic_wire_read_resp(struct nic_engine *eng, const struct sefa_pkt *req,
			const uint8_t gid[16], const void *data, uint64_t len)
{
	wire_answer(eng, req, gid, EFA_IO_COMP_STATUS_OK, 0, data, len);
}

/*
 * Whether @pkt may take the short path to a device of another engine:
 * only a request, and only a message's first packet.  An answer to
 * another engine answers a request that came through its inbox, whose
 * WQE waits in its QP's list for an answer in a frame; a later packet of
 * a message that began in frames goes on in frames.
 */
static bool wire_may_lock_peer(const struct sefa_pkt *pkt)
{
	return pkt->op != SEFA_PKT_ACK && !pkt->off;
}

/* A datagram from another host taken off the wire, counted by why. */
void nic_wire_dropped(struct nic_engine *eng, const struct sefa_pkt *pkt,
		      enum sefa_wire_drop why)
{
	if (pkt->flags & SEFA_PKT_NET)
		eng->d->wire_cnt.drops[why]++;
}

/*
 * Whether @pkt, for an RC QP of @dev, comes from the device that QP is
 * connected to: the GID of its path, or the GID its path's LID is at, on
 * this host or, as the link says, another.  RoCEv2 carries no source QP
 * on RC, so any QP of that device passes, as on the hardware.  A packet
 * for no RC QP is the responder's or the completer's to drop.
 */
static bool wire_rc_peer(struct nic_engine *eng, struct sefa_device *dev,
			 const struct sefa_pkt *pkt)
{
	const struct sefa_qp *qp = sefa_qp_lookup(dev, pkt->dqpn);
	const struct sefa_device *src;

	if (pkt->qpt != IBV_QPT_RC || !qp || qp->type != IBV_QPT_RC)
		return true;
	if (qp->dest.is_global)
		return !memcmp(qp->dest.dgid, pkt->sgid, 16);
	src = qp->dest.dlid ? nic_device_by_lid(eng->d, qp->dest.dlid) : NULL;
	if (src)
		return !memcmp(src->gid, pkt->sgid, 16);
	return qp->dest.dlid && (pkt->flags & SEFA_PKT_NET) &&
	       nic_net_lid_is(eng, dev, qp->dest.dlid, pkt->sgid);
}

/*
 * @pkt to @dev's completer or responder, there and then: on the short
 * path, or as it came from an inbox or the network.  A connected QP takes
 * requests and answers from its peer alone.
 */
void nic_wire_deliver(struct nic_engine *eng, struct sefa_device *dev,
		      const struct sefa_pkt *pkt)
{
	/* what came in frames to a port that went down meanwhile */
	if (atomic_load(&dev->port_down) || atomic_load(&dev->fatal))
		return;
	if (!wire_rc_peer(eng, dev, pkt)) {
		nic_wire_dropped(eng, pkt, SEFA_DROP_NOT_PEER);
		return;
	}
	if (pkt->op == SEFA_PKT_ACK)
		eng->comp_recv(eng, dev, pkt);
	else
		eng->resp_recv(eng, dev, pkt);
}

/*
 * A request whose packet could not be framed because the requester's own
 * buffers cannot be read: as EFA fails a send on its local memory, the
 * requester's local error at once, not a loss its timer finds.
 */
static void wire_unreadable(struct nic_engine *eng, const struct sefa_pkt *pkt,
			    int err)
{
	if (err == -EFAULT && pkt->op != SEFA_PKT_ACK)
		nic_wire_answer(eng, pkt, pkt->dgid,
				EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY, 0);
}

/*
 * @pkt to @dev of this host while the fault engine has rules for the
 * one-host path: as it says, lost, twice, or held back as long as the
 * wire holds a packet (net_tx.c).  Every packet then goes in frames
 * through the inboxes, also between two QPs of one engine, so that the
 * responder's sequence checks and the completer's list meet what a wire
 * gives them, and SRD stays exactly-once.  An answer to a request in
 * frames goes in frames too, also once the rules are gone: its WQE waits
 * in its QP's list.
 */
static bool wire_local_faulty(struct nic_engine *eng, struct sefa_device *dev,
			      const struct sefa_pkt *pkt)
{
	struct sefa_daemon *d = eng->d;
	struct sefa_path_pkt p = nic_path_pkt(pkt);
	struct sefa_path_verdict v = {};
	uint64_t due = 0;
	int ret;

	p.src = nic_device_by_gid(d, pkt->sgid);
	p.dst = dev;

	if (!dev->engine || !dev->engine->inbox)
		return false;
	if (!(d->path_fault && d->path_fault(d, &p, &v)) &&
	    !(p.answer && (pkt->flags & SEFA_PKT_NET)))
		return false;
	if (v.drop)
		return true;
	if (v.delay_ns || v.reorder)
		due = eng->now + v.delay_ns + (v.reorder ? NIC_REORDER_NS : 0);
	ret = nic_inbox_xmit(eng, dev, pkt, due);
	if (!ret && v.dup)
		ret = nic_inbox_xmit(eng, dev, pkt, due);
	wire_unreadable(eng, pkt, ret);
	return true;
}

/*
 * Whether the port @pkt leaves from, or that of @dev it goes to, is down
 * or its device dead: the packet is lost, as on a link without carrier,
 * and the requester's timer finds it.
 */
static bool wire_port_down(struct nic_engine *eng, struct sefa_device *dev,
			   const struct sefa_pkt *pkt)
{
	struct sefa_device *src = nic_device_by_gid(eng->d, pkt->sgid);

	if (dev && (atomic_load(&dev->port_down) || atomic_load(&dev->fatal)))
		return true;
	return src && (atomic_load(&src->port_down) ||
		       atomic_load(&src->fatal));
}

void nic_wire_xmit(struct nic_engine *eng, const struct sefa_pkt *pkt)
{
	struct sefa_device *dev = pkt->dlid ?
				  nic_device_by_lid(eng->d, pkt->dlid) :
				  nic_device_by_gid(eng->d, pkt->dgid);

	if (wire_port_down(eng, dev, pkt))
		return;
	if (dev && wire_local_faulty(eng, dev, pkt))
		return;
	if (dev && dev->engine && dev->engine != eng) {
		if (!wire_may_lock_peer(pkt) || !nic_inbox_trylock_device(dev)) {
			wire_unreadable(eng, pkt, nic_inbox_xmit(eng, dev, pkt, 0));
			return;
		}
		nic_wire_deliver(eng, dev, pkt);
		nic_inbox_unlock_device(dev);
		return;
	}
	if (dev) {
		nic_wire_deliver(eng, dev, pkt);
		return;
	}
	/* Another host's: the requester's timer covers any loss. */
	if (eng->d->net) {
		wire_unreadable(eng, pkt, nic_net_xmit(eng, pkt));
		return;
	}
	/*
	 * Nobody at that address.  SRD's requester would time out; the local
	 * path knows at once.  RC's times out, as InfiniBand's, and ends in
	 * IBV_WC_RETRY_EXC_ERR.  Lost UD packets and answers go unnoticed.
	 */
	if (pkt->op != SEFA_PKT_ACK && pkt->qpt == IBV_QPT_DRIVER)
		nic_wire_answer(eng, pkt, pkt->dgid,
				EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE, 0);
}
