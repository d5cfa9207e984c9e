// SPDX-License-Identifier: GPL-2.0
/*
 * Wren async events: keep-alive, fatal errors, warnings, link changes,
 * CQ errors (passed on to the RDMA driver); and the watchdog that checks
 * keep-alives (and polls the queue when there is no interrupt).  A fatal
 * error and a keep-alive lost fence the device and are reported; the
 * reporter's recovery brings it back (wren_recover.c).
 */
#include <linux/dma-mapping.h>

#include "wren_dev.h"
#include "wren_trace.h"

#define WREN_KEEP_ALIVE_MISSES	3

static u32 wren_aeq_depth(void)
{
	return 1U << WREN_AEQ_LOG_DEPTH;
}

/**
 * wren_aeq_init() - allocate the async event queue
 * @wdev: the device
 *
 * Return: 0 or -ENOMEM.
 */
int wren_aeq_init(struct wren_dev *wdev)
{
	spin_lock_init(&wdev->aeq_lock);
	wdev->aeq = dma_alloc_coherent(&wdev->pdev->dev,
				       wren_aeq_depth() * sizeof(*wdev->aeq),
				       &wdev->aeq_dma, GFP_KERNEL);
	return wdev->aeq ? 0 : -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(wren_aeq_init);

/**
 * wren_aeq_program() - hand the async event queue to the device
 * @wdev: the device, freshly reset
 */
void wren_aeq_program(struct wren_dev *wdev)
{
	/* Entries of a previous bring-up must not read as new. */
	memset(wdev->aeq, 0, wren_aeq_depth() * sizeof(*wdev->aeq));
	wdev->aeq_head = 0;
	wren_wr(wdev, WREN_REG_AEQ_BASE_LO, lower_32_bits(wdev->aeq_dma));
	wren_wr(wdev, WREN_REG_AEQ_BASE_HI, upper_32_bits(wdev->aeq_dma));
	wren_wr(wdev, WREN_REG_AEQ_CFG,
		FIELD_PREP(WREN_QUEUE_CFG_LOG_DEPTH, WREN_AEQ_LOG_DEPTH));
}

/**
 * wren_aeq_destroy() - free the async event queue (the device is reset)
 * @wdev: the device
 */
void wren_aeq_destroy(struct wren_dev *wdev)
{
	dma_free_coherent(&wdev->pdev->dev,
			  wren_aeq_depth() * sizeof(*wdev->aeq), wdev->aeq,
			  wdev->aeq_dma);
}
EXPORT_SYMBOL_IF_KUNIT(wren_aeq_destroy);

static void wren_aeq_cq_error(struct wren_dev *wdev, u32 cqn)
{
	struct wren_event_sink *sink;

	wdev->stats.cq_errors++;
	dev_warn_ratelimited(&wdev->pdev->dev,
			     "CQ %u overrun: completions were lost\n", cqn);
	rcu_read_lock();
	sink = rcu_dereference(wdev->events);
	if (sink)
		sink->ops->cq_error(sink->priv, cqn);
	rcu_read_unlock();
}

/* A QP's or an SRQ's event, to the RDMA driver if it listens. */
static void wren_aeq_object(struct wren_dev *wdev, u8 type, u32 info,
			    u64 data)
{
	struct wren_event_sink *sink;

	rcu_read_lock();
	sink = rcu_dereference(wdev->events);
	if (sink && type == WREN_AEQ_QP_EVENT)
		sink->ops->qp_event(sink->priv, info, data);
	else if (sink)
		sink->ops->srq_limit(sink->priv, info);
	rcu_read_unlock();
}

static void wren_aeq_handle(struct wren_dev *wdev,
			    const struct wren_aeq_entry *ev)
{
	struct device *dev = &wdev->pdev->dev;
	u64 data = le64_to_cpu(ev->data);

	trace_wren_async_event(wdev, ev->type, le32_to_cpu(ev->info), data);
	wdev->stats.aeq_events++;
	switch (ev->type) {
	case WREN_AEQ_KEEP_ALIVE:
		atomic64_inc(&wdev->stats.keep_alives);
		WRITE_ONCE(wdev->keep_alive_last, jiffies);
		break;
	case WREN_AEQ_FATAL:
		dev_err(dev, "device reported fatal error %llu\n", data);
		wren_fence(wdev);
		wren_health_fatal(wdev, data);
		break;
	case WREN_AEQ_WARNING:
		wdev->stats.aeq_warnings++;
		dev_warn_ratelimited(dev, "device warning %llu (info 0x%x)\n",
				     data, le32_to_cpu(ev->info));
		break;
	case WREN_AEQ_LINK_CHANGE:
		wdev->stats.link_changes++;
		dev_info(dev, "link %s\n", data ? "up" : "down");
		wren_eth_link_change(wdev, data);
		break;
	case WREN_AEQ_CQ_ERROR:
		wren_aeq_cq_error(wdev, le32_to_cpu(ev->info));
		break;
	case WREN_AEQ_QP_EVENT:
	case WREN_AEQ_SRQ_LIMIT:
		wren_aeq_object(wdev, ev->type, le32_to_cpu(ev->info), data);
		break;
	default:
		dev_warn_ratelimited(dev, "unknown async event type %u\n",
				     ev->type);
		break;
	}
}

/**
 * wren_aeq_process() - consume the async event queue
 * @wdev: the device
 */
void wren_aeq_process(struct wren_dev *wdev)
{
	u32 mask = wren_aeq_depth() - 1;
	struct wren_aeq_entry *ev;
	unsigned long flags;
	u16 start;

	spin_lock_irqsave(&wdev->aeq_lock, flags);
	start = wdev->aeq_head;
	for (;;) {
		ev = &wdev->aeq[wdev->aeq_head & mask];
		if (!wren_ring_ready(READ_ONCE(ev->flags), WREN_AEQ_FLAG_PHASE,
				     wdev->aeq_head, WREN_AEQ_LOG_DEPTH))
			break;
		dma_rmb();
		wren_aeq_handle(wdev, ev);
		wdev->aeq_head++;
	}
	if (wdev->aeq_head != start)
		wren_wr(wdev, WREN_REG_AEQ_DB,
			FIELD_PREP(WREN_AEQ_DB_HEAD, wdev->aeq_head));
	spin_unlock_irqrestore(&wdev->aeq_lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(wren_aeq_process);

#define WREN_AEQ_POLL_MS	100

static unsigned long wren_watchdog_period(const struct wren_dev *wdev)
{
	return msecs_to_jiffies(wdev->keep_alive_ms ?: WREN_AEQ_POLL_MS);
}

/*
 * One watchdog period: a keep-alive lost is counted (and told) once, when
 * %WREN_KEEP_ALIVE_MISSES periods in a row had none.
 */
VISIBLE_IF_KUNIT void wren_keep_alive_check(struct wren_dev *wdev)
{
	u64 seen = atomic64_read(&wdev->stats.keep_alives);

	/* A fenced device sends none: its recovery is under way. */
	if (!wdev->keep_alive_ms || wren_dead(wdev))
		return;
	if (seen != wdev->keep_alive_seen) {
		wdev->keep_alive_seen = seen;
		wdev->keep_alive_missed = 0;
	} else if (++wdev->keep_alive_missed == WREN_KEEP_ALIVE_MISSES) {
		wdev->stats.keep_alive_lost++;
		dev_warn(&wdev->pdev->dev, "no keep-alive from the device for %u ms\n",
			 WREN_KEEP_ALIVE_MISSES * wdev->keep_alive_ms);
		wren_fence(wdev);
		wren_health_keep_alive_lost(wdev, WREN_KEEP_ALIVE_MISSES *
					    wdev->keep_alive_ms);
	}
}
EXPORT_SYMBOL_IF_KUNIT(wren_keep_alive_check);

static void wren_watchdog(struct work_struct *work)
{
	struct wren_dev *wdev = container_of(to_delayed_work(work),
					     struct wren_dev, watchdog);

	/* Without the management interrupt, nobody else reads the queue. */
	if (wdev->admin.poll)
		wren_aeq_process(wdev);
	wren_keep_alive_check(wdev);
	schedule_delayed_work(&wdev->watchdog, wren_watchdog_period(wdev));
}

/**
 * wren_watchdog_start() - watch the keep-alive events, and poll the async
 * event queue when there is no management interrupt
 * @wdev: the device
 * @keep_alive_ms: the keep-alive period asked of the device, 0 for none
 */
void wren_watchdog_start(struct wren_dev *wdev, unsigned int keep_alive_ms)
{
	/* Silence under an earlier period does not count against this one. */
	wdev->keep_alive_seen = atomic64_read(&wdev->stats.keep_alives);
	wdev->keep_alive_missed = 0;
	WRITE_ONCE(wdev->keep_alive_ms, keep_alive_ms);
	INIT_DELAYED_WORK(&wdev->watchdog, wren_watchdog);
	if (keep_alive_ms || wdev->admin.poll)
		schedule_delayed_work(&wdev->watchdog, wren_watchdog_period(wdev));
}

/**
 * wren_watchdog_stop() - stop the watchdog
 * @wdev: the device
 */
void wren_watchdog_stop(struct wren_dev *wdev)
{
	cancel_delayed_work_sync(&wdev->watchdog);
	WRITE_ONCE(wdev->keep_alive_ms, 0);
}

/**
 * wren_keep_alive_set() - change the keep-alive period while the device runs
 * @wdev: the device, its watchdog started
 * @keep_alive_ms: the new period in ms, 0 for none; a device without
 *	WREN_CAP_KEEP_ALIVE only takes 0
 *
 * The device is told first, then the watchdog restarts with the new
 * period.  If the device refuses, the watchdog goes on with the old one.
 * Every later bring-up (a recovery, a reload) asks for the new period.
 *
 * Return: 0, or the errno of SET_FEATURE.
 */
int wren_keep_alive_set(struct wren_dev *wdev, unsigned int keep_alive_ms)
{
	unsigned int old;
	int err = 0;

	mutex_lock(&wdev->state_lock);
	/* A device that is down takes the period at its next bring-up. */
	if (!test_bit(WREN_FLAG_UP, &wdev->flags)) {
		wdev->keep_alive_want = keep_alive_ms;
		goto out;
	}
	old = wdev->keep_alive_ms;
	/*
	 * Stopped during the change: a watchdog run between the command and
	 * the restart would hold the new period's first event against the
	 * old period.
	 */
	wren_watchdog_stop(wdev);
	if (wdev->caps.caps & WREN_CAP_KEEP_ALIVE)
		err = wren_cmd_set_feature(wdev, WREN_FEATURE_KEEP_ALIVE_MS,
					   keep_alive_ms);
	if (!err)
		wdev->keep_alive_want = keep_alive_ms;
	wren_watchdog_start(wdev, err ? old : keep_alive_ms);
out:
	mutex_unlock(&wdev->state_lock);
	return err;
}
