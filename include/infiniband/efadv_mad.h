/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Management datagrams (MADs) through the kernel's MAD layer: an API
 * modelled on the kernel's ib_register_mad_agent(), ib_create_send_mad(),
 * ib_post_send_mad() and ib_free_send_mad(), reached from user space
 * through the umad device of a port (/dev/infiniband/umadN).  The kernel
 * does RMPP: a multi-segment message is sent and received as one buffer.
 *
 * Multi-byte fields of the wire structures are big-endian.
 */

#ifndef SEFA_INCLUDE_INFINIBAND_EFADV_MAD_H
#define SEFA_INCLUDE_INFINIBAND_EFADV_MAD_H

#include <stddef.h>
#include <stdint.h>
#include <linux/types.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Base versions */
enum {
	EFADV_MAD_BASE_VERSION_IB = 0x01,
	EFADV_MAD_BASE_VERSION_OPA = 0x80,	/* never offered here */
};

/* Management classes */
enum {
	EFADV_MAD_CLASS_SUBN_LID_ROUTED = 0x01,
	EFADV_MAD_CLASS_SUBN_ADM = 0x03,
	EFADV_MAD_CLASS_PERF_MGMT = 0x04,
	EFADV_MAD_CLASS_BM = 0x05,
	EFADV_MAD_CLASS_DEVICE_MGMT = 0x06,
	EFADV_MAD_CLASS_CM = 0x07,
	EFADV_MAD_CLASS_SNMP = 0x08,
	EFADV_MAD_CLASS_VENDOR_RANGE1_START = 0x09,
	EFADV_MAD_CLASS_VENDOR_RANGE1_END = 0x0f,
	EFADV_MAD_CLASS_DEVICE_ADM = 0x10,
	EFADV_MAD_CLASS_BOOT_MGMT = 0x11,
	EFADV_MAD_CLASS_BIS = 0x12,
	EFADV_MAD_CLASS_CONG_MGMT = 0x21,
	EFADV_MAD_CLASS_VENDOR_RANGE2_START = 0x30,
	EFADV_MAD_CLASS_VENDOR_RANGE2_END = 0x4f,
	EFADV_MAD_CLASS_SUBN_DIRECTED_ROUTE = 0x81,
};

/* Methods; a response has EFADV_MAD_METHOD_RESP set. */
enum {
	EFADV_MAD_METHOD_GET = 0x01,
	EFADV_MAD_METHOD_SET = 0x02,
	EFADV_MAD_METHOD_SEND = 0x03,
	EFADV_MAD_METHOD_TRAP = 0x05,
	EFADV_MAD_METHOD_REPORT = 0x06,
	EFADV_MAD_METHOD_TRAP_REPRESS = 0x07,
	EFADV_MAD_METHOD_GET_TABLE = 0x12,	/* SA */
	EFADV_MAD_METHOD_GET_TRACE_TABLE = 0x13,	/* SA */
	EFADV_MAD_METHOD_GET_MULTI = 0x14,	/* SA */
	EFADV_MAD_METHOD_DELETE = 0x15,		/* SA */
	EFADV_MAD_METHOD_RESP = 0x80,
	EFADV_MAD_METHOD_GET_RESP = 0x81,
	EFADV_MAD_METHOD_REPORT_RESP = 0x86,
	EFADV_MAD_METHOD_GET_TABLE_RESP = 0x92,
	EFADV_MAD_METHOD_GET_MULTI_RESP = 0x94,
	EFADV_MAD_METHOD_DELETE_RESP = 0x95,
};

/* Status of the common header (host order; the field is big-endian) */
enum {
	EFADV_MAD_STATUS_SUCCESS = 0x0000,
	EFADV_MAD_STATUS_BUSY = 0x0001,
	EFADV_MAD_STATUS_REDIRECT = 0x0002,
	EFADV_MAD_STATUS_BAD_VERSION = 0x0004,
	EFADV_MAD_STATUS_UNSUPPORTED_METHOD = 0x0008,
	EFADV_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB = 0x000c,
	EFADV_MAD_STATUS_INVALID_ATTRIB_VALUE = 0x001c,
};

/* Sizes of an InfiniBand MAD, its headers and what follows them */
enum {
	EFADV_MAD_SIZE = 256,
	EFADV_MAD_HDR_SIZE = 24,	/* common header */
	EFADV_MAD_DATA_SIZE = 232,
	EFADV_MAD_RMPP_HDR_SIZE = 36,	/* common + RMPP header */
	EFADV_MAD_RMPP_DATA_SIZE = 220,
	EFADV_MAD_VENDOR_HDR_SIZE = 40,	/* + 1 reserved byte, OUI */
	EFADV_MAD_VENDOR_DATA_SIZE = 216,
	EFADV_MAD_SA_HDR_SIZE = 56,	/* + SA header */
	EFADV_MAD_SA_DATA_SIZE = 200,
	EFADV_MAD_DEVICE_HDR_SIZE = 64,	/* + 28 reserved bytes */
	EFADV_MAD_DEVICE_DATA_SIZE = 192,
};

/* RMPP */
enum {
	EFADV_MAD_RMPP_VERSION = 1,

	EFADV_MAD_RMPP_TYPE_DATA = 1,
	EFADV_MAD_RMPP_TYPE_ACK = 2,
	EFADV_MAD_RMPP_TYPE_STOP = 3,
	EFADV_MAD_RMPP_TYPE_ABORT = 4,

	/* low 3 bits of rmpp_rtime_flags; the upper 5 are RRespTime */
	EFADV_MAD_RMPP_FLAG_ACTIVE = 1 << 0,
	EFADV_MAD_RMPP_FLAG_FIRST = 1 << 1,
	EFADV_MAD_RMPP_FLAG_LAST = 1 << 2,
	EFADV_MAD_RMPP_NO_RRESPTIME = 0x1f,

	EFADV_MAD_RMPP_STATUS_SUCCESS = 0,
	EFADV_MAD_RMPP_STATUS_RESX = 1,		/* resources exhausted */
	EFADV_MAD_RMPP_STATUS_T2L = 118,	/* total time too long */
	EFADV_MAD_RMPP_STATUS_BAD_LEN = 119,
	EFADV_MAD_RMPP_STATUS_BAD_SEG = 120,
	EFADV_MAD_RMPP_STATUS_BADT = 121,	/* illegal type */
	EFADV_MAD_RMPP_STATUS_W2S = 122,	/* NewWindowLast too small */
	EFADV_MAD_RMPP_STATUS_S2B = 123,	/* SegmentNumber too big */
	EFADV_MAD_RMPP_STATUS_BAD_STATUS = 124,
	EFADV_MAD_RMPP_STATUS_UNV = 125,	/* unsupported version */
	EFADV_MAD_RMPP_STATUS_TMR = 126,	/* too many retries */
	EFADV_MAD_RMPP_STATUS_UNSPEC = 127,
};

/* The Q_Key of every GSI QP (QP1). */
#define EFADV_MAD_QP1_QKEY 0x80010000U

/* The common MAD header, at offset 0 of every MAD. */
struct efadv_mad_hdr {
	uint8_t base_version;
	uint8_t mgmt_class;
	uint8_t class_version;
	uint8_t method;
	__be16 status;
	__be16 class_specific;
	__be64 tid;
	__be16 attr_id;
	__be16 resv;
	__be32 attr_mod;
};

/* The RMPP header, at offset EFADV_MAD_HDR_SIZE of an RMPP class's MAD. */
struct efadv_mad_rmpp_hdr {
	uint8_t rmpp_version;
	uint8_t rmpp_type;
	uint8_t rmpp_rtime_flags;
	uint8_t rmpp_status;
	__be32 seg_num;
	__be32 paylen_newwin;	/* PayloadLength (DATA), NewWindowLast (ACK) */
};

/* The SA header, at offset EFADV_MAD_RMPP_HDR_SIZE of an SA MAD. */
struct efadv_mad_sa_hdr {
	__be64 sm_key;
	__be16 attr_offset;	/* in units of 8 bytes */
	__be16 reserved;
	__be64 comp_mask;
} __attribute__((packed));

/* The QP an agent sends and receives on: its number. */
enum efadv_mad_qp_type {
	EFADV_MAD_QPT_SMI = 0,
	EFADV_MAD_QPT_GSI = 1,
};

/* Registration flags */
enum {
	/* The caller does RMPP: segments are sent and received one by one. */
	EFADV_MAD_USER_RMPP = 1 << 0,
};

/*
 * What an agent receives unsolicited: requests of one class and version
 * whose method (0 to 127) has its bit set, bit (m % 64) of word m / 64.
 * oui counts only for vendor range 2 classes, where it must not be zero.
 */
struct efadv_mad_reg_req {
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint8_t oui[3];
	uint8_t reserved[3];
	uint64_t method_mask[2];
};

static inline void efadv_mad_reg_req_set_method(struct efadv_mad_reg_req *req,
						 uint8_t method)
{
	req->method_mask[(method & 0x7f) / 64] |= 1ULL << (method % 64);
}

/* Read only, for the caller's information and for poll(2) on fd. */
struct efadv_mad_agent {
	struct ibv_context *context;
	int fd;				/* the agent's umad file */
	uint32_t id;			/* the agent's id in it */
	uint32_t flags;
	uint8_t port_num;
	uint8_t qp_type;		/* enum efadv_mad_qp_type */
	uint8_t rmpp_version;
	uint8_t mgmt_class;		/* 0: the agent takes responses only */
	uint8_t mgmt_class_version;
};

struct efadv_mad_agent *
efadv_register_mad_agent(struct ibv_context *context, uint8_t port_num,
			 enum efadv_mad_qp_type qp_type,
			 const struct efadv_mad_reg_req *reg_req,
			 uint8_t rmpp_version, uint32_t flags);

void efadv_unregister_mad_agent(struct efadv_mad_agent *agent);

/*
 * A message to send.  mad points at hdr_len header bytes followed by
 * seg_count segments of seg_size bytes: data_len bytes of data, then
 * padding.  Without RMPP that is one MAD of EFADV_MAD_SIZE bytes.  All but
 * context are read only.
 */
struct efadv_mad_send_buf {
	struct efadv_mad_agent *agent;
	void *mad;
	void *context[2];		/* the caller's */
	uint32_t remote_qpn;
	uint16_t pkey_index;
	uint8_t base_version;
	uint8_t rmpp_active;
	int hdr_len;
	int data_len;
	int seg_count;
	int seg_size;			/* data bytes per segment */
	int seg_rmpp_size;		/* payload per RMPP segment, 0 without */
};

struct efadv_mad_send_buf *
efadv_create_send_mad(struct efadv_mad_agent *agent, uint32_t remote_qpn,
		      uint16_t pkey_index, int rmpp_active, int hdr_len,
		      int data_len, uint8_t base_version);

void efadv_free_send_mad(struct efadv_mad_send_buf *send_buf);

/* An address on the subnet, fields in host order. */
struct efadv_mad_addr {
	uint16_t lid;			/* send: DLID; receive: SLID */
	uint8_t sl;
	uint8_t path_bits;		/* send: source path bits */
	uint8_t grh_present;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
	uint32_t flow_label;
	uint8_t reserved[4];
	union ibv_gid gid;		/* send: DGID; receive: source GID */
};

int efadv_post_send_mad(struct efadv_mad_send_buf *send_buf,
			const struct efadv_mad_addr *addr, int timeout_ms,
			int retries);

struct efadv_mad_recv_info {
	/* 0, or ETIMEDOUT: the buffer holds the common header of a request
	 * of this agent that got no response after its retries.
	 */
	uint32_t status;
	uint32_t src_qpn;
	uint16_t pkey_index;
	uint8_t reserved[6];
	struct efadv_mad_addr src;
};

int efadv_recv_mad(struct efadv_mad_agent *agent, void *buf, size_t *len,
		   int timeout_ms, struct efadv_mad_recv_info *info);

/* Where the data of a MAD of mgmt_class starts: its header length. */
int efadv_get_mad_data_offset(uint8_t mgmt_class);

/* Whether the class uses RMPP for messages longer than one MAD. */
int efadv_is_mad_class_rmpp(uint8_t mgmt_class);

/* Whether a MAD is a response, the way the kernel decides it. */
static inline int efadv_mad_is_response(const struct efadv_mad_hdr *hdr)
{
	return (hdr->method & EFADV_MAD_METHOD_RESP) ||
	       hdr->method == EFADV_MAD_METHOD_TRAP_REPRESS ||
	       (hdr->mgmt_class == EFADV_MAD_CLASS_BM &&
		(((const uint8_t *)&hdr->attr_mod)[3] & 1));
}

#ifdef __cplusplus
}
#endif

#endif /* SEFA_INCLUDE_INFINIBAND_EFADV_MAD_H */
