// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Ultra Ethernet's transport as UET 1.0 defines it, as a peer: a
 * packet delivery context (PDC) per destination, its packets sprayed
 * over entropies, NSCC (the sender's network-signalled congestion
 * window), RCCC (the receiver's credits), selective acknowledgement and
 * packet trimming.  Written from the specification's rules as the
 * public material describes them; README.rst, "Peers", gives the
 * sources, the parameter values and what is left out.
 *
 *  - spraying: every packet takes an entropy value (EV; here the low
 *    bits of the UDP source port, which the switches' ECMP hash reads)
 *    from a cycle over uet.evs values in a random order; an EV that
 *    came back ECN-marked is skipped once, one whose packet was trimmed
 *    four times, one whose packet timed out fifteen times;
 *  - NSCC, on every ACK, by the ECN echo and the queueing delay (the
 *    round trip less the smallest seen) against a target: no mark and
 *    below the target, a proportional increase (fast when the delay is
 *    near zero for a window); no mark above it, a fair increase; a mark
 *    above it, a multiplicative decrease by the average delay at most
 *    once a base RTT; a mark below it, nothing (the EV is avoided
 *    instead).  Increases are banked and applied once 8 packets were
 *    acknowledged or an RTT passed.  Quick adapt: after a trim, or a
 *    delay above four targets, the window drops to what was delivered
 *    in the last RTT if that is below an eighth of the largest window;
 *    a trim also cuts the window by the packet;
 *  - RCCC: a PDC starts with a speculative credit of the largest window;
 *    every DATA packet carries its pull target (the credit it still
 *    wants, cumulative); the receiver's pull pacer grants credit in
 *    PULLs, in turn over the PDCs that want it, at the rate of its own
 *    link; the first ACK ends the speculation;
 *  - the receiver acknowledges every uet.ack_bytes, at once for an ECN
 *    mark, a packet that asked (the last of a burst) or a duplicate,
 *    with the cumulative PSN, a 64-packet SACK bitmap, the bytes
 *    received and echoes of the EV and the send time; a trimmed header
 *    draws a NACK at once;
 *  - a packet neither acknowledged nor NACKed for uet.rto is resent.
 *
 * Frames are Wren's wire structures on Wren's UDP port, so the
 * switches trim UET's DATA as they trim Wren's and NDP's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"

#define UET_HDRS	WREN_WIRE_DATA_HDRS_LEN
/* ACK and NACK: the header, wren_wire_ack and one bitmap word. */
#define UET_CTL_LEN	(WREN_WIRE_L2L4_LEN + sizeof(struct wren_wire_hdr) + \
			 sizeof(struct wren_wire_ack) + sizeof(uint64_t))
#define UET_PULL	WREN_WIRE_GRANT
/* Request to send: the initiator's pull target, when it has no credit. */
#define UET_RTS		WREN_WIRE_CONNECT
/* PSNs a PDC may have between the oldest unacknowledged and the next. */
#define UET_RING	512
#define UET_SACK_BITS	64
/* EV penalties: how many turns an EV is skipped. */
#define UET_PEN_ECN	1
#define UET_PEN_NACK	4
#define UET_PEN_RTO	15
/* NSCC's constants (README.rst, "Peers"). */
#define NSCC_REF_BDP	150000.0	/* 100 Gb/s x 12 us, bytes */
#define NSCC_REF_RTT	12000.0		/* ns */
#define NSCC_GAMMA	0.8
#define NSCC_MAX_MD	0.5
#define NSCC_DELAY_EWMA	0.0125
#define NSCC_QA_GATE	3
#define NSCC_FAST_NS	1000
#define NSCC_ADJUST_PKTS 8

enum { S_FREE, S_SENT, S_ACKED, S_RETX };

/* The initiator's side of a PDC: one per destination. */
struct uet_tx {
	struct uet *u;
	struct uet_tx *hnext, *rnext;
	bool ready;
	uint32_t id, dst_ip;
	struct peer_msgq q;
	uint32_t una, nxt, end;		/* PSNs */
	uint8_t st[UET_RING];
	uint16_t len[UET_RING];		/* frame bytes */
	uint16_t sport[UET_RING];	/* its EV, in the UDP source port */
	uint32_t ts[UET_RING];		/* sent, ns */
	uint32_t retx[UET_RING];	/* PSNs to resend, FIFO */
	uint32_t rhead, rtail;
	uint32_t inflight;		/* bytes of packets out */
	uint32_t recvd;			/* the receiver's byte count */
	/* NSCC; bytes and ns */
	double cwnd, maxwnd, mtu, rtt, base_rtt, target, avg_delay;
	double alpha, fi, eta, fi_scale;
	double inc, received, achieved, ignored, to_ignore, fi_count;
	bool increase, trigger_qa;
	uint64_t last_adjust, last_dec, qa_end;
	/* RCCC */
	double credit;
	uint32_t pulls;			/* the highest cumulative PULL */
	bool speculating;
	uint64_t last_rts;
	/* spraying */
	uint8_t *pen;
	uint32_t ev_idx, ev_xor;
	uint16_t ev_hi;
	uint64_t rto_ns;
	struct sim_ev rto;
};

/* The target's side: one per (source, source PDC). */
struct uet_rx {
	struct uet_rx *hnext, *pnext;
	uint32_t src_ip, src_ctx;
	uint32_t expected;		/* every PSN below arrived */
	uint8_t got[UET_RING];
	uint32_t ooo;			/* held above expected */
	uint32_t recvd, accepted;	/* bytes; since the last ACK */
	bool ack_request;
	struct peer_rmsg *msgs;
	uint32_t pt, pulled;		/* pull target, credit granted */
	uint16_t ev;			/* PULLs cycle over EVs too */
	bool in_pq;
};

/* A control frame waiting for the wire, all its fields. */
struct uet_ctl {
	uint8_t type, flags, last_hop;
	uint16_t sport, ce;
	uint32_t dst_ip, src_ctx, dst_ctx, psn, bsn, ts, recvd, echo;
	uint64_t bitmap;
};

struct uet {
	struct net *net;
	struct host *host;
	const struct wren_tp_ulp_ops *ulp;
	const struct uet_config *c;
	uint32_t mtu;
	struct uet_tx **txv;
	uint32_t ntx, txcap;
	struct uet_tx *txh[256];
	struct uet_tx *rhead, *rtail;	/* PDCs with something to send */
	struct uet_rx *rxh[256];
	uint32_t nrx;
	struct uet_ctl *ctl;		/* ring of control frames */
	uint32_t chead, ctail, ccap;
	struct uet_rx *phead, *ptail;	/* PDCs owed credit, in turn */
	struct sim_ev pacer;
	struct wren_tp_stats st;
};

static uint64_t now_ns(const struct uet *u)
{
	return u->net->sim.now / PS_PER_NS;
}

static void ctl_push(struct uet *u, const struct uet_ctl *c)
{
	u->ctl = peer_ring_room(u->ctl, &u->chead, &u->ctail, &u->ccap,
				sizeof(*u->ctl));
	u->ctl[u->ctail++ % u->ccap] = *c;
	host_kick(u->host);
}

/* ------------------------------------------------------------------ */
/* Spraying                                                             */
/* ------------------------------------------------------------------ */

static void ev_step(struct uet *u, struct uet_tx *t)
{
	if (++t->ev_idx == u->c->evs) {
		t->ev_idx = 0;
		t->ev_xor = rng_below(&u->host->rng, u->c->evs);
	}
}

/*
 * The next EV of the cycle that is not being avoided; passing over an
 * avoided one pays one turn of its penalty.
 */
static uint16_t ev_next(struct uet *u, struct uet_tx *t)
{
	uint32_t mask = u->c->evs - 1, e = 0;

	for (uint32_t tries = 0; tries <= u->c->evs; tries++) {
		e = (t->ev_idx ^ t->ev_xor) & mask;
		ev_step(u, t);
		if (!t->pen[e])
			break;
		if (!tries)
			t->pen[e]--;
	}
	return (uint16_t)(0xc000 | (t->ev_hi & ~mask & 0x3fff) | e);
}

static void ev_penalise(struct uet *u, struct uet_tx *t, uint16_t sport,
			uint8_t pen)
{
	uint8_t *p = &t->pen[sport & (u->c->evs - 1)];

	*p = *p + pen > UET_PEN_RTO ? UET_PEN_RTO : *p + pen;
}

/* ------------------------------------------------------------------ */
/* NSCC                                                                 */
/* ------------------------------------------------------------------ */

static void nscc_init(struct uet *u, struct uet_tx *t)
{
	const struct cfg *cfg = u->net->cfg;
	double bdp, a, b;

	t->mtu = UET_HDRS + u->mtu;
	t->rtt = u->c->rtt_ns ? (double)u->c->rtt_ns :
		 topo_rtt_ps(u->net, u->host->id, t->dst_ip - host_ip(0),
			     (uint32_t)t->mtu, UET_CTL_LEN) / (double)PS_PER_NS;
	t->base_rtt = t->rtt;
	bdp = t->rtt * cfg->rate_mbps / 8000;
	t->maxwnd = u->c->maxwnd * bdp;
	if (t->maxwnd < t->mtu)
		t->maxwnd = t->mtu;
	t->cwnd = t->maxwnd;
	t->target = u->c->target_ns ? (double)u->c->target_ns :
		    cfg->sw_trim ? 0.75 * t->rtt : t->rtt;
	/* Scaled from the reference fabric, 100 Gb/s and 12 us. */
	a = bdp / NSCC_REF_BDP;
	b = t->target / NSCC_REF_RTT;
	t->alpha = 4.0 * u->mtu * a * b / t->target;
	t->fi = 5.0 * u->mtu * a;
	t->eta = 0.15 * u->mtu * a;
	t->fi_scale = 0.25 * a;
	t->credit = t->maxwnd;
	t->speculating = true;
	/* 15 us, and six full queues of sw.buffer at line rate. */
	t->rto_ns = u->c->rto_ns ? u->c->rto_ns :
		    15000 + (uint64_t)cfg->sw_buffer * 6 * 8000 /
			    cfg->rate_mbps;
}

static void nscc_bound(struct uet_tx *t)
{
	if (t->cwnd < t->mtu)
		t->cwnd = t->mtu;
	if (t->cwnd > t->maxwnd)
		t->cwnd = t->maxwnd;
}

static void nscc_delay(struct uet_tx *t, double raw, bool ce)
{
	double delay = raw - t->base_rtt;

	/* A long delay without a mark is not this path's queue. */
	if (!ce && delay > t->target)
		delay = 0.25 * t->base_rtt;
	t->avg_delay = NSCC_DELAY_EWMA * delay +
		       (1 - NSCC_DELAY_EWMA) * t->avg_delay;
}

/*
 * Quick adapt, once per base RTT plus target: after a loss or a delay
 * far above the target, the window becomes what the last such period
 * delivered, if that is far below the largest window.  True when it
 * acted, or when the ACKs of what was in flight then are still to be
 * ignored.
 */
static bool nscc_quick_adapt(struct uet *u, struct uet_tx *t, bool loss,
			     bool ce, double delay)
{
	uint64_t now = now_ns(u);
	bool done = false;

	if (t->ignored < t->to_ignore && ce) {
		done = true;
	} else if (now > t->qa_end) {
		if (t->qa_end && (t->trigger_qa || loss ||
				  delay > 4 * t->target) &&
		    t->achieved < t->maxwnd / (1 << NSCC_QA_GATE)) {
			t->cwnd = t->achieved > t->mtu ? t->achieved : t->mtu;
			t->to_ignore = t->inflight;
			t->ignored = 0;
			t->trigger_qa = false;
			u->st.cc_decreases++;
			done = true;
		}
		t->achieved = 0;
		t->qa_end = now + (uint64_t)(t->base_rtt + t->target);
	}
	if (done)
		t->inc = t->received = 0;
	return done;
}

static void nscc_ack(struct uet *u, struct uet_tx *t, bool ce, double delay,
		     double acked)
{
	uint64_t now = now_ns(u);

	if (nscc_quick_adapt(u, t, false, ce, delay))
		return;
	if (!ce && delay >= t->target) {
		t->inc += t->fi * acked;	/* fair increase */
	} else if (!ce) {
		/* Fast increase: a window's worth near zero delay. */
		if (delay < NSCC_FAST_NS) {
			t->fi_count += acked;
			if (t->fi_count > t->cwnd || t->increase) {
				t->cwnd += acked * t->fi_scale;
				t->increase = true;
			}
		} else {
			t->fi_count = 0;
			t->increase = false;
		}
		if (!t->increase)	/* proportional increase */
			t->inc += t->alpha * acked * (t->target - delay);
	} else if (delay >= t->target) {
		t->increase = false;
		t->fi_count = 0;
		if (t->avg_delay > t->target &&
		    now - t->last_dec > (uint64_t)t->base_rtt) {
			double f = 1 - NSCC_GAMMA * (t->avg_delay - t->target) /
				       t->avg_delay;

			t->cwnd *= f > NSCC_MAX_MD ? f : NSCC_MAX_MD;
			t->last_dec = now;
			u->st.cc_decreases++;
		}
	}
	nscc_bound(t);
	if (t->received > NSCC_ADJUST_PKTS * t->mtu ||
	    now - t->last_adjust > (uint64_t)t->rtt) {
		t->cwnd += t->inc / t->cwnd;
		if (now - t->last_adjust >= (uint64_t)t->rtt) {
			t->cwnd += t->eta;
			t->last_adjust = now;
		}
		t->inc = t->received = 0;
	}
	nscc_bound(t);
}

/*
 * A trimmed packet: the queue is full somewhere on its path.  One
 * trimmed on the way into its host does not cut the window when RCCC
 * runs: the receiver's credits pace that link.
 */
static void nscc_nack(struct uet *u, struct uet_tx *t, double bytes,
		      bool last_hop)
{
	t->ignored += bytes;
	nscc_delay(t, t->base_rtt + t->rtt, true);
	t->trigger_qa = true;
	if (nscc_quick_adapt(u, t, true, true, 0) ||
	    (last_hop && u->c->rccc))
		return;
	t->cwnd -= bytes;
	nscc_bound(t);
}

/* ------------------------------------------------------------------ */
/* Initiator                                                            */
/* ------------------------------------------------------------------ */

static bool tx_has_work(const struct uet_tx *t)
{
	return t->rhead != t->rtail ||
	       (t->nxt != t->end && t->nxt - t->una < UET_RING - 1);
}

static bool tx_can_send(const struct uet *u, const struct uet_tx *t)
{
	if (!tx_has_work(t))
		return false;
	if (u->c->nscc && t->inflight + t->mtu > t->cwnd &&
	    t->inflight)
		return false;
	return !u->c->rccc || t->credit > 0;
}

static void tx_rto(struct sim_ev *ev);

static void tx_make_ready(struct uet *u, struct uet_tx *t)
{
	/*
	 * Work, no credit and nothing out to draw PULLs: the timeout asks
	 * the receiver again (an RTS) should its credit not come.
	 */
	if (tx_has_work(t) && u->c->rccc && t->credit <= 0 &&
	    !sim_queued(&t->rto))
		sim_at(&u->net->sim, &t->rto, u->net->sim.now +
		       t->rto_ns * PS_PER_NS);
	if (t->ready || !tx_can_send(u, t))
		return;
	t->ready = true;
	t->rnext = NULL;
	if (u->rtail)
		u->rtail->rnext = t;
	else
		u->rhead = t;
	u->rtail = t;
	host_kick(u->host);
}

/*
 * The credit a PDC still wants, cumulative as the receiver counts it:
 * what is left to send, at most a window, less the credit in hand.
 */
static uint32_t tx_pull_target(const struct uet *u, const struct uet_tx *t)
{
	double want = ((double)(t->end - t->nxt) +
		       (double)(t->rtail - t->rhead)) * t->mtu;

	if (u->c->nscc && want > t->cwnd + t->mtu)
		want = t->cwnd + t->mtu;
	if (want > t->maxwnd)
		want = t->maxwnd;
	want -= t->credit;
	if (t->speculating && want < t->mtu && t->nxt != t->end)
		want = t->mtu;
	if (want < 0)
		want = 0;
	return t->pulls + (uint32_t)want;
}

static void tx_rto_arm(struct uet *u, struct uet_tx *t, uint32_t sent_ns)
{
	if (t->una != t->nxt && !sim_queued(&t->rto))
		sim_at(&u->net->sim, &t->rto,
		       ((uint64_t)sent_ns + t->rto_ns) * PS_PER_NS);
}

static void tx_stop_speculating(struct uet_tx *t)
{
	if (!t->speculating)
		return;
	t->speculating = false;
	if (t->credit > 0)
		t->credit = 0;
}

/*
 * No credit and nothing to show for it: tell the receiver what we want,
 * at most once a base RTT unless @now_anyway.
 */
static void tx_rts(struct uet *u, struct uet_tx *t, bool now_anyway)
{
	uint64_t now = now_ns(u);

	if (!u->c->rccc || t->credit > 0 ||
	    (!now_anyway && now - t->last_rts < (uint64_t)t->base_rtt))
		return;
	t->last_rts = now;
	ctl_push(u, &(struct uet_ctl){
		.type = UET_RTS, .sport = ev_next(u, t), .dst_ip = t->dst_ip,
		.src_ctx = t->id, .bsn = tx_pull_target(u, t),
	});
}

/* Resend every packet out for longer than the timeout. */
static void tx_rto(struct sim_ev *ev)
{
	struct uet_tx *t = container_of(ev, struct uet_tx, rto);
	struct uet *u = t->u;
	uint32_t now = (uint32_t)now_ns(u), oldest = now;
	bool any = false, left = false;

	for (uint32_t psn = t->una; psn != t->nxt; psn++) {
		uint32_t i = psn % UET_RING;

		if (t->st[i] != S_SENT)
			continue;
		if (now - t->ts[i] < t->rto_ns) {
			if (!left || (int32_t)(t->ts[i] - oldest) < 0)
				oldest = t->ts[i];
			left = true;
			continue;
		}
		t->st[i] = S_RETX;
		t->retx[t->rtail++ % UET_RING] = psn;
		t->inflight -= t->len[i];
		ev_penalise(u, t, t->sport[i], UET_PEN_RTO);
		if (u->c->nscc) {
			t->cwnd -= t->len[i];
			nscc_bound(t);
		}
		u->st.retx_timeout++;
		any = true;
	}
	if (any)
		tx_stop_speculating(t);
	if (tx_has_work(t))
		tx_rts(u, t, false);
	if (left)
		tx_rto_arm(u, t, oldest);
	tx_make_ready(u, t);
}

static struct uet_tx *tx_lookup(struct uet *u, uint32_t ip)
{
	struct uet_tx *t;
	uint32_t b = ip % 256;

	for (t = u->txh[b]; t; t = t->hnext)
		if (t->dst_ip == ip)
			return t;
	t = peer_zalloc(sizeof(*t));
	t->u = u;
	t->id = u->ntx;
	t->dst_ip = ip;
	t->pen = peer_zalloc(u->c->evs);
	t->ev_hi = (uint16_t)rng_next(&u->host->rng);
	t->ev_xor = rng_below(&u->host->rng, u->c->evs);
	t->rto.fn = tx_rto;
	nscc_init(u, t);
	t->hnext = u->txh[b];
	u->txh[b] = t;
	u->txv = peer_vec_room(u->txv, u->ntx, &u->txcap, sizeof(*u->txv));
	u->txv[u->ntx++] = t;
	return t;
}

static int uet_send(void *tp, const struct wren_tp_dest *dst,
		    const struct wren_tp_msg *msg, uint64_t cookie)
{
	struct uet *u = tp;
	struct uet_tx *t;

	if (msg->len > WREN_WIRE_MAX_MSG_LEN)
		return -EINVAL;
	t = tx_lookup(u, ntohl(dst->ipv4));
	/*
	 * An idle PDC speculates again, as a new one does: the receiver
	 * has been asked for nothing since.
	 */
	if (u->c->rccc && t->una == t->end && t->credit < t->maxwnd) {
		t->credit = t->maxwnd;
		t->speculating = true;
	}
	t->end += peer_msg_add(&t->q, msg, cookie, t->end, u->mtu);
	/* Nothing in flight may ask for this message's credit. */
	tx_rts(u, t, true);
	tx_make_ready(u, t);
	return 0;
}

static size_t tx_data(struct uet *u, struct uet_tx *t, uint8_t *f)
{
	struct wren_wire_hdr *wh = (void *)(f + WREN_WIRE_HDR);
	uint8_t flags = 0;
	uint32_t psn = t->nxt, i, now = (uint32_t)now_ns(u);
	size_t flen;

	/* A packet to resend first (one acked since is skipped), else new. */
	while (t->rhead != t->rtail) {
		uint32_t r = t->retx[t->rhead++ % UET_RING];

		if (t->st[r % UET_RING] == S_RETX) {
			psn = r;
			flags |= WREN_WIRE_F_RETX;
			break;
		}
	}
	if (psn == t->nxt) {
		if (t->nxt == t->end || t->nxt - t->una >= UET_RING - 1)
			return 0;
		t->nxt++;
	}
	i = psn % UET_RING;
	flen = peer_data(f, peer_msg_of(&t->q, psn), psn, u->mtu, u->host,
			 u->ulp);
	t->st[i] = S_SENT;
	t->len[i] = (uint16_t)flen;
	t->ts[i] = now;
	t->sport[i] = ev_next(u, t);
	t->inflight += (uint32_t)flen;
	if (u->c->rccc)
		t->credit -= (double)flen;
	/*
	 * The last packet the PDC may send for now (nothing left, or the
	 * window or the credit spent) asks for an ACK at once: the next
	 * one may be far off when many senders share the receiver.
	 */
	if (!tx_can_send(u, t))
		flags |= WREN_WIRE_F_ACK_REQ;
	peer_hdr(wh, WREN_WIRE_DATA, flags, t->id, 0, psn);
	wh->bsn = htonl(tx_pull_target(u, t));
	wh->ts = htonl(now);
	frame_l2l4(f, flen, u->host->ipv4, t->dst_ip, t->sport[i],
		   WREN_WIRE_UDP_PORT, WREN_WIRE_ECN_ECT0);
	if (flags & WREN_WIRE_F_RETX)
		u->st.retx_nack++;
	u->st.tx_pkts++;
	u->st.tx_bytes += flen;
	u->st.tx_data_pkts++;
	u->st.tx_data_bytes += flen - UET_HDRS;
	tx_rto_arm(u, t, now);
	return flen;
}

/* PSN @psn is acknowledged (cumulatively or selectively). */
static void tx_acked(struct uet_tx *t, uint32_t psn)
{
	uint32_t i = psn % UET_RING;

	if (psn - t->una >= t->nxt - t->una)
		return;
	if (t->st[i] == S_SENT)
		t->inflight -= t->len[i];
	if (t->st[i] == S_SENT || t->st[i] == S_RETX)
		t->st[i] = S_ACKED;
}

static void tx_advance(struct uet *u, struct uet_tx *t)
{
	while (t->una != t->nxt && t->st[t->una % UET_RING] == S_ACKED) {
		t->st[t->una % UET_RING] = S_FREE;
		t->una++;
	}
	peer_msg_done(&t->q, t->una, u->host, u->ulp, &u->st);
	if (t->una == t->nxt)
		sim_cancel(&u->net->sim, &t->rto);
}

static void rx_ack(struct uet *u, struct uet_tx *t,
		   const struct wren_wire_hdr *wh,
		   const struct wren_wire_ack *ack, const uint8_t *f)
{
	uint64_t bitmap = wren_wire_get64(f + WREN_WIRE_L2L4_LEN +
					  sizeof(*wh) + sizeof(*ack));
	uint32_t cum = ntohl(wh->psn), base = ntohl(wh->bsn);
	uint32_t recvd = ntohl(wh->epoch);
	bool ce = ack->ce_count != 0;
	double newly = 0, delay = t->avg_delay;

	u->st.rx_acks++;
	if ((int32_t)(recvd - t->recvd) > 0) {
		newly = recvd - t->recvd;
		t->recvd = recvd;
		t->achieved += newly;
		t->received += newly;
		t->ignored += newly;
	}
	/* A round trip only from a packet sent once. */
	if (!(wh->flags & WREN_WIRE_F_RETX)) {
		double raw = (uint32_t)now_ns(u) - ntohl(wh->ts);

		if (raw < t->base_rtt)
			t->base_rtt = raw;
		nscc_delay(t, raw, ce);
		delay = raw - t->base_rtt;
	}
	if ((int32_t)(cum - t->una) > 0 && cum - t->una <= t->nxt - t->una)
		for (uint32_t psn = t->una; psn != cum; psn++)
			tx_acked(t, psn);
	for (uint32_t b = 0; b < UET_SACK_BITS; b++)
		if (bitmap & (1ULL << b))
			tx_acked(t, base + b);
	if (ce)
		ev_penalise(u, t, (uint16_t)ntohl(ack->hold_ns), UET_PEN_ECN);
	if (u->c->nscc)
		nscc_ack(u, t, ce, delay, newly);
	tx_stop_speculating(t);
	tx_advance(u, t);
	tx_make_ready(u, t);
}

static void rx_nack(struct uet *u, struct uet_tx *t,
		    const struct wren_wire_hdr *wh,
		    const struct wren_wire_ack *ack)
{
	uint32_t psn = ntohl(wh->psn), i = psn % UET_RING;

	u->st.rx_nacks++;
	if (psn - t->una >= t->nxt - t->una || t->st[i] != S_SENT)
		return;			/* not outstanding */
	t->st[i] = S_RETX;
	t->retx[t->rtail++ % UET_RING] = psn;
	t->inflight -= t->len[i];
	ev_penalise(u, t, (uint16_t)ntohl(ack->hold_ns), UET_PEN_NACK);
	if (u->c->nscc)
		nscc_nack(u, t, t->len[i], wh->rsvd0);
	tx_stop_speculating(t);
	tx_make_ready(u, t);
}

static void rx_pull(struct uet *u, struct uet_tx *t, uint32_t pulled)
{
	u->st.rx_grants++;
	if ((int32_t)(pulled - t->pulls) > 0) {
		t->credit += pulled - t->pulls;
		if (t->credit > t->maxwnd)
			t->credit = t->maxwnd;
		t->pulls = pulled;
	}
	tx_make_ready(u, t);
}

/* ------------------------------------------------------------------ */
/* Target                                                               */
/* ------------------------------------------------------------------ */

static void pacer_fire(struct sim_ev *ev);

static struct uet_rx *rx_lookup(struct uet *u, uint32_t ip, uint32_t ctx)
{
	uint32_t b = (ip * 31 + ctx) % 256;
	struct uet_rx *r;

	for (r = u->rxh[b]; r; r = r->hnext)
		if (r->src_ip == ip && r->src_ctx == ctx)
			return r;
	r = peer_zalloc(sizeof(*r));
	r->src_ip = ip;
	r->src_ctx = ctx;
	r->hnext = u->rxh[b];
	u->rxh[b] = r;
	u->nrx++;
	return r;
}

static void pull_queue(struct uet *u, struct uet_rx *r)
{
	if (!u->c->rccc || r->in_pq)
		return;
	r->in_pq = true;
	r->pnext = NULL;
	if (u->ptail)
		u->ptail->pnext = r;
	else
		u->phead = r;
	u->ptail = r;
	if (!sim_queued(&u->pacer))
		sim_at(&u->net->sim, &u->pacer, u->net->sim.now);
}

/* A higher pull target: this PDC wants credit. */
static void rx_pull_target(struct uet *u, struct uet_rx *r, uint32_t pt)
{
	if ((int32_t)(pt - r->pt) <= 0)
		return;
	r->pt = pt;
	pull_queue(u, r);
}

/*
 * One PULL to the next PDC in turn, granting at most uet.pull_bytes of
 * what it asked for; the next waits until that much has had time to
 * arrive on this host's link, so the credit granted is the link's rate.
 */
static void pacer_fire(struct sim_ev *ev)
{
	struct uet *u = container_of(ev, struct uet, pacer);
	struct uet_rx *r = u->phead;
	struct link l = { .rate_mbps = u->net->cfg->rate_mbps };
	uint32_t grant;

	if (!r)
		return;
	u->phead = r->pnext;
	if (!u->phead)
		u->ptail = NULL;
	r->in_pq = false;
	grant = r->pt - r->pulled;
	if ((int32_t)grant < 0)
		grant = 0;
	if (grant > u->c->pull_bytes)
		grant = u->c->pull_bytes;
	r->pulled += grant;
	r->ev++;
	ctl_push(u, &(struct uet_ctl){
		.type = UET_PULL, .sport = (uint16_t)(0xc000 |
			(r->ev & (u->c->evs - 1))),
		.dst_ip = r->src_ip, .dst_ctx = r->src_ctx, .psn = r->pulled,
	});
	u->st.tx_grants++;
	if ((int32_t)(r->pt - r->pulled) > 0)
		pull_queue(u, r);
	if (u->phead)
		sim_at(&u->net->sim, &u->pacer, u->net->sim.now +
		       link_ser_ps(&l, grant > 1024 ? grant : 1024) -
		       link_ser_ps(&l, 0));
}

/* The SACK bitmap's first PSN: the 64 up to @psn, above the base. */
static uint32_t sack_base(const struct uet_rx *r, uint32_t psn)
{
	return (int32_t)(psn - 63 - (r->expected + 1)) > 0 ?
	       psn - 63 : r->expected + 1;
}

static void rx_send_ack(struct uet *u, struct uet_rx *r, const uint8_t *f,
			uint32_t base, bool ce)
{
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	uint64_t bitmap = 0;

	for (uint32_t b = 0; b < UET_SACK_BITS; b++) {
		uint32_t psn = base + b;

		if (psn - r->expected < UET_RING && r->got[psn % UET_RING])
			bitmap |= 1ULL << b;
	}
	ctl_push(u, &(struct uet_ctl){
		.type = WREN_WIRE_ACK, .flags = wh->flags & WREN_WIRE_F_RETX,
		.sport = wren_wire_get16(f + WREN_WIRE_UDP), .ce = ce,
		.dst_ip = r->src_ip, .dst_ctx = r->src_ctx,
		.psn = r->expected, .bsn = base, .ts = ntohl(wh->ts),
		.recvd = r->recvd, .bitmap = bitmap,
	});
	r->accepted = 0;
	u->st.tx_acks++;
}

static void rx_data(struct uet *u, const uint8_t *f, size_t len)
{
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	uint32_t psn = ntohl(wh->psn), ahead;
	uint32_t src = wren_wire_get32(f + WREN_WIRE_IP_SRC);
	struct uet_rx *r = rx_lookup(u, src, ntohl(wh->src_ctx));
	bool ce = (f[WREN_WIRE_IP_TOS] & WREN_WIRE_ECN_MASK) ==
		  WREN_WIRE_ECN_CE, force;

	ahead = psn - r->expected;
	rx_pull_target(u, r, ntohl(wh->bsn));
	if (wh->flags & WREN_WIRE_F_TRIMMED) {
		if (ahead < UET_RING && !r->got[psn % UET_RING]) {
			/* Its payload was cut: ask for it again at once. */
			ctl_push(u, &(struct uet_ctl){
				.type = WREN_WIRE_NACK,
				.sport = wren_wire_get16(f + WREN_WIRE_UDP),
				.ce = ce, .dst_ip = r->src_ip,
				.dst_ctx = r->src_ctx, .psn = psn,
				.ts = ntohl(wh->ts), .recvd = r->recvd,
				.last_hop = wh->rsvd0,
			});
			u->st.tx_nacks++;
			/*
			 * Its resend needs credit that no later packet
			 * will ask for: grant a full packet more.
			 */
			r->pt += UET_HDRS + u->mtu;
			pull_queue(u, r);
		} else {
			rx_send_ack(u, r, f, sack_base(r, psn), false);
		}
		return;
	}
	if (len < UET_HDRS) {
		u->st.rx_drop_malformed++;
		u->st.rx_drops++;
		return;
	}
	if (ce)
		u->st.rx_ecn_ce++;
	if (ahead >= UET_RING || r->got[psn % UET_RING]) {
		/* The sender is confused: tell it at once. */
		u->st.rx_dup_pkts++;
		if (wh->flags & WREN_WIRE_F_RETX)
			u->st.retx_spurious++;
		rx_send_ack(u, r, f, ce ? psn : sack_base(r, psn), ce);
		return;
	}
	u->st.rx_data_pkts++;
	u->st.rx_data_bytes += len - UET_HDRS;
	force = !r->recvd;
	r->recvd += (uint32_t)len;
	r->accepted += (uint32_t)len;
	if (wh->flags & WREN_WIRE_F_ACK_REQ) {
		force = true;
		r->ack_request = true;
	}
	peer_rx_place(&r->msgs, f, len, u->host, u->ulp, &u->st);
	if (!ahead) {
		r->expected++;
		while (r->got[r->expected % UET_RING]) {
			r->got[r->expected % UET_RING] = 0;
			r->expected++;
			r->ooo--;
		}
		if (!r->ooo && r->ack_request) {
			force = true;
			r->ack_request = false;
		}
	} else {
		r->got[psn % UET_RING] = 1;
		r->ooo++;
		u->st.rx_ooo_pkts++;
	}
	if (ce || force || r->accepted >= u->c->ack_bytes)
		rx_send_ack(u, r, f,
			    ce || (wh->flags & WREN_WIRE_F_ACK_REQ) ? psn :
			    sack_base(r, psn), ce);
}

/* ------------------------------------------------------------------ */
/* The host's calls                                                     */
/* ------------------------------------------------------------------ */

static void *uet_create(struct net *n, struct host *h,
			const struct wren_tp_ulp_ops *ulp)
{
	struct uet *u = peer_zalloc(sizeof(*u));

	u->net = n;
	u->host = h;
	u->ulp = ulp;
	u->c = &n->cfg->uet;
	u->mtu = n->cfg->mtu;
	u->pacer.fn = pacer_fire;
	return u;
}

static void uet_destroy(void *tp)
{
	struct uet *u = tp;

	for (uint32_t i = 0; i < u->ntx; i++) {
		struct uet_tx *t = u->txv[i];

		peer_msg_free(&t->q);
		if (sim_queued(&t->rto))
			sim_cancel(&u->net->sim, &t->rto);
		free(t->pen);
		free(t);
	}
	for (uint32_t i = 0; i < 256; i++) {
		struct uet_rx *r, *nr;

		for (r = u->rxh[i]; r; r = nr) {
			nr = r->hnext;
			peer_rmsg_free(r->msgs);
			free(r);
		}
	}
	if (sim_queued(&u->pacer))
		sim_cancel(&u->net->sim, &u->pacer);
	free(u->txv);
	free(u->ctl);
	free(u);
}

static size_t ctl_frame(struct uet *u, uint8_t *f)
{
	struct uet_ctl c = u->ctl[u->chead++ % u->ccap];
	struct wren_wire_hdr *wh = (void *)(f + WREN_WIRE_HDR);
	struct wren_wire_ack *ack = (void *)(wh + 1);

	peer_hdr(wh, c.type, c.flags, c.src_ctx, c.dst_ctx, c.psn);
	wh->bsn = htonl(c.bsn);
	wh->ts = htonl(c.ts);
	wh->epoch = htonl(c.recvd);
	wh->rsvd0 = c.last_hop;
	memset(ack, 0, sizeof(*ack));
	/* The EV of the packet answered, echoed for the sender's choice. */
	ack->hold_ns = htonl(c.sport);
	ack->ce_count = htons(c.ce);
	ack->bitmap_words = 1;
	wren_wire_put64((uint8_t *)(ack + 1), c.bitmap);
	frame_l2l4(f, UET_CTL_LEN, u->host->ipv4, c.dst_ip, c.sport,
		   WREN_WIRE_UDP_PORT, 0);
	u->st.tx_pkts++;
	u->st.tx_bytes += UET_CTL_LEN;
	return UET_CTL_LEN;
}

static size_t uet_tx_pull(void *tp, void *frame, size_t cap)
{
	struct uet *u = tp;
	struct uet_tx *t;

	if (cap < UET_HDRS + u->mtu)
		return 0;
	if (u->chead != u->ctail)
		return ctl_frame(u, frame);
	while ((t = u->rhead)) {
		size_t len;

		u->rhead = t->rnext;
		if (!u->rhead)
			u->rtail = NULL;
		t->ready = false;
		if (!tx_can_send(u, t))
			continue;
		len = tx_data(u, t, frame);
		if (!len)
			continue;
		tx_make_ready(u, t);
		return len;
	}
	return 0;
}

static void uet_rx(void *tp, const void *frame, size_t len)
{
	struct uet *u = tp;
	const uint8_t *f = frame;
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	const struct wren_wire_ack *ack = (const void *)(wh + 1);
	uint8_t type = wren_wire_type(f, len);
	uint32_t id = ntohl(wh->dst_ctx);

	u->st.rx_pkts++;
	u->st.rx_bytes += len;
	if (type == WREN_WIRE_DATA) {
		rx_data(u, f, len);
	} else if (type == UET_RTS && len >= UET_CTL_LEN) {
		rx_pull_target(u, rx_lookup(u, wren_wire_get32(f +
				WREN_WIRE_IP_SRC), ntohl(wh->src_ctx)),
			       ntohl(wh->bsn));
	} else if (len < UET_CTL_LEN || id >= u->ntx) {
		u->st.rx_drop_malformed++;
		u->st.rx_drops++;
	} else if (type == WREN_WIRE_ACK) {
		rx_ack(u, u->txv[id], wh, ack, f);
	} else if (type == WREN_WIRE_NACK) {
		rx_nack(u, u->txv[id], wh, ack);
	} else if (type == UET_PULL) {
		rx_pull(u, u->txv[id], ntohl(wh->psn));
	} else {
		u->st.rx_drop_malformed++;
		u->st.rx_drops++;
	}
}

static void uet_stats(const void *tp, struct wren_tp_stats *st)
{
	const struct uet *u = tp;

	*st = u->st;
}

static size_t uet_ctx_memory(const void *tp)
{
	const struct uet *u = tp;

	return u->ntx * (sizeof(struct uet_tx) + u->c->evs) +
	       u->nrx * sizeof(struct uet_rx);
}

static size_t uet_peer_memory(const void *tp, uint32_t ipv4)
{
	const struct uet *u = tp;
	size_t sum = 0;

	for (uint32_t i = 0; i < u->ntx; i++)
		if (u->txv[i]->dst_ip == ipv4)
			sum += sizeof(struct uet_tx) + u->c->evs;
	return sum;
}

static size_t uet_frame_max(const struct net *n)
{
	return UET_HDRS + n->cfg->mtu;
}

const struct xport_ops xport_uet = {
	.name = "uet",
	.create = uet_create,
	.destroy = uet_destroy,
	.send = uet_send,
	.tx_pull = uet_tx_pull,
	.rx = uet_rx,
	.stats = uet_stats,
	.ctx_memory = uet_ctx_memory,
	.peer_memory = uet_peer_memory,
	.frame_max = uet_frame_max,
};
