/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The device's counters: the one list of them, in three groups: the
 * transport's, the Ethernet function's and the engine's (what happens
 * above the transport, in the queue pairs).
 *
 * Include this file with WREN_STAT(counter) defined and it expands once
 * per transport counter, in the order the device reports them with
 * GET_STATS (enum wren_dev_stat in wren_if.h); with WREN_ETH_STAT(counter)
 * defined, once per counter of the Ethernet function, which follow them
 * (WREN_QPT_RAW_ETH; Documentation/device-interface.rst, "The Ethernet
 * function"), which `ethtool -S` shows; with WREN_ENG_STAT(counter)
 * defined, once per engine counter, which follow those.  That order is
 * part of the device interface: each group only ever grows at its end.
 *
 * The counters a queue pair's traffic moves, which a counter set counts
 * for the QPs bound to it (GET_STATS), are listed as WREN_STAT_QP() and
 * WREN_ENG_STAT_QP(): an includer that defines those tells them apart,
 * one that does not gets them as WREN_STAT() and WREN_ENG_STAT().  The
 * others are the adapter's as a whole (acknowledgements, contexts, drops
 * before a frame's QP is known).
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
#ifndef WREN_STAT_QP
#define WREN_STAT_QP(counter)	WREN_STAT(counter)
#define WREN_STAT_QP_DEFAULT
#endif
WREN_STAT(tx_pkts)			/* Wren frames sent */
WREN_STAT(tx_bytes)			/* their bytes */
WREN_STAT(rx_pkts)			/* Wren frames received */
WREN_STAT(rx_bytes)			/* their bytes */
WREN_STAT_QP(tx_data_pkts)			/* DATA packets sent, first or again */
WREN_STAT_QP(rx_data_pkts)			/* DATA packets received and placed */
WREN_STAT_QP(retx_timeout)			/* resent: a sub-flow's timer expired */
WREN_STAT_QP(retx_fast)	/* resent: later packets of its sub-flow were acked */
WREN_STAT_QP(retx_nack)			/* resent: the target saw it trimmed */
WREN_STAT_QP(retx_reconnect)	/* resent in a new incarnation of its context */
WREN_STAT_QP(retx_spurious)		/* resent though the target had it */
WREN_STAT_QP(rx_ooo_pkts)	/* DATA packets beyond the receive base */
WREN_STAT_QP(rx_dup_pkts)	/* DATA packets already received, dropped */
WREN_STAT(rx_drops)	/* other frames dropped: the sum of rx_drop_* */
WREN_STAT(tx_acks)			/* ACKs sent */
WREN_STAT(rx_acks)			/* ACKs received */
WREN_STAT(tx_nacks)			/* NACKs sent */
WREN_STAT(rx_nacks)			/* NACKs received */
WREN_STAT_QP(rx_ecn_ce)			/* packets that arrived marked CE */
WREN_STAT(ctx_created)			/* sending contexts opened */
WREN_STAT(ctx_evicted)			/* ... closed when idle */
WREN_STAT(ctx_reestablished)	/* ... opened again: the target lost them */
WREN_STAT(ctx_failed)	/* ... given up: the target stopped answering */
WREN_STAT(path_changes)			/* sub-flows moved to another path */
WREN_STAT(tx_grants)			/* GRANTs sent */
WREN_STAT(rx_grants)			/* GRANTs received */
WREN_STAT(cc_decreases)			/* congestion window cuts */
WREN_STAT_QP(tx_msgs)	/* reliable messages delivered, as sender */
WREN_STAT_QP(rx_msgs)	/* reliable messages delivered, as target */
WREN_STAT_QP(tx_ud)			/* datagrams sent */
WREN_STAT_QP(rx_ud)			/* datagrams received */
WREN_STAT_QP(msg_errors)	/* messages that failed: the sum of msg_err_* */
WREN_STAT(ctx_spilled)	/* idle contexts written to the host's table */
WREN_STAT(ctx_restored)			/* ... and read back from it */
WREN_STAT(tc_errors)	/* table records unreadable or malformed */
WREN_STAT_QP(tx_data_bytes)	/* payload bytes of DATA and datagrams sent */
WREN_STAT_QP(rx_data_bytes)		/* payload bytes placed */
WREN_STAT(rx_drop_malformed)		/* dropped: not a valid Wren frame */
WREN_STAT(rx_drop_not_mine)		/* dropped: another address or port */
WREN_STAT(rx_drop_stale)	/* dropped: an old incarnation of a context */
WREN_STAT(rx_drop_unknown_ctx)		/* dropped: no context to deliver to */
WREN_STAT(rx_drop_window)	/* dropped: outside the receive window */
WREN_STAT(rx_drop_no_resources)		/* dropped: no context or slot free */
WREN_STAT(rx_drop_invalid)	/* dropped: a field contradicts its context */
WREN_STAT(rx_drop_refused)	/* dropped: a datagram its target refused */
WREN_STAT(rx_ctx_created)		/* receive contexts opened */
WREN_STAT(rx_ctx_closed)	/* receive contexts closed by their initiator */
WREN_STAT_QP(msg_err_unresponsive)	/* failed: the target answered, then stopped */
WREN_STAT_QP(msg_err_unreachable)		/* failed: the target never answered */
WREN_STAT_QP(msg_err_bad_dest_qp)	/* failed: no such queue pair or Q_Key */
WREN_STAT_QP(msg_err_rnr)	/* failed: the target had no receive posted */
WREN_STAT_QP(msg_err_remote_op)	/* failed: the target could not place it */
WREN_STAT_QP(msg_err_too_long)	/* failed: longer than the target's buffer */
WREN_STAT_QP(msg_err_remote_access)	/* failed: the access was refused */
WREN_STAT_QP(msg_err_local)	/* failed: its data could not be read here */
WREN_STAT_QP(msg_err_flushed)	/* failed: flushed by a reset or a close */
WREN_STAT(rx_drop_share)	/* dropped: its peer holds its share already */
WREN_STAT(grant_probes)	/* GRANT_REQs sent again: the grants stopped */
#ifdef WREN_STAT_QP_DEFAULT
#undef WREN_STAT_QP
#undef WREN_STAT_QP_DEFAULT
#endif
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
#ifndef WREN_ENG_STAT_QP
#define WREN_ENG_STAT_QP(counter)	WREN_ENG_STAT(counter)
#define WREN_ENG_STAT_QP_DEFAULT
#endif
WREN_ENG_STAT_QP(rnr_waits)	/* sends refused for want of a receive, to retry */
WREN_ENG_STAT_QP(rnr_refusals)	/* messages refused: no receive was posted */
#ifdef WREN_ENG_STAT_QP_DEFAULT
#undef WREN_ENG_STAT_QP
#undef WREN_ENG_STAT_QP_DEFAULT
#endif
#endif
