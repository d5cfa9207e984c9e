// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A heap of events ordered by (time, sequence).  Each event knows its
 * slot, so rearming a timer (which the transports do on
 * almost every acknowledgement) moves it in place instead of leaving
 * dead entries behind.
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim.h"

void sim_init(struct sim *s)
{
	*s = (struct sim){ 0 };
	s->cap = 1024;
	s->heap = malloc(s->cap * sizeof(*s->heap));
	if (!s->heap) {
		perror("netsim: event heap");
		exit(2);
	}
}

void sim_fini(struct sim *s)
{
	free(s->heap);
	s->heap = NULL;
}

/* A 4-ary heap: half the depth of a binary one, children adjacent. */
#define ARITY 4

static inline bool slot_before(const struct sim_slot *a,
			       const struct sim_slot *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static inline void heap_put(struct sim *s, uint32_t i,
			    const struct sim_slot *e)
{
	s->heap[i] = *e;
	if (e->tracked)
		e->ev->slot = i + 1;
}

static void sift_up(struct sim *s, uint32_t i, struct sim_slot e)
{
	while (i > 0) {
		uint32_t p = (i - 1) / ARITY;

		if (!slot_before(&e, &s->heap[p]))
			break;
		heap_put(s, i, &s->heap[p]);
		i = p;
	}
	heap_put(s, i, &e);
}

static inline unsigned __int128 slot_key(const struct sim_slot *e)
{
	return (unsigned __int128)e->t << 64 | e->seq;
}

/*
 * The smallest of up to ARITY children, chosen without branches: the
 * comparisons are random, so branches would mispredict half the time.
 */
static void sift_down(struct sim *s, uint32_t i, struct sim_slot e)
{
	unsigned __int128 key = slot_key(&e);

	for (;;) {
		uint32_t c = ARITY * i + 1, best, k, end;
		unsigned __int128 bk;

		if (c >= s->n)
			break;
		best = c;
		bk = slot_key(&s->heap[c]);
		end = c + ARITY < s->n ? c + ARITY : s->n;
		for (k = c + 1; k < end; k++) {
			unsigned __int128 kk = slot_key(&s->heap[k]);
			bool lt = kk < bk;

			best = lt ? k : best;
			bk = lt ? kk : bk;
		}
		if (bk >= key)
			break;
		heap_put(s, i, &s->heap[best]);
		i = best;
	}
	heap_put(s, i, &e);
}

static void heap_remove_at(struct sim *s, uint32_t i)
{
	struct sim_slot last = s->heap[--s->n];

	if (i == s->n)
		return;
	if (i > 0 && slot_before(&last, &s->heap[(i - 1) / ARITY]))
		sift_up(s, i, last);
	else
		sift_down(s, i, last);
}

static void heap_remove(struct sim *s, struct sim_ev *ev)
{
	uint32_t i = ev->slot - 1;

	ev->slot = 0;
	heap_remove_at(s, i);
}

static void heap_grow(struct sim *s)
{
	if (s->n < s->cap)
		return;
	s->cap *= 2;
	s->heap = realloc(s->heap, s->cap * sizeof(*s->heap));
	if (!s->heap) {
		perror("netsim: event heap");
		exit(2);
	}
}

void sim_at(struct sim *s, struct sim_ev *ev, uint64_t t)
{
	struct sim_slot e;

	if (t < s->now)
		t = s->now;
	if (ev->slot)
		heap_remove(s, ev);
	ev->t = t;
	ev->seq = s->seq++;
	heap_grow(s);
	e = (struct sim_slot){ .t = t, .seq = ev->seq, .ev = ev, .tracked = 1 };
	sift_up(s, s->n++, e);
	if (s->n > s->n_max)
		s->n_max = s->n;
}

void sim_fire_at(struct sim *s, struct sim_ev *ev, uint64_t t)
{
	struct sim_slot e;

	if (t < s->now)
		t = s->now;
	ev->t = t;
	ev->seq = s->seq++;
	ev->slot = 0;
	heap_grow(s);
	e = (struct sim_slot){ .t = t, .seq = ev->seq, .ev = ev };
	sift_up(s, s->n++, e);
	if (s->n > s->n_max)
		s->n_max = s->n;
}

void sim_cancel(struct sim *s, struct sim_ev *ev)
{
	if (ev->slot)
		heap_remove(s, ev);
}

void sim_run(struct sim *s, uint64_t until)
{
	s->stop = false;
	while (s->n && !s->stop) {
		struct sim_ev *ev = s->heap[0].ev;

		if (s->heap[0].t > until)
			break;
		ev->slot = 0;
		heap_remove_at(s, 0);
		s->now = ev->t;
		s->events++;
		ev->fn(ev);
	}
}

static void timer_fire(struct sim_ev *ev)
{
	struct sim_timer *tm = container_of(ev, struct sim_timer, ev);

	tm->cb(tm->arg);
}

struct sim_timer *sim_timer_new(struct sim *s, void (*cb)(void *arg),
				void *arg)
{
	struct sim_timer *tm = calloc(1, sizeof(*tm));

	if (!tm)
		return NULL;
	tm->sim = s;
	tm->cb = cb;
	tm->arg = arg;
	tm->ev.fn = timer_fire;
	return tm;
}

void sim_timer_arm(struct sim_timer *tm, uint64_t expire_ns)
{
	uint64_t t = expire_ns > UINT64_MAX / PS_PER_NS ? UINT64_MAX :
		     expire_ns * PS_PER_NS;

	sim_at(tm->sim, &tm->ev, t);
}

void sim_timer_cancel(struct sim_timer *tm)
{
	sim_cancel(tm->sim, &tm->ev);
}

void sim_timer_free(struct sim_timer *tm)
{
	if (!tm)
		return;
	sim_timer_cancel(tm);
	free(tm);
}
