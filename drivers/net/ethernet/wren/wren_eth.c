// SPDX-License-Identifier: GPL-2.0
/*
 * Wren network interface: IP over the adapter's port.
 *
 * The adapter's Ethernet function is one queue pair of type
 * WREN_QPT_RAW_ETH on a kernel PD, whose entries name buffers by their
 * bus address (WREN_LKEY_DMA): a send is one whole frame, a receive one
 * frame of the wire that is not the transport's.  One CQ serves both and
 * is polled by NAPI; the device resources exist while the interface is up.
 * The RDMA driver's GID table follows this interface's addresses, as a
 * RoCE device's follows its Ethernet interface's.
 */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "wren_dev.h"
#include "wren_eth.h"

static u32 wren_eth_frame_max(const struct wren_eth *eth)
{
	return WREN_ETH_FRAME_MAX(eth->wdev->caps.mtu);
}

/* Every counter is written by the poll only (or with it disabled). */
static void wren_eth_count(struct wren_eth *eth, u64 *counter, u64 n)
{
	u64_stats_update_begin(&eth->stats.syncp);
	*counter += n;
	u64_stats_update_end(&eth->stats.syncp);
}

static void wren_eth_db(struct wren_eth *eth, u32 offset, u32 value)
{
	writel(value, eth->db + offset);
}

/* Free send entries; the device takes them in order and completes each. */
static u32 wren_eth_tx_space(const struct wren_eth *eth)
{
	return BIT(WREN_ETH_SQ_LOG) - (u16)(eth->sq_pi - READ_ONCE(eth->sq_ci));
}

/* Give the device a buffer for the next frame, in the next receive slot. */
static int wren_eth_rx_post(struct wren_eth *eth)
{
	u32 slot = eth->rq_pi & (BIT(WREN_ETH_RQ_LOG) - 1);
	struct wren_eth_buf *b = &eth->rx[slot];
	struct device *dma = &eth->wdev->pdev->dev;
	struct wren_rq_wqe *w = &eth->rq[slot];
	u32 len = wren_eth_frame_max(eth);
	struct sk_buff *skb;

	skb = napi_alloc_skb(&eth->napi, len);
	if (!skb)
		return -ENOMEM;
	b->dma = dma_map_single(dma, skb->data, len, DMA_FROM_DEVICE);
	if (dma_mapping_error(dma, b->dma)) {
		dev_kfree_skb_any(skb);
		return -ENOMEM;
	}
	b->skb = skb;
	b->len = len;
	memset(w, 0, sizeof(*w));
	w->num_sge = 1;
	w->req_id = cpu_to_le16(slot);
	w->sge[0].addr = cpu_to_le64(b->dma);
	w->sge[0].length = cpu_to_le32(len);
	w->sge[0].lkey = cpu_to_le32(WREN_LKEY_DMA);
	eth->rq_pi++;
	return 0;
}

/* Post receives until the ring is full, then tell the device. */
static void wren_eth_rx_refill(struct wren_eth *eth)
{
	u16 pi = eth->rq_pi;

	while ((u16)(eth->rq_pi - eth->rq_ci) < BIT(WREN_ETH_RQ_LOG))
		if (wren_eth_rx_post(eth)) {
			wren_eth_count(eth, &eth->stats.rx_alloc_errors, 1);
			break;
		}
	if (pi != eth->rq_pi) {
		/* The entries before the producer index that names them. */
		dma_wmb();
		wren_eth_db(eth, eth->rq_db, eth->rq_pi);
	}
}

static void wren_eth_buf_free(struct wren_eth *eth, struct wren_eth_buf *b,
			      enum dma_data_direction dir)
{
	if (!b->skb)
		return;
	dma_unmap_single(&eth->wdev->pdev->dev, b->dma, b->len, dir);
	dev_kfree_skb_any(b->skb);
	b->skb = NULL;
}

/* A receive completion: its frame up the stack, or its error counted. */
static void wren_eth_rx_done(struct wren_eth *eth, const struct wren_cqe *c)
{
	u32 slot = eth->rq_ci & (BIT(WREN_ETH_RQ_LOG) - 1);
	struct wren_eth_buf *b = &eth->rx[slot];
	u32 len = le32_to_cpu(c->byte_len);
	struct sk_buff *skb = b->skb;

	/* Receives complete in ring order: anything else is the device's bug. */
	if (le16_to_cpu(c->wqe_index) != slot || !skb) {
		netdev_err_once(eth->netdev, "receive completion for slot %u, expected %u\n",
				le16_to_cpu(c->wqe_index), slot);
		wren_eth_count(eth, &eth->stats.rx_errors, 1);
		return;
	}
	eth->rq_ci++;
	if (c->status != WREN_CQE_SUCCESS || len < ETH_HLEN || len > b->len) {
		if (c->status == WREN_CQE_LOC_LEN_ERR)
			wren_eth_count(eth, &eth->stats.rx_length_errors, 1);
		else if (c->status != WREN_CQE_WR_FLUSH_ERR)
			wren_eth_count(eth, &eth->stats.rx_errors, 1);
		wren_eth_buf_free(eth, b, DMA_FROM_DEVICE);
		return;
	}
	dma_unmap_single(&eth->wdev->pdev->dev, b->dma, b->len, DMA_FROM_DEVICE);
	b->skb = NULL;
	skb_put(skb, len);
	skb->protocol = eth_type_trans(skb, eth->netdev);
	u64_stats_update_begin(&eth->stats.syncp);
	eth->stats.rx_packets++;
	eth->stats.rx_bytes += len;
	u64_stats_update_end(&eth->stats.syncp);
	napi_gro_receive(&eth->napi, skb);
}

/* A send completion: the frame's buffer goes back, in ring order. */
static void wren_eth_tx_done(struct wren_eth *eth, const struct wren_cqe *c)
{
	u32 slot = le16_to_cpu(c->wqe_index) & (BIT(WREN_ETH_SQ_LOG) - 1);
	struct wren_eth_buf *b = &eth->tx[slot];

	if (slot != (eth->sq_ci & (BIT(WREN_ETH_SQ_LOG) - 1)) || !b->skb) {
		netdev_err_once(eth->netdev, "send completion for slot %u, expected %lu\n",
				slot, eth->sq_ci & (BIT(WREN_ETH_SQ_LOG) - 1));
		wren_eth_count(eth, &eth->stats.tx_errors, 1);
		return;
	}
	if (c->status == WREN_CQE_SUCCESS) {
		u64_stats_update_begin(&eth->stats.syncp);
		eth->stats.tx_packets++;
		eth->stats.tx_bytes += b->len;
		u64_stats_update_end(&eth->stats.syncp);
	} else {
		/* Flushed frames were never sent: dropped, not failed. */
		wren_eth_count(eth, c->status == WREN_CQE_WR_FLUSH_ERR ?
			       &eth->stats.tx_dropped : &eth->stats.tx_errors, 1);
	}
	wren_eth_buf_free(eth, b, DMA_TO_DEVICE);
	/* Seen by wren_eth_xmit() before it decides the ring is full. */
	smp_store_release(&eth->sq_ci, eth->sq_ci + 1);
}

static bool wren_eth_cqe_ready(const struct wren_eth *eth)
{
	const struct wren_cqe *c = &eth->cq[eth->cq_ci & (BIT(WREN_ETH_CQ_LOG) - 1)];

	return wren_ring_ready(READ_ONCE(c->flags), WREN_CQE_F_PHASE,
			       eth->cq_ci, WREN_ETH_CQ_LOG);
}

static int wren_eth_poll(struct napi_struct *napi, int budget)
{
	struct wren_eth *eth = container_of(napi, struct wren_eth, napi);
	bool failed = false;
	int done = 0;

	while (done < budget && wren_eth_cqe_ready(eth)) {
		const struct wren_cqe *c;

		/* The entry's body after its phase says it is there. */
		dma_rmb();
		c = &eth->cq[eth->cq_ci & (BIT(WREN_ETH_CQ_LOG) - 1)];
		if (c->opcode == WREN_CQE_OP_RECV) {
			wren_eth_rx_done(eth, c);
			done++;
		} else {
			wren_eth_tx_done(eth, c);
		}
		failed |= c->status != WREN_CQE_SUCCESS &&
			  c->status != WREN_CQE_LOC_LEN_ERR;
		eth->cq_ci++;
	}
	wren_eth_db(eth, eth->cq_db, FIELD_PREP(WREN_CQ_DB_CI, eth->cq_ci));
	if (netif_queue_stopped(eth->netdev) && wren_eth_tx_space(eth))
		netif_wake_queue(eth->netdev);
	if (failed) {
		/* The QP is in ERR: start it again from a clean slate. */
		if (net_ratelimit())
			netdev_warn(eth->netdev, "the Ethernet queue failed; restarting it\n");
		napi_complete_done(napi, done);
		schedule_work(&eth->restart);
		return done;
	}
	wren_eth_rx_refill(eth);
	if (done < budget && napi_complete_done(napi, done)) {
		wren_eth_db(eth, eth->cq_db,
			    FIELD_PREP(WREN_CQ_DB_CI, eth->cq_ci) | WREN_CQ_DB_ARM);
		/* Arming does not report what was already there. */
		if (wren_eth_cqe_ready(eth))
			napi_schedule(napi);
	}
	return done;
}

/**
 * wren_eth_cq_event() - an armed CQ got a completion: is it the netdev's?
 * @wdev: the device
 * @cqn: the CQ
 *
 * Runs in interrupt context.
 *
 * Return: true if the CQ is the network interface's (its poll is
 * scheduled), false if it is someone else's.
 */
bool wren_eth_cq_event(struct wren_dev *wdev, u32 cqn)
{
	struct wren_eth *eth = wdev->eth;

	if (!eth || !READ_ONCE(eth->running) || cqn != eth->cqn)
		return false;
	napi_schedule_irqoff(&eth->napi);
	return true;
}

/**
 * wren_eth_link_change() - the device says the port's link changed
 * @wdev: the device
 * @up: the new state
 */
void wren_eth_link_change(struct wren_dev *wdev, bool up)
{
	struct wren_eth *eth = wdev->eth;

	if (!eth)
		return;
	WRITE_ONCE(eth->link_down, !up);
	if (!READ_ONCE(eth->running))
		return;
	if (up)
		netif_carrier_on(eth->netdev);
	else
		netif_carrier_off(eth->netdev);
}

static netdev_tx_t wren_eth_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	struct wren_eth *eth = netdev_priv(ndev);
	struct device *dma = &eth->wdev->pdev->dev;
	u32 slot = eth->sq_pi & (BIT(WREN_ETH_SQ_LOG) - 1);
	struct wren_eth_buf *b = &eth->tx[slot];
	struct wren_sq_wqe *w = &eth->sq[slot];

	if (skb->len > wren_eth_frame_max(eth) || skb_linearize(skb))
		goto drop;
	if (unlikely(!wren_eth_tx_space(eth))) {
		netif_stop_queue(ndev);
		return NETDEV_TX_BUSY;
	}
	b->dma = dma_map_single(dma, skb->data, skb->len, DMA_TO_DEVICE);
	if (dma_mapping_error(dma, b->dma))
		goto drop;
	b->skb = skb;
	b->len = skb->len;
	memset(w, 0, sizeof(*w));
	w->opcode = WREN_WQE_SEND;
	w->flags = WREN_WQE_F_SIGNALED;
	w->num_sge = 1;
	w->sge[0].addr = cpu_to_le64(b->dma);
	w->sge[0].length = cpu_to_le32(skb->len);
	w->sge[0].lkey = cpu_to_le32(WREN_LKEY_DMA);
	eth->sq_pi++;
	skb_tx_timestamp(skb);
	/* The entry before the doorbell that announces it. */
	dma_wmb();
	wren_eth_db(eth, eth->sq_db, eth->sq_pi);
	if (!wren_eth_tx_space(eth)) {
		netif_stop_queue(ndev);
		/* A completion may have made room since the test above. */
		smp_mb();
		if (wren_eth_tx_space(eth))
			netif_start_queue(ndev);
	}
	return NETDEV_TX_OK;

drop:
	dev_core_stats_tx_dropped_inc(ndev);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static void wren_eth_rings_free(struct wren_eth *eth)
{
	struct device *dma = &eth->wdev->pdev->dev;
	u32 i;

	for (i = 0; i < BIT(WREN_ETH_RQ_LOG); i++)
		wren_eth_buf_free(eth, &eth->rx[i], DMA_FROM_DEVICE);
	for (i = 0; i < BIT(WREN_ETH_SQ_LOG); i++)
		wren_eth_buf_free(eth, &eth->tx[i], DMA_TO_DEVICE);
	if (eth->cq)
		dma_free_coherent(dma, sizeof(*eth->cq) << WREN_ETH_CQ_LOG,
				  eth->cq, eth->cq_dma);
	if (eth->sq)
		dma_free_coherent(dma, sizeof(*eth->sq) << WREN_ETH_SQ_LOG,
				  eth->sq, eth->sq_dma);
	if (eth->rq)
		dma_free_coherent(dma, sizeof(*eth->rq) << WREN_ETH_RQ_LOG,
				  eth->rq, eth->rq_dma);
	eth->cq = NULL;
	eth->sq = NULL;
	eth->rq = NULL;
}

static int wren_eth_rings_alloc(struct wren_eth *eth)
{
	struct device *dma = &eth->wdev->pdev->dev;

	eth->cq = dma_alloc_coherent(dma, sizeof(*eth->cq) << WREN_ETH_CQ_LOG,
				     &eth->cq_dma, GFP_KERNEL);
	eth->sq = dma_alloc_coherent(dma, sizeof(*eth->sq) << WREN_ETH_SQ_LOG,
				     &eth->sq_dma, GFP_KERNEL);
	eth->rq = dma_alloc_coherent(dma, sizeof(*eth->rq) << WREN_ETH_RQ_LOG,
				     &eth->rq_dma, GFP_KERNEL);
	if (!eth->cq || !eth->sq || !eth->rq) {
		wren_eth_rings_free(eth);
		return -ENOMEM;
	}
	eth->cq_ci = 0;
	eth->sq_pi = 0;
	eth->sq_ci = 0;
	eth->rq_pi = 0;
	eth->rq_ci = 0;
	return 0;
}

/* The device's objects of the interface, from PD to a QP in RTS. */
static int wren_eth_queues_create(struct wren_eth *eth)
{
	struct wren_dev *wdev = eth->wdev;
	struct wren_cq_params cqp = {
		.log_depth = WREN_ETH_CQ_LOG,
		.db_page = WREN_DB_KERNEL_PAGE,
	};
	struct wren_qp_params qpp = {
		.db_page = WREN_DB_KERNEL_PAGE,
		.type = WREN_QPT_RAW_ETH,
		.sq_log_depth = WREN_ETH_SQ_LOG,
		.rq_log_depth = WREN_ETH_RQ_LOG,
	};
	struct wren_qp_attrs attrs = { .attr_mask = WREN_QP_ATTR_STATE };
	struct wren_qp_handles h;
	int err;

	err = wren_eth_rings_alloc(eth);
	if (err)
		return err;
	err = wren_cmd_alloc_pd(wdev, true, &eth->pdn);
	if (err)
		goto err_free_rings;
	cqp.base = eth->cq_dma;
	err = wren_cmd_create_cq(wdev, &cqp, &eth->cqn, &eth->cq_db);
	if (err)
		goto err_dealloc_pd;
	qpp.sq_base = eth->sq_dma;
	qpp.rq_base = eth->rq_dma;
	qpp.pdn = eth->pdn;
	qpp.send_cq = eth->cqn;
	qpp.recv_cq = eth->cqn;
	err = wren_cmd_create_qp(wdev, &qpp, &h);
	if (err)
		goto err_destroy_cq;
	eth->qpn = h.qpn;
	eth->sq_db = h.sq_db_offset;
	eth->rq_db = h.rq_db_offset;
	for (attrs.state = WREN_QPS_INIT; attrs.state <= WREN_QPS_RTS;
	     attrs.state++) {
		err = wren_cmd_modify_qp(wdev, eth->qpn, &attrs);
		if (err)
			goto err_destroy_qp;
	}
	return 0;

err_destroy_qp:
	wren_cmd_destroy_qp(wdev, eth->qpn);
err_destroy_cq:
	wren_cmd_destroy_cq(wdev, eth->cqn);
err_dealloc_pd:
	wren_cmd_dealloc_pd(wdev, eth->pdn);
err_free_rings:
	wren_eth_rings_free(eth);
	netdev_err(eth->netdev, "cannot create its queues: %d\n", err);
	return err;
}

/* After the QP is gone the device writes none of the buffers any more. */
static void wren_eth_queues_destroy(struct wren_eth *eth)
{
	struct wren_dev *wdev = eth->wdev;

	wren_cmd_destroy_qp(wdev, eth->qpn);
	wren_cmd_destroy_cq(wdev, eth->cqn);
	wren_cmd_dealloc_pd(wdev, eth->pdn);
	wren_eth_rings_free(eth);
}

static int wren_eth_open(struct net_device *ndev)
{
	struct wren_eth *eth = netdev_priv(ndev);
	int err;

	err = wren_eth_queues_create(eth);
	if (err)
		return err;
	napi_enable(&eth->napi);
	/* A first fill with the poll's allocator, in its context. */
	local_bh_disable();
	wren_eth_rx_refill(eth);
	local_bh_enable();
	WRITE_ONCE(eth->running, true);
	wren_eth_db(eth, eth->cq_db, WREN_CQ_DB_ARM);
	if (!READ_ONCE(eth->link_down))
		netif_carrier_on(ndev);
	netif_start_queue(ndev);
	return 0;
}

static int wren_eth_stop(struct net_device *ndev)
{
	struct wren_eth *eth = netdev_priv(ndev);

	/* Closed after an open that failed (a bring-up or a restart). */
	if (!eth->running)
		return 0;
	netif_stop_queue(ndev);
	netif_carrier_off(ndev);
	WRITE_ONCE(eth->running, false);
	napi_disable(&eth->napi);
	wren_eth_queues_destroy(eth);
	return 0;
}

/* After a failed queue: what a down and up would do. */
static void wren_eth_restart(struct work_struct *work)
{
	struct wren_eth *eth = container_of(work, struct wren_eth, restart);

	rtnl_lock();
	if (netif_running(eth->netdev) && netif_device_present(eth->netdev)) {
		wren_eth_stop(eth->netdev);
		if (wren_eth_open(eth->netdev))
			dev_close(eth->netdev);
	}
	rtnl_unlock();
}

static void wren_eth_get_stats64(struct net_device *ndev,
				 struct rtnl_link_stats64 *s)
{
	struct wren_eth *eth = netdev_priv(ndev);
	const struct wren_eth_stats *st = &eth->stats;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		s->rx_packets = st->rx_packets;
		s->rx_bytes = st->rx_bytes;
		s->tx_packets = st->tx_packets;
		s->tx_bytes = st->tx_bytes;
		s->tx_dropped = st->tx_dropped;
		s->tx_errors = st->tx_errors;
		s->rx_errors = st->rx_errors + st->rx_length_errors;
		s->rx_length_errors = st->rx_length_errors;
		s->rx_missed_errors = st->rx_alloc_errors;
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

static const struct net_device_ops wren_eth_netdev_ops = {
	.ndo_open = wren_eth_open,
	.ndo_stop = wren_eth_stop,
	.ndo_start_xmit = wren_eth_xmit,
	.ndo_get_stats64 = wren_eth_get_stats64,
	.ndo_validate_addr = eth_validate_addr,
};

/**
 * wren_eth_add() - register the port's network interface
 * @wdev: the device, with its event queues
 *
 * A device without the Ethernet function or without event queues (no
 * MSI-X) gets no interface; that is not an error.
 *
 * Return: 0 or a negative errno.
 */
int wren_eth_add(struct wren_dev *wdev)
{
	const u64 need = WREN_CAP_RAW_ETH | WREN_CAP_DMA_LKEY;
	struct net_device *ndev;
	struct wren_eth *eth;
	int err;

	if ((wdev->caps.caps & need) != need || !wdev->num_eqs) {
		dev_info(&wdev->pdev->dev, "no network interface: %s\n",
			 wdev->num_eqs ? "the device has no Ethernet function" :
					 "no event queues");
		return 0;
	}
	ndev = alloc_etherdev(sizeof(*eth));
	if (!ndev)
		return -ENOMEM;
	SET_NETDEV_DEV(ndev, &wdev->pdev->dev);
	eth = netdev_priv(ndev);
	eth->netdev = ndev;
	eth->wdev = wdev;
	u64_stats_init(&eth->stats.syncp);
	INIT_WORK(&eth->restart, wren_eth_restart);
	eth->db = pci_iomap_range(wdev->pdev, WREN_DB_BAR,
				  WREN_DB_KERNEL_PAGE * WREN_DB_PAGE_SIZE,
				  WREN_DB_PAGE_SIZE);
	if (!eth->db) {
		err = -ENOMEM;
		goto err_free;
	}
	eth_hw_addr_set(ndev, wdev->caps.mac_addr);
	ndev->netdev_ops = &wren_eth_netdev_ops;
	wren_ethtool_set_ops(ndev);
	ndev->min_mtu = ETH_MIN_MTU;
	ndev->max_mtu = wdev->caps.mtu;
	ndev->mtu = min_t(u32, ETH_DATA_LEN, wdev->caps.mtu);
	netif_napi_add(ndev, &eth->napi, wren_eth_poll);
	netif_carrier_off(ndev);
	err = register_netdev(ndev);
	if (err)
		goto err_napi;
	wdev->eth = eth;
	return 0;

err_napi:
	netif_napi_del(&eth->napi);
	pci_iounmap(wdev->pdev, eth->db);
err_free:
	free_netdev(ndev);
	dev_err(&wdev->pdev->dev, "cannot register the network interface: %d\n",
		err);
	return err;
}

/**
 * wren_eth_fence() - the device was fenced: stop handing it frames
 * @wdev: the device
 *
 * Any context.  The interface stays, detached, until the device is up
 * again (wren_eth_attach()) or removed.
 */
void wren_eth_fence(struct wren_dev *wdev)
{
	if (!wdev->eth)
		return;
	netif_carrier_off(wdev->eth->netdev);
	netif_device_detach(wdev->eth->netdev);
}

/**
 * wren_eth_detach() - give the device's queues back before it goes down
 * @wdev: the device
 *
 * The interface keeps its name, addresses and state; its queues are
 * destroyed, and created again by wren_eth_attach() if it is up.
 */
void wren_eth_detach(struct wren_dev *wdev)
{
	struct wren_eth *eth = wdev->eth;

	if (!eth)
		return;
	rtnl_lock();
	netif_device_detach(eth->netdev);
	if (netif_running(eth->netdev))
		wren_eth_stop(eth->netdev);
	rtnl_unlock();
	cancel_work_sync(&eth->restart);
}

/**
 * wren_eth_attach() - the device is up again: so is the interface
 * @wdev: the device
 *
 * An interface that was up gets its queues again; if they cannot be made
 * it is closed, with the reason logged.
 */
void wren_eth_attach(struct wren_dev *wdev)
{
	struct wren_eth *eth = wdev->eth;
	int err;

	if (!eth)
		return;
	rtnl_lock();
	err = netif_running(eth->netdev) ? wren_eth_open(eth->netdev) : 0;
	netif_device_attach(eth->netdev);
	if (err)
		dev_close(eth->netdev);
	rtnl_unlock();
}

/**
 * wren_eth_del() - unregister the port's network interface, if any
 * @wdev: the device
 */
void wren_eth_del(struct wren_dev *wdev)
{
	struct wren_eth *eth = wdev->eth;

	if (!eth)
		return;
	unregister_netdev(eth->netdev);
	cancel_work_sync(&eth->restart);
	wdev->eth = NULL;
	netif_napi_del(&eth->napi);
	pci_iounmap(wdev->pdev, eth->db);
	free_netdev(eth->netdev);
}
