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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

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
	.alloc_pd = wren_alloc_pd,
	.dealloc_pd = wren_dealloc_pd,
	.query_device_ex = wren_query_device_ex,
	.query_port = wren_query_port,
	.free_context = wren_free_context,
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

	ctx->max_sq_depth = resp.max_sq_depth;
	ctx->max_rq_depth = resp.max_rq_depth;
	ctx->max_sge = resp.max_sge;
	ctx->max_inline = resp.max_inline;
	verbs_set_ops(&ctx->ibvctx, &wren_ctx_ops);
	verbs_debug(&ctx->ibvctx,
		    "context: sq %u rq %u sge %u inline %u doorbell %zu bytes\n",
		    ctx->max_sq_depth, ctx->max_rq_depth, ctx->max_sge,
		    ctx->max_inline, ctx->db_page_size);
	return &ctx->ibvctx;

err_free_ctx:
	verbs_uninit_context(&ctx->ibvctx);
	free(ctx);
	errno = err;
	return NULL;
}

static void wren_free_context(struct ibv_context *ibvctx)
{
	struct wren_context *ctx = to_wren_context(ibvctx);

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

PROVIDER_DRIVER(wren, wren_dev_ops);
