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

static const struct write_method *lookup_method(struct sefa_client *c,
						uint32_t command, int *err)
{
	uint32_t idx = command & IB_USER_VERBS_CMD_COMMAND_MASK;
	const struct write_method *m;

	c->note.cmd = command;
	c->note.has_cmd = true;
	if (command & ~(uint32_t)(IB_USER_VERBS_CMD_FLAG_EXTENDED |
				  IB_USER_VERBS_CMD_COMMAND_MASK)) {
		*err = sefa_refuse(c, -EINVAL,
				   "bits beyond the command number and the extended flag");
		return NULL;
	}
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		m = idx < ARRAY_SIZE(write_ex_methods) ?
			&write_ex_methods[idx] : NULL;
	else
		m = idx < ARRAY_SIZE(write_methods) ? &write_methods[idx] :
						      NULL;
	if (!m || !m->handler) {
		*err = sefa_refuse(c, -EOPNOTSUPP, "command not implemented");
		return NULL;
	}
	return m;
}

/* The kernel's answer to a buffer shorter than the command's structure. */
static int too_small(struct sefa_client *c, const char *what, uint64_t len,
		     size_t need)
{
	return sefa_refuse(c, -ENOSPC, "%s too small (%llu < %zu bytes)", what,
			   (unsigned long long)len, need);
}

/* Every command but GET_CONTEXT needs the ucontext, as in the kernel. */
static int run_method(const struct write_method *m, struct sefa_cmd *cmd)
{
	if (m->handler != sefa_cmd_get_context && !cmd->c->has_ucontext)
		return sefa_refuse(cmd->c, -EINVAL,
				   "no context yet (GET_CONTEXT comes first)");
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
		return sefa_refuse(c, -EINVAL, "shorter than the extended header");
	ret = sefa_copy_from_user(c, &ex, buf + sizeof(*hdr), sizeof(ex));
	if (ret)
		return ret;
	count -= sizeof(*hdr) + sizeof(ex);
	buf += sizeof(*hdr) + sizeof(ex);

	in_len = (uint64_t)hdr->in_words * 8;
	out_len = (uint64_t)hdr->out_words * 8;
	if (in_len + (uint64_t)ex.provider_in_words * 8 != count)
		return sefa_refuse(c, -EINVAL,
				   "in_words and provider_in_words do not add up to the length");
	if (in_len < m->req_size)
		return too_small(c, "request", in_len, m->req_size);
	if (ex.cmd_hdr_reserved)
		return sefa_refuse(c, -EINVAL, "reserved header field set");
	if (ex.response) {
		if (!hdr->out_words && !ex.provider_out_words)
			return sefa_refuse(c, -EINVAL,
					   "a response pointer and no room for it");
		if (out_len < m->resp_size)
			return too_small(c, "response buffer", out_len,
					 m->resp_size);
	} else if (hdr->out_words || ex.provider_out_words) {
		return sefa_refuse(c, -EINVAL,
				   "response room and no response pointer");
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
		return sefa_refuse(cmd->c, -EINVAL,
				   "in_words do not match the length");
	if (count < m->req_size + sizeof(*hdr))
		return too_small(cmd->c, "request", count - sizeof(*hdr),
				 m->req_size);
	if ((uint64_t)hdr->out_words * 4 < m->resp_size)
		return too_small(cmd->c, "response buffer",
				 (uint64_t)hdr->out_words * 4, m->resp_size);

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
		return sefa_refuse(c, -EINVAL, "shorter than the command header");
	if (count > INT32_MAX)
		return sefa_refuse(c, -EINVAL, "longer than 2 GiB");
	ret = sefa_copy_from_user(c, &hdr, buf, sizeof(hdr));
	if (ret)
		return ret;

	m = lookup_method(c, hdr.command, &ret);
	if (!m)
		return ret;
	if (m->is_ex != !!(hdr.command & IB_USER_VERBS_CMD_FLAG_EXTENDED))
		return sefa_refuse(c, -EINVAL, "extended flag does not match the command");

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

	m = lookup_method(cmd->c, command, &ret);
	if (!m)
		return ret;
	if (cmd->core_in.len < m->req_size)
		return too_small(cmd->c, "CORE_IN", cmd->core_in.len,
				 m->req_size);
	if (cmd->core_out.len < m->resp_size)
		return too_small(cmd->c, "CORE_OUT", cmd->core_out.len,
				 m->resp_size);
	if (!m->has_udata) {
		memset(&cmd->udata_in, 0, sizeof(cmd->udata_in));
		memset(&cmd->udata_out, 0, sizeof(cmd->udata_out));
	}
	return run_method(m, cmd);
}
