// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: send queues at work.
 *
 * A send doorbell makes the device read the new send entries, check them
 * (opcode, flags, sizes, the address handle and every SGE's key, PD and
 * bounds) and hand each message to the transport: an RD QP's to a
 * transport context, a UD QP's as a datagram.  The transport reads the
 * payload through the SGEs when it builds each packet and reports the
 * outcome, which becomes a send completion, in posting order
 * (weng_sq_retire()).  An RDMA READ is posted here too; the rest of its
 * life is weng_read.c's.
 */
#include <errno.h>
#include <string.h>

#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

static bool is_rdma(uint8_t wqe_opcode)
{
	return wqe_opcode == WREN_WQE_RDMA_WRITE ||
	       wqe_opcode == WREN_WQE_RDMA_WRITE_IMM ||
	       wqe_opcode == WREN_WQE_RDMA_READ;
}

/*
 * Check a send entry; its payload length in @len.  0, or the completion
 * status it fails with.
 */
static uint8_t sq_check(struct weng *e, const struct weng_qp *qp,
			const struct wren_sq_wqe *w, uint32_t *len)
{
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
	    !weng_ah_get(e, wren_le32(w->ah), qp->pdn))
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
			if (weng_mr_walk(e, qp->pdn, wren_le32(s->lkey),
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

static int sq_post(struct weng *e, struct weng_qp *qp, uint32_t slot)
{
	struct weng_swqe *sw = &qp->sq_shadow[slot];
	const struct weng_ah *ah = &e->ahs[wren_le32(sw->wqe.ah)];
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
		.opcode = wire_op(sw->wqe.opcode),
		.flags = (qp->flags & WREN_QP_FLAG_ORDERED ?
			  WREN_TP_MSG_ORDERED : 0) |
			 (sw->wqe.flags & WREN_WQE_F_SOLICITED ?
			  WREN_TP_MSG_SOLICITED : 0),
		.dst_qpn = wren_le32(sw->wqe.remote_qpn),
		.src_qpn = weng_qpn(e, qp),
		.qkey = wren_le32(sw->wqe.remote_qkey),
		.imm = be32toh(sw->wqe.imm),
	};
	uint64_t cookie = weng_qp_cookie(e, qp, slot);

	if (is_rdma(sw->wqe.opcode)) {
		m.raddr = wren_le64(sw->wqe.remote_addr);
		m.rkey = wren_le32(sw->wqe.rkey);
	}
	if (sw->wqe.opcode == WREN_WQE_RDMA_READ)
		weng_read_post(qp, slot, ah->ipv4, &m);
	memcpy(d.mac, ah->mac, sizeof(d.mac));
	return qp->type == WREN_QPT_UD ? wren_tp_send_ud(e->tp, &d, &m, cookie) :
					 wren_tp_send(e->tp, &d, &m, cookie);
}

/*
 * The entry at sq_fetch is bad: it completes with @status after the
 * entries before it, and the QP goes to ERR, flushing the rest.
 */
static void sq_fail(struct weng *e, struct weng_qp *qp, uint8_t status)
{
	struct weng_swqe *sw;

	sw = &qp->sq_shadow[qp->sq_fetch & (weng_depth(qp->sq_log_depth) - 1)];
	sw->posted = true;
	sw->done = true;
	sw->status = status;
	qp->sq_fetch++;
	weng_qp_error(e, qp);
}

/* Take the send entries the doorbell announced, as far as we can. */
void weng_sq_kick(struct weng *e, struct weng_qp *qp)
{
	uint32_t mask = weng_depth(qp->sq_log_depth) - 1;

	qp->sq_blocked = false;
	if (qp->state == WREN_QPS_ERR) {
		weng_qp_flush(e, qp);
		return;
	}
	while (qp->sq_fetch != qp->sq_pi) {
		uint32_t slot = qp->sq_fetch & mask;
		struct weng_swqe *sw = &qp->sq_shadow[slot];
		uint64_t at = qp->sq_base + (uint64_t)slot * sizeof(sw->wqe);
		uint8_t status;
		int rc;

		if (qp->state != WREN_QPS_RTS || !e->tp)
			return;
		memset(sw, 0, sizeof(*sw));
		if (weng_dma_read(e, at, &sw->wqe, sizeof(sw->wqe))) {
			sq_fail(e, qp, WREN_CQE_LOC_DMA_ERR);
			return;
		}
		status = sq_check(e, qp, &sw->wqe, &sw->len);
		if (status) {
			weng_warn(e, WENG_WRN_BAD_WQE, weng_qpn(e, qp),
				  (uint64_t)slot << 8 | status);
			sq_fail(e, qp, status);
			return;
		}
		if (sw->wqe.opcode == WREN_WQE_RDMA_READ &&
		    !weng_read_may_post(e, qp)) {
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
void weng_sq_resume(struct weng *e)
{
	if (!e->sq_waiting)
		return;
	e->sq_waiting = false;
	for (uint32_t i = 0; i < e->cfg.max_qp; i++)
		if (e->qps[i].in_use && e->qps[i].sq_blocked)
			weng_sq_kick(e, &e->qps[i]);
}

/* The transport builds a packet: @len payload bytes of a send, from @off. */
int weng_send_tx_read(struct weng *e, uint64_t cookie, uint32_t off,
		      void *buf, uint32_t len)
{
	uint32_t slot;
	struct weng_qp *qp = weng_qp_of_cookie(e, cookie, &slot);
	const struct wren_sq_wqe *w;

	if (!qp)
		return -1;
	w = &qp->sq_shadow[slot].wqe;
	if (w->flags & WREN_WQE_F_INLINE) {
		memcpy(buf, w->inline_data + off, len);
		return 0;
	}
	return weng_sgl_copy(e, qp->pdn, w->sge, w->num_sge, off, buf, len,
			     false);
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

/* The transport is done with a message of a send queue. */
void weng_send_tx_done(struct weng *e, uint64_t cookie,
		       enum wren_tp_status st)
{
	uint32_t slot;
	struct weng_qp *qp = weng_qp_of_cookie(e, cookie, &slot);
	struct weng_swqe *sw;

	if (!qp || !qp->sq_shadow[slot].posted)
		return;
	sw = &qp->sq_shadow[slot];
	sw->status = cqe_status(st);
	if (sw->wqe.opcode == WREN_WQE_RDMA_READ) {
		weng_read_req_done(e, qp, sw, st);
	} else {
		sw->done = true;
		weng_sq_retire(e, qp);
	}
}
