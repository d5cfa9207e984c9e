// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren transport: frames in and out (Documentation/wire-protocol.rst).
 *
 * tp_parse() is the only code of the transport that reads a received
 * frame's bytes; it checks every length and field before anyone else
 * looks, so the rest of the transport works on a decoded struct
 * tp_rx_pkt.  It is the libFuzzer target's entry point.  The Ethernet,
 * IPv4 and UDP headers are read and written by the helpers of
 * linux/wren/wren_wire.h, the same the fabric and the simulator use.
 */
#include <string.h>

#include "tp_internal.h"

/* Extension header length of each packet type; DATA adds its payload. */
static size_t ext_len(uint8_t type)
{
	switch (type) {
	case WREN_WIRE_DATA:
	case WREN_WIRE_UD:
		return sizeof(struct wren_wire_data);
	case WREN_WIRE_ACK:
		return sizeof(struct wren_wire_ack);
	case WREN_WIRE_NACK:
		return sizeof(struct wren_wire_nack);
	case WREN_WIRE_CONNECT:
	case WREN_WIRE_CONNECT_ACK:
		return sizeof(struct wren_wire_connect);
	case WREN_WIRE_GRANT:
		return sizeof(struct wren_wire_grant);
	case WREN_WIRE_CLOSE:
		return 0;
	default:
		return SIZE_MAX;
	}
}

/* The headers after the transport header of a DATA packet of @opcode. */
size_t tp_data_ext_len(uint8_t opcode)
{
	return sizeof(struct wren_wire_data) +
	       (wren_wire_op_has_rdma(opcode) ? sizeof(struct wren_wire_rdma) :
						0);
}

/* Write them at @x: the message header, then the RDMA one if it has one. */
void tp_put_data(uint8_t *x, const struct wren_tp_msg *m, uint32_t msn,
		 uint32_t offset, uint8_t msg_flags)
{
	uint8_t *r = x + sizeof(struct wren_wire_data);

	memset(x, 0, sizeof(struct wren_wire_data));
	wren_wire_put32(TP_FIELD(x, wren_wire_data, msn), msn);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, msg_len), m->len);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, offset), offset);
	*TP_FIELD(x, wren_wire_data, opcode) = m->opcode;
	*TP_FIELD(x, wren_wire_data, msg_flags) = msg_flags;
	wren_wire_put16(TP_FIELD(x, wren_wire_data, rsn), m->rsn);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, dst_qpn), m->dst_qpn);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, src_qpn), m->src_qpn);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, qkey), m->qkey);
	wren_wire_put32(TP_FIELD(x, wren_wire_data, imm), m->imm);
	if (!wren_wire_op_has_rdma(m->opcode))
		return;
	wren_wire_put64(TP_FIELD(r, wren_wire_rdma, addr), m->raddr);
	wren_wire_put32(TP_FIELD(r, wren_wire_rdma, rkey), m->rkey);
	wren_wire_put32(TP_FIELD(r, wren_wire_rdma, length), m->rlen);
}

/* The opcodes this transport knows, and what their fields may hold. */
bool tp_msg_valid(const struct wren_tp_msg *m)
{
	if (m->opcode < WREN_WIRE_OP_SEND ||
	    m->opcode > WREN_WIRE_OP_SEND_INV ||
	    m->len > WREN_WIRE_MAX_MSG_LEN || m->dst_qpn > WREN_WIRE_QPN_MASK ||
	    m->src_qpn > WREN_WIRE_QPN_MASK)
		return false;
	if (!wren_wire_op_has_rdma(m->opcode) &&
	    (m->raddr || m->rkey || m->rlen))
		return false;
	if (m->opcode == WREN_WIRE_OP_READ_REQ)
		return !m->len && m->rlen <= WREN_WIRE_MAX_MSG_LEN;
	/* An atomic carries its operands and asks for the old value. */
	if (wren_wire_op_is_read(m->opcode))
		return m->len == WREN_WIRE_ATOMIC_LEN &&
		       m->rlen == WREN_WIRE_ATOMIC_RESP_LEN;
	if (m->rlen)
		return false;
	if (m->rsn && !(m->flags & WREN_TP_MSG_CONNECTED))
		return false;
	/* A failed read says so with no data. */
	if (m->flags & WREN_TP_MSG_FAILED)
		return m->opcode == WREN_WIRE_OP_READ_RESP && !m->len;
	return true;
}

static int parse_data(const uint8_t *x, size_t len, struct tp_rx_pkt *p)
{
	const uint8_t *r = x + sizeof(struct wren_wire_data);
	size_t ext;
	uint32_t payload;

	p->data.msn = wren_wire_get32(TP_FIELD(x, wren_wire_data, msn));
	p->data.m.len = wren_wire_get32(TP_FIELD(x, wren_wire_data, msg_len));
	p->data.offset = wren_wire_get32(TP_FIELD(x, wren_wire_data, offset));
	p->data.m.opcode = *TP_FIELD(x, wren_wire_data, opcode);
	p->data.msg_flags = *TP_FIELD(x, wren_wire_data, msg_flags);
	p->data.m.flags =
		(p->data.msg_flags & WREN_WIRE_MSG_ORDERED ?
		 WREN_TP_MSG_ORDERED : 0) |
		(p->data.msg_flags & WREN_WIRE_MSG_SOLICITED ?
		 WREN_TP_MSG_SOLICITED : 0) |
		(p->data.msg_flags & WREN_WIRE_MSG_CONNECTED ?
		 WREN_TP_MSG_CONNECTED : 0);
	p->data.m.rsn = wren_wire_get16(TP_FIELD(x, wren_wire_data, rsn));
	p->data.m.dst_qpn = wren_wire_get32(TP_FIELD(x, wren_wire_data, dst_qpn)) &
			    WREN_WIRE_QPN_MASK;
	p->data.m.src_qpn = wren_wire_get32(TP_FIELD(x, wren_wire_data, src_qpn)) &
			    WREN_WIRE_QPN_MASK;
	p->data.m.qkey = wren_wire_get32(TP_FIELD(x, wren_wire_data, qkey));
	p->data.m.imm = wren_wire_get32(TP_FIELD(x, wren_wire_data, imm));
	if (p->data.msg_flags & WREN_WIRE_MSG_FAILED)
		p->data.m.flags |= WREN_TP_MSG_FAILED;
	ext = tp_data_ext_len(p->data.m.opcode);
	if (len < ext)
		return -EINVAL;
	if (wren_wire_op_has_rdma(p->data.m.opcode)) {
		p->data.m.raddr = wren_wire_get64(TP_FIELD(r, wren_wire_rdma, addr));
		p->data.m.rkey = wren_wire_get32(TP_FIELD(r, wren_wire_rdma, rkey));
		p->data.m.rlen = wren_wire_get32(TP_FIELD(r, wren_wire_rdma, length));
	}
	payload = len - ext;
	p->data.payload = x + ext;
	p->data.len = payload;

	if (!tp_msg_valid(&p->data.m))
		return -EINVAL;
	if (p->data.offset > p->data.m.len ||
	    payload > p->data.m.len - p->data.offset)
		return -EINVAL;
	if (p->data.msg_flags & WREN_WIRE_MSG_GRANT_REQ &&
	    (payload || p->data.offset))
		return -EINVAL;
	return 0;
}

static int parse_ext(const uint8_t *x, size_t len, struct tp_rx_pkt *p)
{
	switch (p->type) {
	case WREN_WIRE_DATA:
		return parse_data(x, len, p);
	case WREN_WIRE_UD:
		/* One packet, the whole message. */
		if (parse_data(x, len, p) || p->data.offset || p->data.msn ||
		    p->data.m.opcode > WREN_WIRE_OP_SEND_IMM ||
		    p->data.len != p->data.m.len ||
		    p->data.msg_flags & ~WREN_WIRE_MSG_SOLICITED)
			return -EINVAL;
		return 0;
	case WREN_WIRE_ACK: {
		p->ack.hold_ns = wren_wire_get32(TP_FIELD(x, wren_wire_ack, hold_ns));
		p->ack.ce_count = wren_wire_get16(TP_FIELD(x, wren_wire_ack, ce_count));
		p->ack.words = *TP_FIELD(x, wren_wire_ack, bitmap_words);
		p->ack.bitmap = x + sizeof(struct wren_wire_ack);
		if (p->ack.words > WREN_WIRE_ACK_MAX_WORDS ||
		    len != sizeof(struct wren_wire_ack) +
			   p->ack.words * sizeof(__be64))
			return -EINVAL;
		return 0;
	}
	case WREN_WIRE_NACK: {
		p->nack.reason = *TP_FIELD(x, wren_wire_nack, reason);
		p->nack.status = *TP_FIELD(x, wren_wire_nack, status);
		p->nack.msn = wren_wire_get32(TP_FIELD(x, wren_wire_nack, msn));
		if (len != sizeof(struct wren_wire_nack))
			return -EINVAL;
		if (p->nack.reason == WREN_WIRE_NACK_STATUS)
			return p->nack.status >= WREN_WIRE_ST_BAD_DEST_QP &&
			       p->nack.status <= WREN_WIRE_ST_REMOTE_ACCESS ?
			       0 : -EINVAL;
		return p->nack.reason == WREN_WIRE_NACK_TRIMMED ||
		       p->nack.reason == WREN_WIRE_NACK_UNKNOWN_CTX ? 0 : -EINVAL;
	}
	case WREN_WIRE_CONNECT:
	case WREN_WIRE_CONNECT_ACK: {
		p->conn.mode = *TP_FIELD(x, wren_wire_connect, mode);
		p->conn.window = wren_wire_get32(TP_FIELD(x, wren_wire_connect, window));
		if (len != sizeof(struct wren_wire_connect) || !p->conn.window ||
		    (p->conn.mode != WREN_WIRE_MODE_HANDSHAKE &&
		     p->conn.mode != WREN_WIRE_MODE_OPTIMISTIC))
			return -EINVAL;
		return 0;
	}
	case WREN_WIRE_GRANT: {
		p->grant.msn = wren_wire_get32(TP_FIELD(x, wren_wire_grant, msn));
		p->grant.granted = wren_wire_get32(TP_FIELD(x, wren_wire_grant, granted));
		return len == sizeof(struct wren_wire_grant) ? 0 : -EINVAL;
	}
	case WREN_WIRE_CLOSE:
		return len ? -EINVAL : 0;
	}
	return -EINVAL;
}

/**
 * tp_parse() - decode and check a received frame
 * @f: the frame, from its Ethernet header
 * @len: its length (Ethernet padding allowed beyond the IPv4 length)
 * @p: the decoded packet, valid when 0 is returned
 *
 * Addresses and ports are returned, not checked: they are the caller's.
 *
 * Return: 0, or -EINVAL for anything that is not a well-formed Wren v1
 * packet.
 */
int tp_parse(const uint8_t *f, size_t len, struct tp_rx_pkt *p)
{
	const uint8_t *w = f + WREN_WIRE_HDR;
	struct wren_wire_l2l4 h;
	size_t udp_len, rest;
	size_t ext;

	memset(p, 0, sizeof(*p));
	/* Wren sends IPv4 without options, unfragmented, to its UDP port. */
	if (len < WREN_WIRE_HDR + sizeof(struct wren_wire_hdr) ||
	    wren_wire_get_l2l4(f, len, &h) || h.l4 != WREN_WIRE_UDP ||
	    h.proto != WREN_WIRE_IPPROTO_UDP || !h.ports ||
	    wren_wire_get16(f + WREN_WIRE_IP_CSUM) !=
	    wren_wire_ipv4_csum(f + WREN_WIRE_IP))
		return -EINVAL;
	udp_len = wren_wire_get16(f + WREN_WIRE_UDP + 4);
	if (h.end > len || h.end != WREN_WIRE_UDP + udp_len ||
	    udp_len < WREN_WIRE_UDP_LEN + sizeof(struct wren_wire_hdr))
		return -EINVAL;

	memcpy(p->src_mac, h.src_mac, 6);
	p->ce = (h.tos & WREN_WIRE_ECN_MASK) == WREN_WIRE_ECN_CE;
	p->src_ip = htobe32(h.saddr);
	p->dst_ip = htobe32(h.daddr);
	p->sport = h.sport;
	p->dport = h.dport;

	if (FIELD_GET(WREN_WIRE_VER_TYPE_VERSION, *TP_FIELD(w, wren_wire_hdr, ver_type)) !=
	    WREN_WIRE_VERSION)
		return -EINVAL;
	p->type = FIELD_GET(WREN_WIRE_VER_TYPE_TYPE, *TP_FIELD(w, wren_wire_hdr, ver_type));
	p->flags = *TP_FIELD(w, wren_wire_hdr, flags);
	p->sf = *TP_FIELD(w, wren_wire_hdr, subflow) & 0x0f;
	p->src_ctx = wren_wire_get32(TP_FIELD(w, wren_wire_hdr, src_ctx));
	p->dst_ctx = wren_wire_get32(TP_FIELD(w, wren_wire_hdr, dst_ctx));
	p->epoch = wren_wire_get32(TP_FIELD(w, wren_wire_hdr, epoch));
	p->psn = wren_wire_get32(TP_FIELD(w, wren_wire_hdr, psn));
	p->bsn = wren_wire_get32(TP_FIELD(w, wren_wire_hdr, bsn));
	p->ts = wren_wire_get32(TP_FIELD(w, wren_wire_hdr, ts));
	p->mbase = wren_wire_get32(TP_FIELD(w, wren_wire_hdr, mbase));

	ext = ext_len(p->type);
	rest = udp_len - WREN_WIRE_UDP_LEN - sizeof(struct wren_wire_hdr);
	if (ext == SIZE_MAX || rest < ext)
		return -EINVAL;
	return parse_ext(w + sizeof(struct wren_wire_hdr), rest, p);
}

/* Where the extension header of a frame built by tp_build() goes. */
uint8_t *tp_ext(uint8_t *f)
{
	return f + WREN_WIRE_HDR + sizeof(struct wren_wire_hdr);
}

/**
 * tp_build() - write the headers of a frame
 * @tp: the transport (source addresses and port)
 * @f: the frame buffer
 * @h: what the headers say
 * @ext: length of the extension header the caller writes at tp_ext()
 * @payload: length of the payload the caller writes after it
 *
 * Return: the frame's length.
 */
size_t tp_build(const struct wren_tp *tp, uint8_t *f, const struct tp_tx_pkt *h,
		size_t ext, size_t payload)
{
	uint8_t *w = f + WREN_WIRE_HDR;
	size_t len = WREN_WIRE_HDR + sizeof(struct wren_wire_hdr) + ext +
		     payload;
	uint8_t prec = 0;
	struct wren_wire_l2l4 l = {
		.saddr = be32toh(tp->cfg.ipv4),
		.daddr = be32toh(h->dst_ip),
		.sport = h->sport,
		.dport = tp->cfg.udp_port,
		.tos = h->ect ? WREN_WIRE_ECN_ECT0 : 0,
		.proto = WREN_WIRE_IPPROTO_UDP,
	};

	/* Urgency in the precedence bits (cfg.prio_short), ECN below. */
	if (tp->cfg.prio_short)
		prec = h->type == WREN_WIRE_DATA ? h->prec :
		       h->type == WREN_WIRE_UD ? TP_PREC_SHORT : TP_PREC_CTRL;
	l.tos |= prec << 5;
	memcpy(l.dst_mac, h->dst_mac, 6);
	memcpy(l.src_mac, tp->cfg.mac, 6);
	wren_wire_put_l2l4(f, len, &l);
	*TP_FIELD(w, wren_wire_hdr, ver_type) =
		FIELD_PREP(WREN_WIRE_VER_TYPE_VERSION, WREN_WIRE_VERSION) |
		FIELD_PREP(WREN_WIRE_VER_TYPE_TYPE, h->type);
	*TP_FIELD(w, wren_wire_hdr, flags) = h->flags;
	*TP_FIELD(w, wren_wire_hdr, subflow) = h->sf;
	*TP_FIELD(w, wren_wire_hdr, rsvd0) = 0;
	wren_wire_put32(TP_FIELD(w, wren_wire_hdr, src_ctx), h->src_ctx);
	wren_wire_put32(TP_FIELD(w, wren_wire_hdr, dst_ctx), h->dst_ctx);
	wren_wire_put32(TP_FIELD(w, wren_wire_hdr, epoch), h->epoch);
	wren_wire_put32(TP_FIELD(w, wren_wire_hdr, psn), h->psn);
	wren_wire_put32(TP_FIELD(w, wren_wire_hdr, bsn), h->bsn);
	wren_wire_put32(TP_FIELD(w, wren_wire_hdr, ts), h->ts);
	wren_wire_put32(TP_FIELD(w, wren_wire_hdr, mbase), h->mbase);
	return len;
}
