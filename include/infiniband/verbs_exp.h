/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The experimental verbs of MLNX_OFED's libibverbs that create indirect
 * memory regions and fill them with a KLM list by a UMR work request, for
 * programs written against them.
 *
 * Names, values and structure layouts are the historical ones (MLNX_OFED
 * 4.x <infiniband/verbs_exp.h>), so that such a program builds unchanged.
 * Only this subset is declared, and the functions are real functions of
 * libefa.so.1 (version node EFA_EXP_1.0), not inline dispatchers through a
 * private part of the verbs context: modern libibverbs has none.  A program
 * links with -lefa.  Fields and flags of the layouts that this provider does
 * not implement are refused with EOPNOTSUPP where a caller could set them.
 *
 * See ibv_exp_create_mr(3), ibv_exp_post_send(3), ibv_exp_query_device(3),
 * ibv_exp_create_qp(3) and ibv_exp_poll_cq(3).
 */

#ifndef SEFA_INCLUDE_INFINIBAND_VERBS_EXP_H
#define SEFA_INCLUDE_INFINIBAND_VERBS_EXP_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ibv_exp_start_values {
	IBV_EXP_START_ENUM = 0x40,
	IBV_EXP_START_FLAG_LOC = 0x20,
	IBV_EXP_START_FLAG = (1ULL << IBV_EXP_START_FLAG_LOC),
};

/* ibv_exp_device_attr.exp_atomic_cap */
enum ibv_exp_atomic_cap {
	IBV_EXP_ATOMIC_NONE = IBV_ATOMIC_NONE,
	IBV_EXP_ATOMIC_HCA = IBV_ATOMIC_HCA,
	IBV_EXP_ATOMIC_GLOB = IBV_ATOMIC_GLOB,
	IBV_EXP_ATOMIC_HCA_REPLY_BE = IBV_EXP_START_ENUM,
};

/* ibv_exp_device_attr.exp_device_cap_flags */
enum ibv_exp_device_cap_flags {
	IBV_EXP_DEVICE_RESIZE_MAX_WR = IBV_DEVICE_RESIZE_MAX_WR,
	IBV_EXP_DEVICE_BAD_PKEY_CNTR = IBV_DEVICE_BAD_PKEY_CNTR,
	IBV_EXP_DEVICE_BAD_QKEY_CNTR = IBV_DEVICE_BAD_QKEY_CNTR,
	IBV_EXP_DEVICE_RAW_MULTI = IBV_DEVICE_RAW_MULTI,
	IBV_EXP_DEVICE_AUTO_PATH_MIG = IBV_DEVICE_AUTO_PATH_MIG,
	IBV_EXP_DEVICE_CHANGE_PHY_PORT = IBV_DEVICE_CHANGE_PHY_PORT,
	IBV_EXP_DEVICE_UD_AV_PORT_ENFORCE = IBV_DEVICE_UD_AV_PORT_ENFORCE,
	IBV_EXP_DEVICE_CURR_QP_STATE_MOD = IBV_DEVICE_CURR_QP_STATE_MOD,
	IBV_EXP_DEVICE_SHUTDOWN_PORT = IBV_DEVICE_SHUTDOWN_PORT,
	IBV_EXP_DEVICE_INIT_TYPE = IBV_DEVICE_INIT_TYPE,
	IBV_EXP_DEVICE_PORT_ACTIVE_EVENT = IBV_DEVICE_PORT_ACTIVE_EVENT,
	IBV_EXP_DEVICE_SYS_IMAGE_GUID = IBV_DEVICE_SYS_IMAGE_GUID,
	IBV_EXP_DEVICE_RC_RNR_NAK_GEN = IBV_DEVICE_RC_RNR_NAK_GEN,
	IBV_EXP_DEVICE_SRQ_RESIZE = IBV_DEVICE_SRQ_RESIZE,
	IBV_EXP_DEVICE_N_NOTIFY_CQ = IBV_DEVICE_N_NOTIFY_CQ,
	IBV_EXP_DEVICE_XRC = IBV_DEVICE_XRC,

	IBV_EXP_DEVICE_DC_TRANSPORT = (IBV_EXP_START_FLAG << 0),
	IBV_EXP_DEVICE_QPG = (IBV_EXP_START_FLAG << 1),
	IBV_EXP_DEVICE_UD_RSS = (IBV_EXP_START_FLAG << 2),
	IBV_EXP_DEVICE_UD_TSS = (IBV_EXP_START_FLAG << 3),
	IBV_EXP_DEVICE_EXT_ATOMICS = (IBV_EXP_START_FLAG << 4),
	IBV_EXP_DEVICE_NOP = (IBV_EXP_START_FLAG << 5),
	IBV_EXP_DEVICE_UMR = (IBV_EXP_START_FLAG << 6),
	IBV_EXP_DEVICE_ODP = (IBV_EXP_START_FLAG << 7),
	IBV_EXP_DEVICE_MR_ALLOCATE = (IBV_EXP_START_FLAG << 30),
	IBV_EXP_DEVICE_SHARED_MR = (IBV_EXP_START_FLAG << 31),
};

/* ibv_exp_device_attr.comp_mask: which parts the caller asks for. */
enum ibv_exp_device_attr_comp_mask {
	IBV_EXP_DEVICE_ATTR_CALC_CAP = (1 << 0),
	IBV_EXP_DEVICE_ATTR_WITH_TIMESTAMP_MASK = (1 << 1),
	IBV_EXP_DEVICE_ATTR_WITH_HCA_CORE_CLOCK = (1 << 2),
	IBV_EXP_DEVICE_ATTR_EXP_CAP_FLAGS = (1 << 3),
	IBV_EXP_DEVICE_DC_RD_REQ = (1 << 4),
	IBV_EXP_DEVICE_DC_RD_RES = (1 << 5),
	IBV_EXP_DEVICE_ATTR_INLINE_RECV_SZ = (1 << 6),
	IBV_EXP_DEVICE_ATTR_RSS_TBL_SZ = (1 << 7),
	IBV_EXP_DEVICE_ATTR_EXT_ATOMIC_ARGS = (1 << 8),
	IBV_EXP_DEVICE_ATTR_UMR = (1 << 9),
	IBV_EXP_DEVICE_ATTR_ODP = (1 << 10),
	IBV_EXP_DEVICE_ATTR_MAX_DCT = (1 << 11),
	IBV_EXP_DEVICE_ATTR_MAX_CTX_RES_DOMAIN = (1 << 12),
	IBV_EXP_DEVICE_ATTR_RX_HASH = (1 << 13),
	IBV_EXP_DEVICE_ATTR_MAX_WQ_TYPE_RQ = (1 << 14),
	IBV_EXP_DEVICE_ATTR_MAX_DEVICE_CTX = (1 << 15),
	IBV_EXP_DEVICE_ATTR_MP_RQ = (1 << 16),
	IBV_EXP_DEVICE_ATTR_VLAN_OFFLOADS = (1 << 17),
	IBV_EXP_DEVICE_ATTR_EC_CAPS = (1 << 18),
	IBV_EXP_DEVICE_ATTR_MASKED_ATOMICS = (1 << 19),
	IBV_EXP_DEVICE_ATTR_RX_PAD_END_ALIGN = (1 << 20),
	IBV_EXP_DEVICE_ATTR_TSO_CAPS = (1 << 21),
	IBV_EXP_DEVICE_ATTR_PACKET_PACING_CAPS = (1 << 22),
	IBV_EXP_DEVICE_ATTR_RESERVED = (1 << 23),
};

struct ibv_exp_device_calc_cap {
	uint64_t data_types;
	uint64_t data_sizes;
	uint64_t int_ops;
	uint64_t uint_ops;
	uint64_t fp_ops;
};

struct ibv_exp_ext_atomics_params {
	uint64_t log_atomic_arg_sizes;
	uint32_t max_fa_bit_boundary;
	uint32_t log_max_atomic_inline;
};

struct ibv_exp_masked_atomic_params {
	uint32_t max_fa_bit_boundary;
	uint32_t log_max_atomic_inline;
	uint64_t masked_log_atomic_arg_sizes;
	uint64_t masked_log_atomic_arg_sizes_network_endianness;
};

/* What indirect regions and UMR work requests the device offers. */
struct ibv_exp_umr_caps {
	uint32_t max_klm_list_size;		/* entries of one region */
	uint32_t max_send_wqe_inline_klms;	/* entries of one UMR WR */
	uint32_t max_umr_recursion_depth;	/* 1: entries are plain MRs */
	uint32_t max_umr_stride_dimension;	/* 0: no IBV_EXP_UMR_REPEAT */
};

struct ibv_exp_odp_caps {
	uint64_t general_odp_caps;
	struct {
		uint32_t rc_odp_caps;
		uint32_t uc_odp_caps;
		uint32_t ud_odp_caps;
		uint32_t dc_odp_caps;
		uint32_t xrc_odp_caps;
		uint32_t raw_eth_odp_caps;
	} per_transport_caps;
};

struct ibv_exp_rx_hash_caps {
	uint32_t max_rwq_indirection_tables;
	uint32_t max_rwq_indirection_table_size;
	uint8_t supported_hash_functions;
	uint64_t supported_packet_fields;
	uint32_t supported_qps;
};

struct ibv_exp_mp_rq_caps {
	uint32_t supported_qps;
	uint32_t allowed_shifts;
	uint8_t min_single_wqe_log_num_of_strides;
	uint8_t max_single_wqe_log_num_of_strides;
	uint8_t min_single_stride_log_num_of_bytes;
	uint8_t max_single_stride_log_num_of_bytes;
};

struct ibv_exp_ec_caps {
	uint32_t max_ec_data_vector_count;
	uint32_t max_ec_calc_inflight_calcs;
};

struct ibv_exp_tso_caps {
	uint32_t max_tso;
	uint32_t supported_qpts;
};

struct ibv_exp_packet_pacing_caps {
	uint32_t qp_rate_limit_min;
	uint32_t qp_rate_limit_max;
	uint32_t supported_qpts;
	uint32_t reserved;
};

/*
 * Up to phys_port_cnt the fields are those of struct ibv_device_attr, with
 * "reserved" where that has device_cap_flags: the flags are in
 * exp_device_cap_flags.
 */
struct ibv_exp_device_attr {
	char fw_ver[64];
	uint64_t node_guid;
	uint64_t sys_image_guid;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	int max_qp;
	int max_qp_wr;
	int reserved;
	int max_sge;
	int max_sge_rd;
	int max_cq;
	int max_cqe;
	int max_mr;
	int max_pd;
	int max_qp_rd_atom;
	int max_ee_rd_atom;
	int max_res_rd_atom;
	int max_qp_init_rd_atom;
	int max_ee_init_rd_atom;
	enum ibv_exp_atomic_cap exp_atomic_cap;
	int max_ee;
	int max_rdd;
	int max_mw;
	int max_raw_ipv6_qp;
	int max_raw_ethy_qp;
	int max_mcast_grp;
	int max_mcast_qp_attach;
	int max_total_mcast_qp_attach;
	int max_ah;
	int max_fmr;
	int max_map_per_fmr;
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	uint16_t max_pkeys;
	uint8_t local_ca_ack_delay;
	uint8_t phys_port_cnt;
	uint32_t comp_mask;
	struct ibv_exp_device_calc_cap calc_cap;
	uint64_t timestamp_mask;
	uint64_t hca_core_clock;
	uint64_t exp_device_cap_flags;
	int max_dc_req_rd_atom;
	int max_dc_res_rd_atom;
	int inline_recv_sz;
	uint32_t max_rss_tbl_sz;
	struct ibv_exp_ext_atomics_params ext_atom;
	struct ibv_exp_umr_caps umr_caps;
	struct ibv_exp_odp_caps odp_caps;
	int max_dct;
	int max_ctx_res_domain;
	struct ibv_exp_rx_hash_caps rx_hash_caps;
	uint32_t max_wq_type_rq;
	int max_device_ctx;
	struct ibv_exp_mp_rq_caps mp_rq_caps;
	uint16_t wq_vlan_offloads_cap;
	struct ibv_exp_ec_caps ec_caps;
	struct ibv_exp_masked_atomic_params masked_atomic;
	int rx_pad_end_addr_align;
	struct ibv_exp_tso_caps tso_caps;
	struct ibv_exp_packet_pacing_caps packet_pacing_caps;
};

enum ibv_exp_access_flags {
	IBV_EXP_ACCESS_LOCAL_WRITE = IBV_ACCESS_LOCAL_WRITE,
	IBV_EXP_ACCESS_REMOTE_WRITE = IBV_ACCESS_REMOTE_WRITE,
	IBV_EXP_ACCESS_REMOTE_READ = IBV_ACCESS_REMOTE_READ,
	IBV_EXP_ACCESS_REMOTE_ATOMIC = IBV_ACCESS_REMOTE_ATOMIC,
	IBV_EXP_ACCESS_MW_BIND = IBV_ACCESS_MW_BIND,

	IBV_EXP_ACCESS_ALLOCATE_MR = (IBV_EXP_START_FLAG << 5),
	IBV_EXP_ACCESS_SHARED_MR_USER_READ = (IBV_EXP_START_FLAG << 6),
	IBV_EXP_ACCESS_SHARED_MR_USER_WRITE = (IBV_EXP_START_FLAG << 7),
	IBV_EXP_ACCESS_SHARED_MR_GROUP_READ = (IBV_EXP_START_FLAG << 8),
	IBV_EXP_ACCESS_SHARED_MR_GROUP_WRITE = (IBV_EXP_START_FLAG << 9),
	IBV_EXP_ACCESS_SHARED_MR_OTHER_READ = (IBV_EXP_START_FLAG << 10),
	IBV_EXP_ACCESS_SHARED_MR_OTHER_WRITE = (IBV_EXP_START_FLAG << 11),
	IBV_EXP_ACCESS_NO_RDMA = (IBV_EXP_START_FLAG << 12),
	IBV_EXP_ACCESS_MW_ZERO_BASED = (IBV_EXP_START_FLAG << 13),
	IBV_EXP_ACCESS_ON_DEMAND = (IBV_EXP_START_FLAG << 14),
	IBV_EXP_ACCESS_RELAXED = (IBV_EXP_START_FLAG << 15),
	IBV_EXP_ACCESS_PHYSICAL_ADDR = (IBV_EXP_START_FLAG << 16),
	IBV_EXP_ACCESS_RESERVED = (IBV_EXP_START_FLAG << 17),
};

struct ibv_exp_mw_bind_info {
	struct ibv_mr *mr;
	uint64_t addr;
	uint64_t length;
	uint64_t exp_mw_access_flags;
};

enum ibv_exp_calc_op {
	IBV_EXP_CALC_OP_ADD = 0,
	IBV_EXP_CALC_OP_MAXLOC,
	IBV_EXP_CALC_OP_BAND,
	IBV_EXP_CALC_OP_BXOR,
	IBV_EXP_CALC_OP_BOR,
	IBV_EXP_CALC_OP_NUMBER,
};

enum ibv_exp_calc_data_type {
	IBV_EXP_CALC_DATA_TYPE_INT = 0,
	IBV_EXP_CALC_DATA_TYPE_UINT,
	IBV_EXP_CALC_DATA_TYPE_FLOAT,
	IBV_EXP_CALC_DATA_TYPE_NUMBER,
};

enum ibv_exp_calc_data_size {
	IBV_EXP_CALC_DATA_SIZE_64_BIT = 0,
	IBV_EXP_CALC_DATA_SIZE_NUMBER,
};

enum ibv_exp_wr_opcode {
	IBV_EXP_WR_RDMA_WRITE = IBV_WR_RDMA_WRITE,
	IBV_EXP_WR_RDMA_WRITE_WITH_IMM = IBV_WR_RDMA_WRITE_WITH_IMM,
	IBV_EXP_WR_SEND = IBV_WR_SEND,
	IBV_EXP_WR_SEND_WITH_IMM = IBV_WR_SEND_WITH_IMM,
	IBV_EXP_WR_RDMA_READ = IBV_WR_RDMA_READ,
	IBV_EXP_WR_ATOMIC_CMP_AND_SWP = IBV_WR_ATOMIC_CMP_AND_SWP,
	IBV_EXP_WR_ATOMIC_FETCH_AND_ADD = IBV_WR_ATOMIC_FETCH_AND_ADD,

	IBV_EXP_WR_SEND_WITH_INV = 8 + IBV_EXP_START_ENUM,
	IBV_EXP_WR_LOCAL_INV = 10 + IBV_EXP_START_ENUM,
	IBV_EXP_WR_BIND_MW = 14 + IBV_EXP_START_ENUM,
	IBV_EXP_WR_TSO = 15 + IBV_EXP_START_ENUM,
	IBV_EXP_WR_SEND_ENABLE = 0x20 + IBV_EXP_START_ENUM,
	IBV_EXP_WR_RECV_ENABLE,
	IBV_EXP_WR_CQE_WAIT,
	IBV_EXP_WR_EXT_MASKED_ATOMIC_CMP_AND_SWP,
	IBV_EXP_WR_EXT_MASKED_ATOMIC_FETCH_AND_ADD,
	IBV_EXP_WR_NOP,
	IBV_EXP_WR_UMR_FILL,
	IBV_EXP_WR_UMR_INVALIDATE,
};

enum ibv_exp_send_flags {
	IBV_EXP_SEND_FENCE = IBV_SEND_FENCE,
	IBV_EXP_SEND_SIGNALED = IBV_SEND_SIGNALED,
	IBV_EXP_SEND_SOLICITED = IBV_SEND_SOLICITED,
	IBV_EXP_SEND_INLINE = IBV_SEND_INLINE,

	IBV_EXP_SEND_IP_CSUM = (IBV_EXP_START_FLAG << 0),
	IBV_EXP_SEND_WITH_CALC = (IBV_EXP_START_FLAG << 1),
	IBV_EXP_SEND_WAIT_EN_LAST = (IBV_EXP_START_FLAG << 2),
	IBV_EXP_SEND_EXT_ATOMIC_INLINE = (IBV_EXP_START_FLAG << 3),
};

struct ibv_exp_cmp_swap {
	uint64_t compare_mask;
	uint64_t compare_val;
	uint64_t swap_val;
	uint64_t swap_mask;
};

struct ibv_exp_fetch_add {
	uint64_t add_val;
	uint64_t field_boundary;
};

/* One entry of a KLM list: length bytes at base_addr of a registered mr. */
struct ibv_exp_mem_region {
	uint64_t base_addr;
	struct ibv_mr *mr;
	size_t length;
};

struct ibv_exp_mem_repeat_block {
	uint64_t base_addr;
	struct ibv_mr *mr;
	size_t *byte_count;
	size_t *stride;
};

enum ibv_exp_umr_wr_type {
	IBV_EXP_UMR_MR_LIST,
	IBV_EXP_UMR_REPEAT,
};

/* Not offered: UMR work requests must be IBV_EXP_SEND_INLINE. */
struct ibv_exp_mkey_list_container;

/*
 * The remote side of an RDMA or atomic work request; wr and ext_op below
 * both carry one, so the two unions name the same layouts.
 */
struct ibv_exp_rdma_target {
	uint64_t remote_addr;
	uint32_t rkey;
};

struct ibv_exp_atomic_target {
	uint64_t remote_addr;
	uint64_t compare_add;
	uint64_t swap;
	uint32_t rkey;
};

/*
 * Up to wr the layout of struct ibv_send_wr, with "reserved" where that
 * has send_flags: the flags are in exp_send_flags.
 */
struct ibv_exp_send_wr {
	uint64_t wr_id;
	struct ibv_exp_send_wr *next;
	struct ibv_sge *sg_list;
	int num_sge;
	enum ibv_exp_wr_opcode exp_opcode;
	int reserved;
	union {
		uint32_t imm_data;	/* network byte order */
		uint32_t invalidate_rkey;
	} ex;
	union {
		struct ibv_exp_rdma_target rdma;
		struct ibv_exp_atomic_target atomic;
		struct {
			struct ibv_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
	union {
		union {
			struct {
				uint32_t remote_srqn;
			} xrc;
		} qp_type;
		uint32_t xrc_remote_srq_num;
	};
	union {
		struct ibv_exp_rdma_target rdma;
		struct ibv_exp_atomic_target atomic;
		struct {
			struct ibv_cq *cq;
			int32_t cq_count;
		} cqe_wait;
		struct {
			struct ibv_qp *qp;
			int32_t wqe_count;
		} wqe_enable;
	} task;
	union {
		struct {
			enum ibv_exp_calc_op calc_op;
			enum ibv_exp_calc_data_type data_type;
			enum ibv_exp_calc_data_size data_size;
		} calc;
	} op;
	struct {
		struct ibv_ah *ah;
		uint64_t dct_access_key;
		uint32_t dct_number;
	} dc;
	union {
		struct {
			struct ibv_mw *mw;
			uint32_t rkey;
			struct ibv_exp_mw_bind_info bind_info;
		} bind_mw;
		struct {
			void *hdr;
			uint16_t hdr_sz;
			uint16_t mss;
		} tso;
	};
	uint64_t exp_send_flags;	/* enum ibv_exp_send_flags */
	uint32_t comp_mask;		/* must be 0 */
	union {
		struct {
			uint32_t umr_type;	/* enum ibv_exp_umr_wr_type */
			struct ibv_exp_mkey_list_container *memory_objects;
			uint64_t exp_access;	/* enum ibv_exp_access_flags */
			struct ibv_mr *modified_mr;
			uint64_t base_addr;
			uint32_t num_mrs;
			union {
				struct ibv_exp_mem_region *mem_reg_list;
				struct {
					struct ibv_exp_mem_repeat_block *mem_repeat_block_list;
					size_t *repeat_count;
					uint32_t stride_dim;
				} rb;
			} mem_list;
		} umr;
		struct {
			uint32_t log_arg_sz;
			uint64_t remote_addr;
			uint32_t rkey;
			union {
				struct {
					union {
						struct ibv_exp_cmp_swap cmp_swap;
						struct ibv_exp_fetch_add fetch_add;
					} op;
				} inline_data;
			} wr_data;
		} masked_atomics;
	} ext_op;
};

/* ibv_exp_qp_init_attr.comp_mask: which fields are valid. */
enum ibv_exp_qp_init_attr_comp_mask {
	IBV_EXP_QP_INIT_ATTR_PD = 1 << 0,
	IBV_EXP_QP_INIT_ATTR_XRCD = 1 << 1,
	IBV_EXP_QP_INIT_ATTR_CREATE_FLAGS = 1 << 2,
	IBV_EXP_QP_INIT_ATTR_INL_RECV = 1 << 3,
	IBV_EXP_QP_INIT_ATTR_QPG = 1 << 4,
	IBV_EXP_QP_INIT_ATTR_ATOMICS_ARG = 1 << 5,
	IBV_EXP_QP_INIT_ATTR_MAX_INL_KLMS = 1 << 6,
	IBV_EXP_QP_INIT_ATTR_RES_DOMAIN = 1 << 7,
	IBV_EXP_QP_INIT_ATTR_RX_HASH = 1 << 8,
	IBV_EXP_QP_INIT_ATTR_PORT = 1 << 9,
	IBV_EXP_QP_INIT_ATTR_PEER_DIRECT = 1 << 10,
	IBV_EXP_QP_INIT_ATTR_MAX_TSO_HEADER = 1 << 11,
	IBV_EXP_QP_INIT_ATTR_RESERVED1 = 1 << 12,
};

enum ibv_exp_qp_create_flags {
	IBV_EXP_QP_CREATE_CROSS_CHANNEL = (1 << 2),
	IBV_EXP_QP_CREATE_MANAGED_SEND = (1 << 3),
	IBV_EXP_QP_CREATE_MANAGED_RECV = (1 << 4),
	IBV_EXP_QP_CREATE_IGNORE_SQ_OVERFLOW = (1 << 6),
	IBV_EXP_QP_CREATE_IGNORE_RQ_OVERFLOW = (1 << 7),
	IBV_EXP_QP_CREATE_ATOMIC_BE_REPLY = (1 << 8),
	IBV_EXP_QP_CREATE_UMR = (1 << 9),
	IBV_EXP_QP_CREATE_EC_PARITY_EN = (1 << 10),
	IBV_EXP_QP_CREATE_RX_END_PADDING = (1 << 11),
	IBV_EXP_QP_CREATE_SCATTER_FCS = (1 << 12),
	IBV_EXP_QP_CREATE_INTERNAL_USE = (1 << 15),
	IBV_EXP_QP_CREATE_MASK = (0x00001FDC),
};

struct ibv_exp_qpg_init_attrib {
	uint32_t tss_child_count;
	uint32_t rss_child_count;
};

struct ibv_exp_qpg {
	uint32_t qpg_type;
	union {
		struct ibv_qp *qpg_parent;
		struct ibv_exp_qpg_init_attrib parent_attrib;
	};
};

struct ibv_exp_res_domain;
struct ibv_exp_rx_hash_conf;
struct ibv_exp_peer_direct_attr;

/* Up to sq_sig_all the layout of struct ibv_qp_init_attr. */
struct ibv_exp_qp_init_attr {
	void *qp_context;
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_srq *srq;
	struct ibv_qp_cap cap;
	enum ibv_qp_type qp_type;
	int sq_sig_all;

	uint32_t comp_mask;		/* enum ibv_exp_qp_init_attr_comp_mask */
	struct ibv_pd *pd;
	struct ibv_xrcd *xrcd;
	uint32_t exp_create_flags;	/* enum ibv_exp_qp_create_flags */

	uint32_t max_inl_recv;
	struct ibv_exp_qpg qpg;
	uint32_t max_atomic_arg;
	uint32_t max_inl_send_klms;
	struct ibv_exp_res_domain *res_domain;
	struct ibv_exp_rx_hash_conf *rx_hash_conf;
	uint8_t port_num;
	struct ibv_exp_peer_direct_attr *peer_direct_attrs;
	uint16_t max_tso_header;
};

enum ibv_exp_wc_opcode {
	IBV_EXP_WC_SEND,
	IBV_EXP_WC_RDMA_WRITE,
	IBV_EXP_WC_RDMA_READ,
	IBV_EXP_WC_COMP_SWAP,
	IBV_EXP_WC_FETCH_ADD,
	IBV_EXP_WC_BIND_MW,
	IBV_EXP_WC_LOCAL_INV = 7,
	IBV_EXP_WC_MASKED_COMP_SWAP = 9,
	IBV_EXP_WC_MASKED_FETCH_ADD = 10,
	IBV_EXP_WC_TSO,
	IBV_EXP_WC_UMR = 0x100,
	IBV_EXP_WC_RECV = 1 << 7,
	IBV_EXP_WC_RECV_RDMA_WITH_IMM,
};

enum ibv_exp_wc_flags {
	IBV_EXP_WC_GRH = IBV_WC_GRH,
	IBV_EXP_WC_WITH_IMM = IBV_WC_WITH_IMM,

	IBV_EXP_WC_WITH_INV = IBV_EXP_START_FLAG << 2,
	IBV_EXP_WC_WITH_SL = IBV_EXP_START_FLAG << 4,
	IBV_EXP_WC_WITH_SLID = IBV_EXP_START_FLAG << 5,
	IBV_EXP_WC_WITH_TIMESTAMP = IBV_EXP_START_FLAG << 6,
	IBV_EXP_WC_QP = IBV_EXP_START_FLAG << 7,
	IBV_EXP_WC_SRQ = IBV_EXP_START_FLAG << 8,
	IBV_EXP_WC_DCT = IBV_EXP_START_FLAG << 9,
};

struct ibv_exp_dct;

/* Up to dlid_path_bits the layout of struct ibv_wc. */
struct ibv_exp_wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_exp_wc_opcode exp_opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;		/* network byte order */
	uint32_t qp_num;
	uint32_t src_qp;
	int reserved;
	uint16_t pkey_index;
	uint16_t slid;
	uint8_t sl;
	uint8_t dlid_path_bits;
	uint64_t timestamp;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	struct ibv_exp_dct *dct;
	uint64_t exp_wc_flags;		/* enum ibv_exp_wc_flags */
};

enum ibv_exp_mr_create_flags {
	IBV_EXP_MR_SIGNATURE_EN = (1 << 0),
	IBV_EXP_MR_INDIRECT_KLMS = (1 << 1),
};

struct ibv_exp_mr_init_attr {
	uint32_t max_klm_list_size;	/* entries */
	uint32_t create_flags;		/* enum ibv_exp_mr_create_flags */
	uint64_t exp_access_flags;	/* enum ibv_exp_access_flags */
};

enum ibv_exp_create_mr_in_comp_mask {
	IBV_EXP_CREATE_MR_IN_RESERVED = (1 << 0),
};

struct ibv_exp_create_mr_in {
	struct ibv_pd *pd;
	struct ibv_exp_mr_init_attr attr;
	uint32_t comp_mask;		/* must be 0 */
};

int ibv_exp_query_device(struct ibv_context *context,
			 struct ibv_exp_device_attr *attr);
struct ibv_qp *ibv_exp_create_qp(struct ibv_context *context,
				 struct ibv_exp_qp_init_attr *qp_init_attr);
struct ibv_mr *ibv_exp_create_mr(struct ibv_exp_create_mr_in *in);
int ibv_exp_post_send(struct ibv_qp *qp, struct ibv_exp_send_wr *wr,
		      struct ibv_exp_send_wr **bad_wr);
int ibv_exp_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_exp_wc *wc,
		    uint32_t wc_size);

#ifdef __cplusplus
}
#endif

#endif /* SEFA_INCLUDE_INFINIBAND_VERBS_EXP_H */
