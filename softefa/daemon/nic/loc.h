/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the NIC's files share and nothing above the NIC sees: process
 * segments, and the functions of each stage the others call.
 */
#ifndef SEFA_NIC_LOC_H
#define SEFA_NIC_LOC_H

#include "efa_ext_abi.h"
#include "nic/nic.h"

#define DMA_CHUNK		(64 * 1024)
#define MAX_SGE			16
/* A receive WR of MAX_SGE buffers, each through a full indirect key. */
#define MAX_SEGS		(MAX_SGE * SEFA_INDIRECT_MR_MAX_ENTRIES)

/* A piece of process memory the engine reads or writes. */
struct dma_seg {
	pid_t pid;
	uint64_t addr;
	uint64_t len;
};

/* Where the keys of one side of a transfer lead. */
struct seg_list {
	struct dma_seg *seg;
	unsigned int n;
};

/*
 * One engine thread's own: the daemon it serves, the time of its pass,
 * and the buffers its stages share, too big for its stack (the payload
 * bounce, the two sides' segments, a UMR's list).  Every stage is handed
 * it, so that nothing of the NIC is file-static.
 */
struct nic_engine {
	struct sefa_daemon *d;
	uint64_t now;			/* CLOCK_MONOTONIC ns, at the pass */
	uint8_t bounce[DMA_CHUNK];
	struct dma_seg local_segs[MAX_SEGS];
	struct dma_seg peer_segs[MAX_SEGS];
	struct efa_io_klm umr_list[SEFA_INDIRECT_MR_MAX_ENTRIES];
};

/* mr.c */
int nic_key_resolve(struct sefa_device *dev, const struct sefa_pd *pd,
		    uint32_t key, uint64_t iova, uint64_t len,
		    uint32_t need_access, struct seg_list *out);

/* dma.c */
int nic_dma_copy(struct nic_engine *eng, const struct seg_list *src,
		 const struct seg_list *dst, uint64_t len);
int nic_dma_buf(const struct seg_list *segs, void *buf, uint64_t len, bool out);

/* engine.c */
unsigned int nic_req_sq(struct nic_engine *eng, struct sefa_qp *qp);
unsigned int nic_req_retry(struct nic_engine *eng, struct sefa_qp *qp);
void nic_comp_flush(struct sefa_qp *qp);

#endif
