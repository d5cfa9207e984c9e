// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: RDMA WRITE and WRITE with immediate, at the responder.
 *
 * A WRITE or WRITE_IMM that arrives is checked whole against the target
 * QP and the memory key before its first byte is placed: QP number, type,
 * state and Q_Key (weng_ulp.c), then key, PD, remote write right and
 * bounds (weng_resp_begin()).  A refusal leaves memory and queues untouched and reaches the
 * requester as a remote access error.  Each byte is placed through the key
 * again, so a region deregistered meanwhile stops the write.  A WRITE_IMM
 * then completes on the QP's receive CQ: on an RC QP, as the verbs have
 * it, with the receive entry it consumed (taken on arrival, in the order
 * of its RSN among the SENDs, receiver-not-ready without one), in stream
 * order; on an RD QP without taking one.  The requester's side is an
 * ordinary send (weng_send.c).
 */
#include <string.h>

#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

int weng_write_place(struct weng *e, struct weng_resp *r, uint32_t off,
		     const void *buf, uint32_t len)
{
	struct weng_qp *qp = weng_resp_qp(e, r);

	if (!qp || r->failed ||
	    weng_mr_write(e, qp->pdn, r->rkey, r->raddr + off, buf, len,
			  WREN_MR_ACCESS_REMOTE_WRITE)) {
		r->failed = true;
		return -1;
	}
	return 0;
}

/*
 * A WRITE_IMM for RC QP @qp: its responder entry, then the receive it
 * will consume, refused as a SEND would be (receiver not ready...).
 */
enum wren_tp_status weng_write_imm_begin_rc(struct weng *e, struct weng_qp *qp,
					    const struct wren_tp_peer *peer,
					    const struct wren_tp_msg *m,
					    uint64_t *cookie)
{
	enum wren_tp_status st;
	struct weng_resp *r;
	uint64_t recv;

	st = weng_resp_begin(e, qp, peer, m, m->len,
			     WREN_MR_ACCESS_REMOTE_WRITE, cookie);
	if (st != WREN_TP_OK)
		return st;
	r = weng_resp_of_cookie(e, *cookie);
	st = weng_recv_begin(e, qp, peer, m, &recv);
	if (st != WREN_TP_OK) {
		weng_resp_free(e, r);
		return st;
	}
	r->recv_slot = WENG_COOKIE_SLOT(recv);
	return WREN_TP_OK;
}

/*
 * Executing a WRITE: a WRITE_IMM's completion; the entry is done.  False
 * if the QP must fail: its receive is not the next one.
 */
bool weng_write_execute(struct weng *e, struct weng_resp *r)
{
	struct weng_qp *qp = weng_resp_qp(e, r);
	bool ok = true;

	if (qp && r->recv_slot != WENG_RESP_NONE)
		ok = weng_recv_execute(e, qp, r->recv_slot);
	else if (r->opcode == WREN_WIRE_OP_WRITE_IMM && qp && !r->failed) {
		struct weng_completion c = {
			.qpn = weng_qpn(e, qp),
			.opcode = WREN_CQE_OP_RECV_RDMA_IMM,
			.flags = WREN_CQE_F_IMM |
				 (r->solicited ? WREN_CQE_F_SOLICITED : 0),
			.byte_len = r->len,
			.imm = r->imm,
			.src_qpn = r->peer_qpn,
			.src_ipv4 = r->peer_ipv4,
		};

		weng_cq_complete(e, qp->recv_cq, &c);
	}
	weng_resp_free(e, r);
	return ok;
}

/*
 * The WRITE is whole (or abandoned).  A datagram QP executes it now; an
 * RC QP once its stream reaches it, unless it failed.
 */
void weng_write_done(struct weng *e, struct weng_resp *r,
		     enum wren_tp_status st)
{
	struct weng_qp *qp = weng_resp_qp(e, r);
	bool ok = st == WREN_TP_OK && !r->failed;

	if (qp && qp->type == WREN_QPT_RC) {
		weng_rc_whole(qp, r->psn, ok);
		if (ok)
			return;
	} else if (ok) {
		weng_write_execute(e, r);
		return;
	}
	weng_resp_free(e, r);
}
