// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The client address space of the harnesses (fuzz.h), and the record
 * stream their inputs are read as.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/uio.h>

#include "fuzz.h"

uint8_t fuzz_user_mem[FUZZ_USER_SIZE];
bool fuzz_user_real;

void fuzz_user_load(const uint8_t *data, size_t size)
{
	if (size > FUZZ_USER_SIZE)
		size = FUZZ_USER_SIZE;
	memcpy(fuzz_user_mem, data, size);
	memset(fuzz_user_mem + size, 0, FUZZ_USER_SIZE - size);
}

/* The client bytes at @addr, @len of them, or NULL: a fault. */
static uint8_t *user_ptr(const void *addr, size_t len)
{
	uint64_t a = (uintptr_t)addr;

	if (a < FUZZ_USER_BASE || a - FUZZ_USER_BASE > FUZZ_USER_SIZE ||
	    len > FUZZ_USER_SIZE - (a - FUZZ_USER_BASE))
		return NULL;
	return fuzz_user_mem + (a - FUZZ_USER_BASE);
}

/*
 * Both directions, as the kernel does them: the remote vectors in order,
 * up to the first that faults; nothing copied at all is EFAULT.
 */
static ssize_t user_copy(const struct iovec *local, unsigned long nlocal,
			 const struct iovec *remote, unsigned long nremote,
			 bool to_user)
{
	size_t li = 0, loff = 0, done = 0;
	unsigned long ri;

	for (ri = 0; ri < nremote; ri++) {
		uint8_t *u = user_ptr(remote[ri].iov_base, remote[ri].iov_len);
		size_t roff = 0;

		if (!u)
			break;
		while (roff < remote[ri].iov_len && li < nlocal) {
			size_t n = remote[ri].iov_len - roff;
			uint8_t *l = (uint8_t *)local[li].iov_base + loff;

			if (n > local[li].iov_len - loff)
				n = local[li].iov_len - loff;
			if (to_user)
				memcpy(u + roff, l, n);
			else
				memcpy(l, u + roff, n);
			roff += n;
			loff += n;
			done += n;
			if (loff == local[li].iov_len) {
				li++;
				loff = 0;
			}
		}
	}
	if (!done && (nremote || nlocal)) {
		errno = EFAULT;
		return -1;
	}
	return (ssize_t)done;
}

/* The link sends the daemon's calls here (-Wl,--wrap), and these on. */
typedef ssize_t pvm_fn(pid_t pid, const struct iovec *local,
		       unsigned long nlocal, const struct iovec *remote,
		       unsigned long nremote, unsigned long flags);
pvm_fn __wrap_process_vm_readv, __wrap_process_vm_writev;
pvm_fn __real_process_vm_readv, __real_process_vm_writev;

ssize_t __wrap_process_vm_readv(pid_t pid, const struct iovec *local,
				unsigned long nlocal,
				const struct iovec *remote,
				unsigned long nremote, unsigned long flags)
{
	if (fuzz_user_real)
		return __real_process_vm_readv(pid, local, nlocal, remote,
					       nremote, flags);
	return user_copy(local, nlocal, remote, nremote, false);
}

ssize_t __wrap_process_vm_writev(pid_t pid, const struct iovec *local,
				 unsigned long nlocal,
				 const struct iovec *remote,
				 unsigned long nremote, unsigned long flags)
{
	if (fuzz_user_real)
		return __real_process_vm_writev(pid, local, nlocal, remote,
						nremote, flags);
	return user_copy(local, nlocal, remote, nremote, true);
}

/*
 * The look at the client's mappings (/proc/PID/maps) that REG_MR and a CQ
 * on external memory take: the harnesses' client space is mapped, readable
 * and writable, and nothing else is.
 */
int __wrap_sefa_user_pages_ok(struct sefa_client *c, uint64_t addr,
			      uint64_t len, bool write);
int __real_sefa_user_pages_ok(struct sefa_client *c, uint64_t addr,
			      uint64_t len, bool write);

int __wrap_sefa_user_pages_ok(struct sefa_client *c, uint64_t addr,
			      uint64_t len, bool write)
{
	if (fuzz_user_real)
		return __real_sefa_user_pages_ok(c, addr, len, write);
	return user_ptr((const void *)(uintptr_t)addr, len) ? 0 : -EFAULT;
}

void fuzz_stream_init(struct fuzz_stream *s, const uint8_t *data,
		      size_t size, size_t from)
{
	s->base = data;
	s->size = size;
	s->pos = from < size ? from : size;
}

int fuzz_stream_next(struct fuzz_stream *s, struct fuzz_rec *r)
{
	size_t left = s->size - s->pos;
	const uint8_t *p = s->base + s->pos;

	if (left < 3)
		return 0;
	r->op = p[0];
	r->len = p[1] | (size_t)p[2] << 8;
	if (r->len > left - 3)
		r->len = left - 3;
	r->data = p + 3;
	r->addr = FUZZ_USER_BASE + s->pos + 3;
	s->pos += 3 + r->len;
	return 1;
}
