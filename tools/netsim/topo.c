// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Topologies.  Hosts are numbered from 0 and addressed 10.0.0.1 on; links
 * are named after the nodes they join ("host3>leaf0", "leaf0>spine3",
 * "sw0>sw1/2" for the third of a parallel bundle), which is how scenario
 * files pick one to impair.  Memory is O(hosts + links): a 65537-host star
 * is one switch of 65537 ports.
 *
 *   back2back   host0 <-> host1
 *   parallel    host0 - sw0 = K links = sw1 - host1 (path_delay per link)
 *   leafspine   leaves x hosts_per_leaf hosts, every leaf to every spine
 *   star        hosts on sw0
 *   fattree     3-tier k-ary fat tree: k pods of k/2 edge and k/2
 *               aggregation switches, (k/2)^2 cores, k^3/4 hosts; edge
 *               uplinks at fabric_rate / ft.os_edge, aggregation-core
 *               links at that / ft.os_agg; ECMP up to the top of the path
 *   htsim       the 2- or 3-tier fat tree an htsim topology file describes
 *               (htsim.h): ToRs, aggregation switches per pod, cores,
 *               bundles of parallel links, per-tier speeds, latencies
 *               and queue sizes; ECMP up, over bundles on the way down
 *
 * Fat-tree switches: edges 0..k^2/2-1 (pod p's i-th is p*k/2 + i), then
 * aggregations (pod p's a-th is agg p*k/2 + a), then cores (core
 * a*k/2 + j joins the a-th aggregation switch of every pod).  Links are
 * named by the index within the tier: "edge3>agg1", "agg1>core2",
 * "core2>agg5", "agg5>edge4", "host7>edge3", "edge3>host7".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

static void *zalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		perror("netsim: topology");
		exit(2);
	}
	return p;
}

static void link_setup(struct net *n, struct link *l, uint32_t rate_mbps,
		       uint64_t prop_ps, void (*rx)(void *, struct pkt *),
		       void *node, const char *fmt, uint32_t a, uint32_t b)
{
	l->net = n;
	l->rate_mbps = rate_mbps;
	l->prop_ps = prop_ps;
	l->imp = &n->cfg->imp;
	l->rx = rx;
	l->node = node;
	snprintf(l->name, sizeof(l->name), fmt, a, b);
}

uint32_t topo_leaf_of(const struct net *n, uint32_t host)
{
	uint32_t h = n->cfg->ft_k / 2;

	if (n->cfg->topo == TOPO_HTSIM)
		return host / n->cfg->ht.radix_down[0];
	if (n->cfg->topo == TOPO_LEAFSPINE)
		return host / n->cfg->hosts_per_leaf;
	if (n->cfg->topo == TOPO_FATTREE)
		return host / (h * h);
	return host;
}

/* Fat tree: half of k, the switches of a tier. */
static uint32_t ft_h(const struct cfg *c)
{
	return c->ft_k / 2;
}

static uint32_t ft_edges(const struct cfg *c)
{
	return c->ft_k * ft_h(c);
}

static void ft_route(const struct cfg *c, uint32_t id, uint32_t dst,
		     uint32_t *first, uint32_t *cnt)
{
	uint32_t h = ft_h(c), E = ft_edges(c);
	uint32_t pod = dst / (h * h), edge = dst / h;

	if (id < E) {			/* edge: down to the host, or up */
		if (edge == id) {
			*first = dst % h;
		} else {
			*first = h;
			*cnt = h;
		}
	} else if (id < 2 * E) {	/* aggregation: down in its pod, or up */
		if ((id - E) / h == pod) {
			*first = edge % h;
		} else {
			*first = h;
			*cnt = h;
		}
	} else {			/* core: the destination's pod */
		*first = pod;
	}
}

/*
 * htsim's tree (switch ids: ToRs, then aggregation switches, then cores,
 * each numbered as htsim numbers them).  ToR t: its hosts on ports
 * 0..R0-1 (host t * R0 + j on j), then B1 links to each aggregation
 * switch it reaches (all of them on 2 tiers, its pod's on 3).
 * Aggregation switch a: B1 links down to each ToR it reaches, then (3
 * tiers) B2 links up to each of its cores, core podpos + A * l for the
 * l-th (podpos = a % A, A switches a pod).  Core c: B2 links to
 * aggregation switch c % A of each pod, pod by pod.
 */
static void ht_route(const struct ht_topo *t, uint32_t id, uint32_t dst,
		     uint32_t *first, uint32_t *cnt)
{
	uint32_t R0 = t->radix_down[0], B1 = t->bundle[1], B2 = t->bundle[2];
	uint32_t tor = dst / R0, pod = tor / t->tors_per_pod;
	uint32_t ntordown = t->tiers == 2 ? t->ntor : t->tors_per_pod;

	if (id < t->ntor) {
		if (tor == id) {
			*first = dst % R0;
		} else {
			*first = R0;
			*cnt = t->radix_up[0];
		}
	} else if (id < t->ntor + t->nagg) {
		uint32_t a = id - t->ntor;

		if (t->tiers == 2 || a / t->aggs_per_pod == pod) {
			*first = (tor % ntordown) * B1;
			*cnt = B1;
		} else {
			*first = ntordown * B1;
			*cnt = t->radix_up[1];
		}
	} else {
		*first = pod * B2;
		*cnt = B2;
	}
}

void topo_route(const struct net *n, const struct sw *s, uint32_t dst,
		uint32_t *first, uint32_t *cnt)
{
	const struct cfg *c = n->cfg;
	uint32_t leaf;

	*cnt = 1;
	switch (c->topo) {
	case TOPO_STAR:
		*first = dst;
		return;
	case TOPO_PARALLEL:
		/* Port 0 is the local host, 1..K the bundle. */
		if (dst == s->id) {
			*first = 0;
		} else {
			*first = 1;
			*cnt = c->paths;
		}
		return;
	case TOPO_LEAFSPINE:
		leaf = dst / c->hosts_per_leaf;
		if (s->id >= c->leaves) {
			*first = leaf;
		} else if (leaf == s->id) {
			*first = dst % c->hosts_per_leaf;
		} else {
			*first = c->hosts_per_leaf;
			*cnt = c->spines;
		}
		return;
	case TOPO_FATTREE:
		ft_route(c, s->id, dst, first, cnt);
		return;
	case TOPO_HTSIM:
		ht_route(&c->ht, s->id, dst, first, cnt);
		return;
	case TOPO_BACK2BACK:
		break;
	}
	*first = 0;
}

static void build_back2back(struct net *n)
{
	const struct cfg *c = n->cfg;
	uint32_t i;

	for (i = 0; i < 2; i++)
		link_setup(n, &n->hosts[i].up, c->rate_mbps, c->delay_ps,
			   host_rx, &n->hosts[1 - i], "host%u>host%u", i,
			   1 - i);
}

static void build_star(struct net *n)
{
	const struct cfg *c = n->cfg;
	struct sw *s = &n->sws[0];
	uint32_t i;

	sw_init(n, s, 0, n->nhosts);
	for (i = 0; i < n->nhosts; i++) {
		link_setup(n, &n->hosts[i].up, c->rate_mbps, c->delay_ps,
			   sw_rx, s, "host%u>sw%u", i, 0);
		link_setup(n, &s->ports[i].link, c->rate_mbps, c->delay_ps,
			   host_rx, &n->hosts[i], "sw%u>host%u", 0, i);
	}
}

static void build_parallel(struct net *n)
{
	const struct cfg *c = n->cfg;
	uint32_t i, k;

	for (i = 0; i < 2; i++) {
		struct sw *s = &n->sws[i];

		sw_init(n, s, i, 1 + c->paths);
		link_setup(n, &n->hosts[i].up, c->rate_mbps, c->delay_ps,
			   sw_rx, s, "host%u>sw%u", i, i);
		link_setup(n, &s->ports[0].link, c->rate_mbps, c->delay_ps,
			   host_rx, &n->hosts[i], "sw%u>host%u", i, i);
	}
	for (i = 0; i < 2; i++) {
		for (k = 0; k < c->paths; k++) {
			uint64_t extra = k < c->npath_delay ?
					 c->path_delay_ps[k] : 0;
			struct link *l = &n->sws[i].ports[1 + k].link;

			link_setup(n, l, c->fabric_rate_mbps,
				   c->delay_ps + extra, sw_rx, &n->sws[1 - i],
				   i ? "sw1>sw0/%u" : "sw0>sw1/%u", k, 0);
		}
	}
}

static void build_leafspine(struct net *n)
{
	const struct cfg *c = n->cfg;
	uint32_t L = c->leaves, H = c->hosts_per_leaf, S = c->spines;
	uint32_t l, j, s;

	for (l = 0; l < L; l++)
		sw_init(n, &n->sws[l], l, H + S);
	for (s = 0; s < S; s++)
		sw_init(n, &n->sws[L + s], L + s, L);
	for (l = 0; l < L; l++) {
		struct sw *leaf = &n->sws[l];

		for (j = 0; j < H; j++) {
			struct host *h = &n->hosts[l * H + j];

			link_setup(n, &h->up, c->rate_mbps, c->delay_ps,
				   sw_rx, leaf, "host%u>leaf%u", h->id, l);
			link_setup(n, &leaf->ports[j].link, c->rate_mbps,
				   c->delay_ps, host_rx, h, "leaf%u>host%u",
				   l, h->id);
		}
		for (s = 0; s < S; s++) {
			link_setup(n, &leaf->ports[H + s].link,
				   c->fabric_rate_mbps, c->delay_ps, sw_rx,
				   &n->sws[L + s], "leaf%u>spine%u", l, s);
			link_setup(n, &n->sws[L + s].ports[l].link,
				   c->fabric_rate_mbps, c->delay_ps, sw_rx,
				   leaf, "spine%u>leaf%u", s, l);
		}
	}
}

/*
 * Fat tree: edge switch e (pod e / h) has its h hosts on ports 0..h-1
 * and its pod's h aggregation switches on h..k-1; aggregation switch a
 * (pod a / h, a % h within it) its pod's edges on 0..h-1 and cores
 * (a % h) * h + j on h + j; core c aggregation c / h of pod p on port p.
 */
static void build_fattree(struct net *n)
{
	const struct cfg *c = n->cfg;
	uint32_t k = c->ft_k, h = ft_h(c), E = ft_edges(c), C = h * h;
	uint32_t r_ea = (uint32_t)(c->fabric_rate_mbps / c->ft_os_edge + 0.5);
	uint32_t r_ac = (uint32_t)(c->fabric_rate_mbps /
				   (c->ft_os_edge * c->ft_os_agg) + 0.5);
	uint32_t e, a, j, p, i;

	for (i = 0; i < 2 * E; i++)
		sw_init(n, &n->sws[i], i, k);
	for (i = 0; i < C; i++)
		sw_init(n, &n->sws[2 * E + i], 2 * E + i, k);
	for (e = 0; e < E; e++) {
		struct sw *edge = &n->sws[e];

		p = e / h;
		for (j = 0; j < h; j++) {
			struct host *ho = &n->hosts[e * h + j];

			link_setup(n, &ho->up, c->rate_mbps, c->delay_ps,
				   sw_rx, edge, "host%u>edge%u", ho->id, e);
			link_setup(n, &edge->ports[j].link, c->rate_mbps,
				   c->delay_ps, host_rx, ho, "edge%u>host%u",
				   e, ho->id);
		}
		for (a = 0; a < h; a++) {
			uint32_t ag = p * h + a;
			struct sw *agg = &n->sws[E + ag];

			link_setup(n, &edge->ports[h + a].link, r_ea,
				   c->delay_ps, sw_rx, agg, "edge%u>agg%u", e,
				   ag);
			link_setup(n, &agg->ports[e % h].link, r_ea,
				   c->delay_ps, sw_rx, edge, "agg%u>edge%u", ag,
				   e);
		}
	}
	for (a = 0; a < E; a++) {
		struct sw *agg = &n->sws[E + a];

		p = a / h;
		for (j = 0; j < h; j++) {
			uint32_t co = (a % h) * h + j;
			struct sw *core = &n->sws[2 * E + co];

			link_setup(n, &agg->ports[h + j].link, r_ac,
				   c->delay_ps, sw_rx, core, "agg%u>core%u", a,
				   co);
			link_setup(n, &core->ports[p].link, r_ac, c->delay_ps,
				   sw_rx, agg, "core%u>agg%u", co, a);
		}
	}
}

/*
 * htsim's tree, laid out as ht_route() says.  A tier's links below it run
 * at its Downlink_speed with its Downlink_Latency both ways; a switch's
 * own latency is added to every link out of it; queue sizes, when the
 * file gives them, bound the ports of that tier and direction.
 */
/* @pt's queue size, and its name's "/b" in a bundle of @bundle links
 * ("tor0>agg1/2", the third). */
static void ht_port(struct port *pt, uint32_t queue, uint32_t bundle,
		    uint32_t b)
{
	size_t len = strlen(pt->link.name);

	pt->buffer = queue;
	if (bundle > 1)
		snprintf(pt->link.name + len, sizeof(pt->link.name) - len,
			 "/%u", b);
}

/*
 * Link b of the bundle between switch @lo of tier @tier - 1 and switch
 * @hi of tier @tier: @up on @lo, @dn on @hi, at the upper tier's
 * downlink speed and latency, each with the latency of the switch it
 * leaves and the queue size of its tier and direction.
 */
static void ht_join(struct net *n, uint32_t tier, struct sw *lo,
		    struct port *up, struct sw *hi, struct port *dn,
		    uint32_t b)
{
	static const char *const names[] = { "tor", "agg", "core" };
	const struct ht_topo *t = &n->cfg->ht;
	uint32_t lo_id = lo->id - (tier == 2 ? t->ntor : 0);
	uint32_t hi_id = hi->id - (tier == 2 ? t->ntor + t->nagg : t->ntor);
	char up_fmt[16], dn_fmt[16];

	snprintf(up_fmt, sizeof(up_fmt), "%s%%u>%s%%u", names[tier - 1],
		 names[tier]);
	snprintf(dn_fmt, sizeof(dn_fmt), "%s%%u>%s%%u", names[tier],
		 names[tier - 1]);
	link_setup(n, &up->link, t->speed_mbps[tier],
		   t->link_ps[tier] + t->switch_ps[tier - 1], sw_rx, hi, up_fmt,
		   lo_id, hi_id);
	link_setup(n, &dn->link, t->speed_mbps[tier],
		   t->link_ps[tier] + t->switch_ps[tier], sw_rx, lo, dn_fmt,
		   hi_id, lo_id);
	ht_port(up, t->queue_up[tier - 1], t->bundle[tier], b);
	ht_port(dn, t->queue_down[tier], t->bundle[tier], b);
}

static void build_htsim(struct net *n)
{
	const struct cfg *c = n->cfg;
	const struct ht_topo *t = &c->ht;
	uint32_t R0 = t->radix_down[0], B1 = t->bundle[1], B2 = t->bundle[2];
	uint32_t A = t->aggs_per_pod, NT = t->ntor, NA = t->nagg;
	uint32_t ntordown = t->tiers == 2 ? t->ntor : t->tors_per_pod;
	uint32_t naggup = t->tiers == 2 ? t->nagg : A;
	uint32_t up1 = t->tiers == 3 ? t->radix_up[1] : 0;
	uint32_t i, j, b;

	for (i = 0; i < NT; i++)
		sw_init(n, &n->sws[i], i, R0 + t->radix_up[0]);
	for (i = 0; i < NA; i++)
		sw_init(n, &n->sws[NT + i], NT + i, ntordown * B1 + up1);
	for (i = 0; i < t->ncore; i++)
		sw_init(n, &n->sws[NT + NA + i], NT + NA + i, t->pods * B2);
	for (i = 0; i < NT; i++) {
		struct sw *tor = &n->sws[i];
		uint32_t pod = i / t->tors_per_pod;

		for (j = 0; j < R0; j++) {
			struct host *h = &n->hosts[i * R0 + j];
			struct port *pt = &tor->ports[j];

			link_setup(n, &h->up, t->speed_mbps[0], t->link_ps[0],
				   sw_rx, tor, "host%u>tor%u", h->id, i);
			link_setup(n, &pt->link, t->speed_mbps[0],
				   t->link_ps[0] + t->switch_ps[0], host_rx, h,
				   "tor%u>host%u", i, h->id);
			ht_port(pt, t->queue_down[0], 1, 0);
		}
		for (j = 0; j < naggup; j++) {
			uint32_t ag = t->tiers == 2 ? j : pod * A + j;
			struct sw *agg = &n->sws[NT + ag];

			for (b = 0; b < B1; b++)
				ht_join(n, 1, tor, &tor->ports[R0 + j * B1 + b],
					agg, &agg->ports[(i % ntordown) * B1 +
							 b], b);
		}
	}
	for (i = 0; t->tiers == 3 && i < NA; i++) {
		struct sw *agg = &n->sws[NT + i];
		uint32_t pod = i / A, podpos = i % A;

		for (j = 0; j < up1 / B2; j++) {
			uint32_t co = podpos + A * j;
			struct sw *core = &n->sws[NT + NA + co];

			for (b = 0; b < B2; b++)
				ht_join(n, 2, agg,
					&agg->ports[ntordown * B1 + j * B2 + b],
					core, &core->ports[pod * B2 + b], b);
		}
	}
}

/*
 * Take htsim's failed link out of its tree, both ways: the first link of
 * aggregation switch f->agg's f->link-th bundle up, to core podpos + A x
 * link as ht_route() lays them out.  A failure htsim knows from the
 * start, so ECMP never chooses it (sw_rx()); not a dark link
 * (link.NAME.down), which the switches go on hashing onto.
 */
const char *topo_ht_fail(struct net *n, const struct ht_fail *f)
{
	const struct ht_topo *t = &n->cfg->ht;
	uint32_t B1 = t->bundle[1], B2 = t->bundle[2], A = t->aggs_per_pod;
	struct sw *agg, *core;

	if (n->cfg->topo != TOPO_HTSIM || t->tiers != 3)
		return "a failure needs an htsim topology of 3 tiers";
	if (f->agg >= t->nagg)
		return "no such aggregation switch";
	if (f->link >= t->radix_up[1] / B2)
		return "no such uplink of that aggregation switch";
	agg = &n->sws[t->ntor + f->agg];
	core = &n->sws[t->ntor + t->nagg + f->agg % A + A * f->link];
	agg->ports[t->tors_per_pod * B1 + f->link * B2].failed = true;
	core->ports[f->agg / A * B2].failed = true;
	agg->nfailed++;
	core->nfailed++;
	return NULL;
}

int topo_each_link(struct net *n, int (*fn)(struct link *l, void *arg),
		   void *arg)
{
	uint32_t i, j;
	int ret;

	for (i = 0; i < n->nhosts; i++) {
		ret = fn(&n->hosts[i].up, arg);
		if (ret)
			return ret;
	}
	for (i = 0; i < n->nsw; i++) {
		for (j = 0; j < n->sws[i].nports; j++) {
			ret = fn(&n->sws[i].ports[j].link, arg);
			if (ret)
				return ret;
		}
	}
	return 0;
}

struct find_arg {
	const char *name;
	struct link *found;
};

static int find_one(struct link *l, void *arg)
{
	struct find_arg *fa = arg;

	if (strcmp(l->name, fa->name))
		return 0;
	fa->found = l;
	return 1;
}

struct link *topo_find_link(struct net *n, const char *name)
{
	struct find_arg fa = { .name = name };

	topo_each_link(n, find_one, &fa);
	return fa.found;
}

int topo_build(struct net *n)
{
	const struct cfg *c = n->cfg;
	uint32_t i;

	switch (c->topo) {
	case TOPO_BACK2BACK:
		n->nhosts = 2;
		n->nsw = 0;
		break;
	case TOPO_PARALLEL:
		n->nhosts = 2;
		n->nsw = 2;
		break;
	case TOPO_LEAFSPINE:
		n->nhosts = c->leaves * c->hosts_per_leaf;
		n->nsw = c->leaves + c->spines;
		break;
	case TOPO_FATTREE:
		n->nhosts = c->ft_k * c->ft_k * c->ft_k / 4;
		n->nsw = 2 * ft_edges(c) + ft_h(c) * ft_h(c);
		break;
	case TOPO_STAR:
		n->nhosts = c->hosts;
		n->nsw = 1;
		break;
	case TOPO_HTSIM:
		n->nhosts = c->ht.nodes;
		n->nsw = c->ht.ntor + c->ht.nagg + c->ht.ncore;
		break;
	}
	n->hosts = zalloc(n->nhosts * sizeof(*n->hosts));
	n->sws = n->nsw ? zalloc(n->nsw * sizeof(*n->sws)) : NULL;
	for (i = 0; i < n->nhosts; i++)
		host_init(n, &n->hosts[i], i);
	switch (c->topo) {
	case TOPO_BACK2BACK:
		build_back2back(n);
		break;
	case TOPO_PARALLEL:
		build_parallel(n);
		break;
	case TOPO_LEAFSPINE:
		build_leafspine(n);
		break;
	case TOPO_FATTREE:
		build_fattree(n);
		break;
	case TOPO_STAR:
		build_star(n);
		break;
	case TOPO_HTSIM:
		build_htsim(n);
		break;
	}
	for (i = 0; i < c->nlo; i++) {
		struct link *l = topo_find_link(n, c->lo[i].name);

		if (!l) {
			fprintf(stderr, "%s: no link named \"%s\" in this "
				"topology\n", c->lo[i].where, c->lo[i].name);
			return -1;
		}
		l->imp = &c->lo[i].imp;
		/* Its own rate and propagation delay, if it has them. */
		if (l->imp->rate_mbps)
			l->rate_mbps = l->imp->rate_mbps;
		if (l->imp->delay_ps)
			l->prop_ps = l->imp->delay_ps;
	}
	return 0;
}

void topo_free(struct net *n)
{
	uint32_t i;

	for (i = 0; i < n->nsw; i++) {
		for (uint32_t j = 0; j < n->sws[i].nports; j++)
			free(n->sws[i].ports[j].qhist);
		free(n->sws[i].ports);
	}
	free(n->sws);
	free(n->hosts);
}

/* Host @a to host @b on the first path: propagation, and each link's
 * time for a frame of @len bytes (0: none). */
static uint64_t path_time(const struct net *n, uint32_t a, uint32_t b,
			  uint32_t len)
{
	const struct link *l = &n->hosts[a].up;
	uint64_t sum = 0;
	int hops;

	for (hops = 0; hops < 16; hops++) {
		const struct sw *s;
		uint32_t first, cnt;

		sum += l->prop_ps + l->imp->extra_ps;
		if (len)
			sum += link_ser_ps(l, len);
		if (l->rx == host_rx)
			break;
		s = l->node;
		topo_route(n, s, b, &first, &cnt);
		l = &s->ports[first].link;
	}
	return sum;
}

/* Every equal-cost path from the link @l on to host @b. */
static uint64_t paths_from(const struct net *n, const struct link *l,
			   uint32_t b, int hops)
{
	const struct sw *s;
	uint32_t first, cnt, i;
	uint64_t sum = 0;

	if (l->rx == host_rx)
		return l->node == &n->hosts[b];
	if (hops >= 16)
		return 0;
	s = l->node;
	topo_route(n, s, b, &first, &cnt);
	for (i = 0; i < cnt; i++)
		sum += paths_from(n, &s->ports[first + i].link, b, hops + 1);
	return sum;
}

uint64_t topo_paths(const struct net *n, uint32_t a, uint32_t b)
{
	return paths_from(n, &n->hosts[a].up, b, 0);
}

uint64_t topo_rtt_prop_ps(const struct net *n, uint32_t a, uint32_t b)
{
	return path_time(n, a, b, 0) + path_time(n, b, a, 0);
}

uint64_t topo_rtt_ps(const struct net *n, uint32_t a, uint32_t b,
		     uint32_t len, uint32_t back_len)
{
	return path_time(n, a, b, len) + path_time(n, b, a, back_len);
}
