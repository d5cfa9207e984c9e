// SPDX-License-Identifier: GPL-2.0
/*
 * Wren transport-context table: host memory the device keeps its
 * transport contexts in once it has no room for them inside.  The driver
 * allocates and zeroes it, hands it over with SET_TC_TABLE and frees it
 * only after a reset; in between, only the device writes it.  debugfs
 * shows the records in use.
 */
#include <linux/debugfs.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "wren_dev.h"

static unsigned int tc_table_log = 12;
module_param(tc_table_log, uint, 0444);
MODULE_PARM_DESC(tc_table_log,
		 "log2 of the transport-context table's records, within the device's range (default 12: 4096 records, 256 KiB)");

/* The largest table the driver hands over: 2^24 records, 1 GiB. */
#define WREN_TC_LOG_MAX		24

/*
 * log2 of the table's records: @want within the device's range, or
 * -EPROTO for a range the device cannot mean.
 */
VISIBLE_IF_KUNIT int wren_tc_table_log(const struct wren_caps *c,
				       unsigned int want)
{
	if (c->min_tc_log > c->max_tc_log || c->max_tc_log > WREN_TC_LOG_MAX)
		return -EPROTO;
	return clamp_t(unsigned int, want, c->min_tc_log, c->max_tc_log);
}
EXPORT_SYMBOL_IF_KUNIT(wren_tc_table_log);

static size_t wren_tc_bytes(unsigned int log)
{
	return sizeof(struct wren_tc_entry) << log;
}

/**
 * wren_tc_table_create() - allocate the table and hand it to the device
 * @wdev: the device, enabled and with its attributes read
 *
 * A device without WREN_CAP_TC_TABLE keeps its contexts inside and needs
 * none.
 *
 * Return: 0 or a negative errno.
 */
int wren_tc_table_create(struct wren_dev *wdev)
{
	const struct wren_caps *c = &wdev->caps;
	struct device *dev = &wdev->pdev->dev;
	unsigned int log;
	int err;

	if (!(c->caps & WREN_CAP_TC_TABLE))
		return 0;
	err = wren_tc_table_log(c, tc_table_log);
	if (err < 0) {
		dev_err(dev, "device claims table sizes 2^%u to 2^%u\n",
			c->min_tc_log, c->max_tc_log);
		return err;
	}
	log = err;
	if (log != tc_table_log)
		dev_info(dev, "transport-context table of 2^%u records, the nearest the device takes to 2^%u\n",
			 log, tc_table_log);
	/* Coherent memory is page aligned, and so WREN_TC_TABLE_ALIGN. */
	wdev->tc_table = dma_alloc_coherent(dev, wren_tc_bytes(log),
					    &wdev->tc_dma, GFP_KERNEL);
	if (!wdev->tc_table)
		return -ENOMEM;
	wdev->tc_log = log;
	err = wren_cmd_set_tc_table(wdev, wdev->tc_dma, log);
	if (err) {
		dev_err(dev, "handing over the transport-context table failed: %d\n",
			err);
		wren_tc_table_destroy(wdev);
	}
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(wren_tc_table_create);

/**
 * wren_tc_table_destroy() - free the table
 * @wdev: the device, reset: it no longer writes the table
 */
void wren_tc_table_destroy(struct wren_dev *wdev)
{
	if (!wdev->tc_table)
		return;
	dma_free_coherent(&wdev->pdev->dev, wren_tc_bytes(wdev->tc_log),
			  wdev->tc_table, wdev->tc_dma);
	wdev->tc_table = NULL;
}
EXPORT_SYMBOL_IF_KUNIT(wren_tc_table_destroy);

static const char *const wren_tc_states[] = {
	[WREN_TC_STATE_FREE] = "free",
	[WREN_TC_STATE_CACHED] = "cached",
	[WREN_TC_STATE_SPILLED] = "spilled",
	[3] = "invalid",
};

/*
 * The records in use, a line each.  The device may be writing one while
 * it is read: this is a view for people, not an interface.
 */
VISIBLE_IF_KUNIT int wren_tc_table_show(struct seq_file *m, void *v)
{
	struct wren_dev *wdev = m->private;
	u32 i;

	seq_puts(m, "index state target class epoch session psn msn srtt_ns\n");
	for (i = 0; i < 1U << wdev->tc_log; i++) {
		const struct wren_tc_entry *t = &wdev->tc_table[i];
		u32 flags = le32_to_cpu(READ_ONCE(t->flags));
		u32 state = FIELD_GET(WREN_TC_STATE, flags);

		if (state == WREN_TC_STATE_FREE)
			continue;
		seq_printf(m, "%u %s %pI4 %u %#x %#x %u %u %llu\n", i,
			   wren_tc_states[state], &t->ipv4_addr,
			   le32_to_cpu(t->class_id), le32_to_cpu(t->epoch),
			   le32_to_cpu(t->session), le32_to_cpu(t->psn),
			   le32_to_cpu(t->msn), le64_to_cpu(t->srtt_ns));
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_tc_table_show);
DEFINE_SHOW_ATTRIBUTE(wren_tc_table);

/**
 * wren_tc_table_debugfs() - add the table's view to a debugfs directory
 * @wdev: the device
 * @dir: its directory
 */
void wren_tc_table_debugfs(struct wren_dev *wdev, struct dentry *dir)
{
	if (wdev->tc_table)
		debugfs_create_file("tc_table", 0400, dir, wdev,
				    &wren_tc_table_fops);
}
