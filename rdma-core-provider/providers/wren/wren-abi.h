/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The uverbs commands libwren sends, each the core verbs command followed
 * by the driver data of include/uapi/rdma/wren-abi.h (ABI version 1).
 *
 * Both ibv_create_cq() and ibv_create_cq_ex() go through the extended
 * create_cq command, so the kernel sees one form of CQ creation.
 */
#ifndef WREN_ABI_H
#define WREN_ABI_H

#include <infiniband/kern-abi.h>
#include <kernel-abi/wren-abi.h>
#include <rdma/wren-abi.h>

DECLARE_DRV_CMD(wren_alloc_ucontext, IB_USER_VERBS_CMD_GET_CONTEXT,
		wren_ib_alloc_ucontext_req, wren_ib_alloc_ucontext_resp);
DECLARE_DRV_CMD(wren_alloc_pd, IB_USER_VERBS_CMD_ALLOC_PD, empty,
		wren_ib_alloc_pd_resp);
DECLARE_DRV_CMD(wren_create_cq, IB_USER_VERBS_EX_CMD_CREATE_CQ,
		wren_ib_create_cq_req, wren_ib_create_cq_resp);
DECLARE_DRV_CMD(wren_resize_cq, IB_USER_VERBS_CMD_RESIZE_CQ,
		wren_ib_resize_cq_req, wren_ib_resize_cq_resp);
DECLARE_DRV_CMD(wren_create_qp, IB_USER_VERBS_CMD_CREATE_QP,
		wren_ib_create_qp_req, wren_ib_create_qp_resp);
DECLARE_DRV_CMD(wren_create_ah, IB_USER_VERBS_CMD_CREATE_AH, empty,
		wren_ib_create_ah_resp);
DECLARE_DRV_CMD(wren_create_srq, IB_USER_VERBS_CMD_CREATE_SRQ, empty,
		wren_ib_create_srq_resp);
DECLARE_DRV_CMD(wren_modify_srq, IB_USER_VERBS_CMD_MODIFY_SRQ,
		wren_ib_modify_srq_req, empty);

#endif /* WREN_ABI_H */
