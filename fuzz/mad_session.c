// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The MAD layer of a harness's daemon, per input.  The daemon itself never
 * takes its MAD layer down (it lives as long as the process), so this is
 * the harness's own: every port's agents go as the kernel's unregister
 * makes them go, with their sends and RMPP state.
 */
#include <stdlib.h>

#include "fuzz.h"
#include "mad/layer.h"

void fuzz_mad_init(struct sefa_daemon *d)
{
	fuzz_daemon_reset(d, "extended");
	d->run_sm = true;
	if (sefa_mad_init(d))
		abort();
}

static void port_free(struct sefa_mad_port *port)
{
	struct mad_agent *a;

	if (!port)
		return;
	while ((a = port->agents)) {
		mad_agent_unregister(a);
		/* a user's agent went with its file; these are the daemon's */
		free(a);
	}
	sm_fini(port);
	free(port);
}

void fuzz_mad_fini(struct sefa_daemon *d)
{
	struct mad_pkt *pkt;
	unsigned int i;

	while ((pkt = d->mad_wire)) {
		d->mad_wire = pkt->next;
		free(pkt);
	}
	for (i = 0; i < d->ndev; i++) {
		port_free(d->dev[i].mad);
		d->dev[i].mad = NULL;
	}
	port_free(d->sm_port);
	d->sm_port = NULL;
}

void fuzz_umad_open(struct fuzz_client *fc, struct sefa_daemon *d)
{
	int ret;

	if (fuzz_client_open(fc, d))
		abort();
	fuzz_client_prime(fc);
	sefa_daemon_lock(d);
	ret = sefa_umad_open(&fc->c, 0, false, true);
	sefa_daemon_unlock(d);
	fuzz_client_drain(fc);
	if (ret)
		abort();
}

void fuzz_umad_session(const uint8_t *data, size_t size,
		       void (*begin)(struct fuzz_client *fc),
		       void (*each)(struct fuzz_client *fc,
				    const struct fuzz_rec *r))
{
	struct sefa_daemon *d = fuzz_daemon(2);
	struct fuzz_client fc;
	struct fuzz_stream s;
	struct fuzz_rec r;

	fuzz_mad_init(d);
	fuzz_user_load(data, size);
	fuzz_umad_open(&fc, d);
	if (begin)
		begin(&fc);
	fuzz_stream_init(&s, data, size, 0);
	while (fuzz_stream_next(&s, &r))
		each(&fc, &r);
	fuzz_client_close(&fc);
	fuzz_mad_fini(d);
}
