// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The endpoint: the device's limits, the completion channel and CQ, the
 * RD QP (Wren's direct verbs, looked up at run time so that the library
 * loads where libwren is absent), the receive, send, staging and READ
 * buffers, and closing it all.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/wrendv.h>

#include "swap_int.h"

#define STAGE_MAX	(1U << 20)

typedef int (*query_fn)(struct ibv_context *, struct wrendv_device_attr *,
			uint32_t);
typedef struct ibv_qp *(*create_fn)(struct ibv_context *,
				    struct ibv_qp_init_attr_ex *,
				    struct wrendv_qp_init_attr *, uint32_t);

uint64_t swap_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * Wren's direct verbs if this process can have them: already loaded
 * (or, in the unit test, linked in), else from libwren.so.1.
 */
static void *wrendv_sym(const char *name)
{
	void *h, *f = dlsym(RTLD_DEFAULT, name);

	if (f)
		return f;
	h = dlopen("libwren.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
	if (!h)
		h = dlopen("libwren.so.1", RTLD_NOW | RTLD_GLOBAL);
	return h ? dlsym(h, name) : NULL;
}

static void set_defaults(struct swap_ep_attr *a)
{
	if (!a->port_num)
		a->port_num = 1;
	if (!a->buf_size)
		a->buf_size = 4096;
	if (!a->buf_count)
		a->buf_count = 16;
	if (!a->pool_size)
		a->pool_size = 1U << 20;
	if (!a->max_msg_size)
		a->max_msg_size = 64U << 20;
	if (!a->max_partners)
		a->max_partners = 64;
	if (!a->send_depth)
		a->send_depth = 64;
	if (!a->probe_ms)
		a->probe_ms = 1000;
	if (!a->spin_us)
		a->spin_us = 20;
	if (!a->stall_ms)
		a->stall_ms = 30000;
}

static int check_attr(const struct swap_ep_attr *a)
{
	if (a->transport > SWAP_TRANSPORT_RC ||
	    a->buf_size > SWAP_BUF_SIZE_MAX ||
	    a->buf_count > SWAP_BUF_COUNT_MAX ||
	    a->pool_size < SWAP_POOL_ALIGN || a->pool_size % SWAP_POOL_ALIGN ||
	    a->pool_size > SWAP_POOL_SIZE_MAX ||
	    a->max_msg_size > SWAP_MSG_SIZE_MAX ||
	    a->max_partners > 0xffffff || a->send_depth > 65536)
		return EINVAL;
	return 0;
}

/* Which transport, and the device's limits for it. */
static int probe_device(struct swap_ep *ep)
{
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	query_fn query = (query_fn)wrendv_sym("wrendv_query_device");
	struct wrendv_device_attr wa;
	const uint32_t caps = WRENDV_DEVICE_CAP_RD |
			      WRENDV_DEVICE_CAP_RDMA_WRITE |
			      WRENDV_DEVICE_CAP_RDMA_READ;
	bool rd = false;
	uint32_t need;
	int ret;

	ret = ibv_query_device(ep->ctx, &da);
	if (ret)
		return ret > 0 ? ret : errno;
	ret = ibv_query_port(ep->ctx, ep->a.port_num, &pa);
	if (ret)
		return ret > 0 ? ret : errno;
	if (ibv_query_gid(ep->ctx, ep->a.port_num, ep->a.gid_index, &ep->gid))
		return errno ? errno : EINVAL;
	ep->lid = pa.lid;
	memset(&wa, 0, sizeof(wa));
	if (query && !query(ep->ctx, &wa, sizeof(wa)) &&
	    (wa.device_caps & caps) == caps)
		rd = true;
	if (ep->a.transport == SWAP_TRANSPORT_RD && !rd)
		return EOPNOTSUPP;
	ep->tp = ep->a.transport ? ep->a.transport :
		 rd ? SWAP_TRANSPORT_RD : SWAP_TRANSPORT_RC;
	if (ep->tp == SWAP_TRANSPORT_RD) {
		ep->max_send = wa.max_rd_msg_size;
		ep->max_rdma = wa.max_rdma_size;
		ep->max_sq = wa.max_sq_wr;
	} else {
		ep->max_send = pa.max_msg_sz;
		ep->max_rdma = pa.max_msg_sz;
		ep->max_sq = (uint32_t)da.max_qp_wr;
	}
	if (ep->max_send < SWAP_HDR_LEN + ep->a.buf_size || ep->max_rdma < 4096)
		return EMSGSIZE;
	ep->stage_size = ep->max_rdma * (size_t)SWAP_WRITE_WRS;
	if (ep->stage_size > STAGE_MAX)
		ep->stage_size = STAGE_MAX;
	need = ep->a.send_depth + SWAP_WRITE_WRS + 1 +
	       (ep->tp == SWAP_TRANSPORT_RD ? ep->a.max_partners : 0);
	if (ep->max_sq < need)
		return EINVAL;
	ep->max_sq = need;
	ep->cq_size = ep->a.send_depth + SWAP_WRITE_WRS + ep->a.max_partners *
		      (ep->a.buf_count + 1);
	if (ep->cq_size > (uint32_t)da.max_cqe)
		return EINVAL;
	return 0;
}

static struct ibv_mr *reg(struct swap_ep *ep, void *addr, size_t len,
			  int access)
{
	return ibv_reg_mr(ep->pd, addr, len, IBV_ACCESS_LOCAL_WRITE | access);
}

void *swap_zalloc(size_t len)
{
	void *p;

	if (posix_memalign(&p, 4096, len))
		return NULL;
	memset(p, 0, len);
	return p;
}

static int alloc_buffers(struct swap_ep *ep)
{
	const struct swap_ep_attr *a = &ep->a;
	size_t rlen;
	uint32_t i;

	ep->rstride = (SWAP_HDR_LEN + a->buf_size + SWAP_POOL_ALIGN - 1) &
		      ~(uint32_t)(SWAP_POOL_ALIGN - 1);
	ep->tstride = ep->rstride;
	rlen = (size_t)a->max_partners * a->buf_count * ep->rstride;
	ep->rx_mem = swap_zalloc(rlen);
	ep->tx_mem = swap_zalloc((size_t)a->send_depth * ep->tstride);
	ep->stage = swap_zalloc(ep->stage_size);
	ep->shadow = swap_zalloc((size_t)a->max_partners * SWAP_FCB_LEN);
	ep->tx_free = calloc(a->send_depth, sizeof(*ep->tx_free));
	ep->txs = calloc(a->send_depth, sizeof(*ep->txs));
	ep->p = calloc(a->max_partners, sizeof(*ep->p));
	if (!ep->rx_mem || !ep->tx_mem || !ep->stage || !ep->shadow ||
	    !ep->tx_free || !ep->txs || !ep->p)
		return ENOMEM;
	ep->rx_mr = reg(ep, ep->rx_mem, rlen, 0);
	ep->tx_mr = reg(ep, ep->tx_mem, (size_t)a->send_depth * ep->tstride, 0);
	ep->stage_mr = reg(ep, ep->stage, ep->stage_size, 0);
	ep->shadow_mr = reg(ep, ep->shadow,
			    (size_t)a->max_partners * SWAP_FCB_LEN, 0);
	if (!ep->rx_mr || !ep->tx_mr || !ep->stage_mr || !ep->shadow_mr)
		return errno ? errno : ENOMEM;
	for (i = 0; i < a->send_depth; i++)
		ep->tx_free[ep->ntx_free++] = a->send_depth - 1 - i;
	for (i = 0; i < a->max_partners; i++)
		ep->p[i].id = (int)i;
	ep->st.mem_shared = (uint64_t)a->send_depth * ep->tstride +
			    ep->stage_size;
	/* Its receive buffers, block page, pool and READ target. */
	ep->st.mem_per_partner = (uint64_t)a->buf_count * ep->rstride + 4096 +
				 a->pool_size + SWAP_FCB_LEN;
	return 0;
}

/* Send and receive work requests for @qp: the QP's init attributes. */
void swap_qp_init_attr(struct swap_ep *ep, struct ibv_qp_init_attr_ex *ia,
		       enum ibv_qp_type type)
{
	memset(ia, 0, sizeof(*ia));
	ia->qp_type = type;
	ia->send_cq = ep->cq;
	ia->recv_cq = ep->cq;
	ia->cap.max_send_wr = ep->max_sq;
	ia->cap.max_recv_wr = ep->a.buf_count * (type == IBV_QPT_RC ? 1 :
						 ep->a.max_partners);
	ia->cap.max_send_sge = 1;
	ia->cap.max_recv_sge = 1;
	ia->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
	ia->pd = ep->pd;
	ia->send_ops_flags = IBV_QP_EX_WITH_SEND_WITH_IMM |
			     IBV_QP_EX_WITH_RDMA_WRITE |
			     IBV_QP_EX_WITH_RDMA_READ;
}

static int make_rd_qp(struct swap_ep *ep)
{
	create_fn create = (create_fn)wrendv_sym("wrendv_create_qp");
	struct wrendv_qp_init_attr da = {
		.driver_qp_type = WRENDV_QP_DRIVER_TYPE_RD,
	};
	struct ibv_qp_init_attr_ex ia;
	struct ibv_qp_attr qa;

	if (!create)
		return EOPNOTSUPP;
	swap_qp_init_attr(ep, &ia, IBV_QPT_DRIVER);
	ep->qp = create(ep->ctx, &ia, &da, sizeof(da));
	if (!ep->qp)
		return errno ? errno : EINVAL;
	ep->qpx = ibv_qp_to_qp_ex(ep->qp);
	if (!ep->qpx)
		return EOPNOTSUPP;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_INIT;
	qa.port_num = ep->a.port_num;
	qa.qkey = SWAP_QKEY_VALUE;
	if (ibv_modify_qp(ep->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return errno ? errno : EINVAL;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(ep->qp, &qa, IBV_QP_STATE))
		return errno ? errno : EINVAL;
	qa.qp_state = IBV_QPS_RTS;
	if (ibv_modify_qp(ep->qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return errno ? errno : EINVAL;
	return 0;
}

SWAP_EXPORT
struct swap_ep *swap_ep_create(struct ibv_pd *pd,
			       const struct swap_ep_attr *attr)
{
	struct swap_ep *ep;
	int ret, fl;

	if (!pd) {
		errno = EINVAL;
		return NULL;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep) {
		errno = ENOMEM;
		return NULL;
	}
	ep->pd = pd;
	ep->ctx = pd->context;
	if (attr)
		ep->a = *attr;
	set_defaults(&ep->a);
	ret = check_attr(&ep->a);
	if (!ret)
		ret = probe_device(ep);
	if (ret)
		goto err;
	ep->ch = ibv_create_comp_channel(ep->ctx);
	if (!ep->ch)
		goto err_errno;
	fl = fcntl(ep->ch->fd, F_GETFL);
	if (fl < 0 || fcntl(ep->ch->fd, F_SETFL, fl | O_NONBLOCK))
		goto err_errno;
	ep->cq = ibv_create_cq(ep->ctx, (int)ep->cq_size, ep, ep->ch, 0);
	if (!ep->cq)
		goto err_errno;
	ret = alloc_buffers(ep);
	if (!ret && ep->tp == SWAP_TRANSPORT_RD)
		ret = make_rd_qp(ep);
	if (ret)
		goto err;
	return ep;
err_errno:
	ret = errno ? errno : ENOMEM;
err:
	swap_ep_close(ep);
	errno = ret;
	return NULL;
}

static int dereg(struct ibv_mr *mr)
{
	return mr ? ibv_dereg_mr(mr) : 0;
}

SWAP_EXPORT
int swap_ep_close(struct swap_ep *ep)
{
	int ret = 0;
	uint32_t i;

	if (!ep)
		return 0;
	for (i = 0; ep->p && i < ep->a.max_partners; i++)
		if (ep->p[i].state != P_FREE)
			swap_partner_remove(ep, (int)i);
	if (ep->qp && ibv_destroy_qp(ep->qp))
		ret = -EBUSY;
	if (dereg(ep->rx_mr) || dereg(ep->tx_mr) || dereg(ep->stage_mr) ||
	    dereg(ep->shadow_mr))
		ret = -EBUSY;
	if (ep->cq && ibv_destroy_cq(ep->cq))
		ret = -EBUSY;
	if (ep->ch && ibv_destroy_comp_channel(ep->ch))
		ret = -EBUSY;
	free(ep->rx_mem);
	free(ep->tx_mem);
	free(ep->stage);
	free(ep->shadow);
	free(ep->tx_free);
	free(ep->txs);
	free(ep->p);
	free(ep);
	return ret;
}

SWAP_EXPORT
int swap_ep_fd(struct swap_ep *ep)
{
	return ep->ch->fd;
}

SWAP_EXPORT
enum swap_transport swap_ep_transport(struct swap_ep *ep)
{
	return ep->tp;
}

SWAP_EXPORT
void swap_ep_stats(struct swap_ep *ep, struct swap_stats *st)
{
	*st = ep->st;
}
