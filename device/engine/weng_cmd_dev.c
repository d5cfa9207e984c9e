// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the commands about the device as a whole.  Its attributes,
 * features and counters, its event queues, protection domains and the
 * transport-context table.
 */
#include <errno.h>
#include <string.h>

#include "weng_cmd.h"

static void fill_attr(struct weng *e, struct wren_dev_attr *a)
{
	const struct weng_config *c = &e->cfg;
	const uint8_t *mac = c->mac;

	memset(a, 0, sizeof(*a));
	a->spec_version = wren_to_le32(FIELD_PREP(WREN_VERSION_MAJOR,
						  WREN_SPEC_VERSION_MAJOR) |
				       FIELD_PREP(WREN_VERSION_MINOR,
						  WREN_SPEC_VERSION_MINOR));
	a->fw_version =
		wren_to_le32(FIELD_PREP(WREN_FW_VERSION_MAJOR, WENG_FW_MAJOR) |
			     FIELD_PREP(WREN_FW_VERSION_MINOR, WENG_FW_MINOR) |
			     FIELD_PREP(WREN_FW_VERSION_PATCH, WENG_FW_PATCH));
	a->caps = wren_to_le64(WENG_CAPS);
	/* EUI-64: flip the universal/local bit, insert ff:fe. */
	a->node_guid = wren_to_le64((uint64_t)(mac[0] ^ 2) << 56 |
				    (uint64_t)mac[1] << 48 |
				    (uint64_t)mac[2] << 40 | 0xffULL << 32 |
				    0xfeULL << 24 | (uint64_t)mac[3] << 16 |
				    (uint64_t)mac[4] << 8 | mac[5]);
	memcpy(a->mac_addr, mac, sizeof(a->mac_addr));
	a->mtu = wren_to_le16(c->mtu);
	a->ipv4_addr = c->ipv4;
	a->link_speed_mbps = wren_to_le32(c->link_speed_mbps);
	a->gid[10] = 0xff;
	a->gid[11] = 0xff;
	memcpy(&a->gid[12], &c->ipv4, 4);
	memcpy(a->serial, c->serial, strnlen(c->serial, sizeof(a->serial)));
	a->max_eq = wren_to_le32(e->max_eq);
	a->max_eq_depth = wren_to_le32(c->max_eq_depth);
	a->max_pd = wren_to_le32(c->max_pd);
	a->max_cq = wren_to_le32(c->max_cq);
	a->max_cq_depth = wren_to_le32(c->max_cq_depth);
	a->max_qp = wren_to_le32(c->max_qp);
	a->max_qp_depth = wren_to_le32(c->max_qp_depth);
	/* What the largest entries hold (WREN_CAP_WQE_SHIFT). */
	a->max_sge = wren_to_le32(WREN_SQ_WQE_SGE(WREN_SQ_WQE_SHIFT_MAX));
	a->max_recv_sge = wren_to_le32(WREN_RQ_WQE_SGE(WREN_RQ_WQE_SHIFT_MAX));
	a->max_inline = wren_to_le32(WREN_SQ_WQE_INLINE(WREN_SQ_WQE_SHIFT_MAX));
	a->max_ah = wren_to_le32(c->max_ah);
	a->max_mr = wren_to_le32(c->max_mr);
	a->db_page_count = wren_to_le32(c->db_page_count);
	a->max_mr_size = wren_to_le64(c->max_mr_size);
	a->page_size_cap = wren_to_le64(c->page_size_cap);
	a->msix_vectors = wren_to_le32(c->msix_vectors);
	a->max_msg_size = wren_to_le32(c->max_msg_size);
	a->tc_cache = wren_to_le32(c->tc_cache);
	a->min_tc_log = weng_tc_min_log(e);
	a->max_tc_log = WENG_TC_MAX_LOG;
	a->max_rd_atom = wren_to_le32(c->max_rd_atom);
	a->max_res_rd_atom = wren_to_le32(e->resp_count);
	a->max_srq = wren_to_le32(e->cfg.max_srq);
	a->max_counter_set = wren_to_le32(e->cfg.max_counter_set);
}

int weng_cmd_get_attr(struct weng *e, const void *body,
		      struct weng_cmd_status *st)
{
	const struct wren_cmd_get_attr *c = body;
	uint32_t len = wren_le32(c->buf_len);
	uint64_t addr = wren_le64(c->buf_addr);
	struct wren_dev_attr attr;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_get_attr, rsvd))
		return -1;
	if (len < 64 || len > 4096)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_get_attr,
					     buf_len));
	fill_attr(e, &attr);
	if (!weng_put_result(e, addr, len, &attr, sizeof(attr), st))
		return -1;
	st->result[0] = sizeof(attr);
	return 0;
}

int weng_cmd_get_stats(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	const struct wren_cmd_get_stats *c = body;
	uint32_t len = wren_le32(c->buf_len), set = wren_le16(c->set);
	uint64_t addr = wren_le64(c->buf_addr);
	uint64_t v[WREN_STAT_COUNT];

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_get_stats, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_get_stats, rsvd))
		return -1;
	if (len < 8 || len > 4096 || len % 8)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_get_stats,
					     buf_len));
	if (c->flags & ~WREN_STATS_FLAG_SET)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_get_stats, flags));
	if (!(c->flags & WREN_STATS_FLAG_SET)) {
		if (set)
			return weng_reject(st, WREN_STATUS_BAD_PARAM,
					   WENG_BODY(struct wren_cmd_get_stats,
						     set));
		set = WENG_STATS_TOTALS;
	}
	if (weng_counter_read(e, set, v))
		return weng_reject(st, WREN_STATUS_NOT_FOUND, 0);
	for (int i = 0; i < WREN_STAT_COUNT; i++)
		v[i] = wren_to_le64(v[i]);
	if (!weng_put_result(e, addr, len, v, sizeof(v), st))
		return -1;
	st->result[0] = WREN_STAT_COUNT;
	return 0;
}

int weng_cmd_alloc_counter_set(struct weng *e, const void *body,
			       struct weng_cmd_status *st)
{
	uint32_t set;

	/* A zeroed body: any byte set is a field this version lacks. */
	if (!weng_rsvd_zero(st, body, WREN_ADMIN_CMD_PAYLOAD,
			    sizeof(struct wren_admin_cmd_hdr)))
		return -1;
	if (weng_counter_alloc(e, &set))
		return weng_reject(st, WREN_STATUS_NO_RESOURCES, 0);
	st->result[0] = set;
	return 0;
}

int weng_cmd_free_counter_set(struct weng *e, const void *body,
			      struct weng_cmd_status *st)
{
	uint32_t set;

	if (!weng_cmd_handle(body, st, &set))
		return -1;
	switch (weng_counter_free(e, set)) {
	case 0:
		return 0;
	case -EBUSY:
		return weng_reject(st, WREN_STATUS_BAD_STATE, 0);
	default:
		return weng_reject(st, WREN_STATUS_NOT_FOUND, 0);
	}
}

int weng_cmd_bind_counter_set(struct weng *e, const void *body,
			      struct weng_cmd_status *st)
{
	const struct wren_cmd_bind_counter_set *c = body;
	struct weng_qp *qp;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_bind_counter_set, rsvd))
		return -1;
	qp = weng_qp_get(e, wren_le32(c->qpn));
	if (!qp)
		return weng_reject(st, WREN_STATUS_NOT_FOUND, 0);
	if (weng_counter_bind(e, qp, wren_le32(c->set)))
		return weng_reject(st, WREN_STATUS_NOT_FOUND, 0);
	return 0;
}

static int get_set_feature(struct weng *e, const void *body, bool set,
			   struct weng_cmd_status *st)
{
	const struct wren_cmd_feature *c = body;
	uint32_t value = wren_le32(c->value);

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_feature, rsvd) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_feature, rsvd0))
		return -1;
	if (!set && !WENG_RSVD_OK(st, c, struct wren_cmd_feature, value))
		return -1;
	switch (wren_le16(c->feature_id)) {
	case WREN_FEATURE_KEEP_ALIVE_MS:
		if (!set) {
			st->result[0] = e->keep_alive_ms;
			return 0;
		}
		if (value > WENG_KEEP_ALIVE_MAX_MS)
			return weng_reject(st, WREN_STATUS_BAD_PARAM,
					   WENG_BODY(struct wren_cmd_feature,
						     value));
		weng_aeq_set_keep_alive(e, value);
		return 0;
	default:
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_feature,
					     feature_id));
	}
}

int weng_cmd_get_feature(struct weng *e, const void *body,
			 struct weng_cmd_status *st)
{
	return get_set_feature(e, body, false, st);
}

int weng_cmd_set_feature(struct weng *e, const void *body,
			 struct weng_cmd_status *st)
{
	return get_set_feature(e, body, true, st);
}

int weng_cmd_create_eq(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	const struct wren_cmd_create_eq *c = body;
	uint64_t base = wren_le64(c->base_addr);
	uint16_t vector = wren_le16(c->msix_vector);
	struct weng_eq *eq;
	uint32_t id;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_create_eq, rsvd))
		return -1;
	if (!base || base % WREN_QUEUE_BASE_ALIGN)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_create_eq,
					     base_addr));
	if (c->log_depth < WREN_QUEUE_LOG_DEPTH_MIN ||
	    c->log_depth > WREN_QUEUE_LOG_DEPTH_MAX ||
	    (1U << c->log_depth) > e->cfg.max_eq_depth)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_create_eq,
					     log_depth));
	if (c->flags & ~WREN_EQ_FLAG_INTR)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_create_eq, flags));
	if (vector < 1 || vector >= e->cfg.msix_vectors)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_create_eq,
					     msix_vector));
	for (id = 0; id < e->max_eq && e->eqs[id].in_use; id++)
		;
	if (id == e->max_eq)
		return weng_reject(st, WREN_STATUS_NO_RESOURCES, 0);
	eq = &e->eqs[id];
	memset(eq, 0, sizeof(*eq));
	eq->in_use = true;
	eq->intr = c->flags & WREN_EQ_FLAG_INTR;
	eq->vector = vector;
	eq->ring.base = base;
	eq->ring.log_depth = c->log_depth;
	eq->ring.index_mask = WREN_EQ_DB_HEAD;
	st->result[0] = id;
	return 0;
}

int weng_cmd_destroy_eq(struct weng *e, const void *body,
			struct weng_cmd_status *st)
{
	struct weng_eq *eq;
	uint32_t id;

	if (!weng_cmd_handle(body, st, &id))
		return -1;
	eq = weng_eq_get(e, id);
	if (!eq)
		return weng_reject(st, WREN_STATUS_NOT_FOUND, 0);
	if (eq->refs)
		return weng_reject(st, WREN_STATUS_BAD_STATE, 0);
	memset(eq, 0, sizeof(*eq));
	return 0;
}

int weng_cmd_alloc_pd(struct weng *e, const void *body,
		      struct weng_cmd_status *st)
{
	const struct wren_cmd_alloc_pd *c = body;
	uint32_t flags = wren_le32(c->flags), pdn;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_alloc_pd, rsvd))
		return -1;
	if (flags & ~WREN_PD_FLAG_KERNEL)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_alloc_pd, flags));
	for (pdn = 0; pdn < e->cfg.max_pd && e->pd_used[pdn]; pdn++)
		;
	if (pdn == e->cfg.max_pd)
		return weng_reject(st, WREN_STATUS_NO_RESOURCES, 0);
	e->pd_used[pdn] = WENG_PD_USED |
			  (flags & WREN_PD_FLAG_KERNEL ? WENG_PD_KERNEL : 0);
	st->result[0] = pdn;
	return 0;
}

int weng_cmd_dealloc_pd(struct weng *e, const void *body,
			struct weng_cmd_status *st)
{
	uint32_t pdn;

	if (!weng_cmd_handle(body, st, &pdn))
		return -1;
	if (!weng_pd_valid(e, pdn))
		return weng_reject(st, WREN_STATUS_NOT_FOUND, 0);
	if (e->pd_refs[pdn])
		return weng_reject(st, WREN_STATUS_BAD_STATE, 0);
	e->pd_used[pdn] = 0;
	return 0;
}

int weng_cmd_set_tc_table(struct weng *e, const void *body,
			  struct weng_cmd_status *st)
{
	const struct wren_cmd_set_tc_table *c = body;
	uint64_t base = wren_le64(c->base_addr);

	if (!e->tp)
		return weng_reject(st, WREN_STATUS_UNSUPPORTED, 0);
	if (!WENG_RSVD_OK(st, c, struct wren_cmd_set_tc_table, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_set_tc_table, rsvd))
		return -1;
	if (!base || base % WREN_TC_TABLE_ALIGN)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_set_tc_table,
					     base_addr));
	if (c->log_entries < weng_tc_min_log(e) ||
	    c->log_entries > WENG_TC_MAX_LOG)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_set_tc_table,
					     log_entries));
	switch (weng_tc_attach(e, base, c->log_entries)) {
	case 0:
		return 0;
	case -EIO:
		return weng_reject(st, WREN_STATUS_DMA_ERROR, 0);
	case -EOPNOTSUPP:
		return weng_reject(st, WREN_STATUS_UNSUPPORTED, 0);
	default:
		return weng_reject(st, WREN_STATUS_BAD_STATE, 0);
	}
}
