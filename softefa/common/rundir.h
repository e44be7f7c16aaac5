/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SEFA_SOFTEFA_COMMON_RUNDIR_H
#define SEFA_SOFTEFA_COMMON_RUNDIR_H

#include <stddef.h>

#include "proto.h"

/* The socket path inside it must fit sockaddr_un.sun_path. */
#define SEFA_RUN_DIR_MAX	80

/* The system-wide host, root's, which serves every user of the machine. */
#define SEFA_SYSTEM_RUN_DIR	"/run/softefa"

/*
 * Where this user's own host lives, the one it would start:
 * $SOFTEFA_RUN_DIR, else /run/softefa for root, else
 * $XDG_RUNTIME_DIR/softefa, else /tmp/softefa-<uid>.  Returns 0, or -1
 * when the path is longer than SEFA_RUN_DIR_MAX.
 */
int sefa_run_dir_own(char *buf, size_t len);

/*
 * Where to find a host: $SOFTEFA_RUN_DIR, else the user's own host if one
 * answers there, else the system-wide one.  The same return.
 */
int sefa_run_dir(char *buf, size_t len);

/* An explicit --run-dir, with the same limit. */
int sefa_run_dir_set(char *buf, size_t len, const char *dir);

/*
 * A connection to the host serving @dir (@flags: SOCK_CLOEXEC or 0).
 * Returns the socket, -ENXIO when nothing answers there, or -EACCES for a
 * host neither root nor this user runs: a host reaches into its clients'
 * memory, so only such a one is trusted with it.
 */
int sefa_host_connect(const char *dir, int flags);

#endif
