/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ECMP: which of the K paths a frame takes.  Header-only so that the
 * self-test can predict the path of each frame it sends and check the
 * per-path counters exactly, and so that a harness can pick entropy
 * values that land on a given path.
 *
 * IPv4 frames hash the 5-tuple (source and destination address, protocol,
 * and for unfragmented UDP and TCP the two ports); the UDP source port is
 * Wren's path entropy, so a sender moves a flow to another path by
 * changing it.  Anything else hashes its Ethernet header, so ARP between
 * two guests also keeps to one path.
 */
#ifndef FABRIC_FLOW_H
#define FABRIC_FLOW_H

#include <stdint.h>

#include "rng.h"

static inline uint64_t flow_hash_v4(uint64_t salt, uint32_t sip,
				    uint32_t dip, uint8_t proto,
				    uint16_t sport, uint16_t dport)
{
	uint64_t h;

	h = mix64(salt ^ ((uint64_t)sip << 32 | dip));
	return mix64(h ^ ((uint64_t)proto << 32 | (uint64_t)sport << 16 |
			  dport));
}

/* @eth: the 14 bytes of the Ethernet header (fewer if the frame is short). */
static inline uint64_t flow_hash_l2(uint64_t salt, const uint8_t *eth,
				    unsigned int len)
{
	uint64_t h = mix64(salt ^ 0x4c32);	/* "L2": apart from IPv4's */
	unsigned int i;

	for (i = 0; i < len && i < 14; i++)
		h = mix64(h ^ eth[i]);
	return h;
}

/* A hash onto [0, n) without the bias of a modulo. */
static inline uint32_t flow_pick(uint64_t h, uint32_t n)
{
	return (uint32_t)(((h >> 32) * n) >> 32);
}

#endif /* FABRIC_FLOW_H */
