// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The responder's sequence checks on packets from another host, which may
 * come twice, late, or not at all.  RC takes a packet only at the PSN it
 * expects; one before it came twice.  A datagram QP (UD, SRD) remembers,
 * per sending QP, which PSNs were delivered, from the oldest one the
 * sender still has out (SRD says it in each packet) on: a packet that came
 * before is answered again but not delivered again.
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

/* The window of what @pkt's sending QP had delivered to @tqp, or NULL. */
static struct sefa_peer_win *peer_win(struct sefa_qp *tqp,
				      const struct sefa_pkt *pkt, uint32_t lwm)
{
	struct sefa_peer_win *w;

	for (w = tqp->seen; w; w = w->next)
		if (w->qpn == pkt->sqpn && !memcmp(w->gid, pkt->sgid, 16))
			return w;
	w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	memcpy(w->gid, pkt->sgid, 16);
	w->qpn = pkt->sqpn;
	w->base = lwm;
	w->next = tqp->seen;
	tqp->seen = w;
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
 */
static enum seq_verdict seq_datagram(struct sefa_qp *tqp,
				     const struct sefa_pkt *pkt,
				     struct sefa_peer_win **out)
{
	uint32_t lwm = pkt->qpt == IBV_QPT_UD ?
		       (pkt->psn - SEFA_PEER_WIN / 2) & 0xffffff : pkt->lwm;
	struct sefa_peer_win *w = peer_win(tqp, pkt, lwm);
	uint32_t d;

	*out = w;
	if (!w)
		return SEQ_NEW;
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
	uint32_t d = psn_ahead(tqp->rq_psn, pkt->psn);

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
			       struct sefa_peer_win **w)
{
	*w = NULL;
	if (tqp->type == IBV_QPT_RC)
		return seq_rc(tqp, pkt);
	if (pkt->op == SEFA_PKT_READ)
		return SEQ_NEW;
	return seq_datagram(tqp, pkt, w);
}

/* @pkt was delivered, or failed for good: it is not new again. */
void nic_seq_done(struct sefa_qp *tqp, struct sefa_peer_win *w,
		  const struct sefa_pkt *pkt)
{
	if (w)
		win_mark(w, pkt->psn, true);
	tqp->rq_psn = (tqp->rq_psn + 1) & 0xffffff;
}
