/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren engine: the admin queue.  Fetches commands between the device's
 * consumer index and the driver's doorbell, checks their phase, executes
 * them and posts completions.  Command semantics live in wren_cmds.c.
 */
#include <stddef.h>
#include <string.h>

#include "wren_internal.h"

void wren_admin_reset(struct wren_engine *e)
{
	e->aq_base = 0;
	e->aq_log_depth = 0;
	e->aq_head = 0;
	e->aq_tail = 0;
	memset(&e->acq, 0, sizeof(e->acq));
}

/*
 * Post an entry to a ring the driver consumes.  Rings with flow control
 * (index_mask set and head maintained by the driver) refuse to overwrite
 * unconsumed entries.  @flags points into @entry at the phase byte.
 *
 * The driver may read the ring while it is written (a vCPU runs beside
 * the device), so the entry goes first with the old lap's phase, then
 * its phase byte alone: whoever sees the new phase sees the whole entry.
 */
int wren_out_ring_push(struct wren_engine *e, struct wren_out_ring *r,
		       unsigned int entry_size, void *entry, uint8_t *flags)
{
	uint32_t depth = 1U << r->log_depth;
	uint64_t at = r->base + (uint64_t)(r->tail & (depth - 1)) * entry_size;
	uint8_t phase = wren_ring_phase(r->tail, r->log_depth);
	size_t flags_off = flags - (uint8_t *)entry;

	if (((r->tail - r->head) & r->index_mask) >= depth) {
		r->dropped++;
		return -1;
	}
	*flags = (*flags & ~1U) | (phase ^ 1);
	if (e->ops->dma_write(e->opaque, at, entry, entry_size))
		goto dma;
	*flags ^= 1;
	if (e->ops->dma_write(e->opaque, at + flags_off, flags, 1))
		goto dma;
	r->tail = (r->tail + 1) & r->index_mask;
	return 0;
dma:
	wren_warn(e, WREN_WRN_DMA, at, entry_size);
	wren_fatal(e, WREN_FATAL_DMA);
	return -1;
}

/* The driver returned entries up to @head; false if @head is impossible. */
bool wren_out_ring_consume(struct wren_out_ring *r, uint32_t head)
{
	uint32_t advance = (head - r->head) & r->index_mask;
	uint32_t pending = (r->tail - r->head) & r->index_mask;

	if (advance > pending)
		return false;
	r->head = head;
	return true;
}

static void complete(struct wren_engine *e, uint16_t cmd_id,
		     const struct wren_cmd_status *st)
{
	struct wren_admin_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.cmd_id = wren_to_le16(cmd_id);
	cqe.status = st->status;
	cqe.sq_head = wren_to_le16(e->aq_head);
	cqe.ext_status = wren_to_le32(st->ext_status);
	for (unsigned int i = 0; i < 4; i++)
		cqe.result[i] = wren_to_le32(st->result[i]);
	/*
	 * The completion queue is as deep as the admin queue and the driver
	 * has at most a queue's worth of commands outstanding, so there is no
	 * head to respect: consumption is implied by the next doorbell.
	 */
	e->acq.head = e->acq.tail;
	if (wren_out_ring_push(e, &e->acq, sizeof(cqe), &cqe, &cqe.flags))
		return;
	if (!(e->intr_mask & WREN_INTR_MASK_MGMT))
		e->ops->irq(e->opaque, 0);
}

static void process_one(struct wren_engine *e)
{
	uint32_t depth = 1U << e->aq_log_depth;
	uint32_t slot = e->aq_head & (depth - 1);
	uint64_t addr = e->aq_base + (uint64_t)slot * WREN_ADMIN_CMD_SIZE;
	struct wren_cmd_status st;
	struct wren_admin_cmd cmd;
	uint16_t cmd_id;

	if (e->ops->dma_read(e->opaque, addr, &cmd, sizeof(cmd))) {
		wren_warn(e, WREN_WRN_DMA, addr, sizeof(cmd));
		wren_fatal(e, WREN_FATAL_DMA);
		return;
	}
	cmd_id = wren_le16(cmd.hdr.cmd_id);
	memset(&st, 0, sizeof(st));
	e->stats.admin_cmds++;

	if ((cmd.hdr.flags & WREN_ADMIN_FLAG_PHASE) !=
	    wren_ring_phase(e->aq_head, e->aq_log_depth)) {
		/* The driver rang for an entry it did not write. */
		wren_warn(e, WREN_WRN_ADMIN_PHASE, slot, cmd.hdr.flags);
		wren_aeq_post(e, WREN_AEQ_WARNING, slot,
			      WREN_WARN_ADMIN_REJECTED);
		st.status = WREN_STATUS_BAD_PARAM;
		st.ext_status = offsetof(struct wren_admin_cmd_hdr, flags) + 1;
	} else if (e->cfg.fault_drop_opcode &&
		   cmd.hdr.opcode == e->cfg.fault_drop_opcode) {
		wren_warn(e, WREN_WRN_FAULT_DROP, cmd.hdr.opcode, cmd_id);
		e->aq_head++;
		return;
	} else {
		wren_cmd_execute(e, &cmd, &st);
	}
	if (st.status != WREN_STATUS_SUCCESS) {
		e->stats.admin_errors++;
		wren_warn(e, WREN_WRN_ADMIN_REJECTED, cmd.hdr.opcode,
			  (uint64_t)st.status << 32 | st.ext_status);
	}
	e->aq_head++;
	complete(e, cmd_id, &st);
}

void wren_admin_doorbell(struct wren_engine *e, uint16_t tail)
{
	uint16_t pending = tail - e->aq_head;

	if (pending > (1U << e->aq_log_depth)) {
		wren_warn(e, WREN_WRN_DOORBELL, WREN_REG_AQ_DB, tail);
		return;
	}
	e->aq_tail = tail;
	/* A command may reset the device; never re-enter. */
	if (e->in_admin)
		return;
	e->in_admin = true;
	while (e->aq_head != e->aq_tail && wren_engine_enabled(e))
		process_one(e);
	e->in_admin = false;
}
