// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: the events of its objects, as the core driver hands
 * them over (struct wren_event_ops), become ib_core's.  Every callback
 * runs in atomic context under rcu_read_lock(): objects are found by
 * number in xarrays, and each leaves its xarray, followed by
 * synchronize_rcu(), before the device forgets it.
 */
#include <linux/rcupdate.h>

#include "wren_ib.h"

/* The verbs' event for each of the device's QP events. */
static int wren_ib_qp_event_type(u32 event, enum ib_event_type *type)
{
	switch (event) {
	case WREN_QP_EV_COMM_EST:
		*type = IB_EVENT_COMM_EST;
		return 0;
	case WREN_QP_EV_SQ_DRAINED:
		*type = IB_EVENT_SQ_DRAINED;
		return 0;
	case WREN_QP_EV_LAST_WQE:
		*type = IB_EVENT_QP_LAST_WQE_REACHED;
		return 0;
	case WREN_QP_EV_REQ_ERR:
		*type = IB_EVENT_QP_REQ_ERR;
		return 0;
	case WREN_QP_EV_ACCESS_ERR:
		*type = IB_EVENT_QP_ACCESS_ERR;
		return 0;
	case WREN_QP_EV_FATAL:
		*type = IB_EVENT_QP_FATAL;
		return 0;
	default:
		return -EINVAL;
	}
}

static void wren_ib_qp_event(void *priv, u32 qpn, u32 event)
{
	struct wren_ib_dev *dev = priv;
	struct ib_event ev = { .device = &dev->ibdev };
	struct wren_ib_qp *qp;

	qp = xa_load(&dev->qps, qpn);
	if (!qp || wren_ib_qp_event_type(event, &ev.event)) {
		ibdev_dbg_ratelimited(&dev->ibdev, "event %u for QP %u dropped\n",
				      event, qpn);
		return;
	}
	ev.element.qp = &qp->ibqp;
	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

static void wren_ib_srq_limit(void *priv, u32 srqn)
{
	struct wren_ib_dev *dev = priv;
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = IB_EVENT_SRQ_LIMIT_REACHED,
	};
	struct wren_ib_srq *srq;

	srq = xa_load(&dev->srqs, srqn);
	if (!srq) {
		ibdev_dbg_ratelimited(&dev->ibdev, "limit of unknown SRQ %u\n",
				      srqn);
		return;
	}
	ev.element.srq = &srq->ibsrq;
	if (srq->ibsrq.event_handler)
		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
}

/*
 * The device failed.  Its users hear of it first; the core driver then
 * removes the device (ib_core disassociates user contexts and its kernel
 * clients let go), resets it and adds it again.  User CQs read as dead
 * (their liveness word cleared); the kernel's queues flush from now on,
 * and their consumers are woken to poll the flush.
 */
static void wren_ib_fatal(void *priv)
{
	struct wren_ib_dev *dev = priv;
	struct ib_event ev = {
		.device = &dev->ibdev,
		.event = IB_EVENT_DEVICE_FATAL,
		.element.port_num = 1,
	};

	WRITE_ONCE(dev->fatal, true);
	ibdev_err(&dev->ibdev, "device failed: its users get IB_EVENT_DEVICE_FATAL\n");
	ib_dispatch_event(&ev);
	wren_ib_cq_fatal(dev);
	wren_ib_kcq_kick(dev);
}

/* Called by the core driver in atomic context, under rcu_read_lock(). */
const struct wren_event_ops wren_ib_event_ops = {
	.cq_comp = wren_ib_cq_comp,
	.cq_error = wren_ib_cq_error,
	.qp_event = wren_ib_qp_event,
	.srq_limit = wren_ib_srq_limit,
	.fatal = wren_ib_fatal,
};
