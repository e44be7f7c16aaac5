// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets from another host: the wire's parser (nic_frame_parse()), then
 * what the NIC does with a packet that parsed, as net.c's receive path
 * does: through the wire's check of RC's peer, requests to the device's
 * responder, ACKs and read responses to its completer.  The host is the NIC's unit-test fixture (two devices of
 * the "extended" profile); device 0 has a UD, an SRD and an RC QP (the
 * last connected to one on device 1), receives posted on each, and one
 * region with every right over the whole client memory.
 *
 * Input: records (fuzz.h), each one datagram.  The op's bit 0 picks the
 * device it arrives at, bit 1 whether it comes from device 1's GID (else
 * from a GID no device here has).  Whatever the devices answer is taken to
 * the device it is for, or dropped.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nic_fixture.h"

#define NRECV		4
#define RECV_LEN	2048
#define MAX_ANSWERS	8

static const uint8_t remote_gid[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0x99,
};
static unsigned int answers;

/* The wire to the rest of the world: answers to a device here go to it. */
static void wire(struct nic_engine *eng, const struct sefa_pkt *pkt)
{
	struct sefa_device *dev = nic_wire_device(eng->d, pkt->dgid);

	/* a datagram is answered once: a loop would be a bug */
	if (++answers > MAX_ANSWERS)
		abort();
	if (dev && pkt->op == SEFA_PKT_ACK)
		nic_comp_recv(eng, dev, pkt);
}

static void host(void)
{
	const uint32_t all = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ;
	struct sefa_pd *pd0 = fx_pd(0), *pd1 = fx_pd(1);
	struct sefa_mr *mr = fx_mr(pd0, (void *)(uintptr_t)FUZZ_USER_BASE,
				   FUZZ_USER_SIZE, all);
	struct sefa_qp *qp[3], *peer;
	struct sefa_cq *cq0;
	uint64_t buf = FUZZ_USER_SCRATCH;
	unsigned int i, k;

	fx_mr(pd1, (void *)(uintptr_t)FUZZ_USER_BASE, FUZZ_USER_SIZE, all);
	/* the fixture's commands point at its own stack */
	fuzz_user_real = true;
	cq0 = fx_cq(0);
	qp[0] = fx_qp(pd0, cq0, IBV_QPT_UD);
	qp[1] = fx_qp(pd0, cq0, IBV_QPT_DRIVER);
	qp[2] = fx_qp(pd0, cq0, IBV_QPT_RC);
	peer = fx_qp(pd1, fx_cq(1), IBV_QPT_RC);
	fx_rc_connect(qp[2], peer, false);
	fuzz_user_real = false;
	for (i = 0; i < 3; i++) {
		for (k = 0; k < NRECV; k++) {
			fx_post_recv(qp[i], (void *)(uintptr_t)buf, RECV_LEN,
				     mr->lkey, i * NRECV + k);
			buf += RECV_LEN;
		}
	}
}

static void deliver(const struct fuzz_rec *r)
{
	struct sefa_device *dev = &fx_d.dev[r->op & 1];
	struct sefa_pkt pkt;

	/* counted per datagram: an input of many has as many answers */
	answers = 0;
	if (nic_frame_parse(r->data, r->len, &pkt))
		return;
	memcpy(pkt.sgid, r->op & 2 ? fx_d.dev[1].gid : remote_gid, 16);
	memcpy(pkt.dgid, dev->gid, 16);
	nic_wire_deliver(fx_eng, dev, &pkt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_stream s;
	struct fuzz_rec r;

	fx_setup();
	fx_eng->xmit = wire;
	fuzz_user_load(data, size);
	host();
	fuzz_stream_init(&s, data, size, 0);
	while (fuzz_stream_next(&s, &r))
		deliver(&r);
	fx_teardown();
	return 0;
}
