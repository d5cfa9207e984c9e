// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the adapter as its host sees it.  Its life cycle (create,
 * function-level reset, destroy), the BAR0 register file and the
 * reset/enable handshake.  Every part of the engine is set up, reset and
 * torn down from here, lowest layer first up and last down.
 */
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

void weng_config_defaults(struct weng_config *cfg)
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
	cfg->max_ah = 4096;
	cfg->max_mr = 4096;
	/* What a page list describes in 4 KiB pages: any memory fits. */
	cfg->max_mr_size = (uint64_t)WREN_PBL_MAX_PAGES << 12;
	cfg->page_size_cap = (1ULL << 12) | (1ULL << 21) | (1ULL << 30);
	cfg->max_eq_depth = 4096;
	cfg->db_page_count = 256;
	cfg->max_msg_size = WREN_WIRE_MAX_MSG_LEN;
	cfg->time_scale = 1;
	cfg->tc_cache = 1024;
	cfg->max_rd_atom = 128;
	cfg->max_srq = 1024;
	cfg->max_counter_set = WENG_DEFAULT_COUNTER_SETS;
}

/* Set up, reset and tear down every part, in this order. */
static const struct {
	int (*init)(struct weng *e);
	void (*reset)(struct weng *e);
	void (*fini)(struct weng *e);
} parts[] = {
	{ weng_aeq_init, weng_aeq_reset, weng_aeq_fini },
	{ weng_eq_init, weng_eq_reset, weng_eq_fini },
	{ weng_cq_init, weng_cq_reset, weng_cq_fini },
	{ weng_pd_init, weng_pd_reset, weng_pd_fini },
	{ weng_ah_init, weng_ah_reset, weng_ah_fini },
	{ weng_mr_init, weng_mr_reset, weng_mr_fini },
	{ weng_srq_init, weng_srq_reset, weng_srq_fini },
	{ weng_counter_init, weng_counter_reset, weng_counter_fini },
	{ weng_qp_init, weng_qp_reset, weng_qp_fini },
	{ weng_eth_init, weng_eth_reset, weng_eth_fini },
	{ weng_resp_init, weng_resp_reset, weng_resp_fini },
	{ weng_send_init, weng_send_reset, weng_send_fini },
	{ weng_read_init, weng_read_reset, weng_read_fini },
	{ weng_db_init, weng_db_reset, weng_db_fini },
	{ weng_admin_init, weng_admin_reset, weng_admin_fini },
};

#define NPARTS	(sizeof(parts) / sizeof(parts[0]))

struct weng *weng_create(const struct weng_config *cfg,
			 const struct weng_env_ops *ops, void *opaque)
{
	struct weng *e = calloc(1, sizeof(*e));
	unsigned int i;

	if (!e)
		return NULL;
	e->ops = ops;
	e->opaque = opaque;
	e->cfg = *cfg;
	/*
	 * x-fault-drop-opcode, from before faults could be injected at run
	 * time: the drop-all fault from the start.  Faults aimed at
	 * commands are the host's, not the device's state: a reset keeps
	 * them (weng_fault_reset()).
	 */
	e->fault.drop_all_opcode = cfg->fault_drop_opcode;
	for (i = 0; i < NPARTS; i++) {
		if (parts[i].init(e)) {
			i++;	/* it may have set up some of itself */
			goto fail;
		}
	}
	if (weng_wire_start(e))
		goto fail;
	weng_reset(e);
	return e;
fail:
	/* Every fini copes with a part that was never set up. */
	while (i--)
		parts[i].fini(e);
	free(e);
	return NULL;
}

void weng_destroy(struct weng *e)
{
	if (!e)
		return;
	/*
	 * Objects first, as in a reset, so that what the transport still
	 * holds belongs to no QP; then the transport, then the rest.
	 */
	for (unsigned int i = NPARTS; i--;)
		parts[i].reset(e);
	weng_wire_stop(e);
	for (unsigned int i = NPARTS; i--;)
		parts[i].fini(e);
	free(e);
}

/* A function-level reset: forget every queue and object. */
void weng_reset(struct weng *e)
{
	e->dev_sts = 0;
	e->intr_mask = 0;
	e->aq_base_lo = e->aq_base_hi = e->aq_cfg = 0;
	e->acq_base_lo = e->acq_base_hi = e->acq_cfg = 0;
	e->aeq_base_lo = e->aeq_base_hi = e->aeq_cfg = 0;
	weng_fault_reset(e);
	/*
	 * The admin queue first (last in parts[]), then objects before the
	 * transport: what the transport still holds then
	 * belongs to no QP, so tearing it down writes nothing to the host.
	 */
	for (unsigned int i = NPARTS; i--;)
		parts[i].reset(e);
	if (e->tp) {
		weng_wire_stop(e);
		weng_wire_start(e);
	}
	/* The model has nothing to wait for: it is ready at once. */
	e->dev_sts = WREN_DEV_STS_READY;
}

static bool queue_cfg_valid(struct weng *e, uint32_t base_reg,
			    uint64_t base, uint32_t cfg)
{
	uint32_t log_depth = FIELD_GET(WREN_QUEUE_CFG_LOG_DEPTH, cfg);

	if (log_depth < WREN_QUEUE_LOG_DEPTH_MIN ||
	    log_depth > WREN_QUEUE_LOG_DEPTH_MAX ||
	    cfg & ~WREN_QUEUE_CFG_LOG_DEPTH ||
	    !base || base % WREN_QUEUE_BASE_ALIGN) {
		weng_warn(e, WENG_WRN_QUEUE_CFG, base_reg, cfg);
		return false;
	}
	return true;
}

static void enable(struct weng *e)
{
	uint64_t aq = (uint64_t)e->aq_base_hi << 32 | e->aq_base_lo;
	uint64_t acq = (uint64_t)e->acq_base_hi << 32 | e->acq_base_lo;
	uint64_t aeq = (uint64_t)e->aeq_base_hi << 32 | e->aeq_base_lo;

	if (!(e->dev_sts & WREN_DEV_STS_READY) ||
	    e->dev_sts & (WREN_DEV_STS_ENABLED | WREN_DEV_STS_FATAL)) {
		weng_warn(e, WENG_WRN_NOT_READY, WREN_REG_DEV_CTL,
			  WREN_DEV_CTL_ENABLE);
		return;
	}
	if (!queue_cfg_valid(e, WREN_REG_AQ_BASE_LO, aq, e->aq_cfg) ||
	    !queue_cfg_valid(e, WREN_REG_ACQ_BASE_LO, acq, e->acq_cfg) ||
	    !queue_cfg_valid(e, WREN_REG_AEQ_BASE_LO, aeq, e->aeq_cfg)) {
		weng_fatal(e, WREN_FATAL_BAD_QUEUE_CFG);
		return;
	}
	if (e->acq_cfg != e->aq_cfg) {
		weng_warn(e, WENG_WRN_QUEUE_CFG, WREN_REG_ACQ_BASE_LO, e->acq_cfg);
		weng_fatal(e, WREN_FATAL_BAD_QUEUE_CFG);
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

static uint32_t *config_reg(struct weng *e, uint64_t offset)
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

uint32_t weng_reg_read(struct weng *e, uint64_t offset, unsigned int size)
{
	uint32_t *reg;

	if (weng_mmio_refused(e))
		return 0;
	if (size != 4 || offset % 4) {
		weng_warn(e, WENG_WRN_BAD_ACCESS, offset, size);
		return 0;
	}
	switch (offset) {
	case WREN_REG_VERSION:
		return FIELD_PREP(WREN_VERSION_MAJOR, WREN_SPEC_VERSION_MAJOR) |
		       FIELD_PREP(WREN_VERSION_MINOR, WREN_SPEC_VERSION_MINOR);
	case WREN_REG_CAPS_LO:
		return (uint32_t)WENG_CAPS;
	case WREN_REG_CAPS_HI:
		return (uint32_t)(WENG_CAPS >> 32);
	case WREN_REG_TIMEOUTS:
		return FIELD_PREP(WREN_TIMEOUTS_RESET_MS, WENG_RESET_TIMEOUT_MS) |
		       FIELD_PREP(WREN_TIMEOUTS_ADMIN_MS, WENG_ADMIN_TIMEOUT_MS);
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
		weng_warn(e, WENG_WRN_BAD_REGISTER, offset, 0);
	return 0;
}

void weng_reg_write(struct weng *e, uint64_t offset, uint32_t value,
		    unsigned int size)
{
	uint32_t *reg;

	if (weng_mmio_refused(e))
		return;
	if (size != 4 || offset % 4) {
		weng_warn(e, WENG_WRN_BAD_ACCESS, offset, size);
		return;
	}
	switch (offset) {
	case WREN_REG_VERSION:
	case WREN_REG_CAPS_LO:
	case WREN_REG_CAPS_HI:
	case WREN_REG_TIMEOUTS:
	case WREN_REG_DEV_STS:
		weng_warn(e, WENG_WRN_READ_ONLY, offset, value);
		return;
	case WREN_REG_DEV_CTL:
		if (value & ~(WREN_DEV_CTL_RESET | WREN_DEV_CTL_ENABLE))
			weng_warn(e, WENG_WRN_BAD_REGISTER, offset, value);
		if (value & WREN_DEV_CTL_RESET)
			weng_reset(e);
		else if (value & WREN_DEV_CTL_ENABLE &&
			 !(e->dev_sts & WREN_DEV_STS_ENABLED))
			enable(e);
		return;
	case WREN_REG_INTR_MASK:
		e->intr_mask = value & WREN_INTR_MASK_MGMT;
		return;
	case WREN_REG_AQ_DB:
		if (!weng_enabled(e) || value & ~WREN_AQ_DB_TAIL) {
			weng_warn(e, WENG_WRN_DOORBELL, offset, value);
			return;
		}
		weng_admin_doorbell(e, value);
		return;
	case WREN_REG_AEQ_DB:
		weng_aeq_doorbell(e, value);
		return;
	}
	if (offset >= WREN_REG_EQ_DB_BASE &&
	    offset < WREN_REG_EQ_DB(WREN_REG_EQ_DB_MAX)) {
		weng_eq_doorbell(e, (offset - WREN_REG_EQ_DB_BASE) /
				 WREN_REG_EQ_DB_STRIDE, value);
		return;
	}
	reg = config_reg(e, offset);
	if (!reg) {
		weng_warn(e, WENG_WRN_BAD_REGISTER, offset, value);
		return;
	}
	/* Queue configuration is fixed from ENABLE to the next reset. */
	if (e->dev_sts & WREN_DEV_STS_ENABLED) {
		weng_warn(e, WENG_WRN_NOT_READY, offset, value);
		return;
	}
	*reg = value;
}

