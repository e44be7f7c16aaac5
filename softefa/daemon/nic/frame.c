// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Packets as bytes between hosts, in RoCEv2's framing (softefa-wire(7)):
 * the UDP payload is an InfiniBand Base Transport Header, the extended
 * headers its opcode calls for (DETH, RETH, AETH, ImmDt), the payload padded
 * to four bytes, and an invariant CRC.  UD and RC use the IB opcodes, so
 * that tcpdump and tshark decode them; SRD, which IB does not have, uses the
 * manufacturer-specific range, the same operations with a datagram header
 * and one of its own.  The IPv6 header around it carries the GIDs.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

/* Opcodes: the transport in the top three bits, the operation below. */
#define OP_RC			0x00
#define OP_UD			0x60
#define OP_SRD			0xc0	/* manufacturer specific */
#define OP_TRANSPORT		0xe0

#define OP_SEND_FIRST		0x00
#define OP_SEND_MIDDLE		0x01
#define OP_SEND_LAST		0x02
#define OP_SEND_LAST_IMM	0x03
#define OP_SEND_ONLY		0x04
#define OP_SEND_ONLY_IMM	0x05
#define OP_WRITE_ONLY		0x0a
#define OP_WRITE_ONLY_IMM	0x0b
#define OP_READ_REQ		0x0c
#define OP_READ_RESP_ONLY	0x10
#define OP_ACK			0x11

#define BTH_LEN			12
#define DETH_LEN		8
#define SRDETH_LEN		4
#define RETH_LEN		16
#define AETH_LEN		4
#define IMM_LEN			4
#define ICRC_LEN		4

#define BTH_ACKREQ		0x80
#define DEFAULT_PKEY		0xffff

/* RC's AETH syndromes. */
#define AETH_ACK		0x1f	/* an ACK with no credit count */
#define AETH_RNR		0x20	/* + the RNR timer */
#define AETH_NAK_INV_REQ	0x61
#define AETH_NAK_ACCESS		0x62
#define AETH_NAK_OPERATIONAL	0x63
#define AETH_TYPE		0xe0

static uint8_t *put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
	return p + 2;
}

static uint8_t *put24(uint8_t *p, uint32_t v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
	return p + 3;
}

static uint8_t *put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	return put16(p + 2, v);
}

static uint32_t get24(const uint8_t *p)
{
	return (uint32_t)p[0] << 16 | p[1] << 8 | p[2];
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static uint8_t transport(int qpt)
{
	switch (qpt) {
	case IBV_QPT_UD:
		return OP_UD;
	case IBV_QPT_RC:
		return OP_RC;
	default:
		return OP_SRD;
	}
}

/* The operation of a request's packet, from its place in the message. */
static uint8_t request_op(const struct sefa_pkt *pkt, uint64_t len)
{
	bool first = !pkt->off, last = pkt->off + len >= pkt->len;
	bool imm = (pkt->flags & SEFA_PKT_IMM) && last;

	switch (pkt->op) {
	case SEFA_PKT_WRITE:
		return imm ? OP_WRITE_ONLY_IMM : OP_WRITE_ONLY;
	case SEFA_PKT_READ:
		return OP_READ_REQ;
	default:
		if (first && last)
			return imm ? OP_SEND_ONLY_IMM : OP_SEND_ONLY;
		if (first)
			return OP_SEND_FIRST;
		if (!last)
			return OP_SEND_MIDDLE;
		return imm ? OP_SEND_LAST_IMM : OP_SEND_LAST;
	}
}

/* The AETH syndrome of an answer: SRD's is the completion status itself. */
static uint8_t aeth_syndrome(const struct sefa_pkt *ack)
{
	if (ack->qpt != IBV_QPT_RC)
		return ack->status;
	switch (ack->status) {
	case EFA_IO_COMP_STATUS_OK:
		return AETH_ACK;
	case EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR:
		return AETH_RNR | (ack->rnr_timer & 31);
	case EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH:
		return AETH_NAK_INV_REQ;
	case EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS:
		return AETH_NAK_ACCESS;
	default:
		return AETH_NAK_OPERATIONAL;
	}
}

static int aeth_status(uint8_t qpt, uint8_t syn, struct sefa_pkt *pkt)
{
	if (qpt != IBV_QPT_RC) {
		pkt->status = syn;
		return 0;
	}
	switch (syn & AETH_TYPE) {
	case 0x00:
		pkt->status = EFA_IO_COMP_STATUS_OK;
		return 0;
	case AETH_RNR:
		pkt->status = EFA_IO_COMP_STATUS_REMOTE_ERROR_RNR;
		pkt->rnr_timer = syn & 31;
		return 0;
	}
	switch (syn) {
	case AETH_NAK_INV_REQ:
		pkt->status = EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_LENGTH;
		return 0;
	case AETH_NAK_ACCESS:
		pkt->status = EFA_IO_COMP_STATUS_REMOTE_ERROR_BAD_ADDRESS;
		return 0;
	case AETH_NAK_OPERATIONAL:
		pkt->status = EFA_IO_COMP_STATUS_REMOTE_ERROR_ABORT;
		return 0;
	}
	/* A PSN sequence NAK: the retransmission timer takes care of it. */
	return -EINVAL;
}

/*
 * The headers of @pkt's packet that carries @len bytes of payload: a
 * request's from byte pkt->off of its message, or an answer (an ACK, a
 * read's data).  Returns their length; the payload follows them.
 */
size_t nic_frame_hdr(const struct sefa_pkt *pkt, uint64_t len, uint8_t *buf)
{
	bool ack = pkt->op == SEFA_PKT_ACK;
	uint8_t op = ack ? (pkt->data ? OP_READ_RESP_ONLY : OP_ACK) :
			   request_op(pkt, len);
	uint64_t payload = !ack && pkt->op == SEFA_PKT_READ ? 0 : len;
	uint8_t *p = buf;

	op |= transport(pkt->qpt);
	*p++ = op;
	*p++ = (-payload & 3) << 4;		/* SE 0, M 0, PadCnt, TVer 0 */
	p = put16(p, DEFAULT_PKEY);
	*p++ = 0;
	p = put24(p, pkt->dqpn);
	*p++ = !ack && pkt->qpt != IBV_QPT_UD ? BTH_ACKREQ : 0;
	p = put24(p, pkt->psn);

	if (!ack && pkt->qpt != IBV_QPT_RC) {
		p = put32(p, pkt->qkey);
		*p++ = 0;
		p = put24(p, pkt->sqpn);
	}
	if (!ack && pkt->qpt != IBV_QPT_RC && pkt->qpt != IBV_QPT_UD) {
		*p++ = 0;
		p = put24(p, pkt->lwm);
	}
	if (!ack && pkt->op != SEFA_PKT_SEND) {
		uint64_t va = pkt->raddr + pkt->off;

		p = put32(p, va >> 32);
		p = put32(p, va);
		p = put32(p, pkt->rkey);
		p = put32(p, len);
	}
	if (ack) {
		*p++ = aeth_syndrome(pkt);
		p = put24(p, 0);
	}
	if (op == (OP_SEND_LAST_IMM | transport(pkt->qpt)) ||
	    op == (OP_SEND_ONLY_IMM | transport(pkt->qpt)) ||
	    op == (OP_WRITE_ONLY_IMM | transport(pkt->qpt)))
		p = put32(p, pkt->imm);
	return p - buf;
}

/* The pad to four bytes after @len bytes of payload, and the ICRC. */
size_t nic_frame_trailer(uint64_t len, uint8_t *buf)
{
	size_t pad = -len & 3;

	/*
	 * The ICRC is left zero: the wire is a UDP socket whose checksum
	 * covers the packet, and no NIC on the path checks it.
	 */
	memset(buf, 0, pad + ICRC_LEN);
	return pad + ICRC_LEN;
}

/*
 * One packet of @pkt, whole, into @buf (NIC_FRAME_MAX bytes): an answer,
 * or the part of a request's message from pkt->off on, up to
 * NIC_WIRE_CHUNK bytes, read from the requester's buffers unless the
 * packet carries them.  Returns its length, or -EFAULT when those buffers
 * cannot be read.
 */
ssize_t nic_frame_pkt(const struct sefa_pkt *pkt, uint8_t *buf)
{
	bool ack = pkt->op == SEFA_PKT_ACK;
	uint64_t len = ack ? pkt->len : pkt->len - pkt->off;
	size_t n;

	if (len > NIC_WIRE_CHUNK)
		len = NIC_WIRE_CHUNK;
	n = nic_frame_hdr(pkt, len, buf);
	/* A read request's RETH asks for @len bytes; it carries none. */
	if (!ack && pkt->op == SEFA_PKT_READ)
		len = 0;
	if (pkt->data)
		memcpy(buf + n, (const uint8_t *)pkt->data +
		       (ack ? 0 : pkt->off), len);
	else if (len && nic_dma_buf(&pkt->segs, pkt->off, buf + n, len, false))
		return -EFAULT;
	n += len;
	return n + nic_frame_trailer(len, buf + n);
}

/* Which headers follow BTH for an operation, and what it is. */
struct op_shape {
	bool known;
	uint8_t op;			/* enum sefa_pkt_op */
	uint8_t flags;			/* SEFA_PKT_FIRST, _LAST, _IMM */
	bool reth;
	bool aeth;
	bool payload;
};

static int op_shape(uint8_t code, struct op_shape *o)
{
	static const struct op_shape shapes[] = {
		[OP_SEND_FIRST] = { 1, SEFA_PKT_SEND, SEFA_PKT_FIRST, 0, 0, 1 },
		[OP_SEND_MIDDLE] = { 1, SEFA_PKT_SEND, 0, 0, 0, 1 },
		[OP_SEND_LAST] = { 1, SEFA_PKT_SEND, SEFA_PKT_LAST, 0, 0, 1 },
		[OP_SEND_LAST_IMM] = { 1, SEFA_PKT_SEND,
				       SEFA_PKT_LAST | SEFA_PKT_IMM, 0, 0, 1 },
		[OP_SEND_ONLY] = { 1, SEFA_PKT_SEND,
				   SEFA_PKT_FIRST | SEFA_PKT_LAST, 0, 0, 1 },
		[OP_SEND_ONLY_IMM] = { 1, SEFA_PKT_SEND, SEFA_PKT_FIRST |
				       SEFA_PKT_LAST | SEFA_PKT_IMM, 0, 0, 1 },
		[OP_WRITE_ONLY] = { 1, SEFA_PKT_WRITE, 0, 1, 0, 1 },
		[OP_WRITE_ONLY_IMM] = { 1, SEFA_PKT_WRITE, SEFA_PKT_IMM, 1, 0, 1 },
		[OP_READ_REQ] = { 1, SEFA_PKT_READ, 0, 1, 0, 0 },
		[OP_READ_RESP_ONLY] = { 1, SEFA_PKT_ACK, 0, 0, 1, 1 },
		[OP_ACK] = { 1, SEFA_PKT_ACK, 0, 0, 1, 0 },
	};
	uint8_t low = code & ~OP_TRANSPORT;

	if (low >= sizeof(shapes) / sizeof(shapes[0]) || !shapes[low].known)
		return -EINVAL;
	*o = shapes[low];
	return 0;
}

/*
 * Parse a packet from another host into @pkt, whose payload then points
 * into @buf.  The GIDs are the IPv6 header's, for the caller to fill.
 * Returns 0, or -EINVAL for anything malformed or not ours.
 */
int nic_frame_parse(const uint8_t *buf, size_t len, struct sefa_pkt *pkt)
{
	const uint8_t *p = buf, *end;
	struct op_shape o;
	size_t need, pad;

	if (len < BTH_LEN + ICRC_LEN)
		return -EINVAL;
	end = buf + len - ICRC_LEN;
	memset(pkt, 0, sizeof(*pkt));
	switch (p[0] & OP_TRANSPORT) {
	case OP_UD:
		pkt->qpt = IBV_QPT_UD;
		break;
	case OP_RC:
		pkt->qpt = IBV_QPT_RC;
		break;
	case OP_SRD:
		pkt->qpt = IBV_QPT_DRIVER;
		break;
	default:
		return -EINVAL;
	}
	/* SEND ONLY is UD's one operation, with or without immediate. */
	if (op_shape(p[0], &o) || (pkt->qpt == IBV_QPT_UD &&
	    o.flags != (SEFA_PKT_FIRST | SEFA_PKT_LAST) &&
	    o.flags != (SEFA_PKT_FIRST | SEFA_PKT_LAST | SEFA_PKT_IMM)))
		return -EINVAL;
	if (o.op != SEFA_PKT_SEND && !(o.flags & (SEFA_PKT_FIRST | SEFA_PKT_LAST)))
		o.flags |= SEFA_PKT_FIRST | SEFA_PKT_LAST;
	pkt->op = o.op;
	pkt->flags = o.flags | SEFA_PKT_NET;
	pad = p[1] >> 4 & 3;
	pkt->dqpn = get24(p + 5);
	pkt->psn = get24(p + 9);
	p += BTH_LEN;

	need = (o.op != SEFA_PKT_ACK && pkt->qpt != IBV_QPT_RC ? DETH_LEN : 0) +
	       (o.op != SEFA_PKT_ACK && pkt->qpt == IBV_QPT_DRIVER ?
		SRDETH_LEN : 0) +
	       (o.reth ? RETH_LEN : 0) + (o.aeth ? AETH_LEN : 0) +
	       (o.flags & SEFA_PKT_IMM ? IMM_LEN : 0);
	if ((size_t)(end - p) < need + pad)
		return -EINVAL;
	if (o.op != SEFA_PKT_ACK && pkt->qpt != IBV_QPT_RC) {
		pkt->qkey = get32(p);
		pkt->sqpn = get24(p + 5);
		p += DETH_LEN;
	}
	if (o.op != SEFA_PKT_ACK && pkt->qpt == IBV_QPT_DRIVER) {
		pkt->lwm = get24(p + 1);
		p += SRDETH_LEN;
	}
	if (o.reth) {
		pkt->raddr = get64(p);
		pkt->rkey = get32(p + 8);
		pkt->len = get32(p + 12);
		p += RETH_LEN;
	}
	if (o.aeth) {
		if (aeth_status(pkt->qpt, p[0], pkt))
			return -EINVAL;
		p += AETH_LEN;
	}
	if (o.flags & SEFA_PKT_IMM) {
		pkt->imm = get32(p);
		p += IMM_LEN;
	}
	if (!o.payload) {
		/* A read request's length is RETH's; nothing may follow. */
		return p + pad == end && pkt->len <= NIC_WIRE_CHUNK ? 0 : -EINVAL;
	}
	if ((uint64_t)(end - p) - pad > NIC_WIRE_CHUNK ||
	    (o.reth && pkt->len != (uint64_t)(end - p) - pad))
		return -EINVAL;
	pkt->len = end - p - pad;
	pkt->data = p;
	return 0;
}
