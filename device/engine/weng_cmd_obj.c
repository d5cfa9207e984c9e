// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the commands on data-path objects (completion queues,
 * queue pairs, address handles, memory regions).
 *
 * Everything here comes from the guest and is checked: a rejected field is
 * named by its offset in the extended status, an object in use cannot be
 * destroyed from under its users (BAD_STATE), and a queue gets doorbell
 * registers only in the page the driver names.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_cmd.h"
#include "linux/wren/wren_wire.h"

/* Both return -1: a handler can end with "return reject_field(...)". */
static int reject_field(struct weng_cmd_status *st, size_t offset)
{
	return weng_reject(st, WREN_STATUS_BAD_PARAM, offset);
}

static int reject_status(struct weng_cmd_status *st, uint8_t status)
{
	return weng_reject(st, status, 0);
}

static bool log_depth_ok(uint8_t log_depth, uint32_t max_depth)
{
	return log_depth >= WREN_QUEUE_LOG_DEPTH_MIN &&
	       log_depth < 31 && (1U << log_depth) <= max_depth;
}

static bool base_ok(uint64_t base)
{
	return base && !(base % WREN_QUEUE_BASE_ALIGN);
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                    */
/* ------------------------------------------------------------------ */

int weng_cmd_create_cq(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	const struct wren_cmd_create_cq *c = body;
	uint64_t base = wren_le64(c->base_addr);
	uint32_t page = wren_le32(c->db_page);
	uint16_t eq_id = wren_le16(c->eq_id);
	enum weng_db_kind kind = WENG_DB_CQ;
	struct weng_cq *cq;
	uint32_t cqn;
	uint16_t slot;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_create_cq, rsvd))
		return -1;
	if (!base_ok(base))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_cq,
						  base_addr));
	if (!log_depth_ok(c->log_depth, e->cfg.max_cq_depth))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_cq,
						  log_depth));
	if (c->flags & ~WREN_CQ_FLAG_EQ)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_cq,
						  flags));
	if (c->flags & WREN_CQ_FLAG_EQ ?
	    eq_id >= e->max_eq || !e->eqs[eq_id].in_use : eq_id)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_cq,
						  eq_id));
	if (page >= e->cfg.db_page_count)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_cq,
						  db_page));
	for (cqn = 0; cqn < e->cfg.max_cq && e->cqs[cqn].in_use; cqn++)
		;
	if (cqn == e->cfg.max_cq ||
	    !weng_db_alloc(e, page, 1, &kind, cqn, &slot))
		return reject_status(st, WREN_STATUS_NO_RESOURCES);
	cq = &e->cqs[cqn];
	memset(cq, 0, sizeof(*cq));
	cq->in_use = true;
	cq->ring.base = base;
	cq->ring.log_depth = c->log_depth;
	cq->ring.index_mask = WREN_CQ_DB_CI;
	cq->use_eq = c->flags & WREN_CQ_FLAG_EQ;
	cq->eq_id = eq_id;
	cq->db_page = page;
	cq->db_slot = slot;
	if (cq->use_eq)
		e->eqs[eq_id].refs++;
	st->result[0] = cqn;
	st->result[1] = slot * 4;
	return 0;
}

int weng_cmd_destroy_cq(struct weng *e, const void *body,
			struct weng_cmd_status *st)
{
	struct weng_cq *cq;
	uint32_t cqn;

	if (!weng_cmd_handle(body, st, &cqn))
		return -1;
	if (!weng_cq_get(e, cqn))
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	cq = &e->cqs[cqn];
	if (cq->refs)
		return reject_status(st, WREN_STATUS_BAD_STATE);
	if (cq->use_eq)
		e->eqs[cq->eq_id].refs--;
	weng_db_free(e, cq->db_page, cq->db_slot);
	memset(cq, 0, sizeof(*cq));
	return 0;
}

int weng_cmd_resize_cq(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	const struct wren_cmd_resize_cq *c = body;
	uint64_t base = wren_le64(c->base_addr);
	struct weng_cq *cq;
	uint32_t moved;
	int rc;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_resize_cq, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_resize_cq, rsvd))
		return -1;
	cq = weng_cq_get(e, wren_le32(c->cqn));
	if (!cq)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	if (!base_ok(base))
		return reject_field(st, WENG_BODY(struct wren_cmd_resize_cq,
						  base_addr));
	if (!log_depth_ok(c->log_depth, e->cfg.max_cq_depth))
		return reject_field(st, WENG_BODY(struct wren_cmd_resize_cq,
						  log_depth));
	rc = weng_cq_resize(e, cq, base, c->log_depth, &moved);
	/* Well formed, but the CQ holds more than the ring would. */
	if (rc == -ENOSPC)
		return reject_status(st, WREN_STATUS_BAD_STATE);
	if (rc)
		return reject_status(st, WREN_STATUS_DMA_ERROR);
	st->result[0] = moved;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Queue pairs                                                          */
/* ------------------------------------------------------------------ */

int weng_cmd_create_qp(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	const struct wren_cmd_create_qp *c = body;
	uint32_t pdn = wren_le32(c->pdn), page = wren_le32(c->db_page);
	uint32_t scq = wren_le32(c->send_cq), rcq = wren_le32(c->recv_cq);
	enum weng_db_kind kinds[2] = { WENG_DB_SQ, WENG_DB_RQ };
	uint8_t rd_only = WREN_QP_FLAG_ORDERED | WREN_QP_FLAG_HANDSHAKE;
	struct weng_qp *qp;
	uint16_t slots[2], gen;
	uint32_t i = 0, n, qpn;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_create_qp, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_create_qp, rsvd))
		return -1;
	if (!base_ok(wren_le64(c->sq_base)))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  sq_base));
	/* A QP on an SRQ has no receive queue of its own. */
	if (c->flags & WREN_QP_FLAG_SRQ ?
	    c->rq_base || c->rq_log_depth ||
	    !weng_srq_get(e, wren_le32(c->srqn)) ||
	    e->srqs[wren_le32(c->srqn)].pdn != pdn :
	    !base_ok(wren_le64(c->rq_base)) || c->srqn)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  rq_base));
	if (!weng_pd_valid(e, pdn))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  pdn));
	if (!weng_cq_get(e, scq))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  send_cq));
	if (!weng_cq_get(e, rcq))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  recv_cq));
	if (page >= e->cfg.db_page_count)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  db_page));
	if (c->type != WREN_QPT_UD && c->type != WREN_QPT_RD &&
	    c->type != WREN_QPT_RC && c->type != WREN_QPT_RAW_ETH)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  type));
	/* The Ethernet function: the kernel's, one per adapter. */
	if (c->type == WREN_QPT_RAW_ETH) {
		if (!weng_pd_kernel(e, pdn))
			return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
							  pdn));
		if (c->flags & ~WREN_QP_FLAG_SQ_SIG_ALL)
			return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
							  flags));
		if (e->eth_qpn)
			return reject_status(st, WREN_STATUS_NO_RESOURCES);
	}
	if (!log_depth_ok(c->sq_log_depth, e->cfg.max_qp_depth))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  sq_log_depth));
	if (!(c->flags & WREN_QP_FLAG_SRQ) &&
	    !log_depth_ok(c->rq_log_depth, e->cfg.max_qp_depth))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  rq_log_depth));
	if (c->sq_wqe_shift > WREN_SQ_WQE_SHIFT_MAX)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  sq_wqe_shift));
	if (c->rq_wqe_shift > (c->flags & WREN_QP_FLAG_SRQ ? 0 :
			       WREN_RQ_WQE_SHIFT_MAX))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  rq_wqe_shift));
	if (c->flags & ~(rd_only | WREN_QP_FLAG_SQ_SIG_ALL |
			 WREN_QP_FLAG_SRQ | WREN_QP_FLAG_GSI) ||
	    (c->type != WREN_QPT_RD && c->flags & rd_only) ||
	    (c->type != WREN_QPT_UD && c->flags & WREN_QP_FLAG_GSI))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
						  flags));
	/* The GSI QP: the kernel's, one per adapter. */
	if (c->flags & WREN_QP_FLAG_GSI) {
		if (!weng_pd_kernel(e, pdn))
			return reject_field(st, WENG_BODY(struct wren_cmd_create_qp,
							  pdn));
		if (e->gsi_slot)
			return reject_status(st, WREN_STATUS_NO_RESOURCES);
	}
	/*
	 * QP numbers go round rather than back to the lowest free one: a
	 * message still in flight to a destroyed QP then finds no QP, or
	 * one of the wrong kind, instead of the next QP of that number.
	 */
	for (n = 0; n < e->cfg.max_qp; n++) {
		i = (e->qp_next + n) % e->cfg.max_qp;
		if (!e->qps[i].in_use)
			break;
	}
	qpn = c->flags & WREN_QP_FLAG_GSI ? WREN_QPN_GSI : i + WREN_QPN_FIRST;
	if (n == e->cfg.max_qp || !weng_db_alloc(e, page, 2, kinds, qpn, slots))
		return reject_status(st, WREN_STATUS_NO_RESOURCES);
	e->qp_next = i + 1;
	qp = &e->qps[i];
	gen = qp->gen + 1;
	memset(qp, 0, sizeof(*qp));
	qp->gen = gen;
	qp->sq_log_depth = c->sq_log_depth;
	qp->rq_log_depth = c->rq_log_depth;
	qp->sq_entry_log = WENG_SQ_ENTRY_LOG0 + c->sq_wqe_shift;
	qp->rq_entry_log = WENG_RQ_ENTRY_LOG0 + c->rq_wqe_shift;
	if (weng_qp_alloc_slots(qp) ||
	    (c->type == WREN_QPT_RC && weng_rc_alloc(qp))) {
		weng_qp_free_shadows(qp);
		weng_db_free(e, page, slots[0]);
		weng_db_free(e, page, slots[1]);
		return reject_status(st, WREN_STATUS_NO_RESOURCES);
	}
	qp->in_use = true;
	qp->type = c->type;
	qp->state = WREN_QPS_RESET;
	qp->flags = c->flags;
	/* A datagram QP has no access rights of its own: its keys decide. */
	if (c->type == WREN_QPT_RD)
		qp->access = WREN_MR_ACCESS_REMOTE_WRITE |
			     WREN_MR_ACCESS_REMOTE_READ;
	qp->sq_slot = slots[0];
	qp->rq_slot = slots[1];
	qp->pdn = pdn;
	qp->send_cq = scq;
	qp->recv_cq = rcq;
	qp->db_page = page;
	if (c->flags & WREN_QP_FLAG_SRQ) {
		qp->srqn = wren_le32(c->srqn);
		e->srqs[qp->srqn].refs++;
	}
	qp->sq_base = wren_le64(c->sq_base);
	qp->rq_base = wren_le64(c->rq_base);
	weng_counter_qp_new(e, qpn);
	e->pd_refs[pdn]++;
	e->cqs[scq].refs++;
	e->cqs[rcq].refs++;
	if (c->type == WREN_QPT_RAW_ETH)
		e->eth_qpn = qpn;
	if (c->flags & WREN_QP_FLAG_GSI)
		e->gsi_slot = i + 1;
	st->result[0] = qpn;
	st->result[1] = slots[0] * 4;
	st->result[2] = slots[1] * 4;
	return 0;
}

/* The verbs' state diagram, as far as Wren's QPs use it: SQD is RC's. */
static bool transition_ok(uint8_t type, uint8_t from, uint8_t to)
{
	switch (to) {
	case WREN_QPS_RESET:
	case WREN_QPS_ERR:
		return true;
	case WREN_QPS_INIT:
		return from == WREN_QPS_RESET || from == WREN_QPS_INIT;
	case WREN_QPS_RTR:
		return from == WREN_QPS_INIT;
	case WREN_QPS_RTS:
		return from == WREN_QPS_RTR || from == WREN_QPS_RTS ||
		       from == WREN_QPS_SQD;
	case WREN_QPS_SQD:
		return type == WREN_QPT_RC &&
		       (from == WREN_QPS_RTS || from == WREN_QPS_SQD);
	default:
		return false;
	}
}

/*
 * Which attributes a QP of @type may take from @from to @to, and which it
 * must: an RC QP learns its peer on the way to RTR, its send PSN on the
 * way to RTS.
 */
static uint32_t attrs_allowed(uint8_t type, uint8_t from, uint8_t to,
			      uint32_t *required)
{
	bool up = to != WREN_QPS_RESET && to != WREN_QPS_ERR;

	*required = 0;
	if (type == WREN_QPT_RAW_ETH)
		return 0;
	if (type != WREN_QPT_RC)
		return up ? WREN_QP_ATTR_QKEY : 0;
	if (from == WREN_QPS_INIT && to == WREN_QPS_RTR) {
		*required = WREN_QP_ATTR_DEST | WREN_QP_ATTR_RQ_PSN;
		return *required | WREN_QP_ATTR_RNR | WREN_QP_ATTR_ACCESS;
	}
	if (from == WREN_QPS_RTR && to == WREN_QPS_RTS) {
		*required = WREN_QP_ATTR_SQ_PSN;
		return *required | WREN_QP_ATTR_RNR | WREN_QP_ATTR_ACCESS;
	}
	return up ? WREN_QP_ATTR_RNR | WREN_QP_ATTR_ACCESS : 0;
}

/* The fields @mask does not name must be zero. */
static int modify_unnamed_zero(const struct wren_cmd_modify_qp *c,
			       uint32_t mask, struct weng_cmd_status *st)
{
	static const uint8_t zero_mac[6];

	if (!(mask & WREN_QP_ATTR_STATE) && c->state)
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  state));
	if (!(mask & WREN_QP_ATTR_QKEY) && c->qkey)
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  qkey));
	if (!(mask & WREN_QP_ATTR_DEST) &&
	    (c->dest_qpn || c->dest_ipv4 ||
	     memcmp(c->dest_mac, zero_mac, sizeof(zero_mac))))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  dest_qpn));
	if (!(mask & WREN_QP_ATTR_RQ_PSN) && c->rq_psn)
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  rq_psn));
	if (!(mask & WREN_QP_ATTR_SQ_PSN) && c->sq_psn)
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  sq_psn));
	if (!(mask & WREN_QP_ATTR_RNR) && (c->min_rnr_timer || c->rnr_retry))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  min_rnr_timer));
	if (!(mask & WREN_QP_ATTR_ACCESS) && c->access)
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  access));
	return 0;
}

/* The values of the attributes @mask names must be in range. */
static int modify_values_ok(const struct wren_cmd_modify_qp *c, uint32_t mask,
			    struct weng_cmd_status *st)
{
	if (mask & WREN_QP_ATTR_DEST &&
	    (wren_le32(c->dest_qpn) > WREN_WIRE_QPN_MASK ||
	     wren_le32(c->dest_qpn) < WREN_QPN_FIRST || !c->dest_ipv4))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  dest_qpn));
	if (mask & WREN_QP_ATTR_RQ_PSN &&
	    wren_le32(c->rq_psn) > WREN_QP_PSN_MASK)
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  rq_psn));
	if (mask & WREN_QP_ATTR_SQ_PSN &&
	    wren_le32(c->sq_psn) > WREN_QP_PSN_MASK)
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  sq_psn));
	if (mask & WREN_QP_ATTR_RNR &&
	    (c->min_rnr_timer > 31 ||
	     c->rnr_retry > WREN_QP_RNR_RETRY_FOREVER))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  min_rnr_timer));
	if (mask & WREN_QP_ATTR_ACCESS &&
	    c->access & ~(WREN_MR_ACCESS_REMOTE_WRITE |
			  WREN_MR_ACCESS_REMOTE_READ |
			  WREN_MR_ACCESS_REMOTE_ATOMIC))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  access));
	return 0;
}

/* Set what @mask names. */
static void modify_apply(struct weng_qp *qp, const struct wren_cmd_modify_qp *c,
			 uint32_t mask)
{
	struct weng_rc *rc = qp->rc;

	if (mask & WREN_QP_ATTR_QKEY)
		qp->qkey = wren_le32(c->qkey);
	if (mask & WREN_QP_ATTR_ACCESS)
		qp->access = c->access;
	if (!rc)
		return;
	if (mask & WREN_QP_ATTR_DEST) {
		rc->dest_qpn = wren_le32(c->dest_qpn);
		rc->dest_ipv4 = c->dest_ipv4;
		memcpy(rc->dest_mac, c->dest_mac, sizeof(rc->dest_mac));
	}
	if (mask & WREN_QP_ATTR_RQ_PSN)
		rc->rq_psn = wren_le32(c->rq_psn);
	if (mask & WREN_QP_ATTR_SQ_PSN)
		rc->sq_psn = wren_le32(c->sq_psn);
	if (mask & WREN_QP_ATTR_RNR) {
		rc->min_rnr_timer = c->min_rnr_timer;
		rc->rnr_retry = c->rnr_retry;
	}
}

int weng_cmd_modify_qp(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	const struct wren_cmd_modify_qp *c = body;
	uint32_t mask = wren_le32(c->attr_mask), allowed, required;
	struct weng_qp *qp;
	uint8_t to;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_modify_qp, rsvd1) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_modify_qp, rsvd))
		return -1;
	qp = weng_qp_get(e, wren_le32(c->qpn));
	if (!qp)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	if (modify_unnamed_zero(c, mask, st))
		return -1;
	to = mask & WREN_QP_ATTR_STATE ? c->state : qp->state;
	if (mask & WREN_QP_ATTR_STATE && !transition_ok(qp->type, qp->state, to))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  state));
	allowed = attrs_allowed(qp->type, qp->state, to, &required);
	if (!mask || mask & ~(WREN_QP_ATTR_STATE | allowed) ||
	    (mask & required) != required)
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_qp,
						  attr_mask));
	if (modify_values_ok(c, mask, st))
		return -1;
	modify_apply(qp, c, mask);
	if (to == WREN_QPS_RESET) {
		/* Discarded without completions, as in the verbs. */
		qp->sq_pi = qp->sq_ci = 0;
		qp->rq_pi = qp->rq_ci = 0;
		weng_qp_forget(e, qp, true);
		qp->qkey = 0;
		/* RC's rights come with its peer; RD's are its keys'. */
		if (qp->rc)
			qp->access = 0;
		qp->last_peer = 0;
		qp->last_class = WENG_CLASS_NONE;
	}
	if (to == WREN_QPS_ERR) {
		weng_qp_error(e, qp);
		return 0;
	}
	if (to == WREN_QPS_SQD && qp->state != WREN_QPS_SQD) {
		/* Drained once nothing is in flight (weng_sq_retire()). */
		qp->state = to;
		qp->drained = false;
		weng_sq_retire(e, qp);
		return 0;
	}
	qp->state = to;
	if (to == WREN_QPS_RTS)
		weng_sq_kick(e, qp);
	return 0;
}

int weng_cmd_query_qp(struct weng *e, const void *body,
		      struct weng_cmd_status *st)
{
	const struct weng_qp *qp;
	uint32_t qpn;

	if (!weng_cmd_handle(body, st, &qpn))
		return -1;
	qp = weng_qp_get(e, qpn);
	if (!qp)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	st->result[0] = qp->state;
	st->result[1] = qp->qkey;
	st->result[2] = qp->sq_ci;
	st->result[3] = qp->rq_ci;
	return 0;
}

int weng_cmd_destroy_qp(struct weng *e, const void *body,
			struct weng_cmd_status *st)
{
	struct weng_qp *qp;
	uint16_t gen;
	uint32_t qpn;

	if (!weng_cmd_handle(body, st, &qpn))
		return -1;
	qp = weng_qp_get(e, qpn);
	if (!qp)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	weng_db_free(e, qp->db_page, qp->sq_slot);
	weng_db_free(e, qp->db_page, qp->rq_slot);
	e->pd_refs[qp->pdn]--;
	e->cqs[qp->send_cq].refs--;
	e->cqs[qp->recv_cq].refs--;
	if (qp->flags & WREN_QP_FLAG_SRQ) {
		/* Receives it took are dropped without completions. */
		struct weng_srq *srq = &e->srqs[qp->srqn];

		for (uint32_t i = 0; i < weng_depth(srq->log_depth); i++)
			if (srq->shadow[i].busy &&
			    srq->shadow[i].qp == (uint32_t)(qp - e->qps))
				srq->shadow[i].busy = false;
		srq->refs--;
	}
	if (qpn == e->eth_qpn)
		e->eth_qpn = 0;
	if (qpn == WREN_QPN_GSI)
		e->gsi_slot = 0;
	/* Unbound: what it counted stays in its set. */
	weng_counter_bind(e, qp, 0);
	weng_qp_free_shadows(qp);
	gen = qp->gen + 1;
	memset(qp, 0, sizeof(*qp));
	qp->gen = gen;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Shared receive queues                                                */
/* ------------------------------------------------------------------ */

int weng_cmd_create_srq(struct weng *e, const void *body,
			struct weng_cmd_status *st)
{
	const struct wren_cmd_create_srq *c = body;
	uint32_t pdn = wren_le32(c->pdn), page = wren_le32(c->db_page), n;
	enum weng_db_kind kind = WENG_DB_SRQ;
	struct weng_srq *srq;
	uint16_t slot;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_create_srq, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_create_srq, rsvd))
		return -1;
	if (!base_ok(wren_le64(c->base)))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_srq,
						  base));
	if (!weng_pd_valid(e, pdn))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_srq,
						  pdn));
	if (page >= e->cfg.db_page_count)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_srq,
						  db_page));
	if (!log_depth_ok(c->log_depth, e->cfg.max_qp_depth))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_srq,
						  log_depth));
	if (c->wqe_shift > WREN_RQ_WQE_SHIFT_MAX)
		return reject_field(st, WENG_BODY(struct wren_cmd_create_srq,
						  wqe_shift));
	for (n = 0; n < e->cfg.max_srq && e->srqs[n].in_use; n++)
		;
	if (n == e->cfg.max_srq ||
	    !weng_db_alloc(e, page, 1, &kind, n, &slot))
		return reject_status(st, WREN_STATUS_NO_RESOURCES);
	srq = &e->srqs[n];
	memset(srq, 0, sizeof(*srq));
	srq->entry_log = WENG_RQ_ENTRY_LOG0 + c->wqe_shift;
	srq->shadow = calloc(1U << c->log_depth, sizeof(*srq->shadow));
	srq->entries = calloc(1U << c->log_depth, (size_t)1 << srq->entry_log);
	if (!srq->shadow || !srq->entries) {
		weng_srq_free_slots(srq);
		weng_db_free(e, page, slot);
		return reject_status(st, WREN_STATUS_NO_RESOURCES);
	}
	srq->in_use = true;
	srq->log_depth = c->log_depth;
	srq->db_slot = slot;
	srq->db_page = page;
	srq->pdn = pdn;
	srq->base = wren_le64(c->base);
	e->pd_refs[pdn]++;
	st->result[0] = n;
	st->result[1] = slot * 4;
	return 0;
}

/*
 * Move @srq to a ring of 2^@log_depth entries at @base: the receives not
 * yet taken go to its first slots, in order.  The number moved in
 * @moved, or -1 if guest memory failed (nothing changed then).
 */
static int srq_move(struct weng *e, struct weng_srq *srq, uint64_t base,
		    uint8_t log_depth, uint32_t *moved)
{
	uint32_t mask = weng_depth(srq->log_depth) - 1;
	uint16_t n = srq->pi - srq->ci;
	size_t size = (size_t)1 << srq->entry_log;
	struct weng_rwqe *shadow;
	uint8_t w[WREN_RQ_WQE_SIZE(WREN_RQ_WQE_SHIFT_MAX)];
	uint8_t *entries;

	shadow = calloc(weng_depth(log_depth), sizeof(*shadow));
	entries = calloc(weng_depth(log_depth), size);
	if (!shadow || !entries)
		goto fail;
	for (uint16_t i = 0; i < n; i++) {
		uint64_t from = srq->base +
				((uint64_t)((srq->ci + i) & mask) << srq->entry_log);

		if (weng_dma_read(e, from, w, size) ||
		    weng_dma_write(e, base + ((uint64_t)i << srq->entry_log),
				   w, size))
			goto fail;
	}
	/* Receives being placed keep their slots: the SRQ only grows. */
	memcpy(shadow, srq->shadow, weng_depth(srq->log_depth) *
	       sizeof(*shadow));
	memcpy(entries, srq->entries, weng_depth(srq->log_depth) * size);
	weng_srq_free_slots(srq);
	srq->shadow = shadow;
	srq->entries = entries;
	srq->base = base;
	srq->log_depth = log_depth;
	srq->ci = 0;
	srq->pi = n;
	*moved = n;
	return 0;
fail:
	free(shadow);
	free(entries);
	return -1;
}

int weng_cmd_modify_srq(struct weng *e, const void *body,
			struct weng_cmd_status *st)
{
	const struct wren_cmd_modify_srq *c = body;
	uint32_t mask = wren_le32(c->attr_mask), moved = 0, limit;
	struct weng_srq *srq;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_modify_srq, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_modify_srq, rsvd))
		return -1;
	srq = weng_srq_get(e, wren_le32(c->srqn));
	if (!srq)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	if (!mask || mask & ~(WREN_SRQ_ATTR_LIMIT | WREN_SRQ_ATTR_RING) ||
	    (!(mask & WREN_SRQ_ATTR_LIMIT) && c->limit) ||
	    (!(mask & WREN_SRQ_ATTR_RING) && (c->log_depth || c->base)))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_srq,
						  attr_mask));
	if (mask & WREN_SRQ_ATTR_RING &&
	    (!base_ok(wren_le64(c->base)) || c->log_depth < srq->log_depth ||
	     !log_depth_ok(c->log_depth, e->cfg.max_qp_depth)))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_srq,
						  log_depth));
	limit = wren_le32(c->limit);
	if (mask & WREN_SRQ_ATTR_LIMIT &&
	    limit >= weng_depth(mask & WREN_SRQ_ATTR_RING ? c->log_depth :
				srq->log_depth))
		return reject_field(st, WENG_BODY(struct wren_cmd_modify_srq,
						  limit));
	if (mask & WREN_SRQ_ATTR_RING &&
	    srq_move(e, srq, wren_le64(c->base), c->log_depth, &moved))
		return reject_status(st, WREN_STATUS_DMA_ERROR);
	st->result[0] = moved;
	if (!(mask & WREN_SRQ_ATTR_LIMIT))
		return 0;
	srq->limit = limit;
	/* Armed below what is posted already: it fires at once. */
	weng_srq_limit_check(e, srq);
	return 0;
}

int weng_cmd_query_srq(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	const struct weng_srq *srq;
	uint32_t srqn;

	if (!weng_cmd_handle(body, st, &srqn))
		return -1;
	srq = weng_srq_get(e, srqn);
	if (!srq)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	st->result[0] = srq->limit;
	st->result[1] = srq->ci;
	return 0;
}

int weng_cmd_destroy_srq(struct weng *e, const void *body,
			 struct weng_cmd_status *st)
{
	struct weng_srq *srq;
	uint32_t srqn;

	if (!weng_cmd_handle(body, st, &srqn))
		return -1;
	srq = weng_srq_get(e, srqn);
	if (!srq)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	if (srq->refs)
		return reject_status(st, WREN_STATUS_BAD_STATE);
	weng_db_free(e, srq->db_page, srq->db_slot);
	e->pd_refs[srq->pdn]--;
	weng_srq_free_slots(srq);
	memset(srq, 0, sizeof(*srq));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Address handles                                                      */
/* ------------------------------------------------------------------ */

int weng_cmd_create_ah(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	static const uint8_t unicast_mac[6];
	const struct wren_cmd_create_ah *c = body;
	uint32_t pdn = wren_le32(c->pdn);
	struct weng_ah *ah;
	uint32_t n;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_create_ah, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_create_ah, rsvd))
		return -1;
	if (!weng_pd_valid(e, pdn))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_ah,
						  pdn));
	if (!weng_dest_ok(c->ipv4, unicast_mac))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_ah,
						  ipv4));
	if (!weng_dest_ok(c->ipv4, c->mac))
		return reject_field(st, WENG_BODY(struct wren_cmd_create_ah,
						  mac));
	for (n = 0; n < e->cfg.max_ah && e->ahs[n].in_use; n++)
		;
	if (n == e->cfg.max_ah)
		return reject_status(st, WREN_STATUS_NO_RESOURCES);
	ah = &e->ahs[n];
	ah->in_use = true;
	ah->pdn = pdn;
	ah->ipv4 = c->ipv4;
	memcpy(ah->mac, c->mac, sizeof(ah->mac));
	e->pd_refs[pdn]++;
	st->result[0] = n;
	return 0;
}

int weng_cmd_destroy_ah(struct weng *e, const void *body,
			struct weng_cmd_status *st)
{
	uint32_t n;

	if (!weng_cmd_handle(body, st, &n))
		return -1;
	if (n >= e->cfg.max_ah || !e->ahs[n].in_use)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	e->pd_refs[e->ahs[n].pdn]--;
	memset(&e->ahs[n], 0, sizeof(e->ahs[n]));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Memory regions                                                       */
/* ------------------------------------------------------------------ */

/*
 * The fields REG_MR and REREG_MR share, at the same offsets: checked as
 * REG_MR checks them.  0, or -1 with the field refused in @st.
 */
static int mr_fields_ok(struct weng *e, const struct wren_cmd_reg_mr *c,
			struct weng_cmd_status *st)
{
#define MR_FIELD(f)	WENG_BODY(struct wren_cmd_reg_mr, f)
	static const size_t field[] = {
		[WENG_MR_BAD_PAGE_SHIFT] = MR_FIELD(page_shift),
		[WENG_MR_BAD_LENGTH] = MR_FIELD(length),
		[WENG_MR_BAD_NPAGES] = MR_FIELD(npages),
		[WENG_MR_BAD_PBL] = MR_FIELD(pbl_addr),
		[WENG_MR_BAD_ACCESS] = MR_FIELD(access),
	};
	enum weng_mr_bad bad;

	if (!weng_pd_valid(e, wren_le32(c->pdn)))
		return reject_field(st, MR_FIELD(pdn));
	bad = weng_mr_check(e, wren_le64(c->iova), wren_le64(c->length),
			    wren_le64(c->pbl_addr), wren_le32(c->npages),
			    c->page_shift, c->access);
	return bad == WENG_MR_OK ? 0 : reject_field(st, field[bad]);
}

/*
 * A fast-register region's fields: no address, length, page size or
 * rights until a send entry registers it; a one-level page list of at
 * most WREN_PBL_PER_PAGE pages, its capacity.
 */
static int fast_mr_fields_ok(struct weng *e, const struct wren_cmd_reg_mr *c,
			     struct weng_cmd_status *st)
{
	uint32_t npages = wren_le32(c->npages);
	uint64_t pbl = wren_le64(c->pbl_addr);

	if (!weng_pd_valid(e, wren_le32(c->pdn)))
		return reject_field(st, MR_FIELD(pdn));
	if (c->iova)
		return reject_field(st, MR_FIELD(iova));
	if (c->length)
		return reject_field(st, MR_FIELD(length));
	if (c->page_shift)
		return reject_field(st, MR_FIELD(page_shift));
	if (c->access)
		return reject_field(st, MR_FIELD(access));
	if (!npages || npages > WREN_PBL_PER_PAGE)
		return reject_field(st, MR_FIELD(npages));
	if (!pbl || pbl % 8)
		return reject_field(st, MR_FIELD(pbl_addr));
	return 0;
}
#undef MR_FIELD

/* Give region @mr the shared fields of @c, and its PD's reference. */
static void mr_set(struct weng *e, struct weng_mr *mr,
		   const struct wren_cmd_reg_mr *c)
{
	if (mr->in_use)
		e->pd_refs[mr->pdn]--;
	mr->in_use = true;
	mr->page_shift = c->page_shift;
	mr->access = c->access;
	mr->pdn = wren_le32(c->pdn);
	mr->npages = wren_le32(c->npages);
	mr->iova = wren_le64(c->iova);
	mr->length = wren_le64(c->length);
	mr->pbl_addr = wren_le64(c->pbl_addr);
	mr->valid = true;
	e->pd_refs[mr->pdn]++;
}

int weng_cmd_reg_mr(struct weng *e, const void *body,
		    struct weng_cmd_status *st)
{
	const struct wren_cmd_reg_mr *c = body;
	bool fast = c->flags & WREN_MR_FLAG_FAST;
	struct weng_mr *mr;
	uint32_t n;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_reg_mr, rsvd))
		return -1;
	if (c->flags & ~WREN_MR_FLAG_FAST)
		return reject_field(st, WENG_BODY(struct wren_cmd_reg_mr, flags));
	if (fast ? fast_mr_fields_ok(e, c, st) : mr_fields_ok(e, c, st))
		return -1;
	mr = weng_mr_alloc(e);
	if (!mr)
		return reject_status(st, WREN_STATUS_NO_RESOURCES);
	n = mr - e->mrs;
	if (fast)
		weng_mr_fast_init(e, mr, wren_le32(c->pdn),
				  wren_le64(c->pbl_addr), wren_le32(c->npages));
	else
		mr_set(e, mr, c);
	mr->lkey = weng_mr_key(e, n, c->key_tag, 0);
	mr->rkey = weng_mr_key(e, n, c->key_tag, mr->lkey);
	st->result[0] = mr->lkey;
	st->result[1] = mr->rkey;
	return 0;
}

int weng_cmd_rereg_mr(struct weng *e, const void *body,
		      struct weng_cmd_status *st)
{
	const struct wren_cmd_rereg_mr *c = body;
	struct weng_mr *mr;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_rereg_mr, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_rereg_mr, rsvd))
		return -1;
	mr = weng_mr_of_lkey(e, wren_le32(c->key));
	if (!mr)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	/* Send entries, not admin commands, register a fast-register one. */
	if (mr->fast)
		return reject_field(st, WENG_BODY(struct wren_cmd_rereg_mr,
						  key));
	/* Same layout up to the access rights (wren_if.h asserts it). */
	if (mr_fields_ok(e, body, st))
		return -1;
	mr_set(e, mr, body);
	return 0;
}

int weng_cmd_dereg_mr(struct weng *e, const void *body,
		      struct weng_cmd_status *st)
{
	struct weng_mr *mr;
	uint32_t key;

	if (!weng_cmd_handle(body, st, &key))
		return -1;
	mr = weng_mr_of_lkey(e, key);
	if (!mr)
		return reject_status(st, WREN_STATUS_NOT_FOUND);
	e->pd_refs[mr->pdn]--;
	memset(mr, 0, sizeof(*mr));
	return 0;
}
