/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The wire between hosts, inside: the state its three files share.  net.c
 * opens the sockets, sends a packet and takes in what comes; net_lid.c
 * finds the GID a LID is at; net_tx.c puts bytes on a socket, through the
 * faults asked for.  Each calls only the ones after it in that list, and
 * includes only nic/loc.h and this header.
 */
#ifndef SEFA_SOFTEFA_DAEMON_NIC_NET_LOC_H
#define SEFA_SOFTEFA_DAEMON_NIC_NET_LOC_H

#include <netinet/in.h>

#include "nic/loc.h"

#define RX_BATCH	16
#define SEEN_MAX	256

/*
 * A packet held back: by the fault injection until @due_ns, to @to; or,
 * a MAD, until the answer about @lid gives it an address or @due_ns
 * passes and it is lost (nic_net_lid_wait()).
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
	bool sm_sought;		/* nic_net_lid_find_sm() */
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

/* net_lid.c: where a LID is, asked of the SM over the link */
extern const uint8_t nic_lid_group[16];
const uint8_t *nic_net_lid_route(struct sefa_daemon *d, uint64_t now, int fd,
				 uint16_t lid);
void nic_net_lid_find_sm(struct sefa_daemon *d, uint64_t now);
void nic_net_lid_wait(struct nic_net *n, uint64_t now, uint16_t lid, int fd,
		      size_t len);
void nic_net_lid_waits_run(struct sefa_daemon *d, uint64_t now, uint16_t lid,
			   const uint8_t *gid);
bool nic_net_lid_recv(struct nic_engine *eng, const uint8_t *buf, size_t len,
		      const struct sockaddr_in6 *from);

/* net_tx.c: bytes onto a socket, now or held back by a fault */
uint64_t nic_net_now_ns(void);
void nic_net_sockaddr(const struct sefa_daemon *d, const uint8_t gid[16],
		      struct sockaddr_in6 *sa);
struct held_pkt *nic_net_held_new(uint64_t due_ns, int fd, const void *buf,
				  size_t len);
void nic_net_held_free(struct held_pkt *h);
void nic_net_send_now(struct sefa_daemon *d, int fd,
		      const struct sockaddr_in6 *to, const void *buf,
		      size_t len);
void nic_net_send_faulty(struct sefa_daemon *d, uint64_t now, int fd,
			 const struct sockaddr_in6 *to, size_t len);
unsigned int nic_net_send_held(struct nic_engine *eng);

#endif
