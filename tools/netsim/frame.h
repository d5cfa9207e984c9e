/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The simulator's addresses, and the frame helpers it builds on: the
 * frame reader and writer of linux/wren/wren_wire.h, the one the
 * transport and the fabric use too.
 */
#ifndef NETSIM_FRAME_H
#define NETSIM_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wren_compat.h"
#include <linux/wren/wren_wire.h>

/* The go-back-N baseline's UDP port: RoCEv2's, so no switch trims it. */
#define GBN_UDP_PORT	4791

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

/*
 * Write Ethernet, IPv4 and UDP headers for a frame of @len bytes in all
 * between two simulated hosts.  Addresses are host order; @ecn goes into
 * the TOS byte.
 */
void frame_l2l4(uint8_t *f, size_t len, uint32_t src_ip, uint32_t dst_ip,
		uint16_t sport, uint16_t dport, uint8_t ecn);

#endif /* NETSIM_FRAME_H */
