// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport, initiator side: segmentation and transmission.
 *
 * The host pulls frames (tp_api.c); a ready context gives one packet at a
 * time: a CONNECT while a handshake is due, else the oldest packet queued
 * for retransmission, else the next segment of the first message with
 * bytes to send (granted bytes, for a message that waits for grants),
 * within the window (its BSN/NSN rules), the message window and the
 * chosen sub-flow's congestion window.
 */
#include <string.h>

#include "tp_internal.h"

/* Has @m a segment to send now? */
static bool msg_sendable(const struct tp_msg *m)
{
	if (!m->started || (m->needs_grant && !m->req_sent))
		return true;
	return m->next_off < (m->needs_grant ? m->granted : m->m.len);
}

/* Bytes @m has still to send for the first time. */
static uint32_t msg_left(const struct tp_msg *m)
{
	return m->started ? m->m.len - m->next_off : m->m.len;
}

/*
 * The first message with a segment to send, or NULL; with
 * cfg.prio_short, the one with the fewest bytes left to send (shortest
 * remaining first, in the manner of SRPT: a short message does not wait
 * behind a long one), a GRANT_REQ before any.
 */
static struct tp_msg *next_msg(const struct wren_tp *tp, struct tp_ctx *c)
{
	uint32_t msn_base = c->msgs ? c->msgs->msn : 0;
	struct tp_msg *best = NULL;

	for (struct tp_msg *m = c->msgs; m; m = m->next) {
		if (m->msn - msn_base >= TP_MSN_WINDOW)
			break;
		if (!msg_sendable(m))
			continue;
		if (!tp->cfg.prio_short)
			return m;
		if (m->needs_grant && !m->req_sent)
			return m;
		if (!best || msg_left(m) < msg_left(best))
			best = m;
	}
	return best;
}

/*
 * How urgent @c's next packet is, lower first: 0 for a retransmission or
 * a GRANT_REQ, else the bytes its message has left to send.  With
 * cfg.prio_short the transmit scheduler serves the lowest first.
 */
uint32_t tp_tx_rank(const struct wren_tp *tp, struct tp_ctx *c)
{
	struct tp_msg *m;

	if (c->lost_head != c->lost_tail)
		return 0;
	m = next_msg(tp, c);
	if (!m)
		return UINT32_MAX;
	return m->needs_grant && !m->req_sent ? 0 : msg_left(m);
}

/*
 * What the next segment of @m costs in its sub-flow's window.  Granted
 * data is charged too: the target's grants say how much may come into
 * its link, the windows how much the paths to it take (in a permutation
 * on a 1:1 leaf-spine, granted data that only chose the sub-flow with the
 * fewest packets in flight piled up on the paths that ECMP overloaded:
 * netsim S9's p99 was 1.16 x the single flow, 1.10 with the windows).
 */
static uint32_t msg_charge(const struct wren_tp *tp, const struct tp_msg *m)
{
	uint32_t limit = m->needs_grant ? m->granted : m->m.len;

	if (m->needs_grant && !m->req_sent)
		return tp_cc_charge(0);
	return tp_cc_charge(min_u64(tp->cfg.mtu, limit - m->next_off));
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
	    tp_pick_subflow(tp, c, TP_NONE, tp_cc_charge(tp->cfg.mtu)) != TP_NONE)
		return true;
	m = next_msg(tp, c);
	return m && c->nsn - c->bsn < tp->cfg.window &&
	       tp_pick_subflow(tp, c, TP_NONE, msg_charge(tp, m)) != TP_NONE;
}

void tp_tx_update_ready(struct wren_tp *tp, struct tp_ctx *c)
{
	if (c->state != TP_CTX_FREE && !c->win && c->msgs &&
	    tp_ctx_activate(tp, c))
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
	tp_ctx_timer_update(tp, c);
	memset(x, 0, sizeof(struct wren_wire_connect));
	*TP_FIELD(x, wren_wire_connect, mode) = WREN_WIRE_MODE_HANDSHAKE;
	wren_wire_put32(TP_FIELD(x, wren_wire_connect, window), tp->cfg.window);
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
		tp_msg_finish(tp, c, m, WREN_TP_LOCAL_ERROR);
		tp_ctx_advance_bsn(tp, c);
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
	p->resent = retx;
	p->sent_ns = now;
	p->sent_ts = h.ts;
	s->inflight++;
	s->inflight_bytes += tp_cc_charge(p->len);
	if (!s->rto_deadline) {
		s->rto_deadline = now + tp_sf_rto(tp, c, s, s->backoff);
		tp_ctx_timer_update(tp, c);
	}

	h.sport = s->entropy;
	h.sf = sfi;
	if (c->state == TP_CTX_SYN)
		h.flags |= WREN_WIRE_F_SYN;
	if (retx) {
		h.flags |= WREN_WIRE_F_RETX | WREN_WIRE_F_ACK_REQ;
		tp_count_retx(tp, m->m.src_qpn, p->cause, 1);
	}
	if (p->offset + p->len == m->m.len ||
	    tp_sf_ask_way_back(tp, s, p->sf_seq))
		h.flags |= WREN_WIRE_F_ACK_REQ;
	if (m->m.flags & WREN_TP_MSG_ORDERED)
		mflags |= WREN_WIRE_MSG_ORDERED;
	if (m->m.flags & WREN_TP_MSG_SOLICITED)
		mflags |= WREN_WIRE_MSG_SOLICITED;
	if (m->m.flags & WREN_TP_MSG_CONNECTED)
		mflags |= WREN_WIRE_MSG_CONNECTED;
	if (p->req)
		mflags |= WREN_WIRE_MSG_GRANT_REQ;
	h.prec = tp_pkt_prec(tp, p);

	if (m->m.flags & WREN_TP_MSG_FAILED)
		mflags |= WREN_WIRE_MSG_FAILED;
	tp_put_data(x, &m->m, m->msn, p->offset, mflags);
	TP_COUNT_QP(tp, m->m.src_qpn, tx_data_pkts, 1);
	TP_COUNT_QP(tp, m->m.src_qpn, tx_data_bytes, p->len);
	return tp_build(tp, f, &h, ext, p->len);
}

/* Cut the next segment of the first sendable message. */
static size_t send_new(struct wren_tp *tp, struct tp_ctx *c, uint8_t *f)
{
	struct tp_msg *m = next_msg(tp, c);
	struct tp_pkt *p;
	uint32_t limit, sfi;

	if (!m || c->nsn - c->bsn >= tp->cfg.window)
		return 0;
	sfi = tp_pick_subflow(tp, c, TP_NONE, msg_charge(tp, m));
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
		sfi = tp_pick_subflow(tp, c, p->sf, tp_cc_charge(p->len));
		if (sfi != TP_NONE)
			sfi = tp_proven_subflow(tp, c, p->sf, sfi);
		if (sfi == TP_NONE) {
			c->lost_head--;
			return 0;
		}
		return transmit(tp, c, psn, sfi, true, f);
	}
	return send_new(tp, c, f);
}
