/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The device's counters: the one list of them, in three groups: the
 * transport's, the Ethernet function's and the engine's (what happens
 * above the transport, in the queue pairs).
 *
 * Include this file with WREN_STAT(counter, scope) defined and it expands
 * once per transport counter, in the order the device reports them with
 * GET_STATS (enum wren_dev_stat in wren_if.h); with WREN_ETH_STAT(counter)
 * defined, once per counter of the Ethernet function, which follow them
 * (WREN_QPT_RAW_ETH; Documentation/device-interface.rst, "The Ethernet
 * function"), which `ethtool -S` shows; with WREN_ENG_STAT(counter, scope)
 * defined, once per engine counter, which follow those.  That order is
 * part of the device interface: each group only ever grows at its end.
 *
 * @scope is QP for a counter a queue pair's traffic moves, which a
 * counter set counts for the QPs bound to it (GET_STATS), and PORT for
 * one of the adapter as a whole (acknowledgements, contexts, drops before
 * a frame's QP is known).
 *
 * The transport keeps a field of each of its names (struct
 * wren_tp_stats), the RDMA driver shows the transport's and the engine's
 * under their names in `rdma statistic` (the QP ones per QP counter too),
 * and the network simulator reports the transport's.
 * Documentation/transport.rst, "Counters", says what each one counts.
 *
 * No include guard: each includer expands the list its own way.
 */
#ifdef WREN_STAT
WREN_STAT(tx_pkts, PORT)			/* Wren frames sent */
WREN_STAT(tx_bytes, PORT)			/* their bytes */
WREN_STAT(rx_pkts, PORT)			/* Wren frames received */
WREN_STAT(rx_bytes, PORT)			/* their bytes */
WREN_STAT(tx_data_pkts, QP)			/* DATA packets sent, first or again */
WREN_STAT(rx_data_pkts, QP)			/* DATA packets received and placed */
WREN_STAT(retx_timeout, QP)			/* resent: a sub-flow's timer expired */
WREN_STAT(retx_fast, QP)	/* resent: later packets of its sub-flow were acked */
WREN_STAT(retx_nack, QP)			/* resent: the target saw it trimmed */
WREN_STAT(retx_reconnect, QP)	/* resent in a new incarnation of its context */
WREN_STAT(retx_spurious, QP)		/* resent though the target had it */
WREN_STAT(rx_ooo_pkts, QP)	/* DATA packets beyond the receive base */
WREN_STAT(rx_dup_pkts, QP)	/* DATA packets already received, dropped */
WREN_STAT(rx_drops, PORT)	/* other frames dropped: the sum of rx_drop_* */
WREN_STAT(tx_acks, PORT)			/* ACKs sent */
WREN_STAT(rx_acks, PORT)			/* ACKs received */
WREN_STAT(tx_nacks, PORT)			/* NACKs sent */
WREN_STAT(rx_nacks, PORT)			/* NACKs received */
WREN_STAT(rx_ecn_ce, QP)			/* packets that arrived marked CE */
WREN_STAT(ctx_created, PORT)			/* sending contexts opened */
WREN_STAT(ctx_evicted, PORT)			/* ... closed when idle */
WREN_STAT(ctx_reestablished, PORT)	/* ... opened again: the target lost them */
WREN_STAT(ctx_failed, PORT)	/* ... given up: the target stopped answering */
WREN_STAT(path_changes, PORT)			/* sub-flows moved to another path */
WREN_STAT(tx_grants, PORT)			/* GRANTs sent */
WREN_STAT(rx_grants, PORT)			/* GRANTs received */
WREN_STAT(cc_decreases, PORT)			/* congestion window cuts */
WREN_STAT(tx_msgs, QP)	/* reliable messages delivered, as sender */
WREN_STAT(rx_msgs, QP)	/* reliable messages delivered, as target */
WREN_STAT(tx_ud, QP)			/* datagrams sent */
WREN_STAT(rx_ud, QP)			/* datagrams received */
WREN_STAT(msg_errors, QP)	/* messages that failed: the sum of msg_err_* */
WREN_STAT(ctx_spilled, PORT)	/* idle contexts written to the host's table */
WREN_STAT(ctx_restored, PORT)			/* ... and read back from it */
WREN_STAT(tc_errors, PORT)	/* table records unreadable or malformed */
WREN_STAT(tx_data_bytes, QP)	/* payload bytes of DATA and datagrams sent */
WREN_STAT(rx_data_bytes, QP)		/* payload bytes placed */
WREN_STAT(rx_drop_malformed, PORT)		/* dropped: not a valid Wren frame */
WREN_STAT(rx_drop_not_mine, PORT)		/* dropped: another address or port */
WREN_STAT(rx_drop_stale, PORT)	/* dropped: an old incarnation of a context */
WREN_STAT(rx_drop_unknown_ctx, PORT)		/* dropped: no context to deliver to */
WREN_STAT(rx_drop_window, PORT)	/* dropped: outside the receive window */
WREN_STAT(rx_drop_no_resources, PORT)		/* dropped: no context or slot free */
WREN_STAT(rx_drop_invalid, PORT)	/* dropped: a field contradicts its context */
WREN_STAT(rx_drop_refused, PORT)	/* dropped: a datagram its target refused */
WREN_STAT(rx_ctx_created, PORT)		/* receive contexts opened */
WREN_STAT(rx_ctx_closed, PORT)	/* receive contexts closed by their initiator */
WREN_STAT(msg_err_unresponsive, QP)	/* failed: the target answered, then stopped */
WREN_STAT(msg_err_unreachable, QP)		/* failed: the target never answered */
WREN_STAT(msg_err_bad_dest_qp, QP)	/* failed: no such queue pair or Q_Key */
WREN_STAT(msg_err_rnr, QP)	/* failed: the target had no receive posted */
WREN_STAT(msg_err_remote_op, QP)	/* failed: the target could not place it */
WREN_STAT(msg_err_too_long, QP)	/* failed: longer than the target's buffer */
WREN_STAT(msg_err_remote_access, QP)	/* failed: the access was refused */
WREN_STAT(msg_err_local, QP)	/* failed: its data could not be read here */
WREN_STAT(msg_err_flushed, QP)	/* failed: flushed by a reset or a close */
#endif

#ifdef WREN_ETH_STAT
WREN_ETH_STAT(eth_tx_frames)		/* frames sent */
WREN_ETH_STAT(eth_tx_bytes)		/* their bytes */
WREN_ETH_STAT(eth_rx_frames)		/* frames placed in a receive */
WREN_ETH_STAT(eth_rx_bytes)		/* their bytes */
WREN_ETH_STAT(eth_rx_filtered)	/* dropped: another adapter's unicast MAC */
WREN_ETH_STAT(eth_rx_no_buf)	/* dropped: no receive posted */
WREN_ETH_STAT(eth_rx_too_long)	/* dropped: longer than the receive */
WREN_ETH_STAT(eth_rx_errors)	/* dropped: the receive could not be written */
#endif

#ifdef WREN_ENG_STAT
WREN_ENG_STAT(rnr_waits, QP)	/* sends refused for want of a receive, to retry */
WREN_ENG_STAT(rnr_refusals, QP)	/* messages refused: no receive was posted */
#endif
