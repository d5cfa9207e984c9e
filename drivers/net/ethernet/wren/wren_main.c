// SPDX-License-Identifier: GPL-2.0
/*
 * Wren core driver: the PCI function, its bring-up and teardown.
 *
 * Bring-up: reset, program the admin and async event queues, enable, read
 * the device's attributes, hand it its transport-context table, create
 * the event queues, then publish the
 * devlink instance and the RDMA auxiliary device.  Teardown undoes it in
 * the opposite order and resets the device before freeing any memory it
 * could still write.
 *
 * The device part of it (wren_start() and wren_stop(), with the RDMA
 * device and the network interface's queues around them: wren_load() and
 * wren_unload()) is done again by every recovery, reload and reset (see
 * wren_recover.c); the PCI function, its interrupts, the admin rings, the
 * devlink instance and the network interface stay.
 */
#ifdef HAVE_KUNIT_STATIC_STUB
#include <kunit/static_stub.h>
#endif
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>

#include "wren_dev.h"
#include "wren_trace.h"

static bool admin_poll;
module_param(admin_poll, bool, 0444);
MODULE_PARM_DESC(admin_poll, "Poll for admin completions instead of using an interrupt");

/* The initial value of the devlink parameter keep_alive_ms. */
static unsigned int keep_alive_ms = 1000;
module_param(keep_alive_ms, uint, 0444);
MODULE_PARM_DESC(keep_alive_ms, "Initial keep-alive event period in ms (0: off, else 10 to 60000, default 1000); devlink parameter keep_alive_ms changes it");

/**
 * wren_get_caps() - the device's attributes
 * @wdev: the device
 *
 * Return: the attributes read at probe time; valid while the auxiliary
 * device is bound.
 */
const struct wren_caps *wren_get_caps(struct wren_dev *wdev)
{
	return &wdev->caps;
}
EXPORT_SYMBOL_NS_GPL(wren_get_caps, WREN);

/**
 * wren_dma_dev() - the device to use for DMA mappings
 * @wdev: the device
 *
 * Return: the PCI function's struct device.
 */
struct device *wren_dma_dev(struct wren_dev *wdev)
{
	return &wdev->pdev->dev;
}
EXPORT_SYMBOL_NS_GPL(wren_dma_dev, WREN);

/**
 * wren_get_netdev() - the port's network interface
 * @wdev: the device
 *
 * Return: the interface (registered before the auxiliary device and
 * unregistered after it), or NULL if the device has none.
 */
struct net_device *wren_get_netdev(struct wren_dev *wdev)
{
	return wdev->eth ? wdev->eth->netdev : NULL;
}
EXPORT_SYMBOL_NS_GPL(wren_get_netdev, WREN);

/**
 * wren_rd() - read a device register
 * @wdev: the device
 * @reg: the register's offset in BAR0
 *
 * Out of line, like wren_wr(), so that a KUnit suite can play the device.
 *
 * Return: the register's value.
 */
u32 wren_rd(struct wren_dev *wdev, u32 reg)
{
#ifdef HAVE_KUNIT_STATIC_STUB	/* 6.2 on */
	KUNIT_STATIC_STUB_REDIRECT(wren_rd, wdev, reg);
#endif
	return readl(wdev->regs + reg);
}
EXPORT_SYMBOL_IF_KUNIT(wren_rd);

/**
 * wren_wr() - write a device register
 * @wdev: the device
 * @reg: the register's offset in BAR0
 * @val: the value
 *
 * Every register write goes through here, so that a KUnit suite can stand
 * in for the device.
 */
void wren_wr(struct wren_dev *wdev, u32 reg, u32 val)
{
#ifdef HAVE_KUNIT_STATIC_STUB	/* 6.2 on */
	KUNIT_STATIC_STUB_REDIRECT(wren_wr, wdev, reg, val);
#endif
	writel(val, wdev->regs + reg);
}
EXPORT_SYMBOL_IF_KUNIT(wren_wr);

/* Wait until DEV_STS has @bits, or FATAL.  Return 0, -EIO or -ETIMEDOUT. */
static int wren_wait_status(struct wren_dev *wdev, u32 bits,
			    unsigned int timeout_ms, const char *what)
{
	u32 sts;
	int err;

	err = readl_poll_timeout(wdev->regs + WREN_REG_DEV_STS, sts,
				 (sts & bits) == bits || sts & WREN_DEV_STS_FATAL,
				 1000, timeout_ms * USEC_PER_MSEC);
	if (sts & WREN_DEV_STS_FATAL) {
		dev_err(&wdev->pdev->dev, "%s: device fatal error %lu\n", what,
			FIELD_GET(WREN_DEV_STS_FATAL_CODE, sts));
		return -EIO;
	}
	if (err)
		dev_err(&wdev->pdev->dev, "%s: no answer in %u ms (status 0x%x)\n",
			what, timeout_ms, sts);
	return err;
}

static int wren_reset(struct wren_dev *wdev)
{
	u32 timeouts = wren_rd(wdev, WREN_REG_TIMEOUTS);
	unsigned int reset_ms = FIELD_GET(WREN_TIMEOUTS_RESET_MS, timeouts);
	int err;

	wren_wr(wdev, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET);
	err = wren_wait_status(wdev, WREN_DEV_STS_READY, reset_ms ?: 1000,
			       "reset");
	trace_wren_reset(wdev, err);
	return err;
}

static int wren_enable(struct wren_dev *wdev)
{
	wren_admin_program(wdev);
	wren_aeq_program(wdev);
	wren_wr(wdev, WREN_REG_INTR_MASK,
		wdev->admin.poll ? WREN_INTR_MASK_MGMT : 0);
	wren_wr(wdev, WREN_REG_DEV_CTL, WREN_DEV_CTL_ENABLE);
	return wren_wait_status(wdev, WREN_DEV_STS_ENABLED,
				wdev->admin.timeout_ms, "enable");
}

static int wren_check_caps(struct wren_dev *wdev)
{
	const struct wren_caps *c = &wdev->caps;
	resource_size_t db_len = pci_resource_len(wdev->pdev, WREN_DB_BAR);

	if (c->db_page_count < 2 ||
	    (resource_size_t)c->db_page_count << WREN_DB_PAGE_SHIFT > db_len) {
		dev_err(&wdev->pdev->dev,
			"device claims %u doorbell pages, the BAR holds %llu bytes\n",
			c->db_page_count, (u64)db_len);
		return -EPROTO;
	}
	if (c->mtu < 256 || c->mtu > 9000) {
		dev_err(&wdev->pdev->dev, "device MTU %u out of range\n", c->mtu);
		return -EPROTO;
	}
	return 0;
}

static int wren_start_watchdog(struct wren_dev *wdev)
{
	unsigned int period = wdev->keep_alive_want;
	int err;

	if (!(wdev->caps.caps & WREN_CAP_KEEP_ALIVE))
		period = 0;
	if (period) {
		err = wren_cmd_set_feature(wdev, WREN_FEATURE_KEEP_ALIVE_MS,
					   period);
		if (err)
			return err;
	}
	wren_watchdog_start(wdev, period);
	return 0;
}

/**
 * wren_dma_stop() - clear the function's bus mastering
 * @wdev: the device
 *
 * Any context (a configuration write takes a raw spinlock).  Out of
 * line, like wren_wr(), so that a KUnit suite's device, which has no PCI
 * configuration space, can stand in.
 */
void wren_dma_stop(struct wren_dev *wdev)
{
#ifdef HAVE_KUNIT_STATIC_STUB	/* 6.2 on */
	KUNIT_STATIC_STUB_REDIRECT(wren_dma_stop, wdev);
#endif
	pci_clear_master(wdev->pdev);
}
EXPORT_SYMBOL_IF_KUNIT(wren_dma_stop);

/*
 * From reset to running: the device part of the bring-up, which a
 * recovery, a reload or a reset does again.  On failure the device is
 * left reset and fenced.
 */
static int wren_start(struct wren_dev *wdev)
{
	struct pci_dev *pdev = wdev->pdev;
	int err;

	pci_set_master(pdev);
	err = wren_reset(wdev);
	if (err)
		goto err_fence;
	/* Reset: nothing of the failure is left; commands may go again. */
	wren_health_rearm(wdev);
	clear_bit(WREN_FLAG_DEAD, &wdev->flags);
	err = wren_enable(wdev);
	if (err)
		goto err_reset;
	err = wren_cmd_get_attr(wdev, &wdev->caps);
	if (err) {
		dev_err(&pdev->dev, "reading the device attributes failed: %d\n",
			err);
		goto err_reset;
	}
	err = wren_check_caps(wdev);
	if (err)
		goto err_reset;
	err = wren_tc_table_create(wdev);
	if (err)
		goto err_reset;
	err = wren_start_watchdog(wdev);
	if (err)
		goto err_reset;
	wren_db_init(wdev);
	err = wren_eqs_create(wdev);
	if (err)
		goto err_stop_watchdog;
	set_bit(WREN_FLAG_UP, &wdev->flags);
	return 0;

err_stop_watchdog:
	wren_watchdog_stop(wdev);
	wren_db_destroy(wdev);
err_reset:
	wren_reset(wdev);
	wren_tc_table_destroy(wdev);
err_fence:
	set_bit(WREN_FLAG_DEAD, &wdev->flags);
	wren_dma_stop(wdev);
	return err;
}

/* Undo wren_start(); after the reset the device writes no host memory. */
static void wren_stop(struct wren_dev *wdev)
{
	wren_eqs_destroy(wdev);
	wren_watchdog_stop(wdev);
	wren_db_destroy(wdev);
	set_bit(WREN_FLAG_DEAD, &wdev->flags);
	wren_reset(wdev);
	wren_dma_stop(wdev);
	wren_tc_table_destroy(wdev);
}

/**
 * wren_load() - bring the device up and publish it again
 * @wdev: the device, down (probe's first bring-up does its own)
 *
 * Called with the state lock held.
 *
 * Return: 0, or the errno of the bring-up; the device is then down.
 */
int wren_load(struct wren_dev *wdev)
{
	int err;

	lockdep_assert_held(&wdev->state_lock);
	if (test_bit(WREN_FLAG_UP, &wdev->flags))
		return 0;
	err = wren_start(wdev);
	if (err)
		return err;
	wren_eth_attach(wdev);
	err = wren_aux_add(wdev);
	if (err)
		dev_err(&wdev->pdev->dev, "no RDMA device after the bring-up: %d\n",
			err);
	return 0;
}

/**
 * wren_unload() - withdraw the device's users and bring it down
 * @wdev: the device, up, or fenced after a failure
 *
 * Called with the state lock held.  The RDMA driver unbinds first, which
 * disassociates user contexts and destroys every object; the network
 * interface stays, detached.  Does nothing to a device that is down.
 */
void wren_unload(struct wren_dev *wdev)
{
	lockdep_assert_held(&wdev->state_lock);
	if (!test_and_clear_bit(WREN_FLAG_UP, &wdev->flags))
		return;
	wren_aux_del(wdev);
	wren_eth_detach(wdev);
	wren_stop(wdev);
}

static int wren_map_bars(struct wren_dev *wdev)
{
	struct pci_dev *pdev = wdev->pdev;
	int err;

	err = pci_request_mem_regions(pdev, WREN_DRV_NAME);
	if (err)
		return err;
	if (pci_resource_len(pdev, WREN_REG_BAR) < WREN_REG_BAR_SIZE ||
	    !(pci_resource_flags(pdev, WREN_DB_BAR) & IORESOURCE_MEM)) {
		dev_err(&pdev->dev, "unexpected BAR layout\n");
		err = -ENODEV;
		goto err_release;
	}
	wdev->regs = pci_iomap(pdev, WREN_REG_BAR, WREN_MSIX_TABLE_OFFSET);
	if (!wdev->regs) {
		err = -ENOMEM;
		goto err_release;
	}
	wdev->db_bar_start = pci_resource_start(pdev, WREN_DB_BAR);
	return 0;

err_release:
	pci_release_mem_regions(pdev);
	return err;
}

static void wren_unmap_bars(struct wren_dev *wdev)
{
	pci_iounmap(wdev->pdev, wdev->regs);
	pci_release_mem_regions(wdev->pdev);
}

static int wren_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct wren_dev *wdev;
	u32 version;
	int err;

	wdev = wren_devlink_alloc(pdev);
	if (!wdev)
		return -ENOMEM;
	wdev->pdev = pdev;
	wdev->admin.poll = admin_poll;
	mutex_init(&wdev->state_lock);
	/* The range the devlink parameter takes, so that it reads back. */
	wdev->keep_alive_want = keep_alive_ms ?
		clamp_t(unsigned int, keep_alive_ms, WREN_KEEP_ALIVE_MIN_MS,
			WREN_KEEP_ALIVE_MAX_MS) : 0;
	pci_set_drvdata(pdev, wdev);
	wren_health_init(wdev);

	err = pci_enable_device_mem(pdev);
	if (err)
		goto err_free_devlink;
	err = wren_map_bars(wdev);
	if (err)
		goto err_disable_device;
	err = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (err)
		goto err_unmap_bars;

	version = wren_rd(wdev, WREN_REG_VERSION);
	if (FIELD_GET(WREN_VERSION_MAJOR, version) != WREN_SPEC_VERSION_MAJOR) {
		dev_err(&pdev->dev, "device interface %lu.%lu, driver supports %u.x\n",
			FIELD_GET(WREN_VERSION_MAJOR, version),
			FIELD_GET(WREN_VERSION_MINOR, version),
			WREN_SPEC_VERSION_MAJOR);
		err = -ENODEV;
		goto err_unmap_bars;
	}
	wdev->admin.timeout_ms = FIELD_GET(WREN_TIMEOUTS_ADMIN_MS,
					   wren_rd(wdev, WREN_REG_TIMEOUTS)) ?: 1000;

	err = wren_admin_init(wdev);
	if (err)
		goto err_unmap_bars;
	err = wren_aeq_init(wdev);
	if (err)
		goto err_destroy_admin;
	err = wren_irqs_init(wdev);
	if (err)
		goto err_destroy_aeq;
	err = wren_start(wdev);
	if (err)
		goto err_destroy_irqs;

	err = wren_eth_add(wdev);
	if (err)
		goto err_stop;
	wren_debugfs_add(wdev);
	/* Before the instance is visible: 6.1 wants it so. */
	err = wren_devlink_params_register(wdev);
	if (err)
		goto err_debugfs;
	wren_devlink_register(wdev);
	/* devlink only takes reports of a registered instance. */
	wren_health_register(wdev);
	err = wren_aux_add(wdev);
	if (err)
		goto err_unregister;
	/* For the PCI error handlers' restore after a reset. */
	pci_save_state(pdev);

	dev_info(&pdev->dev, "Wren adapter %pM, interface %u.%u, firmware %u.%u.%u, %u event queues\n",
		 wdev->caps.mac_addr, wdev->caps.spec_major, wdev->caps.spec_minor,
		 wdev->caps.fw_major, wdev->caps.fw_minor, wdev->caps.fw_patch,
		 wdev->num_eqs);
	return 0;

err_unregister:
	wren_health_unregister(wdev);
	wren_devlink_unregister(wdev);
	wren_devlink_params_unregister(wdev);
err_debugfs:
	wren_debugfs_del(wdev);
	wren_eth_del(wdev);
err_stop:
	clear_bit(WREN_FLAG_UP, &wdev->flags);
	wren_stop(wdev);
err_destroy_irqs:
	wren_irqs_destroy(wdev);
	/* No event comes any more; a queued one is dropped. */
	wren_health_unregister(wdev);
err_destroy_aeq:
	wren_aeq_destroy(wdev);
err_destroy_admin:
	wren_admin_destroy(wdev);
err_unmap_bars:
	wren_unmap_bars(wdev);
err_disable_device:
	pci_disable_device(pdev);
err_free_devlink:
	mutex_destroy(&wdev->state_lock);
	wren_devlink_free(wdev);
	return err;
}

static void wren_remove(struct pci_dev *pdev)
{
	struct wren_dev *wdev = pci_get_drvdata(pdev);

	/*
	 * Reports stop first: a recovery under way finishes, and none starts
	 * while the device goes.  Errors of the teardown are logged only.
	 */
	wren_health_unregister(wdev);
	mutex_lock(&wdev->state_lock);
	wren_unload(wdev);
	mutex_unlock(&wdev->state_lock);
	wren_devlink_unregister(wdev);
	wren_devlink_params_unregister(wdev);
	wren_debugfs_del(wdev);
	wren_eth_del(wdev);
	wren_irqs_destroy(wdev);
	wren_aeq_destroy(wdev);
	wren_admin_destroy(wdev);
	wren_unmap_bars(wdev);
	pci_disable_device(pdev);
	mutex_destroy(&wdev->state_lock);
	wren_devlink_free(wdev);
}

static const struct pci_device_id wren_pci_ids[] = {
	{ PCI_DEVICE(WREN_PCI_VENDOR_ID, WREN_PCI_DEVICE_ID) },
	{ }
};
MODULE_DEVICE_TABLE(pci, wren_pci_ids);

static struct pci_driver wren_pci_driver = {
	.name = WREN_DRV_NAME,
	.id_table = wren_pci_ids,
	.probe = wren_probe,
	.remove = wren_remove,
	.err_handler = &wren_pci_err_handlers,
};

static int __init wren_init(void)
{
	int err;

	wren_debugfs_init();
	err = pci_register_driver(&wren_pci_driver);
	if (err)
		wren_debugfs_exit();
	return err;
}

static void __exit wren_exit(void)
{
	pci_unregister_driver(&wren_pci_driver);
	wren_debugfs_exit();
}

module_init(wren_init);
module_exit(wren_exit);

MODULE_DESCRIPTION("Wren reliable-datagram network adapter core driver");
MODULE_LICENSE("GPL");
