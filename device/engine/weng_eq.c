// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: event queues, each bound to an MSI-X vector.  A CQ armed
 * for an event posts its number here; the driver returns slots and re-arms
 * through the EQ's doorbell register.
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
	return e->eqs ? 0 : -ENOMEM;
}

void weng_eq_fini(struct weng *e)
{
	free(e->eqs);
	e->eqs = NULL;
}

void weng_eq_reset(struct weng *e)
{
	memset(e->eqs, 0, e->max_eq * sizeof(*e->eqs));
}

/* EQ @id if it exists, else NULL. */
struct weng_eq *weng_eq_get(struct weng *e, uint32_t id)
{
	return id < e->max_eq && e->eqs[id].in_use ? &e->eqs[id] : NULL;
}

static void eq_notify(struct weng *e, struct weng_eq *eq)
{
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
