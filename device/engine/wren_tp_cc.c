// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: congestion control of one context.
 *
 * A window in bytes driven by queueing delay (the round trip of a
 * sub-flow less the shortest seen on it), in the manner of delay-based
 * data-centre schemes: additive increase while the delay is under
 * cfg.cc_target_ns, a decrease proportional to the excess above it, and a
 * decrease proportional to the share of ECN-marked packets; at most one
 * decrease per round trip.  A retransmit timeout halves the window.
 *
 * A loss found by later acknowledgements does not by itself shrink the
 * window: on a lossy but idle link that would only waste the link, and
 * congestion shows in the delay and the ECN marks first.  Receiver grants
 * (wren_tp_grant.c), not this window, pace large messages into a target.
 */
#include "wren_tp_internal.h"

uint32_t tp_cc_charge(uint32_t payload_len)
{
	return payload_len + WREN_WIRE_DATA_HDRS_LEN;
}

void tp_cc_init(struct wren_tp *tp, struct tp_ctx *c)
{
	c->cwnd = tp->cfg.cc_init_cwnd;
	c->last_decrease_ns = 0;
}

/* Always let one packet out, so that a context is never stuck. */
bool tp_cc_allows(const struct tp_ctx *c, uint32_t charge)
{
	return !c->inflight_bytes || c->inflight_bytes + charge <= c->cwnd;
}

static void cc_set(struct wren_tp *tp, struct tp_ctx *c, uint64_t cwnd)
{
	c->cwnd = max_u64(tp->cfg.cc_min_cwnd,
			  min_u64(cwnd, tp->cfg.cc_max_cwnd));
}

static bool cc_may_decrease(struct wren_tp *tp, struct tp_ctx *c,
			    uint64_t srtt_ns)
{
	uint64_t now = tp_now(tp);

	if (c->last_decrease_ns && now - c->last_decrease_ns < srtt_ns)
		return false;
	c->last_decrease_ns = now;
	tp->stats.cc_decreases++;
	return true;
}

/**
 * tp_cc_on_ack() - adjust @c's window for an acknowledgement
 * @tp: the transport
 * @c: the context
 * @acked_bytes: payload newly acknowledged
 * @qdelay_ns: queueing delay of this ack's sample (0: none)
 * @srtt_ns: the sampled sub-flow's smoothed round trip (0: none)
 * @ce: ECN-marked packets the target reports
 * @acked_pkts: packets newly acknowledged
 */
void tp_cc_on_ack(struct wren_tp *tp, struct tp_ctx *c, uint32_t acked_bytes,
		  uint64_t qdelay_ns, uint64_t srtt_ns, uint32_t ce,
		  uint32_t acked_pkts)
{
	uint64_t target = tp->cfg.cc_target_ns;
	uint64_t cwnd = c->cwnd;

	if (ce && acked_pkts) {
		uint64_t frac = min_u64(256, 256 * ce / acked_pkts);

		if (cc_may_decrease(tp, c, srtt_ns))
			cwnd -= cwnd * frac * tp->cfg.cc_max_mdf / (2 * 256 * 256);
	} else if (qdelay_ns > target) {
		uint64_t f = tp->cfg.cc_beta * (qdelay_ns - target) / qdelay_ns;

		if (cc_may_decrease(tp, c, srtt_ns))
			cwnd -= cwnd * min_u64(f, tp->cfg.cc_max_mdf) / 256;
	} else if (acked_bytes) {
		/* cc_ai bytes per window's worth of acknowledgements. */
		cwnd += max_u64(1, (uint64_t)tp->cfg.cc_ai * acked_bytes /
				   cwnd);
	}
	cc_set(tp, c, cwnd);
}

void tp_cc_on_timeout(struct wren_tp *tp, struct tp_ctx *c, uint64_t srtt_ns)
{
	if (cc_may_decrease(tp, c, srtt_ns ? srtt_ns : tp->cfg.min_rto_ns))
		cc_set(tp, c, c->cwnd / 2);
}
