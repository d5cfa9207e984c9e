// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the transport-context table, host memory the driver hands
 * over with SET_TC_TABLE, where the transport keeps the contexts it has
 * no room for (the transport's tp_table.c).  This file is its host side:
 * each record's layout in guest memory, checked on every read.
 */
#include <errno.h>
#include <string.h>

#include "weng_internal.h"

#define TC_FLAGS	(WREN_TC_STATE | WREN_TC_HANDSHAKE | WREN_TC_ANSWERED)

/* The smallest table: room for every context the adapter holds. */
uint8_t weng_tc_min_log(const struct weng *e)
{
	uint8_t log = 3;

	while ((1U << log) < e->cfg.tc_cache)
		log++;
	return log;
}

static uint64_t tc_addr(const struct weng *e, uint32_t idx)
{
	return e->tc_base + (uint64_t)idx * sizeof(struct wren_tc_entry);
}

static int tc_load(void *opaque, uint32_t idx, struct wren_tp_ctx_rec *rec)
{
	struct weng *e = opaque;
	struct wren_tc_entry t;
	uint32_t flags;

	if (weng_dma_read(e, tc_addr(e, idx), &t, sizeof(t)))
		return -EIO;
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
	struct weng *e = opaque;
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
	return weng_dma_write(e, tc_addr(e, idx), &t, sizeof(t)) ? -EIO : 0;
}

static const struct wren_tp_store_ops tc_ops = {
	.load = tc_load,
	.save = tc_save,
};

/*
 * Make the table of 2^@log_entries records at @base (checked by the
 * command) the transport's: -EOPNOTSUPP without a transport, -EBUSY once a
 * table is set or a QP exists, -EIO if either end of it is unreachable.
 */
int weng_tc_attach(struct weng *e, uint64_t base, uint8_t log_entries)
{
	uint32_t entries = 1U << log_entries;
	struct wren_tc_entry probe;

	if (!e->tp)
		return -EOPNOTSUPP;
	if (e->tc_base)
		return -EBUSY;
	for (uint32_t i = 0; i < e->cfg.max_qp; i++)
		if (e->qps[i].in_use)
			return -EBUSY;
	/* Both ends must be reachable before the transport relies on them. */
	if (weng_dma_read(e, base, &probe, sizeof(probe)) ||
	    weng_dma_read(e, base + (uint64_t)(entries - 1) * sizeof(probe),
			  &probe, sizeof(probe)))
		return -EIO;
	if (wren_tp_set_store(e->tp, &tc_ops, e, entries))
		return -EBUSY;
	e->tc_base = base;
	return 0;
}
