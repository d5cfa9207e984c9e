// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The address table: which port owns an IPv4 address.  Static routes
 * (--route) are never replaced; other addresses are learnt from the
 * source of each frame, and move with the guest when it shows up on
 * another port.  Open addressing with linear probing: a few guests, a
 * few addresses each, and no deletion, so nothing fancier is needed.
 */
#include "fabric.h"
#include "rng.h"

static uint32_t slot_of(uint32_t ip)
{
	return (uint32_t)mix64(ip) & (FWD_SLOTS - 1);
}

/* The entry for @ip, or the free slot where it would go, or NULL. */
static struct fwd_entry *find(struct fwd_table *t, uint32_t ip)
{
	uint32_t i, s = slot_of(ip);

	for (i = 0; i < FWD_SLOTS; i++) {
		struct fwd_entry *e = &t->slot[(s + i) & (FWD_SLOTS - 1)];

		if (!e->used || e->ip == ip)
			return e;
	}
	return NULL;
}

/* Keep a quarter free so that probing stays short. */
static bool full(const struct fwd_table *t)
{
	return t->n >= FWD_SLOTS * 3 / 4;
}

int fwd_add_static(struct fwd_table *t, uint32_t ip, uint16_t port)
{
	struct fwd_entry *e = find(t, ip);

	if (!e || (!e->used && full(t)))
		return -1;
	if (!e->used)
		t->n++;
	e->ip = ip;
	e->port = port;
	e->used = true;
	e->is_static = true;
	return 0;
}

void fwd_learn(struct fwd_table *t, uint32_t ip, uint16_t port)
{
	struct fwd_entry *e = find(t, ip);

	if (!e || (!e->used && full(t))) {
		t->full++;
		return;
	}
	if (e->used && (e->is_static || e->port == port))
		return;
	if (!e->used)
		t->n++;
	e->ip = ip;
	e->port = port;
	e->used = true;
	t->learnt++;
}

int fwd_lookup(const struct fwd_table *t, uint32_t ip)
{
	const struct fwd_entry *e = find((struct fwd_table *)t, ip);

	return e && e->used ? e->port : -1;
}
