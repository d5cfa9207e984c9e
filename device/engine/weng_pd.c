// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: protection domains.  A PD is a number and the count of the
 * QPs, AHs and MRs in it; it cannot go while any of them is there.  A
 * kernel PD's QPs may also name host memory by its bus address
 * (WREN_LKEY_DMA).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

int weng_pd_init(struct weng *e)
{
	e->pd_used = calloc(e->cfg.max_pd, sizeof(*e->pd_used));
	e->pd_refs = calloc(e->cfg.max_pd, sizeof(*e->pd_refs));
	return e->pd_used && e->pd_refs ? 0 : -ENOMEM;
}

void weng_pd_fini(struct weng *e)
{
	free(e->pd_used);
	free(e->pd_refs);
	e->pd_used = NULL;
	e->pd_refs = NULL;
}

void weng_pd_reset(struct weng *e)
{
	memset(e->pd_used, 0, e->cfg.max_pd * sizeof(*e->pd_used));
	memset(e->pd_refs, 0, e->cfg.max_pd * sizeof(*e->pd_refs));
}

bool weng_pd_valid(const struct weng *e, uint32_t pdn)
{
	return pdn < e->cfg.max_pd && e->pd_used[pdn];
}

bool weng_pd_kernel(const struct weng *e, uint32_t pdn)
{
	return weng_pd_valid(e, pdn) && e->pd_used[pdn] & WENG_PD_KERNEL;
}
