/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A provider context without a kernel: the device and context objects that
 * libibverbs would allocate, built by hand so that the provider's internal
 * functions can run on them.
 */

#ifndef SEFA_TESTS_UNIT_PROVIDER_EFA_FIXTURE_H
#define SEFA_TESTS_UNIT_PROVIDER_EFA_FIXTURE_H

#include "efa.h"

struct efa_fixture {
	struct verbs_device vdev;
	struct efa_context *ctx;
	/* EFADV_QP_FLAGS_* efa_fake_qp_init() creates its QPs with */
	uint16_t qp_dv_flags;
};

/* The driver of a device that is no EFA, whose contexts are refused. */
extern const struct verbs_device_ops efa_other_dev_ops;

/* The device claims to belong to the driver described by ops. */
void efa_fixture_init(struct efa_fixture *fx,
		      const struct verbs_device_ops *ops);
void efa_fixture_fini(struct efa_fixture *fx);

/* Limits as a real 0xefa1 device reports them. */
void efa_fixture_ucontext_resp(struct efa_alloc_ucontext_resp *resp);
void efa_fixture_query_device_resp(struct efa_query_device_ex_resp *resp);

/*
 * An EFA context as efa_alloc_context() leaves it, with those limits and a
 * QP table, but no kernel behind it: only what the data path and the
 * argument checks of the direct verbs touch works.
 */
void efa_fixture_open(struct efa_fixture *fx);
void efa_fixture_close(struct efa_fixture *fx);

/*
 * A CQ over rings in ordinary memory, which the test writes as the device
 * would, and a doorbell word it can read back.
 */
struct efa_fake_cq {
	struct efa_cq *cq;
	uint8_t *ring;
	uint32_t entries;		/* per sub-CQ */
	uint32_t cqe_size;
	uint16_t num_sub_cqs;
	uint32_t db;
	uint32_t next;			/* entries efa_fake_cq_push() wrote */
};

void efa_fake_cq_init(struct efa_fixture *fx, struct efa_fake_cq *fc,
		      uint16_t num_sub_cqs, uint32_t entries,
		      uint32_t cqe_size, uint64_t wc_flags);
void efa_fake_cq_fini(struct efa_fake_cq *fc);
/* Writes a completion entry (cqe_size bytes of cqe) into slot idx of a
 * sub-CQ, its phase bit last, as the device does.
 */
void efa_fake_cq_write(struct efa_fake_cq *fc, uint16_t sub_cq,
		       uint32_t idx, struct efa_io_rx_cdesc_ex cqe,
		       uint8_t phase);
/* Writes cqe into the next slot of sub-CQ 0, in the phase of its lap. */
void efa_fake_cq_push(struct efa_fake_cq *fc, struct efa_io_rx_cdesc_ex cqe);

/*
 * A QP set up as create_qp() sets it up after the kernel answered, with
 * its LLQ, RQ ring and doorbells in ordinary memory.  The QP is in RTS.
 */
struct efa_fake_qp {
	struct efa_qp *qp;
	/* geom.sq_wqe_size bytes a WQE: index it so on 128-byte QPs */
	struct efa_io_tx_wqe *llq;
	struct efa_io_rx_desc *rq_ring;
	struct efa_qp_geom geom;
	uint32_t sq_db;
	uint32_t rq_db;
};

void efa_fake_qp_init(struct efa_fixture *fx, struct efa_fake_qp *fq,
		      struct efa_fake_cq *fc, enum ibv_qp_type type,
		      const struct ibv_qp_cap *cap, uint32_t qpn,
		      uint64_t send_ops_flags, int sq_sig_all);
void efa_fake_qp_fini(struct efa_fixture *fx, struct efa_fake_qp *fq);

static inline struct ibv_qp *efa_fake_ibvqp(struct efa_fake_qp *fq)
{
	return &fq->qp->verbs_qp.qp;
}

static inline struct ibv_qp_ex *efa_fake_ibvqpx(struct efa_fake_qp *fq)
{
	return &fq->qp->verbs_qp.qp_ex;
}

/*
 * What efa_fake_dp_open() makes: a fake QP on a fake CQ of its own, on a
 * fixture opened with efa_fixture_open().
 */
struct efa_fake_dp_attr {
	enum ibv_qp_type qp_type;
	uint32_t qpn;
	struct ibv_qp_cap cap;
	uint64_t send_ops_flags;	/* 0: without the ibv_wr_* API */
	int sq_sig_all;
	uint32_t device_caps;		/* beyond those of a 0xefa1 */
	uint16_t num_sub_cqs;		/* 0: one */
	uint32_t cq_entries;		/* per sub-CQ */
	uint32_t cqe_size;
	uint64_t wc_flags;
};

void efa_fake_dp_open(struct efa_fixture *fx, struct efa_fake_cq *fc,
		      struct efa_fake_qp *fq,
		      const struct efa_fake_dp_attr *attr);
void efa_fake_dp_close(struct efa_fixture *fx, struct efa_fake_cq *fc,
		       struct efa_fake_qp *fq);

/* The device's entry for request req_id of fq's queue q. */
struct efa_io_rx_cdesc_ex efa_fake_cqe(const struct efa_fake_qp *fq,
				       enum efa_io_queue_type q,
				       uint16_t req_id, uint8_t op_type,
				       uint8_t status);
/* The device completes that request: its entry, pushed onto fc. */
void efa_fake_complete(struct efa_fake_cq *fc, const struct efa_fake_qp *fq,
		       enum efa_io_queue_type q, uint16_t req_id,
		       uint8_t op_type, uint8_t status);

/*
 * efa_post_recv() of one WR of the SGEs to fq: its answer.  The bad WR it
 * reports must be the WR if it fails, none if not.
 */
int efa_fake_post_recv(struct efa_fake_qp *fq, uint64_t wr_id,
		       struct ibv_sge *sg, int num_sge);

/* An AH the device numbered ahn. */
void efa_fake_ah_init(struct efa_fixture *fx, struct efa_ah *ah,
		      uint16_t ahn);

#endif /* SEFA_TESTS_UNIT_PROVIDER_EFA_FIXTURE_H */
