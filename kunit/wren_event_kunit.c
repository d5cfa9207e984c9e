// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: async events and completion events, from the ring to their
 * effect: counters, a dead device, the RDMA driver's callbacks, the
 * doorbells; and the keep-alive watchdog's count of silent periods.
 */
#include <kunit/test.h>

#include "wren_kunit_dev.h"

#define WREN_EVENT_MAX	1024

/**
 * struct wren_event_log - what the RDMA driver's callbacks heard
 * @comp: handles of completion events, in order
 * @ncomp: how many
 * @cq_error: CQ numbers of CQ errors, in order
 * @ncq_error: how many
 * @qp_event: QP events, QP number << 8 | event, in order
 * @nqp_event: how many
 * @srq_limit: SRQ numbers of fired limits, in order
 * @nsrq_limit: how many
 * @nfatal: fatal calls
 */
struct wren_event_log {
	u32 comp[WREN_EVENT_MAX];
	unsigned int ncomp;
	u32 cq_error[8];
	unsigned int ncq_error;
	u32 qp_event[8];
	unsigned int nqp_event;
	u32 srq_limit[8];
	unsigned int nsrq_limit;
	unsigned int nfatal;
};

static void wren_event_fatal(void *priv)
{
	struct wren_event_log *log = priv;

	log->nfatal++;
}

static void wren_event_cq_comp(void *priv, u32 cqn)
{
	struct wren_event_log *log = priv;

	if (log->ncomp < ARRAY_SIZE(log->comp))
		log->comp[log->ncomp] = cqn;
	log->ncomp++;
}

static void wren_event_cq_error(void *priv, u32 cqn)
{
	struct wren_event_log *log = priv;

	if (log->ncq_error < ARRAY_SIZE(log->cq_error))
		log->cq_error[log->ncq_error] = cqn;
	log->ncq_error++;
}

static void wren_event_qp(void *priv, u32 qpn, u32 event)
{
	struct wren_event_log *log = priv;

	if (log->nqp_event < ARRAY_SIZE(log->qp_event))
		log->qp_event[log->nqp_event] = qpn << 8 | event;
	log->nqp_event++;
}

static void wren_event_srq_limit(void *priv, u32 srqn)
{
	struct wren_event_log *log = priv;

	if (log->nsrq_limit < ARRAY_SIZE(log->srq_limit))
		log->srq_limit[log->nsrq_limit] = srqn;
	log->nsrq_limit++;
}

static const struct wren_event_ops wren_event_ops = {
	.cq_comp = wren_event_cq_comp,
	.cq_error = wren_event_cq_error,
	.qp_event = wren_event_qp,
	.srq_limit = wren_event_srq_limit,
	.fatal = wren_event_fatal,
};

static void wren_event_unlisten(void *wdev)
{
	wren_clear_event_ops(wdev);
}

static struct wren_event_log *wren_event_listen(struct kunit *test,
						struct wren_fake *f)
{
	struct wren_event_log *log;

	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, log);
	wren_set_event_ops(&f->wdev, &wren_event_ops, log);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, wren_event_unlisten,
							&f->wdev), 0);
	return log;
}

/* Keep-alives, several laps of the ring, each batch acknowledged. */
static void wren_event_aeq_laps(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	u32 depth = 1U << WREN_AEQ_LOG_DEPTH, batch, n = 0, i;

	for (batch = 1; n < 3 * depth + 5; batch = batch * 2 % (depth + 1)) {
		for (i = 0; i < batch; i++)
			wren_fake_post_aeq(f, WREN_AEQ_KEEP_ALIVE, 0, n + i);
		n += batch;
		wren_aeq_process(&f->wdev);
		KUNIT_ASSERT_EQ(test, atomic64_read(&f->wdev.stats.keep_alives), n);
		KUNIT_EXPECT_EQ(test, f->wdev.aeq_head, n);
		KUNIT_EXPECT_EQ(test, f->regs[WREN_REG_AEQ_DB / 4],
				FIELD_PREP(WREN_AEQ_DB_HEAD, n));
	}
	KUNIT_EXPECT_EQ(test, f->wdev.stats.aeq_events, n);
}

/* Nothing new: nothing counted and no doorbell. */
static void wren_event_aeq_empty(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);

	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, f->aeq_db_writes, 0);
	wren_fake_post_aeq(f, WREN_AEQ_KEEP_ALIVE, 0, 0);
	wren_aeq_process(&f->wdev);
	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, f->aeq_db_writes, 1);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.aeq_events, 1);
}

/* Each type reaches its own counter, and only its own. */
static void wren_event_aeq_counters(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_stats *s = &f->wdev.stats;

	wren_fake_post_aeq(f, WREN_AEQ_WARNING, 1, WREN_WARN_AEQ_OVERFLOW);
	wren_fake_post_aeq(f, WREN_AEQ_LINK_CHANGE, 0, 0);
	wren_fake_post_aeq(f, WREN_AEQ_LINK_CHANGE, 0, 1);
	/* An unknown type is counted as an event, and nothing else. */
	wren_fake_post_aeq(f, 0xee, 0, 0);
	wren_fake_post_aeq(f, 0, 0, 0);
	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, s->aeq_events, 5);
	KUNIT_EXPECT_EQ(test, s->aeq_warnings, 1);
	KUNIT_EXPECT_EQ(test, s->link_changes, 2);
	KUNIT_EXPECT_EQ(test, atomic64_read(&s->keep_alives), 0);
	KUNIT_EXPECT_EQ(test, s->cq_errors, 0);
	KUNIT_EXPECT_FALSE(test, wren_dead(&f->wdev));
}

/*
 * A fatal error fences the device (its DMA stopped), wakes the admin
 * queue's waiters and tells the RDMA driver, once however often it comes.
 */
static void wren_event_aeq_fatal(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_event_log *log = wren_event_listen(test, f);
	struct wren_cmd_alloc_pd body = {};
	struct wren_admin_ctx *ctx;

	f->answer = wren_fake_no_answer;
	KUNIT_ASSERT_EQ(test, wren_admin_post(&f->wdev, WREN_ADMIN_ALLOC_PD,
					      &body, sizeof(body), &ctx), 0);
	wren_fake_post_aeq(f, WREN_AEQ_FATAL, 0, 3);
	wren_fake_post_aeq(f, WREN_AEQ_FATAL, 0, 2);
	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_TRUE(test, wren_dead(&f->wdev));
	KUNIT_EXPECT_EQ(test, f->dma_stops, 1);
	KUNIT_EXPECT_EQ(test, log->nfatal, 1);
	KUNIT_EXPECT_TRUE(test, completion_done(&ctx->done));
	ctx->busy = false;
	KUNIT_EXPECT_EQ(test, wren_cmd_set_feature(&f->wdev, 1, 0), -EIO);
}

/* A CQ error goes to the RDMA driver with its CQ number, once. */
static void wren_event_aeq_cq_error(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_event_log *log;

	/* Nobody listening: counted, and no harm done. */
	wren_fake_post_aeq(f, WREN_AEQ_CQ_ERROR, 12, 0);
	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.cq_errors, 1);

	log = wren_event_listen(test, f);
	wren_fake_post_aeq(f, WREN_AEQ_CQ_ERROR, 34, 0);
	wren_fake_post_aeq(f, WREN_AEQ_KEEP_ALIVE, 56, 0);
	wren_fake_post_aeq(f, WREN_AEQ_CQ_ERROR, 78, 0);
	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.cq_errors, 3);
	KUNIT_ASSERT_EQ(test, log->ncq_error, 2);
	KUNIT_EXPECT_EQ(test, log->cq_error[0], 34);
	KUNIT_EXPECT_EQ(test, log->cq_error[1], 78);
	KUNIT_EXPECT_EQ(test, log->ncomp, 0);
}

/* QP events and SRQ limits go to the RDMA driver by number, in order. */
static void wren_event_aeq_objects(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_event_log *log;

	/* Nobody listening: counted as events, and no harm done. */
	wren_fake_post_aeq(f, WREN_AEQ_QP_EVENT, 5, WREN_QP_EV_COMM_EST);
	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.aeq_events, 1);

	log = wren_event_listen(test, f);
	wren_fake_post_aeq(f, WREN_AEQ_QP_EVENT, 7, WREN_QP_EV_SQ_DRAINED);
	wren_fake_post_aeq(f, WREN_AEQ_SRQ_LIMIT, 3, 0);
	wren_fake_post_aeq(f, WREN_AEQ_QP_EVENT, 9, WREN_QP_EV_LAST_WQE);
	wren_aeq_process(&f->wdev);
	KUNIT_ASSERT_EQ(test, log->nqp_event, 2);
	KUNIT_EXPECT_EQ(test, log->qp_event[0], 7 << 8 | WREN_QP_EV_SQ_DRAINED);
	KUNIT_EXPECT_EQ(test, log->qp_event[1], 9 << 8 | WREN_QP_EV_LAST_WQE);
	KUNIT_ASSERT_EQ(test, log->nsrq_limit, 1);
	KUNIT_EXPECT_EQ(test, log->srq_limit[0], 3);
	KUNIT_EXPECT_EQ(test, log->ncq_error, 0);
}

static struct wren_eq *wren_event_eq(struct kunit *test, struct wren_fake *f)
{
	struct wren_eq *eq;

	eq = kunit_kzalloc(test, sizeof(*eq), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eq);
	eq->ring = kunit_kcalloc(test, 1U << WREN_EQ_LOG_DEPTH,
				 sizeof(*eq->ring), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, eq->ring);
	eq->wdev = &f->wdev;
	eq->id = 5;
	return eq;
}

/*
 * Completion events reach the RDMA driver in order, across laps of the
 * ring and across the 2^24 wrap of the head; each pass re-arms the EQ.
 */
static void wren_event_eq_completions(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_event_log *log = wren_event_listen(test, f);
	struct wren_eq *eq = wren_event_eq(test, f);
	u32 depth = 1U << WREN_EQ_LOG_DEPTH, total = 3 * depth;
	u32 run, index = 0, n, i;

	for (run = 0; run < 2; run++) {
		/*
		 * The second run from just short of 2^24, at the ring position
		 * and lap parity the first one left.
		 */
		if (run)
			index = WREN_EQ_DB_HEAD + 1 - 2 * depth +
				index % (2 * depth);
		eq->head = index;
		log->ncomp = 0;
		for (n = 0; n < total; n += depth / 2) {
			for (i = 0; i < depth / 2; i++) {
				wren_fake_post_eqe(eq, index, WREN_EQE_COMPLETION,
						   n + i);
				index = (index + 1) & WREN_EQ_DB_HEAD;
			}
			wren_eq_process(eq);
			KUNIT_EXPECT_EQ(test, eq->head, index);
			KUNIT_EXPECT_EQ(test, f->regs[WREN_REG_EQ_DB(5) / 4],
					FIELD_PREP(WREN_EQ_DB_HEAD, index) |
					WREN_EQ_DB_ARM);
		}
		KUNIT_ASSERT_EQ(test, log->ncomp, total);
		for (i = 0; i < total; i++)
			KUNIT_EXPECT_EQ(test, log->comp[i], i);
	}
	KUNIT_EXPECT_EQ(test, index, 2 * depth);
	KUNIT_EXPECT_EQ(test, eq->events, 2 * total);
}

/* An unknown entry is counted and skipped; no listener, no call. */
static void wren_event_eq_unknown_and_unheard(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_eq *eq = wren_event_eq(test, f);
	struct wren_event_log *log;

	wren_fake_post_eqe(eq, 0, WREN_EQE_COMPLETION, 1);
	wren_eq_process(eq);
	KUNIT_EXPECT_EQ(test, eq->head, 1);

	log = wren_event_listen(test, f);
	wren_fake_post_eqe(eq, 1, 0x7f, 2);
	wren_fake_post_eqe(eq, 2, WREN_EQE_COMPLETION, 3);
	wren_eq_process(eq);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->wdev.stats.eqe_unknown), 1);
	KUNIT_ASSERT_EQ(test, log->ncomp, 1);
	KUNIT_EXPECT_EQ(test, log->comp[0], 3);
	KUNIT_EXPECT_EQ(test, eq->head, 3);

	/* An empty queue is only re-armed. */
	wren_eq_process(eq);
	KUNIT_EXPECT_EQ(test, eq->head, 3);
	KUNIT_EXPECT_EQ(test, log->ncomp, 1);
	KUNIT_EXPECT_EQ(test, f->regs[WREN_REG_EQ_DB(5) / 4], 3 | WREN_EQ_DB_ARM);
}

/* Three silent periods in a row lose the keep-alive, counted once. */
static void wren_event_keep_alive_lost(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_dev *wdev = &f->wdev;
	unsigned int i;

	/* Off: nothing is ever lost. */
	for (i = 0; i < 10; i++)
		wren_keep_alive_check(wdev);
	KUNIT_EXPECT_EQ(test, wdev->stats.keep_alive_lost, 0);

	wdev->keep_alive_ms = 1000;
	wren_keep_alive_check(wdev);
	wren_keep_alive_check(wdev);
	KUNIT_EXPECT_EQ(test, wdev->stats.keep_alive_lost, 0);
	wren_keep_alive_check(wdev);
	KUNIT_EXPECT_EQ(test, wdev->stats.keep_alive_lost, 1);
	/* A device that went silent is fenced, for its recovery. */
	KUNIT_EXPECT_TRUE(test, wren_dead(wdev));
	KUNIT_EXPECT_EQ(test, f->dma_stops, 1);
	for (i = 0; i < 5; i++)
		wren_keep_alive_check(wdev);
	KUNIT_EXPECT_EQ(test, wdev->stats.keep_alive_lost, 1);
	KUNIT_EXPECT_EQ(test, f->dma_stops, 1);

	/* Brought up again; one keep-alive starts the count again. */
	clear_bit(WREN_FLAG_DEAD, &wdev->flags);
	atomic64_inc(&wdev->stats.keep_alives);
	wren_keep_alive_check(wdev);
	wren_keep_alive_check(wdev);
	wren_keep_alive_check(wdev);
	KUNIT_EXPECT_EQ(test, wdev->stats.keep_alive_lost, 1);
	wren_keep_alive_check(wdev);
	KUNIT_EXPECT_EQ(test, wdev->stats.keep_alive_lost, 2);
}

/*
 * A device fenced for another failure sends no keep-alive: its silence is
 * no second failure, and neither counted nor reported.
 */
static void wren_event_keep_alive_fenced(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_dev *wdev = &f->wdev;
	unsigned int i;

	wdev->keep_alive_ms = 1000;
	wren_fake_post_aeq(f, WREN_AEQ_FATAL, 0, WREN_FATAL_INTERNAL);
	wren_aeq_process(wdev);
	KUNIT_ASSERT_TRUE(test, wren_dead(wdev));
	for (i = 0; i < 10; i++)
		wren_keep_alive_check(wdev);
	KUNIT_EXPECT_EQ(test, wdev->stats.keep_alive_lost, 0);
	KUNIT_EXPECT_EQ(test, wdev->keep_alive_missed, 0);
}

static struct kunit_case wren_event_cases[] = {
	KUNIT_CASE(wren_event_aeq_laps),
	KUNIT_CASE(wren_event_aeq_empty),
	KUNIT_CASE(wren_event_aeq_counters),
	KUNIT_CASE(wren_event_aeq_fatal),
	KUNIT_CASE(wren_event_aeq_cq_error),
	KUNIT_CASE(wren_event_aeq_objects),
	KUNIT_CASE(wren_event_eq_completions),
	KUNIT_CASE(wren_event_eq_unknown_and_unheard),
	KUNIT_CASE(wren_event_keep_alive_lost),
	KUNIT_CASE(wren_event_keep_alive_fenced),
	{}
};

static struct kunit_suite wren_event_suite = {
	.name = "wren_event",
	.test_cases = wren_event_cases,
};

kunit_test_suite(wren_event_suite);
