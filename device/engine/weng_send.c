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
 *
 * An RC QP sends to its one peer, on the context to the peer's adapter
 * that every QP to it shares, each message with its place in the QP's
 * stream (weng_rc.c), at most WENG_RC_WINDOW of them in flight.  One the
 * peer refused for want of a receive is sent again, same place, after the
 * QP's min_rnr_timer, up to rnr_retry times.
 *
 * The entries that register and invalidate a fast-register region
 * (REG_MR, LOCAL_INV) are the device's alone: they take effect as the
 * device takes them, in queue order, and complete in order with the rest
 * without ever reaching the wire.
 */
#include <errno.h>
#include <string.h>

#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

static void rnr_timer_expired(void *arg);

int weng_send_init(struct weng *e)
{
	return weng_alarm_init(e, &e->rnr_alarm, rnr_timer_expired);
}

void weng_send_fini(struct weng *e)
{
	weng_alarm_fini(e, &e->rnr_alarm);
}

void weng_send_reset(struct weng *e)
{
	weng_alarm_cancel(e, &e->rnr_alarm);
}

/* Operations on the peer's memory: they name an address and a key. */
static bool is_rdma(uint8_t wqe_opcode)
{
	return wqe_opcode == WREN_WQE_RDMA_WRITE ||
	       wqe_opcode == WREN_WQE_RDMA_WRITE_IMM ||
	       weng_wqe_is_read(wqe_opcode);
}

static bool is_atomic(uint8_t wqe_opcode)
{
	return wqe_opcode == WREN_WQE_ATOMIC_CMP_SWP ||
	       wqe_opcode == WREN_WQE_ATOMIC_FETCH_ADD;
}

/* Entries that act on a local fast-register region, never sent. */
static bool is_local(uint8_t wqe_opcode)
{
	return wqe_opcode == WREN_WQE_REG_MR ||
	       wqe_opcode == WREN_WQE_LOCAL_INV;
}

/* Which QP types may post @opcode at all. */
static bool sq_opcode_ok(const struct weng_qp *qp, uint8_t opcode)
{
	if (opcode < WREN_WQE_SEND || opcode > WREN_WQE_SEND_INV)
		return false;
	if (qp->type == WREN_QPT_RAW_ETH)
		return opcode == WREN_WQE_SEND;
	if (is_atomic(opcode) || is_local(opcode) ||
	    opcode == WREN_WQE_SEND_INV)
		return qp->type == WREN_QPT_RC;
	return !is_rdma(opcode) || qp->type != WREN_QPT_UD;
}

/*
 * Check a send entry; its payload length in @len (a read's or an
 * atomic's: the bytes that come back).  0, or the completion status it
 * fails with.
 */
static uint8_t sq_check(struct weng *e, const struct weng_qp *qp,
			struct wren_sq_wqe *w, uint32_t *len)
{
	uint8_t shift = qp->sq_entry_log - WENG_SQ_ENTRY_LOG0;
	const struct wren_sge *sge = wren_sq_wqe_sges(w);
	bool read = weng_wqe_is_read(w->opcode);
	bool rc = qp->type == WREN_QPT_RC, raw = qp->type == WREN_QPT_RAW_ETH;
	bool av = w->flags & WREN_WQE_F_AV;
	static const uint8_t zero[sizeof(w->av.rsvd)];
	/* REG_MR's address is the region's; the three name a key. */
	bool addr = is_rdma(w->opcode) || w->opcode == WREN_WQE_REG_MR;
	bool key = addr || w->opcode == WREN_WQE_LOCAL_INV ||
		   w->opcode == WREN_WQE_SEND_INV;
	uint64_t total = 0;

	if (!sq_opcode_ok(qp, w->opcode) ||
	    (!av && ((!addr && w->remote_addr) || (!key && w->rkey))) ||
	    (read && w->flags & WREN_WQE_F_INLINE) ||
	    w->flags & ~(WREN_WQE_F_SIGNALED | WREN_WQE_F_SOLICITED |
			 WREN_WQE_F_INLINE | WREN_WQE_F_AV) ||
	    (av && (qp->type != WREN_QPT_UD || w->ah ||
		    !weng_dest_ok(w->av.ipv4, w->av.mac) ||
		    memcmp(w->av.rsvd, zero, sizeof(w->av.rsvd)))) ||
	    w->rsvd0 || w->rsvd1 || w->rsvd2 || (!av && w->rsvd3) ||
	    wren_le32(w->remote_qpn) > WREN_WIRE_QPN_MASK)
		return WREN_CQE_LOC_QP_OP_ERR;
	/* An atomic: one 8-byte SGE, an aligned remote address. */
	if (is_atomic(w->opcode) &&
	    (w->num_sge != 1 || wren_le32(w->atomic.sge.length) != 8 ||
	     wren_le64(w->remote_addr) % 8))
		return WREN_CQE_LOC_QP_OP_ERR;
	/* No payload; REG_MR's region is in the SGEs' place. */
	if (is_local(w->opcode) &&
	    (w->num_sge || w->flags & WREN_WQE_F_INLINE || w->inline_len ||
	     (w->opcode == WREN_WQE_REG_MR && w->fast_reg.rsvd)))
		return WREN_CQE_LOC_QP_OP_ERR;
	/*
	 * An RC QP's destination is its peer; a datagram QP's, its own; a
	 * frame's, in the frame.
	 */
	if (rc || raw ? w->ah || w->remote_qpn || w->remote_qkey :
			!av && !weng_ah_get(e, wren_le32(w->ah), qp->pdn))
		return WREN_CQE_LOC_QP_OP_ERR;
	if (w->flags & WREN_WQE_F_INLINE) {
		if (w->num_sge ||
		    wren_le32(w->inline_len) > WREN_SQ_WQE_INLINE(shift))
			return WREN_CQE_LOC_QP_OP_ERR;
		total = wren_le32(w->inline_len);
	} else {
		if (w->num_sge > WREN_SQ_WQE_SGE(shift) || w->inline_len)
			return WREN_CQE_LOC_QP_OP_ERR;
		for (unsigned int i = 0; i < w->num_sge; i++) {
			const struct wren_sge *s = &sge[i];
			uint32_t n = wren_le32(s->length);

			total += n;
			/* What comes back lands in local memory. */
			if (weng_mr_walk(e, qp->pdn, wren_le32(s->lkey),
					 wren_le64(s->addr), n,
					 read ? WREN_MR_ACCESS_LOCAL_WRITE : 0,
					 NULL, NULL))
				return WREN_CQE_LOC_PROT_ERR;
		}
	}
	if (total > e->cfg.max_msg_size ||
	    (qp->type == WREN_QPT_UD && total > e->cfg.mtu) ||
	    (raw && (total < WREN_WIRE_ETH_LEN ||
		     total > WREN_ETH_FRAME_MAX(e->cfg.mtu))))
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
		[WREN_WQE_ATOMIC_CMP_SWP] = WREN_WIRE_OP_CMP_SWP,
		[WREN_WQE_ATOMIC_FETCH_ADD] = WREN_WIRE_OP_FETCH_ADD,
		[WREN_WQE_SEND_INV] = WREN_WIRE_OP_SEND_INV,
	};

	return map[wqe_opcode];
}

/* Where a datagram QP's entry goes: its address handle, or its own. */
static void dest_of_ah(const struct weng *e, const struct weng_qp *qp,
		       const struct wren_sq_wqe *w, struct wren_tp_dest *d,
		       struct wren_tp_msg *m)
{
	if (w->flags & WREN_WQE_F_AV) {
		memcpy(&d->ipv4, &w->av.ipv4, sizeof(d->ipv4));
		memcpy(d->mac, w->av.mac, sizeof(d->mac));
	} else {
		const struct weng_ah *ah = &e->ahs[wren_le32(w->ah)];

		d->ipv4 = ah->ipv4;
		memcpy(d->mac, ah->mac, sizeof(d->mac));
	}
	/* An ordered QP is an ordering domain of its own. */
	d->class_id = qp->flags & WREN_QP_FLAG_ORDERED ?
		      (uint32_t)(qp - e->qps) + 1 : 0;
	d->mode = qp->flags & WREN_QP_FLAG_HANDSHAKE ?
		  WREN_TP_MODE_HANDSHAKE : WREN_TP_MODE_OPTIMISTIC;
	m->dst_qpn = wren_le32(w->remote_qpn);
	m->qkey = wren_le32(w->remote_qkey);
	if (qp->flags & WREN_QP_FLAG_ORDERED)
		m->flags |= WREN_TP_MSG_ORDERED;
}

/*
 * ... and an RC QP's: its peer, on the class every QP to that adapter
 * shares, with the message's place in the stream.
 */
static void dest_of_peer(const struct weng_qp *qp, const struct weng_swqe *sw,
			 struct wren_tp_dest *d, struct wren_tp_msg *m)
{
	const struct weng_rc *rc = qp->rc;

	d->ipv4 = rc->dest_ipv4;
	memcpy(d->mac, rc->dest_mac, sizeof(d->mac));
	d->class_id = 0;
	d->mode = WREN_TP_MODE_OPTIMISTIC;
	m->dst_qpn = rc->dest_qpn;
	m->flags |= WREN_TP_MSG_CONNECTED;
	m->qkey = sw->psn;
	m->rsn = sw->rsn;	/* zero unless it takes a receive (rc_place()) */
}

static int sq_post(struct weng *e, struct weng_qp *qp, uint32_t slot)
{
	struct weng_swqe *sw = &qp->sq_shadow[slot];
	const struct wren_sq_wqe *w = weng_sq_entry(qp, slot);
	struct wren_tp_dest d = { 0 };
	struct wren_tp_msg m = {
		.len = sw->len,
		.opcode = wire_op(w->opcode),
		.flags = w->flags & WREN_WQE_F_SOLICITED ?
			 WREN_TP_MSG_SOLICITED : 0,
		.src_qpn = weng_qpn(e, qp),
		.imm = be32toh(w->imm),
	};
	uint64_t cookie = weng_qp_cookie(e, qp, slot);

	if (qp->rc)
		dest_of_peer(qp, sw, &d, &m);
	else
		dest_of_ah(e, qp, w, &d, &m);
	if (is_rdma(w->opcode)) {
		m.raddr = wren_le64(w->remote_addr);
		m.rkey = wren_le32(w->rkey);
	}
	/* A SEND_INV carries its key where a SEND_IMM has its data. */
	if (w->opcode == WREN_WQE_SEND_INV)
		m.imm = wren_le32(w->rkey);
	if (weng_wqe_is_read(w->opcode))
		weng_read_post(qp, slot, d.ipv4, &m);
	/* For QUERY_CTX: a datagram has no transport context. */
	qp->last_peer = d.ipv4;
	qp->last_class = qp->type == WREN_QPT_UD ? WENG_CLASS_NONE : d.class_id;
	return qp->type == WREN_QPT_UD ? wren_tp_send_ud(e->tp, &d, &m, cookie) :
					 wren_tp_send(e->tp, &d, &m, cookie);
}

/*
 * An RC entry taken from the ring gets the next place in the stream; the
 * stream moves on once the transport has taken it (@posted).
 */
static void rc_place(struct weng_qp *qp, uint32_t slot, bool posted)
{
	struct weng_swqe *sw = &qp->sq_shadow[slot];
	uint8_t opcode = weng_sq_entry(qp, slot)->opcode;
	struct weng_rc *rc = qp->rc;
	/* What consumes a receive at the peer, as the verbs have it. */
	bool send = opcode == WREN_WQE_SEND || opcode == WREN_WQE_SEND_IMM ||
		    opcode == WREN_WQE_SEND_INV ||
		    opcode == WREN_WQE_RDMA_WRITE_IMM;

	if (!posted) {
		sw->psn = rc->sq_psn;
		sw->rsn = send ? rc->sq_rsn : 0;
		return;
	}
	rc->sq_psn = (rc->sq_psn + 1) & WREN_QP_PSN_MASK;
	if (send)
		rc->sq_rsn++;
}

/*
 * The entry at sq_fetch is bad: it completes with @status after the
 * entries before it, and the QP goes to ERR, flushing the rest.
 */
void weng_sq_fail(struct weng *e, struct weng_qp *qp, uint8_t status)
{
	struct weng_swqe *sw;

	sw = &qp->sq_shadow[qp->sq_fetch & (weng_depth(qp->sq_log_depth) - 1)];
	sw->posted = true;
	sw->done = true;
	sw->status = status;
	qp->sq_fetch++;
	weng_qp_error(e, qp);
}

/*
 * Copy the send entry of @slot, at sq_fetch, and check it: 0, or the
 * status it fails with (weng_sq_fail()).
 */
uint8_t weng_sq_take(struct weng *e, struct weng_qp *qp, uint32_t slot)
{
	struct weng_swqe *sw = &qp->sq_shadow[slot];
	struct wren_sq_wqe *w = weng_sq_entry(qp, slot);
	uint64_t at = qp->sq_base + ((uint64_t)slot << qp->sq_entry_log);
	uint8_t status;

	memset(sw, 0, sizeof(*sw));
	if (weng_dma_read(e, at, w, 1U << qp->sq_entry_log))
		return WREN_CQE_LOC_DMA_ERR;
	status = sq_check(e, qp, w, &sw->len);
	if (status)
		weng_warn(e, WENG_WRN_BAD_WQE, weng_qpn(e, qp),
			  (uint64_t)slot << 8 | status);
	return status;
}

/*
 * Carry out a REG_MR or LOCAL_INV entry, taken and checked: 0, or the
 * status it fails with.
 */
static uint8_t sq_local(struct weng *e, const struct weng_qp *qp,
			const struct wren_sq_wqe *w)
{
	uint32_t key = wren_le32(w->rkey);

	if (w->opcode == WREN_WQE_LOCAL_INV)
		return weng_mr_invalidate(e, qp->pdn, key, false) ?
		       WREN_CQE_LOC_PROT_ERR : 0;
	return weng_mr_fast_reg(e, qp->pdn, key, wren_le64(w->remote_addr),
				wren_le64(w->fast_reg.length),
				wren_le32(w->fast_reg.npages),
				w->fast_reg.page_shift, w->fast_reg.access);
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
	/* Frames wait in their ring for the wire (weng_eth_tx_pull()). */
	if (qp->type == WREN_QPT_RAW_ETH) {
		if (qp->state == WREN_QPS_RTS && qp->sq_fetch != qp->sq_pi &&
		    e->tp)
			e->ops->host.tx_kick(e->opaque);
		return;
	}
	while (qp->sq_fetch != qp->sq_pi) {
		uint32_t slot = qp->sq_fetch & mask;
		struct weng_swqe *sw = &qp->sq_shadow[slot];
		struct wren_sq_wqe *w = weng_sq_entry(qp, slot);
		uint8_t status;
		int rc;

		if (qp->state != WREN_QPS_RTS || !e->tp)
			return;
		if ((uint16_t)(qp->sq_fetch - qp->sq_ci) >= WENG_SQ_WINDOW) {
			/* Resumed as the oldest in flight retire. */
			qp->sq_blocked = true;
			e->sq_waiting = true;
			return;
		}
		status = weng_sq_take(e, qp, slot);
		if (!status && is_local(w->opcode)) {
			status = sq_local(e, qp, w);
			if (status)
				weng_warn(e, WENG_WRN_BAD_WQE, weng_qpn(e, qp),
					  (uint64_t)slot << 8 | status);
		}
		if (status) {
			weng_sq_fail(e, qp, status);
			return;
		}
		if (is_local(w->opcode)) {
			/* Done already; it completes after those before it. */
			sw->posted = true;
			sw->done = true;
			qp->sq_fetch++;
			weng_sq_retire(e, qp);
			continue;
		}
		if (weng_wqe_is_read(w->opcode) &&
		    !weng_read_may_post(e, qp)) {
			/* Resumed when one of the QP's reads is done. */
			qp->sq_blocked = true;
			e->sq_waiting = true;
			return;
		}
		if (qp->rc)
			rc_place(qp, slot, false);
		rc = sq_post(e, qp, slot);
		if (rc == -ENOBUFS || rc == -EAGAIN) {
			/*
			 * Full, or full for this QP's peer: resumed when the
			 * transport finishes a message.
			 */
			qp->sq_blocked = true;
			e->sq_waiting = true;
			return;
		}
		if (rc) {
			weng_sq_fail(e, qp, WREN_CQE_LOC_QP_OP_ERR);
			return;
		}
		sw->posted = true;
		if (qp->rc)
			rc_place(qp, slot, true);
		if (weng_wqe_is_read(w->opcode))
			qp->reads_out++;
		qp->sq_fetch++;
	}
}

/*
 * Send queues held back (the transport was full, a full window, or too
 * many reads) try again, in turn: the one after the last resumed goes
 * first, so that no QP's place in the table puts it behind the others
 * each time the transport has room for only some of them.  Not from
 * inside a transport callback other than tx_done.
 */
void weng_sq_resume(struct weng *e)
{
	uint32_t n = e->cfg.max_qp, first = e->sq_turn;

	if (!e->sq_waiting)
		return;
	e->sq_waiting = false;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t i = (first + k) % n;

		if (e->qps[i].in_use && e->qps[i].sq_blocked) {
			weng_sq_kick(e, &e->qps[i]);
			e->sq_turn = (i + 1) % n;
		}
	}
}

/* The transport builds a packet: @len payload bytes of a send, from @off. */
int weng_send_tx_read(struct weng *e, uint64_t cookie, uint32_t off,
		      void *buf, uint32_t len)
{
	uint32_t slot;
	struct weng_qp *qp = weng_qp_of_cookie(e, cookie, &slot);
	struct wren_sq_wqe *w;

	if (!qp)
		return -1;
	w = weng_sq_entry(qp, slot);
	if (is_atomic(w->opcode)) {
		uint8_t ops[WREN_WIRE_ATOMIC_LEN];

		/* Its payload: the operands, big-endian (wren_wire.h). */
		if (off > sizeof(ops) || len > sizeof(ops) - off)
			return -1;
		wren_wire_put64(ops, wren_le64(w->atomic.compare_add));
		wren_wire_put64(ops + 8, w->opcode == WREN_WQE_ATOMIC_CMP_SWP ?
					 wren_le64(w->atomic.swap) : 0);
		memcpy(buf, ops + off, len);
		return 0;
	}
	if (w->flags & WREN_WQE_F_INLINE) {
		memcpy(buf, wren_sq_wqe_inline(w) + off, len);
		return 0;
	}
	return weng_sgl_copy(e, qp->pdn, wren_sq_wqe_sges(w), w->num_sge, off,
			     buf, len, false);
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

/*
 * The verbs' min_rnr_timer, in units of 10 us (IBA table 45): 0 is the
 * longest, 655.36 ms.
 */
static const uint16_t rnr_delay_10us[32] = {
	65535, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256,
	384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192, 12288,
	16384, 24576, 32768, 49152,
};

/*
 * The peer of RC QP @qp had no receive for @sw: true if it is to be sent
 * again, after the QP's min_rnr_timer, rather than fail.
 */
static bool rnr_wait(struct weng *e, struct weng_qp *qp, struct weng_swqe *sw)
{
	struct weng_rc *rc = qp->rc;

	if (rc->rnr_retry != WREN_QP_RNR_RETRY_FOREVER &&
	    sw->rnr_count >= rc->rnr_retry)
		return false;
	if (sw->rnr_count < UINT8_MAX)
		sw->rnr_count++;
	sw->rnr_wait = true;
	sw->resend_at = weng_now(e) + rnr_delay_10us[rc->min_rnr_timer & 31] *
				      10000ULL * e->cfg.time_scale;
	rc->rnr_waiting++;
	WENG_COUNT_QP(e, weng_qpn(e, qp), rnr_waits);
	weng_alarm_arm(e, &e->rnr_alarm, sw->resend_at);
	return true;
}

/*
 * Send again those of @qp's entries whose RNR wait is over; the earliest
 * still waiting in @next.
 */
static void rnr_resend(struct weng *e, struct weng_qp *qp, uint64_t now,
		       uint64_t *next)
{
	uint32_t mask = weng_depth(qp->sq_log_depth) - 1;

	for (uint16_t k = qp->sq_ci; k != qp->sq_fetch; k++) {
		struct weng_swqe *sw = &qp->sq_shadow[k & mask];
		int rc;

		if (!sw->rnr_wait)
			continue;
		if (sw->resend_at > now) {
			*next = weng_min64(*next, sw->resend_at);
			continue;
		}
		rc = sq_post(e, qp, k & mask);
		if (rc == -ENOBUFS || rc == -EAGAIN) {
			/* The transport is full: soon again. */
			*next = weng_min64(*next, now + 10000);
			return;
		}
		sw->rnr_wait = false;
		qp->rc->rnr_waiting--;
		if (rc) {
			sw->status = WREN_CQE_LOC_QP_OP_ERR;
			sw->done = true;
		}
	}
	weng_sq_retire(e, qp);
}

static void rnr_timer_expired(void *arg)
{
	struct weng *e = arg;
	uint64_t now = weng_now(e), next = UINT64_MAX;

	e->rnr_alarm.at = 0;
	for (uint32_t i = 0; i < e->cfg.max_qp && e->tp; i++) {
		struct weng_qp *qp = &e->qps[i];

		if (qp->in_use && qp->rc && qp->rc->rnr_waiting &&
		    (qp->state == WREN_QPS_RTS || qp->state == WREN_QPS_SQD))
			rnr_resend(e, qp, now, &next);
	}
	if (next != UINT64_MAX)
		weng_alarm_arm(e, &e->rnr_alarm, next);
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
	if (st == WREN_TP_RNR && qp->rc && rnr_wait(e, qp, sw))
		return;
	sw->status = cqe_status(st);
	if (weng_wqe_is_read(weng_sq_entry(qp, slot)->opcode)) {
		weng_read_req_done(e, qp, sw, st);
	} else {
		sw->done = true;
		weng_sq_retire(e, qp);
	}
}
