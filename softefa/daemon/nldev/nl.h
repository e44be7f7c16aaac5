/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The netlink layer of softefad: RDMA netlink (NETLINK_RDMA, the nldev
 * commands) answered as the kernel's ib_core answers it, so that iproute2's
 * rdma tool and libibverbs see SoftEFA's devices, ports, resources and
 * hw_counters.  It reads the host's devices and the verbs objects of the
 * clients; nothing below it calls it.
 *
 * nl_attr.c builds and parses netlink messages; nldev.c answers the
 * device, port, system, char device and statistics commands; nl_res.c the
 * resource tracking ones; nl_serve.c takes a connection's requests apart,
 * hands each to its command and answers errors and acknowledgements.
 */
#ifndef SEFA_SOFTEFA_DAEMON_NLDEV_NL_H
#define SEFA_SOFTEFA_DAEMON_NLDEV_NL_H

#include <stdbool.h>
#include <stddef.h>

struct sefa_client;
struct sefa_daemon;

/* Where the answers go: one call per netlink message. */
struct sefa_nl_sink {
	int (*emit)(void *ctx, const void *msg, size_t len);
	void *ctx;
};

/*
 * Answer the netlink messages in @buf (@len bytes, what one sendmsg()
 * carried), for a caller with CAP_NET_ADMIN when @admin.  Takes the daemon
 * lock.  Returns 0, or the first error of @out's emit().
 */
int sefa_netlink_input(struct sefa_daemon *d, bool admin, const void *buf,
		       size_t len, const struct sefa_nl_sink *out);

/* Serve a NETLINK_RDMA connection until the shim closes it. */
void sefa_netlink_serve(struct sefa_client *c, bool admin);

#endif
