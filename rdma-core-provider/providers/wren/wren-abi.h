/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The uverbs commands libwren sends, each the core verbs command followed
 * by the driver data of include/uapi/rdma/wren-abi.h (ABI version 1).
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

#endif /* WREN_ABI_H */
