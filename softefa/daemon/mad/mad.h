/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel's MAD layer for ports that offer it (the extended profile):
 * agents and their registrations, sends with TID rewriting, timeouts and
 * retries, RMPP, the QP0/QP1 wire between the ports of this daemon, the
 * SMA and PMA a driver's process_mad() plays, and the daemon's SM/SA.
 * Everything runs under the daemon lock.
 */
#ifndef SEFA_SOFTEFA_DAEMON_MAD_MAD_H
#define SEFA_SOFTEFA_DAEMON_MAD_MAD_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rdma/ib_user_mad.h>

#include "core/core.h"

#define MAD_SIZE		SEFA_MAD_LEN
#define MAD_HDR_LEN		24
#define MAD_RMPP_HDR_LEN	36
#define MAD_RMPP_DATA		(MAD_SIZE - MAD_RMPP_HDR_LEN)	/* 220 */
#define MAD_SA_HDR_LEN		56
#define MAD_VENDOR_HDR_LEN	40
#define MAD_DEVICE_HDR_LEN	64
#define MAD_NODE_DESC_LEN	64
/* The longest message one write() sends and one RMPP reassembly builds. */
#define MAD_MAX_MSG_LEN		(8U << 20)

#define MAD_BASE_VERSION	1
#define MAD_QP1_QKEY		SEFA_QP1_QKEY
#define MAD_PERMISSIVE_LID	SEFA_PERMISSIVE_LID
#define MAD_MAX_CLASS_VERSION	0x83	/* as the kernel's table */
#define MAD_MAX_CLASS		80	/* plus DR SMPs, 0x81 */

enum {
	MAD_CLASS_SUBN_LID = 0x01,
	MAD_CLASS_SUBN_ADM = 0x03,
	MAD_CLASS_PERF = 0x04,
	MAD_CLASS_DEVICE_MGMT = 0x06,
	MAD_CLASS_DEVICE_ADM = 0x10,
	MAD_CLASS_BIS = 0x12,
	MAD_CLASS_VENDOR2_START = 0x30,
	MAD_CLASS_VENDOR2_END = 0x4f,
	MAD_CLASS_SUBN_DR = 0x81,
};

enum {
	MAD_METHOD_GET = 0x01,
	MAD_METHOD_SET = 0x02,
	MAD_METHOD_TRAP_REPRESS = 0x07,
	MAD_METHOD_GET_TABLE = 0x12,
	MAD_METHOD_RESP = 0x80,
};

enum {
	MAD_STATUS_UNSUP_VERSION = 0x0004,
	MAD_STATUS_UNSUP_METHOD = 0x0008,
	MAD_STATUS_UNSUP_METH_ATTR = 0x000c,
	MAD_STATUS_INVALID_FIELD = 0x001c,
	MAD_STATUS_DR_DIRECTION = 0x8000,
};

enum {
	RMPP_TYPE_DATA = 1,
	RMPP_TYPE_ACK = 2,
	RMPP_TYPE_STOP = 3,
	RMPP_TYPE_ABORT = 4,
	RMPP_FLAG_ACTIVE = 1,
	RMPP_FLAG_FIRST = 2,
	RMPP_FLAG_LAST = 4,
	RMPP_NO_RESPTIME = 0x1f,
	RMPP_STATUS_RESX = 1,
	RMPP_STATUS_T2L = 118,
	RMPP_STATUS_BAD_SEG = 120,
	RMPP_STATUS_BADT = 121,
	RMPP_STATUS_W2S = 122,
	RMPP_STATUS_BAD_STATUS = 124,
	RMPP_STATUS_S2B = 123,
	RMPP_STATUS_UNV = 125,
};

/* The SMA's attributes the SM asks every port for. */
enum {
	SMP_ATTR_NODE_DESC = 0x0010,
	SMP_ATTR_NODE_INFO = 0x0011,
};

#define MAD_NODE_INFO_LEN	40

/* Offsets in a MAD (all fields big-endian). */
enum {
	MAD_OFF_BASE_VERSION = 0,
	MAD_OFF_CLASS = 1,
	MAD_OFF_CLASS_VERSION = 2,
	MAD_OFF_METHOD = 3,
	MAD_OFF_STATUS = 4,
	MAD_OFF_HOP_PTR = 6,		/* DR SMPs: class specific */
	MAD_OFF_HOP_CNT = 7,
	MAD_OFF_TID = 8,
	MAD_OFF_ATTR_ID = 16,
	MAD_OFF_ATTR_MOD = 20,
	RMPP_OFF_VERSION = 24,
	RMPP_OFF_TYPE = 25,
	RMPP_OFF_RTIME_FLAGS = 26,
	RMPP_OFF_STATUS = 27,
	RMPP_OFF_SEG_NUM = 28,
	RMPP_OFF_PAYLEN = 32,		/* NewWindowLast on an ACK */
	VENDOR_OFF_OUI = 37,
	SMP_OFF_DATA = 64,
	PERF_OFF_DATA = 64,
	SA_OFF_ATTR_OFFSET = 44,
	SA_OFF_COMP_MASK = 48,
};

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, (uint16_t)v);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, (uint32_t)v);
}

bool mad_is_rmpp_class(uint8_t mgmt_class);
unsigned int mad_data_offset(uint8_t mgmt_class);
bool mad_is_response(const uint8_t *mad);

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

/*
 * ib_mad_agent: a user's (umad_file) or the daemon's own (handler).  A
 * handler owns the message it gets, which may be shorter than a MAD.
 */
struct mad_agent {
	struct mad_agent *next;		/* on the port */
	struct sefa_mad_port *port;
	struct umad_file *file;
	mad_handler handler;
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

/* mad.c */
int mad_agent_register(struct sefa_mad_port *port, const struct mad_reg *reg,
		       struct mad_agent *agent);
void mad_agent_unregister(struct mad_agent *agent);
int mad_send(struct mad_agent *agent, const struct ib_user_mad_hdr *uhdr,
	     const struct mad_addr *addr, const uint8_t *msg, size_t len,
	     uint32_t timeout_ms, uint32_t retries);
void mad_send_finish(struct mad_send *s);
bool mad_send_matches(const struct mad_send *s, const struct mad_pkt *pkt);
bool mad_send_went_to(const struct mad_send *s, uint16_t lid, bool grh,
		      const uint8_t *gid);
int mad_send_pkt(struct mad_send *s, const uint8_t *mad);
uint64_t mad_wire_tid(const struct mad_agent *agent, const uint8_t *msg);
void mad_xmit(struct sefa_daemon *d, struct mad_pkt *pkt);
void mad_run(struct sefa_daemon *d);
struct mad_pkt *mad_pkt_reply(const struct mad_pkt *req,
			      const struct sefa_mad_port *port);
int mad_reply(struct sefa_mad_port *port, const struct mad_pkt *req,
	      const uint8_t *resp);
struct mad_recv *mad_recv_new(size_t len);
void mad_deliver_done(struct mad_agent *agent, struct mad_recv *r,
		      const struct mad_pkt *pkt);
uint64_t mad_now_ns(void);

/* rmpp.c */
bool rmpp_agent(const struct mad_agent *agent);
int rmpp_send_start(struct mad_send *s, const uint8_t *msg, size_t len);
void rmpp_send_window(struct mad_send *s);
struct mad_recv *rmpp_recv(struct mad_agent *agent, const struct mad_pkt *pkt);
void rmpp_recv_free(struct rmpp_recv *rr);
unsigned int rmpp_tick(struct mad_agent *agent, uint64_t now);
void rmpp_send_free(struct rmpp_send *r);

/* mad_local.c: the driver's process_mad(): SMA and PMA of a port. */
bool mad_local_process(struct sefa_mad_port *port, const struct mad_pkt *pkt);
void mad_node_info(const struct sefa_device *dev, uint8_t *ni);
void mad_node_desc(const struct sefa_daemon *d, const struct sefa_device *dev,
		   uint8_t *desc);

/* sm.c: the SM's view of the fabric; sa.c: its SA */
int sm_init(struct sefa_daemon *d, struct sefa_mad_port *port);
void sm_fini(struct sefa_mad_port *port);
void sm_tick(struct sefa_mad_port *port, uint64_t now);
const struct sm_node *sm_nodes(const struct sefa_mad_port *port,
			       unsigned int *n);
int sa_init(struct sefa_mad_port *port);

/* umad.c */
void umad_queue(struct umad_file *f, struct mad_agent *agent,
		struct mad_recv *r);

/* mad.c: the MAD layer; umad.c: the umad and issm files */
int sefa_mad_init(struct sefa_daemon *d);
unsigned int sefa_mad_tick(struct sefa_daemon *d);
void sefa_mad_wire_in(struct sefa_daemon *d, const struct sefa_mad_frame *f);
int sefa_sm_where(struct sefa_daemon *d, uint16_t lid, uint8_t gid[16]);
void sefa_sm_candidate(struct sefa_daemon *d, const uint8_t gid[16]);
int sefa_umad_open(struct sefa_client *c, unsigned int index, bool issm,
		   bool nonblock);
int64_t sefa_umad_call(struct sefa_client *c, const struct sefa_req *req);
const char *sefa_umad_ioctl_name(uint64_t request);
void sefa_umad_close(struct sefa_client *c);


#endif
