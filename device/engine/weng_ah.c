// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: address handles, where a UD or RD send goes (the peer's
 * address and next hop), each in a PD.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

int weng_ah_init(struct weng *e)
{
	e->ahs = calloc(e->cfg.max_ah, sizeof(*e->ahs));
	return e->ahs ? 0 : -ENOMEM;
}

void weng_ah_fini(struct weng *e)
{
	free(e->ahs);
	e->ahs = NULL;
}

void weng_ah_reset(struct weng *e)
{
	memset(e->ahs, 0, e->cfg.max_ah * sizeof(*e->ahs));
}

/*
 * Whether an AH, or a send entry's own destination (WREN_WQE_F_AV), may
 * name @ipv4 (network byte order) behind @mac: a unicast host, not 0/8,
 * loopback, multicast or broadcast, and a unicast next hop.
 */
bool weng_dest_ok(uint32_t ipv4, const uint8_t *mac)
{
	uint32_t ip = be32toh(ipv4);

	return ip >> 24 && ip >> 24 != 127 && ip >> 28 < 0xe && !(mac[0] & 1);
}

/* AH @n if it exists in PD @pdn, else NULL. */
const struct weng_ah *weng_ah_get(const struct weng *e, uint32_t n,
				  uint32_t pdn)
{
	if (n >= e->cfg.max_ah || !e->ahs[n].in_use || e->ahs[n].pdn != pdn)
		return NULL;
	return &e->ahs[n];
}
