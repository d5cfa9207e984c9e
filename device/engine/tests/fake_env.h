/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An in-memory host for the engine's unit tests: a window of fake guest
 * memory, a clock that only moves when a test says so, timers fired by
 * that clock, and counters for interrupts and guest-mistake reports.
 */
#ifndef WREN_FAKE_ENV_H
#define WREN_FAKE_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../wren_env.h"

/* Guest memory is the window [FAKE_MEM_BASE, FAKE_MEM_BASE + FAKE_MEM_SIZE). */
#define FAKE_MEM_BASE		0x100000ULL
#define FAKE_MEM_SIZE		(1U << 20)
#define FAKE_MAX_TIMERS		8
#define FAKE_MAX_VECTORS	64

struct fake_timer {
	bool allocated;
	bool armed;
	uint64_t expire_ns;
	void (*cb)(void *arg);
	void *arg;
};

struct fake_env {
	uint8_t *mem;
	uint64_t now_ns;
	struct fake_timer timers[FAKE_MAX_TIMERS];
	unsigned int irqs[FAKE_MAX_VECTORS];
	unsigned int warnings[WREN_WRN_COUNT];
	uint64_t last_warn_a, last_warn_b;
	unsigned int dma_errors;
};

extern const struct wren_env_ops fake_env_ops;

void fake_env_init(struct fake_env *env);
void fake_env_fini(struct fake_env *env);
/* Move the clock forward, firing every timer that expires on the way. */
void fake_env_advance(struct fake_env *env, uint64_t ns);
/* A pointer into guest memory for [addr, addr + len), or NULL. */
void *fake_env_ptr(struct fake_env *env, uint64_t addr, size_t len);
unsigned int fake_env_armed_timers(const struct fake_env *env);
unsigned int fake_env_total_warnings(const struct fake_env *env);

#endif /* WREN_FAKE_ENV_H */
