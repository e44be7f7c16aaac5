// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The MAD layer's host for its unit tests (mad_fixture.h).  Everything a
 * test makes stays reachable from the globals here to the end of its
 * process, so nothing of it reads as leaked.
 */
#include <stdlib.h>
#include <string.h>

#include "mad_fixture.h"

struct sefa_daemon mfx_d;
struct mfx_frame mfx_out[MFX_MAX];
unsigned int mfx_nout;
struct mfx_got mfx_got[MFX_MAX];
unsigned int mfx_ngot;

static int capture(struct sefa_daemon *d, const struct sefa_mad_frame *f)
{
	struct mfx_frame *o = &mfx_out[mfx_nout];

	(void)d;
	ck_assert_uint_lt(mfx_nout, MFX_MAX);
	o->f = *f;
	memcpy(o->mad, f->mad, MAD_SIZE);
	o->f.mad = o->mad;
	mfx_nout++;
	return 0;
}

static struct mfx_got *got_next(struct mad_agent *agent, struct mad_recv *r)
{
	struct mfx_got *g = &mfx_got[mfx_ngot];

	ck_assert_uint_lt(mfx_ngot, MFX_MAX);
	g->agent = agent;
	g->r = r;
	mfx_ngot++;
	return g;
}

static void got_recv(struct mad_agent *agent, struct mad_recv *r,
		     const struct mad_pkt *pkt)
{
	got_next(agent, r)->slid = pkt->slid;
}

static void got_timeout(struct mad_agent *agent, struct mad_recv *r)
{
	got_next(agent, r)->timed_out = true;
}

void mfx_setup(void)
{
	mfx_d.profile = sefa_profile_find("extended");
	ck_assert_ptr_nonnull(mfx_d.profile);
	memcpy(mfx_d.netdev.mac, "\x02\x00\x00\x00\x00\x01", 6);
	mfx_d.run_sm = true;
	ck_assert_int_eq(sefa_devices_init(&mfx_d, 2), 0);
	mfx_d.mad_out = capture;
	ck_assert_int_eq(sefa_mad_init(&mfx_d), 0);
}

struct sefa_mad_port *mfx_port(unsigned int i)
{
	return i == MFX_SM ? mfx_d.sm_port : mfx_d.dev[i].mad;
}

struct mad_agent *mfx_agent(unsigned int i, const struct mad_reg *reg,
			    int *err)
{
	struct mad_agent *agent = calloc(1, sizeof(*agent));
	int ret;

	ck_assert_ptr_nonnull(agent);
	agent->handler = got_recv;
	agent->timed_out = got_timeout;
	ret = mad_agent_register(mfx_port(i), reg, agent);
	if (err)
		*err = ret;
	if (ret) {
		free(agent);
		return NULL;
	}
	return agent;
}

void mfx_unregister(struct mad_agent *agent)
{
	mad_agent_unregister(agent);
	free(agent);
}

int mfx_send(struct mad_agent *agent, uint16_t dlid, uint32_t dst_qp,
	     const uint8_t *msg, size_t len, uint32_t timeout_ms,
	     uint32_t retries)
{
	const struct mad_addr addr = { .dlid = dlid, .dst_qp = dst_qp };
	int ret = mad_send(agent, NULL, &addr, msg, len, timeout_ms, retries);

	mad_run(&mfx_d);
	return ret;
}

void mfx_from_peer(unsigned int i, uint32_t src_qp, uint32_t dst_qp,
		   const uint8_t *m)
{
	struct sefa_mad_frame f = {
		.slid = MFX_PEER_LID,
		.dlid = mfx_port(i)->lid,
		.src_qp = src_qp,
		.dst_qp = dst_qp,
		.mad = m,
	};

	f.sgid[0] = 0xfe;
	f.sgid[1] = 0x80;
	f.sgid[15] = 0x99;
	memcpy(f.dgid, mfx_port(i)->gid, 16);
	sefa_mad_wire_in(&mfx_d, &f);
}

void mfx_tick(uint64_t now)
{
	unsigned int i;

	for (i = 0; i <= MFX_SM; i++)
		mad_port_tick(mfx_port(i), now);
	mad_run(&mfx_d);
}

const struct mfx_got *mfx_got_by(const struct mad_agent *agent,
				 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < mfx_ngot; i++)
		if (mfx_got[i].agent == agent && !n--)
			return &mfx_got[i];
	return NULL;
}
