// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the doorbell BAR.  Pages of WREN_DB_SLOTS registers, each
 * page mapped into one user context by the driver; a register belongs to
 * the queue it was allocated for (a QP's SQ or RQ, an SRQ, a CQ), in that page
 * only, and rings nothing else.  Writes are decoded here and handed to
 * the queue; reads are refused.
 */
#include <errno.h>
#include <stdlib.h>

#include "weng_internal.h"

int weng_db_init(struct weng *e)
{
	e->db_slots = calloc(e->cfg.db_page_count, sizeof(*e->db_slots));
	return e->db_slots ? 0 : -ENOMEM;
}

void weng_db_reset(struct weng *e)
{
	for (uint32_t i = 0; i < e->cfg.db_page_count; i++) {
		free(e->db_slots[i]);
		e->db_slots[i] = NULL;
	}
}

void weng_db_fini(struct weng *e)
{
	if (e->db_slots)
		weng_db_reset(e);
	free(e->db_slots);
	e->db_slots = NULL;
}

/* Take @n free registers of page @page for @obj; their slots in @slot. */
bool weng_db_alloc(struct weng *e, uint32_t page, unsigned int n,
		   const enum weng_db_kind *kind, uint32_t obj, uint16_t *slot)
{
	struct weng_db_slot *s = e->db_slots[page];
	unsigned int got = 0;

	if (!s) {
		s = calloc(WREN_DB_SLOTS, sizeof(*s));
		if (!s)
			return false;
		e->db_slots[page] = s;
	}
	for (uint32_t i = 0; i < WREN_DB_SLOTS && got < n; i++)
		if (s[i].kind == WENG_DB_NONE)
			slot[got++] = i;
	if (got < n)
		return false;
	for (unsigned int i = 0; i < n; i++) {
		s[slot[i]].kind = kind[i];
		s[slot[i]].obj = obj;
	}
	return true;
}

void weng_db_free(struct weng *e, uint32_t page, uint16_t slot)
{
	e->db_slots[page][slot].kind = WENG_DB_NONE;
}

static void wq_doorbell(struct weng *e, uint64_t offset, struct weng_qp *qp,
			bool sq, uint32_t value)
{
	uint16_t *pi = sq ? &qp->sq_pi : &qp->rq_pi;
	uint16_t ci = sq ? qp->sq_ci : qp->rq_ci;
	uint32_t depth = weng_depth(sq ? qp->sq_log_depth : qp->rq_log_depth);

	/* The producer may not lap the consumer. */
	if (value & ~WREN_WQ_DB_PI || (uint16_t)(value - ci) > depth) {
		weng_warn(e, WENG_WRN_DOORBELL, offset, value);
		return;
	}
	*pi = value;
	/* In ERR what is posted is flushed at once (and drains the QP). */
	if (sq)
		weng_sq_kick(e, qp);
	else if (qp->state == WREN_QPS_ERR)
		weng_qp_flush(e, qp);
}

/* No register can be read: every read is a mistake. */
uint32_t weng_db_read(struct weng *e, uint64_t offset, unsigned int size)
{
	if (!weng_mmio_refused(e))
		weng_warn(e, WENG_WRN_DB_PAGE, offset, size);
	return 0;
}

/* A write to the doorbell BAR: ring the queue that owns the register. */
void weng_db_write(struct weng *e, uint64_t offset, uint32_t value,
		   unsigned int size)
{
	uint32_t page = offset >> WREN_DB_PAGE_SHIFT;
	uint32_t slot = (offset & (WREN_DB_PAGE_SIZE - 1)) / 4;
	const struct weng_db_slot *s;

	if (weng_mmio_refused(e))
		return;
	if (size != 4 || offset % 4 || page >= e->cfg.db_page_count ||
	    !weng_enabled(e) || !e->db_slots[page] ||
	    e->db_slots[page][slot].kind == WENG_DB_NONE) {
		weng_warn(e, WENG_WRN_DB_PAGE, offset, value);
		return;
	}
	s = &e->db_slots[page][slot];
	switch (s->kind) {
	case WENG_DB_SQ:
	case WENG_DB_RQ:
		wq_doorbell(e, offset, weng_qp_get(e, s->obj),
			    s->kind == WENG_DB_SQ, value);
		break;
	case WENG_DB_CQ:
		weng_cq_doorbell(e, offset, &e->cqs[s->obj], value);
		break;
	case WENG_DB_SRQ:
		weng_srq_doorbell(e, offset, &e->srqs[s->obj], value);
		break;
	}
}
