// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Readers of htsim's topology and connection-matrix files (htsim.h).
 * The rules are htsim's, as its public source applies them (the Ultra
 * Ethernet consortium's csg-htsim, sim/datacenter: fat_tree_topology.cpp
 * and connection_matrix.cpp), so a file that htsim takes builds the same
 * network and traffic here, and one it refuses is refused: the facts of
 * the format carry over, no code does.  A line is tokens separated by
 * blanks; "#" starts a comment line.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "htsim.h"

#define HT_MAX_TOKENS	64

struct reader {
	FILE *f;
	const char *path;
	unsigned int line;
	char buf[4096];
	char *tok[HT_MAX_TOKENS];
	int ntok;
};

static int fail(const struct reader *r, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%u: ", r->path, r->line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -1;
}

/* The next line with tokens; 0 at the end, -1 on error. */
static int next_line(struct reader *r)
{
	while (fgets(r->buf, sizeof(r->buf), r->f)) {
		char *p = r->buf, *save;

		r->line++;
		if (!strchr(r->buf, '\n') && !feof(r->f))
			return fail(r, "line too long");
		r->ntok = 0;
		for (p = strtok_r(p, " \t\r\n", &save); p;
		     p = strtok_r(NULL, " \t\r\n", &save)) {
			if (r->ntok == HT_MAX_TOKENS)
				return fail(r, "too many fields");
			r->tok[r->ntok++] = p;
		}
		if (r->ntok && r->tok[0][0] != '#')
			return 1;
	}
	return ferror(r->f) ? fail(r, "%s", strerror(errno)) : 0;
}

static int get_u64(const struct reader *r, const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	if (!s || !isdigit((unsigned char)*s))
		return fail(r, "\"%s\" is not a number", s ? s : "");
	*v = strtoull(s, &end, 10);
	if (errno || *end)
		return fail(r, "\"%s\" is not a number", s);
	return 0;
}

static int get_u32(const struct reader *r, const char *s, uint32_t *v)
{
	uint64_t u;

	if (get_u64(r, s, &u))
		return -1;
	if (u > UINT32_MAX)
		return fail(r, "%s is too large", s);
	*v = (uint32_t)u;
	return 0;
}

static void lower(char *s)
{
	for (; *s; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* ------------------------------------------------------------------ */
/* Topology files                                                       */
/* ------------------------------------------------------------------ */

/* A per-tier value that may be set once. */
static int tier_set(const struct reader *r, int tier, const char *what,
		    uint32_t *field, uint32_t unset, uint32_t v)
{
	if (tier < 0)
		return fail(r, "%s before any \"Tier\"", what);
	if (*field != unset)
		return fail(r, "%s given twice for tier %d", what, tier);
	*field = v;
	return 0;
}

static int topo_derive(const struct reader *r, struct ht_topo *t)
{
	uint32_t top = t->tiers - 1, tor_up, agg_up;
	uint64_t x;

	for (uint32_t k = 0; k < t->tiers; k++) {
		if (t->radix_down[k] % t->bundle[k])
			return fail(r, "tier %u: Radix_Down %u is not a "
				    "multiple of its Bundle %u", k,
				    t->radix_down[k], t->bundle[k]);
		if (k < top && t->radix_up[k] % t->bundle[k + 1])
			return fail(r, "tier %u: Radix_Up %u is not a "
				    "multiple of tier %u's Bundle %u", k,
				    t->radix_up[k], k + 1, t->bundle[k + 1]);
	}
	if (t->bundle[0] != 1)
		return fail(r, "tier 0: hosts have one link (Bundle 1)");
	if (t->nodes % t->podsize)
		return fail(r, "Nodes %u is not a multiple of Podsize %u",
			    t->nodes, t->podsize);
	t->pods = t->nodes / t->podsize;
	if (t->podsize % t->radix_down[0])
		return fail(r, "Podsize %u is not a multiple of tier 0's "
			    "Radix_Down %u", t->podsize, t->radix_down[0]);
	t->tors_per_pod = t->podsize / t->radix_down[0];
	/* Uplinks out of the ToRs: host capacity over their speed and
	 * over-subscription. */
	x = (uint64_t)t->nodes * t->speed_mbps[0];
	if (x % ((uint64_t)t->speed_mbps[1] * t->oversub[0]))
		return fail(r, "host capacity does not divide into tier 1 "
			    "links at this over-subscription");
	tor_up = (uint32_t)(x / ((uint64_t)t->speed_mbps[1] * t->oversub[0]));
	if (t->radix_down[0] / t->radix_up[0] != t->oversub[0])
		return fail(r, "tier 0: Radix_Down %u / Radix_Up %u is not "
			    "Oversubscribed %u", t->radix_down[0],
			    t->radix_up[0], t->oversub[0]);
	if (tor_up % (t->pods * t->radix_down[1]))
		return fail(r, "%u ToR uplinks do not divide into %u pods of "
			    "tier 1 switches of Radix_Down %u", tor_up,
			    t->pods, t->radix_down[1]);
	t->aggs_per_pod = tor_up / (t->pods * t->radix_down[1]);
	if (t->aggs_per_pod * t->bundle[1] != t->radix_up[0])
		return fail(r, "tier 0 Radix_Up %u, but %u tier 1 switches a "
			    "pod with Bundle %u", t->radix_up[0],
			    t->aggs_per_pod, t->bundle[1]);
	t->ntor = t->tors_per_pod * t->pods;
	t->nagg = t->aggs_per_pod * t->pods;
	t->ncore = 0;
	if (t->tiers == 2) {
		/* Every ToR reaches every tier 1 switch: one "pod". */
		if (t->pods != 1)
			return fail(r, "a 2-tier topology is one pod "
				    "(Podsize = Nodes)");
		return 0;
	}
	x = (uint64_t)tor_up * t->speed_mbps[1];
	if (x % ((uint64_t)t->speed_mbps[2] * t->oversub[1]))
		return fail(r, "tier 1 capacity does not divide into tier 2 "
			    "links at this over-subscription");
	agg_up = (uint32_t)(x / ((uint64_t)t->speed_mbps[2] * t->oversub[1]));
	if (agg_up % t->radix_down[2])
		return fail(r, "%u tier 1 uplinks do not divide into core "
			    "switches of Radix_Down %u", agg_up,
			    t->radix_down[2]);
	t->ncore = agg_up / t->radix_down[2];
	if (t->ncore % t->aggs_per_pod ||
	    t->ncore * t->bundle[2] / t->aggs_per_pod != t->radix_up[1])
		return fail(r, "tier 1 Radix_Up %u does not match %u core "
			    "switches over %u tier 1 switches a pod (Bundle "
			    "%u)", t->radix_up[1], t->ncore, t->aggs_per_pod,
			    t->bundle[2]);
	/* Each core switch reaches one tier 1 switch of every pod. */
	if (t->pods * t->bundle[2] != t->radix_down[2])
		return fail(r, "tier 2 Radix_Down %u, but %u pods with Bundle "
			    "%u", t->radix_down[2], t->pods, t->bundle[2]);
	return 0;
}

int ht_topo_load(const char *path, struct ht_topo *t)
{
	struct reader r = { .path = path };
	int tier = -1, ret;
	bool seen[HT_TIERS] = { false };

	memset(t, 0, sizeof(*t));
	for (int k = 0; k < HT_TIERS; k++) {
		t->oversub[k] = 1;
		t->bundle[k] = 1;
	}
	r.f = fopen(path, "r");
	if (!r.f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((ret = next_line(&r)) > 0) {
		char *key = r.tok[0];
		uint32_t v = 0;

		lower(key);
		if (r.ntok < 2) {
			ret = fail(&r, "\"%s\" without a value", key);
			break;
		}
		ret = -1;
		if (get_u32(&r, r.tok[1], &v))
			break;
		if (!strcmp(key, "nodes")) {
			t->nodes = v;
		} else if (!strcmp(key, "tiers")) {
			if (v < 2 || v > 3) {
				fail(&r, "Tiers must be 2 or 3");
				break;
			}
			t->tiers = v;
		} else if (!strcmp(key, "podsize")) {
			t->podsize = v;
		} else if (!strcmp(key, "tier")) {
			if (v > 2) {
				fail(&r, "no tier %u (0, 1, 2)", v);
				break;
			}
			tier = (int)v;
			seen[tier] = true;
		} else if (!strcmp(key, "downlink_speed_gbps")) {
			if (!v || v > UINT32_MAX / 1000) {
				fail(&r, "bad speed %u", v);
				break;
			}
			if (tier_set(&r, tier, key, &t->speed_mbps[tier], 0,
				     v * 1000))
				break;
		} else if (!strcmp(key, "downlink_latency_ns")) {
			if (tier < 0) {
				fail(&r, "%s before any \"Tier\"", key);
				break;
			}
			if (t->link_ps[tier]) {
				fail(&r, "%s given twice for tier %d", key,
				     tier);
				break;
			}
			t->link_ps[tier] = (uint64_t)v * 1000;
		} else if (!strcmp(key, "switch_latency_ns")) {
			if (tier < 0) {
				fail(&r, "%s before any \"Tier\"", key);
				break;
			}
			t->switch_ps[tier] = (uint64_t)v * 1000;
		} else if (!strcmp(key, "radix_up")) {
			if (tier == 2) {
				fail(&r, "tier 2 has no uplinks");
				break;
			}
			if (tier_set(&r, tier, key, &t->radix_up[tier], 0, v))
				break;
		} else if (!strcmp(key, "radix_down")) {
			if (tier_set(&r, tier, key, &t->radix_down[tier], 0,
				     v))
				break;
		} else if (!strcmp(key, "queue_up")) {
			if (tier == 2) {
				fail(&r, "tier 2 has no uplinks");
				break;
			}
			if (tier_set(&r, tier, key, &t->queue_up[tier], 0, v))
				break;
		} else if (!strcmp(key, "queue_down")) {
			if (tier_set(&r, tier, key, &t->queue_down[tier], 0,
				     v))
				break;
		} else if (!strcmp(key, "oversubscribed")) {
			if (tier_set(&r, tier, key, &t->oversub[tier], 1, v))
				break;
		} else if (!strcmp(key, "bundle")) {
			if (tier_set(&r, tier, key, &t->bundle[tier], 1, v))
				break;
		}
		/* Anything else htsim passes over, and so does this. */
		ret = 1;
	}
	fclose(r.f);
	if (ret < 0)
		return -1;
	if (!t->nodes || !t->tiers || !t->podsize)
		return fail(&r, "Nodes, Tiers and Podsize are required");
	for (uint32_t k = 0; k < t->tiers; k++) {
		if (!seen[k])
			return fail(&r, "no \"Tier %u\" section", k);
		if (!t->speed_mbps[k] || !t->link_ps[k] ||
		    !t->radix_down[k] ||
		    (k + 1 < t->tiers && !t->radix_up[k]) || !t->oversub[k] ||
		    !t->bundle[k])
			return fail(&r, "tier %u needs Downlink_speed_Gbps, "
				    "Downlink_Latency_ns, Radix_Down%s (and a "
				    "non-zero Oversubscribed, Bundle)", k,
				    k + 1 < t->tiers ? ", Radix_Up" : "");
	}
	return topo_derive(&r, t);
}

/* ------------------------------------------------------------------ */
/* Connection matrices                                                  */
/* ------------------------------------------------------------------ */

struct ht_trig *ht_trig_find(struct ht_cm *cm, uint32_t id)
{
	for (uint32_t i = 0; i < cm->ntrigs; i++)
		if (cm->trigs[i].id == id)
			return &cm->trigs[i];
	return NULL;
}

/* The trigger of @id, added untyped when first named. */
static struct ht_trig *trig_get(struct ht_cm *cm, uint32_t id)
{
	struct ht_trig *t = ht_trig_find(cm, id);

	if (t)
		return t;
	t = realloc(cm->trigs, (cm->ntrigs + 1) * sizeof(*t));
	if (!t) {
		perror("netsim: htsim");
		exit(2);
	}
	cm->trigs = t;
	t = &cm->trigs[cm->ntrigs++];
	memset(t, 0, sizeof(*t));
	t->id = id;
	return t;
}

static int parse_conn(struct reader *r, struct ht_cm *cm, char *arrow)
{
	struct ht_conn c = { 0 };
	bool started = false;
	double start;
	char *end;

	*arrow = '\0';
	if (get_u32(r, r->tok[0], &c.src) || get_u32(r, arrow + 2, &c.dst))
		return -1;
	for (int i = 1; i < r->ntok; i++) {
		const char *k = r->tok[i], *v = i + 1 < r->ntok ?
						 r->tok[i + 1] : NULL;

		if (!strcmp(k, "addon"))
			continue;	/* htsim's own flag: nothing here */
		if (!v)
			return fail(r, "\"%s\" without a value", k);
		i++;
		if (!strcmp(k, "start")) {
			/* Picoseconds, possibly with a fraction. */
			errno = 0;
			start = strtod(v, &end);
			if (errno || *end || !(start >= 0))
				return fail(r, "bad start \"%s\"", v);
			c.start_ps = (uint64_t)(start + 0.5);
			started = true;
		} else if (!strcmp(k, "size")) {
			if (get_u64(r, v, &c.size))
				return -1;
		} else if (!strcmp(k, "id")) {
			if (get_u32(r, v, &c.id))
				return -1;
			if (!c.id)
				return fail(r, "flow id 0 is not allowed");
		} else if (!strcmp(k, "trigger")) {
			if (get_u32(r, v, &c.trigger))
				return -1;
			if (!c.trigger)
				return fail(r, "trigger id 0 is not allowed");
		} else if (!strcmp(k, "send_done_trigger")) {
			if (get_u32(r, v, &c.send_done))
				return -1;
		} else if (!strcmp(k, "recv_done_trigger")) {
			if (get_u32(r, v, &c.recv_done))
				return -1;
		} else if (!strcmp(k, "prio")) {
			uint32_t prio;

			/* htsim's own scheduling hint: read, not used. */
			if (get_u32(r, v, &prio))
				return -1;
		} else {
			return fail(r, "unknown field \"%s\"", k);
		}
	}
	if (!started && !c.trigger)
		return fail(r, "a flow needs a start or a trigger");
	if (started && c.trigger)
		return fail(r, "a flow has a start or a trigger, not both");
	if (c.trigger && !c.id)
		return fail(r, "a triggered flow needs an id");
	/* htsim's transports read no size as a flow without end. */
	if (!c.size)
		return fail(r, "a flow needs a size (no endless flows here)");
	if (c.size > UINT32_MAX)
		return fail(r, "size %llu: at most %u bytes a flow here",
			    (unsigned long long)c.size, UINT32_MAX);
	if (c.src == c.dst)
		return fail(r, "a flow from %u to itself", c.src);
	if (c.trigger)
		trig_get(cm, c.trigger);
	if (c.send_done)
		trig_get(cm, c.send_done);
	if (c.recv_done)
		trig_get(cm, c.recv_done);
	cm->conns = realloc(cm->conns, (cm->nconns + 1) * sizeof(c));
	if (!cm->conns) {
		perror("netsim: htsim");
		exit(2);
	}
	cm->conns[cm->nconns++] = c;
	return 0;
}

static int parse_trigger(struct reader *r, struct ht_cm *cm, uint32_t *n)
{
	uint32_t id = 0, count = 0;
	enum ht_trig_kind kind = HT_TRIG_NONE;
	struct ht_trig *t;

	for (int i = 1; i < r->ntok; i++) {
		const char *k = r->tok[i];
		enum ht_trig_kind is = !strcmp(k, "oneshot") ? HT_TRIG_ONESHOT :
				       !strcmp(k, "multishot") ? HT_TRIG_MULTISHOT :
				       !strcmp(k, "barrier") ? HT_TRIG_BARRIER :
				       HT_TRIG_NONE;

		if (is != HT_TRIG_NONE) {
			if (kind != HT_TRIG_NONE)
				return fail(r, "a trigger has one type");
			kind = is;
		} else if (!strcmp(k, "id") && i + 1 < r->ntok) {
			if (get_u32(r, r->tok[++i], &id))
				return -1;
		} else if (!strcmp(k, "count") && i + 1 < r->ntok) {
			if (get_u32(r, r->tok[++i], &count))
				return -1;
		} else {
			return fail(r, "unknown trigger field \"%s\"", k);
		}
	}
	if (!id)
		return fail(r, "a trigger needs a non-zero id");
	if (kind == HT_TRIG_NONE)
		return fail(r, "trigger %u has no type (oneshot, multishot, "
			    "barrier)", id);
	t = trig_get(cm, id);
	if (t->kind != HT_TRIG_NONE)
		return fail(r, "trigger %u defined twice", id);
	t->kind = kind;
	t->count = count;
	(*n)++;
	return 0;
}

/*
 * "failure switch_type AGG switch_id S link_id L": htsim fails only
 * aggregation switches' uplinks.
 */
static int parse_failure(struct reader *r, struct ht_cm *cm)
{
	struct ht_fail f = { UINT32_MAX, UINT32_MAX };
	struct ht_fail *nf;

	for (int i = 1; i < r->ntok; i += 2) {
		const char *k = r->tok[i], *v = i + 1 < r->ntok ?
						r->tok[i + 1] : NULL;

		if (!v)
			return fail(r, "failure field \"%s\" has no value", k);
		if (!strcmp(k, "switch_type")) {
			if (strcmp(v, "AGG"))
				return fail(r, "a failure of a %s switch: htsim "
					    "fails AGG uplinks only", v);
		} else if (!strcmp(k, "switch_id")) {
			if (get_u32(r, v, &f.agg))
				return -1;
		} else if (!strcmp(k, "link_id")) {
			if (get_u32(r, v, &f.link))
				return -1;
		} else {
			return fail(r, "unknown failure field \"%s\"", k);
		}
	}
	if (f.agg == UINT32_MAX || f.link == UINT32_MAX)
		return fail(r, "a failure needs switch_id and link_id");
	nf = realloc(cm->fails, (cm->nfails + 1) * sizeof(*nf));
	if (!nf)
		return fail(r, "out of memory");
	cm->fails = nf;
	cm->fails[cm->nfails++] = f;
	return 0;
}

int ht_cm_load(const char *path, struct ht_cm *cm)
{
	struct reader r = { .path = path };
	uint32_t want_conns = 0, want_trigs = 0, ntrigs = 0, want_fails = 0;
	bool have_conns = false;
	int ret;

	memset(cm, 0, sizeof(*cm));
	r.f = fopen(path, "r");
	if (!r.f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((ret = next_line(&r)) > 0) {
		const char *k = r.tok[0];
		char *arrow = strstr(r.tok[0], "->");

		if (arrow) {
			ret = parse_conn(&r, cm, arrow);
		} else if (!strcmp(k, "trigger")) {
			ret = parse_trigger(&r, cm, &ntrigs);
		} else if (!strcmp(k, "failure")) {
			ret = parse_failure(&r, cm);
		} else if (r.ntok == 2 && !strcmp(k, "Failures")) {
			ret = get_u32(&r, r.tok[1], &want_fails);
		} else if (r.ntok == 2 && !strcmp(k, "Nodes")) {
			ret = get_u32(&r, r.tok[1], &cm->nodes);
		} else if (r.ntok == 2 && !strcmp(k, "Connections")) {
			ret = get_u32(&r, r.tok[1], &want_conns);
			have_conns = true;
		} else if (r.ntok == 2 && !strcmp(k, "Triggers")) {
			ret = get_u32(&r, r.tok[1], &want_trigs);
		} else {
			ret = fail(&r, "unknown line \"%s\"", k);
		}
		if (ret < 0)
			break;
		ret = 1;
	}
	fclose(r.f);
	if (ret < 0)
		goto bad;
	if (!cm->nodes) {
		fail(&r, "no \"Nodes\" line");
		goto bad;
	}
	if (!have_conns || want_conns != cm->nconns) {
		fail(&r, "\"Connections %u\", but %u flows", want_conns,
		     cm->nconns);
		goto bad;
	}
	if (want_fails != cm->nfails) {
		fail(&r, "\"Failures %u\", but %u failures", want_fails,
		     cm->nfails);
		goto bad;
	}
	if (want_trigs != ntrigs) {
		fail(&r, "\"Triggers %u\", but %u triggers", want_trigs,
		     ntrigs);
		goto bad;
	}
	for (uint32_t i = 0; i < cm->ntrigs; i++) {
		if (cm->trigs[i].kind == HT_TRIG_NONE) {
			fail(&r, "trigger %u is named but not defined",
			     cm->trigs[i].id);
			goto bad;
		}
		if (cm->trigs[i].kind == HT_TRIG_BARRIER &&
		    !cm->trigs[i].count) {
			fail(&r, "barrier %u needs a count", cm->trigs[i].id);
			goto bad;
		}
	}
	for (uint32_t i = 0; i < cm->nconns; i++) {
		if (cm->conns[i].src >= cm->nodes ||
		    cm->conns[i].dst >= cm->nodes) {
			fail(&r, "flow %u->%u: only %u nodes",
			     cm->conns[i].src, cm->conns[i].dst, cm->nodes);
			goto bad;
		}
	}
	return 0;
bad:
	ht_cm_free(cm);
	return -1;
}

void ht_cm_free(struct ht_cm *cm)
{
	free(cm->conns);
	free(cm->trigs);
	free(cm->fails);
	memset(cm, 0, sizeof(*cm));
}
