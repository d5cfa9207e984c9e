// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren: shared receive queues, their control path.  The kernel
 * allocates the ring; libwren maps it and posts to it as to a QP's
 * receive queue (qp_post.c), and the receive completions of the QPs
 * created on it name its request ids (cq_poll.c).  The device fires the
 * armed limit once; the kernel turns it into the SRQ's async event.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ccan/minmax.h>

#include "wren.h"
#include "verbs.h"

/* The kernel's answer, checked before use as a QP's is. */
static int wren_check_srq_resp(struct wren_context *ctx,
			       const struct wren_create_srq_resp *resp)
{
	if (resp->log_depth < WREN_QUEUE_LOG_DEPTH_MIN ||
	    resp->log_depth > WREN_WQ_LOG_DEPTH_LIMIT ||
	    resp->wqe_shift > WREN_RQ_WQE_SHIFT_MAX ||
	    resp->ring_size < (WREN_RQ_WQE_SIZE(resp->wqe_shift) <<
			       resp->log_depth) ||
	    !wren_doorbell(ctx, resp->db_offset)) {
		verbs_err(&ctx->ibvctx,
			  "srq %u: kernel gave 2^%u entries of 64<<%u in %u bytes, db %#x\n",
			  resp->srqn, resp->log_depth, resp->wqe_shift,
			  resp->ring_size, resp->db_offset);
		return EPROTO;
	}
	return 0;
}

struct ibv_srq *wren_create_srq(struct ibv_pd *ibvpd,
				struct ibv_srq_init_attr *attr)
{
	struct wren_context *ctx = to_wren_context(ibvpd->context);
	struct wren_create_srq_resp resp = {};
	struct ibv_create_srq cmd = {};
	struct wren_srq *srq;
	struct wren_rq *rq;
	int err;

	if (!(ctx->device_caps & WREN_IB_DEVICE_CAP_SRQ)) {
		verbs_debug(&ctx->ibvctx, "create_srq: the device has none\n");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->attr.max_sge > ctx->max_recv_sge ||
	    attr->attr.max_wr > ctx->max_rq_depth) {
		verbs_debug(&ctx->ibvctx, "create_srq: %u wr of %u sge, at most %u of %u\n",
			    attr->attr.max_wr, attr->attr.max_sge,
			    ctx->max_rq_depth, ctx->max_recv_sge);
		errno = EINVAL;
		return NULL;
	}
	srq = calloc(1, sizeof(*srq));
	if (!srq) {
		errno = ENOMEM;
		return NULL;
	}
	rq = &srq->rq;
	err = wren_lock_init(&rq->lock, true);
	if (err)
		goto err_free;
	err = ibv_cmd_create_srq(ibvpd, &srq->vsrq.srq, attr, &cmd, sizeof(cmd),
				 &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_debug(&ctx->ibvctx, "create_srq failed: %s\n",
			    strerror(err));
		goto err_lock;
	}
	err = wren_check_srq_resp(ctx, &resp);
	if (err)
		goto err_destroy;
	srq->srqn = resp.srqn;
	rq->log_depth = resp.log_depth;
	rq->wqe_shift = resp.wqe_shift;
	rq->db = wren_doorbell(ctx, resp.db_offset);
	rq->max_sge = min_t(uint32_t, attr->attr.max_sge,
			    WREN_RQ_WQE_SGE(rq->wqe_shift));
	rq->ring_size = resp.ring_size;
	rq->slots = calloc(1U << rq->log_depth, sizeof(*rq->slots));
	if (!rq->slots) {
		err = ENOMEM;
		goto err_destroy;
	}
	rq->ring = wren_map_ring(ctx, resp.mmap_key, rq->ring_size);
	if (!rq->ring) {
		err = errno;
		goto err_slots;
	}
	verbs_debug(&ctx->ibvctx, "srq %u: 2^%u entries, sge %u\n", srq->srqn,
		    rq->log_depth, rq->max_sge);
	return &srq->vsrq.srq;

err_slots:
	free(rq->slots);
err_destroy:
	ibv_cmd_destroy_srq(&srq->vsrq.srq);
err_lock:
	wren_lock_destroy(&rq->lock);
err_free:
	free(srq);
	errno = err;
	return NULL;
}

/*
 * Take the new ring the kernel describes in @resp: map it, give up the
 * old, and go on posting at slot @resp->moved.  The request ids in flight
 * keep their slots (an SRQ only grows); the count of receives in flight
 * stays what it was.
 */
static int wren_srq_regrow(struct wren_context *ctx, struct wren_srq *srq,
			   const struct wren_ib_resize_srq_resp *resp)
{
	struct wren_rq *rq = &srq->rq;
	struct wren_rq_slot *slots;
	void *ring;

	if (resp->log_depth < rq->log_depth ||
	    resp->log_depth > WREN_WQ_LOG_DEPTH_LIMIT ||
	    resp->ring_size < (WREN_RQ_WQE_SIZE(rq->wqe_shift) <<
			       resp->log_depth) ||
	    resp->moved > 1U << resp->log_depth) {
		verbs_err(&ctx->ibvctx, "srq %u: kernel gave 2^%u entries in %u bytes, %u moved\n",
			  srq->srqn, resp->log_depth, resp->ring_size,
			  resp->moved);
		return EPROTO;
	}
	ring = wren_map_ring(ctx, resp->mmap_key, resp->ring_size);
	if (!ring)
		return errno;
	slots = calloc(1U << resp->log_depth, sizeof(*slots));
	if (!slots) {
		munmap(ring, resp->ring_size);
		return ENOMEM;
	}
	memcpy(slots, rq->slots, sizeof(*slots) << rq->log_depth);
	munmap(rq->ring, rq->ring_size);
	free(rq->slots);
	rq->ring = ring;
	rq->ring_size = resp->ring_size;
	rq->slots = slots;
	rq->log_depth = resp->log_depth;
	/* pi - completed, the receives in flight, is kept across the move. */
	atomic_fetch_sub_explicit(&rq->completed, rq->pi - resp->moved,
				  memory_order_relaxed);
	rq->pi = resp->moved;
	return 0;
}

int wren_modify_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr,
		    int attr_mask)
{
	struct wren_context *ctx = to_wren_context(ibvsrq->context);
	struct wren_srq *srq = to_wren_srq(ibvsrq);
	struct wren_ib_resize_srq_resp resp = {};
	struct wren_modify_srq cmd = {};
	int err;

	if (!(attr_mask & IBV_SRQ_MAX_WR))
		return ibv_cmd_modify_srq(ibvsrq, attr, attr_mask, &cmd.ibv_cmd,
					  sizeof(cmd));
	/* Growing moves the ring: no posting meanwhile. */
	wren_lock(&srq->rq.lock);
	cmd.resp_addr = (uintptr_t)&resp;
	err = ibv_cmd_modify_srq(ibvsrq, attr, attr_mask, &cmd.ibv_cmd,
				 sizeof(cmd));
	if (!err)
		err = wren_srq_regrow(ctx, srq, &resp);
	wren_unlock(&srq->rq.lock);
	if (err)
		verbs_debug(&ctx->ibvctx, "modify_srq %u (mask %#x) failed: %s\n",
			    srq->srqn, attr_mask, strerror(err));
	return err;
}

int wren_query_srq(struct ibv_srq *ibvsrq, struct ibv_srq_attr *attr)
{
	struct ibv_query_srq cmd;

	return ibv_cmd_query_srq(ibvsrq, attr, &cmd, sizeof(cmd));
}

int wren_destroy_srq(struct ibv_srq *ibvsrq)
{
	struct wren_srq *srq = to_wren_srq(ibvsrq);
	int err;

	err = ibv_cmd_destroy_srq(ibvsrq);
	if (err) {
		verbs_err(verbs_get_ctx(ibvsrq->context),
			  "destroy_srq %u failed: %s\n", srq->srqn,
			  strerror(err));
		return err;
	}
	munmap(srq->rq.ring, srq->rq.ring_size);
	free(srq->rq.slots);
	wren_lock_destroy(&srq->rq.lock);
	free(srq);
	return 0;
}
