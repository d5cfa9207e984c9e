// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading a frame: only as far as forwarding and ECMP need, and never
 * past its end.  A frame the fabric cannot read as IPv4 is still
 * delivered (flooded): the fabric is a switch, not a filter, and ARP or
 * a guest's own test traffic must get through.
 */
#include <string.h>

#include "fabric.h"
#include "flow.h"
#include "wren_compat.h"
#include <linux/wren/wren_wire.h>

#define ETH_P_IPV4	0x0800
#define IPPROTO_UDP_	17
#define IPPROTO_TCP_	6

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* Limited broadcast, multicast (224/4) and "this host" (0/8). */
static bool ipv4_not_unicast(uint32_t ip)
{
	return ip == 0xffffffffU || (ip >> 28) == 0xe || (ip >> 24) == 0;
}

void frame_parse(const uint8_t *f, size_t len, struct frame_info *fi)
{
	const uint8_t *ip = f + WREN_WIRE_ETH_LEN, *l4;
	size_t ihl, tot;

	memset(fi, 0, sizeof(*fi));
	fi->flood = true;
	if (len < WREN_WIRE_ETH_LEN || rd16(f + 12) != ETH_P_IPV4 ||
	    len < WREN_WIRE_ETH_LEN + WREN_WIRE_IPV4_LEN ||
	    ip[0] >> 4 != 4)
		return;
	ihl = (size_t)(ip[0] & 0xf) * 4;
	tot = rd16(ip + 2);
	if (ihl < WREN_WIRE_IPV4_LEN || WREN_WIRE_ETH_LEN + ihl > len)
		return;
	fi->ipv4 = true;
	fi->sip = rd32(ip + 12);
	fi->dip = rd32(ip + 16);
	fi->proto = ip[9];
	fi->sip_unicast = !ipv4_not_unicast(fi->sip);
	/* Ethernet group bit: broadcast and multicast go everywhere. */
	fi->flood = (f[0] & 1) || ipv4_not_unicast(fi->dip);

	/* Ports only from a first fragment, as a hardware switch does. */
	if ((fi->proto != IPPROTO_UDP_ && fi->proto != IPPROTO_TCP_) ||
	    (rd16(ip + 6) & 0x3fff) || tot < ihl + 4 ||
	    WREN_WIRE_ETH_LEN + ihl + 4 > len)
		return;
	l4 = ip + ihl;
	fi->sport = rd16(l4);
	fi->dport = rd16(l4 + 2);
	fi->wren = fi->proto == IPPROTO_UDP_ &&
		   fi->dport == WREN_WIRE_UDP_PORT;
}

uint32_t frame_path(const struct frame_info *fi, const uint8_t *f,
		    size_t len, uint64_t salt, uint32_t npaths)
{
	uint64_t h;

	if (npaths <= 1)
		return 0;
	if (fi->ipv4)
		h = flow_hash_v4(salt, fi->sip, fi->dip, fi->proto,
				 fi->sport, fi->dport);
	else
		h = flow_hash_l2(salt, f, (unsigned int)len);
	return flow_pick(h, npaths);
}
