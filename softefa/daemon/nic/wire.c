// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire: takes a packet to the device it is addressed to, a request to
 * that device's responder and an answer to its completer.  Between the
 * devices of one engine it is a short path, where a packet arrives before
 * nic_wire_xmit() returns; to a device of another engine of this daemon,
 * it is that engine's inbox (inbox.c), and to another host's, the network
 * (net.c): the answer comes in later, on an engine pass.
 */
#include <string.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

/* The device of this daemon at @gid, or NULL. */
struct sefa_device *nic_wire_device(struct sefa_daemon *d,
				    const uint8_t gid[16])
{
	unsigned int i;

	for (i = 0; i < d->ndev; i++)
		if (!memcmp(d->dev[i].gid, gid, 16))
			return &d->dev[i];
	return NULL;
}

static struct sefa_device *device_by_lid(struct sefa_daemon *d, uint16_t lid)
{
	unsigned int i;

	for (i = 0; i < d->ndev; i++)
		if (d->dev[i].lid && d->dev[i].lid == lid)
			return &d->dev[i];
	return NULL;
}

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

void nic_wire_xmit(struct nic_engine *eng, const struct sefa_pkt *pkt)
{
	struct sefa_device *dev = pkt->dlid ? device_by_lid(eng->d, pkt->dlid) :
					      nic_wire_device(eng->d, pkt->dgid);

	if (dev && dev->engine && dev->engine != eng) {
		nic_inbox_xmit(eng, dev, pkt);
		return;
	}
	if (dev && pkt->op == SEFA_PKT_ACK) {
		nic_comp_recv(eng, dev, pkt);
		return;
	}
	if (dev) {
		nic_resp_recv(eng, dev, pkt);
		return;
	}
	/* Another host's: the requester's timer covers any loss. */
	if (eng->d->net) {
		nic_net_xmit(eng, pkt);
		return;
	}
	/*
	 * Nobody at that address.  A reliable requester would time out; the
	 * local path knows at once.  Lost UD packets and answers go unnoticed.
	 */
	if (pkt->op != SEFA_PKT_ACK && pkt->qpt != IBV_QPT_UD)
		nic_wire_answer(eng, pkt, pkt->dgid,
				EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE, 0);
}
