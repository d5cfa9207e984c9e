// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What a path does to a frame entering it.
 *
 * Determinism: each impairment of each path draws from a stream of its
 * own (seed, path, impairment), and draws exactly once per frame
 * entering the path whenever its probability is not zero, whatever the
 * frame's fate otherwise.  So the n-th frame entering path p is lost,
 * duplicated or held back as a function of (seed, p, n) only: turning on
 * a black hole, another impairment or another path's settings does not
 * move any other decision.  Only black holes (wall-clock windows) and the
 * queue limit (load) depend on timing.
 */
#include "fabric.h"

enum { S_LOSS, S_BURST, S_DUP, S_REORDER, S_PER_PATH };

void impair_init(struct path *p, const struct path_cfg *c, uint64_t seed,
		 uint32_t index)
{
	uint64_t base = (uint64_t)index * S_PER_PATH;

	p->c = *c;
	rng_seed(&p->r_loss, seed, base + S_LOSS);
	rng_seed(&p->r_burst, seed, base + S_BURST);
	rng_seed(&p->r_dup, seed, base + S_DUP);
	rng_seed(&p->r_reorder, seed, base + S_REORDER);
	p->ge_bad = false;
}

static bool in_blackhole(const struct fab_cfg *cfg, uint32_t index,
			 uint64_t t)
{
	uint32_t i;

	for (i = 0; i < cfg->nbh; i++) {
		const struct blackhole *b = &cfg->bh[i];

		if (b->path == index && t >= b->from_ns && t < b->until_ns)
			return true;
	}
	return false;
}

void impair_decide(struct path *p, uint32_t index, const struct fab_cfg *cfg,
		   uint64_t since_start_ns, struct verdict *v)
{
	const struct path_cfg *c = &p->c;
	bool lost, burst_lost = false;

	/* Every draw first, so that none depends on another's outcome. */
	lost = rng_chance(&p->r_loss, c->loss);
	if (c->ge_enter > 0) {
		/* Move, then send in the new state: a burst starts now. */
		if (p->ge_bad)
			p->ge_bad = !rng_chance(&p->r_burst, c->ge_exit);
		else
			p->ge_bad = rng_chance(&p->r_burst, c->ge_enter);
		/* One draw per frame in either state keeps the count fixed. */
		burst_lost = rng_unit(&p->r_burst) < c->ge_loss && p->ge_bad;
	}
	v->dup = rng_chance(&p->r_dup, c->dup);
	v->reordered = rng_chance(&p->r_reorder, c->reorder);

	v->delay_ns = c->delay_ns + (v->reordered ? c->reorder_ns : 0);
	if (in_blackhole(cfg, index, since_start_ns))
		v->drop = DROP_BLACKHOLE;
	else if (lost)
		v->drop = DROP_LOSS;
	else if (burst_lost)
		v->drop = DROP_BURST;
	else
		v->drop = DROP_NONE;
}
