// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren's direct verbs (wrendv.h): the public entry points and the
 * checks of their extensible arguments.  Each takes a libibverbs object,
 * makes sure it is a Wren one, and reads or fills a structure whose size
 * the caller gives (@inlen), so that structures can grow:
 * - too short for the fields of version 1: EINVAL;
 * - longer than this library knows: the unknown tail must be zero on
 *   input (else EINVAL) and is zeroed on output;
 * - an unknown comp_mask bit or option: EOPNOTSUPP; a non-zero reserved
 *   field: EINVAL (the uverbs ABI's rules).
 */
#include <errno.h>
#include <string.h>

#include <ccan/minmax.h>

#include "wren.h"
#include "wrendv.h"

#define WREN_END_OF(type, field) \
	(offsetof(type, field) + sizeof(((type *)NULL)->field))

static bool wren_all_zero(const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--)
		if (*p++)
			return false;
	return true;
}

int wrendv_query_device(struct ibv_context *ibvctx,
			struct wrendv_device_attr *attr, uint32_t inlen)
{
	struct wren_context *ctx;

	if (!is_wren_device(ibvctx->device))
		return EOPNOTSUPP;
	if (inlen < WREN_END_OF(struct wrendv_device_attr, max_rd_msg_size))
		return EINVAL;

	ctx = to_wren_context(ibvctx);
	memset(attr, 0, inlen);
	attr->max_sq_wr = ctx->max_sq_depth;
	attr->max_rq_wr = ctx->max_rq_depth;
	attr->max_sq_sge = ctx->max_sge;
	attr->inline_buf_size = ctx->max_inline;
	/* A kernel without the data path tells no more: zeros. */
	if (ctx->data_path) {
		attr->max_rq_sge = ctx->max_recv_sge;
		attr->max_rd_msg_size = ctx->max_msg_size;
		if (ctx->device_caps & WREN_IB_DEVICE_CAP_RD)
			attr->device_caps |= WRENDV_DEVICE_CAP_RD;
		if (ctx->device_caps & WREN_IB_DEVICE_CAP_RD_ORDERED)
			attr->device_caps |= WRENDV_DEVICE_CAP_RD_ORDERED;
		if (ctx->device_caps & WREN_IB_DEVICE_CAP_RD_HANDSHAKE)
			attr->device_caps |= WRENDV_DEVICE_CAP_RD_HANDSHAKE;
		if (ctx->device_caps & WREN_IB_DEVICE_CAP_RDMA_WRITE)
			attr->device_caps |= WRENDV_DEVICE_CAP_RDMA_WRITE;
		if (ctx->device_caps & WREN_IB_DEVICE_CAP_RDMA_READ)
			attr->device_caps |= WRENDV_DEVICE_CAP_RDMA_READ;
	}
	/* One-sided operations are RD messages: the same bound. */
	if (inlen >= WREN_END_OF(struct wrendv_device_attr, max_rdma_size) &&
	    attr->device_caps & (WRENDV_DEVICE_CAP_RDMA_WRITE |
				 WRENDV_DEVICE_CAP_RDMA_READ))
		attr->max_rdma_size = ctx->max_msg_size;
	return 0;
}

/*
 * Check the RD attributes and copy them into @out, a full version of the
 * structure whatever the caller's was.
 */
static int wren_read_dv_qp_attr(const struct wrendv_qp_init_attr *in,
				uint32_t inlen,
				struct wrendv_qp_init_attr *out)
{
	if (inlen < WREN_END_OF(struct wrendv_qp_init_attr, flags))
		return EINVAL;

	memset(out, 0, sizeof(*out));
	memcpy(out, in, min_t(size_t, inlen, sizeof(*out)));
	if (inlen > sizeof(*out) &&
	    !wren_all_zero((const uint8_t *)in + sizeof(*out),
			   inlen - sizeof(*out)))
		return EINVAL;
	if (!wren_all_zero(out->reserved, sizeof(out->reserved)))
		return EINVAL;
	if (out->comp_mask ||
	    out->driver_qp_type != WRENDV_QP_DRIVER_TYPE_RD ||
	    !check_comp_mask(out->flags, WRENDV_QP_FLAGS_ORDERED |
					 WRENDV_QP_FLAGS_HANDSHAKE))
		return EOPNOTSUPP;
	return 0;
}

struct ibv_qp *wrendv_create_qp(struct ibv_context *ibvctx,
				struct ibv_qp_init_attr_ex *attr_ex,
				struct wrendv_qp_init_attr *wrendv_attr,
				uint32_t inlen)
{
	struct wrendv_qp_init_attr dv_attr;
	int err;

	if (!is_wren_device(ibvctx->device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr_ex->qp_type != IBV_QPT_DRIVER) {
		verbs_debug(verbs_get_ctx(ibvctx),
			    "wrendv_create_qp: qp_type must be IBV_QPT_DRIVER\n");
		errno = EINVAL;
		return NULL;
	}
	err = wren_read_dv_qp_attr(wrendv_attr, inlen, &dv_attr);
	if (err) {
		verbs_debug(verbs_get_ctx(ibvctx),
			    "wrendv_create_qp: attributes refused (inlen %u): %s\n",
			    inlen, strerror(err));
		errno = err;
		return NULL;
	}
	return wren_create_qp_common(ibvctx, attr_ex, &dv_attr);
}

int wrendv_query_ah(struct ibv_ah *ibvah, struct wrendv_ah_attr *attr,
		    uint32_t inlen)
{
	struct wren_ah *ah;

	if (!is_wren_device(ibvah->context->device))
		return EOPNOTSUPP;
	if (inlen < WREN_END_OF(struct wrendv_ah_attr, ipv4))
		return EINVAL;

	ah = to_wren_ah(ibvah);
	memset(attr, 0, inlen);
	attr->ahn = ah->ahn;
	attr->ipv4 = ah->ipv4;
	return 0;
}
