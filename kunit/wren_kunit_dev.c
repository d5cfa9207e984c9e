// SPDX-License-Identifier: GPL-2.0
/*
 * The suites' fake Wren device.  It behaves as the interface
 * (Documentation/device-interface.rst) says the adapter does: it consumes
 * admin commands up to the doorbell's tail, checks each entry's phase,
 * and completes them in order with the current phase of its completion
 * ring.  Anything else a test needs, it writes into the rings itself.
 */
#include <kunit/static_stub.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>

#include "wren_kunit_dev.h"

static bool wren_fake_answer_success(struct wren_fake *f,
				     const struct wren_admin_cmd *cmd,
				     struct wren_admin_cqe *cqe)
{
	return true;
}

/**
 * wren_fake_no_answer() - a &wren_fake_answer_t that never answers
 * @f: the fake device
 * @cmd: the command
 * @cqe: its completion, not posted
 *
 * Return: false.
 */
bool wren_fake_no_answer(struct wren_fake *f, const struct wren_admin_cmd *cmd,
			 struct wren_admin_cqe *cqe)
{
	return false;
}

/**
 * wren_fake_post_cqe() - write an admin completion, as the device does
 * @f: the fake device
 * @cqe: the completion; its phase flag is set here
 */
void wren_fake_post_cqe(struct wren_fake *f, const struct wren_admin_cqe *cqe)
{
	struct wren_admin *aq = &f->wdev.admin;
	struct wren_admin_cqe *slot;

	slot = &aq->cq[f->cq_tail & ((1U << aq->log_depth) - 1)];
	*slot = *cqe;
	slot->flags = wren_ring_phase(f->cq_tail, aq->log_depth) ?
		      WREN_ADMIN_FLAG_PHASE : 0;
	f->cq_tail++;
}

static void wren_fake_admin_doorbell(struct wren_fake *f, u16 tail)
{
	struct wren_admin *aq = &f->wdev.admin;
	u32 mask = (1U << aq->log_depth) - 1;
	struct wren_admin_cqe cqe;
	struct wren_admin_cmd *cmd;
	u8 phase;

	KUNIT_EXPECT_LE_MSG(f->test, (u16)(tail - f->sq_head), mask + 1,
			    "doorbell tail %u is more than a ring ahead of %u",
			    tail, f->sq_head);
	while (f->sq_head != tail) {
		cmd = &aq->sq[f->sq_head & mask];
		phase = wren_ring_phase(f->sq_head, aq->log_depth);
		KUNIT_EXPECT_EQ_MSG(f->test,
				    cmd->hdr.flags & WREN_ADMIN_FLAG_PHASE,
				    phase, "command at index %u", f->sq_head);
		if (f->ncmds < WREN_FAKE_MAX_CMDS)
			f->cmds[f->ncmds] = *cmd;
		f->ncmds++;
		f->sq_head++;
		memset(&cqe, 0, sizeof(cqe));
		cqe.cmd_id = cmd->hdr.cmd_id;
		cqe.sq_head = cpu_to_le16(f->sq_head);
		cqe.status = WREN_STATUS_SUCCESS;
		if (f->answer(f, cmd, &cqe))
			wren_fake_post_cqe(f, &cqe);
	}
}

/* Stands in for wren_wr(): the device's side of every register write. */
static void wren_fake_wr(struct wren_dev *wdev, u32 reg, u32 val)
{
	struct wren_fake *f = container_of(wdev, struct wren_fake, wdev);

	if (reg >= WREN_REG_BAR_SIZE || reg % sizeof(u32)) {
		KUNIT_FAIL(f->test, "write of %#x to register %#x", val, reg);
		return;
	}
	f->regs[reg / sizeof(u32)] = val;
	switch (reg) {
	case WREN_REG_AQ_DB:
		wren_fake_admin_doorbell(f, FIELD_GET(WREN_AQ_DB_TAIL, val));
		break;
	case WREN_REG_AEQ_DB:
		f->aeq_db_writes++;
		break;
	}
}

/* Stands in for wren_rd(): what a test put in @regs, 0 by default. */
static u32 wren_fake_rd(struct wren_dev *wdev, u32 reg)
{
	struct wren_fake *f = container_of(wdev, struct wren_fake, wdev);

	if (reg >= WREN_REG_BAR_SIZE || reg % sizeof(u32)) {
		KUNIT_FAIL(f->test, "read of register %#x", reg);
		return 0;
	}
	return f->regs[reg / sizeof(u32)];
}

/**
 * wren_fake_post_aeq() - write an async event, as the device does
 * @f: the fake device
 * @type: &enum wren_aeq_type
 * @info: its 32-bit detail
 * @data: its 64-bit detail
 */
void wren_fake_post_aeq(struct wren_fake *f, u8 type, u32 info, u64 data)
{
	struct wren_aeq_entry *ev;

	ev = &f->wdev.aeq[f->aeq_tail & ((1U << WREN_AEQ_LOG_DEPTH) - 1)];
	ev->type = type;
	ev->info = cpu_to_le32(info);
	ev->data = cpu_to_le64(data);
	ev->flags = wren_ring_phase(f->aeq_tail, WREN_AEQ_LOG_DEPTH) ?
		    WREN_AEQ_FLAG_PHASE : 0;
	f->aeq_tail++;
}

/**
 * wren_fake_post_eqe() - write an event queue entry, as the device does
 * @eq: the event queue
 * @index: the device's free-running producer index of the entry
 * @type: &enum wren_eqe_type
 * @handle: the object it names
 */
void wren_fake_post_eqe(struct wren_eq *eq, u32 index, u8 type, u32 handle)
{
	struct wren_eqe *eqe = &eq->ring[index & ((1U << WREN_EQ_LOG_DEPTH) - 1)];

	eqe->type = type;
	eqe->handle = cpu_to_le32(handle);
	eqe->flags = wren_ring_phase(index, WREN_EQ_LOG_DEPTH) ?
		     WREN_EQE_FLAG_PHASE : 0;
}

/**
 * wren_fake_last_cmd() - the admin command the device consumed last
 * @f: the fake device
 *
 * Return: the command, or NULL if there was none.
 */
const struct wren_admin_cmd *wren_fake_last_cmd(struct wren_fake *f)
{
	if (!f->ncmds || f->ncmds > WREN_FAKE_MAX_CMDS)
		return NULL;
	return &f->cmds[f->ncmds - 1];
}

static void wren_fake_free(void *data)
{
	struct wren_fake *f = data;

	/* No health event is queued or being reported past this point. */
	wren_health_unregister(&f->wdev);
	wren_aeq_destroy(&f->wdev);
	wren_admin_destroy(&f->wdev);
}

/* The fake has no configuration space: count the fences' DMA stops. */
static void wren_fake_dma_stop(struct wren_dev *wdev)
{
	container_of(wdev, struct wren_fake, wdev)->dma_stops++;
}

/**
 * wren_fake_unfence() - let commands go again after a fence
 * @f: the fake device
 *
 * What a bring-up does to the flag, without the reset: for the suites of
 * the admin transport and the reports, which look past one failure.
 */
void wren_fake_unfence(struct wren_fake *f)
{
	clear_bit(WREN_FLAG_DEAD, &f->wdev.flags);
}

/**
 * wren_fake_new() - a fake device, its admin queue polled
 * @test: the test; the device goes away with it
 *
 * Return: the device; the test fails and ends if it cannot be made.
 */
struct wren_fake *wren_fake_new(struct kunit *test)
{
	struct wren_fake *f;
	struct wren_dev *wdev;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	f->test = test;
	f->answer = wren_fake_answer_success;
	f->pdev.dev.init_name = "wren-kunit";
	f->pdev.dev.coherent_dma_mask = DMA_BIT_MASK(64);
	f->pdev.dev.dma_mask = &f->pdev.dev.coherent_dma_mask;
	wdev = &f->wdev;
	wdev->pdev = &f->pdev;
	mutex_init(&wdev->state_lock);
	wren_health_init(wdev);
	KUNIT_ASSERT_EQ(test, wren_admin_init(wdev), 0);
	if (wren_aeq_init(wdev)) {
		wren_admin_destroy(wdev);
		KUNIT_FAIL_AND_ABORT(test, "no async event queue");
	}
	KUNIT_ASSERT_EQ(test, kunit_add_action_or_reset(test, wren_fake_free, f),
			0);
	wdev->admin.poll = true;
	wdev->admin.timeout_ms = 50;
	kunit_activate_static_stub(test, wren_wr, wren_fake_wr);
	kunit_activate_static_stub(test, wren_rd, wren_fake_rd);
	kunit_activate_static_stub(test, wren_dma_stop, wren_fake_dma_stop);
	return f;
}

MODULE_DESCRIPTION("KUnit suites of the Wren drivers");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
MODULE_IMPORT_NS(WREN);
