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
	return WREN_COOKIE(WREN_COOKIE_QP, qp->gen, qp - e->qps, slot);
}

/* The QP and slot of a transport callback, or NULL if stale. */
static struct wren_qp *qp_of(struct wren_engine *e, uint64_t cookie,
			     uint32_t *slot)
{
	uint32_t i = WREN_COOKIE_INDEX(cookie);
	struct wren_qp *qp;

	if (i >= e->cfg.max_qp)
		return NULL;
	qp = &e->qps[i];
	if (!qp->in_use || qp->gen != WREN_COOKIE_GEN(cookie))
		return NULL;
	*slot = WREN_COOKIE_SLOT(cookie);
	return qp;
}

static bool is_rdma(uint8_t wqe_opcode)
{
	return wqe_opcode == WREN_WQE_RDMA_WRITE ||
	       wqe_opcode == WREN_WQE_RDMA_WRITE_IMM ||
	       wqe_opcode == WREN_WQE_RDMA_READ;
}

/* The completion opcode of a send entry. */
static uint8_t send_cqe_op(const struct wren_swqe *sw)
{
	switch (sw->wqe.opcode) {
	case WREN_WQE_RDMA_WRITE:
	case WREN_WQE_RDMA_WRITE_IMM:
		return WREN_CQE_OP_RDMA_WRITE;
	case WREN_WQE_RDMA_READ:
		return WREN_CQE_OP_RDMA_READ;
	default:
		return WREN_CQE_OP_SEND;
	}
}

static uint32_t depth(uint8_t log_depth)
{
	return 1U << log_depth;
}

static void complete(struct wren_engine *e, uint32_t cqn,
		     const struct wren_qp *qp, uint32_t slot, uint8_t opcode,
		     uint8_t status, uint32_t byte_len)
{
	struct wren_cqe cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.wqe_index = wren_to_le16(slot);
	cqe.opcode = opcode;
	cqe.status = status;
	cqe.qpn = wren_to_le32(qp - e->qps + WREN_QPN_FIRST);
	cqe.byte_len = wren_to_le32(byte_len);
	wren_cq_post(e, cqn, &cqe);
}

/* A read's completion says how many bytes it brought. */
static void complete_send(struct wren_engine *e, const struct wren_qp *qp,
			  const struct wren_swqe *sw, uint32_t slot)
{
	complete(e, qp->send_cq, qp, slot, send_cqe_op(sw), sw->status,
		 sw->wqe.opcode == WREN_WQE_RDMA_READ && !sw->status ?
		 sw->len : 0);
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
			      wren_mr_read(e, pdn, key, va, buf, piece, 0);
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
			complete_send(e, qp, sw, qp->sq_ci & mask);
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
			complete_send(e, qp, sw, qp->sq_ci & sq_mask);
	}
	/* Receives a message was being placed into, then the untaken. */
	for (uint32_t i = 0; i <= rq_mask; i++)
		if (qp->rq_shadow[i].busy)
			complete(e, qp->recv_cq, qp,
				 wren_le16(qp->rq_shadow[i].wqe.req_id),
				 WREN_CQE_OP_RECV, WREN_CQE_WR_FLUSH_ERR, 0);
	for (; qp->rq_ci != qp->rq_pi; qp->rq_ci++)
		complete(e, qp->recv_cq, qp, rq_req_id(e, qp, qp->rq_ci & rq_mask),
			 WREN_CQE_OP_RECV, WREN_CQE_WR_FLUSH_ERR, 0);
	qp->sq_fetch = qp->sq_ci;
	qp->sq_blocked = false;
	qp->reads_out = 0;
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

/*
 * Check a send entry; its payload length in @len.  0, or the completion
 * status it fails with.
 */
static uint8_t sq_check(struct wren_engine *e, const struct wren_qp *qp,
			const struct wren_sq_wqe *w, uint32_t *len)
{
	uint32_t ah = wren_le32(w->ah);
	bool read = w->opcode == WREN_WQE_RDMA_READ;
	uint64_t total = 0;

	if (w->opcode < WREN_WQE_SEND || w->opcode > WREN_WQE_RDMA_READ ||
	    (is_rdma(w->opcode) && qp->type != WREN_QPT_RD) ||
	    (!is_rdma(w->opcode) && (w->remote_addr || w->rkey)) ||
	    (read && w->flags & WREN_WQE_F_INLINE) ||
	    w->flags & ~(WREN_WQE_F_SIGNALED | WREN_WQE_F_SOLICITED |
			 WREN_WQE_F_INLINE) ||
	    w->rsvd0 || w->rsvd1 || w->rsvd2 || w->rsvd3 ||
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
			/* A read's data lands in local memory. */
			if (wren_mr_walk(e, qp->pdn, wren_le32(s->lkey),
					 wren_le64(s->addr), n,
					 read ? WREN_MR_ACCESS_LOCAL_WRITE : 0,
					 NULL, NULL))
				return WREN_CQE_LOC_PROT_ERR;
		}
	}
	if (total > e->cfg.max_msg_size ||
	    (qp->type == WREN_QPT_UD && total > e->cfg.mtu))
		return WREN_CQE_LOC_LEN_ERR;
	*len = total;
	return 0;
}

/* The transport's opcode for a send entry's. */
static uint8_t wire_op(uint8_t wqe_opcode)
{
	static const uint8_t map[] = {
		[WREN_WQE_SEND] = WREN_WIRE_OP_SEND,
		[WREN_WQE_SEND_IMM] = WREN_WIRE_OP_SEND_IMM,
		[WREN_WQE_RDMA_WRITE] = WREN_WIRE_OP_WRITE,
		[WREN_WQE_RDMA_WRITE_IMM] = WREN_WIRE_OP_WRITE_IMM,
		[WREN_WQE_RDMA_READ] = WREN_WIRE_OP_READ_REQ,
	};

	return map[wqe_opcode];
}

static int sq_post(struct wren_engine *e, struct wren_qp *qp, uint32_t slot)
{
	struct wren_swqe *sw = &qp->sq_shadow[slot];
	bool read = sw->wqe.opcode == WREN_WQE_RDMA_READ;
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
		.len = read ? 0 : sw->len,
		.opcode = wire_op(sw->wqe.opcode),
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

	if (is_rdma(sw->wqe.opcode)) {
		m.raddr = wren_le64(sw->wqe.remote_addr);
		m.rkey = wren_le32(sw->wqe.rkey);
	}
	if (read) {
		/* The response names the read by this tag. */
		sw->tag = (uint32_t)qp->gen << 16 | qp->sq_fetch;
		sw->dst_ipv4 = ah->ipv4;
		m.imm = sw->tag;
		m.rlen = sw->len;
	}

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
		if (sw->wqe.opcode == WREN_WQE_RDMA_READ &&
		    qp->reads_out >= e->cfg.max_rd_atom) {
			/* Resumed when one of the QP's reads is done. */
			qp->sq_blocked = true;
			e->sq_waiting = true;
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
		if (sw->wqe.opcode == WREN_WQE_RDMA_READ)
			qp->reads_out++;
		qp->sq_fetch++;
	}
}

/*
 * Send queues held back (the transport was full, or too many reads)
 * try again.  Not from inside a transport callback other than tx_done.
 */
void wren_sq_resume(struct wren_engine *e)
{
	if (!e->sq_waiting)
		return;
	e->sq_waiting = false;
	for (uint32_t i = 0; i < e->cfg.max_qp; i++)
		if (e->qps[i].in_use && e->qps[i].sq_blocked)
			wren_sq_process(e, &e->qps[i]);
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
	struct wren_qp *qp;

	if (WREN_COOKIE_KIND(cookie) == WREN_COOKIE_RESP)
		return wren_rdma_tx_read(e, cookie, off, buf, len);
	qp = qp_of(e, cookie, &slot);
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
		[WREN_TP_REMOTE_ACCESS] = WREN_CQE_REM_ACCESS_ERR,
		[WREN_TP_LOCAL_ERROR] = WREN_CQE_LOC_PROT_ERR,
		[WREN_TP_FLUSHED] = WREN_CQE_WR_FLUSH_ERR,
	};

	return (unsigned int)st < WREN_TP_STATUS_COUNT ? map[st] :
							  WREN_CQE_REMOTE_OP_ERR;
}

/* Wake the read timer by @deadline at the latest. */
static void read_timer_arm(struct wren_engine *e, uint64_t deadline)
{
	if (e->read_timer_at && e->read_timer_at <= deadline)
		return;
	e->read_timer_at = deadline;
	e->ops->host.timer_arm(e->read_timer, deadline);
}

/* An RDMA_READ is done once its request and its response both are. */
static void read_settle(struct wren_engine *e, struct wren_qp *qp,
			struct wren_swqe *sw)
{
	if (!sw->req_done || (!sw->resp_done && sw->status == WREN_CQE_SUCCESS))
		return;
	sw->done = true;
	qp->reads_out--;
	if (sw->status == WREN_CQE_SUCCESS)
		sw->status = sw->resp_status;
	sq_retire(e, qp);
}

static void tx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct wren_engine *e = ulp;
	uint32_t slot;
	struct wren_qp *qp;
	struct wren_swqe *sw;

	if (WREN_COOKIE_KIND(cookie) == WREN_COOKIE_RESP) {
		wren_rdma_tx_done(e, cookie, st);
		return;
	}
	qp = qp_of(e, cookie, &slot);
	if (!qp || !qp->sq_shadow[slot].posted)
		return;
	sw = &qp->sq_shadow[slot];
	sw->status = cqe_status(st);
	if (sw->wqe.opcode == WREN_WQE_RDMA_READ) {
		/* Delivered: now the response must come, or the timer. */
		sw->req_done = true;
		if (!sw->resp_done && st == WREN_TP_OK) {
			sw->deadline = e->ops->host.now_ns(e->opaque) +
				       e->read_timeout_ns;
			read_timer_arm(e, sw->deadline);
		}
		read_settle(e, qp, sw);
	} else {
		sw->done = true;
		sq_retire(e, qp);
	}
	/* Answers to reads that waited for room in the transport. */
	wren_rdma_flush(e);
	/* The transport has room again, for any QP that waited. */
	wren_sq_resume(e);
}

/*
 * RDMA_READs whose request arrived but whose response has not come for
 * read_timeout_ns: the responder gave up or went away.
 */
void wren_qp_read_timer(void *arg)
{
	struct wren_engine *e = arg;
	uint64_t now = e->ops->host.now_ns(e->opaque), next = UINT64_MAX;

	e->read_timer_at = 0;
	for (uint32_t i = 0; i < e->cfg.max_qp; i++) {
		struct wren_qp *qp = &e->qps[i];
		uint32_t mask = depth(qp->sq_log_depth) - 1;

		if (!qp->in_use || qp->type != WREN_QPT_RD)
			continue;
		for (uint16_t k = qp->sq_ci; k != qp->sq_fetch; k++) {
			struct wren_swqe *sw = &qp->sq_shadow[k & mask];

			if (sw->wqe.opcode != WREN_WQE_RDMA_READ || sw->done ||
			    !sw->req_done || sw->resp_done)
				continue;
			if (sw->deadline > now) {
				next = min_t64(next, sw->deadline);
				continue;
			}
			sw->done = true;
			sw->status = WREN_CQE_REMOTE_UNRESPONSIVE;
			qp->reads_out--;
		}
		sq_retire(e, qp);
	}
	if (next != UINT64_MAX)
		read_timer_arm(e, next);
	wren_sq_resume(e);
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

/*
 * The response to one of this adapter's RDMA_READs: it must name a read
 * in flight by its tag and come from the QP and address that read asked.
 */
static enum wren_tp_status read_resp_begin(struct wren_engine *e,
					   const struct wren_tp_peer *peer,
					   const struct wren_tp_msg *m,
					   uint64_t *cookie)
{
	uint32_t i = m->dst_qpn - WREN_QPN_FIRST, slot;
	struct wren_qp *qp;
	struct wren_swqe *sw;

	if (m->dst_qpn < WREN_QPN_FIRST || i >= e->cfg.max_qp)
		return WREN_TP_BAD_DEST_QP;
	qp = &e->qps[i];
	if (!qp->in_use || qp->type != WREN_QPT_RD ||
	    (uint16_t)(m->imm >> 16) != qp->gen)
		return WREN_TP_BAD_DEST_QP;
	slot = m->imm & (depth(qp->sq_log_depth) - 1);
	sw = &qp->sq_shadow[slot];
	if (!sw->posted || sw->done || sw->resp_done ||
	    sw->wqe.opcode != WREN_WQE_RDMA_READ || sw->tag != m->imm ||
	    sw->dst_ipv4 != peer->ipv4 ||
	    m->src_qpn != wren_le32(sw->wqe.remote_qpn) ||
	    m->len != (m->flags & WREN_TP_MSG_FAILED ? 0 : sw->len))
		return WREN_TP_BAD_DEST_QP;
	sw->resp_failed = false;
	sw->resp_status = m->flags & WREN_TP_MSG_FAILED ?
			  WREN_CQE_REMOTE_OP_ERR : WREN_CQE_SUCCESS;
	*cookie = WREN_COOKIE(WREN_COOKIE_READ, qp->gen, i, slot);
	return WREN_TP_OK;
}

static int read_resp_write(struct wren_engine *e, uint64_t cookie,
			   uint32_t off, const void *buf, uint32_t len)
{
	uint32_t slot;
	struct wren_qp *qp = qp_of(e, cookie, &slot);
	struct wren_swqe *sw;

	if (!qp)
		return -1;
	sw = &qp->sq_shadow[slot];
	/* Progress: the responder is alive. */
	sw->deadline = e->ops->host.now_ns(e->opaque) + e->read_timeout_ns;
	if (!sw->resp_failed &&
	    sgl_copy(e, qp->pdn, sw->wqe.sge, sw->wqe.num_sge, off,
		     (uint8_t *)buf, len, true))
		sw->resp_failed = true;
	return sw->resp_failed ? -1 : 0;
}

static void read_resp_done(struct wren_engine *e, uint64_t cookie,
			   enum wren_tp_status st)
{
	uint32_t slot;
	struct wren_qp *qp = qp_of(e, cookie, &slot);
	struct wren_swqe *sw;

	if (!qp)
		return;
	sw = &qp->sq_shadow[slot];
	if (!sw->posted || sw->done)
		return;
	sw->resp_done = true;
	if (sw->resp_failed)
		sw->resp_status = WREN_CQE_LOC_PROT_ERR;
	else if (st != WREN_TP_OK)
		sw->resp_status = WREN_CQE_REMOTE_OP_ERR;
	read_settle(e, qp, sw);
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

	if (m->opcode == WREN_WIRE_OP_READ_RESP)
		return read_resp_begin(e, peer, m, cookie);
	if (m->dst_qpn < WREN_QPN_FIRST || i >= e->cfg.max_qp)
		return WREN_TP_BAD_DEST_QP;
	qp = &e->qps[i];
	if (!qp->in_use || qp->type != (ud ? WREN_QPT_UD : WREN_QPT_RD) ||
	    (qp->state != WREN_QPS_RTR && qp->state != WREN_QPS_RTS) ||
	    m->qkey != qp->qkey)
		return WREN_TP_BAD_DEST_QP;
	if (m->opcode != WREN_WIRE_OP_SEND && m->opcode != WREN_WIRE_OP_SEND_IMM)
		return wren_rdma_rx_begin(e, qp, peer, m, cookie);
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
			 WREN_CQE_LOC_DMA_ERR, 0);
		qp_error(e, qp);
		return WREN_TP_REMOTE_OP_ERROR;
	}
	if (!rw->wqe.num_sge || rw->wqe.num_sge > WREN_RQ_MAX_SGE ||
	    rw->wqe.rsvd0 || rw->wqe.rsvd1 || rw->wqe.rsvd2) {
		qp->rq_ci++;
		complete(e, qp->recv_cq, qp, wren_le16(rw->wqe.req_id),
			 WREN_CQE_OP_RECV, WREN_CQE_LOC_QP_OP_ERR, 0);
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
			 WREN_CQE_OP_RECV, WREN_CQE_LOC_LEN_ERR, 0);
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
	struct wren_qp *qp;
	struct wren_rwqe *rw;

	switch (WREN_COOKIE_KIND(cookie)) {
	case WREN_COOKIE_RESP:
		return wren_rdma_rx_write(e, cookie, off, buf, len);
	case WREN_COOKIE_READ:
		return read_resp_write(e, cookie, off, buf, len);
	}
	qp = qp_of(e, cookie, &slot);
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
	struct wren_qp *qp;
	const struct wren_rwqe *rw;
	struct wren_cqe cqe;
	bool ud;

	switch (WREN_COOKIE_KIND(cookie)) {
	case WREN_COOKIE_RESP:
		wren_rdma_rx_done(e, cookie, st);
		return;
	case WREN_COOKIE_READ:
		read_resp_done(e, cookie, st);
		return;
	}
	qp = qp_of(e, cookie, &slot);
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
