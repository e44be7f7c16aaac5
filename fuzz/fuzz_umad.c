// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * umad's file: what a process does with an open umadN, the write path
 * above all (headers, addresses, agents, RMPP messages to send).
 *
 * Input: records (fuzz.h) on one umad0 of an "extended" daemon with two
 * devices; the op picks the call, op % 6:
 *   0 REGISTER_AGENT, 1 REGISTER_AGENT2, 2 UNREGISTER_AGENT: the payload
 *     is the ioctl's argument;
 *   3 ENABLE_PKEY;
 *   4 write() of the payload (the umad header, then the MAD or message);
 *   5 read() of as many bytes as the record is long, into scratch memory.
 * What the sends cause (the SMA's, PMA's and SA's answers, RMPP ACKs) is
 * delivered as it would be; timers never fire.
 */
#include <stdlib.h>

#include <rdma/ib_user_mad.h>

#include "fuzz.h"
#include "mad/mad.h"

static const uint64_t ioctls[] = {
	IB_USER_MAD_REGISTER_AGENT,
	IB_USER_MAD_REGISTER_AGENT2,
	IB_USER_MAD_UNREGISTER_AGENT,
	IB_USER_MAD_ENABLE_PKEY,
};

static void call(struct fuzz_client *fc, const struct fuzz_rec *r)
{
	struct sefa_req req = { .addr = r->addr, .len = r->len };
	unsigned int op = r->op % 6;
	int64_t ret;

	if (op < 4) {
		req.op = SEFA_OP_IOCTL;
		req.arg = ioctls[op];
	} else if (op == 4) {
		req.op = SEFA_OP_WRITE;
	} else {
		req.op = SEFA_OP_READ;
		req.addr = FUZZ_USER_SCRATCH;
	}
	sefa_daemon_lock(fc->c.d);
	ret = sefa_umad_call(&fc->c, &req);
	sefa_daemon_unlock(fc->c.d);
	if (ret < -4095 || (op < 4 && ret > 0) ||
	    (op == 4 && ret >= 0 && (uint64_t)ret != r->len) ||
	    (op == 5 && ret > (int64_t)r->len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_umad_session(data, size, NULL, call);
	return 0;
}
