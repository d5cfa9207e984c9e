// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the transport's upper layer.  The transport calls these
 * for every message (struct wren_tp_ulp_ops); each call goes to the
 * operation that owns the message, by the kind its cookie names and, for
 * a message that arrives, by its opcode after the checks every message to
 * a QP must pass.  An RC QP's messages pass its stream too, which this
 * layer then executes in order (weng_rc.c).
 */
#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

static int tx_read(void *ulp, uint64_t cookie, uint32_t off, void *buf,
		   uint32_t len)
{
	struct weng *e = ulp;

	if (WENG_COOKIE_KIND(cookie) == WENG_COOKIE_RESP)
		return weng_read_answer_tx_read(e, cookie, off, buf, len);
	return weng_send_tx_read(e, cookie, off, buf, len);
}

static void tx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct weng *e = ulp;

	if (WENG_COOKIE_KIND(cookie) == WENG_COOKIE_RESP) {
		weng_read_answer_tx_done(e, cookie, st);
		return;
	}
	weng_send_tx_done(e, cookie, st);
	/*
	 * The transport has room again: answers to reads that waited for it,
	 * and any send queue that did.
	 */
	weng_read_flush(e);
}

/* A message for @qp, by its opcode, once the QP has admitted it. */
static enum wren_tp_status rx_begin_op(struct weng *e, struct weng_qp *qp,
				       const struct wren_tp_peer *peer,
				       const struct wren_tp_msg *m,
				       uint64_t *cookie)
{
	if (m->opcode == WREN_WIRE_OP_WRITE_IMM && qp->type == WREN_QPT_RC)
		return weng_write_imm_begin_rc(e, qp, peer, m, cookie);
	switch (m->opcode) {
	case WREN_WIRE_OP_SEND:
	case WREN_WIRE_OP_SEND_IMM:
		return weng_recv_begin(e, qp, peer, m, cookie);
	case WREN_WIRE_OP_SEND_INV:
		/*
		 * RC only.  A key that names no fast-register region of the
		 * QP's PD is refused as a WRITE's bad key is: REMOTE_ACCESS,
		 * and the QP fails when its stream reaches the message.
		 */
		if (qp->type != WREN_QPT_RC)
			return WREN_TP_BAD_DEST_QP;
		if (!weng_mr_fast_of_key(e, qp->pdn, m->imm, true))
			return WREN_TP_REMOTE_ACCESS;
		return weng_recv_begin(e, qp, peer, m, cookie);
	case WREN_WIRE_OP_READ_REQ:
		return weng_resp_begin(e, qp, peer, m, m->rlen,
				       WREN_MR_ACCESS_REMOTE_READ, cookie);
	case WREN_WIRE_OP_CMP_SWP:
	case WREN_WIRE_OP_FETCH_ADD:
		/* RC only; 8 bytes, aligned, as the verbs define them. */
		if (qp->type != WREN_QPT_RC)
			return WREN_TP_BAD_DEST_QP;
		if (m->raddr % 8)
			return WREN_TP_REMOTE_OP_ERROR;
		return weng_resp_begin(e, qp, peer, m, m->rlen,
				       WREN_MR_ACCESS_REMOTE_ATOMIC, cookie);
	default:
		return weng_resp_begin(e, qp, peer, m, m->len,
				       WREN_MR_ACCESS_REMOTE_WRITE, cookie);
	}
}

/*
 * Execute RC QP @qp's messages that are whole, in stream order
 * (weng_rc.c), until one is not; a failed one moves the QP to ERR.
 */
static void rc_execute(struct weng *e, struct weng_qp *qp)
{
	uint32_t what;

	while (qp->state != WREN_QPS_ERR && weng_rc_next(qp, &what)) {
		uint32_t i = WENG_RC_INDEX(what);
		bool ok = true;

		switch (WENG_RC_KIND(what)) {
		case WENG_RC_SEND:
			ok = weng_recv_execute(e, qp, i);
			break;
		case WENG_RC_RESP:
			if (e->resps[i].opcode == WREN_WIRE_OP_READ_REQ)
				weng_read_execute(e, &e->resps[i]);
			else if (wren_wire_op_is_read(e->resps[i].opcode))
				weng_atomic_execute(e, &e->resps[i]);
			else
				ok = weng_write_execute(e, &e->resps[i]);
			break;
		default:
			/* The refusal's event, then the QP fails. */
			weng_qp_event(e, qp, i == WREN_TP_REMOTE_ACCESS ?
					     WREN_QP_EV_ACCESS_ERR :
					     WREN_QP_EV_REQ_ERR);
			ok = false;
		}
		if (!ok)
			weng_qp_error(e, qp);
	}
}

/*
 * A message for RC QP @qp: from its peer and in its stream's window, or
 * refused.  A message refused for any reason but a missing receive still
 * takes its place, where it will fail the QP.
 */
static enum wren_tp_status rx_begin_rc(struct weng *e, struct weng_qp *qp,
				       const struct wren_tp_peer *peer,
				       const struct wren_tp_msg *m,
				       uint64_t *cookie)
{
	enum wren_tp_status st = weng_rc_admit(qp, peer, m);

	if (st != WREN_TP_OK)
		return st;
	/* The first message of the peer establishes the connection. */
	if (qp->state == WREN_QPS_RTR && !qp->rc->comm_est) {
		qp->rc->comm_est = true;
		weng_qp_event(e, qp, WREN_QP_EV_COMM_EST);
	}
	st = rx_begin_op(e, qp, peer, m, cookie);
	if (st == WREN_TP_OK) {
		weng_rc_take(qp, m->qkey,
			     WENG_COOKIE_KIND(*cookie) == WENG_COOKIE_RESP ?
			     WENG_RC_WHAT(WENG_RC_RESP,
					  WENG_COOKIE_INDEX(*cookie)) :
			     WENG_RC_WHAT(WENG_RC_SEND,
					  WENG_COOKIE_SLOT(*cookie)));
	} else if (st != WREN_TP_RNR && qp->state != WREN_QPS_ERR) {
		/* Whole at once: executing it is failing with @st. */
		weng_rc_take(qp, m->qkey, WENG_RC_WHAT(WENG_RC_FAIL, st));
		weng_rc_whole(qp, m->qkey, true);
		rc_execute(e, qp);
	}
	return st;
}

/* A message for @qp, as the checks of its type take it. */
static enum wren_tp_status rx_begin_qp(struct weng *e, struct weng_qp *qp,
				       const struct wren_tp_peer *peer,
				       const struct wren_tp_msg *m,
				       uint64_t *cookie)
{
	bool ud = m->flags & WREN_TP_MSG_DATAGRAM;

	if (qp->type == WREN_QPT_RC && !ud)
		return rx_begin_rc(e, qp, peer, m, cookie);
	if (qp->type != (ud ? WREN_QPT_UD : WREN_QPT_RD) ||
	    m->flags & WREN_TP_MSG_CONNECTED || m->qkey != qp->qkey)
		return WREN_TP_BAD_DEST_QP;
	return rx_begin_op(e, qp, peer, m, cookie);
}

static enum wren_tp_status rx_begin(void *ulp, const struct wren_tp_peer *peer,
				    const struct wren_tp_msg *m,
				    uint64_t *cookie)
{
	struct weng *e = ulp;
	enum wren_tp_status st;
	struct weng_qp *qp;

	if (m->opcode == WREN_WIRE_OP_READ_RESP)
		return weng_read_resp_begin(e, peer, m, cookie);
	qp = weng_qp_get(e, m->dst_qpn);
	if (!qp || !weng_qp_receives(qp))
		return WREN_TP_BAD_DEST_QP;
	st = rx_begin_qp(e, qp, peer, m, cookie);
	/* Every way a message finds no receive ends here. */
	if (st == WREN_TP_RNR)
		WENG_COUNT_QP(e, weng_qpn(e, qp), rnr_refusals);
	return st;
}

static int rx_write(void *ulp, uint64_t cookie, uint32_t off, const void *buf,
		    uint32_t len)
{
	struct weng *e = ulp;
	struct weng_resp *r;

	switch (WENG_COOKIE_KIND(cookie)) {
	case WENG_COOKIE_RESP:
		r = weng_resp_of_cookie(e, cookie);
		if (!r)
			return -1;
		if (wren_wire_op_is_read(r->opcode))
			return weng_atomic_place(r, off, buf, len);
		return weng_write_place(e, r, off, buf, len);
	case WENG_COOKIE_READ:
		return weng_read_resp_write(e, cookie, off, buf, len);
	default:
		return weng_recv_write(e, cookie, off, buf, len);
	}
}

static void rx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct weng *e = ulp;
	struct weng_qp *qp = NULL;
	struct weng_resp *r;
	uint32_t slot;

	switch (WENG_COOKIE_KIND(cookie)) {
	case WENG_COOKIE_RESP:
		r = weng_resp_of_cookie(e, cookie);
		if (!r)
			return;
		qp = weng_resp_qp(e, r);
		if (wren_wire_op_is_read(r->opcode))
			weng_read_req_arrived(e, r, st);
		else
			weng_write_done(e, r, st);
		break;
	case WENG_COOKIE_READ:
		weng_read_resp_done(e, cookie, st);
		return;
	default:
		qp = weng_qp_of_cookie(e, cookie, &slot);
		weng_recv_done(e, cookie, st);
	}
	if (qp && qp->type == WREN_QPT_RC)
		rc_execute(e, qp);
}

const struct wren_tp_ulp_ops weng_ulp_ops = {
	.tx_read = tx_read,
	.tx_done = tx_done,
	.rx_begin = rx_begin,
	.rx_write = rx_write,
	.rx_done = rx_done,
};
