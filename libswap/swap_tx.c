// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Sending: room from the partner's flow-control block (read with one
 * RDMA READ at a time), INLINE messages in a SEND, larger ones placed
 * with RDMA WRITE into the partner's pool piece by piece, each piece
 * announced by a SEND: on RD once its WRITE has completed, on RC right
 * behind it; and what the send completions say about the partner.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <time.h>

#include "swap_int.h"

/* Longest wait between READs of a block that showed no new room. */
#define BACKOFF_MAX_US	1000

static int post_begin(struct swap_partner *p, uint64_t wr_id)
{
	ibv_wr_start(p->qpx);
	p->qpx->wr_id = wr_id;
	p->qpx->wr_flags = IBV_SEND_SIGNALED;
	return 0;
}

static void post_addr(struct swap_ep *ep, struct swap_partner *p)
{
	if (ep->tp == SWAP_TRANSPORT_RD)
		ibv_wr_set_ud_addr(p->qpx, p->ah, p->ra.qpn, SWAP_QKEY_VALUE);
}

void swap_read_post(struct swap_ep *ep, struct swap_partner *p)
{
	uint8_t *dst = ep->shadow + (size_t)p->id * SWAP_FCB_LEN;
	int ret;

	/* The protocol's rule: one READ of a partner's block at a time. */
	if (p->read_busy || p->state != P_CONNECTED)
		return;
	memset(dst, 0, SWAP_FCB_LEN);
	post_begin(p, wr_id_make(WR_READ, (uint32_t)p->id, p->gen));
	ibv_wr_rdma_read(p->qpx, p->ra.fcb_rkey, p->ra.fcb_addr);
	post_addr(ep, p);
	ibv_wr_set_sge(p->qpx, ep->shadow_mr->lkey, (uintptr_t)dst,
		       SWAP_FCB_LEN);
	ret = ibv_wr_complete(p->qpx);
	if (ret) {
		swap_fail(ep, p, ret > 0 ? ret : EIO,
			  "posting a READ of its block: %s", strerror(ret));
		return;
	}
	p->read_busy = true;
	p->read_wanted = false;
	ep->st.reads++;
}

/* A READ of @p's block came back: take what it says, if acceptable. */
static void read_done(struct swap_ep *ep, struct swap_partner *p)
{
	const uint8_t *src = ep->shadow + (size_t)p->id * SWAP_FCB_LEN;
	uint64_t now = swap_now();
	struct swap_fcb f;
	const char *why;
	bool more;

	if (swap_fcb_get(src, &f)) {
		swap_fail(ep, p, EPROTO, "its flow-control block is garbage");
		return;
	}
	if (f.closed) {
		swap_fail(ep, p, ECONNRESET, "it closed");
		return;
	}
	why = swap_fcb_check(&f, p->tx_released, p->tx_seq,
			     p->tx_pool_released, p->tx_pos);
	if (why) {
		swap_fail(ep, p, EPROTO, "its flow-control block %s", why);
		return;
	}
	more = f.released != p->tx_released ||
	       f.pool_released != p->tx_pool_released;
	p->tx_released = f.released;
	p->tx_pool_released = f.pool_released;
	if (more) {
		p->backoff_us = 0;
	} else {
		p->backoff_us = p->backoff_us ? p->backoff_us * 2 : 1;
		if (p->backoff_us > BACKOFF_MAX_US)
			p->backoff_us = BACKOFF_MAX_US;
	}
	p->read_at = now + p->backoff_us * 1000ULL;
	p->heard_at = now;
}

static void slot_put(struct swap_ep *ep, uint32_t idx)
{
	/* Once only: swap_tx_drain() may have taken it back already. */
	if (idx < ep->a.send_depth && ep->txs[idx].busy &&
	    ep->ntx_free < ep->a.send_depth) {
		ep->txs[idx].busy = false;
		ep->tx_free[ep->ntx_free++] = idx;
	}
}

static int usable(struct swap_ep *ep, struct swap_partner *p);

/* Free the staging ring's completed pieces, oldest first. */
static void stage_reap(struct swap_ep *ep)
{
	while (ep->rec_tail != ep->rec_head) {
		struct swap_stage_rec *r =
			&ep->stage_rec[ep->rec_tail % SWAP_WRITE_WRS];

		if (r->wrs_left)
			break;
		ep->stage_tail = r->end;
		ep->rec_tail++;
	}
}

/* A WRITE of staging record @idx completed: was it @p's? */
static bool stage_done(struct swap_ep *ep, struct swap_partner *p,
		       uint32_t idx)
{
	struct swap_stage_rec *r = &ep->stage_rec[idx % SWAP_WRITE_WRS];
	bool ours;

	if (!r->wrs_left)
		return false;	/* taken back by swap_tx_drain() */
	ours = p && r->partner == p->id && r->gen == p->gen;
	r->wrs_left--;
	ep->writes_out--;
	if (ours && p->writes_out)
		p->writes_out--;
	stage_reap(ep);
	return ours;
}

/*
 * Room in the staging ring for @len bytes in one run and @wrs WRITEs:
 * a new record for them, or NULL with *@err once @p failed.  Pieces of
 * every partner share the ring and the bound on WRITEs out, which keeps
 * the completion queue from overflowing.
 */
static struct swap_stage_rec *stage_get(struct swap_ep *ep,
					struct swap_partner *p, size_t len,
					uint32_t wrs, int *err)
{
	for (;;) {
		uint64_t pos, at;
		struct swap_stage_rec *r;

		/* Empty: start at its beginning, where any piece fits. */
		if (ep->rec_tail == ep->rec_head)
			ep->stage_tail = ep->stage_head = (ep->stage_head +
				ep->stage_size - 1) / ep->stage_size *
				ep->stage_size;
		pos = ep->stage_head;
		at = pos % ep->stage_size;
		/* A piece does not wrap: skip the ring's end. */
		if (at + len > ep->stage_size)
			pos += ep->stage_size - at;
		if (pos + len - ep->stage_tail <= ep->stage_size &&
		    ep->rec_head - ep->rec_tail < SWAP_WRITE_WRS &&
		    ep->writes_out + wrs <= SWAP_WRITE_WRS) {
			r = &ep->stage_rec[ep->rec_head++ % SWAP_WRITE_WRS];
			*r = (struct swap_stage_rec){ .end = pos + len,
				.partner = p->id, .gen = p->gen };
			ep->stage_head = pos + len;
			return r;
		}
		*err = usable(ep, p);
		if (*err)
			return NULL;
		swap_wait(ep, UINT64_MAX);
	}
}

/* Send slots and WRITEs of @p not yet completed. */
static uint32_t held(const struct swap_ep *ep, const struct swap_partner *p)
{
	uint32_t i, n = p->writes_out;

	for (i = 0; i < ep->a.send_depth; i++)
		n += ep->txs[i].busy && ep->txs[i].partner == p->id &&
		     ep->txs[i].gen == p->gen;
	return n;
}

/* How long swap_tx_drain() waits for the flushes. */
#define DRAIN_MS	1000

/*
 * RC: @p failed (its QP is in the error state) and its QP is about to be
 * destroyed.  Wait for the completions of its SENDs and WRITEs, which
 * the error state flushes: destroying a QP may discard its completions
 * not yet polled (libwren and mlx5 do), and their send slots and staging
 * space would be lost to every partner for good.  A device that does
 * not flush within DRAIN_MS has failed; they are taken back anyway.
 */
void swap_tx_drain(struct swap_ep *ep, struct swap_partner *p)
{
	uint64_t until = swap_now() + DRAIN_MS * 1000000ULL;
	const struct timespec tick = { 0, 100000 };
	uint32_t i;

	while (held(ep, p) && !ep->fatal && swap_now() < until)
		if (swap_poll(ep) <= 0)
			nanosleep(&tick, NULL);
	for (i = 0; i < ep->a.send_depth; i++)
		if (ep->txs[i].partner == p->id && ep->txs[i].gen == p->gen)
			slot_put(ep, i);
	for (i = 0; i < SWAP_WRITE_WRS; i++) {
		struct swap_stage_rec *r = &ep->stage_rec[i];

		if (r->wrs_left && r->partner == p->id && r->gen == p->gen) {
			ep->writes_out -= r->wrs_left;
			r->wrs_left = 0;
		}
	}
	p->writes_out = 0;
	stage_reap(ep);
}

static bool resend_later(struct swap_ep *ep, struct swap_partner *p,
			 uint32_t idx);

void swap_tx_done(struct swap_ep *ep, const struct ibv_wc *wc)
{
	unsigned int kind = WR_KIND(wc->wr_id);
	struct swap_partner *p =
		swap_partner_get(ep, (int)WR_PARTNER(wc->wr_id));
	uint32_t idx = WR_IDX(wc->wr_id);
	bool ours;

	/*
	 * RD: a SEND the receiver had no buffer for was not delivered, so
	 * it may go again (the receiver orders by sequence number).  An
	 * honest receiver gives no credit without a buffer; this happens
	 * when another partner of it overran its own allowance.
	 */
	if (kind == WR_SEND && wc->status == IBV_WC_RNR_RETRY_EXC_ERR &&
	    ep->tp == SWAP_TRANSPORT_RD && p && p->state == P_CONNECTED &&
	    resend_later(ep, p, idx))
		return;
	if (kind == WR_SEND)
		slot_put(ep, idx);
	/*
	 * A SEND names its slot, a WRITE its staging record, a READ the
	 * partner's generation.
	 */
	if (kind == WR_SEND)
		ours = p && ep->txs[idx < ep->a.send_depth ? idx : 0].gen ==
			    p->gen;
	else if (kind == WR_WRITE)
		ours = stage_done(ep, p, idx);
	else
		ours = p && idx == p->gen;
	if (ours && kind == WR_READ)
		p->read_busy = false;
	if (!ours || p->state != P_CONNECTED)
		return;
	if (wc->status == IBV_WC_SUCCESS) {
		if (kind == WR_READ)
			read_done(ep, p);
		else
			p->heard_at = swap_now();
		return;
	}
	/* Wren: the responder had no room for the READ just now. */
	if (kind == WR_READ && wc->status == IBV_WC_RNR_RETRY_EXC_ERR) {
		p->read_at = swap_now() + BACKOFF_MAX_US * 1000ULL;
		return;
	}
	/*
	 * RD: a WRITE refused for now (RNR) or not placed (remote operation
	 * error) leaves the QP usable; placing is idempotent and the
	 * receiver looks at the space only after the header, so
	 * write_piece() WRITEs the piece again.  On RC the QP is in error.
	 */
	if (kind == WR_WRITE && ep->tp == SWAP_TRANSPORT_RD &&
	    (wc->status == IBV_WC_RNR_RETRY_EXC_ERR ||
	     wc->status == IBV_WC_REM_OP_ERR)) {
		if (!p->write_refused)
			p->write_refused = wc->status;
		return;
	}
	swap_fail(ep, p, wc->status == IBV_WC_REM_INV_REQ_ERR ? EPROTO :
		  ECONNRESET, "%s failed: %s",
		  kind == WR_READ ? "a READ of its block" :
		  kind == WR_WRITE ? "a WRITE into its pool" : "a SEND",
		  ibv_wc_status_str(wc->status));
}

/* Is there room for a piece of @len at @p now?  *@start: where. */
static bool room(struct swap_partner *p, uint64_t len, bool inl,
		 uint64_t *start)
{
	if ((uint32_t)(p->tx_seq - p->tx_released) >= p->ra.buf_count)
		return false;
	if (inl)
		return true;
	return swap_pool_place(p->tx_pos, p->ra.pool_size,
			       p->tx_pool_released, len, start);
}

static int usable(struct swap_ep *ep, struct swap_partner *p)
{
	if (ep->fatal)
		return -ep->fatal;
	if (p->state != P_CONNECTED)
		return p->state == P_FAILED ? -p->err : -ENOTCONN;
	return 0;
}

/* Wait until @p has room for a piece: 0, -EAGAIN past @deadline. */
static int wait_room(struct swap_ep *ep, struct swap_partner *p, uint64_t len,
		     bool inl, uint64_t deadline, uint64_t *start)
{
	bool waited = false;
	int ret;

	for (;;) {
		ret = usable(ep, p);
		if (ret)
			return ret;
		if (room(p, len, inl, start))
			return 0;
		if (!waited)
			ep->st.waits++;
		waited = true;
		/*
		 * While we wait, what partners sent us and we have not handed
		 * out yet is copied aside, so that a partner waiting on us in
		 * turn gets its room back (two senders blocked on each other).
		 */
		swap_rx_spill(ep);
		/* Re-read its block (swap_timers() keeps to one READ). */
		p->read_wanted = true;
		swap_timers(ep);
		if (swap_wait(ep, deadline) == -ETIMEDOUT)
			return -EAGAIN;
	}
}

/* A free INLINE slot: its index, or -errno. */
static int slot_get(struct swap_ep *ep, struct swap_partner *p,
		    uint64_t deadline)
{
	int ret;

	while (!ep->ntx_free) {
		ret = usable(ep, p);
		if (ret)
			return ret;
		if (swap_wait(ep, deadline) == -ETIMEDOUT)
			return -EAGAIN;
	}
	return (int)ep->tx_free[--ep->ntx_free];
}

/* SEND slot @idx, @len bytes of header and payload, to @p. */
static int send_post(struct swap_ep *ep, struct swap_partner *p, int idx)
{
	uint8_t *buf = ep->tx_mem + (size_t)idx * ep->tstride;
	int ret;

	post_begin(p, wr_id_make(WR_SEND, (uint32_t)p->id, (uint32_t)idx));
	ibv_wr_send_imm(p->qpx, htobe32(p->ra.id));
	post_addr(ep, p);
	ibv_wr_set_sge(p->qpx, ep->tx_mr->lkey, (uintptr_t)buf,
		       ep->txs[idx].len);
	ret = ibv_wr_complete(p->qpx);
	if (ret) {
		slot_put(ep, (uint32_t)idx);
		swap_fail(ep, p, ret > 0 ? ret : EIO, "posting a SEND: %s",
			  strerror(ret > 0 ? ret : EIO));
		return usable(ep, p);
	}
	return 0;
}

static int send_slot(struct swap_ep *ep, struct swap_partner *p, int idx,
		     uint32_t len)
{
	int ret;

	ep->txs[idx] = (struct swap_txslot){ .busy = true, .partner = p->id,
					     .gen = p->gen, .len = len };
	ret = send_post(ep, p, idx);
	if (!ret)
		p->tx_seq++;
	return ret;
}

/*
 * Post again the SENDs whose receiver was not ready (RD: every receive
 * buffer of its QP taken, by a partner that overran its allowance); the
 * next time one is due in *@next.
 */
void swap_resend_due(struct swap_ep *ep, uint64_t now, uint64_t *next)
{
	uint32_t i;

	for (i = 0; ep->resends && i < ep->a.send_depth; i++) {
		struct swap_txslot *t = &ep->txs[i];
		struct swap_partner *p;

		if (!t->resend)
			continue;
		if (t->at > now) {
			if (t->at < *next)
				*next = t->at;
			continue;
		}
		t->resend = false;
		ep->resends--;
		p = swap_partner_get(ep, t->partner);
		if (!p || p->gen != t->gen || p->state != P_CONNECTED) {
			slot_put(ep, i);
			continue;
		}
		send_post(ep, p, (int)i);
	}
}

/* RD: a SEND refused for want of a posted receive: again, later. */
static bool resend_later(struct swap_ep *ep, struct swap_partner *p,
			 uint32_t idx)
{
	struct swap_txslot *t = &ep->txs[idx];
	uint64_t now = swap_now();

	if (idx >= ep->a.send_depth || p->gen != t->gen)
		return false;
	if (!t->backoff_ms)
		t->first_at = now;
	else if (now - t->first_at > ep->a.stall_ms * 1000000ULL)
		return false;
	t->backoff_ms = t->backoff_ms ? t->backoff_ms * 2 : 1;
	if (t->backoff_ms > 64)
		t->backoff_ms = 64;
	t->at = now + t->backoff_ms * 1000000ULL;
	t->resend = true;
	ep->resends++;
	return true;
}

static int send_inline(struct swap_ep *ep, struct swap_partner *p,
		       const void *buf, size_t len, uint64_t deadline)
{
	struct swap_hdr h = {
		.type = SWAP_MSG_INLINE,
		.flags = SWAP_F_FIRST | SWAP_F_LAST,
		.len = (uint32_t)len,
		.total = len,
	};
	uint64_t unused;
	uint8_t *dst;
	int ret, idx;

	ret = wait_room(ep, p, len, true, deadline, &unused);
	if (ret)
		return ret;
	idx = slot_get(ep, p, deadline);
	if (idx < 0)
		return idx;
	dst = ep->tx_mem + (size_t)idx * ep->tstride;
	h.seq = p->tx_seq;
	swap_hdr_put(dst, &h);
	if (len)
		memcpy(dst + SWAP_HDR_LEN, buf, len);
	ret = send_slot(ep, p, idx, (uint32_t)(SWAP_HDR_LEN + len));
	if (!ret)
		ep->st.inline_sent++;
	return ret;
}

/*
 * Copy @len bytes of @buf into the staging ring and WRITE them to
 * @start of @p's pool.  On RD, wait for the WRITEs: a SEND after a WRITE
 * may overtake it, and only the WRITE's completion proves placement.  On
 * RC the header may follow at once (a SEND cannot pass a WRITE on one
 * connection), so pieces stream; the ring is freed as WRITEs complete.
 */
static int write_once(struct swap_ep *ep, struct swap_partner *p,
		      const uint8_t *buf, uint64_t start, size_t len)
{
	uint32_t wrs = (uint32_t)((len + ep->max_rdma - 1) / ep->max_rdma);
	uint64_t off = start % p->ra.pool_size;
	struct swap_stage_rec *r;
	uint8_t *stage;
	size_t done = 0;
	int ret;

	r = stage_get(ep, p, len, wrs, &ret);
	if (!r)
		return ret;
	stage = ep->stage + (r->end - len) % ep->stage_size;
	memcpy(stage, buf, len);
	p->write_refused = 0;
	while (done < len) {
		size_t n = len - done;

		if (n > ep->max_rdma)
			n = ep->max_rdma;

		post_begin(p, wr_id_make(WR_WRITE, (uint32_t)p->id,
					 (uint32_t)(r - ep->stage_rec)));
		ibv_wr_rdma_write(p->qpx, p->ra.pool_rkey,
				  p->ra.pool_addr + off + done);
		post_addr(ep, p);
		ibv_wr_set_sge(p->qpx, ep->stage_mr->lkey,
			       (uintptr_t)stage + done, (uint32_t)n);
		ret = ibv_wr_complete(p->qpx);
		if (ret) {
			swap_fail(ep, p, ret > 0 ? ret : EIO,
				  "posting a WRITE: %s",
				  strerror(ret > 0 ? ret : EIO));
			break;
		}
		r->wrs_left++;
		ep->writes_out++;
		p->writes_out++;
		done += n;
	}
	stage_reap(ep);		/* nothing posted: nothing to wait for */
	while (ep->tp == SWAP_TRANSPORT_RD && p->writes_out) {
		ret = usable(ep, p);
		if (ret)
			return ret;
		swap_wait(ep, UINT64_MAX);
	}
	return usable(ep, p);
}

/* Tries of a piece whose WRITEs are refused, 1 ms apart doubling. */
#define WRITE_TRIES	8

static int write_piece(struct swap_ep *ep, struct swap_partner *p,
		       const uint8_t *buf, uint64_t start, size_t len)
{
	unsigned int tries = 0;
	uint64_t until;
	int ret;

	for (;;) {
		ret = write_once(ep, p, buf, start, len);
		if (ret || !p->write_refused)
			return ret;
		if (++tries == WRITE_TRIES) {
			swap_fail(ep, p, ECONNRESET, "%u WRITEs of a piece "
				  "into its pool failed: %s", tries,
				  ibv_wc_status_str(p->write_refused));
			return usable(ep, p);
		}
		ep->st.write_retries++;
		until = swap_now() + (1000000ULL << tries);
		while (!usable(ep, p) && swap_now() < until)
			swap_wait(ep, until);
	}
}

/* The largest piece for @p: half its pool, so that two can be in it. */
static uint64_t piece_max(const struct swap_ep *ep,
			  const struct swap_partner *p)
{
	uint64_t n = (p->ra.pool_size / 2) & ~(uint64_t)(SWAP_POOL_ALIGN - 1);

	if (n < SWAP_POOL_ALIGN)
		n = p->ra.pool_size;
	return n < ep->stage_size ? n : ep->stage_size;
}

static int send_written(struct swap_ep *ep, struct swap_partner *p,
			const uint8_t *buf, size_t len, uint64_t deadline)
{
	uint64_t max = piece_max(ep, p), start = 0;
	size_t off = 0;
	int ret, idx;

	while (off < len) {
		size_t n = len - off < max ? len - off : (size_t)max;
		struct swap_hdr h = {
			.type = SWAP_MSG_WRITE,
			.flags = (off ? 0 : SWAP_F_FIRST) |
				 (off + n == len ? SWAP_F_LAST : 0),
			.len = (uint32_t)n,
			.total = len,
		};

		ret = wait_room(ep, p, n, false, deadline, &start);
		if (ret == -EAGAIN && off) {
			/* Half a message out: the stream cannot go on. */
			swap_fail(ep, p, ETIMEDOUT, "no room for the rest of "
				  "a message in %u ms", ep->a.stall_ms);
			ret = usable(ep, p);
		}
		if (ret)
			return ret;
		ret = write_piece(ep, p, buf + off, start, n);
		if (ret)
			return ret;
		idx = slot_get(ep, p, UINT64_MAX);
		if (idx < 0)
			return idx;
		h.seq = p->tx_seq;
		h.pos = start;
		swap_hdr_put(ep->tx_mem + (size_t)idx * ep->tstride, &h);
		ret = send_slot(ep, p, idx, SWAP_HDR_LEN);
		if (ret)
			return ret;
		p->tx_pos = swap_pool_next(start, n);
		ep->st.fragments_sent++;
		off += n;
		/*
		 * Once a message is under way, @timeout_ms no longer applies
		 * (a half-sent message cannot be taken back): the receiver
		 * must give room within stall_ms for each piece.
		 */
		deadline = swap_now() + ep->a.stall_ms * 1000000ULL;
	}
	ep->st.write_sent++;
	return 0;
}

SWAP_EXPORT
int swap_send(struct swap_ep *ep, int partner, const void *buf, size_t len,
	      int timeout_ms)
{
	struct swap_partner *p = swap_partner_get(ep, partner);
	uint64_t deadline;
	int ret;

	if (!p || (len && !buf))
		return -EINVAL;
	ret = usable(ep, p);
	if (ret)
		return ret;
	if (len > p->ra.max_msg_size)
		return -EMSGSIZE;
	deadline = timeout_ms < 0 ? UINT64_MAX :
		   swap_now() + (uint64_t)timeout_ms * 1000000ULL;
	swap_poll(ep);
	if (len <= p->ra.buf_size && len <= ep->a.buf_size)
		ret = send_inline(ep, p, buf, len, deadline);
	else
		ret = send_written(ep, p, buf, len, deadline);
	if (!ret) {
		ep->st.msgs_sent++;
		ep->st.bytes_sent += len;
	}
	return ret;
}
