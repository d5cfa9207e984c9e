// SPDX-License-Identifier: GPL-2.0
/*
 * Wren admin commands: one function per command, taking and returning
 * values in CPU byte order.  The wire layout stays in this file.
 */
#include <linux/dma-mapping.h>
#include <linux/string.h>

#include "wren_dev.h"

/* GET_ATTR's answer, in CPU byte order. */
VISIBLE_IF_KUNIT void wren_decode_attr(const struct wren_dev_attr *a,
				       struct wren_caps *c)
{
	u32 spec = le32_to_cpu(a->spec_version);
	u32 fw = le32_to_cpu(a->fw_version);

	c->spec_major = FIELD_GET(WREN_VERSION_MAJOR, spec);
	c->spec_minor = FIELD_GET(WREN_VERSION_MINOR, spec);
	c->fw_major = FIELD_GET(WREN_FW_VERSION_MAJOR, fw);
	c->fw_minor = FIELD_GET(WREN_FW_VERSION_MINOR, fw);
	c->fw_patch = FIELD_GET(WREN_FW_VERSION_PATCH, fw);
	c->caps = le64_to_cpu(a->caps);
	c->node_guid = le64_to_cpu(a->node_guid);
	memcpy(c->mac_addr, a->mac_addr, ETH_ALEN);
	c->mtu = le16_to_cpu(a->mtu);
	c->ipv4_addr = a->ipv4_addr;
	c->link_speed_mbps = le32_to_cpu(a->link_speed_mbps);
	memcpy(c->gid, a->gid, sizeof(c->gid));
	memcpy(c->serial, a->serial, sizeof(a->serial));
	c->serial[sizeof(a->serial)] = '\0';
	c->max_eq = le32_to_cpu(a->max_eq);
	c->max_eq_depth = le32_to_cpu(a->max_eq_depth);
	c->max_pd = le32_to_cpu(a->max_pd);
	c->max_cq = le32_to_cpu(a->max_cq);
	c->max_cq_depth = le32_to_cpu(a->max_cq_depth);
	c->max_qp = le32_to_cpu(a->max_qp);
	c->max_qp_depth = le32_to_cpu(a->max_qp_depth);
	c->max_sge = le32_to_cpu(a->max_sge);
	c->max_recv_sge = le32_to_cpu(a->max_recv_sge);
	c->max_rd_atom = le32_to_cpu(a->max_rd_atom);
	c->max_res_rd_atom = le32_to_cpu(a->max_res_rd_atom);
	c->max_srq = le32_to_cpu(a->max_srq);
	c->max_counter_set = le32_to_cpu(a->max_counter_set);
	c->max_inline = le32_to_cpu(a->max_inline);
	c->max_ah = le32_to_cpu(a->max_ah);
	c->max_mr = le32_to_cpu(a->max_mr);
	c->max_mr_size = le64_to_cpu(a->max_mr_size);
	c->page_size_cap = le64_to_cpu(a->page_size_cap);
	c->db_page_count = le32_to_cpu(a->db_page_count);
	c->db_page_size = WREN_DB_PAGE_SIZE;
	c->max_msg_size = le32_to_cpu(a->max_msg_size);
	c->tc_cache = le32_to_cpu(a->tc_cache);
	c->min_tc_log = a->min_tc_log;
	c->max_tc_log = a->max_tc_log;
}
EXPORT_SYMBOL_IF_KUNIT(wren_decode_attr);

/**
 * wren_cmd_get_attr() - read and decode the device's attributes
 * @wdev: the device
 * @caps: filled in on success
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_get_attr(struct wren_dev *wdev, struct wren_caps *caps)
{
	struct device *dev = &wdev->pdev->dev;
	struct wren_cmd_get_attr cmd = {};
	struct wren_dev_attr *attr;
	dma_addr_t dma;
	int err;

	attr = dma_alloc_coherent(dev, sizeof(*attr), &dma, GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	cmd.buf_addr = cpu_to_le64(dma);
	cmd.buf_len = cpu_to_le32(sizeof(*attr));
	err = wren_admin_exec(wdev, WREN_ADMIN_GET_ATTR, &cmd, sizeof(cmd), NULL);
	if (!err)
		wren_decode_attr(attr, caps);
	dma_free_coherent(dev, sizeof(*attr), attr, dma);
	return err;
}

/**
 * wren_cmd_set_tc_table() - hand the device its transport-context table
 * @wdev: the device
 * @dma: the table's DMA address, WREN_TC_TABLE_ALIGN aligned
 * @log_entries: log2 of its number of records
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_set_tc_table(struct wren_dev *wdev, dma_addr_t dma,
			  unsigned int log_entries)
{
	struct wren_cmd_set_tc_table cmd = {
		.base_addr = cpu_to_le64(dma),
		.log_entries = log_entries,
	};

	return wren_admin_exec(wdev, WREN_ADMIN_SET_TC_TABLE, &cmd, sizeof(cmd),
			       NULL);
}
EXPORT_SYMBOL_IF_KUNIT(wren_cmd_set_tc_table);

/**
 * wren_cmd_set_feature() - set a device feature
 * @wdev: the device
 * @feature: &enum wren_feature_id
 * @value: its new value
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_set_feature(struct wren_dev *wdev, u16 feature, u32 value)
{
	struct wren_cmd_feature cmd = {
		.feature_id = cpu_to_le16(feature),
		.value = cpu_to_le32(value),
	};

	return wren_admin_exec(wdev, WREN_ADMIN_SET_FEATURE, &cmd, sizeof(cmd),
			       NULL);
}
EXPORT_SYMBOL_IF_KUNIT(wren_cmd_set_feature);

/**
 * wren_cmd_create_eq() - create an event queue
 * @wdev: the device
 * @base: DMA address of the ring, 4 KiB aligned
 * @log_depth: log2 of its number of entries
 * @vector: MSI-X vector it raises
 * @id: the device's EQ id, on success
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_create_eq(struct wren_dev *wdev, dma_addr_t base,
		       unsigned int log_depth, u16 vector, u32 *id)
{
	struct wren_cmd_create_eq cmd = {
		.base_addr = cpu_to_le64(base),
		.log_depth = log_depth,
		.flags = WREN_EQ_FLAG_INTR,
		.msix_vector = cpu_to_le16(vector),
	};
	struct wren_admin_cqe cqe;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_CREATE_EQ, &cmd, sizeof(cmd),
			      &cqe);
	if (!err)
		*id = le32_to_cpu(cqe.result[0]);
	return err;
}
EXPORT_SYMBOL_IF_KUNIT(wren_cmd_create_eq);

/*
 * A command that gives an object back, or that only stops one (a QP to
 * ERR or RESET), succeeds on a fenced device, also when the device died
 * under it: the fence stopped its DMA, so the host memory behind the
 * object may go at once, and the reset of the recovery forgets the object
 * and its keys before the device runs again.  The caller then frees
 * everything, as the verbs' users and ib_core expect of a destroy.
 */
static int wren_cmd_release(struct wren_dev *wdev, u8 opcode, const void *body,
			    size_t len)
{
	int err = wren_admin_exec(wdev, opcode, body, len, NULL);

	return err && wren_dead(wdev) ? 0 : err;
}

static int wren_cmd_destroy(struct wren_dev *wdev, u8 opcode, u32 handle)
{
	struct wren_cmd_destroy_obj cmd = { .handle = cpu_to_le32(handle) };

	return wren_cmd_release(wdev, opcode, &cmd, sizeof(cmd));
}

/**
 * wren_cmd_destroy_eq() - destroy an event queue
 * @wdev: the device
 * @id: its id
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_destroy_eq(struct wren_dev *wdev, u32 id)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_EQ, id);
}
EXPORT_SYMBOL_IF_KUNIT(wren_cmd_destroy_eq);

/**
 * wren_cmd_alloc_pd() - allocate a protection domain
 * @wdev: the device
 * @kernel: a kernel PD, whose QPs may name memory by bus address
 *	(WREN_LKEY_DMA); never for a PD of user space
 * @pdn: the PD number, on success
 *
 * Return: 0, -EOPNOTSUPP for a kernel PD on a device without
 * WREN_CAP_DMA_LKEY, -ENOMEM if the device has no PD left, or another
 * negative errno.
 */
int wren_cmd_alloc_pd(struct wren_dev *wdev, bool kernel, u32 *pdn)
{
	struct wren_cmd_alloc_pd cmd = {
		.flags = cpu_to_le32(kernel ? WREN_PD_FLAG_KERNEL : 0),
	};
	struct wren_admin_cqe cqe;
	int err;

	if (kernel && !(wdev->caps.caps & WREN_CAP_DMA_LKEY))
		return -EOPNOTSUPP;
	err = wren_admin_exec(wdev, WREN_ADMIN_ALLOC_PD, &cmd, sizeof(cmd), &cqe);
	if (!err)
		*pdn = le32_to_cpu(cqe.result[0]);
	return err;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_alloc_pd, WREN);

/**
 * wren_cmd_dealloc_pd() - free a protection domain
 * @wdev: the device
 * @pdn: the PD number
 *
 * Return: 0 or a negative errno.
 */
int wren_cmd_dealloc_pd(struct wren_dev *wdev, u32 pdn)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DEALLOC_PD, pdn);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_dealloc_pd, WREN);

/* A doorbell register the device picked must be a register of the page. */
static bool wren_db_offset_ok(u32 offset)
{
	return offset < WREN_DB_PAGE_SIZE && IS_ALIGNED(offset, sizeof(u32));
}

/**
 * wren_cmd_create_cq() - create a completion queue
 * @wdev: the device
 * @p: its ring, depth, completion vector and doorbell page
 * @cqn: the CQ number, on success
 * @db_offset: the byte offset of its doorbell in @p->db_page, on success
 *
 * With event queues, the CQ reports its armed completions to the event
 * queue of @p->comp_vector; without them (no MSI-X) it reports none.
 *
 * Return: 0, -EINVAL for a completion vector out of range or a parameter
 * the device refused, -ENOMEM if the device has no CQ left, -EPROTO if
 * the device answered with a doorbell outside the page, or another
 * negative errno.
 */
int wren_cmd_create_cq(struct wren_dev *wdev, const struct wren_cq_params *p,
		       u32 *cqn, u32 *db_offset)
{
	struct wren_cmd_create_cq cmd = {
		.base_addr = cpu_to_le64(p->base),
		.log_depth = p->log_depth,
		.db_page = cpu_to_le32(p->db_page),
	};
	struct wren_admin_cqe cqe;
	u32 handle, offset;
	int err;

	if (wdev->num_eqs) {
		if (p->comp_vector >= wdev->caps.num_comp_vectors)
			return -EINVAL;
		cmd.flags = WREN_CQ_FLAG_EQ;
		cmd.eq_id = cpu_to_le16(wdev->eqs[p->comp_vector % wdev->num_eqs].id);
	}
	err = wren_admin_exec(wdev, WREN_ADMIN_CREATE_CQ, &cmd, sizeof(cmd),
			      &cqe);
	if (err)
		return err;
	handle = le32_to_cpu(cqe.result[0]);
	offset = le32_to_cpu(cqe.result[1]);
	if (!wren_db_offset_ok(offset)) {
		dev_err_ratelimited(&wdev->pdev->dev,
				    "CQ %u: doorbell offset %#x outside its page\n",
				    handle, offset);
		wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_CQ, handle);
		return -EPROTO;
	}
	*cqn = handle;
	*db_offset = offset;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_create_cq, WREN);

/**
 * wren_cmd_destroy_cq() - destroy a completion queue
 * @wdev: the device
 * @cqn: the CQ number
 *
 * Once it returns 0 the device writes neither the CQ's ring nor events
 * naming it; events it wrote before may still be delivered.
 *
 * Return: 0, -EINVAL while a QP uses the CQ, -ENOENT for an unknown
 * number, or another negative errno.
 */
int wren_cmd_destroy_cq(struct wren_dev *wdev, u32 cqn)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_CQ, cqn);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_destroy_cq, WREN);

/**
 * wren_cmd_resize_cq() - move a completion queue to a new ring
 * @wdev: the device
 * @cqn: the CQ number
 * @base: DMA address of the new ring, 4 KiB aligned, physically contiguous
 * @log_depth: log2 of its entries
 * @moved: the completions not yet consumed that the device moved to the
 *	new ring's first entries, on success
 *
 * The caller has rung the CQ's doorbell with the consumer index of what
 * has been consumed.  Once this returns 0 the device writes the new ring
 * only; on an error it goes on with the old one.
 *
 * Return: 0, -EOPNOTSUPP without WREN_CAP_RESIZE_CQ, -EINVAL if the new
 * ring cannot hold the waiting completions or a parameter was refused,
 * -ENOENT for an unknown CQ, -EIO if the device could not write the new
 * ring, or another negative errno.
 */
int wren_cmd_resize_cq(struct wren_dev *wdev, u32 cqn, dma_addr_t base,
		       u8 log_depth, u32 *moved)
{
	struct wren_cmd_resize_cq cmd = {
		.base_addr = cpu_to_le64(base),
		.cqn = cpu_to_le32(cqn),
		.log_depth = log_depth,
	};
	struct wren_admin_cqe cqe;
	int err;

	if (!(wdev->caps.caps & WREN_CAP_RESIZE_CQ))
		return -EOPNOTSUPP;
	err = wren_admin_exec(wdev, WREN_ADMIN_RESIZE_CQ, &cmd, sizeof(cmd),
			      &cqe);
	if (err)
		return err;
	*moved = le32_to_cpu(cqe.result[0]);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_resize_cq, WREN);

/**
 * wren_cmd_create_qp() - create a queue pair, in the RESET state
 * @wdev: the device
 * @p: its type, rings, depths, CQs, protection domain and doorbell page
 * @h: its number and doorbell offsets, on success
 *
 * Return: 0, -EINVAL for a parameter the device refused, -ENOMEM if the
 * device has no QP (or doorbell register) left, -EPROTO if the device
 * answered with a doorbell outside the page, or another negative errno.
 */
int wren_cmd_create_qp(struct wren_dev *wdev, const struct wren_qp_params *p,
		       struct wren_qp_handles *h)
{
	struct wren_cmd_create_qp cmd = {
		.sq_base = cpu_to_le64(p->sq_base),
		.rq_base = cpu_to_le64(p->rq_base),
		.pdn = cpu_to_le32(p->pdn),
		.send_cq = cpu_to_le32(p->send_cq),
		.recv_cq = cpu_to_le32(p->recv_cq),
		.db_page = cpu_to_le32(p->db_page),
		.type = p->type,
		.sq_log_depth = p->sq_log_depth,
		.rq_log_depth = p->rq_log_depth,
		.flags = p->flags,
		.srqn = cpu_to_le32(p->srqn),
		.sq_wqe_shift = p->sq_wqe_shift,
		.rq_wqe_shift = p->rq_wqe_shift,
	};
	struct wren_admin_cqe cqe;
	u32 qpn, sq_offset, rq_offset;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_CREATE_QP, &cmd, sizeof(cmd),
			      &cqe);
	if (err)
		return err;
	qpn = le32_to_cpu(cqe.result[0]);
	sq_offset = le32_to_cpu(cqe.result[1]);
	rq_offset = le32_to_cpu(cqe.result[2]);
	if (!wren_db_offset_ok(sq_offset) || !wren_db_offset_ok(rq_offset)) {
		dev_err_ratelimited(&wdev->pdev->dev,
				    "QP %u: doorbell offsets %#x, %#x outside their page\n",
				    qpn, sq_offset, rq_offset);
		wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_QP, qpn);
		return -EPROTO;
	}
	h->qpn = qpn;
	h->sq_db_offset = sq_offset;
	h->rq_db_offset = rq_offset;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_create_qp, WREN);

/**
 * wren_cmd_modify_qp() - change a queue pair's state or attributes
 * @wdev: the device
 * @qpn: the QP number
 * @a: the attributes its attr_mask names; the others are sent as zero
 *
 * Return: 0, -EINVAL for a transition or value the device refused,
 * -ENOENT for an unknown number, or another negative errno.
 */
int wren_cmd_modify_qp(struct wren_dev *wdev, u32 qpn,
		       const struct wren_qp_attrs *a)
{
	struct wren_cmd_modify_qp cmd = {
		.qpn = cpu_to_le32(qpn),
		.attr_mask = cpu_to_le32(a->attr_mask),
	};

	if (a->attr_mask & WREN_QP_ATTR_STATE)
		cmd.state = a->state;
	if (a->attr_mask & WREN_QP_ATTR_QKEY)
		cmd.qkey = cpu_to_le32(a->qkey);
	if (a->attr_mask & WREN_QP_ATTR_DEST) {
		cmd.dest_qpn = cpu_to_le32(a->dest_qpn);
		cmd.dest_ipv4 = a->dest_ipv4;
		memcpy(cmd.dest_mac, a->dest_mac, sizeof(cmd.dest_mac));
	}
	if (a->attr_mask & WREN_QP_ATTR_RQ_PSN)
		cmd.rq_psn = cpu_to_le32(a->rq_psn);
	if (a->attr_mask & WREN_QP_ATTR_SQ_PSN)
		cmd.sq_psn = cpu_to_le32(a->sq_psn);
	if (a->attr_mask & WREN_QP_ATTR_RNR) {
		cmd.min_rnr_timer = a->min_rnr_timer;
		cmd.rnr_retry = a->rnr_retry;
	}
	if (a->attr_mask & WREN_QP_ATTR_ACCESS)
		cmd.access = a->access;
	if (a->attr_mask == WREN_QP_ATTR_STATE &&
	    (a->state == WREN_QPS_ERR || a->state == WREN_QPS_RESET))
		return wren_cmd_release(wdev, WREN_ADMIN_MODIFY_QP, &cmd,
					sizeof(cmd));
	return wren_admin_exec(wdev, WREN_ADMIN_MODIFY_QP, &cmd, sizeof(cmd),
			       NULL);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_modify_qp, WREN);

/**
 * wren_cmd_query_qp() - read a queue pair's state, Q_Key and indices
 * @wdev: the device
 * @qpn: the QP number
 * @q: filled in on success
 *
 * Return: 0, -ENOENT for an unknown number, -EPROTO if the device
 * answered with a state the interface does not define, or another
 * negative errno.
 */
int wren_cmd_query_qp(struct wren_dev *wdev, u32 qpn, struct wren_qp_query *q)
{
	struct wren_cmd_destroy_obj cmd = { .handle = cpu_to_le32(qpn) };
	struct wren_admin_cqe cqe;
	u32 state;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_QUERY_QP, &cmd, sizeof(cmd),
			      &cqe);
	if (err)
		return err;
	state = le32_to_cpu(cqe.result[0]);
	if (state > WREN_QPS_SQD) {
		dev_err_ratelimited(&wdev->pdev->dev,
				    "QP %u: device reported state %u\n", qpn,
				    state);
		return -EPROTO;
	}
	q->state = state;
	q->qkey = le32_to_cpu(cqe.result[1]);
	q->sq_ci = le32_to_cpu(cqe.result[2]);
	q->rq_ci = le32_to_cpu(cqe.result[3]);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_query_qp, WREN);

/**
 * wren_cmd_destroy_qp() - destroy a queue pair
 * @wdev: the device
 * @qpn: the QP number
 *
 * Once it returns 0 the device touches neither of the QP's rings; their
 * entries are discarded without completions.
 *
 * Return: 0, -ENOENT for an unknown number, or another negative errno.
 */
int wren_cmd_destroy_qp(struct wren_dev *wdev, u32 qpn)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_QP, qpn);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_destroy_qp, WREN);

/**
 * wren_cmd_create_srq() - create a shared receive queue
 * @wdev: the device
 * @p: its ring, depth, protection domain and doorbell page
 * @srqn: the SRQ number, on success
 * @db_offset: the byte offset of its doorbell in @p->db_page, on success
 *
 * Return: 0, -EINVAL for a parameter the device refused, -ENOMEM if the
 * device has no SRQ (or doorbell register) left, -EPROTO if the device
 * answered with a doorbell outside the page, or another negative errno.
 */
int wren_cmd_create_srq(struct wren_dev *wdev, const struct wren_srq_params *p,
			u32 *srqn, u32 *db_offset)
{
	struct wren_cmd_create_srq cmd = {
		.base = cpu_to_le64(p->base),
		.pdn = cpu_to_le32(p->pdn),
		.db_page = cpu_to_le32(p->db_page),
		.log_depth = p->log_depth,
		.wqe_shift = p->wqe_shift,
	};
	struct wren_admin_cqe cqe;
	u32 handle, offset;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_CREATE_SRQ, &cmd, sizeof(cmd),
			      &cqe);
	if (err)
		return err;
	handle = le32_to_cpu(cqe.result[0]);
	offset = le32_to_cpu(cqe.result[1]);
	if (!wren_db_offset_ok(offset)) {
		dev_err_ratelimited(&wdev->pdev->dev,
				    "SRQ %u: doorbell offset %#x outside its page\n",
				    handle, offset);
		wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_SRQ, handle);
		return -EPROTO;
	}
	*srqn = handle;
	*db_offset = offset;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_create_srq, WREN);

/**
 * wren_cmd_modify_srq() - arm a shared receive queue's limit, or grow it
 * @wdev: the device
 * @srqn: the SRQ number
 * @attr_mask: WREN_SRQ_ATTR_LIMIT, WREN_SRQ_ATTR_RING
 * @limit: with WREN_SRQ_ATTR_LIMIT, fewer posted receives than this fire
 *	the limit event once; 0 disarms
 * @ring: with WREN_SRQ_ATTR_RING, the new ring (its base and depth, at
 *	least the old one's)
 * @moved: with WREN_SRQ_ATTR_RING, the receives the device moved to the
 *	new ring's first slots, on success
 *
 * Once it returns 0 with WREN_SRQ_ATTR_RING the old ring is the caller's
 * again.
 *
 * Return: 0, -EINVAL for a limit not below the depth or a ring the device
 * refused, -ENOENT for an unknown number, or another negative errno.
 */
int wren_cmd_modify_srq(struct wren_dev *wdev, u32 srqn, u32 attr_mask,
			u32 limit, const struct wren_srq_params *ring,
			u32 *moved)
{
	struct wren_cmd_modify_srq cmd = {
		.srqn = cpu_to_le32(srqn),
		.attr_mask = cpu_to_le32(attr_mask),
	};
	struct wren_admin_cqe cqe;
	int err;

	if (attr_mask & WREN_SRQ_ATTR_LIMIT)
		cmd.limit = cpu_to_le32(limit);
	if (attr_mask & WREN_SRQ_ATTR_RING) {
		cmd.base = cpu_to_le64(ring->base);
		cmd.log_depth = ring->log_depth;
	}
	err = wren_admin_exec(wdev, WREN_ADMIN_MODIFY_SRQ, &cmd, sizeof(cmd),
			      &cqe);
	if (!err && attr_mask & WREN_SRQ_ATTR_RING)
		*moved = le32_to_cpu(cqe.result[0]);
	return err;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_modify_srq, WREN);

/**
 * wren_cmd_query_srq() - read a shared receive queue's armed limit
 * @wdev: the device
 * @srqn: the SRQ number
 * @limit: the armed limit, 0 when disarmed or fired, on success
 *
 * Return: 0, -ENOENT for an unknown number, or another negative errno.
 */
int wren_cmd_query_srq(struct wren_dev *wdev, u32 srqn, u32 *limit)
{
	struct wren_cmd_destroy_obj cmd = { .handle = cpu_to_le32(srqn) };
	struct wren_admin_cqe cqe;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_QUERY_SRQ, &cmd, sizeof(cmd),
			      &cqe);
	if (!err)
		*limit = le32_to_cpu(cqe.result[0]);
	return err;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_query_srq, WREN);

/**
 * wren_cmd_destroy_srq() - destroy a shared receive queue
 * @wdev: the device
 * @srqn: the SRQ number
 *
 * Once it returns 0 the device reads its ring no more.
 *
 * Return: 0, -EBUSY while a QP uses it, -ENOENT for an unknown number, or
 * another negative errno.
 */
int wren_cmd_destroy_srq(struct wren_dev *wdev, u32 srqn)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_SRQ, srqn);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_destroy_srq, WREN);

/**
 * wren_cmd_create_ah() - create an address handle
 * @wdev: the device
 * @pdn: its protection domain
 * @ipv4: the destination adapter's IPv4 address, network byte order
 * @mac: the next hop's Ethernet address, %ETH_ALEN bytes
 * @ahn: the AH number, on success
 *
 * Return: 0, -EINVAL for an address the device refused (not a unicast
 * host, or a multicast MAC address), -ENOMEM if the device has no AH
 * left, or another negative errno.
 */
int wren_cmd_create_ah(struct wren_dev *wdev, u32 pdn, __be32 ipv4,
		       const u8 *mac, u32 *ahn)
{
	struct wren_cmd_create_ah cmd = {
		.pdn = cpu_to_le32(pdn),
		.ipv4 = ipv4,
	};
	struct wren_admin_cqe cqe;
	int err;

	memcpy(cmd.mac, mac, ETH_ALEN);
	err = wren_admin_exec(wdev, WREN_ADMIN_CREATE_AH, &cmd, sizeof(cmd),
			      &cqe);
	if (!err)
		*ahn = le32_to_cpu(cqe.result[0]);
	return err;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_create_ah, WREN);

/**
 * wren_cmd_destroy_ah() - destroy an address handle
 * @wdev: the device
 * @ahn: the AH number
 *
 * Return: 0, -ENOENT for an unknown number, or another negative errno.
 */
int wren_cmd_destroy_ah(struct wren_dev *wdev, u32 ahn)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DESTROY_AH, ahn);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_destroy_ah, WREN);

/**
 * wren_cmd_reg_mr() - register a memory region
 * @wdev: the device
 * @p: its addresses, page list, protection domain and access rights
 * @lkey: on success, its key for local accesses and for the commands
 *	that name it
 * @rkey: on success, its key for peers' accesses, another one
 *
 * The page list has one level of at most %WREN_PBL_PER_PAGE entries, or
 * two: an array of the DMA addresses of 4 KiB pages each holding
 * %WREN_PBL_PER_PAGE entries.  Every entry is the __le64 DMA address of
 * one page of the region, in the region's page size; the pages must
 * cover the region exactly.  The list must stay in place until
 * wren_cmd_dereg_mr() returns 0.
 *
 * Return: 0, -EINVAL for a parameter the device refused, -ENOMEM if the
 * device has no MR left, or another negative errno.
 */
int wren_cmd_reg_mr(struct wren_dev *wdev, const struct wren_mr_params *p,
		    u32 *lkey, u32 *rkey)
{
	struct wren_cmd_reg_mr cmd = {
		.iova = cpu_to_le64(p->iova),
		.length = cpu_to_le64(p->length),
		.pbl_addr = cpu_to_le64(p->pbl),
		.pdn = cpu_to_le32(p->pdn),
		.npages = cpu_to_le32(p->npages),
		.page_shift = p->page_shift,
		.access = p->access,
		.key_tag = p->key_tag,
		.flags = p->flags,
	};
	struct wren_admin_cqe cqe;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_REG_MR, &cmd, sizeof(cmd), &cqe);
	if (!err) {
		*lkey = le32_to_cpu(cqe.result[0]);
		*rkey = le32_to_cpu(cqe.result[1]);
	}
	return err;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_reg_mr, WREN);

/**
 * wren_cmd_rereg_mr() - change a memory region in place, keeping its key
 * @wdev: the device
 * @key: the region's key
 * @p: its new addresses, page list, protection domain and access rights,
 *	as for wren_cmd_reg_mr(); @p->key_tag is not used
 *
 * The device takes every new value or none.  Once it returns 0 the
 * device reads the new page list only: the old one is the caller's again.
 *
 * Return: 0, -EINVAL for a parameter the device refused, -ENOENT for an
 * unknown or stale key, or another negative errno.
 */
int wren_cmd_rereg_mr(struct wren_dev *wdev, u32 key,
		      const struct wren_mr_params *p)
{
	struct wren_cmd_rereg_mr cmd = {
		.iova = cpu_to_le64(p->iova),
		.length = cpu_to_le64(p->length),
		.pbl_addr = cpu_to_le64(p->pbl),
		.pdn = cpu_to_le32(p->pdn),
		.npages = cpu_to_le32(p->npages),
		.page_shift = p->page_shift,
		.access = p->access,
		.key = cpu_to_le32(key),
	};

	return wren_admin_exec(wdev, WREN_ADMIN_REREG_MR, &cmd, sizeof(cmd),
			       NULL);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_rereg_mr, WREN);

/**
 * wren_cmd_dereg_mr() - deregister a memory region
 * @wdev: the device
 * @key: its key
 *
 * Once it returns 0 the device reads neither the region nor its page
 * list.
 *
 * Return: 0, -ENOENT for an unknown or stale key, or another negative
 * errno.
 */
int wren_cmd_dereg_mr(struct wren_dev *wdev, u32 key)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_DEREG_MR, key);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_dereg_mr, WREN);

/*
 * Run a command that writes up to @len bytes to a host buffer and returns
 * the size of what it has in result[0]; copy what it wrote to @out.
 * Return: the bytes copied, or a negative errno.
 */
static int wren_cmd_read_buf(struct wren_dev *wdev, u8 opcode, void *cmd,
			     size_t cmd_len, __le64 *buf_addr, void *out,
			     size_t len, u32 *size)
{
	struct device *dev = &wdev->pdev->dev;
	struct wren_admin_cqe cqe;
	dma_addr_t dma;
	void *buf;
	int err;

	buf = dma_alloc_coherent(dev, len, &dma, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	*buf_addr = cpu_to_le64(dma);
	err = wren_admin_exec(wdev, opcode, cmd, cmd_len, &cqe);
	if (!err) {
		*size = le32_to_cpu(cqe.result[0]);
		memcpy(out, buf, len);
		err = len;
	}
	dma_free_coherent(dev, len, buf, dma);
	return err;
}

static int wren_cmd_stats(struct wren_dev *wdev, struct wren_cmd_get_stats *cmd,
			  u64 *vals, unsigned int n)
{
	unsigned int i, count;
	__le64 *buf;
	u32 size;
	int err;

	if (!n || n > PAGE_SIZE / sizeof(*buf))
		return -EINVAL;
	buf = kcalloc(n, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cmd->buf_len = cpu_to_le32(n * sizeof(*buf));
	err = wren_cmd_read_buf(wdev, WREN_ADMIN_GET_STATS, cmd, sizeof(*cmd),
				&cmd->buf_addr, buf, n * sizeof(*buf), &size);
	if (err >= 0) {
		count = min(n, size);
		for (i = 0; i < count; i++)
			vals[i] = le64_to_cpu(buf[i]);
		err = count;
	}
	kfree(buf);
	return err;
}

/**
 * wren_cmd_get_stats() - read the device's counters, its totals
 * @wdev: the device
 * @vals: filled with the counters, in the order of &enum wren_dev_stat
 * @n: entries of @vals, 1 to 512
 *
 * Return: the number of counters read (at most @n; fewer if the device
 * has fewer), or a negative errno.
 */
int wren_cmd_get_stats(struct wren_dev *wdev, u64 *vals, unsigned int n)
{
	struct wren_cmd_get_stats cmd = {};

	return wren_cmd_stats(wdev, &cmd, vals, n);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_get_stats, WREN);

/**
 * wren_cmd_get_set_stats() - read the counters of one counter set
 * @wdev: the device, with %WREN_CAP_COUNTER_SETS
 * @set: 0 for the default set, or one of wren_cmd_alloc_counter_set()
 * @vals: filled as by wren_cmd_get_stats(): the QP counters of @set, the
 *	others the totals (set 0) or zero
 * @n: entries of @vals, 1 to 512
 *
 * Return: the number of counters read, or a negative errno.
 */
int wren_cmd_get_set_stats(struct wren_dev *wdev, u32 set, u64 *vals,
			   unsigned int n)
{
	struct wren_cmd_get_stats cmd = {
		.set = cpu_to_le16(set),
		.flags = WREN_STATS_FLAG_SET,
	};

	if (set > U16_MAX)
		return -EINVAL;
	return wren_cmd_stats(wdev, &cmd, vals, n);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_get_set_stats, WREN);

/**
 * wren_cmd_alloc_counter_set() - allocate a counter set
 * @wdev: the device, with %WREN_CAP_COUNTER_SETS
 *
 * Return: the set's number (1 or more), its counters at zero, or a
 * negative errno (-ENOMEM when the device has no set left).
 */
int wren_cmd_alloc_counter_set(struct wren_dev *wdev)
{
	struct wren_cmd_destroy_obj cmd = {};
	struct wren_admin_cqe cqe;
	u32 set;
	int err;

	err = wren_admin_exec(wdev, WREN_ADMIN_ALLOC_COUNTER_SET, &cmd,
			      sizeof(cmd), &cqe);
	if (err)
		return err;
	set = le32_to_cpu(cqe.result[0]);
	if (!set || set > U16_MAX)
		return -EIO;
	return set;
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_alloc_counter_set, WREN);

/**
 * wren_cmd_free_counter_set() - free a counter set no QP is bound to
 * @wdev: the device
 * @set: the set
 *
 * Return: 0, or a negative errno (-EINVAL while a QP is bound to it).
 */
int wren_cmd_free_counter_set(struct wren_dev *wdev, u32 set)
{
	return wren_cmd_destroy(wdev, WREN_ADMIN_FREE_COUNTER_SET, set);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_free_counter_set, WREN);

/**
 * wren_cmd_bind_counter_set() - count a QP's traffic in a counter set
 * @wdev: the device
 * @qpn: the QP, in any state
 * @set: the set from now on, 0 for the default set
 *
 * Return: 0, or a negative errno.
 */
int wren_cmd_bind_counter_set(struct wren_dev *wdev, u32 qpn, u32 set)
{
	struct wren_cmd_bind_counter_set cmd = {
		.qpn = cpu_to_le32(qpn),
		.set = cpu_to_le32(set),
	};
	struct wren_admin_cqe cqe;

	return wren_admin_exec(wdev, WREN_ADMIN_BIND_COUNTER_SET, &cmd,
			       sizeof(cmd), &cqe);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_bind_counter_set, WREN);

/**
 * wren_cmd_query_ctx() - read the device's own context of an object
 * @wdev: the device, with %WREN_CAP_QUERY_CTX
 * @type: &enum wren_ctx_type
 * @handle: the QP, CQ or SRQ number, or the memory key
 * @buf: filled with the context (&struct wren_qp_ctx and the others)
 * @len: its bytes, 64 to 4096; bytes past the device's context are zero
 *
 * Return: the size of the device's context (which may differ from @len:
 * a newer device's is longer), or a negative errno.
 */
int wren_cmd_query_ctx(struct wren_dev *wdev, u8 type, u32 handle, void *buf,
		       size_t len)
{
	struct wren_cmd_query_ctx cmd = {
		.buf_len = cpu_to_le32(len),
		.handle = cpu_to_le32(handle),
		.type = type,
	};
	u32 size;
	int err;

	if (len < 64 || len > PAGE_SIZE)
		return -EINVAL;
	err = wren_cmd_read_buf(wdev, WREN_ADMIN_QUERY_CTX, &cmd, sizeof(cmd),
				&cmd.buf_addr, buf, len, &size);
	if (err < 0)
		return err;
	if (size < len)
		memset(buf + size, 0, len - size);
	return min_t(u32, size, INT_MAX);
}
EXPORT_SYMBOL_NS_GPL(wren_cmd_query_ctx, WREN);
