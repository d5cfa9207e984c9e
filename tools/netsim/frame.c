// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Header rewriting done by the simulated switches.  The IPv4 checksum is
 * recomputed rather than patched incrementally: it is 20 bytes, and the
 * transports under test may check it.
 */
#include "frame.h"

uint16_t ip_csum(const uint8_t *iph)
{
	uint32_t sum = 0;
	int i;

	for (i = 0; i < WREN_WIRE_IPV4_LEN; i += 2)
		if (i != 10)
			sum += rd16(iph + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void frame_l2l4(uint8_t *f, size_t len, uint32_t src_ip, uint32_t dst_ip,
		uint16_t sport, uint16_t dport, uint8_t ecn)
{
	uint8_t *ip = f + FR_IP, *udp = f + FR_UDP;

	f[0] = 0x02;
	f[1] = 0x00;
	wr32(f + 2, dst_ip);
	f[6] = 0x02;
	f[7] = 0x00;
	wr32(f + 8, src_ip);
	wr16(f + 12, 0x0800);
	ip[0] = 0x45;
	ip[1] = ecn;
	wr16(ip + 2, (uint16_t)(len - WREN_WIRE_ETH_LEN));
	wr16(ip + 4, 0);
	wr16(ip + 6, 0x4000);		/* DF */
	ip[8] = 64;
	ip[9] = 17;
	wr32(ip + 12, src_ip);
	wr32(ip + 16, dst_ip);
	wr16(ip + 10, ip_csum(ip));
	wr16(udp + 0, sport);
	wr16(udp + 2, dport);
	wr16(udp + 4, (uint16_t)(len - FR_UDP));
	wr16(udp + 6, 0);		/* no UDP checksum, as RoCEv2 */
}

bool frame_mark_ce(uint8_t *f)
{
	uint8_t tos = f[FR_TOS];

	if (!(tos & ECN_MASK) || (tos & ECN_MASK) == ECN_CE)
		return false;
	f[FR_TOS] = tos | ECN_CE;
	wr16(f + FR_IPCSUM, ip_csum(f + FR_IP));
	return true;
}

bool frame_trimmable(const uint8_t *f, size_t len)
{
	const struct wren_wire_hdr *h = (const void *)(f + FR_L4);

	return len > WREN_WIRE_DATA_HDRS_LEN &&
	       rd16(f + FR_DPORT) == WREN_WIRE_UDP_PORT &&
	       FIELD_GET(WREN_WIRE_VER_TYPE_TYPE, h->ver_type) ==
	       WREN_WIRE_DATA &&
	       !(h->flags & WREN_WIRE_F_TRIMMED);
}

size_t frame_trim(uint8_t *f)
{
	struct wren_wire_hdr *h = (void *)(f + FR_L4);
	size_t len = WREN_WIRE_DATA_HDRS_LEN;

	h->flags |= WREN_WIRE_F_TRIMMED;
	wr16(f + FR_IPLEN, (uint16_t)(len - WREN_WIRE_ETH_LEN));
	wr16(f + FR_UDPLEN, (uint16_t)(len - FR_UDP));
	wr16(f + FR_IPCSUM, ip_csum(f + FR_IP));
	return len;
}
