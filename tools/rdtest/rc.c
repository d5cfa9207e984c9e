// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wren_rc_stress: checks that Wren's RC queue pairs execute and complete
 * every operation exactly once, in order, with every byte intact.
 *
 * Runs in each of N guests at once.  Every two participants connect
 * --qps RC QPs (their numbers exchanged through the rendezvous, ctl.c;
 * a second rendezvous on the next port waits until every QP is in RTS).
 * Each QP carries two streams of --ops operations, one each way, drawn
 * from the seed (rcgen.c): SENDs with and without immediate, inline
 * SENDs, RDMA WRITEs with and without immediate each followed by a READ
 * of the same bytes back, READs of the responder's read source, and
 * FETCH_AND_ADDs and CMP_AND_SWPs on a counter the responder keeps for
 * that QP alone, and FETCH_AND_ADDs on one the responder shares among all
 * its QPs, some through ibv_post_send, some through ibv_wr_*, with
 * one to three SGEs.  At most --window operations of a QP are
 * outstanding.  With --srq, the odd QPs take their receives from one
 * shared receive queue.
 *
 * Both ends draw the same stream, so each knows what must come next: the
 * requester that its completions come back in posting order and what
 * every READ and atomic returns (an atomic's old value is the counter's
 * predicted one: the sum of every earlier addend, exactly once, in
 * order); the responder which arrival comes next on each QP, its length,
 * immediate and bytes, and at the end the value each counter must hold
 * (the shared one: the sum of every stream's addends, none lost to a
 * concurrent one on another QP).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "common.h"
#include "rcgen.h"
#include "rdtest.h"

#define RC_PROG			"wren_rc_stress"

const char *rd_prog = RC_PROG;

#define POLL_BATCH		16
#define PROGRESS_NS		(5 * NS)
#define CTL_EVERY_NS		(10 * 1000000ULL)
#define CONNECT_S		60
/* Past the deadline, a participant that is done waits this much more. */
#define DONE_GRACE_NS		(10 * NS)
#define ALIGN			64
/*
 * The SGEs of an operation lie this far apart in its local buffer, so
 * that an adapter that ran them together would move the wrong bytes.
 */
#define SGE_GAP			64
#define MISSING_SHOWN		16
/*
 * A counter and the padding after it: the shared counter after the read
 * source, each QP's before its write slots.
 */
#define COUNTER_AREA		64
#define PSN_MASK		0xffffffU
#define MAX_RD_ATOMIC		16
#define INLINE_WANTED		64
/* The read and atomic buffers are set to this before the operation. */
#define POISON			0xa5
/*
 * A receive's wr_id: this tag, the QP's place in run.qp, the slot.  The
 * tag tells a completion that took a receive from one that took none: a
 * WRITE_WITH_IMM on Wren (see recv_done()).
 */
#define RECV_TAG		(1ULL << 63)
#define RECV_IDX_SHIFT		32

struct opts {
	union {
		struct rd_base base;
		struct {
			RD_BASE_FIELDS;
		};
	};
	uint32_t qps;
	uint32_t ops;
	uint32_t window;
	uint32_t recv_depth;
	bool srq;
};

/* One RC QP to one participant, both its streams. */
struct rcqp {
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	unsigned int peer, q;
	uint32_t rqpn;		/* its other end */
	struct rc_stream tx;	/* ours: the next to post */
	struct rc_stream rx;	/* the peer's: the next to arrive */
	struct rc_op *ring;	/* op j outstanding at j % window */
	bool *done;		/* op j completed, at j % window */
	uint8_t *lbuf;		/* window local buffers */
	uint8_t *rbuf;		/* recv_depth receive buffers */
	bool on_srq;		/* --srq: takes its receives from r->srq */
	uint32_t posted;
	uint32_t completed;	/* every op before this one completed */
	uint32_t arrived, arrivals;	/* the peer's consuming ops */
	uint32_t recv_next;	/* receives completed, in ring order */
	uint64_t counter_final;	/* our counter for the peer's stream */
	uint64_t *counter;	/* ... in our window */
	uint64_t remote;	/* our area in the peer's window */
};

struct run {
	struct opts o;
	struct rc_cfg cfg;
	uint64_t t_begin, t_data, t_end, deadline;

	struct rd_dev dv;
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_srq *srq;	/* --srq: the odd QPs' receives */
	uint32_t srq_depth;
	uint8_t *lmem, *rmem, *win, *scratch;
	struct ibv_mr *lmr, *rmr, *wmr;
	size_t lstride, rstride, wstride, area, src_size;
	uint8_t rd_atomic;	/* READs and atomics outstanding per QP */
	uint8_t *source;	/* each peer's read source, as it must be */

	struct ctl ctl;
	bool ctl_opened;
	struct rd_peer *table;
	uint32_t *qpns;		/* ours, then every row's */
	struct rcqp *qp;	/* peer * qps + q; ours unused */
	unsigned int nqp;	/* peers * qps */

	uint64_t ops_done, arrivals, arrivals_expected, ops_expected, bytes;
	uint64_t count[RC_NTYPES], wr_api, post_send, swapped;
	uint64_t shared_final;	/* our shared counter must end at */
	uint64_t lost, duplicates, out_of_order, corrupt, counters_checked;
	uint64_t srq_arrivals;
	unsigned int logged;
	bool done_reported, released, data_phase;
};

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f, "usage: %s --peers N --index I [--hub IP] [options]\n",
		RC_PROG);
	rd_usage_base(f);
	fprintf(f,
"  --port P          the rendezvous TCP port, and P+1 (18700)\n"
"  --qps Q           RC QPs to each other participant (16)\n"
"  --ops M           operations each way on every QP (500)\n"
"  --seed S          names every operation, size and byte (1)\n"
"  --max-size BYTES  the largest operation, K/M suffixes allowed (64K)\n"
"  --window W        operations outstanding per QP at most (8)\n"
"  --recv-depth R    receives posted per QP (16)\n"
"  --srq             the odd QPs take their receives from one shared\n"
"                    receive queue of recv-depth per QP\n"
"Exit status: 0 if every check passed, 1 if one failed, 2 on bad usage.\n");
}

/* The options of ours alone (rd_parse_opts() takes the others). */
static int take_opt(void *opts, int c, const char *name, const char *arg)
{
	struct opts *o = opts;
	uint64_t v;

	switch (c) {
	case 'q':
		/* q travels in the immediate's top 8 bits. */
		if (parse_num(name, arg, 1, RC_MAX_QPS, false, &v))
			return -1;
		o->qps = (uint32_t)v;
		return 0;
	case 'm':
		if (parse_num(name, arg, 1, RC_MAX_OPS, false, &v))
			return -1;
		o->ops = (uint32_t)v;
		return 0;
	case 'w':
		/* post_qp() builds a window's requests on its stack. */
		if (parse_num(name, arg, 1, 256, false, &v))
			return -1;
		o->window = (uint32_t)v;
		return 0;
	case 'r':
		if (parse_num(name, arg, 1, 4096, false, &v))
			return -1;
		o->recv_depth = (uint32_t)v;
		return 0;
	case 'Q':
		o->srq = true;
		return 0;
	}
	return -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "qps", required_argument, NULL, 'q' },
		{ "ops", required_argument, NULL, 'm' },
		{ "window", required_argument, NULL, 'w' },
		{ "recv-depth", required_argument, NULL, 'r' },
		{ "srq", no_argument, NULL, 'Q' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct rd_optdef def = {
		.longopts = longopts,
		.take = take_opt,
		.usage = usage,
	};

	*o = (struct opts){
		.base = {
			.port = 18700,
			.seed = 1,
			.max_size = 64U << 10,
			.timeout = 600,
		},
		.qps = 16,
		.ops = 500,
		.window = 8,
		.recv_depth = 16,
	};
	if (rd_parse_opts(argc, argv, &o->base, &def, o))
		return -1;
	/* The barrier listens on the next port. */
	if (o->port == 65535) {
		fprintf(stderr, "%s: --port 65535: the barrier needs the next "
			"one\n", RC_PROG);
		return -1;
	}
	/* An atomic needs 8 bytes of every buffer. */
	if (o->max_size < 8) {
		fprintf(stderr, "%s: --max-size %u: 8 bytes at least\n",
			RC_PROG, o->max_size);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Setting up                                                           */
/* ------------------------------------------------------------------ */

static size_t align_up(size_t n)
{
	return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

static struct rcqp *qp_of(struct run *r, unsigned int peer, unsigned int q)
{
	return &r->qp[peer * r->o.qps + q];
}

/* Our window's area for participant @writer's QP @q. */
static size_t area_off(const struct run *r, unsigned int writer,
		       unsigned int q)
{
	return r->src_size + COUNTER_AREA +
	       (writer * r->o.qps + q) * r->area;
}

/* The counter every participant adds to, after the read source. */
static uint64_t *shared_counter(const struct run *r)
{
	return (uint64_t *)(r->win + r->src_size);
}

static int check_device(struct run *r)
{
	const struct ibv_device_attr *a = &r->dv.attr;
	const struct opts *o = &r->o;
	const char *name = ibv_get_device_name(r->dv.dev);
	uint64_t nq = (uint64_t)(o->peers - 1) * o->qps;

	if (a->atomic_cap == IBV_ATOMIC_NONE) {
		fail("%s has no atomics", name);
		return -1;
	}
	if (nq > (uint64_t)a->max_qp) {
		fail("%" PRIu64 " RC QPs: %s has %d at most", nq, name,
		     a->max_qp);
		return -1;
	}
	if (o->window > (uint32_t)a->max_qp_wr ||
	    o->recv_depth > (uint32_t)a->max_qp_wr) {
		fail("--window %u, --recv-depth %u: %s queues %d work "
		     "requests at most", o->window, o->recv_depth, name,
		     a->max_qp_wr);
		return -1;
	}
	if (nq * o->window > (uint64_t)a->max_cqe ||
	    nq * o->recv_depth > (uint64_t)a->max_cqe) {
		fail("%" PRIu64 " QPs of --window %u and --recv-depth %u: %s "
		     "completes %d per queue at most", nq, o->window,
		     o->recv_depth, name, a->max_cqe);
		return -1;
	}
	if (a->max_sge < RC_MAX_SGE || a->max_sge_rd < RC_MAX_SGE) {
		fail("%s gathers %d SGEs (%d for READ), %u are needed", name,
		     a->max_sge, a->max_sge_rd, RC_MAX_SGE);
		return -1;
	}
	r->rd_atomic = a->max_qp_rd_atom < MAX_RD_ATOMIC ?
		       (uint8_t)a->max_qp_rd_atom : MAX_RD_ATOMIC;
	if (a->max_qp_init_rd_atom < r->rd_atomic)
		r->rd_atomic = (uint8_t)a->max_qp_init_rd_atom;
	if (!r->rd_atomic) {
		fail("%s answers no READ or atomic", name);
		return -1;
	}
	if (r->dv.port.max_msg_sz < o->max_size) {
		fail("--max-size %u: %s sends %u bytes at most", o->max_size,
		     name, r->dv.port.max_msg_sz);
		return -1;
	}
	return 0;
}

/* A registered buffer of @size bytes, zeroed. */
static int alloc_mr(struct run *r, uint8_t **mem, struct ibv_mr **mr,
		    size_t size, int access, const char *what)
{
	int ret = posix_memalign((void **)mem, 4096, size);

	if (ret) {
		*mem = NULL;
		fail("allocating %zu bytes of %s: %s", size, what,
		     strerror(ret));
		return -1;
	}
	memset(*mem, 0, size);
	*mr = ibv_reg_mr(r->pd, *mem, size, access);
	if (!*mr) {
		fail("ibv_reg_mr(%s, %zu bytes): %s", what, size,
		     strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Our local buffers (window per QP), receive buffers (recv-depth per
 * QP), and the window the others use: our read source, then per writer
 * and QP its counter and its write slots.
 */
static int alloc_memory(struct run *r)
{
	const struct opts *o = &r->o;
	const int remote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;

	r->lstride = align_up((size_t)o->max_size + RC_MAX_SGE * SGE_GAP);
	r->rstride = align_up(o->max_size);
	r->wstride = align_up(o->max_size);
	r->src_size = align_up(o->max_size);
	r->area = COUNTER_AREA + r->cfg.nslots * r->wstride;
	if (alloc_mr(r, &r->lmem, &r->lmr, r->lstride * o->window * r->nqp,
		     IBV_ACCESS_LOCAL_WRITE, "local buffers") ||
	    alloc_mr(r, &r->rmem, &r->rmr,
		     r->rstride * ((size_t)o->recv_depth * r->nqp + r->srq_depth),
		     IBV_ACCESS_LOCAL_WRITE, "receive buffers") ||
	    alloc_mr(r, &r->win, &r->wmr,
		     r->src_size + COUNTER_AREA + r->area * r->nqp, remote,
		     "the window"))
		return -1;
	r->scratch = malloc(o->max_size);
	r->source = malloc((size_t)o->max_size * o->peers);
	if (!r->scratch || !r->source) {
		fail("out of memory for %u bytes of scratch", o->max_size);
		return -1;
	}
	rd_fill(r->win, o->max_size, rc_source_key(o->seed, o->index));
	*shared_counter(r) = rc_shared_init(o->seed, o->index);
	r->shared_final = *shared_counter(r);
	return 0;
}

static int modify(struct rcqp *c, struct ibv_qp_attr *a, int mask,
		  const char *to)
{
	int ret = ibv_modify_qp(c->qp, a, mask);

	if (ret) {
		fail("ibv_modify_qp(QP %u to participant %u, q %u, to %s): %s",
		     c->qp->qp_num, c->peer, c->q, to, verr(ret));
		return -1;
	}
	return 0;
}

/*
 * Receive @slot of QP @c, or (@c NULL) of the SRQ, whose place is after
 * every QP's: its wr_id and its buffer.
 */
static uint64_t recv_wr_id(const struct run *r, const struct rcqp *c,
			   uint32_t slot)
{
	uint64_t idx = c ? (uint64_t)(c - r->qp) : r->nqp;

	return RECV_TAG | idx << RECV_IDX_SHIFT | slot;
}

static uint8_t *recv_buf(const struct run *r, const struct rcqp *c,
			 uint32_t slot)
{
	if (c)
		return c->rbuf + r->rstride * slot;
	return r->rmem + r->rstride * ((size_t)r->o.recv_depth * r->nqp +
				       slot);
}

static int post_recv(struct run *r, struct rcqp *c, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)recv_buf(r, c, slot),
		.length = r->o.max_size,
		.lkey = r->rmr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = recv_wr_id(r, c, slot),
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;
	int ret = c ? ibv_post_recv(c->qp, &wr, &bad) :
		      ibv_post_srq_recv(r->srq, &wr, &bad);

	if (ret) {
		if (c)
			fail("ibv_post_recv(QP %u, receive %u): %s",
			     c->qp->qp_num, slot, verr(ret));
		else
			fail("ibv_post_srq_recv(receive %u of %u): %s", slot,
			     r->srq_depth, verr(ret));
		return -1;
	}
	return 0;
}

/* An RC QP to @peer, taken to INIT, its receives posted. */
static int make_qp(struct run *r, struct rcqp *c)
{
	const struct opts *o = &r->o;
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC,
		.send_cq = r->scq,
		.recv_cq = r->rcq,
		.cap = {
			.max_send_wr = o->window,
			.max_recv_wr = o->recv_depth,
			.max_send_sge = RC_MAX_SGE,
			.max_recv_sge = 1,
			.max_inline_data = INLINE_WANTED,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = r->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_WRITE |
				  IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ |
				  IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = RD_IB_PORT,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   IBV_ACCESS_REMOTE_ATOMIC,
	};
	uint32_t i;

	if (c->on_srq) {
		ia.srq = r->srq;
		ia.cap.max_recv_wr = 0;
		ia.cap.max_recv_sge = 0;
	}
	c->qp = ibv_create_qp_ex(r->dv.ctx, &ia);
	if (!c->qp) {
		fail("ibv_create_qp_ex(RC to participant %u, q %u, %u sends of "
		     "%u SGEs, %u receives, %u inline): %s", c->peer, c->q,
		     o->window, RC_MAX_SGE, o->recv_depth, INLINE_WANTED,
		     strerror(errno));
		return -1;
	}
	c->qpx = ibv_qp_to_qp_ex(c->qp);
	if (!c->qpx) {
		fail("ibv_qp_to_qp_ex: the RC QP has no work request API");
		return -1;
	}
	if (modify(c, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_ACCESS_FLAGS, "INIT"))
		return -1;
	for (i = 0; i < o->recv_depth && !c->on_srq; i++)
		if (post_recv(r, c, i))
			return -1;
	return 0;
}

/* --srq: recv-depth receives for every odd QP, posted. */
static int make_srq(struct run *r)
{
	struct ibv_srq_init_attr sa = {
		.attr = {
			.max_wr = r->srq_depth,
			.max_sge = 1,
		},
	};
	uint32_t i;

	if (!r->srq_depth)
		return 0;
	r->srq = ibv_create_srq(r->pd, &sa);
	if (!r->srq) {
		fail("ibv_create_srq(%u receives): %s", r->srq_depth,
		     strerror(errno));
		return -1;
	}
	for (i = 0; i < r->srq_depth; i++)
		if (post_recv(r, NULL, i))
			return -1;
	return 0;
}

static int setup_verbs(struct run *r)
{
	const struct opts *o = &r->o;
	unsigned int p, q;
	int ncq;

	if (rd_dev_open(&r->dv, o->device, o->gid_index) || check_device(r))
		return -1;
	r->pd = ibv_alloc_pd(r->dv.ctx);
	if (!r->pd) {
		fail("ibv_alloc_pd: %s", strerror(errno));
		return -1;
	}
	ncq = (int)((o->peers - 1) * o->qps * o->window);
	r->scq = ibv_create_cq(r->dv.ctx, ncq, NULL, NULL, 0);
	if (!r->scq) {
		fail("ibv_create_cq(send, %d entries): %s", ncq,
		     strerror(errno));
		return -1;
	}
	ncq = (int)((o->peers - 1) * o->qps * o->recv_depth);
	r->rcq = ibv_create_cq(r->dv.ctx, ncq, NULL, NULL, 0);
	if (!r->rcq) {
		fail("ibv_create_cq(receive, %d entries): %s", ncq,
		     strerror(errno));
		return -1;
	}
	if (o->srq)
		r->srq_depth = (o->peers - 1) * (o->qps / 2) * o->recv_depth;
	if (r->srq_depth > (uint32_t)r->dv.attr.max_srq_wr) {
		fail("--srq: %u receives, %s's SRQs take %d", r->srq_depth,
		     ibv_get_device_name(r->dv.dev), r->dv.attr.max_srq_wr);
		return -1;
	}
	if (alloc_memory(r) || make_srq(r))
		return -1;
	for (p = 0; p < o->peers; p++) {
		for (q = 0; q < o->qps && p != o->index; q++) {
			struct rcqp *c = qp_of(r, p, q);
			size_t i = (size_t)(c - r->qp);

			c->peer = p;
			c->q = q;
			c->on_srq = r->srq && q % 2;
			c->lbuf = r->lmem + r->lstride * o->window * i;
			c->rbuf = r->rmem + r->rstride * o->recv_depth * i;
			c->counter = (uint64_t *)(r->win + area_off(r, p, q));
			*c->counter = rc_counter_init(o->seed, p, o->index, q);
			c->ring = calloc(o->window, sizeof(*c->ring));
			c->done = calloc(o->window, sizeof(*c->done));
			if (!c->ring || !c->done) {
				fail("out of memory for QP rings");
				return -1;
			}
			if (make_qp(r, c))
				return -1;
		}
	}
	return 0;
}

/* After the table: both streams of every QP, then RTR and RTS. */
static int connect_qps(struct run *r)
{
	const struct opts *o = &r->o;
	struct ibv_qp_attr a;
	unsigned int i;

	for (i = 0; i < r->nqp; i++) {
		struct rcqp *c = &r->qp[i];
		const struct rd_peer *t;
		struct rc_totals tot;

		if (!c->qp)
			continue;
		t = &r->table[c->peer];
		c->rqpn = t->qpns[o->index * o->qps + c->q];
		c->remote = t->win_addr + area_off(r, o->index, c->q);
		rc_stream_init(&c->tx, &r->cfg, o->index, c->peer, c->q);
		rc_stream_init(&c->rx, &r->cfg, c->peer, o->index, c->q);
		rc_totals(&r->cfg, c->peer, o->index, c->q, &tot);
		c->arrivals = tot.consumed;
		c->counter_final = tot.counter;
		r->shared_final += tot.shared;
		r->arrivals_expected += tot.consumed;
		r->ops_expected += o->ops;

		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTR;
		a.path_mtu = r->dv.port.active_mtu;
		a.dest_qp_num = c->rqpn;
		a.rq_psn = rc_psn(o->seed, c->peer, o->index, c->q);
		a.max_dest_rd_atomic = r->rd_atomic;
		a.min_rnr_timer = 1;
		a.ah_attr.is_global = 1;
		a.ah_attr.port_num = RD_IB_PORT;
		a.ah_attr.grh.sgid_index = (uint8_t)o->gid_index;
		a.ah_attr.grh.hop_limit = 64;
		memcpy(a.ah_attr.grh.dgid.raw, t->gid, sizeof(t->gid));
		if (modify(c, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			   IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER,
			   "RTR"))
			return -1;
		memset(&a, 0, sizeof(a));
		a.qp_state = IBV_QPS_RTS;
		a.timeout = 14;
		a.retry_cnt = 7;
		/* "Receiver not ready" is no error here: retry forever. */
		a.rnr_retry = 7;
		a.sq_psn = rc_psn(o->seed, o->index, c->peer, c->q);
		a.max_rd_atomic = r->rd_atomic;
		if (modify(c, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			   IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			   IBV_QP_MAX_QP_RD_ATOMIC, "RTS"))
			return -1;
	}
	for (i = 0; i < o->peers; i++)
		if (i != o->index)
			rd_fill(r->source + (size_t)o->max_size * i,
				o->max_size, rc_source_key(o->seed, i));
	return 0;
}

/* ------------------------------------------------------------------ */
/* Posting                                                              */
/* ------------------------------------------------------------------ */

/* @op's local SGEs in @buf, SGE_GAP apart; their count. */
static uint32_t op_sges(struct run *r, const struct rc_op *op, uint8_t *buf,
			struct ibv_sge *sge)
{
	uint32_t i, off = 0, piece;

	for (i = 0; i < op->nsge; i++) {
		piece = i + 1 < op->nsge ? op->len / op->nsge :
					   op->len - off;
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)(buf + off + i * SGE_GAP),
			.length = piece,
			.lkey = r->lmr->lkey,
		};
		off += piece;
	}
	return op->nsge;
}

/* Scatter @src over @op's SGEs, or (@gather) the other way round. */
static void op_copy(const struct rc_op *op, const struct ibv_sge *sge,
		    uint8_t *flat, bool gather)
{
	uint32_t i, off = 0;

	for (i = 0; i < op->nsge; i++) {
		void *p = (void *)(uintptr_t)sge[i].addr;

		if (gather)
			memcpy(flat + off, p, sge[i].length);
		else
			memcpy(p, flat + off, sge[i].length);
		off += sge[i].length;
	}
}

/* Fill op's local buffer: what it sends, or poison where data lands. */
static void op_prepare(struct run *r, struct rcqp *c, const struct rc_op *op,
		       struct ibv_sge *sge)
{
	uint8_t *buf = c->lbuf + r->lstride * (op->j % r->o.window);

	op_sges(r, op, buf, sge);
	switch (op->type) {
	case RC_SEND:
	case RC_SEND_IMM:
	case RC_SEND_INLINE:
		rc_fill_send(r->scratch, op, r->o.index, c->q);
		op_copy(op, sge, r->scratch, false);
		break;
	case RC_WRITE:
	case RC_WRITE_IMM:
		rd_fill(r->scratch, op->len, op->key);
		op_copy(op, sge, r->scratch, false);
		break;
	default:
		/* What does not come back must not look as if it had. */
		memset(buf, POISON, op->len + RC_MAX_SGE * SGE_GAP);
	}
}

static uint64_t op_raddr(const struct run *r, const struct rcqp *c,
			 const struct rc_op *op)
{
	switch (op->type) {
	case RC_WRITE:
	case RC_WRITE_IMM:
	case RC_READBACK:
		return c->remote + COUNTER_AREA + r->wstride * op->slot;
	case RC_READ:
		return r->table[c->peer].win_addr + op->offset;
	case RC_FADD_SHARED:
		return r->table[c->peer].win_addr + r->src_size;
	default:
		return c->remote;	/* the counter */
	}
}

static void build_wr(struct run *r, struct rcqp *c, const struct rc_op *op,
		     struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	uint32_t rkey = r->table[c->peer].win_rkey;
	uint64_t raddr = op_raddr(r, c, op);

	*wr = (struct ibv_send_wr){
		.wr_id = (uint64_t)(c - r->qp) << 32 | op->j,
		.sg_list = sge,
		.num_sge = (int)op->nsge,
		.send_flags = IBV_SEND_SIGNALED,
	};
	switch (op->type) {
	case RC_SEND_INLINE:
		wr->send_flags |= IBV_SEND_INLINE;
		/* fall through */
	case RC_SEND:
		wr->opcode = IBV_WR_SEND;
		break;
	case RC_SEND_IMM:
		wr->opcode = IBV_WR_SEND_WITH_IMM;
		wr->imm_data = htonl(op->imm);
		break;
	case RC_WRITE:
		wr->opcode = IBV_WR_RDMA_WRITE;
		break;
	case RC_WRITE_IMM:
		wr->opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr->imm_data = htonl(op->imm);
		break;
	case RC_READ:
	case RC_READBACK:
		wr->opcode = IBV_WR_RDMA_READ;
		break;
	case RC_FADD:
	case RC_FADD_SHARED:
		wr->opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
		wr->wr.atomic.compare_add = op->arg;
		break;
	case RC_CSWAP:
		wr->opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
		wr->wr.atomic.compare_add = op->compare;
		wr->wr.atomic.swap = op->arg;
		break;
	case RC_NTYPES:
		break;
	}
	if (rc_is_atomic(op->type)) {
		wr->wr.atomic.remote_addr = raddr;
		wr->wr.atomic.rkey = rkey;
	} else {
		wr->wr.rdma.remote_addr = raddr;
		wr->wr.rdma.rkey = rkey;
	}
}

/* The same operation through the ibv_wr_* API, within start/complete. */
static void build_wrx(struct run *r, struct rcqp *c, const struct rc_op *op,
		      const struct ibv_sge *sge)
{
	struct ibv_qp_ex *x = c->qpx;
	uint32_t rkey = r->table[c->peer].win_rkey;
	uint64_t raddr = op_raddr(r, c, op);
	struct ibv_data_buf data[RC_MAX_SGE];
	uint32_t i;

	x->wr_id = (uint64_t)(c - r->qp) << 32 | op->j;
	x->wr_flags = IBV_SEND_SIGNALED;
	switch (op->type) {
	case RC_SEND:
	case RC_SEND_INLINE:
		ibv_wr_send(x);
		break;
	case RC_SEND_IMM:
		ibv_wr_send_imm(x, htonl(op->imm));
		break;
	case RC_WRITE:
		ibv_wr_rdma_write(x, rkey, raddr);
		break;
	case RC_WRITE_IMM:
		ibv_wr_rdma_write_imm(x, rkey, raddr, htonl(op->imm));
		break;
	case RC_READ:
	case RC_READBACK:
		ibv_wr_rdma_read(x, rkey, raddr);
		break;
	case RC_FADD:
	case RC_FADD_SHARED:
		ibv_wr_atomic_fetch_add(x, rkey, raddr, op->arg);
		break;
	case RC_CSWAP:
		ibv_wr_atomic_cmp_swp(x, rkey, raddr, op->compare, op->arg);
		break;
	case RC_NTYPES:
		break;
	}
	if (op->type != RC_SEND_INLINE) {
		ibv_wr_set_sge_list(x, op->nsge, sge);
		return;
	}
	for (i = 0; i < op->nsge; i++)
		data[i] = (struct ibv_data_buf){
			.addr = (void *)(uintptr_t)sge[i].addr,
			.length = sge[i].length,
		};
	ibv_wr_set_inline_data_list(x, op->nsge, data);
}

/* Hand the operations built so far to the device, one call. */
static int flush_batch(struct rcqp *c, bool api, struct ibv_send_wr *wr,
		       unsigned int n)
{
	struct ibv_send_wr *bad = NULL;
	int ret;

	if (!n)
		return 0;
	if (api) {
		ret = ibv_wr_complete(c->qpx);
		if (ret) {
			fail("ibv_wr_complete(QP %u, %u operations): %s",
			     c->qp->qp_num, n, verr(ret));
			return -1;
		}
		return 0;
	}
	ret = ibv_post_send(c->qp, wr, &bad);
	if (ret) {
		fail("ibv_post_send(QP %u, %u operations, failing at op %u): "
		     "%s", c->qp->qp_num, n,
		     bad ? (uint32_t)bad->wr_id : 0, verr(ret));
		return -1;
	}
	return 0;
}

/*
 * Post what QP @c's window allows, in runs of the same API: a run
 * through ibv_post_send is one chain, one through ibv_wr_* one
 * start/complete.
 */
static int post_qp(struct run *r, struct rcqp *c)
{
	const uint32_t w = r->o.window;
	struct ibv_send_wr wr[w];
	struct ibv_sge sge[w][RC_MAX_SGE];
	unsigned int n = 0, posted = 0;
	bool api = false;

	while (c->posted - c->completed < w) {
		struct rc_op *op = &c->ring[c->posted % w];
		struct ibv_sge *s = sge[n];

		if (!rc_next(&c->tx, op))
			break;
		if (n && op->wr_api != api) {
			if (flush_batch(c, api, wr, n))
				return -1;
			n = 0;
			s = sge[0];
		}
		api = op->wr_api;
		op_prepare(r, c, op, s);
		if (api) {
			if (!n)
				ibv_wr_start(c->qpx);
			build_wrx(r, c, op, s);
			r->wr_api++;
		} else {
			build_wr(r, c, op, &wr[n], s);
			if (n)
				wr[n - 1].next = &wr[n];
			r->post_send++;
		}
		n++;
		c->posted++;
		posted++;
	}
	if (flush_batch(c, api, wr, n))
		return -1;
	return (int)posted;
}

static int post_all(struct run *r)
{
	unsigned int i;
	int n, total = 0;

	for (i = 0; i < r->nqp; i++) {
		if (!r->qp[i].qp)
			continue;
		n = post_qp(r, &r->qp[i]);
		if (n < 0)
			return -1;
		total += n;
	}
	return total;
}

/* ------------------------------------------------------------------ */
/* Completions                                                          */
/* ------------------------------------------------------------------ */

static enum ibv_wc_opcode wc_opcode(enum rc_op_type t)
{
	switch (t) {
	case RC_WRITE:
	case RC_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case RC_READ:
	case RC_READBACK:
		return IBV_WC_RDMA_READ;
	case RC_FADD:
	case RC_FADD_SHARED:
		return IBV_WC_FETCH_ADD;
	case RC_CSWAP:
		return IBV_WC_COMP_SWAP;
	default:
		return IBV_WC_SEND;
	}
}

static void describe(const struct rcqp *c, const struct rc_op *op,
		     char *buf, size_t len)
{
	snprintf(buf, len, "QP %u (participant %u, q %u) op %u, %s of %u "
		 "bytes in %u SGEs via %s", c->qp->qp_num, c->peer, c->q,
		 op->j, rc_op_name[op->type], op->len, op->nsge,
		 op->wr_api ? "ibv_wr_*" : "ibv_post_send");
}

/* What came back from a READ or an atomic. */
static void check_result(struct run *r, struct rcqp *c,
			 const struct rc_op *op)
{
	uint8_t *buf = c->lbuf + r->lstride * (op->j % r->o.window);
	struct ibv_sge sge[RC_MAX_SGE];
	struct rd_mismatch m;
	char what[160];
	uint64_t got;
	uint32_t i;

	op_sges(r, op, buf, sge);
	describe(c, op, what, sizeof(what));
	switch (op->type) {
	case RC_READBACK:
		op_copy(op, sge, r->scratch, true);
		if (rd_check(r->scratch, op->len, op->key, &m))
			data_error(&r->logged, &r->corrupt, "CORRUPT: %s: "
				   "slot %u read back 0x%02x at byte %u, "
				   "written 0x%02x", what, op->slot, m.got,
				   m.offset, m.want);
		break;
	case RC_READ:
		op_copy(op, sge, r->scratch, true);
		for (i = 0; i < op->len; i++) {
			uint8_t want = r->source[(size_t)r->o.max_size *
						 c->peer + op->offset + i];

			if (r->scratch[i] != want) {
				data_error(&r->logged, &r->corrupt,
					   "CORRUPT: %s at offset %u: 0x%02x "
					   "at byte %u, not 0x%02x", what,
					   op->offset, r->scratch[i], i, want);
				break;
			}
		}
		break;
	case RC_FADD:
	case RC_CSWAP:
		memcpy(&got, buf, 8);
		if (got != op->old)
			data_error(&r->logged, &r->corrupt, "CORRUPT: %s "
				   "found 0x%016" PRIx64 ", not 0x%016" PRIx64
				   " (an atomic lost, repeated or out of "
				   "order)", what, got, op->old);
		r->swapped += op->type == RC_CSWAP && op->swaps;
		break;
	default:
		break;
	}
}

static int send_done(struct run *r, const struct ibv_wc *wc)
{
	uint64_t idx = wc->wr_id >> 32;
	uint32_t j = (uint32_t)wc->wr_id;
	struct rcqp *c;
	struct rc_op *op;
	char what[160];

	if (idx >= r->nqp || !r->qp[idx].qp) {
		data_error(&r->logged, &r->corrupt, "CORRUPT: a send "
			   "completion of no operation (wr_id 0x%" PRIx64 ")",
			   wc->wr_id);
		return 0;
	}
	c = &r->qp[idx];
	if (j < c->completed || j >= c->posted || c->done[j % r->o.window]) {
		data_error(&r->logged, &r->duplicates, "DUPLICATE: QP %u "
			   "(participant %u, q %u): a completion of op %u, "
			   "outstanding are %u to %u, not all", c->qp->qp_num,
			   c->peer, c->q, j, c->completed, c->posted - 1);
		return 0;
	}
	op = &c->ring[j % r->o.window];
	describe(c, op, what, sizeof(what));
	if (wc->status != IBV_WC_SUCCESS) {
		fail("%s completed with %s (vendor error 0x%x)", what,
		     ibv_wc_status_str(wc->status), wc->vendor_err);
		return -1;
	}
	if (j != c->completed)
		data_error(&r->logged, &r->out_of_order, "OUT OF ORDER: %s "
			   "completed before op %u", what, c->completed);
	if (wc->opcode != wc_opcode(op->type))
		data_error(&r->logged, &r->corrupt, "CORRUPT: %s completed "
			   "as opcode %d", what, wc->opcode);
	check_result(r, c, op);
	/* Out of order, the window moves once those before it are done. */
	c->done[j % r->o.window] = true;
	while (c->completed < c->posted &&
	       c->done[c->completed % r->o.window]) {
		c->done[c->completed % r->o.window] = false;
		c->completed++;
	}
	r->ops_done++;
	r->count[op->type]++;
	r->bytes += op->len;
	return 0;
}

/* An arrival that is not @op: a repeat, one from later, or garbage. */
static void wrong_arrival(struct run *r, const struct rcqp *c,
			  const struct rc_op *op, uint32_t got_j,
			  const char *what)
{
	if (got_j < op->j)
		data_error(&r->logged, &r->duplicates, "DUPLICATE: QP %u "
			   "(participant %u, q %u): op %u again, op %u (%s) "
			   "expected", c->qp->qp_num, c->peer, c->q, got_j,
			   op->j, rc_op_name[op->type]);
	else if (got_j != ~0U && got_j > op->j)
		data_error(&r->logged, &r->out_of_order, "OUT OF ORDER: QP %u "
			   "(participant %u, q %u): op %u arrived, op %u (%s) "
			   "expected", c->qp->qp_num, c->peer, c->q, got_j,
			   op->j, rc_op_name[op->type]);
	else
		data_error(&r->logged, &r->corrupt, "CORRUPT: QP %u "
			   "(participant %u, q %u) op %u (%s of %u bytes): %s",
			   c->qp->qp_num, c->peer, c->q, op->j,
			   rc_op_name[op->type], op->len, what);
}

/* The j an immediate names, if it names this QP. */
static uint32_t imm_j(const struct rcqp *c, uint32_t imm)
{
	return imm >> 24 == c->q ? (imm & 0xffffffU) : ~0U;
}

static void check_arrival(struct run *r, struct rcqp *c,
			  const struct ibv_wc *wc, const uint8_t *buf)
{
	bool imm = wc->wc_flags & IBV_WC_WITH_IMM, has_imm;
	enum ibv_wc_opcode want_opcode;
	struct rd_mismatch m;
	struct rc_op op;
	char what[128];
	uint32_t got_j;

	do {
		if (!rc_next(&c->rx, &op)) {
			data_error(&r->logged, &r->duplicates, "DUPLICATE: QP "
				   "%u (participant %u, q %u): an arrival "
				   "after all %u (%u bytes%s)", c->qp->qp_num,
				   c->peer, c->q, c->arrivals, wc->byte_len,
				   imm ? ", with immediate" : "");
			return;
		}
	} while (!rc_consumes(op.type));
	c->arrived++;
	r->arrivals++;
	/* 0 is an immediate like any other (QP 0's first op). */
	has_imm = op.type == RC_SEND_IMM || op.type == RC_WRITE_IMM;
	want_opcode = op.type == RC_WRITE_IMM ? IBV_WC_RECV_RDMA_WITH_IMM :
						IBV_WC_RECV;
	if (has_imm && (!imm || ntohl(wc->imm_data) != op.imm)) {
		snprintf(what, sizeof(what), "immediate %s0x%08x",
			 imm ? "" : "(none) ", imm ? ntohl(wc->imm_data) : 0);
		wrong_arrival(r, c, &op, imm ? imm_j(c, ntohl(wc->imm_data)) :
				       ~0U, what);
		return;
	}
	if (!has_imm && imm) {
		snprintf(what, sizeof(what), "an immediate 0x%08x",
			 ntohl(wc->imm_data));
		wrong_arrival(r, c, &op, imm_j(c, ntohl(wc->imm_data)), what);
		return;
	}
	if (wc->opcode != want_opcode) {
		snprintf(what, sizeof(what), "opcode %d", wc->opcode);
		wrong_arrival(r, c, &op, ~0U, what);
		return;
	}
	if (op.type == RC_WRITE_IMM) {
		/* Its bytes the writer reads back; here, its length. */
		if (wc->byte_len != op.len) {
			snprintf(what, sizeof(what), "byte_len %u",
				 wc->byte_len);
			wrong_arrival(r, c, &op, ~0U, what);
		}
		return;
	}
	if (rc_check_send(buf, wc->byte_len, &op, c->peer, c->q, &got_j,
			  &m)) {
		if (got_j == op.j && wc->byte_len == op.len)
			snprintf(what, sizeof(what), "0x%02x at byte %u, not "
				 "0x%02x", m.got, m.offset, m.want);
		else
			snprintf(what, sizeof(what), "%u bytes, %s %u",
				 wc->byte_len, got_j == ~0U ?
				 "no header for op" : "header of op",
				 got_j == ~0U ? op.j : got_j);
		wrong_arrival(r, c, &op, got_j, what);
		return;
	}
	r->bytes += op.len;
}

static struct rcqp *qp_by_num(struct run *r, uint32_t qpn)
{
	unsigned int i;

	for (i = 0; i < r->nqp; i++)
		if (r->qp[i].qp && r->qp[i].qp->qp_num == qpn)
			return &r->qp[i];
	return NULL;
}

/*
 * A receive completion that names no receive of ours: the verbs have
 * every RC arrival that completes, WRITE_WITH_IMM included, consume one.
 */
static int recv_of_none(struct run *r, const struct ibv_wc *wc)
{
	if (wc->status != IBV_WC_SUCCESS) {
		fail("a receive completion of no receive (wr_id 0x%" PRIx64
		     ", QP %u) with %s", wc->wr_id, wc->qp_num,
		     ibv_wc_status_str(wc->status));
		return -1;
	}
	data_error(&r->logged, &r->corrupt, "CORRUPT: a receive completion of "
		   "no receive (wr_id 0x%" PRIx64 ", QP %u, opcode %d)",
		   wc->wr_id, wc->qp_num, wc->opcode);
	return 0;
}

/*
 * --srq: a receive of the SRQ, which any odd QP may have taken (its
 * number says which); receives of different QPs complete in their own
 * streams' order, so the SRQ's posting order is not checked.
 */
static int srq_recv_done(struct run *r, const struct ibv_wc *wc,
			 uint32_t slot)
{
	struct rcqp *c = qp_by_num(r, wc->qp_num);

	if (wc->status != IBV_WC_SUCCESS) {
		fail("SRQ receive %u (QP %u) completed with %s (vendor error "
		     "0x%x)", slot, wc->qp_num, ibv_wc_status_str(wc->status),
		     wc->vendor_err);
		return -1;
	}
	if (!c || !c->on_srq) {
		data_error(&r->logged, &r->corrupt, "CORRUPT: SRQ receive %u "
			   "completed for QP %u, not one on the SRQ", slot,
			   wc->qp_num);
		return post_recv(r, NULL, slot);
	}
	r->srq_arrivals++;
	check_arrival(r, c, wc, recv_buf(r, NULL, slot));
	return post_recv(r, NULL, slot);
}

static int recv_done(struct run *r, const struct ibv_wc *wc)
{
	uint64_t idx = (wc->wr_id & ~RECV_TAG) >> RECV_IDX_SHIFT;
	uint32_t slot = (uint32_t)wc->wr_id;
	struct rcqp *c;

	if (!(wc->wr_id & RECV_TAG))
		return recv_of_none(r, wc);
	if (idx == r->nqp && r->srq && slot < r->srq_depth)
		return srq_recv_done(r, wc, slot);
	if (idx >= r->nqp || !r->qp[idx].qp || r->qp[idx].on_srq ||
	    slot >= r->o.recv_depth) {
		data_error(&r->logged, &r->corrupt, "CORRUPT: a receive "
			   "completion of no receive (wr_id 0x%" PRIx64 ")",
			   wc->wr_id);
		return 0;
	}
	c = &r->qp[idx];
	if (wc->status != IBV_WC_SUCCESS) {
		fail("QP %u (participant %u, q %u): receive %u completed with "
		     "%s (vendor error 0x%x)", c->qp->qp_num, c->peer, c->q,
		     slot, ibv_wc_status_str(wc->status), wc->vendor_err);
		return -1;
	}
	if (wc->qp_num != c->qp->qp_num)
		data_error(&r->logged, &r->corrupt, "CORRUPT: receive %u of QP "
			   "%u completed for QP %u", slot, c->qp->qp_num,
			   wc->qp_num);
	/* RC receives complete in the order they were posted. */
	if (slot != c->recv_next % r->o.recv_depth)
		data_error(&r->logged, &r->out_of_order, "OUT OF ORDER: QP %u "
			   "(participant %u, q %u): receive %u completed, "
			   "%u was first", c->qp->qp_num, c->peer, c->q, slot,
			   c->recv_next % r->o.recv_depth);
	c->recv_next++;
	check_arrival(r, c, wc, recv_buf(r, c, slot));
	return post_recv(r, c, slot);
}

/* Drain @cq through @done, POLL_BATCH at a time: how many, or -1. */
static int poll(struct run *r, struct ibv_cq *cq, const char *what,
		int (*done)(struct run *r, const struct ibv_wc *wc))
{
	struct ibv_wc wc[POLL_BATCH];
	int n, i, total = 0;

	do {
		n = ibv_poll_cq(cq, POLL_BATCH, wc);
		if (n < 0) {
			fail("ibv_poll_cq(%s): %s", what, verr(n));
			return -1;
		}
		for (i = 0; i < n; i++)
			if (done(r, &wc[i]))
				return -1;
		total += n;
	} while (n == POLL_BATCH);
	return total;
}

static int poll_sends(struct run *r)
{
	return poll(r, r->scq, "send", send_done);
}

static int poll_recvs(struct run *r)
{
	return poll(r, r->rcq, "receive", recv_done);
}

/* ------------------------------------------------------------------ */
/* The run                                                              */
/* ------------------------------------------------------------------ */

static uint64_t errors_so_far(const struct run *r)
{
	return r->duplicates + r->out_of_order + r->corrupt;
}

static bool locally_done(const struct run *r)
{
	return r->ops_done == r->ops_expected &&
	       r->arrivals >= r->arrivals_expected;
}

static void report_missing(struct run *r)
{
	unsigned int i, shown = 0;
	char pending[256];

	for (i = 0; i < r->nqp; i++) {
		const struct rcqp *c = &r->qp[i];

		if (!c->qp || (c->completed == r->o.ops &&
			       c->arrived == c->arrivals))
			continue;
		if (shown++ < MISSING_SHOWN)
			note("QP %u (participant %u, q %u): %u of %u "
			     "operations complete (%u posted), %u of %u "
			     "arrivals", c->qp->qp_num, c->peer, c->q,
			     c->completed, r->o.ops, c->posted, c->arrived,
			     c->arrivals);
	}
	if (shown > MISSING_SHOWN)
		note("and %u QPs more", shown - MISSING_SHOWN);
	if (r->o.index == 0) {
		ctl_pending(&r->ctl, pending, sizeof(pending));
		note("the hub waits for participants %s to be done", pending);
	}
}

static void progress(struct run *r, uint64_t now)
{
	note("%.0f s: operations %" PRIu64 "/%" PRIu64 " arrivals %" PRIu64
	     "/%" PRIu64 " errors %" PRIu64, secs(now - r->t_data),
	     r->ops_done, r->ops_expected, r->arrivals, r->arrivals_expected,
	     errors_so_far(r));
}

/*
 * A completion failed.  If another participant failed first, its QPs
 * may be gone, and that is the story: give the hub a second to say so.
 */
static void op_failed(struct run *r)
{
	uint64_t until = rd_now() + NS;
	enum ctl_state st = CTL_RUNNING;
	char mine[sizeof(rd_failure)];

	memcpy(mine, rd_failure, sizeof(mine));
	while (st == CTL_RUNNING && rd_now() < until)
		st = ctl_poll(&r->ctl, 100);
	if (st == CTL_ABORTED) {
		snprintf(rd_failure, sizeof(rd_failure), "%.200s (then here: "
			 "%.200s)", r->ctl.why, mine);
		note("%s", rd_failure);
	}
}

static int run_loop(struct run *r)
{
	uint64_t now, last_ctl = 0, next_progress = rd_now() + PROGRESS_NS;
	unsigned int idle = 0;
	int i;

	for (;;) {
		enum ctl_state st;
		int a, b, c;

		a = poll_recvs(r);
		b = a < 0 ? 0 : poll_sends(r);
		if (a < 0 || b < 0) {
			op_failed(r);
			return -1;
		}
		c = post_all(r);
		if (c < 0)
			return -1;
		idle = a + b + c ? 0 : idle + 1;
		now = rd_now();

		if (!r->done_reported && locally_done(r)) {
			struct rd_report rep = {
				.sent = (uint32_t)r->ops_done,
				.received = (uint32_t)r->arrivals,
				.errors = (uint32_t)errors_so_far(r),
			};

			r->t_end = now;
			r->done_reported = true;
			r->ctl.deadline = r->deadline + DONE_GRACE_NS;
			note("done: all operations complete, all arrivals in, "
			     "%" PRIu64 " errors; waiting for the others",
			     errors_so_far(r));
			if (ctl_done(&r->ctl, &rep, NULL, 0)) {
				fail("%s", r->ctl.why);
				return -1;
			}
			last_ctl = 0;
		}
		if (idle > 64 || now - last_ctl >= CTL_EVERY_NS) {
			st = ctl_poll(&r->ctl, idle > 64 ? 1 : 0);
			last_ctl = rd_now();
			if (st == CTL_RELEASED)
				break;
			if (st == CTL_ABORTED) {
				fail("%s", r->ctl.why);
				return -1;
			}
		}
		if (now >= next_progress) {
			progress(r, now);
			next_progress = now + PROGRESS_NS;
		}
		if (rd_signal) {
			fail("interrupted by signal %d", (int)rd_signal);
			report_missing(r);
			return -1;
		}
		if (now >= r->deadline +
			   (r->done_reported ? DONE_GRACE_NS : 0)) {
			fail("timed out after %u s%s", r->o.timeout,
			     r->done_reported ? " (and 10 s more, done, waiting "
			     "for the release)" : "");
			report_missing(r);
			return -1;
		}
	}
	r->released = true;
	/* A repeated arrival may still be on its way: a last look. */
	for (i = 0; i < 100; i++) {
		int n = poll_recvs(r);

		if (n < 0)
			return -1;
		if (!n)
			usleep(1000);
	}
	return 0;
}

/*
 * Everybody is done, so every atomic on our counters has executed: each
 * QP's must hold what its stream's draws add up to, the shared one what
 * every stream's shared FETCH_AND_ADDs add up to.
 */
static void check_counters(struct run *r)
{
	unsigned int i;

	for (i = 0; i < r->nqp; i++) {
		const struct rcqp *c = &r->qp[i];

		if (!c->qp)
			continue;
		if (*c->counter != c->counter_final)
			data_error(&r->logged, &r->corrupt, "CORRUPT: the "
				   "counter of participant %u's QP q %u holds "
				   "0x%016" PRIx64 ", not 0x%016" PRIx64,
				   c->peer, c->q, *c->counter,
				   c->counter_final);
		r->counters_checked++;
	}
	if (*shared_counter(r) != r->shared_final)
		data_error(&r->logged, &r->corrupt, "CORRUPT: the shared "
			   "counter holds 0x%016" PRIx64 ", not 0x%016" PRIx64
			   " (an addend lost or repeated among the QPs)",
			   *shared_counter(r), r->shared_final);
	r->counters_checked++;
}

/* ------------------------------------------------------------------ */
/* Meeting, tearing down                                                */
/* ------------------------------------------------------------------ */

static uint64_t digest(const struct run *r)
{
	uint64_t h = rd_gen_digest(r->o.seed, r->o.max_size);
	struct rc_totals t;

	rc_totals(&r->cfg, 0, 1, 0, &t);
	h = rd_mix64(h ^ t.counter);
	return rd_mix64(h ^ t.consumed);
}

static int meet(struct run *r)
{
	const struct opts *o = &r->o;
	struct rd_hello me;
	struct ctl barrier;
	uint32_t *qpns;
	unsigned int i;
	int ret = -1;

	r->table = calloc(o->peers, sizeof(*r->table));
	qpns = r->qpns = calloc((size_t)o->peers * (o->peers + 1) * o->qps,
		      sizeof(*qpns));
	if (!r->table || !qpns) {
		fail("out of memory for the table");
		return -1;
	}
	for (i = 0; i < o->peers; i++)
		r->table[i].qpns = qpns + (size_t)(i + 1) * o->peers * o->qps;
	for (i = 0; i < r->nqp; i++)
		if (r->qp[i].qp)
			qpns[i] = r->qp[i].qp->qp_num;
	me = (struct rd_hello){
		.peers = o->peers,
		.index = o->index,
		.ipv4 = r->dv.ipv4,
		.messages = o->ops,
		.max_size = o->max_size,
		.flags = RD_HELLO_RC,
		.win_rkey = r->wmr->rkey,
		.win_addr = (uintptr_t)r->win,
		.seed = o->seed,
		.digest = digest(r),
		.qps = o->qps,
		.qp_window = o->window,
		.qpns = qpns,
	};
	memcpy(me.gid, r->dv.gid.raw, sizeof(me.gid));
	note("%u RC QPs to each of %u others, window 0x%" PRIx64 " rkey 0x%x;"
	     " %s", o->qps, o->peers - 1, me.win_addr, me.win_rkey,
	     o->index ? "joining the hub" : "the hub: waiting for the others");
	if (ctl_start(&r->ctl, &me, r->table)) {
		fail("%s", r->ctl.why);
		return -1;
	}
	if (connect_qps(r))
		return -1;
	/*
	 * A QP that is not in RTR yet refuses what comes: nobody posts
	 * before every QP is in RTS, which a second rendezvous tells.
	 */
	if (ctl_open(&barrier, o->peers, o->index, o->hub, o->port + 1,
		     CONNECT_S, r->deadline) ||
	    ctl_start(&barrier, &me, r->table))
		fail("the rendezvous after RTS: %s", barrier.why);
	else
		ret = 0;
	ctl_close(&barrier);
	return ret;
}

static void teardown(struct run *r)
{
	unsigned int i;
	int ret;

	for (i = 0; r->qp && i < r->nqp; i++) {
		if (r->qp[i].qp) {
			ret = ibv_destroy_qp(r->qp[i].qp);
			if (ret)
				fail("ibv_destroy_qp: %s", verr(ret));
		}
		free(r->qp[i].ring);
		free(r->qp[i].done);
	}
	if (r->srq && (ret = ibv_destroy_srq(r->srq)))
		fail("ibv_destroy_srq: %s", verr(ret));
	if (r->lmr && (ret = ibv_dereg_mr(r->lmr)))
		fail("ibv_dereg_mr(local buffers): %s", verr(ret));
	if (r->rmr && (ret = ibv_dereg_mr(r->rmr)))
		fail("ibv_dereg_mr(receive buffers): %s", verr(ret));
	if (r->wmr && (ret = ibv_dereg_mr(r->wmr)))
		fail("ibv_dereg_mr(window): %s", verr(ret));
	if (r->scq && (ret = ibv_destroy_cq(r->scq)))
		fail("ibv_destroy_cq(send): %s", verr(ret));
	if (r->rcq && (ret = ibv_destroy_cq(r->rcq)))
		fail("ibv_destroy_cq(receive): %s", verr(ret));
	if (r->pd && (ret = ibv_dealloc_pd(r->pd)))
		fail("ibv_dealloc_pd: %s", verr(ret));
	rd_dev_close(&r->dv);
	free(r->qpns);
	free(r->table);
	free(r->qp);
	free(r->lmem);
	free(r->rmem);
	free(r->win);
	free(r->scratch);
	free(r->source);
}

static void print_results(const struct run *r, double seconds)
{
	unsigned int t;

	printf("%s: index %u qps %u ops %" PRIu64 " messages %" PRIu64
	       " bytes %" PRIu64 " lost %" PRIu64 " duplicates %" PRIu64
	       " out_of_order %" PRIu64 " corrupt %" PRIu64 " in %.1f s\n",
	       RC_PROG, r->o.index, r->nqp - r->o.qps, r->ops_done,
	       r->arrivals, r->bytes, r->lost, r->duplicates, r->out_of_order,
	       r->corrupt, seconds);
	printf("%s: index %u atomics checked %" PRIu64 " swapped %" PRIu64
	       " shared %" PRIu64 " counters %" PRIu64 "; posted through "
	       "ibv_post_send %" PRIu64 ", ibv_wr_* %" PRIu64 "; "
	       "through the SRQ %" PRIu64 "\n",
	       RC_PROG, r->o.index, r->count[RC_FADD] + r->count[RC_CSWAP],
	       r->swapped, r->count[RC_FADD_SHARED], r->counters_checked,
	       r->post_send, r->wr_api, r->srq_arrivals);
	for (t = 0; t < RC_NTYPES; t++)
		printf("%s: index %u   %-20s %10" PRIu64 "\n", RC_PROG,
		       r->o.index, rc_op_name[t], r->count[t]);
	if (r->released)
		for (t = 0; t < r->o.peers; t++)
			printf("%s: index %u   participant %u: ops %u arrivals "
			       "%u errors %u\n", RC_PROG, r->o.index, t,
			       r->ctl.reports[t].sent,
			       r->ctl.reports[t].received,
			       r->ctl.reports[t].errors);
}

int main(int argc, char **argv)
{
	struct run run = { 0 }, *r = &run;
	double seconds = 0;
	unsigned int i;
	bool passed;

	if (parse_opts(argc, argv, &r->o))
		return 2;
	rd_index = r->o.index;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rd_signals();
	r->t_begin = rd_now();
	r->deadline = r->t_begin + (uint64_t)r->o.timeout * NS;
	r->nqp = r->o.peers * r->o.qps;
	r->cfg = (struct rc_cfg){
		.seed = r->o.seed,
		.max_size = r->o.max_size,
		.max_inline = r->o.max_size < INLINE_WANTED ? r->o.max_size :
			      INLINE_WANTED,
		/* A slot is written again only once its READ is done. */
		.nslots = r->o.window + 2,
		.ops = r->o.ops,
	};
	note("participant %u of %u, seed %" PRIu64 ", %u QPs to each other, "
	     "%u operations each way on each, max-size %u, window %u, "
	     "recv-depth %u", r->o.index, r->o.peers, r->o.seed, r->o.qps,
	     r->o.ops, r->o.max_size, r->o.window, r->o.recv_depth);

	r->ctl_opened = true;
	if (ctl_open(&r->ctl, r->o.peers, r->o.index, r->o.hub, r->o.port,
		     CONNECT_S, r->deadline)) {
		fail("%s", r->ctl.why);
		goto out;
	}
	r->qp = calloc(r->nqp, sizeof(*r->qp));
	if (!r->qp) {
		fail("out of memory for %u QPs", r->nqp);
		goto out;
	}
	if (setup_verbs(r) || meet(r))
		goto out;
	r->t_data = rd_now();
	r->data_phase = true;
	if (run_loop(r))
		goto out;
	check_counters(r);

out:
	if (rd_failure[0] && r->ctl_opened)
		ctl_fail(&r->ctl, rd_failure);
	if (r->data_phase) {
		if (!r->t_end)
			r->t_end = rd_now();
		seconds = secs(r->t_end - r->t_data);
		for (i = 0; i < r->nqp; i++)
			if (r->qp[i].qp)
				r->lost += (uint64_t)(r->o.ops -
						      r->qp[i].completed) +
					   (r->qp[i].arrivals -
					    r->qp[i].arrived);
		print_results(r, seconds);
	}
	/* After the release: nobody uses our QPs or window any more. */
	teardown(r);
	passed = !rd_failure[0] && r->released && !r->lost &&
		 !r->duplicates && !r->out_of_order && !r->corrupt;
	if (passed)
		printf("%s: index %u PASSED\n", RC_PROG, r->o.index);
	else if (rd_failure[0])
		printf("%s: index %u FAILED: %s\n", RC_PROG, r->o.index,
		       rd_failure);
	else
		printf("%s: index %u FAILED: %" PRIu64 " lost, %" PRIu64
		       " duplicates, %" PRIu64 " out of order, %" PRIu64
		       " corrupt\n", RC_PROG, r->o.index, r->lost,
		       r->duplicates, r->out_of_order, r->corrupt);
	if (r->ctl_opened)
		ctl_close(&r->ctl);
	return passed ? 0 : 1;
}
