// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts and what they may mmap.  Each context owns one doorbell
 * page of the doorbell BAR, so that no context can ring another's queues;
 * the page is handed to user space through an rdma_user_mmap_entry and
 * returned to the core driver only when the entry's last reference (the
 * context's or a live mapping's) is gone.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/wren/wren_if.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/wren-abi.h>

#include "wren_ib.h"

/*
 * Check the request of alloc_ucontext.  An older provider may send a
 * shorter request; a newer one's additions must be zero, as we cannot
 * honour them.
 */
static int wren_ib_ucontext_check_req(struct ib_device *ibdev,
				      struct ib_udata *udata)
{
	struct wren_ib_alloc_ucontext_req req = {};
	size_t len = min_t(size_t, udata->inlen, sizeof(req));
	int err;

	if (udata->inlen > sizeof(req) &&
	    !ib_is_udata_cleared(udata, sizeof(req),
				 udata->inlen - sizeof(req))) {
		ibdev_dbg_ratelimited(ibdev,
				      "alloc_ucontext: unknown trailing request data\n");
		return -EOPNOTSUPP;
	}

	err = ib_copy_from_udata(&req, udata, len);
	if (err)
		return err;

	if (req.comp_mask) {
		ibdev_dbg_ratelimited(ibdev,
				      "alloc_ucontext: unknown comp_mask %#x\n",
				      req.comp_mask);
		return -EOPNOTSUPP;
	}
	if (req.reserved) {
		ibdev_dbg_ratelimited(ibdev,
				      "alloc_ucontext: reserved field is %#x\n",
				      req.reserved);
		return -EINVAL;
	}
	return 0;
}

/*
 * Take a doorbell page from the core driver and make it mmap-able by the
 * context.  Once inserted, the entry owns the page: mmap_free gives it back.
 */
static int wren_ib_ucontext_map_doorbell(struct wren_ib_dev *dev,
					 struct wren_ib_ucontext *uctx)
{
	struct wren_ib_user_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;

	err = wren_db_page_alloc(dev->wdev, &entry->db_index);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "ucontext: no doorbell page: %d\n", err);
		goto err_free_entry;
	}

	entry->dev = dev;
	entry->type = WREN_IB_MMAP_DOORBELL;
	entry->address = wren_db_page_phys(dev->wdev, entry->db_index);
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext, &entry->rdma_entry,
					  PAGE_SIZE);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "ucontext: doorbell page %u: mmap entry insert failed: %d\n",
				      entry->db_index, err);
		goto err_free_page;
	}

	uctx->db_entry = &entry->rdma_entry;
	uctx->db_index = entry->db_index;
	return 0;

err_free_page:
	wren_db_page_free(dev->wdev, entry->db_index);
err_free_entry:
	kfree(entry);
	return err;
}

/**
 * wren_ib_alloc_ucontext - open a user context
 * @ibucontext: the context ib_core allocated
 * @udata: carries struct wren_ib_alloc_ucontext_req in and
 *	struct wren_ib_alloc_ucontext_resp out
 *
 * The response is truncated to what the provider asked for, so an older
 * provider with a shorter response keeps working.
 *
 * Return: 0, -EOPNOTSUPP for an unknown comp_mask bit, -EINVAL for a
 * non-zero reserved field, or the error of a failed step.
 */
int wren_ib_alloc_ucontext(struct ib_ucontext *ibucontext,
			   struct ib_udata *udata)
{
	struct wren_ib_ucontext *uctx = to_wren_ib_ucontext(ibucontext);
	struct wren_ib_dev *dev = to_wren_ib_dev(ibucontext->device);
	const struct wren_caps *caps = dev->caps;
	struct wren_ib_alloc_ucontext_resp resp = {};
	int err;

	err = wren_ib_ucontext_check_req(&dev->ibdev, udata);
	if (err)
		return err;

	err = wren_ib_ucontext_map_doorbell(dev, uctx);
	if (err)
		return err;

	resp.db_page_size = PAGE_SIZE;
	resp.db_mmap_key = rdma_user_mmap_get_offset(uctx->db_entry);
	resp.max_sq_depth = caps->max_qp_depth;
	resp.max_rq_depth = caps->max_qp_depth;
	resp.max_sge = caps->max_sge;
	resp.max_inline = caps->max_inline;
	err = ib_copy_to_udata(udata, &resp,
			       min_t(size_t, udata->outlen, sizeof(resp)));
	if (err) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "ucontext: copying the response failed: %d\n",
				      err);
		goto err_remove_doorbell;
	}
	return 0;

err_remove_doorbell:
	rdma_user_mmap_entry_remove(uctx->db_entry);
	return err;
}

/**
 * wren_ib_dealloc_ucontext - close a user context
 * @ibucontext: the context
 *
 * ib_core has already torn down the context's mappings; dropping the
 * doorbell entry therefore frees the page.
 */
void wren_ib_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
	struct wren_ib_ucontext *uctx = to_wren_ib_ucontext(ibucontext);

	rdma_user_mmap_entry_remove(uctx->db_entry);
}

/**
 * wren_ib_mmap - map something a user context owns
 * @ibucontext: the context
 * @vma: the mapping; its page offset is an mmap key the driver handed out
 *
 * Doorbell pages are device registers: mapped uncached and never
 * executable or readable-as-memory beyond what the BAR allows.
 *
 * Return: 0, -EINVAL for an unknown key or a size that does not match the
 * entry, -EPERM for an executable mapping, or the error of the mapping.
 */
int wren_ib_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibucontext->device);
	struct rdma_user_mmap_entry *rdma_entry;
	struct wren_ib_user_mmap_entry *entry;
	int err;

	if (vma->vm_flags & VM_EXEC) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "mmap: key %#lx: executable mapping refused\n",
				      vma->vm_pgoff);
		return -EPERM;
	}

	rdma_entry = rdma_user_mmap_entry_get(ibucontext, vma);
	if (!rdma_entry) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "mmap: key %#lx, %lu bytes: no such entry\n",
				      vma->vm_pgoff,
				      vma->vm_end - vma->vm_start);
		return -EINVAL;
	}
	entry = to_wren_ib_mmap_entry(rdma_entry);

	err = rdma_user_mmap_io(ibucontext, vma, PHYS_PFN(entry->address),
				rdma_entry->npages * PAGE_SIZE,
				pgprot_noncached(vma->vm_page_prot),
				rdma_entry);
	if (err)
		ibdev_err_ratelimited(&dev->ibdev,
				      "mmap: key %#lx: mapping failed: %d\n",
				      vma->vm_pgoff, err);

	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/**
 * wren_ib_mmap_free - release what an mmap entry mapped
 * @rdma_entry: the entry, whose last reference is gone
 */
void wren_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct wren_ib_user_mmap_entry *entry =
		to_wren_ib_mmap_entry(rdma_entry);

	if (entry->type == WREN_IB_MMAP_DOORBELL)
		wren_db_page_free(entry->dev->wdev, entry->db_index);
	kfree(entry);
}
