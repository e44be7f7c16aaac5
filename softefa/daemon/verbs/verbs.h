/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The verbs objects of softefad: the handle table of a connection, and the
 * PD, MR (direct and indirect), AH, CQ and QP the commands create and the
 * NIC works on.
 */
#ifndef SEFA_SOFTEFA_DAEMON_VERBS_VERBS_H
#define SEFA_SOFTEFA_DAEMON_VERBS_VERBS_H

#include "core/core.h"
#include "fault/fault.h"

enum sefa_obj_type {
	SEFA_OBJ_PD = 1,
	SEFA_OBJ_MR,
	SEFA_OBJ_CQ,
	SEFA_OBJ_QP,
	SEFA_OBJ_AH,
};

struct sefa_uobj {
	enum sefa_obj_type type;
	uint32_t handle;
	struct sefa_client *c;
	unsigned int usecnt;	/* objects that point at this one */
};

/*
 * The object that embeds @ptr as its @member.  The conditional makes the
 * compiler check that @ptr points at the member's type.
 */
#define container_of(ptr, type, member) \
	((type *)((char *)(1 ? (ptr) : &((type *)0)->member) - \
		  offsetof(type, member)))

/* No object has it: the table stops far below (sefa_uobj_add()). */
#define SEFA_NO_HANDLE	UINT32_MAX

struct sefa_pd {
	struct sefa_uobj uobj;
	struct sefa_device *dev;
	uint16_t pdn;
};

/* One entry of an indirect key: a range of a region, by its key. */
struct sefa_klm {
	uint32_t lkey;		/* a direct region of the key's PD */
	uint64_t addr;		/* iova in that region */
	uint64_t length;
	uint64_t offset;	/* where the entry starts in the key's range */
};

/*
 * A memory region, or an indirect key (a list of ranges of regions, set
 * by UMR work requests).  Both share the key space and the MR handles; an
 * indirect key's iova, length and access describe its current fill.
 */
struct sefa_mr {
	struct sefa_uobj uobj;
	struct sefa_pd *pd;
	struct sefa_mm *mm;	/* its pinned pages; NULL: indirect */
	uint64_t npages;	/* of them, this region's */
	uint64_t addr;		/* process virtual address */
	uint64_t length;
	uint64_t iova;		/* what work requests address */
	uint32_t access;	/* IBV_ACCESS_* */
	uint32_t lkey;		/* = rkey */

	bool indirect;
	bool filled;		/* a free key grants nothing */
	uint32_t max_entries;
	uint32_t max_access;	/* the most a fill may grant */
	uint32_t nentries;
	struct sefa_klm *klm;	/* max_entries of them */
};

/* An AH object: its own handle, the device's AH of its (PD, GID). */
struct sefa_ah {
	struct sefa_uobj uobj;
	struct sefa_pd *pd;
	uint16_t ahn;
};

#define SEFA_MAX_SUB_CQS 8

/*
 * A CQ ring in the process's memory (create_cq's BUFFER attributes): a
 * mapping of the file it named (a dma-buf, or a memfd in its place), or a
 * pinned range of its address space that entries reach through
 * process_vm_writev().  cq_buf.c.
 */
struct sefa_cq_ext {
	void *map;			/* the daemon's mapping, or NULL */
	size_t map_len;
	struct sefa_mm *mm;		/* the range's process; NULL: a map */
	uint64_t npages;		/* pinned for the range */
	uint64_t va;			/* where the ring starts there */
};

struct sefa_cq {
	struct sefa_uobj uobj;
	struct sefa_device *dev;
	uint64_t user_handle;
	uint32_t depth;			/* entries per sub-CQ */
	uint16_t entry_size;
	uint16_t num_sub_cqs;
	bool with_sgid;
	struct sefa_shm *ring;		/* the device's ring; NULL: ext */
	uint8_t *ring_addr;		/* entries, unless ext.mm */
	struct sefa_cq_ext ext;
	struct sefa_shm *db;		/* consumer index and arm, at offset 0 */
	uint64_t produced[SEFA_MAX_SUB_CQS];	/* entries written */
	/* The doorbell at the device's last look, and produced[] then. */
	uint32_t db_seen;
	uint64_t produced_seen[SEFA_MAX_SUB_CQS];
	struct sefa_event_file *channel;
	uint32_t comp_events_queued;
	uint32_t async_events_queued;
	uint32_t armed_sn;		/* cmd_sn of the arm being served */
	bool armed;
	bool fired;			/* the event of armed_sn went out */
	bool overrun;			/* proven: in error, nothing written */
	struct sefa_cq *next_armable;	/* device list of CQs with a channel */
};

/*
 * A send WQE the NIC has let go of but not retired: one whose packet is
 * out to another host, awaiting its answer, or one the receiver was not
 * ready for (SRD RNR retry, the RC head).  Messages longer than one packet
 * go out a packet at a time; @off counts the bytes answered.
 */
struct sefa_pending {
	struct efa_io_tx_wqe_128 wqe;
	uint64_t due_ns;		/* sent again then */
	uint64_t len;			/* bytes of the message */
	uint64_t off;			/* of them acknowledged */
	uint32_t psn;			/* of the packet awaiting its answer */
	uint64_t sent_ns;		/* when it went, the first time */
	bool out;			/* awaiting an answer, or an RNR wait */
	unsigned int retries;		/* RNR retries done so far */
	unsigned int tries;		/* times the packet was sent again */
	struct sefa_pending *next;
};

/*
 * What one sending QP of another host had delivered to a datagram QP: the
 * PSNs from @base on, as bits, so that a packet that comes twice is
 * answered but not delivered twice (the NIC's responder keeps them, in
 * nic/seq.c).  A QP keeps them in a hash table of at most SEFA_PEER_MAX,
 * oldest first on a list by their last packet.
 */
#define SEFA_PEER_WIN		4096
#define SEFA_PEER_MAX		1024	/* windows of one QP: its AHs' worth */
#define SEFA_PEER_BUCKETS	256

struct sefa_peer_win {
	uint8_t gid[16];
	uint32_t qpn;
	uint32_t base;
	uint64_t last_ns;		/* its last packet */
	bool delivered;			/* what came twice would be delivered */
	struct sefa_peer_win *hnext;	/* in its bucket */
	struct sefa_peer_win *older, *newer;
	uint64_t bits[SEFA_PEER_WIN / 64];
};

struct sefa_peer_tab {
	uint32_t salt;			/* a stranger cannot aim at a bucket */
	unsigned int n;
	struct sefa_peer_win *oldest, *newest;
	struct sefa_peer_win *bucket[SEFA_PEER_BUCKETS];
};

/* RC: the receive a message of several packets is being placed in. */
struct sefa_rc_rx {
	struct efa_io_rx_desc desc[16];
	unsigned int n;
	uint64_t off;			/* bytes placed so far */
	int status;			/* the first failure, or OK */
};

/*
 * Each stage of the NIC owns its part of a QP, as rxe's requester,
 * responder and completer own qp->req, qp->resp and qp->comp: only the
 * stage named writes it (and verbs/, which sets it up on create and
 * modify; and seq.c, the one place a PSN advances); the others may read
 * it.  A WQE held at the head of the SQ (RC) leaves it when it completes:
 * the completer counts it done in its part, and the requester moves
 * sq_ci past it when it next reads the queue.
 */

/* The requester's: how far it has read the send queue. */
struct sefa_qp_req {
	uint16_t sq_ci;			/* next WQE the device reads */
	uint16_t heads_passed;		/* of comp.heads_done, sq_ci is past */
	uint32_t sq_db_seen;		/* the SQ doorbell at the last look */
	uint32_t sq_psn;		/* next PSN, advanced by seq.c only */
	unsigned int wqe_refused;	/* WQEs refused as malformed */
};

/*
 * The completer's: the sends out and what answered them.  The requester
 * adds to the pending list through nic_comp_await(); the completer retires.
 */
struct sefa_qp_comp {
	struct sefa_pending *pending;	/* SRD sends out or RNR-waiting */
	unsigned int npending;
	uint64_t srtt_ns;		/* smoothed round trip to other hosts */
	uint64_t rttvar_ns;		/* and how much it varies */
	uint64_t ack_ns;		/* SRD: the last answer from them */
	uint64_t acked_sent_ns;		/* when the last sent of those went */
	struct sefa_pending *rc_head;	/* RC: the head, out to another host */
	uint16_t heads_done;		/* RC: heads retired, a running count */
	uint64_t rnr_due_ns;		/* head of the SQ waits until then */
	uint64_t rnr_wait_ns;		/* what the RC receiver asked for */
	unsigned int rnr_tries;
	unsigned int failed;		/* send completions not OK, nor RNR */
};

/* The responder's: the receive queue and what has arrived. */
struct sefa_qp_resp {
	uint16_t rq_ci;			/* next descriptor the device uses */
	uint32_t rq_psn;		/* RC: next PSN expected */
	struct sefa_peer_tab *seen;	/* UD, SRD: what peers had delivered */
	struct sefa_rc_rx *rc_rx;	/* RC: a message of several packets */
	unsigned int dma_faults;	/* requests whose memory failed */
	unsigned int failed;		/* receive completions not OK */
};

struct sefa_qp {
	struct sefa_uobj uobj;
	struct sefa_device *dev;
	struct sefa_pd *pd;
	struct sefa_cq *send_cq;
	struct sefa_cq *recv_cq;
	uint16_t send_sub_cq;
	uint16_t recv_sub_cq;
	uint64_t user_handle;
	int type;			/* IBV_QPT_UD, IBV_QPT_DRIVER (SRD) */
	int state;			/* enum ibv_qp_state */
	uint32_t qpn;
	uint32_t qkey;
	uint8_t rnr_retry;
	bool sq_sig_all;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;
	uint8_t sl;			/* the service level asked for */
	/* a write with immediate completes here with no receive taken */
	bool unsolicited_write_recv;

	struct sefa_shm *sq_ring;	/* the LLQ */
	uint32_t sq_entries;		/* WQEs, a power of two */
	uint32_t sq_wqe_size;		/* EFA_IO_TX_WQE_SIZE or _128_SIZE */
	struct sefa_shm *rq_ring;
	uint32_t rq_entries;		/* RX descriptors, a power of two */
	struct sefa_shm *db;		/* SQ doorbell at 0, RQ doorbell at 64 */

	struct sefa_qp_req req;
	struct sefa_qp_comp comp;
	struct sefa_qp_resp resp;
	uint32_t events_queued;
	struct sefa_counters cnt;

	/* RC: the connection, set on the way to RTR and RTS */
	uint32_t access_flags;		/* IBV_ACCESS_REMOTE_* it serves */
	struct ib_uverbs_qp_dest dest;
	uint32_t dest_qpn;
	uint8_t path_mtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t min_rnr_timer;		/* what this QP tells its peers */
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
};

#define SEFA_SQ_DB_OFF	0
#define SEFA_RQ_DB_OFF	64

/*
 * What create_cq's BUFFER_* attributes said (each has_* for one given):
 * the ring at a user address, or in a file at an offset, of a length.
 */
struct sefa_cq_buf_attrs {
	uint64_t va;
	uint64_t length;
	uint64_t offset;
	int fd;				/* the caller's number for it */
	bool has_va, has_length, has_fd, has_offset;
};

struct sefa_cq_params {
	uint32_t cqe;
	uint64_t user_handle;
	int channel_fd;			/* client fd number, or -1 */
	uint32_t comp_vector;
	uint32_t flags;
	struct sefa_cq_buf_attrs buf;
};

struct sefa_qp_params {
	struct sefa_pd *pd;
	struct sefa_cq *send_cq;
	struct sefa_cq *recv_cq;
	uint64_t user_handle;
	int type;
	bool sq_sig_all;
	bool has_srq;
	uint32_t create_flags;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline;
};

/* objects.c */
int sefa_uobj_add(struct sefa_client *c, struct sefa_uobj *u,
		  enum sefa_obj_type type);
void sefa_uobj_del(struct sefa_uobj *u);
int sefa_create_fault(struct sefa_client *c, enum sefa_fault_obj obj);
struct sefa_pd *sefa_pd_from_handle(struct sefa_client *c, uint32_t handle);
struct sefa_mr *sefa_mr_from_handle(struct sefa_client *c, uint32_t handle);
struct sefa_ah *sefa_ah_from_handle(struct sefa_client *c, uint32_t handle);
struct sefa_cq *sefa_cq_from_handle(struct sefa_client *c, uint32_t handle);
struct sefa_qp *sefa_qp_from_handle(struct sefa_client *c, uint32_t handle);
int sefa_bad_handle(struct sefa_client *c, int err, enum sefa_obj_type type,
		    uint32_t handle);
int sefa_pd_alloc(struct sefa_client *c, struct sefa_pd **out);
int sefa_pd_destroy(struct sefa_pd *pd);
int sefa_mr_reg(struct sefa_client *c, struct sefa_pd *pd, uint64_t addr,
		uint64_t length, uint64_t iova, uint32_t access,
		struct sefa_mr **out);
int sefa_mr_dereg(struct sefa_mr *mr);
struct sefa_mr *sefa_mr_get(struct sefa_device *dev, uint32_t key);
bool sefa_mr_holds(const struct sefa_mr *mr, uint64_t iova, uint64_t len);
struct sefa_mr *sefa_mr_lookup(struct sefa_device *dev, uint32_t key,
			       uint64_t iova, uint64_t len);
int sefa_mr_create_indirect(struct sefa_client *c, struct sefa_pd *pd,
			    uint32_t max_entries, uint32_t access,
			    struct sefa_mr **out);
int sefa_mr_fill(struct sefa_mr *mkey, const struct efa_io_klm *klm,
		 unsigned int n, uint64_t base, uint32_t access);
void sefa_mr_invalidate(struct sefa_mr *mkey);
int sefa_ah_create(struct sefa_client *c, struct sefa_pd *pd,
		   const uint8_t gid[16], struct sefa_ah **out);
int sefa_ah_destroy(struct sefa_ah *ah);
uint16_t sefa_ah_find(const struct sefa_pd *pd, const uint8_t gid[16]);
int sefa_uobj_destroy(struct sefa_client *c, uint32_t handle,
		      enum sefa_obj_type type);

/* cq.c */
struct ib_uverbs_destroy_cq_resp;
int sefa_cq_create(struct sefa_cmd *cmd, const struct sefa_cq_params *p,
		   struct sefa_cq **out);
int sefa_cq_destroy(struct sefa_cq *cq, struct ib_uverbs_destroy_cq_resp *resp);
unsigned int sefa_cq_poll_arm(struct sefa_cq *cq);
bool sefa_cq_write(struct sefa_cq *cq, unsigned int sub,
		   const struct efa_io_rx_cdesc_ex *e, size_t len);
void sefa_async_event(struct sefa_client *c, uint64_t element, uint32_t type,
		      uint32_t *counter);

/* async_event.c */
enum sefa_async_kind {
	SEFA_ASYNC_QP_FATAL,
	SEFA_ASYNC_CQ_ERR,
	SEFA_ASYNC_PORT_DOWN,
	SEFA_ASYNC_PORT_UP,
	SEFA_ASYNC_DEVICE_FATAL,
};

int sefa_async_raise(struct sefa_daemon *d, struct sefa_device *dev,
		     enum sefa_async_kind kind, int64_t qpn);

/* cq_buf.c */
int sefa_cq_ext_get(struct sefa_client *c, const struct sefa_cq_buf_attrs *b,
		    size_t ring_len, struct sefa_cq_ext *ext, bool *used,
		    uint8_t **ring);
void sefa_cq_ext_put(struct sefa_client *c, struct sefa_cq_ext *ext);
void sefa_cq_ext_write(struct sefa_cq_ext *ext, size_t off,
		       const uint8_t *entry, size_t len, size_t flags_off);

/* qp.c */
struct efa_ibv_create_qp_resp;
struct ib_uverbs_modify_qp;
struct ib_uverbs_query_qp_resp;
int sefa_qp_create(struct sefa_cmd *cmd, const struct sefa_qp_params *p,
		   struct sefa_qp **out, struct efa_ibv_create_qp_resp *resp);
void sefa_qp_abort(struct sefa_qp *qp);
uint32_t sefa_qp_destroy(struct sefa_qp *qp);
struct sefa_qp *sefa_qp_lookup(struct sefa_device *dev, uint32_t qpn);
int sefa_qp_modify(struct sefa_qp *qp, const struct ib_uverbs_modify_qp *m);
void sefa_qp_query(const struct sefa_qp *qp, struct ib_uverbs_query_qp_resp *r);

#endif
