/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside the MAD layer: the packet, send, receive, agent and port its
 * files share, and what each file offers the files above it.
 *
 * The room is built in floors, from the bottom up; a file calls only the
 * files listed before it:
 *
 *   format.h     the wire format; includes nothing of the room
 *   packet.c     the clock, received messages, the queue of packets
 *   send.c       sends tracked by their agent, matched to responses
 *   rmpp.c       RMPP segmentation, windows and reassembly
 *   mad_local.c  the SMA and PMA a driver's process_mad() plays
 *   agent.c      registration, TID routing, the receive and send paths
 *   route.c      draining the queue to ports here or to other hosts
 *   sm.c         the daemon's SM: its view of the fabric, its sweep
 *   sa.c         the SA on the SM's port, answering from that view
 *   umad.c       the umad and issm files of user processes
 *   ports.c      the layer's ports at start, and its timers
 *
 * A lower floor hands work up without calling it: packets wait on the
 * queue for route.c to drain, and an agent's owner sets the handlers
 * that take its messages and its sends' timeouts.  Files here include
 * format.h, this header and mad.h, and from outside the room core/core.h
 * (with the host it brings) and the kernel's umad ABI only.
 * Everything runs under the daemon lock.
 */
#ifndef SEFA_SOFTEFA_DAEMON_MAD_LAYER_H
#define SEFA_SOFTEFA_DAEMON_MAD_LAYER_H

#include <endian.h>
#include <string.h>

#include <rdma/ib_user_mad.h>

#include "mad/format.h"
#include "mad/mad.h"

/*
 * One MAD on the wire: a single 256-byte packet between QP0s or QP1s of
 * this daemon's ports, with what the receive work completion reports.
 */
struct mad_pkt {
	struct mad_pkt *next;
	uint16_t slid;
	uint16_t dlid;
	uint32_t src_qp;
	uint32_t dst_qp;
	uint8_t sl;
	uint16_t pkey_index;
	bool grh;
	bool by_gid;		/* to another host at @dgid, not by DLID */
	bool from_wire;		/* from another host */
	uint8_t sgid[16];
	uint8_t dgid[16];
	/* a DR SMP answered at its own port: no wire, SLID permissive */
	struct sefa_mad_port *loopback;
	uint8_t mad[MAD_SIZE];
};

/* Where a send goes, taken from the user's header once. */
struct mad_addr {
	uint16_t dlid;
	uint32_t dst_qp;
	uint8_t sl;
	uint16_t pkey_index;
	bool grh;
	bool by_gid;	/* an answer: to the GID the question came from */
	uint8_t dgid[16];
};

struct mad_agent;
struct umad_file;

/*
 * A message ready for an agent: the bytes read() hands out after the
 * header (a whole MAD, or a reassembled RMPP message) and the header.
 */
struct mad_recv {
	struct mad_recv *next;
	struct ib_user_mad_hdr hdr;
	size_t len;
	uint8_t data[];
};

/* An RMPP transfer this side sends: a kernel-RMPP agent's message. */
struct rmpp_send {
	uint8_t *msg;		/* hdr_len bytes of headers, then the data */
	size_t hdr_len;
	size_t data_len;
	unsigned int seg_count;
	unsigned int pad;
	unsigned int last_ack;	/* segments the receiver has */
	unsigned int seg_sent;	/* highest segment sent */
	unsigned int newwin;	/* the receiver lets us send up to this */
};

/*
 * A send the layer still tracks: waiting for a response (timeout_ms), or
 * an RMPP transfer in progress.  Sends that expect nothing are gone once
 * on the wire, as their completion would be.
 */
struct mad_send {
	struct mad_send *next;
	struct mad_agent *agent;
	uint64_t tid;
	uint8_t mgmt_class;
	bool response;		/* for the duplicate check */
	struct mad_addr addr;
	uint32_t timeout_ms;
	uint32_t retries_left;
	uint32_t max_retries;
	uint64_t due_ns;	/* response or ACK deadline */
	bool waiting_resp;	/* everything sent; a response is due */
	struct ib_user_mad_hdr uhdr;	/* the user's header: timeout report */
	uint8_t mad[MAD_SIZE];	/* a single-MAD send, as sent */
	struct rmpp_send *rmpp;
};

/* An RMPP transfer this side receives. */
struct rmpp_recv {
	struct rmpp_recv *next;
	uint64_t tid;
	uint32_t src_qp;
	uint16_t slid;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	unsigned int seg_num;	/* segments received in order */
	unsigned int newwin;
	bool done;		/* kept a while to re-ACK duplicates */
	uint64_t expire_ns;
	struct mad_pkt first;	/* segment 1, the reply address */
	uint8_t *data;		/* the read() layout, grown per segment */
	size_t len;
};

typedef void (*mad_handler)(struct mad_agent *agent, struct mad_recv *r,
			    const struct mad_pkt *pkt);
typedef void (*mad_timeout_handler)(struct mad_agent *agent,
				    struct mad_recv *r);

/*
 * ib_mad_agent: a user's (umad_file) or the daemon's own.  Its owner sets
 * @handler, which owns the message it gets (it may be shorter than a MAD),
 * and, to hear of requests that got no answer, @timed_out, which gets the
 * request's common header with status ETIMEDOUT.
 */
struct mad_agent {
	struct mad_agent *next;		/* on the port */
	struct sefa_mad_port *port;
	struct umad_file *file;
	mad_handler handler;
	mad_timeout_handler timed_out;
	uint32_t id;			/* slot in the file */
	uint32_t hi_tid;
	uint8_t qpn;			/* 0 SMI, 1 GSI */
	bool has_reg;			/* receives requests of a class */
	uint8_t mgmt_class;
	uint8_t class_version;
	uint32_t oui;
	uint64_t method_mask[2];
	uint8_t rmpp_version;
	uint32_t flags;
	/*
	 * The daemon's own agent that asks many ports at once: it takes the
	 * responses to its TIDs that no send waits for.
	 */
	bool all_responses;
	struct mad_send *sends;
	unsigned int nsends;		/* on sends */
	size_t send_bytes;		/* RMPP messages they hold */
	struct rmpp_recv *rmpp_recvs;
};

struct sefa_mad_port {
	struct sefa_daemon *d;
	struct sefa_device *dev;	/* NULL: the SM's own port */
	uint16_t lid;
	uint8_t gid[16];
	struct mad_agent *agents;
	struct umad_file *sm_holder;	/* the open issmN */
	/* PortCounters Set clears: what the counters read then */
	struct sefa_counters pma_base;
	struct sm_fabric *fabric;	/* the SM's port: the ports it knows */
};

/* A port of the fabric, as the SM knows it (sm.c). */
struct sm_node {
	uint16_t lid;
	bool local;			/* of this host: known, never swept */
	bool has_desc;
	uint8_t gid[16];
	uint8_t node_info[MAD_NODE_INFO_LEN];
	uint8_t desc[MAD_NODE_DESC_LEN];
	uint64_t seen_ns;
};

struct mad_reg {
	uint8_t qpn;
	uint8_t mgmt_class;		/* 0: responses only */
	uint8_t class_version;
	uint32_t oui;
	uint64_t method_mask[2];
	uint8_t rmpp_version;
	uint32_t flags;
};

/* packet.c */
uint64_t mad_now_ns(void);
struct mad_recv *mad_recv_new(size_t len);
void mad_xmit(struct sefa_daemon *d, struct mad_pkt *pkt);
struct mad_pkt *mad_pkt_reply(const struct mad_pkt *req,
			      const struct sefa_mad_port *port);
int mad_reply(struct sefa_mad_port *port, const struct mad_pkt *req,
	      const uint8_t *resp);

/* send.c */
void mad_send_free(struct mad_send *s);
void mad_send_link(struct mad_send *s);
void mad_send_finish(struct mad_send *s);
bool mad_send_matches(const struct mad_send *s, const struct mad_pkt *pkt);
bool mad_send_went_to(const struct mad_send *s, uint16_t lid, bool grh,
		      const uint8_t *gid);
int mad_send_pkt(struct mad_send *s, const uint8_t *mad);
uint64_t mad_wire_tid(const struct mad_agent *agent, const uint8_t *msg);

/* rmpp.c */
bool rmpp_agent(const struct mad_agent *agent);
int rmpp_send_start(struct mad_send *s, const uint8_t *msg, size_t len);
void rmpp_send_window(struct mad_send *s);
struct mad_recv *rmpp_recv(struct mad_agent *agent, const struct mad_pkt *pkt);
void rmpp_recv_free(struct rmpp_recv *rr);
unsigned int rmpp_tick(struct mad_agent *agent, uint64_t now);

/* mad_local.c: the driver's process_mad(): SMA and PMA of a port. */
bool mad_local_process(struct sefa_mad_port *port, const struct mad_pkt *pkt);
void mad_node_info(const struct sefa_device *dev, uint8_t *ni);
void mad_node_desc(const struct sefa_daemon *d, const struct sefa_device *dev,
		   uint8_t *desc);

/* agent.c */
int mad_agent_register(struct sefa_mad_port *port, const struct mad_reg *reg,
		       struct mad_agent *agent);
void mad_agent_unregister(struct mad_agent *agent);
void mad_port_recv(struct sefa_mad_port *port, const struct mad_pkt *pkt);
int mad_send(struct mad_agent *agent, const struct ib_user_mad_hdr *uhdr,
	     const struct mad_addr *addr, const uint8_t *msg, size_t len,
	     uint32_t timeout_ms, uint32_t retries);
unsigned int mad_port_tick(struct sefa_mad_port *port, uint64_t now);

/* route.c */
void mad_run(struct sefa_daemon *d);

/* sm.c: the SM's view of the fabric; sa.c: its SA */
int sm_init(struct sefa_daemon *d, struct sefa_mad_port *port);
void sm_fini(struct sefa_mad_port *port);
void sm_tick(struct sefa_mad_port *port, uint64_t now);
const struct sm_node *sm_nodes(const struct sefa_mad_port *port,
			       unsigned int *n);
int sa_init(struct sefa_mad_port *port);

#endif
