/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A tiny network for the transport's unit tests: a few nodes, each a
 * struct wren_tp with an upper layer that checks every byte, joined by a
 * wire with a fixed delay and a per-test filter that may drop, delay,
 * duplicate, trim or capture any frame.  Time is simulated; everything
 * is repeatable for a seed.
 */
#ifndef WREN_TP_NET_H
#define WREN_TP_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "wren_tp.h"

#define NET_MAX_NODES		8
#define NET_MAX_MSGS		4096
#define NET_MAX_TIMERS		(NET_MAX_NODES)
#define NET_MAX_FRAME		(9216 + 256)

enum net_verdict {
	NET_PASS,
	NET_DROP,
	NET_DUP,		/* deliver twice */
	NET_TRIM,		/* cut the payload of a DATA frame */
};

struct net_frame {
	int from, to;
	uint64_t at;
	uint32_t len;
	uint8_t *data;
	struct net_frame *next;
};

/* What a test sees of each frame; it may add @extra_delay. */
struct net_filter_ctx {
	int from, to;
	uint8_t type;		/* enum wren_wire_type */
	uint8_t flags;
	uint16_t sport;
	uint32_t psn;
	const uint8_t *frame;
	uint32_t len;
	uint64_t extra_delay;
};

struct net_msg {
	bool used;
	int from, to;
	uint32_t len;
	uint32_t seed;
	uint32_t class_id;
	bool ordered;
	int done_status;	/* -1 until tx_done */
	unsigned int done_calls;
	unsigned int delivered;	/* rx_done calls with OK */
	uint64_t delivered_at;
	uint32_t delivered_seq;	/* order of delivery at the target */
	bool bad_bytes;
};

struct net;

struct net_node {
	struct net *net;
	int id;
	struct wren_tp *tp;
	struct wren_tp_config cfg;
	bool kicked;
	uint64_t busy_until;
	/* Upper-layer behaviour the tests steer. */
	enum wren_tp_status refuse;	/* rx_begin answer */
	bool fail_write;		/* rx_write fails */
	bool fail_read;			/* tx_read fails */
	uint32_t rx_seq;
	unsigned int rx_aborted;	/* rx_done with an error */
	struct wren_tp_msg last_rx;	/* as rx_begin saw it */
	/* A context table in "host memory" (net_set_table). */
	struct wren_tp_ctx_rec *table;
	uint32_t table_entries;
	bool table_unreadable;		/* load fails with -EIO */
};

struct net_timer {
	bool used, armed;
	uint64_t at;
	void (*cb)(void *arg);
	void *arg;
};

struct net {
	int nodes;
	struct net_node node[NET_MAX_NODES];
	uint64_t now;
	uint64_t delay_ns;
	uint64_t frame_ns;		/* serialisation time per frame */
	uint64_t rng;
	uint32_t fixed_random;		/* non-zero: env->random returns it */
	struct net_frame *frames;	/* in flight, sorted by time */
	struct net_timer timers[NET_MAX_TIMERS];
	struct net_msg msgs[NET_MAX_MSGS];
	unsigned int nmsgs;
	enum net_verdict (*filter)(struct net *net, struct net_filter_ctx *f);
	void *filter_arg;
	unsigned long frames_sent, frames_dropped;
};

/* Set up @n nodes with @cfg (addresses filled in per node). */
void net_init(struct net *net, int n, const struct wren_tp_config *cfg,
	      uint64_t seed);
/* Create each node's transport; false if any refuses its config. */
bool net_start(struct net *net);
void net_fini(struct net *net);
/* Give node @i's transport a context table of @entries records. */
int net_set_table(struct net *net, int i, uint32_t entries);
/* Destroy and re-create node @i's transport, as after a reset. */
bool net_restart(struct net *net, int i);
uint32_t net_ip(int node);
/* Post a message of @len bytes; its index, or -1 if refused. */
int net_send(struct net *net, int from, int to, uint32_t len, bool ordered,
	     uint32_t class_id, uint8_t mode);
/*
 * Post @tmpl (its len and opcode, RDMA fields and flags) as a message;
 * its index, or -errno from wren_tp_send().
 */
int net_send_msg(struct net *net, int from, int to,
		 const struct wren_tp_msg *tmpl);
/* The same as an unreliable datagram; its index, or -errno. */
int net_send_ud(struct net *net, int from, int to, uint32_t len);
/* Run until nothing happens any more or @max_ns passes; returns now. */
uint64_t net_run(struct net *net, uint64_t max_ns);
uint32_t net_rand(struct net *net);
/* Messages whose tx_done status and delivery match a clean run. */
unsigned int net_msgs_ok(const struct net *net);
void net_stats(const struct net *net, int node, struct wren_tp_stats *st);
/* Hand a frame to node @to now, as if it came off the wire. */
void net_inject(struct net *net, int to, const uint8_t *frame, uint32_t len);

#endif /* WREN_TP_NET_H */
