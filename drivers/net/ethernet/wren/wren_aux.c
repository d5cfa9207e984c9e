// SPDX-License-Identifier: GPL-2.0
/*
 * Wren auxiliary devices: the core driver publishes "wren.rdma.<n>", to
 * which wren_ib.ko binds.
 */
#include <linux/auxiliary_bus.h>
#include <linux/slab.h>

#include "wren_dev.h"

static DEFINE_IDA(wren_aux_ids);

static void wren_aux_release(struct device *dev)
{
	struct wren_aux_dev *aux = to_wren_aux_dev(to_auxiliary_dev(dev));

	ida_free(&wren_aux_ids, aux->adev.id);
	kfree(aux);
}

/**
 * wren_aux_add() - publish the RDMA auxiliary device
 * @wdev: the device, fully initialised
 *
 * Return: 0 or a negative errno.
 */
int wren_aux_add(struct wren_dev *wdev)
{
	struct wren_aux_dev *aux;
	int id, err;

	aux = kzalloc(sizeof(*aux), GFP_KERNEL);
	if (!aux)
		return -ENOMEM;
	id = ida_alloc(&wren_aux_ids, GFP_KERNEL);
	if (id < 0) {
		kfree(aux);
		return id;
	}
	aux->wdev = wdev;
	aux->adev.name = WREN_AUX_RDMA_NAME;
	aux->adev.id = id;
	aux->adev.dev.parent = &wdev->pdev->dev;
	aux->adev.dev.release = wren_aux_release;
	err = auxiliary_device_init(&aux->adev);
	if (err) {
		ida_free(&wren_aux_ids, id);
		kfree(aux);
		return err;
	}
	err = auxiliary_device_add(&aux->adev);
	if (err) {
		/* The release callback frees the id and the memory. */
		auxiliary_device_uninit(&aux->adev);
		return err;
	}
	wdev->aux = aux;
	return 0;
}

/**
 * wren_aux_del() - withdraw the RDMA auxiliary device
 * @wdev: the device
 *
 * Unbinds wren_ib.ko from it first, so no verb runs once this returns.
 */
void wren_aux_del(struct wren_dev *wdev)
{
	if (!wdev->aux)
		return;
	auxiliary_device_delete(&wdev->aux->adev);
	auxiliary_device_uninit(&wdev->aux->adev);
	wdev->aux = NULL;
}
