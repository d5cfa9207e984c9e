// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * wren_uverbs_fuzz: random and malformed verbs commands on a uverbs
 * device, as an unprivileged program would send them (README.rst).
 *
 * Each session opens the device, gets a context through the write() or
 * the ioctl() path, then issues random commands drawn from the real
 * command set (alloc PD, reg MR, create CQ/QP/SRQ/AH, modify QP through
 * random states, query, resize, destroy in random order), the handles
 * taken from what earlier commands returned.  A share of them is
 * mutated: a wrong handle, a length off, a truncated or oversized
 * buffer, random driver udata, an out-of-range value, a response
 * pointer nowhere.  Rings and doorbell pages the driver offers are
 * mapped and written with garbage.  A session ends by closing the file
 * with whatever is still open.
 *
 * Everything comes from one seed (printed first), so a run is
 * reproducible; the end prints the commands issued and the errno of
 * each failure, per command.  The program itself never checks what the
 * kernel answers: the kernel must survive and stay consistent, which
 * the guest test judges (a ping-pong afterwards, a clean unload, no
 * warning in the kernel log).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl.h>
#include <rdma/wren-abi.h>

#include "rng.h"

#define MAX_ERRNO	160
#define POOL		16	/* handles remembered per object type */
#define SCRATCH		(64 * 1024)
#define MR_AREA		(1024 * 1024)

enum op {
	OP_GET_CONTEXT, OP_GET_CONTEXT_IOCTL, OP_QUERY_DEVICE, OP_QUERY_PORT,
	OP_ALLOC_PD, OP_DEALLOC_PD, OP_REG_MR, OP_DEREG_MR, OP_COMP_CHANNEL,
	OP_CREATE_CQ, OP_CREATE_CQ_EX, OP_RESIZE_CQ, OP_POLL_CQ, OP_NOTIFY_CQ,
	OP_DESTROY_CQ, OP_CREATE_QP, OP_MODIFY_QP, OP_QUERY_QP, OP_DESTROY_QP,
	OP_CREATE_SRQ, OP_MODIFY_SRQ, OP_DESTROY_SRQ, OP_CREATE_AH,
	OP_DESTROY_AH, OP_RANDOM_WRITE, OP_RANDOM_IOCTL, OP_MMAP, OP_CLOSE,
	OP_COUNT
};

static const char *const op_name[OP_COUNT] = {
	"get_context", "get_context_ioctl", "query_device", "query_port",
	"alloc_pd", "dealloc_pd", "reg_mr", "dereg_mr", "comp_channel",
	"create_cq", "create_cq_ex", "resize_cq", "poll_cq", "notify_cq",
	"destroy_cq", "create_qp", "modify_qp", "query_qp", "destroy_qp",
	"create_srq", "modify_srq", "destroy_srq", "create_ah",
	"destroy_ah", "random_write", "random_ioctl", "mmap", "close",
};

/* How often each is drawn, out of the sum. */
static const unsigned int op_weight[OP_COUNT] = {
	[OP_GET_CONTEXT] = 2, [OP_GET_CONTEXT_IOCTL] = 2,
	[OP_QUERY_DEVICE] = 2, [OP_QUERY_PORT] = 2, [OP_ALLOC_PD] = 6,
	[OP_DEALLOC_PD] = 3, [OP_REG_MR] = 6, [OP_DEREG_MR] = 3,
	[OP_COMP_CHANNEL] = 1, [OP_CREATE_CQ] = 6, [OP_CREATE_CQ_EX] = 3,
	[OP_RESIZE_CQ] = 3, [OP_POLL_CQ] = 3, [OP_NOTIFY_CQ] = 2,
	[OP_DESTROY_CQ] = 3, [OP_CREATE_QP] = 8, [OP_MODIFY_QP] = 12,
	[OP_QUERY_QP] = 3, [OP_DESTROY_QP] = 3, [OP_CREATE_SRQ] = 4,
	[OP_MODIFY_SRQ] = 3, [OP_DESTROY_SRQ] = 2, [OP_CREATE_AH] = 4,
	[OP_DESTROY_AH] = 2, [OP_RANDOM_WRITE] = 4, [OP_RANDOM_IOCTL] = 6,
	[OP_MMAP] = 5, [OP_CLOSE] = 1,
};

struct stats {
	uint64_t calls;
	uint64_t ok;
	uint64_t err[MAX_ERRNO + 1];	/* the last: any other */
};

static struct stats st[OP_COUNT];
static struct rng rng;
static int fd = -1;
static bool verbose;
static uint8_t *scratch;	/* responses, udata, ioctl attributes */
static uint8_t *mr_area;	/* what MRs register */

/* Handles the kernel gave, per type; unused slots hold random values. */
enum { H_PD, H_MR, H_CQ, H_QP, H_SRQ, H_AH, H_CHANNEL, H_TYPES };
static uint32_t handles[H_TYPES][POOL];
static unsigned int nhandles[H_TYPES];
/* mmap keys the driver announced, with their sizes. */
static uint64_t keys[POOL], key_len[POOL];
static unsigned int nkeys;

static uint64_t rnd(void)
{
	return rng_next(&rng);
}

/* Uniform below @n (> 0). */
static uint32_t below(uint32_t n)
{
	return (uint32_t)((rnd() >> 32) * n >> 32);
}

/* True with probability @pct percent. */
static bool chance(unsigned int pct)
{
	return below(100) < pct;
}

/* A value of interest for a 32-bit field. */
static uint32_t wild32(void)
{
	static const uint32_t v[] = { 0, 1, 2, 3, 7, 64, 255, 256, 4095,
		4096, 65535, 65536, 0x7fffffff, 0x80000000, 0xfffffffe,
		0xffffffff };

	return chance(50) ? v[below(sizeof(v) / sizeof(v[0]))] :
	       (uint32_t)rnd();
}

/* The verbs' QP states (enum ib_qp_state), as uverbs takes them. */
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD, QPS_SQE, QPS_ERR };

/* Each QP's type, number and the state it should be in, by pool slot. */
static uint8_t qp_type[POOL], qp_state[POOL];
static uint32_t qp_num[POOL];

/* Remember @h; its pool slot. */
static unsigned int put_handle(int type, uint32_t h)
{
	unsigned int i = nhandles[type] < POOL ? nhandles[type]++ : below(POOL);

	handles[type][i] = h;
	return i;
}

/* A handle of @type: one the kernel gave, mostly, or a wrong one. */
static uint32_t pick(int type)
{
	if (!nhandles[type] || chance(8))
		return chance(50) ? wild32() : below(64);
	if (chance(5))
		return handles[below(H_TYPES)][0];
	return handles[type][below(nhandles[type])];
}

/* Forget @h of @type after a successful destroy. */
static void drop_handle(int type, uint32_t h)
{
	for (unsigned int i = 0; i < nhandles[type]; i++) {
		if (handles[type][i] == h) {
			unsigned int last = --nhandles[type];

			handles[type][i] = handles[type][last];
			if (type == H_QP) {
				qp_type[i] = qp_type[last];
				qp_state[i] = qp_state[last];
				qp_num[i] = qp_num[last];
			}
			return;
		}
	}
}

static void put_key(uint64_t key, uint64_t len)
{
	unsigned int i = nkeys < POOL ? nkeys++ : below(POOL);

	keys[i] = key;
	key_len[i] = len;
}

/* Where the kernel should write a response: scratch, or somewhere bad. */
static uint64_t resp_ptr(void)
{
	static const uint64_t bad[] = { 0, 16, 0xffff888000000000ULL,
					0x00007ffffffff000ULL, 1ULL << 63 };

	if (chance(3))
		return bad[below(sizeof(bad) / sizeof(bad[0]))];
	return (uintptr_t)scratch;
}

static void record(enum op op, long rc, int err)
{
	st[op].calls++;
	if (rc >= 0)
		st[op].ok++;
	else
		st[op].err[err > 0 && err < MAX_ERRNO ? err : MAX_ERRNO]++;
	if (verbose)
		fprintf(stderr, "%s: %ld %s\n", op_name[op], rc,
			rc < 0 ? strerror(err) : "");
}

/*
 * Send a legacy write() command: header, @cmd of @len bytes, then
 * @drv_in bytes of driver udata; the response is @out bytes.
 * Mutations: the header's word counts off, the write's length off,
 * random driver data and a random command number.
 */
static long send_write(enum op op, uint32_t command, const void *cmd,
		       size_t len, size_t drv_in, size_t out)
{
	uint8_t buf[512];
	struct ib_uverbs_cmd_hdr hdr;
	size_t total = sizeof(hdr) + len + drv_in;
	size_t wlen;
	long rc;

	if (total > sizeof(buf))
		total = sizeof(buf);
	hdr.command = command;
	hdr.in_words = total / 4;
	hdr.out_words = (out + 3) / 4;
	memcpy(buf + sizeof(hdr), cmd, len < sizeof(buf) - sizeof(hdr) ?
	       len : sizeof(buf) - sizeof(hdr));
	for (size_t i = sizeof(hdr) + len; i < total; i++)
		buf[i] = chance(70) ? 0 : (uint8_t)rnd();
	wlen = total;
	if (chance(6))
		hdr.in_words = below(total / 4 + 4);
	if (chance(6))
		hdr.out_words = below(hdr.out_words + 8);
	if (chance(3))
		hdr.command = chance(50) ? below(64) : (uint32_t)rnd();
	if (chance(4))
		wlen = below(total + 16);
	if (chance(4) && len > 8) {
		/* A random byte of the command itself. */
		buf[sizeof(hdr) + 8 + below(len - 8)] = (uint8_t)rnd();
	}
	memcpy(buf, &hdr, sizeof(hdr));
	memset(scratch, 0, out < SCRATCH ? out : SCRATCH);
	rc = write(fd, buf, wlen);
	record(op, rc, errno);
	return rc;
}

/*
 * An extended write() command (IB_USER_VERBS_CMD_FLAG_EXTENDED): the
 * header, the extended header with the response, @cmd, driver udata.
 */
static long send_write_ex(enum op op, uint32_t command, const void *cmd,
			  size_t len, size_t drv_in, size_t out,
			  size_t drv_out)
{
	uint8_t buf[512];
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_ex_cmd_hdr ex;
	size_t total = sizeof(hdr) + sizeof(ex) + len + drv_in;
	long rc;

	if (total > sizeof(buf))
		return -1;
	hdr.command = IB_USER_VERBS_CMD_FLAG_EXTENDED | command;
	hdr.in_words = len / 8;
	hdr.out_words = out / 8;
	ex.response = resp_ptr();
	ex.provider_in_words = drv_in / 8;
	ex.provider_out_words = drv_out / 8;
	ex.cmd_hdr_reserved = chance(3) ? (uint32_t)rnd() : 0;
	if (chance(6))
		hdr.in_words = below(hdr.in_words + 4);
	if (chance(6))
		ex.provider_out_words = below(ex.provider_out_words + 8);
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + sizeof(hdr), &ex, sizeof(ex));
	memcpy(buf + sizeof(hdr) + sizeof(ex), cmd, len);
	for (size_t i = total - drv_in; i < total; i++)
		buf[i] = chance(70) ? 0 : (uint8_t)rnd();
	memset(scratch, 0, SCRATCH);
	rc = write(fd, buf, chance(4) ? below(total + 16) : total);
	record(op, rc, errno);
	return rc;
}

/* ---- ioctl path ------------------------------------------------------ */

struct ioctl_buf {
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr attrs[8];
};

static void attr_ptr(struct ioctl_buf *b, uint16_t id, void *p, uint16_t len,
		     uint16_t flags)
{
	struct ib_uverbs_attr *a = &b->attrs[b->hdr.num_attrs++];

	memset(a, 0, sizeof(*a));
	a->attr_id = id;
	a->len = len;
	a->flags = flags;
	a->data = (uintptr_t)p;
}

static long send_ioctl(enum op op, struct ioctl_buf *b)
{
	long rc;

	b->hdr.length = sizeof(b->hdr) + b->hdr.num_attrs * sizeof(b->attrs[0]);
	if (chance(4))
		b->hdr.length = below(sizeof(*b) + 8);
	if (chance(3))
		b->hdr.reserved1 = rnd();
	rc = ioctl(fd, RDMA_VERBS_IOCTL, b);
	record(op, rc, errno);
	return rc;
}

static void op_get_context_ioctl(void)
{
	struct ioctl_buf b;
	struct wren_ib_alloc_ucontext_req *req = (void *)(scratch + 1024);

	memset(&b, 0, sizeof(b));
	b.hdr.object_id = UVERBS_OBJECT_DEVICE;
	b.hdr.method_id = UVERBS_METHOD_GET_CONTEXT;
	memset(req, 0, sizeof(*req));
	if (chance(10))
		req->comp_mask = wild32();
	attr_ptr(&b, UVERBS_ATTR_GET_CONTEXT_NUM_COMP_VECTORS, scratch, 4,
		 chance(90) ? UVERBS_ATTR_F_MANDATORY : 0);
	attr_ptr(&b, UVERBS_ATTR_GET_CONTEXT_CORE_SUPPORT, scratch + 8, 8, 0);
	attr_ptr(&b, UVERBS_ATTR_UHW_IN, req,
		 chance(90) ? sizeof(*req) : below(64), 0);
	attr_ptr(&b, UVERBS_ATTR_UHW_OUT, scratch + 2048,
		 chance(90) ? sizeof(struct wren_ib_alloc_ucontext_resp) :
		 below(128), 0);
	if (send_ioctl(OP_GET_CONTEXT_IOCTL, &b) == 0) {
		struct wren_ib_alloc_ucontext_resp *r = (void *)(scratch + 2048);

		put_key(r->db_mmap_key, r->db_page_size);
	}
}

/*
 * Any object, any method, up to 6 attributes of random ids, flags and
 * sizes pointing into scratch, or inline, or at handles we hold.
 */
static void op_random_ioctl(void)
{
	struct ioctl_buf b;
	unsigned int n = below(7);

	memset(&b, 0, sizeof(b));
	b.hdr.object_id = chance(80) ? below(UVERBS_OBJECT_ASYNC_EVENT + 2) :
			  (uint16_t)rnd();
	b.hdr.method_id = chance(90) ? below(12) : (uint16_t)rnd();
	if (chance(10))
		b.hdr.object_id |= UVERBS_ID_NS_MASK & rnd();
	for (unsigned int i = 0; i < n; i++) {
		struct ib_uverbs_attr *a = &b.attrs[b.hdr.num_attrs++];

		a->attr_id = chance(80) ? below(12) : (uint16_t)rnd();
		if (chance(15))
			a->attr_id = UVERBS_ATTR_UHW_IN + below(2);
		a->flags = chance(50) ? UVERBS_ATTR_F_MANDATORY : 0;
		if (chance(5))
			a->flags = (uint16_t)rnd();
		switch (below(4)) {
		case 0:	/* a pointer into scratch */
			a->len = below(256);
			a->data = (uintptr_t)scratch + 4096 + 256 * below(32);
			break;
		case 1:	/* inline */
			a->len = below(9);
			a->data = rnd();
			break;
		case 2:	/* an object's handle */
			a->len = 0;
			a->data = pick(below(H_TYPES));
			break;
		default:	/* an array of handles, or anything */
			a->len = 4 * below(8);
			a->data = chance(80) ? (uintptr_t)scratch :
				  resp_ptr();
			for (unsigned int j = 0; j < 8; j++)
				((uint32_t *)scratch)[j] = pick(below(H_TYPES));
			break;
		}
		if (chance(3))
			a->attr_data.reserved = (uint16_t)rnd();
	}
	send_ioctl(OP_RANDOM_IOCTL, &b);
}

/* ---- write path -------------------------------------------------------- */

static void op_get_context(void)
{
	struct ib_uverbs_get_context c = { .response = resp_ptr() };
	size_t out = sizeof(struct ib_uverbs_get_context_resp) +
		     sizeof(struct wren_ib_alloc_ucontext_resp);

	if (send_write(OP_GET_CONTEXT, IB_USER_VERBS_CMD_GET_CONTEXT, &c,
		       sizeof(c), sizeof(struct wren_ib_alloc_ucontext_req),
		       out) >= 0 && c.response == (uintptr_t)scratch) {
		struct ib_uverbs_get_context_resp *r = (void *)scratch;
		struct wren_ib_alloc_ucontext_resp *w = (void *)(r + 1);

		put_key(w->db_mmap_key, w->db_page_size);
		/* The async event file: ours to close with the session. */
		if (chance(50) && r->async_fd > 2)
			close(r->async_fd);
	}
}

static void op_query_device(void)
{
	struct ib_uverbs_query_device c = { .response = resp_ptr() };

	send_write(OP_QUERY_DEVICE, IB_USER_VERBS_CMD_QUERY_DEVICE, &c,
		   sizeof(c), 0, sizeof(struct ib_uverbs_query_device_resp));
}

static void op_query_port(void)
{
	struct ib_uverbs_query_port c = {
		.response = resp_ptr(),
		.port_num = chance(80) ? 1 : (uint8_t)rnd(),
	};

	send_write(OP_QUERY_PORT, IB_USER_VERBS_CMD_QUERY_PORT, &c, sizeof(c),
		   0, sizeof(struct ib_uverbs_query_port_resp));
}

static void op_alloc_pd(void)
{
	struct ib_uverbs_alloc_pd c = { .response = resp_ptr() };

	if (send_write(OP_ALLOC_PD, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c),
		       0, sizeof(struct ib_uverbs_alloc_pd_resp) +
		       sizeof(struct wren_ib_alloc_pd_resp)) >= 0 &&
	    c.response == (uintptr_t)scratch)
		put_handle(H_PD, ((struct ib_uverbs_alloc_pd_resp *)scratch)->
			   pd_handle);
}

static void op_destroy_simple(enum op op, uint32_t command, int type)
{
	uint32_t c[4] = { pick(type), 0, 0, 0 };

	if (send_write(op, command, c, 4, 0, 0) >= 0)
		drop_handle(type, c[0]);
}

/* A destroy with a response (CQ, QP, SRQ). */
static void op_destroy_resp(enum op op, uint32_t command, int type,
			    size_t out)
{
	struct ib_uverbs_destroy_cq c = {
		.response = resp_ptr(), .cq_handle = pick(type),
	};

	if (chance(3))
		c.reserved = wild32();
	if (send_write(op, command, &c, sizeof(c), 0, out) >= 0)
		drop_handle(type, c.cq_handle);
}

static void op_reg_mr(void)
{
	struct ib_uverbs_reg_mr c = {
		.response = resp_ptr(),
		.pd_handle = pick(H_PD),
	};
	uint64_t off = below(MR_AREA);

	c.start = (uintptr_t)mr_area + off;
	c.length = 1 + below(MR_AREA - off);
	if (chance(70))
		c.length = 1 + below(c.length < 65536 ? c.length : 65536);
	if (chance(10))
		c.start = rnd() & (chance(50) ? ~0ULL : 0x00007fffffffffffULL);
	if (chance(10))
		c.length = chance(50) ? 0 : rnd();
	c.hca_va = chance(70) ? c.start : rnd();
	c.access_flags = chance(70) ? below(16) : wild32();
	if (send_write(OP_REG_MR, IB_USER_VERBS_CMD_REG_MR, &c, sizeof(c), 0,
		       sizeof(struct ib_uverbs_reg_mr_resp)) >= 0 &&
	    c.response == (uintptr_t)scratch)
		put_handle(H_MR,
			   ((struct ib_uverbs_reg_mr_resp *)scratch)->mr_handle);
}

static void op_comp_channel(void)
{
	struct ib_uverbs_create_comp_channel c = { .response = resp_ptr() };

	if (send_write(OP_COMP_CHANNEL, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL,
		       &c, sizeof(c), 0,
		       sizeof(struct ib_uverbs_create_comp_channel_resp)) >= 0 &&
	    c.response == (uintptr_t)scratch)
		put_handle(H_CHANNEL, *(uint32_t *)scratch);
}

static uint32_t depth(void)
{
	return chance(80) ? 1 + below(chance(50) ? 64 : 4096) : wild32();
}

static void cq_resp(uint64_t response)
{
	struct ib_uverbs_create_cq_resp *r = (void *)scratch;
	struct wren_ib_create_cq_resp *w = (void *)(r + 1);

	if (response != (uintptr_t)scratch)
		return;
	put_handle(H_CQ, r->cq_handle);
	put_key(w->ring_mmap_key, w->ring_size);
}

static void op_create_cq(void)
{
	struct {
		struct ib_uverbs_create_cq c;
		struct wren_ib_create_cq_req d;
	} c = {
		.c = {
			.response = resp_ptr(),
			.user_handle = rnd(),
			.cqe = depth(),
			.comp_vector = chance(80) ? 0 : wild32(),
			.comp_channel = chance(70) ? -1 : (int32_t)pick(H_CHANNEL),
		},
	};

	if (chance(5))
		c.d.comp_mask = wild32();
	if (send_write(OP_CREATE_CQ, IB_USER_VERBS_CMD_CREATE_CQ, &c,
		       sizeof(c), chance(10) ? 8 * below(4) : 0,
		       sizeof(struct ib_uverbs_create_cq_resp) +
		       sizeof(struct wren_ib_create_cq_resp)) >= 0)
		cq_resp(c.c.response);
}

static void op_create_cq_ex(void)
{
	struct ib_uverbs_ex_create_cq c = {
		.user_handle = rnd(),
		.cqe = depth(),
		.comp_vector = chance(80) ? 0 : wild32(),
		.comp_channel = chance(70) ? -1 : (int32_t)pick(H_CHANNEL),
		.flags = chance(80) ? 0 : wild32(),
	};
	struct wren_ib_create_cq_req d = { 0 };
	uint8_t buf[sizeof(c) + sizeof(d)];

	if (chance(5))
		d.comp_mask = wild32();
	memcpy(buf, &c, sizeof(c));
	memcpy(buf + sizeof(c), &d, sizeof(d));
	if (send_write_ex(OP_CREATE_CQ_EX, IB_USER_VERBS_EX_CMD_CREATE_CQ, buf,
			  sizeof(c), sizeof(d),
			  sizeof(struct ib_uverbs_ex_create_cq_resp),
			  sizeof(struct wren_ib_create_cq_resp)) >= 0)
		cq_resp((uintptr_t)scratch);
}

static void op_resize_cq(void)
{
	struct {
		struct ib_uverbs_resize_cq c;
		struct wren_ib_resize_cq_req d;
	} c = {
		.c = { .response = resp_ptr(), .cq_handle = pick(H_CQ),
		       .cqe = depth() },
	};

	send_write(OP_RESIZE_CQ, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c), 0,
		   sizeof(struct ib_uverbs_resize_cq_resp) +
		   sizeof(struct wren_ib_resize_cq_resp));
}

static void op_poll_cq(void)
{
	struct ib_uverbs_poll_cq c = {
		.response = resp_ptr(), .cq_handle = pick(H_CQ),
		.ne = chance(80) ? below(16) : wild32(),
	};

	send_write(OP_POLL_CQ, IB_USER_VERBS_CMD_POLL_CQ, &c, sizeof(c), 0,
		   sizeof(struct ib_uverbs_poll_cq_resp) +
		   (c.ne < 16 ? c.ne : 16) * sizeof(struct ib_uverbs_wc));
}

static void op_notify_cq(void)
{
	struct ib_uverbs_req_notify_cq c = {
		.cq_handle = pick(H_CQ), .solicited_only = below(3),
	};

	send_write(OP_NOTIFY_CQ, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &c, sizeof(c),
		   0, 0);
}

static void op_create_qp(void)
{
	static const uint8_t types[] = { IB_UVERBS_QPT_RC, IB_UVERBS_QPT_UD,
		IB_UVERBS_QPT_RC, IB_UVERBS_QPT_UD, IB_UVERBS_QPT_DRIVER,
		IB_UVERBS_QPT_UC, IB_UVERBS_QPT_RAW_PACKET, IB_UVERBS_QPT_XRC_INI,
		IB_UVERBS_QPT_XRC_TGT, 0, 1 };
	struct {
		struct ib_uverbs_create_qp c;
		struct wren_ib_create_qp_req d;
	} c = {
		.c = {
			.response = resp_ptr(),
			.user_handle = rnd(),
			.pd_handle = pick(H_PD),
			.send_cq_handle = pick(H_CQ),
			.recv_cq_handle = pick(H_CQ),
			.max_send_wr = depth(),
			.max_recv_wr = depth(),
			.max_send_sge = chance(80) ? below(8) : wild32(),
			.max_recv_sge = chance(80) ? below(8) : wild32(),
			.max_inline_data = chance(80) ? below(512) : wild32(),
			.sq_sig_all = below(2),
			.qp_type = types[below(sizeof(types))],
		},
	};
	struct ib_uverbs_create_qp_resp *r = (void *)scratch;
	struct wren_ib_create_qp_resp *w = (void *)(r + 1);

	if (chance(20)) {
		c.c.is_srq = 1;
		c.c.srq_handle = pick(H_SRQ);
	}
	if (c.c.qp_type == IB_UVERBS_QPT_DRIVER || chance(5)) {
		c.d.driver_qp_type = chance(80) ? WREN_IB_QP_DRIVER_TYPE_RD :
				     wild32();
		c.d.flags = below(4);
	}
	if (chance(5))
		c.d.flags = wild32();
	if (chance(5))
		c.d.comp_mask = wild32();
	if (chance(3))
		c.d.reserved = wild32();
	if (send_write(OP_CREATE_QP, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c),
		       0, sizeof(*r) + sizeof(*w)) >= 0 &&
	    c.c.response == (uintptr_t)scratch) {
		unsigned int i = put_handle(H_QP, r->qp_handle);

		qp_type[i] = c.c.qp_type;
		qp_state[i] = QPS_RESET;
		qp_num[i] = r->qpn;
		put_key(w->sq_mmap_key, w->sq_ring_size);
		put_key(w->rq_mmap_key, w->rq_ring_size);
	}
}

static void random_dest(struct ib_uverbs_qp_dest *d)
{
	/* The GIDs of the adapter's address, or anything. */
	static const uint8_t v4[16] = { [10] = 0xff, [11] = 0xff, 198, 18, 0, 1 };

	memcpy(d->dgid, v4, sizeof(v4));
	if (chance(30))
		for (unsigned int i = 0; i < 16; i++)
			d->dgid[i] = (uint8_t)rnd();
	d->flow_label = chance(80) ? 0 : wild32();
	d->sgid_index = chance(80) ? below(4) : (uint8_t)rnd();
	d->hop_limit = (uint8_t)rnd();
	d->traffic_class = (uint8_t)rnd();
	d->sl = below(16);
	d->static_rate = chance(90) ? 0 : (uint8_t)rnd();
	d->is_global = chance(90);
	d->port_num = chance(90) ? 1 : (uint8_t)rnd();
}

/* ib_verbs.h's enum ib_qp_attr_mask, which uverbs takes as is. */
enum {
	QPA_STATE = 1 << 0, QPA_ACCESS = 1 << 3, QPA_PKEY = 1 << 4,
	QPA_PORT = 1 << 5, QPA_QKEY = 1 << 6, QPA_AV = 1 << 7,
	QPA_MTU = 1 << 8, QPA_TIMEOUT = 1 << 9, QPA_RETRY = 1 << 10,
	QPA_RNR_RETRY = 1 << 11, QPA_RQ_PSN = 1 << 12, QPA_RD_ATOMIC = 1 << 13,
	QPA_MIN_RNR = 1 << 15, QPA_SQ_PSN = 1 << 16,
	QPA_DEST_RD_ATOMIC = 1 << 17, QPA_DEST_QPN = 1 << 20,
};

/* The attributes the verbs require for the step to @state. */
static uint32_t step_mask(uint8_t type, uint8_t state)
{
	bool rc = type == IB_UVERBS_QPT_RC;

	switch (state) {
	case QPS_INIT:
		return QPA_STATE | QPA_PKEY | QPA_PORT |
		       (rc ? QPA_ACCESS : QPA_QKEY);
	case QPS_RTR:
		return QPA_STATE | (rc ? QPA_AV | QPA_MTU | QPA_DEST_QPN |
				    QPA_RQ_PSN | QPA_DEST_RD_ATOMIC |
				    QPA_MIN_RNR : 0);
	case QPS_RTS:
		return QPA_STATE | QPA_SQ_PSN | (rc ? QPA_TIMEOUT | QPA_RETRY |
				    QPA_RNR_RETRY | QPA_RD_ATOMIC : 0);
	default:
		return QPA_STATE;
	}
}

/*
 * Mostly a QP's next step (RESET, INIT, RTR, RTS, at times ERR or back
 * to RESET) with what the verbs require and values in range; else any
 * state with any attributes.  PSNs stay within 24 bits: ib_core masks
 * larger ones itself, and warns in the kernel log when it does.
 */
static void op_modify_qp(void)
{
	struct ib_uverbs_modify_qp c;
	unsigned int i = nhandles[H_QP] ? below(nhandles[H_QP]) : 0;
	bool step = nhandles[H_QP] && chance(70);

	memset(&c, 0, sizeof(c));
	c.qp_handle = step ? handles[H_QP][i] : pick(H_QP);
	c.qp_state = chance(90) ? below(7) : (uint8_t)rnd();
	c.cur_qp_state = below(7);
	/* IB_QP_STATE, mostly with other attributes of the verbs. */
	c.attr_mask = 1 | ((uint32_t)rnd() & (chance(80) ? 0x1fffff : ~0U));
	c.qkey = chance(70) ? 0x11111111 : wild32();
	c.rq_psn = wild32() & 0xffffff;
	c.sq_psn = wild32() & 0xffffff;
	c.dest_qp_num = chance(70) ? below(64) : wild32();
	c.qp_access_flags = chance(70) ? below(16) : wild32();
	c.pkey_index = chance(90) ? 0 : (uint16_t)rnd();
	c.path_mtu = chance(90) ? 1 + below(5) : (uint8_t)rnd();
	c.max_rd_atomic = chance(80) ? below(17) : (uint8_t)rnd();
	c.max_dest_rd_atomic = chance(80) ? below(17) : (uint8_t)rnd();
	c.min_rnr_timer = below(32);
	c.port_num = chance(90) ? 1 : (uint8_t)rnd();
	c.timeout = chance(80) ? below(32) : (uint8_t)rnd();
	c.retry_cnt = below(8);
	c.rnr_retry = below(8);
	random_dest(&c.dest);
	random_dest(&c.alt_dest);
	if (step) {
		uint8_t to = qp_state[i] < QPS_RTS ? qp_state[i] + 1 :
			     QPS_RESET;

		if (chance(10))
			to = chance(50) ? QPS_ERR : QPS_RESET;
		c.qp_state = to;
		c.attr_mask = step_mask(qp_type[i], to);
		if (chance(30) && nhandles[H_QP])
			c.dest_qp_num = qp_num[below(nhandles[H_QP])];
		c.qp_access_flags &= 0xf;
		c.dest.port_num = c.port_num = 1;
		c.dest.is_global = 1;
	}
	if (send_write(OP_MODIFY_QP, IB_USER_VERBS_CMD_MODIFY_QP, &c, sizeof(c),
		       chance(10) ? 8 * below(4) : 0, 0) >= 0 && step)
		qp_state[i] = c.qp_state;
}

static void op_query_qp(void)
{
	struct ib_uverbs_query_qp c = {
		.response = resp_ptr(), .qp_handle = pick(H_QP),
		.attr_mask = wild32(),
	};

	send_write(OP_QUERY_QP, IB_USER_VERBS_CMD_QUERY_QP, &c, sizeof(c), 0,
		   sizeof(struct ib_uverbs_query_qp_resp));
}

static void op_create_srq(void)
{
	struct ib_uverbs_create_srq c = {
		.response = resp_ptr(),
		.user_handle = rnd(),
		.pd_handle = pick(H_PD),
		.max_wr = depth(),
		.max_sge = chance(80) ? below(8) : wild32(),
		.srq_limit = chance(80) ? below(64) : wild32(),
	};
	struct ib_uverbs_create_srq_resp *r = (void *)scratch;
	struct wren_ib_create_srq_resp *w = (void *)(r + 1);

	if (send_write(OP_CREATE_SRQ, IB_USER_VERBS_CMD_CREATE_SRQ, &c,
		       sizeof(c), 0, sizeof(*r) + sizeof(*w)) >= 0 &&
	    c.response == (uintptr_t)scratch) {
		put_handle(H_SRQ, r->srq_handle);
		put_key(w->mmap_key, w->ring_size);
	}
}

static void op_modify_srq(void)
{
	struct {
		struct ib_uverbs_modify_srq c;
		struct wren_ib_modify_srq_req d;
	} c = {
		.c = {
			.srq_handle = pick(H_SRQ),
			.attr_mask = chance(80) ? 1 + below(3) : wild32(),
			.max_wr = depth(),
			.srq_limit = chance(80) ? below(64) : wild32(),
		},
	};

	/* A resize's new ring comes back through resp_addr. */
	c.d.resp_addr = chance(80) ? (uintptr_t)scratch + 8192 : resp_ptr();
	if (chance(5))
		c.d.comp_mask = wild32();
	if (chance(3))
		c.d.reserved = wild32();
	send_write(OP_MODIFY_SRQ, IB_USER_VERBS_CMD_MODIFY_SRQ, &c,
		   chance(70) ? sizeof(c) : sizeof(c.c), 0, 0);
}

static void op_create_ah(void)
{
	struct ib_uverbs_create_ah c = {
		.response = resp_ptr(),
		.user_handle = rnd(),
		.pd_handle = pick(H_PD),
	};
	struct ib_uverbs_qp_dest d;

	random_dest(&d);
	memcpy(c.attr.grh.dgid, d.dgid, 16);
	c.attr.grh.flow_label = d.flow_label;
	c.attr.grh.sgid_index = d.sgid_index;
	c.attr.grh.hop_limit = d.hop_limit;
	c.attr.grh.traffic_class = d.traffic_class;
	c.attr.dlid = chance(90) ? 0 : (uint16_t)rnd();
	c.attr.sl = d.sl;
	c.attr.static_rate = d.static_rate;
	c.attr.is_global = d.is_global;
	c.attr.port_num = d.port_num;
	if (send_write(OP_CREATE_AH, IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c),
		       0, sizeof(struct ib_uverbs_create_ah_resp) +
		       sizeof(struct wren_ib_create_ah_resp)) >= 0 &&
	    c.response == (uintptr_t)scratch)
		put_handle(H_AH, *(uint32_t *)scratch);
}

static void op_random_write(void)
{
	uint8_t buf[256];
	struct ib_uverbs_cmd_hdr *hdr = (void *)buf;
	size_t len = 8 + below(sizeof(buf) - 8);

	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)rnd();
	hdr->command = chance(80) ? below(IB_USER_VERBS_CMD_OPEN_QP + 2) :
		       (uint32_t)rnd();
	/*
	 * Not MODIFY_QP: its random PSNs would have ib_core warn in the
	 * kernel log (op_modify_qp covers it).
	 */
	if ((hdr->command & 0xff) == IB_USER_VERBS_CMD_MODIFY_QP)
		hdr->command = IB_USER_VERBS_CMD_QUERY_QP;
	if (chance(20))
		hdr->command |= IB_USER_VERBS_CMD_FLAG_EXTENDED;
	hdr->in_words = chance(80) ? len / 4 : (uint16_t)rnd();
	hdr->out_words = below(64);
	/* A response pointer, if the command has one, into scratch. */
	if (len >= 16 && chance(80)) {
		uint64_t p = (uintptr_t)scratch;

		memcpy(buf + 8, &p, 8);
	}
	send_write(OP_RANDOM_WRITE, hdr->command, buf + 8, len - 8, 0,
		   hdr->out_words * 4);
}

/*
 * Map a key the driver announced (or a wrong one) and write garbage into
 * it: a ring full of random WQEs, a doorbell page rung with random
 * values.  The device must refuse what makes no sense.
 */
static void op_mmap(void)
{
	uint64_t key = 0, len = 4096;
	void *p;

	if (nkeys && chance(85)) {
		unsigned int i = below(nkeys);

		key = keys[i];
		len = key_len[i] ? key_len[i] : 4096;
	} else {
		key = (uint64_t)below(64) << 12;
	}
	if (chance(10))
		len = 4096 * (1 + below(16));
	if (chance(5))
		key += 4096 * below(4);
	if (len > (1 << 24))
		len = 4096;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, key);
	record(OP_MMAP, p == MAP_FAILED ? -1 : 0, errno);
	if (p == MAP_FAILED)
		return;
	if (chance(60)) {
		unsigned int n = 1 + below(16);

		for (unsigned int i = 0; i < n; i++) {
			uint64_t off = (below(len) & ~3ULL);
			uint32_t v = chance(50) ? below(256) : (uint32_t)rnd();

			memcpy((uint8_t *)p + off, &v, 4);
		}
	} else {
		volatile uint8_t *b = p;
		uint8_t x = 0;

		for (uint64_t i = 0; i < len; i += 512)
			x ^= b[i];
		(void)x;
	}
	munmap(p, len);
}

static void session_open(const char *dev)
{
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "wren_uverbs_fuzz: %s: %s\n", dev,
			strerror(errno));
		exit(2);
	}
	memset(nhandles, 0, sizeof(nhandles));
	for (unsigned int t = 0; t < H_TYPES; t++)
		for (unsigned int i = 0; i < POOL; i++)
			handles[t][i] = (uint32_t)rnd();
	nkeys = 0;
	/* Most sessions start with a context, one way or the other. */
	if (chance(90)) {
		if (chance(50))
			op_get_context();
		else
			op_get_context_ioctl();
	}
}

/* Closing the device, and file descriptors the kernel gave. */
static void session_close(void)
{
	record(OP_CLOSE, close(fd), errno);
	fd = -1;
	/* The async event and completion channel files it gave. */
	close_range(3, ~0U, 0);
}

/* --only: the one command drawn, or OP_COUNT for the whole mix. */
static enum op only = OP_COUNT;

static enum op draw(void)
{
	static unsigned int sum;
	unsigned int x;

	if (only != OP_COUNT)
		return only;
	if (!sum)
		for (int i = 0; i < OP_COUNT; i++)
			sum += op_weight[i];
	x = below(sum);
	for (int i = 0; i < OP_COUNT; i++) {
		if (x < op_weight[i])
			return i;
		x -= op_weight[i];
	}
	return OP_ALLOC_PD;
}

static void run_one(enum op op)
{
	switch (op) {
	case OP_GET_CONTEXT: op_get_context(); break;
	case OP_GET_CONTEXT_IOCTL: op_get_context_ioctl(); break;
	case OP_QUERY_DEVICE: op_query_device(); break;
	case OP_QUERY_PORT: op_query_port(); break;
	case OP_ALLOC_PD: op_alloc_pd(); break;
	case OP_DEALLOC_PD:
		op_destroy_simple(op, IB_USER_VERBS_CMD_DEALLOC_PD, H_PD);
		break;
	case OP_REG_MR: op_reg_mr(); break;
	case OP_DEREG_MR:
		op_destroy_simple(op, IB_USER_VERBS_CMD_DEREG_MR, H_MR);
		break;
	case OP_COMP_CHANNEL: op_comp_channel(); break;
	case OP_CREATE_CQ: op_create_cq(); break;
	case OP_CREATE_CQ_EX: op_create_cq_ex(); break;
	case OP_RESIZE_CQ: op_resize_cq(); break;
	case OP_POLL_CQ: op_poll_cq(); break;
	case OP_NOTIFY_CQ: op_notify_cq(); break;
	case OP_DESTROY_CQ:
		op_destroy_resp(op, IB_USER_VERBS_CMD_DESTROY_CQ, H_CQ,
				sizeof(struct ib_uverbs_destroy_cq_resp));
		break;
	case OP_CREATE_QP: op_create_qp(); break;
	case OP_MODIFY_QP: op_modify_qp(); break;
	case OP_QUERY_QP: op_query_qp(); break;
	case OP_DESTROY_QP:
		op_destroy_resp(op, IB_USER_VERBS_CMD_DESTROY_QP, H_QP,
				sizeof(struct ib_uverbs_destroy_qp_resp));
		break;
	case OP_CREATE_SRQ: op_create_srq(); break;
	case OP_MODIFY_SRQ: op_modify_srq(); break;
	case OP_DESTROY_SRQ:
		op_destroy_resp(op, IB_USER_VERBS_CMD_DESTROY_SRQ, H_SRQ,
				sizeof(struct ib_uverbs_destroy_srq_resp));
		break;
	case OP_CREATE_AH: op_create_ah(); break;
	case OP_DESTROY_AH:
		op_destroy_simple(op, IB_USER_VERBS_CMD_DESTROY_AH, H_AH);
		break;
	case OP_RANDOM_WRITE: op_random_write(); break;
	case OP_RANDOM_IOCTL: op_random_ioctl(); break;
	case OP_MMAP: op_mmap(); break;
	case OP_CLOSE: break;
	case OP_COUNT: break;
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void report(double secs, uint64_t seed, uint64_t sessions)
{
	uint64_t calls = 0, ok = 0, err[MAX_ERRNO + 1] = { 0 };

	for (int i = 0; i < OP_COUNT; i++) {
		if (!st[i].calls)
			continue;
		calls += st[i].calls;
		ok += st[i].ok;
		printf("  %-18s %8" PRIu64 " calls %8" PRIu64 " ok", op_name[i],
		       st[i].calls, st[i].ok);
		for (int e = 1; e <= MAX_ERRNO; e++) {
			err[e] += st[i].err[e];
			if (st[i].err[e])
				printf(" %s:%" PRIu64, e < MAX_ERRNO ?
				       strerrorname_np(e) ?: "?" : "other",
				       st[i].err[e]);
		}
		printf("\n");
	}
	printf("errno:");
	for (int e = 1; e <= MAX_ERRNO; e++)
		if (err[e])
			printf(" %s:%" PRIu64, e < MAX_ERRNO ?
			       strerrorname_np(e) ?: "?" : "other", err[e]);
	printf("\n");
	printf("uverbs-fuzz: seed %" PRIu64 ": %" PRIu64 " commands (%" PRIu64
	       " ok) in %" PRIu64 " sessions, %.0f s, %.0f/s\n", seed, calls,
	       ok, sessions, secs, calls / (secs > 0 ? secs : 1));
}

static void usage(void)
{
	fprintf(stderr,
		"usage: wren_uverbs_fuzz [--device PATH] [--seconds N] "
		"[--seed S] [--ops N] [--only COMMAND] [--verbose]\n");
	exit(2);
}

static enum op op_by_name(const char *name)
{
	for (int i = 0; i < OP_COUNT; i++)
		if (!strcmp(op_name[i], name))
			return i;
	fprintf(stderr, "wren_uverbs_fuzz: no command %s\n", name);
	usage();
	return OP_COUNT;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/infiniband/uverbs0";
	double seconds = 10, start;
	uint64_t seed = 0, max_ops = 0, done = 0, sessions = 0;
	bool have_seed = false;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--device") && i + 1 < argc) {
			dev = argv[++i];
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = strtod(argv[++i], NULL);
		} else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			seed = strtoull(argv[++i], NULL, 0);
			have_seed = true;
		} else if (!strcmp(argv[i], "--ops") && i + 1 < argc) {
			max_ops = strtoull(argv[++i], NULL, 0);
		} else if (!strcmp(argv[i], "--only") && i + 1 < argc) {
			only = op_by_name(argv[++i]);
		} else if (!strcmp(argv[i], "--verbose")) {
			verbose = true;
		} else {
			usage();
		}
	}
	if (!have_seed) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ ts.tv_nsec ^
		       (uint64_t)getpid() << 32;
	}
	printf("uverbs-fuzz: seed %" PRIu64 " device %s uid %u\n", seed, dev,
	       (unsigned int)getuid());
	fflush(stdout);
	rng_seed(&rng, seed, 0);
	signal(SIGPIPE, SIG_IGN);
	scratch = mmap(NULL, SCRATCH, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mr_area = mmap(NULL, MR_AREA, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (scratch == MAP_FAILED || mr_area == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(mr_area, 0x5a, MR_AREA);
	start = now_s();
	while (now_s() - start < seconds && (!max_ops || done < max_ops)) {
		/* A session: 1 to 400 commands, then close with what is open. */
		unsigned int n = 1 + below(chance(80) ? 400 : 20);

		session_open(dev);
		sessions++;
		for (unsigned int i = 0; i < n; i++, done++) {
			enum op op = draw();

			if (op == OP_CLOSE)
				break;
			run_one(op);
		}
		session_close();
	}
	report(now_s() - start, seed, sessions);
	return 0;
}
