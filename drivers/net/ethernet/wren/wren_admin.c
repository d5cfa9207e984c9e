// SPDX-License-Identifier: GPL-2.0
/*
 * Wren admin queue transport: post a command, match its completion, time
 * it out.  It does not know what any command means (see wren_cmds.c).
 *
 * A command id is the index of the caller's context in the low bits and a
 * generation counter above them, so a completion that arrives after its
 * command timed out, or that names no command at all, is recognised and
 * dropped instead of completing somebody else's command.
 */
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>

#include "wren_dev.h"
#include "wren_trace.h"

static const char * const wren_opcode_names[] = {
	[WREN_ADMIN_GET_ATTR] = "GET_ATTR",
	[WREN_ADMIN_GET_FEATURE] = "GET_FEATURE",
	[WREN_ADMIN_SET_FEATURE] = "SET_FEATURE",
	[WREN_ADMIN_CREATE_EQ] = "CREATE_EQ",
	[WREN_ADMIN_DESTROY_EQ] = "DESTROY_EQ",
	[WREN_ADMIN_ALLOC_PD] = "ALLOC_PD",
	[WREN_ADMIN_DEALLOC_PD] = "DEALLOC_PD",
	[WREN_ADMIN_CREATE_CQ] = "CREATE_CQ",
	[WREN_ADMIN_DESTROY_CQ] = "DESTROY_CQ",
	[WREN_ADMIN_CREATE_QP] = "CREATE_QP",
	[WREN_ADMIN_MODIFY_QP] = "MODIFY_QP",
	[WREN_ADMIN_QUERY_QP] = "QUERY_QP",
	[WREN_ADMIN_DESTROY_QP] = "DESTROY_QP",
	[WREN_ADMIN_CREATE_AH] = "CREATE_AH",
	[WREN_ADMIN_DESTROY_AH] = "DESTROY_AH",
	[WREN_ADMIN_REG_MR] = "REG_MR",
	[WREN_ADMIN_DEREG_MR] = "DEREG_MR",
	[WREN_ADMIN_GET_STATS] = "GET_STATS",
	[WREN_ADMIN_SET_TC_TABLE] = "SET_TC_TABLE",
	[WREN_ADMIN_RESIZE_CQ] = "RESIZE_CQ",
	[WREN_ADMIN_REREG_MR] = "REREG_MR",
	[WREN_ADMIN_CREATE_SRQ] = "CREATE_SRQ",
	[WREN_ADMIN_MODIFY_SRQ] = "MODIFY_SRQ",
	[WREN_ADMIN_QUERY_SRQ] = "QUERY_SRQ",
	[WREN_ADMIN_DESTROY_SRQ] = "DESTROY_SRQ",
	[WREN_ADMIN_ALLOC_COUNTER_SET] = "ALLOC_COUNTER_SET",
	[WREN_ADMIN_FREE_COUNTER_SET] = "FREE_COUNTER_SET",
	[WREN_ADMIN_BIND_COUNTER_SET] = "BIND_COUNTER_SET",
	[WREN_ADMIN_QUERY_CTX] = "QUERY_CTX",
};

/* A new opcode needs its name here. */
static_assert(ARRAY_SIZE(wren_opcode_names) == WREN_ADMIN_OPCODE_LAST + 1);

/**
 * wren_admin_opcode_name() - the name of an admin opcode, for messages
 * @opcode: &enum wren_admin_opcode
 *
 * Return: a constant string, "UNKNOWN" for an opcode without a name.
 */
const char *wren_admin_opcode_name(u8 opcode)
{
	if (opcode < ARRAY_SIZE(wren_opcode_names) && wren_opcode_names[opcode])
		return wren_opcode_names[opcode];
	return "UNKNOWN";
}

static u32 wren_admin_depth(const struct wren_admin *aq)
{
	return 1U << aq->log_depth;
}

/**
 * wren_admin_init() - allocate the admin rings and contexts
 * @wdev: the device
 *
 * Return: 0 or -ENOMEM.
 */
int wren_admin_init(struct wren_dev *wdev)
{
	struct wren_admin *aq = &wdev->admin;
	struct device *dev = &wdev->pdev->dev;
	u32 depth, i;

	aq->log_depth = WREN_AQ_LOG_DEPTH;
	depth = wren_admin_depth(aq);
	spin_lock_init(&aq->lock);
	sema_init(&aq->slots, depth);
	aq->ctx = kcalloc(depth, sizeof(*aq->ctx), GFP_KERNEL);
	if (!aq->ctx)
		return -ENOMEM;
	for (i = 0; i < depth; i++)
		init_completion(&aq->ctx[i].done);
	/* Coherent allocations are aligned to their size's page order. */
	aq->sq = dma_alloc_coherent(dev, depth * sizeof(*aq->sq), &aq->sq_dma,
				    GFP_KERNEL);
	if (!aq->sq)
		goto err_free_ctx;
	aq->cq = dma_alloc_coherent(dev, depth * sizeof(*aq->cq), &aq->cq_dma,
				    GFP_KERNEL);
	if (!aq->cq)
		goto err_free_sq;
	return 0;

err_free_sq:
	dma_free_coherent(dev, depth * sizeof(*aq->sq), aq->sq, aq->sq_dma);
err_free_ctx:
	kfree(aq->ctx);
	return -ENOMEM;
}
EXPORT_SYMBOL_IF_KUNIT(wren_admin_init);

/**
 * wren_admin_program() - hand the admin rings to the device (before ENABLE)
 * @wdev: the device, freshly reset
 */
void wren_admin_program(struct wren_dev *wdev)
{
	struct wren_admin *aq = &wdev->admin;
	u32 depth = wren_admin_depth(aq);

	/*
	 * The device starts both rings at index 0 and phase 1 again: what a
	 * previous bring-up left in them must not read as new.
	 */
	memset(aq->sq, 0, depth * sizeof(*aq->sq));
	memset(aq->cq, 0, depth * sizeof(*aq->cq));
	aq->sq_tail = 0;
	aq->sq_head = 0;
	aq->cq_head = 0;
	wren_wr(wdev, WREN_REG_AQ_BASE_LO, lower_32_bits(aq->sq_dma));
	wren_wr(wdev, WREN_REG_AQ_BASE_HI, upper_32_bits(aq->sq_dma));
	wren_wr(wdev, WREN_REG_AQ_CFG,
		FIELD_PREP(WREN_QUEUE_CFG_LOG_DEPTH, aq->log_depth));
	wren_wr(wdev, WREN_REG_ACQ_BASE_LO, lower_32_bits(aq->cq_dma));
	wren_wr(wdev, WREN_REG_ACQ_BASE_HI, upper_32_bits(aq->cq_dma));
	wren_wr(wdev, WREN_REG_ACQ_CFG,
		FIELD_PREP(WREN_QUEUE_CFG_LOG_DEPTH, aq->log_depth));
}

/**
 * wren_admin_destroy() - free the admin rings (the device is reset)
 * @wdev: the device
 */
void wren_admin_destroy(struct wren_dev *wdev)
{
	struct wren_admin *aq = &wdev->admin;
	struct device *dev = &wdev->pdev->dev;
	u32 depth = wren_admin_depth(aq);

	dma_free_coherent(dev, depth * sizeof(*aq->cq), aq->cq, aq->cq_dma);
	dma_free_coherent(dev, depth * sizeof(*aq->sq), aq->sq, aq->sq_dma);
	kfree(aq->ctx);
}
EXPORT_SYMBOL_IF_KUNIT(wren_admin_destroy);

/*
 * The device's consumer index may only move forward, and not past what was
 * posted; a device that says otherwise is not believed.
 */
static void wren_admin_update_sq_head(struct wren_dev *wdev, u16 head)
{
	struct wren_admin *aq = &wdev->admin;

	if (!wren_ring_head_ok(aq->sq_head, head, aq->sq_tail)) {
		dev_warn_ratelimited(&wdev->pdev->dev,
				     "device reported admin queue head %u outside %u..%u\n",
				     head, aq->sq_head, aq->sq_tail);
		return;
	}
	aq->sq_head = head;
}

/**
 * wren_admin_process() - consume the admin completion queue
 * @wdev: the device
 *
 * Called from the management interrupt, or by a polling caller.
 */
void wren_admin_process(struct wren_dev *wdev)
{
	struct wren_admin *aq = &wdev->admin;
	u32 mask = wren_admin_depth(aq) - 1;
	struct wren_admin_ctx *ctx;
	struct wren_admin_cqe *cqe;
	unsigned long flags;
	u16 cmd_id;

	spin_lock_irqsave(&aq->lock, flags);
	for (;;) {
		cqe = &aq->cq[aq->cq_head & mask];
		if (!wren_ring_ready(READ_ONCE(cqe->flags),
				     WREN_ADMIN_FLAG_PHASE, aq->cq_head,
				     aq->log_depth))
			break;
		/* Read the entry only after seeing its phase. */
		dma_rmb();
		aq->cq_head++;
		wren_admin_update_sq_head(wdev, le16_to_cpu(cqe->sq_head));
		cmd_id = le16_to_cpu(cqe->cmd_id);
		ctx = &aq->ctx[cmd_id & mask];
		if (!ctx->busy || ctx->completed || ctx->cmd_id != cmd_id) {
			wdev->stats.admin_stale++;
			dev_warn_ratelimited(&wdev->pdev->dev,
					     "stale admin completion, id 0x%04x\n",
					     cmd_id);
			continue;
		}
		ctx->cqe = *cqe;
		ctx->completed = true;
		complete(&ctx->done);
	}
	spin_unlock_irqrestore(&aq->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(wren_admin_process);

/**
 * wren_admin_abort() - wake every waiting caller: the device is dead
 * @wdev: the device, already marked dead
 */
void wren_admin_abort(struct wren_dev *wdev)
{
	struct wren_admin *aq = &wdev->admin;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&aq->lock, flags);
	for (i = 0; i < wren_admin_depth(aq); i++)
		if (aq->ctx[i].busy && !aq->ctx[i].completed)
			complete(&aq->ctx[i].done);
	spin_unlock_irqrestore(&aq->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(wren_admin_abort);

/*
 * Take a free context, give it a new command id, write the command and
 * ring the doorbell.  -EBUSY when the ring is full.
 */
VISIBLE_IF_KUNIT int wren_admin_post(struct wren_dev *wdev, u8 opcode,
				     const void *body, size_t len,
				     struct wren_admin_ctx **ctxp)
{
	struct wren_admin *aq = &wdev->admin;
	u32 depth = wren_admin_depth(aq);
	struct wren_admin_ctx *ctx = NULL;
	struct wren_admin_cmd *cmd;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&aq->lock, flags);
	/* Slots of commands the device never completed stay consumed. */
	if (wren_ring_full(aq->sq_head, aq->sq_tail, depth)) {
		spin_unlock_irqrestore(&aq->lock, flags);
		return -EBUSY;
	}
	for (i = 0; i < depth; i++) {
		if (!aq->ctx[i].busy) {
			ctx = &aq->ctx[i];
			break;
		}
	}
	if (WARN_ON_ONCE(!ctx)) {
		spin_unlock_irqrestore(&aq->lock, flags);
		return -EBUSY;
	}
	aq->generation++;
	ctx->cmd_id = (u16)(aq->generation << aq->log_depth) | i;
	ctx->busy = true;
	ctx->completed = false;
	reinit_completion(&ctx->done);

	cmd = &aq->sq[aq->sq_tail & (depth - 1)];
	memset(cmd, 0, sizeof(*cmd));
	memcpy(cmd->payload, body, len);
	cmd->hdr.opcode = opcode;
	cmd->hdr.cmd_id = cpu_to_le16(ctx->cmd_id);
	cmd->hdr.flags = wren_ring_phase(aq->sq_tail, aq->log_depth);
	aq->sq_tail++;
	trace_wren_admin_post(wdev, opcode, ctx->cmd_id);
	/* The entry must be visible before the doorbell; writel orders it. */
	wren_wr(wdev, WREN_REG_AQ_DB, FIELD_PREP(WREN_AQ_DB_TAIL, aq->sq_tail));
	wdev->stats.admin_cmds++;
	spin_unlock_irqrestore(&aq->lock, flags);
	*ctxp = ctx;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_admin_post);

/* Wait for the completion or the timeout; the caller checks which. */
static void wren_admin_wait(struct wren_dev *wdev, struct wren_admin_ctx *ctx)
{
	unsigned long timeout = msecs_to_jiffies(wdev->admin.timeout_ms);
	unsigned long deadline = jiffies + timeout;

	if (!wdev->admin.poll) {
		wait_for_completion_timeout(&ctx->done, timeout);
		return;
	}
	while (time_before(jiffies, deadline)) {
		wren_admin_process(wdev);
		if (completion_done(&ctx->done))
			return;
		usleep_range(100, 1000);
	}
	wren_admin_process(wdev);
}

/* The errno of a completion's &enum wren_status. */
VISIBLE_IF_KUNIT int wren_status_to_errno(u8 status)
{
	switch (status) {
	case WREN_STATUS_SUCCESS:
		return 0;
	case WREN_STATUS_BAD_OPCODE:
	case WREN_STATUS_UNSUPPORTED:
		return -EOPNOTSUPP;
	case WREN_STATUS_BAD_PARAM:
	case WREN_STATUS_BAD_STATE:
		return -EINVAL;
	case WREN_STATUS_NO_RESOURCES:
		return -ENOMEM;
	case WREN_STATUS_NOT_FOUND:
		return -ENOENT;
	case WREN_STATUS_DMA_ERROR:
		return -EFAULT;
	default:
		return -EIO;
	}
}
EXPORT_SYMBOL_IF_KUNIT(wren_status_to_errno);

/**
 * wren_admin_exec() - execute one admin command and wait for it
 * @wdev: the device
 * @opcode: &enum wren_admin_opcode
 * @body: the command body, at most %WREN_ADMIN_CMD_PAYLOAD bytes
 * @len: its length
 * @cqe: where to copy the completion, or NULL
 *
 * Sleeps.  The command has the device's admin timeout to complete.
 *
 * Return: 0, the errno of the completion's status, -ETIMEDOUT if the
 * device did not answer in time (it is then fenced, and recovered by the
 * admin reporter, see wren_recover.c), -EBUSY if the admin queue is full of
 * commands the device never consumed, -EIO if the device is dead (also
 * when it dies while the command waits).
 */
int wren_admin_exec(struct wren_dev *wdev, u8 opcode, const void *body,
		    size_t len, struct wren_admin_cqe *cqe)
{
	struct wren_admin *aq = &wdev->admin;
	struct wren_admin_ctx *ctx;
	unsigned long flags;
	u32 ext_status;
	ktime_t start;
	u16 cmd_id;
	u8 status;
	bool done;
	int err;

	if (WARN_ON_ONCE(len > WREN_ADMIN_CMD_PAYLOAD))
		return -EINVAL;
	if (wren_dead(wdev))
		return -EIO;
	if (down_timeout(&aq->slots, msecs_to_jiffies(aq->timeout_ms)))
		return -EBUSY;
	start = ktime_get();
	err = wren_admin_post(wdev, opcode, body, len, &ctx);
	if (err) {
		dev_err_ratelimited(&wdev->pdev->dev,
				    "admin queue full, %s not posted\n",
				    wren_admin_opcode_name(opcode));
		goto out_up;
	}

	cmd_id = ctx->cmd_id;
	wren_admin_wait(wdev, ctx);

	spin_lock_irqsave(&aq->lock, flags);
	/* The completion may have raced with the timeout: it wins. */
	done = ctx->completed;
	status = ctx->cqe.status;
	ext_status = le32_to_cpu(ctx->cqe.ext_status);
	if (done && cqe)
		*cqe = ctx->cqe;
	ctx->busy = false;
	if (!done)
		wdev->stats.admin_timeouts++;
	else if (status != WREN_STATUS_SUCCESS)
		wdev->stats.admin_errors++;
	spin_unlock_irqrestore(&aq->lock, flags);

	if (!done && wren_dead(wdev)) {
		err = -EIO;
		goto out_trace;
	}
	if (!done) {
		dev_err_ratelimited(&wdev->pdev->dev,
				    "admin command %s (id 0x%04x) timed out after %u ms\n",
				    wren_admin_opcode_name(opcode), cmd_id,
				    aq->timeout_ms);
		/*
		 * What the command did is unknown, and its slot is the
		 * device's for good: fence it, and let the report recover it.
		 */
		wren_fence(wdev);
		wren_health_admin_timeout(wdev, opcode, cmd_id);
		err = -ETIMEDOUT;
		goto out_trace;
	}
	err = wren_status_to_errno(status);
	/* A rejected field is a driver bug; other statuses are the caller's. */
	if (status == WREN_STATUS_BAD_PARAM)
		dev_warn_ratelimited(&wdev->pdev->dev,
				     "admin command %s (id 0x%04x) rejected: field at byte %u\n",
				     wren_admin_opcode_name(opcode), cmd_id,
				     ext_status ? ext_status - 1 : 0);
	else if (err)
		dev_dbg(&wdev->pdev->dev,
			"admin command %s (id 0x%04x): status %u, extended status %u\n",
			wren_admin_opcode_name(opcode), cmd_id, status, ext_status);
out_trace:
	trace_wren_admin_done(wdev, opcode, cmd_id, done ? status : 0,
			      done ? ext_status : 0, err,
			      ktime_us_delta(ktime_get(), start));
out_up:
	up(&aq->slots);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(wren_admin_exec);
