// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the stream of an RC QP.
 *
 * An RC QP's messages travel on the transport context to the peer adapter,
 * which every other QP to that adapter shares, and so arrive, are placed
 * and become whole in any order.  Each carries its place in the QP's
 * stream (its PSN, counted from the requester's sq_psn) and a SEND its
 * place among the SENDs (its RSN), which names the receive entry it takes.
 *
 * The responder admits a message from the QP's peer whose PSN lies within
 * WENG_RC_WINDOW of the next one to execute and which it has not taken
 * yet; the operation places it at once; and the QP executes its messages
 * in PSN order: a receive or a WRITE_IMM completes, a READ is answered,
 * only once every earlier message of the stream has been.  A message
 * refused for want of a receive is not taken and comes again; one refused
 * for any other reason takes its place, and executing it moves the QP to
 * ERR.  The requester keeps at most WENG_RC_WINDOW messages in flight, so
 * a well-behaved peer never meets the window's edge.
 *
 * Nothing here waits for the context: a loss on one QP's message holds
 * back that QP's later executions only, never another QP's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

int weng_rc_alloc(struct weng_qp *qp)
{
	qp->rc = calloc(1, sizeof(*qp->rc));
	return qp->rc ? 0 : -ENOMEM;
}

/* How far @psn is past the next message to execute. */
static uint32_t rc_offset(const struct weng_rc *rc, uint32_t psn)
{
	return (psn - rc->rq_psn) & WREN_QP_PSN_MASK;
}

/*
 * Forget the responder's window, freeing the responder entries it holds;
 * with @attrs the peer and both PSNs too (RESET).
 */
void weng_rc_clear(struct weng *e, struct weng_qp *qp, bool attrs)
{
	struct weng_rc *rc = qp->rc;

	for (uint32_t i = 0; i < WENG_RC_WINDOW; i++) {
		uint32_t what = rc->rx_what[(rc->rq_psn + i) % WENG_RC_WINDOW];

		if (rc->rx_taken & 1ULL << i &&
		    WENG_RC_KIND(what) == WENG_RC_RESP &&
		    WENG_RC_INDEX(what) < e->resp_count &&
		    e->resps[WENG_RC_INDEX(what)].in_use)
			weng_resp_free(e, &e->resps[WENG_RC_INDEX(what)]);
	}
	rc->rx_taken = rc->rx_whole = 0;
	rc->rnr_waiting = 0;
	if (attrs)
		memset(rc, 0, sizeof(*rc));
}

/*
 * May message @m from @peer enter @qp's stream?  WREN_TP_OK, or the
 * status the peer sees.
 */
enum wren_tp_status weng_rc_admit(const struct weng_qp *qp,
				  const struct wren_tp_peer *peer,
				  const struct wren_tp_msg *m)
{
	const struct weng_rc *rc = qp->rc;
	uint32_t off;

	if (!(m->flags & WREN_TP_MSG_CONNECTED) ||
	    m->src_qpn != rc->dest_qpn || peer->ipv4 != rc->dest_ipv4 ||
	    m->qkey > WREN_QP_PSN_MASK)
		return WREN_TP_BAD_DEST_QP;
	off = rc_offset(rc, m->qkey);
	/* Beyond the window, or taken already: the peer is not well. */
	if (off >= WENG_RC_WINDOW || rc->rx_taken & 1ULL << off)
		return WREN_TP_REMOTE_OP_ERROR;
	return WREN_TP_OK;
}

/* Message @psn, admitted, is taken: executing it will mean @what. */
void weng_rc_take(struct weng_qp *qp, uint32_t psn, uint32_t what)
{
	struct weng_rc *rc = qp->rc;

	rc->rx_taken |= 1ULL << rc_offset(rc, psn);
	rc->rx_what[psn % WENG_RC_WINDOW] = what;
}

/*
 * Message @psn is whole; if not @ok (abandoned, or placed only in part),
 * executing it fails the QP.
 */
void weng_rc_whole(struct weng_qp *qp, uint32_t psn, bool ok)
{
	struct weng_rc *rc = qp->rc;
	uint32_t off = rc_offset(rc, psn);

	if (off >= WENG_RC_WINDOW || !(rc->rx_taken & 1ULL << off))
		return;
	rc->rx_whole |= 1ULL << off;
	if (!ok)
		rc->rx_what[psn % WENG_RC_WINDOW] =
			WENG_RC_WHAT(WENG_RC_FAIL, WREN_TP_REMOTE_OP_ERROR);
}

/*
 * The next message to execute, if it is whole: what it means in @what;
 * the stream moves past it.
 */
bool weng_rc_next(struct weng_qp *qp, uint32_t *what)
{
	struct weng_rc *rc = qp->rc;

	if (!(rc->rx_whole & 1))
		return false;
	*what = rc->rx_what[rc->rq_psn % WENG_RC_WINDOW];
	rc->rx_taken >>= 1;
	rc->rx_whole >>= 1;
	rc->rq_psn = (rc->rq_psn + 1) & WREN_QP_PSN_MASK;
	return true;
}
