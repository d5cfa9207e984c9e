// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: fault injection, the host's entry.  A test names a fault in
 * text (QEMU's x-fault property, at start or through qom-set mid-run),
 * this file checks and parses it, and sets the fields of struct weng_fault
 * that the parts obey where the fault bites: the admin queue (stop, drop,
 * delay), the event queues (stall), the keep-alive timer and the wire
 * (link down).  A fatal error is the one fault applied here at once, by
 * the same path as the device's own (weng_fatal()).
 *
 * The text comes from whoever drives the host, so it is checked as
 * strictly as anything a guest writes: one request, exact names, numbers
 * in range, nothing trailing.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"

static const char *const kind_names[WENG_FAULT_KIND_COUNT] = {
	[WENG_FAULT_CLEAR] = "clear",
	[WENG_FAULT_FATAL] = "fatal",
	[WENG_FAULT_ADMIN_STOP] = "admin-stop",
	[WENG_FAULT_DROP] = "drop",
	[WENG_FAULT_DROP_ALL] = "drop-all",
	[WENG_FAULT_DELAY] = "delay",
	[WENG_FAULT_EQ_STALL] = "eq-stall",
	[WENG_FAULT_KEEP_ALIVE_STOP] = "keep-alive-stop",
	[WENG_FAULT_LINK_DOWN] = "link-down",
	[WENG_FAULT_LINK_UP] = "link-up",
};

/* Which kinds take "=VALUE" (an opcode, a code, "OPCODE:MS"). */
static bool takes_value(enum weng_fault_kind k)
{
	return k == WENG_FAULT_FATAL || k == WENG_FAULT_DROP ||
	       k == WENG_FAULT_DROP_ALL || k == WENG_FAULT_DELAY;
}

/*
 * A number in C syntax (decimal, 0x hex) from @s up to @end, or up to the
 * end of @s if @end is NULL, within [@min, @max]; 0 or -1.
 */
static int parse_num(const char *s, const char *end, unsigned long min,
		     unsigned long max, uint32_t *out)
{
	unsigned long v;
	char *stop;

	/* strtoul takes signs and blanks; a request has neither. */
	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &stop, 0);
	if (errno || stop == s || (end ? stop != end : *stop != '\0'))
		return -1;
	if (v < min || v > max)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

int weng_fault_parse(const char *text, struct weng_fault_req *req,
		     const char **why)
{
	const char *eq, *colon;
	size_t name_len;
	uint32_t v;
	int k;

	memset(req, 0, sizeof(*req));
	if (!text || !*text) {
		*why = "empty fault request";
		return -1;
	}
	eq = strchr(text, '=');
	name_len = eq ? (size_t)(eq - text) : strlen(text);
	for (k = 0; k < WENG_FAULT_KIND_COUNT; k++)
		if (strlen(kind_names[k]) == name_len &&
		    !strncmp(text, kind_names[k], name_len))
			break;
	if (k == WENG_FAULT_KIND_COUNT) {
		*why = "unknown fault (clear, fatal=CODE, admin-stop, "
		       "drop=OPCODE, drop-all=OPCODE, delay=OPCODE:MS, "
		       "eq-stall, keep-alive-stop, link-down, link-up)";
		return -1;
	}
	req->kind = k;
	if (!takes_value(k)) {
		if (eq) {
			*why = "this fault takes no value";
			return -1;
		}
		return 0;
	}
	if (!eq) {
		*why = "this fault needs a value";
		return -1;
	}
	eq++;
	switch (k) {
	case WENG_FAULT_FATAL:
		/* DEV_STS has 8 bits for it; 0 would be no error at all. */
		if (parse_num(eq, NULL, 1, 255, &v)) {
			*why = "fatal code must be 1 to 255";
			return -1;
		}
		req->value = v;
		return 0;
	case WENG_FAULT_DROP:
	case WENG_FAULT_DROP_ALL:
		if (parse_num(eq, NULL, 1, 255, &v)) {
			*why = "admin opcode must be 1 to 255";
			return -1;
		}
		req->opcode = v;
		return 0;
	default:	/* WENG_FAULT_DELAY */
		colon = strchr(eq, ':');
		if (!colon || parse_num(eq, colon, 1, 255, &v)) {
			*why = "delay takes OPCODE:MS, opcode 1 to 255";
			return -1;
		}
		req->opcode = v;
		if (parse_num(colon + 1, NULL, 1, WENG_FAULT_DELAY_MAX_MS,
			      &v)) {
			*why = "delay must be 1 to 600000 ms";
			return -1;
		}
		req->value = v;
		return 0;
	}
}

/* The link changes: tell the driver, as a real port would. */
static void link_set(struct weng *e, bool down)
{
	if (e->fault.link_down == down)
		return;
	e->fault.link_down = down;
	e->fault.stats.link_changes++;
	if (weng_enabled(e))
		weng_aeq_post(e, WREN_AEQ_LINK_CHANGE, 0, !down);
	/* What waited for the wire may go now. */
	if (!down && e->ops->host.tx_kick)
		e->ops->host.tx_kick(e->opaque);
}

void weng_fault_inject(struct weng *e, const struct weng_fault_req *req)
{
	struct weng_fault *f = &e->fault;

	if (req->kind >= WENG_FAULT_KIND_COUNT)
		return;
	f->stats.injected++;
	weng_fault_report(e, WENG_FLT_INJECT, req->kind,
			  req->kind == WENG_FAULT_DELAY ?
			  (uint64_t)req->opcode << 32 | req->value :
			  req->opcode | req->value);
	switch (req->kind) {
	case WENG_FAULT_CLEAR:
		f->admin_stop = false;
		f->drop_opcode = 0;
		f->drop_all_opcode = 0;
		f->delay_opcode = 0;
		f->delay_ms = 0;
		f->keep_alive_stop = false;
		if (f->eq_stall) {
			f->eq_stall = false;
			weng_eq_release(e);
		}
		link_set(e, false);
		break;
	case WENG_FAULT_FATAL:
		f->stats.fatal++;
		weng_fatal(e, req->value);
		break;
	case WENG_FAULT_ADMIN_STOP:
		f->admin_stop = true;
		break;
	case WENG_FAULT_DROP:
		f->drop_opcode = req->opcode;
		break;
	case WENG_FAULT_DROP_ALL:
		f->drop_all_opcode = req->opcode;
		break;
	case WENG_FAULT_DELAY:
		f->delay_opcode = req->opcode;
		f->delay_ms = req->value;
		break;
	case WENG_FAULT_EQ_STALL:
		f->eq_stall = true;
		break;
	case WENG_FAULT_KEEP_ALIVE_STOP:
		f->keep_alive_stop = true;
		break;
	case WENG_FAULT_LINK_DOWN:
		link_set(e, true);
		break;
	case WENG_FAULT_LINK_UP:
		link_set(e, false);
		break;
	case WENG_FAULT_KIND_COUNT:
		break;
	}
}

/*
 * A function-level reset restarts a device that hung: the faults that
 * make it hang (the admin queue, the event queues, the keep-alive) end
 * with the reset, as a driver's recovery expects.  The faults aimed at
 * commands and the link's state are the test's, not the device's, and
 * stay.
 */
void weng_fault_reset(struct weng *e)
{
	e->fault.admin_stop = false;
	e->fault.eq_stall = false;
	e->fault.keep_alive_stop = false;
}

void weng_fault_get_stats(const struct weng *e, struct weng_fault_stats *st)
{
	*st = e->fault.stats;
}

void weng_fault_describe(const struct weng *e, char *buf, size_t len)
{
	const struct weng_fault *f = &e->fault;
	size_t n = 0;

#define PUT(...)	do {						\
	int r_ = snprintf(buf + n, len - n, "%s", n ? " " : "");	\
									\
	if (r_ > 0 && (size_t)r_ < len - n)				\
		n += r_;						\
	r_ = snprintf(buf + n, len - n, __VA_ARGS__);			\
	if (r_ > 0 && (size_t)r_ < len - n)				\
		n += r_;						\
} while (0)

	if (!len)
		return;
	buf[0] = '\0';
	if (f->admin_stop)
		PUT("admin-stop");
	if (f->drop_opcode)
		PUT("drop=0x%02x", f->drop_opcode);
	if (f->drop_all_opcode)
		PUT("drop-all=0x%02x", f->drop_all_opcode);
	if (f->delay_opcode)
		PUT("delay=0x%02x:%u", f->delay_opcode, f->delay_ms);
	if (f->eq_stall)
		PUT("eq-stall");
	if (f->keep_alive_stop)
		PUT("keep-alive-stop");
	if (f->link_down)
		PUT("link-down");
#undef PUT
}
