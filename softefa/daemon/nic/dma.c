// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The NIC's DMA: copies between process segments, and between them and
 * the engine's own memory, with process_vm_readv/writev.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/uio.h>

#include "nic/loc.h"

/* The engine is one thread, under the daemon lock: the bounce is its own. */
static uint8_t bounce[DMA_CHUNK];

/*
 * Copy @len bytes from the source segments to the destination segments.
 * Returns 0, or -EFAULT when a process no longer has that memory.
 */
int nic_dma_copy(const struct dma_seg *src, unsigned int nsrc,
		 const struct dma_seg *dst, unsigned int ndst, uint64_t len)
{
	uint64_t soff = 0, doff = 0;
	unsigned int si = 0, di = 0;

	while (len) {
		uint64_t n = len < DMA_CHUNK ? len : DMA_CHUNK, got = 0;

		while (got < n) {
			uint64_t k = src[si].len - soff;
			struct iovec l, r;

			if (k > n - got)
				k = n - got;
			l.iov_base = bounce + got;
			l.iov_len = k;
			r.iov_base = (void *)(uintptr_t)(src[si].addr + soff);
			r.iov_len = k;
			if (process_vm_readv(src[si].pid, &l, 1, &r, 1, 0) !=
			    (ssize_t)k)
				return -EFAULT;
			got += k;
			soff += k;
			if (soff == src[si].len) {
				si++;
				soff = 0;
			}
		}
		for (got = 0; got < n;) {
			uint64_t k = dst[di].len - doff;
			struct iovec l, r;

			if (k > n - got)
				k = n - got;
			l.iov_base = bounce + got;
			l.iov_len = k;
			r.iov_base = (void *)(uintptr_t)(dst[di].addr + doff);
			r.iov_len = k;
			if (process_vm_writev(dst[di].pid, &l, 1, &r, 1, 0) !=
			    (ssize_t)k)
				return -EFAULT;
			got += k;
			doff += k;
			if (doff == dst[di].len) {
				di++;
				doff = 0;
			}
		}
		len -= n;
	}
	return 0;
}

/*
 * Between the engine's own memory and process segments: inline payload of
 * a WQE goes out (@out), a UMR's list comes in.
 */
int nic_dma_buf(const struct dma_seg *seg, unsigned int nseg, void *buf,
		uint64_t len, bool out)
{
	uint8_t *p = buf;
	unsigned int i;

	for (i = 0; i < nseg && len; i++) {
		uint64_t k = seg[i].len < len ? seg[i].len : len;
		struct iovec l = { p, k };
		struct iovec r = { (void *)(uintptr_t)seg[i].addr, k };
		ssize_t done = out ?
			process_vm_writev(seg[i].pid, &l, 1, &r, 1, 0) :
			process_vm_readv(seg[i].pid, &l, 1, &r, 1, 0);

		if (done != (ssize_t)k)
			return -EFAULT;
		p += k;
		len -= k;
	}
	return 0;
}
