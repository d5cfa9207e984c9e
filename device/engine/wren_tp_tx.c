// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport, initiator side: transport contexts (seeds 000 and 001)
 * and their life cycle, segmentation, the TX window with its BSN/NSN rules (seed
 * 004), sub-flows with their own timers (seed 000 claims 8-11), loss
 * detection and selective retransmission.
 *
 * A context lives from the first message to its target until it has been
 * idle for cfg.idle_ns, or is the least recently used idle context when the
 * cache is full and has no record in a host table to go back to; it then
 * sends CLOSE and its slot is reused under a new epoch (wren_tp_table.c).
 * Its window and sub-flow state exist only while it has work.
 */
#include <stdlib.h>
#include <string.h>

#include "wren_tp_internal.h"

#define TP_MAX_BACKOFF		10
#define TP_CONGESTED_SAMPLES	16	/* before a congested path is left */

/* The context a packet from a target answers, or NULL if it is stale. */
static struct tp_ctx *ctx_of_reply(struct wren_tp *tp,
				   const struct tp_rx_pkt *p)
{
	struct tp_ctx *c;

	c = tp_ctx_by_id(tp, p->dst_ctx);
	if (!c || c->epoch != p->epoch || c->ipv4 != p->src_ip) {
		tp->stats.drops[WREN_TP_DROP_STALE]++;
		return NULL;
	}
	c->answered = true;
	c->answered_ns = tp_now(tp);
	return c;
}

/* ------------------------------------------------------------------ */
/* Window and sub-flow state: allocated while a context has work        */
/* ------------------------------------------------------------------ */

static uint16_t new_entropy(struct wren_tp *tp, const struct tp_ctx *c)
{
	for (int tries = 0;; tries++) {
		uint16_t e = WREN_WIRE_ENTROPY_BASE |
			     (tp->env->random(tp->env_opaque) &
			      WREN_WIRE_ENTROPY_MASK);
		bool clash = false;

		for (uint32_t i = 0; i < tp->cfg.subflows; i++)
			clash |= c->sf[i].entropy == e;
		if (!clash || tries > 8)
			return e;
	}
}

static int ctx_activate(struct wren_tp *tp, struct tp_ctx *c)
{
	uint32_t w = tp->cfg.window;
	uint8_t *mem;

	if (c->win)
		return 0;
	mem = calloc(1, tp_win_bytes(tp));
	if (!mem)
		return -ENOMEM;
	tp->active_bytes += tp_win_bytes(tp);
	c->win = (struct tp_pkt *)mem;
	mem += w * sizeof(*c->win);
	c->lost = (uint32_t *)mem;
	mem += 2 * w * sizeof(*c->lost);
	c->sf = (struct tp_subflow *)mem;
	mem += tp->cfg.subflows * sizeof(*c->sf);
	for (uint32_t i = 0; i < tp->cfg.subflows; i++) {
		c->sf[i].ring = (uint16_t *)mem;
		mem += 2 * w * sizeof(uint16_t);
		c->sf[i].entropy = new_entropy(tp, c);
		tp_cc_init(tp, c, &c->sf[i]);
	}
	c->lost_head = c->lost_tail = 0;
	return 0;
}

static void ctx_deactivate(struct wren_tp *tp, struct tp_ctx *c)
{
	if (!c->win)
		return;
	/* Keep what was learnt about the path for the next burst. */
	c->cwnd_hint = 0;
	for (uint32_t i = 0; i < tp->cfg.subflows; i++) {
		if (c->sf[i].srtt_ns)
			c->srtt_hint = c->sf[i].srtt_ns;
		c->cwnd_hint += c->sf[i].cwnd;
	}
	free(c->win);
	tp->active_bytes -= tp_win_bytes(tp);
	c->win = NULL;
	c->lost = NULL;
	c->sf = NULL;
}

/* @s's retransmit timeout, doubled @backoff times. */
static uint64_t sf_rto(const struct wren_tp *tp, const struct tp_ctx *c,
		       const struct tp_subflow *s, unsigned int backoff)
{
	uint64_t rto;

	if (s->srtt_ns)
		rto = s->srtt_ns + 4 * s->rttvar_ns;
	else if (c->srtt_hint)
		rto = 3 * c->srtt_hint;
	else
		rto = tp->cfg.init_rto_ns;
	rto = max_u64(rto, tp->cfg.min_rto_ns) << min_u64(backoff,
							  TP_MAX_BACKOFF);
	return min_u64(rto, tp->cfg.max_rto_ns);
}

static void ctx_timer_update(struct wren_tp *tp, struct tp_ctx *c)
{
	uint64_t d = UINT64_MAX;

	if (c->sf)
		for (uint32_t i = 0; i < tp->cfg.subflows; i++)
			if (c->sf[i].rto_deadline)
				d = min_u64(d, c->sf[i].rto_deadline);
	if (c->connect_deadline)
		d = min_u64(d, c->connect_deadline);
	if (tp_linked(&c->idle))
		d = min_u64(d, c->idle_since + tp->cfg.idle_ns);
	tp_timer_set(tp, &c->timer, d == UINT64_MAX ? 0 : d);
}

/* ------------------------------------------------------------------ */
/* Messages                                                             */
/* ------------------------------------------------------------------ */

static bool msg_fully_sent(const struct tp_msg *m)
{
	return m->started && m->next_off == m->m.len &&
	       (!m->needs_grant || m->req_sent);
}

/* Has @m a segment to send now? */
static bool msg_sendable(const struct tp_msg *m)
{
	if (!m->started)
		return true;
	return m->next_off < (m->needs_grant ? m->granted : m->m.len);
}

static void msg_free(struct wren_tp *tp, struct tp_msg *m)
{
	m->next = tp->msg_free;
	tp->msg_free = m;
}

static void msg_unlink(struct tp_ctx *c, struct tp_msg *m)
{
	struct tp_msg **pm = &c->msgs, *prev = NULL;

	while (*pm != m) {
		prev = *pm;
		pm = &(*pm)->next;
	}
	*pm = m->next;
	if (c->msgs_tail == m)
		c->msgs_tail = prev;
}

/*
 * Finish @m with @status: every packet of it still in the window is
 * abandoned (the target learns that from the BSN in later packets), the
 * upper layer is told, the message is forgotten.
 */
static void msg_finish(struct wren_tp *tp, struct tp_ctx *c, struct tp_msg *m,
		       enum wren_tp_status status)
{
	uint64_t cookie = m->cookie;

	if (m->unacked && c->win) {
		for (uint32_t psn = c->bsn; psn != c->nsn; psn++) {
			struct tp_pkt *p = &c->win[psn & (tp->cfg.window - 1)];

			if (p->msg != m || p->state == TP_PKT_ACKED)
				continue;
			if (p->state == TP_PKT_INFLIGHT) {
				c->sf[p->sf].inflight--;
				c->sf[p->sf].inflight_bytes -=
					tp_cc_charge(p->len);
			}
			p->state = TP_PKT_ACKED;
			p->msg = NULL;
		}
	}
	msg_unlink(c, m);
	msg_free(tp, m);
	if (status == WREN_TP_OK)
		tp->stats.msgs_tx++;
	else
		tp->stats.msg_errors[status]++;
	tp->ulp->tx_done(tp->ulp_opaque, cookie, status);
}

/* Seed 004: the window moves once its base packet is acknowledged. */
static void ctx_advance_bsn(struct wren_tp *tp, struct tp_ctx *c)
{
	uint32_t mask = tp->cfg.window - 1;

	while (c->bsn != c->nsn && c->win[c->bsn & mask].state == TP_PKT_ACKED) {
		c->win[c->bsn & mask].state = TP_PKT_FREE;
		c->bsn++;
	}
}

/* Tell the upper layer about messages already taken off their context. */
static void finish_detached(struct wren_tp *tp, struct tp_msg *list,
			    enum wren_tp_status status)
{
	while (list) {
		struct tp_msg *m = list;
		uint64_t cookie = m->cookie;

		list = m->next;
		msg_free(tp, m);
		tp->stats.msg_errors[status]++;
		tp->ulp->tx_done(tp->ulp_opaque, cookie, status);
	}
}

/* ------------------------------------------------------------------ */
/* Context life cycle                                                   */
/* ------------------------------------------------------------------ */

static void serve_waiting(struct wren_tp *tp);

/* Take @c out of the cache; its record, if any, is the caller's. */
static void ctx_leave(struct wren_tp *tp, struct tp_ctx *c)
{
	if (tp_linked(&c->ready))
		tp_list_del(&c->ready);
	if (tp_linked(&c->idle))
		tp_list_del(&c->idle);
	c->connect_deadline = 0;
	tp_timer_set(tp, &c->timer, 0);
	ctx_deactivate(tp, c);
	c->state = TP_CTX_FREE;
	tp_ctx_put(tp, c);
}

static void ctx_free(struct wren_tp *tp, struct tp_ctx *c)
{
	tp_tc_release(tp, c);
	ctx_leave(tp, c);
}

/*
 * Close an idle context: tell the target, free the slot.  CLOSE is sent
 * once and never answered, so no path is known to be alive for it: it
 * takes a random one.  A fixed entropy would send every CLOSE between two
 * hosts down the same path, and a dead one would lose them all.
 */
void tp_ctx_evict(struct wren_tp *tp, struct tp_ctx *c)
{
	struct tp_ctl close = {
		.type = WREN_WIRE_CLOSE, .ipv4 = c->ipv4,
		.sport = WREN_WIRE_ENTROPY_BASE |
			 (tp->env->random(tp->env_opaque) &
			  WREN_WIRE_ENTROPY_MASK),
		.src_ctx = c->id, .dst_ctx = c->session, .epoch = c->epoch,
		.psn = c->nsn,
	};

	memcpy(close.mac, c->mac, sizeof(close.mac));
	tp_ctl_push(tp, &close);
	tp->stats.ctx_evicted++;
	ctx_free(tp, c);
}

/* Start a new incarnation of @c: epoch, first PSN, empty window. */
static void ctx_begin(struct wren_tp *tp, struct tp_ctx *c)
{
	c->epoch = tp->store ? c->epoch + 1 : tp->epochs[c->id]++;
	c->session = WREN_WIRE_CTX_NONE;
	c->state = c->mode == WREN_TP_MODE_HANDSHAKE ? TP_CTX_CONNECTING :
						       TP_CTX_SYN;
	c->need_connect = c->mode == WREN_TP_MODE_HANDSHAKE;
	c->connect_tries = 0;
	c->connect_deadline = 0;
	c->bsn = c->nsn = tp->env->random(tp->env_opaque);
	c->next_msn = 0;
}

/*
 * The least recently used idle context leaves the cache: back to its
 * record if it can go there, closed otherwise.
 */
static void ctx_make_room(struct wren_tp *tp)
{
	struct tp_ctx *c;

	if (tp->ctx_free != TP_NONE)
		return;
	c = tp_container_of(tp->idle.next, struct tp_ctx, idle);
	if (tp_tc_spill(tp, c))
		ctx_leave(tp, c);
	else
		tp_ctx_evict(tp, c);
}

/* @c comes back from its record @r, in the incarnation it left in. */
static void ctx_restore(struct wren_tp *tp, struct tp_ctx *c,
			const struct wren_tp_ctx_rec *r)
{
	c->mode = r->mode;
	c->answered = r->answered;
	c->answered_ns = tp_now(tp);
	c->epoch = r->epoch;
	c->session = r->session;
	c->state = TP_CTX_ESTABLISHED;
	c->need_connect = false;
	c->connect_tries = 0;
	c->connect_deadline = 0;
	c->bsn = c->nsn = r->psn;
	c->next_msn = r->msn;
	/* Hints only: bounded by what this adapter would have learnt. */
	c->srtt_hint = min_u64(r->srtt_ns, tp->cfg.max_rto_ns);
	c->base_rtt_ns = min_u64(r->base_rtt_ns, c->srtt_hint);
	c->cwnd_hint = r->cwnd > tp->cfg.subflows * tp->cfg.cc_max_cwnd ? 0 :
									   r->cwnd;
}

/*
 * The context for @d: from the cache, back from the table, or new.  NULL
 * with *@err 0 when the message must wait for room, or with *@err
 * negative when it cannot have a context at all.
 */
static struct tp_ctx *ctx_get(struct wren_tp *tp, const struct wren_tp_dest *d,
			      int *err)
{
	struct tp_ctx *c = tp_ctx_find(tp, d->ipv4, d->class_id);
	struct wren_tp_ctx_rec rec = { 0 };
	uint32_t id = 0;
	int back = 0;

	*err = 0;
	if (c)
		return c;
	if (!tp_ctx_room(tp))
		return NULL;
	if (tp->store) {
		back = tp_tc_claim(tp, d, &id, &rec);
		if (back < 0) {
			*err = back == -EAGAIN ? 0 : back;
			return NULL;
		}
	}
	ctx_make_room(tp);
	c = tp_ctx_take(tp, id, d->ipv4, d->class_id);
	memcpy(c->mac, d->mac, sizeof(c->mac));
	c->msgs = c->msgs_tail = NULL;
	if (back) {
		ctx_restore(tp, c, &rec);
	} else {
		c->mode = d->mode;
		c->answered = false;
		c->srtt_hint = 0;
		c->cwnd_hint = 0;
		c->base_rtt_ns = 0;
		c->epoch = rec.epoch;
		ctx_begin(tp, c);
		tp->stats.ctx_created++;
	}
	if (tp->store)
		tp_tc_hold(tp, c);
	return c;
}

static void ctx_idle_check(struct wren_tp *tp, struct tp_ctx *c)
{
	if (c->msgs || c->bsn != c->nsn || tp_linked(&c->idle) ||
	    c->state == TP_CTX_CONNECTING)
		return;
	ctx_deactivate(tp, c);
	c->idle_since = tp_now(tp);
	tp_list_add_tail(&tp->idle, &c->idle);
	ctx_timer_update(tp, c);
	/* An idle context may be evicted for a waiting message. */
	serve_waiting(tp);
}

/*
 * The target stopped answering: fail every message of @c, then forget it.
 * The next message to that target opens a new incarnation.
 */
static void ctx_fail(struct wren_tp *tp, struct tp_ctx *c)
{
	enum wren_tp_status st = c->answered ? WREN_TP_REMOTE_UNRESPONSIVE :
					       WREN_TP_REMOTE_UNREACHABLE;
	struct tp_msg *list = c->msgs;

	/* Off the context first: tx_done may post to the same target. */
	c->msgs = c->msgs_tail = NULL;
	tp->stats.ctx_failed++;
	ctx_free(tp, c);
	finish_detached(tp, list, st);
	serve_waiting(tp);
}

static void ctx_enqueue(struct wren_tp *tp, struct tp_ctx *c, struct tp_msg *m)
{
	m->msn = c->next_msn++;
	m->next = NULL;
	if (c->msgs_tail)
		c->msgs_tail->next = m;
	else
		c->msgs = m;
	c->msgs_tail = m;
	if (tp_linked(&c->idle)) {
		tp_list_del(&c->idle);
		ctx_timer_update(tp, c);
	}
	tp_tx_update_ready(tp, c);
}

/* Messages that found the table full get a context once one frees. */
static void serve_waiting(struct wren_tp *tp)
{
	while (tp->waiting) {
		struct tp_msg *m = tp->waiting;
		int err;
		struct tp_ctx *c = ctx_get(tp, &m->dst, &err);

		if (!c && !err)
			return;
		tp->waiting = m->next;
		if (!tp->waiting)
			tp->waiting_tail = NULL;
		if (c) {
			ctx_enqueue(tp, c, m);
		} else {
			m->next = NULL;
			finish_detached(tp, m, WREN_TP_LOCAL_ERROR);
		}
	}
}

int wren_tp_send(struct wren_tp *tp, const struct wren_tp_dest *dst,
		 const struct wren_tp_msg *msg, uint64_t cookie)
{
	struct tp_msg *m;

	if (!tp_msg_valid(msg) ||
	    msg->flags & ~(WREN_TP_MSG_ORDERED | WREN_TP_MSG_SOLICITED |
			   WREN_TP_MSG_FAILED) || !dst->ipv4 ||
	    (dst->mode != WREN_TP_MODE_OPTIMISTIC &&
	     dst->mode != WREN_TP_MODE_HANDSHAKE))
		return -EINVAL;
	m = tp->msg_free;
	if (!m)
		return -ENOBUFS;
	tp->msg_free = m->next;
	memset(m, 0, sizeof(*m));
	m->cookie = cookie;
	m->m = *msg;
	m->dst = *dst;
	m->needs_grant = tp->cfg.grant_threshold &&
			 msg->len >= tp->cfg.grant_threshold;

	/* Behind messages already waiting, to keep posting order. */
	m->next = NULL;
	if (tp->waiting_tail)
		tp->waiting_tail->next = m;
	else
		tp->waiting = m;
	tp->waiting_tail = m;
	serve_waiting(tp);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Transmission                                                         */
/* ------------------------------------------------------------------ */

/* Drop the oldest transmissions of a sub-flow that are settled. */
static void sf_pop_settled(struct wren_tp *tp, struct tp_ctx *c, uint32_t sfi)
{
	struct tp_subflow *s = &c->sf[sfi];
	uint32_t rmask = 2 * tp->cfg.window - 1;

	while (s->head_seq != s->next_seq) {
		const struct tp_pkt *p = &c->win[s->ring[s->head_seq & rmask]];

		if (p->state == TP_PKT_INFLIGHT && p->sf == sfi &&
		    p->sf_seq == s->head_seq)
			return;
		s->head_seq++;
	}
}

/*
 * The sub-flow for a packet charged @charge bytes: the one with the most
 * room in its window (none: TP_NONE, and the windows are marked as
 * holding sending back), or, for a packet its window does not pace
 * (@charge 0: granted data), the one with the fewest packets in flight.
 * Ties go round robin; @avoid (or TP_NONE) is passed over.
 */
static uint32_t pick_subflow(struct wren_tp *tp, struct tp_ctx *c,
			     uint32_t avoid, uint32_t charge)
{
	uint32_t n = tp->cfg.subflows, best = TP_NONE;
	int64_t best_room = INT64_MIN;
	struct tp_cc_totals t;

	tp_cc_totals(tp, c, &t);
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = (c->sf_rr + k) % n;
		struct tp_subflow *s = &c->sf[i];
		int64_t room;

		if (i == avoid && n > 1)
			continue;
		/* Its ring holds every transmission still unsettled. */
		if (s->next_seq - s->head_seq >= 2 * tp->cfg.window) {
			sf_pop_settled(tp, c, i);
			if (s->next_seq - s->head_seq >= 2 * tp->cfg.window)
				continue;
		}
		if (charge && !tp_cc_allows(s, charge, &t)) {
			s->cwnd_limited = true;
			continue;
		}
		room = charge ? (int64_t)s->cwnd - s->inflight_bytes :
				-(int64_t)s->inflight;
		if (room > best_room) {
			best = i;
			best_room = room;
		}
	}
	c->sf_rr++;
	return best;
}

/* The first message with a segment to send, or NULL. */
static struct tp_msg *next_msg(struct tp_ctx *c)
{
	uint32_t msn_base = c->msgs ? c->msgs->msn : 0;

	for (struct tp_msg *m = c->msgs; m; m = m->next) {
		if (m->msn - msn_base >= TP_MSN_WINDOW)
			return NULL;
		if (msg_sendable(m))
			return m;
	}
	return NULL;
}

/* What the next segment of @m costs in its window; granted data: 0. */
static uint32_t msg_charge(const struct wren_tp *tp, const struct tp_msg *m)
{
	if (m->needs_grant)
		return 0;
	return tp_cc_charge(min_u64(tp->cfg.mtu, m->m.len - m->next_off));
}

static bool ctx_has_work(struct wren_tp *tp, struct tp_ctx *c)
{
	struct tp_msg *m;

	if (c->state == TP_CTX_FREE || !c->win)
		return false;
	if (c->need_connect)
		return true;
	if (c->state == TP_CTX_CONNECTING)
		return false;
	if (c->lost_head != c->lost_tail &&
	    pick_subflow(tp, c, TP_NONE, tp_cc_charge(tp->cfg.mtu)) != TP_NONE)
		return true;
	m = next_msg(c);
	return m && c->nsn - c->bsn < tp->cfg.window &&
	       pick_subflow(tp, c, TP_NONE, msg_charge(tp, m)) != TP_NONE;
}

void tp_tx_update_ready(struct wren_tp *tp, struct tp_ctx *c)
{
	if (c->state != TP_CTX_FREE && !c->win && c->msgs &&
	    ctx_activate(tp, c))
		return;
	if (ctx_has_work(tp, c)) {
		if (!tp_linked(&c->ready)) {
			tp_list_add_tail(&tp->ready, &c->ready);
			tp_kick(tp);
		}
	} else if (tp_linked(&c->ready)) {
		tp_list_del(&c->ready);
	}
}

static size_t build_connect(struct wren_tp *tp, struct tp_ctx *c, uint8_t *f)
{
	uint64_t now = tp_now(tp);
	struct tp_tx_pkt h = {
		.dst_ip = c->ipv4, .dst_mac = c->mac,
		.sport = c->sf[0].entropy, .type = WREN_WIRE_CONNECT,
		.src_ctx = c->id, .dst_ctx = WREN_WIRE_CTX_NONE,
		.epoch = c->epoch, .psn = c->nsn, .bsn = c->bsn,
		.ts = (uint32_t)now,
	};
	uint8_t *x = tp_ext(f);

	c->need_connect = false;
	c->connect_deadline = now + (min_u64(tp->cfg.init_rto_ns <<
					     min_u64(c->connect_tries,
						     TP_MAX_BACKOFF),
					     tp->cfg.max_rto_ns));
	ctx_timer_update(tp, c);
	memset(x, 0, sizeof(struct wren_wire_connect));
	*F(x, wren_wire_connect, mode) = WREN_WIRE_MODE_HANDSHAKE;
	tp_put32(F(x, wren_wire_connect, window), tp->cfg.window);
	return tp_build(tp, f, &h, sizeof(struct wren_wire_connect), 0);
}

/* Put the packet in window slot @p on the wire, on a chosen sub-flow. */
static size_t transmit(struct wren_tp *tp, struct tp_ctx *c, uint32_t psn,
		       uint32_t sfi, bool retx, uint8_t *f)
{
	struct tp_pkt *p = &c->win[psn & (tp->cfg.window - 1)];
	struct tp_msg *m = p->msg;
	uint64_t now = tp_now(tp);
	struct tp_subflow *s;
	struct tp_tx_pkt h = {
		.dst_ip = c->ipv4, .dst_mac = c->mac, .ect = true,
		.type = WREN_WIRE_DATA, .src_ctx = c->id,
		.dst_ctx = c->session, .epoch = c->epoch, .psn = psn,
		.bsn = c->bsn, .ts = (uint32_t)now,
		.mbase = c->msgs ? c->msgs->msn : c->next_msn,
	};
	uint8_t *x = tp_ext(f);
	size_t ext = tp_data_ext_len(m->m.opcode);
	uint8_t mflags = 0;

	if (p->len && tp->ulp->tx_read(tp->ulp_opaque, m->cookie, p->offset,
				       x + ext, p->len)) {
		msg_finish(tp, c, m, WREN_TP_LOCAL_ERROR);
		ctx_advance_bsn(tp, c);
		/*
		 * The puller took the context off the ready list; the other
		 * messages may have packets to send and, with nothing in
		 * flight, no event would put it back.
		 */
		tp_tx_update_ready(tp, c);
		return 0;
	}
	s = &c->sf[sfi];
	p->sf = sfi;
	p->sf_seq = s->next_seq++;
	s->ring[p->sf_seq & (2 * tp->cfg.window - 1)] =
		psn & (tp->cfg.window - 1);
	p->state = TP_PKT_INFLIGHT;
	p->sent_ns = now;
	p->sent_ts = h.ts;
	s->inflight++;
	s->inflight_bytes += tp_cc_charge(p->len);
	if (!s->rto_deadline) {
		s->rto_deadline = now + sf_rto(tp, c, s, s->backoff);
		ctx_timer_update(tp, c);
	}

	h.sport = s->entropy;
	h.sf = sfi;
	if (c->state == TP_CTX_SYN)
		h.flags |= WREN_WIRE_F_SYN;
	if (retx) {
		h.flags |= WREN_WIRE_F_RETX | WREN_WIRE_F_ACK_REQ;
		tp->stats.retx[p->cause]++;
	}
	if (p->offset + p->len == m->m.len)
		h.flags |= WREN_WIRE_F_ACK_REQ;
	if (m->m.flags & WREN_TP_MSG_ORDERED)
		mflags |= WREN_WIRE_MSG_ORDERED;
	if (m->m.flags & WREN_TP_MSG_SOLICITED)
		mflags |= WREN_WIRE_MSG_SOLICITED;
	if (p->req)
		mflags |= WREN_WIRE_MSG_GRANT_REQ;

	if (m->m.flags & WREN_TP_MSG_FAILED)
		mflags |= WREN_WIRE_MSG_FAILED;
	tp_put_data(x, &m->m, m->msn, p->offset, mflags);
	tp->stats.tx_data_pkts++;
	tp->stats.tx_data_bytes += p->len;
	return tp_build(tp, f, &h, ext, p->len);
}

/* Cut the next segment of the first sendable message. */
static size_t send_new(struct wren_tp *tp, struct tp_ctx *c, uint8_t *f)
{
	struct tp_msg *m = next_msg(c);
	struct tp_pkt *p;
	uint32_t limit, sfi;

	if (!m || c->nsn - c->bsn >= tp->cfg.window)
		return 0;
	sfi = pick_subflow(tp, c, TP_NONE, msg_charge(tp, m));
	if (sfi == TP_NONE)
		return 0;
	p = &c->win[c->nsn & (tp->cfg.window - 1)];
	memset(p, 0, sizeof(*p));
	p->msg = m;
	if (m->needs_grant && !m->req_sent) {
		p->req = true;
		m->req_sent = true;
	} else {
		limit = m->needs_grant ? m->granted : m->m.len;
		p->offset = m->next_off;
		p->len = min_u64(tp->cfg.mtu, limit - m->next_off);
		m->next_off += p->len;
	}
	m->started = true;
	m->unacked++;
	return transmit(tp, c, c->nsn++, sfi, false, f);
}

size_t tp_tx_pull_ctx(struct wren_tp *tp, struct tp_ctx *c, uint8_t *f)
{
	if (!c->win)
		return 0;
	if (c->need_connect)
		return build_connect(tp, c, f);
	if (c->state == TP_CTX_CONNECTING)
		return 0;
	while (c->lost_head != c->lost_tail) {
		uint32_t psn = c->lost[c->lost_head++ % (2 * tp->cfg.window)];
		struct tp_pkt *p = &c->win[psn & (tp->cfg.window - 1)];
		uint32_t sfi;

		if (p->state != TP_PKT_LOST || !seq_le(c->bsn, psn) ||
		    !seq_lt(psn, c->nsn))
			continue;
		sfi = pick_subflow(tp, c, p->sf, tp_cc_charge(p->len));
		if (sfi == TP_NONE) {
			c->lost_head--;
			return 0;
		}
		return transmit(tp, c, psn, sfi, true, f);
	}
	return send_new(tp, c, f);
}

/* ------------------------------------------------------------------ */
/* Acknowledgements and loss                                            */
/* ------------------------------------------------------------------ */

static void lost_push(struct wren_tp *tp, struct tp_ctx *c, uint32_t psn)
{
	uint32_t cap = 2 * tp->cfg.window;

	if (c->lost_tail - c->lost_head == cap) {
		/* Full of entries already acknowledged: keep the live ones. */
		uint32_t n = 0;

		for (uint32_t i = c->lost_head; i != c->lost_tail; i++) {
			uint32_t q = c->lost[i % cap];

			if (c->win[q & (tp->cfg.window - 1)].state ==
			    TP_PKT_LOST)
				c->lost[(c->lost_head + n++) % cap] = q;
		}
		c->lost_tail = c->lost_head + n;
	}
	c->lost[c->lost_tail++ % cap] = psn;
}

static void mark_lost(struct wren_tp *tp, struct tp_ctx *c, uint32_t psn,
		      enum wren_tp_retx_cause cause)
{
	struct tp_pkt *p = &c->win[psn & (tp->cfg.window - 1)];

	c->sf[p->sf].inflight--;
	c->sf[p->sf].inflight_bytes -= tp_cc_charge(p->len);
	p->state = TP_PKT_LOST;
	p->cause = cause;
	lost_push(tp, c, psn);
}

/* The PSN of window slot @idx, which lies in [bsn, nsn). */
static uint32_t slot_psn(const struct wren_tp *tp, const struct tp_ctx *c,
			 uint32_t idx)
{
	return c->bsn + ((idx - c->bsn) & (tp->cfg.window - 1));
}

/*
 * A sub-flow's path delivers in order, so a packet is lost once
 * cfg.dupthresh later packets of its own sub-flow have been acknowledged.
 * Packets on other, slower paths are not compared: reordering between
 * paths never triggers a retransmission.
 */
static void sf_detect_losses(struct wren_tp *tp, struct tp_ctx *c, uint32_t sfi)
{
	struct tp_subflow *s = &c->sf[sfi];
	uint32_t rmask = 2 * tp->cfg.window - 1;

	for (sf_pop_settled(tp, c, sfi); s->head_seq != s->next_seq;
	     sf_pop_settled(tp, c, sfi)) {
		uint32_t idx = s->ring[s->head_seq & rmask];
		const struct tp_pkt *p = &c->win[idx];
		/* Only packets that took the same path say anything. */
		uint32_t highest = seq_lt(p->sf_seq, s->repath_seq) ?
				   s->highest_acked_old : s->highest_acked;

		if ((int32_t)(highest - 1 - p->sf_seq) <
		    (int32_t)tp->cfg.dupthresh)
			break;
		mark_lost(tp, c, slot_psn(tp, c, idx), WREN_TP_RETX_FAST);
	}
}

static void msg_check_done(struct wren_tp *tp, struct tp_ctx *c,
			   struct tp_msg *m)
{
	if (!m->unacked && msg_fully_sent(m))
		msg_finish(tp, c, m, WREN_TP_OK);
}

/* Per sub-flow tallies of one acknowledgement. */
struct ack_tally {
	uint32_t mask;			/* sub-flows with news */
	uint32_t bytes[WREN_WIRE_MAX_SUBFLOWS];
	uint32_t pkts[WREN_WIRE_MAX_SUBFLOWS];
};

/* Acknowledge one PSN. */
static void ack_one(struct wren_tp *tp, struct tp_ctx *c, uint32_t psn,
		    struct ack_tally *t)
{
	struct tp_pkt *p = &c->win[psn & (tp->cfg.window - 1)];
	struct tp_msg *m = p->msg;

	if (p->state != TP_PKT_INFLIGHT && p->state != TP_PKT_LOST)
		return;
	if (p->state == TP_PKT_INFLIGHT) {
		struct tp_subflow *s = &c->sf[p->sf];
		uint32_t *highest = seq_lt(p->sf_seq, s->repath_seq) ?
				    &s->highest_acked_old : &s->highest_acked;

		s->inflight--;
		s->inflight_bytes -= tp_cc_charge(p->len);
		if (seq_le(*highest, p->sf_seq))
			*highest = p->sf_seq + 1;
		t->mask |= 1U << p->sf;
		t->bytes[p->sf] += p->len;
		t->pkts[p->sf]++;
	}
	p->state = TP_PKT_ACKED;
	p->timeouts = 0;
	p->msg = NULL;
	if (m) {
		m->unacked--;
		msg_check_done(tp, c, m);
	}
}

static void rtt_sample(struct tp_ctx *c, struct tp_subflow *s, uint64_t rtt)
{
	if (!s->srtt_ns) {
		s->srtt_ns = rtt;
		s->rttvar_ns = rtt / 2;
	} else {
		uint64_t err = rtt > s->srtt_ns ? rtt - s->srtt_ns :
						  s->srtt_ns - rtt;

		s->rttvar_ns = (3 * s->rttvar_ns + err) / 4;
		s->srtt_ns = (7 * s->srtt_ns + rtt) / 8;
	}
	if (!s->min_rtt_ns || rtt < s->min_rtt_ns)
		s->min_rtt_ns = rtt;
	if (!c->base_rtt_ns || rtt < c->base_rtt_ns)
		c->base_rtt_ns = rtt;
	s->qdelay_ns = rtt - s->min_rtt_ns;
	c->srtt_hint = s->srtt_ns;
}

/*
 * Move @s to another path: a new entropy.  Its base RTT starts from the
 * context's shortest, not from its first sample, which may well be queued
 * already: a path found longer keeps a smaller window, a shorter one is
 * learnt at once.
 */
static void sf_repath(struct wren_tp *tp, struct tp_ctx *c,
		      struct tp_subflow *s)
{
	s->entropy = new_entropy(tp, c);
	s->min_rtt_ns = c->base_rtt_ns;
	/* Packets still on the old path may arrive after the new ones. */
	s->highest_acked_old = s->highest_acked;
	s->repath_seq = s->next_seq;
	s->congested = 0;
	tp->stats.path_changes++;
}

/*
 * A sub-flow whose every answer for TP_CONGESTED_SAMPLES in a row shows
 * queueing above the target or ECN marks is on a congested path: with
 * cfg.repath it tries another, as congestion that all paths share stays
 * whatever the entropy, and congestion of one path does not.
 */
static void sf_judge_path(struct wren_tp *tp, struct tp_ctx *c,
			  struct tp_subflow *s, uint32_t ce)
{
	if (s->qdelay_ns <= tp->cfg.cc_target_ns && !ce) {
		s->congested = 0;
		return;
	}
	if (tp->cfg.repath && ++s->congested >= TP_CONGESTED_SAMPLES)
		sf_repath(tp, c, s);
}

void tp_tx_ack(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_ctx *c = ctx_of_reply(tp, p);
	struct ack_tally t = { 0 };
	uint64_t now = tp_now(tp);
	uint32_t w = tp->cfg.window;

	if (!c)
		return;
	tp->stats.acks_rx++;
	if (c->state != TP_CTX_ESTABLISHED) {
		c->state = TP_CTX_ESTABLISHED;
		c->session = p->src_ctx;
		c->need_connect = false;
		c->connect_deadline = 0;
	}
	/* Seed 004: an ack older than what we know tells nothing new. */
	if (!c->win || seq_lt(p->bsn, c->bsn))
		return;
	if (seq_lt(c->nsn, p->bsn)) {
		tp->stats.drops[WREN_TP_DROP_INVALID]++;
		return;
	}
	for (uint32_t psn = c->bsn; psn != p->bsn; psn++)
		ack_one(tp, c, psn, &t);
	for (uint32_t i = 0; i < p->ack.words * 64u; i++) {
		uint32_t psn = p->bsn + 1 + i;

		if (!seq_lt(psn, c->nsn))
			break;
		if (tp_get64(p->ack.bitmap + (i / 64) * 8) >> (i % 64) & 1)
			ack_one(tp, c, psn, &t);
	}

	/* The echoed copy gives its sub-flow's round trip. */
	if (p->sf < tp->cfg.subflows && seq_le(c->bsn, p->psn) &&
	    seq_lt(p->psn, c->nsn) && c->win[p->psn & (w - 1)].sent_ts == p->ts) {
		struct tp_subflow *s = &c->sf[p->sf];
		uint32_t rtt = (uint32_t)now - p->ts;

		if (rtt > p->ack.hold_ns && rtt < (1U << 31)) {
			rtt_sample(c, s, rtt - p->ack.hold_ns);
			sf_judge_path(tp, c, s, p->ack.ce_count);
		}
		s->backoff = 0;
		t.mask |= 1U << p->sf;
	}
	ctx_advance_bsn(tp, c);
	for (uint32_t i = 0; i < tp->cfg.subflows; i++) {
		struct tp_subflow *s = &c->sf[i];

		if (!(t.mask & 1U << i))
			continue;
		sf_detect_losses(tp, c, i);
		/* Seed 000 claim 11: an answer re-arms the sub-flow's timer. */
		s->rto_deadline = s->inflight ? now + sf_rto(tp, c, s, s->backoff) : 0;
		tp_cc_on_ack(tp, s, t.bytes[i],
			     i == p->sf ? p->ack.ce_count : 0, t.pkts[i]);
	}
	ctx_timer_update(tp, c);
	tp_tx_update_ready(tp, c);
	ctx_idle_check(tp, c);
}

/* Start over in a new incarnation: the target lost our context. */
static void ctx_reestablish(struct wren_tp *tp, struct tp_ctx *c)
{
	uint32_t resent = 0;

	for (uint32_t psn = c->bsn; psn != c->nsn; psn++) {
		struct tp_pkt *p = &c->win[psn & (tp->cfg.window - 1)];

		resent += p->state == TP_PKT_INFLIGHT ||
			  p->state == TP_PKT_LOST;
		p->state = TP_PKT_FREE;
		p->msg = NULL;
	}
	ctx_deactivate(tp, c);
	ctx_begin(tp, c);
	for (struct tp_msg *m = c->msgs; m; m = m->next) {
		m->msn = c->next_msn++;
		m->next_off = 0;
		m->granted = 0;
		m->unacked = 0;
		m->req_sent = false;
		m->started = false;
	}
	tp->stats.retx[WREN_TP_RETX_RECONNECT] += resent;
	tp->stats.ctx_reestablished++;
	ctx_timer_update(tp, c);
	tp_tx_update_ready(tp, c);
	ctx_idle_check(tp, c);
}

void tp_tx_nack(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_ctx *c = ctx_of_reply(tp, p);
	struct tp_pkt *pkt;

	if (!c)
		return;
	tp->stats.nacks_rx++;
	if (p->nack.reason == WREN_WIRE_NACK_UNKNOWN_CTX) {
		ctx_reestablish(tp, c);
		return;
	}
	if (!c->win || !seq_le(c->bsn, p->psn) || !seq_lt(p->psn, c->nsn))
		return;
	pkt = &c->win[p->psn & (tp->cfg.window - 1)];
	if (p->nack.reason == WREN_WIRE_NACK_TRIMMED) {
		if (pkt->state == TP_PKT_INFLIGHT && pkt->sent_ts == p->ts) {
			/* A switch queue overflowed on that path. */
			tp_cc_on_loss(tp, &c->sf[pkt->sf]);
			mark_lost(tp, c, p->psn, WREN_TP_RETX_NACK);
			tp_tx_update_ready(tp, c);
		}
		return;
	}
	/* WREN_WIRE_NACK_STATUS: the target refused the whole message. */
	if (pkt->msg && pkt->msg->msn == p->nack.msn) {
		static const uint8_t to_tp[] = {
			[WREN_WIRE_ST_BAD_DEST_QP] = WREN_TP_BAD_DEST_QP,
			[WREN_WIRE_ST_RNR] = WREN_TP_RNR,
			[WREN_WIRE_ST_REMOTE_OP] = WREN_TP_REMOTE_OP_ERROR,
			[WREN_WIRE_ST_TOO_LONG] = WREN_TP_TOO_LONG,
			[WREN_WIRE_ST_REMOTE_ACCESS] = WREN_TP_REMOTE_ACCESS,
		};

		msg_finish(tp, c, pkt->msg, to_tp[p->nack.status]);
	}
	ctx_advance_bsn(tp, c);
	tp_tx_update_ready(tp, c);
	ctx_idle_check(tp, c);
}

void tp_tx_connect_ack(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_ctx *c = ctx_of_reply(tp, p);

	if (!c || c->state != TP_CTX_CONNECTING)
		return;
	c->state = TP_CTX_ESTABLISHED;
	c->session = p->src_ctx;
	c->need_connect = false;
	c->connect_deadline = 0;
	ctx_timer_update(tp, c);
	tp_tx_update_ready(tp, c);
}

void tp_tx_grant(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_ctx *c = ctx_of_reply(tp, p);

	if (!c)
		return;
	tp->stats.grants_rx++;
	for (struct tp_msg *m = c->msgs; m; m = m->next) {
		if (m->msn != p->grant.msn)
			continue;
		if (m->needs_grant && seq_lt(m->granted, p->grant.granted))
			m->granted = min_u64(p->grant.granted, m->m.len);
		break;
	}
	tp_tx_update_ready(tp, c);
}

/* ------------------------------------------------------------------ */
/* Timers                                                               */
/* ------------------------------------------------------------------ */

/*
 * Seed 000 claim 11: no answer on a sub-flow for a retransmit timeout.
 * Its path is presumed broken: every packet in flight on it is resent on
 * the other sub-flows and, with cfg.repath, the sub-flow moves to a new
 * path (a new entropy).  Returns false if the context failed.
 */
static bool sf_timeout(struct wren_tp *tp, struct tp_ctx *c, uint32_t sfi)
{
	struct tp_subflow *s = &c->sf[sfi];
	uint32_t rmask = 2 * tp->cfg.window - 1;
	uint64_t now = tp_now(tp), next = UINT64_MAX;
	bool lost = false, lost_here = false;

	for (uint32_t seq = s->head_seq; seq != s->next_seq; seq++) {
		uint32_t idx = s->ring[seq & rmask];
		struct tp_pkt *p = &c->win[idx];
		uint64_t due;

		if (p->state != TP_PKT_INFLIGHT || p->sf != sfi ||
		    p->sf_seq != seq)
			continue;
		/* Each packet backs off on its own: one that timed out k
		 * times waits 2^k timeouts, so giving up takes a while.
		 */
		due = p->sent_ns + sf_rto(tp, c, s, p->timeouts);
		if (due > now) {
			next = min_u64(next, due);
			continue;
		}
		/*
		 * Give up only on a target that has said nothing since; one
		 * that answers is alive, and its packets are lost to
		 * congestion: keep trying at the longest backoff.
		 */
		if (++p->timeouts > tp->cfg.max_retries) {
			if (!c->answered || c->answered_ns < p->sent_ns) {
				ctx_fail(tp, c);
				return false;
			}
			p->timeouts = tp->cfg.max_retries;
		}
		mark_lost(tp, c, slot_psn(tp, c, idx), WREN_TP_RETX_TIMEOUT);
		lost = true;
		lost_here |= !seq_lt(p->sf_seq, s->repath_seq);
	}
	s->rto_deadline = next == UINT64_MAX ? 0 : next;
	/*
	 * Packets sent on a path the sub-flow has left already time out one
	 * after the other, each on its own backoff, and say nothing about
	 * the path it is on now.  Moving it, doubling its timeout and halving
	 * its window again for each of them would only push the first loss
	 * on the new path, should that one be dead too, out to 2^k timeouts.
	 */
	if (!lost || (tp->cfg.repath && !lost_here))
		return true;
	if (s->backoff < TP_MAX_BACKOFF)
		s->backoff++;
	if (tp->cfg.repath)
		sf_repath(tp, c, s);
	tp_cc_on_timeout(tp, s);
	return true;
}

void tp_tx_timer(struct wren_tp *tp, struct tp_ctx *c)
{
	uint64_t now = tp_now(tp);

	if (c->connect_deadline && c->connect_deadline <= now) {
		c->connect_deadline = 0;
		if (++c->connect_tries > tp->cfg.max_retries) {
			ctx_fail(tp, c);
			return;
		}
		/*
		 * No answer: the CONNECT or its CONNECT_ACK died on the way,
		 * perhaps on a dead path.  Its sub-flow moves to another, as a
		 * sub-flow does when its timer expires, or every retry would
		 * take the same path and the target be given up as
		 * unreachable although other paths lead to it.
		 */
		if (tp->cfg.repath && c->sf)
			sf_repath(tp, c, &c->sf[0]);
		c->need_connect = true;
	}
	if (c->sf) {
		for (uint32_t i = 0; i < tp->cfg.subflows; i++) {
			uint64_t d = c->sf[i].rto_deadline;

			if (d && d <= now && !sf_timeout(tp, c, i))
				return;
		}
	}
	if (tp_linked(&c->idle) && c->idle_since + tp->cfg.idle_ns <= now) {
		tp_ctx_evict(tp, c);
		serve_waiting(tp);
		return;
	}
	ctx_timer_update(tp, c);
	tp_tx_update_ready(tp, c);
}

void tp_tx_destroy(struct wren_tp *tp)
{
	for (uint32_t i = 0; i < tp->cfg.max_ctx; i++) {
		struct tp_ctx *c = &tp->ctx[i];

		if (c->state == TP_CTX_FREE)
			continue;
		finish_detached(tp, c->msgs, WREN_TP_FLUSHED);
		c->msgs = NULL;
		ctx_deactivate(tp, c);
	}
	finish_detached(tp, tp->waiting, WREN_TP_FLUSHED);
	tp->waiting = NULL;
	tp_ctx_free_table(tp);
}
