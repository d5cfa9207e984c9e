// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: user contexts and what they may mmap: their doorbell
 * page, and the rings of their CQs and QPs.
 *
 * A ring is kernel memory (physically contiguous, zeroed, mapped for DMA)
 * that the user maps page by page.  Its mmap entry owns the pages and
 * frees them only when the entry goes, and every user mapping holds
 * references of its own; so the pages stay valid for as long as anybody
 * maps them, even past the destruction of the CQ or QP or the
 * disassociation of the context, while the device stops using them at
 * the destruction.
 *
 * The kernel's own CQs and QPs have rings here too, in coherent memory
 * that nobody maps.
 */
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <rdma/ib_user_verbs.h>

#include "wren_ib.h"

static struct wren_ib_mmap_entry *
wren_ib_mmap_entry_insert(struct wren_ib_ucontext *uctx,
			  struct wren_ib_mmap_entry *entry, size_t length,
			  u64 *offset)
{
	int err;

	err = rdma_user_mmap_entry_insert(&uctx->ibucontext, &entry->rdma_entry,
					  length);
	if (err)
		return NULL;
	*offset = rdma_user_mmap_get_offset(&entry->rdma_entry);
	return entry;
}

static struct rdma_user_mmap_entry *
wren_ib_mmap_io_insert(struct wren_ib_ucontext *uctx, phys_addr_t address,
		       size_t length, u64 *offset)
{
	struct wren_ib_mmap_entry *entry;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return NULL;
	entry->type = WREN_IB_MMAP_IO;
	entry->address = address;
	if (!wren_ib_mmap_entry_insert(uctx, entry, length, offset)) {
		kfree(entry);
		return NULL;
	}
	return &entry->rdma_entry;
}

/**
 * wren_ib_ring_alloc() - allocate a ring the device reaches and the user
 *	maps
 * @uctx: the user context that will map it
 * @ring: filled in on success
 * @bytes: its size, rounded up to whole pages
 * @dir: %DMA_FROM_DEVICE for a ring the device writes (a CQ),
 *	%DMA_TO_DEVICE for one it only reads (a send or receive queue)
 *
 * The memory is physically contiguous, page aligned (so 4 KiB aligned)
 * and zeroed.
 *
 * Return: 0, -ENOMEM, or -EIO if it cannot be mapped for DMA.
 */
int wren_ib_ring_alloc(struct wren_ib_ucontext *uctx, struct wren_ib_ring *ring,
		       size_t bytes, enum dma_data_direction dir)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(uctx->ibucontext.device);
	struct device *dma_dev = wren_dma_dev(dev->wdev);
	struct wren_ib_mmap_entry *entry;
	int err = -ENOMEM;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->type = WREN_IB_MMAP_DMA;
	entry->size = PAGE_ALIGN(bytes);
	entry->cpu_addr = alloc_pages_exact(entry->size,
					    GFP_KERNEL | __GFP_ZERO);
	if (!entry->cpu_addr)
		goto err_free_entry;
	ring->dma = dma_map_single(dma_dev, entry->cpu_addr, entry->size, dir);
	if (dma_mapping_error(dma_dev, ring->dma)) {
		err = -EIO;
		goto err_free_pages;
	}
	if (!wren_ib_mmap_entry_insert(uctx, entry, entry->size,
				       &ring->mmap_key))
		goto err_unmap;
	ring->entry = entry;
	ring->size = entry->size;
	ring->dir = dir;
	return 0;

err_unmap:
	dma_unmap_single(dma_dev, ring->dma, entry->size, dir);
err_free_pages:
	free_pages_exact(entry->cpu_addr, entry->size);
err_free_entry:
	kfree(entry);
	return err;
}

/**
 * wren_ib_kring_alloc() - allocate a ring of a kernel CQ or QP
 * @dev: the device
 * @ring: filled in on success
 * @bytes: its size, rounded up to whole pages
 *
 * The memory is coherent, physically contiguous, page aligned and zeroed.
 *
 * Return: 0 or -ENOMEM.
 */
int wren_ib_kring_alloc(struct wren_ib_dev *dev, struct wren_ib_ring *ring,
			size_t bytes)
{
	ring->size = PAGE_ALIGN(bytes);
	ring->buf = dma_alloc_coherent(wren_dma_dev(dev->wdev), ring->size,
				       &ring->dma, GFP_KERNEL);
	return ring->buf ? 0 : -ENOMEM;
}

/**
 * wren_ib_ring_free() - release a ring the device no longer uses
 * @dev: the device
 * @ring: a ring from wren_ib_ring_alloc() or wren_ib_kring_alloc()
 *
 * A user's ring: ends its DMA mapping and its mmap entry; the pages go
 * with the entry, once no mmap() of it is under way, and stay wherever
 * they are mapped until unmapped.  A kernel ring is freed.
 */
void wren_ib_ring_free(struct wren_ib_dev *dev, struct wren_ib_ring *ring)
{
	if (ring->buf) {
		dma_free_coherent(wren_dma_dev(dev->wdev), ring->size,
				  ring->buf, ring->dma);
		ring->buf = NULL;
		return;
	}
	/* A ring never allocated (a QP on an SRQ has no receive ring). */
	if (!ring->entry)
		return;
	dma_unmap_single(wren_dma_dev(dev->wdev), ring->dma, ring->size,
			 ring->dir);
	rdma_user_mmap_entry_remove(&ring->entry->rdma_entry);
	ring->entry = NULL;
}

/* The errnos of wren_ib_alloc_ucontext() for its request. */
VISIBLE_IF_KUNIT int
wren_ib_ucontext_check(const struct wren_ib_alloc_ucontext_req *req)
{
	if (req->comp_mask)
		return -EOPNOTSUPP;
	if (req->reserved)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_ucontext_check);

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

	err = wren_ib_copy_req(udata, &req, sizeof(req));
	if (err)
		return err;
	err = wren_ib_ucontext_check(&req);
	if (err)
		return err;

	err = wren_db_page_alloc(dev->wdev, &uctx->db_page);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "no doorbell page for a new context: %d\n",
				      err);
		return err;
	}
	uctx->db_entry = wren_ib_mmap_io_insert(uctx,
						wren_db_page_phys(dev->wdev, uctx->db_page),
						c->db_page_size,
						&resp.db_mmap_key);
	if (!uctx->db_entry) {
		err = -ENOMEM;
		goto err_free_db_page;
	}
	resp.comp_mask = WREN_IB_UCONTEXT_RESP_DATA_PATH;
	resp.db_page_size = c->db_page_size;
	resp.max_sq_depth = c->max_qp_depth;
	resp.max_rq_depth = c->max_qp_depth;
	resp.max_sge = c->max_sge;
	resp.max_inline = c->max_inline;
	resp.max_recv_sge = c->max_recv_sge;
	resp.max_msg_size = c->max_msg_size;
	/* A device with RD QPs has them ordered or not, in both modes. */
	if (c->caps & WREN_CAP_RD)
		resp.device_caps = WREN_IB_DEVICE_CAP_RD |
				   WREN_IB_DEVICE_CAP_RD_ORDERED |
				   WREN_IB_DEVICE_CAP_RD_HANDSHAKE;
	if (c->caps & WREN_CAP_RC)
		resp.device_caps |= WREN_IB_DEVICE_CAP_RC;
	if (c->caps & WREN_CAP_RC && c->caps & WREN_CAP_ATOMIC)
		resp.device_caps |= WREN_IB_DEVICE_CAP_ATOMIC;
	if (c->caps & WREN_CAP_SRQ)
		resp.device_caps |= WREN_IB_DEVICE_CAP_SRQ;
	/* One-sided operations on whichever reliable QPs there are. */
	if (c->caps & WREN_CAP_RDMA_WRITE)
		resp.device_caps |= WREN_IB_DEVICE_CAP_RDMA_WRITE;
	if (c->caps & WREN_CAP_RDMA_READ)
		resp.device_caps |= WREN_IB_DEVICE_CAP_RDMA_READ;
	resp.max_cq_depth = c->max_cq_depth;
	err = wren_ib_copy_resp(udata, &resp, sizeof(resp));
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

/* Kernel pages, one by one: the mapping takes a reference on each. */
static int wren_ib_mmap_pages(struct wren_ib_mmap_entry *entry,
			      struct vm_area_struct *vma)
{
	unsigned long va;
	size_t off;
	int err;

	for (va = vma->vm_start, off = 0; va < vma->vm_end;
	     va += PAGE_SIZE, off += PAGE_SIZE) {
		err = vm_insert_page(vma, va, virt_to_page(entry->cpu_addr + off));
		if (err)
			return err;
	}
	return 0;
}

/**
 * wren_ib_mmap() - map an entry of the context into the process
 * @ibucontext: the context
 * @vma: the mapping, its offset naming the entry, its length the entry's
 *
 * Return: 0, -EINVAL for an offset or length that names nothing of this
 * context, or the error of the mapping.
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
	switch (entry->type) {
	case WREN_IB_MMAP_IO:
		err = rdma_user_mmap_io(ibucontext, vma, PHYS_PFN(entry->address),
					rdma_entry->npages << PAGE_SHIFT,
					pgprot_noncached(vma->vm_page_prot),
					rdma_entry);
		break;
	case WREN_IB_MMAP_DMA:
		err = wren_ib_mmap_pages(entry, vma);
		break;
	default:
		err = -EINVAL;
		break;
	}
	if (err)
		ibdev_dbg(ibucontext->device,
			  "mmap: offset %#lx, type %d: error %d\n",
			  vma->vm_pgoff, entry->type, err);
	rdma_user_mmap_entry_put(rdma_entry);
	return err;
}

/**
 * wren_ib_mmap_free() - free an entry once nothing can map it any more
 * @rdma_entry: the entry
 *
 * A ring's pages go with it; mappings of them keep their own references.
 */
void wren_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct wren_ib_mmap_entry *entry =
		container_of(rdma_entry, struct wren_ib_mmap_entry, rdma_entry);

	if (entry->type == WREN_IB_MMAP_DMA)
		free_pages_exact(entry->cpu_addr, entry->size);
	kfree(entry);
}
