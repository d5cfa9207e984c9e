// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the errno of every status an admin completion can carry, as the
 * callers of wren_admin_exec() see it (the table in Documentation/device-interface.rst).
 */
#include <kunit/test.h>

#include "wren_kunit_dev.h"

static const struct {
	u8 status;
	int err;
} wren_status_errnos[] = {
	{ WREN_STATUS_SUCCESS, 0 },
	{ WREN_STATUS_BAD_OPCODE, -EOPNOTSUPP },
	{ WREN_STATUS_BAD_PARAM, -EINVAL },
	{ WREN_STATUS_NO_RESOURCES, -ENOMEM },
	{ WREN_STATUS_BAD_STATE, -EINVAL },
	{ WREN_STATUS_NOT_FOUND, -ENOENT },
	{ WREN_STATUS_DMA_ERROR, -EFAULT },
	{ WREN_STATUS_UNSUPPORTED, -EOPNOTSUPP },
	{ WREN_STATUS_INTERNAL, -EIO },
};

static void wren_status_every_defined_one(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wren_status_errnos); i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    wren_status_to_errno(wren_status_errnos[i].status),
				    wren_status_errnos[i].err, "status %u",
				    wren_status_errnos[i].status);
}

static void wren_status_undefined_ones_are_eio(struct kunit *test)
{
	unsigned int status;

	for (status = WREN_STATUS_INTERNAL + 1; status <= U8_MAX; status++)
		KUNIT_EXPECT_EQ_MSG(test, wren_status_to_errno(status), -EIO,
				    "status %u", status);
}

static bool wren_status_answer(struct wren_fake *f,
			       const struct wren_admin_cmd *cmd,
			       struct wren_admin_cqe *cqe)
{
	cqe->status = *(u8 *)f->priv;
	cqe->ext_status = cpu_to_le32(9);
	cqe->result[0] = cpu_to_le32(0x77);
	return true;
}

/* Through the queue: the errno, the error count, the completion copied. */
static void wren_status_through_exec(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_cmd_alloc_pd body = {};
	struct wren_admin_cqe cqe;
	unsigned int i, errors = 0;
	u8 status;

	f->answer = wren_status_answer;
	f->priv = &status;
	for (i = 0; i < ARRAY_SIZE(wren_status_errnos) + 1; i++) {
		status = i < ARRAY_SIZE(wren_status_errnos) ?
			 wren_status_errnos[i].status : 0xee;
		memset(&cqe, 0, sizeof(cqe));
		KUNIT_EXPECT_EQ_MSG(test,
				    wren_admin_exec(&f->wdev, WREN_ADMIN_ALLOC_PD,
						    &body, sizeof(body), &cqe),
				    i < ARRAY_SIZE(wren_status_errnos) ?
				    wren_status_errnos[i].err : -EIO,
				    "status %u", status);
		KUNIT_EXPECT_EQ(test, cqe.status, status);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe.ext_status), 9);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(cqe.result[0]), 0x77);
		if (status)
			errors++;
		KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_errors, errors);
	}
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_cmds, i);
}

static struct kunit_case wren_status_cases[] = {
	KUNIT_CASE(wren_status_every_defined_one),
	KUNIT_CASE(wren_status_undefined_ones_are_eio),
	KUNIT_CASE(wren_status_through_exec),
	{}
};

static struct kunit_suite wren_status_suite = {
	.name = "wren_status",
	.test_cases = wren_status_cases,
};

kunit_test_suite(wren_status_suite);
