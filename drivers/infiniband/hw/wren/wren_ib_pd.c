// SPDX-License-Identifier: GPL-2.0
/*
 * Protection domains: one device PD per ib_pd, for kernel and user alike.
 */
#include <rdma/ib_user_verbs.h>
#include <rdma/wren-abi.h>

#include "wren_ib.h"

/**
 * wren_ib_alloc_pd - allocate a protection domain
 * @ibpd: the PD ib_core allocated
 * @udata: for a user PD, carries struct wren_ib_alloc_pd_resp out
 *
 * Return: 0, or the error of the device command or of the response copy.
 */
int wren_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibpd->device);
	struct wren_ib_pd *pd = to_wren_ib_pd(ibpd);
	struct wren_ib_alloc_pd_resp resp = {};
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "alloc_pd: unknown driver data in request\n");
		return -EINVAL;
	}

	err = wren_cmd_alloc_pd(dev->wdev, &pd->pdn);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev, "alloc_pd failed: %d\n",
				      err);
		return err;
	}

	if (udata) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp,
				       min_t(size_t, udata->outlen,
					     sizeof(resp)));
		if (err) {
			ibdev_dbg_ratelimited(&dev->ibdev,
					      "pd %u: copying the response failed: %d\n",
					      pd->pdn, err);
			goto err_dealloc_pd;
		}
	}

	ibdev_dbg(&dev->ibdev, "pd %u allocated\n", pd->pdn);
	return 0;

err_dealloc_pd:
	wren_cmd_dealloc_pd(dev->wdev, pd->pdn);
	return err;
}

/**
 * wren_ib_dealloc_pd - free a protection domain
 * @ibpd: the PD
 * @udata: user data, unused
 *
 * A device that fails the command (reset, fatal error) has lost its PDs
 * anyway; ib_core cannot retry the free usefully, so the failure is
 * logged and the PD is considered gone.
 *
 * Return: 0.
 */
int wren_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibpd->device);
	struct wren_ib_pd *pd = to_wren_ib_pd(ibpd);
	int err;

	err = wren_cmd_dealloc_pd(dev->wdev, pd->pdn);
	if (err)
		ibdev_err_ratelimited(&dev->ibdev, "pd %u: dealloc failed: %d\n",
				      pd->pdn, err);
	return 0;
}
