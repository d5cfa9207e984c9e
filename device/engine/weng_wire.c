// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the adapter's wire.  A transport (device/transport), if the
 * host gives the engine one (an env with host.tx_kick and host.random); a
 * host without one has no data path.  The Ethernet function (weng_eth.c)
 * shares the wire with it.  Frames go out when the host pulls
 * them and come in when the host hands them over; after the transport's
 * receive path, which may not call the transport itself, the engine takes
 * its own next step (weng_read_flush()).
 */
#include <string.h>

#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

int weng_wire_start(struct weng *e)
{
	struct wren_tp_config tc;

	if (!e->ops->host.tx_kick || !e->ops->host.random)
		return 0;
	wren_tp_config_defaults(&tc);
	tc.ipv4 = e->cfg.ipv4;
	memcpy(tc.mac, e->cfg.mac, sizeof(tc.mac));
	tc.mtu = e->cfg.mtu;
	tc.max_msgs = 4 * e->cfg.max_qp_depth;
	tc.max_ctx = e->cfg.tc_cache;
	if (e->cfg.tc_rx_cache)
		tc.max_rx_ctx = e->cfg.tc_rx_cache;
	/*
	 * The defaults suit a data centre; an emulated host (QEMU under TCG)
	 * answers a thousand times slower and needs every time stretched.
	 */
	if (e->cfg.time_scale > 1) {
		uint64_t k = e->cfg.time_scale;

		tc.init_rto_ns *= k;
		tc.min_rto_ns *= k;
		tc.max_rto_ns *= k;
		tc.ack_delay_ns *= k;
		tc.cc_target_ns *= k;
		tc.idle_ns *= k;
		tc.mpl_ns *= k;
	}
	/*
	 * A responder gives an answer up after max_retries timeouts of at
	 * most max_rto each; a requester that heard nothing for twice that
	 * stops waiting.
	 */
	e->read_timeout_ns = 2ULL * (tc.max_retries + 1) * tc.max_rto_ns;
	e->tp = wren_tp_create(&tc, &e->ops->host, e->opaque, &weng_ulp_ops,
			       e);
	if (!e->tp)
		return -1;
	/* Per QP as well as in total (weng_counter.c). */
	wren_tp_set_accounts(e->tp, e->tp_acct, e->acct_n);
	return 0;
}

void weng_wire_stop(struct weng *e)
{
	/*
	 * What a dying transport counts (messages it flushes) is no QP's:
	 * the accounts were cleared with the objects, and its totals go.
	 */
	if (e->tp)
		wren_tp_set_accounts(e->tp, NULL, 0);
	wren_tp_destroy(e->tp);
	e->tp = NULL;
	e->tc_base = 0;
}

/*
 * A frame to the adapter's own address never reaches the wire: like a
 * NIC's internal switch, the adapter hands it to its own receive side,
 * so QPs of one adapter talk to each other with or without a network.
 */
static bool to_self(const struct weng *e, const uint8_t *frame, size_t len)
{
	return len >= WREN_WIRE_IP_DST + 4 &&
	       wren_wire_get32(frame + WREN_WIRE_IP_DST) ==
	       be32toh(e->cfg.ipv4);
}

/*
 * Frames to itself count against the host's transmit budget as frames on
 * the wire do: a pull hands at most WENG_SELF_PER_PULL of them to the
 * receive side, then asks the host to pull again later (tx_kick) and
 * returns nothing for now.  Loopback traffic, which answers itself, would
 * otherwise keep one pull, and the host's thread, busy for as long as a
 * user keeps posting.
 */
#define WENG_SELF_PER_PULL	8

static size_t tp_pull(struct weng *e, void *frame, size_t cap)
{
	unsigned int self = 0;
	size_t len;

	while ((len = wren_tp_tx_pull(e->tp, frame, cap)) &&
	       to_self(e, frame, len)) {
		wren_tp_rx(e->tp, frame, len);
		weng_read_flush(e);
		if (++self == WENG_SELF_PER_PULL) {
			e->stats.self_yields++;
			e->ops->host.tx_kick(e->opaque);
			return 0;
		}
	}
	return len;
}

/*
 * The transport and the Ethernet function take turns at the wire, so
 * neither starves the other however much it has to send.
 */
static size_t wire_pull(struct weng *e, void *frame, size_t cap)
{
	size_t len = 0;

	e->eth_turn = !e->eth_turn;
	if (e->eth_turn)
		len = weng_eth_tx_pull(e, frame, cap);
	if (!len)
		len = tp_pull(e, frame, cap);
	if (!len && !e->eth_turn)
		len = weng_eth_tx_pull(e, frame, cap);
	return len;
}

/*
 * With the link-down fault the port's frames are lost on the way out, as
 * on a pulled cable: the transport's retransmissions and the Ethernet
 * function's counters see it as loss.  Loopback, inside the adapter,
 * goes on.
 */
size_t weng_tx_pull(struct weng *e, void *frame, size_t cap)
{
	size_t len;

	if (!e->tp)
		return 0;
	while ((len = wire_pull(e, frame, cap)) && e->fault.link_down) {
		e->fault.stats.link_tx_dropped++;
		weng_fault_report(e, WENG_FLT_LINK_DROP, len, 1);
	}
	return len;
}

void weng_rx_frame(struct weng *e, const void *frame, size_t len)
{
	if (!e->tp || !weng_enabled(e))
		return;
	if (e->fault.link_down) {
		e->fault.stats.link_rx_dropped++;
		weng_fault_report(e, WENG_FLT_LINK_DROP, len, 0);
		return;
	}
	if (weng_eth_takes(e, frame, len)) {
		weng_eth_rx(e, frame, len);
		return;
	}
	wren_tp_rx(e->tp, frame, len);
	/* Reads whose requests just completed get their answers. */
	weng_read_flush(e);
}
