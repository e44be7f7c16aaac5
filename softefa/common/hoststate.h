/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SEFA_SOFTEFA_COMMON_HOSTSTATE_H
#define SEFA_SOFTEFA_COMMON_HOSTSTATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * What serves a run directory.  A daemon writes its pid file before
 * anything else there and removes it last, so while one lives the pid file
 * names it: what a run directory holds without such a daemon is what a
 * dead one left.
 */
enum sefa_host_state {
	SEFA_HOST_NONE,		/* no daemon, nothing left behind */
	SEFA_HOST_LIVE,		/* a daemon answers on the socket */
	SEFA_HOST_MUTE,		/* a live softefad owns it, yet does not answer */
	SEFA_HOST_DEAD,		/* a pid file or socket nobody lives behind */
};

/* The pid @dir's pid file names, or 0. */
pid_t sefa_pid_file_read(const char *dir);

/* The state of @dir's host, and the pid its pid file names (or 0). */
enum sefa_host_state sefa_host_state(const char *dir, pid_t *pid);

/*
 * Remove what a daemon makes in @dir (socket, sysfs tree, device nodes,
 * then the pid file), not the log.  Only for a state other than LIVE and
 * MUTE.  Returns 0 or the first failure's -errno.
 */
int sefa_run_dir_clear(const char *dir);

/*
 * Wait up to @ms milliseconds, by the clock, until the softefad @pid is
 * gone; a zombie nobody reaped yet counts as gone.  True when it went.
 */
bool sefa_wait_daemon_gone(pid_t pid, int ms);

/* CLOCK_MONOTONIC in milliseconds, for deadlines. */
int64_t sefa_now_ms(void);

/* Remove <dir>/<sub> and all below it; 0 or -errno. */
int sefa_rm_tree(const char *dir, const char *sub);

#endif
