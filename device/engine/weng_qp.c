// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: queue pairs as objects.  The table, the numbers and cookies
 * that name a QP and its slots, the order in which finished send entries
 * complete, and flushing.
 *
 * Transport callbacks carry (QP generation, QP, slot): a QP destroyed,
 * reset or flushed since has another generation, and its leftovers are
 * ignored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

int weng_qp_init(struct weng *e)
{
	e->qps = calloc(e->cfg.max_qp, sizeof(*e->qps));
	return e->qps ? 0 : -ENOMEM;
}

void weng_qp_fini(struct weng *e)
{
	if (e->qps)
		weng_qp_reset(e);
	free(e->qps);
	e->qps = NULL;
}

/*
 * Room for what the device keeps of each slot, the copy of its entry
 * included; -1 if there is none.
 */
int weng_qp_alloc_slots(struct weng_qp *qp)
{
	size_t sq = weng_depth(qp->sq_log_depth);
	size_t rq = weng_depth(qp->rq_log_depth);

	qp->sq_shadow = calloc(sq, sizeof(*qp->sq_shadow));
	qp->sq_entries = calloc(sq, (size_t)1 << qp->sq_entry_log);
	qp->rq_shadow = calloc(rq, sizeof(*qp->rq_shadow));
	qp->rq_entries = calloc(rq, (size_t)1 << qp->rq_entry_log);
	return qp->sq_shadow && qp->sq_entries && qp->rq_shadow &&
	       qp->rq_entries ? 0 : -1;
}

/* Forget every slot's state, as a reset or a flush of the QP does. */
void weng_qp_clear_slots(struct weng_qp *qp)
{
	size_t sq = weng_depth(qp->sq_log_depth);
	size_t rq = weng_depth(qp->rq_log_depth);

	memset(qp->sq_shadow, 0, sq * sizeof(*qp->sq_shadow));
	memset(qp->sq_entries, 0, sq << qp->sq_entry_log);
	memset(qp->rq_shadow, 0, rq * sizeof(*qp->rq_shadow));
	memset(qp->rq_entries, 0, rq << qp->rq_entry_log);
}

void weng_qp_free_shadows(struct weng_qp *qp)
{
	free(qp->sq_shadow);
	free(qp->sq_entries);
	free(qp->rq_shadow);
	free(qp->rq_entries);
	free(qp->rc);
	qp->sq_shadow = NULL;
	qp->sq_entries = NULL;
	qp->rq_shadow = NULL;
	qp->rq_entries = NULL;
	qp->rc = NULL;
}

/* Forget every QP, as a function-level reset does. */
void weng_qp_reset(struct weng *e)
{
	for (uint32_t i = 0; i < e->cfg.max_qp; i++) {
		/* Generations survive, so leftovers stay stale. */
		uint16_t gen = e->qps[i].gen + 1;

		weng_qp_free_shadows(&e->qps[i]);
		memset(&e->qps[i], 0, sizeof(e->qps[i]));
		e->qps[i].gen = gen;
	}
	e->qp_next = 0;
	e->gsi_slot = 0;
	e->sq_waiting = false;
	e->sq_turn = 0;
}

/*
 * QP number @qpn if it exists, else NULL.  The GSI QP has a slot like
 * any other but answers to WREN_QPN_GSI only, not to its slot's number.
 */
struct weng_qp *weng_qp_get(struct weng *e, uint32_t qpn)
{
	struct weng_qp *qp;

	if (qpn == WREN_QPN_GSI)
		return e->gsi_slot ? &e->qps[e->gsi_slot - 1] : NULL;
	if (qpn < WREN_QPN_FIRST || qpn - WREN_QPN_FIRST >= e->cfg.max_qp)
		return NULL;
	qp = &e->qps[qpn - WREN_QPN_FIRST];
	return qp->in_use && !(qp->flags & WREN_QP_FLAG_GSI) ? qp : NULL;
}

uint32_t weng_qpn(const struct weng *e, const struct weng_qp *qp)
{
	if (qp->flags & WREN_QP_FLAG_GSI)
		return WREN_QPN_GSI;
	return (uint32_t)(qp - e->qps) + WREN_QPN_FIRST;
}

uint64_t weng_qp_cookie(const struct weng *e, const struct weng_qp *qp,
			uint32_t slot)
{
	return WENG_COOKIE(WENG_COOKIE_QP, qp->gen, qp - e->qps, slot);
}

/* The QP and slot of a transport callback, or NULL if stale. */
struct weng_qp *weng_qp_of_cookie(struct weng *e, uint64_t cookie,
				  uint32_t *slot)
{
	uint32_t i = WENG_COOKIE_INDEX(cookie);
	struct weng_qp *qp;

	if (i >= e->cfg.max_qp)
		return NULL;
	qp = &e->qps[i];
	if (!qp->in_use || qp->gen != WENG_COOKIE_GEN(cookie))
		return NULL;
	*slot = WENG_COOKIE_SLOT(cookie);
	return qp;
}

/* The completion opcode of a send entry. */
static uint8_t send_cqe_op(uint8_t wqe_opcode)
{
	switch (wqe_opcode) {
	case WREN_WQE_RDMA_WRITE:
	case WREN_WQE_RDMA_WRITE_IMM:
		return WREN_CQE_OP_RDMA_WRITE;
	case WREN_WQE_RDMA_READ:
		return WREN_CQE_OP_RDMA_READ;
	case WREN_WQE_ATOMIC_CMP_SWP:
		return WREN_CQE_OP_ATOMIC_CMP_SWP;
	case WREN_WQE_ATOMIC_FETCH_ADD:
		return WREN_CQE_OP_ATOMIC_FETCH_ADD;
	case WREN_WQE_REG_MR:
		return WREN_CQE_OP_REG_MR;
	case WREN_WQE_LOCAL_INV:
		return WREN_CQE_OP_LOCAL_INV;
	default:		/* SEND, SEND_IMM, SEND_INV */
		return WREN_CQE_OP_SEND;
	}
}

/*
 * A send entry's completion; a read's or an atomic's says how many bytes
 * it brought.
 */
static void complete_send(struct weng *e, const struct weng_qp *qp,
			  uint32_t slot)
{
	const struct weng_swqe *sw = &qp->sq_shadow[slot];
	uint8_t opcode = weng_sq_entry(qp, slot)->opcode;
	struct weng_completion c = {
		.qpn = weng_qpn(e, qp),
		.wqe_index = slot,
		.opcode = send_cqe_op(opcode),
		.status = sw->status,
		.byte_len = weng_wqe_is_read(opcode) && !sw->status ?
			    sw->len : 0,
	};

	weng_cq_complete(e, qp->send_cq, &c);
}

/* Does the finished send entry of @slot get a completion? */
static bool sw_completes(const struct weng_qp *qp, uint32_t slot)
{
	return qp->sq_shadow[slot].status != WREN_CQE_SUCCESS ||
	       weng_sq_entry(qp, slot)->flags & WREN_WQE_F_SIGNALED ||
	       qp->flags & WREN_QP_FLAG_SQ_SIG_ALL;
}

/*
 * Hand back the send slots that are done, oldest first, with their
 * completions: a completion therefore also tells the driver that every
 * earlier entry, signaled or not, is finished, as the verbs promise.  An
 * entry done early waits for the ones before it.  An RC QP goes to ERR
 * with its first failed entry.
 */
void weng_sq_retire(struct weng *e, struct weng_qp *qp)
{
	uint32_t mask = weng_depth(qp->sq_log_depth) - 1;

	while (qp->sq_ci != qp->sq_fetch &&
	       qp->sq_shadow[qp->sq_ci & mask].done) {
		struct weng_swqe *sw = &qp->sq_shadow[qp->sq_ci & mask];
		bool failed = sw->status != WREN_CQE_SUCCESS;

		if (sw_completes(qp, qp->sq_ci & mask))
			complete_send(e, qp, qp->sq_ci & mask);
		sw->done = false;
		sw->posted = false;
		qp->sq_ci++;
		if (failed && qp->type == WREN_QPT_RC) {
			weng_qp_error(e, qp);
			return;
		}
	}
	/* SQD: once nothing is in flight, the send queue has drained. */
	if (qp->state == WREN_QPS_SQD && !qp->drained &&
	    qp->sq_ci == qp->sq_fetch) {
		qp->drained = true;
		weng_qp_event(e, qp, WREN_QP_EV_SQ_DRAINED);
	}
}

/* A flushed receive: no message, WR_FLUSH_ERR. */
static void complete_recv_flushed(struct weng *e, const struct weng_qp *qp,
				  uint16_t req_id)
{
	struct weng_completion c = {
		.qpn = weng_qpn(e, qp),
		.wqe_index = req_id,
		.opcode = WREN_CQE_OP_RECV,
		.status = WREN_CQE_WR_FLUSH_ERR,
	};

	weng_cq_complete(e, qp->recv_cq, &c);
}

/* The req_id of the entry of receive slot @slot (the slot if unreadable). */
static uint16_t rq_req_id(struct weng *e, const struct weng_qp *qp,
			  uint32_t slot)
{
	uint64_t at = qp->rq_base + ((uint64_t)slot << qp->rq_entry_log);
	struct wren_rq_wqe w;

	/* The header is all it needs, whatever the entries' size. */
	if (weng_dma_read(e, at, &w, offsetof(struct wren_rq_wqe, sge)))
		return slot;
	return wren_le16(w.req_id);
}

/*
 * Complete every send and receive entry the QP still holds, with
 * WR_FLUSH_ERR unless it had finished, and forget what the transport
 * still has of it.
 */
void weng_qp_flush(struct weng *e, struct weng_qp *qp)
{
	uint32_t sq_mask = weng_depth(qp->sq_log_depth) - 1;
	uint32_t rq_mask = weng_depth(qp->rq_log_depth) - 1;
	bool failed = false;

	for (; qp->sq_ci != qp->sq_pi; qp->sq_ci++) {
		struct weng_swqe *sw = &qp->sq_shadow[qp->sq_ci & sq_mask];

		/*
		 * Finished entries keep their own outcome, in order; on RC
		 * everything after the first failure is flushed.
		 */
		if (!sw->done || (failed && qp->type == WREN_QPT_RC))
			sw->status = WREN_CQE_WR_FLUSH_ERR;
		failed |= sw->status != WREN_CQE_SUCCESS;
		if (sw_completes(qp, qp->sq_ci & sq_mask))
			complete_send(e, qp, qp->sq_ci & sq_mask);
	}
	if (qp->flags & WREN_QP_FLAG_SRQ) {
		/* The receives it took; the untaken are the SRQ's. */
		struct weng_srq *srq = &e->srqs[qp->srqn];

		for (uint32_t i = 0; i < weng_depth(srq->log_depth); i++) {
			struct weng_rwqe *rw = &srq->shadow[i];

			if (!rw->busy || rw->qp != (uint32_t)(qp - e->qps) ||
			    rw->qp_gen != qp->gen)
				continue;
			rw->busy = false;
			complete_recv_flushed(e, qp,
					      wren_le16(weng_srq_entry(srq, i)->req_id));
		}
	}
	/*
	 * Receives a message was being placed into, then the untaken.  An RC
	 * QP's receives are all still in its ring, in order.
	 */
	for (uint32_t i = 0; i <= rq_mask && qp->type != WREN_QPT_RC &&
	     !(qp->flags & WREN_QP_FLAG_SRQ); i++) {
		const struct weng_rwqe *rw = &qp->rq_shadow[i];

		if (rw->busy)
			complete_recv_flushed(e, qp,
					      wren_le16(weng_rq_entry(e, qp, i)->req_id));
	}
	for (; qp->rq_ci != qp->rq_pi; qp->rq_ci++)
		complete_recv_flushed(e, qp,
				      rq_req_id(e, qp, qp->rq_ci & rq_mask));
	weng_qp_forget(e, qp, false);
}

/*
 * What a QP keeps of the work it had in flight, forgotten: by a flush
 * (ERR) and by RESET alike (@reset: also the RC peer's sequence state),
 * so that neither leaves anything behind that would hold back the QP
 * brought up again.  What the transport still carries for it is told
 * apart by the new generation.
 */
void weng_qp_forget(struct weng *e, struct weng_qp *qp, bool reset)
{
	qp->sq_fetch = qp->sq_ci;
	qp->sq_blocked = false;
	qp->drained = false;
	qp->reads_out = 0;
	/* Its entries of the old generation no longer count against it. */
	qp->resps_held = 0;
	weng_qp_clear_slots(qp);
	if (qp->rc)
		weng_rc_clear(e, qp, reset);
	qp->gen++;
}

/*
 * The QP goes to ERR and everything in it is flushed.  A QP on an SRQ
 * takes no receive from then on: LAST_WQE_REACHED says so.
 */
void weng_qp_error(struct weng *e, struct weng_qp *qp)
{
	bool was_err = qp->state == WREN_QPS_ERR;

	qp->state = WREN_QPS_ERR;
	weng_qp_flush(e, qp);
	if (!was_err && qp->flags & WREN_QP_FLAG_SRQ)
		weng_qp_event(e, qp, WREN_QP_EV_LAST_WQE);
}

/* An async event about @qp: WREN_QP_EV_*. */
void weng_qp_event(struct weng *e, const struct weng_qp *qp, uint8_t event)
{
	weng_aeq_post(e, WREN_AEQ_QP_EVENT, weng_qpn(e, qp), event);
}

/* The receive entry of @qp's slot @slot: in its SRQ's shadow, or its own. */
struct weng_rwqe *weng_qp_rwqe(struct weng *e, struct weng_qp *qp,
			       uint32_t slot)
{
	if (qp->flags & WREN_QP_FLAG_SRQ)
		return &e->srqs[qp->srqn].shadow[slot];
	return &qp->rq_shadow[slot];
}

/* ... and the device's copy of the entry taken into it. */
struct wren_rq_wqe *weng_rq_entry(struct weng *e, const struct weng_qp *qp,
				  uint32_t slot)
{
	if (qp->flags & WREN_QP_FLAG_SRQ)
		return weng_srq_entry(&e->srqs[qp->srqn], slot);
	return (struct wren_rq_wqe *)(qp->rq_entries +
				      ((size_t)slot << qp->rq_entry_log));
}
