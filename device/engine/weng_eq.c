// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: event queues, each bound to an MSI-X vector.  A CQ armed
 * for an event posts its number here; the driver returns slots and re-arms
 * through the EQ's doorbell register.  The eq-stall fault holds every
 * entry (and so every interrupt) back in order, and releases them when it
 * is lifted, as a device whose event engine hung and came back would.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

int weng_eq_init(struct weng *e)
{
	/* Vector 0 is management; each EQ may have a vector of its own. */
	e->max_eq = e->cfg.msix_vectors < WREN_REG_EQ_DB_MAX ?
		    e->cfg.msix_vectors : WREN_REG_EQ_DB_MAX;
	e->eqs = calloc(e->max_eq, sizeof(*e->eqs));
	e->eq_held = calloc(WENG_EQ_HELD_MAX, sizeof(*e->eq_held));
	return e->eqs && e->eq_held ? 0 : -ENOMEM;
}

void weng_eq_fini(struct weng *e)
{
	free(e->eqs);
	e->eqs = NULL;
	free(e->eq_held);
	e->eq_held = NULL;
}

void weng_eq_reset(struct weng *e)
{
	memset(e->eqs, 0, e->max_eq * sizeof(*e->eqs));
	/* Held entries belong to the queues the reset dropped. */
	e->eq_held_n = 0;
}

/* EQ @id if it exists, else NULL. */
struct weng_eq *weng_eq_get(struct weng *e, uint32_t id)
{
	return id < e->max_eq && e->eqs[id].in_use ? &e->eqs[id] : NULL;
}

static void eq_notify(struct weng *e, struct weng_eq *eq)
{
	if (e->fault.eq_stall)
		return;
	if (eq->armed && eq->intr && eq->ring.tail != eq->ring.head) {
		eq->armed = false;
		e->ops->irq(e->opaque, eq->vector);
	}
}

void weng_eq_doorbell(struct weng *e, uint32_t id, uint32_t value)
{
	struct weng_eq *eq = weng_eq_get(e, id);

	if (!weng_enabled(e) || !eq ||
	    value & ~(WREN_EQ_DB_HEAD | WREN_EQ_DB_ARM) ||
	    !weng_ring_consume(&eq->ring, FIELD_GET(WREN_EQ_DB_HEAD, value))) {
		weng_warn(e, WENG_WRN_DOORBELL, WREN_REG_EQ_DB(id), value);
		return;
	}
	if (value & WREN_EQ_DB_ARM) {
		eq->armed = true;
		/* Entries already waiting must not wait for the next one. */
		eq_notify(e, eq);
	}
}

int weng_eq_post(struct weng *e, uint32_t id, uint8_t type, uint32_t handle)
{
	struct weng_eq *eq = weng_eq_get(e, id);
	struct wren_eqe eqe;
	int rc;

	if (!eq)
		return -ENOENT;
	if (e->fault.eq_stall) {
		/* Beyond what can be held, it is lost as in a full queue. */
		if (e->eq_held_n == WENG_EQ_HELD_MAX) {
			e->fault.stats.eq_lost++;
			weng_warn(e, WENG_WRN_EQ_OVERFLOW, id,
				  e->fault.stats.eq_lost);
			return -ENOSPC;
		}
		e->eq_held[e->eq_held_n++] = (struct weng_eq_held){
			.id = id, .handle = handle, .type = type,
		};
		e->fault.stats.eq_held++;
		weng_fault_report(e, WENG_FLT_EQ_HELD, id, e->eq_held_n);
		return 0;
	}
	memset(&eqe, 0, sizeof(eqe));
	eqe.type = type;
	eqe.handle = wren_to_le32(handle);
	rc = weng_ring_push(e, &eq->ring, sizeof(eqe), &eqe, &eqe.flags);
	if (rc == -EIO)
		weng_fatal(e, WREN_FATAL_DMA);
	else if (rc)
		weng_warn(e, WENG_WRN_EQ_OVERFLOW, id, eq->ring.dropped);
	if (rc)
		return rc;
	eq_notify(e, eq);
	return 0;
}

/*
 * The stall is over (e->fault.eq_stall already false): write the held
 * entries in the order they came, to the queues that still exist, then
 * raise the interrupts that waited (an armed queue with entries).
 */
void weng_eq_release(struct weng *e)
{
	uint32_t n = e->eq_held_n;
	uint64_t lost = 0;

	e->eq_held_n = 0;
	for (uint32_t i = 0; i < n && weng_enabled(e); i++) {
		const struct weng_eq_held *h = &e->eq_held[i];

		if (weng_eq_post(e, h->id, h->type, h->handle))
			lost++;
	}
	e->fault.stats.eq_lost += lost;
	weng_fault_report(e, WENG_FLT_EQ_RELEASED, n, lost);
	for (uint32_t id = 0; id < e->max_eq && weng_enabled(e); id++)
		if (e->eqs[id].in_use)
			eq_notify(e, &e->eqs[id]);
}
