// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Hosts: a NIC with one egress link that pulls frames from its transport
 * whenever the wire is idle, and the transport's environment (clock,
 * timers, randomness, the kick) on top of the simulator.
 */
#include <stdio.h>
#include <stdlib.h>

#include "net.h"
#include "xport.h"

/* The wire is free (or the transport kicked): take the next frame. */
static void nic_pull(struct sim_ev *ev)
{
	struct host *h = container_of(ev, struct host, nicev);
	struct net *n = h->net;
	struct pkt *p;
	size_t len;

	/* Paused by the switch (sw.pfc): one lossless class, the whole NIC. */
	if (!h->tp || h->up.paused)
		return;
	p = pkt_alloc(n);
	len = n->xp->tx_pull(h->tp, p->data, n->pkt_cap);
	if (!len) {
		pkt_free(n, p);
		return;
	}
	if (len > n->pkt_cap) {
		fprintf(stderr, "netsim: host%u: frame of %zu bytes\n", h->id,
			len);
		exit(2);
	}
	p->len = (uint32_t)len;
	sim_at(&n->sim, &h->nicev, link_send(&h->up, p));
}

void host_kick(struct host *h)
{
	/*
	 * Queued means a pull is due or the wire is busy: either way the
	 * transport will be asked when the wire frees up.
	 */
	if (!sim_queued(&h->nicev))
		sim_at(&h->net->sim, &h->nicev, h->net->sim.now);
}

void host_rx(void *node, struct pkt *p)
{
	struct host *h = node;
	struct net *n = h->net;

	h->rx_frames++;
	xport_ensure(n, h);
	n->xp->rx(h->tp, p->data, p->len);
	pkt_free(n, p);
}

void host_init(struct net *n, struct host *h, uint32_t id)
{
	h->net = n;
	h->id = id;
	h->ipv4 = host_ip(id);
	h->up.net = n;
	h->nicev.fn = nic_pull;
	rng_seed(&h->rng, n->cfg->seed, 1 + (uint64_t)id);
}

static uint64_t env_now_ns(void *opaque)
{
	struct host *h = opaque;

	return h->net->sim.now / PS_PER_NS;
}

static void *env_timer_new(void *opaque, void (*cb)(void *arg), void *arg)
{
	struct host *h = opaque;

	return sim_timer_new(&h->net->sim, cb, arg);
}

static void env_timer_arm(void *timer, uint64_t expire_ns)
{
	sim_timer_arm(timer, expire_ns);
}

static void env_timer_cancel(void *timer)
{
	sim_timer_cancel(timer);
}

static void env_timer_free(void *timer)
{
	sim_timer_free(timer);
}

static void env_tx_kick(void *opaque)
{
	host_kick(opaque);
}

static uint32_t env_random(void *opaque)
{
	struct host *h = opaque;

	return (uint32_t)(rng_next(&h->rng) >> 32);
}

const struct wren_tp_env_ops host_env_ops = {
	.now_ns = env_now_ns,
	.timer_new = env_timer_new,
	.timer_arm = env_timer_arm,
	.timer_cancel = env_timer_cancel,
	.timer_free = env_timer_free,
	.tx_kick = env_tx_kick,
	.random = env_random,
};
