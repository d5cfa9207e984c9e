// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport, initiator side: paths and retransmission timers.
 *
 * A context with work has a window of packets and cfg.subflows sub-flows,
 * each a path through the network named by its entropy (the UDP source
 * port), with its own round-trip estimate, congestion window
 * (tp_cc.c) and retransmit timer (Documentation/transport.rst,
 * "Multipath").  This file chooses the
 * sub-flow of each packet, keeps the timers, queues lost packets for
 * retransmission and moves a sub-flow that loses or queues to a new
 * path.  It decides nothing about messages or the context's life: a
 * sub-flow that must give up says so to its caller (tp_ctx.c).
 */
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

size_t tp_win_bytes(const struct wren_tp *tp)
{
	return tp->cfg.window * (sizeof(struct tp_pkt) + 2 * sizeof(uint32_t)) +
	       tp->cfg.subflows * (sizeof(struct tp_subflow) +
				   2 * tp->cfg.window * sizeof(uint16_t));
}

/* A random path none of @c's sub-flows is on, as far as a few tries go. */
static uint16_t new_entropy(struct wren_tp *tp, const struct tp_ctx *c)
{
	for (int tries = 0;; tries++) {
		uint16_t e = tp_random_entropy(tp);
		bool clash = false;

		for (uint32_t i = 0; i < tp->cfg.subflows; i++)
			clash |= c->sf[i].entropy == e;
		if (!clash || tries > 8)
			return e;
	}
}

int tp_ctx_activate(struct wren_tp *tp, struct tp_ctx *c)
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

void tp_ctx_deactivate(struct wren_tp *tp, struct tp_ctx *c)
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
uint64_t tp_sf_rto(const struct wren_tp *tp, const struct tp_ctx *c,
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

/*
 * The message of @c that waits for grants while nothing of @c is in
 * flight, or NULL: with no packet out, no retransmission timer runs, and
 * if the grants stopped for good (lost, or the target forgot the context)
 * only asking again (tp_ctx_timer()) finds out.
 */
struct tp_msg *tp_grant_stalled(const struct wren_tp *tp,
				const struct tp_ctx *c)
{
	if (!tp->cfg.grant_threshold || !c->win || c->bsn != c->nsn ||
	    c->state == TP_CTX_CONNECTING)
		return NULL;
	for (struct tp_msg *m = c->msgs; m; m = m->next)
		if (m->needs_grant && m->req_sent &&
		    m->next_off == m->granted && m->granted < m->m.len)
			return m;
	return NULL;
}

void tp_ctx_timer_update(struct wren_tp *tp, struct tp_ctx *c)
{
	uint64_t d = UINT64_MAX;

	if (!tp_grant_stalled(tp, c))
		c->grant_deadline = 0;
	else if (!c->grant_deadline && c->sf)
		c->grant_deadline = tp_now(tp) + tp_sf_rto(tp, c, &c->sf[0],
							   c->grant_asks);
	if (c->grant_deadline)
		d = min_u64(d, c->grant_deadline);

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

/* Drop the oldest transmissions of a sub-flow that are settled. */
void tp_sf_pop_settled(struct wren_tp *tp, struct tp_ctx *c, uint32_t sfi)
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
 * holding sending back).  Ties go round robin; @avoid (or TP_NONE) is
 * passed over.
 */
uint32_t tp_pick_subflow(struct wren_tp *tp, struct tp_ctx *c,
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
			tp_sf_pop_settled(tp, c, i);
			if (s->next_seq - s->head_seq >= 2 * tp->cfg.window)
				continue;
		}
		if (!tp_cc_allows(s, charge, &t)) {
			s->cwnd_limited = true;
			continue;
		}
		room = (int64_t)s->cwnd - s->inflight_bytes;
		if (room > best_room) {
			best = i;
			best_room = room;
		}
	}
	c->sf_rr++;
	return best;
}

/*
 * The sub-flow to resend a packet lost on @lost on: of @pick (the one
 * with the most room) and the others, the one an ACK came back along
 * last (tp_sf_came_back()).  Room says nothing of the way back: ACKs of
 * other sub-flows cover the packets of a sub-flow whose way back died,
 * so it looks healthy (until tp_sf_judge_way_back() finds it out), and
 * the answer to a copy sent there, often the last one its message waits
 * for, is lost again (netsim's S13 with links dark).  A sub-flow that
 * moved has proven nothing of its new path yet.  Retransmissions are
 * not held back by the windows, only counted in them.
 */
uint32_t tp_proven_subflow(struct wren_tp *tp, struct tp_ctx *c,
			   uint32_t lost, uint32_t pick)
{
	for (uint32_t i = 0; i < tp->cfg.subflows; i++)
		if (i != lost && c->sf[i].echo_ns > c->sf[pick].echo_ns)
			pick = i;
	return pick;
}

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

void tp_mark_lost(struct wren_tp *tp, struct tp_ctx *c, uint32_t psn,
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
uint32_t tp_slot_psn(const struct wren_tp *tp, const struct tp_ctx *c,
			 uint32_t idx)
{
	return c->bsn + ((idx - c->bsn) & (tp->cfg.window - 1));
}

void tp_rtt_sample(struct tp_ctx *c, struct tp_subflow *s, uint64_t rtt)
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
void tp_sf_repath(struct wren_tp *tp, struct tp_ctx *c, struct tp_subflow *s)
{
	s->entropy = new_entropy(tp, c);
	s->echo_ns = 0;
	s->min_rtt_ns = c->base_rtt_ns;
	/* Packets still on the old path may arrive after the new ones. */
	memcpy(s->highest_acked_old, s->highest_acked,
	       sizeof(s->highest_acked));
	s->repath_seq = s->next_seq;
	s->congested = 0;
	s->unechoed = 0;
	s->asking = false;
	tp->stats.path_changes++;
}

/*
 * A sub-flow whose every answer for TP_CONGESTED_SAMPLES in a row shows
 * queueing above the target or ECN marks is on a congested path: with
 * cfg.repath it tries another, as congestion that all paths share stays
 * whatever the entropy, and congestion of one path does not.
 */
void tp_sf_judge_path(struct wren_tp *tp, struct tp_ctx *c,
			  struct tp_subflow *s, uint32_t ce)
{
	if (s->qdelay_ns <= tp->cfg.cc_target_ns && !ce) {
		s->congested = 0;
		return;
	}
	if (tp->cfg.repath && ++s->congested >= TP_CONGESTED_SAMPLES)
		tp_sf_repath(tp, c, s);
}

/*
 * An ACK came back on @s's path: the way back works.  A path that
 * delivers and does not answer (one direction of a link dark, as in
 * netsim's S13 with links down) has its packets acknowledged by the other
 * sub-flows' ACKs and looks healthy: no timeout fires and its window
 * grows, with no RTT sample nor ECN echo to hold it; but every ACK and
 * GRANT the target sends back along it is lost, the last ACK of a
 * message among them, which then waits out a retransmit timeout.
 */
void tp_sf_came_back(struct tp_subflow *s, uint64_t now)
{
	s->echo_ns = now;
	s->unechoed = 0;
	s->asking = false;
}

/*
 * Should @s's next packet (sub-flow sequence @seq) ask for its ACK at
 * once?  On a path whose way back is unproven (new, or silent for
 * TP_ECHO_ASK acknowledged packets: ACKs name the latest packet to
 * arrive, and sub-flows sent in turn may seldom be it), yes.
 */
bool tp_sf_ask_way_back(const struct wren_tp *tp, struct tp_subflow *s,
			uint32_t seq)
{
	if (!tp->cfg.repath || s->asking ||
	    (s->echo_ns && s->unechoed < TP_ECHO_ASK))
		return false;
	s->asking = true;
	s->ask_seq = seq;
	s->past_ask = 0;
	return true;
}

/*
 * The ask went unanswered while TP_ECHO_LATE packets sent after it on
 * the same path were acknowledged by other ACKs: it arrived (a path
 * delivers in order) and its ACK was lost on the way back.  Move.
 */
void tp_sf_judge_way_back(struct wren_tp *tp, struct tp_ctx *c,
			  struct tp_subflow *s)
{
	if (s->asking && s->past_ask >= TP_ECHO_LATE)
		tp_sf_repath(tp, c, s);
}

/*
 * How long after it was sent a packet of @s that later packets have
 * overtaken is given up: its own path's round trip with four deviations
 * and the target's longest ACK delay, without the RTO's floor.
 */
static uint64_t sf_overtaken_after(const struct wren_tp *tp,
				   const struct tp_subflow *s)
{
	return s->srtt_ns + 4 * s->rttvar_ns + tp->cfg.ack_delay_ns;
}

/*
 * Has the target acknowledged a packet sent after @p, which is still
 * out, and no more urgent than @p?  Then the target lives and the
 * network delivers, and @p, judged by its own path's round trip, is
 * overdue because its path failed.  A more urgent packet passes @p in
 * the switches' queues (cfg.prio_short): a short message overtaking a
 * long one says nothing of the long one's path (in netsim's S17,
 * counting it made half of some 1,000 timeouts a run, each resending a
 * packet that had arrived).  A sub-flow that has not
 * measured its path yet is not judged: its path may be longer than the
 * others.
 */
static bool pkt_overtaken(const struct wren_tp *tp, const struct tp_ctx *c,
			  const struct tp_subflow *s, const struct tp_pkt *p)
{
	return s->srtt_ns && p->sent_ns < c->acked_sent_ns[tp_pkt_prec(tp, p)];
}

/*
 * Arm each sub-flow's timer for its oldest overtaken packet, sooner than
 * its RTO: min_rto_ns (50 us) is many round trips of a data-centre path,
 * and a path that died (netsim's S13 with links dark) held a sub-flow's
 * packets for that long, and again after each move that landed on
 * another dead path, while the other sub-flows' packets sent after them
 * came back in a few microseconds.  A path 50 us longer than another
 * (S3) is not taken for dead: each packet is judged by the round trip
 * of the sub-flow that carries it.
 */
void tp_sf_overtaken(struct wren_tp *tp, struct tp_ctx *c)
{
	uint32_t rmask = 2 * tp->cfg.window - 1;

	if (!c->sf || !tp->cfg.repath)
		return;
	for (uint32_t i = 0; i < tp->cfg.subflows; i++) {
		struct tp_subflow *s = &c->sf[i];
		const struct tp_pkt *p;
		uint64_t d;

		if (!s->inflight)
			continue;
		tp_sf_pop_settled(tp, c, i);
		if (s->head_seq == s->next_seq)
			continue;
		p = &c->win[s->ring[s->head_seq & rmask]];
		if (!pkt_overtaken(tp, c, s, p))
			continue;
		d = p->sent_ns + sf_overtaken_after(tp, s);
		if (!s->rto_deadline || d < s->rto_deadline)
			s->rto_deadline = d;
	}
}

/*
 * No answer on a sub-flow for a retransmit timeout.
 * Its path is presumed broken: every packet in flight on it is resent on
 * the other sub-flows and, with cfg.repath, the sub-flow moves to a new
 * path (a new entropy).  Returns false if the target must be given up:
 * the caller then fails the context.
 */
bool tp_sf_timeout(struct wren_tp *tp, struct tp_ctx *c, uint32_t sfi)
{
	struct tp_subflow *s = &c->sf[sfi];
	uint32_t rmask = 2 * tp->cfg.window - 1;
	uint64_t now = tp_now(tp), next = UINT64_MAX;
	bool lost = false, lost_here = false;
	uint64_t oldest = UINT64_MAX;

	for (uint32_t seq = s->head_seq; seq != s->next_seq; seq++) {
		uint32_t idx = s->ring[seq & rmask];
		struct tp_pkt *p = &c->win[idx];
		uint64_t due;

		if (p->state != TP_PKT_INFLIGHT || p->sf != sfi ||
		    p->sf_seq != seq)
			continue;
		/*
		 * Each packet backs off on its own: one that timed out k
		 * times waits 2^k timeouts, so giving up a silent target
		 * takes a while.  One that later packets overtook waits only
		 * its own round trip (tp_sf_overtaken()), and while the
		 * target answers, one timeout: it is alive, and what was lost
		 * was a path, not the target (in S13, doubling after each
		 * copy that met another dead path made the tail).
		 */
		if (tp->cfg.repath && pkt_overtaken(tp, c, s, p))
			due = p->sent_ns + sf_overtaken_after(tp, s);
		else if (c->answered && c->answered_ns > p->sent_ns)
			due = p->sent_ns + tp_sf_rto(tp, c, s, 0);
		else
			due = p->sent_ns + tp_sf_rto(tp, c, s, p->timeouts);
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
			if (!c->answered || c->answered_ns < p->sent_ns)
				return false;
			p->timeouts = tp->cfg.max_retries;
		}
		oldest = min_u64(oldest, p->sent_ns);
		tp_mark_lost(tp, c, tp_slot_psn(tp, c, idx), WREN_TP_RETX_TIMEOUT);
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
	/* The sub-flow's timer doubles only for a target gone silent. */
	if (s->backoff < TP_MAX_BACKOFF &&
	    !(c->answered && c->answered_ns > oldest))
		s->backoff++;
	if (tp->cfg.repath)
		tp_sf_repath(tp, c, s);
	tp_cc_on_timeout(tp, s);
	return true;
}
