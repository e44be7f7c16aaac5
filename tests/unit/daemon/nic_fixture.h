/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A fake host for the NIC's stages, with no daemon and no client: two
 * devices of the extended profile, one "client" per device that is this
 * very process (the NIC's DMA reads and writes its memory as it would a
 * program's), and verbs objects made by the verbs layer's own functions.
 * The wire is a stub that records every packet, answers requests as told
 * and takes answers to the completer.
 */
#ifndef SEFA_TESTS_UNIT_DAEMON_NIC_FIXTURE_H
#define SEFA_TESTS_UNIT_DAEMON_NIC_FIXTURE_H

#include <check.h>

#include <infiniband/verbs.h>

#include "nic/loc.h"

#define FX_QKEY		0x11111111
#define FX_NONE		-1		/* fx_answer: the stub answers nothing */
#define FX_MAX_PKTS	16

extern struct sefa_daemon fx_d;
extern struct nic_engine *fx_eng;
/* This process's memory, for segments a test makes by hand. */
extern struct sefa_mm fx_self_mm;

/*
 * What went on the wire, in order; a payload carried as bytes (inline, or
 * read ahead) copied, its first FX_PKT_DATA of them.
 */
#define FX_PKT_DATA	256
extern struct sefa_pkt fx_pkt[FX_MAX_PKTS];
extern uint8_t fx_pkt_data[FX_MAX_PKTS][FX_PKT_DATA];
extern unsigned int fx_npkts;
/* The status the stub answers a reliable request with, or FX_NONE. */
extern int fx_answer;
extern uint8_t fx_answer_rnr_timer;

void fx_setup(void);
void fx_teardown(void);
nic_xmit_fn fx_wire;

struct sefa_pd *fx_pd(unsigned int dev);
struct sefa_mr *fx_mr(struct sefa_pd *pd, void *buf, size_t len,
		      uint32_t access);
/* An indirect key of @pd, empty until a UMR fills it. */
struct sefa_mr *fx_mr_indirect(struct sefa_pd *pd, uint32_t max_entries,
			       uint32_t access);
struct sefa_cq *fx_cq(unsigned int dev);
/* A QP of @type (IBV_QPT_UD, _DRIVER or _RC), in RTS but RC's in INIT. */
struct sefa_qp *fx_qp(struct sefa_pd *pd, struct sefa_cq *cq, int type);
struct sefa_qp *fx_qp_ex(struct sefa_pd *pd, struct sefa_cq *cq, int type,
			 uint32_t wqe_size, uint16_t flags);
/* Two RC QPs connected to each other, in RTS. */
void fx_rc_connect(struct sefa_qp *a, struct sefa_qp *b, bool by_lid);
uint16_t fx_ah(struct sefa_pd *pd, unsigned int to_dev);

void fx_post_recv(struct sefa_qp *qp, const void *buf, uint32_t len,
		  uint32_t lkey, uint16_t req_id);
void fx_post_send(struct sefa_qp *qp, const struct efa_io_tx_wqe_128 *w);
/* A signaled, whole WQE of @op with one buffer (or inline bytes). */
struct efa_io_tx_wqe_128 fx_wqe(unsigned int op, uint16_t req_id);
void fx_wqe_buf(struct efa_io_tx_wqe_128 *w, const void *buf, uint32_t len,
		uint32_t lkey);
void fx_wqe_inline(struct efa_io_tx_wqe_128 *w, const void *buf, uint16_t len);

/* Completions written to a QP's send or receive sub-CQ, and the n-th. */
unsigned int fx_ncqes(const struct sefa_qp *qp, bool recv);
const struct efa_io_rx_cdesc_ex *fx_cqe(const struct sefa_qp *qp, bool recv,
					unsigned int n);
unsigned int fx_cqe_op(const struct efa_io_rx_cdesc_ex *e);

/* A request packet from @qp as its requester would make it. */
struct sefa_pkt fx_req(const struct sefa_qp *from, const struct sefa_qp *to,
		       uint8_t op, uint64_t len);

#endif
