// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: the port's hardware counters, for `rdma statistic`.
 * They are the device's transport counters, read with GET_STATS; the
 * names follow enum wren_dev_stat.
 */
#include "wren_ib.h"

static const struct rdma_stat_desc wren_ib_port_stats[] = {
	[WREN_STAT_TX_PKTS].name = "tx_pkts",
	[WREN_STAT_TX_BYTES].name = "tx_bytes",
	[WREN_STAT_RX_PKTS].name = "rx_pkts",
	[WREN_STAT_RX_BYTES].name = "rx_bytes",
	[WREN_STAT_TX_DATA_PKTS].name = "tx_data_pkts",
	[WREN_STAT_RX_DATA_PKTS].name = "rx_data_pkts",
	[WREN_STAT_RETX_TIMEOUT].name = "retx_timeout",
	[WREN_STAT_RETX_FAST].name = "retx_fast",
	[WREN_STAT_RETX_NACK].name = "retx_nack",
	[WREN_STAT_RETX_RECONNECT].name = "retx_reconnect",
	[WREN_STAT_SPURIOUS_RETX].name = "retx_spurious",
	[WREN_STAT_OOO_PKTS].name = "rx_ooo_pkts",
	[WREN_STAT_DUP_PKTS].name = "rx_dup_pkts",
	[WREN_STAT_RX_DROPS].name = "rx_drops",
	[WREN_STAT_ACKS_TX].name = "tx_acks",
	[WREN_STAT_ACKS_RX].name = "rx_acks",
	[WREN_STAT_NACKS_TX].name = "tx_nacks",
	[WREN_STAT_NACKS_RX].name = "rx_nacks",
	[WREN_STAT_ECN_CE].name = "rx_ecn_ce",
	[WREN_STAT_CTX_CREATED].name = "ctx_created",
	[WREN_STAT_CTX_EVICTED].name = "ctx_evicted",
	[WREN_STAT_CTX_REESTABLISHED].name = "ctx_reestablished",
	[WREN_STAT_CTX_FAILED].name = "ctx_failed",
	[WREN_STAT_PATH_CHANGES].name = "path_changes",
	[WREN_STAT_GRANTS_TX].name = "tx_grants",
	[WREN_STAT_GRANTS_RX].name = "rx_grants",
	[WREN_STAT_CC_DECREASES].name = "cc_decreases",
	[WREN_STAT_MSGS_TX].name = "tx_msgs",
	[WREN_STAT_MSGS_RX].name = "rx_msgs",
	[WREN_STAT_UD_TX].name = "tx_ud",
	[WREN_STAT_UD_RX].name = "rx_ud",
	[WREN_STAT_MSG_ERRORS].name = "msg_errors",
	[WREN_STAT_CTX_SPILLED].name = "ctx_spilled",
	[WREN_STAT_CTX_RESTORED].name = "ctx_restored",
	[WREN_STAT_TC_ERRORS].name = "tc_errors",
};

static_assert(ARRAY_SIZE(wren_ib_port_stats) == WREN_STAT_COUNT);

/**
 * wren_ib_alloc_hw_port_stats() - the port's counter set
 * @ibdev: the device
 * @port: 1
 *
 * Return: the set, or NULL without memory.
 */
struct rdma_hw_stats *wren_ib_alloc_hw_port_stats(struct ib_device *ibdev,
						  u32 port)
{
	return rdma_alloc_hw_stats_struct(wren_ib_port_stats,
					  ARRAY_SIZE(wren_ib_port_stats),
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * wren_ib_get_hw_stats() - read the counters from the device
 * @ibdev: the device
 * @stats: the set of wren_ib_alloc_hw_port_stats()
 * @port: 1
 * @index: which counter ib_core wants; all are read at once
 *
 * Return: the number of counters updated, or a negative errno.
 */
int wren_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibdev);
	int n;

	n = wren_cmd_get_stats(dev->wdev, stats->value, stats->num_counters);
	if (n < 0)
		ibdev_err_ratelimited(ibdev, "reading the counters failed: %d\n",
				      n);
	return n;
}
