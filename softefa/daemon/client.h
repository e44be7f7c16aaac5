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

/* fault_apply.c: the rules the daemon carries out itself */
void sefa_fault_apply_init(struct sefa_daemon *d);
int sefa_fault_apply_add(struct sefa_daemon *d, const char *text,
			 unsigned int *id, char *why, size_t why_len);

/* refusal.c: the log line of a request that failed */
void sefa_log_refusal(struct sefa_client *c, const struct sefa_req *req,
		      int err);

#endif
