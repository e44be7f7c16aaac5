/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the harnesses share: a client address space made of the fuzz
 * input, a daemon built in-process, and the record stream every harness
 * reads its input as.
 *
 * The daemon reaches a client's memory with process_vm_readv/writev.  In
 * a harness the link wraps both (-Wl,--wrap): "client" addresses are
 * offsets into fuzz_user_mem above FUZZ_USER_BASE and anything else is
 * EFAULT, so whatever pointer an input holds, the daemon can never write
 * into the harness itself, and a seed's pointers mean the same on every
 * run.
 */
#ifndef SEFA_FUZZ_FUZZ_H
#define SEFA_FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

#define FUZZ_USER_BASE		0x10000000ULL
#define FUZZ_USER_SIZE		(128 * 1024)
/* Where harnesses point what the daemon writes: the upper half. */
#define FUZZ_USER_SCRATCH	(FUZZ_USER_BASE + FUZZ_USER_SIZE / 2)

extern uint8_t fuzz_user_mem[FUZZ_USER_SIZE];
/*
 * Set while a harness's own code hands the daemon pointers into the
 * harness (a unit-test fixture's commands): the real calls, meanwhile.
 */
extern bool fuzz_user_real;

/* The client's memory: the input at FUZZ_USER_BASE, zeros after it. */
void fuzz_user_load(const uint8_t *data, size_t size);

/*
 * The record stream: one byte of op, a little-endian 16-bit length, the
 * payload.  A truncated last record is cut to what is there.  @addr is the
 * payload's address in the client, where fuzz_user_load() put the input.
 */
struct fuzz_rec {
	uint8_t op;
	const uint8_t *data;
	size_t len;
	uint64_t addr;
};

struct fuzz_stream {
	const uint8_t *base;
	size_t pos;
	size_t size;
};

void fuzz_stream_init(struct fuzz_stream *s, const uint8_t *data,
		      size_t size, size_t from);
int fuzz_stream_next(struct fuzz_stream *s, struct fuzz_rec *r);

/*
 * A daemon of @ndev devices of the "efa" profile, made once per process;
 * fuzz_daemon_reset() brings back what a previous input changed that the
 * release of its client does not (key generations, counters, the profile).
 */
struct sefa_daemon *fuzz_daemon(unsigned int ndev);
void fuzz_daemon_reset(struct sefa_daemon *d, const char *profile);

/*
 * A client of device 0 on a socket pair, the harness at the other end
 * playing the shim: each fd the daemon installs is answered with a number
 * and closed at once.
 */
struct fuzz_client {
	struct sefa_client c;
	int peer;		/* the shim's end */
	unsigned int fds;	/* fd numbers given out */
};

int fuzz_client_open(struct fuzz_client *fc, struct sefa_daemon *d);
/* Before a call that may install fds: answers for them, queued. */
void fuzz_client_prime(struct fuzz_client *fc);
/* After it: what was not taken back, and the fds sent, gone. */
void fuzz_client_drain(struct fuzz_client *fc);
void fuzz_client_close(struct fuzz_client *fc);

/*
 * The MAD layer of an "extended" daemon, made for one input and gone after
 * it with everything it holds (agents, sends, reassemblies, packets).
 */
void fuzz_mad_init(struct sefa_daemon *d);
void fuzz_mad_fini(struct sefa_daemon *d);
/* A client with umad0 open, non-blocking. */
void fuzz_umad_open(struct fuzz_client *fc, struct sefa_daemon *d);
/*
 * One input, against a fresh MAD layer of a two-device daemon, through a
 * client with umad0 open: @begin (if any) once, then @each per record of
 * the input; all of it gone after.  Each takes the daemon lock it needs.
 */
void fuzz_umad_session(const uint8_t *data, size_t size,
		       void (*begin)(struct fuzz_client *fc),
		       void (*each)(struct fuzz_client *fc,
				    const struct fuzz_rec *r));

/* libFuzzer's entry point, which the replay driver calls too. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
