/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren transport internals shared by the tp_*.c files.  The host and
 * the upper layer see only wren_tp.h.
 *
 * Vocabulary (Documentation/transport.rst): the initiator owns a
 * transport context ("ctx") per (target address, send-queue class) and
 * sends DATA; the target keeps a receive context ("rx") per initiator
 * context and answers with ACK, NACK and GRANT.  One adapter is both.
 */
#ifndef TP_INTERNAL_H
#define TP_INTERNAL_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "wren_compat.h"
#include "linux/wren/wren_wire.h"
#include "wren_tp.h"

#define TP_MAX_WINDOW		WREN_WIRE_MAX_WINDOW
#define TP_MSN_WINDOW		256	/* messages in progress per context */
#define TP_CTL_RING_MAX		256	/* queued NACK/CLOSE/CONNECT_ACK */
#define TP_UD_RING_MAX		256	/* datagrams waiting for the wire */
#define TP_NONE			UINT32_MAX
#define TP_MAX_BACKOFF		10	/* retransmit timeout doublings */
#define TP_CONGESTED_SAMPLES	16	/* before a congested path is left */
#define TP_ECHO_ASK		8	/* acked unechoed: ask for an echo */
#define TP_ECHO_LATE		4	/* acked past the ask: no way back */

/* IP precedence of a packet with cfg.prio_short (wren_tp.h). */
#define TP_PREC_GRANTED		1
#define TP_PREC_UNSCHED		2
#define TP_PREC_SHORT		3
#define TP_PREC_CTRL		4
#define TP_DATA_PRECS		(TP_PREC_SHORT + 1)	/* DATA's: 0 to 3 */

/* Serial-number arithmetic on 32 bits (RFC 1982). */
static inline bool seq_lt(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) < 0;
}

static inline bool seq_le(uint32_t a, uint32_t b)
{
	return (int32_t)(a - b) <= 0;
}

static inline uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/*
 * The hash of a peer's address and a 32-bit number, for the contexts
 * (by class) and the receive states (by the peer's context).
 */
static inline uint32_t tp_peer_hash(uint32_t ipv4, uint32_t id)
{
	uint32_t x = ipv4 * 0x9e3779b1U ^ id * 0x85ebca77U;

	return x ^ x >> 15;
}

/* Count a frame dropped because of @why: rx_drop_<why>, and rx_drops. */
#define TP_DROP(tp, why)	((tp)->stats.rx_drop_##why++, \
				 (tp)->stats.rx_drops++)

/* The bytes of @field of wire structure @type at @base. */
#define TP_FIELD(base, type, field)	((base) + offsetof(struct type, field))

/* A deadline in the transport's timer heap; TP_NONE: not queued. */
struct tp_timer {
	uint64_t deadline;
	uint32_t heap_idx;
	bool rx;		/* owner: struct tp_rx (else struct tp_ctx) */
};

/* Doubly linked list, for the ready, idle and ack lists. */
struct tp_link {
	struct tp_link *prev, *next;
};

static inline void tp_list_init(struct tp_link *head)
{
	head->prev = head->next = head;
}

static inline bool tp_linked(const struct tp_link *l)
{
	return l->next != NULL;
}

static inline void tp_list_add_tail(struct tp_link *head, struct tp_link *l)
{
	l->prev = head->prev;
	l->next = head;
	head->prev->next = l;
	head->prev = l;
}

static inline void tp_list_add(struct tp_link *head, struct tp_link *l)
{
	l->next = head->next;
	l->prev = head;
	head->next->prev = l;
	head->next = l;
}

static inline void tp_list_del(struct tp_link *l)
{
	l->prev->next = l->next;
	l->next->prev = l->prev;
	l->prev = l->next = NULL;
}

static inline bool tp_list_empty(const struct tp_link *head)
{
	return head->next == head;
}

#define tp_container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* ------------------------------------------------------------------ */
/* Initiator side                                                      */
/* ------------------------------------------------------------------ */

/* A message posted by the upper layer. */
struct tp_msg {
	struct tp_msg *next;		/* context queue or waiting list */
	uint64_t cookie;
	struct wren_tp_msg m;
	struct wren_tp_dest dst;	/* while waiting for a context */
	uint32_t msn;
	uint32_t next_off;		/* first byte not yet segmented */
	uint32_t granted;		/* bytes the target allows */
	uint32_t unacked;		/* segments in the window */
	bool needs_grant;
	bool req_sent;
	bool started;			/* a first segment was built */
	bool done;			/* tx_done called */
};

/* Per-packet state in the initiator's window. */
enum tp_pkt_state {
	TP_PKT_FREE = 0,
	TP_PKT_INFLIGHT,
	TP_PKT_LOST,			/* queued for retransmission */
	TP_PKT_ACKED,			/* or abandoned */
};

struct tp_pkt {
	struct tp_msg *msg;
	uint32_t offset;
	uint32_t len;
	uint64_t sent_ns;
	uint32_t sent_ts;		/* wire timestamp of the last copy */
	uint32_t sf_seq;		/* sequence within its sub-flow */
	uint8_t sf;
	uint8_t state;
	uint8_t timeouts;		/* consecutive, of this packet */
	uint8_t cause;			/* enum wren_tp_retx_cause when LOST */
	bool req;			/* a GRANT_REQ segment */
	bool resent;			/* more than one copy has been sent */
};

/* One path of a context (Documentation/transport.rst, "Multipath"). */
struct tp_subflow {
	uint16_t entropy;
	uint16_t backoff;		/* consecutive timeouts */
	uint32_t next_seq;		/* sf_seq of the next transmission */
	uint32_t head_seq;		/* oldest transmission not resolved */
	/*
	 * The highest sf_seq acknowledged + 1, by the precedence of the
	 * packets it speaks for (ack_one()): a packet counts for those
	 * as urgent as it or more.  A more urgent one overtakes them in the
	 * switches' queues (cfg.prio_short) and says nothing of their path.
	 */
	uint32_t highest_acked[TP_DATA_PRECS];
	uint32_t repath_seq;		/* first sf_seq on the current path */
	uint32_t highest_acked_old[TP_DATA_PRECS]; /* before it */
	uint32_t inflight;
	uint32_t congested;		/* consecutive congested samples */
	/*
	 * Its way back (tp_sf_ask_way_back(), tp_sf_judge_way_back()):
	 * packets acknowledged since an ACK last came back along its path,
	 * and the ask for one (an ACK_REQ on sf_seq ask_seq) with the
	 * packets sent after it and acknowledged since.
	 */
	uint32_t unechoed;
	uint32_t ask_seq;
	uint32_t past_ask;
	bool asking;
	uint64_t srtt_ns, rttvar_ns, min_rtt_ns;	/* 0: no sample yet */
	uint64_t qdelay_ns;		/* of the latest sample */
	uint64_t rto_deadline;		/* 0: not armed */
	uint64_t echo_ns;		/* an ACK last came back along its path,
					 * 0: none on this path */
	uint16_t *ring;			/* window index by sf_seq, 2 * window */

	/* Congestion control (tp_cc.c). */
	uint32_t cwnd;
	uint32_t inflight_bytes;
	bool cwnd_limited;		/* the window held a packet back */
	uint64_t last_decrease_ns;
};

enum tp_ctx_state {
	TP_CTX_FREE = 0,
	TP_CTX_CONNECTING,		/* handshake: CONNECT sent */
	TP_CTX_SYN,			/* optimistic: DATA carries SYN */
	TP_CTX_ESTABLISHED,
};

struct tp_ctx {
	uint32_t id;			/* on the wire: the slot, or the record */
	uint32_t hnext;			/* (ipv4, class) hash chain, by slot */
	uint32_t inext;			/* id hash chain, by slot */
	uint8_t state;
	uint8_t mode;
	bool answered;			/* the target answered this context */
	uint64_t answered_ns;		/* when it last did */
	/*
	 * When the newest packet acknowledged in its first copy was sent,
	 * by precedence as tp_subflow.highest_acked: a packet sent before
	 * it and still out has been overtaken (tp_sf_overtaken()).
	 */
	uint64_t acked_sent_ns[TP_DATA_PRECS];
	bool need_connect;
	uint32_t ipv4;
	uint8_t mac[6];
	uint32_t class_id;
	uint32_t epoch;
	uint32_t session;		/* the target's id, or WREN_WIRE_CTX_NONE */
	struct tp_timer timer;
	struct tp_link ready;		/* has something to send */
	struct tp_link idle;		/* LRU of idle contexts */
	uint64_t idle_since;
	uint64_t connect_deadline;
	uint32_t connect_tries;
	/*
	 * A message waits for grants with nothing in flight: unless one
	 * comes by this deadline, it asks again (tp_ctx_timer()).
	 */
	uint64_t grant_deadline;	/* 0: not armed */
	/*
	 * GRANT_REQs resent since the target last answered (any GRANT:
	 * the context fails above cfg.max_retries), and since the grant
	 * last moved (the backoff: a target that keeps the message waiting
	 * behind shorter ones is asked less and less often, not failed).
	 */
	uint32_t grant_probes;
	uint32_t grant_asks;

	/* Window: BSN oldest unacked, NSN next to assign. */
	uint32_t bsn, nsn;
	struct tp_pkt *win;		/* cfg.window entries while active */
	uint32_t *lost;			/* retransmission FIFO of PSNs, 2 x */
	uint32_t lost_head, lost_tail;
	uint32_t sf_rr;
	struct tp_subflow *sf;		/* cfg.subflows */

	/* What sub-flows learnt, kept across idle periods. */
	uint64_t base_rtt_ns;		/* shortest RTT of any sub-flow */
	uint64_t srtt_hint;
	uint32_t cwnd_hint;

	/* Messages in posting order; msn_base: oldest not done. */
	struct tp_msg *msgs, *msgs_tail;
	uint32_t next_msn;
};

/* ------------------------------------------------------------------ */
/* Target side                                                          */
/* ------------------------------------------------------------------ */

/* A message being received. */
struct tp_rx_msg {
	struct tp_rx_msg *next;		/* free list */
	struct tp_link grant;		/* waiting for grants */
	uint64_t cookie;
	struct wren_tp_msg m;
	uint32_t msn;
	uint32_t received;		/* payload bytes placed */
	uint32_t granted;
	uint64_t progress_ns;		/* last grant sent or data placed */
	uint32_t regrants;		/* grants resent since data came */
	bool grant_mode;		/* its bytes come only as granted */
	bool regrant;			/* send the current grant again */
	bool complete;			/* ordered, waiting for its turn */
	struct tp_rx *rx;
};

enum tp_rx_state {
	TP_RX_FREE = 0,
	TP_RX_ACTIVE,
	TP_RX_TIME_WAIT,		/* closed; remembers its epoch for MPL */
};

struct tp_rx {
	uint32_t id;
	uint32_t gen;			/* high bits of the session id */
	uint32_t hnext;
	uint8_t state;
	uint32_t ipv4;			/* the initiator */
	uint8_t mac[6];
	uint16_t sport;			/* GRANTs' path: the latest data's */
	uint32_t src_ctx;
	uint32_t epoch;
	struct tp_timer timer;
	struct tp_link ack;		/* an ACK is due */
	uint64_t last_rx_ns;
	uint64_t expire_ns;		/* TIME_WAIT end, or next idle check */
	uint64_t ack_deadline;		/* 0: none */
	uint64_t grant_check;		/* 0: none */
	bool connect_ack;		/* a CONNECT_ACK is due */

	/* Window: bsn next expected; bits indexed by PSN mod window. */
	uint32_t bsn;
	uint32_t highest;		/* highest PSN received + 1 */
	uint64_t *bits;
	uint32_t unacked;
	uint32_t ack_psn, ack_ts;
	uint16_t ack_sport;
	bool ack_twice;		/* the next ACK again, on a fresh path */
	uint8_t ack_sf;
	uint64_t ack_arrival_ns;
	uint32_t ce;

	/* Messages: msn_base oldest not done; per slot (msn mod window). */
	uint32_t msn_base;
	struct tp_rx_msg **slot;
	uint64_t *msn_done;		/* done bits by msn mod window */
	uint8_t *msn_status;		/* enum wren_wire_status, 0 = ok */
	uint32_t *msn_tag;		/* msn of the status slot */
	uint32_t inprogress;
};

/* ------------------------------------------------------------------ */
/* Peers' shares of the pools (tp_peer.c)                               */
/* ------------------------------------------------------------------ */

/* The pools a peer's share limits. */
enum tp_pool {
	TP_POOL_TX_MSGS,		/* our messages to it, posted */
	TP_POOL_RX_CTX,			/* receive contexts of its contexts */
	TP_POOL_RX_MSGS,		/* its messages being received */
	TP_POOL_COUNT,
};

/* What one peer holds; an entry with nothing held is free. */
struct tp_peer {
	uint32_t ipv4;
	uint32_t held[TP_POOL_COUNT];
};

/* ------------------------------------------------------------------ */
/* Queued control packets: their fields, not a reference to a context. */
/* ------------------------------------------------------------------ */

struct tp_ctl {
	uint8_t type;
	uint8_t reason;
	uint8_t status;
	uint8_t sf;
	uint32_t ipv4;
	uint8_t mac[6];
	uint16_t sport;
	uint32_t src_ctx, dst_ctx, epoch, psn, bsn, ts, msn;
	uint32_t window;
	uint32_t granted;		/* GRANT: the offset granted */
	uint8_t mode;
};

/* A received frame, decoded and checked (tp_wire.c). */
struct tp_rx_pkt {
	uint32_t src_ip, dst_ip;
	uint8_t src_mac[6];
	uint16_t sport, dport;
	bool ce;
	uint8_t type, flags, sf;
	uint32_t src_ctx, dst_ctx, epoch, psn, bsn, ts, mbase;
	union {
		struct {
			struct wren_tp_msg m;
			uint32_t msn, offset;
			uint8_t msg_flags;
			const uint8_t *payload;
			uint32_t len;
		} data;
		struct {
			uint32_t hold_ns;
			uint16_t ce_count;
			uint8_t words;
			const uint8_t *bitmap;	/* big-endian 64-bit words */
		} ack;
		struct {
			uint8_t reason, status;
			uint32_t msn;
		} nack;
		struct {
			uint8_t mode;
			uint32_t window;
		} conn;
		struct {
			uint32_t msn, granted;
		} grant;
	};
};

/* What a frame to build says (tp_wire.c). */
struct tp_tx_pkt {
	uint32_t dst_ip;
	const uint8_t *dst_mac;
	uint16_t sport;
	bool ect;
	uint8_t prec;			/* DATA: TP_PREC_*, with cfg.prio_short */
	uint8_t type, flags, sf;
	uint32_t src_ctx, dst_ctx, epoch, psn, bsn, ts, mbase;
};

/* A datagram waiting for the wire. */
struct tp_ud {
	uint32_t ipv4;
	uint8_t mac[6];
	struct wren_tp_msg m;
	uint64_t cookie;
};

struct wren_tp {
	struct wren_tp_config cfg;
	const struct wren_tp_env_ops *env;
	void *env_opaque;
	const struct wren_tp_ulp_ops *ulp;
	void *ulp_opaque;
	void *timer;			/* the one host timer */
	uint64_t timer_armed;		/* its deadline, 0: none */
	bool in_timer;

	struct tp_ctx *ctx;		/* cfg.max_ctx slots: the cache */
	uint32_t *ctx_hash;		/* by (ipv4, class) */
	uint32_t *id_hash;		/* by wire id */
	uint32_t ctx_hash_mask;		/* of both */
	uint32_t ctx_free;		/* free list through hnext */
	uint32_t ctx_used;
	struct tp_link ready;
	struct tp_link idle;
	uint32_t *epochs;		/* next epoch per slot, without a store */
	const struct wren_tp_store_ops *store;	/* the table, if any */
	void *store_opaque;
	uint32_t store_mask;		/* its entries - 1 */

	struct tp_rx *rx;		/* cfg.max_rx_ctx */
	uint32_t *rx_hash;
	uint32_t rx_hash_mask;
	uint32_t rx_free;
	uint32_t rx_used;
	struct tp_link acks;
	uint64_t rx_idle_ns;		/* an rx context is forgotten after */

	struct tp_msg *msg_pool, *msg_free;
	struct tp_msg *waiting, *waiting_tail;	/* for a context */
	struct tp_rx_msg *rx_msg_pool, *rx_msg_free;

	struct tp_peer *peers;		/* open addressing, by address */
	uint32_t peers_mask;
	uint32_t peer_max[TP_POOL_COUNT];	/* a peer's share of each */

	struct tp_link grants;		/* messages waiting for grants */
	uint32_t granted_out;		/* granted and not received */

	struct tp_ctl *ctl;		/* ctl_size entries, a power of two */
	uint32_t ctl_size;

	struct tp_ud *ud;		/* ud_size entries, a power of two */
	uint32_t ud_size;
	uint32_t ud_head, ud_tail;
	bool ud_turn;			/* datagrams go next, not contexts */
	uint32_t ctl_head, ctl_tail;

	struct tp_timer **heap;
	uint32_t heap_len;

	size_t active_bytes;		/* windows and rings of contexts */
	struct wren_tp_stats stats;
	/* Per queue-pair number, the upper layer's (wren_tp_set_accounts()). */
	struct wren_tp_stats *acct;
	uint32_t acct_n;
};

/*
 * The IP precedence @p leaves with (TP_PREC_*; 0 without cfg.prio_short).
 * By message, not by packet, so that the packets of one message never
 * overtake each other in the switches' queues.
 */
static inline uint8_t tp_pkt_prec(const struct wren_tp *tp,
				  const struct tp_pkt *p)
{
	if (!tp->cfg.prio_short)
		return 0;
	if (p->req || p->msg->m.len <= tp->cfg.prio_short)
		return TP_PREC_SHORT;
	return p->msg->needs_grant ? TP_PREC_GRANTED : TP_PREC_UNSCHED;
}

/*
 * Count @n events of QP-scope @counter (linux/wren/wren_stats.h): in the
 * totals, and in the account of the queue pair @qpn of this adapter if
 * the upper layer keeps one.  A number from the wire is the peer's word
 * only, so it is bounded, not trusted: at worst it charges a wrong QP.
 */
#define TP_COUNT_QP(tp, qpn, counter, n)	do {			\
	struct wren_tp *tp_ = (tp);					\
	uint32_t qpn_ = (qpn);						\
	uint64_t n_ = (n);						\
									\
	tp_->stats.counter += n_;					\
	if (qpn_ < tp_->acct_n)						\
		tp_->acct[qpn_].counter += n_;				\
} while (0)

/*
 * The files, lowest layer first; each calls only the ones above it in
 * this list, except the two pairs that call each other (tp_ctx.c and
 * tp_send.c, tp_rx.c and tp_grant.c).
 */

/* tp_base.c: clock, the wire's kick, deadlines, the control ring. */
uint64_t tp_now(struct wren_tp *tp);
uint16_t tp_random_entropy(struct wren_tp *tp);
void tp_kick(struct wren_tp *tp);
void tp_timer_set(struct wren_tp *tp, struct tp_timer *t, uint64_t deadline);
struct tp_timer *tp_timer_pop_due(struct wren_tp *tp, uint64_t now);
void tp_timer_rearm(struct wren_tp *tp);
bool tp_ctl_push(struct wren_tp *tp, const struct tp_ctl *c);
void tp_count_error(struct wren_tp *tp, uint32_t qpn, enum wren_tp_status st);
void tp_count_retx(struct wren_tp *tp, uint32_t qpn,
		   enum wren_tp_retx_cause cause, uint32_t n);

/* tp_peer.c: what each peer holds of the shared pools. */
int tp_peer_init(struct wren_tp *tp);
void tp_peer_free_table(struct wren_tp *tp);
bool tp_peer_take(struct wren_tp *tp, uint32_t ipv4, enum tp_pool pool);
void tp_peer_put(struct wren_tp *tp, uint32_t ipv4, enum tp_pool pool);

/* tp_wire.c: frames in and out. */
int tp_parse(const uint8_t *f, size_t len, struct tp_rx_pkt *p);
size_t tp_data_ext_len(uint8_t opcode);
void tp_put_data(uint8_t *x, const struct wren_tp_msg *m, uint32_t msn,
		 uint32_t offset, uint8_t msg_flags);
bool tp_msg_valid(const struct wren_tp_msg *m);
size_t tp_build(const struct wren_tp *tp, uint8_t *f, const struct tp_tx_pkt *h,
		size_t ext_len, size_t payload_len);
uint8_t *tp_ext(uint8_t *f);

/* tp_table.c: the context cache and the table behind it. */
int tp_ctx_init_table(struct wren_tp *tp);
void tp_ctx_free_table(struct wren_tp *tp);
struct tp_ctx *tp_ctx_find(struct wren_tp *tp, uint32_t ipv4,
			   uint32_t class_id);
struct tp_ctx *tp_ctx_by_id(struct wren_tp *tp, uint32_t id);
bool tp_ctx_room(const struct wren_tp *tp);
struct tp_ctx *tp_ctx_take(struct wren_tp *tp, uint32_t id, uint32_t ipv4,
			   uint32_t class_id);
void tp_ctx_put(struct wren_tp *tp, struct tp_ctx *c);
int tp_tc_claim(struct wren_tp *tp, const struct wren_tp_dest *d, uint32_t *id,
		struct wren_tp_ctx_rec *rec, struct tp_ctx **owner);
void tp_tc_hold(struct wren_tp *tp, const struct tp_ctx *c);
bool tp_tc_spill(struct wren_tp *tp, const struct tp_ctx *c);
void tp_tc_release(struct wren_tp *tp, const struct tp_ctx *c);

/* tp_cc.c: congestion control of one sub-flow. */
void tp_cc_init(struct wren_tp *tp, struct tp_ctx *c, struct tp_subflow *s);
void tp_cc_on_ack(struct wren_tp *tp, struct tp_subflow *s,
		  uint32_t acked_bytes, uint32_t ce, uint32_t acked_pkts);
void tp_cc_on_loss(struct wren_tp *tp, struct tp_subflow *s);
void tp_cc_on_timeout(struct wren_tp *tp, struct tp_subflow *s);
struct tp_cc_totals {
	uint64_t cwnd, inflight;
};
void tp_cc_totals(const struct wren_tp *tp, const struct tp_ctx *c,
		  struct tp_cc_totals *t);
bool tp_cc_allows(const struct tp_subflow *s, uint32_t charge,
		  const struct tp_cc_totals *t);
uint32_t tp_cc_charge(uint32_t payload_len);

/* tp_path.c: sub-flows, their paths and retransmission timers. */
size_t tp_win_bytes(const struct wren_tp *tp);
int tp_ctx_activate(struct wren_tp *tp, struct tp_ctx *c);
void tp_ctx_deactivate(struct wren_tp *tp, struct tp_ctx *c);
uint64_t tp_sf_rto(const struct wren_tp *tp, const struct tp_ctx *c,
		   const struct tp_subflow *s, unsigned int backoff);
struct tp_msg *tp_grant_stalled(const struct wren_tp *tp,
				const struct tp_ctx *c);
void tp_ctx_timer_update(struct wren_tp *tp, struct tp_ctx *c);
void tp_sf_pop_settled(struct wren_tp *tp, struct tp_ctx *c, uint32_t sfi);
uint32_t tp_pick_subflow(struct wren_tp *tp, struct tp_ctx *c,
			 uint32_t avoid, uint32_t charge);
void tp_mark_lost(struct wren_tp *tp, struct tp_ctx *c, uint32_t psn,
		  enum wren_tp_retx_cause cause);
uint32_t tp_slot_psn(const struct wren_tp *tp, const struct tp_ctx *c,
		     uint32_t idx);
void tp_rtt_sample(struct tp_ctx *c, struct tp_subflow *s, uint64_t rtt);
void tp_sf_repath(struct wren_tp *tp, struct tp_ctx *c, struct tp_subflow *s);
void tp_sf_came_back(struct tp_subflow *s, uint64_t now);
bool tp_sf_ask_way_back(const struct wren_tp *tp, struct tp_subflow *s,
			uint32_t seq);
void tp_sf_judge_way_back(struct wren_tp *tp, struct tp_ctx *c,
			  struct tp_subflow *s);
void tp_sf_judge_path(struct wren_tp *tp, struct tp_ctx *c,
		      struct tp_subflow *s, uint32_t ce);
void tp_sf_overtaken(struct wren_tp *tp, struct tp_ctx *c);
uint32_t tp_proven_subflow(struct wren_tp *tp, struct tp_ctx *c,
			   uint32_t lost, uint32_t pick);
bool tp_sf_timeout(struct wren_tp *tp, struct tp_ctx *c, uint32_t sfi);

/* tp_ctx.c: contexts' life cycle and their messages. */
void tp_msg_finish(struct wren_tp *tp, struct tp_ctx *c, struct tp_msg *m,
		   enum wren_tp_status status);
void tp_ctx_advance_bsn(struct wren_tp *tp, struct tp_ctx *c);
void tp_ctx_evict(struct wren_tp *tp, struct tp_ctx *c);
void tp_ctx_begin(struct wren_tp *tp, struct tp_ctx *c);
void tp_ctx_idle_check(struct wren_tp *tp, struct tp_ctx *c);
void tp_ctx_timer(struct wren_tp *tp, struct tp_ctx *c);
void tp_ctx_destroy(struct wren_tp *tp);

/* tp_send.c: segmentation and transmission. */
void tp_tx_update_ready(struct wren_tp *tp, struct tp_ctx *c);
size_t tp_tx_pull_ctx(struct wren_tp *tp, struct tp_ctx *c, uint8_t *f);
uint32_t tp_tx_rank(const struct wren_tp *tp, struct tp_ctx *c);

/* tp_ack.c: the targets' answers. */
void tp_on_ack(struct wren_tp *tp, const struct tp_rx_pkt *p);
void tp_on_nack(struct wren_tp *tp, const struct tp_rx_pkt *p);
void tp_on_connect_ack(struct wren_tp *tp, const struct tp_rx_pkt *p);
void tp_on_grant(struct wren_tp *tp, const struct tp_rx_pkt *p);

/* tp_rx.c: the target. */
int tp_rx_init_table(struct wren_tp *tp);
void tp_rx_data(struct wren_tp *tp, const struct tp_rx_pkt *p);
void tp_rx_connect(struct wren_tp *tp, const struct tp_rx_pkt *p);
void tp_rx_close(struct wren_tp *tp, const struct tp_rx_pkt *p);
size_t tp_rx_pull_ack(struct wren_tp *tp, struct tp_rx *rx, uint8_t *f);
void tp_rx_timer(struct wren_tp *tp, struct tp_rx *rx);
void tp_rx_timer_update(struct wren_tp *tp, struct tp_rx *rx);
void tp_rx_destroy(struct wren_tp *tp);
size_t tp_rx_state_bytes(const struct wren_tp *tp);
void tp_rx_msg_give_up(struct wren_tp *tp, struct tp_rx_msg *rm,
		       enum wren_tp_status st);

/* tp_grant.c: the target's grant scheduler. */
void tp_grant_add(struct wren_tp *tp, struct tp_rx_msg *rm);
void tp_grant_remove(struct wren_tp *tp, struct tp_rx_msg *rm);
void tp_grant_received(struct wren_tp *tp, struct tp_rx_msg *rm,
		       uint32_t bytes);
void tp_grant_again(struct wren_tp *tp, struct tp_rx_msg *rm);
size_t tp_grant_pull(struct wren_tp *tp, uint8_t *f);
void tp_grant_check(struct wren_tp *tp, struct tp_rx *rx);

/* tp_ud.c: unreliable datagrams. */
size_t tp_ud_pull(struct wren_tp *tp, uint8_t *f);
void tp_ud_rx(struct wren_tp *tp, const struct tp_rx_pkt *p);

#endif /* TP_INTERNAL_H */
