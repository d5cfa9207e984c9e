// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: congestion control, one window per sub-flow.
 *
 * Each sub-flow of a context has a window in bytes driven by its own
 * queueing delay (its round trip less the shortest seen on it), in the
 * manner of delay-based data-centre schemes: an increase while the delay
 * is under cfg.cc_target_ns (additive, plus a part proportional to the
 * headroom below the target), a decrease proportional to the excess above
 * it, and a decrease proportional to the share of ECN-marked packets; at
 * most one decrease per round trip.  A packet a switch trimmed halves it;
 * a retransmit timeout takes it to the floor.
 *
 * A window per path rather than per context is what lets multipath route
 * around congestion: a path that collides with other traffic shrinks its
 * own window and takes fewer packets, the others keep theirs.  The
 * additive increase is divided among the sub-flows, so a context grows no
 * faster than a single-path one would.
 *
 * A loss found by later acknowledgements does not by itself shrink the
 * window: on a lossy but idle link that would only waste the link, and
 * congestion shows in the delay and the ECN marks first.  Receiver grants
 * (tp_grant.c) say how much of a large message may come into its target's
 * link; these windows, as for any data, how much its paths take.
 */
#include "tp_internal.h"

uint32_t tp_cc_charge(uint32_t payload_len)
{
	return payload_len + WREN_WIRE_DATA_HDRS_LEN;
}

/*
 * The windows of a context's sub-flows at the moment: what they allow in
 * total and what is in flight.
 */
void tp_cc_totals(const struct wren_tp *tp, const struct tp_ctx *c,
		  struct tp_cc_totals *t)
{
	t->cwnd = 0;
	t->inflight = 0;
	for (uint32_t i = 0; i < tp->cfg.subflows; i++) {
		t->cwnd += c->sf[i].cwnd;
		t->inflight += c->sf[i].inflight_bytes;
	}
}

/*
 * Room for @charge more bytes on @s?  Its own window may have it; else a
 * sub-flow with nothing in flight may borrow what its siblings leave
 * unused, so that every path keeps being probed and a window that shrank
 * on congestion can grow back; and a context with nothing in flight may
 * always send one packet.  The floor of each window is its share of
 * cc_min_cwnd, so a context with many sub-flows does not flood an incast.
 */
bool tp_cc_allows(const struct tp_subflow *s, uint32_t charge,
		  const struct tp_cc_totals *t)
{
	return s->inflight_bytes + charge <= s->cwnd || !t->inflight ||
	       (!s->inflight_bytes && t->inflight + charge <= t->cwnd);
}

static uint32_t cc_floor(const struct wren_tp *tp)
{
	return max_u64(1, tp->cfg.cc_min_cwnd / tp->cfg.subflows);
}

/* @s starts with its share of the context's window. */
void tp_cc_init(struct wren_tp *tp, struct tp_ctx *c, struct tp_subflow *s)
{
	s->cwnd = max_u64(cc_floor(tp),
			  (c->cwnd_hint ? c->cwnd_hint : tp->cfg.cc_init_cwnd) /
			  tp->cfg.subflows);
	s->inflight_bytes = 0;
	s->last_decrease_ns = 0;
	s->cwnd_limited = false;
}

static void cc_set(struct wren_tp *tp, struct tp_subflow *s, uint64_t cwnd)
{
	s->cwnd = max_u64(cc_floor(tp), min_u64(cwnd, tp->cfg.cc_max_cwnd));
}

static bool cc_may_decrease(struct wren_tp *tp, struct tp_subflow *s)
{
	uint64_t now = tp_now(tp);
	uint64_t rtt = s->srtt_ns ? s->srtt_ns : tp->cfg.min_rto_ns;

	if (s->last_decrease_ns && now - s->last_decrease_ns < rtt)
		return false;
	s->last_decrease_ns = now;
	tp->stats.cc_decreases++;
	return true;
}

/**
 * tp_cc_on_ack() - adjust a sub-flow's window for an acknowledgement
 * @tp: the transport
 * @s: the sub-flow
 * @acked_bytes: its payload newly acknowledged
 * @ce: ECN-marked packets the target reports against it
 * @acked_pkts: its packets newly acknowledged
 */
void tp_cc_on_ack(struct wren_tp *tp, struct tp_subflow *s,
		  uint32_t acked_bytes, uint32_t ce, uint32_t acked_pkts)
{
	uint64_t target = tp->cfg.cc_target_ns, qdelay = s->qdelay_ns;
	uint64_t cwnd = s->cwnd;

	if (ce && acked_pkts) {
		uint64_t frac = min_u64(256, 256 * ce / acked_pkts);

		if (cc_may_decrease(tp, s))
			cwnd -= cwnd * frac * tp->cfg.cc_max_mdf / (2 * 256 * 256);
	} else if (qdelay > target) {
		uint64_t f = tp->cfg.cc_beta * (qdelay - target) / qdelay;

		if (cc_may_decrease(tp, s))
			cwnd -= cwnd * min_u64(f, tp->cfg.cc_max_mdf) / 256;
	} else if (acked_bytes && s->cwnd_limited) {
		/*
		 * cc_ai bytes per context window's worth of acknowledgements,
		 * shared by the sub-flows, plus a share of the acknowledged
		 * bytes proportional to the headroom below the target: half
		 * of them (the window grows by half per round trip) on an
		 * empty path, none at the target.  A long path fills in a
		 * few round trips.  Only a window that held sending back
		 * grows.
		 */
		cwnd += max_u64(1, (uint64_t)tp->cfg.cc_ai * acked_bytes /
				   (cwnd * tp->cfg.subflows));
		cwnd += acked_bytes * (target - qdelay) / (2 * target);
	}
	cc_set(tp, s, cwnd);
	s->cwnd_limited = false;
}

/*
 * A timeout: the path may be gone, and a sub-flow moved to a new one may
 * land on a dead path again; it starts from the floor and grows back
 * within a few round trips if the new path is good.
 */
void tp_cc_on_timeout(struct wren_tp *tp, struct tp_subflow *s)
{
	s->cwnd = cc_floor(tp);
	s->last_decrease_ns = tp_now(tp);
	tp->stats.cc_decreases++;
}

/* A loss that means congestion: a packet a switch trimmed. */
void tp_cc_on_loss(struct wren_tp *tp, struct tp_subflow *s)
{
	if (cc_may_decrease(tp, s))
		cc_set(tp, s, s->cwnd / 2);
}
