/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libwren's objects: the device, the user context and the protection
 * domain, each wrapping its libibverbs counterpart.
 */
#ifndef WREN_H
#define WREN_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/driver.h>
#include <util/util.h>

#include "wren-abi.h"

/**
 * struct wren_device - one Wren RDMA device found in sysfs
 * @vdev: libibverbs' device
 * @page_size: the system page size, the granule of every mapping
 */
struct wren_device {
	struct verbs_device vdev;
	size_t page_size;
};

/**
 * struct wren_context - a user context opened on a device
 * @ibvctx: libibverbs' context
 * @db_page: this context's doorbell page, mapped from the device
 * @db_page_size: bytes mapped at @db_page
 * @max_sq_depth: work requests per send queue
 * @max_rq_depth: work requests per receive queue
 * @max_sge: scatter/gather entries per work request
 * @max_inline: inline data bytes per send
 */
struct wren_context {
	struct verbs_context ibvctx;
	void *db_page;
	size_t db_page_size;
	uint32_t max_sq_depth;
	uint32_t max_rq_depth;
	uint32_t max_sge;
	uint32_t max_inline;
};

/**
 * struct wren_pd - a protection domain
 * @ibvpd: libibverbs' protection domain
 * @pdn: the device's protection domain number
 */
struct wren_pd {
	struct ibv_pd ibvpd;
	uint32_t pdn;
};

static inline struct wren_device *to_wren_device(struct ibv_device *ibvdev)
{
	return container_of(ibvdev, struct wren_device, vdev.device);
}

static inline struct wren_context *to_wren_context(struct ibv_context *ibvctx)
{
	return container_of(ibvctx, struct wren_context, ibvctx.context);
}

static inline struct wren_pd *to_wren_pd(struct ibv_pd *ibvpd)
{
	return container_of(ibvpd, struct wren_pd, ibvpd);
}

#endif /* WREN_H */
