// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: user contexts and what they may mmap: their doorbell
 * page, and the rings of their CQs and QPs.
 *
 * A ring is coherent DMA memory (physically contiguous, zeroed) that the
 * user maps whole.  Coherent, not streaming: the device and the process
 * share it for its whole life with no sync between them, and a streaming
 * mapping that bounces (swiotlb, a DMA mask the pages miss, encrypted
 * memory) would have the device write into a bounce buffer the process
 * never sees.  Its mmap entry owns the memory and frees it only when the
 * entry goes, and every user mapping holds a reference on the entry
 * (ib_core's, taken by rdma_user_mmap_io()); so the memory stays valid
 * for as long as anybody maps it, past the destruction of the CQ or QP,
 * while the device stops using it at the destruction.  When the
 * context is disassociated (the device failed or goes away), ib_core
 * zaps every such mapping, doorbells and rings alike, and the process
 * reads zeros from then on.
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

/* A doorbell page's entry, which frees the page when it goes. */
static struct rdma_user_mmap_entry *
wren_ib_mmap_db_insert(struct wren_ib_ucontext *uctx, struct wren_dev *wdev,
		       u32 db_page, size_t length, u64 *offset)
{
	struct wren_ib_mmap_entry *entry;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return NULL;
	entry->type = WREN_IB_MMAP_IO;
	entry->wdev = wdev;
	entry->db_page = db_page;
	entry->address = wren_db_page_phys(wdev, db_page);
	if (!wren_ib_mmap_entry_insert(uctx, entry, length, offset)) {
		kfree(entry);
		return NULL;
	}
	return &entry->rdma_entry;
}

/*
 * Physically contiguous in the kernel's linear map, whatever the DMA
 * layer would rather do (an IOMMU may otherwise give pages it remaps into
 * one virtual range): rdma_user_mmap_io() maps one run of page frames.
 */
#define WREN_IB_RING_ATTRS	DMA_ATTR_FORCE_CONTIGUOUS

/**
 * wren_ib_ring_alloc() - allocate a ring the device reaches and the user
 *	maps
 * @uctx: the user context that will map it
 * @ring: filled in on success
 * @bytes: its size, rounded up to whole pages
 *
 * The memory is coherent, physically contiguous, page aligned (so 4 KiB
 * aligned) and zeroed.
 *
 * Return: 0, -ENOMEM, or -EOPNOTSUPP if the platform's coherent memory is
 * not in the kernel's linear map (so not mappable as one run of frames).
 */
int wren_ib_ring_alloc(struct wren_ib_ucontext *uctx, struct wren_ib_ring *ring,
		       size_t bytes)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(uctx->ibucontext.device);
	struct device *dma_dev = wren_dma_dev(dev->wdev);
	struct wren_ib_mmap_entry *entry;
	int err = -ENOMEM;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->type = WREN_IB_MMAP_DMA;
	entry->wdev = dev->wdev;
	entry->size = PAGE_ALIGN(bytes);
	entry->cpu_addr = dma_alloc_attrs(dma_dev, entry->size, &entry->dma,
					  GFP_KERNEL, WREN_IB_RING_ATTRS);
	if (!entry->cpu_addr)
		goto err_free_entry;
	if (!virt_addr_valid(entry->cpu_addr)) {
		ibdev_warn_ratelimited(&dev->ibdev,
				       "coherent memory outside the linear map: user rings unsupported\n");
		err = -EOPNOTSUPP;
		goto err_free_mem;
	}
	if (!wren_ib_mmap_entry_insert(uctx, entry, entry->size,
				       &ring->mmap_key))
		goto err_free_mem;
	ring->entry = entry;
	ring->dma = entry->dma;
	ring->size = entry->size;
	return 0;

err_free_mem:
	dma_free_attrs(dma_dev, entry->size, entry->cpu_addr, entry->dma,
		       WREN_IB_RING_ATTRS);
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
 * A user's ring: ends its mmap entry; the memory goes with the entry,
 * once no mmap() of it is under way, and stays wherever it is mapped
 * until unmapped.  A kernel ring is freed.
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
	uctx->db_entry = wren_ib_mmap_db_insert(uctx, dev->wdev, uctx->db_page,
						c->db_page_size,
						&resp.db_mmap_key);
	if (!uctx->db_entry) {
		wren_db_page_free(dev->wdev, uctx->db_page);
		return -ENOMEM;
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
		/* The page goes with the entry. */
		rdma_user_mmap_entry_remove(uctx->db_entry);
	return err;
}

/**
 * wren_ib_dealloc_ucontext() - free a user context's resources
 * @ibucontext: the context
 */
void wren_ib_dealloc_ucontext(struct ib_ucontext *ibucontext)
{
	struct wren_ib_ucontext *uctx = to_wren_ib_ucontext(ibucontext);

	/* The doorbell page goes with its entry, once nobody maps it. */
	rdma_user_mmap_entry_remove(uctx->db_entry);
}

/**
 * wren_ib_disassociate_ucontext() - the device goes while the context lives
 * @ibucontext: the context
 *
 * ib_core has zapped every mapping of the context (each was made by
 * rdma_user_mmap_io(), which tracks it) and destroys its objects next;
 * the device, fenced or reset, or still running for a removal, touches
 * none of the context's memory once they are destroyed.  Nothing else is
 * the driver's to do, but offering the operation is what lets a removal
 * or a recovery go on without waiting for the process to exit.
 */
void wren_ib_disassociate_ucontext(struct ib_ucontext *ibucontext)
{
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
		/*
		 * Cached, as the kernel maps coherent memory on a cache
		 * coherent host; io_remap_pfn_range() keeps it decrypted
		 * where memory encryption shared it with the device.
		 */
		err = rdma_user_mmap_io(ibucontext, vma,
					PHYS_PFN(virt_to_phys(entry->cpu_addr)),
					entry->size, vma->vm_page_prot,
					rdma_entry);
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
 * A ring's memory goes with it: no mapping of it is left (each holds a
 * reference on the entry until it is unmapped or zapped), and the device
 * stopped using it when its CQ or QP was destroyed.
 */
void wren_ib_mmap_free(struct rdma_user_mmap_entry *rdma_entry)
{
	struct wren_ib_mmap_entry *entry =
		container_of(rdma_entry, struct wren_ib_mmap_entry, rdma_entry);

	if (entry->type == WREN_IB_MMAP_DMA)
		dma_free_attrs(wren_dma_dev(entry->wdev), entry->size,
			       entry->cpu_addr, entry->dma, WREN_IB_RING_ATTRS);
	else
		wren_db_page_free(entry->wdev, entry->db_page);
	kfree(entry);
}
