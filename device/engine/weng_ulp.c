// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the transport's upper layer.  The transport calls these
 * for every message (struct wren_tp_ulp_ops); each call goes to the
 * operation that owns the message, by the kind its cookie names and, for
 * a message that arrives, by its opcode after the checks every message to
 * a QP must pass.
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

static enum wren_tp_status rx_begin(void *ulp, const struct wren_tp_peer *peer,
				    const struct wren_tp_msg *m,
				    uint64_t *cookie)
{
	struct weng *e = ulp;
	bool ud = m->flags & WREN_TP_MSG_DATAGRAM;
	struct weng_qp *qp;

	if (m->opcode == WREN_WIRE_OP_READ_RESP)
		return weng_read_resp_begin(e, peer, m, cookie);
	qp = weng_qp_get(e, m->dst_qpn);
	if (!qp || qp->type != (ud ? WREN_QPT_UD : WREN_QPT_RD) ||
	    (qp->state != WREN_QPS_RTR && qp->state != WREN_QPS_RTS) ||
	    m->qkey != qp->qkey)
		return WREN_TP_BAD_DEST_QP;
	switch (m->opcode) {
	case WREN_WIRE_OP_SEND:
	case WREN_WIRE_OP_SEND_IMM:
		return weng_recv_begin(e, qp, peer, m, cookie);
	case WREN_WIRE_OP_READ_REQ:
		return weng_resp_begin(e, qp, peer, m, m->rlen,
				       WREN_MR_ACCESS_REMOTE_READ, cookie);
	default:
		return weng_resp_begin(e, qp, peer, m, m->len,
				       WREN_MR_ACCESS_REMOTE_WRITE, cookie);
	}
}

static int rx_write(void *ulp, uint64_t cookie, uint32_t off, const void *buf,
		    uint32_t len)
{
	struct weng *e = ulp;
	struct weng_resp *r;

	switch (WENG_COOKIE_KIND(cookie)) {
	case WENG_COOKIE_RESP:
		r = weng_resp_of_cookie(e, cookie);
		return r ? weng_write_place(e, r, off, buf, len) : -1;
	case WENG_COOKIE_READ:
		return weng_read_resp_write(e, cookie, off, buf, len);
	default:
		return weng_recv_write(e, cookie, off, buf, len);
	}
}

static void rx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct weng *e = ulp;
	struct weng_resp *r;

	switch (WENG_COOKIE_KIND(cookie)) {
	case WENG_COOKIE_RESP:
		r = weng_resp_of_cookie(e, cookie);
		if (r && r->opcode == WREN_WIRE_OP_READ_REQ)
			weng_read_req_arrived(e, r, st);
		else if (r)
			weng_write_done(e, r, st);
		return;
	case WENG_COOKIE_READ:
		weng_read_resp_done(e, cookie, st);
		return;
	default:
		weng_recv_done(e, cookie, st);
	}
}

const struct wren_tp_ulp_ops weng_ulp_ops = {
	.tx_read = tx_read,
	.tx_done = tx_done,
	.rx_begin = rx_begin,
	.rx_write = rx_write,
	.rx_done = rx_done,
};
