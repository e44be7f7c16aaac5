/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * This project's extensions of the efa kernel ABI, for devices that offer
 * more than EFA (SoftEFA's "extended" profile).  The real efa driver never
 * sets these bits, so on EFA hardware the provider sees none of them and
 * refuses the features with EOPNOTSUPP.
 *
 * Capability bits go into efa_ibv_ex_query_device_resp.device_caps from the
 * top down, far from upstream's, which grow from bit 0.
 */

#ifndef EFA_EXT_ABI_H
#define EFA_EXT_ABI_H

/*
 * Reliable connected QPs (IBV_QPT_RC) with the IB state machine.
 *
 * How the provider drives them (all within the efa descriptor formats):
 * - CREATE_QP takes the efa udata as for UD; driver_qp_type is 0, ignored.
 * - Send WQEs carry no destination (ah, dest_qp_num and qkey are 0): the
 *   device uses the QP's connection.  comp_req is set for signaled WRs
 *   only; a successful WQE without it has no completion, a failed or
 *   flushed one has.  The device completes an RC send queue in order: a
 *   completion retires every unsignaled WQE before it.
 * - RDMA write, write with immediate and read as on SRD, also posted
 *   through ibv_post_send().
 * - A receive buffer longer than a descriptor's 16-bit length is split
 *   over several descriptors of one WR (at most max_rq_sge).
 * - CQs of an RC device use 32-byte entries, and the provider takes bits
 *   31:16 of every RC receive's length from rdma_write.length_hi, not of
 *   RDMA writes only: the device fills it (and never src_addr) for RC.
 * - Sends and receives posted in ERR complete as flushed.
 */
#define SEFA_QUERY_DEVICE_CAPS_RC		(1U << 31)

#endif /* EFA_EXT_ABI_H */
