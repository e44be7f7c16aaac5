// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Access to the memory of the process behind a client connection.  The
 * daemon is the "kernel": it reads requests from, and writes responses to,
 * the caller's address space, and never trusts a pointer it was given.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/core.h"

static int user_range_ok(uint64_t addr, size_t len)
{
	if (!len)
		return 1;
	if (!addr || addr + len < addr)
		return 0;
	return 1;
}

int sefa_copy_from_user(struct sefa_client *c, void *dst, uint64_t src,
			size_t len)
{
	struct iovec local = { .iov_base = dst, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)src,
				.iov_len = len };

	if (!len)
		return 0;
	if (!user_range_ok(src, len) ||
	    process_vm_readv(c->pid, &local, 1, &remote, 1, 0) != (ssize_t)len)
		return sefa_refuse(c, -EFAULT, "cannot read %zu bytes at %#llx",
				   len, (unsigned long long)src);
	return 0;
}

int sefa_copy_to_user(struct sefa_client *c, uint64_t dst, const void *src,
		      size_t len)
{
	struct iovec local = { .iov_base = (void *)src, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)dst,
				.iov_len = len };

	if (!len)
		return 0;
	if (!user_range_ok(dst, len) ||
	    process_vm_writev(c->pid, &local, 1, &remote, 1, 0) !=
	    (ssize_t)len)
		return sefa_refuse(c, -EFAULT, "cannot write %zu bytes at %#llx",
				   len, (unsigned long long)dst);
	return 0;
}

int sefa_clear_user(struct sefa_client *c, uint64_t dst, size_t len)
{
	static const uint8_t zero[256];
	int ret;

	while (len) {
		size_t n = len < sizeof(zero) ? len : sizeof(zero);

		ret = sefa_copy_to_user(c, dst, zero, n);
		if (ret)
			return ret;
		dst += n;
		len -= n;
	}
	return 0;
}

/*
 * The kernel's fdget() in the caller's table: a duplicate of what the
 * client's descriptor @fd refers to, the same open file, for the caller to
 * close; -EBADF when it has no such descriptor.  pidfd_getfd() asks what
 * process_vm_readv() asks, so it gives nothing the daemon did not have.
 */
int sefa_fdget(struct sefa_client *c, int fd)
{
	int pidfd, dup;

	if (fd < 0)
		return -EBADF;
	pidfd = syscall(SYS_pidfd_open, c->pid, 0);
	if (pidfd < 0)
		return -EBADF;
	dup = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	close(pidfd);
	return dup < 0 ? -EBADF : dup;
}

/* Returns 1 if all bytes are zero, 0 if not, -EFAULT if unreadable. */
int sefa_user_is_zero(struct sefa_client *c, uint64_t src, size_t len)
{
	uint8_t buf[256];
	size_t i;
	int ret;

	while (len) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);

		ret = sefa_copy_from_user(c, buf, src, n);
		if (ret)
			return ret;
		for (i = 0; i < n; i++)
			if (buf[i])
				return 0;
		src += n;
		len -= n;
	}
	return 1;
}

/*
 * What pinning [@addr, @addr + @len) for the device asks of the process's
 * mappings, as pin_user_pages() asks it (check_vma_flags()): mapped all
 * the way, readable, and writable too when the device may write (@write,
 * the kernel's FOLL_WRITE).  A read-only mapping, a file's mapped
 * PROT_READ say, cannot be pinned for writing; -EFAULT then, as from
 * ib_umem_get().  The mappings are read from /proc, which asks what
 * process_vm_readv() asks.
 */
int sefa_user_pages_ok(struct sefa_client *c, uint64_t addr, uint64_t len,
		       bool write)
{
	uint64_t at = addr, end = addr + len, lo, hi;
	char path[64], perms[8];
	const char *why;
	FILE *f;

	if (!user_range_ok(addr, len))
		return sefa_refuse(c, -EFAULT, "no memory at %#llx",
				   (unsigned long long)addr);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)c->pid);
	f = fopen(path, "re");
	if (!f)
		return sefa_refuse(c, -EFAULT, "cannot read the mappings of pid %d",
				   (int)c->pid);
	why = "not mapped";
	while (at < end &&
	       fscanf(f, "%" SCNx64 "-%" SCNx64 " %7s%*[^\n]", &lo, &hi,
		      perms) == 3) {
		if (hi <= at)
			continue;
		if (lo > at)
			break;
		if (perms[0] != 'r') {
			why = "not readable";
			break;
		}
		if (write && perms[1] != 'w') {
			why = "read-only, and the access lets the device write";
			break;
		}
		at = hi;
	}
	fclose(f);
	if (at < end)
		return sefa_refuse(c, -EFAULT, "memory at %#llx is %s",
				   (unsigned long long)at, why);
	return 0;
}

/* Copy min(len, b->len) bytes of @b; the rest of @dst is zeroed. */
int sefa_ubuf_read(struct sefa_client *c, const struct sefa_ubuf *b,
		   void *dst, size_t len)
{
	size_t n = b->len < len ? b->len : len;

	memset(dst, 0, len);
	if (b->is_inline) {
		memcpy(dst, b->inline_data, n);
		return 0;
	}
	return sefa_copy_from_user(c, dst, b->addr, n);
}

/* Is everything of @b beyond the first @from bytes zero? */
int sefa_ubuf_is_zero_from(struct sefa_client *c, const struct sefa_ubuf *b,
			   size_t from)
{
	size_t i;

	if (b->len <= from)
		return 1;
	if (b->is_inline) {
		for (i = from; i < b->len; i++)
			if (b->inline_data[i])
				return 0;
		return 1;
	}
	return sefa_user_is_zero(c, b->addr + from, b->len - from);
}

/*
 * The kernel's uverbs_request(): take the known part of the request and
 * insist that whatever a newer userspace appended is zero.
 */
int sefa_request(struct sefa_cmd *cmd, void *req, size_t size)
{
	int ret;

	ret = sefa_ubuf_read(cmd->c, &cmd->core_in, req, size);
	if (ret)
		return ret;
	ret = sefa_ubuf_is_zero_from(cmd->c, &cmd->core_in, size);
	if (ret < 0)
		return ret;
	return ret ? 0 : sefa_refuse(cmd->c, -EOPNOTSUPP,
				     "request has nonzero bytes beyond what the device knows");
}

/* The kernel's uverbs_response(): copy what fits, zero the remainder. */
int sefa_response(struct sefa_cmd *cmd, const void *resp, size_t size)
{
	const struct sefa_ubuf *out = &cmd->core_out;
	size_t n = out->len < size ? out->len : size;
	int ret;

	ret = sefa_copy_to_user(cmd->c, out->addr, resp, n);
	if (ret)
		return ret;
	if (out->len > n)
		return sefa_clear_user(cmd->c, out->addr + n, out->len - n);
	return 0;
}

/* ib_copy_from_udata() of min(size, inlen); the rest of @req is zero. */
int sefa_udata_in(struct sefa_cmd *cmd, void *req, size_t size)
{
	return sefa_ubuf_read(cmd->c, &cmd->udata_in, req, size);
}

/* The efa driver's answer to udata with more in it than it knows. */
int sefa_udata_unknown(struct sefa_client *c)
{
	return sefa_refuse(c, -EINVAL, "udata has nonzero bytes efa does not know");
}

/* ib_copy_to_udata() of min(size, outlen), as the efa driver does. */
int sefa_udata_out(struct sefa_cmd *cmd, const void *resp, size_t size)
{
	const struct sefa_ubuf *out = &cmd->udata_out;
	size_t n = out->len < size ? out->len : size;

	return sefa_copy_to_user(cmd->c, out->addr, resp, n);
}
