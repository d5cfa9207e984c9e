// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: the table of initiator transport contexts.
 *
 * The adapter holds cfg.max_ctx contexts at once (its context cache, the
 * "slots").  On its own, a context's wire id is its slot.  Once the host
 * hands it a table of records in host memory (wren_tp_set_store()), the
 * table is the contexts' home: a context's wire id is the index of its
 * record, found by hashing (target address, class) and probing a few
 * neighbours, and an idle established context that must leave the cache
 * is written back ("spilled") instead of closed.  The next message to
 * that target reads it back ("restored") and carries on in the same
 * incarnation, with no new handshake, as if it had never left.
 *
 * The adapter trusts the cache, never the table: whether an index is in
 * use is decided by the cache alone, and a record read back is checked
 * before it is used (Documentation/transport.rst, "Context table").
 */
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

#define TP_TC_PROBES		8	/* records looked at per lookup */

static uint32_t id_hash(uint32_t id)
{
	uint32_t x = id * 0x9e3779b1U;

	return x ^ x >> 16;
}

static uint32_t ctx_slot(const struct wren_tp *tp, const struct tp_ctx *c)
{
	return (uint32_t)(c - tp->ctx);
}

int tp_ctx_init_table(struct wren_tp *tp)
{
	uint32_t n = 1;

	while (n < 2 * tp->cfg.max_ctx)
		n <<= 1;
	tp->ctx = calloc(tp->cfg.max_ctx, sizeof(*tp->ctx));
	tp->ctx_hash = malloc(n * sizeof(*tp->ctx_hash));
	tp->id_hash = malloc(n * sizeof(*tp->id_hash));
	tp->epochs = malloc(tp->cfg.max_ctx * sizeof(*tp->epochs));
	if (!tp->ctx || !tp->ctx_hash || !tp->id_hash || !tp->epochs)
		return -ENOMEM;
	tp->ctx_hash_mask = n - 1;
	memset(tp->ctx_hash, 0xff, n * sizeof(*tp->ctx_hash));
	memset(tp->id_hash, 0xff, n * sizeof(*tp->id_hash));
	tp->ctx_free = TP_NONE;
	for (uint32_t i = tp->cfg.max_ctx; i--;) {
		struct tp_ctx *c = &tp->ctx[i];

		c->timer.heap_idx = TP_NONE;
		c->hnext = tp->ctx_free;
		tp->ctx_free = i;
		/* Random first epochs: a restarted adapter is not stale. */
		tp->epochs[i] = tp->env->random(tp->env_opaque);
	}
	return 0;
}

void tp_ctx_free_table(struct wren_tp *tp)
{
	free(tp->ctx);
	free(tp->ctx_hash);
	free(tp->id_hash);
	free(tp->epochs);
}

struct tp_ctx *tp_ctx_find(struct wren_tp *tp, uint32_t ipv4,
			   uint32_t class_id)
{
	uint32_t h = tp_peer_hash(ipv4, class_id) & tp->ctx_hash_mask;
	uint32_t i = tp->ctx_hash[h];

	while (i != TP_NONE) {
		struct tp_ctx *c = &tp->ctx[i];

		if (c->ipv4 == ipv4 && c->class_id == class_id)
			return c;
		i = c->hnext;
	}
	return NULL;
}

struct tp_ctx *tp_ctx_by_id(struct wren_tp *tp, uint32_t id)
{
	uint32_t i = tp->id_hash[id_hash(id) & tp->ctx_hash_mask];

	while (i != TP_NONE) {
		struct tp_ctx *c = &tp->ctx[i];

		if (c->id == id)
			return c;
		i = c->inext;
	}
	return NULL;
}

bool tp_ctx_room(const struct wren_tp *tp)
{
	return tp->ctx_free != TP_NONE || !tp_list_empty(&tp->idle);
}

/* A free slot for a context with wire id @id; the caller made room. */
struct tp_ctx *tp_ctx_take(struct wren_tp *tp, uint32_t id, uint32_t ipv4,
			   uint32_t class_id)
{
	struct tp_ctx *c = &tp->ctx[tp->ctx_free];
	uint32_t slot = tp->ctx_free, h;

	tp->ctx_free = c->hnext;
	tp->ctx_used++;
	c->id = tp->store ? id : slot;
	c->ipv4 = ipv4;
	c->class_id = class_id;
	h = tp_peer_hash(ipv4, class_id) & tp->ctx_hash_mask;
	c->hnext = tp->ctx_hash[h];
	tp->ctx_hash[h] = slot;
	h = id_hash(c->id) & tp->ctx_hash_mask;
	c->inext = tp->id_hash[h];
	tp->id_hash[h] = slot;
	return c;
}

/* Unlink @c from both hashes and give its slot back. */
void tp_ctx_put(struct wren_tp *tp, struct tp_ctx *c)
{
	uint32_t slot = ctx_slot(tp, c);
	uint32_t *pi;

	pi = &tp->ctx_hash[tp_peer_hash(c->ipv4, c->class_id) &
			   tp->ctx_hash_mask];
	while (*pi != slot)
		pi = &tp->ctx[*pi].hnext;
	*pi = c->hnext;
	pi = &tp->id_hash[id_hash(c->id) & tp->ctx_hash_mask];
	while (*pi != slot)
		pi = &tp->ctx[*pi].inext;
	*pi = c->inext;
	c->hnext = tp->ctx_free;
	tp->ctx_free = slot;
	tp->ctx_used--;
}

/* ------------------------------------------------------------------ */
/* The table in host memory                                             */
/* ------------------------------------------------------------------ */

int wren_tp_set_store(struct wren_tp *tp, const struct wren_tp_store_ops *ops,
		      void *opaque, uint32_t entries)
{
	if (tp->store)
		return -EBUSY;
	if (!ops || !ops->load || !ops->save || entries & (entries - 1) ||
	    entries < tp->cfg.max_ctx || entries < TP_TC_PROBES ||
	    entries > WREN_TP_MAX_TABLE)
		return -EINVAL;
	/* Wire ids change meaning: only before the first context. */
	if (tp->ctx_used)
		return -EBUSY;
	tp->store = ops;
	tp->store_opaque = opaque;
	tp->store_mask = entries - 1;
	return 0;
}

static int rec_load(struct wren_tp *tp, uint32_t idx,
		    struct wren_tp_ctx_rec *rec)
{
	int r = tp->store->load(tp->store_opaque, idx, rec);

	if (!r && rec->state == WREN_TP_REC_SPILLED &&
	    (rec->session == WREN_WIRE_CTX_NONE || !rec->ipv4 ||
	     rec->mode > WREN_TP_MODE_HANDSHAKE))
		r = -EINVAL;
	if (r == -EINVAL) {
		/* Malformed: counted, then treated as free and overwritten. */
		tp->stats.tc_errors++;
		memset(rec, 0, sizeof(*rec));
		return 0;
	}
	if (r)
		tp->stats.tc_errors++;
	return r;
}

static int rec_save(struct wren_tp *tp, uint32_t idx,
		    const struct wren_tp_ctx_rec *rec)
{
	int r = tp->store->save(tp->store_opaque, idx, rec);

	if (r)
		tp->stats.tc_errors++;
	return r;
}

/* What the table keeps of @c, in @state. */
static void rec_of_ctx(const struct tp_ctx *c, uint8_t state,
		       struct wren_tp_ctx_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->state = state;
	rec->mode = c->mode;
	rec->answered = c->answered;
	rec->ipv4 = c->ipv4;
	memcpy(rec->mac, c->mac, sizeof(rec->mac));
	rec->class_id = c->class_id;
	rec->epoch = c->epoch;
	rec->session = c->session;
	rec->psn = c->nsn;
	rec->msn = c->next_msn;
	rec->cwnd = c->cwnd_hint;
	rec->base_rtt_ns = c->base_rtt_ns;
	rec->srtt_ns = c->srtt_hint;
	rec->idle_since_ns = c->idle_since;
}

/* How much we would rather reuse record @rec: lower is better. */
enum tc_rank {
	TC_FREE,		/* nobody's */
	TC_EXPIRED,		/* spilled, and idle too long to come back */
	TC_SPILLED,		/* spilled, live: the oldest goes */
	TC_CACHED_IDLE,		/* held by an idle context in the cache */
	TC_NONE,
};

/*
 * Find the record for @d: 1 and the record in @rec if a spilled context
 * for it comes back, 0 and a record to start a fresh one in otherwise,
 * both with its index in @id; -EAGAIN when every candidate is busy in the
 * cache, -EIO when the table cannot be read.  When the record chosen is
 * held by an idle context of the cache, *@owner names it, and the caller
 * evicts it before using the record.
 */
int tp_tc_claim(struct wren_tp *tp, const struct wren_tp_dest *d, uint32_t *id,
		struct wren_tp_ctx_rec *rec, struct tp_ctx **owner)
{
	uint32_t h = tp_peer_hash(d->ipv4, d->class_id), best = TP_NONE;
	enum tc_rank best_rank = TC_NONE;
	uint64_t now = tp_now(tp), best_since = 0;
	struct wren_tp_ctx_rec r, best_rec = { 0 };
	unsigned int errors = 0;

	for (uint32_t i = 0; i < TP_TC_PROBES; i++) {
		uint32_t idx = (h + i) & tp->store_mask;
		struct tp_ctx *holder = tp_ctx_by_id(tp, idx);
		enum tc_rank rank;
		uint64_t since;

		if (holder) {
			if (!tp_linked(&holder->idle))
				continue;
			rank = TC_CACHED_IDLE;
			since = holder->idle_since;
		} else if (rec_load(tp, idx, &r)) {
			errors++;
			continue;
		} else if (r.state != WREN_TP_REC_SPILLED) {
			rank = TC_FREE;
			since = 0;
		} else if (r.idle_since_ns + tp->cfg.idle_ns <= now ||
			   r.idle_since_ns > now) {
			rank = TC_EXPIRED;
			since = r.idle_since_ns;
		} else if (r.ipv4 == d->ipv4 && r.class_id == d->class_id) {
			*id = idx;
			*rec = r;
			tp->stats.ctx_restored++;
			return 1;
		} else {
			rank = TC_SPILLED;
			since = r.idle_since_ns;
		}
		if (rank < best_rank || (rank == best_rank && since < best_since)) {
			best = idx;
			best_rank = rank;
			best_since = since;
			best_rec = r;
		}
	}
	if (best == TP_NONE)
		return errors == TP_TC_PROBES ? -EIO : -EAGAIN;
	*owner = NULL;
	if (best_rank == TC_CACHED_IDLE) {
		*owner = tp_ctx_by_id(tp, best);
	} else if (best_rank != TC_FREE) {
		/*
		 * A spilled context loses its record: close it properly, on
		 * a random path as tp_ctx_evict() does.
		 */
		struct tp_ctl close = {
			.type = WREN_WIRE_CLOSE, .ipv4 = best_rec.ipv4,
			.sport = tp_random_entropy(tp), .src_ctx = best,
			.dst_ctx = best_rec.session, .epoch = best_rec.epoch,
			.psn = best_rec.psn,
		};

		memcpy(close.mac, best_rec.mac, sizeof(close.mac));
		tp_ctl_push(tp, &close);
		tp->stats.ctx_evicted++;
	}
	*id = best;
	memset(rec, 0, sizeof(*rec));
	/* The same target again: its next incarnation follows the last. */
	rec->epoch = best_rank != TC_CACHED_IDLE && best_rec.ipv4 == d->ipv4 &&
		     best_rec.class_id == d->class_id ?
		     best_rec.epoch : tp->env->random(tp->env_opaque);
	return 0;
}

/* @c entered the cache: its record says so, for whoever reads the table. */
void tp_tc_hold(struct wren_tp *tp, const struct tp_ctx *c)
{
	struct wren_tp_ctx_rec rec;

	rec_of_ctx(c, WREN_TP_REC_CACHED, &rec);
	rec_save(tp, c->id, &rec);
}

/* Write idle, established @c back to its record; false if it cannot. */
bool tp_tc_spill(struct wren_tp *tp, const struct tp_ctx *c)
{
	struct wren_tp_ctx_rec rec;

	if (!tp->store || c->state != TP_CTX_ESTABLISHED)
		return false;
	rec_of_ctx(c, WREN_TP_REC_SPILLED, &rec);
	if (rec_save(tp, c->id, &rec))
		return false;
	tp->stats.ctx_spilled++;
	return true;
}

/* @c is gone for good: its record is free, its last epoch kept. */
void tp_tc_release(struct wren_tp *tp, const struct tp_ctx *c)
{
	struct wren_tp_ctx_rec rec;

	if (!tp->store)
		return;
	memset(&rec, 0, sizeof(rec));
	rec.ipv4 = c->ipv4;
	rec.class_id = c->class_id;
	rec.epoch = c->epoch;
	rec_save(tp, c->id, &rec);
}
