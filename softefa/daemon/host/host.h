/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The host layer of softefad: what the simulated machine is made of (the
 * profile, its devices with their object tables, the network interface,
 * the sysfs tree) and the daemon that holds them.  Higher layers' objects
 * appear here only as pointers.
 */
#ifndef SEFA_SOFTEFA_DAEMON_HOST_HOST_H
#define SEFA_SOFTEFA_DAEMON_HOST_HOST_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/ib_user_verbs.h>

#include "dev_limits.h"
#include "efa/efa_io_defs.h"
#include "profile.h"
#include "proto.h"

struct sefa_client;

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
/*
 * Completion vectors: the efa driver makes one completion EQ per online CPU,
 * up to what the device offers (efa_create_eqs); SoftEFA offers this many,
 * and at least 2, since libfabric turns CQ wait objects off on 1.
 */
#define SEFA_MAX_COMP_VECTORS	32
#define SEFA_MIN_COMP_VECTORS	2
#define SEFA_PKEY_TBL_LEN	1

#define SEFA_PAGE_SIZE		4096
#define SEFA_MAX_QP_IDX		256	/* QPN low bits; = max_qp */
#define SEFA_MAX_AH		1024
#define SEFA_MAX_PD		256

/*
 * A memory key is 24 bits (EFA_IO_LKEY_MASK): a slot of the device's key
 * table and the slot's generation, which moves on at each reuse so that a
 * stale key finds nothing.  18 bits of slot hold the 262144 keys EFA
 * reports as max_mr.  The table starts small and doubles as keys are
 * taken, up to the device's max_mr: a device that holds few keys keeps
 * few pages for them.
 */
#define SEFA_MR_GEN_BITS	6
#define SEFA_MR_GEN_MASK	((1U << SEFA_MR_GEN_BITS) - 1)
#define SEFA_MR_SLOTS_MAX	(1U << (24 - SEFA_MR_GEN_BITS))
#define SEFA_MR_SLOTS_FIRST	1024
#define SEFA_MR_SLOT(key)	((key) >> SEFA_MR_GEN_BITS)

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
	uint64_t rnr_errors;	/* of them, sends out of RNR retries */
	uint64_t rdma_reads;	/* RDMA reads requested, completed */
	uint64_t rdma_writes;	/* RDMA writes requested, completed */
	uint64_t rdma_read_bytes;	/* their bytes */
	uint64_t rdma_write_bytes;
	uint64_t retransmits;	/* packets sent again after no answer */
	uint64_t dup_drops;	/* packets that came twice, not delivered twice */
	/* The rest as the efa driver's port hw_counters name them. */
	uint64_t send_wrs;	/* SENDs out, at the requester */
	uint64_t send_bytes;
	uint64_t recv_wrs;	/* SENDs received whole, at the responder */
	uint64_t recv_bytes;
	uint64_t rdma_read_wr_err;	/* reads that completed in error */
	uint64_t rdma_write_wr_err;
	uint64_t rdma_read_resp_bytes;	/* read out of this device's memory */
	uint64_t rdma_write_recv_bytes;	/* written into it by a requester */
	uint64_t retrans_bytes;		/* of the packets in retransmits */
	uint64_t retrans_timeout_events;	/* WQEs out of retries */
	uint64_t unresponsive_remote_events;	/* of them, to a known peer */
};

/*
 * How the engine slept, for softefa stats: its sleeps, those a wake ended
 * (a provider's after its doorbell, or a command's), and the timed looks
 * that found doorbells rung without a wake; and the packets its inbox
 * dropped, full (inbox.c), which the senders' timers send again.
 */
struct sefa_engine_counters {
	uint64_t sleeps;
	uint64_t woken;
	uint64_t unannounced;
	uint64_t inbox_drops;		/* under the inbox's lock */
};

/*
 * The efa driver's device hw_counters: the admin commands a verb would
 * have been on EFA, and the verbs that failed, by kind.  Counted by the
 * client threads under the daemon lock (uverbs/admin_count.c).
 */
struct sefa_admin_counters {
	uint64_t submitted_cmds;
	uint64_t completed_cmds;
	uint64_t cmds_err;
	uint64_t no_completion_cmds;	/* always 0: every command answers */
	uint64_t keep_alive_rcvd;	/* always 0: no keep-alive events */
	uint64_t alloc_pd_err;
	uint64_t create_qp_err;
	uint64_t create_cq_err;
	uint64_t reg_mr_err;
	uint64_t alloc_ucontext_err;
	uint64_t create_ah_err;
	uint64_t mmap_err;
};

/*
 * A counter's names: in softefa stats (NULL: not there) and in sysfs
 * hw_counters (NULL: not there), where it is in its struct
 * (SEFA_NO_COUNTER: always 0), and whether only the device's stats line
 * shows it (a QP's line stays short).  host/counters.c has the tables.
 */
#define SEFA_NO_COUNTER	SIZE_MAX
struct sefa_counter_name {
	const char *stat;
	const char *sysfs;
	size_t off;
	bool device_only;
};
extern const struct sefa_counter_name sefa_port_counter_names[];
extern const size_t sefa_port_counter_count;
extern const struct sefa_counter_name sefa_device_counter_names[];
extern const size_t sefa_device_counter_count;
uint64_t sefa_counter_value(const struct sefa_counter_name *n, const void *k);

struct nic_engine;
struct sefa_shm;

struct sefa_device {
	unsigned int index;
	char name[32];			/* ib device name, efa_N */
	uint64_t node_guid;		/* host byte order */
	uint8_t gid[16];
	uint16_t lid;
	uint16_t sm_lid;
	uint32_t cap_mask;		/* port 1's PortInfo:CapabilityMask */
	uint32_t num_comp_vectors;	/* its completion EQs */
	const struct sefa_profile *profile;
	struct sefa_mad_port *mad;	/* QP0/QP1 of port 1, when has_mad */
	/*
	 * Faults on demand (verbs/async_event.c): port 1 is down, and its
	 * packets are lost; the device died, for good.  Read by the engine
	 * without the daemon lock.
	 */
	atomic_bool port_down;
	atomic_bool fatal;

	/*
	 * What the device's engine works on: its object tables, queues,
	 * keys and counters.  The engine of this device alone holds @lock
	 * for its pass; everyone else takes the daemon lock and then every
	 * device's (sefa_daemon_lock()).
	 */
	pthread_mutex_t lock;
	struct nic_engine *engine;	/* the one that serves it, once started */
	struct sefa_shm *wake_page;	/* that engine's (nic/watch.c) */
	struct sefa_engine_counters engine_cnt;	/* of that engine */
	struct sefa_qp *qp[SEFA_MAX_QP_IDX];
	uint8_t qp_gen[SEFA_MAX_QP_IDX];
	struct sefa_dev_ah ah[SEFA_MAX_AH];	/* by AH number */
	uint8_t pdn_used[SEFA_MAX_PD];
	struct sefa_mr **mr;		/* the key table, mr_slots entries */
	uint8_t *mr_gen;		/* each slot's generation */
	unsigned int mr_slots;
	unsigned int mr_hint;
	struct sefa_cq *armable;	/* CQs the engine watches for arms */
	struct sefa_counters cnt;
	struct sefa_counters hw_shown;	/* in sysfs hw_counters, main thread's */
	struct sefa_admin_counters admin;
	struct sefa_admin_counters admin_shown;	/* as hw_shown */
	/*
	 * The limits in force, which query_device reports, and the objects
	 * of each counted kind the device holds (core/charge.c).
	 */
	uint64_t limit[SEFA_LIMIT_MAX];
	uint64_t used[SEFA_LIMIT_COUNTED];
};

enum sefa_abi_mode {
	SEFA_ABI_IOCTL,		/* a current kernel: ioctl() and write() */
	SEFA_ABI_WRITE,		/* an old kernel: every ioctl is ENOTTY */
};

struct sefa_netdev {
	char name[32];
	int ifindex;
	uint8_t mac[6];
	char addr[64];			/* first address, for humans */
};

/*
 * The wire to other hosts (softefa-wire(7)), and the faults it injects
 * into the packets this daemon sends: percentages and a delay.
 */
struct sefa_wire_opts {
	bool on;
	unsigned int loss;
	unsigned int reorder;
	unsigned int dup;
	unsigned int delay_us;
};

/*
 * Why the wire dropped a datagram it received, for softefa stats' "wire
 * drops" line: each reason has a name there (client.c).
 */
enum sefa_wire_drop {
	SEFA_DROP_TRUNCATED,		/* longer than a frame, or no IPv6 source */
	SEFA_DROP_MALFORMED,		/* no frame nic_frame_parse() takes */
	SEFA_DROP_NO_DEVICE,		/* for no device here */
	SEFA_DROP_BAD_MAD,		/* a MAD frame out of shape */
	/* softefa-wire(7) TRUST: what no request of ours asked for */
	SEFA_DROP_LID_UNASKED,		/* a LID or SM reply not outstanding */
	SEFA_DROP_LID_NOT_SM,		/* a LID query to a host not the SM */
	SEFA_DROP_LID_UNKNOWN,		/* a LID query the SM has no port for */
	SEFA_DROP_SWEEP_UNASKED,	/* a NodeInfo the SM did not ask for */
	SEFA_DROP_SWEEP_FORGED,		/* a GUID not the sender's GID's */
	SEFA_DROP_SWEEP_TAKEN,		/* a LID another live port holds */
	SEFA_DROP_SWEEP_FULL,		/* no room for a new port */
	SEFA_DROP_MAD_UNASKED,		/* a MAD response no agent asked for */
	/* taken by the wire, refused by the NIC (nic/wire.c, nic/seq.c) */
	SEFA_DROP_NOT_PEER,		/* RC: not from the QP's connected peer */
	SEFA_DROP_NO_WINDOW,		/* SRD: no room for one more sender */
	SEFA_DROP_MAX
};

/* What the wire did, for softefa stats. */
struct sefa_wire_counters {
	uint64_t tx_pkts;
	uint64_t rx_pkts;
	uint64_t drops[SEFA_DROP_MAX];	/* received, not taken: rx_bad */
	uint64_t lost;			/* injected: dropped */
	uint64_t dups;			/* injected: sent twice */
	uint64_t reordered;		/* injected: held back */
	uint64_t tx_errors;		/* sendmsg failed */
};

struct nic_net;
struct sefa_faults;
struct sefa_mm;

/*
 * A packet on the one-host path (between two devices of this daemon, or
 * two QPs of one), as the fault engine sees it, and what it does to it:
 * lost, sent twice, held back behind later packets, or delayed.  A packet
 * to or from another host has no device at that end (NULL) but its GID,
 * @remote_gid; of the rules, only a black hole takes it: the wire has its
 * own faults (--wire-loss and the like).
 */
struct sefa_path_pkt {
	const struct sefa_device *src;	/* NULL: not a device of this host */
	const struct sefa_device *dst;	/* NULL: another host's */
	const uint8_t *remote_gid;	/* that other host's device, or NULL */
	uint32_t sqpn;
	uint32_t dqpn;
	uint8_t op;			/* EFA_IO_SEND, _RDMA_READ, _RDMA_WRITE */
	bool imm;			/* carries immediate data */
	bool answer;			/* an ACK or a NAK */
};

struct sefa_daemon;

struct sefa_path_verdict {
	bool drop;
	bool dup;
	bool reorder;
	uint64_t delay_ns;
};

/* Whether rules hold the path now; if so, what they do to @p in @v. */
typedef bool sefa_path_fault_fn(struct sefa_daemon *d,
				const struct sefa_path_pkt *p,
				struct sefa_path_verdict *v);

/*
 * What one open device file may make the daemon hold (softefad(8),
 * LIMITS); 0 is no cap.
 */
struct sefa_caps {
	unsigned int max_objects;	/* verbs objects */
	uint64_t max_queue_bytes;	/* CQ and QP rings, doorbell pages */
};

/*
 * The fabric's subnet manager, its SA and its port sit at this LID, on
 * the host that runs it (every host without a wire, the one started with
 * --sm on one).
 */
#define SEFA_SM_LID		1
#define SEFA_MAD_LEN		256
#define SEFA_QP1_QKEY		0x80010000U
#define SEFA_PERMISSIVE_LID	0xffff

/*
 * A MAD between hosts, as the MAD layer and the NIC hand it to each other:
 * what a UD packet to QP0 or QP1 carries besides the 256 bytes.  A DLID of
 * 0xffff on a packet the NIC sends is the SM's sweep, to every port of the
 * link.
 */
struct sefa_mad_frame {
	uint16_t slid;
	uint16_t dlid;
	uint32_t src_qp;
	uint32_t dst_qp;		/* 0 or 1 */
	uint8_t sgid[16];		/* the sending port's */
	uint8_t dgid[16];		/* the receiving device's, on receipt */
	bool by_gid;			/* sent to @dgid, not routed by DLID */
	bool to_group;			/* came to the link's group */
	const uint8_t *mad;
};

struct sefa_daemon {
	char run_dir[4096];
	enum sefa_abi_mode abi;
	const struct sefa_profile *profile;
	unsigned int host_id;
	bool run_sm;			/* the SM/SA is on this host */
	bool verbose;			/* log every failed request */
	struct sefa_netdev netdev;
	struct sefa_wire_opts wire;
	struct nic_net *net;		/* the NIC's sockets, when wire.on */
	struct sefa_wire_counters wire_cnt;
	unsigned int ndev;
	struct sefa_device dev[SEFA_MAX_DEVICES];
	/* The fault rules (fault/fault.h), or NULL: with their own lock. */
	struct sefa_faults *faults;

	/*
	 * The "kernel lock": clients list, every object, the MAD layer and
	 * the wire to other hosts.  Taken with every device's lock after it
	 * (sefa_daemon_lock()), but for the engines' passes (nic/task.c).
	 */
	pthread_mutex_t lock;
	/* The engine threads (nic/task.c): one per device, or one for all. */
	struct nic_engine *engines[SEFA_MAX_DEVICES];
	unsigned int nengines;
	/*
	 * Timed work of a higher layer (the MAD layer's timeouts and
	 * retries) that the first engine does, under the daemon lock; set
	 * before it starts.  @tick_asked: a command ran, so do it soon.
	 */
	unsigned int (*engine_tick)(struct sefa_daemon *d);
	atomic_bool tick_asked;
	struct sefa_client *clients;
	unsigned int nclients;
	struct sefa_caps caps;
	struct sefa_limits limits;	/* --limit: every device's */
	/*
	 * Faults on demand: @path_fault, set before the engines start,
	 * judges each packet on the one-host path, and each to or from
	 * another host, by the fault rules; while
	 * @freeze_until_ns (CLOCK_MONOTONIC ns; UINT64_MAX: until cleared)
	 * is ahead and its rule is there, the engines pass nothing, and
	 * commands are still answered.
	 */
	sefa_path_fault_fn *path_fault;
	_Atomic uint64_t freeze_until_ns;
	struct sefa_mm *mms;		/* processes with pinned memory */
	int mm_watch;			/* their exits (charge.c) */
	bool mm_watch_on;
	int stop_pipe[2];

	/* The MAD layer (mad.h), when the profile has one. */
	struct sefa_mad_port *sm_port;	/* the daemon's SM/SA */
	pthread_cond_t sm_cond;		/* an issmN was closed */
	struct mad_pkt *mad_wire;	/* MADs in flight, in order */
	struct mad_pkt **mad_wire_tail;
	bool mad_draining;
	uint32_t mad_last_hi_tid;	/* the hi_tid given last */
	/*
	 * MADs to and from other hosts, set when the wire is up: the MAD
	 * layer gives the NIC the ones no port of this host takes, the NIC
	 * gives the MAD layer the ones that came.  Under the daemon lock.
	 */
	int (*mad_out)(struct sefa_daemon *d, const struct sefa_mad_frame *f);
	void (*mad_in)(struct sefa_daemon *d, const struct sefa_mad_frame *f);
	/*
	 * The SM of this host, when it runs one on the wire: the GID that
	 * holds a LID (0, or -ENOENT), and a GID heard from, to ask who it
	 * is (softefa-wire(7) TRUST).  Under the daemon lock.
	 */
	int (*sm_where)(struct sefa_daemon *d, uint16_t lid, uint8_t gid[16]);
	void (*sm_candidate)(struct sefa_daemon *d, const uint8_t gid[16]);
};

#ifndef offsetofend
#define offsetofend(type, member) \
	(offsetof(type, member) + sizeof(((type *)0)->member))
#endif

/* netdev.c */
int sefa_netdev_lookup(const char *name, struct sefa_netdev *nd);
int sefa_netdev_gid_add(const struct sefa_netdev *nd, const uint8_t gid[16],
			bool *added);
void sefa_netdev_gid_del(const struct sefa_netdev *nd, const uint8_t gid[16]);

/* sysfs.c */
int sefa_sysfs_create(const struct sefa_daemon *d);
int sefa_sysfs_port_update(const struct sefa_daemon *d,
			   const struct sefa_device *dev);
void sefa_sysfs_remove(const struct sefa_daemon *d);
/* How often, in ms, hw_counters are brought up to date (their lifespan). */
#define SEFA_HW_COUNTERS_LIFESPAN_MS	100
void sefa_sysfs_counters_refresh(struct sefa_daemon *d);

/* device.c */
int sefa_devices_init(struct sefa_daemon *d, unsigned int ndev);
void sefa_daemon_lock(struct sefa_daemon *d);
void sefa_daemon_unlock(struct sefa_daemon *d);
int sefa_daemon_cond_timedwait(struct sefa_daemon *d, pthread_cond_t *cond,
			       const struct timespec *abstime);
void sefa_gid_str(const uint8_t gid[16], char *buf, size_t len);

#endif
