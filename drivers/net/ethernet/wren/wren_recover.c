// SPDX-License-Identifier: GPL-2.0
/*
 * Wren recovery: fence a device that failed, then bring it down and up
 * again through one path, whatever asked for it.
 *
 * A fatal error, an admin command without an answer or a keep-alive that
 * stopped leaves the device in a state the driver cannot know.  The first
 * thing done is the fence (wren_fence(), any context): the driver marks
 * the device dead and clears its bus mastering, so from then on it writes
 * no host memory and raises no interrupt.  Everything that gives memory
 * back can then go on at once: the core's release commands succeed on a
 * fenced device (wren_cmds.c), and nothing is left parked.  The RDMA
 * driver is told (its users see IB_EVENT_DEVICE_FATAL, its kernel queues
 * flush) and the reporter that saw the failure is told too.
 *
 * The rest is wren_recover(): the devlink health reporters' recover
 * operation (run by devlink after the report, or by "devlink health
 * recover"), "devlink dev reload", a function-level reset and the PCI
 * error handlers all go through wren_unload() and wren_load() of
 * wren_main.c: the RDMA device is unregistered (user contexts are
 * disassociated), the function reset and brought up, and the RDMA device
 * registered again.
 */
#include <linux/ktime.h>
#include <linux/pci.h>

#include "wren_dev.h"
#include "wren_trace.h"

/**
 * wren_fence() - stop a failed device from reaching host memory
 * @wdev: the device
 *
 * May be called in any context, any number of times: the first call
 * fences, later ones return false until the device is up again.
 *
 * Return: true if this call fenced the device.
 */
bool wren_fence(struct wren_dev *wdev)
{
	struct wren_event_sink *sink;

	if (test_and_set_bit(WREN_FLAG_DEAD, &wdev->flags))
		return false;
	wdev->fenced_at = ktime_get();
	wren_dma_stop(wdev);
	wren_admin_abort(wdev);
	wren_eth_fence(wdev);
	rcu_read_lock();
	sink = rcu_dereference(wdev->events);
	if (sink)
		sink->ops->fatal(sink->priv);
	rcu_read_unlock();
	dev_err(&wdev->pdev->dev, "device fenced: no more DMA until it is reset\n");
	return true;
}

/**
 * wren_recover() - bring a fenced device back
 * @wdev: the device
 *
 * Sleeps.  A device that is not fenced (recovered already) is left alone.
 *
 * Return: 0, or the errno of the bring-up, after which the device stays
 * down until the next recovery, reload or reset.
 */
int wren_recover(struct wren_dev *wdev)
{
	ktime_t start = ktime_get(), fenced_at;
	int err;

	mutex_lock(&wdev->state_lock);
	if (!wren_dead(wdev)) {
		mutex_unlock(&wdev->state_lock);
		return 0;
	}
	fenced_at = wdev->fenced_at;
	wren_unload(wdev);
	err = wren_load(wdev);
	/* Its users may already have made it fail again (a lasting fault). */
	if (!err && wren_dead(wdev))
		err = -EIO;
	if (err) {
		wdev->stats.recovery_failures++;
		dev_err(&wdev->pdev->dev, "recovery failed: %d; the device stays down\n",
			err);
	} else {
		wdev->stats.recoveries++;
		wdev->stats.last_recovery_ms = ktime_ms_delta(ktime_get(),
							      fenced_at);
		dev_info(&wdev->pdev->dev,
			 "recovered: down for %llu ms, reset and bring-up %lld ms\n",
			 wdev->stats.last_recovery_ms,
			 ktime_ms_delta(ktime_get(), start));
	}
	mutex_unlock(&wdev->state_lock);
	return err;
}

/* PCI error recovery: the channel failed; the link is reset in between. */
static pci_ers_result_t wren_pci_error_detected(struct pci_dev *pdev,
						pci_channel_state_t state)
{
	struct wren_dev *wdev = pci_get_drvdata(pdev);

	dev_err(&pdev->dev, "PCI channel error (state %d)\n", state);
	wren_fence(wdev);
	mutex_lock(&wdev->state_lock);
	wren_unload(wdev);
	mutex_unlock(&wdev->state_lock);
	if (state == pci_channel_io_perm_failure)
		return PCI_ERS_RESULT_DISCONNECT;
	pci_disable_device(pdev);
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t wren_pci_slot_reset(struct pci_dev *pdev)
{
	if (pci_enable_device_mem(pdev)) {
		dev_err(&pdev->dev, "cannot re-enable the function after the reset\n");
		return PCI_ERS_RESULT_DISCONNECT;
	}
	pci_restore_state(pdev);
	pci_save_state(pdev);
	return PCI_ERS_RESULT_RECOVERED;
}

static void wren_pci_resume(struct pci_dev *pdev)
{
	struct wren_dev *wdev = pci_get_drvdata(pdev);

	mutex_lock(&wdev->state_lock);
	if (wren_load(wdev))
		dev_err(&pdev->dev, "no bring-up after the PCI error\n");
	mutex_unlock(&wdev->state_lock);
}

/* A function-level reset from outside (sysfs "reset", VFIO): down, then up. */
static void wren_pci_reset_prepare(struct pci_dev *pdev)
{
	struct wren_dev *wdev = pci_get_drvdata(pdev);

	mutex_lock(&wdev->state_lock);
	wren_unload(wdev);
	mutex_unlock(&wdev->state_lock);
}

static void wren_pci_reset_done(struct pci_dev *pdev)
{
	wren_pci_resume(pdev);
}

const struct pci_error_handlers wren_pci_err_handlers = {
	.error_detected = wren_pci_error_detected,
	.slot_reset = wren_pci_slot_reset,
	.resume = wren_pci_resume,
	.reset_prepare = wren_pci_reset_prepare,
	.reset_done = wren_pci_reset_done,
};
