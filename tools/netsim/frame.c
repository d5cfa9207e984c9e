// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The headers of a frame between two simulated hosts.
 */
#include "frame.h"

void frame_l2l4(uint8_t *f, size_t len, uint32_t src_ip, uint32_t dst_ip,
		uint16_t sport, uint16_t dport, uint8_t ecn)
{
	struct wren_wire_l2l4 h = {
		.saddr = src_ip, .daddr = dst_ip, .sport = sport,
		.dport = dport, .tos = ecn, .proto = WREN_WIRE_IPPROTO_UDP,
	};

	host_mac(dst_ip - host_ip(0), h.dst_mac);
	host_mac(src_ip - host_ip(0), h.src_mac);
	wren_wire_put_l2l4(f, len, &h);
}
