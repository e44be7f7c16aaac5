// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause

#include <errno.h>
#include <stdarg.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "efa_fake_kernel.h"

static const struct efa_fake_kernel *kernel;

void efa_fake_kernel_set(const struct efa_fake_kernel *k)
{
	kernel = k;
}

/* Whether the test's kernel answers this call on fd. */
#define FAKED(fd, call) (kernel && kernel->call && kernel->owns(fd))

/* A handler's answer as the system call returns it. */
static long answer(long ret)
{
	if (ret >= 0)
		return ret;
	errno = -ret;
	return -1;
}

int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, req);
	arg = va_arg(ap, void *);
	va_end(ap);

	if (!FAKED(fd, ioctl))
		return syscall(SYS_ioctl, fd, req, arg);
	return answer(kernel->ioctl(fd, req, arg));
}

ssize_t read(int fd, void *buf, size_t count)
{
	if (!FAKED(fd, read))
		return syscall(SYS_read, fd, buf, count);
	return answer(kernel->read(fd, buf, count));
}

ssize_t write(int fd, const void *buf, size_t count)
{
	if (!FAKED(fd, write))
		return syscall(SYS_write, fd, buf, count);
	return answer(kernel->write(fd, buf, count));
}

/* glibc declares fds write-only, which it is not. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
int poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	int fd = nfds == 1 ? fds->fd : -1;

	if (nfds != 1 || !FAKED(fd, poll))
		return syscall(SYS_poll, fds, nfds, timeout);
	return answer(kernel->poll(fds, timeout));
}
#pragma GCC diagnostic pop
