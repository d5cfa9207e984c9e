// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: QUERY_CTX (WREN_CAP_QUERY_CTX), the device's own view of a
 * QP, CQ, memory region or SRQ, as it holds it, for `rdma res show -r`.
 * Each context is a snapshot read from the engine's state; nothing here
 * changes it.
 */
#include <string.h>

#include "weng_cmd.h"

/* The counters a QP keeps whatever set it is bound to. */
static void qp_ctx_counters(const struct weng *e, uint32_t qpn,
			    struct wren_qp_ctx *x)
{
	const struct wren_tp_stats *t = &e->tp_acct[qpn];

	x->tx_msgs = wren_to_le64(t->tx_msgs);
	x->rx_msgs = wren_to_le64(t->rx_msgs);
	x->retx_pkts = wren_to_le64(t->retx_timeout + t->retx_fast +
				    t->retx_nack + t->retx_reconnect);
	x->rnr_waits = wren_to_le64(e->eng_acct[qpn].rnr_waits);
}

/*
 * The transport context of @qp's latest message: the one the transport
 * holds now for that target and class (it keeps no history).
 */
static uint32_t qp_ctx_tc(const struct weng *e, const struct weng_qp *qp)
{
	uint32_t id;

	if (!qp->last_peer || qp->last_class == WENG_CLASS_NONE || !e->tp ||
	    wren_tp_ctx_id(e->tp, qp->last_peer, qp->last_class, &id))
		return WREN_CTX_TC_NONE;
	return id;
}

static size_t fill_qp(struct weng *e, uint32_t handle, void *buf)
{
	const struct weng_qp *qp = weng_qp_get(e, handle);
	struct wren_qp_ctx *x = buf;
	uint32_t qpn;

	if (!qp)
		return 0;
	qpn = weng_qpn(e, qp);
	x->qpn = wren_to_le32(qpn);
	x->type = qp->type;
	x->state = qp->state;
	x->flags = qp->flags;
	x->pdn = wren_to_le32(qp->pdn);
	x->send_cq = wren_to_le32(qp->send_cq);
	x->recv_cq = wren_to_le32(qp->recv_cq);
	x->srqn = wren_to_le32(qp->srqn);
	x->qkey = wren_to_le32(qp->qkey);
	x->counter_set = wren_to_le32(qp->counter_set);
	x->sq_log_depth = qp->sq_log_depth;
	x->sq_wqe_shift = qp->sq_entry_log - WENG_SQ_ENTRY_LOG0;
	/* A QP on an SRQ has no receive queue of its own: zero. */
	if (!(qp->flags & WREN_QP_FLAG_SRQ)) {
		x->rq_log_depth = qp->rq_log_depth;
		x->rq_wqe_shift = qp->rq_entry_log - WENG_RQ_ENTRY_LOG0;
	}
	x->sq_pi = wren_to_le16(qp->sq_pi);
	x->sq_ci = wren_to_le16(qp->sq_ci);
	x->rq_pi = wren_to_le16(qp->rq_pi);
	x->rq_ci = wren_to_le16(qp->rq_ci);
	x->sq_inflight = wren_to_le32((uint16_t)(qp->sq_fetch - qp->sq_ci));
	x->rd_atom_inflight = wren_to_le32(qp->reads_out);
	if (qp->rc) {
		x->dest_qpn = wren_to_le32(qp->rc->dest_qpn);
		x->dest_ipv4 = qp->rc->dest_ipv4;
		x->sq_psn = wren_to_le32(qp->rc->sq_psn);
		x->rq_psn = wren_to_le32(qp->rc->rq_psn);
	}
	x->peer_ipv4 = qp->last_peer;
	x->tc_id = wren_to_le32(qp_ctx_tc(e, qp));
	qp_ctx_counters(e, qpn, x);
	return sizeof(*x);
}

static size_t fill_cq(struct weng *e, uint32_t handle, void *buf)
{
	const struct weng_cq *cq = weng_cq_get(e, handle);
	struct wren_cq_ctx *x = buf;

	if (!cq)
		return 0;
	x->cqn = wren_to_le32(handle);
	x->log_depth = cq->ring.log_depth;
	x->flags = cq->use_eq ? WREN_CQ_FLAG_EQ : 0;
	x->armed = !cq->armed ? WREN_CQ_ARM_NONE :
		   cq->armed_solicited ? WREN_CQ_ARM_SOLICITED :
		   WREN_CQ_ARM_NEXT;
	x->in_error = cq->overflowed;
	x->eq_id = wren_to_le32(cq->use_eq ? cq->eq_id : 0);
	x->pi = wren_to_le32(cq->ring.tail & cq->ring.index_mask);
	x->ci = wren_to_le32(cq->ring.head & cq->ring.index_mask);
	x->overflows = wren_to_le64(cq->ring.dropped);
	x->events = wren_to_le64(cq->events);
	return sizeof(*x);
}

static size_t fill_mr(struct weng *e, uint32_t handle, void *buf)
{
	const struct weng_mr *mr = weng_mr_of_lkey(e, handle);
	struct wren_mr_ctx *x = buf;

	if (!mr)
		return 0;
	x->key = wren_to_le32(handle);
	x->pdn = wren_to_le32(mr->pdn);
	x->iova = wren_to_le64(mr->iova);
	x->length = wren_to_le64(mr->length);
	x->pbl_addr = wren_to_le64(mr->pbl_addr);
	x->npages = wren_to_le32(mr->npages);
	x->page_shift = mr->page_shift;
	x->access = mr->access;
	x->flags = mr->fast ? WREN_MR_FLAG_FAST : 0;
	x->state = mr->valid ? WREN_MR_STATE_VALID : WREN_MR_STATE_FREE;
	return sizeof(*x);
}

static size_t fill_srq(struct weng *e, uint32_t handle, void *buf)
{
	const struct weng_srq *srq = weng_srq_get(e, handle);
	struct wren_srq_ctx *x = buf;

	if (!srq)
		return 0;
	x->srqn = wren_to_le32(handle);
	x->pdn = wren_to_le32(srq->pdn);
	x->log_depth = srq->log_depth;
	x->wqe_shift = srq->entry_log - WENG_RQ_ENTRY_LOG0;
	x->pi = wren_to_le16(srq->pi);
	x->ci = wren_to_le16(srq->ci);
	x->limit = wren_to_le32(srq->limit);
	x->qps = wren_to_le32(srq->refs);
	return sizeof(*x);
}

/* Each writes the context of the object @handle names: its size, or 0. */
static size_t (*const fillers[])(struct weng *e, uint32_t handle,
				 void *buf) = {
	[WREN_CTX_QP] = fill_qp,
	[WREN_CTX_CQ] = fill_cq,
	[WREN_CTX_MR] = fill_mr,
	[WREN_CTX_SRQ] = fill_srq,
};

/* Room for the largest context. */
union weng_ctx {
	struct wren_qp_ctx qp;
	struct wren_cq_ctx cq;
	struct wren_mr_ctx mr;
	struct wren_srq_ctx srq;
};

int weng_cmd_query_ctx(struct weng *e, const void *body,
		       struct weng_cmd_status *st)
{
	const struct wren_cmd_query_ctx *c = body;
	uint32_t len = wren_le32(c->buf_len);
	union weng_ctx x;
	size_t size;

	if (!WENG_RSVD_OK(st, c, struct wren_cmd_query_ctx, rsvd0) ||
	    !WENG_RSVD_OK(st, c, struct wren_cmd_query_ctx, rsvd))
		return -1;
	if (len < 64 || len > 4096)
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_query_ctx,
					     buf_len));
	if (c->type >= sizeof(fillers) / sizeof(fillers[0]) ||
	    !fillers[c->type])
		return weng_reject(st, WREN_STATUS_BAD_PARAM,
				   WENG_BODY(struct wren_cmd_query_ctx, type));
	memset(&x, 0, sizeof(x));
	size = fillers[c->type](e, wren_le32(c->handle), &x);
	if (!size)
		return weng_reject(st, WREN_STATUS_NOT_FOUND, 0);
	if (!weng_put_result(e, wren_le64(c->buf_addr), len, &x, size, st))
		return -1;
	st->result[0] = size;
	return 0;
}
