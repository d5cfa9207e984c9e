// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wren_rd_stress: checks that Wren's reliable-datagram queue pairs
 * deliver every message exactly once with every byte intact.
 *
 * Runs in each of N guests at once.  Each participant makes one RD QP,
 * meets the others over TCP (ctl.c) to learn their QP numbers and GIDs,
 * then sends --messages messages round robin to the others, with at most
 * --window outstanding, while receiving theirs into --recv-depth buffers.
 * A message's size and bytes are a function of (seed, sender, receiver,
 * k) (gen.c) and its immediate data is sender << 24 | k, so the receiver
 * knows what it should have got: it counts duplicates, losses, wrong
 * lengths and bytes, and with --ordered messages overtaken by later ones.
 * "Receiver not ready" is no error: that message is sent again later.
 *
 * With --rdma-ops N, each participant also exposes a window (one slot per
 * writer) and runs N one-sided transactions with every other, one at a
 * time per peer, among the sends on the same QP: an RDMA WRITE of a
 * generated payload into its slot in the peer's window, then an RDMA READ
 * of it back, checked byte for byte.  Every other transaction writes with
 * immediate, and the window's owner checks its slot when that arrival
 * completes; it then counts the arrival in the slot's header, which the
 * writer reads before it may write the slot again.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/wrendv.h>

#include "common.h"
#include "rdtest.h"

#define RD_PROG			"wren_rd_stress"

const char *rd_prog = RD_PROG;

#define RD_QKEY			0x11111111U
#define POLL_BATCH		16
#define PROGRESS_NS		(5 * NS)
#define CTL_EVERY_NS		(10 * 1000000ULL)
#define CONNECT_S		60
/*
 * A participant that is done has nothing missing to report: past the
 * deadline it gives those still running this long to time out and say
 * what they miss (the hub then tells everybody).
 */
#define DONE_GRACE_NS		(10 * NS)
#define RNR_BACKOFF_MIN_NS	(1000000ULL)
#define RNR_BACKOFF_MAX_NS	(64 * 1000000ULL)
/* A batch of sends is handed to the device at this many or bytes. */
#define POST_BATCH		16
#define POST_BATCH_BYTES	(1U << 20)
#define SLOT_ALIGN		64
#define MISSING_SHOWN		16

/*
 * A window slot: a header its owner writes, then the writer's payload.
 * The header is the count of WRITE_WITH_IMM arrivals from that writer the
 * owner has checked (little-endian, 64 bits), so that the writer knows
 * when it may overwrite bytes the owner has yet to look at.
 */
#define WIN_HDR			64
/* How soon to read the header again while the owner has not looked. */
#define ACK_POLL_MIN_NS		(100000ULL)
#define ACK_POLL_MAX_NS		(10 * 1000000ULL)
/*
 * A one-sided work request's wr_id: WR_RDMA, the step, the transaction
 * and the peer; a send's is its slot, below WR_RDMA.
 */
#define WR_RDMA			(1ULL << 63)
#define WR_STEP_SHIFT		48
#define WR_T_SHIFT		16
#define WR_DEST_MASK		0xffffU

struct opts {
	union {
		struct rd_base base;
		struct {
			RD_BASE_FIELDS;
		};
	};
	uint32_t messages;
	uint32_t window;
	uint32_t recv_depth;
	bool ordered;
	uint32_t rdma_ops;
	const char *json;
	uint32_t linger;
};

/* One send buffer and the message in it. */
struct tx_slot {
	uint8_t *buf;
	uint32_t dest;
	uint32_t k;
	uint32_t len;
	unsigned int cls;
	bool busy;
};

/* A message refused with "receiver not ready", to send again. */
struct retry {
	uint32_t dest;
	uint32_t k;
	uint64_t not_before;
};

/* The steps of a one-sided transaction. */
enum txn_step {
	STEP_WRITE,		/* the payload into our slot in the peer's */
	STEP_READ,		/* the slot back, header and payload */
	STEP_ACK,		/* the header alone, until it counts t */
	STEP_DONE,		/* no transaction left */
};

/* Our one-sided transactions with one participant, one at a time. */
struct txn {
	uint32_t t;		/* the one under way */
	enum txn_step step;
	bool posted;		/* the step's work request is outstanding */
	uint64_t not_before;	/* post the step no earlier */
	uint64_t backoff;
	uint64_t key;
	uint32_t len;
	uint8_t *buf;		/* our local slot: header and payload */
	uint64_t raddr;		/* our slot in the peer's window */
};

/* What we send to one participant. */
struct tx_dest {
	struct ibv_ah *ah;
	uint32_t total;
	uint32_t completed;
	uint64_t backoff;
	uint64_t *resent;	/* --ordered: bitmap of k sent again */
	struct txn txn;
};

/* A message that arrived after a later one from the same sender. */
struct late {
	uint32_t k;
	uint32_t after;
};

/* What we receive from one participant. */
struct rx_src {
	uint32_t expect;
	uint32_t got;
	uint64_t *seen;		/* bitmap of k received */
	uint32_t next;		/* one past the highest k seen */
	struct late *late;
	uint32_t nlate, cap_late;
	/*
	 * Its WRITE_WITH_IMM arrivals, the odd transactions, come one at a
	 * time: those before imm_got are the ones seen.
	 */
	uint32_t imm_expect;
	uint32_t imm_got;
};

struct run {
	struct opts o;
	uint64_t t_begin, t_data, t_end, deadline;

	struct rd_dev dv;
	struct ibv_context *ctx;	/* dv.ctx */
	struct ibv_pd *pd;
	struct ibv_cq *scq, *rcq;
	struct ibv_qp *qp;
	struct ibv_qp_ex *qpx;
	uint8_t *sbuf, *rbuf;
	size_t stride;
	struct ibv_mr *smr, *rmr;
	/* --rdma-ops: our window, our local slots, a slot's size. */
	uint8_t *win, *lbuf;
	struct ibv_mr *wmr, *lmr;
	size_t win_slot;
	uint32_t rdma_max;	/* the largest transaction */

	struct ctl ctl;
	bool ctl_opened;
	struct rd_peer *table;
	unsigned int *others;
	unsigned int nothers;
	struct tx_dest *tx;
	struct rx_src *rx;

	struct tx_slot *slots;
	uint32_t *free_slots;
	uint32_t nfree;
	uint32_t outstanding;
	struct retry *retry;
	uint32_t nretry;
	uint64_t next_j;	/* the next new message, 0 to messages - 1 */
	struct rd_pair *resent;	/* --ordered: (dest, k) sent again */
	uint32_t nresent, cap_resent;
	uint64_t expect_total;

	uint64_t sent, sent_bytes, received, bytes;
	uint64_t duplicates, corrupt, recv_errors, misordered, lost;
	uint64_t rnr_resends;
	uint64_t sent_cls[RD_NCLASSES], recv_cls[RD_NCLASSES];
	uint64_t txn_done, rdma_writes, rdma_reads, rdma_bytes;
	uint64_t imm_arrivals, imm_expect_total;
	uint64_t rdma_corrupt, rdma_duplicates, rdma_errors, rdma_rnr;
	uint64_t ack_polls;
	unsigned int logged;
	bool done_reported, released, data_phase;
	char send_error[256];	/* a fatal send or RDMA completion, pre-blame */
};

/* ------------------------------------------------------------------ */
/* Options                                                              */
/* ------------------------------------------------------------------ */

static void usage(FILE *f)
{
	fprintf(f, "usage: %s --peers N --index I [--hub IP] [options]\n",
		RD_PROG);
	rd_usage_base(f);
	fprintf(f,
"  --port P          the rendezvous TCP port (18600)\n"
"  --messages M      messages this participant sends, spread evenly over\n"
"                    the others (10000)\n"
"  --seed S          names the sizes and payloads (1)\n"
"  --max-size BYTES  the largest message, K/M suffixes allowed (1M)\n"
"  --window W        sends outstanding at most (32)\n"
"  --recv-depth R    receives posted (64)\n"
"  --ordered         ask for in-order delivery and check it per sender\n"
"  --rdma-ops N      also N one-sided transactions (RDMA WRITE, then READ\n"
"                    back) with each other participant (0)\n"
"  --json FILE       write the figures to FILE\n"
"  --linger SECONDS  keep the QP this long after the run, before tearing\n"
"                    it down, for tools to look at it (0)\n"
"Exit status: 0 if every check passed, 1 if one failed, 2 on bad usage.\n");
}

/* The options of ours alone (rd_parse_opts() takes the others). */
static int take_opt(void *opts, int c, const char *name, const char *arg)
{
	struct opts *o = opts;
	uint64_t v;

	switch (c) {
	case 'm':
		if (parse_num(name, arg, 0, UINT32_MAX, false, &v))
			return -1;
		o->messages = (uint32_t)v;
		return 0;
	case 'w':
		if (parse_num(name, arg, 1, 65536, false, &v))
			return -1;
		o->window = (uint32_t)v;
		return 0;
	case 'r':
		if (parse_num(name, arg, 1, 65536, false, &v))
			return -1;
		o->recv_depth = (uint32_t)v;
		return 0;
	case 'o':
		o->ordered = true;
		return 0;
	case 'R':
		/* t travels in the immediate, like a message's k. */
		if (parse_num(name, arg, 0, RD_MAX_PER_DEST, false, &v))
			return -1;
		o->rdma_ops = (uint32_t)v;
		return 0;
	case 'j':
		o->json = arg;
		return 0;
	case 'L':
		if (parse_num(name, arg, 0, 3600, false, &v))
			return -1;
		o->linger = (uint32_t)v;
		return 0;
	}
	return -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "messages", required_argument, NULL, 'm' },
		{ "window", required_argument, NULL, 'w' },
		{ "recv-depth", required_argument, NULL, 'r' },
		{ "ordered", no_argument, NULL, 'o' },
		{ "rdma-ops", required_argument, NULL, 'R' },
		{ "json", required_argument, NULL, 'j' },
		{ "linger", required_argument, NULL, 'L' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct rd_optdef def = {
		.longopts = longopts,
		.take = take_opt,
		.usage = usage,
	};

	*o = (struct opts){
		.base = {
			.port = 18600,
			.seed = 1,
			.max_size = 1U << 20,
			.timeout = 600,
		},
		.messages = 10000,
		.window = 32,
		.recv_depth = 64,
	};
	if (rd_parse_opts(argc, argv, &o->base, &def, o))
		return -1;
	if ((o->messages + (uint64_t)o->peers - 2) / (o->peers - 1) >
	    RD_MAX_PER_DEST) {
		fprintf(stderr, "%s: --messages %u: more than %u to one "
			"participant, beyond the immediate's %u bits of k\n",
			RD_PROG, o->messages, RD_MAX_PER_DEST, RD_IMM_K_BITS);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Counts                                                              */
/* ------------------------------------------------------------------ */

/*
 * Messages from @s, which sends @m in all, to @d: round robin over the
 * others in index order, so the first m % (peers - 1) get one more.
 */
static uint32_t share(uint32_t m, unsigned int peers, unsigned int s,
		      unsigned int d)
{
	unsigned int pos = d < s ? d : d - 1, n = peers - 1;

	return m / n + (pos < m % n);
}

/* ------------------------------------------------------------------ */
/* Verbs: setting up                                                    */
/* ------------------------------------------------------------------ */

/*
 * One-sided work requests outstanding at most, each also a completion on
 * the send CQ, and WRITE_WITH_IMM arrivals waiting on the receive CQ: one
 * per other participant, since transactions to a peer go one at a time
 * and a writer waits for us to count its arrival.
 */
static uint32_t rdma_depth(const struct opts *o)
{
	return o->rdma_ops ? o->peers - 1 : 0;
}

/* --rdma-ops: can the device, how large a transaction, a window slot. */
static int check_rdma(struct run *r, struct ibv_device *dev,
		      const struct wrendv_device_attr *da, uint64_t max_mr)
{
	const uint32_t caps = WRENDV_DEVICE_CAP_RDMA_WRITE |
			      WRENDV_DEVICE_CAP_RDMA_READ;
	const struct opts *o = &r->o;

	if (!o->rdma_ops)
		return 0;
	if ((da->device_caps & caps) != caps) {
		fail("--rdma-ops: %s has no RDMA WRITE and READ on RD queue "
		     "pairs (device_caps 0x%x)", ibv_get_device_name(dev),
		     da->device_caps);
		return -1;
	}
	/* A READ brings the slot's header back with the payload. */
	if (da->max_rdma_size <= WIN_HDR) {
		fail("--rdma-ops: %s writes and reads %u bytes at most",
		     ibv_get_device_name(dev), da->max_rdma_size);
		return -1;
	}
	r->rdma_max = da->max_rdma_size - WIN_HDR;
	if (r->rdma_max > o->max_size)
		r->rdma_max = o->max_size;
	r->win_slot = WIN_HDR + (((size_t)r->rdma_max + SLOT_ALIGN - 1) &
				 ~(size_t)(SLOT_ALIGN - 1));
	if (r->win_slot * o->peers > max_mr) {
		fail("%s registers %" PRIu64 " bytes at most; a window of %u "
		     "slots of %zu bytes is more", ibv_get_device_name(dev),
		     max_mr, o->peers, r->win_slot);
		return -1;
	}
	return 0;
}

static int open_device(struct run *r)
{
	const struct opts *o = &r->o;
	const struct ibv_device_attr *a = &r->dv.attr;
	struct wrendv_device_attr dattr;
	struct ibv_device *dev;
	char gbuf[64];
	size_t need;
	int ret;

	if (rd_dev_open(&r->dv, o->device, o->gid_index))
		return -1;
	dev = r->dv.dev;
	r->ctx = r->dv.ctx;
	ret = wrendv_query_device(r->ctx, &dattr, sizeof(dattr));
	if (ret) {
		fail("wrendv_query_device(%s): %s (not a Wren adapter?)",
		     ibv_get_device_name(dev), verr(ret));
		return -1;
	}
	if (!(dattr.device_caps & WRENDV_DEVICE_CAP_RD)) {
		fail("%s has no RD queue pairs (device_caps 0x%x)",
		     ibv_get_device_name(dev), dattr.device_caps);
		return -1;
	}
	if (o->ordered && !(dattr.device_caps & WRENDV_DEVICE_CAP_RD_ORDERED)) {
		fail("--ordered: %s has no in-order RD delivery (device_caps "
		     "0x%x)", ibv_get_device_name(dev), dattr.device_caps);
		return -1;
	}
	if (dattr.max_rd_msg_size < o->max_size) {
		fail("--max-size %u: %s sends RD messages of %u bytes at most",
		     o->max_size, ibv_get_device_name(dev),
		     dattr.max_rd_msg_size);
		return -1;
	}
	if (check_rdma(r, dev, &dattr, a->max_mr_size))
		return -1;
	if (o->window + rdma_depth(o) > dattr.max_sq_wr ||
	    o->window + rdma_depth(o) > (uint32_t)a->max_cqe) {
		fail("--window %u%s: %s allows %u send work requests and %d "
		     "completions per queue", o->window, o->rdma_ops ?
		     " and one RDMA operation per participant" : "",
		     ibv_get_device_name(dev), dattr.max_sq_wr, a->max_cqe);
		return -1;
	}
	if (o->recv_depth > dattr.max_rq_wr ||
	    o->recv_depth + rdma_depth(o) > (uint32_t)a->max_cqe) {
		fail("--recv-depth %u%s: %s allows %u receive work requests "
		     "and %d completions per queue", o->recv_depth,
		     o->rdma_ops ? " and one WRITE_WITH_IMM arrival per "
		     "participant" : "", ibv_get_device_name(dev),
		     dattr.max_rq_wr, a->max_cqe);
		return -1;
	}
	r->stride = ((size_t)o->max_size + SLOT_ALIGN - 1) &
		    ~(size_t)(SLOT_ALIGN - 1);
	need = r->stride * (o->window > o->recv_depth ? o->window :
							 o->recv_depth);
	if (need > a->max_mr_size) {
		fail("%s registers %" PRIu64 " bytes at most; --max-size times "
		     "--window or --recv-depth needs %zu",
		     ibv_get_device_name(dev), (uint64_t)a->max_mr_size,
		     need);
		return -1;
	}
	note("device %s port %u gid[%u] %s, max RD message %u bytes, max "
	     "RDMA %u bytes", ibv_get_device_name(dev), RD_IB_PORT,
	     o->gid_index, gid_str(r->dv.gid.raw, gbuf, sizeof(gbuf)),
	     dattr.max_rd_msg_size, dattr.max_rdma_size);
	return 0;
}

static int modify(struct run *r, struct ibv_qp_attr *a, int mask,
		  const char *to)
{
	int ret = ibv_modify_qp(r->qp, a, mask);

	if (ret) {
		fail("ibv_modify_qp(to %s): %s", to, verr(ret));
		return -1;
	}
	return 0;
}

static int make_qp(struct run *r)
{
	const struct opts *o = &r->o;
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_DRIVER,
		.send_cq = r->scq,
		.recv_cq = r->rcq,
		.cap = {
			.max_send_wr = o->window + rdma_depth(o),
			.max_recv_wr = o->recv_depth,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = r->pd,
		.send_ops_flags = IBV_QP_EX_WITH_SEND |
				  IBV_QP_EX_WITH_SEND_WITH_IMM,
	};
	struct wrendv_qp_init_attr da = {
		.driver_qp_type = WRENDV_QP_DRIVER_TYPE_RD,
		.flags = o->ordered ? WRENDV_QP_FLAGS_ORDERED : 0,
	};
	struct ibv_qp_attr a;

	if (o->rdma_ops)
		ia.send_ops_flags |= IBV_QP_EX_WITH_RDMA_WRITE |
				     IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				     IBV_QP_EX_WITH_RDMA_READ;
	r->qp = wrendv_create_qp(r->ctx, &ia, &da, sizeof(da));
	if (!r->qp) {
		fail("wrendv_create_qp(RD%s%s, %u sends, %u receives): %s",
		     o->ordered ? ", ordered" : "",
		     o->rdma_ops ? ", RDMA WRITE and READ" : "",
		     ia.cap.max_send_wr, o->recv_depth, strerror(errno));
		return -1;
	}
	r->qpx = ibv_qp_to_qp_ex(r->qp);
	if (!r->qpx) {
		fail("ibv_qp_to_qp_ex: the RD QP has no work request API");
		return -1;
	}

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = RD_IB_PORT;
	a.qkey = RD_QKEY;
	if (modify(r, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		   IBV_QP_QKEY, "INIT"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	if (modify(r, &a, IBV_QP_STATE, "RTR"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	return modify(r, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");
}

static int alloc_buffers(struct run *r)
{
	const struct opts *o = &r->o;
	size_t ssize = r->stride * o->window, rsize = r->stride * o->recv_depth;
	int ret;
	uint32_t i;

	ret = posix_memalign((void **)&r->sbuf, 4096, ssize);
	if (ret) {
		r->sbuf = NULL;
		fail("allocating %zu bytes of send buffers: %s", ssize,
		     strerror(ret));
		return -1;
	}
	ret = posix_memalign((void **)&r->rbuf, 4096, rsize);
	if (ret) {
		r->rbuf = NULL;
		fail("allocating %zu bytes of receive buffers: %s", rsize,
		     strerror(ret));
		return -1;
	}
	memset(r->sbuf, 0, ssize);
	memset(r->rbuf, 0, rsize);
	r->smr = ibv_reg_mr(r->pd, r->sbuf, ssize, IBV_ACCESS_LOCAL_WRITE);
	if (!r->smr) {
		fail("ibv_reg_mr(send buffers, %zu bytes): %s", ssize,
		     strerror(errno));
		return -1;
	}
	r->rmr = ibv_reg_mr(r->pd, r->rbuf, rsize, IBV_ACCESS_LOCAL_WRITE);
	if (!r->rmr) {
		fail("ibv_reg_mr(receive buffers, %zu bytes): %s", rsize,
		     strerror(errno));
		return -1;
	}
	r->slots = calloc(o->window, sizeof(*r->slots));
	r->free_slots = calloc(o->window, sizeof(*r->free_slots));
	r->retry = calloc(o->window, sizeof(*r->retry));
	if (!r->slots || !r->free_slots || !r->retry) {
		fail("out of memory for %u send slots", o->window);
		return -1;
	}
	for (i = 0; i < o->window; i++) {
		r->slots[i].buf = r->sbuf + r->stride * i;
		r->free_slots[i] = o->window - 1 - i;
	}
	r->nfree = o->window;
	return 0;
}

/*
 * --rdma-ops: our window, a slot per writer (ours unused), which the
 * others write and read; and our local slots, a slot per peer, whence
 * our WRITEs come and where our READs land.
 */
static int alloc_window(struct run *r)
{
	size_t size = r->win_slot * r->o.peers;
	int ret;

	if (!r->o.rdma_ops)
		return 0;
	ret = posix_memalign((void **)&r->win, 4096, size);
	if (ret) {
		r->win = NULL;
		fail("allocating %zu bytes for the RDMA window: %s", size,
		     strerror(ret));
		return -1;
	}
	ret = posix_memalign((void **)&r->lbuf, 4096, size);
	if (ret) {
		r->lbuf = NULL;
		fail("allocating %zu bytes of RDMA local slots: %s", size,
		     strerror(ret));
		return -1;
	}
	/* Every slot's header: no arrival counted yet. */
	memset(r->win, 0, size);
	memset(r->lbuf, 0, size);
	r->wmr = ibv_reg_mr(r->pd, r->win, size, IBV_ACCESS_LOCAL_WRITE |
			    IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!r->wmr) {
		fail("ibv_reg_mr(RDMA window, %zu bytes, remote write and "
		     "read): %s", size, strerror(errno));
		return -1;
	}
	r->lmr = ibv_reg_mr(r->pd, r->lbuf, size, IBV_ACCESS_LOCAL_WRITE);
	if (!r->lmr) {
		fail("ibv_reg_mr(RDMA local slots, %zu bytes): %s", size,
		     strerror(errno));
		return -1;
	}
	return 0;
}

static int setup_verbs(struct run *r)
{
	const struct opts *o = &r->o;

	if (open_device(r))
		return -1;
	r->pd = ibv_alloc_pd(r->ctx);
	if (!r->pd) {
		fail("ibv_alloc_pd: %s", strerror(errno));
		return -1;
	}
	r->scq = ibv_create_cq(r->ctx, (int)(o->window + rdma_depth(o)), NULL,
			       NULL, 0);
	if (!r->scq) {
		fail("ibv_create_cq(send, %u entries): %s",
		     o->window + rdma_depth(o), strerror(errno));
		return -1;
	}
	r->rcq = ibv_create_cq(r->ctx, (int)(o->recv_depth + rdma_depth(o)),
			       NULL, NULL, 0);
	if (!r->rcq) {
		fail("ibv_create_cq(receive, %u entries): %s",
		     o->recv_depth + rdma_depth(o), strerror(errno));
		return -1;
	}
	if (alloc_buffers(r) || alloc_window(r))
		return -1;
	return make_qp(r);
}

/* Post receive buffers @slot[0..n-1], one chain, one call. */
static int post_recvs(struct run *r, const uint32_t *slot, unsigned int n)
{
	struct ibv_recv_wr wr[POLL_BATCH], *bad = NULL;
	struct ibv_sge sge[POLL_BATCH];
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)(r->rbuf + r->stride * slot[i]),
			.length = r->o.max_size,
			.lkey = r->rmr->lkey,
		};
		wr[i] = (struct ibv_recv_wr){
			.wr_id = slot[i],
			.next = i + 1 < n ? &wr[i + 1] : NULL,
			.sg_list = &sge[i],
			.num_sge = 1,
		};
	}
	if (!n)
		return 0;
	ret = ibv_post_recv(r->qp, wr, &bad);
	if (ret) {
		fail("ibv_post_recv (buffer %" PRIu64 " of %u in the chain): "
		     "%s", bad ? bad->wr_id : (uint64_t)slot[0], n, verr(ret));
		return -1;
	}
	return 0;
}

static int post_all_recvs(struct run *r)
{
	uint32_t slot[POLL_BATCH], i = 0, n;

	while (i < r->o.recv_depth) {
		for (n = 0; n < POLL_BATCH && i < r->o.recv_depth; n++)
			slot[n] = i++;
		if (post_recvs(r, slot, n))
			return -1;
	}
	return 0;
}

static void txn_begin(struct run *r, unsigned int d, struct txn *x);

/* --rdma-ops: our transactions with @p, its arrivals into our window. */
static void setup_rdma_peer(struct run *r, unsigned int p)
{
	const struct opts *o = &r->o;
	struct txn *x = &r->tx[p].txn;

	x->step = STEP_DONE;
	if (!o->rdma_ops)
		return;
	x->buf = r->lbuf + r->win_slot * p;
	x->raddr = r->table[p].win_addr + r->win_slot * o->index;
	txn_begin(r, p, x);
	/* The odd transactions write with immediate. */
	r->rx[p].imm_expect = o->rdma_ops / 2;
	r->imm_expect_total += r->rx[p].imm_expect;
}

/* After the table: an AH and the counts for every other participant. */
static int setup_peers(struct run *r)
{
	const struct opts *o = &r->o;
	char gbuf[64], wbuf[64] = "";
	unsigned int p;

	r->others = calloc(o->peers, sizeof(*r->others));
	r->tx = calloc(o->peers, sizeof(*r->tx));
	r->rx = calloc(o->peers, sizeof(*r->rx));
	if (!r->others || !r->tx || !r->rx) {
		fail("out of memory for %u participants", o->peers);
		return -1;
	}
	for (p = 0; p < o->peers; p++) {
		struct ibv_ah_attr aa = {
			.is_global = 1,
			.port_num = RD_IB_PORT,
			.grh = {
				.sgid_index = (uint8_t)o->gid_index,
				.hop_limit = 64,
			},
		};
		struct rx_src *rx = &r->rx[p];
		struct tx_dest *tx = &r->tx[p];
		const struct rd_peer *t = &r->table[p];

		gid_str(t->gid, gbuf, sizeof(gbuf));
		if (o->rdma_ops)
			snprintf(wbuf, sizeof(wbuf), ", window 0x%" PRIx64
				 " rkey 0x%x", t->win_addr, t->win_rkey);
		note("participant %u: qpn %u gid %s sends %u messages%s%s", p,
		     t->qpn, gbuf, t->messages, wbuf,
		     p == o->index ? " (us)" : "");
		if (p == o->index)
			continue;
		r->others[r->nothers++] = p;
		memcpy(aa.grh.dgid.raw, t->gid, sizeof(t->gid));
		tx->ah = ibv_create_ah(r->pd, &aa);
		if (!tx->ah) {
			fail("ibv_create_ah(participant %u, gid %s): %s", p,
			     gbuf, strerror(errno));
			return -1;
		}
		tx->total = share(o->messages, o->peers, o->index, p);
		rx->expect = share(t->messages, o->peers, p, o->index);
		if (rx->expect > RD_MAX_PER_DEST) {
			fail("participant %u would send us %u messages, more "
			     "than the immediate's %u bits of k number", p,
			     rx->expect, RD_IMM_K_BITS);
			return -1;
		}
		rx->seen = bitmap_new(rx->expect);
		if (!rx->seen) {
			fail("out of memory for participant %u's bitmap", p);
			return -1;
		}
		if (o->ordered) {
			tx->resent = bitmap_new(tx->total);
			if (!tx->resent) {
				fail("out of memory for participant %u's "
				     "bitmap", p);
				return -1;
			}
		}
		r->expect_total += rx->expect;
		setup_rdma_peer(r, p);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* One-sided transactions                                               */
/* ------------------------------------------------------------------ */

static const char *const step_name[] = {
	[STEP_WRITE] = "WRITE",
	[STEP_READ] = "READ",
	[STEP_ACK] = "READ of the header",
	[STEP_DONE] = "nothing",
};

static uint64_t rdma_wr_id(enum txn_step step, uint32_t t, unsigned int d)
{
	return WR_RDMA | (uint64_t)step << WR_STEP_SHIFT |
	       (uint64_t)t << WR_T_SHIFT | d;
}

/* Transaction t with @d, if any is left: its payload into our slot. */
static void txn_begin(struct run *r, unsigned int d, struct txn *x)
{
	const struct opts *o = &r->o;

	x->backoff = 0;
	x->not_before = 0;
	if (x->t == o->rdma_ops) {
		x->step = STEP_DONE;
		return;
	}
	x->key = rd_rdma_key(o->seed, o->index, d, x->t);
	x->len = rd_msg_size(x->key, r->rdma_max, NULL);
	rd_fill(x->buf + WIN_HDR, x->len, x->key);
	x->step = STEP_WRITE;
}

static void txn_end(struct run *r, unsigned int d, struct txn *x)
{
	r->txn_done++;
	x->t++;
	txn_begin(r, d, x);
}

/* Post the step again later, twice as late as the last time. */
static void txn_delay(struct txn *x, uint64_t min, uint64_t max)
{
	x->backoff = x->backoff ? 2 * x->backoff : min;
	if (x->backoff > max)
		x->backoff = max;
	x->not_before = rd_now() + x->backoff;
}

/* The bytes a READ of the step brings: the whole slot, or its header. */
static uint32_t txn_read_len(const struct txn *x)
{
	return x->step == STEP_ACK ? sizeof(uint64_t) : WIN_HDR + x->len;
}

/* The work request of @x's step, into the batch under way. */
static void txn_build(struct run *r, unsigned int d, struct txn *x)
{
	struct ibv_qp_ex *qpx = r->qpx;
	uint32_t rkey = r->table[d].win_rkey, lkey = r->lmr->lkey;

	qpx->wr_id = rdma_wr_id(x->step, x->t, d);
	qpx->wr_flags = IBV_SEND_SIGNALED;
	if (x->step == STEP_WRITE && x->t % 2)
		ibv_wr_rdma_write_imm(qpx, rkey, x->raddr + WIN_HDR,
				      htobe32(rd_imm(r->o.index, x->t)));
	else if (x->step == STEP_WRITE)
		ibv_wr_rdma_write(qpx, rkey, x->raddr + WIN_HDR);
	else
		ibv_wr_rdma_read(qpx, rkey, x->raddr);
	ibv_wr_set_ud_addr(qpx, r->tx[d].ah, r->table[d].qpn, RD_QKEY);
	if (x->step != STEP_WRITE)
		ibv_wr_set_sge(qpx, lkey, (uintptr_t)x->buf, txn_read_len(x));
	else if (x->len)
		ibv_wr_set_sge(qpx, lkey, (uintptr_t)x->buf + WIN_HDR, x->len);
	else
		ibv_wr_set_sge_list(qpx, 0, NULL);
	x->posted = true;
}

/* Post the next step of every transaction that may go on now. */
static int post_rdma(struct run *r)
{
	unsigned int i, n = 0;
	uint64_t now;
	int ret;

	if (r->txn_done == (uint64_t)r->o.rdma_ops * r->nothers)
		return 0;
	now = rd_now();
	for (i = 0; i < r->nothers; i++) {
		unsigned int d = r->others[i];
		struct txn *x = &r->tx[d].txn;

		if (x->step == STEP_DONE || x->posted || x->not_before > now)
			continue;
		if (!n)
			ibv_wr_start(r->qpx);
		txn_build(r, d, x);
		n++;
	}
	if (n) {
		ret = ibv_wr_complete(r->qpx);
		if (ret) {
			fail("ibv_wr_complete (%u RDMA operations): %s", n,
			     verr(ret));
			return -1;
		}
	}
	return (int)n;
}

/* The WRITE is in the peer's window: read the slot back. */
static void write_done(struct run *r, struct txn *x)
{
	uint32_t i;

	r->rdma_writes++;
	r->rdma_bytes += x->len;
	/* What the READ must overwrite, every byte of it. */
	memset(x->buf, 0xff, WIN_HDR);
	for (i = 0; i < x->len; i++)
		x->buf[WIN_HDR + i] ^= 0xff;
	x->step = STEP_READ;
	x->backoff = 0;
}

/*
 * Does the header of our slot, as the last READ brought it, count
 * transaction t's arrival?  It counts every odd transaction before t, and
 * an odd t once the peer has checked it; any other count is wrong (and
 * will not get right by waiting).
 */
static bool txn_acked(struct run *r, unsigned int d, const struct txn *x)
{
	uint64_t h, before = x->t / 2;

	memcpy(&h, x->buf, sizeof(h));
	h = le64toh(h);
	if (h == before + x->t % 2)
		return true;
	if (x->t % 2 && h == before)
		return false;
	data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: participant %u's "
		   "window counts %" PRIu64 " arrivals of ours at transaction "
		   "%u, %" PRIu64 "%s expected", d, h, x->t, before,
		   x->t % 2 ? " or one more" : "");
	return true;
}

/* Our WRITE_WITH_IMM is not counted yet: read the header again soon. */
static void txn_await(struct txn *x)
{
	memset(x->buf, 0xff, sizeof(uint64_t));
	x->step = STEP_ACK;
	txn_delay(x, ACK_POLL_MIN_NS, ACK_POLL_MAX_NS);
}

static void read_done(struct run *r, unsigned int d, struct txn *x,
		      const struct ibv_wc *wc)
{
	struct rd_mismatch mm;

	r->rdma_reads++;
	r->rdma_bytes += x->len;
	if (wc->byte_len != WIN_HDR + x->len)
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: the READ of "
			   "transaction %u from participant %u brought %u "
			   "bytes, %u expected", x->t, d, wc->byte_len,
			   WIN_HDR + x->len);
	else if (rd_check(x->buf + WIN_HDR, x->len, x->key, &mm))
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: transaction %u "
			   "with participant %u (%u bytes) read back: byte %u "
			   "is 0x%02x, 0x%02x expected", x->t, d, x->len,
			   mm.offset, mm.got, mm.want);
	x->backoff = 0;
	if (txn_acked(r, d, x))
		txn_end(r, d, x);
	else
		txn_await(x);
}

static void ack_done(struct run *r, unsigned int d, struct txn *x,
		     const struct ibv_wc *wc)
{
	r->ack_polls++;
	if (wc->byte_len != sizeof(uint64_t))
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: the READ of "
			   "participant %u's header brought %u bytes, %zu "
			   "expected", d, wc->byte_len, sizeof(uint64_t));
	if (txn_acked(r, d, x))
		txn_end(r, d, x);
	else
		txn_await(x);
}

/*
 * One completion of a one-sided work request: 0, -1 on a fatal error,
 * -2 when it failed (r->send_error says how).
 */
static int rdma_done(struct run *r, const struct ibv_wc *wc)
{
	unsigned int d = wc->wr_id & WR_DEST_MASK;
	unsigned int step = (wc->wr_id >> WR_STEP_SHIFT) & 0xff;
	uint32_t t = (wc->wr_id >> WR_T_SHIFT) & RD_IMM_K_MASK;
	enum ibv_wc_opcode want;
	struct txn *x = NULL;

	if (r->o.rdma_ops && d < r->o.peers && d != r->o.index)
		x = &r->tx[d].txn;
	if (!x || !x->posted || x->step != step || x->t != t) {
		fail("a completion for RDMA work request 0x%" PRIx64 ", which "
		     "is not outstanding (status %s)", (uint64_t)wc->wr_id,
		     ibv_wc_status_str(wc->status));
		return -1;
	}
	x->posted = false;
	if (wc->status == IBV_WC_RNR_RETRY_EXC_ERR) {
		/* The peer's adapter had no room for it: again, later. */
		r->rdma_rnr++;
		txn_delay(x, RNR_BACKOFF_MIN_NS, RNR_BACKOFF_MAX_NS);
		return 0;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		r->rdma_errors++;
		snprintf(r->send_error, sizeof(r->send_error),
			 "RDMA %s of transaction %u (%u bytes) with "
			 "participant %u completed with %s (status %d, vendor "
			 "error 0x%x)",
			 step_name[step], t, x->len, d,
			 ibv_wc_status_str(wc->status), wc->status,
			 wc->vendor_err);
		return -2;
	}
	want = step == STEP_WRITE ? IBV_WC_RDMA_WRITE : IBV_WC_RDMA_READ;
	if (wc->opcode != want)
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: the %s of "
			   "transaction %u with participant %u completed with "
			   "opcode %d", step_name[step], t, d, wc->opcode);
	if (step == STEP_WRITE)
		write_done(r, x);
	else if (step == STEP_READ)
		read_done(r, d, x, wc);
	else
		ack_done(r, d, x, wc);
	return 0;
}

/*
 * Who wrote a WRITE_WITH_IMM that arrived, and which transaction: false
 * (counted as corrupt) if nobody may have.
 */
static bool arrival_source(struct run *r, const struct ibv_wc *wc,
			   uint32_t *s, uint32_t *t)
{
	const struct opts *o = &r->o;
	uint32_t imm = be32toh(wc->imm_data);

	*s = imm >> RD_IMM_K_BITS;
	*t = imm & RD_IMM_K_MASK;
	if (!o->rdma_ops || !(wc->wc_flags & IBV_WC_WITH_IMM)) {
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: a WRITE with "
			   "immediate arrived (%u bytes from QP %u)%s",
			   wc->byte_len, wc->src_qp, o->rdma_ops ?
			   " without immediate data" : ", without --rdma-ops");
		return false;
	}
	if (*s >= o->peers || *s == o->index) {
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: the immediate "
			   "0x%08x of a WRITE (from QP %u, %u bytes) names "
			   "participant %u", imm, wc->src_qp, wc->byte_len, *s);
		return false;
	}
	if (wc->src_qp != r->table[*s].qpn) {
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: transaction %u "
			   "of participant %u came from QP %u, not %u", *t, *s,
			   wc->src_qp, r->table[*s].qpn);
		return false;
	}
	if (*t % 2 == 0 || *t >= o->rdma_ops) {
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: participant %u "
			   "wrote transaction %u with immediate, which it does "
			   "not", *s, *t);
		return false;
	}
	return true;
}

/*
 * A WRITE_WITH_IMM into our window arrived: the writer's slot must hold
 * exactly that transaction's bytes now, since the writer writes the slot
 * again only once the slot's header counts this arrival.
 */
static void check_arrival(struct run *r, const struct ibv_wc *wc)
{
	const struct opts *o = &r->o;
	struct rd_mismatch mm;
	struct rx_src *rx;
	uint32_t s, t, len;
	uint64_t key, count;
	uint8_t *slot;

	if (!arrival_source(r, wc, &s, &t))
		return;
	rx = &r->rx[s];
	/* They come one at a time: those before imm_got are the ones seen. */
	if (t / 2 < rx->imm_got) {
		data_error(&r->logged, &r->rdma_duplicates, "RDMA DUPLICATE: "
			   "transaction %u of participant %u arrived again "
			   "(%u bytes)", t, s, wc->byte_len);
		return;
	}
	if (t / 2 > rx->imm_got) {
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: transaction %u "
			   "of participant %u arrived before its transaction "
			   "%u", t, s, 2 * rx->imm_got + 1);
		return;
	}
	key = rd_rdma_key(o->seed, s, o->index, t);
	len = rd_msg_size(key, r->rdma_max, NULL);
	slot = r->win + r->win_slot * s;
	if (wc->byte_len != len)
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: transaction %u "
			   "of participant %u arrived with %u bytes, %u "
			   "expected", t, s, wc->byte_len, len);
	else if (rd_check(slot + WIN_HDR, len, key, &mm))
		data_error(&r->logged, &r->rdma_corrupt, "RDMA CORRUPT: transaction %u "
			   "of participant %u (%u bytes) as it arrived in our "
			   "window: byte %u is 0x%02x, 0x%02x expected", t, s,
			   len, mm.offset, mm.got, mm.want);
	rx->imm_got++;
	r->imm_arrivals++;
	/* Done with the slot: from now on the writer may write it again. */
	count = htole64(rx->imm_got);
	__atomic_store_n((uint64_t *)(void *)slot, count, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------------ */
/* Sending                                                              */
/* ------------------------------------------------------------------ */

/* A due retry, or -1. */
static int due_retry(const struct run *r, uint64_t now)
{
	uint32_t i;
	int best = -1;

	for (i = 0; i < r->nretry; i++)
		if (r->retry[i].not_before <= now &&
		    (best < 0 || r->retry[i].not_before <
				 r->retry[best].not_before))
			best = (int)i;
	return best;
}

/*
 * Fill and post as many sends as the window allows: messages refused
 * with "receiver not ready" first, once due; new ones only when none
 * wait, so outstanding + waiting never exceeds the window.
 */
static int post_sends(struct run *r)
{
	const struct opts *o = &r->o;
	uint64_t now = rd_now();
	unsigned int batch = 0, total = 0;
	uint32_t batch_bytes = 0;
	int ret;

	while (r->nfree) {
		struct tx_slot *s;
		uint32_t dest, k, slot;
		uint64_t key;

		if (r->nretry) {
			int i = due_retry(r, now);

			if (i < 0)
				break;
			dest = r->retry[i].dest;
			k = r->retry[i].k;
			r->retry[i] = r->retry[--r->nretry];
		} else if (r->next_j < o->messages) {
			dest = r->others[r->next_j % r->nothers];
			k = (uint32_t)(r->next_j / r->nothers);
			r->next_j++;
		} else {
			break;
		}
		slot = r->free_slots[--r->nfree];
		s = &r->slots[slot];
		key = rd_msg_key(o->seed, o->index, dest, k);
		s->len = rd_msg_size(key, o->max_size, &s->cls);
		s->dest = dest;
		s->k = k;
		s->busy = true;
		rd_fill(s->buf, s->len, key);

		if (!batch)
			ibv_wr_start(r->qpx);
		r->qpx->wr_id = slot;
		r->qpx->wr_flags = IBV_SEND_SIGNALED;
		ibv_wr_send_imm(r->qpx, htobe32(rd_imm(o->index, k)));
		ibv_wr_set_ud_addr(r->qpx, r->tx[dest].ah, r->table[dest].qpn,
				   RD_QKEY);
		if (s->len)
			ibv_wr_set_sge(r->qpx, r->smr->lkey,
				       (uintptr_t)s->buf, s->len);
		else
			ibv_wr_set_sge_list(r->qpx, 0, NULL);
		r->outstanding++;
		batch++;
		total++;
		batch_bytes += s->len;
		if (batch >= POST_BATCH || batch_bytes >= POST_BATCH_BYTES) {
			ret = ibv_wr_complete(r->qpx);
			if (ret) {
				fail("ibv_wr_complete (%u sends): %s", batch,
				     verr(ret));
				return -1;
			}
			batch = 0;
			batch_bytes = 0;
		}
	}
	if (batch) {
		ret = ibv_wr_complete(r->qpx);
		if (ret) {
			fail("ibv_wr_complete (%u sends): %s", batch,
			     verr(ret));
			return -1;
		}
	}
	return (int)total;
}

static int note_resent(struct run *r, uint32_t dest, uint32_t k)
{
	struct rd_pair *p;

	if (!r->o.ordered || test_and_set(r->tx[dest].resent, k))
		return 0;
	if (r->nresent == r->cap_resent) {
		uint32_t cap = r->cap_resent ? 2 * r->cap_resent : 64;

		p = realloc(r->resent, cap * sizeof(*p));
		if (!p) {
			fail("out of memory for the list of resends");
			return -1;
		}
		r->resent = p;
		r->cap_resent = cap;
	}
	r->resent[r->nresent++] = (struct rd_pair){ dest, k };
	return 0;
}

/*
 * The send CQ's completions, of sends and of one-sided work requests: how
 * many, -1 on a fatal error, -2 when a send or an RDMA operation failed
 * (r->send_error says how).
 */
static int poll_sends(struct run *r)
{
	struct ibv_wc wc[POLL_BATCH];
	int n, i, ret;

	n = ibv_poll_cq(r->scq, POLL_BATCH, wc);
	if (n < 0) {
		fail("ibv_poll_cq (send CQ): returned %d", n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t id = wc[i].wr_id;
		struct tx_slot *s;
		struct tx_dest *tx;

		if (id & WR_RDMA) {
			ret = rdma_done(r, &wc[i]);
			if (ret)
				return ret;
			continue;
		}
		if (id >= r->o.window || !r->slots[id].busy) {
			fail("a send completion for work request %" PRIu64
			     ", which is not outstanding (status %s)", id,
			     ibv_wc_status_str(wc[i].status));
			return -1;
		}
		s = &r->slots[id];
		tx = &r->tx[s->dest];
		if (wc[i].status == IBV_WC_SUCCESS) {
			r->sent++;
			r->sent_bytes += s->len;
			r->sent_cls[s->cls]++;
			tx->completed++;
			tx->backoff = 0;
		} else if (wc[i].status == IBV_WC_RNR_RETRY_EXC_ERR) {
			/* The receiver had no buffer: again, a bit later. */
			r->rnr_resends++;
			tx->backoff = tx->backoff ?
				      tx->backoff * 2 : RNR_BACKOFF_MIN_NS;
			if (tx->backoff > RNR_BACKOFF_MAX_NS)
				tx->backoff = RNR_BACKOFF_MAX_NS;
			r->retry[r->nretry++] = (struct retry){
				.dest = s->dest,
				.k = s->k,
				.not_before = rd_now() + tx->backoff,
			};
			if (note_resent(r, s->dest, s->k))
				return -1;
		} else {
			/* run_loop() asks the hub for a cause first. */
			snprintf(r->send_error, sizeof(r->send_error),
				 "send of message %u (%u bytes) to participant "
				 "%u completed with %s (status %d, vendor error "
				 "0x%x)", s->k, s->len, s->dest,
				 ibv_wc_status_str(wc[i].status), wc[i].status,
				 wc[i].vendor_err);
			return -2;
		}
		s->busy = false;
		r->free_slots[r->nfree++] = (uint32_t)id;
		r->outstanding--;
	}
	return n;
}

/* ------------------------------------------------------------------ */
/* Receiving                                                            */
/* ------------------------------------------------------------------ */

static int add_late(struct rx_src *rx, uint32_t k)
{
	if (rx->nlate == rx->cap_late) {
		uint32_t cap = rx->cap_late ? 2 * rx->cap_late : 16;
		struct late *l = realloc(rx->late, cap * sizeof(*l));

		if (!l) {
			fail("out of memory for the late arrivals");
			return -1;
		}
		rx->late = l;
		rx->cap_late = cap;
	}
	rx->late[rx->nlate++] = (struct late){ k, rx->next - 1 };
	return 0;
}

/* Check one message that arrived; 0, or -1 on a fatal error. */
static int check_message(struct run *r, const struct ibv_wc *wc,
			 const uint8_t *buf)
{
	const struct opts *o = &r->o;
	struct rd_mismatch mm;
	struct rx_src *rx;
	uint32_t imm, s, k, len;
	unsigned int cls;
	uint64_t key;

	if (wc->opcode != IBV_WC_RECV) {
		data_error(&r->logged, &r->corrupt, "CORRUPT: a receive completion "
			   "with opcode %d (%u bytes from QP %u)", wc->opcode,
			   wc->byte_len, wc->src_qp);
		return 0;
	}
	if (!(wc->wc_flags & IBV_WC_WITH_IMM)) {
		data_error(&r->logged, &r->corrupt, "CORRUPT: a message of %u bytes "
			   "from QP %u without immediate data", wc->byte_len,
			   wc->src_qp);
		return 0;
	}
	imm = be32toh(wc->imm_data);
	s = imm >> RD_IMM_K_BITS;
	k = imm & RD_IMM_K_MASK;
	if (s >= o->peers || s == o->index) {
		data_error(&r->logged, &r->corrupt, "CORRUPT: immediate data 0x%08x "
			   "(from QP %u, %u bytes) names participant %u", imm,
			   wc->src_qp, wc->byte_len, s);
		return 0;
	}
	if (wc->src_qp != r->table[s].qpn) {
		data_error(&r->logged, &r->corrupt, "CORRUPT: message %u of participant "
			   "%u came from QP %u, not %u", k, s, wc->src_qp,
			   r->table[s].qpn);
		return 0;
	}
	rx = &r->rx[s];
	if (k >= rx->expect) {
		data_error(&r->logged, &r->corrupt, "CORRUPT: message %u from "
			   "participant %u, which sends us only %u", k, s,
			   rx->expect);
		return 0;
	}
	if (test_and_set(rx->seen, k)) {
		data_error(&r->logged, &r->duplicates, "DUPLICATE: message %u from "
			   "participant %u arrived again (%u bytes)", k, s,
			   wc->byte_len);
		return 0;
	}
	rx->got++;
	r->received++;
	r->bytes += wc->byte_len;
	key = rd_msg_key(o->seed, s, o->index, k);
	len = rd_msg_size(key, o->max_size, &cls);
	r->recv_cls[cls]++;
	if (wc->byte_len != len)
		data_error(&r->logged, &r->corrupt, "CORRUPT: message %u from "
			   "participant %u has %u bytes, %u expected", k, s,
			   wc->byte_len, len);
	else if (rd_check(buf, len, key, &mm))
		data_error(&r->logged, &r->corrupt, "CORRUPT: message %u from "
			   "participant %u (%u bytes): byte %u is 0x%02x, "
			   "0x%02x expected", k, s, len, mm.offset, mm.got,
			   mm.want);
	if (o->ordered) {
		if (k < rx->next)
			return add_late(rx, k);
		rx->next = k + 1;
	}
	return 0;
}

/*
 * The receive CQ's completions: messages, reposting their buffers, and
 * WRITE_WITH_IMM arrivals, which took no buffer.
 */
static int poll_recvs(struct run *r)
{
	struct ibv_wc wc[POLL_BATCH];
	uint32_t repost[POLL_BATCH];
	unsigned int nrepost = 0;
	int n, i;

	n = ibv_poll_cq(r->rcq, POLL_BATCH, wc);
	if (n < 0) {
		fail("ibv_poll_cq (receive CQ): returned %d", n);
		return -1;
	}
	for (i = 0; i < n; i++) {
		uint64_t id = wc[i].wr_id;

		if (wc[i].status == IBV_WC_SUCCESS &&
		    wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM) {
			check_arrival(r, &wc[i]);
			continue;
		}
		if (id >= r->o.recv_depth) {
			fail("a receive completion for work request %" PRIu64
			     ", which was never posted (status %s)", id,
			     ibv_wc_status_str(wc[i].status));
			return -1;
		}
		if (wc[i].status == IBV_WC_WR_FLUSH_ERR) {
			fail("receive buffer %" PRIu64 " flushed: the QP is in "
			     "the error state", id);
			return -1;
		}
		if (wc[i].status != IBV_WC_SUCCESS)
			data_error(&r->logged, &r->recv_errors, "a receive completed "
				   "with %s (status %d, vendor error 0x%x)",
				   ibv_wc_status_str(wc[i].status),
				   wc[i].status, wc[i].vendor_err);
		else if (check_message(r, &wc[i], r->rbuf + r->stride * id))
			return -1;
		repost[nrepost++] = (uint32_t)id;
	}
	if (post_recvs(r, repost, nrepost))
		return -1;
	return n;
}

/* ------------------------------------------------------------------ */
/* The run                                                              */
/* ------------------------------------------------------------------ */

static bool rdma_done_all(const struct run *r)
{
	return r->txn_done == (uint64_t)r->o.rdma_ops * r->nothers &&
	       r->imm_arrivals == r->imm_expect_total;
}

static bool locally_done(const struct run *r)
{
	return r->sent == r->o.messages && r->received == r->expect_total &&
	       rdma_done_all(r);
}

static uint64_t errors_so_far(const struct run *r)
{
	return r->duplicates + r->corrupt + r->recv_errors +
	       r->rdma_corrupt + r->rdma_duplicates;
}

/* Where our transactions and the others' arrivals stand. */
static void report_missing_rdma(const struct run *r)
{
	const struct opts *o = &r->o;
	unsigned int i, p;

	note("RDMA: %" PRIu64 " of %" PRIu64 " transactions complete, %"
	     PRIu64 " of %" PRIu64 " WRITE_WITH_IMM arrivals", r->txn_done,
	     (uint64_t)o->rdma_ops * r->nothers, r->imm_arrivals,
	     r->imm_expect_total);
	for (i = 0; i < r->nothers; i++) {
		const struct txn *x;

		p = r->others[i];
		x = &r->tx[p].txn;
		if (x->step != STEP_DONE)
			note("  with participant %u: transaction %u of %u, its "
			     "%s %s", p, x->t, o->rdma_ops, step_name[x->step],
			     x->posted ? "outstanding" : "not posted yet");
		if (r->rx[p].imm_got < r->rx[p].imm_expect)
			note("  from participant %u: %u of %u arrivals; next: "
			     "transaction %u", p, r->rx[p].imm_got,
			     r->rx[p].imm_expect, 2 * r->rx[p].imm_got + 1);
	}
}

static void report_missing(struct run *r)
{
	const struct opts *o = &r->o;
	char pending[256];
	unsigned int i;

	note("sends: %" PRIu64 " of %u complete, %u outstanding, %u waiting "
	     "to be sent again, %" PRIu64 " never posted", r->sent,
	     o->messages, r->outstanding, r->nretry,
	     o->messages - r->next_j);
	for (i = 0; i < r->nothers; i++) {
		const struct tx_dest *tx = &r->tx[r->others[i]];

		if (tx->completed < tx->total)
			note("  to participant %u: %u of %u complete",
			     r->others[i], tx->completed, tx->total);
	}
	note("receives: %" PRIu64 " of %" PRIu64 " arrived", r->received,
	     r->expect_total);
	for (i = 0; i < r->nothers; i++) {
		unsigned int s = r->others[i];
		const struct rx_src *rx = &r->rx[s];
		char list[MISSING_SHOWN * 10 + 32] = "";
		uint32_t k, shown = 0;
		size_t off = 0;

		if (rx->got == rx->expect)
			continue;
		for (k = 0; k < rx->expect && shown < MISSING_SHOWN; k++) {
			if (test_bit(rx->seen, k))
				continue;
			off += (size_t)snprintf(list + off, sizeof(list) - off,
						"%s%u", shown ? ", " : "", k);
			shown++;
		}
		note("  from participant %u: %u of %u; missing k = %s%s", s,
		     rx->got, rx->expect, list,
		     rx->expect - rx->got > shown ? ", ..." : "");
	}
	if (o->rdma_ops)
		report_missing_rdma(r);
	if (o->index == 0) {
		ctl_pending(&r->ctl, pending, sizeof(pending));
		note("the hub waits for participants %s to be done", pending);
	} else if (r->done_reported) {
		note("done here; waiting for the hub's release");
	}
}

static void progress(struct run *r, uint64_t now, uint64_t *last_t,
		     uint64_t *last_sent, uint64_t *last_recv)
{
	double dt = secs(now - *last_t);
	char rdma[128] = "";

	if (dt <= 0)
		dt = 1e-9;
	if (r->o.rdma_ops)
		snprintf(rdma, sizeof(rdma), " rdma transactions %" PRIu64 "/%"
			 PRIu64 " arrivals %" PRIu64 "/%" PRIu64, r->txn_done,
			 (uint64_t)r->o.rdma_ops * r->nothers, r->imm_arrivals,
			 r->imm_expect_total);
	note("%.0f s: sent %" PRIu64 "/%u received %" PRIu64 "/%" PRIu64
	     " (%.0f sent/s, %.0f received/s) rnr_resends %" PRIu64
	     "%s errors %" PRIu64, secs(now - r->t_data), r->sent,
	     r->o.messages, r->received, r->expect_total,
	     (double)(r->sent - *last_sent) / dt,
	     (double)(r->received - *last_recv) / dt, r->rnr_resends, rdma,
	     errors_so_far(r));
	*last_t = now;
	*last_sent = r->sent;
	*last_recv = r->received;
}

/*
 * A send failed.  If another participant failed first, its QP may be
 * gone, and that is the story: give the hub a second to say so.
 */
static int send_failed(struct run *r)
{
	uint64_t until = rd_now() + NS;
	enum ctl_state st = CTL_RUNNING;

	while (st == CTL_RUNNING && rd_now() < until)
		st = ctl_poll(&r->ctl, 100);
	if (st == CTL_ABORTED)
		fail("%s (then here: %s)", r->ctl.why, r->send_error);
	else
		fail("%s", r->send_error);
	return -1;
}

static int run_loop(struct run *r)
{
	uint64_t now = rd_now(), last_ctl = now, next_progress;
	uint64_t last_t = now, last_sent = 0, last_recv = 0;
	unsigned int idle = 0;

	next_progress = now + PROGRESS_NS;
	for (;;) {
		enum ctl_state st;
		int a, b, c, d;

		a = poll_recvs(r);
		if (a < 0)
			return -1;
		b = poll_sends(r);
		if (b == -2)
			return send_failed(r);
		if (b < 0)
			return -1;
		c = post_sends(r);
		if (c < 0)
			return -1;
		d = post_rdma(r);
		if (d < 0)
			return -1;
		idle = a + b + c + d ? 0 : idle + 1;
		now = rd_now();

		if (!r->done_reported && locally_done(r)) {
			struct rd_report rep = {
				.sent = (uint32_t)r->sent,
				.received = (uint32_t)r->received,
				.errors = (uint32_t)errors_so_far(r),
			};

			r->t_end = now;
			r->done_reported = true;
			r->ctl.deadline = r->deadline + DONE_GRACE_NS;
			note("done: all sent, all received%s, %" PRIu64
			     " errors; waiting for the others",
			     r->o.rdma_ops ? ", all transactions and arrivals" :
			     "", errors_so_far(r));
			if (ctl_done(&r->ctl, &rep, r->resent, r->nresent)) {
				fail("%s", r->ctl.why);
				return -1;
			}
			last_ctl = 0;	/* the hub may release at once */
		}
		if (idle > 64 || now - last_ctl >= CTL_EVERY_NS) {
			/* Idle: wait on the control sockets a little. */
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
			progress(r, now, &last_t, &last_sent, &last_recv);
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
	/* A duplicate may still be on its way: a last look. */
	for (int i = 0; i < 100; i++) {
		int n = poll_recvs(r);

		if (n < 0)
			return -1;
		if (!n)
			usleep(1000);
	}
	return 0;
}

/*
 * --ordered: a message overtaken by a later one from the same sender is
 * in order only if its first attempt met "receiver not ready" (the
 * sender told the hub, the hub told us).
 */
static int check_order(struct run *r)
{
	const struct opts *o = &r->o;
	uint64_t **resent;
	unsigned int i, s;
	uint32_t j;
	int ret = -1;

	if (!o->ordered)
		return 0;
	resent = calloc(o->peers, sizeof(*resent));
	if (!resent) {
		fail("out of memory checking the order");
		return -1;
	}
	for (i = 0; i < r->nothers; i++) {
		s = r->others[i];
		resent[s] = bitmap_new(r->rx[s].expect);
		if (!resent[s]) {
			fail("out of memory checking the order");
			goto out;
		}
	}
	for (j = 0; j < r->ctl.nto_me; j++) {
		const struct rd_pair *p = &r->ctl.to_me[j];

		if (p->peer >= o->peers || p->peer == o->index ||
		    p->k >= r->rx[p->peer].expect) {
			fail("the hub says participant %u resent us message %u, "
			     "which it never sends us", p->peer, p->k);
			goto out;
		}
		test_and_set(resent[p->peer], p->k);
	}
	for (i = 0; i < r->nothers; i++) {
		const struct rx_src *rx;

		s = r->others[i];
		rx = &r->rx[s];
		for (j = 0; j < rx->nlate; j++)
			if (!test_bit(resent[s], rx->late[j].k))
				data_error(&r->logged, &r->misordered, "MISORDERED: "
					   "message %u from participant %u "
					   "arrived after its message %u",
					   rx->late[j].k, s,
					   rx->late[j].after);
	}
	ret = 0;
out:
	for (s = 0; s < o->peers; s++)
		free(resent[s]);
	free(resent);
	return ret;
}

/* ------------------------------------------------------------------ */
/* Results                                                              */
/* ------------------------------------------------------------------ */

static void print_sizes(const struct run *r)
{
	const struct opts *o = &r->o;
	unsigned int c;

	printf("%s: index %u sizes (max %u): expected mean %.1f B, sent "
	       "%" PRIu64 " messages, mean %.1f B, %" PRIu64 " bytes; "
	       "received %" PRIu64 " bytes\n", RD_PROG, o->index, o->max_size,
	       rd_expected_mean(o->max_size), r->sent,
	       r->sent ? (double)r->sent_bytes / r->sent : 0.0, r->sent_bytes,
	       r->bytes);
	for (c = 0; c < RD_NCLASSES; c++) {
		uint32_t lo, hi;
		char range[32];

		rd_class_range(c, o->max_size, &lo, &hi);
		if (lo == hi)
			snprintf(range, sizeof(range), "%u", lo);
		else
			snprintf(range, sizeof(range), "%u-%u", lo, hi);
		printf("%s: index %u   %-16s %5.1f%% expected, sent %10" PRIu64
		       " (%5.2f%%), received %10" PRIu64 "\n", RD_PROG,
		       o->index, range,
		       100.0 * rd_classes[c].weight / RD_WEIGHT_TOTAL,
		       r->sent_cls[c],
		       r->sent ? 100.0 * r->sent_cls[c] / r->sent : 0.0,
		       r->recv_cls[c]);
	}
}

/* The one-sided figures, one object (zeros without --rdma-ops). */
static void json_rdma(FILE *f, const struct run *r)
{
	fprintf(f, "  \"rdma\": {\"ops\": %u, \"max_size\": %u, "
		"\"transactions\": %" PRIu64 ", \"writes\": %" PRIu64
		", \"reads\": %" PRIu64 ", \"bytes\": %" PRIu64 ",\n",
		r->o.rdma_ops, r->rdma_max, r->txn_done, r->rdma_writes,
		r->rdma_reads, r->rdma_bytes);
	fprintf(f, "           \"imm_expected\": %" PRIu64
		", \"imm_arrivals\": %" PRIu64 ", \"corrupt\": %" PRIu64
		", \"duplicates\": %" PRIu64 ",\n", r->imm_expect_total,
		r->imm_arrivals, r->rdma_corrupt, r->rdma_duplicates);
	fprintf(f, "           \"errors\": %" PRIu64 ", \"rnr_retries\": %"
		PRIu64 ", \"ack_polls\": %" PRIu64 "},\n", r->rdma_errors,
		r->rdma_rnr, r->ack_polls);
}

static int write_json(const struct run *r, bool passed, double seconds)
{
	const struct opts *o = &r->o;
	unsigned int c;
	FILE *f;

	f = fopen(o->json, "w");
	if (!f) {
		fail("--json %s: %s", o->json, strerror(errno));
		return -1;
	}
	fprintf(f, "{\n  \"program\": \"%s\",\n", RD_PROG);
	fprintf(f, "  \"index\": %u,\n  \"peers\": %u,\n", o->index,
		o->peers);
	fprintf(f, "  \"seed\": %" PRIu64 ",\n  \"max_size\": %u,\n",
		o->seed, o->max_size);
	fprintf(f, "  \"window\": %u,\n  \"recv_depth\": %u,\n", o->window,
		o->recv_depth);
	fprintf(f, "  \"ordered\": %s,\n", o->ordered ? "true" : "false");
	fprintf(f, "  \"messages\": %u,\n  \"sent\": %" PRIu64 ",\n",
		o->messages, r->sent);
	fprintf(f, "  \"sent_bytes\": %" PRIu64 ",\n", r->sent_bytes);
	fprintf(f, "  \"expected\": %" PRIu64 ",\n  \"received\": %" PRIu64
		",\n", r->expect_total, r->received);
	fprintf(f, "  \"bytes\": %" PRIu64 ",\n", r->bytes);
	fprintf(f, "  \"duplicates\": %" PRIu64 ",\n  \"lost\": %" PRIu64
		",\n", r->duplicates, r->lost);
	fprintf(f, "  \"corrupt\": %" PRIu64 ",\n  \"misordered\": %" PRIu64
		",\n", r->corrupt, r->misordered);
	fprintf(f, "  \"recv_errors\": %" PRIu64 ",\n", r->recv_errors);
	fprintf(f, "  \"rnr_resends\": %" PRIu64 ",\n", r->rnr_resends);
	json_rdma(f, r);
	fprintf(f, "  \"seconds\": %.3f,\n", seconds);
	fprintf(f, "  \"expected_mean_size\": %.3f,\n",
		rd_expected_mean(o->max_size));
	fprintf(f, "  \"sizes\": [\n");
	for (c = 0; c < RD_NCLASSES; c++) {
		uint32_t lo, hi;

		rd_class_range(c, o->max_size, &lo, &hi);
		fprintf(f, "    {\"lo\": %u, \"hi\": %u, \"probability\": %g, "
			"\"sent\": %" PRIu64 ", \"received\": %" PRIu64 "}%s\n",
			lo, hi, (double)rd_classes[c].weight / RD_WEIGHT_TOTAL,
			r->sent_cls[c], r->recv_cls[c],
			c + 1 < RD_NCLASSES ? "," : "");
	}
	fprintf(f, "  ],\n  \"passed\": %s,\n  \"failure\": ",
		passed ? "true" : "false");
	if (rd_failure[0])
		json_string(f, rd_failure);
	else
		fputs("null", f);
	fputs("\n}\n", f);
	if (ferror(f) | fclose(f)) {
		fail("--json %s: write error", o->json);
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tearing down                                                         */
/* ------------------------------------------------------------------ */

static void teardown(struct run *r)
{
	unsigned int p;
	int ret;

	if (r->qp) {
		ret = ibv_destroy_qp(r->qp);
		if (ret)
			fail("ibv_destroy_qp: %s", verr(ret));
	}
	if (r->tx) {
		for (p = 0; p < r->o.peers; p++) {
			if (r->tx[p].ah) {
				ret = ibv_destroy_ah(r->tx[p].ah);
				if (ret)
					fail("ibv_destroy_ah(participant %u): "
					     "%s", p, verr(ret));
			}
			free(r->tx[p].resent);
		}
	}
	if (r->smr) {
		ret = ibv_dereg_mr(r->smr);
		if (ret)
			fail("ibv_dereg_mr(send buffers): %s", verr(ret));
	}
	if (r->rmr) {
		ret = ibv_dereg_mr(r->rmr);
		if (ret)
			fail("ibv_dereg_mr(receive buffers): %s", verr(ret));
	}
	if (r->wmr) {
		ret = ibv_dereg_mr(r->wmr);
		if (ret)
			fail("ibv_dereg_mr(RDMA window): %s", verr(ret));
	}
	if (r->lmr) {
		ret = ibv_dereg_mr(r->lmr);
		if (ret)
			fail("ibv_dereg_mr(RDMA local slots): %s", verr(ret));
	}
	if (r->scq) {
		ret = ibv_destroy_cq(r->scq);
		if (ret)
			fail("ibv_destroy_cq(send): %s", verr(ret));
	}
	if (r->rcq) {
		ret = ibv_destroy_cq(r->rcq);
		if (ret)
			fail("ibv_destroy_cq(receive): %s", verr(ret));
	}
	if (r->pd) {
		ret = ibv_dealloc_pd(r->pd);
		if (ret)
			fail("ibv_dealloc_pd: %s", verr(ret));
	}
	rd_dev_close(&r->dv);
	if (r->rx)
		for (p = 0; p < r->o.peers; p++) {
			free(r->rx[p].seen);
			free(r->rx[p].late);
		}
	free(r->rx);
	free(r->tx);
	free(r->others);
	free(r->table);
	free(r->slots);
	free(r->free_slots);
	free(r->retry);
	free(r->resent);
	free(r->sbuf);
	free(r->rbuf);
	free(r->win);
	free(r->lbuf);
}

int main(int argc, char **argv)
{
	struct run run = { 0 }, *r = &run;
	char rdma_also[128] = "", rdma_failed[96] = "";
	struct rd_hello me;
	double seconds = 0;
	bool passed;
	unsigned int i;

	if (parse_opts(argc, argv, &r->o))
		return 2;
	rd_index = r->o.index;
	setvbuf(stdout, NULL, _IOLBF, 0);
	rd_signals();
	r->t_begin = rd_now();
	r->deadline = r->t_begin + (uint64_t)r->o.timeout * NS;
	note("participant %u of %u, seed %" PRIu64 ", %u messages, max-size "
	     "%u, window %u, recv-depth %u%s, rdma-ops %u; expected mean size "
	     "%.1f B", r->o.index, r->o.peers, r->o.seed, r->o.messages,
	     r->o.max_size, r->o.window, r->o.recv_depth,
	     r->o.ordered ? ", ordered" : "", r->o.rdma_ops,
	     rd_expected_mean(r->o.max_size));

	/* Meet first: a participant that then fails can say so. */
	r->ctl_opened = true;
	if (ctl_open(&r->ctl, r->o.peers, r->o.index, r->o.hub, r->o.port,
		     CONNECT_S, r->deadline)) {
		fail("%s", r->ctl.why);
		goto out;
	}
	if (setup_verbs(r) || post_all_recvs(r))
		goto out;
	r->table = calloc(r->o.peers, sizeof(*r->table));
	if (!r->table) {
		fail("out of memory for the table");
		goto out;
	}
	me = (struct rd_hello){
		.peers = r->o.peers,
		.index = r->o.index,
		.qpn = r->qp->qp_num,
		.ipv4 = r->dv.ipv4,
		.messages = r->o.messages,
		.max_size = r->o.max_size,
		.flags = r->o.ordered ? RD_HELLO_ORDERED : 0,
		.rdma_ops = r->o.rdma_ops,
		.rdma_max = r->rdma_max,
		.win_rkey = r->wmr ? r->wmr->rkey : 0,
		.win_addr = (uintptr_t)r->win,
		.seed = r->o.seed,
		.digest = rd_gen_digest(r->o.seed, r->o.max_size),
	};
	memcpy(me.gid, r->dv.gid.raw, sizeof(me.gid));
	note("qpn %u; %s", me.qpn, r->o.index ? "joining the hub" :
	     "the hub: waiting for the others");
	if (ctl_start(&r->ctl, &me, r->table)) {
		fail("%s", r->ctl.why);
		goto out;
	}
	if (setup_peers(r))
		goto out;
	r->t_data = rd_now();
	r->data_phase = true;
	if (run_loop(r))
		goto out;
	check_order(r);

out:
	if (rd_failure[0] && r->ctl_opened)
		ctl_fail(&r->ctl, rd_failure);
	if (r->data_phase) {
		if (!r->t_end)
			r->t_end = rd_now();
		seconds = secs(r->t_end - r->t_data);
		for (i = 0; i < r->nothers; i++)
			r->lost += r->rx[r->others[i]].expect -
				   r->rx[r->others[i]].got;
	}
	if (r->o.linger && r->qp) {
		/* The line a script waits for before it looks at the QP. */
		printf("%s: lingering %u s with qpn %u\n", RD_PROG,
		       r->o.linger, r->qp->qp_num);
		fflush(stdout);
		sleep(r->o.linger);
	}
	/* After the release: nobody sends to our QP any more. */
	teardown(r);

	passed = !rd_failure[0] && r->released && !r->duplicates && !r->lost &&
		 !r->corrupt && !r->recv_errors && !r->misordered &&
		 !r->rdma_corrupt && !r->rdma_duplicates;
	if (r->o.rdma_ops) {
		snprintf(rdma_also, sizeof(rdma_also), "; RDMA: %" PRIu64
			 " failed, %" PRIu64 " header polls, %" PRIu64
			 " RNR retries", r->rdma_errors, r->ack_polls,
			 r->rdma_rnr);
		snprintf(rdma_failed, sizeof(rdma_failed), ", %" PRIu64
			 " RDMA corrupt, %" PRIu64 " RDMA duplicates",
			 r->rdma_corrupt, r->rdma_duplicates);
	}
	if (r->data_phase) {
		print_sizes(r);
		printf("%s: index %u sent %" PRIu64 " received %" PRIu64
		       " bytes %" PRIu64 " duplicates %" PRIu64 " lost %" PRIu64
		       " corrupt %" PRIu64 " rnr_resends %" PRIu64
		       " in %.1f s\n", RD_PROG, r->o.index, r->sent,
		       r->received, r->bytes, r->duplicates, r->lost,
		       r->corrupt, r->rnr_resends, seconds);
		if (r->o.rdma_ops)
			printf("%s: index %u rdma writes %" PRIu64 " reads %"
			       PRIu64 " imm_arrivals %" PRIu64 " bytes %" PRIu64
			       " corrupt %" PRIu64 " duplicates %" PRIu64 "\n",
			       RD_PROG, r->o.index, r->rdma_writes,
			       r->rdma_reads, r->imm_arrivals, r->rdma_bytes,
			       r->rdma_corrupt, r->rdma_duplicates);
		printf("%s: index %u also: misordered %" PRIu64
		       "%s, receive errors %" PRIu64 ", %" PRIu64
		       " bytes sent%s\n", RD_PROG, r->o.index, r->misordered,
		       r->o.ordered ? "" : " (not checked: no --ordered)",
		       r->recv_errors, r->sent_bytes, rdma_also);
		if (r->released)
			for (i = 0; i < r->o.peers; i++)
				printf("%s: index %u   participant %u: sent %u "
				       "received %u errors %u\n", RD_PROG,
				       r->o.index, i, r->ctl.reports[i].sent,
				       r->ctl.reports[i].received,
				       r->ctl.reports[i].errors);
	}
	if (r->o.json && write_json(r, passed, seconds))
		passed = false;
	if (passed)
		printf("%s: index %u PASSED\n", RD_PROG, r->o.index);
	else if (rd_failure[0])
		printf("%s: index %u FAILED: %s\n", RD_PROG, r->o.index,
		       rd_failure);
	else
		printf("%s: index %u FAILED: %" PRIu64 " duplicates, %" PRIu64
		       " lost, %" PRIu64 " corrupt, %" PRIu64 " misordered, %"
		       PRIu64 " receive errors%s\n", RD_PROG, r->o.index,
		       r->duplicates, r->lost, r->corrupt, r->misordered,
		       r->recv_errors, rdma_failed);
	if (r->ctl_opened)
		ctl_close(&r->ctl);
	return passed ? 0 : 1;
}
