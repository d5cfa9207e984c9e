// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Messages, DATA headers and reassembly for the peer transports that
 * carry messages over one PSN space per flow (ndp.c, uet.c).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "peer.h"

void *peer_zalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		perror("netsim: peer");
		exit(2);
	}
	return p;
}

void *peer_ring_room(void *ring, uint32_t *head, uint32_t *tail,
		     uint32_t *cap, size_t size)
{
	uint32_t ncap = *cap ? 2 * *cap : 64;
	uint8_t *n;

	if (*tail - *head != *cap)
		return ring;
	n = peer_zalloc(ncap * size);
	for (uint32_t i = 0; i < *cap; i++)
		memcpy(n + i * size,
		       (uint8_t *)ring + (*head + i) % *cap * size, size);
	free(ring);
	*tail -= *head;
	*head = 0;
	*cap = ncap;
	return n;
}

void *peer_vec_room(void *v, uint32_t n, uint32_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? 2 * *cap : 16;
	v = realloc(v, *cap * size);
	if (!v) {
		perror("netsim: peer");
		exit(2);
	}
	return v;
}

uint32_t peer_msg_add(struct peer_msgq *q, const struct wren_tp_msg *msg,
		      uint64_t cookie, uint32_t first_psn, uint32_t mtu)
{
	struct peer_msg *m = peer_zalloc(sizeof(*m));

	m->cookie = cookie;
	m->m = *msg;
	m->first_psn = first_psn;
	m->npkts = msg->len ? (msg->len + mtu - 1) / mtu : 1;
	if (q->tail)
		q->tail->next = m;
	else
		q->head = m;
	q->tail = m;
	return m->npkts;
}

struct peer_msg *peer_msg_of(const struct peer_msgq *q, uint32_t psn)
{
	struct peer_msg *m;

	for (m = q->head; m; m = m->next)
		if (psn - m->first_psn < m->npkts)
			return m;
	return NULL;
}

void peer_msg_done(struct peer_msgq *q, uint32_t una, struct host *h,
		   const struct wren_tp_ulp_ops *ulp, struct wren_tp_stats *st)
{
	while (q->head &&
	       (int32_t)(q->head->first_psn + q->head->npkts - una) <= 0) {
		struct peer_msg *m = q->head;

		q->head = m->next;
		if (!q->head)
			q->tail = NULL;
		st->tx_msgs++;
		ulp->tx_done(h, m->cookie, WREN_TP_OK);
		free(m);
	}
}

void peer_msg_free(struct peer_msgq *q)
{
	struct peer_msg *m, *nm;

	for (m = q->head; m; m = nm) {
		nm = m->next;
		free(m);
	}
	q->head = q->tail = NULL;
}

void peer_hdr(struct wren_wire_hdr *wh, uint8_t type, uint8_t flags,
	      uint32_t src_ctx, uint32_t dst_ctx, uint32_t psn)
{
	memset(wh, 0, sizeof(*wh));
	wh->ver_type = FIELD_PREP(WREN_WIRE_VER_TYPE_VERSION,
				  WREN_WIRE_VERSION) |
		       FIELD_PREP(WREN_WIRE_VER_TYPE_TYPE, type);
	wh->flags = flags;
	wh->src_ctx = htonl(src_ctx);
	wh->dst_ctx = htonl(dst_ctx);
	wh->psn = htonl(psn);
}

size_t peer_data(uint8_t *f, const struct peer_msg *m, uint32_t psn,
		 uint32_t mtu, struct host *h,
		 const struct wren_tp_ulp_ops *ulp)
{
	struct wren_wire_data *dd = (void *)(f + WREN_WIRE_HDR +
					     sizeof(struct wren_wire_hdr));
	uint32_t off = (psn - m->first_psn) * mtu;
	uint32_t len = m->m.len - off < mtu ? m->m.len - off : mtu;

	if (len && ulp->tx_read(h, m->cookie, off,
				f + WREN_WIRE_DATA_HDRS_LEN, len) < 0) {
		fprintf(stderr, "netsim: peer: tx_read failed\n");
		exit(2);
	}
	memset(dd, 0, sizeof(*dd));
	dd->msn = htonl(m->first_psn);
	dd->msg_len = htonl(m->m.len);
	dd->offset = htonl(off);
	dd->opcode = m->m.opcode;
	dd->dst_qpn = htonl(m->m.dst_qpn);
	dd->src_qpn = htonl(m->m.src_qpn);
	dd->qkey = htonl(m->m.qkey);
	dd->imm = htonl(m->m.imm);
	return WREN_WIRE_DATA_HDRS_LEN + len;
}

void peer_rx_place(struct peer_rmsg **list, const uint8_t *f, size_t len,
		   struct host *h, const struct wren_tp_ulp_ops *ulp,
		   struct wren_tp_stats *st)
{
	const struct wren_wire_hdr *wh = (const void *)(f + WREN_WIRE_HDR);
	const struct wren_wire_data *dd = (const void *)(wh + 1);
	uint32_t msn = ntohl(dd->msn);
	uint32_t plen = (uint32_t)(len - WREN_WIRE_DATA_HDRS_LEN);
	struct peer_rmsg **pp, *x;

	for (pp = list; (x = *pp); pp = &x->next)
		if (x->msn == msn)
			break;
	if (!x) {
		struct wren_tp_peer peer = {
			.ipv4 = htonl(wren_wire_get32(f + WREN_WIRE_IP_SRC)),
		};
		struct wren_tp_msg m = {
			.len = ntohl(dd->msg_len), .opcode = dd->opcode,
			.dst_qpn = ntohl(dd->dst_qpn),
			.src_qpn = ntohl(dd->src_qpn),
			.qkey = ntohl(dd->qkey), .imm = ntohl(dd->imm),
		};

		memcpy(peer.mac, f + 6, 6);
		x = peer_zalloc(sizeof(*x));
		x->msn = msn;
		x->left = m.len;
		x->ok = ulp->rx_begin(h, &peer, &m, &x->cookie) == WREN_TP_OK;
		*pp = x;
	}
	if (x->ok && plen &&
	    ulp->rx_write(h, x->cookie, ntohl(dd->offset),
			  f + WREN_WIRE_DATA_HDRS_LEN, plen) < 0)
		x->ok = false;
	x->left -= plen < x->left ? plen : x->left;
	if (x->left)
		return;
	if (x->ok) {
		st->rx_msgs++;
		ulp->rx_done(h, x->cookie, WREN_TP_OK);
	}
	*pp = x->next;
	free(x);
}

void peer_rmsg_free(struct peer_rmsg *list)
{
	struct peer_rmsg *x, *nx;

	for (x = list; x; x = nx) {
		nx = x->next;
		free(x);
	}
}

uint16_t peer_sport(struct host *h)
{
	return (uint16_t)(0xc000 | (rng_next(&h->rng) >> 50));
}
