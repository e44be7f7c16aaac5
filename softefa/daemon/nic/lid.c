// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Which GID holds a LID, as the subnet manager says (softefa-wire(7)
 * TRUST): the policy, not the sockets, which net.c has.  A host finds the
 * SM once, by a question to the link's group, and from then on asks it,
 * at its own GID, about each LID it sends to.  An answer counts only from
 * the address asked, with the random transaction id of a question still
 * outstanding; nothing else on the link teaches a host a LID.
 *
 * The table is indexed by LID, the subnet's size: a LID costs one slot
 * whatever the wire sends, and no entry can push out another.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "nic/loc.h"

/* A LID nobody answered for is asked for again after this long. */
#define LID_QUERY_NS	(10 * 1000 * 1000ULL)
/* What the SM said holds this long; a use after it asks again. */
#define LID_TTL_NS	(10 * 1000 * 1000 * 1000ULL)
/*
 * Questions to the SM, all LIDs together, per LID_QUERY_NS: sends to many
 * unknown LIDs cost their own questions, not the SM's answers to others.
 */
#define LID_ASKS_MAX	64
#define LID_SLOTS	(1U << 16)

struct lid_slot {
	uint8_t gid[16];
	uint64_t tid;		/* the question outstanding, or 0 */
	uint64_t asked_ns;
	uint64_t learnt_ns;	/* 0: not known */
};

struct nic_lids {
	bool sm_known;
	uint8_t sm_gid[16];
	uint64_t sm_tid;	/* the last search for the SM, or 0 */
	uint64_t sm_asked_ns;
	uint64_t window_ns;	/* LID_ASKS_MAX questions from here */
	unsigned int asks;
	struct lid_slot slot[LID_SLOTS];
};

int nic_lids_new(struct nic_lids **out)
{
	/* calloc'd pages are mapped as LIDs are used, not before */
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void nic_lids_free(struct nic_lids *l)
{
	free(l);
}

/* An id nobody on the link can guess from what it has seen; never 0. */
static uint64_t fresh_tid(void)
{
	uint64_t tid = 0;

	while (!tid)
		if (getrandom(&tid, sizeof(tid), 0) != sizeof(tid))
			tid = 0;
	return tid;
}

static bool may_ask(struct nic_lids *l, uint64_t now, uint64_t asked_ns)
{
	if (asked_ns && now - asked_ns < LID_QUERY_NS)
		return false;
	if (now - l->window_ns >= LID_QUERY_NS) {
		l->window_ns = now;
		l->asks = 0;
	}
	if (l->asks >= LID_ASKS_MAX)
		return false;
	l->asks++;
	return true;
}

/*
 * Where @lid is, or NULL.  @q says what to send now, if anything: a
 * question to the SM at q->to about @lid, or one to the link's group for
 * the SM itself, with q->tid.
 */
const uint8_t *nic_lid_route(struct nic_lids *l, uint16_t lid, uint64_t now,
			     struct nic_lid_ask *q)
{
	struct lid_slot *s = &l->slot[lid];

	q->what = NIC_LID_ASK_NONE;
	if (lid == SEFA_SM_LID && l->sm_known)
		return l->sm_gid;
	if (s->learnt_ns && now - s->learnt_ns < LID_TTL_NS)
		return s->gid;
	if (!l->sm_known) {
		if (may_ask(l, now, l->sm_asked_ns)) {
			l->sm_asked_ns = now;
			l->sm_tid = fresh_tid();
			q->what = NIC_LID_ASK_SM;
			q->tid = l->sm_tid;
		}
		return NULL;
	}
	if (lid != SEFA_SM_LID && may_ask(l, now, s->asked_ns)) {
		s->asked_ns = now;
		s->tid = fresh_tid();
		q->what = NIC_LID_ASK_LID;
		q->tid = s->tid;
		memcpy(q->to, l->sm_gid, 16);
	}
	/* an answer gone stale serves until the SM's next one */
	return s->learnt_ns ? s->gid : NULL;
}

/*
 * The SM's answer to the search for it, from @from: it is the SM from now
 * on.  The search went out from every device, so the SM answers it more
 * than once.  Returns false, and nothing changes, if no search asked this
 * or another GID answered it first.
 */
bool nic_lid_sm_found(struct nic_lids *l, uint64_t tid, const uint8_t *from)
{
	if (!l->sm_tid || tid != l->sm_tid)
		return false;
	if (l->sm_known)
		return !memcmp(from, l->sm_gid, 16);
	l->sm_known = true;
	memcpy(l->sm_gid, from, 16);
	return true;
}

/*
 * The SM's answer about @lid: @gid holds it.  Returns false, and nothing
 * changes, unless it came from the SM with the id of the question
 * outstanding about @lid.
 */
bool nic_lid_learn(struct nic_lids *l, uint16_t lid, uint64_t tid,
		   const uint8_t *from, const uint8_t *gid, uint64_t now)
{
	struct lid_slot *s = &l->slot[lid];

	if (!l->sm_known || memcmp(from, l->sm_gid, 16) || !s->tid ||
	    tid != s->tid)
		return false;
	s->tid = 0;
	s->learnt_ns = now;
	memcpy(s->gid, gid, 16);
	return true;
}
