// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: unreliable datagrams, for UD queue pairs.
 *
 * A datagram is one UD packet with the same message header as DATA, sent
 * without a context: nothing numbers, acknowledges or resends it, and its
 * target refuses it silently (counted) if its upper layer will not take
 * it.  It shares the wire with the contexts turn about.
 */
#include <string.h>

#include "tp_internal.h"

int wren_tp_send_ud(struct wren_tp *tp, const struct wren_tp_dest *dst,
		    const struct wren_tp_msg *m, uint64_t cookie)
{
	struct tp_ud *u;

	if ((m->opcode != WREN_WIRE_OP_SEND &&
	     m->opcode != WREN_WIRE_OP_SEND_IMM) ||
	    m->flags & ~WREN_TP_MSG_SOLICITED ||
	    m->dst_qpn > WREN_WIRE_QPN_MASK ||
	    m->src_qpn > WREN_WIRE_QPN_MASK || !dst->ipv4)
		return -EINVAL;
	if (m->len > tp->cfg.mtu)
		return -EMSGSIZE;
	if (tp->ud_tail - tp->ud_head == tp->ud_size)
		return -ENOBUFS;
	u = &tp->ud[tp->ud_tail++ & (tp->ud_size - 1)];
	u->ipv4 = dst->ipv4;
	memcpy(u->mac, dst->mac, sizeof(u->mac));
	u->m = *m;
	u->cookie = cookie;
	tp_kick(tp);
	return 0;
}

size_t tp_ud_pull(struct wren_tp *tp, uint8_t *f)
{
	struct tp_ud u;
	struct tp_tx_pkt pkt = {
		.dst_mac = u.mac, .ect = true, .type = WREN_WIRE_UD,
		.dst_ctx = WREN_WIRE_CTX_NONE, .ts = (uint32_t)tp_now(tp),
	};
	uint8_t *x = tp_ext(f);

	while (tp->ud_head != tp->ud_tail) {
		uint32_t h;

		u = tp->ud[tp->ud_head++ & (tp->ud_size - 1)];
		if (u.m.len &&
		    tp->ulp->tx_read(tp->ulp_opaque, u.cookie, 0,
				     x + sizeof(struct wren_wire_data),
				     u.m.len)) {
			tp_count_error(tp, u.m.src_qpn, WREN_TP_LOCAL_ERROR);
			tp->ulp->tx_done(tp->ulp_opaque, u.cookie,
					 WREN_TP_LOCAL_ERROR);
			continue;
		}
		/* One path per pair of queue pairs, as RoCE has for UD. */
		h = (u.m.src_qpn ^ u.m.dst_qpn << 8 ^ u.ipv4) * 0x9e3779b1U;
		pkt.dst_ip = u.ipv4;
		pkt.sport = WREN_WIRE_ENTROPY_BASE |
			    (h >> 16 & WREN_WIRE_ENTROPY_MASK);
		tp_put_data(x, &u.m, 0, 0, u.m.flags & WREN_TP_MSG_SOLICITED ?
				 WREN_WIRE_MSG_SOLICITED : 0);
		TP_COUNT_QP(tp, u.m.src_qpn, tx_ud, 1);
		TP_COUNT_QP(tp, u.m.src_qpn, tx_data_bytes, u.m.len);
		/* On the wire is as far as a datagram's sender can know. */
		tp->ulp->tx_done(tp->ulp_opaque, u.cookie, WREN_TP_OK);
		return tp_build(tp, f, &pkt, sizeof(struct wren_wire_data),
				u.m.len);
	}
	return 0;
}

void tp_ud_rx(struct wren_tp *tp, const struct tp_rx_pkt *p)
{
	struct wren_tp_peer peer = { .ipv4 = p->src_ip };
	struct wren_tp_msg m = p->data.m;
	enum wren_tp_status st;
	uint64_t cookie;

	if (p->data.len > tp->cfg.mtu) {
		TP_DROP(tp, invalid);
		return;
	}
	memcpy(peer.mac, p->src_mac, sizeof(peer.mac));
	m.flags |= WREN_TP_MSG_DATAGRAM;
	st = tp->ulp->rx_begin(tp->ulp_opaque, &peer, &m, &cookie);
	if (st != WREN_TP_OK) {
		TP_DROP(tp, refused);
		return;
	}
	if (m.len && tp->ulp->rx_write(tp->ulp_opaque, cookie, 0,
				       p->data.payload, m.len)) {
		tp->ulp->rx_done(tp->ulp_opaque, cookie,
				 WREN_TP_REMOTE_OP_ERROR);
		return;
	}
	TP_COUNT_QP(tp, m.dst_qpn, rx_ud, 1);
	TP_COUNT_QP(tp, m.dst_qpn, rx_data_bytes, m.len);
	tp->ulp->rx_done(tp->ulp_opaque, cookie, WREN_TP_OK);
}
