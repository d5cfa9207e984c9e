// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * swap_bench: libswap against the obvious alternative, in the same run
 * between two participants (0 answers, 1 measures), on the same QP type:
 * plain SEND/receive into pre-posted buffers each as large as the
 * largest message, --depth of them, the sender waiting for the
 * receiver's word after each --depth messages so that it never finds no
 * receive posted (RD has no RNR retry).  For each size, the two in turn
 * --reps times: latency (half the round trip of a ping-pong) and message
 * rate (one way, the receiver releasing each as it comes), the RDMA
 * READs SWAP issued per message; then memory per partner.  Lines, one
 * per protocol and repetition (the caller takes medians):
 *
 *   swap_bench: T swap|sendrecv SIZE lat_us L rate_kmps R reads_per_msg X
 *   swap_bench: memory per partner swap M sendrecv N
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/wrendv.h>
#include <swap/swap.h>
#include "swap_tool.h"

const char *tool_prog = "swap_bench";

#define QKEY	0x11223344U

static struct {
	unsigned int index, iters, count, depth, reps;
	const char *hub, *device;
	uint16_t port;
	struct swap_ep_attr attr;
	uint64_t max_size;
} o = { .port = 18710, .iters = 200, .count = 2000, .depth = 32, .reps = 1,
	.max_size = 1 << 20 };

/* The plain SEND/receive side. */
struct plain {
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	struct ibv_ah *ah;
	struct ibv_mr *mr;
	uint8_t *mem;		/* depth receive buffers, then one to send */
	size_t stride;
	bool rd;
	uint32_t rqpn;
	unsigned int sends_out;	/* posted, completion not yet seen */
};

struct rec {
	uint8_t swap[SWAP_ADDR_LEN];
	uint32_t qpn, psn;
	uint8_t gid[16];
	uint16_t lid;
};

static void plain_post_recv(struct plain *pl, unsigned int i)
{
	struct ibv_sge sge = { (uintptr_t)(pl->mem + i * pl->stride),
			       (uint32_t)pl->stride, pl->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 },
			   *bad;

	if (ibv_post_recv(pl->qp, &wr, &bad))
		tool_die("ibv_post_recv");
}

static void plain_create(struct plain *pl, struct ibv_pd *pd, bool rd,
			 struct rec *me)
{
	struct ibv_qp_init_attr_ex ia = {
		.cap = { .max_send_wr = o.depth, .max_recv_wr = o.depth,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND,
	};
	struct wrendv_qp_init_attr da = {
		.driver_qp_type = WRENDV_QP_DRIVER_TYPE_RD,
	};
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	union ibv_gid gid;
	unsigned int i;

	pl->pd = pd;
	pl->rd = rd;
	pl->stride = o.max_size;
	pl->mem = aligned_alloc(4096, (o.depth + 1) * pl->stride);
	pl->cq = ibv_create_cq(pd->context, (int)(2 * o.depth + 2), NULL,
			       NULL, 0);
	if (!pl->mem || !pl->cq)
		tool_die("plain: buffers or CQ");
	pl->mr = ibv_reg_mr(pd, pl->mem, (o.depth + 1) * pl->stride,
			    IBV_ACCESS_LOCAL_WRITE);
	ia.send_cq = ia.recv_cq = pl->cq;
	if (rd) {
		ia.qp_type = IBV_QPT_DRIVER;
		pl->qp = wrendv_create_qp(pd->context, &ia, &da, sizeof(da));
	} else {
		ia.qp_type = IBV_QPT_RC;
		pl->qp = ibv_create_qp_ex(pd->context, &ia);
	}
	if (!pl->mr || !pl->qp || !(pl->qpx = ibv_qp_to_qp_ex(pl->qp)))
		tool_die("plain: QP: %s", strerror(errno));
	qa.qkey = QKEY;
	if (ibv_modify_qp(pl->qp, &qa, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | (rd ? IBV_QP_QKEY :
					 IBV_QP_ACCESS_FLAGS)))
		tool_die("plain: INIT");
	for (i = 0; i < o.depth; i++)
		plain_post_recv(pl, i);
	ibv_query_gid(pd->context, 1, o.attr.gid_index, &gid);
	memcpy(me->gid, gid.raw, 16);
	me->qpn = pl->qp->qp_num;
	me->psn = 0x1234;
}

static void plain_connect(struct plain *pl, const struct rec *r)
{
	struct ibv_ah_attr ah = { .is_global = 1, .port_num = 1,
				  .grh = { .sgid_index = o.attr.gid_index,
					   .hop_limit = 64 } };
	struct ibv_qp_attr qa;
	struct ibv_port_attr pa;

	memcpy(ah.grh.dgid.raw, r->gid, 16);
	pl->rqpn = r->qpn;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTR;
	if (pl->rd) {
		pl->ah = ibv_create_ah(pl->pd, &ah);
		if (!pl->ah || ibv_modify_qp(pl->qp, &qa, IBV_QP_STATE))
			tool_die("plain: RTR");
		qa.qp_state = IBV_QPS_RTS;
		if (ibv_modify_qp(pl->qp, &qa, IBV_QP_STATE | IBV_QP_SQ_PSN))
			tool_die("plain: RTS");
		return;
	}
	ibv_query_port(pl->pd->context, 1, &pa);
	qa.path_mtu = pa.active_mtu;
	qa.dest_qp_num = r->qpn;
	qa.rq_psn = r->psn;
	qa.min_rnr_timer = 12;
	qa.ah_attr = ah;
	if (ibv_modify_qp(pl->qp, &qa, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		tool_die("plain: RTR: %s", strerror(errno));
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IBV_QPS_RTS;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.sq_psn = 0x1234;
	if (ibv_modify_qp(pl->qp, &qa, IBV_QP_STATE | IBV_QP_TIMEOUT |
			  IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			  IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		tool_die("plain: RTS: %s", strerror(errno));
}

/*
 * Wait for a receive (@recv) or a send completion, reaping the other
 * kind as it comes; a receive's buffer is posted again at once.
 */
static void plain_wait(struct plain *pl, bool recv)
{
	struct ibv_wc wc;
	int n;

	for (;;) {
		n = ibv_poll_cq(pl->cq, 1, &wc);
		if (n < 0)
			tool_die("plain: poll");
		if (!n)
			continue;
		if (wc.status)
			tool_die("plain: completion %s",
				 ibv_wc_status_str(wc.status));
		if (wc.opcode & IBV_WC_RECV) {
			plain_post_recv(pl, (unsigned int)wc.wr_id);
			if (recv)
				return;
		} else {
			pl->sends_out--;
			if (!recv)
				return;
		}
	}
}

/* Post a SEND without waiting for it, as swap_send() does not either. */
static void plain_send(struct plain *pl, size_t len)
{
	while (pl->sends_out >= o.depth)
		plain_wait(pl, false);
	ibv_wr_start(pl->qpx);
	pl->qpx->wr_id = 1ULL << 40;
	pl->qpx->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(pl->qpx);
	if (pl->rd)
		ibv_wr_set_ud_addr(pl->qpx, pl->ah, pl->rqpn, QKEY);
	ibv_wr_set_sge(pl->qpx, pl->mr->lkey,
		       (uintptr_t)(pl->mem + o.depth * pl->stride),
		       (uint32_t)len);
	if (ibv_wr_complete(pl->qpx))
		tool_die("plain: post send");
	pl->sends_out++;
}

/* One protocol's figures at one size. */
struct result {
	double lat_us;		/* half a ping-pong's round trip */
	double rate_kmps;	/* one way, thousands of messages a second */
	double reads;		/* RDMA READs per message (SWAP only) */
};

/* The line scripts/bench-guests reads, once per repetition. */
static void report(const char *tp, const char *proto, size_t size,
		   const struct result *r)
{
	printf("swap_bench: %s %s %zu lat_us %.1f rate_kmps %.2f "
	       "reads_per_msg %.3f\n", tp, proto, size, r->lat_us,
	       r->rate_kmps, r->reads);
	fflush(stdout);
}

static void swap_send_or_die(struct swap_ep *ep, const void *buf, size_t len)
{
	int ret = swap_send(ep, 0, buf, len, -1);

	if (ret)
		tool_die("swap_send: %s", strerror(-ret));
}

static void swap_recv_or_die(struct swap_ep *ep)
{
	struct swap_msg m;
	int ret = swap_recv(ep, &m, -1);

	if (ret)
		tool_die("swap_recv: %s", strerror(-ret));
	swap_msg_release(ep, &m);
}

/* SWAP: ping-pong, then @count messages one way and a word back. */
static struct result bench_swap(struct swap_ep *ep, const void *buf,
				size_t size, unsigned int iters,
				unsigned int count)
{
	struct swap_stats s0, s1;
	struct result r = { 0 };
	unsigned int i;
	uint64_t t;

	t = tool_now_ns();
	for (i = 0; i < iters; i++) {
		if (o.index) {
			swap_send_or_die(ep, buf, size);
			swap_recv_or_die(ep);
		} else {
			swap_recv_or_die(ep);
			swap_send_or_die(ep, buf, size);
		}
	}
	r.lat_us = (double)(tool_now_ns() - t) / 2e3 / iters;
	swap_ep_stats(ep, &s0);
	t = tool_now_ns();
	for (i = 0; i < count; i++)
		if (o.index)
			swap_send_or_die(ep, buf, size);
		else
			swap_recv_or_die(ep);
	if (o.index)
		swap_recv_or_die(ep);
	else
		swap_send_or_die(ep, buf, 0);
	r.rate_kmps = count / ((double)(tool_now_ns() - t) / 1e6);
	swap_ep_stats(ep, &s1);
	r.reads = (double)(s1.reads - s0.reads) / count;
	return r;
}

/*
 * Plain SEND/receive: ping-pong, then @count messages one way in
 * windows of --depth, the receiver saying when a window is reposted.
 */
static struct result bench_plain(struct plain *pl, size_t size,
				 unsigned int iters, unsigned int count)
{
	struct result r = { 0 };
	unsigned int i;
	uint64_t t;

	t = tool_now_ns();
	for (i = 0; i < iters; i++) {
		if (o.index) {
			plain_send(pl, size);
			plain_wait(pl, true);
		} else {
			plain_wait(pl, true);
			plain_send(pl, size);
		}
	}
	r.lat_us = (double)(tool_now_ns() - t) / 2e3 / iters;
	t = tool_now_ns();
	for (i = 0; i < count; i++) {
		if (o.index) {
			plain_send(pl, size);
			if (i % o.depth == o.depth - 1)
				plain_wait(pl, true);
		} else {
			plain_wait(pl, true);
			if (i % o.depth == o.depth - 1)
				plain_send(pl, 0);
		}
	}
	r.rate_kmps = count / ((double)(tool_now_ns() - t) / 1e6);
	return r;
}

/* An option's number. */
#define NUM(name)	tool_num(name, optarg)

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "index", 1, NULL, 'i' }, { "hub", 1, NULL, 'H' },
		{ "port", 1, NULL, 'p' }, { "device", 1, NULL, 'd' },
		{ "gid-index", 1, NULL, 'g' }, { "transport", 1, NULL, 'T' },
		{ "iters", 1, NULL, 'n' }, { "count", 1, NULL, 'c' },
		{ "depth", 1, NULL, 'D' }, { "max-size", 1, NULL, 'M' },
		{ "pool-size", 1, NULL, 'P' }, { "buf-size", 1, NULL, 'b' },
		{ "reps", 1, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.index = (unsigned int)NUM("index");
			break;
		case 'H':
			o.hub = optarg;
			break;
		case 'p':
			o.port = (uint16_t)NUM("port");
			break;
		case 'd':
			o.device = optarg;
			break;
		case 'g':
			o.attr.gid_index = (uint8_t)NUM("gid-index");
			break;
		case 'T':
			o.attr.transport = tool_transport(optarg);
			break;
		case 'n':
			o.iters = (unsigned int)NUM("iters");
			break;
		case 'c':
			o.count = (unsigned int)NUM("count");
			break;
		case 'D':
			o.depth = (unsigned int)NUM("depth");
			break;
		case 'M':
			o.max_size = NUM("max-size");
			break;
		case 'P':
			o.attr.pool_size = NUM("pool-size");
			break;
		case 'b':
			o.attr.buf_size = (uint32_t)NUM("buf-size");
			break;
		case 'r':
			o.reps = (unsigned int)NUM("reps");
			break;
		default:
			fprintf(stderr, "usage: swap_bench --index 0|1 "
				"[--hub IP] [--transport rd|rc]\n"
				"  [--device D] [--gid-index G] [--iters N] "
				"[--count N] [--depth D]\n"
				"  [--max-size B] [--pool-size B] "
				"[--buf-size B] [--reps N]\n");
			exit(2);
		}
	}
	if (o.index > 1 || (o.index && !o.hub) || !o.depth || !o.reps)
		tool_die("--index 0 or 1, --hub for 1, --depth and --reps "
			 "at least 1");
	tool_index = o.index;
}

int main(int argc, char **argv)
{
	struct rec me[2], them[2];
	struct swap_stats st;
	struct tool_ctl ctl;
	struct ibv_pd *pd;
	struct swap_ep *ep;
	struct plain pl;
	uint8_t *buf;
	const char *tp;
	size_t size;
	int id;
	bool rd;

	parse(argc, argv);
	pd = tool_open(o.device);
	o.attr.max_partners = 1;
	ep = swap_ep_create(pd, &o.attr);
	if (!ep)
		tool_die("swap_ep_create: %s", strerror(errno));
	rd = swap_ep_transport(ep) == SWAP_TRANSPORT_RD;
	tp = rd ? "RD" : "RC";
	id = swap_partner_add(ep);
	memset(me, 0, sizeof(me));
	if (id != 0 || swap_ep_addr(ep, id, me[!o.index].swap,
				    SWAP_ADDR_LEN) < 0)
		tool_die("swap_partner_add");
	plain_create(&pl, pd, rd, &me[!o.index]);
	buf = calloc(1, o.max_size);
	tool_ctl_start(&ctl, 2, o.index, o.hub, o.port, 120);
	tool_ctl_exchange(&ctl, me, them, sizeof(me[0]));
	if (swap_partner_connect(ep, id, them[!o.index].swap, SWAP_ADDR_LEN))
		tool_die("swap_partner_connect");
	plain_connect(&pl, &them[!o.index]);
	tool_ctl_barrier(&ctl, 0);

	for (size = 64; size <= o.max_size; size *= 4) {
		unsigned int iters = o.iters, count = o.count, rep;

		/* Big messages: fewer, so that each size takes similar time. */
		while (iters > 20 && (uint64_t)iters * size > (64ULL << 20))
			iters /= 2;
		while (count > 50 && (uint64_t)count * size > (256ULL << 20))
			count /= 2;
		count -= count % o.depth;
		if (!count)
			count = o.depth;

		/*
		 * The two protocols in turn, --reps times, so that the
		 * machine's noise falls on both alike; a line each time.
		 */
		for (rep = 0; rep < o.reps; rep++) {
			struct result sw = bench_swap(ep, buf, size, iters,
						      count);
			struct result pr = bench_plain(&pl, size, iters, count);

			if (o.index) {
				report(tp, "swap", size, &sw);
				report(tp, "sendrecv", size, &pr);
			}
		}
	}
	swap_ep_stats(ep, &st);
	printf("swap_bench: memory per partner swap %" PRIu64 " sendrecv %zu\n",
	       st.mem_per_partner, (size_t)o.depth * o.max_size);
	tool_ctl_barrier(&ctl, 0);
	swap_ep_close(ep);
	return 0;
}
