// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: protection domains.
 */
#include <rdma/ib_user_verbs.h>

#include "wren_ib.h"

/**
 * wren_ib_alloc_pd() - allocate a protection domain on the device
 * @ibpd: the PD, allocated by ib_core
 * @udata: for a user PD, receives &struct wren_ib_alloc_pd_resp; NULL for
 *	a kernel PD, on which SGEs may name DMA addresses under the device's
 *	local_dma_lkey
 *
 * Return: 0 or a negative errno.
 */
int wren_ib_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibpd->device);
	struct wren_ib_pd *pd = to_wren_ib_pd(ibpd);
	struct wren_ib_alloc_pd_resp resp = {};
	int err;

	err = wren_cmd_alloc_pd(dev->wdev, !udata, &pd->pdn);
	if (err) {
		ibdev_err_ratelimited(&dev->ibdev, "alloc_pd failed: %d\n", err);
		return err;
	}
	if (udata && udata->outlen) {
		resp.pdn = pd->pdn;
		err = ib_copy_to_udata(udata, &resp,
				       min(sizeof(resp), udata->outlen));
		if (err) {
			ibdev_dbg(&dev->ibdev, "alloc_pd: copy to user failed\n");
			wren_cmd_dealloc_pd(dev->wdev, pd->pdn);
			return err;
		}
	}
	return 0;
}

/**
 * wren_ib_dealloc_pd() - free a protection domain on the device
 * @ibpd: the PD
 * @udata: unused
 *
 * Return: 0 or a negative errno.
 */
int wren_ib_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibpd->device);
	struct wren_ib_pd *pd = to_wren_ib_pd(ibpd);
	int err;

	err = wren_cmd_dealloc_pd(dev->wdev, pd->pdn);
	if (err)
		ibdev_err_ratelimited(&dev->ibdev, "dealloc_pd %u failed: %d\n",
				      pd->pdn, err);
	return err;
}
