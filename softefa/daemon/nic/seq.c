// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder's sequence checks on packets from another host, which may
 * come twice, late, or not at all.  RC takes a packet only at the PSN it
 * expects; one before it came twice.  A datagram QP (UD, SRD) remembers,
 * per sending QP, which PSNs were delivered, from the oldest one the
 * sender still has out (SRD says it in each packet) on: a packet that came
 * before is answered again but not delivered again.  A stranger on the
 * link may send from any QP number, so the windows are a bounded table
 * whose senders of the last while keep theirs (peer_new()).
 */
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

/* Serial arithmetic on 24-bit PSNs: how far @b is ahead of @a. */
static uint32_t psn_ahead(uint32_t a, uint32_t b)
{
	return (b - a) & 0xffffff;
}

#define PSN_HALF	0x800000

/*
 * The one place a QP's send PSN moves on, for the requester and the
 * completer alike.  Returns the PSN it had: a datagram packet's own, or
 * the RC head's that just took it.
 */
uint32_t nic_seq_next_psn(struct sefa_qp *qp)
{
	uint32_t psn = qp->req.sq_psn;

	qp->req.sq_psn = (psn + 1) & 0xffffff;
	return psn;
}

/*
 * A window no packet came to for this long may go to another sender: an
 * SRD sender gives a packet up after 12 resends at most a second apart,
 * so nothing it had delivered comes again after this.
 */
#define PEER_QUIET_NS		(30 * 1000 * 1000 * 1000ULL)

static unsigned int peer_hash(const struct sefa_peer_tab *t,
			      const uint8_t gid[16], uint32_t qpn)
{
	uint32_t h = 2166136261u ^ t->salt;
	unsigned int i;

	for (i = 0; i < 16; i++)
		h = (h ^ gid[i]) * 16777619u;
	for (i = 0; i < 3; i++)
		h = (h ^ (qpn >> 8 * i & 0xff)) * 16777619u;
	return h % SEFA_PEER_BUCKETS;
}

static void lru_unlink(struct sefa_peer_tab *t, struct sefa_peer_win *w)
{
	*(w->older ? &w->older->newer : &t->oldest) = w->newer;
	*(w->newer ? &w->newer->older : &t->newest) = w->older;
	w->older = w->newer = NULL;
}

static void lru_newest(struct sefa_peer_tab *t, struct sefa_peer_win *w)
{
	w->older = t->newest;
	*(t->newest ? &t->newest->newer : &t->oldest) = w;
	t->newest = w;
}

static struct sefa_peer_win **peer_slot(struct sefa_peer_tab *t,
					const uint8_t gid[16], uint32_t qpn)
{
	struct sefa_peer_win **pw = &t->bucket[peer_hash(t, gid, qpn)];

	while (*pw && ((*pw)->qpn != qpn || memcmp((*pw)->gid, gid, 16)))
		pw = &(*pw)->hnext;
	return pw;
}

/*
 * A window for a sender not seen before: a new one while the QP has fewer
 * than SEFA_PEER_MAX, else the oldest's, if it delivered nothing or has
 * been quiet long enough; else none, and a flood of new senders leaves
 * the senders the QP has alone.
 */
static struct sefa_peer_win *peer_new(struct sefa_peer_tab *t,
				      uint64_t now)
{
	struct sefa_peer_win *w = t->oldest;

	if (t->n < SEFA_PEER_MAX) {
		w = malloc(sizeof(*w));
		if (w)
			t->n++;
		return w;
	}
	if (w->delivered && now - w->last_ns < PEER_QUIET_NS)
		return NULL;
	*peer_slot(t, w->gid, w->qpn) = w->hnext;
	lru_unlink(t, w);
	return w;
}

/* The window of what @pkt's sending QP had delivered to @tqp, or NULL. */
static struct sefa_peer_win *peer_win(struct sefa_qp *tqp,
				      const struct sefa_pkt *pkt, uint32_t lwm,
				      uint64_t now)
{
	struct sefa_peer_tab *t = tqp->resp.seen;
	struct sefa_peer_win **pw, *w;

	if (!t) {
		t = calloc(1, sizeof(*t));
		if (!t)
			return NULL;
		t->salt = arc4random();
		tqp->resp.seen = t;
	}
	pw = peer_slot(t, pkt->sgid, pkt->sqpn);
	w = *pw;
	if (w) {
		lru_unlink(t, w);
	} else {
		w = peer_new(t, now);
		if (!w)
			return NULL;
		memset(w, 0, sizeof(*w));
		memcpy(w->gid, pkt->sgid, 16);
		w->qpn = pkt->sqpn;
		w->base = lwm;
		/* the slot may have moved if the oldest left its bucket */
		pw = peer_slot(t, pkt->sgid, pkt->sqpn);
		*pw = w;
	}
	w->last_ns = now;
	lru_newest(t, w);
	return w;
}

static bool win_test(const struct sefa_peer_win *w, uint32_t psn)
{
	unsigned int bit = psn % SEFA_PEER_WIN;

	return w->bits[bit / 64] >> (bit % 64) & 1;
}

static void win_mark(struct sefa_peer_win *w, uint32_t psn, bool on)
{
	unsigned int bit = psn % SEFA_PEER_WIN;

	if (on)
		w->bits[bit / 64] |= 1ULL << (bit % 64);
	else
		w->bits[bit / 64] &= ~(1ULL << (bit % 64));
}

/* The sender has nothing out before @lwm: forget what came before it. */
static void win_advance(struct sefa_peer_win *w, uint32_t lwm)
{
	uint32_t n = psn_ahead(w->base, lwm);

	if (!n || n >= PSN_HALF)
		return;
	if (n >= SEFA_PEER_WIN)
		memset(w->bits, 0, sizeof(w->bits));
	else
		while (n--)
			win_mark(w, w->base + n, false);
	w->base = lwm;
}

/*
 * A datagram packet from another host: new, or one that came before.  UD
 * has nothing out, so its window trails its newest PSN by half its size:
 * a packet overtaken by more than that is lost, never delivered twice.
 * With no window for its sender, SRD, which must not deliver anything
 * twice, refuses the packet and the sender resends it; UD, which promises
 * nothing, delivers it as it is.
 */
static enum seq_verdict seq_datagram(struct sefa_qp *tqp,
				     const struct sefa_pkt *pkt, uint64_t now,
				     struct sefa_peer_win **out)
{
	uint32_t lwm = pkt->qpt == IBV_QPT_UD ?
		       (pkt->psn - SEFA_PEER_WIN / 2) & 0xffffff : pkt->lwm;
	struct sefa_peer_win *w = peer_win(tqp, pkt, lwm, now);
	uint32_t d;

	*out = w;
	if (!w)
		return pkt->qpt == IBV_QPT_UD ? SEQ_NEW : SEQ_REFUSE;
	win_advance(w, lwm);
	d = psn_ahead(w->base, pkt->psn);
	if (d >= PSN_HALF)
		return SEQ_DUP;
	if (d >= SEFA_PEER_WIN)
		return SEQ_DROP;
	return win_test(w, pkt->psn) ? SEQ_DUP : SEQ_NEW;
}

/* RC: only the PSN it expects is new. */
static enum seq_verdict seq_rc(const struct sefa_qp *tqp,
			       const struct sefa_pkt *pkt)
{
	uint32_t d = psn_ahead(tqp->resp.rq_psn, pkt->psn);

	if (!d)
		return SEQ_NEW;
	return d >= PSN_HALF ? SEQ_DUP : SEQ_DROP;
}

/*
 * Whether @pkt is new to @tqp; for a datagram QP, *@w is the window to
 * mark it in once delivered.  A read changes nothing: one that came twice
 * is served again.
 */
enum seq_verdict nic_seq_check(struct sefa_qp *tqp, const struct sefa_pkt *pkt,
			       uint64_t now, struct sefa_peer_win **w)
{
	*w = NULL;
	if (tqp->type == IBV_QPT_RC)
		return seq_rc(tqp, pkt);
	if (pkt->op == SEFA_PKT_READ)
		return SEQ_NEW;
	return seq_datagram(tqp, pkt, now, w);
}

/* @pkt was delivered, or failed for good: it is not new again. */
void nic_seq_done(struct sefa_qp *tqp, struct sefa_peer_win *w,
		  const struct sefa_pkt *pkt)
{
	if (w) {
		win_mark(w, pkt->psn, true);
		w->delivered = true;
	}
	tqp->resp.rq_psn = (tqp->resp.rq_psn + 1) & 0xffffff;
}
