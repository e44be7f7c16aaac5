// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Where a LID is, over the link: the questions this host asks the SM, by
 * SoftEFA's own small packets, the answers it believes (as lid.c says), the
 * MADs that wait for them, and the answers this host's SM gives others.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "nic/net_loc.h"

/* A MAD waits this long for the SM's word on its DLID. */
#define LID_WAIT_NS	(10 * 1000 * 1000ULL)

/* ff02::5efa, link scope */
const uint8_t nic_lid_group[16] = {
	0xff, 0x02, [14] = 0x5e, [15] = 0xfa,
};

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

	nic_net_sockaddr(d, gid, &to);
	nic_net_send_now(d, fd, &to, buf, NIC_LID_PKT_LEN);
}

/*
 * Where @lid is, as the SM says: this host's, or the one asked (now and
 * then, lid.c), while the packet waiting for it is lost to its
 * requester's timer.
 */
const uint8_t *nic_net_lid_route(struct sefa_daemon *d, uint64_t now, int fd,
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
		lid_send(d, fd, nic_lid_group, n->tx);
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
void nic_net_lid_find_sm(struct sefa_daemon *d, uint64_t now)
{
	struct nic_net *n = d->net;
	struct nic_lid_ask q;
	unsigned int i;

	n->sm_sought = true;
	if (d->sm_where || !d->profile->has_lid)
		return;
	nic_lid_route(n->lids, SEFA_SM_LID, now, &q);
	if (q.what != NIC_LID_ASK_SM)
		return;
	lid_pkt(n->tx, NIC_OP_SM_QUERY, 0, q.tid, NULL);
	for (i = 0; i < d->ndev; i++)
		lid_send(d, n->fd[i], nic_lid_group, n->tx);
}

/*
 * A MAD for a LID not known yet waits for the answer to the query, as a
 * packet waits for neighbour discovery: a MAD's sender would otherwise
 * wait its whole timeout.  Data packets do not; their requester resends.
 */
void nic_net_lid_wait(struct nic_net *n, uint64_t now, uint16_t lid, int fd,
		      size_t len)
{
	struct held_pkt *w;

	if (n->nwaits >= LID_WAITS_MAX)
		return;
	w = nic_net_held_new(now + LID_WAIT_NS, fd, n->tx, len);
	if (!w)
		return;
	w->lid = lid;
	w->next = n->waits;
	n->waits = w;
	n->nwaits++;
}

/* The MADs waiting for @lid go (@gid known), or those expired are lost. */
void nic_net_lid_waits_run(struct sefa_daemon *d, uint64_t now, uint16_t lid,
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
			nic_net_sockaddr(d, gid, &to);
			memcpy(n->tx, w->data, w->len);
			nic_net_send_faulty(d, now, w->fd, &to, w->len);
		}
		free(w);
	}
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
	at = nic_net_lid_route(d, eng->now, d->net->fd[dev->index], lid);
	return at && !memcmp(at, gid, 16);
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
	nic_net_send_now(d, n->fd[0], from, n->tx, NIC_LID_PKT_LEN);
	return -1;
}

/*
 * SoftEFA's LID packets: a question to this host's SM, or the SM's answer
 * to one of ours, believed only as lid.c says.  Returns false if @buf is
 * not one.
 */
bool nic_net_lid_recv(struct nic_engine *eng, const uint8_t *buf, size_t len,
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
		nic_net_lid_waits_run(d, eng->now, SEFA_SM_LID, gid);
		break;
	case NIC_OP_LID_REPLY:
		if (!nic_lid_learn(n->lids, lid, tid, gid, buf + NIC_LID_OFF_GID,
				   eng->now)) {
			why = SEFA_DROP_LID_UNASKED;
			break;
		}
		nic_net_lid_waits_run(d, eng->now, lid, buf + NIC_LID_OFF_GID);
		break;
	}
	if (why >= 0)
		d->wire_cnt.drops[why]++;
	else
		d->wire_cnt.rx_pkts++;
	return true;
}
