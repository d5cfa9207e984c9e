/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The interface the Wren core driver (wren.ko) offers to the drivers bound
 * to its auxiliary devices.  Everything here is in CPU byte order; wire and
 * device structures stay inside the core driver.  Symbols are exported in
 * the WREN namespace.
 */
#ifndef _LINUX_WREN_CORE_H
#define _LINUX_WREN_CORE_H

#include <linux/auxiliary_bus.h>
#include <linux/if_ether.h>
#include <linux/types.h>

struct wren_dev;

/* Name of the RDMA auxiliary device: the driver matches "wren.rdma". */
#define WREN_AUX_RDMA_NAME	"rdma"

/**
 * struct wren_caps - the device's attributes, decoded from GET_ATTR
 * @spec_major: device interface major version
 * @spec_minor: device interface minor version
 * @fw_major: firmware major version
 * @fw_minor: firmware minor version
 * @fw_patch: firmware patch level
 * @caps: WREN_CAP_* bits
 * @node_guid: the adapter's EUI-64
 * @mac_addr: the adapter's Ethernet address
 * @mtu: payload MTU in bytes
 * @ipv4_addr: the adapter's IPv4 address, network byte order
 * @link_speed_mbps: link speed in Mb/s
 * @gid: the port's GID
 * @serial: serial number, NUL terminated
 * @max_eq: event queues
 * @max_eq_depth: entries per event queue
 * @max_pd: protection domains
 * @max_cq: completion queues
 * @max_cq_depth: entries per completion queue
 * @max_qp: queue pairs
 * @max_qp_depth: work requests per queue
 * @max_sge: scatter/gather entries per send work request
 * @max_recv_sge: scatter/gather entries per receive work request
 * @max_inline: inline bytes per send
 * @max_ah: address handles
 * @max_mr: memory regions
 * @max_mr_size: bytes per memory region
 * @page_size_cap: supported page sizes, bit n for 2^n bytes
 * @db_page_count: doorbell pages, page 0 (the kernel's) included
 * @db_page_size: bytes per doorbell page
 * @max_msg_size: largest message in bytes
 * @num_comp_vectors: completion vectors the core driver set up
 */
struct wren_caps {
	u16 spec_major;
	u16 spec_minor;
	u8 fw_major;
	u8 fw_minor;
	u16 fw_patch;
	u64 caps;
	u64 node_guid;
	u8 mac_addr[ETH_ALEN];
	u32 mtu;
	__be32 ipv4_addr;
	u32 link_speed_mbps;
	u8 gid[16];
	char serial[33];
	u32 max_eq;
	u32 max_eq_depth;
	u32 max_pd;
	u32 max_cq;
	u32 max_cq_depth;
	u32 max_qp;
	u32 max_qp_depth;
	u32 max_sge;
	u32 max_recv_sge;
	u32 max_inline;
	u32 max_ah;
	u32 max_mr;
	u64 max_mr_size;
	u64 page_size_cap;
	u32 db_page_count;
	u32 db_page_size;
	u32 max_msg_size;
	u32 num_comp_vectors;
};

/**
 * struct wren_aux_dev - an auxiliary device published by the core driver
 * @adev: the auxiliary device; its parent is the PCI function
 * @wdev: the core device, the handle for every call below
 */
struct wren_aux_dev {
	struct auxiliary_device adev;
	struct wren_dev *wdev;
};

static inline struct wren_aux_dev *to_wren_aux_dev(struct auxiliary_device *adev)
{
	return container_of(adev, struct wren_aux_dev, adev);
}

const struct wren_caps *wren_get_caps(struct wren_dev *wdev);
struct device *wren_dma_dev(struct wren_dev *wdev);

int wren_db_page_alloc(struct wren_dev *wdev, u32 *index);
void wren_db_page_free(struct wren_dev *wdev, u32 index);
phys_addr_t wren_db_page_phys(struct wren_dev *wdev, u32 index);

int wren_cmd_alloc_pd(struct wren_dev *wdev, u32 *pdn);
int wren_cmd_dealloc_pd(struct wren_dev *wdev, u32 pdn);

#endif /* _LINUX_WREN_CORE_H */
