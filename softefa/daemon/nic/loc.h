/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Inside the NIC: the packet its stages pass each other, the engine
 * thread's state, and what each stage's file offers the others.  Only the
 * files of nic/ (and the NIC's unit tests and fuzz harnesses) include it;
 * it includes nic/nic.h and the device ABI, nothing above the NIC.
 *
 * The files call one way, down: the engine (task.c, watch.c) runs the
 * requester (req.c), which hands a WQE to the completer (comp.c); the
 * responder (resp.c) answers through the wire (wire.c), which sends
 * through the inboxes (inbox.c) and the network (net.c).  Nothing below
 * calls a stage by name: a packet goes up through the callbacks the
 * engine sets in struct nic_engine, and a stage that needs another to run
 * leaves it work the other finds on its turn (a packet due at once).
 *
 * The NIC of every device of this host is a pipeline.  The requester
 * (req.c) reads a send queue, checks a WQE against its own QP and keys and
 * makes it a packet; the wire (wire.c) finds the device the packet is
 * addressed to and hands it to that device's responder (resp.c), which
 * checks it against the target QP and keys, places the data, completes the
 * receive and answers with an ACK or a NAK; the wire takes the answer to
 * the requester's device, where the completer (comp.c) retires the WQE
 * into the send CQ, or has it sent again while the receiver is not ready.
 * Keys are resolved by mr.c, bytes moved by dma.c, and the engine thread
 * (task.c) runs the pipeline over every QP on each pass.
 *
 * UD is unreliable: a packet with no receive buffer, a wrong Q_Key or no
 * such QP is lost, nobody answers it, and the send completes once on the
 * wire.  SRD is reliable and at most once: the sender learns the outcome,
 * and receiver-not-ready is retried rnr_retry times (7: forever) before an
 * RNR error completion.  RC is in order: the WQE at the head of the SQ
 * waits there until its answer comes.
 */
#ifndef SEFA_SOFTEFA_DAEMON_NIC_LOC_H
#define SEFA_SOFTEFA_DAEMON_NIC_LOC_H

#include <stdio.h>

#include "efa/efa_ext_abi.h"
#include "nic/nic.h"

#define DMA_CHUNK		(64 * 1024)
#define MAX_SGE			16
/* A receive WR of MAX_SGE buffers, each through a full indirect key. */
#define MAX_SEGS		(MAX_SGE * SEFA_INDIRECT_MR_MAX_ENTRIES)

/* Count @n on a QP and on its device. */
#define NIC_COUNT(qp, field, n)				\
	do {						\
		(qp)->cnt.field += (n);			\
		(qp)->dev->cnt.field += (n);		\
	} while (0)

/*
 * A failed completion says why in the log, for the first of each kind of
 * queue of a QP, or each with --verbose (softefad(8), LOG): a client that
 * only reports "an error" leaves a trace of which and where.
 */
static inline void nic_log_failed(const struct sefa_qp *qp,
				  unsigned int *failed, const char *queue,
				  int status)
{
	const struct sefa_client *c = qp->uobj.c;

	if (!(*failed)++ || c->d->verbose)
		fprintf(stderr, "softefad: pid %d: QP %u: a %s completed with status %d\n",
			(int)c->pid, qp->qpn, queue, status);
}

/* A piece of process memory the engine reads or writes. */
struct dma_seg {
	const struct sefa_mm *mm;	/* whose memory */
	uint64_t addr;
	uint64_t len;
};

/* Where the keys of one side of a transfer lead. */
struct seg_list {
	struct dma_seg *seg;
	unsigned int n;
};

/*
 * What a packet asks: the op types of the WQE, which the receive
 * completion reports too; or what it answers.
 */
enum sefa_pkt_op {
	SEFA_PKT_SEND = EFA_IO_SEND,
	SEFA_PKT_READ = EFA_IO_RDMA_READ,
	SEFA_PKT_WRITE = EFA_IO_RDMA_WRITE,
	SEFA_PKT_ACK = 8,		/* an ACK or a NAK, by its status */
};

#define SEFA_PKT_IMM		0x01	/* carries immediate data */
#define SEFA_PKT_NET		0x02	/* from another host: bytes, no segs */
#define SEFA_PKT_FIRST		0x04	/* RC SEND: the message's first packet */
#define SEFA_PKT_LAST		0x08	/* and its last (both: the only one) */

/*
 * The most a packet between hosts carries: a datagram message of an MTU
 * whole, a longer message or RDMA in packets of this much.
 */
#define NIC_WIRE_CHUNK		(32 * 1024)

/*
 * A packet held back to be reordered, on the wire or the one-host path,
 * waits this much longer than the rest.
 */
#define NIC_REORDER_NS		(200 * 1000)

/* frame.c: packets as bytes on the wire (softefa-wire(7)) */
#define NIC_FRAME_MAX		(64 + NIC_WIRE_CHUNK + 8)

/*
 * A packet between the stages: a request from a requester to a responder,
 * or the answer back to the requester's completer.  Devices are named by
 * GID (an RC path without a GRH by LID), so a wire between hosts can carry
 * it as it is.  Its payload is the requester's buffers on the short local
 * path, where the responder moves bytes straight between the two
 * processes (a read's data into them), or bytes (inline data).
 */
struct sefa_pkt {
	uint8_t op;			/* enum sefa_pkt_op */
	uint8_t qpt;			/* IBV_QPT_UD, _DRIVER (SRD), _RC */
	uint8_t flags;			/* SEFA_PKT_* */
	uint8_t status;			/* ACK: the requester's completion */
	uint8_t rnr_timer;		/* ACK: the receiver's min_rnr_timer */
	uint16_t dlid;			/* nonzero: routed by LID, not dgid */
	uint8_t sgid[16];
	uint8_t dgid[16];
	uint32_t sqpn;
	uint32_t dqpn;
	uint32_t qkey;
	uint32_t psn;			/* the request's, echoed */
	uint32_t imm;
	uint32_t rkey;
	uint64_t raddr;
	uint32_t lwm;			/* SRD, UD: the sender's oldest PSN out */
	uint64_t len;			/* bytes of the message or RDMA */
	uint64_t off;			/* to another host: the packet's part */
	struct seg_list segs;		/* the requester's buffers */
	const void *data;		/* or, when set, the payload itself */
};

/*
 * What the host's path faults judge a packet by; the caller says which
 * way it goes (src, dst, remote_gid).
 */
static inline struct sefa_path_pkt nic_path_pkt(const struct sefa_pkt *pkt)
{
	return (struct sefa_path_pkt){
		.sqpn = pkt->sqpn,
		.dqpn = pkt->dqpn,
		.op = pkt->op,
		.imm = pkt->flags & SEFA_PKT_IMM,
		.answer = pkt->op == SEFA_PKT_ACK,
	};
}

/* Where a WQE stands once the requester let go of it. */
enum nic_send_state {
	NIC_SEND_OUT,			/* on the wire, unanswered */
	NIC_SEND_RETIRED,		/* completed, whatever the status */
	NIC_SEND_RNR,			/* receiver not ready: again later */
};

/*
 * A WQE between the requester and the completer: what the answer needs
 * to retire it or to have it sent again.
 */
struct nic_send {
	struct sefa_qp *qp;
	const struct efa_io_tx_wqe_128 *wqe;	/* the requester's copy */
	uint32_t psn;
	uint64_t off;			/* bytes of the message answered */
	bool at_head;			/* RC: on the SQ until it retires */
	struct sefa_pending *retry;	/* SRD: its entry, when sent again */
	unsigned int rnr_done;		/* RNR retries, this one included */
	bool no_packet;			/* a local operation, or refused */
	enum nic_send_state state;
	const void *data;		/* a SEND's payload, read ahead */
};

struct nic_engine;
typedef void nic_xmit_fn(struct nic_engine *eng, const struct sefa_pkt *pkt);
/* A packet arrived at @dev: how a lower file hands it up. */
typedef void nic_recv_fn(struct nic_engine *eng, struct sefa_device *dev,
			 const struct sefa_pkt *pkt);

/* SENDs whose payloads the requester reads ahead at once (req.c) */
#define AHEAD_WQES		32
#define AHEAD_SEGS		64
#define AHEAD_BYTES		(64 * 1024)

/*
 * One engine thread's own: the daemon and the devices it serves, its
 * sleep and its inbox, the time of its pass, the wire its stages send on,
 * the WQE whose packet is on it, and the buffers its stages share, too big
 * for its stack (the payload bounce, the two sides' segments, a UMR's
 * list, the WQEs read ahead and their payloads, a packet to another
 * engine).  Every stage is handed it, so that nothing of the NIC is
 * file-static.
 */
struct nic_watch;
struct nic_inbox;

struct nic_engine {
	struct sefa_daemon *d;
	unsigned int first, ndev;	/* d->dev[first], and ndev-1 after it */
	struct nic_watch *watch;	/* its sleep (watch.c), as a thread */
	struct nic_inbox *inbox;	/* from the other engines (inbox.c) */
	pthread_t thread;
	atomic_bool stop;
	uint64_t tick_ns;		/* the higher layer's timed work, last */
	bool timeless;			/* its last look: nothing to look for */
	uint64_t now;			/* CLOCK_MONOTONIC ns, at the pass */
	nic_xmit_fn *xmit;		/* nic_wire_xmit, or a test's */
	/*
	 * Where packets go up, set by the engine (task.c): the transport
	 * below the stages hands a packet on through these and never calls
	 * a stage by name.  @deliver takes what came from an inbox or the
	 * network to the wire (nic_wire_deliver), which hands a request to
	 * @resp_recv (nic_resp_recv) and an answer to @comp_recv
	 * (nic_comp_recv).
	 */
	nic_recv_fn *deliver;
	nic_recv_fn *resp_recv;
	nic_recv_fn *comp_recv;
	struct nic_send *send;		/* awaiting its answer */
	uint8_t bounce[DMA_CHUNK];
	struct dma_seg local_segs[MAX_SEGS];
	struct dma_seg peer_segs[MAX_SEGS];
	struct efa_io_klm umr_list[SEFA_INDIRECT_MR_MAX_ENTRIES];
	struct efa_io_tx_wqe_128 ahead_wqe[AHEAD_WQES];
	const uint8_t *ahead_data[AHEAD_WQES];
	struct dma_seg ahead_segs[AHEAD_SEGS];
	uint8_t ahead_buf[AHEAD_BYTES];
	uint8_t frame[NIC_FRAME_MAX];
};

/* frame.c */
size_t nic_frame_hdr(const struct sefa_pkt *pkt, uint64_t len, uint8_t *buf);
size_t nic_frame_trailer(uint64_t len, uint8_t *buf);
ssize_t nic_frame_pkt(const struct sefa_pkt *pkt, uint8_t *buf);
int nic_frame_parse(const uint8_t *buf, size_t len, struct sefa_pkt *pkt);

/* lid.c: which GID holds a LID, as the SM says */
struct nic_lids;

struct nic_lid_ask {
	enum {
		NIC_LID_ASK_NONE,
		NIC_LID_ASK_SM,		/* the link's group: where is the SM */
		NIC_LID_ASK_LID,	/* the SM at @to: where is the LID */
	} what;
	uint64_t tid;
	uint8_t to[16];
};

int nic_lids_new(struct nic_lids **out);
void nic_lids_free(struct nic_lids *l);
const uint8_t *nic_lid_route(struct nic_lids *l, uint16_t lid, uint64_t now,
			     struct nic_lid_ask *q);
bool nic_lid_sm_found(struct nic_lids *l, uint64_t tid, const uint8_t *from);
bool nic_lid_learn(struct nic_lids *l, uint16_t lid, uint64_t tid,
		   const uint8_t *from, const uint8_t *gid, uint64_t now);

/*
 * net.c: the sockets to other hosts; net_lid.c: where a LID is; net_tx.c:
 * the faults they inject (their own header: nic/net_loc.h)
 */
/*
 * Where a LID is: SoftEFA's own packets, in the manufacturer-specific
 * opcodes beyond SRD's (net_lid.c, lid.c).  The search for the SM goes to
 * every daemon on the link, at a multicast group of its own, and the SM
 * answers from its GID; a question about a LID goes to the SM alone.
 * After BTH: the LID, two zero bytes, the transaction id and the GID that
 * holds the LID, zero in questions, which are as long as answers so that
 * no answer is larger than what drew it.
 */
#define NIC_OP_LID_QUERY	0xe0
#define NIC_OP_LID_REPLY	0xe1
#define NIC_OP_SM_QUERY		0xe2
#define NIC_OP_SM_REPLY		0xe3
#define NIC_LID_OFF_LID	12
#define NIC_LID_OFF_TID	16
#define NIC_LID_OFF_GID	24
#define NIC_LID_PKT_LEN	(NIC_LID_OFF_GID + 16 + 4)
struct sockaddr_in6;
int nic_net_xmit(struct nic_engine *eng, const struct sefa_pkt *pkt);
unsigned int nic_net_poll(struct nic_engine *eng);
void nic_net_deliver(struct nic_engine *eng, struct sefa_device *dev,
		     const uint8_t *buf, size_t len,
		     const struct sockaddr_in6 *from);
void nic_net_read_none(struct sefa_daemon *d);
bool nic_net_wait(struct sefa_daemon *d, int kick_fd, long ns);
bool nic_net_gid_seen(struct sefa_daemon *d, const uint8_t gid[16]);
bool nic_net_lid_is(struct nic_engine *eng, const struct sefa_device *dev,
		    uint16_t lid, const uint8_t gid[16]);

/* mr.c */
int nic_key_resolve(struct sefa_device *dev, const struct sefa_pd *pd,
		    uint32_t key, uint64_t iova, uint64_t len,
		    uint32_t need_access, struct seg_list *out);

/* dma.c */
int nic_dma_copy(struct nic_engine *eng, const struct seg_list *src,
		 const struct seg_list *dst, uint64_t len, bool *src_fault);
int nic_dma_buf(const struct seg_list *segs, uint64_t off, void *buf,
		uint64_t len, bool out);

/* req.c */
void nic_req_exec(struct nic_engine *eng, struct nic_send *s);
unsigned int nic_req_sq(struct nic_engine *eng, struct sefa_qp *qp);
unsigned int nic_req_retry(struct nic_engine *eng, struct sefa_qp *qp);

/* lookup.c */
struct sefa_device *nic_device_by_gid(struct sefa_daemon *d,
				      const uint8_t gid[16]);
struct sefa_device *nic_device_by_lid(struct sefa_daemon *d, uint16_t lid);

/* wire.c */
nic_xmit_fn nic_wire_xmit;
nic_recv_fn nic_wire_deliver;
void nic_wire_answer(struct nic_engine *eng, const struct sefa_pkt *req,
		     const uint8_t gid[16], int status, uint8_t rnr_timer);
void nic_wire_read_resp(struct nic_engine *eng, const struct sefa_pkt *req,
			const uint8_t gid[16], const void *data, uint64_t len);
void nic_wire_dropped(struct nic_engine *eng, const struct sefa_pkt *pkt,
		      enum sefa_wire_drop why);

/* resp.c */
nic_recv_fn nic_resp_recv;
void nic_resp_flush(struct sefa_qp *qp);

/* seq.c */
enum seq_verdict {
	SEQ_NEW,			/* deliver it */
	SEQ_DUP,			/* came before: answer, do not deliver */
	SEQ_DROP,			/* ahead of what we can tell: ignore */
	SEQ_REFUSE,			/* no window for its sender: drop */
};

enum seq_verdict nic_seq_check(struct sefa_qp *tqp, const struct sefa_pkt *pkt,
			       uint64_t now, struct sefa_peer_win **w);
void nic_seq_done(struct sefa_qp *tqp, struct sefa_peer_win *w,
		  const struct sefa_pkt *pkt);
uint32_t nic_seq_next_psn(struct sefa_qp *qp);

/* comp.c */
nic_recv_fn nic_comp_recv;
void nic_comp_retire(struct nic_send *s, int status);
void nic_comp_await(struct nic_engine *eng, struct nic_send *s,
		    const struct sefa_pkt *pkt);
bool nic_comp_overdue(const struct nic_engine *eng, const struct sefa_qp *qp,
		      const struct sefa_pending *p);
bool nic_comp_timeout(struct nic_engine *eng, struct nic_send *s);
void nic_comp_flush(struct sefa_qp *qp);

/* inbox.c: packets between the engines of this daemon */
int nic_inbox_open(struct nic_engine *eng);
void nic_inbox_close(struct nic_engine *eng);
int nic_inbox_xmit(struct nic_engine *eng, struct sefa_device *dev,
		   const struct sefa_pkt *pkt, uint64_t due_ns);
uint64_t nic_inbox_next_due(struct nic_engine *eng);
bool nic_inbox_trylock_device(struct sefa_device *dev);
void nic_inbox_unlock_device(struct sefa_device *dev);
unsigned int nic_inbox_poll(struct nic_engine *eng);

/* task.c */
void nic_engine_init(struct nic_engine *eng, struct sefa_daemon *d);
struct nic_engine *nic_engine_new(struct sefa_daemon *d);
unsigned int nic_engine_run(struct nic_engine *eng);
unsigned int nic_engine_pass(struct nic_engine *eng);

/* watch.c */
int nic_watch_open(struct nic_engine *eng);
void nic_watch_close(struct nic_engine *eng);
void nic_watch_prepare_sleep(struct nic_watch *w);
void nic_watch_doorbell(struct nic_watch *w, const uint32_t *db,
			uint32_t seen);
void nic_watch_end_sleep(struct nic_watch *w);
void nic_watch_polling(struct nic_watch *w, bool on);
void nic_watch_kick(struct nic_watch *w);
enum nic_watch_wake {
	WATCH_TIMEOUT,			/* the time came */
	WATCH_WAKE,			/* a wake, or a packet */
	WATCH_STREAM,			/* a wake for a queue already busy */
};

enum nic_watch_wake nic_watch_sleep(struct nic_watch *w, long ns);

#endif
