// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport, initiator side: what targets answer.  ACKs (a
 * cumulative base and a selective bitmap), loss detection per
 * sub-flow, round-trip samples, NACKs (a trimmed packet, a refused
 * message, a target that lost the context), CONNECT_ACK and GRANT.
 * Reordering between paths never counts as loss: only packets of the same
 * sub-flow are compared.
 */
#include <string.h>

#include "tp_internal.h"

/* The context a packet from a target answers, or NULL if it is stale. */
static struct tp_ctx *ctx_of_reply(struct wren_tp *tp,
				   const struct tp_rx_pkt *p)
{
	struct tp_ctx *c;

	c = tp_ctx_by_id(tp, p->dst_ctx);
	if (!c || c->epoch != p->epoch || c->ipv4 != p->src_ip) {
		TP_DROP(tp, stale);
		return NULL;
	}
	return c;
}

/*
 * The target is alive: it answered with something that fits @c.  An
 * answer that contradicts the context (an ACK beyond what was sent) does
 * not count, or a target whose state went wrong, answering every resent
 * packet with such an ACK, would be retried for ever (tp_sf_timeout()).
 */
static void ctx_answered(struct wren_tp *tp, struct tp_ctx *c)
{
	c->answered = true;
	c->answered_ns = tp_now(tp);
}

/*
 * A sub-flow's path delivers in order, so a packet is lost once
 * cfg.dupthresh later packets of its own sub-flow, no more urgent than
 * it, have been acknowledged.  Packets on other, slower paths are not
 * compared: reordering between paths never triggers a retransmission;
 * nor are more urgent ones, which switches serving precedence strictly
 * send ahead (in netsim's Google RPC traffic, short messages overtaking
 * long ones to the same target made every fast retransmission).
 */
static void sf_detect_losses(struct wren_tp *tp, struct tp_ctx *c, uint32_t sfi)
{
	struct tp_subflow *s = &c->sf[sfi];
	uint32_t rmask = 2 * tp->cfg.window - 1;

	for (tp_sf_pop_settled(tp, c, sfi); s->head_seq != s->next_seq;
	     tp_sf_pop_settled(tp, c, sfi)) {
		uint32_t idx = s->ring[s->head_seq & rmask];
		const struct tp_pkt *p = &c->win[idx];
		/* Only packets that took the same path say anything. */
		uint32_t highest = (seq_lt(p->sf_seq, s->repath_seq) ?
				    s->highest_acked_old :
				    s->highest_acked)[tp_pkt_prec(tp, p)];

		if ((int32_t)(highest - 1 - p->sf_seq) <
		    (int32_t)tp->cfg.dupthresh)
			break;
		tp_mark_lost(tp, c, tp_slot_psn(tp, c, idx), WREN_TP_RETX_FAST);
	}
}

static bool msg_fully_sent(const struct tp_msg *m)
{
	return m->started && m->next_off == m->m.len &&
	       (!m->needs_grant || m->req_sent);
}

static void msg_check_done(struct wren_tp *tp, struct tp_ctx *c,
			   struct tp_msg *m)
{
	if (!m->unacked && msg_fully_sent(m))
		tp_msg_finish(tp, c, m, WREN_TP_OK);
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
				    s->highest_acked_old : s->highest_acked;

		s->inflight--;
		s->inflight_bytes -= tp_cc_charge(p->len);
		/*
		 * It speaks for the packets of its sub-flow as urgent as it
		 * or more: of its precedence and above.  Which copy of a
		 * resent packet arrived is unknown: if it was the first, on
		 * another sub-flow, the packets sent here before this copy
		 * may well still be on their way.
		 */
		for (uint8_t q = tp_pkt_prec(tp, p);
		     !p->resent && q < TP_DATA_PRECS; q++) {
			if (seq_le(highest[q], p->sf_seq))
				highest[q] = p->sf_seq + 1;
			c->acked_sent_ns[q] = max_u64(c->acked_sent_ns[q],
						      p->sent_ns);
		}
		if (!p->resent && !seq_lt(p->sf_seq, s->repath_seq)) {
			s->unechoed++;
			s->past_ask += s->asking && seq_lt(s->ask_seq, p->sf_seq);
		}
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

/* Start over in a new incarnation: the target lost our context. */
static void ctx_reestablish(struct wren_tp *tp, struct tp_ctx *c)
{
	for (uint32_t psn = c->bsn; psn != c->nsn; psn++) {
		struct tp_pkt *p = &c->win[psn & (tp->cfg.window - 1)];

		if (p->state == TP_PKT_INFLIGHT || p->state == TP_PKT_LOST)
			tp_count_retx(tp,
				      p->msg ? p->msg->m.src_qpn : UINT32_MAX,
				      WREN_TP_RETX_RECONNECT, 1);
		p->state = TP_PKT_FREE;
		p->msg = NULL;
	}
	tp_ctx_deactivate(tp, c);
	tp_ctx_begin(tp, c);
	for (struct tp_msg *m = c->msgs; m; m = m->next) {
		m->msn = c->next_msn++;
		m->next_off = 0;
		m->granted = 0;
		m->unacked = 0;
		m->req_sent = false;
		m->started = false;
	}
	tp->stats.ctx_reestablished++;
	tp_ctx_timer_update(tp, c);
	tp_tx_update_ready(tp, c);
	tp_ctx_idle_check(tp, c);
}

void tp_on_ack(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_ctx *c = ctx_of_reply(tp, p);
	struct ack_tally t = { 0 };
	uint64_t now = tp_now(tp);
	uint32_t w = tp->cfg.window;

	if (!c)
		return;
	tp->stats.rx_acks++;
	if (c->state != TP_CTX_ESTABLISHED) {
		c->state = TP_CTX_ESTABLISHED;
		c->session = p->src_ctx;
		c->need_connect = false;
		c->connect_deadline = 0;
	}
	if (!c->win)
		return;
	/*
	 * It came back on the path of the sub-flow it names, late or not:
	 * ACKs on different ways back overtake each other.
	 */
	if (p->sf < tp->cfg.subflows && p->sport == c->sf[p->sf].entropy)
		tp_sf_came_back(&c->sf[p->sf], now);
	/* An ack older than what we know tells nothing new. */
	if (seq_lt(p->bsn, c->bsn))
		return;
	if (seq_lt(c->nsn, p->bsn)) {
		/*
		 * It acknowledges what was never sent: the target's state
		 * contradicts ours (an altered packet opened its context) and
		 * will go on doing so.  Start over, as when it forgot us.
		 */
		TP_DROP(tp, invalid);
		ctx_reestablish(tp, c);
		return;
	}
	ctx_answered(tp, c);
	for (uint32_t psn = c->bsn; psn != p->bsn; psn++)
		ack_one(tp, c, psn, &t);
	for (uint32_t i = 0; i < p->ack.words * 64u; i++) {
		uint32_t psn = p->bsn + 1 + i;

		if (!seq_lt(psn, c->nsn))
			break;
		if (wren_wire_get64(p->ack.bitmap + (i / 64) * 8) >> (i % 64) & 1)
			ack_one(tp, c, psn, &t);
	}

	/* The echoed copy gives its sub-flow's round trip. */
	if (p->sf < tp->cfg.subflows && seq_le(c->bsn, p->psn) &&
	    seq_lt(p->psn, c->nsn) && c->win[p->psn & (w - 1)].sent_ts == p->ts) {
		struct tp_subflow *s = &c->sf[p->sf];
		uint32_t rtt = (uint32_t)now - p->ts;

		if (rtt > p->ack.hold_ns && rtt < (1U << 31)) {
			tp_rtt_sample(c, s, rtt - p->ack.hold_ns);
			tp_sf_judge_path(tp, c, s, p->ack.ce_count);
		}
		s->backoff = 0;
		t.mask |= 1U << p->sf;
	}
	tp_ctx_advance_bsn(tp, c);
	for (uint32_t i = 0; i < tp->cfg.subflows; i++) {
		struct tp_subflow *s = &c->sf[i];

		if (!(t.mask & 1U << i))
			continue;
		sf_detect_losses(tp, c, i);
		tp_sf_judge_way_back(tp, c, s);
		/* An answer re-arms the sub-flow's timer. */
		s->rto_deadline = s->inflight ? now + tp_sf_rto(tp, c, s, s->backoff) : 0;
		tp_cc_on_ack(tp, s, t.bytes[i],
			     i == p->sf ? p->ack.ce_count : 0, t.pkts[i]);
	}
	tp_sf_overtaken(tp, c);
	tp_ctx_timer_update(tp, c);
	tp_tx_update_ready(tp, c);
	tp_ctx_idle_check(tp, c);
}


void tp_on_nack(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_ctx *c = ctx_of_reply(tp, p);
	struct tp_pkt *pkt;

	if (!c)
		return;
	tp->stats.rx_nacks++;
	if (p->nack.reason == WREN_WIRE_NACK_UNKNOWN_CTX) {
		ctx_reestablish(tp, c);
		return;
	}
	if (!c->win || !seq_le(c->bsn, p->psn) || !seq_lt(p->psn, c->nsn))
		return;
	ctx_answered(tp, c);
	pkt = &c->win[p->psn & (tp->cfg.window - 1)];
	if (p->nack.reason == WREN_WIRE_NACK_TRIMMED) {
		if (pkt->state == TP_PKT_INFLIGHT && pkt->sent_ts == p->ts) {
			/* A switch queue overflowed on that path. */
			tp_cc_on_loss(tp, &c->sf[pkt->sf]);
			tp_mark_lost(tp, c, p->psn, WREN_TP_RETX_NACK);
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

		tp_msg_finish(tp, c, pkt->msg, to_tp[p->nack.status]);
	}
	tp_ctx_advance_bsn(tp, c);
	tp_tx_update_ready(tp, c);
	tp_ctx_idle_check(tp, c);
}

void tp_on_connect_ack(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_ctx *c = ctx_of_reply(tp, p);

	if (!c || c->state != TP_CTX_CONNECTING)
		return;
	ctx_answered(tp, c);
	c->state = TP_CTX_ESTABLISHED;
	c->session = p->src_ctx;
	c->need_connect = false;
	c->connect_deadline = 0;
	tp_ctx_timer_update(tp, c);
	tp_tx_update_ready(tp, c);
}

void tp_on_grant(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct tp_ctx *c = ctx_of_reply(tp, p);

	if (!c)
		return;
	tp->stats.rx_grants++;
	for (struct tp_msg *m = c->msgs; m; m = m->next) {
		if (m->msn != p->grant.msn)
			continue;
		ctx_answered(tp, c);
		/*
		 * Any grant of the message, even one that grants nothing new
		 * (the answer to a GRANT_REQ of a message the target keeps
		 * waiting), says the target is there and holds it.
		 */
		c->grant_probes = 0;
		if (m->needs_grant && seq_lt(m->granted, p->grant.granted)) {
			m->granted = min_u64(p->grant.granted, m->m.len);
			c->grant_asks = 0;
		}
		break;
	}
	tp_tx_update_ready(tp, c);
}
