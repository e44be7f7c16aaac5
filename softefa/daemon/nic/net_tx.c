// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bytes onto the wire's sockets: at once, or through the faults asked for
 * with --wire-* (lost, sent twice, held back behind later packets or
 * delayed), which hold a packet back until it is due.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "nic/net_loc.h"

#define ROCE_PORT	4791

uint64_t nic_net_now_ns(void)
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

void nic_net_sockaddr(const struct sefa_daemon *d, const uint8_t gid[16],
		      struct sockaddr_in6 *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sin6_family = AF_INET6;
	sa->sin6_port = htons(ROCE_PORT);
	if (gid)
		memcpy(&sa->sin6_addr, gid, 16);
	sa->sin6_scope_id = d->netdev.ifindex;
}

/* A copy of @len bytes of @buf to hold until @due_ns, or NULL. */
struct held_pkt *nic_net_held_new(uint64_t due_ns, int fd, const void *buf,
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

void nic_net_held_free(struct held_pkt *h)
{
	struct held_pkt *next;

	for (; h; h = next) {
		next = h->next;
		free(h);
	}
}

void nic_net_send_now(struct sefa_daemon *d, int fd,
		      const struct sockaddr_in6 *to, const void *buf,
		      size_t len)
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
	struct held_pkt *h = nic_net_held_new(due_ns, fd, buf, len), **pp;

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
void nic_net_send_faulty(struct sefa_daemon *d, uint64_t now, int fd,
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
		delay += NIC_REORDER_NS;
	}
	while (copies--) {
		if (!delay || hold(n, now + delay, fd, to, n->tx, len))
			nic_net_send_now(d, fd, to, n->tx, len);
	}
}

/* The held packets that are due go out. */
unsigned int nic_net_send_held(struct nic_engine *eng)
{
	struct nic_net *n = eng->d->net;
	unsigned int work = 0;
	struct held_pkt *h;

	while ((h = n->held) && h->due_ns <= eng->now) {
		n->held = h->next;
		nic_net_send_now(eng->d, h->fd, &h->to, h->data, h->len);
		free(h);
		work++;
	}
	return work;
}
