// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: device, port, GID and P_Key queries.  Every value
 * comes from the device's attributes.
 */
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_mad.h>

#include "wren_ib.h"

/**
 * wren_ib_query_device() - the device's limits
 * @ibdev: the device
 * @props: filled in
 * @udata: must carry no request
 *
 * Return: 0, or -EINVAL for a request this driver does not know.
 */
int wren_ib_query_device(struct ib_device *ibdev, struct ib_device_attr *props,
			 struct ib_udata *udata)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibdev);
	const struct wren_caps *c = dev->caps;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(ibdev, "query_device: unknown request\n");
		return -EINVAL;
	}
	memset(props, 0, sizeof(*props));
	props->fw_ver = (u64)c->fw_major << 32 | (u64)c->fw_minor << 16 |
			c->fw_patch;
	props->sys_image_guid = ibdev->node_guid;
	props->max_mr_size = c->max_mr_size;
	props->page_size_cap = c->page_size_cap;
	props->vendor_id = dev->pdev->vendor;
	props->vendor_part_id = dev->pdev->device;
	props->hw_ver = dev->pdev->revision;
	props->max_qp = c->max_qp;
	props->max_qp_wr = c->max_qp_depth;
	props->max_send_sge = c->max_sge;
	props->max_recv_sge = c->max_recv_sge;
	props->max_sge_rd = c->max_sge;
	props->max_cq = c->max_cq;
	props->max_cqe = c->max_cq_depth;
	props->max_mr = c->max_mr;
	props->max_pd = c->max_pd;
	props->max_ah = c->max_ah;
	props->max_pkeys = 1;
	/* One-sided operations are on RD and RC QPs; the device's limits. */
	if (c->caps & WREN_CAP_RDMA_READ) {
		props->max_qp_rd_atom = min_t(u32, c->max_rd_atom, INT_MAX);
		props->max_qp_init_rd_atom = props->max_qp_rd_atom;
		props->max_res_rd_atom = min_t(u32, c->max_res_rd_atom, INT_MAX);
	}
	if (c->caps & WREN_CAP_SRQ) {
		props->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
		props->max_srq = c->max_srq;
		props->max_srq_wr = c->max_qp_depth;
		props->max_srq_sge = c->max_recv_sge;
	}
	/*
	 * The kernel's PDs name DMA addresses with the device's own key; its
	 * fast-register regions take one level of pages.
	 */
	if (dev->kdb)
		props->kernel_cap_flags |= IBK_LOCAL_DMA_LKEY;
	if (dev->kdb && c->caps & WREN_CAP_FAST_REG) {
		props->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
		props->max_fast_reg_page_list_len = WREN_PBL_PER_PAGE;
	}
	/* One engine does every atomic: atomic against each other only. */
	if (c->caps & WREN_CAP_ATOMIC)
		props->atomic_cap = IB_ATOMIC_HCA;
	return 0;
}

/* The IB lane speed and width whose product is the link speed. */
static void wren_ib_speed_width(u32 mbps, u16 *speed, u8 *width)
{
	static const struct { u32 mbps; u16 speed; } lanes[] = {
		{ 100000, IB_SPEED_NDR }, { 50000, IB_SPEED_HDR },
		{ 25000, IB_SPEED_EDR }, { 14000, IB_SPEED_FDR },
		{ 10000, IB_SPEED_QDR }, { 5000, IB_SPEED_DDR },
		{ 2500, IB_SPEED_SDR },
	};
	static const struct { u8 lanes; u8 width; } widths[] = {
		{ 1, IB_WIDTH_1X }, { 2, IB_WIDTH_2X }, { 4, IB_WIDTH_4X },
		{ 8, IB_WIDTH_8X }, { 12, IB_WIDTH_12X },
	};
	u32 best = 0;
	int i, j;

	*speed = IB_SPEED_SDR;
	*width = IB_WIDTH_1X;
	/* Exact products first, the fastest lanes winning; else the nearest below. */
	for (i = 0; i < ARRAY_SIZE(lanes); i++) {
		for (j = 0; j < ARRAY_SIZE(widths); j++) {
			u32 total = lanes[i].mbps * widths[j].lanes;

			if (total == mbps) {
				*speed = lanes[i].speed;
				*width = widths[j].width;
				return;
			}
			if (total < mbps && total > best) {
				best = total;
				*speed = lanes[i].speed;
				*width = widths[j].width;
			}
		}
	}
}

/**
 * wren_ib_query_port() - the state of the adapter's single port
 * @ibdev: the device
 * @port: 1
 * @props: filled in (zeroed by the caller)
 *
 * Return: 0.
 */
int wren_ib_query_port(struct ib_device *ibdev, u32 port,
		       struct ib_port_attr *props)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibdev);
	const struct wren_caps *c = dev->caps;

	props->state = IB_PORT_ACTIVE;
	props->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	props->max_mtu = ib_mtu_int_to_enum(c->mtu);
	props->active_mtu = props->max_mtu;
	if (dev->netdev) {
		/* RoCE: the port is as up as its interface. */
		if (!netif_running(dev->netdev) ||
		    !netif_carrier_ok(dev->netdev)) {
			props->state = IB_PORT_DOWN;
			props->phys_state = IB_PORT_PHYS_STATE_DISABLED;
		}
		props->gid_tbl_len = WREN_IB_GID_TBL_LEN;
		props->port_cap_flags = IB_PORT_CM_SUP;
		props->ip_gids = true;
	} else {
		/*
		 * No subnet manager assigns a LID here and none addresses
		 * anything: peers are named by GID.  A unicast LID from the
		 * IPv4 address lets programs that insist on one
		 * (ibv_rc_pingpong) run.
		 */
		props->lid = ntohl(c->ipv4_addr) % 0xbfff + 1;
		props->gid_tbl_len = 1;
	}
	props->pkey_tbl_len = 1;
	props->max_msg_sz = c->max_msg_size;
	props->max_vl_num = 1;
	wren_ib_speed_width(c->link_speed_mbps, &props->active_speed,
			    &props->active_width);
	return 0;
}

/**
 * wren_ib_query_gid() - the only GID of a port without network interface
 * @ibdev: the device
 * @port: 1
 * @index: 0
 * @gid: filled in
 *
 * Return: 0, or -EINVAL for an index other than 0.
 */
int wren_ib_query_gid(struct ib_device *ibdev, u32 port, int index,
		      union ib_gid *gid)
{
	if (index)
		return -EINVAL;
	memcpy(gid->raw, to_wren_ib_dev(ibdev)->caps->gid, sizeof(gid->raw));
	return 0;
}

/**
 * wren_ib_query_pkey() - the port's only P_Key, the default one
 * @ibdev: the device
 * @port: 1
 * @index: 0
 * @pkey: filled in
 *
 * Return: 0, or -EINVAL for an index other than 0.
 */
int wren_ib_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

/**
 * wren_ib_get_port_immutable() - table sizes and core capabilities
 * @ibdev: the device
 * @port: 1
 * @immutable: filled in
 *
 * No IB subnet management (SMPs, SA) runs on this port: it is not IB.
 * With a network interface it is RoCE v2 (UDP encapsulation): ib_core
 * keeps its GID table from the interface's addresses, and its connection
 * manager sends its MADs, of the IB size, through the GSI QP.
 *
 * Return: 0 or the error of the port query.
 */
int wren_ib_get_port_immutable(struct ib_device *ibdev, u32 port,
			       struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr;
	int err;

	err = ib_query_port(ibdev, port, &attr);
	if (err)
		return err;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	if (to_wren_ib_dev(ibdev)->netdev) {
		immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
		immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	}
	return 0;
}

/**
 * wren_ib_get_link_layer() - Ethernet with a network interface, else none
 * @ibdev: the device
 * @port: 1
 *
 * Return: %IB_LINK_LAYER_ETHERNET on a port with a network interface
 * (RoCE), %IB_LINK_LAYER_UNSPECIFIED without one.
 */
enum rdma_link_layer wren_ib_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return to_wren_ib_dev(ibdev)->netdev ? IB_LINK_LAYER_ETHERNET :
					       IB_LINK_LAYER_UNSPECIFIED;
}

/**
 * wren_ib_get_dev_fw_str() - the firmware version as text
 * @ibdev: the device
 * @str: at least %IB_FW_VERSION_NAME_MAX bytes
 */
void wren_ib_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	const struct wren_caps *c = to_wren_ib_dev(ibdev)->caps;

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%u.%u.%u", c->fw_major,
		 c->fw_minor, c->fw_patch);
}
