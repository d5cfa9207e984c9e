// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: shared receive queues, for user space only.  The ring
 * is kernel memory the user maps and fills, as a QP's receive ring; QPs
 * created on the SRQ take their receives from it.  The limit event comes
 * from the device and is found by SRQ number (wren_ib_event.c).
 */
#include <linux/log2.h>
#include <linux/rcupdate.h>
#include <rdma/uverbs_ioctl.h>

#include "wren_ib.h"

/*
 * Check a create_srq request against the device: log2 of the depth in
 * @log_depth.  The errnos are those of wren_ib_create_srq().
 */
static int wren_ib_srq_check(struct wren_ib_dev *dev,
			     const struct ib_srq_init_attr *init_attr,
			     u8 *log_depth)
{
	const struct ib_srq_attr *a = &init_attr->attr;
	u32 max = dev->caps->max_qp_depth;
	unsigned long depth;

	if (!(dev->caps->caps & WREN_CAP_SRQ) ||
	    init_attr->srq_type != IB_SRQT_BASIC) {
		ibdev_dbg(&dev->ibdev, "create_srq: type %d unsupported\n",
			  init_attr->srq_type);
		return -EOPNOTSUPP;
	}
	depth = roundup_pow_of_two(max(a->max_wr,
				       1U << WREN_QUEUE_LOG_DEPTH_MIN));
	if (a->max_wr > max || depth > max ||
	    a->max_sge > dev->caps->max_recv_sge) {
		ibdev_dbg(&dev->ibdev,
			  "create_srq: %u work requests of %u SGEs, at most %u of %u\n",
			  a->max_wr, a->max_sge, max, dev->caps->max_recv_sge);
		return -EINVAL;
	}
	*log_depth = ilog2(depth);
	return 0;
}

/* Destroy the SRQ on the device; if that fails, it may still read the ring. */
static int wren_ib_srq_destroy_hw(struct wren_ib_dev *dev, u32 srqn)
{
	int err;

	err = wren_cmd_destroy_srq(dev->wdev, srqn);
	if (err)
		ibdev_err_ratelimited(&dev->ibdev,
				      "destroy SRQ %u failed: %d, leaking its ring\n",
				      srqn, err);
	return err;
}

/**
 * wren_ib_create_srq() - create a shared receive queue for user space
 * @ibsrq: the SRQ, allocated by ib_core
 * @init_attr: %IB_SRQT_BASIC, its depth (rounded up to a power of two,
 *	set to the real one on success) and SGEs; the limit is ignored
 * @udata: carries no request; &struct wren_ib_create_srq_resp out; NULL
 *	for a kernel SRQ
 *
 * Return: 0, -EOPNOTSUPP for a kernel SRQ, another SRQ type, a device
 * without SRQs or a request in @udata, -EINVAL for a depth or SGE count
 * beyond the device's, -ENOMEM, or another negative errno.
 */
int wren_ib_create_srq(struct ib_srq *ibsrq,
		       struct ib_srq_init_attr *init_attr,
		       struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibsrq->device);
	struct wren_ib_srq *srq = to_wren_ib_srq(ibsrq);
	struct wren_ib_create_srq_resp resp = {};
	struct wren_srq_params params = {};
	struct wren_ib_ucontext *uctx;
	u32 db_offset;
	int err;

	if (!udata) {
		ibdev_dbg(&dev->ibdev, "create_srq: no kernel SRQs\n");
		return -EOPNOTSUPP;
	}
	err = wren_ib_copy_req(udata, NULL, 0);
	if (err)
		return err;
	err = wren_ib_srq_check(dev, init_attr, &params.log_depth);
	if (err)
		return err;
	params.wqe_shift = wren_ib_rq_wqe_shift(init_attr->attr.max_sge);

	uctx = rdma_udata_to_drv_context(udata, struct wren_ib_ucontext,
					 ibucontext);
	err = wren_ib_ring_alloc(uctx, &srq->ring,
				 WREN_RQ_WQE_SIZE(params.wqe_shift) <<
				 params.log_depth);
	if (err)
		return err;
	params.base = srq->ring.dma;
	params.pdn = to_wren_ib_pd(ibsrq->pd)->pdn;
	params.db_page = uctx->db_page;
	err = wren_cmd_create_srq(dev->wdev, &params, &srq->srqn, &db_offset);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "create SRQ of %u entries on PD %u failed: %d\n",
				      1U << params.log_depth, params.pdn, err);
		goto err_free_ring;
	}
	err = xa_insert(&dev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy_srq;

	mutex_init(&srq->lock);
	srq->max_wr = 1U << params.log_depth;
	srq->wqe_shift = params.wqe_shift;
	srq->max_sge = min_t(u32, dev->caps->max_recv_sge,
			     WREN_RQ_WQE_SGE(params.wqe_shift));
	resp.srqn = srq->srqn;
	resp.mmap_key = srq->ring.mmap_key;
	resp.ring_size = srq->ring.size;
	resp.log_depth = params.log_depth;
	resp.db_offset = db_offset;
	resp.wqe_shift = params.wqe_shift;
	err = wren_ib_copy_resp(udata, &resp, sizeof(resp));
	if (err)
		goto err_unpublish;
	init_attr->attr.max_wr = srq->max_wr;
	init_attr->attr.max_sge = srq->max_sge;
	ibdev_dbg(&dev->ibdev, "SRQ %u: %u entries\n", srq->srqn, srq->max_wr);
	return 0;

err_unpublish:
	mutex_destroy(&srq->lock);
	xa_erase(&dev->srqs, srq->srqn);
	synchronize_rcu();
err_destroy_srq:
	if (wren_ib_srq_destroy_hw(dev, srq->srqn))
		return err;
err_free_ring:
	wren_ib_ring_free(dev, &srq->ring);
	return err;
}

/*
 * Grow @srq to @max_wr entries (rounded up): a new ring, the receives not
 * yet taken moved to its head by the device, and what the user needs to
 * go on written to @resp_addr.  The old ring goes once the user unmaps it.
 */
static int wren_ib_srq_grow(struct wren_ib_dev *dev, struct wren_ib_srq *srq,
			    u32 max_wr, u64 resp_addr, struct ib_udata *udata)
{
	struct wren_ib_resize_srq_resp resp = {};
	struct wren_srq_params ring = {};
	struct wren_ib_ucontext *uctx;
	struct wren_ib_ring new = {};
	unsigned long depth;
	int err;

	depth = roundup_pow_of_two(max(max_wr, srq->max_wr));
	if (max_wr > dev->caps->max_qp_depth || depth > dev->caps->max_qp_depth ||
	    !resp_addr) {
		ibdev_dbg(&dev->ibdev, "modify_srq %u: %u work requests, at most %u\n",
			  srq->srqn, max_wr, dev->caps->max_qp_depth);
		return -EINVAL;
	}
	uctx = rdma_udata_to_drv_context(udata, struct wren_ib_ucontext,
					 ibucontext);
	err = wren_ib_ring_alloc(uctx, &new,
				 WREN_RQ_WQE_SIZE(srq->wqe_shift) * depth);
	if (err)
		return err;
	ring.base = new.dma;
	ring.log_depth = ilog2(depth);
	err = wren_cmd_modify_srq(dev->wdev, srq->srqn, WREN_SRQ_ATTR_RING, 0,
				  &ring, &resp.moved);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev, "grow SRQ %u to %lu failed: %d\n",
				      srq->srqn, depth, err);
		wren_ib_ring_free(dev, &new);
		return err;
	}
	wren_ib_ring_free(dev, &srq->ring);
	srq->ring = new;
	srq->max_wr = depth;
	resp.mmap_key = new.mmap_key;
	resp.ring_size = new.size;
	resp.log_depth = ring.log_depth;
	/*
	 * The device is on the new ring already: a user who cannot hear it
	 * has lost the SRQ, as after any fault of its own.
	 */
	if (copy_to_user(u64_to_user_ptr(resp_addr), &resp, sizeof(resp)))
		return -EFAULT;
	return 0;
}

/**
 * wren_ib_modify_srq() - arm a shared receive queue's limit, or grow it
 * @ibsrq: the SRQ
 * @attr: its new limit, or its new depth
 * @attr_mask: %IB_SRQ_LIMIT, %IB_SRQ_MAX_WR (a depth at least the current
 *	one, on a device that grows SRQs)
 * @udata: &struct wren_ib_modify_srq_req; for %IB_SRQ_MAX_WR, where to
 *	write &struct wren_ib_resize_srq_resp
 *
 * Return: 0, -EOPNOTSUPP for another attribute or an unknown comp_mask
 * bit, -EINVAL for a limit not below the depth, a depth beyond the
 * device's or no address for the answer, -EFAULT, or another negative
 * errno.
 */
int wren_ib_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		       enum ib_srq_attr_mask attr_mask, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibsrq->device);
	struct wren_ib_srq *srq = to_wren_ib_srq(ibsrq);
	struct wren_ib_modify_srq_req req = {};
	int err = 0;

	if (udata) {
		err = wren_ib_copy_req(udata, &req, sizeof(req));
		if (err)
			return err;
	}
	if (attr_mask & ~(IB_SRQ_LIMIT | IB_SRQ_MAX_WR) || req.comp_mask) {
		ibdev_dbg(&dev->ibdev, "modify_srq %u: attributes %#x unsupported\n",
			  srq->srqn, attr_mask);
		return -EOPNOTSUPP;
	}
	if (req.reserved)
		return -EINVAL;
	mutex_lock(&srq->lock);
	if (attr_mask & IB_SRQ_MAX_WR) {
		err = wren_ib_srq_grow(dev, srq, attr->max_wr, req.resp_addr,
				       udata);
		if (err)
			goto out_unlock;
	}
	if (attr_mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit >= srq->max_wr) {
			ibdev_dbg(&dev->ibdev, "modify_srq %u: limit %u, depth %u\n",
				  srq->srqn, attr->srq_limit, srq->max_wr);
			err = -EINVAL;
			goto out_unlock;
		}
		err = wren_cmd_modify_srq(dev->wdev, srq->srqn,
					  WREN_SRQ_ATTR_LIMIT, attr->srq_limit,
					  NULL, NULL);
		if (err)
			ibdev_err_ratelimited(&dev->ibdev,
					      "modify SRQ %u failed: %d\n",
					      srq->srqn, err);
	}
out_unlock:
	mutex_unlock(&srq->lock);
	return err;
}

/**
 * wren_ib_query_srq() - a shared receive queue's depth, SGEs and limit
 * @ibsrq: the SRQ
 * @attr: filled in; the limit as the device has it (0 once it fired)
 *
 * Return: 0 or the negative errno of the device's query.
 */
int wren_ib_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibsrq->device);
	struct wren_ib_srq *srq = to_wren_ib_srq(ibsrq);
	u32 limit;
	int err;

	mutex_lock(&srq->lock);
	err = wren_cmd_query_srq(dev->wdev, srq->srqn, &limit);
	mutex_unlock(&srq->lock);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev, "query SRQ %u failed: %d\n",
				      srq->srqn, err);
		return err;
	}
	attr->max_wr = srq->max_wr;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = limit;
	return 0;
}

/**
 * wren_ib_destroy_srq() - destroy a shared receive queue
 * @ibsrq: the SRQ, which ib_core lets go only once no QP uses it
 * @udata: unused
 *
 * Should the device fail to destroy it, the failure is logged and the
 * ring, which the device may still read, is leaked.
 *
 * Return: 0.
 */
int wren_ib_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibsrq->device);
	struct wren_ib_srq *srq = to_wren_ib_srq(ibsrq);

	/* No limit event reaches it once this returns. */
	xa_erase(&dev->srqs, srq->srqn);
	synchronize_rcu();
	if (!wren_ib_srq_destroy_hw(dev, srq->srqn))
		wren_ib_ring_free(dev, &srq->ring);
	mutex_destroy(&srq->lock);
	return 0;
}
