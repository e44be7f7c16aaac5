// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Resource tracking, as ib_core's restrack shows it through nldev: how
 * many objects of each kind a device holds, and each QP, CQ, MR and PD
 * with the pid of the process that made it.  The objects are the verbs
 * objects of every connection open on the device.  An object's number is
 * the one the device gave it: the QP number, the CQ index, the MR's key
 * index and the PD number.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "core/core.h"
#include "nldev/nl_local.h"
#include "verbs/verbs.h"

/* The kind of object each dump command lists, and its attributes. */
struct res_kind {
	unsigned int cmd;
	enum sefa_obj_type type;
	int table;		/* RDMA_NLDEV_ATTR_RES_QP, ... */
	int entry;		/* RDMA_NLDEV_ATTR_RES_QP_ENTRY, ... */
	int id;			/* the attribute that names one */
};

static const struct res_kind kinds[] = {
	{ RDMA_NLDEV_CMD_RES_QP_GET, SEFA_OBJ_QP, RDMA_NLDEV_ATTR_RES_QP,
	  RDMA_NLDEV_ATTR_RES_QP_ENTRY, RDMA_NLDEV_ATTR_RES_LQPN },
	{ RDMA_NLDEV_CMD_RES_CQ_GET, SEFA_OBJ_CQ, RDMA_NLDEV_ATTR_RES_CQ,
	  RDMA_NLDEV_ATTR_RES_CQ_ENTRY, RDMA_NLDEV_ATTR_RES_CQN },
	{ RDMA_NLDEV_CMD_RES_MR_GET, SEFA_OBJ_MR, RDMA_NLDEV_ATTR_RES_MR,
	  RDMA_NLDEV_ATTR_RES_MR_ENTRY, RDMA_NLDEV_ATTR_RES_MRN },
	{ RDMA_NLDEV_CMD_RES_PD_GET, SEFA_OBJ_PD, RDMA_NLDEV_ATTR_RES_PD,
	  RDMA_NLDEV_ATTR_RES_PD_ENTRY, RDMA_NLDEV_ATTR_RES_PDN },
};

static uint32_t obj_id(const struct sefa_uobj *u)
{
	switch (u->type) {
	case SEFA_OBJ_QP:
		return container_of(u, struct sefa_qp, uobj)->qpn;
	case SEFA_OBJ_MR:
		return SEFA_MR_SLOT(container_of(u, struct sefa_mr, uobj)->lkey);
	case SEFA_OBJ_PD:
		return container_of(u, struct sefa_pd, uobj)->pdn;
	default:
		return u->handle;
	}
}

static int fill_qp(struct nl_msg *m, const struct sefa_qp *qp)
{
	bool rc = qp->type == IBV_QPT_RC;

	if (nl_put_u32(m, RDMA_NLDEV_ATTR_PORT_INDEX, 1) ||
	    nl_put_u32(m, RDMA_NLDEV_ATTR_RES_LQPN, qp->qpn))
		return -EMSGSIZE;
	if (rc && (nl_put_u32(m, RDMA_NLDEV_ATTR_RES_RQPN, qp->dest_qpn) ||
		   nl_put_u32(m, RDMA_NLDEV_ATTR_RES_RQ_PSN,
			      qp->resp.rq_psn)))
		return -EMSGSIZE;
	if (nl_put_u32(m, RDMA_NLDEV_ATTR_RES_SQ_PSN, qp->req.sq_psn))
		return -EMSGSIZE;
	/* IB_MIG_MIGRATED: no alternate path to migrate to */
	if (rc && nl_put_u8(m, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE, 0))
		return -EMSGSIZE;
	if (nl_put_u8(m, RDMA_NLDEV_ATTR_RES_TYPE, qp->type) ||
	    nl_put_u8(m, RDMA_NLDEV_ATTR_RES_STATE, qp->state) ||
	    nl_put_u32(m, RDMA_NLDEV_ATTR_RES_PDN, qp->pd->pdn))
		return -EMSGSIZE;
	return 0;
}

static int fill_cq(struct nl_msg *m, const struct sefa_cq *cq)
{
	if (nl_put_u32(m, RDMA_NLDEV_ATTR_RES_CQE, cq->depth) ||
	    nl_put_u64(m, RDMA_NLDEV_ATTR_RES_USECNT, cq->uobj.usecnt) ||
	    nl_put_u8(m, RDMA_NLDEV_ATTR_DEV_DIM, 0) ||
	    nl_put_u32(m, RDMA_NLDEV_ATTR_RES_CQN, cq->uobj.handle))
		return -EMSGSIZE;
	return 0;
}

/* Keys only for CAP_NET_ADMIN, as the kernel shows them. */
static int fill_mr(struct nl_msg *m, const struct sefa_mr *mr, bool admin)
{
	if (admin && (nl_put_u32(m, RDMA_NLDEV_ATTR_RES_RKEY, mr->lkey) ||
		      nl_put_u32(m, RDMA_NLDEV_ATTR_RES_LKEY, mr->lkey)))
		return -EMSGSIZE;
	if (nl_put_u64(m, RDMA_NLDEV_ATTR_RES_MRLEN, mr->length) ||
	    nl_put_u32(m, RDMA_NLDEV_ATTR_RES_MRN, SEFA_MR_SLOT(mr->lkey)) ||
	    nl_put_u32(m, RDMA_NLDEV_ATTR_RES_PDN, mr->pd->pdn))
		return -EMSGSIZE;
	return 0;
}

static int fill_pd(struct nl_msg *m, const struct sefa_pd *pd)
{
	if (nl_put_u64(m, RDMA_NLDEV_ATTR_RES_USECNT, pd->uobj.usecnt) ||
	    nl_put_u32(m, RDMA_NLDEV_ATTR_RES_PDN, pd->pdn))
		return -EMSGSIZE;
	return 0;
}

static int fill_obj(struct nl_msg *m, const struct sefa_uobj *u, bool admin)
{
	int ret;

	switch (u->type) {
	case SEFA_OBJ_QP:
		ret = fill_qp(m, container_of(u, struct sefa_qp, uobj));
		break;
	case SEFA_OBJ_CQ:
		ret = fill_cq(m, container_of(u, struct sefa_cq, uobj));
		break;
	case SEFA_OBJ_MR:
		ret = fill_mr(m, container_of(u, struct sefa_mr, uobj), admin);
		break;
	default:
		ret = fill_pd(m, container_of(u, struct sefa_pd, uobj));
	}
	return ret ? ret : nl_put_u32(m, RDMA_NLDEV_ATTR_RES_PID, u->c->pid);
}

/* The next object of @type on @dev after (@c, @h); false at the end. */
static bool next_obj(const struct nl_req *r, const struct sefa_device *dev,
		     enum sefa_obj_type type, struct sefa_client **c,
		     unsigned int *h)
{
	struct sefa_uobj *u;

	for (*c = *c ? *c : r->d->clients; *c; *c = (*c)->next, *h = 0) {
		if ((*c)->dev != dev)
			continue;
		for (; *h < (*c)->nuobj; (*h)++) {
			u = (*c)->uobj[*h];
			if (u && u->type == type)
				return true;
		}
	}
	return false;
}

static unsigned int count(const struct nl_req *r, const struct sefa_device *dev,
			  enum sefa_obj_type type)
{
	struct sefa_client *c = NULL;
	unsigned int h = 0, n = 0;

	for (; next_obj(r, dev, type, &c, &h); h++)
		n++;
	return n;
}

static unsigned int count_contexts(const struct nl_req *r,
				   const struct sefa_device *dev)
{
	const struct sefa_client *c;
	unsigned int n = 0;

	for (c = r->d->clients; c; c = c->next)
		n += c->dev == dev && c->has_ucontext;
	return n;
}

static int summary_entry(struct nl_msg *m, const char *name, uint64_t curr)
{
	size_t entry = nl_nest_start(m, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);

	if (!entry ||
	    nl_put_str(m, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME, name) ||
	    nl_put_u64(m, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, curr))
		return -EMSGSIZE;
	nl_nest_end(m, entry);
	return 0;
}

/* restrack's kinds in its order; SoftEFA has no CM IDs and no SRQs. */
static int fill_summary(const struct nl_req *r, struct nl_msg *m,
			const struct sefa_device *dev)
{
	size_t table;

	if (nl_handle(m, dev))
		return -EMSGSIZE;
	table = nl_nest_start(m, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!table ||
	    summary_entry(m, "pd", count(r, dev, SEFA_OBJ_PD)) ||
	    summary_entry(m, "cq", count(r, dev, SEFA_OBJ_CQ)) ||
	    summary_entry(m, "qp", count(r, dev, SEFA_OBJ_QP)) ||
	    summary_entry(m, "cm_id", 0) ||
	    summary_entry(m, "mr", count(r, dev, SEFA_OBJ_MR)) ||
	    summary_entry(m, "ctx", count_contexts(r, dev)) ||
	    summary_entry(m, "srq", 0))
		return -EMSGSIZE;
	nl_nest_end(m, table);
	return 0;
}

int nl_res_get(const struct nl_req *r)
{
	return nl_each_device(r, RDMA_NLDEV_CMD_RES_GET, fill_summary);
}

/* One object by its number: its attributes after the device's. */
static int obj_doit(const struct nl_req *r, const struct res_kind *k,
		    const struct sefa_device *dev)
{
	struct sefa_client *c = NULL;
	unsigned int h = 0;
	struct nl_msg m;
	uint32_t id;

	if (nl_get_u32(r, k->id, &id))
		return -EINVAL;
	for (; next_obj(r, dev, k->type, &c, &h); h++)
		if (obj_id(c->uobj[h]) == id)
			break;
	if (!c)
		return -ENOENT;
	nl_start(&m, r, k->cmd, 0);
	if (nl_handle(&m, dev) || fill_obj(&m, c->uobj[h], r->admin))
		return -EMSGSIZE;
	return nl_emit(r, &m);
}

static int dump_start(struct nl_msg *m, const struct nl_req *r,
		      const struct res_kind *k, const struct sefa_device *dev,
		      size_t *table)
{
	nl_start(m, r, k->cmd, NLM_F_MULTI);
	if (nl_handle(m, dev))
		return -EMSGSIZE;
	*table = nl_nest_start(m, k->table);
	return *table ? 0 : -EMSGSIZE;
}

/*
 * Every object of the kind, in as many messages as they need; a device
 * without any gives none, only the NLMSG_DONE.
 */
static int obj_dump(const struct nl_req *r, const struct res_kind *k,
		    const struct sefa_device *dev)
{
	struct sefa_client *c = NULL;
	unsigned int h = 0, in_msg = 0;
	size_t table, entry, mark;
	struct nl_msg m;
	int ret;

	ret = dump_start(&m, r, k, dev, &table);
	for (; !ret && next_obj(r, dev, k->type, &c, &h); h++) {
		mark = m.len;
		entry = nl_nest_start(&m, k->entry);
		ret = entry ? fill_obj(&m, c->uobj[h], r->admin) : -EMSGSIZE;
		if (!ret) {
			nl_nest_end(&m, entry);
			in_msg++;
			continue;
		}
		if (!in_msg)
			return ret;	/* one entry alone does not fit */
		m.len = mark;
		nl_nest_end(&m, table);
		ret = nl_emit(r, &m);
		in_msg = 0;
		if (!ret)
			ret = dump_start(&m, r, k, dev, &table);
		h--;	/* that object again, in the new message */
	}
	if (ret)
		return ret;
	if (in_msg) {
		nl_nest_end(&m, table);
		ret = nl_emit(r, &m);
	}
	return ret ? ret : nl_done(r, 0);
}

int nl_res_obj_get(const struct nl_req *r, unsigned int cmd)
{
	const struct sefa_device *dev = nl_device(r);
	size_t i;

	if (!dev)
		return -EINVAL;
	if (cmd == RDMA_NLDEV_CMD_RES_CM_ID_GET)
		return r->dump ? nl_done(r, 0) : -ENOENT;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (kinds[i].cmd == cmd)
			return r->dump ? obj_dump(r, &kinds[i], dev) :
			       obj_doit(r, &kinds[i], dev);
	return -EOPNOTSUPP;
}
