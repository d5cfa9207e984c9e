// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: memory regions of user memory or of a dma-buf.  The
 * memory is pinned and described to the device by a page list in
 * DMA-coherent memory, in the largest page size the device and the
 * memory's layout allow, in one to three levels.
 *
 * The kernel's regions: the DMA MR, which is the device's DMA key, and
 * fast-register regions, whose one-level page list map_mr_sg fills and a
 * REG_MR work request registers (wren_ib_kqp.c).
 */
#include <linux/dma-mapping.h>
#include <linux/random.h>
#include <rdma/ib_umem.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/iter.h>

#include "wren_ib.h"
#include "wren_ib_trace.h"

/* The access rights the device knows; the optional ones are ignored. */
#define WREN_IB_MR_ACCESS	(IB_ACCESS_LOCAL_WRITE | \
				 IB_ACCESS_REMOTE_WRITE | \
				 IB_ACCESS_REMOTE_READ)
/* Hints that change nothing: huge pages are found whatever the flag says. */
#define WREN_IB_MR_IGNORED	(IB_ACCESS_OPTIONAL | IB_ACCESS_HUGETLB)

/* Bytes of a second-level page of the page list. */
#define WREN_IB_PBL_PAGE_SIZE	(WREN_PBL_PER_PAGE * sizeof(__le64))

/**
 * wren_ib_mr_access() - the device's access rights for the verbs' ones
 * @access: IB_ACCESS_* rights
 *
 * Return: the WREN_MR_ACCESS_* rights.
 */
u8 wren_ib_mr_access(int access)
{
	u8 wren_access = 0;

	if (access & IB_ACCESS_LOCAL_WRITE)
		wren_access |= WREN_MR_ACCESS_LOCAL_WRITE;
	if (access & IB_ACCESS_REMOTE_WRITE)
		wren_access |= WREN_MR_ACCESS_REMOTE_WRITE;
	if (access & IB_ACCESS_REMOTE_READ)
		wren_access |= WREN_MR_ACCESS_REMOTE_READ;
	if (access & IB_ACCESS_REMOTE_ATOMIC)
		wren_access |= WREN_MR_ACCESS_REMOTE_ATOMIC;
	return wren_access;
}

static void wren_ib_pbl_free(struct wren_ib_dev *dev, struct wren_ib_pbl *pbl)
{
	struct device *dma_dev = wren_dma_dev(dev->wdev);
	u32 n;

	for (n = 0; n < pbl->npages; n++)
		if (pbl->pages[n].buf)
			dma_free_coherent(dma_dev, WREN_IB_PBL_PAGE_SIZE,
					  pbl->pages[n].buf, pbl->pages[n].dma);
	kfree(pbl->pages);
	dma_free_coherent(dma_dev, pbl->l1_size, pbl->l1, pbl->l1_dma);
}

/*
 * The page list of @npages pages of @pgsz bytes of @umem: up to
 * WREN_PBL_PER_PAGE pages, the top list alone; beyond, a tree whose
 * leaves are 4 KiB pages of page addresses, each level above naming the
 * 4 KiB pages of the one below, up to a top list of at most
 * WREN_PBL_PER_PAGE entries (include/linux/wren/wren_if.h, REG_MR).
 * @pbl->pages holds the tree's pages, leaves first, then level by level.
 */
static int wren_ib_pbl_alloc(struct wren_ib_dev *dev, struct wren_ib_pbl *pbl,
			     struct ib_umem *umem, unsigned long pgsz,
			     u32 npages)
{
	struct device *dma_dev = wren_dma_dev(dev->wdev);
	u32 level_pages[WREN_PBL_MAX_LEVELS - 1], total = 0, top = npages;
	unsigned int levels = 0, lv;
	struct ib_block_iter biter;
	u32 i = 0, j, base, n;

	while (top > WREN_PBL_PER_PAGE) {
		top = DIV_ROUND_UP(top, WREN_PBL_PER_PAGE);
		level_pages[levels++] = top;
		total += top;
	}
	if (total) {
		pbl->pages = kcalloc(total, sizeof(*pbl->pages), GFP_KERNEL);
		if (!pbl->pages)
			return -ENOMEM;
	}
	pbl->l1_size = top * sizeof(__le64);
	pbl->l1 = dma_alloc_coherent(dma_dev, pbl->l1_size, &pbl->l1_dma,
				     GFP_KERNEL);
	if (!pbl->l1) {
		kfree(pbl->pages);
		return -ENOMEM;
	}
	/* Counted as allocated from now on, for wren_ib_pbl_free(). */
	pbl->npages = total;
	for (n = 0; n < total; n++) {
		pbl->pages[n].buf = dma_alloc_coherent(dma_dev,
						       WREN_IB_PBL_PAGE_SIZE,
						       &pbl->pages[n].dma,
						       GFP_KERNEL);
		if (!pbl->pages[n].buf) {
			wren_ib_pbl_free(dev, pbl);
			return -ENOMEM;
		}
	}

	/* The leaves: the region's pages. */
	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		__le64 addr = cpu_to_le64(rdma_block_iter_dma_address(&biter));

		if (i == npages)
			break;
		if (levels)
			pbl->pages[i / WREN_PBL_PER_PAGE].buf[i % WREN_PBL_PER_PAGE] = addr;
		else
			pbl->l1[i] = addr;
		i++;
	}
	/* Each level names its pages in the level above, the last in l1. */
	for (lv = 0, base = 0; lv < levels; base += level_pages[lv++]) {
		for (j = 0; j < level_pages[lv]; j++) {
			__le64 addr = cpu_to_le64(pbl->pages[base + j].dma);

			if (lv + 1 < levels)
				pbl->pages[base + level_pages[lv] +
					   j / WREN_PBL_PER_PAGE].buf[j % WREN_PBL_PER_PAGE] = addr;
			else
				pbl->l1[j] = addr;
		}
	}
	return 0;
}

/* The request's access rights and length, against what the device takes. */
VISIBLE_IF_KUNIT int wren_ib_mr_check(struct wren_ib_dev *dev, u64 length,
				      int access)
{
	int allowed = WREN_IB_MR_ACCESS | WREN_IB_MR_IGNORED;

	if (dev->caps->caps & WREN_CAP_ATOMIC)
		allowed |= IB_ACCESS_REMOTE_ATOMIC;
	if (access & ~allowed) {
		ibdev_dbg(&dev->ibdev, "reg_mr: access %#x unsupported\n",
			  access & ~allowed);
		return -EOPNOTSUPP;
	}
	if (!length || length > dev->caps->max_mr_size) {
		ibdev_dbg(&dev->ibdev, "reg_mr: %llu bytes, at most %llu\n",
			  length, dev->caps->max_mr_size);
		return -EINVAL;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_mr_check);

/*
 * The page list of @umem seen from @virt_addr, in the largest page size
 * that fits: in @pbl, and described in @p (IOVA, list, pages, page size).
 */
static int wren_ib_mr_pages(struct wren_ib_dev *dev, struct ib_umem *umem,
			    u64 virt_addr, struct wren_ib_pbl *pbl,
			    struct wren_mr_params *p)
{
	unsigned long pgsz;
	size_t npages;
	int err;

	pgsz = ib_umem_find_best_pgsz(umem, dev->caps->page_size_cap,
				      virt_addr);
	if (!pgsz) {
		ibdev_dbg(&dev->ibdev, "reg_mr: no page size fits IOVA %#llx\n",
			  virt_addr);
		return -EINVAL;
	}
	npages = ib_umem_num_dma_blocks(umem, pgsz);
	if (npages > WREN_PBL_MAX_PAGES) {
		ibdev_dbg(&dev->ibdev, "reg_mr: %zu pages of %lu bytes, at most %u\n",
			  npages, pgsz, WREN_PBL_MAX_PAGES);
		return -EINVAL;
	}
	err = wren_ib_pbl_alloc(dev, pbl, umem, pgsz, npages);
	if (err)
		return err;
	p->iova = virt_addr;
	p->pbl = pbl->l1_dma;
	p->npages = npages;
	p->page_shift = __ffs(pgsz);
	return 0;
}

/* What @mr is now, for ib_core and for the next rereg. */
static void wren_ib_mr_set(struct wren_ib_mr *mr, u64 length, u64 virt_addr,
			   int access)
{
	/* ib_core sets these after reg_user_mr, not after a rereg. */
	mr->ibmr.iova = virt_addr;
	mr->ibmr.length = length;
	mr->access = access;
}

/*
 * Describe @mr's pinned memory to the device: the page list, then
 * REG_MR.  On failure the page list is gone again; the umem is the
 * caller's to release.
 */
static int wren_ib_mr_register(struct wren_ib_dev *dev, struct wren_ib_pd *pd,
			       struct wren_ib_mr *mr, u64 length,
			       u64 virt_addr, int access)
{
	struct wren_mr_params params = {};
	int err;

	err = wren_ib_mr_pages(dev, mr->umem, virt_addr, &mr->pbl, &params);
	if (err)
		return err;
	params.length = length;
	params.pdn = pd->pdn;
	params.access = wren_ib_mr_access(access);
	params.key_tag = get_random_u8();
	err = wren_cmd_reg_mr(dev->wdev, &params, &mr->ibmr.lkey,
			      &mr->ibmr.rkey);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "register MR of %llu bytes on PD %u failed: %d\n",
				      length, pd->pdn, err);
		wren_ib_pbl_free(dev, &mr->pbl);
		return err;
	}
	wren_ib_mr_set(mr, length, virt_addr, access);
	trace_wren_ib_reg_mr(&pd->ibpd, mr->ibmr.lkey, length, params.npages,
			     access);
	ibdev_dbg(&dev->ibdev, "MR %#x (rkey %#x): %llu bytes at %#llx, %u pages of %lu bytes\n",
		  mr->ibmr.lkey, mr->ibmr.rkey, length, virt_addr,
		  params.npages, 1UL << params.page_shift);
	return 0;
}

/* A new MR over @umem, pinned; on failure @umem is released. */
static struct ib_mr *wren_ib_mr_create(struct wren_ib_dev *dev,
				       struct ib_pd *ibpd, struct ib_umem *umem,
				       u64 length, u64 virt_addr, int access)
{
	struct wren_ib_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		err = -ENOMEM;
		goto err_release_umem;
	}
	mr->umem = umem;
	err = wren_ib_mr_register(dev, to_wren_ib_pd(ibpd), mr, length,
				  virt_addr, access);
	if (err)
		goto err_free_mr;
	return &mr->ibmr;

err_free_mr:
	kfree(mr);
err_release_umem:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

/* A new MR over the user memory at @start, pinned. */
static struct ib_mr *wren_ib_mr_new(struct wren_ib_dev *dev,
				    struct ib_pd *ibpd, u64 start, u64 length,
				    u64 virt_addr, int access)
{
	struct ib_umem *umem;
	int err;

	err = wren_ib_mr_check(dev, length, access);
	if (err)
		return ERR_PTR(err);
	umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(umem)) {
		ibdev_dbg(&dev->ibdev, "reg_mr: pinning %llu bytes failed: %ld\n",
			  length, PTR_ERR(umem));
		return ERR_CAST(umem);
	}
	return wren_ib_mr_create(dev, ibpd, umem, length, virt_addr, access);
}

/**
 * wren_ib_reg_user_mr() - register user memory
 * @ibpd: its protection domain
 * @start: the memory's user address
 * @length: its bytes, at most the device's max_mr_size
 * @virt_addr: the address of its first byte in work requests (the IOVA)
 * @access: %IB_ACCESS_LOCAL_WRITE, %IB_ACCESS_REMOTE_WRITE,
 *	%IB_ACCESS_REMOTE_READ, %IB_ACCESS_REMOTE_ATOMIC on a device with
 *	atomics; optional access flags and %IB_ACCESS_HUGETLB are ignored
 * @udata: carries no request and gets no response
 *
 * The device gives an lkey and a different rkey, each with random bits
 * (the tag is random too).  Huge pages are described as
 * such when the IOVA allows it.
 *
 * Return: the MR, or ERR_PTR() of -EOPNOTSUPP for another access flag
 * (memory window binding, zero-based, on-demand paging) or a
 * request in @udata, -EINVAL for a length of 0 or beyond the device's or
 * memory no page size of the device fits, -ENOMEM, or another negative
 * errno.
 */
struct ib_mr *wren_ib_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				  u64 virt_addr, int access,
				  struct ib_udata *udata)
{
	int err;

	if (udata) {
		err = wren_ib_copy_req(udata, NULL, 0);
		if (err)
			return ERR_PTR(err);
	}
	return wren_ib_mr_new(to_wren_ib_dev(ibpd->device), ibpd, start, length,
			      virt_addr, access);
}

/*
 * A dma-buf's pages, pinned and mapped for the device for as long as the
 * MR lives; the device then sees them as it sees pinned user memory.
 */
static struct ib_mr *wren_ib_reg_dmabuf(struct ib_pd *ibpd, u64 offset,
					u64 length, u64 virt_addr, int fd,
					int access, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibpd->device);
	struct ib_umem_dmabuf *umem_dmabuf;
	int err;

	if (udata) {
		err = wren_ib_copy_req(udata, NULL, 0);
		if (err)
			return ERR_PTR(err);
	}
	err = wren_ib_mr_check(dev, length, access);
	if (err)
		return ERR_PTR(err);
	umem_dmabuf = ib_umem_dmabuf_get_pinned(ibpd->device, offset, length,
						fd, access);
	if (IS_ERR(umem_dmabuf)) {
		ibdev_dbg(&dev->ibdev, "reg_dmabuf_mr: fd %d: %ld\n", fd,
			  PTR_ERR(umem_dmabuf));
		return ERR_CAST(umem_dmabuf);
	}
	return wren_ib_mr_create(dev, ibpd, &umem_dmabuf->umem, length,
				 virt_addr, access);
}

#ifdef HAVE_REG_DMABUF_ATTRS
/**
 * wren_ib_reg_user_mr_dmabuf() - register the pages of a dma-buf
 * @ibpd: its protection domain
 * @offset: where the region starts in the dma-buf
 * @length: its bytes
 * @virt_addr: the IOVA of its first byte
 * @fd: the dma-buf
 * @access: as for wren_ib_reg_user_mr()
 * @attrs: carries no request
 *
 * Return: the MR, or an ERR_PTR() as wren_ib_reg_user_mr() returns, or of
 * the dma-buf layer's errno.
 */
struct ib_mr *wren_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access,
					 struct uverbs_attr_bundle *attrs)
{
	return wren_ib_reg_dmabuf(ibpd, offset, length, virt_addr, fd, access,
				  attrs ? &attrs->driver_udata : NULL);
}
#else
/**
 * wren_ib_reg_user_mr_dmabuf() - register the pages of a dma-buf
 * @ibpd: its protection domain
 * @offset: where the region starts in the dma-buf
 * @length: its bytes
 * @virt_addr: the IOVA of its first byte
 * @fd: the dma-buf
 * @access: as for wren_ib_reg_user_mr()
 * @udata: carries no request
 *
 * Return: the MR, or an ERR_PTR() as wren_ib_reg_user_mr() returns, or of
 * the dma-buf layer's errno.
 */
struct ib_mr *wren_ib_reg_user_mr_dmabuf(struct ib_pd *ibpd, u64 offset,
					 u64 length, u64 virt_addr, int fd,
					 int access, struct ib_udata *udata)
{
	return wren_ib_reg_dmabuf(ibpd, offset, length, virt_addr, fd, access,
				  udata);
}
#endif

/*
 * Change @mr in place, keeping its key (REREG_MR): a new page list, of
 * new memory with %IB_MR_REREG_TRANS, and the PD and rights asked for.
 * What the device refuses leaves @mr as it was.
 */
static int wren_ib_mr_rereg(struct wren_ib_dev *dev, struct wren_ib_mr *mr,
			    int flags, u64 start, u64 length, u64 virt_addr,
			    int access, struct ib_pd *ibpd)
{
	struct wren_mr_params params = {};
	struct ib_umem *umem = mr->umem;
	struct wren_ib_pbl pbl = {};
	int err;

	if (flags & IB_MR_REREG_TRANS) {
		umem = ib_umem_get(&dev->ibdev, start, length, access);
		if (IS_ERR(umem)) {
			ibdev_dbg(&dev->ibdev, "rereg_mr: pinning %llu bytes failed: %ld\n",
				  length, PTR_ERR(umem));
			return PTR_ERR(umem);
		}
	}
	err = wren_ib_mr_pages(dev, umem, virt_addr, &pbl, &params);
	if (err)
		goto err_release;
	params.length = length;
	params.pdn = to_wren_ib_pd(ibpd)->pdn;
	params.access = wren_ib_mr_access(access);
	err = wren_cmd_rereg_mr(dev->wdev, mr->ibmr.lkey, &params);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "rereg MR %#x (flags %#x) failed: %d\n",
				      mr->ibmr.lkey, flags, err);
		wren_ib_pbl_free(dev, &pbl);
		goto err_release;
	}
	/* The device reads the new list only: the old one is ours. */
	wren_ib_pbl_free(dev, &mr->pbl);
	mr->pbl = pbl;
	if (umem != mr->umem) {
		ib_umem_release(mr->umem);
		mr->umem = umem;
	}
	wren_ib_mr_set(mr, length, virt_addr, access);
	return 0;

err_release:
	if (umem != mr->umem)
		ib_umem_release(umem);
	return err;
}

/**
 * wren_ib_rereg_user_mr() - change a memory region
 * @ibmr: the MR
 * @flags: %IB_MR_REREG_TRANS (new memory), %IB_MR_REREG_PD,
 *	%IB_MR_REREG_ACCESS
 * @start: the new memory's user address, with %IB_MR_REREG_TRANS
 * @length: its bytes
 * @virt_addr: its IOVA
 * @access: the new rights, with %IB_MR_REREG_ACCESS
 * @ibpd: the new PD, with %IB_MR_REREG_PD
 * @udata: carries no request
 *
 * A device with %WREN_CAP_REREG_MR changes the region in place and the MR
 * keeps its key, as applications written for other devices expect.
 * Otherwise a new region is registered with what changes and what stays,
 * and ib_core then deregisters the old one: the new MR has a new key, and
 * the old key no longer reaches the memory.  A dma-buf region cannot
 * change.
 *
 * Return: NULL (changed in place), the new MR, or an ERR_PTR() as
 * wren_ib_reg_user_mr() returns, or of -EOPNOTSUPP for a dma-buf region
 * or an unknown flag; the old MR is then unchanged.
 */
struct ib_mr *wren_ib_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				    u64 length, u64 virt_addr, int access,
				    struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibmr->device);
	struct wren_ib_mr *mr = to_wren_ib_mr(ibmr);
	int err;

	if (udata) {
		err = wren_ib_copy_req(udata, NULL, 0);
		if (err)
			return ERR_PTR(err);
	}
	if (flags & ~(IB_MR_REREG_TRANS | IB_MR_REREG_PD |
		      IB_MR_REREG_ACCESS) || mr->umem->is_dmabuf) {
		ibdev_dbg(&dev->ibdev, "rereg_mr %#x: flags %#x unsupported\n",
			  ibmr->lkey, flags);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = mr->umem->length;
		virt_addr = ibmr->iova;
	}
	if (!(flags & IB_MR_REREG_PD))
		ibpd = ibmr->pd;
	if (!(flags & IB_MR_REREG_ACCESS))
		access = mr->access;
	if (!(dev->caps->caps & WREN_CAP_REREG_MR))
		return wren_ib_mr_new(dev, ibpd, start, length, virt_addr,
				      access);
	err = wren_ib_mr_check(dev, length, access);
	if (!err)
		err = wren_ib_mr_rereg(dev, mr, flags, start, length,
				       virt_addr, access, ibpd);
	return err ? ERR_PTR(err) : NULL;
}

/* ib_sg_to_pages()'s callback: the next page of a fast-register region. */
static int wren_ib_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct wren_ib_mr *mr = to_wren_ib_mr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pbl.l1[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/**
 * wren_ib_map_mr_sg() - the pages of a fast-register region
 * @ibmr: the region, not valid (its page list is the driver's)
 * @sg: the scatterlist, mapped for DMA
 * @sg_nents: its entries
 * @sg_offset: where in the first one the region starts
 *
 * Return: the number of entries mapped, as ib_sg_to_pages() returns it.
 */
int wren_ib_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
		      int sg_nents, unsigned int *sg_offset)
{
	to_wren_ib_mr(ibmr)->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, wren_ib_set_page);
}

/**
 * wren_ib_alloc_mr() - a fast-register region for the kernel
 * @ibpd: its PD
 * @mr_type: %IB_MR_TYPE_MEM_REG
 * @max_num_sg: the most pages a registration may give it, at most
 *	%WREN_PBL_PER_PAGE
 *
 * It starts invalid; map_mr_sg fills its page list, a REG_MR work request
 * makes it valid and LOCAL_INV or a peer's SEND_WITH_INV invalid again.
 *
 * Return: the region, or ERR_PTR() of -EOPNOTSUPP for another type or a
 * device without fast registration, -EINVAL for too many pages, -ENOMEM,
 * or another negative errno.
 */
struct ib_mr *wren_ib_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			       u32 max_num_sg)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibpd->device);
	struct wren_mr_params params = {};
	struct wren_ib_mr *mr;
	int err;

	if (mr_type != IB_MR_TYPE_MEM_REG ||
	    !(dev->caps->caps & WREN_CAP_FAST_REG)) {
		ibdev_dbg(&dev->ibdev, "alloc_mr: type %d unsupported\n",
			  mr_type);
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!max_num_sg || max_num_sg > WREN_PBL_PER_PAGE) {
		ibdev_dbg(&dev->ibdev, "alloc_mr: %u pages, at most %u\n",
			  max_num_sg, WREN_PBL_PER_PAGE);
		return ERR_PTR(-EINVAL);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->max_pages = max_num_sg;
	mr->pbl.l1_size = max_num_sg * sizeof(__le64);
	mr->pbl.l1 = dma_alloc_coherent(wren_dma_dev(dev->wdev),
					mr->pbl.l1_size, &mr->pbl.l1_dma,
					GFP_KERNEL);
	if (!mr->pbl.l1) {
		err = -ENOMEM;
		goto err_free_mr;
	}
	params.pbl = mr->pbl.l1_dma;
	params.pdn = to_wren_ib_pd(ibpd)->pdn;
	params.npages = max_num_sg;
	params.key_tag = get_random_u8();
	params.flags = WREN_MR_FLAG_FAST;
	err = wren_cmd_reg_mr(dev->wdev, &params, &mr->ibmr.lkey,
			      &mr->ibmr.rkey);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "fast-register MR of %u pages on PD %u failed: %d\n",
				      max_num_sg, params.pdn, err);
		goto err_free_pbl;
	}
	trace_wren_ib_reg_mr(ibpd, mr->ibmr.lkey, 0, 0, 0);
	return &mr->ibmr;

err_free_pbl:
	wren_ib_pbl_free(dev, &mr->pbl);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * wren_ib_dereg_mr() - deregister a memory region
 * @ibmr: the MR
 * @udata: unused
 *
 * Should the device fail to deregister it, the failure is logged and the
 * memory stays pinned and its page list in place, since the device may
 * still use them; ib_core's view of the MR goes all the same.
 *
 * Return: 0.
 */
int wren_ib_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibmr->device);
	struct wren_ib_mr *mr = to_wren_ib_mr(ibmr);
	int err;

	/* The DMA MR is no region of the device's. */
	if (ibmr->lkey == WREN_LKEY_DMA) {
		kfree(mr);
		return 0;
	}
	err = wren_cmd_dereg_mr(dev->wdev, ibmr->lkey);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev,
				      "deregister MR %#x failed: %d, leaking its memory\n",
				      ibmr->lkey, err);
		return 0;
	}
	wren_ib_pbl_free(dev, &mr->pbl);
	ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}

/**
 * wren_ib_get_dma_mr() - the kernel's MR of all its DMA addresses
 * @ibpd: a kernel PD
 * @access: local access only: no region stands behind it that a peer
 *	could name
 *
 * Its key is the device's %WREN_LKEY_DMA, which names bus addresses on a
 * kernel PD.
 *
 * Return: the MR, or ERR_PTR() of -EOPNOTSUPP for remote access or
 * -ENOMEM.
 */
struct ib_mr *wren_ib_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct wren_ib_mr *mr;

	if (access & ~IB_ACCESS_LOCAL_WRITE) {
		ibdev_dbg(ibpd->device, "get_dma_mr: access %#x, local only\n",
			  access);
		return ERR_PTR(-EOPNOTSUPP);
	}
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->access = access;
	mr->ibmr.lkey = WREN_LKEY_DMA;
	return &mr->ibmr;
}
