// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The transport-context table: host memory the driver hands over with
 * SET_TC_TABLE, where the transport keeps the contexts it has no room for
 * (the transport's tp_table.c).  This file is its host side: the command, and each
 * record's layout in guest memory, checked on every read.
 */
#include <errno.h>
#include <string.h>

#include "wren_internal.h"
#include "wren_tp.h"

#define TC_FLAGS	(WREN_TC_STATE | WREN_TC_HANDSHAKE | WREN_TC_ANSWERED)

/* The smallest table: room for every context the adapter holds. */
uint8_t wren_tc_min_log(const struct wren_engine *e)
{
	uint8_t log = 3;

	while ((1U << log) < e->cfg.tc_cache)
		log++;
	return log;
}

static uint64_t tc_addr(const struct wren_engine *e, uint32_t idx)
{
	return e->tc_base + (uint64_t)idx * sizeof(struct wren_tc_entry);
}

static int tc_load(void *opaque, uint32_t idx, struct wren_tp_ctx_rec *rec)
{
	struct wren_engine *e = opaque;
	struct wren_tc_entry t;
	uint32_t flags;

	if (e->ops->dma_read(e->opaque, tc_addr(e, idx), &t, sizeof(t))) {
		wren_warn(e, WREN_WRN_DMA, tc_addr(e, idx), sizeof(t));
		return -EIO;
	}
	flags = wren_le32(t.flags);
	if (flags & ~TC_FLAGS ||
	    FIELD_GET(WREN_TC_STATE, flags) > WREN_TC_STATE_SPILLED ||
	    t.rsvd[0] || t.rsvd[1])
		return -EINVAL;
	memset(rec, 0, sizeof(*rec));
	rec->state = FIELD_GET(WREN_TC_STATE, flags);
	rec->mode = flags & WREN_TC_HANDSHAKE ? WREN_TP_MODE_HANDSHAKE :
						WREN_TP_MODE_OPTIMISTIC;
	rec->answered = flags & WREN_TC_ANSWERED;
	rec->ipv4 = t.ipv4_addr;
	memcpy(rec->mac, t.mac_addr, sizeof(rec->mac));
	rec->class_id = wren_le32(t.class_id);
	rec->epoch = wren_le32(t.epoch);
	rec->session = wren_le32(t.session);
	rec->psn = wren_le32(t.psn);
	rec->msn = wren_le32(t.msn);
	rec->cwnd = wren_le32(t.cwnd);
	rec->base_rtt_ns = wren_le64(t.base_rtt_ns);
	rec->srtt_ns = wren_le64(t.srtt_ns);
	rec->idle_since_ns = wren_le64(t.idle_since_ns);
	return 0;
}

static int tc_save(void *opaque, uint32_t idx,
		   const struct wren_tp_ctx_rec *rec)
{
	struct wren_engine *e = opaque;
	struct wren_tc_entry t = {
		.flags = wren_to_le32(FIELD_PREP(WREN_TC_STATE, rec->state) |
				      (rec->mode == WREN_TP_MODE_HANDSHAKE ?
				       WREN_TC_HANDSHAKE : 0) |
				      (rec->answered ? WREN_TC_ANSWERED : 0)),
		.ipv4_addr = rec->ipv4,
		.class_id = wren_to_le32(rec->class_id),
		.epoch = wren_to_le32(rec->epoch),
		.session = wren_to_le32(rec->session),
		.psn = wren_to_le32(rec->psn),
		.msn = wren_to_le32(rec->msn),
		.cwnd = wren_to_le32(rec->cwnd),
		.base_rtt_ns = wren_to_le64(rec->base_rtt_ns),
		.srtt_ns = wren_to_le64(rec->srtt_ns),
		.idle_since_ns = wren_to_le64(rec->idle_since_ns),
	};

	memcpy(t.mac_addr, rec->mac, sizeof(t.mac_addr));
	if (e->ops->dma_write(e->opaque, tc_addr(e, idx), &t, sizeof(t))) {
		wren_warn(e, WREN_WRN_DMA, tc_addr(e, idx), sizeof(t));
		return -EIO;
	}
	return 0;
}

static const struct wren_tp_store_ops tc_ops = {
	.load = tc_load,
	.save = tc_save,
};

int wren_set_tc_table(struct wren_engine *e, const void *payload,
		      struct wren_cmd_status *st)
{
	const struct wren_cmd_set_tc_table *c = payload;
	uint64_t base = wren_le64(c->base_addr);
	uint32_t entries = 1U << (c->log_entries & 31);
	struct wren_tc_entry probe;

	if (!e->tp)
		return wren_reject(st, WREN_STATUS_UNSUPPORTED, 0);
	if (!WREN_RSVD_OK(st, c, struct wren_cmd_set_tc_table, rsvd0) ||
	    !WREN_RSVD_OK(st, c, struct wren_cmd_set_tc_table, rsvd))
		return -1;
	if (!base || base % WREN_TC_TABLE_ALIGN)
		return wren_reject(st, WREN_STATUS_BAD_PARAM,
				   WREN_BODY(struct wren_cmd_set_tc_table,
					     base_addr));
	if (c->log_entries < wren_tc_min_log(e) ||
	    c->log_entries > WREN_TC_MAX_LOG)
		return wren_reject(st, WREN_STATUS_BAD_PARAM,
				   WREN_BODY(struct wren_cmd_set_tc_table,
					     log_entries));
	if (e->tc_base)
		return wren_reject(st, WREN_STATUS_BAD_STATE, 0);
	for (uint32_t i = 0; i < e->cfg.max_qp; i++)
		if (e->qps[i].in_use)
			return wren_reject(st, WREN_STATUS_BAD_STATE, 0);
	/* Both ends must be reachable before the transport relies on them. */
	if (e->ops->dma_read(e->opaque, base, &probe, sizeof(probe)) ||
	    e->ops->dma_read(e->opaque,
			     base + (uint64_t)(entries - 1) * sizeof(probe),
			     &probe, sizeof(probe))) {
		wren_warn(e, WREN_WRN_DMA, base, (uint64_t)entries * sizeof(probe));
		return wren_reject(st, WREN_STATUS_DMA_ERROR, 0);
	}
	if (wren_tp_set_store(e->tp, &tc_ops, e, entries))
		return wren_reject(st, WREN_STATUS_BAD_STATE, 0);
	e->tc_base = base;
	return 0;
}
