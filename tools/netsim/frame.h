/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Ethernet II + IPv4 + UDP framing as the switches see it: where the
 * addresses and ports are, ECN, and cutting a Wren DATA packet down to its
 * headers.  Offsets are fixed because Wren never sends IPv4 options.
 */
#ifndef NETSIM_FRAME_H
#define NETSIM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wren_compat.h"
#include <linux/wren/wren_wire.h>

#define FR_IP		WREN_WIRE_ETH_LEN
#define FR_TOS		(FR_IP + 1)
#define FR_IPLEN	(FR_IP + 2)
#define FR_IPCSUM	(FR_IP + 10)
#define FR_SRCIP	(FR_IP + 12)
#define FR_DSTIP	(FR_IP + 16)
#define FR_UDP		(FR_IP + WREN_WIRE_IPV4_LEN)
#define FR_SPORT	(FR_UDP + 0)
#define FR_DPORT	(FR_UDP + 2)
#define FR_UDPLEN	(FR_UDP + 4)
#define FR_L4		WREN_WIRE_L2L4_LEN

#define ECN_MASK	0x3
#define ECN_ECT0	0x2
#define ECN_CE		0x3

/* The go-back-N baseline's UDP port: RoCEv2's, so no switch trims it. */
#define GBN_UDP_PORT	4791

static inline uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void wr32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* Host-order IPv4 address of host @id (10.0.0.0/8 plus one). */
static inline uint32_t host_ip(uint32_t id)
{
	return 0x0a000001u + id;
}

static inline void host_mac(uint32_t id, uint8_t mac[6])
{
	uint32_t ip = host_ip(id);

	mac[0] = 0x02;
	mac[1] = 0x00;
	mac[2] = ip >> 24;
	mac[3] = ip >> 16;
	mac[4] = ip >> 8;
	mac[5] = ip;
}

uint16_t ip_csum(const uint8_t *iph);

/*
 * Write Ethernet, IPv4 and UDP headers for a frame of @len bytes in all.
 * Addresses are host order; @ecn goes into the TOS byte.
 */
void frame_l2l4(uint8_t *f, size_t len, uint32_t src_ip, uint32_t dst_ip,
		uint16_t sport, uint16_t dport, uint8_t ecn);

/* Set CE if the packet is ECN-capable; true if it did. */
bool frame_mark_ce(uint8_t *f);

/* A Wren DATA packet with payload, which a trimming switch may cut. */
bool frame_trimmable(const uint8_t *f, size_t len);

/* Cut a trimmable frame to its headers; returns the new length. */
size_t frame_trim(uint8_t *f);

#endif /* NETSIM_FRAME_H */
