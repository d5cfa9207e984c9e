// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the services every other part uses.  Reports of guest
 * mistakes and of injected faults' doings, every DMA the engine makes, and alarms: host timers that wake
 * the engine by the earliest of the deadlines asked of them.
 *
 * A guest may point any address it gives the device (a ring, a page list,
 * a receive buffer, a READ's destination) at the device's own BARs.  The
 * host then turns our DMA into an access to our registers, from inside the
 * engine's own processing: a completion written into DEV_CTL would reset
 * the engine under itself.  QEMU 7.2 has no re-entrancy guard of its own,
 * so the engine keeps one: while one of its DMAs is in progress, a
 * register or doorbell access is refused (weng_mmio_refused()), and the
 * DMA fails as if the address were unreachable, counted and reported.
 */
#include <errno.h>

#include "weng_internal.h"

void weng_warn(struct weng *e, enum weng_wrn what, uint64_t a, uint64_t b)
{
	e->stats.guest_errors++;
	e->ops->warn(e->opaque, what, a, b);
}

/* What an injected fault did: for the host's traces, if it keeps any. */
void weng_fault_report(struct weng *e, enum weng_flt what, uint64_t a,
		       uint64_t b)
{
	if (e->ops->fault)
		e->ops->fault(e->opaque, what, a, b);
}

/*
 * Called by every register and doorbell entry point: true, and the access
 * must be dropped, if it comes from one of our own DMAs.
 */
bool weng_mmio_refused(struct weng *e)
{
	if (!e->in_dma)
		return false;
	e->dma_self = true;
	return true;
}

/* The end of a DMA of @len bytes at @addr: 0, or -1 and a report. */
static int dma_end(struct weng *e, int rc, uint64_t addr, size_t len)
{
	e->in_dma = false;
	if (e->dma_self) {
		e->dma_self = false;
		e->stats.dma_self++;
		weng_warn(e, WENG_WRN_DMA_SELF, addr, len);
		return -1;
	}
	if (rc) {
		weng_warn(e, WENG_WRN_DMA, addr, len);
		return -1;
	}
	return 0;
}

/* Copy @len bytes of guest memory at @addr to @buf: 0, or -1 (reported). */
int weng_dma_read(struct weng *e, uint64_t addr, void *buf, size_t len)
{
	e->in_dma = true;
	return dma_end(e, e->ops->dma_read(e->opaque, addr, buf, len), addr,
		       len);
}

/* Copy @len bytes of @buf to guest memory at @addr: 0, or -1 (reported). */
int weng_dma_write(struct weng *e, uint64_t addr, const void *buf,
		   size_t len)
{
	e->in_dma = true;
	return dma_end(e, e->ops->dma_write(e->opaque, addr, buf, len), addr,
		       len);
}

int weng_alarm_init(struct weng *e, struct weng_alarm *a, void (*fn)(void *))
{
	a->at = 0;
	a->timer = e->ops->host.timer_new(e->opaque, fn, e);
	return a->timer ? 0 : -ENOMEM;
}

void weng_alarm_fini(struct weng *e, struct weng_alarm *a)
{
	if (a->timer)
		e->ops->host.timer_free(a->timer);
	a->timer = NULL;
}

void weng_alarm_cancel(struct weng *e, struct weng_alarm *a)
{
	if (a->timer)
		e->ops->host.timer_cancel(a->timer);
	a->at = 0;
}

/* Wake the engine by @at at the latest. */
void weng_alarm_arm(struct weng *e, struct weng_alarm *a, uint64_t at)
{
	if (a->at && a->at <= at)
		return;
	a->at = at;
	e->ops->host.timer_arm(a->timer, at);
}
