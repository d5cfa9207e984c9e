/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulated network: packets, links, switches, hosts and the
 * topology that joins them.  One struct net per run.
 */
#ifndef NETSIM_NET_H
#define NETSIM_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "frame.h"
#include "rng.h"
#include "scenario.h"
#include "sim.h"

struct net;
struct xport_ops;

struct pkt {
	struct sim_ev ev;		/* arrival at the far end of @link */
	struct pkt *next;		/* queue */
	struct link *link;
	uint32_t len;
	/* Queued in a switch with sw.pfc: counted against @link's ingress
	 * queue of this class (1 + class; 0: not counted). */
	uint8_t pfc;
	uint8_t data[];
};

struct pkt *pkt_alloc(struct net *n);
struct pkt *pkt_clone(struct net *n, const struct pkt *p);
void pkt_free(struct net *n, struct pkt *p);
/* Every buffer, in flight or not: the end of a run. */
void pkt_free_all(struct net *n);

struct port;
struct host;

/* A unidirectional wire: rate, delay, impairments. */
struct link {
	struct net *net;
	uint32_t rate_mbps;
	uint64_t prop_ps;
	const struct imp *imp;
	bool ge_bad;
	char name[32];			/* "leaf0>spine3": scenarios use it */
	void (*rx)(void *node, struct pkt *p);
	void *node;
	uint64_t tx_pkts, tx_bytes, busy_ps;
	uint64_t lost, blackholed, duped;
	/*
	 * PFC (sw.pfc), for a link into a switch: the bytes of each class
	 * queued in that switch that came in here (the ingress queues), the
	 * classes the switch has asked this link's sender to pause, and the
	 * classes that sender is paused for now (a PAUSE arrived, its XON
	 * not yet).  The sender is a switch port (@tx_port) or a host NIC
	 * (@tx_host).
	 */
	uint32_t pfc_in[8];
	uint8_t pfc_asked, paused;
	struct port *tx_port;
	struct host *tx_host;
	uint64_t pfc_xoff, pfc_drops, paused_ps, paused_since;
};

/* Picoseconds on the wire for a frame of @len bytes. */
static inline uint64_t link_ser_ps(const struct link *l, uint32_t len)
{
	uint64_t bits = (uint64_t)(len + WREN_WIRE_ETH_OVERHEAD) * 8;

	return (bits * 1000000 + l->rate_mbps - 1) / l->rate_mbps;
}

/* Put @p on @l now; returns when the wire is free again. */
uint64_t link_send(struct link *l, struct pkt *p);

/* Data queues per port with sw.prio_data: one per IP precedence. */
#define NET_DATA_CLASSES	8

/* A switch's egress port: output queue plus the link it drives. */
struct port {
	struct link link;
	struct sim_ev txev;		/* the current frame leaves */
	uint32_t buffer;		/* drop-tail bytes (0: sw.buffer) */
	/*
	 * Data, drop-tail over all classes: one queue, or with sw.prio_data
	 * one per IP precedence (the TOS byte's top 3 bits), the highest
	 * served first; qbytes is their sum.
	 */
	struct pkt *qh[NET_DATA_CLASSES], *qt[NET_DATA_CLASSES];
	uint32_t cbytes[NET_DATA_CLASSES];
	/* Strict priority: trimmed headers, control with sw.prio_ctrl. */
	struct pkt *hh, *ht;
	uint32_t qbytes, hbytes;
	bool busy;
	bool failed;			/* gone: ECMP passes it over */
	uint64_t drops, marks, trims, hdr_drops, ctrl_prio, data_prio;
	uint32_t max_q;
	/*
	 * sw.qhist: picoseconds the data queue spent at each length (in
	 * buckets of sw.qhist bytes, the last one open-ended) within
	 * [warmup, duration], and when qbytes last changed.
	 */
	uint64_t *qhist;
	uint64_t q_since;
	/* sw.qhist: data packets dropped and sent within the same window. */
	uint64_t meas_drops, meas_tx;
};

#define PORT_QHIST_BUCKETS	1024

/* sw.qhist: account the queue's length up to now (before it changes). */
void port_qhist(struct port *pt);

struct sw {
	struct net *net;
	uint32_t id;
	uint64_t salt;
	uint32_t nports;
	struct port *ports;
	uint32_t nfailed;		/* ports failed */
	/* Frames whose hash chose a failed port, and of those the ones
	 * with no port left to take. */
	uint64_t rerouted, unroutable;
};

void sw_init(struct net *n, struct sw *s, uint32_t id, uint32_t nports);
/* sw.pfc: tell every link its sender (after topo_build()). */
void pfc_init(struct net *n);
void sw_rx(void *node, struct pkt *p);
/* Queue @p at @pt (drop, mark, trim or prioritise): the self-test's way in. */
void port_enqueue(struct port *pt, struct pkt *p);

/* ECMP: which of @n equal-cost ports this 5-tuple takes. */
uint32_t ecmp_pick(uint64_t salt, uint32_t sip, uint32_t dip, uint16_t sport,
		   uint16_t dport, uint32_t n);

struct host {
	struct net *net;
	uint32_t id;
	uint32_t ipv4;			/* host order */
	struct link up;			/* the NIC's egress */
	struct sim_ev nicev;		/* pull now / current frame done */
	struct sim_ev postev;		/* deferred work of the app */
	struct rng rng;
	void *tp;
	bool sender;			/* posts messages: tp.*, else rxtp.* */
	uint64_t rx_frames;
};

void host_init(struct net *n, struct host *h, uint32_t id);
void host_rx(void *node, struct pkt *p);
void host_kick(struct host *h);
extern const struct wren_tp_env_ops host_env_ops;

struct app;

struct net {
	struct sim sim;
	const struct cfg *cfg;
	struct rng rng;			/* impairments */
	uint32_t pkt_cap;
	struct pkt *free_pkts;
	void *slabs;			/* every packet buffer */
	uint64_t pkts_live, pkts_max;

	uint32_t nhosts;
	struct host *hosts;
	uint32_t nsw;
	struct sw *sws;
	/* Egress of host i's downlink lives in a switch port. */
	const struct xport_ops *xp;
	struct app *app;
	const char *err;		/* first integrity failure */
};

/* topo.c */
int topo_build(struct net *n);
void topo_free(struct net *n);
/* Equal-cost egress ports of @s toward host @dst: [*first, *first + *cnt). */
void topo_route(const struct net *n, const struct sw *s, uint32_t dst,
		uint32_t *first, uint32_t *cnt);
/* Every link, in a fixed order; @fn returns non-zero to stop. */
int topo_each_link(struct net *n, int (*fn)(struct link *l, void *arg),
		   void *arg);
struct link *topo_find_link(struct net *n, const char *name);
/* htsim's failed link (htsim.h): NULL, or why it is not in the tree. */
const char *topo_ht_fail(struct net *n, const struct ht_fail *f);
/* The group a permutation pairs across: leaf, fat-tree pod, else host. */
uint32_t topo_leaf_of(const struct net *n, uint32_t host);
/* Equal-cost paths host @a -> host @b that end at @b (0: unreachable). */
uint64_t topo_paths(const struct net *n, uint32_t a, uint32_t b);
/* Sum of propagation delays host @a -> host @b and back. */
uint64_t topo_rtt_prop_ps(const struct net *n, uint32_t a, uint32_t b);
/* The same with a frame of @len bytes there and one of @back_len back,
 * stored and forwarded at every hop: an unloaded round trip. */
uint64_t topo_rtt_ps(const struct net *n, uint32_t a, uint32_t b,
		     uint32_t len, uint32_t back_len);

#endif /* NETSIM_NET_H */
