// SPDX-License-Identifier: GPL-2.0
/*
 * Device and port queries.  Every attribute comes from the core driver's
 * decoded GET_ATTR (struct wren_caps), that is from the device itself.
 */
#include <linux/kernel.h>
#include <linux/pci.h>
#include <linux/string.h>
#include <rdma/ib_mad.h>

#include "wren_ib.h"

/* The one port of a Wren adapter. */
#define WREN_IB_PORT	1

/*
 * ib_core describes a link as a per-lane speed times a lane count; Wren
 * reports a single rate in Mb/s.  Each row picks the lane speed whose
 * rate equals (or, for the widths, multiplies to) the device's, so that
 * ibv_devinfo's active_speed and active_width multiply to the real rate.
 */
static const struct {
	u32 mbps;
	u8 speed;
	u8 width;
} wren_ib_speed_table[] = {
	{ 800000, IB_SPEED_NDR, IB_WIDTH_8X },
	{ 400000, IB_SPEED_NDR, IB_WIDTH_4X },
	{ 200000, IB_SPEED_NDR, IB_WIDTH_2X },
	{ 100000, IB_SPEED_NDR, IB_WIDTH_1X },
	{ 50000, IB_SPEED_HDR, IB_WIDTH_1X },
	{ 40000, IB_SPEED_QDR, IB_WIDTH_4X },
	{ 25000, IB_SPEED_EDR, IB_WIDTH_1X },
	{ 14000, IB_SPEED_FDR, IB_WIDTH_1X },
	{ 10000, IB_SPEED_QDR, IB_WIDTH_1X },
	{ 5000, IB_SPEED_DDR, IB_WIDTH_1X },
	{ 2500, IB_SPEED_SDR, IB_WIDTH_1X },
};

/*
 * The fastest row not above @mbps: a rate between two rows reports the
 * lower one rather than promise what the link does not carry.
 */
static void wren_ib_link_speed(u32 mbps, u16 *speed, u8 *width)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wren_ib_speed_table); i++) {
		if (wren_ib_speed_table[i].mbps <= mbps) {
			*speed = wren_ib_speed_table[i].speed;
			*width = wren_ib_speed_table[i].width;
			return;
		}
	}
	*speed = IB_SPEED_SDR;
	*width = IB_WIDTH_1X;
}

/**
 * wren_ib_query_device - report the device's attributes and limits
 * @ibdev: the device
 * @props: filled with the attributes
 * @udata: user data; Wren defines no driver data for this verb
 *
 * Return: 0, or -EINVAL when user space passes driver data.
 */
int wren_ib_query_device(struct ib_device *ibdev,
			 struct ib_device_attr *props,
			 struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibdev);
	const struct wren_caps *caps = dev->caps;
	struct device *parent = dev->wadev->adev.dev.parent;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg_ratelimited(ibdev,
				      "query_device: unknown driver data in request\n");
		return -EINVAL;
	}

	memset(props, 0, sizeof(*props));
	props->fw_ver = (u64)caps->fw_major << 32 |
			(u64)caps->fw_minor << 16 | caps->fw_patch;
	props->sys_image_guid = ibdev->node_guid;
	props->max_mr_size = caps->max_mr_size;
	props->page_size_cap = caps->page_size_cap;
	if (parent && dev_is_pci(parent)) {
		struct pci_dev *pdev = to_pci_dev(parent);

		props->vendor_id = pdev->vendor;
		props->vendor_part_id = pdev->device;
		props->hw_ver = pdev->revision;
	}
	props->max_qp = caps->max_qp;
	props->max_qp_wr = caps->max_qp_depth;
	props->max_send_sge = caps->max_sge;
	props->max_recv_sge = caps->max_sge;
	props->max_sge_rd = caps->max_sge;
	props->max_cq = caps->max_cq;
	props->max_cqe = caps->max_cq_depth;
	props->max_mr = caps->max_mr;
	props->max_pd = caps->max_pd;
	props->max_ah = caps->max_ah;
	props->max_pkeys = 1;
	props->max_fast_reg_page_list_len = 0;
	return 0;
}

/**
 * wren_ib_query_port - report the port's state, MTU and link rate
 * @ibdev: the device
 * @port: the port number, always 1
 * @props: filled with the attributes; ib_core zeroed it
 *
 * The transport is connectionless and needs no subnet manager, so the
 * port is active as soon as the device is.
 *
 * Return: 0.
 */
int wren_ib_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *props)
{
	const struct wren_caps *caps = to_wren_ib_dev(ibdev)->caps;

	props->state = IB_PORT_ACTIVE;
	props->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	props->gid_tbl_len = 1;
	props->pkey_tbl_len = 1;
	props->lmc = 0;
	props->max_vl_num = 1;
	props->max_mtu = ib_mtu_int_to_enum(caps->mtu);
	props->active_mtu = props->max_mtu;
	props->max_msg_sz = caps->max_msg_size;
	wren_ib_link_speed(caps->link_speed_mbps, &props->active_speed,
			   &props->active_width);
	return 0;
}

/**
 * wren_ib_query_gid - report the port's GID
 * @ibdev: the device
 * @port: the port number, always 1
 * @index: the GID table index; the table has one entry
 * @gid: filled with the GID
 *
 * Return: 0, or -EINVAL for an index beyond the table.
 */
int wren_ib_query_gid(struct ib_device *ibdev, u32 port, int index,
		      union ib_gid *gid)
{
	const struct wren_caps *caps = to_wren_ib_dev(ibdev)->caps;

	if (index != 0)
		return -EINVAL;

	BUILD_BUG_ON(sizeof(gid->raw) != sizeof(caps->gid));
	memcpy(gid->raw, caps->gid, sizeof(gid->raw));
	return 0;
}

/**
 * wren_ib_query_pkey - report the port's P_Key
 * @ibdev: the device
 * @port: the port number, always 1
 * @index: the P_Key table index; the table has one entry
 * @pkey: filled with the default full-membership P_Key
 *
 * Return: 0, or -EINVAL for an index beyond the table.
 */
int wren_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
		       u16 *pkey)
{
	if (index != 0)
		return -EINVAL;

	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/**
 * wren_ib_get_port_immutable - report the port's fixed properties
 * @ibdev: the device
 * @port: the port number, always 1
 * @immutable: filled with the table sizes
 *
 * Wren speaks neither InfiniBand nor RoCE on the wire, so the port has no
 * core capability flags: ib_core then manages its GID table through
 * query_gid, as it does for EFA.
 *
 * Return: 0, or the error of the port query.
 */
int wren_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err) {
		ibdev_err_ratelimited(ibdev, "port %u: query failed: %d\n",
				      port, err);
		return err;
	}

	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->core_cap_flags = 0;
	immutable->max_mad_size = 0;
	return 0;
}

/**
 * wren_ib_get_link_layer - report the port's link layer
 * @ibdev: the device
 * @port: the port number, always 1
 *
 * The frames are Ethernet, but the port is no RoCE port (no netdev, no
 * RoCE GIDs), so like EFA it reports no particular link layer.
 *
 * Return: %IB_LINK_LAYER_UNSPECIFIED.
 */
enum rdma_link_layer wren_ib_get_link_layer(struct ib_device *ibdev,
					    u32 port)
{
	return IB_LINK_LAYER_UNSPECIFIED;
}

/**
 * wren_ib_get_dev_fw_str - format the firmware version for sysfs and netlink
 * @ibdev: the device
 * @str: a buffer of %IB_FW_VERSION_NAME_MAX bytes
 */
void wren_ib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	const struct wren_caps *caps = to_wren_ib_dev(ibdev)->caps;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u", caps->fw_major,
		 caps->fw_minor, caps->fw_patch);
}
