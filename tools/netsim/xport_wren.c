// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The real transport (the library of device/transport) as a netsim transport.
 * Configuration comes from the scenario's tp.* keys; the address, MAC
 * and port are the host's.
 */
#include <arpa/inet.h>
#include <stdio.h>

#include "net.h"
#include "xport.h"

static void *w_create(struct net *n, struct host *h,
		      const struct wren_tp_ulp_ops *ulp)
{
	struct wren_tp_config cfg = h->sender ? n->cfg->tp : n->cfg->rxtp;

	cfg.ipv4 = htonl(h->ipv4);
	host_mac(h->id, cfg.mac);
	cfg.udp_port = WREN_WIRE_UDP_PORT;
	cfg.mtu = n->cfg->mtu;
	return wren_tp_create(&cfg, &host_env_ops, h, ulp, h);
}

static void w_destroy(void *tp)
{
	wren_tp_destroy(tp);
}

static int w_send(void *tp, const struct wren_tp_dest *dst,
		  const struct wren_tp_msg *msg, uint64_t cookie)
{
	return wren_tp_send(tp, dst, msg, cookie);
}

static size_t w_tx_pull(void *tp, void *frame, size_t cap)
{
	return wren_tp_tx_pull(tp, frame, cap);
}

static void w_rx(void *tp, const void *frame, size_t len)
{
	wren_tp_rx(tp, frame, len);
}

static void w_stats(const void *tp, struct wren_tp_stats *st)
{
	wren_tp_get_stats(tp, st);
}

static size_t w_ctx_memory(const void *tp)
{
	return wren_tp_ctx_memory(tp);
}

static size_t w_peer_memory(const void *tp, uint32_t ipv4)
{
	return wren_tp_peer_memory(tp, htonl(ipv4));
}

static size_t w_frame_max(const struct net *n)
{
	struct wren_tp_config cfg = n->cfg->tp;

	cfg.mtu = n->cfg->mtu;
	return wren_tp_frame_max(&cfg);
}

const struct xport_ops xport_wren = {
	.name = "wren",
	.create = w_create,
	.destroy = w_destroy,
	.send = w_send,
	.tx_pull = w_tx_pull,
	.rx = w_rx,
	.stats = w_stats,
	.ctx_memory = w_ctx_memory,
	.peer_memory = w_peer_memory,
	.frame_max = w_frame_max,
};
