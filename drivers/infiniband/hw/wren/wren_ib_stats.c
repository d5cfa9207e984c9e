// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: the port's hardware counters, for `rdma statistic`.
 * They are the device's transport counters, read with GET_STATS, under
 * the names of their one list, linux/wren/wren_stats.h.
 */
#include "wren_ib.h"

static const struct rdma_stat_desc wren_ib_port_stats[] = {
#define WREN_STAT(counter, scope)	{ .name = #counter },
#include <linux/wren/wren_stats.h>
#undef WREN_STAT
};

static_assert(ARRAY_SIZE(wren_ib_port_stats) == WREN_STAT_TP_COUNT);

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
