/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The text of the control requests that read the daemon: softefa status
 * and softefa stats.  Each fills @buf, cut at @len.
 */
#ifndef SEFA_SOFTEFA_DAEMON_STATUS_H
#define SEFA_SOFTEFA_DAEMON_STATUS_H

#include "core/core.h"

void sefa_status_text(struct sefa_daemon *d, char *buf, size_t len);
void sefa_stats_text(struct sefa_daemon *d, char *buf, size_t len);

#endif
