// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the rings the device produces into and the driver consumes
 * (admin completions, async events, event queues, completion queues).
 */
#include <errno.h>

#include "weng_internal.h"

/* The guest address of @r's entry at free-running @index. */
uint64_t weng_ring_slot(const struct weng_ring *r, uint32_t index,
			unsigned int entry_size)
{
	return r->base +
	       (uint64_t)(index & (weng_depth(r->log_depth) - 1)) * entry_size;
}

/*
 * Post an entry to @r.  Rings with flow control (index_mask set and head
 * maintained by the driver) refuse to overwrite unconsumed entries: then
 * -ENOSPC, and the entry is counted as dropped.  @flags points into @entry
 * at the phase byte.  -EIO if guest memory refused the entry (reported);
 * the caller decides what that costs the device.
 *
 * The driver may read the ring while it is written (a vCPU runs beside
 * the device), so the entry goes first with the old lap's phase, then
 * its phase byte alone: whoever sees the new phase sees the whole entry.
 */
int weng_ring_push(struct weng *e, struct weng_ring *r,
		   unsigned int entry_size, void *entry, uint8_t *flags)
{
	uint32_t depth = weng_depth(r->log_depth);
	uint64_t at = weng_ring_slot(r, r->tail, entry_size);
	uint8_t phase = wren_ring_phase(r->tail, r->log_depth);
	size_t flags_off = flags - (uint8_t *)entry;

	if (((r->tail - r->head) & r->index_mask) >= depth) {
		r->dropped++;
		return -ENOSPC;
	}
	*flags = (*flags & ~1U) | (phase ^ 1);
	if (weng_dma_write(e, at, entry, entry_size))
		return -EIO;
	*flags ^= 1;
	if (weng_dma_write(e, at + flags_off, flags, 1))
		return -EIO;
	r->tail = (r->tail + 1) & r->index_mask;
	return 0;
}

/* The driver returned entries up to @head; false if @head is impossible. */
bool weng_ring_consume(struct weng_ring *r, uint32_t head)
{
	uint32_t advance = (head - r->head) & r->index_mask;
	uint32_t pending = (r->tail - r->head) & r->index_mask;

	if (advance > pending)
		return false;
	r->head = head;
	return true;
}
