// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* The TAP of tools/rdtest's host self-tests (tap.h). */
#include <stdarg.h>
#include <stdio.h>

#include "tap.h"

static int tests, failed;

void ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	tests++;
	failed += !cond;
	printf("%s %d - ", cond ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int tap_done(void)
{
	printf("%d passed, %d failed\n", tests - failed, failed);
	return failed ? 1 : 0;
}
