/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The libibverbs provider ABI: IBVERBS_PRIVATE_34 (rdma-core 34 to 56; the
 * layouts are rdma-core 44's, Debian 12's) or IBVERBS_PRIVATE_64 (rdma-core
 * 64), as EFA_IBVERBS_PABI says; CMake sets it from the libibverbs it
 * builds against.
 *
 * rdma-core exports these structures and functions from libibverbs.so.1
 * under the symbol version IBVERBS_PRIVATE_<N> but installs no header for
 * them (driver.h and kern-abi.h stay inside its source tree).  An
 * out-of-tree provider therefore has to declare them itself, and a single
 * byte of difference is silent memory corruption inside libibverbs.  This
 * is the only place in the project that declares them; every layout below
 * is pinned by a compile-time check against that rdma-core on LP64, in
 * ibverbs_layout.h, which this header includes last.
 *
 * What 64 changed of what this provider uses: verbs_context_ops gained
 * seven operations (marked below), ibv_cmd_get_context() an array of file
 * descriptors and ibv_cmd_create_cq_ex() the provider's CQ buffer (both
 * optional: we pass NULL), and the public verbs_context and ibv_qp_ex,
 * which the private objects embed, grew.  The device, match, sysfs, MR and
 * CQ wrappers and the write-ABI command layouts stayed as they were.
 *
 * Kernel ABI structures are never redefined here: they come from the
 * system UAPI headers.
 */

#ifndef SEFA_PROVIDERS_EFA_IBVERBS_PRIVATE_H
#define SEFA_PROVIDERS_EFA_IBVERBS_PRIVATE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>

#if EFA_IBVERBS_PABI != 34 && EFA_IBVERBS_PABI != 64
#error "EFA_IBVERBS_PABI: the private libibverbs ABI must be 34 or 64"
#endif

/* ccan's struct list_node, which libibverbs embeds in its objects. */
struct ibv_private_list_node {
	struct ibv_private_list_node *next;
	struct ibv_private_list_node *prev;
};

/* Logging: the level is VERBS_LOG_LEVEL; nothing is printed unless both it
 * and VERBS_LOG_FILE are set (release builds of libibverbs).
 */
enum {
	VERBS_LOG_LEVEL_NONE,
	VERBS_LOG_ERR,
	VERBS_LOG_WARN,
	VERBS_LOG_INFO,
	VERBS_LOG_DEBUG,
};

void __verbs_log(struct verbs_context *ctx, uint32_t level, const char *fmt,
		 ...) __attribute__((format(printf, 3, 4)));

/* Prefix every message with the device and the function, like the
 * providers shipped with rdma-core do.
 */
#define verbs_log(vctx, level, fmt, ...)                                       \
	__verbs_log(vctx, level, "%s: %s: " fmt,                               \
		    (vctx)->context.device->name, __func__, ##__VA_ARGS__)
#define verbs_err(vctx, fmt, ...)                                              \
	verbs_log(vctx, VERBS_LOG_ERR, fmt, ##__VA_ARGS__)
#define verbs_debug(vctx, fmt, ...)                                            \
	verbs_log(vctx, VERBS_LOG_DEBUG, fmt, ##__VA_ARGS__)

/* Device matching */
enum {
	VERBS_MATCH_SENTINEL = 0,
	VERBS_MATCH_PCI = 1,
	VERBS_MATCH_MODALIAS = 2,
	VERBS_MATCH_DRIVER_ID = 3,
};

struct verbs_match_ent {
	void *driver_data;
	union {
		const char *modalias;
		uint64_t driver_id;
	} u;
	uint16_t vendor;
	uint16_t device;
	uint8_t kind;
};

/* One uverbs device found by libibverbs in sysfs or over netlink. */
struct verbs_sysfs_dev {
	struct ibv_private_list_node entry;
	void *provider_data;
	const struct verbs_match_ent *match;
	unsigned int flags;
	char sysfs_name[IBV_SYSFS_NAME_MAX];
	dev_t sysfs_cdev;
	char ibdev_name[IBV_SYSFS_NAME_MAX];
	char ibdev_path[IBV_SYSFS_PATH_MAX];
	char modalias[512];
	uint64_t node_guid;
	uint32_t driver_id;
	enum ibv_node_type node_type;
	int ibdev_idx;
	uint32_t num_ports;
	uint32_t abi_ver;
	struct timespec time_created;
};

struct verbs_device;

struct verbs_device_ops {
	const char *name;

	uint32_t match_min_abi_version;
	uint32_t match_max_abi_version;
	const struct verbs_match_ent *match_table;
	const struct verbs_device_ops **static_providers;

	bool (*match_device)(struct verbs_sysfs_dev *sysfs_dev);

	struct verbs_context *(*alloc_context)(struct ibv_device *device,
					       int cmd_fd, void *private_data);
	struct verbs_context *(*import_context)(struct ibv_device *device,
						int cmd_fd);

	struct verbs_device *(*alloc_device)(struct verbs_sysfs_dev *sysfs_dev);
	void (*uninit_device)(struct verbs_device *device);
};

/* The provider allocates this (as the first member of its own device) in
 * alloc_device; libibverbs fills in everything but the provider's part.
 */
struct verbs_device {
	struct ibv_device device;
	const struct verbs_device_ops *ops;
	atomic_int refcount;
	struct ibv_private_list_node entry;
	struct verbs_sysfs_dev *sysfs;
	uint64_t core_support;
};

static inline struct verbs_device *
verbs_get_device(const struct ibv_device *dev)
{
	return (struct verbs_device *)((char *)dev -
				       offsetof(struct verbs_device, device));
}

/*
 * libibverbs' wrappers around the public objects.  A provider embeds them
 * at the start of its own objects; libibverbs reads and writes the members
 * after the public part (the MR type and access, the QP's extension mask).
 */
enum ibv_mr_type {
	IBV_MR_TYPE_MR,
	IBV_MR_TYPE_NULL_MR,
	IBV_MR_TYPE_IMPORTED_MR,
	IBV_MR_TYPE_DMABUF_MR,
};

struct verbs_mr {
	struct ibv_mr ibv_mr;
	enum ibv_mr_type mr_type;
	int access;
};

/* verbs_qp.comp_mask: ibv_qp_to_qp_ex() hands out qp_ex only with EX set. */
enum {
	VERBS_QP_XRCD = 1 << 0,
	VERBS_QP_EX = 1 << 1,
};

struct verbs_xrcd;

struct verbs_qp {
	union {
		struct ibv_qp qp;
		struct ibv_qp_ex qp_ex;
	};
	uint32_t comp_mask;
	struct verbs_xrcd *xrcd;
};

struct verbs_cq {
	union {
		struct ibv_cq cq;
		struct ibv_cq_ex cq_ex;
	};
};

/*
 * Every operation a provider may supply, sorted by name as libibverbs
 * declares them; 64 inserted seven in their places by name.
 * verbs_set_ops() copies the non-NULL entries; the others keep libibverbs'
 * stubs, which fail with EOPNOTSUPP or ENOSYS.
 */
struct verbs_context_ops {
	int (*advise_mr)(struct ibv_pd *pd, enum ibv_advise_mr_advice advice,
			 uint32_t flags, struct ibv_sge *sg_list,
			 uint32_t num_sges);
#if EFA_IBVERBS_PABI >= 64
	void *(*alloc_buf)(struct ibv_pd *pd, size_t size,
			   struct ibv_buf **buf);
#endif
	struct ibv_dm *(*alloc_dm)(struct ibv_context *context,
				   struct ibv_alloc_dm_attr *attr);
#if EFA_IBVERBS_PABI >= 64
	struct ibv_dmah *(*alloc_dmah)(struct ibv_context *context,
				       struct ibv_dmah_init_attr *attr);
#endif
	struct ibv_mw *(*alloc_mw)(struct ibv_pd *pd, enum ibv_mw_type type);
	struct ibv_mr *(*alloc_null_mr)(struct ibv_pd *pd);
	struct ibv_pd *(*alloc_parent_domain)(
		struct ibv_context *context,
		struct ibv_parent_domain_init_attr *attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	struct ibv_td *(*alloc_td)(struct ibv_context *context,
				   struct ibv_td_init_attr *init_attr);
	void (*async_event)(struct ibv_context *context,
			    struct ibv_async_event *event);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*attach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
	int (*bind_mw)(struct ibv_qp *qp, struct ibv_mw *mw,
		       struct ibv_mw_bind *mw_bind);
	int (*close_xrcd)(struct ibv_xrcd *xrcd);
	void (*cq_event)(struct ibv_cq *cq);
	struct ibv_ah *(*create_ah)(struct ibv_pd *pd, struct ibv_ah_attr *attr);
	struct ibv_counters *(*create_counters)(
		struct ibv_context *context,
		struct ibv_counters_init_attr *init_attr);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe,
				    struct ibv_comp_channel *channel,
				    int comp_vector);
	struct ibv_cq_ex *(*create_cq_ex)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *init_attr);
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp,
					struct ibv_flow_attr *flow_attr);
	struct ibv_flow_action *(*create_flow_action_esp)(
		struct ibv_context *context,
		struct ibv_flow_action_esp_attr *attr);
	struct ibv_qp *(*create_qp)(struct ibv_pd *pd,
				    struct ibv_qp_init_attr *attr);
	struct ibv_qp *(*create_qp_ex)(
		struct ibv_context *context,
		struct ibv_qp_init_attr_ex *qp_init_attr_ex);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(
		struct ibv_context *context,
		struct ibv_rwq_ind_table_init_attr *init_attr);
	struct ibv_srq *(*create_srq)(struct ibv_pd *pd,
				      struct ibv_srq_init_attr *srq_init_attr);
	struct ibv_srq *(*create_srq_ex)(
		struct ibv_context *context,
		struct ibv_srq_init_attr_ex *srq_init_attr_ex);
	struct ibv_wq *(*create_wq)(struct ibv_context *context,
				    struct ibv_wq_init_attr *wq_init_attr);
#if EFA_IBVERBS_PABI >= 64
	int (*dealloc_dmah)(struct ibv_dmah *dmah);
#endif
	int (*dealloc_mw)(struct ibv_mw *mw);
	int (*dealloc_pd)(struct ibv_pd *pd);
	int (*dealloc_td)(struct ibv_td *td);
	int (*dereg_mr)(struct verbs_mr *vmr);
	int (*destroy_ah)(struct ibv_ah *ah);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*destroy_flow)(struct ibv_flow *flow);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	int (*destroy_qp)(struct ibv_qp *qp);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *rwq_ind_table);
	int (*destroy_srq)(struct ibv_srq *srq);
	int (*destroy_wq)(struct ibv_wq *wq);
	int (*detach_mcast)(struct ibv_qp *qp, const union ibv_gid *gid,
			    uint16_t lid);
#if EFA_IBVERBS_PABI >= 64
	int (*dm_export_dmabuf_fd)(struct ibv_dm *dm);
	void (*free_buf)(struct ibv_buf *buf);
#endif
	void (*free_context)(struct ibv_context *context);
	int (*free_dm)(struct ibv_dm *dm);
	int (*get_srq_num)(struct ibv_srq *srq, uint32_t *srq_num);
	struct ibv_dm *(*import_dm)(struct ibv_context *context,
				    uint32_t dm_handle);
	struct ibv_mr *(*import_mr)(struct ibv_pd *pd, uint32_t mr_handle);
	struct ibv_pd *(*import_pd)(struct ibv_context *context,
				    uint32_t pd_handle);
	int (*modify_cq)(struct ibv_cq *cq, struct ibv_modify_cq_attr *attr);
	int (*modify_flow_action_esp)(struct ibv_flow_action *action,
				      struct ibv_flow_action_esp_attr *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*modify_qp_rate_limit)(struct ibv_qp *qp,
				    struct ibv_qp_rate_limit_attr *attr);
	int (*modify_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr,
			  int srq_attr_mask);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *wq_attr);
	struct ibv_qp *(*open_qp)(struct ibv_context *context,
				  struct ibv_qp_open_attr *attr);
	struct ibv_xrcd *(*open_xrcd)(struct ibv_context *context,
				      struct ibv_xrcd_init_attr *xrcd_init_attr);
	int (*poll_cq)(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
	int (*post_recv)(struct ibv_qp *qp, struct ibv_recv_wr *wr,
			 struct ibv_recv_wr **bad_wr);
	int (*post_send)(struct ibv_qp *qp, struct ibv_send_wr *wr,
			 struct ibv_send_wr **bad_wr);
	int (*post_srq_ops)(struct ibv_srq *srq, struct ibv_ops_wr *op,
			    struct ibv_ops_wr **bad_op);
	int (*post_srq_recv)(struct ibv_srq *srq, struct ibv_recv_wr *recv_wr,
			     struct ibv_recv_wr **bad_recv_wr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr,
			       size_t attr_size);
	int (*query_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
#if EFA_IBVERBS_PABI >= 64
	int (*query_port_speed)(struct ibv_context *context, uint32_t port_num,
				uint64_t *speed);
#endif
	int (*query_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			int attr_mask, struct ibv_qp_init_attr *init_attr);
	int (*query_qp_data_in_order)(struct ibv_qp *qp, enum ibv_wr_opcode op,
				      uint32_t flags);
	int (*query_rt_values)(struct ibv_context *context,
			       struct ibv_values_ex *values);
	int (*query_srq)(struct ibv_srq *srq, struct ibv_srq_attr *srq_attr);
	int (*read_counters)(struct ibv_counters *counters,
			     uint64_t *counters_value, uint32_t ncounters,
			     uint32_t flags);
	struct ibv_mr *(*reg_dm_mr)(struct ibv_pd *pd, struct ibv_dm *dm,
				    uint64_t dm_offset, size_t length,
				    unsigned int access);
	struct ibv_mr *(*reg_dmabuf_mr)(struct ibv_pd *pd, uint64_t offset,
					size_t length, uint64_t iova, int fd,
					int access);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access);
#if EFA_IBVERBS_PABI >= 64
	struct ibv_mr *(*reg_mr_ex)(struct ibv_pd *pd,
				    struct ibv_mr_init_attr *mr_init_attr);
#endif
	int (*req_notify_cq)(struct ibv_cq *cq, int solicited_only);
	int (*rereg_mr)(struct verbs_mr *vmr, int flags, struct ibv_pd *pd,
			void *addr, size_t length, int access);
	int (*resize_cq)(struct ibv_cq *cq, int cqe);
	int (*set_ece)(struct ibv_qp *qp, struct ibv_ece *ece);
	void (*unimport_dm)(struct ibv_dm *dm);
	void (*unimport_mr)(struct ibv_mr *mr);
	void (*unimport_pd)(struct ibv_pd *pd);
};

/*
 * Write-ABI command layouts (kern-abi.h): the uverbs header followed by the
 * kernel's command struct.  libibverbs fills the header; a provider
 * appends its udata right after the kernel struct.
 */
struct ex_hdr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex_hdr;
};

struct ibv_get_context {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_get_context core_payload;
};

struct ibv_query_port {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_port core_payload;
};

struct ibv_query_device_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_query_device core_payload;
};

struct ibv_alloc_pd {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_alloc_pd core_payload;
};

struct ibv_reg_mr {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_reg_mr core_payload;
};

/* CREATE_CQ is declared in its extended form; libibverbs sends the legacy
 * command instead when nothing needs the extension, moving the udata.
 */
struct ibv_create_cq_ex {
	struct ex_hdr hdr;
	struct ib_uverbs_ex_create_cq core_payload;
};

struct ibv_create_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp core_payload;
};

struct ibv_modify_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_modify_qp core_payload;
};

struct ibv_query_qp {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_query_qp core_payload;
};

/*
 * Functions exported as IBVERBS_PRIVATE_<N>.  The registration carries the
 * ABI in its name, so a provider built for another ABI fails to load
 * instead of corrupting libibverbs.
 */
#if EFA_IBVERBS_PABI == 34
void verbs_register_driver_34(const struct verbs_device_ops *ops);
#define verbs_register_driver(ops) verbs_register_driver_34(ops)
#else
void verbs_register_driver_64(const struct verbs_device_ops *ops);
#define verbs_register_driver(ops) verbs_register_driver_64(ops)
#endif

void *_verbs_init_and_alloc_context(struct ibv_device *device, int cmd_fd,
				    size_t alloc_size,
				    struct verbs_context *context_offset,
				    uint32_t driver_id);
/* Allocates a zeroed provider context of the given type; context_offset
 * carries, disguised as a pointer, where its verbs_context member lives.
 */
#define verbs_alloc_context(ibdev, cmd_fd, type, member, driver_id)           \
	((type *)_verbs_init_and_alloc_context(                                \
		ibdev, cmd_fd, sizeof(type),                                   \
		(struct verbs_context *)(uintptr_t)offsetof(type, member),     \
		driver_id))
void verbs_uninit_context(struct verbs_context *context);
void verbs_set_ops(struct verbs_context *vctx,
		   const struct verbs_context_ops *ops);

#if EFA_IBVERBS_PABI == 34
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
#else
/* fd_arr: file descriptors handed to the driver (mlx5's), NULL for none. */
int ibv_cmd_get_context(struct verbs_context *context,
			struct ibv_get_context *cmd, size_t cmd_size,
			struct ibv_fd_arr *fd_arr,
			struct ib_uverbs_get_context_resp *resp,
			size_t resp_size);
#endif

/* GET_CONTEXT as the ABI calls it: EFA hands the kernel no descriptors. */
static inline int efa_cmd_get_context(struct verbs_context *context,
				      struct ibv_get_context *cmd,
				      size_t cmd_size,
				      struct ib_uverbs_get_context_resp *resp,
				      size_t resp_size)
{
#if EFA_IBVERBS_PABI == 34
	return ibv_cmd_get_context(context, cmd, cmd_size, resp, resp_size);
#else
	return ibv_cmd_get_context(context, cmd, cmd_size, NULL, resp,
				   resp_size);
#endif
}
int ibv_cmd_query_device_any(struct ibv_context *context,
			     const struct ibv_query_device_ex_input *input,
			     struct ibv_device_attr_ex *attr, size_t attr_size,
			     struct ib_uverbs_ex_query_device_resp *resp,
			     size_t *resp_size);
int ibv_cmd_query_port(struct ibv_context *context, uint8_t port_num,
		       struct ibv_port_attr *port_attr,
		       struct ibv_query_port *cmd, size_t cmd_size);
#if EFA_IBVERBS_PABI >= 64
int ibv_cmd_query_port_speed(struct ibv_context *context, uint32_t port_num,
			     uint64_t *speed);
#endif

int ibv_cmd_alloc_pd(struct ibv_context *context, struct ibv_pd *pd,
		     struct ibv_alloc_pd *cmd, size_t cmd_size,
		     struct ib_uverbs_alloc_pd_resp *resp, size_t resp_size);
int ibv_cmd_dealloc_pd(struct ibv_pd *pd);
int ibv_cmd_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
		   uint64_t hca_va, int access, struct verbs_mr *vmr,
		   struct ibv_reg_mr *cmd, size_t cmd_size,
		   struct ib_uverbs_reg_mr_resp *resp, size_t resp_size);
int ibv_cmd_dereg_mr(struct verbs_mr *vmr);

#if EFA_IBVERBS_PABI == 34
int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
#else
/* ibv_cmd_create_cq_ex()'s cmd_flags: which of prov_attr's buffers */
enum {
	CREATE_CQ_CMD_FLAGS_WITH_MEM_VA = 1 << 1,
	CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF = 1 << 2,
};

/*
 * The CQ ring in memory the provider allocated (a user address or a
 * dma-buf), read by libibverbs only with the cmd_flags that say so.
 */
struct verbs_create_cq_prov_attr {
	struct {
		uint64_t length;
		union {
			uint8_t *ptr;
			struct {
				uint64_t offset;
				int fd;
			} dmabuf;
		};
	} buffer;
};

int ibv_cmd_create_cq_ex(struct ibv_context *context,
			 const struct ibv_cq_init_attr_ex *cq_attr,
			 struct verbs_create_cq_prov_attr *prov_attr,
			 struct verbs_cq *cq, struct ibv_create_cq_ex *cmd,
			 size_t cmd_size,
			 struct ib_uverbs_ex_create_cq_resp *resp,
			 size_t resp_size, uint32_t cmd_flags);
#endif

/*
 * CREATE_CQ as the ABI calls it: the ring in the kernel's memory, or with
 * @dmabuf in a dma-buf of the caller's.  libibverbs 44 (ABI 34) builds
 * the command itself from a fixed set of attributes and has no way to add
 * the buffer's: EOPNOTSUPP there.
 */
struct efa_cq_dmabuf {
	uint64_t length;
	uint64_t offset;
	int fd;
};

static inline int efa_cmd_create_cq_ex(struct ibv_context *context,
				       const struct ibv_cq_init_attr_ex *cq_attr,
				       const struct efa_cq_dmabuf *dmabuf,
				       struct verbs_cq *cq,
				       struct ibv_create_cq_ex *cmd,
				       size_t cmd_size,
				       struct ib_uverbs_ex_create_cq_resp *resp,
				       size_t resp_size)
{
#if EFA_IBVERBS_PABI == 34
	if (dmabuf)
		return EOPNOTSUPP;
	return ibv_cmd_create_cq_ex(context, cq_attr, cq, cmd, cmd_size, resp,
				    resp_size, 0);
#else
	struct verbs_create_cq_prov_attr prov = {};

	if (!dmabuf)
		return ibv_cmd_create_cq_ex(context, cq_attr, NULL, cq, cmd,
					    cmd_size, resp, resp_size, 0);
	prov.buffer.length = dmabuf->length;
	prov.buffer.dmabuf.offset = dmabuf->offset;
	prov.buffer.dmabuf.fd = dmabuf->fd;
	return ibv_cmd_create_cq_ex(context, cq_attr, &prov, cq, cmd, cmd_size,
				    resp, resp_size,
				    CREATE_CQ_CMD_FLAGS_WITH_MEM_DMABUF);
#endif
}

/* Whether efa_cmd_create_cq_ex() can put a CQ in a dma-buf. */
#define EFA_CMD_CQ_DMABUF (EFA_IBVERBS_PABI >= 64)
int ibv_cmd_destroy_cq(struct ibv_cq *cq);
/* What libibverbs does itself after the provider's create_cq and
 * create_cq_ex ops; a direct verb that creates a CQ has to do it too.
 */
void verbs_init_cq(struct ibv_cq *cq, struct ibv_context *context,
		   struct ibv_comp_channel *channel, void *cq_context);

int ibv_cmd_create_qp_ex(struct ibv_context *context, struct verbs_qp *qp,
			 struct ibv_qp_init_attr_ex *attr_ex,
			 struct ibv_create_qp *cmd, size_t cmd_size,
			 struct ib_uverbs_create_qp_resp *resp,
			 size_t resp_size);
int ibv_cmd_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr,
		      int attr_mask, struct ibv_modify_qp *cmd,
		      size_t cmd_size);
int ibv_cmd_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *qp_attr,
		     int attr_mask, struct ibv_qp_init_attr *qp_init_attr,
		     struct ibv_query_qp *cmd, size_t cmd_size);
int ibv_cmd_destroy_qp(struct ibv_qp *qp);

int ibv_cmd_create_ah(struct ibv_pd *pd, struct ibv_ah *ah,
		      struct ibv_ah_attr *attr,
		      struct ib_uverbs_create_ah_resp *resp, size_t resp_size);
int ibv_cmd_destroy_ah(struct ibv_ah *ah);

#include "ibverbs_layout.h"

#endif /* SEFA_PROVIDERS_EFA_IBVERBS_PRIVATE_H */
