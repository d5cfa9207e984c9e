// SPDX-License-Identifier: GPL-2.0
/*
 * Wren RDMA driver: what `rdma res show` prints of a QP, CQ, MR or SRQ
 * beyond ib_core's own fields.  The driver attributes come from the
 * device's context of the object (QUERY_CTX), which `-r` dumps as it is;
 * Documentation/rdma-driver.rst, "Resources", says what each one means.
 */
#include <rdma/ib_umem.h>
#include <rdma/restrack.h>
#include <uapi/rdma/rdma_netlink.h>

#include "wren_ib.h"

/* Every context fits this; the device writes min(its size, this). */
#define WREN_IB_CTX_LEN		128

static_assert(sizeof(struct wren_qp_ctx) <= WREN_IB_CTX_LEN);
static_assert(sizeof(struct wren_cq_ctx) <= WREN_IB_CTX_LEN);
static_assert(sizeof(struct wren_mr_ctx) <= WREN_IB_CTX_LEN);
static_assert(sizeof(struct wren_srq_ctx) <= WREN_IB_CTX_LEN);

/* An object's context as QUERY_CTX writes it, whatever its type. */
union wren_ib_ctx {
	struct wren_qp_ctx qp;
	struct wren_cq_ctx cq;
	struct wren_mr_ctx mr;
	struct wren_srq_ctx srq;
	u8 buf[WREN_IB_CTX_LEN];
};

/*
 * Read an object's context into @c.  Return the bytes of it that hold the
 * device's context, or a negative errno.
 */
static int wren_ib_query_ctx(struct ib_device *ibdev, u8 type, u32 handle,
			     union wren_ib_ctx *c)
{
	struct wren_ib_dev *dev = to_wren_ib_dev(ibdev);
	int size;

	if (!(dev->caps->caps & WREN_CAP_QUERY_CTX))
		return -EOPNOTSUPP;
	size = wren_cmd_query_ctx(dev->wdev, type, handle, c->buf,
				  WREN_IB_CTX_LEN);
	if (size < 0)
		ibdev_dbg_ratelimited(ibdev, "QUERY_CTX %u of %#x failed: %d\n",
				      type, handle, size);
	return size < 0 ? size : min(size, WREN_IB_CTX_LEN);
}

static int wren_ib_put_raw(struct sk_buff *msg, struct ib_device *ibdev,
			   u8 type, u32 handle)
{
	union wren_ib_ctx c;
	int size;

	size = wren_ib_query_ctx(ibdev, type, handle, &c);
	if (size < 0)
		return size;
	return nla_put(msg, RDMA_NLDEV_ATTR_RES_RAW, size, c.buf);
}

/* The driver attributes of one object, a table of named values. */
struct wren_ib_attr {
	const char *name;
	u64 value;
};

static int wren_ib_put_attrs(struct sk_buff *msg,
			     const struct wren_ib_attr *attrs, unsigned int n,
			     const char *peer)
{
	struct nlattr *table;
	unsigned int i;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < n; i++)
		if (rdma_nl_put_driver_u64(msg, attrs[i].name, attrs[i].value))
			goto err;
	if (peer && rdma_nl_put_driver_string(msg, "peer", peer))
		goto err;
	nla_nest_end(msg, table);
	return 0;
err:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

static int wren_ib_put_qp_attrs(struct sk_buff *msg, const union wren_ib_ctx *c)
{
	const struct wren_qp_ctx *q = &c->qp;
	const struct wren_ib_attr attrs[] = {
		{ "sq_pi", le16_to_cpu(q->sq_pi) },
		{ "sq_ci", le16_to_cpu(q->sq_ci) },
		{ "sq_inflight", le32_to_cpu(q->sq_inflight) },
		{ "rq_pi", le16_to_cpu(q->rq_pi) },
		{ "rq_ci", le16_to_cpu(q->rq_ci) },
		{ "rd_atom_inflight", le32_to_cpu(q->rd_atom_inflight) },
		{ "counter_set", le32_to_cpu(q->counter_set) },
		{ "tx_msgs", le64_to_cpu(q->tx_msgs) },
		{ "rx_msgs", le64_to_cpu(q->rx_msgs) },
		{ "retx_pkts", le64_to_cpu(q->retx_pkts) },
		{ "rnr_waits", le64_to_cpu(q->rnr_waits) },
		/* Last: only while the adapter holds a context for the peer. */
		{ "tc", le32_to_cpu(q->tc_id) },
	};
	unsigned int n = ARRAY_SIZE(attrs);
	char peer[16];

	if (q->tc_id == cpu_to_le32(WREN_CTX_TC_NONE))
		n--;
	if (!q->peer_ipv4)
		return wren_ib_put_attrs(msg, attrs, n, NULL);
	snprintf(peer, sizeof(peer), "%pI4", &q->peer_ipv4);
	return wren_ib_put_attrs(msg, attrs, n, peer);
}

static int wren_ib_put_cq_attrs(struct sk_buff *msg, const union wren_ib_ctx *c)
{
	const struct wren_cq_ctx *q = &c->cq;
	const struct wren_ib_attr attrs[] = {
		{ "depth", 1U << q->log_depth },
		{ "pi", le32_to_cpu(q->pi) },
		{ "ci", le32_to_cpu(q->ci) },
		{ "armed", q->armed },
		{ "overflows", le64_to_cpu(q->overflows) },
		{ "events", le64_to_cpu(q->events) },
	};

	return wren_ib_put_attrs(msg, attrs, ARRAY_SIZE(attrs), NULL);
}

/*
 * The driver attributes of an object, from its context, by @put; none
 * from a device that cannot say.
 */
static int wren_ib_put_ctx_attrs(struct sk_buff *msg, struct ib_device *ibdev,
				 u8 type, u32 handle,
				 int (*put)(struct sk_buff *msg,
					    const union wren_ib_ctx *c))
{
	union wren_ib_ctx c;
	int size;

	size = wren_ib_query_ctx(ibdev, type, handle, &c);
	if (size == -EOPNOTSUPP)
		return 0;
	return size < 0 ? size : put(msg, &c);
}

/**
 * wren_ib_fill_res_qp_entry() - a QP's driver attributes
 * @msg: the netlink message
 * @ibqp: the QP
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	/* ib_core names an IB_QPT_DRIVER QP's type "DRIVER"; this says which. */
	if (ibqp->qp_type == IB_QPT_DRIVER &&
	    nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUBTYPE, "RD"))
		return -EMSGSIZE;
	return wren_ib_put_ctx_attrs(msg, ibqp->device, WREN_CTX_QP,
				     ibqp->qp_num, wren_ib_put_qp_attrs);
}

/**
 * wren_ib_fill_res_qp_entry_raw() - the device's context of a QP
 * @msg: the netlink message
 * @ibqp: the QP
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_fill_res_qp_entry_raw(struct sk_buff *msg, struct ib_qp *ibqp)
{
	return wren_ib_put_raw(msg, ibqp->device, WREN_CTX_QP, ibqp->qp_num);
}

/**
 * wren_ib_fill_res_cq_entry() - a CQ's driver attributes
 * @msg: the netlink message
 * @ibcq: the CQ
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_fill_res_cq_entry(struct sk_buff *msg, struct ib_cq *ibcq)
{
	return wren_ib_put_ctx_attrs(msg, ibcq->device, WREN_CTX_CQ,
				     to_wren_ib_cq(ibcq)->cqn,
				     wren_ib_put_cq_attrs);
}

/**
 * wren_ib_fill_res_cq_entry_raw() - the device's context of a CQ
 * @msg: the netlink message
 * @ibcq: the CQ
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_fill_res_cq_entry_raw(struct sk_buff *msg, struct ib_cq *ibcq)
{
	return wren_ib_put_raw(msg, ibcq->device, WREN_CTX_CQ,
			       to_wren_ib_cq(ibcq)->cqn);
}

/**
 * wren_ib_fill_res_mr_entry() - an MR's driver attributes
 * @msg: the netlink message
 * @ibmr: the MR
 *
 * The pages the driver pinned for it (a user MR) and the 4 KiB pages of
 * its page list; with the device's context, the entries of the page list,
 * their size and whether the key may be used.
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_fill_res_mr_entry(struct sk_buff *msg, struct ib_mr *ibmr)
{
	struct wren_ib_mr *mr = to_wren_ib_mr(ibmr);
	struct wren_ib_attr attrs[] = {
		{ "pinned_pages", mr->umem ? ib_umem_num_pages(mr->umem) : 0 },
		{ "pbl_pages", mr->pbl.l1 ? mr->pbl.npages + 1 : 0 },
		/* Then what the device has, if it says. */
		{ "pbl_entries", 0 },
		{ "page_shift", 0 },
		{ "valid", 0 },
	};
	union wren_ib_ctx c;
	int size;

	/* The DMA MR has no region in the device. */
	if (ibmr->lkey == WREN_LKEY_DMA)
		return 0;
	size = wren_ib_query_ctx(ibmr->device, WREN_CTX_MR, ibmr->lkey, &c);
	if (size == -EOPNOTSUPP)
		return wren_ib_put_attrs(msg, attrs, 2, NULL);
	if (size < 0)
		return size;
	attrs[2].value = le32_to_cpu(c.mr.npages);
	attrs[3].value = c.mr.page_shift;
	attrs[4].value = c.mr.state == WREN_MR_STATE_VALID;
	return wren_ib_put_attrs(msg, attrs, ARRAY_SIZE(attrs), NULL);
}

/**
 * wren_ib_fill_res_mr_entry_raw() - the device's context of an MR
 * @msg: the netlink message
 * @ibmr: the MR
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_fill_res_mr_entry_raw(struct sk_buff *msg, struct ib_mr *ibmr)
{
	if (ibmr->lkey == WREN_LKEY_DMA)
		return -EOPNOTSUPP;
	return wren_ib_put_raw(msg, ibmr->device, WREN_CTX_MR, ibmr->lkey);
}

#ifdef HAVE_FILL_RES_SRQ
static int wren_ib_put_srq_attrs(struct sk_buff *msg,
				 const union wren_ib_ctx *c)
{
	const struct wren_srq_ctx *q = &c->srq;
	const struct wren_ib_attr attrs[] = {
		{ "depth", 1U << q->log_depth },
		{ "pi", le16_to_cpu(q->pi) },
		{ "ci", le16_to_cpu(q->ci) },
		{ "limit", le32_to_cpu(q->limit) },
		{ "qps", le32_to_cpu(q->qps) },
	};

	return wren_ib_put_attrs(msg, attrs, ARRAY_SIZE(attrs), NULL);
}

/**
 * wren_ib_fill_res_srq_entry() - an SRQ's driver attributes
 * @msg: the netlink message
 * @ibsrq: the SRQ
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_fill_res_srq_entry(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	return wren_ib_put_ctx_attrs(msg, ibsrq->device, WREN_CTX_SRQ,
				     to_wren_ib_srq(ibsrq)->srqn,
				     wren_ib_put_srq_attrs);
}

/**
 * wren_ib_fill_res_srq_entry_raw() - the device's context of an SRQ
 * @msg: the netlink message
 * @ibsrq: the SRQ
 *
 * Return: 0, or a negative errno.
 */
int wren_ib_fill_res_srq_entry_raw(struct sk_buff *msg, struct ib_srq *ibsrq)
{
	return wren_ib_put_raw(msg, ibsrq->device, WREN_CTX_SRQ,
			       to_wren_ib_srq(ibsrq)->srqn);
}
#endif
