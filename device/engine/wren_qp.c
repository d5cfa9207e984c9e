// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: queue pairs at work.
 *
 * The upper layer of the transport inside the adapter.  A send doorbell
 * makes the device read the new send entries, check them (opcode, flags,
 * sizes, the address handle and every SGE's key, PD and bounds) and hand
 * each message to the transport: an RD QP's to a transport context, a UD
 * QP's as a datagram.  The transport reads the payload through the SGEs
 * when it builds each packet and reports the outcome, which becomes a send
 * completion.  An arriving message takes the next receive entry of its
 * QP (checked likewise), is written through that entry's SGEs (behind a
 * GRH on a UD QP) and becomes a receive completion.
 *
 * Transport callbacks carry (QP generation, QP, slot): a QP destroyed,
 * reset or flushed since has another generation, and its leftovers are
 * ignored.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wren_internal.h"
#include "linux/wren/wren_wire.h"
#include "wren_tp.h"

static uint64_t cookie_of(const struct wren_engine *e, const struct wren_qp *qp,
			  uint32_t slot)
{
	return (uint64_t)qp->gen << 40 | (uint64_t)(qp - e->qps) << 16 | slot;
}

/* The QP and slot of a transport callback, or NULL if stale. */
static struct wren_qp *qp_of(struct wren_engine *e, uint64_t cookie,
			     uint32_t *slot)
{
	uint32_t i = cookie >> 16 & 0xffffff;
	struct wren_qp *qp;

	if (i >= e->cfg.max_qp)
		return NULL;
	qp = &e->qps[i];
	if (!qp->in_use || qp->gen != (uint16_t)(cookie >> 40))
		return NULL;
	*slot = cookie & 0xffff;
	return qp;
}

static uint32_t depth(uint8_t log_depth)
{
	return 1U << log_depth;
}

static void complete(struct wren_engine *e, uint32_t cqn,
		     const struct wren_qp *qp, uint32_t slot, uint8_t opcode,
		     uint8_t status)
{
	struct wren_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.wqe_index = wren_to_le16(slot);
	cqe.opcode = opcode;
	cqe.status = status;
	cqe.qpn = wren_to_le32(qp - e->qps + WREN_QPN_FIRST);
	wren_cq_post(e, cqn, &cqe);
}

/*
 * Copy @len bytes between @buf and the buffer an SGE list describes, from
 * byte @off of it; into it with @to_sgl (which needs local write access).
 */
static int sgl_copy(struct wren_engine *e, uint32_t pdn,
		    const struct wren_sge *sge, unsigned int n, uint32_t off,
		    uint8_t *buf, uint32_t len, bool to_sgl)
{
	for (unsigned int i = 0; i < n && len; i++) {
		uint32_t sl = wren_le32(sge[i].length), piece, key;
		uint64_t va;
		int rc;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		piece = min_t64(sl - off, len);
		key = wren_le32(sge[i].lkey);
		va = wren_le64(sge[i].addr) + off;
		rc = to_sgl ? wren_mr_write(e, pdn, key, va, buf, piece,
					    WREN_MR_ACCESS_LOCAL_WRITE) :
			      wren_mr_read(e, pdn, key, va, buf, piece);
		if (rc)
			return -1;
		buf += piece;
		len -= piece;
		off = 0;
	}
	return len ? -1 : 0;
}

/* The req_id of the receive entry in ring slot @slot (the slot if unreadable). */
static uint16_t rq_req_id(struct wren_engine *e, const struct wren_qp *qp,
			  uint32_t slot)
{
	uint64_t at = qp->rq_base + (uint64_t)slot * sizeof(struct wren_rq_wqe);
	struct wren_rq_wqe w;

	if (e->ops->dma_read(e->opaque, at, &w, sizeof(w))) {
		wren_warn(e, WREN_WRN_DMA, at, sizeof(w));
		return slot;
	}
	return wren_le16(w.req_id);
}

/* Does finished send entry @sw get a completion? */
static bool sw_completes(const struct wren_qp *qp, const struct wren_swqe *sw)
{
	return sw->status != WREN_CQE_SUCCESS ||
	       sw->wqe.flags & WREN_WQE_F_SIGNALED ||
	       qp->flags & WREN_QP_FLAG_SQ_SIG_ALL;
}

/*
 * Hand back the send slots that are done, oldest first, with their
 * completions: a completion therefore also tells the driver that every
 * earlier entry, signaled or not, is finished, as the verbs promise.  An
 * entry done early waits for the ones before it.
 */
static void sq_retire(struct wren_engine *e, struct wren_qp *qp)
{
	uint32_t mask = depth(qp->sq_log_depth) - 1;

	while (qp->sq_ci != qp->sq_fetch && qp->sq_shadow[qp->sq_ci & mask].done) {
		struct wren_swqe *sw = &qp->sq_shadow[qp->sq_ci & mask];

		if (sw_completes(qp, sw))
			complete(e, qp->send_cq, qp, qp->sq_ci & mask,
				 WREN_CQE_OP_SEND, sw->status);
		sw->done = false;
		sw->posted = false;
		qp->sq_ci++;
	}
}

/* ------------------------------------------------------------------ */
/* Flushing                                                             */
/* ------------------------------------------------------------------ */

/*
 * Complete every send and receive entry the QP still holds, with
 * WR_FLUSH_ERR unless it had finished, and forget what the transport
 * still has of it.
 */
void wren_qp_flush(struct wren_engine *e, struct wren_qp *qp)
{
	uint32_t sq_mask = depth(qp->sq_log_depth) - 1;
	uint32_t rq_mask = depth(qp->rq_log_depth) - 1;

	for (; qp->sq_ci != qp->sq_pi; qp->sq_ci++) {
		struct wren_swqe *sw = &qp->sq_shadow[qp->sq_ci & sq_mask];

		/* What finished keeps its own outcome, in order. */
		if (!sw->done)
			sw->status = WREN_CQE_WR_FLUSH_ERR;
		if (sw_completes(qp, sw))
			complete(e, qp->send_cq, qp, qp->sq_ci & sq_mask,
				 WREN_CQE_OP_SEND, sw->status);
	}
	/* Receives a message was being placed into, then the untaken. */
	for (uint32_t i = 0; i <= rq_mask; i++)
		if (qp->rq_shadow[i].busy)
			complete(e, qp->recv_cq, qp,
				 wren_le16(qp->rq_shadow[i].wqe.req_id),
				 WREN_CQE_OP_RECV, WREN_CQE_WR_FLUSH_ERR);
	for (; qp->rq_ci != qp->rq_pi; qp->rq_ci++)
		complete(e, qp->recv_cq, qp, rq_req_id(e, qp, qp->rq_ci & rq_mask),
			 WREN_CQE_OP_RECV, WREN_CQE_WR_FLUSH_ERR);
	qp->sq_fetch = qp->sq_ci;
	qp->sq_blocked = false;
	memset(qp->sq_shadow, 0, depth(qp->sq_log_depth) *
	       sizeof(*qp->sq_shadow));
	memset(qp->rq_shadow, 0, depth(qp->rq_log_depth) *
	       sizeof(*qp->rq_shadow));
	qp->gen++;
}

/* A local error: the QP goes to ERR and everything in it is flushed. */
static void qp_error(struct wren_engine *e, struct wren_qp *qp)
{
	qp->state = WREN_QPS_ERR;
	wren_qp_flush(e, qp);
}

/* ------------------------------------------------------------------ */
/* Send                                                                 */
/* ------------------------------------------------------------------ */

static int check_piece(void *arg, uint64_t addr, uint32_t len)
{
	(void)arg;
	(void)addr;
	(void)len;
	return 0;
}

/*
 * Check a send entry; its payload length in @len.  0, or the completion
 * status it fails with.
 */
static uint8_t sq_check(struct wren_engine *e, const struct wren_qp *qp,
			const struct wren_sq_wqe *w, uint32_t *len)
{
	uint32_t ah = wren_le32(w->ah);
	uint64_t total = 0;

	if ((w->opcode != WREN_WQE_SEND && w->opcode != WREN_WQE_SEND_IMM) ||
	    w->flags & ~(WREN_WQE_F_SIGNALED | WREN_WQE_F_SOLICITED |
			 WREN_WQE_F_INLINE) ||
	    w->rsvd0 || w->rsvd1 || w->rsvd2 || w->rsvd3[0] || w->rsvd3[1] ||
	    w->rsvd3[2] || w->rsvd3[3] ||
	    wren_le32(w->remote_qpn) > WREN_WIRE_QPN_MASK ||
	    ah >= e->cfg.max_ah || !e->ahs[ah].in_use ||
	    e->ahs[ah].pdn != qp->pdn)
		return WREN_CQE_LOC_QP_OP_ERR;
	if (w->flags & WREN_WQE_F_INLINE) {
		if (w->num_sge || wren_le32(w->inline_len) > WREN_SQ_MAX_INLINE)
			return WREN_CQE_LOC_QP_OP_ERR;
		total = wren_le32(w->inline_len);
	} else {
		if (w->num_sge > WREN_SQ_MAX_SGE || w->inline_len)
			return WREN_CQE_LOC_QP_OP_ERR;
		for (unsigned int i = 0; i < w->num_sge; i++) {
			const struct wren_sge *s = &w->sge[i];
			uint32_t n = wren_le32(s->length);

			total += n;
			if (wren_mr_walk(e, qp->pdn, wren_le32(s->lkey),
					 wren_le64(s->addr), n, 0, check_piece,
					 NULL))
				return WREN_CQE_LOC_PROT_ERR;
		}
	}
	if (total > e->cfg.max_msg_size ||
	    (qp->type == WREN_QPT_UD && total > e->cfg.mtu))
		return WREN_CQE_LOC_LEN_ERR;
	*len = total;
	return 0;
}

static int sq_post(struct wren_engine *e, struct wren_qp *qp, uint32_t slot)
{
	const struct wren_swqe *sw = &qp->sq_shadow[slot];
	const struct wren_ah *ah = &e->ahs[wren_le32(sw->wqe.ah)];
	struct wren_tp_dest d = {
		.ipv4 = ah->ipv4,
		/* An ordered QP is an ordering domain of its own. */
		.class_id = qp->flags & WREN_QP_FLAG_ORDERED ?
			    (uint32_t)(qp - e->qps) + 1 : 0,
		.mode = qp->flags & WREN_QP_FLAG_HANDSHAKE ?
			WREN_TP_MODE_HANDSHAKE : WREN_TP_MODE_OPTIMISTIC,
	};
	struct wren_tp_msg m = {
		.len = sw->len,
		.opcode = sw->wqe.opcode == WREN_WQE_SEND_IMM ?
			  WREN_WIRE_OP_SEND_IMM : WREN_WIRE_OP_SEND,
		.flags = (qp->flags & WREN_QP_FLAG_ORDERED ?
			  WREN_TP_MSG_ORDERED : 0) |
			 (sw->wqe.flags & WREN_WQE_F_SOLICITED ?
			  WREN_TP_MSG_SOLICITED : 0),
		.dst_qpn = wren_le32(sw->wqe.remote_qpn),
		.src_qpn = qp - e->qps + WREN_QPN_FIRST,
		.qkey = wren_le32(sw->wqe.remote_qkey),
		.imm = be32toh(sw->wqe.imm),
	};
	uint64_t cookie = cookie_of(e, qp, slot);

	memcpy(d.mac, ah->mac, sizeof(d.mac));
	return qp->type == WREN_QPT_UD ? wren_tp_send_ud(e->tp, &d, &m, cookie) :
					 wren_tp_send(e->tp, &d, &m, cookie);
}

/*
 * The entry at sq_fetch is bad: it completes with @status after the
 * entries before it, and the QP goes to ERR, flushing the rest.
 */
static void sq_fail(struct wren_engine *e, struct wren_qp *qp, uint8_t status)
{
	struct wren_swqe *sw;

	sw = &qp->sq_shadow[qp->sq_fetch & (depth(qp->sq_log_depth) - 1)];
	sw->posted = true;
	sw->done = true;
	sw->status = status;
	qp->sq_fetch++;
	qp_error(e, qp);
}

/* Take the send entries the doorbell announced, as far as we can. */
void wren_sq_process(struct wren_engine *e, struct wren_qp *qp)
{
	uint32_t mask = depth(qp->sq_log_depth) - 1;

	qp->sq_blocked = false;
	if (qp->state == WREN_QPS_ERR) {
		wren_qp_flush(e, qp);
		return;
	}
	while (qp->sq_fetch != qp->sq_pi) {
		uint32_t slot = qp->sq_fetch & mask;
		struct wren_swqe *sw = &qp->sq_shadow[slot];
		uint64_t at = qp->sq_base + (uint64_t)slot * sizeof(sw->wqe);
		uint8_t status;
		int rc;

		if (qp->state != WREN_QPS_RTS || !e->tp)
			return;
		memset(sw, 0, sizeof(*sw));
		if (e->ops->dma_read(e->opaque, at, &sw->wqe, sizeof(sw->wqe))) {
			wren_warn(e, WREN_WRN_DMA, at, sizeof(sw->wqe));
			sq_fail(e, qp, WREN_CQE_LOC_DMA_ERR);
			return;
		}
		status = sq_check(e, qp, &sw->wqe, &sw->len);
		if (status) {
			wren_warn(e, WREN_WRN_BAD_WQE,
				  qp - e->qps + WREN_QPN_FIRST,
				  (uint64_t)slot << 8 | status);
			sq_fail(e, qp, status);
			return;
		}
		rc = sq_post(e, qp, slot);
		if (rc == -ENOBUFS) {
			/* Full: resumed when the transport finishes one. */
			qp->sq_blocked = true;
			e->sq_waiting = true;
			return;
		}
		if (rc) {
			sq_fail(e, qp, WREN_CQE_LOC_QP_OP_ERR);
			return;
		}
		sw->posted = true;
		qp->sq_fetch++;
	}
}

/* Copy @len payload bytes of send entry @w from @off. */
static int sq_gather(struct wren_engine *e, const struct wren_qp *qp,
		     const struct wren_sq_wqe *w, uint32_t off, uint8_t *buf,
		     uint32_t len)
{
	if (w->flags & WREN_WQE_F_INLINE) {
		memcpy(buf, w->inline_data + off, len);
		return 0;
	}
	return sgl_copy(e, qp->pdn, w->sge, w->num_sge, off, buf, len, false);
}

static int tx_read(void *ulp, uint64_t cookie, uint32_t off, void *buf,
		   uint32_t len)
{
	struct wren_engine *e = ulp;
	uint32_t slot;
	struct wren_qp *qp = qp_of(e, cookie, &slot);

	if (!qp)
		return -1;
	return sq_gather(e, qp, &qp->sq_shadow[slot].wqe, off, buf, len);
}

static uint8_t cqe_status(enum wren_tp_status st)
{
	static const uint8_t map[WREN_TP_STATUS_COUNT] = {
		[WREN_TP_OK] = WREN_CQE_SUCCESS,
		[WREN_TP_REMOTE_UNRESPONSIVE] = WREN_CQE_REMOTE_UNRESPONSIVE,
		[WREN_TP_REMOTE_UNREACHABLE] = WREN_CQE_REMOTE_UNREACHABLE,
		[WREN_TP_BAD_DEST_QP] = WREN_CQE_BAD_DEST_QP,
		[WREN_TP_RNR] = WREN_CQE_RNR,
		[WREN_TP_REMOTE_OP_ERROR] = WREN_CQE_REMOTE_OP_ERR,
		[WREN_TP_TOO_LONG] = WREN_CQE_REMOTE_TOO_LONG,
		[WREN_TP_LOCAL_ERROR] = WREN_CQE_LOC_PROT_ERR,
		[WREN_TP_FLUSHED] = WREN_CQE_WR_FLUSH_ERR,
	};

	return (unsigned int)st < WREN_TP_STATUS_COUNT ? map[st] :
							  WREN_CQE_REMOTE_OP_ERR;
}

static void tx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct wren_engine *e = ulp;
	uint32_t slot;
	struct wren_qp *qp = qp_of(e, cookie, &slot);
	struct wren_swqe *sw;

	if (!qp || !qp->sq_shadow[slot].posted)
		return;
	sw = &qp->sq_shadow[slot];
	sw->done = true;
	sw->status = cqe_status(st);
	sq_retire(e, qp);
	/* The transport has room again, for any QP that waited. */
	if (e->sq_waiting) {
		e->sq_waiting = false;
		for (uint32_t i = 0; i < e->cfg.max_qp; i++)
			if (e->qps[i].in_use && e->qps[i].sq_blocked)
				wren_sq_process(e, &e->qps[i]);
	}
}

/* ------------------------------------------------------------------ */
/* Receive                                                              */
/* ------------------------------------------------------------------ */

/* Write @len bytes at @off of receive entry @w's buffer. */
static int rq_scatter(struct wren_engine *e, const struct wren_qp *qp,
		      const struct wren_rq_wqe *w, uint32_t off,
		      const uint8_t *buf, uint32_t len)
{
	return sgl_copy(e, qp->pdn, w->sge, w->num_sge, off, (uint8_t *)buf,
			len, true);
}

/* The GRH of a UD receive: IPv6 form, IPv4-mapped GIDs, as on RoCE. */
static void make_grh(uint8_t *g, uint32_t len, uint32_t src, uint32_t dst)
{
	memset(g, 0, WREN_GRH_LEN);
	g[0] = 0x60;
	g[4] = len >> 8;
	g[5] = len;
	g[6] = 0x1b;		/* next header: the IB transport */
	g[7] = 64;		/* hop limit */
	g[18] = g[19] = 0xff;
	memcpy(g + 20, &src, 4);
	g[34] = g[35] = 0xff;
	memcpy(g + 36, &dst, 4);
}

static enum wren_tp_status rx_begin(void *ulp, const struct wren_tp_peer *peer,
				    const struct wren_tp_msg *m,
				    uint64_t *cookie)
{
	struct wren_engine *e = ulp;
	bool ud = m->flags & WREN_TP_MSG_DATAGRAM;
	uint32_t i = m->dst_qpn - WREN_QPN_FIRST, mask, slot, shadow, grh, k;
	struct wren_qp *qp;
	struct wren_rwqe *rw;
	uint64_t at, room = 0;

	if (m->dst_qpn < WREN_QPN_FIRST || i >= e->cfg.max_qp)
		return WREN_TP_BAD_DEST_QP;
	qp = &e->qps[i];
	if (!qp->in_use || qp->type != (ud ? WREN_QPT_UD : WREN_QPT_RD) ||
	    (qp->state != WREN_QPS_RTR && qp->state != WREN_QPS_RTS) ||
	    m->qkey != qp->qkey)
		return WREN_TP_BAD_DEST_QP;
	if (qp->rq_ci == qp->rq_pi)
		return WREN_TP_RNR;
	mask = depth(qp->rq_log_depth) - 1;
	/*
	 * The entry is copied as it is taken, into any free shadow: messages
	 * complete in any order, and the ring slot is the driver's again at
	 * once.  A driver with more receives in flight than the queue is
	 * deep gets no receive for now rather than two messages in one.
	 */
	slot = qp->rq_ci & mask;
	for (k = 0; k <= mask && qp->rq_shadow[(slot + k) & mask].busy; k++)
		;
	if (k > mask)
		return WREN_TP_RNR;
	shadow = (slot + k) & mask;
	rw = &qp->rq_shadow[shadow];
	at = qp->rq_base + (uint64_t)slot * sizeof(rw->wqe);
	memset(rw, 0, sizeof(*rw));
	if (e->ops->dma_read(e->opaque, at, &rw->wqe, sizeof(rw->wqe))) {
		wren_warn(e, WREN_WRN_DMA, at, sizeof(rw->wqe));
		qp->rq_ci++;
		complete(e, qp->recv_cq, qp, slot, WREN_CQE_OP_RECV,
			 WREN_CQE_LOC_DMA_ERR);
		qp_error(e, qp);
		return WREN_TP_REMOTE_OP_ERROR;
	}
	if (!rw->wqe.num_sge || rw->wqe.num_sge > WREN_RQ_MAX_SGE ||
	    rw->wqe.rsvd0 || rw->wqe.rsvd1 || rw->wqe.rsvd2) {
		qp->rq_ci++;
		complete(e, qp->recv_cq, qp, wren_le16(rw->wqe.req_id),
			 WREN_CQE_OP_RECV, WREN_CQE_LOC_QP_OP_ERR);
		qp_error(e, qp);
		return WREN_TP_REMOTE_OP_ERROR;
	}
	for (unsigned int k = 0; k < rw->wqe.num_sge; k++)
		room += wren_le32(rw->wqe.sge[k].length);
	grh = ud ? WREN_GRH_LEN : 0;
	if (room < (uint64_t)m->len + grh) {
		if (!ud)
			return WREN_TP_TOO_LONG;	/* the entry stays */
		qp->rq_ci++;
		complete(e, qp->recv_cq, qp, wren_le16(rw->wqe.req_id),
			 WREN_CQE_OP_RECV, WREN_CQE_LOC_LEN_ERR);
		return WREN_TP_TOO_LONG;
	}
	qp->rq_ci++;
	rw->busy = true;
	rw->len = m->len;
	rw->src_qpn = m->src_qpn;
	rw->src_ipv4 = peer->ipv4;
	rw->imm = m->imm;
	rw->opcode = m->opcode;
	rw->solicited = m->flags & WREN_TP_MSG_SOLICITED;
	if (ud) {
		uint8_t g[WREN_GRH_LEN];

		make_grh(g, m->len, peer->ipv4, e->cfg.ipv4);
		rw->failed = rq_scatter(e, qp, &rw->wqe, 0, g, sizeof(g)) != 0;
	}
	*cookie = cookie_of(e, qp, shadow);
	return WREN_TP_OK;
}

static int rx_write(void *ulp, uint64_t cookie, uint32_t off, const void *buf,
		    uint32_t len)
{
	struct wren_engine *e = ulp;
	uint32_t slot;
	struct wren_qp *qp = qp_of(e, cookie, &slot);
	struct wren_rwqe *rw;

	if (!qp)
		return -1;
	rw = &qp->rq_shadow[slot];
	if (!rw->failed &&
	    rq_scatter(e, qp, &rw->wqe, off + (qp->type == WREN_QPT_UD ?
						WREN_GRH_LEN : 0), buf, len))
		rw->failed = true;
	return rw->failed ? -1 : 0;
}

static void rx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct wren_engine *e = ulp;
	uint32_t slot;
	struct wren_qp *qp = qp_of(e, cookie, &slot);
	const struct wren_rwqe *rw;
	struct wren_cqe cqe;
	bool ud;

	if (!qp)
		return;
	rw = &qp->rq_shadow[slot];
	qp->rq_shadow[slot].busy = false;
	ud = qp->type == WREN_QPT_UD;
	memset(&cqe, 0, sizeof(cqe));
	cqe.wqe_index = rw->wqe.req_id;
	cqe.opcode = WREN_CQE_OP_RECV;
	cqe.qpn = wren_to_le32(qp - e->qps + WREN_QPN_FIRST);
	if (rw->failed)
		cqe.status = WREN_CQE_LOC_PROT_ERR;
	else if (st != WREN_TP_OK)
		cqe.status = WREN_CQE_WR_FLUSH_ERR;
	cqe.byte_len = wren_to_le32(rw->len + (ud ? WREN_GRH_LEN : 0));
	cqe.src_qpn = wren_to_le32(rw->src_qpn);
	cqe.src_ipv4 = rw->src_ipv4;
	if (rw->opcode == WREN_WIRE_OP_SEND_IMM) {
		cqe.flags |= WREN_CQE_F_IMM;
		cqe.imm = htobe32(rw->imm);
	}
	if (ud)
		cqe.flags |= WREN_CQE_F_GRH;
	if (rw->solicited)
		cqe.flags |= WREN_CQE_F_SOLICITED;
	wren_cq_post(e, qp->recv_cq, &cqe);
}

const struct wren_tp_ulp_ops wren_qp_ulp_ops = {
	.tx_read = tx_read,
	.tx_done = tx_done,
	.rx_begin = rx_begin,
	.rx_write = rx_write,
	.rx_done = rx_done,
};
