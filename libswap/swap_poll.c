// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Progress: completions to the send and receive sides, the timers that
 * re-read a partner's block (when a send waits for room, with a growing
 * back-off while it shows none; when a partner has been silent for
 * probe_ms, to notice it has gone), and waiting: a short busy poll,
 * then the completion channel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>

#include "swap_int.h"

#define POLL_BATCH	32

int swap_poll(struct swap_ep *ep)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, i, total = 0;

	do {
		n = ibv_poll_cq(ep->cq, POLL_BATCH, wc);
		if (n < 0) {
			/* The device failed: every partner with it. */
			ep->fatal = EIO;
			return -EIO;
		}
		for (i = 0; i < n; i++) {
			if (WR_KIND(wc[i].wr_id) == WR_RECV)
				swap_rx_arrived(ep, &wc[i]);
			else if (WR_KIND(wc[i].wr_id))
				swap_tx_done(ep, &wc[i]);
			/*
			 * The RD QP itself in error: flushed sends say so
			 * (one partner's failure does not flush).
			 */
			if (ep->tp == SWAP_TRANSPORT_RD &&
			    wc[i].status == IBV_WC_WR_FLUSH_ERR)
				ep->fatal = EIO;
		}
		total += n;
	} while (n == POLL_BATCH);
	return total;
}

/* Post the READs that are due; the next time one will be, in *@next. */
static void timers(struct swap_ep *ep, uint64_t now, uint64_t *next)
{
	uint64_t probe = (uint64_t)ep->a.probe_ms * 1000000ULL, due;
	uint32_t i;

	swap_resend_due(ep, now, next);
	for (i = 0; i < ep->a.max_partners; i++) {
		struct swap_partner *p = &ep->p[i];

		if (p->state != P_CONNECTED || p->read_busy)
			continue;
		due = p->heard_at + probe;
		if (p->read_wanted && p->read_at < due)
			due = p->read_at;
		if (due <= now)
			swap_read_post(ep, p);
		else if (due < *next)
			*next = due;
	}
}

void swap_timers(struct swap_ep *ep)
{
	uint64_t next = UINT64_MAX;

	timers(ep, swap_now(), &next);
}

/*
 * Make progress or wait for it until @deadline: 0 when something may
 * have changed, -ETIMEDOUT at the deadline.
 */
int swap_wait(struct swap_ep *ep, uint64_t deadline)
{
	uint64_t now = swap_now(), start = now, next;
	struct pollfd pfd = { .fd = ep->ch->fd, .events = POLLIN };
	struct ibv_cq *cq;
	void *cq_ctx;
	int ms;

	do {
		next = UINT64_MAX;
		timers(ep, now, &next);
		if (swap_poll(ep) != 0)
			return 0;
		if (ep->fatal)
			return 0;
		now = swap_now();
		if (now >= deadline)
			return -ETIMEDOUT;
	} while (now - start < ep->a.spin_us * 1000ULL);

	if (ibv_req_notify_cq(ep->cq, 0)) {
		ep->fatal = EIO;
		return 0;
	}
	/* Whatever came before the arming is not signalled: look again. */
	if (swap_poll(ep) != 0)
		return 0;
	if (deadline < next)
		next = deadline;
	ms = next == UINT64_MAX ? -1 :
	     next <= now ? 0 : (int)((next - now + 999999) / 1000000);
	if (poll(&pfd, 1, ms) > 0 &&
	    !ibv_get_cq_event(ep->ch, &cq, &cq_ctx))
		ibv_ack_cq_events(cq, 1);
	return swap_now() >= deadline ? -ETIMEDOUT : 0;
}

SWAP_EXPORT
int swap_progress(struct swap_ep *ep)
{
	struct ibv_cq *cq;
	void *cq_ctx;
	int ret;

	/* An application that polls our fd: consume the event, re-arm. */
	while (!ibv_get_cq_event(ep->ch, &cq, &cq_ctx))
		ibv_ack_cq_events(cq, 1);
	swap_timers(ep);
	ret = swap_poll(ep);
	if (ibv_req_notify_cq(ep->cq, 0))
		ep->fatal = EIO;
	if (ret >= 0)
		ret = swap_poll(ep);
	return ret < 0 ? ret : ep->fatal ? -ep->fatal : 0;
}
