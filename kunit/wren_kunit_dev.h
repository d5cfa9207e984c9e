/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The suites' stand-in for a Wren adapter: the core driver's rings live
 * in ordinary memory, and a static stub of wren_wr() plays the device at
 * the doorbells.
 */
#ifndef _WREN_KUNIT_DEV_H
#define _WREN_KUNIT_DEV_H

#include <kunit/test.h>
#include <linux/pci.h>

#include "wren_dev.h"

#define WREN_FAKE_MAX_CMDS	256

struct wren_fake;

/**
 * typedef wren_fake_answer_t - how the fake device answers a command
 * @f: the fake device
 * @cmd: the command, as the driver wrote it
 * @cqe: its completion, with cmd_id and sq_head filled in and status
 *	SUCCESS; the callback may change status, ext_status and result
 *
 * Return: true to post @cqe, false to leave the command unanswered.
 */
typedef bool (*wren_fake_answer_t)(struct wren_fake *f,
				   const struct wren_admin_cmd *cmd,
				   struct wren_admin_cqe *cqe);

/**
 * struct wren_fake - a Wren device made of memory
 * @wdev: the core driver's device, admin queue and async event queue
 *	allocated by the driver's own functions
 * @pdev: a PCI function that is never registered: it names the driver's
 *	messages and carries the DMA mask of its coherent allocations
 * @test: the test that owns it
 * @answer: the answer to every admin command (default: SUCCESS)
 * @priv: for @answer
 * @regs: the last value written to each register, and what the driver
 *	reads from it
 * @cmds: the admin commands consumed, in order
 * @ncmds: how many (only the first %WREN_FAKE_MAX_CMDS are kept)
 * @sq_head: the device's consumer index of the admin queue
 * @cq_tail: its producer index of the admin completion queue
 * @aeq_tail: its producer index of the async event queue
 * @aeq_db_writes: writes of the async event queue doorbell
 * @dma_stops: calls of wren_dma_stop() (the fences)
 */
struct wren_fake {
	struct wren_dev wdev;
	struct pci_dev pdev;
	struct kunit *test;
	wren_fake_answer_t answer;
	void *priv;
	u32 regs[WREN_REG_BAR_SIZE / sizeof(u32)];
	struct wren_admin_cmd cmds[WREN_FAKE_MAX_CMDS];
	unsigned int ncmds;
	u16 sq_head;
	u16 cq_tail;
	u16 aeq_tail;
	unsigned int aeq_db_writes;
	unsigned int dma_stops;
};

struct wren_fake *wren_fake_new(struct kunit *test);
void wren_fake_unfence(struct wren_fake *f);
bool wren_fake_no_answer(struct wren_fake *f, const struct wren_admin_cmd *cmd,
			 struct wren_admin_cqe *cqe);
void wren_fake_post_cqe(struct wren_fake *f, const struct wren_admin_cqe *cqe);
void wren_fake_post_aeq(struct wren_fake *f, u8 type, u32 info, u64 data);
void wren_fake_post_eqe(struct wren_eq *eq, u32 index, u8 type, u32 handle);
const struct wren_admin_cmd *wren_fake_last_cmd(struct wren_fake *f);

#endif /* _WREN_KUNIT_DEV_H */
