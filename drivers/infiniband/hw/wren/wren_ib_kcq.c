// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: the kernel's completion queues at work.  The driver
 * polls and arms them itself, for the kernel's verbs consumers (the MAD
 * layer, the connection manager, storage over RDMA), as libwren does for
 * user space: the device writes completion entries with a phase bit into
 * a ring in coherent memory, the poller reads them and returns the slots
 * with a doorbell write of its consumer index.
 *
 * A completion names its QP by number and its work request by slot; a
 * kernel QP is UD or RC, whose queues complete in ring order, so a
 * completion of slot s retires every slot up to s (unsignaled sends
 * included).  An entry that names no kernel QP, or a slot with nothing
 * posted, is dropped.
 *
 * A device that failed completes nothing more: the pollers then complete
 * every work request still posted with IB_WC_WR_FLUSH_ERR, as a QP in the
 * error state would, so that the kernel's consumers (ib_drain_qp() among
 * them) get back everything they posted.
 */
#include <linux/io.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>

#include "wren_ib.h"

/*
 * The verbs status closest to each device status; the device status is
 * the vendor error.  The same choices as libwren's (see its cq_poll.c).
 */
static const enum ib_wc_status wren_ib_wc_status_map[] = {
	[WREN_CQE_SUCCESS] = IB_WC_SUCCESS,
	[WREN_CQE_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[WREN_CQE_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[WREN_CQE_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[WREN_CQE_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[WREN_CQE_BAD_DEST_QP] = IB_WC_REM_INV_RD_REQ_ERR,
	[WREN_CQE_RNR] = IB_WC_RNR_RETRY_EXC_ERR,
	[WREN_CQE_REMOTE_UNRESPONSIVE] = IB_WC_RESP_TIMEOUT_ERR,
	[WREN_CQE_REMOTE_UNREACHABLE] = IB_WC_RETRY_EXC_ERR,
	[WREN_CQE_REMOTE_OP_ERR] = IB_WC_REM_OP_ERR,
	[WREN_CQE_REMOTE_TOO_LONG] = IB_WC_REM_INV_REQ_ERR,
	[WREN_CQE_LOC_DMA_ERR] = IB_WC_GENERAL_ERR,
	[WREN_CQE_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
};

/* A status the table does not know (a newer device's) is a general error. */
static enum ib_wc_status wren_ib_wc_status(u8 status)
{
	if (status == WREN_CQE_SUCCESS)
		return IB_WC_SUCCESS;
	/* A hole in the table reads IB_WC_SUCCESS (0): not for a failure. */
	if (status >= ARRAY_SIZE(wren_ib_wc_status_map) ||
	    wren_ib_wc_status_map[status] == IB_WC_SUCCESS)
		return IB_WC_GENERAL_ERR;
	return wren_ib_wc_status_map[status];
}

/* The entry at consumer index @ci, if the device has written it. */
static struct wren_cqe *wren_ib_kcq_entry(struct wren_ib_cq *cq, u32 ci)
{
	struct wren_cqe *cqe = (struct wren_cqe *)cq->ring.buf +
			       (ci & (BIT(cq->log_depth) - 1));
	/* The phase is 1 on the first lap, 0 on the second, and so on. */
	u8 phase = !((ci >> cq->log_depth) & 1);

	if ((READ_ONCE(cqe->flags) & WREN_CQE_F_PHASE) != phase)
		return NULL;
	/* The rest of the entry, not older than its phase. */
	dma_rmb();
	return cqe;
}

/*
 * Retire the slots of @wq up to @index, the slot a completion names; false
 * if that slot holds nothing posted.  The acquire on the producer index
 * makes the work request ids written before it visible; the release on
 * the consumer index hands the slots back only after their ids were read.
 */
static bool wren_ib_kwq_retire(struct wren_ib_kwq *wq, u16 index, u64 *wr_id)
{
	u32 mask = BIT(wq->log_depth) - 1;
	u32 ci = wq->ci;
	u32 n = ((index - ci) & mask) + 1;
	u32 pi;

	/* Pairs with the posters' release: the ids before it are written. */
	pi = smp_load_acquire(&wq->pi);
	if (n > pi - ci)
		return false;
	*wr_id = wq->wr_ids[index & mask];
	/* Pairs with the posters' acquire: the ids are read before reuse. */
	smp_store_release(&wq->ci, ci + n);
	return true;
}

static bool wren_ib_cqe_is_recv(u8 opcode)
{
	return opcode == WREN_CQE_OP_RECV || opcode == WREN_CQE_OP_RECV_RDMA_IMM;
}

static enum ib_wc_opcode wren_ib_wc_opcode(u8 opcode)
{
	switch (opcode) {
	case WREN_CQE_OP_RDMA_WRITE:
		return IB_WC_RDMA_WRITE;
	case WREN_CQE_OP_RDMA_READ:
		return IB_WC_RDMA_READ;
	case WREN_CQE_OP_ATOMIC_CMP_SWP:
		return IB_WC_COMP_SWAP;
	case WREN_CQE_OP_ATOMIC_FETCH_ADD:
		return IB_WC_FETCH_ADD;
	case WREN_CQE_OP_REG_MR:
		return IB_WC_REG_MR;
	case WREN_CQE_OP_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case WREN_CQE_OP_RECV:
		return IB_WC_RECV;
	case WREN_CQE_OP_RECV_RDMA_IMM:
		return IB_WC_RECV_RDMA_WITH_IMM;
	default:
		return IB_WC_SEND;
	}
}

/*
 * Make @wc of the entry @cqe, retiring its work request; false if it
 * belongs to no kernel QP or names nothing posted.  Under the RCU read
 * lock: a QP found here is not freed before it is released.
 */
VISIBLE_IF_KUNIT bool wren_ib_kcq_fill(struct wren_ib_dev *dev,
				       const struct wren_cqe *cqe,
				       struct ib_wc *wc)
{
	u32 qpn = le32_to_cpu(cqe->qpn);
	bool recv = wren_ib_cqe_is_recv(cqe->opcode);
	struct wren_ib_qp *qp;
	u64 wr_id;

	qp = xa_load(&dev->qps, qpn);
	/* QP 0 is none: wren_ib_kcq_clean() marks the entries of a gone QP. */
	if (!qp || !qp->kernel) {
		if (qpn)
			ibdev_dbg_ratelimited(&dev->ibdev,
					      "dropped a completion of QP %u, not the kernel's\n",
					      qpn);
		return false;
	}
	if (!wren_ib_kwq_retire(recv ? &qp->krq : &qp->ksq,
				le16_to_cpu(cqe->wqe_index), &wr_id)) {
		ibdev_dbg_ratelimited(&dev->ibdev,
				      "dropped opcode %u of QP %u slot %u: nothing posted there\n",
				      cqe->opcode, qpn,
				      le16_to_cpu(cqe->wqe_index));
		return false;
	}

	memset(wc, 0, sizeof(*wc));
	wc->wr_id = wr_id;
	wc->status = wren_ib_wc_status(cqe->status);
	wc->vendor_err = cqe->status;
	wc->opcode = wren_ib_wc_opcode(cqe->opcode);
	wc->byte_len = le32_to_cpu(cqe->byte_len);
	wc->qp = &qp->ibqp;
	wc->port_num = 1;
	if (!recv)
		return true;
	wc->src_qp = le32_to_cpu(cqe->src_qpn);
	if (cqe->flags & WREN_CQE_F_IMM) {
		wc->wc_flags |= IB_WC_WITH_IMM;
		wc->ex.imm_data = cqe->imm;
	} else if (cqe->flags & WREN_CQE_F_INV) {
		wc->wc_flags |= IB_WC_WITH_INVALIDATE;
		wc->ex.invalidate_rkey = le32_to_cpu(cqe->inv_key);
	}
	/*
	 * The GRH is in IPv6 form with IPv4-mapped GIDs: say so, for its next
	 * header is not UDP and ib_core would take it for RoCE v1.
	 */
	if (cqe->flags & WREN_CQE_F_GRH) {
		wc->wc_flags |= IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = RDMA_NETWORK_IPV6;
	}
	return true;
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_kcq_fill);

/* Flush @wq's posted work requests into @wc, oldest first. */
static int wren_ib_kwq_flush(struct wren_ib_qp *qp, struct wren_ib_kwq *wq,
			     enum ib_wc_opcode opcode, struct ib_wc *wc,
			     int num_entries)
{
	int n = 0;
	u64 wr_id;

	while (n < num_entries && wren_ib_kwq_retire(wq, (u16)wq->ci, &wr_id)) {
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = wr_id;
		wc[n].status = IB_WC_WR_FLUSH_ERR;
		wc[n].opcode = opcode;
		wc[n].qp = &qp->ibqp;
		wc[n].port_num = 1;
		n++;
	}
	return n;
}

/* @qp's send (@recv false) or receive queue if a kernel one on @ibcq. */
static struct wren_ib_kwq *wren_ib_kwq_on(struct wren_ib_qp *qp,
					  struct ib_cq *ibcq, bool recv)
{
	if (!qp->kernel)
		return NULL;
	if (recv)
		return qp->ibqp.recv_cq == ibcq && !qp->ibqp.srq ?
		       &qp->krq : NULL;
	return qp->ibqp.send_cq == ibcq ? &qp->ksq : NULL;
}

/*
 * The flush completions of the kernel QPs whose queues complete on @ibcq;
 * under the RCU read lock, like wren_ib_kcq_fill().
 */
VISIBLE_IF_KUNIT int wren_ib_kcq_flush(struct wren_ib_dev *dev,
				       struct ib_cq *ibcq, int num_entries,
				       struct ib_wc *wc)
{
	struct wren_ib_kwq *wq;
	struct wren_ib_qp *qp;
	unsigned long qpn;
	int n = 0;

	xa_for_each(&dev->qps, qpn, qp) {
		wq = wren_ib_kwq_on(qp, ibcq, false);
		if (wq)
			n += wren_ib_kwq_flush(qp, wq, IB_WC_SEND, wc + n,
					       num_entries - n);
		wq = wren_ib_kwq_on(qp, ibcq, true);
		if (wq)
			n += wren_ib_kwq_flush(qp, wq, IB_WC_RECV, wc + n,
					       num_entries - n);
		if (n == num_entries)
			break;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_kcq_flush);

/* Whether a kernel QP has work posted that flushes on @ibcq. */
static bool wren_ib_kcq_flush_pending(struct wren_ib_dev *dev,
				      struct ib_cq *ibcq)
{
	struct wren_ib_kwq *wq;
	struct wren_ib_qp *qp;
	unsigned long qpn;
	bool pending = false;
	int recv;

	rcu_read_lock();
	xa_for_each(&dev->qps, qpn, qp) {
		for (recv = 0; recv < 2 && !pending; recv++) {
			wq = wren_ib_kwq_on(qp, ibcq, recv);
			/* A hint to poll again: the poll reads them in order. */
			pending = wq && READ_ONCE(wq->pi) != READ_ONCE(wq->ci);
		}
		if (pending)
			break;
	}
	rcu_read_unlock();
	return pending;
}

/**
 * wren_ib_kcq_wake_flush() - after a post to a failed device, wake its CQ
 * @ibcq: the CQ the posted work completes on
 *
 * No interrupt tells the CQ's consumer of the flush completions; this
 * does, as the device's event would have.
 */
void wren_ib_kcq_wake_flush(struct ib_cq *ibcq)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibcq->device);

	if (READ_ONCE(dev->fatal) && ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

/**
 * wren_ib_kcq_kick() - wake the consumers of every kernel CQ
 * @dev: the device, which failed: their flush completions wait
 *
 * Atomic context, under the RCU read lock.
 */
void wren_ib_kcq_kick(struct wren_ib_dev *dev)
{
	struct wren_ib_cq *cq;
	unsigned long cqn;

	xa_for_each(&dev->cqs, cqn, cq)
		if (cq->kernel && cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
}

/**
 * wren_ib_poll_cq() - take completions from a kernel CQ
 * @ibcq: the CQ
 * @num_entries: at most this many
 * @wc: where they go
 *
 * Return: the number taken, or -EOPNOTSUPP for a user's CQ, which its
 * user polls in user space.
 */
int wren_ib_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibcq->device);
	struct wren_ib_cq *cq = to_wren_ib_cq(ibcq);
	struct wren_cqe *cqe;
	unsigned long flags;
	int n = 0;
	u32 start;

	if (!cq->kernel)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, flags);
	start = cq->ci;
	rcu_read_lock();
	while (n < num_entries && (cqe = wren_ib_kcq_entry(cq, cq->ci))) {
		cq->ci++;
		if (wren_ib_kcq_fill(dev, cqe, &wc[n]))
			n++;
	}
	if (READ_ONCE(dev->fatal))
		n += wren_ib_kcq_flush(dev, ibcq, num_entries - n, wc + n);
	rcu_read_unlock();
	if (cq->ci != start) {
		/* Every read of the slots before the device may write them. */
		mb();
		writel(cq->ci & WREN_CQ_DB_CI, cq->db);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

/**
 * wren_ib_req_notify_cq() - arm a kernel CQ for one event
 * @ibcq: the CQ
 * @flags: %IB_CQ_NEXT_COMP or %IB_CQ_SOLICITED, with
 *	%IB_CQ_REPORT_MISSED_EVENTS
 *
 * The device raises the event at the next completion it writes; one
 * written before the arm raises none, which %IB_CQ_REPORT_MISSED_EVENTS
 * reports.
 *
 * Return: 1 if asked to report missed events and a completion waits
 * (or, the device having failed, a flush completion), else 0;
 * -EOPNOTSUPP for a user's CQ.
 */
int wren_ib_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibcq->device);
	struct wren_ib_cq *cq = to_wren_ib_cq(ibcq);
	unsigned long irqflags;
	u32 val;
	int ret;

	if (!cq->kernel)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&cq->lock, irqflags);
	val = (cq->ci & WREN_CQ_DB_CI) | WREN_CQ_DB_ARM;
	if ((flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED)
		val |= WREN_CQ_DB_SOLICITED;
	writel(val, cq->db);
	ret = flags & IB_CQ_REPORT_MISSED_EVENTS &&
	      (wren_ib_kcq_entry(cq, cq->ci) ||
	       (READ_ONCE(dev->fatal) && wren_ib_kcq_flush_pending(dev, ibcq)));
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/**
 * wren_ib_kcq_clean() - drop a QP's completions waiting in a kernel CQ
 * @cq: the CQ
 * @qpn: the QP, which the device has destroyed or reset: it writes no
 *	more of its completions
 *
 * The entries are marked as QP 0's, which the pollers drop: a QP of the
 * same number later, or the same QP after a reset, must not take them.
 */
void wren_ib_kcq_clean(struct wren_ib_cq *cq, u32 qpn)
{
	struct wren_cqe *cqe;
	unsigned long flags;
	u32 ci;

	spin_lock_irqsave(&cq->lock, flags);
	for (ci = cq->ci; ci - cq->ci < BIT(cq->log_depth) &&
	     (cqe = wren_ib_kcq_entry(cq, ci)); ci++)
		if (le32_to_cpu(cqe->qpn) == qpn)
			cqe->qpn = 0;
	spin_unlock_irqrestore(&cq->lock, flags);
}
EXPORT_SYMBOL_IF_KUNIT(wren_ib_kcq_clean);
