// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * NDP, the receiver-driven transport with packet trimming of Handley et
 * al., "Re-architecting datacenter networks and stacks for low latency
 * and high performance", SIGCOMM 2017 (section 3), the design EQDS
 * (Olteanu et al., NSDI 2022) and Ultra Ethernet's receiver credits
 * build on.  Written from the paper's description; README.rst, "Peers",
 * gives the parameters and where they come from.
 *
 *  - the sender sends the first window (ndp.iw packets) of a flow that
 *    has nothing in flight at once, unasked, then one packet per PULL;
 *    every packet is sprayed on its own path (a fresh UDP source port,
 *    which the switches' ECMP hash reads);
 *  - the switches (sw.trim, sw.prio_ctrl, a small sw.buffer) cut a data
 *    packet that does not fit to its headers and forward those, and
 *    every control packet, ahead of data;
 *  - the receiver answers every data packet with an ACK and every
 *    trimmed header with a NACK at once, and for each of either queues a
 *    PULL; one pacer per receiver sends the PULLs of all its senders, in
 *    turn, one per time a full data packet takes on its own link, so the
 *    data they draw arrives at the link's rate.  A PULL carries the
 *    flow's pull count, so a lost PULL is made up by the next;
 *  - the sender sends, per PULL, a NACKed packet first, else new data;
 *    PULLs that find nothing to send are not banked (beyond the packets
 *    still out, whose NACK may come after the PULL it drew);
 *  - a packet neither ACKed nor NACKed within ndp.rto (a lost header, a
 *    lost ACK) is sent again without waiting for a PULL.
 *
 * Frames are Wren's wire structures on Wren's UDP port, so the switches
 * trim NDP's DATA as they trim Wren's (the run holds one transport); a
 * PULL is a GRANT-typed frame whose psn is the pull count.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"

#define NDP_HDRS	WREN_WIRE_DATA_HDRS_LEN
#define NDP_CTL_LEN	(WREN_WIRE_L2L4_LEN + sizeof(struct wren_wire_hdr))
#define NDP_PULL	WREN_WIRE_GRANT
/* Packets of a flow between the oldest unacknowledged and the newest. */
#define NDP_RING	4096
/* Nothing more is queued behind this packet: pull no more for it. */
#define NDP_F_LAST	WREN_WIRE_F_ACK_REQ

enum { P_FREE, P_SENT, P_ACKED, P_NACKED };

struct ndp_tx {
	struct ndp *d;
	struct ndp_tx *hnext, *rnext;
	bool ready;
	uint32_t id, dst_ip;
	struct peer_msgq q;
	uint32_t una, nxt, end;		/* PSNs */
	uint32_t credit;		/* packets the PULLs allow */
	uint32_t pulls;			/* the highest pull count seen */
	uint8_t st[NDP_RING];
	uint32_t *retx;			/* NACKed PSNs, FIFO */
	uint32_t rhead, rtail;
	uint64_t last_progress_ps;
	struct sim_ev rto;
};

struct ndp_rx {
	struct ndp_rx *hnext, *pnext;
	uint32_t src_ip, src_ctx;
	uint32_t expected;		/* every PSN below arrived */
	uint32_t top;			/* one past the highest PSN seen */
	bool last;			/* a packet marked last, none after */
	uint8_t got[NDP_RING];
	struct peer_rmsg *msgs;
	uint32_t pending;		/* PULLs owed */
	uint32_t pull_no;		/* PULLs sent */
	bool in_pq;
};

/* A control frame waiting for the wire. */
struct ndp_ctl {
	uint8_t type;
	uint32_t dst_ip, src_ctx, dst_ctx, psn;
};

struct ndp {
	struct net *net;
	struct host *host;
	const struct wren_tp_ulp_ops *ulp;
	const struct ndp_config *c;
	uint32_t mtu;
	struct ndp_tx **txv;
	uint32_t ntx, txcap;
	struct ndp_tx *txh[256];
	struct ndp_tx *rhead, *rtail;	/* flows with something to send */
	struct ndp_rx *rxh[256];
	uint32_t nrx;
	struct ndp_ctl *ctl;		/* ring of control frames */
	uint32_t chead, ctail, ccap;
	struct ndp_rx *phead, *ptail;	/* flows owed PULLs, in turn */
	struct sim_ev pacer;
	uint64_t next_pull_ps;
	uint64_t pull_gap_ps;
	struct wren_tp_stats st;
};

static uint64_t now_ps(const struct ndp *d)
{
	return d->net->sim.now;
}

static void ctl_push(struct ndp *d, uint8_t type, uint32_t dst_ip,
		     uint32_t src_ctx, uint32_t dst_ctx, uint32_t psn)
{
	d->ctl = peer_ring_room(d->ctl, &d->chead, &d->ctail, &d->ccap,
				sizeof(*d->ctl));
	d->ctl[d->ctail++ % d->ccap] = (struct ndp_ctl){
		.type = type, .dst_ip = dst_ip, .src_ctx = src_ctx,
		.dst_ctx = dst_ctx, .psn = psn,
	};
	host_kick(d->host);
}

/* ------------------------------------------------------------------ */
/* Sender                                                               */
/* ------------------------------------------------------------------ */

static bool tx_has_work(const struct ndp_tx *t)
{
	return t->rhead != t->rtail || t->nxt != t->end;
}

static void tx_make_ready(struct ndp *d, struct ndp_tx *t)
{
	if (t->ready || !t->credit || !tx_has_work(t))
		return;
	t->ready = true;
	t->rnext = NULL;
	if (d->rtail)
		d->rtail->rnext = t;
	else
		d->rhead = t;
	d->rtail = t;
	host_kick(d->host);
}

static void tx_rto_arm(struct ndp *d, struct ndp_tx *t)
{
	if (t->una != t->nxt && !sim_queued(&t->rto))
		sim_at(&d->net->sim, &t->rto,
		       t->last_progress_ps + d->c->rto_ns * PS_PER_NS);
}

static void tx_retx_push(struct ndp_tx *t, uint32_t psn)
{
	t->retx[t->rtail++ % NDP_RING] = psn;
}

/* Nothing heard for ndp.rto: send every packet still out once more. */
static void tx_rto(struct sim_ev *ev)
{
	struct ndp_tx *t = container_of(ev, struct ndp_tx, rto);
	struct ndp *d = t->d;
	uint64_t due = t->last_progress_ps + d->c->rto_ns * PS_PER_NS;

	if (t->una == t->nxt)
		return;
	if (now_ps(d) < due) {
		sim_at(&d->net->sim, &t->rto, due);
		return;
	}
	for (uint32_t psn = t->una; psn != t->nxt; psn++) {
		if (t->st[psn % NDP_RING] == P_SENT) {
			t->st[psn % NDP_RING] = P_NACKED;
			tx_retx_push(t, psn);
			t->credit++;
			d->st.retx_timeout++;
		} else if (t->st[psn % NDP_RING] == P_NACKED) {
			t->credit++;	/* NACKed, its PULL never came */
		}
	}
	t->last_progress_ps = now_ps(d);
	tx_make_ready(d, t);
	tx_rto_arm(d, t);
}

static struct ndp_tx *tx_lookup(struct ndp *d, uint32_t ip)
{
	struct ndp_tx *t;
	uint32_t b = ip % 256;

	for (t = d->txh[b]; t; t = t->hnext)
		if (t->dst_ip == ip)
			return t;
	t = peer_zalloc(sizeof(*t));
	t->d = d;
	t->id = d->ntx;
	t->dst_ip = ip;
	t->retx = peer_zalloc(NDP_RING * sizeof(*t->retx));
	t->rto.fn = tx_rto;
	t->hnext = d->txh[b];
	d->txh[b] = t;
	d->txv = peer_vec_room(d->txv, d->ntx, &d->txcap, sizeof(*d->txv));
	d->txv[d->ntx++] = t;
	return t;
}

static int ndp_send(void *tp, const struct wren_tp_dest *dst,
		    const struct wren_tp_msg *msg, uint64_t cookie)
{
	struct ndp *d = tp;
	struct ndp_tx *t;

	if (msg->len > WREN_WIRE_MAX_MSG_LEN)
		return -EINVAL;
	t = tx_lookup(d, ntohl(dst->ipv4));
	/*
	 * Everything before was sent, the last packet marked so: the
	 * receiver pulls no more for this flow, so the new message starts
	 * as a new flow does, with a window (less what is still out).
	 */
	if (t->nxt == t->end && t->nxt - t->una < d->c->iw &&
	    t->credit < d->c->iw - (t->nxt - t->una))
		t->credit = d->c->iw - (t->nxt - t->una);
	t->end += peer_msg_add(&t->q, msg, cookie, t->end, d->mtu);
	tx_make_ready(d, t);
	return 0;
}

static size_t tx_data(struct ndp *d, struct ndp_tx *t, uint8_t *f)
{
	struct wren_wire_hdr *wh = (void *)(f + WREN_WIRE_HDR);
	uint8_t flags = 0;
	uint32_t psn, len;
	size_t flen;

	/* A NACKed packet first (one acked since is skipped), else new. */
	psn = t->nxt;
	while (t->rhead != t->rtail) {
		uint32_t r = t->retx[t->rhead++ % NDP_RING];

		if (t->st[r % NDP_RING] == P_NACKED) {
			psn = r;
			flags |= WREN_WIRE_F_RETX;
			break;
		}
	}
	if (psn == t->nxt) {
		if (t->nxt == t->end || t->nxt - t->una >= NDP_RING - 1)
			return 0;
		t->nxt++;
	}
	t->st[psn % NDP_RING] = P_SENT;
	flen = peer_data(f, peer_msg_of(&t->q, psn), psn, d->mtu, d->host,
			 d->ulp);
	len = (uint32_t)(flen - NDP_HDRS);
	if (t->nxt == t->end && t->rhead == t->rtail)
		flags |= NDP_F_LAST;
	peer_hdr(wh, WREN_WIRE_DATA, flags, t->id, 0, psn);
	/* Per-packet spraying: a fresh entropy every packet. */
	frame_l2l4(f, flen, d->host->ipv4, t->dst_ip, peer_sport(d->host),
		   WREN_WIRE_UDP_PORT, 0);
	if (flags & WREN_WIRE_F_RETX)
		d->st.retx_nack++;
	d->st.tx_pkts++;
	d->st.tx_bytes += flen;
	d->st.tx_data_pkts++;
	d->st.tx_data_bytes += len;
	if (!sim_queued(&t->rto))
		t->last_progress_ps = now_ps(d);
	tx_rto_arm(d, t);
	return flen;
}

/* Complete the messages wholly acknowledged, oldest first. */
static void tx_advance(struct ndp *d, struct ndp_tx *t)
{
	while (t->una != t->nxt && t->st[t->una % NDP_RING] == P_ACKED) {
		t->st[t->una % NDP_RING] = P_FREE;
		t->una++;
	}
	peer_msg_done(&t->q, t->una, d->host, d->ulp, &d->st);
	if (t->una == t->nxt)
		sim_cancel(&d->net->sim, &t->rto);
}

static void rx_reply(struct ndp *d, const struct wren_wire_hdr *wh,
		     uint8_t type)
{
	uint32_t id = ntohl(wh->dst_ctx), psn = ntohl(wh->psn);
	struct ndp_tx *t;

	if (id >= d->ntx) {
		d->st.rx_drop_malformed++;
		d->st.rx_drops++;
		return;
	}
	t = d->txv[id];
	if (type == NDP_PULL) {
		d->st.rx_grants++;
		if ((int32_t)(psn - t->pulls) > 0) {
			t->credit += psn - t->pulls;
			t->pulls = psn;
		}
		/*
		 * Nothing to send: the PULL is not banked, beyond what is
		 * still out (a NACK for it may come after the PULL its
		 * header drew, on another path).
		 */
		if (!tx_has_work(t) && t->credit > t->nxt - t->una)
			t->credit = t->nxt - t->una;
		tx_make_ready(d, t);
		return;
	}
	if (psn - t->una >= t->nxt - t->una)
		return;			/* not outstanding */
	t->last_progress_ps = now_ps(d);
	if (type == WREN_WIRE_ACK) {
		d->st.rx_acks++;
		t->st[psn % NDP_RING] = P_ACKED;
		tx_advance(d, t);
	} else {
		d->st.rx_nacks++;
		if (t->st[psn % NDP_RING] == P_SENT) {
			t->st[psn % NDP_RING] = P_NACKED;
			tx_retx_push(t, psn);
		}
	}
	tx_make_ready(d, t);
}

/* ------------------------------------------------------------------ */
/* Receiver                                                             */
/* ------------------------------------------------------------------ */

static void pacer_fire(struct sim_ev *ev);

static struct ndp_rx *rx_lookup(struct ndp *d, uint32_t ip, uint32_t ctx)
{
	uint32_t b = (ip * 31 + ctx) % 256;
	struct ndp_rx *r;

	for (r = d->rxh[b]; r; r = r->hnext)
		if (r->src_ip == ip && r->src_ctx == ctx)
			return r;
	r = peer_zalloc(sizeof(*r));
	r->src_ip = ip;
	r->src_ctx = ctx;
	r->hnext = d->rxh[b];
	d->rxh[b] = r;
	d->nrx++;
	return r;
}

static void pacer_kick(struct ndp *d)
{
	if (!sim_queued(&d->pacer))
		sim_at(&d->net->sim, &d->pacer,
		       d->next_pull_ps > now_ps(d) ? d->next_pull_ps :
						     now_ps(d));
}

static void pull_owe(struct ndp *d, struct ndp_rx *r)
{
	r->pending++;
	if (!r->in_pq) {
		r->in_pq = true;
		r->pnext = NULL;
		if (d->ptail)
			d->ptail->pnext = r;
		else
			d->phead = r;
		d->ptail = r;
	}
	pacer_kick(d);
}

/* One PULL, to the next flow in turn, then wait a packet's time. */
static void pacer_fire(struct sim_ev *ev)
{
	struct ndp *d = container_of(ev, struct ndp, pacer);
	struct ndp_rx *r;

	/* Flows whose PULLs were released while queued are passed over. */
	while ((r = d->phead) && !r->pending) {
		d->phead = r->pnext;
		r->in_pq = false;
	}
	if (!r) {
		d->ptail = NULL;
		return;
	}
	d->phead = r->pnext;
	if (!d->phead)
		d->ptail = NULL;
	r->pending--;
	r->pull_no++;
	ctl_push(d, NDP_PULL, r->src_ip, 0, r->src_ctx, r->pull_no);
	d->st.tx_grants++;
	if (r->pending) {
		r->pnext = NULL;
		if (d->ptail)
			d->ptail->pnext = r;
		else
			d->phead = r;
		d->ptail = r;
	} else {
		r->in_pq = false;
	}
	d->next_pull_ps = now_ps(d) + d->pull_gap_ps;
	if (d->phead)
		sim_at(&d->net->sim, &d->pacer, d->next_pull_ps);
}

static void rx_data(struct ndp *d, const uint8_t *f, size_t len)
{
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	uint32_t psn = ntohl(wh->psn), ahead;
	uint32_t src = wren_wire_get32(f + WREN_WIRE_IP_SRC);
	struct ndp_rx *r = rx_lookup(d, src, ntohl(wh->src_ctx));

	if ((int32_t)(psn - r->top) >= 0)
		r->top = psn + 1;
	if (wh->flags & WREN_WIRE_F_TRIMMED) {
		/* Its payload was cut: ask for it again, and pull. */
		ctl_push(d, WREN_WIRE_NACK, src, 0, r->src_ctx, psn);
		d->st.tx_nacks++;
		pull_owe(d, r);
		return;
	}
	if (len < NDP_HDRS) {
		d->st.rx_drop_malformed++;
		d->st.rx_drops++;
		return;
	}
	d->st.rx_data_pkts++;
	d->st.rx_data_bytes += len - NDP_HDRS;
	ctl_push(d, WREN_WIRE_ACK, src, 0, r->src_ctx, psn);
	d->st.tx_acks++;
	if (!(wh->flags & NDP_F_LAST))
		pull_owe(d, r);
	ahead = psn - r->expected;
	if ((int32_t)ahead < 0 || ahead >= NDP_RING || r->got[psn % NDP_RING]) {
		d->st.rx_dup_pkts++;
		if (wh->flags & WREN_WIRE_F_RETX)
			d->st.retx_spurious++;
		return;
	}
	if (ahead)
		d->st.rx_ooo_pkts++;
	r->got[psn % NDP_RING] = 1;
	peer_rx_place(&r->msgs, f, len, d->host, d->ulp, &d->st);
	while (r->got[r->expected % NDP_RING]) {
		r->got[r->expected % NDP_RING] = 0;
		r->expected++;
	}
	/*
	 * The sender had nothing more queued when it sent a packet marked
	 * last, and every packet it had sent has arrived: the PULLs still
	 * owed would find nothing to send, and each would cost the link a
	 * packet's time.  Release them, as the paper's simulator releases
	 * a flow's PULLs once the flow has arrived whole.
	 */
	if (wh->flags & NDP_F_LAST)
		r->last = true;
	else if (psn + 1 == r->top)
		r->last = false;	/* sent after: more was queued */
	if (r->last && r->expected == r->top)
		r->pending = 0;
}

/* ------------------------------------------------------------------ */
/* The host's calls                                                     */
/* ------------------------------------------------------------------ */

static void *ndp_create(struct net *n, struct host *h,
			const struct wren_tp_ulp_ops *ulp)
{
	struct ndp *d = peer_zalloc(sizeof(*d));
	/* A full data packet on the host's own link, headers and all. */
	struct link l = { .rate_mbps = n->cfg->rate_mbps };

	d->net = n;
	d->host = h;
	d->ulp = ulp;
	d->c = &n->cfg->ndp;
	d->mtu = n->cfg->mtu;
	d->pacer.fn = pacer_fire;
	d->pull_gap_ps = link_ser_ps(&l, NDP_HDRS + d->mtu);
	return d;
}

static void ndp_destroy(void *tp)
{
	struct ndp *d = tp;

	for (uint32_t i = 0; i < d->ntx; i++) {
		struct ndp_tx *t = d->txv[i];

		peer_msg_free(&t->q);
		if (sim_queued(&t->rto))
			sim_cancel(&d->net->sim, &t->rto);
		free(t->retx);
		free(t);
	}
	for (uint32_t i = 0; i < 256; i++) {
		struct ndp_rx *r, *nr;

		for (r = d->rxh[i]; r; r = nr) {
			nr = r->hnext;
			peer_rmsg_free(r->msgs);
			free(r);
		}
	}
	if (sim_queued(&d->pacer))
		sim_cancel(&d->net->sim, &d->pacer);
	free(d->txv);
	free(d->ctl);
	free(d);
}

static size_t ndp_tx_pull(void *tp, void *frame, size_t cap)
{
	struct ndp *d = tp;
	uint8_t *f = frame;
	struct ndp_tx *t;

	if (cap < NDP_HDRS + d->mtu)
		return 0;
	if (d->chead != d->ctail) {
		struct ndp_ctl c = d->ctl[d->chead++ % d->ccap];

		peer_hdr((void *)(f + WREN_WIRE_HDR), c.type, 0, c.src_ctx,
			 c.dst_ctx, c.psn);
		frame_l2l4(f, NDP_CTL_LEN, d->host->ipv4, c.dst_ip,
			   peer_sport(d->host), WREN_WIRE_UDP_PORT, 0);
		d->st.tx_pkts++;
		d->st.tx_bytes += NDP_CTL_LEN;
		return NDP_CTL_LEN;
	}
	while ((t = d->rhead)) {
		size_t len;

		d->rhead = t->rnext;
		if (!d->rhead)
			d->rtail = NULL;
		t->ready = false;
		if (!t->credit || !tx_has_work(t))
			continue;
		len = tx_data(d, t, f);
		if (!len)
			continue;	/* the ring is full: an ACK readies it */
		t->credit--;
		tx_make_ready(d, t);
		return len;
	}
	return 0;
}

static void ndp_rx(void *tp, const void *frame, size_t len)
{
	struct ndp *d = tp;
	const uint8_t *f = frame;
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	uint8_t type = wren_wire_type(f, len);

	d->st.rx_pkts++;
	d->st.rx_bytes += len;
	if (type == WREN_WIRE_DATA)
		rx_data(d, f, len);
	else if (type == WREN_WIRE_ACK || type == WREN_WIRE_NACK ||
		 type == NDP_PULL)
		rx_reply(d, wh, type);
	else {
		d->st.rx_drop_malformed++;
		d->st.rx_drops++;
	}
}

static void ndp_stats(const void *tp, struct wren_tp_stats *st)
{
	const struct ndp *d = tp;

	*st = d->st;
}

static size_t ndp_ctx_memory(const void *tp)
{
	const struct ndp *d = tp;

	return d->ntx * (sizeof(struct ndp_tx) + NDP_RING * sizeof(uint32_t)) +
	       d->nrx * sizeof(struct ndp_rx);
}

static size_t ndp_peer_memory(const void *tp, uint32_t ipv4)
{
	const struct ndp *d = tp;
	size_t sum = 0;

	for (uint32_t i = 0; i < d->ntx; i++)
		if (d->txv[i]->dst_ip == ipv4)
			sum += sizeof(struct ndp_tx);
	return sum;
}

static size_t ndp_frame_max(const struct net *n)
{
	return NDP_HDRS + n->cfg->mtu;
}

const struct xport_ops xport_ndp = {
	.name = "ndp",
	.create = ndp_create,
	.destroy = ndp_destroy,
	.send = ndp_send,
	.tx_pull = ndp_tx_pull,
	.rx = ndp_rx,
	.stats = ndp_stats,
	.ctx_memory = ndp_ctx_memory,
	.peer_memory = ndp_peer_memory,
	.frame_max = ndp_frame_max,
};
