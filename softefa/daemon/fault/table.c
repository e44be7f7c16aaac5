// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rule table: rules in the order they came, asked by the stages in
 * that order, the first that fires winning.  Every decision that is not
 * plain matching (nth=, share=, count=, rnr's tries) is made here, from
 * the rule's own counts and its own seeded draws, so that the same rules
 * on the same traffic fire on the same packets every run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault/rule.h"
#include "proto.h"

/* More rules than any test of a host needs; each is asked per packet. */
#define FAULT_MAX_RULES		64

struct sefa_faults {
	pthread_mutex_t lock;
	unsigned int ndev;
	unsigned int next_id;
	atomic_uint nrules;		/* read without the lock */
	struct fault_rule *rules;	/* by id */
	uint64_t dev_total[SEFA_MAX_DEVICES];
	void (*on_add)(void *arg, const struct sefa_fault_hit *hit, int dev);
	void *on_add_arg;
};

void sefa_fault_ctx_init(struct sefa_fault_ctx *what, unsigned int actions)
{
	memset(what, 0, sizeof(*what));
	what->actions = actions;
	what->dev = SEFA_FAULT_NO_DEV;
	what->peer_dev = SEFA_FAULT_NO_DEV;
	what->qpn = SEFA_FAULT_NO_QPN;
	what->peer_qpn = SEFA_FAULT_NO_QPN;
}

int sefa_faults_new(unsigned int ndev, struct sefa_faults **out)
{
	struct sefa_faults *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	pthread_mutex_init(&f->lock, NULL);
	f->ndev = ndev;
	f->next_id = 1;
	*out = f;
	return 0;
}

void sefa_faults_free(struct sefa_faults *f)
{
	if (!f)
		return;
	sefa_fault_clear(f, 0);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

void sefa_fault_on_add(struct sefa_faults *f,
		       void (*fn)(void *arg, const struct sefa_fault_hit *hit,
				  int dev),
		       void *arg)
{
	pthread_mutex_lock(&f->lock);
	f->on_add = fn;
	f->on_add_arg = arg;
	pthread_mutex_unlock(&f->lock);
}

/*
 * Rules that fire once, for a moment and not for a packet: an event, and
 * a freeze, which lasts while its rule is there and its time runs.
 */
static bool fires_when_added(enum sefa_fault_action a)
{
	return a == SEFA_FAULT_EVENT || a == SEFA_FAULT_FREEZE;
}

static void count_hit(struct sefa_faults *f, struct fault_rule *r, int dev)
{
	r->hits++;
	if (dev >= 0 && (unsigned int)dev < SEFA_MAX_DEVICES)
		f->dev_total[dev]++;
	if (r->count && r->hits >= r->count)
		r->spent = true;
}

/*
 * A QP's or CQ's event in the start file would act on nothing: no client
 * has made a QP or CQ yet, and the event fires only when its rule is
 * added.  Refused, so that a start file never holds a rule that looks
 * armed and never fires; a device's and a port's events act at start.
 */
static bool needs_objects(const struct fault_rule *r)
{
	return r->action == SEFA_FAULT_EVENT &&
	       (r->hit.event == SEFA_FAULT_EV_QP_FATAL ||
		r->hit.event == SEFA_FAULT_EV_CQ_ERROR);
}

/*
 * Add a rule: one from a control request is logged with its seed, one of
 * the start file (@at_start) is not.
 */
static int add(struct sefa_faults *f, const char *text, bool at_start,
	       unsigned int *id, char *why, size_t why_len)
{
	struct fault_rule *r = malloc(sizeof(*r)), **pp;
	struct sefa_fault_hit hit;
	int ret;

	if (!r)
		return -ENOMEM;
	ret = fault_rule_parse(r, text, f->ndev, why, why_len);
	if (ret)
		goto err_free;
	if (at_start && needs_objects(r)) {
		snprintf(why, why_len,
			 "'%s' at start: no QP or CQ exists yet; add it with softefa inject add once the client made them",
			 r->hit.event == SEFA_FAULT_EV_QP_FATAL ?
			 "type=qp-fatal" : "type=cq-error");
		ret = -EINVAL;
		goto err_free;
	}

	pthread_mutex_lock(&f->lock);
	if (f->nrules >= FAULT_MAX_RULES) {
		pthread_mutex_unlock(&f->lock);
		snprintf(why, why_len, "the table holds %d rules: clear some",
			 FAULT_MAX_RULES);
		ret = -ENOSPC;
		goto err_free;
	}
	r->id = f->next_id++;
	r->hit.id = r->id;
	/* The default seed is the id: a run's rules draw what the last drew. */
	if (!r->has_seed)
		r->seed = r->id;
	r->rng = r->seed;
	for (pp = &f->rules; *pp; pp = &(*pp)->next)
		;
	*pp = r;
	f->nrules++;
	*id = r->id;
	hit = r->hit;
	hit.qpn = r->qpn;
	if (fires_when_added(r->action) && f->on_add)
		count_hit(f, r, r->dev);
	if (!at_start)
		fprintf(stderr,
			"softefad: fault rule %u: %s (seed %" PRIu64 ")\n",
			r->id, r->text, r->seed);
	if (fires_when_added(r->action) && f->on_add)
		f->on_add(f->on_add_arg, &hit, r->dev);
	pthread_mutex_unlock(&f->lock);
	return 0;

err_free:
	free(r);
	return ret;
}

int sefa_fault_add(struct sefa_faults *f, const char *text, unsigned int *id,
		   char *why, size_t why_len)
{
	return add(f, text, false, id, why, why_len);
}

int sefa_fault_add_file(struct sefa_faults *f, const char *path, char *why,
			size_t why_len)
{
	char line[FAULT_TEXT_MAX * 2], reason[160], *hash;
	unsigned int lineno = 0, id;
	FILE *fp = fopen(path, "r");
	int ret = 0;

	if (!fp) {
		ret = -errno;
		snprintf(why, why_len, "%s: %s", path, strerror(-ret));
		return ret;
	}
	while (fgets(line, sizeof(line), fp)) {
		lineno++;
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		if (!line[strspn(line, " \t\r\n")])
			continue;
		ret = add(f, line, true, &id, reason, sizeof(reason));
		if (ret) {
			snprintf(why, why_len, "%s:%u: %s", path, lineno,
				 reason);
			break;
		}
	}
	fclose(fp);
	return ret;
}

int sefa_fault_clear(struct sefa_faults *f, unsigned int id)
{
	struct fault_rule **pp, *r;
	int ret = id ? -ENOENT : 0;

	pthread_mutex_lock(&f->lock);
	for (pp = &f->rules; (r = *pp);) {
		if (id && r->id != id) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		f->nrules--;
		free(r);
		ret = 0;
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

static bool gid_eq(const uint8_t *a, const uint8_t *b)
{
	return b && !memcmp(a, b, 16);
}

/* The matchers that need no state. */
static bool matches(const struct fault_rule *r,
		    const struct sefa_fault_ctx *w)
{
	if (!(w->actions & SEFA_FAULT_BIT(r->action)))
		return false;
	/* A black hole swallows what goes either way between the pair. */
	if (r->action == SEFA_FAULT_BLACKHOLE && r->peer_dev != SEFA_FAULT_NO_DEV &&
	    r->dev != SEFA_FAULT_NO_DEV)
		return (w->dev == r->dev && w->peer_dev == r->peer_dev) ||
		       (w->dev == r->peer_dev && w->peer_dev == r->dev);
	if (r->dev != SEFA_FAULT_NO_DEV && r->dev != w->dev)
		return false;
	if (r->peer_dev != SEFA_FAULT_NO_DEV && r->peer_dev != w->peer_dev)
		return false;
	if (r->qpn != SEFA_FAULT_NO_QPN && r->qpn != w->qpn)
		return false;
	if (r->peer_qpn != SEFA_FAULT_NO_QPN && r->peer_qpn != w->peer_qpn)
		return false;
	if (r->has_peer_gid && !gid_eq(r->peer_gid, w->peer_gid))
		return false;
	if (r->op != SEFA_FAULT_OP_ANY && r->op != w->op)
		return false;
	/* status= is the send queue's, and a receive's only by op=recv */
	if (r->action == SEFA_FAULT_STATUS &&
	    (r->op == SEFA_FAULT_OP_RECV) != (w->op == SEFA_FAULT_OP_RECV))
		return false;
	if (r->obj != SEFA_FAULT_OBJ_NONE && r->obj != w->obj)
		return false;
	return true;
}

/* splitmix64: the rule's own sequence of draws, from its seed. */
static uint64_t draw(struct fault_rule *r)
{
	uint64_t z = (r->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The packet an rnr rule refuses already, or NULL. */
static struct fault_pkt *refused(struct fault_rule *r, uint64_t pkt)
{
	unsigned int i;

	for (i = 0; pkt && i < FAULT_PKTS; i++)
		if (r->pkts[i].pkt == pkt)
			return &r->pkts[i];
	return NULL;
}

/*
 * Whether @r fires on this match; the match is counted.  *@tries: how
 * often the rule has now refused this packet (rnr).
 */
static bool fires(struct fault_rule *r, const struct sefa_fault_ctx *w,
		  uint64_t *tries)
{
	struct fault_pkt *p = NULL;

	/* rnr's tries: a packet it refuses, sent again. */
	if (r->action == SEFA_FAULT_RNR)
		p = refused(r, w->pkt);
	if (p) {
		if (r->tries && p->tries >= r->tries)
			return false;
		*tries = ++p->tries;
		return true;
	}
	r->seen++;
	if (r->nth && r->seen != r->nth)
		return false;
	if (r->has_share &&
	    (double)(draw(r) >> 11) * 0x1p-53 * 100.0 >= r->share)
		return false;
	if (r->action == SEFA_FAULT_RNR && w->pkt) {
		/* the oldest packet's refusals are long over */
		p = &r->pkts[r->next_pkt++ % FAULT_PKTS];
		p->pkt = w->pkt;
		p->tries = 1;
	}
	*tries = 1;
	return true;
}

bool sefa_fault_any(struct sefa_faults *f, unsigned int actions)
{
	const struct fault_rule *r;
	bool any = false;

	if (!f || !atomic_load_explicit(&f->nrules, memory_order_relaxed))
		return false;
	pthread_mutex_lock(&f->lock);
	for (r = f->rules; r && !any; r = r->next)
		any = !r->spent && (actions & SEFA_FAULT_BIT(r->action));
	pthread_mutex_unlock(&f->lock);
	return any;
}

int sefa_fault_match(struct sefa_faults *f, const struct sefa_fault_ctx *what,
		     struct sefa_fault_hit *hit)
{
	struct fault_rule *r;
	uint64_t tries;
	int ret = 0;

	/* No table or no rule, the way every packet goes: no lock. */
	if (!f || !atomic_load_explicit(&f->nrules, memory_order_relaxed))
		return 0;
	pthread_mutex_lock(&f->lock);
	for (r = f->rules; r; r = r->next) {
		if (r->spent || !matches(r, what) || !fires(r, what, &tries))
			continue;
		count_hit(f, r, what->dev);
		/*
		 * nth= names one match: once it has fired (an rnr rule: as
		 * often as tries= says), it is done.
		 */
		if (r->nth && (r->action != SEFA_FAULT_RNR ||
			       (r->tries && tries >= r->tries)))
			r->spent = true;
		*hit = r->hit;
		ret = 1;
		break;
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

void sefa_fault_list_text(struct sefa_faults *f, char *buf, size_t len)
{
	const struct fault_rule *r;
	size_t off;

	off = snprintf(buf, len, "%-4s %-10s %-5s %-20s %s\n", "ID", "HITS",
		       "SPENT", "SEED", "RULE");
	pthread_mutex_lock(&f->lock);
	for (r = f->rules; r && off < len; r = r->next)
		off += snprintf(buf + off, len - off,
				"%-4u %-10" PRIu64 " %-5s %-20" PRIu64 " %s\n",
				r->id, r->hits, r->spent ? "yes" : "no",
				r->seed, r->text);
	pthread_mutex_unlock(&f->lock);
}

void sefa_fault_stats_text(struct sefa_faults *f, char *buf, size_t len)
{
	const struct fault_rule *r;
	size_t off = 0;

	buf[0] = '\0';
	pthread_mutex_lock(&f->lock);
	for (r = f->rules; r && off < len; r = r->next)
		off += snprintf(buf + off, len - off,
				"fault rule %u hits %" PRIu64 "\n", r->id,
				r->hits);
	pthread_mutex_unlock(&f->lock);
}

uint64_t sefa_fault_dev_total(struct sefa_faults *f, int dev)
{
	uint64_t n;

	if (!f || dev < 0 || dev >= SEFA_MAX_DEVICES)
		return 0;
	pthread_mutex_lock(&f->lock);
	n = f->dev_total[dev];
	pthread_mutex_unlock(&f->lock);
	return n;
}
