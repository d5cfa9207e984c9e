// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: ring and phase-bit arithmetic.  The indices are free running
 * (modulo 2^16 for the admin rings), the phase of an entry is 1 on the
 * ring's first lap and alternates; an empty ring, a full ring and a wrap
 * of the index must all read right.
 */
#include <kunit/test.h>

#include "wren_kunit_dev.h"

static void wren_ring_phase_alternates(struct kunit *test)
{
	unsigned int log;
	u32 i;

	for (log = 0; log <= 12; log++) {
		for (i = 0; i < 4U << log; i++)
			KUNIT_EXPECT_EQ_MSG(test, wren_ring_phase(i, log),
					    (i >> log) % 2 ? 0 : 1,
					    "index %u, depth 2^%u", i, log);
	}
}

static void wren_ring_phase_survives_index_wrap(struct kunit *test)
{
	/* 2^16 is a multiple of twice any depth: the lap parity carries on. */
	KUNIT_EXPECT_EQ(test, wren_ring_phase(U16_MAX, 5), 0);
	KUNIT_EXPECT_EQ(test, wren_ring_phase((u16)(U16_MAX + 1), 5), 1);
	KUNIT_EXPECT_EQ(test, wren_ring_phase(U32_MAX, 8), 0);
	KUNIT_EXPECT_EQ(test, wren_ring_phase(0, 8), 1);
}

static void wren_ring_ready_reads_only_the_phase_flag(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, wren_ring_ready(0x01, 0x01, 0, 4));
	KUNIT_EXPECT_FALSE(test, wren_ring_ready(0x00, 0x01, 0, 4));
	KUNIT_EXPECT_TRUE(test, wren_ring_ready(0xfe, 0x01, 16, 4));
	KUNIT_EXPECT_FALSE(test, wren_ring_ready(0xff, 0x01, 16, 4));
	/* Last entry of the second lap, first of the third. */
	KUNIT_EXPECT_TRUE(test, wren_ring_ready(0x00, 0x01, 31, 4));
	KUNIT_EXPECT_TRUE(test, wren_ring_ready(0x01, 0x01, 32, 4));
}

static void wren_ring_full_and_empty(struct kunit *test)
{
	static const u16 heads[] = { 0, 1, 100, U16_MAX - 3, U16_MAX };
	unsigned int i;
	u16 head;

	for (i = 0; i < ARRAY_SIZE(heads); i++) {
		head = heads[i];
		KUNIT_EXPECT_FALSE(test, wren_ring_full(head, head, 32));
		KUNIT_EXPECT_FALSE(test, wren_ring_full(head, head + 31, 32));
		KUNIT_EXPECT_TRUE(test, wren_ring_full(head, head + 32, 32));
		KUNIT_EXPECT_TRUE(test, wren_ring_full(head, head + 33, 32));
	}
}

static void wren_ring_head_moves_forward_up_to_tail(struct kunit *test)
{
	static const u16 heads[] = { 0, 7, U16_MAX - 2, U16_MAX };
	unsigned int i;
	u16 head;

	for (i = 0; i < ARRAY_SIZE(heads); i++) {
		head = heads[i];
		KUNIT_EXPECT_TRUE(test, wren_ring_head_ok(head, head, head + 4));
		KUNIT_EXPECT_TRUE(test, wren_ring_head_ok(head, head + 1, head + 4));
		KUNIT_EXPECT_TRUE(test, wren_ring_head_ok(head, head + 4, head + 4));
		KUNIT_EXPECT_FALSE(test, wren_ring_head_ok(head, head + 5, head + 4));
		KUNIT_EXPECT_FALSE(test, wren_ring_head_ok(head, head - 1, head + 4));
		/* Nothing outstanding: only the same index is possible. */
		KUNIT_EXPECT_TRUE(test, wren_ring_head_ok(head, head, head));
		KUNIT_EXPECT_FALSE(test, wren_ring_head_ok(head, head + 1, head));
	}
}

/* Four laps and a bit through both admin rings, and across 2^16. */
static void wren_ring_admin_laps(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin *aq = &f->wdev.admin;
	u32 depth = 1U << aq->log_depth;
	struct wren_cmd_feature cmd = {};
	unsigned int i, n = 4 * depth + 3;
	u16 start;

	for (i = 0; i < n; i++)
		KUNIT_ASSERT_EQ_MSG(test,
				    wren_admin_exec(&f->wdev, WREN_ADMIN_SET_FEATURE,
						    &cmd, sizeof(cmd), NULL),
				    0, "command %u", i);
	KUNIT_EXPECT_EQ(test, f->ncmds, n);
	KUNIT_EXPECT_EQ(test, aq->sq_tail, n);
	KUNIT_EXPECT_EQ(test, aq->sq_head, n);
	KUNIT_EXPECT_EQ(test, aq->cq_head, n);

	/*
	 * Move the device and the driver to just short of 2^16, on the same
	 * lap parity and ring position, so the rings' contents stay right.
	 */
	start = (u16)(U16_MAX + 1 - 2 * depth + n % (2 * depth));
	aq->sq_tail = start;
	aq->sq_head = start;
	aq->cq_head = start;
	f->sq_head = start;
	f->cq_tail = start;
	for (i = 0; i < 2 * depth; i++)
		KUNIT_ASSERT_EQ_MSG(test,
				    wren_admin_exec(&f->wdev, WREN_ADMIN_SET_FEATURE,
						    &cmd, sizeof(cmd), NULL),
				    0, "command %u after the move", i);
	KUNIT_EXPECT_EQ(test, aq->cq_head, (u16)(start + 2 * depth));
	KUNIT_EXPECT_LT(test, aq->cq_head, start);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 0);
}

/* A full ring refuses the next command; freeing one entry takes one more. */
static void wren_ring_admin_full(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin *aq = &f->wdev.admin;
	u32 depth = 1U << aq->log_depth;
	struct wren_admin_ctx *ctx, *first = NULL;
	struct wren_cmd_alloc_pd body = {};
	struct wren_admin_cqe cqe = {};
	u32 i;

	f->answer = wren_fake_no_answer;
	for (i = 0; i < depth; i++) {
		KUNIT_ASSERT_EQ(test, wren_admin_post(&f->wdev, WREN_ADMIN_ALLOC_PD,
						      &body, sizeof(body), &ctx), 0);
		if (!first)
			first = ctx;
	}
	KUNIT_EXPECT_EQ(test, wren_admin_post(&f->wdev, WREN_ADMIN_ALLOC_PD,
					      &body, sizeof(body), &ctx), -EBUSY);
	KUNIT_EXPECT_EQ(test, f->ncmds, depth);

	/* The device consumed one entry and completes it. */
	cqe.cmd_id = cpu_to_le16(first->cmd_id);
	cqe.sq_head = cpu_to_le16(aq->sq_head + 1);
	wren_fake_post_cqe(f, &cqe);
	wren_admin_process(&f->wdev);
	KUNIT_EXPECT_TRUE(test, first->completed);
	first->busy = false;
	KUNIT_EXPECT_EQ(test, wren_admin_post(&f->wdev, WREN_ADMIN_ALLOC_PD,
					      &body, sizeof(body), &ctx), 0);
	KUNIT_EXPECT_PTR_EQ(test, ctx, first);
}

/* An empty completion ring, and last lap's entries, are not consumed. */
static void wren_ring_admin_empty(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin *aq = &f->wdev.admin;
	u32 depth = 1U << aq->log_depth;
	struct wren_cmd_feature cmd = {};
	u32 i;

	wren_admin_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, aq->cq_head, 0);
	for (i = 0; i < depth; i++)
		KUNIT_ASSERT_EQ(test, wren_admin_exec(&f->wdev, WREN_ADMIN_SET_FEATURE,
						      &cmd, sizeof(cmd), NULL), 0);
	/* Every entry now holds a completion of the first lap. */
	wren_admin_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, aq->cq_head, depth);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 0);
}

static struct kunit_case wren_ring_cases[] = {
	KUNIT_CASE(wren_ring_phase_alternates),
	KUNIT_CASE(wren_ring_phase_survives_index_wrap),
	KUNIT_CASE(wren_ring_ready_reads_only_the_phase_flag),
	KUNIT_CASE(wren_ring_full_and_empty),
	KUNIT_CASE(wren_ring_head_moves_forward_up_to_tail),
	KUNIT_CASE(wren_ring_admin_laps),
	KUNIT_CASE(wren_ring_admin_full),
	KUNIT_CASE(wren_ring_admin_empty),
	{}
};

static struct kunit_suite wren_ring_suite = {
	.name = "wren_ring",
	.test_cases = wren_ring_cases,
};

kunit_test_suite(wren_ring_suite);
