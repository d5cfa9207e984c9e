// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: completion queues.  A user's CQ has its ring in kernel
 * memory the user maps; the user polls it and arms the CQ through its
 * doorbell page.  A kernel CQ's ring is coherent memory the driver polls
 * (wren_ib_kcq.c), its doorbell in the driver's own page.  The core
 * driver reports armed completions and overruns by CQ number; the CQs are
 * found in an xarray under RCU.
 */
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <rdma/uverbs_ioctl.h>

#include "wren_ib.h"
#include "wren_ib_trace.h"

/* wren_event_ops.cq_comp: an armed CQ got a completion. */
void wren_ib_cq_comp(void *priv, u32 cqn)
{
	struct wren_ib_dev *dev = priv;
	struct wren_ib_cq *cq;

	cq = xa_load(&dev->cqs, cqn);
	if (!cq) {
		ibdev_dbg_ratelimited(&dev->ibdev, "event for unknown CQ %u\n",
				      cqn);
		return;
	}
	trace_wren_ib_cq_event(&cq->ibcq, cqn);
	if (cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/*
 * A user's ring: its entries, then the liveness word in a line of its own
 * (WREN_IB_CQ_RESP_LIVENESS), set.
 */
static int wren_ib_cq_ring_alloc(struct wren_ib_ucontext *uctx,
				 struct wren_ib_ring *ring, u8 log_depth,
				 u32 **live)
{
	size_t bytes = sizeof(struct wren_cqe) << log_depth;
	int err;

	err = wren_ib_ring_alloc(uctx, ring, bytes + SMP_CACHE_BYTES);
	if (err)
		return err;
	*live = ring->entry->cpu_addr + bytes;
	WRITE_ONCE(**live, WREN_IB_CQ_LIVE);
	return 0;
}

/**
 * wren_ib_cq_fatal() - tell the users of every CQ the device failed
 * @dev: the device
 *
 * Clears each user CQ's liveness word: libwren's poll then fails instead
 * of waiting for completions that will not come.  Atomic context, under
 * the RCU read lock.
 */
void wren_ib_cq_fatal(struct wren_ib_dev *dev)
{
	struct wren_ib_cq *cq;
	unsigned long cqn;
	u32 *live;

	xa_for_each(&dev->cqs, cqn, cq) {
		live = rcu_dereference(cq->live);
		if (live)
			WRITE_ONCE(*live, 0);
	}
}

/* wren_event_ops.cq_error: a CQ overran. */
void wren_ib_cq_error(void *priv, u32 cqn)
{
	struct wren_ib_dev *dev = priv;
	struct ib_event event = {
		.device = &dev->ibdev,
		.event = IB_EVENT_CQ_ERR,
	};
	struct wren_ib_cq *cq;

	cq = xa_load(&dev->cqs, cqn);
	if (!cq) {
		ibdev_dbg_ratelimited(&dev->ibdev, "error for unknown CQ %u\n",
				      cqn);
		return;
	}
	event.element.cq = &cq->ibcq;
	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
}

/*
 * Stop the events from reaching the CQ: no callback that could still see
 * it runs once this returns.  Done before the device frees the number.
 */
static void wren_ib_cq_unpublish(struct wren_ib_dev *dev, struct wren_ib_cq *cq)
{
	xa_erase(&dev->cqs, cq->cqn);
	synchronize_rcu();
}

/* Destroy the CQ on the device; if that fails, it may still write the ring. */
static int wren_ib_cq_destroy_hw(struct wren_ib_dev *dev, struct wren_ib_cq *cq)
{
	int err;

	err = wren_cmd_destroy_cq(dev->wdev, cq->cqn);
	if (err)
		ibdev_err_ratelimited(&dev->ibdev,
				      "destroy CQ %u failed: %d, leaking its ring\n",
				      cq->cqn, err);
	return err;
}

/*
 * Check a create_cq request against the device; set the ring's log2
 * depth.  The errnos are those of wren_ib_create_any_cq().
 */
VISIBLE_IF_KUNIT int wren_ib_cq_check(struct wren_ib_dev *dev,
				      const struct ib_cq_init_attr *attr,
				      const struct wren_ib_create_cq_req *req,
				      u8 *log_depth)
{
	u32 max = dev->caps->max_cq_depth;
	unsigned long depth;

	if (attr->flags) {
		ibdev_dbg(&dev->ibdev, "create_cq: flags %#x unsupported\n",
			  attr->flags);
		return -EOPNOTSUPP;
	}
	if (req->comp_mask) {
		ibdev_dbg(&dev->ibdev, "create_cq: comp_mask %#x unsupported\n",
			  req->comp_mask);
		return -EOPNOTSUPP;
	}
	if (req->reserved)
		return -EINVAL;
	if (attr->cqe > max) {
		ibdev_dbg(&dev->ibdev, "create_cq: %u entries, at most %u\n",
			  attr->cqe, max);
		return -EINVAL;
	}
	depth = roundup_pow_of_two(max(attr->cqe,
				       1U << WREN_QUEUE_LOG_DEPTH_MIN));
	if (depth > max) {
		ibdev_dbg(&dev->ibdev, "create_cq: %u entries round up to %lu, at most %u\n",
			  attr->cqe, depth, max);
		return -EINVAL;
	}
	*log_depth = ilog2(depth);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_cq_check);

/**
 * wren_ib_create_any_cq() - create a completion queue
 * @ibcq: the CQ, allocated by ib_core
 * @attr: its depth (rounded up to a power of two, at least
 *	2^%WREN_QUEUE_LOG_DEPTH_MIN) and completion vector; no flags
 * @udata: &struct wren_ib_create_cq_req in, &struct wren_ib_create_cq_resp
 *	out; NULL for a kernel CQ
 *
 * Return: 0, -EOPNOTSUPP for a creation flag or an unknown comp_mask bit,
 * -EINVAL for a non-zero reserved field or a depth beyond the device's,
 * -ENOMEM, or another negative errno.
 */
static int wren_ib_create_any_cq(struct ib_cq *ibcq,
				 const struct ib_cq_init_attr *attr,
				 struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibcq->device);
	struct wren_ib_cq *cq = to_wren_ib_cq(ibcq);
	struct wren_ib_create_cq_resp resp = {};
	struct wren_ib_create_cq_req req = {};
	struct wren_cq_params params = {};
	struct wren_ib_ucontext *uctx;
	unsigned long depth;
	u32 *live = NULL;
	u32 db_offset;
	int err;

	if (udata) {
		err = wren_ib_copy_req(udata, &req, sizeof(req));
		if (err)
			return err;
	}
	err = wren_ib_cq_check(dev, attr, &req, &cq->log_depth);
	if (err)
		return err;
	depth = 1UL << cq->log_depth;

	if (udata) {
		uctx = rdma_udata_to_drv_context(udata, struct wren_ib_ucontext,
						 ibucontext);
		err = wren_ib_cq_ring_alloc(uctx, &cq->ring, cq->log_depth,
					    &live);
		params.db_page = uctx->db_page;
	} else {
		err = wren_ib_kring_alloc(dev, &cq->ring,
					  depth * sizeof(struct wren_cqe));
		params.db_page = dev->kdb_page;
	}
	if (err)
		return err;
	params.base = cq->ring.dma;
	params.log_depth = cq->log_depth;
	params.comp_vector = attr->comp_vector;
	err = wren_cmd_create_cq(dev->wdev, &params, &cq->cqn, &db_offset);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "create CQ of %lu entries, vector %u failed: %d\n",
				      depth, attr->comp_vector, err);
		goto err_free_ring;
	}
	mutex_init(&cq->resize_lock);
	spin_lock_init(&cq->lock);
	RCU_INIT_POINTER(cq->live, live);
	if (!udata) {
		cq->kernel = true;
		cq->db = dev->kdb + db_offset;
	}
	err = xa_insert(&dev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy_cq;
	ibcq->cqe = depth;
	ibdev_dbg(&dev->ibdev, "CQ %u: %lu entries, vector %u%s\n", cq->cqn,
		  depth, attr->comp_vector, udata ? "" : ", kernel");
	if (!udata)
		return 0;

	resp.comp_mask = WREN_IB_CQ_RESP_LIVENESS;
	resp.cqn = cq->cqn;
	resp.ring_mmap_key = cq->ring.mmap_key;
	resp.ring_size = cq->ring.size;
	resp.log_depth = cq->log_depth;
	resp.db_offset = db_offset;
	err = wren_ib_copy_resp(udata, &resp, sizeof(resp));
	if (err)
		goto err_unpublish_cq;
	return 0;

err_unpublish_cq:
	wren_ib_cq_unpublish(dev, cq);
err_destroy_cq:
	mutex_destroy(&cq->resize_lock);
	if (wren_ib_cq_destroy_hw(dev, cq))
		return err;
err_free_ring:
	wren_ib_ring_free(dev, &cq->ring);
	return err;
}

#ifdef HAVE_CREATE_CQ_ATTRS
/* ib_core's create_cq: the udata is in the bundle, which a kernel CQ lacks. */
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs)
{
	return wren_ib_create_any_cq(ibcq, attr,
				      attrs ? &attrs->driver_udata : NULL);
}
#else
/* ib_core's create_cq: no udata for a kernel CQ. */
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
{
	return wren_ib_create_any_cq(ibcq, attr, udata);
}
#endif

/**
 * wren_ib_resize_cq() - give a user CQ a ring of another depth
 * @ibcq: the CQ, held by its user, who rang its doorbell with the
 *	consumer index of what it has consumed
 * @cqe: the entries the new ring must hold at least (rounded up as for
 *	create_cq)
 * @udata: &struct wren_ib_resize_cq_req in, &struct wren_ib_resize_cq_resp
 *	out
 *
 * The device moves the completions not yet consumed to the new ring; the
 * old ring is freed once the user unmaps it.
 *
 * Return: 0, -EOPNOTSUPP for a kernel CQ, an unknown comp_mask bit or a
 * device without RESIZE_CQ, -EINVAL for a non-zero reserved field, a
 * depth beyond the device's or too small for the completions waiting,
 * -ENOMEM, or another negative errno.
 */
int wren_ib_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibcq->device);
	struct wren_ib_cq *cq = to_wren_ib_cq(ibcq);
	/* The uverbs command's u32: what looks negative here is huge. */
	struct ib_cq_init_attr attr = { .cqe = (u32)cqe };
	struct wren_ib_resize_cq_resp resp = {};
	struct wren_ib_resize_cq_req req = {};
	struct wren_ib_create_cq_req check;
	struct wren_ib_ucontext *uctx;
	struct wren_ib_ring ring;
	u8 log_depth;
	u32 moved, *live;
	int err;

	if (!udata || cq->kernel)
		return -EOPNOTSUPP;
	err = wren_ib_copy_req(udata, &req, sizeof(req));
	if (err)
		return err;
	/* The request and the depth are checked as create_cq's are. */
	check.comp_mask = req.comp_mask;
	check.reserved = req.reserved;
	err = wren_ib_cq_check(dev, &attr, &check, &log_depth);
	if (err)
		return err;
	uctx = rdma_udata_to_drv_context(udata, struct wren_ib_ucontext,
					 ibucontext);
	err = wren_ib_cq_ring_alloc(uctx, &ring, log_depth, &live);
	if (err)
		return err;
	mutex_lock(&cq->resize_lock);
	err = wren_cmd_resize_cq(dev->wdev, cq->cqn, ring.dma, log_depth,
				 &moved);
	if (err) {
		mutex_unlock(&cq->resize_lock);
		ibdev_dbg(&dev->ibdev, "CQ %u: resize to 2^%u entries: %d\n",
			  cq->cqn, log_depth, err);
		wren_ib_ring_free(dev, &ring);
		return err;
	}
	/*
	 * The device writes the new ring only: the old one can go, once the
	 * fatal event cannot be writing its liveness word.
	 */
	rcu_assign_pointer(cq->live, live);
	synchronize_rcu();
	wren_ib_ring_free(dev, &cq->ring);
	cq->ring = ring;
	cq->log_depth = log_depth;
	ibcq->cqe = 1 << log_depth;
	mutex_unlock(&cq->resize_lock);
	resp.comp_mask = WREN_IB_CQ_RESP_LIVENESS;
	resp.moved = moved;
	resp.ring_mmap_key = ring.mmap_key;
	resp.ring_size = ring.size;
	resp.log_depth = log_depth;
	return wren_ib_copy_resp(udata, &resp, sizeof(resp));
}

/**
 * wren_ib_destroy_cq() - destroy a completion queue
 * @ibcq: the CQ, which no QP uses any more
 * @udata: unused
 *
 * No event reaches the CQ once this returns.  Should the device fail to
 * destroy it, the failure is logged and the ring, which the device may
 * still write, is leaked; ib_core's object goes all the same.
 *
 * Return: 0.
 */
int wren_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibcq->device);
	struct wren_ib_cq *cq = to_wren_ib_cq(ibcq);

	wren_ib_cq_unpublish(dev, cq);
	if (!wren_ib_cq_destroy_hw(dev, cq))
		wren_ib_ring_free(dev, &cq->ring);
	mutex_destroy(&cq->resize_lock);
	return 0;
}
