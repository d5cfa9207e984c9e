/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Wren wire protocol, version 1.
 *
 * What Wren adapters say to each other: Ethernet, IPv4, UDP to a fixed
 * destination port with the source port as path entropy, then the Wren
 * transport header and, for data, the message header and the payload.
 * Documentation/wire-protocol.rst is the prose form of this header; the
 * two change together.
 *
 * Unlike the device interface (wren_if.h), every multi-byte field here is
 * big-endian (network byte order), as in the IP and UDP headers around it.
 * Reserved fields are named rsvd*, are sent as zero and ignored on receipt.
 */
#ifndef _LINUX_WREN_WIRE_H
#define _LINUX_WREN_WIRE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/string.h>
#endif
#include <linux/types.h>

/* The UDP destination port of every Wren packet ("WR"). */
#define WREN_WIRE_UDP_PORT		0x5752
/*
 * Path entropy: the UDP source port.  Switches hash it with the rest of
 * the 5-tuple to pick among equal-cost paths, so each sub-flow of a
 * transport context uses its own value from the dynamic port range.
 */
#define WREN_WIRE_ENTROPY_BASE		0xc000
#define WREN_WIRE_ENTROPY_MASK		0x3fff

#define WREN_WIRE_VERSION		1

/* Packet types: wren_wire_hdr.ver_type[3:0]. */
enum wren_wire_type {
	WREN_WIRE_DATA			= 1,	/* a segment of a message */
	WREN_WIRE_ACK			= 2,	/* cumulative + selective ack */
	WREN_WIRE_NACK			= 3,	/* one packet not accepted */
	WREN_WIRE_CONNECT		= 4,	/* open a context (handshake) */
	WREN_WIRE_CONNECT_ACK		= 5,	/* session id for a CONNECT */
	WREN_WIRE_CLOSE			= 6,	/* the initiator is done */
	WREN_WIRE_GRANT			= 7,	/* permission to push bytes */
	WREN_WIRE_UD			= 8,	/* an unreliable datagram */
};

#define WREN_WIRE_VER_TYPE_VERSION	GENMASK(7, 4)
#define WREN_WIRE_VER_TYPE_TYPE		GENMASK(3, 0)

/* wren_wire_hdr.flags */
#define WREN_WIRE_F_ACK_REQ		BIT(0)	/* acknowledge without delay */
#define WREN_WIRE_F_SYN			BIT(1)	/* opens the context (optimistic) */
#define WREN_WIRE_F_RETX		BIT(2)	/* a retransmission */
#define WREN_WIRE_F_TRIMMED		BIT(3)	/* payload cut by a switch */

/* wren_wire_hdr.dst_ctx before the initiator knows the session id. */
#define WREN_WIRE_CTX_NONE		0xffffffffU

/* The sub-flow field is 4 bits wide: at most 16 paths per context. */
#define WREN_WIRE_MAX_SUBFLOWS		16

/**
 * struct wren_wire_hdr - the Wren transport header, first in every packet
 * @ver_type: version (WREN_WIRE_VERSION) in [7:4], &enum wren_wire_type
 *	in [3:0]
 * @flags: WREN_WIRE_F_*
 * @subflow: the sender's sub-flow (path) index of a DATA packet, echoed in
 *	the ACK or NACK it causes; [7:4] reserved
 * @rsvd0: reserved
 * @src_ctx: the sender's handle of the context: from the initiator, its
 *	transport context id; from the target, the session id
 * @dst_ctx: the receiver's handle: from the initiator, the session id the
 *	target gave it (or WREN_WIRE_CTX_NONE); from the target, the
 *	initiator's context id
 * @epoch: the incarnation of the initiator's context, in both directions;
 *	a packet of another incarnation is stale
 * @psn: DATA: its packet sequence number; ACK and NACK: the PSN of the
 *	packet that caused it; CONNECT: the first PSN; CLOSE: the next PSN
 *	the initiator would have used
 * @bsn: DATA and CONNECT: the initiator's base sequence number (every
 *	PSN below it is acknowledged or abandoned); ACK: the target's base
 *	sequence number (every PSN below it has been received)
 * @ts: DATA and CONNECT: the initiator's clock in ns, modulo 2^32; ACK and
 *	NACK: echo of the @ts of the packet named by @psn
 * @mbase: DATA: the initiator's oldest unfinished message sequence number
 *	(every message below it is complete or abandoned); else zero
 *
 * Fields a packet type gives no meaning to are sent as zero and ignored.
 */
struct wren_wire_hdr {
	__u8 ver_type;
	__u8 flags;
	__u8 subflow;
	__u8 rsvd0;
	__be32 src_ctx;
	__be32 dst_ctx;
	__be32 epoch;
	__be32 psn;
	__be32 bsn;
	__be32 ts;
	__be32 mbase;
};

/* Message operations: wren_wire_data.opcode. */
enum wren_wire_opcode {
	WREN_WIRE_OP_SEND		= 1,
	WREN_WIRE_OP_SEND_IMM		= 2,
	WREN_WIRE_OP_WRITE		= 3,	/* into the target's memory */
	WREN_WIRE_OP_WRITE_IMM		= 4,	/* ... and a completion there */
	WREN_WIRE_OP_READ_REQ		= 5,	/* asks for READ_RESP, no payload */
	WREN_WIRE_OP_READ_RESP		= 6,	/* the data a READ_REQ asked for */
	WREN_WIRE_OP_CMP_SWP		= 7,	/* atomic; answered by READ_RESP */
	WREN_WIRE_OP_FETCH_ADD		= 8,	/* atomic; answered by READ_RESP */
	WREN_WIRE_OP_SEND_INV		= 9,	/* a SEND; invalidates key @imm */
};

/* Opcodes whose DATA packets carry a &struct wren_wire_rdma. */
static inline int wren_wire_op_has_rdma(__u8 opcode)
{
	return opcode == WREN_WIRE_OP_WRITE ||
	       opcode == WREN_WIRE_OP_WRITE_IMM ||
	       opcode == WREN_WIRE_OP_READ_REQ ||
	       opcode == WREN_WIRE_OP_CMP_SWP ||
	       opcode == WREN_WIRE_OP_FETCH_ADD;
}

/* Opcodes a READ_RESP answers, with @length bytes. */
static inline int wren_wire_op_is_read(__u8 opcode)
{
	return opcode == WREN_WIRE_OP_READ_REQ ||
	       opcode == WREN_WIRE_OP_CMP_SWP ||
	       opcode == WREN_WIRE_OP_FETCH_ADD;
}

/*
 * An atomic's payload: the operand compared (CMP_SWP) or added
 * (FETCH_ADD), then the one written if the comparison holds (zero for
 * FETCH_ADD), big-endian; its READ_RESP carries the 8-byte value before
 * the operation, big-endian too.
 */
#define WREN_WIRE_ATOMIC_LEN		16
#define WREN_WIRE_ATOMIC_RESP_LEN	8

/* wren_wire_data.msg_flags */
#define WREN_WIRE_MSG_ORDERED		BIT(0)	/* deliver in MSN order */
#define WREN_WIRE_MSG_GRANT_REQ		BIT(1)	/* asks for grants, no payload */
#define WREN_WIRE_MSG_SOLICITED		BIT(2)	/* an event for the receiver */
#define WREN_WIRE_MSG_FAILED		BIT(3)	/* READ_RESP: the read failed */
#define WREN_WIRE_MSG_CONNECTED		BIT(4)	/* of an RC QP's stream */

/* A message is at most 2 GiB, as on InfiniBand: msg_len and offset fit. */
#define WREN_WIRE_MAX_MSG_LEN		BIT(31)

/**
 * struct wren_wire_data - follows the transport header in a DATA packet
 * @msn: message sequence number within the context
 * @msg_len: length of the whole message in bytes
 * @offset: where this packet's payload goes in the message
 * @opcode: &enum wren_wire_opcode
 * @msg_flags: WREN_WIRE_MSG_*
 * @rsn: with WREN_WIRE_MSG_CONNECTED, a SEND, SEND_IMM, SEND_INV or
 *	WRITE_IMM: how many of those its QP sent before it, modulo 2^16
 *	(the receive it consumes); else zero
 * @dst_qpn: destination queue pair, [23:0]; [31:24] reserved
 * @src_qpn: source queue pair, [23:0]; [31:24] reserved
 * @qkey: the Q_Key the destination queue pair must hold; with
 *	WREN_WIRE_MSG_CONNECTED instead the message's sequence number in its
 *	QP's stream, [23:0], starting from the QP's send PSN
 * @imm: immediate data of SEND_IMM and WRITE_IMM, opaque; READ_REQ and
 *	READ_RESP: the requester's tag for the read, echoed; SEND_INV: the
 *	memory key at the target that the message invalidates
 *
 * Every packet of a message carries this header, so any of them can be
 * placed on its own whatever the order of arrival.  An RC QP's messages
 * share the context to the peer adapter with every other QP's and are put
 * back in order by the receiving QP, by @qkey and @rsn
 * (Documentation/transport.rst, "Connected QPs").  A UD packet carries
 * it too, for a message of one packet (@msn and @offset zero); it has no
 * context, sequence or acknowledgment.
 */
struct wren_wire_data {
	__be32 msn;
	__be32 msg_len;
	__be32 offset;
	__u8 opcode;
	__u8 msg_flags;
	__be16 rsn;
	__be32 dst_qpn;
	__be32 src_qpn;
	__be32 qkey;
	__be32 imm;
};

#define WREN_WIRE_QPN_MASK		GENMASK(23, 0)

/**
 * struct wren_wire_rdma - follows &struct wren_wire_data in every DATA
 *	packet of a WRITE, WRITE_IMM, READ_REQ, CMP_SWP or FETCH_ADD message
 * @addr: the target's virtual address of the message's byte 0 (WRITE), or
 *	of the first byte to read (READ_REQ)
 * @rkey: the target's memory key
 * @length: READ_REQ: the bytes to read; CMP_SWP, FETCH_ADD: 8; else zero
 *
 * The READ_RESP that answers a READ_REQ is a message of its own from the
 * target back to the initiator, on the target's transport context to it,
 * with the READ_REQ's @imm and source and destination QPs swapped.
 */
struct wren_wire_rdma {
	__be64 addr;
	__be32 rkey;
	__be32 length;
};

/* At most 8 bitmap words: 512 PSNs beyond the base. */
#define WREN_WIRE_ACK_MAX_WORDS		8
/* The largest window, in packets, an ACK can describe. */
#define WREN_WIRE_MAX_WINDOW		(WREN_WIRE_ACK_MAX_WORDS * 64)

/**
 * struct wren_wire_ack - follows the transport header in an ACK
 * @hold_ns: how long the target held the packet named by @psn before it
 *	sent this ack, so that the initiator can subtract it from the RTT
 * @ce_count: DATA packets with ECN CE since the previous ACK, saturating
 * @bitmap_words: how many 64-bit words of @bitmap follow (at most
 *	WREN_WIRE_ACK_MAX_WORDS)
 * @rsvd0: reserved
 * @bitmap: selective ack: bit i (word i / 64, bit i % 64 counting from
 *	the least significant) set means PSN bsn + 1 + i has been received
 */
struct wren_wire_ack {
	__be32 hold_ns;
	__be16 ce_count;
	__u8 bitmap_words;
	__u8 rsvd0;
	__be64 bitmap[];
};

/* Why a packet was not accepted: wren_wire_nack.reason. */
enum wren_wire_nack_reason {
	WREN_WIRE_NACK_TRIMMED		= 1,	/* payload cut: resend now */
	WREN_WIRE_NACK_STATUS		= 2,	/* message refused: @status */
	WREN_WIRE_NACK_UNKNOWN_CTX	= 3,	/* no such session: reconnect */
};

/* Message outcomes carried in a NACK: wren_wire_nack.status. */
enum wren_wire_status {
	WREN_WIRE_ST_BAD_DEST_QP	= 1,	/* no such queue pair/Q_Key */
	WREN_WIRE_ST_RNR		= 2,	/* no receive buffer posted */
	WREN_WIRE_ST_REMOTE_OP		= 3,	/* the target failed to place it */
	WREN_WIRE_ST_TOO_LONG		= 4,	/* longer than the receive buffer */
	WREN_WIRE_ST_REMOTE_ACCESS	= 5,	/* memory key, rights or bounds */
};

/**
 * struct wren_wire_nack - follows the transport header in a NACK
 * @reason: &enum wren_wire_nack_reason
 * @status: &enum wren_wire_status with WREN_WIRE_NACK_STATUS, else zero
 * @rsvd0: reserved
 * @msn: the message the packet belongs to (WREN_WIRE_NACK_STATUS)
 */
struct wren_wire_nack {
	__u8 reason;
	__u8 status;
	__be16 rsvd0;
	__be32 msn;
};

/* Establishment modes: wren_wire_connect.mode. */
enum wren_wire_mode {
	WREN_WIRE_MODE_HANDSHAKE	= 1,	/* data after CONNECT_ACK */
	WREN_WIRE_MODE_OPTIMISTIC	= 2,	/* data with WREN_WIRE_F_SYN */
};

/**
 * struct wren_wire_connect - follows the header in CONNECT and CONNECT_ACK
 * @mode: &enum wren_wire_mode
 * @rsvd0: reserved
 * @window: CONNECT: the initiator's window in packets; CONNECT_ACK: the
 *	window the target accepts (never larger)
 */
struct wren_wire_connect {
	__u8 mode;
	__u8 rsvd0[3];
	__be32 window;
};

/**
 * struct wren_wire_grant - follows the transport header in a GRANT
 * @msn: the message granted
 * @granted: the initiator may send the message's bytes below this offset;
 *	grants are cumulative, so a lost one is covered by the next
 */
struct wren_wire_grant {
	__be32 msn;
	__be32 granted;
};

static_assert(sizeof(struct wren_wire_hdr) == 32);
static_assert(sizeof(struct wren_wire_data) == 32);
static_assert(sizeof(struct wren_wire_rdma) == 16);
static_assert(sizeof(struct wren_wire_ack) == 8);
static_assert(sizeof(struct wren_wire_nack) == 8);
static_assert(sizeof(struct wren_wire_connect) == 8);
static_assert(sizeof(struct wren_wire_grant) == 8);

/*
 * Frame layout: Ethernet II (14 bytes, EtherType IPv4), IPv4 without
 * options (20 bytes), UDP (8 bytes), then the Wren header.
 */
#define WREN_WIRE_ETH_LEN		14
#define WREN_WIRE_IPV4_LEN		20
#define WREN_WIRE_UDP_LEN		8
#define WREN_WIRE_L2L4_LEN		(WREN_WIRE_ETH_LEN + WREN_WIRE_IPV4_LEN + \
					 WREN_WIRE_UDP_LEN)
/* Bytes before the payload of a DATA packet (without wren_wire_rdma). */
#define WREN_WIRE_DATA_HDRS_LEN		(WREN_WIRE_L2L4_LEN + \
					 sizeof(struct wren_wire_hdr) + \
					 sizeof(struct wren_wire_data))
/* Per frame on an Ethernet wire beyond the frame: FCS, preamble, gap. */
#define WREN_WIRE_ETH_OVERHEAD		(4 + 8 + 12)

/* Where the fields the Wren frame format uses lie in a frame. */
#define WREN_WIRE_ETH_TYPE		12	/* EtherType */
#define WREN_WIRE_ETH_P_IPV4		0x0800
#define WREN_WIRE_IP			WREN_WIRE_ETH_LEN
#define WREN_WIRE_IP_TOS		(WREN_WIRE_IP + 1)	/* ECN in [1:0] */
#define WREN_WIRE_IP_LEN		(WREN_WIRE_IP + 2)
#define WREN_WIRE_IP_FRAG		(WREN_WIRE_IP + 6)
#define WREN_WIRE_IP_PROTO		(WREN_WIRE_IP + 9)
#define WREN_WIRE_IP_CSUM		(WREN_WIRE_IP + 10)
#define WREN_WIRE_IP_SRC		(WREN_WIRE_IP + 12)
#define WREN_WIRE_IP_DST		(WREN_WIRE_IP + 16)
#define WREN_WIRE_UDP			(WREN_WIRE_IP + WREN_WIRE_IPV4_LEN)
#define WREN_WIRE_HDR			WREN_WIRE_L2L4_LEN	/* wren_wire_hdr */

#define WREN_WIRE_IP_DF			0x4000
#define WREN_WIRE_IP_FRAG_MASK		0x3fff	/* MF and fragment offset */
#define WREN_WIRE_IPPROTO_TCP		6
#define WREN_WIRE_IPPROTO_UDP		17
#define WREN_WIRE_ECN_MASK		0x03
#define WREN_WIRE_ECN_ECT0		0x02
#define WREN_WIRE_ECN_CE		0x03

/*
 * The one reader and writer of frames, shared by the transport, the
 * fabric between the guests and the simulator.  Fields are big-endian
 * and, after the 14-byte Ethernet header, not naturally aligned: they are
 * read and written a byte at a time.
 */
static inline __u16 wren_wire_get16(const void *v)
{
	const __u8 *p = v;

	return (__u16)(p[0] << 8 | p[1]);
}

static inline __u32 wren_wire_get32(const void *v)
{
	const __u8 *p = v;

	return (__u32)p[0] << 24 | (__u32)p[1] << 16 | (__u32)p[2] << 8 | p[3];
}

static inline __u64 wren_wire_get64(const void *v)
{
	const __u8 *p = v;

	return (__u64)wren_wire_get32(p) << 32 | wren_wire_get32(p + 4);
}

static inline void wren_wire_put16(void *v, __u16 x)
{
	__u8 *p = v;

	p[0] = x >> 8;
	p[1] = x;
}

static inline void wren_wire_put32(void *v, __u32 x)
{
	__u8 *p = v;

	p[0] = x >> 24;
	p[1] = x >> 16;
	p[2] = x >> 8;
	p[3] = x;
}

static inline void wren_wire_put64(void *v, __u64 x)
{
	__u8 *p = v;

	wren_wire_put32(p, x >> 32);
	wren_wire_put32(p + 4, x);
}

/* The checksum of the 20-byte IPv4 header at @iph, its own field skipped. */
static inline __u16 wren_wire_ipv4_csum(const void *iph)
{
	const __u8 *h = iph;
	__u32 sum = 0;
	int i;

	for (i = 0; i < WREN_WIRE_IPV4_LEN; i += 2)
		if (i != WREN_WIRE_IP_CSUM - WREN_WIRE_IP)
			sum += wren_wire_get16(h + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (__u16)~sum;
}

/**
 * struct wren_wire_l2l4 - the Ethernet, IPv4 and UDP headers of a frame
 * @dst_mac: destination MAC address
 * @src_mac: source MAC address
 * @saddr: source IPv4 address, host byte order
 * @daddr: destination IPv4 address, host byte order
 * @sport: UDP (or TCP) source port: the path entropy of Wren packets
 * @dport: destination port
 * @tos: the IPv4 TOS byte, ECN in its low two bits
 * @proto: the IP protocol
 * @ports: the frame is a first (or only) fragment with its ports
 * @l4: the offset of the layer-4 header (past any IPv4 options)
 * @end: the offset of the end of the IPv4 packet (before Ethernet padding)
 */
struct wren_wire_l2l4 {
	__u8 dst_mac[6];
	__u8 src_mac[6];
	__u32 saddr;
	__u32 daddr;
	__u16 sport;
	__u16 dport;
	__u8 tos;
	__u8 proto;
	bool ports;
	__u32 l4;
	__u32 end;
};

/**
 * wren_wire_get_l2l4() - read the headers of an Ethernet frame
 * @f: the frame
 * @len: its length
 * @h: what they say
 *
 * Any IPv4 packet is read, with options; the ports only from a first
 * fragment that holds them, as a switch reads them.  Nothing beyond @len
 * is read.
 *
 * Return: 0 for an IPv4 frame, -1 for anything else.
 */
static inline int wren_wire_get_l2l4(const void *f, size_t len,
				     struct wren_wire_l2l4 *h)
{
	const __u8 *p = f, *ip = p + WREN_WIRE_IP;
	__u32 ihl, tot;

	if (len < WREN_WIRE_ETH_LEN + WREN_WIRE_IPV4_LEN ||
	    wren_wire_get16(p + WREN_WIRE_ETH_TYPE) != WREN_WIRE_ETH_P_IPV4 ||
	    ip[0] >> 4 != 4)
		return -1;
	ihl = (ip[0] & 0xf) * 4;
	tot = wren_wire_get16(ip + 2);
	if (ihl < WREN_WIRE_IPV4_LEN || WREN_WIRE_ETH_LEN + ihl > len)
		return -1;
	memcpy(h->dst_mac, p, 6);
	memcpy(h->src_mac, p + 6, 6);
	h->tos = ip[1];
	h->proto = ip[9];
	h->saddr = wren_wire_get32(ip + 12);
	h->daddr = wren_wire_get32(ip + 16);
	h->l4 = WREN_WIRE_ETH_LEN + ihl;
	h->end = WREN_WIRE_ETH_LEN + tot;
	h->ports = (h->proto == WREN_WIRE_IPPROTO_UDP ||
		    h->proto == WREN_WIRE_IPPROTO_TCP) &&
		   !(wren_wire_get16(ip + 6) & WREN_WIRE_IP_FRAG_MASK) &&
		   tot >= ihl + 4 && h->l4 + 4 <= len;
	h->sport = h->ports ? wren_wire_get16(p + h->l4) : 0;
	h->dport = h->ports ? wren_wire_get16(p + h->l4 + 2) : 0;
	return 0;
}

/**
 * wren_wire_put_l2l4() - write the headers of a Wren frame
 * @f: the frame
 * @len: its length in all
 * @h: what they say; @h->ports, @h->l4 and @h->end are not used
 *
 * Ethernet II, IPv4 without options (DF set, TTL 64, its checksum) and
 * UDP without a checksum, as RoCEv2 sends it.
 */
static inline void wren_wire_put_l2l4(void *f, size_t len,
				      const struct wren_wire_l2l4 *h)
{
	__u8 *p = f, *ip = p + WREN_WIRE_IP, *udp = p + WREN_WIRE_UDP;

	memcpy(p, h->dst_mac, 6);
	memcpy(p + 6, h->src_mac, 6);
	wren_wire_put16(p + WREN_WIRE_ETH_TYPE, WREN_WIRE_ETH_P_IPV4);
	ip[0] = 0x45;
	ip[1] = h->tos;
	wren_wire_put16(ip + 2, len - WREN_WIRE_ETH_LEN);
	wren_wire_put16(ip + 4, 0);
	wren_wire_put16(ip + 6, WREN_WIRE_IP_DF);
	ip[8] = 64;
	ip[9] = h->proto;
	wren_wire_put32(ip + 12, h->saddr);
	wren_wire_put32(ip + 16, h->daddr);
	wren_wire_put16(ip + 10, wren_wire_ipv4_csum(ip));
	wren_wire_put16(udp, h->sport);
	wren_wire_put16(udp + 2, h->dport);
	wren_wire_put16(udp + 4, len - WREN_WIRE_UDP);
	wren_wire_put16(udp + 6, 0);
}

/* The Wren packet type of a frame that is one, else 0. */
static inline __u8 wren_wire_type(const void *f, size_t len)
{
	const __u8 *p = f;

	if (len < WREN_WIRE_HDR + sizeof(struct wren_wire_hdr) ||
	    wren_wire_get16(p + WREN_WIRE_ETH_TYPE) != WREN_WIRE_ETH_P_IPV4 ||
	    p[WREN_WIRE_IP] != 0x45 ||
	    p[WREN_WIRE_IP_PROTO] != WREN_WIRE_IPPROTO_UDP ||
	    wren_wire_get16(p + WREN_WIRE_UDP + 2) != WREN_WIRE_UDP_PORT ||
	    FIELD_GET(WREN_WIRE_VER_TYPE_VERSION, p[WREN_WIRE_HDR]) !=
	    WREN_WIRE_VERSION)
		return 0;
	return FIELD_GET(WREN_WIRE_VER_TYPE_TYPE, p[WREN_WIRE_HDR]);
}

/*
 * Set CE in an ECN-capable frame's IPv4 header, as a marking switch does:
 * true if it did (the frame was ECT and not yet CE).
 */
static inline bool wren_wire_mark_ce(void *f)
{
	__u8 *p = f, tos = p[WREN_WIRE_IP_TOS];

	if (!(tos & WREN_WIRE_ECN_MASK) ||
	    (tos & WREN_WIRE_ECN_MASK) == WREN_WIRE_ECN_CE)
		return false;
	p[WREN_WIRE_IP_TOS] = tos | WREN_WIRE_ECN_CE;
	wren_wire_put16(p + WREN_WIRE_IP_CSUM,
			wren_wire_ipv4_csum(p + WREN_WIRE_IP));
	return true;
}

/*
 * Cut a DATA frame of @len bytes with payload down to its headers and mark
 * it WREN_WIRE_F_TRIMMED, as a trimming switch does; its new length, or
 * @len for a frame that cannot be trimmed.
 */
static inline size_t wren_wire_trim(void *f, size_t len)
{
	__u8 *p = f;
	size_t cut = WREN_WIRE_DATA_HDRS_LEN;

	if (len <= cut || wren_wire_type(f, len) != WREN_WIRE_DATA ||
	    p[WREN_WIRE_HDR + 1] & WREN_WIRE_F_TRIMMED)
		return len;
	p[WREN_WIRE_HDR + 1] |= WREN_WIRE_F_TRIMMED;
	wren_wire_put16(p + WREN_WIRE_IP_LEN, cut - WREN_WIRE_ETH_LEN);
	wren_wire_put16(p + WREN_WIRE_UDP + 4, cut - WREN_WIRE_UDP);
	wren_wire_put16(p + WREN_WIRE_IP_CSUM,
			wren_wire_ipv4_csum(p + WREN_WIRE_IP));
	return cut;
}

#endif /* _LINUX_WREN_WIRE_H */
