/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The MAD room: the kernel's MAD layer for ports that offer it (the
 * extended profile): agents and their registrations, sends with TID
 * rewriting, timeouts and retries, RMPP, the QP0/QP1 wire between the
 * ports of this daemon, the SMA and PMA a driver's process_mad() plays,
 * the daemon's SM/SA, and the umad and issm files.  How its files are
 * layered is in mad/layer.h; its wire format in mad/format.h.
 *
 * This header is what the rest of the daemon calls.  The room includes
 * core/ (and the kernel's umad ABI) and nothing else of the daemon.
 */
#ifndef SEFA_SOFTEFA_DAEMON_MAD_MAD_H
#define SEFA_SOFTEFA_DAEMON_MAD_MAD_H

#include <stdbool.h>
#include <stdint.h>

#include "core/core.h"

/* ports.c: the layer's ports, and its timers from the engine's passes */
int sefa_mad_init(struct sefa_daemon *d);
unsigned int sefa_mad_tick(struct sefa_daemon *d);

/* route.c: a MAD from another host */
void sefa_mad_wire_in(struct sefa_daemon *d, const struct sefa_mad_frame *f);

/* sm.c: where the SM's view puts a LID; a host to ask */
int sefa_sm_where(struct sefa_daemon *d, uint16_t lid, uint8_t gid[16]);
void sefa_sm_candidate(struct sefa_daemon *d, const uint8_t gid[16]);

/* umad.c: the umad and issm files */
int sefa_umad_open(struct sefa_client *c, unsigned int index, bool issm,
		   bool nonblock);
int64_t sefa_umad_call(struct sefa_client *c, const struct sefa_req *req);
const char *sefa_umad_ioctl_name(uint64_t request);
void sefa_umad_close(struct sefa_client *c);

#endif
