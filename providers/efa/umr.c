// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The KLM staging area of a UMR QP.  It is set up by the experimental
 * create (verbs_exp.c) once the QP exists and torn down by the QP's own
 * destroy (qp.c) once the device can no longer read it; both call down
 * into this file, so the QP never calls up into the experimental verbs.
 */

#include <errno.h>
#include <stdlib.h>

#include "efa.h"

/* max_klms entries per send queue slot, so a slot's list stays in place
 * until the device has executed its WQE.
 */
int efa_umr_init(struct efa_qp *qp, struct ibv_pd *ibvpd, uint32_t max_klms)
{
	size_t len = (size_t)(qp->sq.wq.desc_mask + 1) * max_klms *
		     sizeof(struct efa_io_klm);

	if (posix_memalign((void **)&qp->umr.klms, 4096, len))
		return ENOMEM;
	/* The device only reads it. */
	qp->umr.mr = ibv_reg_mr(ibvpd, qp->umr.klms, len, 0);
	if (!qp->umr.mr) {
		free(qp->umr.klms);
		qp->umr.klms = NULL;
		return errno;
	}
	qp->umr.max_klms = max_klms;
	return 0;
}

/* After the QP is destroyed: the device reads no more lists. */
void efa_umr_fini(struct efa_qp *qp)
{
	if (!qp->umr.mr)
		return;
	ibv_dereg_mr(qp->umr.mr);
	free(qp->umr.klms);
}
