// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport, initiator side: transport contexts and their life cycle
 * (Documentation/transport.rst, "Transport contexts"), and the messages posted on them.
 *
 * A context lives from the first message to its target until it has been
 * idle for cfg.idle_ns, or is the least recently used idle context when the
 * cache is full and has no record in a host table to go back to; it then
 * sends CLOSE and its slot is reused under a new epoch (tp_table.c).
 * Its window and sub-flow state (tp_path.c) exist only while it has work.
 * A message waits for a context if the cache is full, then is queued on
 * its context in posting order and finishes exactly once, with tx_done.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

static void msg_free(struct wren_tp *tp, struct tp_msg *m)
{
	tp_peer_put(tp, m->dst.ipv4, TP_POOL_TX_MSGS);
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
void tp_msg_finish(struct wren_tp *tp, struct tp_ctx *c, struct tp_msg *m,
		       enum wren_tp_status status)
{
	uint64_t cookie = m->cookie;
	uint32_t qpn = m->m.src_qpn;

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
		TP_COUNT_QP(tp, qpn, tx_msgs, 1);
	else
		tp_count_error(tp, qpn, status);
	tp->ulp->tx_done(tp->ulp_opaque, cookie, status);
}

/* The window moves once its base packet is acknowledged. */
void tp_ctx_advance_bsn(struct wren_tp *tp, struct tp_ctx *c)
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
		uint32_t qpn = m->m.src_qpn;

		list = m->next;
		msg_free(tp, m);
		tp_count_error(tp, qpn, status);
		tp->ulp->tx_done(tp->ulp_opaque, cookie, status);
	}
}

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
	tp_ctx_deactivate(tp, c);
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
		.sport = tp_random_entropy(tp), .src_ctx = c->id,
		.dst_ctx = c->session, .epoch = c->epoch, .psn = c->nsn,
	};

	memcpy(close.mac, c->mac, sizeof(close.mac));
	tp_ctl_push(tp, &close);
	tp->stats.ctx_evicted++;
	ctx_free(tp, c);
}

/* Start a new incarnation of @c: epoch, first PSN, empty window. */
void tp_ctx_begin(struct wren_tp *tp, struct tp_ctx *c)
{
	c->epoch = tp->store ? c->epoch + 1 : tp->epochs[c->id]++;
	c->session = WREN_WIRE_CTX_NONE;
	c->state = c->mode == WREN_TP_MODE_HANDSHAKE ? TP_CTX_CONNECTING :
						       TP_CTX_SYN;
	c->need_connect = c->mode == WREN_TP_MODE_HANDSHAKE;
	c->connect_tries = 0;
	c->connect_deadline = 0;
	c->grant_deadline = 0;
	c->grant_probes = c->grant_asks = 0;
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
	struct tp_ctx *owner = NULL;
	uint32_t id = 0;
	int back = 0;

	*err = 0;
	if (c)
		return c;
	if (!tp_ctx_room(tp))
		return NULL;
	if (tp->store) {
		back = tp_tc_claim(tp, d, &id, &rec, &owner);
		if (back < 0) {
			*err = back == -EAGAIN ? 0 : back;
			return NULL;
		}
		/* The record is held by an idle context: it leaves first. */
		if (owner)
			tp_ctx_evict(tp, owner);
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
		tp_ctx_begin(tp, c);
		tp->stats.ctx_created++;
	}
	if (tp->store)
		tp_tc_hold(tp, c);
	return c;
}

void tp_ctx_idle_check(struct wren_tp *tp, struct tp_ctx *c)
{
	if (c->msgs || c->bsn != c->nsn || tp_linked(&c->idle) ||
	    c->state == TP_CTX_CONNECTING)
		return;
	tp_ctx_deactivate(tp, c);
	c->idle_since = tp_now(tp);
	tp_list_add_tail(&tp->idle, &c->idle);
	tp_ctx_timer_update(tp, c);
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
		tp_ctx_timer_update(tp, c);
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
			   WREN_TP_MSG_FAILED | WREN_TP_MSG_CONNECTED) ||
	    !dst->ipv4 ||
	    (dst->mode != WREN_TP_MODE_OPTIMISTIC &&
	     dst->mode != WREN_TP_MODE_HANDSHAKE))
		return -EINVAL;
	m = tp->msg_free;
	if (!m)
		return -ENOBUFS;
	if (!tp_peer_take(tp, dst->ipv4, TP_POOL_TX_MSGS))
		return -EAGAIN;
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

void tp_ctx_timer(struct wren_tp *tp, struct tp_ctx *c)
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
			tp_sf_repath(tp, c, &c->sf[0]);
		c->need_connect = true;
	}
	if (c->sf) {
		for (uint32_t i = 0; i < tp->cfg.subflows; i++) {
			uint64_t d = c->sf[i].rto_deadline;

			if (d && d <= now && !tp_sf_timeout(tp, c, i)) {
				ctx_fail(tp, c);
				return;
			}
		}
	}
	if (c->grant_deadline && c->grant_deadline <= now) {
		struct tp_msg *m = tp_grant_stalled(tp, c);

		c->grant_deadline = 0;
		if (m)
			c->grant_asks++;
		if (m && ++c->grant_probes > tp->cfg.max_retries) {
			ctx_fail(tp, c);
			return;
		}
		if (m) {
			/*
			 * Ask again: a GRANT_REQ of the message's own, which
			 * the target answers with its latest grant, or (if it
			 * forgot the context) with a NACK that starts a new
			 * incarnation.
			 */
			m->req_sent = false;
			tp->stats.grant_probes++;
		}
	}
	if (tp_linked(&c->idle) && c->idle_since + tp->cfg.idle_ns <= now) {
		tp_ctx_evict(tp, c);
		serve_waiting(tp);
		return;
	}
	tp_ctx_timer_update(tp, c);
	tp_tx_update_ready(tp, c);
}

void tp_ctx_destroy(struct wren_tp *tp)
{
	for (uint32_t i = 0; i < tp->cfg.max_ctx; i++) {
		struct tp_ctx *c = &tp->ctx[i];

		if (c->state == TP_CTX_FREE)
			continue;
		finish_detached(tp, c->msgs, WREN_TP_FLUSHED);
		c->msgs = NULL;
		tp_ctx_deactivate(tp, c);
	}
	finish_detached(tp, tp->waiting, WREN_TP_FLUSHED);
	tp->waiting = NULL;
	tp_ctx_free_table(tp);
}
