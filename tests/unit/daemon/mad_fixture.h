/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A host for the MAD layer's own API, with no client and no engine: two
 * devices of the extended profile, each with its QP0/QP1 port, and the
 * SM's port with its SA.  A test's agents are the daemon's kind: what
 * they receive, and the timeouts of their sends, are kept in order for
 * the test to read.  MADs to other hosts are kept likewise, and a peer at
 * MFX_PEER_LID, which no port here holds, sends from "the wire".
 */
#ifndef SEFA_TESTS_UNIT_DAEMON_MAD_FIXTURE_H
#define SEFA_TESTS_UNIT_DAEMON_MAD_FIXTURE_H

#include <check.h>

#include "mad/layer.h"

#define MFX_SM		2		/* mfx_port(): the SM's port */
#define MFX_PEER_LID	0x900
#define MFX_MAX		256
#define MFX_OUI		0x001405

/* A MAD that went to another host: its frame and its bytes. */
struct mfx_frame {
	struct sefa_mad_frame f;
	uint8_t mad[MAD_SIZE];
};

/* What an agent of a test got: a message, or a send's timeout. */
struct mfx_got {
	struct mad_agent *agent;
	struct mad_recv *r;
	uint16_t slid;
	bool timed_out;
};

extern struct sefa_daemon mfx_d;
extern struct mfx_frame mfx_out[MFX_MAX];
extern unsigned int mfx_nout;
extern struct mfx_got mfx_got[MFX_MAX];
extern unsigned int mfx_ngot;

void mfx_setup(void);
/* Port @i: a device's (0, 1) or the SM's (MFX_SM). */
struct sefa_mad_port *mfx_port(unsigned int i);
/* A test's agent on port @i, or NULL with the layer's error in @err. */
struct mad_agent *mfx_agent(unsigned int i, const struct mad_reg *reg,
			    int *err);
void mfx_unregister(struct mad_agent *agent);
/* @agent sends @len bytes to @dlid's QP @dst_qp; the wire is drained. */
int mfx_send(struct mad_agent *agent, uint16_t dlid, uint32_t dst_qp,
	     const uint8_t *msg, size_t len, uint32_t timeout_ms,
	     uint32_t retries);
/* The peer sends a MAD to port @i from its QP @src_qp to QP @dst_qp. */
void mfx_from_peer(unsigned int i, uint32_t src_qp, uint32_t dst_qp,
		   const uint8_t *m);
/* Every port's timers run as at @now; the wire is drained. */
void mfx_tick(uint64_t now);
/* The message, or timeout, got @n-th (from 0), by @agent. */
const struct mfx_got *mfx_got_by(const struct mad_agent *agent,
				 unsigned int n);

#endif
