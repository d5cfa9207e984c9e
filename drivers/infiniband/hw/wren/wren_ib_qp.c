// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: queue pairs.  Three types: UD, the reliable datagram
 * (RD), created as IB_QPT_DRIVER, and RC; and the GSI QP, the kernel's UD
 * QP number 1.  UD and RD are datagram QPs: their states and attributes
 * are those of UD, and each send names its destination (AH, QP number,
 * Q_Key).  An RC QP has RC's states and attributes and one peer, which
 * its path names by GID.  A user's QP has its rings in kernel memory the
 * user maps; a kernel QP (UD, GSI or RC, without SRQ) has them in
 * coherent memory the driver posts to (wren_ib_kqp.c).
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "wren_ib.h"
#include "wren_ib_trace.h"

/* What modify_qp accepts of a datagram QP; the rest has no use. */
#define WREN_IB_MODIFY_UD_MASK	(IB_QP_STATE | IB_QP_CUR_STATE | \
				 IB_QP_PKEY_INDEX | IB_QP_PORT | \
				 IB_QP_QKEY | IB_QP_SQ_PSN)
/* ... and of an RC QP: no alternate path, no path migration. */
#define WREN_IB_MODIFY_RC_MASK	(IB_QP_STATE | IB_QP_CUR_STATE | \
				 IB_QP_PKEY_INDEX | IB_QP_PORT | \
				 IB_QP_ACCESS_FLAGS | IB_QP_AV | \
				 IB_QP_PATH_MTU | IB_QP_TIMEOUT | \
				 IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
				 IB_QP_RQ_PSN | IB_QP_MAX_QP_RD_ATOMIC | \
				 IB_QP_MIN_RNR_TIMER | IB_QP_SQ_PSN | \
				 IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_DEST_QPN | \
				 IB_QP_EN_SQD_ASYNC_NOTIFY)

/*
 * The device's state for a verbs state: -EOPNOTSUPP for SQE, and for SQD
 * but on an RC QP (@rc).
 */
VISIBLE_IF_KUNIT int wren_ib_qps_to_wren(enum ib_qp_state state, bool rc,
					 u8 *wren_state)
{
	switch (state) {
	case IB_QPS_RESET:
		*wren_state = WREN_QPS_RESET;
		return 0;
	case IB_QPS_INIT:
		*wren_state = WREN_QPS_INIT;
		return 0;
	case IB_QPS_RTR:
		*wren_state = WREN_QPS_RTR;
		return 0;
	case IB_QPS_RTS:
		*wren_state = WREN_QPS_RTS;
		return 0;
	case IB_QPS_SQD:
		*wren_state = WREN_QPS_SQD;
		return rc ? 0 : -EOPNOTSUPP;
	case IB_QPS_ERR:
		*wren_state = WREN_QPS_ERR;
		return 0;
	default:
		/* No SQE: a send error moves the QP to ERR. */
		return -EOPNOTSUPP;
	}
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_qps_to_wren);

static enum ib_qp_state wren_ib_qps_from_wren(u8 state)
{
	switch (state) {
	case WREN_QPS_INIT:
		return IB_QPS_INIT;
	case WREN_QPS_RTR:
		return IB_QPS_RTR;
	case WREN_QPS_RTS:
		return IB_QPS_RTS;
	case WREN_QPS_ERR:
		return IB_QPS_ERR;
	case WREN_QPS_SQD:
		return IB_QPS_SQD;
	default:
		return IB_QPS_RESET;
	}
}

/* The device's QP type and flags for a verbs QP type and the request. */
static int wren_ib_qp_type(struct wren_ib_dev *dev,
			   const struct ib_qp_init_attr *init_attr,
			   const struct wren_ib_create_qp_req *req,
			   struct wren_qp_params *params)
{
	u32 rd_flags = WREN_IB_QP_FLAG_ORDERED | WREN_IB_QP_FLAG_HANDSHAKE;

	switch (init_attr->qp_type) {
	case IB_QPT_GSI:
		/* Only ib_core's MAD layer creates it, and only in the kernel. */
		if (!(dev->caps->caps & WREN_CAP_GSI))
			return -EOPNOTSUPP;
		params->type = WREN_QPT_UD;
		params->flags |= WREN_QP_FLAG_GSI;
		return 0;
	case IB_QPT_UD:
		if (!(dev->caps->caps & WREN_CAP_UD))
			return -EOPNOTSUPP;
		if (req->driver_qp_type || req->flags) {
			ibdev_dbg(&dev->ibdev,
				  "create_qp: UD with driver type %u, flags %#x\n",
				  req->driver_qp_type, req->flags);
			return -EINVAL;
		}
		params->type = WREN_QPT_UD;
		return 0;
	case IB_QPT_RC:
		if (!(dev->caps->caps & WREN_CAP_RC))
			return -EOPNOTSUPP;
		if (req->driver_qp_type || req->flags) {
			ibdev_dbg(&dev->ibdev,
				  "create_qp: RC with driver type %u, flags %#x\n",
				  req->driver_qp_type, req->flags);
			return -EINVAL;
		}
		params->type = WREN_QPT_RC;
		return 0;
	case IB_QPT_DRIVER:
		if (!(dev->caps->caps & WREN_CAP_RD))
			return -EOPNOTSUPP;
		if (req->driver_qp_type != WREN_IB_QP_DRIVER_TYPE_RD) {
			ibdev_dbg(&dev->ibdev,
				  "create_qp: driver QP type %u unsupported\n",
				  req->driver_qp_type);
			return req->driver_qp_type ? -EOPNOTSUPP : -EINVAL;
		}
		if (req->flags & ~rd_flags) {
			ibdev_dbg(&dev->ibdev,
				  "create_qp: RD flags %#x unsupported\n",
				  req->flags);
			return -EOPNOTSUPP;
		}
		params->type = WREN_QPT_RD;
		if (req->flags & WREN_IB_QP_FLAG_ORDERED)
			params->flags |= WREN_QP_FLAG_ORDERED;
		if (req->flags & WREN_IB_QP_FLAG_HANDSHAKE)
			params->flags |= WREN_QP_FLAG_HANDSHAKE;
		return 0;
	default:
		ibdev_dbg(&dev->ibdev, "create_qp: QP type %d unsupported\n",
			  init_attr->qp_type);
		return -EOPNOTSUPP;
	}
}

static const char *wren_ib_qpt_name(u8 type)
{
	switch (type) {
	case WREN_QPT_RC:
		return "RC";
	case WREN_QPT_RD:
		return "RD";
	default:
		return "UD";
	}
}

/* log2 of a queue's depth for @wr work requests, or -EINVAL. */
static int wren_ib_queue_log_depth(struct wren_ib_dev *dev, u32 wr,
				   const char *which)
{
	u32 max = dev->caps->max_qp_depth;
	unsigned long depth;

	depth = roundup_pow_of_two(max(wr, 1U << WREN_QUEUE_LOG_DEPTH_MIN));
	if (wr > max || depth > max) {
		ibdev_dbg(&dev->ibdev, "create_qp: %u %s work requests, at most %u\n",
			  wr, which, max);
		return -EINVAL;
	}
	return ilog2(depth);
}

/**
 * wren_ib_rq_wqe_shift() - the receive entries that hold @sge SGEs
 * @sge: scatter/gather entries per receive, at most the device's
 *	max_recv_sge
 *
 * Return: the smallest wqe_shift whose entries hold them.
 */
u8 wren_ib_rq_wqe_shift(u32 sge)
{
	u8 shift = 0;

	while (shift < WREN_RQ_WQE_SHIFT_MAX && WREN_RQ_WQE_SGE(shift) < sge)
		shift++;
	return shift;
}

/* ... and the send entries that hold @sge SGEs or @inline_data bytes. */
static u8 wren_ib_sq_wqe_shift(u32 sge, u32 inline_data)
{
	u8 shift = 0;

	while (shift < WREN_SQ_WQE_SHIFT_MAX &&
	       (WREN_SQ_WQE_SGE(shift) < sge ||
		WREN_SQ_WQE_INLINE(shift) < inline_data))
		shift++;
	return shift;
}

/*
 * Check the capacities asked for; set the depths and the entries' sizes
 * (none to receive on an SRQ).
 */
static int wren_ib_qp_caps(struct wren_ib_dev *dev, const struct ib_qp_cap *cap,
			   bool srq, struct wren_qp_params *params)
{
	const struct wren_caps *c = dev->caps;
	int log_depth;

	if (cap->max_send_sge > c->max_sge ||
	    cap->max_recv_sge > c->max_recv_sge ||
	    cap->max_inline_data > c->max_inline) {
		ibdev_dbg(&dev->ibdev,
			  "create_qp: %u send SGEs, %u receive SGEs, %u inline bytes; at most %u, %u, %u\n",
			  cap->max_send_sge, cap->max_recv_sge,
			  cap->max_inline_data, c->max_sge, c->max_recv_sge,
			  c->max_inline);
		return -EINVAL;
	}
	log_depth = wren_ib_queue_log_depth(dev, cap->max_send_wr, "send");
	if (log_depth < 0)
		return log_depth;
	params->sq_log_depth = log_depth;
	params->sq_wqe_shift = wren_ib_sq_wqe_shift(cap->max_send_sge,
						    cap->max_inline_data);
	if (srq)
		return 0;
	log_depth = wren_ib_queue_log_depth(dev, cap->max_recv_wr, "receive");
	if (log_depth < 0)
		return log_depth;
	params->rq_log_depth = log_depth;
	params->rq_wqe_shift = wren_ib_rq_wqe_shift(cap->max_recv_sge);
	return 0;
}

/*
 * Check a create_qp request against the device; set the QP's type, flags
 * and depths in @params.  The errnos are those of wren_ib_create_qp().
 */
VISIBLE_IF_KUNIT int wren_ib_qp_check(struct wren_ib_dev *dev,
				      const struct ib_qp_init_attr *init_attr,
				      const struct wren_ib_create_qp_req *req,
				      struct wren_qp_params *params)
{
	int err;

	if ((init_attr->srq && !(dev->caps->caps & WREN_CAP_SRQ)) ||
	    init_attr->create_flags) {
		ibdev_dbg(&dev->ibdev, "create_qp: SRQ or creation flags %#x unsupported\n",
			  init_attr->create_flags);
		return -EOPNOTSUPP;
	}
	if (req->comp_mask) {
		ibdev_dbg(&dev->ibdev, "create_qp: comp_mask %#x unsupported\n",
			  req->comp_mask);
		return -EOPNOTSUPP;
	}
	if (req->reserved)
		return -EINVAL;
	err = wren_ib_qp_type(dev, init_attr, req, params);
	if (err)
		return err;
	err = wren_ib_qp_caps(dev, &init_attr->cap, !!init_attr->srq, params);
	if (err)
		return err;

	if (!init_attr->send_cq || !init_attr->recv_cq)
		return -EINVAL;
	if (init_attr->sq_sig_type == IB_SIGNAL_ALL_WR)
		params->flags |= WREN_QP_FLAG_SQ_SIG_ALL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_qp_check);

/*
 * Stop the events from reaching the QP: no callback that could still see
 * it runs once this returns.  Done before the device frees the number.
 */
static void wren_ib_qp_unpublish(struct wren_ib_dev *dev, u32 qpn)
{
	xa_erase(&dev->qps, qpn);
	synchronize_rcu();
}

/* Destroy the QP on the device; if that fails, it may still read the rings. */
static int wren_ib_qp_destroy_hw(struct wren_ib_dev *dev, u32 qpn)
{
	int err;

	err = wren_cmd_destroy_qp(dev->wdev, qpn);
	if (err)
		ibdev_err_ratelimited(&dev->ibdev,
				      "destroy QP %u failed: %d, leaking its rings\n",
				      qpn, err);
	return err;
}

/* A user's rings, mapped by its context, and that context's doorbell page. */
static int wren_ib_qp_user_rings(struct wren_ib_dev *dev, struct wren_ib_qp *qp,
				 struct ib_udata *udata,
				 struct wren_qp_params *params)
{
	struct wren_ib_ucontext *uctx;
	int err;

	uctx = rdma_udata_to_drv_context(udata, struct wren_ib_ucontext,
					 ibucontext);
	err = wren_ib_ring_alloc(uctx, &qp->sq,
				 WREN_SQ_WQE_SIZE(params->sq_wqe_shift) <<
				 params->sq_log_depth);
	if (err)
		return err;
	if (!(params->flags & WREN_QP_FLAG_SRQ)) {
		err = wren_ib_ring_alloc(uctx, &qp->rq,
					 WREN_RQ_WQE_SIZE(params->rq_wqe_shift) <<
					 params->rq_log_depth);
		if (err) {
			wren_ib_ring_free(dev, &qp->sq);
			return err;
		}
	}
	params->db_page = uctx->db_page;
	return 0;
}

/**
 * wren_ib_create_qp() - create a UD, RD, RC or GSI queue pair
 * @ibqp: the QP, allocated by ib_core
 * @init_attr: %IB_QPT_UD, %IB_QPT_RC, %IB_QPT_DRIVER for RD (a user's
 *	only) or %IB_QPT_GSI (the kernel's only); its CQs, capacities (set
 *	to the real ones on success) and signalling type; an SRQ for a
 *	user's QP; no creation flags
 * @udata: &struct wren_ib_create_qp_req in, &struct wren_ib_create_qp_resp
 *	out; NULL for a kernel QP
 *
 * Return: 0, -EOPNOTSUPP for another QP type, an SRQ on a kernel QP, a
 * creation flag, an unknown comp_mask bit, driver QP type or RD flag,
 * -EINVAL for a non-zero reserved field, flags on a UD QP or a capacity
 * beyond the device's, -ENOMEM (also for a second GSI QP), or another
 * negative errno.
 */
int wren_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		      struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibqp->device);
	struct wren_ib_qp *qp = to_wren_ib_qp(ibqp);
	const struct wren_caps *c = dev->caps;
	struct wren_ib_create_qp_resp resp = {};
	struct wren_ib_create_qp_req req = {};
	struct wren_qp_params params = {};
	struct wren_qp_handles h;
	int err;

	if (udata) {
		err = wren_ib_copy_req(udata, &req, sizeof(req));
		if (err)
			return err;
	} else if (init_attr->srq) {
		ibdev_dbg(&dev->ibdev, "create_qp: no SRQ for a kernel QP\n");
		return -EOPNOTSUPP;
	}
	err = wren_ib_qp_check(dev, init_attr, &req, &params);
	if (err)
		return err;

	if (init_attr->srq) {
		/* The device takes an SRQ's receives for its own PD only. */
		if (init_attr->srq->pd != ibqp->pd) {
			ibdev_dbg(&dev->ibdev, "create_qp: SRQ on another PD\n");
			return -EINVAL;
		}
		params.flags |= WREN_QP_FLAG_SRQ;
		params.srqn = to_wren_ib_srq(init_attr->srq)->srqn;
	}

	if (udata) {
		err = wren_ib_qp_user_rings(dev, qp, udata, &params);
	} else {
		err = wren_ib_kqp_rings(dev, qp, &params);
		params.db_page = dev->kdb_page;
	}
	if (err)
		return err;
	params.sq_base = qp->sq.dma;
	params.rq_base = qp->rq.dma;
	params.pdn = to_wren_ib_pd(ibqp->pd)->pdn;
	params.send_cq = to_wren_ib_cq(init_attr->send_cq)->cqn;
	params.recv_cq = to_wren_ib_cq(init_attr->recv_cq)->cqn;
	err = wren_cmd_create_qp(dev->wdev, &params, &h);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "create %s QP on PD %u, CQs %u/%u failed: %d\n",
				      wren_ib_qpt_name(params.type),
				      params.pdn, params.send_cq,
				      params.recv_cq, err);
		goto err_free_rings;
	}

	ibqp->qp_num = h.qpn;
	mutex_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_type = init_attr->sq_sig_type;
	qp->cap.max_send_wr = 1U << params.sq_log_depth;
	/* What the entries hold, which may be more than asked for. */
	qp->cap.max_send_sge = min_t(u32, c->max_sge,
				     WREN_SQ_WQE_SGE(params.sq_wqe_shift));
	qp->cap.max_inline_data = min_t(u32, c->max_inline,
					WREN_SQ_WQE_INLINE(params.sq_wqe_shift));
	if (!init_attr->srq) {
		qp->cap.max_recv_wr = 1U << params.rq_log_depth;
		qp->cap.max_recv_sge =
			min_t(u32, c->max_recv_sge,
			      WREN_RQ_WQE_SGE(params.rq_wqe_shift));
		resp.rq_db_offset = h.rq_db_offset;
	}
	if (!udata)
		wren_ib_kqp_init(dev, qp, &params, &h);
	err = xa_insert(&dev->qps, h.qpn, qp, GFP_KERNEL);
	if (err)
		goto err_destroy_qp;
	init_attr->cap = qp->cap;
	ibdev_dbg(&dev->ibdev, "QP %u: %s, SQ %u, RQ %u, flags %#x%s\n", h.qpn,
		  wren_ib_qpt_name(params.type),
		  qp->cap.max_send_wr, qp->cap.max_recv_wr, params.flags,
		  udata ? "" : ", kernel");
	if (!udata)
		return 0;

	resp.qpn = h.qpn;
	resp.sq_mmap_key = qp->sq.mmap_key;
	resp.rq_mmap_key = qp->rq.mmap_key;
	resp.sq_ring_size = qp->sq.size;
	resp.rq_ring_size = qp->rq.size;
	resp.sq_log_depth = params.sq_log_depth;
	resp.rq_log_depth = params.rq_log_depth;
	resp.sq_db_offset = h.sq_db_offset;
	resp.sq_wqe_shift = params.sq_wqe_shift;
	resp.rq_wqe_shift = params.rq_wqe_shift;
	err = wren_ib_copy_resp(udata, &resp, sizeof(resp));
	if (err)
		goto err_unpublish;
	return 0;

err_unpublish:
	wren_ib_qp_unpublish(dev, h.qpn);
err_destroy_qp:
	mutex_destroy(&qp->lock);
	if (wren_ib_qp_destroy_hw(dev, h.qpn))
		return err;
err_free_rings:
	if (!udata)
		wren_ib_kqp_free(qp);
	wren_ib_ring_free(dev, &qp->rq);
	wren_ib_ring_free(dev, &qp->sq);
	return err;
}

/*
 * Check a modify_qp request against the state diagram of the QP's type
 * (UD's for the datagram QPs) and the device.  The errnos are those of
 * wren_ib_modify_qp().
 */
VISIBLE_IF_KUNIT int wren_ib_modify_qp_check(struct wren_ib_dev *dev,
					     struct wren_ib_qp *qp,
					     const struct ib_qp_attr *attr,
					     int attr_mask,
					     enum ib_qp_state cur_state,
					     enum ib_qp_state new_state)
{
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	int mask = rc ? WREN_IB_MODIFY_RC_MASK : WREN_IB_MODIFY_UD_MASK;
	u32 qpn = qp->ibqp.qp_num;

	if (attr_mask & ~mask) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: attributes %#x unsupported\n",
			  qpn, attr_mask & ~mask);
		return -EOPNOTSUPP;
	}
	/* RD moves as UD does; the GSI QP as the verbs' GSI, without port. */
	if (!ib_modify_qp_is_ok(cur_state, new_state,
				qp->ibqp.qp_type == IB_QPT_DRIVER ? IB_QPT_UD :
				qp->ibqp.qp_type, attr_mask)) {
		ibdev_dbg(&dev->ibdev,
			  "modify_qp %u: %d to %d with attributes %#x refused\n",
			  qpn, cur_state, new_state, attr_mask);
		return -EINVAL;
	}
	if (attr_mask & IB_QP_PKEY_INDEX && attr->pkey_index) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: P_Key index %u\n", qpn,
			  attr->pkey_index);
		return -EINVAL;
	}
	if (attr_mask & IB_QP_PORT && attr->port_num != 1) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: port %u\n", qpn,
			  attr->port_num);
		return -EINVAL;
	}
	/*
	 * The device takes a peer QP number of 24 bits, as the verbs have
	 * them, and none of the special QPs: refused here, a user's value
	 * never reaches it as a command it rejects.
	 */
	if (attr_mask & IB_QP_DEST_QPN &&
	    (attr->dest_qp_num < WREN_QPN_FIRST ||
	     attr->dest_qp_num > GENMASK(23, 0))) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: destination QP %u\n",
			  qpn, attr->dest_qp_num);
		return -EINVAL;
	}
	if (attr_mask & IB_QP_MAX_QP_RD_ATOMIC &&
	    attr->max_rd_atomic > dev->caps->max_rd_atom) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: %u reads, at most %u\n",
			  qpn, attr->max_rd_atomic, dev->caps->max_rd_atom);
		return -EINVAL;
	}
	if (attr_mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	    attr->max_dest_rd_atomic > dev->caps->max_res_rd_atom) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: %u responder reads, at most %u\n",
			  qpn, attr->max_dest_rd_atomic,
			  dev->caps->max_res_rd_atom);
		return -EINVAL;
	}
	/* An MTU the enum does not know is -1. */
	if (attr_mask & IB_QP_PATH_MTU &&
	    (ib_mtu_enum_to_int(attr->path_mtu) < 0 ||
	     ib_mtu_enum_to_int(attr->path_mtu) > (int)dev->caps->mtu)) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: path MTU %d\n", qpn,
			  ib_mtu_enum_to_int(attr->path_mtu));
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_modify_qp_check);

/*
 * The device's access rights of an RC QP for the verbs' ones.  Remote
 * atomic is a right like the others where the device has atomics; where
 * it has none, no atomic can come, and the flag, which programs set
 * whatever the device, changes nothing.
 */
static u8 wren_ib_qp_access(struct wren_ib_dev *dev, int flags)
{
	u8 access = 0;

	if (flags & IB_ACCESS_REMOTE_WRITE)
		access |= WREN_MR_ACCESS_REMOTE_WRITE;
	if (flags & IB_ACCESS_REMOTE_READ)
		access |= WREN_MR_ACCESS_REMOTE_READ;
	if (flags & IB_ACCESS_REMOTE_ATOMIC &&
	    dev->caps->caps & WREN_CAP_ATOMIC)
		access |= WREN_MR_ACCESS_REMOTE_ATOMIC;
	return access;
}

/*
 * What the device needs of a modify_qp request, in @wa; the state in @wa
 * is set by the caller.  An RC QP's RNR wait and retries go together: the
 * one the request does not change is the one the QP has.
 */
static int wren_ib_modify_attrs(struct wren_ib_dev *dev, struct wren_ib_qp *qp,
				const struct ib_qp_attr *attr, int attr_mask,
				struct wren_qp_attrs *wa)
{
	int err;

	if (attr_mask & IB_QP_QKEY) {
		wa->attr_mask |= WREN_QP_ATTR_QKEY;
		wa->qkey = attr->qkey;
	}
	if (qp->ibqp.qp_type != IB_QPT_RC)
		return 0;
	if (attr_mask & IB_QP_AV) {
		err = wren_ib_ah_dest(dev, &attr->ah_attr, &wa->dest_ipv4);
		if (err)
			return err;
		/* The fabric routes by IPv4 address: no next hop's MAC. */
		wa->attr_mask |= WREN_QP_ATTR_DEST;
		wa->dest_qpn = attr->dest_qp_num;
	}
	if (attr_mask & IB_QP_RQ_PSN) {
		wa->attr_mask |= WREN_QP_ATTR_RQ_PSN;
		wa->rq_psn = attr->rq_psn & WREN_QP_PSN_MASK;
	}
	if (attr_mask & IB_QP_SQ_PSN) {
		wa->attr_mask |= WREN_QP_ATTR_SQ_PSN;
		wa->sq_psn = attr->sq_psn & WREN_QP_PSN_MASK;
	}
	if (attr_mask & (IB_QP_MIN_RNR_TIMER | IB_QP_RNR_RETRY)) {
		wa->attr_mask |= WREN_QP_ATTR_RNR;
		wa->min_rnr_timer = attr_mask & IB_QP_MIN_RNR_TIMER ?
				    attr->min_rnr_timer :
				    qp->attr.min_rnr_timer;
		wa->rnr_retry = attr_mask & IB_QP_RNR_RETRY ?
				attr->rnr_retry : qp->attr.rnr_retry;
		if (wa->min_rnr_timer > 31 ||
		    wa->rnr_retry > WREN_QP_RNR_RETRY_FOREVER)
			return -EINVAL;
	}
	if (attr_mask & IB_QP_ACCESS_FLAGS) {
		wa->attr_mask |= WREN_QP_ATTR_ACCESS;
		wa->access = wren_ib_qp_access(dev, attr->qp_access_flags);
	}
	return 0;
}

/* Keep what modify_qp set, for query_qp. */
static void wren_ib_modify_keep(struct wren_ib_qp *qp,
				const struct ib_qp_attr *attr, int attr_mask)
{
	if (attr_mask & IB_QP_QKEY)
		qp->attr.qkey = attr->qkey;
	if (attr_mask & IB_QP_SQ_PSN)
		qp->attr.sq_psn = attr->sq_psn & WREN_QP_PSN_MASK;
	if (attr_mask & IB_QP_RQ_PSN)
		qp->attr.rq_psn = attr->rq_psn & WREN_QP_PSN_MASK;
	if (attr_mask & IB_QP_AV) {
		qp->attr.ah_attr = attr->ah_attr;
		/* ib_core's reference, not ours: query_qp gives no GID entry. */
		qp->attr.ah_attr.grh.sgid_attr = NULL;
	}
	if (attr_mask & IB_QP_DEST_QPN)
		qp->attr.dest_qp_num = attr->dest_qp_num;
	if (attr_mask & IB_QP_PATH_MTU)
		qp->attr.path_mtu = attr->path_mtu;
	if (attr_mask & IB_QP_TIMEOUT)
		qp->attr.timeout = attr->timeout;
	if (attr_mask & IB_QP_RETRY_CNT)
		qp->attr.retry_cnt = attr->retry_cnt;
	if (attr_mask & IB_QP_RNR_RETRY)
		qp->attr.rnr_retry = attr->rnr_retry;
	if (attr_mask & IB_QP_MIN_RNR_TIMER)
		qp->attr.min_rnr_timer = attr->min_rnr_timer;
	if (attr_mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->attr.max_rd_atomic = attr->max_rd_atomic;
	if (attr_mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->attr.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (attr_mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
}

/**
 * wren_ib_modify_qp() - change a queue pair's state and attributes
 * @ibqp: the QP
 * @attr: the new values
 * @attr_mask: which apply, as the QP type's state diagram allows them:
 *	%IB_QP_STATE, %IB_QP_CUR_STATE, %IB_QP_PKEY_INDEX (0), %IB_QP_PORT
 *	(1); a datagram QP's %IB_QP_QKEY and %IB_QP_SQ_PSN (kept for
 *	query_qp only); an RC QP's path (%IB_QP_AV: a GRH with the peer's
 *	IPv4-mapped GID), %IB_QP_DEST_QPN, both PSNs, %IB_QP_MIN_RNR_TIMER,
 *	%IB_QP_RNR_RETRY, %IB_QP_ACCESS_FLAGS (remote write, read, atomic), and
 *	%IB_QP_PATH_MTU, %IB_QP_TIMEOUT, %IB_QP_RETRY_CNT and the read
 *	limits, which are checked and kept (the transport segments and
 *	retransmits by its own rules)
 * @udata: must carry nothing
 *
 * Return: 0, -EOPNOTSUPP for another attribute, the SQD or SQE state or
 * a request in @udata, -EINVAL for a transition the diagram or the
 * device refuses or a value out of range, or another negative errno.
 */
int wren_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		      int attr_mask, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibqp->device);
	struct wren_ib_qp *qp = to_wren_ib_qp(ibqp);
	enum ib_qp_state cur_state, new_state;
	struct wren_qp_attrs wa = {};
	int err;

	if (udata) {
		err = wren_ib_copy_req(udata, NULL, 0);
		if (err) {
			ibdev_dbg(&dev->ibdev, "modify_qp %u: unknown request\n",
				  ibqp->qp_num);
			return err;
		}
	}

	mutex_lock(&qp->lock);
	cur_state = attr_mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	new_state = attr_mask & IB_QP_STATE ? attr->qp_state : cur_state;
	err = wren_ib_modify_qp_check(dev, qp, attr, attr_mask, cur_state,
				      new_state);
	if (err)
		goto out_unlock;
	if (attr_mask & IB_QP_STATE) {
		err = wren_ib_qps_to_wren(new_state, ibqp->qp_type == IB_QPT_RC,
					  &wa.state);
		if (err) {
			ibdev_dbg(&dev->ibdev, "modify_qp %u: state %d unsupported\n",
				  ibqp->qp_num, new_state);
			goto out_unlock;
		}
		wa.attr_mask |= WREN_QP_ATTR_STATE;
	}
	err = wren_ib_modify_attrs(dev, qp, attr, attr_mask, &wa);
	if (err) {
		ibdev_dbg(&dev->ibdev, "modify_qp %u: attribute out of range\n",
			  ibqp->qp_num);
		goto out_unlock;
	}
	if (wa.attr_mask) {
		err = wren_cmd_modify_qp(dev->wdev, ibqp->qp_num, &wa);
		if (err) {
			ibdev_err_ratelimited(&dev->ibdev,
					      "modify QP %u from %d to %d failed: %d\n",
					      ibqp->qp_num, cur_state, new_state,
					      err);
			goto out_unlock;
		}
	}

	qp->state = new_state;
	if (new_state == IB_QPS_RESET) {
		memset(&qp->attr, 0, sizeof(qp->attr));
		if (qp->kernel)
			wren_ib_kqp_reset(qp);
	}
	wren_ib_modify_keep(qp, attr, attr_mask);
out_unlock:
	mutex_unlock(&qp->lock);
	trace_wren_ib_modify_qp(ibqp, cur_state, new_state, attr_mask, err);
	return err;
}

/**
 * wren_ib_query_qp() - a queue pair's state and attributes
 * @ibqp: the QP
 * @attr: filled in: the state and the Q_Key as the device has them (it
 *	may have moved the QP to the error state), the rest as modify_qp set
 *	them
 * @attr_mask: ignored: every attribute is returned
 * @init_attr: filled in: the type, CQs, capacities and signalling type
 *
 * Return: 0 or the negative errno of the device's query.
 */
int wren_ib_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		     int attr_mask, struct ib_qp_init_attr *init_attr)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibqp->device);
	struct wren_ib_qp *qp = to_wren_ib_qp(ibqp);
	struct wren_qp_query q;
	int err;

	memset(attr, 0, sizeof(*attr));
	memset(init_attr, 0, sizeof(*init_attr));

	mutex_lock(&qp->lock);
	err = wren_cmd_query_qp(dev->wdev, ibqp->qp_num, &q);
	if (err) {
		mutex_unlock(&qp->lock);
		ibdev_err_ratelimited(&dev->ibdev, "query QP %u failed: %d\n",
				      ibqp->qp_num, err);
		return err;
	}
	qp->state = wren_ib_qps_from_wren(q.state);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->qkey = q.qkey;
	attr->cap = qp->cap;
	mutex_unlock(&qp->lock);
	attr->port_num = 1;
	attr->pkey_index = 0;

	init_attr->qp_type = ibqp->qp_type;
	init_attr->send_cq = ibqp->send_cq;
	init_attr->recv_cq = ibqp->recv_cq;
	init_attr->qp_context = ibqp->qp_context;
	init_attr->cap = qp->cap;
	init_attr->sq_sig_type = qp->sq_sig_type;
	return 0;
}

/**
 * wren_ib_destroy_qp() - destroy a queue pair
 * @ibqp: the QP
 * @udata: unused
 *
 * Its posted work requests are discarded without completions.  Should
 * the device fail to destroy it, the failure is logged and the rings,
 * which the device may still read, are leaked; ib_core's object goes all
 * the same.
 *
 * Return: 0.
 */
int wren_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibqp->device);
	struct wren_ib_qp *qp = to_wren_ib_qp(ibqp);

	wren_ib_qp_unpublish(dev, ibqp->qp_num);
	if (!wren_ib_qp_destroy_hw(dev, ibqp->qp_num)) {
		if (qp->kernel) {
			wren_ib_kqp_clean(qp);
			wren_ib_kqp_free(qp);
		}
		wren_ib_ring_free(dev, &qp->rq);
		wren_ib_ring_free(dev, &qp->sq);
	}
	mutex_destroy(&qp->lock);
	return 0;
}
