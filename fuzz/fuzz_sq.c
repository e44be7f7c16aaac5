// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * WQEs a client writes into its send queues, which the device reads as
 * they stand: the requester's checks (nic/req.c), its read-ahead of SENDs
 * and UMR, then what each packet does at the responder of another device
 * of this host and back at the completer, RNR waits and retries included.
 * The host is the NIC's unit-test fixture (two devices of the "extended"
 * profile): device 0 has a UD, an SRD and an RC QP, device 1 a peer of
 * each, the RC pair connected; each device has a region with every right
 * over the whole client memory and receives posted on its QPs; device 0's
 * PD also has an indirect key of four entries and an AH to each device.
 *
 * Input: records (fuzz.h).  The op's low two bits pick the QP written to:
 * device 0's UD, SRD or RC QP, or (3) device 1's SRD QP, which sends back.
 * The payload goes into its send queue as WQEs, 64 bytes each, from where
 * the doorbell stands, and the doorbell moves past them; with bit 2 it
 * moves by the payload's first byte instead (past the ring, too).  Bit 3
 * moves the clock on by the payload's last byte in milliseconds, so that
 * RNR waits fall due.  Then the engine makes one pass over both devices,
 * on that clock (nic_engine_run()).
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "nic_fixture.h"

#define NRECV		4
#define RECV_LEN	2048
#define MS		(1000 * 1000ULL)

static struct sefa_qp *sq_qp[4];

static void host(void)
{
	const uint32_t all = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			     IBV_ACCESS_REMOTE_READ;
	static const int type[3] = { IBV_QPT_UD, IBV_QPT_DRIVER, IBV_QPT_RC };
	struct sefa_pd *pd[2] = { fx_pd(0), fx_pd(1) };
	struct sefa_qp *qp[2][3];
	struct sefa_mr *mr[2];
	uint64_t buf = FUZZ_USER_SCRATCH;
	unsigned int dev, i, k;

	for (dev = 0; dev < 2; dev++)
		mr[dev] = fx_mr(pd[dev], (void *)(uintptr_t)FUZZ_USER_BASE,
				FUZZ_USER_SIZE, all);
	/* the fixture's commands point at its own stack */
	fuzz_user_real = true;
	for (dev = 0; dev < 2; dev++) {
		struct sefa_cq *cq = fx_cq(dev);

		for (i = 0; i < 3; i++)
			qp[dev][i] = fx_qp(pd[dev], cq, type[i]);
	}
	fx_rc_connect(qp[0][2], qp[1][2], false);
	fx_mr_indirect(pd[0], 4, all);
	fx_ah(pd[0], 1);
	fx_ah(pd[0], 0);
	fx_ah(pd[1], 0);
	fuzz_user_real = false;
	for (dev = 0; dev < 2; dev++)
		for (i = 0; i < 3; i++)
			for (k = 0; k < NRECV; k++) {
				fx_post_recv(qp[dev][i], (void *)(uintptr_t)buf,
					     RECV_LEN, mr[dev]->lkey, k);
				buf += RECV_LEN;
			}
	for (i = 0; i < 3; i++)
		sq_qp[i] = qp[0][i];
	sq_qp[3] = qp[1][1];
}

static void run(const struct fuzz_rec *r)
{
	struct sefa_qp *qp = sq_qp[r->op & 3];
	uint32_t *db = (uint32_t *)((uint8_t *)qp->db->addr + SEFA_SQ_DB_OFF);
	struct efa_io_tx_wqe *ring = qp->sq_ring->addr;
	size_t n = r->len / sizeof(*ring), i;

	for (i = 0; i < n && i < qp->sq_entries; i++)
		memcpy(&ring[(*db + i) & (qp->sq_entries - 1)],
		       r->data + i * sizeof(*ring), sizeof(*ring));
	*db += r->op & 4 && r->len ? r->data[0] : i;
	if (r->op & 8 && r->len)
		fx_eng->now += r->data[r->len - 1] * MS;
	nic_engine_run(fx_eng);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_stream s;
	struct fuzz_rec r;

	fx_setup();
	fx_eng->xmit = nic_wire_xmit;
	fuzz_user_load(data, size);
	host();
	fuzz_stream_init(&s, data, size, 0);
	while (fuzz_stream_next(&s, &r))
		run(&r);
	fx_teardown();
	return 0;
}
