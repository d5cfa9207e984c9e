// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: the services every part of it uses.  The counters, the
 * clock and the wire's kick, the deadlines of every context in one binary min-heap with
 * the host's one timer armed at its top, and the ring of control packets
 * (NACK, CLOSE) waiting for the wire.  Nothing here calls up into the
 * initiator or the target: the heap hands expired deadlines to its caller
 * (tp_timer_pop_due()), and the ring's packets are built by whoever pulls
 * them.
 */
#include <string.h>

#include "tp_internal.h"

/*
 * A message that failed with @st: msg_err_<st>, and msg_errors, charged
 * to @qpn, its queue pair at this adapter (its initiator's or target's).
 */
void tp_count_error(struct wren_tp *tp, uint32_t qpn, enum wren_tp_status st)
{
	switch (st) {
	case WREN_TP_OK:
		return;
	case WREN_TP_REMOTE_UNRESPONSIVE:
		TP_COUNT_QP(tp, qpn, msg_err_unresponsive, 1);
		break;
	case WREN_TP_REMOTE_UNREACHABLE:
		TP_COUNT_QP(tp, qpn, msg_err_unreachable, 1);
		break;
	case WREN_TP_BAD_DEST_QP:
		TP_COUNT_QP(tp, qpn, msg_err_bad_dest_qp, 1);
		break;
	case WREN_TP_RNR:
		TP_COUNT_QP(tp, qpn, msg_err_rnr, 1);
		break;
	case WREN_TP_TOO_LONG:
		TP_COUNT_QP(tp, qpn, msg_err_too_long, 1);
		break;
	case WREN_TP_REMOTE_ACCESS:
		TP_COUNT_QP(tp, qpn, msg_err_remote_access, 1);
		break;
	case WREN_TP_LOCAL_ERROR:
		TP_COUNT_QP(tp, qpn, msg_err_local, 1);
		break;
	case WREN_TP_FLUSHED:
		TP_COUNT_QP(tp, qpn, msg_err_flushed, 1);
		break;
	default:
		TP_COUNT_QP(tp, qpn, msg_err_remote_op, 1);
		break;
	}
	TP_COUNT_QP(tp, qpn, msg_errors, 1);
}

/* @n packets of queue pair @qpn's messages resent because of @cause. */
void tp_count_retx(struct wren_tp *tp, uint32_t qpn,
		   enum wren_tp_retx_cause cause, uint32_t n)
{
	switch (cause) {
	case WREN_TP_RETX_TIMEOUT:
		TP_COUNT_QP(tp, qpn, retx_timeout, n);
		break;
	case WREN_TP_RETX_FAST:
		TP_COUNT_QP(tp, qpn, retx_fast, n);
		break;
	case WREN_TP_RETX_NACK:
		TP_COUNT_QP(tp, qpn, retx_nack, n);
		break;
	case WREN_TP_RETX_RECONNECT:
		TP_COUNT_QP(tp, qpn, retx_reconnect, n);
		break;
	}
}

/* A random path: an entropy (UDP source port) from the dynamic range. */
uint16_t tp_random_entropy(struct wren_tp *tp)
{
	return WREN_WIRE_ENTROPY_BASE |
	       (tp->env->random(tp->env_opaque) & WREN_WIRE_ENTROPY_MASK);
}

uint64_t tp_now(struct wren_tp *tp)
{
	return tp->env->now_ns(tp->env_opaque);
}

void tp_kick(struct wren_tp *tp)
{
	tp->env->tx_kick(tp->env_opaque);
}

/* ------------------------------------------------------------------ */
/* Deadlines: a binary min-heap, one host timer armed at its top.       */
/* ------------------------------------------------------------------ */

static void heap_swap(struct wren_tp *tp, uint32_t a, uint32_t b)
{
	struct tp_timer *t = tp->heap[a];

	tp->heap[a] = tp->heap[b];
	tp->heap[b] = t;
	tp->heap[a]->heap_idx = a;
	tp->heap[b]->heap_idx = b;
}

static void heap_up(struct wren_tp *tp, uint32_t i)
{
	while (i) {
		uint32_t parent = (i - 1) / 2;

		if (tp->heap[parent]->deadline <= tp->heap[i]->deadline)
			break;
		heap_swap(tp, i, parent);
		i = parent;
	}
}

static void heap_down(struct wren_tp *tp, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < tp->heap_len &&
		    tp->heap[l]->deadline < tp->heap[m]->deadline)
			m = l;
		if (r < tp->heap_len &&
		    tp->heap[r]->deadline < tp->heap[m]->deadline)
			m = r;
		if (m == i)
			return;
		heap_swap(tp, i, m);
		i = m;
	}
}

static void heap_remove(struct wren_tp *tp, struct tp_timer *t)
{
	uint32_t i = t->heap_idx;

	t->heap_idx = TP_NONE;
	if (i == --tp->heap_len)
		return;
	tp->heap[i] = tp->heap[tp->heap_len];
	tp->heap[i]->heap_idx = i;
	heap_up(tp, i);
	heap_down(tp, tp->heap[i]->heap_idx);
}

void tp_timer_rearm(struct wren_tp *tp)
{
	uint64_t next = tp->heap_len ? tp->heap[0]->deadline : 0;

	if (tp->in_timer || next == tp->timer_armed)
		return;
	tp->timer_armed = next;
	if (next)
		tp->env->timer_arm(tp->timer, next);
	else
		tp->env->timer_cancel(tp->timer);
}

/* Set @t to fire at @deadline (0: never). */
void tp_timer_set(struct wren_tp *tp, struct tp_timer *t, uint64_t deadline)
{
	if (t->heap_idx != TP_NONE) {
		if (!deadline) {
			heap_remove(tp, t);
		} else {
			t->deadline = deadline;
			heap_up(tp, t->heap_idx);
			heap_down(tp, t->heap_idx);
		}
	} else if (deadline) {
		t->deadline = deadline;
		t->heap_idx = tp->heap_len;
		tp->heap[tp->heap_len++] = t;
		heap_up(tp, t->heap_idx);
	}
	tp_timer_rearm(tp);
}

/* Queue @c; false (and counted) when the ring is full. */
bool tp_ctl_push(struct wren_tp *tp, const struct tp_ctl *c)
{
	if (tp->ctl_tail - tp->ctl_head == tp->ctl_size) {
		TP_DROP(tp, no_resources);
		return false;
	}
	tp->ctl[tp->ctl_tail++ & (tp->ctl_size - 1)] = *c;
	tp_kick(tp);
	return true;
}

/*
 * The earliest deadline at or before @now, taken off the heap, or NULL.
 * The caller runs it and asks again; it re-arms the host timer with
 * tp_timer_rearm() when done.
 */
struct tp_timer *tp_timer_pop_due(struct wren_tp *tp, uint64_t now)
{
	struct tp_timer *t;

	if (!tp->heap_len || tp->heap[0]->deadline > now)
		return NULL;
	t = tp->heap[0];
	heap_remove(tp, t);
	return t;
}

