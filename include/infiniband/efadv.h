/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * EFA direct verbs: source and binary compatible with rdma-core's efadv.h.
 */

#ifndef SEFA_INCLUDE_INFINIBAND_EFADV_H
#define SEFA_INCLUDE_INFINIBAND_EFADV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
	EFADV_QP_DRIVER_TYPE_SRD = 0,
};

struct ibv_qp *efadv_create_driver_qp(struct ibv_pd *ibvpd,
				      struct ibv_qp_init_attr *attr,
				      uint32_t driver_qp_type);

enum {
	EFADV_WR_EX_WITH_PROCESSING_HINTS = 1 << 0,
};

enum {
	EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV = 1 << 0,
	EFADV_QP_FLAGS_INLINE_WRITE = 1 << 1,
};

/*
 * flags and sl follow upstream's layout; this provider takes flags
 * EFADV_QP_FLAGS_INLINE_WRITE where the device has RDMA write in 128-byte
 * WQEs and EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV where it reports
 * EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV (EOPNOTSUPP otherwise),
 * and hands sl, the QP's service level, to the device as it is.  wr_flags
 * takes EFADV_WR_EX_WITH_PROCESSING_HINTS.
 */
struct efadv_qp_init_attr {
	uint64_t comp_mask;
	uint32_t driver_qp_type;
	uint16_t flags;
	uint8_t sl;
	uint8_t reserved;
	uint64_t wr_flags;
};

struct ibv_qp *efadv_create_qp_ex(struct ibv_context *ibvctx,
				  struct ibv_qp_init_attr_ex *attr_ex,
				  struct efadv_qp_init_attr *efa_attr,
				  uint32_t inlen);

enum {
	EFADV_WQ_CAPS_64_BIT_REQ_ID = 1 << 0,
};

/* A work queue's ring, for a data path of the caller's own (EFA_1.4). */
struct efadv_wq_attr {
	uint64_t comp_mask;
	uint8_t *buffer;
	uint32_t entry_size;
	uint32_t num_entries;
	uint32_t *doorbell;
	uint32_t max_batch;
	uint16_t caps;
	uint8_t reserved[2];
};

int efadv_query_qp_wqs(struct ibv_qp *ibvqp, struct efadv_wq_attr *sq_attr,
		       struct efadv_wq_attr *rq_attr, uint32_t inlen);

enum efadv_wr_processing_hint {
	EFADV_WR_PROCESSING_HINT_BURST_PPS_SENSITIVE = 1 << 0,
};

struct efadv_qp {
	uint64_t comp_mask;
	void (*wr_set_processing_hints)(struct efadv_qp *efadv_qp,
					uint32_t hints);
};

struct efadv_qp *efadv_qp_from_ibv_qp_ex(struct ibv_qp_ex *ibvqpx);

static inline void efadv_wr_set_processing_hints(struct efadv_qp *efadv_qp,
						 uint32_t hints)
{
	efadv_qp->wr_set_processing_hints(efadv_qp, hints);
}

enum {
	EFADV_SQ_DEPTH_ATTR_INLINE_WRITE = 1 << 0,
};

struct efadv_sq_depth_attr {
	uint64_t comp_mask;
	uint32_t flags;
	uint32_t max_send_sge;
	uint32_t max_rdma_sge;
	uint32_t max_inline_data;
};

/* The deepest SQ for these needs, or -errno (EFA_1.5). */
int efadv_get_max_sq_depth(struct ibv_context *ibvctx,
			   struct efadv_sq_depth_attr *attr, uint32_t inlen);

struct efadv_rq_depth_attr {
	uint64_t comp_mask;
	uint32_t max_recv_sge;
};

/* The deepest RQ for these needs, or -errno (EFA_1.5). */
int efadv_get_max_rq_depth(struct ibv_context *ibvctx,
			   struct efadv_rq_depth_attr *attr, uint32_t inlen);

enum {
	EFADV_DEVICE_ATTR_CAPS_RDMA_READ = 1 << 0,
	EFADV_DEVICE_ATTR_CAPS_RNR_RETRY = 1 << 1,
	EFADV_DEVICE_ATTR_CAPS_CQ_WITH_SGID = 1 << 2,
	EFADV_DEVICE_ATTR_CAPS_RDMA_WRITE = 1 << 3,
	/* for EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV and
	 * EFADV_WC_EX_WITH_IS_UNSOLICITED
	 */
	EFADV_DEVICE_ATTR_CAPS_UNSOLICITED_WRITE_RECV = 1 << 4,
	/* efadv_create_cq() takes EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF */
	EFADV_DEVICE_ATTR_CAPS_CQ_WITH_EXT_MEM_DMABUF = 1 << 5,
	EFADV_DEVICE_ATTR_CAPS_COMP_CNTR = 1 << 6,	/* never with libibverbs < 65 */
};

struct efadv_device_attr {
	uint64_t comp_mask;
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint16_t inline_buf_size;
	uint16_t inline_buf_size_ex;	/* inline bytes of a 128-byte WQE */
	uint32_t device_caps;
	uint32_t max_rdma_size;
};

int efadv_query_device(struct ibv_context *ibvctx,
		       struct efadv_device_attr *attr,
		       uint32_t inlen);

struct efadv_ah_attr {
	uint64_t comp_mask;
	uint16_t ahn;
	uint8_t reserved[6];
};

int efadv_query_ah(struct ibv_ah *ibvah, struct efadv_ah_attr *attr,
		   uint32_t inlen);

struct efadv_cq {
	uint64_t comp_mask;
	int (*wc_read_sgid)(struct efadv_cq *efadv_cq, union ibv_gid *sgid);
	bool (*wc_is_unsolicited)(struct efadv_cq *efadv_cq);
};

enum {
	EFADV_WC_EX_WITH_SGID = 1 << 0,
	EFADV_WC_EX_WITH_IS_UNSOLICITED = 1 << 1,
};

enum {
	/* The ring in the caller's dma-buf (ext_mem_dmabuf), not mapped */
	EFADV_CQ_INIT_FLAGS_EXT_MEM_DMABUF = 1 << 0,
};

struct efadv_cq_init_attr {
	uint64_t comp_mask;
	uint64_t wc_flags;
	uint64_t flags;			/* EFADV_CQ_INIT_FLAGS_* */
	struct {
		uint8_t *buffer;	/* the ring, as this process sees it */
		uint64_t length;
		uint64_t offset;	/* of the ring in the dma-buf */
		int32_t fd;		/* the dma-buf */
		uint8_t reserved[4];
	} ext_mem_dmabuf;
};

struct ibv_cq_ex *efadv_create_cq(struct ibv_context *ibvctx,
				  struct ibv_cq_init_attr_ex *attr_ex,
				  struct efadv_cq_init_attr *efa_attr,
				  uint32_t inlen);

struct efadv_cq *efadv_cq_from_ibv_cq_ex(struct ibv_cq_ex *ibvcqx);

/* A CQ's ring, for a data path of the caller's own (EFA_1.4). */
struct efadv_cq_attr {
	uint64_t comp_mask;
	uint8_t *buffer;
	uint32_t entry_size;
	uint32_t num_entries;
	uint32_t *doorbell;
};

int efadv_query_cq(struct ibv_cq *ibvcq, struct efadv_cq_attr *attr,
		   uint32_t inlen);

/*
 * The sender's GID of the completion being read with the extended CQ API,
 * on a CQ created with EFADV_WC_EX_WITH_SGID.  Returns 0, or -ENOENT when
 * the receiver has an AH for the sender (then read_slid names it).
 */
static inline int efadv_wc_read_sgid(struct efadv_cq *efadv_cq,
				     union ibv_gid *sgid)
{
	return efadv_cq->wc_read_sgid(efadv_cq, sgid);
}

/*
 * Whether the completion being read with the extended CQ API is the
 * receive of an RDMA write with immediate that took no posted receive (a
 * QP created with EFADV_QP_FLAGS_UNSOLICITED_WRITE_RECV): its wr_id is 0.
 */
static inline bool efadv_wc_is_unsolicited(struct efadv_cq *efadv_cq)
{
	return efadv_cq->wc_is_unsolicited(efadv_cq);
}

enum {
	EFADV_MR_ATTR_VALIDITY_RECV_IC_ID = 1 << 0,
	EFADV_MR_ATTR_VALIDITY_RDMA_READ_IC_ID = 1 << 1,
	EFADV_MR_ATTR_VALIDITY_RDMA_RECV_IC_ID = 1 << 2,
};

struct efadv_mr_attr {
	uint64_t comp_mask;
	uint16_t ic_id_validity;
	uint16_t recv_ic_id;
	uint16_t rdma_read_ic_id;
	uint16_t rdma_recv_ic_id;
};

int efadv_query_mr(struct ibv_mr *ibvmr, struct efadv_mr_attr *attr,
		   uint32_t inlen);

/*
 * Completion counters (EFA_1.7).  struct ibv_comp_cntr and its init attr
 * belong to the verbs.h of a libibverbs with completion counters (rdma-core
 * 65 and later); with an older one they stay incomplete here.
 */
struct ibv_comp_cntr;
struct ibv_comp_cntr_init_attr;

enum {
	EFADV_MEMORY_LOCATION_VA,
	EFADV_MEMORY_LOCATION_DMABUF,
};

struct efadv_memory_location {
	uint8_t *ptr;
	struct {
		uint64_t offset;
		int32_t fd;
		uint32_t reserved;
	} dmabuf;
	uint8_t type;
	uint8_t reserved[7];
};

enum {
	EFADV_COMP_CNTR_INIT_WITH_COMP_EXTERNAL_MEM = 1 << 0,
	EFADV_COMP_CNTR_INIT_WITH_ERR_EXTERNAL_MEM = 1 << 1,
};

struct efadv_comp_cntr_init_attr {
	uint64_t comp_mask;
	uint32_t flags;
	uint32_t reserved;
	struct efadv_memory_location comp_cntr_ext_mem;
	struct efadv_memory_location err_cntr_ext_mem;
};

struct ibv_comp_cntr *
efadv_create_comp_cntr(struct ibv_context *ibvctx,
		       struct ibv_comp_cntr_init_attr *attr,
		       struct efadv_comp_cntr_init_attr *efa_attr,
		       uint32_t inlen);

#ifdef __cplusplus
}
#endif

#endif /* SEFA_INCLUDE_INFINIBAND_EFADV_H */
