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

/* mr.c */
int nic_key_resolve(struct sefa_device *dev, const struct sefa_pd *pd,
		    uint32_t key, uint64_t iova, uint64_t len,
		    uint32_t need_access, struct seg_list *out);

/* dma.c */
int nic_dma_copy(const struct dma_seg *src, unsigned int nsrc,
		 const struct dma_seg *dst, unsigned int ndst, uint64_t len);
int nic_dma_buf(const struct dma_seg *seg, unsigned int nseg, void *buf,
		uint64_t len, bool out);

/* engine.c */
unsigned int nic_req_sq(struct sefa_qp *qp, uint64_t now);
unsigned int nic_req_retry(struct sefa_qp *qp, uint64_t now);
void nic_comp_flush(struct sefa_qp *qp);

#endif
