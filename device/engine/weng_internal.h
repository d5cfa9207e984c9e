/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren engine internals shared between the engine's files; the host sees
 * only weng.h.
 *
 * The files form layers, and calls go down them only (make check holds
 * them to it, stage "layers"; Documentation/device-model.rst draws them):
 *
 *   services     weng_base.c weng_ring.c
 *   events       weng_aeq.c weng_eq.c weng_cq.c
 *   objects      weng_pd.c weng_ah.c weng_mr.c weng_srq.c weng_qp.c
 *                weng_resp.c weng_tc.c weng_rc.c weng_counter.c
 *   operations   weng_send.c weng_read.c weng_recv.c weng_write.c
 *                weng_atomic.c weng_eth.c
 *   dispatch     weng_ulp.c weng_wire.c weng_doorbell.c weng_cmd_dev.c
 *                weng_cmd_obj.c weng_cmd_ctx.c weng_cmd.c weng_admin.c
 *                weng_fault.c weng_engine.c
 *
 * The faults in force (struct weng_fault) are plain fields that each part
 * reads where the fault bites; only weng_fault.c, the host's entry, sets
 * them, so no part calls up to it.
 *
 * The one pair that calls both ways is weng_send.c and weng_read.c: an
 * RDMA READ is posted from the send queue and, once finished, lets the
 * send queue go on.
 */
#ifndef WENG_INTERNAL_H
#define WENG_INTERNAL_H

#include <stddef.h>

#include "wren_compat.h"
#include "linux/wren/wren_if.h"
#include "linux/wren/wren_wire.h"
#include "wren_tp.h"
#include "weng.h"

/* What this device model offers: CAPS registers and GET_ATTR alike. */
#define WENG_CAPS		(WREN_CAP_KEEP_ALIVE | WREN_CAP_ADMIN_INTR | \
				 WREN_CAP_UD | WREN_CAP_RD | WREN_CAP_TC_TABLE | \
				 WREN_CAP_RDMA_WRITE | WREN_CAP_RDMA_READ | \
				 WREN_CAP_RESIZE_CQ | WREN_CAP_RC | \
				 WREN_CAP_REREG_MR | WREN_CAP_ATOMIC | \
				 WREN_CAP_SRQ | WREN_CAP_WQE_SHIFT | \
				 WREN_CAP_DMA_LKEY | WREN_CAP_RAW_ETH | \
				 WREN_CAP_GSI | WREN_CAP_WQE_AV | \
				 WREN_CAP_FAST_REG | WREN_CAP_COUNTER_SETS | \
				 WREN_CAP_QUERY_CTX)
#define WENG_FW_MAJOR		1
#define WENG_FW_MINOR		0
#define WENG_FW_PATCH		0
#define WENG_RESET_TIMEOUT_MS	1000
#define WENG_ADMIN_TIMEOUT_MS	1000
#define WENG_KEEP_ALIVE_MAX_MS	3600000
#define WENG_TC_MAX_LOG		20	/* records in the context table, log2 */

/* A ring the device writes and the driver consumes (ACQ, AEQ, EQs, CQs). */
struct weng_ring {
	uint64_t base;
	uint32_t log_depth;
	uint32_t tail;		/* producer index, free running */
	uint32_t head;		/* consumer index last given by the driver */
	uint32_t index_mask;	/* the width of the free-running indices */
	uint64_t dropped;
};

struct weng_eq {
	bool in_use;
	bool armed;
	bool intr;
	uint16_t vector;
	uint32_t refs;		/* CQs reporting to it */
	struct weng_ring ring;
};

struct weng_cq {
	bool in_use;
	bool use_eq;
	bool armed;
	bool armed_solicited;
	bool overflowed;	/* in error: completions were lost */
	uint16_t eq_id;
	uint16_t db_slot;
	uint32_t db_page;
	struct weng_ring ring;	/* index_mask WREN_CQ_DB_CI; dropped: lost */
	uint32_t refs;		/* QPs completing on it */
	uint64_t events;	/* raised on its EQ (QUERY_CTX) */
};

/*
 * What the device keeps of a send entry it has taken, beside its copy of
 * the entry (weng_sq_entry()).
 */
struct weng_swqe {
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
	uint32_t dst_qpn;	/* ... and from which QP */
	uint64_t deadline;	/* no response byte by then: give up */
	/* RC: its place in the QP's stream, and waiting out an RNR. */
	uint32_t psn;
	uint16_t rsn;
	uint8_t rnr_count;	/* times the peer had no receive for it */
	bool rnr_wait;		/* to be sent again at @resend_at */
	uint64_t resend_at;
};

/* ... and of a receive entry a message is being placed into. */
struct weng_rwqe {
	uint32_t len;		/* of the message */
	uint32_t src_qpn;
	uint32_t src_ipv4;
	uint32_t imm;		/* SEND_INV: the key it invalidates */
	uint8_t opcode;
	bool solicited;
	bool busy;		/* a message is being placed into it */
	bool failed;		/* a write into it was refused */
	uint32_t psn;		/* RC: the message's place in the stream */
	uint32_t qp;		/* SRQ: the QP that took it (index) ... */
	uint16_t qp_gen;	/* ... and its generation then */
};

/* A shared receive queue (weng_srq.c). */
struct weng_srq {
	bool in_use;
	uint8_t log_depth;
	uint16_t db_slot;
	uint32_t db_page;
	uint32_t pdn;
	uint64_t base;
	uint16_t pi, ci;	/* producer from the doorbell, consumer */
	uint32_t limit;		/* armed: the event fires below it; 0: not */
	uint32_t refs;		/* QPs taking receives from it */
	uint8_t entry_log;	/* log2 of its entries' bytes */
	struct weng_rwqe *shadow;	/* per slot while a message is placed */
	uint8_t *entries;	/* ... and the entry taken into it */
};

/*
 * What an RC QP keeps beyond a datagram QP's (weng_rc.c): its peer and,
 * each way, where its stream stands.  The responder's window holds, for
 * each of the next WENG_RC_WINDOW messages of the stream, what executing
 * it means (WENG_RC_WHAT()), once it has been taken.
 */
#define WENG_RC_WINDOW		64

/*
 * Messages of one send queue in the transport at once, whatever its type:
 * a QP's long post list neither takes the transport's message slots from
 * the other QPs nor fills the window of messages a transport context
 * serves (TP_MSN_WINDOW, 256) ahead of theirs.  No more than RC's window.
 */
#define WENG_SQ_WINDOW		WENG_RC_WINDOW

enum weng_rc_kind {
	WENG_RC_SEND = 1,	/* complete the receive in rq_shadow[index] */
	WENG_RC_RESP = 2,	/* finish the responder entry resps[index] */
	WENG_RC_FAIL = 3,	/* refused with wren_tp_status index: ERR */
};

#define WENG_RC_WHAT(kind, index)	((uint32_t)(kind) << 28 | (index))
#define WENG_RC_KIND(what)		((what) >> 28)
#define WENG_RC_INDEX(what)		((what) & 0x0fffffff)

struct weng_rc {
	uint32_t dest_qpn;
	uint32_t dest_ipv4;
	uint8_t dest_mac[6];
	uint8_t min_rnr_timer;	/* the verbs' encoding */
	uint8_t rnr_retry;	/* WREN_QP_RNR_RETRY_FOREVER: no end */
	bool comm_est;		/* COMM_EST was posted */
	/* Requester: the next new message, and the next new SEND. */
	uint32_t sq_psn;
	uint16_t sq_rsn;
	uint16_t rnr_waiting;	/* send entries waiting out an RNR */
	/* Responder: the next message to execute; bit i: rq_psn + i. */
	uint32_t rq_psn;
	uint64_t rx_taken;
	uint64_t rx_whole;
	uint32_t rx_what[WENG_RC_WINDOW];
};

struct weng_qp {
	bool in_use;
	uint8_t type;
	uint8_t state;
	uint8_t flags;
	uint8_t sq_log_depth;
	uint8_t rq_log_depth;
	uint8_t sq_entry_log;	/* log2 of the entries' bytes */
	uint8_t rq_entry_log;
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
	bool drained;		/* SQD: SQ_DRAINED was posted */
	uint32_t srqn;		/* WREN_QP_FLAG_SRQ: where receives come from */
	uint16_t reads_out;	/* RDMA_READs posted and not done */
	uint32_t resps_held;	/* responder entries of this gen (weng_resp.c) */
	uint16_t gen;		/* tells stale transport callbacks apart */
	uint8_t access;		/* WREN_MR_ACCESS_REMOTE_* peers may use */
	uint16_t counter_set;	/* the set its counts go to (weng_counter.c) */
	uint32_t last_peer;	/* its latest message's target adapter, or 0 */
	uint32_t last_class;	/* ... and class, or WENG_CLASS_NONE */
	struct weng_swqe *sq_shadow;	/* per send slot while in flight */
	struct weng_rwqe *rq_shadow;	/* per receive slot while in use */
	uint8_t *sq_entries;	/* per send slot, the entry taken */
	uint8_t *rq_entries;	/* per receive slot, the same */
	struct weng_rc *rc;		/* RC only */
};

/* weng_qp.last_class of a datagram: it has no transport context. */
#define WENG_CLASS_NONE		UINT32_MAX

/* log2 of the entries' bytes at wqe_shift 0 */
#define WENG_SQ_ENTRY_LOG0	7
#define WENG_RQ_ENTRY_LOG0	6
static_assert(sizeof(struct wren_sq_wqe) == 1U << WENG_SQ_ENTRY_LOG0 &&
	      sizeof(struct wren_rq_wqe) == 1U << WENG_RQ_ENTRY_LOG0,
	      "entry sizes");

/*
 * The device's copy of the entry in send slot @slot, taken and checked
 * when the doorbell named it: the guest may rewrite its ring meanwhile.
 */
static inline struct wren_sq_wqe *weng_sq_entry(const struct weng_qp *qp,
						uint32_t slot)
{
	return (struct wren_sq_wqe *)(qp->sq_entries +
				      ((size_t)slot << qp->sq_entry_log));
}

static inline struct wren_rq_wqe *weng_srq_entry(const struct weng_srq *srq,
						 uint32_t slot)
{
	return (struct wren_rq_wqe *)(srq->entries +
				      ((size_t)slot << srq->entry_log));
}

struct weng_ah {
	bool in_use;
	uint8_t mac[6];
	uint32_t pdn;
	uint32_t ipv4;		/* network byte order */
};

/*
 * A memory region.  An ordinary one is always valid; a fast-register one
 * (WREN_MR_FLAG_FAST) starts invalid, with no pages, and send entries
 * register it (page_shift to length) and invalidate it (weng_mr.c).
 */
struct weng_mr {
	bool in_use;
	bool fast;		/* WREN_MR_FLAG_FAST */
	bool valid;		/* accesses are allowed */
	uint8_t page_shift;
	uint8_t access;
	uint32_t lkey;		/* local accesses and commands name it by */
	uint32_t rkey;		/* remote accesses name it by */
	uint32_t pdn;
	uint32_t npages;
	uint64_t iova;
	uint64_t length;
	uint64_t pbl_addr;
	uint32_t max_pages;	/* fast: the most a registration may have */
};

/* The value REG_MR's checks refuse (weng_mr_check()). */
enum weng_mr_bad {
	WENG_MR_OK,
	WENG_MR_BAD_PAGE_SHIFT,
	WENG_MR_BAD_LENGTH,
	WENG_MR_BAD_NPAGES,
	WENG_MR_BAD_PBL,
	WENG_MR_BAD_ACCESS,
};

/* A responder entry: a WRITE or READ_REQ from a peer, in progress. */
struct weng_resp {
	bool in_use;
	bool failed;		/* a write refused, or the read failed */
	uint8_t opcode;		/* enum wren_wire_opcode */
	bool solicited;
	uint16_t gen;
	uint16_t qp_gen;
	uint32_t qp;		/* index in e->qps */
	uint32_t rkey;
	uint64_t raddr;
	uint32_t len;		/* bytes written, or to read */
	uint32_t imm;		/* WRITE_IMM's immediate, or the read's tag */
	uint32_t peer_qpn;
	uint32_t peer_ipv4;
	uint8_t peer_mac[6];
	uint32_t psn;		/* RC: the message's place in the stream */
	uint32_t recv_slot;	/* RC WRITE_IMM: the receive it consumes */
	uint32_t next;		/* free list, or the queue of answers */
	/* An atomic's operands as they came; then the old value, answered. */
	uint8_t atomic[WREN_WIRE_ATOMIC_LEN];
};

#define WENG_RESP_NONE	UINT32_MAX

/* What a doorbell register of a page rings. */
enum weng_db_kind {
	WENG_DB_NONE = 0,
	WENG_DB_SQ,
	WENG_DB_RQ,
	WENG_DB_CQ,
	WENG_DB_SRQ,
};

struct weng_db_slot {
	uint8_t kind;		/* enum weng_db_kind */
	uint32_t obj;		/* QP or CQ number */
};

/*
 * A host timer that wakes the engine by the earliest deadline asked of it
 * (weng_base.c); its callback, called once, sets @at to 0 first.
 */
struct weng_alarm {
	void *timer;
	uint64_t at;		/* 0: not armed */
};

/*
 * A completion held back by the delay fault (weng_admin.c), and an event
 * queue entry held by the stall fault (weng_eq.c).
 */
#define WENG_ADMIN_LATE_MAX	64
#define WENG_EQ_HELD_MAX	1024

struct weng_admin_late {
	uint64_t at;		/* 0: free */
	uint8_t opcode;
	uint16_t cmd_id;
	uint16_t sq_head;	/* as it was when the command was taken */
	uint8_t status;
	uint32_t ext_status;
	uint32_t result[4];
};

struct weng_eq_held {
	uint32_t id;
	uint32_t handle;
	uint8_t type;
};

/* The faults in force; weng_fault.c sets them, the parts obey. */
struct weng_fault {
	bool admin_stop;
	bool eq_stall;
	bool keep_alive_stop;
	bool link_down;
	uint8_t drop_opcode;	/* the next completion of it is lost */
	uint8_t drop_all_opcode;	/* every one is */
	uint8_t delay_opcode;
	uint32_t delay_ms;
	struct weng_fault_stats stats;
};

struct weng_stats {
	uint64_t admin_cmds;
	uint64_t admin_errors;
	uint64_t aeq_events;
	uint64_t guest_errors;
	uint64_t dma_self;	/* DMAs refused: they reached our own BARs */
	uint64_t self_yields;	/* pulls that stopped at the loopback budget */
};

/* The Ethernet function's counters, one field per name of their list. */
struct weng_eth_stats {
#define WREN_ETH_STAT(counter)	uint64_t counter;
#include "linux/wren/wren_stats.h"
#undef WREN_ETH_STAT
};

/* The engine's counters (WREN_ENG_STAT), one field per name of the list. */
struct weng_eng_stats {
#define WREN_ENG_STAT(counter)	uint64_t counter;
#include "linux/wren/wren_stats.h"
#undef WREN_ENG_STAT
};

/*
 * Counter sets (weng_counter.c).  Every QP-scope count is kept twice: in
 * the totals, and in the account of the queue pair it concerns, indexed
 * by QP number (the transport keeps its own counters' accounts, given by
 * wren_tp_set_accounts(); the engine keeps its own group's).  A set is
 * not counted into: its counts are @base plus the accounts of the QPs
 * bound to it, @base absorbing, modulo 2^64, what a QP's account held when
 * it joined (subtracted) and when it left (added).  The default set is
 * the rest: the totals less every allocated set and @retired, what the
 * sets freed so far held.
 */
struct weng_counter_set {
	bool in_use;
	uint32_t refs;			/* QPs bound to it */
	uint64_t base[WREN_STAT_COUNT];	/* QP-scope entries only */
};

struct weng {
	const struct weng_env_ops *ops;
	void *opaque;
	struct weng_config cfg;

	uint32_t dev_sts;
	uint32_t intr_mask;
	uint32_t aq_base_lo, aq_base_hi, aq_cfg;
	uint32_t acq_base_lo, acq_base_hi, acq_cfg;
	uint32_t aeq_base_lo, aeq_base_hi, aeq_cfg;

	/* DMA to our own BARs (weng_base.c). */
	bool in_dma;		/* inside a DMA the engine issued */
	bool dma_self;		/* ... which came back to our registers */

	/* Admin queue: consumer index and the last tail the driver gave. */
	uint64_t aq_base;
	uint32_t aq_log_depth;
	uint16_t aq_head;
	uint16_t aq_tail;
	bool in_admin;
	struct weng_ring acq;
	struct weng_alarm late_alarm;	/* delayed completions are due */
	struct weng_admin_late late[WENG_ADMIN_LATE_MAX];

	struct weng_fault fault;
	struct weng_eq_held *eq_held;	/* WENG_EQ_HELD_MAX, in order */
	uint32_t eq_held_n;

	struct weng_ring aeq;
	bool aeq_overflow_pending;
	uint32_t keep_alive_ms;
	uint64_t keep_alive_sent;
	void *keep_alive_timer;

	uint32_t max_eq;
	struct weng_eq *eqs;
	uint8_t *pd_used;	/* WENG_PD_* */
	uint32_t *pd_refs;	/* QPs, AHs and MRs on each PD */
	struct weng_cq *cqs;
	struct weng_srq *srqs;
	struct weng_qp *qps;
	uint32_t qp_next;	/* where the search for a free QP starts */
	struct weng_ah *ahs;
	struct weng_mr *mrs;
	uint32_t mr_next;	/* where REG_MR looks for a free region */
	uint32_t mr_rand;	/* key bits without a host's randomness */
	struct weng_db_slot **db_slots;	/* per page, allocated on use */
	struct wren_tp *tp;	/* the wire, if the host has one */
	struct weng_resp *resps;	/* responder entries (weng_resp.c) */
	uint32_t resp_count;
	uint32_t resp_free;
	struct weng_resp_peer *resp_peers;	/* entries held per peer */
	uint32_t resp_peer_mask;
	uint32_t resp_head, resp_tail;	/* reads to answer (weng_read.c) */
	struct weng_alarm rnr_alarm;	/* RC sends waiting out an RNR */
	struct weng_alarm read_alarm;	/* READs waiting for their response */
	uint64_t read_timeout_ns;	/* without a response byte */
	uint64_t tc_base;	/* the context table (SET_TC_TABLE), or 0 */
	bool sq_waiting;	/* a send queue waits for the transport */
	uint32_t sq_turn;	/* the QP weng_sq_resume() tries first */
	uint32_t eth_qpn;	/* the WREN_QPT_RAW_ETH QP, or 0 */
	uint32_t gsi_slot;	/* 1 + the WREN_QP_FLAG_GSI QP's slot, or 0 */
	bool eth_turn;		/* the Ethernet function goes first */
	struct weng_eth_stats eth_stats;

	struct weng_stats stats;

	/* Counters per QP and counter sets (weng_counter.c). */
	uint32_t acct_n;		/* accounts: WREN_QPN_FIRST + max_qp */
	struct wren_tp_stats *tp_acct;	/* the transport's, per QP number */
	struct weng_eng_stats *eng_acct;	/* the engine's, likewise */
	struct weng_eng_stats eng_stats;	/* the engine's totals */
	struct weng_counter_set *csets;	/* max_counter_set; [0] unused */
	uint64_t cset_retired[WREN_STAT_COUNT];
};

/*
 * Count one event of the engine's QP-scope @counter for QP number @qpn:
 * in the totals and in the QP's account.
 */
#define WENG_COUNT_QP(e, qpn, counter)	do {				\
	struct weng *e_ = (e);						\
	uint32_t qpn_ = (qpn);						\
									\
	e_->eng_stats.counter++;					\
	if (qpn_ < e_->acct_n)						\
		e_->eng_acct[qpn_].counter++;				\
} while (0)

/* Send entries a READ_RESP answers: RDMA_READ and the atomics. */
static inline bool weng_wqe_is_read(uint8_t wqe_opcode)
{
	return wqe_opcode == WREN_WQE_RDMA_READ ||
	       wqe_opcode == WREN_WQE_ATOMIC_CMP_SWP ||
	       wqe_opcode == WREN_WQE_ATOMIC_FETCH_ADD;
}

static inline uint64_t weng_min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t weng_now(const struct weng *e)
{
	return e->ops->host.now_ns(e->opaque);
}

/* Enabled and not failed: the state in which queues are served. */
static inline bool weng_enabled(const struct weng *e)
{
	return (e->dev_sts & (WREN_DEV_STS_ENABLED | WREN_DEV_STS_FATAL)) ==
	       WREN_DEV_STS_ENABLED;
}

/* States in which a QP takes messages: RTR, RTS and SQD. */
static inline bool weng_qp_receives(const struct weng_qp *qp)
{
	return qp->state == WREN_QPS_RTR || qp->state == WREN_QPS_RTS ||
	       qp->state == WREN_QPS_SQD;
}

static inline uint32_t weng_depth(uint8_t log_depth)
{
	return 1U << log_depth;
}

/*
 * What a transport callback's cookie names: a QP's send or receive slot,
 * a responder entry, or the RDMA_READ whose response arrives.  Each
 * carries a generation, so a reused QP or entry makes it stale.
 */
enum weng_cookie_kind {
	WENG_COOKIE_QP = 0,
	WENG_COOKIE_RESP = 1,
	WENG_COOKIE_READ = 2,
};

#define WENG_COOKIE(kind, gen, index, slot) \
	((uint64_t)(kind) << 56 | (uint64_t)(uint16_t)(gen) << 40 | \
	 (uint64_t)(index) << 16 | (uint16_t)(slot))
#define WENG_COOKIE_KIND(c)	((unsigned int)((c) >> 56))
#define WENG_COOKIE_GEN(c)	((uint16_t)((c) >> 40))
#define WENG_COOKIE_INDEX(c)	((uint32_t)((c) >> 16) & 0xffffff)
#define WENG_COOKIE_SLOT(c)	((uint32_t)(c) & 0xffff)

/* weng_base.c: reports, every DMA the engine makes, alarms. */
void weng_warn(struct weng *e, enum weng_wrn what, uint64_t a, uint64_t b);
void weng_fault_reset(struct weng *e);
void weng_fault_report(struct weng *e, enum weng_flt what, uint64_t a,
		       uint64_t b);
int weng_dma_read(struct weng *e, uint64_t addr, void *buf, size_t len);
int weng_dma_write(struct weng *e, uint64_t addr, const void *buf,
		   size_t len);
bool weng_mmio_refused(struct weng *e);
int weng_alarm_init(struct weng *e, struct weng_alarm *a, void (*fn)(void *));
void weng_alarm_fini(struct weng *e, struct weng_alarm *a);
void weng_alarm_cancel(struct weng *e, struct weng_alarm *a);
void weng_alarm_arm(struct weng *e, struct weng_alarm *a, uint64_t at);

/* weng_ring.c: rings the device produces into. */
uint64_t weng_ring_slot(const struct weng_ring *r, uint32_t index,
			unsigned int entry_size);
int weng_ring_push(struct weng *e, struct weng_ring *r,
		   unsigned int entry_size, void *entry, uint8_t *flags);
bool weng_ring_consume(struct weng_ring *r, uint32_t head);

/* weng_aeq.c: the async event queue, keep-alive, fatal errors. */
int weng_aeq_init(struct weng *e);
void weng_aeq_fini(struct weng *e);
void weng_aeq_reset(struct weng *e);
void weng_aeq_post(struct weng *e, uint8_t type, uint32_t info,
		   uint64_t data);
void weng_aeq_doorbell(struct weng *e, uint32_t value);
void weng_aeq_set_keep_alive(struct weng *e, uint32_t period_ms);
void weng_fatal(struct weng *e, unsigned int code);

/* weng_eq.c: event queues. */
int weng_eq_init(struct weng *e);
void weng_eq_fini(struct weng *e);
void weng_eq_reset(struct weng *e);
struct weng_eq *weng_eq_get(struct weng *e, uint32_t id);
void weng_eq_doorbell(struct weng *e, uint32_t id, uint32_t value);
int weng_eq_post(struct weng *e, uint32_t id, uint8_t type, uint32_t handle);
void weng_eq_release(struct weng *e);

/* weng_cq.c: completion queues and the one writer of completions. */
struct weng_completion {
	uint32_t qpn;
	uint16_t wqe_index;	/* the send slot, or the receive's req_id */
	uint8_t opcode;		/* enum wren_cqe_opcode */
	uint8_t status;		/* enum wren_cqe_status */
	uint8_t flags;		/* WREN_CQE_F_* */
	uint32_t byte_len;
	uint32_t imm;		/* host order */
	uint32_t src_qpn;
	uint32_t src_ipv4;	/* network byte order */
	uint32_t inv_key;	/* with WREN_CQE_F_INV */
};

int weng_cq_init(struct weng *e);
void weng_cq_fini(struct weng *e);
void weng_cq_reset(struct weng *e);
struct weng_cq *weng_cq_get(struct weng *e, uint32_t cqn);
void weng_cq_doorbell(struct weng *e, uint64_t offset, struct weng_cq *cq,
		      uint32_t value);
int weng_cq_resize(struct weng *e, struct weng_cq *cq, uint64_t base,
		   uint8_t log_depth, uint32_t *moved);
int weng_cq_complete(struct weng *e, uint32_t cqn,
		     const struct weng_completion *c);

/* weng_pd.c: protection domains and what is in them. */
int weng_pd_init(struct weng *e);
void weng_pd_fini(struct weng *e);
void weng_pd_reset(struct weng *e);
/* weng_pd.c: pd_used[] of a PD. */
#define WENG_PD_USED		BIT(0)
#define WENG_PD_KERNEL		BIT(1)	/* WREN_PD_FLAG_KERNEL */

bool weng_pd_valid(const struct weng *e, uint32_t pdn);
bool weng_pd_kernel(const struct weng *e, uint32_t pdn);

/* weng_ah.c: address handles. */
int weng_ah_init(struct weng *e);
void weng_ah_fini(struct weng *e);
void weng_ah_reset(struct weng *e);
bool weng_dest_ok(uint32_t ipv4, const uint8_t *mac);
const struct weng_ah *weng_ah_get(const struct weng *e, uint32_t n,
				  uint32_t pdn);

/* weng_mr.c: memory regions and every access through them. */
int weng_mr_init(struct weng *e);
void weng_mr_fini(struct weng *e);
void weng_mr_reset(struct weng *e);
enum weng_mr_bad weng_mr_check(const struct weng *e, uint64_t iova,
				uint64_t len, uint64_t pbl, uint32_t npages,
				uint8_t page_shift, uint8_t access);
void weng_mr_fast_init(struct weng *e, struct weng_mr *mr, uint32_t pdn,
		       uint64_t pbl, uint32_t max_pages);
uint32_t weng_mr_key(struct weng *e, uint32_t n, uint8_t tag,
		     uint32_t other);
struct weng_mr *weng_mr_alloc(struct weng *e);
struct weng_mr *weng_mr_of_lkey(struct weng *e, uint32_t lkey);
struct weng_mr *weng_mr_fast_of_key(struct weng *e, uint32_t pdn,
				    uint32_t key, bool remote);
uint8_t weng_mr_fast_reg(struct weng *e, uint32_t pdn, uint32_t key,
			 uint64_t iova, uint64_t len, uint32_t npages,
			 uint8_t page_shift, uint8_t access);
int weng_mr_invalidate(struct weng *e, uint32_t pdn, uint32_t key,
		       bool remote);
int weng_mr_walk(struct weng *e, uint32_t pdn, uint32_t key, uint64_t va,
		 uint64_t len, uint8_t need,
		 int (*fn)(void *arg, uint64_t addr, uint32_t len), void *arg);
int weng_mr_read(struct weng *e, uint32_t pdn, uint32_t key, uint64_t va,
		 void *buf, uint32_t len, uint8_t need);
int weng_mr_write(struct weng *e, uint32_t pdn, uint32_t key, uint64_t va,
		  const void *buf, uint32_t len, uint8_t need);
int weng_sgl_copy(struct weng *e, uint32_t pdn, const struct wren_sge *sge,
		  unsigned int n, uint32_t off, uint8_t *buf, uint32_t len,
		  bool to_sgl);

/* weng_srq.c: shared receive queues. */
int weng_srq_init(struct weng *e);
void weng_srq_fini(struct weng *e);
void weng_srq_reset(struct weng *e);
struct weng_srq *weng_srq_get(struct weng *e, uint32_t srqn);
void weng_srq_free_slots(struct weng_srq *srq);
void weng_srq_doorbell(struct weng *e, uint64_t offset, struct weng_srq *srq,
		       uint32_t value);
int weng_srq_take(struct weng *e, struct weng_srq *srq, uint32_t *slot,
		  uint64_t *at);
void weng_srq_limit_check(struct weng *e, struct weng_srq *srq);

/* weng_qp.c: queue pairs, their slots, completions and flushing. */
int weng_qp_init(struct weng *e);
void weng_qp_fini(struct weng *e);
void weng_qp_reset(struct weng *e);
struct weng_qp *weng_qp_get(struct weng *e, uint32_t qpn);
uint32_t weng_qpn(const struct weng *e, const struct weng_qp *qp);
uint64_t weng_qp_cookie(const struct weng *e, const struct weng_qp *qp,
			uint32_t slot);
struct weng_qp *weng_qp_of_cookie(struct weng *e, uint64_t cookie,
				  uint32_t *slot);
int weng_qp_alloc_slots(struct weng_qp *qp);
void weng_qp_clear_slots(struct weng_qp *qp);
void weng_qp_free_shadows(struct weng_qp *qp);
void weng_sq_retire(struct weng *e, struct weng_qp *qp);
void weng_qp_flush(struct weng *e, struct weng_qp *qp);
void weng_qp_forget(struct weng *e, struct weng_qp *qp, bool reset);
void weng_qp_error(struct weng *e, struct weng_qp *qp);
void weng_qp_event(struct weng *e, const struct weng_qp *qp, uint8_t event);
struct weng_rwqe *weng_qp_rwqe(struct weng *e, struct weng_qp *qp,
			       uint32_t slot);
struct wren_rq_wqe *weng_rq_entry(struct weng *e, const struct weng_qp *qp,
				  uint32_t slot);

/* weng_resp.c: responder entries of one-sided operations. */
int weng_resp_init(struct weng *e);
void weng_resp_fini(struct weng *e);
void weng_resp_reset(struct weng *e);
enum wren_tp_status weng_resp_begin(struct weng *e, struct weng_qp *qp,
				    const struct wren_tp_peer *peer,
				    const struct wren_tp_msg *m, uint32_t len,
				    uint8_t need, uint64_t *cookie);
void weng_resp_free(struct weng *e, struct weng_resp *r);
uint64_t weng_resp_cookie(const struct weng *e, const struct weng_resp *r);
struct weng_resp *weng_resp_of_cookie(struct weng *e, uint64_t cookie);
struct weng_qp *weng_resp_qp(struct weng *e, const struct weng_resp *r);

/* weng_counter.c: counters per QP and counter sets. */
#define WENG_STATS_TOTALS	UINT32_MAX	/* weng_counter_read(): no set */
int weng_counter_init(struct weng *e);
void weng_counter_reset(struct weng *e);
void weng_counter_fini(struct weng *e);
void weng_counter_qp_new(struct weng *e, uint32_t qpn);
int weng_counter_alloc(struct weng *e, uint32_t *set);
int weng_counter_free(struct weng *e, uint32_t set);
int weng_counter_bind(struct weng *e, struct weng_qp *qp, uint32_t set);
int weng_counter_read(struct weng *e, uint32_t set, uint64_t *v);

/* weng_rc.c: the stream of an RC QP. */
int weng_rc_alloc(struct weng_qp *qp);
void weng_rc_clear(struct weng *e, struct weng_qp *qp, bool attrs);
enum wren_tp_status weng_rc_admit(const struct weng_qp *qp,
				  const struct wren_tp_peer *peer,
				  const struct wren_tp_msg *m);
void weng_rc_take(struct weng_qp *qp, uint32_t psn, uint32_t what);
void weng_rc_whole(struct weng_qp *qp, uint32_t psn, bool ok);
bool weng_rc_next(struct weng_qp *qp, uint32_t *what);

/* weng_tc.c: the transport-context table in host memory. */
uint8_t weng_tc_min_log(const struct weng *e);
int weng_tc_attach(struct weng *e, uint64_t base, uint8_t log_entries);

/* weng_send.c: send queues at work. */
int weng_send_init(struct weng *e);
void weng_send_fini(struct weng *e);
void weng_send_reset(struct weng *e);
void weng_sq_kick(struct weng *e, struct weng_qp *qp);
uint8_t weng_sq_take(struct weng *e, struct weng_qp *qp, uint32_t slot);
void weng_sq_fail(struct weng *e, struct weng_qp *qp, uint8_t status);
void weng_sq_resume(struct weng *e);
int weng_send_tx_read(struct weng *e, uint64_t cookie, uint32_t off,
		      void *buf, uint32_t len);
void weng_send_tx_done(struct weng *e, uint64_t cookie,
		       enum wren_tp_status st);

/* weng_eth.c: the Ethernet function (WREN_QPT_RAW_ETH). */
int weng_eth_init(struct weng *e);
void weng_eth_reset(struct weng *e);
void weng_eth_fini(struct weng *e);
struct weng_qp *weng_eth_qp(struct weng *e);
bool weng_eth_takes(struct weng *e, const void *frame, size_t len);
void weng_eth_rx(struct weng *e, const void *frame, size_t len);
size_t weng_eth_tx_pull(struct weng *e, void *frame, size_t cap);

/* weng_read.c: RDMA READ, both sides. */
int weng_read_init(struct weng *e);
void weng_read_fini(struct weng *e);
void weng_read_reset(struct weng *e);
bool weng_read_may_post(const struct weng *e, const struct weng_qp *qp);
void weng_read_post(struct weng_qp *qp, uint32_t slot, uint32_t dst_ipv4,
		    struct wren_tp_msg *m);
void weng_read_req_done(struct weng *e, struct weng_qp *qp,
			struct weng_swqe *sw, enum wren_tp_status st);
enum wren_tp_status weng_read_resp_begin(struct weng *e,
					 const struct wren_tp_peer *peer,
					 const struct wren_tp_msg *m,
					 uint64_t *cookie);
int weng_read_resp_write(struct weng *e, uint64_t cookie, uint32_t off,
			 const void *buf, uint32_t len);
void weng_read_resp_done(struct weng *e, uint64_t cookie,
			 enum wren_tp_status st);
void weng_read_req_arrived(struct weng *e, struct weng_resp *r,
			   enum wren_tp_status st);
void weng_read_execute(struct weng *e, struct weng_resp *r);
int weng_read_answer_tx_read(struct weng *e, uint64_t cookie, uint32_t off,
			     void *buf, uint32_t len);
void weng_read_answer_tx_done(struct weng *e, uint64_t cookie,
			      enum wren_tp_status st);
void weng_read_flush(struct weng *e);

/* weng_recv.c: messages that take a receive entry. */
enum wren_tp_status weng_recv_begin(struct weng *e, struct weng_qp *qp,
				    const struct wren_tp_peer *peer,
				    const struct wren_tp_msg *m,
				    uint64_t *cookie);
int weng_recv_write(struct weng *e, uint64_t cookie, uint32_t off,
		    const void *buf, uint32_t len);
void weng_recv_done(struct weng *e, uint64_t cookie, enum wren_tp_status st);
bool weng_recv_execute(struct weng *e, struct weng_qp *qp, uint32_t slot);

/* weng_write.c: RDMA WRITE and WRITE with immediate, the responder. */
int weng_write_place(struct weng *e, struct weng_resp *r, uint32_t off,
		     const void *buf, uint32_t len);
void weng_write_done(struct weng *e, struct weng_resp *r,
		     enum wren_tp_status st);
bool weng_write_execute(struct weng *e, struct weng_resp *r);
enum wren_tp_status weng_write_imm_begin_rc(struct weng *e, struct weng_qp *qp,
					    const struct wren_tp_peer *peer,
					    const struct wren_tp_msg *m,
					    uint64_t *cookie);

/* weng_atomic.c: atomics at the responder. */
int weng_atomic_place(struct weng_resp *r, uint32_t off, const void *buf,
		      uint32_t len);
void weng_atomic_execute(struct weng *e, struct weng_resp *r);

/* weng_ulp.c: the transport's upper layer. */
extern const struct wren_tp_ulp_ops weng_ulp_ops;

/* weng_wire.c: the adapter's wire. */
int weng_wire_start(struct weng *e);
void weng_wire_stop(struct weng *e);

/* weng_doorbell.c: the doorbell BAR. */
int weng_db_init(struct weng *e);
void weng_db_fini(struct weng *e);
void weng_db_reset(struct weng *e);
bool weng_db_alloc(struct weng *e, uint32_t page, unsigned int n,
		   const enum weng_db_kind *kind, uint32_t obj,
		   uint16_t *slot);
void weng_db_free(struct weng *e, uint32_t page, uint16_t slot);

/* weng_cmd.c: admin commands, by opcode. */
struct wren_admin_cmd;
struct weng_cmd_status {
	uint8_t status;
	uint32_t ext_status;
	uint32_t result[4];
};
void weng_cmd_execute(struct weng *e, const struct wren_admin_cmd *cmd,
		      struct weng_cmd_status *st);

/* weng_admin.c: the admin queue. */
int weng_admin_init(struct weng *e);
void weng_admin_fini(struct weng *e);
void weng_admin_reset(struct weng *e);
void weng_admin_doorbell(struct weng *e, uint16_t tail);

#endif /* WENG_INTERNAL_H */
