/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren engine: the BAR0 register file and the reset/enable handshake.
 */
#include <stdlib.h>
#include <string.h>

#include "wren_internal.h"
#include "wren_tp.h"
#include "linux/wren/wren_wire.h"

void wren_config_defaults(struct wren_config *cfg)
{
	static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0x57, 0x52, 0x00 };

	memset(cfg, 0, sizeof(*cfg));
	memcpy(cfg->mac, mac, sizeof(mac));
	cfg->ipv4 = htobe32(0xc6120001);	/* 198.18.0.1 */
	cfg->mtu = 4096;
	cfg->link_speed_mbps = 100000;
	cfg->msix_vectors = 8;
	cfg->max_pd = 1024;
	cfg->max_cq = 1024;
	cfg->max_cq_depth = 4096;
	cfg->max_qp = 1024;
	cfg->max_qp_depth = 4096;
	cfg->max_sge = WREN_SQ_MAX_SGE;
	cfg->max_inline = WREN_SQ_MAX_INLINE;
	cfg->max_ah = 4096;
	cfg->max_mr = 4096;
	/* What a page list describes in 4 KiB pages: any memory fits. */
	cfg->max_mr_size = (uint64_t)WREN_PBL_MAX_PAGES << 12;
	cfg->page_size_cap = (1ULL << 12) | (1ULL << 21) | (1ULL << 30);
	cfg->max_eq_depth = 4096;
	cfg->db_page_count = 256;
	cfg->max_msg_size = 1U << 30;
	cfg->time_scale = 1;
	cfg->tc_cache = 1024;
	cfg->max_rd_atom = 128;
}

void wren_warn(struct wren_engine *e, enum wren_wrn what, uint64_t a, uint64_t b)
{
	e->stats.guest_errors++;
	e->ops->warn(e->opaque, what, a, b);
}

void wren_fatal(struct wren_engine *e, unsigned int code)
{
	if (e->dev_sts & WREN_DEV_STS_FATAL)
		return;
	e->dev_sts |= WREN_DEV_STS_FATAL |
		      FIELD_PREP(WREN_DEV_STS_FATAL_CODE, code);
	/* Tell the driver if the event queue still works; then stop. */
	if (e->dev_sts & WREN_DEV_STS_ENABLED && code != WREN_FATAL_DMA)
		wren_aeq_post(e, WREN_AEQ_FATAL, 0, code);
	e->ops->host.timer_cancel(e->keep_alive_timer);
}

bool wren_engine_enabled(const struct wren_engine *e)
{
	return (e->dev_sts & (WREN_DEV_STS_ENABLED | WREN_DEV_STS_FATAL)) ==
	       WREN_DEV_STS_ENABLED;
}

static void keep_alive_expired(void *arg)
{
	struct wren_engine *e = arg;

	if (!wren_engine_enabled(e) || !e->keep_alive_ms)
		return;
	e->keep_alive_sent++;
	wren_aeq_post(e, WREN_AEQ_KEEP_ALIVE, 0, e->keep_alive_sent);
	e->ops->host.timer_arm(e->keep_alive_timer, e->ops->host.now_ns(e->opaque) +
			  (uint64_t)e->keep_alive_ms * 1000000);
}

int wren_engine_init(struct wren_engine *e, const struct wren_config *cfg,
		     const struct wren_env_ops *ops, void *opaque)
{
	memset(e, 0, sizeof(*e));
	e->ops = ops;
	e->opaque = opaque;
	e->cfg = *cfg;
	/* Vector 0 is management; each EQ may have a vector of its own. */
	e->max_eq = cfg->msix_vectors < WREN_REG_EQ_DB_MAX ?
		    cfg->msix_vectors : WREN_REG_EQ_DB_MAX;
	e->eqs = calloc(e->max_eq, sizeof(*e->eqs));
	e->pd_used = calloc(cfg->max_pd, 1);
	e->keep_alive_timer = ops->host.timer_new(opaque, keep_alive_expired, e);
	if (!e->eqs || !e->pd_used || !e->keep_alive_timer ||
	    wren_objects_init(e) || wren_engine_wire_start(e)) {
		wren_engine_fini(e);
		return -1;
	}
	wren_engine_reset(e);
	return 0;
}

void wren_engine_fini(struct wren_engine *e)
{
	if (e->keep_alive_timer)
		e->ops->host.timer_free(e->keep_alive_timer);
	/* Objects first, as in a reset, then the transport. */
	wren_objects_reset(e);
	wren_engine_wire_stop(e);
	wren_objects_fini(e);
	free(e->eqs);
	free(e->pd_used);
	e->keep_alive_timer = NULL;
	e->eqs = NULL;
	e->pd_used = NULL;
}

/* A function-level reset: forget every queue and object. */
void wren_engine_reset(struct wren_engine *e)
{
	e->dev_sts = 0;
	e->intr_mask = 0;
	e->aq_base_lo = e->aq_base_hi = e->aq_cfg = 0;
	e->acq_base_lo = e->acq_base_hi = e->acq_cfg = 0;
	e->aeq_base_lo = e->aeq_base_hi = e->aeq_cfg = 0;
	wren_admin_reset(e);
	wren_aeq_reset(e);
	wren_eq_reset(e);
	memset(e->pd_used, 0, e->cfg.max_pd);
	/*
	 * Objects first: what the transport still holds then belongs to no
	 * QP, so tearing it down writes nothing to the host.
	 */
	wren_objects_reset(e);
	if (e->tp) {
		wren_engine_wire_stop(e);
		wren_engine_wire_start(e);
	}
	/* The model has nothing to wait for: it is ready at once. */
	e->dev_sts = WREN_DEV_STS_READY;
}

static bool queue_cfg_valid(struct wren_engine *e, uint32_t base_reg,
			    uint64_t base, uint32_t cfg)
{
	uint32_t log_depth = FIELD_GET(WREN_QUEUE_CFG_LOG_DEPTH, cfg);

	if (log_depth < WREN_QUEUE_LOG_DEPTH_MIN ||
	    log_depth > WREN_QUEUE_LOG_DEPTH_MAX ||
	    cfg & ~WREN_QUEUE_CFG_LOG_DEPTH ||
	    !base || base % WREN_QUEUE_BASE_ALIGN) {
		wren_warn(e, WREN_WRN_QUEUE_CFG, base_reg, cfg);
		return false;
	}
	return true;
}

static void enable(struct wren_engine *e)
{
	uint64_t aq = (uint64_t)e->aq_base_hi << 32 | e->aq_base_lo;
	uint64_t acq = (uint64_t)e->acq_base_hi << 32 | e->acq_base_lo;
	uint64_t aeq = (uint64_t)e->aeq_base_hi << 32 | e->aeq_base_lo;

	if (!(e->dev_sts & WREN_DEV_STS_READY) ||
	    e->dev_sts & (WREN_DEV_STS_ENABLED | WREN_DEV_STS_FATAL)) {
		wren_warn(e, WREN_WRN_NOT_READY, WREN_REG_DEV_CTL,
			  WREN_DEV_CTL_ENABLE);
		return;
	}
	if (!queue_cfg_valid(e, WREN_REG_AQ_BASE_LO, aq, e->aq_cfg) ||
	    !queue_cfg_valid(e, WREN_REG_ACQ_BASE_LO, acq, e->acq_cfg) ||
	    !queue_cfg_valid(e, WREN_REG_AEQ_BASE_LO, aeq, e->aeq_cfg)) {
		wren_fatal(e, WREN_FATAL_BAD_QUEUE_CFG);
		return;
	}
	if (e->acq_cfg != e->aq_cfg) {
		wren_warn(e, WREN_WRN_QUEUE_CFG, WREN_REG_ACQ_BASE_LO, e->acq_cfg);
		wren_fatal(e, WREN_FATAL_BAD_QUEUE_CFG);
		return;
	}
	e->aq_base = aq;
	e->aq_log_depth = e->aq_cfg;
	e->acq.base = acq;
	e->acq.log_depth = e->acq_cfg;
	e->acq.index_mask = 0xffff;
	e->aeq.base = aeq;
	e->aeq.log_depth = e->aeq_cfg;
	e->aeq.index_mask = 0xffff;
	e->dev_sts |= WREN_DEV_STS_ENABLED;
}

static uint32_t *config_reg(struct wren_engine *e, uint64_t offset)
{
	switch (offset) {
	case WREN_REG_AQ_BASE_LO:	return &e->aq_base_lo;
	case WREN_REG_AQ_BASE_HI:	return &e->aq_base_hi;
	case WREN_REG_AQ_CFG:		return &e->aq_cfg;
	case WREN_REG_ACQ_BASE_LO:	return &e->acq_base_lo;
	case WREN_REG_ACQ_BASE_HI:	return &e->acq_base_hi;
	case WREN_REG_ACQ_CFG:		return &e->acq_cfg;
	case WREN_REG_AEQ_BASE_LO:	return &e->aeq_base_lo;
	case WREN_REG_AEQ_BASE_HI:	return &e->aeq_base_hi;
	case WREN_REG_AEQ_CFG:		return &e->aeq_cfg;
	default:			return NULL;
	}
}

uint32_t wren_reg_read(struct wren_engine *e, uint64_t offset, unsigned int size)
{
	uint32_t *reg;

	if (size != 4 || offset % 4) {
		wren_warn(e, WREN_WRN_BAD_ACCESS, offset, size);
		return 0;
	}
	switch (offset) {
	case WREN_REG_VERSION:
		return FIELD_PREP(WREN_VERSION_MAJOR, WREN_SPEC_VERSION_MAJOR) |
		       FIELD_PREP(WREN_VERSION_MINOR, WREN_SPEC_VERSION_MINOR);
	case WREN_REG_CAPS_LO:
		return (uint32_t)WREN_ENGINE_CAPS;
	case WREN_REG_CAPS_HI:
		return (uint32_t)(WREN_ENGINE_CAPS >> 32);
	case WREN_REG_TIMEOUTS:
		return FIELD_PREP(WREN_TIMEOUTS_RESET_MS, WREN_RESET_TIMEOUT_MS) |
		       FIELD_PREP(WREN_TIMEOUTS_ADMIN_MS, WREN_ADMIN_TIMEOUT_MS);
	case WREN_REG_DEV_CTL:
		return e->dev_sts & WREN_DEV_STS_ENABLED ? WREN_DEV_CTL_ENABLE : 0;
	case WREN_REG_DEV_STS:
		return e->dev_sts;
	case WREN_REG_INTR_MASK:
		return e->intr_mask;
	}
	reg = config_reg(e, offset);
	if (reg)
		return *reg;
	/* Doorbells are write-only; anything else names no register. */
	if (offset != WREN_REG_AQ_DB && offset != WREN_REG_AEQ_DB &&
	    (offset < WREN_REG_EQ_DB_BASE ||
	     offset >= WREN_REG_EQ_DB(WREN_REG_EQ_DB_MAX)))
		wren_warn(e, WREN_WRN_BAD_REGISTER, offset, 0);
	return 0;
}

void wren_reg_write(struct wren_engine *e, uint64_t offset, uint32_t value,
		    unsigned int size)
{
	uint32_t *reg;

	if (size != 4 || offset % 4) {
		wren_warn(e, WREN_WRN_BAD_ACCESS, offset, size);
		return;
	}
	switch (offset) {
	case WREN_REG_VERSION:
	case WREN_REG_CAPS_LO:
	case WREN_REG_CAPS_HI:
	case WREN_REG_TIMEOUTS:
	case WREN_REG_DEV_STS:
		wren_warn(e, WREN_WRN_READ_ONLY, offset, value);
		return;
	case WREN_REG_DEV_CTL:
		if (value & ~(WREN_DEV_CTL_RESET | WREN_DEV_CTL_ENABLE))
			wren_warn(e, WREN_WRN_BAD_REGISTER, offset, value);
		if (value & WREN_DEV_CTL_RESET)
			wren_engine_reset(e);
		else if (value & WREN_DEV_CTL_ENABLE &&
			 !(e->dev_sts & WREN_DEV_STS_ENABLED))
			enable(e);
		return;
	case WREN_REG_INTR_MASK:
		e->intr_mask = value & WREN_INTR_MASK_MGMT;
		return;
	case WREN_REG_AQ_DB:
		if (!wren_engine_enabled(e) || value & ~WREN_AQ_DB_TAIL) {
			wren_warn(e, WREN_WRN_DOORBELL, offset, value);
			return;
		}
		wren_admin_doorbell(e, value);
		return;
	case WREN_REG_AEQ_DB:
		wren_aeq_doorbell(e, value);
		return;
	}
	if (offset >= WREN_REG_EQ_DB_BASE &&
	    offset < WREN_REG_EQ_DB(WREN_REG_EQ_DB_MAX)) {
		wren_eq_doorbell(e, (offset - WREN_REG_EQ_DB_BASE) /
				 WREN_REG_EQ_DB_STRIDE, value);
		return;
	}
	reg = config_reg(e, offset);
	if (!reg) {
		wren_warn(e, WREN_WRN_BAD_REGISTER, offset, value);
		return;
	}
	/* Queue configuration is fixed from ENABLE to the next reset. */
	if (e->dev_sts & WREN_DEV_STS_ENABLED) {
		wren_warn(e, WREN_WRN_NOT_READY, offset, value);
		return;
	}
	*reg = value;
}

/* No queue is bound to a doorbell page yet: every access is a mistake. */
uint32_t wren_db_read(struct wren_engine *e, uint64_t offset, unsigned int size)
{
	wren_warn(e, WREN_WRN_DB_PAGE, offset, size);
	return 0;
}

void wren_db_write(struct wren_engine *e, uint64_t offset, uint32_t value,
		   unsigned int size)
{
	wren_db_ring(e, offset, value, size);
}

/*
 * The adapter's wire: a transport, if the host gives the engine one (an
 * env with tx_kick and random); a host without one has no data path.
 */
int wren_engine_wire_start(struct wren_engine *e)
{
	struct wren_tp_config tc;

	if (!e->ops->host.tx_kick || !e->ops->host.random)
		return 0;
	wren_tp_config_defaults(&tc);
	tc.ipv4 = e->cfg.ipv4;
	memcpy(tc.mac, e->cfg.mac, sizeof(tc.mac));
	tc.mtu = e->cfg.mtu;
	tc.max_msgs = 4 * e->cfg.max_qp_depth;
	tc.max_ctx = e->cfg.tc_cache;
	/*
	 * The defaults suit a data centre; an emulated host (QEMU under TCG)
	 * answers a thousand times slower and needs every time stretched.
	 */
	if (e->cfg.time_scale > 1) {
		uint64_t k = e->cfg.time_scale;

		tc.init_rto_ns *= k;
		tc.min_rto_ns *= k;
		tc.max_rto_ns *= k;
		tc.ack_delay_ns *= k;
		tc.cc_target_ns *= k;
		tc.idle_ns *= k;
		tc.mpl_ns *= k;
	}
	/*
	 * A responder gives an answer up after max_retries timeouts of at
	 * most max_rto each; a requester that heard nothing for twice that
	 * stops waiting.
	 */
	e->read_timeout_ns = 2ULL * (tc.max_retries + 1) * tc.max_rto_ns;
	e->tp = wren_tp_create(&tc, &e->ops->host, e->opaque, &wren_qp_ulp_ops, e);
	return e->tp ? 0 : -1;
}

void wren_engine_wire_stop(struct wren_engine *e)
{
	wren_tp_destroy(e->tp);
	e->tp = NULL;
	e->tc_base = 0;
}

/*
 * A frame to the adapter's own address never reaches the wire: like a
 * NIC's internal switch, the adapter hands it to its own receive side,
 * so QPs of one adapter talk to each other with or without a network.
 */
static bool to_self(const struct wren_engine *e, const uint8_t *frame,
		    size_t len)
{
	uint32_t dst;

	if (len < WREN_WIRE_ETH_LEN + WREN_WIRE_IPV4_LEN)
		return false;
	memcpy(&dst, frame + WREN_WIRE_ETH_LEN + 16, sizeof(dst));
	return dst == e->cfg.ipv4;
}

size_t wren_engine_tx_pull(struct wren_engine *e, void *frame, size_t cap)
{
	size_t len;

	if (!e->tp)
		return 0;
	while ((len = wren_tp_tx_pull(e->tp, frame, cap)) &&
	       to_self(e, frame, len)) {
		wren_tp_rx(e->tp, frame, len);
		wren_rdma_flush(e);
	}
	return len;
}

void wren_engine_rx_frame(struct wren_engine *e, const void *frame,
			  size_t len)
{
	if (e->tp && wren_engine_enabled(e)) {
		wren_tp_rx(e->tp, frame, len);
		/* Reads whose requests just completed get their answers. */
		wren_rdma_flush(e);
	}
}
