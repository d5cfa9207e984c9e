/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren engine: event queues, each bound to an MSI-X vector.
 */
#include <string.h>

#include "wren_internal.h"

void wren_eq_reset(struct wren_engine *e)
{
	memset(e->eqs, 0, e->max_eq * sizeof(*e->eqs));
}

static void notify(struct wren_engine *e, struct wren_eq *eq)
{
	if (eq->armed && eq->intr && eq->ring.tail != eq->ring.head) {
		eq->armed = false;
		e->ops->irq(e->opaque, eq->vector);
	}
}

void wren_eq_doorbell(struct wren_engine *e, uint32_t id, uint32_t value)
{
	struct wren_eq *eq = id < e->max_eq ? &e->eqs[id] : NULL;

	if (!wren_engine_enabled(e) || !eq || !eq->in_use ||
	    value & ~(WREN_EQ_DB_HEAD | WREN_EQ_DB_ARM) ||
	    !wren_out_ring_consume(&eq->ring, FIELD_GET(WREN_EQ_DB_HEAD, value))) {
		wren_warn(e, WREN_WRN_DOORBELL, WREN_REG_EQ_DB(id), value);
		return;
	}
	if (value & WREN_EQ_DB_ARM) {
		eq->armed = true;
		/* Entries already waiting must not wait for the next one. */
		notify(e, eq);
	}
}

int wren_eq_post(struct wren_engine *e, uint32_t id, uint8_t type,
		 uint32_t handle)
{
	struct wren_eq *eq = id < e->max_eq ? &e->eqs[id] : NULL;
	struct wren_eqe eqe;

	if (!eq || !eq->in_use)
		return -1;
	memset(&eqe, 0, sizeof(eqe));
	eqe.type = type;
	eqe.handle = wren_to_le32(handle);
	if (wren_out_ring_push(e, &eq->ring, sizeof(eqe), &eqe, &eqe.flags)) {
		wren_warn(e, WREN_WRN_EQ_OVERFLOW, id, eq->ring.dropped);
		return -1;
	}
	notify(e, eq);
	return 0;
}
