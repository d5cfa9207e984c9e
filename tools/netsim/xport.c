// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Glue common to the transports: lazy creation, and the names of the
 * statistics (kept here rather than taken from the transport so reports
 * look the same whichever transport ran).
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

#define F(name) { #name, offsetof(struct wren_tp_stats, name) }
#define A(name, arr, i) { name, offsetof(struct wren_tp_stats, arr) + \
			  (i) * sizeof(uint64_t) }

const struct stat_field stat_fields[] = {
	F(tx_pkts), F(tx_bytes), F(rx_pkts), F(rx_bytes),
	F(tx_data_pkts), F(tx_data_bytes), F(rx_data_pkts), F(rx_data_bytes),
	A("retx_timeout", retx, WREN_TP_RETX_TIMEOUT),
	A("retx_fast", retx, WREN_TP_RETX_FAST),
	A("retx_nack", retx, WREN_TP_RETX_NACK),
	A("retx_reconnect", retx, WREN_TP_RETX_RECONNECT),
	F(spurious_retx), F(ooo_pkts),
	A("drops_malformed", drops, WREN_TP_DROP_MALFORMED),
	A("drops_not_mine", drops, WREN_TP_DROP_NOT_MINE),
	A("drops_stale", drops, WREN_TP_DROP_STALE),
	A("drops_unknown_ctx", drops, WREN_TP_DROP_UNKNOWN_CTX),
	A("drops_window", drops, WREN_TP_DROP_WINDOW),
	A("drops_duplicate", drops, WREN_TP_DROP_DUPLICATE),
	A("drops_no_resources", drops, WREN_TP_DROP_NO_RESOURCES),
	A("drops_invalid", drops, WREN_TP_DROP_INVALID),
	A("drops_refused", drops, WREN_TP_DROP_REFUSED),
	F(acks_tx), F(acks_rx), F(nacks_tx), F(nacks_rx), F(ecn_ce),
	F(ctx_created), F(ctx_evicted), F(ctx_reestablished), F(ctx_failed),
	F(ctx_spilled), F(ctx_restored), F(tc_errors),
	F(rx_ctx_created), F(rx_ctx_closed), F(path_changes),
	F(grants_tx), F(grants_rx), F(cc_decreases), F(msgs_tx), F(msgs_rx),
	F(ud_tx), F(ud_rx),
	A("msg_errors_ok", msg_errors, WREN_TP_OK),
	A("msg_errors_remote_unresponsive", msg_errors,
	  WREN_TP_REMOTE_UNRESPONSIVE),
	A("msg_errors_remote_unreachable", msg_errors,
	  WREN_TP_REMOTE_UNREACHABLE),
	A("msg_errors_bad_dest_qp", msg_errors, WREN_TP_BAD_DEST_QP),
	A("msg_errors_rnr", msg_errors, WREN_TP_RNR),
	A("msg_errors_remote_op_error", msg_errors, WREN_TP_REMOTE_OP_ERROR),
	A("msg_errors_too_long", msg_errors, WREN_TP_TOO_LONG),
	A("msg_errors_remote_access", msg_errors, WREN_TP_REMOTE_ACCESS),
	A("msg_errors_local_error", msg_errors, WREN_TP_LOCAL_ERROR),
	A("msg_errors_flushed", msg_errors, WREN_TP_FLUSHED),
};

const size_t n_stat_fields = sizeof(stat_fields) / sizeof(stat_fields[0]);

_Static_assert(sizeof(stat_fields) / sizeof(stat_fields[0]) ==
	       sizeof(struct wren_tp_stats) / sizeof(uint64_t),
	       "every wren_tp_stats field has a name");
