// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: what each peer holds of the pools all peers share, so
 * that one peer cannot take them all (Documentation/transport.rst,
 * "Shares").  The messages posted to a peer, the receive contexts its
 * contexts open here and its messages being received here are counted
 * per peer address, and a peer may hold at most cfg.peer_share / 256 of
 * each pool: a dead target cannot hold every message slot of this
 * adapter with messages that wait for it, nor a hostile or slow
 * initiator every receive context (one per context id it makes up) or
 * every receive slot (one per message it starts and never finishes).
 *
 * The table is open addressing with linear probing, by address; a peer's
 * entry lives while it holds anything, and leaves with backward-shift
 * deletion, so lookups never meet tombstones.  It has room for every
 * holder at once (a message or a receive context each) at half load.
 */
#include <stdlib.h>

#include "tp_internal.h"

int tp_peer_init(struct wren_tp *tp)
{
	const struct wren_tp_config *cfg = &tp->cfg;
	uint64_t holders = 2ULL * (cfg->max_msgs + cfg->max_rx_ctx);
	uint32_t n = 16;

	while (n < holders)
		n <<= 1;
	tp->peers = calloc(n, sizeof(*tp->peers));
	if (!tp->peers)
		return -ENOMEM;
	tp->peers_mask = n - 1;
	tp->peer_max[TP_POOL_TX_MSGS] = cfg->max_msgs;
	tp->peer_max[TP_POOL_RX_CTX] = cfg->max_rx_ctx;
	tp->peer_max[TP_POOL_RX_MSGS] = cfg->max_msgs;
	for (int i = 0; i < TP_POOL_COUNT; i++) {
		uint64_t share = (uint64_t)tp->peer_max[i] * cfg->peer_share /
				 256;

		tp->peer_max[i] = share ? share : 1;
	}
	return 0;
}

void tp_peer_free_table(struct wren_tp *tp)
{
	free(tp->peers);
	tp->peers = NULL;
}

static bool peer_free(const struct tp_peer *p)
{
	for (int i = 0; i < TP_POOL_COUNT; i++)
		if (p->held[i])
			return false;
	return true;
}

/* @ipv4's entry, or the free one where it would go. */
static struct tp_peer *peer_slot(struct wren_tp *tp, uint32_t ipv4)
{
	uint32_t i = tp_peer_hash(ipv4, 0) & tp->peers_mask;

	while (!peer_free(&tp->peers[i]) && tp->peers[i].ipv4 != ipv4)
		i = (i + 1) & tp->peers_mask;
	return &tp->peers[i];
}

/*
 * One more of @pool for @ipv4, if its share allows: false (and nothing
 * taken) when the peer holds its share already.
 */
bool tp_peer_take(struct wren_tp *tp, uint32_t ipv4, enum tp_pool pool)
{
	struct tp_peer *p = peer_slot(tp, ipv4);

	if (p->held[pool] >= tp->peer_max[pool])
		return false;
	p->ipv4 = ipv4;
	p->held[pool]++;
	return true;
}

/* Entries after the hole that would no longer be found move into it. */
static void peer_close_hole(struct wren_tp *tp, uint32_t hole)
{
	uint32_t i = hole;

	for (;;) {
		uint32_t home;

		i = (i + 1) & tp->peers_mask;
		if (peer_free(&tp->peers[i]))
			return;
		home = tp_peer_hash(tp->peers[i].ipv4, 0) & tp->peers_mask;
		/* Stays if its home lies cyclically in (hole, i]. */
		if (((i - home) & tp->peers_mask) <
		    ((i - hole) & tp->peers_mask))
			continue;
		tp->peers[hole] = tp->peers[i];
		tp->peers[i] = (struct tp_peer){ 0 };
		hole = i;
	}
}

/* Give back one of @pool that tp_peer_take() gave @ipv4. */
void tp_peer_put(struct wren_tp *tp, uint32_t ipv4, enum tp_pool pool)
{
	struct tp_peer *p = peer_slot(tp, ipv4);

	if (!p->held[pool])
		return;		/* not taken: a bug, but not one to crash on */
	p->held[pool]--;
	if (peer_free(p))
		peer_close_hole(tp, p - tp->peers);
}
