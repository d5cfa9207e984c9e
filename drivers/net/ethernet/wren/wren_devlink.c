// SPDX-License-Identifier: GPL-2.0
/*
 * Wren devlink: the device's identity for "devlink dev info".  The
 * driver's private state lives in the devlink instance.
 */
#include <net/devlink.h>

#include "wren_dev.h"

static int wren_devlink_info_get(struct devlink *devlink,
				 struct devlink_info_req *req,
				 struct netlink_ext_ack *extack)
{
	struct wren_dev *wdev = devlink_priv(devlink);
	char fw[32];
	int err;

#ifdef HAVE_DEVLINK_INFO_DRIVER_NAME_PUT
	err = devlink_info_driver_name_put(req, WREN_DRV_NAME);
	if (err)
		return err;
#endif
	if (wdev->caps.serial[0]) {
		err = devlink_info_serial_number_put(req, wdev->caps.serial);
		if (err)
			return err;
	}
	snprintf(fw, sizeof(fw), "%u.%u.%u", wdev->caps.fw_major,
		 wdev->caps.fw_minor, wdev->caps.fw_patch);
	return devlink_info_version_running_put(req,
						DEVLINK_INFO_VERSION_GENERIC_FW,
						fw);
}

static const struct devlink_ops wren_devlink_ops = {
	.info_get = wren_devlink_info_get,
};

/**
 * wren_devlink_alloc() - allocate the devlink instance and the driver state
 * @pdev: the PCI function
 *
 * Return: the zeroed driver state, or NULL.
 */
struct wren_dev *wren_devlink_alloc(struct pci_dev *pdev)
{
	struct devlink *devlink;

	devlink = devlink_alloc(&wren_devlink_ops, sizeof(struct wren_dev),
				&pdev->dev);
	return devlink ? devlink_priv(devlink) : NULL;
}

/**
 * wren_devlink_free() - free the devlink instance and the driver state
 * @wdev: the driver state
 */
void wren_devlink_free(struct wren_dev *wdev)
{
	devlink_free(priv_to_devlink(wdev));
}

/**
 * wren_devlink_register() - make the instance visible to user space
 * @wdev: the driver state, with the device's attributes known
 */
void wren_devlink_register(struct wren_dev *wdev)
{
	devlink_register(priv_to_devlink(wdev));
}

/**
 * wren_devlink_unregister() - hide the instance again
 * @wdev: the driver state
 */
void wren_devlink_unregister(struct wren_dev *wdev)
{
	devlink_unregister(priv_to_devlink(wdev));
}
