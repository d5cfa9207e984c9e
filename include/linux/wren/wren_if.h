/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Wren adapter device interface, version 1.
 *
 * This header is the contract between the adapter (the device model in
 * device/), the core driver and the RDMA driver.
 * Documentation/device-interface.rst is its prose form; the two change
 * together.
 *
 * Rules: every multi-byte field is little-endian; every structure has a
 * fixed size checked by static_assert; reserved fields are named rsvd*,
 * must be written as zero and are ignored by the reader; bit fields are
 * described by GENMASK/BIT masks and accessed with FIELD_GET/FIELD_PREP.
 *
 * Kernel users get GENMASK, FIELD_PREP and friends from the kernel headers;
 * user-space users (the device model) must include a compatibility header
 * that defines them before including this one.
 */
#ifndef _LINUX_WREN_IF_H
#define _LINUX_WREN_IF_H

#ifdef __KERNEL__
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#endif
#include <linux/types.h>

/* ------------------------------------------------------------------ */
/* PCI identity                                                        */
/* ------------------------------------------------------------------ */

/* QEMU's vendor id for experimental devices; "WR" as the device id. */
#define WREN_PCI_VENDOR_ID		0x1234
#define WREN_PCI_DEVICE_ID		0x5752
#define WREN_PCI_REVISION		0x01

/* BAR0: registers (first 4 KiB), MSI-X table and PBA. */
#define WREN_REG_BAR			0
#define WREN_REG_BAR_SIZE		0x4000
#define WREN_MSIX_TABLE_OFFSET		0x2000
#define WREN_MSIX_PBA_OFFSET		0x3000
/* BAR2 (64-bit): doorbell pages, 4 KiB each; page 0 belongs to the kernel. */
#define WREN_DB_BAR			2
#define WREN_DB_PAGE_SHIFT		12
#define WREN_DB_PAGE_SIZE		BIT(WREN_DB_PAGE_SHIFT)
#define WREN_DB_KERNEL_PAGE		0

/* ------------------------------------------------------------------ */
/* Spec version and capabilities                                       */
/* ------------------------------------------------------------------ */

#define WREN_SPEC_VERSION_MAJOR		1
#define WREN_SPEC_VERSION_MINOR		0

/* WREN_REG_VERSION */
#define WREN_VERSION_MINOR		GENMASK(15, 0)
#define WREN_VERSION_MAJOR		GENMASK(31, 16)

/*
 * Capability bits (WREN_REG_CAPS_LO/HI and wren_dev_attr.caps).  A driver
 * uses a feature only if its bit is set; unknown bits are ignored.
 */
#define WREN_CAP_KEEP_ALIVE		BIT_ULL(0)
#define WREN_CAP_ADMIN_INTR		BIT_ULL(1)
#define WREN_CAP_UD			BIT_ULL(2)
#define WREN_CAP_RD			BIT_ULL(3)
#define WREN_CAP_RDMA_WRITE		BIT_ULL(4)
#define WREN_CAP_RDMA_READ		BIT_ULL(5)

/* ------------------------------------------------------------------ */
/* BAR0 register map (32-bit registers, 32-bit accesses only)          */
/* ------------------------------------------------------------------ */

#define WREN_REG_VERSION		0x000	/* RO spec version */
#define WREN_REG_CAPS_LO		0x004	/* RO capabilities [31:0] */
#define WREN_REG_CAPS_HI		0x008	/* RO capabilities [63:32] */
#define WREN_REG_TIMEOUTS		0x00c	/* RO reset/admin timeouts */
#define WREN_REG_DEV_CTL		0x010	/* RW device control */
#define WREN_REG_DEV_STS		0x014	/* RO device status */
#define WREN_REG_INTR_MASK		0x018	/* RW management vector mask */
#define WREN_REG_AQ_BASE_LO		0x020	/* RW admin queue base */
#define WREN_REG_AQ_BASE_HI		0x024
#define WREN_REG_AQ_CFG			0x028	/* RW admin queue depth */
#define WREN_REG_AQ_DB			0x02c	/* WO admin queue tail */
#define WREN_REG_ACQ_BASE_LO		0x030	/* RW admin completion queue base */
#define WREN_REG_ACQ_BASE_HI		0x034
#define WREN_REG_ACQ_CFG		0x038	/* RW admin completion queue depth */
#define WREN_REG_AEQ_BASE_LO		0x040	/* RW async event queue base */
#define WREN_REG_AEQ_BASE_HI		0x044
#define WREN_REG_AEQ_CFG		0x048	/* RW async event queue depth */
#define WREN_REG_AEQ_DB			0x04c	/* WO async event queue head */
/* Event queue doorbells: one 32-bit register per EQ, by EQ id. */
#define WREN_REG_EQ_DB_BASE		0x100
#define WREN_REG_EQ_DB_STRIDE		4
#define WREN_REG_EQ_DB_MAX		256
#define WREN_REG_EQ_DB(id)		(WREN_REG_EQ_DB_BASE + (id) * WREN_REG_EQ_DB_STRIDE)

/* WREN_REG_TIMEOUTS: worst-case times the driver should wait, in ms. */
#define WREN_TIMEOUTS_RESET_MS		GENMASK(15, 0)
#define WREN_TIMEOUTS_ADMIN_MS		GENMASK(31, 16)

/*
 * WREN_REG_DEV_CTL.  Writing RESET starts a function-level reset: the
 * device drops every queue and object, clears DEV_STS and sets READY when
 * the registers may be programmed again.  Writing ENABLE (after READY)
 * starts the admin and async event queues; the device sets ENABLED, or
 * FATAL with a fatal code if the queue configuration is invalid.
 */
#define WREN_DEV_CTL_RESET		BIT(0)
#define WREN_DEV_CTL_ENABLE		BIT(1)

/* WREN_REG_DEV_STS */
#define WREN_DEV_STS_READY		BIT(0)
#define WREN_DEV_STS_ENABLED		BIT(1)
#define WREN_DEV_STS_FATAL		BIT(2)
#define WREN_DEV_STS_FATAL_CODE		GENMASK(15, 8)

/* Fatal codes (WREN_DEV_STS_FATAL_CODE and WREN_AEQ_FATAL data). */
enum wren_fatal_code {
	WREN_FATAL_NONE			= 0,
	WREN_FATAL_BAD_QUEUE_CFG	= 1,	/* AQ/ACQ/AEQ config invalid */
	WREN_FATAL_DMA			= 2,	/* host memory unreachable */
	WREN_FATAL_INTERNAL		= 3,
};

/* WREN_REG_INTR_MASK */
#define WREN_INTR_MASK_MGMT		BIT(0)	/* mask MSI-X vector 0 */

/*
 * WREN_REG_AQ_CFG, WREN_REG_ACQ_CFG, WREN_REG_AEQ_CFG.  Depths are powers
 * of two between WREN_QUEUE_LOG_DEPTH_MIN and WREN_QUEUE_LOG_DEPTH_MAX;
 * the admin completion queue must be as deep as the admin queue.  Bases
 * must be aligned to 4 KiB.  The completion and async event queues raise
 * MSI-X vector 0.
 */
#define WREN_QUEUE_CFG_LOG_DEPTH	GENMASK(4, 0)
#define WREN_QUEUE_LOG_DEPTH_MIN	2
#define WREN_QUEUE_LOG_DEPTH_MAX	12
#define WREN_QUEUE_BASE_ALIGN		4096

/**
 * wren_ring_phase() - the phase bit of a ring entry
 * @index: the entry's free-running producer index
 * @log_depth: log2 of the ring's depth
 *
 * The writer of an entry stores 1 on the first lap of the ring, 0 on the
 * second, and so on; the reader expects the same value at that index.
 *
 * Return: 1 or 0.
 */
static inline __u8 wren_ring_phase(__u32 index, unsigned int log_depth)
{
	return !((index >> log_depth) & 1);
}

/* WREN_REG_AQ_DB: producer index, free running modulo 2^16. */
#define WREN_AQ_DB_TAIL			GENMASK(15, 0)
/* WREN_REG_AEQ_DB: consumer index, free running modulo 2^16. */
#define WREN_AEQ_DB_HEAD		GENMASK(15, 0)

/*
 * WREN_REG_EQ_DB(id): the consumer index of an event queue (free running
 * modulo 2^24) and, with ARM, a request for one interrupt when the next
 * entry is written.
 */
#define WREN_EQ_DB_HEAD			GENMASK(23, 0)
#define WREN_EQ_DB_ARM			BIT(31)

/* ------------------------------------------------------------------ */
/* Admin queue                                                          */
/* ------------------------------------------------------------------ */

enum wren_admin_opcode {
	WREN_ADMIN_GET_ATTR		= 0x01,
	WREN_ADMIN_GET_FEATURE		= 0x02,
	WREN_ADMIN_SET_FEATURE		= 0x03,
	WREN_ADMIN_CREATE_EQ		= 0x04,
	WREN_ADMIN_DESTROY_EQ		= 0x05,
	WREN_ADMIN_ALLOC_PD		= 0x06,
	WREN_ADMIN_DEALLOC_PD		= 0x07,
	WREN_ADMIN_CREATE_CQ		= 0x08,
	WREN_ADMIN_DESTROY_CQ		= 0x09,
	WREN_ADMIN_CREATE_QP		= 0x0a,
	WREN_ADMIN_MODIFY_QP		= 0x0b,
	WREN_ADMIN_QUERY_QP		= 0x0c,
	WREN_ADMIN_DESTROY_QP		= 0x0d,
	WREN_ADMIN_CREATE_AH		= 0x0e,
	WREN_ADMIN_DESTROY_AH		= 0x0f,
	WREN_ADMIN_REG_MR		= 0x10,
	WREN_ADMIN_DEREG_MR		= 0x11,
	WREN_ADMIN_GET_STATS		= 0x12,
	WREN_ADMIN_SET_TC_TABLE		= 0x13,
};

/* Completion status (wren_admin_cqe.status). */
enum wren_admin_status {
	WREN_STATUS_SUCCESS		= 0,
	WREN_STATUS_BAD_OPCODE		= 1,	/* opcode unknown */
	WREN_STATUS_BAD_PARAM		= 2,	/* a field is invalid */
	WREN_STATUS_NO_RESOURCES	= 3,	/* a device limit is reached */
	WREN_STATUS_BAD_STATE		= 4,	/* not allowed in this state */
	WREN_STATUS_NOT_FOUND		= 5,	/* handle names no object */
	WREN_STATUS_DMA_ERROR		= 6,	/* host buffer unreachable */
	WREN_STATUS_UNSUPPORTED		= 7,	/* valid, not supported */
	WREN_STATUS_INTERNAL		= 8,
};

/* wren_admin_cmd_hdr.flags, wren_admin_cqe.flags */
#define WREN_ADMIN_FLAG_PHASE		BIT(0)

/**
 * struct wren_admin_cmd_hdr - header of every admin command
 * @opcode: &enum wren_admin_opcode
 * @flags: WREN_ADMIN_FLAG_PHASE: the phase of the lap this entry belongs to
 *	(1 on the first lap of the ring, then alternating); the device
 *	rejects an entry whose phase is not the one it expects
 * @cmd_id: chosen by the driver, echoed in the completion
 * @rsvd: must be zero
 */
struct wren_admin_cmd_hdr {
	__u8 opcode;
	__u8 flags;
	__le16 cmd_id;
	__le32 rsvd;
};

#define WREN_ADMIN_CMD_SIZE		64
#define WREN_ADMIN_CMD_PAYLOAD		(WREN_ADMIN_CMD_SIZE - sizeof(struct wren_admin_cmd_hdr))

/**
 * struct wren_admin_cmd - one admin queue entry
 * @hdr: common header
 * @payload: command-specific body, one of the wren_cmd_* structures
 */
struct wren_admin_cmd {
	struct wren_admin_cmd_hdr hdr;
	__u8 payload[WREN_ADMIN_CMD_PAYLOAD];
};

/**
 * struct wren_admin_cqe - one admin completion queue entry
 * @cmd_id: the command id of the completed command
 * @status: &enum wren_admin_status
 * @flags: WREN_ADMIN_FLAG_PHASE, 1 on the first lap, then alternating
 * @sq_head: the device's admin queue consumer index after this command
 *	(free running modulo 2^16); entries before it may be reused
 * @rsvd0: zero
 * @ext_status: for BAD_PARAM, the byte offset within the command of the
 *	rejected field plus one; otherwise command-specific detail or zero
 * @rsvd1: zero
 * @result: command-specific result, see the wren_res_* structures
 */
struct wren_admin_cqe {
	__le16 cmd_id;
	__u8 status;
	__u8 flags;
	__le16 sq_head;
	__le16 rsvd0;
	__le32 ext_status;
	__le32 rsvd1;
	__le32 result[4];
};

/**
 * struct wren_cmd_get_attr - WREN_ADMIN_GET_ATTR
 * @buf_addr: DMA address of a buffer for &struct wren_dev_attr
 * @buf_len: its length in bytes; the device writes min(buf_len,
 *	sizeof(struct wren_dev_attr)) bytes and returns the full size in
 *	result[0]; must be at least 64 and at most 4096
 * @rsvd: zero
 */
struct wren_cmd_get_attr {
	__le64 buf_addr;
	__le32 buf_len;
	__le32 rsvd[11];
};

/**
 * struct wren_dev_attr - device attributes written by GET_ATTR
 * @spec_version: same encoding as WREN_REG_VERSION
 * @fw_version: firmware version: major [31:24], minor [23:16], patch [15:0]
 * @caps: WREN_CAP_* bits
 * @node_guid: the adapter's EUI-64, derived from its MAC address
 * @mac_addr: the adapter's Ethernet address
 * @mtu: payload MTU in bytes (the largest transport payload per frame)
 * @ipv4_addr: the adapter's IPv4 address, network byte order
 * @link_speed_mbps: link speed in Mb/s
 * @gid: the port's GID (IPv4-mapped IPv6 address of @ipv4_addr)
 * @serial: serial number, NUL padded
 * @max_eq: number of event queues (at most WREN_REG_EQ_DB_MAX)
 * @max_eq_depth: entries per event queue
 * @max_pd: protection domains
 * @max_cq: completion queues
 * @max_cq_depth: entries per completion queue
 * @max_qp: queue pairs
 * @max_qp_depth: work requests per send or receive queue
 * @max_sge: scatter/gather entries per work request
 * @max_inline: inline data bytes per send work request
 * @max_ah: address handles
 * @max_mr: memory regions
 * @max_mr_size: bytes per memory region
 * @page_size_cap: supported MR page sizes, bit n for 2^n bytes
 * @db_page_count: pages in the doorbell BAR, page 0 included
 * @msix_vectors: MSI-X vectors; vector 0 serves the management queues
 * @max_msg_size: largest message in bytes
 * @rsvd: zero
 */
struct wren_dev_attr {
	__le32 spec_version;
	__le32 fw_version;
	__le64 caps;
	__le64 node_guid;
	__u8 mac_addr[6];
	__le16 mtu;
	__be32 ipv4_addr;
	__le32 link_speed_mbps;
	__u8 gid[16];
	__u8 serial[32];
	__le32 max_eq;
	__le32 max_eq_depth;
	__le32 max_pd;
	__le32 max_cq;
	__le32 max_cq_depth;
	__le32 max_qp;
	__le32 max_qp_depth;
	__le32 max_sge;
	__le32 max_inline;
	__le32 max_ah;
	__le32 max_mr;
	__le32 db_page_count;
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 msix_vectors;
	__le32 max_msg_size;
	__le32 rsvd[24];
};

#define WREN_FW_VERSION_MAJOR		GENMASK(31, 24)
#define WREN_FW_VERSION_MINOR		GENMASK(23, 16)
#define WREN_FW_VERSION_PATCH		GENMASK(15, 0)

/* Feature ids for GET_FEATURE / SET_FEATURE. */
enum wren_feature_id {
	/* value: keep-alive event period in ms, 0 = off (the reset value) */
	WREN_FEATURE_KEEP_ALIVE_MS	= 1,
};

/**
 * struct wren_cmd_feature - WREN_ADMIN_GET_FEATURE and WREN_ADMIN_SET_FEATURE
 * @feature_id: &enum wren_feature_id
 * @rsvd0: zero
 * @value: the new value (SET); GET returns the current value in result[0]
 * @rsvd: zero
 */
struct wren_cmd_feature {
	__le16 feature_id;
	__le16 rsvd0;
	__le32 value;
	__le32 rsvd[12];
};

/* wren_cmd_create_eq.flags */
#define WREN_EQ_FLAG_INTR		BIT(0)	/* raise the vector on writes */

/**
 * struct wren_cmd_create_eq - WREN_ADMIN_CREATE_EQ
 * @base_addr: DMA address of the ring, 4 KiB aligned, physically contiguous
 * @log_depth: log2 of the number of entries; depth at most max_eq_depth
 * @flags: WREN_EQ_FLAG_*
 * @msix_vector: vector raised by this EQ, 1 to msix_vectors - 1
 * @rsvd: zero
 *
 * result[0] of the completion is the EQ id, below max_eq.
 */
struct wren_cmd_create_eq {
	__le64 base_addr;
	__u8 log_depth;
	__u8 flags;
	__le16 msix_vector;
	__le32 rsvd[11];
};

/**
 * struct wren_cmd_destroy_obj - every DESTROY/DEALLOC/DEREG command
 * @handle: the id returned at creation
 * @rsvd: zero
 */
struct wren_cmd_destroy_obj {
	__le32 handle;
	__le32 rsvd[13];
};

/**
 * struct wren_cmd_alloc_pd - WREN_ADMIN_ALLOC_PD
 * @rsvd: zero
 *
 * result[0] of the completion is the PD number, below max_pd.
 */
struct wren_cmd_alloc_pd {
	__le32 rsvd[14];
};

/* ------------------------------------------------------------------ */
/* Async event queue and event queues                                  */
/* ------------------------------------------------------------------ */

enum wren_aeq_type {
	WREN_AEQ_KEEP_ALIVE		= 1,	/* data: events sent so far */
	WREN_AEQ_FATAL			= 2,	/* data: enum wren_fatal_code */
	WREN_AEQ_WARNING		= 3,	/* data: enum wren_warning_code */
	WREN_AEQ_LINK_CHANGE		= 4,	/* data: 1 up, 0 down */
};

enum wren_warning_code {
	WREN_WARN_AEQ_OVERFLOW		= 1,	/* events were dropped */
	WREN_WARN_ADMIN_REJECTED	= 2,	/* an AQ entry was malformed */
};

#define WREN_AEQ_FLAG_PHASE		BIT(0)

/**
 * struct wren_aeq_entry - one async event queue entry
 * @type: &enum wren_aeq_type
 * @flags: WREN_AEQ_FLAG_PHASE, 1 on the first lap, then alternating
 * @rsvd: zero
 * @info: type-specific, 32 bits
 * @data: type-specific, 64 bits
 */
struct wren_aeq_entry {
	__u8 type;
	__u8 flags;
	__le16 rsvd;
	__le32 info;
	__le64 data;
};

enum wren_eqe_type {
	WREN_EQE_COMPLETION		= 1,	/* handle: CQ number */
};

#define WREN_EQE_FLAG_PHASE		BIT(0)

/**
 * struct wren_eqe - one event queue entry
 * @type: &enum wren_eqe_type
 * @flags: WREN_EQE_FLAG_PHASE, 1 on the first lap, then alternating
 * @rsvd: zero
 * @handle: type-specific object number
 */
struct wren_eqe {
	__u8 type;
	__u8 flags;
	__le16 rsvd;
	__le32 handle;
};

static_assert(sizeof(struct wren_admin_cmd_hdr) == 8);
static_assert(sizeof(struct wren_admin_cmd) == WREN_ADMIN_CMD_SIZE);
static_assert(sizeof(struct wren_admin_cqe) == 32);
static_assert(sizeof(struct wren_cmd_get_attr) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_feature) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_create_eq) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_destroy_obj) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_alloc_pd) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_dev_attr) == 256);
static_assert(sizeof(struct wren_aeq_entry) == 16);
static_assert(sizeof(struct wren_eqe) == 8);

#endif /* _LINUX_WREN_IF_H */
