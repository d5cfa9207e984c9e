/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The Wren RDMA driver's kernel/user ABI, exchanged through the udata of
 * the uverbs commands.  Version 1.  Structures only grow: new fields go
 * into reserved space or at the end, announced by a comp_mask bit.  A
 * request with an unknown comp_mask bit or a non-zero reserved field is
 * rejected with -EOPNOTSUPP (comp_mask) or -EINVAL (reserved).
 */
#ifndef WREN_ABI_USER_H
#define WREN_ABI_USER_H

#include <linux/types.h>

#define WREN_IB_UVERBS_ABI_VERSION	1

/**
 * struct wren_ib_alloc_ucontext_req - request of alloc_ucontext
 * @comp_mask: no bits defined yet, must be zero
 * @reserved: must be zero
 */
struct wren_ib_alloc_ucontext_req {
	__u32 comp_mask;
	__u32 reserved;
};

/**
 * struct wren_ib_alloc_ucontext_resp - response of alloc_ucontext
 * @comp_mask: no bits defined yet
 * @db_page_size: size of the context's doorbell page in bytes
 * @db_mmap_key: offset to pass to mmap() for the context's doorbell page
 * @max_sq_depth: work requests per send queue
 * @max_rq_depth: work requests per receive queue
 * @max_sge: scatter/gather entries per work request
 * @max_inline: inline data bytes per send
 */
struct wren_ib_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 db_page_size;
	__aligned_u64 db_mmap_key;
	__u32 max_sq_depth;
	__u32 max_rq_depth;
	__u32 max_sge;
	__u32 max_inline;
};

/**
 * struct wren_ib_alloc_pd_resp - response of alloc_pd
 * @comp_mask: no bits defined yet
 * @pdn: the device's protection domain number
 */
struct wren_ib_alloc_pd_resp {
	__u32 comp_mask;
	__u32 pdn;
};

#endif /* WREN_ABI_USER_H */
