// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Datagrams from another host, into net.c's receive path as its sockets
 * give them: SoftEFA's LID packets (lid.c believes an answer only to its
 * own question, from the GID asked), else the wire's parser
 * (nic_frame_parse()), then what the NIC does with a packet that parsed:
 * MADs to the MAD layer (none here), the wire's check of RC's peer,
 * requests to the device's responder, ACKs and read responses to its
 * completer.  The wire has no sockets: what it sends back fails.  The host is the NIC's unit-test fixture (two devices of
 * the "extended" profile); device 0 has a UD, an SRD and an RC QP (the
 * last connected to one on device 1), receives posted on each, and one
 * region with every right over the whole client memory.
 *
 * Input: records (fuzz.h), each one datagram.  The op's bit 0 picks the
 * device it arrives at, bit 1 whether it comes from device 1's GID (else
 * from a GID no device here has), bit 2 whether this host runs the SM
 * (which says LID 7 is device 1's), bit 3 whether it came to the link's
 * LID group instead of a device.  Whatever the devices answer is taken to
 * the device it is for, or dropped.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nic_fixture.h"

#define NRECV		4
#define RECV_LEN	2048
#define MAX_ANSWERS	8
#define SM_KNOWN_LID	7

static const uint8_t remote_gid[16] = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0x99,
};
static unsigned int answers;

/* The wire to the rest of the world: answers to a device here go to it. */
static void wire(struct nic_engine *eng, const struct sefa_pkt *pkt)
{
	struct sefa_device *dev = nic_device_by_gid(eng->d, pkt->dgid);

	/* a datagram is answered once: a loop would be a bug */
	if (++answers > MAX_ANSWERS)
		abort();
	if (dev && pkt->op == SEFA_PKT_ACK)
		nic_comp_recv(eng, dev, pkt);
}

/* The SM of this host, for its LID packets: it knows one LID. */
static int sm_where(struct sefa_daemon *d, uint16_t lid, uint8_t gid[16])
{
	if (lid != SM_KNOWN_LID)
		return -ENOENT;
	memcpy(gid, d->dev[1].gid, 16);
	return 0;
}

/* Whom it would sweep: the MAD layer's, which this host has not. */
static void sm_candidate(struct sefa_daemon *d, const uint8_t gid[16])
{
	(void)d;
	(void)gid;
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
	struct sockaddr_in6 from = { .sin6_family = AF_INET6 };

	/* counted per datagram: an input of many has as many answers */
	answers = 0;
	memcpy(&from.sin6_addr, r->op & 2 ? fx_d.dev[1].gid : remote_gid, 16);
	fx_d.sm_where = r->op & 4 ? sm_where : NULL;
	fx_d.sm_candidate = r->op & 4 ? sm_candidate : NULL;
	nic_net_deliver(fx_eng, r->op & 8 ? NULL : &fx_d.dev[r->op & 1],
			r->data, r->len, &from);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_stream s;
	struct fuzz_rec r;

	fx_setup();
	if (sefa_net_new(&fx_d))
		abort();
	fx_eng->xmit = wire;
	fuzz_user_load(data, size);
	host();
	fuzz_stream_init(&s, data, size, 0);
	while (fuzz_stream_next(&s, &r))
		deliver(&r);
	sefa_net_close(&fx_d);
	fx_teardown();
	return 0;
}
