// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The life of one run.  The network's own random stream is stream 0 of
 * the seed; hosts take streams 1 and up, so the transport's randomness
 * never depends on how many packets the network has dropped.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "run.h"
#include "xport.h"

/*
 * wall_limit: a transport that spins inside one call never returns to
 * the event loop, so max_time cannot stop it.  An alarm says where the
 * simulation was and exits with status 3.
 */
static const char *hung_name;
static const struct sim *hung_sim;

static void on_alarm(int sig)
{
	char buf[256];
	int len;

	(void)sig;
	len = snprintf(buf, sizeof(buf), "netsim: %s: wall_limit reached at "
		       "simulated %.3f us after %llu events: hung?\n",
		       hung_name, hung_sim->now / 1e6,
		       (unsigned long long)hung_sim->events);
	if (len > 0 && write(STDERR_FILENO, buf, (size_t)len) < 0)
		_exit(3);
	_exit(3);
}

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int add_lost(struct link *l, void *arg)
{
	struct run_out *out = arg;

	out->lost_pkts += l->lost + l->blackholed;
	out->pfc_pauses += l->pfc_xoff;
	out->pfc_drops += l->pfc_drops;
	return 0;
}

int run_one(const char *name, const struct cfg *c,
	    const struct kvlist *merged, struct jw *jw, FILE *csv,
	    FILE *human, struct run_out *out)
{
	double t0 = wall_now();
	struct net *n = calloc(1, sizeof(*n));
	struct app *a = calloc(1, sizeof(*a));
	uint32_t i;
	size_t max;
	int ret = -1;

	if (!n || !a) {
		perror("netsim");
		exit(2);
	}
	sim_init(&n->sim);
	n->cfg = c;
	rng_seed(&n->rng, c->seed, 0);
	n->xp = c->xport == XP_GBN ? &xport_gbn :
		c->xport == XP_NDP ? &xport_ndp :
		c->xport == XP_UET ? &xport_uet : &xport_wren;
	max = n->xp->frame_max(n);
	if (!max)
		goto out_sim;
	n->pkt_cap = (uint32_t)max;
	if (topo_build(n))
		goto out_topo;
	pfc_init(n);
	if (app_init(n, a))
		goto out_app;
	if (c->wall_limit) {
		hung_name = name;
		hung_sim = &n->sim;
		signal(SIGALRM, on_alarm);
		alarm(c->wall_limit);
	}
	app_start(a);
	sim_run(&n->sim, c->max_time_ps);
	alarm(0);
	if (!a->finished) {
		fprintf(stderr, "netsim: %s: not finished at %.3f us "
			"(max_time)\n", name, n->sim.now / 1e6);
	}
	out->events = n->sim.events;
	out->end_ps = n->sim.now;
	out->first_rx_ps = a->first_rx_ps;
	out->last_rx_ps = a->last_rx_ps;
	out->rx_bytes = a->total_rx_bytes;
	for (i = 0; i < n->nhosts; i++) {
		struct wren_tp_stats st;

		if (!n->hosts[i].tp)
			continue;
		n->xp->stats(n->hosts[i].tp, &st);
		out->retx_pkts += st.retx_timeout + st.retx_fast +
				  st.retx_nack + st.retx_reconnect;
	}
	topo_each_link(n, add_lost, out);
	out->ol_posted_bytes = a->ol_posted_bytes;
	if (c->app == APP_INCAST) {
		uint64_t lo = UINT64_MAX, hi = 0;

		for (i = 0; i < a->nflows; i++) {
			uint64_t t = a->flows[i].rx_done_ps;

			lo = t < lo ? t : lo;
			hi = t > hi ? t : hi;
		}
		out->first_to_last = hi ? (double)lo / hi : 0;
	}
	if (c->app == APP_MATRIX) {
		out->mx_n = a->nflows < RUN_MX ? a->nflows : RUN_MX;
		for (i = 0; i < out->mx_n; i++) {
			out->mx_post_ps[i] = a->flows[i].next_msn ?
					     a->flows[i].post_ps : 0;
			out->mx_done_ps[i] = a->flows[i].tx_ok ?
					     a->flows[i].tx_done_ps : 0;
		}
	}
	out->ol_msgs = (uint32_t)a->sd[FCT_BUCKETS].n;
	out->ol_sd_min = UINT32_MAX;
	for (size_t k = 0; k < a->sd[FCT_BUCKETS].n; k++)
		if (a->sd[FCT_BUCKETS].v[k] < out->ol_sd_min)
			out->ol_sd_min = a->sd[FCT_BUCKETS].v[k];
	for (i = 0; i < n->nsw; i++) {
		const struct sw *s = &n->sws[i];

		out->sw_rerouted += s->rerouted;
		for (uint32_t j = 0; j < s->nports; j++) {
			if (s->ports[j].failed) {
				out->sw_failed++;
				out->sw_failed_tx += s->ports[j].link.tx_pkts;
			}
			out->sw_drops += s->ports[j].drops;
			out->sw_marks += s->ports[j].marks;
			out->sw_trims += s->ports[j].trims;
			out->sw_ports_used += s->ports[j].link.tx_pkts > 0;
			if (s->ports[j].max_q > out->sw_max_q)
				out->sw_max_q = s->ports[j].max_q;
		}
	}
	out->ok = jw ? report_run(jw, n, name, merged) : report_pass(n);
	out->frac = report_frac(n);
	if (csv)
		report_csv_row(csv, n, name);
	if (human)
		report_line(human, n, name, wall_now() - t0);
	ret = 0;
	app_finish(a);
out_app:
	for (i = 0; i < n->nhosts; i++)
		if (n->hosts[i].tp)
			n->xp->destroy(n->hosts[i].tp);
	app_free(a);
out_topo:
	topo_free(n);
out_sim:
	pkt_free_all(n);
	sim_fini(&n->sim);
	free(n);
	free(a);
	out->wall_s = wall_now() - t0;
	return ret;
}
