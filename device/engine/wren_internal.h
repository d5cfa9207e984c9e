/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Wren engine internals shared between the engine's files; the host sees
 * only wren_engine.h.
 */
#ifndef WREN_INTERNAL_H
#define WREN_INTERNAL_H

#include <stddef.h>

#include "wren_compat.h"
#include "linux/wren/wren_if.h"
#include "wren_engine.h"

/* What this device model offers: CAPS registers and GET_ATTR alike. */
#define WREN_ENGINE_CAPS	(WREN_CAP_KEEP_ALIVE | WREN_CAP_ADMIN_INTR | \
				 WREN_CAP_UD | WREN_CAP_RD | WREN_CAP_TC_TABLE | \
				 WREN_CAP_RDMA_WRITE | WREN_CAP_RDMA_READ)

void wren_warn(struct wren_engine *e, enum wren_wrn what, uint64_t a, uint64_t b);
void wren_fatal(struct wren_engine *e, unsigned int code);
bool wren_engine_enabled(const struct wren_engine *e);
void wren_admin_doorbell(struct wren_engine *e, uint16_t tail);
void wren_admin_reset(struct wren_engine *e);
int wren_out_ring_push(struct wren_engine *e, struct wren_out_ring *r,
		       unsigned int entry_size, void *entry, uint8_t *flags);
bool wren_out_ring_consume(struct wren_out_ring *r, uint32_t head);
void wren_aeq_post(struct wren_engine *e, uint8_t type, uint32_t info,
		   uint64_t data);
void wren_aeq_doorbell(struct wren_engine *e, uint32_t value);
void wren_aeq_set_keep_alive(struct wren_engine *e, uint32_t period_ms);
void wren_aeq_reset(struct wren_engine *e);
void wren_eq_doorbell(struct wren_engine *e, uint32_t id, uint32_t value);
int wren_eq_post(struct wren_engine *e, uint32_t id, uint8_t type,
		 uint32_t handle);
void wren_eq_reset(struct wren_engine *e);

int wren_objects_init(struct wren_engine *e);
void wren_objects_reset(struct wren_engine *e);
void wren_objects_fini(struct wren_engine *e);
bool wren_pd_busy(const struct wren_engine *e, uint32_t pdn);
bool wren_eq_busy(const struct wren_engine *e, uint32_t id);
void wren_db_ring(struct wren_engine *e, uint64_t offset, uint32_t value,
		  unsigned int size);

int wren_cq_post(struct wren_engine *e, uint32_t cqn, struct wren_cqe *cqe);

/*
 * What a transport callback's cookie names: a QP's send or receive slot,
 * a responder entry, or the RDMA_READ whose response arrives.  Each
 * carries a generation, so a reused QP or entry makes it stale.
 */
enum wren_cookie_kind {
	WREN_COOKIE_QP = 0,
	WREN_COOKIE_RESP = 1,
	WREN_COOKIE_READ = 2,
};

#define WREN_COOKIE(kind, gen, index, slot) \
	((uint64_t)(kind) << 56 | (uint64_t)(uint16_t)(gen) << 40 | \
	 (uint64_t)(index) << 16 | (uint16_t)(slot))
#define WREN_COOKIE_KIND(c)	((unsigned int)((c) >> 56))
#define WREN_COOKIE_GEN(c)	((uint16_t)((c) >> 40))
#define WREN_COOKIE_INDEX(c)	((uint32_t)((c) >> 16) & 0xffffff)
#define WREN_COOKIE_SLOT(c)	((uint32_t)(c) & 0xffff)

struct wren_tp_ulp_ops;
struct wren_tp_peer;
struct wren_tp_msg;
enum wren_tp_status;
extern const struct wren_tp_ulp_ops wren_qp_ulp_ops;
void wren_sq_process(struct wren_engine *e, struct wren_qp *qp);
void wren_qp_read_timer(void *arg);
void wren_sq_resume(struct wren_engine *e);
void wren_qp_flush(struct wren_engine *e, struct wren_qp *qp);
int wren_engine_wire_start(struct wren_engine *e);
void wren_engine_wire_stop(struct wren_engine *e);
int wren_mr_walk(struct wren_engine *e, uint32_t pdn, uint32_t key,
		 uint64_t va, uint64_t len, uint8_t need,
		 int (*fn)(void *arg, uint64_t addr, uint32_t len), void *arg);
int wren_mr_read(struct wren_engine *e, uint32_t pdn, uint32_t key,
		 uint64_t va, void *buf, uint32_t len, uint8_t need);

/* The responder's side of one-sided operations (wren_rdma.c). */
int wren_rdma_init(struct wren_engine *e);
void wren_rdma_reset(struct wren_engine *e);
void wren_rdma_fini(struct wren_engine *e);
enum wren_tp_status wren_rdma_rx_begin(struct wren_engine *e,
				       struct wren_qp *qp,
				       const struct wren_tp_peer *peer,
				       const struct wren_tp_msg *m,
				       uint64_t *cookie);
int wren_rdma_rx_write(struct wren_engine *e, uint64_t cookie, uint32_t off,
		       const void *buf, uint32_t len);
void wren_rdma_rx_done(struct wren_engine *e, uint64_t cookie,
		       enum wren_tp_status st);
int wren_rdma_tx_read(struct wren_engine *e, uint64_t cookie, uint32_t off,
		      void *buf, uint32_t len);
void wren_rdma_tx_done(struct wren_engine *e, uint64_t cookie,
		       enum wren_tp_status st);
void wren_rdma_flush(struct wren_engine *e);
int wren_mr_write(struct wren_engine *e, uint32_t pdn, uint32_t key,
		  uint64_t va, const void *buf, uint32_t len, uint8_t need);

static inline uint64_t min_t64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

struct wren_admin_cmd;
struct wren_cmd_status {
	uint8_t status;
	uint32_t ext_status;
	uint32_t result[4];
};
void wren_cmd_execute(struct wren_engine *e, const struct wren_admin_cmd *cmd,
		      struct wren_cmd_status *st);

/* The offset of @field of a command body, in the command. */
#define WREN_BODY(type, field) \
	(sizeof(struct wren_admin_cmd_hdr) + offsetof(type, field))

/* Refuse a command; BAD_PARAM names the field's offset plus one. */
static inline int wren_reject(struct wren_cmd_status *st, uint8_t status,
			      size_t offset)
{
	st->status = status;
	st->ext_status = status == WREN_STATUS_BAD_PARAM ? offset + 1 : 0;
	return -1;
}

/* Reserved bytes must be zero: true if they are, else refuse. */
static inline bool wren_rsvd_zero(struct wren_cmd_status *st,
				  const void *field, size_t len, size_t offset)
{
	const uint8_t *p = field;

	for (size_t i = 0; i < len; i++)
		if (p[i]) {
			wren_reject(st, WREN_STATUS_BAD_PARAM, offset + i);
			return false;
		}
	return true;
}

#define WREN_RSVD_OK(st, body, type, field) \
	wren_rsvd_zero(st, &(body)->field, sizeof((body)->field), \
		       WREN_BODY(type, field))

/* Data-path object commands (wren_objects.c); each returns 0 or -1. */
int wren_create_cq(struct wren_engine *e, const void *payload,
		   struct wren_cmd_status *st);
int wren_destroy_cq(struct wren_engine *e, uint32_t cqn,
		    struct wren_cmd_status *st);
int wren_create_qp(struct wren_engine *e, const void *payload,
		   struct wren_cmd_status *st);
int wren_modify_qp(struct wren_engine *e, const void *payload,
		   struct wren_cmd_status *st);
int wren_query_qp(struct wren_engine *e, uint32_t qpn,
		  struct wren_cmd_status *st);
int wren_destroy_qp(struct wren_engine *e, uint32_t qpn,
		    struct wren_cmd_status *st);
int wren_create_ah(struct wren_engine *e, const void *payload,
		   struct wren_cmd_status *st);
int wren_destroy_ah(struct wren_engine *e, uint32_t n,
		    struct wren_cmd_status *st);
int wren_reg_mr(struct wren_engine *e, const void *payload,
		struct wren_cmd_status *st);
int wren_dereg_mr(struct wren_engine *e, uint32_t key,
		  struct wren_cmd_status *st);

/* The transport-context table in host memory (wren_tc.c). */
#define WREN_TC_MAX_LOG		20
uint8_t wren_tc_min_log(const struct wren_engine *e);
int wren_set_tc_table(struct wren_engine *e, const void *payload,
		      struct wren_cmd_status *st);

#endif /* WREN_INTERNAL_H */
