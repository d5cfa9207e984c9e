// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Links: serialization at the link rate (the frame plus Ethernet's
 * preamble, FCS and gap), then propagation.  Impairments are decided when
 * a frame starts, so a lost frame still occupies the wire as it would.
 */
#include <stdio.h>

#include "net.h"

static void link_arrive(struct sim_ev *ev)
{
	struct pkt *p = container_of(ev, struct pkt, ev);
	struct link *l = p->link;

	l->rx(l->node, p);
}

/* Does the wire eat this frame? */
static bool link_loses(struct link *l)
{
	const struct imp *im = l->imp;
	struct net *n = l->net;
	uint64_t now = n->sim.now;
	double p;

	if (now >= im->down_ps && now < im->up_ps) {
		l->blackholed++;
		return true;
	}
	if (im->p_gb > 0) {
		if (l->ge_bad)
			l->ge_bad = !rng_chance(&n->rng, im->p_bg);
		else
			l->ge_bad = rng_chance(&n->rng, im->p_gb);
	}
	p = l->ge_bad ? im->bad_loss : im->loss;
	if (rng_chance(&n->rng, p)) {
		l->lost++;
		return true;
	}
	return false;
}

static void link_deliver(struct link *l, struct pkt *p, uint64_t t)
{
	p->link = l;
	p->ev.fn = link_arrive;
	sim_fire_at(&l->net->sim, &p->ev, t);
}

uint64_t link_send(struct link *l, struct pkt *p)
{
	struct net *n = l->net;
	uint64_t ser = link_ser_ps(l, p->len);
	uint64_t done = n->sim.now + ser;
	uint64_t arrive = done + l->prop_ps + l->imp->extra_ps;

	l->tx_pkts++;
	l->tx_bytes += p->len;
	l->busy_ps += ser;
	if (link_loses(l)) {
		pkt_free(n, p);
		return done;
	}
	if (rng_chance(&n->rng, l->imp->dup)) {
		l->duped++;
		link_deliver(l, pkt_clone(n, p), arrive);
	}
	link_deliver(l, p, arrive);
	return done;
}
