// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: host memory through memory regions.
 *
 * Every access a work request or an incoming message makes goes through
 * here: the key must name a live region of the same protection domain
 * with the rights the access needs, and the range must lie inside it;
 * then each page is found in the region's page list (in host memory, one
 * to three levels) and accessed with a bounded DMA of its piece only.
 */
#include <errno.h>
#include <string.h>

#include "wren_internal.h"

static_assert(WREN_PBL_PER_PAGE == 1 << 9, "page list entries per page");

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

/* The host address of page @i of @mr, or -EIO with a warning. */
static int mr_page(struct wren_engine *e, const struct wren_mr *mr,
		   uint32_t i, uint64_t *addr)
{
	uint64_t at = mr->pbl_addr, entry;

	/* Down the tree: each level's entry names a 4 KiB page below. */
	for (unsigned int l = pbl_levels(mr->npages) - 1; l; l--) {
		/* Pages per entry: WREN_PBL_PER_PAGE (2^9) to the l. */
		uint64_t span = 1ULL << (9 * l);

		if (e->ops->dma_read(e->opaque, at + 8 * (i / span), &entry, 8))
			goto dma;
		at = wren_le64(entry);
		i %= span;
		if (at & (WREN_PBL_PER_PAGE * 8 - 1)) {
			wren_warn(e, WREN_WRN_DMA, at, WREN_PBL_PER_PAGE * 8);
			return -EIO;
		}
	}
	if (e->ops->dma_read(e->opaque, at + 8ULL * i, &entry, 8))
		goto dma;
	*addr = wren_le64(entry);
	/* A page list entry must be a page. */
	if (*addr & ((1ULL << mr->page_shift) - 1)) {
		wren_warn(e, WREN_WRN_DMA, *addr, 1ULL << mr->page_shift);
		return -EIO;
	}
	return 0;
dma:
	wren_warn(e, WREN_WRN_DMA, at, 8);
	return -EIO;
}

/**
 * wren_mr_walk() - the host memory behind a range of a memory region
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
 * Return: 0; -EACCES if the key, PD, rights or bounds refuse the access;
 * -EIO if the page list is unreadable or @fn failed.
 */
int wren_mr_walk(struct wren_engine *e, uint32_t pdn, uint32_t key,
		 uint64_t va, uint64_t len, uint8_t need,
		 int (*fn)(void *arg, uint64_t addr, uint32_t len), void *arg)
{
	uint32_t n = key >> 8;
	const struct wren_mr *mr;
	uint64_t page_size, first;

	if (!len)
		return 0;
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
		uint32_t piece = min_t64(len, page_size - off);

		if (mr_page(e, mr, (va >> mr->page_shift) - first, &addr) ||
		    (fn && fn(arg, addr + off, piece)))
			return -EIO;
		va += piece;
		len -= piece;
	}
	return 0;
}

struct copy {
	struct wren_engine *e;
	uint8_t *buf;
	bool write;
};

static int copy_piece(void *arg, uint64_t addr, uint32_t len)
{
	struct copy *c = arg;
	int rc = c->write ?
		 c->e->ops->dma_write(c->e->opaque, addr, c->buf, len) :
		 c->e->ops->dma_read(c->e->opaque, addr, c->buf, len);

	if (rc)
		wren_warn(c->e, WREN_WRN_DMA, addr, len);
	c->buf += len;
	return rc;
}

/* Copy @len bytes from a region with @need rights to @buf; 0, -EACCES or -EIO. */
int wren_mr_read(struct wren_engine *e, uint32_t pdn, uint32_t key,
		 uint64_t va, void *buf, uint32_t len, uint8_t need)
{
	struct copy c = { .e = e, .buf = buf };

	return wren_mr_walk(e, pdn, key, va, len, need, copy_piece, &c);
}

/* Copy @len bytes from @buf into a region with @need rights. */
int wren_mr_write(struct wren_engine *e, uint32_t pdn, uint32_t key,
		  uint64_t va, const void *buf, uint32_t len, uint8_t need)
{
	struct copy c = { .e = e, .buf = (uint8_t *)buf, .write = true };

	return wren_mr_walk(e, pdn, key, va, len, need, copy_piece, &c);
}
