// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Packet buffers: one size (the largest frame of the run), carved from
 * slabs and recycled through a free list, so steady state never calls
 * malloc and the end of a run frees packets still queued or in flight
 * without finding them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"

#define SLAB_PKTS	64

struct slab {
	struct slab *next;
	char mem[];
};

static size_t pkt_size(const struct net *n)
{
	return (sizeof(struct pkt) + n->pkt_cap + 63) & ~(size_t)63;
}

static void slab_new(struct net *n)
{
	size_t sz = pkt_size(n);
	struct slab *s = malloc(sizeof(*s) + SLAB_PKTS * sz);
	int i;

	if (!s) {
		perror("netsim: packets");
		exit(2);
	}
	s->next = n->slabs;
	n->slabs = s;
	for (i = SLAB_PKTS - 1; i >= 0; i--) {
		struct pkt *p = (struct pkt *)(s->mem + i * sz);

		p->next = n->free_pkts;
		n->free_pkts = p;
	}
}

struct pkt *pkt_alloc(struct net *n)
{
	struct pkt *p;

	if (!n->free_pkts)
		slab_new(n);
	p = n->free_pkts;
	n->free_pkts = p->next;
	p->ev = (struct sim_ev){ 0 };
	p->next = NULL;
	p->link = NULL;
	p->len = 0;
	p->pfc = 0;
	if (++n->pkts_live > n->pkts_max)
		n->pkts_max = n->pkts_live;
	return p;
}

struct pkt *pkt_clone(struct net *n, const struct pkt *p)
{
	struct pkt *c = pkt_alloc(n);

	c->len = p->len;
	memcpy(c->data, p->data, p->len);
	return c;
}

void pkt_free(struct net *n, struct pkt *p)
{
	p->next = n->free_pkts;
	n->free_pkts = p;
	n->pkts_live--;
}

void pkt_free_all(struct net *n)
{
	struct slab *s = n->slabs, *next;

	for (; s; s = next) {
		next = s->next;
		free(s);
	}
	n->slabs = NULL;
	n->free_pkts = NULL;
}
