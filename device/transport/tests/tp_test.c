// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the Wren transport (device/transport) on the little network of
 * tp_net.c: every message must be delivered exactly once with every byte
 * right, whatever the wire does, and the counters must say what happened.
 * Output is TAP, then a "N passed, N failed" line.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"
#include "tap.h"
#include "tp_net.h"

int tap_failed_checks;

#define MS		1000000ULL

static void cfg_default(struct wren_tp_config *cfg)
{
	wren_tp_config_defaults(cfg);
	cfg->mtu = 1024;
	cfg->window = 64;
	cfg->grant_threshold = 0;
}

/* The defaults, with grants from 16 KiB and a window and chunk of 8 KiB. */
static void cfg_grants_8k(struct wren_tp_config *cfg)
{
	cfg_default(cfg);
	cfg->grant_threshold = 16384;
	cfg->grant_window = 8192;
	cfg->grant_chunk = 8192;
}

static struct net *net_new(int nodes, const struct wren_tp_config *cfg,
			   uint64_t seed)
{
	struct net *net = calloc(1, sizeof(*net));

	net_init(net, nodes, cfg, seed);
	return net;
}

static void net_free(struct net *net)
{
	net_fini(net);
	free(net);
}

/* Post @n messages of random size up to @max from node 0 to node 1. */
static void send_random(struct net *net, unsigned int n, uint32_t max,
			bool ordered)
{
	for (unsigned int i = 0; i < n; i++)
		CHECK(net_send(net, 0, 1, net_rand(net) % (max + 1), ordered,
			       0, WREN_TP_MODE_OPTIMISTIC) >= 0);
}

/* ------------------------------------------------------------------ */

static void test_frame_round_trip(void)
{
	struct wren_tp_config cfg;
	struct wren_tp tp = { 0 };
	uint8_t f[2048];
	struct tp_rx_pkt p;
	struct tp_tx_pkt h = {
		.dst_ip = htobe32(0xc6120002), .dst_mac = (uint8_t *)"\2\0\0\0\0\1",
		.sport = 0xc123, .ect = true, .type = WREN_WIRE_DATA,
		.flags = WREN_WIRE_F_SYN, .sf = 3, .src_ctx = 7,
		.dst_ctx = WREN_WIRE_CTX_NONE, .epoch = 0xdeadbeef,
		.psn = 0xfffffffe, .bsn = 0xfffffff0, .ts = 12345, .mbase = 9,
	};
	uint8_t *x;
	size_t len;

	cfg_default(&cfg);
	cfg.ipv4 = htobe32(0xc6120001);
	tp.cfg = cfg;
	x = tp_ext(f);
	memset(x, 0, sizeof(struct wren_wire_data));
	wren_wire_put32(TP_FIELD(x, wren_wire_data, msn), 42);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, msg_len), 100);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, offset), 90);
	*TP_FIELD(x, wren_wire_data, opcode) = WREN_WIRE_OP_SEND;
	len = tp_build(&tp, f, &h, sizeof(struct wren_wire_data), 10);
	CHECK_EQ(len, WREN_WIRE_DATA_HDRS_LEN + 10);
	CHECK_EQ(tp_parse(f, len, &p), 0);
	CHECK_EQ(p.src_ip, cfg.ipv4);
	CHECK_EQ(p.dst_ip, h.dst_ip);
	CHECK_EQ(p.sport, 0xc123);
	CHECK_EQ(p.type, WREN_WIRE_DATA);
	CHECK_EQ(p.flags, WREN_WIRE_F_SYN);
	CHECK_EQ(p.sf, 3);
	CHECK_EQ(p.epoch, 0xdeadbeef);
	CHECK_EQ(p.psn, 0xfffffffe);
	CHECK_EQ(p.bsn, 0xfffffff0);
	CHECK_EQ(p.ts, 12345);
	CHECK_EQ(p.mbase, 9);
	CHECK_EQ(p.data.msn, 42);
	CHECK_EQ(p.data.offset, 90);
	CHECK_EQ(p.data.len, 10);

	/* Every truncation, a bad checksum, a bad version, a runt payload. */
	for (size_t l = 0; l < len; l++)
		CHECK(tp_parse(f, l, &p) != 0);
	f[WREN_WIRE_ETH_LEN + 8] ^= 1;		/* TTL: checksum breaks */
	CHECK(tp_parse(f, len, &p) != 0);
	f[WREN_WIRE_ETH_LEN + 8] ^= 1;
	f[WREN_WIRE_L2L4_LEN] ^= 0x30;		/* version 2 */
	CHECK(tp_parse(f, len, &p) != 0);
	f[WREN_WIRE_L2L4_LEN] ^= 0x30;
	wren_wire_put32(TP_FIELD(x, wren_wire_data, offset), 95);	/* past msg_len */
	CHECK(tp_parse(f, len, &p) != 0);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, offset), 90);
	CHECK_EQ(tp_parse(f, len + 4, &p), 0);	/* Ethernet padding is fine */
}

static void test_clean_delivery(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 1);
	CHECK(net_start(net));
	send_random(net, 200, 20000, false);
	CHECK(net_send(net, 0, 1, 0, false, 0, 0) >= 0);	/* empty */
	net_run(net, 50 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK_EQ(st.retx_timeout + st.retx_fast, 0);
	/* Every ask for an answer was answered: no path was left. */
	CHECK_EQ(st.path_changes, 0);
	CHECK_EQ(st.ctx_created, 1);
	CHECK_EQ(st.tx_msgs, net->nmsgs);
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_msgs, net->nmsgs);
	CHECK_EQ(st.rx_dup_pkts, 0);
	net_free(net);
}

static enum net_verdict lossy(struct net *net, struct net_filter_ctx *f)
{
	unsigned int pct = *(unsigned int *)net->filter_arg;

	f->extra_delay = net_rand(net) % 3000;	/* reorders too */
	if (net_rand(net) % 1000 < pct * 10)
		return NET_DROP;
	if (net_rand(net) % 1000 < 5)
		return NET_DUP;
	return NET_PASS;
}

static void test_loss_reorder_dup(void)
{
	static unsigned int pct = 5;
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st0, st1;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 2);
	net->filter = lossy;
	net->filter_arg = &pct;
	CHECK(net_start(net));
	send_random(net, 300, 30000, false);
	net_run(net, 500 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st0);
	net_stats(net, 1, &st1);
	CHECK(st0.retx_fast > 0);
	CHECK(st1.rx_ooo_pkts > 0);
	CHECK(st1.rx_dup_pkts + st1.retx_spurious > 0);
	net_free(net);
}

static void test_psn_wrap(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 3);
	/* Every random value, the first PSN among them, is near 2^32. */
	net->fixed_random = 0xffffffd0;
	CHECK(net_start(net));
	send_random(net, 100, 8000, true);
	net_run(net, 50 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK(st.tx_data_pkts > 0x30);		/* it did cross zero */
	for (unsigned int i = 1; i < net->nmsgs; i++)
		CHECK(net->msgs[i].delivered_seq > net->msgs[i - 1].delivered_seq);
	net_free(net);
}

static enum net_verdict reverse_some(struct net *net, struct net_filter_ctx *f)
{
	/* Hold every third data packet back a long way. */
	if (f->type == WREN_WIRE_DATA && f->psn % 3 == 0)
		f->extra_delay = 20000;
	(void)net;
	return NET_PASS;
}

static void test_ordered_delivery(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	bool out_of_order = false;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 4);
	net->filter = reverse_some;
	CHECK(net_start(net));
	send_random(net, 100, 2000, true);
	net_run(net, 50 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	for (unsigned int i = 1; i < net->nmsgs; i++)
		CHECK(net->msgs[i].delivered_seq > net->msgs[i - 1].delivered_seq);
	net_stats(net, 1, &st);
	CHECK(st.rx_ooo_pkts > 0);
	net_free(net);

	/* Unordered messages on the same wire do overtake each other. */
	net = net_new(2, &cfg, 4);
	net->filter = reverse_some;
	CHECK(net_start(net));
	send_random(net, 100, 2000, false);
	net_run(net, 50 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	for (unsigned int i = 1; i < net->nmsgs; i++)
		out_of_order |= net->msgs[i].delivered_seq <
				net->msgs[i - 1].delivered_seq;
	CHECK(out_of_order);
	net_free(net);
}

static uint8_t *captured;
static uint32_t captured_len;

static enum net_verdict capture_first_data(struct net *net,
					   struct net_filter_ctx *f)
{
	(void)net;
	if (f->type == WREN_WIRE_DATA && !captured) {
		captured = malloc(f->len);
		memcpy(captured, f->frame, f->len);
		captured_len = f->len;
	}
	return NET_PASS;
}

static void test_stale_and_duplicate(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int m;

	cfg_default(&cfg);
	cfg.idle_ns = 2 * MS;
	cfg.mpl_ns = 20 * MS;
	net = net_new(2, &cfg, 5);
	net->filter = capture_first_data;
	captured = NULL;
	CHECK(net_start(net));
	m = net_send(net, 0, 1, 3000, false, 0, WREN_TP_MODE_OPTIMISTIC);
	net_run(net, 1 * MS);
	CHECK_EQ(net->msgs[m].delivered, 1);

	/* A late duplicate of a delivered packet is not delivered again. */
	net_inject(net, 1, captured, captured_len);
	net_run(net, 1 * MS / 10);
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_dup_pkts, 1);

	/* Idle: closed; within the MPL its SYN packets cannot reopen it. */
	net_run(net, 5 * MS);
	net_stats(net, 0, &st);
	CHECK_EQ(st.ctx_evicted, 1);
	CHECK_EQ(wren_tp_peer_memory(net->node[0].tp, net_ip(1)), 0);
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_ctx_closed, 1);
	net_inject(net, 1, captured, captured_len);
	net_run(net, 1 * MS / 10);
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_drop_stale, 1);

	/* A new incarnation opens; the old one's packets stay stale. */
	m = net_send(net, 0, 1, 3000, false, 0, WREN_TP_MODE_OPTIMISTIC);
	net_run(net, 1 * MS);
	CHECK_EQ(net->msgs[m].delivered, 1);
	net_inject(net, 1, captured, captured_len);
	net_run(net, 1 * MS / 10);
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_drop_stale, 2);
	CHECK_EQ(st.rx_msgs, 2);
	CHECK_EQ(net->msgs[0].delivered, 1);
	free(captured);
	captured = NULL;
	net_free(net);
}

static enum net_verdict late_close(struct net *net, struct net_filter_ctx *f)
{
	(void)net;
	if (f->type == WREN_WIRE_CLOSE)
		f->extra_delay = 50000;
	return NET_PASS;
}

static void test_close_overtaken(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int b, c;

	/* CLOSE of one incarnation arrives after the next one opened. */
	cfg_default(&cfg);
	cfg.idle_ns = 100000;
	net = net_new(2, &cfg, 18);
	net->filter = late_close;
	CHECK(net_start(net));
	CHECK(net_send(net, 0, 1, 3000, false, 0, 0) >= 0);
	net_run(net, 150000);		/* closed at ~110 us, CLOSE late */
	net_stats(net, 0, &st);
	CHECK_EQ(st.ctx_evicted, 1);
	b = net_send(net, 0, 1, 3000, false, 0, 0);
	net_run(net, 5000);
	CHECK_EQ(net->msgs[b].delivered, 1);
	net_run(net, 20000);		/* the old CLOSE lands */
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_drop_stale, 1);
	CHECK_EQ(st.rx_ctx_closed, 0);
	/* The new incarnation is intact: more traffic flows in it. */
	c = net_send(net, 0, 1, 3000, false, 0, 0);
	net_run(net, 10000);
	CHECK_EQ(net->msgs[c].delivered, 1);
	CHECK_EQ(net_msgs_ok(net), 3);
	net_stats(net, 0, &st);
	CHECK_EQ(st.ctx_created, 2);
	CHECK_EQ(st.ctx_reestablished, 0);
	net_free(net);
}

static void test_eviction_under_pressure(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;

	cfg_default(&cfg);
	cfg.max_ctx = 2;
	net = net_new(6, &cfg, 6);
	CHECK(net_start(net));
	/* Round robin over five targets with room for two contexts. */
	for (int round = 0; round < 20; round++)
		for (int to = 1; to < 6; to++)
			CHECK(net_send(net, 0, to, net_rand(net) % 5000, false,
				       0, WREN_TP_MODE_OPTIMISTIC) >= 0);
	net_run(net, 100 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK(st.ctx_evicted > 0);
	CHECK(st.ctx_created > 5);
	/* The sender holds at most its two contexts, and nothing to receive. */
	CHECK(wren_tp_ctx_memory(net->node[0].tp) <=
	      2 * (sizeof(struct tp_ctx) + tp_win_bytes(net->node[0].tp)));
	net_free(net);
}

static unsigned int connects;

static enum net_verdict count_connects(struct net *net,
				       struct net_filter_ctx *f)
{
	(void)net;
	connects += f->type == WREN_WIRE_CONNECT;
	return NET_PASS;
}

/* One small message from node 0 to each of nodes 1..@targets, delivered. */
static void table_round(struct net *net, int targets)
{
	for (int to = 1; to <= targets; to++)
		CHECK(net_send(net, 0, to, 1 + net_rand(net) % 3000, false, 0,
			       WREN_TP_MODE_HANDSHAKE) >= 0);
	net_run(net, MS / 10);
}

static void test_table_spill_restore(void)
{
	struct wren_tp_config cfg;
	struct wren_tp_stats st, rx;
	struct net *net;

	cfg_default(&cfg);
	cfg.max_ctx = 2;
	net = net_new(6, &cfg, 21);
	CHECK(net_start(net));
	CHECK_EQ(net_set_table(net, 0, 64), 0);
	net->filter = count_connects;
	connects = 0;
	/* Five targets, room for two: each round spills three and restores. */
	for (int round = 0; round < 6; round++)
		table_round(net, 5);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK_EQ(st.ctx_created, 5);
	CHECK_EQ(connects, 5);
	CHECK(st.ctx_spilled >= 5 * 3);
	/* Three are still out there. */
	CHECK_EQ(st.ctx_restored, st.ctx_spilled - 3);
	CHECK_EQ(st.ctx_evicted, 0);
	CHECK_EQ(st.ctx_reestablished, 0);
	CHECK_EQ(st.tc_errors, 0);
	for (int to = 1; to <= 5; to++) {
		net_stats(net, to, &rx);
		CHECK_EQ(rx.rx_ctx_created, 1);
	}
	/* The cache still holds two contexts; the table the other three. */
	CHECK(wren_tp_ctx_memory(net->node[0].tp) <=
	      2 * sizeof(struct tp_ctx) + 2 * tp_win_bytes(net->node[0].tp));
	unsigned int spilled = 0;

	for (uint32_t i = 0; i < 64; i++)
		spilled += net->node[0].table[i].state == WREN_TP_REC_SPILLED;
	CHECK_EQ(spilled, 3);

	/* Long idle: a spilled record is stale, the next message reconnects. */
	net_run(net, 20 * MS);
	table_round(net, 5);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK_EQ(st.ctx_created, 10);
	net_free(net);
}

static void test_table_hostile(void)
{
	struct wren_tp_config cfg;
	struct wren_tp_stats st;
	struct net *net;
	struct net_node *nd;
	unsigned int failed = 0, before;

	cfg_default(&cfg);
	cfg.max_ctx = 2;
	net = net_new(6, &cfg, 22);
	CHECK(net_start(net));
	nd = &net->node[0];
	CHECK_EQ(wren_tp_set_store(nd->tp, NULL, NULL, 64), -EINVAL);
	CHECK_EQ(net_set_table(net, 0, 48), -EINVAL);
	CHECK_EQ(net_set_table(net, 0, 1), -EINVAL);
	CHECK_EQ(net_set_table(net, 0, 64), 0);
	CHECK_EQ(net_set_table(net, 0, 64), -EBUSY);
	table_round(net, 5);
	table_round(net, 5);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);

	/*
	 * The host scribbles over the spilled records: a malformed one, one
	 * with a wrong session, one with a wrong epoch.  Each message still
	 * arrives once.
	 */
	unsigned int n = 0;

	for (uint32_t i = 0; i < 64; i++) {
		struct wren_tp_ctx_rec *r = &nd->table[i];

		if (r->state != WREN_TP_REC_SPILLED)
			continue;
		if (n == 0)
			r->state = 7;
		else if (n == 1)
			r->session ^= 0x5a5a;
		else
			r->epoch += 1000;
		n++;
	}
	CHECK_EQ(n, 3);
	table_round(net, 5);
	net_run(net, 5 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK_EQ(st.tc_errors, 1);
	/*
	 * The malformed record is free: a new context.  The wrong epoch
	 * makes the target ask for a new incarnation.  The session id only
	 * names the target's side, which knows the context by its id and
	 * epoch: scribbling it changes nothing.
	 */
	CHECK_EQ(st.ctx_created, 6);
	CHECK_EQ(st.ctx_reestablished, 1);

	/* An unreadable table fails messages that need it, then recovers. */
	nd->table_unreadable = true;
	before = net->nmsgs;
	table_round(net, 5);
	net_run(net, 5 * MS);
	for (unsigned int i = before; i < net->nmsgs; i++) {
		CHECK_EQ(net->msgs[i].done_calls, 1);
		if (net->msgs[i].done_status == WREN_TP_LOCAL_ERROR) {
			CHECK_EQ(net->msgs[i].delivered, 0);
			failed++;
		} else {
			CHECK_EQ(net->msgs[i].delivered, 1);
		}
	}
	CHECK(failed >= 3);
	nd->table_unreadable = false;
	before = net->nmsgs;
	table_round(net, 5);
	for (unsigned int i = before; i < net->nmsgs; i++)
		CHECK_EQ(net->msgs[i].delivered, 1);
	net_free(net);
}

static unsigned int max_ack_words;

static enum net_verdict drop_first_data(struct net *net,
					struct net_filter_ctx *f)
{
	bool *dropped = net->filter_arg;

	if (f->type == WREN_WIRE_ACK) {
		const uint8_t *x = f->frame + WREN_WIRE_L2L4_LEN +
				   sizeof(struct wren_wire_hdr);
		unsigned int words = *TP_FIELD(x, wren_wire_ack, bitmap_words);

		if (words > max_ack_words)
			max_ack_words = words;
	}
	/* The resent base arrives after everything else. */
	if (f->flags & WREN_WIRE_F_RETX)
		f->extra_delay = 50000;
	if (f->type != WREN_WIRE_DATA || *dropped)
		return NET_PASS;
	*dropped = true;
	return NET_DROP;
}

static void test_full_bitmap(void)
{
	static bool dropped;
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int m;

	/* A hole at the base with a whole 512-packet window behind it. */
	cfg_default(&cfg);
	cfg.window = 512;
	cfg.subflows = 1;
	cfg.cc_init_cwnd = cfg.cc_max_cwnd = 4 * 1024 * 1024;
	net = net_new(2, &cfg, 17);
	dropped = false;
	max_ack_words = 0;
	net->filter = drop_first_data;
	net->filter_arg = &dropped;
	net->frame_ns = 10;
	CHECK(net_start(net));
	m = net_send(net, 0, 1, 511 * 1024, false, 0, 0);
	net_run(net, 10 * MS);
	CHECK_EQ(net_msgs_ok(net), 1);
	CHECK_EQ(net->msgs[m].done_status, WREN_TP_OK);
	net_stats(net, 0, &st);
	CHECK(st.retx_fast >= 1);
	CHECK_EQ(st.retx_timeout, 0);
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_ooo_pkts, 510);
	CHECK_EQ(st.rx_drop_window, 0);
	CHECK_EQ(max_ack_words, WREN_WIRE_ACK_MAX_WORDS);
	net_free(net);
}

/*
 * Packets that arrive ahead of a hole are acknowledged as in-order ones
 * are, every ack_every packets or after ack_delay_ns: on many paths most
 * arrivals are out of order, and an ACK for each loaded the reverse
 * links.  A packet that arrives late, below the highest received (the
 * resent base here), is acknowledged at once.
 */
static void test_ack_out_of_order(void)
{
	static bool dropped;
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int m;

	cfg_default(&cfg);
	cfg.window = 512;
	cfg.subflows = 1;
	cfg.cc_init_cwnd = cfg.cc_max_cwnd = 4 * 1024 * 1024;
	net = net_new(2, &cfg, 17);
	dropped = false;
	net->filter = drop_first_data;
	net->filter_arg = &dropped;
	net->frame_ns = 10;
	CHECK(net_start(net));
	m = net_send(net, 0, 1, 255 * 1024, false, 0, 0);
	net_run(net, 10 * MS);
	CHECK_EQ(net_msgs_ok(net), 1);
	CHECK_EQ(net->msgs[m].done_status, WREN_TP_OK);
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_ooo_pkts, 254);
	/* One per ack_every (4) of the 254, and the late base's own. */
	CHECK(st.tx_acks <= 254 / 4 + 4);
	net_stats(net, 0, &st);
	CHECK(st.retx_fast >= 1);
	net_free(net);
}

static void test_handshake_mode(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	int opt, hs;
	uint64_t t0, t_opt, t_hs;

	cfg_default(&cfg);
	net = net_new(3, &cfg, 7);
	CHECK(net_start(net));
	t0 = net->now;
	opt = net_send(net, 0, 1, 100, false, 0, WREN_TP_MODE_OPTIMISTIC);
	hs = net_send(net, 0, 2, 100, false, 0, WREN_TP_MODE_HANDSHAKE);
	net_run(net, 1 * MS);
	CHECK_EQ(net_msgs_ok(net), 2);
	t_opt = net->msgs[opt].delivered_at - t0;
	t_hs = net->msgs[hs].delivered_at - t0;
	/* The handshake costs one round trip (two wire delays) more. */
	CHECK(t_opt < net->delay_ns + 1000);
	CHECK(t_hs >= 3 * net->delay_ns);
	net_free(net);
}

static enum net_verdict black_hole(struct net *net, struct net_filter_ctx *f)
{
	(void)f;
	return *(bool *)net->filter_arg ? NET_DROP : NET_PASS;
}

static void test_unreachable_unresponsive(void)
{
	static bool hole;
	struct wren_tp_config cfg;
	struct net *net;
	int a, b;

	cfg_default(&cfg);
	cfg.max_rto_ns = 1 * MS;
	cfg.max_retries = 3;
	net = net_new(3, &cfg, 8);
	net->filter = black_hole;
	net->filter_arg = &hole;
	CHECK(net_start(net));
	a = net_send(net, 0, 1, 500, false, 0, WREN_TP_MODE_OPTIMISTIC);
	net_run(net, 1 * MS);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_OK);
	hole = true;
	a = net_send(net, 0, 1, 500, false, 0, WREN_TP_MODE_OPTIMISTIC);
	b = net_send(net, 0, 2, 500, false, 0, WREN_TP_MODE_HANDSHAKE);
	net_run(net, 100 * MS);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_REMOTE_UNRESPONSIVE);
	CHECK_EQ(net->msgs[b].done_status, WREN_TP_REMOTE_UNREACHABLE);
	CHECK_EQ(net->msgs[a].done_calls, 1);
	CHECK_EQ(net->msgs[b].done_calls, 1);
	/* And once the wire is back, new messages get through. */
	hole = false;
	a = net_send(net, 0, 1, 500, false, 0, WREN_TP_MODE_OPTIMISTIC);
	net_run(net, 10 * MS);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_OK);
	net_free(net);
}

static enum net_verdict dead_path(struct net *net, struct net_filter_ctx *f)
{
	uint16_t dead = *(uint16_t *)net->filter_arg;

	/* One entropy value leads into a black hole. */
	if (f->type == WREN_WIRE_DATA && f->from == 0 && !dead)
		*(uint16_t *)net->filter_arg = dead = f->sport;
	return f->sport == dead && f->from == 0 ? NET_DROP : NET_PASS;
}

static void test_subflow_timer_repath(void)
{
	static uint16_t dead;
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 9);
	dead = 0;
	net->filter = dead_path;
	net->filter_arg = &dead;
	CHECK(net_start(net));
	send_random(net, 200, 8000, false);
	net_run(net, 100 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK(st.retx_timeout > 0);
	CHECK(st.path_changes > 0);
	CHECK_EQ(st.ctx_failed, 0);
	net_free(net);
}

/*
 * A path that dies mid-message, after its sub-flow has measured its round
 * trip: packets sent later on the other sub-flows come back, so its
 * packets are overdue after their own round trip, not after min_rto_ns
 * (here 200 us, far above the few microseconds of this wire).
 */
struct late_death {
	unsigned int after;	/* DATA frames let through first */
	uint16_t dead;		/* then this entropy's DATA is lost */
};

static enum net_verdict path_dies(struct net *net, struct net_filter_ctx *f)
{
	struct late_death *ld = net->filter_arg;

	if (f->type != WREN_WIRE_DATA || f->from != 0)
		return NET_PASS;
	if (ld->after && !--ld->after)
		ld->dead = f->sport;
	return !ld->after && f->sport == ld->dead ? NET_DROP : NET_PASS;
}

static void test_overtaken_path(void)
{
	static struct late_death ld = { .after = 400 };
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	uint64_t t0;
	int a;

	cfg_default(&cfg);
	cfg.min_rto_ns = 200000;
	net = net_new(2, &cfg, 23);
	net->filter = path_dies;
	net->filter_arg = &ld;
	CHECK(net_start(net));
	t0 = net->now;
	a = net_send(net, 0, 1, 1000000, false, 0, 0);
	net_run(net, 100 * MS);
	CHECK_EQ(net->msgs[a].delivered, 1);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_OK);
	net_stats(net, 0, &st);
	CHECK(net->frames_dropped > 0);
	CHECK(st.path_changes > 0);
	/*
	 * About 1000 frames of 100 ns: 100 us on the wire (105.7 us);
	 * waiting for the RTO instead took 299.2 us.
	 */
	CHECK(net->msgs[a].delivered_at - t0 < 150000);
	net_free(net);
}

/*
 * Switches that serve precedence strictly (cfg.prio_short) hold a long
 * message's DATA (precedence 2 here) 30 us behind the short messages' (3)
 * that are posted after it and overtake it.  That is no sign that its
 * path died: nothing times out, nothing is sent twice, no path is left.
 */
static enum net_verdict slow_low_prec(struct net *net,
				      struct net_filter_ctx *f)
{
	(void)net;
	if (f->from == 0 && f->type == WREN_WIRE_DATA &&
	    f->frame[WREN_WIRE_IP_TOS] >> 5 < 3)
		f->extra_delay = 30000;
	return NET_PASS;
}

static void test_overtaken_by_urgent(void)
{
	struct wren_tp_config cfg;
	struct wren_tp_stats st0, st1;
	struct net *net;
	int i;

	cfg_default(&cfg);
	cfg.prio_short = 4096;
	cfg.min_rto_ns = 500000;
	net = net_new(2, &cfg, 61);
	net->filter = slow_low_prec;
	CHECK(net_start(net));
	/* Short messages first: the sub-flows learn a 4 us round trip. */
	for (i = 0; i < 16; i++)
		CHECK(net_send(net, 0, 1, 1000, false, 0, 0) >= 0);
	net_run(net, 50000);
	CHECK(net_send(net, 0, 1, 48 * 1024, false, 0, 0) >= 0);
	for (i = 0; i < 20; i++) {
		net_run(net, 2000);
		CHECK(net_send(net, 0, 1, 1000, false, 0, 0) >= 0);
	}
	net_run(net, 10 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st0);
	net_stats(net, 1, &st1);
	CHECK_EQ(st0.retx_timeout, 0);
	CHECK_EQ(st1.retx_spurious, 0);
	CHECK_EQ(st0.path_changes, 0);
	net_free(net);
}

/*
 * The first path taken delivers, but nothing comes back along it: ACKs
 * and GRANTs on that entropy are lost.  Its packets are acknowledged by
 * the other sub-flow's ACKs, so no timeout fires for them; only its
 * unanswered ask for an answer shows it, and the sub-flow moves before
 * the message's end, whose last ACK would otherwise be lost there.
 */
static enum net_verdict dark_way_back(struct net *net, struct net_filter_ctx *f)
{
	uint16_t *dark = net->filter_arg;

	if (f->type == WREN_WIRE_DATA && f->from == 0 && !*dark)
		*dark = f->sport;
	return f->from == 1 && f->sport == *dark ? NET_DROP : NET_PASS;
}

static void test_way_back_dark(void)
{
	static uint16_t dark;
	struct wren_tp_config cfg;
	struct wren_tp_stats st;
	struct net *net;
	struct tp_ctx *c;

	cfg_default(&cfg);
	cfg.subflows = 2;
	net = net_new(2, &cfg, 43);
	dark = 0;
	net->filter = dark_way_back;
	net->filter_arg = &dark;
	CHECK(net_start(net));
	net_send(net, 0, 1, 1000000, false, 0, 0);
	net_run(net, 30000);
	c = tp_ctx_find(net->node[0].tp, net_ip(1), 0);
	CHECK(c && c->sf);
	if (c && c->sf)
		CHECK(c->sf[0].entropy != dark && c->sf[1].entropy != dark);
	net_stats(net, 0, &st);
	CHECK(st.path_changes >= 1);
	CHECK_EQ(st.retx_timeout, 0);
	net_run(net, 10 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_free(net);
}

/*
 * Three sub-flows, and the way back works only on the paths of sub-flow
 * 0 (whichever it moves to): ACKs that echo the others' packets are
 * lost, as is any ACK on a path sub-flow 0 never took, and the ACKs that
 * return cover the others' packets.  A message's last packet needs an
 * answer of its own.
 */
struct one_way_back {
	uint16_t good[64];	/* the paths back that work */
	unsigned int ngood;
	bool drop_last;		/* lose the first copy of each last packet
				 * sent elsewhere */
	unsigned int dropped;
};

static bool way_back(const struct one_way_back *ow, uint16_t sport)
{
	for (unsigned int i = 0; i < ow->ngood; i++)
		if (ow->good[i] == sport)
			return true;
	return false;
}

static enum net_verdict one_way_back(struct net *net, struct net_filter_ctx *f)
{
	struct one_way_back *ow = net->filter_arg;
	uint8_t sf = f->frame[WREN_WIRE_HDR + 2];

	if (f->type == WREN_WIRE_DATA && f->from == 0) {
		if (sf == 0 && !way_back(ow, f->sport) && ow->ngood < 64)
			ow->good[ow->ngood++] = f->sport;
		if (ow->drop_last && sf != 0 &&
		    f->flags & WREN_WIRE_F_ACK_REQ &&
		    !(f->flags & WREN_WIRE_F_RETX)) {
			ow->dropped++;
			return NET_DROP;
		}
		return NET_PASS;
	}
	if (f->type == WREN_WIRE_ACK && f->from == 1 && !way_back(ow, f->sport))
		return NET_DROP;
	return NET_PASS;
}

/* Ten messages one after the other: the slowest one's time. */
static uint64_t one_way_back_run(uint64_t seed)
{
	static struct one_way_back ow;
	struct wren_tp_config cfg;
	struct net *net;
	uint64_t worst = 0;

	memset(&ow, 0, sizeof(ow));
	cfg_default(&cfg);
	cfg.subflows = 3;
	net = net_new(2, &cfg, seed);
	net->filter = one_way_back;
	net->filter_arg = &ow;
	CHECK(net_start(net));
	for (int i = 0; i < 10; i++) {
		uint64_t t0 = net->now;
		int a = net_send(net, 0, 1, 20000, false, 0, 0);

		while (net->msgs[a].done_status < 0 &&
		       net->now - t0 < 10 * MS)
			net_run(net, 1000);
		CHECK_EQ(net->msgs[a].done_status, WREN_TP_OK);
		CHECK_EQ(net->msgs[a].delivered, 1);
		if (net->now - t0 > worst)
			worst = net->now - t0;
	}
	net_free(net);
	return worst;
}

/*
 * A last packet sent on sub-flow 1 or 2 arrives, but its answer does
 * not: the copy, resent on sub-flow 0, is a duplicate, and answered only
 * on a fresh path it would never be heard (every message but the first
 * stalled until given up); answered on its own path too, each message
 * ends within a few timeouts (at most 167 us here).
 */
static void test_dup_answered_on_its_path(void)
{
	CHECK(one_way_back_run(37) < 1 * MS);
}

/*
 * On the same network, mid-message: only sub-flow 0 has seen its round
 * trip, so a packet lost on 1 is resent on 0 whatever room 2 has, and
 * one lost on 0 goes where room says, no other having proven anything.
 */
static void test_retx_proven_path(void)
{
	static struct one_way_back ow;
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp *tp;
	struct tp_ctx *c;

	memset(&ow, 0, sizeof(ow));
	cfg_default(&cfg);
	cfg.subflows = 3;
	net = net_new(2, &cfg, 41);
	net->filter = one_way_back;
	net->filter_arg = &ow;
	CHECK(net_start(net));
	net_send(net, 0, 1, 1000000, false, 0, 0);
	net_run(net, 30000);
	tp = net->node[0].tp;
	c = tp_ctx_find(tp, net_ip(1), 0);
	CHECK(c && c->sf);
	if (!c || !c->sf) {
		net_free(net);
		return;
	}
	CHECK(c->sf[0].echo_ns > 0);
	CHECK_EQ(c->sf[1].echo_ns, 0);
	CHECK_EQ(c->sf[2].echo_ns, 0);
	CHECK_EQ(tp_proven_subflow(tp, c, 1, 2), 0);
	CHECK_EQ(tp_proven_subflow(tp, c, 0, 2), 2);
	net_run(net, 100 * MS);
	net_free(net);
}

/*
 * Only sub-flow 0's paths lead to the target: sub-flows 1 and 2 lose
 * every packet on every path they move to, while the target answers
 * sub-flow 0's all along.  Their timeouts stay one RTO: doubling them,
 * as for a target gone silent, left each packet they took near the end
 * waiting 2^k timeouts.
 */
static enum net_verdict only_sf0(struct net *net, struct net_filter_ctx *f)
{
	(void)net;
	return f->type == WREN_WIRE_DATA && f->from == 0 &&
	       f->frame[WREN_WIRE_HDR + 2] != 0 ? NET_DROP : NET_PASS;
}

static void test_alive_no_backoff(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	uint64_t t0;
	int a;

	cfg_default(&cfg);
	cfg.subflows = 3;
	net = net_new(2, &cfg, 43);
	net->filter = only_sf0;
	CHECK(net_start(net));
	t0 = net->now;
	a = net_send(net, 0, 1, 2000000, false, 0, 0);
	while (net->msgs[a].done_status < 0 && net->now - t0 < 100 * MS)
		net_run(net, 1000);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_OK);
	net_stats(net, 0, &st);
	CHECK(st.path_changes >= 4);
	/* 2 MB over sub-flow 0: 493 us; with doubled timeouts 693 us. */
	CHECK(net->now - t0 < 600000);
	net_free(net);
}

/*
 * The target stops reading for a while (a host that is descheduled, a
 * full queue in front of it) and then takes every frame in the order they
 * came: the initiator times out and resends on other sub-flows, and then
 * the originals are acknowledged.  An acknowledgement of a resent packet
 * cannot say which copy arrived, so it must not count as one of the
 * newer sub-flow's: packets sent there before the copy and still queued
 * behind the originals are not lost.
 */
struct stall {
	unsigned int after;	/* DATA frames let through first */
	uint64_t len;		/* then nothing arrives for so long */
	uint64_t next;		/* and then one frame a microsecond */
};

static enum net_verdict stall_target(struct net *net, struct net_filter_ctx *f)
{
	struct stall *st = net->filter_arg;

	if (f->type != WREN_WIRE_DATA)
		return NET_PASS;
	if (st->after && !--st->after)
		st->next = net->now + st->len;
	if (net->now < st->next) {
		f->extra_delay = st->next - net->now;
		st->next += 1000;
	}
	return NET_PASS;
}

static void test_stall_no_false_loss(void)
{
	static struct stall stall = { .after = 200, .len = 30000 };
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st0, st1;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 21);
	net->filter = stall_target;
	net->filter_arg = &stall;
	CHECK(net_start(net));
	send_random(net, 400, 20000, false);
	net_run(net, 100 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st0);
	net_stats(net, 1, &st1);
	CHECK(st0.retx_timeout > 0);
	CHECK_EQ(st0.retx_fast, 0);
	/* Nothing was lost: every copy sent again arrived twice. */
	CHECK_EQ(st1.retx_spurious, st0.retx_timeout);
	net_free(net);
}

static void test_grants(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st0, st1;

	cfg_default(&cfg);
	cfg.grant_threshold = 16384;
	cfg.grant_window = 32768;
	cfg.grant_chunk = 8192;
	net = net_new(4, &cfg, 10);
	CHECK(net_start(net));
	/* Three initiators push large messages into one target. */
	for (int i = 0; i < 10; i++)
		for (int from = 1; from < 4; from++)
			CHECK(net_send(net, from, 0, 16384 + net_rand(net) %
				       100000, false, 0, 0) >= 0);
	net_run(net, 100 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st0);
	net_stats(net, 1, &st1);
	CHECK(st0.tx_grants > 0);
	CHECK(st1.rx_grants > 0);
	CHECK_EQ(st1.retx_timeout, 0);
	CHECK_EQ(net->node[0].tp->granted_out, 0);
	net_free(net);
}

/*
 * A message granted alone is granted in whole chunks; a chunk that is
 * not a whole number of packets must not hold its grants back until
 * nothing is outstanding (stop and go): it takes about as long as with
 * a chunk of whole packets.
 */
static void test_grant_lone_chunks(void)
{
	uint64_t at[2], t0;

	for (int i = 0; i < 2; i++) {
		struct wren_tp_config cfg;
		struct wren_tp_stats st;
		struct net *net;

		cfg_default(&cfg);
		cfg.grant_threshold = 16384;
		cfg.grant_window = 65536;
		cfg.grant_chunk = i ? 10000 : 10240;
		net = net_new(2, &cfg, 13);
		CHECK(net_start(net));
		CHECK(net_send(net, 1, 0, 1 << 20, false, 0, 0) >= 0);
		t0 = net->now;
		net_run(net, 100 * MS);
		CHECK_EQ(net_msgs_ok(net), 1);
		net_stats(net, 0, &st);
		/*
		 * Whole chunks: far fewer GRANTs than DATA packets (each
		 * chunk's grant goes on three paths).
		 */
		CHECK(st.tx_grants < st.rx_data_pkts / 2);
		at[i] = net->msgs[0].delivered_at - t0;
		net_free(net);
	}
	CHECK(at[1] < at[0] + at[0] / 5);
}

static enum net_verdict trim_some(struct net *net, struct net_filter_ctx *f)
{
	return f->type == WREN_WIRE_DATA && net_rand(net) % 10 == 0 ?
	       NET_TRIM : NET_PASS;
}

static void test_trimmed(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 11);
	net->filter = trim_some;
	CHECK(net_start(net));
	send_random(net, 100, 10000, false);
	net_run(net, 50 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK(st.retx_nack > 0);
	CHECK_EQ(st.retx_timeout, 0);
	net_free(net);
}

/* What the frames of test_priorities() showed. */
struct prio_seen {
	unsigned int n;			/* DATA frames node 0 sent */
	unsigned int first[4], last[4];	/* their order, by target */
	unsigned int prec[4][8];	/* DATA frames by target, precedence */
	unsigned int ctrl_prec[8];	/* frames to node 0, precedence */
};

static enum net_verdict see_prio(struct net *net, struct net_filter_ctx *f)
{
	struct prio_seen *ps = net->filter_arg;
	unsigned int prec = f->frame[WREN_WIRE_IP_TOS] >> 5;

	if (f->to == 0) {
		ps->ctrl_prec[prec]++;
	} else if (f->from == 0 && f->type == WREN_WIRE_DATA) {
		ps->n++;
		if (!ps->first[f->to])
			ps->first[f->to] = ps->n;
		ps->last[f->to] = ps->n;
		ps->prec[f->to][prec]++;
	}
	return NET_PASS;
}

/*
 * cfg.prio_short: a short message's DATA carries precedence 3 and leaves
 * before a longer unscheduled message posted ahead of it (2), a granted
 * message's GRANT_REQ goes at 3 and its data at 1, the target's answers
 * at 4; without it every frame carries 0.
 */
static void test_priorities(void)
{
	struct wren_tp_config cfg;
	struct prio_seen ps;
	struct net *net;

	for (int on = 0; on < 2; on++) {
		cfg_default(&cfg);
		cfg.grant_threshold = 16384;
		cfg.prio_short = on ? 4096 : 0;
		memset(&ps, 0, sizeof(ps));
		net = net_new(4, &cfg, 12);
		net->filter = see_prio;
		net->filter_arg = &ps;
		CHECK(net_start(net));
		CHECK(net_send(net, 0, 1, 12000, false, 0, 0) >= 0);
		CHECK(net_send(net, 0, 2, 60000, false, 0, 0) >= 0);
		CHECK(net_send(net, 0, 3, 2000, false, 0, 0) >= 0);
		net_run(net, 10 * MS);
		CHECK_EQ(net_msgs_ok(net), 3);
		if (on) {
			CHECK_EQ(ps.prec[1][2], 12);
			CHECK_EQ(ps.prec[2][3], 1);
			CHECK(ps.prec[2][1] >= 59);
			CHECK_EQ(ps.prec[3][3], 2);
			CHECK_EQ(ps.ctrl_prec[0], 0);
			CHECK(ps.ctrl_prec[4] > 0);
			/* The short message went first, beside the request. */
			CHECK(ps.last[3] < ps.first[1]);
		} else {
			CHECK_EQ(ps.prec[1][0] + ps.prec[2][0] + ps.prec[3][0],
				 ps.n);
			CHECK(ps.ctrl_prec[0] > 0);
			CHECK_EQ(ps.ctrl_prec[0], ps.ctrl_prec[0] +
				 ps.ctrl_prec[4]);
			CHECK(ps.first[1] < ps.first[3]);
		}
		net_free(net);
	}
}

/*
 * cfg.prio_short: of two long (granted) messages to two targets, the one
 * with fewer bytes left goes out first, whole, rather than in turn with
 * the other: one finishes early instead of both late.
 */
static void test_tx_shortest_first(void)
{
	struct wren_tp_config cfg;
	struct prio_seen ps;
	struct net *net;
	unsigned int n2 = 0;

	cfg_default(&cfg);
	cfg.grant_threshold = 16384;
	cfg.prio_short = 4096;
	memset(&ps, 0, sizeof(ps));
	net = net_new(3, &cfg, 59);
	net->filter = see_prio;
	net->filter_arg = &ps;
	CHECK(net_start(net));
	CHECK(net_send(net, 0, 1, 300000, false, 0, 0) >= 0);
	CHECK(net_send(net, 0, 2, 100000, false, 0, 0) >= 0);
	net_run(net, 10 * MS);
	CHECK_EQ(net_msgs_ok(net), 2);
	for (int p = 0; p < 8; p++)
		n2 += ps.prec[2][p];
	CHECK(n2 >= 98);
	/* In turn, about n2 of node 1's frames went before the last. */
	CHECK(ps.last[2] - n2 < 10);
	net_free(net);
}

static void test_refusals(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	int a, b, c;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 12);
	CHECK(net_start(net));
	net->node[1].refuse = WREN_TP_RNR;
	a = net_send(net, 0, 1, 5000, true, 0, 0);
	net_run(net, 1 * MS);
	net->node[1].refuse = WREN_TP_OK;
	net->node[1].fail_write = true;
	b = net_send(net, 0, 1, 5000, true, 0, 0);
	net_run(net, 1 * MS);
	net->node[1].fail_write = false;
	c = net_send(net, 0, 1, 5000, true, 0, 0);
	net_run(net, 1 * MS);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_RNR);
	CHECK_EQ(net->msgs[b].done_status, WREN_TP_REMOTE_OP_ERROR);
	CHECK_EQ(net->msgs[c].done_status, WREN_TP_OK);
	CHECK_EQ(net->msgs[a].delivered + net->msgs[b].delivered, 0);
	CHECK_EQ(net->msgs[c].delivered, 1);
	CHECK_EQ(net->node[1].rx_aborted, 1);
	net_free(net);
}

/*
 * Every packet of a refused message is refused, each with its NACK; the
 * later ones must not mark the message done again, or the message that
 * takes its MSN slot a window later would be taken for done.
 */
static void test_refused_then_window_later(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	int first, i;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 41);
	CHECK(net_start(net));
	net->node[1].refuse = WREN_TP_RNR;
	for (i = 0; i < 3; i++)
		CHECK(net_send(net, 0, 1, 5 * 1024, false, 0, 0) >= 0);
	/* Short runs: the context must not go idle and start afresh. */
	net_run(net, MS / 10);
	for (i = 0; i < 3; i++)
		CHECK_EQ(net->msgs[i].done_status, WREN_TP_RNR);
	net->node[1].refuse = WREN_TP_OK;
	first = net->nmsgs;
	for (i = 0; i < 2 * TP_MSN_WINDOW; i++) {
		CHECK(net_send(net, 0, 1, 1, false, 0, 0) >= 0);
		if (i % 64 == 63)
			net_run(net, MS / 10);
	}
	net_run(net, 5 * MS);
	for (i = first; i < (int)net->nmsgs; i++) {
		CHECK_EQ(net->msgs[i].done_status, WREN_TP_OK);
		CHECK_EQ(net->msgs[i].delivered, 1);
	}
	net_free(net);
}

static void test_local_read_error(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	int a, b;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 13);
	CHECK(net_start(net));
	net->node[0].fail_read = true;
	a = net_send(net, 0, 1, 5000, true, 0, 0);
	net_run(net, 1 * MS);
	net->node[0].fail_read = false;
	/* An ordered message after an abandoned one still completes. */
	b = net_send(net, 0, 1, 5000, true, 0, 0);
	net_run(net, 1 * MS);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_LOCAL_ERROR);
	CHECK_EQ(net->msgs[b].done_status, WREN_TP_OK);
	CHECK_EQ(net->msgs[b].delivered, 1);
	net_free(net);
}

static void test_target_forgets(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int a;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 14);
	CHECK(net_start(net));
	a = net_send(net, 0, 1, 3000, false, 0, 0);
	net_run(net, 1 * MS / 10);
	CHECK_EQ(net->msgs[a].delivered, 1);
	/* The target restarts: it knows nothing of the initiator's session. */
	CHECK(net_restart(net, 1));
	send_random(net, 20, 3000, false);
	net_run(net, 50 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK_EQ(st.ctx_reestablished, 1);
	net_free(net);
}

static void test_bad_input(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_msg m = { .opcode = WREN_WIRE_OP_SEND };
	struct wren_tp_dest d = { .ipv4 = net_ip(1) };
	struct wren_tp_stats st;
	uint8_t junk[200];

	cfg_default(&cfg);
	net = net_new(2, &cfg, 15);
	CHECK(net_start(net));
	m.len = WREN_WIRE_MAX_MSG_LEN + 1;
	CHECK_EQ(wren_tp_send(net->node[0].tp, &d, &m, 0), -EINVAL);
	m.len = 1;
	m.opcode = 99;
	CHECK_EQ(wren_tp_send(net->node[0].tp, &d, &m, 0), -EINVAL);
	m.opcode = WREN_WIRE_OP_SEND;
	m.dst_qpn = 1U << 24;
	CHECK_EQ(wren_tp_send(net->node[0].tp, &d, &m, 0), -EINVAL);
	m.dst_qpn = 0;
	d.ipv4 = 0;				/* nobody */
	CHECK_EQ(wren_tp_send(net->node[0].tp, &d, &m, 0), -EINVAL);
	cfg.window = 100;			/* not a power of two */
	CHECK(!wren_tp_create(&cfg, net->node[0].tp->env, NULL,
			      net->node[0].tp->ulp, NULL));
	for (int i = 0; i < 1000; i++) {
		for (size_t j = 0; j < sizeof(junk); j++)
			junk[j] = net_rand(net);
		wren_tp_rx(net->node[0].tp, junk, net_rand(net) % sizeof(junk));
	}
	net_stats(net, 0, &st);
	CHECK_EQ(st.rx_drop_malformed, 1000);
	net_free(net);
}

/*
 * WRITE and READ_REQ carry the target's address, key and length in every
 * packet, whatever arrives first; the transport checks what the fields
 * may hold, not what they mean.
 */
static void test_rdma_headers(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_msg w = {
		.len = 5000, .opcode = WREN_WIRE_OP_WRITE_IMM, .dst_qpn = 1,
		.src_qpn = 2, .qkey = 0x11111111,
		.raddr = 0x123456789abcdef0ULL, .rkey = 0xa5a5a5a5,
	};
	struct wren_tp_msg r = {
		.opcode = WREN_WIRE_OP_READ_REQ, .dst_qpn = 1, .src_qpn = 2,
		.qkey = 0x11111111, .raddr = 0x1000, .rkey = 7,
		.rlen = WREN_WIRE_MAX_MSG_LEN,
	};
	struct wren_tp_msg bad;
	int a, b;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 31);
	CHECK(net_start(net));
	net->filter = reverse_some;
	a = net_send_msg(net, 0, 1, &w);
	net_run(net, 5 * MS);
	CHECK(a >= 0 && net->msgs[a].delivered == 1 && !net->msgs[a].bad_bytes);
	CHECK_EQ(net->node[1].last_rx.opcode, WREN_WIRE_OP_WRITE_IMM);
	CHECK_EQ(net->node[1].last_rx.raddr, w.raddr);
	CHECK_EQ(net->node[1].last_rx.rkey, w.rkey);
	CHECK_EQ(net->node[1].last_rx.rlen, 0);
	b = net_send_msg(net, 0, 1, &r);
	net_run(net, 5 * MS);
	CHECK(b >= 0 && net->msgs[b].delivered == 1);
	CHECK_EQ(net->node[1].last_rx.raddr, r.raddr);
	CHECK_EQ(net->node[1].last_rx.rlen, WREN_WIRE_MAX_MSG_LEN);
	/* A failed READ_RESP arrives with its flag. */
	bad = (struct wren_tp_msg){ .opcode = WREN_WIRE_OP_READ_RESP,
				    .flags = WREN_TP_MSG_FAILED, .dst_qpn = 1 };
	b = net_send_msg(net, 0, 1, &bad);
	net_run(net, 5 * MS);
	CHECK(b >= 0 && net->msgs[b].delivered == 1);
	CHECK_EQ(net->node[1].last_rx.flags & WREN_TP_MSG_FAILED,
		 WREN_TP_MSG_FAILED);

	/* What the fields may not hold. */
	bad = r;
	bad.len = 1;
	CHECK_EQ(net_send_msg(net, 0, 1, &bad), -EINVAL);
	bad = r;
	bad.rlen = WREN_WIRE_MAX_MSG_LEN + 1;
	CHECK_EQ(net_send_msg(net, 0, 1, &bad), -EINVAL);
	bad = (struct wren_tp_msg){ .opcode = WREN_WIRE_OP_SEND, .rkey = 1 };
	CHECK_EQ(net_send_msg(net, 0, 1, &bad), -EINVAL);
	bad = w;
	bad.rlen = 4;
	CHECK_EQ(net_send_msg(net, 0, 1, &bad), -EINVAL);
	bad = w;
	bad.flags = WREN_TP_MSG_FAILED;
	CHECK_EQ(net_send_msg(net, 0, 1, &bad), -EINVAL);
	bad = (struct wren_tp_msg){ .opcode = WREN_WIRE_OP_READ_RESP + 1 };
	CHECK_EQ(net_send_msg(net, 0, 1, &bad), -EINVAL);
	CHECK_EQ(net_msgs_ok(net), 3);
	net_free(net);
}

static enum net_verdict drop_half(struct net *net, struct net_filter_ctx *f)
{
	(void)f;
	return net_rand(net) % 2 ? NET_DROP : NET_PASS;
}

static void test_datagrams(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	unsigned int delivered = 0;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 19);
	CHECK(net_start(net));
	CHECK_EQ(net_send_ud(net, 0, 1, cfg.mtu + 1), -EMSGSIZE);
	for (int i = 0; i < 50; i++)
		CHECK(net_send_ud(net, 0, 1, net_rand(net) % (cfg.mtu + 1)) >=
		      0);
	CHECK(net_send_ud(net, 0, 1, 0) >= 0);
	net_run(net, 1 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	CHECK_EQ(st.tx_ud, net->nmsgs);
	CHECK_EQ(st.ctx_created, 0);		/* no context, no handshake */
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_ud, net->nmsgs);
	CHECK_EQ(st.tx_acks, 0);		/* and no acknowledgement */
	net_free(net);

	/* Lost datagrams stay lost; the sender still hears "sent". */
	net = net_new(2, &cfg, 20);
	net->filter = drop_half;
	CHECK(net_start(net));
	for (int i = 0; i < 100; i++)
		CHECK(net_send_ud(net, 0, 1, 100) >= 0);
	net_run(net, 10 * MS);
	for (unsigned int i = 0; i < net->nmsgs; i++) {
		CHECK_EQ(net->msgs[i].done_status, WREN_TP_OK);
		CHECK(net->msgs[i].delivered <= 1);
		delivered += net->msgs[i].delivered;
	}
	CHECK(delivered > 20 && delivered < 80);
	net_stats(net, 0, &st);
	CHECK_EQ(st.retx_timeout + st.retx_fast, 0);

	/* A target that refuses drops it and counts. */
	net->filter = NULL;
	net->node[1].refuse = WREN_TP_BAD_DEST_QP;
	CHECK(net_send_ud(net, 0, 1, 10) >= 0);
	net_run(net, 1 * MS);
	net_stats(net, 1, &st);
	CHECK_EQ(st.rx_drop_refused, 1);
	net_free(net);
}

static void test_max_msgs(void)
{
	struct wren_tp_config cfg;
	struct net *net;

	cfg_default(&cfg);
	cfg.max_msgs = 4;
	cfg.peer_share = 256;
	net = net_new(2, &cfg, 16);
	CHECK(net_start(net));
	for (int i = 0; i < 4; i++)
		CHECK(net_send(net, 0, 1, 100, false, 0, 0) >= 0);
	CHECK_EQ(net_send(net, 0, 1, 100, false, 0, 0), -1);
	net_run(net, 1 * MS);
	CHECK_EQ(net_msgs_ok(net), 4);
	CHECK(net_send(net, 0, 1, 100, false, 0, 0) >= 0);
	net_free(net);
}

/*
 * Grants that stop with nothing in flight: the initiator asks again.
 * Here the target restarts while the initiator waits for its next grant,
 * so no timer runs on either side; the GRANT_REQ sent again meets no
 * context, the NACK starts a new incarnation, and the message arrives.
 */
static enum net_verdict drop_grants(struct net *net, struct net_filter_ctx *f)
{
	return f->type == WREN_WIRE_GRANT && *(bool *)net->filter_arg ?
	       NET_DROP : NET_PASS;
}

static void test_grant_probe(void)
{
	static bool dropping = true;
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int a;

	cfg_grants_8k(&cfg);
	net = net_new(2, &cfg, 31);
	net->filter = drop_grants;
	net->filter_arg = &dropping;
	CHECK(net_start(net));
	a = net_send(net, 0, 1, 100000, false, 0, 0);
	net_run(net, 1 * MS / 10);
	CHECK(net_restart(net, 1));
	dropping = false;
	net_run(net, 100 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	CHECK_EQ(net->msgs[a].delivered, 1);
	net_stats(net, 0, &st);
	CHECK(st.grant_probes >= 1);
	CHECK_EQ(st.ctx_reestablished, 1);
	net_free(net);
}

/*
 * The GRANT_REQ that asks again (tp_ctx_timer()) is a packet of its own,
 * with a PSN of its own.  Here it is slow (another path, or lost and
 * resent), while the target's own regrant gets through: the initiator
 * sends the rest, the message completes at the target, and only then
 * does the request arrive.  Its PSN was never received, so it passes
 * the duplicate check and meets a finished message; it must be acked,
 * not refused, or the initiator fails a message that was delivered
 * (IBV_WC_REM_OP_ERR on an RC QP, seen with libswap over a lossy
 * multipath fabric).
 */
struct late_probe {
	unsigned int reqs;	/* GRANT_REQs seen (first copies) */
	uint32_t probe_psn;
	bool hold_grants;
};

static enum net_verdict late_probe_filter(struct net *net,
					  struct net_filter_ctx *f)
{
	struct late_probe *lp = net->filter_arg;

	if (f->type == WREN_WIRE_GRANT && lp->hold_grants)
		return NET_DROP;
	if (f->type != WREN_WIRE_DATA || f->from != 0)
		return NET_PASS;
	/* No payload: a GRANT_REQ (the only message is large). */
	if (f->len == WREN_WIRE_DATA_HDRS_LEN &&
	    !(f->flags & WREN_WIRE_F_RETX) && ++lp->reqs == 2) {
		lp->probe_psn = f->psn;
		lp->hold_grants = false;
	}
	/*
	 * The probe arrives after the rest of the message; its resent
	 * copies are lost, so that none is left over on the wire once the
	 * initiator closed the context.
	 */
	if (lp->reqs >= 2 && f->psn == lp->probe_psn) {
		if (f->flags & WREN_WIRE_F_RETX)
			return NET_DROP;
		f->extra_delay = 5 * MS;
	}
	return NET_PASS;
}

static void test_grant_probe_late(void)
{
	static struct late_probe lp;
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st0, st1;
	int a;

	/* Ordered (an RC QP's messages) and not. */
	for (int ordered = 0; ordered < 2; ordered++) {
		cfg_grants_8k(&cfg);
		net = net_new(2, &cfg, 43);
		memset(&lp, 0, sizeof(lp));
		lp.hold_grants = true;
		net->filter = late_probe_filter;
		net->filter_arg = &lp;
		CHECK(net_start(net));
		a = net_send(net, 0, 1, 40000, ordered, 0, 0);
		net_run(net, 100 * MS);
		CHECK_EQ(lp.reqs, 2);
		CHECK_EQ(net->msgs[a].delivered, 1);
		CHECK_EQ(net->msgs[a].done_status, WREN_TP_OK);
		CHECK_EQ(net_msgs_ok(net), net->nmsgs);
		net_stats(net, 0, &st0);
		net_stats(net, 1, &st1);
		CHECK(st0.grant_probes >= 1);
		CHECK_EQ(st1.tx_nacks, 0);
		CHECK_EQ(st0.msg_errors, 0);
		net_free(net);
	}
}

/*
 * The way back of the initiator's latest data is dead (one direction of
 * a path, as in netsim's S13): every grant sent only there is lost, and
 * the initiator, with its granted bytes sent, waits for the regrant,
 * cfg.min_rto_ns each time.  The copy of each grant on a fresh path gets
 * through, so the message goes at the pace of the grants.
 */
struct grant_back {
	uint16_t data_sport;	/* the latest DATA's path */
	unsigned int dropped;
};

static enum net_verdict grant_back_dead(struct net *net,
					struct net_filter_ctx *f)
{
	struct grant_back *gb = net->filter_arg;

	if (f->type == WREN_WIRE_DATA && f->from == 0)
		gb->data_sport = f->sport;
	if (f->type == WREN_WIRE_GRANT && f->sport == gb->data_sport) {
		gb->dropped++;
		return NET_DROP;
	}
	return NET_PASS;
}

/*
 * One 100 kB message from node 0 to node 1, granted 8 KiB at a time (13
 * grants), with @filter on the wire: it must arrive within two
 * cfg.min_rto_ns, where a regrant for each lost grant would take 13 x
 * 50 us.  @target gets node 1's counters.
 */
static void granted_message_in_time(enum net_verdict (*filter)(struct net *,
							   struct net_filter_ctx *),
				    void *arg, uint64_t seed,
				    struct wren_tp_stats *target)
{
	struct wren_tp_config cfg;
	struct net *net;
	uint64_t t0;
	int a;

	cfg_grants_8k(&cfg);
	net = net_new(2, &cfg, seed);
	net->filter = filter;
	net->filter_arg = arg;
	CHECK(net_start(net));
	t0 = net->now;
	a = net_send(net, 0, 1, 100000, false, 0, 0);
	net_run(net, 100 * MS);
	CHECK_EQ(net->msgs[a].delivered, 1);
	CHECK(net->msgs[a].delivered_at - t0 < 2 * cfg.min_rto_ns);
	net_stats(net, 1, target);
	net_free(net);
}

static void test_grant_copy(void)
{
	static struct grant_back gb;
	struct wren_tp_stats st;

	granted_message_in_time(grant_back_dead, &gb, 41, &st);
	/* The grants on the data's path were sent, and lost. */
	CHECK(gb.dropped >= 10);
	CHECK(st.tx_grants >= 2 * gb.dropped);
}

/*
 * Node 1's DATA with payload is lost until *(uint64_t *)filter_arg (its
 * GRANT_REQ, a DATA frame without payload, gets through).
 */
static enum net_verdict node1_data_dark(struct net *net,
					struct net_filter_ctx *f)
{
	return f->from == 1 && f->type == WREN_WIRE_DATA && f->len > 512 &&
	       net->now < *(uint64_t *)net->filter_arg ? NET_DROP : NET_PASS;
}

/*
 * A message whose initiator does not deliver what it was granted (busy
 * elsewhere; here its data is lost for a while) holds at most half the
 * target's grant window while another message waits: the longer message
 * beside it is granted the other half and completes, where shortest
 * first alone gave the whole window to the stalled one and left the
 * target's link idle until its data came.
 */
static void test_grant_share(void)
{
	static uint64_t dark_until;
	struct wren_tp_config cfg;
	struct net *net;
	uint64_t t0;
	int a, b;

	cfg_default(&cfg);
	cfg.grant_threshold = 16384;
	cfg.grant_window = 32768;
	cfg.grant_chunk = 8192;
	net = net_new(3, &cfg, 53);
	net->filter = node1_data_dark;
	net->filter_arg = &dark_until;
	CHECK(net_start(net));
	t0 = net->now;
	dark_until = t0 + 400000;
	a = net_send(net, 1, 0, 100000, false, 0, 0);
	b = net_send(net, 2, 0, 200000, false, 0, 0);
	net_run(net, 100 * MS);
	CHECK_EQ(net_msgs_ok(net), 2);
	CHECK_EQ(net->msgs[a].delivered, 1);
	CHECK_EQ(net->msgs[b].delivered, 1);
	/* The longer message did not wait for the stalled one's data. */
	CHECK(net->msgs[b].delivered_at < dark_until - 100000);
	CHECK(net->msgs[a].delivered_at > dark_until);
	net_free(net);
}

/* Each grant's first two frames are lost: its path and a copy's. */
struct grant_twice {
	uint32_t granted;	/* the offset of the latest grant seen */
	unsigned int seen;	/* its frames so far */
	unsigned int dropped;
};

static enum net_verdict grant_twice_dead(struct net *net,
					 struct net_filter_ctx *f)
{
	struct grant_twice *gt = net->filter_arg;
	uint32_t granted;

	if (f->type != WREN_WIRE_GRANT)
		return NET_PASS;
	granted = wren_wire_get32(TP_FIELD(tp_ext((uint8_t *)f->frame),
					   wren_wire_grant, granted));
	if (granted != gt->granted) {
		gt->granted = granted;
		gt->seen = 0;
	}
	if (gt->seen++ < 2) {
		gt->dropped++;
		return NET_DROP;
	}
	return NET_PASS;
}

/*
 * A grant the initiator may wait on goes on three paths: two of them
 * dead for every grant (as a message's last grant met in netsim's S13
 * one time in 64 with two paths) delay nothing; with two paths each
 * grant would wait for the regrant (cfg.min_rto_ns).
 */
static void test_grant_three_paths(void)
{
	static struct grant_twice gt;
	struct wren_tp_stats st;

	granted_message_in_time(grant_twice_dead, &gt, 61, &st);
	CHECK(gt.dropped >= 20);
}

/*
 * Messages that compete for one target are granted a packet at a time,
 * each arriving packet bringing the next grant: a lost one is covered by
 * the next, so those grants go once.  Only a message granted alone, or a
 * message's last grant, goes on three paths (test_grant_copy(),
 * test_grant_three_paths()).
 */
static void test_grant_copy_alone(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;

	cfg_grants_8k(&cfg);
	net = net_new(4, &cfg, 47);
	CHECK(net_start(net));
	for (int from = 1; from < 4; from++)
		CHECK(net_send(net, from, 0, 200 * 1024, false, 0, 0) >= 0);
	net_run(net, 100 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st);
	/* 600 packets: 594 grants; with every grant copied, 1160. */
	CHECK(st.tx_grants < 700);
	net_free(net);
}

/*
 * A message the target keeps waiting (shortest first: two other
 * initiators' shorter messages hold the whole window, half each, for
 * tens of milliseconds) is not a dead target.  Each GRANT_REQ sent again
 * is answered with the latest grant, none yet, and the initiator goes on
 * waiting instead of failing the context after cfg.max_retries
 * unanswered-looking probes.  The grants to nodes 2 and 3 are slow, so
 * their messages take about 45 ms.
 */
static enum net_verdict slow_grants_to_2_3(struct net *net,
					   struct net_filter_ctx *f)
{
	(void)net;
	if (f->type == WREN_WIRE_GRANT && f->to >= 2)
		f->extra_delay = 300000;
	return NET_PASS;
}

static void test_grant_wait_queued(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st0, st1;
	int a, b, c;

	cfg_grants_8k(&cfg);
	net = net_new(4, &cfg, 47);
	net->filter = slow_grants_to_2_3;
	CHECK(net_start(net));
	b = net_send(net, 2, 1, 600000, false, 0, 0);
	c = net_send(net, 3, 1, 600000, false, 0, 0);
	net_run(net, MS / 10);
	a = net_send(net, 0, 1, 1000000, false, 0, 0);
	net_run(net, 300 * MS);
	CHECK_EQ(net->msgs[b].delivered, 1);
	CHECK_EQ(net->msgs[c].delivered, 1);
	CHECK_EQ(net->msgs[a].delivered, 1);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_OK);
	CHECK(net->msgs[a].delivered_seq > net->msgs[b].delivered_seq &&
	      net->msgs[a].delivered_seq > net->msgs[c].delivered_seq);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, &st0);
	net_stats(net, 1, &st1);
	/* It did ask, more often than it may ask a silent target. */
	CHECK(st0.grant_probes > cfg.max_retries);
	CHECK_EQ(st0.msg_errors, 0);
	CHECK_EQ(st1.tx_nacks, 0);
	net_free(net);
}

/*
 * A target whose grants bring nothing (the initiator went away) grants
 * again less and less often, then gives the message up: a bounded number
 * of GRANTs, not one every min_rto_ns for as long as the context lives.
 */
static void test_grant_give_up(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;

	cfg_grants_8k(&cfg);
	net = net_new(2, &cfg, 32);
	CHECK(net_start(net));
	net_send(net, 0, 1, 100000, false, 0, 0);
	/* Until the target has granted, and the initiator has not sent. */
	while (!net->node[1].tp->stats.tx_grants)
		net_run(net, 1000);
	CHECK(net_restart(net, 0));
	net_run(net, 60 * MS);
	net_stats(net, 1, &st);
	CHECK_EQ(net->node[1].rx_aborted, 1);
	CHECK_EQ(st.msg_err_unresponsive, 1);
	/* Each grant goes three times, on three paths. */
	CHECK(st.tx_grants <= 3 * (1 + cfg.max_retries));
	CHECK_EQ(net->node[1].tp->granted_out, 0);
	net_free(net);
}

/*
 * A packet whose header contradicts its message's first packet (one of
 * them altered on the way): the message is given up at both ends, at
 * once, and the context goes on.  Here the altered copy of the first
 * packet arrives first; the true packets must not be dropped until the
 * initiator gives the target up.
 */
struct alter {
	bool holding;		/* drop the initiator's DATA for now */
	size_t at;		/* the byte of the first DATA to change */
	uint8_t copy[NET_MAX_FRAME];
	uint32_t len;
};

static enum net_verdict alter_first(struct net *net, struct net_filter_ctx *f)
{
	struct alter *al = net->filter_arg;

	if (f->type != WREN_WIRE_DATA || f->from != 0 || !al->holding)
		return NET_PASS;
	if (!al->len) {
		memcpy(al->copy, f->frame, f->len);
		al->len = f->len;
		al->copy[al->at] ^= 0x5a;
	}
	return NET_DROP;
}

/*
 * Once the initiator's first DATA is held, its altered copy reaches the
 * target first; then the network lets everything through.
 */
static void deliver_altered(struct net *net, struct alter *al)
{
	net_run(net, 1000);
	CHECK(al->len > 0);
	net_inject(net, 1, al->copy, al->len);
	al->holding = false;
}

static void test_contradicting_header(void)
{
	static struct alter al = {
		.holding = true,
		.at = WREN_WIRE_HDR + sizeof(struct wren_wire_hdr) +
		      offsetof(struct wren_wire_data, qkey),
	};
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st0, st1;
	int a, b;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 33);
	net->filter = alter_first;
	net->filter_arg = &al;
	CHECK(net_start(net));
	a = net_send(net, 0, 1, 8000, false, 0, 0);
	deliver_altered(net, &al);
	net_run(net, 5 * MS);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_REMOTE_OP_ERROR);
	CHECK_EQ(net->node[1].rx_aborted, 1);
	b = net_send(net, 0, 1, 8000, false, 0, 0);
	net_run(net, 5 * MS);
	CHECK_EQ(net->msgs[b].delivered, 1);
	net_stats(net, 0, &st0);
	net_stats(net, 1, &st1);
	CHECK_EQ(st0.ctx_failed, 0);
	CHECK(st1.rx_drop_invalid >= 1);
	net_free(net);
}

/*
 * A target whose state went wrong (its context opened by a packet whose
 * base was altered) answers every packet with an ACK beyond anything
 * sent.  The initiator starts over in a new incarnation at the first
 * such ACK, as when the target forgot the context, and the message
 * arrives; it is not resent into the contradiction until it fails.
 */
static void test_contradicting_acks(void)
{
	static struct alter al = {
		.holding = true,
		.at = WREN_WIRE_HDR + offsetof(struct wren_wire_hdr, bsn),
	};
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int a, b;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 37);
	net->filter = alter_first;
	net->filter_arg = &al;
	CHECK(net_start(net));
	a = net_send(net, 0, 1, 100, false, 0, 0);
	deliver_altered(net, &al);
	net_run(net, 10 * MS);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_OK);
	CHECK_EQ(net->msgs[a].delivered, 1);
	net_stats(net, 0, &st);
	CHECK(st.rx_drop_invalid >= 1);
	CHECK_EQ(st.ctx_reestablished, 1);
	CHECK_EQ(st.ctx_failed, 0);
	b = net_send(net, 0, 1, 100, false, 0, 0);
	net_run(net, 10 * MS);
	CHECK_EQ(net->msgs[b].delivered, 1);
	net_free(net);
}

/*
 * An initiator that heard a grant the target never gave (its offset
 * altered on the way) sends bytes the target cannot take once a packet
 * before them is lost: the message is given up at both ends, not resent
 * until the context is given up.
 */
struct beyond {
	struct alter al;
	unsigned int data_left;	/* DATA packets before the one lost */
};

static enum net_verdict alter_grant(struct net *net, struct net_filter_ctx *f)
{
	struct beyond *b = net->filter_arg;

	if (f->type == WREN_WIRE_DATA && b->al.len && b->data_left &&
	    !--b->data_left)
		return NET_DROP;
	if (f->type != WREN_WIRE_GRANT || b->al.len)
		return NET_PASS;
	memcpy(b->al.copy, f->frame, f->len);
	b->al.len = f->len;
	b->al.copy[b->al.at] ^= 0x01;
	return NET_DROP;
}

static void test_beyond_grant(void)
{
	static struct beyond b = {
		/* The third byte of the offset granted: 64 KiB more. */
		.al.at = WREN_WIRE_HDR + sizeof(struct wren_wire_hdr) +
			 offsetof(struct wren_wire_grant, granted) + 1,
		.data_left = 4,
	};
	struct wren_tp_config cfg;
	struct net *net;
	int a;

	cfg_grants_8k(&cfg);
	net = net_new(2, &cfg, 38);
	net->filter = alter_grant;
	net->filter_arg = &b;
	CHECK(net_start(net));
	a = net_send(net, 0, 1, 100000, false, 0, 0);
	while (!b.al.len)
		net_run(net, 1000);
	net_inject(net, 0, b.al.copy, b.al.len);
	net_run(net, 10 * MS);
	CHECK_EQ(net->msgs[a].done_status, WREN_TP_REMOTE_OP_ERROR);
	CHECK_EQ(net->node[1].rx_aborted, 1);
	net_free(net);
}

/* ------------------------------------------------------------------ */
/* Shares                                                               */
/* ------------------------------------------------------------------ */

/*
 * Messages posted: a peer gets peer_share / 256 of max_msgs (a quarter
 * of 8 here), -EAGAIN beyond, while other peers still get theirs.
 */
static void test_share_tx(void)
{
	const struct wren_tp_msg m = {
		.len = 100, .opcode = WREN_WIRE_OP_SEND, .dst_qpn = 1,
		.src_qpn = 2, .qkey = 0x11111111,
	};
	struct wren_tp_config cfg;
	struct net *net;

	cfg_default(&cfg);
	cfg.max_msgs = 8;
	net = net_new(3, &cfg, 34);
	CHECK(net_start(net));
	CHECK(net_send_msg(net, 0, 1, &m) >= 0);
	CHECK(net_send_msg(net, 0, 1, &m) >= 0);
	CHECK_EQ(net_send_msg(net, 0, 1, &m), -EAGAIN);
	CHECK(net_send_msg(net, 0, 2, &m) >= 0);
	CHECK(net_send_msg(net, 0, 2, &m) >= 0);
	net_run(net, 1 * MS);
	CHECK_EQ(net_msgs_ok(net), 4);
	/* Given back when done. */
	CHECK(net_send_msg(net, 0, 1, &m) >= 0);
	CHECK(net_send_msg(net, 0, 1, &m) >= 0);
	net_run(net, 1 * MS);
	CHECK_EQ(net_msgs_ok(net), 6);
	net_free(net);
}

/*
 * Receive contexts: a peer opens at most its share (one of four here),
 * however many contexts it makes up; another peer still opens one.
 */
static void test_share_rx_ctx(void)
{
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int a, b, c;

	cfg_default(&cfg);
	cfg.max_rx_ctx = 4;
	net = net_new(3, &cfg, 35);
	CHECK(net_start(net));
	a = net_send(net, 1, 0, 100, false, 1, 0);
	b = net_send(net, 1, 0, 100, false, 2, 0);
	c = net_send(net, 2, 0, 100, false, 1, 0);
	net_run(net, 1 * MS);
	CHECK_EQ(net->msgs[a].delivered + net->msgs[b].delivered, 1);
	CHECK_EQ(net->msgs[c].delivered, 1);
	net_stats(net, 0, &st);
	CHECK(st.rx_drop_share >= 1);
	net_free(net);
}

/*
 * Receive slots: a peer whose messages do not finish (their last packets
 * lost, here) holds at most its share of them (two of eight); the others'
 * messages arrive meanwhile, and its own once the loss ends.
 */
static enum net_verdict hold_last(struct net *net, struct net_filter_ctx *f)
{
	const uint8_t *x = tp_ext((uint8_t *)f->frame);

	if (f->type != WREN_WIRE_DATA || f->from != 1 ||
	    !*(bool *)net->filter_arg)
		return NET_PASS;
	/* Its payload ends the message (a SEND: the data header only). */
	return wren_wire_get32(TP_FIELD(x, wren_wire_data, offset)) + f->len -
	       WREN_WIRE_DATA_HDRS_LEN ==
	       wren_wire_get32(TP_FIELD(x, wren_wire_data, msg_len)) ?
	       NET_DROP : NET_PASS;
}

static void test_share_rx_slots(void)
{
	static bool holding = true;
	struct wren_tp_config cfg;
	struct net *net;
	struct wren_tp_stats st;
	int a[4], b[4];

	cfg_default(&cfg);
	cfg.max_msgs = 8;
	net = net_new(3, &cfg, 36);
	/* The target's pool is small, not the senders'. */
	net->node[1].cfg.max_msgs = net->node[2].cfg.max_msgs = 64;
	net->filter = hold_last;
	net->filter_arg = &holding;
	CHECK(net_start(net));
	for (int i = 0; i < 2; i++) {
		a[i] = net_send(net, 1, 0, 3000, false, 0, 0);
		b[i] = net_send(net, 2, 0, 3000, false, 0, 0);
	}
	net_run(net, 1 * MS / 10);
	/* Node 1's two hold their slots; two more of its are turned away. */
	for (int i = 2; i < 4; i++)
		a[i] = net_send(net, 1, 0, 3000, false, 0, 0);
	for (int i = 2; i < 4; i++)
		b[i] = net_send(net, 2, 0, 3000, false, 0, 0);
	net_run(net, 1 * MS);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(net->msgs[a[i]].delivered, 0);
		CHECK_EQ(net->msgs[b[i]].delivered, 1);
	}
	net_stats(net, 0, &st);
	CHECK(st.rx_drop_share >= 1);
	holding = false;
	net_run(net, 100 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_free(net);
}

/*
 * Per-QP accounts: each QP-scope event also in the account of the QP
 * the message names at this end (initiator: src_qpn, target: dst_qpn),
 * none for a number beyond the accounts, and the totals exactly those of
 * the same run without accounts.
 */
static void run_accounts(struct wren_tp_stats *acct0,
			 struct wren_tp_stats *acct1,
			 struct wren_tp_stats *tot0,
			 struct wren_tp_stats *tot1)
{
	static unsigned int pct = 5;
	struct wren_tp_config cfg;
	struct net *net;

	cfg_default(&cfg);
	net = net_new(2, &cfg, 7);
	net->filter = lossy;
	net->filter_arg = &pct;
	CHECK(net_start(net));
	if (acct0) {
		wren_tp_set_accounts(net->node[0].tp, acct0, 4);
		wren_tp_set_accounts(net->node[1].tp, acct1, 4);
	}
	for (unsigned int i = 0; i < 200; i++) {
		struct wren_tp_msg m = {
			.len = net_rand(net) % 20000,
			.opcode = WREN_WIRE_OP_SEND_IMM,
			/* QPs 2 and 3 to QP 1; QP 9 has no account. */
			.src_qpn = i % 5 == 4 ? 9 : 2 + i % 2,
			.dst_qpn = i % 7 == 6 ? 9 : 1,
			.qkey = 0x11111111,
		};

		CHECK(net_send_msg(net, 0, 1, &m) >= 0);
	}
	net_run(net, 500 * MS);
	CHECK_EQ(net_msgs_ok(net), net->nmsgs);
	net_stats(net, 0, tot0);
	net_stats(net, 1, tot1);
	net_free(net);
}

static void test_accounts(void)
{
	static struct wren_tp_stats a0[4], a1[4];
	struct wren_tp_stats t0, t1, u0, u1;
	bool ok = true;

	run_accounts(NULL, NULL, &u0, &u1);
	run_accounts(a0, a1, &t0, &t1);
	CHECK(!memcmp(&t0, &u0, sizeof(t0)));
	CHECK(!memcmp(&t1, &u1, sizeof(t1)));
	/* Within the totals; the port's counters in no account. */
#define WREN_STAT_QP(counter)						\
	ok &= a0[0].counter + a0[1].counter + a0[2].counter +		\
	      a0[3].counter <= t0.counter &&				\
	      a1[0].counter + a1[1].counter + a1[2].counter +		\
	      a1[3].counter <= t1.counter;
#define WREN_STAT(counter)	ok &= !a0[2].counter && !a1[1].counter;
#include "linux/wren/wren_stats.h"
#undef WREN_STAT
#undef WREN_STAT_QP
	CHECK(ok);
	/* Sent by QPs 2 and 3, and 9 (no account): never all in theirs. */
	CHECK(a0[2].tx_msgs > 0 && a0[3].tx_msgs > 0);
	CHECK(a0[2].tx_msgs + a0[3].tx_msgs < t0.tx_msgs);
	CHECK(a0[2].retx_timeout + a0[2].retx_fast > 0);
	CHECK(a0[3].retx_timeout + a0[3].retx_fast > 0);
	CHECK_EQ(a0[1].tx_msgs, 0);
	/* Received by QP 1, and 9: the target's side in QP 1's account. */
	CHECK(a1[1].rx_msgs > 0 && a1[1].rx_msgs < t1.rx_msgs);
	CHECK(a1[1].rx_data_pkts > 0);
	CHECK_EQ(a1[2].rx_msgs + a1[3].rx_msgs, 0);
	CHECK_EQ(a0[2].rx_data_pkts, 0);
}

static const struct tap_test tests[] = {
	{ "frame build and parse round trip, malformed frames", test_frame_round_trip },
	{ "clean wire: every message once, no retransmission", test_clean_delivery },
	{ "5% loss, reordering, duplication: exactly once", test_loss_reorder_dup },
	{ "PSN wraparound", test_psn_wrap },
	{ "ordered delivery despite reordering; unordered overtakes", test_ordered_delivery },
	{ "late duplicates and stale incarnations", test_stale_and_duplicate },
	{ "LRU eviction and re-establishment during traffic", test_eviction_under_pressure },
	{ "context table: idle contexts spill and come back, no handshake", test_table_spill_restore },
	{ "context table: scribbled or unreadable records do no harm", test_table_hostile },
	{ "a late CLOSE does not close the next incarnation", test_close_overtaken },
	{ "a hole at the base behind a full 512-packet window", test_full_bitmap },
	{ "out-of-order arrivals acked every ack_every, a late one at once",
	  test_ack_out_of_order },
	{ "optimistic adds no round trip, handshake adds one", test_handshake_mode },
	{ "remote unreachable vs unresponsive", test_unreachable_unresponsive },
	{ "sub-flow timer on a dead path, path replaced", test_subflow_timer_repath },
	{ "a stalled target causes no false loss on other sub-flows",
	  test_stall_no_false_loss },
	{ "a path that dies is left after its own round trip, not the RTO",
	  test_overtaken_path },
	{ "a short message overtaking a long one does not time it out",
	  test_overtaken_by_urgent },
	{ "a path with no way back is left, though it delivers",
	  test_way_back_dark },
	{ "a lost packet is resent where answers are known to come back",
	  test_retx_proven_path },
	{ "a resent duplicate is answered on its own path too",
	  test_dup_answered_on_its_path },
	{ "a target that answers: a dead path's timeouts do not double",
	  test_alive_no_backoff },
	{ "grants pace large messages into one target", test_grants },
	{ "grants that stop with nothing in flight are asked for again", test_grant_probe },
	{ "a request for grants that arrives after its message completed is acked",
	  test_grant_probe_late },
	{ "a message the target keeps waiting is not a dead target",
	  test_grant_wait_queued },
	{ "grants that bring nothing back off, then the message is given up", test_grant_give_up },
	{ "a grant goes on two paths: a dead way back delays nothing", test_grant_copy },
	{ "competing messages' grants go once", test_grant_copy_alone },
	{ "a grant waited on goes on three paths", test_grant_three_paths },
	{ "a stalled message holds at most half the grant window",
	  test_grant_share },
	{ "a header contradicting its message gives it up at both ends", test_contradicting_header },
	{ "an ACK beyond what was sent starts the context over", test_contradicting_acks },
	{ "bytes sent beyond the grant give the message up at both ends", test_beyond_grant },
	{ "a peer posts at most its share of message slots", test_share_tx },
	{ "a peer opens at most its share of receive contexts", test_share_rx_ctx },
	{ "a peer holds at most its share of receive slots", test_share_rx_slots },
	{ "a lone granted message: whole chunks, no stop and go", test_grant_lone_chunks },
	{ "trimmed packets are resent on NACK", test_trimmed },
	{ "prio_short: IP precedence by urgency, short messages first", test_priorities },
	{ "prio_short: of long messages, the fewest bytes left first",
	  test_tx_shortest_first },
	{ "refused messages complete with the target's status", test_refusals },
	{ "a refused message's late packets do not touch a later one", test_refused_then_window_later },
	{ "a local read error does not block later messages", test_local_read_error },
	{ "a target that forgot the session: reconnect", test_target_forgets },
	{ "bad input: errors, not crashes", test_bad_input },
	{ "message slots are bounded", test_max_msgs },
	{ "unreliable datagrams: once or never, no context", test_datagrams },
	{ "WRITE and READ headers in every packet; field rules", test_rdma_headers },
	{ "per-QP accounts: QP-scope events by QP, totals unchanged",
	  test_accounts },
};

int main(void)
{
	return tap_run(tests, sizeof(tests) / sizeof(tests[0]));
}
