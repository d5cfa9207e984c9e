// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the async event queue (keep-alive, fatal, warnings, link)
 * and the device's fatal state.  The driver returns slots through AEQ_DB;
 * a full queue drops events and says so (WARNING/AEQ_OVERFLOW, info =
 * events dropped since the reset) as soon as a slot is free again.
 */
#include <errno.h>
#include <string.h>

#include "weng_internal.h"

static void keep_alive_expired(void *arg)
{
	struct weng *e = arg;

	if (!weng_enabled(e) || !e->keep_alive_ms)
		return;
	/*
	 * The keep-alive-stop fault: a device whose management firmware hung
	 * sends nothing, but the timer keeps its period so that clearing the
	 * fault resumes the beat at once.
	 */
	if (e->fault.keep_alive_stop) {
		e->fault.stats.keep_alive_withheld++;
		weng_fault_report(e, WENG_FLT_KEEP_ALIVE_WITHHELD,
				  e->keep_alive_sent + 1,
				  e->fault.stats.keep_alive_withheld);
	} else {
		e->keep_alive_sent++;
		weng_aeq_post(e, WREN_AEQ_KEEP_ALIVE, 0, e->keep_alive_sent);
	}
	e->ops->host.timer_arm(e->keep_alive_timer, weng_now(e) +
			       (uint64_t)e->keep_alive_ms * 1000000);
}

int weng_aeq_init(struct weng *e)
{
	e->keep_alive_timer = e->ops->host.timer_new(e->opaque,
						     keep_alive_expired, e);
	return e->keep_alive_timer ? 0 : -ENOMEM;
}

void weng_aeq_fini(struct weng *e)
{
	if (e->keep_alive_timer)
		e->ops->host.timer_free(e->keep_alive_timer);
	e->keep_alive_timer = NULL;
}

void weng_aeq_reset(struct weng *e)
{
	memset(&e->aeq, 0, sizeof(e->aeq));
	e->aeq_overflow_pending = false;
	e->keep_alive_ms = 0;
	e->keep_alive_sent = 0;
	if (e->keep_alive_timer)
		e->ops->host.timer_cancel(e->keep_alive_timer);
}

static int aeq_push(struct weng *e, uint8_t type, uint32_t info, uint64_t data)
{
	struct wren_aeq_entry ev;
	int rc;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.info = wren_to_le32(info);
	ev.data = wren_to_le64(data);
	rc = weng_ring_push(e, &e->aeq, sizeof(ev), &ev, &ev.flags);
	if (rc == -EIO)
		weng_fatal(e, WREN_FATAL_DMA);
	if (rc)
		return rc;
	e->stats.aeq_events++;
	if (!(e->intr_mask & WREN_INTR_MASK_MGMT))
		e->ops->irq(e->opaque, 0);
	return 0;
}

void weng_aeq_post(struct weng *e, uint8_t type, uint32_t info,
		   uint64_t data)
{
	if (!(e->dev_sts & WREN_DEV_STS_ENABLED))
		return;
	if (aeq_push(e, type, info, data) == -ENOSPC) {
		if (!e->aeq_overflow_pending)
			weng_warn(e, WENG_WRN_AEQ_OVERFLOW, e->aeq.dropped, 0);
		e->aeq_overflow_pending = true;
	}
}

void weng_aeq_doorbell(struct weng *e, uint32_t value)
{
	if (!weng_enabled(e) || value & ~WREN_AEQ_DB_HEAD ||
	    !weng_ring_consume(&e->aeq, value)) {
		weng_warn(e, WENG_WRN_DOORBELL, WREN_REG_AEQ_DB, value);
		return;
	}
	/* Room again: say that events were lost. */
	if (e->aeq_overflow_pending &&
	    !aeq_push(e, WREN_AEQ_WARNING,
		  e->aeq.dropped > UINT32_MAX ? UINT32_MAX : e->aeq.dropped,
		  WREN_WARN_AEQ_OVERFLOW))
		e->aeq_overflow_pending = false;
}

void weng_aeq_set_keep_alive(struct weng *e, uint32_t period_ms)
{
	e->keep_alive_ms = period_ms;
	if (!period_ms) {
		e->ops->host.timer_cancel(e->keep_alive_timer);
		return;
	}
	e->ops->host.timer_arm(e->keep_alive_timer, weng_now(e) +
			       (uint64_t)period_ms * 1000000);
}

/*
 * The device failed: DEV_STS says so with @code and the device stops
 * serving its queues until the driver resets it.  The driver hears of it
 * through the event queue too, if that queue still works: a DMA error
 * elsewhere leaves it working, and if it is the event queue's own write
 * that fails, this is not entered again (FATAL is already set) and the
 * event is simply lost, DEV_STS telling the rest.
 */
void weng_fatal(struct weng *e, unsigned int code)
{
	if (e->dev_sts & WREN_DEV_STS_FATAL)
		return;
	e->dev_sts |= WREN_DEV_STS_FATAL |
		      FIELD_PREP(WREN_DEV_STS_FATAL_CODE, code);
	if (e->dev_sts & WREN_DEV_STS_ENABLED)
		weng_aeq_post(e, WREN_AEQ_FATAL, 0, code);
	e->ops->host.timer_cancel(e->keep_alive_timer);
}
