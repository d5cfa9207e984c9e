// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the device's counters, per QP and in counter sets
 * (WREN_CAP_COUNTER_SETS).
 *
 * Each QP-scope event (linux/wren/wren_stats.h) is counted, at the cost
 * of one more increment, in the account of the QP it concerns as well as
 * in the totals: the transport does it for its own counters, since every
 * message names its QP at each end (wren_tp_set_accounts()), and the
 * engine for its group (WENG_COUNT_QP()).  Sets are not counted into at
 * all: they are derived from the accounts when read (struct
 * weng_counter_set), so binding a QP costs nothing on the data path, a
 * QP's events count in its set from the moment it is bound, messages in
 * flight included, and the default set gets whatever no allocated set
 * holds: events of QPs bound to it, and events no QP could be named for
 * (a packet naming a QP number beyond the table).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

int weng_counter_init(struct weng *e)
{
	if (e->cfg.max_counter_set < 1 ||
	    e->cfg.max_counter_set > WENG_MAX_COUNTER_SETS)
		return -EINVAL;
	e->acct_n = WREN_QPN_FIRST + e->cfg.max_qp;
	e->tp_acct = calloc(e->acct_n, sizeof(*e->tp_acct));
	e->eng_acct = calloc(e->acct_n, sizeof(*e->eng_acct));
	e->csets = calloc(e->cfg.max_counter_set, sizeof(*e->csets));
	if (!e->tp_acct || !e->eng_acct || !e->csets)
		return -ENOMEM;
	return 0;
}

void weng_counter_fini(struct weng *e)
{
	free(e->tp_acct);
	free(e->eng_acct);
	free(e->csets);
	e->tp_acct = NULL;
	e->eng_acct = NULL;
	e->csets = NULL;
	e->acct_n = 0;
}

/*
 * Every set freed, every account zeroed, with the transport's totals,
 * which a reset starts again from zero (weng_reset()).
 */
void weng_counter_reset(struct weng *e)
{
	if (!e->csets)
		return;
	memset(e->tp_acct, 0, e->acct_n * sizeof(*e->tp_acct));
	memset(e->eng_acct, 0, e->acct_n * sizeof(*e->eng_acct));
	memset(e->csets, 0, e->cfg.max_counter_set * sizeof(*e->csets));
	memset(&e->eng_stats, 0, sizeof(e->eng_stats));
	memset(e->cset_retired, 0, sizeof(e->cset_retired));
}

/*
 * A new QP numbered @qpn starts its counters from zero.  Events that
 * reached the number while no QP had it are in the totals and no set's
 * account: the default set's, as they should be.
 */
void weng_counter_qp_new(struct weng *e, uint32_t qpn)
{
	if (qpn >= e->acct_n)
		return;
	memset(&e->tp_acct[qpn], 0, sizeof(e->tp_acct[qpn]));
	memset(&e->eng_acct[qpn], 0, sizeof(e->eng_acct[qpn]));
}

/* QP number @qpn's account, as a GET_STATS array (PORT entries zero). */
static void qp_counts(const struct weng *e, uint32_t qpn, uint64_t *v)
{
	const struct wren_tp_stats *t = &e->tp_acct[qpn];
	const struct weng_eng_stats *g = &e->eng_acct[qpn];

	memset(v, 0, WREN_STAT_COUNT * sizeof(*v));
#define WREN_STAT(counter)
#define WREN_STAT_QP(counter)	v[WREN_STAT_##counter] = t->counter;
#define WREN_ENG_STAT(counter)
#define WREN_ENG_STAT_QP(counter)	v[WREN_STAT_##counter] = g->counter;
#include "linux/wren/wren_stats.h"
#undef WREN_ENG_STAT_QP
#undef WREN_ENG_STAT
#undef WREN_STAT_QP
#undef WREN_STAT
}

/* The totals: the transport's, the Ethernet function's, the engine's. */
static void totals(const struct weng *e, uint64_t *v)
{
	struct wren_tp_stats t;

	memset(&t, 0, sizeof(t));
	if (e->tp)
		wren_tp_get_stats(e->tp, &t);
#define WREN_STAT(counter)	v[WREN_STAT_##counter] = t.counter;
#define WREN_ETH_STAT(counter)	v[WREN_STAT_##counter] = e->eth_stats.counter;
#define WREN_ENG_STAT(counter)	\
	v[WREN_STAT_##counter] = e->eng_stats.counter;
#include "linux/wren/wren_stats.h"
#undef WREN_ENG_STAT
#undef WREN_ETH_STAT
#undef WREN_STAT
}

static bool set_allocated(const struct weng *e, uint32_t set)
{
	return set && set < e->cfg.max_counter_set && e->csets[set].in_use;
}

static void add(uint64_t *to, const uint64_t *v)
{
	for (unsigned int i = 0; i < WREN_STAT_COUNT; i++)
		to[i] += v[i];
}

static void sub(uint64_t *from, const uint64_t *v)
{
	for (unsigned int i = 0; i < WREN_STAT_COUNT; i++)
		from[i] -= v[i];
}

/*
 * What the allocated sets hold: set @set's counts, or with @set 0 the
 * sum of every allocated set's.
 */
static void sets_held(struct weng *e, uint32_t set, uint64_t *v)
{
	uint64_t q[WREN_STAT_COUNT];

	memset(v, 0, WREN_STAT_COUNT * sizeof(*v));
	for (uint32_t s = 1; s < e->cfg.max_counter_set; s++)
		if (e->csets[s].in_use && (!set || s == set))
			add(v, e->csets[s].base);
	for (uint32_t i = 0; i < e->cfg.max_qp; i++) {
		const struct weng_qp *qp = &e->qps[i];

		if (!qp->in_use || !qp->counter_set ||
		    (set && qp->counter_set != set))
			continue;
		qp_counts(e, weng_qpn(e, qp), q);
		add(v, q);
	}
}

/**
 * weng_counter_read() - the counters of a set, or the totals
 * @e: the engine
 * @set: an allocated set, 0 for the default set, or WENG_STATS_TOTALS
 * @v: WREN_STAT_COUNT counters, in GET_STATS's order
 *
 * A set holds the QP-scope counters of the QPs bound to it; the default
 * set, the totals less every allocated set and those freed, and the
 * totals of the PORT-scope counters, which allocated sets hold at zero.
 *
 * Return: 0, or -ENOENT if @set is not allocated.
 */
int weng_counter_read(struct weng *e, uint32_t set, uint64_t *v)
{
	uint64_t held[WREN_STAT_COUNT];

	if (set != WENG_STATS_TOTALS && set) {
		if (!set_allocated(e, set))
			return -ENOENT;
		sets_held(e, set, v);
		return 0;
	}
	totals(e, v);
	if (set == WENG_STATS_TOTALS)
		return 0;
	sets_held(e, 0, held);
	add(held, e->cset_retired);
	sub(v, held);
	return 0;
}

/* A new set, its counters at zero: 0, or -ENOSPC. */
int weng_counter_alloc(struct weng *e, uint32_t *set)
{
	for (uint32_t s = 1; s < e->cfg.max_counter_set; s++) {
		if (e->csets[s].in_use)
			continue;
		memset(&e->csets[s], 0, sizeof(e->csets[s]));
		e->csets[s].in_use = true;
		*set = s;
		return 0;
	}
	return -ENOSPC;
}

/* 0; -ENOENT if @set is not allocated, -EBUSY while a QP is bound to it. */
int weng_counter_free(struct weng *e, uint32_t set)
{
	struct weng_counter_set *cs;

	if (!set_allocated(e, set))
		return -ENOENT;
	cs = &e->csets[set];
	if (cs->refs)
		return -EBUSY;
	/* No QP: what it holds is its base, which the default set loses. */
	add(e->cset_retired, cs->base);
	memset(cs, 0, sizeof(*cs));
	return 0;
}

/*
 * Bind @qp to @set (0: the default set): 0, or -ENOENT if @set is not
 * allocated.  Its account so far stays where it was counted.
 */
int weng_counter_bind(struct weng *e, struct weng_qp *qp, uint32_t set)
{
	uint64_t q[WREN_STAT_COUNT];

	if (set && !set_allocated(e, set))
		return -ENOENT;
	if (set == qp->counter_set)
		return 0;
	qp_counts(e, weng_qpn(e, qp), q);
	if (qp->counter_set) {
		add(e->csets[qp->counter_set].base, q);
		e->csets[qp->counter_set].refs--;
	}
	if (set) {
		sub(e->csets[set].base, q);
		e->csets[set].refs++;
	}
	qp->counter_set = set;
	return 0;
}
