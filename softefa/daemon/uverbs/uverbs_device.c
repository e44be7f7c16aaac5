// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device-level commands of ib_uverbs: the ucontext, the async event file,
 * and the device and port queries, each shared by the write() and the
 * ioctl() ABI.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include <rdma/ib_user_verbs.h>

#include "uverbs/uverbs.h"

/*
 * The async event file of the context: one per open uverbs fd here.
 * Installing it lets the daemon lock go meanwhile.
 */
int sefa_alloc_async_fd(struct sefa_client *c, int *client_fd)
{
	int ret;

	if (c->async)
		return sefa_refuse(c, -EINVAL, "the async event file exists");
	ret = sefa_event_file_new(c, SEFA_FD_ASYNC_EVENTS,
				  sizeof(struct ib_uverbs_async_event_desc),
				  &c->async);
	if (ret)
		return ret;
	*client_fd = c->async->client_fd;
	return 0;
}

int sefa_cmd_get_context(struct sefa_cmd *cmd)
{
	struct sefa_client *c = cmd->c;
	struct ib_uverbs_get_context_resp resp = {};
	struct ib_uverbs_get_context req;
	int client_fd;
	int ret;

	if (c->has_ucontext)
		return sefa_refuse(c, -EINVAL, "the file has a context already");
	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;

	ret = efa_alloc_ucontext(cmd);
	if (ret)
		return ret;

	/*
	 * Make sure the response can land before handing out an fd: once
	 * installed in the caller, the fd cannot be taken back.
	 */
	ret = sefa_clear_user(c, cmd->core_out.addr, cmd->core_out.len);
	if (ret)
		return ret;

	/* The ioctl ABI allocates the async fd with its own method. */
	if (!cmd->from_ioctl) {
		ret = sefa_alloc_async_fd(c, &client_fd);
		if (ret)
			return ret;
		resp.async_fd = client_fd;
	}
	resp.num_comp_vectors = c->dev->num_comp_vectors;
	ret = sefa_response(cmd, &resp, sizeof(resp));
	if (ret)
		return ret;
	c->has_ucontext = true;
	return 0;
}

int sefa_cmd_query_device(struct sefa_cmd *cmd)
{
	struct ib_uverbs_query_device_resp resp;
	struct ib_uverbs_query_device req;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	efa_fill_device_attr(cmd->c->dev, &resp);
	return sefa_response(cmd, &resp, sizeof(resp));
}

int sefa_cmd_ex_query_device(struct sefa_cmd *cmd)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct ib_uverbs_ex_query_device req;
	size_t len;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	if (req.comp_mask || req.reserved)
		return sefa_refuse(cmd->c, -EINVAL,
				   "comp_mask or reserved field set");

	ret = efa_query_device_udata(cmd);
	if (ret)
		return ret;

	efa_fill_device_attr(cmd->c->dev, &resp.base);
	len = cmd->core_out.len < sizeof(resp) ? cmd->core_out.len :
						 sizeof(resp);
	resp.response_length = len;
	return sefa_response(cmd, &resp, sizeof(resp));
}

int sefa_cmd_query_port(struct sefa_cmd *cmd)
{
	struct ib_uverbs_query_port_resp resp;
	struct ib_uverbs_query_port req;
	int ret;

	ret = sefa_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	ret = efa_fill_port_attr(cmd->c->dev, req.port_num, &resp);
	if (ret)
		return ret;
	return sefa_response(cmd, &resp, sizeof(resp));
}

/* Everything a closed uverbs fd leaves behind goes, as on a real kernel. */
void sefa_client_release(struct sefa_client *c)
{
	sefa_objects_release(c);
	sefa_event_file_free(c->async);
	c->async = NULL;
	c->has_ucontext = false;
}
