// SPDX-License-Identifier: GPL-2.0
/*
 * Verbs ib_core expects of a kernel verbs provider that Wren does not
 * offer yet.  Each fails with -EOPNOTSUPP, which is what rdma-core and its
 * tests take for "not supported" (they skip, rather than fail).  The
 * destroy verbs cannot be reached, as no object of their kind is ever
 * created, and succeed.
 */
#include <rdma/ib_verbs.h>

#include "wren_ib.h"

/**
 * wren_ib_create_cq - create a completion queue (not supported)
 * @ibcq: the CQ ib_core allocated
 * @attr: the requested attributes
 * @attrs: the uverbs attributes of the request
 *
 * Return: -EOPNOTSUPP.
 */
#ifdef HAVE_CREATE_CQ_ATTR_BUNDLE
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs)
#else
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *attrs)
#endif
{
	ibdev_dbg_ratelimited(ibcq->device, "create_cq: not supported\n");
	return -EOPNOTSUPP;
}

/**
 * wren_ib_destroy_cq - destroy a completion queue (never created)
 * @ibcq: the CQ
 * @udata: user data
 *
 * Return: 0.
 */
int wren_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return 0;
}

/**
 * wren_ib_poll_cq - poll a completion queue (not supported)
 * @ibcq: the CQ
 * @num_entries: room in @wc
 * @wc: completions out
 *
 * Return: -EOPNOTSUPP.
 */
int wren_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	return -EOPNOTSUPP;
}

/**
 * wren_ib_req_notify_cq - arm a completion queue (not supported)
 * @ibcq: the CQ
 * @flags: which completions to be notified of
 *
 * Return: -EOPNOTSUPP.
 */
int wren_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

/**
 * wren_ib_create_qp - create a queue pair (not supported)
 * @ibqp: the QP ib_core allocated
 * @init_attr: the requested attributes
 * @udata: user data
 *
 * Return: -EOPNOTSUPP.
 */
int wren_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		      struct ib_udata *udata)
{
	ibdev_dbg_ratelimited(ibqp->device, "create_qp: type %d not supported\n",
			      init_attr->qp_type);
	return -EOPNOTSUPP;
}

/**
 * wren_ib_modify_qp - modify a queue pair (not supported)
 * @ibqp: the QP
 * @attr: the new attributes
 * @attr_mask: which of @attr to apply
 * @udata: user data
 *
 * Return: -EOPNOTSUPP.
 */
int wren_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		      int attr_mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

/**
 * wren_ib_destroy_qp - destroy a queue pair (never created)
 * @ibqp: the QP
 * @udata: user data
 *
 * Return: 0.
 */
int wren_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return 0;
}

/**
 * wren_ib_post_send - post send work requests (not supported)
 * @ibqp: the QP
 * @wr: the work requests
 * @bad_wr: set to the first work request not posted
 *
 * Return: -EOPNOTSUPP.
 */
int wren_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

/**
 * wren_ib_post_recv - post receive work requests (not supported)
 * @ibqp: the QP
 * @wr: the work requests
 * @bad_wr: set to the first work request not posted
 *
 * Return: -EOPNOTSUPP.
 */
int wren_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

/**
 * wren_ib_get_dma_mr - a memory region over all DMA memory (not supported)
 * @ibpd: the PD
 * @access_flags: the requested access
 *
 * Return: ERR_PTR(-EOPNOTSUPP).
 */
struct ib_mr *wren_ib_get_dma_mr(struct ib_pd *ibpd, int access_flags)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/**
 * wren_ib_reg_user_mr - register user memory (not supported)
 * @ibpd: the PD
 * @start: user address of the region
 * @length: bytes in the region
 * @virt_addr: I/O virtual address of the region
 * @access_flags: the requested access
 * @udata: user data
 *
 * Return: ERR_PTR(-EOPNOTSUPP).
 */
struct ib_mr *wren_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access_flags,
				  struct ib_udata *udata)
{
	ibdev_dbg_ratelimited(ibpd->device, "reg_user_mr: not supported\n");
	return ERR_PTR(-EOPNOTSUPP);
}

/**
 * wren_ib_dereg_mr - deregister a memory region (never registered)
 * @ibmr: the MR
 * @udata: user data
 *
 * Return: 0.
 */
int wren_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	return 0;
}
