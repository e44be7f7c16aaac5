// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The object commands of the write() ABI: each decodes its core request,
 * does the work through the object code shared with the ioctl() ABI, and
 * writes the core response (the efa driver writes its own udata).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>
#include <rdma/ib_user_verbs.h>

#include "uverbs/uverbs.h"

/* The efa driver refuses driver data it does not know. */
static int udata_in_empty(struct sefa_cmd *cmd)
{
	int ret = sefa_ubuf_is_zero_from(cmd->c, &cmd->udata_in, 0);

	if (ret < 0)
		return ret;
	return ret ? 0 : sefa_udata_unknown(cmd->c);
}

/*
 * DEALLOC_PD, DEREG_MR and DESTROY_AH: a request of one handle, no
 * response.  A bad handle is EINVAL on the write() ABI.
 */
_Static_assert(sizeof(struct ib_uverbs_dealloc_pd) == sizeof(uint32_t) &&
	       sizeof(struct ib_uverbs_dereg_mr) == sizeof(uint32_t) &&
	       sizeof(struct ib_uverbs_destroy_ah) == sizeof(uint32_t),
	       "each of these requests is one handle");

static int destroy_cmd(struct sefa_cmd *cmd, enum sefa_obj_type type)
{
	uint32_t handle;
	int ret;

	ret = sefa_request(cmd, &handle, sizeof(handle));
	if (ret)
		return ret;
	ret = sefa_uobj_destroy(cmd->c, handle, type);
	return ret == -ENOENT ? sefa_bad_handle(cmd->c, -EINVAL, type, handle) :
				ret;
}

/*
 * DESTROY_CQ and DESTROY_QP: a request of one handle after the response's
 * address, a response of the events the object reported.  Nothing can be
 * undone once the object is gone, so the response buffer is checked first.
 */
_Static_assert(sizeof(struct ib_uverbs_destroy_cq) ==
	       sizeof(struct ib_uverbs_destroy_qp) &&
	       offsetof(struct ib_uverbs_destroy_cq, cq_handle) ==
	       offsetof(struct ib_uverbs_destroy_qp, qp_handle),
	       "both requests are a response address and a handle");

static int destroy_reporting(struct sefa_cmd *cmd, enum sefa_obj_type type)
{
	union {
		struct ib_uverbs_destroy_cq_resp cq;
		struct ib_uverbs_destroy_qp_resp qp;
	} resp = {};
	struct ib_uverbs_destroy_cq req;
	struct sefa_cq *cq = NULL;
	struct sefa_qp *qp = NULL;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	if (type == SEFA_OBJ_CQ)
		cq = sefa_cq_from_handle(cmd->c, req.cq_handle);
	else
		qp = sefa_qp_from_handle(cmd->c, req.cq_handle);
	if (!cq && !qp)
		return sefa_bad_handle(cmd->c, -EINVAL, type, req.cq_handle);
	ret = sefa_clear_user(cmd->c, cmd->core_out.addr, cmd->core_out.len);
	if (ret)
		return ret;
	if (qp) {
		resp.qp.events_reported = sefa_qp_destroy(qp);
		return sefa_response(cmd, &resp.qp, sizeof(resp.qp));
	}
	ret = sefa_cq_destroy(cq, &resp.cq);
	return ret ? ret : sefa_response(cmd, &resp.cq, sizeof(resp.cq));
}

/* The driver's response, then the core's: the order the kernel writes. */
static int respond(struct sefa_cmd *cmd, const void *uresp, size_t ulen,
		   const void *resp, size_t len)
{
	int ret = sefa_udata_out(cmd, uresp, ulen);

	return ret ? ret : sefa_response(cmd, resp, len);
}

int sefa_cmd_alloc_pd(struct sefa_cmd *cmd)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct efa_ibv_alloc_pd_resp uresp = {};
	struct ib_uverbs_alloc_pd req;
	struct sefa_pd *pd;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (!ret)
		ret = udata_in_empty(cmd);
	if (!ret)
		ret = sefa_pd_alloc(cmd->c, &pd);
	if (ret)
		return ret;
	resp.pd_handle = pd->uobj.handle;
	uresp.pdn = pd->pdn;
	ret = respond(cmd, &uresp, sizeof(uresp), &resp, sizeof(resp));
	if (ret)
		sefa_pd_destroy(pd);
	return ret;
}

int sefa_cmd_dealloc_pd(struct sefa_cmd *cmd)
{
	return destroy_cmd(cmd, SEFA_OBJ_PD);
}

int sefa_cmd_reg_mr(struct sefa_cmd *cmd)
{
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uverbs_reg_mr req;
	struct sefa_mr *mr;
	struct sefa_pd *pd;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	/* The kernel insists that start and the IOVA share a page offset. */
	if ((req.start ^ req.hca_va) & (SEFA_PAGE_SIZE - 1))
		return sefa_refuse(cmd->c, -EINVAL,
				   "start and IOVA at different page offsets");
	pd = sefa_pd_from_handle(cmd->c, req.pd_handle);
	if (!pd)
		return sefa_bad_handle(cmd->c, -EINVAL, SEFA_OBJ_PD,
				       req.pd_handle);
	ret = sefa_mr_reg(cmd->c, pd, req.start, req.length, req.hca_va,
			  req.access_flags, &mr);
	if (ret)
		return ret;
	resp.mr_handle = mr->uobj.handle;
	resp.lkey = mr->lkey;
	resp.rkey = mr->lkey;
	ret = sefa_response(cmd, &resp, sizeof(resp));
	if (ret)
		sefa_mr_dereg(mr);
	return ret;
}

int sefa_cmd_dereg_mr(struct sefa_cmd *cmd)
{
	return destroy_cmd(cmd, SEFA_OBJ_MR);
}

int sefa_cmd_create_comp_channel(struct sefa_cmd *cmd)
{
	struct ib_uverbs_create_comp_channel_resp resp = {};
	struct ib_uverbs_create_comp_channel req;
	struct sefa_event_file *ef;
	struct sefa_client *c = cmd->c;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	/* The number must have somewhere to go before the fd exists. */
	ret = sefa_clear_user(c, cmd->core_out.addr, cmd->core_out.len);
	if (ret)
		return ret;
	ret = sefa_event_file_new(c, SEFA_FD_COMP_EVENTS,
				  sizeof(struct ib_uverbs_comp_event_desc),
				  &ef);
	if (ret)
		return ret;
	resp.fd = ef->client_fd;
	ef->next = c->channels;
	c->channels = ef;
	return sefa_response(cmd, &resp, sizeof(resp));
}

static int create_cq(struct sefa_cmd *cmd, const struct sefa_cq_params *p,
		     struct ib_uverbs_create_cq_resp *resp)
{
	struct sefa_cq *cq;
	int ret;

	ret = sefa_cq_create(cmd, p, &cq);
	if (ret)
		return ret;
	resp->cq_handle = cq->uobj.handle;
	resp->cqe = cq->depth;
	return 0;
}

int sefa_cmd_create_cq(struct sefa_cmd *cmd)
{
	struct ib_uverbs_create_cq_resp resp = {};
	struct ib_uverbs_create_cq req;
	struct sefa_cq_params p;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	p = (struct sefa_cq_params){
		.cqe = req.cqe, .user_handle = req.user_handle,
		.channel_fd = req.comp_channel,
		.comp_vector = req.comp_vector,
	};
	ret = create_cq(cmd, &p, &resp);
	if (!ret)
		ret = sefa_response(cmd, &resp, sizeof(resp));
	return ret;
}

int sefa_cmd_ex_create_cq(struct sefa_cmd *cmd)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq req;
	struct sefa_cq_params p;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	if (req.comp_mask || req.reserved)
		return sefa_refuse(cmd->c, -EINVAL,
				   "comp_mask or reserved field set");
	p = (struct sefa_cq_params){
		.cqe = req.cqe, .user_handle = req.user_handle,
		.channel_fd = req.comp_channel,
		.comp_vector = req.comp_vector, .flags = req.flags,
	};
	ret = create_cq(cmd, &p, &resp.base);
	if (ret)
		return ret;
	resp.response_length = cmd->core_out.len < sizeof(resp) ?
			       cmd->core_out.len : sizeof(resp);
	return sefa_response(cmd, &resp, sizeof(resp));
}

int sefa_cmd_destroy_cq(struct sefa_cmd *cmd)
{
	return destroy_reporting(cmd, SEFA_OBJ_CQ);
}

/* QP creation shared by the write and ioctl ABIs: create, answer udata. */
int sefa_qp_create_cmd(struct sefa_cmd *cmd, const struct sefa_qp_params *p,
		       struct sefa_qp **out)
{
	struct efa_ibv_create_qp_resp uresp;
	int ret;

	ret = sefa_qp_create(cmd, p, out, &uresp);
	if (ret)
		return ret;
	ret = sefa_udata_out(cmd, &uresp, sizeof(uresp));
	if (ret)
		sefa_qp_abort(*out);
	return ret;
}

int sefa_cmd_create_qp(struct sefa_cmd *cmd)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ib_uverbs_create_qp req;
	struct sefa_client *c = cmd->c;
	struct sefa_qp_params p;
	struct sefa_qp *qp;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	p = (struct sefa_qp_params){
		.pd = sefa_pd_from_handle(c, req.pd_handle),
		.send_cq = sefa_cq_from_handle(c, req.send_cq_handle),
		.recv_cq = sefa_cq_from_handle(c, req.recv_cq_handle),
		.user_handle = req.user_handle,
		.type = req.qp_type,
		.sq_sig_all = req.sq_sig_all,
		.has_srq = req.is_srq,
		.max_send_wr = req.max_send_wr,
		.max_recv_wr = req.max_recv_wr,
		.max_send_sge = req.max_send_sge,
		.max_recv_sge = req.max_recv_sge,
		.max_inline = req.max_inline_data,
	};
	ret = sefa_qp_create_cmd(cmd, &p, &qp);
	if (ret)
		return ret;
	resp.qp_handle = qp->uobj.handle;
	resp.qpn = qp->qpn;
	resp.max_send_wr = qp->max_send_wr;
	resp.max_recv_wr = qp->max_recv_wr;
	resp.max_send_sge = qp->max_send_sge;
	resp.max_recv_sge = qp->max_recv_sge;
	resp.max_inline_data = qp->max_inline;
	ret = sefa_response(cmd, &resp, sizeof(resp));
	if (ret)
		sefa_qp_abort(qp);
	return ret;
}

int sefa_cmd_modify_qp(struct sefa_cmd *cmd)
{
	struct ib_uverbs_modify_qp req;
	struct sefa_qp *qp;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (!ret)
		ret = udata_in_empty(cmd);
	if (ret)
		return ret;
	qp = sefa_qp_from_handle(cmd->c, req.qp_handle);
	return qp ? sefa_qp_modify(qp, &req) :
		    sefa_bad_handle(cmd->c, -EINVAL, SEFA_OBJ_QP, req.qp_handle);
}

int sefa_cmd_query_qp(struct sefa_cmd *cmd)
{
	struct ib_uverbs_query_qp_resp resp;
	struct ib_uverbs_query_qp req;
	struct sefa_qp *qp;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	qp = sefa_qp_from_handle(cmd->c, req.qp_handle);
	if (!qp)
		return sefa_bad_handle(cmd->c, -EINVAL, SEFA_OBJ_QP,
				       req.qp_handle);
	sefa_qp_query(qp, &resp);
	return sefa_response(cmd, &resp, sizeof(resp));
}

int sefa_cmd_destroy_qp(struct sefa_cmd *cmd)
{
	return destroy_reporting(cmd, SEFA_OBJ_QP);
}

int sefa_cmd_create_ah(struct sefa_cmd *cmd)
{
	struct ib_uverbs_create_ah_resp resp = {};
	struct efa_ibv_create_ah_resp uresp = {};
	struct ib_uverbs_create_ah req;
	struct sefa_pd *pd;
	struct sefa_ah *ah;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (!ret)
		ret = udata_in_empty(cmd);
	if (ret)
		return ret;
	pd = sefa_pd_from_handle(cmd->c, req.pd_handle);
	if (!pd)
		return sefa_bad_handle(cmd->c, -EINVAL, SEFA_OBJ_PD,
				       req.pd_handle);
	/* An EFA address is the 16-byte GID: no GRH, no address. */
	if (!req.attr.is_global || req.attr.port_num != 1)
		return sefa_refuse(cmd->c, -EINVAL,
				   "an AH needs a GRH and port 1");
	ret = sefa_ah_create(cmd->c, pd, req.attr.grh.dgid, &ah);
	if (ret)
		return ret;
	resp.ah_handle = ah->uobj.handle;
	uresp.efa_address_handle = ah->ahn;
	ret = respond(cmd, &uresp, sizeof(uresp), &resp, sizeof(resp));
	if (ret)
		sefa_ah_destroy(ah);
	return ret;
}

int sefa_cmd_destroy_ah(struct sefa_cmd *cmd)
{
	return destroy_cmd(cmd, SEFA_OBJ_AH);
}

/* One object of a closed fd: nobody is there to hear what it answers. */
static void uobj_release(struct sefa_client *c, struct sefa_uobj *u)
{
	struct ib_uverbs_destroy_cq_resp unused;

	switch (u->type) {
	case SEFA_OBJ_QP:
		sefa_qp_destroy(container_of(u, struct sefa_qp, uobj));
		break;
	case SEFA_OBJ_CQ:
		sefa_cq_destroy(container_of(u, struct sefa_cq, uobj), &unused);
		break;
	default:	/* PD, MR and AH */
		sefa_uobj_destroy(c, u->handle, u->type);
		break;
	}
}

/*
 * A closed uverbs fd: everything goes, in the order that keeps references
 * valid (QPs, then what they pointed at).
 */
void sefa_objects_release(struct sefa_client *c)
{
	static const enum sefa_obj_type order[] = {
		SEFA_OBJ_QP, SEFA_OBJ_AH, SEFA_OBJ_MR, SEFA_OBJ_CQ, SEFA_OBJ_PD,
	};
	struct sefa_event_file *ef;
	unsigned int i, k;

	for (k = 0; k < sizeof(order) / sizeof(order[0]); k++)
		for (i = 0; i < c->nuobj; i++)
			if (c->uobj[i] && c->uobj[i]->type == order[k])
				uobj_release(c, c->uobj[i]);
	free(c->uobj);
	c->uobj = NULL;
	c->nuobj = 0;
	while ((ef = c->channels)) {
		c->channels = ef->next;
		sefa_event_file_free(ef);
	}
	sefa_mmap_remove_all(c);
}
