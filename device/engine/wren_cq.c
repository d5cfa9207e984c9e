// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: writing completions.
 *
 * A completion goes to the CQ's ring with the lap's phase bit.  A CQ the
 * driver lets fill up is in error, as in the verbs: the completion is
 * lost, the driver hears of it once through a CQ_ERROR async event, and
 * nothing else is written to that CQ.  An armed CQ raises one event on
 * its event queue: at the next completion, or with SOLICITED, at the next
 * solicited or failed one.
 */
#include "wren_internal.h"

int wren_cq_post(struct wren_engine *e, uint32_t cqn, struct wren_cqe *cqe)
{
	struct wren_cq *cq = &e->cqs[cqn];

	if (cq->overflowed)
		return -1;
	if (wren_out_ring_push(e, &cq->ring, sizeof(*cqe), cqe, &cqe->flags)) {
		if (!(e->dev_sts & WREN_DEV_STS_FATAL)) {
			cq->overflowed = true;
			wren_warn(e, WREN_WRN_CQ_OVERFLOW, cqn, cq->ring.dropped);
			wren_aeq_post(e, WREN_AEQ_CQ_ERROR, cqn, 0);
		}
		return -1;
	}
	if (cq->armed && cq->use_eq &&
	    (!cq->armed_solicited || cqe->flags & WREN_CQE_F_SOLICITED ||
	     cqe->status != WREN_CQE_SUCCESS)) {
		cq->armed = false;
		wren_eq_post(e, cq->eq_id, WREN_EQE_COMPLETION, cqn);
	}
	return 0;
}
