/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wren core driver: the port's network interface (wren_eth.c) and its
 * ethtool operations (wren_ethtool.c).
 */
#ifndef _WREN_ETH_H
#define _WREN_ETH_H

#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <linux/wren/wren_if.h>

struct wren_dev;

/* Ring sizes, log2; the CQ holds a completion of every entry of both. */
#define WREN_ETH_SQ_LOG		8
#define WREN_ETH_RQ_LOG		8
#define WREN_ETH_CQ_LOG		9

/**
 * struct wren_eth_buf - a frame's buffer while the device holds it
 * @skb: the frame
 * @dma: its mapping
 * @len: the mapping's length
 */
struct wren_eth_buf {
	struct sk_buff *skb;
	dma_addr_t dma;
	u32 len;
};

/**
 * struct wren_eth_stats - what the interface counts itself
 * @syncp: makes the counters readable whole on 32-bit hosts
 * @rx_packets: frames passed up
 * @rx_bytes: their bytes
 * @tx_packets: frames the device sent
 * @tx_bytes: their bytes
 * @tx_dropped: frames flushed unsent by a failed queue
 * @tx_errors: frames the device refused
 * @rx_errors: receives the device failed
 * @rx_length_errors: frames longer than a receive buffer
 * @rx_alloc_errors: receive buffers that could not be allocated
 */
struct wren_eth_stats {
	struct u64_stats_sync syncp;
	u64 rx_packets;
	u64 rx_bytes;
	u64 tx_packets;
	u64 tx_bytes;
	u64 tx_dropped;
	u64 tx_errors;
	u64 rx_errors;
	u64 rx_length_errors;
	u64 rx_alloc_errors;
};

/**
 * struct wren_eth - the port's network interface
 * @netdev: the interface
 * @wdev: its device
 * @napi: polls @cq
 * @db: the kernel's doorbell page
 * @restart: brings the queues back after the QP failed
 * @running: the queues exist and @cqn is theirs
 * @link_down: the device reported the link down
 * @pdn: the kernel PD of the queues
 * @cqn: the CQ of every completion
 * @qpn: the WREN_QPT_RAW_ETH QP
 * @cq_db: the CQ's doorbell, an offset in @db
 * @sq_db: the send queue's
 * @rq_db: the receive queue's
 * @cq: the CQ ring
 * @cq_dma: its bus address
 * @cq_ci: its consumer index
 * @sq: the send ring
 * @sq_dma: its bus address
 * @sq_pi: its producer index
 * @sq_ci: the send entries completed
 * @rq: the receive ring
 * @rq_dma: its bus address
 * @rq_pi: its producer index
 * @rq_ci: the receive entries completed
 * @tx: per send slot, the frame in it
 * @rx: per receive slot, the buffer in it
 * @stats: the counters
 */
struct wren_eth {
	struct net_device *netdev;
	struct wren_dev *wdev;
	struct napi_struct napi;
	void __iomem *db;
	struct work_struct restart;
	bool running;
	bool link_down;
	u32 pdn;
	u32 cqn;
	u32 qpn;
	u32 cq_db;
	u32 sq_db;
	u32 rq_db;
	struct wren_cqe *cq;
	dma_addr_t cq_dma;
	u32 cq_ci;
	struct wren_sq_wqe *sq;
	dma_addr_t sq_dma;
	u16 sq_pi;
	u16 sq_ci;
	struct wren_rq_wqe *rq;
	dma_addr_t rq_dma;
	u16 rq_pi;
	u16 rq_ci;
	struct wren_eth_buf tx[BIT(WREN_ETH_SQ_LOG)];
	struct wren_eth_buf rx[BIT(WREN_ETH_RQ_LOG)];
	struct wren_eth_stats stats;
};

int wren_eth_add(struct wren_dev *wdev);
void wren_eth_del(struct wren_dev *wdev);
void wren_eth_fence(struct wren_dev *wdev);
void wren_eth_detach(struct wren_dev *wdev);
void wren_eth_attach(struct wren_dev *wdev);
bool wren_eth_cq_event(struct wren_dev *wdev, u32 cqn);
void wren_eth_link_change(struct wren_dev *wdev, bool up);
void wren_ethtool_set_ops(struct net_device *ndev);

#endif /* _WREN_ETH_H */
