// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the admin queue.  Fetches commands between the device's
 * consumer index and the driver's doorbell, checks their phase, has them
 * executed (weng_cmd.c, which knows what they mean) and posts their
 * completions.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "weng_internal.h"

void weng_admin_reset(struct weng *e)
{
	e->aq_base = 0;
	e->aq_log_depth = 0;
	e->aq_head = 0;
	e->aq_tail = 0;
	memset(&e->acq, 0, sizeof(e->acq));
}

static void admin_complete(struct weng *e, uint16_t cmd_id,
			   const struct weng_cmd_status *st)
{
	struct wren_admin_cqe cqe;
	int rc;

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
	rc = weng_ring_push(e, &e->acq, sizeof(cqe), &cqe, &cqe.flags);
	if (rc == -EIO)
		weng_fatal(e, WREN_FATAL_DMA);
	if (rc)
		return;
	if (!(e->intr_mask & WREN_INTR_MASK_MGMT))
		e->ops->irq(e->opaque, 0);
}

static void admin_fetch_one(struct weng *e)
{
	uint32_t depth = 1U << e->aq_log_depth;
	uint32_t slot = e->aq_head & (depth - 1);
	uint64_t addr = e->aq_base + (uint64_t)slot * WREN_ADMIN_CMD_SIZE;
	struct weng_cmd_status st;
	struct wren_admin_cmd cmd;
	uint16_t cmd_id;

	if (weng_dma_read(e, addr, &cmd, sizeof(cmd))) {
		weng_fatal(e, WREN_FATAL_DMA);
		return;
	}
	cmd_id = wren_le16(cmd.hdr.cmd_id);
	memset(&st, 0, sizeof(st));
	e->stats.admin_cmds++;

	if ((cmd.hdr.flags & WREN_ADMIN_FLAG_PHASE) !=
	    wren_ring_phase(e->aq_head, e->aq_log_depth)) {
		/* The driver rang for an entry it did not write. */
		weng_warn(e, WENG_WRN_ADMIN_PHASE, slot, cmd.hdr.flags);
		weng_aeq_post(e, WREN_AEQ_WARNING, slot,
			      WREN_WARN_ADMIN_REJECTED);
		st.status = WREN_STATUS_BAD_PARAM;
		st.ext_status = offsetof(struct wren_admin_cmd_hdr, flags) + 1;
	} else if (e->cfg.fault_drop_opcode &&
		   cmd.hdr.opcode == e->cfg.fault_drop_opcode) {
		weng_warn(e, WENG_WRN_FAULT_DROP, cmd.hdr.opcode, cmd_id);
		e->aq_head++;
		return;
	} else {
		weng_cmd_execute(e, &cmd, &st);
	}
	if (st.status != WREN_STATUS_SUCCESS) {
		e->stats.admin_errors++;
		weng_warn(e, WENG_WRN_ADMIN_REJECTED, cmd.hdr.opcode,
			  (uint64_t)st.status << 32 | st.ext_status);
	}
	e->aq_head++;
	admin_complete(e, cmd_id, &st);
}

void weng_admin_doorbell(struct weng *e, uint16_t tail)
{
	uint16_t pending = tail - e->aq_head;

	if (pending > (1U << e->aq_log_depth)) {
		weng_warn(e, WENG_WRN_DOORBELL, WREN_REG_AQ_DB, tail);
		return;
	}
	e->aq_tail = tail;
	/* A command may reset the device; never re-enter. */
	if (e->in_admin)
		return;
	e->in_admin = true;
	while (e->aq_head != e->aq_tail && weng_enabled(e))
		admin_fetch_one(e);
	e->in_admin = false;
}
