// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Glue common to the transports: lazy creation, and the names of the
 * statistics (the transport's list, whichever transport ran, so reports
 * look the same).
 */
#include <stdio.h>
#include <stdlib.h>

#include "net.h"
#include "xport.h"

void xport_ensure(struct net *n, struct host *h)
{
	if (h->tp)
		return;
	h->tp = n->xp->create(n, h, &app_ulp_ops);
	if (!h->tp) {
		fprintf(stderr, "netsim: host%u: cannot create %s transport\n",
			h->id, n->xp->name);
		exit(2);
	}
}

/* Every counter of the transport, under its name in the one list. */
const struct stat_field stat_fields[] = {
#define WREN_STAT(counter)	\
	{ #counter, offsetof(struct wren_tp_stats, counter) },
#include "linux/wren/wren_stats.h"
#undef WREN_STAT
};

const size_t n_stat_fields = sizeof(stat_fields) / sizeof(stat_fields[0]);

_Static_assert(sizeof(stat_fields) / sizeof(stat_fields[0]) ==
	       sizeof(struct wren_tp_stats) / sizeof(uint64_t),
	       "every wren_tp_stats field has a name");
