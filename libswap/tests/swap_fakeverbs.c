// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A fake libibverbs and libwren for libswap's unit test: RD and RC QPs in
 * one process, posted SENDs, WRITEs and READs queued on a "wire" that runs
 * when a CQ is polled (unless the test holds it), checked against the
 * responder's posted receives, memory regions, rights and bounds the way
 * a device does.  It also counts the READs each QP has outstanding per
 * remote key, from posting until the completion is polled, for the
 * one-READ rule.  An RC QP in the error state flushes what it has posted
 * and posts, and destroying one discards its completions not yet polled,
 * as libwren and mlx5 do.  Test scaffolding only; not the library's code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/wrendv.h>

#include "swap_fakeverbs.h"

#define MAX_QPS		512
#define RQ_MAX		8192
#define CQ_MAX		65536
#define WIRE_MAX	65536

bool fake_hold;
bool fake_reverse;
bool (*fake_tamper)(struct fake_op *op, bool fetched);
void (*fake_on_poll)(void);

struct fcq {
	struct ibv_cq cq;
	struct ibv_wc *wc;
	unsigned int head, count;
	bool armed;
	struct fchan *ch;
};

struct fchan {
	struct ibv_comp_channel ch;
	struct fcq *cq;
};

struct frecv {
	uint64_t wr_id;
	uint64_t addr;
	uint32_t len;
};

struct fqp {
	struct ibv_qp_ex qpx;
	struct fcq *cq;
	bool dead;
	bool rc, err;		/* RC: its peer dest; error state: flushing */
	uint32_t dest;
	struct frecv *rq;
	unsigned int rq_head, rq_count;
	/* the request being built between wr_start and wr_complete */
	struct fake_op cur;
	bool cur_set;
	struct fake_op *batch;
	unsigned int nbatch;
};

struct fmr {
	struct ibv_mr mr;
	int access;
	struct fmr *next;
};

/* A READ outstanding: from posting until its completion is polled. */
struct fread {
	uint32_t qpn, rkey;
	uint64_t wr_id;
	bool live;
};

static struct fqp *g_qps[MAX_QPS];
static uint32_t g_next_qpn = 100;
static struct fmr *g_mrs;
static uint32_t g_next_key = 0x1000;
static struct fake_op g_wire[WIRE_MAX];
static unsigned int g_nwire;
static struct fread g_reads[4096];
static unsigned int g_read_max;
static uint64_t g_read_count;
static uint64_t g_behind;	/* SENDs posted behind a WRITE not yet run */
static struct ibv_device g_dev = { .name = "fake0" };
static struct verbs_context g_vctx;	/* ibv_create_qp_ex() needs one */
#define g_ctx	(g_vctx.context)
static struct ibv_pd g_pd;

static void *xzalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p)
		abort();
	return p;
}

static struct fqp *qp_by_num(uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < MAX_QPS; i++)
		if (g_qps[i] && g_qps[i]->qpx.qp_base.qp_num == qpn)
			return g_qps[i];
	return NULL;
}

static void cq_push(struct fcq *cq, const struct ibv_wc *wc)
{
	if (cq->count == CQ_MAX)
		abort();	/* the library overran its CQ */
	cq->wc[(cq->head + cq->count++) % CQ_MAX] = *wc;
	if (cq->armed && cq->ch) {
		uint64_t one = 1;

		cq->armed = false;
		if (write(cq->ch->ch.fd, &one, sizeof(one)) < 0)
			abort();
	}
}

static void sender_done(struct fqp *qp, const struct fake_op *op,
			enum ibv_wc_status st, enum ibv_wc_opcode opc)
{
	struct ibv_wc wc = {
		.wr_id = op->wr_id,
		.status = st,
		.opcode = opc,
		.qp_num = qp->qpx.qp_base.qp_num,
		.byte_len = op->type == FOP_READ ? op->len : 0,
	};

	cq_push(qp->cq, &wc);
}

static uint8_t *mr_range(uint32_t rkey, uint64_t addr, uint32_t len,
			 int right)
{
	struct fmr *m;

	for (m = g_mrs; m; m = m->next) {
		uint64_t base = (uintptr_t)m->mr.addr;

		if (m->mr.rkey != rkey)
			continue;
		if (!(m->access & right) || addr < base ||
		    addr + len > base + m->mr.length || addr + len < addr)
			return NULL;
		return (uint8_t *)(uintptr_t)addr;
	}
	return NULL;
}

static enum ibv_wc_opcode op_opcode(const struct fake_op *op)
{
	return op->type == FOP_SEND ? IBV_WC_SEND :
	       op->type == FOP_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ;
}

static void run_op(struct fake_op *op)
{
	struct fqp *src = qp_by_num(op->src_qpn), *dst = qp_by_num(op->dst_qpn);
	enum ibv_wc_opcode opc = op_opcode(op);
	uint8_t *mem;

	if (!src || src->dead)
		return;		/* its process is gone */
	if (fake_tamper && fake_tamper(op, false)) {
		sender_done(src, op, IBV_WC_SUCCESS, opc);
		return;
	}
	if (op->fail) {
		sender_done(src, op, op->fail, opc);
		return;
	}
	if (!dst || dst->dead || dst->err) {
		sender_done(src, op, IBV_WC_REM_INV_RD_REQ_ERR, opc);
		return;
	}
	if (op->type == FOP_SEND) {
		struct frecv *r;
		struct ibv_wc wc = { 0 };

		if (!dst->rq_count) {
			sender_done(src, op, IBV_WC_RNR_RETRY_EXC_ERR, opc);
			return;
		}
		r = &dst->rq[dst->rq_head];
		if (op->len > r->len) {
			sender_done(src, op, IBV_WC_REM_INV_REQ_ERR, opc);
			return;
		}
		dst->rq_head = (dst->rq_head + 1) % RQ_MAX;
		dst->rq_count--;
		memcpy((void *)(uintptr_t)r->addr, op->data, op->len);
		wc.wr_id = r->wr_id;
		wc.status = IBV_WC_SUCCESS;
		wc.opcode = IBV_WC_RECV;
		wc.byte_len = op->len;
		wc.imm_data = op->imm;
		wc.wc_flags = op->with_imm ? IBV_WC_WITH_IMM : 0;
		wc.qp_num = dst->qpx.qp_base.qp_num;
		wc.src_qp = op->src_qpn;
		cq_push(dst->cq, &wc);
		sender_done(src, op, IBV_WC_SUCCESS, opc);
		return;
	}
	mem = mr_range(op->rkey, op->raddr, op->len,
		       op->type == FOP_WRITE ? IBV_ACCESS_REMOTE_WRITE :
					       IBV_ACCESS_REMOTE_READ);
	if (!mem) {
		sender_done(src, op, IBV_WC_REM_ACCESS_ERR, opc);
		return;
	}
	if (op->type == FOP_WRITE) {
		memcpy(mem, op->data, op->len);
	} else {
		memcpy((void *)(uintptr_t)op->laddr, mem, op->len);
		if (fake_tamper)
			fake_tamper(op, true);
	}
	sender_done(src, op, IBV_WC_SUCCESS, opc);
}

void fake_pump(void)
{
	struct fake_op *ops;
	unsigned int n = g_nwire, i;

	if (!n)
		return;
	/* What runs may post more: take the wire as it is now. */
	ops = xzalloc(n * sizeof(*ops));
	memcpy(ops, g_wire, n * sizeof(*ops));
	g_nwire = 0;
	for (i = 0; i < n; i++) {
		struct fake_op *op = &ops[fake_reverse ? n - 1 - i : i];

		run_op(op);
		free(op->data);
	}
	free(ops);
}

unsigned int fake_wire_len(void)
{
	return g_nwire;
}

unsigned int fake_read_max(void)
{
	return g_read_max;
}

uint64_t fake_reads(void)
{
	return g_read_count;
}

uint64_t fake_sends_behind_writes(void)
{
	return g_behind;
}

void fake_reset_counts(void)
{
	g_read_max = 0;
	g_read_count = 0;
	g_behind = 0;
}

void fake_kill_qp(uint32_t qpn)
{
	struct fqp *qp = qp_by_num(qpn);

	if (qp)
		qp->dead = true;
}

static void read_track(uint32_t qpn, uint32_t rkey, uint64_t wr_id)
{
	unsigned int i, same = 0, slot = ~0U;

	for (i = 0; i < sizeof(g_reads) / sizeof(g_reads[0]); i++) {
		if (!g_reads[i].live) {
			if (slot == ~0U)
				slot = i;
			continue;
		}
		if (g_reads[i].qpn == qpn && g_reads[i].rkey == rkey)
			same++;
	}
	if (slot == ~0U)
		abort();
	g_reads[slot] = (struct fread){ qpn, rkey, wr_id, true };
	if (same + 1 > g_read_max)
		g_read_max = same + 1;
	g_read_count++;
}

static void read_untrack(uint32_t qpn, uint64_t wr_id)
{
	unsigned int i;

	for (i = 0; i < sizeof(g_reads) / sizeof(g_reads[0]); i++) {
		if (g_reads[i].live && g_reads[i].qpn == qpn &&
		    g_reads[i].wr_id == wr_id) {
			g_reads[i].live = false;
			return;
		}
	}
}

static int fake_poll_cq(struct ibv_cq *ibcq, int num, struct ibv_wc *wc)
{
	struct fcq *cq = (struct fcq *)ibcq;
	int n = 0;

	if (fake_on_poll)
		fake_on_poll();
	if (!fake_hold)
		fake_pump();
	while (n < num && cq->count) {
		wc[n] = cq->wc[cq->head];
		cq->head = (cq->head + 1) % CQ_MAX;
		cq->count--;
		if (wc[n].opcode == IBV_WC_RDMA_READ)
			read_untrack(wc[n].qp_num, wc[n].wr_id);
		n++;
	}
	return n;
}

static int fake_req_notify(struct ibv_cq *ibcq, int solicited)
{
	struct fcq *cq = (struct fcq *)ibcq;
	uint64_t one = 1;

	(void)solicited;
	cq->armed = true;
	/* Work on the wire would complete at once on a device: say so. */
	if ((g_nwire && !fake_hold) || cq->count) {
		cq->armed = false;
		if (write(cq->ch->ch.fd, &one, sizeof(one)) < 0)
			abort();
	}
	return 0;
}

static int fake_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	struct fqp *qp = (struct fqp *)ibqp;

	for (; wr; wr = wr->next) {
		if (qp->rq_count == RQ_MAX || wr->num_sge != 1) {
			*bad = wr;
			return ENOMEM;
		}
		qp->rq[(qp->rq_head + qp->rq_count++) % RQ_MAX] =
			(struct frecv){ wr->wr_id, wr->sg_list[0].addr,
					wr->sg_list[0].length };
	}
	return 0;
}

/* The work request API: one request at a time into cur, then a batch. */
static struct fqp *fq(struct ibv_qp_ex *qpx)
{
	return (struct fqp *)qpx;
}

static void begin(struct ibv_qp_ex *qpx, enum fake_op_type t)
{
	struct fqp *qp = fq(qpx);

	memset(&qp->cur, 0, sizeof(qp->cur));
	qp->cur.type = t;
	qp->cur.wr_id = qpx->wr_id;
	qp->cur.src_qpn = qpx->qp_base.qp_num;
	if (qp->rc)
		qp->cur.dst_qpn = qp->dest;
	qp->cur_set = true;
}

static void w_start(struct ibv_qp_ex *qpx)
{
	fq(qpx)->nbatch = 0;
	fq(qpx)->cur_set = false;
}

static void w_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	begin(qpx, FOP_SEND);
	fq(qpx)->cur.imm = imm;
	fq(qpx)->cur.with_imm = true;
}

static void w_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr)
{
	begin(qpx, FOP_WRITE);
	fq(qpx)->cur.rkey = rkey;
	fq(qpx)->cur.raddr = raddr;
}

static void w_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t raddr)
{
	begin(qpx, FOP_READ);
	fq(qpx)->cur.rkey = rkey;
	fq(qpx)->cur.raddr = raddr;
}

static void w_ud(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t qpn,
		 uint32_t qkey)
{
	(void)ah;
	(void)qkey;
	fq(qpx)->cur.dst_qpn = qpn;
}

/* The SGE completes the request: it joins the batch. */
static void w_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr,
		  uint32_t len)
{
	struct fqp *qp = fq(qpx);
	struct fake_op *op = &qp->cur;

	(void)lkey;
	op->len = len;
	if (op->type == FOP_READ) {
		op->laddr = addr;
	} else {
		op->data = malloc(len ? len : 1);
		if (!op->data)
			abort();
		memcpy(op->data, (void *)(uintptr_t)addr, len);
	}
	qp->batch = realloc(qp->batch, (qp->nbatch + 1) * sizeof(*op));
	if (!qp->batch)
		abort();
	qp->batch[qp->nbatch++] = *op;
	qp->cur_set = false;
}

static bool wire_has_write(uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < g_nwire; i++)
		if (g_wire[i].type == FOP_WRITE && g_wire[i].src_qpn == qpn)
			return true;
	return false;
}

static int w_complete(struct ibv_qp_ex *qpx)
{
	struct fqp *qp = fq(qpx);
	unsigned int i;

	for (i = 0; i < qp->nbatch; i++) {
		if (g_nwire == WIRE_MAX)
			abort();
		if (qp->err) {
			sender_done(qp, &qp->batch[i], IBV_WC_WR_FLUSH_ERR,
				    op_opcode(&qp->batch[i]));
			free(qp->batch[i].data);
			continue;
		}
		if (qp->batch[i].type == FOP_SEND)
			g_behind += wire_has_write(qp->batch[i].src_qpn);
		if (qp->batch[i].type == FOP_READ)
			read_track(qp->batch[i].src_qpn, qp->batch[i].rkey,
				   qp->batch[i].wr_id);
		g_wire[g_nwire++] = qp->batch[i];
	}
	qp->nbatch = 0;
	return 0;
}

static void w_abort(struct ibv_qp_ex *qpx)
{
	fq(qpx)->nbatch = 0;
}

/* ------------------------------------------------------------------ */

static struct ibv_qp *fake_create_qp_ex(struct ibv_context *ctx,
					struct ibv_qp_init_attr_ex *attr);

struct ibv_pd *fake_pd(void)
{
	g_vctx.sz = sizeof(g_vctx);
	g_vctx.create_qp_ex = fake_create_qp_ex;
	g_ctx.abi_compat = __VERBS_ABI_IS_EXTENDED;
	g_ctx.device = &g_dev;
	g_ctx.ops.poll_cq = fake_poll_cq;
	g_ctx.ops.req_notify_cq = fake_req_notify;
	g_ctx.ops.post_recv = fake_post_recv;
	g_pd.context = &g_ctx;
	return &g_pd;
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	(void)ctx;
	memset(a, 0, sizeof(*a));
	a->max_cqe = CQ_MAX;
	a->max_qp_wr = 4096;
	a->max_mr_size = 1ULL << 40;
	return 0;
}

int wrendv_query_device(struct ibv_context *ctx, struct wrendv_device_attr *a,
			uint32_t inlen)
{
	(void)ctx;
	memset(a, 0, inlen);
	a->max_sq_wr = 8192;
	a->max_rq_wr = RQ_MAX;
	a->device_caps = WRENDV_DEVICE_CAP_RD | WRENDV_DEVICE_CAP_RDMA_WRITE |
			 WRENDV_DEVICE_CAP_RDMA_READ;
	a->max_rd_msg_size = 1U << 20;
	/* Small, so that a piece takes several WRITEs. */
	a->max_rdma_size = 16384;
	return 0;
}

int (ibv_query_port)(struct ibv_context *ctx, uint8_t port,
		     struct _compat_ibv_port_attr *compat)
{
	struct ibv_port_attr *a = (struct ibv_port_attr *)compat;

	(void)ctx;
	if (port != 1)
		return EINVAL;
	a->state = IBV_PORT_ACTIVE;
	a->gid_tbl_len = 1;
	a->max_msg_sz = 1U << 30;
	return 0;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index,
		  union ibv_gid *gid)
{
	(void)ctx;
	(void)port;
	(void)index;
	memset(gid, 0, sizeof(*gid));
	gid->raw[15] = 1;
	return 0;
}

const char *ibv_wc_status_str(enum ibv_wc_status s)
{
	static char buf[32];

	snprintf(buf, sizeof(buf), "status %d", (int)s);
	return buf;
}

struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct fchan *ch = xzalloc(sizeof(*ch));

	ch->ch.context = ctx;
	ch->ch.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ch->ch.fd < 0)
		abort();
	return &ch->ch;
}

int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	close(ch->fd);
	free(ch);
	return 0;
}

int ibv_get_cq_event(struct ibv_comp_channel *ibch, struct ibv_cq **cq,
		     void **cq_ctx)
{
	struct fchan *ch = (struct fchan *)ibch;
	uint64_t v;

	if (read(ibch->fd, &v, sizeof(v)) != sizeof(v))
		return -1;
	*cq = &ch->cq->cq;
	*cq_ctx = ch->cq->cq.cq_context;
	return 0;
}

void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int n)
{
	(void)cq;
	(void)n;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_ctx,
			     struct ibv_comp_channel *ch, int vec)
{
	struct fcq *cq = xzalloc(sizeof(*cq));

	(void)vec;
	cq->cq.context = ctx;
	cq->cq.cqe = cqe;
	cq->cq.cq_context = cq_ctx;
	cq->wc = xzalloc(CQ_MAX * sizeof(*cq->wc));
	cq->ch = (struct fchan *)ch;
	if (cq->ch)
		cq->ch->cq = cq;
	return &cq->cq;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct fcq *cq = (struct fcq *)ibcq;

	free(cq->wc);
	free(cq);
	return 0;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t len,
				uint64_t iova, unsigned int access)
{
	struct fmr *m = xzalloc(sizeof(*m));

	(void)iova;
	m->mr.pd = pd;
	m->mr.context = pd->context;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = g_next_key;
	m->mr.rkey = g_next_key++;
	m->access = (int)access;
	m->next = g_mrs;
	g_mrs = m;
	return &m->mr;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t len,
			    int access)
{
	return ibv_reg_mr_iova2(pd, addr, len, (uintptr_t)addr,
				(unsigned int)access);
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct fmr **pp;

	for (pp = &g_mrs; *pp; pp = &(*pp)->next) {
		if (&(*pp)->mr == mr) {
			struct fmr *m = *pp;

			*pp = m->next;
			free(m);
			return 0;
		}
	}
	return EINVAL;
}

struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ibv_ah *ah = xzalloc(sizeof(*ah));

	(void)attr;
	ah->pd = pd;
	ah->context = pd->context;
	return ah;
}

int ibv_destroy_ah(struct ibv_ah *ah)
{
	free(ah);
	return 0;
}

static struct ibv_qp *qp_new(struct ibv_context *ctx,
			     struct ibv_qp_init_attr_ex *attr)
{
	struct fqp *qp;
	unsigned int i;

	if (attr->send_cq != attr->recv_cq) {
		errno = EINVAL;
		return NULL;
	}
	for (i = 0; i < MAX_QPS && g_qps[i]; i++)
		;
	if (i == MAX_QPS) {
		errno = ENOMEM;
		return NULL;
	}
	qp = xzalloc(sizeof(*qp));
	qp->qpx.qp_base.context = ctx;
	qp->qpx.qp_base.pd = attr->pd;
	qp->qpx.qp_base.qp_type = attr->qp_type;
	qp->rc = attr->qp_type == IBV_QPT_RC;
	qp->qpx.qp_base.qp_num = g_next_qpn++;
	qp->qpx.wr_start = w_start;
	qp->qpx.wr_complete = w_complete;
	qp->qpx.wr_abort = w_abort;
	qp->qpx.wr_send_imm = w_send_imm;
	qp->qpx.wr_rdma_write = w_write;
	qp->qpx.wr_rdma_read = w_read;
	qp->qpx.wr_set_ud_addr = w_ud;
	qp->qpx.wr_set_sge = w_sge;
	qp->cq = (struct fcq *)attr->send_cq;
	qp->rq = xzalloc(RQ_MAX * sizeof(*qp->rq));
	g_qps[i] = qp;
	return &qp->qpx.qp_base;
}

struct ibv_qp *wrendv_create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr,
				struct wrendv_qp_init_attr *dattr,
				uint32_t inlen)
{
	(void)inlen;
	if (attr->qp_type != IBV_QPT_DRIVER ||
	    dattr->driver_qp_type != WRENDV_QP_DRIVER_TYPE_RD) {
		errno = EINVAL;
		return NULL;
	}
	return qp_new(ctx, attr);
}

static struct ibv_qp *fake_create_qp_ex(struct ibv_context *ctx,
					struct ibv_qp_init_attr_ex *attr)
{
	if (attr->qp_type != IBV_QPT_RC) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	return qp_new(ctx, attr);
}

/* @qp's completions not yet polled: gone, as a destroyed QP's are. */
static void cq_purge(struct fcq *cq, uint32_t qpn)
{
	unsigned int i, n = 0;

	for (i = 0; i < cq->count; i++) {
		struct ibv_wc *wc = &cq->wc[(cq->head + i) % CQ_MAX];

		if (wc->qp_num != qpn)
			cq->wc[(cq->head + n++) % CQ_MAX] = *wc;
	}
	cq->count = n;
}

/* RC into the error state: its receives and its work on the wire flush. */
static void qp_flush(struct fqp *qp)
{
	uint32_t qpn = qp->qpx.qp_base.qp_num;
	unsigned int i, n = 0;

	qp->err = true;
	for (i = 0; i < g_nwire; i++) {
		if (g_wire[i].src_qpn != qpn) {
			g_wire[n++] = g_wire[i];
			continue;
		}
		sender_done(qp, &g_wire[i], IBV_WC_WR_FLUSH_ERR,
			    op_opcode(&g_wire[i]));
		free(g_wire[i].data);
	}
	g_nwire = n;
	for (; qp->rq_count; qp->rq_count--) {
		struct ibv_wc wc = {
			.wr_id = qp->rq[qp->rq_head].wr_id,
			.status = IBV_WC_WR_FLUSH_ERR,
			.opcode = IBV_WC_RECV,
			.qp_num = qpn,
		};

		qp->rq_head = (qp->rq_head + 1) % RQ_MAX;
		cq_push(qp->cq, &wc);
	}
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return (struct ibv_qp_ex *)qp;
}

int ibv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	struct fqp *qp = (struct fqp *)ibqp;

	if (!qp->rc)
		return 0;
	if (mask & IBV_QP_DEST_QPN)
		qp->dest = attr->dest_qp_num;
	if (mask & IBV_QP_STATE && attr->qp_state == IBV_QPS_ERR)
		qp_flush(qp);
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct fqp *qp = (struct fqp *)ibqp;
	unsigned int i;

	for (i = 0; i < MAX_QPS; i++)
		if (g_qps[i] == qp)
			g_qps[i] = NULL;
	cq_purge(qp->cq, ibqp->qp_num);
	free(qp->rq);
	free(qp->batch);
	free(qp);
	return 0;
}

/* The old entry point: libswap asks for send operations, never this. */
struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	(void)pd;
	(void)attr;
	errno = EOPNOTSUPP;
	return NULL;
}
