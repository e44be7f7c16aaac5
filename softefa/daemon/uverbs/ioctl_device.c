// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The ioctl() methods of the device and its file: INVOKE_WRITE (a write()
 * command carried by ioctl), GET_CONTEXT, the port and GID queries, and
 * the async event file.
 */
#include <errno.h>
#include <string.h>

#include "uverbs/ioctl.h"

static int is_copy_err(int ret)
{
	return ret && ret != -ENOENT;
}

static int method_invoke_write(struct bundle *b)
{
	struct sefa_cmd cmd;
	uint64_t command;
	int ret;

	ret = attr_const(b, UVERBS_ATTR_WRITE_CMD, UINT32_MAX, &command);
	if (ret)
		return ret;
	attr_cmd(b, &cmd);
	attr_to_ubuf(attr_get(b, UVERBS_ATTR_CORE_IN), &cmd.core_in);
	attr_to_ubuf(attr_get(b, UVERBS_ATTR_CORE_OUT), &cmd.core_out);
	cmd.core_out.is_inline = false;
	return sefa_invoke_write(&cmd, command);
}

static int method_get_context(struct bundle *b)
{
	struct sefa_cmd cmd;
	uint32_t ncomp = b->c->dev->num_comp_vectors;
	uint64_t core_support = IB_UVERBS_CORE_SUPPORT_OPTIONAL_MR_ACCESS;
	int ret;

	ret = attr_copy(b, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, &ncomp,
			sizeof(ncomp));
	if (is_copy_err(ret))
		return ret;
	ret = attr_copy(b, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, &core_support,
			sizeof(core_support));
	if (is_copy_err(ret))
		return ret;

	if (b->c->has_ucontext)
		return sefa_refuse(b->c, -EINVAL, "the file has a context already");
	attr_cmd(b, &cmd);
	ret = efa_alloc_ucontext(&cmd);
	if (ret)
		return ret;
	b->c->has_ucontext = true;
	return 0;
}

static int method_query_port(struct bundle *b)
{
	struct ib_uverbs_query_port_resp_ex resp = {};
	uint64_t port;
	int ret;

	ret = attr_const(b, UVERBS_ATTR_QUERY_PORT_PORT_NUM, UINT8_MAX, &port);
	if (ret)
		return ret;
	ret = efa_fill_port_attr(b->c->dev, port, &resp.legacy_resp);
	if (ret)
		return ret;
	return attr_copy_or_zero(b, UVERBS_ATTR_QUERY_PORT_RESP, &resp,
				 sizeof(resp));
}

static int method_query_port_speed(struct bundle *b)
{
	uint64_t port, speed;
	int ret;

	ret = attr_const(b, UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, UINT32_MAX,
			 &port);
	if (ret)
		return ret;
	if (efa_port_speed(b->c->dev, port, &speed))
		return sefa_refuse(b->c, -EINVAL, "port speed of port %llu",
				   (unsigned long long)port);
	return attr_copy(b, UVERBS_ATTR_QUERY_PORT_SPEED_RESP, &speed,
			 sizeof(speed));
}

static void fill_gid_entry(const struct sefa_device *dev, uint32_t port,
			   uint32_t index, struct ib_uverbs_gid_entry *e)
{
	memset(e, 0, sizeof(*e));
	memcpy(e->gid, dev->gid, sizeof(e->gid));
	e->gid_index = index;
	e->port_num = port;
	e->gid_type = IB_UVERBS_GID_TYPE_IB;
}

static int method_query_gid_entry(struct bundle *b)
{
	struct ib_uverbs_gid_entry entry;
	uint64_t port, index;
	int ret;

	ret = attr_const(b, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, UINT32_MAX,
			 &port);
	if (ret)
		return ret;
	ret = attr_const(b, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, UINT32_MAX,
			 &index);
	if (ret)
		return ret;
	ret = attr_no_flags(b, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS);
	if (ret)
		return ret;
	if (port != 1 || index >= SEFA_GID_TBL_LEN)
		return sefa_refuse(b->c, -EINVAL, "no GID %llu on port %llu",
				   (unsigned long long)index,
				   (unsigned long long)port);

	fill_gid_entry(b->c->dev, port, index, &entry);
	return attr_copy_or_zero(b, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
				 &entry, sizeof(entry));
}

static int method_query_gid_table(struct bundle *b)
{
	const struct ib_uverbs_attr *out;
	struct ib_uverbs_gid_entry entry;
	uint64_t entry_size, max_entries, num = 0, i;
	int ret;

	ret = attr_const(b, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, UINT16_MAX,
			 &entry_size);
	if (ret)
		return ret;
	ret = attr_no_flags(b, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS);
	if (ret)
		return ret;
	out = attr_get(b, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES);
	if (!entry_size || out->len % entry_size)
		return sefa_refuse(b->c, -EINVAL,
				   "entries of %llu bytes do not fill %u bytes",
				   (unsigned long long)entry_size, out->len);
	max_entries = out->len / entry_size;
	if (max_entries < SEFA_GID_TBL_LEN)
		return sefa_refuse(b->c, -EINVAL,
				   "room for %llu GIDs, the table has %u",
				   (unsigned long long)max_entries,
				   SEFA_GID_TBL_LEN);

	for (i = 0; i < SEFA_GID_TBL_LEN; i++, num++) {
		uint64_t at = out->data + i * entry_size;
		size_t n = entry_size < sizeof(entry) ? entry_size :
							 sizeof(entry);

		fill_gid_entry(b->c->dev, 1, i, &entry);
		ret = sefa_copy_to_user(b->c, at, &entry, n);
		if (!ret && entry_size > n)
			ret = sefa_clear_user(b->c, at + n, entry_size - n);
		if (ret)
			return ret;
	}
	ret = attr_set_output(b, out);
	if (ret)
		return ret;
	return attr_copy(b, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, &num,
			 sizeof(num));
}

static int method_async_event_alloc(struct bundle *b)
{
	uint64_t at = attr_data_addr(b,
		attr_get(b, UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE));
	int64_t fd64;
	int fd;
	int ret;

	/* The destination must take the number before the fd exists. */
	ret = sefa_clear_user(b->c, at, sizeof(fd64));
	if (ret)
		return ret;
	ret = sefa_alloc_async_fd(b->c, &fd);
	if (ret)
		return ret;
	fd64 = fd;
	return sefa_copy_to_user(b->c, at, &fd64, sizeof(fd64));
}

static const struct attr_spec invoke_write_attrs[] = {
	CONST_IN(UVERBS_ATTR_WRITE_CMD, true),
	IN(UVERBS_ATTR_CORE_IN, sizeof(uint32_t), UINT16_MAX, false),
	OUT(UVERBS_ATTR_CORE_OUT, 0, UINT16_MAX, false),
	UHW_ATTRS,
};

static const struct attr_spec get_context_attrs[] = {
	OUT(UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, 4, 4, false),
	OUT(UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, 8, 8, false),
	UHW_ATTRS,
};

static const struct attr_spec query_port_attrs[] = {
	CONST_IN(UVERBS_ATTR_QUERY_PORT_PORT_NUM, true),
	OUT(UVERBS_ATTR_QUERY_PORT_RESP,
	    sizeof(struct ib_uverbs_query_port_resp_ex),
	    sizeof(struct ib_uverbs_query_port_resp_ex), true),
};

static const struct attr_spec query_port_speed_attrs[] = {
	CONST_IN(UVERBS_ATTR_QUERY_PORT_SPEED_PORT_NUM, true),
	OUT(UVERBS_ATTR_QUERY_PORT_SPEED_RESP, sizeof(uint64_t),
	    sizeof(uint64_t), true),
};

static const struct attr_spec query_gid_entry_attrs[] = {
	CONST_IN(UVERBS_ATTR_QUERY_GID_ENTRY_PORT, true),
	CONST_IN(UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, true),
	FLAGS_IN(UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, true),
	OUT(UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
	    sizeof(struct ib_uverbs_gid_entry),
	    sizeof(struct ib_uverbs_gid_entry), true),
};

static const struct attr_spec query_gid_table_attrs[] = {
	CONST_IN(UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, true),
	FLAGS_IN(UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, false),
	OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, 0, UINT16_MAX, true),
	OUT(UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, 8, 8, true),
};

static const struct attr_spec async_event_alloc_attrs[] = {
	{ .id = UVERBS_ATTR_ASYNC_EVENT_ALLOC_FD_HANDLE, .type = ATTR_FD_NEW,
	  .mandatory = true },
};

static const struct ioctl_method device_table[] = {
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_INVOKE_WRITE,
	       method_invoke_write, invoke_write_attrs, true, false),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_GET_CONTEXT,
	       method_get_context, get_context_attrs, true, false),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT,
	       method_query_port, query_port_attrs, false, true),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_PORT_SPEED,
	       method_query_port_speed, query_port_speed_attrs, false, true),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_ENTRY,
	       method_query_gid_entry, query_gid_entry_attrs, false, true),
	METHOD(UVERBS_OBJECT_DEVICE, UVERBS_METHOD_QUERY_GID_TABLE,
	       method_query_gid_table, query_gid_table_attrs, false, true),
	METHOD(UVERBS_OBJECT_ASYNC_EVENT, UVERBS_METHOD_ASYNC_EVENT_ALLOC,
	       method_async_event_alloc, async_event_alloc_attrs, false, true),
};

const struct ioctl_methods ioctl_device_methods = METHODS(device_table);
