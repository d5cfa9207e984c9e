/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A minimal TAP producer: each test function is one TAP test point; the
 * CHECK macros record the first failure with its line and keep going so a
 * test point reports everything that is wrong.
 */
#ifndef WREN_TAP_H
#define WREN_TAP_H

#include <stdio.h>

extern int tap_failed_checks;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			tap_failed_checks++;				\
			printf("#   %s:%d: check failed: %s\n",		\
			       __FILE__, __LINE__, #cond);		\
		}							\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		unsigned long long a_ = (unsigned long long)(a);	\
		unsigned long long b_ = (unsigned long long)(b);	\
		if (a_ != b_) {						\
			tap_failed_checks++;				\
			printf("#   %s:%d: %s == %s: 0x%llx != 0x%llx\n",	\
			       __FILE__, __LINE__, #a, #b, a_, b_);	\
		}							\
	} while (0)

#endif /* WREN_TAP_H */
