// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Wren engine: the Ethernet function, one WREN_QPT_RAW_ETH QP on a kernel
 * PD that carries the frames of the host's network interface.
 *
 * A frame the wire brings that is not for the Wren UDP port, and is for
 * this adapter's MAC or a group address, goes into the QP's next receive
 * at once: no message, no transport, one completion.  Its sends wait in
 * their ring until the wire pulls, in turn with the transport's packets
 * (weng_wire.c), so the wire's backpressure holds them there and the
 * host's queue stops when the ring is full, as on any NIC.
 */
#include <string.h>

#include "weng_internal.h"
#include "linux/wren/wren_wire.h"

int weng_eth_init(struct weng *e)
{
	(void)e;
	return 0;
}

void weng_eth_reset(struct weng *e)
{
	e->eth_qpn = 0;
	e->eth_turn = false;
	memset(&e->eth_stats, 0, sizeof(e->eth_stats));
}

void weng_eth_fini(struct weng *e)
{
	(void)e;
}

/* The Ethernet QP, if there is one. */
struct weng_qp *weng_eth_qp(struct weng *e)
{
	return e->eth_qpn ? weng_qp_get(e, e->eth_qpn) : NULL;
}

/*
 * Does the Ethernet function take this frame from the wire?  Everything
 * but the transport's packets (IPv4, UDP to WREN_WIRE_UDP_PORT), while
 * its QP can receive; without one, the transport drops and counts them
 * as it always has.
 */
bool weng_eth_takes(struct weng *e, const void *frame, size_t len)
{
	const struct weng_qp *qp = weng_eth_qp(e);
	struct wren_wire_l2l4 h;

	if (!qp || (qp->state != WREN_QPS_RTR && qp->state != WREN_QPS_RTS))
		return false;
	return wren_wire_get_l2l4(frame, len, &h) || !h.ports ||
	       h.proto != WREN_WIRE_IPPROTO_UDP ||
	       h.dport != WREN_WIRE_UDP_PORT;
}

/* The receive completion of the entry whose request id is @req_id. */
static void rx_complete(struct weng *e, struct weng_qp *qp, uint16_t req_id,
			uint32_t len, uint8_t status)
{
	struct weng_completion c = {
		.qpn = weng_qpn(e, qp),
		.wqe_index = req_id,
		.opcode = WREN_CQE_OP_RECV,
		.status = status,
		.byte_len = status ? 0 : len,
	};

	weng_cq_complete(e, qp->recv_cq, &c);
}

/* A frame weng_eth_takes() took: into the next receive, or dropped. */
void weng_eth_rx(struct weng *e, const void *frame, size_t len)
{
	struct weng_qp *qp = weng_eth_qp(e);
	uint8_t log = qp->rq_entry_log, status = WREN_CQE_SUCCESS;
	uint32_t slot = qp->rq_ci & (weng_depth(qp->rq_log_depth) - 1);
	struct wren_rq_wqe *w = weng_rq_entry(e, qp, slot);
	const uint8_t *dst = frame;
	uint64_t room = 0, tail;

	/* A switch floods what it cannot route; a NIC keeps what is its. */
	if (len < WREN_WIRE_ETH_LEN ||
	    (!(dst[0] & 1) && memcmp(dst, e->cfg.mac, sizeof(e->cfg.mac)))) {
		e->eth_stats.eth_rx_filtered++;
		return;
	}
	if (qp->rq_ci == qp->rq_pi) {
		e->eth_stats.eth_rx_no_buf++;
		return;
	}
	qp->rq_ci++;
	if (weng_dma_read(e, qp->rq_base + ((uint64_t)slot << log), w,
			  1U << log)) {
		rx_complete(e, qp, slot, 0, WREN_CQE_LOC_DMA_ERR);
		goto fatal;
	}
	/* An entry's last 8 bytes are reserved, whatever its size. */
	memcpy(&tail, (uint8_t *)w + (1U << log) - sizeof(tail), sizeof(tail));
	if (!w->num_sge ||
	    w->num_sge > WREN_RQ_WQE_SGE(log - WENG_RQ_ENTRY_LOG0) ||
	    w->rsvd0 || w->rsvd2 || tail) {
		rx_complete(e, qp, wren_le16(w->req_id), 0,
			    WREN_CQE_LOC_QP_OP_ERR);
		goto fatal;
	}
	for (unsigned int i = 0; i < w->num_sge; i++)
		room += wren_le32(wren_rq_wqe_sges(w)[i].length);
	if (room < len) {
		e->eth_stats.eth_rx_too_long++;
		status = WREN_CQE_LOC_LEN_ERR;
	} else if (weng_sgl_copy(e, qp->pdn, wren_rq_wqe_sges(w), w->num_sge,
				 0, (uint8_t *)frame, len, true)) {
		e->eth_stats.eth_rx_errors++;
		status = WREN_CQE_LOC_PROT_ERR;
	} else {
		e->eth_stats.eth_rx_frames++;
		e->eth_stats.eth_rx_bytes += len;
	}
	rx_complete(e, qp, wren_le16(w->req_id), len, status);
	return;

fatal:
	e->eth_stats.eth_rx_errors++;
	weng_qp_error(e, qp);
}

/*
 * The wire's turn for the Ethernet function: the next send entry's frame
 * into @frame, its completion written.  Returns the frame's length, or 0
 * with nothing to send.
 */
size_t weng_eth_tx_pull(struct weng *e, void *frame, size_t cap)
{
	struct weng_qp *qp = weng_eth_qp(e);
	struct weng_swqe *sw;
	struct wren_sq_wqe *w;
	uint32_t slot;
	uint8_t status;

	if (!qp || qp->state != WREN_QPS_RTS || qp->sq_fetch == qp->sq_pi)
		return 0;
	slot = qp->sq_fetch & (weng_depth(qp->sq_log_depth) - 1);
	sw = &qp->sq_shadow[slot];
	w = weng_sq_entry(qp, slot);
	status = weng_sq_take(e, qp, slot);
	if (!status && sw->len > cap)
		status = WREN_CQE_LOC_LEN_ERR;
	if (status) {
		weng_sq_fail(e, qp, status);
		return 0;
	}
	if (w->flags & WREN_WQE_F_INLINE)
		memcpy(frame, wren_sq_wqe_inline(w), sw->len);
	else if (weng_sgl_copy(e, qp->pdn, wren_sq_wqe_sges(w), w->num_sge, 0,
			       frame, sw->len, false))
		sw->status = WREN_CQE_LOC_DMA_ERR;
	sw->posted = true;
	sw->done = true;
	qp->sq_fetch++;
	weng_sq_retire(e, qp);
	if (sw->status) {
		weng_qp_error(e, qp);
		return 0;
	}
	e->eth_stats.eth_tx_frames++;
	e->eth_stats.eth_tx_bytes += sw->len;
	return sw->len;
}
