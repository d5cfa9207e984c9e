// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: messages that take a receive entry (SEND, SEND with
 * immediate, SEND with invalidate).  An arriving message takes the next
 * receive entry of its QP (checked like a send entry), is written through
 * that entry's SGEs (behind a GRH on a UD QP) and becomes a receive
 * completion.  On an RC
 * QP the entry is the one the message's RSN names, and the completion
 * waits for the QP's stream to reach the message (weng_rc.c).  A QP on a
 * shared receive queue takes the SRQ's next entry instead (weng_srq.c).
 * A SEND_INV (RC only) invalidates its fast-register region as it
 * completes, in stream order, so that the messages before it still find
 * the region valid.
 */
#include <string.h>

#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

/* The GRH of a UD receive: IPv6 form, IPv4-mapped GIDs, as on RoCE. */
static void make_grh(uint8_t *g, uint32_t len, uint32_t src, uint32_t dst)
{
	memset(g, 0, WREN_GRH_LEN);
	g[0] = 0x60;
	g[4] = len >> 8;
	g[5] = len;
	g[6] = 17;		/* next header: UDP, as on RoCE v2 */
	g[7] = 64;		/* hop limit */
	g[18] = g[19] = 0xff;
	memcpy(g + 20, &src, 4);
	g[34] = g[35] = 0xff;
	memcpy(g + 36, &dst, 4);
}

/* A receive entry that fails before any message is placed into it. */
static void complete_taken(struct weng *e, const struct weng_qp *qp,
			   uint16_t req_id, uint8_t status)
{
	struct weng_completion c = {
		.qpn = weng_qpn(e, qp),
		.wqe_index = req_id,
		.opcode = WREN_CQE_OP_RECV,
		.status = status,
	};

	weng_cq_complete(e, qp->recv_cq, &c);
}

/*
 * The receive slot a SEND for RC QP @qp takes: the one its RSN names, if
 * the driver has posted it.  A slot taken already means the peer sent two
 * SENDs with one RSN.
 */
static enum wren_tp_status rc_slot(const struct weng_qp *qp,
				   const struct wren_tp_msg *m, uint32_t *slot)
{
	uint16_t ahead = m->rsn - qp->rq_ci;

	if (ahead >= (uint16_t)(qp->rq_pi - qp->rq_ci))
		return WREN_TP_RNR;
	*slot = m->rsn & (weng_depth(qp->rq_log_depth) - 1);
	return qp->rq_shadow[*slot].busy ? WREN_TP_REMOTE_OP_ERROR : WREN_TP_OK;
}

/*
 * The first packet of a SEND for @qp arrived: take a receive entry for
 * it, or refuse it with the status the sender will see.
 */
enum wren_tp_status weng_recv_begin(struct weng *e, struct weng_qp *qp,
				    const struct wren_tp_peer *peer,
				    const struct wren_tp_msg *m,
				    uint64_t *cookie)
{
	bool ud = m->flags & WREN_TP_MSG_DATAGRAM, rc = qp->type == WREN_QPT_RC;
	bool srq = qp->flags & WREN_QP_FLAG_SRQ;
	uint32_t mask, slot, shadow, grh, k;
	uint8_t log = srq ? e->srqs[qp->srqn].entry_log : qp->rq_entry_log;
	uint32_t size = 1U << log;
	enum wren_tp_status st;
	struct weng_rwqe *rw;
	struct wren_rq_wqe *w;
	struct wren_sge *sge;
	uint64_t at = 0, room = 0, tail;

	mask = weng_depth(qp->rq_log_depth) - 1;
	if (qp->flags & WREN_QP_FLAG_SRQ) {
		/* The SRQ's next receive, whoever the message is for. */
		if (weng_srq_take(e, &e->srqs[qp->srqn], &shadow, &at))
			return WREN_TP_RNR;
		slot = shadow;
	} else if (rc) {
		/* Taken where its RSN says, completed in stream order. */
		st = rc_slot(qp, m, &slot);
		if (st != WREN_TP_OK)
			return st;
		shadow = slot;
	} else {
		if (qp->rq_ci == qp->rq_pi)
			return WREN_TP_RNR;
		/*
		 * The entry is copied as it is taken, into any free shadow:
		 * messages complete in any order, and the ring slot is the
		 * driver's again at once.  A driver with more receives in
		 * flight than the queue is deep gets no receive for now
		 * rather than two messages in one.
		 */
		slot = qp->rq_ci & mask;
		for (k = 0; k <= mask && qp->rq_shadow[(slot + k) & mask].busy;
		     k++)
			;
		if (k > mask)
			return WREN_TP_RNR;
		shadow = (slot + k) & mask;
	}
	rw = weng_qp_rwqe(e, qp, shadow);
	w = weng_rq_entry(e, qp, shadow);
	sge = wren_rq_wqe_sges(w);
	if (!srq)
		at = qp->rq_base + ((uint64_t)slot << log);
	memset(rw, 0, sizeof(*rw));
	/*
	 * An unreadable or malformed entry fails the QP.  A datagram QP's
	 * completes with the reason; an RC QP's is flushed in ring order, and
	 * QP_FATAL says why.
	 */
	if (weng_dma_read(e, at, w, size)) {
		if (!rc && !srq)
			complete_taken(e, qp, qp->rq_ci++ & mask,
				       WREN_CQE_LOC_DMA_ERR);
		goto fatal;
	}
	/* An entry's last 8 bytes are reserved, whatever its size. */
	memcpy(&tail, (uint8_t *)w + size - sizeof(tail), sizeof(tail));
	if (!w->num_sge ||
	    w->num_sge > WREN_RQ_WQE_SGE(log - WENG_RQ_ENTRY_LOG0) ||
	    w->rsvd0 || w->rsvd2 || tail) {
		if (!rc) {
			qp->rq_ci += !srq;
			complete_taken(e, qp, wren_le16(w->req_id),
				       WREN_CQE_LOC_QP_OP_ERR);
		}
		goto fatal;
	}
	for (unsigned int i = 0; i < w->num_sge; i++)
		room += wren_le32(sge[i].length);
	grh = ud ? WREN_GRH_LEN : 0;
	/* An RC WRITE_IMM's bytes go to its key, not to the receive. */
	if (m->opcode == WREN_WIRE_OP_WRITE_IMM)
		room = UINT64_MAX;
	if (room < (uint64_t)m->len + grh) {
		if (!ud && !srq)
			return WREN_TP_TOO_LONG;	/* the entry stays */
		/* An SRQ's entry was taken: it completes in error. */
		qp->rq_ci += !srq;
		complete_taken(e, qp, wren_le16(w->req_id),
			       WREN_CQE_LOC_LEN_ERR);
		return WREN_TP_TOO_LONG;
	}
	if (!rc && !srq)
		qp->rq_ci++;
	rw->busy = true;
	rw->qp = qp - e->qps;
	rw->qp_gen = qp->gen;
	rw->len = m->len;
	rw->src_qpn = m->src_qpn;
	rw->src_ipv4 = peer->ipv4;
	rw->imm = m->imm;
	rw->opcode = m->opcode;
	rw->solicited = m->flags & WREN_TP_MSG_SOLICITED;
	rw->psn = m->qkey;
	if (ud) {
		uint8_t g[WREN_GRH_LEN];

		make_grh(g, m->len, peer->ipv4, e->cfg.ipv4);
		rw->failed = weng_sgl_copy(e, qp->pdn, sge, w->num_sge, 0, g,
					   sizeof(g), true) != 0;
	}
	*cookie = weng_qp_cookie(e, qp, shadow);
	return WREN_TP_OK;

fatal:
	if (rc)
		weng_qp_event(e, qp, WREN_QP_EV_FATAL);
	weng_qp_error(e, qp);
	return WREN_TP_REMOTE_OP_ERROR;
}

/* Place @len bytes at @off of the message (behind the GRH on UD). */
int weng_recv_write(struct weng *e, uint64_t cookie, uint32_t off,
		    const void *buf, uint32_t len)
{
	uint32_t slot;
	struct weng_qp *qp = weng_qp_of_cookie(e, cookie, &slot);
	struct weng_rwqe *rw;
	struct wren_rq_wqe *w;

	if (!qp)
		return -1;
	rw = weng_qp_rwqe(e, qp, slot);
	w = weng_rq_entry(e, qp, slot);
	if (qp->type == WREN_QPT_UD)
		off += WREN_GRH_LEN;
	if (!rw->failed &&
	    weng_sgl_copy(e, qp->pdn, wren_rq_wqe_sges(w), w->num_sge, off,
			  (uint8_t *)buf, len, true))
		rw->failed = true;
	return rw->failed ? -1 : 0;
}

/*
 * The receive completion of the message in (shadow) slot @slot; its entry
 * is free.  False if it failed.
 */
static bool recv_complete(struct weng *e, struct weng_qp *qp, uint32_t slot,
			  enum wren_tp_status st)
{
	struct weng_rwqe *rw = weng_qp_rwqe(e, qp, slot);
	bool write = rw->opcode == WREN_WIRE_OP_WRITE_IMM;
	struct weng_completion c = {
		.opcode = write ? WREN_CQE_OP_RECV_RDMA_IMM : WREN_CQE_OP_RECV,
	};
	bool ud = qp->type == WREN_QPT_UD;
	bool imm = rw->opcode == WREN_WIRE_OP_SEND_IMM || write;
	bool inv = rw->opcode == WREN_WIRE_OP_SEND_INV;

	rw->busy = false;
	/*
	 * Its key was good on arrival (weng_ulp.c); if the driver has since
	 * deregistered the region, the receive fails rather than lie.
	 */
	if (inv && !rw->failed && st == WREN_TP_OK &&
	    weng_mr_invalidate(e, qp->pdn, rw->imm, true))
		rw->failed = true;
	c.qpn = weng_qpn(e, qp);
	c.wqe_index = wren_le16(weng_rq_entry(e, qp, slot)->req_id);
	if (rw->failed)
		c.status = WREN_CQE_LOC_PROT_ERR;
	else if (st != WREN_TP_OK)
		c.status = WREN_CQE_WR_FLUSH_ERR;
	inv = inv && !c.status;
	c.flags = (imm ? WREN_CQE_F_IMM : 0) | (ud ? WREN_CQE_F_GRH : 0) |
		  (rw->solicited ? WREN_CQE_F_SOLICITED : 0) |
		  (inv ? WREN_CQE_F_INV : 0);
	c.inv_key = inv ? rw->imm : 0;
	c.byte_len = rw->len + (ud ? WREN_GRH_LEN : 0);
	c.imm = imm ? rw->imm : 0;
	c.src_qpn = rw->src_qpn;
	c.src_ipv4 = rw->src_ipv4;
	weng_cq_complete(e, qp->recv_cq, &c);
	return !rw->failed;
}

/*
 * The message is whole (or abandoned): its receive completion; on an RC
 * QP, once the stream reaches it (weng_recv_execute()).
 */
void weng_recv_done(struct weng *e, uint64_t cookie, enum wren_tp_status st)
{
	uint32_t slot;
	struct weng_qp *qp = weng_qp_of_cookie(e, cookie, &slot);
	struct weng_rwqe *rw;

	if (!qp)
		return;
	rw = weng_qp_rwqe(e, qp, slot);
	if (qp->type != WREN_QPT_RC) {
		recv_complete(e, qp, slot, st);
		return;
	}
	/* Refused bytes complete in error; an abandoned message fails. */
	weng_rc_whole(qp, rw->psn, st == WREN_TP_OK || rw->failed);
}

/*
 * RC QP @qp's stream reached the SEND in receive slot @slot: complete it,
 * the next receive in ring order.  False if the QP must go to ERR: the
 * receive failed, or the peer's RSNs skipped one.
 */
bool weng_recv_execute(struct weng *e, struct weng_qp *qp, uint32_t slot)
{
	uint32_t mask = weng_depth(qp->rq_log_depth) - 1;
	bool own = !(qp->flags & WREN_QP_FLAG_SRQ);

	/* Any SRQ entry: the stream's order is the completions'. */
	if ((own && slot != (qp->rq_ci & mask)) ||
	    !weng_qp_rwqe(e, qp, slot)->busy)
		return false;
	qp->rq_ci += own;
	return recv_complete(e, qp, slot, WREN_TP_OK);
}
