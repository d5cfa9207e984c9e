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

struct tap_test {
	const char *name;
	void (*fn)(void);
};

/* Run @n tests as TAP test points; the exit status of the program. */
static inline int tap_run(const struct tap_test *tests, unsigned int n)
{
	unsigned int passed = 0, failed = 0;

	printf("TAP version 13\n1..%u\n", n);
	for (unsigned int i = 0; i < n; i++) {
		int before = tap_failed_checks;

		tests[i].fn();
		if (tap_failed_checks == before) {
			passed++;
			printf("ok %u - %s\n", i + 1, tests[i].name);
		} else {
			failed++;
			printf("not ok %u - %s\n", i + 1, tests[i].name);
		}
		fflush(stdout);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

#endif /* WREN_TAP_H */
