// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The names of the uverbs ABI's numbers, for the log: the write()
 * commands, legacy and extended, and the ioctl() objects and methods,
 * the efa driver's and this project's (efa_ext_abi.h) among them.  Each
 * name is the header's enumerator without its prefix.
 */
#include <stddef.h>

#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>

#include "efa/efa_abi_compat.h"
#include "efa/efa_ext_abi.h"
#include "uverbs/uverbs.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define WRITE(_cmd)	[IB_USER_VERBS_CMD_##_cmd] = #_cmd
static const char *const write_names[] = {
	WRITE(GET_CONTEXT), WRITE(QUERY_DEVICE), WRITE(QUERY_PORT),
	WRITE(ALLOC_PD), WRITE(DEALLOC_PD), WRITE(CREATE_AH),
	WRITE(MODIFY_AH), WRITE(QUERY_AH), WRITE(DESTROY_AH), WRITE(REG_MR),
	WRITE(REG_SMR), WRITE(REREG_MR), WRITE(QUERY_MR), WRITE(DEREG_MR),
	WRITE(ALLOC_MW), WRITE(BIND_MW), WRITE(DEALLOC_MW),
	WRITE(CREATE_COMP_CHANNEL), WRITE(CREATE_CQ), WRITE(RESIZE_CQ),
	WRITE(DESTROY_CQ), WRITE(POLL_CQ), WRITE(PEEK_CQ),
	WRITE(REQ_NOTIFY_CQ), WRITE(CREATE_QP), WRITE(QUERY_QP),
	WRITE(MODIFY_QP), WRITE(DESTROY_QP), WRITE(POST_SEND),
	WRITE(POST_RECV), WRITE(ATTACH_MCAST), WRITE(DETACH_MCAST),
	WRITE(CREATE_SRQ), WRITE(MODIFY_SRQ), WRITE(QUERY_SRQ),
	WRITE(DESTROY_SRQ), WRITE(POST_SRQ_RECV), WRITE(OPEN_XRCD),
	WRITE(CLOSE_XRCD), WRITE(CREATE_XSRQ), WRITE(OPEN_QP),
};

#define WRITE_EX(_cmd)	[IB_USER_VERBS_EX_CMD_##_cmd] = #_cmd
static const char *const write_ex_names[] = {
	WRITE_EX(QUERY_DEVICE), WRITE_EX(CREATE_CQ), WRITE_EX(CREATE_QP),
	WRITE_EX(MODIFY_QP), WRITE_EX(CREATE_FLOW), WRITE_EX(DESTROY_FLOW),
	WRITE_EX(CREATE_WQ), WRITE_EX(MODIFY_WQ), WRITE_EX(DESTROY_WQ),
	WRITE_EX(CREATE_RWQ_IND_TBL), WRITE_EX(DESTROY_RWQ_IND_TBL),
	WRITE_EX(MODIFY_CQ),
};

#define OBJECT(_obj)	[UVERBS_OBJECT_##_obj] = #_obj
static const char *const object_names[] = {
	OBJECT(DEVICE), OBJECT(PD), OBJECT(COMP_CHANNEL), OBJECT(CQ),
	OBJECT(QP), OBJECT(SRQ), OBJECT(AH), OBJECT(MR), OBJECT(MW),
	OBJECT(FLOW), OBJECT(XRCD), OBJECT(RWQ_IND_TBL), OBJECT(WQ),
	OBJECT(FLOW_ACTION), OBJECT(DM), OBJECT(COUNTERS),
	OBJECT(ASYNC_EVENT),
};

/* Method ids are per object: the pair names one. */
struct method_name {
	uint16_t object;
	uint16_t method;
	const char *name;
};

#define METHOD(_obj, _m) \
	{ UVERBS_OBJECT_##_obj, UVERBS_METHOD_##_m, #_m }
#define DRIVER_METHOD(_obj, _prefix, _m) \
	{ UVERBS_OBJECT_##_obj, _prefix##_IB_METHOD_##_m, #_prefix "_" #_m }
static const struct method_name method_names[] = {
	METHOD(DEVICE, INVOKE_WRITE), METHOD(DEVICE, INFO_HANDLES),
	METHOD(DEVICE, QUERY_PORT), METHOD(DEVICE, GET_CONTEXT),
	METHOD(DEVICE, QUERY_CONTEXT), METHOD(DEVICE, QUERY_GID_TABLE),
	METHOD(DEVICE, QUERY_GID_ENTRY),
	METHOD(DEVICE, QUERY_PORT_SPEED),
	METHOD(PD, PD_DESTROY),
	METHOD(CQ, CQ_CREATE), METHOD(CQ, CQ_DESTROY),
	METHOD(QP, QP_CREATE), METHOD(QP, QP_DESTROY),
	METHOD(SRQ, SRQ_CREATE), METHOD(SRQ, SRQ_DESTROY),
	METHOD(AH, AH_DESTROY),
	METHOD(MR, DM_MR_REG), METHOD(MR, MR_DESTROY), METHOD(MR, ADVISE_MR),
	METHOD(MR, QUERY_MR), METHOD(MR, REG_DMABUF_MR),
	DRIVER_METHOD(MR, EFA, MR_QUERY),
	DRIVER_METHOD(MR, SEFA, MR_CREATE_INDIRECT),
	METHOD(MW, MW_DESTROY),
	METHOD(FLOW, FLOW_DESTROY),
	METHOD(XRCD, XRCD_DESTROY),
	METHOD(RWQ_IND_TBL, RWQ_IND_TBL_DESTROY),
	METHOD(WQ, WQ_CREATE), METHOD(WQ, WQ_DESTROY),
	METHOD(FLOW_ACTION, FLOW_ACTION_ESP_CREATE),
	METHOD(FLOW_ACTION, FLOW_ACTION_DESTROY),
	METHOD(FLOW_ACTION, FLOW_ACTION_ESP_MODIFY),
	METHOD(DM, DM_ALLOC), METHOD(DM, DM_FREE),
	METHOD(COUNTERS, COUNTERS_CREATE), METHOD(COUNTERS, COUNTERS_DESTROY),
	METHOD(COUNTERS, COUNTERS_READ),
	METHOD(ASYNC_EVENT, ASYNC_EVENT_ALLOC),
};

static const char *lookup(const char *const *names, size_t n, uint32_t id)
{
	return id < n ? names[id] : NULL;
}

/*
 * A write() command as its header gives it, the extended flag included;
 * NULL for a number nobody defined.  The name of an extended command
 * leaves out that it is one.
 */
const char *sefa_write_cmd_name(uint32_t command)
{
	uint32_t idx = command & ~IB_USER_VERBS_CMD_FLAG_EXTENDED;

	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		return lookup(write_ex_names, ARRAY_SIZE(write_ex_names), idx);
	return lookup(write_names, ARRAY_SIZE(write_names), idx);
}

const char *sefa_ioctl_object_name(uint16_t object)
{
	return lookup(object_names, ARRAY_SIZE(object_names), object);
}

const char *sefa_ioctl_method_name(uint16_t object, uint16_t method)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(method_names); i++)
		if (method_names[i].object == object &&
		    method_names[i].method == method)
			return method_names[i].name;
	return NULL;
}
