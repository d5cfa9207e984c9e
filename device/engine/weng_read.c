// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: RDMA READ, both sides.
 *
 * The requester posts a READ_REQ from its send queue (weng_send.c calls
 * weng_read_post()) naming the read by a tag: the QP's generation and the
 * send slot.  At most max_rd_atom of a QP's reads are in flight; later
 * entries wait.  The read is done once both its request is delivered and
 * its response has arrived, in either order; a response that brings no
 * byte for read_timeout_ns after the request was delivered fails the
 * read as REMOTE_UNRESPONSIVE.
 *
 * The responder checks a READ_REQ whole against the target QP and the
 * memory key (remote read right, bounds) before it accepts it with a
 * responder entry, and once the request is complete answers with a
 * READ_RESP message of its own, from this adapter back to the requester's
 * address and QP as the request carried them: the responder needs no
 * address handle.  If the memory cannot be read after all, an empty
 * READ_RESP with WREN_TP_MSG_FAILED tells the requester.
 *
 * The requester accepts a response only for a read in flight, by its tag,
 * from the QP and address the read was sent to.
 */
#include <errno.h>
#include <string.h>

#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

static void read_timer_expired(void *arg);

int weng_read_init(struct weng *e)
{
	return weng_alarm_init(e, &e->read_alarm, read_timer_expired);
}

void weng_read_fini(struct weng *e)
{
	weng_alarm_fini(e, &e->read_alarm);
}

void weng_read_reset(struct weng *e)
{
	weng_alarm_cancel(e, &e->read_alarm);
	e->resp_head = e->resp_tail = WENG_RESP_NONE;
}

/* ------------------------------------------------------------------ */
/* The requester                                                        */
/* ------------------------------------------------------------------ */

/* May @qp post another read now, or must it wait for one to finish? */
bool weng_read_may_post(const struct weng *e, const struct weng_qp *qp)
{
	return qp->reads_out < e->cfg.max_rd_atom;
}

/* The READ_REQ of send slot @slot, to @dst_ipv4: what @m carries. */
void weng_read_post(struct weng_qp *qp, uint32_t slot, uint32_t dst_ipv4,
		    struct wren_tp_msg *m)
{
	struct weng_swqe *sw = &qp->sq_shadow[slot];

	/*
	 * The response names the read by this tag, which an RC read sent
	 * again after an RNR keeps.
	 */
	if (!sw->rnr_count)
		sw->tag = (uint32_t)qp->gen << 16 | qp->sq_fetch;
	sw->dst_ipv4 = dst_ipv4;
	sw->dst_qpn = m->dst_qpn;
	/* An atomic's payload is its operands (weng_send_tx_read()). */
	m->len = weng_sq_entry(qp, slot)->opcode == WREN_WQE_RDMA_READ ?
		 0 : WREN_WIRE_ATOMIC_LEN;
	m->imm = sw->tag;
	m->rlen = sw->len;
}

/* A read is done once its request and its response both are. */
static void read_settle(struct weng *e, struct weng_qp *qp,
			struct weng_swqe *sw)
{
	if (!sw->req_done || (!sw->resp_done && sw->status == WREN_CQE_SUCCESS))
		return;
	sw->done = true;
	qp->reads_out--;
	if (sw->status == WREN_CQE_SUCCESS)
		sw->status = sw->resp_status;
	weng_sq_retire(e, qp);
}

/* The request of @sw is finished (its status in @sw->status). */
void weng_read_req_done(struct weng *e, struct weng_qp *qp,
			struct weng_swqe *sw, enum wren_tp_status st)
{
	/* Delivered: now the response must come, or the timer. */
	sw->req_done = true;
	if (!sw->resp_done && st == WREN_TP_OK) {
		sw->deadline = weng_now(e) + e->read_timeout_ns;
		weng_alarm_arm(e, &e->read_alarm, sw->deadline);
	}
	read_settle(e, qp, sw);
}

/*
 * Reads whose request arrived but whose response has not come for
 * read_timeout_ns: the responder gave up or went away.
 */
static void read_timer_expired(void *arg)
{
	struct weng *e = arg;
	uint64_t now = weng_now(e), next = UINT64_MAX;

	e->read_alarm.at = 0;
	for (uint32_t i = 0; i < e->cfg.max_qp; i++) {
		struct weng_qp *qp = &e->qps[i];
		uint32_t mask = weng_depth(qp->sq_log_depth) - 1;

		if (!qp->in_use || qp->type == WREN_QPT_UD)
			continue;
		for (uint16_t k = qp->sq_ci; k != qp->sq_fetch; k++) {
			struct weng_swqe *sw = &qp->sq_shadow[k & mask];

			if (!weng_wqe_is_read(weng_sq_entry(qp, k & mask)->opcode) ||
			    sw->done ||
			    !sw->req_done || sw->resp_done)
				continue;
			if (sw->deadline > now) {
				next = weng_min64(next, sw->deadline);
				continue;
			}
			sw->done = true;
			sw->status = WREN_CQE_REMOTE_UNRESPONSIVE;
			qp->reads_out--;
		}
		weng_sq_retire(e, qp);
	}
	if (next != UINT64_MAX)
		weng_alarm_arm(e, &e->read_alarm, next);
	weng_sq_resume(e);
}

/*
 * The response to one of this adapter's reads: it must name a read in
 * flight by its tag and come from the QP and address that read asked.
 */
enum wren_tp_status weng_read_resp_begin(struct weng *e,
					 const struct wren_tp_peer *peer,
					 const struct wren_tp_msg *m,
					 uint64_t *cookie)
{
	uint32_t i = m->dst_qpn - WREN_QPN_FIRST, slot;
	struct weng_qp *qp;
	struct weng_swqe *sw;

	if (m->dst_qpn < WREN_QPN_FIRST || i >= e->cfg.max_qp)
		return WREN_TP_BAD_DEST_QP;
	qp = &e->qps[i];
	if (!qp->in_use || qp->type == WREN_QPT_UD ||
	    (uint16_t)(m->imm >> 16) != qp->gen)
		return WREN_TP_BAD_DEST_QP;
	slot = m->imm & (weng_depth(qp->sq_log_depth) - 1);
	sw = &qp->sq_shadow[slot];
	if (!sw->posted || sw->done || sw->resp_done ||
	    !weng_wqe_is_read(weng_sq_entry(qp, slot)->opcode) ||
	    sw->tag != m->imm ||
	    sw->dst_ipv4 != peer->ipv4 || m->src_qpn != sw->dst_qpn ||
	    m->len != (m->flags & WREN_TP_MSG_FAILED ? 0 : sw->len))
		return WREN_TP_BAD_DEST_QP;
	sw->resp_failed = false;
	sw->resp_status = m->flags & WREN_TP_MSG_FAILED ?
			  WREN_CQE_REMOTE_OP_ERR : WREN_CQE_SUCCESS;
	*cookie = WENG_COOKIE(WENG_COOKIE_READ, qp->gen, i, slot);
	return WREN_TP_OK;
}

int weng_read_resp_write(struct weng *e, uint64_t cookie, uint32_t off,
			 const void *buf, uint32_t len)
{
	uint32_t slot;
	struct weng_qp *qp = weng_qp_of_cookie(e, cookie, &slot);
	struct weng_swqe *sw;
	struct wren_sq_wqe *w;

	if (!qp)
		return -1;
	sw = &qp->sq_shadow[slot];
	w = weng_sq_entry(qp, slot);
	/* Progress: the responder is alive. */
	sw->deadline = weng_now(e) + e->read_timeout_ns;
	if (w->opcode != WREN_WQE_RDMA_READ) {
		__le64 old;

		/* An atomic's old value: big-endian, whole, in one packet. */
		if (off || len != sizeof(old)) {
			sw->resp_failed = true;
			return -1;
		}
		old = wren_to_le64(wren_wire_get64(buf));
		buf = &old;
		if (!sw->resp_failed &&
		    weng_sgl_copy(e, qp->pdn, &w->atomic.sge, 1, 0,
				  (uint8_t *)buf, len, true))
			sw->resp_failed = true;
		return sw->resp_failed ? -1 : 0;
	}
	if (!sw->resp_failed &&
	    weng_sgl_copy(e, qp->pdn, wren_sq_wqe_sges(w), w->num_sge, off,
			  (uint8_t *)buf, len, true))
		sw->resp_failed = true;
	return sw->resp_failed ? -1 : 0;
}

void weng_read_resp_done(struct weng *e, uint64_t cookie,
			 enum wren_tp_status st)
{
	uint32_t slot;
	struct weng_qp *qp = weng_qp_of_cookie(e, cookie, &slot);
	struct weng_swqe *sw;

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

/* ------------------------------------------------------------------ */
/* The responder                                                        */
/* ------------------------------------------------------------------ */

static void answer_queue(struct weng *e, struct weng_resp *r)
{
	uint32_t i = r - e->resps;

	r->next = WENG_RESP_NONE;
	if (e->resp_head == WENG_RESP_NONE)
		e->resp_head = i;
	else
		e->resps[e->resp_tail].next = i;
	e->resp_tail = i;
}

/*
 * Answer the reads whose requests are complete, in order, as far as there
 * is room; an answer whose peer holds its share of the transport waits
 * (and so do the later ones to that peer) while those to others go on.
 */
static void answers_send(struct weng *e)
{
	uint32_t *link = &e->resp_head, kept = WENG_RESP_NONE;

	while (*link != WENG_RESP_NONE && e->tp) {
		uint32_t i = *link;
		struct weng_resp *r = &e->resps[i];
		const struct weng_qp *qp = weng_resp_qp(e, r);
		struct wren_tp_dest d = { .ipv4 = r->peer_ipv4 };
		struct wren_tp_msg m = {
			.len = r->failed ? 0 : r->len,
			.opcode = WREN_WIRE_OP_READ_RESP,
			.flags = r->failed ? WREN_TP_MSG_FAILED : 0,
			.dst_qpn = r->peer_qpn,
			.src_qpn = r->qp + WREN_QPN_FIRST,
			.imm = r->imm,
		};
		int rc;

		if (!qp) {
			/* The QP went away: the requester's timer will tell. */
			*link = r->next;
			weng_resp_free(e, r);
			continue;
		}
		memcpy(d.mac, r->peer_mac, sizeof(d.mac));
		rc = wren_tp_send(e->tp, &d, &m, weng_resp_cookie(e, r));
		if (rc == -ENOBUFS)
			return;		/* again from the next tx_done */
		if (rc == -EAGAIN) {
			kept = i;
			link = &r->next;
			continue;
		}
		*link = r->next;
		r->next = WENG_RESP_NONE;
		/* Refused outright: no tx_done will come to free it. */
		if (rc)
			weng_resp_free(e, r);
	}
	/* Walked to the end: the last answer kept is the tail. */
	e->resp_tail = kept;
}

/*
 * The READ_REQ of @r is complete (or abandoned).  A datagram QP answers
 * it now, an RC QP once its stream reaches it (weng_read_execute()).  The
 * transport may not be called from here (rx_done): the answer waits for
 * weng_read_flush().
 */
void weng_read_req_arrived(struct weng *e, struct weng_resp *r,
			   enum wren_tp_status st)
{
	struct weng_qp *qp = weng_resp_qp(e, r);
	bool ok = st == WREN_TP_OK && qp;

	if (qp && qp->type == WREN_QPT_RC) {
		weng_rc_whole(qp, r->psn, ok);
		if (ok)
			return;
	} else if (ok) {
		answer_queue(e, r);
		return;
	}
	weng_resp_free(e, r);
}

/* An RC QP's stream reached the READ_REQ of @r: answer it. */
void weng_read_execute(struct weng *e, struct weng_resp *r)
{
	answer_queue(e, r);
}

/* The transport builds a packet of an answer: read the memory asked for. */
int weng_read_answer_tx_read(struct weng *e, uint64_t cookie, uint32_t off,
			     void *buf, uint32_t len)
{
	struct weng_resp *r = weng_resp_of_cookie(e, cookie);
	struct weng_qp *qp = r ? weng_resp_qp(e, r) : NULL;

	/* An atomic answers with the old value it kept. */
	if (qp && r->opcode != WREN_WIRE_OP_READ_REQ) {
		if (off > WREN_WIRE_ATOMIC_RESP_LEN ||
		    len > WREN_WIRE_ATOMIC_RESP_LEN - off)
			return -1;
		memcpy(buf, r->atomic + off, len);
		return 0;
	}
	if (!qp || weng_mr_read(e, qp->pdn, r->rkey, r->raddr + off, buf, len,
				WREN_MR_ACCESS_REMOTE_READ)) {
		if (r)
			r->failed = true;
		return -1;
	}
	return 0;
}

/* An answer is finished; one that could not be read says so once. */
void weng_read_answer_tx_done(struct weng *e, uint64_t cookie,
			      enum wren_tp_status st)
{
	struct weng_resp *r = weng_resp_of_cookie(e, cookie);

	if (!r)
		return;
	if (st == WREN_TP_LOCAL_ERROR && r->len) {
		r->failed = true;
		r->len = 0;
		answer_queue(e, r);
		answers_send(e);
		return;
	}
	weng_resp_free(e, r);
	answers_send(e);
}

/*
 * The engine's step after the transport's receive path, which may not
 * call the transport itself: answer the reads that came, and let send
 * queues that waited for a read to finish go on.
 */
void weng_read_flush(struct weng *e)
{
	if (e->resp_head != WENG_RESP_NONE)
		answers_send(e);
	weng_sq_resume(e);
}
