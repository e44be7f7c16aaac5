// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The uverbs decoders, one harness per ABI: built with FUZZ_IOCTL, every
 * record is an ioctl() argument (RDMA_VERBS_IOCTL), else a write() buffer.
 *
 * Input: a byte of flags (bit 0: the "extended" profile, bit 1: the daemon
 * answers as an old kernel, write() only), then records (fuzz.h), each one
 * system call of the same open file, so a context, PDs, CQs and QPs made
 * by the first records are there for the next.  The file is closed at the
 * end, which must leave the device as it was.
 */
#include <stdlib.h>

#include <rdma/rdma_user_ioctl.h>

#include "fuzz.h"
#include "uverbs/uverbs.h"

static void call(struct fuzz_client *fc, const struct fuzz_rec *r)
{
	struct sefa_daemon *d = fc->c.d;
	int ret;

	sefa_daemon_lock(d);
#ifdef FUZZ_IOCTL
	ret = sefa_uverbs_ioctl(&fc->c, RDMA_VERBS_IOCTL, r->addr);
	/* the ioctl ABI answers 0 or an errno */
	if (ret > 0 || ret < -4095)
		abort();
#else
	ret = sefa_uverbs_write(&fc->c, r->addr, r->len);
	/* write() takes the whole command or fails */
	if (ret >= 0 ? (size_t)ret != r->len : ret < -4095)
		abort();
#endif
	sefa_daemon_unlock(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sefa_daemon *d = fuzz_daemon(1);
	struct fuzz_client fc;
	struct fuzz_stream s;
	struct fuzz_rec r;

	if (!size)
		return 0;
	fuzz_daemon_reset(d, data[0] & 1 ? "extended" : "efa");
	if (data[0] & 2)
		d->abi = SEFA_ABI_WRITE;
	fuzz_user_load(data, size);
	if (fuzz_client_open(&fc, d))
		abort();
	fuzz_stream_init(&s, data, size, 1);
	while (fuzz_stream_next(&s, &r)) {
		fuzz_client_prime(&fc);
		call(&fc, &r);
		fuzz_client_drain(&fc);
	}
	fuzz_client_close(&fc);
	return 0;
}
