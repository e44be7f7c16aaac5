/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Device profiles: what one kind of device reports.  One per EFA
 * generation (by PCI part id), the default "efa" (today's hardware) and
 * "extended" (today's hardware plus what this project adds).  softefad(8)
 * gives the table and where each value comes from.
 */
#ifndef SEFA_SOFTEFA_COMMON_PROFILE_H
#define SEFA_SOFTEFA_COMMON_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * What a generation's hardware has that SoftEFA does not do yet: listed
 * with the profile, so that when SoftEFA learns it, turning it on is one
 * line of that profile (the bit moves to device_caps).
 */
struct sefa_profile_not_yet {
	uint32_t device_caps;		/* EFA_QUERY_DEVICE_CAPS_* */
};

struct sefa_profile {
	const char *name;
	const char *what;		/* one line, for the profile list */
	uint32_t node_type;		/* enum ibv_node_type / rdma node type */
	const char *node_type_str;	/* sysfs node_type text */
	uint8_t link_layer;		/* IBV_LINK_LAYER_* */
	bool has_lid;			/* ports get LIDs from the daemon's SM */
	bool has_mad;			/* umad/issm nodes, QP0/QP1 MAD service */
	uint16_t vendor_part_id;
	uint32_t max_qp;
	uint32_t max_qp_wr;
	uint32_t max_sge;
	uint32_t max_sge_rd;
	uint32_t max_cq;
	uint32_t max_cqe;
	uint32_t max_mr;
	uint32_t max_pd;
	uint32_t max_ah;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t mtu;			/* bytes: port max_msg_sz */
	uint8_t active_mtu;		/* IBV_MTU_* */
	uint16_t link_gbps;		/* port speed and width, as efa's */
	/* efa driver data */
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint32_t max_rdma_size;
	uint32_t device_caps;		/* EFA_QUERY_DEVICE_CAPS_* */
	uint16_t sub_cqs_per_cq;
	uint16_t inline_buf_size;
	/*
	 * Inline bytes of a 128-byte send WQE, which a device takes where it
	 * reports more than inline_buf_size here; inline_buf_size alone: it
	 * takes 64-byte WQEs only.
	 */
	uint16_t inline_buf_size_ex;
	uint32_t max_llq_size;
	uint16_t max_tx_batch;
	uint16_t min_sq_wr;
	struct sefa_profile_not_yet not_yet;
	bool mr_ic_ids;			/* MR query reports interconnect ids */
	uint8_t max_qp_rd_atom;		/* RC: RDMA reads in flight */
};

#define SEFA_DEFAULT_PROFILE	"efa"

const struct sefa_profile *sefa_profile_find(const char *name);
void sefa_profiles_print(FILE *f);

/* An IB port's speed (IBV_SPEED_*) and width (IBV_WIDTH_*) for @gbps. */
void sefa_link_speed(uint16_t gbps, uint8_t *speed, uint8_t *width);
/* sysfs ports/N/rate of @gbps: "100 Gb/sec (4X EDR)". */
const char *sefa_link_rate_str(uint16_t gbps);

#endif
