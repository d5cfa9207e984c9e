// SPDX-License-Identifier: GPL-2.0
/*
 * Wren devlink: the device's identity for "devlink dev info", and the
 * runtime parameter keep_alive_ms.  The driver's private state lives in
 * the devlink instance.  The health reporters are wren_health.c's.
 *
 * Only keep_alive_ms is a devlink parameter.  The module parameters
 * admin_poll and tc_table_log shape queues and memory the device is
 * given at its first bring-up; a driverinit value would be lost with the
 * instance when the device is removed, so they stay module parameters.
 * "devlink dev reload" (driver_reinit) brings the device down and up
 * again, through the path of a recovery (wren_recover.c).
 */
#include <linux/netlink.h>
#include <net/devlink.h>

#include "wren_dev.h"

static int wren_devlink_info_get(struct devlink *devlink,
				 struct devlink_info_req *req,
				 struct netlink_ext_ack *extack)
{
	struct wren_dev *wdev = devlink_priv(devlink);
	struct pci_dev *pdev = wdev->pdev;
	char ver[32];
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
	/* The board: the PCI function's identity, as lspci shows it. */
	snprintf(ver, sizeof(ver), "%04x:%04x", pdev->vendor, pdev->device);
	err = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_BOARD_ID,
					     ver);
	if (err)
		return err;
	snprintf(ver, sizeof(ver), "%u", pdev->revision);
	err = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_BOARD_REV,
					     ver);
	if (err)
		return err;
	snprintf(ver, sizeof(ver), "%u.%u.%u", wdev->caps.fw_major,
		 wdev->caps.fw_minor, wdev->caps.fw_patch);
	err = devlink_info_version_running_put(req,
					       DEVLINK_INFO_VERSION_GENERIC_FW,
					       ver);
	if (err)
		return err;
	/* The device interface (Documentation/device-interface.rst). */
	snprintf(ver, sizeof(ver), "%u.%u", wdev->caps.spec_major,
		 wdev->caps.spec_minor);
	return devlink_info_version_running_put(req,
						DEVLINK_INFO_VERSION_GENERIC_FW_MGMT_API,
						ver);
}

/*
 * "devlink dev reload": the RDMA device goes (its users are disassociated,
 * as in a recovery), the function is reset and brought up, and the RDMA
 * device comes back.  The instance stays in its network namespace.
 */
static int wren_devlink_reload_down(struct devlink *devlink, bool netns_change,
				    enum devlink_reload_action action,
				    enum devlink_reload_limit limit,
				    struct netlink_ext_ack *extack)
{
	struct wren_dev *wdev = devlink_priv(devlink);

	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack, "the device stays in its network namespace");
		return -EOPNOTSUPP;
	}
	mutex_lock(&wdev->state_lock);
	wren_unload(wdev);
	mutex_unlock(&wdev->state_lock);
	return 0;
}

static int wren_devlink_reload_up(struct devlink *devlink,
				  enum devlink_reload_action action,
				  enum devlink_reload_limit limit,
				  u32 *actions_performed,
				  struct netlink_ext_ack *extack)
{
	struct wren_dev *wdev = devlink_priv(devlink);
	int err;

	mutex_lock(&wdev->state_lock);
	err = wren_load(wdev);
	mutex_unlock(&wdev->state_lock);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "the device did not come back up");
		return err;
	}
	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	return 0;
}

static const struct devlink_ops wren_devlink_ops = {
	.info_get = wren_devlink_info_get,
	.reload_actions = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down = wren_devlink_reload_down,
	.reload_up = wren_devlink_reload_up,
};

enum wren_devlink_param_id {
	WREN_DEVLINK_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	WREN_DEVLINK_PARAM_ID_KEEP_ALIVE_MS,
};

/*
 * A keep-alive period the device can be given: 0 (off), or within
 * WREN_KEEP_ALIVE_MIN_MS..WREN_KEEP_ALIVE_MAX_MS (below, the events would
 * be most of the async event queue's traffic and the watchdog would run
 * every tick; above, a lost device goes unnoticed for minutes).
 */
VISIBLE_IF_KUNIT int wren_keep_alive_validate(const struct wren_dev *wdev,
					      u32 keep_alive_ms,
					      struct netlink_ext_ack *extack)
{
	if (!keep_alive_ms)
		return 0;
	if (!(wdev->caps.caps & WREN_CAP_KEEP_ALIVE)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the device sends no keep-alive events: only 0 (off) is possible");
		return -EOPNOTSUPP;
	}
	if (keep_alive_ms < WREN_KEEP_ALIVE_MIN_MS) {
		NL_SET_ERR_MSG_MOD(extack,
				   "keep_alive_ms below 10 (other than 0, off)");
		return -ERANGE;
	}
	if (keep_alive_ms > WREN_KEEP_ALIVE_MAX_MS) {
		NL_SET_ERR_MSG_MOD(extack, "keep_alive_ms above 60000");
		return -ERANGE;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(wren_keep_alive_validate);

static int wren_devlink_keep_alive_validate(struct devlink *devlink, u32 id,
					    union devlink_param_value val,
					    struct netlink_ext_ack *extack)
{
	return wren_keep_alive_validate(devlink_priv(devlink), val.vu32,
					extack);
}

static int wren_devlink_keep_alive_get(struct devlink *devlink, u32 id,
				       struct devlink_param_gset_ctx *ctx)
{
	struct wren_dev *wdev = devlink_priv(devlink);

	ctx->val.vu32 = READ_ONCE(wdev->keep_alive_want);
	return 0;
}

/* Under the instance lock: one change at a time. */
#ifdef HAVE_DEVLINK_PARAM_SET_EXTACK
static int wren_devlink_keep_alive_set(struct devlink *devlink, u32 id,
				       struct devlink_param_gset_ctx *ctx,
				       struct netlink_ext_ack *extack)
#else
static int wren_devlink_keep_alive_set(struct devlink *devlink, u32 id,
				       struct devlink_param_gset_ctx *ctx)
#endif
{
	return wren_keep_alive_set(devlink_priv(devlink), ctx->val.vu32);
}

static const struct devlink_param wren_devlink_params[] = {
	DEVLINK_PARAM_DRIVER(WREN_DEVLINK_PARAM_ID_KEEP_ALIVE_MS,
			     "keep_alive_ms", DEVLINK_PARAM_TYPE_U32,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     wren_devlink_keep_alive_get,
			     wren_devlink_keep_alive_set,
			     wren_devlink_keep_alive_validate),
};

/**
 * wren_devlink_params_register() - offer the runtime parameters
 * @wdev: the driver state, its watchdog started
 *
 * Return: 0 or a negative errno.
 */
int wren_devlink_params_register(struct wren_dev *wdev)
{
	return devlink_params_register(priv_to_devlink(wdev),
				       wren_devlink_params,
				       ARRAY_SIZE(wren_devlink_params));
}

/**
 * wren_devlink_params_unregister() - withdraw them
 * @wdev: the driver state
 */
void wren_devlink_params_unregister(struct wren_dev *wdev)
{
	devlink_params_unregister(priv_to_devlink(wdev), wren_devlink_params,
				  ARRAY_SIZE(wren_devlink_params));
}

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
#ifdef HAVE_DEVLINK_SET_FEATURES	/* before 6.3: reload is asked for */
	devlink_set_features(priv_to_devlink(wdev), DEVLINK_F_RELOAD);
#endif
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
