// SPDX-License-Identifier: GPL-2.0
/*
 * dbg_selftest: one deliberate bug per load, for the debug guest kernel's
 * self-test (scripts/check-debug-kernel): each must fail the guest's run
 * with its checker's report, or the checkers do not guard the guest tests.
 *
 *	insmod dbg_selftest.ko bug=leak|uaf|atomic-sleep|lockdep|odebug
 *
 * The load succeeds; the bug is left behind (a leak, an active timer
 * freed) or reported on the spot (KASAN, lockdep, might_sleep).
 */
#include <linux/compiler.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

static char *bug = "";
module_param(bug, charp, 0444);
MODULE_PARM_DESC(bug, "leak, uaf, atomic-sleep, lockdep or odebug");

/* Kept where kmemleak cannot see it: only the low bits of its address. */
static unsigned long dbg_leak_cookie;

static noinline void dbg_leak(void)
{
	char *p = kmalloc(192, GFP_KERNEL);

	if (p) {
		memset(p, 0x5a, 192);
		dbg_leak_cookie = (unsigned long)p & 0xff;
	}
}

static noinline void dbg_uaf(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	/* Hide the pointer from the compiler, which would see the bug. */
	OPTIMIZER_HIDE_VAR(p);
	kfree(p);
	/* Read after free: KASAN's slab-use-after-free. */
	dbg_leak_cookie = READ_ONCE(p[8]);
}

static noinline void dbg_atomic_sleep(void)
{
	static DEFINE_SPINLOCK(lock);

	/* An allocation that may sleep, under a spinlock: might_sleep(). */
	spin_lock(&lock);
	kfree(kmalloc(64, GFP_KERNEL));
	spin_unlock(&lock);
}

static noinline void dbg_lockdep(void)
{
	static DEFINE_MUTEX(a);
	static DEFINE_MUTEX(b);

	/* A then B, then B then A: an inversion, whoever takes them. */
	mutex_lock(&a);
	mutex_lock(&b);
	mutex_unlock(&b);
	mutex_unlock(&a);
	mutex_lock(&b);
	mutex_lock(&a);
	mutex_unlock(&a);
	mutex_unlock(&b);
}

static void dbg_timer_fn(struct timer_list *t)
{
}

static noinline void dbg_odebug(void)
{
	struct timer_list *t = kmalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return;
	timer_setup(t, dbg_timer_fn, 0);
	mod_timer(t, jiffies + 3600 * HZ);
	/* Freed while pending: DEBUG_OBJECTS' "free active". */
	kfree(t);
}

static int __init dbg_selftest_init(void)
{
	if (!strcmp(bug, "leak"))
		dbg_leak();
	else if (!strcmp(bug, "uaf"))
		dbg_uaf();
	else if (!strcmp(bug, "atomic-sleep"))
		dbg_atomic_sleep();
	else if (!strcmp(bug, "lockdep"))
		dbg_lockdep();
	else if (!strcmp(bug, "odebug"))
		dbg_odebug();
	else
		return -EINVAL;
	return 0;
}
module_init(dbg_selftest_init);

static void __exit dbg_selftest_exit(void)
{
}
module_exit(dbg_selftest_exit);

MODULE_DESCRIPTION("Deliberate bugs for the debug guest kernel's checkers");
MODULE_LICENSE("GPL");
