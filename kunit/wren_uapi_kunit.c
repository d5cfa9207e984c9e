// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the RDMA driver's checks of what user space asks for, each
 * rejected combination against the errno Documentation/rdma-driver.rst
 * gives it, and the requests it must accept.
 */
#include <kunit/test.h>
#include <linux/inet.h>
#include <linux/mman.h>
#include <linux/uaccess.h>

#include "wren_ib.h"

static const struct wren_caps wren_uapi_caps = {
	.caps = WREN_CAP_UD | WREN_CAP_RD | WREN_CAP_RC | WREN_CAP_ATOMIC |
		WREN_CAP_SRQ | WREN_CAP_GSI,
	.max_cq_depth = 1000,
	.max_qp_depth = 512,
	.max_sge = 4,
	.max_recv_sge = 2,
	.max_inline = 64,
	.max_mr_size = 1ULL << 39,
	.mtu = 4096,
	.max_rd_atom = 16,
	.max_res_rd_atom = 64,
};

static struct wren_ib_dev *wren_uapi_dev(struct kunit *test,
					 const struct wren_caps *caps)
{
	struct wren_ib_dev *dev;

	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dev);
	dev->caps = caps;
	return dev;
}

/* A request of @len bytes in user memory: @req, then @extra bytes of @fill. */
static void __user *wren_uapi_user(struct kunit *test, const void *req,
				   size_t len, size_t extra, u8 fill)
{
	unsigned long addr;
	u8 *buf;

	addr = kunit_vm_mmap(test, NULL, 0, PAGE_SIZE, PROT_READ | PROT_WRITE,
			     MAP_ANONYMOUS | MAP_PRIVATE, 0);
	KUNIT_ASSERT_NE_MSG(test, addr, 0, "no user memory");
	buf = kunit_kzalloc(test, len + extra, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, req, len);
	memset(buf + len, fill, extra);
	KUNIT_ASSERT_EQ(test, copy_to_user((void __user *)addr, buf,
					   len + extra), 0);
	return (void __user *)addr;
}

/* Shorter, equal, longer with zeros, longer with garbage, unreadable. */
static void wren_uapi_copy_req_lengths(struct kunit *test)
{
	const struct wren_ib_create_qp_req in = {
		.comp_mask = 1, .driver_qp_type = 2, .flags = 3, .reserved = 4,
	};
	struct wren_ib_create_qp_req req;
	struct ib_udata udata = {};

	udata.inbuf = wren_uapi_user(test, &in, sizeof(in), 8, 0);
	udata.inlen = 8;
	memset(&req, 0, sizeof(req));
	KUNIT_EXPECT_EQ(test, wren_ib_copy_req(&udata, &req, sizeof(req)), 0);
	KUNIT_EXPECT_EQ(test, req.driver_qp_type, 2);
	KUNIT_EXPECT_EQ(test, req.flags, 0);

	udata.inlen = sizeof(in) + 8;
	memset(&req, 0, sizeof(req));
	KUNIT_EXPECT_EQ(test, wren_ib_copy_req(&udata, &req, sizeof(req)), 0);
	KUNIT_EXPECT_MEMEQ(test, &req, &in, sizeof(in));

	udata.inbuf = wren_uapi_user(test, &in, sizeof(in), 8, 0x01);
	KUNIT_EXPECT_EQ(test, wren_ib_copy_req(&udata, &req, sizeof(req)),
			-EOPNOTSUPP);

	/* A verb without a request takes only zeros. */
	udata.inbuf = wren_uapi_user(test, &in, 0, 16, 0);
	udata.inlen = 16;
	KUNIT_EXPECT_EQ(test, wren_ib_copy_req(&udata, NULL, 0), 0);
	udata.inbuf = wren_uapi_user(test, &in, 0, 16, 0x80);
	KUNIT_EXPECT_EQ(test, wren_ib_copy_req(&udata, NULL, 0), -EOPNOTSUPP);

	udata.inbuf = (const void __user *)TASK_SIZE;
	udata.inlen = sizeof(in);
	KUNIT_EXPECT_EQ(test, wren_ib_copy_req(&udata, &req, sizeof(req)),
			-EFAULT);
}

static void wren_uapi_ucontext(struct kunit *test)
{
	struct wren_ib_alloc_ucontext_req req = {};

	KUNIT_EXPECT_EQ(test, wren_ib_ucontext_check(&req), 0);
	req.comp_mask = 0x80000000;
	KUNIT_EXPECT_EQ(test, wren_ib_ucontext_check(&req), -EOPNOTSUPP);
	req.reserved = 1;
	KUNIT_EXPECT_EQ(test, wren_ib_ucontext_check(&req), -EOPNOTSUPP);
	req.comp_mask = 0;
	KUNIT_EXPECT_EQ(test, wren_ib_ucontext_check(&req), -EINVAL);
}

static void wren_uapi_create_cq(struct kunit *test)
{
	struct wren_ib_dev *dev = wren_uapi_dev(test, &wren_uapi_caps);
	static const struct {
		u32 cqe;
		int err;
		u8 log_depth;
	} depths[] = {
		{ 0, 0, 2 }, { 1, 0, 2 }, { 4, 0, 2 }, { 5, 0, 3 },
		{ 512, 0, 9 },
		/* Beyond max_cq_depth after rounding, and before. */
		{ 513, -EINVAL }, { 1000, -EINVAL }, { 1001, -EINVAL },
		{ U32_MAX, -EINVAL },
	};
	struct wren_ib_create_cq_req req = {};
	struct ib_cq_init_attr attr = {};
	unsigned int i;
	u8 log_depth;

	for (i = 0; i < ARRAY_SIZE(depths); i++) {
		attr.cqe = depths[i].cqe;
		log_depth = 0xff;
		KUNIT_EXPECT_EQ_MSG(test, wren_ib_cq_check(dev, &attr, &req,
							   &log_depth),
				    depths[i].err, "%u entries", depths[i].cqe);
		if (!depths[i].err)
			KUNIT_EXPECT_EQ(test, log_depth, depths[i].log_depth);
	}

	attr.cqe = 16;
	attr.flags = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION;
	KUNIT_EXPECT_EQ(test, wren_ib_cq_check(dev, &attr, &req, &log_depth),
			-EOPNOTSUPP);
	attr.flags = 0;
	req.comp_mask = 1;
	KUNIT_EXPECT_EQ(test, wren_ib_cq_check(dev, &attr, &req, &log_depth),
			-EOPNOTSUPP);
	req.comp_mask = 0;
	req.reserved = 1;
	KUNIT_EXPECT_EQ(test, wren_ib_cq_check(dev, &attr, &req, &log_depth),
			-EINVAL);
}

/**
 * struct wren_uapi_qp_case - one create_qp request and its answer
 * @name: what it tries
 * @type: the verbs QP type
 * @driver_qp_type: the request's driver QP type
 * @flags: the request's flags
 * @err: the errno
 */
struct wren_uapi_qp_case {
	const char *name;
	enum ib_qp_type type;
	u32 driver_qp_type;
	u32 flags;
	int err;
};

static const struct wren_uapi_qp_case wren_uapi_qp_types[] = {
	{ "UD", IB_QPT_UD, 0, 0, 0 },
	{ "UD with a driver type", IB_QPT_UD, WREN_IB_QP_DRIVER_TYPE_RD, 0,
	  -EINVAL },
	{ "UD with flags", IB_QPT_UD, 0, WREN_IB_QP_FLAG_ORDERED, -EINVAL },
	{ "RD", IB_QPT_DRIVER, WREN_IB_QP_DRIVER_TYPE_RD, 0, 0 },
	{ "RD, ordered, handshake", IB_QPT_DRIVER, WREN_IB_QP_DRIVER_TYPE_RD,
	  WREN_IB_QP_FLAG_ORDERED | WREN_IB_QP_FLAG_HANDSHAKE, 0 },
	{ "RD with an unknown flag", IB_QPT_DRIVER, WREN_IB_QP_DRIVER_TYPE_RD,
	  1U << 2, -EOPNOTSUPP },
	{ "driver QP without a type", IB_QPT_DRIVER, 0, 0, -EINVAL },
	{ "driver QP of an unknown type", IB_QPT_DRIVER, 2, 0, -EOPNOTSUPP },
	{ "RC", IB_QPT_RC, 0, 0, 0 },
	{ "RC with a driver type", IB_QPT_RC, WREN_IB_QP_DRIVER_TYPE_RD, 0,
	  -EINVAL },
	{ "RC with flags", IB_QPT_RC, 0, WREN_IB_QP_FLAG_ORDERED, -EINVAL },
	{ "UC", IB_QPT_UC, 0, 0, -EOPNOTSUPP },
	{ "raw packet", IB_QPT_RAW_PACKET, 0, 0, -EOPNOTSUPP },
	{ "XRC initiator", IB_QPT_XRC_INI, 0, 0, -EOPNOTSUPP },
};

static struct ib_qp_init_attr wren_uapi_qp_attr(struct ib_cq *cq)
{
	return (struct ib_qp_init_attr) {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 100,
			.max_recv_wr = 3,
			.max_send_sge = 4,
			.max_recv_sge = 2,
			.max_inline_data = 64,
		},
	};
}

static void wren_uapi_create_qp_types(struct kunit *test)
{
	struct wren_ib_dev *dev = wren_uapi_dev(test, &wren_uapi_caps);
	const struct wren_uapi_qp_case *c;
	struct wren_ib_create_qp_req req;
	struct wren_qp_params params;
	struct ib_qp_init_attr attr;
	struct ib_cq cq = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(wren_uapi_qp_types); i++) {
		c = &wren_uapi_qp_types[i];
		attr = wren_uapi_qp_attr(&cq);
		attr.qp_type = c->type;
		req = (struct wren_ib_create_qp_req) {
			.driver_qp_type = c->driver_qp_type,
			.flags = c->flags,
		};
		memset(&params, 0, sizeof(params));
		KUNIT_EXPECT_EQ_MSG(test, wren_ib_qp_check(dev, &attr, &req,
							   &params),
				    c->err, "%s", c->name);
		if (c->err)
			continue;
		KUNIT_EXPECT_EQ(test, params.type,
				c->type == IB_QPT_UD ? WREN_QPT_UD :
				c->type == IB_QPT_RC ? WREN_QPT_RC :
				WREN_QPT_RD);
		KUNIT_EXPECT_EQ(test, params.flags,
				(c->flags & WREN_IB_QP_FLAG_ORDERED ?
				 WREN_QP_FLAG_ORDERED : 0) |
				(c->flags & WREN_IB_QP_FLAG_HANDSHAKE ?
				 WREN_QP_FLAG_HANDSHAKE : 0));
		KUNIT_EXPECT_EQ(test, params.sq_log_depth, 7);
		KUNIT_EXPECT_EQ(test, params.rq_log_depth, 2);
	}

	/* The GSI QP is the device's UD QP of number 1. */
	attr = wren_uapi_qp_attr(&cq);
	attr.qp_type = IB_QPT_GSI;
	req = (struct wren_ib_create_qp_req) {};
	memset(&params, 0, sizeof(params));
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params), 0);
	KUNIT_EXPECT_EQ(test, params.type, WREN_QPT_UD);
	KUNIT_EXPECT_EQ(test, params.flags, WREN_QP_FLAG_GSI);
}

/* A device without UD, RD, RC or GSI refuses that type. */
static void wren_uapi_create_qp_missing_cap(struct kunit *test)
{
	struct ib_srq srq = {};
	struct wren_caps caps = wren_uapi_caps;
	struct wren_ib_dev *dev = wren_uapi_dev(test, &caps);
	struct wren_ib_create_qp_req req = {};
	struct wren_qp_params params = {};
	struct ib_cq cq = {};
	struct ib_qp_init_attr attr = wren_uapi_qp_attr(&cq);

	caps.caps = WREN_CAP_RD;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EOPNOTSUPP);
	caps.caps = WREN_CAP_UD;
	attr.qp_type = IB_QPT_DRIVER;
	req.driver_qp_type = WREN_IB_QP_DRIVER_TYPE_RD;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EOPNOTSUPP);
	attr.qp_type = IB_QPT_RC;
	req.driver_qp_type = 0;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EOPNOTSUPP);
	attr.qp_type = IB_QPT_GSI;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EOPNOTSUPP);
	/* ... and one without SRQs a QP on an SRQ. */
	caps.caps = WREN_CAP_UD;
	attr = wren_uapi_qp_attr(&cq);
	attr.srq = &srq;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EOPNOTSUPP);
}

static void wren_uapi_create_qp_attrs(struct kunit *test)
{
	struct wren_ib_dev *dev = wren_uapi_dev(test, &wren_uapi_caps);
	struct wren_ib_create_qp_req req = {};
	struct wren_qp_params params = {};
	struct ib_cq cq = {};
	struct ib_qp_init_attr attr;
	struct ib_srq srq = {};

#define WREN_UAPI_QP_EXPECT(field, value, errno) do {			\
		attr = wren_uapi_qp_attr(&cq);				\
		attr.field = value;					\
		KUNIT_EXPECT_EQ_MSG(test, wren_ib_qp_check(dev, &attr, &req, \
							   &params),	\
				    errno, #field " = " #value);	\
	} while (0)

	WREN_UAPI_QP_EXPECT(srq, &srq, 0);
	WREN_UAPI_QP_EXPECT(create_flags, IB_QP_CREATE_SCATTER_FCS, -EOPNOTSUPP);
	WREN_UAPI_QP_EXPECT(cap.max_send_wr, 512, 0);
	WREN_UAPI_QP_EXPECT(cap.max_send_wr, 513, -EINVAL);
	WREN_UAPI_QP_EXPECT(cap.max_recv_wr, 513, -EINVAL);
	WREN_UAPI_QP_EXPECT(cap.max_recv_wr, U32_MAX, -EINVAL);
	WREN_UAPI_QP_EXPECT(cap.max_send_sge, 5, -EINVAL);
	WREN_UAPI_QP_EXPECT(cap.max_recv_sge, 3, -EINVAL);
	WREN_UAPI_QP_EXPECT(cap.max_inline_data, 65, -EINVAL);
	WREN_UAPI_QP_EXPECT(send_cq, NULL, -EINVAL);
	WREN_UAPI_QP_EXPECT(recv_cq, NULL, -EINVAL);
#undef WREN_UAPI_QP_EXPECT

	/* On an SRQ: no receive queue, whatever its depth would be. */
	attr = wren_uapi_qp_attr(&cq);
	attr.srq = &srq;
	attr.cap.max_recv_wr = U32_MAX;
	params = (struct wren_qp_params) {};
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params), 0);
	KUNIT_EXPECT_EQ(test, params.rq_log_depth, 0);
	KUNIT_EXPECT_EQ(test, params.sq_log_depth, 7);

	attr = wren_uapi_qp_attr(&cq);
	req.comp_mask = 1;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EOPNOTSUPP);
	req.comp_mask = 0;
	req.reserved = 1;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EINVAL);
	req.reserved = 0;

	attr.sq_sig_type = IB_SIGNAL_ALL_WR;
	params.flags = 0;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params), 0);
	KUNIT_EXPECT_EQ(test, params.flags, WREN_QP_FLAG_SQ_SIG_ALL);
}

/*
 * The entries' sizes: the smallest that hold what is asked for, up to the
 * device's limits, which the largest entries bound.
 */
static void wren_uapi_create_qp_entry_sizes(struct kunit *test)
{
	struct wren_caps caps = wren_uapi_caps;
	struct wren_ib_dev *dev = wren_uapi_dev(test, &caps);
	struct wren_ib_create_qp_req req = {};
	struct wren_qp_params params;
	struct ib_qp_init_attr attr;
	struct ib_cq cq = {};
	static const struct {
		u32 send_sge, inline_data, recv_sge;
		u8 sq_shift, rq_shift;
	} cases[] = {
		{ 1, 0, 1, 0, 0 },
		{ 5, 80, 3, 0, 0 },
		{ 6, 0, 4, 1, 1 },
		{ 0, 81, 0, 1, 0 },
		{ 13, 208, 7, 1, 1 },
		{ 14, 0, 8, 2, 2 },
		{ 16, 0, 16, 2, 3 },
		{ 29, 464, 31, 2, 3 },
	};

	caps.caps |= WREN_CAP_WQE_SHIFT;
	caps.max_sge = WREN_SQ_WQE_SGE(WREN_SQ_WQE_SHIFT_MAX);
	caps.max_recv_sge = WREN_RQ_WQE_SGE(WREN_RQ_WQE_SHIFT_MAX);
	caps.max_inline = WREN_SQ_WQE_INLINE(WREN_SQ_WQE_SHIFT_MAX);
	for (unsigned int i = 0; i < ARRAY_SIZE(cases); i++) {
		attr = wren_uapi_qp_attr(&cq);
		attr.cap.max_send_sge = cases[i].send_sge;
		attr.cap.max_inline_data = cases[i].inline_data;
		attr.cap.max_recv_sge = cases[i].recv_sge;
		params = (struct wren_qp_params) {};
		KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req,
						       &params), 0);
		KUNIT_EXPECT_EQ_MSG(test, params.sq_wqe_shift,
				    cases[i].sq_shift, "case %u", i);
		KUNIT_EXPECT_EQ_MSG(test, params.rq_wqe_shift,
				    cases[i].rq_shift, "case %u", i);
	}
	attr = wren_uapi_qp_attr(&cq);
	attr.cap.max_send_sge = caps.max_sge + 1;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EINVAL);
	attr = wren_uapi_qp_attr(&cq);
	attr.cap.max_recv_sge = caps.max_recv_sge + 1;
	KUNIT_EXPECT_EQ(test, wren_ib_qp_check(dev, &attr, &req, &params),
			-EINVAL);
}

static void wren_uapi_modify_qp(struct kunit *test)
{
	struct wren_ib_dev *dev = wren_uapi_dev(test, &wren_uapi_caps);
	const int to_init = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
			    IB_QP_QKEY;
	const int rtr = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	struct ib_qp_attr attr = { .port_num = 1, .qkey = 0x11111111 };
	struct wren_ib_qp qp = { .ibqp.qp_type = IB_QPT_UD };
	u8 state;

	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, to_init,
						      IB_QPS_RESET, IB_QPS_INIT), 0);
	/* The GSI QP goes to INIT without a port, as the MAD layer asks. */
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      to_init & ~IB_QP_PORT,
						      IB_QPS_RESET, IB_QPS_INIT),
			-EINVAL);
	qp.ibqp.qp_type = IB_QPT_GSI;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      to_init & ~IB_QP_PORT,
						      IB_QPS_RESET, IB_QPS_INIT), 0);
	qp.ibqp.qp_type = IB_QPT_UD;
	/* Attributes a datagram QP has no use for. */
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      to_init | IB_QP_AV,
						      IB_QPS_RESET, IB_QPS_INIT),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      IB_QP_STATE | IB_QP_RNR_RETRY,
						      IB_QPS_RTR, IB_QPS_RTS),
			-EOPNOTSUPP);
	/* Out of UD's diagram, or a required attribute missing. */
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      IB_QP_STATE, IB_QPS_RESET,
						      IB_QPS_RTS), -EINVAL);
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      IB_QP_STATE, IB_QPS_RESET,
						      IB_QPS_INIT), -EINVAL);
	/* Values out of range. */
	attr.pkey_index = 1;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, to_init,
						      IB_QPS_RESET, IB_QPS_INIT),
			-EINVAL);
	attr.pkey_index = 0;
	attr.port_num = 2;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, to_init,
						      IB_QPS_RESET, IB_QPS_INIT),
			-EINVAL);

	/* RC: its own diagram, the path and the device's limits. */
	qp.ibqp.qp_type = IB_QPT_RC;
	attr = (struct ib_qp_attr) {
		.port_num = 1,
		.path_mtu = IB_MTU_4096,
		.max_dest_rd_atomic = 64,
		.max_rd_atomic = 16,
		.dest_qp_num = WREN_QPN_FIRST,
	};
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      IB_QP_STATE | IB_QP_PKEY_INDEX |
						      IB_QP_PORT |
						      IB_QP_ACCESS_FLAGS,
						      IB_QPS_RESET, IB_QPS_INIT), 0);
	/* A Q_Key is not RC's; a path without its peer is no path. */
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, to_init,
						      IB_QPS_RESET, IB_QPS_INIT),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      rtr & ~IB_QP_DEST_QPN,
						      IB_QPS_INIT, IB_QPS_RTR),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, rtr,
						      IB_QPS_INIT, IB_QPS_RTR), 0);
	/*
	 * A peer QP number the device would reject: a special QP's, or
	 * beyond 24 bits (found by the uverbs fuzzer: the rejected command
	 * was logged as a driver bug).
	 */
	attr.dest_qp_num = WREN_QPN_GSI;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, rtr,
						      IB_QPS_INIT, IB_QPS_RTR),
			-EINVAL);
	attr.dest_qp_num = 1U << 24;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, rtr,
						      IB_QPS_INIT, IB_QPS_RTR),
			-EINVAL);
	attr.dest_qp_num = (1U << 24) - 1;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, rtr,
						      IB_QPS_INIT, IB_QPS_RTR), 0);
	attr.dest_qp_num = WREN_QPN_FIRST;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      rtr | IB_QP_ALT_PATH,
						      IB_QPS_INIT, IB_QPS_RTR),
			-EOPNOTSUPP);
	attr.max_dest_rd_atomic = 65;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, rtr,
						      IB_QPS_INIT, IB_QPS_RTR),
			-EINVAL);
	attr.max_dest_rd_atomic = 64;
	attr.path_mtu = IB_MTU_4096 + 1;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr, rtr,
						      IB_QPS_INIT, IB_QPS_RTR),
			-EINVAL);
	attr.max_rd_atomic = 17;
	KUNIT_EXPECT_EQ(test, wren_ib_modify_qp_check(dev, &qp, &attr,
						      IB_QP_STATE | IB_QP_SQ_PSN |
						      IB_QP_TIMEOUT |
						      IB_QP_RETRY_CNT |
						      IB_QP_RNR_RETRY |
						      IB_QP_MAX_QP_RD_ATOMIC,
						      IB_QPS_RTR, IB_QPS_RTS),
			-EINVAL);

	/* The diagram allows SQD and SQE; SQD is RC's, SQE nobody's. */
	KUNIT_EXPECT_EQ(test, wren_ib_qps_to_wren(IB_QPS_SQD, false, &state),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, wren_ib_qps_to_wren(IB_QPS_SQD, true, &state), 0);
	KUNIT_EXPECT_EQ(test, state, WREN_QPS_SQD);
	KUNIT_EXPECT_EQ(test, wren_ib_qps_to_wren(IB_QPS_SQE, true, &state),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, wren_ib_qps_to_wren(IB_QPS_RTS, false, &state), 0);
	KUNIT_EXPECT_EQ(test, state, WREN_QPS_RTS);
	KUNIT_EXPECT_EQ(test, wren_ib_qps_to_wren(IB_QPS_ERR, false, &state), 0);
	KUNIT_EXPECT_EQ(test, state, WREN_QPS_ERR);
}

static void wren_uapi_reg_mr(struct kunit *test)
{
	struct wren_ib_dev *dev = wren_uapi_dev(test, &wren_uapi_caps);
	static const int refused[] = {
		IB_ACCESS_MW_BIND, IB_ZERO_BASED, IB_ACCESS_ON_DEMAND,
		IB_ACCESS_FLUSH_GLOBAL,
	};
	struct wren_caps no_atomics = wren_uapi_caps;
	struct wren_ib_dev *plain = wren_uapi_dev(test, &no_atomics);
	const int rw = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		       IB_ACCESS_REMOTE_READ;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(dev, 4096, rw), 0);
	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(dev, 4096, 0), 0);
	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(dev, 4096,
					       rw | IB_ACCESS_RELAXED_ORDERING |
					       IB_ACCESS_HUGETLB), 0);
	for (i = 0; i < ARRAY_SIZE(refused); i++)
		KUNIT_EXPECT_EQ_MSG(test, wren_ib_mr_check(dev, 4096,
							   rw | refused[i]),
				    -EOPNOTSUPP, "access %#x", refused[i]);
	/* Remote atomic access where the device has atomics only. */
	no_atomics.caps &= ~WREN_CAP_ATOMIC;
	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(dev, 4096,
					       rw | IB_ACCESS_REMOTE_ATOMIC), 0);
	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(plain, 4096,
					       rw | IB_ACCESS_REMOTE_ATOMIC),
			-EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(dev, 0, rw), -EINVAL);
	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(dev, 1ULL << 39, rw), 0);
	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(dev, (1ULL << 39) + 1, rw),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, wren_ib_mr_check(dev, U64_MAX, rw), -EINVAL);
}

static void wren_uapi_ah_gid(struct rdma_ah_attr *ah, const char *ip6)
{
	struct in6_addr *gid = (struct in6_addr *)ah->grh.dgid.raw;

	memset(ah, 0, sizeof(*ah));
	ah->type = RDMA_AH_ATTR_TYPE_ROCE;
	ah->ah_flags = IB_AH_GRH;
	WARN_ON(in6_pton(ip6, -1, gid->s6_addr, -1, NULL) != 1);
}

static void wren_uapi_create_ah(struct kunit *test)
{
	struct wren_ib_dev *dev = wren_uapi_dev(test, &wren_uapi_caps);
	static const char * const refused[] = {
		"fe80::1", "::1", "::", "::ffff:0.0.0.0",
		"::ffff:127.0.0.1", "::ffff:224.0.0.1", "::ffff:239.1.1.1",
		"::ffff:240.0.0.1", "::ffff:255.255.255.255",
	};
	struct rdma_ah_attr ah;
	__be32 ipv4 = 0;
	unsigned int i;

	wren_uapi_ah_gid(&ah, "::ffff:10.0.0.2");
	KUNIT_EXPECT_EQ(test, wren_ib_ah_dest(dev, &ah, &ipv4), 0);
	KUNIT_EXPECT_EQ(test, ntohl(ipv4), 0x0a000002);
	ah.ah_flags = 0;
	KUNIT_EXPECT_EQ(test, wren_ib_ah_dest(dev, &ah, &ipv4), -EINVAL);
	for (i = 0; i < ARRAY_SIZE(refused); i++) {
		wren_uapi_ah_gid(&ah, refused[i]);
		KUNIT_EXPECT_EQ_MSG(test, wren_ib_ah_dest(dev, &ah, &ipv4),
				    -EINVAL, "%s", refused[i]);
	}
}

static struct kunit_case wren_uapi_cases[] = {
	KUNIT_CASE(wren_uapi_copy_req_lengths),
	KUNIT_CASE(wren_uapi_ucontext),
	KUNIT_CASE(wren_uapi_create_cq),
	KUNIT_CASE(wren_uapi_create_qp_types),
	KUNIT_CASE(wren_uapi_create_qp_missing_cap),
	KUNIT_CASE(wren_uapi_create_qp_attrs),
	KUNIT_CASE(wren_uapi_create_qp_entry_sizes),
	KUNIT_CASE(wren_uapi_modify_qp),
	KUNIT_CASE(wren_uapi_reg_mr),
	KUNIT_CASE(wren_uapi_create_ah),
	{}
};

static struct kunit_suite wren_uapi_suite = {
	.name = "wren_uapi",
	.test_cases = wren_uapi_cases,
};

kunit_test_suite(wren_uapi_suite);
