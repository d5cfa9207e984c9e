/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The transports a run can host, behind one table of calls shaped like
 * the wren_tp API, so the traffic generators (struct wren_tp_ulp_ops) and
 * the NIC do not know which one they drive.
 */
#ifndef NETSIM_XPORT_H
#define NETSIM_XPORT_H

#include <stddef.h>
#include <stdint.h>

#include "wren_tp.h"

struct net;
struct host;

struct xport_ops {
	const char *name;
	/* NULL on failure, after printing why. */
	void *(*create)(struct net *n, struct host *h,
			const struct wren_tp_ulp_ops *ulp);
	void (*destroy)(void *tp);
	int (*send)(void *tp, const struct wren_tp_dest *dst,
		    const struct wren_tp_msg *msg, uint64_t cookie);
	size_t (*tx_pull)(void *tp, void *frame, size_t cap);
	void (*rx)(void *tp, const void *frame, size_t len);
	void (*stats)(const void *tp, struct wren_tp_stats *st);
	size_t (*ctx_memory)(const void *tp);
	size_t (*peer_memory)(const void *tp, uint32_t ipv4);
	/* Largest frame for this config, before any instance exists. */
	size_t (*frame_max)(const struct net *n);
};

extern const struct xport_ops xport_wren;
extern const struct xport_ops xport_gbn;
extern const struct xport_ops xport_ndp;
extern const struct xport_ops xport_uet;

/* The ULP every transport of the run calls (app.c). */
extern const struct wren_tp_ulp_ops app_ulp_ops;

/*
 * Create @h's transport on first use: idle hosts of a huge star cost
 * nothing.
 */
void xport_ensure(struct net *n, struct host *h);

/* The stats fields by name, for reports and sums. */
struct stat_field {
	const char *name;
	size_t off;
};
extern const struct stat_field stat_fields[];
extern const size_t n_stat_fields;

#endif /* NETSIM_XPORT_H */
