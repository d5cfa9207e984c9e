/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Wren direct verbs: what the standard verbs cannot say about a Wren
 * adapter.  Reliable-datagram (RD) queue pairs, their establishment and
 * delivery modes, the device's limits and an address handle's number.
 * See wrendv(7).
 *
 * Each function takes the size of the structure the caller has (inlen),
 * so that structures can grow at their end: a caller built against an
 * older header passes a shorter one, a newer caller a longer one whose
 * unknown tail must be zero.  comp_mask fields say which optional fields
 * are valid; none are defined yet.
 */
#ifndef __WRENDV_H__
#define __WRENDV_H__

#include <stdint.h>

#include <infiniband/verbs.h>

#ifdef __cplusplus
extern "C" {
#endif

/* wrendv_device_attr.device_caps */
enum wrendv_device_caps {
	WRENDV_DEVICE_CAP_RD = 1 << 0,		/* RD queue pairs */
	WRENDV_DEVICE_CAP_RD_ORDERED = 1 << 1,	/* in-order RD delivery */
	WRENDV_DEVICE_CAP_RD_HANDSHAKE = 1 << 2,	/* handshake establishment */
	WRENDV_DEVICE_CAP_RDMA_WRITE = 1 << 3,	/* RD: RDMA WRITE (with imm) */
	WRENDV_DEVICE_CAP_RDMA_READ = 1 << 4,	/* RD: RDMA READ */
};

/*
 * The device's limits, as its kernel driver reports them.
 * comp_mask:		out, no bits defined yet
 * max_sq_wr:		work requests per send queue
 * max_rq_wr:		work requests per receive queue
 * max_sq_sge:		scatter/gather entries per send work request
 * max_rq_sge:		scatter/gather entries per receive work request
 * inline_buf_size:	inline bytes per send work request
 * device_caps:		WRENDV_DEVICE_CAP_*
 * max_rd_msg_size:	largest message of an RD QP, in bytes
 * max_rdma_size:	largest RDMA WRITE or READ, in bytes (0 without
 *			WRENDV_DEVICE_CAP_RDMA_*); filled if @inlen covers it
 */
struct wrendv_device_attr {
	uint64_t comp_mask;
	uint32_t max_sq_wr;
	uint32_t max_rq_wr;
	uint16_t max_sq_sge;
	uint16_t max_rq_sge;
	uint16_t inline_buf_size;
	uint8_t reserved[2];
	uint32_t device_caps;
	uint32_t max_rd_msg_size;
	uint32_t max_rdma_size;
};

int wrendv_query_device(struct ibv_context *ibvctx,
			struct wrendv_device_attr *attr, uint32_t inlen);

/* wrendv_qp_init_attr.driver_qp_type, with IBV_QPT_DRIVER */
enum wrendv_qp_driver_type {
	WRENDV_QP_DRIVER_TYPE_RD = 1,
};

/* wrendv_qp_init_attr.flags */
enum wrendv_qp_flags {
	WRENDV_QP_FLAGS_ORDERED = 1 << 0,	/* receives complete in order */
	WRENDV_QP_FLAGS_HANDSHAKE = 1 << 1,	/* handshake establishment */
};

/*
 * comp_mask:		in, must be 0
 * driver_qp_type:	WRENDV_QP_DRIVER_TYPE_RD
 * flags:		WRENDV_QP_FLAGS_*, each needing its device cap
 * reserved:		must be 0
 */
struct wrendv_qp_init_attr {
	uint64_t comp_mask;
	uint32_t driver_qp_type;
	uint32_t flags;
	uint8_t reserved[8];
};

/* attr_ex->qp_type is IBV_QPT_DRIVER; NULL with errno set on failure. */
struct ibv_qp *wrendv_create_qp(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *attr_ex,
				struct wrendv_qp_init_attr *wrendv_attr,
				uint32_t inlen);

/*
 * comp_mask:		out, no bits defined yet
 * ahn:			the device's number for the address handle
 * ipv4:		the destination's IPv4 address in network byte order,
 *			when its GID is IPv4-mapped; else 0
 */
struct wrendv_ah_attr {
	uint64_t comp_mask;
	uint32_t ahn;
	uint32_t ipv4;		/* destination, network byte order */
};

int wrendv_query_ah(struct ibv_ah *ibvah, struct wrendv_ah_attr *attr,
		    uint32_t inlen);

#ifdef __cplusplus
}
#endif

#endif /* __WRENDV_H__ */
