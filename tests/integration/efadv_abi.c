// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * efadv_abi: built against rdma-core v64's <infiniband/efadv.h> and linked
 * with its libefa, so that it asks for EFA_1.0 to EFA_1.6 as upstream
 * versions them; run against ours (LD_BIND_NOW) it starts only if ours
 * defines every one of them.
 */
#include <stdio.h>

#include <infiniband/efadv.h>

int main(void)
{
	const void *syms[] = {
		(const void *)efadv_create_driver_qp,
		(const void *)efadv_create_qp_ex,
		(const void *)efadv_query_device,
		(const void *)efadv_query_ah,
		(const void *)efadv_create_cq,
		(const void *)efadv_cq_from_ibv_cq_ex,
		(const void *)efadv_query_mr,
		(const void *)efadv_query_qp_wqs,
		(const void *)efadv_query_cq,
		(const void *)efadv_get_max_sq_depth,
		(const void *)efadv_get_max_rq_depth,
		(const void *)efadv_qp_from_ibv_qp_ex,
	};
	unsigned int i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!syms[i])
			return 1;
	printf("resolved %u\n", i);
	return 0;
}
