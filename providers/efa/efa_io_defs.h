/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * EFA device descriptor formats, as the device reads and writes them: send
 * WQEs in the LLQ, receive descriptors in the RQ ring, completion entries in
 * the CQ ring, and the CQ doorbell register.  All little-endian.
 *
 * This is the device's side of the contract, so the provider and SoftEFA's
 * device engine both build on this one header.  Bit fields are masks, not C
 * bit-fields, so the layout never depends on the compiler.
 */

#ifndef SEFA_PROVIDERS_EFA_EFA_IO_DEFS_H
#define SEFA_PROVIDERS_EFA_EFA_IO_DEFS_H

#include <stdint.h>

#define EFA_IO_TX_WQE_SIZE		64
#define EFA_IO_TX_WQE_128_SIZE		128
#define EFA_IO_TX_DESC_NUM_BUFS		2
#define EFA_IO_TX_DESC_NUM_RDMA_BUFS	1
#define EFA_IO_TX_DESC_INLINE_MAX_SIZE	32
#define EFA_IO_TX_DESC_INLINE_MAX_SIZE_128 80
#define EFA_IO_TX_DESC_IMM_DATA_SIZE	4
#define EFA_IO_RX_DESC_SIZE		16
#define EFA_IO_LKEY_MASK		0xffffffU	/* keys are 24 bits */

enum efa_io_queue_type {
	EFA_IO_SEND_QUEUE = 1,
	EFA_IO_RECV_QUEUE = 2,
};

enum efa_io_send_op_type {
	EFA_IO_SEND = 0,
	EFA_IO_RDMA_READ = 1,
	EFA_IO_RDMA_WRITE = 2,
	/*
	 * This project's extension (efa_ext_abi.h): fill or invalidate an
	 * indirect key.  7 also fits the 3-bit op type of a completion.
	 */
	EFA_IO_UMR = 7,
};

enum efa_io_comp_status {
	EFA_IO_COMP_STATUS_OK = 0,
	EFA_IO_COMP_STATUS_FLUSHED = 1,
	EFA_IO_COMP_STATUS_LOCAL_ERROR_QP_INTERNAL_ERROR = 2,
	EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_OP_TYPE = 3,
	EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_AH = 4,
	EFA_IO_COMP_STATUS_LOCAL_ERROR_INVALID_LKEY = 5,
	EFA_IO_COMP_STATUS_LOCAL_ERROR_BAD_LENGTH = 6,
	EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS = 7,
	EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT = 8,
	EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_DEST_QPN = 9,
	EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR = 10,
	EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH = 11,
	EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_STATUS = 12,
	EFA_IO_COMP_STATUS_LOCAL_ERROR_UNRESP_REMOTE = 13,
	EFA_IO_COMP_STATUS_REMOTE_ERROR_UNKNOWN_PEER = 14,
	EFA_IO_COMP_STATUS_LOCAL_ERROR_UNREACH_REMOTE = 15,
};

/* Send WQE: 32-byte meta descriptor. */
struct efa_io_tx_meta_desc {
	uint16_t req_id;
	uint8_t ctrl1;
	uint8_t ctrl2;
	uint16_t dest_qp_num;
	/* inline: payload bytes; otherwise: number of buffer descriptors */
	uint16_t length;
	uint32_t immediate_data;	/* host order */
	uint16_t ah;
	uint8_t ctrl3;			/* processing hints */
	uint8_t reserved;
	uint32_t qkey;
	uint8_t reserved2[12];
};

/* ctrl1 */
#define EFA_IO_TX_META_DESC_OP_TYPE_MASK	0x0f
#define EFA_IO_TX_META_DESC_HAS_IMM		0x10
#define EFA_IO_TX_META_DESC_INLINE_MSG		0x20
#define EFA_IO_TX_META_DESC_META_EXTENSION	0x40
#define EFA_IO_TX_META_DESC_META_DESC		0x80
/* ctrl2 */
#define EFA_IO_TX_META_DESC_PHASE		0x01
#define EFA_IO_TX_META_DESC_FIRST		0x04
#define EFA_IO_TX_META_DESC_LAST		0x08
#define EFA_IO_TX_META_DESC_COMP_REQ		0x10
/* ctrl3: hints the device may act on or ignore */
#define EFA_IO_TX_META_DESC_PROCESSING_HINTS_MASK	0x03
#define EFA_IO_PROCESSING_HINT_BURST_PPS_SENSITIVE	0x01

struct efa_io_tx_buf_desc {
	uint32_t length;
	uint32_t lkey;			/* bits 23:0; 31:24 must be zero */
	uint32_t buf_addr_lo;
	uint32_t buf_addr_hi;
};

struct efa_io_remote_mem_addr {
	uint32_t length;		/* total bytes of the operation */
	uint32_t rkey;
	uint32_t buf_addr_lo;
	uint32_t buf_addr_hi;
};

struct efa_io_rdma_req {
	struct efa_io_remote_mem_addr remote_mem;
	struct efa_io_tx_buf_desc local_mem[EFA_IO_TX_DESC_NUM_RDMA_BUFS];
};

/*
 * A UMR WQE: meta.length is the number of entries, 0 to invalidate the key;
 * the entries are an array of struct efa_io_klm at klm_list, whose length
 * is their size in bytes.
 */
struct efa_io_umr_req {
	uint32_t mkey;			/* the indirect key, 24 bits */
	uint32_t access;		/* IBV_ACCESS_* the fill grants */
	uint64_t base_addr;		/* the key's first address */
	struct efa_io_tx_buf_desc klm_list;
};

struct efa_io_klm {
	uint32_t length;		/* bytes, not 0 */
	uint32_t lkey;			/* a region of the key's PD */
	uint64_t addr;			/* inside that region */
};

struct efa_io_tx_wqe {
	struct efa_io_tx_meta_desc meta;
	union {
		struct efa_io_tx_buf_desc sgl[EFA_IO_TX_DESC_NUM_BUFS];
		uint8_t inline_data[EFA_IO_TX_DESC_INLINE_MAX_SIZE];
		struct efa_io_rdma_req rdma_req;
		struct efa_io_umr_req umr_req;
	} data;
};

/*
 * The 128-byte send WQE of devices that report inline_buf_size_ex: the same
 * meta and buffers, and room for inline data, of a SEND or (inline_msg set,
 * remote_mem.length = meta.length) of an RDMA write.
 */
struct efa_io_rdma_req_128 {
	struct efa_io_remote_mem_addr remote_mem;
	union {
		struct efa_io_tx_buf_desc local_mem[EFA_IO_TX_DESC_NUM_RDMA_BUFS];
		uint8_t inline_data[EFA_IO_TX_DESC_INLINE_MAX_SIZE_128];
	};
};

struct efa_io_tx_wqe_128 {
	struct efa_io_tx_meta_desc meta;
	union {
		struct efa_io_tx_buf_desc sgl[EFA_IO_TX_DESC_NUM_BUFS];
		uint8_t inline_data[EFA_IO_TX_DESC_INLINE_MAX_SIZE_128];
		struct efa_io_rdma_req_128 rdma_req;
		struct efa_io_umr_req umr_req;
	} data;
};

/* Receive descriptor: one per SGE of a receive WR; no phase bit. */
struct efa_io_rx_desc {
	uint32_t buf_addr_lo;
	uint32_t buf_addr_hi;
	uint16_t req_id;		/* first descriptor of a WR only */
	uint16_t length;
	uint32_t lkey_ctrl;
};

#define EFA_IO_RX_DESC_LKEY_MASK	0x00ffffffU
#define EFA_IO_RX_DESC_FIRST		0x40000000U
#define EFA_IO_RX_DESC_LAST		0x80000000U

/* Completion entries. */
struct efa_io_cdesc_common {
	uint16_t req_id;		/* echoed from the WQE */
	uint8_t status;			/* enum efa_io_comp_status */
	uint8_t flags;
	uint16_t qp_num;		/* the local QP */
};

#define EFA_IO_CDESC_COMMON_PHASE		0x01
#define EFA_IO_CDESC_COMMON_Q_TYPE_MASK		0x06
#define EFA_IO_CDESC_COMMON_Q_TYPE_SHIFT	1
#define EFA_IO_CDESC_COMMON_HAS_IMM		0x08
#define EFA_IO_CDESC_COMMON_OP_TYPE_MASK	0x70
#define EFA_IO_CDESC_COMMON_OP_TYPE_SHIFT	4
#define EFA_IO_CDESC_COMMON_UNSOLICITED		0x80

struct efa_io_tx_cdesc {
	struct efa_io_cdesc_common common;
	uint16_t reserved16;
};

struct efa_io_rx_cdesc {
	struct efa_io_cdesc_common common;
	uint16_t length;		/* bits 15:0 of the received length */
	uint16_t ah;			/* receiver's AH for the sender, or */
	uint16_t src_qp_num;		/* EFA_IO_AH_UNKNOWN */
	uint32_t imm;			/* host order */
};

#define EFA_IO_AH_UNKNOWN	0xffff

/* 32-byte entry: with the sender's GID, or the high RDMA write length. */
struct efa_io_rx_cdesc_ex {
	struct efa_io_rx_cdesc base;
	union {
		struct {
			uint16_t length_hi;
		} rdma_write;
		uint8_t src_addr[16];	/* valid when base.ah is unknown */
	} u;
};

#define EFA_IO_CQE_SIZE		16
#define EFA_IO_CQE_EX_SIZE	32

/* CQ doorbell register */
#define EFA_IO_REGS_CQ_DB_CONSUMER_INDEX_MASK	0x0000ffffU
#define EFA_IO_REGS_CQ_DB_CMD_SN_MASK		0x60000000U
#define EFA_IO_REGS_CQ_DB_CMD_SN_SHIFT		29
#define EFA_IO_REGS_CQ_DB_ARM			0x80000000U

_Static_assert(sizeof(struct efa_io_tx_meta_desc) == 32, "tx meta desc");
_Static_assert(sizeof(struct efa_io_tx_wqe) == EFA_IO_TX_WQE_SIZE, "tx wqe");
_Static_assert(sizeof(struct efa_io_rdma_req) == 32, "rdma req");
_Static_assert(sizeof(struct efa_io_tx_wqe_128) == EFA_IO_TX_WQE_128_SIZE,
	       "tx wqe 128");
_Static_assert(sizeof(struct efa_io_rdma_req_128) == 96, "rdma req 128");
_Static_assert(sizeof(struct efa_io_umr_req) == 32, "umr req");
_Static_assert(sizeof(struct efa_io_klm) == 16, "klm");
_Static_assert(sizeof(struct efa_io_rx_desc) == EFA_IO_RX_DESC_SIZE, "rx desc");
_Static_assert(sizeof(struct efa_io_tx_cdesc) == 8, "tx cdesc");
_Static_assert(sizeof(struct efa_io_rx_cdesc) == EFA_IO_CQE_SIZE, "rx cdesc");
_Static_assert(sizeof(struct efa_io_rx_cdesc_ex) == EFA_IO_CQE_EX_SIZE,
	       "rx cdesc ex");

#endif /* SEFA_PROVIDERS_EFA_EFA_IO_DEFS_H */
