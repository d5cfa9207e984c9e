/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * An in-memory host for the engine's unit tests: a window of fake guest
 * memory, a clock that only moves when a test says so, timers fired by
 * that clock, and counters for interrupts and guest-mistake reports.
 */
#ifndef WENG_FAKE_ENV_H
#define WENG_FAKE_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "weng_env.h"

struct weng;

/* Guest memory is the window [FAKE_MEM_BASE, FAKE_MEM_BASE + FAKE_MEM_SIZE). */
#define FAKE_MEM_BASE		0x100000ULL
#define FAKE_MEM_SIZE		(1U << 20)
/*
 * Where the adapter's BARs are mapped, as a PCI host would map them: a DMA
 * that reaches them is dispatched to the engine's register handlers of
 * fake_env.bars, 4 bytes at a time, as QEMU's memory core would.
 */
#define FAKE_BAR0_BASE		0x40000000ULL
#define FAKE_DB_BAR_BASE	0x40100000ULL
#define FAKE_DB_BAR_SIZE	0x100000ULL
/*
 * Beyond it, [FAKE_BIG_BASE, FAKE_BIG_BASE + FAKE_BIG_SIZE) is memory no
 * test could afford to back: a read returns fake_env_pattern() of each
 * byte's address, a write is compared with it and counted, so a message
 * of gigabytes moved between the same addresses of two hosts is checked
 * byte for byte in no memory.
 */
#define FAKE_BIG_BASE		(1ULL << 40)
#define FAKE_BIG_SIZE		(1ULL << 32)
#define FAKE_MAX_TIMERS		12
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
	unsigned int warnings[WENG_WRN_COUNT];
	uint64_t last_warn_a, last_warn_b;
	unsigned int faults[WENG_FLT_COUNT];	/* reports of injected faults */
	unsigned int dma_errors;
	uint64_t big_written;	/* bytes written into the pattern window */
	uint64_t big_wrong;	/* ... of them not the pattern's */
	struct weng *bars;	/* the engine behind the BARs, or NULL */
	unsigned int mmio;	/* DMA accesses dispatched to the BARs */
	unsigned int tx_kicks;	/* the engine asked to be pulled */
	/*
	 * Guest memory no command or entry ever named (set by a test; empty
	 * by default): every DMA that touches it is counted, a device
	 * reaching where the guest never pointed it.
	 */
	uint64_t guard_lo, guard_hi;
	unsigned int guard_hits;
};

extern const struct weng_env_ops fake_env_ops;

void fake_env_init(struct fake_env *env);
void fake_env_fini(struct fake_env *env);
/* Move the clock forward, firing every timer that expires on the way. */
void fake_env_advance(struct fake_env *env, uint64_t ns);
/* A pointer into guest memory for [addr, addr + len), or NULL. */
void *fake_env_ptr(struct fake_env *env, uint64_t addr, size_t len);
/* The bytes of the pattern window at [addr, addr + len). */
void fake_env_pattern(uint64_t addr, uint8_t *buf, size_t len);
unsigned int fake_env_armed_timers(const struct fake_env *env);
unsigned int fake_env_total_warnings(const struct fake_env *env);

#endif /* WENG_FAKE_ENV_H */
