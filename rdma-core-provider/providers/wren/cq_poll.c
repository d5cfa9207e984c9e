// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren: reading completions, with ibv_poll_cq() and with the extended
 * poll API (ibv_start_poll() and friends).  No system call: the device
 * writes completion entries into the ring with a phase bit, the provider
 * reads them and returns the slots with a doorbell write of its consumer
 * index.
 *
 * A completion names its QP by number and its work request by slot:
 * - a send completion for slot s also retires every earlier unsignaled
 *   slot, since the device completes sends in send-queue order;
 * - a receive completion frees its own slot only, since an RD QP's
 *   receives complete out of order (a message completes when whole).
 * Completions the provider cannot place (an unknown QP, a fenced-off one,
 * a slot with no work request) are dropped and consumed.
 */
#include <errno.h>
#include <stdlib.h>

#include <ccan/array_size.h>
#include <util/mmio.h>

#include "wren.h"
#include "verbs.h"

/*
 * The verbs status closest to each device status; the device status
 * itself is the vendor error.
 *
 * BAD_DEST_QP (no such QP, or a Q_Key mismatch, at the destination) is
 * the verbs' remote invalid RD request, whose definition is exactly that
 * for reliable datagrams.  REMOTE_UNREACHABLE (the destination never
 * answered) is the retry count exceeded with no acknowledgement;
 * REMOTE_UNRESPONSIVE (it answered, then stopped) is the RD response
 * timeout.  REMOTE_TOO_LONG (the destination's buffer is too short) is a
 * remote invalid request, as a length error at the responder is in RC.
 * LOC_DMA_ERR (host memory unreachable) has no verbs counterpart.
 * REM_ACCESS_ERR is the responder refusing a WRITE or READ: key, PD,
 * rights or bounds.
 */
static const enum ibv_wc_status wren_wc_status_map[] = {
	[WREN_CQE_SUCCESS] = IBV_WC_SUCCESS,
	[WREN_CQE_LOC_LEN_ERR] = IBV_WC_LOC_LEN_ERR,
	[WREN_CQE_LOC_QP_OP_ERR] = IBV_WC_LOC_QP_OP_ERR,
	[WREN_CQE_LOC_PROT_ERR] = IBV_WC_LOC_PROT_ERR,
	[WREN_CQE_WR_FLUSH_ERR] = IBV_WC_WR_FLUSH_ERR,
	[WREN_CQE_BAD_DEST_QP] = IBV_WC_REM_INV_RD_REQ_ERR,
	[WREN_CQE_RNR] = IBV_WC_RNR_RETRY_EXC_ERR,
	[WREN_CQE_REMOTE_UNRESPONSIVE] = IBV_WC_RESP_TIMEOUT_ERR,
	[WREN_CQE_REMOTE_UNREACHABLE] = IBV_WC_RETRY_EXC_ERR,
	[WREN_CQE_REMOTE_OP_ERR] = IBV_WC_REM_OP_ERR,
	[WREN_CQE_REMOTE_TOO_LONG] = IBV_WC_REM_INV_REQ_ERR,
	[WREN_CQE_LOC_DMA_ERR] = IBV_WC_GENERAL_ERR,
	[WREN_CQE_REM_ACCESS_ERR] = IBV_WC_REM_ACCESS_ERR,
};

/* A status the table does not know (a newer device's) is a general error. */
static enum ibv_wc_status wren_wc_status(uint8_t status)
{
	if (status == WREN_CQE_SUCCESS)
		return IBV_WC_SUCCESS;
	/* A hole in the table reads IBV_WC_SUCCESS (0): not for a failure. */
	if (status >= ARRAY_SIZE(wren_wc_status_map) ||
	    wren_wc_status_map[status] == IBV_WC_SUCCESS)
		return IBV_WC_GENERAL_ERR;
	return wren_wc_status_map[status];
}

/*
 * Retire send slots up to the one a completion names.  The slot must lie
 * between the consumer index and the last producer index the doorbell
 * announced; the acquire on the latter makes the work request ids
 * written before it visible, the release on the consumer index hands the
 * slots back to the posters only after their ids were read.
 */
static bool wren_sq_retire(struct wren_qp *qp, const struct wren_cqe *cqe,
			   uint64_t *wr_id)
{
	struct wren_sq *sq = &qp->sq;
	uint32_t mask = (1U << sq->log_depth) - 1;
	uint32_t ci = atomic_load_explicit(&sq->ci, memory_order_relaxed);
	uint32_t rung = atomic_load_explicit(&sq->rung_pi, memory_order_acquire);
	uint32_t slot = le16toh(cqe->wqe_index) & mask;
	uint32_t retired = ((slot - ci) & mask) + 1;

	if (retired > rung - ci)
		return false;
	*wr_id = sq->wr_ids[slot];
	atomic_store_explicit(&sq->ci, ci + retired, memory_order_release);
	return true;
}

/* Free the one receive request a completion names, if it is in flight. */
static bool wren_rq_retire(struct wren_qp *qp, const struct wren_cqe *cqe,
			   uint64_t *wr_id)
{
	struct wren_rq *rq = wren_qp_recv(qp);
	struct wren_rq_slot *slot;

	slot = &rq->slots[le16toh(cqe->wqe_index) & ((1U << rq->log_depth) - 1)];
	if (!atomic_load_explicit(&slot->busy, memory_order_acquire))
		return false;
	*wr_id = slot->wr_id;
	atomic_store_explicit(&slot->busy, false, memory_order_release);
	atomic_fetch_add_explicit(&rq->completed, 1, memory_order_release);
	return true;
}

/* Is the completion at CQ index @idx one a fence drops? */
static bool wren_cq_fenced(const struct wren_cq *cq, uint32_t qpn,
			   uint32_t idx)
{
	unsigned int i;

	for (i = 0; i < cq->nr_fences; i++)
		if (cq->fences[i].qpn == qpn &&
		    (int32_t)(cq->fences[i].end - idx) > 0)
			return true;
	return false;
}

/* Forget the fences the consumer index has passed. */
static void wren_cq_prune_fences(struct wren_cq *cq)
{
	unsigned int i = 0;

	while (i < cq->nr_fences) {
		if ((int32_t)(cq->fences[i].end - cq->ci) <= 0)
			cq->fences[i] = cq->fences[--cq->nr_fences];
		else
			i++;
	}
}

/**
 * wren_cq_next() - take the next completion that belongs to a live QP
 * @cq: the CQ, locked
 *
 * Consumes entries until one can be placed: its work request is retired
 * in its QP and it becomes @cq->cur_cqe (with @cur_qp and @cur_wr_id).
 * The entry stays valid in the ring until the doorbell returns it, which
 * only the end of the poll does.
 *
 * Return: 0, ENOENT when the ring holds no more written entries, or EIO
 * when the device failed or went away: no completion will come, and a
 * ring replaced with zeros would seem to hold some.
 */
static int wren_cq_next(struct wren_cq *cq)
{
	struct wren_context *ctx = to_wren_context(cq->vcq.cq.context);
	const struct wren_cqe *cqe;

	/* Read again at every call, as the phase is (wren_cq_entry()). */
	if (unlikely(cq->live && !*(const volatile uint32_t *)cq->live))
		return EIO;

	while ((cqe = wren_cq_entry(cq, cq->ci))) {
		uint32_t qpn = le32toh(cqe->qpn);
		uint32_t idx = cq->ci++;
		struct wren_qp *qp;
		bool placed;

		if (unlikely(cq->nr_fences) && wren_cq_fenced(cq, qpn, idx))
			continue;

		qp = cq->cur_qp;
		if (!qp || qp->qpn != qpn) {
			qp = wren_qp_lookup(ctx, qpn);
			if (unlikely(!qp)) {
				verbs_debug(&ctx->ibvctx,
					    "cq %u: dropped a completion of unknown qp %u\n",
					    cq->cqn, qpn);
				continue;
			}
			cq->cur_qp = qp;
		}

		switch (cqe->opcode) {
		case WREN_CQE_OP_SEND:
		case WREN_CQE_OP_RDMA_WRITE:
		case WREN_CQE_OP_RDMA_READ:
		case WREN_CQE_OP_ATOMIC_CMP_SWP:
		case WREN_CQE_OP_ATOMIC_FETCH_ADD:
			placed = wren_sq_retire(qp, cqe, &cq->cur_wr_id);
			break;
		case WREN_CQE_OP_RECV:
			placed = wren_rq_retire(qp, cqe, &cq->cur_wr_id);
			break;
		case WREN_CQE_OP_RECV_RDMA_IMM:
			/*
			 * On RC it consumed a receive, as the verbs have it;
			 * on RD it took none: no work request of ours.
			 */
			if (qp->vqp.qp.qp_type == IBV_QPT_RC) {
				placed = wren_rq_retire(qp, cqe,
							&cq->cur_wr_id);
				break;
			}
			cq->cur_wr_id = 0;
			placed = true;
			break;
		default:
			placed = false;
			break;
		}
		if (unlikely(!placed)) {
			verbs_debug(&ctx->ibvctx,
				    "cq %u: dropped opcode %u of qp %u slot %u: nothing posted there\n",
				    cq->cqn, cqe->opcode, qpn,
				    le16toh(cqe->wqe_index));
			continue;
		}
		cq->cur_cqe = cqe;
		return 0;
	}
	return ENOENT;
}

static void wren_cq_begin_poll(struct wren_cq *cq)
{
	wren_lock(&cq->lock);
	cq->poll_start = cq->ci;
	/* A QP may have gone since the last poll: do not trust the cache. */
	cq->cur_qp = NULL;
	cq->cur_cqe = NULL;
}

/*
 * Return the consumed entries to the device and unlock.  Every read of
 * them happened before: the barrier keeps those loads ahead of the
 * doorbell store, after which the device may write the slots again.
 */
static void wren_cq_finish_poll(struct wren_cq *cq)
{
	if (cq->ci != cq->poll_start) {
		udma_from_device_barrier();
		mmio_write32_le(cq->db, htole32(cq->ci & WREN_CQ_DB_CI));
		if (unlikely(cq->nr_fences))
			wren_cq_prune_fences(cq);
	}
	cq->cur_cqe = NULL;
	wren_unlock(&cq->lock);
}

static bool wren_cqe_is_recv(const struct wren_cqe *cqe)
{
	return cqe->opcode == WREN_CQE_OP_RECV ||
	       cqe->opcode == WREN_CQE_OP_RECV_RDMA_IMM;
}

static enum ibv_wc_opcode wren_cqe_wc_opcode(const struct wren_cqe *cqe)
{
	switch (cqe->opcode) {
	case WREN_CQE_OP_RDMA_WRITE:
		return IBV_WC_RDMA_WRITE;
	case WREN_CQE_OP_RDMA_READ:
		return IBV_WC_RDMA_READ;
	case WREN_CQE_OP_ATOMIC_CMP_SWP:
		return IBV_WC_COMP_SWAP;
	case WREN_CQE_OP_ATOMIC_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case WREN_CQE_OP_RECV:
		return IBV_WC_RECV;
	case WREN_CQE_OP_RECV_RDMA_IMM:
		return IBV_WC_RECV_RDMA_WITH_IMM;
	default:
		return IBV_WC_SEND;
	}
}

static unsigned int wren_cqe_wc_flags(const struct wren_cqe *cqe)
{
	unsigned int wc_flags = 0;

	if (!wren_cqe_is_recv(cqe))
		return 0;
	if (cqe->flags & WREN_CQE_F_GRH)
		wc_flags |= IBV_WC_GRH;
	if (cqe->flags & WREN_CQE_F_IMM)
		wc_flags |= IBV_WC_WITH_IMM;
	return wc_flags;
}

static void wren_cq_fill_wc(const struct wren_cq *cq, struct ibv_wc *wc)
{
	const struct wren_cqe *cqe = cq->cur_cqe;

	*wc = (struct ibv_wc){
		.wr_id = cq->cur_wr_id,
		.status = wren_wc_status(cqe->status),
		.vendor_err = cqe->status,
		.qp_num = le32toh(cqe->qpn),
	};
	wc->opcode = wren_cqe_wc_opcode(cqe);
	wc->byte_len = le32toh(cqe->byte_len);
	if (!wren_cqe_is_recv(cqe))
		return;
	wc->src_qp = le32toh(cqe->src_qpn);
	wc->wc_flags = wren_cqe_wc_flags(cqe);
	if (wc->wc_flags & IBV_WC_WITH_IMM)
		wc->imm_data = cqe->imm;
}

int wren_poll_cq(struct ibv_cq *ibvcq, int nwc, struct ibv_wc *wc)
{
	struct wren_cq *cq = to_wren_cq(ibvcq);
	int n, err = 0;

	wren_cq_begin_poll(cq);
	for (n = 0; n < nwc && !(err = wren_cq_next(cq)); n++)
		wren_cq_fill_wc(cq, &wc[n]);
	wren_cq_finish_poll(cq);
	/* A failed device: what was read first, then the error. */
	return err == EIO && !n ? -EIO : n;
}

/* ------------------------------------------------------------------ */
/* The extended poll API                                               */
/* ------------------------------------------------------------------ */

static void wren_cq_ex_publish(struct wren_cq *cq)
{
	cq->vcq.cq_ex.wr_id = cq->cur_wr_id;
	cq->vcq.cq_ex.status = wren_wc_status(cq->cur_cqe->status);
}

/*
 * The CQ stays locked from a successful start to the end of the poll;
 * with nothing to read the poll ends here (the API calls no end_poll).
 */
static int wren_start_poll(struct ibv_cq_ex *ibvcqx,
			   struct ibv_poll_cq_attr *attr)
{
	struct wren_cq *cq = to_wren_cq_ex(ibvcqx);
	int err;

	if (unlikely(attr->comp_mask))
		return EINVAL;

	wren_cq_begin_poll(cq);
	err = wren_cq_next(cq);
	if (err) {
		wren_cq_finish_poll(cq);
		return err;
	}
	wren_cq_ex_publish(cq);
	return 0;
}

static int wren_next_poll(struct ibv_cq_ex *ibvcqx)
{
	struct wren_cq *cq = to_wren_cq_ex(ibvcqx);
	int err = wren_cq_next(cq);

	if (err)
		return err;
	wren_cq_ex_publish(cq);
	return 0;
}

static void wren_end_poll(struct ibv_cq_ex *ibvcqx)
{
	wren_cq_finish_poll(to_wren_cq_ex(ibvcqx));
}

static enum ibv_wc_opcode wren_wc_read_opcode(struct ibv_cq_ex *ibvcqx)
{
	return wren_cqe_wc_opcode(to_wren_cq_ex(ibvcqx)->cur_cqe);
}

static uint32_t wren_wc_read_vendor_err(struct ibv_cq_ex *ibvcqx)
{
	return to_wren_cq_ex(ibvcqx)->cur_cqe->status;
}

static unsigned int wren_wc_read_wc_flags(struct ibv_cq_ex *ibvcqx)
{
	return wren_cqe_wc_flags(to_wren_cq_ex(ibvcqx)->cur_cqe);
}

/* A send's byte count is not defined by the verbs; the device says 0. */
static uint32_t wren_wc_read_byte_len(struct ibv_cq_ex *ibvcqx)
{
	return le32toh(to_wren_cq_ex(ibvcqx)->cur_cqe->byte_len);
}

/* The immediate data as on the wire, as the verbs want it. */
static __be32 wren_wc_read_imm_data(struct ibv_cq_ex *ibvcqx)
{
	return to_wren_cq_ex(ibvcqx)->cur_cqe->imm;
}

static uint32_t wren_wc_read_qp_num(struct ibv_cq_ex *ibvcqx)
{
	return le32toh(to_wren_cq_ex(ibvcqx)->cur_cqe->qpn);
}

static uint32_t wren_wc_read_src_qp(struct ibv_cq_ex *ibvcqx)
{
	return le32toh(to_wren_cq_ex(ibvcqx)->cur_cqe->src_qpn);
}

/* Wren has no LIDs and no service levels: the verbs' fields are 0. */
static uint32_t wren_wc_read_slid(struct ibv_cq_ex *ibvcqx)
{
	return 0;
}

static uint8_t wren_wc_read_sl(struct ibv_cq_ex *ibvcqx)
{
	return 0;
}

static uint8_t wren_wc_read_dlid_path_bits(struct ibv_cq_ex *ibvcqx)
{
	return 0;
}

/* Install the poll functions and the readers of the fields asked for. */
void wren_cq_set_poll_ops(struct wren_cq *cq, uint64_t wc_flags)
{
	struct ibv_cq_ex *ibvcqx = &cq->vcq.cq_ex;

	ibvcqx->start_poll = wren_start_poll;
	ibvcqx->next_poll = wren_next_poll;
	ibvcqx->end_poll = wren_end_poll;
	ibvcqx->read_opcode = wren_wc_read_opcode;
	ibvcqx->read_vendor_err = wren_wc_read_vendor_err;
	ibvcqx->read_wc_flags = wren_wc_read_wc_flags;

	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		ibvcqx->read_byte_len = wren_wc_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_IMM)
		ibvcqx->read_imm_data = wren_wc_read_imm_data;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		ibvcqx->read_qp_num = wren_wc_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		ibvcqx->read_src_qp = wren_wc_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_SLID)
		ibvcqx->read_slid = wren_wc_read_slid;
	if (wc_flags & IBV_WC_EX_WITH_SL)
		ibvcqx->read_sl = wren_wc_read_sl;
	if (wc_flags & IBV_WC_EX_WITH_DLID_PATH_BITS)
		ibvcqx->read_dlid_path_bits = wren_wc_read_dlid_path_bits;
}
