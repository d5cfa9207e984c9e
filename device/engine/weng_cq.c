// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: completion queues, and the one writer of completions.
 *
 * A completion goes to the CQ's ring with the lap's phase bit.  A CQ the
 * driver lets fill up is in error, as in the verbs: the completion is
 * lost, the driver hears of it once through a CQ_ERROR async event, and
 * nothing else is written to that CQ.  An armed CQ raises one event on
 * its event queue: at the next completion, or with SOLICITED, at the next
 * solicited or failed one.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

int weng_cq_init(struct weng *e)
{
	e->cqs = calloc(e->cfg.max_cq, sizeof(*e->cqs));
	return e->cqs ? 0 : -ENOMEM;
}

void weng_cq_fini(struct weng *e)
{
	free(e->cqs);
	e->cqs = NULL;
}

void weng_cq_reset(struct weng *e)
{
	memset(e->cqs, 0, e->cfg.max_cq * sizeof(*e->cqs));
}

/* CQ @cqn if it exists, else NULL. */
struct weng_cq *weng_cq_get(struct weng *e, uint32_t cqn)
{
	return cqn < e->cfg.max_cq && e->cqs[cqn].in_use ? &e->cqs[cqn] : NULL;
}

/* The driver consumed up to a CI and may arm the CQ for an event. */
void weng_cq_doorbell(struct weng *e, uint64_t offset, struct weng_cq *cq,
		      uint32_t value)
{
	/* The consumer may not pass the producer. */
	if (value & ~(WREN_CQ_DB_CI | WREN_CQ_DB_ARM | WREN_CQ_DB_SOLICITED) ||
	    !weng_ring_consume(&cq->ring, FIELD_GET(WREN_CQ_DB_CI, value))) {
		weng_warn(e, WENG_WRN_DOORBELL, offset, value);
		return;
	}
	if (value & WREN_CQ_DB_ARM) {
		cq->armed = true;
		cq->armed_solicited = value & WREN_CQ_DB_SOLICITED;
	}
}

/*
 * The completions the send queues of @cq still owe it: the entries their
 * doorbells posted and that have not completed yet (unsignaled ones too,
 * which complete into it if they fail).
 */
static uint32_t cq_sends_owed(const struct weng *e, const struct weng_cq *cq)
{
	uint32_t cqn = cq - e->cqs, n = 0;

	for (uint32_t i = 0; i < e->cfg.max_qp; i++) {
		const struct weng_qp *qp = &e->qps[i];

		if (qp->in_use && qp->send_cq == cqn)
			n += (uint16_t)(qp->sq_pi - qp->sq_ci);
	}
	return n;
}

/*
 * Move @cq to the ring of 2^@log_depth entries at @base: the completions
 * the driver has not consumed go to its first slots, in order, with its
 * first lap's phase.  0 and their number in @moved; -ENOSPC if the ring
 * cannot hold them and the sends still owed to the CQ (a ring that
 * would overflow at once: a program that posted sends and shrinks the CQ
 * before they complete, which a slow device makes likely); -EIO if the
 * new ring cannot be written or the old one read, and the CQ keeps its
 * old ring.
 */
int weng_cq_resize(struct weng *e, struct weng_cq *cq, uint64_t base,
		   uint8_t log_depth, uint32_t *moved)
{
	struct weng_ring *old = &cq->ring;
	struct weng_ring ring = {
		.base = base, .log_depth = log_depth,
		.index_mask = old->index_mask, .dropped = old->dropped,
	};
	uint32_t n = (old->tail - old->head) & old->index_mask;

	if (n + cq_sends_owed(e, cq) > weng_depth(log_depth))
		return -ENOSPC;
	for (uint32_t i = 0; i < n; i++) {
		struct wren_cqe cqe;

		if (weng_dma_read(e, weng_ring_slot(old, old->head + i,
						    sizeof(cqe)),
				  &cqe, sizeof(cqe)) ||
		    weng_ring_push(e, &ring, sizeof(cqe), &cqe, &cqe.flags))
			return -EIO;
	}
	*old = ring;
	*moved = n;
	return 0;
}

/* Write completion @c to CQ @cqn: 0, or negative if it was lost. */
int weng_cq_complete(struct weng *e, uint32_t cqn,
		     const struct weng_completion *c)
{
	struct weng_cq *cq = &e->cqs[cqn];
	struct wren_cqe cqe;
	int rc;

	/* In error: lost too, and counted with the one that overflowed it. */
	if (cq->overflowed) {
		cq->ring.dropped++;
		return -ENOSPC;
	}
	memset(&cqe, 0, sizeof(cqe));
	cqe.wqe_index = wren_to_le16(c->wqe_index);
	cqe.opcode = c->opcode;
	cqe.status = c->status;
	cqe.flags = c->flags;
	cqe.qpn = wren_to_le32(c->qpn);
	cqe.byte_len = wren_to_le32(c->byte_len);
	cqe.imm = htobe32(c->imm);
	cqe.src_qpn = wren_to_le32(c->src_qpn);
	cqe.src_ipv4 = c->src_ipv4;
	cqe.inv_key = wren_to_le32(c->inv_key);
	rc = weng_ring_push(e, &cq->ring, sizeof(cqe), &cqe, &cqe.flags);
	if (rc == -EIO) {
		weng_fatal(e, WREN_FATAL_DMA);
		return rc;
	}
	if (rc && e->dev_sts & WREN_DEV_STS_FATAL)
		return rc;
	if (rc) {
		cq->overflowed = true;
		weng_warn(e, WENG_WRN_CQ_OVERFLOW, cqn, cq->ring.dropped);
		weng_aeq_post(e, WREN_AEQ_CQ_ERROR, cqn, 0);
		return rc;
	}
	if (cq->armed && cq->use_eq &&
	    (!cq->armed_solicited || c->flags & WREN_CQE_F_SOLICITED ||
	     c->status != WREN_CQE_SUCCESS)) {
		cq->armed = false;
		cq->events++;
		weng_eq_post(e, cq->eq_id, WREN_EQE_COMPLETION, cqn);
	}
	return 0;
}
