/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tools' source of randomness (tools/netsim, tools/fabric):
 * xoshiro256** seeded through splitmix64.  Every stream derives from a
 * seed and a stream number, so a seed names one run exactly and one
 * stream's draws never shift another's.
 */
#ifndef WREN_TOOLS_RNG_H
#define WREN_TOOLS_RNG_H

#include <stdint.h>

struct rng {
	uint64_t s[4];
};

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A stateless 64-bit mix: hashes, payload patterns. */
static inline uint64_t mix64(uint64_t x)
{
	return splitmix64(&x);
}

/* Stream @stream of @seed. */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ mix64(stream + 0x5752);
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl64(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl64(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl64(s[3], 45);
	return res;
}

/* Uniform in [0, 1). */
static inline double rng_unit(struct rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/*
 * True with probability @p; draws nothing when @p is 0 so that enabling
 * one impairment does not perturb the streams of runs without it.
 */
static inline int rng_chance(struct rng *r, double p)
{
	return p > 0 && rng_unit(r) < p;
}

/* Uniform in [0, n). */
static inline uint32_t rng_below(struct rng *r, uint32_t n)
{
	return (uint32_t)(((rng_next(r) >> 32) * n) >> 32);
}

#endif /* WREN_TOOLS_RNG_H */
