// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: every admin command as the device receives it, field by field,
 * and every result as the caller receives it; and the answers the driver
 * must not believe (a doorbell outside its page, an undefined QP state).
 */
#include <kunit/test.h>
#include <linux/io.h>

#include "wren_kunit_dev.h"

/**
 * struct wren_cmds_answer - what the fake device answers
 * @status: the completion's status
 * @result: its results
 */
struct wren_cmds_answer {
	u8 status;
	u32 result[4];
};

static bool wren_cmds_answer(struct wren_fake *f,
			     const struct wren_admin_cmd *cmd,
			     struct wren_admin_cqe *cqe)
{
	const struct wren_cmds_answer *a = f->priv;
	unsigned int i;

	cqe->status = a->status;
	for (i = 0; i < ARRAY_SIZE(cqe->result); i++)
		cqe->result[i] = cpu_to_le32(a->result[i]);
	return true;
}

static struct wren_fake *wren_cmds_fake(struct kunit *test,
					const struct wren_cmds_answer *a)
{
	struct wren_fake *f = wren_fake_new(test);

	f->answer = wren_cmds_answer;
	f->priv = (void *)a;
	return f;
}

/* The body of the last command, which must have @opcode. */
static const void *wren_cmds_body(struct kunit *test, struct wren_fake *f,
				  u8 opcode)
{
	const struct wren_admin_cmd *cmd = wren_fake_last_cmd(f);

	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_EXPECT_EQ(test, cmd->hdr.opcode, opcode);
	return cmd->payload;
}

static bool wren_cmds_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static void wren_cmds_set_feature(struct kunit *test)
{
	static const struct wren_cmds_answer a = {};
	struct wren_fake *f = wren_cmds_fake(test, &a);
	const struct wren_cmd_feature *c;

	KUNIT_ASSERT_EQ(test, wren_cmd_set_feature(&f->wdev, 0x1234, 0x89abcdef), 0);
	c = wren_cmds_body(test, f, WREN_ADMIN_SET_FEATURE);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->feature_id), 0x1234);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->value), 0x89abcdef);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->rsvd0), 0);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));
}

static void wren_cmds_create_eq(struct kunit *test)
{
	static const struct wren_cmds_answer a = { .result = { 17 } };
	struct wren_fake *f = wren_cmds_fake(test, &a);
	const struct wren_cmd_create_eq *c;
	u32 id = 0;

	KUNIT_ASSERT_EQ(test, wren_cmd_create_eq(&f->wdev, 0x123456789000ULL, 8,
						 0x1a2, &id), 0);
	KUNIT_EXPECT_EQ(test, id, 17);
	c = wren_cmds_body(test, f, WREN_ADMIN_CREATE_EQ);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->base_addr), 0x123456789000ULL);
	KUNIT_EXPECT_EQ(test, c->log_depth, 8);
	KUNIT_EXPECT_EQ(test, c->flags, WREN_EQ_FLAG_INTR);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->msix_vector), 0x1a2);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));
}

/* Every destroy command carries its handle and nothing else. */
static void wren_cmds_destroy(struct kunit *test)
{
	static const struct wren_cmds_answer a = {};
	struct wren_fake *f = wren_cmds_fake(test, &a);
	const struct wren_cmd_destroy_obj *c;
	static const u8 opcodes[] = {
		WREN_ADMIN_DESTROY_EQ, WREN_ADMIN_DEALLOC_PD,
		WREN_ADMIN_DESTROY_CQ, WREN_ADMIN_DESTROY_QP,
		WREN_ADMIN_DESTROY_AH, WREN_ADMIN_DEREG_MR,
	};
	unsigned int i;

	KUNIT_ASSERT_EQ(test, wren_cmd_destroy_eq(&f->wdev, 0xa0000001), 0);
	KUNIT_ASSERT_EQ(test, wren_cmd_dealloc_pd(&f->wdev, 0xa0000002), 0);
	KUNIT_ASSERT_EQ(test, wren_cmd_destroy_cq(&f->wdev, 0xa0000003), 0);
	KUNIT_ASSERT_EQ(test, wren_cmd_destroy_qp(&f->wdev, 0xa0000004), 0);
	KUNIT_ASSERT_EQ(test, wren_cmd_destroy_ah(&f->wdev, 0xa0000005), 0);
	KUNIT_ASSERT_EQ(test, wren_cmd_dereg_mr(&f->wdev, 0xa0000006), 0);
	KUNIT_ASSERT_EQ(test, f->ncmds, ARRAY_SIZE(opcodes));
	for (i = 0; i < ARRAY_SIZE(opcodes); i++) {
		KUNIT_EXPECT_EQ(test, f->cmds[i].hdr.opcode, opcodes[i]);
		c = (const void *)f->cmds[i].payload;
		KUNIT_EXPECT_EQ(test, le32_to_cpu(c->handle), 0xa0000001 + i);
		KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));
	}
}

/*
 * On a fenced device, what releases an object succeeds (its DMA is
 * stopped, and the reset forgets the object), and so does stopping a QP;
 * everything else fails.  A release that times out fences the device and
 * succeeds too.
 */
static void wren_cmds_release_fenced(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	struct wren_qp_attrs stop = {
		.attr_mask = WREN_QP_ATTR_STATE,
		.state = WREN_QPS_ERR,
	};
	struct wren_qp_attrs rts = {
		.attr_mask = WREN_QP_ATTR_STATE,
		.state = WREN_QPS_RTS,
	};
	u32 pdn;

	f->answer = wren_fake_no_answer;
	KUNIT_EXPECT_EQ(test, wren_cmd_dereg_mr(&f->wdev, 0x100), 0);
	KUNIT_EXPECT_TRUE(test, wren_dead(&f->wdev));
	KUNIT_EXPECT_EQ(test, f->dma_stops, 1);
	KUNIT_EXPECT_EQ(test, f->wdev.stats.admin_timeouts, 1);

	KUNIT_EXPECT_EQ(test, wren_cmd_destroy_qp(&f->wdev, 1), 0);
	KUNIT_EXPECT_EQ(test, wren_cmd_destroy_cq(&f->wdev, 1), 0);
	KUNIT_EXPECT_EQ(test, wren_cmd_dealloc_pd(&f->wdev, 1), 0);
	KUNIT_EXPECT_EQ(test, wren_cmd_modify_qp(&f->wdev, 1, &stop), 0);
	stop.state = WREN_QPS_RESET;
	KUNIT_EXPECT_EQ(test, wren_cmd_modify_qp(&f->wdev, 1, &stop), 0);
	KUNIT_EXPECT_EQ(test, wren_cmd_modify_qp(&f->wdev, 1, &rts), -EIO);
	KUNIT_EXPECT_EQ(test, wren_cmd_alloc_pd(&f->wdev, false, &pdn), -EIO);
	/* Only the first command reached the device; one fence. */
	KUNIT_EXPECT_EQ(test, f->ncmds, 1);
	KUNIT_EXPECT_EQ(test, f->dma_stops, 1);
}

static void wren_cmds_alloc_pd(struct kunit *test)
{
	static const struct wren_cmds_answer a = { .result = { 0x4321 } };
	struct wren_fake *f = wren_cmds_fake(test, &a);
	const struct wren_cmd_alloc_pd *c;
	u32 pdn = 0;

	KUNIT_ASSERT_EQ(test, wren_cmd_alloc_pd(&f->wdev, false, &pdn), 0);
	KUNIT_EXPECT_EQ(test, pdn, 0x4321);
	c = wren_cmds_body(test, f, WREN_ADMIN_ALLOC_PD);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c, sizeof(*c)));

	/* A kernel PD only from a device that has them. */
	KUNIT_EXPECT_EQ(test, wren_cmd_alloc_pd(&f->wdev, true, &pdn),
			-EOPNOTSUPP);
	f->wdev.caps.caps |= WREN_CAP_DMA_LKEY;
	KUNIT_ASSERT_EQ(test, wren_cmd_alloc_pd(&f->wdev, true, &pdn), 0);
	c = wren_cmds_body(test, f, WREN_ADMIN_ALLOC_PD);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->flags), WREN_PD_FLAG_KERNEL);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));
}

static void wren_cmds_create_cq(struct kunit *test)
{
	static const struct wren_cmds_answer a = { .result = { 33, 0x40 } };
	struct wren_fake *f = wren_cmds_fake(test, &a);
	struct wren_cq_params p = {
		.base = 0xfedcba987000ULL,
		.log_depth = 9,
		.comp_vector = 1,
		.db_page = 0x55,
	};
	const struct wren_cmd_create_cq *c;
	struct wren_eq eqs[2] = { { .id = 7 }, { .id = 9 } };
	u32 cqn = 0, offset = 0;

	/* Without event queues the CQ reports to none. */
	KUNIT_ASSERT_EQ(test, wren_cmd_create_cq(&f->wdev, &p, &cqn, &offset), 0);
	KUNIT_EXPECT_EQ(test, cqn, 33);
	KUNIT_EXPECT_EQ(test, offset, 0x40);
	c = wren_cmds_body(test, f, WREN_ADMIN_CREATE_CQ);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->base_addr), 0xfedcba987000ULL);
	KUNIT_EXPECT_EQ(test, c->log_depth, 9);
	KUNIT_EXPECT_EQ(test, c->flags, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->eq_id), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->db_page), 0x55);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));

	/* With them, to the EQ of its completion vector. */
	f->wdev.eqs = eqs;
	f->wdev.num_eqs = 2;
	f->wdev.caps.num_comp_vectors = 2;
	KUNIT_ASSERT_EQ(test, wren_cmd_create_cq(&f->wdev, &p, &cqn, &offset), 0);
	c = wren_cmds_body(test, f, WREN_ADMIN_CREATE_CQ);
	KUNIT_EXPECT_EQ(test, c->flags, WREN_CQ_FLAG_EQ);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->eq_id), 9);

	/* A vector out of range never reaches the device. */
	p.comp_vector = 2;
	KUNIT_EXPECT_EQ(test, wren_cmd_create_cq(&f->wdev, &p, &cqn, &offset),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, f->ncmds, 2);
	f->wdev.eqs = NULL;
	f->wdev.num_eqs = 0;
}

/* A doorbell outside its page: refused, and the object destroyed again. */
static void wren_cmds_create_cq_bad_doorbell(struct kunit *test)
{
	static const u32 offsets[] = { WREN_DB_PAGE_SIZE, 0x42, U32_MAX };
	struct wren_cmds_answer a = { .result = { 33 } };
	struct wren_fake *f = wren_cmds_fake(test, &a);
	struct wren_cq_params p = { .log_depth = 4 };
	const struct wren_cmd_destroy_obj *d;
	u32 cqn = 5, offset = 6;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(offsets); i++) {
		a.result[1] = offsets[i];
		KUNIT_EXPECT_EQ(test, wren_cmd_create_cq(&f->wdev, &p, &cqn, &offset),
				-EPROTO);
		d = wren_cmds_body(test, f, WREN_ADMIN_DESTROY_CQ);
		KUNIT_EXPECT_EQ(test, le32_to_cpu(d->handle), 33);
	}
	KUNIT_EXPECT_EQ(test, cqn, 5);
	KUNIT_EXPECT_EQ(test, offset, 6);
}

static void wren_cmds_create_qp(struct kunit *test)
{
	struct wren_cmds_answer a = { .result = { 0x77, 0x100, 0xffc } };
	struct wren_fake *f = wren_cmds_fake(test, &a);
	struct wren_qp_params p = {
		.sq_base = 0x1111222233334000ULL,
		.rq_base = 0x5555666677778000ULL,
		.pdn = 0x0a0b0c0d,
		.send_cq = 0x01020304,
		.recv_cq = 0x05060708,
		.db_page = 0x090a0b0c,
		.type = WREN_QPT_RD,
		.sq_log_depth = 7,
		.rq_log_depth = 6,
		.flags = WREN_QP_FLAG_ORDERED | WREN_QP_FLAG_SQ_SIG_ALL,
	};
	const struct wren_cmd_create_qp *c;
	const struct wren_cmd_destroy_obj *d;
	struct wren_qp_handles h = {};

	KUNIT_ASSERT_EQ(test, wren_cmd_create_qp(&f->wdev, &p, &h), 0);
	KUNIT_EXPECT_EQ(test, h.qpn, 0x77);
	KUNIT_EXPECT_EQ(test, h.sq_db_offset, 0x100);
	KUNIT_EXPECT_EQ(test, h.rq_db_offset, 0xffc);
	c = wren_cmds_body(test, f, WREN_ADMIN_CREATE_QP);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->sq_base), p.sq_base);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->rq_base), p.rq_base);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pdn), p.pdn);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->send_cq), p.send_cq);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->recv_cq), p.recv_cq);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->db_page), p.db_page);
	KUNIT_EXPECT_EQ(test, c->type, p.type);
	KUNIT_EXPECT_EQ(test, c->sq_log_depth, p.sq_log_depth);
	KUNIT_EXPECT_EQ(test, c->rq_log_depth, p.rq_log_depth);
	KUNIT_EXPECT_EQ(test, c->flags, p.flags);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));

	/* Either doorbell outside the page undoes the QP. */
	a.result[2] = 0x1001;
	KUNIT_EXPECT_EQ(test, wren_cmd_create_qp(&f->wdev, &p, &h), -EPROTO);
	d = wren_cmds_body(test, f, WREN_ADMIN_DESTROY_QP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->handle), 0x77);
	a.result[1] = WREN_DB_PAGE_SIZE;
	a.result[2] = 0;
	KUNIT_EXPECT_EQ(test, wren_cmd_create_qp(&f->wdev, &p, &h), -EPROTO);
	KUNIT_EXPECT_EQ(test, h.rq_db_offset, 0xffc);
}

static void wren_cmds_modify_qp(struct kunit *test)
{
	static const struct wren_cmds_answer a = {};
	struct wren_fake *f = wren_cmds_fake(test, &a);
	struct wren_qp_attrs qa = {
		.attr_mask = WREN_QP_ATTR_STATE | WREN_QP_ATTR_QKEY,
		.state = WREN_QPS_RTS,
		.qkey = 0x11112222,
		.dest_qpn = 0x4567,
		.dest_ipv4 = htonl(0x0a000002),
		.dest_mac = { 2, 0, 0, 0, 0, 9 },
		.rq_psn = 0x123456,
		.sq_psn = 0xabcdef,
		.min_rnr_timer = 12,
		.rnr_retry = 7,
		.access = WREN_MR_ACCESS_REMOTE_READ,
	};
	const struct wren_cmd_modify_qp *c;

	KUNIT_ASSERT_EQ(test, wren_cmd_modify_qp(&f->wdev, 0x1234, &qa), 0);
	c = wren_cmds_body(test, f, WREN_ADMIN_MODIFY_QP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qpn), 0x1234);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->attr_mask),
			WREN_QP_ATTR_STATE | WREN_QP_ATTR_QKEY);
	KUNIT_EXPECT_EQ(test, c->state, WREN_QPS_RTS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qkey), 0x11112222);
	/* Only the attributes named go out. */
	KUNIT_EXPECT_EQ(test, c->dest_qpn, 0);
	KUNIT_EXPECT_EQ(test, c->rq_psn, 0);
	KUNIT_EXPECT_EQ(test, c->access, 0);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(&c->rsvd1, sizeof(c->rsvd1)));
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));

	qa.attr_mask = WREN_QP_ATTR_QKEY;
	KUNIT_ASSERT_EQ(test, wren_cmd_modify_qp(&f->wdev, 0x1234, &qa), 0);
	c = wren_cmds_body(test, f, WREN_ADMIN_MODIFY_QP);
	KUNIT_EXPECT_EQ(test, c->state, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->qkey), 0x11112222);

	/* RC: the peer, both PSNs, the RNR policy and the rights. */
	qa.attr_mask = WREN_QP_ATTR_DEST | WREN_QP_ATTR_RQ_PSN |
		       WREN_QP_ATTR_SQ_PSN | WREN_QP_ATTR_RNR |
		       WREN_QP_ATTR_ACCESS;
	KUNIT_ASSERT_EQ(test, wren_cmd_modify_qp(&f->wdev, 0x1234, &qa), 0);
	c = wren_cmds_body(test, f, WREN_ADMIN_MODIFY_QP);
	KUNIT_EXPECT_EQ(test, c->qkey, 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->dest_qpn), 0x4567);
	KUNIT_EXPECT_EQ(test, c->dest_ipv4, htonl(0x0a000002));
	KUNIT_EXPECT_EQ(test, c->dest_mac[5], 9);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->rq_psn), 0x123456);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->sq_psn), 0xabcdef);
	KUNIT_EXPECT_EQ(test, c->min_rnr_timer, 12);
	KUNIT_EXPECT_EQ(test, c->rnr_retry, 7);
	KUNIT_EXPECT_EQ(test, c->access, WREN_MR_ACCESS_REMOTE_READ);
}

/* SRQs: the ring, the limit or the new ring, and what the device says. */
static void wren_cmds_srq(struct kunit *test)
{
	static const struct wren_cmds_answer a = { .result = { 6, 0x40 } };
	struct wren_fake *f = wren_cmds_fake(test, &a);
	struct wren_srq_params p = {
		.base = 0x123000, .pdn = 3, .db_page = 2, .log_depth = 7,
	};
	const struct wren_cmd_create_srq *cc;
	const struct wren_cmd_modify_srq *m;
	u32 srqn, db, moved = 0;

	KUNIT_ASSERT_EQ(test, wren_cmd_create_srq(&f->wdev, &p, &srqn, &db), 0);
	cc = wren_cmds_body(test, f, WREN_ADMIN_CREATE_SRQ);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(cc->base), 0x123000);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cc->pdn), 3);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(cc->db_page), 2);
	KUNIT_EXPECT_EQ(test, cc->log_depth, 7);
	KUNIT_EXPECT_EQ(test, srqn, 6);
	KUNIT_EXPECT_EQ(test, db, 0x40);

	/* The limit alone: no ring in the command, nothing moved. */
	KUNIT_ASSERT_EQ(test, wren_cmd_modify_srq(&f->wdev, 6,
						  WREN_SRQ_ATTR_LIMIT, 9, NULL,
						  NULL), 0);
	m = wren_cmds_body(test, f, WREN_ADMIN_MODIFY_SRQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m->attr_mask), WREN_SRQ_ATTR_LIMIT);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(m->limit), 9);
	KUNIT_EXPECT_EQ(test, m->base, 0);
	KUNIT_EXPECT_EQ(test, m->log_depth, 0);

	/* A new ring: its base and depth; result[0] is what moved. */
	p.base = 0x456000;
	p.log_depth = 9;
	KUNIT_ASSERT_EQ(test, wren_cmd_modify_srq(&f->wdev, 6,
						  WREN_SRQ_ATTR_RING, 0, &p,
						  &moved), 0);
	m = wren_cmds_body(test, f, WREN_ADMIN_MODIFY_SRQ);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(m->base), 0x456000);
	KUNIT_EXPECT_EQ(test, m->log_depth, 9);
	KUNIT_EXPECT_EQ(test, m->limit, 0);
	KUNIT_EXPECT_EQ(test, moved, 6);
}

static void wren_cmds_query_qp(struct kunit *test)
{
	struct wren_cmds_answer a = {
		.result = { WREN_QPS_RTR, 0x12345678, 0xabcd, 0x0123 },
	};
	struct wren_fake *f = wren_cmds_fake(test, &a);
	const struct wren_cmd_destroy_obj *c;
	struct wren_qp_query q = {};

	KUNIT_ASSERT_EQ(test, wren_cmd_query_qp(&f->wdev, 0x99, &q), 0);
	c = wren_cmds_body(test, f, WREN_ADMIN_QUERY_QP);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->handle), 0x99);
	KUNIT_EXPECT_EQ(test, q.state, WREN_QPS_RTR);
	KUNIT_EXPECT_EQ(test, q.qkey, 0x12345678);
	KUNIT_EXPECT_EQ(test, q.sq_ci, 0xabcd);
	KUNIT_EXPECT_EQ(test, q.rq_ci, 0x0123);

	/* A state the interface does not define is not passed on. */
	a.result[0] = WREN_QPS_SQD + 1;
	q.state = WREN_QPS_INIT;
	KUNIT_EXPECT_EQ(test, wren_cmd_query_qp(&f->wdev, 0x99, &q), -EPROTO);
	KUNIT_EXPECT_EQ(test, q.state, WREN_QPS_INIT);
}

static void wren_cmds_create_ah(struct kunit *test)
{
	static const struct wren_cmds_answer a = { .result = { 0x2468 } };
	static const u8 mac[ETH_ALEN] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct wren_fake *f = wren_cmds_fake(test, &a);
	const struct wren_cmd_create_ah *c;
	u32 ahn = 0;

	KUNIT_ASSERT_EQ(test, wren_cmd_create_ah(&f->wdev, 0x31, htonl(0x0a000105),
						 mac, &ahn), 0);
	KUNIT_EXPECT_EQ(test, ahn, 0x2468);
	c = wren_cmds_body(test, f, WREN_ADMIN_CREATE_AH);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pdn), 0x31);
	KUNIT_EXPECT_EQ(test, ntohl(c->ipv4), 0x0a000105);
	KUNIT_EXPECT_MEMEQ(test, c->mac, mac, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->rsvd0), 0);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));
}

static void wren_cmds_reg_mr(struct kunit *test)
{
	static const struct wren_cmds_answer a = {
		.result = { 0xabcdef12, 0x5678ef12 },
	};
	struct wren_fake *f = wren_cmds_fake(test, &a);
	struct wren_mr_params p = {
		.iova = 0x7fff00001000ULL,
		.length = 0x123456789ULL,
		.pbl = 0x998877665000ULL,
		.pdn = 0x3,
		.npages = 0x48d16,
		.page_shift = 21,
		.access = WREN_MR_ACCESS_LOCAL_WRITE | WREN_MR_ACCESS_REMOTE_READ,
		.key_tag = 0xc3,
		.flags = WREN_MR_FLAG_FAST,
	};
	const struct wren_cmd_reg_mr *c;
	u32 lkey = 0, rkey = 0;

	KUNIT_ASSERT_EQ(test, wren_cmd_reg_mr(&f->wdev, &p, &lkey, &rkey), 0);
	KUNIT_EXPECT_EQ(test, lkey, 0xabcdef12);
	KUNIT_EXPECT_EQ(test, rkey, 0x5678ef12);
	c = wren_cmds_body(test, f, WREN_ADMIN_REG_MR);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->iova), p.iova);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->length), p.length);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->pbl_addr), p.pbl);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->pdn), p.pdn);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->npages), p.npages);
	KUNIT_EXPECT_EQ(test, c->page_shift, p.page_shift);
	KUNIT_EXPECT_EQ(test, c->access, p.access);
	KUNIT_EXPECT_EQ(test, c->key_tag, p.key_tag);
	KUNIT_EXPECT_EQ(test, c->flags, p.flags);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));
}

static void wren_cmds_set_tc_table(struct kunit *test)
{
	static const struct wren_cmds_answer a = {};
	struct wren_fake *f = wren_cmds_fake(test, &a);
	const struct wren_cmd_set_tc_table *c;

	KUNIT_ASSERT_EQ(test, wren_cmd_set_tc_table(&f->wdev, 0xabc000ULL, 13), 0);
	c = wren_cmds_body(test, f, WREN_ADMIN_SET_TC_TABLE);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(c->base_addr), 0xabc000ULL);
	KUNIT_EXPECT_EQ(test, c->log_entries, 13);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd0, sizeof(c->rsvd0)));
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));
}

/* Every attribute GET_ATTR returns lands in its field of the caps. */
static void wren_cmds_decode_attr(struct kunit *test)
{
	struct wren_dev_attr a = {
		.spec_version = cpu_to_le32(FIELD_PREP(WREN_VERSION_MAJOR, 3) |
					    FIELD_PREP(WREN_VERSION_MINOR, 14)),
		.fw_version = cpu_to_le32(FIELD_PREP(WREN_FW_VERSION_MAJOR, 5) |
					  FIELD_PREP(WREN_FW_VERSION_MINOR, 6) |
					  FIELD_PREP(WREN_FW_VERSION_PATCH, 0x789)),
		.caps = cpu_to_le64(0x8000000000000041ULL),
		.node_guid = cpu_to_le64(0x0123456789abcdefULL),
		.mac_addr = { 0x02, 1, 2, 3, 4, 5 },
		.mtu = cpu_to_le16(4000),
		.ipv4_addr = htonl(0xc0a80102),
		.link_speed_mbps = cpu_to_le32(25000),
		.gid = { 0xfe, 0x80, [15] = 0x42 },
		.max_eq = cpu_to_le32(101),
		.max_eq_depth = cpu_to_le32(102),
		.max_pd = cpu_to_le32(103),
		.max_cq = cpu_to_le32(104),
		.max_cq_depth = cpu_to_le32(105),
		.max_qp = cpu_to_le32(106),
		.max_qp_depth = cpu_to_le32(107),
		.max_sge = cpu_to_le32(108),
		.max_inline = cpu_to_le32(109),
		.max_ah = cpu_to_le32(110),
		.max_mr = cpu_to_le32(111),
		.db_page_count = cpu_to_le32(112),
		.max_mr_size = cpu_to_le64(0x8000000000ULL),
		.page_size_cap = cpu_to_le64(0x40201000ULL),
		.max_msg_size = cpu_to_le32(113),
		.max_recv_sge = cpu_to_le32(114),
		.tc_cache = cpu_to_le32(115),
		.max_tc_log = 20,
		.min_tc_log = 6,
		.max_rd_atom = cpu_to_le32(116),
		.max_res_rd_atom = cpu_to_le32(117),
	};
	struct wren_caps c;

	/* A serial that fills its field still ends in NUL. */
	memset(a.serial, 'S', sizeof(a.serial));
	memset(&c, 0xff, sizeof(c));
	wren_decode_attr(&a, &c);
	KUNIT_EXPECT_EQ(test, c.spec_major, 3);
	KUNIT_EXPECT_EQ(test, c.spec_minor, 14);
	KUNIT_EXPECT_EQ(test, c.fw_major, 5);
	KUNIT_EXPECT_EQ(test, c.fw_minor, 6);
	KUNIT_EXPECT_EQ(test, c.fw_patch, 0x789);
	KUNIT_EXPECT_EQ(test, c.caps, 0x8000000000000041ULL);
	KUNIT_EXPECT_EQ(test, c.node_guid, 0x0123456789abcdefULL);
	KUNIT_EXPECT_MEMEQ(test, c.mac_addr, a.mac_addr, ETH_ALEN);
	KUNIT_EXPECT_EQ(test, c.mtu, 4000);
	KUNIT_EXPECT_EQ(test, ntohl(c.ipv4_addr), 0xc0a80102);
	KUNIT_EXPECT_EQ(test, c.link_speed_mbps, 25000);
	KUNIT_EXPECT_MEMEQ(test, c.gid, a.gid, sizeof(c.gid));
	KUNIT_EXPECT_EQ(test, strlen(c.serial), sizeof(a.serial));
	KUNIT_EXPECT_EQ(test, c.max_eq, 101);
	KUNIT_EXPECT_EQ(test, c.max_eq_depth, 102);
	KUNIT_EXPECT_EQ(test, c.max_pd, 103);
	KUNIT_EXPECT_EQ(test, c.max_cq, 104);
	KUNIT_EXPECT_EQ(test, c.max_cq_depth, 105);
	KUNIT_EXPECT_EQ(test, c.max_qp, 106);
	KUNIT_EXPECT_EQ(test, c.max_qp_depth, 107);
	KUNIT_EXPECT_EQ(test, c.max_sge, 108);
	KUNIT_EXPECT_EQ(test, c.max_inline, 109);
	KUNIT_EXPECT_EQ(test, c.max_ah, 110);
	KUNIT_EXPECT_EQ(test, c.max_mr, 111);
	KUNIT_EXPECT_EQ(test, c.db_page_count, 112);
	KUNIT_EXPECT_EQ(test, c.db_page_size, WREN_DB_PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, c.max_mr_size, 0x8000000000ULL);
	KUNIT_EXPECT_EQ(test, c.page_size_cap, 0x40201000ULL);
	KUNIT_EXPECT_EQ(test, c.max_msg_size, 113);
	KUNIT_EXPECT_EQ(test, c.max_recv_sge, 114);
	KUNIT_EXPECT_EQ(test, c.tc_cache, 115);
	KUNIT_EXPECT_EQ(test, c.max_tc_log, 20);
	KUNIT_EXPECT_EQ(test, c.min_tc_log, 6);
	KUNIT_EXPECT_EQ(test, c.max_rd_atom, 116);
	KUNIT_EXPECT_EQ(test, c.max_res_rd_atom, 117);
}

/* The device writes its counters through the buffer's DMA address. */
static bool wren_cmds_answer_stats(struct wren_fake *f,
				   const struct wren_admin_cmd *cmd,
				   struct wren_admin_cqe *cqe)
{
	const struct wren_cmd_get_stats *c = (const void *)cmd->payload;
	u32 len = le32_to_cpu(c->buf_len), i;
	__le64 *buf;

	buf = phys_to_virt(le64_to_cpu(c->buf_addr));
	for (i = 0; i < min(len / 8, 6U); i++)
		buf[i] = cpu_to_le64(1000 + i);
	cqe->result[0] = cpu_to_le32(6);
	return true;
}

static void wren_cmds_get_stats(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	const struct wren_cmd_get_stats *c;
	u64 vals[8];
	unsigned int i;

	f->answer = wren_cmds_answer_stats;
	memset(vals, 0, sizeof(vals));
	/* Fewer counters than asked for: the device's count. */
	KUNIT_ASSERT_EQ(test, wren_cmd_get_stats(&f->wdev, vals, 8), 6);
	c = wren_cmds_body(test, f, WREN_ADMIN_GET_STATS);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->buf_len), 64);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, vals[i], 1000 + i);
	KUNIT_EXPECT_EQ(test, vals[6], 0);
	/* More than asked for: no more than asked for. */
	memset(vals, 0, sizeof(vals));
	KUNIT_ASSERT_EQ(test, wren_cmd_get_stats(&f->wdev, vals, 2), 2);
	KUNIT_EXPECT_EQ(test, vals[1], 1001);
	KUNIT_EXPECT_EQ(test, vals[2], 0);
	/* Nothing, or more than a page: refused before the device. */
	KUNIT_EXPECT_EQ(test, wren_cmd_get_stats(&f->wdev, vals, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, wren_cmd_get_stats(&f->wdev, vals, 513), -EINVAL);
	KUNIT_EXPECT_EQ(test, f->ncmds, 2);
}

/* GET_STATS of one set: the set and the flag, the same buffer. */
static void wren_cmds_get_set_stats(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	const struct wren_cmd_get_stats *c;
	u64 vals[8] = {};

	f->answer = wren_cmds_answer_stats;
	KUNIT_ASSERT_EQ(test, wren_cmd_get_set_stats(&f->wdev, 7, vals, 8), 6);
	c = wren_cmds_body(test, f, WREN_ADMIN_GET_STATS);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->set), 7);
	KUNIT_EXPECT_EQ(test, c->flags, WREN_STATS_FLAG_SET);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->buf_len), 64);
	KUNIT_EXPECT_EQ(test, vals[5], 1005);
	/* The totals carry no set. */
	KUNIT_ASSERT_EQ(test, wren_cmd_get_stats(&f->wdev, vals, 8), 6);
	c = wren_cmds_body(test, f, WREN_ADMIN_GET_STATS);
	KUNIT_EXPECT_EQ(test, c->flags, 0);
	KUNIT_EXPECT_EQ(test, le16_to_cpu(c->set), 0);
	/* A set beyond the field: refused before the device. */
	KUNIT_EXPECT_EQ(test,
			wren_cmd_get_set_stats(&f->wdev, 0x10000, vals, 8),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, f->ncmds, 2);
}

static void wren_cmds_counter_sets(struct kunit *test)
{
	static struct wren_cmds_answer a = { .result = { 5 } };
	struct wren_fake *f = wren_cmds_fake(test, &a);
	const struct wren_cmd_bind_counter_set *b;
	const struct wren_cmd_destroy_obj *d;
	const struct wren_admin_cmd *cmd;

	KUNIT_EXPECT_EQ(test, wren_cmd_alloc_counter_set(&f->wdev), 5);
	cmd = wren_fake_last_cmd(f);
	KUNIT_ASSERT_NOT_NULL(test, cmd);
	KUNIT_EXPECT_EQ(test, cmd->hdr.opcode, WREN_ADMIN_ALLOC_COUNTER_SET);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(cmd->payload,
					       sizeof(cmd->payload)));
	KUNIT_EXPECT_EQ(test, wren_cmd_bind_counter_set(&f->wdev, 0x123, 5), 0);
	b = wren_cmds_body(test, f, WREN_ADMIN_BIND_COUNTER_SET);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b->qpn), 0x123);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(b->set), 5);
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(b->rsvd, sizeof(b->rsvd)));
	KUNIT_EXPECT_EQ(test, wren_cmd_free_counter_set(&f->wdev, 5), 0);
	d = wren_cmds_body(test, f, WREN_ADMIN_FREE_COUNTER_SET);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(d->handle), 5);
	/* A device that names set 0, the default one, is broken. */
	a.result[0] = 0;
	KUNIT_EXPECT_EQ(test, wren_cmd_alloc_counter_set(&f->wdev), -EIO);
	/* None left. */
	a.status = WREN_STATUS_NO_RESOURCES;
	KUNIT_EXPECT_EQ(test, wren_cmd_alloc_counter_set(&f->wdev), -ENOMEM);
}

/* The device writes a context of 100 bytes, 0xc1 each. */
static bool wren_cmds_answer_ctx(struct wren_fake *f,
				 const struct wren_admin_cmd *cmd,
				 struct wren_admin_cqe *cqe)
{
	const struct wren_cmd_query_ctx *c = (const void *)cmd->payload;
	u32 len = min(le32_to_cpu(c->buf_len), 100U);

	memset(phys_to_virt(le64_to_cpu(c->buf_addr)), 0xc1, len);
	cqe->result[0] = cpu_to_le32(100);
	return true;
}

static void wren_cmds_query_ctx(struct kunit *test)
{
	struct wren_fake *f = wren_fake_new(test);
	const struct wren_cmd_query_ctx *c;
	u8 buf[128];

	f->answer = wren_cmds_answer_ctx;
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_ASSERT_EQ(test, wren_cmd_query_ctx(&f->wdev, WREN_CTX_CQ, 0x77,
						 buf, sizeof(buf)), 100);
	c = wren_cmds_body(test, f, WREN_ADMIN_QUERY_CTX);
	KUNIT_EXPECT_EQ(test, c->type, WREN_CTX_CQ);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->handle), 0x77);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(c->buf_len), sizeof(buf));
	KUNIT_EXPECT_TRUE(test, wren_cmds_zero(c->rsvd, sizeof(c->rsvd)));
	/* What the device wrote, then zeros: nothing of the caller's. */
	KUNIT_EXPECT_EQ(test, buf[99], 0xc1);
	KUNIT_EXPECT_EQ(test, buf[100], 0);
	KUNIT_EXPECT_EQ(test, buf[127], 0);
	/* A context longer than the buffer: its size, the buffer full. */
	KUNIT_ASSERT_EQ(test, wren_cmd_query_ctx(&f->wdev, WREN_CTX_QP, 2,
						 buf, 64), 100);
	KUNIT_EXPECT_EQ(test, buf[63], 0xc1);
	/* Buffers out of the device's bounds: refused before it. */
	KUNIT_EXPECT_EQ(test, wren_cmd_query_ctx(&f->wdev, WREN_CTX_QP, 2,
						 buf, 63), -EINVAL);
	KUNIT_EXPECT_EQ(test, f->ncmds, 2);
}

static struct kunit_case wren_cmds_cases[] = {
	KUNIT_CASE(wren_cmds_set_feature),
	KUNIT_CASE(wren_cmds_create_eq),
	KUNIT_CASE(wren_cmds_destroy),
	KUNIT_CASE(wren_cmds_release_fenced),
	KUNIT_CASE(wren_cmds_alloc_pd),
	KUNIT_CASE(wren_cmds_create_cq),
	KUNIT_CASE(wren_cmds_create_cq_bad_doorbell),
	KUNIT_CASE(wren_cmds_create_qp),
	KUNIT_CASE(wren_cmds_modify_qp),
	KUNIT_CASE(wren_cmds_query_qp),
	KUNIT_CASE(wren_cmds_srq),
	KUNIT_CASE(wren_cmds_create_ah),
	KUNIT_CASE(wren_cmds_reg_mr),
	KUNIT_CASE(wren_cmds_set_tc_table),
	KUNIT_CASE(wren_cmds_decode_attr),
	KUNIT_CASE(wren_cmds_get_stats),
	KUNIT_CASE(wren_cmds_get_set_stats),
	KUNIT_CASE(wren_cmds_counter_sets),
	KUNIT_CASE(wren_cmds_query_ctx),
	{}
};

static struct kunit_suite wren_cmds_suite = {
	.name = "wren_cmds",
	.test_cases = wren_cmds_cases,
};

kunit_test_suite(wren_cmds_suite);
