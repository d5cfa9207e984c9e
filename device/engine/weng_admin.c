// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the admin queue.  Fetches commands between the device's
 * consumer index and the driver's doorbell, checks their phase, has them
 * executed (weng_cmd.c, which knows what they mean) and posts their
 * completions.  Injected faults (struct weng_fault) bite here too: a
 * stopped queue takes commands and answers none, a dropped completion is
 * never posted, a delayed one is posted by an alarm once it is due.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "weng_internal.h"

static void admin_late_due(void *arg);

int weng_admin_init(struct weng *e)
{
	return weng_alarm_init(e, &e->late_alarm, admin_late_due);
}

void weng_admin_fini(struct weng *e)
{
	weng_alarm_fini(e, &e->late_alarm);
}

void weng_admin_reset(struct weng *e)
{
	e->aq_base = 0;
	e->aq_log_depth = 0;
	e->aq_head = 0;
	e->aq_tail = 0;
	memset(&e->acq, 0, sizeof(e->acq));
	/* Late completions belong to the queue the reset dropped. */
	memset(e->late, 0, sizeof(e->late));
	weng_alarm_cancel(e, &e->late_alarm);
}

static void admin_complete(struct weng *e, uint16_t cmd_id, uint16_t sq_head,
			   const struct weng_cmd_status *st)
{
	struct wren_admin_cqe cqe;
	int rc;

	memset(&cqe, 0, sizeof(cqe));
	cqe.cmd_id = wren_to_le16(cmd_id);
	cqe.status = st->status;
	cqe.sq_head = wren_to_le16(sq_head);
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

/* Post every late completion that is due; wake again for the next one. */
static void admin_late_due(void *arg)
{
	struct weng *e = arg;
	uint64_t now = weng_now(e), next = 0;
	struct weng_cmd_status st;

	e->late_alarm.at = 0;
	for (;;) {
		struct weng_admin_late *l = NULL;

		/* Oldest first: a shorter delay set later may be due sooner. */
		for (unsigned int i = 0; i < WENG_ADMIN_LATE_MAX; i++)
			if (e->late[i].at && e->late[i].at <= now &&
			    (!l || e->late[i].at < l->at))
				l = &e->late[i];
		if (!l)
			break;
		l->at = 0;
		if (!weng_enabled(e))
			continue;
		st.status = l->status;
		st.ext_status = l->ext_status;
		memcpy(st.result, l->result, sizeof(st.result));
		e->fault.stats.admin_late++;
		weng_fault_report(e, WENG_FLT_ADMIN_LATE, l->opcode, l->cmd_id);
		admin_complete(e, l->cmd_id, l->sq_head, &st);
	}
	for (unsigned int i = 0; i < WENG_ADMIN_LATE_MAX; i++)
		if (e->late[i].at && (!next || e->late[i].at < next))
			next = e->late[i].at;
	if (next)
		weng_alarm_arm(e, &e->late_alarm, next);
}

/*
 * Hold the completion of a command back by the delay fault's time.  With
 * every slot taken (the driver keeps far fewer commands outstanding) it
 * is lost instead, and counted so.
 */
static void admin_delay(struct weng *e, uint8_t opcode, uint16_t cmd_id,
			const struct weng_cmd_status *st)
{
	uint64_t at = weng_now(e) + (uint64_t)e->fault.delay_ms * 1000000;

	for (unsigned int i = 0; i < WENG_ADMIN_LATE_MAX; i++) {
		struct weng_admin_late *l = &e->late[i];

		if (l->at)
			continue;
		l->at = at ? at : 1;
		l->opcode = opcode;
		l->cmd_id = cmd_id;
		l->sq_head = e->aq_head;
		l->status = st->status;
		l->ext_status = st->ext_status;
		memcpy(l->result, st->result, sizeof(l->result));
		e->fault.stats.admin_delayed++;
		weng_fault_report(e, WENG_FLT_ADMIN_DELAYED, opcode, cmd_id);
		weng_alarm_arm(e, &e->late_alarm, l->at);
		return;
	}
	e->fault.stats.admin_dropped++;
	weng_warn(e, WENG_WRN_FAULT_DROP, opcode, cmd_id);
}

/* The drop faults: true if this completion of @opcode is to be lost. */
static bool admin_drops(struct weng *e, uint8_t opcode)
{
	if (!opcode)
		return false;
	if (opcode == e->fault.drop_all_opcode)
		return true;
	if (opcode != e->fault.drop_opcode)
		return false;
	e->fault.drop_opcode = 0;	/* once */
	return true;
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
	} else if (e->fault.admin_stop) {
		/* Taken, as the consumer index will tell; never executed. */
		e->fault.stats.admin_stopped++;
		weng_fault_report(e, WENG_FLT_ADMIN_STOPPED, cmd.hdr.opcode,
				  cmd_id);
		e->aq_head++;
		return;
	} else if (admin_drops(e, cmd.hdr.opcode)) {
		/* Executed, so the device's state moves; the driver never hears. */
		weng_cmd_execute(e, &cmd, &st);
		e->fault.stats.admin_dropped++;
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
	if (e->fault.delay_opcode && cmd.hdr.opcode == e->fault.delay_opcode &&
	    weng_enabled(e)) {
		/* Like drop: the next command of the opcode, once. */
		e->fault.delay_opcode = 0;
		admin_delay(e, cmd.hdr.opcode, cmd_id, &st);
		return;
	}
	admin_complete(e, cmd_id, e->aq_head, &st);
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
