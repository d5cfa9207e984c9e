/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The operations of wren_rc_stress (rc.c): every RC QP between two
 * participants carries two streams, one each way, and the j-th operation
 * of the stream from s to d on QP q is a pure function of (seed, s, d, q,
 * j) and of the operations before it.  The requester draws it to post
 * it; the responder draws the same stream to know which arrival comes
 * next and what it holds; the owner of the atomic counter draws it to
 * know the counter's final value.  No device needed: tests/selftest.c
 * checks all of it on the host.
 */
#ifndef WREN_RDTEST_RCGEN_H
#define WREN_RDTEST_RCGEN_H

#include <stdbool.h>
#include <stdint.h>

#include "rdtest.h"

enum rc_op_type {
	RC_SEND,
	RC_SEND_IMM,
	RC_SEND_INLINE,
	RC_WRITE,
	RC_WRITE_IMM,
	RC_READBACK,		/* reads back the WRITE just before */
	RC_READ,		/* of the responder's read source */
	RC_FADD,
	RC_CSWAP,
	RC_FADD_SHARED,		/* on the responder's counter for everybody */
	RC_NTYPES,
};

extern const char *const rc_op_name[RC_NTYPES];

/* Local SGEs of an operation at most (an atomic's is always one). */
#define RC_MAX_SGE		3
/* A SEND of this many bytes or more starts with its place (j, s, q). */
#define RC_HDR			8
/* The 8-bit QP number in an immediate, over the 24-bit j. */
#define RC_MAX_QPS		256
#define RC_MAX_OPS		(1U << 24)

struct rc_cfg {
	uint64_t seed;
	uint32_t max_size;	/* of any operation */
	uint32_t max_inline;	/* of an inline SEND */
	uint32_t nslots;	/* write slots per QP at the responder */
	uint32_t ops;		/* operations per stream */
};

struct rc_op {
	enum rc_op_type type;
	uint32_t j;
	uint32_t len;		/* bytes moved; 8 for an atomic */
	uint32_t nsge;		/* local SGEs: 0 for an empty operation */
	uint32_t slot;		/* WRITE*, READBACK: the slot at the responder */
	uint32_t offset;	/* READ: into the responder's read source */
	bool wr_api;		/* ibv_wr_*, else ibv_post_send */
	uint32_t imm;		/* SEND_IMM, WRITE_IMM: host order */
	uint64_t key;		/* the payload's (a READBACK: the WRITE's) */
	uint64_t arg;		/* FADD: the addend; CSWAP: the swap value */
	uint64_t compare;	/* CSWAP */
	uint64_t old;		/* atomics: the counter's value they find */
	bool swaps;		/* CSWAP: compare matches the counter */
};

/* One direction of one QP: the draws so far. */
struct rc_stream {
	struct rc_cfg cfg;
	unsigned int s, d, q;
	uint32_t j;		/* the next operation */
	uint64_t counter;	/* the atomic counter after operation j - 1 */
	struct rc_op prev;
};

void rc_stream_init(struct rc_stream *st, const struct rc_cfg *cfg,
		    unsigned int s, unsigned int d, unsigned int q);
/* Operation st->j into @op, and past it; false once all ops are drawn. */
bool rc_next(struct rc_stream *st, struct rc_op *op);
/* Does @t take a receive at the responder? */
bool rc_consumes(enum rc_op_type t);
/* Is @t an 8-byte atomic? */
bool rc_is_atomic(enum rc_op_type t);
/* The counter's value before the first atomic of the stream. */
uint64_t rc_counter_init(uint64_t seed, unsigned int s, unsigned int d,
			 unsigned int q);
/*
 * The value @d's shared counter starts at: every participant's
 * FETCH_AND_ADDs on every QP to @d add to it at once, so only its final
 * value tells (that no addend was lost to another's).
 */
uint64_t rc_shared_init(uint64_t seed, unsigned int d);
/* The 24-bit start PSN of the stream's QP at s. */
uint32_t rc_psn(uint64_t seed, unsigned int s, unsigned int d,
		unsigned int q);
/* The responder's read source: @len bytes of owner @d's pattern. */
uint64_t rc_source_key(uint64_t seed, unsigned int d);

/* What a whole stream comes to, drawn to its end. */
struct rc_totals {
	uint32_t consumed;	/* operations that take a receive */
	uint64_t counter;	/* the atomic counter's final value */
	uint64_t shared;	/* what the stream adds to the shared one */
	uint64_t count[RC_NTYPES];
};

void rc_totals(const struct rc_cfg *cfg, unsigned int s, unsigned int d,
	       unsigned int q, struct rc_totals *t);

/*
 * A SEND's bytes: its place (j, s, q) in the first RC_HDR bytes when it
 * has room, the pattern of its key after.
 */
void rc_fill_send(void *buf, const struct rc_op *op, unsigned int s,
		  unsigned int q);
/*
 * Check an arrival against the SEND @op expected: 0 if it is that SEND.
 * Else 1, with the j it says it is in *@got_j when the header names the
 * right sender and QP (a duplicate or a later SEND), ~0 otherwise, and
 * the first wrong byte in *@m.
 */
int rc_check_send(const void *buf, uint32_t len, const struct rc_op *op,
		  unsigned int s, unsigned int q, uint32_t *got_j,
		  struct rd_mismatch *m);

#endif /* WREN_RDTEST_RCGEN_H */
