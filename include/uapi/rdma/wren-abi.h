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
 * @max_recv_sge: scatter/gather entries per receive work request
 *	(valid with WREN_IB_UCONTEXT_RESP_DATA_PATH)
 * @max_msg_size: largest RD message in bytes (the same)
 * @device_caps: WREN_IB_DEVICE_CAP_* (the same)
 * @max_cq_depth: entries per completion queue (the same)
 */
struct wren_ib_alloc_ucontext_resp {
	__u32 comp_mask;
	__u32 db_page_size;
	__aligned_u64 db_mmap_key;
	__u32 max_sq_depth;
	__u32 max_rq_depth;
	__u32 max_sge;
	__u32 max_inline;
	__u32 max_recv_sge;
	__u32 max_msg_size;
	__u32 device_caps;
	__u32 max_cq_depth;
};

/* wren_ib_alloc_ucontext_resp.comp_mask */
enum {
	WREN_IB_UCONTEXT_RESP_DATA_PATH = 1 << 0,
};

/* wren_ib_alloc_ucontext_resp.device_caps */
enum {
	WREN_IB_DEVICE_CAP_RD = 1 << 0,		/* RD queue pairs */
	WREN_IB_DEVICE_CAP_RD_ORDERED = 1 << 1,	/* in-order RD delivery */
	WREN_IB_DEVICE_CAP_RD_HANDSHAKE = 1 << 2, /* handshake establishment */
	WREN_IB_DEVICE_CAP_RDMA_WRITE = 1 << 3,	/* RD, RC: WRITE, WRITE_IMM */
	WREN_IB_DEVICE_CAP_RDMA_READ = 1 << 4,	/* RD, RC: READ */
	WREN_IB_DEVICE_CAP_RC = 1 << 5,		/* RC queue pairs */
	WREN_IB_DEVICE_CAP_ATOMIC = 1 << 6,	/* RC: CMP_SWP, FETCH_ADD */
	WREN_IB_DEVICE_CAP_SRQ = 1 << 7,	/* shared receive queues */
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

/**
 * struct wren_ib_create_cq_req - request of create_cq (also create_cq_ex)
 * @comp_mask: no bits defined yet, must be zero
 * @reserved: must be zero
 */
struct wren_ib_create_cq_req {
	__u32 comp_mask;
	__u32 reserved;
};

/*
 * wren_ib_create_cq_resp.comp_mask and wren_ib_resize_cq_resp.comp_mask.
 * LIVENESS: the ring's bytes after its entries begin with a __u32 that
 * reads WREN_IB_CQ_LIVE while the device serves the CQ, and 0 once the
 * device failed (the driver clears it) or the context was disassociated
 * (ib_core replaces the mapping with zeros): then no completion will come,
 * and what the ring seems to hold is not to be believed.
 */
enum {
	WREN_IB_CQ_RESP_LIVENESS = 1 << 0,
};

#define WREN_IB_CQ_LIVE		0x4e455257U	/* "WREN" in memory */

/**
 * struct wren_ib_create_cq_resp - response of create_cq
 * @comp_mask: WREN_IB_CQ_RESP_*
 * @cqn: the device's CQ number
 * @ring_mmap_key: offset to pass to mmap() for the ring of completion
 *	entries (struct wren_cqe of <linux/wren/wren_if.h>)
 * @ring_size: bytes to map at @ring_mmap_key
 * @log_depth: log2 of the ring's entries
 * @db_offset: byte offset of the CQ's doorbell in the context's doorbell
 *	page
 * @reserved: zero
 *
 * The ring starts zeroed: the device writes phase 1 on its first lap.
 */
struct wren_ib_create_cq_resp {
	__u32 comp_mask;
	__u32 cqn;
	__aligned_u64 ring_mmap_key;
	__u32 ring_size;
	__u32 log_depth;
	__u32 db_offset;
	__u32 reserved;
};

/**
 * struct wren_ib_resize_cq_req - request of resize_cq
 * @comp_mask: no bits defined yet, must be zero
 * @reserved: must be zero
 *
 * The caller holds the CQ: nothing polls it during the call, and its
 * doorbell carries the consumer index of what it has consumed.
 */
struct wren_ib_resize_cq_req {
	__u32 comp_mask;
	__u32 reserved;
};

/**
 * struct wren_ib_resize_cq_resp - response of resize_cq
 * @comp_mask: WREN_IB_CQ_RESP_*, of the new ring
 * @moved: completions the device moved to the new ring's first entries;
 *	the consumer index starts again at 0
 * @ring_mmap_key: offset to pass to mmap() for the new ring, which
 *	replaces the old one (unmap that)
 * @ring_size: bytes to map at @ring_mmap_key
 * @log_depth: log2 of the new ring's entries
 */
struct wren_ib_resize_cq_resp {
	__u32 comp_mask;
	__u32 moved;
	__aligned_u64 ring_mmap_key;
	__u32 ring_size;
	__u32 log_depth;
};

/* wren_ib_create_qp_req.driver_qp_type, for IB_QPT_DRIVER */
enum wren_ib_qp_driver_type {
	WREN_IB_QP_DRIVER_TYPE_RD = 1,
};

/* wren_ib_create_qp_req.flags; RD only */
enum {
	WREN_IB_QP_FLAG_ORDERED = 1 << 0,	/* receives complete in order */
	WREN_IB_QP_FLAG_HANDSHAKE = 1 << 1,	/* handshake establishment */
};

/**
 * struct wren_ib_create_qp_req - request of create_qp
 * @comp_mask: no bits defined yet, must be zero
 * @driver_qp_type: with IB_QPT_DRIVER, &enum wren_ib_qp_driver_type;
 *	else zero
 * @flags: WREN_IB_QP_FLAG_*, for an RD QP only
 * @reserved: must be zero
 */
struct wren_ib_create_qp_req {
	__u32 comp_mask;
	__u32 driver_qp_type;
	__u32 flags;
	__u32 reserved;
};

/**
 * struct wren_ib_create_qp_resp - response of create_qp
 * @comp_mask: no bits defined yet
 * @qpn: the QP number (also in the core response)
 * @sq_mmap_key: offset to pass to mmap() for the send queue ring
 *	(struct wren_sq_wqe entries)
 * @rq_mmap_key: the same for the receive queue ring (struct wren_rq_wqe);
 *	0, and @rq_ring_size, @rq_log_depth and @rq_db_offset too, for a QP
 *	on an SRQ, which has none
 * @sq_ring_size: bytes to map at @sq_mmap_key
 * @rq_ring_size: bytes to map at @rq_mmap_key
 * @sq_log_depth: log2 of the send queue's entries
 * @rq_log_depth: log2 of the receive queue's entries
 * @sq_db_offset: byte offset of the send doorbell in the doorbell page
 * @rq_db_offset: byte offset of the receive doorbell in the doorbell page
 * @sq_wqe_shift: the send queue's entries are sizeof(struct wren_sq_wqe)
 *	<< @sq_wqe_shift bytes: the smallest that hold the SGEs and inline
 *	bytes asked for (a shorter response than this means 0)
 * @rq_wqe_shift: the same for the receive queue and struct wren_rq_wqe
 */
struct wren_ib_create_qp_resp {
	__u32 comp_mask;
	__u32 qpn;
	__aligned_u64 sq_mmap_key;
	__aligned_u64 rq_mmap_key;
	__u32 sq_ring_size;
	__u32 rq_ring_size;
	__u32 sq_log_depth;
	__u32 rq_log_depth;
	__u32 sq_db_offset;
	__u32 rq_db_offset;
	__u32 sq_wqe_shift;
	__u32 rq_wqe_shift;
};

/**
 * struct wren_ib_create_ah_resp - response of create_ah
 * @comp_mask: no bits defined yet
 * @ahn: the device's AH number, for the send work requests
 */
struct wren_ib_create_ah_resp {
	__u32 comp_mask;
	__u32 ahn;
};

/**
 * struct wren_ib_create_srq_resp - response of create_srq
 * @comp_mask: no bits defined yet
 * @srqn: the device's SRQ number
 * @mmap_key: offset to pass to mmap() for its ring (struct wren_rq_wqe)
 * @ring_size: bytes to map at @mmap_key
 * @log_depth: log2 of its entries
 * @db_offset: byte offset of its doorbell in the doorbell page
 * @wqe_shift: its entries are sizeof(struct wren_rq_wqe) << @wqe_shift
 *	bytes, the smallest that hold the SGEs asked for
 */
struct wren_ib_create_srq_resp {
	__u32 comp_mask;
	__u32 srqn;
	__aligned_u64 mmap_key;
	__u32 ring_size;
	__u32 log_depth;
	__u32 db_offset;
	__u32 wqe_shift;
};

/**
 * struct wren_ib_modify_srq_req - request of modify_srq
 * @resp_addr: with IB_SRQ_MAX_WR, the user address of a
 *	&struct wren_ib_resize_srq_resp the kernel fills in (modify_srq has
 *	no response of its own); else zero
 * @comp_mask: no bits defined yet
 * @reserved: zero
 */
struct wren_ib_modify_srq_req {
	__aligned_u64 resp_addr;
	__u32 comp_mask;
	__u32 reserved;
};

/**
 * struct wren_ib_resize_srq_resp - the new ring of a resized SRQ
 * @mmap_key: offset to pass to mmap() for it
 * @ring_size: bytes to map at @mmap_key
 * @log_depth: log2 of its entries
 * @moved: the receives posted and not yet taken, now in its first slots,
 *	in order; the next receive goes to slot @moved
 * @reserved: zero
 */
struct wren_ib_resize_srq_resp {
	__aligned_u64 mmap_key;
	__u32 ring_size;
	__u32 log_depth;
	__u32 moved;
	__u32 reserved;
};

#endif /* WREN_ABI_USER_H */
