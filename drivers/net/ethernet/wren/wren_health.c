// SPDX-License-Identifier: GPL-2.0
/*
 * Wren devlink health: the reporters "fatal", "keep_alive" and "admin",
 * their diagnose (the device's state in pairs) and dump (the rings, the
 * transport-context table, the counters).
 *
 * The admin queue and the async event queue tell of an error through
 * wren_health_fatal(), wren_health_keep_alive_lost() and
 * wren_health_admin_timeout(); these only queue the event.  A work item
 * reports it, because devlink_health_report() sleeps and takes the devlink
 * instance lock (to store the dump), while the event comes from interrupt
 * context (a fatal event) or from an admin command that a devlink
 * operation, holding that lock, may have sent (setting keep_alive_ms).
 *
 * Every error reported here has fenced the device first.  The reporters'
 * recover operation is wren_recover(): devlink runs it after the report
 * (auto_recover, on by default) or on "devlink health recover", and the
 * reporter is healthy again once the device is back.
 */
#ifdef HAVE_KUNIT_STATIC_STUB
#include <kunit/static_stub.h>
#endif
#include <linux/jiffies.h>
#include <net/devlink.h>

#include "wren_dev.h"

/*
 * After a recovery, a report on the same reporter within this time is not
 * recovered automatically: a fault that comes back at once (a device that
 * fails its every bring-up) leaves the reporter in error and the device
 * down, for "devlink health recover", instead of resetting it in a loop.
 * "devlink health set ... grace_period" changes it.
 */
#define WREN_HEALTH_GRACE_MS	60000

/* Records of the table a dump shows at most: a dump is one message. */
#define WREN_HEALTH_TC_DUMP_MAX	256

/*
 * From 6.7 the devlink_fmsg_*() functions return nothing: the message
 * keeps its first error itself.  Before, each returns an errno that the
 * caller must stop at; wren_fmsg() keeps the first one in @w->err.
 */
#ifdef HAVE_DEVLINK_FMSG_VOID
#define wren_fmsg(w, fn, ...)	fn((w)->fmsg, ##__VA_ARGS__)
#else
#define wren_fmsg(w, fn, ...)					\
	do {							\
		struct wren_fmsg *_w = (w);			\
								\
		if (!_w->err)					\
			_w->err = fn(_w->fmsg, ##__VA_ARGS__);	\
	} while (0)
#endif

/**
 * struct wren_fmsg - a devlink message being written
 * @fmsg: the message
 * @err: the first error (before 6.7 only; always 0 after)
 */
struct wren_fmsg {
	struct devlink_fmsg *fmsg;
	int err;
};

static const char *const wren_health_names[WREN_HEALTH_NUM] = {
	[WREN_HEALTH_FATAL] = "fatal",
	[WREN_HEALTH_KEEP_ALIVE] = "keep_alive",
	[WREN_HEALTH_ADMIN] = "admin",
};

static const char *const wren_fatal_names[] = {
	[WREN_FATAL_NONE] = "none",
	[WREN_FATAL_BAD_QUEUE_CFG] = "bad queue configuration",
	[WREN_FATAL_DMA] = "host memory unreachable",
	[WREN_FATAL_INTERNAL] = "internal",
};

static const char *wren_fatal_name(u32 code)
{
	if (code < ARRAY_SIZE(wren_fatal_names))
		return wren_fatal_names[code];
	return "unknown";
}

static const char *const wren_health_tc_states[] = {
	[WREN_TC_STATE_FREE] = "free",
	[WREN_TC_STATE_CACHED] = "cached",
	[WREN_TC_STATE_SPILLED] = "spilled",
	[3] = "invalid",
};

/*
 * Queue @ev for the work item, unless the reporters are going away.  The
 * one place an event enters, so that a KUnit suite sees each one (its
 * static stubs do not reach the work item's thread).
 */
VISIBLE_IF_KUNIT void wren_health_queue(struct wren_dev *wdev,
					const struct wren_health_event *ev)
{
	struct wren_health *h = &wdev->health;
	unsigned long flags;

#ifdef HAVE_KUNIT_STATIC_STUB
	KUNIT_STATIC_STUB_REDIRECT(wren_health_queue, wdev, ev);
#endif
	spin_lock_irqsave(&h->lock, flags);
	if (!h->active) {
		spin_unlock_irqrestore(&h->lock, flags);
		return;
	}
	if (h->tail - h->head < ARRAY_SIZE(h->events)) {
		h->events[h->tail % ARRAY_SIZE(h->events)] = *ev;
		h->tail++;
	} else {
		/* A burst larger than the queue: counted, not reported. */
		h->dropped++;
	}
	spin_unlock_irqrestore(&h->lock, flags);
	schedule_work(&h->work);
}
EXPORT_SYMBOL_IF_KUNIT(wren_health_queue);

/**
 * wren_health_fatal() - the device reported a fatal error
 * @wdev: the device
 * @code: &enum wren_fatal_code, from the async event or DEV_STS
 *
 * May be called in any context.  Reported once until the device is
 * brought up again (wren_health_rearm()).
 */
void wren_health_fatal(struct wren_dev *wdev, u32 code)
{
	struct wren_health_event ev = {
		.reporter = WREN_HEALTH_FATAL,
		.value = code,
	};
	struct wren_health *h = &wdev->health;
	unsigned long flags;
	bool first;

	spin_lock_irqsave(&h->lock, flags);
	first = !h->fatal_seen;
	if (first) {
		h->fatal_seen = true;
		h->fatal_code = code;
	}
	spin_unlock_irqrestore(&h->lock, flags);
	if (first)
		wren_health_queue(wdev, &ev);
}

/**
 * wren_health_keep_alive_lost() - no keep-alive event came for a while
 * @wdev: the device
 * @silent_ms: for how long
 */
void wren_health_keep_alive_lost(struct wren_dev *wdev, u32 silent_ms)
{
	struct wren_health_event ev = {
		.reporter = WREN_HEALTH_KEEP_ALIVE,
		.value = silent_ms,
	};

	wren_health_queue(wdev, &ev);
}

/**
 * wren_health_admin_timeout() - an admin command got no completion in time
 * @wdev: the device
 * @opcode: the command's &enum wren_admin_opcode
 * @cmd_id: the id it was posted with
 *
 * Also reads DEV_STS: a device that stopped answering because it failed
 * says so there, and that is reported as fatal.
 */
void wren_health_admin_timeout(struct wren_dev *wdev, u8 opcode, u16 cmd_id)
{
	struct wren_health_event ev = {
		.reporter = WREN_HEALTH_ADMIN,
		.opcode = opcode,
		.cmd_id = cmd_id,
		.value = wdev->admin.timeout_ms,
	};
	u32 sts;

	wren_health_queue(wdev, &ev);
	sts = wren_rd(wdev, WREN_REG_DEV_STS);
	/* All ones is a device that does not answer reads, not a fatal code. */
	if (sts != U32_MAX && sts & WREN_DEV_STS_FATAL)
		wren_health_fatal(wdev, FIELD_GET(WREN_DEV_STS_FATAL_CODE, sts));
}

/* @ev becomes the dump's context: devlink takes it as void *. */
static void wren_health_report(struct wren_dev *wdev,
			       struct wren_health_event *ev)
{
	struct devlink_health_reporter *r;
	char msg[80];

	r = wdev->health.reporters[ev->reporter];
	if (!r)
		return;
	switch (ev->reporter) {
	case WREN_HEALTH_FATAL:
		snprintf(msg, sizeof(msg), "device fatal error %u (%s)",
			 ev->value, wren_fatal_name(ev->value));
		break;
	case WREN_HEALTH_KEEP_ALIVE:
		snprintf(msg, sizeof(msg), "no keep-alive event for %u ms",
			 ev->value);
		break;
	default:
		snprintf(msg, sizeof(msg),
			 "admin command %s (id 0x%04x) timed out after %u ms",
			 wren_admin_opcode_name(ev->opcode), ev->cmd_id,
			 ev->value);
		break;
	}
	/* Counts, stores a dump, notifies, then recovers (auto_recover). */
	devlink_health_report(r, msg, ev);
}

static void wren_health_work(struct work_struct *work)
{
	struct wren_dev *wdev = container_of(work, struct wren_dev,
					     health.work);
	struct wren_health *h = &wdev->health;
	struct wren_health_event ev;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&h->lock, flags);
		if (h->head == h->tail) {
			spin_unlock_irqrestore(&h->lock, flags);
			return;
		}
		ev = h->events[h->head % ARRAY_SIZE(h->events)];
		h->head++;
		spin_unlock_irqrestore(&h->lock, flags);

		wren_health_report(wdev, &ev);
	}
}

/**
 * wren_health_init() - prepare to take events, before any can come
 * @wdev: the device
 *
 * Events are reported from now on, to the reporters once
 * wren_health_register() made them.
 */
void wren_health_init(struct wren_dev *wdev)
{
	struct wren_health *h = &wdev->health;

	spin_lock_init(&h->lock);
	INIT_WORK(&h->work, wren_health_work);
	h->active = true;
}
EXPORT_SYMBOL_IF_KUNIT(wren_health_init);

/* ---- diagnose and dump ---- */

static void wren_health_put_status(struct wren_fmsg *w, struct wren_dev *wdev)
{
	struct wren_health *h = &wdev->health;
	u32 sts = wren_rd(wdev, WREN_REG_DEV_STS);
	char decoded[32];

	snprintf(decoded, sizeof(decoded), "%s%s%s",
		 sts & WREN_DEV_STS_READY ? "ready " : "",
		 sts & WREN_DEV_STS_ENABLED ? "enabled " : "",
		 sts & WREN_DEV_STS_FATAL ? "fatal " : "");
	/* A device that fell off the bus reads all ones. */
	if (sts == U32_MAX)
		strscpy(decoded, "unreadable ", sizeof(decoded));
	if (decoded[0])
		decoded[strlen(decoded) - 1] = '\0';
	else
		strscpy(decoded, "none", sizeof(decoded));

	wren_fmsg(w, devlink_fmsg_pair_nest_start, "device");
	wren_fmsg(w, devlink_fmsg_obj_nest_start);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "dev_sts", sts);
	wren_fmsg(w, devlink_fmsg_string_pair_put, "status", decoded);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "sts_fatal_code",
		  (u32)FIELD_GET(WREN_DEV_STS_FATAL_CODE, sts));
	wren_fmsg(w, devlink_fmsg_bool_pair_put, "dead", wren_dead(wdev));
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "fatal_code",
		  READ_ONCE(h->fatal_code));
	wren_fmsg(w, devlink_fmsg_string_pair_put, "fatal",
		  READ_ONCE(h->fatal_seen) ?
		  wren_fatal_name(READ_ONCE(h->fatal_code)) : "none");
	wren_fmsg(w, devlink_fmsg_obj_nest_end);
	wren_fmsg(w, devlink_fmsg_pair_nest_end);
}

static void wren_health_put_admin(struct wren_fmsg *w, struct wren_dev *wdev)
{
	struct wren_admin *aq = &wdev->admin;
	u32 depth = 1U << aq->log_depth, busy = 0, i;
	u16 head, tail, cq_head;
	unsigned long flags;

	spin_lock_irqsave(&aq->lock, flags);
	head = aq->sq_head;
	tail = aq->sq_tail;
	cq_head = aq->cq_head;
	for (i = 0; i < depth; i++)
		busy += aq->ctx[i].busy;
	spin_unlock_irqrestore(&aq->lock, flags);

	wren_fmsg(w, devlink_fmsg_pair_nest_start, "admin_queue");
	wren_fmsg(w, devlink_fmsg_obj_nest_start);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "depth", depth);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "head", head);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "tail", tail);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "cq_head", cq_head);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "outstanding", busy);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "timeout_ms", aq->timeout_ms);
	wren_fmsg(w, devlink_fmsg_bool_pair_put, "polled", aq->poll);
	wren_fmsg(w, devlink_fmsg_obj_nest_end);
	wren_fmsg(w, devlink_fmsg_pair_nest_end);
}

static void wren_health_put_aeq(struct wren_fmsg *w, struct wren_dev *wdev)
{
	unsigned long last = READ_ONCE(wdev->keep_alive_last);

	wren_fmsg(w, devlink_fmsg_pair_nest_start, "async_events");
	wren_fmsg(w, devlink_fmsg_obj_nest_start);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "depth", 1U << WREN_AEQ_LOG_DEPTH);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "head", READ_ONCE(wdev->aeq_head));
	wren_fmsg(w, devlink_fmsg_obj_nest_end);
	wren_fmsg(w, devlink_fmsg_pair_nest_end);

	wren_fmsg(w, devlink_fmsg_pair_nest_start, "keep_alive");
	wren_fmsg(w, devlink_fmsg_obj_nest_start);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "period_ms",
		  READ_ONCE(wdev->keep_alive_ms));
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "events",
		  atomic64_read(&wdev->stats.keep_alives));
	/* U32_MAX: none came since the driver was loaded. */
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "last_seen_ms_ago",
		  last ? jiffies_to_msecs(jiffies - last) : U32_MAX);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "missed_periods",
		  READ_ONCE(wdev->keep_alive_missed));
	wren_fmsg(w, devlink_fmsg_obj_nest_end);
	wren_fmsg(w, devlink_fmsg_pair_nest_end);
}

static void wren_health_put_counters(struct wren_fmsg *w, struct wren_dev *wdev)
{
	const struct wren_stats *s = &wdev->stats;

	wren_fmsg(w, devlink_fmsg_pair_nest_start, "counters");
	wren_fmsg(w, devlink_fmsg_obj_nest_start);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "admin_cmds", s->admin_cmds);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "admin_errors", s->admin_errors);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "admin_timeouts",
		  s->admin_timeouts);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "admin_stale_completions",
		  s->admin_stale);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "keep_alives",
		  atomic64_read(&s->keep_alives));
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "keep_alive_lost",
		  s->keep_alive_lost);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "async_events", s->aeq_events);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "async_warnings",
		  s->aeq_warnings);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "link_changes", s->link_changes);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "cq_errors", s->cq_errors);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "unknown_eq_events",
		  atomic64_read(&s->eqe_unknown));
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "health_events_dropped",
		  READ_ONCE(wdev->health.dropped));
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "recoveries", s->recoveries);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "recovery_failures",
		  s->recovery_failures);
	wren_fmsg(w, devlink_fmsg_u64_pair_put, "last_recovery_ms",
		  s->last_recovery_ms);
	wren_fmsg(w, devlink_fmsg_obj_nest_end);
	wren_fmsg(w, devlink_fmsg_pair_nest_end);
}

static int wren_health_diagnose(struct devlink_health_reporter *reporter,
				struct devlink_fmsg *fmsg,
				struct netlink_ext_ack *extack)
{
	struct wren_dev *wdev = devlink_health_reporter_priv(reporter);
	struct wren_fmsg w = { .fmsg = fmsg };

	wren_health_put_status(&w, wdev);
	wren_health_put_admin(&w, wdev);
	wren_health_put_aeq(&w, wdev);
	wren_health_put_counters(&w, wdev);
	return w.err;
}

static void wren_health_put_ring(struct wren_fmsg *w, const char *name,
				 u32 id, u32 depth, u32 head, u32 tail)
{
	wren_fmsg(w, devlink_fmsg_obj_nest_start);
	wren_fmsg(w, devlink_fmsg_string_pair_put, "name", name);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "id", id);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "depth", depth);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "head", head);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "tail", tail);
	wren_fmsg(w, devlink_fmsg_obj_nest_end);
}

/*
 * Every ring with its indices.  Only the admin queue's producer index is
 * the driver's; for the others "tail" is the driver's consumer index too,
 * as it does not know how far the device wrote.
 */
static void wren_health_put_rings(struct wren_fmsg *w, struct wren_dev *wdev)
{
	struct wren_admin *aq = &wdev->admin;
	u32 depth = 1U << aq->log_depth;
	u16 head, tail, cq_head;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&aq->lock, flags);
	head = aq->sq_head;
	tail = aq->sq_tail;
	cq_head = aq->cq_head;
	spin_unlock_irqrestore(&aq->lock, flags);

	wren_fmsg(w, devlink_fmsg_arr_pair_nest_start, "rings");
	wren_health_put_ring(w, "admin_queue", 0, depth, head, tail);
	wren_health_put_ring(w, "admin_cq", 0, depth, cq_head, cq_head);
	wren_health_put_ring(w, "async_events", 0, 1U << WREN_AEQ_LOG_DEPTH,
			     READ_ONCE(wdev->aeq_head),
			     READ_ONCE(wdev->aeq_head));
	for (i = 0; i < wdev->num_eqs; i++) {
		const struct wren_eq *eq = &wdev->eqs[i];
		u32 eq_head = READ_ONCE(eq->head);

		wren_health_put_ring(w, "eq", eq->id, 1U << WREN_EQ_LOG_DEPTH,
				     eq_head, eq_head);
	}
	wren_fmsg(w, devlink_fmsg_arr_pair_nest_end);
}

/*
 * The table's records in use, read while the device may write them: a
 * view for people, like its debugfs file.
 */
static void wren_health_put_tc_table(struct wren_fmsg *w,
				     struct wren_dev *wdev)
{
	u32 records = wdev->tc_table ? 1U << wdev->tc_log : 0;
	u32 i, in_use = 0, shown = 0;
	char addr[16];

	wren_fmsg(w, devlink_fmsg_pair_nest_start, "tc_table");
	wren_fmsg(w, devlink_fmsg_obj_nest_start);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "records", records);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "record_size",
		  (u32)sizeof(struct wren_tc_entry));
	wren_fmsg(w, devlink_fmsg_arr_pair_nest_start, "in_use");
	for (i = 0; i < records; i++) {
		const struct wren_tc_entry *t = &wdev->tc_table[i];
		u32 state = FIELD_GET(WREN_TC_STATE,
				      le32_to_cpu(READ_ONCE(t->flags)));

		if (state == WREN_TC_STATE_FREE)
			continue;
		in_use++;
		if (shown == WREN_HEALTH_TC_DUMP_MAX)
			continue;
		shown++;
		snprintf(addr, sizeof(addr), "%pI4", &t->ipv4_addr);
		wren_fmsg(w, devlink_fmsg_obj_nest_start);
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "index", i);
		wren_fmsg(w, devlink_fmsg_string_pair_put, "state",
			  wren_health_tc_states[state]);
		wren_fmsg(w, devlink_fmsg_string_pair_put, "target", addr);
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "class",
			  le32_to_cpu(t->class_id));
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "epoch",
			  le32_to_cpu(t->epoch));
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "session",
			  le32_to_cpu(t->session));
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "psn",
			  le32_to_cpu(t->psn));
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "msn",
			  le32_to_cpu(t->msn));
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "cwnd",
			  le32_to_cpu(t->cwnd));
		wren_fmsg(w, devlink_fmsg_u64_pair_put, "srtt_ns",
			  le64_to_cpu(t->srtt_ns));
		wren_fmsg(w, devlink_fmsg_obj_nest_end);
	}
	wren_fmsg(w, devlink_fmsg_arr_pair_nest_end);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "records_in_use", in_use);
	wren_fmsg(w, devlink_fmsg_u32_pair_put, "records_shown", shown);
	wren_fmsg(w, devlink_fmsg_obj_nest_end);
	wren_fmsg(w, devlink_fmsg_pair_nest_end);
}

/* What the report was about, for the dump stored with it. */
static void wren_health_put_event(struct wren_fmsg *w,
				  const struct wren_health_event *ev)
{
	wren_fmsg(w, devlink_fmsg_pair_nest_start, "event");
	wren_fmsg(w, devlink_fmsg_obj_nest_start);
	wren_fmsg(w, devlink_fmsg_string_pair_put, "reporter",
		  wren_health_names[ev->reporter]);
	switch (ev->reporter) {
	case WREN_HEALTH_FATAL:
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "fatal_code", ev->value);
		wren_fmsg(w, devlink_fmsg_string_pair_put, "fatal",
			  wren_fatal_name(ev->value));
		break;
	case WREN_HEALTH_KEEP_ALIVE:
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "silent_ms", ev->value);
		break;
	default:
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "opcode", ev->opcode);
		wren_fmsg(w, devlink_fmsg_string_pair_put, "command",
			  wren_admin_opcode_name(ev->opcode));
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "cmd_id", ev->cmd_id);
		wren_fmsg(w, devlink_fmsg_u32_pair_put, "timeout_ms", ev->value);
		break;
	}
	wren_fmsg(w, devlink_fmsg_obj_nest_end);
	wren_fmsg(w, devlink_fmsg_pair_nest_end);
}

static int wren_health_dump(struct devlink_health_reporter *reporter,
			    struct devlink_fmsg *fmsg, void *priv_ctx,
			    struct netlink_ext_ack *extack)
{
	struct wren_dev *wdev = devlink_health_reporter_priv(reporter);
	struct wren_fmsg w = { .fmsg = fmsg };

	/* Set when devlink stores the dump of a report, NULL on request. */
	if (priv_ctx)
		wren_health_put_event(&w, priv_ctx);
	wren_health_put_rings(&w, wdev);
	wren_health_put_tc_table(&w, wdev);
	wren_health_put_counters(&w, wdev);
	return w.err;
}

/**
 * wren_health_rearm() - the device was reset: its next fatal error counts
 * @wdev: the device
 */
void wren_health_rearm(struct wren_dev *wdev)
{
	struct wren_health *h = &wdev->health;
	unsigned long flags;

	spin_lock_irqsave(&h->lock, flags);
	h->fatal_seen = false;
	h->fatal_code = WREN_FATAL_NONE;
	spin_unlock_irqrestore(&h->lock, flags);
}

static int wren_health_recover(struct devlink_health_reporter *reporter,
			       void *priv_ctx, struct netlink_ext_ack *extack)
{
	int err = wren_recover(devlink_health_reporter_priv(reporter));

	if (err)
		NL_SET_ERR_MSG_MOD(extack, "the device did not come back up");
	return err;
}

/* The same operations under three names: each reporter is one concern. */
static const struct devlink_health_reporter_ops
wren_health_ops[WREN_HEALTH_NUM] = {
	[WREN_HEALTH_FATAL] = {
		.name = "fatal",
		.recover = wren_health_recover,
		.diagnose = wren_health_diagnose,
		.dump = wren_health_dump,
	},
	[WREN_HEALTH_KEEP_ALIVE] = {
		.name = "keep_alive",
		.recover = wren_health_recover,
		.diagnose = wren_health_diagnose,
		.dump = wren_health_dump,
	},
	[WREN_HEALTH_ADMIN] = {
		.name = "admin",
		.recover = wren_health_recover,
		.diagnose = wren_health_diagnose,
		.dump = wren_health_dump,
	},
};

/**
 * wren_health_register() - create the reporters
 * @wdev: the device, its devlink instance registered
 *
 * A reporter that cannot be made is left out, with a warning: the device
 * works without it.
 */
void wren_health_register(struct wren_dev *wdev)
{
	struct devlink *devlink = priv_to_devlink(wdev);
	struct devlink_health_reporter *r;
	unsigned int i;

	for (i = 0; i < WREN_HEALTH_NUM; i++) {
		r = devlink_health_reporter_create(devlink, &wren_health_ops[i],
						   WREN_HEALTH_GRACE_MS, wdev);
		if (IS_ERR(r)) {
			dev_warn(&wdev->pdev->dev,
				 "no devlink health reporter %s: %ld\n",
				 wren_health_names[i], PTR_ERR(r));
			continue;
		}
		wdev->health.reporters[i] = r;
	}
}

/**
 * wren_health_unregister() - stop reporting and destroy the reporters
 * @wdev: the device, its devlink instance still registered
 *
 * Events that come later are dropped; the work item is finished when this
 * returns.
 */
void wren_health_unregister(struct wren_dev *wdev)
{
	struct wren_health *h = &wdev->health;
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&h->lock, flags);
	h->active = false;
	spin_unlock_irqrestore(&h->lock, flags);
	cancel_work_sync(&h->work);
	for (i = 0; i < WREN_HEALTH_NUM; i++) {
		if (h->reporters[i])
			devlink_health_reporter_destroy(h->reporters[i]);
		h->reporters[i] = NULL;
	}
}
EXPORT_SYMBOL_IF_KUNIT(wren_health_unregister);
