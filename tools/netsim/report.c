// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The figures of a run.  Goodput is payload bytes placed at the targets
 * per second over the measurement interval (after warm-up), and is always
 * shown beside the wire limit of a host link: the most payload a link can
 * carry at this MTU once every header and Ethernet's overhead is paid.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "report.h"
#include "xport.h"

/* JSON */

void jw_open(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->first[0] = true;
}

static void jw_key(struct jw *w, const char *key)
{
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = false;
	if (w->depth) {
		fputc('\n', w->f);
		fprintf(w->f, "%*s", 2 * w->depth, "");
	}
	if (key)
		fprintf(w->f, "\"%s\": ", key);
}

static void jw_open_nest(struct jw *w, const char *key, char c)
{
	jw_key(w, key);
	fputc(c, w->f);
	w->first[++w->depth] = true;
}

void jw_obj(struct jw *w, const char *key)
{
	jw_open_nest(w, key, '{');
}

void jw_arr(struct jw *w, const char *key)
{
	jw_open_nest(w, key, '[');
}

void jw_end(struct jw *w, char close)
{
	bool empty = w->first[w->depth];

	w->depth--;
	if (!empty) {
		fputc('\n', w->f);
		fprintf(w->f, "%*s", 2 * w->depth, "");
	}
	fputc(close, w->f);
	if (!w->depth)
		fputc('\n', w->f);
}

void jw_u64(struct jw *w, const char *key, uint64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRIu64, v);
}

void jw_i64(struct jw *w, const char *key, int64_t v)
{
	jw_key(w, key);
	fprintf(w->f, "%" PRId64, v);
}

void jw_num(struct jw *w, const char *key, double v)
{
	jw_key(w, key);
	if (isfinite(v))
		fprintf(w->f, "%.6g", v);
	else
		fputs("null", w->f);
}

void jw_str(struct jw *w, const char *key, const char *s)
{
	jw_key(w, key);
	fputc('"', w->f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(w->f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(w->f, "\\u%04x", *s);
		else
			fputc(*s, w->f);
	}
	fputc('"', w->f);
}

void jw_bool(struct jw *w, const char *key, bool v)
{
	jw_key(w, key);
	fputs(v ? "true" : "false", w->f);
}

/* Figures */

struct pct {
	uint64_t n, min, p50, p99, max;
	double mean;
};

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static struct pct percentiles(struct lat *l)
{
	struct pct p = { .n = l->n };
	double sum = 0;
	size_t i;

	if (!l->n)
		return p;
	qsort(l->v, l->n, sizeof(*l->v), cmp_u32);
	for (i = 0; i < l->n; i++)
		sum += l->v[i];
	p.min = l->v[0];
	p.p50 = l->v[(l->n - 1) / 2];
	p.p99 = l->v[(size_t)ceil(0.99 * l->n) - 1];
	p.max = l->v[l->n - 1];
	p.mean = sum / l->n;
	return p;
}

struct metrics {
	double meas_s;
	double agg_gbps, link_limit_gbps, ideal_gbps, frac;
	uint32_t receivers;
	double msg_rate;
	struct pct lat, first, warm;
	double fail_us, pre_gbps, recovery_us, min_after_gbps;
	bool failure;
	double incast_us, ideal_us, incast_ratio, victim_util;
	double first_flow_us, last_flow_us;	/* incast: flows complete */
	struct wren_tp_stats st;
	uint64_t unfinished;
	double stall_us;	/* slowest message, done or not */
	bool ok;		/* no corruption, duplicate or loss */
	bool complete;		/* every message completed, successfully */
	bool pass;
};

static double link_limit_gbps(const struct net *n)
{
	const struct cfg *c = n->cfg;

	return c->rate_mbps / 1e3 * c->mtu /
	       (c->mtu + WREN_WIRE_DATA_HDRS_LEN + WREN_WIRE_ETH_OVERHEAD);
}

static double bin_gbps(const struct app *a, uint32_t b)
{
	return b < a->nbins ? a->bins[b] * 8.0 / (a->c->bin_ps / 1e3) : 0;
}

/*
 * After a link dies at tf: the pre-failure level is the mean of the whole
 * bins between warm-up and tf; the run has recovered once goodput stays
 * at recover_pct of it, so recovery is the end of the last bin below that
 * level, minus tf (0 if it never dipped, -1 if it is still below at the
 * end of the measurement).
 */
static void failure_figures(struct net *n, struct metrics *m)
{
	const struct cfg *c = n->cfg;
	const struct app *a = n->app;
	uint64_t tf = NO_TIME, end = app_meas_end(a), bin = c->bin_ps;
	uint32_t b, bf, blast, cnt = 0;
	double sum = 0, level;
	int64_t last_low = -1;

	for (b = 0; b < c->nlo; b++)
		if (c->lo[b].imp.down_ps < tf)
			tf = c->lo[b].imp.down_ps;
	if (tf == NO_TIME || tf >= end)
		return;
	m->failure = true;
	m->fail_us = tf / 1e6;
	for (b = (uint32_t)((c->warmup_ps + bin - 1) / bin);
	     (uint64_t)(b + 1) * bin <= tf; b++, cnt++)
		sum += bin_gbps(a, b);
	m->pre_gbps = cnt ? sum / cnt : 0;
	level = c->recover_pct / 100 * m->pre_gbps;
	bf = (uint32_t)(tf / bin);
	blast = (uint32_t)(end / bin);	/* first bin not wholly measured */
	m->min_after_gbps = INFINITY;
	for (b = bf; b < blast; b++) {
		if (bin_gbps(a, b) < m->min_after_gbps)
			m->min_after_gbps = bin_gbps(a, b);
		if (bin_gbps(a, b) < level)
			last_low = b;
	}
	if (last_low < 0)
		m->recovery_us = 0;
	else if ((uint32_t)last_low + 1 >= blast)
		m->recovery_us = -1;
	else
		m->recovery_us = ((uint64_t)(last_low + 1) * bin - tf) / 1e6;
}

static void compute(struct net *n, struct metrics *m)
{
	const struct cfg *c = n->cfg;
	struct app *a = n->app;
	uint64_t start = c->warmup_ps, end = app_meas_end(a);
	uint8_t *seen = calloc(n->nhosts, 1);
	uint32_t i, senders = 0;
	size_t k;

	memset(m, 0, sizeof(*m));
	m->meas_s = end > start ? (end - start) / 1e12 : 0;
	/*
	 * The ideal: every busy host link at its wire limit, on the side
	 * with fewer of them (one receiver for an incast, one sender for
	 * round robin, every host for a permutation).
	 */
	for (i = 0; seen && i < a->nflows; i++) {
		if (!(seen[a->flows[i].src] & 1)) {
			seen[a->flows[i].src] |= 1;
			senders++;
		}
		if (!(seen[a->flows[i].dst] & 2)) {
			seen[a->flows[i].dst] |= 2;
			m->receivers++;
		}
	}
	free(seen);
	m->link_limit_gbps = link_limit_gbps(n);
	m->ideal_gbps = (senders < m->receivers ? senders : m->receivers) *
			m->link_limit_gbps;
	if (m->meas_s > 0) {
		m->agg_gbps = a->meas_bytes * 8 / m->meas_s / 1e9;
		m->msg_rate = a->meas_msgs / m->meas_s;
	}
	m->frac = m->ideal_gbps ? m->agg_gbps / m->ideal_gbps : 0;
	m->lat = percentiles(&a->lat);
	m->first = percentiles(&a->lat_first);
	m->warm = percentiles(&a->lat_warm);
	failure_figures(n, m);
	if (c->app == APP_INCAST && a->last_rx_ps) {
		double bps = m->link_limit_gbps * 1e9 / 8;

		m->incast_us = a->last_rx_ps / 1e6;
		m->ideal_us = a->total_rx_bytes / bps * 1e6;
		m->incast_ratio = m->incast_us / m->ideal_us;
		for (i = 0; i < a->nflows; i++) {
			double t = a->flows[i].rx_done_ps / 1e6;

			if (!a->flows[i].rx_done_ps)
				continue;
			if (!m->first_flow_us || t < m->first_flow_us)
				m->first_flow_us = t;
			if (t > m->last_flow_us)
				m->last_flow_us = t;
		}
		if (a->last_rx_ps > a->first_rx_ps)
			m->victim_util = a->total_rx_bytes /
				((a->last_rx_ps - a->first_rx_ps) / 1e12) /
				bps;
	}
	for (i = 0; i < n->nhosts; i++) {
		struct wren_tp_stats st;

		if (!n->hosts[i].tp)
			continue;
		n->xp->stats(n->hosts[i].tp, &st);
		for (k = 0; k < n_stat_fields; k++)
			*(uint64_t *)((char *)&m->st + stat_fields[k].off) +=
				*(uint64_t *)((char *)&st +
					      stat_fields[k].off);
	}
	for (i = 0; i < a->nflows; i++)
		m->unfinished += a->flows[i].inflight;
	m->stall_us = app_oldest_unfinished_ps(a) / 1e6;
	if (m->lat.max / 1e3 > m->stall_us)
		m->stall_us = m->lat.max / 1e3;
	m->ok = !n->err && !a->bad_bytes && !a->dup_msgs &&
		!a->missing_msgs && !a->rx_errors && !a->unexpected;
	m->complete = a->finished && !a->tx_errors && !m->unfinished;
	m->pass = m->ok && (m->complete || c->allow_stall);
}

static void pct_json(struct jw *w, const char *key, const struct pct *p)
{
	jw_obj(w, key);
	jw_u64(w, "n", p->n);
	jw_u64(w, "min", p->min);
	jw_u64(w, "p50", p->p50);
	jw_u64(w, "p99", p->p99);
	jw_u64(w, "max", p->max);
	jw_num(w, "mean", p->mean);
	jw_end(w, '}');
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void flows_json(struct jw *w, struct net *n, const struct metrics *m)
{
	struct app *a = n->app;
	double *g = malloc(a->nflows * sizeof(*g)), sum = 0, sq = 0;
	uint32_t i;

	if (!g || !m->meas_s)
		goto out;
	for (i = 0; i < a->nflows; i++) {
		g[i] = a->flows[i].rx_bytes_meas * 8 / m->meas_s / 1e9;
		sum += g[i];
		sq += g[i] * g[i];
	}
	jw_obj(w, "flows");
	jw_u64(w, "count", a->nflows);
	jw_num(w, "jain", sq > 0 ? sum * sum / (a->nflows * sq) : 0);
	if (a->nflows <= 1024) {
		jw_arr(w, "gbps");
		for (i = 0; i < a->nflows; i++)
			jw_num(w, NULL, g[i]);
		jw_end(w, ']');
	}
	qsort(g, a->nflows, sizeof(*g), cmp_dbl);
	jw_num(w, "min_gbps", g[0]);
	jw_num(w, "p50_gbps", g[(a->nflows - 1) / 2]);
	jw_num(w, "max_gbps", g[a->nflows - 1]);
	jw_end(w, '}');
out:
	free(g);
}

/*
 * sw.qhist: the length the queue was at or below for @q of the measured
 * time (the upper edge of its bucket; the last bucket is open-ended).
 */
static uint64_t qhist_pct(const uint64_t *h, uint32_t width, double q)
{
	uint64_t total = 0, acc = 0;
	uint32_t b;

	for (b = 0; b < PORT_QHIST_BUCKETS; b++)
		total += h[b];
	for (b = 0; b < PORT_QHIST_BUCKETS; b++) {
		acc += h[b];
		if (acc && acc >= q * total)
			break;
	}
	if (b >= PORT_QHIST_BUCKETS - 1)
		return (uint64_t)(PORT_QHIST_BUCKETS - 1) * width;
	return (uint64_t)(b + 1) * width;
}

static void switches_json(struct jw *w, struct net *n)
{
	uint32_t i, j, listed = 0;
	char name[32];

	jw_arr(w, "switches");
	for (i = 0; i < n->nsw; i++) {
		const struct sw *s = &n->sws[i];
		uint64_t tp = 0, tb = 0, dr = 0, mk = 0, tr = 0, mq = 0;
		uint64_t cp = 0, hd = 0, dp = 0;

		for (j = 0; j < s->nports; j++) {
			const struct port *p = &s->ports[j];

			tp += p->link.tx_pkts;
			tb += p->link.tx_bytes;
			dr += p->drops;
			mk += p->marks;
			tr += p->trims;
			cp += p->ctrl_prio;
			dp += p->data_prio;
			hd += p->hdr_drops;
			if (p->max_q > mq)
				mq = p->max_q;
		}
		jw_obj(w, NULL);
		jw_u64(w, "id", s->id);
		jw_u64(w, "tx_pkts", tp);
		jw_u64(w, "tx_bytes", tb);
		jw_u64(w, "drops", dr);
		jw_u64(w, "marks", mk);
		jw_u64(w, "trims", tr);
		jw_u64(w, "ctrl_prio", cp);
		jw_u64(w, "data_prio", dp);
		jw_u64(w, "prio_drops", hd);
		jw_u64(w, "max_queue", mq);
		if (s->nfailed) {
			jw_u64(w, "failed_ports", s->nfailed);
			jw_u64(w, "rerouted", s->rerouted);
			jw_u64(w, "unroutable", s->unroutable);
		}
		jw_end(w, '}');
	}
	jw_end(w, ']');
	/* Ports worth a look: all in small fabrics, busy ones in big. */
	jw_arr(w, "ports");
	for (i = 0; i < n->nsw; i++) {
		for (j = 0; j < n->sws[i].nports && listed < 64; j++) {
			const struct port *p = &n->sws[i].ports[j];

			if (n->nhosts > 16 && !p->drops && !p->trims &&
			    !p->marks && !(p->qhist &&
					   p->max_q > 2 * n->cfg->mtu))
				continue;
			snprintf(name, sizeof(name), "%s", p->link.name);
			jw_obj(w, NULL);
			jw_str(w, "link", name);
			jw_u64(w, "tx_pkts", p->link.tx_pkts);
			jw_u64(w, "tx_bytes", p->link.tx_bytes);
			jw_u64(w, "drops", p->drops);
			jw_u64(w, "marks", p->marks);
			jw_u64(w, "trims", p->trims);
			jw_u64(w, "ctrl_prio", p->ctrl_prio);
			jw_u64(w, "data_prio", p->data_prio);
			jw_u64(w, "prio_drops", p->hdr_drops);
			jw_u64(w, "max_queue", p->max_q);
			port_qhist((struct port *)p);
			if (p->qhist) {
				uint32_t qw = n->cfg->sw_qhist;

				jw_u64(w, "queue_p50",
				       qhist_pct(p->qhist, qw, 0.50));
				jw_u64(w, "queue_p95",
				       qhist_pct(p->qhist, qw, 0.95));
				jw_u64(w, "queue_p99",
				       qhist_pct(p->qhist, qw, 0.99));
				jw_u64(w, "queue_meas_max",
				       qhist_pct(p->qhist, qw, 1.0));
			}
			if (n->cfg->sw_qhist) {
				jw_u64(w, "drops_meas", p->meas_drops);
				jw_u64(w, "data_tx_meas", p->meas_tx);
			}
			jw_end(w, '}');
			listed++;
		}
	}
	jw_end(w, ']');
}

struct link_sums {
	uint64_t lost, blackholed, duped;
	uint64_t pfc_xoff, pfc_drops, paused_ps, paused_max_ps;
};

static int sum_link(struct link *l, void *arg)
{
	struct link_sums *s = arg;

	s->lost += l->lost;
	s->blackholed += l->blackholed;
	s->duped += l->duped;
	s->pfc_xoff += l->pfc_xoff;
	s->pfc_drops += l->pfc_drops;
	s->paused_ps += l->paused_ps;
	if (l->paused_ps > s->paused_max_ps)
		s->paused_max_ps = l->paused_ps;
	return 0;
}

static size_t max_peer_memory(struct net *n)
{
	struct app *a = n->app;
	struct host *h = &n->hosts[0];
	size_t max = 0, mem;
	uint32_t i, step;

	if (!h->tp || !a->nflows)
		return 0;
	/* Up to 4096 peers spread over all of them. */
	step = a->nflows > 4096 ? a->nflows / 4096 : 1;
	for (i = 0; i < a->nflows; i += step) {
		mem = n->xp->peer_memory(h->tp, host_ip(a->flows[i].dst));
		if (mem > max)
			max = mem;
	}
	return max;
}

bool report_run(struct jw *w, struct net *n, const char *name,
		const struct kvlist *merged)
{
	const struct cfg *c = n->cfg;
	struct app *a = n->app;
	struct link_sums ls = { 0 };
	struct metrics m;
	uint32_t i, nb;
	size_t k;

	compute(n, &m);
	jw_obj(w, NULL);
	jw_str(w, "name", name);
	jw_obj(w, "config");
	for (i = 0; i < merged->n; i++)
		jw_str(w, merged->v[i].key, merged->v[i].val);
	jw_end(w, '}');
	jw_str(w, "transport", n->xp->name);
	jw_u64(w, "hosts", n->nhosts);
	jw_u64(w, "seed", c->seed);

	jw_obj(w, "sim");
	jw_num(w, "end_us", n->sim.now / 1e6);
	jw_u64(w, "events", n->sim.events);
	jw_u64(w, "packets_max", n->pkts_max);
	jw_u64(w, "pending_events_max", n->sim.n_max);
	jw_end(w, '}');

	jw_obj(w, "integrity");
	jw_bool(w, "ok", m.ok);
	jw_bool(w, "complete", m.complete);
	jw_bool(w, "pass", m.pass);
	jw_bool(w, "finished", a->finished);
	jw_u64(w, "unfinished_msgs", m.unfinished);
	jw_u64(w, "bad_bytes", a->bad_bytes);
	jw_u64(w, "duplicate_msgs", a->dup_msgs);
	jw_u64(w, "missing_msgs", a->missing_msgs);
	jw_u64(w, "tx_errors", a->tx_errors);
	jw_u64(w, "rx_errors", a->rx_errors);
	jw_u64(w, "unexpected", a->unexpected);
	jw_end(w, '}');

	jw_obj(w, "goodput");
	jw_num(w, "start_us", c->warmup_ps / 1e6);
	jw_num(w, "end_us", app_meas_end(a) / 1e6);
	jw_num(w, "gbps", m.agg_gbps);
	jw_u64(w, "receivers", m.receivers);
	jw_num(w, "link_wire_limit_gbps", m.link_limit_gbps);
	jw_num(w, "wire_limit_gbps", m.ideal_gbps);
	jw_num(w, "fraction_of_wire_limit", m.frac);
	jw_u64(w, "payload_bytes", a->meas_bytes);
	jw_end(w, '}');
	flows_json(w, n, &m);

	jw_obj(w, "messages");
	jw_u64(w, "completed", a->meas_msgs);
	jw_num(w, "rate_per_s", m.msg_rate);
	pct_json(w, "latency_ns", &m.lat);
	jw_num(w, "oldest_unfinished_us", app_oldest_unfinished_ps(a) / 1e6);
	jw_num(w, "max_latency_us", m.stall_us);
	jw_end(w, '}');

	jw_obj(w, "series");
	jw_num(w, "bin_us", c->bin_ps / 1e6);
	jw_num(w, "link_wire_limit_gbps", m.link_limit_gbps);
	jw_arr(w, "gbps");
	nb = (uint32_t)((app_meas_end(a) + c->bin_ps - 1) / c->bin_ps);
	for (i = 0; i < nb && i < 100000; i++)
		jw_num(w, NULL, bin_gbps(a, i));
	jw_end(w, ']');
	jw_end(w, '}');

	if (m.failure) {
		jw_obj(w, "failure");
		jw_num(w, "at_us", m.fail_us);
		jw_num(w, "pre_gbps", m.pre_gbps);
		jw_num(w, "min_after_gbps", m.min_after_gbps);
		jw_num(w, "recover_pct", c->recover_pct);
		jw_num(w, "recovery_us", m.recovery_us);
		/* Messages never done count with their age at the end. */
		jw_num(w, "max_msg_latency_us", m.stall_us);
		jw_end(w, '}');
	}
	if (c->app == APP_INCAST) {
		jw_obj(w, "incast");
		jw_u64(w, "fan_in", c->senders);
		jw_num(w, "completion_us", m.incast_us);
		jw_num(w, "ideal_us", m.ideal_us);
		jw_num(w, "ratio", m.incast_ratio);
		jw_num(w, "victim_utilisation", m.victim_util);
		/* Fairness of the fan-in: the first sender done over the last. */
		jw_num(w, "first_flow_us", m.first_flow_us);
		jw_num(w, "last_flow_us", m.last_flow_us);
		jw_num(w, "first_to_last", m.last_flow_us ?
		       m.first_flow_us / m.last_flow_us : 0);
		/* Each sender's completion, in sender order: the plot's. */
		if (a->nflows <= 1024) {
			jw_arr(w, "flow_done_us");
			for (i = 0; i < a->nflows; i++)
				jw_num(w, NULL, a->flows[i].rx_done_ps / 1e6);
			jw_end(w, ']');
		}
		jw_end(w, '}');
	}
	if (c->app == APP_MATRIX) {
		/*
		 * Each connection of the matrix, in file order: when it was
		 * posted and its completion time (to its last ACK, as
		 * htsim's senders report), -1 if it never finished.
		 */
		jw_obj(w, "matrix");
		jw_u64(w, "flows", a->nflows);
		jw_arr(w, "start_us");
		for (i = 0; i < a->nflows; i++)
			jw_num(w, NULL, a->flows[i].next_msn ?
			       a->flows[i].post_ps / 1e6 : -1);
		jw_end(w, ']');
		jw_arr(w, "fct_us");
		for (i = 0; i < a->nflows; i++)
			jw_num(w, NULL, a->flows[i].tx_ok ?
			       (a->flows[i].tx_done_ps -
				a->flows[i].post_ps) / 1e6 : -1);
		jw_end(w, ']');
		jw_end(w, '}');
	}
	if (c->app == APP_OPENLOOP) {
		jw_obj(w, "fct");
		jw_num(w, "load", c->load);
		jw_num(w, "mean_size", a->mean_size);
		for (i = 0; i <= FCT_BUCKETS; i++) {
			struct pct sd = percentiles(&a->sd[i]);
			struct pct fct = percentiles(&a->fct[i]);

			jw_obj(w, fct_bucket_names[i]);
			jw_u64(w, "n", sd.n);
			jw_num(w, "slowdown_p50", sd.p50 / 1e3);
			jw_num(w, "slowdown_p99", sd.p99 / 1e3);
			jw_num(w, "fct_p50_us", fct.p50 / 1e3);
			jw_num(w, "fct_p99_us", fct.p99 / 1e3);
			jw_end(w, '}');
		}
		jw_end(w, '}');
	}
	if (c->app == APP_ROUNDROBIN) {
		uint32_t peer = a->nflows ? a->flows[0].dst : 1;

		jw_obj(w, "contexts");
		jw_u64(w, "peers", c->peers);
		jw_u64(w, "ctx_memory_peak", a->ctx_mem_peak);
		jw_u64(w, "ctx_memory_end", n->hosts[0].tp ?
		       n->xp->ctx_memory(n->hosts[0].tp) : 0);
		jw_u64(w, "idle_peer_memory_max", max_peer_memory(n));
		jw_num(w, "rtt_prop_us",
		       topo_rtt_prop_ps(n, 0, peer) / 1e6);
		pct_json(w, "first_latency_ns", &m.first);
		pct_json(w, "warm_latency_ns", &m.warm);
		jw_num(w, "msg_rate_per_s", m.msg_rate);
		jw_end(w, '}');
	}

	jw_obj(w, "stats");
	for (k = 0; k < n_stat_fields; k++)
		jw_u64(w, stat_fields[k].name,
		       *(uint64_t *)((char *)&m.st + stat_fields[k].off));
	jw_end(w, '}');
	topo_each_link(n, sum_link, &ls);
	jw_obj(w, "links");
	jw_u64(w, "lost", ls.lost);
	jw_u64(w, "blackholed", ls.blackholed);
	if (c->sw_pfc) {
		/* PAUSEs sent, headroom overflows, paused time (all links,
		 * the most paused one). */
		jw_u64(w, "pfc_pauses", ls.pfc_xoff);
		jw_u64(w, "pfc_drops", ls.pfc_drops);
		jw_num(w, "paused_us", ls.paused_ps / 1e6);
		jw_num(w, "paused_max_us", ls.paused_max_ps / 1e6);
	}
	jw_u64(w, "duplicated", ls.duped);
	jw_end(w, '}');
	switches_json(w, n);
	jw_end(w, '}');
	return m.pass;
}

void report_csv_header(FILE *f)
{
	fprintf(f, "run,transport,topology_hosts,goodput_gbps,"
		"wire_limit_gbps,fraction,msg_rate,lat_p50_ns,lat_p99_ns,"
		"lat_max_ns,recovery_us,incast_ratio,victim_util,"
		"tx_data_pkts,retx_timeout,retx_fast,retx_nack,retx_spurious,"
		"events,ok\n");
}

void report_csv_row(FILE *f, struct net *n, const char *name)
{
	struct metrics m;

	compute(n, &m);
	fprintf(f, "%s,%s,%u,%.6g,%.6g,%.6g,%.6g,%" PRIu64 ",%" PRIu64
		",%" PRIu64 ",%.6g,%.6g,%.6g,%" PRIu64 ",%" PRIu64 ",%"
		PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d\n",
		name, n->xp->name, n->nhosts, m.agg_gbps, m.ideal_gbps,
		m.frac, m.msg_rate, m.lat.p50, m.lat.p99, m.lat.max,
		m.failure ? m.recovery_us : 0, m.incast_ratio, m.victim_util,
		m.st.tx_data_pkts, m.st.retx_timeout,
		m.st.retx_fast, m.st.retx_nack,
		m.st.retx_spurious, n->sim.events, m.pass);
}

void report_line(FILE *f, struct net *n, const char *name, double wall_s)
{
	struct metrics m;

	compute(n, &m);
	fprintf(f, "%-24s %-4s %8.2f Gb/s (%.3f of %.1f) %10.4g msg/s "
		"p50 %7.2f us p99 %7.2f us max %8.2f us",
		name, n->xp->name, m.agg_gbps, m.frac, m.ideal_gbps,
		m.msg_rate, m.lat.p50 / 1e3, m.lat.p99 / 1e3,
		m.lat.max / 1e3);
	if (m.failure)
		fprintf(f, " recovery %.1f us", m.recovery_us);
	if (n->cfg->app == APP_INCAST)
		fprintf(f, " incast %.3fx", m.incast_ratio);
	if (n->cfg->app == APP_OPENLOOP) {
		struct pct small = percentiles(&n->app->sd[0]);
		struct pct all = percentiles(&n->app->sd[FCT_BUCKETS]);

		fprintf(f, " slowdown p99 %.2f (<100KB %.2f)", all.p99 / 1e3,
			small.p99 / 1e3);
	}
	fprintf(f, " | %.2fM ev %.2fs %.2fM ev/s %s\n", n->sim.events / 1e6,
		wall_s, wall_s > 0 ? n->sim.events / wall_s / 1e6 : 0,
		m.pass ? (m.complete ? "ok" : "ok (stalled)") : "FAILED");
}

double report_frac(struct net *n)
{
	struct metrics m;

	compute(n, &m);
	return m.frac;
}

bool report_pass(struct net *n)
{
	struct metrics m;

	compute(n, &m);
	return m.pass;
}
