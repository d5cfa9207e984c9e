// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Reading a frame: only as far as forwarding and ECMP need, and never
 * past its end, with the frame reader of linux/wren/wren_wire.h.  A frame
 * the fabric cannot read as IPv4 is still delivered (flooded): the fabric
 * is a switch, not a filter, and ARP or a guest's own test traffic must
 * get through.
 */
#include <string.h>

#include "fabric.h"
#include "flow.h"
#include "wren_compat.h"
#include <linux/wren/wren_wire.h>

/* Limited broadcast, multicast (224/4) and "this host" (0/8). */
static bool ipv4_not_unicast(uint32_t ip)
{
	return ip == 0xffffffffU || (ip >> 28) == 0xe || (ip >> 24) == 0;
}

void frame_parse(const uint8_t *f, size_t len, struct frame_info *fi)
{
	struct wren_wire_l2l4 h;

	memset(fi, 0, sizeof(*fi));
	fi->flood = true;
	if (wren_wire_get_l2l4(f, len, &h))
		return;
	fi->ipv4 = true;
	fi->sip = h.saddr;
	fi->dip = h.daddr;
	fi->proto = h.proto;
	fi->sip_unicast = !ipv4_not_unicast(fi->sip);
	/* Ethernet group bit: broadcast and multicast go everywhere. */
	fi->flood = (h.dst_mac[0] & 1) || ipv4_not_unicast(fi->dip);
	/* Ports only from a first fragment, as a hardware switch does. */
	if (!h.ports)
		return;
	fi->sport = h.sport;
	fi->dport = h.dport;
	fi->wren = fi->proto == WREN_WIRE_IPPROTO_UDP &&
		   fi->dport == WREN_WIRE_UDP_PORT;
	if (!fi->wren)
		return;
	fi->wren_type = wren_wire_type(f, len);
	fi->wren_retx = fi->wren_type == WREN_WIRE_DATA &&
			(f[WREN_WIRE_HDR + 1] & WREN_WIRE_F_RETX);
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
