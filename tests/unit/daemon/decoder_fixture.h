/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the tests of the daemon's uverbs decoders share: one daemon with one
 * device of the efa profile, and one "client" that is this very process:
 * the daemon reads and writes its memory through process_vm_readv/writev
 * exactly as it does a real client's.
 */
#ifndef SEFA_TESTS_UNIT_DAEMON_DECODER_FIXTURE_H
#define SEFA_TESTS_UNIT_DAEMON_DECODER_FIXTURE_H

#include <stddef.h>

#include <rdma/ib_user_verbs.h>

#include "uverbs/uverbs.h"

extern struct sefa_daemon d;
extern struct sefa_client c;
/* An address that is certainly not mapped, made anew by each setup. */
extern void *unmapped;

/* The checked fixture of each test case: a fresh daemon and client. */
void decoder_setup(void);
int wr(const void *buf, size_t len);

struct query_port_cmd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core;
};

void query_port_cmd(struct query_port_cmd *cmd,
		    struct ib_uverbs_query_port_resp *resp);

#endif
