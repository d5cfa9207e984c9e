// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Scenario files and the key table.  A file is
 *
 *	# comment
 *	[scenario]
 *	key = value		base keys, for every run
 *	[run NAME]
 *	key = value		this run only
 *
 * Values take units: sizes 4K/4KiB/1M/1MiB (powers of two), times
 * 500ns/10us/2ms/1s (bare numbers are ns), rates in Gb/s (100 or 100G).
 * Every error names the file and line (or --set) of the offending key.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario.h"

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d) {
		perror("netsim");
		exit(2);
	}
	return d;
}

void kv_set(struct kvlist *l, const char *key, const char *val,
	    const char *where)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		if (!strcmp(l->v[i].key, key)) {
			free(l->v[i].val);
			free(l->v[i].where);
			l->v[i].val = xstrdup(val);
			l->v[i].where = xstrdup(where);
			return;
		}
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		if (!l->v) {
			perror("netsim");
			exit(2);
		}
	}
	l->v[l->n].key = xstrdup(key);
	l->v[l->n].val = xstrdup(val);
	l->v[l->n].where = xstrdup(where);
	l->n++;
}

void kv_free(struct kvlist *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].val);
		free(l->v[i].where);
	}
	free(l->v);
	*l = (struct kvlist){ 0 };
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

int scenario_load(struct scenario *sc, const char *path)
{
	FILE *f = fopen(path, "r");
	struct kvlist *cur = NULL;
	char line[1024], where[600];
	int lineno = 0, errs = 0;

	*sc = (struct scenario){ .path = path };
	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s = trim(line), *eq;

		lineno++;
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		if (!*s || *s == '#' || *s == ';')
			continue;
		if (*s == '[') {
			char *e = strchr(s, ']');

			if (!e || e[1]) {
				fprintf(stderr, "%s: bad section line\n",
					where);
				errs++;
				continue;
			}
			*e = 0;
			s = trim(s + 1);
			if (!strcmp(s, "scenario")) {
				cur = &sc->base;
			} else if (!strncmp(s, "run ", 4) &&
				   *trim(s + 4)) {
				uint32_t i;

				s = trim(s + 4);
				for (i = 0; i < sc->nruns; i++)
					if (!strcmp(sc->run_names[i], s))
						break;
				if (i < sc->nruns) {
					fprintf(stderr, "%s: run \"%s\" "
						"again\n", where, s);
					errs++;
				}
				sc->run_names = realloc(sc->run_names,
					(sc->nruns + 1) * sizeof(char *));
				sc->runs = realloc(sc->runs,
					(sc->nruns + 1) * sizeof(*sc->runs));
				if (!sc->run_names || !sc->runs) {
					perror("netsim");
					exit(2);
				}
				sc->run_names[sc->nruns] = xstrdup(s);
				sc->runs[sc->nruns] = (struct kvlist){ 0 };
				cur = &sc->runs[sc->nruns++];
			} else {
				fprintf(stderr, "%s: unknown section [%s] "
					"(want [scenario] or [run NAME])\n",
					where, s);
				errs++;
				cur = NULL;
			}
			continue;
		}
		eq = strchr(s, '=');
		if (!eq) {
			fprintf(stderr, "%s: expected key = value\n", where);
			errs++;
			continue;
		}
		*eq = 0;
		if (!cur) {
			fprintf(stderr, "%s: key outside a section\n", where);
			errs++;
			continue;
		}
		kv_set(cur, trim(s), trim(eq + 1), where);
	}
	fclose(f);
	if (!errs && !sc->nruns) {
		/* A file of base keys alone is one run. */
		sc->run_names = malloc(sizeof(char *));
		sc->runs = calloc(1, sizeof(*sc->runs));
		sc->run_names[0] = xstrdup("default");
		sc->nruns = 1;
	}
	return errs ? -1 : 0;
}

void scenario_free(struct scenario *sc)
{
	uint32_t i;

	kv_free(&sc->base);
	for (i = 0; i < sc->nruns; i++) {
		kv_free(&sc->runs[i]);
		free(sc->run_names[i]);
	}
	free(sc->runs);
	free(sc->run_names);
}

/* Values */

static int parse_num(const char *s, double *v, const char **unit)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	if (end == s || errno || !isfinite(*v) || *v < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	*unit = end;
	return 0;
}

struct unit {
	const char *name;
	double mul;
};

/* A number with one of @units after it, scaled; -1 if it has none. */
static int parse_scaled(const char *s, const struct unit *units, size_t n,
			double *v)
{
	const char *u;

	if (parse_num(s, v, &u))
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (!strcmp(u, units[i].name)) {
			*v *= units[i].mul;
			return *v > 1.8e19 ? -1 : 0;
		}
	}
	return -1;
}

int parse_time_ps(const char *s, uint64_t *ps)
{
	static const struct unit units[] = {
		{ "", 1e3 }, { "ps", 1 }, { "ns", 1e3 }, { "us", 1e6 },
		{ "ms", 1e9 }, { "s", 1e12 },
	};
	double v;

	if (parse_scaled(s, units, sizeof(units) / sizeof(units[0]), &v))
		return -1;
	*ps = (uint64_t)llround(v);
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	static const struct unit units[] = {
		{ "", 1 }, { "B", 1 }, { "K", 1024 }, { "KiB", 1024 },
		{ "M", 1048576 }, { "MiB", 1048576 }, { "G", 1073741824 },
		{ "GiB", 1073741824 },
	};
	double v;

	if (parse_scaled(s, units, sizeof(units) / sizeof(units[0]), &v) ||
	    v != floor(v))
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* The key table */

enum ktype {
	K_U32,		/* size or count, uint32_t */
	K_U64,		/* size or count, uint64_t */
	K_TIME,		/* picoseconds, uint64_t */
	K_NS,		/* nanoseconds, uint64_t (the transport's unit) */
	K_RATE,		/* Gb/s in, Mb/s stored as uint32_t */
	K_PROB,		/* double in [0, 1] */
	K_DOUBLE,
	K_BOOL,
	K_ENUM,		/* uint32_t/enum index into choices */
	K_U8ENUM,	/* uint8_t index into choices */
	K_TIMES,	/* comma-separated times: path_delay */
	K_STR,		/* documentation only */
	K_PATH,		/* a file name, char[256] */
};

struct key {
	const char *name;
	enum ktype type;
	size_t off;
	const char *def;	/* NULL: leave as is (tp.* defaults) */
	const char *const *choices;
};

static const char *const topo_names[] = {
	"back2back", "parallel", "leafspine", "star", "fattree", "htsim", NULL
};
static const char *const app_names[] = {
	"stream", "incast", "permutation", "roundrobin", "pingpong",
	"openloop", "matrix", NULL
};
static const char *const xport_names[] = { "wren", "gbn", "ndp", "uet",
					   NULL };
static const char *const gbn_cc_names[] = { "aimd", "dcqcn", "swift", NULL };
static const char *const gbn_rec_names[] = { "gbn", "irn", NULL };
static const char *const mode_names[] = { "optimistic", "handshake", NULL };

#define C(f) offsetof(struct cfg, f)
#define T(f) (offsetof(struct cfg, tp) + offsetof(struct wren_tp_config, f))
#define G(f) (offsetof(struct cfg, gbn) + offsetof(struct gbn_config, f))
#define N(f) (offsetof(struct cfg, ndp) + offsetof(struct ndp_config, f))
#define U(f) (offsetof(struct cfg, uet) + offsetof(struct uet_config, f))
#define I(f) (offsetof(struct cfg, imp) + offsetof(struct imp, f))

static const struct key keys[] = {
	{ "description", K_STR, 0, "", NULL },
	{ "seed", K_U64, C(seed), "1", NULL },
	{ "topology", K_ENUM, C(topo), "back2back", topo_names },
	{ "hosts", K_U32, C(hosts), "0", NULL },
	{ "leaves", K_U32, C(leaves), "2", NULL },
	{ "hosts_per_leaf", K_U32, C(hosts_per_leaf), "4", NULL },
	{ "spines", K_U32, C(spines), "4", NULL },
	{ "ft.k", K_U32, C(ft_k), "4", NULL },
	{ "ft.os_edge", K_DOUBLE, C(ft_os_edge), "1", NULL },
	{ "ft.os_agg", K_DOUBLE, C(ft_os_agg), "1", NULL },
	{ "paths", K_U32, C(paths), "2", NULL },
	{ "path_delay", K_TIMES, 0, "", NULL },
	{ "rate", K_RATE, C(rate_mbps), "100", NULL },
	{ "fabric_rate", K_RATE, C(fabric_rate_mbps), "0", NULL },
	{ "delay", K_TIME, C(delay_ps), "500ns", NULL },
	{ "mtu", K_U32, C(mtu), "4096", NULL },
	{ "sw.buffer", K_U32, C(sw_buffer), "1M", NULL },
	{ "sw.ecn", K_U32, C(sw_ecn), "0", NULL },
	{ "sw.trim", K_BOOL, C(sw_trim), "0", NULL },
	{ "sw.hdr_buffer", K_U32, C(sw_hdr_buffer), "64K", NULL },
	{ "sw.prio_ctrl", K_BOOL, C(sw_prio_ctrl), "0", NULL },
	{ "sw.ecn_downlink", K_BOOL, C(sw_ecn_downlink), "1", NULL },
	{ "sw.prio_data", K_BOOL, C(sw_prio_data), "0", NULL },
	{ "sw.kmin", K_U32, C(sw_kmin), "0", NULL },
	{ "sw.kmax", K_U32, C(sw_kmax), "0", NULL },
	{ "sw.pmax", K_PROB, C(sw_pmax), "0.01", NULL },
	{ "sw.pfc", K_BOOL, C(sw_pfc), "0", NULL },
	{ "sw.pfc_xoff", K_U32, C(sw_pfc_xoff), "64K", NULL },
	{ "sw.pfc_xon", K_U32, C(sw_pfc_xon), "32K", NULL },
	{ "sw.pfc_headroom", K_U32, C(sw_pfc_headroom), "0", NULL },
	{ "sw.qhist", K_U32, C(sw_qhist), "0", NULL },
	{ "loss", K_PROB, I(loss), "0", NULL },
	{ "p_gb", K_PROB, I(p_gb), "0", NULL },
	{ "p_bg", K_PROB, I(p_bg), "0", NULL },
	{ "bad_loss", K_PROB, I(bad_loss), "0", NULL },
	{ "dup", K_PROB, I(dup), "0", NULL },
	{ "extra_delay", K_TIME, I(extra_ps), "0", NULL },
	{ "transport", K_ENUM, C(xport), "wren", xport_names },
	{ "tp.window", K_U32, T(window), NULL, NULL },
	{ "tp.subflows", K_U32, T(subflows), NULL, NULL },
	{ "tp.repath", K_BOOL, T(repath), NULL, NULL },
	{ "tp.max_ctx", K_U32, T(max_ctx), NULL, NULL },
	{ "tp.max_rx_ctx", K_U32, T(max_rx_ctx), NULL, NULL },
	{ "tp.max_msgs", K_U32, T(max_msgs), NULL, NULL },
	{ "tp.init_rto_ns", K_NS, T(init_rto_ns), NULL, NULL },
	{ "tp.min_rto_ns", K_NS, T(min_rto_ns), NULL, NULL },
	{ "tp.max_rto_ns", K_NS, T(max_rto_ns), NULL, NULL },
	{ "tp.max_retries", K_U32, T(max_retries), NULL, NULL },
	{ "tp.dupthresh", K_U32, T(dupthresh), NULL, NULL },
	{ "tp.ack_every", K_U32, T(ack_every), NULL, NULL },
	{ "tp.ack_delay_ns", K_NS, T(ack_delay_ns), NULL, NULL },
	{ "tp.cc_target_ns", K_NS, T(cc_target_ns), NULL, NULL },
	{ "tp.cc_init_cwnd", K_U32, T(cc_init_cwnd), NULL, NULL },
	{ "tp.cc_min_cwnd", K_U32, T(cc_min_cwnd), NULL, NULL },
	{ "tp.cc_max_cwnd", K_U32, T(cc_max_cwnd), NULL, NULL },
	{ "tp.cc_ai", K_U32, T(cc_ai), NULL, NULL },
	{ "tp.cc_beta", K_U32, T(cc_beta), NULL, NULL },
	{ "tp.cc_max_mdf", K_U32, T(cc_max_mdf), NULL, NULL },
	{ "tp.grant_threshold", K_U32, T(grant_threshold), NULL, NULL },
	{ "tp.grant_window", K_U32, T(grant_window), NULL, NULL },
	{ "tp.grant_chunk", K_U32, T(grant_chunk), NULL, NULL },
	{ "tp.idle_ns", K_NS, T(idle_ns), NULL, NULL },
	{ "tp.mpl_ns", K_NS, T(mpl_ns), NULL, NULL },
	{ "tp.prio_short", K_U32, T(prio_short), NULL, NULL },
	{ "gbn.cc", K_ENUM, G(cc), "aimd", gbn_cc_names },
	{ "gbn.recovery", K_ENUM, G(recovery), "gbn", gbn_rec_names },
	{ "gbn.bdp_cap", K_U32, G(bdp_cap), "64", NULL },
	{ "ndp.iw", K_U32, N(iw), "24", NULL },
	{ "ndp.rto", K_NS, N(rto_ns), "200us", NULL },
	{ "uet.nscc", K_BOOL, U(nscc), "1", NULL },
	{ "uet.rccc", K_BOOL, U(rccc), "1", NULL },
	{ "uet.evs", K_U32, U(evs), "64", NULL },
	{ "uet.rtt", K_NS, U(rtt_ns), "0", NULL },
	{ "uet.target", K_NS, U(target_ns), "0", NULL },
	{ "uet.rto", K_NS, U(rto_ns), "0", NULL },
	{ "uet.ack_bytes", K_U32, U(ack_bytes), "16K", NULL },
	{ "uet.pull_bytes", K_U32, U(pull_bytes), "16K", NULL },
	{ "uet.maxwnd", K_DOUBLE, U(maxwnd), "1.5", NULL },
	{ "gbn.rto_low", K_NS, G(rto_low_ns), "100us", NULL },
	{ "gbn.rto_low_n", K_U32, G(rto_low_n), "3", NULL },
	{ "gbn.window", K_U32, G(window), "256K", NULL },
	{ "gbn.min_window", K_U32, G(min_window), "8K", NULL },
	{ "gbn.ai", K_U32, G(ai), "4K", NULL },
	{ "gbn.md", K_U32, G(md), "128", NULL },
	{ "gbn.ack_every", K_U32, G(ack_every), "8", NULL },
	{ "gbn.rto_ns", K_NS, G(rto_ns), "100us", NULL },
	{ "gbn.g", K_DOUBLE, G(g), "0.00390625", NULL },
	{ "gbn.cnp_interval", K_NS, G(cnp_ns), "50us", NULL },
	{ "gbn.alpha_timer", K_NS, G(alpha_ns), "55us", NULL },
	{ "gbn.rate_timer", K_NS, G(rate_ns), "55us", NULL },
	{ "gbn.byte_counter", K_U64, G(byte_counter), "10000000", NULL },
	{ "gbn.fast_recovery", K_U32, G(fast_recovery), "5", NULL },
	{ "gbn.rai", K_RATE, G(rai_mbps), "0.04", NULL },
	{ "gbn.rhai", K_RATE, G(rhai_mbps), "0.2", NULL },
	{ "gbn.min_rate", K_RATE, G(min_rate_mbps), "0.1", NULL },
	{ "gbn.swift_target", K_NS, G(sw_target_ns), "10us", NULL },
	{ "gbn.swift_fs_range", K_NS, G(sw_fs_range_ns), "10us", NULL },
	{ "gbn.swift_fs_min", K_DOUBLE, G(sw_fs_min), "1", NULL },
	{ "gbn.swift_fs_max", K_DOUBLE, G(sw_fs_max), "64", NULL },
	{ "gbn.swift_ai", K_DOUBLE, G(sw_ai), "1", NULL },
	{ "gbn.swift_beta", K_DOUBLE, G(sw_beta), "0.8", NULL },
	{ "gbn.swift_max_mdf", K_DOUBLE, G(sw_max_mdf), "0.5", NULL },
	{ "gbn.swift_init", K_DOUBLE, G(sw_init), "24", NULL },
	{ "app", K_ENUM, C(app), "stream", app_names },
	{ "msg_size", K_U32, C(msg_size), "64K", NULL },
	{ "outstanding", K_U32, C(outstanding), "0", NULL },
	{ "msgs", K_U64, C(msgs), "0", NULL },
	{ "flows", K_U32, C(flows), "1", NULL },
	{ "senders", K_U32, C(senders), "8", NULL },
	{ "peers", K_U32, C(peers), "16", NULL },
	{ "rounds", K_U32, C(rounds), "1", NULL },
	{ "load", K_PROB, C(load), "0.5", NULL },
	{ "cdf", K_PATH, C(cdf), "", NULL },
	{ "htsim.topo", K_PATH, C(htsim_topo), "", NULL },
	{ "htsim.cm", K_PATH, C(htsim_cm), "", NULL },
	{ "mode", K_U8ENUM, C(mode), "optimistic", mode_names },
	{ "ordered", K_BOOL, C(ordered), "0", NULL },
	{ "duration", K_TIME, C(duration_ps), "0", NULL },
	{ "warmup", K_TIME, C(warmup_ps), "0", NULL },
	{ "drain", K_TIME, C(drain_ps), "0", NULL },
	{ "max_time", K_TIME, C(max_time_ps), "1s", NULL },
	{ "bin", K_TIME, C(bin_ps), "10us", NULL },
	{ "recover_pct", K_DOUBLE, C(recover_pct), "90", NULL },
	{ "allow_stall", K_BOOL, C(allow_stall), "0", NULL },
	{ "wall_limit", K_U32, C(wall_limit), "0", NULL },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* Per-link keys: link.NAME.ATTR. */
static const struct key link_keys[] = {
	{ "loss", K_PROB, offsetof(struct imp, loss), NULL, NULL },
	{ "p_gb", K_PROB, offsetof(struct imp, p_gb), NULL, NULL },
	{ "p_bg", K_PROB, offsetof(struct imp, p_bg), NULL, NULL },
	{ "bad_loss", K_PROB, offsetof(struct imp, bad_loss), NULL, NULL },
	{ "dup", K_PROB, offsetof(struct imp, dup), NULL, NULL },
	{ "extra_delay", K_TIME, offsetof(struct imp, extra_ps), NULL, NULL },
	{ "down", K_TIME, offsetof(struct imp, down_ps), NULL, NULL },
	{ "up", K_TIME, offsetof(struct imp, up_ps), NULL, NULL },
	{ "rate", K_RATE, offsetof(struct imp, rate_mbps), NULL, NULL },
	{ "delay", K_TIME, offsetof(struct imp, delay_ps), NULL, NULL },
};

static int set_value(void *base, const struct key *k, const char *val,
		     const char *where, struct cfg *c)
{
	char *p = (char *)base + k->off;
	uint64_t u;
	double d;
	const char *unit;
	int i;

	switch (k->type) {
	case K_STR:
		return 0;
	case K_PATH:
		if (strlen(val) >= sizeof(c->cdf))
			goto bad;
		strcpy(p, val);
		return 0;
	case K_U32:
		if (parse_size(val, &u) || u > UINT32_MAX)
			goto bad;
		*(uint32_t *)p = (uint32_t)u;
		return 0;
	case K_U64:
		if (parse_size(val, &u))
			goto bad;
		*(uint64_t *)p = u;
		return 0;
	case K_TIME:
		if (parse_time_ps(val, &u))
			goto bad;
		*(uint64_t *)p = u;
		return 0;
	case K_NS:
		if (parse_time_ps(val, &u))
			goto bad;
		*(uint64_t *)p = u / 1000;
		return 0;
	case K_RATE:
		if (parse_num(val, &d, &unit) ||
		    (*unit && strcmp(unit, "G") && strcmp(unit, "Gb/s")) ||
		    d * 1000 > UINT32_MAX)
			goto bad;
		*(uint32_t *)p = (uint32_t)llround(d * 1000);
		return 0;
	case K_PROB:
	case K_DOUBLE:
		if (parse_num(val, &d, &unit) || *unit ||
		    (k->type == K_PROB && d > 1))
			goto bad;
		*(double *)p = d;
		return 0;
	case K_BOOL:
		if (!strcmp(val, "1") || !strcmp(val, "yes") ||
		    !strcmp(val, "true") || !strcmp(val, "on"))
			*(bool *)p = true;
		else if (!strcmp(val, "0") || !strcmp(val, "no") ||
			 !strcmp(val, "false") || !strcmp(val, "off"))
			*(bool *)p = false;
		else
			goto bad;
		return 0;
	case K_ENUM:
	case K_U8ENUM:
		for (i = 0; k->choices[i]; i++) {
			if (!strcmp(val, k->choices[i])) {
				if (k->type == K_ENUM)
					*(uint32_t *)p = (uint32_t)i;
				else
					*(uint8_t *)p = (uint8_t)i;
				return 0;
			}
		}
		fprintf(stderr, "%s: %s: \"%s\" is not one of", where, k->name,
			val);
		for (i = 0; k->choices[i]; i++)
			fprintf(stderr, " %s", k->choices[i]);
		fprintf(stderr, "\n");
		return -1;
	case K_TIMES: {
		char *dup = xstrdup(val), *save = NULL, *tok;

		c->npath_delay = 0;
		for (tok = strtok_r(dup, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			if (c->npath_delay == MAX_PATHS ||
			    parse_time_ps(trim(tok), &u)) {
				free(dup);
				goto bad;
			}
			c->path_delay_ps[c->npath_delay++] = u;
		}
		free(dup);
		return 0;
	}
	}
bad:
	fprintf(stderr, "%s: %s: bad value \"%s\"\n", where, k->name, val);
	return -1;
}

static const struct key *find_key(const char *name)
{
	size_t i;

	/* rxtp.X is tp.X for the hosts that only receive. */
	if (!strncmp(name, "rxtp.", 5)) {
		char tpname[64];

		snprintf(tpname, sizeof(tpname), "tp.%s", name + 5);
		return find_key(tpname);
	}

	for (i = 0; i < NKEYS; i++)
		if (!strcmp(keys[i].name, name))
			return &keys[i];
	return NULL;
}

static int set_link_key(struct cfg *c, const struct kv *kv)
{
	const char *name = kv->key + 5, *dot = strrchr(name, '.');
	size_t nlen, i;
	uint32_t j;

	if (!dot || dot == name) {
		fprintf(stderr, "%s: %s: want link.NAME.ATTR\n", kv->where,
			kv->key);
		return -1;
	}
	nlen = (size_t)(dot - name);
	if (nlen >= sizeof(c->lo[0].name)) {
		fprintf(stderr, "%s: %s: link name too long\n", kv->where,
			kv->key);
		return -1;
	}
	for (j = 0; j < c->nlo; j++)
		if (strlen(c->lo[j].name) == nlen &&
		    !strncmp(c->lo[j].name, name, nlen))
			break;
	if (j == c->nlo) {
		c->lo = realloc(c->lo, (c->nlo + 1) * sizeof(*c->lo));
		if (!c->lo) {
			perror("netsim");
			exit(2);
		}
		memset(&c->lo[j], 0, sizeof(c->lo[j]));
		memcpy(c->lo[j].name, name, nlen);
		c->lo[j].imp = c->imp;
		c->lo[j].where = kv->where;
		c->nlo++;
	}
	for (i = 0; i < sizeof(link_keys) / sizeof(link_keys[0]); i++)
		if (!strcmp(link_keys[i].name, dot + 1))
			return set_value(&c->lo[j].imp, &link_keys[i],
					 kv->val, kv->where, c);
	fprintf(stderr, "%s: unknown link attribute \"%s\" (loss, p_gb, "
		"p_bg, bad_loss, dup, extra_delay, down, up, rate, "
		"delay)\n", kv->where,
		dot + 1);
	return -1;
}

static void merge(struct kvlist *m, const struct kvlist *l)
{
	uint32_t i;

	for (i = 0; l && i < l->n; i++)
		kv_set(m, l->v[i].key, l->v[i].val, l->v[i].where);
}

static int check(struct cfg *c)
{
	const char *why = NULL;

	if (c->topo == TOPO_HTSIM) {
		if (!c->htsim_topo[0]) {
			fprintf(stderr, "netsim: topology htsim needs "
				"htsim.topo\n");
			return -1;
		}
		if (ht_topo_load(c->htsim_topo, &c->ht))
			return -1;
		/*
		 * The file's speeds and latencies replace rate, fabric_rate
		 * and delay: the host links' are what ideals and wire
		 * limits are taken from.
		 */
		c->rate_mbps = c->ht.speed_mbps[0];
		c->fabric_rate_mbps = c->ht.speed_mbps[1];
		c->delay_ps = c->ht.link_ps[0];
	}
	if (!c->fabric_rate_mbps)
		c->fabric_rate_mbps = c->rate_mbps;
	if (c->topo == TOPO_STAR && !c->hosts) {
		if (c->app == APP_INCAST)
			c->hosts = c->senders + 1;
		else if (c->app == APP_ROUNDROBIN)
			c->hosts = c->peers + 1;
		else
			c->hosts = 2;
	}
	if (!c->rate_mbps || !c->fabric_rate_mbps)
		why = "rates must be positive";
	else if (c->mtu < 64 || c->mtu > 65000)
		why = "mtu must be 64..65000";
	else if (c->topo == TOPO_PARALLEL &&
		 (c->paths < 1 || c->paths > MAX_PATHS))
		why = "paths must be 1..16";
	else if (c->topo == TOPO_LEAFSPINE &&
		 (!c->leaves || !c->hosts_per_leaf || !c->spines))
		why = "leaves, hosts_per_leaf and spines must be positive";
	else if (c->topo == TOPO_FATTREE &&
		 (c->ft_k < 2 || c->ft_k % 2 || c->ft_k > 64))
		why = "ft.k must be even, 2..64";
	else if (c->topo == TOPO_FATTREE &&
		 (!(c->ft_os_edge >= 1) || !(c->ft_os_agg >= 1) ||
		  c->fabric_rate_mbps / (c->ft_os_edge * c->ft_os_agg) < 1))
		why = "ft.os_edge and ft.os_agg must be 1 or more (and leave "
		      "the core links 1 Mb/s or more)";
	else if (c->topo == TOPO_STAR && c->hosts < 2)
		why = "a star needs 2 hosts or more";
	else if (c->app == APP_INCAST && c->topo == TOPO_STAR &&
		 c->senders + 1 > c->hosts)
		why = "incast needs senders + 1 hosts";
	else if (c->app == APP_ROUNDROBIN && c->topo == TOPO_STAR &&
		 c->peers + 1 > c->hosts)
		why = "roundrobin needs peers + 1 hosts";
	else if (c->app == APP_MATRIX && !c->htsim_cm[0])
		why = "app matrix needs htsim.cm";
	else if (!c->duration_ps && !c->msgs && c->app != APP_ROUNDROBIN &&
		 c->app != APP_MATRIX)
		why = "set duration or msgs";
	else if (c->app == APP_OPENLOOP &&
		 (!c->duration_ps || !c->cdf[0] || c->load <= 0))
		why = "openloop needs duration, cdf and a load above 0";
	else if (!c->bin_ps)
		why = "bin must be positive";
	else if (c->sw_buffer < c->mtu + 200)
		why = "sw.buffer must hold a packet";
	else if (c->sw_kmax && c->sw_kmin >= c->sw_kmax)
		why = "sw.kmin must be below sw.kmax";
	else if (c->sw_pfc && c->sw_pfc_xon > c->sw_pfc_xoff)
		why = "sw.pfc_xon must not be above sw.pfc_xoff";
	else if (c->sw_pfc && c->sw_trim)
		why = "sw.pfc and sw.trim exclude each other";
	else if (c->gbn.bdp_cap < 1 || c->gbn.bdp_cap > IRN_RING)
		why = "gbn.bdp_cap must be 1..1024";
	else if (c->uet.evs < 1 || c->uet.evs > 4096 ||
		 (c->uet.evs & (c->uet.evs - 1)))
		why = "uet.evs must be a power of 2, 1..4096";
	else if (c->uet.maxwnd <= 0 || !c->uet.ack_bytes || !c->uet.pull_bytes)
		why = "uet.maxwnd, uet.ack_bytes, uet.pull_bytes must be positive";
	if (why) {
		fprintf(stderr, "netsim: %s\n", why);
		return -1;
	}
	return 0;
}

int cfg_build(struct cfg *c, const struct kvlist *base,
	      const struct kvlist *run, const struct kvlist *sets,
	      struct kvlist *merged)
{
	struct kvlist m = { 0 };
	uint32_t i;
	size_t k;
	int errs = 0;

	memset(c, 0, sizeof(*c));
	c->imp.down_ps = NO_TIME;
	c->imp.up_ps = NO_TIME;
	wren_tp_config_defaults(&c->tp);
	for (k = 0; k < NKEYS; k++)
		if (keys[k].def && set_value(c, &keys[k], keys[k].def,
					     "default", c))
			errs++;
	merge(&m, base);
	merge(&m, run);
	merge(&m, sets);
	for (i = 0; i < m.n; i++) {
		const struct key *key = find_key(m.v[i].key);

		if (!strncmp(m.v[i].key, "link.", 5) ||
		    !strncmp(m.v[i].key, "rxtp.", 5))
			continue;
		if (!key) {
			fprintf(stderr, "%s: unknown key \"%s\"\n",
				m.v[i].where, m.v[i].key);
			errs++;
			continue;
		}
		if (set_value(c, key, m.v[i].val, m.v[i].where, c))
			errs++;
	}
	/*
	 * rxtp.* and link.* start from tp.* and the global impairments,
	 * whatever the order of the keys.
	 */
	c->rxtp = c->tp;
	for (i = 0; i < m.n; i++) {
		const struct key *key = find_key(m.v[i].key);

		if (!strncmp(m.v[i].key, "rxtp.", 5) && !key) {
			fprintf(stderr, "%s: unknown key \"%s\"\n",
				m.v[i].where, m.v[i].key);
			errs++;
		} else if (!strncmp(m.v[i].key, "rxtp.", 5) &&
			   set_value((char *)&c->rxtp -
				     offsetof(struct cfg, tp), key,
				     m.v[i].val, m.v[i].where, c)) {
			errs++;
		}
	}
	for (i = 0; i < m.n; i++)
		if (!strncmp(m.v[i].key, "link.", 5) &&
		    set_link_key(c, &m.v[i]))
			errs++;
	if (!errs && check(c))
		errs++;
	/* c->lo[].where points into @m: hand it over. */
	*merged = m;
	return errs ? -1 : 0;
}

void cfg_free(struct cfg *c)
{
	free(c->lo);
	c->lo = NULL;
	c->nlo = 0;
}
