/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The kernel as a unit test plays it.  ioctl(), read(), write() and poll()
 * are defined here: on a file descriptor the test's kernel owns they call
 * its handler, on any other the system call.
 */

#ifndef SEFA_TESTS_UNIT_PROVIDER_EFA_FAKE_KERNEL_H
#define SEFA_TESTS_UNIT_PROVIDER_EFA_FAKE_KERNEL_H

#include <poll.h>
#include <stdbool.h>
#include <sys/types.h>

/*
 * A handler answers as the system call would, but with -errno where that
 * fails: the call then returns -1 with errno set.  A handler left NULL
 * leaves that call to the system.
 */
struct efa_fake_kernel {
	bool (*owns)(int fd);
	int (*ioctl)(int fd, unsigned long req, void *arg);
	ssize_t (*read)(int fd, void *buf, size_t count);
	ssize_t (*write)(int fd, const void *buf, size_t count);
	/* a poll() of this one descriptor */
	int (*poll)(struct pollfd *pfd, int timeout);
};

/* From now on the kernel is k; NULL: the real one for every descriptor. */
void efa_fake_kernel_set(const struct efa_fake_kernel *k);

#endif /* SEFA_TESTS_UNIT_PROVIDER_EFA_FAKE_KERNEL_H */
