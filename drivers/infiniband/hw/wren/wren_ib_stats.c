// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: the hardware counters of `rdma statistic`, the port's
 * and those of the QP counters ib_core binds QPs to.  They are the
 * device's counters, read with GET_STATS, under the names of their one
 * list, linux/wren/wren_stats.h: the transport's and then the engine's
 * (the Ethernet function's are ethtool's).
 *
 * A QP counter is a counter set of the device (its number is the
 * counter's id): the device counts a bound QP's traffic in its set rather
 * than the default one.  So the port's figures are the default set's,
 * and ib_core adds the QP counters' (and those of counters it freed) to
 * show the port's totals; Documentation/rdma-driver.rst, "Counters".
 */
#include <rdma/rdma_counter.h>

#include "wren_ib.h"

/* The mark of a counter a QP's traffic moves, in its .priv. */
static const char wren_ib_stat_qp[] = "qp";

static const struct rdma_stat_desc wren_ib_stat_descs[] = {
#define WREN_STAT(counter)	{ .name = #counter },
#define WREN_STAT_QP(counter)	{ .name = #counter, .priv = wren_ib_stat_qp },
#include <linux/wren/wren_stats.h>
#undef WREN_STAT_QP
#undef WREN_STAT
#define WREN_ENG_STAT(counter)	{ .name = #counter },
#define WREN_ENG_STAT_QP(counter) { .name = #counter, .priv = wren_ib_stat_qp },
#include <linux/wren/wren_stats.h>
#undef WREN_ENG_STAT_QP
#undef WREN_ENG_STAT
};

#define WREN_IB_NUM_STATS	ARRAY_SIZE(wren_ib_stat_descs)
static_assert(ARRAY_SIZE(wren_ib_stat_descs) ==
	      WREN_STAT_TP_COUNT + WREN_STAT_ENG_COUNT);

/*
 * Read the device's counters (its totals, or @set's with @in_set) into
 * @stats: the transport's group, then the engine's, which the device
 * reports after the Ethernet function's.
 */
static int wren_ib_read_stats(struct wren_ib_dev *dev, bool in_set, u32 set,
			      struct rdma_hw_stats *stats)
{
	u64 *vals;
	int n;

	vals = kcalloc(WREN_STAT_COUNT, sizeof(*vals), GFP_KERNEL);
	if (!vals)
		return -ENOMEM;
	n = in_set ? wren_cmd_get_set_stats(dev->wdev, set, vals,
					    WREN_STAT_COUNT) :
		     wren_cmd_get_stats(dev->wdev, vals, WREN_STAT_COUNT);
	if (n >= 0) {
		/* A device without the engine's group leaves them zero. */
		memcpy(stats->value, vals,
		       WREN_STAT_TP_COUNT * sizeof(*vals));
		memcpy(stats->value + WREN_STAT_TP_COUNT,
		       vals + WREN_STAT_ENG_FIRST,
		       WREN_STAT_ENG_COUNT * sizeof(*vals));
		n = WREN_IB_NUM_STATS;
	} else {
		ibdev_err_ratelimited(&dev->ibdev,
				      "reading the counters failed: %d\n", n);
	}
	kfree(vals);
	return n;
}

static bool wren_ib_has_sets(const struct wren_ib_dev *dev)
{
	return dev->caps->caps & WREN_CAP_COUNTER_SETS;
}

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
	return rdma_alloc_hw_stats_struct(wren_ib_stat_descs,
					  WREN_IB_NUM_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * wren_ib_get_hw_stats() - read the port's counters from the device
 * @ibdev: the device
 * @stats: the set of wren_ib_alloc_hw_port_stats()
 * @port: 1
 * @index: which counter ib_core wants; all are read at once
 *
 * With counter sets, the default set's: ib_core adds the QP counters'.
 *
 * Return: the number of counters updated, or a negative errno.
 */
int wren_ib_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
			 u32 port, int index)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibdev);

	return wren_ib_read_stats(dev, wren_ib_has_sets(dev), 0, stats);
}

/**
 * wren_ib_counter_alloc_stats() - the counters of a QP counter
 * @counter: the QP counter
 *
 * The port's list, with those no QP moves hidden.
 *
 * Return: the set, or NULL without memory.
 */
struct rdma_hw_stats *wren_ib_counter_alloc_stats(struct rdma_counter *counter)
{
	struct rdma_hw_stats *stats;
	unsigned int i;

	stats = rdma_alloc_hw_stats_struct(wren_ib_stat_descs,
					   WREN_IB_NUM_STATS,
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!stats)
		return NULL;
	for (i = 0; i < WREN_IB_NUM_STATS; i++)
		if (wren_ib_stat_descs[i].priv != wren_ib_stat_qp)
			set_bit(i, stats->is_disabled);
	return stats;
}

/**
 * wren_ib_counter_bind_qp() - count a QP in a QP counter
 * @counter: the counter; its first QP gives it a counter set
 * @ibqp: the QP
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_counter_bind_qp(struct rdma_counter *counter, struct ib_qp *ibqp)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibqp->device);
	bool new = false;
	int err;

	if (!wren_ib_has_sets(dev))
		return -EOPNOTSUPP;
	if (!counter->id) {
		err = wren_cmd_alloc_counter_set(dev->wdev);
		if (err < 0)
			return err;
		counter->id = err;
		new = true;
	}
	err = wren_cmd_bind_counter_set(dev->wdev, ibqp->qp_num, counter->id);
	if (!err) {
		/* ib_core leaves it to the driver to say the QP is bound. */
		ibqp->counter = counter;
	} else if (new) {
		wren_cmd_free_counter_set(dev->wdev, counter->id);
		counter->id = 0;
	}
	return err;
}

/**
 * wren_ib_counter_unbind_qp() - count a QP in the default set again
 * @ibqp: the QP
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_counter_unbind_qp(struct ib_qp *ibqp)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibqp->device);
	int err;

	err = wren_cmd_bind_counter_set(dev->wdev, ibqp->qp_num, 0);
	if (!err)
		ibqp->counter = NULL;
	return err;
}

/**
 * wren_ib_counter_dealloc() - free a QP counter's counter set
 * @counter: the counter, whose QPs are all unbound
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_counter_dealloc(struct rdma_counter *counter)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(counter->device);

	if (!counter->id)
		return 0;
	return wren_cmd_free_counter_set(dev->wdev, counter->id);
}

/**
 * wren_ib_counter_update_stats() - read a QP counter's set
 * @counter: the counter
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_counter_update_stats(struct rdma_counter *counter)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(counter->device);
	int n;

	if (!counter->id)
		return 0;
	n = wren_ib_read_stats(dev, true, counter->id, counter->stats);
	return n < 0 ? n : 0;
}
