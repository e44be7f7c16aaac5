/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers shared by the posting and the polling paths: request ids,
 * doorbells and the memory ordering the device relies on.
 *
 * Nothing here makes a system call or allocates; everything is inlined
 * into post_send, post_recv and poll_cq.
 */

#ifndef EFA_DP_H
#define EFA_DP_H

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

/* The request id the next post takes; the caller checked efa_wq_full(). */
static inline uint16_t efa_wq_peek_idx(const struct efa_wq *wq)
{
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
	uint16_t idx = efa_wq_peek_idx(wq);

	efa_wq_commit_idx(wq, idx, wr_id);
	return idx;
}

/* Gives back a completed request id.  WQ lock held. */
static inline void efa_wq_put_idx(struct efa_wq *wq, uint16_t idx)
{
	wq->wrid_idx_pool[--wq->wrid_idx_pool_next] = idx;
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

static inline uint32_t efa_cq_db_val(const struct efa_cq *cq, bool arm)
{
	return (cq->cc & EFA_IO_REGS_CQ_DB_CONSUMER_INDEX_MASK) |
	       (((uint32_t)cq->cmd_sn << EFA_IO_REGS_CQ_DB_CMD_SN_SHIFT) &
		EFA_IO_REGS_CQ_DB_CMD_SN_MASK) |
	       (arm ? EFA_IO_REGS_CQ_DB_ARM : 0);
}

#endif /* EFA_DP_H */
