// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The NIC's DMA: copies between process segments, and between them and
 * the engine's own memory, with process_vm_readv/writev.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/uio.h>

#include "nic/loc.h"

/* A place in a list of segments. */
struct seg_pos {
	const struct dma_seg *seg;
	uint64_t off;
};

/*
 * Remote iovecs per system call: the segments of a packet rarely number
 * more, and each call costs far more than its bytes (the process looked
 * up, its pages pinned), so a packet's segments of one process go in one.
 */
#define DMA_IOV		64

/*
 * Move @n bytes between @buf and the segments from @pos on (into them when
 * @out), and step @pos over them.  The segments hold the bytes: the
 * callers checked the lengths.  0, -EFAULT when a process no longer has
 * that memory, or -ESRCH when it is gone.
 */
static int dma_segs(struct seg_pos *pos, uint8_t *buf, uint64_t n, bool out)
{
	struct iovec r[DMA_IOV];

	while (n) {
		const struct sefa_mm *mm = pos->seg->mm;
		struct iovec l = { buf, 0 };
		unsigned int i = 0;
		ssize_t done;

		/* Its process exited: the pid may be another's now. */
		if (mm->gone)
			return -ESRCH;
		/* The segments of this process, as far as @n reaches. */
		while (n && i < DMA_IOV && pos->seg->mm == mm) {
			const struct dma_seg *s = pos->seg;
			uint64_t k = s->len - pos->off < n ? s->len - pos->off : n;

			r[i].iov_base = (void *)(uintptr_t)(s->addr + pos->off);
			r[i++].iov_len = k;
			l.iov_len += k;
			n -= k;
			pos->off += k;
			if (pos->off == s->len) {
				pos->seg++;
				pos->off = 0;
			}
		}
		done = out ? process_vm_writev(mm->pid, &l, 1, r, i, 0) :
			     process_vm_readv(mm->pid, &l, 1, r, i, 0);
		if (done != (ssize_t)l.iov_len)
			return done < 0 && errno == ESRCH ? -ESRCH : -EFAULT;
		buf += l.iov_len;
	}
	return 0;
}

/*
 * Copy @len bytes from the source segments to the destination segments,
 * through the engine's bounce buffer.  Returns 0, or dma_segs()'s error
 * with *@src_fault saying whose memory it was: a device that reads a
 * sender's buffer fails there, before any byte reaches the receiver, and
 * the two sides get different completions.
 */
int nic_dma_copy(struct nic_engine *eng, const struct seg_list *src,
		 const struct seg_list *dst, uint64_t len, bool *src_fault)
{
	struct seg_pos from = { .seg = src->seg }, to = { .seg = dst->seg };
	int ret;

	*src_fault = false;
	while (len) {
		uint64_t n = len < DMA_CHUNK ? len : DMA_CHUNK;

		ret = dma_segs(&from, eng->bounce, n, false);
		if (ret) {
			*src_fault = true;
			return ret;
		}
		ret = dma_segs(&to, eng->bounce, n, true);
		if (ret)
			return ret;
		len -= n;
	}
	return 0;
}

/* Step @pos over @n bytes of its segments, which hold them. */
static void seg_pos_skip(struct seg_pos *pos, uint64_t n)
{
	while (n) {
		uint64_t k = pos->seg->len - pos->off;

		if (n < k) {
			pos->off += n;
			return;
		}
		n -= k;
		pos->seg++;
		pos->off = 0;
	}
}

/*
 * Between the engine's own memory and process segments, from byte @off of
 * them on: with @out from @buf into them (inline payload, a packet from
 * another host), else from them into @buf (a UMR's list, a packet for
 * another host).
 */
int nic_dma_buf(const struct seg_list *segs, uint64_t off, void *buf,
		uint64_t len, bool out)
{
	struct seg_pos pos = { .seg = segs->seg };

	seg_pos_skip(&pos, off);
	return dma_segs(&pos, buf, len, out);
}
