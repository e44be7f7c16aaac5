// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A preloaded spy on the efadv calls that libfabric 2.x's direct data path
 * starts from.  libfabric ignores a failing efadv_query_cq() and quietly
 * polls through libibverbs instead, logging nothing at any level: only
 * what the calls returned tells whether it drives the rings itself.  Each
 * call is passed on to the libefa behind this library and appended, with
 * its result and the ring geometry it reported, to the file named by
 * $EFADV_SPY, one line per call:
 *
 *	query_cq ret 0 entry_size 32 num_entries 512 buffer 1 doorbell 1
 *	query_qp_wqs ret 0 sq_entry_size 64 sq_entries 256 ... rq_entries 256
 *
 * Built by the upstream tests against rdma-core v64's <infiniband/efadv.h>,
 * which declares the calls (EFA_1.4); Debian 12's does not.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/efadv.h>

typedef int (*query_cq_fn)(struct ibv_cq *, struct efadv_cq_attr *, uint32_t);
typedef int (*query_qp_wqs_fn)(struct ibv_qp *, struct efadv_wq_attr *,
			       struct efadv_wq_attr *, uint32_t);

/* The call of the library behind this one, or NULL when it has none. */
static void *next_call(const char *name)
{
	return dlvsym(RTLD_NEXT, name, "EFA_1.4");
}

/* One line into $EFADV_SPY; a spy that cannot write says so on stderr. */
static void spy_log(const char *line)
{
	const char *path = getenv("EFADV_SPY");
	FILE *f;

	if (!path)
		return;
	f = fopen(path, "a");
	if (!f) {
		perror("efadv_spy: $EFADV_SPY");
		return;
	}
	fputs(line, f);
	fclose(f);
}

int efadv_query_cq(struct ibv_cq *ibvcq, struct efadv_cq_attr *attr,
		   uint32_t inlen)
{
	query_cq_fn next = (query_cq_fn)next_call("efadv_query_cq");
	char line[160];
	int ret;

	ret = next ? next(ibvcq, attr, inlen) : EOPNOTSUPP;
	if (ret)
		snprintf(line, sizeof(line), "query_cq ret %d\n", ret);
	else
		snprintf(line, sizeof(line),
			 "query_cq ret 0 entry_size %u num_entries %u buffer %d doorbell %d\n",
			 attr->entry_size, attr->num_entries, !!attr->buffer,
			 !!attr->doorbell);
	spy_log(line);
	return ret;
}

int efadv_query_qp_wqs(struct ibv_qp *ibvqp, struct efadv_wq_attr *sq_attr,
		       struct efadv_wq_attr *rq_attr, uint32_t inlen)
{
	query_qp_wqs_fn next = (query_qp_wqs_fn)next_call("efadv_query_qp_wqs");
	char line[200];
	int ret;

	ret = next ? next(ibvqp, sq_attr, rq_attr, inlen) : EOPNOTSUPP;
	if (ret)
		snprintf(line, sizeof(line), "query_qp_wqs ret %d\n", ret);
	else
		snprintf(line, sizeof(line),
			 "query_qp_wqs ret 0 sq_entry_size %u sq_entries %u sq_buffer %d rq_entry_size %u rq_entries %u rq_buffer %d\n",
			 sq_attr->entry_size, sq_attr->num_entries,
			 !!sq_attr->buffer, rq_attr->entry_size,
			 rq_attr->num_entries, !!rq_attr->buffer);
	spy_log(line);
	return ret;
}
