// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * SWAP's formats (swap_wire.h): encoding, decoding and the acceptance
 * rules for what a partner says.  Offsets are those of
 * Documentation/swap.rst's tables.
 */
#include <endian.h>
#include <string.h>

#include "swap.h"
#include "swap_wire.h"

static void put16(uint8_t *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

static void put32(uint8_t *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

static void put64(uint8_t *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

static uint16_t get16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

void swap_hdr_put(void *buf, const struct swap_hdr *h)
{
	uint8_t *p = buf;

	memset(p, 0, SWAP_HDR_LEN);
	put16(p, SWAP_HDR_MAGIC);
	p[2] = SWAP_VERSION;
	p[3] = h->type;
	p[4] = h->flags;
	put32(p + 8, h->seq);
	put32(p + 12, h->len);
	put64(p + 16, h->pos);
	put64(p + 24, h->total);
}

int swap_hdr_get(const void *buf, struct swap_hdr *h)
{
	const uint8_t *p = buf;

	if (get16(p) != SWAP_HDR_MAGIC || p[2] != SWAP_VERSION ||
	    p[5] || p[6] || p[7])
		return -1;
	h->type = p[3];
	h->flags = p[4];
	h->seq = get32(p + 8);
	h->len = get32(p + 12);
	h->pos = get64(p + 16);
	h->total = get64(p + 24);
	return 0;
}

/* The block: magic, version, state, pool_released @8, released @16. */
#define FCB_OPEN	1
#define FCB_CLOSED	2

void swap_fcb_init(void *buf)
{
	uint8_t *p = buf;

	memset(p, 0, SWAP_FCB_LEN);
	put32(p, SWAP_FCB_MAGIC);
	p[4] = SWAP_VERSION;
	p[5] = FCB_OPEN;
}

void swap_fcb_set_released(void *buf, uint32_t released)
{
	__atomic_store_n((uint32_t *)((uint8_t *)buf + 16), htobe32(released),
			 __ATOMIC_RELEASE);
}

void swap_fcb_set_pool(void *buf, uint64_t pool_released)
{
	__atomic_store_n((uint64_t *)((uint8_t *)buf + 8),
			 htobe64(pool_released), __ATOMIC_RELEASE);
}

void swap_fcb_set_closed(void *buf)
{
	__atomic_store_n((uint8_t *)buf + 5, (uint8_t)FCB_CLOSED,
			 __ATOMIC_RELEASE);
}

int swap_fcb_get(const void *buf, struct swap_fcb *f)
{
	const uint8_t *p = buf;

	if (get32(p) != SWAP_FCB_MAGIC || p[4] != SWAP_VERSION ||
	    (p[5] != FCB_OPEN && p[5] != FCB_CLOSED))
		return -1;
	f->closed = p[5] == FCB_CLOSED;
	f->pool_released = get64(p + 8);
	f->released = get32(p + 16);
	return 0;
}

void swap_addr_put(void *buf, const struct swap_addr *a)
{
	uint8_t *p = buf;

	memset(p, 0, SWAP_ADDR_LEN);
	put32(p, SWAP_ADDR_MAGIC);
	p[4] = SWAP_VERSION;
	p[5] = a->transport;
	put16(p + 6, a->lid);
	put32(p + 8, a->qpn);
	put32(p + 12, a->id);
	put32(p + 16, a->psn);
	put32(p + 20, a->fcb_rkey);
	memcpy(p + 24, a->gid, 16);
	put64(p + 40, a->fcb_addr);
	put64(p + 48, a->pool_addr);
	put32(p + 56, a->pool_rkey);
	put32(p + 60, a->buf_size);
	put64(p + 64, a->pool_size);
	put32(p + 72, a->buf_count);
	put64(p + 80, a->max_msg_size);
}

int swap_addr_get(const void *buf, size_t len, struct swap_addr *a,
		  const char **why)
{
	const uint8_t *p = buf;

	*why = NULL;
	if (len != SWAP_ADDR_LEN)
		*why = "not the length of a SWAP address";
	else if (get32(p) != SWAP_ADDR_MAGIC)
		*why = "not a SWAP address";
	else if (p[4] != SWAP_VERSION)
		*why = "another version of SWAP";
	if (*why)
		return -1;
	a->transport = p[5];
	a->lid = get16(p + 6);
	a->qpn = get32(p + 8);
	a->id = get32(p + 12);
	a->psn = get32(p + 16);
	a->fcb_rkey = get32(p + 20);
	memcpy(a->gid, p + 24, 16);
	a->fcb_addr = get64(p + 40);
	a->pool_addr = get64(p + 48);
	a->pool_rkey = get32(p + 56);
	a->buf_size = get32(p + 60);
	a->pool_size = get64(p + 64);
	a->buf_count = get32(p + 72);
	a->max_msg_size = get64(p + 80);
	if (a->transport != SWAP_TRANSPORT_RD &&
	    a->transport != SWAP_TRANSPORT_RC)
		*why = "an unknown transport";
	else if (a->qpn == 0 || a->qpn > 0xffffff)
		*why = "a QP number out of range";
	else if (a->buf_size < 1 || a->buf_size > SWAP_BUF_SIZE_MAX)
		*why = "a buffer size out of range";
	else if (a->buf_count < 1 || a->buf_count > SWAP_BUF_COUNT_MAX)
		*why = "a buffer count out of range";
	else if (a->pool_size < SWAP_POOL_ALIGN ||
		 a->pool_size > SWAP_POOL_SIZE_MAX ||
		 a->pool_size % SWAP_POOL_ALIGN)
		*why = "a pool size out of range";
	else if (a->max_msg_size < 1 || a->max_msg_size > SWAP_MSG_SIZE_MAX)
		*why = "a message size limit out of range";
	else if (a->fcb_addr % 8)
		*why = "a misaligned flow-control block";
	return *why ? -1 : 0;
}

const char *swap_fcb_check(const struct swap_fcb *f, uint32_t seen_released,
			   uint32_t sent, uint64_t seen_pool, uint64_t pos)
{
	/* Modulo 2^32: from what we saw, forward, and no further than sent. */
	if ((uint32_t)(f->released - seen_released) >
	    (uint32_t)(sent - seen_released))
		return "released a message count it never received";
	if (f->pool_released < seen_pool)
		return "took back pool space it had released";
	if (f->pool_released > pos)
		return "released pool space never written";
	return NULL;
}

bool swap_pool_place(uint64_t pos, uint64_t pool_size, uint64_t released,
		     uint64_t len, uint64_t *start)
{
	uint64_t off = pos % pool_size, s = pos;

	if (len > pool_size)
		return false;
	if (off + len > pool_size)
		s = pos + (pool_size - off);
	if (s + len - released > pool_size)
		return false;
	*start = s;
	return true;
}

uint64_t swap_pool_next(uint64_t start, uint64_t len)
{
	return (start + len + SWAP_POOL_ALIGN - 1) &
	       ~(uint64_t)(SWAP_POOL_ALIGN - 1);
}

const char *swap_pool_check(uint64_t expect, uint64_t pool_size,
			    uint64_t released, uint64_t start, uint64_t len)
{
	uint64_t off = expect % pool_size;

	if (len == 0)
		return "an empty WRITE-placed piece";
	if (len > pool_size)
		return "a piece larger than the pool";
	if (start == expect) {
		if (off + len > pool_size)
			return "a piece across the pool's end";
	} else if (!(off && off + len > pool_size &&
		     start == expect + (pool_size - off))) {
		return "a piece not where the previous one ended";
	}
	if (start + len - released > pool_size)
		return "a piece in pool space not released";
	return NULL;
}
