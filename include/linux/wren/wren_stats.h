/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The device's counters: the one list of them, the transport's and then
 * the Ethernet function's.
 *
 * Include this file with WREN_STAT(counter) defined and it expands once
 * per transport counter, in the order the device reports them with
 * GET_STATS (enum wren_dev_stat in wren_if.h); with WREN_ETH_STAT(counter)
 * defined, once per counter of the Ethernet function, which follow them (WREN_QPT_RAW_ETH;
 * Documentation/device-interface.rst, "The Ethernet function"); `ethtool
 * -S` shows those.  That order is part of the device interface: counters
 * are only ever appended.  The transport keeps a field of each of its
 * names (struct wren_tp_stats), the RDMA driver shows each under it in
 * `rdma statistic`, and the network simulator reports each under it.
 * Documentation/transport.rst, "Counters", says what each one counts.
 *
 * No include guard: each includer expands the list its own way.
 */
#ifdef WREN_STAT
WREN_STAT(tx_pkts)			/* Wren frames sent */
WREN_STAT(tx_bytes)			/* their bytes */
WREN_STAT(rx_pkts)			/* Wren frames received */
WREN_STAT(rx_bytes)			/* their bytes */
WREN_STAT(tx_data_pkts)			/* DATA packets sent, first or again */
WREN_STAT(rx_data_pkts)			/* DATA packets received and placed */
WREN_STAT(retx_timeout)			/* resent: a sub-flow's timer expired */
WREN_STAT(retx_fast)	/* resent: later packets of its sub-flow were acked */
WREN_STAT(retx_nack)			/* resent: the target saw it trimmed */
WREN_STAT(retx_reconnect)	/* resent in a new incarnation of its context */
WREN_STAT(retx_spurious)		/* resent though the target had it */
WREN_STAT(rx_ooo_pkts)	/* DATA packets beyond the receive base */
WREN_STAT(rx_dup_pkts)	/* DATA packets already received, dropped */
WREN_STAT(rx_drops)	/* other frames dropped: the sum of rx_drop_* */
WREN_STAT(tx_acks)			/* ACKs sent */
WREN_STAT(rx_acks)			/* ACKs received */
WREN_STAT(tx_nacks)			/* NACKs sent */
WREN_STAT(rx_nacks)			/* NACKs received */
WREN_STAT(rx_ecn_ce)			/* packets that arrived marked CE */
WREN_STAT(ctx_created)			/* sending contexts opened */
WREN_STAT(ctx_evicted)			/* ... closed when idle */
WREN_STAT(ctx_reestablished)	/* ... opened again: the target lost them */
WREN_STAT(ctx_failed)	/* ... given up: the target stopped answering */
WREN_STAT(path_changes)			/* sub-flows moved to another path */
WREN_STAT(tx_grants)			/* GRANTs sent */
WREN_STAT(rx_grants)			/* GRANTs received */
WREN_STAT(cc_decreases)			/* congestion window cuts */
WREN_STAT(tx_msgs)	/* reliable messages delivered, as sender */
WREN_STAT(rx_msgs)	/* reliable messages delivered, as target */
WREN_STAT(tx_ud)			/* datagrams sent */
WREN_STAT(rx_ud)			/* datagrams received */
WREN_STAT(msg_errors)	/* messages that failed: the sum of msg_err_* */
WREN_STAT(ctx_spilled)	/* idle contexts written to the host's table */
WREN_STAT(ctx_restored)			/* ... and read back from it */
WREN_STAT(tc_errors)	/* table records unreadable or malformed */
WREN_STAT(tx_data_bytes)	/* payload bytes of DATA and datagrams sent */
WREN_STAT(rx_data_bytes)		/* payload bytes placed */
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
WREN_STAT(msg_err_unresponsive)	/* failed: the target answered, then stopped */
WREN_STAT(msg_err_unreachable)		/* failed: the target never answered */
WREN_STAT(msg_err_bad_dest_qp)	/* failed: no such queue pair or Q_Key */
WREN_STAT(msg_err_rnr)	/* failed: the target had no receive posted */
WREN_STAT(msg_err_remote_op)	/* failed: the target could not place it */
WREN_STAT(msg_err_too_long)	/* failed: longer than the target's buffer */
WREN_STAT(msg_err_remote_access)	/* failed: the access was refused */
WREN_STAT(msg_err_local)	/* failed: its data could not be read here */
WREN_STAT(msg_err_flushed)	/* failed: flushed by a reset or a close */
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
