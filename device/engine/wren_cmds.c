/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren engine: what each admin command does.  Every field is checked; a
 * rejected field is named by its byte offset in the command (plus one) in
 * the extended status.
 */
#include <stddef.h>
#include <string.h>

#include "wren_internal.h"
#include "wren_tp.h"

static void fill_attr(struct wren_engine *e, struct wren_dev_attr *a)
{
	const struct wren_config *c = &e->cfg;
	const uint8_t *mac = c->mac;

	memset(a, 0, sizeof(*a));
	a->spec_version = wren_to_le32(FIELD_PREP(WREN_VERSION_MAJOR,
						  WREN_SPEC_VERSION_MAJOR) |
				       FIELD_PREP(WREN_VERSION_MINOR,
						  WREN_SPEC_VERSION_MINOR));
	a->fw_version = wren_to_le32(FIELD_PREP(WREN_FW_VERSION_MAJOR, WREN_FW_MAJOR) |
				     FIELD_PREP(WREN_FW_VERSION_MINOR, WREN_FW_MINOR) |
				     FIELD_PREP(WREN_FW_VERSION_PATCH, WREN_FW_PATCH));
	a->caps = wren_to_le64(WREN_ENGINE_CAPS);
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
	a->max_sge = wren_to_le32(c->max_sge);
	a->max_recv_sge = wren_to_le32(WREN_RQ_MAX_SGE);
	a->max_inline = wren_to_le32(c->max_inline);
	a->max_ah = wren_to_le32(c->max_ah);
	a->max_mr = wren_to_le32(c->max_mr);
	a->db_page_count = wren_to_le32(c->db_page_count);
	a->max_mr_size = wren_to_le64(c->max_mr_size);
	a->page_size_cap = wren_to_le64(c->page_size_cap);
	a->msix_vectors = wren_to_le32(c->msix_vectors);
	a->max_msg_size = wren_to_le32(c->max_msg_size);
	a->tc_cache = wren_to_le32(c->tc_cache);
	a->min_tc_log = wren_tc_min_log(e);
	a->max_tc_log = WREN_TC_MAX_LOG;
	a->max_rd_atom = wren_to_le32(c->max_rd_atom);
	a->max_res_rd_atom = wren_to_le32(e->resp_count);
}

/*
 * Write a command's result to the host buffer of @len bytes at @addr,
 * truncated to it; false (and a DMA_ERROR status) if the host refuses.
 */
static bool put_result(struct wren_engine *e, uint64_t addr, uint32_t len,
		       const void *buf, size_t size, struct wren_cmd_status *st)
{
	if (len > size)
		len = size;
	if (e->ops->dma_write(e->opaque, addr, buf, len)) {
		wren_warn(e, WREN_WRN_DMA, addr, len);
		wren_reject(st, WREN_STATUS_DMA_ERROR, 0);
		return false;
	}
	return true;
}

static void get_attr(struct wren_engine *e, const void *payload,
		     struct wren_cmd_status *st)
{
	const struct wren_cmd_get_attr *c = payload;
	uint32_t len = wren_le32(c->buf_len);
	uint64_t addr = wren_le64(c->buf_addr);
	struct wren_dev_attr attr;

	if (!WREN_RSVD_OK(st, c, struct wren_cmd_get_attr, rsvd))
		return;
	if (len < 64 || len > 4096) {
		wren_reject(st, WREN_STATUS_BAD_PARAM,
			    WREN_BODY(struct wren_cmd_get_attr, buf_len));
		return;
	}
	fill_attr(e, &attr);
	if (put_result(e, addr, len, &attr, sizeof(attr), st))
		st->result[0] = sizeof(attr);
}

/* The transport's counters in the order of enum wren_dev_stat. */
static void fill_stats(const struct wren_engine *e, uint64_t *v)
{
	struct wren_tp_stats t;

	memset(&t, 0, sizeof(t));
	if (e->tp)
		wren_tp_get_stats(e->tp, &t);
	v[WREN_STAT_TX_PKTS] = t.tx_pkts;
	v[WREN_STAT_TX_BYTES] = t.tx_bytes;
	v[WREN_STAT_RX_PKTS] = t.rx_pkts;
	v[WREN_STAT_RX_BYTES] = t.rx_bytes;
	v[WREN_STAT_TX_DATA_PKTS] = t.tx_data_pkts;
	v[WREN_STAT_RX_DATA_PKTS] = t.rx_data_pkts;
	v[WREN_STAT_RETX_TIMEOUT] = t.retx[WREN_TP_RETX_TIMEOUT];
	v[WREN_STAT_RETX_FAST] = t.retx[WREN_TP_RETX_FAST];
	v[WREN_STAT_RETX_NACK] = t.retx[WREN_TP_RETX_NACK];
	v[WREN_STAT_RETX_RECONNECT] = t.retx[WREN_TP_RETX_RECONNECT];
	v[WREN_STAT_SPURIOUS_RETX] = t.spurious_retx;
	v[WREN_STAT_OOO_PKTS] = t.ooo_pkts;
	v[WREN_STAT_DUP_PKTS] = t.drops[WREN_TP_DROP_DUPLICATE];
	v[WREN_STAT_RX_DROPS] = 0;
	for (int i = 0; i < WREN_TP_DROP_COUNT; i++)
		if (i != WREN_TP_DROP_DUPLICATE)
			v[WREN_STAT_RX_DROPS] += t.drops[i];
	v[WREN_STAT_ACKS_TX] = t.acks_tx;
	v[WREN_STAT_ACKS_RX] = t.acks_rx;
	v[WREN_STAT_NACKS_TX] = t.nacks_tx;
	v[WREN_STAT_NACKS_RX] = t.nacks_rx;
	v[WREN_STAT_ECN_CE] = t.ecn_ce;
	v[WREN_STAT_CTX_CREATED] = t.ctx_created;
	v[WREN_STAT_CTX_EVICTED] = t.ctx_evicted;
	v[WREN_STAT_CTX_REESTABLISHED] = t.ctx_reestablished;
	v[WREN_STAT_CTX_FAILED] = t.ctx_failed;
	v[WREN_STAT_PATH_CHANGES] = t.path_changes;
	v[WREN_STAT_GRANTS_TX] = t.grants_tx;
	v[WREN_STAT_GRANTS_RX] = t.grants_rx;
	v[WREN_STAT_CC_DECREASES] = t.cc_decreases;
	v[WREN_STAT_MSGS_TX] = t.msgs_tx;
	v[WREN_STAT_MSGS_RX] = t.msgs_rx;
	v[WREN_STAT_UD_TX] = t.ud_tx;
	v[WREN_STAT_UD_RX] = t.ud_rx;
	v[WREN_STAT_CTX_SPILLED] = t.ctx_spilled;
	v[WREN_STAT_CTX_RESTORED] = t.ctx_restored;
	v[WREN_STAT_TC_ERRORS] = t.tc_errors;
	v[WREN_STAT_MSG_ERRORS] = 0;
	for (int i = 0; i < WREN_TP_STATUS_COUNT; i++)
		if (i != WREN_TP_OK)
			v[WREN_STAT_MSG_ERRORS] += t.msg_errors[i];
}

static void get_stats(struct wren_engine *e, const void *payload,
		      struct wren_cmd_status *st)
{
	const struct wren_cmd_get_stats *c = payload;
	uint32_t len = wren_le32(c->buf_len);
	uint64_t addr = wren_le64(c->buf_addr);
	uint64_t v[WREN_STAT_COUNT];

	if (!WREN_RSVD_OK(st, c, struct wren_cmd_get_stats, rsvd))
		return;
	if (len < 8 || len > 4096 || len % 8) {
		wren_reject(st, WREN_STATUS_BAD_PARAM,
			    WREN_BODY(struct wren_cmd_get_stats, buf_len));
		return;
	}
	fill_stats(e, v);
	for (int i = 0; i < WREN_STAT_COUNT; i++)
		v[i] = wren_to_le64(v[i]);
	if (put_result(e, addr, len, v, sizeof(v), st))
		st->result[0] = WREN_STAT_COUNT;
}

#define WREN_KEEP_ALIVE_MAX_MS	3600000

static void feature(struct wren_engine *e, const void *payload, bool set,
		    struct wren_cmd_status *st)
{
	const struct wren_cmd_feature *c = payload;
	uint32_t value = wren_le32(c->value);

	if (!WREN_RSVD_OK(st, c, struct wren_cmd_feature, rsvd) ||
	    !WREN_RSVD_OK(st, c, struct wren_cmd_feature, rsvd0))
		return;
	if (!set && !WREN_RSVD_OK(st, c, struct wren_cmd_feature, value))
		return;
	switch (wren_le16(c->feature_id)) {
	case WREN_FEATURE_KEEP_ALIVE_MS:
		if (!set) {
			st->result[0] = e->keep_alive_ms;
			return;
		}
		if (value > WREN_KEEP_ALIVE_MAX_MS) {
			wren_reject(st, WREN_STATUS_BAD_PARAM,
				    WREN_BODY(struct wren_cmd_feature, value));
			return;
		}
		wren_aeq_set_keep_alive(e, value);
		return;
	default:
		wren_reject(st, WREN_STATUS_BAD_PARAM,
			    WREN_BODY(struct wren_cmd_feature, feature_id));
	}
}

static void create_eq(struct wren_engine *e, const void *payload,
		      struct wren_cmd_status *st)
{
	const struct wren_cmd_create_eq *c = payload;
	uint64_t base = wren_le64(c->base_addr);
	uint16_t vector = wren_le16(c->msix_vector);
	struct wren_eq *eq;
	uint32_t id;

	if (!WREN_RSVD_OK(st, c, struct wren_cmd_create_eq, rsvd))
		return;
	if (!base || base % WREN_QUEUE_BASE_ALIGN) {
		wren_reject(st, WREN_STATUS_BAD_PARAM,
			    WREN_BODY(struct wren_cmd_create_eq, base_addr));
		return;
	}
	if (c->log_depth < WREN_QUEUE_LOG_DEPTH_MIN ||
	    c->log_depth > WREN_QUEUE_LOG_DEPTH_MAX ||
	    (1U << c->log_depth) > e->cfg.max_eq_depth) {
		wren_reject(st, WREN_STATUS_BAD_PARAM,
			    WREN_BODY(struct wren_cmd_create_eq, log_depth));
		return;
	}
	if (c->flags & ~WREN_EQ_FLAG_INTR) {
		wren_reject(st, WREN_STATUS_BAD_PARAM,
			    WREN_BODY(struct wren_cmd_create_eq, flags));
		return;
	}
	if (vector < 1 || vector >= e->cfg.msix_vectors) {
		wren_reject(st, WREN_STATUS_BAD_PARAM,
			    WREN_BODY(struct wren_cmd_create_eq, msix_vector));
		return;
	}
	for (id = 0; id < e->max_eq && e->eqs[id].in_use; id++)
		;
	if (id == e->max_eq) {
		wren_reject(st, WREN_STATUS_NO_RESOURCES, 0);
		return;
	}
	eq = &e->eqs[id];
	memset(eq, 0, sizeof(*eq));
	eq->in_use = true;
	eq->intr = c->flags & WREN_EQ_FLAG_INTR;
	eq->vector = vector;
	eq->ring.base = base;
	eq->ring.log_depth = c->log_depth;
	eq->ring.index_mask = WREN_EQ_DB_HEAD;
	st->result[0] = id;
}

/* The handle of a DESTROY/DEALLOC command, if it is well formed. */
static bool destroy_handle(const void *payload, struct wren_cmd_status *st,
			   uint32_t *handle)
{
	const struct wren_cmd_destroy_obj *c = payload;

	if (!WREN_RSVD_OK(st, c, struct wren_cmd_destroy_obj, rsvd))
		return false;
	*handle = wren_le32(c->handle);
	return true;
}

static void destroy_eq(struct wren_engine *e, const void *payload,
		       struct wren_cmd_status *st)
{
	uint32_t id;

	if (!destroy_handle(payload, st, &id))
		return;
	if (id >= e->max_eq || !e->eqs[id].in_use) {
		wren_reject(st, WREN_STATUS_NOT_FOUND, 0);
		return;
	}
	if (wren_eq_busy(e, id)) {
		wren_reject(st, WREN_STATUS_BAD_STATE, 0);
		return;
	}
	memset(&e->eqs[id], 0, sizeof(e->eqs[id]));
}

static void alloc_pd(struct wren_engine *e, const void *payload,
		     struct wren_cmd_status *st)
{
	const struct wren_cmd_alloc_pd *c = payload;
	uint32_t pdn;

	if (!WREN_RSVD_OK(st, c, struct wren_cmd_alloc_pd, rsvd))
		return;
	for (pdn = 0; pdn < e->cfg.max_pd && e->pd_used[pdn]; pdn++)
		;
	if (pdn == e->cfg.max_pd) {
		wren_reject(st, WREN_STATUS_NO_RESOURCES, 0);
		return;
	}
	e->pd_used[pdn] = 1;
	st->result[0] = pdn;
}

static void dealloc_pd(struct wren_engine *e, const void *payload,
		       struct wren_cmd_status *st)
{
	uint32_t pdn;

	if (!destroy_handle(payload, st, &pdn))
		return;
	if (pdn >= e->cfg.max_pd || !e->pd_used[pdn]) {
		wren_reject(st, WREN_STATUS_NOT_FOUND, 0);
		return;
	}
	if (wren_pd_busy(e, pdn)) {
		wren_reject(st, WREN_STATUS_BAD_STATE, 0);
		return;
	}
	e->pd_used[pdn] = 0;
}

/* The commands that name one object by its handle. */
static void by_handle(struct wren_engine *e, uint8_t opcode,
		      const void *payload, struct wren_cmd_status *st)
{
	uint32_t h;

	if (!destroy_handle(payload, st, &h))
		return;
	switch (opcode) {
	case WREN_ADMIN_DESTROY_CQ:
		wren_destroy_cq(e, h, st);
		break;
	case WREN_ADMIN_QUERY_QP:
		wren_query_qp(e, h, st);
		break;
	case WREN_ADMIN_DESTROY_QP:
		wren_destroy_qp(e, h, st);
		break;
	case WREN_ADMIN_DESTROY_AH:
		wren_destroy_ah(e, h, st);
		break;
	case WREN_ADMIN_DEREG_MR:
		wren_dereg_mr(e, h, st);
		break;
	}
}

void wren_cmd_execute(struct wren_engine *e, const struct wren_admin_cmd *cmd,
		      struct wren_cmd_status *st)
{
	const void *body = cmd->payload;

	if (cmd->hdr.flags & ~WREN_ADMIN_FLAG_PHASE) {
		wren_reject(st, WREN_STATUS_BAD_PARAM,
			    offsetof(struct wren_admin_cmd_hdr, flags));
		return;
	}
	if (!wren_rsvd_zero(st, &cmd->hdr.rsvd, sizeof(cmd->hdr.rsvd),
			    offsetof(struct wren_admin_cmd_hdr, rsvd)))
		return;

	switch (cmd->hdr.opcode) {
	case WREN_ADMIN_GET_ATTR:
		get_attr(e, body, st);
		break;
	case WREN_ADMIN_GET_FEATURE:
		feature(e, body, false, st);
		break;
	case WREN_ADMIN_SET_FEATURE:
		feature(e, body, true, st);
		break;
	case WREN_ADMIN_CREATE_EQ:
		create_eq(e, body, st);
		break;
	case WREN_ADMIN_DESTROY_EQ:
		destroy_eq(e, body, st);
		break;
	case WREN_ADMIN_ALLOC_PD:
		alloc_pd(e, body, st);
		break;
	case WREN_ADMIN_DEALLOC_PD:
		dealloc_pd(e, body, st);
		break;
	case WREN_ADMIN_CREATE_CQ:
		wren_create_cq(e, body, st);
		break;
	case WREN_ADMIN_CREATE_QP:
		wren_create_qp(e, body, st);
		break;
	case WREN_ADMIN_MODIFY_QP:
		wren_modify_qp(e, body, st);
		break;
	case WREN_ADMIN_CREATE_AH:
		wren_create_ah(e, body, st);
		break;
	case WREN_ADMIN_REG_MR:
		wren_reg_mr(e, body, st);
		break;
	case WREN_ADMIN_DESTROY_CQ:
	case WREN_ADMIN_QUERY_QP:
	case WREN_ADMIN_DESTROY_QP:
	case WREN_ADMIN_DESTROY_AH:
	case WREN_ADMIN_DEREG_MR:
		by_handle(e, cmd->hdr.opcode, body, st);
		break;
	case WREN_ADMIN_GET_STATS:
		get_stats(e, body, st);
		break;
	case WREN_ADMIN_SET_TC_TABLE:
		wren_set_tc_table(e, body, st);
		break;
	default:
		wren_reject(st, WREN_STATUS_BAD_OPCODE, 0);
		break;
	}
}
