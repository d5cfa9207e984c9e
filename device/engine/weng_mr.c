// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: memory regions, and host memory through them.
 *
 * Every access a work request or an incoming message makes goes through
 * here: the key must name a live region of the same protection domain
 * with the rights the access needs, and the range must lie inside it;
 * then each page is found in the region's page list (in host memory, one
 * to three levels) and accessed with a bounded DMA of its piece only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

static_assert(WREN_PBL_PER_PAGE == 1 << 9, "page list entries per page");

int weng_mr_init(struct weng *e)
{
	e->mrs = calloc(e->cfg.max_mr, sizeof(*e->mrs));
	return e->mrs ? 0 : -ENOMEM;
}

void weng_mr_fini(struct weng *e)
{
	free(e->mrs);
	e->mrs = NULL;
}

void weng_mr_reset(struct weng *e)
{
	memset(e->mrs, 0, e->cfg.max_mr * sizeof(*e->mrs));
}

/* Levels of the page list of @npages pages. */
static unsigned int pbl_levels(uint32_t npages)
{
	unsigned int levels = 1;
	uint64_t span = WREN_PBL_PER_PAGE;

	while (npages > span) {
		levels++;
		span *= WREN_PBL_PER_PAGE;
	}
	return levels;
}

/* The host address of page @i of @mr, or -EIO (reported). */
static int mr_page(struct weng *e, const struct weng_mr *mr, uint32_t i,
		   uint64_t *addr)
{
	uint64_t at = mr->pbl_addr, entry;

	/* Down the tree: each level's entry names a 4 KiB page below. */
	for (unsigned int l = pbl_levels(mr->npages) - 1; l; l--) {
		/* Pages per entry: WREN_PBL_PER_PAGE (2^9) to the l. */
		uint64_t span = 1ULL << (9 * l);

		if (weng_dma_read(e, at + 8 * (i / span), &entry, 8))
			return -EIO;
		at = wren_le64(entry);
		i %= span;
		if (at & (WREN_PBL_PER_PAGE * 8 - 1)) {
			weng_warn(e, WENG_WRN_DMA, at, WREN_PBL_PER_PAGE * 8);
			return -EIO;
		}
	}
	if (weng_dma_read(e, at + 8ULL * i, &entry, 8))
		return -EIO;
	*addr = wren_le64(entry);
	/* A page list entry must be a page. */
	if (*addr & ((1ULL << mr->page_shift) - 1)) {
		weng_warn(e, WENG_WRN_DMA, *addr, 1ULL << mr->page_shift);
		return -EIO;
	}
	return 0;
}

/*
 * WREN_LKEY_DMA: @va is the host's bus address, for a kernel PD's local
 * accesses only.  Pieces end at page boundaries, as a region's do.
 */
static int dma_walk(struct weng *e, uint32_t pdn, uint64_t va, uint64_t len,
		    uint8_t need,
		    int (*fn)(void *arg, uint64_t addr, uint32_t len),
		    void *arg)
{
	const uint64_t page = 4096;

	if (!weng_pd_kernel(e, pdn) ||
	    need & ~WREN_MR_ACCESS_LOCAL_WRITE || va + len < va)
		return -EACCES;
	while (fn && len) {
		uint32_t piece = weng_min64(len, page - (va & (page - 1)));

		if (fn(arg, va, piece))
			return -EIO;
		va += piece;
		len -= piece;
	}
	return 0;
}

/**
 * weng_mr_walk() - the host memory behind a range of a memory region
 * @e: the engine
 * @pdn: the protection domain the access is made in
 * @key: the region's key
 * @va: the range's first byte, in the region's addresses
 * @len: its length (0: nothing to check or do)
 * @need: WREN_MR_ACCESS_* rights the access needs (0: read)
 * @fn: called for each piece, in order, with its host address and length;
 *	NULL to check the range and its page list only
 * @arg: passed to @fn
 *
 * @key may be WREN_LKEY_DMA on a kernel PD, for local accesses.
 *
 * Return: 0; -EACCES if the key, PD, rights or bounds refuse the access;
 * -EIO if the page list is unreadable or @fn failed.
 */
int weng_mr_walk(struct weng *e, uint32_t pdn, uint32_t key,
		 uint64_t va, uint64_t len, uint8_t need,
		 int (*fn)(void *arg, uint64_t addr, uint32_t len), void *arg)
{
	uint32_t n = key >> 8;
	const struct weng_mr *mr;
	uint64_t page_size, first;

	if (!len)
		return 0;
	if (key == WREN_LKEY_DMA)
		return dma_walk(e, pdn, va, len, need, fn, arg);
	if (n >= e->cfg.max_mr)
		return -EACCES;
	mr = &e->mrs[n];
	if (!mr->in_use || mr->key_tag != (key & 0xff) || mr->pdn != pdn ||
	    (mr->access & need) != need || va < mr->iova ||
	    va - mr->iova > mr->length || len > mr->length - (va - mr->iova))
		return -EACCES;
	page_size = 1ULL << mr->page_shift;
	first = mr->iova >> mr->page_shift;
	while (len) {
		uint64_t off = va & (page_size - 1), addr;
		uint32_t piece = weng_min64(len, page_size - off);

		if (mr_page(e, mr, (va >> mr->page_shift) - first, &addr) ||
		    (fn && fn(arg, addr + off, piece)))
			return -EIO;
		va += piece;
		len -= piece;
	}
	return 0;
}

struct copy {
	struct weng *e;
	uint8_t *buf;
	bool write;
};

static int copy_piece(void *arg, uint64_t addr, uint32_t len)
{
	struct copy *c = arg;
	int rc = c->write ? weng_dma_write(c->e, addr, c->buf, len) :
			    weng_dma_read(c->e, addr, c->buf, len);

	c->buf += len;
	return rc;
}

/* Copy @len bytes from a region with @need rights to @buf; 0, -EACCES or -EIO. */
int weng_mr_read(struct weng *e, uint32_t pdn, uint32_t key,
		 uint64_t va, void *buf, uint32_t len, uint8_t need)
{
	struct copy c = { .e = e, .buf = buf };

	return weng_mr_walk(e, pdn, key, va, len, need, copy_piece, &c);
}

/* Copy @len bytes from @buf into a region with @need rights. */
int weng_mr_write(struct weng *e, uint32_t pdn, uint32_t key,
		  uint64_t va, const void *buf, uint32_t len, uint8_t need)
{
	struct copy c = { .e = e, .buf = (uint8_t *)buf, .write = true };

	return weng_mr_walk(e, pdn, key, va, len, need, copy_piece, &c);
}

/*
 * Copy @len bytes between @buf and the buffer an SGE list describes, from
 * byte @off of it; into it with @to_sgl (which needs local write access).
 */
int weng_sgl_copy(struct weng *e, uint32_t pdn, const struct wren_sge *sge,
		  unsigned int n, uint32_t off, uint8_t *buf, uint32_t len,
		  bool to_sgl)
{
	for (unsigned int i = 0; i < n && len; i++) {
		uint32_t sl = wren_le32(sge[i].length), piece, key;
		uint64_t va;
		int rc;

		if (off >= sl) {
			off -= sl;
			continue;
		}
		piece = weng_min64(sl - off, len);
		key = wren_le32(sge[i].lkey);
		va = wren_le64(sge[i].addr) + off;
		rc = to_sgl ? weng_mr_write(e, pdn, key, va, buf, piece,
					    WREN_MR_ACCESS_LOCAL_WRITE) :
			      weng_mr_read(e, pdn, key, va, buf, piece, 0);
		if (rc)
			return -1;
		buf += piece;
		len -= piece;
		off = 0;
	}
	return len ? -1 : 0;
}
