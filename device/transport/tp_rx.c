// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport, target side: receive contexts, the RX window with its
 * sequence-number bitmap, exactly-once placement, message reassembly and
 * optional in-order completion (the reorder engine), coalesced
 * acknowledgements and NACKs (Documentation/transport.rst,
 * "Reliability" and "Messages and delivery").
 *
 * A receive context is created by the first SYN packet (optimistic mode)
 * or CONNECT (handshake mode) of an incarnation of an initiator's context
 * and identified by the initiator's address, context id and epoch.  After
 * CLOSE it stays in TIME_WAIT for cfg.mpl_ns so that a delayed duplicate of
 * that incarnation cannot open it again; an idle context is forgotten only
 * when its initiator can no longer be retransmitting into it.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

#define SESSION_IDX		0x00ffffffU
#define SESSION_GEN_SHIFT	24

static uint32_t session_of(const struct tp_rx *rx)
{
	return rx->id | rx->gen << SESSION_GEN_SHIFT;
}

int tp_rx_init_table(struct wren_tp *tp)
{
	uint32_t n = 1;

	while (n < 2 * tp->cfg.max_rx_ctx)
		n <<= 1;
	tp->rx = calloc(tp->cfg.max_rx_ctx, sizeof(*tp->rx));
	tp->rx_hash = malloc(n * sizeof(*tp->rx_hash));
	if (!tp->rx || !tp->rx_hash)
		return -ENOMEM;
	tp->rx_hash_mask = n - 1;
	memset(tp->rx_hash, 0xff, n * sizeof(*tp->rx_hash));
	tp->rx_free = TP_NONE;
	for (uint32_t i = tp->cfg.max_rx_ctx; i--;) {
		tp->rx[i].id = i;
		tp->rx[i].timer.heap_idx = TP_NONE;
		tp->rx[i].timer.rx = true;
		tp->rx[i].hnext = tp->rx_free;
		tp->rx_free = i;
	}
	return 0;
}

/* Window bits, message slots, done bits, statuses and their tags. */
size_t tp_rx_state_bytes(const struct wren_tp *tp)
{
	return tp->cfg.window / 8 + TP_MSN_WINDOW / 8 +
	       TP_MSN_WINDOW * (sizeof(struct tp_rx_msg *) + sizeof(uint32_t) +
				sizeof(uint8_t));
}

static int rx_activate(struct wren_tp *tp, struct tp_rx *rx)
{
	uint8_t *mem = calloc(1, tp_rx_state_bytes(tp));

	if (!mem)
		return -ENOMEM;
	tp->active_bytes += tp_rx_state_bytes(tp);
	rx->bits = (uint64_t *)mem;
	mem += tp->cfg.window / 8;
	rx->msn_done = (uint64_t *)mem;
	mem += TP_MSN_WINDOW / 8;
	rx->slot = (struct tp_rx_msg **)mem;
	mem += TP_MSN_WINDOW * sizeof(*rx->slot);
	rx->msn_tag = (uint32_t *)mem;
	mem += TP_MSN_WINDOW * sizeof(*rx->msn_tag);
	rx->msn_status = mem;
	return 0;
}

static void rx_msg_free(struct wren_tp *tp, struct tp_rx_msg *rm)
{
	tp_peer_put(tp, rm->rx->ipv4, TP_POOL_RX_MSGS);
	tp_grant_remove(tp, rm);
	rm->rx->slot[rm->msn % TP_MSN_WINDOW] = NULL;
	rm->rx->inprogress--;
	rm->next = tp->rx_msg_free;
	tp->rx_msg_free = rm;
}

/* Give up every message in progress, telling the upper layer. */
static void rx_abandon(struct wren_tp *tp, struct tp_rx *rx,
		       enum wren_tp_status st)
{
	if (!rx->slot)
		return;
	for (uint32_t i = 0; i < TP_MSN_WINDOW && rx->inprogress; i++) {
		struct tp_rx_msg *rm = rx->slot[i];
		uint64_t cookie;
		uint32_t qpn;

		if (!rm)
			continue;
		cookie = rm->cookie;
		qpn = rm->m.dst_qpn;
		rx_msg_free(tp, rm);
		tp_count_error(tp, qpn, st);
		tp->ulp->rx_done(tp->ulp_opaque, cookie, st);
	}
}

/* Free @rx's state; messages still in progress end with @st. */
static void rx_deactivate(struct wren_tp *tp, struct tp_rx *rx,
			  enum wren_tp_status st)
{
	if (!rx->bits)
		return;
	rx_abandon(tp, rx, st);
	free(rx->bits);
	tp->active_bytes -= tp_rx_state_bytes(tp);
	rx->bits = NULL;
	rx->slot = NULL;
	rx->msn_done = NULL;
	rx->msn_tag = NULL;
	rx->msn_status = NULL;
}

void tp_rx_timer_update(struct wren_tp *tp, struct tp_rx *rx)
{
	uint64_t d = rx->expire_ns;

	if (rx->ack_deadline)
		d = min_u64(d, rx->ack_deadline);
	if (rx->grant_check)
		d = min_u64(d, rx->grant_check);
	tp_timer_set(tp, &rx->timer, d);
}

static void rx_free(struct wren_tp *tp, struct tp_rx *rx)
{
	uint32_t *pi = &tp->rx_hash[tp_peer_hash(rx->ipv4, rx->src_ctx) &
				    tp->rx_hash_mask];

	while (*pi != rx->id)
		pi = &tp->rx[*pi].hnext;
	*pi = rx->hnext;
	if (tp_linked(&rx->ack))
		tp_list_del(&rx->ack);
	rx->ack_deadline = rx->grant_check = rx->expire_ns = 0;
	tp_timer_set(tp, &rx->timer, 0);
	rx_deactivate(tp, rx, WREN_TP_REMOTE_UNRESPONSIVE);
	rx->state = TP_RX_FREE;
	tp_peer_put(tp, rx->ipv4, TP_POOL_RX_CTX);
	rx->hnext = tp->rx_free;
	tp->rx_free = rx->id;
	tp->rx_used--;
}

/* (Re)start @rx as the incarnation @p belongs to. */
static int rx_begin(struct wren_tp *tp, struct tp_rx *rx,
		    const struct tp_rx_pkt *p)
{
	uint64_t now = tp_now(tp);

	rx_abandon(tp, rx, WREN_TP_REMOTE_UNRESPONSIVE);
	if (!rx->bits && rx_activate(tp, rx))
		return -ENOMEM;
	memset(rx->bits, 0, tp_rx_state_bytes(tp));
	rx->state = TP_RX_ACTIVE;
	rx->gen = (rx->gen + 1) & 0xff;
	rx->epoch = p->epoch;
	memcpy(rx->mac, p->src_mac, sizeof(rx->mac));
	rx->sport = p->sport;
	rx->bsn = rx->highest = p->bsn;
	rx->msn_base = 0;
	rx->unacked = 0;
	rx->ce = 0;
	rx->connect_ack = false;
	rx->last_rx_ns = now;
	rx->expire_ns = now + tp->rx_idle_ns;
	rx->ack_deadline = rx->grant_check = 0;
	rx->ack_twice = false;
	tp_rx_timer_update(tp, rx);
	tp->stats.rx_ctx_created++;
	return 0;
}

static struct tp_rx *rx_find(struct wren_tp *tp, uint32_t ipv4,
			     uint32_t src_ctx)
{
	uint32_t h = tp_peer_hash(ipv4, src_ctx) & tp->rx_hash_mask;
	uint32_t i = tp->rx_hash[h];

	while (i != TP_NONE) {
		struct tp_rx *rx = &tp->rx[i];

		if (rx->ipv4 == ipv4 && rx->src_ctx == src_ctx)
			return rx;
		i = rx->hnext;
	}
	return NULL;
}

static struct tp_rx *rx_lookup(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	uint32_t idx = p->dst_ctx & SESSION_IDX;

	/* The session id is a shortcut; the key decides. */
	if (p->dst_ctx != WREN_WIRE_CTX_NONE && idx < tp->cfg.max_rx_ctx) {
		struct tp_rx *rx = &tp->rx[idx];

		if (rx->state != TP_RX_FREE &&
		    rx->gen == p->dst_ctx >> SESSION_GEN_SHIFT &&
		    rx->ipv4 == p->src_ip && rx->src_ctx == p->src_ctx)
			return rx;
	}
	return rx_find(tp, p->src_ip, p->src_ctx);
}

static void nack(struct wren_tp *tp, const struct tp_rx_pkt *p,
		 uint32_t session, uint8_t reason, uint8_t status)
{
	struct tp_ctl c = {
		.type = WREN_WIRE_NACK, .reason = reason, .status = status,
		.sf = p->sf, .ipv4 = p->src_ip, .sport = p->sport,
		.src_ctx = session, .dst_ctx = p->src_ctx, .epoch = p->epoch,
		.psn = p->psn, .ts = p->ts,
		.msn = p->type == WREN_WIRE_DATA ? p->data.msn : 0,
	};

	memcpy(c.mac, p->src_mac, sizeof(c.mac));
	tp_ctl_push(tp, &c);
}

/*
 * The receive context of @p's incarnation, created or replaced if @p may
 * open one (@opens: SYN or CONNECT); NULL if the packet is to be dropped.
 */
static struct tp_rx *rx_for(struct wren_tp *tp, const struct tp_rx_pkt *p,
			    bool opens)
{
	struct tp_rx *rx = rx_lookup(tp, p);
	uint64_t now = tp_now(tp);
	uint32_t h;

	if (rx && rx->epoch == p->epoch) {
		if (rx->state == TP_RX_ACTIVE)
			return rx;
		/* TIME_WAIT: a leftover of a closed incarnation. */
		TP_DROP(tp, stale);
		return NULL;
	}
	if (rx && !(seq_lt(rx->epoch, p->epoch) ||
		    now - rx->last_rx_ns > tp->cfg.mpl_ns)) {
		TP_DROP(tp, stale);
		return NULL;
	}
	if (!opens) {
		/* A newer incarnation we never saw open: make it reconnect. */
		TP_DROP(tp, unknown_ctx);
		nack(tp, p, WREN_WIRE_CTX_NONE, WREN_WIRE_NACK_UNKNOWN_CTX, 0);
		return NULL;
	}
	if (rx) {
		/* A newer incarnation replaces the old one. */
		if (rx_begin(tp, rx, p)) {
			rx_free(tp, rx);
			TP_DROP(tp, no_resources);
			return NULL;
		}
		return rx;
	}
	if (tp->rx_free == TP_NONE) {
		TP_DROP(tp, no_resources);
		return NULL;
	}
	if (!tp_peer_take(tp, p->src_ip, TP_POOL_RX_CTX)) {
		TP_DROP(tp, share);
		return NULL;
	}
	rx = &tp->rx[tp->rx_free];
	tp->rx_free = rx->hnext;
	tp->rx_used++;
	rx->ipv4 = p->src_ip;
	rx->src_ctx = p->src_ctx;
	h = tp_peer_hash(rx->ipv4, rx->src_ctx) & tp->rx_hash_mask;
	rx->hnext = tp->rx_hash[h];
	tp->rx_hash[h] = rx->id;
	if (rx_begin(tp, rx, p)) {
		rx_free(tp, rx);
		TP_DROP(tp, no_resources);
		return NULL;
	}
	return rx;
}

/* ------------------------------------------------------------------ */
/* Acknowledgements                                                     */
/* ------------------------------------------------------------------ */

static bool bit_test(const uint64_t *bits, uint32_t i)
{
	return bits[i / 64] >> (i % 64) & 1;
}

static void bit_set(uint64_t *bits, uint32_t i)
{
	bits[i / 64] |= 1ULL << (i % 64);
}

static void bit_clear(uint64_t *bits, uint32_t i)
{
	bits[i / 64] &= ~(1ULL << (i % 64));
}

static void ack_now(struct wren_tp *tp, struct tp_rx *rx)
{
	if (rx->ack_deadline) {
		rx->ack_deadline = 0;
		tp_rx_timer_update(tp, rx);
	}
	if (!tp_linked(&rx->ack)) {
		tp_list_add_tail(&tp->acks, &rx->ack);
		tp_kick(tp);
	}
}

/* 64 window bits for PSNs from @psn on (the window is a ring of bits). */
static uint64_t window_word(const struct wren_tp *tp, const struct tp_rx *rx,
			    uint32_t psn)
{
	uint32_t w = tp->cfg.window, pos = psn & (w - 1), sh = pos % 64;
	uint64_t lo = rx->bits[pos / 64];
	uint64_t hi = rx->bits[((pos / 64) + 1) % (w / 64)];

	return sh ? lo >> sh | hi << (64 - sh) : lo;
}

size_t tp_rx_pull_ack(struct wren_tp *tp, struct tp_rx *rx, uint8_t *f)
{
	uint64_t now = tp_now(tp);
	struct tp_tx_pkt h = {
		.dst_ip = rx->ipv4, .dst_mac = rx->mac, .sport = rx->ack_sport,
		.type = WREN_WIRE_ACK, .sf = rx->ack_sf,
		.src_ctx = session_of(rx), .dst_ctx = rx->src_ctx,
		.epoch = rx->epoch, .psn = rx->ack_psn, .bsn = rx->bsn,
		.ts = rx->ack_ts,
	};
	uint8_t *x = tp_ext(f);
	uint32_t beyond = rx->highest - rx->bsn, words = 0;

	tp_list_del(&rx->ack);
	if (rx->state != TP_RX_ACTIVE)
		return 0;
	if (rx->connect_ack) {
		rx->connect_ack = false;
		h.type = WREN_WIRE_CONNECT_ACK;
		memset(x, 0, sizeof(struct wren_wire_connect));
		*TP_FIELD(x, wren_wire_connect, mode) = WREN_WIRE_MODE_HANDSHAKE;
		wren_wire_put32(TP_FIELD(x, wren_wire_connect, window), tp->cfg.window);
		return tp_build(tp, f, &h, sizeof(struct wren_wire_connect), 0);
	}
	/* Bits for PSNs bsn + 1 up to the highest received. */
	if (beyond > 1 && beyond <= tp->cfg.window)
		words = (beyond - 1 + 63) / 64;
	for (uint32_t i = 0; i < words; i++) {
		uint32_t first = rx->bsn + 1 + 64 * i;
		uint64_t word = window_word(tp, rx, first);
		uint32_t valid = rx->highest - first;

		if (valid < 64)
			word &= (1ULL << valid) - 1;
		wren_wire_put64(x + sizeof(struct wren_wire_ack) + 8 * i, word);
	}
	wren_wire_put32(TP_FIELD(x, wren_wire_ack, hold_ns),
		 min_u64(now - rx->ack_arrival_ns, UINT32_MAX));
	wren_wire_put16(TP_FIELD(x, wren_wire_ack, ce_count), min_u64(rx->ce, UINT16_MAX));
	*TP_FIELD(x, wren_wire_ack, bitmap_words) = words;
	*TP_FIELD(x, wren_wire_ack, rsvd0) = 0;
	rx->unacked = 0;
	rx->ce = 0;
	if (rx->ack_deadline) {
		rx->ack_deadline = 0;
		tp_rx_timer_update(tp, rx);
	}
	tp->stats.tx_acks++;
	if (rx->ack_twice) {
		/* rx_duplicate(): the same news again, on a fresh path. */
		rx->ack_twice = false;
		rx->ack_sport = tp_random_entropy(tp);
		ack_now(tp, rx);
	}
	return tp_build(tp, f, &h, sizeof(struct wren_wire_ack) + 8 * words, 0);
}

/* Note @p for the next ACK, and decide when that ACK goes. */
static void ack_note(struct wren_tp *tp, struct tp_rx *rx,
		     const struct tp_rx_pkt *p, bool urgent)
{
	rx->ack_psn = p->psn;
	rx->ack_ts = p->ts;
	rx->ack_sf = p->sf;
	/* Back along the same path, so each sub-flow's RTT is its own. */
	rx->ack_sport = p->sport;
	rx->ack_arrival_ns = tp_now(tp);
	rx->ce += p->ce;
	if (p->ce)
		TP_COUNT_QP(tp, p->data.m.dst_qpn, rx_ecn_ce, 1);
	/*
	 * An ECN mark is acknowledged at once, so the ACK's echo names the
	 * marked packet's sub-flow: the initiator charges the mark to the
	 * window of the path that carried it.
	 */
	if (urgent || p->ce || p->flags & WREN_WIRE_F_ACK_REQ ||
	    ++rx->unacked >= tp->cfg.ack_every) {
		ack_now(tp, rx);
	} else if (!rx->ack_deadline && !tp_linked(&rx->ack)) {
		rx->ack_deadline = rx->ack_arrival_ns + tp->cfg.ack_delay_ns;
		tp_rx_timer_update(tp, rx);
	}
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */
/* ------------------------------------------------------------------ */

static void msn_set(struct tp_rx *rx, uint32_t msn, uint8_t status)
{
	uint32_t i = msn % TP_MSN_WINDOW;

	bit_set(rx->msn_done, i);
	rx->msn_tag[i] = msn;
	rx->msn_status[i] = status;
}

/* The reorder engine: hand over ordered messages in MSN order. */
static void rx_advance_msn(struct wren_tp *tp, struct tp_rx *rx)
{
	while (bit_test(rx->msn_done, rx->msn_base % TP_MSN_WINDOW)) {
		uint32_t i = rx->msn_base % TP_MSN_WINDOW;
		struct tp_rx_msg *rm = rx->slot[i];

		bit_clear(rx->msn_done, i);
		rx->msn_base++;
		if (rm && rm->complete) {
			uint64_t cookie = rm->cookie;
			uint32_t qpn = rm->m.dst_qpn;

			rx_msg_free(tp, rm);
			TP_COUNT_QP(tp, qpn, rx_msgs, 1);
			tp->ulp->rx_done(tp->ulp_opaque, cookie, WREN_TP_OK);
		}
	}
}

/*
 * The initiator finished every message below @mbase: any of them still in
 * progress here was abandoned by it (a local error), so give it up too.
 */
static void rx_follow_mbase(struct wren_tp *tp, struct tp_rx *rx,
			    uint32_t mbase)
{
	while (seq_lt(rx->msn_base, mbase)) {
		uint32_t i = rx->msn_base % TP_MSN_WINDOW;
		struct tp_rx_msg *rm = rx->slot[i];

		if (!bit_test(rx->msn_done, i)) {
			if (rm) {
				uint64_t cookie = rm->cookie;
				uint32_t qpn = rm->m.dst_qpn;

				rx_msg_free(tp, rm);
				tp_count_error(tp, qpn, WREN_TP_FLUSHED);
				tp->ulp->rx_done(tp->ulp_opaque, cookie,
						 WREN_TP_FLUSHED);
			}
			msn_set(rx, rx->msn_base, WREN_WIRE_ST_REMOTE_OP);
		}
		rx_advance_msn(tp, rx);
	}
}

static void rx_complete(struct wren_tp *tp, struct tp_rx *rx,
			struct tp_rx_msg *rm)
{
	msn_set(rx, rm->msn, 0);
	if (rm->m.flags & WREN_TP_MSG_ORDERED) {
		rm->complete = true;
		tp_grant_remove(tp, rm);
	} else {
		uint64_t cookie = rm->cookie;
		uint32_t qpn = rm->m.dst_qpn;

		rx_msg_free(tp, rm);
		TP_COUNT_QP(tp, qpn, rx_msgs, 1);
		tp->ulp->rx_done(tp->ulp_opaque, cookie, WREN_TP_OK);
	}
	rx_advance_msn(tp, rx);
}

/*
 * The message of @p is refused with @status: its packets are not marked
 * received, each is answered with a NACK, and the initiator completes it
 * with that status and abandons its PSNs.
 */
static void rx_refuse(struct wren_tp *tp, struct tp_rx *rx,
		      const struct tp_rx_pkt *p, uint8_t status)
{
	struct tp_rx_msg *rm = rx->slot[p->data.msn % TP_MSN_WINDOW];

	if (rm)
		rx_msg_free(tp, rm);
	msn_set(rx, p->data.msn, status);
	nack(tp, p, session_of(rx), WREN_WIRE_NACK_STATUS, status);
	rx_advance_msn(tp, rx);
}

/*
 * Give @rm up with @st: the upper layer is told, and its later packets
 * are answered with a NACK that fails it at its initiator.
 */
void tp_rx_msg_give_up(struct wren_tp *tp, struct tp_rx_msg *rm,
		       enum wren_tp_status st)
{
	struct tp_rx *rx = rm->rx;
	uint64_t cookie = rm->cookie;
	uint32_t qpn = rm->m.dst_qpn, msn = rm->msn;

	rx_msg_free(tp, rm);
	msn_set(rx, msn, WREN_WIRE_ST_REMOTE_OP);
	tp_count_error(tp, qpn, st);
	tp->ulp->rx_done(tp->ulp_opaque, cookie, st);
	rx_advance_msn(tp, rx);
}

/*
 * @p contradicts its message @rm: dropped, and the message given up here
 * and (by the NACK) at its initiator, which would otherwise send what
 * this side cannot take until it gave the whole context up.
 */
static void rx_msg_contradicted(struct wren_tp *tp, struct tp_rx *rx,
				struct tp_rx_msg *rm,
				const struct tp_rx_pkt *p)
{
	TP_DROP(tp, invalid);
	tp_rx_msg_give_up(tp, rm, WREN_TP_REMOTE_OP_ERROR);
	nack(tp, p, session_of(rx), WREN_WIRE_NACK_STATUS,
	     WREN_WIRE_ST_REMOTE_OP);
}

static uint8_t wire_status(enum wren_tp_status st)
{
	switch (st) {
	case WREN_TP_BAD_DEST_QP:
		return WREN_WIRE_ST_BAD_DEST_QP;
	case WREN_TP_RNR:
		return WREN_WIRE_ST_RNR;
	case WREN_TP_TOO_LONG:
		return WREN_WIRE_ST_TOO_LONG;
	case WREN_TP_REMOTE_ACCESS:
		return WREN_WIRE_ST_REMOTE_ACCESS;
	default:
		return WREN_WIRE_ST_REMOTE_OP;
	}
}

static bool same_msg(const struct wren_tp_msg *a, const struct wren_tp_msg *b)
{
	return a->len == b->len && a->opcode == b->opcode &&
	       a->flags == b->flags && a->dst_qpn == b->dst_qpn &&
	       a->src_qpn == b->src_qpn && a->qkey == b->qkey &&
	       a->rsn == b->rsn &&
	       a->imm == b->imm && a->raddr == b->raddr &&
	       a->rkey == b->rkey && a->rlen == b->rlen;
}

/*
 * The message @p belongs to, started if this is its first packet; NULL
 * when @p is not to be placed (refused, invalid or no room: all handled).
 */
static struct tp_rx_msg *rx_msg_of(struct wren_tp *tp, struct tp_rx *rx,
				   const struct tp_rx_pkt *p)
{
	uint32_t msn = p->data.msn, i = msn % TP_MSN_WINDOW;
	struct wren_tp_peer peer = { .ipv4 = rx->ipv4 };
	struct tp_rx_msg *rm;
	enum wren_tp_status st;
	uint64_t cookie;

	if (seq_lt(msn, rx->msn_base) ||
	    bit_test(rx->msn_done, i)) {
		/*
		 * Finished: only a refused message still has packets never
		 * received (a late GRANT_REQ of a completed one is acked
		 * before, rx_grant_req_done()).  Its refusal is said again,
		 * and only said: its MSN is done already, and marking it
		 * done once more would mark, once the base has moved on, the
		 * message that takes its slot TP_MSN_WINDOW messages later.
		 * One whose status has aged out of the window (the initiator
		 * lost every NACK while many messages went by) still gets an
		 * answer, or the initiator would retry it until it gave the
		 * peer up.
		 */
		if (rx->msn_tag[i] == msn && rx->msn_status[i])
			nack(tp, p, session_of(rx), WREN_WIRE_NACK_STATUS,
			     rx->msn_status[i]);
		else if (seq_lt(msn, rx->msn_base))
			nack(tp, p, session_of(rx), WREN_WIRE_NACK_STATUS,
			     WREN_WIRE_ST_REMOTE_OP);
		else
			TP_DROP(tp, invalid);
		return NULL;
	}
	if (msn - rx->msn_base >= TP_MSN_WINDOW) {
		TP_DROP(tp, window);
		return NULL;
	}
	rm = rx->slot[i];
	if (rm) {
		if (same_msg(&rm->m, &p->data.m))
			return rm;
		/*
		 * Two headers for one message: one of them was altered on
		 * the way, which one is unknown, and keeping the first would
		 * drop every packet of the other for good.
		 */
		rx_msg_contradicted(tp, rx, rm, p);
		return NULL;
	}
	if (!tp->rx_msg_free) {
		TP_DROP(tp, no_resources);
		return NULL;
	}
	if (!tp_peer_take(tp, rx->ipv4, TP_POOL_RX_MSGS)) {
		TP_DROP(tp, share);
		return NULL;
	}
	memcpy(peer.mac, rx->mac, sizeof(peer.mac));
	rm = tp->rx_msg_free;
	st = tp->ulp->rx_begin(tp->ulp_opaque, &peer, &p->data.m, &cookie);
	if (st != WREN_TP_OK) {
		tp_peer_put(tp, rx->ipv4, TP_POOL_RX_MSGS);
		tp_count_error(tp, p->data.m.dst_qpn, st);
		rx_refuse(tp, rx, p, wire_status(st));
		return NULL;
	}
	tp->rx_msg_free = rm->next;
	memset(rm, 0, sizeof(*rm));
	rm->cookie = cookie;
	rm->m = p->data.m;
	rm->msn = msn;
	rm->rx = rx;
	rx->slot[i] = rm;
	rx->inprogress++;
	return rm;
}

/* ------------------------------------------------------------------ */
/* Packets from initiators                                              */
/* ------------------------------------------------------------------ */

/* The initiator abandoned or completed everything below @bsn. */
static void rx_follow_bsn(struct wren_tp *tp, struct tp_rx *rx, uint32_t bsn)
{
	/* A window or more ahead: all the bitmap knew is behind it. */
	if (seq_lt(rx->bsn, bsn) && bsn - rx->bsn >= tp->cfg.window) {
		memset(rx->bits, 0, tp->cfg.window / 8);
		rx->bsn = bsn;
	}
	while (seq_lt(rx->bsn, bsn)) {
		bit_clear(rx->bits, rx->bsn & (tp->cfg.window - 1));
		rx->bsn++;
	}
	if (seq_lt(rx->highest, rx->bsn))
		rx->highest = rx->bsn;
	while (bit_test(rx->bits, rx->bsn & (tp->cfg.window - 1))) {
		bit_clear(rx->bits, rx->bsn & (tp->cfg.window - 1));
		rx->bsn++;
	}
}

/*
 * @p's PSN (in the window, not a duplicate) is received: true if it came
 * after a later one.
 */
static bool rx_take_psn(struct wren_tp *tp, struct tp_rx *rx,
			const struct tp_rx_pkt *p)
{
	uint32_t w = tp->cfg.window;
	bool late = seq_lt(p->psn + 1, rx->highest);

	bit_set(rx->bits, p->psn & (w - 1));
	if (seq_lt(rx->highest, p->psn + 1))
		rx->highest = p->psn + 1;
	if (p->psn == rx->bsn)
		rx_follow_bsn(tp, rx, rx->bsn);
	else
		TP_COUNT_QP(tp, p->data.m.dst_qpn, rx_ooo_pkts, 1);
	return late;
}

/*
 * @p is a GRANT_REQ of a message that completed here (its status is
 * recorded, and says so): the only packet of a finished message that
 * can carry a PSN never received (rx_msg_of()).
 */
static bool rx_grant_req_done(const struct tp_rx *rx,
			      const struct tp_rx_pkt *p)
{
	uint32_t msn = p->data.msn, i = msn % TP_MSN_WINDOW;

	return p->data.msg_flags & WREN_WIRE_MSG_GRANT_REQ &&
	       (seq_lt(msn, rx->msn_base) || bit_test(rx->msn_done, i)) &&
	       rx->msn_tag[i] == msn && !rx->msn_status[i];
}

static void rx_duplicate(struct wren_tp *tp, struct tp_rx *rx,
			 const struct tp_rx_pkt *p)
{
	/* Its message may be long done: the QP is the one it names. */
	if (p->flags & WREN_WIRE_F_RETX)
		TP_COUNT_QP(tp, p->data.m.dst_qpn, retx_spurious, 1);
	else
		TP_COUNT_QP(tp, p->data.m.dst_qpn, rx_dup_pkts, 1);
	/* The initiator may have missed our ack: tell it again. */
	ack_note(tp, rx, p, true);
	/*
	 * A resent packet this side already had: the ACK that covered it
	 * was lost, or is late.  The initiator resends on the sub-flow
	 * whose round trip it saw work last (tp_proven_subflow()), so the
	 * answer goes back along the copy's own path, and once more on a
	 * fresh one in case that path died since: answering on a fresh
	 * path only lost one answer in eight in S13 (one uplink per leaf
	 * dark), and each loss cost the message another, doubled, timeout.
	 */
	if (p->flags & WREN_WIRE_F_RETX && tp->cfg.repath)
		rx->ack_twice = true;
}

void tp_rx_data(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_rx *rx;
	struct tp_rx_msg *rm;
	uint32_t w = tp->cfg.window, d;
	bool late;

	if (p->data.len > tp->cfg.mtu) {
		TP_DROP(tp, invalid);
		return;
	}
	rx = rx_for(tp, p, p->flags & WREN_WIRE_F_SYN);
	if (!rx)
		return;
	rx->last_rx_ns = tp_now(tp);
	/*
	 * Grants go back along the path of the latest data, as ACKs do: the
	 * initiator moves a sub-flow whose answers stop coming to a new path,
	 * so the paths its data arrives on are those it still trusts.  The
	 * path that opened the context may have died since.
	 */
	rx->sport = p->sport;

	/*
	 * Follow the initiator's base, however far it moved (Wren's addition
	 * to the window rules, Documentation/history.rst).  It may have
	 * abandoned more than a window of packets this side never saw (refused
	 * messages, then messages whose queue pair went away), and a packet of
	 * the current session is the initiator's word for it; the packet
	 * itself must lie in the initiator's window.
	 */
	if (seq_lt(rx->bsn, p->bsn)) {
		if (seq_lt(p->psn, p->bsn) || p->psn - p->bsn >= w) {
			TP_DROP(tp, invalid);
			return;
		}
		rx_follow_bsn(tp, rx, p->bsn);
	}
	if (seq_lt(rx->msn_base, p->mbase)) {
		if (p->mbase - rx->msn_base > TP_MSN_WINDOW) {
			TP_DROP(tp, invalid);
			return;
		}
		rx_follow_mbase(tp, rx, p->mbase);
	}
	d = p->psn - rx->bsn;
	if (seq_lt(p->psn, rx->bsn) ||
	    (d < w && bit_test(rx->bits, p->psn & (w - 1)))) {
		rx_duplicate(tp, rx, p);
		return;
	}
	if (d >= w) {
		TP_DROP(tp, window);
		return;
	}
	if (p->flags & WREN_WIRE_F_TRIMMED) {
		/* A switch cut the payload: ask for it now, not at timeout. */
		nack(tp, p, session_of(rx), WREN_WIRE_NACK_TRIMMED, 0);
		return;
	}
	if (rx_grant_req_done(rx, p)) {
		/*
		 * A GRANT_REQ sent again (tp_ctx_timer()) that arrives after
		 * the grants it asked for came anyway and its message
		 * completed: it is a packet of its own with a PSN of its own,
		 * which the initiator waits for before it completes the
		 * message, so it is acknowledged, not refused: at once, as
		 * the initiator has nothing else of the message to send.
		 */
		rx_take_psn(tp, rx, p);
		ack_note(tp, rx, p, true);
		return;
	}
	rm = rx_msg_of(tp, rx, p);
	if (!rm)
		return;
	if (p->data.msg_flags & WREN_WIRE_MSG_GRANT_REQ) {
		if (!rm->grant_mode) {
			rm->grant_mode = true;
			tp_grant_add(tp, rm);
		} else {
			/*
			 * Asked again (tp_ctx_timer()): the grants were lost,
			 * or there were none yet (shorter messages go first).
			 * The latest, perhaps 0, is said again at once, so
			 * that the initiator knows the message waits here.
			 */
			tp_grant_again(tp, rm);
		}
	} else if (rm->grant_mode &&
		   p->data.offset + p->data.len > rm->granted) {
		/*
		 * Bytes never granted: the initiator heard a grant this side
		 * did not give (altered on the way), and would send them
		 * again and again.
		 */
		rx_msg_contradicted(tp, rx, rm, p);
		return;
	} else if (p->data.len &&
		   tp->ulp->rx_write(tp->ulp_opaque, rm->cookie, p->data.offset,
				     p->data.payload, p->data.len)) {
		uint64_t cookie = rm->cookie;

		rx_refuse(tp, rx, p, WREN_WIRE_ST_REMOTE_OP);
		tp_count_error(tp, rm->m.dst_qpn, WREN_TP_REMOTE_OP_ERROR);
		tp->ulp->rx_done(tp->ulp_opaque, cookie,
				 WREN_TP_REMOTE_OP_ERROR);
		return;
	}

	late = rx_take_psn(tp, rx, p);
	TP_COUNT_QP(tp, rm->m.dst_qpn, rx_data_pkts, 1);
	TP_COUNT_QP(tp, rm->m.dst_qpn, rx_data_bytes, p->data.len);
	rm->received += p->data.len;
	if (rm->grant_mode)
		tp_grant_received(tp, rm, p->data.len);
	if (rm->received == rm->m.len)
		rx_complete(tp, rx, rm);
	ack_note(tp, rx, p, late);
}

void tp_rx_connect(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_rx *rx = rx_for(tp, p, true);

	if (!rx)
		return;
	rx->last_rx_ns = tp_now(tp);
	rx->connect_ack = true;
	/*
	 * Back along the CONNECT's own path, not along whatever an earlier
	 * packet (or an earlier owner of this slot) left behind: the
	 * initiator sends each retry on a new path, so the answer to a retry
	 * leaves a dead path with it.
	 */
	rx->ack_sport = p->sport;
	rx->ack_sf = p->sf;
	ack_now(tp, rx);
}

void tp_rx_close(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_rx *rx = rx_lookup(tp, p);
	uint64_t now = tp_now(tp);

	if (!rx || rx->epoch != p->epoch || rx->state != TP_RX_ACTIVE) {
		TP_DROP(tp, stale);
		return;
	}
	/* Keep the incarnation's key, not its state, for one lifetime. */
	rx_deactivate(tp, rx, WREN_TP_FLUSHED);
	if (tp_linked(&rx->ack))
		tp_list_del(&rx->ack);
	rx->state = TP_RX_TIME_WAIT;
	rx->last_rx_ns = now;
	rx->expire_ns = now + tp->cfg.mpl_ns;
	rx->ack_deadline = rx->grant_check = 0;
	tp_rx_timer_update(tp, rx);
	tp->stats.rx_ctx_closed++;
}

void tp_rx_timer(struct wren_tp *tp, struct tp_rx *rx)
{
	uint64_t now = tp_now(tp);

	if (rx->expire_ns <= now) {
		if (rx->state == TP_RX_TIME_WAIT ||
		    now - rx->last_rx_ns >= tp->rx_idle_ns) {
			rx_free(tp, rx);
			return;
		}
		rx->expire_ns = rx->last_rx_ns + tp->rx_idle_ns;
	}
	if (rx->ack_deadline && rx->ack_deadline <= now)
		ack_now(tp, rx);
	if (rx->grant_check && rx->grant_check <= now)
		tp_grant_check(tp, rx);
	tp_rx_timer_update(tp, rx);
}

void tp_rx_destroy(struct wren_tp *tp)
{
	for (uint32_t i = 0; i < tp->cfg.max_rx_ctx; i++)
		if (tp->rx[i].state != TP_RX_FREE)
			rx_deactivate(tp, &tp->rx[i], WREN_TP_FLUSHED);
	free(tp->rx);
	free(tp->rx_hash);
}
