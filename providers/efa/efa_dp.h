/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers shared by the posting and the polling paths: request ids,
 * doorbells and the memory ordering the device relies on.
 *
 * Nothing here makes a system call or allocates; everything is inlined
 * into post_send, post_recv and poll_cq.
 */

#ifndef SEFA_PROVIDERS_EFA_EFA_DP_H
#define SEFA_PROVIDERS_EFA_EFA_DP_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "efa.h"

#define efa_likely(x) __builtin_expect(!!(x), 1)
#define efa_unlikely(x) __builtin_expect(!!(x), 0)

static inline bool efa_wq_full(const struct efa_wq *wq)
{
	return wq->wrid_idx_pool_next == wq->wqe_cnt;
}

/*
 * The request id the next post takes; the caller checked efa_wq_full().
 * in_order is the queue's, a constant where the caller knows it.
 */
static inline uint16_t efa_wq_peek_idx(const struct efa_wq *wq, bool in_order)
{
	if (in_order)
		return wq->pc & wq->desc_mask;
	return wq->wrid_idx_pool[wq->wrid_idx_pool_next];
}

/* Takes the id efa_wq_peek_idx() returned, for wr_id.  WQ lock held. */
static inline void efa_wq_commit_idx(struct efa_wq *wq, uint16_t idx,
				     uint64_t wr_id)
{
	wq->wrid[idx] = wr_id;
	wq->wrid_idx_pool_next++;
}

/* Takes a request id for wr_id.  WQ lock held, efa_wq_full() checked. */
static inline uint16_t efa_wq_get_idx(struct efa_wq *wq, uint64_t wr_id)
{
	uint16_t idx = efa_wq_peek_idx(wq, wq->in_order);

	efa_wq_commit_idx(wq, idx, wr_id);
	return idx;
}

/* Gives back a completed request id.  WQ lock held. */
static inline void efa_wq_put_idx(struct efa_wq *wq, uint16_t idx)
{
	wq->wrid_idx_pool[--wq->wrid_idx_pool_next] = idx;
}

/*
 * Retires the WQEs of an in-order queue up to request id idx, which a
 * completion named: those before it were unsignaled and succeeded.
 * Returns false if idx is not outstanding.  WQ lock held.
 */
static inline bool efa_wq_retire_to(struct efa_wq *wq, uint16_t idx)
{
	uint32_t n = ((uint16_t)(idx - wq->ci) & wq->desc_mask) + 1;

	if (idx > wq->desc_mask || n > wq->wrid_idx_pool_next)
		return false;
	wq->ci += n;
	wq->wrid_idx_pool_next -= n;
	return true;
}

/*
 * Stores that the device must see before a doorbell: the WQEs went to the
 * write-combining LLQ mapping, which an ordinary release does not drain on
 * x86, so flush it explicitly.
 */
static inline void efa_wc_flush(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__ volatile("sfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ volatile("dsb st" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

/*
 * A doorbell is one 32-bit store, ordered after every store before it
 * (descriptors in host memory, or the CQ entries just read).
 */
static inline void efa_db_write(uint32_t *db, uint32_t val)
{
	__atomic_store_n(db, val, __ATOMIC_RELEASE);
}

/*
 * After a doorbell: a device that sleeps when idle has said so in its
 * wake page (efa_ext_abi.h), to be woken: on the send queue's doorbell
 * @sq_db when the page asks for that, else on its first word; for a queue
 * that had work outstanding (@busy), on the page's stream word, and not at
 * all when it looks by itself soon anyway.  A CQ arm passes no @sq_db.
 * The doorbell store and the read of the word are ordered against the
 * device's store of the word and its next look at the doorbells.  On EFA
 * hardware @wake is NULL.
 */
static inline void efa_db_kick(const uint32_t *wake, const uint32_t *sq_db,
			       bool busy)
{
	if (!wake)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!(__atomic_load_n(&wake[SEFA_WAKE_SLEEPING], __ATOMIC_ACQUIRE) & 1))
		return;
	if (!busy)
		efa_wake_device(sq_db && __atomic_load_n(&wake[SEFA_WAKE_DOORBELL],
							 __ATOMIC_RELAXED) ?
				sq_db : &wake[SEFA_WAKE_SLEEPING]);
	else if (!__atomic_load_n(&wake[SEFA_WAKE_POLLING], __ATOMIC_RELAXED))
		efa_wake_device(&wake[SEFA_WAKE_STREAM]);
}

/*
 * The send queue.  A WR may ask for a completion (IBV_SEND_SIGNALED, implied
 * by sq_sig_all, required except on RC) and inline data, nothing else.  rc is
 * sq->connected, a constant where the caller knows it.
 */
static inline bool efa_send_flags_ok(const struct efa_sq *sq,
				     unsigned int flags, bool rc)
{
	return ((flags | sq->sig_all | (rc ? IBV_SEND_SIGNALED : 0)) &
		~IBV_SEND_INLINE) == IBV_SEND_SIGNALED;
}

static inline bool efa_sq_state_ok(const struct efa_sq *sq,
				   enum ibv_qp_state state)
{
	return (sq->ok_states >> state) & 1;
}

/* ctrl1 and ctrl2 where the first word of a WQE has them. */
#define EFA_TX_CTRL(ctrl1, ctrl2) \
	((uint32_t)(ctrl1) << 16 | (uint32_t)(ctrl2) << 24)

static inline uint8_t efa_sq_phase(const struct efa_sq *sq)
{
	return (sq->wqe_ctrl >> 24) & EFA_IO_TX_META_DESC_PHASE;
}

/*
 * A WQE's ctrl1 and ctrl2 as far as the queue decides them (sq->wqe_ctrl),
 * and on RC a completion where the WR or sq_sig_all asks for one.
 */
_Static_assert(IBV_SEND_SIGNALED << 3 == EFA_IO_TX_META_DESC_COMP_REQ,
	       "signaled is comp_req shifted");
static inline uint32_t efa_tx_ctrl(const struct efa_sq *sq, unsigned int flags,
				   bool rc)
{
	uint32_t ctrl = sq->wqe_ctrl;

	if (rc)
		ctrl |= EFA_TX_CTRL(0, ((flags | sq->sig_all) &
					IBV_SEND_SIGNALED) << 3);
	return ctrl;
}

/* A WQE's ctrl2: one descriptor, the queue's phase, and a completion. */
static inline uint8_t efa_tx_ctrl2(const struct efa_sq *sq, unsigned int flags,
				   bool rc)
{
	return efa_tx_ctrl(sq, flags, rc) >> 24;
}

/* The LLQ slot of the next WQE, of sq->wqe_size bytes. */
static inline struct efa_io_tx_wqe *efa_sq_slot(struct efa_sq *sq)
{
	return (struct efa_io_tx_wqe *)(sq->desc +
					(size_t)(sq->wq.pc & sq->wq.desc_mask) *
						sq->wqe_size);
}

static inline void efa_sq_advance(struct efa_sq *sq)
{
	if (!(++sq->wq.pc & sq->wq.desc_mask))
		sq->wqe_ctrl ^= EFA_TX_CTRL(0, EFA_IO_TX_META_DESC_PHASE);
}

/* The SQ doorbell alone: the caller kicks the device (efa_db_kick()). */
static inline void efa_sq_db(struct efa_sq *sq, uint16_t pc)
{
	efa_wc_flush();
	efa_db_write(sq->wq.db, pc);
}

/* @busy: the queue had WQEs outstanding before these. */
static inline void efa_sq_ring(struct efa_sq *sq, uint16_t pc, bool busy)
{
	efa_sq_db(sq, pc);
	efa_db_kick(sq->wq.wake, sq->wq.db, busy);
}

static inline uint32_t efa_cq_db_val(const struct efa_cq *cq, bool arm)
{
	return (cq->cc & EFA_IO_REGS_CQ_DB_CONSUMER_INDEX_MASK) |
	       cq->db_cmd_sn | (arm ? EFA_IO_REGS_CQ_DB_ARM : 0);
}

#endif /* SEFA_PROVIDERS_EFA_EFA_DP_H */
