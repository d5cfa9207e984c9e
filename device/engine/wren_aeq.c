/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren engine: the async event queue (keep-alive, fatal, warnings, link).
 * The driver returns slots through AEQ_DB; a full queue drops events and
 * says so (WARNING/AEQ_OVERFLOW, info = events dropped since the reset)
 * as soon as a slot is free again.
 */
#include <string.h>

#include "wren_internal.h"

void wren_aeq_reset(struct wren_engine *e)
{
	memset(&e->aeq, 0, sizeof(e->aeq));
	e->aeq_overflow_pending = false;
	e->keep_alive_ms = 0;
	e->keep_alive_sent = 0;
	if (e->keep_alive_timer)
		e->ops->host.timer_cancel(e->keep_alive_timer);
}

static int push(struct wren_engine *e, uint8_t type, uint32_t info,
		uint64_t data)
{
	struct wren_aeq_entry ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.info = wren_to_le32(info);
	ev.data = wren_to_le64(data);
	if (wren_out_ring_push(e, &e->aeq, sizeof(ev), &ev, &ev.flags))
		return -1;
	e->stats.aeq_events++;
	if (!(e->intr_mask & WREN_INTR_MASK_MGMT))
		e->ops->irq(e->opaque, 0);
	return 0;
}

void wren_aeq_post(struct wren_engine *e, uint8_t type, uint32_t info,
		   uint64_t data)
{
	if (!(e->dev_sts & WREN_DEV_STS_ENABLED))
		return;
	if (push(e, type, info, data)) {
		if (!e->aeq_overflow_pending)
			wren_warn(e, WREN_WRN_AEQ_OVERFLOW, e->aeq.dropped, 0);
		e->aeq_overflow_pending = true;
	}
}

void wren_aeq_doorbell(struct wren_engine *e, uint32_t value)
{
	if (!wren_engine_enabled(e) || value & ~WREN_AEQ_DB_HEAD ||
	    !wren_out_ring_consume(&e->aeq, value)) {
		wren_warn(e, WREN_WRN_DOORBELL, WREN_REG_AEQ_DB, value);
		return;
	}
	/* Room again: say that events were lost. */
	if (e->aeq_overflow_pending &&
	    !push(e, WREN_AEQ_WARNING,
		  e->aeq.dropped > UINT32_MAX ? UINT32_MAX : e->aeq.dropped,
		  WREN_WARN_AEQ_OVERFLOW))
		e->aeq_overflow_pending = false;
}

void wren_aeq_set_keep_alive(struct wren_engine *e, uint32_t period_ms)
{
	e->keep_alive_ms = period_ms;
	if (!period_ms) {
		e->ops->host.timer_cancel(e->keep_alive_timer);
		return;
	}
	e->ops->host.timer_arm(e->keep_alive_timer, e->ops->host.now_ns(e->opaque) +
			  (uint64_t)period_ms * 1000000);
}
