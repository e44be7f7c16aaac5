/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef SOFTEFA_RUNDIR_H
#define SOFTEFA_RUNDIR_H

#include <stddef.h>

#include "proto.h"

/* The socket path inside it must fit sockaddr_un.sun_path. */
#define SEFA_RUN_DIR_MAX	80

/*
 * The run directory: $SOFTEFA_RUN_DIR, else /run/softefa for root, else
 * $XDG_RUNTIME_DIR/softefa, else /tmp/softefa-<uid>.  Returns 0, or -1 when
 * the path is longer than SEFA_RUN_DIR_MAX.
 */
int sefa_run_dir(char *buf, size_t len);

/* An explicit --run-dir, with the same limit. */
int sefa_run_dir_set(char *buf, size_t len, const char *dir);

#endif
