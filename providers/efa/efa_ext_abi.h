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

#ifndef SEFA_PROVIDERS_EFA_EFA_EXT_ABI_H
#define SEFA_PROVIDERS_EFA_EFA_EXT_ABI_H

#include <rdma/efa-abi.h>

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

/*
 * A completion status beyond EFA's: an RC packet was sent retry_cnt times
 * again with no answer (IBV_WC_RETRY_EXC_ERR).
 */
#define SEFA_IO_COMP_STATUS_REMOTE_ERROR_RETRY_EXC	32

/*
 * Indirect memory keys (KLM lists), on RC QPs.
 *
 * - SEFA_IB_METHOD_MR_CREATE_INDIRECT, a driver method of the MR object,
 *   makes an empty ("free") key in a PD, for lists of up to max_entries
 *   regions.  It answers the MR handle, lkey, rkey (equal) and the number
 *   of entries allocated.  access is what the key may ever grant
 *   (IBV_ACCESS_LOCAL_WRITE, _REMOTE_WRITE, _REMOTE_READ, _REMOTE_ATOMIC;
 *   the remote ones need local write).  MR destroy frees it, in any state.
 * - A UMR send WQE (EFA_IO_UMR in efa_io_defs.h), executed in send-queue
 *   order, fills the key with a list of regions of the key's PD, or with no
 *   list invalidates it.  Keys stay the same across fills; a refill needs
 *   no invalidation.  The device takes the list from host memory, through
 *   a local key, when it executes the WQE.
 * - An access through a free key, out of its range, or beyond the rights
 *   of the key or of any region it touches fails: a local access with
 *   LOCAL_ERROR_INVALID_LKEY, a remote one with REMOTE_ERROR_BAD_ADDRESS.
 *   A region deregistered while listed makes later accesses fail alike.
 * - Entries are regions registered with REG_MR; a key does not list keys.
 */
#define SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR	(1U << 30)

#define SEFA_INDIRECT_MR_MAX_ENTRIES		256
/* KLM entries one UMR WQE carries: what the provider stages per WQE. */
#define SEFA_UMR_MAX_ENTRIES_PER_WQE		16

/*
 * The wake page, on any profile.  A device whose doorbells are watched by
 * a thread that sleeps when idle (SoftEFA) answers GET_CONTEXT with more
 * than efa's udata: struct sefa_ibv_alloc_ucontext_resp, when userspace
 * gave room for it.  A nonzero wake_mmap_key is the mmap(2) offset of a
 * page to map read-only (one page, MAP_SHARED).  Its first 32-bit word is
 * odd while the device sleeps.  After a doorbell store (an SQ, or a CQ
 * arm), a provider that reads the word odd wakes the device with
 * FUTEX_WAKE on it; for a send queue that had work outstanding already,
 * on the third word instead, which tells the device that WQEs stream.
 * The device then looks at the doorbells on its own every few tens of
 * microseconds for a while, and says so in the second word (nonzero): a
 * provider may then leave out the wake for a queue that had work
 * outstanding, and the device takes a batch of WQEs per look instead of
 * one per wake.  The device does not depend on any of it: it also looks
 * at the doorbells by itself, only later.  While the fourth word is
 * nonzero, the device sleeps on the send queues' doorbells themselves, and
 * a provider wakes it for an idle send queue with FUTEX_WAKE on the
 * doorbell it just wrote instead of the first word: a doorbell written
 * after the device's last look then keeps it from falling asleep, where a
 * wake that came before it waited would be lost.  The efa driver answers
 * none of this, so on EFA hardware the key reads as zero.
 */
#define SEFA_WAKE_SLEEPING	0	/* u32 index: odd while asleep */
#define SEFA_WAKE_POLLING	1	/* u32 index: looks by itself */
#define SEFA_WAKE_STREAM	2	/* u32 index: wake here when busy */
#define SEFA_WAKE_DOORBELL	3	/* u32 index: wake on the SQ doorbell */

struct sefa_ibv_alloc_ucontext_resp {
	struct efa_ibv_alloc_ucontext_resp efa;
	__aligned_u64 wake_mmap_key;
};

#include <rdma/ib_user_ioctl_cmds.h>

/* From the top of the driver's id namespace, far from upstream's methods. */
#define SEFA_IB_METHOD_MR_CREATE_INDIRECT	((1U << UVERBS_ID_NS_SHIFT) + 0x800)

enum sefa_ib_create_indirect_mr_attrs {
	SEFA_IB_ATTR_INDIRECT_MR_HANDLE = (1U << UVERBS_ID_NS_SHIFT) + 0x800,
	SEFA_IB_ATTR_INDIRECT_MR_PD_HANDLE,		/* IDR in */
	SEFA_IB_ATTR_INDIRECT_MR_MAX_ENTRIES,		/* u32 in */
	SEFA_IB_ATTR_INDIRECT_MR_ACCESS,		/* u32 in */
	SEFA_IB_ATTR_INDIRECT_MR_RESP_LKEY,		/* u32 out */
	SEFA_IB_ATTR_INDIRECT_MR_RESP_RKEY,		/* u32 out */
	SEFA_IB_ATTR_INDIRECT_MR_RESP_MAX_ENTRIES,	/* u32 out */
};

#endif /* SEFA_PROVIDERS_EFA_EFA_EXT_ABI_H */
