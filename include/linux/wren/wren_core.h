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

struct net_device;
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
 * @max_rd_atom: RDMA READs a QP may have outstanding
 * @max_res_rd_atom: READs the device answers at once
 * @max_srq: shared receive queues (with WREN_CAP_SRQ)
 * @max_counter_set: counter sets, the default one included (with
 *	WREN_CAP_COUNTER_SETS)
 * @max_inline: inline bytes per send
 * @max_ah: address handles
 * @max_mr: memory regions
 * @max_mr_size: bytes per memory region
 * @page_size_cap: supported page sizes, bit n for 2^n bytes
 * @db_page_count: doorbell pages, page 0 (the kernel's) included
 * @db_page_size: bytes per doorbell page
 * @max_msg_size: largest message in bytes
 * @tc_cache: transport contexts the adapter holds at once
 * @min_tc_log: log2 of the smallest transport-context table it accepts
 * @max_tc_log: log2 of the largest
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
	u32 max_rd_atom;
	u32 max_res_rd_atom;
	u32 max_srq;
	u32 max_counter_set;
	u32 max_inline;
	u32 max_ah;
	u32 max_mr;
	u64 max_mr_size;
	u64 page_size_cap;
	u32 db_page_count;
	u32 db_page_size;
	u32 max_msg_size;
	u32 tc_cache;
	u8 min_tc_log;
	u8 max_tc_log;
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
struct net_device *wren_get_netdev(struct wren_dev *wdev);

int wren_db_page_alloc(struct wren_dev *wdev, u32 *index);
void wren_db_page_free(struct wren_dev *wdev, u32 index);
phys_addr_t wren_db_page_phys(struct wren_dev *wdev, u32 index);

int wren_cmd_alloc_pd(struct wren_dev *wdev, bool kernel, u32 *pdn);
int wren_cmd_dealloc_pd(struct wren_dev *wdev, u32 pdn);

/**
 * struct wren_cq_params - what CREATE_CQ needs
 * @base: DMA address of the ring, 4 KiB aligned, physically contiguous
 * @log_depth: log2 of its entries
 * @comp_vector: completion vector (an index below num_comp_vectors) whose
 *	event queue hears of its armed completions
 * @db_page: doorbell page of its doorbell
 */
struct wren_cq_params {
	dma_addr_t base;
	u8 log_depth;
	u32 comp_vector;
	u32 db_page;
};

/**
 * struct wren_qp_params - what CREATE_QP needs
 * @sq_base: DMA address of the send ring, 4 KiB aligned, contiguous
 * @rq_base: the same for the receive ring
 * @pdn: protection domain
 * @send_cq: CQ number of its send completions
 * @recv_cq: CQ number of its receive completions
 * @db_page: doorbell page of its doorbells
 * @type: WREN_QPT_UD, WREN_QPT_RD or WREN_QPT_RC
 * @sq_log_depth: log2 of the send ring's entries
 * @rq_log_depth: log2 of the receive ring's entries
 * @flags: WREN_QP_FLAG_*
 * @srqn: with WREN_QP_FLAG_SRQ, the SRQ its receives come from (and no
 *	receive ring: @rq_base, @rq_log_depth and @rq_wqe_shift zero)
 * @sq_wqe_shift: the send ring's entries are sizeof(struct wren_sq_wqe)
 *	<< @sq_wqe_shift bytes
 * @rq_wqe_shift: the same for the receive ring
 */
struct wren_qp_params {
	dma_addr_t sq_base;
	dma_addr_t rq_base;
	u32 pdn;
	u32 send_cq;
	u32 recv_cq;
	u32 db_page;
	u8 type;
	u8 sq_log_depth;
	u8 rq_log_depth;
	u8 flags;
	u32 srqn;
	u8 sq_wqe_shift;
	u8 rq_wqe_shift;
};

/**
 * struct wren_srq_params - what CREATE_SRQ needs
 * @base: DMA address of its ring, 4 KiB aligned, contiguous
 * @pdn: protection domain
 * @db_page: doorbell page of its doorbell
 * @log_depth: log2 of the ring's entries
 * @wqe_shift: its entries are sizeof(struct wren_rq_wqe) << @wqe_shift
 *	bytes (CREATE_SRQ only; a grown ring keeps them)
 */
struct wren_srq_params {
	dma_addr_t base;
	u32 pdn;
	u32 db_page;
	u8 log_depth;
	u8 wqe_shift;
};

/**
 * struct wren_qp_handles - what CREATE_QP returns
 * @qpn: the QP number
 * @sq_db_offset: byte offset of the send doorbell in the doorbell page
 * @rq_db_offset: byte offset of the receive doorbell
 */
struct wren_qp_handles {
	u32 qpn;
	u32 sq_db_offset;
	u32 rq_db_offset;
};

/**
 * struct wren_qp_attrs - what MODIFY_QP changes
 * @attr_mask: WREN_QP_ATTR_* naming the fields that apply
 * @state: the new state, &enum wren_qp_state
 * @qkey: UD, RD: the Q_Key incoming messages must carry
 * @dest_qpn: RC: the peer QP
 * @dest_ipv4: RC: the peer adapter's IPv4 address
 * @dest_mac: RC: the next hop's Ethernet address
 * @rq_psn: RC: the PSN of the peer's first message
 * @sq_psn: RC: the PSN of this QP's first message
 * @min_rnr_timer: RC: the verbs' encoding of the RNR wait, 0 to 31
 * @rnr_retry: RC: RNR retries, 0 to 7 (7: without end)
 * @access: RC: the WREN_MR_ACCESS_REMOTE_* rights of the peer
 */
struct wren_qp_attrs {
	u32 attr_mask;
	u8 state;
	u32 qkey;
	u32 dest_qpn;
	__be32 dest_ipv4;
	u8 dest_mac[ETH_ALEN];
	u32 rq_psn;
	u32 sq_psn;
	u8 min_rnr_timer;
	u8 rnr_retry;
	u8 access;
};

/**
 * struct wren_qp_query - what QUERY_QP returns
 * @state: WREN_QPS_*
 * @qkey: the Q_Key
 * @sq_ci: the send queue's consumer index
 * @rq_ci: the receive queue's consumer index
 */
struct wren_qp_query {
	u8 state;
	u32 qkey;
	u16 sq_ci;
	u16 rq_ci;
};

/**
 * struct wren_mr_params - what REG_MR needs
 * @iova: the region's first address in work requests
 * @length: its bytes
 * @pbl: DMA address of its page list (one or two levels, see wren_if.h);
 *	it must stay in place until the region is deregistered
 * @pdn: protection domain
 * @npages: pages in the region
 * @page_shift: log2 of the page size
 * @access: WREN_MR_ACCESS_*
 * @key_tag: the low 8 bits of both keys (random, and for a fast-register
 *	region the consumer's to change with each registration)
 * @flags: WREN_MR_FLAG_*
 */
struct wren_mr_params {
	u64 iova;
	u64 length;
	dma_addr_t pbl;
	u32 pdn;
	u32 npages;
	u8 page_shift;
	u8 access;
	u8 key_tag;
	u8 flags;
};

int wren_cmd_create_cq(struct wren_dev *wdev, const struct wren_cq_params *p,
		       u32 *cqn, u32 *db_offset);
int wren_cmd_destroy_cq(struct wren_dev *wdev, u32 cqn);
int wren_cmd_resize_cq(struct wren_dev *wdev, u32 cqn, dma_addr_t base,
		       u8 log_depth, u32 *moved);
int wren_cmd_create_qp(struct wren_dev *wdev, const struct wren_qp_params *p,
		       struct wren_qp_handles *h);
int wren_cmd_modify_qp(struct wren_dev *wdev, u32 qpn,
		       const struct wren_qp_attrs *a);
int wren_cmd_query_qp(struct wren_dev *wdev, u32 qpn, struct wren_qp_query *q);
int wren_cmd_destroy_qp(struct wren_dev *wdev, u32 qpn);
int wren_cmd_create_srq(struct wren_dev *wdev, const struct wren_srq_params *p,
			u32 *srqn, u32 *db_offset);
int wren_cmd_modify_srq(struct wren_dev *wdev, u32 srqn, u32 attr_mask,
			u32 limit, const struct wren_srq_params *ring,
			u32 *moved);
int wren_cmd_query_srq(struct wren_dev *wdev, u32 srqn, u32 *limit);
int wren_cmd_destroy_srq(struct wren_dev *wdev, u32 srqn);
int wren_cmd_create_ah(struct wren_dev *wdev, u32 pdn, __be32 ipv4,
		       const u8 *mac, u32 *ahn);
int wren_cmd_destroy_ah(struct wren_dev *wdev, u32 ahn);
int wren_cmd_reg_mr(struct wren_dev *wdev, const struct wren_mr_params *p,
		    u32 *lkey, u32 *rkey);
int wren_cmd_rereg_mr(struct wren_dev *wdev, u32 key,
		      const struct wren_mr_params *p);
int wren_cmd_dereg_mr(struct wren_dev *wdev, u32 key);
int wren_cmd_get_stats(struct wren_dev *wdev, u64 *vals, unsigned int n);
int wren_cmd_get_set_stats(struct wren_dev *wdev, u32 set, u64 *vals,
			   unsigned int n);
int wren_cmd_alloc_counter_set(struct wren_dev *wdev);
int wren_cmd_free_counter_set(struct wren_dev *wdev, u32 set);
int wren_cmd_bind_counter_set(struct wren_dev *wdev, u32 qpn, u32 set);
int wren_cmd_query_ctx(struct wren_dev *wdev, u8 type, u32 handle, void *buf,
		       size_t len);

/**
 * struct wren_event_ops - how the RDMA driver hears of its objects' events
 * @cq_comp: an armed CQ got a completion
 * @cq_error: a CQ overflowed and lost completions
 * @qp_event: something happened to a QP: &enum wren_qp_event
 * @srq_limit: an SRQ's armed limit fired
 * @fatal: the device failed and is fenced: it completes no more work,
 *	raises no more events, and every command but those that release
 *	something fails with -EIO (those succeed); the core driver then
 *	removes the auxiliary device, resets the function and adds it again
 *
 * All run in atomic context (an interrupt handler, the watchdog, or the
 * caller of an admin command that timed out) under rcu_read_lock();
 * wren_clear_event_ops() waits for running calls.
 */
struct wren_event_ops {
	void (*cq_comp)(void *priv, u32 cqn);
	void (*cq_error)(void *priv, u32 cqn);
	void (*qp_event)(void *priv, u32 qpn, u32 event);
	void (*srq_limit)(void *priv, u32 srqn);
	void (*fatal)(void *priv);
};

void wren_set_event_ops(struct wren_dev *wdev, const struct wren_event_ops *ops,
			void *priv);
void wren_clear_event_ops(struct wren_dev *wdev);

#endif /* _LINUX_WREN_CORE_H */
