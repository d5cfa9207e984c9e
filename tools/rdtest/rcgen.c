// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The operations of wren_rc_stress (rcgen.h): which one comes j-th on a
 * QP, its size, its bytes, and what an atomic must find.  Everything is
 * drawn from keys of (seed, s, d, q, j), so that the two ends of a QP,
 * and the owner of an atomic counter, agree without being told.
 */
#include <endian.h>
#include <string.h>

#include "rcgen.h"

#define TAG_RC		0x72632d7374726d21ULL	/* "rc-strm!" */
#define TAG_OP		0x6f702d6b696e6421ULL	/* "op-kind!" */
#define TAG_COUNTER	0x636f756e74657221ULL	/* "counter!" */
#define TAG_PSN		0x70736e2d73746172ULL	/* "psn-star" */
#define TAG_SOURCE	0x72642d736f757263ULL	/* "rd-sourc" */

const char *const rc_op_name[RC_NTYPES] = {
	[RC_SEND] = "SEND",
	[RC_SEND_IMM] = "SEND_WITH_IMM",
	[RC_SEND_INLINE] = "inline SEND",
	[RC_WRITE] = "RDMA WRITE",
	[RC_WRITE_IMM] = "RDMA WRITE_WITH_IMM",
	[RC_READBACK] = "RDMA READ (back)",
	[RC_READ] = "RDMA READ",
	[RC_FADD] = "FETCH_AND_ADD",
	[RC_CSWAP] = "CMP_AND_SWP",
	[RC_FADD_SHARED] = "FETCH_AND_ADD (shared)",
};

/*
 * The mix, per mille: a READBACK follows every WRITE on top, so about a
 * fifth of the work requests are WRITEs and as many READs.
 */
static const struct {
	enum rc_op_type type;
	uint32_t weight;
} mix[] = {
	{ RC_SEND, 160 },
	{ RC_SEND_IMM, 150 },
	{ RC_SEND_INLINE, 100 },
	{ RC_WRITE, 130 },
	{ RC_WRITE_IMM, 90 },
	{ RC_READ, 150 },
	{ RC_FADD, 100 },
	{ RC_CSWAP, 80 },
	{ RC_FADD_SHARED, 40 },
};

static uint64_t stream_seed(uint64_t seed, unsigned int q)
{
	return seed ^ rd_mix64(TAG_RC + q);
}

uint64_t rc_counter_init(uint64_t seed, unsigned int s, unsigned int d,
			 unsigned int q)
{
	return rd_mix64(rd_msg_key(stream_seed(seed, q), s, d, 0) ^
			TAG_COUNTER);
}

uint64_t rc_shared_init(uint64_t seed, unsigned int d)
{
	return rd_mix64(rc_source_key(seed, d) ^ TAG_COUNTER);
}

uint32_t rc_psn(uint64_t seed, unsigned int s, unsigned int d,
		unsigned int q)
{
	uint64_t x = rd_mix64(rd_msg_key(stream_seed(seed, q), s, d, 0) ^
			      TAG_PSN);

	/* Every other QP starts just short of the wrap, to cross it. */
	if (q % 2)
		return 0xffffffU - (uint32_t)(x % 512);
	return (uint32_t)x & 0xffffffU;
}

uint64_t rc_source_key(uint64_t seed, unsigned int d)
{
	return rd_msg_key(seed, d, d, 0) ^ TAG_SOURCE;
}

void rc_stream_init(struct rc_stream *st, const struct rc_cfg *cfg,
		    unsigned int s, unsigned int d, unsigned int q)
{
	memset(st, 0, sizeof(*st));
	st->cfg = *cfg;
	st->s = s;
	st->d = d;
	st->q = q;
	st->counter = rc_counter_init(cfg->seed, s, d, q);
	st->prev.type = RC_SEND;
}

bool rc_consumes(enum rc_op_type t)
{
	return t == RC_SEND || t == RC_SEND_IMM || t == RC_SEND_INLINE ||
	       t == RC_WRITE_IMM;
}

bool rc_is_atomic(enum rc_op_type t)
{
	return t == RC_FADD || t == RC_CSWAP || t == RC_FADD_SHARED;
}

static bool is_write(enum rc_op_type t)
{
	return t == RC_WRITE || t == RC_WRITE_IMM;
}

static enum rc_op_type draw_type(uint64_t x)
{
	uint32_t r = (uint32_t)(x % 1000), i;

	for (i = 0; i < sizeof(mix) / sizeof(mix[0]) - 1; i++) {
		if (r < mix[i].weight)
			break;
		r -= mix[i].weight;
	}
	return mix[i].type;
}

/* Up to RC_MAX_SGE pieces (@max at most), never an empty one. */
static uint32_t draw_nsge(uint64_t x, uint32_t len, uint32_t max)
{
	uint32_t n = 1 + (uint32_t)((x >> 40) % max);

	if (!len)
		return 0;
	return n < len ? n : len;
}

bool rc_next(struct rc_stream *st, struct rc_op *op)
{
	const struct rc_cfg *c = &st->cfg;
	uint64_t key, x, y;

	if (st->j >= c->ops)
		return false;
	key = rd_msg_key(stream_seed(c->seed, st->q), st->s, st->d, st->j);
	x = rd_mix64(key ^ TAG_OP);
	y = rd_mix64(x);
	memset(op, 0, sizeof(*op));
	op->j = st->j;
	op->key = key;
	op->wr_api = (x >> 50) & 1;
	if (is_write(st->prev.type) && st->prev.j + 1 == st->j) {
		/* RC executes it after the WRITE: it must see those bytes. */
		op->type = RC_READBACK;
		op->len = st->prev.len;
		op->slot = st->prev.slot;
		op->key = st->prev.key;
	} else {
		op->type = draw_type(y);
		/* The last one has no READ after it: no WRITE then. */
		if (is_write(op->type) && st->j + 1 == c->ops)
			op->type = RC_SEND;
	}
	switch (op->type) {
	case RC_SEND:
	case RC_SEND_IMM:
	case RC_WRITE:
	case RC_WRITE_IMM:
		op->len = rd_msg_size(key, c->max_size, NULL);
		op->slot = st->j % c->nslots;
		break;
	case RC_SEND_INLINE:
		op->len = rd_msg_size(key, c->max_inline, NULL);
		break;
	case RC_READ:
		op->len = rd_msg_size(key, c->max_size, NULL);
		op->offset = (uint32_t)(y % (c->max_size - op->len + 1ULL));
		break;
	case RC_FADD:
		op->len = 8;
		op->arg = rd_mix64(y);
		op->old = st->counter;
		st->counter += op->arg;
		break;
	case RC_CSWAP:
		op->len = 8;
		op->arg = rd_mix64(y);
		op->old = st->counter;
		op->swaps = (x >> 52) & 1;
		/* A compare that fails differs from the counter somewhere. */
		op->compare = op->swaps ? st->counter :
					  st->counter ^ (rd_mix64(op->arg) | 1);
		if (op->swaps)
			st->counter = op->arg;
		break;
	case RC_FADD_SHARED:
		/* Its old value depends on the others': none expected. */
		op->len = 8;
		op->arg = rd_mix64(y);
		break;
	case RC_READBACK:
	case RC_NTYPES:
		break;
	}
	if (op->type == RC_SEND_IMM || op->type == RC_WRITE_IMM)
		op->imm = (uint32_t)st->q << 24 | (st->j & 0xffffffU);
	op->nsge = rc_is_atomic(op->type) ? 1 :
		   draw_nsge(x, op->len, op->type == RC_SEND_INLINE ? 2 :
							     RC_MAX_SGE);
	st->prev = *op;
	st->j++;
	return true;
}

void rc_totals(const struct rc_cfg *cfg, unsigned int s, unsigned int d,
	       unsigned int q, struct rc_totals *t)
{
	struct rc_stream st;
	struct rc_op op;

	memset(t, 0, sizeof(*t));
	rc_stream_init(&st, cfg, s, d, q);
	while (rc_next(&st, &op)) {
		t->count[op.type]++;
		t->consumed += rc_consumes(op.type);
		if (op.type == RC_FADD_SHARED)
			t->shared += op.arg;
	}
	t->counter = st.counter;
}

static void put_hdr(uint8_t *p, uint32_t j, unsigned int s, unsigned int q)
{
	uint32_t w = htole32(j);
	uint16_t h;

	memcpy(p, &w, 4);
	h = htole16((uint16_t)s);
	memcpy(p + 4, &h, 2);
	h = htole16((uint16_t)q);
	memcpy(p + 6, &h, 2);
}

void rc_fill_send(void *buf, const struct rc_op *op, unsigned int s,
		  unsigned int q)
{
	uint8_t *p = buf;

	if (op->len < RC_HDR) {
		rd_fill(p, op->len, op->key);
		return;
	}
	put_hdr(p, op->j, s, q);
	rd_fill(p + RC_HDR, op->len - RC_HDR, op->key);
}

int rc_check_send(const void *buf, uint32_t len, const struct rc_op *op,
		  unsigned int s, unsigned int q, uint32_t *got_j,
		  struct rd_mismatch *m)
{
	const uint8_t *p = buf;
	int ret;

	*got_j = op->j;
	if (len >= RC_HDR) {
		uint32_t j;
		uint16_t hs, hq;

		memcpy(&j, p, 4);
		memcpy(&hs, p + 4, 2);
		memcpy(&hq, p + 6, 2);
		*got_j = le16toh(hs) == s && le16toh(hq) == q ? le32toh(j) :
								~0U;
	}
	if (len != op->len || *got_j != op->j) {
		m->offset = 0;
		m->got = m->want = 0;
		return 1;
	}
	if (len < RC_HDR)
		return rd_check(p, len, op->key, m);
	/* The header named the right j, sender and QP: it is right. */
	ret = rd_check(p + RC_HDR, len - RC_HDR, op->key, m);
	if (ret)
		m->offset += RC_HDR;
	return ret;
}
