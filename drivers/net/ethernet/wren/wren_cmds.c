// SPDX-License-Identifier: GPL-2.0
/*
 * Wren admin commands: one function per command, taking and returning
 * values in CPU byte order.  The wire layout stays in this file.
 */
#include <linux/dma-mapping.h>
#include <linux/string.h>

#include "wren.h"

static void wren_decode_attr(const struct wren_dev_attr *a,
			     struct wren_caps *c)
{
	u32 spec = le32_to_cpu(a->spec_version);
	u32 fw = le32_to_cpu(a->fw_version);

	c->spec_major = FIELD_GET(WREN_VERSION_MAJOR, spec);
	c->spec_minor = FIELD_GET(WREN_VERSION_MINOR, spec);
	c->fw_major = FIELD_GET(WREN_FW_VERSION_MAJOR, fw);
	c->fw_minor = FIELD_GET(WREN_FW_VERSION_MINOR, fw);
	c->fw_patch = FIELD_GET(WREN_FW_VERSION_PATCH, fw);
	c->caps = le64_to_cpu(a->caps);
	c->node_guid = le64_to_cpu(a->node_guid);
	memcpy(c->mac_addr, a->mac_addr, ETH_ALEN);
	c->mtu = le16_to_cpu(a->mtu);
	c->ipv4_addr = a->ipv4_addr;
	c->link_speed_mbps = le32_to_cpu(a->link_speed_mbps);
	memcpy(c->gid, a->gid, sizeof(c->gid));
	memcpy(c->serial, a->serial, sizeof(a->serial));
	c->serial[sizeof(a->serial)] = '\0';
	c->max_eq = le32_to_cpu(a->max_eq);
	c->max_eq_depth = le32_to_cpu(a->max_eq_depth);
	c->max_pd = le32_to_cpu(a->max_pd);
	c->max_cq = le32_to_cpu(a->max_cq);
	c->max_cq_depth = le32_to_cpu(a->max_cq_depth);
	c->max_qp = le32_to_cpu(a->max_qp);
	c->max_qp_depth = le32_to_cpu(a->max_qp_depth);
	c->max_sge = le32_to_cpu(a->max_sge);
	c->max_recv_sge = le32_to_cpu(a->max_recv_sge);
	c->max_inline = le32_to_cpu(a->max_inline);
	c->max_ah = le32_to_cpu(a->max_ah);
	c->max_mr = le32_to_cpu(a->max_mr);
	c->max_mr_size = le64_to_cpu(a->max_mr_size);
	c->page_size_cap = le64_to_cpu(a->page_size_cap);
	c->db_page_count = le32_to_cpu(a->db_page_count);
	c->db_page_size = WREN_DB_PAGE_SIZE;
	c->max_msg_size = le32_to_cpu(a->max_msg_size);
}

/**
 * wren_cmd_get_attr() - read and decode the device's attributes
 * @wdev: the device
 * @caps: filled in on success
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_get_attr(struct wren_dev *wdev, struct wren_caps *caps)
{
	struct device *dev = &wdev->pdev->dev;
	struct wren_cmd_get_attr cmd = {};
	struct wren_dev_attr *attr;
	dma_addr_t dma;
	int err;

	attr = dma_alloc_coherent(dev, sizeof(*attr), &dma, GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	cmd.buf_addr = cpu_to_le64(dma);
	cmd.buf_len = cpu_to_le32(sizeof(*attr));
	err = wren_admin_exec(wdev, WREN_ADMIN_GET_ATTR, &cmd, sizeof(cmd), NULL);
	if (!err)
		wren_decode_attr(attr, caps);
	dma_free_coherent(dev, sizeof(*attr), attr, dma);
	return err;
}

/**
 * wren_cmd_set_feature() - set a device feature
 * @wdev: the device
 * @feature: &enum wren_feature_id
 * @value: its new value
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_set_feature(struct wren_dev *wdev, u16 feature, u32 value)
{
	struct wren_cmd_feature cmd = {
		.feature_id = cpu_to_le16(feature),
		.value = cpu_to_le32(value),
	};

	return wren_admin_exec(wdev, WREN_ADMIN_SET_FEATURE, &cmd, sizeof(cmd),
			       NULL);
}

/**
 * wren_cmd_create_eq() - create an event queue
 * @wdev: the device
 * @base: DMA address of the ring, 4 KiB aligned
 * @log_depth: log2 of its number of entries
 * @vector: MSI-X vector it raises
 * @id: the device's EQ id, on success
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_create_eq(struct wren_dev *wdev, dma_addr_t base,
		       unsigned int log_depth, u16 vector, u32 *id)
{
	struct wren_cmd_create_eq cmd = {
		.base_addr = cpu_to_le64(base),
		.log_depth = log_depth,
		.flags = WREN_EQ_FLAG_INTR,
		.msix_vector = cpu_to_le16(vector),
	};
	struct wren_admin_cqe cqe;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_CREATE_EQ, &cmd, sizeof(cmd),
			      &cqe);
	if (!err)
		*id = le32_to_cpu(cqe.result[0]);
	return err;
}

static int wren_cmd_destroy(struct wren_dev *wdev, u8 opcode, u32 handle)
{
	struct wren_cmd_destroy_obj cmd = { .handle = cpu_to_le32(handle) };

	return wren_admin_exec(wdev, opcode, &cmd, sizeof(cmd), NULL);
}

/**
 * wren_cmd_destroy_eq() - destroy an event queue
 * @wdev: the device
 * @id: its id
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_destroy_eq(struct wren_dev *wdev, u32 id)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_EQ, id);
}

/**
 * wren_cmd_alloc_pd() - allocate a protection domain
 * @wdev: the device
 * @pdn: the PD number, on success
 *
 * Return: 0, -ENOMEM if the device has no PD left, or another negative
 * errno.
 */
int wren_cmd_alloc_pd(struct wren_dev *wdev, u32 *pdn)
{
	struct wren_cmd_alloc_pd cmd = {};
	struct wren_admin_cqe cqe;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_ALLOC_PD, &cmd, sizeof(cmd), &cqe);
	if (!err)
		*pdn = le32_to_cpu(cqe.result[0]);
	return err;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_alloc_pd, WREN);

/**
 * wren_cmd_dealloc_pd() - free a protection domain
 * @wdev: the device
 * @pdn: the PD number
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_dealloc_pd(struct wren_dev *wdev, u32 pdn)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DEALLOC_PD, pdn);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_dealloc_pd, WREN);
