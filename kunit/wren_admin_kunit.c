// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the admin queue's command ids and its defence against
 * completions that name no outstanding command (unknown, repeated, or
 * late after a timeout), and against a device that reports an impossible
 * consumer index or dies.
 */
#include <kunit/test.h>

#include "wren_kunit_dev.h"

static bool wren_admin_answer_tagged(struct wren_fake *f,
				     const struct wren_admin_cmd *cmd,
				     struct wren_admin_cqe *cqe)
{
	cqe->result[0] = cpu_to_le32(0x1234);
	return true;
}

static int wren_admin_exec_pd(struct wren_fake *f, struct wren_admin_cqe *cqe)
{
	struct wren_cmd_alloc_pd body = {};

	return wren_admin_exec(&f->wdev, WREN_ADMIN_ALLOC_PD, &body,
			       sizeof(body), cqe);
}

/* Outstanding commands have distinct ids naming their own contexts. */
static void wren_admin_ids_distinct(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin *aq = &f->wdev.admin;
	u32 depth = 1U << aq->log_depth, mask = depth - 1;
	struct wren_admin_ctx *ctx[32];
	struct wren_cmd_alloc_pd body = {};
	struct wren_admin_cqe cqe = {};
	u32 i, j;

	KUNIT_ASSERT_LE(test, depth, ARRAY_SIZE(ctx));
	f->answer = wren_fake_no_answer;
	for (i = 0; i < depth; i++) {
		KUNIT_ASSERT_EQ(test, wren_admin_post(&f->wdev, WREN_ADMIN_ALLOC_PD,
						      &body, sizeof(body), &ctx[i]), 0);
		KUNIT_EXPECT_PTR_EQ(test, ctx[i], &aq->ctx[ctx[i]->cmd_id & mask]);
		KUNIT_EXPECT_EQ(test, le16_to_cpu(f->cmds[i].hdr.cmd_id),
				ctx[i]->cmd_id);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, ctx[i]->cmd_id & mask,
					ctx[j]->cmd_id & mask);
	}

	/* Completed out of order, each reaches its own command. */
	for (i = depth; i-- > 0;) {
		cqe.cmd_id = cpu_to_le16(ctx[i]->cmd_id);
		cqe.result[0] = cpu_to_le32(i);
		wren_fake_post_cqe(f, &cqe);
	}
	wren_admin_process(&f->wdev);
	for (i = 0; i < depth; i++) {
		KUNIT_EXPECT_TRUE(test, ctx[i]->completed);
		KUNIT_EXPECT_TRUE(test, completion_done(&ctx[i]->done));
		KUNIT_EXPECT_EQ(test, le32_to_cpu(ctx[i]->cqe.result[0]), i);
		ctx[i]->busy = false;
	}
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 0);
}

/* A context used again gets a new id. */
static void wren_admin_ids_change_on_reuse(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	u32 mask = (1U << f->wdev.admin.log_depth) - 1;
	u16 ids[4];
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		KUNIT_ASSERT_EQ(test, wren_admin_exec_pd(f, NULL), 0);
		ids[i] = le16_to_cpu(wren_fake_last_cmd(f)->hdr.cmd_id);
		/* One command at a time: always the first context. */
		KUNIT_EXPECT_EQ(test, ids[i] & mask, 0);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, ids[i], ids[j]);
	}
}

/* The command goes out as given: opcode, phase, id, body. */
static void wren_admin_command_encoding(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	const struct wren_admin_cmd *cmd;
	u8 body[WREN_ADMIN_CMD_PAYLOAD];
	unsigned int i;

	for (i = 0; i < sizeof(body); i++)
		body[i] = 0xa0 ^ i;
	KUNIT_ASSERT_EQ(test, wren_admin_exec(&f->wdev, WREN_ADMIN_REG_MR, body,
					      sizeof(body), NULL), 0);
	cmd = wren_fake_last_cmd(f);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_EXPECT_EQ(test, cmd->hdr.opcode, WREN_ADMIN_REG_MR);
	KUNIT_EXPECT_EQ(test, cmd->hdr.flags, WREN_ADMIN_FLAG_PHASE);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cmd->hdr.rsvd), 0);
	KUNIT_EXPECT_MEMEQ(test, cmd->payload, body, sizeof(body));

	/* A short body leaves the rest of the entry zero. */
	KUNIT_ASSERT_EQ(test, wren_admin_exec(&f->wdev, WREN_ADMIN_DEREG_MR, body,
					      4, NULL), 0);
	cmd = wren_fake_last_cmd(f);
	KUNIT_EXPECT_MEMEQ(test, cmd->payload, body, 4);
	KUNIT_EXPECT_TRUE(test, !memchr_inv(cmd->payload + 4, 0,
					    sizeof(cmd->payload) - 4));
	/* A body too long for an entry is a driver bug, and refused. */
	KUNIT_EXPECT_EQ(test, wren_admin_exec(&f->wdev, WREN_ADMIN_REG_MR, body,
					      sizeof(body) + 1, NULL), -EINVAL);
}

/* The completion reaches the caller whole. */
static void wren_admin_completion_decoding(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin_cqe cqe;

	f->answer = wren_admin_answer_tagged;
	KUNIT_ASSERT_EQ(test, wren_admin_exec_pd(f, &cqe), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe.result[0]), 0x1234);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cqe.cmd_id),
			le16_to_cpu(wren_fake_last_cmd(f)->hdr.cmd_id));
	KUNIT_EXPECT_EQ(test, le16_to_cpu(cqe.sq_head), 1);
}

/* A completion with an id nobody waits for is counted and dropped. */
static void wren_admin_unknown_id_is_stale(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin_cqe cqe = { .cmd_id = cpu_to_le16(0x0105) };
	unsigned int i;

	wren_fake_post_cqe(f, &cqe);
	wren_admin_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 1);
	for (i = 0; i < 1U << f->wdev.admin.log_depth; i++)
		KUNIT_EXPECT_FALSE(test, f->wdev.admin.ctx[i].completed);
	/* The queue goes on working. */
	KUNIT_EXPECT_EQ(test, wren_admin_exec_pd(f, NULL), 0);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 1);
}

/* A second completion of a command is stale. */
static void wren_admin_repeated_completion_is_stale(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin_ctx *ctx;
	struct wren_cmd_alloc_pd body = {};
	struct wren_admin_cqe cqe = {};

	f->answer = wren_fake_no_answer;
	KUNIT_ASSERT_EQ(test, wren_admin_post(&f->wdev, WREN_ADMIN_ALLOC_PD,
					      &body, sizeof(body), &ctx), 0);
	cqe.cmd_id = cpu_to_le16(ctx->cmd_id);
	cqe.result[0] = cpu_to_le32(1);
	wren_fake_post_cqe(f, &cqe);
	cqe.result[0] = cpu_to_le32(2);
	wren_fake_post_cqe(f, &cqe);
	wren_admin_process(&f->wdev);
	KUNIT_EXPECT_TRUE(test, ctx->completed);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ctx->cqe.result[0]), 1);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 1);
	ctx->busy = false;
}

/* A command the device does not answer times out, and is counted. */
static void wren_admin_timeout(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);

	f->answer = wren_fake_no_answer;
	KUNIT_EXPECT_EQ(test, wren_admin_exec_pd(f, NULL), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_timeouts, 1);
	KUNIT_EXPECT_FALSE(test, f->wdev.admin.ctx[0].busy);
	/* What it did is unknown: the device is fenced, for its recovery. */
	KUNIT_EXPECT_TRUE(test, wren_dead(&f->wdev));
	KUNIT_EXPECT_EQ(test, f->dma_stops, 1);
	KUNIT_EXPECT_EQ(test, wren_admin_exec_pd(f, NULL), -EIO);
}

/* The late answer to a timed-out command completes nothing else. */
static void wren_admin_late_completion_is_stale(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin_cqe late = {}, cqe;

	f->answer = wren_fake_no_answer;
	KUNIT_ASSERT_EQ(test, wren_admin_exec_pd(f, NULL), -ETIMEDOUT);
	wren_fake_unfence(f);
	late.cmd_id = wren_fake_last_cmd(f)->hdr.cmd_id;
	late.sq_head = cpu_to_le16(1);
	late.result[0] = cpu_to_le32(0xdead);
	wren_fake_post_cqe(f, &late);

	/* The next command reuses the context; its answer is its own. */
	f->answer = wren_admin_answer_tagged;
	KUNIT_EXPECT_EQ(test, wren_admin_exec_pd(f, &cqe), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe.result[0]), 0x1234);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 1);
}

static bool wren_admin_answer_with_late(struct wren_fake *f,
					const struct wren_admin_cmd *cmd,
					struct wren_admin_cqe *cqe)
{
	wren_fake_post_cqe(f, f->priv);
	return false;
}

/* A late answer arriving while its context's next command waits. */
static void wren_admin_late_completion_spares_next(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin_cqe late = {};

	f->answer = wren_fake_no_answer;
	KUNIT_ASSERT_EQ(test, wren_admin_exec_pd(f, NULL), -ETIMEDOUT);
	wren_fake_unfence(f);
	late.cmd_id = wren_fake_last_cmd(f)->hdr.cmd_id;
	late.sq_head = cpu_to_le16(1);
	f->priv = &late;
	f->answer = wren_admin_answer_with_late;
	KUNIT_EXPECT_EQ(test, wren_admin_exec_pd(f, NULL), -ETIMEDOUT);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 1);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_timeouts, 2);
}

/* A dead device takes no command, and wakes the waiting ones. */
static void wren_admin_dead_device(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_cmd_alloc_pd body = {};
	struct wren_admin_ctx *ctx;

	f->answer = wren_fake_no_answer;
	KUNIT_ASSERT_EQ(test, wren_admin_post(&f->wdev, WREN_ADMIN_ALLOC_PD,
					      &body, sizeof(body), &ctx), 0);
	set_bit(WREN_FLAG_DEAD, &f->wdev.flags);
	wren_admin_abort(&f->wdev);
	KUNIT_EXPECT_TRUE(test, completion_done(&ctx->done));
	KUNIT_EXPECT_FALSE(test, ctx->completed);
	ctx->busy = false;
	KUNIT_EXPECT_EQ(test, wren_admin_exec_pd(f, NULL), -EIO);
	KUNIT_EXPECT_EQ(test, f->ncmds, 1);
}

/* A consumer index backwards or past the producer is not believed. */
static void wren_admin_impossible_sq_head(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_admin *aq = &f->wdev.admin;
	struct wren_admin_cqe cqe = {};

	KUNIT_ASSERT_EQ(test, wren_admin_exec_pd(f, NULL), 0);
	KUNIT_ASSERT_EQ(test, wren_admin_exec_pd(f, NULL), 0);
	KUNIT_ASSERT_EQ(test, aq->sq_head, 2);

	cqe.cmd_id = cpu_to_le16(0x7fff);
	cqe.sq_head = cpu_to_le16(3);
	wren_fake_post_cqe(f, &cqe);
	cqe.sq_head = cpu_to_le16(1);
	wren_fake_post_cqe(f, &cqe);
	wren_admin_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, aq->sq_head, 2);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_stale, 2);
}

static struct kunit_case wren_admin_cases[] = {
	KUNIT_CASE(wren_admin_ids_distinct),
	KUNIT_CASE(wren_admin_ids_change_on_reuse),
	KUNIT_CASE(wren_admin_command_encoding),
	KUNIT_CASE(wren_admin_completion_decoding),
	KUNIT_CASE(wren_admin_unknown_id_is_stale),
	KUNIT_CASE(wren_admin_repeated_completion_is_stale),
	KUNIT_CASE(wren_admin_timeout),
	KUNIT_CASE(wren_admin_late_completion_is_stale),
	KUNIT_CASE(wren_admin_late_completion_spares_next),
	KUNIT_CASE(wren_admin_dead_device),
	KUNIT_CASE(wren_admin_impossible_sq_head),
	{}
};

static struct kunit_suite wren_admin_suite = {
	.name = "wren_admin",
	.test_cases = wren_admin_cases,
};

kunit_test_suite(wren_admin_suite);
