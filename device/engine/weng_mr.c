// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: memory regions, and host memory through them.
 *
 * Every access a work request or an incoming message makes goes through
 * here: the key must name a live region of the same protection domain
 * with the rights the access needs, and the range must lie inside it;
 * then each page is found in the region's page list (in host memory, one
 * to three levels) and accessed with a bounded DMA of its piece only.
 *
 * A fast-register region (WREN_MR_FLAG_FAST) has a page list of one
 * level and no pages until a send entry registers it (weng_mr_fast_reg());
 * until then, and once invalidated again, it refuses every access as a
 * bad key does.
 *
 * Keys (wren_if.h, REG_MR): a region has an lkey, for its local accesses
 * and the commands that name it, and a different rkey, for remote ones.
 * Each is its number in the low bits of the top 24 and random bits above
 * them, then the driver's 8-bit tag; regions are taken round-robin, so a
 * freed number is not given again before every other one was, and its
 * new keys differ in their random bits from the old ones.
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
	e->mr_next = 0;
}

/* Bits of a key's top 24 that hold the region's number. */
static unsigned int mr_index_bits(const struct weng *e)
{
	unsigned int bits = 0;

	while (bits < 24 && e->cfg.max_mr > 1U << bits)
		bits++;
	return bits;
}

/*
 * Random bits: the host's, mixed with a generator of the engine's own
 * (xorshift32), which alone serves a host without randomness and keeps
 * two draws apart even if the host's repeat.
 */
static uint32_t mr_random(struct weng *e)
{
	if (!e->mr_rand)
		e->mr_rand = 0x9e3779b9;
	e->mr_rand ^= e->mr_rand << 13;
	e->mr_rand ^= e->mr_rand >> 17;
	e->mr_rand ^= e->mr_rand << 5;
	return e->mr_rand ^
	       (e->ops->host.random ? e->ops->host.random(e->opaque) : 0);
}

/**
 * weng_mr_key() - a new key of region @n
 * @e: the engine
 * @n: the region's number
 * @tag: the driver's tag, the low 8 bits
 * @other: the region's other key, which this one must differ from (0:
 *	none yet)
 *
 * Return: (random << index bits | @n) << 8 | @tag, never WREN_LKEY_DMA;
 * it equals @other only when the number leaves no random bit.
 */
uint32_t weng_mr_key(struct weng *e, uint32_t n, uint8_t tag, uint32_t other)
{
	unsigned int bits = mr_index_bits(e);
	uint32_t key;

	for (;;) {
		uint32_t stem = (mr_random(e) << bits | n) & 0xffffff;

		key = stem << 8 | tag;
		if (key != WREN_LKEY_DMA && (key != other || bits == 24))
			return key;
	}
}

/* The region a key's number names, if it is in range. */
static struct weng_mr *mr_of_number(struct weng *e, uint32_t key)
{
	uint32_t n = key >> 8 & ((1U << mr_index_bits(e)) - 1);

	return n < e->cfg.max_mr ? &e->mrs[n] : NULL;
}

/**
 * weng_mr_alloc() - a free region for REG_MR, round-robin
 * @e: the engine
 *
 * Return: the region, zeroed, or NULL if none is free.
 */
struct weng_mr *weng_mr_alloc(struct weng *e)
{
	for (uint32_t i = 0; i < e->cfg.max_mr; i++) {
		uint32_t n = (e->mr_next + i) % e->cfg.max_mr;

		if (!e->mrs[n].in_use) {
			e->mr_next = (n + 1) % e->cfg.max_mr;
			return &e->mrs[n];
		}
	}
	return NULL;
}

/**
 * weng_mr_check() - the values of a region, checked as REG_MR checks them
 * @e: the engine
 * @iova: the address of the region's first byte
 * @len: its length in bytes
 * @pbl: the address of its page list
 * @npages: its pages
 * @page_shift: log2 of their size
 * @access: WREN_MR_ACCESS_*
 *
 * Shared by REG_MR, REREG_MR and the send entry that registers a
 * fast-register region, so that the three refuse the same values.
 *
 * Return: WENG_MR_OK, or the first value refused.
 */
enum weng_mr_bad weng_mr_check(const struct weng *e, uint64_t iova,
				uint64_t len, uint64_t pbl, uint32_t npages,
				uint8_t page_shift, uint8_t access)
{
	uint8_t access_all = WREN_MR_ACCESS_LOCAL_WRITE |
			     WREN_MR_ACCESS_REMOTE_WRITE |
			     WREN_MR_ACCESS_REMOTE_READ |
			     WREN_MR_ACCESS_REMOTE_ATOMIC;
	uint8_t needs_local = WREN_MR_ACCESS_REMOTE_WRITE |
			      WREN_MR_ACCESS_REMOTE_ATOMIC;

	if (page_shift >= 64 || !(e->cfg.page_size_cap & (1ULL << page_shift)))
		return WENG_MR_BAD_PAGE_SHIFT;
	if (!len || len > e->cfg.max_mr_size || iova + len < iova)
		return WENG_MR_BAD_LENGTH;
	/* The pages must cover the region exactly. */
	if (!npages || npages > WREN_PBL_MAX_PAGES ||
	    ((iova + len - 1) >> page_shift) - (iova >> page_shift) + 1 !=
	    npages)
		return WENG_MR_BAD_NPAGES;
	if (!pbl || pbl % 8)
		return WENG_MR_BAD_PBL;
	/* Remote writes and atomics need local write too, as in the verbs. */
	if (access & ~access_all ||
	    (access & needs_local && !(access & WREN_MR_ACCESS_LOCAL_WRITE)))
		return WENG_MR_BAD_ACCESS;
	return WENG_MR_OK;
}

/*
 * Make @mr, free, a fast-register region of PD @pdn: invalid, with room
 * for @max_pages pages in the one-level list at @pbl.  The caller has
 * checked the values and sets the key's tag.
 */
void weng_mr_fast_init(struct weng *e, struct weng_mr *mr, uint32_t pdn,
		       uint64_t pbl, uint32_t max_pages)
{
	memset(mr, 0, sizeof(*mr));
	mr->in_use = true;
	mr->fast = true;
	mr->pdn = pdn;
	mr->pbl_addr = pbl;
	mr->max_pages = max_pages;
	e->pd_refs[pdn]++;
}

/*
 * The region whose lkey (@remote false) or rkey (@remote true) is @key,
 * valid or not; NULL if there is none: a stale key is none.
 */
static struct weng_mr *mr_of_key(struct weng *e, uint32_t key, bool remote)
{
	struct weng_mr *mr = mr_of_number(e, key);

	if (!mr || !mr->in_use || key != (remote ? mr->rkey : mr->lkey))
		return NULL;
	return mr;
}

/* The region whose lkey is @lkey: how commands name a region. */
struct weng_mr *weng_mr_of_lkey(struct weng *e, uint32_t lkey)
{
	return mr_of_key(e, lkey, false);
}

/*
 * The fast-register region of PD @pdn whose current rkey is @key, or,
 * unless @remote (a SEND_INV that arrived names the rkey), its lkey (a
 * local invalidation names either); valid or not; NULL if none.
 */
struct weng_mr *weng_mr_fast_of_key(struct weng *e, uint32_t pdn,
				    uint32_t key, bool remote)
{
	struct weng_mr *mr = mr_of_key(e, key, true);

	if (!mr && !remote)
		mr = mr_of_key(e, key, false);

	return mr && mr->fast && mr->pdn == pdn ? mr : NULL;
}

/**
 * weng_mr_fast_reg() - a send entry registers a fast-register region
 * @e: the engine
 * @pdn: the PD of the QP that posted it
 * @key: one of the region's keys with its new tag in the low 8 bits
 * @iova: as REG_MR takes them
 * @len: the same
 * @npages: the same, at most the region's capacity
 * @page_shift: the same
 * @access: the same
 *
 * The region must be an invalid fast-register one of @pdn; the top 24
 * bits of @key name it, its lkey's or its rkey's, since the tag is the
 * new one, which both keys take.  The page list is the one REG_MR gave
 * it, which the driver has filled in.
 *
 * Return: 0 with the region valid under @key; else the entry's completion
 * status, LOC_PROT_ERR (the region, its PD or its state) or LOC_QP_OP_ERR
 * (a value), and the region is untouched.
 */
uint8_t weng_mr_fast_reg(struct weng *e, uint32_t pdn, uint32_t key,
			 uint64_t iova, uint64_t len, uint32_t npages,
			 uint8_t page_shift, uint8_t access)
{
	struct weng_mr *mr = mr_of_number(e, key);

	if (!mr || !mr->in_use || !mr->fast || mr->pdn != pdn || mr->valid ||
	    (key >> 8 != mr->lkey >> 8 && key >> 8 != mr->rkey >> 8))
		return WREN_CQE_LOC_PROT_ERR;
	if (npages > mr->max_pages ||
	    weng_mr_check(e, iova, len, mr->pbl_addr, npages, page_shift,
			  access) != WENG_MR_OK)
		return WREN_CQE_LOC_QP_OP_ERR;
	mr->valid = true;
	mr->lkey = (mr->lkey & ~0xffU) | (key & 0xff);
	mr->rkey = (mr->rkey & ~0xffU) | (key & 0xff);
	mr->iova = iova;
	mr->length = len;
	mr->npages = npages;
	mr->page_shift = page_shift;
	mr->access = access;
	return 0;
}

/*
 * Invalidate the fast-register region of PD @pdn whose key is @key: a
 * LOCAL_INV names either key, a SEND_INV that arrived (@remote) its rkey.
 * One invalid already stays so.  0, or -EACCES if @key names no such
 * region.
 */
int weng_mr_invalidate(struct weng *e, uint32_t pdn, uint32_t key,
		       bool remote)
{
	struct weng_mr *mr = weng_mr_fast_of_key(e, pdn, key, remote);

	if (!mr)
		return -EACCES;
	mr->valid = false;
	return 0;
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
 * @key is the region's rkey for an access that needs a remote right, its
 * lkey for any other; it may be WREN_LKEY_DMA on a kernel PD, for local
 * accesses.
 *
 * Return: 0; -EACCES if the key, PD, rights or bounds refuse the access;
 * -EIO if the page list is unreadable or @fn failed.
 */
int weng_mr_walk(struct weng *e, uint32_t pdn, uint32_t key,
		 uint64_t va, uint64_t len, uint8_t need,
		 int (*fn)(void *arg, uint64_t addr, uint32_t len), void *arg)
{
	const struct weng_mr *mr;
	uint64_t page_size, first;

	if (!len)
		return 0;
	if (key == WREN_LKEY_DMA)
		return dma_walk(e, pdn, va, len, need, fn, arg);
	mr = mr_of_key(e, key, need & (WREN_MR_ACCESS_REMOTE_READ |
				       WREN_MR_ACCESS_REMOTE_WRITE |
				       WREN_MR_ACCESS_REMOTE_ATOMIC));
	if (!mr || !mr->valid || mr->pdn != pdn ||
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
