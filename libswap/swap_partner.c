// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Partners: reserving a partner's block and pool, the address it needs,
 * connecting to its address (an AH on RD, a QP brought to RTS on RC),
 * failing it alone when it breaks the protocol or goes away, removing
 * it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "swap_int.h"

/* The block's page: the partner's READ reaches its first 64 bytes. */
#define FCB_PAGE	4096

struct swap_partner *swap_partner_get(struct swap_ep *ep, int id)
{
	if (id < 0 || (uint32_t)id >= ep->a.max_partners ||
	    ep->p[id].state == P_FREE)
		return NULL;
	return &ep->p[id];
}

void swap_fail(struct swap_ep *ep, struct swap_partner *p, int err,
	       const char *fmt, ...)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_ERR };
	va_list ap;

	if (p->state != P_CONNECTED && p->state != P_ADDED)
		return;
	p->state = P_FAILED;
	p->err = err;
	p->err_told = false;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof(p->why), fmt, ap);
	va_end(ap);
	ep->st.partners_failed++;
	/* It may still read: tell it we are done with it. */
	swap_fcb_set_closed(p->fcb);
	/* RC: flush its QP; RD: the shared QP carries on for the others. */
	if (ep->tp == SWAP_TRANSPORT_RC && p->qp)
		ibv_modify_qp(p->qp, &qa, IBV_QP_STATE);
	p->read_busy = false;
	swap_rx_reset(ep, p);
}

static int rc_qp_create(struct swap_ep *ep, struct swap_partner *p)
{
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr qa;

	swap_qp_init_attr(ep, &ia, IBV_QPT_RC);
	p->qp = ibv_create_qp_ex(ep->ctx, &ia);
	if (!p->qp)
		return errno ? errno : EINVAL;
	p->qpx = ibv_qp_to_qp_ex(p->qp);
	if (!p->qpx)
		return EOPNOTSUPP;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = ep->a.port_num;
	qa.qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(p->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return errno ? errno : EINVAL;
	return 0;
}

static void partner_free(struct swap_ep *ep, struct swap_partner *p)
{
	if (p->qp && ep->tp == SWAP_TRANSPORT_RC) {
		swap_tx_drain(ep, p);
		ibv_destroy_qp(p->qp);
	}
	if (p->ah)
		ibv_destroy_ah(p->ah);
	if (p->fcb_mr)
		ibv_dereg_mr(p->fcb_mr);
	if (p->pool_mr)
		ibv_dereg_mr(p->pool_mr);
	free(p->fcb);
	free(p->pool);
	swap_rx_reset(ep, p);
	free(p->slots);
	p->qp = NULL;
	p->qpx = NULL;
	p->ah = NULL;
	p->fcb_mr = p->pool_mr = NULL;
	p->fcb = p->pool = p->asm_buf = NULL;
	p->slots = NULL;
}

SWAP_EXPORT
int swap_partner_add(struct swap_ep *ep)
{
	struct swap_partner *p = NULL;
	uint32_t i, gen;
	int ret;

	for (i = 0; i < ep->a.max_partners && !p; i++)
		if (ep->p[i].state == P_FREE)
			p = &ep->p[i];
	if (!p)
		return -ENOSPC;
	gen = p->gen + 1;
	{
		bool rd_posted = p->rd_posted;
		int id = p->id;

		memset(p, 0, sizeof(*p));
		p->id = id;
		p->gen = gen;
		p->rd_posted = rd_posted;
	}
	p->fcb = swap_zalloc(FCB_PAGE);
	p->pool = swap_zalloc(ep->a.pool_size);
	p->slots = calloc(ep->a.buf_count, sizeof(*p->slots));
	if (!p->fcb || !p->pool || !p->slots) {
		ret = ENOMEM;
		goto err;
	}
	swap_fcb_init(p->fcb);
	/* Each its own region: the partner reads the one, writes the other. */
	p->fcb_mr = ibv_reg_mr(ep->pd, p->fcb, FCB_PAGE,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	p->pool_mr = ibv_reg_mr(ep->pd, p->pool, ep->a.pool_size,
				IBV_ACCESS_LOCAL_WRITE |
				IBV_ACCESS_REMOTE_WRITE);
	if (!p->fcb_mr || !p->pool_mr) {
		ret = errno ? errno : ENOMEM;
		goto err;
	}
	if (ep->tp == SWAP_TRANSPORT_RC) {
		ret = rc_qp_create(ep, p);
		if (ret)
			goto err;
	} else {
		p->qp = ep->qp;
		p->qpx = ep->qpx;
	}
	p->psn = (uint32_t)(swap_now() >> 10) & 0xffffff;
	/*
	 * Its share of receive buffers.  RD: they go to the one QP once for
	 * this id and stay there (a posted receive cannot be taken back).
	 */
	if (ep->tp == SWAP_TRANSPORT_RC || !p->rd_posted) {
		for (i = 0; i < ep->a.buf_count; i++) {
			ret = swap_rx_post(ep, p, (uint32_t)p->id *
					   ep->a.buf_count + i);
			if (ret)
				goto err;
		}
		p->rd_posted = ep->tp == SWAP_TRANSPORT_RD;
	}
	p->state = P_ADDED;
	return p->id;
err:
	partner_free(ep, p);
	p->state = P_FREE;
	return -ret;
}

SWAP_EXPORT
int swap_ep_addr(struct swap_ep *ep, int partner, void *buf, size_t len)
{
	struct swap_partner *p = swap_partner_get(ep, partner);
	struct swap_addr a;

	if (!p)
		return -EINVAL;
	if (len < SWAP_ADDR_LEN)
		return -ENOSPC;
	memset(&a, 0, sizeof(a));
	a.transport = (uint8_t)ep->tp;
	a.lid = ep->lid;
	a.qpn = p->qp->qp_num;
	a.id = (uint32_t)p->id;
	a.psn = p->psn;
	memcpy(a.gid, ep->gid.raw, 16);
	a.fcb_addr = (uintptr_t)p->fcb;
	a.fcb_rkey = p->fcb_mr->rkey;
	a.pool_addr = (uintptr_t)p->pool;
	a.pool_rkey = p->pool_mr->rkey;
	a.pool_size = ep->a.pool_size;
	a.buf_size = ep->a.buf_size;
	a.buf_count = ep->a.buf_count;
	a.max_msg_size = ep->a.max_msg_size;
	swap_addr_put(buf, &a);
	return SWAP_ADDR_LEN;
}

static void fill_ah(struct swap_ep *ep, const struct swap_addr *ra,
		    struct ibv_ah_attr *ah)
{
	static const uint8_t zero[16];

	memset(ah, 0, sizeof(*ah));
	ah->port_num = ep->a.port_num;
	ah->dlid = ra->lid;
	if (memcmp(ra->gid, zero, 16)) {
		ah->is_global = 1;
		memcpy(ah->grh.dgid.raw, ra->gid, 16);
		ah->grh.sgid_index = ep->a.gid_index;
		ah->grh.hop_limit = 64;
	}
}

static int rc_connect(struct swap_ep *ep, struct swap_partner *p)
{
	struct ibv_port_attr pa;
	struct ibv_qp_attr qa;

	if (ibv_query_port(ep->ctx, ep->a.port_num, &pa))
		return errno ? errno : EINVAL;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	qa.path_mtu = pa.active_mtu;
	qa.dest_qp_num = p->ra.qpn;
	qa.rq_psn = p->ra.psn;
	/* Its one READ of our block at a time. */
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = 12;
	fill_ah(ep, &p->ra, &qa.ah_attr);
	if (ibv_modify_qp(p->qp, &qa, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return errno ? errno : EINVAL;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.sq_psn = p->psn;
	qa.max_rd_atomic = 1;
	if (ibv_modify_qp(p->qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return errno ? errno : EINVAL;
	return 0;
}

SWAP_EXPORT
int swap_partner_connect(struct swap_ep *ep, int partner, const void *addr,
			 size_t len)
{
	struct swap_partner *p = swap_partner_get(ep, partner);
	struct ibv_ah_attr ah;
	const char *why;
	int ret;

	if (!p || p->state != P_ADDED || !addr)
		return -EINVAL;
	if (swap_addr_get(addr, len, &p->ra, &why))
		return -EINVAL;
	if (p->ra.transport != ep->tp)
		return -EPROTONOSUPPORT;
	if (ep->tp == SWAP_TRANSPORT_RD) {
		fill_ah(ep, &p->ra, &ah);
		p->ah = ibv_create_ah(ep->pd, &ah);
		if (!p->ah)
			return -(errno ? errno : EINVAL);
	} else {
		ret = rc_connect(ep, p);
		if (ret)
			return -ret;
	}
	p->heard_at = swap_now();
	p->state = P_CONNECTED;
	return 0;
}

SWAP_EXPORT
int swap_partner_remove(struct swap_ep *ep, int partner)
{
	struct swap_partner *p = swap_partner_get(ep, partner);

	if (!p)
		return -EINVAL;
	if (p->state == P_CONNECTED || p->state == P_ADDED)
		swap_fail(ep, p, ECONNRESET, "removed");
	partner_free(ep, p);
	p->state = P_FREE;
	return 0;
}

SWAP_EXPORT
int swap_partner_error(struct swap_ep *ep, int partner, const char **why)
{
	struct swap_partner *p = swap_partner_get(ep, partner);

	if (!p)
		return -EINVAL;
	if (why)
		*why = p->state == P_FAILED ? p->why : NULL;
	return p->state == P_FAILED ? -p->err : 0;
}
