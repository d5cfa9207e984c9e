// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren: device matching, device and context life cycle.
 *
 * wren_ib.ko registers its ib_device under the auxiliary device
 * "wren.rdma.<n>" that wren.ko publishes, so the device's modalias is
 * "auxiliary:wren.rdma".  An out-of-tree driver cannot claim an
 * RDMA_DRIVER_* id (the enum belongs to the kernel's uAPI), so matching is
 * by that modalias.  The auxiliary bus has no sysfs modalias file, only
 * the MODALIAS variable of the device's uevent file, which libibverbs'
 * table matching does not read: wren_match_device() does.  Matching by
 * name ("wren_%d") would follow a rename (rdma dev set name) wrongly.
 *
 * The context also keeps the table that maps a QP number, all a
 * completion names, to its QP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ccan/minmax.h>

#include "wren.h"
#include "verbs.h"

#define WREN_MODALIAS "auxiliary:wren.rdma"

static const struct verbs_match_ent wren_match_table[] = {
	VERBS_MODALIAS_MATCH(WREN_MODALIAS, NULL),
	{}
};

/* A table match, or the parent's uevent saying MODALIAS=auxiliary:wren.rdma. */
static bool wren_match_device(struct verbs_sysfs_dev *sysfs_dev)
{
	char uevent[1024] = {};
	char *line, *next;

	if (sysfs_dev->match)
		return true;

	/* One byte short: a full buffer is not NUL-terminated by the read. */
	if (ibv_read_ibdev_sysfs_file(uevent, sizeof(uevent) - 1, sysfs_dev,
				      "device/uevent") <= 0)
		return false;

	for (line = strtok_r(uevent, "\n", &next); line;
	     line = strtok_r(NULL, "\n", &next))
		if (!strcmp(line, "MODALIAS=" WREN_MODALIAS))
			return true;
	return false;
}

static void wren_free_context(struct ibv_context *ibvctx);

static const struct verbs_context_ops wren_ctx_ops = {
	.alloc_parent_domain = wren_alloc_parent_domain,
	.alloc_pd = wren_alloc_pd,
	.alloc_td = wren_alloc_td,
	.create_ah = wren_create_ah,
	.create_cq = wren_create_cq,
	.create_cq_ex = wren_create_cq_ex,
	.create_qp = wren_create_qp,
	.create_qp_ex = wren_create_qp_ex,
	.create_srq = wren_create_srq,
	.dealloc_pd = wren_dealloc_pd,
	.dealloc_td = wren_dealloc_td,
	.dereg_mr = wren_dereg_mr,
	.destroy_ah = wren_destroy_ah,
	.destroy_cq = wren_destroy_cq,
	.destroy_qp = wren_destroy_qp,
	.destroy_srq = wren_destroy_srq,
	.free_context = wren_free_context,
	.modify_qp = wren_modify_qp,
	.modify_srq = wren_modify_srq,
	.poll_cq = wren_poll_cq,
	.post_recv = wren_post_recv,
	.post_send = wren_post_send,
	.post_srq_recv = wren_post_srq_recv,
	.query_device_ex = wren_query_device_ex,
	.query_port = wren_query_port,
	.query_qp = wren_query_qp,
	.query_srq = wren_query_srq,
	.reg_dmabuf_mr = wren_reg_dmabuf_mr,
	.reg_mr = wren_reg_mr,
	.req_notify_cq = wren_req_notify_cq,
	.rereg_mr = wren_rereg_mr,
	.resize_cq = wren_resize_cq,
};

/* Map the context's doorbell page; the kernel picked its mmap key. */
static int wren_map_doorbell(struct wren_context *ctx,
			     const struct wren_alloc_ucontext_resp *resp)
{
	struct wren_device *dev = to_wren_device(ctx->ibvctx.context.device);
	void *page;

	if (!resp->db_page_size || resp->db_page_size % dev->page_size) {
		verbs_err(&ctx->ibvctx,
			  "kernel gave a doorbell page of %u bytes\n",
			  resp->db_page_size);
		return EPROTO;
	}

	page = mmap(NULL, resp->db_page_size, PROT_WRITE, MAP_SHARED,
		    ctx->ibvctx.context.cmd_fd, resp->db_mmap_key);
	if (page == MAP_FAILED) {
		int err = errno;

		verbs_err(&ctx->ibvctx, "doorbell page mmap failed: %s\n",
			  strerror(err));
		return err;
	}

	ctx->db_page = page;
	ctx->db_page_size = resp->db_page_size;
	return 0;
}

/*
 * The limits the kernel gave, bounded by what the queue entries can hold:
 * the provider writes the entries, so it never offers more than their
 * format allows, whatever a kernel says.
 */
static void wren_read_limits(struct wren_context *ctx,
			     const struct wren_alloc_ucontext_resp *resp)
{
	ctx->max_sq_depth = resp->max_sq_depth;
	ctx->max_rq_depth = resp->max_rq_depth;
	ctx->max_sge = min_t(uint32_t, resp->max_sge,
			     WREN_SQ_WQE_SGE(WREN_SQ_WQE_SHIFT_MAX));
	ctx->max_inline = min_t(uint32_t, resp->max_inline,
				WREN_SQ_WQE_INLINE(WREN_SQ_WQE_SHIFT_MAX));

	/* A kernel without the data path says nothing of the rest. */
	ctx->data_path = resp->comp_mask & WREN_IB_UCONTEXT_RESP_DATA_PATH;
	if (!ctx->data_path)
		return;
	ctx->max_recv_sge = min_t(uint32_t, resp->max_recv_sge,
				  WREN_RQ_WQE_SGE(WREN_RQ_WQE_SHIFT_MAX));
	ctx->max_msg_size = resp->max_msg_size;
	ctx->device_caps = resp->device_caps;
	ctx->max_cq_depth = resp->max_cq_depth;
}

/*
 * Enter @qp under its number.  Only creation calls this, before the QP can
 * have work requests and so completions; a leaf is published (release)
 * after it is zeroed, a QP after it is complete.
 *
 * The caller holds @qp_table_mutex across the kernel's creation and this
 * call, as destruction holds it across the kernel's destruction and
 * wren_qp_table_remove(): the device reuses a number as soon as it is
 * free, and the table must have let go of it by then.
 */
int wren_qp_table_insert(struct wren_context *ctx, struct wren_qp *qp)
{
	unsigned int top = qp->qpn >> WREN_QP_LEAF_SHIFT;
	unsigned int idx = qp->qpn & (WREN_QP_LEAF_SIZE - 1);
	struct wren_qp_leaf *leaf;

	if (qp->qpn >> WREN_QPN_BITS)
		return EPROTO;

	leaf = atomic_load_explicit(&ctx->qp_table[top], memory_order_relaxed);
	if (!leaf) {
		leaf = calloc(1, sizeof(*leaf));
		if (!leaf)
			return ENOMEM;
		atomic_store_explicit(&ctx->qp_table[top], leaf,
				      memory_order_release);
	}
	/* The kernel gave a number that is still in use. */
	if (atomic_load_explicit(&leaf->qp[idx], memory_order_relaxed))
		return EPROTO;
	atomic_store_explicit(&leaf->qp[idx], qp, memory_order_release);
	return 0;
}

/*
 * Forget @qp.  The caller holds @qp_table_mutex (see
 * wren_qp_table_insert()) and the locks of the QP's CQs (see
 * wren_qp_lookup()).
 */
void wren_qp_table_remove(struct wren_context *ctx, struct wren_qp *qp)
{
	struct wren_qp_leaf *leaf;

	leaf = atomic_load_explicit(&ctx->qp_table[qp->qpn >> WREN_QP_LEAF_SHIFT],
				    memory_order_relaxed);
	if (leaf)
		atomic_store_explicit(&leaf->qp[qp->qpn & (WREN_QP_LEAF_SIZE - 1)],
				      NULL, memory_order_relaxed);
}

static struct verbs_context *wren_alloc_context(struct ibv_device *ibvdev,
						int cmd_fd,
						void *private_data)
{
	struct wren_alloc_ucontext_resp resp = {};
	struct wren_alloc_ucontext cmd = {};
	struct wren_context *ctx;
	int err;

	ctx = verbs_init_and_alloc_context(ibvdev, cmd_fd, ctx, ibvctx,
					   RDMA_DRIVER_UNKNOWN);
	if (!ctx)
		return NULL;

	err = ibv_cmd_get_context(&ctx->ibvctx, &cmd.ibv_cmd, sizeof(cmd),
				  &resp.ibv_resp, sizeof(resp));
	if (err) {
		verbs_err(&ctx->ibvctx, "alloc_ucontext failed: %s\n",
			  strerror(err));
		goto err_free_ctx;
	}

	err = wren_map_doorbell(ctx, &resp);
	if (err)
		goto err_free_ctx;

	wren_read_limits(ctx, &resp);
	err = pthread_mutex_init(&ctx->qp_table_mutex, NULL);
	if (err)
		goto err_unmap_doorbell;
	verbs_set_ops(&ctx->ibvctx, &wren_ctx_ops);
	verbs_debug(&ctx->ibvctx,
		    "context: sq %u rq %u sge %u/%u inline %u cq %u msg %u caps %#x%s, doorbell %zu bytes\n",
		    ctx->max_sq_depth, ctx->max_rq_depth, ctx->max_sge,
		    ctx->max_recv_sge, ctx->max_inline, ctx->max_cq_depth,
		    ctx->max_msg_size, ctx->device_caps,
		    ctx->data_path ? "" : " (no data path)",
		    ctx->db_page_size);
	return &ctx->ibvctx;

err_unmap_doorbell:
	munmap(ctx->db_page, ctx->db_page_size);
err_free_ctx:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void wren_free_context(struct ibv_context *ibvctx)
{
	struct wren_context *ctx = to_wren_context(ibvctx);
	unsigned int i;

	for (i = 0; i < WREN_QP_LEAVES; i++)
		free(atomic_load_explicit(&ctx->qp_table[i],
					  memory_order_relaxed));
	pthread_mutex_destroy(&ctx->qp_table_mutex);
	munmap(ctx->db_page, ctx->db_page_size);
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
}

static struct verbs_device *wren_alloc_device(struct verbs_sysfs_dev *sysfs_dev)
{
	struct wren_device *dev;

	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return NULL;

	dev->page_size = sysconf(_SC_PAGESIZE);
	return &dev->vdev;
}

static void wren_uninit_device(struct verbs_device *vdev)
{
	free(to_wren_device(&vdev->device));
}

static const struct verbs_device_ops wren_dev_ops = {
	.name = "wren",
	.match_min_abi_version = WREN_IB_UVERBS_ABI_VERSION,
	.match_max_abi_version = WREN_IB_UVERBS_ABI_VERSION,
	.match_table = wren_match_table,
	.match_device = wren_match_device,
	.alloc_device = wren_alloc_device,
	.uninit_device = wren_uninit_device,
	.alloc_context = wren_alloc_context,
};

/* Direct verbs take libibverbs objects: make sure they are ours. */
bool is_wren_device(struct ibv_device *ibvdev)
{
	return verbs_get_device(ibvdev)->ops == &wren_dev_ops;
}

PROVIDER_DRIVER(wren, wren_dev_ops);
