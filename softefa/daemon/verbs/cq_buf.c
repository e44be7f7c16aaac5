// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CQ rings in memory the process provides: create_cq's BUFFER_FD, _OFFSET
 * and _LENGTH (a dma-buf) or BUFFER_VA and _LENGTH (its address space).
 * The uverbs core takes either as a umem (ib_umem_dmabuf_get_pinned(),
 * ib_umem_get()) and the efa driver points the device's ring there
 * (efa_create_cq_umem()); its entries then land in that memory and
 * nothing is offered to mmap.
 *
 * Here the daemon is the device.  A buffer given by fd is the file the
 * caller's descriptor refers to, taken from its table as dma_buf_get()
 * takes it (pidfd_getfd(), which needs no more than process_vm_readv()),
 * and mapped shared: a dma-buf that can be mapped, or a regular file
 * (a memfd) in its place, since machines without GPUs have no dma-buf
 * exporter.  A buffer given by address is pinned as a memory region is and
 * written through process_vm_writev(), the way the NIC writes payload.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <rdma/efa-abi.h>

#include "efa/efa_abi_compat.h"
#include "verbs/verbs.h"

/* The dma-buf pseudo filesystem (<linux/magic.h>, Linux 5.x on). */
#ifndef DMA_BUF_MAGIC
#define DMA_BUF_MAGIC 0x444d4142
#endif

/*
 * The ring's first byte must be this aligned.  The efa driver checks no
 * alignment and the hardware's need is not published; SoftEFA asks for
 * the widest field of an entry, so that the provider's loads of one are
 * aligned, and refuses the rest with the driver's EINVAL for a ring it
 * cannot use.
 */
#define CQ_BUF_ALIGN 8

static uint64_t page_align(uint64_t v)
{
	return (v + SEFA_PAGE_SIZE - 1) & ~(uint64_t)(SEFA_PAGE_SIZE - 1);
}

/*
 * The driver's own check (efa_create_cq_umem()): the buffer must hold the
 * whole ring, rounded up to pages as the driver sizes its own.
 */
static int cq_buf_fits(struct sefa_client *c, uint64_t len, size_t ring_len)
{
	if (len < page_align(ring_len))
		return sefa_refuse(c, -EINVAL,
				   "CQ buffer of %llu bytes, the CQ needs %llu",
				   (unsigned long long)len,
				   (unsigned long long)page_align(ring_len));
	return 0;
}

static bool is_dmabuf(int fd)
{
	struct statfs sfs;

	return !fstatfs(fd, &sfs) && sfs.f_type == DMA_BUF_MAGIC;
}

/* ib_umem_dmabuf_get_pinned() and the driver's size check, then a map. */
static int cq_buf_get_fd(struct sefa_client *c,
			 const struct sefa_cq_buf_attrs *b, size_t ring_len,
			 struct sefa_cq_ext *ext, uint8_t **ring)
{
	uint64_t end, page_off;
	struct stat st;
	int fd, ret;

	if (__builtin_add_overflow(b->offset, b->length, &end))
		return sefa_refuse(c, -EINVAL,
				   "CQ buffer offset %llu + length %llu overflows",
				   (unsigned long long)b->offset,
				   (unsigned long long)b->length);
	fd = sefa_fdget(c, b->fd);
	if (fd < 0)
		return sefa_refuse(c, fd, "CQ buffer fd %d: no such descriptor",
				   b->fd);
	if (fstat(fd, &st) || (!S_ISREG(st.st_mode) && !is_dmabuf(fd))) {
		ret = sefa_refuse(c, -EINVAL,
				  "CQ buffer fd %d is not a dma-buf, nor a memfd or file in its place",
				  b->fd);
		goto out_close;
	}
	if ((uint64_t)st.st_size < end) {
		ret = sefa_refuse(c, -EINVAL,
				  "CQ buffer fd %d holds %lld bytes, not offset + length %llu",
				  b->fd, (long long)st.st_size,
				  (unsigned long long)end);
		goto out_close;
	}
	if (!b->length) {
		ret = sefa_refuse(c, -EINVAL, "CQ buffer of length 0");
		goto out_close;
	}
	if (b->offset % CQ_BUF_ALIGN) {
		ret = sefa_refuse(c, -EINVAL,
				  "CQ buffer offset %llu not %u-byte aligned",
				  (unsigned long long)b->offset, CQ_BUF_ALIGN);
		goto out_close;
	}
	ret = cq_buf_fits(c, b->length, ring_len);
	if (ret)
		goto out_close;

	/* Only the ring's pages: the rest of the buffer is not the device's. */
	page_off = b->offset & ~(uint64_t)(SEFA_PAGE_SIZE - 1);
	ext->map_len = b->offset - page_off + page_align(ring_len);
	ext->map = mmap(NULL, ext->map_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			fd, page_off);
	if (ext->map == MAP_FAILED) {
		ext->map = NULL;
		ret = sefa_refuse(c, -EINVAL,
				  "CQ buffer fd %d cannot be mapped shared and writable: %s",
				  b->fd, strerror(errno));
		goto out_close;
	}
	*ring = (uint8_t *)ext->map + (b->offset - page_off);
	ret = 0;

out_close:
	/* The mapping holds the file, as the umem holds the dma-buf. */
	close(fd);
	return ret;
}

/*
 * ib_umem_get() and the driver's size check: a range that does not wrap,
 * of pages the process has and may write, charged to RLIMIT_MEMLOCK.
 */
static int cq_buf_get_va(struct sefa_client *c,
			 const struct sefa_cq_buf_attrs *b, size_t ring_len,
			 struct sefa_cq_ext *ext)
{
	uint64_t end;
	int ret;

	if (__builtin_add_overflow(b->va, b->length, &end) ||
	    page_align(end) < end)
		return sefa_refuse(c, -EINVAL,
				   "CQ buffer at %#llx + %llu wraps",
				   (unsigned long long)b->va,
				   (unsigned long long)b->length);
	if (!b->length)
		return sefa_refuse(c, -EINVAL, "CQ buffer of length 0");
	if (b->va % CQ_BUF_ALIGN)
		return sefa_refuse(c, -EINVAL,
				   "CQ buffer at %#llx not %u-byte aligned",
				   (unsigned long long)b->va, CQ_BUF_ALIGN);
	ret = cq_buf_fits(c, b->length, ring_len);
	if (ret)
		return ret;
	/*
	 * The whole range is pinned for the device's writes, as ib_umem_get()
	 * pins it with IB_ACCESS_LOCAL_WRITE: memory the process does not
	 * have, or may not write, anywhere in it fails with -EFAULT.
	 */
	ret = sefa_user_pages_ok(c, b->va, b->length, true);
	if (ret)
		return ret;
	ret = sefa_pin(c, b->va, b->length, &ext->mm, &ext->npages);
	if (ret)
		return ret;
	ext->va = b->va;
	return 0;
}

/*
 * The uverbs core's reading of the BUFFER attributes, then the buffer
 * itself for a ring of @ring_len bytes.  0 with *@ring NULL and no ext
 * when there are none (the device's own ring); else the ring's address
 * in the daemon (NULL when it is written through ext.mm) and a
 * sefa_cq_ext_put() owed.
 */
int sefa_cq_ext_get(struct sefa_client *c, const struct sefa_cq_buf_attrs *b,
		    size_t ring_len, struct sefa_cq_ext *ext, bool *used,
		    uint8_t **ring)
{
	bool can = c->dev->profile->device_caps &
		   EFA_QUERY_DEVICE_CAPS_CQ_WITH_EXT_MEM;

	memset(ext, 0, sizeof(*ext));
	*ring = NULL;
	*used = false;
	if (b->has_va) {
		if (!b->has_length)
			return sefa_refuse(c, -ENOENT,
					   "CQ buffer address without a length");
		if (b->has_fd || b->has_offset || !can)
			goto err_combination;
		*used = true;
		return cq_buf_get_va(c, b, ring_len, ext);
	}
	if (b->has_fd) {
		if (!b->has_offset || !b->has_length)
			return sefa_refuse(c, -ENOENT,
					   "CQ buffer fd without an offset or a length");
		if (!can)
			goto err_combination;
		*used = true;
		return cq_buf_get_fd(c, b, ring_len, ext, ring);
	}
	if (b->has_offset || b->has_length)
		goto err_combination;
	return 0;

err_combination:
	return sefa_refuse(c, -EINVAL,
			   can ? "CQ buffer by address and fd, or by neither" :
				 "no CQ on external memory on this profile");
}

void sefa_cq_ext_put(struct sefa_client *c, struct sefa_cq_ext *ext)
{
	if (ext->map)
		munmap(ext->map, ext->map_len);
	if (ext->mm)
		sefa_unpin(c, ext->mm, ext->npages);
	memset(ext, 0, sizeof(*ext));
}

/*
 * One entry into a ring at a process address: all but the byte at
 * @flags_off first, then that byte, so that a reader who sees its new
 * phase sees the entry (each write is done before the next begins).  A
 * process that unmapped its ring loses the entry, as the kernel's pinned
 * pages would take it where the process no longer looks.
 */
void sefa_cq_ext_write(struct sefa_cq_ext *ext, size_t off,
		       const uint8_t *entry, size_t len, size_t flags_off)
{
	uint64_t at = ext->va + off;
	struct iovec l = { (void *)entry, len };
	struct iovec r[2] = {
		{ (void *)(uintptr_t)at, flags_off },
		{ (void *)(uintptr_t)(at + flags_off + 1),
		  len - flags_off - 1 },
	};
	struct iovec lf = { (void *)(entry + flags_off), 1 };
	struct iovec rf = { (void *)(uintptr_t)(at + flags_off), 1 };
	uint8_t body[sizeof(struct efa_io_rx_cdesc_ex)];

	if (ext->mm->gone || len > sizeof(body))
		return;
	/* The local side skips the flags byte too. */
	memcpy(body, entry, flags_off);
	memcpy(body + flags_off, entry + flags_off + 1, len - flags_off - 1);
	l.iov_base = body;
	l.iov_len = len - 1;
	if (process_vm_writev(ext->mm->pid, &l, 1, r, 2, 0) !=
	    (ssize_t)(len - 1))
		return;
	process_vm_writev(ext->mm->pid, &lf, 1, &rf, 1, 0);
}
