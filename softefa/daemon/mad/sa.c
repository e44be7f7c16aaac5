// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The subnet administrator, on the SM's port at SEFA_SM_LID: NodeRecord and
 * PathRecord queries (Get and GetTable, the table through kernel RMPP) about
 * the ports the SM knows (sm.c).  The port's SMA answers SMInfo
 * (mad_local.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "mad/layer.h"

#define SA_CLASS_VERSION	2
#define SA_METHOD_GET_TABLE_RESP	(MAD_METHOD_RESP | MAD_METHOD_GET_TABLE)
#define SA_ERR_NO_RECORDS	(3 << 8)
#define SA_ERR_TOO_MANY_RECORDS	(4 << 8)

enum {
	SA_ATTR_NODE_RECORD = 0x0011,
	SA_ATTR_PATH_RECORD = 0x0035,
};

#define NODE_RECORD_LEN		108
#define PATH_RECORD_LEN		64
#define MAX_RECORD_LEN		112	/* slots are whole 8-byte units */

/* A component of a record that a query's component mask may select. */
struct sa_field {
	uint8_t bit;
	uint8_t off;
	uint8_t len;
};

static const struct sa_field node_fields[] = {
	{ 0, 0, 2 },		/* LID */
	{ 4, 6, 1 },		/* NodeType */
	{ 6, 8, 8 },		/* SystemImageGUID */
	{ 7, 16, 8 },		/* NodeGUID */
	{ 8, 24, 8 },		/* PortGUID */
	{ 14, 44, 64 },		/* NodeDescription */
	{}
};

static const struct sa_field path_fields[] = {
	{ 2, 8, 16 },		/* DGID */
	{ 3, 24, 16 },		/* SGID */
	{ 4, 40, 2 },		/* DLID */
	{ 5, 42, 2 },		/* SLID */
	{ 13, 50, 2 },		/* P_Key */
	{}
};

struct sa_query {
	const uint8_t *tmpl;	/* the request's record */
	uint64_t comp_mask;
	const struct sa_field *fields;
	size_t rec_len;
	size_t slot;		/* rec_len rounded up to 8 bytes */
	uint8_t *out;		/* matching records, slot bytes apart */
	unsigned int n;
};

static bool matches(const struct sa_query *q, const uint8_t *rec)
{
	const struct sa_field *f;

	for (f = q->fields; f->len; f++)
		if ((q->comp_mask & (1ULL << f->bit)) &&
		    memcmp(q->tmpl + f->off, rec + f->off, f->len))
			return false;
	return true;
}

static int add_record(struct sa_query *q, const uint8_t *rec)
{
	uint8_t *grown;

	if (!matches(q, rec))
		return 0;
	grown = realloc(q->out, (q->n + 1) * q->slot);
	if (!grown)
		return -ENOMEM;
	q->out = grown;
	memset(q->out + q->n * q->slot, 0, q->slot);
	memcpy(q->out + q->n * q->slot, rec, q->rec_len);
	q->n++;
	return 0;
}

static int node_records(const struct sefa_mad_port *port, struct sa_query *q)
{
	uint8_t rec[NODE_RECORD_LEN];
	const struct sm_node *node;
	unsigned int i, n;
	int ret;

	node = sm_nodes(port, &n);
	for (i = 0; i < n; i++) {
		if (!node[i].has_desc)
			continue;
		memset(rec, 0, sizeof(rec));
		put16(rec, node[i].lid);
		memcpy(rec + 4, node[i].node_info, MAD_NODE_INFO_LEN);
		memcpy(rec + 44, node[i].desc, MAD_NODE_DESC_LEN);
		ret = add_record(q, rec);
		if (ret)
			return ret;
	}
	return 0;
}

/* Every port reaches every port (itself too) in one hop of the subnet. */
static int path_records(const struct sefa_mad_port *port, struct sa_query *q)
{
	uint8_t rec[PATH_RECORD_LEN];
	const struct sm_node *node;
	unsigned int s, t, n;
	int ret;

	node = sm_nodes(port, &n);
	for (s = 0; s < n; s++) {
		for (t = 0; t < n; t++) {
			memset(rec, 0, sizeof(rec));
			memcpy(rec + 8, node[t].gid, 16);
			memcpy(rec + 24, node[s].gid, 16);
			put16(rec + 40, node[t].lid);
			put16(rec + 42, node[s].lid);
			rec[49] = 0x80 | 1;	/* reversible, one path */
			put16(rec + 50, 0xffff);
			rec[54] = 2 << 6 | 5;	/* exactly 4096 */
			rec[55] = 2 << 6 | 16;	/* exactly 100 Gb/s */
			rec[56] = 2 << 6 | 16;	/* packet lifetime */
			ret = add_record(q, rec);
			if (ret)
				return ret;
		}
	}
	return 0;
}

/* The answer: one record for Get, all of them, through RMPP, for GetTable. */
static void sa_answer(struct mad_agent *agent, const struct mad_pkt *pkt,
		      const uint8_t *req)
{
	uint8_t method = req[MAD_OFF_METHOD];
	struct sa_query q = {
		.tmpl = req + MAD_SA_HDR_LEN,
		.comp_mask = get64(req + SA_OFF_COMP_MASK),
	};
	struct mad_addr addr = {
		.dlid = pkt->slid,
		.dst_qp = pkt->src_qp,
		.sl = pkt->sl,
		.pkey_index = pkt->pkey_index,
		.grh = pkt->grh,
		.by_gid = true,
	};
	uint16_t status = 0;
	size_t len = MAD_SA_HDR_LEN;
	uint8_t *msg;
	int ret = 0;

	memcpy(addr.dgid, pkt->sgid, 16);
	switch (get16(req + MAD_OFF_ATTR_ID)) {
	case SA_ATTR_NODE_RECORD:
		q.fields = node_fields;
		q.rec_len = NODE_RECORD_LEN;
		break;
	case SA_ATTR_PATH_RECORD:
		q.fields = path_fields;
		q.rec_len = PATH_RECORD_LEN;
		break;
	default:
		status = MAD_STATUS_UNSUP_METH_ATTR;
	}
	if (!status) {
		q.slot = (q.rec_len + 7) & ~7UL;
		ret = q.fields == node_fields ?
			node_records(agent->port, &q) :
			path_records(agent->port, &q);
		if (ret)
			goto out;
		if (method == MAD_METHOD_GET && q.n != 1)
			status = q.n ? SA_ERR_TOO_MANY_RECORDS : SA_ERR_NO_RECORDS;
		else
			len += (method == MAD_METHOD_GET ? 1 : q.n) * q.slot;
	}
	msg = calloc(1, len < MAD_SIZE ? MAD_SIZE : len);
	if (!msg)
		goto out;
	memcpy(msg, req, MAD_HDR_LEN);
	msg[MAD_OFF_METHOD] = method | MAD_METHOD_RESP;
	put16(msg + MAD_OFF_STATUS, status);
	put32(msg + MAD_OFF_ATTR_MOD, 0);
	put64(msg + SA_OFF_COMP_MASK, q.comp_mask);
	if (!status) {
		put16(msg + SA_OFF_ATTR_OFFSET, (uint16_t)(q.slot / 8));
		/* a table of no records has no buffer to copy from */
		if (len > MAD_SA_HDR_LEN)
			memcpy(msg + MAD_SA_HDR_LEN, q.out,
			       len - MAD_SA_HDR_LEN);
	}
	if (method == MAD_METHOD_GET_TABLE) {
		msg[RMPP_OFF_VERSION] = 1;
		msg[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
		msg[RMPP_OFF_RTIME_FLAGS] = RMPP_FLAG_ACTIVE;
	} else {
		len = MAD_SIZE;
	}
	mad_send(agent, NULL, &addr, msg, len, 0, 0);
	free(msg);
out:
	free(q.out);
}

/*
 * The SA reads a request as a whole MAD.  A message can be shorter: the
 * kernel's reassembly of a one-segment RMPP request cuts it where its
 * PayloadLength says, 36 bytes for a PayloadLength of 0, and an SM gets no
 * more than that.  The bytes it lacks read as zero, as the pad they are on
 * the wire (which a kernel RMPP sender zeroes), so such a request is
 * answered like one with an empty component mask, and nothing past the
 * message is read or echoed back.
 */
static void sa_recv(struct mad_agent *agent, struct mad_recv *r,
		    const struct mad_pkt *pkt)
{
	uint8_t req[MAD_SIZE] = {};

	memcpy(req, r->data, r->len < MAD_SIZE ? r->len : MAD_SIZE);
	free(r);
	sa_answer(agent, pkt, req);
}

/* The SA: a kernel-RMPP agent on the SM's port, for Get and GetTable. */
int sa_init(struct sefa_mad_port *port)
{
	struct mad_reg reg = {
		.qpn = 1,
		.mgmt_class = MAD_CLASS_SUBN_ADM,
		.class_version = SA_CLASS_VERSION,
		.method_mask = { 1ULL << MAD_METHOD_GET |
				 1ULL << MAD_METHOD_GET_TABLE },
		.rmpp_version = 1,
	};
	struct mad_agent *agent = calloc(1, sizeof(*agent));
	int ret;

	if (!agent)
		return -ENOMEM;
	agent->handler = sa_recv;
	ret = mad_agent_register(port, &reg, agent);
	if (ret)
		free(agent);
	return ret;
}
