/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The MAD wire format: sizes, header layouts and offsets, the classes,
 * methods and status codes the layer knows, and big-endian byte helpers.
 * Facts of the format only: it includes nothing of the MAD room, and
 * every file of the room (and anyone who builds MADs) may include it.
 */
#ifndef SEFA_SOFTEFA_DAEMON_MAD_FORMAT_H
#define SEFA_SOFTEFA_DAEMON_MAD_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/core.h"

#define MAD_SIZE		SEFA_MAD_LEN
#define MAD_HDR_LEN		24
#define MAD_RMPP_HDR_LEN	36
#define MAD_RMPP_DATA		(MAD_SIZE - MAD_RMPP_HDR_LEN)	/* 220 */
#define MAD_SA_HDR_LEN		56
#define MAD_VENDOR_HDR_LEN	40
#define MAD_DEVICE_HDR_LEN	64
#define MAD_NODE_DESC_LEN	64
/* The longest message one write() sends and one RMPP reassembly builds. */
#define MAD_MAX_MSG_LEN		(8U << 20)

#define MAD_BASE_VERSION	1
#define MAD_QP1_QKEY		SEFA_QP1_QKEY
#define MAD_PERMISSIVE_LID	SEFA_PERMISSIVE_LID
#define MAD_MAX_CLASS_VERSION	0x83	/* as the kernel's table */
#define MAD_MAX_CLASS		80	/* plus DR SMPs, 0x81 */

enum {
	MAD_CLASS_SUBN_LID = 0x01,
	MAD_CLASS_SUBN_ADM = 0x03,
	MAD_CLASS_PERF = 0x04,
	MAD_CLASS_DEVICE_MGMT = 0x06,
	MAD_CLASS_DEVICE_ADM = 0x10,
	MAD_CLASS_BIS = 0x12,
	MAD_CLASS_VENDOR2_START = 0x30,
	MAD_CLASS_VENDOR2_END = 0x4f,
	MAD_CLASS_SUBN_DR = 0x81,
};

enum {
	MAD_METHOD_GET = 0x01,
	MAD_METHOD_SET = 0x02,
	MAD_METHOD_TRAP_REPRESS = 0x07,
	MAD_METHOD_GET_TABLE = 0x12,
	MAD_METHOD_RESP = 0x80,
};

enum {
	MAD_STATUS_UNSUP_VERSION = 0x0004,
	MAD_STATUS_UNSUP_METHOD = 0x0008,
	MAD_STATUS_UNSUP_METH_ATTR = 0x000c,
	MAD_STATUS_INVALID_FIELD = 0x001c,
	MAD_STATUS_DR_DIRECTION = 0x8000,
};

enum {
	RMPP_TYPE_DATA = 1,
	RMPP_TYPE_ACK = 2,
	RMPP_TYPE_STOP = 3,
	RMPP_TYPE_ABORT = 4,
	RMPP_FLAG_ACTIVE = 1,
	RMPP_FLAG_FIRST = 2,
	RMPP_FLAG_LAST = 4,
	RMPP_NO_RESPTIME = 0x1f,
	RMPP_STATUS_RESX = 1,
	RMPP_STATUS_T2L = 118,
	RMPP_STATUS_BAD_SEG = 120,
	RMPP_STATUS_BADT = 121,
	RMPP_STATUS_W2S = 122,
	RMPP_STATUS_BAD_STATUS = 124,
	RMPP_STATUS_S2B = 123,
	RMPP_STATUS_UNV = 125,
};

/* The SMA's attributes the SM asks every port for. */
enum {
	SMP_ATTR_NODE_DESC = 0x0010,
	SMP_ATTR_NODE_INFO = 0x0011,
};

#define MAD_NODE_INFO_LEN	40

/* Offsets in a MAD (all fields big-endian). */
enum {
	MAD_OFF_BASE_VERSION = 0,
	MAD_OFF_CLASS = 1,
	MAD_OFF_CLASS_VERSION = 2,
	MAD_OFF_METHOD = 3,
	MAD_OFF_STATUS = 4,
	MAD_OFF_HOP_PTR = 6,		/* DR SMPs: class specific */
	MAD_OFF_HOP_CNT = 7,
	MAD_OFF_TID = 8,
	MAD_OFF_ATTR_ID = 16,
	MAD_OFF_ATTR_MOD = 20,
	RMPP_OFF_VERSION = 24,
	RMPP_OFF_TYPE = 25,
	RMPP_OFF_RTIME_FLAGS = 26,
	RMPP_OFF_STATUS = 27,
	RMPP_OFF_SEG_NUM = 28,
	RMPP_OFF_PAYLEN = 32,		/* NewWindowLast on an ACK */
	VENDOR_OFF_OUI = 37,
	SMP_OFF_DATA = 64,
	PERF_OFF_DATA = 64,
	SA_OFF_ATTR_OFFSET = 44,
	SA_OFF_COMP_MASK = 48,
};

static inline uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static inline void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = (uint8_t)v;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, (uint16_t)v);
}

static inline void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, (uint32_t)v);
}

/* A MAD of all zeros but its common header. */
static inline void mad_hdr_init(uint8_t *m, uint8_t mgmt_class,
				uint8_t version, uint8_t method, uint16_t attr,
				uint64_t tid)
{
	memset(m, 0, MAD_SIZE);
	m[MAD_OFF_BASE_VERSION] = MAD_BASE_VERSION;
	m[MAD_OFF_CLASS] = mgmt_class;
	m[MAD_OFF_CLASS_VERSION] = version;
	m[MAD_OFF_METHOD] = method;
	put64(m + MAD_OFF_TID, tid);
	put16(m + MAD_OFF_ATTR_ID, attr);
}

static inline bool mad_is_vendor2_class(uint8_t c)
{
	return c >= MAD_CLASS_VENDOR2_START && c <= MAD_CLASS_VENDOR2_END;
}

/* The classes whose MADs carry an RMPP header. */
static inline bool mad_is_rmpp_class(uint8_t c)
{
	return c == MAD_CLASS_SUBN_ADM || c == MAD_CLASS_DEVICE_MGMT ||
	       c == MAD_CLASS_DEVICE_ADM || c == MAD_CLASS_BIS ||
	       mad_is_vendor2_class(c);
}

/* Where a class's data starts: after the headers it carries. */
static inline unsigned int mad_data_offset(uint8_t c)
{
	if (c == MAD_CLASS_SUBN_ADM)
		return MAD_SA_HDR_LEN;
	if (c == MAD_CLASS_DEVICE_MGMT || c == MAD_CLASS_DEVICE_ADM ||
	    c == MAD_CLASS_BIS)
		return MAD_DEVICE_HDR_LEN;
	if (mad_is_vendor2_class(c))
		return MAD_VENDOR_HDR_LEN;
	return MAD_HDR_LEN;
}

/* A response, by its method (or a trap repress, or a class 5 notice). */
static inline bool mad_is_response(const uint8_t *mad)
{
	uint8_t method = mad[MAD_OFF_METHOD];

	return (method & MAD_METHOD_RESP) ||
	       method == MAD_METHOD_TRAP_REPRESS ||
	       (mad[MAD_OFF_CLASS] == 0x05 && (mad[MAD_OFF_ATTR_MOD + 3] & 1));
}

#endif
