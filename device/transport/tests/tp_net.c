// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The unit tests' network: see tp_net.h.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wren_compat.h"
#include "linux/wren/wren_wire.h"
#include "tp_net.h"

uint32_t net_ip(int node)
{
	return htobe32(0xc6120001 + node);	/* 198.18.0.N+1 */
}

uint32_t net_rand(struct net *net)
{
	/* splitmix64 */
	uint64_t z = (net->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)((z ^ (z >> 31)) >> 16);
}

/* ---- the host of each transport ---- */

static uint64_t env_now(void *opaque)
{
	return ((struct net_node *)opaque)->net->now;
}

static void *env_timer_new(void *opaque, void (*cb)(void *), void *arg)
{
	struct net *net = ((struct net_node *)opaque)->net;

	for (int i = 0; i < NET_MAX_TIMERS; i++) {
		struct net_timer *t = &net->timers[i];

		if (!t->used) {
			memset(t, 0, sizeof(*t));
			t->used = true;
			t->cb = cb;
			t->arg = arg;
			return t;
		}
	}
	return NULL;
}

static void env_timer_arm(void *timer, uint64_t at)
{
	struct net_timer *t = timer;

	t->armed = true;
	t->at = at;
}

static void env_timer_cancel(void *timer)
{
	((struct net_timer *)timer)->armed = false;
}

static void env_timer_free(void *timer)
{
	memset(timer, 0, sizeof(struct net_timer));
}

static void env_kick(void *opaque)
{
	((struct net_node *)opaque)->kicked = true;
}

static uint32_t env_random(void *opaque)
{
	struct net *net = ((struct net_node *)opaque)->net;

	return net->fixed_random ? net->fixed_random : net_rand(net);
}

static const struct wren_tp_env_ops net_env_ops = {
	.now_ns = env_now,
	.timer_new = env_timer_new,
	.timer_arm = env_timer_arm,
	.timer_cancel = env_timer_cancel,
	.timer_free = env_timer_free,
	.tx_kick = env_kick,
	.random = env_random,
};

/* ---- the upper layer: deterministic payload, checked on arrival ---- */

static uint8_t pattern(uint32_t seed, uint32_t off)
{
	uint32_t x = seed ^ (off * 2654435761U);

	return (uint8_t)(x ^ x >> 13 ^ x >> 24);
}

static int ulp_tx_read(void *ulp, uint64_t cookie, uint32_t off, void *buf,
		       uint32_t len)
{
	struct net_node *n = ulp;
	struct net_msg *m = &n->net->msgs[cookie];
	uint8_t *b = buf;

	if (n->fail_read)
		return -1;
	for (uint32_t i = 0; i < len; i++)
		b[i] = pattern(m->seed, off + i);
	return 0;
}

static void ulp_tx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct net_node *n = ulp;
	struct net_msg *m = &n->net->msgs[cookie];

	m->done_calls++;
	m->done_status = st;
}

/* The sender hides the message index in the immediate data. */
static enum wren_tp_status ulp_rx_begin(void *ulp,
					const struct wren_tp_peer *peer,
					const struct wren_tp_msg *msg,
					uint64_t *cookie)
{
	struct net_node *n = ulp;

	(void)peer;
	n->last_rx = *msg;
	if (n->refuse != WREN_TP_OK)
		return n->refuse;
	if (msg->imm >= NET_MAX_MSGS || !n->net->msgs[msg->imm].used ||
	    n->net->msgs[msg->imm].len != msg->len)
		return WREN_TP_BAD_DEST_QP;
	*cookie = msg->imm;
	return WREN_TP_OK;
}

static int ulp_rx_write(void *ulp, uint64_t cookie, uint32_t off,
			const void *buf, uint32_t len)
{
	struct net_node *n = ulp;
	struct net_msg *m = &n->net->msgs[cookie];
	const uint8_t *b = buf;

	if (n->fail_write)
		return -1;
	for (uint32_t i = 0; i < len; i++)
		if (b[i] != pattern(m->seed, off + i))
			m->bad_bytes = true;
	return 0;
}

static void ulp_rx_done(void *ulp, uint64_t cookie, enum wren_tp_status st)
{
	struct net_node *n = ulp;
	struct net_msg *m = &n->net->msgs[cookie];

	if (st != WREN_TP_OK) {
		n->rx_aborted++;
		return;
	}
	m->delivered++;
	m->delivered_at = n->net->now;
	m->delivered_seq = n->rx_seq++;
}

static const struct wren_tp_ulp_ops net_ulp_ops = {
	.tx_read = ulp_tx_read,
	.tx_done = ulp_tx_done,
	.rx_begin = ulp_rx_begin,
	.rx_write = ulp_rx_write,
	.rx_done = ulp_rx_done,
};

void net_init(struct net *net, int n, const struct wren_tp_config *cfg,
	      uint64_t seed)
{
	memset(net, 0, sizeof(*net));
	net->nodes = n;
	net->now = 1000000000ULL;
	net->delay_ns = 2000;
	net->frame_ns = 100;
	net->rng = seed;
	for (int i = 0; i < n; i++) {
		struct net_node *nd = &net->node[i];

		nd->net = net;
		nd->id = i;
		nd->cfg = *cfg;
		nd->cfg.ipv4 = net_ip(i);
		memcpy(nd->cfg.mac, "\x02\x00\x00\x00\x00", 5);
		nd->cfg.mac[5] = i;
	}
}

bool net_restart(struct net *net, int i)
{
	struct net_node *nd = &net->node[i];

	wren_tp_destroy(nd->tp);
	nd->tp = wren_tp_create(&nd->cfg, &net_env_ops, nd, &net_ulp_ops, nd);
	return nd->tp;
}

static int table_load(void *opaque, uint32_t idx, struct wren_tp_ctx_rec *rec)
{
	struct net_node *nd = opaque;

	if (nd->table_unreadable)
		return -EIO;
	if (idx >= nd->table_entries || nd->table[idx].state > WREN_TP_REC_SPILLED)
		return -EINVAL;
	*rec = nd->table[idx];
	return 0;
}

static int table_save(void *opaque, uint32_t idx,
		      const struct wren_tp_ctx_rec *rec)
{
	struct net_node *nd = opaque;

	if (idx >= nd->table_entries)
		return -EIO;
	nd->table[idx] = *rec;
	return 0;
}

static const struct wren_tp_store_ops net_table_ops = {
	.load = table_load,
	.save = table_save,
};

int net_set_table(struct net *net, int i, uint32_t entries)
{
	struct net_node *nd = &net->node[i];

	free(nd->table);
	nd->table = calloc(entries, sizeof(*nd->table));
	nd->table_entries = entries;
	return wren_tp_set_store(nd->tp, &net_table_ops, nd, entries);
}

bool net_start(struct net *net)
{
	for (int i = 0; i < net->nodes; i++)
		if (!net_restart(net, i))
			return false;
	return true;
}

void net_fini(struct net *net)
{
	while (net->frames) {
		struct net_frame *f = net->frames;

		net->frames = f->next;
		free(f->data);
		free(f);
	}
	for (int i = 0; i < net->nodes; i++) {
		wren_tp_destroy(net->node[i].tp);
		free(net->node[i].table);
	}
}

/*
 * Post @m to node @to, addressed by @d (its class and mode), as a message
 * or a datagram, its index in net->msgs as its immediate: the index, or
 * a negative errno.
 */
static int net_post(struct net *net, int from, int to, struct wren_tp_dest *d,
		    struct wren_tp_msg *m, bool ud)
{
	unsigned int i = net->nmsgs;
	int rc;

	if (i >= NET_MAX_MSGS)
		return -ENOSPC;
	d->ipv4 = net_ip(to);
	memcpy(d->mac, net->node[to].cfg.mac, 6);
	m->imm = i;
	net->msgs[i] = (struct net_msg){
		.used = true, .from = from, .to = to, .len = m->len,
		.seed = net_rand(net), .class_id = d->class_id,
		.ordered = m->flags & WREN_TP_MSG_ORDERED, .done_status = -1,
	};
	rc = ud ? wren_tp_send_ud(net->node[from].tp, d, m, i) :
		  wren_tp_send(net->node[from].tp, d, m, i);
	if (rc) {
		net->msgs[i].used = false;
		return rc;
	}
	net->nmsgs++;
	return i;
}

int net_send(struct net *net, int from, int to, uint32_t len, bool ordered,
	     uint32_t class_id, uint8_t mode)
{
	struct wren_tp_dest d = { .class_id = class_id, .mode = mode };
	struct wren_tp_msg m = {
		.len = len, .opcode = WREN_WIRE_OP_SEND_IMM,
		.flags = ordered ? WREN_TP_MSG_ORDERED : 0,
		.dst_qpn = 1, .src_qpn = 2, .qkey = 0x11111111,
	};
	int rc = net_post(net, from, to, &d, &m, false);

	return rc < 0 ? -1 : rc;
}

int net_send_msg(struct net *net, int from, int to,
		 const struct wren_tp_msg *tmpl)
{
	struct wren_tp_dest d = { 0 };
	struct wren_tp_msg m = *tmpl;

	return net_post(net, from, to, &d, &m, false);
}

int net_send_ud(struct net *net, int from, int to, uint32_t len)
{
	struct wren_tp_dest d = { 0 };
	struct wren_tp_msg m = {
		.len = len, .opcode = WREN_WIRE_OP_SEND, .dst_qpn = 1,
		.src_qpn = 2, .qkey = 0x11111111,
	};

	return net_post(net, from, to, &d, &m, true);
}

static void queue_frame(struct net *net, struct net_frame *f)
{
	struct net_frame **pp = &net->frames;

	while (*pp && (*pp)->at <= f->at)
		pp = &(*pp)->next;
	f->next = *pp;
	*pp = f;
}

static void emit(struct net *net, int from, uint8_t *buf, uint32_t len)
{
	const uint8_t *w = buf + WREN_WIRE_HDR;
	struct net_filter_ctx fc = {
		.from = from, .frame = buf, .len = len,
		.type = wren_wire_type(buf, len), .flags = w[1],
		.sport = wren_wire_get16(buf + WREN_WIRE_UDP),
		.psn = wren_wire_get32(w + offsetof(struct wren_wire_hdr, psn)),
	};
	enum net_verdict v = NET_PASS;
	int copies = 1;

	/* Route by destination address: 198.18.0.N+1 is node N. */
	fc.to = buf[WREN_WIRE_IP_DST + 3] - 1;
	net->frames_sent++;
	if (fc.to < 0 || fc.to >= net->nodes)
		return;
	if (net->filter)
		v = net->filter(net, &fc);
	if (v == NET_DROP) {
		net->frames_dropped++;
		return;
	}
	if (v == NET_DUP)
		copies = 2;
	if (v == NET_TRIM)
		len = wren_wire_trim(buf, len);
	for (int c = 0; c < copies; c++) {
		struct net_frame *f = calloc(1, sizeof(*f));

		f->from = from;
		f->to = fc.to;
		f->len = len;
		f->data = malloc(len);
		memcpy(f->data, buf, len);
		f->at = net->now + net->delay_ns + fc.extra_delay + c * 10;
		queue_frame(net, f);
	}
}

void net_inject(struct net *net, int to, const uint8_t *frame, uint32_t len)
{
	wren_tp_rx(net->node[to].tp, frame, len);
}

/* Let every kicked node put out what it has, a frame per frame_ns. */
static void pull_all(struct net *net)
{
	static uint8_t buf[NET_MAX_FRAME];

	for (int i = 0; i < net->nodes; i++) {
		struct net_node *nd = &net->node[i];
		size_t len;

		if (!nd->kicked || nd->busy_until > net->now)
			continue;
		nd->kicked = false;
		len = wren_tp_tx_pull(nd->tp, buf, sizeof(buf));
		if (!len)
			continue;
		emit(net, i, buf, len);
		nd->busy_until = net->now + net->frame_ns;
		nd->kicked = true;	/* ask again when the wire is free */
	}
}

uint64_t net_run(struct net *net, uint64_t max_ns)
{
	uint64_t end = net->now + max_ns;

	for (;;) {
		uint64_t next = UINT64_MAX;
		struct net_timer *tn = NULL;

		pull_all(net);
		for (int i = 0; i < net->nodes; i++) {
			uint64_t t = net->node[i].busy_until > net->now ?
				     net->node[i].busy_until : net->now;

			if (net->node[i].kicked && t < next)
				next = t;
		}
		if (net->frames && net->frames->at < next)
			next = net->frames->at;
		for (int i = 0; i < NET_MAX_TIMERS; i++) {
			struct net_timer *t = &net->timers[i];

			if (t->used && t->armed && t->at < next) {
				next = t->at;
				tn = t;
			}
		}
		if (next == UINT64_MAX || next > end) {
			net->now = end;
			break;
		}
		if (next > net->now)
			net->now = next;
		if (net->frames && net->frames->at <= net->now) {
			struct net_frame *f = net->frames;

			net->frames = f->next;
			wren_tp_rx(net->node[f->to].tp, f->data, f->len);
			free(f->data);
			free(f);
		} else if (tn && tn->at <= net->now) {
			tn->armed = false;
			tn->cb(tn->arg);
		}
	}
	return net->now;
}

unsigned int net_msgs_ok(const struct net *net)
{
	unsigned int ok = 0;

	for (unsigned int i = 0; i < net->nmsgs; i++) {
		const struct net_msg *m = &net->msgs[i];

		ok += m->done_calls == 1 && m->done_status == WREN_TP_OK &&
		      m->delivered == 1 && !m->bad_bytes;
	}
	return ok;
}

void net_stats(const struct net *net, int node, struct wren_tp_stats *st)
{
	wren_tp_get_stats(net->node[node].tp, st);
}
