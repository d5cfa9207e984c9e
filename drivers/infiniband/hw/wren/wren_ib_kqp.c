// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: the kernel's queue pairs at work.  A kernel QP (UD,
 * the GSI QP, RC) has its rings in coherent memory and its doorbells in
 * the driver's own page; post_send and post_recv write entries as libwren
 * does for user space and ring the doorbell once per call.  The pollers of
 * its CQs retire the slots (wren_ib_kcq.c).
 *
 * Kernel SGEs name DMA addresses under the PD's local_dma_lkey
 * (%WREN_LKEY_DMA), or a memory region's addresses under its key.  A
 * kernel AH travels in each send entry (%WREN_WQE_F_AV).
 */
#include <linux/io.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "wren_ib.h"

static void wren_ib_kwq_init(struct wren_ib_kwq *wq, void __iomem *db,
			     u8 log_depth, u8 wqe_shift, u32 max_sge,
			     u32 max_inline)
{
	spin_lock_init(&wq->lock);
	wq->db = db;
	wq->pi = 0;
	wq->ci = 0;
	wq->log_depth = log_depth;
	wq->wqe_shift = wqe_shift;
	wq->max_sge = max_sge;
	wq->max_inline = max_inline;
}

/**
 * wren_ib_kqp_rings() - allocate a kernel QP's rings and request ids
 * @dev: the device
 * @qp: the QP
 * @params: its depths and entry sizes (no SRQ)
 *
 * Return: 0 or -ENOMEM, with nothing left allocated.
 */
int wren_ib_kqp_rings(struct wren_ib_dev *dev, struct wren_ib_qp *qp,
		      const struct wren_qp_params *params)
{
	int err;

	err = wren_ib_kring_alloc(dev, &qp->sq,
				  WREN_SQ_WQE_SIZE(params->sq_wqe_shift) <<
				  params->sq_log_depth);
	if (err)
		return err;
	err = wren_ib_kring_alloc(dev, &qp->rq,
				  WREN_RQ_WQE_SIZE(params->rq_wqe_shift) <<
				  params->rq_log_depth);
	if (err)
		goto err_free_sq;
	qp->ksq.wr_ids = kcalloc(BIT(params->sq_log_depth), sizeof(u64),
				 GFP_KERNEL);
	qp->krq.wr_ids = kcalloc(BIT(params->rq_log_depth), sizeof(u64),
				 GFP_KERNEL);
	if (!qp->ksq.wr_ids || !qp->krq.wr_ids) {
		err = -ENOMEM;
		goto err_free_ids;
	}
	return 0;

err_free_ids:
	kfree(qp->krq.wr_ids);
	kfree(qp->ksq.wr_ids);
	wren_ib_ring_free(dev, &qp->rq);
err_free_sq:
	wren_ib_ring_free(dev, &qp->sq);
	return err;
}

/**
 * wren_ib_kqp_init() - make a new kernel QP ready to post to
 * @dev: the device
 * @qp: the QP, its rings from wren_ib_kqp_rings() and its capacities set
 * @params: what it was created with
 * @h: what the device returned
 */
void wren_ib_kqp_init(struct wren_ib_dev *dev, struct wren_ib_qp *qp,
		      const struct wren_qp_params *params,
		      const struct wren_qp_handles *h)
{
	qp->kernel = true;
	wren_ib_kwq_init(&qp->ksq, dev->kdb + h->sq_db_offset,
			 params->sq_log_depth, params->sq_wqe_shift,
			 qp->cap.max_send_sge, qp->cap.max_inline_data);
	wren_ib_kwq_init(&qp->krq, dev->kdb + h->rq_db_offset,
			 params->rq_log_depth, params->rq_wqe_shift,
			 qp->cap.max_recv_sge, 0);
}

/**
 * wren_ib_kqp_reset() - forget a kernel QP's work requests
 * @qp: the QP, which the device has just reset: it starts both queues
 *	at 0 again and writes no more completions of what was posted
 *
 * The completions it left in its CQs go too: a reset QP must not take
 * them.
 */
void wren_ib_kqp_reset(struct wren_ib_qp *qp)
{
	unsigned long flags;

	wren_ib_kqp_clean(qp);
	spin_lock_irqsave(&qp->ksq.lock, flags);
	qp->ksq.pi = 0;
	qp->ksq.ci = 0;
	spin_unlock_irqrestore(&qp->ksq.lock, flags);
	spin_lock_irqsave(&qp->krq.lock, flags);
	qp->krq.pi = 0;
	qp->krq.ci = 0;
	spin_unlock_irqrestore(&qp->krq.lock, flags);
}

/**
 * wren_ib_kqp_free() - release what a kernel QP has beyond its rings
 * @qp: the QP, which the device has destroyed (or never created)
 */
void wren_ib_kqp_free(struct wren_ib_qp *qp)
{
	kfree(qp->ksq.wr_ids);
	kfree(qp->krq.wr_ids);
}

/**
 * wren_ib_kqp_clean() - drop what a kernel QP left in its CQs
 * @qp: the QP, which the device has destroyed or reset: it writes no more
 *	of its completions
 */
void wren_ib_kqp_clean(struct wren_ib_qp *qp)
{
	wren_ib_kcq_clean(to_wren_ib_cq(qp->ibqp.send_cq), qp->ibqp.qp_num);
	wren_ib_kcq_clean(to_wren_ib_cq(qp->ibqp.recv_cq), qp->ibqp.qp_num);
}

/* The entry at @wq's producer index, in a ring of entries @size << shift. */
static void *wren_ib_kwq_entry(struct wren_ib_ring *ring,
			       const struct wren_ib_kwq *wq, size_t size)
{
	return ring->buf + ((wq->pi & (BIT(wq->log_depth) - 1)) *
			    (size << wq->wqe_shift));
}

static void wren_ib_kwq_sges(struct wren_sge *sge, const struct ib_sge *sg_list,
			     int num_sge)
{
	int i;

	for (i = 0; i < num_sge; i++) {
		sge[i].addr = cpu_to_le64(sg_list[i].addr);
		sge[i].length = cpu_to_le32(sg_list[i].length);
		sge[i].lkey = cpu_to_le32(sg_list[i].lkey);
	}
}

/* A send's payload: its SGEs, or with %IB_SEND_INLINE their bytes. */
static int wren_ib_ksq_payload(struct wren_ib_qp *qp,
			       const struct ib_send_wr *wr,
			       struct wren_sq_wqe *w)
{
	const struct wren_ib_kwq *sq = &qp->ksq;
	u32 len = 0;
	int i;

	if (wr->num_sge < 0 || wr->num_sge > sq->max_sge)
		return -EINVAL;
	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *at = wren_sq_wqe_inline(w);

		for (i = 0; i < wr->num_sge; i++) {
			if (wr->sg_list[i].length > sq->max_inline - len)
				return -EINVAL;
			memcpy(at + len,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			len += wr->sg_list[i].length;
		}
		w->flags |= WREN_WQE_F_INLINE;
		w->inline_len = cpu_to_le32(len);
		return 0;
	}
	wren_ib_kwq_sges(wren_sq_wqe_sges(w), wr->sg_list, wr->num_sge);
	w->num_sge = wr->num_sge;
	return 0;
}

/* A datagram's destination: its AH (in the entry if the kernel's). */
static void wren_ib_ksq_dest(struct wren_ib_qp *qp, const struct ib_ud_wr *ud,
			     struct wren_sq_wqe *w)
{
	struct wren_ib_ah *ah = to_wren_ib_ah(ud->ah);
	u32 qkey = ud->remote_qkey;

	if (ah->kernel) {
		w->flags |= WREN_WQE_F_AV;
		w->av = ah->av;
	} else {
		w->ah = cpu_to_le32(ah->ahn);
	}
	/* A Q_Key with its high bit set means the QP's own, as the verbs say. */
	if (qkey & BIT(31))
		qkey = READ_ONCE(qp->attr.qkey);
	w->remote_qpn = cpu_to_le32(ud->remote_qpn);
	w->remote_qkey = cpu_to_le32(qkey);
}

/*
 * A fast registration: the region's pages are in its page list
 * (map_mr_sg); the entry gives the rest.  Its key is the one the consumer
 * gave it (ib_update_fast_reg_key()), which the device takes.
 */
static void wren_ib_ksq_reg(const struct ib_reg_wr *reg, struct wren_sq_wqe *w)
{
	struct wren_ib_mr *mr = to_wren_ib_mr(reg->mr);

	w->opcode = WREN_WQE_REG_MR;
	w->rkey = cpu_to_le32(reg->key);
	w->remote_addr = cpu_to_le64(mr->ibmr.iova);
	w->fast_reg.length = cpu_to_le64(mr->ibmr.length);
	w->fast_reg.npages = cpu_to_le32(mr->npages);
	w->fast_reg.page_shift = ilog2(mr->ibmr.page_size);
	w->fast_reg.access = wren_ib_mr_access(reg->access);
}

/* Write the entry of one send work request; 0 or -EINVAL. */
static int wren_ib_ksq_build(struct wren_ib_qp *qp, const struct ib_send_wr *wr,
			     struct wren_sq_wqe *w)
{
	bool rc = qp->ibqp.qp_type == IB_QPT_RC;
	const struct ib_atomic_wr *atomic;
	const struct ib_rdma_wr *rdma;

	memset(w, 0, WREN_SQ_WQE_SIZE(qp->ksq.wqe_shift));
	if (wr->send_flags & ~(IB_SEND_SIGNALED | IB_SEND_SOLICITED |
			       IB_SEND_INLINE))
		return -EINVAL;
	switch (wr->opcode) {
	case IB_WR_SEND:
		w->opcode = WREN_WQE_SEND;
		break;
	case IB_WR_SEND_WITH_IMM:
		w->opcode = WREN_WQE_SEND_IMM;
		w->imm = wr->ex.imm_data;
		break;
	case IB_WR_SEND_WITH_INV:
		if (!rc)
			return -EINVAL;
		w->opcode = WREN_WQE_SEND_INV;
		w->rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		break;
	case IB_WR_REG_MR:
	case IB_WR_LOCAL_INV:
		if (!rc || wr->num_sge || wr->send_flags & IB_SEND_INLINE)
			return -EINVAL;
		if (wr->opcode == IB_WR_REG_MR) {
			wren_ib_ksq_reg(reg_wr(wr), w);
		} else {
			w->opcode = WREN_WQE_LOCAL_INV;
			w->rkey = cpu_to_le32(wr->ex.invalidate_rkey);
		}
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		if (!rc)
			return -EINVAL;
		rdma = rdma_wr(wr);
		w->opcode = wr->opcode == IB_WR_RDMA_READ ?
			    WREN_WQE_RDMA_READ :
			    wr->opcode == IB_WR_RDMA_WRITE ?
			    WREN_WQE_RDMA_WRITE : WREN_WQE_RDMA_WRITE_IMM;
		if (wr->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
			w->imm = wr->ex.imm_data;
		w->remote_addr = cpu_to_le64(rdma->remote_addr);
		w->rkey = cpu_to_le32(rdma->rkey);
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (!rc || wr->num_sge != 1 || wr->send_flags & IB_SEND_INLINE)
			return -EINVAL;
		atomic = atomic_wr(wr);
		w->opcode = wr->opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			    WREN_WQE_ATOMIC_CMP_SWP : WREN_WQE_ATOMIC_FETCH_ADD;
		w->remote_addr = cpu_to_le64(atomic->remote_addr);
		w->rkey = cpu_to_le32(atomic->rkey);
		w->atomic.compare_add = cpu_to_le64(atomic->compare_add);
		w->atomic.swap = cpu_to_le64(atomic->swap);
		break;
	default:
		return -EINVAL;
	}
	if (wr->send_flags & IB_SEND_SIGNALED ||
	    qp->sq_sig_type == IB_SIGNAL_ALL_WR)
		w->flags |= WREN_WQE_F_SIGNALED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		w->flags |= WREN_WQE_F_SOLICITED;
	if ((w->opcode == WREN_WQE_RDMA_READ ||
	     w->opcode == WREN_WQE_ATOMIC_CMP_SWP ||
	     w->opcode == WREN_WQE_ATOMIC_FETCH_ADD) &&
	    wr->send_flags & IB_SEND_INLINE)
		return -EINVAL;
	if (!rc)
		wren_ib_ksq_dest(qp, ud_wr(wr), w);
	return wren_ib_ksq_payload(qp, wr, w);
}

/* Whether every slot of @q is in flight. */
static bool wren_ib_kwq_full(struct wren_ib_kwq *q)
{
	/* Pairs with the pollers' release: a free slot's id was read. */
	return q->pi - smp_load_acquire(&q->ci) >= BIT(q->log_depth);
}

/* The entry at the producer index is built: it is @wr_id's, in flight. */
static void wren_ib_kwq_push(struct wren_ib_kwq *q, u64 wr_id)
{
	q->wr_ids[q->pi & (BIT(q->log_depth) - 1)] = wr_id;
	/* The pollers see the id before the slot is in flight. */
	smp_store_release(&q->pi, q->pi + 1);
}

/* One doorbell for the entries pushed since the producer index was @pi. */
static void wren_ib_kwq_ring(struct wren_ib_kwq *q, u32 pi)
{
	/* writel() orders the entries' stores before the doorbell. */
	if (q->pi != pi)
		writel(q->pi & WREN_WQ_DB_PI, q->db);
}

/**
 * wren_ib_post_send() - post send work requests to a kernel QP
 * @ibqp: the QP
 * @wr: the chain of requests: SEND and SEND_WITH_IMM, and on RC the RDMA
 *	and atomic operations; signaled, solicited and inline flags
 * @bad_wr: the first request not posted, on failure
 *
 * Return: 0; -ENOMEM when the send queue is full; -EINVAL for a request
 * the QP cannot take; -EOPNOTSUPP for a user's QP, whose user posts in
 * user space.  The requests before @bad_wr are posted.
 */
int wren_ib_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		      const struct ib_send_wr **bad_wr)
{
	struct wren_ib_qp *qp = to_wren_ib_qp(ibqp);
	struct wren_ib_kwq *sq = &qp->ksq;
	unsigned long flags;
	int err = 0;
	u32 pi;

	if (!qp->kernel) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&sq->lock, flags);
	pi = sq->pi;
	for (; wr; wr = wr->next) {
		if (wren_ib_kwq_full(sq)) {
			err = -ENOMEM;
			break;
		}
		err = wren_ib_ksq_build(qp, wr,
					wren_ib_kwq_entry(&qp->sq, sq,
							  sizeof(struct wren_sq_wqe)));
		if (err) {
			ibdev_dbg_ratelimited(ibqp->device,
					      "post_send QP %u: opcode %d, flags %#x, %d SGEs refused\n",
					      ibqp->qp_num, wr->opcode,
					      wr->send_flags, wr->num_sge);
			break;
		}
		wren_ib_kwq_push(sq, wr->wr_id);
	}
	wren_ib_kwq_ring(sq, pi);
	spin_unlock_irqrestore(&sq->lock, flags);
	wren_ib_kcq_wake_flush(ibqp->send_cq);
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * wren_ib_post_recv() - post receive work requests to a kernel QP
 * @ibqp: the QP
 * @wr: the chain of requests
 * @bad_wr: the first request not posted, on failure
 *
 * Return: 0; -ENOMEM when the receive queue is full; -EINVAL for too
 * many SGEs; -EOPNOTSUPP for a user's QP.  The requests before @bad_wr
 * are posted.
 */
int wren_ib_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct wren_ib_qp *qp = to_wren_ib_qp(ibqp);
	struct wren_ib_kwq *rq = &qp->krq;
	unsigned long flags;
	int err = 0;
	u32 pi;

	if (!qp->kernel) {
		*bad_wr = wr;
		return -EOPNOTSUPP;
	}
	spin_lock_irqsave(&rq->lock, flags);
	pi = rq->pi;
	for (; wr; wr = wr->next) {
		struct wren_rq_wqe *w;

		if (wren_ib_kwq_full(rq)) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > rq->max_sge) {
			err = -EINVAL;
			break;
		}
		w = wren_ib_kwq_entry(&qp->rq, rq, sizeof(struct wren_rq_wqe));
		memset(w, 0, WREN_RQ_WQE_SIZE(rq->wqe_shift));
		wren_ib_kwq_sges(wren_rq_wqe_sges(w), wr->sg_list, wr->num_sge);
		w->num_sge = wr->num_sge;
		/* Receives complete in ring order: the id is the slot's. */
		w->req_id = cpu_to_le16(rq->pi);
		wren_ib_kwq_push(rq, wr->wr_id);
	}
	wren_ib_kwq_ring(rq, pi);
	spin_unlock_irqrestore(&rq->lock, flags);
	wren_ib_kcq_wake_flush(ibqp->recv_cq);
	if (err)
		*bad_wr = wr;
	return err;
}
