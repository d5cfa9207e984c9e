// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the devlink health reports, from the error to the report: an
 * admin timeout, a fatal error (async event, or DEV_STS seen after a
 * timeout), a lost keep-alive; and the keep_alive_ms parameter's checks
 * and change.
 *
 * The fake device has no devlink instance: its PCI function is never
 * registered, and devlink only takes reports of a registered instance.
 * The suite stubs wren_health_queue(), where every event enters on its
 * way to devlink, and checks what reaches it.  (The work item that hands
 * the events to devlink_health_report() runs in a workqueue's thread,
 * where KUnit's static stubs do not apply; the guest test
 * admin-timeout.sh checks that part with the devlink tool.)
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/netlink.h>

#include "wren_kunit_dev.h"

#define WREN_HEALTH_LOG_MAX	16

/**
 * struct wren_health_log - the reports that reached devlink
 * @ev: the events, in order
 * @n: how many
 */
struct wren_health_log {
	struct wren_health_event ev[WREN_HEALTH_LOG_MAX];
	unsigned int n;
};

static void wren_health_log_report(struct wren_dev *wdev,
				   const struct wren_health_event *ev)
{
	struct kunit *test = kunit_get_current_test();
	struct wren_health_log *log = test->priv;

	if (log->n < ARRAY_SIZE(log->ev))
		log->ev[log->n] = *ev;
	log->n++;
}

/* A fake device whose reports are logged in the returned log. */
static struct wren_health_log *wren_health_fake(struct kunit *test,
						struct wren_fake **fp)
{
	struct wren_health_log *log;

	*fp = wren_fake_new(test);
	log = kunit_kzalloc(test, sizeof(*log), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, log);
	test->priv = log;
	kunit_activate_static_stub(test, wren_health_queue,
				   wren_health_log_report);
	return log;
}

/* An ALLOC_PD the fake device never answers; the command id it had. */
static u16 wren_health_time_out(struct kunit *test, struct wren_fake *f)
{
	struct wren_cmd_alloc_pd body = {};

	f->answer = wren_fake_no_answer;
	KUNIT_EXPECT_EQ(test, wren_admin_exec(&f->wdev, WREN_ADMIN_ALLOC_PD,
					      &body, sizeof(body), NULL),
			-ETIMEDOUT);
	KUNIT_ASSERT_NOT_NULL(test, wren_fake_last_cmd(f));
	return le16_to_cpu(wren_fake_last_cmd(f)->hdr.cmd_id);
}

/* An admin timeout is one report on "admin", naming the command. */
static void wren_health_admin_timeout_reported(struct kunit *test)
{
	struct wren_fake *f;
	struct wren_health_log *log = wren_health_fake(test, &f);
	u16 id1, id2;

	id1 = wren_health_time_out(test, f);
	wren_fake_unfence(f);
	id2 = wren_health_time_out(test, f);
	KUNIT_ASSERT_EQ(test, log->n, 2);
	KUNIT_EXPECT_EQ(test, log->ev[0].reporter, WREN_HEALTH_ADMIN);
	KUNIT_EXPECT_EQ(test, log->ev[0].opcode, WREN_ADMIN_ALLOC_PD);
	KUNIT_EXPECT_EQ(test, log->ev[0].cmd_id, id1);
	KUNIT_EXPECT_EQ(test, log->ev[0].value, 50);
	KUNIT_EXPECT_EQ(test, log->ev[1].reporter, WREN_HEALTH_ADMIN);
	KUNIT_EXPECT_EQ(test, log->ev[1].cmd_id, id2);
	KUNIT_EXPECT_NE(test, id1, id2);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_timeouts, 2);
}

static bool wren_health_answer_error(struct wren_fake *f,
				     const struct wren_admin_cmd *cmd,
				     struct wren_admin_cqe *cqe)
{
	cqe->status = WREN_STATUS_NO_RESOURCES;
	return true;
}

/* A command the device answers, even with an error, is no report. */
static void wren_health_answered_not_reported(struct kunit *test)
{
	struct wren_fake *f;
	struct wren_health_log *log = wren_health_fake(test, &f);
	struct wren_cmd_alloc_pd body = {};

	f->answer = wren_health_answer_error;
	KUNIT_EXPECT_EQ(test, wren_admin_exec(&f->wdev, WREN_ADMIN_ALLOC_PD,
					      &body, sizeof(body), NULL),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, log->n, 0);
}

/*
 * A timeout of a device that says FATAL in DEV_STS is also a fatal
 * report, with the code from DEV_STS, once.
 */
static void wren_health_timeout_dev_sts_fatal(struct kunit *test)
{
	struct wren_fake *f;
	struct wren_health_log *log = wren_health_fake(test, &f);

	f->regs[WREN_REG_DEV_STS / 4] = WREN_DEV_STS_READY |
		WREN_DEV_STS_ENABLED | WREN_DEV_STS_FATAL |
		FIELD_PREP(WREN_DEV_STS_FATAL_CODE, WREN_FATAL_DMA);
	wren_health_time_out(test, f);
	wren_fake_unfence(f);
	wren_health_time_out(test, f);
	KUNIT_ASSERT_EQ(test, log->n, 3);
	KUNIT_EXPECT_EQ(test, log->ev[0].reporter, WREN_HEALTH_ADMIN);
	KUNIT_EXPECT_EQ(test, log->ev[1].reporter, WREN_HEALTH_FATAL);
	KUNIT_EXPECT_EQ(test, log->ev[1].value, WREN_FATAL_DMA);
	KUNIT_EXPECT_EQ(test, log->ev[2].reporter, WREN_HEALTH_ADMIN);
	KUNIT_EXPECT_EQ(test, f->wdev.health.fatal_code, WREN_FATAL_DMA);
}

/* A DEV_STS of all ones is a device gone from the bus: no fatal code. */
static void wren_health_timeout_dev_sts_unreadable(struct kunit *test)
{
	struct wren_fake *f;
	struct wren_health_log *log = wren_health_fake(test, &f);

	f->regs[WREN_REG_DEV_STS / 4] = U32_MAX;
	wren_health_time_out(test, f);
	KUNIT_ASSERT_EQ(test, log->n, 1);
	KUNIT_EXPECT_EQ(test, log->ev[0].reporter, WREN_HEALTH_ADMIN);
	KUNIT_EXPECT_FALSE(test, f->wdev.health.fatal_seen);
}

/* The fatal async event is one report on "fatal" with its code. */
static void wren_health_fatal_event_reported(struct kunit *test)
{
	struct wren_fake *f;
	struct wren_health_log *log = wren_health_fake(test, &f);

	wren_fake_post_aeq(f, WREN_AEQ_WARNING, 1, WREN_WARN_AEQ_OVERFLOW);
	wren_fake_post_aeq(f, WREN_AEQ_FATAL, 0, WREN_FATAL_INTERNAL);
	/* A second one changes nothing: the device is already dead. */
	wren_fake_post_aeq(f, WREN_AEQ_FATAL, 0, WREN_FATAL_DMA);
	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_TRUE(test, wren_dead(&f->wdev));
	KUNIT_ASSERT_EQ(test, log->n, 1);
	KUNIT_EXPECT_EQ(test, log->ev[0].reporter, WREN_HEALTH_FATAL);
	KUNIT_EXPECT_EQ(test, log->ev[0].value, WREN_FATAL_INTERNAL);
	KUNIT_EXPECT_TRUE(test, f->wdev.health.fatal_seen);
}

/* A lost keep-alive is one report on "keep_alive", with the silence. */
static void wren_health_keep_alive_reported(struct kunit *test)
{
	struct wren_fake *f;
	struct wren_health_log *log = wren_health_fake(test, &f);
	struct wren_dev *wdev = &f->wdev;
	unsigned int i;

	wdev->keep_alive_ms = 200;
	for (i = 0; i < 2; i++)
		wren_keep_alive_check(wdev);
	KUNIT_EXPECT_EQ(test, log->n, 0);
	wren_keep_alive_check(wdev);
	/* Still silent: lost once, reported once. */
	for (i = 0; i < 5; i++)
		wren_keep_alive_check(wdev);
	KUNIT_ASSERT_EQ(test, log->n, 1);
	KUNIT_EXPECT_EQ(test, log->ev[0].reporter, WREN_HEALTH_KEEP_ALIVE);
	KUNIT_EXPECT_EQ(test, log->ev[0].value, 600);
	KUNIT_EXPECT_EQ(test, wdev->stats.keep_alive_lost, 1);
}

/* Once the reporters are going away, errors are no longer queued. */
static void wren_health_none_after_unregister(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_health *h = &f->wdev.health;

	wren_health_time_out(test, f);
	flush_work(&h->work);
	KUNIT_EXPECT_EQ(test, h->tail, 1);
	KUNIT_EXPECT_EQ(test, h->head, 1);
	wren_health_unregister(&f->wdev);
	wren_fake_unfence(f);
	wren_health_time_out(test, f);
	wren_fake_post_aeq(f, WREN_AEQ_FATAL, 0, WREN_FATAL_INTERNAL);
	wren_aeq_process(&f->wdev);
	KUNIT_EXPECT_EQ(test, h->tail, 1);
	KUNIT_EXPECT_FALSE(test, work_pending(&h->work));
}

/* keep_alive_ms: 0, or 10 to 60000 ms on a device with keep-alives. */
static void wren_health_keep_alive_param_checked(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	static const struct {
		u64 caps;
		u32 ms;
		int err;
		const char *msg;
	} cases[] = {
		{ WREN_CAP_KEEP_ALIVE, 0, 0, NULL },
		{ WREN_CAP_KEEP_ALIVE, 10, 0, NULL },
		{ WREN_CAP_KEEP_ALIVE, 1000, 0, NULL },
		{ WREN_CAP_KEEP_ALIVE, 60000, 0, NULL },
		{ WREN_CAP_KEEP_ALIVE, 1, -ERANGE, "below 10" },
		{ WREN_CAP_KEEP_ALIVE, 9, -ERANGE, "below 10" },
		{ WREN_CAP_KEEP_ALIVE, 60001, -ERANGE, "above 60000" },
		{ WREN_CAP_KEEP_ALIVE, U32_MAX, -ERANGE, "above 60000" },
		{ 0, 0, 0, NULL },
		{ 0, 1000, -EOPNOTSUPP, "no keep-alive events" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct netlink_ext_ack extack = {};

		f->wdev.caps.caps = cases[i].caps;
		KUNIT_EXPECT_EQ_MSG(test, wren_keep_alive_validate(&f->wdev,
								   cases[i].ms,
								   &extack),
				    cases[i].err, "%u ms, case %u", cases[i].ms, i);
		if (!cases[i].msg) {
			KUNIT_EXPECT_NULL_MSG(test, extack._msg, "case %u", i);
			continue;
		}
		KUNIT_ASSERT_NOT_NULL_MSG(test, extack._msg, "case %u", i);
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(extack._msg, cases[i].msg),
					  "case %u: \"%s\"", i, extack._msg);
	}
}

static bool wren_health_refuse_feature(struct wren_fake *f,
				       const struct wren_admin_cmd *cmd,
				       struct wren_admin_cqe *cqe)
{
	if (cmd->hdr.opcode == WREN_ADMIN_SET_FEATURE)
		cqe->status = WREN_STATUS_BAD_PARAM;
	return true;
}

static void wren_health_watchdog_stop(void *wdev)
{
	wren_watchdog_stop(wdev);
}

/*
 * A new period goes to the device with SET_FEATURE, and the watchdog
 * runs with it; a refused one leaves the old period.
 */
static void wren_health_keep_alive_param_applied(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_dev *wdev = &f->wdev;
	const struct wren_cmd_feature *body;

	wdev->caps.caps = WREN_CAP_KEEP_ALIVE;
	/* Down, the period is kept for the next bring-up, and not sent. */
	KUNIT_EXPECT_EQ(test, wren_keep_alive_set(wdev, 100), 0);
	KUNIT_EXPECT_NULL(test, wren_fake_last_cmd(f));
	KUNIT_EXPECT_EQ(test, wdev->keep_alive_want, 100);
	set_bit(WREN_FLAG_UP, &wdev->flags);
	wren_watchdog_start(wdev, 1000);
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test,
							wren_health_watchdog_stop,
							wdev), 0);
	KUNIT_EXPECT_EQ(test, wren_keep_alive_set(wdev, 250), 0);
	KUNIT_ASSERT_NOT_NULL(test, wren_fake_last_cmd(f));
	KUNIT_EXPECT_EQ(test, wren_fake_last_cmd(f)->hdr.opcode,
			WREN_ADMIN_SET_FEATURE);
	body = (const void *)wren_fake_last_cmd(f)->payload;
	KUNIT_EXPECT_EQ(test, le16_to_cpu(body->feature_id),
			WREN_FEATURE_KEEP_ALIVE_MS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(body->value), 250);
	KUNIT_EXPECT_EQ(test, wdev->keep_alive_ms, 250);
	KUNIT_EXPECT_EQ(test, wdev->keep_alive_want, 250);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&wdev->watchdog));

	f->answer = wren_health_refuse_feature;
	KUNIT_EXPECT_EQ(test, wren_keep_alive_set(wdev, 500), -EINVAL);
	KUNIT_EXPECT_EQ(test, wdev->keep_alive_ms, 250);
	KUNIT_EXPECT_EQ(test, wdev->keep_alive_want, 250);
	KUNIT_EXPECT_TRUE(test, delayed_work_pending(&wdev->watchdog));
}

static struct kunit_case wren_health_cases[] = {
	KUNIT_CASE(wren_health_admin_timeout_reported),
	KUNIT_CASE(wren_health_answered_not_reported),
	KUNIT_CASE(wren_health_timeout_dev_sts_fatal),
	KUNIT_CASE(wren_health_timeout_dev_sts_unreadable),
	KUNIT_CASE(wren_health_fatal_event_reported),
	KUNIT_CASE(wren_health_keep_alive_reported),
	KUNIT_CASE(wren_health_none_after_unregister),
	KUNIT_CASE(wren_health_keep_alive_param_checked),
	KUNIT_CASE(wren_health_keep_alive_param_applied),
	{}
};

static struct kunit_suite wren_health_suite = {
	.name = "wren_health",
	.test_cases = wren_health_cases,
};

kunit_test_suite(wren_health_suite);
