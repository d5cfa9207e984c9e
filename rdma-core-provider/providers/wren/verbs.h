/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The verbs libwren implements, by file.  Verbs not listed here are left
 * to libibverbs' defaults, which fail with EOPNOTSUPP.
 */
#ifndef WREN_VERBS_H
#define WREN_VERBS_H

#include <infiniband/driver.h>

/* verbs.c: device, port, PD, thread and parent domains, MR, AH */
int wren_query_device_ex(struct ibv_context *ibvctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int wren_query_port(struct ibv_context *ibvctx, uint8_t port,
		    struct ibv_port_attr *port_attr);
struct ibv_pd *wren_alloc_pd(struct ibv_context *ibvctx);
int wren_dealloc_pd(struct ibv_pd *ibvpd);
struct ibv_td *wren_alloc_td(struct ibv_context *ibvctx,
			     struct ibv_td_init_attr *attr);
int wren_dealloc_td(struct ibv_td *ibvtd);
struct ibv_pd *wren_alloc_parent_domain(struct ibv_context *ibvctx,
					struct ibv_parent_domain_init_attr *attr);
struct ibv_mr *wren_reg_mr(struct ibv_pd *ibvpd, void *addr, size_t length,
			   uint64_t hca_va, int access);
struct ibv_mr *wren_reg_dmabuf_mr(struct ibv_pd *ibvpd, uint64_t offset,
				  size_t length, uint64_t iova, int fd,
				  int access);
int wren_rereg_mr(struct verbs_mr *vmr, int flags, struct ibv_pd *ibvpd,
		  void *addr, size_t length, int access);
int wren_dereg_mr(struct verbs_mr *vmr);
struct ibv_ah *wren_create_ah(struct ibv_pd *ibvpd, struct ibv_ah_attr *attr);
int wren_destroy_ah(struct ibv_ah *ibvah);

/* cq.c: CQ creation, destruction and arming */
struct ibv_cq *wren_create_cq(struct ibv_context *ibvctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector);
struct ibv_cq_ex *wren_create_cq_ex(struct ibv_context *ibvctx,
				    struct ibv_cq_init_attr_ex *attr);
int wren_destroy_cq(struct ibv_cq *ibvcq);
int wren_resize_cq(struct ibv_cq *ibvcq, int cqe);
int wren_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only);

/* cq_poll.c: reading completions */
int wren_poll_cq(struct ibv_cq *ibvcq, int nwc, struct ibv_wc *wc);

/* qp.c: QP creation, state changes and destruction */
struct ibv_qp *wren_create_qp(struct ibv_pd *ibvpd,
			      struct ibv_qp_init_attr *attr);
struct ibv_qp *wren_create_qp_ex(struct ibv_context *ibvctx,
				 struct ibv_qp_init_attr_ex *attr);
int wren_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		   int attr_mask);
int wren_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr);
int wren_destroy_qp(struct ibv_qp *ibvqp);

/* srq.c: shared receive queues, their control path */
struct ibv_srq *wren_create_srq(struct ibv_pd *ibvpd,
				struct ibv_srq_init_attr *attr);
int wren_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr,
		    int attr_mask);
int wren_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr);
int wren_destroy_srq(struct ibv_srq *ibvsrq);

/* qp_post.c: posting work requests */
int wren_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr);
int wren_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr);
int wren_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr);

#endif /* WREN_VERBS_H */
