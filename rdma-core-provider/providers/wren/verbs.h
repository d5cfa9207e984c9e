/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The control-path verbs libwren implements.  Verbs not listed here are
 * left to libibverbs' defaults, which fail with EOPNOTSUPP.
 */
#ifndef WREN_VERBS_H
#define WREN_VERBS_H

#include <infiniband/driver.h>

int wren_query_device_ex(struct ibv_context *ibvctx,
			 const struct ibv_query_device_ex_input *input,
			 struct ibv_device_attr_ex *attr, size_t attr_size);
int wren_query_port(struct ibv_context *ibvctx, uint8_t port,
		    struct ibv_port_attr *port_attr);
struct ibv_pd *wren_alloc_pd(struct ibv_context *ibvctx);
int wren_dealloc_pd(struct ibv_pd *ibvpd);

#endif /* WREN_VERBS_H */
