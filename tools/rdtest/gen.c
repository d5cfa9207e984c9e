// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The messages of wren_rd_stress: each one's size and payload are a pure
 * function of (seed, sender, receiver, k), so a receiver recomputes what
 * it should have got without being told.  One-sided transactions draw
 * theirs the same way from (seed, writer, window owner, t).
 */
#include <endian.h>
#include <math.h>
#include <string.h>

#include "rdtest.h"

/*
 * Mostly small, with a heavy tail: the mean stays near 1.75 KB at the
 * default --max-size of 1 MiB (see rd_expected_mean()).
 */
const struct rd_class rd_classes[RD_NCLASSES] = {
	{ 0, 0, 1000 },			/* 1% empty */
	{ 1, 256, 89000 },		/* 89% */
	{ 257, 16384, 9000 },		/* 9% */
	{ 16385, 262144, 900 },		/* 0.9% */
	{ 262145, RD_CLASS_MAX, 100 },	/* 0.1%, up to --max-size */
};

#define TAG_SIZE	0x73697a6573697a65ULL	/* "sizesize" */
#define TAG_PATTERN	0x7061747465726e21ULL	/* "pattern!" */
#define TAG_RDMA	0x6f6e652d73696465ULL	/* "one-side" */

uint64_t rd_msg_key(uint64_t seed, unsigned int s, unsigned int d,
		    uint32_t k)
{
	return rd_mix64(rd_mix64(seed) ^ ((uint64_t)(s & 0xffff) << 48 |
				    (uint64_t)(d & 0xffff) << 32 | k));
}

uint64_t rd_rdma_key(uint64_t seed, unsigned int s, unsigned int d,
		     uint32_t t)
{
	return rd_msg_key(seed, s, d, t) ^ TAG_RDMA;
}

void rd_class_range(unsigned int c, uint32_t max_size, uint32_t *lo,
		    uint32_t *hi)
{
	const struct rd_class *cl = &rd_classes[c];

	*lo = cl->lo < max_size ? cl->lo : max_size;
	*hi = cl->hi < max_size ? cl->hi : max_size;
}

uint32_t rd_msg_size(uint64_t key, uint32_t max_size, unsigned int *cls)
{
	uint64_t x = rd_mix64(key ^ TAG_SIZE);
	uint32_t r = (uint32_t)(((x >> 32) * RD_WEIGHT_TOTAL) >> 32);
	uint32_t lo, hi, n;
	unsigned int c;
	double u, v;

	for (c = 0; c < RD_NCLASSES - 1; c++) {
		if (r < rd_classes[c].weight)
			break;
		r -= rd_classes[c].weight;
	}
	if (cls)
		*cls = c;
	rd_class_range(c, max_size, &lo, &hi);
	if (lo == hi)
		return lo;
	/* Log-uniform: floor(lo * ((hi + 1) / lo)^u), u in [0, 1). */
	u = (double)(rd_mix64(x) >> 11) * 0x1.0p-53;
	v = lo * exp(u * log((hi + 1.0) / lo));
	n = v >= hi ? hi : (uint32_t)v;
	return n < lo ? lo : n;
}

/*
 * With P(n) = ln((n+1)/n) / ln((hi+1)/lo) for n in [lo, hi], the sum of
 * n P(n) telescopes to ((hi+1) ln(hi+1) - lo ln(lo) - ln((hi+1)!/lo!))
 * / ln((hi+1)/lo); lgamma gives the factorials.
 */
double rd_class_mean(unsigned int c, uint32_t max_size)
{
	uint32_t lo, hi;
	double l, h;

	rd_class_range(c, max_size, &lo, &hi);
	if (lo == hi)
		return lo;
	l = lo;
	h = hi + 1.0;
	return (h * log(h) - l * log(l) - (lgamma(h + 1) - lgamma(l + 1))) /
	       log(h / l);
}

double rd_expected_mean(uint32_t max_size)
{
	double mean = 0;
	unsigned int c;

	for (c = 0; c < RD_NCLASSES; c++)
		mean += rd_class_mean(c, max_size) * rd_classes[c].weight;
	return mean / RD_WEIGHT_TOTAL;
}

static inline uint64_t xorshift64s(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static inline uint64_t pattern_state(uint64_t key)
{
	return rd_mix64(key ^ TAG_PATTERN) | 1;	/* never the stuck state 0 */
}

void rd_fill(void *buf, uint32_t len, uint64_t key)
{
	uint64_t st = pattern_state(key), w;
	uint8_t *p = buf;
	uint32_t i, words = len / 8;

	for (i = 0; i < words; i++) {
		w = htole64(xorshift64s(&st));
		memcpy(p + 8 * (size_t)i, &w, 8);
	}
	if (len % 8) {
		w = htole64(xorshift64s(&st));
		memcpy(p + 8 * (size_t)words, &w, len % 8);
	}
}

static int first_diff(const uint8_t *got, const uint8_t *want, uint32_t n,
		      uint32_t base, struct rd_mismatch *m)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (got[i] != want[i]) {
			if (m) {
				m->offset = base + i;
				m->got = got[i];
				m->want = want[i];
			}
			return 1;
		}
	}
	return 0;
}

int rd_check(const void *buf, uint32_t len, uint64_t key,
	     struct rd_mismatch *m)
{
	uint64_t st = pattern_state(key), w;
	const uint8_t *p = buf;
	uint32_t i, words = len / 8;

	for (i = 0; i < words; i++) {
		w = htole64(xorshift64s(&st));
		if (memcmp(p + 8 * (size_t)i, &w, 8))
			return first_diff(p + 8 * (size_t)i, (uint8_t *)&w, 8,
					  8 * i, m);
	}
	if (len % 8) {
		w = htole64(xorshift64s(&st));
		return first_diff(p + 8 * (size_t)words, (uint8_t *)&w,
				  len % 8, 8 * words, m);
	}
	return 0;
}

uint64_t rd_gen_digest(uint64_t seed, uint32_t max_size)
{
	uint64_t h = 0x5752445354524553ULL, key, st;
	uint32_t k;

	for (k = 0; k < 1024; k++) {
		key = k % 2 ? rd_rdma_key(seed, k % 3, (k + 1) % 3, k) :
			      rd_msg_key(seed, k % 3, (k + 1) % 3, k);
		st = pattern_state(key);
		h = rd_mix64(h ^ rd_msg_size(key, max_size, NULL));
		h = rd_mix64(h ^ xorshift64s(&st));
	}
	return h;
}
