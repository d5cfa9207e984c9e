// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren: completion queues, their control path.  Creation maps the ring
 * the kernel allocated and finds the CQ's doorbell; arming is a doorbell
 * write, no system call.  Also the CQ's part in destroying or resetting a
 * QP: fencing off the completions that QP left in the ring.
 *
 * Both ibv_create_cq() and ibv_create_cq_ex() end in one function, which
 * returns the extended CQ; libibverbs hands out its plain part for the
 * former.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <util/mmio.h>

#include "wren.h"
#include "verbs.h"

/* The work-completion fields libwren can report; the rest it never has. */
#define WREN_CQ_WC_FLAGS	IBV_WC_STANDARD_FLAGS

/* Check what the application asks of a CQ against what libwren offers. */
static int wren_check_cq_attr(struct wren_context *ctx,
			      const struct ibv_cq_init_attr_ex *attr)
{
	if (!ctx->data_path) {
		verbs_debug(&ctx->ibvctx, "create_cq: the kernel has no data path\n");
		return EOPNOTSUPP;
	}
	if (!check_comp_mask(attr->comp_mask, IBV_CQ_INIT_ATTR_MASK_FLAGS |
					      IBV_CQ_INIT_ATTR_MASK_PD)) {
		verbs_debug(&ctx->ibvctx, "create_cq: comp_mask %#x unsupported\n",
			    attr->comp_mask);
		return EOPNOTSUPP;
	}
	if (!check_comp_mask(attr->wc_flags, WREN_CQ_WC_FLAGS)) {
		verbs_debug(&ctx->ibvctx, "create_cq: wc_flags %#llx unsupported\n",
			    (unsigned long long)attr->wc_flags);
		return EOPNOTSUPP;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
	    !check_comp_mask(attr->flags, IBV_CREATE_CQ_ATTR_SINGLE_THREADED)) {
		verbs_debug(&ctx->ibvctx, "create_cq: flags %#x unsupported\n",
			    attr->flags);
		return EOPNOTSUPP;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD &&
	    (!wren_parent_domain(attr->parent_domain) ||
	     attr->parent_domain->context != &ctx->ibvctx.context)) {
		verbs_debug(&ctx->ibvctx, "create_cq: not a parent domain of this context\n");
		return EINVAL;
	}
	if (!attr->cqe || attr->cqe > ctx->max_cq_depth) {
		verbs_debug(&ctx->ibvctx, "create_cq: %u entries, the device allows 1 to %u\n",
			    attr->cqe, ctx->max_cq_depth);
		return EINVAL;
	}
	return 0;
}

/*
 * Map the ring the kernel allocated for the CQ and find its doorbell.
 * Whatever the kernel says is checked: a ring too small for its depth or
 * a doorbell outside the page would have the provider read or write what
 * is not the CQ's.
 */
/* Check the ring the kernel describes, then map it: 0 or an errno. */
static int wren_map_cq_ring(struct wren_context *ctx, struct wren_cq *cq,
			    uint32_t cqn, uint32_t ring_size,
			    uint32_t log_depth, uint64_t mmap_key,
			    uint32_t comp_mask)
{
	bool live = comp_mask & WREN_IB_CQ_RESP_LIVENESS;
	size_t entries = sizeof(struct wren_cqe) << log_depth;
	void *ring;

	if (log_depth < WREN_QUEUE_LOG_DEPTH_MIN ||
	    log_depth > WREN_CQ_LOG_DEPTH_LIMIT ||
	    ring_size < entries + (live ? sizeof(uint32_t) : 0)) {
		verbs_err(&ctx->ibvctx,
			  "cq %u: kernel gave a ring of %u bytes for 2^%u entries\n",
			  cqn, ring_size, log_depth);
		return EPROTO;
	}
	ring = mmap(NULL, ring_size, PROT_READ, MAP_SHARED,
		    ctx->ibvctx.context.cmd_fd, mmap_key);
	if (ring == MAP_FAILED) {
		int err = errno;

		verbs_err(&ctx->ibvctx, "cq %u: ring mmap failed: %s\n", cqn,
			  strerror(err));
		return err;
	}
	cq->ring = ring;
	cq->ring_size = ring_size;
	cq->log_depth = log_depth;
	/* A kernel without the word: the poll never learns of a failure. */
	cq->live = live ? (uint32_t *)((uint8_t *)ring + entries) : NULL;
	return 0;
}

static int wren_map_cq(struct wren_context *ctx, struct wren_cq *cq,
		       const struct wren_create_cq_resp *resp)
{
	cq->db = wren_doorbell(ctx, resp->db_offset);
	if (!cq->db) {
		verbs_err(&ctx->ibvctx, "cq %u: kernel gave doorbell offset %#x\n",
			  resp->cqn, resp->db_offset);
		return EPROTO;
	}
	cq->cqn = resp->cqn;
	return wren_map_cq_ring(ctx, cq, resp->cqn, resp->ring_size,
				resp->log_depth, resp->ring_mmap_key,
				resp->comp_mask);
}

/*
 * Polling needs no lock if the application said one thread at a time will
 * use the CQ: with the single-threaded flag, or through a parent domain
 * that has a thread domain.
 */
static bool wren_cq_needs_lock(const struct ibv_cq_init_attr_ex *attr)
{
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS &&
	    attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED)
		return false;
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD &&
	    wren_parent_domain(attr->parent_domain)->td)
		return false;
	return true;
}

static struct ibv_cq_ex *wren_create_cq_common(struct ibv_context *ibvctx,
					       struct ibv_cq_init_attr_ex *attr)
{
	struct wren_context *ctx = to_wren_context(ibvctx);
	struct wren_create_cq_resp resp = {};
	struct wren_create_cq cmd = {};
	struct wren_cq *cq;
	int err;

	err = wren_check_cq_attr(ctx, attr);
	if (err)
		goto err_out;

	cq = calloc(1, sizeof(*cq));
	if (!cq) {
		err = ENOMEM;
		goto err_out;
	}

	err = ibv_cmd_create_cq_ex(ibvctx, attr, &cq->vcq, &cmd.ibv_cmd,
				   sizeof(cmd), &resp.ibv_resp, sizeof(resp), 0);
	if (err) {
		verbs_debug(&ctx->ibvctx, "create_cq of %u entries failed: %s\n",
			    attr->cqe, strerror(err));
		goto err_free_cq;
	}

	err = wren_map_cq(ctx, cq, &resp);
	if (err)
		goto err_destroy_cq;

	err = wren_lock_init(&cq->lock, wren_cq_needs_lock(attr));
	if (err)
		goto err_unmap_ring;

	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		cq->parent_domain = wren_parent_domain(attr->parent_domain);
		atomic_fetch_add(&cq->parent_domain->refcount, 1);
	}
	wren_cq_set_poll_ops(cq, attr->wc_flags);
	verbs_debug(&ctx->ibvctx, "cq %u: 2^%u entries%s\n", cq->cqn,
		    cq->log_depth, cq->lock.need_lock ? "" : ", single-threaded");
	return &cq->vcq.cq_ex;

err_unmap_ring:
	munmap(cq->ring, cq->ring_size);
err_destroy_cq:
	ibv_cmd_destroy_cq(&cq->vcq.cq);
err_free_cq:
	free(cq);
err_out:
	errno = err;
	return NULL;
}

struct ibv_cq *wren_create_cq(struct ibv_context *ibvctx, int cqe,
			      struct ibv_comp_channel *channel,
			      int comp_vector)
{
	struct ibv_cq_init_attr_ex attr = {
		.cqe = cqe,
		.channel = channel,
		.comp_vector = comp_vector,
		.wc_flags = IBV_WC_STANDARD_FLAGS,
	};
	struct ibv_cq_ex *ibvcqx;

	if (cqe <= 0) {
		errno = EINVAL;
		return NULL;
	}
	ibvcqx = wren_create_cq_common(ibvctx, &attr);
	return ibvcqx ? ibv_cq_ex_to_cq(ibvcqx) : NULL;
}

struct ibv_cq_ex *wren_create_cq_ex(struct ibv_context *ibvctx,
				    struct ibv_cq_init_attr_ex *attr)
{
	return wren_create_cq_common(ibvctx, attr);
}

/*
 * A new ring of at least @cqe entries.  The device moves the completions
 * not yet consumed to its first entries: the doorbell tells it where
 * consumption stands, the CQ's lock keeps pollers out meanwhile, and the
 * consumer index and the fences start again from the new ring's 0.
 */
int wren_resize_cq(struct ibv_cq *ibvcq, int cqe)
{
	struct wren_context *ctx = to_wren_context(ibvcq->context);
	struct wren_cq *cq = to_wren_cq(ibvcq);
	struct wren_resize_cq_resp resp = {};
	struct wren_resize_cq cmd = {};
	unsigned int i = 0;
	size_t old_size;
	void *old_ring;
	int err;

	wren_lock(&cq->lock);
	mmio_write32_le(cq->db, htole32(cq->ci & WREN_CQ_DB_CI));
	err = ibv_cmd_resize_cq(ibvcq, cqe, &cmd.ibv_cmd, sizeof(cmd),
				&resp.ibv_resp, sizeof(resp));
	if (err)
		goto out;
	/* A depth beyond the limit is the ring check's to refuse. */
	if (resp.log_depth <= WREN_CQ_LOG_DEPTH_LIMIT &&
	    resp.moved > 1U << resp.log_depth) {
		verbs_err(&ctx->ibvctx,
			  "cq %u: kernel moved %u completions into 2^%u entries\n",
			  cq->cqn, resp.moved, resp.log_depth);
		err = EPROTO;
		goto out;
	}
	old_ring = cq->ring;
	old_size = cq->ring_size;
	err = wren_map_cq_ring(ctx, cq, cq->cqn, resp.ring_size,
			       resp.log_depth, resp.ring_mmap_key,
			       resp.comp_mask);
	if (err)
		goto out;
	munmap(old_ring, old_size);
	/* Entry ci + k of the old ring is entry k of the new one. */
	while (i < cq->nr_fences) {
		cq->fences[i].end -= cq->ci;
		if ((int32_t)cq->fences[i].end <= 0)
			cq->fences[i] = cq->fences[--cq->nr_fences];
		else
			i++;
	}
	cq->ci = 0;
	cq->cur_qp = NULL;
out:
	wren_unlock(&cq->lock);
	return err;
}

int wren_destroy_cq(struct ibv_cq *ibvcq)
{
	struct wren_cq *cq = to_wren_cq(ibvcq);
	int err;

	/* The kernel refuses while QPs still complete into it. */
	err = ibv_cmd_destroy_cq(ibvcq);
	if (err) {
		verbs_err(verbs_get_ctx(ibvcq->context),
			  "destroy_cq %u failed: %s\n", cq->cqn, strerror(err));
		return err;
	}

	if (cq->parent_domain)
		atomic_fetch_sub(&cq->parent_domain->refcount, 1);
	wren_lock_destroy(&cq->lock);
	munmap(cq->ring, cq->ring_size);
	free(cq->fences);
	free(cq);
	return 0;
}

/*
 * Ask for one event at the next completion (or the next solicited or
 * failed one).  The doorbell carries the consumer index too, and the
 * device refuses one that goes backwards, so this write is serialised
 * with the pollers' by the CQ's lock.
 */
int wren_req_notify_cq(struct ibv_cq *ibvcq, int solicited_only)
{
	struct wren_cq *cq = to_wren_cq(ibvcq);
	uint32_t val;

	wren_lock(&cq->lock);
	val = (cq->ci & WREN_CQ_DB_CI) | WREN_CQ_DB_ARM;
	if (solicited_only)
		val |= WREN_CQ_DB_SOLICITED;
	mmio_write32_le(cq->db, htole32(val));
	wren_unlock(&cq->lock);
	return 0;
}

/*
 * The two CQs of a QP, locked in one order (by address) wherever both are
 * taken, so that two control-path callers cannot deadlock.  The data path
 * never holds two CQ locks.
 */
void wren_lock_cqs(struct wren_cq *send_cq, struct wren_cq *recv_cq)
{
	if (send_cq == recv_cq) {
		wren_lock(&send_cq->lock);
	} else if (send_cq < recv_cq) {
		wren_lock(&send_cq->lock);
		wren_lock(&recv_cq->lock);
	} else {
		wren_lock(&recv_cq->lock);
		wren_lock(&send_cq->lock);
	}
}

void wren_unlock_cqs(struct wren_cq *send_cq, struct wren_cq *recv_cq)
{
	if (send_cq != recv_cq)
		wren_unlock(&recv_cq->lock);
	wren_unlock(&send_cq->lock);
}

/*
 * A QP was destroyed or reset: the completions it left in the ring belong
 * to an incarnation that is gone and must not be matched to the QP now
 * holding its number (the device reuses numbers at once, and a reset QP
 * starts its indices again).  The kernel has returned, so the device has
 * written them all: fence off the ring's written entries up to the last
 * of them.  Called with the CQ's lock held.
 */
void wren_cq_fence_qp(struct wren_cq *cq, uint32_t qpn)
{
	uint32_t mask = (1U << cq->log_depth) - 1;
	uint32_t idx, end = cq->ci;

	if (cq->cur_qp && cq->cur_qp->qpn == qpn)
		cq->cur_qp = NULL;

	for (idx = cq->ci; idx - cq->ci <= mask; idx++) {
		const struct wren_cqe *cqe = wren_cq_entry(cq, idx);

		if (!cqe)
			break;
		if (le32toh(cqe->qpn) == qpn)
			end = idx + 1;
	}
	if (end == cq->ci)
		return;

	if (cq->nr_fences == cq->max_fences) {
		unsigned int max = cq->max_fences ? 2 * cq->max_fences : 4;
		struct wren_cq_fence *fences;

		fences = realloc(cq->fences, max * sizeof(*fences));
		if (!fences) {
			/*
			 * Without memory the stale completions stay: the
			 * poller's slot checks still drop the ones that name
			 * no outstanding work request.
			 */
			verbs_err(verbs_get_ctx(cq->vcq.cq.context),
				  "cq %u: no memory to fence qp %u\n", cq->cqn,
				  qpn);
			return;
		}
		cq->fences = fences;
		cq->max_fences = max;
	}
	cq->fences[cq->nr_fences++] = (struct wren_cq_fence){
		.qpn = qpn,
		.end = end,
	};
}
