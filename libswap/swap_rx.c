// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Receiving: every arrival checked against what its sender may say
 * (sequence window, header, length, pool position), put in sequence
 * order, handed out, and once released returned to the sender through
 * our flow-control block: the receive buffer posted again first, then
 * the pool space, then the message count.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "swap_int.h"

/* What a delivered message's buffer is (swap_msg.priv[1]). */
enum { MSG_SLOT, MSG_ASSEMBLED, MSG_SPILLED };

static uint8_t *rbuf_addr(struct swap_ep *ep, uint32_t rbuf)
{
	return ep->rx_mem + (size_t)rbuf * ep->rstride;
}

int swap_rx_post(struct swap_ep *ep, struct swap_partner *p, uint32_t rbuf)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)rbuf_addr(ep, rbuf),
		.length = ep->rstride,
		.lkey = ep->rx_mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = wr_id_make(WR_RECV, (uint32_t)p->id, rbuf),
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return ibv_post_recv(ep->tp == SWAP_TRANSPORT_RD ? ep->qp : p->qp,
			     &wr, &bad);
}

/*
 * Put a receive buffer back.  RD: on the one QP, whoever used it.  RC:
 * on the QP of the partner it belongs to, unless that one is gone.
 */
static void rbuf_return(struct swap_ep *ep, uint32_t rbuf)
{
	struct swap_partner *owner = &ep->p[rbuf / ep->a.buf_count];
	int ret;

	if (ep->tp == SWAP_TRANSPORT_RC && owner->state != P_CONNECTED)
		return;
	ret = swap_rx_post(ep, owner, rbuf);
	if (ret && !ep->fatal)
		ep->fatal = ret > 0 ? ret : EIO;
}

static struct swap_slot *slot_of(struct swap_ep *ep, struct swap_partner *p,
				 uint32_t seq)
{
	return &p->slots[seq % ep->a.buf_count];
}

/* Give back, in order, what has been released: buffers, pool, count. */
static void release_front(struct swap_ep *ep, struct swap_partner *p)
{
	struct swap_slot *s;
	bool moved = false;

	while (p->rx_released != p->rx_check &&
	       (s = slot_of(ep, p, p->rx_released))->state == S_DONE) {
		rbuf_return(ep, s->rbuf);
		if (s->h.type == SWAP_MSG_WRITE) {
			p->rx_pool_released = s->pool_end;
			swap_fcb_set_pool(p->fcb, p->rx_pool_released);
		}
		s->state = S_EMPTY;
		p->rx_released++;
		moved = true;
	}
	if (moved)
		swap_fcb_set_released(p->fcb, p->rx_released);
	if ((int32_t)(p->rx_released - p->rx_deliver) > 0)
		p->rx_deliver = p->rx_released;
}

/* Check piece @s, next in order, and take it in: NULL or why not. */
static const char *take_piece(struct swap_ep *ep, struct swap_partner *p,
			      struct swap_slot *s)
{
	const struct swap_hdr *h = &s->h;
	const uint8_t both = SWAP_F_FIRST | SWAP_F_LAST;
	const char *why;
	uint8_t *data;

	if (h->type == SWAP_MSG_INLINE) {
		if (s->byte_len - SWAP_HDR_LEN != h->len)
			return "an INLINE length not the SEND's";
		if (h->len > ep->a.buf_size)
			return "an INLINE message larger than the buffer size";
		if (h->flags != both || h->pos || h->total != h->len)
			return "an INLINE message with WRITE fields";
		if (p->asm_buf)
			return "an INLINE message inside a WRITE-placed one";
		s->data = rbuf_addr(ep, s->rbuf) + SWAP_HDR_LEN;
		s->len = h->len;
		s->state = S_READY;
		return NULL;
	}
	if (h->type != SWAP_MSG_WRITE)
		return "a message of unknown type";
	if (s->byte_len != SWAP_HDR_LEN)
		return "a WRITE header with a payload";
	if (h->flags & ~both)
		return "unknown flags";
	why = swap_pool_check(p->rx_pos, ep->a.pool_size, p->rx_pool_released,
			      h->pos, h->len);
	if (why)
		return why;
	data = p->pool + h->pos % ep->a.pool_size;
	if (h->flags & SWAP_F_FIRST) {
		if (p->asm_buf)
			return "a new message inside another";
		if (h->total > ep->a.max_msg_size)
			return "a message larger than the largest taken";
		if (h->total < h->len ||
		    !(h->flags & SWAP_F_LAST) != (h->total > h->len))
			return "a first piece whose total does not add up";
		if (h->flags & SWAP_F_LAST) {
			s->data = data;
			s->len = h->len;
			s->state = S_READY;
		} else {
			p->asm_buf = malloc(h->total);
			if (!p->asm_buf)
				return "a message we have no memory for";
			memcpy(p->asm_buf, data, h->len);
			p->asm_total = h->total;
			p->asm_have = h->len;
			s->state = S_DONE;
		}
	} else {
		bool last = p->asm_have + h->len == p->asm_total;

		if (!p->asm_buf)
			return "a continuation outside a message";
		if (h->total != p->asm_total ||
		    h->len > p->asm_total - p->asm_have ||
		    last != !!(h->flags & SWAP_F_LAST))
			return "a continuation that does not add up";
		memcpy(p->asm_buf + p->asm_have, data, h->len);
		p->asm_have += h->len;
		if (last) {
			s->data = p->asm_buf;
			s->len = p->asm_total;
			s->assembled = true;
			s->state = S_READY;
			p->asm_buf = NULL;
		} else {
			s->state = S_DONE;
		}
	}
	s->pool_end = swap_pool_next(h->pos, h->len);
	p->rx_pos = s->pool_end;
	return NULL;
}

/* Take in, in sequence order, what has arrived. */
static void take_in_order(struct swap_ep *ep, struct swap_partner *p)
{
	struct swap_slot *s;
	const char *why;

	while ((s = slot_of(ep, p, p->rx_check))->state == S_ARRIVED) {
		why = s->h.seq != p->rx_check ?
		      "a sequence number out of place" : take_piece(ep, p, s);
		if (why) {
			swap_fail(ep, p, EPROTO, "message %u: %s", s->h.seq,
				  why);
			return;
		}
		p->rx_check++;
	}
	release_front(ep, p);
}

/* Which partner sent @wc: NULL if none we may blame. */
static struct swap_partner *sender_of(struct swap_ep *ep,
				      const struct ibv_wc *wc, uint32_t rbuf)
{
	struct swap_partner *p;

	if (ep->tp == SWAP_TRANSPORT_RC) {
		p = &ep->p[rbuf / ep->a.buf_count];
		return p->qp && p->qp->qp_num == wc->qp_num ? p : NULL;
	}
	/* RD: the immediate names it, the source QP must be its. */
	if (!(wc->wc_flags & IBV_WC_WITH_IMM))
		return NULL;
	p = swap_partner_get(ep, (int)be32toh(wc->imm_data));
	if (!p || p->state != P_CONNECTED || wc->src_qp != p->ra.qpn)
		return NULL;
	return p;
}

void swap_rx_arrived(struct swap_ep *ep, const struct ibv_wc *wc)
{
	uint32_t rbuf = WR_IDX(wc->wr_id), n = ep->a.buf_count;
	struct swap_partner *p;
	struct swap_slot *s;
	struct swap_hdr h;

	if (rbuf >= ep->a.max_partners * n)
		return;
	if (wc->status != IBV_WC_SUCCESS) {
		if (ep->tp == SWAP_TRANSPORT_RD) {
			if (wc->status == IBV_WC_WR_FLUSH_ERR)
				ep->fatal = EIO;	/* the QP failed */
			else
				rbuf_return(ep, rbuf);
			return;
		}
		p = &ep->p[rbuf / n];
		if (p->qp && p->qp->qp_num == wc->qp_num)
			swap_fail(ep, p, ECONNRESET, "a receive failed: %s",
				  ibv_wc_status_str(wc->status));
		return;
	}
	p = sender_of(ep, wc, rbuf);
	if (!p || p->state != P_CONNECTED) {
		rbuf_return(ep, rbuf);
		return;
	}
	if (wc->opcode != IBV_WC_RECV || !(wc->wc_flags & IBV_WC_WITH_IMM) ||
	    be32toh(wc->imm_data) != (uint32_t)p->id) {
		rbuf_return(ep, rbuf);
		swap_fail(ep, p, EPROTO, "an arrival that is no SWAP SEND");
		return;
	}
	if (wc->byte_len < SWAP_HDR_LEN ||
	    swap_hdr_get(rbuf_addr(ep, rbuf), &h)) {
		rbuf_return(ep, rbuf);
		swap_fail(ep, p, EPROTO, "a message without a SWAP header");
		return;
	}
	/* In [rx_check, rx_released + buf_count): what it may have out. */
	if ((uint32_t)(h.seq - p->rx_check) >=
	    n - (uint32_t)(p->rx_check - p->rx_released)) {
		rbuf_return(ep, rbuf);
		swap_fail(ep, p, EPROTO, "message %u outside its window "
			  "[%u, %u)", h.seq, p->rx_check, p->rx_released + n);
		return;
	}
	s = slot_of(ep, p, h.seq);
	if (s->state != S_EMPTY) {
		rbuf_return(ep, rbuf);
		swap_fail(ep, p, EPROTO, "message %u twice", h.seq);
		return;
	}
	memset(s, 0, sizeof(*s));
	s->state = S_ARRIVED;
	s->rbuf = rbuf;
	s->byte_len = wc->byte_len;
	s->h = h;
	p->heard_at = swap_now();
	take_in_order(ep, p);
}

static void spill_free(struct swap_partner *p)
{
	struct swap_spilled *sp;

	while ((sp = p->spill_head)) {
		p->spill_head = sp->next;
		if (sp->data != sp->copy)
			free(sp->data);
		free(sp);
	}
	p->spill_last = NULL;
	p->spill_bytes = 0;
	p->spill_count = 0;
}

/*
 * Copy @p's messages that are ready but not handed out into the heap, in
 * order, and release their slots and pool space: at most a pool and a
 * full set of buffers' worth at a time, so a partner cannot make us
 * spill without bound.
 */
static void spill_one(struct swap_ep *ep, struct swap_partner *p)
{
	uint64_t budget = ep->a.pool_size +
			  (uint64_t)ep->a.buf_count * ep->a.buf_size;
	struct swap_spilled *sp;
	struct swap_slot *s;

	while (p->rx_deliver != p->rx_check) {
		s = slot_of(ep, p, p->rx_deliver);
		if (s->state == S_DONE) {
			p->rx_deliver++;
			continue;
		}
		/* An assembled message moves as it is: it costs no more. */
		if (s->state != S_READY || (!s->assembled &&
		    (p->spill_bytes + s->len > budget ||
		     p->spill_count >= 4 * ep->a.buf_count)))
			break;
		sp = malloc(sizeof(*sp) + (s->assembled ? 0 : s->len));
		if (!sp)
			break;
		sp->next = NULL;
		sp->len = s->len;
		if (s->assembled) {
			sp->data = s->data;
		} else {
			sp->data = sp->copy;
			memcpy(sp->copy, s->data, s->len);
			p->spill_bytes += sp->len;
			p->spill_count++;
		}
		s->assembled = false;
		s->data = NULL;
		s->state = S_DONE;
		if (p->spill_last)
			p->spill_last->next = sp;
		else
			p->spill_head = sp;
		p->spill_last = sp;
		p->rx_deliver++;
	}
	release_front(ep, p);
}

void swap_rx_spill(struct swap_ep *ep)
{
	uint32_t i;

	for (i = 0; i < ep->a.max_partners; i++)
		if (ep->p[i].state == P_CONNECTED)
			spill_one(ep, &ep->p[i]);
}

void swap_rx_reset(struct swap_ep *ep, struct swap_partner *p)
{
	uint32_t i;

	spill_free(p);

	for (i = 0; p->slots && i < ep->a.buf_count; i++) {
		struct swap_slot *s = &p->slots[i];

		if (s->state == S_EMPTY || s->state == S_HELD)
			continue;
		if (s->assembled)
			free(s->data);
		rbuf_return(ep, s->rbuf);
		s->state = S_EMPTY;
	}
	free(p->asm_buf);
	p->asm_buf = NULL;
}

/* @p's next message for the application, past pieces taken in. */
static struct swap_slot *next_ready(struct swap_ep *ep, struct swap_partner *p)
{
	struct swap_slot *s;

	while (p->rx_deliver != p->rx_check) {
		s = slot_of(ep, p, p->rx_deliver);
		if (s->state == S_READY)
			return s;
		if (s->state != S_DONE)
			return NULL;
		p->rx_deliver++;
	}
	return NULL;
}

bool swap_rx_ready(struct swap_ep *ep, struct swap_partner *p)
{
	return p->state == P_CONNECTED && next_ready(ep, p);
}

SWAP_EXPORT
int swap_recv_nb(struct swap_ep *ep, struct swap_msg *msg)
{
	uint32_t k, max = ep->a.max_partners;
	int ret;

	ret = swap_poll(ep);
	if (ret < 0)
		return ret;
	for (k = 0; k < max; k++) {
		struct swap_partner *p = &ep->p[(ep->rr + k) % max];
		struct swap_slot *s;

		if (p->state == P_FAILED && !p->err_told) {
			p->err_told = true;
			msg->partner = p->id;
			msg->data = NULL;
			msg->len = 0;
			ep->rr = (uint32_t)p->id + 1;
			return -p->err;
		}
		if (p->state == P_CONNECTED && p->spill_head) {
			struct swap_spilled *sp = p->spill_head;

			p->spill_head = sp->next;
			if (!p->spill_head)
				p->spill_last = NULL;
			if (sp->data == sp->copy) {
				p->spill_bytes -= sp->len;
				p->spill_count--;
			}
			msg->partner = p->id;
			msg->data = sp->data;
			msg->len = sp->len;
			msg->priv[0] = (uintptr_t)sp;
			msg->priv[1] = MSG_SPILLED;
			ep->rr = (uint32_t)p->id + 1;
			ep->st.msgs_received++;
			ep->st.bytes_received += sp->len;
			return 0;
		}
		if (p->state != P_CONNECTED || !(s = next_ready(ep, p)))
			continue;
		s->state = S_HELD;
		msg->partner = p->id;
		msg->data = s->data;
		msg->len = s->len;
		msg->priv[0] = (uint64_t)p->gen << 32 | p->rx_deliver;
		msg->priv[1] = s->assembled ? MSG_ASSEMBLED : MSG_SLOT;
		p->rx_deliver++;
		ep->rr = (uint32_t)p->id + 1;
		ep->st.msgs_received++;
		ep->st.bytes_received += s->len;
		return 0;
	}
	return ep->fatal ? -ep->fatal : -EAGAIN;
}

SWAP_EXPORT
int swap_recv(struct swap_ep *ep, struct swap_msg *msg, int timeout_ms)
{
	uint64_t deadline = timeout_ms < 0 ? UINT64_MAX :
			    swap_now() + (uint64_t)timeout_ms * 1000000ULL;
	int ret;

	for (;;) {
		ret = swap_recv_nb(ep, msg);
		if (ret != -EAGAIN)
			return ret;
		if (swap_wait(ep, deadline) == -ETIMEDOUT)
			return swap_recv_nb(ep, msg);
	}
}

SWAP_EXPORT
void swap_msg_release(struct swap_ep *ep, struct swap_msg *msg)
{
	struct swap_partner *p;
	struct swap_slot *s;
	uint32_t gen = (uint32_t)(msg->priv[0] >> 32);

	if (!msg->data && !msg->len)
		return;
	if (msg->priv[1] == MSG_SPILLED) {
		struct swap_spilled *sp = (void *)(uintptr_t)msg->priv[0];

		if (sp->data != sp->copy)
			free(sp->data);
		free(sp);
		msg->data = NULL;
		return;
	}
	p = swap_partner_get(ep, msg->partner);
	if (!p || p->gen != gen) {
		/* Its partner was removed: only an assembled copy is left. */
		if (msg->priv[1] == MSG_ASSEMBLED)
			free(msg->data);
		msg->data = NULL;
		return;
	}
	s = slot_of(ep, p, (uint32_t)msg->priv[0]);
	if (s->state != S_HELD || s->data != msg->data)
		return;
	if (s->assembled)
		free(s->data);
	s->assembled = false;
	s->data = NULL;
	msg->data = NULL;
	if (p->state != P_CONNECTED) {
		rbuf_return(ep, s->rbuf);
		s->state = S_EMPTY;
		return;
	}
	s->state = S_DONE;
	release_front(ep, p);
}
