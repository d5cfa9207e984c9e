/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fabric's only source of randomness: xoshiro256** seeded through
 * splitmix64 (the same generator as tools/netsim).  Every impairment of
 * every path has a stream of its own, derived from the seed and the
 * stream's number, so one impairment's draws never shift another's.
 */
#ifndef FABRIC_RNG_H
#define FABRIC_RNG_H

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

/* A stateless 64-bit mix, for hashes. */
static inline uint64_t mix64(uint64_t x)
{
	return splitmix64(&x);
}

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
 * True with probability @p.  Draws nothing when @p is 0, so a stream of
 * an impairment that is off stays untouched.
 */
static inline int rng_chance(struct rng *r, double p)
{
	return p > 0 && rng_unit(r) < p;
}

#endif /* FABRIC_RNG_H */
