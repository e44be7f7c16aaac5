// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The efa driver's device hw_counters: on EFA most verbs are admin
 * commands the driver submits to the device, and the driver counts them
 * and the verbs that failed.  SoftEFA has no admin queue; it counts the
 * verbs that would have been one, each answered at once.
 */
#include <errno.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>

#include "uverbs/uverbs.h"

/* Which verb a request was, as far as the device counters care. */
enum admin_kind {
	ADMIN_NONE,		/* answered by the driver alone */
	ADMIN_OTHER,		/* an admin command with no error counter */
	ADMIN_ALLOC_PD,
	ADMIN_CREATE_QP,
	ADMIN_CREATE_CQ,
	ADMIN_REG_MR,
	ADMIN_ALLOC_UCONTEXT,	/* the driver's ALLOC_UAR */
	ADMIN_CREATE_AH,
};

static enum admin_kind write_kind(uint32_t cmd)
{
	switch (cmd & IB_USER_VERBS_CMD_COMMAND_MASK) {
	case IB_USER_VERBS_CMD_GET_CONTEXT:
		return ADMIN_ALLOC_UCONTEXT;
	case IB_USER_VERBS_CMD_ALLOC_PD:
		return ADMIN_ALLOC_PD;
	case IB_USER_VERBS_CMD_CREATE_AH:
		return ADMIN_CREATE_AH;
	case IB_USER_VERBS_CMD_REG_MR:
		return ADMIN_REG_MR;
	case IB_USER_VERBS_CMD_CREATE_CQ:
		return ADMIN_CREATE_CQ;
	case IB_USER_VERBS_CMD_CREATE_QP:
		return ADMIN_CREATE_QP;
	case IB_USER_VERBS_CMD_DEALLOC_PD:
	case IB_USER_VERBS_CMD_DESTROY_AH:
	case IB_USER_VERBS_CMD_DEREG_MR:
	case IB_USER_VERBS_CMD_DESTROY_CQ:
	case IB_USER_VERBS_CMD_QUERY_QP:
	case IB_USER_VERBS_CMD_MODIFY_QP:
	case IB_USER_VERBS_CMD_DESTROY_QP:
		return ADMIN_OTHER;
	default:
		return ADMIN_NONE;
	}
}

static enum admin_kind ioctl_kind(uint16_t object, uint16_t method)
{
	switch (object) {
	case UVERBS_OBJECT_DEVICE:
		return method == UVERBS_METHOD_GET_CONTEXT ?
		       ADMIN_ALLOC_UCONTEXT : ADMIN_NONE;
	case UVERBS_OBJECT_CQ:
		return method == UVERBS_METHOD_CQ_CREATE ? ADMIN_CREATE_CQ :
		       method == UVERBS_METHOD_CQ_DESTROY ? ADMIN_OTHER :
							   ADMIN_NONE;
	case UVERBS_OBJECT_QP:
		return method == UVERBS_METHOD_QP_CREATE ? ADMIN_CREATE_QP :
		       method == UVERBS_METHOD_QP_DESTROY ? ADMIN_OTHER :
							   ADMIN_NONE;
	case UVERBS_OBJECT_MR:
		return method == UVERBS_METHOD_REG_DMABUF_MR ? ADMIN_REG_MR :
		       method == UVERBS_METHOD_MR_DESTROY ? ADMIN_OTHER :
							   ADMIN_NONE;
	case UVERBS_OBJECT_PD:
		return method == UVERBS_METHOD_PD_DESTROY ? ADMIN_OTHER :
							   ADMIN_NONE;
	case UVERBS_OBJECT_AH:
		return method == UVERBS_METHOD_AH_DESTROY ? ADMIN_OTHER :
							   ADMIN_NONE;
	default:
		return ADMIN_NONE;
	}
}

/*
 * Count the request the client's decoders just ran, by what they noted of
 * it: a write command (INVOKE_WRITE's too) before an ioctl method.  A
 * failed mmap counts as the driver's mmap_err; it is no admin command.
 */
void sefa_uverbs_count_admin(struct sefa_client *c, bool mmap, int64_t ret)
{
	struct sefa_admin_counters *k;
	enum admin_kind kind;

	if (!c->dev)
		return;
	k = &c->dev->admin;
	if (mmap) {
		k->mmap_err += ret < 0;
		return;
	}
	if (c->note.has_cmd)
		kind = write_kind(c->note.cmd);
	else if (c->note.has_method)
		kind = ioctl_kind(c->note.object, c->note.method);
	else
		return;
	if (kind == ADMIN_NONE)
		return;
	k->submitted_cmds++;
	k->completed_cmds++;
	if (ret >= 0)
		return;
	k->cmds_err++;
	switch (kind) {
	case ADMIN_ALLOC_PD:
		k->alloc_pd_err++;
		break;
	case ADMIN_CREATE_QP:
		k->create_qp_err++;
		break;
	case ADMIN_CREATE_CQ:
		k->create_cq_err++;
		break;
	case ADMIN_REG_MR:
		k->reg_mr_err++;
		break;
	case ADMIN_ALLOC_UCONTEXT:
		k->alloc_ucontext_err++;
		break;
	case ADMIN_CREATE_AH:
		k->create_ah_err++;
		break;
	default:
		break;
	}
}
