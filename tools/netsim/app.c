// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The traffic generators and the checks on what they get back.
 *
 *   stream       flows host0 -> host1, each keeping @outstanding posted
 *   permutation  every host streams to another, cross-leaf on a leaf-spine,
 *                cross-pod on a fat tree
 *   incast       @senders hosts send @msgs messages each to host0
 *   roundrobin   host0 sends to @peers hosts in turn, @rounds each, with
 *                @outstanding messages in flight in all
 *   pingpong     host0 and host1 bounce one message @msgs times
 *   openloop     every host starts messages to random other hosts as a
 *                Poisson process at @load of its link, sizes drawn from
 *                the CDF file @cdf (linear between points), until
 *                @duration; each message's completion time over its
 *                ideal (size at the wire limit plus the propagation
 *                round trip) is its slowdown, reported by size bucket
 *   matrix       htsim's connection matrix @htsim.cm: a flow per line,
 *                one message of its size, posted at its start time or
 *                when its trigger fires (htsim.h)
 *
 * A message carries its flow in src_qpn and its number in imm, and every
 * 8-byte word of its payload is a function of (flow, msn, word), so the
 * receiver checks each byte without any shared state.  A message is
 * "missing" if its initiator saw it complete before its target did, and
 * "duplicate" if the target saw it complete twice.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "xport.h"

struct msgrec {
	uint32_t flow;
	uint32_t msn;
	uint32_t len;
	uint64_t post_ps;
	uint32_t next_free;
	bool live;			/* posted, not yet done */
};

struct rxrec {
	uint32_t flow;
	uint32_t msn;
	uint32_t len, got;
	uint32_t next_free;
};

#define NIL UINT32_MAX

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p) {
		perror("netsim: app");
		exit(2);
	}
	return p;
}

static void lat_push(struct lat *l, uint64_t ps)
{
	uint64_t ns = ps / PS_PER_NS;

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
}

static uint32_t flow_key(uint32_t flow)
{
	return (uint32_t)mix64(0x7155 + flow);
}

/* Payload word @i of message @msn of @flow. */
static inline uint64_t pattern_base(uint32_t flow, uint32_t msn)
{
	return mix64((uint64_t)flow << 32 | msn);
}

static void pattern_fill(uint64_t base, uint32_t off, uint8_t *buf,
			 uint32_t len)
{
	uint32_t i = 0;

	if (!(off & 7)) {
		uint64_t w = off / 8;

		for (; i + 8 <= len; i += 8, w++) {
			uint64_t v = base + w * 0x9e3779b97f4a7c15ULL;

			memcpy(buf + i, &v, 8);
		}
	}
	for (; i < len; i++) {
		uint32_t o = off + i;
		uint64_t v = base + (uint64_t)(o / 8) * 0x9e3779b97f4a7c15ULL;

		buf[i] = (uint8_t)(v >> (8 * (o & 7)));
	}
}

/* Number of wrong bytes in @buf. */
static uint64_t pattern_check(uint64_t base, uint32_t off, const uint8_t *buf,
			      uint32_t len)
{
	uint8_t tmp[512];
	uint64_t bad = 0;
	uint32_t done, i, n;

	for (done = 0; done < len; done += n) {
		n = len - done < sizeof(tmp) ? len - done : sizeof(tmp);
		pattern_fill(base, off + done, tmp, n);
		if (!memcmp(tmp, buf + done, n))
			continue;
		for (i = 0; i < n; i++)
			bad += tmp[i] != buf[done + i];
	}
	return bad;
}

static bool arrived(const struct flow *f, uint32_t msn)
{
	uint32_t bit;

	if (msn < f->rx_base)
		return true;
	if (msn - f->rx_base >= f->nwords * 64)
		return false;
	bit = msn % (f->nwords * 64);
	return f->bits[bit / 64] >> (bit % 64) & 1;
}

/* Record the arrival of @msn; false if it had arrived already. */
static bool mark_arrived(struct app *a, struct flow *f, uint32_t msn)
{
	uint32_t span = f->nwords * 64, bit;

	if (arrived(f, msn))
		return false;
	if (msn - f->rx_base >= span) {
		/*
		 * Only possible if the initiator completed a message the
		 * target never had.
		 */
		a->unexpected++;
		return true;
	}
	bit = msn % span;
	f->bits[bit / 64] |= 1ULL << (bit % 64);
	for (;;) {
		bit = f->rx_base % span;
		if (!(f->bits[bit / 64] >> (bit % 64) & 1))
			break;
		f->bits[bit / 64] &= ~(1ULL << (bit % 64));
		f->rx_base++;
	}
	return true;
}

static bool in_meas(const struct app *a, uint64_t now)
{
	return now >= a->c->warmup_ps &&
	       (!a->c->duration_ps || now < a->c->duration_ps);
}

static void app_end(struct sim_ev *ev)
{
	struct app *a = container_of(ev, struct app, endev);

	sim_stop(&a->net->sim);
}

static void finish(struct app *a)
{
	struct net *n = a->net;

	if (a->finished)
		return;
	a->finished = true;
	a->finish_ps = n->sim.now;
	sim_at(&n->sim, &a->endev, n->sim.now + a->c->drain_ps);
}

static bool stopped(const struct app *a)
{
	return a->c->duration_ps && a->net->sim.now >= a->c->duration_ps;
}

static void flow_check_done(struct app *a, struct flow *f)
{
	if (f->done || f->inflight ||
	    (f->next_msn < f->limit && !stopped(a)))
		return;
	f->done = true;
	if (!--a->active)
		finish(a);
}

static void flow_init(struct app *a, struct flow *f, uint32_t src,
		      uint32_t dst, uint32_t limit, uint32_t window);

struct arrival {
	struct sim_ev ev;
	struct net *net;
	uint32_t host;
};


const char *const fct_bucket_names[FCT_BUCKETS + 1] = {
	"lt_100KB", "100KB_1MB", "1MB_10MB", "ge_10MB", "all",
};

/* Post the next message of @f, @len bytes; false if the transport is full. */
static bool post_len(struct app *a, struct flow *f, uint32_t len)
{
	struct net *n = a->net;
	const struct cfg *c = a->c;
	struct host *h = &n->hosts[f->src];
	struct wren_tp_dest dst = {
		.ipv4 = htonl(host_ip(f->dst)),
		.class_id = a->c->app == APP_STREAM ? (uint32_t)(f - a->flows)
						      : 0,
		.mode = c->mode,
	};
	struct wren_tp_msg msg = {
		.len = len,
		.opcode = WREN_WIRE_OP_SEND,
		.flags = c->ordered ? WREN_TP_MSG_ORDERED : 0,
		.dst_qpn = 1,
		.src_qpn = (uint32_t)(f - a->flows),
		.qkey = flow_key((uint32_t)(f - a->flows)),
		.imm = f->next_msn,
	};
	struct msgrec *r;
	uint32_t id;
	int ret;

	/* Hosts on one switch: the next hop's MAC is the target's. */
	host_mac(f->dst, dst.mac);
	xport_ensure(n, h);
	if (a->tx_free == NIL) {
		uint32_t i, old = a->ntx;

		a->ntx = old ? 2 * old : 1024;
		a->tx = xrealloc(a->tx, a->ntx * sizeof(*a->tx));
		for (i = old; i < a->ntx; i++) {
			a->tx[i].next_free = i + 1 < a->ntx ? i + 1 : NIL;
			a->tx[i].live = false;
		}
		a->tx_free = old;
	}
	id = a->tx_free;
	r = &a->tx[id];
	a->tx_free = r->next_free;
	r->flow = (uint32_t)(f - a->flows);
	r->msn = f->next_msn;
	r->len = len;
	r->post_ps = n->sim.now;
	r->live = true;
	f->post_ps = n->sim.now;
	ret = n->xp->send(h->tp, &dst, &msg, id);
	if (ret) {
		r->live = false;
		r->next_free = a->tx_free;
		a->tx_free = id;
		if (ret == -ENOBUFS || ret == -EAGAIN) {
			f->blocked = true;
			return false;
		}
		fprintf(stderr, "netsim: send failed: %s\n", strerror(-ret));
		exit(2);
	}
	f->blocked = false;
	f->next_msn++;
	f->inflight++;
	if (c->app == APP_ROUNDROBIN) {
		size_t mem = n->xp->ctx_memory(h->tp);

		if (mem > a->ctx_mem_peak)
			a->ctx_mem_peak = mem;
	}
	return true;
}

static bool post(struct app *a, struct flow *f)
{
	return post_len(a, f, a->c->app == APP_MATRIX ? f->size :
			a->c->msg_size);
}

static void flow_fill(struct app *a, struct flow *f)
{
	while (!f->held && f->inflight < a->outstanding &&
	       f->next_msn < f->limit && !stopped(a))
		if (!post(a, f))
			return;
}

static void rr_fill(struct app *a)
{
	while (a->rr_inflight < a->outstanding && a->rr_next < a->rr_total) {
		struct flow *f = &a->flows[a->rr_next % a->nflows];

		if (!post(a, f))
			return;
		a->rr_next++;
		a->rr_inflight++;
	}
	if (a->rr_next == a->rr_total && !a->rr_inflight)
		finish(a);
}

/*
 * Pingpong's posts come from rx_done, which may not call the transport:
 * they run from this event instead.
 */
static void deferred_post(struct sim_ev *ev)
{
	struct host *h = container_of(ev, struct host, postev);
	struct app *a = h->net->app;

	post(a, &a->flows[h->id == 0 ? 0 : 1]);
}

/* matrix */

/* A flow's time has come: from an event, as rx_done may not post. */
static void mx_go(struct sim_ev *ev)
{
	struct mx_start *ms = container_of(ev, struct mx_start, ev);
	struct app *a = ms->net->app;
	struct flow *f = &a->flows[ms->flow];

	f->held = false;
	flow_fill(a, f);
}

static void mx_release(struct app *a, uint32_t flow)
{
	struct net *n = a->net;

	if (a->flows[flow].held && !sim_queued(&a->mx[flow].ev))
		sim_at(&n->sim, &a->mx[flow].ev, n->sim.now);
}

/*
 * Trigger @id is activated, as htsim's are: a oneshot starts every flow
 * waiting on it the first time, a multishot the next one in file order
 * each time, a barrier all of them on its count-th activation.
 */
static void mx_activate(struct app *a, uint32_t id)
{
	struct ht_trig *t = ht_trig_find(&a->cm, id);
	uint32_t i, k = 0;

	if (!t)
		return;
	t->fired++;
	if ((t->kind == HT_TRIG_ONESHOT && t->fired > 1) ||
	    (t->kind == HT_TRIG_BARRIER && t->fired != t->count))
		return;
	for (i = 0; i < a->cm.nconns; i++) {
		if (a->cm.conns[i].trigger != id)
			continue;
		if (t->kind != HT_TRIG_MULTISHOT || k++ == t->next)
			mx_release(a, i);
	}
	if (t->kind == HT_TRIG_MULTISHOT)
		t->next++;
}

static int mx_init(struct net *n, struct app *a)
{
	uint32_t i;

	if (ht_cm_load(a->c->htsim_cm, &a->cm))
		return -1;
	if (a->cm.nodes > n->nhosts) {
		fprintf(stderr, "%s: %u nodes, the topology has %u hosts\n",
			a->c->htsim_cm, a->cm.nodes, n->nhosts);
		return -1;
	}
	for (i = 0; i < a->cm.nfails; i++) {
		const char *why = topo_ht_fail(n, &a->cm.fails[i]);

		if (why) {
			fprintf(stderr, "%s: failure of AGG %u link %u: %s\n",
				a->c->htsim_cm, a->cm.fails[i].agg,
				a->cm.fails[i].link, why);
			return -1;
		}
	}
	a->nflows = a->cm.nconns;
	a->flows = calloc(a->nflows ? a->nflows : 1, sizeof(*a->flows));
	a->mx = calloc(a->nflows ? a->nflows : 1, sizeof(*a->mx));
	if (!a->flows || !a->mx)
		return -1;
	for (i = 0; i < a->nflows; i++) {
		const struct ht_conn *hc = &a->cm.conns[i];

		flow_init(a, &a->flows[i], hc->src, hc->dst, 1, 1);
		a->flows[i].size = (uint32_t)hc->size;
		a->flows[i].held = true;
		a->mx[i].net = n;
		a->mx[i].flow = i;
		a->mx[i].ev.fn = mx_go;
	}
	return 0;
}

/* openloop */

/*
 * The ideal of a message of @len bytes from @src to @dst: its bytes at the
 * wire limit of a host link (payload per frame over frame on the wire)
 * plus the propagation round trip, as the literature's slowdown takes it.
 */
static uint64_t ol_ideal_ps(const struct app *a, const struct flow *f,
			    uint32_t len)
{
	const struct cfg *c = a->c;
	uint32_t mtu = c->mtu, pkts = len ? (len + mtu - 1) / mtu : 1;
	double wire = (double)len + (double)pkts *
		      (WREN_WIRE_DATA_HDRS_LEN + WREN_WIRE_ETH_OVERHEAD);

	return (uint64_t)(wire * 8 * 1e6 / c->rate_mbps) +
	       topo_rtt_prop_ps(a->net, f->src, f->dst);
}

static void ol_push(struct lat *l, uint64_t v)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->v = xrealloc(l->v, l->cap * sizeof(*l->v));
	}
	l->v[l->n++] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

static void ol_record(struct app *a, const struct flow *f, uint32_t len,
		      uint64_t fct_ps)
{
	uint32_t b = len < 100000 ? 0 : len < 1000000 ? 1 :
		     len < 10000000 ? 2 : 3;
	uint64_t sd = fct_ps * 1000 / ol_ideal_ps(a, f, len);

	ol_push(&a->sd[b], sd);
	ol_push(&a->sd[FCT_BUCKETS], sd);
	ol_push(&a->fct[b], fct_ps / PS_PER_NS);
	ol_push(&a->fct[FCT_BUCKETS], fct_ps / PS_PER_NS);
}

/* A size from the CDF: linear between its points. */
static uint32_t ol_size(struct app *a)
{
	double u = rng_unit(&a->arr_rng) * 100, s;
	uint32_t i;

	for (i = 1; i < a->cdf_n && a->cdf_pct[i] < u; i++)
		;
	if (i == a->cdf_n)
		return (uint32_t)a->cdf_size[a->cdf_n - 1];
	s = a->cdf_size[i - 1] + (a->cdf_size[i] - a->cdf_size[i - 1]) *
	    (u - a->cdf_pct[i - 1]) / (a->cdf_pct[i] - a->cdf_pct[i - 1]);
	return s < 1 ? 1 : (uint32_t)s;
}

static void ol_arrive(struct sim_ev *ev)
{
	struct arrival *ar = container_of(ev, struct arrival, ev);
	struct net *n = ar->net;
	struct app *a = n->app;
	uint32_t N = n->nhosts, src = ar->host;
	uint32_t dst = rng_below(&a->arr_rng, N - 1), len;
	double gap;
	struct flow *f;

	if (stopped(a))
		return;
	dst += dst >= src;
	f = &a->flows[src * N + dst];
	if (!f->bits)
		flow_init(a, f, src, dst, UINT32_MAX, 256);
	len = ol_size(a);
	if (post_len(a, f, len)) {
		a->ol_live++;
		a->ol_posted_bytes += len;
	} else
		a->tx_errors++;	/* a full transport: raise tp.max_msgs */
	gap = -log(1 - rng_unit(&a->arr_rng)) * a->gap_ps;
	sim_at(&n->sim, &ar->ev, n->sim.now + (uint64_t)gap + 1);
}

/* Read "<bytes> <cumulative percent>" lines; -1 after saying why. */
static int ol_load_cdf(struct app *a, const char *path)
{
	FILE *f = fopen(path, "r");
	double sz, pct, mean = 0;
	uint32_t cap = 0;

	if (!f) {
		fprintf(stderr, "netsim: cdf %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fscanf(f, "%lf %lf", &sz, &pct) == 2) {
		if (a->cdf_n == cap) {
			cap = cap ? 2 * cap : 64;
			a->cdf_size = xrealloc(a->cdf_size,
					       cap * sizeof(double));
			a->cdf_pct = xrealloc(a->cdf_pct, cap * sizeof(double));
		}
		if (a->cdf_n && (sz < a->cdf_size[a->cdf_n - 1] ||
				 pct < a->cdf_pct[a->cdf_n - 1]))
			break;
		a->cdf_size[a->cdf_n] = sz;
		a->cdf_pct[a->cdf_n++] = pct;
	}
	fclose(f);
	if (a->cdf_n < 2 || a->cdf_pct[a->cdf_n - 1] != 100 ||
	    a->cdf_size[a->cdf_n - 1] > WREN_WIRE_MAX_MSG_LEN) {
		fprintf(stderr, "netsim: cdf %s: want rising \"bytes percent\" "
			"lines ending at 100\n", path);
		return -1;
	}
	/* The mean of the piecewise-linear distribution. */
	for (uint32_t i = 1; i < a->cdf_n; i++)
		mean += (a->cdf_pct[i] - a->cdf_pct[i - 1]) / 100 *
			(a->cdf_size[i] + a->cdf_size[i - 1]) / 2;
	a->mean_size = mean;
	a->max_len = (uint32_t)a->cdf_size[a->cdf_n - 1];
	return 0;
}

/* The upper layer, as every transport calls it */

static int ulp_tx_read(void *ulp, uint64_t cookie, uint32_t offset, void *buf,
		       uint32_t len)
{
	struct host *h = ulp;
	struct app *a = h->net->app;
	const struct msgrec *r;

	if (cookie >= a->ntx)
		return -1;
	r = &a->tx[cookie];
	if ((uint64_t)offset + len > r->len)
		return -1;
	pattern_fill(pattern_base(r->flow, r->msn), offset, buf, len);
	return 0;
}

static void ulp_tx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct host *h = ulp;
	struct net *n = h->net;
	struct app *a = n->app;
	struct msgrec *r = &a->tx[cookie];
	struct flow *f = &a->flows[r->flow];
	uint64_t now = n->sim.now;
	uint32_t i;

	if (a->closing)
		return;
	if (st != WREN_TP_OK) {
		if (!a->tx_errors++)
			fprintf(stderr, "netsim: flow %u msn %u failed at "
				"%.3f us: status %d\n", r->flow, r->msn,
				now / 1e6, st);
	} else {
		f->tx_ok++;
		if (!arrived(f, r->msn))
			a->missing_msgs++;
	}
	if (a->c->app == APP_OPENLOOP && st == WREN_TP_OK &&
	    r->post_ps >= a->c->warmup_ps)
		ol_record(a, f, r->len, now - r->post_ps);
	if (a->c->app != APP_PINGPONG && r->post_ps >= a->c->warmup_ps) {
		lat_push(&a->lat, now - r->post_ps);
		if (a->c->app == APP_ROUNDROBIN)
			lat_push(r->msn ? &a->lat_warm : &a->lat_first,
				 now - r->post_ps);
	}
	if (in_meas(a, now))
		a->meas_msgs++;
	f->inflight--;
	r->live = false;
	r->next_free = a->tx_free;
	a->tx_free = (uint32_t)cookie;

	switch (a->c->app) {
	case APP_ROUNDROBIN:
		a->rr_inflight--;
		rr_fill(a);
		break;
	case APP_PINGPONG:
		break;
	case APP_MATRIX:
		f->tx_done_ps = now;
		if (st == WREN_TP_OK && a->cm.conns[r->flow].send_done)
			mx_activate(a, a->cm.conns[r->flow].send_done);
		break;
	case APP_OPENLOOP:
		if (!--a->ol_live && stopped(a))
			finish(a);
		return;
	default:
		flow_fill(a, f);
		/* A full transport refused someone: try them again. */
		for (i = 0; i < a->nflows; i++)
			if (a->flows[i].blocked && a->flows[i].src == h->id)
				flow_fill(a, &a->flows[i]);
		break;
	}
	if (a->c->app != APP_ROUNDROBIN)
		flow_check_done(a, f);
}

static enum wren_tp_status ulp_rx_begin(void *ulp,
					const struct wren_tp_peer *peer,
					const struct wren_tp_msg *msg,
					uint64_t *cookie)
{
	struct host *h = ulp;
	struct app *a = h->net->app;
	uint32_t fl = msg->src_qpn, id;
	struct rxrec *r;

	if (fl >= a->nflows || a->flows[fl].dst != h->id ||
	    ntohl(peer->ipv4) != host_ip(a->flows[fl].src) ||
	    msg->qkey != flow_key(fl) ||
	    (a->c->app == APP_OPENLOOP ? msg->len > a->max_len :
	     msg->len != (a->c->app == APP_MATRIX ? a->flows[fl].size :
			  a->c->msg_size))) {
		a->unexpected++;
		return WREN_TP_BAD_DEST_QP;
	}
	if (a->rx_free == NIL) {
		uint32_t i, old = a->nrx;

		a->nrx = old ? 2 * old : 1024;
		a->rx = xrealloc(a->rx, a->nrx * sizeof(*a->rx));
		for (i = old; i < a->nrx; i++)
			a->rx[i].next_free = i + 1 < a->nrx ? i + 1 : NIL;
		a->rx_free = old;
	}
	id = a->rx_free;
	r = &a->rx[id];
	a->rx_free = r->next_free;
	r->flow = fl;
	r->msn = msg->imm;
	r->len = msg->len;
	r->got = 0;
	*cookie = id;
	return WREN_TP_OK;
}

static int ulp_rx_write(void *ulp, uint64_t cookie, uint32_t offset,
			const void *buf, uint32_t len)
{
	struct host *h = ulp;
	struct app *a = h->net->app;
	struct rxrec *r = &a->rx[cookie];
	uint64_t now = h->net->sim.now, bin;
	uint64_t bad;

	if ((uint64_t)offset + len > r->len) {
		a->bad_bytes += len;
		return -1;
	}
	bad = pattern_check(pattern_base(r->flow, r->msn), offset, buf, len);
	if (bad) {
		if (!a->bad_bytes)
			fprintf(stderr, "netsim: flow %u msn %u: %llu bad "
				"bytes at offset %u\n", r->flow, r->msn,
				(unsigned long long)bad, offset);
		a->bad_bytes += bad;
	}
	r->got += len;
	a->total_rx_bytes += len;
	if (!a->first_rx_ps)
		a->first_rx_ps = now;
	a->last_rx_ps = now;
	if (in_meas(a, now)) {
		a->meas_bytes += len;
		a->flows[r->flow].rx_bytes_meas += len;
	}
	bin = now / a->c->bin_ps;
	if (bin >= a->nbins) {
		uint32_t old = a->nbins;

		a->nbins = (uint32_t)(bin + 1 > 2ULL * old ? bin + 1 : 2 * old);
		a->bins = xrealloc(a->bins, a->nbins * sizeof(*a->bins));
		memset(a->bins + old, 0, (a->nbins - old) * sizeof(*a->bins));
	}
	a->bins[bin] += len;
	return 0;
}

static void ulp_rx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct host *h = ulp;
	struct net *n = h->net;
	struct app *a = n->app;
	struct rxrec *r = &a->rx[cookie];
	struct flow *f = &a->flows[r->flow];

	if (a->closing)
		goto out;
	if (st != WREN_TP_OK || r->got != r->len) {
		if (!a->rx_errors++)
			fprintf(stderr, "netsim: flow %u msn %u: rx_done "
				"status %d with %u of %u bytes\n", r->flow,
				r->msn, st, r->got, r->len);
		goto out;
	}
	if (!mark_arrived(a, f, r->msn)) {
		if (!a->dup_msgs++)
			fprintf(stderr, "netsim: flow %u msn %u completed "
				"twice\n", r->flow, r->msn);
		goto out;
	}
	f->rx_ok++;
	if (f->rx_ok == f->limit) {
		f->rx_done_ps = n->sim.now;
		if (a->c->app == APP_MATRIX && a->cm.conns[r->flow].recv_done)
			mx_activate(a, a->cm.conns[r->flow].recv_done);
	}
	if (a->c->app == APP_PINGPONG) {
		if (r->flow == 0) {
			sim_at(&n->sim, &n->hosts[1].postev, n->sim.now);
		} else {
			if (a->flows[0].post_ps >= a->c->warmup_ps)
				lat_push(&a->lat,
					 n->sim.now - a->flows[0].post_ps);
			if (a->flows[0].next_msn < a->flows[0].limit)
				sim_at(&n->sim, &n->hosts[0].postev,
				       n->sim.now);
		}
	}
out:
	r->next_free = a->rx_free;
	a->rx_free = (uint32_t)cookie;
}

const struct wren_tp_ulp_ops app_ulp_ops = {
	.tx_read = ulp_tx_read,
	.tx_done = ulp_tx_done,
	.rx_begin = ulp_rx_begin,
	.rx_write = ulp_rx_write,
	.rx_done = ulp_rx_done,
};

/* Set up */

/*
 * A random permutation without fixed points or same-leaf pairs (same-pod
 * on a fat tree: every flow crosses the core).
 */
static void permutation(struct net *n, uint32_t *p)
{
	uint32_t N = n->nhosts, shift = 1, i, k;

	if (n->cfg->topo == TOPO_LEAFSPINE)
		shift = n->cfg->hosts_per_leaf;
	else if (n->cfg->topo == TOPO_FATTREE)
		shift = n->cfg->ft_k * n->cfg->ft_k / 4;
	else if (n->cfg->topo == TOPO_HTSIM)
		shift = n->cfg->ht.radix_down[0];
	for (i = 0; i < N; i++)
		p[i] = (i + shift) % N;
	/*
	 * Random valid swaps from a valid start: a Markov chain over the
	 * valid permutations, deterministic for the seed.
	 */
	for (k = 0; k < 32 * N; k++) {
		uint32_t x = rng_below(&n->rng, N), y = rng_below(&n->rng, N);

		if (topo_leaf_of(n, p[y]) != topo_leaf_of(n, x) &&
		    topo_leaf_of(n, p[x]) != topo_leaf_of(n, y)) {
			uint32_t t = p[x];

			p[x] = p[y];
			p[y] = t;
		}
	}
}

static void flow_init(struct app *a, struct flow *f, uint32_t src,
		      uint32_t dst, uint32_t limit, uint32_t window)
{
	f->src = src;
	f->dst = dst;
	f->limit = limit;
	f->nwords = window / 64 + 2;
	f->bits = calloc(f->nwords, sizeof(*f->bits));
	if (!f->bits) {
		perror("netsim: app");
		exit(2);
	}
	(void)a;
}

int app_init(struct net *n, struct app *a)
{
	const struct cfg *c = n->cfg;
	uint32_t i, limit = c->msgs ? (uint32_t)c->msgs : UINT32_MAX;
	uint32_t *p;

	memset(a, 0, sizeof(*a));
	a->net = n;
	a->c = c;
	a->tx_free = NIL;
	a->rx_free = NIL;
	a->stopev.fn = NULL;
	a->endev.fn = app_end;
	n->app = a;
	a->outstanding = c->outstanding;
	if (!a->outstanding)
		a->outstanding = c->app == APP_INCAST ? limit : 1;
	if (c->msgs > UINT32_MAX) {
		fprintf(stderr, "netsim: msgs: at most %u\n", UINT32_MAX);
		return -1;
	}

	switch (c->app) {
	case APP_STREAM:
		a->nflows = c->flows;
		a->flows = calloc(a->nflows, sizeof(*a->flows));
		for (i = 0; i < a->nflows; i++)
			flow_init(a, &a->flows[i], 0, 1, limit,
				  a->outstanding);
		break;
	case APP_PERMUTATION:
		a->nflows = n->nhosts;
		a->flows = calloc(a->nflows, sizeof(*a->flows));
		p = malloc(n->nhosts * sizeof(*p));
		if (!a->flows || !p)
			return -1;
		permutation(n, p);
		for (i = 0; i < a->nflows; i++)
			flow_init(a, &a->flows[i], i, p[i], limit,
				  a->outstanding);
		free(p);
		break;
	case APP_INCAST:
		if (c->senders + 1 > n->nhosts) {
			fprintf(stderr, "netsim: incast: %u senders need %u "
				"hosts\n", c->senders, c->senders + 1);
			return -1;
		}
		a->nflows = c->senders;
		a->flows = calloc(a->nflows, sizeof(*a->flows));
		for (i = 0; i < a->nflows; i++)
			flow_init(a, &a->flows[i], i + 1, 0, limit,
				  a->outstanding);
		break;
	case APP_ROUNDROBIN:
		if (c->peers + 1 > n->nhosts || !c->peers || !c->rounds) {
			fprintf(stderr, "netsim: roundrobin: %u peers need "
				"%u hosts\n", c->peers, c->peers + 1);
			return -1;
		}
		a->nflows = c->peers;
		a->flows = calloc(a->nflows, sizeof(*a->flows));
		for (i = 0; i < a->nflows; i++)
			flow_init(a, &a->flows[i], 0, i + 1, c->rounds,
				  a->outstanding / c->peers + 1);
		a->rr_total = (uint64_t)c->peers * c->rounds;
		break;
	case APP_OPENLOOP:
		/* A flow per ordered pair, its bitmap on first use. */
		if (n->nhosts < 2 || n->nhosts > 1024 ||
		    ol_load_cdf(a, c->cdf))
			return -1;
		a->nflows = n->nhosts * n->nhosts;
		a->flows = calloc(a->nflows, sizeof(*a->flows));
		a->arr = calloc(n->nhosts, sizeof(*a->arr));
		if (!a->flows || !a->arr)
			return -1;
		for (i = 0; i < a->nflows; i++) {
			a->flows[i].src = i / n->nhosts;
			a->flows[i].dst = i % n->nhosts;
		}
		rng_seed(&a->arr_rng, c->seed, 0xa11u << 20);
		/* Bits per second of payload at @load of a host link. */
		a->gap_ps = a->mean_size * 8 * 1e6 / (c->load * c->rate_mbps);
		for (i = 0; i < n->nhosts; i++) {
			a->arr[i].host = i;
			a->arr[i].net = n;
			a->arr[i].ev.fn = ol_arrive;
			n->hosts[i].sender = true;
		}
		a->active = 0;
		return 0;
	case APP_MATRIX:
		if (mx_init(n, a))
			return -1;
		break;
	case APP_PINGPONG:
		a->nflows = 2;
		a->flows = calloc(a->nflows, sizeof(*a->flows));
		flow_init(a, &a->flows[0], 0, 1, limit, 1);
		flow_init(a, &a->flows[1], 1, 0, limit, 1);
		n->hosts[0].postev.fn = deferred_post;
		n->hosts[1].postev.fn = deferred_post;
		break;
	}
	if (!a->flows)
		return -1;
	for (i = 0; i < a->nflows; i++)
		n->hosts[a->flows[i].src].sender = true;
	a->active = a->nflows;
	return 0;
}

static void stop_posting(struct sim_ev *ev)
{
	struct app *a = container_of(ev, struct app, stopev);
	uint32_t i;

	if (a->c->app == APP_OPENLOOP) {
		if (!a->ol_live)
			finish(a);
		return;
	}
	for (i = 0; i < a->nflows; i++)
		flow_check_done(a, &a->flows[i]);
}

void app_start(struct app *a)
{
	struct net *n = a->net;
	uint32_t i;

	if (a->c->duration_ps) {
		a->stopev.fn = stop_posting;
		sim_at(&n->sim, &a->stopev, a->c->duration_ps);
	}
	switch (a->c->app) {
	case APP_ROUNDROBIN:
		rr_fill(a);
		break;
	case APP_PINGPONG:
		a->flows[0].post_ps = 0;
		post(a, &a->flows[0]);
		break;
	case APP_MATRIX:
		for (i = 0; i < a->nflows; i++)
			if (!a->cm.conns[i].trigger)
				sim_at(&n->sim, &a->mx[i].ev,
				       a->cm.conns[i].start_ps);
		if (!a->nflows)
			finish(a);
		break;
	case APP_OPENLOOP:
		/* Each host's first arrival a random gap in: no burst at 0. */
		for (i = 0; i < n->nhosts; i++)
			sim_at(&n->sim, &a->arr[i].ev, 1 + (uint64_t)(-log(1 -
			       rng_unit(&a->arr_rng)) * a->gap_ps));
		break;
	default:
		for (i = 0; i < a->nflows; i++)
			flow_fill(a, &a->flows[i]);
		break;
	}
}

void app_finish(struct app *a)
{
	/* Destroying the transports flushes what is left: not an error. */
	a->closing = true;
}

void app_free(struct app *a)
{
	uint32_t i;

	for (i = 0; i < a->nflows; i++)
		free(a->flows[i].bits);
	free(a->flows);
	free(a->tx);
	free(a->rx);
	free(a->bins);
	free(a->lat.v);
	free(a->lat_first.v);
	free(a->lat_warm.v);
	for (i = 0; i <= FCT_BUCKETS; i++) {
		free(a->sd[i].v);
		free(a->fct[i].v);
	}
	free(a->cdf_size);
	free(a->cdf_pct);
	free(a->arr);
	free(a->mx);
	ht_cm_free(&a->cm);
}

uint64_t app_oldest_unfinished_ps(const struct app *a)
{
	uint64_t now = a->net->sim.now, oldest = 0;
	uint32_t i;

	for (i = 0; i < a->ntx; i++)
		if (a->tx[i].live && now - a->tx[i].post_ps > oldest)
			oldest = now - a->tx[i].post_ps;
	return oldest;
}

uint64_t app_meas_end(const struct app *a)
{
	if (a->c->duration_ps)
		return a->c->duration_ps;
	return a->finish_ps;
}
