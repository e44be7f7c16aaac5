/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The userspace provider for EFA devices (libefa): the verbs libibverbs
 * hands it, the efadv direct verbs, the MAD API and the experimental
 * verbs of verbs_exp.h, whether the device is a real EFA or SoftEFA's.
 * This header holds the provider-internal objects and the functions its
 * files share.
 *
 * The provider may include libc, the kernel's UAPI headers (rdma/, linux/),
 * libibverbs' public headers, the project's public headers under
 * include/infiniband and its own headers; nothing of softefa/, which it
 * reaches only through the kernel ABI a device offers.  The private
 * libibverbs ABI is declared in ibverbs_private.h alone.
 */

#ifndef SEFA_PROVIDERS_EFA_EFA_H
#define SEFA_PROVIDERS_EFA_EFA_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/efadv.h>
#include <infiniband/efadv_mad.h>

#include "efa_abi.h"
#include "efa/efa_io_defs.h"
#include "ibverbs_private.h"

struct efa_dev {
	struct verbs_device vdev;
};

/*
 * The lock of a work queue or a CQ.  libibverbs lets threads post to one
 * QP and poll one CQ at the same time, and every post and poll takes one
 * or two of these, so they are test-and-set locks inlined where they are
 * taken: pthread_spin_lock() and pthread_spin_unlock() are two calls into
 * libc.  A waiter spins on plain loads, leaving the line to the holder.
 */
struct efa_spinlock {
	int held;
};

static inline void efa_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

static inline void efa_spin_init(struct efa_spinlock *lock)
{
	lock->held = 0;
}

/* A fetch-or of bit 0 tested alone is one "lock bts" on x86. */
static inline void efa_spin_lock(struct efa_spinlock *lock)
{
	while (__builtin_expect(__atomic_fetch_or(&lock->held, 1,
						  __ATOMIC_ACQUIRE) & 1, 0))
		while (__atomic_load_n(&lock->held, __ATOMIC_RELAXED))
			efa_cpu_relax();
}

static inline void efa_spin_unlock(struct efa_spinlock *lock)
{
	__atomic_store_n(&lock->held, 0, __ATOMIC_RELEASE);
}

/*
 * What the kernel told us about the device when the context was opened.
 * Later verbs size and check their requests against these values instead
 * of asking the kernel again.
 */
struct efa_context {
	struct verbs_context ibvctx;

	/* GET_CONTEXT response udata */
	uint32_t cmds_supp_udata_mask;
	uint16_t sub_cqs_per_cq;
	uint16_t inline_buf_size;
	/* The inline bytes of a 128-byte WQE; 0: the device takes none */
	uint16_t inline_buf_size_ex;
	uint32_t max_llq_size;		/* bytes */
	uint16_t max_tx_batch;		/* units of 64 bytes, 0: unlimited */
	uint16_t min_sq_wr;

	/* QUERY_DEVICE response udata */
	uint32_t device_caps;		/* EFA_QUERY_DEVICE_CAPS_* */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_rdma_size;

	/* QUERY_DEVICE core response */
	uint32_t max_qp;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_sge;
	uint32_t max_sge_rd;

	size_t page_size;

	/* SoftEFA's wake page (efa_ext_abi.h): the word, or NULL */
	const uint32_t *wake;

	/* Indirect keys: 0 not yet asked, 1 the kernel makes them, -1 not */
	int8_t indirect_mr;

	/* Completions name their QP by number; this finds it.  Indexed by
	 * qp_num & qp_table_mask: the device keeps the low bits of the QP
	 * numbers of one context unique.  Written under qp_table_lock; a
	 * QP leaves it also under its CQs' locks, so a poller holding its
	 * CQ lock reads it without the table lock.
	 */
	struct efa_qp **qp_table;
	uint32_t qp_table_mask;
	pthread_spinlock_t qp_table_lock;
};

struct efa_pd {
	struct ibv_pd ibvpd;
	uint16_t pdn;
};

struct efa_mr {
	struct verbs_mr vmr;
	uint64_t iova;			/* what keys address it by */
	/* ibv_exp_create_mr(): a KLM list of up to max_entries regions */
	bool indirect;
	uint32_t max_entries;
};

struct efa_ah {
	struct ibv_ah ibvah;
	uint16_t efa_ah;		/* the device's AH number */
};

/*
 * One ring of a CQ.  The device writes entries with a phase bit that is
 * 1 on the first lap over the (zeroed) ring, 0 on the second, and so on.
 */
struct efa_sub_cq {
	const uint8_t *buf;
	uint32_t consumed_cnt;
	uint32_t qmask;			/* entries - 1 */
	uint8_t phase;
};

struct efa_cq {
	struct verbs_cq verbs_cq;
	struct efadv_cq dv_cq;
	struct efa_spinlock lock;
	uint32_t *db;			/* NULL: the device has none */
	uint16_t cc;			/* entries consumed, all sub-CQs */
	/* Completion events seen, already in the doorbell's cmd_sn bits */
	uint32_t db_cmd_sn;
	uint16_t num_sub_cqs;
	bool with_sgid;			/* the device fills src_addr */
	/* The sub-CQs some QP completes into, polled round-robin; the
	 * device never writes the others.  A sub-CQ stays here once a QP
	 * used it, so completions left by a destroyed QP are still taken.
	 */
	uint16_t num_active;
	uint16_t next_poll_idx;
	struct efa_sub_cq **active;
	struct efa_sub_cq *sole;	/* active[0] while it is alone */
	uint32_t cqe_size;
	/* The entry the extended polling API is looking at, and its QP. */
	const struct efa_io_cdesc_common *cur_cqe;
	const struct efa_qp *cur_qp;

	void *buf;
	size_t buf_size;
	bool buf_ext;			/* the caller's: never unmapped here */
	void *db_page;
	uint16_t cqn;
	struct efa_sub_cq sub_cq_arr[];
};

/*
 * Request ids: every posted WR takes a free index, whose wr_id the
 * completion hands back.  The free indexes form a stack, so the most
 * recently completed index is reused first; completions may come in any
 * order.  The number of indexes in use is the queue's fill level.
 *
 * An in-order queue (the send queue of an RC QP) completes its WQEs in
 * the order they were posted, and successful unsignaled ones not at all.
 * Its request id is the WQE's ring slot instead, and a completion retires
 * every WQE from the oldest outstanding one (ci) up to the one it names.
 */
struct efa_wq {
	uint64_t *wrid;			/* wr_id by request id */
	uint16_t *wrid_idx_pool;	/* free request ids; top at _next */
	uint32_t wrid_idx_pool_next;	/* request ids in use */
	uint32_t wqe_cnt;		/* request ids: the queue's depth */
	uint32_t *db;
	uint16_t pc;			/* producer counter, descriptors */
	uint16_t desc_mask;		/* descriptors in the ring - 1 */
	bool in_order;
	uint16_t ci;			/* in order: oldest outstanding WQE */
	uint16_t max_sge;
	struct efa_spinlock lock;
	void *db_page;
	const uint32_t *wake;		/* the context's */
};

struct efa_sq {
	struct efa_wq wq;
	/* ctrl1 and ctrl2 of every WQE, where its first word has them
	 * (EFA_TX_CTRL()): meta descriptor, first, last, a completion except
	 * on RC, and the ring's phase, which flips at every lap.
	 */
	uint32_t wqe_ctrl;
	uint8_t *desc;			/* LLQ ring */
	uint16_t wqe_size;		/* bytes of a WQE there: 64 or 128 */
	/* RDMA write takes inline data: a 128-byte WQE that asked for it */
	bool inline_write;
	uint32_t max_inline_data;
	uint16_t max_batch_wr;		/* WQEs per doorbell */
	uint16_t max_rdma_sge;
	unsigned int sig_all;		/* SIGNALED if sq_sig_all */
	uint32_t wr_opcodes;		/* 1 << ibv_wr_opcode ibv_post_send takes */
	uint32_t ok_states;		/* 1 << ibv_qp_state posting is allowed in */
	/* RC: no address in the WQE, RDMA in ibv_post_send(), unsignaled
	 * WRs, in-order completions.
	 */
	bool connected;
	void *desc_map;
	size_t desc_map_size;

	/* An ibv_wr_* session is built here and copied to the LLQ when it
	 * completes, so that wr_abort can take it all back.
	 */
	uint8_t *local_queue;		/* wqe_size bytes a WQE */
	struct efa_io_tx_wqe *curr_tx_wqe; /* its first 64 bytes */
	uint32_t num_wqe_pending;
	uint32_t wqe_ctrl_rb;
	int session_err;
};

/*
 * A receive descriptor holds at most 64 KiB - 1 bytes.  A datagram takes
 * at most an MTU (on UD, behind a 40-byte GRH area), so longer SGEs are
 * offered as that much; an RC message can be longer, so on RC an SGE takes
 * as many descriptors as it needs, up to wr_descs for the whole WR, for
 * which the ring has room.
 */
struct efa_rq {
	struct efa_wq wq;
	struct efa_io_rx_desc *buf;
	size_t buf_size;
	uint32_t ok_states;		/* 1 << ibv_qp_state posting is allowed in */
	bool split_sges;
	uint16_t wr_descs;
};

/* The KLM lists of UMR WQEs, max_klms entries per SQ slot (umr.c). */
struct efa_umr {
	struct efa_io_klm *klms;
	struct ibv_mr *mr;
	uint32_t max_klms;		/* 0: the QP takes no UMR WRs */
};

struct efa_qp {
	struct verbs_qp verbs_qp;
	struct efadv_qp dv_qp;
	struct efa_sq sq;
	struct efa_rq rq;
	struct efa_umr umr;
};

static inline struct verbs_context *to_verbs_context(struct ibv_context *ibvctx)
{
	return (struct verbs_context *)((char *)ibvctx -
					offsetof(struct verbs_context, context));
}

static inline struct efa_context *to_efa_context(struct ibv_context *ibvctx)
{
	return (struct efa_context *)((char *)to_verbs_context(ibvctx) -
				      offsetof(struct efa_context, ibvctx));
}

static inline struct efa_pd *to_efa_pd(struct ibv_pd *ibvpd)
{
	return (struct efa_pd *)((char *)ibvpd -
				 offsetof(struct efa_pd, ibvpd));
}

static inline struct efa_ah *to_efa_ah(struct ibv_ah *ibvah)
{
	return (struct efa_ah *)((char *)ibvah -
				 offsetof(struct efa_ah, ibvah));
}

static inline struct efa_cq *to_efa_cq(struct ibv_cq *ibvcq)
{
	return (struct efa_cq *)((char *)ibvcq -
				 offsetof(struct efa_cq, verbs_cq.cq));
}

static inline struct efa_cq *to_efa_cq_ex(struct ibv_cq_ex *ibvcqx)
{
	return (struct efa_cq *)((char *)ibvcqx -
				 offsetof(struct efa_cq, verbs_cq.cq_ex));
}

static inline struct efa_cq *to_efa_cq_dv(struct efadv_cq *efadv_cq)
{
	return (struct efa_cq *)((char *)efadv_cq -
				 offsetof(struct efa_cq, dv_cq));
}

static inline struct efa_qp *to_efa_qp(struct ibv_qp *ibvqp)
{
	return (struct efa_qp *)((char *)ibvqp -
				 offsetof(struct efa_qp, verbs_qp.qp));
}

static inline struct efa_qp *to_efa_qp_ex(struct ibv_qp_ex *ibvqpx)
{
	return (struct efa_qp *)((char *)ibvqpx -
				 offsetof(struct efa_qp, verbs_qp.qp_ex));
}

static inline struct efa_qp *efadv_qp_to_efa_qp(struct efadv_qp *dv_qp)
{
	return (struct efa_qp *)((char *)dv_qp - offsetof(struct efa_qp, dv_qp));
}

static inline uint32_t efa_roundup_pow2(uint32_t n)
{
	return n <= 1 ? n : 1U << (32 - __builtin_clz(n - 1));
}

static inline bool efa_buf_cleared(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		if (p[i])
			return false;
	return true;
}

/* The most inline data a QP of the context may ask for. */
static inline uint32_t efa_ctx_max_inline(const struct efa_context *ctx)
{
	return ctx->inline_buf_size_ex ? ctx->inline_buf_size_ex :
					 ctx->inline_buf_size;
}

/* efa.c */
extern const struct verbs_device_ops efa_dev_ops;
bool efa_is_dev(const struct ibv_device *ibdev);

/* context.c */
struct verbs_context *efa_alloc_context(struct ibv_device *ibdev, int cmd_fd,
					void *private_data);
void efa_ucontext_cmd_init(struct efa_alloc_ucontext *cmd);
void efa_wake_device(const uint32_t *word);
int efa_ucontext_resp_parse(struct efa_context *ctx,
			    const struct efa_alloc_ucontext_resp *resp);
int efa_device_limits_parse(struct efa_context *ctx,
			    const struct efa_query_device_ex_resp *resp,
			    size_t resp_size);

/* device.c */
int efa_query_device_ex(struct ibv_context *ibvctx,
			const struct ibv_query_device_ex_input *input,
			struct ibv_device_attr_ex *attr, size_t attr_size);
int efa_query_port(struct ibv_context *ibvctx, uint8_t port_num,
		   struct ibv_port_attr *port_attr);
#if EFA_IBVERBS_PABI >= 64
int efa_query_port_speed(struct ibv_context *ibvctx, uint32_t port_num,
			 uint64_t *speed);
int efa_query_qp_data_in_order(struct ibv_qp *ibvqp, enum ibv_wr_opcode op,
			       uint32_t flags);
#endif
void efa_device_attr_fixup(const struct efa_context *ctx,
			   struct ibv_device_attr *attr,
			   const struct ib_uverbs_query_device_resp *base);
uint32_t efa_dv_device_caps(uint32_t kernel_caps, bool with_rdma_size);

/* pd_mr.c */
struct ibv_pd *efa_alloc_pd(struct ibv_context *ibvctx);
int efa_dealloc_pd(struct ibv_pd *ibvpd);
struct ibv_mr *efa_reg_mr(struct ibv_pd *ibvpd, void *addr, size_t len,
			  uint64_t hca_va, int access);
int efa_dereg_mr(struct verbs_mr *vmr);
void efa_query_mr_cmd_init(struct efa_query_mr_cmd *cmd, uint32_t mr_handle,
			   struct efa_query_mr_out *out);
void efa_mr_attr_fill(struct efadv_mr_attr *attr,
		      const struct efa_query_mr_out *out);

/* ah.c */
struct ibv_ah *efa_create_ah(struct ibv_pd *ibvpd, struct ibv_ah_attr *attr);
int efa_destroy_ah(struct ibv_ah *ibvah);

/* cq.c */
struct ibv_cq *efa_create_cq(struct ibv_context *ibvctx, int ncqe,
			     struct ibv_comp_channel *channel, int vec);
struct ibv_cq_ex *efa_create_cq_ex(struct ibv_context *ibvctx,
				   struct ibv_cq_init_attr_ex *attr);
int efa_destroy_cq(struct ibv_cq *ibvcq);
int efa_arm_cq(struct ibv_cq *ibvcq, int solicited_only);
void efa_cq_event(struct ibv_cq *ibvcq);
struct efa_cq *efa_cq_alloc(uint16_t num_sub_cqs);
void efa_cq_init_sub_cqs(struct efa_cq *cq, const void *buf,
			 uint16_t num_sub_cqs, uint32_t entries,
			 uint32_t cqe_size);
int efa_cq_activate_sub_cq(struct efa_cq *cq, uint16_t idx);
int efa_dv_cq_attr_parse(struct efa_context *ctx,
			 const struct efadv_cq_init_attr *efa_attr,
			 uint32_t inlen, struct efadv_cq_init_attr *in);

/* poll.c */
int efa_poll_cq(struct ibv_cq *ibvcq, int nwc, struct ibv_wc *wc);
void efa_cq_fill_pfns(struct efa_cq *cq, uint64_t wc_flags);
enum ibv_wc_status efa_wc_status(uint8_t status);
const struct efa_io_cdesc_common *efa_cq_next_cqe(struct efa_cq *cq);

/* qp.c */
struct efa_qp_geom {
	uint32_t sq_wqe_cnt;		/* power of two, or 0: no SQ */
	uint32_t sq_wqe_size;		/* bytes: 64, or 128 */
	bool inline_write;		/* RDMA write takes inline data */
	uint32_t rq_desc_cnt;		/* power of two, or 0: no RQ */
	uint32_t rq_wqe_cnt;
	uint32_t rq_wr_descs;		/* descriptors one receive WR may take */
};

struct ibv_qp *efa_create_qp(struct ibv_pd *ibvpd,
			     struct ibv_qp_init_attr *attr);
struct ibv_qp *efa_create_qp_ex(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *attr);
int efa_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask);
int efa_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		 int attr_mask, struct ibv_qp_init_attr *init_attr);
int efa_destroy_qp(struct ibv_qp *ibvqp);
int efa_qp_geometry(const struct efa_context *ctx,
		    const struct ibv_qp_cap *cap, enum ibv_qp_type type,
		    uint16_t dv_flags, struct efa_qp_geom *geom);
int efa_wq_init(struct efa_wq *wq, uint32_t wqe_cnt, uint32_t desc_cnt,
		uint16_t max_sge, uint32_t *db);
void efa_wq_fini(struct efa_wq *wq);
void efa_qp_setup(const struct efa_context *ctx, struct efa_qp *qp,
		  enum ibv_qp_type type, const struct efa_qp_geom *geom,
		  uint8_t *desc, int sq_sig_all);
void efa_qp_reset_indices(struct efa_qp *qp);
int efa_dv_qp_attr_parse(struct efa_context *ctx,
			 const struct ibv_qp_init_attr_ex *attr_ex,
			 const struct efadv_qp_init_attr *efa_attr,
			 uint32_t inlen, struct efadv_qp_init_attr *out);
void efa_qp_udata_fill(struct efa_compat_create_qp *drv,
		       enum ibv_qp_type type,
		       const struct efadv_qp_init_attr *dv,
		       const struct efa_qp_geom *geom);

/* send.c */
int efa_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		  struct ibv_send_wr **bad_wr);
int efa_tx_wqe_from_wr(const struct efa_sq *sq, const struct ibv_send_wr *wr,
		       uint16_t req_id, struct efa_io_tx_wqe *wqe);
void efa_qp_fill_wr_pfns(struct efa_qp *qp, uint64_t send_ops_flags,
			 uint64_t dv_wr_flags);

/* recv.c */
int efa_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		  struct ibv_recv_wr **bad_wr);
void efa_rx_desc_fill(struct efa_io_rx_desc *desc, const struct ibv_sge *sge,
		      uint16_t req_id, bool first, bool last);

/* umr.c */
int efa_umr_init(struct efa_qp *qp, struct ibv_pd *ibvpd, uint32_t max_klms);
void efa_umr_fini(struct efa_qp *qp);

/* mad.c */
int efa_mad_reg_check(enum efadv_mad_qp_type qp_type,
		      const struct efadv_mad_reg_req *req,
		      uint8_t rmpp_version, uint32_t flags);
int efa_umad_find(const char *sysfs_dir, const char *ibdev, uint8_t port,
		  int *index);
struct efadv_mad_agent *
efa_register_mad_agent_at(const char *sysfs_dir, const char *dev_dir,
			  struct ibv_context *ibvctx, uint8_t port_num,
			  enum efadv_mad_qp_type qp_type,
			  const struct efadv_mad_reg_req *reg_req,
			  uint8_t rmpp_version, uint32_t flags);

#endif /* SEFA_PROVIDERS_EFA_EFA_H */
