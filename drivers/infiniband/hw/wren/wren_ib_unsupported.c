// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: the verbs ib_core requires that this version of the
 * device does not offer yet (its data path).  Each fails with -EOPNOTSUPP;
 * the destroy verbs are never reached, since nothing can be created.
 */
#include "wren_ib.h"

#ifdef HAVE_CREATE_CQ_ATTRS
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct uverbs_attr_bundle *attrs)
#else
int wren_ib_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		      struct ib_udata *udata)
#endif
{
	return -EOPNOTSUPP;
}

int wren_ib_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return 0;
}

int wren_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	return -EOPNOTSUPP;
}

int wren_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

int wren_ib_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init_attr,
		      struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

int wren_ib_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
		      int attr_mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

int wren_ib_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	return 0;
}

int wren_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

int wren_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

struct ib_mr *wren_ib_get_dma_mr(struct ib_pd *ibpd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

struct ib_mr *wren_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

int wren_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	return 0;
}
