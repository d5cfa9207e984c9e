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
#include <linux/stddef.h>
#else
#include <stddef.h>
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
#define WREN_CAP_TC_TABLE		BIT_ULL(6)	/* SET_TC_TABLE */
#define WREN_CAP_RESIZE_CQ		BIT_ULL(7)	/* RESIZE_CQ */
#define WREN_CAP_RC			BIT_ULL(8)	/* WREN_QPT_RC */
#define WREN_CAP_REREG_MR		BIT_ULL(9)	/* REREG_MR */
#define WREN_CAP_ATOMIC			BIT_ULL(10)	/* RC: 8-byte atomics */
#define WREN_CAP_SRQ			BIT_ULL(11)	/* shared receive queues */
#define WREN_CAP_WQE_SHIFT		BIT_ULL(12)	/* larger queue entries */
#define WREN_CAP_DMA_LKEY		BIT_ULL(13)	/* WREN_PD_FLAG_KERNEL */
#define WREN_CAP_RAW_ETH		BIT_ULL(14)	/* WREN_QPT_RAW_ETH */
#define WREN_CAP_GSI			BIT_ULL(15)	/* WREN_QP_FLAG_GSI */
#define WREN_CAP_WQE_AV			BIT_ULL(16)	/* WREN_WQE_F_AV */
#define WREN_CAP_FAST_REG		BIT_ULL(17)	/* WREN_MR_FLAG_FAST */
#define WREN_CAP_COUNTER_SETS		BIT_ULL(18)	/* ALLOC_COUNTER_SET */
#define WREN_CAP_QUERY_CTX		BIT_ULL(19)	/* QUERY_CTX */

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
	WREN_ADMIN_RESIZE_CQ		= 0x14,
	WREN_ADMIN_REREG_MR		= 0x15,
	WREN_ADMIN_CREATE_SRQ		= 0x16,
	WREN_ADMIN_MODIFY_SRQ		= 0x17,
	WREN_ADMIN_QUERY_SRQ		= 0x18,
	WREN_ADMIN_DESTROY_SRQ		= 0x19,
	WREN_ADMIN_ALLOC_COUNTER_SET	= 0x1a,
	WREN_ADMIN_FREE_COUNTER_SET	= 0x1b,
	WREN_ADMIN_BIND_COUNTER_SET	= 0x1c,
	WREN_ADMIN_QUERY_CTX		= 0x1d,
	WREN_ADMIN_OPCODE_LAST		= WREN_ADMIN_QUERY_CTX,
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

/* wren_cmd_get_stats.flags */
#define WREN_STATS_FLAG_SET		BIT(0)	/* read counter set @set */

/**
 * struct wren_cmd_get_stats - WREN_ADMIN_GET_STATS
 * @buf_addr: DMA address of a buffer for an array of __le64 counters,
 *	indexed by &enum wren_dev_stat
 * @buf_len: its length in bytes, a multiple of 8, at least 8 and at most
 *	4096; the device writes min(buf_len, 8 * WREN_STAT_COUNT) bytes and
 *	returns its number of counters in result[0]
 * @set: with WREN_STATS_FLAG_SET, the counter set to read: 0 for the
 *	default set, or one of ALLOC_COUNTER_SET (WREN_CAP_COUNTER_SETS);
 *	else zero
 * @flags: WREN_STATS_FLAG_*
 * @rsvd0: zero
 * @rsvd: zero
 *
 * Counters are free running from the device's reset; they describe the
 * transport (see Documentation/transport.rst) as a whole, then the
 * Ethernet function, then the engine above the transport.
 *
 * Without WREN_STATS_FLAG_SET the device returns its totals.  With it,
 * the counters a queue pair's traffic moves (WREN_STAT_QP in wren_stats.h)
 * are those of the QPs bound to @set since they were bound (to set 0:
 * every QP bound to no other set), and the others are the totals in set
 * 0 and zero in any other set.  So the default set plus every allocated
 * set add up to the totals, less the counts of sets freed since.
 */
struct wren_cmd_get_stats {
	__le64 buf_addr;
	__le32 buf_len;
	__le16 set;
	__u8 flags;
	__u8 rsvd0;
	__le32 rsvd[10];
};

/*
 * The device's counters: the index of each in GET_STATS's array, from
 * the one list of them (wren_stats.h): the transport's, the Ethernet
 * function's and the engine's, WREN_STAT_<name>.  The groups follow each
 * other in that order, and each only ever grows at its end, so a group
 * that grows moves the ones after it: a driver finds each group at its
 * WREN_STAT_*_FIRST.
 */
enum wren_dev_stat {
#define WREN_STAT(counter)	WREN_STAT_##counter,
#include "wren_stats.h"
#undef WREN_STAT
	WREN_STAT_TP_COUNT,
	WREN_STAT_TP_LAST = WREN_STAT_TP_COUNT - 1,
#define WREN_ETH_STAT(counter)	WREN_STAT_##counter,
#include "wren_stats.h"
#undef WREN_ETH_STAT
	WREN_STAT_ENG_FIRST,
	WREN_STAT_ENG_BEFORE = WREN_STAT_ENG_FIRST - 1,
#define WREN_ENG_STAT(counter)	WREN_STAT_##counter,
#include "wren_stats.h"
#undef WREN_ENG_STAT
	WREN_STAT_COUNT
};

#define WREN_STAT_ENG_COUNT		(WREN_STAT_COUNT - WREN_STAT_ENG_FIRST)

/**
 * struct wren_cmd_bind_counter_set - WREN_ADMIN_BIND_COUNTER_SET
 * @qpn: the QP, in any state
 * @set: the counter set its traffic moves from now on, 0 for the default
 *	set
 * @rsvd: zero
 *
 * WREN_ADMIN_ALLOC_COUNTER_SET takes a zeroed body and returns the new
 * set's number in result[0], from 1 to max_counter_set - 1, its counters
 * at zero.  WREN_ADMIN_FREE_COUNTER_SET takes &struct wren_cmd_destroy_obj
 * and refuses a set a QP is still bound to (WREN_STATUS_BAD_STATE).  A QP
 * that is destroyed is unbound.
 */
struct wren_cmd_bind_counter_set {
	__le32 qpn;
	__le32 set;
	__le32 rsvd[12];
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
 * @max_sge: scatter/gather entries per send work request, in the largest
 *	send queue entry a QP may take (WREN_CAP_WQE_SHIFT)
 * @max_inline: inline data bytes per send work request, the same
 * @max_ah: address handles
 * @max_mr: memory regions
 * @max_mr_size: bytes per memory region
 * @page_size_cap: supported MR page sizes, bit n for 2^n bytes
 * @db_page_count: pages in the doorbell BAR, page 0 included
 * @msix_vectors: MSI-X vectors; vector 0 serves the management queues
 * @max_msg_size: largest message in bytes
 * @max_recv_sge: scatter/gather entries per receive work request, in the
 *	largest receive queue entry
 * @tc_cache: transport contexts the adapter holds at once
 * @max_tc_log: log2 of the most records SET_TC_TABLE accepts
 * @min_tc_log: log2 of the fewest
 * @max_rd_atom: RDMA READs a QP may have outstanding; the device holds
 *	later ones back until earlier ones complete
 * @max_res_rd_atom: READs the device answers at once, all QPs together
 * @rsvd0: zero
 * @max_srq: shared receive queues (WREN_CAP_SRQ); each as deep as a
 *	QP's receive queue may be (@max_qp_depth)
 * @max_counter_set: counter sets, the default one included
 *	(WREN_CAP_COUNTER_SETS)
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
	__le32 max_recv_sge;
	__le32 tc_cache;
	__u8 max_tc_log;
	__u8 min_tc_log;
	__le16 rsvd0;
	__le32 max_rd_atom;
	__le32 max_res_rd_atom;
	__le32 max_srq;
	__le32 max_counter_set;
	__le32 rsvd[17];
};

/**
 * struct wren_cmd_set_tc_table - WREN_ADMIN_SET_TC_TABLE
 * @base_addr: DMA address of the table: 1 << @log_entries records of
 *	&struct wren_tc_entry, physically contiguous, WREN_TC_TABLE_ALIGN
 *	aligned.  The driver zeroes it, then leaves it to the device until
 *	the next reset.
 * @log_entries: log2 of the number of records, from the device's
 *	min_tc_log to its max_tc_log
 * @rsvd0: zero
 * @rsvd: zero
 *
 * Once per reset, before the first queue pair is created.  From then on
 * a transport context's id on the wire is the index of its record, and an
 * idle context the adapter has no room for is kept there instead of being
 * closed (Documentation/transport.rst, "Context table").
 */
struct wren_cmd_set_tc_table {
	__le64 base_addr;
	__u8 log_entries;
	__u8 rsvd0[3];
	__le32 rsvd[11];
};

#define WREN_TC_TABLE_ALIGN		4096

/* wren_tc_entry.flags */
#define WREN_TC_STATE			GENMASK(1, 0)
#define WREN_TC_STATE_FREE		0	/* nobody's */
#define WREN_TC_STATE_CACHED		1	/* in use, held by the adapter */
#define WREN_TC_STATE_SPILLED		2	/* idle, held only here */
#define WREN_TC_HANDSHAKE		BIT(2)	/* establishment mode */
#define WREN_TC_ANSWERED		BIT(3)	/* the target has answered */

/**
 * struct wren_tc_entry - one record of the transport-context table
 * @flags: WREN_TC_STATE, WREN_TC_HANDSHAKE, WREN_TC_ANSWERED
 * @ipv4_addr: the target adapter, network byte order
 * @class_id: the send-queue class
 * @epoch: the context's incarnation
 * @session: the target's id for this incarnation
 * @psn: the next packet sequence number
 * @msn: the next message sequence number
 * @cwnd: congestion window learnt, bytes (0: none)
 * @base_rtt_ns: shortest round trip seen (0: none)
 * @srtt_ns: smoothed round trip (0: none)
 * @idle_since_ns: when it went idle, on the device's clock
 * @mac_addr: the next hop
 * @rsvd: zero
 *
 * Written by the device only.  The device checks every record it reads
 * back and treats a malformed one as free; a record changed behind its
 * back may cost that context a new incarnation, nothing else.
 */
struct wren_tc_entry {
	__le32 flags;
	__be32 ipv4_addr;
	__le32 class_id;
	__le32 epoch;
	__le32 session;
	__le32 psn;
	__le32 msn;
	__le32 cwnd;
	__le64 base_rtt_ns;
	__le64 srtt_ns;
	__le64 idle_since_ns;
	__u8 mac_addr[6];
	__u8 rsvd[2];
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

/* wren_cmd_alloc_pd.flags */
#define WREN_PD_FLAG_KERNEL		BIT(0)	/* WREN_CAP_DMA_LKEY */

/*
 * The local key of the host's own DMA addresses: in an SGE of a QP on a
 * kernel PD, @addr is a bus address and no region is looked up.  The
 * driver owns the admin queue, so only it can make a PD a kernel one; it
 * does so for the kernel's own users (its netdev, the verbs' kernel
 * consumers), never for an application's.  Refused on any other PD, and
 * never a remote key: no region has this key.
 */
#define WREN_LKEY_DMA			0xffffffffU

/**
 * struct wren_cmd_alloc_pd - WREN_ADMIN_ALLOC_PD
 * @flags: WREN_PD_FLAG_*
 * @rsvd: zero
 *
 * result[0] of the completion is the PD number, below max_pd.
 */
struct wren_cmd_alloc_pd {
	__le32 flags;
	__le32 rsvd[13];
};

/* ------------------------------------------------------------------ */
/* Data-path objects: CQ, QP, AH, MR                                   */
/* ------------------------------------------------------------------ */

/*
 * Doorbells.  Every CQ and every send or receive queue has one 32-bit
 * doorbell register in the doorbell page named at its creation; the
 * device picks the register and returns its byte offset in the page.  A
 * write to a register of a page that does not own a queue is refused.
 */
#define WREN_DB_SLOTS			(WREN_DB_PAGE_SIZE / 4)

/* SQ and RQ doorbell value: the producer index, free running mod 2^16. */
#define WREN_WQ_DB_PI			GENMASK(15, 0)

/*
 * CQ doorbell value: the consumer index (free running modulo 2^24) and,
 * with ARM, a request for one event on the CQ's event queue when the next
 * completion is written (with SOLICITED as well: the next solicited or
 * error completion).
 */
#define WREN_CQ_DB_CI			GENMASK(23, 0)
#define WREN_CQ_DB_SOLICITED		BIT(30)
#define WREN_CQ_DB_ARM			BIT(31)

/* wren_cmd_create_cq.flags */
#define WREN_CQ_FLAG_EQ			BIT(0)	/* report arms to @eq_id */

/**
 * struct wren_cmd_create_cq - WREN_ADMIN_CREATE_CQ
 * @base_addr: DMA address of the ring of &struct wren_cqe, 4 KiB
 *	aligned, physically contiguous
 * @log_depth: log2 of its entries; at least WREN_QUEUE_LOG_DEPTH_MIN,
 *	depth at most max_cq_depth
 * @flags: WREN_CQ_FLAG_*
 * @eq_id: with WREN_CQ_FLAG_EQ, the event queue for its events
 * @db_page: the doorbell page of its doorbell
 * @rsvd: zero
 *
 * result[0] of the completion is the CQ number, result[1] the offset of
 * its doorbell in @db_page.
 */
struct wren_cmd_create_cq {
	__le64 base_addr;
	__u8 log_depth;
	__u8 flags;
	__le16 eq_id;
	__le32 db_page;
	__le32 rsvd[10];
};

/**
 * struct wren_cmd_resize_cq - WREN_ADMIN_RESIZE_CQ
 * @base_addr: DMA address of the CQ's new ring, as for CREATE_CQ
 * @cqn: the CQ
 * @log_depth: log2 of the new ring's entries, as for CREATE_CQ
 * @rsvd0: zero
 * @rsvd: zero
 *
 * The device moves the completions the driver has not consumed (those
 * from the consumer index of its last CQ doorbell on) to the new ring's
 * first slots, in order and with the new ring's first-lap phase, and
 * writes every later completion to the new ring; the consumer index
 * starts again at 0.  result[0] of the completion is the number of
 * completions moved.  A new ring too small for them is refused
 * (BAD_PARAM, @log_depth); if the new ring cannot be written the CQ keeps
 * its old ring (DMA_ERROR).  The CQ keeps its doorbell, event queue, arm
 * and error state.
 */
struct wren_cmd_resize_cq {
	__le64 base_addr;
	__le32 cqn;
	__u8 log_depth;
	__u8 rsvd0[3];
	__le32 rsvd[10];
};

/* QP numbers start here: 0 and 1 are the verbs' special QPs. */
#define WREN_QPN_FIRST			2
/* The general services QP's number (WREN_QP_FLAG_GSI), as in the verbs. */
#define WREN_QPN_GSI			1

/* QP types: wren_cmd_create_qp.type. */
enum wren_qp_type {
	WREN_QPT_UD			= 1,	/* unreliable datagram */
	WREN_QPT_RD			= 2,	/* reliable datagram */
	WREN_QPT_RC			= 3,	/* reliable connected */
	WREN_QPT_RAW_ETH		= 4,	/* the port's Ethernet queue */
};

/*
 * The longest Ethernet frame: an IP packet as long as the adapter's MTU
 * (&struct wren_dev_attr), behind an Ethernet header and one VLAN tag.
 */
#define WREN_ETH_FRAME_MAX(mtu)		((mtu) + 18)

/*
 * WREN_QPT_RAW_ETH (WREN_CAP_RAW_ETH): the adapter's Ethernet function,
 * one QP per adapter on a kernel PD, without SRQ or flags.  Its send
 * entries are SENDs without AH, QPN or Q_Key whose payload is a whole
 * frame from the destination MAC on, 14 to WREN_ETH_FRAME_MAX() bytes;
 * the wire takes them in turn with the transport's packets.  Its receives
 * get every frame of the wire that is not for the Wren UDP port and is
 * addressed to the adapter's MAC, to broadcast or to a multicast group:
 * opcode RECV, @byte_len the frame's length, no GRH.  A frame that finds
 * no receive posted, or one too short for it, is dropped and counted
 * (eth_rx_no_buf, eth_rx_too_long in wren_stats.h).  It moves through the QP states like
 * a UD QP: receives from RTR, sends in RTS.
 */

/* wren_cmd_create_qp.flags */
#define WREN_QP_FLAG_ORDERED		BIT(0)	/* RD: complete in order */
#define WREN_QP_FLAG_HANDSHAKE		BIT(1)	/* RD: handshake mode */
#define WREN_QP_FLAG_SQ_SIG_ALL		BIT(2)	/* every send completes */
#define WREN_QP_FLAG_SRQ		BIT(3)	/* receives from @srqn */
#define WREN_QP_FLAG_GSI		BIT(4)	/* UD: number WREN_QPN_GSI */

/*
 * WREN_QP_FLAG_GSI (WREN_CAP_GSI): the adapter's general services QP, a
 * UD QP on a kernel PD whose number is WREN_QPN_GSI rather than one of
 * its own, one per adapter.  The connection managers of the hosts talk
 * to each other through it, each addressing the peer's QP 1; it is
 * otherwise an ordinary UD QP (its Q_Key is the driver's to set: the
 * verbs' is 0x80010000).
 */

/**
 * struct wren_cmd_create_qp - WREN_ADMIN_CREATE_QP
 * @sq_base: DMA address of the send queue, an array of
 *	&struct wren_sq_wqe, 4 KiB aligned, physically contiguous
 * @rq_base: the same for the receive queue of &struct wren_rq_wqe
 * @pdn: its protection domain
 * @send_cq: the CQ of its send completions
 * @recv_cq: the CQ of its receive completions
 * @db_page: the doorbell page of its two doorbells
 * @type: &enum wren_qp_type
 * @sq_log_depth: log2 of the send queue's entries, at least
 *	WREN_QUEUE_LOG_DEPTH_MIN; depth at most max_qp_depth
 * @rq_log_depth: the same for the receive queue
 * @flags: WREN_QP_FLAG_*
 * @srqn: with WREN_QP_FLAG_SRQ, the shared receive queue the QP takes its
 *	receives from (on the QP's PD); its own receive queue, @rq_base,
 *	@rq_log_depth and @rq_wqe_shift, is then not used (zero); else zero
 * @sq_wqe_shift: the send queue's entries are sizeof(struct wren_sq_wqe)
 *	<< @sq_wqe_shift bytes, at most WREN_SQ_WQE_SHIFT_MAX
 *	(WREN_CAP_WQE_SHIFT; else zero)
 * @rq_wqe_shift: the same for the receive queue, at most
 *	WREN_RQ_WQE_SHIFT_MAX
 * @rsvd0: zero
 * @rsvd: zero
 *
 * The QP starts in WREN_QPS_RESET.  result[0] of the completion is the
 * QP number, result[1] and result[2] the offsets of its send and receive
 * doorbells in @db_page.
 */
struct wren_cmd_create_qp {
	__le64 sq_base;
	__le64 rq_base;
	__le32 pdn;
	__le32 send_cq;
	__le32 recv_cq;
	__le32 db_page;
	__u8 type;
	__u8 sq_log_depth;
	__u8 rq_log_depth;
	__u8 flags;
	__le32 srqn;
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__le16 rsvd0;
	__le32 rsvd[3];
};

/* QP states, as in the verbs. */
enum wren_qp_state {
	WREN_QPS_RESET			= 0,
	WREN_QPS_INIT			= 1,
	WREN_QPS_RTR			= 2,
	WREN_QPS_RTS			= 3,
	WREN_QPS_ERR			= 4,
	WREN_QPS_SQD			= 5,	/* RC: send queue drains */
};

/* wren_cmd_modify_qp.attr_mask */
#define WREN_QP_ATTR_STATE		BIT(0)
#define WREN_QP_ATTR_QKEY		BIT(1)	/* UD, RD */
#define WREN_QP_ATTR_DEST		BIT(2)	/* RC: the peer */
#define WREN_QP_ATTR_RQ_PSN		BIT(3)	/* RC */
#define WREN_QP_ATTR_SQ_PSN		BIT(4)	/* RC */
#define WREN_QP_ATTR_RNR		BIT(5)	/* RC: RNR timer and retries */
#define WREN_QP_ATTR_ACCESS		BIT(6)	/* RC: what the peer may do */

/* The sequence numbers of an RC QP's messages are 24 bits wide. */
#define WREN_QP_PSN_MASK		GENMASK(23, 0)
/* wren_cmd_modify_qp.rnr_retry: retry without end. */
#define WREN_QP_RNR_RETRY_FOREVER	7

/**
 * struct wren_cmd_modify_qp - WREN_ADMIN_MODIFY_QP
 * @qpn: the QP
 * @attr_mask: WREN_QP_ATTR_* naming the fields that apply
 * @state: &enum wren_qp_state; RESET to INIT to RTR to RTS, any state to
 *	RESET or ERR
 * @min_rnr_timer: WREN_QP_ATTR_RNR: how long the peer waits before it
 *	sends again a message this QP refused for want of a receive, as
 *	the verbs encode it (0 to 31, 0 meaning 655.36 ms)
 * @rnr_retry: WREN_QP_ATTR_RNR: how often a message this QP sends is sent
 *	again after the peer refused it for want of a receive, 0 to 7;
 *	WREN_QP_RNR_RETRY_FOREVER without end
 * @access: WREN_QP_ATTR_ACCESS: the WREN_MR_ACCESS_REMOTE_* rights the
 *	peer's WRITEs, READs and atomics need on this QP as well as on the
 *	memory key.  An RC QP starts with none; a datagram QP has write and
 *	read.
 * @qkey: the Q_Key incoming messages must carry (UD, RD)
 * @dest_qpn: WREN_QP_ATTR_DEST: the peer QP, the only one this RC QP
 *	sends to and accepts messages from
 * @dest_ipv4: WREN_QP_ATTR_DEST: the peer adapter's IPv4 address,
 *	network byte order
 * @dest_mac: WREN_QP_ATTR_DEST: the next hop's Ethernet address
 * @rsvd1: zero
 * @rq_psn: WREN_QP_ATTR_RQ_PSN: the sequence number of the first message
 *	the peer sends (WREN_QP_PSN_MASK)
 * @sq_psn: WREN_QP_ATTR_SQ_PSN: the sequence number of the first message
 *	this QP sends
 * @rsvd: zero
 *
 * An RC QP takes @dest_qpn, @dest_ipv4, @dest_mac and @rq_psn on the way
 * to RTR, which needs them, and @sq_psn on the way to RTS, which needs it;
 * the RNR attributes and the access rights on any way up but to RESET or
 * ERR.
 */
struct wren_cmd_modify_qp {
	__le32 qpn;
	__le32 attr_mask;
	__u8 state;
	__u8 min_rnr_timer;
	__u8 rnr_retry;
	__u8 access;
	__le32 qkey;
	__le32 dest_qpn;
	__be32 dest_ipv4;
	__u8 dest_mac[6];
	__le16 rsvd1;
	__le32 rq_psn;
	__le32 sq_psn;
	__le32 rsvd[4];
};

/*
 * WREN_ADMIN_QUERY_QP takes &struct wren_cmd_destroy_obj; result[0] is
 * the state, result[1] the Q_Key, result[2] the send queue's consumer
 * index and result[3] the receive queue's.
 */

/**
 * struct wren_cmd_create_ah - WREN_ADMIN_CREATE_AH
 * @pdn: its protection domain
 * @ipv4: the destination adapter's IPv4 address, network byte order
 * @mac: the next hop's Ethernet address
 * @rsvd0: zero
 * @rsvd: zero
 *
 * result[0] of the completion is the AH number.
 */
struct wren_cmd_create_ah {
	__le32 pdn;
	__be32 ipv4;
	__u8 mac[6];
	__le16 rsvd0;
	__le32 rsvd[10];
};

/* wren_cmd_reg_mr.access */
#define WREN_MR_ACCESS_LOCAL_WRITE	BIT(0)
#define WREN_MR_ACCESS_REMOTE_WRITE	BIT(1)
#define WREN_MR_ACCESS_REMOTE_READ	BIT(2)
#define WREN_MR_ACCESS_REMOTE_ATOMIC	BIT(3)	/* with WREN_CAP_ATOMIC */

/* wren_cmd_reg_mr.flags */
#define WREN_MR_FLAG_FAST		BIT(0)	/* a fast-register region */

/* Page list entries per 4 KiB page of the list. */
#define WREN_PBL_PER_PAGE		512
/* Levels of a page list at most: 512^3 pages, 512 GiB of 4 KiB pages. */
#define WREN_PBL_MAX_LEVELS		3
#define WREN_PBL_MAX_PAGES		(WREN_PBL_PER_PAGE * WREN_PBL_PER_PAGE * \
					 WREN_PBL_PER_PAGE)

/**
 * struct wren_cmd_reg_mr - WREN_ADMIN_REG_MR
 * @iova: the address the region's first byte has in work requests
 * @length: bytes, at least 1, at most max_mr_size
 * @pbl_addr: DMA address of the page list's top level, 8-byte aligned,
 *	contiguous.  With at most WREN_PBL_PER_PAGE pages, an array of
 *	@npages __le64 page addresses (one level); else a tree of as many
 *	levels as @npages needs (at most WREN_PBL_MAX_LEVELS): the leaves
 *	are 4 KiB pages of WREN_PBL_PER_PAGE page addresses each, every
 *	level above holds the addresses of the 4 KiB pages of the level
 *	below, and the top is an array of as many entries as needed (at
 *	most WREN_PBL_PER_PAGE)
 * @pdn: its protection domain
 * @npages: pages in the region, at most WREN_PBL_MAX_PAGES
 * @page_shift: log2 of the page size, a bit of page_size_cap
 * @access: WREN_MR_ACCESS_*
 * @key_tag: the low 8 bits of both of the region's keys, chosen by the
 *	driver (random; a fast-register region's registrations change it)
 * @flags: WREN_MR_FLAG_*
 * @rsvd: zero
 *
 * @iova, page aligned down, must lie in the first page and the region
 * must end in the last.  result[0] of the completion is the region's
 * lkey, result[1] its rkey: each is (random << b | the region's number)
 * << 8 | @key_tag, b the bits the device's max_mr needs, the random bits
 * drawn anew for each key and never making the two equal (unless b is
 * 24) nor WREN_LKEY_DMA.  Local accesses (SGEs) and the commands that
 * name the region (DEREG_MR, REREG_MR, QUERY_CTX) take the lkey; a peer's
 * access (RDMA WRITE, READ, atomics, SEND_INV) takes the rkey; a
 * WREN_WQE_REG_MR or WREN_WQE_LOCAL_INV entry either.  Region numbers are
 * given round-robin: a freed one comes back only after every other.
 *
 * With WREN_MR_FLAG_FAST (WREN_CAP_FAST_REG) the region is a
 * fast-register one, which send queue entries register and invalidate
 * (WREN_WQE_REG_MR, WREN_WQE_LOCAL_INV, WREN_WQE_SEND_INV): it starts
 * invalid, and @iova, @length, @page_shift and @access are zero.  @npages
 * is the most pages a registration may give it, at most
 * WREN_PBL_PER_PAGE, and @pbl_addr its one-level page list, which the
 * driver writes before each registration and leaves alone while the
 * region is valid: the device reads it at every access.
 */
struct wren_cmd_reg_mr {
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 pdn;
	__le32 npages;
	__u8 page_shift;
	__u8 access;
	__u8 key_tag;
	__u8 flags;
	__le32 rsvd[5];
};

/**
 * struct wren_cmd_rereg_mr - WREN_ADMIN_REREG_MR
 * @iova: as in &struct wren_cmd_reg_mr, the region's new values
 * @length: the same
 * @pbl_addr: the same; the old page list is the driver's again once the
 *	command completes
 * @pdn: the same
 * @npages: the same
 * @page_shift: the same
 * @access: the same
 * @rsvd0: zero
 * @key: the region, which keeps this key
 * @rsvd: zero
 *
 * Every field is checked as REG_MR checks it, and nothing changes unless
 * all pass; then the region takes them all at once.  Its key stays, as
 * the verbs' rereg_mr lets an application expect.  The fields up to
 * @access sit where REG_MR has them.
 */
struct wren_cmd_rereg_mr {
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 pdn;
	__le32 npages;
	__u8 page_shift;
	__u8 access;
	__le16 rsvd0;
	__le32 key;
	__le32 rsvd[4];
};

/**
 * struct wren_cmd_create_srq - WREN_ADMIN_CREATE_SRQ
 * @base: DMA address of its ring of &struct wren_rq_wqe, 4 KiB aligned,
 *	physically contiguous
 * @pdn: its protection domain, the one of every QP that uses it
 * @db_page: the doorbell page of its doorbell
 * @log_depth: log2 of its entries, from WREN_QUEUE_LOG_DEPTH_MIN; depth at
 *	most max_qp_depth
 * @wqe_shift: its entries are sizeof(struct wren_rq_wqe) << @wqe_shift
 *	bytes, at most WREN_RQ_WQE_SHIFT_MAX (WREN_CAP_WQE_SHIFT; else zero)
 * @rsvd0: zero
 * @rsvd: zero
 *
 * result[0] of the completion is the SRQ number, result[1] the offset of
 * its doorbell in @db_page (a producer index, as a receive queue's).  Its
 * limit starts disarmed.
 */
struct wren_cmd_create_srq {
	__le64 base;
	__le32 pdn;
	__le32 db_page;
	__u8 log_depth;
	__u8 wqe_shift;
	__u8 rsvd0[2];
	__le32 rsvd[9];
};

/* wren_cmd_modify_srq.attr_mask */
#define WREN_SRQ_ATTR_LIMIT		BIT(0)
#define WREN_SRQ_ATTR_RING		BIT(1)

/**
 * struct wren_cmd_modify_srq - WREN_ADMIN_MODIFY_SRQ
 * @srqn: the SRQ
 * @attr_mask: WREN_SRQ_ATTR_* naming the fields that apply
 * @limit: WREN_SRQ_ATTR_LIMIT: arm the limit: once fewer than @limit
 *	posted receives are left untaken, the device posts WREN_AEQ_SRQ_LIMIT
 *	once and disarms it; zero disarms it; less than the depth
 * @log_depth: WREN_SRQ_ATTR_RING: log2 of the new ring's entries, at
 *	least the old ring's (an SRQ only grows), at most max_qp_depth
 * @rsvd0: zero
 * @base: WREN_SRQ_ATTR_RING: DMA address of the new ring, 4 KiB aligned,
 *	physically contiguous
 * @rsvd: zero
 *
 * With WREN_SRQ_ATTR_RING the device copies the receives posted and not
 * yet taken, in order, to the new ring's first slots, and goes on from
 * there: its consumer index is 0 and its producer index the number moved,
 * result[0] of the completion.  The old ring is the driver's again.
 *
 * WREN_ADMIN_QUERY_SRQ takes &struct wren_cmd_destroy_obj; result[0] is
 * the armed limit (zero when disarmed or fired), result[1] the consumer
 * index.  WREN_ADMIN_DESTROY_SRQ refuses an SRQ a QP still uses
 * (WREN_STATUS_BAD_STATE).
 */
struct wren_cmd_modify_srq {
	__le32 srqn;
	__le32 attr_mask;
	__le32 limit;
	__u8 log_depth;
	__u8 rsvd0[3];
	__le64 base;
	__le32 rsvd[8];
};

/* ------------------------------------------------------------------ */
/* The device's own view of an object: QUERY_CTX                        */
/* ------------------------------------------------------------------ */

/* wren_cmd_query_ctx.type */
enum wren_ctx_type {
	WREN_CTX_QP			= 1,	/* &struct wren_qp_ctx */
	WREN_CTX_CQ			= 2,	/* &struct wren_cq_ctx */
	WREN_CTX_MR			= 3,	/* &struct wren_mr_ctx */
	WREN_CTX_SRQ			= 4,	/* &struct wren_srq_ctx */
};

/**
 * struct wren_cmd_query_ctx - WREN_ADMIN_QUERY_CTX (WREN_CAP_QUERY_CTX)
 * @buf_addr: DMA address of a buffer for the object's context
 * @buf_len: its length in bytes, at least 64 and at most 4096; the device
 *	writes min(@buf_len, the context's size) bytes and returns the
 *	context's size in result[0]
 * @handle: the object: a QP, CQ or SRQ number, or a memory key
 * @type: &enum wren_ctx_type
 * @rsvd0: zero
 * @rsvd: zero
 *
 * What the device holds of one object, as the device holds it, for
 * debugging (`rdma res show -r`): a snapshot, which may be stale by the
 * time the driver reads it.  Each context only ever grows at its end.
 * The QP, CQ and MR contexts are multiples of 8 bytes; the SRQ context,
 * with no 8-byte field, is 60 bytes.  Bytes no field names (the QP
 * context's 4 bytes of padding before tx_msgs) are zero.
 */
struct wren_cmd_query_ctx {
	__le64 buf_addr;
	__le32 buf_len;
	__le32 handle;
	__u8 type;
	__u8 rsvd0[3];
	__le32 rsvd[9];
};

/* wren_qp_ctx.tc_id when the QP has sent nothing yet. */
#define WREN_CTX_TC_NONE		0xffffffffU

/**
 * struct wren_qp_ctx - a queue pair, as QUERY_CTX writes it
 * @qpn: its number
 * @type: &enum wren_qp_type
 * @state: &enum wren_qp_state
 * @flags: WREN_QP_FLAG_* it was created with
 * @rsvd0: zero
 * @pdn: its protection domain
 * @send_cq: the CQ of its send completions
 * @recv_cq: the CQ of its receive completions
 * @srqn: its SRQ, with WREN_QP_FLAG_SRQ; else zero
 * @qkey: its Q_Key (UD, RD)
 * @counter_set: the counter set it is bound to (0: the default set)
 * @sq_log_depth: log2 of its send queue's entries
 * @rq_log_depth: log2 of its receive queue's entries
 * @sq_wqe_shift: its send entries' size shift
 * @rq_wqe_shift: its receive entries' size shift
 * @sq_pi: the send queue's producer index, from its latest doorbell
 * @sq_ci: the send queue's consumer index, as QUERY_QP gives it: its
 *	oldest entry not yet completed (the slots before it are free)
 * @rq_pi: the receive queue's producer index (zero with an SRQ)
 * @rq_ci: the receive queue's consumer index (zero with an SRQ)
 * @sq_inflight: send entries from @sq_ci on that the device has handed to
 *	the transport (or that wait out an RNR) and not completed; those
 *	after them, up to @sq_pi, wait their turn
 * @rd_atom_inflight: its RDMA READs and atomics the peers have not
 *	answered yet
 * @dest_qpn: RC: the peer QP; else zero
 * @dest_ipv4: RC: the peer adapter's IPv4 address; else zero
 * @sq_psn: RC: the sequence number of its next message
 * @rq_psn: RC: the sequence number of the next message it expects
 * @peer_ipv4: the peer adapter of the latest message posted from its send
 *	queue (RC: its peer), network byte order; zero before the first
 * @tc_id: the transport context that carries messages to that peer for
 *	this QP now: its index in the context table (SET_TC_TABLE; without
 *	one, its slot among the contexts the adapter holds;
 *	Documentation/transport.rst).  WREN_CTX_TC_NONE before the first
 *	message, for a datagram (UD has no context), and once the adapter
 *	holds no context for that peer (closed when idle, or written back to
 *	the table): the device keeps no history of contexts
 * @rsvd1: zero
 * @tx_msgs: reliable messages it sent (its answers to READs and atomics
 *	included) that the peer acknowledged; datagrams are not counted
 * @rx_msgs: reliable messages delivered to it; datagrams are not counted
 * @retx_pkts: packets of its messages sent again, every cause together
 * @rnr_waits: its messages a peer refused for want of a receive and that
 *	waited to be sent again
 * @rsvd: zero
 */
struct wren_qp_ctx {
	__le32 qpn;
	__u8 type;
	__u8 state;
	__u8 flags;
	__u8 rsvd0;
	__le32 pdn;
	__le32 send_cq;
	__le32 recv_cq;
	__le32 srqn;
	__le32 qkey;
	__le32 counter_set;
	__u8 sq_log_depth;
	__u8 rq_log_depth;
	__u8 sq_wqe_shift;
	__u8 rq_wqe_shift;
	__le16 sq_pi;
	__le16 sq_ci;
	__le16 rq_pi;
	__le16 rq_ci;
	__le32 sq_inflight;
	__le32 rd_atom_inflight;
	__le32 dest_qpn;
	__be32 dest_ipv4;
	__le32 sq_psn;
	__le32 rq_psn;
	__be32 peer_ipv4;
	__le32 tc_id;
	__le32 rsvd1;
	__le64 tx_msgs;
	__le64 rx_msgs;
	__le64 retx_pkts;
	__le64 rnr_waits;
	__le32 rsvd[4];
};

/* wren_cq_ctx.armed */
enum wren_cq_arm {
	WREN_CQ_ARM_NONE		= 0,
	WREN_CQ_ARM_NEXT		= 1,	/* the next completion */
	WREN_CQ_ARM_SOLICITED		= 2,	/* the next solicited one */
};

/**
 * struct wren_cq_ctx - a completion queue, as QUERY_CTX writes it
 * @cqn: its number
 * @log_depth: log2 of its entries
 * @flags: WREN_CQ_FLAG_* it was created with
 * @armed: &enum wren_cq_arm
 * @in_error: 1 once it overflowed: it takes no more completions
 * @eq_id: its event queue, with WREN_CQ_FLAG_EQ
 * @pi: its producer index: completions written, free running mod 2^24
 * @ci: its consumer index, from its latest doorbell
 * @rsvd0: zero
 * @overflows: completions it had no room for, and those lost after, while
 *	in error
 * @events: events it raised on its event queue
 * @rsvd: zero
 */
struct wren_cq_ctx {
	__le32 cqn;
	__u8 log_depth;
	__u8 flags;
	__u8 armed;
	__u8 in_error;
	__le32 eq_id;
	__le32 pi;
	__le32 ci;
	__le32 rsvd0;
	__le64 overflows;
	__le64 events;
	__le32 rsvd[4];
};

/* wren_mr_ctx.state */
enum wren_mr_state {
	WREN_MR_STATE_VALID		= 1,	/* its key may be used */
	WREN_MR_STATE_FREE		= 2,	/* fast: not registered */
};

/**
 * struct wren_mr_ctx - a memory region, as QUERY_CTX writes it
 * @key: its key
 * @pdn: its protection domain
 * @iova: its first address
 * @length: its bytes
 * @pbl_addr: its page list, as REG_MR took it
 * @npages: pages in its page list
 * @page_shift: log2 of its page size
 * @access: WREN_MR_ACCESS_*
 * @flags: WREN_MR_FLAG_* it was created with
 * @state: &enum wren_mr_state
 * @rsvd: zero
 */
struct wren_mr_ctx {
	__le32 key;
	__le32 pdn;
	__le64 iova;
	__le64 length;
	__le64 pbl_addr;
	__le32 npages;
	__u8 page_shift;
	__u8 access;
	__u8 flags;
	__u8 state;
	__le32 rsvd[6];
};

/**
 * struct wren_srq_ctx - a shared receive queue, as QUERY_CTX writes it
 * @srqn: its number
 * @pdn: its protection domain
 * @log_depth: log2 of its entries
 * @wqe_shift: its entries' size shift
 * @rsvd0: zero
 * @pi: its producer index, from its latest doorbell
 * @ci: its consumer index
 * @limit: its armed limit, zero when disarmed
 * @qps: QPs that take their receives from it
 * @rsvd: zero
 */
struct wren_srq_ctx {
	__le32 srqn;
	__le32 pdn;
	__u8 log_depth;
	__u8 wqe_shift;
	__le16 rsvd0;
	__le16 pi;
	__le16 ci;
	__le32 limit;
	__le32 qps;
	__le32 rsvd[10];
};

/* ------------------------------------------------------------------ */
/* Queue entries                                                        */
/* ------------------------------------------------------------------ */

/**
 * struct wren_sge - one scatter/gather entry
 * @addr: address within the region of @lkey
 * @length: bytes
 * @lkey: the key of a region registered on the QP's protection domain
 */
struct wren_sge {
	__le64 addr;
	__le32 length;
	__le32 lkey;
};

/*
 * What the structures below hold; a queue of larger entries (sq_wqe_shift,
 * rq_wqe_shift) holds more, its @sge or @inline_data running on to the
 * entry's end: see wren_sq_wqe_sges() and the sizes after the structures.
 */
#define WREN_SQ_MAX_SGE			5
#define WREN_SQ_MAX_INLINE		80
#define WREN_RQ_MAX_SGE			3

enum wren_wqe_opcode {
	WREN_WQE_SEND			= 1,
	WREN_WQE_SEND_IMM		= 2,
	WREN_WQE_RDMA_WRITE		= 3,	/* RD and RC */
	WREN_WQE_RDMA_WRITE_IMM		= 4,	/* RD and RC */
	WREN_WQE_RDMA_READ		= 5,	/* RD and RC; no inline */
	WREN_WQE_ATOMIC_CMP_SWP		= 6,	/* RC, WREN_CAP_ATOMIC */
	WREN_WQE_ATOMIC_FETCH_ADD	= 7,	/* RC, WREN_CAP_ATOMIC */
	WREN_WQE_REG_MR			= 8,	/* RC, WREN_CAP_FAST_REG */
	WREN_WQE_LOCAL_INV		= 9,	/* RC, WREN_CAP_FAST_REG */
	WREN_WQE_SEND_INV		= 10,	/* RC, WREN_CAP_FAST_REG */
};

/*
 * Fast registration (WREN_CAP_FAST_REG), on RC QPs, of the regions of the
 * QP's PD that REG_MR made with WREN_MR_FLAG_FAST:
 *
 * - WREN_WQE_REG_MR makes the invalid region of number @rkey >> 8 valid
 *   with the key @rkey (its low 8 bits the region's new tag), its first
 *   byte at @remote_addr and the rest in @fast_reg, the pages in its page
 *   list, all checked as REG_MR checks them.  No payload, no SGE.
 * - WREN_WQE_LOCAL_INV makes the region of key @rkey invalid (it may be
 *   already).  No payload.
 * - WREN_WQE_SEND_INV is a SEND whose arrival makes the region of key
 *   @rkey at the receiver invalid, a fast-register region of the
 *   receiving QP's PD; the receive completes with WREN_CQE_F_INV and the
 *   key in @inv_key.  A key that names no such region there fails the
 *   message at the receiver, as a WRITE to a bad key does.
 *
 * The first two are the device's alone: they take effect in queue order,
 * when the device takes the entry, and complete in order as the entries
 * before them do (WREN_CQE_OP_REG_MR, WREN_CQE_OP_LOCAL_INV).  A key
 * that names no fast-register region of the PD, a region in the wrong
 * state (REG_MR: valid) or a value REG_MR would refuse fails the entry
 * with LOC_PROT_ERR (key, PD, state) or LOC_QP_OP_ERR (the rest), and
 * the QP goes to ERR.  A region that is not valid refuses every access,
 * local or remote, as a bad key does.
 */

/* wren_sq_wqe.flags */
#define WREN_WQE_F_SIGNALED		BIT(0)	/* write a completion */
#define WREN_WQE_F_SOLICITED		BIT(1)	/* solicited event at target */
#define WREN_WQE_F_INLINE		BIT(2)	/* payload in @inline_data */
#define WREN_WQE_F_AV			BIT(3)	/* UD: destination in @av */

/**
 * struct wren_wqe_av - a UD send's destination, carried in the entry
 * @ipv4: the destination adapter's IPv4 address, network byte order
 * @mac: the next hop's Ethernet address
 * @rsvd: zero
 *
 * What an address handle holds (&struct wren_cmd_create_ah), for the
 * senders that cannot wait for an admin command to make one: the
 * kernel's address handles are created where it may not sleep, and so
 * live in the driver and travel in each entry (WREN_CAP_WQE_AV).
 */
struct wren_wqe_av {
	__be32 ipv4;
	__u8 mac[6];
	__u8 rsvd[6];
};

/**
 * struct wren_sq_wqe - one send queue entry
 * @opcode: &enum wren_wqe_opcode
 * @flags: WREN_WQE_F_*
 * @num_sge: entries of @sge in use, at most WREN_SQ_WQE_SGE() of the
 *	queue's entry size; 0 with WREN_WQE_F_INLINE
 * @rsvd0: zero
 * @inline_len: with WREN_WQE_F_INLINE, bytes of @inline_data, at most
 *	WREN_SQ_WQE_INLINE() of the queue's entry size; else zero
 * @imm: immediate data of SEND_IMM and RDMA_WRITE_IMM, opaque
 * @rsvd1: zero
 * @ah: the destination's address handle (UD, RD; zero on RC, whose
 *	destination is the QP's peer, and with WREN_WQE_F_AV)
 * @remote_qpn: the destination queue pair (UD, RD; zero on RC)
 * @remote_qkey: its Q_Key (UD, RD; zero on RC)
 * @rsvd2: zero
 * @remote_addr: RDMA_WRITE*, RDMA_READ: the address at the destination
 * @rkey: ... and its memory key there
 * @rsvd3: zero
 * @av: with WREN_WQE_F_AV, on a UD QP only, the destination in place of
 *	@ah (and of @remote_addr and @rkey, which a UD QP does not use)
 * @sge: the payload's scatter/gather list (RDMA_READ: where the data read
 *	goes, which needs local write access)
 * @inline_data: the payload itself
 * @atomic: an atomic's one SGE of 8 bytes (@num_sge 1), where the remote
 *	value before the operation goes, then its operands: @compare_add, the
 *	value compared (CMP_SWP) or added (FETCH_ADD), and @swap, the value
 *	written if the comparison holds.  The remote address is 8-byte
 *	aligned; the remote value is a little-endian 64-bit integer.
 * @fast_reg: REG_MR's region (@num_sge 0): its @length in bytes, its
 *	@npages pages of 1 << @page_shift bytes and its @access
 *	(WREN_MR_ACCESS_*), as REG_MR takes them; @rsvd zero
 */
struct wren_sq_wqe {
	__u8 opcode;
	__u8 flags;
	__u8 num_sge;
	__u8 rsvd0;
	__le32 inline_len;
	__be32 imm;
	__le32 rsvd1;
	__le32 ah;
	__le32 remote_qpn;
	__le32 remote_qkey;
	__le32 rsvd2;
	union {
		struct {
			__le64 remote_addr;
			__le32 rkey;
			__le32 rsvd3;
		};
		struct wren_wqe_av av;
	};
	union {
		struct wren_sge sge[WREN_SQ_MAX_SGE];
		__u8 inline_data[WREN_SQ_MAX_INLINE];
		struct {
			struct wren_sge sge;
			__le64 compare_add;
			__le64 swap;
		} atomic;
		struct {
			__le64 length;
			__le32 npages;
			__u8 page_shift;
			__u8 access;
			__le16 rsvd;
		} fast_reg;
	};
};

/**
 * struct wren_rq_wqe - one receive queue entry
 * @num_sge: entries of @sge in use, 1 to WREN_RQ_WQE_SGE() of the queue's
 *	entry size
 * @rsvd0: zero
 * @req_id: any value; the receive's completion returns it as wqe_index.
 *	The device takes receive entries in ring order and copies each as it
 *	takes it, but completes them in the order their messages become
 *	whole: the ring slot is free again once taken, and @req_id tells the
 *	driver which of its requests completed.  On an RC QP each SEND takes
 *	the entry its place in the peer's stream names, the device reads it
 *	then, and receives complete in ring order: a slot is free again once
 *	its completion is written.
 * @rsvd2: zero
 * @sge: where an incoming message goes; for a UD QP its first 40 bytes
 *	receive the GRH (&struct wren_cqe, WREN_CQE_F_GRH)
 * @rsvd1: zero
 */
struct wren_rq_wqe {
	__u8 num_sge;
	__u8 rsvd0;
	__le16 req_id;
	__le32 rsvd2;
	struct wren_sge sge[WREN_RQ_MAX_SGE];
	__le64 rsvd1;
};

/*
 * Entries of sizeof() << shift bytes.  Their scatter/gather lists begin
 * where the structures' do and take the rest of the entry, but for the
 * last 8 bytes of a receive entry (@rsvd1 in the smallest), reserved.
 */
#define WREN_SQ_WQE_SHIFT_MAX		2	/* 512 bytes */
#define WREN_RQ_WQE_SHIFT_MAX		3	/* 512 bytes */
#define WREN_SQ_WQE_SIZE(shift)		(sizeof(struct wren_sq_wqe) << (shift))
#define WREN_RQ_WQE_SIZE(shift)		(sizeof(struct wren_rq_wqe) << (shift))
#define WREN_SQ_WQE_INLINE(shift)	(WREN_SQ_WQE_SIZE(shift) - \
					 offsetof(struct wren_sq_wqe, sge))
#define WREN_SQ_WQE_SGE(shift)		(WREN_SQ_WQE_INLINE(shift) / \
					 sizeof(struct wren_sge))
#define WREN_RQ_WQE_SGE(shift)		((WREN_RQ_WQE_SIZE(shift) - \
					  offsetof(struct wren_rq_wqe, sge)) / \
					 sizeof(struct wren_sge))

/*
 * The scatter/gather lists of entries of any size; indexing the
 * structures' own arrays beyond their declared length would not be C.
 */
static inline struct wren_sge *wren_sq_wqe_sges(struct wren_sq_wqe *w)
{
	return (struct wren_sge *)((__u8 *)w + offsetof(struct wren_sq_wqe, sge));
}

static inline __u8 *wren_sq_wqe_inline(struct wren_sq_wqe *w)
{
	return (__u8 *)w + offsetof(struct wren_sq_wqe, inline_data);
}

static inline struct wren_sge *wren_rq_wqe_sges(struct wren_rq_wqe *w)
{
	return (struct wren_sge *)((__u8 *)w + offsetof(struct wren_rq_wqe, sge));
}

/* The GRH a UD receive starts with, as on RoCE v2. */
#define WREN_GRH_LEN			40

enum wren_cqe_opcode {
	WREN_CQE_OP_SEND		= 1,
	WREN_CQE_OP_RECV		= 2,
	WREN_CQE_OP_RDMA_WRITE		= 3,	/* WRITE and WRITE_IMM sent */
	WREN_CQE_OP_RDMA_READ		= 4,
	WREN_CQE_OP_RECV_RDMA_IMM	= 5,	/* a WRITE_IMM arrived */
	WREN_CQE_OP_ATOMIC_CMP_SWP	= 6,
	WREN_CQE_OP_ATOMIC_FETCH_ADD	= 7,
	WREN_CQE_OP_REG_MR		= 8,
	WREN_CQE_OP_LOCAL_INV		= 9,
};

/*
 * Completion statuses: wren_cqe.status.  The verbs layer maps each to an
 * ibv_wc_status and reports the value itself as the vendor error.
 */
enum wren_cqe_status {
	WREN_CQE_SUCCESS		= 0,
	WREN_CQE_LOC_LEN_ERR		= 1,	/* too long for the buffer */
	WREN_CQE_LOC_QP_OP_ERR		= 2,	/* malformed work request */
	WREN_CQE_LOC_PROT_ERR		= 3,	/* key, PD or bounds refused */
	WREN_CQE_WR_FLUSH_ERR		= 4,	/* flushed by QP error/reset */
	WREN_CQE_BAD_DEST_QP		= 5,	/* no such remote QP/Q_Key */
	WREN_CQE_RNR			= 6,	/* remote had no receive */
	WREN_CQE_REMOTE_UNRESPONSIVE	= 7,	/* answered once, then not */
	WREN_CQE_REMOTE_UNREACHABLE	= 8,	/* never answered */
	WREN_CQE_REMOTE_OP_ERR		= 9,	/* remote could not place it */
	WREN_CQE_REMOTE_TOO_LONG	= 10,	/* remote buffer too short */
	WREN_CQE_LOC_DMA_ERR		= 11,	/* host memory unreachable */
	WREN_CQE_REM_ACCESS_ERR		= 12,	/* remote key/PD/rights/bounds */
};

/* wren_cqe.flags */
#define WREN_CQE_F_PHASE		BIT(0)	/* 1 on the first lap */
#define WREN_CQE_F_IMM			BIT(1)	/* @imm is valid */
#define WREN_CQE_F_GRH			BIT(2)	/* a GRH leads the buffer */
#define WREN_CQE_F_SOLICITED		BIT(3)
#define WREN_CQE_F_INV			BIT(4)	/* a SEND_INV: @inv_key */

/**
 * struct wren_cqe - one completion queue entry
 * @wqe_index: a send: the index of the completed entry in its queue
 *	(modulo the queue's depth); a receive: the entry's @req_id
 * @opcode: &enum wren_cqe_opcode
 * @status: &enum wren_cqe_status
 * @flags: WREN_CQE_F_*
 * @rsvd0: zero
 * @rsvd1: zero
 * @qpn: the QP the entry belongs to
 * @byte_len: receive: bytes placed (the GRH included); RECV_RDMA_IMM:
 *	bytes written; RDMA_READ: bytes read; send: zero
 * @imm: immediate data, with WREN_CQE_F_IMM
 * @src_qpn: receive: the sender's QP number
 * @src_ipv4: receive: the sender's IPv4 address, network byte order
 * @inv_key: with WREN_CQE_F_INV, the key of the region the message
 *	invalidated; else zero
 */
struct wren_cqe {
	__le16 wqe_index;
	__u8 opcode;
	__u8 status;
	__u8 flags;
	__u8 rsvd0;
	__le16 rsvd1;
	__le32 qpn;
	__le32 byte_len;
	__be32 imm;
	__le32 src_qpn;
	__be32 src_ipv4;
	__le32 inv_key;
};

/* ------------------------------------------------------------------ */
/* Async event queue and event queues                                  */
/* ------------------------------------------------------------------ */

enum wren_aeq_type {
	WREN_AEQ_KEEP_ALIVE		= 1,	/* data: events sent so far */
	WREN_AEQ_FATAL			= 2,	/* data: enum wren_fatal_code */
	WREN_AEQ_WARNING		= 3,	/* data: enum wren_warning_code */
	WREN_AEQ_LINK_CHANGE		= 4,	/* data: 1 up, 0 down */
	WREN_AEQ_CQ_ERROR		= 5,	/* info: CQ number (overrun) */
	WREN_AEQ_SRQ_LIMIT		= 6,	/* info: SRQ number */
	WREN_AEQ_QP_EVENT		= 7,	/* info: QPN; data: wren_qp_event */
};

/* What happened to a QP: WREN_AEQ_QP_EVENT's data. */
enum wren_qp_event {
	WREN_QP_EV_COMM_EST		= 1,	/* RTR: the first message came */
	WREN_QP_EV_SQ_DRAINED		= 2,	/* SQD: nothing in flight */
	WREN_QP_EV_LAST_WQE		= 3,	/* SRQ QP in ERR: no more receives */
	WREN_QP_EV_REQ_ERR		= 4,	/* responder: invalid request */
	WREN_QP_EV_ACCESS_ERR		= 5,	/* responder: access violation */
	WREN_QP_EV_FATAL		= 6,	/* RC: a receive entry was bad: ERR */
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
static_assert(sizeof(struct wren_cmd_get_stats) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_set_tc_table) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_tc_entry) == 64);
static_assert(sizeof(struct wren_cmd_create_eq) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_destroy_obj) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_alloc_pd) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_create_cq) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_resize_cq) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_create_qp) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_modify_qp) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_create_ah) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_create_srq) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_modify_srq) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_reg_mr) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(sizeof(struct wren_cmd_rereg_mr) == WREN_ADMIN_CMD_PAYLOAD);
static_assert(offsetof(struct wren_cmd_rereg_mr, access) ==
	      offsetof(struct wren_cmd_reg_mr, access));
static_assert(sizeof(struct wren_sge) == 16);
static_assert(sizeof(struct wren_wqe_av) == 16);
static_assert(sizeof(struct wren_sq_wqe) == 128);
static_assert(offsetof(struct wren_sq_wqe, av) ==
	      offsetof(struct wren_sq_wqe, remote_addr));
static_assert(sizeof(struct wren_rq_wqe) == 64);
static_assert(WREN_SQ_WQE_SGE(0) == WREN_SQ_MAX_SGE &&
	      WREN_SQ_WQE_INLINE(0) == WREN_SQ_MAX_INLINE &&
	      WREN_RQ_WQE_SGE(0) == WREN_RQ_MAX_SGE);
static_assert(sizeof(struct wren_cqe) == 32);
static_assert(sizeof(struct wren_dev_attr) == 256);
static_assert(sizeof(struct wren_aeq_entry) == 16);
static_assert(sizeof(struct wren_eqe) == 8);

#endif /* _LINUX_WREN_IF_H */
