/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The TAP of tools/rdtest's host self-tests: "ok N - what" or "not ok N
 * - what" per check, then "N passed, N failed".
 */
#ifndef WREN_RDTEST_TAP_H
#define WREN_RDTEST_TAP_H

#include <stdbool.h>

void ok(bool cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last line; the exit status: 1 if any check failed. */
int tap_done(void);

#endif /* WREN_RDTEST_TAP_H */
