/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The NIC of softefad: an engine thread that polls doorbells and runs
 * each work request through a pipeline of requester, wire, responder and
 * completer (nic/loc.h), up to the completions.
 *
 * This room (softefa/daemon/nic/) holds the NIC model: the stages (req.c,
 * resp.c, comp.c and seq.c), the transport below them (wire.c, inbox.c,
 * and net.c over net_lid.c and net_tx.c, with lookup.c, frame.c and
 * lid.c), the memory they reach (mr.c, dma.c) and the engine thread
 * (task.c, watch.c).  It may include the verbs objects (verbs/verbs.h,
 * and core/ through it), the fault engine it asks (fault/fault.h), the
 * device ABI headers (efa_ext_abi.h, efa_abi_compat.h) and system headers; no file of the daemon's higher
 * rooms (uverbs/, mad/, the connection code).  This header is what the
 * rest of the daemon may use of it; nic/loc.h is the room's own.
 */
#ifndef SEFA_SOFTEFA_DAEMON_NIC_NIC_H
#define SEFA_SOFTEFA_DAEMON_NIC_NIC_H

#include "verbs/verbs.h"

/* net.c: the wire to other hosts, before the engine starts, after it stops */
int sefa_net_new(struct sefa_daemon *d);
int sefa_net_open(struct sefa_daemon *d);
void sefa_net_close(struct sefa_daemon *d);
int sefa_net_mad_xmit(struct sefa_daemon *d, const struct sefa_mad_frame *f);

/* task.c */
int sefa_engine_start(struct sefa_daemon *d);
void sefa_engine_stop(struct sefa_daemon *d);

/* watch.c */
void sefa_engine_kick(struct sefa_daemon *d);

#endif
