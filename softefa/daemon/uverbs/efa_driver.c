// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The efa kernel driver's side of the commands: its udata, and the device
 * and port attributes it reports.
 */
#include <endian.h>
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>
#include <rdma/ib_user_verbs.h>

#include "efa/efa_abi_compat.h"
#include "efa/efa_ext_abi.h"
#include "host/port.h"
#include "uverbs/uverbs.h"

int efa_alloc_ucontext(struct sefa_cmd *cmd)
{
	const struct sefa_profile *p = cmd->c->dev->profile;
	struct sefa_ibv_alloc_ucontext_resp ext = {};
	struct efa_compat_alloc_ucontext_resp resp_v64 = {};
	struct efa_compat_alloc_ucontext_resp *resp = &resp_v64;
	struct efa_ibv_alloc_ucontext_cmd ucmd;
	uint64_t key;
	int ret;

	ret = sefa_udata_in(cmd, &ucmd, sizeof(ucmd));
	if (ret)
		return ret;
	ret = sefa_create_fault(cmd->c, SEFA_FAULT_OBJ_CTX);
	if (ret)
		return ret;

	/*
	 * A device that batches TX descriptors or wants a minimal SQ depth
	 * only talks to userspace that says it honours those limits.
	 */
	if (p->max_tx_batch &&
	    !(ucmd.comp_mask & EFA_ALLOC_UCONTEXT_CMD_COMP_TX_BATCH))
		return sefa_refuse(cmd->c, -EOPNOTSUPP,
				   "userspace does not honour TX batches");
	if (p->min_sq_wr &&
	    !(ucmd.comp_mask & EFA_ALLOC_UCONTEXT_CMD_COMP_MIN_SQ_WR))
		return sefa_refuse(cmd->c, -EOPNOTSUPP,
				   "userspace does not honour the minimal SQ depth");

	resp->cmds_supp_udata_mask = EFA_USER_CMDS_SUPP_UDATA_QUERY_DEVICE |
				     EFA_USER_CMDS_SUPP_UDATA_CREATE_AH;
	resp->sub_cqs_per_cq = p->sub_cqs_per_cq;
	resp->inline_buf_size = p->inline_buf_size;
	resp->max_llq_size = p->max_llq_size;
	resp->max_tx_batch = p->max_tx_batch;
	resp->min_sq_wr = p->min_sq_wr;
	/* older userspace reads these bytes as reserved and ignores them */
	resp->inline_buf_size_ex = p->inline_buf_size_ex;
	memcpy(&ext.efa, resp, sizeof(ext.efa));
	/* the wake page, for userspace that left room to hear of it */
	if (cmd->udata_out.len >= sizeof(ext) && cmd->c->dev->wake_page) {
		ret = sefa_mmap_insert(cmd->c, cmd->c->dev->wake_page, 0,
				       SEFA_PAGE_SIZE, &key);
		if (ret)
			return ret;
		ext.wake_mmap_key = key;
	}
	ret = sefa_udata_out(cmd, &ext, sizeof(ext));
	if (ret)
		return ret;
	cmd->c->efa_comp_mask = ucmd.comp_mask;
	return 0;
}

int efa_query_device_udata(struct sefa_cmd *cmd)
{
	const struct sefa_device *dev = cmd->c->dev;
	const struct sefa_profile *p = dev->profile;
	struct efa_ibv_ex_query_device_resp resp = {};
	int ret;

	ret = sefa_ubuf_is_zero_from(cmd->c, &cmd->udata_in, 0);
	if (ret < 0)
		return ret;
	if (!ret)
		return sefa_udata_unknown(cmd->c);
	if (!cmd->udata_out.len)
		return 0;

	resp.max_sq_wr = dev->limit[SEFA_LIMIT_SQ_DEPTH];
	resp.max_rq_wr = dev->limit[SEFA_LIMIT_RQ_DEPTH];
	resp.max_sq_sge = p->max_sq_sge;
	resp.max_rq_sge = p->max_rq_sge;
	resp.max_rdma_size = p->max_rdma_size;
	resp.device_caps = p->device_caps;
	return sefa_udata_out(cmd, &resp, sizeof(resp));
}

void efa_fill_device_attr(const struct sefa_device *dev,
			  struct ib_uverbs_query_device_resp *resp)
{
	const struct sefa_profile *p = dev->profile;

	memset(resp, 0, sizeof(*resp));
	resp->fw_ver = 0;
	resp->node_guid = htobe64(dev->node_guid);
	resp->sys_image_guid = htobe64(dev->node_guid);
	/* The limits in force (--limit), each the hardware's by default. */
	resp->max_mr_size = dev->limit[SEFA_LIMIT_MR_PAGES] * SEFA_PAGE_SIZE;
	resp->page_size_cap = p->page_size_cap;
	resp->vendor_id = SEFA_VENDOR_ID;
	resp->vendor_part_id = p->vendor_part_id;
	resp->hw_ver = p->vendor_part_id;
	resp->max_qp = dev->limit[SEFA_LIMIT_QP];
	/* The efa driver's: the shallower of the SQ and RQ depths. */
	resp->max_qp_wr = dev->limit[SEFA_LIMIT_SQ_DEPTH] <
				  dev->limit[SEFA_LIMIT_RQ_DEPTH] ?
			  dev->limit[SEFA_LIMIT_SQ_DEPTH] :
			  dev->limit[SEFA_LIMIT_RQ_DEPTH];
	resp->max_sge = p->max_sge;
	resp->max_sge_rd = p->max_sge_rd;
	resp->max_cq = dev->limit[SEFA_LIMIT_CQ];
	resp->max_cqe = dev->limit[SEFA_LIMIT_CQ_DEPTH];
	resp->max_mr = dev->limit[SEFA_LIMIT_MR];
	resp->max_pd = dev->limit[SEFA_LIMIT_PD];
	resp->max_ah = dev->limit[SEFA_LIMIT_AH];
	resp->max_pkeys = SEFA_PKEY_TBL_LEN;
	resp->max_qp_rd_atom = p->max_qp_rd_atom;
	resp->max_qp_init_rd_atom = p->max_qp_rd_atom;
	resp->max_res_rd_atom = p->max_qp_rd_atom * resp->max_qp;
	resp->phys_port_cnt = 1;
}

int efa_fill_port_attr(const struct sefa_device *dev, unsigned int port,
		       struct ib_uverbs_query_port_resp *resp)
{
	const struct sefa_profile *p = dev->profile;

	if (port != 1)
		return -EINVAL;

	memset(resp, 0, sizeof(*resp));
	resp->state = sefa_port_state(dev);
	resp->max_mtu = p->active_mtu;
	resp->active_mtu = p->active_mtu;
	resp->gid_tbl_len = SEFA_GID_TBL_LEN;
	resp->max_msg_sz = p->mtu;
	resp->pkey_tbl_len = SEFA_PKEY_TBL_LEN;
	resp->lid = dev->lid;
	resp->sm_lid = dev->sm_lid;
	/* EFA reports an LMC of 1; an InfiniBand port without LMC 0. */
	resp->lmc = p->has_lid ? 0 : 1;
	resp->max_vl_num = 1;
	sefa_link_speed(p->link_gbps, &resp->active_speed,
			&resp->active_width);
	resp->phys_state = sefa_port_phys_state(dev);
	resp->link_layer = p->link_layer;
	return 0;
}

/* IB_WIDTH_* as lanes, and IB_SPEED_* as a lane's data rate in 100 Mb/s. */
static unsigned int width_lanes(uint8_t width)
{
	switch (width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

static unsigned int speed_lane_rate(uint8_t speed)
{
	switch (speed) {
	case 1: return 25;	/* SDR */
	case 2: return 50;	/* DDR */
	case 4: return 100;	/* QDR */
	case 8: return 103;	/* FDR10 */
	case 16: return 140;	/* FDR */
	case 32: return 250;	/* EDR */
	case 64: return 500;	/* HDR */
	case 128: return 1000;	/* NDR */
	default: return 0;
	}
}

/*
 * The port's bandwidth in 100 Mb/s units, for UVERBS_METHOD_QUERY_PORT_SPEED:
 * its active width times speed, as query_port and sysfs rate report them.
 */
int efa_port_speed(const struct sefa_device *dev, unsigned int port,
		   uint64_t *speed)
{
	struct ib_uverbs_query_port_resp attr;
	int ret;

	ret = efa_fill_port_attr(dev, port, &attr);
	if (ret)
		return ret;
	*speed = (uint64_t)width_lanes(attr.active_width) *
		 speed_lane_rate(attr.active_speed);
	return 0;
}
