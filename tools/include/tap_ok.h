/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * TAP for the tools' self-tests: ok() is one test point, tap_done() the
 * closing "N passed, N failed" line and the exit status.
 */
#ifndef WREN_TOOLS_TAP_OK_H
#define WREN_TOOLS_TAP_OK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static int tap_tests, tap_failed;

static inline void ok(bool cond, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tap_tests++;
	if (!cond)
		tap_failed++;
	printf("%s %d - ", cond ? "ok" : "not ok", tap_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static inline int tap_done(void)
{
	printf("%d passed, %d failed\n", tap_tests - tap_failed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* WREN_TOOLS_TAP_OK_H */
