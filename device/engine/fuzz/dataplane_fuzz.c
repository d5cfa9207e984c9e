// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: a hostile driver on the data path.
 *
 * Each input starts from a device a driver brought up (admin queues, a
 * PD, two regions over data pages, a page list, two CQs, an RD, a UD and
 * an RC QP in RTS, the RC QP connected to itself, an SRQ, address
 * handles to itself and to a peer) and is read as a script of guest
 * operations: send and receive entries written into the rings (raw bytes
 * or built from a few fields: opcode, flags, SGEs naming the keys, the
 * remote address), doorbells rung with any value, admin commands built
 * from fields (modify QP to any state and attributes, register regions
 * over any pages, destroy and create QPs and CQs, resize, SRQ limits),
 * bytes written into rings and data pages, completions consumed, frames
 * the device sent to the peer mutated and handed back as the peer's,
 * time moved on.
 *
 * Beyond AddressSanitizer and UBSan: guest memory that nothing ever
 * named (no command, no page list, no ring) is guarded, and a device
 * that reads or writes it has gone where the guest never pointed it: the
 * target aborts.  Every address the input names is kept out of it, so
 * only the device's own mistake reaches it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"
#include "../tests/fake_env.h"

/* Guest memory: see the layout in each #define's comment. */
#define AQ		(FAKE_MEM_BASE + 0x00000)	/* admin rings */
#define ACQ		(FAKE_MEM_BASE + 0x01000)
#define AEQ		(FAKE_MEM_BASE + 0x02000)
#define CQ_RING(i)	(FAKE_MEM_BASE + 0x10000 + 0x2000 * (i)) /* 4 */
#define SQ_RING(i)	(FAKE_MEM_BASE + 0x20000 + 0x8000 * (i))
#define RQ_RING(i)	(SQ_RING(i) + 0x4000)
#define SRQ_RING	(FAKE_MEM_BASE + 0x40000)
#define RINGS_LO	CQ_RING(0)			/* ... to PBL */
#define PBL		(FAKE_MEM_BASE + 0x50000)	/* page lists */
#define DATA		(FAKE_MEM_BASE + 0x60000)	/* 32 pages */
#define DATA_PAGES	32
#define GUARD_LO	(FAKE_MEM_BASE + 0x80000)	/* never named */
#define GUARD_HI	(FAKE_MEM_BASE + 0xc0000)
#define IOVA		0x500000000000ULL
#define AQ_LOG		4
#define NQP		3
#define CQ_LOG		6
#define QP_LOG		5
#define PEER_IP		0xc6120002

struct qp {
	uint32_t qpn;
	uint8_t type;
	uint8_t sq_shift, rq_shift;
	uint32_t sq_db, rq_db;
	uint16_t sq_pi, rq_pi;
	bool live;
};

struct fz {
	struct fake_env env;
	struct weng *e;
	uint16_t aq_tail, acq_head;
	uint32_t pdn;
	uint32_t keys[4];	/* lkey, rkey of the two regions */
	uint32_t cqn[2], cq_db[2], cq_ci[2];
	uint32_t ah_self, ah_peer;
	uint32_t srqn, srq_db;
	uint16_t srq_pi;
	struct qp qp[NQP];
	uint16_t cmd_id;
};

static const uint8_t *in;
static size_t left;

static bool take(void *buf, size_t n)
{
	if (left < n)
		return false;
	memcpy(buf, in, n);
	in += n;
	left -= n;
	return true;
}

static uint8_t byte(void)
{
	uint8_t b = 0;

	take(&b, 1);
	return b;
}

static uint16_t word(void)
{
	return byte() | byte() << 8;
}

static uint32_t dword(void)
{
	return word() | (uint32_t)word() << 16;
}

/* ---- admin queue --------------------------------------------------------- */

static uint8_t lap_phase(uint32_t index, unsigned int log)
{
	return !((index >> log) & 1);
}

/* Run @cmd: its status (0xff: no completion), results in @res. */
static uint8_t run(struct fz *f, struct wren_admin_cmd *cmd, uint32_t res[4])
{
	uint32_t slot = f->aq_tail & ((1U << AQ_LOG) - 1);
	struct wren_admin_cqe *c;

	cmd->hdr.cmd_id = wren_to_le16(f->cmd_id++);
	cmd->hdr.flags = (cmd->hdr.flags & ~WREN_ADMIN_FLAG_PHASE) |
			 lap_phase(f->aq_tail, AQ_LOG);
	memcpy(fake_env_ptr(&f->env, AQ + slot * sizeof(*cmd), sizeof(*cmd)),
	       cmd, sizeof(*cmd));
	f->aq_tail++;
	weng_reg_write(f->e, WREN_REG_AQ_DB, f->aq_tail, 4);
	slot = f->acq_head & ((1U << AQ_LOG) - 1);
	c = fake_env_ptr(&f->env, ACQ + slot * sizeof(*c), sizeof(*c));
	if ((c->flags & WREN_ADMIN_FLAG_PHASE) != lap_phase(f->acq_head, AQ_LOG))
		return 0xff;
	f->acq_head++;
	for (int i = 0; res && i < 4; i++)
		res[i] = wren_le32(c->result[i]);
	return c->status;
}

static void *cmd_init(struct wren_admin_cmd *cmd, uint8_t opcode)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = opcode;
	return cmd->payload;
}

/* Clear the fields @mask does not name, as a driver does. */
static void only_named(struct wren_cmd_modify_qp *m, uint32_t mask)
{
	if (!(mask & WREN_QP_ATTR_QKEY))
		m->qkey = 0;
	if (!(mask & WREN_QP_ATTR_DEST)) {
		m->dest_qpn = 0;
		m->dest_ipv4 = 0;
		memset(m->dest_mac, 0, sizeof(m->dest_mac));
	}
	if (!(mask & WREN_QP_ATTR_RQ_PSN))
		m->rq_psn = 0;
	if (!(mask & WREN_QP_ATTR_SQ_PSN))
		m->sq_psn = 0;
	if (!(mask & WREN_QP_ATTR_RNR))
		m->min_rnr_timer = m->rnr_retry = 0;
	if (!(mask & WREN_QP_ATTR_ACCESS))
		m->access = 0;
}

static uint8_t modify(struct fz *f, uint32_t qpn, uint32_t mask, uint8_t state,
		      const struct wren_cmd_modify_qp *more, bool named)
{
	struct wren_admin_cmd cmd;
	struct wren_cmd_modify_qp *m = cmd_init(&cmd, WREN_ADMIN_MODIFY_QP);

	if (more)
		*m = *more;
	if (named)
		only_named(m, mask);
	m->qpn = wren_to_le32(qpn);
	m->attr_mask = wren_to_le32(mask);
	m->state = state;
	return run(f, &cmd, NULL);
}

static void qp_create(struct fz *f, int i, uint8_t type, bool srq,
		      uint8_t sq_shift, uint8_t rq_shift)
{
	struct wren_admin_cmd cmd;
	struct wren_cmd_create_qp *c = cmd_init(&cmd, WREN_ADMIN_CREATE_QP);
	struct qp *q = &f->qp[i];
	uint32_t res[4];

	c->sq_base = wren_to_le64(SQ_RING(i));
	c->rq_base = wren_to_le64(RQ_RING(i));
	c->pdn = wren_to_le32(f->pdn);
	c->send_cq = wren_to_le32(f->cqn[i & 1]);
	c->recv_cq = wren_to_le32(f->cqn[0]);
	c->db_page = wren_to_le32(1);
	c->type = type;
	c->sq_log_depth = QP_LOG;
	c->rq_log_depth = QP_LOG;
	c->sq_wqe_shift = sq_shift;
	c->rq_wqe_shift = rq_shift;
	if (srq) {
		c->rq_base = 0;
		c->rq_log_depth = 0;
		c->rq_wqe_shift = 0;
		c->srqn = wren_to_le32(f->srqn);
		c->flags = WREN_QP_FLAG_SRQ;
	}
	memset(q, 0, sizeof(*q));
	q->type = type;
	q->sq_shift = sq_shift;
	q->rq_shift = rq_shift;
	if (run(f, &cmd, res) != WREN_STATUS_SUCCESS)
		return;
	q->live = true;
	q->qpn = res[0];
	q->sq_db = WREN_DB_PAGE_SIZE + res[1];
	q->rq_db = WREN_DB_PAGE_SIZE + res[2];
}

/* To RTS: UD and RD with a Q_Key, RC connected to @peer_qpn on itself. */
static void qp_up(struct fz *f, struct qp *q, uint32_t peer_qpn)
{
	struct wren_cmd_modify_qp m;

	memset(&m, 0, sizeof(m));
	m.qkey = wren_to_le32(0x11111111);
	m.access = WREN_MR_ACCESS_REMOTE_WRITE | WREN_MR_ACCESS_REMOTE_READ |
		   WREN_MR_ACCESS_REMOTE_ATOMIC;
	m.dest_qpn = wren_to_le32(peer_qpn);
	m.dest_ipv4 = htobe32(0xc6120001);
	m.min_rnr_timer = 1;
	m.rnr_retry = 7;
	if (q->type == WREN_QPT_RC) {
		modify(f, q->qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_ACCESS,
		       WREN_QPS_INIT, &m, true);
		modify(f, q->qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_DEST |
		       WREN_QP_ATTR_RQ_PSN | WREN_QP_ATTR_RNR, WREN_QPS_RTR, &m, true);
		modify(f, q->qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_SQ_PSN,
		       WREN_QPS_RTS, &m, true);
		return;
	}
	modify(f, q->qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_QKEY,
	       WREN_QPS_INIT, &m, true);
	modify(f, q->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTR, &m, true);
	modify(f, q->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTS, &m, true);
}

/* A page of the data window, or (rarely) somewhere no memory is. */
static uint64_t page_addr(uint8_t sel)
{
	if (sel >= 0xf8)
		return 0x7f0000000000ULL + sel * 4096ULL;
	return DATA + (sel % DATA_PAGES) * 4096ULL;
}

/* REG_MR over @npages pages of the list at @list; the keys, or 0. */
static uint8_t reg_mr(struct fz *f, uint64_t iova, uint64_t len,
		      uint32_t npages, uint8_t shift, uint32_t list,
		      uint8_t access, uint8_t flags, uint32_t res[4])
{
	struct wren_admin_cmd cmd;
	struct wren_cmd_reg_mr *c = cmd_init(&cmd, WREN_ADMIN_REG_MR);

	c->iova = wren_to_le64(iova);
	c->length = wren_to_le64(len);
	c->pbl_addr = wren_to_le64(PBL + 8ULL * list);
	c->pdn = wren_to_le32(f->pdn);
	c->npages = wren_to_le32(npages);
	c->page_shift = shift;
	c->access = access;
	c->key_tag = 7;
	c->flags = flags;
	return run(f, &cmd, res);
}

static void pbl_set(struct fz *f, uint32_t i, uint64_t addr)
{
	uint64_t v = wren_to_le64(addr);

	memcpy(fake_env_ptr(&f->env, PBL + 8ULL * i, 8), &v, 8);
}

static void setup(struct fz *f)
{
	struct weng_config cfg;
	struct wren_admin_cmd cmd;
	uint32_t res[4];

	memset(f, 0, sizeof(*f));
	fake_env_init(&f->env);
	f->env.guard_lo = GUARD_LO;
	f->env.guard_hi = GUARD_HI;
	weng_config_defaults(&cfg);
	cfg.max_qp = 8;
	cfg.max_cq = 4;
	cfg.max_mr = 8;
	cfg.max_ah = 4;
	cfg.max_pd = 4;
	cfg.max_srq = 2;
	cfg.max_counter_set = 2;
	cfg.db_page_count = 4;
	cfg.max_qp_depth = 64;
	cfg.max_cq_depth = 64;
	cfg.max_eq_depth = 64;
	cfg.tc_cache = 8;
	cfg.tc_rx_cache = 8;
	cfg.max_rd_atom = 4;
	f->e = weng_create(&cfg, &fake_env_ops, &f->env);
	if (!f->e)
		abort();
	weng_reg_write(f->e, WREN_REG_AQ_BASE_LO, (uint32_t)AQ, 4);
	weng_reg_write(f->e, WREN_REG_AQ_BASE_HI, AQ >> 32, 4);
	weng_reg_write(f->e, WREN_REG_AQ_CFG, AQ_LOG, 4);
	weng_reg_write(f->e, WREN_REG_ACQ_BASE_LO, (uint32_t)ACQ, 4);
	weng_reg_write(f->e, WREN_REG_ACQ_BASE_HI, ACQ >> 32, 4);
	weng_reg_write(f->e, WREN_REG_ACQ_CFG, AQ_LOG, 4);
	weng_reg_write(f->e, WREN_REG_AEQ_BASE_LO, (uint32_t)AEQ, 4);
	weng_reg_write(f->e, WREN_REG_AEQ_BASE_HI, AEQ >> 32, 4);
	weng_reg_write(f->e, WREN_REG_AEQ_CFG, 4, 4);
	weng_reg_write(f->e, WREN_REG_DEV_CTL, WREN_DEV_CTL_ENABLE, 4);

	cmd_init(&cmd, WREN_ADMIN_ALLOC_PD);
	if (run(f, &cmd, res) != WREN_STATUS_SUCCESS)
		abort();
	f->pdn = res[0];
	for (uint32_t i = 0; i < 16; i++)
		pbl_set(f, i, DATA + i * 4096ULL);
	if (reg_mr(f, IOVA, 16 * 4096, 16, 12, 0, WREN_MR_ACCESS_LOCAL_WRITE, 0,
		   res) != WREN_STATUS_SUCCESS)
		abort();
	f->keys[0] = res[0];
	f->keys[1] = res[1];
	if (reg_mr(f, IOVA + 0x100000, 16 * 4096, 16, 12, 0, 0xf, 0, res) !=
	    WREN_STATUS_SUCCESS)
		abort();
	f->keys[2] = res[0];
	f->keys[3] = res[1];
	for (int i = 0; i < 2; i++) {
		struct wren_cmd_create_cq *c = cmd_init(&cmd,
							 WREN_ADMIN_CREATE_CQ);

		c->base_addr = wren_to_le64(CQ_RING(i));
		c->log_depth = CQ_LOG;
		c->db_page = wren_to_le32(1);
		if (run(f, &cmd, res) != WREN_STATUS_SUCCESS)
			abort();
		f->cqn[i] = res[0];
		f->cq_db[i] = WREN_DB_PAGE_SIZE + res[1];
	}
	{
		struct wren_cmd_create_srq *c = cmd_init(&cmd,
							  WREN_ADMIN_CREATE_SRQ);

		c->base = wren_to_le64(SRQ_RING);
		c->pdn = wren_to_le32(f->pdn);
		c->db_page = wren_to_le32(1);
		c->log_depth = QP_LOG;
		if (run(f, &cmd, res) == WREN_STATUS_SUCCESS) {
			f->srqn = res[0];
			f->srq_db = WREN_DB_PAGE_SIZE + res[1];
		}
	}
	for (int i = 0; i < 2; i++) {
		struct wren_cmd_create_ah *c = cmd_init(&cmd,
							 WREN_ADMIN_CREATE_AH);

		c->pdn = wren_to_le32(f->pdn);
		c->ipv4 = htobe32(i ? PEER_IP : 0xc6120001);
		memcpy(c->mac, "\x52\x54\x00\x57\x52\x02", 6);
		if (run(f, &cmd, res) == WREN_STATUS_SUCCESS)
			*(i ? &f->ah_peer : &f->ah_self) = res[0];
	}
	qp_create(f, 0, WREN_QPT_RD, false, 0, 0);
	qp_create(f, 1, WREN_QPT_UD, false, 1, 1);
	qp_create(f, 2, WREN_QPT_RC, true, 2, 0);
	qp_up(f, &f->qp[0], 0);
	qp_up(f, &f->qp[1], 0);
	qp_up(f, &f->qp[2], f->qp[2].qpn);
}

/* ---- the operations ------------------------------------------------------ */

static void qp_ring_put(struct fz *f, struct qp *q, bool sq, const void *w,
			size_t len)
{
	size_t size = sq ? WREN_SQ_WQE_SIZE(q->sq_shift) :
			   WREN_RQ_WQE_SIZE(q->rq_shift);
	uint16_t *pi = sq ? &q->sq_pi : &q->rq_pi;
	uint64_t ring = (sq ? SQ_RING(q - f->qp) : RQ_RING(q - f->qp)) +
			(*pi & ((1U << QP_LOG) - 1)) * size;
	uint8_t *at = fake_env_ptr(&f->env, ring, size);

	memset(at, 0, size);
	memcpy(at, w, len < size ? len : size);
	(*pi)++;
	weng_db_write(f->e, sq ? q->sq_db : q->rq_db, *pi, 4);
}

static uint32_t key_of(struct fz *f, uint8_t sel)
{
	if (sel < 0xf0)
		return f->keys[sel & 3];
	return sel == 0xff ? dword() : f->keys[sel & 3] ^ (sel & 0xf) << 8;
}

static void sge_from(struct fz *f, struct wren_sge *s)
{
	uint8_t k = byte();
	uint32_t off = word() * 2;

	s->addr = wren_to_le64(IOVA + (k & 4 ? 0x100000 : 0) + off);
	s->length = wren_to_le32(word());
	s->lkey = wren_to_le32(key_of(f, k));
}

static void op_send(struct fz *f, bool raw)
{
	uint8_t sel = byte();
	struct qp *q = &f->qp[sel % NQP];
	struct wren_sq_wqe w;
	bool dirty;
	uint8_t n;

	memset(&w, 0, sizeof(w));
	if (raw) {
		take(&w, left < sizeof(w) ? left : sizeof(w));
		qp_ring_put(f, q, true, &w, sizeof(w));
		return;
	}
	w.opcode = 1 + byte() % 11;
	n = byte();
	dirty = n & 0x80;	/* keep fields the opcode does not use */
	w.flags = n & 0xf;
	n = byte();
	w.imm = dword();
	if (q->type != WREN_QPT_RC) {
		w.ah = wren_to_le32(sel & 0x80 ? f->ah_peer : f->ah_self);
		w.remote_qpn = wren_to_le32(sel & 0x40 ? dword() :
					    f->qp[(sel >> 3) % NQP].qpn);
		w.remote_qkey = wren_to_le32(0x11111111);
	}
	w.remote_addr = wren_to_le64(IOVA + 0x100000 + word() * 4);
	w.rkey = wren_to_le32(key_of(f, byte()));
	if (w.flags & WREN_WQE_F_INLINE) {
		/* A length up to beyond the entry; the bytes that fit. */
		uint32_t len = n % 96 < sizeof(w.inline_data) ?
			       n % 96 : sizeof(w.inline_data);

		w.inline_len = wren_to_le32(n % 96);
		take(w.inline_data, len < left ? len : left);
	} else if (w.opcode == WREN_WQE_ATOMIC_CMP_SWP ||
		   w.opcode == WREN_WQE_ATOMIC_FETCH_ADD) {
		w.num_sge = 1;
		sge_from(f, &w.atomic.sge);
		w.atomic.sge.length = wren_to_le32(8);
		w.atomic.compare_add = wren_to_le64(dword());
		w.atomic.swap = wren_to_le64(dword());
	} else if (w.opcode == WREN_WQE_REG_MR) {
		w.fast_reg.length = wren_to_le64(word() * 16);
		w.fast_reg.npages = wren_to_le32(byte() % 20);
		w.fast_reg.page_shift = 12;
		w.fast_reg.access = byte() & 0xf;
	} else {
		w.num_sge = n % 6;
		for (int i = 0; i < w.num_sge && i < WREN_SQ_MAX_SGE; i++)
			sge_from(f, &w.sge[i]);
	}
	if (!dirty) {
		/* What a driver writes: only the fields the opcode uses. */
		if (w.opcode != WREN_WQE_SEND_IMM &&
		    w.opcode != WREN_WQE_RDMA_WRITE_IMM)
			w.imm = 0;
		if (w.opcode == WREN_WQE_SEND || w.opcode == WREN_WQE_SEND_IMM ||
		    w.opcode == WREN_WQE_LOCAL_INV ||
		    w.opcode == WREN_WQE_SEND_INV)
			w.remote_addr = 0;
		if (w.opcode == WREN_WQE_SEND || w.opcode == WREN_WQE_SEND_IMM)
			w.rkey = 0;
	}
	qp_ring_put(f, q, true, &w, sizeof(w));
}

static void op_recv(struct fz *f)
{
	uint8_t sel = byte();
	struct qp *q = &f->qp[sel % NQP];
	struct wren_rq_wqe w;

	memset(&w, 0, sizeof(w));
	w.num_sge = (sel >> 2) % 5;
	w.req_id = wren_to_le16(word());
	for (int i = 0; i < w.num_sge && i < WREN_RQ_MAX_SGE; i++)
		sge_from(f, &w.sge[i]);
	if (sel & 0x80) {	/* to the SRQ */
		uint8_t *at = fake_env_ptr(&f->env, SRQ_RING +
			(f->srq_pi & ((1U << QP_LOG) - 1)) * sizeof(w),
			sizeof(w));

		memcpy(at, &w, sizeof(w));
		f->srq_pi++;
		weng_db_write(f->e, f->srq_db, f->srq_pi, 4);
		return;
	}
	qp_ring_put(f, q, false, &w, sizeof(w));
}

/* A doorbell: one of the objects' with any value, or any slot at all. */
static void op_doorbell(struct fz *f)
{
	uint8_t sel = byte();
	uint32_t val = word(), off;
	struct qp *q = &f->qp[(sel >> 2) % NQP];

	switch (sel & 3) {
	case 0: off = q->sq_db; break;
	case 1: off = q->rq_db; break;
	case 2: off = sel & 0x80 ? f->srq_db : f->cq_db[sel >> 6 & 1]; break;
	default: off = word() % (4 * WREN_DB_PAGE_SIZE); break;
	}
	weng_db_write(f->e, off, val, 4);
}

/* Consume completions as a driver would, then write the CQ's doorbell. */
static void op_poll(struct fz *f)
{
	uint8_t sel = byte();
	int i = sel & 1;

	for (int n = 0; n < 64; n++) {
		const struct wren_cqe *c = fake_env_ptr(&f->env,
			CQ_RING(i) + (f->cq_ci[i] & 63) * sizeof(*c),
			sizeof(*c));

		if ((c->flags & WREN_CQE_F_PHASE) !=
		    lap_phase(f->cq_ci[i], CQ_LOG))
			break;
		f->cq_ci[i]++;
	}
	weng_db_write(f->e, f->cq_db[i], sel & 2 ? word() : f->cq_ci[i], 4);
}

/* Bytes into the rings or the data pages: never the page lists. */
static void op_mem(struct fz *f)
{
	uint8_t sel = byte();
	uint32_t off = word(), len = byte() + 1u;
	uint64_t at;

	if (sel & 1)
		at = RINGS_LO + off % (PBL - RINGS_LO);
	else
		at = DATA + off % (DATA_PAGES * 4096);
	if (len > left)
		len = left;
	if (at + len > (sel & 1 ? PBL : DATA + DATA_PAGES * 4096))
		len = (sel & 1 ? PBL : DATA + DATA_PAGES * 4096) - at;
	take(fake_env_ptr(&f->env, at, len), len);
}

/*
 * Frames the device sent to the peer come back as the peer's: addresses
 * swapped, the IPv4 checksum right, then a byte of the rest changed.
 */
static void op_pump(struct fz *f)
{
	static uint8_t frame[16384];
	uint8_t n = byte() % 32 + 1, mut = byte();
	size_t len;

	for (int i = 0; i < n; i++) {
		while ((len = weng_tx_pull(f->e, frame, sizeof(frame)))) {
			if (len >= WREN_WIRE_L2L4_LEN && (mut & 1)) {
				uint8_t *ip = frame + WREN_WIRE_ETH_LEN;
				uint8_t mac[6];
				uint32_t sum = 0;

				memcpy(mac, frame, 6);
				memcpy(frame, frame + 6, 6);
				memcpy(frame + 6, mac, 6);
				wren_wire_put32(ip + 12, PEER_IP);
				wren_wire_put32(ip + 16, 0xc6120001);
				wren_wire_put16(ip + 10, 0);
				for (int k = 0; k < 20; k += 2)
					sum += wren_wire_get16(ip + k);
				while (sum >> 16)
					sum = (sum & 0xffff) + (sum >> 16);
				wren_wire_put16(ip + 10, ~sum);
				if (mut & 2 && len > WREN_WIRE_L2L4_LEN)
					frame[WREN_WIRE_L2L4_LEN + word() %
					      (len - WREN_WIRE_L2L4_LEN)] ^=
						byte() | 1;
				weng_rx_frame(f->e, frame, len);
			}
		}
		fake_env_advance(&f->env, 1000);
	}
}

/* An admin command built from a few fields of the input. */
static void op_admin(struct fz *f)
{
	uint8_t sel = byte();
	int i = (sel >> 4) % NQP;
	struct qp *q = &f->qp[i];
	struct wren_admin_cmd cmd;
	uint32_t res[4];

	switch (sel % 10) {
	case 0:
	case 1: {	/* modify QP: any state, any attributes */
		struct wren_cmd_modify_qp m;

		memset(&m, 0, sizeof(m));
		m.min_rnr_timer = byte();
		m.rnr_retry = byte();
		m.access = byte();
		m.qkey = wren_to_le32(byte() & 1 ? 0x11111111 : dword());
		m.dest_qpn = wren_to_le32(f->qp[byte() % NQP].qpn);
		m.dest_ipv4 = htobe32(byte() & 1 ? PEER_IP : 0xc6120001);
		m.rq_psn = wren_to_le32(dword());
		m.sq_psn = wren_to_le32(dword());
		if (byte() & 1) {
			m.rq_psn &= wren_to_le32(WREN_QP_PSN_MASK);
			m.sq_psn &= wren_to_le32(WREN_QP_PSN_MASK);
		}
		modify(f, sel & 0x80 ? dword() : q->qpn, byte(), byte() % 8,
		       &m, sel & 0x40);
		break;
	}
	case 2:		/* back to RTS the driver's way */
		modify(f, q->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, NULL,
		       true);
		qp_up(f, q, f->qp[2].qpn);
		break;
	case 3: {	/* destroy and create again, with other entry sizes */
		struct wren_cmd_destroy_obj *d = cmd_init(&cmd,
			WREN_ADMIN_DESTROY_QP);
		static const uint8_t types[NQP] = { WREN_QPT_RD, WREN_QPT_UD,
						    WREN_QPT_RC };
		uint8_t b = byte();

		d->handle = wren_to_le32(q->qpn);
		run(f, &cmd, NULL);
		qp_create(f, i, b & 0x80 ? 1 + b % 3 : types[i], b & 0x40,
			  b & 3, (b >> 2) & 3);
		if (f->qp[i].live && b & 0x20)
			qp_up(f, q, f->qp[2].qpn);
		break;
	}
	case 4: {	/* REG_MR over pages of the data window */
		uint8_t n = byte() % 24, flags = byte();
		uint32_t list = 16 + byte() % 32;

		for (uint32_t k = 0; k < n; k++)
			pbl_set(f, list + k, page_addr(byte()));
		if (reg_mr(f, IOVA + 0x200000 + 0x100000 * (flags & 3),
			   dword() % (1U << 20), n, flags & 4 ? 21 : 12, list,
			   byte() & 0xf, flags >> 7, res) ==
		    WREN_STATUS_SUCCESS) {
			f->keys[flags >> 3 & 2] = res[0];
			f->keys[(flags >> 3 & 2) + 1] = res[1];
		}
		break;
	}
	case 5: {	/* DEREG_MR or DEALLOC of a key or any handle */
		struct wren_cmd_destroy_obj *d = cmd_init(&cmd,
			byte() & 1 ? WREN_ADMIN_DEREG_MR : WREN_ADMIN_DESTROY_AH);
		uint8_t k = byte();

		d->handle = wren_to_le32(k < 0x80 ? f->keys[k & 3] >> 8 :
					 k < 0xc0 ? f->ah_peer : dword());
		run(f, &cmd, NULL);
		break;
	}
	case 6: {	/* resize a CQ in place */
		struct wren_cmd_resize_cq *r = cmd_init(&cmd,
							 WREN_ADMIN_RESIZE_CQ);

		r->cqn = wren_to_le32(f->cqn[sel >> 7]);
		r->base_addr = wren_to_le64(CQ_RING(2 + (sel >> 7)));
		r->log_depth = byte() % 8;
		run(f, &cmd, NULL);
		break;
	}
	case 7: {	/* SRQ limit, or a new ring */
		struct wren_cmd_modify_srq *m = cmd_init(&cmd,
			WREN_ADMIN_MODIFY_SRQ);

		m->srqn = wren_to_le32(f->srqn);
		m->attr_mask = wren_to_le32(byte() & 3);
		m->limit = wren_to_le32(byte());
		m->log_depth = byte() % 7;
		m->base = wren_to_le64(SRQ_RING);
		run(f, &cmd, NULL);
		break;
	}
	case 8: {	/* query QP, stats, context: the answers go to data */
		struct wren_cmd_destroy_obj *d = cmd_init(&cmd,
			WREN_ADMIN_QUERY_QP);

		d->handle = wren_to_le32(q->qpn);
		run(f, &cmd, NULL);
		break;
	}
	default:	/* destroy a CQ in use, or the SRQ */
	{
		struct wren_cmd_destroy_obj *d = cmd_init(&cmd,
			sel & 0x80 ? WREN_ADMIN_DESTROY_SRQ :
				     WREN_ADMIN_DESTROY_CQ);

		d->handle = wren_to_le32(sel & 0x80 ? f->srqn :
					 f->cqn[sel >> 6 & 1]);
		run(f, &cmd, NULL);
		break;
	}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz f;

	setup(&f);
	in = data;
	left = size;
	while (left) {
		switch (byte() % 10) {
		case 0: op_send(&f, false); break;
		case 1: op_send(&f, true); break;
		case 2: op_recv(&f); break;
		case 3: op_doorbell(&f); break;
		case 4: op_poll(&f); break;
		case 5: op_mem(&f); break;
		case 6: op_pump(&f); break;
		case 7: op_admin(&f); break;
		case 8: fake_env_advance(&f.env, byte() * 1000000ULL); break;
		default: op_send(&f, false); op_pump(&f); break;
		}
		if (f.env.guard_hits) {
			fprintf(stderr, "dataplane_fuzz: the device touched "
				"guest memory no one named\n");
			abort();
		}
	}
	/* Let everything in flight finish or time out. */
	for (int i = 0; i < 20; i++) {
		in = NULL;
		left = 0;
		op_pump(&f);
		fake_env_advance(&f.env, 100000000ULL);
	}
	if (f.env.guard_hits)
		abort();
	weng_destroy(f.e);
	fake_env_fini(&f.env);
	return 0;
}
