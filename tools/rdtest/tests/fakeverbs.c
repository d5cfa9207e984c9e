// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * A stand-in for libibverbs and libwren, just enough for wren_rd_stress
 * to run on the host without a device (tests/fake_test.sh): the "RD QP"
 * of a process is a UNIX socket in $FAKERD_DIR named by its QP number; a
 * send is a frame to the receiving QP's socket, and completes when the
 * receiver answers: placed in a posted receive, or "receiver not ready"
 * when none is posted.  RDMA WRITE (with immediate) and READ work the
 * same way on the responder's registered memory, checked against its
 * keys, rights and bounds as the device does.  Faults, on the sending
 * side, from the environment:
 *
 *   FAKERD_DUP_EVERY=N      every Nth message is delivered twice
 *   FAKERD_CORRUPT_EVERY=N  every Nth non-empty message has a byte flipped
 *   FAKERD_DROP_EVERY=N     every Nth message vanishes; its send succeeds
 *   FAKERD_SWAP_EVERY=N     every Nth message overtakes the one queued
 *                           before it on the same connection
 *   FAKERD_SEND_ERROR_AT=N  the Nth message completes with a remote error
 *   FAKERD_RDMA_DUP_EVERY=N      every Nth WRITE with immediate is
 *                                delivered twice
 *   FAKERD_RDMA_CORRUPT_EVERY=N  every Nth non-empty WRITE has a byte
 *                                flipped on the way
 *   FAKERD_RDMA_BADKEY_AT=N      the Nth one-sided operation goes with a
 *                                wrong key (the responder refuses it)
 *
 * This is test scaffolding: one device, one port, one QP per process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <infiniband/wrendv.h>

enum { F_DATA = 1, F_ACK, F_WRITE, F_READ, F_RESP };
enum { A_OK = 0, A_RNR = 1, A_ERR = 2, A_ACCESS = 3 };
#define FH_IMM		1U	/* a WRITE with immediate */

struct fhdr {
	uint32_t type;
	uint32_t src_qpn;
	uint32_t imm;		/* network order, as on the wire */
	uint32_t len;		/* the payload's */
	uint32_t status;
	uint32_t flags;		/* FH_* */
	uint64_t cookie;
	uint64_t raddr;		/* WRITE, READ: the responder's memory */
	uint32_t rkey;
	uint32_t rlen;		/* READ: the bytes to read */
};

struct out {
	struct out *next;
	size_t len, off;
	uint8_t buf[];
};

struct conn {
	int fd;
	uint32_t qpn;		/* the remote QP we send to; 0 if accepted */
	uint8_t *in;
	size_t in_len, in_cap;
	struct out *head, *tail;
};

struct fake_cq {
	struct ibv_cq cq;
	struct ibv_wc *wc;
	uint32_t head, count, cap;
};

struct wr {
	uint64_t wr_id;
	unsigned int flags;
	uint32_t type;		/* F_DATA, F_WRITE or F_READ */
	bool with_imm;
	uint32_t imm;
	uint32_t qpn;
	uint64_t addr;
	uint32_t len;
	uint64_t raddr;
	uint32_t rkey;
};

struct pend {
	uint64_t cookie;
	uint64_t wr_id;
	enum ibv_wc_opcode opcode;
	uint64_t laddr;		/* a READ's destination */
	uint32_t llen;
};

/* A registered region, for the responder's checks. */
struct fake_mr {
	struct ibv_mr mr;
	int access;
	struct fake_mr *next;
};

struct rq_entry {
	uint64_t wr_id;
	uint64_t addr;
	uint32_t len;
};

struct fake_qp {
	struct ibv_qp_ex qpx;
	struct fake_cq *scq, *rcq;
	int lfd;
	char path[108];
	struct conn **conns;
	unsigned int nconns;
	struct rq_entry *rq;
	uint32_t rq_head, rq_count, rq_cap;
	struct wr *batch;
	uint32_t nbatch, cap_batch;
	struct pend *pend;
	uint32_t npend, cap_pend;
	uint64_t next_cookie, nmsg, nrdma;
	uint64_t dup_every, corrupt_every, drop_every, swap_every, error_at;
	uint64_t rdma_dup_every, rdma_corrupt_every, rdma_badkey_at;
};

static struct fake_qp *g_qp;
static struct fake_mr *g_mrs;
static uint32_t g_next_key = 0x100;
static struct ibv_device g_dev = { .name = "fakerd0" };

static void *xzalloc(size_t n)
{
	void *p = calloc(1, n);

	if (!p) {
		fprintf(stderr, "fakeverbs: out of memory\n");
		abort();
	}
	return p;
}

static void grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	uint32_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return;
	while (c < need)
		c *= 2;
	*p = realloc(*p, (size_t)c * size);
	if (!*p) {
		fprintf(stderr, "fakeverbs: out of memory\n");
		abort();
	}
	*cap = c;
}

static uint64_t env_num(const char *name)
{
	const char *v = getenv(name);

	return v ? strtoull(v, NULL, 0) : 0;
}

/* ------------------------------------------------------------------ */
/* Completions                                                          */
/* ------------------------------------------------------------------ */

static void cq_push(struct fake_cq *cq, const struct ibv_wc *wc)
{
	if (cq->count == cq->cap) {
		uint32_t cap = cq->cap ? 2 * cq->cap : 64, i;
		struct ibv_wc *n = xzalloc(cap * sizeof(*n));

		for (i = 0; i < cq->count; i++)
			n[i] = cq->wc[(cq->head + i) % cq->cap];
		free(cq->wc);
		cq->wc = n;
		cq->head = 0;
		cq->cap = cap;
	}
	cq->wc[(cq->head + cq->count++) % cq->cap] = *wc;
}

static void send_done(struct fake_qp *qp, uint64_t wr_id,
		      enum ibv_wc_opcode opcode, enum ibv_wc_status st,
		      uint32_t byte_len)
{
	struct ibv_wc wc = {
		.wr_id = wr_id,
		.status = st,
		.opcode = opcode,
		.qp_num = qp->qpx.qp_base.qp_num,
		.vendor_err = st ? 0x42 : 0,
		.byte_len = byte_len,
	};

	cq_push(qp->scq, &wc);
}

/*
 * The memory a one-sided operation names, if a region of this process
 * with key @rkey grants @access over all of it; NULL otherwise.  Empty
 * operations touch nothing and are not checked, as on the device.
 */
static uint8_t *mr_range(uint32_t rkey, uint64_t addr, uint32_t len,
			 int access)
{
	struct fake_mr *m;
	uint64_t base;

	if (!len)
		return (uint8_t *)(uintptr_t)addr;
	for (m = g_mrs; m; m = m->next) {
		base = (uintptr_t)m->mr.addr;
		if (m->mr.rkey == rkey && (m->access & access) == access &&
		    addr >= base && addr - base <= m->mr.length &&
		    len <= m->mr.length - (addr - base))
			return (uint8_t *)(uintptr_t)addr;
	}
	return NULL;
}

/* ------------------------------------------------------------------ */
/* Connections                                                          */
/* ------------------------------------------------------------------ */

static void sock_path(char *buf, size_t len, uint32_t qpn)
{
	const char *dir = getenv("FAKERD_DIR");

	snprintf(buf, len, "%s/qp-%u", dir ? dir : "/tmp", qpn);
}

static struct conn *conn_add(struct fake_qp *qp, int fd, uint32_t qpn)
{
	struct conn *c = xzalloc(sizeof(*c));

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	c->fd = fd;
	c->qpn = qpn;
	qp->conns = realloc(qp->conns, (qp->nconns + 1) * sizeof(*qp->conns));
	if (!qp->conns)
		abort();
	qp->conns[qp->nconns++] = c;
	return c;
}

static void conn_free(struct conn *c)
{
	struct out *o, *n;

	for (o = c->head; o; o = n) {
		n = o->next;
		free(o);
	}
	close(c->fd);
	free(c->in);
	free(c);
}

static struct conn *conn_to(struct fake_qp *qp, uint32_t qpn)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	unsigned int i;
	int fd;

	for (i = 0; i < qp->nconns; i++)
		if (qp->conns[i]->qpn == qpn)
			return qp->conns[i];
	sock_path(a.sun_path, sizeof(a.sun_path), qpn);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	return conn_add(qp, fd, qpn);
}

static struct out *frame(const struct fhdr *h, const void *payload)
{
	struct out *o = xzalloc(sizeof(*o) + sizeof(*h) + h->len);

	memcpy(o->buf, h, sizeof(*h));
	if (h->len && payload)
		memcpy(o->buf + sizeof(*h), payload, h->len);
	o->len = sizeof(*h) + h->len;
	return o;
}

static void enqueue(struct conn *c, struct out *o, bool overtake)
{
	/* Overtake the last frame if it has not started on the wire. */
	if (overtake && c->tail && c->tail->off == 0) {
		struct out **pp = &c->head;

		while (*pp != c->tail)
			pp = &(*pp)->next;
		o->next = c->tail;
		*pp = o;
		return;
	}
	o->next = NULL;
	if (c->tail)
		c->tail->next = o;
	else
		c->head = o;
	c->tail = o;
}

static void answer(struct fake_qp *qp, struct conn *c, uint64_t cookie,
		   uint32_t status)
{
	struct fhdr h = {
		.type = F_ACK,
		.src_qpn = qp->qpx.qp_base.qp_num,
		.status = status,
		.cookie = cookie,
	};

	enqueue(c, frame(&h, NULL), false);
}

static void on_data(struct fake_qp *qp, struct conn *c, const struct fhdr *h,
		    const uint8_t *payload)
{
	struct rq_entry *e;
	struct ibv_wc wc = {
		.opcode = IBV_WC_RECV,
		.qp_num = qp->qpx.qp_base.qp_num,
		.src_qp = h->src_qpn,
		.wc_flags = IBV_WC_WITH_IMM,
		.imm_data = h->imm,
		.byte_len = h->len,
	};

	if (!qp->rq_count) {
		answer(qp, c, h->cookie, A_RNR);
		return;
	}
	e = &qp->rq[qp->rq_head];
	qp->rq_head = (qp->rq_head + 1) % qp->rq_cap;
	qp->rq_count--;
	wc.wr_id = e->wr_id;
	if (h->len > e->len) {
		wc.status = IBV_WC_LOC_LEN_ERR;
		cq_push(qp->rcq, &wc);
		answer(qp, c, h->cookie, A_ERR);
		return;
	}
	if (h->len)
		memcpy((void *)(uintptr_t)e->addr, payload, h->len);
	cq_push(qp->rcq, &wc);
	answer(qp, c, h->cookie, A_OK);
}

/* A WRITE: placed if the key allows, then answered like a send. */
static void on_write(struct fake_qp *qp, struct conn *c, const struct fhdr *h,
		     const uint8_t *payload)
{
	uint8_t *dst = mr_range(h->rkey, h->raddr, h->len,
				IBV_ACCESS_REMOTE_WRITE);
	struct ibv_wc wc = {
		.opcode = IBV_WC_RECV_RDMA_WITH_IMM,
		.qp_num = qp->qpx.qp_base.qp_num,
		.src_qp = h->src_qpn,
		.wc_flags = IBV_WC_WITH_IMM,
		.imm_data = h->imm,
		.byte_len = h->len,
	};

	if (!dst) {
		answer(qp, c, h->cookie, A_ACCESS);
		return;
	}
	if (h->len)
		memcpy(dst, payload, h->len);
	/* With immediate: a completion that takes no receive. */
	if (h->flags & FH_IMM)
		cq_push(qp->rcq, &wc);
	answer(qp, c, h->cookie, A_OK);
}

/* A READ: answered with the bytes, or refused. */
static void on_read(struct fake_qp *qp, struct conn *c, const struct fhdr *h)
{
	const uint8_t *src = mr_range(h->rkey, h->raddr, h->rlen,
				      IBV_ACCESS_REMOTE_READ);
	struct fhdr r = {
		.type = F_RESP,
		.src_qpn = qp->qpx.qp_base.qp_num,
		.len = h->rlen,
		.cookie = h->cookie,
	};

	if (!src) {
		answer(qp, c, h->cookie, A_ACCESS);
		return;
	}
	enqueue(c, frame(&r, src), false);
}

/* The work request a frame answers, taken off the list; or -1. */
static int pend_take(struct fake_qp *qp, uint64_t cookie, struct pend *p)
{
	uint32_t i;

	if (!cookie)
		return -1;	/* the copy of a duplicate */
	for (i = 0; i < qp->npend; i++) {
		if (qp->pend[i].cookie != cookie)
			continue;
		*p = qp->pend[i];
		qp->pend[i] = qp->pend[--qp->npend];
		return 0;
	}
	return -1;
}

static void on_ack(struct fake_qp *qp, const struct fhdr *h)
{
	struct pend p;

	if (pend_take(qp, h->cookie, &p))
		return;
	send_done(qp, p.wr_id, p.opcode,
		  h->status == A_OK ? IBV_WC_SUCCESS :
		  h->status == A_RNR ? IBV_WC_RNR_RETRY_EXC_ERR :
		  h->status == A_ACCESS ? IBV_WC_REM_ACCESS_ERR :
		  IBV_WC_REM_INV_REQ_ERR, 0);
}

static void on_resp(struct fake_qp *qp, const struct fhdr *h,
		    const uint8_t *payload)
{
	struct pend p;

	if (pend_take(qp, h->cookie, &p))
		return;
	if (h->len > p.llen) {
		send_done(qp, p.wr_id, p.opcode, IBV_WC_LOC_LEN_ERR, 0);
		return;
	}
	if (h->len)
		memcpy((void *)(uintptr_t)p.laddr, payload, h->len);
	send_done(qp, p.wr_id, p.opcode, IBV_WC_SUCCESS, h->len);
}

/* One whole frame that came on @c. */
static void on_frame(struct fake_qp *qp, struct conn *c, const struct fhdr *h,
		     const uint8_t *payload)
{
	switch (h->type) {
	case F_DATA:
		on_data(qp, c, h, payload);
		break;
	case F_WRITE:
		on_write(qp, c, h, payload);
		break;
	case F_READ:
		on_read(qp, c, h);
		break;
	case F_RESP:
		on_resp(qp, h, payload);
		break;
	default:
		on_ack(qp, h);
		break;
	}
}

/* Move what can move: accept, write, read, and act on whole frames. */
static void pump(struct fake_qp *qp)
{
	unsigned int i;
	int fd;

	while ((fd = accept4(qp->lfd, NULL, NULL,
			     SOCK_CLOEXEC | SOCK_NONBLOCK)) >= 0)
		conn_add(qp, fd, 0);
	for (i = 0; i < qp->nconns; i++) {
		struct conn *c = qp->conns[i];
		bool dead = false;
		size_t off = 0;

		while (c->head) {
			struct out *o = c->head;
			ssize_t n = send(c->fd, o->buf + o->off, o->len - o->off,
					 MSG_NOSIGNAL);

			if (n <= 0)
				break;
			o->off += (size_t)n;
			if (o->off < o->len)
				break;
			c->head = o->next;
			if (!c->head)
				c->tail = NULL;
			free(o);
		}
		for (;;) {
			ssize_t n;

			if (c->in_cap - c->in_len < 65536) {
				c->in_cap = c->in_cap ? 2 * c->in_cap : 1 << 20;
				c->in = realloc(c->in, c->in_cap);
				if (!c->in)
					abort();
			}
			n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len,
				 0);
			if (n == 0)
				dead = true;
			if (n <= 0)
				break;
			c->in_len += (size_t)n;
		}
		while (c->in_len - off >= sizeof(struct fhdr)) {
			struct fhdr h;

			memcpy(&h, c->in + off, sizeof(h));
			if (c->in_len - off < sizeof(h) + h.len)
				break;
			on_frame(qp, c, &h, c->in + off + sizeof(h));
			off += sizeof(h) + h.len;
		}
		memmove(c->in, c->in + off, c->in_len - off);
		c->in_len -= off;
		if (dead && !c->head) {
			conn_free(c);
			qp->conns[i--] = qp->conns[--qp->nconns];
		}
	}
}

/* ------------------------------------------------------------------ */
/* The work request API                                                 */
/* ------------------------------------------------------------------ */

static struct fake_qp *fqp(struct ibv_qp_ex *qpx)
{
	return (struct fake_qp *)qpx;
}

static void fake_wr_start(struct ibv_qp_ex *qpx)
{
	fqp(qpx)->nbatch = 0;
}

/* The batch's next work request, of frame type @type. */
static struct wr *wr_new(struct ibv_qp_ex *qpx, uint32_t type)
{
	struct fake_qp *qp = fqp(qpx);
	struct wr *w;

	grow((void **)&qp->batch, &qp->cap_batch, qp->nbatch + 1,
	     sizeof(*qp->batch));
	w = &qp->batch[qp->nbatch++];
	memset(w, 0, sizeof(*w));
	w->wr_id = qpx->wr_id;
	w->flags = qpx->wr_flags;
	w->type = type;
	return w;
}

static void fake_wr_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	wr_new(qpx, F_DATA)->imm = imm;
}

static void fake_wr_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey,
			       uint64_t raddr)
{
	struct wr *w = wr_new(qpx, F_WRITE);

	w->rkey = rkey;
	w->raddr = raddr;
}

static void fake_wr_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey,
				   uint64_t raddr, __be32 imm)
{
	struct wr *w = wr_new(qpx, F_WRITE);

	w->rkey = rkey;
	w->raddr = raddr;
	w->with_imm = true;
	w->imm = imm;
}

static void fake_wr_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey,
			      uint64_t raddr)
{
	struct wr *w = wr_new(qpx, F_READ);

	w->rkey = rkey;
	w->raddr = raddr;
}

static void fake_wr_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah,
				uint32_t qpn, uint32_t qkey)
{
	struct fake_qp *qp = fqp(qpx);

	(void)ah;
	(void)qkey;
	if (qp->nbatch)
		qp->batch[qp->nbatch - 1].qpn = qpn;
}

static void fake_wr_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey,
			    uint64_t addr, uint32_t len)
{
	struct fake_qp *qp = fqp(qpx);

	(void)lkey;
	if (qp->nbatch) {
		qp->batch[qp->nbatch - 1].addr = addr;
		qp->batch[qp->nbatch - 1].len = len;
	}
}

static void fake_wr_set_sge_list(struct ibv_qp_ex *qpx, size_t n,
				 const struct ibv_sge *sge)
{
	if (n == 1)
		fake_wr_set_sge(qpx, sge->lkey, sge->addr, sge->length);
	else if (n == 0)
		fake_wr_set_sge(qpx, 0, 0, 0);
}

static void fake_wr_abort(struct ibv_qp_ex *qpx)
{
	fqp(qpx)->nbatch = 0;
}

static bool every(uint64_t n, uint64_t period)
{
	return period && n % period == 0;
}

/* Wait for the answer to the frame just numbered qp->next_cookie. */
static void pend_add(struct fake_qp *qp, const struct wr *w,
		     enum ibv_wc_opcode opcode)
{
	grow((void **)&qp->pend, &qp->cap_pend, qp->npend + 1,
	     sizeof(*qp->pend));
	qp->pend[qp->npend++] = (struct pend){
		.cookie = qp->next_cookie,
		.wr_id = w->wr_id,
		.opcode = opcode,
		.laddr = w->addr,
		.llen = w->len,
	};
}

static void post_send(struct fake_qp *qp, const struct wr *w)
{
	struct fhdr h = {
		.type = F_DATA,
		.src_qpn = qp->qpx.qp_base.qp_num,
		.imm = w->imm,
		.len = w->len,
	};
	struct conn *c;
	struct out *o;
	uint64_t n = ++qp->nmsg;

	if (n == qp->error_at) {
		send_done(qp, w->wr_id, IBV_WC_SEND, IBV_WC_REM_OP_ERR, 0);
		return;
	}
	if (every(n, qp->drop_every)) {
		send_done(qp, w->wr_id, IBV_WC_SEND, IBV_WC_SUCCESS, 0);
		return;
	}
	c = conn_to(qp, w->qpn);
	if (!c) {
		send_done(qp, w->wr_id, IBV_WC_SEND, IBV_WC_RETRY_EXC_ERR, 0);
		return;
	}
	h.cookie = ++qp->next_cookie;
	o = frame(&h, (const void *)(uintptr_t)w->addr);
	if (w->len && every(n, qp->corrupt_every))
		o->buf[sizeof(h) + w->len / 2] ^= 0x10;
	enqueue(c, o, every(n, qp->swap_every));
	if (every(n, qp->dup_every)) {
		h.cookie = 0;
		enqueue(c, frame(&h, (const void *)(uintptr_t)w->addr), false);
	}
	pend_add(qp, w, IBV_WC_SEND);
}

/* A WRITE carries its payload; a READ asks for w->len bytes. */
static void post_rdma(struct fake_qp *qp, const struct wr *w)
{
	bool write = w->type == F_WRITE;
	enum ibv_wc_opcode opcode = write ? IBV_WC_RDMA_WRITE :
					    IBV_WC_RDMA_READ;
	struct fhdr h = {
		.type = w->type,
		.src_qpn = qp->qpx.qp_base.qp_num,
		.imm = w->imm,
		.len = write ? w->len : 0,
		.flags = w->with_imm ? FH_IMM : 0,
		.raddr = w->raddr,
		.rkey = w->rkey,
		.rlen = write ? 0 : w->len,
	};
	uint64_t n = ++qp->nrdma;
	struct conn *c;
	struct out *o;

	c = conn_to(qp, w->qpn);
	if (!c) {
		send_done(qp, w->wr_id, opcode, IBV_WC_RETRY_EXC_ERR, 0);
		return;
	}
	if (n == qp->rdma_badkey_at)
		h.rkey ^= 0x8000;
	h.cookie = ++qp->next_cookie;
	o = frame(&h, write ? (const void *)(uintptr_t)w->addr : NULL);
	if (write && w->len && every(n, qp->rdma_corrupt_every))
		o->buf[sizeof(h) + w->len / 2] ^= 0x10;
	enqueue(c, o, false);
	if (w->with_imm && every(n, qp->rdma_dup_every)) {
		h.cookie = 0;
		enqueue(c, frame(&h, (const void *)(uintptr_t)w->addr), false);
	}
	pend_add(qp, w, opcode);
}

static int fake_wr_complete(struct ibv_qp_ex *qpx)
{
	struct fake_qp *qp = fqp(qpx);
	uint32_t i;

	for (i = 0; i < qp->nbatch; i++) {
		if (qp->batch[i].type == F_DATA)
			post_send(qp, &qp->batch[i]);
		else
			post_rdma(qp, &qp->batch[i]);
	}
	qp->nbatch = 0;
	pump(qp);
	return 0;
}

static int fake_poll_cq(struct ibv_cq *ibcq, int num, struct ibv_wc *wc)
{
	struct fake_cq *cq = (struct fake_cq *)ibcq;
	int n = 0;

	if (g_qp)
		pump(g_qp);
	while (n < num && cq->count) {
		wc[n++] = cq->wc[cq->head];
		cq->head = (cq->head + 1) % cq->cap;
		cq->count--;
	}
	return n;
}

static int fake_post_recv(struct ibv_qp *ibqp, struct ibv_recv_wr *wr,
			  struct ibv_recv_wr **bad)
{
	struct fake_qp *qp = (struct fake_qp *)ibqp;

	for (; wr; wr = wr->next) {
		if (wr->num_sge != 1) {
			*bad = wr;
			return EINVAL;
		}
		if (qp->rq_count == qp->rq_cap) {
			/* Grow, unrolling the ring. */
			uint32_t cap = qp->rq_cap ? 2 * qp->rq_cap : 64, i;
			struct rq_entry *n = xzalloc(cap * sizeof(*n));

			for (i = 0; i < qp->rq_count; i++)
				n[i] = qp->rq[(qp->rq_head + i) % qp->rq_cap];
			free(qp->rq);
			qp->rq = n;
			qp->rq_head = 0;
			qp->rq_cap = cap;
		}
		qp->rq[(qp->rq_head + qp->rq_count++) % qp->rq_cap] =
			(struct rq_entry){ wr->wr_id, wr->sg_list[0].addr,
					   wr->sg_list[0].length };
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* The verbs wren_rd_stress calls                                       */
/* ------------------------------------------------------------------ */

struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **l = xzalloc(2 * sizeof(*l));

	l[0] = &g_dev;
	*num = 1;
	return l;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct ibv_context *ctx = xzalloc(sizeof(*ctx));

	ctx->device = dev;
	ctx->ops.poll_cq = fake_poll_cq;
	ctx->ops.post_recv = fake_post_recv;
	return ctx;
}

int ibv_close_device(struct ibv_context *ctx)
{
	free(ctx);
	return 0;
}

int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *a)
{
	(void)ctx;
	memset(a, 0, sizeof(*a));
	a->max_cqe = 4096;
	a->max_qp_wr = 4096;
	a->max_mr_size = 1ULL << 40;
	return 0;
}

int wrendv_query_device(struct ibv_context *ctx,
			struct wrendv_device_attr *a, uint32_t inlen)
{
	(void)ctx;
	memset(a, 0, inlen);
	a->max_sq_wr = 4096;
	a->max_rq_wr = 4096;
	a->max_sq_sge = 5;
	a->max_rq_sge = 3;
	a->device_caps = WRENDV_DEVICE_CAP_RD | WRENDV_DEVICE_CAP_RD_ORDERED |
			 WRENDV_DEVICE_CAP_RDMA_WRITE |
			 WRENDV_DEVICE_CAP_RDMA_READ;
	a->max_rd_msg_size = 1U << 30;
	a->max_rdma_size = 1U << 30;
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
	return 0;
}

int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index,
		  union ibv_gid *gid)
{
	(void)ctx;
	if (port != 1 || index != 0) {
		errno = EINVAL;
		return -1;
	}
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = gid->raw[11] = 0xff;
	gid->raw[12] = 198;
	gid->raw[13] = 18;
	gid->raw[14] = (uint8_t)(getpid() >> 8);
	gid->raw[15] = (uint8_t)getpid();
	return 0;
}

const char *ibv_port_state_str(enum ibv_port_state s)
{
	return s == IBV_PORT_ACTIVE ? "PORT_ACTIVE" : "PORT_DOWN";
}

const char *ibv_wc_status_str(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS: return "success";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "RNR retry counter exceeded";
	case IBV_WC_REM_OP_ERR: return "remote operation error";
	case IBV_WC_LOC_LEN_ERR: return "local length error";
	case IBV_WC_REM_ACCESS_ERR: return "remote access error";
	default: return "some error";
	}
}

struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	struct ibv_pd *pd = xzalloc(sizeof(*pd));

	pd->context = ctx;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_ctx,
			     struct ibv_comp_channel *ch, int vec)
{
	struct fake_cq *cq = xzalloc(sizeof(*cq));

	(void)cq_ctx;
	(void)ch;
	(void)vec;
	cq->cq.context = ctx;
	cq->cq.cqe = cqe;
	return &cq->cq;
}

int ibv_destroy_cq(struct ibv_cq *ibcq)
{
	struct fake_cq *cq = (struct fake_cq *)ibcq;

	free(cq->wc);
	free(cq);
	return 0;
}

struct ibv_mr *(ibv_reg_mr)(struct ibv_pd *pd, void *addr, size_t len,
			    int access)
{
	struct fake_mr *m = xzalloc(sizeof(*m));

	m->mr.pd = pd;
	m->mr.context = pd->context;
	m->mr.addr = addr;
	m->mr.length = len;
	m->mr.lkey = g_next_key;
	m->mr.rkey = g_next_key++;
	m->access = access;
	m->next = g_mrs;
	g_mrs = m;
	return &m->mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct fake_mr **pp;

	for (pp = &g_mrs; *pp; pp = &(*pp)->next) {
		if (&(*pp)->mr == mr) {
			struct fake_mr *m = *pp;

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

struct ibv_qp *wrendv_create_qp(struct ibv_context *ctx,
				struct ibv_qp_init_attr_ex *attr,
				struct wrendv_qp_init_attr *dattr,
				uint32_t inlen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct fake_qp *qp;

	(void)inlen;
	if (attr->qp_type != IBV_QPT_DRIVER ||
	    dattr->driver_qp_type != WRENDV_QP_DRIVER_TYPE_RD ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_PD) ||
	    !(attr->send_ops_flags & IBV_QP_EX_WITH_SEND_WITH_IMM) || g_qp) {
		errno = EINVAL;
		return NULL;
	}
	qp = xzalloc(sizeof(*qp));
	qp->qpx.qp_base.context = ctx;
	qp->qpx.qp_base.pd = attr->pd;
	qp->qpx.qp_base.qp_type = IBV_QPT_DRIVER;
	qp->qpx.qp_base.qp_num = (uint32_t)getpid() & 0xffffff;
	qp->qpx.wr_start = fake_wr_start;
	qp->qpx.wr_complete = fake_wr_complete;
	qp->qpx.wr_abort = fake_wr_abort;
	qp->qpx.wr_send_imm = fake_wr_send_imm;
	if (attr->send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE)
		qp->qpx.wr_rdma_write = fake_wr_rdma_write;
	if (attr->send_ops_flags & IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM)
		qp->qpx.wr_rdma_write_imm = fake_wr_rdma_write_imm;
	if (attr->send_ops_flags & IBV_QP_EX_WITH_RDMA_READ)
		qp->qpx.wr_rdma_read = fake_wr_rdma_read;
	qp->qpx.wr_set_ud_addr = fake_wr_set_ud_addr;
	qp->qpx.wr_set_sge = fake_wr_set_sge;
	qp->qpx.wr_set_sge_list = fake_wr_set_sge_list;
	qp->scq = (struct fake_cq *)attr->send_cq;
	qp->rcq = (struct fake_cq *)attr->recv_cq;
	qp->dup_every = env_num("FAKERD_DUP_EVERY");
	qp->corrupt_every = env_num("FAKERD_CORRUPT_EVERY");
	qp->drop_every = env_num("FAKERD_DROP_EVERY");
	qp->swap_every = env_num("FAKERD_SWAP_EVERY");
	qp->error_at = env_num("FAKERD_SEND_ERROR_AT");
	qp->rdma_dup_every = env_num("FAKERD_RDMA_DUP_EVERY");
	qp->rdma_corrupt_every = env_num("FAKERD_RDMA_CORRUPT_EVERY");
	qp->rdma_badkey_at = env_num("FAKERD_RDMA_BADKEY_AT");
	sock_path(qp->path, sizeof(qp->path), qp->qpx.qp_base.qp_num);
	memcpy(a.sun_path, qp->path, sizeof(a.sun_path));
	unlink(qp->path);
	qp->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			 0);
	if (qp->lfd < 0 || bind(qp->lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(qp->lfd, 64)) {
		int e = errno;

		if (qp->lfd >= 0)
			close(qp->lfd);
		free(qp);
		errno = e;
		return NULL;
	}
	g_qp = qp;
	return &qp->qpx.qp_base;
}

struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	return (struct ibv_qp_ex *)qp;
}

int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	(void)qp;
	(void)attr;
	(void)mask;
	return 0;
}

int ibv_destroy_qp(struct ibv_qp *ibqp)
{
	struct fake_qp *qp = (struct fake_qp *)ibqp;
	unsigned int i;

	for (i = 0; i < qp->nconns; i++)
		conn_free(qp->conns[i]);
	free(qp->conns);
	close(qp->lfd);
	unlink(qp->path);
	free(qp->rq);
	free(qp->batch);
	free(qp->pend);
	free(qp);
	g_qp = NULL;
	return 0;
}
