// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the kernel CQ's reading of completion entries (wren_ib_kcq.c):
 * which work request a completion retires, the fields and flags of the
 * work completion, the entries it drops, and the cleaning of a gone QP's
 * entries.
 */
#include <kunit/test.h>
#include <linux/rcupdate.h>

#include "wren_ib.h"

#define WREN_KCQ_QPN	7

struct wren_kcq_fixture {
	struct wren_ib_dev dev;
	struct wren_ib_qp qp;
	u64 sq_ids[8];
	u64 rq_ids[8];
};

/* A kernel QP of 8-entry queues, 5 sends and 2 receives posted. */
static struct wren_kcq_fixture *wren_kcq_fixture(struct kunit *test)
{
	struct wren_kcq_fixture *f;
	int i;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f);
	xa_init(&f->dev.qps);
	f->qp.kernel = true;
	f->qp.ibqp.qp_num = WREN_KCQ_QPN;
	f->qp.ksq.wr_ids = f->sq_ids;
	f->qp.ksq.log_depth = 3;
	f->qp.ksq.pi = 5;
	f->qp.krq.wr_ids = f->rq_ids;
	f->qp.krq.log_depth = 3;
	f->qp.krq.pi = 2;
	for (i = 0; i < 8; i++) {
		f->sq_ids[i] = 100 + i;
		f->rq_ids[i] = 200 + i;
	}
	KUNIT_ASSERT_EQ(test, xa_insert(&f->dev.qps, WREN_KCQ_QPN, &f->qp,
					GFP_KERNEL), 0);
	return f;
}

static void wren_kcq_fixture_exit(struct wren_kcq_fixture *f)
{
	xa_destroy(&f->dev.qps);
}

static bool wren_kcq_fill(struct wren_kcq_fixture *f,
			  const struct wren_cqe *cqe, struct ib_wc *wc)
{
	bool placed;

	rcu_read_lock();
	placed = wren_ib_kcq_fill(&f->dev, cqe, wc);
	rcu_read_unlock();
	return placed;
}

/* A send completion retires every slot up to its own, and no further. */
static void wren_kcq_send_retires(struct kunit *test)
{
	struct wren_kcq_fixture *f = wren_kcq_fixture(test);
	struct wren_cqe cqe = {
		.qpn = cpu_to_le32(WREN_KCQ_QPN),
		.opcode = WREN_CQE_OP_RDMA_WRITE,
		.wqe_index = cpu_to_le16(2),
	};
	struct ib_wc wc;

	KUNIT_EXPECT_TRUE(test, wren_kcq_fill(f, &cqe, &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 102);
	KUNIT_EXPECT_EQ(test, wc.status, IB_WC_SUCCESS);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RDMA_WRITE);
	KUNIT_EXPECT_PTR_EQ(test, wc.qp, &f->qp.ibqp);
	KUNIT_EXPECT_EQ(test, f->qp.ksq.ci, 3);
	/* Slot 6 holds nothing posted (5 were): dropped, nothing retired. */
	cqe.wqe_index = cpu_to_le16(6);
	KUNIT_EXPECT_FALSE(test, wren_kcq_fill(f, &cqe, &wc));
	KUNIT_EXPECT_EQ(test, f->qp.ksq.ci, 3);
	/* ... and slot 2 again is behind the consumer: dropped too. */
	cqe.wqe_index = cpu_to_le16(2);
	KUNIT_EXPECT_FALSE(test, wren_kcq_fill(f, &cqe, &wc));
	cqe.wqe_index = cpu_to_le16(4);
	cqe.opcode = WREN_CQE_OP_REG_MR;
	KUNIT_EXPECT_TRUE(test, wren_kcq_fill(f, &cqe, &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 104);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_REG_MR);
	KUNIT_EXPECT_EQ(test, f->qp.ksq.ci, 5);
	wren_kcq_fixture_exit(f);
}

/* A receive: its own queue, the sender, the GRH's type, an invalidation. */
static void wren_kcq_recv_fields(struct kunit *test)
{
	struct wren_kcq_fixture *f = wren_kcq_fixture(test);
	struct wren_cqe cqe = {
		.qpn = cpu_to_le32(WREN_KCQ_QPN),
		.opcode = WREN_CQE_OP_RECV,
		.flags = WREN_CQE_F_GRH | WREN_CQE_F_INV,
		.byte_len = cpu_to_le32(296),
		.src_qpn = cpu_to_le32(1),
		.inv_key = cpu_to_le32(0x1234),
	};
	struct ib_wc wc;

	KUNIT_EXPECT_TRUE(test, wren_kcq_fill(f, &cqe, &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 200);
	KUNIT_EXPECT_EQ(test, wc.opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wc.byte_len, 296);
	KUNIT_EXPECT_EQ(test, wc.src_qp, 1);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_GRH | IB_WC_WITH_INVALIDATE |
					    IB_WC_WITH_NETWORK_HDR_TYPE);
	KUNIT_EXPECT_EQ(test, wc.ex.invalidate_rkey, 0x1234);
	KUNIT_EXPECT_EQ(test, wc.network_hdr_type, RDMA_NETWORK_IPV6);
	KUNIT_EXPECT_EQ(test, f->qp.krq.ci, 1);
	KUNIT_EXPECT_EQ(test, f->qp.ksq.ci, 0);
	/* With immediate data: the data, and no invalidation. */
	cqe.flags = WREN_CQE_F_IMM;
	cqe.imm = cpu_to_be32(0xfeed);
	cqe.wqe_index = cpu_to_le16(1);
	KUNIT_EXPECT_TRUE(test, wren_kcq_fill(f, &cqe, &wc));
	KUNIT_EXPECT_EQ(test, wc.wr_id, 201);
	KUNIT_EXPECT_EQ(test, wc.wc_flags, IB_WC_WITH_IMM);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(wc.ex.imm_data), 0xfeed);
	wren_kcq_fixture_exit(f);
}

/* Statuses map to the verbs'; one the table does not know is general. */
static void wren_kcq_statuses(struct kunit *test)
{
	static const struct { u8 status; enum ib_wc_status want; } cases[] = {
		{ WREN_CQE_WR_FLUSH_ERR, IB_WC_WR_FLUSH_ERR },
		{ WREN_CQE_RNR, IB_WC_RNR_RETRY_EXC_ERR },
		{ WREN_CQE_REM_ACCESS_ERR, IB_WC_REM_ACCESS_ERR },
		{ WREN_CQE_LOC_DMA_ERR, IB_WC_GENERAL_ERR },
		{ 200, IB_WC_GENERAL_ERR },
	};
	struct wren_kcq_fixture *f = wren_kcq_fixture(test);
	struct wren_cqe cqe = {
		.qpn = cpu_to_le32(WREN_KCQ_QPN),
		.opcode = WREN_CQE_OP_SEND,
	};
	struct ib_wc wc;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cqe.status = cases[i].status;
		cqe.wqe_index = cpu_to_le16(i);
		KUNIT_EXPECT_TRUE(test, wren_kcq_fill(f, &cqe, &wc));
		KUNIT_EXPECT_EQ_MSG(test, wc.status, cases[i].want,
				    "status %u", cases[i].status);
		KUNIT_EXPECT_EQ(test, wc.vendor_err, cases[i].status);
	}
	wren_kcq_fixture_exit(f);
}

/* QP 0 (a cleaned entry), an unknown QP, a user's QP: dropped. */
static void wren_kcq_not_ours(struct kunit *test)
{
	struct wren_kcq_fixture *f = wren_kcq_fixture(test);
	struct wren_cqe cqe = { .opcode = WREN_CQE_OP_SEND };
	struct ib_wc wc;

	KUNIT_EXPECT_FALSE(test, wren_kcq_fill(f, &cqe, &wc));
	cqe.qpn = cpu_to_le32(WREN_KCQ_QPN + 1);
	KUNIT_EXPECT_FALSE(test, wren_kcq_fill(f, &cqe, &wc));
	f->qp.kernel = false;
	cqe.qpn = cpu_to_le32(WREN_KCQ_QPN);
	KUNIT_EXPECT_FALSE(test, wren_kcq_fill(f, &cqe, &wc));
	KUNIT_EXPECT_EQ(test, f->qp.ksq.ci, 0);
	wren_kcq_fixture_exit(f);
}

/*
 * Cleaning marks the QP's entries the device has written and the poller
 * has not read (those of this lap's phase, from the consumer index on),
 * and no other.
 */
static void wren_kcq_clean(struct kunit *test)
{
	struct wren_cqe *ring;
	struct wren_ib_cq cq = { .log_depth = 2, .ci = 1 };
	static const u32 qpns[] = { 7, 7, 9, 7 };
	unsigned int i;

	ring = kunit_kcalloc(test, 4, sizeof(*ring), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ring);
	spin_lock_init(&cq.lock);
	cq.ring.buf = ring;
	for (i = 0; i < 4; i++)
		ring[i].qpn = cpu_to_le32(qpns[i]);
	/* Slots 0 to 2 written on the first lap, slot 0 already read. */
	for (i = 0; i < 3; i++)
		ring[i].flags = WREN_CQE_F_PHASE;
	wren_ib_kcq_clean(&cq, 7);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[0].qpn), 7);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[1].qpn), 0);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[2].qpn), 9);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(ring[3].qpn), 7);
}

/*
 * A failed device: every work request posted flushes with WR_FLUSH_ERR,
 * in order, each queue on its own CQ, as many as asked at a time, once.
 */
static void wren_kcq_flush(struct kunit *test)
{
	struct wren_kcq_fixture *f = wren_kcq_fixture(test);
	struct ib_cq scq = {}, rcq = {};
	struct ib_wc wc[8];
	int i;

	f->qp.ibqp.send_cq = &scq;
	f->qp.ibqp.recv_cq = &rcq;
	rcu_read_lock();
	KUNIT_EXPECT_EQ(test, wren_ib_kcq_flush(&f->dev, &scq, 3, wc), 3);
	KUNIT_EXPECT_EQ(test, wren_ib_kcq_flush(&f->dev, &scq, 8, wc + 3), 2);
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, wc[i].wr_id, 100 + i);
		KUNIT_EXPECT_EQ(test, wc[i].status, IB_WC_WR_FLUSH_ERR);
		KUNIT_EXPECT_EQ(test, wc[i].opcode, IB_WC_SEND);
		KUNIT_EXPECT_PTR_EQ(test, wc[i].qp, &f->qp.ibqp);
	}
	KUNIT_EXPECT_EQ(test, wren_ib_kcq_flush(&f->dev, &scq, 8, wc), 0);
	KUNIT_EXPECT_EQ(test, wren_ib_kcq_flush(&f->dev, &rcq, 8, wc), 2);
	KUNIT_EXPECT_EQ(test, wc[0].wr_id, 200);
	KUNIT_EXPECT_EQ(test, wc[1].wr_id, 201);
	KUNIT_EXPECT_EQ(test, wc[1].opcode, IB_WC_RECV);
	KUNIT_EXPECT_EQ(test, wren_ib_kcq_flush(&f->dev, &rcq, 8, wc), 0);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, f->qp.ksq.ci, 5);
	KUNIT_EXPECT_EQ(test, f->qp.krq.ci, 2);
	wren_kcq_fixture_exit(f);
}

static struct kunit_case wren_kcq_cases[] = {
	KUNIT_CASE(wren_kcq_send_retires),
	KUNIT_CASE(wren_kcq_recv_fields),
	KUNIT_CASE(wren_kcq_statuses),
	KUNIT_CASE(wren_kcq_not_ours),
	KUNIT_CASE(wren_kcq_clean),
	KUNIT_CASE(wren_kcq_flush),
	{}
};

static struct kunit_suite wren_kcq_suite = {
	.name = "wren_kcq",
	.test_cases = wren_kcq_cases,
};

kunit_test_suite(wren_kcq_suite);
