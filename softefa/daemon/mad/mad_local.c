// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a driver's process_mad() answers for its port before any agent sees
 * a MAD: the SMA (NodeInfo, NodeDescription, PortInfo, GUIDInfo,
 * P_KeyTable; SMInfo on the SM's own port) and the PMA (ClassPortInfo,
 * PortCounters and PortCountersExtended from the device's counters).
 * Other methods and classes pass on to the agents.
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "host/port.h"
#include "mad/layer.h"

enum {
	SMP_ATTR_GUID_INFO = 0x0014,
	SMP_ATTR_PORT_INFO = 0x0015,
	SMP_ATTR_PKEY_TABLE = 0x0016,
	SMP_ATTR_SM_INFO = 0x0020,
	PMA_ATTR_CLASS_PORT_INFO = 0x0001,
	PMA_ATTR_PORT_COUNTERS = 0x0012,
	PMA_ATTR_PORT_COUNTERS_EXT = 0x001d,
};

#define GID_PREFIX		0xfe80000000000000ULL
#define PMA_CAP_EXT_WIDTH	(1U << 9)
#define PMA_ALL_PORTS		0xff
#define RESP_TIME_VALUE		18	/* 4.096 us * 2^18: about 1 s */
#define SM_STATE_MASTER		3

/* The GetResp of @req, status @status; DR answers travel back. */
static void resp_init(uint8_t *resp, const uint8_t *req, uint16_t status)
{
	memcpy(resp, req, MAD_SIZE);
	resp[MAD_OFF_METHOD] = MAD_METHOD_RESP | MAD_METHOD_GET;
	if (req[MAD_OFF_CLASS] == MAD_CLASS_SUBN_DR)
		status |= MAD_STATUS_DR_DIRECTION;
	put16(resp + MAD_OFF_STATUS, status);
}

/* NodeInfo of @dev, for the SMA and the SA's NodeRecords. */
void mad_node_info(const struct sefa_device *dev, uint8_t *d)
{
	d[0] = MAD_BASE_VERSION;
	d[1] = 1;			/* SMP class version */
	d[2] = (uint8_t)dev->profile->node_type;
	d[3] = 1;			/* ports */
	put64(d + 4, dev->node_guid);	/* system image */
	put64(d + 12, dev->node_guid);
	put64(d + 20, dev->node_guid);	/* port: the GID's interface id */
	put16(d + 28, SEFA_PKEY_TBL_LEN);
	put16(d + 30, dev->profile->vendor_part_id);
	put32(d + 32, SEFA_HW_REV);
	d[36] = 1;			/* the port it came in on */
	d[37] = 0;
	put16(d + 38, SEFA_VENDOR_ID);
}

/* Its NodeDescription: MAD_NODE_DESC_LEN bytes, NUL-padded. */
void mad_node_desc(const struct sefa_daemon *d, const struct sefa_device *dev,
		   uint8_t *desc)
{
	memset(desc, 0, MAD_NODE_DESC_LEN);
	snprintf((char *)desc, MAD_NODE_DESC_LEN, "SoftEFA host %u %s",
		 d->host_id, dev->name);
}

/* PortInfo of port 1: 4X EDR, MTU 4096, one VL, in the port's state. */
static void port_info(const struct sefa_device *dev, uint8_t *d)
{
	put64(d + 8, GID_PREFIX);
	put16(d + 16, dev->lid);
	put16(d + 18, dev->sm_lid);
	put32(d + 20, dev->cap_mask);
	d[28] = 1;			/* local port number */
	d[29] = 3;			/* link width enabled: 1X, 4X */
	d[30] = 3;			/* supported */
	d[31] = 2;			/* active: 4X */
	d[32] = 7 << 4 | sefa_port_state(dev);	/* speeds SDR-QDR | state */
	/* physical state | down default */
	d[33] = sefa_port_phys_state(dev) << 4 | SEFA_PHYS_POLLING;
	d[34] = 0;			/* LMC 0 */
	d[35] = 4 << 4 | 7;		/* speed active QDR | enabled */
	d[36] = 5 << 4;			/* neighbour MTU 4096 | SM SL 0 */
	d[37] = 1 << 4;			/* VL cap: VL0 */
	d[41] = 5;			/* MTU cap 4096 */
	d[42] = 7 << 5 | 16;		/* VL stall count | HOQ life */
	d[43] = 1 << 4;			/* operational VLs: VL0 */
	d[50] = 1;			/* GUID cap */
	d[51] = RESP_TIME_VALUE;	/* subnet timeout */
	d[52] = RESP_TIME_VALUE;	/* response time value */
	d[62] = 2 << 4 | 3;		/* ext speed active EDR | FDR, EDR */
	d[63] = 3;			/* ext speeds enabled */
}

/* The SMA's answer to a Get, or false to let the MAD pass. */
static bool sma(struct sefa_mad_port *port, const struct mad_pkt *pkt)
{
	const struct sefa_device *dev = port->dev;
	const uint8_t *m = pkt->mad;
	uint32_t mod = get32(m + MAD_OFF_ATTR_MOD);
	uint8_t resp[MAD_SIZE];
	uint8_t *d = resp + SMP_OFF_DATA;
	uint16_t attr = get16(m + MAD_OFF_ATTR_ID);
	uint16_t status = 0;

	if (m[MAD_OFF_METHOD] != MAD_METHOD_GET)
		return false;
	resp_init(resp, m, 0);
	memset(d, 0, 64);
	if (!dev) {
		/* the SM's port answers for the SM only */
		if (attr == SMP_ATTR_SM_INFO) {
			put64(d, port->d->dev[0].node_guid);
			d[20] = SM_STATE_MASTER;
		} else {
			status = MAD_STATUS_UNSUP_METH_ATTR;
		}
		goto reply;
	}
	switch (attr) {
	case SMP_ATTR_NODE_DESC:
		mad_node_desc(port->d, dev, d);
		break;
	case SMP_ATTR_NODE_INFO:
		mad_node_info(dev, d);
		break;
	case SMP_ATTR_PORT_INFO:
		if (mod > 1)
			status = MAD_STATUS_INVALID_FIELD;
		else
			port_info(dev, d);
		break;
	case SMP_ATTR_GUID_INFO:
		if (mod)
			status = MAD_STATUS_INVALID_FIELD;
		else
			put64(d, dev->node_guid);
		break;
	case SMP_ATTR_PKEY_TABLE:
		if (mod & 0xffff)
			status = MAD_STATUS_INVALID_FIELD;
		else
			put16(d, 0xffff);
		break;
	default:
		status = MAD_STATUS_UNSUP_METH_ATTR;
	}
reply:
	if (status)
		put16(resp + MAD_OFF_STATUS,
		      get16(resp + MAD_OFF_STATUS) | status);
	mad_reply(port, pkt, resp);
	return true;
}

/* Counters since the last clear, in the PMA's units (data in 4-byte words). */
static void pma_counters(const struct sefa_mad_port *port,
			 struct sefa_counters *k)
{
	const struct sefa_counters *now = &port->dev->cnt;
	const struct sefa_counters *base = &port->pma_base;

	k->tx_bytes = (now->tx_bytes - base->tx_bytes) / 4;
	k->rx_bytes = (now->rx_bytes - base->rx_bytes) / 4;
	k->tx_pkts = now->tx_pkts - base->tx_pkts;
	k->rx_pkts = now->rx_pkts - base->rx_pkts;
}

static uint32_t sat32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void port_counters(const struct sefa_counters *k, uint8_t *d)
{
	put32(d + 24, sat32(k->tx_bytes));
	put32(d + 28, sat32(k->rx_bytes));
	put32(d + 32, sat32(k->tx_pkts));
	put32(d + 36, sat32(k->rx_pkts));
}

static void port_counters_ext(const struct sefa_counters *k, uint8_t *d)
{
	put64(d + 8, k->tx_bytes);
	put64(d + 16, k->rx_bytes);
	put64(d + 24, k->tx_pkts);
	put64(d + 32, k->rx_pkts);
	put64(d + 40, k->tx_pkts);	/* all unicast */
	put64(d + 48, k->rx_pkts);
}

/* The PMA: Get, and Set to clear (all counters, whatever the select). */
static bool pma(struct sefa_mad_port *port, const struct mad_pkt *pkt)
{
	const uint8_t *m = pkt->mad;
	uint8_t method = m[MAD_OFF_METHOD];
	uint16_t attr = get16(m + MAD_OFF_ATTR_ID);
	uint8_t resp[MAD_SIZE];
	uint8_t *d = resp + PERF_OFF_DATA;
	uint8_t sel = m[PERF_OFF_DATA + 1];
	struct sefa_counters k;

	if (!port->dev || (method != MAD_METHOD_GET && method != MAD_METHOD_SET))
		return false;
	resp_init(resp, m, 0);
	if (m[MAD_OFF_CLASS_VERSION] != 1) {
		put16(resp + MAD_OFF_STATUS, MAD_STATUS_UNSUP_VERSION);
		goto reply;
	}
	if (attr == PMA_ATTR_CLASS_PORT_INFO && method == MAD_METHOD_GET) {
		memset(d, 0, MAD_SIZE - PERF_OFF_DATA);
		d[0] = MAD_BASE_VERSION;
		d[1] = 1;
		put16(d + 2, PMA_CAP_EXT_WIDTH);
		put32(d + 4, RESP_TIME_VALUE);
		goto reply;
	}
	if (attr != PMA_ATTR_PORT_COUNTERS && attr != PMA_ATTR_PORT_COUNTERS_EXT) {
		put16(resp + MAD_OFF_STATUS, MAD_STATUS_UNSUP_METH_ATTR);
		goto reply;
	}
	/* a CA's PMA takes 0 for the port the MAD came in on */
	if (sel > 1 && sel != PMA_ALL_PORTS) {
		put16(resp + MAD_OFF_STATUS, MAD_STATUS_INVALID_FIELD);
		goto reply;
	}
	if (method == MAD_METHOD_SET)
		port->pma_base = port->dev->cnt;
	pma_counters(port, &k);
	memset(d + 4, 0, MAD_SIZE - PERF_OFF_DATA - 4);
	if (attr == PMA_ATTR_PORT_COUNTERS)
		port_counters(&k, d);
	else
		port_counters_ext(&k, d);
reply:
	mad_reply(port, pkt, resp);
	return true;
}

bool mad_local_process(struct sefa_mad_port *port, const struct mad_pkt *pkt)
{
	switch (pkt->mad[MAD_OFF_CLASS]) {
	case MAD_CLASS_SUBN_LID:
	case MAD_CLASS_SUBN_DR:
		return sma(port, pkt);
	case MAD_CLASS_PERF:
		return pma(port, pkt);
	default:
		return false;
	}
}
