// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: its entry points, the top of the library.  Life cycle,
 * the transmit scheduler the host pulls frames from, the receive
 * dispatcher and the host timer's dispatcher.  They call down into the
 * initiator (tp_ctx.c, tp_send.c, tp_ack.c, tp_path.c), the target
 * (tp_rx.c, tp_grant.c), datagrams (tp_ud.c) and the services below them
 * all (tp_base.c, tp_wire.c); nothing calls back up here.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

static const char *const status_names[WREN_TP_STATUS_COUNT] = {
	[WREN_TP_OK] = "ok",
	[WREN_TP_REMOTE_UNRESPONSIVE] = "remote unresponsive",
	[WREN_TP_REMOTE_UNREACHABLE] = "remote unreachable",
	[WREN_TP_BAD_DEST_QP] = "bad destination queue pair",
	[WREN_TP_RNR] = "receiver not ready",
	[WREN_TP_REMOTE_OP_ERROR] = "remote operation error",
	[WREN_TP_TOO_LONG] = "message too long",
	[WREN_TP_REMOTE_ACCESS] = "remote access error",
	[WREN_TP_LOCAL_ERROR] = "local error",
	[WREN_TP_FLUSHED] = "flushed",
};

const char *wren_tp_status_name(enum wren_tp_status st)
{
	return (unsigned int)st < WREN_TP_STATUS_COUNT ? status_names[st] :
							  "unknown";
}

void wren_tp_config_defaults(struct wren_tp_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->udp_port = WREN_WIRE_UDP_PORT;
	cfg->mtu = 4096;
	cfg->window = 256;
	cfg->subflows = 16;
	cfg->repath = true;
	cfg->max_ctx = 1024;
	cfg->max_rx_ctx = 1024;
	cfg->max_msgs = 4096;
	cfg->peer_share = 64;
	cfg->init_rto_ns = 200000;
	cfg->min_rto_ns = 50000;
	cfg->max_rto_ns = 20000000;
	cfg->max_retries = 8;
	cfg->dupthresh = 3;
	cfg->ack_every = 4;
	cfg->ack_delay_ns = 2000;
	cfg->cc_target_ns = 10000;
	cfg->cc_init_cwnd = 128 * 1024;
	cfg->cc_min_cwnd = 4096;
	cfg->cc_max_cwnd = 2 * 1024 * 1024;
	cfg->cc_ai = 4096;
	cfg->cc_beta = 128;
	cfg->cc_max_mdf = 128;
	cfg->grant_threshold = 256 * 1024;
	cfg->grant_window = 256 * 1024;
	cfg->grant_chunk = 64 * 1024;
	cfg->idle_ns = 1000000;
	cfg->mpl_ns = 1000000;
}

static bool config_valid(const struct wren_tp_config *c)
{
	return c->mtu >= 256 && c->mtu <= 9000 &&
	       c->window >= 64 && c->window <= TP_MAX_WINDOW &&
	       !(c->window & (c->window - 1)) &&
	       c->subflows >= 1 && c->subflows <= WREN_WIRE_MAX_SUBFLOWS &&
	       c->max_ctx >= 1 && c->max_ctx < (1U << 24) &&
	       c->max_rx_ctx >= 1 && c->max_rx_ctx < (1U << 24) &&
	       c->max_msgs >= 1 && c->max_msgs < (1U << 24) &&
	       c->peer_share >= 1 && c->peer_share <= 256 &&
	       c->min_rto_ns && c->min_rto_ns <= c->max_rto_ns &&
	       c->init_rto_ns && c->max_retries && c->dupthresh &&
	       c->ack_every && c->cc_min_cwnd &&
	       c->cc_min_cwnd <= c->cc_init_cwnd &&
	       c->cc_init_cwnd <= c->cc_max_cwnd &&
	       c->cc_beta <= 256 && c->cc_max_mdf <= 256 &&
	       (!c->grant_threshold || (c->grant_window && c->grant_chunk)) &&
	       c->idle_ns && c->mpl_ns;
}

/* ------------------------------------------------------------------ */
/* Control packets waiting for the wire (tp_ctl_push())                 */
/* ------------------------------------------------------------------ */

static size_t ctl_build(struct wren_tp *tp, const struct tp_ctl *c,
			uint8_t *f)
{
	struct tp_tx_pkt h = {
		.dst_ip = c->ipv4, .dst_mac = c->mac, .sport = c->sport,
		.type = c->type, .sf = c->sf, .src_ctx = c->src_ctx,
		.dst_ctx = c->dst_ctx, .epoch = c->epoch, .psn = c->psn,
		.bsn = c->bsn, .ts = c->ts,
	};
	uint8_t *x = tp_ext(f);

	switch (c->type) {
	case WREN_WIRE_NACK:
		memset(x, 0, sizeof(struct wren_wire_nack));
		*TP_FIELD(x, wren_wire_nack, reason) = c->reason;
		*TP_FIELD(x, wren_wire_nack, status) = c->status;
		wren_wire_put32(TP_FIELD(x, wren_wire_nack, msn), c->msn);
		tp->stats.tx_nacks++;
		return tp_build(tp, f, &h, sizeof(struct wren_wire_nack), 0);
	case WREN_WIRE_CONNECT:
	case WREN_WIRE_CONNECT_ACK:
		memset(x, 0, sizeof(struct wren_wire_connect));
		*TP_FIELD(x, wren_wire_connect, mode) = c->mode;
		wren_wire_put32(TP_FIELD(x, wren_wire_connect, window), c->window);
		return tp_build(tp, f, &h, sizeof(struct wren_wire_connect), 0);
	case WREN_WIRE_GRANT:
		wren_wire_put32(TP_FIELD(x, wren_wire_grant, msn), c->msn);
		wren_wire_put32(TP_FIELD(x, wren_wire_grant, granted), c->granted);
		tp->stats.tx_grants++;
		return tp_build(tp, f, &h, sizeof(struct wren_wire_grant), 0);
	default:
		return tp_build(tp, f, &h, 0, 0);
	}
}

/* ------------------------------------------------------------------ */
/* The host's entry points                                              */
/* ------------------------------------------------------------------ */

/* Run every deadline that is due, each in the part that owns it. */
static void host_timer_expired(void *arg)
{
	struct wren_tp *tp = arg;
	uint64_t now = tp_now(tp);
	struct tp_timer *t;

	tp->in_timer = true;
	tp->timer_armed = 0;
	while ((t = tp_timer_pop_due(tp, now))) {
		if (t->rx)
			tp_rx_timer(tp, tp_container_of(t, struct tp_rx, timer));
		else
			tp_ctx_timer(tp, tp_container_of(t, struct tp_ctx, timer));
	}
	tp->in_timer = false;
	tp_timer_rearm(tp);
}

size_t wren_tp_frame_max(const struct wren_tp_config *cfg)
{
	size_t ack = WREN_WIRE_L2L4_LEN + sizeof(struct wren_wire_hdr) +
		     sizeof(struct wren_wire_ack) +
		     WREN_WIRE_ACK_MAX_WORDS * sizeof(__be64);
	size_t data = WREN_WIRE_DATA_HDRS_LEN + sizeof(struct wren_wire_rdma) +
		      cfg->mtu;

	return data > ack ? data : ack;
}

static size_t pull(struct wren_tp *tp, uint8_t *f)
{
	size_t len;

	/* Answers first: they unblock other adapters' windows. */
	if (tp->ctl_head != tp->ctl_tail)
		return ctl_build(tp, &tp->ctl[tp->ctl_head++ & (tp->ctl_size - 1)],
				 f);
	while (!tp_list_empty(&tp->acks)) {
		struct tp_rx *rx = tp_container_of(tp->acks.next, struct tp_rx,
						   ack);

		len = tp_rx_pull_ack(tp, rx, f);
		if (len)
			return len;
	}
	len = tp_grant_pull(tp, f);
	if (len)
		return len;
	/* Datagrams and contexts take turns. */
	if (tp->ud_head != tp->ud_tail &&
	    (tp->ud_turn || tp_list_empty(&tp->ready))) {
		tp->ud_turn = false;
		len = tp_ud_pull(tp, f);
		if (len)
			return len;
	}
	tp->ud_turn = true;
	/*
	 * With cfg.prio_short, the context whose next packet is the most
	 * urgent (tp_tx_rank(): a retransmission or a GRANT_REQ, else the
	 * fewest bytes left) goes first (SRPT), the first of equals in
	 * turn: a short message leaves at the link's rate, not at its share
	 * of the round robin beside long ones, and of several long messages
	 * one finishes first instead of all of them last.  An initiator
	 * with more to send than its link takes (open-loop traffic has
	 * such bursts) made the worst tail of the longest messages: in
	 * netsim's WebSearch the slowest > 10 MB messages were those whose
	 * initiator had 70 to 90 MB of other messages to send beside them,
	 * all served in turn.  Shortest first among long messages too used
	 * to leave targets' links idle (a sender sitting on bytes its
	 * targets had granted, the whole of their grant windows); a target
	 * now grants a message at most half its window while others wait
	 * (tp_grant.c), so the others fill its link.  With both, netsim's
	 * WebSearch p99 slowdown over 10 MB at 30 / 50 / 80 % load went
	 * from 3.47 / 4.73 / 6.40 to 2.73 / 3.77 / 5.14, over all sizes
	 * from 3.36 / 4.14 / 6.32 to 2.57 / 3.43 / 5.01.
	 */
	if (tp->cfg.prio_short) {
		struct tp_ctx *best = NULL;
		uint32_t best_rank = UINT32_MAX;

		for (struct tp_link *l = tp->ready.next; l != &tp->ready;
		     l = l->next) {
			struct tp_ctx *c = tp_container_of(l, struct tp_ctx,
							   ready);
			uint32_t rank = tp_tx_rank(tp, c);

			if (rank != UINT32_MAX &&
			    (!best || rank < best_rank)) {
				best = c;
				best_rank = rank;
			}
		}
		if (best) {
			tp_list_del(&best->ready);
			len = tp_tx_pull_ctx(tp, best, f);
			if (len) {
				tp_tx_update_ready(tp, best);
				return len;
			}
		}
	}
	/*
	 * Then one packet per ready context in turn, each context tried at
	 * most once: one that found nothing it may send after all waits for
	 * its next event instead of being retried in a loop.
	 */
	for (uint32_t n = tp->ctx_used; n && !tp_list_empty(&tp->ready); n--) {
		struct tp_ctx *c = tp_container_of(tp->ready.next,
						   struct tp_ctx, ready);

		tp_list_del(&c->ready);
		len = tp_tx_pull_ctx(tp, c, f);
		if (len) {
			tp_tx_update_ready(tp, c);
			return len;
		}
	}
	return 0;
}

size_t wren_tp_tx_pull(struct wren_tp *tp, void *frame, size_t cap)
{
	size_t len;

	if (cap < wren_tp_frame_max(&tp->cfg))
		return 0;
	len = pull(tp, frame);
	if (len) {
		tp->stats.tx_pkts++;
		tp->stats.tx_bytes += len;
	}
	return len;
}

void wren_tp_rx(struct wren_tp *tp, const void *frame, size_t len)
{
	struct tp_rx_pkt p;

	tp->stats.rx_pkts++;
	tp->stats.rx_bytes += len;
	if (tp_parse(frame, len, &p)) {
		TP_DROP(tp, malformed);
		return;
	}
	if (p.dst_ip != tp->cfg.ipv4 || p.dport != tp->cfg.udp_port) {
		TP_DROP(tp, not_mine);
		return;
	}
	switch (p.type) {
	case WREN_WIRE_DATA:
		tp_rx_data(tp, &p);
		break;
	case WREN_WIRE_CONNECT:
		tp_rx_connect(tp, &p);
		break;
	case WREN_WIRE_CLOSE:
		tp_rx_close(tp, &p);
		break;
	case WREN_WIRE_ACK:
		tp_on_ack(tp, &p);
		break;
	case WREN_WIRE_NACK:
		tp_on_nack(tp, &p);
		break;
	case WREN_WIRE_CONNECT_ACK:
		tp_on_connect_ack(tp, &p);
		break;
	case WREN_WIRE_GRANT:
		tp_on_grant(tp, &p);
		break;
	case WREN_WIRE_UD:
		tp_ud_rx(tp, &p);
		break;
	}
}

void wren_tp_get_stats(const struct wren_tp *tp, struct wren_tp_stats *st)
{
	*st = tp->stats;
}

int wren_tp_ctx_id(struct wren_tp *tp, uint32_t ipv4, uint32_t class_id,
		   uint32_t *id)
{
	const struct tp_ctx *c = tp_ctx_find(tp, ipv4, class_id);

	if (!c)
		return -ENOENT;
	*id = c->id;
	return 0;
}

void wren_tp_set_accounts(struct wren_tp *tp, struct wren_tp_stats *acct,
			  uint32_t n)
{
	tp->acct = n ? acct : NULL;
	tp->acct_n = acct ? n : 0;
}

size_t wren_tp_ctx_memory(const struct wren_tp *tp)
{
	return tp->ctx_used * sizeof(struct tp_ctx) +
	       tp->rx_used * sizeof(struct tp_rx) + tp->active_bytes;
}

size_t wren_tp_peer_memory(const struct wren_tp *tp, uint32_t ipv4)
{
	size_t bytes = 0;

	for (uint32_t i = 0; i < tp->cfg.max_ctx; i++) {
		const struct tp_ctx *c = &tp->ctx[i];

		if (c->state != TP_CTX_FREE && c->ipv4 == ipv4)
			bytes += sizeof(*c) + (c->win ? tp_win_bytes(tp) : 0);
	}
	for (uint32_t i = 0; i < tp->cfg.max_rx_ctx; i++) {
		const struct tp_rx *rx = &tp->rx[i];

		if (rx->state != TP_RX_FREE && rx->ipv4 == ipv4)
			bytes += sizeof(*rx) +
				 (rx->bits ? tp_rx_state_bytes(tp) : 0);
	}
	return bytes;
}

struct wren_tp *wren_tp_create(const struct wren_tp_config *cfg,
			       const struct wren_tp_env_ops *env,
			       void *env_opaque,
			       const struct wren_tp_ulp_ops *ulp,
			       void *ulp_opaque)
{
	struct wren_tp *tp;

	if (!config_valid(cfg) || !env->tx_kick || !env->random ||
	    !env->timer_new || !ulp->tx_read || !ulp->tx_done ||
	    !ulp->rx_begin || !ulp->rx_write || !ulp->rx_done)
		return NULL;
	tp = calloc(1, sizeof(*tp));
	if (!tp)
		return NULL;
	tp->cfg = *cfg;
	tp->env = env;
	tp->env_opaque = env_opaque;
	tp->ulp = ulp;
	tp->ulp_opaque = ulp_opaque;
	tp_list_init(&tp->ready);
	tp_list_init(&tp->idle);
	tp_list_init(&tp->acks);
	tp_list_init(&tp->grants);
	/*
	 * A target forgets a context only when its initiator can no longer
	 * be retransmitting into it (Documentation/transport.rst).
	 */
	tp->rx_idle_ns = cfg->idle_ns + cfg->mpl_ns +
			 (uint64_t)cfg->max_retries * cfg->max_rto_ns;

	/* Room for an answer or two per context, so small hosts stay small. */
	tp->ctl_size = 16;
	while (tp->ctl_size < TP_CTL_RING_MAX &&
	       tp->ctl_size < 2 * (cfg->max_ctx + cfg->max_rx_ctx))
		tp->ctl_size <<= 1;
	tp->ctl = calloc(tp->ctl_size, sizeof(*tp->ctl));
	for (tp->ud_size = 16; tp->ud_size < TP_UD_RING_MAX &&
	     tp->ud_size < cfg->max_msgs; tp->ud_size <<= 1)
		;
	tp->ud = calloc(tp->ud_size, sizeof(*tp->ud));
	tp->heap = calloc(cfg->max_ctx + cfg->max_rx_ctx, sizeof(*tp->heap));
	tp->msg_pool = calloc(cfg->max_msgs, sizeof(*tp->msg_pool));
	tp->rx_msg_pool = calloc(cfg->max_msgs, sizeof(*tp->rx_msg_pool));
	tp->timer = env->timer_new(env_opaque, host_timer_expired, tp);
	if (!tp->ctl || !tp->ud || !tp->heap || !tp->msg_pool ||
	    !tp->rx_msg_pool || !tp->timer || tp_peer_init(tp) ||
	    tp_ctx_init_table(tp) || tp_rx_init_table(tp)) {
		wren_tp_destroy(tp);
		return NULL;
	}
	for (uint32_t i = cfg->max_msgs; i--;) {
		tp->msg_pool[i].next = tp->msg_free;
		tp->msg_free = &tp->msg_pool[i];
		tp->rx_msg_pool[i].next = tp->rx_msg_free;
		tp->rx_msg_free = &tp->rx_msg_pool[i];
	}
	return tp;
}

void wren_tp_destroy(struct wren_tp *tp)
{
	if (!tp)
		return;
	if (tp->ctx)
		tp_ctx_destroy(tp);
	if (tp->rx)
		tp_rx_destroy(tp);
	while (tp->ud && tp->ud_head != tp->ud_tail) {
		struct tp_ud *u = &tp->ud[tp->ud_head++ & (tp->ud_size - 1)];

		tp->ulp->tx_done(tp->ulp_opaque, u->cookie, WREN_TP_FLUSHED);
	}
	free(tp->ud);
	if (tp->timer)
		tp->env->timer_free(tp->timer);
	free(tp->ctl);
	free(tp->heap);
	free(tp->msg_pool);
	free(tp->rx_msg_pool);
	/* Last: destroying contexts gives back what peers held. */
	tp_peer_free_table(tp);
	free(tp);
}
