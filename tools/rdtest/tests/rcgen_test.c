// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The host self-test of wren_rc_stress's operations (rcgen.c): that both
 * ends of a QP draw the same stream, that every WRITE is read back from
 * its own slot before the slot is written again, that the mix and the
 * sizes keep to their bounds, that the atomics' expected old values and
 * the counter's final value are those of an independent model of the
 * counter, and that a SEND's check tells a right one from a repeat, a
 * later one, one of another QP and a wrong byte.  TAP, then "N passed,
 * N failed"; exit 1 if any failed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rcgen.h"
#include "tap.h"

const char *rd_prog = "rcgen_test";

static const struct rc_cfg cfg = {
	.seed = 7,
	.max_size = 65536,
	.max_inline = 64,
	.nslots = 10,
	.ops = 100000,
};

static bool same_op(const struct rc_op *a, const struct rc_op *b)
{
	return a->type == b->type && a->j == b->j && a->len == b->len &&
	       a->nsge == b->nsge && a->slot == b->slot &&
	       a->offset == b->offset && a->wr_api == b->wr_api &&
	       a->imm == b->imm && a->key == b->key && a->arg == b->arg &&
	       a->compare == b->compare && a->old == b->old &&
	       a->swaps == b->swaps;
}

/* The requester's and the responder's draws are one stream. */
static void test_agree(void)
{
	struct rc_stream a, b, other;
	struct rc_op x, y, z;
	uint32_t n = 0, differ = 0;

	rc_stream_init(&a, &cfg, 1, 2, 5);
	rc_stream_init(&b, &cfg, 1, 2, 5);
	rc_stream_init(&other, &cfg, 2, 1, 5);
	while (rc_next(&a, &x)) {
		if (!rc_next(&b, &y) || !same_op(&x, &y))
			break;
		rc_next(&other, &z);
		differ += x.key != z.key;
		n++;
	}
	ok(n == cfg.ops && !rc_next(&b, &y),
	   "both ends draw the same %u operations, then none", n);
	ok(differ == cfg.ops, "the other direction of the QP draws others");
}

/* Sizes, SGEs, slots and immediates keep to their bounds. */
static void test_bounds(void)
{
	uint64_t count[RC_NTYPES] = { 0 }, total = 0;
	uint32_t bad = 0, last_write[16], nwrite = 0, apis = 0;
	struct rc_stream st;
	struct rc_op op, prev = { .type = RC_SEND };
	unsigned int t, i;

	memset(last_write, 0xff, sizeof(last_write));
	rc_stream_init(&st, &cfg, 0, 1, 3);
	while (rc_next(&st, &op)) {
		bool w = op.type == RC_WRITE || op.type == RC_WRITE_IMM;

		count[op.type]++;
		total++;
		apis += op.wr_api;
		if (op.len > cfg.max_size || op.nsge > RC_MAX_SGE ||
		    (op.len && !op.nsge) || op.nsge > op.len ||
		    (op.type == RC_SEND_INLINE && op.len > cfg.max_inline))
			bad |= 1;
		if (op.type == RC_READ && op.offset + op.len > cfg.max_size)
			bad |= 2;
		if (rc_is_atomic(op.type) && (op.len != 8 || op.nsge != 1))
			bad |= 4;
		/* A READBACK right after every WRITE, of the same bytes. */
		if ((prev.type == RC_WRITE || prev.type == RC_WRITE_IMM) !=
		    (op.type == RC_READBACK))
			bad |= 8;
		if (op.type == RC_READBACK &&
		    (op.slot != prev.slot || op.len != prev.len ||
		     op.key != prev.key))
			bad |= 16;
		if (w && op.slot != op.j % cfg.nslots)
			bad |= 32;
		/* A slot is written again nslots operations later at least. */
		if (w) {
			if (last_write[op.slot] != ~0U &&
			    op.j - last_write[op.slot] < cfg.nslots)
				bad |= 64;
			last_write[op.slot] = op.j;
			nwrite++;
		}
		if ((op.type == RC_SEND_IMM || op.type == RC_WRITE_IMM) &&
		    op.imm != (3U << 24 | op.j))
			bad |= 128;
		prev = op;
	}
	ok(!(bad & 1), "sizes within --max-size and inline, 1 to %u SGEs, "
	   "none for an empty operation", RC_MAX_SGE);
	ok(!(bad & 2), "READs within the read source");
	ok(!(bad & 4), "atomics move 8 bytes in one SGE");
	ok(!(bad & 24), "every WRITE is read back next, slot and bytes");
	ok(!(bad & 96) && nwrite > 1000, "WRITEs go round their %u slots, "
	   "none written again sooner (%u WRITEs)", cfg.nslots, nwrite);
	ok(!(bad & 128), "immediates are q << 24 | j");
	ok(prev.type != RC_WRITE && prev.type != RC_WRITE_IMM,
	   "the last operation is no WRITE (it would not be read back)");
	for (t = 0, i = 0; t < RC_NTYPES; t++)
		i += count[t] > total / 40;
	ok(i == RC_NTYPES, "every kind of operation is 2.5%% or more of %"
	   PRIu64, total);
	ok(apis > total * 45 / 100 && apis < total * 55 / 100,
	   "about half go through ibv_wr_* (%u of %" PRIu64 ")", apis, total);
}

/* The counter the responder keeps, modelled apart from rcgen.c. */
static void test_atomics(void)
{
	struct rc_stream st;
	struct rc_op op;
	struct rc_totals t;
	uint64_t counter = rc_counter_init(cfg.seed, 2, 0, 9);
	uint32_t wrong = 0, swaps = 0, fails = 0, consumed = 0, shared = 0;
	uint64_t added = 0;

	rc_stream_init(&st, &cfg, 2, 0, 9);
	while (rc_next(&st, &op)) {
		consumed += rc_consumes(op.type);
		if (op.type == RC_FADD_SHARED) {
			added += op.arg;
			shared++;
		} else if (op.type == RC_FADD) {
			wrong += op.old != counter;
			counter += op.arg;
		} else if (op.type == RC_CSWAP) {
			wrong += op.old != counter;
			wrong += op.swaps != (op.compare == counter);
			if (op.compare == counter) {
				counter = op.arg;
				swaps++;
			} else {
				fails++;
			}
		}
	}
	ok(!wrong, "every atomic expects the counter's value so far");
	ok(swaps > 1000 && fails > 1000, "CMP_AND_SWPs both swap (%u) and "
	   "fail (%u)", swaps, fails);
	rc_totals(&cfg, 2, 0, 9, &t);
	ok(t.counter == counter && t.consumed == consumed,
	   "the totals: the counter's final value, %u arrivals", consumed);
	ok(t.shared == added && shared > 1000, "the totals: what %u shared "
	   "FETCH_AND_ADDs add", shared);
	ok(rc_shared_init(cfg.seed, 0) != rc_shared_init(cfg.seed, 1),
	   "each participant's shared counter starts elsewhere");
	ok(rc_counter_init(cfg.seed, 2, 0, 9) !=
	   rc_counter_init(cfg.seed, 2, 0, 8), "each QP's counter starts "
	   "elsewhere");
}

static void test_psn(void)
{
	uint32_t bad = 0, q;

	for (q = 0; q < 64; q++) {
		uint32_t psn = rc_psn(cfg.seed, 1, 2, q);

		if (psn > 0xffffffU || (q % 2 && psn < 0xffffffU - 511))
			bad++;
	}
	ok(!bad, "start PSNs are 24 bits; odd QPs cross the wrap");
}

static void test_send_check(void)
{
	struct rc_stream st;
	struct rc_op op, later, small = { 0 };
	struct rd_mismatch m;
	uint8_t buf[65536], copy[65536];
	uint32_t got_j;
	bool good = true;
	unsigned int n = 0;

	rc_stream_init(&st, &cfg, 4, 1, 6);
	do
		rc_next(&st, &op);
	while (op.type != RC_SEND || op.len < 100);
	do
		rc_next(&st, &later);
	while (later.type != RC_SEND || later.len < 100);
	rc_fill_send(buf, &op, 4, 6);
	ok(!rc_check_send(buf, op.len, &op, 4, 6, &got_j, &m),
	   "a SEND's bytes check (%u bytes)", op.len);
	memcpy(copy, buf, op.len);
	copy[op.len - 1] ^= 0x10;
	ok(rc_check_send(copy, op.len, &op, 4, 6, &got_j, &m) &&
	   got_j == op.j && m.offset == op.len - 1,
	   "a wrong last byte is found at its offset");
	ok(rc_check_send(buf, op.len - 1, &op, 4, 6, &got_j, &m),
	   "a short SEND is wrong");
	rc_fill_send(copy, &later, 4, 6);
	ok(rc_check_send(copy, later.len, &op, 4, 6, &got_j, &m) &&
	   got_j == later.j, "a later SEND says which it is (%u)", later.j);
	ok(rc_check_send(buf, op.len, &later, 4, 6, &got_j, &m) &&
	   got_j == op.j && got_j < later.j,
	   "an earlier one (a repeat) says which it is");
	ok(rc_check_send(buf, op.len, &op, 4, 7, &got_j, &m) &&
	   got_j == ~0U, "one of another QP names none");
	ok(rc_check_send(buf, op.len, &op, 3, 6, &got_j, &m) &&
	   got_j == ~0U, "one of another sender names none");
	/* Below RC_HDR bytes there is no header: the pattern alone. */
	for (small.len = 0; small.len < RC_HDR; small.len++) {
		small.key = 0x1234 + small.len;
		rc_fill_send(buf, &small, 4, 6);
		good &= !rc_check_send(buf, small.len, &small, 4, 6, &got_j,
				       &m);
		if (small.len) {
			buf[0] ^= 1;
			good &= rc_check_send(buf, small.len, &small, 4, 6,
					      &got_j, &m) == 1;
		}
		n++;
	}
	ok(good, "SENDs of 0 to %u bytes check, and a wrong byte in them "
	   "is found", n - 1);
}

int main(void)
{
	test_agree();
	test_bounds();
	test_atomics();
	test_psn();
	test_send_check();
	return tap_done();
}
