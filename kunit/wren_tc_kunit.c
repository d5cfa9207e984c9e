// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the driver's side of the transport-context table: whether there
 * is one, its size within the device's range, the SET_TC_TABLE that hands
 * it over, the clean-up when the device refuses it, and the debugfs view
 * of the records in use.
 */
#include <kunit/test.h>
#include <linux/seq_file.h>

#include "wren_kunit_dev.h"

static void wren_tc_destroy(void *wdev)
{
	wren_tc_table_destroy(wdev);
}

static struct wren_fake *wren_tc_fake(struct kunit *test, u8 min_log,
				      u8 max_log)
{
	struct wren_fake *f = wren_fake_new(test);

	f->wdev.caps.caps = WREN_CAP_TC_TABLE;
	f->wdev.caps.min_tc_log = min_log;
	f->wdev.caps.max_tc_log = max_log;
	KUNIT_ASSERT_EQ(test, kunit_add_action(test, wren_tc_destroy, &f->wdev), 0);
	return f;
}

static void wren_tc_log_within_range(struct kunit *test)
{
	struct wren_caps c = { .min_tc_log = 6, .max_tc_log = 16 };

	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 12), 12);
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 6), 6);
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 16), 16);
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 0), 6);
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 5), 6);
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 17), 16);
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, UINT_MAX), 16);
	c.max_tc_log = 24;
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 30), 24);
	c.max_tc_log = 25;
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 12), -EPROTO);
	c.min_tc_log = 17;
	c.max_tc_log = 16;
	KUNIT_EXPECT_EQ(test, wren_tc_table_log(&c, 16), -EPROTO);
}

/* Without the capability there is no table and no command. */
static void wren_tc_none_without_cap(struct kunit *test)
{
	struct wren_fake *f = wren_tc_fake(test, 4, 10);

	f->wdev.caps.caps = WREN_CAP_UD | WREN_CAP_RD;
	KUNIT_EXPECT_EQ(test, wren_tc_table_create(&f->wdev), 0);
	KUNIT_EXPECT_NULL(test, f->wdev.tc_table);
	KUNIT_EXPECT_EQ(test, f->ncmds, 0);
}

/* A range the device cannot mean is refused before any allocation. */
static void wren_tc_bad_range(struct kunit *test)
{
	static const u8 ranges[][2] = { { 11, 10 }, { 4, 25 }, { 255, 255 } };
	struct wren_fake *f = wren_tc_fake(test, 0, 0);
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		f->wdev.caps.min_tc_log = ranges[i][0];
		f->wdev.caps.max_tc_log = ranges[i][1];
		KUNIT_EXPECT_EQ_MSG(test, wren_tc_table_create(&f->wdev), -EPROTO,
				    "2^%u to 2^%u", ranges[i][0], ranges[i][1]);
		KUNIT_EXPECT_NULL(test, f->wdev.tc_table);
	}
	KUNIT_EXPECT_EQ(test, f->ncmds, 0);
}

/* The table is zeroed and handed over at its DMA address and size. */
static void wren_tc_handed_over(struct kunit *test)
{
	/* The default of 2^12 records, clamped to the device's 2^10. */
	struct wren_fake *f = wren_tc_fake(test, 4, 10);
	const struct wren_cmd_set_tc_table *c;

	KUNIT_ASSERT_EQ(test, wren_tc_table_create(&f->wdev), 0);
	KUNIT_ASSERT_NOT_NULL(test, f->wdev.tc_table);
	KUNIT_EXPECT_EQ(test, f->wdev.tc_log, 10);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(f->wdev.tc_dma, WREN_TC_TABLE_ALIGN));
	KUNIT_EXPECT_TRUE(test, !memchr_inv(f->wdev.tc_table, 0,
					    sizeof(*f->wdev.tc_table) << 10));
	KUNIT_ASSERT_EQ(test, f->ncmds, 1);
	KUNIT_EXPECT_EQ(test, f->cmds[0].hdr.opcode, WREN_ADMIN_SET_TC_TABLE);
	c = (const void *)f->cmds[0].payload;
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->base_addr), f->wdev.tc_dma);
	KUNIT_EXPECT_EQ(test, c->log_entries, 10);

	wren_tc_table_destroy(&f->wdev);
	KUNIT_EXPECT_NULL(test, f->wdev.tc_table);
	/* Destroying twice, as teardown after a failed probe does, is safe. */
	wren_tc_table_destroy(&f->wdev);
}

static void wren_tc_raised_to_minimum(struct kunit *test)
{
	struct wren_fake *f = wren_tc_fake(test, 13, 14);

	KUNIT_ASSERT_EQ(test, wren_tc_table_create(&f->wdev), 0);
	KUNIT_EXPECT_EQ(test, f->wdev.tc_log, 13);
}

static bool wren_tc_refuse(struct wren_fake *f, const struct wren_admin_cmd *cmd,
			   struct wren_admin_cqe *cqe)
{
	cqe->status = WREN_STATUS_NO_RESOURCES;
	return true;
}

/* Refused by the device: the errno, and the table freed again. */
static void wren_tc_refused(struct kunit *test)
{
	struct wren_fake *f = wren_tc_fake(test, 4, 10);

	f->answer = wren_tc_refuse;
	KUNIT_EXPECT_EQ(test, wren_tc_table_create(&f->wdev), -ENOMEM);
	KUNIT_EXPECT_NULL(test, f->wdev.tc_table);
	KUNIT_EXPECT_EQ(test, f->ncmds, 1);
}

/* debugfs lists the records in use, and copes with an undefined state. */
static void wren_tc_debugfs_view(struct kunit *test)
{
	struct wren_fake *f = wren_tc_fake(test, 4, 4);
	struct wren_tc_entry *t;
	struct seq_file m = {};
	char *buf;

	KUNIT_ASSERT_EQ(test, wren_tc_table_create(&f->wdev), 0);
	t = f->wdev.tc_table;
	t[1].flags = cpu_to_le32(WREN_TC_STATE_CACHED | WREN_TC_ANSWERED);
	t[1].ipv4_addr = htonl(0x0a000002);
	t[1].class_id = cpu_to_le32(3);
	t[1].epoch = cpu_to_le32(0x10);
	t[1].session = cpu_to_le32(0xabc);
	t[1].psn = cpu_to_le32(77);
	t[1].msn = cpu_to_le32(5);
	t[1].srtt_ns = cpu_to_le64(12345);
	t[7].flags = cpu_to_le32(WREN_TC_STATE_SPILLED);
	t[7].ipv4_addr = htonl(0x0a000003);
	t[15].flags = cpu_to_le32(3);

	buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	m.buf = buf;
	m.size = PAGE_SIZE;
	m.private = &f->wdev;
	KUNIT_ASSERT_EQ(test, wren_tc_table_show(&m, NULL), 0);
	KUNIT_EXPECT_FALSE(test, seq_has_overflowed(&m));
	KUNIT_EXPECT_STREQ(test, buf,
			   "index state target class epoch session psn msn srtt_ns\n"
			   "1 cached 10.0.0.2 3 0x10 0xabc 77 5 12345\n"
			   "7 spilled 10.0.0.3 0 0x0 0x0 0 0 0\n"
			   "15 invalid 0.0.0.0 0 0x0 0x0 0 0 0\n");
}

static struct kunit_case wren_tc_cases[] = {
	KUNIT_CASE(wren_tc_log_within_range),
	KUNIT_CASE(wren_tc_none_without_cap),
	KUNIT_CASE(wren_tc_bad_range),
	KUNIT_CASE(wren_tc_handed_over),
	KUNIT_CASE(wren_tc_raised_to_minimum),
	KUNIT_CASE(wren_tc_refused),
	KUNIT_CASE(wren_tc_debugfs_view),
	{}
};

static struct kunit_suite wren_tc_suite = {
	.name = "wren_tc",
	.test_cases = wren_tc_cases,
};

kunit_test_suite(wren_tc_suite);
