// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: user contexts and what they may mmap (their doorbell
 * page).
 */
#include <linux/mm.h>
#include <rdma/ib_user_verbs.h>

#include "wren_ib.h"

static struct rdma_user_mmap_entry *
wren_ib_mmap_entry_insert(struct wren_ib_ucontext *uctx, phys_addr_t address,
			  size_t length, u64 *offset)
{
	struct wren_ib_mmap_entry *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return NULL;
	entry->address = address;
	err = rdma_user_mmap_entry_insert(&uctx->ibucontext, &entry->rdma_entry,
					  length);
	if (err) {
		kfree(entry);
		return NULL;
	}
	*offset = rdma_user_mmap_get_offset(&entry->rdma_entry);
	return &entry->rdma_entry;
}

/**
 * wren_ib_alloc_ucontext() - a user context with its own doorbell page
 * @ibucontext: the context, allocated by ib_core
 * @udata: &struct wren_ib_alloc_ucontext_req in,
 *	   &struct wren_ib_alloc_ucontext_resp out
 *
 * Return: 0, -EOPNOTSUPP for an unknown comp_mask bit, -EINVAL for a
 * non-zero reserved field, -ENOSPC when the device has no doorbell page
 * left, or another negative errno.
 */
int wren_ib_alloc_ucontext(struct ib_ucontext *ibucontext,
			   struct ib_udata *udata)
{
	struct wren_ib_ucontext *uctx = to_wren_ib_ucontext(ibucontext);
	struct wren_ib_dev *dev = to_wren_ib_dev(ibucontext->device);
	struct wren_ib_alloc_ucontext_resp resp = {};
	struct wren_ib_alloc_ucontext_req req = {};
	const struct wren_caps *c = dev->caps;
	int err;

	if (udata->inlen > sizeof(req) &&
	    !ib_is_udata_cleared(udata, sizeof(req), udata->inlen - sizeof(req)))
		return -EOPNOTSUPP;
	err = ib_copy_from_udata(&req, udata, min(sizeof(req), udata->inlen));
	if (err)
		return err;
	if (req.comp_mask)
		return -EOPNOTSUPP;
	if (req.reserved)
		return -EINVAL;

	err = wren_db_page_alloc(dev->wdev, &uctx->db_page);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "no doorbell page for a new context: %d\n",
				      err);
		return err;
	}
	uctx->db_entry = wren_ib_mmap_entry_insert(uctx,
						   wren_db_page_phys(dev->wdev, uctx->db_page),
						   c->db_page_size,
						   &resp.db_mmap_key);
	if (!uctx->db_entry) {
		err = -ENOMEM;
		goto err_free_db_page;
	}
	resp.db_page_size = c->db_page_size;
	resp.max_sq_depth = c->max_qp_depth;
	resp.max_rq_depth = c->max_qp_depth;
	resp.max_sge = c->max_sge;
	resp.max_inline = c->max_inline;
	err = ib_copy_to_udata(udata, &resp, min(sizeof(resp), udata->outlen));
	if (err)
		goto err_remove_entry;
	return 0;

err_remove_entry:
	rdma_user_mmap_entry_remove(uctx->db_entry);
err_free_db_page:
	wren_db_page_free(dev->wdev, uctx->db_page);
	return err;
}

/**
 * wren_ib_dealloc_ucontext() - free a user context's resources
 * @ibucontext: the context
 */
void wren_ib_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
	struct wren_ib_ucontext *uctx = to_wren_ib_ucontext(ibucontext);
	struct wren_ib_dev *dev = to_wren_ib_dev(ibucontext->device);

	rdma_user_mmap_entry_remove(uctx->db_entry);
	wren_db_page_free(dev->wdev, uctx->db_page);
}

/**
 * wren_ib_mmap() - map an entry of the context into the process
 * @ibucontext: the context
 * @vma: the mapping, its offset naming the entry
 *
 * Return: 0, or -EINVAL for an offset that names nothing of this context.
 */
int wren_ib_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma_entry;
	struct wren_ib_mmap_entry *entry;
	int err;

	rdma_entry = rdma_user_mmap_entry_get(ibucontext, vma);
	if (!rdma_entry) {
		ibdev_dbg(ibucontext->device, "mmap: no entry at offset %#lx\n",
			  vma->vm_pgoff);
		return -EINVAL;
	}
	entry = container_of(rdma_entry, struct wren_ib_mmap_entry, rdma_entry);
	err = rdma_user_mmap_io(ibucontext, vma, PHYS_PFN(entry->address),
				rdma_entry->npages << PAGE_SHIFT,
				pgprot_noncached(vma->vm_page_prot), rdma_entry);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/**
 * wren_ib_mmap_free() - free an entry once nothing maps it any more
 * @rdma_entry: the entry
 */
void wren_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	kfree(container_of(rdma_entry, struct wren_ib_mmap_entry, rdma_entry));
}
