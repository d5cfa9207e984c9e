// SPDX-License-Identifier: GPL-2.0
/*
 * Wren debugfs: /sys/kernel/debug/wren/<pci name>/ holds the core
 * driver's counters and a view of the transport-context table.
 */
#include <linux/debugfs.h>

#include "wren_dev.h"

static struct dentry *wren_debugfs_root;

static int wren_atomic64_get(void *data, u64 *val)
{
	*val = atomic64_read(data);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(wren_atomic64_fops, wren_atomic64_get, NULL, "%llu\n");

/**
 * wren_debugfs_init() - create the driver's debugfs directory
 */
void wren_debugfs_init(void)
{
	wren_debugfs_root = debugfs_create_dir(WREN_DRV_NAME, NULL);
}

/**
 * wren_debugfs_exit() - remove the driver's debugfs directory
 */
void wren_debugfs_exit(void)
{
	debugfs_remove_recursive(wren_debugfs_root);
}

/**
 * wren_debugfs_add() - create a device's counters
 * @wdev: the device
 */
void wren_debugfs_add(struct wren_dev *wdev)
{
	struct wren_stats *s = &wdev->stats;
	struct dentry *d;

	d = debugfs_create_dir(pci_name(wdev->pdev), wren_debugfs_root);
	wdev->debugfs = d;
	debugfs_create_u64("admin_cmds", 0400, d, &s->admin_cmds);
	debugfs_create_u64("admin_errors", 0400, d, &s->admin_errors);
	debugfs_create_u64("admin_timeouts", 0400, d, &s->admin_timeouts);
	debugfs_create_u64("admin_stale_completions", 0400, d, &s->admin_stale);
	debugfs_create_file_unsafe("keep_alives", 0400, d, &s->keep_alives,
				   &wren_atomic64_fops);
	debugfs_create_u64("keep_alive_lost", 0400, d, &s->keep_alive_lost);
	debugfs_create_u64("async_events", 0400, d, &s->aeq_events);
	debugfs_create_u64("async_warnings", 0400, d, &s->aeq_warnings);
	debugfs_create_u64("link_changes", 0400, d, &s->link_changes);
	debugfs_create_u64("cq_errors", 0400, d, &s->cq_errors);
	debugfs_create_file_unsafe("unknown_eq_events", 0400, d,
				   &s->eqe_unknown, &wren_atomic64_fops);
	debugfs_create_u64("recoveries", 0400, d, &s->recoveries);
	debugfs_create_u64("recovery_failures", 0400, d, &s->recovery_failures);
	debugfs_create_u64("last_recovery_ms", 0400, d, &s->last_recovery_ms);
	wren_tc_table_debugfs(wdev, d);
}

/**
 * wren_debugfs_del() - remove a device's counters
 * @wdev: the device
 */
void wren_debugfs_del(struct wren_dev *wdev)
{
	debugfs_remove_recursive(wdev->debugfs);
	wdev->debugfs = NULL;
}
