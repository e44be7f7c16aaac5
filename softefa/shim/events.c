// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The event files the daemon hands over (a context's async events, a
 * completion channel), watched so that they end as uverbs event files do:
 * the daemon's end of the socket pair closed reads as end of file, which
 * the kernel never says; a read of a closed event file with no event left
 * fails with EIO.  When its device file is still open, the daemon is what
 * went away, and the async file first gives IBV_EVENT_DEVICE_FATAL once, as
 * after a device's disassociation, unless the daemon queued it itself on
 * its way out.  (The daemon's pid or listening socket would not tell: a
 * dying daemon closes its sockets one by one before it is gone.)
 *
 * A byte per fd and the fd of its device file, lock-free, as read() asks
 * for every fd of the process; an event fd beyond EVENT_FDS_MAX reads as
 * the plain socket it is.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#include "shim.h"

#define EVENT_FDS_MAX		4096
#define EVENT_FATAL_SEEN	0x80

static _Atomic uint8_t event_fds[EVENT_FDS_MAX];
static _Atomic int event_dev[EVENT_FDS_MAX];

void event_fd_watch(int fd, enum sefa_fd_kind kind, int dev_fd)
{
	if (fd >= 0 && fd < EVENT_FDS_MAX) {
		atomic_store(&event_dev[fd], dev_fd);
		atomic_store(&event_fds[fd], kind);
	}
}

void event_fd_forget(int fd)
{
	if (fd >= 0 && fd < EVENT_FDS_MAX)
		atomic_store(&event_fds[fd], 0);
}

bool event_fd_watched(int fd)
{
	return fd >= 0 && fd < EVENT_FDS_MAX &&
	       atomic_load_explicit(&event_fds[fd], memory_order_relaxed);
}

static bool is_fatal(const void *buf, ssize_t n)
{
	struct ib_uverbs_async_event_desc ev;

	if (n < (ssize_t)sizeof(ev))
		return false;
	memcpy(&ev, buf, sizeof(ev));
	return ev.event_type == IBV_EVENT_DEVICE_FATAL;
}

ssize_t event_fd_read(int fd, void *buf, size_t count)
{
	uint8_t state = atomic_load(&event_fds[fd]);
	uint8_t kind = state & ~EVENT_FATAL_SEEN;
	struct ib_uverbs_async_event_desc fatal = {
		.event_type = IBV_EVENT_DEVICE_FATAL,
	};
	ssize_t n = real_read(fd, buf, count);

	if (n > 0 && kind == SEFA_FD_ASYNC_EVENTS && is_fatal(buf, n))
		atomic_fetch_or(&event_fds[fd], EVENT_FATAL_SEEN);
	if (n)
		return n;
	/* closed: by the daemon, unless the device file was closed */
	if (kind == SEFA_FD_ASYNC_EVENTS && !(state & EVENT_FATAL_SEEN) &&
	    count >= sizeof(fatal) && file_get(atomic_load(&event_dev[fd]))) {
		atomic_fetch_or(&event_fds[fd], EVENT_FATAL_SEEN);
		memcpy(buf, &fatal, sizeof(fatal));
		return sizeof(fatal);
	}
	errno = EIO;
	return -1;
}
