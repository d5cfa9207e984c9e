// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libwren: posting work requests, with ibv_post_send() and
 * ibv_post_recv() and with the ibv_wr_* API.  No system call: entries are
 * written into the rings the kernel allocated, then one doorbell write
 * announces the new producer index, once per call (per ibv_wr_complete()
 * for the ibv_wr_* API), after a barrier that makes the entries visible
 * first.
 *
 * Every work request is checked before anything of it is written; the
 * first bad one stops the list with the errno rdma-core's providers use
 * (EINVAL for a request the QP cannot take, ENOMEM for a full queue) and
 * the ones before it are posted.
 */
#include <errno.h>
#include <string.h>

#include <util/mmio.h>

#include "wren.h"
#include "verbs.h"

#define WREN_SEND_FLAGS	(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE)

/*
 * The verbs refuse sends before RTS.  A QP in error takes them: the
 * device completes them with WR_FLUSH_ERR.
 */
static bool wren_sq_state_ok(const struct wren_qp *qp)
{
	enum ibv_qp_state state = qp->vqp.qp.state;

	return state >= IBV_QPS_RTS && state <= IBV_QPS_ERR;
}

/* Receives may be posted from INIT on. */
static bool wren_rq_state_ok(const struct wren_qp *qp)
{
	enum ibv_qp_state state = qp->vqp.qp.state;

	return state >= IBV_QPS_INIT && state <= IBV_QPS_ERR;
}

/*
 * Is every send slot taken?  A slot is free once a completion at or after
 * it was polled; the acquire pairs with the poller's release, which came
 * after it read the slot's work request id.
 */
static bool wren_sq_full(const struct wren_sq *sq)
{
	return sq->pi - atomic_load_explicit(&sq->ci, memory_order_acquire) >=
	       1U << sq->log_depth;
}

/*
 * Start a send entry at the producer index: zeroed (the device requires
 * the reserved fields to be), with its opcode and flags, its work request
 * id recorded for the completion.
 */
static struct wren_sq_wqe *wren_sq_start_wqe(struct wren_sq *sq,
					     uint8_t opcode,
					     unsigned int send_flags,
					     uint64_t wr_id)
{
	uint32_t slot = sq->pi & ((1U << sq->log_depth) - 1);
	struct wren_sq_wqe *wqe = wren_sq_entry(sq, slot);

	memset(wqe, 0, WREN_SQ_WQE_SIZE(sq->wqe_shift));
	wqe->opcode = opcode;
	if (send_flags & IBV_SEND_SIGNALED || sq->sig_all)
		wqe->flags |= WREN_WQE_F_SIGNALED;
	if (send_flags & IBV_SEND_SOLICITED)
		wqe->flags |= WREN_WQE_F_SOLICITED;
	sq->wr_ids[slot] = wr_id;
	sq->pi++;
	return wqe;
}

/* A one-sided operation's remote memory. */
static void wren_wqe_set_rdma(struct wren_sq_wqe *wqe, uint32_t rkey,
			      uint64_t remote_addr)
{
	wqe->remote_addr = htole64(remote_addr);
	wqe->rkey = htole32(rkey);
}

/* An atomic's remote word and operands (the SGE comes on its own). */
static void wren_wqe_set_atomic(struct wren_sq_wqe *wqe, uint32_t rkey,
				uint64_t remote_addr, uint64_t compare_add,
				uint64_t swap)
{
	wren_wqe_set_rdma(wqe, rkey, remote_addr);
	wqe->atomic.compare_add = htole64(compare_add);
	wqe->atomic.swap = htole64(swap);
}

/* UD and RD alike: every send names its destination. */
static void wren_wqe_set_dest(struct wren_sq_wqe *wqe, struct ibv_ah *ibvah,
			      uint32_t remote_qpn, uint32_t remote_qkey)
{
	wqe->ah = htole32(to_wren_ah(ibvah)->ahn);
	wqe->remote_qpn = htole32(remote_qpn);
	wqe->remote_qkey = htole32(remote_qkey);
}

static void wren_wqe_set_sgl(struct wren_sq_wqe *wqe,
			     const struct ibv_sge *sgl, size_t nr_sge)
{
	struct wren_sge *sge = wren_sq_wqe_sges(wqe);
	size_t i;

	for (i = 0; i < nr_sge; i++) {
		sge[i].addr = htole64(sgl[i].addr);
		sge[i].length = htole32(sgl[i].length);
		sge[i].lkey = htole32(sgl[i].lkey);
	}
	wqe->num_sge = nr_sge;
	wqe->flags &= ~WREN_WQE_F_INLINE;
	wqe->inline_len = 0;
}

/* Append @len bytes to an inline payload; the caller checked the room. */
static void wren_wqe_add_inline(struct wren_sq_wqe *wqe, const void *data,
				size_t len)
{
	uint32_t used = le32toh(wqe->inline_len);

	memcpy(wren_sq_wqe_inline(wqe) + used, data, len);
	wqe->inline_len = htole32(used + len);
}

static void wren_wqe_start_inline(struct wren_sq_wqe *wqe)
{
	wqe->flags |= WREN_WQE_F_INLINE;
	wqe->num_sge = 0;
	wqe->inline_len = 0;
}

/*
 * Announce every entry up to the producer index.  The release publishes
 * the work request ids to the pollers; the barrier makes the entries
 * visible to the device before the doorbell, which it acts on at once.
 */
static void wren_sq_ring_doorbell(struct wren_sq *sq)
{
	atomic_store_explicit(&sq->rung_pi, sq->pi, memory_order_release);
	udma_to_device_barrier();
	mmio_write32_le(sq->db, htole32(sq->pi & WREN_WQ_DB_PI));
}

/* The bytes an inline send would carry, or SIZE_MAX if beyond @max. */
static size_t wren_inline_len(const struct ibv_sge *sgl, int nr_sge,
			      size_t max)
{
	size_t total = 0;
	int i;

	for (i = 0; i < nr_sge; i++) {
		total += sgl[i].length;
		if (total > max)
			return SIZE_MAX;
	}
	return total;
}

/* The device's opcode for a work request's, or 0 if this QP has none. */
static uint8_t wren_wqe_opcode(const struct wren_qp *qp,
			       enum ibv_wr_opcode opcode)
{
	bool rc = qp->vqp.qp.qp_type == IBV_QPT_RC;
	bool atomic = rc && to_wren_context(qp->vqp.qp.context)->device_caps &
			    WREN_IB_DEVICE_CAP_ATOMIC;

	switch (opcode) {
	case IBV_WR_SEND:
		return WREN_WQE_SEND;
	case IBV_WR_SEND_WITH_IMM:
		return WREN_WQE_SEND_IMM;
	/* RD's one-sided operations name a destination: ibv_wr_* only. */
	case IBV_WR_RDMA_WRITE:
		return rc ? WREN_WQE_RDMA_WRITE : 0;
	case IBV_WR_RDMA_WRITE_WITH_IMM:
		return rc ? WREN_WQE_RDMA_WRITE_IMM : 0;
	case IBV_WR_RDMA_READ:
		return rc ? WREN_WQE_RDMA_READ : 0;
	case IBV_WR_ATOMIC_CMP_AND_SWP:
		return atomic ? WREN_WQE_ATOMIC_CMP_SWP : 0;
	case IBV_WR_ATOMIC_FETCH_AND_ADD:
		return atomic ? WREN_WQE_ATOMIC_FETCH_ADD : 0;
	default:
		return 0;
	}
}

static bool wren_wqe_is_atomic(uint8_t opcode)
{
	return opcode == WREN_WQE_ATOMIC_CMP_SWP ||
	       opcode == WREN_WQE_ATOMIC_FETCH_ADD;
}

/* An atomic's one SGE: the 8 bytes the old value goes to. */
static bool wren_atomic_sgl_ok(const struct ibv_sge *sgl, size_t nr_sge)
{
	return nr_sge == 1 && sgl[0].length == sizeof(uint64_t);
}

static int wren_check_send_wr(struct wren_qp *qp, const struct ibv_send_wr *wr)
{
	uint8_t opcode = wren_wqe_opcode(qp, wr->opcode);
	struct wren_sq *sq = &qp->sq;

	if (unlikely(!wren_sq_state_ok(qp) || !opcode ||
		     wr->send_flags & ~WREN_SEND_FLAGS || wr->num_sge < 0))
		goto err_inval;
	/* A datagram QP's send names its destination; an RC QP has one. */
	if (qp->vqp.qp.qp_type != IBV_QPT_RC &&
	    unlikely(!wr->wr.ud.ah ||
		     wr->wr.ud.ah->context != qp->vqp.qp.context))
		goto err_inval;
	if (wr->send_flags & IBV_SEND_INLINE) {
		if (unlikely(opcode == WREN_WQE_RDMA_READ ||
			     wren_wqe_is_atomic(opcode) ||
			     wren_inline_len(wr->sg_list, wr->num_sge,
					     sq->max_inline) == SIZE_MAX))
			goto err_inval;
	} else if (unlikely((unsigned int)wr->num_sge > sq->max_sge ||
			    (wren_wqe_is_atomic(opcode) &&
			     !wren_atomic_sgl_ok(wr->sg_list, wr->num_sge)))) {
		goto err_inval;
	}
	if (unlikely(wren_sq_full(sq))) {
		verbs_debug_datapath(verbs_get_ctx(qp->vqp.qp.context),
				     "qp %u: send queue full\n", qp->qpn);
		return ENOMEM;
	}
	return 0;

err_inval:
	verbs_debug_datapath(verbs_get_ctx(qp->vqp.qp.context),
			     "qp %u: send wr %#llx refused: state %u opcode %u flags %#x sge %d\n",
			     qp->qpn, (unsigned long long)wr->wr_id,
			     qp->vqp.qp.state, wr->opcode, wr->send_flags,
			     wr->num_sge);
	return EINVAL;
}

static void wren_build_send_wr(struct wren_qp *qp,
			       const struct ibv_send_wr *wr)
{
	uint8_t opcode = wren_wqe_opcode(qp, wr->opcode);
	struct wren_sq_wqe *wqe;
	int i;

	wqe = wren_sq_start_wqe(&qp->sq, opcode, wr->send_flags, wr->wr_id);
	if (opcode == WREN_WQE_SEND_IMM || opcode == WREN_WQE_RDMA_WRITE_IMM)
		wqe->imm = wr->imm_data;	/* opaque, as on the wire */
	if (qp->vqp.qp.qp_type != IBV_QPT_RC)
		wren_wqe_set_dest(wqe, wr->wr.ud.ah, wr->wr.ud.remote_qpn,
				  wr->wr.ud.remote_qkey);
	else if (wren_wqe_is_atomic(opcode))
		wren_wqe_set_atomic(wqe, wr->wr.atomic.rkey,
				    wr->wr.atomic.remote_addr,
				    wr->wr.atomic.compare_add,
				    wr->wr.atomic.swap);
	else if (opcode != WREN_WQE_SEND && opcode != WREN_WQE_SEND_IMM)
		wren_wqe_set_rdma(wqe, wr->wr.rdma.rkey,
				  wr->wr.rdma.remote_addr);
	if (wr->send_flags & IBV_SEND_INLINE) {
		wren_wqe_start_inline(wqe);
		for (i = 0; i < wr->num_sge; i++)
			wren_wqe_add_inline(wqe,
					    (const void *)(uintptr_t)wr->sg_list[i].addr,
					    wr->sg_list[i].length);
	} else {
		wren_wqe_set_sgl(wqe, wr->sg_list, wr->num_sge);
	}
}

int wren_post_send(struct ibv_qp *ibvqp, struct ibv_send_wr *wr,
		   struct ibv_send_wr **bad_wr)
{
	struct wren_qp *qp = to_wren_qp(ibvqp);
	struct wren_sq *sq = &qp->sq;
	uint32_t first;
	int err = 0;

	wren_lock(&sq->lock);
	first = sq->pi;
	for (; wr; wr = wr->next) {
		err = wren_check_send_wr(qp, wr);
		if (err) {
			*bad_wr = wr;
			break;
		}
		wren_build_send_wr(qp, wr);
	}
	if (sq->pi != first)
		wren_sq_ring_doorbell(sq);
	wren_unlock(&sq->lock);
	return err;
}

/* A receive work request against @rq: 0, EINVAL or ENOMEM (full). */
static int wren_check_recv_wr(struct wren_rq *rq, const struct ibv_recv_wr *wr)
{
	uint32_t completed = atomic_load_explicit(&rq->completed,
						  memory_order_acquire);

	if (unlikely(wr->num_sge < 0 ||
		     (unsigned int)wr->num_sge > rq->max_sge))
		return EINVAL;
	if (unlikely(rq->pi - completed >= 1U << rq->log_depth))
		return ENOMEM;
	return 0;
}

/*
 * A request id no receive in flight has.  There is one: fewer requests
 * than ids are in flight when the queue has room.  In-order completions
 * leave the next id free, so the search is short.
 */
static uint32_t wren_rq_free_id(struct wren_rq *rq)
{
	uint32_t mask = (1U << rq->log_depth) - 1, id = rq->next_id;

	while (atomic_load_explicit(&rq->slots[id & mask].busy,
				    memory_order_acquire))
		id++;
	rq->next_id = id + 1;
	return id & mask;
}

static void wren_build_recv_wr(struct wren_rq *rq,
			       const struct ibv_recv_wr *wr)
{
	uint32_t slot = rq->pi & ((1U << rq->log_depth) - 1);
	struct wren_rq_wqe *wqe = wren_rq_entry(rq, slot);
	struct wren_sge *sge = wren_rq_wqe_sges(wqe);
	uint32_t id = wren_rq_free_id(rq);
	int i;

	memset(wqe, 0, WREN_RQ_WQE_SIZE(rq->wqe_shift));
	wqe->req_id = htole16(id);
	for (i = 0; i < wr->num_sge; i++) {
		sge[i].addr = htole64(wr->sg_list[i].addr);
		sge[i].length = htole32(wr->sg_list[i].length);
		sge[i].lkey = htole32(wr->sg_list[i].lkey);
	}
	/*
	 * The device wants at least one SGE; the verbs allow none (a
	 * buffer for zero-byte messages).  One empty SGE is the same
	 * buffer: no byte is ever placed through it, so its key is never
	 * looked at.
	 */
	wqe->num_sge = wr->num_sge ? wr->num_sge : 1;

	/* Release: the poller that sees the request busy sees its id too. */
	rq->slots[id].wr_id = wr->wr_id;
	atomic_store_explicit(&rq->slots[id].busy, true, memory_order_release);
	rq->pi++;
}

/*
 * Post a list of receives to @rq (a QP's or an SRQ's), with one doorbell;
 * @ctx and @what name the queue in the debug log.
 */
static int wren_rq_post(struct wren_rq *rq, struct ibv_recv_wr *wr,
			struct ibv_recv_wr **bad_wr, struct ibv_context *ctx,
			const char *what, uint32_t num)
{
	uint32_t first;
	int err = 0;

	wren_lock(&rq->lock);
	first = rq->pi;
	for (; wr; wr = wr->next) {
		err = wren_check_recv_wr(rq, wr);
		if (err) {
			verbs_debug_datapath(verbs_get_ctx(ctx),
					     "%s %u: recv wr %#llx refused: %s, sge %d\n",
					     what, num,
					     (unsigned long long)wr->wr_id,
					     err == ENOMEM ? "full" : "invalid",
					     wr->num_sge);
			*bad_wr = wr;
			break;
		}
		wren_build_recv_wr(rq, wr);
	}
	if (rq->pi != first) {
		/* Entries and slot states first, then the doorbell. */
		udma_to_device_barrier();
		mmio_write32_le(rq->db, htole32(rq->pi & WREN_WQ_DB_PI));
	}
	wren_unlock(&rq->lock);
	return err;
}

int wren_post_recv(struct ibv_qp *ibvqp, struct ibv_recv_wr *wr,
		   struct ibv_recv_wr **bad_wr)
{
	struct wren_qp *qp = to_wren_qp(ibvqp);

	/* A QP on an SRQ has no receive queue of its own. */
	if (unlikely(!wren_rq_state_ok(qp) || qp->srq)) {
		verbs_debug_datapath(verbs_get_ctx(ibvqp->context),
				     "qp %u: recv refused: state %u%s\n",
				     qp->qpn, ibvqp->state,
				     qp->srq ? ", on an SRQ" : "");
		*bad_wr = wr;
		return EINVAL;
	}
	return wren_rq_post(&qp->rq, wr, bad_wr, ibvqp->context, "qp",
			    qp->qpn);
}

int wren_post_srq_recv(struct ibv_srq *ibvsrq, struct ibv_recv_wr *wr,
		       struct ibv_recv_wr **bad_wr)
{
	struct wren_srq *srq = to_wren_srq(ibvsrq);

	return wren_rq_post(&srq->rq, wr, bad_wr, ibvsrq->context, "srq",
			    srq->srqn);
}

/* ------------------------------------------------------------------ */
/* The ibv_wr_* API                                                    */
/* ------------------------------------------------------------------ */

/*
 * A batch runs from ibv_wr_start() to ibv_wr_complete() or ibv_wr_abort()
 * with the send queue locked.  Entries are built in the ring as the calls
 * come; the first error ends the building, and ibv_wr_complete() then
 * drops the whole batch and returns that error, as rdma-core's providers
 * do.  Nothing is announced to the device before ibv_wr_complete().
 */

/* Note the batch's first error; later calls of the batch do nothing. */
static void wren_wr_fail(struct wren_sq *sq, int err)
{
	if (!sq->wr_err)
		sq->wr_err = err;
	sq->wr_wqe = NULL;
}

static void wren_wr_start(struct ibv_qp_ex *ibvqpx)
{
	struct wren_sq *sq = &to_wren_qp_ex(ibvqpx)->sq;

	wren_lock(&sq->lock);
	sq->wr_first = sq->pi;
	sq->wr_err = 0;
	sq->wr_wqe = NULL;
}

static int wren_wr_complete(struct ibv_qp_ex *ibvqpx)
{
	struct wren_sq *sq = &to_wren_qp_ex(ibvqpx)->sq;
	int err = sq->wr_err;

	if (err)
		sq->pi = sq->wr_first;
	else if (sq->pi != sq->wr_first)
		wren_sq_ring_doorbell(sq);
	sq->wr_wqe = NULL;
	wren_unlock(&sq->lock);
	return err;
}

/* The entries written are past the doorbell: the device never saw them. */
static void wren_wr_abort(struct ibv_qp_ex *ibvqpx)
{
	struct wren_sq *sq = &to_wren_qp_ex(ibvqpx)->sq;

	sq->pi = sq->wr_first;
	sq->wr_wqe = NULL;
	wren_unlock(&sq->lock);
}

static struct wren_sq_wqe *wren_wr_begin(struct ibv_qp_ex *ibvqpx,
					 uint8_t opcode)
{
	struct wren_qp *qp = to_wren_qp_ex(ibvqpx);
	struct wren_sq *sq = &qp->sq;

	if (unlikely(sq->wr_err)) {
		sq->wr_wqe = NULL;
		return NULL;
	}
	if (unlikely(!wren_sq_state_ok(qp) ||
		     ibvqpx->wr_flags & ~WREN_SEND_FLAGS)) {
		wren_wr_fail(sq, EINVAL);
		return NULL;
	}
	if (unlikely(wren_sq_full(sq))) {
		wren_wr_fail(sq, ENOMEM);
		return NULL;
	}
	/* Inline data comes with ibv_wr_set_inline_data*(), not a flag. */
	sq->wr_wqe = wren_sq_start_wqe(sq, opcode, ibvqpx->wr_flags,
				       ibvqpx->wr_id);
	return sq->wr_wqe;
}

static void wren_wr_send(struct ibv_qp_ex *ibvqpx)
{
	wren_wr_begin(ibvqpx, WREN_WQE_SEND);
}

static void wren_wr_send_imm(struct ibv_qp_ex *ibvqpx, __be32 imm_data)
{
	struct wren_sq_wqe *wqe = wren_wr_begin(ibvqpx, WREN_WQE_SEND_IMM);

	if (wqe)
		wqe->imm = imm_data;
}

/* One-sided operations, on RD and RC QPs as their send_ops_flags say. */
static struct wren_sq_wqe *wren_wr_begin_rdma(struct ibv_qp_ex *ibvqpx,
					      uint8_t opcode, uint32_t rkey,
					      uint64_t remote_addr)
{
	struct wren_sq_wqe *wqe = wren_wr_begin(ibvqpx, opcode);

	if (wqe)
		wren_wqe_set_rdma(wqe, rkey, remote_addr);
	return wqe;
}

static void wren_wr_rdma_write(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
			       uint64_t remote_addr)
{
	wren_wr_begin_rdma(ibvqpx, WREN_WQE_RDMA_WRITE, rkey, remote_addr);
}

static void wren_wr_rdma_write_imm(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
				   uint64_t remote_addr, __be32 imm_data)
{
	struct wren_sq_wqe *wqe = wren_wr_begin_rdma(ibvqpx,
						     WREN_WQE_RDMA_WRITE_IMM,
						     rkey, remote_addr);

	if (wqe)
		wqe->imm = imm_data;
}

static void wren_wr_rdma_read(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
			      uint64_t remote_addr)
{
	wren_wr_begin_rdma(ibvqpx, WREN_WQE_RDMA_READ, rkey, remote_addr);
}

static void wren_wr_atomic_cmp_swp(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
				   uint64_t remote_addr, uint64_t compare,
				   uint64_t swap)
{
	struct wren_sq_wqe *wqe = wren_wr_begin(ibvqpx, WREN_WQE_ATOMIC_CMP_SWP);

	if (wqe)
		wren_wqe_set_atomic(wqe, rkey, remote_addr, compare, swap);
}

static void wren_wr_atomic_fetch_add(struct ibv_qp_ex *ibvqpx, uint32_t rkey,
				     uint64_t remote_addr, uint64_t add)
{
	struct wren_sq_wqe *wqe = wren_wr_begin(ibvqpx,
						WREN_WQE_ATOMIC_FETCH_ADD);

	if (wqe)
		wren_wqe_set_atomic(wqe, rkey, remote_addr, add, 0);
}

/* The entry a wr_set_* call fills in; NULL if there is none to fill. */
static struct wren_sq_wqe *wren_wr_cur(struct wren_sq *sq)
{
	if (unlikely(!sq->wr_wqe))
		wren_wr_fail(sq, EINVAL);
	return sq->wr_wqe;
}

static void wren_wr_set_ud_addr(struct ibv_qp_ex *ibvqpx, struct ibv_ah *ah,
				uint32_t remote_qpn, uint32_t remote_qkey)
{
	struct wren_qp *qp = to_wren_qp_ex(ibvqpx);
	struct wren_sq_wqe *wqe = wren_wr_cur(&qp->sq);

	if (!wqe)
		return;
	/* An RC QP's peer is fixed: no address per send. */
	if (unlikely(!ah || ah->context != qp->vqp.qp.context ||
		     qp->vqp.qp.qp_type == IBV_QPT_RC)) {
		wren_wr_fail(&qp->sq, EINVAL);
		return;
	}
	wren_wqe_set_dest(wqe, ah, remote_qpn, remote_qkey);
}

static void wren_wr_set_sge(struct ibv_qp_ex *ibvqpx, uint32_t lkey,
			    uint64_t addr, uint32_t length)
{
	struct wren_sq *sq = &to_wren_qp_ex(ibvqpx)->sq;
	struct wren_sq_wqe *wqe = wren_wr_cur(sq);
	struct ibv_sge sge = {
		.addr = addr,
		.length = length,
		.lkey = lkey,
	};

	if (!wqe)
		return;
	if (unlikely(!sq->max_sge || (wren_wqe_is_atomic(wqe->opcode) &&
				      !wren_atomic_sgl_ok(&sge, 1)))) {
		wren_wr_fail(sq, EINVAL);
		return;
	}
	wren_wqe_set_sgl(wqe, &sge, 1);
}

static void wren_wr_set_sge_list(struct ibv_qp_ex *ibvqpx, size_t nr_sge,
				 const struct ibv_sge *sgl)
{
	struct wren_sq *sq = &to_wren_qp_ex(ibvqpx)->sq;
	struct wren_sq_wqe *wqe = wren_wr_cur(sq);

	if (!wqe)
		return;
	if (unlikely(nr_sge > sq->max_sge ||
		     (wren_wqe_is_atomic(wqe->opcode) &&
		      !wren_atomic_sgl_ok(sgl, nr_sge)))) {
		wren_wr_fail(sq, EINVAL);
		return;
	}
	wren_wqe_set_sgl(wqe, sgl, nr_sge);
}

static void wren_wr_set_inline_data(struct ibv_qp_ex *ibvqpx, void *addr,
				    size_t length)
{
	struct wren_sq *sq = &to_wren_qp_ex(ibvqpx)->sq;
	struct wren_sq_wqe *wqe = wren_wr_cur(sq);

	if (!wqe)
		return;
	/* A read's data comes back: there is no inline destination. */
	if (unlikely(length > sq->max_inline ||
		     wqe->opcode == WREN_WQE_RDMA_READ ||
		     wren_wqe_is_atomic(wqe->opcode))) {
		wren_wr_fail(sq, EINVAL);
		return;
	}
	wren_wqe_start_inline(wqe);
	wren_wqe_add_inline(wqe, addr, length);
}

static void wren_wr_set_inline_data_list(struct ibv_qp_ex *ibvqpx,
					 size_t nr_buf,
					 const struct ibv_data_buf *bufs)
{
	struct wren_sq *sq = &to_wren_qp_ex(ibvqpx)->sq;
	struct wren_sq_wqe *wqe = wren_wr_cur(sq);
	size_t i, total = 0;

	if (!wqe)
		return;
	if (unlikely(wqe->opcode == WREN_WQE_RDMA_READ ||
		     wren_wqe_is_atomic(wqe->opcode))) {
		wren_wr_fail(sq, EINVAL);
		return;
	}
	for (i = 0; i < nr_buf; i++) {
		total += bufs[i].length;
		if (unlikely(bufs[i].length > sq->max_inline ||
			     total > sq->max_inline)) {
			wren_wr_fail(sq, EINVAL);
			return;
		}
	}
	wren_wqe_start_inline(wqe);
	for (i = 0; i < nr_buf; i++)
		wren_wqe_add_inline(wqe, bufs[i].addr, bufs[i].length);
}

/* Install the ibv_wr_* functions; only the asked-for operations. */
void wren_qp_set_wr_ops(struct wren_qp *qp, uint64_t send_ops_flags)
{
	struct ibv_qp_ex *ibvqpx = &qp->vqp.qp_ex;

	ibvqpx->wr_start = wren_wr_start;
	ibvqpx->wr_complete = wren_wr_complete;
	ibvqpx->wr_abort = wren_wr_abort;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND)
		ibvqpx->wr_send = wren_wr_send;
	if (send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_IMM)
		ibvqpx->wr_send_imm = wren_wr_send_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE)
		ibvqpx->wr_rdma_write = wren_wr_rdma_write;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		ibvqpx->wr_rdma_write_imm = wren_wr_rdma_write_imm;
	if (send_ops_flags & IBV_QP_EX_WITH_RDMA_READ)
		ibvqpx->wr_rdma_read = wren_wr_rdma_read;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP)
		ibvqpx->wr_atomic_cmp_swp = wren_wr_atomic_cmp_swp;
	if (send_ops_flags & IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD)
		ibvqpx->wr_atomic_fetch_add = wren_wr_atomic_fetch_add;
	ibvqpx->wr_set_ud_addr = wren_wr_set_ud_addr;
	ibvqpx->wr_set_sge = wren_wr_set_sge;
	ibvqpx->wr_set_sge_list = wren_wr_set_sge_list;
	ibvqpx->wr_set_inline_data = wren_wr_set_inline_data;
	ibvqpx->wr_set_inline_data_list = wren_wr_set_inline_data_list;
}
