// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: binds to the core driver's "wren.rdma" auxiliary
 * device and registers "wren_%d" with ib_core.
 *
 * A user's data path is in user space: the driver creates the objects
 * and maps their rings and doorbells.  Where the device has what the
 * kernel's own consumers need (kernel PDs with a DMA key, the GSI QP,
 * send entries carrying their destination), the driver also offers the
 * kernel verbs that post, poll and arm, with their rings and doorbells
 * its own: ib_core then registers a kernel verbs provider, and the MAD
 * layer, the connection manager and storage over RDMA attach to it.
 */
#include <linux/auxiliary_bus.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "wren_ib.h"

/* What the kernel verbs need of the device. */
#define WREN_IB_KVERBS_CAPS	(WREN_CAP_DMA_LKEY | WREN_CAP_GSI | \
				 WREN_CAP_WQE_AV | WREN_CAP_UD)

static const struct ib_device_ops wren_ib_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,
	.uverbs_abi_ver = WREN_IB_UVERBS_ABI_VERSION,

	.alloc_hw_port_stats = wren_ib_alloc_hw_port_stats,
	.alloc_pd = wren_ib_alloc_pd,
	.alloc_ucontext = wren_ib_alloc_ucontext,
	.create_cq = wren_ib_create_cq,
	.create_qp = wren_ib_create_qp,
	.create_srq = wren_ib_create_srq,
	.create_user_ah = wren_ib_create_user_ah,
	.dealloc_pd = wren_ib_dealloc_pd,
	.dealloc_ucontext = wren_ib_dealloc_ucontext,
	.dereg_mr = wren_ib_dereg_mr,
	.disassociate_ucontext = wren_ib_disassociate_ucontext,
	.fill_res_cq_entry = wren_ib_fill_res_cq_entry,
	.fill_res_cq_entry_raw = wren_ib_fill_res_cq_entry_raw,
	.fill_res_mr_entry = wren_ib_fill_res_mr_entry,
	.fill_res_mr_entry_raw = wren_ib_fill_res_mr_entry_raw,
	.fill_res_qp_entry = wren_ib_fill_res_qp_entry,
	.fill_res_qp_entry_raw = wren_ib_fill_res_qp_entry_raw,
#ifdef HAVE_FILL_RES_SRQ
	.fill_res_srq_entry = wren_ib_fill_res_srq_entry,
	.fill_res_srq_entry_raw = wren_ib_fill_res_srq_entry_raw,
#endif
	.destroy_ah = wren_ib_destroy_ah,
	.destroy_cq = wren_ib_destroy_cq,
	.destroy_qp = wren_ib_destroy_qp,
	.destroy_srq = wren_ib_destroy_srq,
	.get_dev_fw_str = wren_ib_get_dev_fw_str,
	.get_hw_stats = wren_ib_get_hw_stats,
	.get_link_layer = wren_ib_get_link_layer,
	.get_port_immutable = wren_ib_get_port_immutable,
	.mmap = wren_ib_mmap,
	.mmap_free = wren_ib_mmap_free,
	.modify_qp = wren_ib_modify_qp,
	.modify_srq = wren_ib_modify_srq,
	.query_device = wren_ib_query_device,
	.query_gid = wren_ib_query_gid,
	.query_pkey = wren_ib_query_pkey,
	.query_port = wren_ib_query_port,
	.query_qp = wren_ib_query_qp,
	.query_srq = wren_ib_query_srq,
	.reg_user_mr = wren_ib_reg_user_mr,
	.reg_user_mr_dmabuf = wren_ib_reg_user_mr_dmabuf,
	.rereg_user_mr = wren_ib_rereg_user_mr,
	.resize_cq = wren_ib_resize_cq,

	INIT_RDMA_OBJ_SIZE(ib_ah, wren_ib_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, wren_ib_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, wren_ib_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, wren_ib_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, wren_ib_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, wren_ib_ucontext, ibucontext),
};

/* QP counters, if the device has counter sets to put them in. */
static const struct ib_device_ops wren_ib_counter_ops = {
	.counter_alloc_stats = wren_ib_counter_alloc_stats,
	.counter_bind_qp = wren_ib_counter_bind_qp,
	.counter_dealloc = wren_ib_counter_dealloc,
	.counter_unbind_qp = wren_ib_counter_unbind_qp,
	.counter_update_stats = wren_ib_counter_update_stats,
};

static const struct ib_device_ops wren_ib_kverbs_ops = {
	.alloc_mr = wren_ib_alloc_mr,
	.create_ah = wren_ib_create_kernel_ah,
	.get_dma_mr = wren_ib_get_dma_mr,
	.map_mr_sg = wren_ib_map_mr_sg,
	.poll_cq = wren_ib_poll_cq,
	.post_recv = wren_ib_post_recv,
	.post_send = wren_ib_post_send,
	.req_notify_cq = wren_ib_req_notify_cq,
};

/*
 * The kernel verbs, if the device has what they need: their doorbell
 * page, mapped, and the DMA key for every kernel PD.  Without them the
 * device is one for user space only.
 */
static int wren_ib_kverbs_init(struct wren_ib_dev *dev)
{
	int err;

	if ((dev->caps->caps & WREN_IB_KVERBS_CAPS) != WREN_IB_KVERBS_CAPS) {
		dev_info(&dev->pdev->dev,
			 "device lacks capabilities %#llx: no kernel verbs\n",
			 WREN_IB_KVERBS_CAPS & ~dev->caps->caps);
		return 0;
	}
	err = wren_db_page_alloc(dev->wdev, &dev->kdb_page);
	if (err)
		return err;
	dev->kdb = ioremap(wren_db_page_phys(dev->wdev, dev->kdb_page),
			   dev->caps->db_page_size);
	if (!dev->kdb) {
		wren_db_page_free(dev->wdev, dev->kdb_page);
		return -ENOMEM;
	}
	dev->ibdev.local_dma_lkey = WREN_LKEY_DMA;
	ib_set_device_ops(&dev->ibdev, &wren_ib_kverbs_ops);
	return 0;
}

static void wren_ib_kverbs_fini(struct wren_ib_dev *dev)
{
	if (!dev->kdb)
		return;
	iounmap(dev->kdb);
	wren_db_page_free(dev->wdev, dev->kdb_page);
}

static int wren_ib_probe(struct auxiliary_device *adev,
			 const struct auxiliary_device_id *id)
{
	struct wren_aux_dev *aux = to_wren_aux_dev(adev);
	struct wren_ib_dev *dev;
	int err;

	/* A doorbell page must be exactly one CPU page to be mapped alone. */
	if (wren_get_caps(aux->wdev)->db_page_size != PAGE_SIZE) {
		dev_err(&adev->dev, "doorbell pages of %u bytes cannot be mapped with PAGE_SIZE %lu\n",
			wren_get_caps(aux->wdev)->db_page_size, PAGE_SIZE);
		return -EOPNOTSUPP;
	}
	dev = ib_alloc_device(wren_ib_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	dev->wdev = aux->wdev;
	dev->pdev = to_pci_dev(adev->dev.parent);
	dev->caps = wren_get_caps(dev->wdev);
	dev->netdev = wren_get_netdev(dev->wdev);

	/* A RoCE port makes it a channel adapter, as every RoCE device is. */
	dev->ibdev.node_type = dev->netdev ? RDMA_NODE_IB_CA :
					     RDMA_NODE_UNSPECIFIED;
	dev->ibdev.node_guid = cpu_to_be64(dev->caps->node_guid);
	dev->ibdev.phys_port_cnt = 1;
	dev->ibdev.num_comp_vectors = max(dev->caps->num_comp_vectors, 1U);
	dev->ibdev.dev.parent = &adev->dev;
	ib_set_device_ops(&dev->ibdev, &wren_ib_dev_ops);
	if (dev->caps->caps & WREN_CAP_COUNTER_SETS)
		ib_set_device_ops(&dev->ibdev, &wren_ib_counter_ops);
	err = wren_ib_kverbs_init(dev);
	if (err)
		goto err_dealloc;
	xa_init(&dev->cqs);
	xa_init(&dev->qps);
	xa_init(&dev->srqs);
	/* Events name CQs, which exist only once the device is registered. */
	wren_set_event_ops(dev->wdev, &wren_ib_event_ops, dev);

	/* ib_core then keeps the GID table from the interface's addresses. */
	if (dev->netdev) {
		err = ib_device_set_netdev(&dev->ibdev, dev->netdev, 1);
		if (err)
			goto err_clear_event_ops;
	}
	err = ib_register_device(&dev->ibdev, "wren_%d",
				 wren_dma_dev(dev->wdev));
	if (err) {
		dev_err(&adev->dev, "ib_register_device failed: %d\n", err);
		goto err_clear_event_ops;
	}
	auxiliary_set_drvdata(adev, dev);
	return 0;

err_clear_event_ops:
	wren_clear_event_ops(dev->wdev);
	xa_destroy(&dev->cqs);
	xa_destroy(&dev->qps);
	xa_destroy(&dev->srqs);
	wren_ib_kverbs_fini(dev);
err_dealloc:
	ib_dealloc_device(&dev->ibdev);
	return err;
}

static void wren_ib_remove(struct auxiliary_device *adev)
{
	struct wren_ib_dev *dev = auxiliary_get_drvdata(adev);

	/* Destroys every user object, so every CQ has left the xarray. */
	ib_unregister_device(&dev->ibdev);
	wren_clear_event_ops(dev->wdev);
	xa_destroy(&dev->cqs);
	xa_destroy(&dev->qps);
	xa_destroy(&dev->srqs);
	wren_ib_kverbs_fini(dev);
	ib_dealloc_device(&dev->ibdev);
}

static const struct auxiliary_device_id wren_ib_id_table[] = {
	{ .name = "wren." WREN_AUX_RDMA_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, wren_ib_id_table);

static struct auxiliary_driver wren_ib_driver = {
	.name = "ib",
	.probe = wren_ib_probe,
	.remove = wren_ib_remove,
	.id_table = wren_ib_id_table,
};
module_auxiliary_driver(wren_ib_driver);

MODULE_IMPORT_NS(WREN);
MODULE_DESCRIPTION("Wren reliable-datagram network adapter RDMA driver");
MODULE_LICENSE("GPL");
