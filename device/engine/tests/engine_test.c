// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of the Wren engine against the fake host of fake_env.c.
 * Each test plays the driver: it programs registers, writes admin
 * commands into fake guest memory, rings doorbells and reads what the
 * engine wrote back.  Output is TAP, then a "N passed, N failed" line.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "weng_internal.h"
#include "wren_tp.h"
#include "linux/wren/wren_wire.h"
#include "fake_env.h"
#include "tap.h"

int tap_failed_checks;

/* Where the fake driver keeps its rings in fake guest memory. */
#define AQ_BASE		(FAKE_MEM_BASE + 0x0000)
#define ACQ_BASE	(FAKE_MEM_BASE + 0x10000)
#define AEQ_BASE	(FAKE_MEM_BASE + 0x20000)
#define BUF_BASE	(FAKE_MEM_BASE + 0x30000)
#define EQ_BASE		(FAKE_MEM_BASE + 0x40000)
#define OUTSIDE		(FAKE_MEM_BASE + 2 * FAKE_MEM_SIZE)

struct harness {
	struct fake_env env;
	struct weng_config cfg;
	struct weng *e;
	unsigned int aq_log;
	unsigned int aeq_log;
	uint16_t aq_tail;	/* driver's producer index */
	uint16_t acq_head;	/* driver's completion consumer index */
	uint16_t aeq_head;
	uint32_t lkey, rkey;	/* of the last REG_MR */
};

static void h_init(struct harness *h)
{
	memset(h, 0, sizeof(*h));
	fake_env_init(&h->env);
	weng_config_defaults(&h->cfg);
	memcpy(h->cfg.mac, "\x02\x00\x5e\x10\x20\x30", 6);
	strcpy(h->cfg.serial, "WREN-TEST-0001");
}

static void h_start(struct harness *h)
{
	h->e = weng_create(&h->cfg, &fake_env_ops, &h->env);
	if (!h->e)
		abort();
}

static void h_fini(struct harness *h)
{
	weng_destroy(h->e);
	fake_env_fini(&h->env);
}

static void reg_w(struct harness *h, uint32_t off, uint32_t val)
{
	weng_reg_write(h->e, off, val, 4);
}

static uint32_t reg_r(struct harness *h, uint32_t off)
{
	return weng_reg_read(h->e, off, 4);
}

static void program_queues(struct harness *h, uint64_t aq, uint64_t acq,
			   uint64_t aeq, uint32_t aq_log, uint32_t acq_log,
			   uint32_t aeq_log)
{
	reg_w(h, WREN_REG_AQ_BASE_LO, (uint32_t)aq);
	reg_w(h, WREN_REG_AQ_BASE_HI, aq >> 32);
	reg_w(h, WREN_REG_AQ_CFG, aq_log);
	reg_w(h, WREN_REG_ACQ_BASE_LO, (uint32_t)acq);
	reg_w(h, WREN_REG_ACQ_BASE_HI, acq >> 32);
	reg_w(h, WREN_REG_ACQ_CFG, acq_log);
	reg_w(h, WREN_REG_AEQ_BASE_LO, (uint32_t)aeq);
	reg_w(h, WREN_REG_AEQ_BASE_HI, aeq >> 32);
	reg_w(h, WREN_REG_AEQ_CFG, aeq_log);
}

/* Bring the device up the way the driver does; returns DEV_STS. */
static uint32_t h_enable(struct harness *h, unsigned int aq_log,
			 unsigned int aeq_log)
{
	h->aq_log = aq_log;
	h->aeq_log = aeq_log;
	h->aq_tail = h->acq_head = h->aeq_head = 0;
	memset(h->env.mem, 0, FAKE_MEM_SIZE);
	reg_w(h, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET);
	program_queues(h, AQ_BASE, ACQ_BASE, AEQ_BASE, aq_log, aq_log,
		       aeq_log);
	reg_w(h, WREN_REG_DEV_CTL, WREN_DEV_CTL_ENABLE);
	return reg_r(h, WREN_REG_DEV_STS);
}

static uint8_t lap_phase(uint32_t index, unsigned int log_depth)
{
	return !((index >> log_depth) & 1);
}

/* Write @cmd at the driver's tail with the right phase; no doorbell. */
static void post(struct harness *h, struct wren_admin_cmd *cmd)
{
	uint32_t slot = h->aq_tail & ((1U << h->aq_log) - 1);
	struct wren_admin_cmd *dst =
		fake_env_ptr(&h->env, AQ_BASE + slot * sizeof(*cmd),
			     sizeof(*cmd));

	cmd->hdr.flags = (cmd->hdr.flags & ~WREN_ADMIN_FLAG_PHASE) |
			 lap_phase(h->aq_tail, h->aq_log);
	memcpy(dst, cmd, sizeof(*cmd));
	h->aq_tail++;
}

static void ring(struct harness *h)
{
	reg_w(h, WREN_REG_AQ_DB, h->aq_tail);
}

/* The next completion, if the device wrote one; consumes it. */
static bool reap(struct harness *h, struct wren_admin_cqe *cqe)
{
	uint32_t slot = h->acq_head & ((1U << h->aq_log) - 1);
	const struct wren_admin_cqe *src =
		fake_env_ptr(&h->env, ACQ_BASE + slot * sizeof(*cqe),
			     sizeof(*cqe));

	if ((src->flags & WREN_ADMIN_FLAG_PHASE) !=
	    lap_phase(h->acq_head, h->aq_log))
		return false;
	memcpy(cqe, src, sizeof(*cqe));
	h->acq_head++;
	return true;
}

/* Post one command, ring, reap its completion; false if none came. */
static bool exec(struct harness *h, struct wren_admin_cmd *cmd,
		 struct wren_admin_cqe *cqe)
{
	post(h, cmd);
	ring(h);
	return reap(h, cqe);
}

static void make_cmd(struct wren_admin_cmd *cmd, uint8_t opcode,
		     uint16_t cmd_id)
{
	memset(cmd, 0, sizeof(*cmd));
	cmd->hdr.opcode = opcode;
	cmd->hdr.cmd_id = wren_to_le16(cmd_id);
}

static void make_get_attr(struct wren_admin_cmd *cmd, uint16_t id,
			  uint64_t addr, uint32_t len)
{
	struct wren_cmd_get_attr *body = (void *)cmd->payload;

	make_cmd(cmd, WREN_ADMIN_GET_ATTR, id);
	body->buf_addr = wren_to_le64(addr);
	body->buf_len = wren_to_le32(len);
}

static void make_handle(struct wren_admin_cmd *cmd, uint8_t opcode,
			uint16_t id, uint32_t handle)
{
	struct wren_cmd_destroy_obj *body = (void *)cmd->payload;

	make_cmd(cmd, opcode, id);
	body->handle = wren_to_le32(handle);
}

/* The next async event, if one is waiting; consumes it (no doorbell). */
static bool aeq_next(struct harness *h, struct wren_aeq_entry *ev)
{
	uint32_t slot = h->aeq_head & ((1U << h->aeq_log) - 1);
	const struct wren_aeq_entry *src =
		fake_env_ptr(&h->env, AEQ_BASE + slot * sizeof(*ev),
			     sizeof(*ev));

	if ((src->flags & WREN_AEQ_FLAG_PHASE) !=
	    lap_phase(h->aeq_head, h->aeq_log))
		return false;
	memcpy(ev, src, sizeof(*ev));
	h->aeq_head++;
	return true;
}

/* ------------------------------------------------------------------ */

static void test_reset_handshake(void)
{
	struct harness h;
	uint32_t v;

	h_init(&h);
	h_start(&h);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS), WREN_DEV_STS_READY);
	v = reg_r(&h, WREN_REG_VERSION);
	CHECK_EQ(FIELD_GET(WREN_VERSION_MAJOR, v), WREN_SPEC_VERSION_MAJOR);
	CHECK_EQ(FIELD_GET(WREN_VERSION_MINOR, v), WREN_SPEC_VERSION_MINOR);
	v = reg_r(&h, WREN_REG_TIMEOUTS);
	CHECK_EQ(FIELD_GET(WREN_TIMEOUTS_RESET_MS, v), 1000);
	CHECK_EQ(FIELD_GET(WREN_TIMEOUTS_ADMIN_MS, v), 1000);
	CHECK_EQ(reg_r(&h, WREN_REG_CAPS_LO),
		 WREN_CAP_KEEP_ALIVE | WREN_CAP_ADMIN_INTR | WREN_CAP_UD |
		 WREN_CAP_RD | WREN_CAP_TC_TABLE | WREN_CAP_RDMA_WRITE |
		 WREN_CAP_RDMA_READ | WREN_CAP_RESIZE_CQ | WREN_CAP_RC |
		 WREN_CAP_REREG_MR | WREN_CAP_ATOMIC | WREN_CAP_SRQ |
		 WREN_CAP_WQE_SHIFT | WREN_CAP_DMA_LKEY | WREN_CAP_RAW_ETH |
		 WREN_CAP_GSI | WREN_CAP_WQE_AV | WREN_CAP_FAST_REG |
		 WREN_CAP_COUNTER_SETS | WREN_CAP_QUERY_CTX);
	CHECK_EQ(reg_r(&h, WREN_REG_CAPS_HI), 0);

	CHECK_EQ(h_enable(&h, 3, 3),
		 WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);
	CHECK_EQ(reg_r(&h, WREN_REG_AQ_CFG), 3);
	/* Queue registers are frozen while enabled. */
	reg_w(&h, WREN_REG_AQ_CFG, 5);
	CHECK_EQ(reg_r(&h, WREN_REG_AQ_CFG), 3);
	CHECK_EQ(h.env.warnings[WENG_WRN_NOT_READY], 1);

	reg_w(&h, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS), WREN_DEV_STS_READY);
	CHECK_EQ(reg_r(&h, WREN_REG_AQ_CFG), 0);
	CHECK_EQ(reg_r(&h, WREN_REG_AQ_BASE_LO), 0);
	/* And again: a second bring-up after a reset works. */
	CHECK_EQ(h_enable(&h, 2, 2),
		 WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);
	h_fini(&h);
}

static void expect_fatal_cfg(struct harness *h, const char *what)
{
	uint32_t sts = reg_r(h, WREN_REG_DEV_STS);

	if (!(sts & WREN_DEV_STS_FATAL) ||
	    FIELD_GET(WREN_DEV_STS_FATAL_CODE, sts) != WREN_FATAL_BAD_QUEUE_CFG ||
	    sts & WREN_DEV_STS_ENABLED) {
		tap_failed_checks++;
		printf("#   %s: DEV_STS 0x%x\n", what, sts);
	}
}

static void try_cfg(uint64_t aq, uint64_t acq, uint64_t aeq, uint32_t aq_log,
		    uint32_t acq_log, uint32_t aeq_log, const char *what)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	unsigned int warned;

	h_init(&h);
	h_start(&h);
	program_queues(&h, aq, acq, aeq, aq_log, acq_log, aeq_log);
	reg_w(&h, WREN_REG_DEV_CTL, WREN_DEV_CTL_ENABLE);
	expect_fatal_cfg(&h, what);
	warned = h.env.warnings[WENG_WRN_QUEUE_CFG];
	if (warned != 1) {
		tap_failed_checks++;
		printf("#   %s: %u queue-config warnings\n", what, warned);
	}
	/* A fatal device ignores doorbells and writes nothing. */
	h.aq_log = 2;
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 1);
	post(&h, &cmd);
	ring(&h);
	CHECK(h.env.warnings[WENG_WRN_DOORBELL] >= 1);
	CHECK_EQ(h.env.irqs[0], 0);
	/* A reset clears FATAL. */
	reg_w(&h, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS), WREN_DEV_STS_READY);
	h_fini(&h);
}

static void test_bad_queue_cfg(void)
{
	try_cfg(AQ_BASE, ACQ_BASE, AEQ_BASE, 1, 1, 2, "depth too small");
	try_cfg(AQ_BASE, ACQ_BASE, AEQ_BASE, 13, 13, 2, "depth too large");
	try_cfg(AQ_BASE, ACQ_BASE, AEQ_BASE, 3, 4, 2, "acq != aq depth");
	try_cfg(AQ_BASE + 64, ACQ_BASE, AEQ_BASE, 3, 3, 2, "unaligned aq");
	try_cfg(AQ_BASE, 0, AEQ_BASE, 3, 3, 2, "acq at zero");
	try_cfg(AQ_BASE, ACQ_BASE, AEQ_BASE + 8, 3, 3, 2, "unaligned aeq");
	try_cfg(AQ_BASE, ACQ_BASE, AEQ_BASE, 3 | 0x100, 3, 2, "cfg junk");
}

static void test_get_attr(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_dev_attr *a;
	uint8_t *buf;
	uint32_t fw;

	h_init(&h);
	h.cfg.mtu = 1500;
	h.cfg.ipv4 = htobe32(0x0a000102);	/* 10.0.1.2 */
	h.cfg.msix_vectors = 5;
	h_start(&h);
	h_enable(&h, 3, 3);

	buf = fake_env_ptr(&h.env, BUF_BASE, 4096);
	memset(buf, 0xa5, 4096);
	make_get_attr(&cmd, 0x1234, BUF_BASE, 4096);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le16(cqe.cmd_id), 0x1234);
	CHECK_EQ(wren_le16(cqe.sq_head), 1);
	CHECK_EQ(wren_le32(cqe.result[0]), sizeof(struct wren_dev_attr));
	CHECK_EQ(h.env.irqs[0], 1);

	a = (struct wren_dev_attr *)buf;
	CHECK_EQ(wren_le32(a->spec_version),
		 FIELD_PREP(WREN_VERSION_MAJOR, WREN_SPEC_VERSION_MAJOR) |
		 FIELD_PREP(WREN_VERSION_MINOR, WREN_SPEC_VERSION_MINOR));
	fw = wren_le32(a->fw_version);
	CHECK_EQ(FIELD_GET(WREN_FW_VERSION_MAJOR, fw), 1);
	CHECK_EQ(FIELD_GET(WREN_FW_VERSION_MINOR, fw), 0);
	CHECK_EQ(FIELD_GET(WREN_FW_VERSION_PATCH, fw), 0);
	CHECK_EQ(wren_le64(a->caps), WREN_CAP_KEEP_ALIVE | WREN_CAP_ADMIN_INTR |
		 WREN_CAP_UD | WREN_CAP_RD | WREN_CAP_TC_TABLE |
		 WREN_CAP_RDMA_WRITE | WREN_CAP_RDMA_READ |
		 WREN_CAP_RESIZE_CQ | WREN_CAP_RC |
		 WREN_CAP_REREG_MR | WREN_CAP_ATOMIC | WREN_CAP_SRQ |
		 WREN_CAP_WQE_SHIFT | WREN_CAP_DMA_LKEY | WREN_CAP_RAW_ETH |
		 WREN_CAP_GSI | WREN_CAP_WQE_AV | WREN_CAP_FAST_REG |
		 WREN_CAP_COUNTER_SETS | WREN_CAP_QUERY_CTX);
	CHECK(!memcmp(a->mac_addr, "\x02\x00\x5e\x10\x20\x30", 6));
	/* EUI-64 of 02:00:5e:10:20:30 is 00:00:5e:ff:fe:10:20:30. */
	CHECK_EQ(wren_le64(a->node_guid), 0x00005efffe102030ULL);
	CHECK_EQ(wren_le16(a->mtu), 1500);
	CHECK_EQ(a->ipv4_addr, htobe32(0x0a000102));
	CHECK(!memcmp(a->gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\x00\x01\x02",
		      16));
	CHECK(!strcmp((const char *)a->serial, "WREN-TEST-0001"));
	CHECK_EQ(a->serial[31], 0);
	CHECK_EQ(wren_le32(a->link_speed_mbps), 100000);
	CHECK_EQ(wren_le32(a->max_eq), 5);
	CHECK_EQ(wren_le32(a->msix_vectors), 5);
	CHECK_EQ(wren_le32(a->max_pd), 1024);
	CHECK_EQ(wren_le32(a->max_qp_depth), 4096);
	CHECK_EQ(wren_le32(a->max_sge), 29);
	CHECK_EQ(wren_le32(a->max_recv_sge), 31);
	CHECK_EQ(wren_le32(a->max_inline), 464);
	CHECK_EQ(wren_le32(a->db_page_count), 256);
	CHECK_EQ(wren_le64(a->max_mr_size), 512ULL << 30);
	CHECK_EQ(wren_le64(a->page_size_cap),
		 (1ULL << 12) | (1ULL << 21) | (1ULL << 30));
	CHECK_EQ(wren_le32(a->max_msg_size), WREN_WIRE_MAX_MSG_LEN);
	CHECK_EQ(wren_le32(a->tc_cache), 1024);
	CHECK_EQ(a->min_tc_log, 10);
	CHECK_EQ(a->max_tc_log, 20);
	CHECK_EQ(a->rsvd0, 0);
	CHECK_EQ(wren_le32(a->max_rd_atom), 128);
	CHECK_EQ(wren_le32(a->max_res_rd_atom), 4 * 4096);
	CHECK_EQ(wren_le32(a->max_srq), 1024);
	CHECK_EQ(wren_le32(a->max_counter_set), WENG_DEFAULT_COUNTER_SETS);
	for (unsigned int i = 0; i < sizeof(a->rsvd) / sizeof(a->rsvd[0]); i++)
		CHECK_EQ(a->rsvd[i], 0);
	/* Nothing past the structure was touched. */
	CHECK_EQ(buf[sizeof(*a)], 0xa5);

	/* A short buffer gets a truncated copy and the full size. */
	memset(buf, 0xa5, 4096);
	make_get_attr(&cmd, 2, BUF_BASE, 64);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), sizeof(struct wren_dev_attr));
	CHECK_EQ(buf[63], 'S');		/* "WREN-TEST"[7], serial at 56 */
	CHECK_EQ(buf[64], 0xa5);

	/* Lengths outside 64..4096 are refused, naming buf_len. */
	make_get_attr(&cmd, 3, BUF_BASE, 63);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 sizeof(struct wren_admin_cmd_hdr) +
		 offsetof(struct wren_cmd_get_attr, buf_len) + 1);
	make_get_attr(&cmd, 4, BUF_BASE, 4097);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);

	/* A buffer outside guest memory is a DMA error, not a crash. */
	make_get_attr(&cmd, 5, OUTSIDE, 256);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_DMA_ERROR);
	CHECK(h.env.warnings[WENG_WRN_DMA] >= 1);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS),
		 WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);
	h_fini(&h);
}

static void test_phase_wrap(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	uint16_t id = 0;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 2, 2);	/* 4 entries: a lap every 4 commands */

	/* One at a time over five laps. */
	for (unsigned int i = 0; i < 20; i++) {
		make_cmd(&cmd, WREN_ADMIN_GET_FEATURE, ++id);
		((struct wren_cmd_feature *)cmd.payload)->feature_id =
			wren_to_le16(WREN_FEATURE_KEEP_ALIVE_MS);
		CHECK(exec(&h, &cmd, &cqe));
		CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
		CHECK_EQ(wren_le16(cqe.cmd_id), id);
		CHECK_EQ(wren_le16(cqe.sq_head), h.aq_tail);
	}
	/* Full batches of four, then batches of three straddling laps. */
	for (unsigned int batch = 0; batch < 6; batch++) {
		unsigned int n = batch < 3 ? 4 : 3;

		for (unsigned int i = 0; i < n; i++) {
			make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, ++id);
			post(&h, &cmd);
		}
		ring(&h);
		for (unsigned int i = 0; i < n; i++) {
			CHECK(reap(&h, &cqe));
			CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
			CHECK_EQ(wren_le16(cqe.cmd_id), id - n + 1 + i);
		}
		CHECK(!reap(&h, &cqe));
	}
	CHECK_EQ(fake_env_total_warnings(&h.env), 0);

	/* An entry with the previous lap's phase is refused. */
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, ++id);
	post(&h, &cmd);
	{
		uint32_t slot = (h.aq_tail - 1) & 3;
		struct wren_admin_cmd *c = fake_env_ptr(&h.env,
			AQ_BASE + slot * sizeof(cmd), sizeof(cmd));

		c->hdr.flags ^= WREN_ADMIN_FLAG_PHASE;
	}
	ring(&h);
	CHECK(reap(&h, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status), 2);
	CHECK_EQ(h.env.warnings[WENG_WRN_ADMIN_PHASE], 1);
	h_fini(&h);
}

static void test_bogus_tail(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 2, 2);
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 1);
	post(&h, &cmd);
	/* Five ahead of a four-entry queue: refused, nothing processed. */
	reg_w(&h, WREN_REG_AQ_DB, 5);
	CHECK(!reap(&h, &cqe));
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 1);
	reg_w(&h, WREN_REG_AQ_DB, 0xffff);	/* "behind": as far ahead */
	CHECK(!reap(&h, &cqe));
	reg_w(&h, WREN_REG_AQ_DB, 0x10001);	/* bits above the index */
	CHECK(!reap(&h, &cqe));
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 3);
	CHECK_EQ(h.env.irqs[0], 0);
	/* The queue still works afterwards. */
	ring(&h);
	CHECK(reap(&h, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le16(cqe.sq_head), 1);
	/* Ringing the same tail again processes nothing. */
	ring(&h);
	CHECK(!reap(&h, &cqe));
	h_fini(&h);
}

static void test_statuses(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	uint32_t pd[3];

	h_init(&h);
	h.cfg.max_pd = 3;
	h_start(&h);
	h_enable(&h, 3, 3);

	make_cmd(&cmd, 0x7f, 1);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_OPCODE);
	make_cmd(&cmd, 0, 2);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_OPCODE);

	/* Reserved header bytes: the offset of the first non-zero one. */
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 3);
	cmd.hdr.rsvd = wren_to_le32(0x00010000);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status), 4 + 2 + 1);
	/* Unknown header flags. */
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 4);
	cmd.hdr.flags = 0x80;
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status), 2);
	/* Reserved body bytes. */
	make_get_attr(&cmd, 5, BUF_BASE, 256);
	cmd.payload[offsetof(struct wren_cmd_get_attr, rsvd) + 5] = 1;
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 8 + offsetof(struct wren_cmd_get_attr, rsvd) + 5 + 1);
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 6);
	cmd.payload[55] = 1;
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status), 8 + 55 + 1);

	/* PDs: allocate to the limit, then NO_RESOURCES. */
	for (unsigned int i = 0; i < 3; i++) {
		make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 10 + i);
		CHECK(exec(&h, &cmd, &cqe));
		CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
		pd[i] = wren_le32(cqe.result[0]);
		CHECK(pd[i] < 3);
	}
	CHECK(pd[0] != pd[1] && pd[1] != pd[2] && pd[0] != pd[2]);
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 13);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_NO_RESOURCES);
	/* Dealloc, then the same handle again: NOT_FOUND. */
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 14, pd[1]);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 15, pd[1]);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_NOT_FOUND);
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 16, 3);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_NOT_FOUND);
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 17, 0xffffffff);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_NOT_FOUND);
	/* The freed number is reused. */
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 18);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), pd[1]);
	/* Reset forgets every PD. */
	h_enable(&h, 3, 3);
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 19, pd[0]);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_NOT_FOUND);

	/* Features: unknown id, GET with a value, SET/GET round trip. */
	make_cmd(&cmd, WREN_ADMIN_GET_FEATURE, 20);
	((struct wren_cmd_feature *)cmd.payload)->feature_id = wren_to_le16(99);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status), 8 + 1);
	make_cmd(&cmd, WREN_ADMIN_SET_FEATURE, 21);
	((struct wren_cmd_feature *)cmd.payload)->feature_id =
		wren_to_le16(WREN_FEATURE_KEEP_ALIVE_MS);
	((struct wren_cmd_feature *)cmd.payload)->value = wren_to_le32(250);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	make_cmd(&cmd, WREN_ADMIN_GET_FEATURE, 22);
	((struct wren_cmd_feature *)cmd.payload)->feature_id =
		wren_to_le16(WREN_FEATURE_KEEP_ALIVE_MS);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), 250);
	CHECK(h.env.warnings[WENG_WRN_ADMIN_REJECTED] >= 10);
	h_fini(&h);
}

static void test_aeq_overflow(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_aeq_entry ev;
	unsigned int n = 0;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 2, 2);	/* four AEQ entries */
	make_cmd(&cmd, WREN_ADMIN_SET_FEATURE, 1);
	((struct wren_cmd_feature *)cmd.payload)->feature_id =
		wren_to_le16(WREN_FEATURE_KEEP_ALIVE_MS);
	((struct wren_cmd_feature *)cmd.payload)->value = wren_to_le32(10);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);

	/* Ten periods, four slots: four events, six dropped. */
	fake_env_advance(&h.env, 100 * 1000000ULL + 1);
	while (aeq_next(&h, &ev)) {
		n++;
		CHECK_EQ(ev.type, WREN_AEQ_KEEP_ALIVE);
		CHECK_EQ(wren_le64(ev.data), n);
	}
	CHECK_EQ(n, 4);
	CHECK_EQ(h.env.warnings[WENG_WRN_AEQ_OVERFLOW], 1);
	/* The driver has read them but not returned them: still full. */
	fake_env_advance(&h.env, 10 * 1000000ULL);
	CHECK(!aeq_next(&h, &ev));

	/* Returning the slots brings the overflow warning first. */
	reg_w(&h, WREN_REG_AEQ_DB, h.aeq_head);
	CHECK(aeq_next(&h, &ev));
	CHECK_EQ(ev.type, WREN_AEQ_WARNING);
	CHECK_EQ(wren_le64(ev.data), WREN_WARN_AEQ_OVERFLOW);
	CHECK(wren_le32(ev.info) >= 6);
	fake_env_advance(&h.env, 10 * 1000000ULL);
	CHECK(aeq_next(&h, &ev));
	CHECK_EQ(ev.type, WREN_AEQ_KEEP_ALIVE);
	/* A consumer index beyond what was produced is refused. */
	reg_w(&h, WREN_REG_AEQ_DB, h.aeq_head + 3);
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 1);

	/* Masked: events are written, vector 0 stays quiet. */
	reg_w(&h, WREN_REG_AEQ_DB, h.aeq_head);
	reg_w(&h, WREN_REG_INTR_MASK, WREN_INTR_MASK_MGMT);
	{
		unsigned int irqs = h.env.irqs[0];

		fake_env_advance(&h.env, 10 * 1000000ULL);
		CHECK(aeq_next(&h, &ev));
		CHECK_EQ(h.env.irqs[0], irqs);
	}

	/* Reset cancels the keep-alive timer. */
	reg_w(&h, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET);
	CHECK_EQ(fake_env_armed_timers(&h.env), 0);
	h_fini(&h);
}

static void test_fault_drop(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	h_init(&h);
	h.cfg.fault_drop_opcode = WREN_ADMIN_GET_ATTR;
	h_start(&h);
	h_enable(&h, 3, 3);

	make_get_attr(&cmd, 1, BUF_BASE, 256);
	CHECK(!exec(&h, &cmd, &cqe));
	CHECK_EQ(h.env.warnings[WENG_WRN_FAULT_DROP], 1);
	CHECK_EQ(h.env.irqs[0], 0);
	/* The next command completes and sq_head moved past the lost one. */
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 2);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(wren_le16(cqe.cmd_id), 2);
	CHECK_EQ(wren_le16(cqe.sq_head), 2);
	make_get_attr(&cmd, 3, BUF_BASE, 256);
	CHECK(!exec(&h, &cmd, &cqe));
	CHECK_EQ(h.env.warnings[WENG_WRN_FAULT_DROP], 2);
	h_fini(&h);
}

/* ------------------------------------------------------------------ */
/* Fault injection (weng_fault.c). */

static void inject(struct harness *h, const char *text)
{
	struct weng_fault_req req;
	const char *why = NULL;

	CHECK_EQ(weng_fault_parse(text, &req, &why), 0);
	weng_fault_inject(h->e, &req);
}

static struct weng_fault_stats fault_stats(struct harness *h)
{
	struct weng_fault_stats st;

	weng_fault_get_stats(h->e, &st);
	return st;
}

static void test_fault_parse(void)
{
	static const char *const bad[] = {
		"", "nope", "fatal", "fatal=", "fatal=0", "fatal=256",
		"fatal=-1", "fatal= 2", "fatal=2x", "fatal=99999999999999999999",
		"clear=1", "admin-stop=", "drop", "drop=0", "drop=0x100",
		"drop-all=abc", "delay=6", "delay=6:", "delay=6:0",
		"delay=6:600001", "delay=:5", "delay=0:5", "delay=6:5:5",
		"link-down ", "Link-down", "eq-stall,x",
	};
	struct weng_fault_req req;
	const char *why;

	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		CHECK_EQ(weng_fault_parse(bad[i], &req, &why), -1);
		CHECK(why && *why);
	}
	CHECK_EQ(weng_fault_parse(NULL, &req, &why), -1);
	CHECK_EQ(weng_fault_parse("fatal=2", &req, &why), 0);
	CHECK_EQ(req.kind, WENG_FAULT_FATAL);
	CHECK_EQ(req.value, 2);
	CHECK_EQ(weng_fault_parse("drop=0x06", &req, &why), 0);
	CHECK_EQ(req.kind, WENG_FAULT_DROP);
	CHECK_EQ(req.opcode, 6);
	CHECK_EQ(weng_fault_parse("drop-all=255", &req, &why), 0);
	CHECK_EQ(req.kind, WENG_FAULT_DROP_ALL);
	CHECK_EQ(req.opcode, 255);
	CHECK_EQ(weng_fault_parse("delay=0x03:2000", &req, &why), 0);
	CHECK_EQ(req.kind, WENG_FAULT_DELAY);
	CHECK_EQ(req.opcode, 3);
	CHECK_EQ(req.value, 2000);
	CHECK_EQ(weng_fault_parse("keep-alive-stop", &req, &why), 0);
	CHECK_EQ(req.kind, WENG_FAULT_KEEP_ALIVE_STOP);
	CHECK_EQ(weng_fault_parse("clear", &req, &why), 0);
	CHECK_EQ(req.kind, WENG_FAULT_CLEAR);
}

static void test_fault_fatal(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_aeq_entry ev;
	uint32_t sts;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 3, 3);
	inject(&h, "fatal=2");
	sts = reg_r(&h, WREN_REG_DEV_STS);
	CHECK(sts & WREN_DEV_STS_FATAL);
	CHECK_EQ(FIELD_GET(WREN_DEV_STS_FATAL_CODE, sts), WREN_FATAL_DMA);
	/* A DMA fatal is told through the event queue, which still works. */
	CHECK(aeq_next(&h, &ev));
	CHECK_EQ(ev.type, WREN_AEQ_FATAL);
	CHECK_EQ(wren_le64(ev.data), WREN_FATAL_DMA);
	CHECK_EQ(h.env.irqs[0], 1);
	/* A failed device serves nothing: the doorbell is refused. */
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 1);
	CHECK(!exec(&h, &cmd, &cqe));
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 1);
	/* A second one changes nothing; the first code stands. */
	inject(&h, "fatal=3");
	CHECK_EQ(FIELD_GET(WREN_DEV_STS_FATAL_CODE, reg_r(&h, WREN_REG_DEV_STS)),
		 WREN_FATAL_DMA);
	CHECK(!aeq_next(&h, &ev));
	CHECK_EQ(fault_stats(&h).fatal, 2);
	CHECK_EQ(h.env.faults[WENG_FLT_INJECT], 2);
	/* Only a reset leaves the state; the device comes up again. */
	CHECK_EQ(h_enable(&h, 3, 3), WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 2);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	h_fini(&h);
}

static void test_fault_admin_stop(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	char desc[128];

	h_init(&h);
	h_start(&h);
	h_enable(&h, 3, 3);
	inject(&h, "admin-stop");
	weng_fault_describe(h.e, desc, sizeof(desc));
	CHECK(!strcmp(desc, "admin-stop"));
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 1);
	CHECK(!exec(&h, &cmd, &cqe));
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 2);
	CHECK(!exec(&h, &cmd, &cqe));
	CHECK_EQ(fault_stats(&h).admin_stopped, 2);
	CHECK_EQ(h.env.faults[WENG_FLT_ADMIN_STOPPED], 2);
	CHECK_EQ(h.env.irqs[0], 0);
	fake_env_advance(&h.env, 10000 * 1000000ULL);
	CHECK(!reap(&h, &cqe));
	/* Lifted: new commands are answered; the taken ones never are. */
	inject(&h, "clear");
	weng_fault_describe(h.e, desc, sizeof(desc));
	CHECK(!strcmp(desc, ""));
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 3);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(wren_le16(cqe.cmd_id), 3);
	CHECK_EQ(wren_le16(cqe.sq_head), 3);
	CHECK(!reap(&h, &cqe));
	/* A reset restarts what hung, as it would on a hung device. */
	inject(&h, "admin-stop");
	inject(&h, "eq-stall");
	inject(&h, "keep-alive-stop");
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 4);
	CHECK(!exec(&h, &cmd, &cqe));
	h_enable(&h, 3, 3);
	weng_fault_describe(h.e, desc, sizeof(desc));
	CHECK(!strcmp(desc, ""));
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 5);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(wren_le16(cqe.cmd_id), 5);
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	h_fini(&h);
}

static void test_fault_drop_delay(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	char desc[128];

	h_init(&h);
	h_start(&h);
	h_enable(&h, 3, 3);
	/* drop: the next completion only. */
	inject(&h, "drop=0x06");
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 1);
	CHECK(!exec(&h, &cmd, &cqe));
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 2);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(wren_le16(cqe.cmd_id), 2);
	/* The lost one was executed: this is the second PD. */
	CHECK_EQ(wren_le32(cqe.result[0]), 1);
	/* drop-all: every one, until cleared. */
	inject(&h, "drop-all=6");
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 3);
	CHECK(!exec(&h, &cmd, &cqe));
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 4);
	CHECK(!exec(&h, &cmd, &cqe));
	CHECK_EQ(fault_stats(&h).admin_dropped, 3);
	CHECK_EQ(h.env.warnings[WENG_WRN_FAULT_DROP], 3);
	inject(&h, "clear");

	/* delay: posted late, with what it would have said on time. */
	inject(&h, "delay=0x06:2000");
	weng_fault_describe(h.e, desc, sizeof(desc));
	CHECK(!strcmp(desc, "delay=0x06:2000"));
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 5);
	CHECK(!exec(&h, &cmd, &cqe));
	CHECK_EQ(fault_stats(&h).admin_delayed, 1);
	/* Other opcodes are answered meanwhile. */
	make_get_attr(&cmd, 6, BUF_BASE, 256);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(wren_le16(cqe.cmd_id), 6);
	fake_env_advance(&h.env, 1999 * 1000000ULL);
	CHECK(!reap(&h, &cqe));
	fake_env_advance(&h.env, 2 * 1000000ULL);
	CHECK(reap(&h, &cqe));
	CHECK_EQ(wren_le16(cqe.cmd_id), 5);
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), 4);	/* the fifth PD */
	/* Its queue head is the one of when it was taken. */
	CHECK_EQ(wren_le16(cqe.sq_head), 5);
	CHECK_EQ(fault_stats(&h).admin_late, 1);
	CHECK_EQ(h.env.faults[WENG_FLT_ADMIN_LATE], 1);
	/* Like drop, delay held back one command: it is spent. */
	weng_fault_describe(h.e, desc, sizeof(desc));
	CHECK(!strcmp(desc, ""));

	/* A reset drops what is still late. */
	inject(&h, "delay=0x06:2000");
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 7);
	CHECK(!exec(&h, &cmd, &cqe));
	h_enable(&h, 3, 3);
	fake_env_advance(&h.env, 3000 * 1000000ULL);
	CHECK(!reap(&h, &cqe));
	CHECK_EQ(fault_stats(&h).admin_late, 1);
	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 8);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(wren_le16(cqe.cmd_id), 8);
	h_fini(&h);
}

static void test_fault_eq_stall(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_eq *c = (void *)cmd.payload;
	const struct wren_eqe *eqe;
	uint32_t id;

	h_init(&h);
	h.cfg.msix_vectors = 4;
	h_start(&h);
	h_enable(&h, 3, 3);
	make_cmd(&cmd, WREN_ADMIN_CREATE_EQ, 1);
	c->base_addr = wren_to_le64(EQ_BASE);
	c->log_depth = 2;
	c->flags = WREN_EQ_FLAG_INTR;
	c->msix_vector = wren_to_le16(3);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	id = wren_le32(cqe.result[0]);
	reg_w(&h, WREN_REG_EQ_DB(id), WREN_EQ_DB_ARM);

	inject(&h, "eq-stall");
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 42), 0);
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 43), 0);
	eqe = fake_env_ptr(&h.env, EQ_BASE, sizeof(*eqe));
	CHECK_EQ(eqe->flags & WREN_EQE_FLAG_PHASE, 0);
	CHECK_EQ(h.env.irqs[3], 0);
	CHECK_EQ(fault_stats(&h).eq_held, 2);
	/* Re-arming does not interrupt either: interrupts are held too. */
	reg_w(&h, WREN_REG_EQ_DB(id), WREN_EQ_DB_ARM);
	CHECK_EQ(h.env.irqs[3], 0);

	inject(&h, "clear");
	CHECK_EQ(eqe->flags & WREN_EQE_FLAG_PHASE, 1);
	CHECK_EQ(wren_le32(eqe->handle), 42);
	CHECK_EQ(wren_le32(eqe[1].handle), 43);
	CHECK_EQ(h.env.irqs[3], 1);
	CHECK_EQ(fault_stats(&h).eq_lost, 0);
	CHECK_EQ(h.env.faults[WENG_FLT_EQ_RELEASED], 1);

	/* Held past a reset: the queues are gone, nothing is written. */
	inject(&h, "eq-stall");
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 44), 0);
	h_enable(&h, 3, 3);
	inject(&h, "clear");
	CHECK_EQ(fault_stats(&h).eq_held, 3);
	CHECK_EQ(wren_le32(eqe[2].handle), 0);
	h_fini(&h);
}

static void test_fault_keep_alive_link(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_aeq_entry ev;
	uint8_t frame[64];
	char desc[128];
	unsigned int n = 0;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 3, 5);
	make_cmd(&cmd, WREN_ADMIN_SET_FEATURE, 1);
	((struct wren_cmd_feature *)cmd.payload)->feature_id =
		wren_to_le16(WREN_FEATURE_KEEP_ALIVE_MS);
	((struct wren_cmd_feature *)cmd.payload)->value = wren_to_le32(10);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	fake_env_advance(&h.env, 10 * 1000000ULL);
	CHECK(aeq_next(&h, &ev));
	CHECK_EQ(ev.type, WREN_AEQ_KEEP_ALIVE);

	inject(&h, "keep-alive-stop");
	fake_env_advance(&h.env, 50 * 1000000ULL);
	CHECK(!aeq_next(&h, &ev));
	CHECK_EQ(fault_stats(&h).keep_alive_withheld, 5);
	CHECK_EQ(h.env.faults[WENG_FLT_KEEP_ALIVE_WITHHELD], 5);
	inject(&h, "clear");
	fake_env_advance(&h.env, 10 * 1000000ULL);
	CHECK(aeq_next(&h, &ev));
	CHECK_EQ(ev.type, WREN_AEQ_KEEP_ALIVE);
	/* The count goes on from the last one sent: none was. */
	CHECK_EQ(wren_le64(ev.data), 2);
	((struct wren_cmd_feature *)cmd.payload)->value = wren_to_le32(0);
	CHECK(exec(&h, &cmd, &cqe));

	/* Link down: the driver hears of it; frames in are lost, counted. */
	inject(&h, "link-down");
	inject(&h, "link-down");	/* once is enough */
	while (aeq_next(&h, &ev)) {
		if (ev.type != WREN_AEQ_LINK_CHANGE)
			continue;
		n++;
		CHECK_EQ(wren_le64(ev.data), 0);
	}
	CHECK_EQ(n, 1);
	weng_fault_describe(h.e, desc, sizeof(desc));
	CHECK(!strcmp(desc, "link-down"));
	memset(frame, 0, sizeof(frame));
	weng_rx_frame(h.e, frame, sizeof(frame));
	CHECK_EQ(fault_stats(&h).link_rx_dropped, 1);
	CHECK_EQ(h.env.faults[WENG_FLT_LINK_DROP], 1);
	inject(&h, "link-up");
	CHECK(aeq_next(&h, &ev));
	CHECK_EQ(ev.type, WREN_AEQ_LINK_CHANGE);
	CHECK_EQ(wren_le64(ev.data), 1);
	CHECK_EQ(fault_stats(&h).link_changes, 2);
	weng_rx_frame(h.e, frame, sizeof(frame));
	CHECK_EQ(fault_stats(&h).link_rx_dropped, 1);
	CHECK_EQ(fault_stats(&h).injected, 5);
	h_fini(&h);
}

static void test_event_queues(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_eq *c = (void *)cmd.payload;
	const struct wren_eqe *eqe;
	uint32_t id;

	h_init(&h);
	h.cfg.msix_vectors = 4;
	h_start(&h);
	h_enable(&h, 3, 3);

	make_cmd(&cmd, WREN_ADMIN_CREATE_EQ, 1);
	c->base_addr = wren_to_le64(EQ_BASE);
	c->log_depth = 2;
	c->flags = WREN_EQ_FLAG_INTR;
	c->msix_vector = wren_to_le16(0);	/* vector 0 is management */
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 8 + offsetof(struct wren_cmd_create_eq, msix_vector) + 1);
	c->msix_vector = wren_to_le16(4);	/* beyond the vectors */
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	c->msix_vector = wren_to_le16(3);
	c->log_depth = 13;
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	c->log_depth = 2;
	c->base_addr = wren_to_le64(EQ_BASE + 8);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_BAD_PARAM);
	c->base_addr = wren_to_le64(EQ_BASE);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	id = wren_le32(cqe.result[0]);
	CHECK(id < 4);

	/* Not armed: the entry is written, no interrupt. */
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 42), 0);
	eqe = fake_env_ptr(&h.env, EQ_BASE, sizeof(*eqe));
	CHECK_EQ(eqe->type, WREN_EQE_COMPLETION);
	CHECK_EQ(eqe->flags & WREN_EQE_FLAG_PHASE, 1);
	CHECK_EQ(wren_le32(eqe->handle), 42);
	CHECK_EQ(h.env.irqs[3], 0);
	/* Arming with an entry pending interrupts at once, only once. */
	reg_w(&h, WREN_REG_EQ_DB(id), WREN_EQ_DB_ARM | 0);
	CHECK_EQ(h.env.irqs[3], 1);
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 43), 0);
	CHECK_EQ(h.env.irqs[3], 1);
	/* Consume both, arm, the next entry interrupts. */
	reg_w(&h, WREN_REG_EQ_DB(id), WREN_EQ_DB_ARM | 2);
	CHECK_EQ(h.env.irqs[3], 1);
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 44), 0);
	CHECK_EQ(h.env.irqs[3], 2);
	/* Fill it: 4 entries, the fifth is dropped and reported. */
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 45), 0);
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 46), 0);
	CHECK_EQ(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 47), 0);
	CHECK(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 48) != 0);
	CHECK_EQ(h.env.warnings[WENG_WRN_EQ_OVERFLOW], 1);
	/* Doorbells for EQs that do not exist, or impossible heads. */
	reg_w(&h, WREN_REG_EQ_DB(id), 9);
	reg_w(&h, WREN_REG_EQ_DB(id + 1), WREN_EQ_DB_ARM);
	reg_w(&h, WREN_REG_EQ_DB(255), 0);
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 3);

	make_handle(&cmd, WREN_ADMIN_DESTROY_EQ, 2, id);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_NOT_FOUND);
	make_handle(&cmd, WREN_ADMIN_DESTROY_EQ, 3, 1000);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_NOT_FOUND);
	CHECK(weng_eq_post(h.e, id, WREN_EQE_COMPLETION, 1) != 0);
	h_fini(&h);
}

/*
 * The fuzzers' guard window (fake_env.guard_lo/hi) counts every DMA that
 * touches it, from the first byte to the last, and no other.
 */
static void test_fake_guard(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 3, 3);
	h.env.guard_lo = BUF_BASE + 256;
	h.env.guard_hi = BUF_BASE + 512;
	/* GET_ATTR's 256 bytes just below the window, then 1 into it. */
	make_get_attr(&cmd, 1, BUF_BASE, 256);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(h.env.guard_hits, 0);
	make_get_attr(&cmd, 2, BUF_BASE + 1, 256);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(h.env.guard_hits, 1);
	/* From its last byte on, and from just past it. */
	make_get_attr(&cmd, 3, BUF_BASE + 511, 64);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(h.env.guard_hits, 2);
	make_get_attr(&cmd, 4, BUF_BASE + 512, 256);
	CHECK(exec(&h, &cmd, &cqe));
	CHECK_EQ(cqe.status, WREN_STATUS_SUCCESS);
	CHECK_EQ(h.env.guard_hits, 2);
	h_fini(&h);
}

static void test_register_access(void)
{
	struct harness h;

	h_init(&h);
	h_start(&h);
	CHECK_EQ(weng_reg_read(h.e, WREN_REG_DEV_STS, 2), 0);
	CHECK_EQ(weng_reg_read(h.e, WREN_REG_DEV_STS + 1, 4), 0);
	weng_reg_write(h.e, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET, 1);
	weng_reg_write(h.e, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET, 8);
	CHECK_EQ(h.env.warnings[WENG_WRN_BAD_ACCESS], 4);
	reg_w(&h, WREN_REG_VERSION, 0);
	reg_w(&h, WREN_REG_DEV_STS, 0xffffffff);
	CHECK_EQ(h.env.warnings[WENG_WRN_READ_ONLY], 2);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS), WREN_DEV_STS_READY);
	reg_w(&h, 0x1c, 1);
	reg_r(&h, 0xffc);
	reg_r(&h, 0x1ffc);
	CHECK_EQ(h.env.warnings[WENG_WRN_BAD_REGISTER], 3);
	/* Doorbell BAR: nothing lives there yet. */
	weng_db_write(h.e, 0, 1, 4);
	weng_db_write(h.e, 5 * 4096 + 8, 1, 4);
	weng_db_read(h.e, 0, 4);
	CHECK_EQ(h.env.warnings[WENG_WRN_DB_PAGE], 3);
	/* Doorbells before ENABLE are refused. */
	reg_w(&h, WREN_REG_AQ_DB, 1);
	reg_w(&h, WREN_REG_AEQ_DB, 1);
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 2);
	/* ENABLE twice: the second is a mistake, the state holds. */
	CHECK_EQ(h_enable(&h, 2, 2),
		 WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);
	reg_w(&h, WREN_REG_DEV_CTL, WREN_DEV_CTL_ENABLE);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS),
		 WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);
	h_fini(&h);
}

static void test_dma_fatal(void)
{
	struct harness h;
	uint32_t sts;

	h_init(&h);
	h_start(&h);
	/* Rings outside guest memory: enable works, the first fetch fails. */
	program_queues(&h, OUTSIDE, ACQ_BASE, AEQ_BASE, 2, 2, 2);
	h.aq_log = 2;
	h.aeq_log = 2;
	reg_w(&h, WREN_REG_DEV_CTL, WREN_DEV_CTL_ENABLE);
	CHECK(reg_r(&h, WREN_REG_DEV_STS) & WREN_DEV_STS_ENABLED);
	reg_w(&h, WREN_REG_AQ_DB, 1);
	sts = reg_r(&h, WREN_REG_DEV_STS);
	CHECK(sts & WREN_DEV_STS_FATAL);
	CHECK_EQ(FIELD_GET(WREN_DEV_STS_FATAL_CODE, sts), WREN_FATAL_DMA);
	CHECK(h.env.warnings[WENG_WRN_DMA] >= 1);
	reg_w(&h, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS), WREN_DEV_STS_READY);
	h_fini(&h);
}

/* xorshift64: reproducible noise for the hostile-guest test. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_hostile_guest(void)
{
	static const uint32_t regs[] = {
		WREN_REG_DEV_CTL, WREN_REG_INTR_MASK, WREN_REG_AQ_BASE_LO,
		WREN_REG_AQ_BASE_HI, WREN_REG_AQ_CFG, WREN_REG_AQ_DB,
		WREN_REG_ACQ_BASE_LO, WREN_REG_ACQ_CFG, WREN_REG_AEQ_BASE_LO,
		WREN_REG_AEQ_CFG, WREN_REG_AEQ_DB, WREN_REG_EQ_DB(0),
		WREN_REG_EQ_DB(1), WREN_REG_EQ_DB(300),
	};
	struct harness h;
	uint64_t seed = 0x57524e2d54455354ULL;

	h_init(&h);
	h.cfg.max_pd = 8;
	h_start(&h);
	for (unsigned int round = 0; round < 200; round++) {
		/* A plausible bring-up, then garbage everywhere. */
		h_enable(&h, 2 + rnd(&seed) % 4, 2 + rnd(&seed) % 4);
		for (unsigned int i = 0; i < FAKE_MEM_SIZE / 8; i += 1 + rnd(&seed) % 64)
			((uint64_t *)h.env.mem)[i] = rnd(&seed);
		for (unsigned int i = 0; i < 64; i++) {
			uint64_t r = rnd(&seed);
			uint32_t off = r & 1 ? regs[(r >> 8) % 14] :
					       (r >> 8) % 0x2000;
			uint32_t val = rnd(&seed);

			/* Mostly small tails and heads, to get past checks. */
			if (r & 2)
				val &= 0x1f;
			weng_reg_write(h.e, off, val, r & 4 ? 4 : 1 << (r >> 40) % 4);
			weng_reg_read(h.e, off, 4);
			if (!(r & 0x70))
				fake_env_advance(&h.env, rnd(&seed) % 50000000);
		}
	}
	/* Survival is the test; the device still comes up cleanly. */
	CHECK_EQ(h_enable(&h, 3, 3),
		 WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);
	h_fini(&h);
}

/* ------------------------------------------------------------------ */
/* Data-path objects                                                    */
/* ------------------------------------------------------------------ */

#define CQ_RING		(FAKE_MEM_BASE + 0x50000)
#define SQ_RING		(FAKE_MEM_BASE + 0x60000)
#define RQ_RING		(FAKE_MEM_BASE + 0x70000)
#define PBL		(FAKE_MEM_BASE + 0x80000)

/* Run @cmd; its status, with the result and extended status kept. */
static uint8_t run(struct harness *h, struct wren_admin_cmd *cmd,
		   struct wren_admin_cqe *cqe)
{
	static uint16_t id = 100;

	cmd->hdr.cmd_id = wren_to_le16(id++);
	if (!exec(h, cmd, cqe))
		return 0xff;
	return cqe->status;
}

static uint32_t alloc_pd_ok(struct harness *h)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 0);
	CHECK_EQ(run(h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	return wren_le32(cqe.result[0]);
}

static void make_cq(struct wren_admin_cmd *cmd, uint32_t db_page)
{
	struct wren_cmd_create_cq *c = (void *)cmd->payload;

	make_cmd(cmd, WREN_ADMIN_CREATE_CQ, 0);
	c->base_addr = wren_to_le64(CQ_RING);
	c->log_depth = 6;
	c->db_page = wren_to_le32(db_page);
}

static void make_qp(struct wren_admin_cmd *cmd, uint32_t pdn, uint32_t cqn,
		    uint32_t db_page, uint8_t type)
{
	struct wren_cmd_create_qp *c = (void *)cmd->payload;

	make_cmd(cmd, WREN_ADMIN_CREATE_QP, 0);
	c->sq_base = wren_to_le64(SQ_RING);
	c->rq_base = wren_to_le64(RQ_RING);
	c->pdn = wren_to_le32(pdn);
	c->send_cq = wren_to_le32(cqn);
	c->recv_cq = wren_to_le32(cqn);
	c->db_page = wren_to_le32(db_page);
	c->type = type;
	c->sq_log_depth = 5;
	c->rq_log_depth = 5;
}

static uint8_t modify(struct harness *h, uint32_t qpn, uint32_t mask,
		      uint8_t state, uint32_t qkey)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_modify_qp *m = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_MODIFY_QP, 0);
	m->qpn = wren_to_le32(qpn);
	m->attr_mask = wren_to_le32(mask);
	m->state = state;
	m->qkey = wren_to_le32(qkey);
	return run(h, &cmd, &cqe);
}

static void test_objects(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_cq *cc = (void *)cmd.payload;
	struct wren_cmd_create_qp *qc = (void *)cmd.payload;
	uint32_t pdn, cqn, qpn, cq_db, sq_db, rq_db;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 4, 3);
	pdn = alloc_pd_ok(&h);

	/* CQ: each bad field is named; a good one gets a doorbell. */
	make_cq(&cmd, 1);
	cc->base_addr = wren_to_le64(CQ_RING + 8);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status), 8 + 0 + 1);
	make_cq(&cmd, 1);
	cc->log_depth = 20;			/* beyond max_cq_depth */
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status), 8 + 8 + 1);
	make_cq(&cmd, 1);
	cc->flags = WREN_CQ_FLAG_EQ;		/* no such EQ */
	cc->eq_id = wren_to_le16(3);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status), 8 + 10 + 1);
	make_cq(&cmd, 9999);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	make_cq(&cmd, 1);
	cc->rsvd[9] = wren_to_le32(1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	make_cq(&cmd, 1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	cqn = wren_le32(cqe.result[0]);
	cq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);

	/* QP: RD-only flags on UD, bad CQ, bad PD, then a good one. */
	make_qp(&cmd, pdn, cqn, 1, WREN_QPT_UD);
	qc->flags = WREN_QP_FLAG_ORDERED;
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 8 + offsetof(struct wren_cmd_create_qp, flags) + 1);
	make_qp(&cmd, pdn, cqn + 1, 1, WREN_QPT_UD);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	make_qp(&cmd, pdn + 1, cqn, 1, WREN_QPT_UD);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	make_qp(&cmd, pdn, cqn, 1, 7);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	make_qp(&cmd, pdn, cqn, 1, WREN_QPT_RD);
	qc->flags = WREN_QP_FLAG_ORDERED | WREN_QP_FLAG_HANDSHAKE;
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	qpn = wren_le32(cqe.result[0]);
	CHECK(qpn >= WREN_QPN_FIRST);
	sq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	rq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[2]);
	CHECK(sq_db != rq_db && sq_db != cq_db && rq_db != cq_db);

	/* Objects in use cannot be destroyed from under their users. */
	make_handle(&cmd, WREN_ADMIN_DESTROY_CQ, 0, cqn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_STATE);
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 0, pdn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_STATE);

	/* Doorbells (in RESET, nothing is sent): the owner's, no lapping. */
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 0);
	CHECK_EQ(h.env.warnings[WENG_WRN_DB_PAGE], 0);
	weng_db_write(h.e, sq_db, 32, 4);
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 0);
	weng_db_write(h.e, sq_db, 33, 4);	/* 33 ahead of 32 entries */
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 1);
	weng_db_write(h.e, cq_db, 1, 4);	/* past the producer */
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 2);
	weng_db_write(h.e, cq_db, WREN_CQ_DB_ARM, 4);
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 2);
	weng_db_write(h.e, (2 << WREN_DB_PAGE_SHIFT) + (sq_db & 0xfff), 1, 4);
	CHECK_EQ(h.env.warnings[WENG_WRN_DB_PAGE], 1);
	weng_db_write(h.e, sq_db + 1, 1, 4);
	CHECK_EQ(h.env.warnings[WENG_WRN_DB_PAGE], 2);
	weng_db_write(h.e, rq_db, 1, 2);
	CHECK_EQ(h.env.warnings[WENG_WRN_DB_PAGE], 3);

	/* RESET forgets what was rung. */
	CHECK_EQ(modify(&h, qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, 0),
		 WREN_STATUS_SUCCESS);

	/* State machine: RESET -> INIT (Q_Key) -> RTR -> RTS, no skipping. */
	CHECK_EQ(modify(&h, qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTS, 0),
		 WREN_STATUS_BAD_PARAM);
	CHECK_EQ(modify(&h, qpn, WREN_QP_ATTR_QKEY, 0, 5),
		 WREN_STATUS_BAD_PARAM);	/* not in RESET */
	CHECK_EQ(modify(&h, qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_QKEY,
			WREN_QPS_INIT, 0x1234), WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&h, qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTR, 0),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&h, qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTS, 0),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&h, qpn, 1U << 7, 0, 0), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(modify(&h, qpn + 100, WREN_QP_ATTR_STATE, 0, 0),
		 WREN_STATUS_NOT_FOUND);
	make_handle(&cmd, WREN_ADMIN_QUERY_QP, 0, qpn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), WREN_QPS_RTS);
	CHECK_EQ(wren_le32(cqe.result[1]), 0x1234);

	/* Destroy in order; the doorbells die with their queues. */
	make_handle(&cmd, WREN_ADMIN_DESTROY_QP, 0, qpn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	weng_db_write(h.e, sq_db, 1, 4);
	CHECK_EQ(h.env.warnings[WENG_WRN_DB_PAGE], 4);
	make_handle(&cmd, WREN_ADMIN_DESTROY_QP, 0, qpn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_NOT_FOUND);
	make_handle(&cmd, WREN_ADMIN_DESTROY_CQ, 0, cqn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 0, pdn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	h_fini(&h);
}

static void test_ah_mr(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_ah *ac = (void *)cmd.payload;
	struct wren_cmd_reg_mr *mc = (void *)cmd.payload;
	uint32_t pdn, ah, key;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 4, 3);
	pdn = alloc_pd_ok(&h);

	make_cmd(&cmd, WREN_ADMIN_CREATE_AH, 0);
	ac->pdn = wren_to_le32(pdn);
	ac->ipv4 = htobe32(0xe0000001);		/* multicast */
	memcpy(ac->mac, "\x02\0\0\0\0\x01", 6);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 8 + offsetof(struct wren_cmd_create_ah, ipv4) + 1);
	ac->ipv4 = htobe32(0xc6120002);
	ac->mac[0] = 1;				/* group address */
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	ac->mac[0] = 2;
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	ah = wren_le32(cqe.result[0]);

	/* A 3-page region at an offset into its first page. */
	make_cmd(&cmd, WREN_ADMIN_REG_MR, 0);
	mc->iova = wren_to_le64(0x7f0000001000ULL + 100);
	mc->length = wren_to_le64(2 * 4096);
	mc->pbl_addr = wren_to_le64(PBL);
	mc->pdn = wren_to_le32(pdn);
	mc->npages = wren_to_le32(2);		/* it spans three */
	mc->page_shift = 12;
	mc->access = WREN_MR_ACCESS_LOCAL_WRITE;
	mc->key_tag = 0x5a;
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 8 + offsetof(struct wren_cmd_reg_mr, npages) + 1);
	mc->npages = wren_to_le32(3);
	mc->page_shift = 13;			/* not in page_size_cap */
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	mc->page_shift = 12;
	mc->access = WREN_MR_ACCESS_REMOTE_WRITE;	/* needs local write */
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	mc->access = WREN_MR_ACCESS_LOCAL_WRITE | WREN_MR_ACCESS_REMOTE_WRITE;
	mc->length = wren_to_le64(~0ULL - 50);	/* wraps */
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	mc->length = wren_to_le64(2 * 4096);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	key = wren_le32(cqe.result[0]);
	CHECK_EQ(key & 0xff, 0x5a);

	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 0, pdn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_STATE);
	make_handle(&cmd, WREN_ADMIN_DEREG_MR, 0, key ^ 1);	/* stale tag */
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_NOT_FOUND);
	make_handle(&cmd, WREN_ADMIN_DEREG_MR, 0, key);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	make_handle(&cmd, WREN_ADMIN_DESTROY_AH, 0, ah);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 0, pdn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);

	/* A reset forgets every object. */
	pdn = alloc_pd_ok(&h);
	make_cq(&cmd, 1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	h_enable(&h, 4, 3);
	make_handle(&cmd, WREN_ADMIN_DESTROY_CQ, 0, 0);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_NOT_FOUND);
	h_fini(&h);
}

/* Point entry @i of a page list at @addr. */
static void pbl_set(struct harness *h, uint64_t list, uint32_t i, uint64_t addr)
{
	uint64_t v = wren_to_le64(addr);

	memcpy(fake_env_ptr(&h->env, list + 8ULL * i, 8), &v, 8);
}

/* Register @npages pages of 2^@shift bytes listed at @pbl. */
/* REG_MR: the lkey; the rkey is in h->rkey. */
static uint32_t reg_mr_pages(struct harness *h, uint32_t pdn, uint64_t iova,
			     uint64_t len, uint32_t npages, uint8_t shift,
			     uint64_t pbl, uint8_t access)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_reg_mr *mc = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_REG_MR, 0);
	mc->iova = wren_to_le64(iova);
	mc->length = wren_to_le64(len);
	mc->pbl_addr = wren_to_le64(pbl);
	mc->pdn = wren_to_le32(pdn);
	mc->npages = wren_to_le32(npages);
	mc->page_shift = shift;
	mc->access = access;
	mc->key_tag = 7;
	CHECK_EQ(run(h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	h->lkey = wren_le32(cqe.result[0]);
	h->rkey = wren_le32(cqe.result[1]);
	return h->lkey;
}

static uint32_t reg_mr_ok(struct harness *h, uint32_t pdn, uint64_t iova,
			  uint64_t len, uint32_t npages, uint64_t pbl,
			  uint8_t access)
{
	return reg_mr_pages(h, pdn, iova, len, npages, 12, pbl, access);
}

/* The same, for a region peers access: its rkey. */
static uint32_t reg_rkey_ok(struct harness *h, uint32_t pdn, uint64_t iova,
			    uint64_t len, uint32_t npages, uint64_t pbl,
			    uint8_t access)
{
	reg_mr_pages(h, pdn, iova, len, npages, 12, pbl, access);
	return h->rkey;
}

#define PAGE_A		(FAKE_MEM_BASE + 0x90000)
#define PAGE_B		(FAKE_MEM_BASE + 0xb0000)
#define PAGE_C		(FAKE_MEM_BASE + 0xa0000)
#define PBL_DIR		(FAKE_MEM_BASE + 0xc0000)
#define PBL_L1		(FAKE_MEM_BASE + 0xc1000)
#define PBL_TOP3	(FAKE_MEM_BASE + 0xc4000)
#define PBL_MID3	(FAKE_MEM_BASE + 0xc5000)
#define PBL_LEAF3	(FAKE_MEM_BASE + 0xc6000)

/*
 * Keys: an lkey and a different rkey, each the region's number under
 * random bits, then the tag; a freed number is not reused at once, and
 * its new keys are not its old ones; each key serves its own side only.
 */
static void test_mr_keys(void)
{
	const uint8_t rw = WREN_MR_ACCESS_LOCAL_WRITE |
			   WREN_MR_ACCESS_REMOTE_READ;
	uint32_t pdn, lkey[3], rkey[3], first_l, first_r;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct harness h;
	uint8_t in[8];

	h_init(&h);
	h_start(&h);
	h_enable(&h, 4, 3);
	pdn = alloc_pd_ok(&h);
	pbl_set(&h, PBL, 0, PAGE_A);
	for (int i = 0; i < 3; i++) {
		lkey[i] = reg_mr_ok(&h, pdn, 0x1000, 4096, 1, PBL, rw);
		rkey[i] = h.rkey;
		CHECK(lkey[i] != rkey[i]);
		CHECK(lkey[i] != WREN_LKEY_DMA && rkey[i] != WREN_LKEY_DMA);
		/* 4096 regions: 12 bits of number, 12 random, the tag. */
		CHECK_EQ(lkey[i] >> 8 & 0xfff, (uint32_t)i);
		CHECK_EQ(rkey[i] >> 8 & 0xfff, (uint32_t)i);
		CHECK_EQ(lkey[i] & 0xff, 7);
	}
	/* The random parts differ from region to region. */
	CHECK(lkey[0] >> 20 != lkey[1] >> 20 || lkey[1] >> 20 != lkey[2] >> 20);
	CHECK_EQ(weng_mr_read(h.e, pdn, lkey[1], 0x1000, in, 4, 0), 0);
	CHECK_EQ(weng_mr_read(h.e, pdn, rkey[1], 0x1000, in, 4, 0), -EACCES);
	CHECK_EQ(weng_mr_read(h.e, pdn, rkey[1], 0x1000, in, 4,
			      WREN_MR_ACCESS_REMOTE_READ), 0);
	CHECK_EQ(weng_mr_read(h.e, pdn, lkey[1], 0x1000, in, 4,
			      WREN_MR_ACCESS_REMOTE_READ), -EACCES);

	/* Region 0 freed: the next REG_MR takes number 3, not 0. */
	first_l = lkey[0];
	first_r = rkey[0];
	make_handle(&cmd, WREN_ADMIN_DEREG_MR, 0, first_l);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	lkey[0] = reg_mr_ok(&h, pdn, 0x1000, 4096, 1, PBL, rw);
	CHECK_EQ(lkey[0] >> 8 & 0xfff, 3);
	CHECK_EQ(weng_mr_read(h.e, pdn, first_l, 0x1000, in, 4, 0), -EACCES);
	CHECK_EQ(weng_mr_read(h.e, pdn, first_r, 0x1000, in, 4,
			      WREN_MR_ACCESS_REMOTE_READ), -EACCES);
	h_fini(&h);
}

static void test_mr_access(void)
{
	struct harness h;
	uint64_t iova = 0x7f0000001000ULL + 100;
	uint8_t out[8192], in[8192];
	uint32_t pdn, key, big;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 4, 3);
	pdn = alloc_pd_ok(&h);

	/* Three pages, out of order in host memory. */
	pbl_set(&h, PBL, 0, PAGE_A);
	pbl_set(&h, PBL, 1, PAGE_B);
	pbl_set(&h, PBL, 2, PAGE_C);
	key = reg_mr_ok(&h, pdn, iova, sizeof(out), 3, PBL,
			WREN_MR_ACCESS_LOCAL_WRITE);
	for (unsigned int i = 0; i < sizeof(out); i++)
		out[i] = i * 7 + 3;
	CHECK_EQ(weng_mr_write(h.e, pdn, key, iova, out, sizeof(out),
			       WREN_MR_ACCESS_LOCAL_WRITE), 0);
	CHECK(!memcmp(fake_env_ptr(&h.env, PAGE_A + 100, 3996), out, 3996));
	CHECK(!memcmp(fake_env_ptr(&h.env, PAGE_B, 4096), out + 3996, 4096));
	CHECK(!memcmp(fake_env_ptr(&h.env, PAGE_C, 100), out + 8092, 100));
	CHECK_EQ(weng_mr_read(h.e, pdn, key, iova, in, sizeof(in), 0), 0);
	CHECK(!memcmp(in, out, sizeof(in)));

	/* Key, PD, rights and bounds; the last byte, and nothing at all. */
	CHECK_EQ(weng_mr_read(h.e, pdn, key ^ 1, iova, in, 1, 0), -EACCES);
	CHECK_EQ(weng_mr_read(h.e, pdn + 1, key, iova, in, 1, 0), -EACCES);
	CHECK_EQ(weng_mr_write(h.e, pdn, key, iova, in, 1,
			       WREN_MR_ACCESS_REMOTE_WRITE), -EACCES);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, iova - 1, in, 1, 0), -EACCES);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, iova, in, sizeof(in) + 1, 0),
		 -EACCES);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, iova + sizeof(in), in, 1, 0),
		 -EACCES);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, iova + sizeof(in) - 1, in, 1, 0), 0);
	CHECK_EQ(in[0], out[sizeof(out) - 1]);
	CHECK_EQ(weng_mr_read(h.e, pdn, 0xdead, 0, in, 0, 0), 0);

	/* Two levels: 600 pages, the list itself in 4 KiB pages. */
	pbl_set(&h, PBL_DIR, 0, PBL_L1);
	pbl_set(&h, PBL_DIR, 1, PBL_L1 + 4096);
	for (uint32_t i = 0; i < 600; i++)
		pbl_set(&h, PBL_L1, i, i == 550 ? PAGE_C : PAGE_A);
	big = reg_mr_ok(&h, pdn, 0, 600 * 4096ULL, 600, PBL_DIR,
			WREN_MR_ACCESS_LOCAL_WRITE);
	CHECK_EQ(weng_mr_write(h.e, pdn, big, 550 * 4096ULL + 10, "wren", 4,
			       WREN_MR_ACCESS_LOCAL_WRITE), 0);
	CHECK(!memcmp(fake_env_ptr(&h.env, PAGE_C + 10, 4), "wren", 4));

	/* A page list entry that is not a page is the host's mistake. */
	pbl_set(&h, PBL_L1, 551, PAGE_A + 8);
	CHECK_EQ(weng_mr_read(h.e, pdn, big, 551 * 4096ULL, in, 1, 0), -EIO);
	CHECK_EQ(h.env.warnings[WENG_WRN_DMA], 1);

	/*
	 * Three levels: 512^2 + 10 pages (1 GiB and 40 KiB).  The device
	 * reads only the entries on the way to a page, so the tree can share
	 * one middle page and one leaf page among all its branches.
	 */
	pbl_set(&h, PBL_TOP3, 0, PBL_MID3);
	pbl_set(&h, PBL_TOP3, 1, PBL_MID3);
	for (uint32_t i = 0; i < WREN_PBL_PER_PAGE; i++) {
		pbl_set(&h, PBL_MID3, i, PBL_LEAF3);
		pbl_set(&h, PBL_LEAF3, i, i == 3 ? PAGE_B : PAGE_A);
	}
	big = reg_mr_ok(&h, pdn, 0, (512 * 512 + 10) * 4096ULL, 512 * 512 + 10,
			PBL_TOP3, WREN_MR_ACCESS_LOCAL_WRITE);
	CHECK_EQ(weng_mr_write(h.e, pdn, big, (512 * 512 + 3) * 4096ULL + 7,
			       "deep", 4, WREN_MR_ACCESS_LOCAL_WRITE), 0);
	CHECK(!memcmp(fake_env_ptr(&h.env, PAGE_B + 7, 4), "deep", 4));
	/* A middle entry that is not a page of the list: refused too. */
	pbl_set(&h, PBL_TOP3, 1, PBL_MID3 + 8);
	CHECK_EQ(weng_mr_read(h.e, pdn, big, (512 * 512 + 3) * 4096ULL, in, 1,
			      0), -EIO);
	CHECK_EQ(h.env.warnings[WENG_WRN_DMA], 2);
	h_fini(&h);
}

/*
 * REREG_MR: the region takes a new PD, rights and pages under the key it
 * has; a refused field or an unknown key changes nothing.
 */
static void test_mr_rereg(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_rereg_mr *rc = (void *)cmd.payload;
	uint32_t pdn, pdn2, key;
	uint8_t in[8];

	h_init(&h);
	h_start(&h);
	h_enable(&h, 4, 3);
	pdn = alloc_pd_ok(&h);
	pdn2 = alloc_pd_ok(&h);
	pbl_set(&h, PBL, 0, PAGE_A);
	pbl_set(&h, PBL_L1, 0, PAGE_B);
	memcpy(fake_env_ptr(&h.env, PAGE_A, 4), "aaaa", 4);
	memcpy(fake_env_ptr(&h.env, PAGE_B, 4), "bbbb", 4);
	key = reg_mr_ok(&h, pdn, 0x1000, 4096, 1, PBL,
			WREN_MR_ACCESS_LOCAL_WRITE);

	make_cmd(&cmd, WREN_ADMIN_REREG_MR, 0);
	rc->iova = wren_to_le64(0x1000);
	rc->length = wren_to_le64(4096);
	rc->pbl_addr = wren_to_le64(PBL_L1);
	rc->pdn = wren_to_le32(pdn2);
	rc->npages = wren_to_le32(1);
	rc->page_shift = 12;
	rc->access = WREN_MR_ACCESS_REMOTE_READ;
	rc->key = wren_to_le32(key);
	/* Refused whole: remote write without local write. */
	rc->access = WREN_MR_ACCESS_REMOTE_WRITE;
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, 0x1000, in, 4, 0), 0);
	CHECK(!memcmp(in, "aaaa", 4));
	/* A stale key. */
	rc->access = WREN_MR_ACCESS_REMOTE_READ;
	rc->key = wren_to_le32(key ^ 1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_NOT_FOUND);
	/* Taken: the same key, on the other PD and pages, read only. */
	rc->key = wren_to_le32(key);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, 0x1000, in, 4, 0), -EACCES);
	/* A peer's read names the rkey, which the region kept too. */
	CHECK_EQ(weng_mr_read(h.e, pdn2, key, 0x1000, in, 4,
			      WREN_MR_ACCESS_REMOTE_READ), -EACCES);
	CHECK_EQ(weng_mr_read(h.e, pdn2, h.rkey, 0x1000, in, 4,
			      WREN_MR_ACCESS_REMOTE_READ), 0);
	CHECK(!memcmp(in, "bbbb", 4));
	CHECK_EQ(weng_mr_write(h.e, pdn2, key, 0x1000, in, 4,
			       WREN_MR_ACCESS_LOCAL_WRITE), -EACCES);
	/* The first PD is free again; the second holds the region. */
	make_cmd(&cmd, WREN_ADMIN_DEALLOC_PD, 0);
	((struct wren_cmd_destroy_obj *)cmd.payload)->handle =
		wren_to_le32(pdn2);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_STATE);
	((struct wren_cmd_destroy_obj *)cmd.payload)->handle =
		wren_to_le32(pdn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	h_fini(&h);
}

static void test_cq_post(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_eq *ec = (void *)cmd.payload;
	struct wren_cmd_create_cq *cc = (void *)cmd.payload;
	struct weng_completion c = { .status = WREN_CQE_SUCCESS };
	const struct wren_cqe *ring;
	struct wren_aeq_entry ev;
	uint32_t eq, cqn, db;

	h_init(&h);
	h.cfg.msix_vectors = 4;
	h_start(&h);
	h_enable(&h, 4, 3);
	make_cmd(&cmd, WREN_ADMIN_CREATE_EQ, 0);
	ec->base_addr = wren_to_le64(EQ_BASE);
	ec->log_depth = 3;
	ec->flags = WREN_EQ_FLAG_INTR;
	ec->msix_vector = wren_to_le16(1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	eq = wren_le32(cqe.result[0]);
	make_cq(&cmd, 1);
	cc->log_depth = 2;
	cc->flags = WREN_CQ_FLAG_EQ;
	cc->eq_id = wren_to_le16(eq);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	cqn = wren_le32(cqe.result[0]);
	db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	ring = fake_env_ptr(&h.env, CQ_RING, 4 * sizeof(*ring));
	/* The EQ cannot go while the CQ reports to it. */
	make_handle(&cmd, WREN_ADMIN_DESTROY_EQ, 0, eq);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_STATE);

	/* Armed: the first completion raises one event, the next none. */
	reg_w(&h, WREN_REG_EQ_DB(eq), WREN_EQ_DB_ARM);
	weng_db_write(h.e, db, WREN_CQ_DB_ARM, 4);
	c.wqe_index = 1;
	CHECK_EQ(weng_cq_complete(h.e, cqn, &c), 0);
	CHECK_EQ(ring[0].flags & WREN_CQE_F_PHASE, 1);
	CHECK_EQ(wren_le16(ring[0].wqe_index), 1);
	CHECK_EQ(h.env.irqs[1], 1);
	c.flags = 0;
	CHECK_EQ(weng_cq_complete(h.e, cqn, &c), 0);
	CHECK_EQ(h.env.irqs[1], 1);

	/* Armed for solicited only: a plain success does not count. */
	reg_w(&h, WREN_REG_EQ_DB(eq), WREN_EQ_DB_ARM | 1);
	weng_db_write(h.e, db, WREN_CQ_DB_ARM | WREN_CQ_DB_SOLICITED, 4);
	c.flags = 0;
	CHECK_EQ(weng_cq_complete(h.e, cqn, &c), 0);
	CHECK_EQ(h.env.irqs[1], 1);
	c.flags = WREN_CQE_F_SOLICITED;
	CHECK_EQ(weng_cq_complete(h.e, cqn, &c), 0);
	CHECK_EQ(h.env.irqs[1], 2);

	/* Full and not consumed: in error, said once, then silent. */
	c.flags = 0;
	CHECK_EQ(weng_cq_complete(h.e, cqn, &c), -ENOSPC);
	CHECK_EQ(h.env.warnings[WENG_WRN_CQ_OVERFLOW], 1);
	CHECK(aeq_next(&h, &ev));
	CHECK_EQ(ev.type, WREN_AEQ_CQ_ERROR);
	CHECK_EQ(wren_le32(ev.info), cqn);
	weng_db_write(h.e, db, 4, 4);
	c.flags = 0;
	CHECK_EQ(weng_cq_complete(h.e, cqn, &c), -ENOSPC);
	CHECK_EQ(h.env.warnings[WENG_WRN_CQ_OVERFLOW], 1);
	CHECK(!aeq_next(&h, &ev));
	h_fini(&h);
}

#define TC_TABLE	(FAKE_MEM_BASE + 0xe0000)	/* 16 records */

static uint8_t set_tc_table(struct harness *h, uint64_t base, uint8_t log,
			    uint32_t *ext)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_set_tc_table *t = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_SET_TC_TABLE, 0);
	t->base_addr = wren_to_le64(base);
	t->log_entries = log;
	if (ext)
		t->rsvd[*ext] = 1;
	CHECK(exec(h, &cmd, &cqe));
	if (ext)
		*ext = wren_le32(cqe.ext_status);
	return cqe.status;
}

static void test_tc_table_cmd(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	uint32_t ext = 3, pdn;
	const size_t f = sizeof(struct wren_admin_cmd_hdr);

	h_init(&h);
	h.cfg.tc_cache = 8;
	h_start(&h);
	h_enable(&h, 3, 3);
	CHECK_EQ(set_tc_table(&h, TC_TABLE, 4, &ext), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(ext, f + offsetof(struct wren_cmd_set_tc_table, rsvd) + 12 + 1);
	/* Base: not zero, aligned, reachable; size: within the device's range. */
	CHECK_EQ(set_tc_table(&h, 0, 4, NULL), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(set_tc_table(&h, TC_TABLE + 64, 4, NULL), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(set_tc_table(&h, TC_TABLE, 2, NULL), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(set_tc_table(&h, TC_TABLE, 21, NULL), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(set_tc_table(&h, OUTSIDE, 4, NULL), WREN_STATUS_DMA_ERROR);
	/* The table's far end is outside guest memory. */
	CHECK_EQ(set_tc_table(&h, TC_TABLE, 12, NULL), WREN_STATUS_DMA_ERROR);
	CHECK_EQ(set_tc_table(&h, TC_TABLE, 4, NULL), WREN_STATUS_SUCCESS);
	CHECK_EQ(h.e->tc_base, TC_TABLE);
	/* Once per reset. */
	CHECK_EQ(set_tc_table(&h, TC_TABLE, 4, NULL), WREN_STATUS_BAD_STATE);
	h_enable(&h, 3, 3);
	CHECK_EQ(h.e->tc_base, 0);
	/* Not once a queue pair exists: its contexts would change names. */
	pdn = alloc_pd_ok(&h);
	make_cq(&cmd, 1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	make_qp(&cmd, pdn, wren_le32(cqe.result[0]), 1, WREN_QPT_RD);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(set_tc_table(&h, TC_TABLE, 4, NULL), WREN_STATUS_BAD_STATE);
	h_fini(&h);
}

/* ------------------------------------------------------------------ */
/* Two adapters, one wire                                               */
/* ------------------------------------------------------------------ */

#define DATA		(FAKE_MEM_BASE + 0xd0000)	/* 16 pages */
#define DATA_IOVA	0x500000000000ULL

struct adapter {
	struct harness h;
	uint32_t tc_cache;	/* non-zero: that cache and a context table */
	uint8_t sq_shift, rq_shift;	/* entries of 128 << and 64 << them */
	uint16_t max_rd_atom;	/* non-zero: that limit */
	uint32_t max_qp_depth;	/* non-zero: that limit, and QPs that deep */
	uint32_t pdn, cqn, key, ah;
	uint64_t cq_db;
	uint32_t cq_ci;
	/* The QP the post_*() helpers use. */
	uint32_t qpn;
	bool rc;		/* RC: no destination in the send entries */
	uint64_t sq_ring, rq_ring;
	uint64_t sq_db, rq_db;
	uint16_t sq_pi, rq_pi;
};

/* A new QP of @type on @a's PD and CQ, taken to RTS. */
static void adapter_qp(struct adapter *a, uint8_t type)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	make_qp(&cmd, a->pdn, a->cqn, 1, type);
	if (a->max_qp_depth) {
		uint8_t log = 0;

		while (2u << log <= a->max_qp_depth)
			log++;
		((struct wren_cmd_create_qp *)cmd.payload)->sq_log_depth = log;
		((struct wren_cmd_create_qp *)cmd.payload)->rq_log_depth = log;
	}
	((struct wren_cmd_create_qp *)cmd.payload)->sq_wqe_shift = a->sq_shift;
	((struct wren_cmd_create_qp *)cmd.payload)->rq_wqe_shift = a->rq_shift;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	a->qpn = wren_le32(cqe.result[0]);
	a->sq_ring = SQ_RING;
	a->rq_ring = RQ_RING;
	a->sq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	a->rq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[2]);
	a->sq_pi = a->rq_pi = 0;
	a->rc = type == WREN_QPT_RC;
	if (a->rc)
		return;		/* connected by rc_connect() */
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_QKEY,
			WREN_QPS_INIT, 0x11111111), WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTR, 0),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTS, 0),
		 WREN_STATUS_SUCCESS);
}

static void adapter_up(struct adapter *a, int n, uint8_t type)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	h_init(&a->h);
	a->h.cfg.ipv4 = htobe32(0xc6120001 + n);
	a->h.cfg.mac[5] = n;
	if (a->tc_cache)
		a->h.cfg.tc_cache = a->tc_cache;
	if (a->max_rd_atom)
		a->h.cfg.max_rd_atom = a->max_rd_atom;
	if (a->max_qp_depth)
		a->h.cfg.max_qp_depth = a->max_qp_depth;
	h_start(&a->h);
	h_enable(&a->h, 4, 3);
	if (a->tc_cache)
		CHECK_EQ(set_tc_table(&a->h, TC_TABLE, 4, NULL),
			 WREN_STATUS_SUCCESS);
	a->pdn = alloc_pd_ok(&a->h);
	for (uint32_t i = 0; i < 16; i++)
		pbl_set(&a->h, PBL, i, DATA + i * 4096ULL);
	a->key = reg_mr_ok(&a->h, a->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			   WREN_MR_ACCESS_LOCAL_WRITE);
	make_cq(&cmd, 1);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	a->cqn = wren_le32(cqe.result[0]);
	a->cq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	adapter_qp(a, type);
}

/* Undoes calloc() and adapter_up(). */
static void adapter_free(struct adapter *a)
{
	h_fini(&a->h);
	free(a);
}

static void adapter_ah(struct adapter *a, const struct adapter *to)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_ah *ac = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_CREATE_AH, 0);
	ac->pdn = wren_to_le32(a->pdn);
	ac->ipv4 = to->h.cfg.ipv4;
	memcpy(ac->mac, to->h.cfg.mac, 6);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	a->ah = wren_le32(cqe.result[0]);
}

/* Write entry @w of @len bytes into slot @pi of a ring of @size-byte entries. */
static void ring_put(struct adapter *a, uint64_t ring, uint16_t pi,
		     size_t size, const void *w, size_t len)
{
	uint8_t *at = fake_env_ptr(&a->h.env, ring + (pi & 31) * size, size);

	memset(at, 0, size);
	memcpy(at, w, len < size ? len : size);
}

/* Write @w into @a's send ring (32 entries) and ring the doorbell. */
static void sq_push_n(struct adapter *a, const void *w, size_t len)
{
	ring_put(a, a->sq_ring, a->sq_pi, WREN_SQ_WQE_SIZE(a->sq_shift), w, len);
	a->sq_pi++;
	weng_db_write(a->h.e, a->sq_db, a->sq_pi, 4);
}

static void sq_push(struct adapter *a, const struct wren_sq_wqe *w)
{
	sq_push_n(a, w, sizeof(*w));
}

static void rq_push_n(struct adapter *a, const void *w, size_t len)
{
	ring_put(a, a->rq_ring, a->rq_pi, WREN_RQ_WQE_SIZE(a->rq_shift), w, len);
	a->rq_pi++;
	weng_db_write(a->h.e, a->rq_db, a->rq_pi, 4);
}

static void rq_push(struct adapter *a, const struct wren_rq_wqe *w)
{
	rq_push_n(a, w, sizeof(*w));
}

/* Post a send of @len bytes at data offset @off to @qpn; lkey @key. */
static void post_send(struct adapter *a, uint32_t qpn, uint32_t off,
		      uint32_t len, uint32_t key, uint32_t imm)
{
	struct wren_sq_wqe w;

	memset(&w, 0, sizeof(w));
	w.opcode = WREN_WQE_SEND_IMM;
	w.flags = WREN_WQE_F_SIGNALED;
	if (imm == 0x5678)
		w.flags |= WREN_WQE_F_SOLICITED;
	w.num_sge = 1;
	w.imm = htobe32(imm);
	if (!a->rc) {
		w.ah = wren_to_le32(a->ah);
		w.remote_qpn = wren_to_le32(qpn);
		w.remote_qkey = wren_to_le32(0x11111111);
	}
	w.sge[0].addr = wren_to_le64(DATA_IOVA + off);
	w.sge[0].length = wren_to_le32(len);
	w.sge[0].lkey = wren_to_le32(key);
	sq_push(a, &w);
}

/* Post a one-sided @opcode: local bytes at @off, remote @raddr/@rkey. */
static void post_rdma(struct adapter *a, uint8_t opcode, uint32_t qpn,
		      uint32_t off, uint32_t len, uint64_t raddr,
		      uint32_t rkey)
{
	struct wren_sq_wqe w;

	memset(&w, 0, sizeof(w));
	w.opcode = opcode;
	w.flags = WREN_WQE_F_SIGNALED;
	w.num_sge = 1;
	w.imm = htobe32(0xfeed);
	if (!a->rc) {
		w.ah = wren_to_le32(a->ah);
		w.remote_qpn = wren_to_le32(qpn);
		w.remote_qkey = wren_to_le32(0x11111111);
	}
	w.remote_addr = wren_to_le64(raddr);
	w.rkey = wren_to_le32(rkey);
	w.sge[0].addr = wren_to_le64(DATA_IOVA + off);
	w.sge[0].length = wren_to_le32(len);
	w.sge[0].lkey = wren_to_le32(a->key);
	sq_push(a, &w);
}

static void post_recv(struct adapter *a, uint32_t off, uint32_t len)
{
	struct wren_rq_wqe w;

	memset(&w, 0, sizeof(w));
	w.num_sge = 1;
	w.req_id = wren_to_le16(0x100 + a->rq_pi);	/* echoed back */
	w.sge[0].addr = wren_to_le64(DATA_IOVA + off);
	w.sge[0].length = wren_to_le32(len);
	w.sge[0].lkey = wren_to_le32(a->key);
	rq_push(a, &w);
}

/* Carry frames both ways and let time pass until the wire is quiet. */
static void pump(struct adapter *a, struct adapter *b)
{
	static uint8_t frame[16384];
	int quiet = 0;

	while (quiet < 200) {
		size_t len;
		bool moved = false;

		while ((len = weng_tx_pull(a->h.e, frame,
					   sizeof(frame)))) {
			weng_rx_frame(b->h.e, frame, len);
			moved = true;
		}
		while ((len = weng_tx_pull(b->h.e, frame,
					   sizeof(frame)))) {
			weng_rx_frame(a->h.e, frame, len);
			moved = true;
		}
		fake_env_advance(&a->h.env, 1000);
		fake_env_advance(&b->h.env, 1000);
		quiet = moved ? 0 : quiet + 1;
	}
}

/* As pump(), @rounds steps of 1 us, but none of @b's DATA frames reaches @a. */
static void pump_hold_data(struct adapter *a, struct adapter *b, int rounds)
{
	static uint8_t frame[16384];
	size_t len;

	while (rounds--) {
		while ((len = weng_tx_pull(a->h.e, frame, sizeof(frame))))
			weng_rx_frame(b->h.e, frame, len);
		while ((len = weng_tx_pull(b->h.e, frame, sizeof(frame))))
			if (wren_wire_type(frame, len) != WREN_WIRE_DATA)
				weng_rx_frame(a->h.e, frame, len);
		fake_env_advance(&a->h.env, 1000);
		fake_env_advance(&b->h.env, 1000);
	}
}

/* The next completion of @a's CQ, if any; consumes it. */
static bool poll_cq(struct adapter *a, struct wren_cqe *out)
{
	const struct wren_cqe *c =
		fake_env_ptr(&a->h.env, CQ_RING + (a->cq_ci & 63) * sizeof(*c),
			     sizeof(*c));

	if ((c->flags & WREN_CQE_F_PHASE) != lap_phase(a->cq_ci, 6))
		return false;
	*out = *c;
	a->cq_ci++;
	weng_db_write(a->h.e, a->cq_db, a->cq_ci, 4);
	return true;
}

/* A link down loses the frames both ways; back up, datagrams arrive. */
static void test_fault_link_wire(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct weng_fault_stats st;
	struct wren_cqe c;

	adapter_up(a, 0, WREN_QPT_UD);
	adapter_up(b, 1, WREN_QPT_UD);
	adapter_ah(a, b);
	inject(&a->h, "link-down");
	post_recv(b, 100, 1000 + WREN_GRH_LEN);
	post_send(a, b->qpn, 0, 1000, a->key, 1);
	pump(a, b);
	/* A datagram is sent as far as the sender knows; it never arrives. */
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK(!poll_cq(b, &c));
	weng_fault_get_stats(a->h.e, &st);
	CHECK(st.link_tx_dropped >= 1);
	CHECK_EQ(st.link_rx_dropped, 0);
	CHECK_EQ(a->h.env.faults[WENG_FLT_LINK_DROP], st.link_tx_dropped);

	/* b's link down: what a sends is lost on b's side. */
	inject(&a->h, "link-up");
	inject(&b->h, "link-down");
	post_send(a, b->qpn, 0, 1000, a->key, 2);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(!poll_cq(b, &c));
	weng_fault_get_stats(b->h.e, &st);
	CHECK(st.link_rx_dropped >= 1);

	inject(&b->h, "clear");
	post_send(a, b->qpn, 0, 1000, a->key, 3);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(wren_le32(c.byte_len), 1000 + WREN_GRH_LEN);
	adapter_free(a);
	adapter_free(b);
}

static void two_adapters(uint8_t type)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint32_t len = type == WREN_QPT_UD ? 1000 : 20000;
	uint32_t grh = type == WREN_QPT_UD ? WREN_GRH_LEN : 0;
	uint8_t *src, *dst;
	struct wren_cqe c;

	adapter_up(a, 0, type);
	adapter_up(b, 1, type);
	adapter_ah(a, b);
	src = fake_env_ptr(&a->h.env, DATA, 16 * 4096);
	dst = fake_env_ptr(&b->h.env, DATA, 16 * 4096);
	for (uint32_t i = 0; i < 16 * 4096; i++)
		src[i] = i * 13 + 1;

	/* Two messages, two receives, across page boundaries. */
	post_recv(b, 100, len + grh);
	post_recv(b, 30000, len + grh);
	post_send(a, b->qpn, 50, len, a->key, 0x1234);
	post_send(a, b->qpn, 4000, len, a->key, 0x5678);
	pump(a, b);
	for (int i = 0; i < 2; i++) {
		CHECK(poll_cq(a, &c));
		CHECK_EQ(c.opcode, WREN_CQE_OP_SEND);
		CHECK_EQ(c.status, WREN_CQE_SUCCESS);
		CHECK(poll_cq(b, &c));
		CHECK_EQ(c.opcode, WREN_CQE_OP_RECV);
		CHECK_EQ(c.status, WREN_CQE_SUCCESS);
		CHECK_EQ(wren_le16(c.wqe_index), 0x100 + i);
		CHECK_EQ(wren_le32(c.byte_len), len + grh);
		CHECK_EQ(wren_le32(c.src_qpn), a->qpn);
		CHECK_EQ(c.src_ipv4, a->h.cfg.ipv4);
		CHECK(c.flags & WREN_CQE_F_IMM);
		CHECK_EQ(!!(c.flags & WREN_CQE_F_GRH), !!grh);
		/* The second is solicited; its event reaches the receiver. */
		CHECK_EQ(!!(c.flags & WREN_CQE_F_SOLICITED),
			 be32toh(c.imm) == 0x5678);
	}
	CHECK(!memcmp(dst + 100 + grh, src + 50, len));
	CHECK(!memcmp(dst + 30000 + grh, src + 4000, len));
	if (grh)
		CHECK_EQ(dst[100], 0x60);	/* an IPv6-form GRH */

	/* No receive posted: RNR for RD; a UD datagram is just dropped. */
	post_send(a, b->qpn, 0, 10, a->key, 1);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, type == WREN_QPT_RD ? WREN_CQE_RNR :
						  WREN_CQE_SUCCESS);
	CHECK(!poll_cq(b, &c));

	/* No such QP at the other end. */
	post_send(a, b->qpn + 5, 0, 10, a->key, 1);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, type == WREN_QPT_RD ? WREN_CQE_BAD_DEST_QP :
						  WREN_CQE_SUCCESS);

	/* A receive too short: RD refuses it, UD completes it in error. */
	post_recv(b, 0, 10 + grh);
	post_send(a, b->qpn, 0, 11, a->key, 1);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, type == WREN_QPT_RD ? WREN_CQE_REMOTE_TOO_LONG :
						  WREN_CQE_SUCCESS);
	if (type == WREN_QPT_UD) {
		CHECK(poll_cq(b, &c));
		CHECK_EQ(c.status, WREN_CQE_LOC_LEN_ERR);
	} else {
		CHECK(!poll_cq(b, &c));
	}

	/* A bad lkey is a local error: the QP fails, later sends flush. */
	post_send(a, b->qpn, 0, 10, a->key ^ 1, 1);
	post_send(a, b->qpn, 0, 10, a->key, 1);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_PROT_ERR);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_WR_FLUSH_ERR);
	CHECK(!poll_cq(a, &c));
	/* The bad lkey is traced, and nothing else. */
	CHECK_EQ(a->h.env.warnings[WENG_WRN_BAD_WQE], 1);
	CHECK_EQ(fake_env_total_warnings(&a->h.env) -
		 a->h.env.warnings[WENG_WRN_ADMIN_REJECTED] -
		 a->h.env.warnings[WENG_WRN_BAD_WQE], 0);
	adapter_free(a);
	adapter_free(b);
}

static void test_reset_in_flight(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const uint8_t *ring;
	bool clean = true;

	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_ah(a, b);
	/* A message in the transport, then a reset: nothing may land. */
	post_send(a, b->qpn, 0, 20000, a->key, 1);
	memset(fake_env_ptr(&a->h.env, CQ_RING, 4096), 0, 4096);
	reg_w(&a->h, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET);
	pump(a, b);
	ring = fake_env_ptr(&a->h.env, CQ_RING, 4096);
	for (unsigned int i = 0; i < 4096; i++)
		clean &= !ring[i];
	CHECK(clean);
	CHECK_EQ(a->h.env.warnings[WENG_WRN_DMA], 0);
	adapter_free(a);
	adapter_free(b);
}

/* GET_STATS into @v (@len bytes of it), in CPU order; the status. */
static uint8_t get_stats(struct adapter *a, uint32_t len, uint64_t *v)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_get_stats *gs = (void *)cmd.payload;
	const uint64_t *buf;

	make_cmd(&cmd, WREN_ADMIN_GET_STATS, 0);
	gs->buf_addr = wren_to_le64(BUF_BASE);
	gs->buf_len = wren_to_le32(len);
	memset(fake_env_ptr(&a->h.env, BUF_BASE, 4096), 0xee, 4096);
	if (run(&a->h, &cmd, &cqe) != WREN_STATUS_SUCCESS)
		return cqe.status;
	CHECK_EQ(wren_le32(cqe.result[0]), WREN_STAT_COUNT);
	buf = fake_env_ptr(&a->h.env, BUF_BASE, 8 * WREN_STAT_COUNT);
	for (uint32_t i = 0; i < len / 8 && i < WREN_STAT_COUNT; i++)
		v[i] = wren_le64(buf[i]);
	return WREN_STATUS_SUCCESS;
}

/* Send completions come in send-queue order, whatever order the
 * messages finish in: the second waits for the first to fail. */
static void test_send_completion_order(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct adapter *ghost = calloc(1, sizeof(*ghost));
	uint64_t v[WREN_STAT_COUNT + 1];
	uint32_t ghost_ah, b_ah;
	struct wren_cqe c;
	int i;

	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	ghost->h.cfg.ipv4 = htobe32(0xc61200fe);	/* nobody answers */
	adapter_ah(a, ghost);
	ghost_ah = a->ah;
	adapter_ah(a, b);
	b_ah = a->ah;
	post_recv(b, 0, 100);
	a->ah = ghost_ah;
	post_send(a, 77, 0, 10, a->key, 1);
	a->ah = b_ah;
	post_send(a, b->qpn, 0, 10, a->key, 2);
	pump(a, b);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK(!poll_cq(a, &c));
	for (i = 0; i < 100 && !poll_cq(a, &c); i++) {
		fake_env_advance(&a->h.env, 10000000);
		fake_env_advance(&b->h.env, 10000000);
		pump(a, b);
	}
	CHECK_EQ(c.status, WREN_CQE_REMOTE_UNREACHABLE);
	CHECK_EQ(wren_le16(c.wqe_index), 0);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(wren_le16(c.wqe_index), 1);
	CHECK(!poll_cq(a, &c));

	/* The counters tell the story: a failed context, its retries. */
	CHECK_EQ(get_stats(a, 8 * WREN_STAT_COUNT, v), WREN_STATUS_SUCCESS);
	CHECK_EQ(v[WREN_STAT_ctx_failed], 1);
	CHECK(v[WREN_STAT_retx_timeout] >= 1);
	CHECK_EQ(v[WREN_STAT_tx_msgs], 1);
	CHECK_EQ(v[WREN_STAT_msg_errors], 1);
	CHECK_EQ(get_stats(b, 8 * WREN_STAT_COUNT, v), WREN_STATUS_SUCCESS);
	CHECK_EQ(v[WREN_STAT_rx_msgs], 1);
	CHECK_EQ(v[WREN_STAT_tx_msgs], 0);
	/* A short buffer gets the first counters only; bad lengths fail. */
	memset(v, 0xee, sizeof(v));
	CHECK_EQ(get_stats(a, 16, v), WREN_STATUS_SUCCESS);
	CHECK(v[WREN_STAT_tx_pkts] > 0);
	CHECK_EQ(v[WREN_STAT_rx_pkts], 0xeeeeeeeeeeeeeeeeULL);
	CHECK_EQ(get_stats(a, 12, v), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(get_stats(a, 0, v), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(get_stats(a, 4104, v), WREN_STATUS_BAD_PARAM);
	h_fini(&a->h);
	h_fini(&b->h);
	free(a);
	free(b);
	free(ghost);
}

/* QPs of one adapter reach each other without a wire. */
static void test_loopback(void)
{
	struct adapter *a = calloc(1, sizeof(*a));
	static uint8_t frame[16384];
	struct wren_cqe c;
	const uint8_t *src, *dst;

	adapter_up(a, 0, WREN_QPT_RD);
	adapter_ah(a, a);
	src = fake_env_ptr(&a->h.env, DATA, 16 * 4096);
	memset((uint8_t *)src + 8192, 0x5a, 5000);
	post_recv(a, 0, 8000);
	post_send(a, a->qpn, 8192, 5000, a->key, 7);
	for (int i = 0; i < 300; i++) {
		CHECK_EQ(weng_tx_pull(a->h.e, frame, sizeof(frame)), 0);
		fake_env_advance(&a->h.env, 1000);
	}
	for (int i = 0; i < 2; i++) {
		CHECK(poll_cq(a, &c));
		CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	}
	CHECK(!poll_cq(a, &c));
	dst = fake_env_ptr(&a->h.env, DATA, 5000);
	CHECK(!memcmp(dst, src + 8192, 5000));
	adapter_free(a);
}

/*
 * Loopback traffic counts against the host's transmit budget: one pull
 * hands at most a few frames to the adapter's own receive side, then
 * asks to be pulled again, so a user posting to itself cannot keep the
 * host's thread; pulled on, everything arrives.
 */
static void test_loopback_budget(void)
{
	struct adapter *a = calloc(1, sizeof(*a));
	static uint8_t frame[16384];
	unsigned int kicks, pulls = 0;
	struct wren_cqe c;
	int i, sends = 0, recvs = 0;

	adapter_up(a, 0, WREN_QPT_RD);
	adapter_ah(a, a);
	for (i = 0; i < 16; i++)
		post_recv(a, 0, 60000);
	for (i = 0; i < 16; i++)
		post_send(a, a->qpn, 0, 60000, a->key, i);
	kicks = a->h.env.tx_kicks;
	/* 16 messages of 15 packets each, with their ACKs: no single pull. */
	CHECK_EQ(weng_tx_pull(a->h.e, frame, sizeof(frame)), 0);
	CHECK_EQ(a->h.e->stats.self_yields, 1);
	CHECK(a->h.env.tx_kicks > kicks);
	while (a->h.env.tx_kicks != kicks && pulls < 10000) {
		kicks = a->h.env.tx_kicks;
		CHECK_EQ(weng_tx_pull(a->h.e, frame, sizeof(frame)), 0);
		pulls++;
	}
	CHECK(pulls > 16);
	for (i = 0; i < 300 && recvs < 16; i++) {
		while (poll_cq(a, &c)) {
			CHECK_EQ(c.status, WREN_CQE_SUCCESS);
			if (c.opcode == WREN_CQE_OP_RECV)
				recvs++;
			else
				sends++;
		}
		while (weng_tx_pull(a->h.e, frame, sizeof(frame)) ||
		       a->h.env.tx_kicks != kicks)
			kicks = a->h.env.tx_kicks;
		fake_env_advance(&a->h.env, 100000);
	}
	CHECK_EQ(recvs, 16);
	CHECK_EQ(sends, 16);
	adapter_free(a);
}

/* Destroy @a's QP and make a new one in RTS, as a new program would. */
static void qp_again(struct adapter *a)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	make_handle(&cmd, WREN_ADMIN_DESTROY_QP, 0, a->qpn);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	adapter_qp(a, WREN_QPT_RD);
}

/*
 * Both programs end while messages are in flight on a lossy wire (as a
 * timed perftest run does), then new QPs talk over the same contexts:
 * the old messages fail as their payload can no longer be read, and the
 * context must go on with the new ones.
 */
static void test_qps_gone_midstream(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	static uint8_t frame[16384];
	struct wren_cqe c;
	int i, n = 0, got_a = 0, got_b = 0;

	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_ah(a, b);
	for (i = 0; i < 8; i++)
		post_recv(b, 0, 65536);
	for (i = 0; i < 30; i++)
		post_send(a, b->qpn, 0, 60000, a->key, 1);
	/*
	 * A long stretch of the stream, every fifth frame lost: receives run
	 * short, refused messages leave the target's window base behind,
	 * then the failed reads move the initiator's more than a window on.
	 */
	for (i = 0; i < 1000; i++) {
		size_t len;

		while ((len = weng_tx_pull(a->h.e, frame, sizeof(frame))))
			if (++n % 5)
				weng_rx_frame(b->h.e, frame, len);
		while ((len = weng_tx_pull(b->h.e, frame, sizeof(frame))))
			if (++n % 5)
				weng_rx_frame(a->h.e, frame, len);
		fake_env_advance(&a->h.env, 1000);
		fake_env_advance(&b->h.env, 1000);
	}
	qp_again(a);
	qp_again(b);
	while (poll_cq(a, &c) || poll_cq(b, &c))
		;
	post_recv(b, 0, 100);
	post_send(a, b->qpn, 0, 10, a->key, 2);
	for (i = 0; i < 300 && !(got_a && got_b); i++) {
		pump(a, b);
		while (poll_cq(a, &c))
			got_a += c.status == WREN_CQE_SUCCESS;
		while (poll_cq(b, &c))
			got_b += c.status == WREN_CQE_SUCCESS;
		fake_env_advance(&a->h.env, 10000000);
		fake_env_advance(&b->h.env, 10000000);
	}
	CHECK_EQ(got_a, 1);
	CHECK_EQ(got_b, 1);
	adapter_free(a);
	adapter_free(b);
}

/* Carry frames among @n adapters, by destination address, until quiet. */
static void pump_n(struct adapter **v, int n)
{
	static uint8_t frame[16384];
	int quiet = 0;

	while (quiet < 200) {
		bool moved = false;

		for (int i = 0; i < n; i++) {
			size_t len;

			while ((len = weng_tx_pull(v[i]->h.e, frame,
						   sizeof(frame)))) {
				uint32_t dst;

				memcpy(&dst, frame + 30, 4);
				for (int j = 0; j < n; j++)
					if (v[j]->h.cfg.ipv4 == dst)
						weng_rx_frame(v[j]->h.e,
							      frame, len);
				moved = true;
			}
		}
		for (int i = 0; i < n; i++)
			fake_env_advance(&v[i]->h.env, 1000);
		quiet = moved ? 0 : quiet + 1;
	}
}

/*
 * An adapter with room for one context talks to two targets in turns:
 * each turn writes the idle context to the table in host memory and
 * reads the other back, and the targets see one incarnation each.
 */
static void test_tc_table_spill(void)
{
	struct adapter *v[3];
	uint32_t ah[2];
	struct wren_tp_stats st;
	struct wren_cqe c;
	const struct wren_tc_entry *t;
	int spilled = 0, cached = 0, ok = 0;

	for (int i = 0; i < 3; i++)
		v[i] = calloc(1, sizeof(*v[i]));
	v[0]->tc_cache = 1;
	for (int i = 0; i < 3; i++)
		adapter_up(v[i], i, WREN_QPT_RD);
	for (int i = 0; i < 2; i++) {
		adapter_ah(v[0], v[i + 1]);
		ah[i] = v[0]->ah;
	}
	for (int turn = 0; turn < 6; turn++) {
		struct adapter *to = v[1 + turn % 2];

		post_recv(to, 0, 4096);
		v[0]->ah = ah[turn % 2];
		post_send(v[0], to->qpn, 0, 3000, v[0]->key, turn);
		pump_n(v, 3);
		CHECK(poll_cq(to, &c));
		ok += c.status == WREN_CQE_SUCCESS;
	}
	CHECK_EQ(ok, 6);
	wren_tp_get_stats(v[0]->h.e->tp, &st);
	CHECK_EQ(st.ctx_created, 2);
	CHECK_EQ(st.ctx_spilled, 5);
	CHECK_EQ(st.ctx_restored, 4);
	CHECK_EQ(st.tc_errors, 0);
	for (int i = 1; i < 3; i++) {
		wren_tp_get_stats(v[i]->h.e->tp, &st);
		CHECK_EQ(st.rx_ctx_created, 1);
	}
	t = fake_env_ptr(&v[0]->h.env, TC_TABLE, 16 * sizeof(*t));
	for (int i = 0; i < 16; i++) {
		uint32_t state = FIELD_GET(WREN_TC_STATE, wren_le32(t[i].flags));

		if (state == WREN_TC_STATE_SPILLED) {
			spilled++;
			/* The last turn went to v[2]: v[1]'s context waits here. */
			CHECK_EQ(t[i].ipv4_addr, v[1]->h.cfg.ipv4);
			CHECK(!memcmp(t[i].mac_addr, v[1]->h.cfg.mac, 6));
		}
		cached += state == WREN_TC_STATE_CACHED;
	}
	CHECK_EQ(spilled, 1);
	CHECK_EQ(cached, 1);
	for (int i = 0; i < 3; i++) {
		h_fini(&v[i]->h);
		free(v[i]);
	}
}

/* A destroyed QP's number is not the next one given out. */
static void test_qpn_rotation(void)
{
	struct adapter *a = calloc(1, sizeof(*a));
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	adapter_up(a, 0, WREN_QPT_RD);
	CHECK_EQ(a->qpn, WREN_QPN_FIRST);
	make_handle(&cmd, WREN_ADMIN_DESTROY_QP, 0, a->qpn);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_RD);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), WREN_QPN_FIRST + 1);
	adapter_free(a);
}

/* One one-sided operation, pumped; its requester completion's status. */
static uint8_t rdma_once(struct adapter *a, struct adapter *b, uint8_t opcode,
			 uint32_t off, uint32_t len, uint64_t raddr,
			 uint32_t rkey, struct wren_cqe *c)
{
	post_rdma(a, opcode, b->qpn, off, len, raddr, rkey);
	pump(a, b);
	if (!poll_cq(a, c))
		return 0xff;
	return c->status;
}

static void test_rdma_between_adapters(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const uint32_t rw = WREN_MR_ACCESS_LOCAL_WRITE |
			    WREN_MR_ACCESS_REMOTE_WRITE |
			    WREN_MR_ACCESS_REMOTE_READ;
	const uint64_t end = DATA_IOVA + 16 * 4096;
	uint32_t rkey, ro_key, ro_lkey, other_pd_key, pdn2;
	uint8_t *src, *dst, *before = malloc(16 * 4096);
	uint64_t pbl_entry, unaligned = wren_to_le64(DATA + 1);
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cqe c;

	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_ah(a, b);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL, rw);
	ro_key = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			   WREN_MR_ACCESS_REMOTE_READ);
	ro_lkey = b->h.lkey;
	pdn2 = alloc_pd_ok(&b->h);
	other_pd_key = reg_rkey_ok(&b->h, pdn2, DATA_IOVA, 16 * 4096, 16, PBL,
				 rw);
	src = fake_env_ptr(&a->h.env, DATA, 16 * 4096);
	dst = fake_env_ptr(&b->h.env, DATA, 16 * 4096);
	for (uint32_t i = 0; i < 16 * 4096; i++) {
		src[i] = i * 13 + 1;
		dst[i] = i * 7 + 3;
	}

	/* WRITE across pages: no receive taken, no completion there. */
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE, 50, 20000,
			   DATA_IOVA + 8000, rkey, &c), WREN_CQE_SUCCESS);
	CHECK_EQ(c.opcode, WREN_CQE_OP_RDMA_WRITE);
	CHECK(!memcmp(dst + 8000, src + 50, 20000));
	CHECK(!poll_cq(b, &c));
	/* WRITE_IMM: a completion at the responder, still no receive. */
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE_IMM, 0, 100,
			   end - 100, rkey, &c), WREN_CQE_SUCCESS);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.opcode, WREN_CQE_OP_RECV_RDMA_IMM);
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(wren_le32(c.byte_len), 100);
	CHECK_EQ(be32toh(c.imm), 0xfeed);
	CHECK_EQ(wren_le32(c.src_qpn), a->qpn);
	CHECK(!memcmp(dst + 16 * 4096 - 100, src, 100));
	/* READ, to its last byte of the region, into another place. */
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_READ, 32768, 30001,
			   end - 30001, ro_key, &c), WREN_CQE_SUCCESS);
	CHECK_EQ(c.opcode, WREN_CQE_OP_RDMA_READ);
	CHECK_EQ(wren_le32(c.byte_len), 30001);
	CHECK(!memcmp(src + 32768, dst + 16 * 4096 - 30001, 30001));
	/* Zero bytes: nothing to check, nothing to do. */
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE, 0, 0, 0, 0xdead, &c),
		 WREN_CQE_SUCCESS);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_READ, 0, 0, 0, 0xdead, &c),
		 WREN_CQE_SUCCESS);

	/* Each violation: a remote access error, the responder untouched. */
	memcpy(before, dst, 16 * 4096);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE, 0, 10, DATA_IOVA,
			   ro_key, &c), WREN_CQE_REM_ACCESS_ERR);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE, 0, 10, DATA_IOVA,
			   rkey ^ 0x100, &c), WREN_CQE_REM_ACCESS_ERR);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE, 0, 10, DATA_IOVA,
			   other_pd_key, &c), WREN_CQE_REM_ACCESS_ERR);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE, 0, 101, end - 100,
			   rkey, &c), WREN_CQE_REM_ACCESS_ERR);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE_IMM, 0, 10,
			   DATA_IOVA - 1, rkey, &c), WREN_CQE_REM_ACCESS_ERR);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_READ, 0, 10, end - 9, rkey,
			   &c), WREN_CQE_REM_ACCESS_ERR);
	/* A region's lkey is no rkey: a peer naming it is refused. */
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_READ, 0, 10, DATA_IOVA,
			   ro_lkey, &c), WREN_CQE_REM_ACCESS_ERR);
	/* Commands name the lkey: the rkey is not found. */
	make_handle(&cmd, WREN_ADMIN_DEREG_MR, 0, ro_key);
	CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_NOT_FOUND);
	make_handle(&cmd, WREN_ADMIN_DEREG_MR, 0, ro_lkey);
	CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_READ, 0, 10, DATA_IOVA,
			   ro_key, &c), WREN_CQE_REM_ACCESS_ERR);
	/*
	 * A page list the responder cannot use (here not a page; a fenced
	 * function cannot read it at all) is the responder's failure: a
	 * remote operation error, not a key the requester got wrong.
	 */
	memcpy(&pbl_entry, fake_env_ptr(&b->h.env, PBL, 8), 8);
	memcpy(fake_env_ptr(&b->h.env, PBL, 8), &unaligned, 8);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE, 0, 10, DATA_IOVA,
			   rkey, &c), WREN_CQE_REMOTE_OP_ERR);
	memcpy(fake_env_ptr(&b->h.env, PBL, 8), &pbl_entry, 8);
	CHECK(!memcmp(before, dst, 16 * 4096));
	CHECK(!poll_cq(b, &c));
	/* ... and the requester's QP goes on. */
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_WRITE, 0, 10, DATA_IOVA,
			   rkey, &c), WREN_CQE_SUCCESS);

	/* A read's buffer needs local write; one-sided needs an RD QP. */
	make_handle(&cmd, WREN_ADMIN_DEREG_MR, 0, a->key);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	a->key = reg_mr_ok(&a->h, a->pdn, DATA_IOVA, 16 * 4096, 16, PBL, 0);
	CHECK_EQ(rdma_once(a, b, WREN_WQE_RDMA_READ, 0, 10, DATA_IOVA, rkey,
			   &c), WREN_CQE_LOC_PROT_ERR);
	free(before);
	adapter_free(a);
	adapter_free(b);
}

/*
 * A forged READ_RESP (wrong tag, wrong source) is refused; a responder
 * that never answers costs the read a timeout, not the QP.
 */
static void test_read_response_checks(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	static uint8_t frame[16384];
	const uint32_t rw = WREN_MR_ACCESS_LOCAL_WRITE |
			    WREN_MR_ACCESS_REMOTE_READ;
	struct wren_tp_stats st;
	struct wren_cqe c;
	uint32_t rkey;
	size_t len;
	int i;

	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_ah(a, b);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL, rw);
	/* b answers nothing: a's request is acked, b's data never leaves. */
	post_rdma(a, WREN_WQE_RDMA_READ, b->qpn, 0, 5000, DATA_IOVA, rkey);
	for (i = 0; i < 2000 && !poll_cq(a, &c); i++) {
		while ((len = weng_tx_pull(a->h.e, frame,
					   sizeof(frame))))
			weng_rx_frame(b->h.e, frame, len);
		while ((len = weng_tx_pull(b->h.e, frame,
					   sizeof(frame)))) {
			uint8_t type = wren_wire_type(frame, len);

			if (type != WREN_WIRE_DATA)
				weng_rx_frame(a->h.e, frame, len);
		}
		fake_env_advance(&a->h.env, 1000000);
		fake_env_advance(&b->h.env, 1000000);
	}
	CHECK(i < 2000);
	CHECK_EQ(c.opcode, WREN_CQE_OP_RDMA_READ);
	CHECK_EQ(c.status, WREN_CQE_REMOTE_UNRESPONSIVE);
	/* The QP goes on. */
	CHECK_EQ(a->h.e->qps[a->qpn - WREN_QPN_FIRST].state, WREN_QPS_RTS);

	/*
	 * A read in flight, and a third adapter forging its response with
	 * the right tag and QPs: refused, as it comes from the wrong place.
	 * The real response then completes the read.
	 */
	post_rdma(a, WREN_WQE_RDMA_READ, b->qpn, 0, 64, DATA_IOVA, rkey);
	{
		struct adapter *m = calloc(1, sizeof(*m));
		struct wren_tp_dest d = { .ipv4 = a->h.cfg.ipv4 };
		/* "The read failed": it would end the read if believed. */
		struct wren_tp_msg resp = {
			.opcode = WREN_WIRE_OP_READ_RESP,
			.flags = WREN_TP_MSG_FAILED,
			.dst_qpn = a->qpn, .src_qpn = b->qpn,
			.imm = (uint32_t)a->h.e->qps[0].gen << 16 | 1,
		};

		adapter_up(m, 2, WREN_QPT_RD);
		memcpy(d.mac, a->h.cfg.mac, 6);
		CHECK_EQ(wren_tp_send(m->h.e->tp, &d, &resp, 1), 0);
		pump(m, a);
		wren_tp_get_stats(m->h.e->tp, &st);
		CHECK_EQ(st.msg_err_bad_dest_qp, 1);
		CHECK(!poll_cq(a, &c));
		h_fini(&m->h);
		free(m);
	}
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.opcode, WREN_CQE_OP_RDMA_READ);
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	adapter_free(a);
	adapter_free(b);
}

/* A QP's READs beyond max_rd_atom wait for earlier ones to finish. */
static void test_read_limit(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct wren_tp_stats st;
	struct wren_cqe c;
	uint32_t rkey;
	int i, ok = 0;

	a->max_rd_atom = 2;
	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_ah(a, b);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			 WREN_MR_ACCESS_LOCAL_WRITE | WREN_MR_ACCESS_REMOTE_READ);
	for (i = 0; i < 5; i++)
		post_rdma(a, WREN_WQE_RDMA_READ, b->qpn, i * 100, 100,
			  DATA_IOVA + i * 100, rkey);
	/* b's answers are held back: only two requests may leave a. */
	pump_hold_data(a, b, 300);
	wren_tp_get_stats(b->h.e->tp, &st);
	CHECK_EQ(st.rx_msgs, 2);
	CHECK(!poll_cq(a, &c));
	/* Let the answers through: all five complete, in order. */
	for (i = 0; i < 100 && ok < 5; i++) {
		pump(a, b);
		while (poll_cq(a, &c)) {
			CHECK_EQ(wren_le16(c.wqe_index), ok);
			ok += c.status == WREN_CQE_SUCCESS;
		}
		fake_env_advance(&a->h.env, 10000000);
		fake_env_advance(&b->h.env, 10000000);
	}
	CHECK_EQ(ok, 5);
	wren_tp_get_stats(b->h.e->tp, &st);
	CHECK_EQ(st.rx_msgs, 5);
	adapter_free(a);
	adapter_free(b);
}

/* A datagram QP of @x from RTS to RESET and up again, its rings empty. */
static void qp_reset_up(struct adapter *x)
{
	CHECK_EQ(modify(&x->h, x->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, 0),
		 WREN_STATUS_SUCCESS);
	x->sq_pi = x->rq_pi = 0;
	CHECK_EQ(modify(&x->h, x->qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_QKEY,
			WREN_QPS_INIT, 0x11111111), WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&x->h, x->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTR, 0),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&x->h, x->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTS, 0),
		 WREN_STATUS_SUCCESS);
}

/*
 * RTS -> RESET with READs outstanding forgets them: the QP brought up
 * again may post as many READs as a new one, and they complete.
 */
static void test_read_reset(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct wren_cqe c;
	uint32_t rkey;
	int i, ok = 0;

	a->max_rd_atom = 2;
	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_ah(a, b);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			 WREN_MR_ACCESS_LOCAL_WRITE | WREN_MR_ACCESS_REMOTE_READ);
	for (i = 0; i < 2; i++)
		post_rdma(a, WREN_WQE_RDMA_READ, b->qpn, i * 100, 100,
			  DATA_IOVA + i * 100, rkey);
	/* Requests delivered, responses lost: both READs outstanding. */
	pump_hold_data(a, b, 50);
	CHECK(!poll_cq(a, &c));
	qp_reset_up(a);
	for (i = 0; i < 2; i++)
		post_rdma(a, WREN_WQE_RDMA_READ, b->qpn, i * 100, 100,
			  DATA_IOVA + i * 100, rkey);
	for (i = 0; i < 100 && ok < 2; i++) {
		pump(a, b);
		while (poll_cq(a, &c)) {
			CHECK_EQ(c.opcode, WREN_CQE_OP_RDMA_READ);
			CHECK_EQ(wren_le16(c.wqe_index), ok);
			ok += c.status == WREN_CQE_SUCCESS;
		}
		fake_env_advance(&a->h.env, 10000000);
		fake_env_advance(&b->h.env, 10000000);
	}
	CHECK_EQ(ok, 2);
	/* Nothing of the first READs came back as a completion. */
	CHECK(!poll_cq(a, &c));
	/* A responder reset and brought up again answers as before. */
	qp_reset_up(b);
	post_rdma(a, WREN_WQE_RDMA_READ, b->qpn, 0, 100, DATA_IOVA, rkey);
	for (i = 0; i < 100 && !poll_cq(a, &c); i++) {
		pump(a, b);
		fake_env_advance(&a->h.env, 10000000);
		fake_env_advance(&b->h.env, 10000000);
	}
	CHECK(i < 100);
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	adapter_free(a);
	adapter_free(b);
}

static void test_rd_between_adapters(void)
{
	two_adapters(WREN_QPT_RD);
}

static void test_ud_between_adapters(void)
{
	two_adapters(WREN_QPT_UD);
}

/*
 * Queues of larger entries: a send of 16 SGEs and one of 400 inline bytes
 * into receives of 20 SGEs, every byte where it belongs; what an entry of
 * its size cannot hold, and sizes beyond the largest, refused.
 */
static void test_large_entries(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint8_t sbuf[512], rbuf[512], *src, *dst;
	struct wren_sq_wqe *w = (void *)sbuf;
	struct wren_rq_wqe *r = (void *)rbuf;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_qp *qc = (void *)cmd.payload;
	struct wren_cqe c;
	uint32_t j, k;

	a->sq_shift = b->sq_shift = WREN_SQ_WQE_SHIFT_MAX;
	a->rq_shift = b->rq_shift = WREN_RQ_WQE_SHIFT_MAX;
	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_ah(a, b);
	src = fake_env_ptr(&a->h.env, DATA, 4096);
	dst = fake_env_ptr(&b->h.env, DATA, 16 * 4096);
	for (k = 0; k < 4096; k++)
		src[k] = k * 7 + 1;

	/* 16 SGEs of 100 bytes, the source's pieces in reverse order. */
	memset(sbuf, 0, sizeof(sbuf));
	w->opcode = WREN_WQE_SEND;
	w->flags = WREN_WQE_F_SIGNALED;
	w->num_sge = 16;
	w->ah = wren_to_le32(a->ah);
	w->remote_qpn = wren_to_le32(b->qpn);
	w->remote_qkey = wren_to_le32(0x11111111);
	for (j = 0; j < 16; j++) {
		wren_sq_wqe_sges(w)[j].addr =
			wren_to_le64(DATA_IOVA + (15 - j) * 100);
		wren_sq_wqe_sges(w)[j].length = wren_to_le32(100);
		wren_sq_wqe_sges(w)[j].lkey = wren_to_le32(a->key);
	}
	/* Receives of 20 SGEs of 80 bytes, 200 bytes apart. */
	memset(rbuf, 0, sizeof(rbuf));
	r->num_sge = 20;
	for (j = 0; j < 20; j++) {
		wren_rq_wqe_sges(r)[j].addr = wren_to_le64(DATA_IOVA + j * 200);
		wren_rq_wqe_sges(r)[j].length = wren_to_le32(80);
		wren_rq_wqe_sges(r)[j].lkey = wren_to_le32(b->key);
	}
	rq_push_n(b, rbuf, sizeof(rbuf));
	sq_push_n(a, sbuf, sizeof(sbuf));
	pump(a, b);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(wren_le32(c.byte_len), 1600);
	for (k = 0; k < 1600; k++)
		if (dst[k / 80 * 200 + k % 80] != src[(15 - k / 100) * 100 +
						       k % 100])
			break;
	CHECK_EQ(k, 1600);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);

	/* 400 bytes inline. */
	w->flags = WREN_WQE_F_SIGNALED | WREN_WQE_F_INLINE;
	w->num_sge = 0;
	w->inline_len = wren_to_le32(400);
	for (k = 0; k < 400; k++)
		wren_sq_wqe_inline(w)[k] = k ^ 0x5a;
	rq_push_n(b, rbuf, sizeof(rbuf));
	sq_push_n(a, sbuf, sizeof(sbuf));
	pump(a, b);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(wren_le32(c.byte_len), 400);
	for (k = 0; k < 400; k++)
		if (dst[k / 80 * 200 + k % 80] != (uint8_t)(k ^ 0x5a))
			break;
	CHECK_EQ(k, 400);
	CHECK(poll_cq(a, &c));

	/* A receive entry's last 8 bytes are reserved. */
	rbuf[sizeof(rbuf) - 1] = 1;
	rq_push_n(b, rbuf, sizeof(rbuf));
	w->flags = WREN_WQE_F_SIGNALED;
	w->inline_len = 0;
	w->num_sge = 1;
	wren_sq_wqe_sges(w)[0].addr = wren_to_le64(DATA_IOVA);
	wren_sq_wqe_sges(w)[0].length = wren_to_le32(100);
	wren_sq_wqe_sges(w)[0].lkey = wren_to_le32(a->key);
	sq_push_n(a, sbuf, sizeof(sbuf));
	pump(a, b);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_QP_OP_ERR);
	CHECK(poll_cq(a, &c));

	/* One SGE more than 512 bytes hold. */
	w->num_sge = WREN_SQ_WQE_SGE(WREN_SQ_WQE_SHIFT_MAX) + 1;
	sq_push_n(a, sbuf, sizeof(sbuf));
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_QP_OP_ERR);

	/* No larger entries; none of its own for a QP on an SRQ. */
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_RD);
	qc->sq_wqe_shift = WREN_SQ_WQE_SHIFT_MAX + 1;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_RD);
	qc->rq_wqe_shift = WREN_RQ_WQE_SHIFT_MAX + 1;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	adapter_free(a);
	adapter_free(b);
}

/* ------------------------------------------------------------------ */
/* RC                                                                   */
/* ------------------------------------------------------------------ */

#define SQ_RING2	(FAKE_MEM_BASE + 0xf0000)
#define RQ_RING2	(FAKE_MEM_BASE + 0xf1000)

/* Take @a's current RC QP, in RESET or INIT, to RTR towards @b's. */
static void rc_connect_rtr(struct adapter *a, const struct adapter *b,
			   uint32_t rq_psn, uint8_t access,
			   uint8_t min_rnr_timer, uint8_t rnr_retry)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_modify_qp *m = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_MODIFY_QP, 0);
	m->qpn = wren_to_le32(a->qpn);
	m->attr_mask = wren_to_le32(WREN_QP_ATTR_STATE | WREN_QP_ATTR_ACCESS);
	m->state = WREN_QPS_INIT;
	m->access = access;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);

	/* RTR needs the peer and its PSN: refused without them. */
	make_cmd(&cmd, WREN_ADMIN_MODIFY_QP, 0);
	m->qpn = wren_to_le32(a->qpn);
	m->attr_mask = wren_to_le32(WREN_QP_ATTR_STATE | WREN_QP_ATTR_DEST);
	m->state = WREN_QPS_RTR;
	m->dest_qpn = wren_to_le32(b->qpn);
	m->dest_ipv4 = b->h.cfg.ipv4;
	memcpy(m->dest_mac, b->h.cfg.mac, 6);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	m->attr_mask = wren_to_le32(WREN_QP_ATTR_STATE | WREN_QP_ATTR_DEST |
				    WREN_QP_ATTR_RQ_PSN | WREN_QP_ATTR_RNR);
	m->rq_psn = wren_to_le32(rq_psn);
	m->min_rnr_timer = min_rnr_timer;
	m->rnr_retry = rnr_retry;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
}

/* ... and on to RTS. */
static void rc_connect(struct adapter *a, const struct adapter *b,
		       uint32_t sq_psn, uint32_t rq_psn, uint8_t access,
		       uint8_t min_rnr_timer, uint8_t rnr_retry)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_modify_qp *m = (void *)cmd.payload;

	rc_connect_rtr(a, b, rq_psn, access, min_rnr_timer, rnr_retry);
	make_cmd(&cmd, WREN_ADMIN_MODIFY_QP, 0);
	m->qpn = wren_to_le32(a->qpn);
	m->attr_mask = wren_to_le32(WREN_QP_ATTR_STATE | WREN_QP_ATTR_SQ_PSN);
	m->state = WREN_QPS_RTS;
	m->sq_psn = wren_to_le32(sq_psn);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
}

/* Another RC QP on @a, on rings of its own; it becomes the current one. */
static void adapter_rc_qp2(struct adapter *a)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_qp *c = (void *)cmd.payload;

	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_RC);
	c->sq_base = wren_to_le64(SQ_RING2);
	c->rq_base = wren_to_le64(RQ_RING2);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	a->qpn = wren_le32(cqe.result[0]);
	a->sq_ring = SQ_RING2;
	a->rq_ring = RQ_RING2;
	a->sq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	a->rq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[2]);
	a->sq_pi = a->rq_pi = 0;
}

/* What names the current QP of an adapter, to switch between two. */
struct qp_view {
	uint32_t qpn;
	uint64_t sq_ring, rq_ring, sq_db, rq_db;
	uint16_t sq_pi, rq_pi;
};

static void qp_swap(struct adapter *a, struct qp_view *v)
{
	struct qp_view cur = {
		a->qpn, a->sq_ring, a->rq_ring, a->sq_db, a->rq_db, a->sq_pi,
		a->rq_pi,
	};

	a->qpn = v->qpn;
	a->sq_ring = v->sq_ring;
	a->rq_ring = v->rq_ring;
	a->sq_db = v->sq_db;
	a->rq_db = v->rq_db;
	a->sq_pi = v->sq_pi;
	a->rq_pi = v->rq_pi;
	*v = cur;
}

/*
 * A second RC pair beside the current one (on rings of its own, PSNs 5
 * and 6) with the RNR policy given; its views in @a2 and @b2, and the
 * first pair current again.
 */
static void rc_second_pair(struct adapter *a, struct adapter *b,
			   struct qp_view *a2, struct qp_view *b2,
			   uint8_t min_rnr_timer, uint8_t rnr_retry)
{
	qp_swap(a, a2);
	qp_swap(b, b2);
	adapter_rc_qp2(a);
	adapter_rc_qp2(b);
	rc_connect(a, b, 5, 6, 0, min_rnr_timer, rnr_retry);
	rc_connect(b, a, 6, 5, 0, min_rnr_timer, rnr_retry);
	qp_swap(a, a2);
	qp_swap(b, b2);
}

/* Like pump(), but each burst of frames from @a reaches @b backwards. */
static void pump_reversed(struct adapter *a, struct adapter *b)
{
	static uint8_t frames[64][16384], frame[16384];
	static size_t lens[64];
	int quiet = 0;

	while (quiet < 200) {
		bool moved = false;
		size_t len;
		int n = 0;

		while (n < 64 && (len = weng_tx_pull(a->h.e, frames[n],
						      sizeof(frames[n]))))
			lens[n++] = len;
		moved = n > 0;
		while (n-- > 0)
			weng_rx_frame(b->h.e, frames[n], lens[n]);
		while ((len = weng_tx_pull(b->h.e, frame, sizeof(frame)))) {
			weng_rx_frame(a->h.e, frame, len);
			moved = true;
		}
		fake_env_advance(&a->h.env, 1000);
		fake_env_advance(&b->h.env, 1000);
		quiet = moved ? 0 : quiet + 1;
	}
}

/*
 * Drain @h's async events (returning their slots); true if one of @type
 * with @info (and, for QP events, @data) was among them.
 */
static bool saw_event(struct harness *h, uint8_t type, uint32_t info,
		      uint64_t data)
{
	struct wren_aeq_entry ev;
	bool seen = false;

	while (aeq_next(h, &ev))
		seen |= ev.type == type && wren_le32(ev.info) == info &&
			(type != WREN_AEQ_QP_EVENT ||
			 wren_le64(ev.data) == data);
	reg_w(h, WREN_REG_AEQ_DB, h->aeq_head);
	return seen;
}

/* The state QUERY_QP gives for @qpn. */
static uint32_t qp_state(struct harness *h, uint32_t qpn)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_destroy_obj *d = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_QUERY_QP, 0);
	d->handle = wren_to_le32(qpn);
	CHECK_EQ(run(h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	return wren_le32(cqe.result[0]);
}

/*
 * RC between two adapters: messages whose packets arrive backwards still
 * execute and complete in stream order, across the PSN's wrap; WRITE then
 * READ reads what was written; a WRITE the QP does not allow fails with a
 * remote access error and moves both QPs to ERR, flushing the rest.
 */
static void test_rc_between_adapters(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const uint8_t rw = WREN_MR_ACCESS_REMOTE_WRITE |
			   WREN_MR_ACCESS_REMOTE_READ;
	uint32_t rkey, a_rkey;
	uint8_t *src, *dst;
	struct wren_cqe c;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			 WREN_MR_ACCESS_LOCAL_WRITE | rw);
	a_rkey = reg_rkey_ok(&a->h, a->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			   WREN_MR_ACCESS_LOCAL_WRITE | rw);
	/* a's QP lets b read, not write, whatever a's keys allow. */
	rc_connect(a, b, 0xfffffe, 77, WREN_MR_ACCESS_REMOTE_READ, 1, 7);
	rc_connect(b, a, 77, 0xfffffe, rw, 1, 7);
	src = fake_env_ptr(&a->h.env, DATA, 16 * 4096);
	dst = fake_env_ptr(&b->h.env, DATA, 16 * 4096);
	for (uint32_t i = 0; i < 16 * 4096; i++) {
		src[i] = i * 13 + 1;
		dst[i] = 0;
	}

	/*
	 * SEND, WRITE, SEND_IMM, WRITE_IMM (which consumes a receive too),
	 * READ of the WRITE's bytes.
	 */
	post_recv(b, 0, 5000);
	post_recv(b, 5000, 3000);
	post_recv(b, 9000, 1);
	post_send(a, 0, 100, 4000, a->key, 0x1234);
	post_rdma(a, WREN_WQE_RDMA_WRITE, 0, 10000, 20000, DATA_IOVA + 8000,
		  rkey);
	post_send(a, 0, 200, 3000, a->key, 0x5678);
	post_rdma(a, WREN_WQE_RDMA_WRITE_IMM, 0, 40000, 1000,
		  DATA_IOVA + 30000, rkey);
	post_rdma(a, WREN_WQE_RDMA_READ, 0, 50000, 15000, DATA_IOVA + 8000,
		  rkey);
	pump_reversed(a, b);
	for (uint32_t i = 0; i < 5; i++) {
		CHECK(poll_cq(a, &c));
		CHECK_EQ(c.status, WREN_CQE_SUCCESS);
		CHECK_EQ(wren_le16(c.wqe_index), i);
	}
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.opcode, WREN_CQE_OP_RECV);
	CHECK_EQ(wren_le16(c.wqe_index), 0x100);
	CHECK_EQ(wren_le32(c.byte_len), 4000);
	CHECK_EQ(wren_le32(c.src_qpn), a->qpn);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.opcode, WREN_CQE_OP_RECV);
	CHECK_EQ(wren_le16(c.wqe_index), 0x101);
	CHECK_EQ(be32toh(c.imm), 0x5678);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.opcode, WREN_CQE_OP_RECV_RDMA_IMM);
	CHECK_EQ(wren_le16(c.wqe_index), 0x102);
	CHECK_EQ(wren_le32(c.byte_len), 1000);
	CHECK_EQ(be32toh(c.imm), 0xfeed);
	CHECK(!poll_cq(b, &c));
	CHECK(!memcmp(dst, src + 100, 4000));
	CHECK(!memcmp(dst + 5000, src + 200, 3000));
	CHECK(!memcmp(dst + 8000, src + 10000, 20000));
	CHECK(!memcmp(dst + 30000, src + 40000, 1000));
	CHECK(!memcmp(src + 50000, src + 10000, 15000));

	/* a's QP allows no WRITE: b's fails, both QPs go to ERR. */
	post_recv(a, 0, 100);
	post_rdma(b, WREN_WQE_RDMA_WRITE, 0, 0, 10, DATA_IOVA, a_rkey);
	pump(a, b);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_REM_ACCESS_ERR);
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_ERR);
	/* The responder says why it failed. */
	CHECK(saw_event(&a->h, WREN_AEQ_QP_EVENT, a->qpn,
			WREN_QP_EV_ACCESS_ERR));
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.opcode, WREN_CQE_OP_RECV);
	CHECK_EQ(c.status, WREN_CQE_WR_FLUSH_ERR);	/* a failed too */
	CHECK_EQ(qp_state(&a->h, a->qpn), WREN_QPS_ERR);
	post_send(a, 0, 0, 10, a->key, 1);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_WR_FLUSH_ERR);
	CHECK(!poll_cq(a, &c));
	CHECK(!poll_cq(b, &c));

	/* RESET and the same attributes again: the pair works anew. */
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, 0),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&b->h, b->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, 0),
		 WREN_STATUS_SUCCESS);
	a->sq_pi = a->rq_pi = b->sq_pi = b->rq_pi = 0;
	rc_connect(a, b, 0xfffffe, 77, WREN_MR_ACCESS_REMOTE_READ, 1, 7);
	rc_connect(b, a, 77, 0xfffffe, rw, 1, 7);
	post_recv(b, 0, 100);
	post_send(a, 0, 300, 100, a->key, 9);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(be32toh(c.imm), 9);
	CHECK(!memcmp(dst, src + 300, 100));

	/* A receive entry with no SGE: b's QP fails, QP_FATAL says so. */
	saw_event(&b->h, 0, 0, 0);
	post_recv(b, 0, 100);
	((struct wren_rq_wqe *)fake_env_ptr(&b->h.env, b->rq_ring +
					    ((b->rq_pi - 1) & 31) * 64,
					    64))->num_sge = 0;
	post_send(a, 0, 300, 100, a->key, 10);
	pump(a, b);
	CHECK(saw_event(&b->h, WREN_AEQ_QP_EVENT, b->qpn, WREN_QP_EV_FATAL));
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_ERR);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_WR_FLUSH_ERR);
	adapter_free(a);
	adapter_free(b);
}

/* Post an atomic @opcode on @a's RC QP: the old value lands at @off. */
static void post_atomic(struct adapter *a, uint8_t opcode, uint32_t off,
			uint64_t raddr, uint32_t rkey, uint64_t compare_add,
			uint64_t swap)
{
	struct wren_sq_wqe w;

	memset(&w, 0, sizeof(w));
	w.opcode = opcode;
	w.flags = WREN_WQE_F_SIGNALED;
	w.num_sge = 1;
	w.remote_addr = wren_to_le64(raddr);
	w.rkey = wren_to_le32(rkey);
	w.atomic.sge.addr = wren_to_le64(DATA_IOVA + off);
	w.atomic.sge.length = wren_to_le32(8);
	w.atomic.sge.lkey = wren_to_le32(a->key);
	w.atomic.compare_add = wren_to_le64(compare_add);
	w.atomic.swap = wren_to_le64(swap);
	sq_push(a, &w);
}

static uint64_t mem64(struct adapter *a, uint32_t off)
{
	uint64_t v;

	memcpy(&v, fake_env_ptr(&a->h.env, DATA + off, 8), 8);
	return le64toh(v);
}

/*
 * RC atomics: compare-and-swap that holds and one that does not,
 * fetch-and-add, each returning the old value; after a WRITE in the same
 * stream, the atomic sees the written value; without the remote atomic
 * right, a remote access error.
 */
static void test_rc_atomics(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const uint8_t all = WREN_MR_ACCESS_REMOTE_WRITE |
			    WREN_MR_ACCESS_REMOTE_READ |
			    WREN_MR_ACCESS_REMOTE_ATOMIC;
	uint32_t rkey, ro_key;
	uint64_t v = htole64(100);
	struct wren_cqe c;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			 WREN_MR_ACCESS_LOCAL_WRITE | all);
	ro_key = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			   WREN_MR_ACCESS_REMOTE_READ);
	rc_connect(a, b, 10, 20, all, 1, 7);
	rc_connect(b, a, 20, 10, all, 1, 7);
	memcpy(fake_env_ptr(&b->h.env, DATA + 64, 8), &v, 8);

	post_atomic(a, WREN_WQE_ATOMIC_CMP_SWP, 0, DATA_IOVA + 64, rkey, 100,
		    7);
	post_atomic(a, WREN_WQE_ATOMIC_CMP_SWP, 8, DATA_IOVA + 64, rkey, 100,
		    9);
	post_atomic(a, WREN_WQE_ATOMIC_FETCH_ADD, 16, DATA_IOVA + 64, rkey, 5,
		    0);
	pump_reversed(a, b);
	for (int i = 0; i < 3; i++) {
		CHECK(poll_cq(a, &c));
		CHECK_EQ(c.status, WREN_CQE_SUCCESS);
		CHECK_EQ(c.opcode, i < 2 ? WREN_CQE_OP_ATOMIC_CMP_SWP :
					   WREN_CQE_OP_ATOMIC_FETCH_ADD);
		CHECK_EQ(wren_le32(c.byte_len), 8);
	}
	CHECK_EQ(mem64(a, 0), 100);	/* held: 100 became 7 */
	CHECK_EQ(mem64(a, 8), 7);	/* did not hold */
	CHECK_EQ(mem64(a, 16), 7);
	CHECK_EQ(mem64(b, 64), 12);

	/* A WRITE, then an atomic on what it wrote. */
	v = htole64(1000);
	memcpy(fake_env_ptr(&a->h.env, DATA + 100, 8), &v, 8);
	post_rdma(a, WREN_WQE_RDMA_WRITE, 0, 100, 8, DATA_IOVA + 64, rkey);
	post_atomic(a, WREN_WQE_ATOMIC_FETCH_ADD, 24, DATA_IOVA + 64, rkey, 1,
		    0);
	pump_reversed(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(mem64(a, 24), 1000);
	CHECK_EQ(mem64(b, 64), 1001);

	/* Misaligned: refused before it is sent. */
	post_atomic(a, WREN_WQE_ATOMIC_FETCH_ADD, 0, DATA_IOVA + 65, rkey, 1,
		    0);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_QP_OP_ERR);
	CHECK_EQ(mem64(b, 64), 1001);
	CHECK_EQ(qp_state(&a->h, a->qpn), WREN_QPS_ERR);

	/* A key without the atomic right. */
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, 0),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&b->h, b->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, 0),
		 WREN_STATUS_SUCCESS);
	a->sq_pi = a->rq_pi = b->sq_pi = b->rq_pi = 0;
	rc_connect(a, b, 10, 20, all, 1, 7);
	rc_connect(b, a, 20, 10, all, 1, 7);
	post_atomic(a, WREN_WQE_ATOMIC_FETCH_ADD, 0, DATA_IOVA + 64, ro_key, 1,
		    0);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_REM_ACCESS_ERR);
	CHECK_EQ(mem64(b, 64), 1001);
	adapter_free(a);
	adapter_free(b);
}

/*
 * Head-of-line blocking, measured: two RC QPs from a to b share one
 * context.  The first frame a sends (QP 1's message) is lost; QP 2's
 * message, posted right after, must complete long before QP 1's
 * retransmission does.  The simulated times go to the TAP log.
 */
static void test_rc_hol(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	static uint8_t frame[16384];
	uint64_t start, t1 = 0, t2 = 0;
	bool dropped = false, done1 = false, done2 = false;
	struct qp_view a2 = { 0 }, b2 = { 0 };
	struct wren_cqe c;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	rc_connect(a, b, 1, 2, 0, 1, 7);
	rc_connect(b, a, 2, 1, 0, 1, 7);
	rc_second_pair(a, b, &a2, &b2, 1, 7);
	qp_swap(b, &b2);
	post_recv(b, 0, 4096);		/* QP 2's receive */
	qp_swap(b, &b2);
	post_recv(b, 8192, 4096);	/* QP 1's */

	start = a->h.env.now_ns;
	post_send(a, 0, 0, 4000, a->key, 1);	/* QP 1 */
	qp_swap(a, &a2);
	post_send(a, 0, 0, 4000, a->key, 2);	/* QP 2 */
	qp_swap(a, &a2);
	/* 1 us steps for up to 100 ms of simulated time. */
	for (int step = 0; step < 100000 && !(done1 && done2); step++) {
		size_t len;

		while ((len = weng_tx_pull(a->h.e, frame, sizeof(frame)))) {
			if (!dropped) {
				dropped = true;	/* QP 1's first frame */
				continue;
			}
			weng_rx_frame(b->h.e, frame, len);
		}
		while ((len = weng_tx_pull(b->h.e, frame, sizeof(frame))))
			weng_rx_frame(a->h.e, frame, len);
		while (poll_cq(a, &c)) {
			CHECK_EQ(c.status, WREN_CQE_SUCCESS);
			if (wren_le32(c.qpn) == a->qpn) {
				t1 = a->h.env.now_ns - start;
				done1 = true;
			} else {
				t2 = a->h.env.now_ns - start;
				done2 = true;
			}
		}
		fake_env_advance(&a->h.env, 1000);
		fake_env_advance(&b->h.env, 1000);
	}
	CHECK(done1 && done2);
	printf("# HOL: QP 2 done after %llu ns, QP 1 (first frame lost) after %llu ns (simulated, 1 us steps)\n",
	       (unsigned long long)t2, (unsigned long long)t1);
	/* QP 2 waits for nothing of QP 1's: ten times sooner at least. */
	CHECK(t2 * 10 < t1);
	CHECK(poll_cq(b, &c));
	CHECK(poll_cq(b, &c));
	adapter_free(a);
	adapter_free(b);
}

/*
 * The peer goes away: an RC send that is never answered fails once the
 * transport gives up (REMOTE_UNREACHABLE, the verbs' RETRY_EXC_ERR), the
 * QP goes to ERR and what was posted after it is flushed.
 */
static void test_rc_peer_gone(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	static uint8_t frame[16384];
	struct wren_cqe c;
	int step;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	rc_connect(a, b, 1, 2, 0, 1, 7);
	rc_connect(b, a, 2, 1, 0, 1, 7);
	post_send(a, 0, 0, 100, a->key, 1);
	post_send(a, 0, 0, 100, a->key, 2);
	/* Nothing a sends arrives; 1 ms steps, for 60 s at most. */
	for (step = 0; step < 60000 && !poll_cq(a, &c); step++) {
		while (weng_tx_pull(a->h.e, frame, sizeof(frame)))
			;
		fake_env_advance(&a->h.env, 1000000);
	}
	CHECK(step < 60000);
	CHECK_EQ(c.status, WREN_CQE_REMOTE_UNREACHABLE);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_WR_FLUSH_ERR);
	CHECK_EQ(qp_state(&a->h, a->qpn), WREN_QPS_ERR);
	printf("# peer gone: the send failed after %d ms\n", step);
	adapter_free(a);
	adapter_free(b);
}

#define BIG_PBL		(PBL + 0x800)
#define BIG_IOVA	0x700000000000ULL
#define BIG_MSG		WREN_WIRE_MAX_MSG_LEN

/* A region of 4 GiB over @a's pattern window, in pages of 1 GiB. */
static uint32_t big_mr(struct adapter *a)
{
	for (uint32_t i = 0; i < 4; i++)
		pbl_set(&a->h, BIG_PBL, i, FAKE_BIG_BASE + ((uint64_t)i << 30));
	return reg_mr_pages(&a->h, a->pdn, BIG_IOVA, FAKE_BIG_SIZE, 4, 30,
			    BIG_PBL, WREN_MR_ACCESS_LOCAL_WRITE |
			    WREN_MR_ACCESS_REMOTE_READ);
}

/* A send entry of @opcode from the big region, its SGEs @len[0..n). */
static void post_big(struct adapter *a, uint8_t opcode, uint32_t key,
		     const uint32_t *len, unsigned int n, uint32_t rkey)
{
	struct wren_sq_wqe w;
	uint64_t at = BIG_IOVA;

	memset(&w, 0, sizeof(w));
	w.opcode = opcode;
	w.flags = WREN_WQE_F_SIGNALED;
	w.num_sge = n;
	for (unsigned int i = 0; i < n; i++) {
		w.sge[i].addr = wren_to_le64(at);
		w.sge[i].length = wren_to_le32(len[i]);
		w.sge[i].lkey = wren_to_le32(key);
		at += len[i];
	}
	if (rkey) {
		w.remote_addr = wren_to_le64(BIG_IOVA);
		w.rkey = wren_to_le32(rkey);
	}
	sq_push(a, &w);
}

/*
 * The largest message, 2 GiB, as a SEND gathered from two SGEs into one
 * receive, and as a READ; every byte checked where it lands (the pattern
 * window); one byte more is refused before anything is sent.
 */
static void test_rc_largest_message(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const uint32_t halves[] = { BIG_MSG / 2, BIG_MSG / 2 };
	const uint32_t whole = BIG_MSG, over[] = { BIG_MSG, 1 };
	struct wren_rq_wqe r;
	struct wren_cqe c;
	uint32_t akey, bkey;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	rc_connect(a, b, 1, 2, WREN_MR_ACCESS_REMOTE_READ, 1, 7);
	rc_connect(b, a, 2, 1, WREN_MR_ACCESS_REMOTE_READ, 1, 7);
	akey = big_mr(a);
	bkey = big_mr(b);

	memset(&r, 0, sizeof(r));
	r.num_sge = 1;
	r.sge[0].addr = wren_to_le64(BIG_IOVA);
	r.sge[0].length = wren_to_le32(BIG_MSG);
	r.sge[0].lkey = wren_to_le32(bkey);
	rq_push(b, &r);
	post_big(a, WREN_WQE_SEND, akey, halves, 2, 0);
	pump(a, b);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(wren_le32(c.byte_len), BIG_MSG);
	CHECK_EQ(b->h.env.big_written, BIG_MSG);
	CHECK_EQ(b->h.env.big_wrong, 0);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);

	post_big(a, WREN_WQE_RDMA_READ, akey, &whole, 1, b->h.rkey);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(wren_le32(c.byte_len), BIG_MSG);
	CHECK_EQ(a->h.env.big_written, BIG_MSG);
	CHECK_EQ(a->h.env.big_wrong, 0);

	post_big(a, WREN_WQE_SEND, akey, over, 2, 0);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_LEN_ERR);
	CHECK(!poll_cq(b, &c));
	adapter_free(a);
	adapter_free(b);
}

#define SRQ_RING	(FAKE_MEM_BASE + 0xf2000)
#define SRQ_RING_BIG	(FAKE_MEM_BASE + 0xf4000)	/* 64 entries */

static uint8_t srq_cmd(struct harness *h, uint8_t opcode, uint32_t srqn,
		       uint32_t limit, struct wren_admin_cqe *cqe)
{
	struct wren_admin_cmd cmd;
	struct wren_cmd_modify_srq *m = (void *)cmd.payload;

	make_cmd(&cmd, opcode, 0);
	m->srqn = wren_to_le32(srqn);
	if (opcode == WREN_ADMIN_MODIFY_SRQ) {
		m->attr_mask = wren_to_le32(WREN_SRQ_ATTR_LIMIT);
		m->limit = wren_to_le32(limit);
	}
	return run(h, &cmd, cqe);
}

/*
 * A shared receive queue under an RC QP, and the QP events: COMM_EST on
 * the first message, the SRQ limit firing once, SQ_DRAINED on SQD,
 * LAST_WQE_REACHED when an SRQ's QP goes to ERR; an SRQ in use cannot be
 * destroyed.
 */
static void test_rc_srq_events(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_srq *cs = (void *)cmd.payload;
	struct wren_cmd_create_qp *cq = (void *)cmd.payload;
	uint32_t srqn, srq_db;
	struct wren_cqe c;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	saw_event(&b->h, 0, 0, 0);

	make_cmd(&cmd, WREN_ADMIN_CREATE_SRQ, 0);
	cs->base = wren_to_le64(SRQ_RING);
	cs->pdn = wren_to_le32(b->pdn);
	cs->db_page = wren_to_le32(1);
	cs->log_depth = 5;
	CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	srqn = wren_le32(cqe.result[0]);
	srq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);

	/* b's QP takes its receives from the SRQ. */
	make_qp(&cmd, b->pdn, b->cqn, 1, WREN_QPT_RC);
	cq->rq_base = 0;
	cq->rq_log_depth = 0;
	cq->flags = WREN_QP_FLAG_SRQ;
	cq->srqn = wren_to_le32(srqn + 1);
	CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	cq->srqn = wren_to_le32(srqn);
	cq->sq_base = wren_to_le64(SQ_RING2);
	CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	b->qpn = wren_le32(cqe.result[0]);
	b->sq_ring = SQ_RING2;
	b->sq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	b->sq_pi = 0;
	rc_connect(a, b, 1, 2, 0, 1, 7);
	rc_connect_rtr(b, a, 1, 0, 1, 7);	/* RTR: it hears COMM_EST */

	/* Four receives, the limit at 3. */
	b->rq_ring = SRQ_RING;
	for (int i = 0; i < 4; i++) {
		b->rq_db = srq_db;
		post_recv(b, i * 1000, 1000);
	}
	CHECK_EQ(srq_cmd(&b->h, WREN_ADMIN_MODIFY_SRQ, srqn, 32, &cqe),
		 WREN_STATUS_BAD_PARAM);
	CHECK_EQ(srq_cmd(&b->h, WREN_ADMIN_MODIFY_SRQ, srqn, 3, &cqe),
		 WREN_STATUS_SUCCESS);
	post_send(a, 0, 100, 500, a->key, 1);
	pump(a, b);
	CHECK(saw_event(&b->h, WREN_AEQ_QP_EVENT, b->qpn,
			WREN_QP_EV_COMM_EST));
	post_send(a, 0, 100, 500, a->key, 2);
	pump(a, b);
	for (int i = 0; i < 2; i++) {
		CHECK(poll_cq(b, &c));
		CHECK_EQ(c.status, WREN_CQE_SUCCESS);
		CHECK_EQ(wren_le32(c.qpn), b->qpn);
		CHECK_EQ(wren_le16(c.wqe_index), 0x100 + i);
		CHECK_EQ(be32toh(c.imm), (uint32_t)i + 1);
	}
	/* Two left: below 3, the limit fired, once, and disarmed. */
	CHECK(saw_event(&b->h, WREN_AEQ_SRQ_LIMIT, srqn, 0));
	make_cmd(&cmd, WREN_ADMIN_QUERY_SRQ, 0);
	((struct wren_cmd_destroy_obj *)cmd.payload)->handle =
		wren_to_le32(srqn);
	CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), 0);
	CHECK_EQ(wren_le32(cqe.result[1]), 2);
	CHECK_EQ(srq_cmd(&b->h, WREN_ADMIN_DESTROY_SRQ, srqn, 0, &cqe),
		 WREN_STATUS_BAD_STATE);

	/* Grown to 64 entries: the two untaken move to the new ring's head. */
	make_cmd(&cmd, WREN_ADMIN_MODIFY_SRQ, 0);
	{
		struct wren_cmd_modify_srq *ms = (void *)cmd.payload;

		ms->srqn = wren_to_le32(srqn);
		ms->attr_mask = wren_to_le32(WREN_SRQ_ATTR_RING);
		ms->base = wren_to_le64(SRQ_RING_BIG);
		ms->log_depth = 4;	/* smaller: refused */
		CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
		ms->log_depth = 6;
		CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
		CHECK_EQ(wren_le32(cqe.result[0]), 2);
	}
	b->rq_ring = SRQ_RING_BIG;
	b->rq_pi = 2;
	post_recv(b, 5000, 1000);
	for (uint32_t i = 0; i < 3; i++)
		post_send(a, 0, 100, 500, a->key, 10 + i);
	pump(a, b);
	for (uint32_t i = 0; i < 3; i++) {
		/* 0x102 and 0x103 moved; the new one (slot 2) says 0x102. */
		static const uint16_t ids[] = { 0x102, 0x103, 0x102 };

		CHECK(poll_cq(b, &c));
		CHECK_EQ(c.status, WREN_CQE_SUCCESS);
		CHECK_EQ(be32toh(c.imm), 10 + i);
		CHECK_EQ(wren_le16(c.wqe_index), ids[i]);
		CHECK(!memcmp(fake_env_ptr(&b->h.env, DATA + (i < 2 ? 2 + i : 5) *
					   1000, 500),
			      fake_env_ptr(&a->h.env, DATA + 100, 500), 500));
	}
	for (uint32_t i = 0; i < 3; i++)
		CHECK(poll_cq(a, &c));

	/* SQD: nothing in flight, drained at once; then RTS again. */
	CHECK(poll_cq(a, &c));
	CHECK(poll_cq(a, &c));
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_SQD, 0),
		 WREN_STATUS_SUCCESS);
	CHECK(saw_event(&a->h, WREN_AEQ_QP_EVENT, a->qpn,
			WREN_QP_EV_SQ_DRAINED));
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTS, 0),
		 WREN_STATUS_SUCCESS);

	/* ERR: the SRQ's QP takes no more, and says so. */
	CHECK_EQ(modify(&b->h, b->qpn, WREN_QP_ATTR_STATE, WREN_QPS_ERR, 0),
		 WREN_STATUS_SUCCESS);
	CHECK(saw_event(&b->h, WREN_AEQ_QP_EVENT, b->qpn,
			WREN_QP_EV_LAST_WQE));
	CHECK(!poll_cq(b, &c));		/* the untaken stay the SRQ's */
	make_cmd(&cmd, WREN_ADMIN_DESTROY_QP, 0);
	((struct wren_cmd_destroy_obj *)cmd.payload)->handle =
		wren_to_le32(b->qpn);
	CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(srq_cmd(&b->h, WREN_ADMIN_DESTROY_SRQ, srqn, 0, &cqe),
		 WREN_STATUS_SUCCESS);
	adapter_free(a);
	adapter_free(b);
}

/*
 * RNR on RC: a SEND that finds no receive waits min_rnr_timer and goes
 * again, and meanwhile another QP to the same adapter goes on unhindered;
 * once retries are exhausted the send fails with RNR and its QP goes to
 * ERR.  Both QPs share one transport context.
 */
static void test_rc_rnr(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct qp_view a2 = { 0 }, b2 = { 0 };
	struct wren_tp_stats st;
	struct wren_cqe c;
	uint32_t rkey;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	/* QP 1: retries without end, 1.28 ms apart. */
	rc_connect(a, b, 1, 2, 0, 14, 7);
	rc_connect(b, a, 2, 1, WREN_MR_ACCESS_REMOTE_WRITE, 14, 7);
	/* QP 2: no retry. */
	rc_second_pair(a, b, &a2, &b2, 14, 0);

	/* QP 1 waits for a receive ... */
	post_send(a, 0, 0, 100, a->key, 1);
	pump(a, b);
	CHECK(!poll_cq(a, &c));
	/* ... while QP 2's message completes. */
	qp_swap(a, &a2);
	qp_swap(b, &b2);
	post_recv(b, 1000, 100);
	post_send(a, 0, 0, 100, a->key, 2);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(wren_le32(c.qpn), a->qpn);
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(be32toh(c.imm), 2);
	/* QP 2 has no retries: RNR at once, then ERR. */
	post_send(a, 0, 0, 100, a->key, 3);
	post_send(a, 0, 0, 100, a->key, 4);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_RNR);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_WR_FLUSH_ERR);
	CHECK_EQ(qp_state(&a->h, a->qpn), WREN_QPS_ERR);
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_RTS);
	qp_swap(a, &a2);
	qp_swap(b, &b2);

	/* QP 1's receive comes; its next retry finds it. */
	CHECK(!poll_cq(a, &c));
	post_recv(b, 0, 100);
	fake_env_advance(&a->h.env, 2000000);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(wren_le32(c.qpn), a->qpn);
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(be32toh(c.imm), 1);
	CHECK_EQ(qp_state(&a->h, a->qpn), WREN_QPS_RTS);

	/* One context carried both QPs' messages. */
	wren_tp_get_stats(a->h.e->tp, &st);
	CHECK_EQ(st.ctx_created, 1);

	/* A WRITE_IMM takes a receive as a SEND does: without one, it waits. */
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			 WREN_MR_ACCESS_LOCAL_WRITE | WREN_MR_ACCESS_REMOTE_WRITE);
	post_rdma(a, WREN_WQE_RDMA_WRITE_IMM, 0, 0, 10, DATA_IOVA + 3000, rkey);
	pump(a, b);
	CHECK(!poll_cq(a, &c));
	CHECK(!poll_cq(b, &c));
	post_recv(b, 0, 1);
	fake_env_advance(&a->h.env, 2000000);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.opcode, WREN_CQE_OP_RECV_RDMA_IMM);
	CHECK_EQ(wren_le16(c.wqe_index), 0x101);
	CHECK_EQ(wren_le32(c.byte_len), 10);

	adapter_free(a);
	adapter_free(b);
}

/*
 * RESIZE_CQ: the completions the driver has not consumed move to the new
 * ring's first slots, in order, with the new ring's phase; later ones go
 * there too; what the command refuses leaves the CQ on its old ring.
 */
static void test_cq_resize(void)
{
	const uint64_t new_ring = BUF_BASE + 0x4000;
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_cq *cc = (void *)cmd.payload;
	struct wren_cmd_resize_cq *rc = (void *)cmd.payload;
	struct weng_completion c = { .status = WREN_CQE_SUCCESS };
	const struct wren_cqe *ring;
	uint32_t cqn, db;

	h_init(&h);
	h_start(&h);
	h_enable(&h, 4, 3);
	make_cq(&cmd, 1);
	cc->log_depth = 3;
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	cqn = wren_le32(cqe.result[0]);
	db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	/* Six completions in a ring of eight; the driver consumes one. */
	for (uint16_t i = 0; i < 6; i++) {
		c.wqe_index = i;
		CHECK_EQ(weng_cq_complete(h.e, cqn, &c), 0);
	}
	weng_db_write(h.e, db, 1, 4);

	/*
	 * Five are waiting: a ring of four cannot take them, which is the
	 * CQ's state, not a malformed field; a ring of two is malformed.
	 */
	make_cmd(&cmd, WREN_ADMIN_RESIZE_CQ, 0);
	rc->base_addr = wren_to_le64(new_ring);
	rc->cqn = wren_to_le32(cqn);
	rc->log_depth = 2;
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_STATE);
	rc->log_depth = 1;
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 sizeof(struct wren_admin_cmd_hdr) +
		 offsetof(struct wren_cmd_resize_cq, log_depth) + 1);
	rc->log_depth = 3;
	rc->cqn = wren_to_le32(cqn + 1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_NOT_FOUND);
	rc->cqn = wren_to_le32(cqn);
	rc->base_addr = wren_to_le64(new_ring + 8);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	rc->base_addr = wren_to_le64(OUTSIDE);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_DMA_ERROR);
	rc->base_addr = wren_to_le64(new_ring);
	rc->rsvd[3] = wren_to_le32(1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	rc->rsvd[3] = 0;

	/* Into a ring of eight: five moved, in order, first lap's phase. */
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), 5);
	ring = fake_env_ptr(&h.env, new_ring, 8 * sizeof(*ring));
	for (unsigned int i = 0; i < 5; i++) {
		CHECK_EQ(wren_le16(ring[i].wqe_index), i + 1);
		CHECK_EQ(ring[i].flags & WREN_CQE_F_PHASE, 1);
	}
	CHECK_EQ(ring[5].flags & WREN_CQE_F_PHASE, 0);
	/* The next completion follows them; the consumer index restarts. */
	c.wqe_index = 9;
	CHECK_EQ(weng_cq_complete(h.e, cqn, &c), 0);
	CHECK_EQ(wren_le16(ring[5].wqe_index), 9);
	CHECK_EQ(ring[5].flags & WREN_CQE_F_PHASE, 1);
	weng_db_write(h.e, db, 6, 4);
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 0);
	weng_db_write(h.e, db, 7, 4);		/* past the producer */
	CHECK_EQ(h.env.warnings[WENG_WRN_DOORBELL], 1);
	h_fini(&h);
}

/*
 * A guest points memory the device writes and reads at the device's own
 * BARs: a region's page list naming BAR0 or the doorbell BAR, a command's
 * result buffer in BAR0.  The DMA must fail and be counted, and never
 * reach the registers: a received RESET in DEV_CTL would reset the engine
 * in the middle of its own work.
 */
static void test_dma_self(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_get_stats *gs = (void *)cmd.payload;
	uint32_t reset = WREN_DEV_CTL_RESET, pdn, key;
	uint64_t iova = 0x10000;
	uint8_t in[8];

	h_init(&h);
	h_start(&h);
	h.env.bars = h.e;
	h_enable(&h, 4, 3);
	pdn = alloc_pd_ok(&h);
	/* Page 0 is BAR0, page 1 the first page of the doorbell BAR. */
	pbl_set(&h, PBL, 0, FAKE_BAR0_BASE);
	pbl_set(&h, PBL, 1, FAKE_DB_BAR_BASE);
	key = reg_mr_ok(&h, pdn, iova, 2 * 4096, 2, PBL,
			WREN_MR_ACCESS_LOCAL_WRITE);

	/* Data written into DEV_CTL: refused, the device stays up. */
	CHECK_EQ(weng_mr_write(h.e, pdn, key, iova + WREN_REG_DEV_CTL, &reset,
			       sizeof(reset), WREN_MR_ACCESS_LOCAL_WRITE), -EIO);
	CHECK(h.env.mmio > 0);
	CHECK_EQ(h.e->stats.dma_self, 1);
	CHECK_EQ(h.env.warnings[WENG_WRN_DMA_SELF], 1);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS),
		 WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);

	/* Reading the doorbell BAR or BAR0: refused too. */
	CHECK_EQ(weng_mr_read(h.e, pdn, key, iova + 4096, in, sizeof(in), 0),
		 -EIO);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, iova + WREN_REG_DEV_STS, in, 4, 0),
		 -EIO);
	CHECK_EQ(h.e->stats.dma_self, 3);
	CHECK_EQ(h.env.warnings[WENG_WRN_DB_PAGE], 0);

	/* A command whose result goes to BAR0 fails as a DMA error. */
	make_cmd(&cmd, WREN_ADMIN_GET_STATS, 0);
	gs->buf_addr = wren_to_le64(FAKE_BAR0_BASE);
	gs->buf_len = wren_to_le32(8 * WREN_STAT_COUNT);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_DMA_ERROR);
	CHECK_EQ(h.e->stats.dma_self, 4);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS),
		 WREN_DEV_STS_READY | WREN_DEV_STS_ENABLED);
	/* ... and the admin queue goes on. */
	alloc_pd_ok(&h);

	/* The host's own accesses to the registers are not affected. */
	reg_w(&h, WREN_REG_DEV_CTL, WREN_DEV_CTL_RESET);
	CHECK_EQ(reg_r(&h, WREN_REG_DEV_STS), WREN_DEV_STS_READY);
	h_fini(&h);
}

/* ------------------------------------------------------------------ */
/* The Ethernet function                                                */
/* ------------------------------------------------------------------ */

/* A kernel PD; the status, and its number in *@pdn. */
static uint8_t alloc_pd_flags(struct harness *h, uint32_t flags,
			      uint32_t *pdn)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	uint8_t status;

	make_cmd(&cmd, WREN_ADMIN_ALLOC_PD, 0);
	((struct wren_cmd_alloc_pd *)cmd.payload)->flags = wren_to_le32(flags);
	status = run(h, &cmd, &cqe);
	*pdn = wren_le32(cqe.result[0]);
	return status;
}

/* An adapter whose one QP is its Ethernet QP, in RTS, on a kernel PD. */
/*
 * @a with a kernel PD, whose key is the bus-address one, a CQ and a QP of
 * @type with @flags on them, in RESET.
 */
static void kernel_adapter(struct adapter *a, int n, uint8_t type,
			   uint8_t flags)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	h_init(&a->h);
	a->h.cfg.ipv4 = htobe32(0xc6120001 + n);
	a->h.cfg.mac[5] = n;
	h_start(&a->h);
	h_enable(&a->h, 4, 3);
	CHECK_EQ(alloc_pd_flags(&a->h, WREN_PD_FLAG_KERNEL, &a->pdn),
		 WREN_STATUS_SUCCESS);
	a->key = WREN_LKEY_DMA;
	make_cq(&cmd, 1);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	a->cqn = wren_le32(cqe.result[0]);
	a->cq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	make_qp(&cmd, a->pdn, a->cqn, 1, type);
	((struct wren_cmd_create_qp *)cmd.payload)->flags = flags;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	a->qpn = wren_le32(cqe.result[0]);
	a->sq_ring = SQ_RING;
	a->rq_ring = RQ_RING;
	a->sq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	a->rq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[2]);
}

static void eth_up(struct adapter *a, int n)
{
	kernel_adapter(a, n, WREN_QPT_RAW_ETH, 0);
	/* No Q_Key: a frame names its own destination. */
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_QKEY,
			WREN_QPS_INIT, 1), WREN_STATUS_BAD_PARAM);
	for (uint8_t st = WREN_QPS_INIT; st <= WREN_QPS_RTS; st++)
		CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, st, 0),
			 WREN_STATUS_SUCCESS);
}

/* Receive or send @len bytes at DATA + @off, named by bus address. */
static void eth_post(struct adapter *a, bool send, uint32_t off,
		     uint32_t len)
{
	struct wren_sq_wqe sw;
	struct wren_rq_wqe rw;
	struct wren_sge *sge = send ? sw.sge : rw.sge;

	memset(&sw, 0, sizeof(sw));
	memset(&rw, 0, sizeof(rw));
	sw.opcode = WREN_WQE_SEND;
	sw.flags = WREN_WQE_F_SIGNALED;
	sw.num_sge = 1;
	rw.num_sge = 1;
	rw.req_id = wren_to_le16(0x200 + a->rq_pi);
	sge->addr = wren_to_le64(DATA + off);
	sge->length = wren_to_le32(len);
	sge->lkey = wren_to_le32(WREN_LKEY_DMA);
	if (send)
		sq_push(a, &sw);
	else
		rq_push(a, &rw);
}

/* A frame of @len bytes at DATA + @off of @a: to @dst, IPv4 ethertype. */
static uint8_t *eth_frame(struct adapter *a, uint32_t off, const uint8_t *dst,
			  uint32_t len)
{
	uint8_t *f = fake_env_ptr(&a->h.env, DATA + off, len);

	memcpy(f, dst, 6);
	memcpy(f + 6, a->h.cfg.mac, 6);
	f[12] = 0x08;
	f[13] = 0x06;		/* ARP: not the transport's */
	for (uint32_t i = 14; i < len; i++)
		f[i] = i * 7 + 3;
	return f;
}

static uint64_t eth_stat(struct adapter *a, enum wren_dev_stat which)
{
	uint64_t v[WREN_STAT_COUNT];

	CHECK_EQ(get_stats(a, sizeof(v), v), WREN_STATUS_SUCCESS);
	return v[which];
}

static void test_eth(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct adapter *u = calloc(1, sizeof(*u));
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t other[6] = { 0x02, 0, 0x5e, 0x10, 0x20, 0x99 };
	uint8_t hdr[64] = { 0 }, *f;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cqe c;
	uint32_t pdn;

	eth_up(a, 0);
	eth_up(b, 1);

	/* Only known PD flags; one Ethernet QP, and only on a kernel PD. */
	CHECK_EQ(alloc_pd_flags(&a->h, 2, &pdn), WREN_STATUS_BAD_PARAM);
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_RAW_ETH);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_NO_RESOURCES);
	pdn = alloc_pd_ok(&a->h);
	make_qp(&cmd, pdn, a->cqn, 1, WREN_QPT_RAW_ETH);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 sizeof(struct wren_admin_cmd_hdr) +
		 offsetof(struct wren_cmd_create_qp, pdn) + 1);

	/* A frame to b's MAC, byte for byte, with both completions. */
	f = eth_frame(a, 0, b->h.cfg.mac, 100);
	eth_post(b, false, 4096, 2048);
	eth_post(a, true, 0, 100);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(c.opcode, WREN_CQE_OP_SEND);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(c.opcode, WREN_CQE_OP_RECV);
	CHECK_EQ(wren_le32(c.byte_len), 100);
	CHECK_EQ(wren_le16(c.wqe_index), 0x200);
	CHECK_EQ(wren_le32(c.qpn), b->qpn);
	CHECK(!memcmp(fake_env_ptr(&b->h.env, DATA + 4096, 100), f, 100));
	CHECK_EQ(eth_stat(a, WREN_STAT_eth_tx_frames), 1);
	CHECK_EQ(eth_stat(a, WREN_STAT_eth_tx_bytes), 100);
	CHECK_EQ(eth_stat(b, WREN_STAT_eth_rx_frames), 1);

	/* Another adapter's unicast is filtered; broadcast is taken. */
	eth_frame(a, 0, other, 60);
	eth_post(a, true, 0, 60);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(!poll_cq(b, &c));
	CHECK_EQ(eth_stat(b, WREN_STAT_eth_rx_filtered), 1);
	eth_frame(a, 0, bcast, 60);
	eth_post(b, false, 4096, 2048);
	eth_post(a, true, 0, 60);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(poll_cq(b, &c));
	CHECK_EQ(wren_le32(c.byte_len), 60);

	/* No receive: dropped and counted.  Too short a receive: its error. */
	eth_frame(a, 0, b->h.cfg.mac, 100);
	eth_post(a, true, 0, 100);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(!poll_cq(b, &c));
	CHECK_EQ(eth_stat(b, WREN_STAT_eth_rx_no_buf), 1);
	eth_post(b, false, 4096, 64);
	eth_post(a, true, 0, 100);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_LEN_ERR);
	CHECK_EQ(eth_stat(b, WREN_STAT_eth_rx_too_long), 1);

	/* The transport's packets are not the Ethernet function's. */
	memcpy(hdr, b->h.cfg.mac, 6);
	hdr[12] = 0x08;
	hdr[14] = 0x45;
	hdr[16] = 0;
	hdr[17] = 50;		/* IPv4 total length */
	hdr[23] = WREN_WIRE_IPPROTO_UDP;
	hdr[36] = WREN_WIRE_UDP_PORT >> 8;
	hdr[37] = WREN_WIRE_UDP_PORT & 0xff;
	CHECK(!weng_eth_takes(b->h.e, hdr, sizeof(hdr)));
	hdr[37] ^= 1;
	CHECK(weng_eth_takes(b->h.e, hdr, sizeof(hdr)));

	/* A frame shorter than its Ethernet header fails the QP. */
	eth_post(a, true, 0, 10);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_LEN_ERR);
	CHECK_EQ(qp_state(&a->h, a->qpn), WREN_QPS_ERR);
	CHECK(!weng_eth_takes(a->h.e, hdr, sizeof(hdr)));

	/* The bus-address key is a kernel PD's only. */
	adapter_up(u, 2, WREN_QPT_UD);
	adapter_ah(u, b);
	post_send(u, 5, 0, 16, WREN_LKEY_DMA, 0);
	CHECK(poll_cq(u, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_PROT_ERR);

	/* Destroyed, the Ethernet QP leaves room for another. */
	make_handle(&cmd, WREN_ADMIN_DESTROY_QP, 0, a->qpn);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_RAW_ETH);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);

	adapter_free(a);
	adapter_free(b);
	adapter_free(u);
}

/* @a with a kernel PD, a CQ and the GSI QP in RTS. */
static void gsi_up(struct adapter *a, int n)
{
	kernel_adapter(a, n, WREN_QPT_UD, WREN_QP_FLAG_GSI);
	CHECK_EQ(a->qpn, WREN_QPN_GSI);
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE | WREN_QP_ATTR_QKEY,
			WREN_QPS_INIT, 0x80010000), WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTR, 0),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RTS, 0),
		 WREN_STATUS_SUCCESS);
}

/* A datagram of @len bytes at DATA + @off to @to's QP @qpn, by bus address. */
static void av_send(struct adapter *a, const struct adapter *to, uint32_t qpn,
		    uint32_t off, uint32_t len)
{
	struct wren_sq_wqe w;

	memset(&w, 0, sizeof(w));
	w.opcode = WREN_WQE_SEND;
	w.flags = WREN_WQE_F_SIGNALED | WREN_WQE_F_AV;
	w.num_sge = 1;
	w.remote_qpn = wren_to_le32(qpn);
	w.remote_qkey = wren_to_le32(0x80010000);
	w.av.ipv4 = to->h.cfg.ipv4;
	memcpy(w.av.mac, to->h.cfg.mac, 6);
	w.sge[0].addr = wren_to_le64(DATA + off);
	w.sge[0].length = wren_to_le32(len);
	w.sge[0].lkey = wren_to_le32(WREN_LKEY_DMA);
	sq_push(a, &w);
}

/*
 * The GSI QP: number 1 on every adapter, the kernel's only, one each;
 * datagrams between two of them carry their destination in the entry.
 */
static void test_gsi(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_sq_wqe w;
	struct wren_cqe c;
	uint8_t *src;
	uint32_t pdn;

	gsi_up(a, 0);
	gsi_up(b, 1);

	/* One per adapter; a kernel PD's; a UD QP's flag only. */
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_UD);
	((struct wren_cmd_create_qp *)cmd.payload)->flags = WREN_QP_FLAG_GSI;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_NO_RESOURCES);
	pdn = alloc_pd_ok(&a->h);
	make_qp(&cmd, pdn, a->cqn, 1, WREN_QPT_UD);
	((struct wren_cmd_create_qp *)cmd.payload)->flags = WREN_QP_FLAG_GSI;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_RC);
	((struct wren_cmd_create_qp *)cmd.payload)->flags = WREN_QP_FLAG_GSI;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);

	/* QP 1 to QP 1, the GRH before the payload, byte for byte. */
	src = fake_env_ptr(&a->h.env, DATA, 256);
	for (uint32_t i = 0; i < 256; i++)
		src[i] = i * 5 + 1;
	eth_post(b, false, 4096, 40 + 256);
	av_send(a, b, WREN_QPN_GSI, 0, 256);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(wren_le32(c.qpn), WREN_QPN_GSI);
	CHECK_EQ(wren_le32(c.src_qpn), WREN_QPN_GSI);
	CHECK_EQ(wren_le32(c.byte_len), WREN_GRH_LEN + 256);
	CHECK(c.flags & WREN_CQE_F_GRH);
	CHECK(c.src_ipv4 == a->h.cfg.ipv4);
	CHECK(!memcmp(fake_env_ptr(&b->h.env, DATA + 4096 + WREN_GRH_LEN, 256),
		      src, 256));

	/* Its slot's own number reaches nothing. */
	av_send(a, b, WREN_QPN_FIRST, 0, 16);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(!poll_cq(b, &c));
	make_handle(&cmd, WREN_ADMIN_QUERY_QP, 0, WREN_QPN_FIRST);
	CHECK_EQ(run(&b->h, &cmd, &cqe), WREN_STATUS_NOT_FOUND);

	/* An entry's own destination: with no AH, to a unicast host. */
	memset(&w, 0, sizeof(w));
	w.opcode = WREN_WQE_SEND;
	w.flags = WREN_WQE_F_SIGNALED | WREN_WQE_F_AV;
	w.remote_qpn = wren_to_le32(WREN_QPN_GSI);
	w.av.ipv4 = b->h.cfg.ipv4;
	w.av.mac[0] = 1;
	sq_push(a, &w);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_LOC_QP_OP_ERR);
	CHECK_EQ(qp_state(&a->h, a->qpn), WREN_QPS_ERR);

	/* In ERR a receive posted is flushed at once, as a drain needs. */
	eth_post(a, false, 4096, 64);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.opcode, WREN_CQE_OP_RECV);
	CHECK_EQ(c.status, WREN_CQE_WR_FLUSH_ERR);
	CHECK_EQ(wren_le16(c.wqe_index), 0x200);

	/* Destroyed by its number, it leaves room for another. */
	make_handle(&cmd, WREN_ADMIN_DESTROY_QP, 0, WREN_QPN_GSI);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_UD);
	((struct wren_cmd_create_qp *)cmd.payload)->flags = WREN_QP_FLAG_GSI;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), WREN_QPN_GSI);

	adapter_free(a);
	adapter_free(b);
}

/* ------------------------------------------------------------------ */
/* Fast registration                                                    */
/* ------------------------------------------------------------------ */

#define FAST_PBL	(FAKE_MEM_BASE + 0x88000)
#define FAST_IOVA	0x600000000800ULL	/* half into its first page */

/* REG_MR of a fast-register region: @npages of room, list at FAST_PBL. */
static uint8_t reg_fast(struct harness *h, uint32_t pdn, uint32_t npages,
			uint8_t tag, struct wren_admin_cqe *cqe)
{
	struct wren_admin_cmd cmd;
	struct wren_cmd_reg_mr *mc = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_REG_MR, 0);
	mc->pbl_addr = wren_to_le64(FAST_PBL);
	mc->pdn = wren_to_le32(pdn);
	mc->npages = wren_to_le32(npages);
	mc->key_tag = tag;
	mc->flags = WREN_MR_FLAG_FAST;
	return run(h, &cmd, cqe);
}

/*
 * Admin commands and fast-register regions: unknown flags, values a fast
 * region must not have, too many pages, REREG_MR refused; it starts
 * invalid; DEREG_MR frees it and its PD's reference.
 */
static void test_fast_reg_admin(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_reg_mr *mc = (void *)cmd.payload;
	struct wren_cmd_rereg_mr *rc = (void *)cmd.payload;
	uint32_t pdn, key, big;
	uint8_t in[4];

	h_init(&h);
	h_start(&h);
	h_enable(&h, 4, 3);
	pdn = alloc_pd_ok(&h);
	pbl_set(&h, FAST_PBL, 0, PAGE_A);

#define REFUSED(field) do {						\
		CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);	\
		CHECK_EQ(wren_le32(cqe.ext_status),			\
			 8 + offsetof(struct wren_cmd_reg_mr, field) + 1); \
	} while (0)
	make_cmd(&cmd, WREN_ADMIN_REG_MR, 0);
	mc->pbl_addr = wren_to_le64(FAST_PBL);
	mc->pdn = wren_to_le32(pdn);
	mc->npages = wren_to_le32(4);
	mc->flags = WREN_MR_FLAG_FAST | 2;	/* an unknown flag */
	REFUSED(flags);
	mc->flags = WREN_MR_FLAG_FAST;
	mc->iova = wren_to_le64(0x1000);	/* none until registered */
	REFUSED(iova);
	mc->iova = 0;
	mc->length = wren_to_le64(4096);
	REFUSED(length);
	mc->length = 0;
	mc->page_shift = 12;
	REFUSED(page_shift);
	mc->page_shift = 0;
	mc->access = WREN_MR_ACCESS_LOCAL_WRITE;
	REFUSED(access);
	mc->access = 0;
	mc->npages = wren_to_le32(WREN_PBL_PER_PAGE + 1);	/* one level */
	REFUSED(npages);
	mc->npages = 0;
	REFUSED(npages);
	mc->npages = wren_to_le32(WREN_PBL_PER_PAGE);
	mc->pbl_addr = wren_to_le64(FAST_PBL + 4);
	REFUSED(pbl_addr);
	mc->pbl_addr = wren_to_le64(FAST_PBL);
	mc->pdn = wren_to_le32(pdn + 1);
	REFUSED(pdn);
#undef REFUSED
	/* The largest, then a small one: both taken, both invalid. */
	CHECK_EQ(reg_fast(&h, pdn, WREN_PBL_PER_PAGE, 0x21, &cqe),
		 WREN_STATUS_SUCCESS);
	big = wren_le32(cqe.result[0]);
	CHECK_EQ(big & 0xff, 0x21);
	CHECK_EQ(reg_fast(&h, pdn, 1, 0x22, &cqe), WREN_STATUS_SUCCESS);
	key = wren_le32(cqe.result[0]);
	CHECK_EQ(key & 0xff, 0x22);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, 0, in, 4, 0), -EACCES);

	/* REREG_MR is not for fast-register regions. */
	make_cmd(&cmd, WREN_ADMIN_REREG_MR, 0);
	rc->iova = wren_to_le64(0x1000);
	rc->length = wren_to_le64(4096);
	rc->pbl_addr = wren_to_le64(FAST_PBL);
	rc->pdn = wren_to_le32(pdn);
	rc->npages = wren_to_le32(1);
	rc->page_shift = 12;
	rc->key = wren_to_le32(key);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 8 + offsetof(struct wren_cmd_rereg_mr, key) + 1);
	CHECK_EQ(weng_mr_read(h.e, pdn, key, 0x1000, in, 4, 0), -EACCES);

	/* DEREG_MR as for any region; then the PD is free. */
	make_handle(&cmd, WREN_ADMIN_DEREG_MR, 0, key);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_NOT_FOUND);
	make_handle(&cmd, WREN_ADMIN_DEREG_MR, 0, big);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	make_handle(&cmd, WREN_ADMIN_DEALLOC_PD, 0, pdn);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	h_fini(&h);
}

/* REG_MR entry: region of @key, @len bytes at @iova in pages of 4 KiB. */
static void post_fast_reg(struct adapter *a, uint32_t key, uint64_t iova,
			  uint64_t len, uint32_t npages, uint8_t access)
{
	struct wren_sq_wqe w;

	memset(&w, 0, sizeof(w));
	w.opcode = WREN_WQE_REG_MR;
	w.flags = WREN_WQE_F_SIGNALED;
	w.remote_addr = wren_to_le64(iova);
	w.rkey = wren_to_le32(key);
	w.fast_reg.length = wren_to_le64(len);
	w.fast_reg.npages = wren_to_le32(npages);
	w.fast_reg.page_shift = 12;
	w.fast_reg.access = access;
	sq_push(a, &w);
}

/* LOCAL_INV of @key; or a SEND_INV of @key with @len bytes from offset 0. */
static void post_inv(struct adapter *a, uint8_t opcode, uint32_t key,
		     uint32_t len)
{
	struct wren_sq_wqe w;

	memset(&w, 0, sizeof(w));
	w.opcode = opcode;
	w.flags = WREN_WQE_F_SIGNALED;
	w.rkey = wren_to_le32(key);
	if (opcode == WREN_WQE_SEND_INV) {
		w.num_sge = 1;
		w.sge[0].addr = wren_to_le64(DATA_IOVA);
		w.sge[0].length = wren_to_le32(len);
		w.sge[0].lkey = wren_to_le32(a->key);
	}
	sq_push(a, &w);
}

/* Both QPs of the pair through RESET and connected again; CQs drained. */
static void rc_reconnect(struct adapter *a, struct adapter *b, uint8_t rw)
{
	struct wren_cqe c;

	CHECK_EQ(modify(&a->h, a->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, 0),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(modify(&b->h, b->qpn, WREN_QP_ATTR_STATE, WREN_QPS_RESET, 0),
		 WREN_STATUS_SUCCESS);
	a->sq_pi = a->rq_pi = b->sq_pi = b->rq_pi = 0;
	rc_connect(a, b, 100, 200, rw, 1, 7);
	rc_connect(b, a, 200, 100, rw, 1, 7);
	while (poll_cq(a, &c))
		;
	while (poll_cq(b, &c))
		;
	saw_event(&a->h, 0, 0, 0);
	saw_event(&b->h, 0, 0, 0);
}

/* The next completion of @a: @opcode, @status, send slot or req_id @index. */
static void expect_cqe_at(int line, struct adapter *a, uint8_t opcode,
			  uint8_t status, uint16_t index, struct wren_cqe *c)
{
	int before = tap_failed_checks;

	CHECK(poll_cq(a, c));
	CHECK_EQ(c->opcode, opcode);
	CHECK_EQ(c->status, status);
	CHECK_EQ(wren_le16(c->wqe_index), index);
	if (tap_failed_checks != before)
		printf("#   ... the completion expected at line %d\n", line);
}
#define expect_cqe(...)	expect_cqe_at(__LINE__, __VA_ARGS__)

/*
 * Fast registration on RC: an invalid region refuses a peer's WRITE; a
 * REG_MR entry makes it valid under its new tag, over the pages its list
 * names, and the old key stays refused; LOCAL_INV takes effect as the
 * device takes it yet completes behind the WRITE before it; a peer's
 * SEND_INV invalidates it and says so in the receive; the failures:
 * REG_MR of a valid region, a value too many, a bad key, a SEND_INV of a
 * key the receiver does not have, a REG_MR on a UD QP.
 */
static void test_fast_reg_rc(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	const uint8_t rw = WREN_MR_ACCESS_REMOTE_WRITE |
			   WREN_MR_ACCESS_REMOTE_READ;
	const uint8_t lrw = WREN_MR_ACCESS_LOCAL_WRITE | rw;
	uint32_t lkey, key, key2, key3, a_rkey;
	struct wren_admin_cqe acqe;
	uint8_t *src, *pg0, *pg1, in[8];
	struct wren_sq_wqe w;
	struct wren_cqe c;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	a_rkey = reg_rkey_ok(&a->h, a->pdn, DATA_IOVA, 16 * 4096, 16, PBL, lrw);
	rc_connect(a, b, 100, 200, rw, 1, 7);
	rc_connect(b, a, 200, 100, rw, 1, 7);
	src = fake_env_ptr(&a->h.env, DATA, 16 * 4096);
	for (uint32_t i = 0; i < 16 * 4096; i++)
		src[i] = i * 7 + 3;
	/* b's region: page 0 is PAGE_B, page 1 PAGE_A, out of order. */
	pbl_set(&b->h, FAST_PBL, 0, PAGE_B);
	pbl_set(&b->h, FAST_PBL, 1, PAGE_A);
	pg0 = fake_env_ptr(&b->h.env, PAGE_B, 4096);
	pg1 = fake_env_ptr(&b->h.env, PAGE_A, 4096);
	CHECK_EQ(reg_fast(&b->h, b->pdn, 4, 0x11, &acqe), WREN_STATUS_SUCCESS);
	/* Peers get the rkey (key); the local accesses name the lkey. */
	lkey = wren_le32(acqe.result[0]);
	key = wren_le32(acqe.result[1]);
	CHECK_EQ(key & 0xff, 0x11);
	CHECK_EQ(lkey & 0xff, 0x11);
	CHECK(lkey != key);

	/* Invalid from the start: a WRITE through it is refused. */
	post_rdma(a, WREN_WQE_RDMA_WRITE, 0, 0, 16, FAST_IOVA, key);
	pump(a, b);
	expect_cqe(a, WREN_CQE_OP_RDMA_WRITE, WREN_CQE_REM_ACCESS_ERR, 0, &c);
	CHECK(saw_event(&b->h, WREN_AEQ_QP_EVENT, b->qpn,
			WREN_QP_EV_ACCESS_ERR));
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_ERR);
	CHECK_EQ(pg0[0x800], 0);
	rc_reconnect(a, b, rw);

	/* REG_MR: 4 KiB from half into page 0, so over two pages. */
	key2 = (key & ~0xffU) | 0x12;
	post_fast_reg(b, key2, FAST_IOVA, 4096, 2, lrw);
	/* Both keys took the new tag. */
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, (lkey & ~0xffU) | 0x12,
			      FAST_IOVA, in, 8, 0), 0);
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, key2, FAST_IOVA, in, 8,
			      WREN_MR_ACCESS_REMOTE_READ), 0);
	pump(a, b);
	expect_cqe(b, WREN_CQE_OP_REG_MR, WREN_CQE_SUCCESS, 0, &c);
	CHECK_EQ(c.byte_len, 0);
	CHECK(!poll_cq(b, &c));
	/* A WRITE lands in the listed pages; a READ brings it back. */
	post_rdma(a, WREN_WQE_RDMA_WRITE, 0, 1000, 4096, FAST_IOVA, key2);
	post_rdma(a, WREN_WQE_RDMA_READ, 0, 20000, 4096, FAST_IOVA, key2);
	pump(a, b);
	expect_cqe(a, WREN_CQE_OP_RDMA_WRITE, WREN_CQE_SUCCESS, 0, &c);
	expect_cqe(a, WREN_CQE_OP_RDMA_READ, WREN_CQE_SUCCESS, 1, &c);
	CHECK(!memcmp(pg0 + 0x800, src + 1000, 2048));
	CHECK(!memcmp(pg1, src + 3048, 2048));
	CHECK(!memcmp(src + 20000, src + 1000, 4096));
	/* The old tag's key is refused. */
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, lkey, FAST_IOVA, in, 8, 0),
		 -EACCES);
	/* Beyond the registered length too. */
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, (lkey & ~0xffU) | 0x12,
			      FAST_IOVA + 4090, in, 8, 0), -EACCES);

	/*
	 * LOCAL_INV behind a WRITE still in flight: the region is invalid
	 * at once, the completions come in queue order.
	 */
	post_rdma(b, WREN_WQE_RDMA_WRITE, 0, 0, 64, DATA_IOVA, a_rkey);
	post_inv(b, WREN_WQE_LOCAL_INV, key2, 0);
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, (lkey & ~0xffU) | 0x12,
			      FAST_IOVA, in, 8, 0), -EACCES);
	CHECK(!poll_cq(b, &c));
	pump(a, b);
	expect_cqe(b, WREN_CQE_OP_RDMA_WRITE, WREN_CQE_SUCCESS, 1, &c);
	expect_cqe(b, WREN_CQE_OP_LOCAL_INV, WREN_CQE_SUCCESS, 2, &c);
	/* Invalid already: fine. */
	post_inv(b, WREN_WQE_LOCAL_INV, key2, 0);
	pump(a, b);
	expect_cqe(b, WREN_CQE_OP_LOCAL_INV, WREN_CQE_SUCCESS, 3, &c);

	/* Registered again, tag 0x13, read only: a's SEND_INV ends it. */
	key3 = (key & ~0xffU) | 0x13;
	post_fast_reg(b, key3, FAST_IOVA, 4096, 2, WREN_MR_ACCESS_REMOTE_READ);
	post_recv(b, 8000, 500);
	post_inv(a, WREN_WQE_SEND_INV, key3, 300);
	pump(a, b);
	expect_cqe(b, WREN_CQE_OP_REG_MR, WREN_CQE_SUCCESS, 4, &c);
	expect_cqe(a, WREN_CQE_OP_SEND, WREN_CQE_SUCCESS, 2, &c);
	expect_cqe(b, WREN_CQE_OP_RECV, WREN_CQE_SUCCESS, 0x100, &c);
	CHECK(c.flags & WREN_CQE_F_INV);
	CHECK(!(c.flags & WREN_CQE_F_IMM));
	CHECK_EQ(wren_le32(c.inv_key), key3);
	CHECK_EQ(wren_le32(c.byte_len), 300);
	CHECK(!memcmp(fake_env_ptr(&b->h.env, DATA + 8000, 300), src, 300));
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, (lkey & ~0xffU) | 0x13,
			      FAST_IOVA, in, 8, 0), -EACCES);
	/* Invalid: a READ through it is refused. */
	post_rdma(a, WREN_WQE_RDMA_READ, 0, 0, 16, FAST_IOVA, key3);
	pump(a, b);
	expect_cqe(a, WREN_CQE_OP_RDMA_READ, WREN_CQE_REM_ACCESS_ERR, 3, &c);
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_ERR);
	rc_reconnect(a, b, rw);

	/* A SEND_INV of a key b's PD has no region of: as a bad WRITE. */
	post_recv(b, 8000, 500);
	post_inv(a, WREN_WQE_SEND_INV, b->key, 300);
	pump(a, b);
	expect_cqe(a, WREN_CQE_OP_SEND, WREN_CQE_REM_ACCESS_ERR, 0, &c);
	CHECK(saw_event(&b->h, WREN_AEQ_QP_EVENT, b->qpn,
			WREN_QP_EV_ACCESS_ERR));
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_ERR);
	expect_cqe(b, WREN_CQE_OP_RECV, WREN_CQE_WR_FLUSH_ERR, 0x100, &c);
	CHECK(!(c.flags & WREN_CQE_F_INV));
	rc_reconnect(a, b, rw);

	/* REG_MR of a valid region: LOC_PROT_ERR, ERR, the next flushed. */
	post_fast_reg(b, key2, FAST_IOVA, 4096, 2, lrw);
	post_fast_reg(b, key3, FAST_IOVA, 4096, 2, lrw);
	post_inv(b, WREN_WQE_LOCAL_INV, key2, 0);
	pump(a, b);
	expect_cqe(b, WREN_CQE_OP_REG_MR, WREN_CQE_SUCCESS, 0, &c);
	expect_cqe(b, WREN_CQE_OP_REG_MR, WREN_CQE_LOC_PROT_ERR, 1, &c);
	/* Never taken: only its status and slot say anything (verbs). */
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_WR_FLUSH_ERR);
	CHECK_EQ(wren_le16(c.wqe_index), 2);
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_ERR);
	/* Neither the failed entry nor the flushed one touched the region. */
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, key2, FAST_IOVA, in, 8,
			      WREN_MR_ACCESS_REMOTE_READ), 0);
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, key3, FAST_IOVA, in, 8,
			      WREN_MR_ACCESS_REMOTE_READ),
		 -EACCES);
	rc_reconnect(a, b, rw);

	/* LOCAL_INV of a stale key: LOC_PROT_ERR; the region stays valid. */
	post_inv(b, WREN_WQE_LOCAL_INV, key3, 0);
	pump(a, b);
	expect_cqe(b, WREN_CQE_OP_LOCAL_INV, WREN_CQE_LOC_PROT_ERR, 0, &c);
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_ERR);
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, key2, FAST_IOVA, in, 8,
			      WREN_MR_ACCESS_REMOTE_READ), 0);
	rc_reconnect(a, b, rw);

	/* More pages than the region holds, once invalid: LOC_QP_OP_ERR. */
	post_inv(b, WREN_WQE_LOCAL_INV, key2, 0);
	post_fast_reg(b, key3, FAST_IOVA, 5 * 4096 - 0x800, 5, lrw);
	pump(a, b);
	expect_cqe(b, WREN_CQE_OP_LOCAL_INV, WREN_CQE_SUCCESS, 0, &c);
	expect_cqe(b, WREN_CQE_OP_REG_MR, WREN_CQE_LOC_QP_OP_ERR, 1, &c);
	CHECK_EQ(qp_state(&b->h, b->qpn), WREN_QPS_ERR);
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, key3, FAST_IOVA, in, 8,
			      WREN_MR_ACCESS_REMOTE_READ),
		 -EACCES);
	rc_reconnect(a, b, rw);

	/* A REG_MR with an SGE is malformed. */
	memset(&w, 0, sizeof(w));
	w.opcode = WREN_WQE_REG_MR;
	w.num_sge = 1;
	w.remote_addr = wren_to_le64(FAST_IOVA);
	w.rkey = wren_to_le32(key3);
	w.fast_reg.length = wren_to_le64(4096);
	w.fast_reg.npages = wren_to_le32(2);
	w.fast_reg.page_shift = 12;
	sq_push(b, &w);
	pump(a, b);
	expect_cqe(b, WREN_CQE_OP_REG_MR, WREN_CQE_LOC_QP_OP_ERR, 0, &c);
	CHECK_EQ(weng_mr_read(b->h.e, b->pdn, key3, FAST_IOVA, in, 8,
			      WREN_MR_ACCESS_REMOTE_READ),
		 -EACCES);
	h_fini(&a->h);
	h_fini(&b->h);

	/* On a UD QP, a well-formed REG_MR of a good region is refused. */
	memset(a, 0, sizeof(*a));
	adapter_up(a, 0, WREN_QPT_UD);
	pbl_set(&a->h, FAST_PBL, 0, PAGE_B);
	pbl_set(&a->h, FAST_PBL, 1, PAGE_A);
	CHECK_EQ(reg_fast(&a->h, a->pdn, 4, 0x11, &acqe), WREN_STATUS_SUCCESS);
	key = wren_le32(acqe.result[0]);
	adapter_ah(a, a);
	memset(&w, 0, sizeof(w));
	w.opcode = WREN_WQE_REG_MR;
	w.flags = WREN_WQE_F_SIGNALED;
	w.ah = wren_to_le32(a->ah);	/* what a UD entry needs */
	w.remote_qpn = wren_to_le32(a->qpn);
	w.remote_qkey = wren_to_le32(0x11111111);
	w.remote_addr = wren_to_le64(FAST_IOVA);
	w.rkey = wren_to_le32(key);
	w.fast_reg.length = wren_to_le64(4096);
	w.fast_reg.npages = wren_to_le32(2);
	w.fast_reg.page_shift = 12;
	w.fast_reg.access = lrw;
	sq_push(a, &w);
	expect_cqe(a, WREN_CQE_OP_REG_MR, WREN_CQE_LOC_QP_OP_ERR, 0, &c);
	CHECK_EQ(weng_mr_read(a->h.e, a->pdn, key, FAST_IOVA, in, 8, 0),
		 -EACCES);
	h_fini(&a->h);
	free(a);
	free(b);
}

/* ------------------------------------------------------------------ */
/* Counter sets, the engine's counters, QUERY_CTX                       */
/* ------------------------------------------------------------------ */

/* The offset of a command body's @field in the command. */
#define T_BODY(type, field) \
	(sizeof(struct wren_admin_cmd_hdr) + offsetof(type, field))

/* Whether a QP's traffic moves each counter (WREN_STAT_QP, wren_stats.h). */
static const bool qp_scope[WREN_STAT_COUNT] = {
#define WREN_STAT(counter)	[WREN_STAT_##counter] = false,
#define WREN_STAT_QP(counter)	[WREN_STAT_##counter] = true,
#define WREN_ENG_STAT(counter)	[WREN_STAT_##counter] = false,
#define WREN_ENG_STAT_QP(counter)	[WREN_STAT_##counter] = true,
#include "linux/wren/wren_stats.h"
#undef WREN_ENG_STAT_QP
#undef WREN_ENG_STAT
#undef WREN_STAT_QP
#undef WREN_STAT
};

/* ALLOC_COUNTER_SET: the status, the set in @set. */
static uint8_t cset_alloc(struct harness *h, uint32_t *set)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	uint8_t st;

	make_cmd(&cmd, WREN_ADMIN_ALLOC_COUNTER_SET, 0);
	st = run(h, &cmd, &cqe);
	if (st == WREN_STATUS_SUCCESS)
		*set = wren_le32(cqe.result[0]);
	return st;
}

static uint8_t cset_free(struct harness *h, uint32_t set)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;

	make_handle(&cmd, WREN_ADMIN_FREE_COUNTER_SET, 0, set);
	return run(h, &cmd, &cqe);
}

static uint8_t cset_bind(struct harness *h, uint32_t qpn, uint32_t set)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_bind_counter_set *b = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_BIND_COUNTER_SET, 0);
	b->qpn = wren_to_le32(qpn);
	b->set = wren_to_le32(set);
	return run(h, &cmd, &cqe);
}

/* GET_STATS of counter set @set into @v; the status, ext_status in @ext. */
static uint8_t get_set_stats(struct harness *h, uint8_t flags, uint32_t set,
			     uint64_t *v, uint32_t *ext)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_get_stats *gs = (void *)cmd.payload;
	const uint64_t *buf;

	make_cmd(&cmd, WREN_ADMIN_GET_STATS, 0);
	gs->buf_addr = wren_to_le64(BUF_BASE);
	gs->buf_len = wren_to_le32(8 * WREN_STAT_COUNT);
	gs->flags = flags;
	gs->set = wren_to_le16(set);
	if (run(h, &cmd, &cqe) != WREN_STATUS_SUCCESS) {
		if (ext)
			*ext = wren_le32(cqe.ext_status);
		return cqe.status;
	}
	buf = fake_env_ptr(&h->env, BUF_BASE, 8 * WREN_STAT_COUNT);
	for (uint32_t i = 0; i < WREN_STAT_COUNT; i++)
		v[i] = wren_le64(buf[i]);
	return WREN_STATUS_SUCCESS;
}

/*
 * A requester that never acknowledges the answers to its READs keeps their
 * responder entries until the transport gives up on them.  It may take
 * a quarter of the pool and no more: its other READs are refused (RNR,
 * for it alone), and another peer's WRITE goes through meanwhile.
 */
static void test_resp_peer_share(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct adapter *c = calloc(1, sizeof(*c));
	uint64_t vb[WREN_STAT_COUNT];
	struct wren_tp_stats st;
	struct wren_cqe cqe;
	uint32_t rkey;
	int i;

	a->max_rd_atom = 31;
	b->max_qp_depth = 8;		/* 32 entries: 8 a peer */
	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_up(c, 2, WREN_QPT_RD);
	adapter_ah(a, b);
	adapter_ah(c, b);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			   WREN_MR_ACCESS_LOCAL_WRITE | WREN_MR_ACCESS_REMOTE_READ |
			   WREN_MR_ACCESS_REMOTE_WRITE);
	for (i = 0; i < 31; i++)
		post_rdma(a, WREN_WQE_RDMA_READ, b->qpn, i * 100, 100,
			  DATA_IOVA + i * 100, rkey);
	/* b's answers never reach a. */
	pump_hold_data(a, b, 300);
	wren_tp_get_stats(b->h.e->tp, &st);
	CHECK_EQ(st.rx_msgs, 8);
	CHECK_EQ(get_set_stats(&b->h, 0, 0, vb, NULL), WREN_STATUS_SUCCESS);
	CHECK(vb[WREN_STAT_rnr_refusals] > 0);
	/* a's 8 are still held; c writes all the same. */
	post_rdma(c, WREN_WQE_RDMA_WRITE, b->qpn, 0, 100, DATA_IOVA + 8192,
		  rkey);
	pump(c, b);
	CHECK(poll_cq(c, &cqe));
	CHECK_EQ(cqe.status, WREN_CQE_SUCCESS);
	adapter_free(a);
	adapter_free(b);
	adapter_free(c);
}

/*
 * READ answers wait for room in the transport in order, but one whose
 * requester holds its share of the transport's message slots (here: b's
 * sends to a and its answers to a's READs, none acknowledged) must not
 * hold back the answer to another requester's READ.
 */
static void test_read_answer_share(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct adapter *c = calloc(1, sizeof(*c));
	struct wren_tp_stats st;
	struct wren_cqe cqe;
	uint32_t rkey;
	int i;

	b->max_qp_depth = 8;		/* 32 message slots: 8 a peer */
	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_up(c, 2, WREN_QPT_RD);
	adapter_ah(a, b);
	adapter_ah(b, a);
	adapter_ah(c, b);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			   WREN_MR_ACCESS_LOCAL_WRITE | WREN_MR_ACCESS_REMOTE_READ);
	/* Two of a's share go to b's sends, six to answers: two wait. */
	for (i = 0; i < 2; i++)
		post_send(b, a->qpn, i * 100, 100, b->key, 0);
	for (i = 0; i < 8; i++)
		post_rdma(a, WREN_WQE_RDMA_READ, b->qpn, i * 100, 100,
			  DATA_IOVA + i * 100, rkey);
	/* Nothing of b's reaches a. */
	pump_hold_data(a, b, 300);
	wren_tp_get_stats(b->h.e->tp, &st);
	CHECK_EQ(st.rx_msgs, 8);
	CHECK_EQ(st.tx_data_pkts - st.retx_timeout - st.retx_fast, 8);
	post_rdma(c, WREN_WQE_RDMA_READ, b->qpn, 0, 100, DATA_IOVA, rkey);
	pump(c, b);
	CHECK(poll_cq(c, &cqe));
	CHECK_EQ(cqe.status, WREN_CQE_SUCCESS);
	adapter_free(a);
	adapter_free(b);
	adapter_free(c);
}

/*
 * A CQ is not shrunk below what its send queues still owe it: sends
 * posted and not completed would overflow the new ring at once (rdma-core's
 * test_resize_cq shrinks a CQ right after posting, and on a slow device
 * its completions were lost).  Once they are in and consumed, it is.
 */
static void test_cq_resize_owed(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct wren_cmd_resize_cq *rc;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cqe c;
	uint32_t rkey;

	adapter_up(a, 0, WREN_QPT_RD);
	adapter_up(b, 1, WREN_QPT_RD);
	adapter_ah(a, b);
	rkey = reg_rkey_ok(&b->h, b->pdn, DATA_IOVA, 16 * 4096, 16, PBL,
			   WREN_MR_ACCESS_LOCAL_WRITE |
			   WREN_MR_ACCESS_REMOTE_WRITE);
	for (int i = 0; i < 5; i++)
		post_rdma(a, WREN_WQE_RDMA_WRITE, b->qpn, i * 100, 100,
			  DATA_IOVA + i * 100, rkey);
	make_cmd(&cmd, WREN_ADMIN_RESIZE_CQ, 0);
	rc = (void *)cmd.payload;
	rc->base_addr = wren_to_le64(BUF_BASE + 0x8000);
	rc->cqn = wren_to_le32(a->cqn);
	rc->log_depth = 2;	/* 4 entries, for 5 owed */
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_STATE);
	pump(a, b);
	for (int i = 0; i < 5; i++) {
		CHECK(poll_cq(a, &c));
		CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	}
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(cqe.result[0]), 0);
	adapter_free(a);
	adapter_free(b);
}

/* QUERY_CTX: the status; the context at BUF_BASE, its size in @size. */
static uint8_t query_ctx(struct harness *h, uint8_t type, uint32_t handle,
			 uint32_t len, uint32_t *size, uint32_t *ext)
{
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_query_ctx *q = (void *)cmd.payload;

	make_cmd(&cmd, WREN_ADMIN_QUERY_CTX, 0);
	q->buf_addr = wren_to_le64(BUF_BASE);
	q->buf_len = wren_to_le32(len);
	q->handle = wren_to_le32(handle);
	q->type = type;
	memset(fake_env_ptr(&h->env, BUF_BASE, 4096), 0xa5, 4096);
	if (run(h, &cmd, &cqe) != WREN_STATUS_SUCCESS) {
		if (ext)
			*ext = wren_le32(cqe.ext_status);
		return cqe.status;
	}
	if (size)
		*size = wren_le32(cqe.result[0]);
	return WREN_STATUS_SUCCESS;
}

/* The QP context of @qpn, read whole. */
static struct wren_qp_ctx qp_ctx(struct harness *h, uint32_t qpn)
{
	uint32_t size = 0;

	CHECK_EQ(query_ctx(h, WREN_CTX_QP, qpn, 4096, &size, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(size, sizeof(struct wren_qp_ctx));
	return *(struct wren_qp_ctx *)fake_env_ptr(&h->env, BUF_BASE,
						   sizeof(struct wren_qp_ctx));
}

/*
 * Counter sets as objects: the default set and 63 more, exhaustion,
 * binding, freeing, and every refusal.
 */
static void test_counter_sets(void)
{
	struct adapter *a = calloc(1, sizeof(*a));
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	uint32_t set = 0, first = 0, ext = 0;
	uint64_t v[WREN_STAT_COUNT];

	adapter_up(a, 0, WREN_QPT_RD);
	for (uint32_t i = 1; i < WENG_DEFAULT_COUNTER_SETS; i++) {
		CHECK_EQ(cset_alloc(&a->h, &set), WREN_STATUS_SUCCESS);
		CHECK_EQ(set, i);
	}
	CHECK_EQ(cset_alloc(&a->h, &set), WREN_STATUS_NO_RESOURCES);
	CHECK_EQ(cset_free(&a->h, 7), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_free(&a->h, 7), WREN_STATUS_NOT_FOUND);
	CHECK_EQ(cset_alloc(&a->h, &first), WREN_STATUS_SUCCESS);
	CHECK_EQ(first, 7);
	for (uint32_t i = 1; i < WENG_DEFAULT_COUNTER_SETS; i++)
		if (i != 7)
			CHECK_EQ(cset_free(&a->h, i), WREN_STATUS_SUCCESS);
	/* The default set is no object; nothing beyond the last is either. */
	CHECK_EQ(cset_free(&a->h, 0), WREN_STATUS_NOT_FOUND);
	CHECK_EQ(cset_free(&a->h, WENG_DEFAULT_COUNTER_SETS),
		 WREN_STATUS_NOT_FOUND);
	/* ALLOC takes a zeroed body. */
	make_cmd(&cmd, WREN_ADMIN_ALLOC_COUNTER_SET, 0);
	cmd.payload[9] = 1;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 sizeof(struct wren_admin_cmd_hdr) + 9 + 1);

	/* Bound, a set cannot be freed; the QP shows it. */
	CHECK_EQ(cset_bind(&a->h, a->qpn, 7), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(qp_ctx(&a->h, a->qpn).counter_set), 7);
	CHECK_EQ(cset_free(&a->h, 7), WREN_STATUS_BAD_STATE);
	CHECK_EQ(cset_bind(&a->h, a->qpn, 8), WREN_STATUS_NOT_FOUND);
	CHECK_EQ(cset_bind(&a->h, a->qpn, 1 << 16), WREN_STATUS_NOT_FOUND);
	CHECK_EQ(cset_bind(&a->h, a->qpn + 1, 7), WREN_STATUS_NOT_FOUND);
	CHECK_EQ(cset_bind(&a->h, 0, 7), WREN_STATUS_NOT_FOUND);
	make_cmd(&cmd, WREN_ADMIN_BIND_COUNTER_SET, 0);
	((struct wren_cmd_bind_counter_set *)cmd.payload)->qpn =
		wren_to_le32(a->qpn);
	((struct wren_cmd_bind_counter_set *)cmd.payload)->rsvd[3] = 1;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 T_BODY(struct wren_cmd_bind_counter_set, rsvd[3]) + 1);
	CHECK_EQ(cset_bind(&a->h, a->qpn, 0), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(qp_ctx(&a->h, a->qpn).counter_set), 0);
	CHECK_EQ(cset_free(&a->h, 7), WREN_STATUS_SUCCESS);
	/* A destroyed QP is unbound. */
	CHECK_EQ(cset_alloc(&a->h, &set), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&a->h, a->qpn, set), WREN_STATUS_SUCCESS);
	qp_again(a);
	CHECK_EQ(cset_free(&a->h, set), WREN_STATUS_SUCCESS);

	/* GET_STATS of a set: its flag, its number, allocated. */
	CHECK_EQ(get_set_stats(&a->h, WREN_STATS_FLAG_SET, 0, v, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(get_set_stats(&a->h, WREN_STATS_FLAG_SET, set, v, NULL),
		 WREN_STATUS_NOT_FOUND);
	CHECK_EQ(get_set_stats(&a->h, WREN_STATS_FLAG_SET, 0xffff, v, NULL),
		 WREN_STATUS_NOT_FOUND);
	CHECK_EQ(get_set_stats(&a->h, 0, 1, v, &ext), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(ext, T_BODY(struct wren_cmd_get_stats, set) + 1);
	CHECK_EQ(get_set_stats(&a->h, 2, 0, v, &ext), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(ext, T_BODY(struct wren_cmd_get_stats, flags) + 1);
	make_cmd(&cmd, WREN_ADMIN_GET_STATS, 0);
	((struct wren_cmd_get_stats *)cmd.payload)->buf_addr =
		wren_to_le64(BUF_BASE);
	((struct wren_cmd_get_stats *)cmd.payload)->buf_len = wren_to_le32(8);
	((struct wren_cmd_get_stats *)cmd.payload)->rsvd0 = 1;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 T_BODY(struct wren_cmd_get_stats, rsvd0) + 1);
	adapter_free(a);
}

/* Like pump(), but every @nth frame, either way, is lost. */
static void pump_lossy(struct adapter *a, struct adapter *b, int nth)
{
	static uint8_t frame[16384];
	int n = 0;

	for (int i = 0; i < 3000; i++) {
		size_t len;

		while ((len = weng_tx_pull(a->h.e, frame, sizeof(frame))))
			if (++n % nth)
				weng_rx_frame(b->h.e, frame, len);
		while ((len = weng_tx_pull(b->h.e, frame, sizeof(frame))))
			if (++n % nth)
				weng_rx_frame(a->h.e, frame, len);
		fake_env_advance(&a->h.env, 1000);
		fake_env_advance(&b->h.env, 1000);
	}
	for (int i = 0; i < 50; i++) {
		pump(a, b);
		fake_env_advance(&a->h.env, 10000000);
		fake_env_advance(&b->h.env, 10000000);
	}
}

/*
 * Every QP-scope counter of adapter @h: the default set and sets @s1 and
 * @s2 add up to the totals; the others are the totals in the default set
 * and zero in the others.
 */
static void check_sets_add_up(struct harness *h, uint32_t s1, uint32_t s2,
			      uint64_t *v1, uint64_t *v2)
{
	uint64_t tot[WREN_STAT_COUNT], v0[WREN_STAT_COUNT];
	bool ok = true;

	CHECK_EQ(get_set_stats(h, 0, 0, tot, NULL), WREN_STATUS_SUCCESS);
	CHECK_EQ(get_set_stats(h, WREN_STATS_FLAG_SET, 0, v0, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(get_set_stats(h, WREN_STATS_FLAG_SET, s1, v1, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(get_set_stats(h, WREN_STATS_FLAG_SET, s2, v2, NULL),
		 WREN_STATUS_SUCCESS);
	for (unsigned int i = 0; i < WREN_STAT_COUNT; i++) {
		bool good = qp_scope[i] ? v0[i] + v1[i] + v2[i] == tot[i] :
			    v0[i] == tot[i] && !v1[i] && !v2[i];

		if (!good)
			printf("# counter %u: %llu + %llu + %llu, total %llu\n",
			       i, (unsigned long long)v0[i],
			       (unsigned long long)v1[i],
			       (unsigned long long)v2[i],
			       (unsigned long long)tot[i]);
		ok &= good;
	}
	CHECK(ok);
}

static uint64_t retx(const uint64_t *v)
{
	return v[WREN_STAT_retx_timeout] + v[WREN_STAT_retx_fast] +
	       v[WREN_STAT_retx_nack] + v[WREN_STAT_retx_reconnect];
}

/*
 * Two RC pairs on a lossy wire, each QP of @a in a set of its own and
 * one of @b's: each counter set holds its QPs' traffic, the sets add up
 * to the totals, and the QPs' contexts say what they did.
 */
static void test_counter_sets_lossy(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct qp_view a2 = { 0 }, b2 = { 0 };
	uint64_t v1[WREN_STAT_COUNT], v2[WREN_STAT_COUNT];
	uint32_t sa1 = 0, sa2 = 0, sb1 = 0, sb2 = 0, tc = 0;
	struct wren_qp_ctx x;
	struct wren_cqe c;
	int ok_a = 0, ok_b = 0;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	rc_connect(a, b, 1, 2, 0, 1, 7);
	rc_connect(b, a, 2, 1, 0, 1, 7);
	rc_second_pair(a, b, &a2, &b2, 1, 7);
	CHECK_EQ(cset_alloc(&a->h, &sa1), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_alloc(&a->h, &sa2), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_alloc(&b->h, &sb1), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_alloc(&b->h, &sb2), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&a->h, a->qpn, sa1), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&a->h, a2.qpn, sa2), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&b->h, b->qpn, sb1), WREN_STATUS_SUCCESS);
	/* b's second QP stays in the default set; sb2 holds nothing. */
	for (int q = 0; q < 2; q++) {
		for (int i = 0; i < 8; i++)
			post_recv(b, 0, 20000);
		for (int i = 0; i < 8; i++)
			post_send(a, 0, 0, 20000, a->key, i);
		x = qp_ctx(&a->h, a->qpn);
		CHECK_EQ(wren_le16(x.sq_pi), 8);
		/* Both QPs' messages go on the one context to that peer. */
		CHECK(wren_le32(x.tc_id) != WREN_CTX_TC_NONE);
		if (q)
			CHECK_EQ(wren_le32(x.tc_id), tc);
		tc = wren_le32(x.tc_id);
		qp_swap(a, &a2);
		qp_swap(b, &b2);
	}
	pump_lossy(a, b, 5);
	while (poll_cq(a, &c))
		ok_a += c.status == WREN_CQE_SUCCESS;
	while (poll_cq(b, &c))
		ok_b += c.status == WREN_CQE_SUCCESS;
	CHECK_EQ(ok_a, 16);
	CHECK_EQ(ok_b, 16);

	/* The initiator: each QP's losses in its own set. */
	check_sets_add_up(&a->h, sa1, sa2, v1, v2);
	CHECK_EQ(v1[WREN_STAT_tx_msgs], 8);
	CHECK_EQ(v2[WREN_STAT_tx_msgs], 8);
	CHECK(retx(v1) > 0);
	CHECK(retx(v2) > 0);
	CHECK_EQ(v1[WREN_STAT_tx_data_pkts], 8 * 5 + retx(v1));
	printf("# retransmissions: set %u %llu, set %u %llu\n", sa1,
	       (unsigned long long)retx(v1), sa2,
	       (unsigned long long)retx(v2));
	/* The target: its first QP's arrivals in its set, none in the other. */
	check_sets_add_up(&b->h, sb1, sb2, v1, v2);
	CHECK_EQ(v1[WREN_STAT_rx_msgs], 8);
	CHECK_EQ(v1[WREN_STAT_rx_data_pkts], 8 * 5);
	CHECK_EQ(v2[WREN_STAT_rx_msgs], 0);
	CHECK_EQ(v2[WREN_STAT_rx_data_pkts], 0);

	/* The contexts: indexes, stream, peer, per-QP counters. */
	x = qp_ctx(&a->h, a->qpn);
	CHECK_EQ(wren_le32(x.qpn), a->qpn);
	CHECK_EQ(x.type, WREN_QPT_RC);
	CHECK_EQ(x.state, WREN_QPS_RTS);
	CHECK_EQ(wren_le32(x.pdn), a->pdn);
	CHECK_EQ(wren_le32(x.send_cq), a->cqn);
	CHECK_EQ(wren_le32(x.counter_set), sa1);
	CHECK_EQ(x.sq_log_depth, 5);
	CHECK_EQ(x.rq_log_depth, 5);
	CHECK_EQ(wren_le16(x.sq_pi), 8);
	CHECK_EQ(wren_le16(x.sq_ci), 8);
	CHECK_EQ(wren_le32(x.sq_inflight), 0);
	CHECK_EQ(wren_le32(x.rd_atom_inflight), 0);
	CHECK_EQ(wren_le32(x.dest_qpn), b->qpn);
	CHECK_EQ(x.dest_ipv4, b->h.cfg.ipv4);
	CHECK_EQ(x.peer_ipv4, b->h.cfg.ipv4);
	CHECK_EQ(wren_le32(x.sq_psn), 1 + 8);
	CHECK_EQ(wren_le64(x.tx_msgs), 8);
	CHECK_EQ(wren_le64(x.rx_msgs), 0);
	CHECK(wren_le64(x.retx_pkts) > 0);
	CHECK_EQ(wren_le64(x.rnr_waits), 0);
	for (unsigned int i = 0; i < sizeof(x.rsvd) / sizeof(x.rsvd[0]); i++)
		CHECK_EQ(x.rsvd[i], 0);
	x = qp_ctx(&b->h, b->qpn);
	CHECK_EQ(wren_le16(x.rq_pi), 8);
	CHECK_EQ(wren_le16(x.rq_ci), 8);
	CHECK_EQ(wren_le32(x.rq_psn), 1 + 8);
	CHECK_EQ(wren_le64(x.rx_msgs), 8);
	CHECK_EQ(wren_le64(x.tx_msgs), 0);
	CHECK_EQ(x.peer_ipv4, 0);
	CHECK_EQ(wren_le32(x.tc_id), WREN_CTX_TC_NONE);

	/* A freed set leaves the totals: the rest still add up without it. */
	CHECK_EQ(cset_bind(&a->h, a2.qpn, 0), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_free(&a->h, sa2), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_alloc(&a->h, &sa2), WREN_STATUS_SUCCESS);
	CHECK_EQ(get_set_stats(&a->h, WREN_STATS_FLAG_SET, sa2, v2, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(v2[WREN_STAT_tx_msgs], 0);
	adapter_free(a);
	adapter_free(b);
}

/*
 * The engine's counters: an RC send to a QP with no receive waits (the
 * sender's rnr_waits) as often as the target refuses it (rnr_refusals),
 * in the totals, the QPs' sets and the sender's context.
 */
static void test_rnr_counters(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	uint64_t va[WREN_STAT_COUNT], vb[WREN_STAT_COUNT];
	uint64_t sa[WREN_STAT_COUNT], sb[WREN_STAT_COUNT];
	uint32_t set_a = 0, set_b = 0;
	struct wren_cqe c;

	adapter_up(a, 0, WREN_QPT_RC);
	adapter_up(b, 1, WREN_QPT_RC);
	rc_connect(a, b, 1, 2, 0, 14, 7);
	rc_connect(b, a, 2, 1, 0, 14, 7);
	CHECK_EQ(cset_alloc(&a->h, &set_a), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_alloc(&b->h, &set_b), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&a->h, a->qpn, set_a), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&b->h, b->qpn, set_b), WREN_STATUS_SUCCESS);
	post_send(a, 0, 0, 100, a->key, 1);
	pump(a, b);
	CHECK(!poll_cq(a, &c));
	fake_env_advance(&a->h.env, 2000000);
	pump(a, b);
	CHECK(!poll_cq(a, &c));
	CHECK_EQ(get_set_stats(&a->h, 0, 0, va, NULL), WREN_STATUS_SUCCESS);
	CHECK_EQ(get_set_stats(&b->h, 0, 0, vb, NULL), WREN_STATUS_SUCCESS);
	CHECK_EQ(va[WREN_STAT_rnr_waits], 2);
	CHECK_EQ(vb[WREN_STAT_rnr_refusals], 2);
	CHECK_EQ(va[WREN_STAT_rnr_refusals], 0);
	CHECK_EQ(vb[WREN_STAT_rnr_waits], 0);
	CHECK_EQ(WREN_STAT_rnr_waits, WREN_STAT_ENG_FIRST);
	post_recv(b, 0, 100);
	fake_env_advance(&a->h.env, 2000000);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	CHECK_EQ(get_set_stats(&a->h, WREN_STATS_FLAG_SET, set_a, sa, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(get_set_stats(&b->h, WREN_STATS_FLAG_SET, set_b, sb, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(sa[WREN_STAT_rnr_waits], 2);
	CHECK_EQ(sb[WREN_STAT_rnr_refusals], 2);
	CHECK_EQ(sa[WREN_STAT_tx_msgs], 1);
	CHECK_EQ(sb[WREN_STAT_rx_msgs], 1);
	CHECK_EQ(wren_le64(qp_ctx(&a->h, a->qpn).rnr_waits), 2);
	CHECK_EQ(wren_le64(qp_ctx(&a->h, a->qpn).tx_msgs), 1);
	CHECK_EQ(wren_le64(qp_ctx(&b->h, b->qpn).rx_msgs), 1);
	/* The default set keeps nothing of theirs. */
	CHECK_EQ(get_set_stats(&a->h, WREN_STATS_FLAG_SET, 0, sa, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(sa[WREN_STAT_rnr_waits], 0);
	CHECK_EQ(sa[WREN_STAT_tx_msgs], 0);
	adapter_free(a);
	adapter_free(b);
}

/*
 * QUERY_CTX of each type: the fields against what was done, truncation,
 * and its refusals.
 */
static void test_query_ctx(void)
{
	struct adapter *a = calloc(1, sizeof(*a));
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_srq *cs = (void *)cmd.payload;
	struct wren_cmd_create_qp *cq = (void *)cmd.payload;
	const struct wren_cq_ctx *cx;
	const struct wren_mr_ctx *mx;
	const struct wren_srq_ctx *sx;
	const uint8_t *buf;
	struct wren_qp_ctx x;
	uint32_t size = 0, ext = 0, srqn, fast;

	adapter_up(a, 0, WREN_QPT_UD);
	adapter_ah(a, a);
	buf = fake_env_ptr(&a->h.env, BUF_BASE, 4096);

	/* A UD QP that sent nothing yet. */
	x = qp_ctx(&a->h, a->qpn);
	CHECK_EQ(x.type, WREN_QPT_UD);
	CHECK_EQ(x.state, WREN_QPS_RTS);
	CHECK_EQ(wren_le32(x.qkey), 0x11111111);
	CHECK_EQ(wren_le32(x.recv_cq), a->cqn);
	CHECK_EQ(wren_le32(x.srqn), 0);
	CHECK_EQ(wren_le32(x.dest_qpn), 0);
	CHECK_EQ(x.peer_ipv4, 0);
	CHECK_EQ(wren_le32(x.tc_id), WREN_CTX_TC_NONE);

	/* 74 datagrams to itself, no receive: a CQ of 64 overflows. */
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < (round < 2 ? 32 : 10); i++)
			post_send(a, a->qpn, 0, 10, a->key, 1);
		pump(a, a);
	}
	x = qp_ctx(&a->h, a->qpn);
	CHECK_EQ(wren_le16(x.sq_pi), 74);
	CHECK_EQ(wren_le16(x.sq_ci), 74);
	CHECK_EQ(x.peer_ipv4, a->h.cfg.ipv4);
	/* A datagram takes no transport context. */
	CHECK_EQ(wren_le32(x.tc_id), WREN_CTX_TC_NONE);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_CQ, a->cqn, 64, &size, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(size, sizeof(struct wren_cq_ctx));
	cx = (const void *)buf;
	CHECK_EQ(wren_le32(cx->cqn), a->cqn);
	CHECK_EQ(cx->log_depth, 6);
	CHECK_EQ(cx->flags, 0);
	CHECK_EQ(cx->armed, WREN_CQ_ARM_NONE);
	CHECK_EQ(cx->in_error, 1);
	CHECK_EQ(wren_le32(cx->pi), 64);
	CHECK_EQ(wren_le32(cx->ci), 0);
	CHECK_EQ(wren_le64(cx->overflows), 10);
	CHECK_EQ(wren_le64(cx->events), 0);

	/* A region by its key; a stale key names nothing. */
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_MR, a->key, 4096, &size, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(size, sizeof(struct wren_mr_ctx));
	mx = (const void *)buf;
	CHECK_EQ(wren_le32(mx->key), a->key);
	CHECK_EQ(wren_le32(mx->pdn), a->pdn);
	CHECK_EQ(wren_le64(mx->iova), DATA_IOVA);
	CHECK_EQ(wren_le64(mx->length), 16 * 4096);
	CHECK_EQ(wren_le64(mx->pbl_addr), PBL);
	CHECK_EQ(wren_le32(mx->npages), 16);
	CHECK_EQ(mx->page_shift, 12);
	CHECK_EQ(mx->access, WREN_MR_ACCESS_LOCAL_WRITE);
	CHECK_EQ(mx->flags, 0);
	CHECK_EQ(mx->state, WREN_MR_STATE_VALID);
	CHECK_EQ(buf[sizeof(*mx)], 0xa5);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_MR, a->key ^ 1, 4096, NULL, NULL),
		 WREN_STATUS_NOT_FOUND);
	CHECK_EQ(reg_fast(&a->h, a->pdn, 4, 0x33, &cqe), WREN_STATUS_SUCCESS);
	fast = wren_le32(cqe.result[0]);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_MR, fast, 4096, NULL, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(mx->flags, WREN_MR_FLAG_FAST);
	CHECK_EQ(mx->state, WREN_MR_STATE_FREE);

	/* An SRQ and the QP that takes its receives from it. */
	make_cmd(&cmd, WREN_ADMIN_CREATE_SRQ, 0);
	cs->base = wren_to_le64(SRQ_RING);
	cs->pdn = wren_to_le32(a->pdn);
	cs->db_page = wren_to_le32(1);
	cs->log_depth = 5;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	srqn = wren_le32(cqe.result[0]);
	a->rq_ring = SRQ_RING;
	a->rq_db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);
	for (int i = 0; i < 4; i++)
		post_recv(a, i * 1000, 1000);
	make_qp(&cmd, a->pdn, a->cqn, 1, WREN_QPT_UD);
	cq->rq_base = 0;
	cq->rq_log_depth = 0;
	cq->flags = WREN_QP_FLAG_SRQ;
	cq->srqn = wren_to_le32(srqn);
	cq->sq_base = wren_to_le64(SQ_RING2);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	x = qp_ctx(&a->h, wren_le32(cqe.result[0]));
	CHECK_EQ(wren_le32(x.srqn), srqn);
	CHECK_EQ(x.flags, WREN_QP_FLAG_SRQ);
	CHECK_EQ(x.rq_log_depth, 0);
	CHECK_EQ(x.state, WREN_QPS_RESET);
	CHECK_EQ(srq_cmd(&a->h, WREN_ADMIN_MODIFY_SRQ, srqn, 3, &cqe),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_SRQ, srqn, 4096, &size, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(size, sizeof(struct wren_srq_ctx));
	sx = (const void *)buf;
	CHECK_EQ(wren_le32(sx->srqn), srqn);
	CHECK_EQ(wren_le32(sx->pdn), a->pdn);
	CHECK_EQ(sx->log_depth, 5);
	CHECK_EQ(sx->wqe_shift, 0);
	CHECK_EQ(wren_le16(sx->pi), 4);
	CHECK_EQ(wren_le16(sx->ci), 0);
	CHECK_EQ(wren_le32(sx->limit), 3);
	CHECK_EQ(wren_le32(sx->qps), 1);

	/* Truncated to the buffer; the context's size all the same. */
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_QP, a->qpn, 64, &size, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(size, sizeof(struct wren_qp_ctx));
	CHECK_EQ(buf[63] == 0xa5, false);
	CHECK_EQ(buf[64], 0xa5);

	/* Refusals. */
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_QP, a->qpn, 63, NULL, &ext),
		 WREN_STATUS_BAD_PARAM);
	CHECK_EQ(ext, T_BODY(struct wren_cmd_query_ctx, buf_len) + 1);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_QP, a->qpn, 4097, NULL, &ext),
		 WREN_STATUS_BAD_PARAM);
	CHECK_EQ(ext, T_BODY(struct wren_cmd_query_ctx, buf_len) + 1);
	CHECK_EQ(query_ctx(&a->h, 0, a->qpn, 4096, NULL, &ext),
		 WREN_STATUS_BAD_PARAM);
	CHECK_EQ(ext, T_BODY(struct wren_cmd_query_ctx, type) + 1);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_SRQ + 1, a->qpn, 4096, NULL, &ext),
		 WREN_STATUS_BAD_PARAM);
	CHECK_EQ(ext, T_BODY(struct wren_cmd_query_ctx, type) + 1);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_QP, a->qpn + 100, 4096, NULL, NULL),
		 WREN_STATUS_NOT_FOUND);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_QP, WREN_QPN_GSI, 4096, NULL, NULL),
		 WREN_STATUS_NOT_FOUND);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_CQ, a->cqn + 1, 4096, NULL, NULL),
		 WREN_STATUS_NOT_FOUND);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_SRQ, srqn + 1, 4096, NULL, NULL),
		 WREN_STATUS_NOT_FOUND);
	CHECK_EQ(query_ctx(&a->h, WREN_CTX_MR, 0xffffff00, 4096, NULL, NULL),
		 WREN_STATUS_NOT_FOUND);
	make_cmd(&cmd, WREN_ADMIN_QUERY_CTX, 0);
	((struct wren_cmd_query_ctx *)cmd.payload)->buf_addr =
		wren_to_le64(BUF_BASE);
	((struct wren_cmd_query_ctx *)cmd.payload)->buf_len = wren_to_le32(64);
	((struct wren_cmd_query_ctx *)cmd.payload)->handle =
		wren_to_le32(a->qpn);
	((struct wren_cmd_query_ctx *)cmd.payload)->type = WREN_CTX_QP;
	((struct wren_cmd_query_ctx *)cmd.payload)->rsvd0[2] = 1;
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_BAD_PARAM);
	CHECK_EQ(wren_le32(cqe.ext_status),
		 T_BODY(struct wren_cmd_query_ctx, rsvd0[2]) + 1);
	((struct wren_cmd_query_ctx *)cmd.payload)->rsvd0[2] = 0;
	((struct wren_cmd_query_ctx *)cmd.payload)->buf_addr =
		wren_to_le64(OUTSIDE);
	CHECK_EQ(run(&a->h, &cmd, &cqe), WREN_STATUS_DMA_ERROR);
	adapter_free(a);
}

/*
 * The GSI QP and the Ethernet function's are QPs like the others: a
 * context each, a counter set each; the GSI QP's datagrams count in its
 * set at both ends.
 */
static void test_gsi_eth_ctx(void)
{
	struct adapter *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct adapter *n = calloc(1, sizeof(*n));
	uint64_t v[WREN_STAT_COUNT];
	uint32_t set_a = 0, set_b = 0, set_n = 0;
	struct wren_qp_ctx x;
	struct wren_cqe c;

	gsi_up(a, 0);
	gsi_up(b, 1);
	CHECK_EQ(cset_alloc(&a->h, &set_a), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_alloc(&b->h, &set_b), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&a->h, WREN_QPN_GSI, set_a), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&b->h, WREN_QPN_GSI, set_b), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_free(&a->h, set_a), WREN_STATUS_BAD_STATE);
	eth_post(b, false, 4096, 40 + 256);
	av_send(a, b, WREN_QPN_GSI, 0, 256);
	pump(a, b);
	CHECK(poll_cq(a, &c));
	CHECK(poll_cq(b, &c));
	CHECK_EQ(c.status, WREN_CQE_SUCCESS);
	x = qp_ctx(&a->h, WREN_QPN_GSI);
	CHECK_EQ(wren_le32(x.qpn), WREN_QPN_GSI);
	CHECK_EQ(x.flags, WREN_QP_FLAG_GSI);
	CHECK_EQ(wren_le32(x.counter_set), set_a);
	CHECK_EQ(wren_le16(x.sq_pi), 1);
	CHECK_EQ(x.peer_ipv4, b->h.cfg.ipv4);
	CHECK_EQ(get_set_stats(&a->h, WREN_STATS_FLAG_SET, set_a, v, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(v[WREN_STAT_tx_ud], 1);
	CHECK_EQ(v[WREN_STAT_tx_data_bytes], 256);
	CHECK_EQ(get_set_stats(&b->h, WREN_STATS_FLAG_SET, set_b, v, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(v[WREN_STAT_rx_ud], 1);
	CHECK_EQ(v[WREN_STAT_rx_data_bytes], 256);

	eth_up(n, 2);
	x = qp_ctx(&n->h, n->qpn);
	CHECK_EQ(x.type, WREN_QPT_RAW_ETH);
	CHECK_EQ(x.state, WREN_QPS_RTS);
	CHECK_EQ(cset_alloc(&n->h, &set_n), WREN_STATUS_SUCCESS);
	CHECK_EQ(cset_bind(&n->h, n->qpn, set_n), WREN_STATUS_SUCCESS);
	CHECK_EQ(wren_le32(qp_ctx(&n->h, n->qpn).counter_set), set_n);
	adapter_free(a);
	adapter_free(b);
	adapter_free(n);
}

/* A CQ's context follows its arming and counts the events it raised. */
static void test_cq_ctx_events(void)
{
	struct harness h;
	struct wren_admin_cmd cmd;
	struct wren_admin_cqe cqe;
	struct wren_cmd_create_eq *ec = (void *)cmd.payload;
	struct wren_cmd_create_cq *cc = (void *)cmd.payload;
	struct weng_completion c = { .status = WREN_CQE_SUCCESS };
	const struct wren_cq_ctx *x;
	uint32_t eq, cqn, db;

	h_init(&h);
	h.cfg.msix_vectors = 4;
	h_start(&h);
	h_enable(&h, 4, 3);
	x = fake_env_ptr(&h.env, BUF_BASE, sizeof(*x));
	make_cmd(&cmd, WREN_ADMIN_CREATE_EQ, 0);
	ec->base_addr = wren_to_le64(EQ_BASE);
	ec->log_depth = 3;
	ec->msix_vector = wren_to_le16(1);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	eq = wren_le32(cqe.result[0]);
	make_cq(&cmd, 1);
	cc->log_depth = 2;
	cc->flags = WREN_CQ_FLAG_EQ;
	cc->eq_id = wren_to_le16(eq);
	CHECK_EQ(run(&h, &cmd, &cqe), WREN_STATUS_SUCCESS);
	cqn = wren_le32(cqe.result[0]);
	db = (1 << WREN_DB_PAGE_SHIFT) + wren_le32(cqe.result[1]);

	weng_db_write(h.e, db, WREN_CQ_DB_ARM, 4);
	CHECK_EQ(query_ctx(&h, WREN_CTX_CQ, cqn, 64, NULL, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(x->armed, WREN_CQ_ARM_NEXT);
	CHECK_EQ(x->flags, WREN_CQ_FLAG_EQ);
	CHECK_EQ(wren_le32(x->eq_id), eq);
	CHECK_EQ(x->log_depth, 2);
	CHECK_EQ(weng_cq_complete(h.e, cqn, &c), 0);
	CHECK_EQ(query_ctx(&h, WREN_CTX_CQ, cqn, 64, NULL, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(x->armed, WREN_CQ_ARM_NONE);
	CHECK_EQ(wren_le64(x->events), 1);
	CHECK_EQ(wren_le32(x->pi), 1);
	weng_db_write(h.e, db, 1 | WREN_CQ_DB_ARM | WREN_CQ_DB_SOLICITED, 4);
	CHECK_EQ(query_ctx(&h, WREN_CTX_CQ, cqn, 64, NULL, NULL),
		 WREN_STATUS_SUCCESS);
	CHECK_EQ(x->armed, WREN_CQ_ARM_SOLICITED);
	CHECK_EQ(wren_le32(x->ci), 1);
	CHECK_EQ(x->in_error, 0);
	CHECK_EQ(wren_le64(x->overflows), 0);
	h_fini(&h);
}

static const struct tap_test tests[] = {
	{ "reset, ready, enable handshake", test_reset_handshake },
	{ "bad queue configuration is fatal", test_bad_queue_cfg },
	{ "GET_ATTR round trip and length checks", test_get_attr },
	{ "admin phase wraps over several laps", test_phase_wrap },
	{ "bogus admin tail is refused", test_bogus_tail },
	{ "bad opcode, reserved fields, handles, limits", test_statuses },
	{ "async event queue overflow and keep-alive", test_aeq_overflow },
	{ "fault switch drops one opcode", test_fault_drop },
	{ "event queues: create, arm, post, destroy", test_event_queues },
	{ "register access rules", test_register_access },
	{ "the fuzzers' guard window counts DMA into it", test_fake_guard },
	{ "unreachable host memory is fatal", test_dma_fatal },
	{ "hostile register writes and ring contents", test_hostile_guest },
	{ "CQ and QP: fields, references, states, doorbells", test_objects },
	{ "AH and MR: fields, keys, references, reset", test_ah_mr },
	{ "MR keys: lkey and rkey apart, random bits, no number reused at once", test_mr_keys },
	{ "MR access: pages, key, PD, rights, bounds, two and three levels", test_mr_access },
	{ "CQ: phase, arming, solicited, overrun", test_cq_post },
	{ "RD messages between two adapters, and their errors", test_rd_between_adapters },
	{ "UD datagrams between two adapters, and their errors", test_ud_between_adapters },
	{ "RDMA WRITE, WRITE_IMM, READ; every protection check", test_rdma_between_adapters },
	{ "READ responses: forged ones refused, a silent responder times out", test_read_response_checks },
	{ "READs beyond max_rd_atom wait their turn", test_read_limit },
	{ "a READ answer to a peer at its share lets others' answers by",
	  test_read_answer_share },
	{ "a peer holds at most a quarter of the responder entries",
	  test_resp_peer_share },
	{ "RTS to RESET with READs outstanding: none left behind", test_read_reset },
	{ "send completions in send-queue order; GET_STATS", test_send_completion_order },
	{ "QPs of one adapter talk through its loopback", test_loopback },
	{ "loopback counts against the transmit budget, and all arrives", test_loopback_budget },
	{ "QP numbers go round", test_qpn_rotation },
	{ "new QPs talk after old ones died mid-stream", test_qps_gone_midstream },
	{ "a reset with messages in flight writes nothing", test_reset_in_flight },
	{ "SET_TC_TABLE: fields, reachability, once per reset", test_tc_table_cmd },
	{ "contexts spill to the host's table and come back", test_tc_table_spill },
	{ "DMA to the device's own BARs is refused, never dispatched", test_dma_self },
	{ "RESIZE_CQ: waiting completions move, in order", test_cq_resize },
	{ "RESIZE_CQ: not below the sends the CQ is owed", test_cq_resize_owed },
	{ "larger queue entries: more SGEs, more inline bytes, their limits",
	  test_large_entries },
	{ "REREG_MR: new PD, rights and pages under the same key",
	  test_mr_rereg },
	{ "RC: stream order over reordered packets, access errors",
	  test_rc_between_adapters },
	{ "RC: RNR waits and retries (SEND, WRITE_IMM), no head-of-line blocking, exhaustion",
	  test_rc_rnr },
	{ "RC: atomics, in stream order, and their errors", test_rc_atomics },
	{ "RC: a loss on one QP does not hold back another on its context",
	  test_rc_hol },
	{ "RC: a peer gone fails the send (retries exhausted), then ERR",
	  test_rc_peer_gone },
	{ "RC: a message of 2 GiB, the largest, as SEND and READ",
	  test_rc_largest_message },
	{ "SRQ under RC, its limit; COMM_EST, SQ_DRAINED, LAST_WQE events",
	  test_rc_srq_events },
	{ "Ethernet function: frames both ways, filter, drops, kernel PD only",
	  test_eth },
	{ "GSI QP: number 1, kernel PD, one per adapter; entries' own destinations; drain",
	  test_gsi },
	{ "fast-register regions: REG_MR's flag and its refusals, REREG, DEREG",
	  test_fast_reg_admin },
	{ "RC: REG_MR, LOCAL_INV and SEND_INV entries; invalid regions refuse",
	  test_fast_reg_rc },
	{ "counter sets: allocate, bind, free, limits, refusals",
	  test_counter_sets },
	{ "counter sets under loss: each QP's in its set, the sets add up",
	  test_counter_sets_lossy },
	{ "engine counters: rnr_waits and rnr_refusals, per set and QP",
	  test_rnr_counters },
	{ "QUERY_CTX: QP, CQ, MR, SRQ fields; truncation; refusals",
	  test_query_ctx },
	{ "QUERY_CTX of a CQ: arming, events", test_cq_ctx_events },
	{ "GSI and Ethernet QPs: contexts and counter sets",
	  test_gsi_eth_ctx },
	{ "fault requests: parsed strictly, refused with a reason",
	  test_fault_parse },
	{ "fault fatal: DEV_STS, the FATAL event (DMA too), until a reset",
	  test_fault_fatal },
	{ "fault admin-stop: commands taken, never answered; clear, reset",
	  test_fault_admin_stop },
	{ "fault drop, drop-all, delay: lost and late admin completions",
	  test_fault_drop_delay },
	{ "fault eq-stall: entries and interrupts held, released in order",
	  test_fault_eq_stall },
	{ "fault keep-alive-stop, link-down/up: events, drops, counters",
	  test_fault_keep_alive_link },
	{ "fault link-down between two adapters: frames lost both ways",
	  test_fault_link_wire },
};

int main(void)
{
	return tap_run(tests, sizeof(tests) / sizeof(tests[0]));
}
