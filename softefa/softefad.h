/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * softefad: the kernel (ib_uverbs + the efa driver) and the NIC of a
 * software EFA device, for one simulated host.
 */
#ifndef SOFTEFAD_H
#define SOFTEFAD_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/ib_user_verbs.h>

#include "efa_io_defs.h"
#include "proto.h"

struct sefa_client;

/* What one kind of device reports; see profile.c. */
struct sefa_profile {
	const char *name;
	uint32_t node_type;		/* enum ibv_node_type / rdma node type */
	const char *node_type_str;	/* sysfs node_type text */
	uint8_t link_layer;		/* IBV_LINK_LAYER_* */
	bool has_lid;			/* ports get LIDs from the daemon's SM */
	bool has_mad;			/* umad/issm nodes, QP0/QP1 MAD service */
	uint16_t vendor_part_id;
	uint32_t max_qp;
	uint32_t max_qp_wr;
	uint32_t max_sge;
	uint32_t max_sge_rd;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_ah;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t mtu;			/* bytes: port max_msg_sz */
	uint8_t active_mtu;		/* IBV_MTU_* */
	/* efa driver data */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_rdma_size;
	uint32_t device_caps;		/* EFA_QUERY_DEVICE_CAPS_* */
	uint16_t sub_cqs_per_cq;
	uint16_t inline_buf_size;
	uint32_t max_llq_size;
	uint16_t max_tx_batch;
	uint16_t min_sq_wr;
	bool mr_ic_ids;			/* MR query reports interconnect ids */
	uint8_t max_qp_rd_atom;		/* RC: RDMA reads in flight */
};

const struct sefa_profile *sefa_profile_find(const char *name);

#define SEFA_VENDOR_ID		0x1d0f
#define SEFA_HW_REV		1

/* PortInfo:CapabilityMask bits of an InfiniBand-style port. */
#define SEFA_CAP_IS_SM			(1U << 1)
#define SEFA_CAP_SYS_IMAGE_GUID		(1U << 11)
#define SEFA_CAP_EXT_SPEEDS		(1U << 14)
#define SEFA_CAP_VENDOR_CLASS		(1U << 20)
#define SEFA_CA_CAP_MASK	(SEFA_CAP_SYS_IMAGE_GUID | SEFA_CAP_EXT_SPEEDS | \
				 SEFA_CAP_VENDOR_CLASS)
#define SEFA_GID_TBL_LEN	1
#define SEFA_PKEY_TBL_LEN	1
#define SEFA_NUM_COMP_VECTORS	1

#define SEFA_PAGE_SIZE		4096
#define SEFA_MAX_QP_IDX		256	/* QPN low bits; = max_qp */
#define SEFA_MAX_AH		1024
#define SEFA_MAX_PD		256
#define SEFA_MAX_MR_IDX		65536	/* lkey = index << 8 | generation */

struct sefa_qp;
struct sefa_mr;
struct sefa_pd;
struct sefa_mad_port;
struct mad_pkt;
struct umad_file;

/*
 * An address handle of the device: one per (PD, destination GID), as EFA
 * keeps them.  Every AH object of that PD to that GID names this one.
 */
struct sefa_dev_ah {
	struct sefa_pd *pd;
	uint8_t gid[16];
	unsigned int users;		/* AH objects; 0: a free slot */
};

/* Per-device packet counters, also kept per QP. */
struct sefa_counters {
	uint64_t tx_pkts;
	uint64_t tx_bytes;
	uint64_t rx_pkts;
	uint64_t rx_bytes;
	uint64_t rx_drops;	/* UD: no buffer, bad Q_Key, no such QP */
	uint64_t rnr_retries;	/* SRD receiver-not-ready, retried */
	uint64_t errors;	/* error completions */
	uint64_t rdma_reads;	/* RDMA reads requested, completed */
	uint64_t rdma_writes;	/* RDMA writes requested, completed */
};

struct sefa_device {
	unsigned int index;
	char name[32];			/* ib device name, efa_N */
	uint64_t node_guid;		/* host byte order */
	uint8_t gid[16];
	uint16_t lid;
	uint16_t sm_lid;
	uint32_t cap_mask;		/* port 1's PortInfo:CapabilityMask */
	const struct sefa_profile *profile;
	struct sefa_mad_port *mad;	/* QP0/QP1 of port 1, when has_mad */

	/* The device's object tables, under the daemon lock. */
	struct sefa_qp *qp[SEFA_MAX_QP_IDX];
	uint8_t qp_gen[SEFA_MAX_QP_IDX];
	struct sefa_dev_ah ah[SEFA_MAX_AH];	/* by AH number */
	uint8_t pdn_used[SEFA_MAX_PD];
	struct sefa_mr **mr;		/* SEFA_MAX_MR_IDX entries */
	uint8_t *mr_gen;
	unsigned int mr_hint;
	struct sefa_cq *armable;	/* CQs the engine watches for arms */
	struct sefa_counters cnt;
};

enum sefa_abi_mode {
	SEFA_ABI_IOCTL,		/* a current kernel: ioctl() and write() */
	SEFA_ABI_WRITE,		/* an old kernel: every ioctl is ENOTTY */
};

struct sefa_netdev {
	char name[32];
	uint8_t mac[6];
	char addr[64];			/* first address, for humans */
};

struct sefa_daemon {
	char run_dir[4096];
	enum sefa_abi_mode abi;
	const struct sefa_profile *profile;
	unsigned int host_id;
	bool verbose;			/* log every failed request */
	struct sefa_netdev netdev;
	unsigned int ndev;
	struct sefa_device dev[SEFA_MAX_DEVICES];

	/*
	 * The "kernel lock": clients list, every object, and the engine's
	 * pass over the queues.
	 */
	pthread_mutex_t lock;
	pthread_t engine;
	bool engine_stop;
	uint64_t activity;		/* bumped by commands, wakes the engine */
	struct sefa_client *clients;
	unsigned int nclients;
	int stop_pipe[2];

	/* The MAD layer (mad.h), when the profile has one. */
	struct sefa_mad_port *sm_port;	/* the daemon's SM/SA */
	pthread_cond_t sm_cond;		/* an issmN was closed */
	struct mad_pkt *mad_wire;	/* MADs in flight, in order */
	struct mad_pkt **mad_wire_tail;
	bool mad_draining;
	uint32_t mad_last_hi_tid;	/* the hi_tid given last */
};

/* A memory region the client may mmap. */
struct sefa_shm {
	int fd;
	void *addr;
	size_t len;
	unsigned int refs;
};

struct sefa_mmap_entry {
	uint64_t key;
	struct sefa_shm *shm;
	size_t off;
	size_t len;
};

/*
 * An event file (async or completion channel).  The client holds one end
 * of a SOCK_SEQPACKET pair; the daemon keeps both, so it can take back
 * events that must not be delivered any more (a destroyed object's).
 */
struct sefa_event_file {
	int fd;			/* daemon end */
	int peer_fd;		/* the client's end, kept open */
	int client_fd;		/* its number in the client */
	ino_t ino;
	size_t reclen;		/* every record has this size */
	struct sefa_event_file *next;
};

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
 * A connection: an open uverbs fd (the kernel's ib_uverbs_file), an open
 * umadN or issmN, or a control request.
 */
struct sefa_client {
	struct sefa_daemon *d;
	struct sefa_device *dev;	/* NULL for control connections */
	struct umad_file *umad;		/* umadN and issmN */
	int sock;
	pid_t pid;
	uid_t uid;
	pthread_t thread;
	struct sefa_client *next;

	/* ib_ucontext: present after GET_CONTEXT */
	atomic_bool has_ucontext;
	uint32_t efa_comp_mask;		/* what userspace announced */
	struct sefa_event_file *async;
	struct sefa_event_file *channels;
	atomic_uint nobjects;

	struct sefa_uobj **uobj;	/* handle table */
	unsigned int nuobj;
	struct sefa_mmap_entry *mmap;
	unsigned int nmmap;
	unsigned int mmap_seq;
};

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
	pid_t pid;		/* whose memory: the registering process */
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

struct sefa_cq {
	struct sefa_uobj uobj;
	struct sefa_device *dev;
	uint64_t user_handle;
	uint32_t depth;			/* entries per sub-CQ */
	uint16_t entry_size;
	uint16_t num_sub_cqs;
	bool with_sgid;
	struct sefa_shm *ring;
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

/* A send WQE waiting for the receiver (SRD RNR retry). */
struct sefa_pending {
	struct efa_io_tx_wqe wqe;
	uint64_t due_ns;
	unsigned int retries;		/* done so far */
	struct sefa_pending *next;
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
	uint32_t sq_psn;
	uint8_t rnr_retry;
	bool sq_sig_all;
	uint32_t max_send_wr, max_recv_wr, max_send_sge, max_recv_sge;
	uint32_t max_inline;

	struct sefa_shm *sq_ring;	/* the LLQ */
	uint32_t sq_entries;		/* WQEs, a power of two */
	uint16_t sq_ci;			/* next WQE the device reads */
	struct sefa_shm *rq_ring;
	uint32_t rq_entries;		/* RX descriptors, a power of two */
	uint16_t rq_ci;			/* next descriptor the device uses */
	struct sefa_shm *db;		/* SQ doorbell at 0, RQ doorbell at 64 */

	struct sefa_pending *pending;
	uint32_t events_queued;
	struct sefa_counters cnt;

	/* RC: the connection, set on the way to RTR and RTS */
	uint32_t access_flags;		/* IBV_ACCESS_REMOTE_* it serves */
	struct ib_uverbs_qp_dest dest;
	uint32_t dest_qpn;
	uint32_t rq_psn;
	uint8_t path_mtu;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t min_rnr_timer;		/* what this QP tells its peers */
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint64_t rnr_due_ns;		/* head of the SQ waits until then */
	uint64_t rnr_wait_ns;		/* what the RC receiver asked for */
	unsigned int rnr_tries;
};

#define SEFA_SQ_DB_OFF	0
#define SEFA_RQ_DB_OFF	64

struct sefa_cq_params {
	uint32_t cqe;
	uint64_t user_handle;
	int channel_fd;			/* client fd number, or -1 */
	uint32_t comp_vector;
	uint32_t flags;
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

#ifndef offsetofend
#define offsetofend(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))
#endif

/* uaccess.c: the kernel's copy_from_user()/copy_to_user(). */
int sefa_copy_from_user(struct sefa_client *c, void *dst, uint64_t src,
			size_t len);
int sefa_copy_to_user(struct sefa_client *c, uint64_t dst, const void *src,
		      size_t len);
int sefa_clear_user(struct sefa_client *c, uint64_t dst, size_t len);
int sefa_user_is_zero(struct sefa_client *c, uint64_t src, size_t len);

/* A user buffer as an ioctl attribute or a write() payload describes it. */
struct sefa_ubuf {
	uint64_t addr;
	size_t len;
	bool is_inline;			/* PTR_IN of 8 bytes or less */
	uint8_t inline_data[8];
};

int sefa_ubuf_read(struct sefa_client *c, const struct sefa_ubuf *b,
		   void *dst, size_t len);
int sefa_ubuf_is_zero_from(struct sefa_client *c, const struct sefa_ubuf *b,
			   size_t from);

/*
 * One uverbs command once decoded, whichever way it arrived: ucore is the
 * core payload, udata the driver's (struct ib_udata).
 */
struct sefa_cmd {
	struct sefa_client *c;
	struct sefa_ubuf core_in;
	struct sefa_ubuf core_out;
	struct sefa_ubuf udata_in;
	struct sefa_ubuf udata_out;
	bool from_ioctl;
};

int sefa_request(struct sefa_cmd *cmd, void *req, size_t size);
int sefa_response(struct sefa_cmd *cmd, const void *resp, size_t size);
int sefa_udata_in(struct sefa_cmd *cmd, void *req, size_t size);
int sefa_udata_out(struct sefa_cmd *cmd, const void *resp, size_t size);

/* uverbs_write.c */
int sefa_uverbs_write(struct sefa_client *c, uint64_t buf, uint64_t count);
int sefa_invoke_write(struct sefa_cmd *cmd, uint32_t command);

/* uverbs_ioctl.c */
int sefa_uverbs_ioctl(struct sefa_client *c, uint64_t request, uint64_t arg);

/* objects.c */
int sefa_uobj_add(struct sefa_client *c, struct sefa_uobj *u,
		  enum sefa_obj_type type);
struct sefa_uobj *sefa_uobj_get(struct sefa_client *c, uint32_t handle,
				enum sefa_obj_type type);
void sefa_uobj_del(struct sefa_uobj *u);
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

#define SEFA_OBJ(c, handle, type, kind) \
	((struct type *)sefa_uobj_get(c, handle, kind))

/* shm.c */
struct sefa_shm *sefa_shm_new(size_t len);
struct sefa_shm *sefa_shm_get(struct sefa_shm *s);
void sefa_shm_put(struct sefa_shm *s);
int sefa_mmap_insert(struct sefa_client *c, struct sefa_shm *s, size_t off,
		     size_t len, uint64_t *key);
void sefa_mmap_remove(struct sefa_client *c, struct sefa_shm *s);
void sefa_mmap_remove_all(struct sefa_client *c);
int64_t sefa_uverbs_mmap(struct sefa_client *c, uint64_t key, uint64_t len,
			 uint64_t flags);

/* event.c */
int sefa_event_file_new(struct sefa_client *c, size_t reclen,
			struct sefa_event_file **out);
void sefa_event_file_free(struct sefa_event_file *ef);
struct sefa_event_file *sefa_channel_lookup(struct sefa_client *c, int fd);
bool sefa_is_async_fd(struct sefa_client *c, int fd);
int sefa_event_send(struct sefa_event_file *ef, const void *rec);
unsigned int sefa_event_purge(struct sefa_event_file *ef, uint64_t element);

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

/* engine.c */
void sefa_qp_flush(struct sefa_qp *qp);
int sefa_engine_start(struct sefa_daemon *d);
void sefa_engine_stop(struct sefa_daemon *d);

/* uverbs_cmd.c: the object commands of the write() ABI */
int sefa_cmd_alloc_pd(struct sefa_cmd *cmd);
int sefa_cmd_dealloc_pd(struct sefa_cmd *cmd);
int sefa_cmd_reg_mr(struct sefa_cmd *cmd);
int sefa_cmd_dereg_mr(struct sefa_cmd *cmd);
int sefa_cmd_create_comp_channel(struct sefa_cmd *cmd);
int sefa_cmd_create_cq(struct sefa_cmd *cmd);
int sefa_cmd_ex_create_cq(struct sefa_cmd *cmd);
int sefa_cmd_destroy_cq(struct sefa_cmd *cmd);
int sefa_cmd_create_qp(struct sefa_cmd *cmd);
int sefa_cmd_modify_qp(struct sefa_cmd *cmd);
int sefa_cmd_query_qp(struct sefa_cmd *cmd);
int sefa_cmd_destroy_qp(struct sefa_cmd *cmd);
int sefa_cmd_create_ah(struct sefa_cmd *cmd);
int sefa_cmd_destroy_ah(struct sefa_cmd *cmd);
int sefa_qp_create_cmd(struct sefa_cmd *cmd, const struct sefa_qp_params *p,
		       struct sefa_qp **out);
void sefa_objects_release(struct sefa_client *c);

/* uverbs_device.c: device-level commands of ib_uverbs. */
int sefa_cmd_get_context(struct sefa_cmd *cmd);
int sefa_cmd_query_device(struct sefa_cmd *cmd);
int sefa_cmd_ex_query_device(struct sefa_cmd *cmd);
int sefa_cmd_query_port(struct sefa_cmd *cmd);
int sefa_alloc_async_fd(struct sefa_client *c, int *client_fd);
void sefa_client_release(struct sefa_client *c);

/* efa.c: the efa kernel driver. */
int efa_alloc_ucontext(struct sefa_cmd *cmd);
int efa_query_device_udata(struct sefa_cmd *cmd);
struct ib_uverbs_query_device_resp;
struct ib_uverbs_query_port_resp;
void efa_fill_device_attr(const struct sefa_device *dev,
			  struct ib_uverbs_query_device_resp *resp);
int efa_fill_port_attr(const struct sefa_device *dev, unsigned int port,
		       struct ib_uverbs_query_port_resp *resp);

/* client.c: connections */
int sefa_client_install_fd(struct sefa_client *c, int fd, int *client_fd);
int sefa_client_start(struct sefa_daemon *d, int sock);
void sefa_clients_shutdown(struct sefa_daemon *d);

/* mad.c: the MAD layer; umad.c: the umad and issm files */
int sefa_mad_init(struct sefa_daemon *d);
unsigned int sefa_mad_tick(struct sefa_daemon *d);
int sefa_umad_open(struct sefa_client *c, unsigned int index, bool issm,
		   bool nonblock);
int64_t sefa_umad_call(struct sefa_client *c, const struct sefa_req *req);
void sefa_umad_close(struct sefa_client *c);

/* netdev.c */
int sefa_netdev_lookup(const char *name, struct sefa_netdev *nd);

/* sysfs.c */
int sefa_sysfs_create(const struct sefa_daemon *d);
int sefa_sysfs_port_update(const struct sefa_daemon *d,
			   const struct sefa_device *dev);
void sefa_sysfs_remove(const struct sefa_daemon *d);

/* device.c */
int sefa_devices_init(struct sefa_daemon *d, unsigned int ndev);
void sefa_gid_str(const uint8_t gid[16], char *buf, size_t len);

#endif
