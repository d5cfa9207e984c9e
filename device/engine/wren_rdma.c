// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the responder's side of one-sided operations.
 *
 * A WRITE or WRITE_IMM that arrives is checked whole against the target
 * QP and the memory key before its first byte is placed: QP number,
 * type, state and Q_Key, then key, PD, remote write right and bounds.  A
 * refusal leaves memory and queues untouched and reaches the requester as
 * a remote access error.  A WRITE_IMM then completes on the QP's receive
 * CQ without taking a receive entry.
 *
 * A READ_REQ is checked likewise (remote read right) and answered with a
 * READ_RESP message of its own, from this adapter back to the requester's
 * address and QP as the request carried them: the responder needs no
 * address handle.  If the memory cannot be read after all, an empty
 * READ_RESP with WREN_WIRE_MSG_FAILED tells the requester.
 *
 * Each operation in progress holds a responder entry; the transport
 * callbacks name it by (index, generation), so an entry reused or reset
 * since makes a late callback harmless.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wren_internal.h"
#include "linux/wren/wren_wire.h"
#include "wren_tp.h"

struct wren_resp {
	bool in_use;
	bool failed;		/* a write refused, or the read failed */
	uint8_t opcode;		/* enum wren_wire_opcode */
	bool solicited;
	uint16_t gen;
	uint16_t qp_gen;
	uint32_t qp;		/* index in e->qps */
	uint32_t rkey;
	uint64_t raddr;
	uint32_t len;		/* bytes written, or to read */
	uint32_t imm;		/* WRITE_IMM's immediate, or the read's tag */
	uint32_t peer_qpn;
	uint32_t peer_ipv4;
	uint8_t peer_mac[6];
	uint32_t next;		/* free list, or the queue of answers */
};

#define RESP_NONE	UINT32_MAX

static uint64_t resp_cookie(const struct wren_engine *e,
			    const struct wren_resp *r)
{
	return WREN_COOKIE(WREN_COOKIE_RESP, r->gen, r - e->resps, 0);
}

static struct wren_resp *resp_of(struct wren_engine *e, uint64_t cookie)
{
	uint32_t i = WREN_COOKIE_INDEX(cookie);

	if (i >= e->resp_count || !e->resps[i].in_use ||
	    e->resps[i].gen != WREN_COOKIE_GEN(cookie))
		return NULL;
	return &e->resps[i];
}

/* The QP @r works for, or NULL if it is gone or no longer usable. */
static struct wren_qp *resp_qp(struct wren_engine *e, const struct wren_resp *r)
{
	struct wren_qp *qp = &e->qps[r->qp];

	if (!qp->in_use || qp->gen != r->qp_gen ||
	    (qp->state != WREN_QPS_RTR && qp->state != WREN_QPS_RTS))
		return NULL;
	return qp;
}

static void resp_free(struct wren_engine *e, struct wren_resp *r)
{
	r->in_use = false;
	r->gen++;
	r->next = e->resp_free;
	e->resp_free = r - e->resps;
}

int wren_rdma_init(struct wren_engine *e)
{
	/* One per message the transport can be receiving or sending. */
	e->resp_count = 4 * e->cfg.max_qp_depth;
	e->resps = calloc(e->resp_count, sizeof(*e->resps));
	if (!e->resps)
		return -1;
	wren_rdma_reset(e);
	return 0;
}

void wren_rdma_reset(struct wren_engine *e)
{
	e->resp_free = RESP_NONE;
	for (uint32_t i = e->resp_count; i--;) {
		if (e->resps[i].in_use) {
			resp_free(e, &e->resps[i]);
		} else {
			e->resps[i].next = e->resp_free;
			e->resp_free = i;
		}
	}
	e->resp_head = e->resp_tail = RESP_NONE;
}

void wren_rdma_fini(struct wren_engine *e)
{
	free(e->resps);
	e->resps = NULL;
	e->resp_count = 0;
}

/*
 * A WRITE, WRITE_IMM or READ_REQ from @peer for @qp: accept it with a
 * responder entry, or refuse it.  Nothing is written before this returns.
 */
enum wren_tp_status wren_rdma_rx_begin(struct wren_engine *e,
				       struct wren_qp *qp,
				       const struct wren_tp_peer *peer,
				       const struct wren_tp_msg *m,
				       uint64_t *cookie)
{
	bool read = m->opcode == WREN_WIRE_OP_READ_REQ;
	uint32_t len = read ? m->rlen : m->len;
	struct wren_resp *r;

	if (len > e->cfg.max_msg_size ||
	    wren_mr_walk(e, qp->pdn, m->rkey, m->raddr, len,
			 read ? WREN_MR_ACCESS_REMOTE_READ :
				WREN_MR_ACCESS_REMOTE_WRITE, NULL, NULL))
		return WREN_TP_REMOTE_ACCESS;
	if (e->resp_free == RESP_NONE)
		return WREN_TP_RNR;
	r = &e->resps[e->resp_free];
	e->resp_free = r->next;
	r->in_use = true;
	r->failed = false;
	r->opcode = m->opcode;
	r->solicited = m->flags & WREN_TP_MSG_SOLICITED;
	r->qp = qp - e->qps;
	r->qp_gen = qp->gen;
	r->rkey = m->rkey;
	r->raddr = m->raddr;
	r->len = len;
	r->imm = m->imm;
	r->peer_qpn = m->src_qpn;
	r->peer_ipv4 = peer->ipv4;
	memcpy(r->peer_mac, peer->mac, sizeof(r->peer_mac));
	r->next = RESP_NONE;
	*cookie = resp_cookie(e, r);
	return WREN_TP_OK;
}

int wren_rdma_rx_write(struct wren_engine *e, uint64_t cookie, uint32_t off,
		       const void *buf, uint32_t len)
{
	struct wren_resp *r = resp_of(e, cookie);
	struct wren_qp *qp = r ? resp_qp(e, r) : NULL;

	/* The key is checked again: the region may have gone meanwhile. */
	if (!qp || r->failed ||
	    wren_mr_write(e, qp->pdn, r->rkey, r->raddr + off, buf, len,
			  WREN_MR_ACCESS_REMOTE_WRITE)) {
		if (r)
			r->failed = true;
		return -1;
	}
	return 0;
}

/* Answer the reads whose requests are complete, as far as there is room. */
static void resp_send_queued(struct wren_engine *e)
{
	while (e->resp_head != RESP_NONE && e->tp) {
		struct wren_resp *r = &e->resps[e->resp_head];
		const struct wren_qp *qp = resp_qp(e, r);
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
			e->resp_head = r->next;
			resp_free(e, r);
			continue;
		}
		memcpy(d.mac, r->peer_mac, sizeof(d.mac));
		rc = wren_tp_send(e->tp, &d, &m, resp_cookie(e, r));
		if (rc == -ENOBUFS)
			return;		/* again from the next tx_done */
		e->resp_head = r->next;
		r->next = RESP_NONE;
		/* Refused outright: no tx_done will come to free it. */
		if (rc)
			resp_free(e, r);
	}
	if (e->resp_head == RESP_NONE)
		e->resp_tail = RESP_NONE;
}

static void resp_queue(struct wren_engine *e, struct wren_resp *r)
{
	uint32_t i = r - e->resps;

	r->next = RESP_NONE;
	if (e->resp_head == RESP_NONE)
		e->resp_head = i;
	else
		e->resps[e->resp_tail].next = i;
	e->resp_tail = i;
}

/*
 * The transport may not be called from rx_done: answers wait for the
 * engine's next step, wren_rdma_flush().
 */
void wren_rdma_rx_done(struct wren_engine *e, uint64_t cookie,
		       enum wren_tp_status st)
{
	struct wren_resp *r = resp_of(e, cookie);
	struct wren_qp *qp = r ? resp_qp(e, r) : NULL;
	struct wren_cqe cqe;

	if (!r)
		return;
	if (r->opcode == WREN_WIRE_OP_READ_REQ && st == WREN_TP_OK && qp) {
		resp_queue(e, r);
		return;
	}
	if (r->opcode == WREN_WIRE_OP_WRITE_IMM && st == WREN_TP_OK && qp &&
	    !r->failed) {
		memset(&cqe, 0, sizeof(cqe));
		cqe.opcode = WREN_CQE_OP_RECV_RDMA_IMM;
		cqe.flags = WREN_CQE_F_IMM |
			    (r->solicited ? WREN_CQE_F_SOLICITED : 0);
		cqe.qpn = wren_to_le32(r->qp + WREN_QPN_FIRST);
		cqe.byte_len = wren_to_le32(r->len);
		cqe.imm = htobe32(r->imm);
		cqe.src_qpn = wren_to_le32(r->peer_qpn);
		cqe.src_ipv4 = r->peer_ipv4;
		wren_cq_post(e, qp->recv_cq, &cqe);
	}
	resp_free(e, r);
}

/*
 * The engine's step after the transport's receive path, which may not
 * call the transport itself: answer the reads that came, and let send
 * queues that waited for a read to finish go on.
 */
void wren_rdma_flush(struct wren_engine *e)
{
	if (e->resp_head != RESP_NONE)
		resp_send_queued(e);
	wren_sq_resume(e);
}

int wren_rdma_tx_read(struct wren_engine *e, uint64_t cookie, uint32_t off,
		      void *buf, uint32_t len)
{
	struct wren_resp *r = resp_of(e, cookie);
	struct wren_qp *qp = r ? resp_qp(e, r) : NULL;

	if (!qp || wren_mr_read(e, qp->pdn, r->rkey, r->raddr + off, buf, len,
				WREN_MR_ACCESS_REMOTE_READ)) {
		if (r)
			r->failed = true;
		return -1;
	}
	return 0;
}

/* A READ_RESP is finished; one that could not be read says so once. */
void wren_rdma_tx_done(struct wren_engine *e, uint64_t cookie,
		       enum wren_tp_status st)
{
	struct wren_resp *r = resp_of(e, cookie);

	if (!r)
		return;
	if (st == WREN_TP_LOCAL_ERROR && r->len) {
		r->failed = true;
		r->len = 0;
		resp_queue(e, r);
		resp_send_queued(e);
		return;
	}
	resp_free(e, r);
	resp_send_queued(e);
}
