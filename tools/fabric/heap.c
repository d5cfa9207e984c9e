// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The frames in flight, as a binary min-heap on (release time, arrival
 * sequence): every path's frames share one queue, so the event loop
 * needs only the top to know when to wake, and frames due at the same
 * instant leave in the order they came.  Its capacity is the frame limit
 * (--queue-frames), allocated once: the caller checks room before push.
 */
#include <stdlib.h>

#include "fabric.h"

static bool before(const struct held *a, const struct held *b)
{
	return a->due_ns < b->due_ns ||
	       (a->due_ns == b->due_ns && a->seq < b->seq);
}

int heap_init(struct heap *h, uint32_t cap)
{
	h->a = calloc(cap, sizeof(*h->a));
	h->n = 0;
	h->cap = cap;
	h->bytes = 0;
	return h->a ? 0 : -1;
}

void heap_push(struct heap *h, struct held *x)
{
	uint32_t i = h->n++;

	while (i) {
		uint32_t up = (i - 1) / 2;

		if (!before(x, h->a[up]))
			break;
		h->a[i] = h->a[up];
		i = up;
	}
	h->a[i] = x;
	h->bytes += x->len;
}

struct held *heap_top(const struct heap *h)
{
	return h->n ? h->a[0] : NULL;
}

struct held *heap_pop(struct heap *h)
{
	struct held *top, *last;
	uint32_t i = 0;

	if (!h->n)
		return NULL;
	top = h->a[0];
	last = h->a[--h->n];
	for (;;) {
		uint32_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && before(h->a[c + 1], h->a[c]))
			c++;
		if (!before(h->a[c], last))
			break;
		h->a[i] = h->a[c];
		i = c;
	}
	if (h->n)
		h->a[i] = last;
	h->bytes -= top->len;
	return top;
}

void heap_free(struct heap *h)
{
	while (h->n)
		free(heap_pop(h));
	free(h->a);
	h->a = NULL;
}
