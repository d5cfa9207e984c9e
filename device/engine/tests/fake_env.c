// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The unit tests' host: see fake_env.h.
 */
#include <stdlib.h>
#include <string.h>

#include "wren_compat.h"
#include "linux/wren/wren_if.h"
#include "fake_env.h"
#include "weng.h"

void *fake_env_ptr(struct fake_env *env, uint64_t addr, size_t len)
{
	if (addr < FAKE_MEM_BASE || len > FAKE_MEM_SIZE ||
	    addr - FAKE_MEM_BASE > FAKE_MEM_SIZE - len)
		return NULL;
	return env->mem + (addr - FAKE_MEM_BASE);
}

/* Each 8-byte word of the pattern window from its address alone. */
static uint64_t pattern_word(uint64_t addr)
{
	uint64_t x = (addr >> 3) * 0x9e3779b97f4a7c15ULL;

	return x ^ x >> 29;
}

void fake_env_pattern(uint64_t addr, uint8_t *buf, size_t len)
{
	while (len) {
		uint64_t w = pattern_word(addr & ~7ULL);
		unsigned int at = addr & 7;
		size_t n = len < 8U - at ? len : 8U - at;

		if (n == 8) {
			w = wren_to_le64(w);
			memcpy(buf, &w, 8);
		} else {
			for (size_t i = 0; i < n; i++)
				buf[i] = w >> (8 * (at + i));
		}
		addr += n;
		buf += n;
		len -= n;
	}
}

static bool in_big(uint64_t addr, size_t len)
{
	return addr >= FAKE_BIG_BASE && len <= FAKE_BIG_SIZE &&
	       addr - FAKE_BIG_BASE <= FAKE_BIG_SIZE - len;
}

/* A write into the pattern window: count its bytes and the wrong ones. */
static void big_write(struct fake_env *env, uint64_t addr, const uint8_t *buf,
		      size_t len)
{
	uint8_t want[256];

	env->big_written += len;
	while (len) {
		size_t n = len < sizeof(want) ? len : sizeof(want);

		fake_env_pattern(addr, want, n);
		if (memcmp(want, buf, n))
			for (size_t i = 0; i < n; i++)
				env->big_wrong += want[i] != buf[i];
		addr += n;
		buf += n;
		len -= n;
	}
}

/*
 * A DMA into one of the adapter's BARs becomes register accesses, as on a
 * real PCI host; true if @addr is there.
 */
static bool bar_access(struct fake_env *env, uint64_t addr, void *buf,
		       size_t len, bool write)
{
	uint8_t *b = buf;
	bool bar0 = addr >= FAKE_BAR0_BASE &&
		    addr - FAKE_BAR0_BASE < WREN_REG_BAR_SIZE;
	bool db = addr >= FAKE_DB_BAR_BASE &&
		  addr - FAKE_DB_BAR_BASE < FAKE_DB_BAR_SIZE;

	if (!env->bars || (!bar0 && !db))
		return false;
	for (size_t i = 0; i < len; i += 4) {
		uint64_t off = addr + i - (bar0 ? FAKE_BAR0_BASE :
					   FAKE_DB_BAR_BASE);
		uint32_t v = 0;

		env->mmio++;
		if (write) {
			memcpy(&v, b + i, len - i < 4 ? len - i : 4);
			if (bar0)
				weng_reg_write(env->bars, off, v, 4);
			else
				weng_db_write(env->bars, off, v, 4);
		} else {
			v = bar0 ? weng_reg_read(env->bars, off, 4) :
				   weng_db_read(env->bars, off, 4);
			memcpy(b + i, &v, len - i < 4 ? len - i : 4);
		}
	}
	return true;
}

/* Count an access to [addr, addr + len) that touches the guard window. */
static void guard_check(struct fake_env *env, uint64_t addr, size_t len)
{
	if (len && addr < env->guard_hi &&
	    (addr >= env->guard_lo || env->guard_lo - addr < len))
		env->guard_hits++;
}

static int fake_dma_read(void *opaque, uint64_t addr, void *buf, size_t len)
{
	struct fake_env *env = opaque;
	void *p = fake_env_ptr(env, addr, len);

	guard_check(env, addr, len);

	if (bar_access(env, addr, buf, len, false))
		return 0;
	if (in_big(addr, len)) {
		fake_env_pattern(addr, buf, len);
		return 0;
	}
	if (!p) {
		env->dma_errors++;
		return -1;
	}
	memcpy(buf, p, len);
	return 0;
}

static int fake_dma_write(void *opaque, uint64_t addr, const void *buf,
			  size_t len)
{
	struct fake_env *env = opaque;
	void *p = fake_env_ptr(env, addr, len);

	guard_check(env, addr, len);
	if (bar_access(env, addr, (void *)buf, len, true))
		return 0;
	if (in_big(addr, len)) {
		big_write(env, addr, buf, len);
		return 0;
	}
	if (!p) {
		env->dma_errors++;
		return -1;
	}
	memcpy(p, buf, len);
	return 0;
}

static void fake_irq(void *opaque, unsigned int vector)
{
	struct fake_env *env = opaque;

	if (vector < FAKE_MAX_VECTORS)
		env->irqs[vector]++;
}

static uint64_t fake_now_ns(void *opaque)
{
	return ((struct fake_env *)opaque)->now_ns;
}

static void *fake_timer_new(void *opaque, void (*cb)(void *arg), void *arg)
{
	struct fake_env *env = opaque;

	for (unsigned int i = 0; i < FAKE_MAX_TIMERS; i++) {
		struct fake_timer *t = &env->timers[i];

		if (!t->allocated) {
			memset(t, 0, sizeof(*t));
			t->allocated = true;
			t->cb = cb;
			t->arg = arg;
			return t;
		}
	}
	return NULL;
}

static void fake_timer_arm(void *timer, uint64_t expire_ns)
{
	struct fake_timer *t = timer;

	t->armed = true;
	t->expire_ns = expire_ns;
}

static void fake_timer_cancel(void *timer)
{
	((struct fake_timer *)timer)->armed = false;
}

static void fake_timer_free(void *timer)
{
	memset(timer, 0, sizeof(struct fake_timer));
}

static void fake_warn(void *opaque, enum weng_wrn what, uint64_t a, uint64_t b)
{
	struct fake_env *env = opaque;

	if (what < WENG_WRN_COUNT)
		env->warnings[what]++;
	env->last_warn_a = a;
	env->last_warn_b = b;
}

static void fake_fault(void *opaque, enum weng_flt what, uint64_t a,
		       uint64_t b)
{
	struct fake_env *env = opaque;

	(void)a;
	(void)b;
	if (what < WENG_FLT_COUNT)
		env->faults[what]++;
}

static void fake_tx_kick(void *opaque)
{
	struct fake_env *env = opaque;

	env->tx_kicks++;
}

static uint32_t fake_random(void *opaque)
{
	(void)opaque;
	return 4;	/* chosen by fair dice roll */
}

const struct weng_env_ops fake_env_ops = {
	.dma_read = fake_dma_read,
	.dma_write = fake_dma_write,
	.irq = fake_irq,
	.warn = fake_warn,
	.fault = fake_fault,
	.host = {
		.now_ns = fake_now_ns,
		.timer_new = fake_timer_new,
		.timer_arm = fake_timer_arm,
		.timer_cancel = fake_timer_cancel,
		.timer_free = fake_timer_free,
		.tx_kick = fake_tx_kick,
		.random = fake_random,
	},
};

void fake_env_init(struct fake_env *env)
{
	memset(env, 0, sizeof(*env));
	env->mem = calloc(1, FAKE_MEM_SIZE);
	if (!env->mem)
		abort();
	env->now_ns = 1000000000ULL;
}

void fake_env_fini(struct fake_env *env)
{
	free(env->mem);
	env->mem = NULL;
}

void fake_env_advance(struct fake_env *env, uint64_t ns)
{
	uint64_t end = env->now_ns + ns;

	/* Fire timers in expiry order; a callback may re-arm its timer. */
	for (;;) {
		struct fake_timer *next = NULL;

		for (unsigned int i = 0; i < FAKE_MAX_TIMERS; i++) {
			struct fake_timer *t = &env->timers[i];

			if (t->allocated && t->armed && t->expire_ns <= end &&
			    (!next || t->expire_ns < next->expire_ns))
				next = t;
		}
		if (!next)
			break;
		if (next->expire_ns > env->now_ns)
			env->now_ns = next->expire_ns;
		next->armed = false;
		next->cb(next->arg);
	}
	env->now_ns = end;
}

unsigned int fake_env_armed_timers(const struct fake_env *env)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < FAKE_MAX_TIMERS; i++)
		n += env->timers[i].allocated && env->timers[i].armed;
	return n;
}

unsigned int fake_env_total_warnings(const struct fake_env *env)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < WENG_WRN_COUNT; i++)
		n += env->warnings[i];
	return n;
}
