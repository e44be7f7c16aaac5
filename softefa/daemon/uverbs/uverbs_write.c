// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The legacy write() ABI of ib_uverbs: header checks, the method table, and
 * the translation of the command layout into ucore and udata buffers.  The
 * same table serves UVERBS_METHOD_INVOKE_WRITE of the ioctl ABI.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include <rdma/ib_user_verbs.h>

#include "uverbs/uverbs.h"

struct write_method {
	int (*handler)(struct sefa_cmd *cmd);
	size_t req_size;	/* smallest core request */
	size_t resp_size;	/* smallest core response */
	bool has_resp;
	bool has_udata;
	bool is_ex;
};

static const struct write_method write_methods[] = {
	[IB_USER_VERBS_CMD_GET_CONTEXT] = {
		.handler = sefa_cmd_get_context,
		.req_size = sizeof(struct ib_uverbs_get_context),
		.resp_size = sizeof(struct ib_uverbs_get_context_resp),
		.has_resp = true,
		.has_udata = true,
	},
	[IB_USER_VERBS_CMD_QUERY_DEVICE] = {
		.handler = sefa_cmd_query_device,
		.req_size = sizeof(struct ib_uverbs_query_device),
		.resp_size = sizeof(struct ib_uverbs_query_device_resp),
		.has_resp = true,
	},
	[IB_USER_VERBS_CMD_QUERY_PORT] = {
		.handler = sefa_cmd_query_port,
		.req_size = sizeof(struct ib_uverbs_query_port),
		.resp_size = sizeof(struct ib_uverbs_query_port_resp),
		.has_resp = true,
	},
	[IB_USER_VERBS_CMD_ALLOC_PD] = {
		.handler = sefa_cmd_alloc_pd,
		.req_size = sizeof(struct ib_uverbs_alloc_pd),
		.resp_size = sizeof(struct ib_uverbs_alloc_pd_resp),
		.has_resp = true,
		.has_udata = true,
	},
	[IB_USER_VERBS_CMD_DEALLOC_PD] = {
		.handler = sefa_cmd_dealloc_pd,
		.req_size = sizeof(struct ib_uverbs_dealloc_pd),
	},
	[IB_USER_VERBS_CMD_CREATE_AH] = {
		.handler = sefa_cmd_create_ah,
		.req_size = sizeof(struct ib_uverbs_create_ah),
		.resp_size = sizeof(struct ib_uverbs_create_ah_resp),
		.has_resp = true,
		.has_udata = true,
	},
	[IB_USER_VERBS_CMD_DESTROY_AH] = {
		.handler = sefa_cmd_destroy_ah,
		.req_size = sizeof(struct ib_uverbs_destroy_ah),
	},
	[IB_USER_VERBS_CMD_REG_MR] = {
		.handler = sefa_cmd_reg_mr,
		.req_size = sizeof(struct ib_uverbs_reg_mr),
		.resp_size = sizeof(struct ib_uverbs_reg_mr_resp),
		.has_resp = true,
		.has_udata = true,
	},
	[IB_USER_VERBS_CMD_DEREG_MR] = {
		.handler = sefa_cmd_dereg_mr,
		.req_size = sizeof(struct ib_uverbs_dereg_mr),
	},
	[IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL] = {
		.handler = sefa_cmd_create_comp_channel,
		.req_size = sizeof(struct ib_uverbs_create_comp_channel),
		.resp_size = sizeof(struct ib_uverbs_create_comp_channel_resp),
		.has_resp = true,
	},
	[IB_USER_VERBS_CMD_CREATE_CQ] = {
		.handler = sefa_cmd_create_cq,
		.req_size = sizeof(struct ib_uverbs_create_cq),
		.resp_size = sizeof(struct ib_uverbs_create_cq_resp),
		.has_resp = true,
		.has_udata = true,
	},
	[IB_USER_VERBS_CMD_DESTROY_CQ] = {
		.handler = sefa_cmd_destroy_cq,
		.req_size = sizeof(struct ib_uverbs_destroy_cq),
		.resp_size = sizeof(struct ib_uverbs_destroy_cq_resp),
		.has_resp = true,
	},
	[IB_USER_VERBS_CMD_CREATE_QP] = {
		.handler = sefa_cmd_create_qp,
		.req_size = sizeof(struct ib_uverbs_create_qp),
		.resp_size = sizeof(struct ib_uverbs_create_qp_resp),
		.has_resp = true,
		.has_udata = true,
	},
	[IB_USER_VERBS_CMD_QUERY_QP] = {
		.handler = sefa_cmd_query_qp,
		.req_size = sizeof(struct ib_uverbs_query_qp),
		.resp_size = sizeof(struct ib_uverbs_query_qp_resp),
		.has_resp = true,
	},
	[IB_USER_VERBS_CMD_MODIFY_QP] = {
		.handler = sefa_cmd_modify_qp,
		.req_size = sizeof(struct ib_uverbs_modify_qp),
		.has_udata = true,
	},
	[IB_USER_VERBS_CMD_DESTROY_QP] = {
		.handler = sefa_cmd_destroy_qp,
		.req_size = sizeof(struct ib_uverbs_destroy_qp),
		.resp_size = sizeof(struct ib_uverbs_destroy_qp_resp),
		.has_resp = true,
	},
};

static const struct write_method write_ex_methods[] = {
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = {
		.handler = sefa_cmd_ex_query_device,
		.req_size = sizeof(struct ib_uverbs_ex_query_device),
		.resp_size = offsetofend(struct ib_uverbs_ex_query_device_resp,
					 response_length),
		.has_resp = true,
		.has_udata = true,
		.is_ex = true,
	},
	[IB_USER_VERBS_EX_CMD_CREATE_CQ] = {
		.handler = sefa_cmd_ex_create_cq,
		.req_size = sizeof(struct ib_uverbs_ex_create_cq),
		.resp_size = sizeof(struct ib_uverbs_ex_create_cq_resp),
		.has_resp = true,
		.has_udata = true,
		.is_ex = true,
	},
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct write_method *lookup_method(uint32_t command, int *err)
{
	uint32_t idx = command & IB_USER_VERBS_CMD_COMMAND_MASK;
	const struct write_method *m;

	if (command & ~(uint32_t)(IB_USER_VERBS_CMD_FLAG_EXTENDED |
				  IB_USER_VERBS_CMD_COMMAND_MASK)) {
		*err = -EINVAL;
		return NULL;
	}
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		m = idx < ARRAY_SIZE(write_ex_methods) ?
			&write_ex_methods[idx] : NULL;
	else
		m = idx < ARRAY_SIZE(write_methods) ? &write_methods[idx] :
						      NULL;
	if (!m || !m->handler) {
		*err = -EOPNOTSUPP;
		return NULL;
	}
	return m;
}

/* Every command but GET_CONTEXT needs the ucontext, as in the kernel. */
static int run_method(const struct write_method *m, struct sefa_cmd *cmd)
{
	if (m->handler != sefa_cmd_get_context && !cmd->c->has_ucontext)
		return -EINVAL;
	return m->handler(cmd);
}

static void ubuf_user(struct sefa_ubuf *b, uint64_t addr, size_t len)
{
	memset(b, 0, sizeof(*b));
	b->addr = addr;
	b->len = len;
}

static int write_ex(struct sefa_cmd *cmd, const struct write_method *m,
		    const struct ib_uverbs_cmd_hdr *hdr, uint64_t buf,
		    uint64_t count)
{
	struct sefa_client *c = cmd->c;
	struct ib_uverbs_ex_cmd_hdr ex;
	uint64_t in_len, out_len;
	int ret;

	if (count < sizeof(*hdr) + sizeof(ex))
		return -EINVAL;
	ret = sefa_copy_from_user(c, &ex, buf + sizeof(*hdr), sizeof(ex));
	if (ret)
		return ret;
	count -= sizeof(*hdr) + sizeof(ex);
	buf += sizeof(*hdr) + sizeof(ex);

	in_len = (uint64_t)hdr->in_words * 8;
	out_len = (uint64_t)hdr->out_words * 8;
	if (in_len + (uint64_t)ex.provider_in_words * 8 != count)
		return -EINVAL;
	if (in_len < m->req_size)
		return -ENOSPC;
	if (ex.cmd_hdr_reserved)
		return -EINVAL;
	if (ex.response) {
		if (!hdr->out_words && !ex.provider_out_words)
			return -EINVAL;
		if (out_len < m->resp_size)
			return -ENOSPC;
	} else if (hdr->out_words || ex.provider_out_words) {
		return -EINVAL;
	}

	ubuf_user(&cmd->core_in, buf, in_len);
	ubuf_user(&cmd->udata_in, buf + in_len, ex.provider_in_words * 8);
	ubuf_user(&cmd->core_out, ex.response, out_len);
	ubuf_user(&cmd->udata_out, ex.response + out_len,
		  ex.provider_out_words * 8);
	return run_method(m, cmd);
}

static int write_legacy(struct sefa_cmd *cmd, const struct write_method *m,
			const struct ib_uverbs_cmd_hdr *hdr, uint64_t buf,
			uint64_t count)
{
	uint64_t response = 0;
	int ret;

	if ((uint64_t)hdr->in_words * 4 != count)
		return -EINVAL;
	if (count < m->req_size + sizeof(*hdr))
		return -ENOSPC;
	if ((uint64_t)hdr->out_words * 4 < m->resp_size)
		return -ENOSPC;

	buf += sizeof(*hdr);
	count -= sizeof(*hdr);
	ubuf_user(&cmd->core_in, buf, m->req_size);
	if (m->has_resp) {
		/* The response pointer leads every legacy request. */
		ret = sefa_copy_from_user(cmd->c, &response, buf,
					  sizeof(response));
		if (ret)
			return ret;
		ubuf_user(&cmd->core_out, response, m->resp_size);
	}
	if (m->has_udata) {
		ubuf_user(&cmd->udata_in, buf + m->req_size,
			  count - m->req_size);
		if (m->has_resp)
			ubuf_user(&cmd->udata_out, response + m->resp_size,
				  (uint64_t)hdr->out_words * 4 - m->resp_size);
	}
	return run_method(m, cmd);
}

/* write(2) on a uverbs fd.  Returns the byte count or a negative errno. */
int sefa_uverbs_write(struct sefa_client *c, uint64_t buf, uint64_t count)
{
	struct sefa_cmd cmd = { .c = c };
	const struct write_method *m;
	struct ib_uverbs_cmd_hdr hdr;
	int ret;

	if (count < sizeof(hdr))
		return -EINVAL;
	if (count > INT32_MAX)
		return -EINVAL;
	ret = sefa_copy_from_user(c, &hdr, buf, sizeof(hdr));
	if (ret)
		return ret;

	m = lookup_method(hdr.command, &ret);
	if (!m)
		return ret;
	if (m->is_ex != !!(hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED))
		return -EINVAL;

	ret = m->is_ex ? write_ex(&cmd, m, &hdr, buf, count) :
			 write_legacy(&cmd, m, &hdr, buf, count);
	return ret ? ret : (int)count;
}

/*
 * UVERBS_METHOD_INVOKE_WRITE: the ioctl layer already split the command into
 * core and driver buffers; only the size rules of the method remain.
 */
int sefa_invoke_write(struct sefa_cmd *cmd, uint32_t command)
{
	const struct write_method *m;
	int ret;

	m = lookup_method(command, &ret);
	if (!m)
		return ret;
	if (cmd->core_in.len < m->req_size || cmd->core_out.len < m->resp_size)
		return -ENOSPC;
	if (!m->has_udata) {
		memset(&cmd->udata_in, 0, sizeof(cmd->udata_in));
		memset(&cmd->udata_out, 0, sizeof(cmd->udata_out));
	}
	return run_method(m, cmd);
}
