// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Device profiles: one per EFA generation, named by its PCI part id, with
 * what that hardware reports (softefad(8), GENERATIONS, gives each value's
 * source, or says that it is not published and was chosen).  "efa", the
 * default, is today's hardware (0xefa2); "extended" is it with what
 * this project offers beyond EFA: an InfiniBand-style port with LIDs and
 * MADs, RC, indirect memory regions.
 *
 * Every generation keeps its whole CQ in one ring (sub_cqs_per_cq 1) but
 * the first, 0xefa0, whose CQs have sub-CQs: libfabric 2.x reads one ring
 * on any other part id.
 */
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/efa-abi.h>

#include "efa/efa_abi_compat.h"
#include "efa/efa_ext_abi.h"

#include "profile.h"

/*
 * Every generation: RNR retry (the device), SGID in CQEs, CQ events and
 * CQs on external memory (the kernel: events wherever it has EQs, the
 * last wherever it has dma-buf umems, whatever the device).
 */
#define CAPS_ANY (EFA_QUERY_DEVICE_CAPS_RNR_RETRY |			\
		  EFA_QUERY_DEVICE_CAPS_CQ_NOTIFICATIONS |		\
		  EFA_QUERY_DEVICE_CAPS_CQ_WITH_SGID |			\
		  EFA_QUERY_DEVICE_CAPS_CQ_WITH_EXT_MEM)
#define CAPS_RDMA (CAPS_ANY | EFA_QUERY_DEVICE_CAPS_RDMA_READ |	\
		   EFA_QUERY_DEVICE_CAPS_RDMA_WRITE)
/* 0xefa2 on: a write with immediate takes no posted receive */
#define CAPS_UNSOLICITED (CAPS_RDMA |					\
			  EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV)

/*
 * Queue limits of a real 0xefa1 device, as a UCX test mock of one and an
 * fi_info -v dump of an EC2 instance show them; no other generation's are
 * published, and these are kept.
 */
#define LIMITS								\
	.max_qp = 256,							\
	.max_qp_wr = 4096,						\
	.max_sge = 2,							\
	.max_sge_rd = 1,						\
	.max_cq = 512,							\
	.max_cqe = 32768,						\
	.max_mr = 262144,						\
	.max_pd = 256,							\
	.max_ah = 1024,							\
	.max_mr_size = 96ULL << 30,					\
	.page_size_cap = 0xfffff000,					\
	.mtu = 8928,							\
	.active_mtu = IBV_MTU_4096,					\
	.max_sq_wr = 4096,						\
	.max_rq_wr = 32768,						\
	.max_sq_sge = 2,						\
	.max_rq_sge = 3,						\
	.inline_buf_size = 32,						\
	.max_llq_size = 4096 * 64,					\
	.max_tx_batch = 16,						\
	/* The stock provider batches doorbells by at most SQ depth - 1: */\
	/* a one-WQE SQ would make its batch zero. */			\
	.min_sq_wr = 32

/* What EFA's port is: no LIDs, link layer and node type unspecified. */
#define EFA_PORT							\
	.node_type = 7,		/* RDMA_NODE_UNSPECIFIED */		\
	.node_type_str = "7: unspecified",				\
	.link_layer = IBV_LINK_LAYER_UNSPECIFIED

/*
 * 0xefa1 on: RDMA read and write of up to 1 GiB, one CQ ring, and 128-byte
 * send WQEs with 80 bytes inline: rdma-core's provider (v64) offers
 * inline RDMA write, which needs them, on every device with RDMA write.
 */
#define RDMA_LIMITS							\
	LIMITS,								\
	.max_rdma_size = 1U << 30,					\
	.sub_cqs_per_cq = 1,						\
	.inline_buf_size_ex = 80

/*
 * Today's hardware, the default and the base of "extended": the newest
 * generation that Debian 12's rdma-core 44 drives as well as the current
 * stack (its provider matches 0xefa0-0xefa2; 0xefa3 came with v53).
 */
#define GEN_EFA2							\
	RDMA_LIMITS,							\
	.vendor_part_id = 0xefa2,					\
	.link_gbps = 100,						\
	.not_yet = {							\
		.device_caps = EFA_QUERY_DEVICE_CAPS_DATA_POLLING_128,	\
	}

static const struct sefa_profile profiles[] = {
	{
		.name = "efa",
		.what = "the default: today's EFA, as efa2",
		EFA_PORT,
		GEN_EFA2,
		.device_caps = CAPS_UNSOLICITED,
	},
	{
		.name = "extended",
		.what = "efa2 with LIDs, MADs, RC QPs and indirect MRs",
		GEN_EFA2,
		.node_type = IBV_NODE_CA,
		.node_type_str = "1: CA",
		.link_layer = IBV_LINK_LAYER_INFINIBAND,
		.has_lid = true,
		.has_mad = true,
		.mr_ic_ids = true,
		.device_caps = CAPS_UNSOLICITED | SEFA_QUERY_DEVICE_CAPS_RC |
			       SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR,
		.max_qp_rd_atom = 16,
	},
	{
		.name = "efa0",
		.what = "first EFA: sub-CQs, no RDMA",
		EFA_PORT,
		LIMITS,
		.vendor_part_id = 0xefa0,
		.link_gbps = 100,
		.device_caps = CAPS_ANY,
		.sub_cqs_per_cq = 2,
	},
	{
		.name = "efa1",
		.what = "second EFA: RDMA read and write",
		EFA_PORT,
		RDMA_LIMITS,
		.vendor_part_id = 0xefa1,
		.link_gbps = 100,
		.device_caps = CAPS_RDMA,
	},
	{
		.name = "efa2",
		.what = "third EFA: RDMA, 128-byte data polling",
		EFA_PORT,
		GEN_EFA2,
		.device_caps = CAPS_UNSOLICITED,
	},
	{
		.name = "efa3",
		.what = "fourth EFA: stock provider from rdma-core v53",
		EFA_PORT,
		RDMA_LIMITS,
		.vendor_part_id = 0xefa3,
		.link_gbps = 200,
		.device_caps = CAPS_UNSOLICITED,
		.not_yet = {
			.device_caps = EFA_QUERY_DEVICE_CAPS_DATA_POLLING_128,
		},
	},
	{
		.name = "efa4",
		.what = "fifth EFA: stock provider from rdma-core v64",
		EFA_PORT,
		RDMA_LIMITS,
		.vendor_part_id = 0xefa4,
		.link_gbps = 400,
		.device_caps = CAPS_UNSOLICITED,
		.not_yet = {
			.device_caps = EFA_QUERY_DEVICE_CAPS_DATA_POLLING_128,
		},
	},
};

#define NPROFILES (sizeof(profiles) / sizeof(profiles[0]))

const struct sefa_profile *sefa_profile_find(const char *name)
{
	size_t i;

	for (i = 0; i < NPROFILES; i++)
		if (!strcmp(profiles[i].name, name))
			return &profiles[i];
	return NULL;
}

static const struct {
	uint32_t bit;
	const char *name;
} cap_names[] = {
	{ EFA_QUERY_DEVICE_CAPS_RDMA_READ, "rdma-read" },
	{ EFA_QUERY_DEVICE_CAPS_RDMA_WRITE, "rdma-write" },
	{ EFA_QUERY_DEVICE_CAPS_DATA_POLLING_128, "data-polling-128" },
	{ EFA_QUERY_DEVICE_CAPS_UNSOLICITED_WRITE_RECV, "unsolicited-write-recv" },
	{ EFA_QUERY_DEVICE_CAPS_CQ_WITH_EXT_MEM, "cq-ext-mem" },
	{ SEFA_QUERY_DEVICE_CAPS_RC, "rc" },
	{ SEFA_QUERY_DEVICE_CAPS_INDIRECT_MR, "indirect-mr" },
};

static void caps_print(FILE *f, uint32_t caps)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < sizeof(cap_names) / sizeof(cap_names[0]); i++) {
		if (!(caps & cap_names[i].bit))
			continue;
		fprintf(f, "%s%s", sep, cap_names[i].name);
		sep = ",";
	}
	if (!*sep)
		fputc('-', f);
}

void sefa_profiles_print(FILE *f)
{
	const struct sefa_profile *p;
	size_t i;

	fprintf(f, "profiles (--profile NAME; default %s):\n",
		SEFA_DEFAULT_PROFILE);
	for (i = 0; i < NPROFILES; i++) {
		p = &profiles[i];
		fprintf(f, "  %-9s %#06x  %s\n", p->name, p->vendor_part_id,
			p->what);
		fprintf(f, "  %-9s         sub-CQs %u, inline %u/%u, caps ", "",
			p->sub_cqs_per_cq, p->inline_buf_size,
			p->inline_buf_size_ex);
		caps_print(f, p->device_caps);
		if (p->not_yet.device_caps) {
			fputs("; hardware also: ", f);
			caps_print(f, p->not_yet.device_caps);
			fputs(" (SoftEFA: not yet)", f);
		}
		fputc('\n', f);
	}
}

/* The efa driver's table of link speeds (efa_link_gbps_to_speed_and_width). */
static const struct {
	uint16_t gbps;
	uint8_t speed;
	uint8_t width;
	const char *rate;
} links[] = {
	{ 400, 64, 4, "400 Gb/sec (8X HDR)" },
	{ 200, 64, 2, "200 Gb/sec (4X HDR)" },
	{ 100, 32, 2, "100 Gb/sec (4X EDR)" },
};

void sefa_link_speed(uint16_t gbps, uint8_t *speed, uint8_t *width)
{
	size_t i;

	for (i = 0; i + 1 < sizeof(links) / sizeof(links[0]); i++)
		if (gbps >= links[i].gbps)
			break;
	*speed = links[i].speed;
	*width = links[i].width;
}

const char *sefa_link_rate_str(uint16_t gbps)
{
	size_t i;

	for (i = 0; i + 1 < sizeof(links) / sizeof(links[0]); i++)
		if (gbps >= links[i].gbps)
			break;
	return links[i].rate;
}
