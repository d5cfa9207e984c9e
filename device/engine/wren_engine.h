/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The Wren adapter's logic, independent of QEMU: the BAR0 register file,
 * the reset/enable handshake, the admin, async event and event queues.
 * Everything the guest hands over is validated here.
 */
#ifndef WREN_ENGINE_H
#define WREN_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "wren_env.h"

#define WREN_SERIAL_LEN		32

/* Adapter configuration, set by the host before wren_engine_init(). */
struct wren_config {
	uint8_t mac[6];
	uint32_t ipv4;			/* network byte order */
	uint32_t mtu;
	uint32_t link_speed_mbps;
	char serial[WREN_SERIAL_LEN + 1];
	uint32_t msix_vectors;
	uint8_t fault_drop_opcode;	/* 0: no fault */
	uint32_t max_pd;
	uint32_t max_cq;
	uint32_t max_cq_depth;
	uint32_t max_qp;
	uint32_t max_qp_depth;
	uint32_t max_sge;
	uint32_t max_inline;
	uint32_t max_ah;
	uint32_t max_mr;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t max_eq_depth;
	uint32_t db_page_count;
	uint32_t max_msg_size;
	uint32_t time_scale;		/* transport timers x this (>= 1) */
	uint32_t tc_cache;		/* transport contexts held at once */
	uint16_t max_rd_atom;		/* READs in flight per QP; more wait */
};

/* A ring the device writes and the driver consumes (ACQ, AEQ, EQs). */
struct wren_out_ring {
	uint64_t base;
	uint32_t log_depth;
	uint32_t tail;		/* producer index, free running */
	uint32_t head;		/* consumer index last given by the driver */
	uint32_t index_mask;	/* the width of the free-running indices */
	uint64_t dropped;
};

struct wren_eq {
	bool in_use;
	bool armed;
	bool intr;
	uint16_t vector;
	struct wren_out_ring ring;
};

/* Data-path objects (wren_objects.c). */
struct wren_cq {
	bool in_use;
	bool use_eq;
	bool armed;
	bool armed_solicited;
	bool overflowed;	/* in error: completions were lost */
	uint16_t eq_id;
	uint16_t db_slot;
	uint32_t db_page;
	struct wren_out_ring ring;	/* index_mask WREN_CQ_DB_CI */
	uint32_t refs;		/* QPs completing on it */
};

struct wren_qp {
	bool in_use;
	uint8_t type;
	uint8_t state;
	uint8_t flags;
	uint8_t sq_log_depth;
	uint8_t rq_log_depth;
	uint16_t sq_slot;
	uint16_t rq_slot;
	uint32_t pdn;
	uint32_t send_cq;
	uint32_t recv_cq;
	uint32_t db_page;
	uint32_t qkey;
	uint64_t sq_base;
	uint64_t rq_base;
	uint16_t sq_pi, sq_ci;	/* producer from the doorbell, consumer */
	uint16_t rq_pi, rq_ci;
	uint16_t sq_fetch;	/* next send entry to read */
	bool sq_blocked;	/* the transport was full, or max_rd_atom reads */
	uint16_t reads_out;	/* RDMA_READs posted and not done */
	uint16_t gen;		/* tells stale transport callbacks apart */
	struct wren_swqe *sq_shadow;	/* per send slot while in flight */
	struct wren_rwqe *rq_shadow;	/* per receive slot while in use */
};

/* What the device keeps of a send entry it has taken. */
struct wren_swqe {
	struct wren_sq_wqe wqe;
	uint32_t len;
	uint8_t status;		/* enum wren_cqe_status, once done */
	bool posted;
	bool done;
	/* RDMA_READ: the request's fate and the response's, in any order. */
	bool req_done;
	bool resp_done;
	bool resp_failed;	/* its data could not be placed */
	uint8_t resp_status;	/* enum wren_cqe_status */
	uint32_t tag;		/* QP generation << 16 | SQ index */
	uint32_t dst_ipv4;	/* who must answer it */
	uint64_t deadline;	/* no response byte by then: give up */
};

/* ... and of a receive entry a message is being placed into. */
struct wren_rwqe {
	struct wren_rq_wqe wqe;
	uint32_t len;		/* of the message */
	uint32_t src_qpn;
	uint32_t src_ipv4;
	uint32_t imm;
	uint8_t opcode;
	bool solicited;
	bool busy;		/* a message is being placed into it */
	bool failed;		/* a write into it was refused */
};

struct wren_ah {
	bool in_use;
	uint8_t mac[6];
	uint32_t pdn;
	uint32_t ipv4;		/* network byte order */
};

struct wren_mr {
	bool in_use;
	uint8_t page_shift;
	uint8_t access;
	uint8_t key_tag;
	uint32_t pdn;
	uint32_t npages;
	uint64_t iova;
	uint64_t length;
	uint64_t pbl_addr;
};

/* What a doorbell register of a page rings. */
enum wren_db_kind {
	WREN_DB_NONE = 0,
	WREN_DB_SQ,
	WREN_DB_RQ,
	WREN_DB_CQ,
};

struct wren_db_slot {
	uint8_t kind;		/* enum wren_db_kind */
	uint32_t obj;		/* QP or CQ number */
};

struct wren_engine_stats {
	uint64_t admin_cmds;
	uint64_t admin_errors;
	uint64_t aeq_events;
	uint64_t guest_errors;
};

struct wren_resp;

struct wren_engine {
	const struct wren_env_ops *ops;
	void *opaque;
	struct wren_config cfg;

	uint32_t dev_sts;
	uint32_t intr_mask;
	uint32_t aq_base_lo, aq_base_hi, aq_cfg;
	uint32_t acq_base_lo, acq_base_hi, acq_cfg;
	uint32_t aeq_base_lo, aeq_base_hi, aeq_cfg;

	/* Admin queue: consumer index and the last tail the driver gave. */
	uint64_t aq_base;
	uint32_t aq_log_depth;
	uint16_t aq_head;
	uint16_t aq_tail;
	bool in_admin;

	struct wren_out_ring acq;
	struct wren_out_ring aeq;
	bool aeq_overflow_pending;

	uint32_t keep_alive_ms;
	uint64_t keep_alive_sent;
	void *keep_alive_timer;

	uint32_t max_eq;
	struct wren_eq *eqs;
	uint32_t *eq_refs;	/* CQs reporting to each EQ */
	uint8_t *pd_used;
	uint32_t *pd_refs;	/* QPs, AHs and MRs on each PD */
	struct wren_cq *cqs;
	struct wren_qp *qps;
	uint32_t qp_next;	/* where the search for a free QP starts */
	struct wren_ah *ahs;
	struct wren_mr *mrs;
	struct wren_db_slot **db_slots;	/* per page, allocated on use */
	struct wren_tp *tp;	/* the wire, if the host has one */
	struct wren_resp *resps;	/* responder entries (wren_rdma.c) */
	uint32_t resp_count;
	uint32_t resp_free;
	uint32_t resp_head, resp_tail;	/* reads to answer */
	void *read_timer;	/* RDMA_READs waiting for their response */
	uint64_t read_timer_at;	/* 0: not armed */
	uint64_t read_timeout_ns;	/* without a response byte */
	uint64_t tc_base;	/* the context table (SET_TC_TABLE), or 0 */
	bool sq_waiting;	/* a send queue waits for the transport */

	struct wren_engine_stats stats;
};

#define WREN_FW_MAJOR		1
#define WREN_FW_MINOR		0
#define WREN_FW_PATCH		0
#define WREN_RESET_TIMEOUT_MS	1000
#define WREN_ADMIN_TIMEOUT_MS	1000

void wren_config_defaults(struct wren_config *cfg);
int wren_engine_init(struct wren_engine *e, const struct wren_config *cfg,
		     const struct wren_env_ops *ops, void *opaque);
void wren_engine_fini(struct wren_engine *e);
void wren_engine_reset(struct wren_engine *e);

uint32_t wren_reg_read(struct wren_engine *e, uint64_t offset, unsigned int size);
void wren_reg_write(struct wren_engine *e, uint64_t offset, uint32_t value,
		    unsigned int size);
uint32_t wren_db_read(struct wren_engine *e, uint64_t offset, unsigned int size);
/* The wire (hosts whose env has tx_kick and random). */
size_t wren_engine_tx_pull(struct wren_engine *e, void *frame, size_t cap);
void wren_engine_rx_frame(struct wren_engine *e, const void *frame,
			  size_t len);
void wren_db_write(struct wren_engine *e, uint64_t offset, uint32_t value,
		   unsigned int size);

#endif /* WREN_ENGINE_H */
