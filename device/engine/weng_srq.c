// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: shared receive queues.  An SRQ is a receive ring of its
 * own that any number of QPs on its PD take receives from, in ring order,
 * as messages for them arrive: each entry is copied as it is taken into a
 * free shadow slot, which remembers the QP (and its generation) until
 * the receive completes on that QP's CQ.  The ring slot is the driver's
 * again at once; completions name entries by request id.  An armed limit
 * fires once, as an async event, when fewer posted receives than it are
 * left untaken, and disarms itself.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

int weng_srq_init(struct weng *e)
{
	e->srqs = calloc(e->cfg.max_srq, sizeof(*e->srqs));
	return e->srqs || !e->cfg.max_srq ? 0 : -ENOMEM;
}

void weng_srq_free_slots(struct weng_srq *srq)
{
	free(srq->shadow);
	free(srq->entries);
	srq->shadow = NULL;
	srq->entries = NULL;
}

void weng_srq_reset(struct weng *e)
{
	for (uint32_t i = 0; i < e->cfg.max_srq; i++) {
		weng_srq_free_slots(&e->srqs[i]);
		memset(&e->srqs[i], 0, sizeof(e->srqs[i]));
	}
}

void weng_srq_fini(struct weng *e)
{
	if (e->srqs)
		weng_srq_reset(e);
	free(e->srqs);
	e->srqs = NULL;
}

/* SRQ number @srqn if it exists, else NULL. */
struct weng_srq *weng_srq_get(struct weng *e, uint32_t srqn)
{
	if (srqn >= e->cfg.max_srq || !e->srqs[srqn].in_use)
		return NULL;
	return &e->srqs[srqn];
}

/* The driver posted receives up to @value. */
void weng_srq_doorbell(struct weng *e, uint64_t offset, struct weng_srq *srq,
		       uint32_t value)
{
	/* The producer may not lap the consumer. */
	if (value & ~WREN_WQ_DB_PI ||
	    (uint16_t)(value - srq->ci) > weng_depth(srq->log_depth)) {
		weng_warn(e, WENG_WRN_DOORBELL, offset, value);
		return;
	}
	srq->pi = value;
}

/*
 * Take the next posted receive: a free shadow slot for it in @slot, the
 * guest address of its ring entry in @at, which the caller copies.  An
 * armed limit the take crosses fires.  -EAGAIN if nothing is posted or
 * every shadow is busy (receiver not ready).
 */
int weng_srq_take(struct weng *e, struct weng_srq *srq, uint32_t *slot,
		  uint64_t *at)
{
	uint32_t mask = weng_depth(srq->log_depth) - 1, k;
	uint32_t ring = srq->ci & mask;

	if (srq->ci == srq->pi)
		return -EAGAIN;
	for (k = 0; k <= mask && srq->shadow[(ring + k) & mask].busy; k++)
		;
	if (k > mask)
		return -EAGAIN;
	*slot = (ring + k) & mask;
	*at = srq->base + ((uint64_t)ring << srq->entry_log);
	srq->ci++;
	weng_srq_limit_check(e, srq);
	return 0;
}

/* An armed limit above the receives left untaken fires, once. */
void weng_srq_limit_check(struct weng *e, struct weng_srq *srq)
{
	if (srq->limit && (uint16_t)(srq->pi - srq->ci) < srq->limit) {
		srq->limit = 0;
		weng_aeq_post(e, WREN_AEQ_SRQ_LIMIT, srq - e->srqs, 0);
	}
}
