/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The top of softefad: a connection's requests, dispatched to the uverbs
 * ABI or to the umad files.
 */
#ifndef SEFA_SOFTEFA_DAEMON_CLIENT_H
#define SEFA_SOFTEFA_DAEMON_CLIENT_H

#include "core/core.h"

int sefa_client_start(struct sefa_daemon *d, int sock);
void sefa_clients_shutdown(struct sefa_daemon *d);

/* refusal.c: the log line of a request that failed */
void sefa_log_refusal(struct sefa_client *c, const struct sefa_req *req,
		      int err);

#endif
