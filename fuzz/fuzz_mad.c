// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * MADs as they arrive at a port: the SMA and PMA (process_mad()), the
 * daemon's SA, RMPP reassembly for an agent of the kernel's RMPP, and the
 * agents' dispatch.  An "extended" daemon with two devices; a process has
 * umad0 open with agents of a vendor class (kernel RMPP), of one more
 * (user RMPP), of SMP traps and of responses.
 *
 * Input: records (fuzz.h), each one packet on the daemon's QP0/QP1 wire.
 * The op says where it goes: bits 0-1 the port (device 0, device 1, the
 * SM's LID, or device 0's own SMA as a directed route from itself), bit 2
 * QP1 rather than QP0, bit 3 with a GRH.  The payload is the source LID
 * (big-endian, 2 bytes), then the MAD, zero-padded to 256 bytes.
 */
#include <stdlib.h>
#include <string.h>

#include <rdma/ib_user_mad.h>

#include "fuzz.h"
#include "mad/layer.h"

#define VENDOR_OUI	0x001405

static const struct ib_user_mad_reg_req2 agents[] = {
	{ .qpn = 1, .mgmt_class = 0x30, .mgmt_class_version = 1,
	  .oui = VENDOR_OUI, .method_mask = { ~0ULL, ~0ULL },
	  .rmpp_version = 1 },
	{ .qpn = 1, .mgmt_class = 0x31, .mgmt_class_version = 1,
	  .oui = VENDOR_OUI, .method_mask = { ~0ULL, ~0ULL },
	  .rmpp_version = 1, .flags = IB_USER_MAD_USER_RMPP },
	{ .qpn = 0, .mgmt_class = MAD_CLASS_SUBN_LID, .mgmt_class_version = 1,
	  .method_mask = { 1ULL << 0x05 | 1ULL << MAD_METHOD_TRAP_REPRESS } },
	{ .qpn = 1 },			/* responses to its requests */
};

static void register_agents(struct fuzz_client *fc)
{
	struct sefa_req req = {
		.op = SEFA_OP_IOCTL, .arg = IB_USER_MAD_REGISTER_AGENT2,
		.addr = FUZZ_USER_SCRATCH,
	};
	unsigned int i;

	sefa_daemon_lock(fc->c.d);
	for (i = 0; i < sizeof(agents) / sizeof(agents[0]); i++) {
		memcpy(fuzz_user_mem + FUZZ_USER_SIZE / 2, &agents[i],
		       sizeof(agents[i]));
		if (sefa_umad_call(&fc->c, &req))
			abort();
	}
	sefa_daemon_unlock(fc->c.d);
}

static void inject(struct fuzz_client *fc, const struct fuzz_rec *r)
{
	struct sefa_daemon *d = fc->c.d;
	struct mad_pkt *pkt = calloc(1, sizeof(*pkt));
	size_t n = r->len > 2 ? r->len - 2 : 0;

	if (!pkt)
		abort();
	switch (r->op & 3) {
	case 0:
	case 1:
		pkt->dlid = d->dev[r->op & 3].lid;
		break;
	case 2:
		pkt->dlid = SEFA_SM_LID;
		break;
	default:
		pkt->loopback = d->dev[0].mad;
		pkt->dlid = d->dev[0].lid;
	}
	pkt->dst_qp = pkt->src_qp = r->op >> 2 & 1;
	pkt->grh = r->op >> 3 & 1;
	pkt->from_wire = !pkt->loopback;
	pkt->slid = r->len >= 2 ? (uint16_t)(r->data[0] << 8 | r->data[1]) : 0;
	memcpy(pkt->sgid, d->dev[1].gid, 16);
	memcpy(pkt->dgid, d->dev[0].gid, 16);
	memcpy(pkt->mad, r->data + 2, n < MAD_SIZE ? n : MAD_SIZE);
	sefa_daemon_lock(d);
	mad_xmit(d, pkt);
	mad_run(d);
	sefa_daemon_unlock(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_umad_session(data, size, register_agents, inject);
	return 0;
}
