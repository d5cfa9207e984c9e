// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The go-back-N baseline: what a RoCE-style reliable connection does on a
 * lossy or reordering fabric.  One fixed path (entropy) per flow, one PSN
 * space per flow; the receiver takes only the next expected PSN and NAKs
 * the first gap once; the sender goes back to the NAKed PSN and resends
 * everything from there, or from the oldest unacknowledged PSN when
 * nothing moves for an RTO.  Congestion control is one of two:
 *
 *  - aimd: ECN echoes in the ACKs drive a simple AIMD window (the
 *    project's first baseline);
 *  - dcqcn: RoCEv2's DCQCN (Zhu et al., SIGCOMM 2015, section 3): the
 *    receiver (the NP) answers CE-marked packets with at most one CNP a
 *    flow per gbn.cnp_interval; the sender (the RP) paces each flow at
 *    a rate Rc that a CNP cuts to Rc (1 - alpha / 2), with alpha an EWMA
 *    of CNPs (gain g) that decays every gbn.alpha_timer without one, and
 *    that a timer and a byte counter raise: fast recovery towards the
 *    target Rt for F steps, then additive (R_AI), then hyper (R_HAI)
 *    increase.  The window is then a fixed bound on bytes in flight, as
 *    a NIC's outstanding-request limit is.  The switches' side (the CP)
 *    is sw.kmin/sw.kmax/sw.pmax.  Parameters and their sources:
 *    README.rst, "Peers".
 *
 * Loss recovery is one of two as well: go-back-N as above, or IRN's
 * (gbn.recovery = irn; Mittal et al., SIGCOMM 2018, section 3): the
 * receiver keeps out-of-order packets and answers each with a NACK that
 * carries the cumulative PSN and the PSN that arrived (a selective ack);
 * the sender, in loss recovery from the first NACK until the cumulative
 * PSN passes what it had sent then, resends only the holes below the
 * highest PSN selectively acked, and new packets otherwise; at most
 * gbn.bdp_cap packets are outstanding (BDP-FC); the timeout is
 * gbn.rto_low with at most gbn.rto_low_n packets outstanding, else
 * gbn.rto_ns, and resends everything outstanding.
 *
 * A third congestion control goes with IRN's recovery: swift, the
 * delay-based window of Swift (Kumar et al., SIGCOMM 2020, section 3),
 * Falcon's: every ACK or NACK echoes the send time of the packet that
 * drew it; a round trip below the target delay grows the window by
 * gbn.swift_ai packets a window's worth of ACKs, one above it shrinks
 * the window by beta x (delay - target) / delay, at most max_mdf, at
 * most once a round trip; the target is gbn.swift_target plus flow
 * scaling, which adds up to gbn.swift_fs_range for small windows (as
 * 1 / sqrt(window), from swift_fs_max packets down to swift_fs_min); a
 * timeout or the start of loss recovery cuts the window by max_mdf.  The
 * window (in packets, at least one) bounds what IRN has outstanding,
 * with gbn.bdp_cap above it.
 *
 * It speaks the Wren wire structures on UDP port 4791, so switches never
 * trim it and the same frame helpers apply.  It sits on the same host
 * seam (struct wren_tp_env_ops) and upper layer (struct wren_tp_ulp_ops) as
 * the real transport.  Receivers accept every message (the traffic
 * generators never refuse one), so no error status travels back.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"

#define GBN_HDRS	WREN_WIRE_DATA_HDRS_LEN
#define GBN_ACK_LEN	(WREN_WIRE_L2L4_LEN + sizeof(struct wren_wire_hdr) + \
			 sizeof(struct wren_wire_ack))
/*
 * A CNP travels as a GRANT-typed frame on the RoCEv2 port (the baseline
 * grants nothing): a control packet to the switches, counted in
 * tx_grants and rx_grants.
 */
#define GBN_CNP		WREN_WIRE_GRANT

struct gbn_msg {
	struct gbn_msg *next;
	uint64_t cookie;
	struct wren_tp_msg m;
	uint32_t first_psn;
	uint32_t npkts;
};

/* Initiator side of a flow: one per (destination, class). */
struct gbn_tx {
	struct gbn *g;
	struct gbn_tx *hnext;
	struct gbn_tx *rnext;		/* ready to send */
	bool ready;
	uint32_t id;
	uint32_t dst_ip;		/* host order */
	uint8_t mac[6];
	uint32_t class_id;
	uint16_t sport;
	struct gbn_msg *head, *tail, *cur;
	uint32_t una, nxt, end, high;	/* PSNs; high: highest sent + 1 */
	uint32_t inflight;		/* payload bytes in [una, nxt) */
	uint32_t cwnd;
	uint32_t recover;		/* no new decrease below this PSN */
	uint8_t cause;			/* of the resends after a go-back */
	void *rto;
	/* DCQCN's reaction point; rates in Mb/s. */
	double rc, rt, alpha;
	uint64_t next_ps;		/* pacing: the next packet may leave */
	uint32_t t_cnt, bc_cnt;		/* increase events since a CNP */
	uint64_t bc_bytes;		/* towards the next byte-counter event */
	void *pace, *alpha_tm, *rate_tm;
	/* IRN: selectively acked PSNs, by PSN modulo IRN_RING. */
	uint8_t *sacked;
	bool recovery;
	uint32_t recover_psn;		/* recovery ends when una gets here */
	uint32_t sack_high;		/* highest PSN selectively acked + 1 */
	uint32_t retx_next;		/* holes below this are resent */
	/* Swift: window in packets, last decrease, last round trip. */
	double swnd;
	uint64_t sw_dec_ns, sw_rtt_ns;
	uint64_t sw_srtt_ns, sw_rttvar_ns;	/* the timeout's EWMAs */
};

/* IRN: the NACKs a receiver owes, one per out-of-order packet. */
#define IRN_NACKS	16

/* IRN: a message being received, packets in any order. */
struct irn_rmsg {
	struct irn_rmsg *next;
	uint32_t msn;			/* its first PSN */
	uint32_t left;			/* payload bytes still to come */
	uint64_t cookie;
	bool ok;			/* the upper layer took it */
};

/* Target side of a flow: one per (source, source context). */
struct gbn_rx {
	struct gbn_rx *hnext;
	struct gbn_rx *cnext;		/* has an ACK or NAK to send */
	bool queued, ack, nak, cnp, in_msg;
	/*
	 * DCQCN's NP (the paper's Figure 6): a CNP goes at once for a
	 * marked packet when none went in the last interval; then, at the
	 * end of each interval, another if a marked packet came during it.
	 */
	bool cnp_window, ce_in_window;
	void *cnp_tm;
	struct gbn *g;
	/* IRN: PSNs held above expected, messages under way, NACKs due. */
	uint8_t *got;
	struct irn_rmsg *msgs;
	uint32_t sacks[IRN_NACKS];
	uint32_t nsacks;
	uint32_t src_ip;
	uint32_t src_ctx;
	uint16_t sport;
	uint32_t expected;
	bool nak_sent;
	uint32_t unacked;
	uint16_t ce;
	uint64_t cookie;
	uint32_t ts_echo;		/* the latest DATA's send time */
};

struct gbn {
	struct net *net;
	struct host *host;
	const struct wren_tp_ulp_ops *ulp;
	const struct gbn_config *c;
	uint32_t mtu;
	struct gbn_tx **txh;		/* by destination and class */
	struct gbn_tx **txv;		/* by id */
	uint32_t ntx, txcap, txhsize;
	struct gbn_rx **rxh;
	uint32_t nrx, rxhsize;
	struct gbn_tx *rhead, *rtail;
	struct gbn_rx *chead, *ctail;
	struct wren_tp_stats st;
};

static uint32_t hash2(uint32_t a, uint32_t b, uint32_t size)
{
	return (uint32_t)(mix64((uint64_t)a << 32 | b) & (size - 1));
}

static void *zalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		perror("netsim: gbn");
		exit(2);
	}
	return p;
}

/* Payload bytes of PSNs [from, to), from the messages still held. */
static uint32_t range_bytes(const struct gbn *g, const struct gbn_tx *t,
			    uint32_t from, uint32_t to)
{
	const struct gbn_msg *m;
	uint64_t sum = 0;

	for (m = t->head; m && m->first_psn < to; m = m->next) {
		uint32_t lo = m->first_psn, hi = lo + m->npkts, a, b;

		a = from > lo ? from : lo;
		b = to < hi ? to : hi;
		if (a >= b)
			continue;
		/* All packets are full but the last of the message. */
		sum += (uint64_t)(b - a) * g->mtu;
		if (b == hi)
			sum -= (uint64_t)m->npkts * g->mtu - m->m.len;
	}
	return (uint32_t)sum;
}

static bool irn(const struct gbn *g)
{
	return g->c->recovery == GBN_REC_IRN;
}

/* IRN: the next PSN to resend in loss recovery, or @t->high if none. */
static uint32_t irn_hole(const struct gbn_tx *t)
{
	uint32_t psn = t->retx_next > t->una ? t->retx_next : t->una;

	if (!t->recovery)
		return t->high;
	for (; psn < t->sack_high; psn++)
		if (!t->sacked[psn % IRN_RING])
			return psn;
	return t->high;
}

static bool swift(const struct gbn *g)
{
	return g->c->cc == GBN_CC_SWIFT;
}

/* IRN: packets outstanding at most (Swift's window below BDP-FC's). */
static uint32_t irn_cap(const struct gbn_tx *t)
{
	const struct gbn_config *c = t->g->c;

	if (swift(t->g) && t->swnd < c->bdp_cap)
		return t->swnd < 1 ? 1 : (uint32_t)t->swnd;
	return c->bdp_cap;
}

static bool tx_can_send(const struct gbn_tx *t)
{
	if (irn(t->g))
		return irn_hole(t) != t->high ||
		       (t->high != t->end && t->high - t->una < irn_cap(t));
	return t->nxt != t->end && t->inflight < t->cwnd;
}

/*
 * Swift: the window falls to 0.001 packets at least (the paper's section
 * 3.4); below one packet the flow is paced, a packet per RTT / window.
 */
#define SWIFT_MIN_WND	0.001

/* Swift: the timeout before a round trip was measured (a choice). */
#define SWIFT_RTO_INIT_NS	1000000

static bool swift_paced(const struct gbn *g, const struct gbn_tx *t)
{
	return g->c->cc == GBN_CC_SWIFT && t->swnd < 1;
}

/* Swift: cut the window by @f, at most once a round trip. */
static void swift_cut(struct gbn *g, struct gbn_tx *t, double f)
{
	uint64_t now = host_env_ops.now_ns(g->host);

	if (now - t->sw_dec_ns < t->sw_rtt_ns)
		return;
	t->sw_dec_ns = now;
	t->swnd *= f;
	if (t->swnd < SWIFT_MIN_WND)
		t->swnd = SWIFT_MIN_WND;
	g->st.cc_decreases++;
}

/* Swift: an ACK of @acked packets that echoes send time @ts. */
static void swift_ack(struct gbn *g, struct gbn_tx *t, uint32_t ts,
		      uint32_t acked)
{
	const struct gbn_config *c = g->c;
	uint32_t delay = (uint32_t)host_env_ops.now_ns(g->host) - ts;
	double a, b, fs, target;

	t->sw_rtt_ns = delay;
	if (!t->sw_srtt_ns) {
		t->sw_srtt_ns = delay;
		t->sw_rttvar_ns = delay / 2;
	} else {
		uint64_t d = delay > t->sw_srtt_ns ? delay - t->sw_srtt_ns :
						     t->sw_srtt_ns - delay;

		t->sw_rttvar_ns = (3 * t->sw_rttvar_ns + d) / 4;
		t->sw_srtt_ns = (7 * t->sw_srtt_ns + delay) / 8;
	}
	/* Flow scaling: alpha / sqrt(window) + beta, in [0, range]. */
	a = c->sw_fs_range_ns / (1 / sqrt(c->sw_fs_min) - 1 / sqrt(c->sw_fs_max));
	b = -a / sqrt(c->sw_fs_max);
	fs = a / sqrt(t->swnd) + b;
	fs = fs < 0 ? 0 : fs > c->sw_fs_range_ns ? c->sw_fs_range_ns : fs;
	target = c->sw_target_ns + fs;
	if (delay < target) {
		t->swnd += t->swnd >= 1 ? c->sw_ai * acked / t->swnd :
					  c->sw_ai * acked;
		if (t->swnd > c->bdp_cap)
			t->swnd = c->bdp_cap;
	} else if (acked) {
		double f = 1 - c->sw_beta * (delay - target) / delay;

		swift_cut(g, t, f < 1 - c->sw_max_mdf ? 1 - c->sw_max_mdf : f);
	}
}

static bool dcqcn(const struct gbn *g)
{
	return g->c->cc == GBN_CC_DCQCN;
}

/* DCQCN: not yet @t's time on the wire; the pace timer calls back. */
static bool tx_paced(struct gbn *g, struct gbn_tx *t)
{
	uint64_t now = g->net->sim.now;

	if (!(dcqcn(g) || swift_paced(g, t)) || t->next_ps <= now)
		return false;
	if (!sim_queued(&((struct sim_timer *)t->pace)->ev))
		host_env_ops.timer_arm(t->pace, (t->next_ps + PS_PER_NS - 1) /
					       PS_PER_NS);
	return true;
}

static void tx_make_ready(struct gbn *g, struct gbn_tx *t)
{
	if (t->ready || !tx_can_send(t) || tx_paced(g, t))
		return;
	t->ready = true;
	t->rnext = NULL;
	if (g->rtail)
		g->rtail->rnext = t;
	else
		g->rhead = t;
	g->rtail = t;
	host_env_ops.tx_kick(g->host);
}

static void rx_queue_ctrl(struct gbn *g, struct gbn_rx *r)
{
	if (r->queued)
		return;
	r->queued = true;
	r->cnext = NULL;
	if (g->ctail)
		g->ctail->cnext = r;
	else
		g->chead = r;
	g->ctail = r;
	host_env_ops.tx_kick(g->host);
}

/* DCQCN's NP: a CNP now, and an interval in which marks wait. */
static void rx_send_cnp(struct gbn *g, struct gbn_rx *r, uint64_t now)
{
	r->cnp = true;
	r->cnp_window = true;
	r->ce_in_window = false;
	rx_queue_ctrl(g, r);
	host_env_ops.timer_arm(r->cnp_tm, now + g->c->cnp_ns);
}

/* The interval is over: a CNP if a marked packet came during it. */
static void rx_cnp_timer(void *arg)
{
	struct gbn_rx *r = arg;
	struct gbn *g = r->g;

	if (r->ce_in_window)
		rx_send_cnp(g, r, host_env_ops.now_ns(g->host));
	else
		r->cnp_window = false;
}

/* The message holding PSN @psn, or NULL past the end. */
static struct gbn_msg *msg_of(struct gbn_tx *t, uint32_t psn)
{
	struct gbn_msg *m;

	for (m = t->head; m; m = m->next)
		if (psn < m->first_psn + m->npkts)
			return m;
	return NULL;
}

static void tx_arm(struct gbn *g, struct gbn_tx *t)
{
	uint64_t now = host_env_ops.now_ns(g->host);
	uint64_t rto = g->c->rto_ns;

	/* IRN: a short timeout when too few are out for NACKs to come. */
	if (irn(g) && t->high - t->una <= g->c->rto_low_n)
		rto = g->c->rto_low_ns;
	/*
	 * Swift: a timeout from an EWMA of the round trip (its section
	 * 3.6; the form is RFC 6298's), not shorter than rto_low, and
	 * RTT / window past the next paced send.
	 */
	if (swift(g) && !t->sw_srtt_ns && rto < SWIFT_RTO_INIT_NS)
		rto = SWIFT_RTO_INIT_NS;
	if (swift(g) && t->sw_srtt_ns) {
		rto = t->sw_srtt_ns + 4 * t->sw_rttvar_ns;
		if (rto < g->c->rto_low_ns)
			rto = g->c->rto_low_ns;
		if (swift_paced(g, t))
			rto += (uint64_t)(t->sw_rtt_ns / t->swnd);
	}
	host_env_ops.timer_arm(t->rto, now + rto);
}

static void tx_go_back(struct gbn *g, struct gbn_tx *t, uint32_t psn,
		       uint8_t cause)
{
	t->nxt = psn;
	t->cur = msg_of(t, psn);
	t->inflight = range_bytes(g, t, t->una, t->nxt);
	t->cause = cause;
}

static void tx_rto(void *arg)
{
	struct gbn_tx *t = arg;
	struct gbn *g = t->g;

	if (t->una == t->high)
		return;
	if (irn(g)) {
		uint32_t psn;

		/*
		 * Forget the selective acks, as TCP does on a timeout: the
		 * ack that would have moved una may be what was lost, and
		 * a resent packet the receiver holds draws a fresh one.
		 */
		for (psn = t->una; psn != t->high; psn++)
			t->sacked[psn % IRN_RING] = 0;
		t->recovery = true;
		t->recover_psn = t->high;
		t->sack_high = t->high;
		t->retx_next = t->una;
		t->cause = WREN_TP_RETX_TIMEOUT;
		if (swift(g))
			swift_cut(g, t, 1 - g->c->sw_max_mdf);
		tx_arm(g, t);
		tx_make_ready(g, t);
		return;
	}
	tx_go_back(g, t, t->una, WREN_TP_RETX_TIMEOUT);
	if (!dcqcn(g))
		t->cwnd = g->c->min_window;
	t->recover = t->high;
	tx_arm(g, t);
	tx_make_ready(g, t);
}

static void tx_pace(void *arg)
{
	struct gbn_tx *t = arg;

	tx_make_ready(t->g, t);
}

static void dcqcn_arm(struct gbn *g, void *timer, uint64_t after_ns)
{
	host_env_ops.timer_arm(timer, host_env_ops.now_ns(g->host) + after_ns);
}

/*
 * One rate-increase event (timer or byte counter): fast recovery halves
 * the gap to the target for the first F events after a CNP; after that
 * the target itself rises, by R_AI while only one counter has passed F,
 * by i x R_HAI once both have (i: events past F).
 */
static void dcqcn_increase(struct gbn *g, struct gbn_tx *t)
{
	const struct gbn_config *c = g->c;
	uint32_t lo = t->t_cnt < t->bc_cnt ? t->t_cnt : t->bc_cnt;
	uint32_t hi = t->t_cnt < t->bc_cnt ? t->bc_cnt : t->t_cnt;
	double line = g->net->cfg->rate_mbps;

	if (lo > c->fast_recovery)
		t->rt += (double)(lo - c->fast_recovery) * c->rhai_mbps;
	else if (hi > c->fast_recovery)
		t->rt += c->rai_mbps;
	if (t->rt > line)
		t->rt = line;
	t->rc = (t->rt + t->rc) / 2;
	if (t->rc > line)
		t->rc = line;
}

static void tx_rate_timer(void *arg)
{
	struct gbn_tx *t = arg;
	struct gbn *g = t->g;

	t->t_cnt++;
	dcqcn_increase(g, t);
	if (t->rc < g->net->cfg->rate_mbps)
		dcqcn_arm(g, t->rate_tm, g->c->rate_ns);
}

/*
 * alpha decays by (1 - g) each period without a CNP: a CNP restarts the
 * period (the paper's Figure 7 resets the alpha timer with the others).
 */
static void tx_alpha_timer(void *arg)
{
	struct gbn_tx *t = arg;
	struct gbn *g = t->g;

	t->alpha *= 1 - g->c->g;
	/* Idle at line rate with alpha near 0: nothing left to decay. */
	if (t->rc < g->net->cfg->rate_mbps || t->alpha > 1.0 / 1024)
		dcqcn_arm(g, t->alpha_tm, g->c->alpha_ns);
}

/* A CNP: cut the rate, raise alpha, start counting increases afresh. */
static void dcqcn_cnp(struct gbn *g, struct gbn_tx *t)
{
	const struct gbn_config *c = g->c;

	t->rt = t->rc;
	t->rc *= 1 - t->alpha / 2;
	if (t->rc < c->min_rate_mbps)
		t->rc = c->min_rate_mbps;
	t->alpha = (1 - c->g) * t->alpha + c->g;
	t->t_cnt = t->bc_cnt = 0;
	t->bc_bytes = 0;
	dcqcn_arm(g, t->rate_tm, c->rate_ns);
	dcqcn_arm(g, t->alpha_tm, c->alpha_ns);
	g->st.cc_decreases++;
}

static struct gbn_tx *tx_lookup(struct gbn *g, uint32_t ip, uint32_t cls,
				const uint8_t *mac)
{
	uint32_t b = hash2(ip, cls, g->txhsize), i;
	struct gbn_tx *t;

	for (t = g->txh[b]; t; t = t->hnext)
		if (t->dst_ip == ip && t->class_id == cls)
			return t;
	if (g->ntx == g->txcap) {
		g->txcap = g->txcap ? 2 * g->txcap : 16;
		g->txv = realloc(g->txv, g->txcap * sizeof(*g->txv));
		if (!g->txv) {
			perror("netsim: gbn");
			exit(2);
		}
	}
	if (g->ntx + 1 > g->txhsize) {
		struct gbn_tx **nh;

		g->txhsize *= 2;
		nh = zalloc(g->txhsize * sizeof(*nh));
		for (i = 0; i < g->ntx; i++) {
			struct gbn_tx *x = g->txv[i];
			uint32_t nb = hash2(x->dst_ip, x->class_id,
					    g->txhsize);

			x->hnext = nh[nb];
			nh[nb] = x;
		}
		free(g->txh);
		g->txh = nh;
		b = hash2(ip, cls, g->txhsize);
	}
	t = zalloc(sizeof(*t));
	t->g = g;
	t->id = g->ntx;
	t->dst_ip = ip;
	t->class_id = cls;
	memcpy(t->mac, mac, 6);
	t->sport = WREN_WIRE_ENTROPY_BASE |
		   (mix64((uint64_t)g->host->ipv4 << 32 ^ ip ^
			  (uint64_t)cls << 20) & WREN_WIRE_ENTROPY_MASK);
	t->cwnd = g->c->window;
	t->swnd = g->c->sw_init;
	t->rto = host_env_ops.timer_new(g->host, tx_rto, t);
	/* DCQCN starts at line rate with alpha = 1. */
	t->rc = t->rt = g->net->cfg->rate_mbps;
	t->alpha = 1;
	t->pace = host_env_ops.timer_new(g->host, tx_pace, t);
	t->alpha_tm = host_env_ops.timer_new(g->host, tx_alpha_timer, t);
	t->rate_tm = host_env_ops.timer_new(g->host, tx_rate_timer, t);
	if (irn(g))
		t->sacked = zalloc(IRN_RING);
	t->hnext = g->txh[b];
	g->txh[b] = t;
	g->txv[g->ntx++] = t;
	g->st.ctx_created++;
	return t;
}

static struct gbn_rx *rx_lookup(struct gbn *g, uint32_t ip, uint32_t ctx,
				uint16_t sport)
{
	uint32_t b = hash2(ip, ctx, g->rxhsize), i;
	struct gbn_rx *r;

	for (r = g->rxh[b]; r; r = r->hnext)
		if (r->src_ip == ip && r->src_ctx == ctx)
			return r;
	if (g->nrx + 1 > g->rxhsize) {
		struct gbn_rx **nh, *x, *nx;
		uint32_t old = g->rxhsize;

		g->rxhsize *= 2;
		nh = zalloc(g->rxhsize * sizeof(*nh));
		for (i = 0; i < old; i++)
			for (x = g->rxh[i]; x; x = nx) {
				uint32_t nb = hash2(x->src_ip, x->src_ctx,
						    g->rxhsize);

				nx = x->hnext;
				x->hnext = nh[nb];
				nh[nb] = x;
			}
		free(g->rxh);
		g->rxh = nh;
		b = hash2(ip, ctx, g->rxhsize);
	}
	r = zalloc(sizeof(*r));
	r->g = g;
	r->src_ip = ip;
	r->src_ctx = ctx;
	r->sport = sport;
	r->hnext = g->rxh[b];
	g->rxh[b] = r;
	g->nrx++;
	g->st.rx_ctx_created++;
	return r;
}

static void *gbn_create(struct net *n, struct host *h,
			const struct wren_tp_ulp_ops *ulp)
{
	struct gbn *g = zalloc(sizeof(*g));

	g->net = n;
	g->host = h;
	g->ulp = ulp;
	g->c = &n->cfg->gbn;
	g->mtu = n->cfg->mtu;
	g->txhsize = 16;
	g->txh = zalloc(g->txhsize * sizeof(*g->txh));
	g->rxhsize = 16;
	g->rxh = zalloc(g->rxhsize * sizeof(*g->rxh));
	return g;
}

static void gbn_destroy(void *tp)
{
	struct gbn *g = tp;
	uint32_t i;

	for (i = 0; i < g->ntx; i++) {
		struct gbn_tx *t = g->txv[i];
		struct gbn_msg *m, *nm;

		for (m = t->head; m; m = nm) {
			nm = m->next;
			free(m);
		}
		host_env_ops.timer_free(t->rto);
		host_env_ops.timer_free(t->pace);
		host_env_ops.timer_free(t->alpha_tm);
		host_env_ops.timer_free(t->rate_tm);
		free(t->sacked);
		free(t);
	}
	for (i = 0; i < g->rxhsize; i++) {
		struct gbn_rx *r, *nr;

		for (r = g->rxh[i]; r; r = nr) {
			struct irn_rmsg *x, *nx;

			nr = r->hnext;
			for (x = r->msgs; x; x = nx) {
				nx = x->next;
				free(x);
			}
			if (r->cnp_tm)
				host_env_ops.timer_free(r->cnp_tm);
			free(r->got);
			free(r);
		}
	}
	free(g->txv);
	free(g->txh);
	free(g->rxh);
	free(g);
}

static int gbn_send(void *tp, const struct wren_tp_dest *dst,
		    const struct wren_tp_msg *msg, uint64_t cookie)
{
	struct gbn *g = tp;
	struct gbn_tx *t;
	struct gbn_msg *m;

	if (msg->len > WREN_WIRE_MAX_MSG_LEN)
		return -EINVAL;
	t = tx_lookup(g, ntohl(dst->ipv4), dst->class_id, dst->mac);
	m = zalloc(sizeof(*m));
	m->cookie = cookie;
	m->m = *msg;
	m->first_psn = t->end;
	m->npkts = msg->len ? (msg->len + g->mtu - 1) / g->mtu : 1;
	t->end += m->npkts;
	if (t->tail)
		t->tail->next = m;
	else
		t->head = m;
	t->tail = m;
	if (!t->cur)
		t->cur = m;
	tx_make_ready(g, t);
	return 0;
}

static void hdr_fill(struct wren_wire_hdr *wh, uint8_t type, uint8_t flags,
		     uint32_t src_ctx, uint32_t dst_ctx, uint32_t psn,
		     uint32_t bsn, uint32_t ts)
{
	peer_hdr(wh, type, flags, src_ctx, dst_ctx, psn);
	wh->bsn = htonl(bsn);
	wh->ts = htonl(ts);
}

static size_t pull_ctrl(struct gbn *g, uint8_t *f)
{
	struct gbn_rx *r = g->chead;
	struct wren_wire_hdr *wh = (void *)(f + WREN_WIRE_HDR);
	struct wren_wire_ack *ack = (void *)(wh + 1);
	bool nak = r->nak;

	g->chead = r->cnext;
	if (!g->chead)
		g->ctail = NULL;
	r->queued = false;
	if (r->cnp) {
		/* The CNP first; an ACK or NAK due waits its next turn. */
		r->cnp = false;
		if (r->ack || r->nak)
			rx_queue_ctrl(g, r);
		hdr_fill(wh, GBN_CNP, 0, 0, r->src_ctx, r->expected,
			 r->expected, 0);
		memset(ack, 0, sizeof(*ack));
		frame_l2l4(f, GBN_ACK_LEN, g->host->ipv4, r->src_ip, r->sport,
			   GBN_UDP_PORT, 0);
		g->st.tx_grants++;
		g->st.tx_pkts++;
		g->st.tx_bytes += GBN_ACK_LEN;
		return GBN_ACK_LEN;
	}
	if (irn(g) && r->nsacks) {
		/* One NACK per out-of-order packet: its PSN rides in bsn. */
		uint32_t sack = r->sacks[0];

		memmove(r->sacks, r->sacks + 1,
			--r->nsacks * sizeof(r->sacks[0]));
		nak = true;
		if (r->nsacks || r->ack)
			rx_queue_ctrl(g, r);
		else
			r->nak = false;
		hdr_fill(wh, WREN_WIRE_NACK, 0, 0, r->src_ctx, r->expected,
			 sack, r->ts_echo);
	} else {
		r->ack = r->nak = false;
		hdr_fill(wh, nak ? WREN_WIRE_NACK : WREN_WIRE_ACK, 0, 0,
			 r->src_ctx, r->expected, r->expected, r->ts_echo);
	}
	r->unacked = 0;
	memset(ack, 0, sizeof(*ack));
	ack->ce_count = htons(r->ce);
	r->ce = 0;
	frame_l2l4(f, GBN_ACK_LEN, g->host->ipv4, r->src_ip, r->sport,
		   GBN_UDP_PORT, 0);
	if (nak)
		g->st.tx_nacks++;
	else
		g->st.tx_acks++;
	g->st.tx_pkts++;
	g->st.tx_bytes += GBN_ACK_LEN;
	return GBN_ACK_LEN;
}

static size_t pull_data(struct gbn *g, struct gbn_tx *t, uint8_t *f)
{
	struct gbn_msg *m = t->cur;
	struct wren_wire_hdr *wh = (void *)(f + WREN_WIRE_HDR);
	struct wren_wire_data *d = (void *)(wh + 1);
	uint32_t idx = t->nxt - m->first_psn, off = idx * g->mtu;
	uint32_t len = m->m.len - off < g->mtu ? m->m.len - off : g->mtu;
	uint8_t flags = 0;
	size_t flen = GBN_HDRS + len;

	if (len && g->ulp->tx_read(g->host, m->cookie, off, f + GBN_HDRS,
				   len) < 0) {
		fprintf(stderr, "netsim: gbn: tx_read failed\n");
		exit(2);
	}
	if (t->nxt < t->high) {
		flags |= WREN_WIRE_F_RETX;
		if (t->cause == WREN_TP_RETX_TIMEOUT)
			g->st.retx_timeout++;
		else
			g->st.retx_nack++;
	}
	t->nxt++;
	if (t->nxt > t->high)
		t->high = t->nxt;
	t->inflight += len;
	if (idx + 1 == m->npkts)
		t->cur = m->next;
	if (!tx_can_send(t))
		flags |= WREN_WIRE_F_ACK_REQ;
	hdr_fill(wh, WREN_WIRE_DATA, flags, t->id, 0, t->nxt - 1, t->una,
		 (uint32_t)host_env_ops.now_ns(g->host));
	memset(d, 0, sizeof(*d));
	d->msn = htonl(m->first_psn);
	d->msg_len = htonl(m->m.len);
	d->offset = htonl(off);
	d->opcode = m->m.opcode;
	d->msg_flags = m->m.flags & WREN_TP_MSG_ORDERED ?
		       WREN_WIRE_MSG_ORDERED : 0;
	d->dst_qpn = htonl(m->m.dst_qpn);
	d->src_qpn = htonl(m->m.src_qpn);
	d->qkey = htonl(m->m.qkey);
	d->imm = htonl(m->m.imm);
	frame_l2l4(f, flen, g->host->ipv4, t->dst_ip, t->sport, GBN_UDP_PORT,
		   WREN_WIRE_ECN_ECT0);
	if (!sim_queued(&((struct sim_timer *)t->rto)->ev))
		tx_arm(g, t);
	if (dcqcn(g)) {
		uint64_t now = g->net->sim.now;
		double bits = (double)(flen + WREN_WIRE_ETH_OVERHEAD) * 8;

		/* Mb/s: a bit takes 1e6 / rate picoseconds. */
		t->next_ps = (t->next_ps > now ? t->next_ps : now) +
			     (uint64_t)(bits * 1e6 / t->rc);
		t->bc_bytes += flen;
		if (t->bc_bytes >= g->c->byte_counter) {
			t->bc_bytes -= g->c->byte_counter;
			t->bc_cnt++;
			dcqcn_increase(g, t);
		}
	} else if (swift_paced(g, t) && t->sw_rtt_ns) {
		/* Swift below one packet: the next after RTT / window. */
		t->next_ps = g->net->sim.now +
			     (uint64_t)(t->sw_rtt_ns * (double)PS_PER_NS /
					t->swnd);
	}
	g->st.tx_pkts++;
	g->st.tx_bytes += flen;
	g->st.tx_data_pkts++;
	g->st.tx_data_bytes += len;
	return flen;
}

/*
 * IRN: a hole in loss recovery, else the next new packet.  pull_data()
 * sends PSN t->nxt, so point it at the hole and back at t->high after.
 */
static size_t irn_pull(struct gbn *g, struct gbn_tx *t, uint8_t *f)
{
	uint32_t hole = irn_hole(t);
	size_t len;

	if (hole == t->high) {
		t->nxt = t->high;
		t->cur = msg_of(t, t->nxt);
		return pull_data(g, t, f);
	}
	t->retx_next = hole + 1;
	t->nxt = hole;
	t->cur = msg_of(t, hole);
	len = pull_data(g, t, f);
	t->nxt = t->high;
	t->cur = msg_of(t, t->nxt);
	return len;
}

static size_t gbn_tx_pull(void *tp, void *frame, size_t cap)
{
	struct gbn *g = tp;
	struct gbn_tx *t;
	size_t len;

	if (cap < GBN_HDRS + g->mtu)
		return 0;
	if (g->chead)
		return pull_ctrl(g, frame);
	while ((t = g->rhead)) {
		g->rhead = t->rnext;
		if (!g->rhead)
			g->rtail = NULL;
		t->ready = false;
		if (!tx_can_send(t) || tx_paced(g, t))
			continue;
		len = irn(g) ? irn_pull(g, t, frame) : pull_data(g, t, frame);
		/* Round robin between flows, a packet each. */
		tx_make_ready(g, t);
		return len;
	}
	return 0;
}

/* Complete every message wholly below t->una. */
static void tx_complete(struct gbn *g, struct gbn_tx *t)
{
	while (t->head && t->head->first_psn + t->head->npkts <= t->una) {
		struct gbn_msg *m = t->head;

		t->head = m->next;
		if (!t->head)
			t->tail = NULL;
		g->st.tx_msgs++;
		g->ulp->tx_done(g->host, m->cookie, WREN_TP_OK);
		free(m);
	}
}

/*
 * IRN: everything below @cum arrived, and @sack (UINT32_MAX: none) did;
 * a selective ack starts loss recovery.
 */
static void irn_acked(struct gbn *g, struct gbn_tx *t, uint32_t cum,
		      uint32_t sack, uint32_t ts)
{
	uint32_t acked = 0;

	if (cum > t->una && cum <= t->high)
		acked = cum - t->una;
	if (sack != UINT32_MAX && sack >= cum && sack < t->high &&
	    !t->sacked[sack % IRN_RING])
		acked++;
	if (swift(g))
		swift_ack(g, t, ts, acked);
	if (cum > t->una && cum <= t->high) {
		for (; t->una < cum; t->una++)
			t->sacked[t->una % IRN_RING] = 0;
		tx_complete(g, t);
	}
	if (sack != UINT32_MAX && sack >= t->una && sack < t->high) {
		t->sacked[sack % IRN_RING] = 1;
		if (sack + 1 > t->sack_high)
			t->sack_high = sack + 1;
		if (!t->recovery) {
			t->recovery = true;
			t->recover_psn = t->high;
			t->retx_next = t->una;
			t->cause = WREN_TP_RETX_NACK;
			if (swift(g))
				swift_cut(g, t, 1 - g->c->sw_max_mdf);
		}
	}
	if (t->recovery && t->una >= t->recover_psn)
		t->recovery = false;
	if (t->sack_high < t->una)
		t->sack_high = t->una;
	if (t->una == t->high)
		host_env_ops.timer_cancel(t->rto);
	else
		tx_arm(g, t);
	tx_make_ready(g, t);
}

/* Everything below @cum arrived: complete messages, open the window. */
static void tx_acked(struct gbn *g, struct gbn_tx *t, uint32_t cum,
		     uint16_t ce)
{
	uint32_t acked;

	if (cum > t->high || cum <= t->una) {
		if (ce)
			goto congestion;
		return;
	}
	acked = range_bytes(g, t, t->una, cum);
	t->una = cum;
	if (t->nxt < cum) {
		t->nxt = cum;
		t->cur = msg_of(t, cum);
	}
	if (dcqcn(g))
		ce = 0;
	if (!ce && !dcqcn(g) && t->cwnd < g->c->window) {
		t->cwnd += (uint32_t)((uint64_t)g->c->ai * acked / t->cwnd);
		if (t->cwnd > g->c->window)
			t->cwnd = g->c->window;
	}
	tx_complete(g, t);
	t->inflight = range_bytes(g, t, t->una, t->nxt);
	if (t->una == t->high)
		host_env_ops.timer_cancel(t->rto);
	else
		tx_arm(g, t);
congestion:
	if (ce && t->una >= t->recover) {
		t->cwnd -= (uint32_t)((uint64_t)t->cwnd * g->c->md / 256);
		if (t->cwnd < g->c->min_window)
			t->cwnd = g->c->min_window;
		t->recover = t->high;
		g->st.cc_decreases++;
	}
	tx_make_ready(g, t);
}

static void rx_ack(struct gbn *g, const struct wren_wire_hdr *wh,
		   size_t len, bool nak)
{
	const struct wren_wire_ack *ack = (const void *)(wh + 1);
	uint32_t id = ntohl(wh->dst_ctx), cum = ntohl(wh->psn);
	struct gbn_tx *t;

	if (len < GBN_ACK_LEN || id >= g->ntx) {
		g->st.rx_drop_malformed++;
		g->st.rx_drops++;
		return;
	}
	t = g->txv[id];
	if (nak)
		g->st.rx_nacks++;
	else
		g->st.rx_acks++;
	if (irn(g)) {
		irn_acked(g, t, cum, nak ? ntohl(wh->bsn) : UINT32_MAX,
			  ntohl(wh->ts));
		return;
	}
	tx_acked(g, t, cum, ntohs(ack->ce_count));
	if (nak && cum == t->una && cum < t->nxt) {
		tx_go_back(g, t, cum, WREN_TP_RETX_NACK);
		tx_make_ready(g, t);
	}
}

/*
 * The first packet seen of a message: offer it to the upper layer, with
 * the sender and the message as the frame @f and its header @d say.
 */
static enum wren_tp_status gbn_rx_begin(struct gbn *g, const uint8_t *f,
					const struct wren_wire_data *d,
					uint64_t *cookie)
{
	struct wren_tp_peer peer = {
		.ipv4 = htonl(wren_wire_get32(f + WREN_WIRE_IP_SRC)),
	};
	struct wren_tp_msg m = {
		.len = ntohl(d->msg_len), .opcode = d->opcode,
		.flags = d->msg_flags & WREN_WIRE_MSG_ORDERED ?
			 WREN_TP_MSG_ORDERED : 0,
		.dst_qpn = ntohl(d->dst_qpn),
		.src_qpn = ntohl(d->src_qpn),
		.qkey = ntohl(d->qkey), .imm = ntohl(d->imm),
	};

	memcpy(peer.mac, f + 6, 6);
	return g->ulp->rx_begin(g->host, &peer, &m, cookie);
}

/* IRN: place a packet of any message, in any order, once. */
static void irn_place(struct gbn *g, struct gbn_rx *r, const uint8_t *f,
		      size_t len)
{
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	const struct wren_wire_data *d = (const void *)(wh + 1);
	uint32_t msn = ntohl(d->msn), mlen = ntohl(d->msg_len);
	uint32_t off = ntohl(d->offset), plen = (uint32_t)(len - GBN_HDRS);
	struct irn_rmsg **pp, *x;

	for (pp = &r->msgs; (x = *pp); pp = &x->next)
		if (x->msn == msn)
			break;
	if (!x) {
		x = zalloc(sizeof(*x));
		x->msn = msn;
		x->left = mlen;
		x->ok = gbn_rx_begin(g, f, d, &x->cookie) == WREN_TP_OK;
		*pp = x;
	}
	if (x->ok && plen &&
	    g->ulp->rx_write(g->host, x->cookie, off, f + GBN_HDRS, plen) < 0)
		x->ok = false;
	x->left -= plen < x->left ? plen : x->left;
	if (x->left)
		return;
	if (x->ok) {
		g->st.rx_msgs++;
		g->ulp->rx_done(g->host, x->cookie, WREN_TP_OK);
	}
	*pp = x->next;
	free(x);
	r->ack = true;
}

/*
 * IRN's receiver: accept any new PSN within the ring, advance the
 * cumulative PSN over what is held, and answer an out-of-order packet
 * with a NACK of its own.
 */
static void irn_rx_data(struct gbn *g, struct gbn_rx *r, const uint8_t *f,
			size_t len)
{
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	uint32_t psn = ntohl(wh->psn), ahead = psn - r->expected;

	if (!r->got)
		r->got = zalloc(IRN_RING);
	if ((int32_t)ahead < 0 || ahead >= IRN_RING ||
	    r->got[psn % IRN_RING]) {
		g->st.rx_dup_pkts++;
		if (wh->flags & WREN_WIRE_F_RETX)
			g->st.retx_spurious++;
		r->ack = true;
		rx_queue_ctrl(g, r);
		return;
	}
	r->got[psn % IRN_RING] = 1;
	irn_place(g, r, f, len);
	if (psn == r->expected) {
		while (r->got[r->expected % IRN_RING]) {
			r->got[r->expected % IRN_RING] = 0;
			r->expected++;
		}
		r->unacked++;
		if (r->unacked >= g->c->ack_every ||
		    (wh->flags & WREN_WIRE_F_ACK_REQ))
			r->ack = true;
	} else {
		g->st.rx_ooo_pkts++;
		if (r->nsacks == IRN_NACKS)
			memmove(r->sacks, r->sacks + 1,
				--r->nsacks * sizeof(r->sacks[0]));
		r->sacks[r->nsacks++] = psn;
		r->nak = true;
	}
	if (r->ack || r->nak)
		rx_queue_ctrl(g, r);
}

static void rx_data(struct gbn *g, const uint8_t *f, size_t len)
{
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	const struct wren_wire_data *d = (const void *)(wh + 1);
	uint32_t psn = ntohl(wh->psn), off = ntohl(d->offset);
	uint32_t mlen = ntohl(d->msg_len), plen = (uint32_t)(len - GBN_HDRS);
	struct gbn_rx *r;

	r = rx_lookup(g, wren_wire_get32(f + WREN_WIRE_IP_SRC), ntohl(wh->src_ctx),
		      wren_wire_get16(f + WREN_WIRE_UDP));
	g->st.rx_data_pkts++;
	g->st.rx_data_bytes += plen;
	r->ts_echo = ntohl(wh->ts);
	if ((f[WREN_WIRE_IP_TOS] & WREN_WIRE_ECN_MASK) == WREN_WIRE_ECN_CE) {
		uint64_t now = host_env_ops.now_ns(g->host);

		g->st.rx_ecn_ce++;
		if (r->ce < UINT16_MAX)
			r->ce++;
		/* DCQCN's NP: at most one CNP a flow per interval. */
		if (dcqcn(g)) {
			if (r->cnp_window) {
				r->ce_in_window = true;
			} else {
				if (!r->cnp_tm)
					r->cnp_tm = host_env_ops.timer_new(
						g->host, rx_cnp_timer, r);
				rx_send_cnp(g, r, now);
			}
		}
	}
	if (irn(g)) {
		irn_rx_data(g, r, f, len);
		return;
	}
	if (psn != r->expected) {
		if ((int32_t)(psn - r->expected) > 0) {
			g->st.rx_ooo_pkts++;
			g->st.rx_drop_window++;
			g->st.rx_drops++;
			if (!r->nak_sent) {
				r->nak_sent = true;
				r->nak = true;
				rx_queue_ctrl(g, r);
			}
		} else {
			g->st.rx_dup_pkts++;
			if (wh->flags & WREN_WIRE_F_RETX)
				g->st.retx_spurious++;
			r->ack = true;
			rx_queue_ctrl(g, r);
		}
		return;
	}
	if (off == 0) {
		r->in_msg = gbn_rx_begin(g, f, d, &r->cookie) == WREN_TP_OK;
	}
	if (r->in_msg && plen &&
	    g->ulp->rx_write(g->host, r->cookie, off, f + GBN_HDRS, plen) < 0)
		r->in_msg = false;
	r->expected++;
	r->nak_sent = false;
	r->unacked++;
	if (off + plen >= mlen) {
		if (r->in_msg) {
			g->st.rx_msgs++;
			g->ulp->rx_done(g->host, r->cookie, WREN_TP_OK);
		}
		r->in_msg = false;
		r->ack = true;
	}
	if (r->unacked >= g->c->ack_every || (wh->flags & WREN_WIRE_F_ACK_REQ))
		r->ack = true;
	if (r->ack)
		rx_queue_ctrl(g, r);
}

static void gbn_rx(void *tp, const void *frame, size_t len)
{
	struct gbn *g = tp;
	const uint8_t *f = frame;
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	uint8_t type;

	if (len < WREN_WIRE_L2L4_LEN + sizeof(*wh) ||
	    wren_wire_get16(f + WREN_WIRE_UDP + 2) != GBN_UDP_PORT) {
		g->st.rx_drop_malformed++;
		g->st.rx_drops++;
		return;
	}
	g->st.rx_pkts++;
	g->st.rx_bytes += len;
	type = FIELD_GET(WREN_WIRE_VER_TYPE_TYPE, wh->ver_type);
	if (type == WREN_WIRE_DATA && len >= GBN_HDRS) {
		rx_data(g, f, len);
	} else if (type == WREN_WIRE_ACK || type == WREN_WIRE_NACK) {
		rx_ack(g, wh, len, type == WREN_WIRE_NACK);
	} else if (type == GBN_CNP && len >= GBN_ACK_LEN &&
		   ntohl(wh->dst_ctx) < g->ntx) {
		g->st.rx_grants++;
		if (dcqcn(g))
			dcqcn_cnp(g, g->txv[ntohl(wh->dst_ctx)]);
	} else {
		g->st.rx_drop_malformed++;
		g->st.rx_drops++;
	}
}

static void gbn_stats(const void *tp, struct wren_tp_stats *st)
{
	const struct gbn *g = tp;

	*st = g->st;
}

static size_t gbn_ctx_memory(const void *tp)
{
	const struct gbn *g = tp;

	return g->ntx * (sizeof(struct gbn_tx) + sizeof(struct sim_timer)) +
	       g->nrx * sizeof(struct gbn_rx);
}

static size_t gbn_peer_memory(const void *tp, uint32_t ipv4)
{
	const struct gbn *g = tp;
	size_t sum = 0;
	uint32_t i;

	for (i = 0; i < g->ntx; i++)
		if (g->txv[i]->dst_ip == ipv4)
			sum += sizeof(struct gbn_tx);
	return sum;
}

static size_t gbn_frame_max(const struct net *n)
{
	return GBN_HDRS + n->cfg->mtu;
}

const struct xport_ops xport_gbn = {
	.name = "gbn",
	.create = gbn_create,
	.destroy = gbn_destroy,
	.send = gbn_send,
	.tx_pull = gbn_tx_pull,
	.rx = gbn_rx,
	.stats = gbn_stats,
	.ctx_memory = gbn_ctx_memory,
	.peer_memory = gbn_peer_memory,
	.frame_max = gbn_frame_max,
};
