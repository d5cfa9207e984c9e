/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the message-oriented peer transports (ndp.c, uet.c) share: their
 * messages as ranges of PSNs on a flow, the DATA header that tells the
 * receiver where a packet's payload goes, reassembly of messages whose
 * packets arrive in any order, and per-packet entropy.
 */
#ifndef NETSIM_PEER_H
#define NETSIM_PEER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net.h"
#include "xport.h"

/* A message being sent: PSNs [first_psn, first_psn + npkts). */
struct peer_msg {
	struct peer_msg *next;
	uint64_t cookie;
	struct wren_tp_msg m;
	uint32_t first_psn, npkts;
};

/* A sender's messages, oldest first. */
struct peer_msgq {
	struct peer_msg *head, *tail;
};

/* A message being received, its packets in any order. */
struct peer_rmsg {
	struct peer_rmsg *next;
	uint32_t msn, left;
	uint64_t cookie;
	bool ok;			/* the upper layer took it */
};

void *peer_zalloc(size_t n);
/*
 * Room for one more in the ring @ring of *@cap elements of @size bytes
 * holding [*@head, *@tail): when full, a ring twice the size with the
 * same elements in order.  Returns the ring to use.
 */
void *peer_ring_room(void *ring, uint32_t *head, uint32_t *tail,
		     uint32_t *cap, size_t size);
/* Room for element @n of the array @v of *@cap elements of @size bytes. */
void *peer_vec_room(void *v, uint32_t n, uint32_t *cap, size_t size);

/* Queue @msg at PSN @first_psn in packets of @mtu; its packet count. */
uint32_t peer_msg_add(struct peer_msgq *q, const struct wren_tp_msg *msg,
		      uint64_t cookie, uint32_t first_psn, uint32_t mtu);
/* The message holding PSN @psn, or NULL. */
struct peer_msg *peer_msg_of(const struct peer_msgq *q, uint32_t psn);
/* Report every message wholly below @una done, oldest first. */
void peer_msg_done(struct peer_msgq *q, uint32_t una, struct host *h,
		   const struct wren_tp_ulp_ops *ulp, struct wren_tp_stats *st);
void peer_msg_free(struct peer_msgq *q);

/* The Wren header of a frame of the peers. */
void peer_hdr(struct wren_wire_hdr *wh, uint8_t type, uint8_t flags,
	      uint32_t src_ctx, uint32_t dst_ctx, uint32_t psn);
/*
 * Write the DATA header of PSN @psn of @m and its payload (read from
 * the upper layer) after the Wren header in frame @f: the frame's
 * length, headers included.
 */
size_t peer_data(uint8_t *f, const struct peer_msg *m, uint32_t psn,
		 uint32_t mtu, struct host *h,
		 const struct wren_tp_ulp_ops *ulp);
/* Place a DATA frame's payload, completing its message when whole. */
void peer_rx_place(struct peer_rmsg **list, const uint8_t *f, size_t len,
		   struct host *h, const struct wren_tp_ulp_ops *ulp,
		   struct wren_tp_stats *st);
void peer_rmsg_free(struct peer_rmsg *list);

/* A fresh entropy: a random UDP source port, which ECMP hashes. */
uint16_t peer_sport(struct host *h);

#endif /* NETSIM_PEER_H */
