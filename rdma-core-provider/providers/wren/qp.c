// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren: queue pairs, their control path.  Creation checks what the
 * application asks against the device's limits, has the kernel create the
 * QP, maps the send and receive rings the kernel allocated and enters the
 * QP in the context's table, where pollers find it by number.  A reset
 * or a destruction fences off the completions the QP left in its CQs.
 *
 * UD and RC QPs come from ibv_create_qp() and ibv_create_qp_ex();
 * reliable datagram QPs (IBV_QPT_DRIVER) from wrendv_create_qp(), which
 * checks its own attributes and ends here too.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ccan/minmax.h>

#include "wren.h"
#include "verbs.h"
#include "wrendv.h"

/* wrendv_create_qp()'s flags are the kernel ABI's, bit for bit. */
static_assert((int)WRENDV_QP_FLAGS_ORDERED == (int)WREN_IB_QP_FLAG_ORDERED,
	      "WRENDV_QP_FLAGS_ORDERED");
static_assert((int)WRENDV_QP_FLAGS_HANDSHAKE ==
	      (int)WREN_IB_QP_FLAG_HANDSHAKE, "WRENDV_QP_FLAGS_HANDSHAKE");

/* The ibv_wr_* operations a Wren QP can build; one-sided ones on RD, RC. */
#define WREN_QP_SEND_OPS	(IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM)
#define WREN_QP_WRITE_OPS	(IBV_QP_EX_WITH_RDMA_WRITE | \
				 IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
#define WREN_QP_READ_OPS	IBV_QP_EX_WITH_RDMA_READ
#define WREN_QP_ATOMIC_OPS	(IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP | \
				 IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)

/* The operations a QP of this type may ask for on this device. */
static uint64_t wren_qp_send_ops(const struct wren_context *ctx,
				 enum ibv_qp_type type)
{
	bool reliable = type != IBV_QPT_UD;
	uint64_t ops = WREN_QP_SEND_OPS;

	if (reliable && ctx->device_caps & WREN_IB_DEVICE_CAP_RDMA_WRITE)
		ops |= WREN_QP_WRITE_OPS;
	if (reliable && ctx->device_caps & WREN_IB_DEVICE_CAP_RDMA_READ)
		ops |= WREN_QP_READ_OPS;
	if (type == IBV_QPT_RC && ctx->device_caps & WREN_IB_DEVICE_CAP_ATOMIC)
		ops |= WREN_QP_ATOMIC_OPS;
	return ops;
}

static int wren_check_qp_caps(struct wren_context *ctx,
			      const struct ibv_qp_cap *cap)
{
	if (cap->max_send_wr > ctx->max_sq_depth ||
	    cap->max_recv_wr > ctx->max_rq_depth ||
	    cap->max_send_sge > ctx->max_sge ||
	    cap->max_recv_sge > ctx->max_recv_sge ||
	    cap->max_inline_data > ctx->max_inline) {
		verbs_debug(&ctx->ibvctx,
			    "create_qp: caps wr %u/%u sge %u/%u inline %u beyond wr %u/%u sge %u/%u inline %u\n",
			    cap->max_send_wr, cap->max_recv_wr,
			    cap->max_send_sge, cap->max_recv_sge,
			    cap->max_inline_data, ctx->max_sq_depth,
			    ctx->max_rq_depth, ctx->max_sge, ctx->max_recv_sge,
			    ctx->max_inline);
		return EINVAL;
	}
	return 0;
}

/* An RD QP, and each of its options, needs the device to have it. */
static int wren_check_rd_attr(struct wren_context *ctx,
			      const struct wrendv_qp_init_attr *dv_attr)
{
	if (!(ctx->device_caps & WREN_IB_DEVICE_CAP_RD) ||
	    (dv_attr->flags & WRENDV_QP_FLAGS_ORDERED &&
	     !(ctx->device_caps & WREN_IB_DEVICE_CAP_RD_ORDERED)) ||
	    (dv_attr->flags & WRENDV_QP_FLAGS_HANDSHAKE &&
	     !(ctx->device_caps & WREN_IB_DEVICE_CAP_RD_HANDSHAKE))) {
		verbs_debug(&ctx->ibvctx,
			    "create_qp: RD flags %#x, device caps %#x\n",
			    dv_attr->flags, ctx->device_caps);
		return EOPNOTSUPP;
	}
	return 0;
}

/* Check what the application asks of a QP against what libwren offers. */
static int wren_check_qp_attr(struct wren_context *ctx,
			      const struct ibv_qp_init_attr_ex *attr,
			      const struct wrendv_qp_init_attr *dv_attr)
{
	struct ibv_context *ibvctx = &ctx->ibvctx.context;

	if (!ctx->data_path) {
		verbs_debug(&ctx->ibvctx, "create_qp: the kernel has no data path\n");
		return EOPNOTSUPP;
	}
	/* RD is IBV_QPT_DRIVER, and only wrendv_create_qp() says so. */
	if (dv_attr ? attr->qp_type != IBV_QPT_DRIVER :
		      attr->qp_type != IBV_QPT_UD &&
		      (attr->qp_type != IBV_QPT_RC ||
		       !(ctx->device_caps & WREN_IB_DEVICE_CAP_RC))) {
		verbs_debug(&ctx->ibvctx, "create_qp: QP type %u unsupported\n",
			    attr->qp_type);
		return EOPNOTSUPP;
	}
	/* Creation flags are offered only as none. */
	if (!check_comp_mask(attr->comp_mask, IBV_QP_INIT_ATTR_PD |
					      IBV_QP_INIT_ATTR_SEND_OPS_FLAGS |
					      IBV_QP_INIT_ATTR_CREATE_FLAGS) ||
	    (attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS &&
	     attr->create_flags)) {
		verbs_debug(&ctx->ibvctx, "create_qp: comp_mask %#x, create_flags %#x unsupported\n",
			    attr->comp_mask, attr->create_flags);
		return EOPNOTSUPP;
	}
	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS &&
	    !check_comp_mask(attr->send_ops_flags,
			     wren_qp_send_ops(ctx, attr->qp_type))) {
		verbs_debug(&ctx->ibvctx, "create_qp: send_ops_flags %#llx unsupported\n",
			    (unsigned long long)attr->send_ops_flags);
		return EOPNOTSUPP;
	}
	if (attr->srq && (!(ctx->device_caps & WREN_IB_DEVICE_CAP_SRQ) ||
			  attr->srq->context != ibvctx)) {
		verbs_debug(&ctx->ibvctx, "create_qp: SRQ unsupported or foreign\n");
		return attr->srq->context != ibvctx ? EINVAL : EOPNOTSUPP;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || !attr->pd ||
	    attr->pd->context != ibvctx || !attr->send_cq || !attr->recv_cq ||
	    attr->send_cq->context != ibvctx ||
	    attr->recv_cq->context != ibvctx) {
		verbs_debug(&ctx->ibvctx, "create_qp: needs a PD and two CQs of this context\n");
		return EINVAL;
	}
	if (dv_attr)
		return wren_check_rd_attr(ctx, dv_attr);
	return 0;
}

static const char *wren_qpt_name(enum ibv_qp_type type)
{
	switch (type) {
	case IBV_QPT_DRIVER:
		return "RD";
	case IBV_QPT_RC:
		return "RC";
	default:
		return "UD";
	}
}

/* Map a ring the kernel allocated; NULL with errno set on failure. */
void *wren_map_ring(struct wren_context *ctx, uint64_t mmap_key, size_t size)
{
	void *ring;

	ring = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
		    ctx->ibvctx.context.cmd_fd, mmap_key);
	if (ring == MAP_FAILED) {
		int err = errno;

		verbs_err(&ctx->ibvctx, "ring mmap of %zu bytes failed: %s\n",
			  size, strerror(err));
		errno = err;
		return NULL;
	}
	return ring;
}

/*
 * Everything the kernel says about the rings is checked before use: a
 * ring too small for its depth, a depth the index arithmetic cannot
 * carry or a doorbell outside the page would have the provider write
 * what is not the QP's.
 */
static int wren_check_qp_resp(struct wren_context *ctx, struct wren_qp *qp,
			      const struct wren_create_qp_resp *resp)
{
	/* A QP on an SRQ has no receive ring: its fields are zero. */
	bool rq_ok = qp->srq ?
		!resp->rq_log_depth && !resp->rq_ring_size &&
		!resp->rq_mmap_key && !resp->rq_wqe_shift :
		resp->rq_log_depth >= WREN_QUEUE_LOG_DEPTH_MIN &&
		resp->rq_log_depth <= WREN_WQ_LOG_DEPTH_LIMIT &&
		resp->rq_wqe_shift <= WREN_RQ_WQE_SHIFT_MAX &&
		resp->rq_ring_size >= (WREN_RQ_WQE_SIZE(resp->rq_wqe_shift) <<
				       resp->rq_log_depth) &&
		wren_doorbell(ctx, resp->rq_db_offset);

	if (resp->qpn != qp->vqp.qp.qp_num ||
	    resp->sq_log_depth < WREN_QUEUE_LOG_DEPTH_MIN ||
	    resp->sq_log_depth > WREN_WQ_LOG_DEPTH_LIMIT ||
	    resp->sq_wqe_shift > WREN_SQ_WQE_SHIFT_MAX ||
	    resp->sq_ring_size < (WREN_SQ_WQE_SIZE(resp->sq_wqe_shift) <<
				  resp->sq_log_depth) ||
	    !wren_doorbell(ctx, resp->sq_db_offset) || !rq_ok) {
		verbs_err(&ctx->ibvctx,
			  "qp %u (core %u): kernel gave sq 2^%u of 128<<%u in %u bytes db %#x, rq 2^%u of 64<<%u in %u bytes db %#x\n",
			  resp->qpn, qp->vqp.qp.qp_num, resp->sq_log_depth,
			  resp->sq_wqe_shift, resp->sq_ring_size,
			  resp->sq_db_offset, resp->rq_log_depth,
			  resp->rq_wqe_shift, resp->rq_ring_size,
			  resp->rq_db_offset);
		return EPROTO;
	}
	return 0;
}

/* Undo wren_init_queues(), also halfway through. */
static void wren_free_queues(struct wren_qp *qp)
{
	if (qp->sq.ring)
		munmap(qp->sq.ring, qp->sq.ring_size);
	if (qp->rq.ring)
		munmap(qp->rq.ring, qp->rq.ring_size);
	free(qp->sq.wr_ids);
	free(qp->rq.slots);
}

/*
 * Set up both queues from the kernel's answer.  The limits a work request
 * is checked against are what the kernel granted (the verbs let a QP
 * refuse more than it was created for), bounded by the entry formats.
 */
static int wren_init_queues(struct wren_context *ctx, struct wren_qp *qp,
			    const struct ibv_qp_init_attr_ex *attr,
			    const struct wren_create_qp_resp *resp)
{
	struct wren_sq *sq = &qp->sq;
	struct wren_rq *rq = &qp->rq;
	int err;

	sq->log_depth = resp->sq_log_depth;
	sq->wqe_shift = resp->sq_wqe_shift;
	sq->db = wren_doorbell(ctx, resp->sq_db_offset);
	sq->max_sge = min_t(uint32_t, attr->cap.max_send_sge,
			    WREN_SQ_WQE_SGE(sq->wqe_shift));
	sq->max_inline = min_t(uint32_t, attr->cap.max_inline_data,
			       WREN_SQ_WQE_INLINE(sq->wqe_shift));
	sq->sig_all = attr->sq_sig_all;
	sq->ring_size = resp->sq_ring_size;

	sq->wr_ids = calloc(1U << sq->log_depth, sizeof(*sq->wr_ids));
	if (!sq->wr_ids) {
		err = ENOMEM;
		goto err_free;
	}
	sq->ring = wren_map_ring(ctx, resp->sq_mmap_key, sq->ring_size);
	if (!sq->ring) {
		err = errno;
		goto err_free;
	}
	if (qp->srq)
		return 0;

	rq->log_depth = resp->rq_log_depth;
	rq->wqe_shift = resp->rq_wqe_shift;
	rq->db = wren_doorbell(ctx, resp->rq_db_offset);
	rq->max_sge = min_t(uint32_t, attr->cap.max_recv_sge,
			    WREN_RQ_WQE_SGE(rq->wqe_shift));
	rq->ring_size = resp->rq_ring_size;
	rq->slots = calloc(1U << rq->log_depth, sizeof(*rq->slots));
	if (!rq->slots) {
		err = ENOMEM;
		goto err_free;
	}
	rq->ring = wren_map_ring(ctx, resp->rq_mmap_key, rq->ring_size);
	if (!rq->ring) {
		err = errno;
		goto err_free;
	}
	return 0;

err_free:
	wren_free_queues(qp);
	return err;
}

/*
 * A QP created through a parent domain with a thread domain is used by
 * one thread at a time: its posting needs no lock.
 */
static int wren_init_qp_locks(struct wren_qp *qp)
{
	bool need_lock = !(qp->parent_domain && qp->parent_domain->td);
	int err;

	err = wren_lock_init(&qp->sq.lock, need_lock);
	if (err)
		return err;
	err = wren_lock_init(&qp->rq.lock, need_lock);
	if (err)
		wren_lock_destroy(&qp->sq.lock);
	return err;
}

struct ibv_qp *wren_create_qp_common(struct ibv_context *ibvctx,
				     struct ibv_qp_init_attr_ex *attr,
				     const struct wrendv_qp_init_attr *dv_attr)
{
	struct wren_context *ctx = to_wren_context(ibvctx);
	struct wren_create_qp_resp resp = {};
	struct ibv_qp_init_attr_ex cmd_attr;
	struct wren_create_qp cmd = {};
	struct wren_qp *qp;
	int err;

	err = wren_check_qp_attr(ctx, attr, dv_attr);
	if (!err)
		err = wren_check_qp_caps(ctx, &attr->cap);
	if (err)
		goto err_out;

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		err = ENOMEM;
		goto err_out;
	}

	if (attr->srq)
		qp->srq = to_wren_srq(attr->srq);
	if (dv_attr) {
		qp->rd = true;
		cmd.driver_qp_type = WREN_IB_QP_DRIVER_TYPE_RD;
		/* The same bits (asserted below), checked by wrendv. */
		cmd.flags = dv_attr->flags;
	}

	/*
	 * The command has no creation flags; the check above let only "none"
	 * through, which need not be said.
	 */
	cmd_attr = *attr;
	cmd_attr.comp_mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;

	/* Until the QP is in the table: see wren_qp_table_insert(). */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	err = ibv_cmd_create_qp_ex(ibvctx, &qp->vqp, &cmd_attr, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp));
	/* The capacities granted, for the caller. */
	attr->cap = cmd_attr.cap;
	if (err) {
		verbs_debug(&ctx->ibvctx, "create_qp (%s) failed: %s\n",
			    wren_qpt_name(attr->qp_type), strerror(err));
		goto err_unlock_table;
	}
	qp->qpn = qp->vqp.qp.qp_num;
	qp->parent_domain = wren_parent_domain(attr->pd);

	err = wren_check_qp_resp(ctx, qp, &resp);
	if (err)
		goto err_destroy_qp;
	err = wren_init_queues(ctx, qp, attr, &resp);
	if (err)
		goto err_destroy_qp;
	err = wren_init_qp_locks(qp);
	if (err)
		goto err_free_queues;

	if (attr->comp_mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		wren_qp_set_wr_ops(qp, attr->send_ops_flags);
		qp->vqp.comp_mask |= VERBS_QP_EX;
	}

	/* Last: from here on, pollers can find it. */
	err = wren_qp_table_insert(ctx, qp);
	if (err) {
		verbs_err(&ctx->ibvctx, "qp %u: cannot enter it in the table: %s\n",
			  qp->qpn, strerror(err));
		goto err_destroy_locks;
	}
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	if (qp->parent_domain)
		atomic_fetch_add(&qp->parent_domain->refcount, 1);

	verbs_debug(&ctx->ibvctx, "qp %u (%s): sq 2^%u sge %u inline %u, rq 2^%u sge %u%s\n",
		    qp->qpn, wren_qpt_name(attr->qp_type), qp->sq.log_depth,
		    qp->sq.max_sge, qp->sq.max_inline, qp->rq.log_depth,
		    qp->rq.max_sge,
		    qp->sq.lock.need_lock ? "" : ", single-threaded");
	return &qp->vqp.qp;

err_destroy_locks:
	wren_lock_destroy(&qp->rq.lock);
	wren_lock_destroy(&qp->sq.lock);
err_free_queues:
	wren_free_queues(qp);
err_destroy_qp:
	ibv_cmd_destroy_qp(&qp->vqp.qp);
err_unlock_table:
	pthread_mutex_unlock(&ctx->qp_table_mutex);
	free(qp);
err_out:
	errno = err;
	return NULL;
}

struct ibv_qp *wren_create_qp(struct ibv_pd *ibvpd,
			      struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex attr_ex = {};
	struct ibv_qp *ibvqp;

	memcpy(&attr_ex, attr, sizeof(*attr));
	attr_ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	attr_ex.pd = ibvpd;

	ibvqp = wren_create_qp_common(ibvpd->context, &attr_ex, NULL);
	if (ibvqp)
		memcpy(attr, &attr_ex, sizeof(*attr));
	return ibvqp;
}

struct ibv_qp *wren_create_qp_ex(struct ibv_context *ibvctx,
				 struct ibv_qp_init_attr_ex *attr)
{
	return wren_create_qp_common(ibvctx, attr, NULL);
}

/*
 * Forget every work request: after a reset the device starts both queues
 * at index 0, and what was posted completes never (as the verbs have it).
 * The queue locks keep posters out, the CQ locks pollers; the fences keep
 * the old completions still in the CQs from retiring new requests.
 */
static void wren_qp_reset(struct wren_qp *qp)
{
	struct wren_cq *send_cq = to_wren_cq(qp->vqp.qp.send_cq);
	struct wren_cq *recv_cq = to_wren_cq(qp->vqp.qp.recv_cq);
	uint32_t i;

	wren_lock(&qp->sq.lock);
	wren_lock(&qp->rq.lock);
	wren_lock_cqs(send_cq, recv_cq);

	wren_cq_fence_qp(send_cq, qp->qpn);
	if (recv_cq != send_cq)
		wren_cq_fence_qp(recv_cq, qp->qpn);

	qp->sq.pi = 0;
	atomic_store_explicit(&qp->sq.rung_pi, 0, memory_order_relaxed);
	atomic_store_explicit(&qp->sq.ci, 0, memory_order_relaxed);
	/* An SRQ's receives are the SRQ's, whatever its QPs do. */
	if (!qp->srq) {
		qp->rq.pi = 0;
		qp->rq.next_id = 0;
		atomic_store_explicit(&qp->rq.completed, 0,
				      memory_order_relaxed);
		for (i = 0; i < 1U << qp->rq.log_depth; i++)
			atomic_store_explicit(&qp->rq.slots[i].busy, false,
					      memory_order_relaxed);
	}

	wren_unlock_cqs(send_cq, recv_cq);
	wren_unlock(&qp->rq.lock);
	wren_unlock(&qp->sq.lock);
}

int wren_modify_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		   int attr_mask)
{
	struct wren_qp *qp = to_wren_qp(ibvqp);
	struct ibv_modify_qp cmd = {};
	int err;

	err = ibv_cmd_modify_qp(ibvqp, attr, attr_mask, &cmd, sizeof(cmd));
	if (err) {
		verbs_debug(verbs_get_ctx(ibvqp->context),
			    "modify_qp %u (mask %#x) failed: %s\n", qp->qpn,
			    attr_mask, strerror(err));
		return err;
	}

	if (attr_mask & IBV_QP_STATE) {
		if (attr->qp_state == IBV_QPS_RESET)
			wren_qp_reset(qp);
		ibvqp->state = attr->qp_state;
	}
	return 0;
}

int wren_query_qp(struct ibv_qp *ibvqp, struct ibv_qp_attr *attr,
		  int attr_mask, struct ibv_qp_init_attr *init_attr)
{
	struct ibv_query_qp cmd;

	return ibv_cmd_query_qp(ibvqp, attr, attr_mask, init_attr, &cmd,
				sizeof(cmd));
}

int wren_destroy_qp(struct ibv_qp *ibvqp)
{
	struct wren_context *ctx = to_wren_context(ibvqp->context);
	struct wren_cq *send_cq = to_wren_cq(ibvqp->send_cq);
	struct wren_cq *recv_cq = to_wren_cq(ibvqp->recv_cq);
	struct wren_qp *qp = to_wren_qp(ibvqp);
	int err;

	/* The number is free once the kernel returns: see wren_qp_table_insert(). */
	pthread_mutex_lock(&ctx->qp_table_mutex);
	err = ibv_cmd_destroy_qp(ibvqp);
	if (err) {
		pthread_mutex_unlock(&ctx->qp_table_mutex);
		verbs_err(&ctx->ibvctx, "destroy_qp %u failed: %s\n", qp->qpn,
			  strerror(err));
		return err;
	}

	/* No poller may be looking at the QP while it leaves the table. */
	wren_lock_cqs(send_cq, recv_cq);
	wren_cq_fence_qp(send_cq, qp->qpn);
	if (recv_cq != send_cq)
		wren_cq_fence_qp(recv_cq, qp->qpn);
	wren_qp_table_remove(ctx, qp);
	wren_unlock_cqs(send_cq, recv_cq);
	pthread_mutex_unlock(&ctx->qp_table_mutex);

	if (qp->parent_domain)
		atomic_fetch_sub(&qp->parent_domain->refcount, 1);
	wren_lock_destroy(&qp->rq.lock);
	wren_lock_destroy(&qp->sq.lock);
	wren_free_queues(qp);
	free(qp);
	return 0;
}
