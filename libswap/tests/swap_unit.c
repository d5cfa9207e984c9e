// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * libswap's unit test (TAP): the formats and acceptance rules alone,
 * then the whole library on swap_fakeverbs.c, every endpoint in this
 * process.  A "background receiver" drains chosen endpoints whenever
 * any CQ is polled, so that a send blocked for room makes progress in
 * one thread; the slow-receiver, hostile and dead-partner cases turn it
 * off or tamper with the wire.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "swap.h"
#include "swap_wire.h"
#include "swap_fakeverbs.h"
#include "tap_ok.h"

/* ------------------------------------------------------------------ */
/* Payloads: byte i of message k from s to d.                          */

static uint8_t pat(unsigned int s, unsigned int d, uint32_t k, size_t i)
{
	uint64_t x = (uint64_t)s * 0x9e3779b97f4a7c15ULL ^ d * 0x85ebca6bULL ^
		     (uint64_t)k << 20 ^ (i / 8) * 0xc2b2ae3d27d4eb4fULL;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (uint8_t)(x >> (8 * (i % 8)));
}

static uint8_t *payload(unsigned int s, unsigned int d, uint32_t k,
			size_t len)
{
	uint8_t *b = malloc(len ? len : 1);
	size_t i;

	for (i = 0; i < len; i++)
		b[i] = pat(s, d, k, i);
	return b;
}

static bool check_payload(unsigned int s, unsigned int d, uint32_t k,
			  const uint8_t *b, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != pat(s, d, k, i))
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Endpoints in the test.                                              */

#define MAX_EPS		80

struct tep {
	struct swap_ep *ep;
	unsigned int name;
	bool auto_recv;		/* the background receiver drains it */
	bool busy;		/* inside swap_send(): not to be drained */
	bool bg_progress;	/* its library works, its application sleeps */
	/* what it received, per sender name: count, bad, misordered */
	uint32_t got[MAX_EPS], bad, errors;
	size_t sizes_seen;
	int last_err;
	int err_partner;
	/* expected sizes: sender name -> k -> size */
	size_t (*size_of)(unsigned int s, unsigned int d, uint32_t k);
	int peer_name[MAX_EPS];	/* partner id -> sender name */
};

static struct tep *g_eps[MAX_EPS];
static unsigned int g_neps;
static bool g_in_idle;

static void drain(struct tep *t)
{
	struct swap_msg m;
	int ret;

	while ((ret = swap_recv_nb(t->ep, &m)) != -EAGAIN) {
		unsigned int s;

		if (ret) {
			t->errors++;
			t->last_err = ret;
			t->err_partner = m.partner;
			continue;
		}
		s = (unsigned int)t->peer_name[m.partner];
		if (m.len != t->size_of(s, t->name, t->got[s]) ||
		    !check_payload(s, t->name, t->got[s], m.data, m.len))
			t->bad++;
		t->got[s]++;
		t->sizes_seen += m.len;
		swap_msg_release(t->ep, &m);
	}
}

/* Whenever a CQ is polled: the background receivers take what came. */
static void idle(void)
{
	unsigned int i;

	if (g_in_idle)
		return;
	g_in_idle = true;
	for (i = 0; i < g_neps; i++)
		if (g_eps[i] && g_eps[i]->auto_recv && !g_eps[i]->busy)
			drain(g_eps[i]);
		else if (g_eps[i] && g_eps[i]->bg_progress && !g_eps[i]->busy)
			swap_progress(g_eps[i]->ep);
	g_in_idle = false;
}

static size_t size_fixed_64(unsigned int s, unsigned int d, uint32_t k)
{
	(void)s;
	(void)d;
	(void)k;
	return 64;
}

static struct tep *tep_new(const struct swap_ep_attr *a)
{
	struct tep *t = calloc(1, sizeof(*t));

	t->ep = swap_ep_create(fake_pd(), a);
	if (!t->ep) {
		printf("Bail out! swap_ep_create: %s\n", strerror(errno));
		exit(1);
	}
	t->name = g_neps;
	t->size_of = size_fixed_64;
	memset(t->peer_name, -1, sizeof(t->peer_name));
	g_eps[g_neps++] = t;
	return t;
}

static void tep_free_all(void)
{
	unsigned int i;

	for (i = 0; i < g_neps; i++) {
		swap_ep_close(g_eps[i]->ep);
		free(g_eps[i]);
		g_eps[i] = NULL;
	}
	g_neps = 0;
	fake_tamper = NULL;
	fake_hold = false;
	fake_reverse = false;
	fake_pump();
}

/* Connect @x and @y: their ids for each other. */
static void link_eps(struct tep *x, struct tep *y, int *xy, int *yx)
{
	uint8_t ax[SWAP_ADDR_LEN], ay[SWAP_ADDR_LEN];

	*xy = swap_partner_add(x->ep);
	*yx = swap_partner_add(y->ep);
	if (*xy < 0 || *yx < 0 ||
	    swap_ep_addr(x->ep, *xy, ax, sizeof(ax)) != SWAP_ADDR_LEN ||
	    swap_ep_addr(y->ep, *yx, ay, sizeof(ay)) != SWAP_ADDR_LEN ||
	    swap_partner_connect(x->ep, *xy, ay, sizeof(ay)) ||
	    swap_partner_connect(y->ep, *yx, ax, sizeof(ax))) {
		printf("Bail out! connecting endpoints failed\n");
		exit(1);
	}
	x->peer_name[*xy] = (int)y->name;
	y->peer_name[*yx] = (int)x->name;
}

/* Two endpoints on @a, linked: the first; the second in *@y. */
static struct tep *pair_new(const struct swap_ep_attr *a, struct tep **y,
			    int *xy, int *yx)
{
	struct tep *x = tep_new(a);

	*y = tep_new(a);
	link_eps(x, *y, xy, yx);
	return x;
}

static int send_k(struct tep *from, struct tep *to, int id, uint32_t k,
		  int timeout)
{
	size_t len = to->size_of(from->name, to->name, k);
	uint8_t *b = payload(from->name, to->name, k, len);
	int ret;

	from->busy = true;
	ret = swap_send(from->ep, id, b, len, timeout);
	from->busy = false;

	free(b);
	return ret;
}

/* Let everything settle: the wire runs, the receivers take. */
static void settle(void)
{
	unsigned int i, round;

	for (round = 0; round < 50; round++) {
		for (i = 0; i < g_neps; i++)
			swap_progress(g_eps[i]->ep);
		idle();
	}
}


/* ------------------------------------------------------------------ */
/* The formats and rules alone.                                        */

static void t_wire(void)
{
	struct swap_addr a = {
		.transport = SWAP_TRANSPORT_RD, .lid = 3, .qpn = 77, .id = 5,
		.psn = 9, .fcb_addr = 0x1000, .fcb_rkey = 11,
		.pool_addr = 0x20000, .pool_rkey = 12, .pool_size = 1 << 20,
		.buf_size = 4096, .buf_count = 16, .max_msg_size = 64 << 20,
	}, b;
	struct swap_hdr h = { SWAP_MSG_WRITE, SWAP_F_FIRST, 0xfffffffe,
			      1234, 0x123456789aULL, 99999 }, g;
	struct swap_fcb f;
	uint8_t buf[SWAP_ADDR_LEN], hb2[SWAP_ADDR_LEN], blk[SWAP_FCB_LEN],
		hb[SWAP_HDR_LEN];
	const char *why;
	static const struct { unsigned int off; uint8_t val; const char *what; }
	bad[] = {
		{ 0, 0x00, "magic" }, { 4, 2, "version" },
		{ 5, 9, "transport" }, { 8, 0xff, "QP number (> 24 bits)" },
		{ 60, 0xff, "buffer size" }, { 72, 0xff, "buffer count" },
		{ 71, 0x01, "unaligned pool size" },
		{ 64, 0x7f, "huge pool size" },
		{ 80, 0xff, "huge message size" },
		{ 47, 0x03, "misaligned block" },
	};
	unsigned int i;
	int ret;

	swap_addr_put(buf, &a);
	ret = swap_addr_get(buf, sizeof(buf), &b, &why);
	swap_addr_put(hb2, &b);
	ok(!ret && !memcmp(buf, hb2, sizeof(buf)) && b.qpn == 77 &&
	   b.fcb_addr == 0x1000 && b.pool_size == 1 << 20,
	   "address round trip");
	ok(swap_addr_get(buf, sizeof(buf) - 1, &b, &why) && why,
	   "address of the wrong length refused");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t c[SWAP_ADDR_LEN];

		memcpy(c, buf, sizeof(c));
		c[bad[i].off] = bad[i].val;
		ret = swap_addr_get(c, sizeof(c), &b, &why);
		ok(ret == -1 && why,
		   "address with a bad %s refused (%s)", bad[i].what,
		   why ? why : "accepted");
	}
	a.buf_size = 0;
	swap_addr_put(buf, &a);
	ok(swap_addr_get(buf, sizeof(buf), &b, &why) == -1,
	   "address with a zero buffer size refused");

	swap_hdr_put(hb, &h);
	ok(!swap_hdr_get(hb, &g) && g.type == h.type && g.flags == h.flags &&
	   g.seq == h.seq && g.len == h.len && g.pos == h.pos &&
	   g.total == h.total, "header round trip, big-endian");
	ok(hb[8] == 0xff && hb[11] == 0xfe, "header seq is big-endian");
	hb[6] = 1;
	ok(swap_hdr_get(hb, &g) == -1, "header with reserved bits refused");
	swap_hdr_put(hb, &h);
	hb[0] ^= 1;
	ok(swap_hdr_get(hb, &g) == -1, "header with a bad magic refused");

	swap_fcb_init(blk);
	swap_fcb_set_released(blk, 7);
	swap_fcb_set_pool(blk, 0x10000);
	ok(!swap_fcb_get(blk, &f) && f.released == 7 &&
	   f.pool_released == 0x10000 && !f.closed, "block round trip");
	swap_fcb_set_closed(blk);
	ok(!swap_fcb_get(blk, &f) && f.closed, "a closed block says so");
	blk[5] = 7;
	ok(swap_fcb_get(blk, &f) == -1, "block in an unknown state refused");

	f = (struct swap_fcb){ .released = 3, .pool_released = 100 };
	ok(!swap_fcb_check(&f, 2, 5, 50, 200), "block moving forward is fine");
	ok(!swap_fcb_check(&f, 3, 3, 100, 100), "block standing still is fine");
	ok(swap_fcb_check(&f, 2, 2, 50, 200) != NULL,
	   "released more messages than sent refused");
	ok(swap_fcb_check(&f, 4, 5, 50, 200) != NULL,
	   "released count going back refused");
	ok(swap_fcb_check(&f, 2, 5, 101, 200) != NULL,
	   "pool release going back refused");
	ok(swap_fcb_check(&f, 2, 5, 50, 99) != NULL,
	   "pool released past what was written refused");
	f.released = 5;
	ok(!swap_fcb_check(&f, 0xfffffff0U, 10, 50, 200),
	   "released count wrapping 2^32 is fine");
	f.released = 11;
	ok(swap_fcb_check(&f, 0xfffffff0U, 10, 50, 200) != NULL,
	   "released count past sent across the wrap refused");
}

static void t_pool_rules(void)
{
	uint64_t start = 0;

	ok(swap_pool_place(0, 1024, 0, 1024, &start) && start == 0,
	   "a piece the size of the pool fits an empty pool");
	ok(!swap_pool_place(64, 1024, 0, 1024, &start),
	   "it waits while anything is unreleased");
	ok(swap_pool_place(960, 1024, 960, 128, &start) && start == 1024,
	   "a piece that would cross the end starts the next lap");
	ok(!swap_pool_place(960, 1024, 0, 128, &start),
	   "and waits for the first lap to be released");
	ok(!swap_pool_place(0, 1024, 0, 2048, &start),
	   "a piece larger than the pool never fits");
	ok(swap_pool_next(1024, 1) == 1088, "pieces start 64-aligned");

	ok(!swap_pool_check(0, 1024, 0, 0, 512), "receiver: a piece in order");
	ok(!swap_pool_check(960, 1024, 960, 1024, 128),
	   "receiver: a piece that skipped the end");
	ok(swap_pool_check(0, 1024, 0, 0, 0) != NULL,
	   "receiver: an empty piece refused");
	ok(swap_pool_check(0, 1024, 0, 0, 1025) != NULL,
	   "receiver: a piece larger than the pool refused");
	ok(swap_pool_check(0, 1024, 0, 64, 64) != NULL,
	   "receiver: a piece not where the last ended refused");
	ok(swap_pool_check(960, 1024, 960, 960, 128) != NULL,
	   "receiver: a piece across the end refused");
	ok(swap_pool_check(512, 1024, 0, 512, 1024 - 511) != NULL,
	   "receiver: a piece into unreleased space refused");
	ok(swap_pool_check(0, 1024, 0, 1024, 64) != NULL,
	   "receiver: a skip that was not needed refused");
	ok(swap_pool_check(UINT64_MAX - 63, 1024, 0, 0, 64) != NULL,
	   "receiver: a position from nowhere refused");
}

/* ------------------------------------------------------------------ */
/* The library on the fake.                                            */

static struct swap_ep_attr small_attr(void)
{
	struct swap_ep_attr a = {
		.buf_size = 256, .buf_count = 8, .pool_size = 8192,
		.max_msg_size = 64 << 20, .max_partners = 4, .probe_ms = 60000,
		.spin_us = 1,
	};

	return a;
}

static size_t g_sizes[64];
static size_t size_table(unsigned int s, unsigned int d, uint32_t k)
{
	(void)s;
	(void)d;
	return g_sizes[k % 64];
}

static void t_sizes(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *y;
	struct swap_stats st;
	int xy, yx;
	uint32_t k, n = 0, inl = 0;
	static const size_t sizes[] = { 0, 1, 255, 256, 257, 4095, 4096,
					4097, 8191, 8192, 8193, 20000,
					100000, 1 << 20 };
	bool sent_ok = true;

	x = pair_new(&a, &y, &xy, &yx);
	y->auto_recv = true;
	y->size_of = size_table;
	for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		g_sizes[k] = sizes[k];
		inl += sizes[k] <= 256;
		n++;
	}
	for (k = 0; k < n; k++)
		sent_ok &= send_k(x, y, xy, k, 5000) == 0;
	settle();
	swap_ep_stats(x->ep, &st);
	ok(sent_ok, "sizes 0 to 1 MiB across the 256-byte buffer and the "
	   "8 KiB pool sent");
	ok(y->got[x->name] == n && !y->bad,
	   "all %u received intact and in order (got %u, bad %u)", n,
	   y->got[x->name], y->bad);
	ok(st.inline_sent == inl && st.write_sent == n - inl,
	   "INLINE exactly up to the buffer size: %u inline, %u written "
	   "(stats %llu, %llu)", inl, n - inl,
	   (unsigned long long)st.inline_sent,
	   (unsigned long long)st.write_sent);
	ok(st.fragments_sent > st.write_sent,
	   "messages larger than the pool go in pieces (%llu pieces)",
	   (unsigned long long)st.fragments_sent);
	ok(fake_read_max() == 1, "never more than one READ of a block "
	   "outstanding (max %u)", fake_read_max());
	tep_free_all();
}

static void t_64mib(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *y;
	int xy, yx;

	a.pool_size = 1 << 20;
	x = pair_new(&a, &y, &xy, &yx);
	y->auto_recv = true;
	y->size_of = size_table;
	g_sizes[0] = 64 << 20;
	g_sizes[1] = (64 << 20) + 1;
	ok(send_k(x, y, xy, 0, 10000) == 0, "a 64 MiB message through a "
	   "1 MiB pool");
	settle();
	ok(y->got[x->name] == 1 && !y->bad, "arrives whole and intact");
	ok(send_k(x, y, xy, 1, 10000) == -EMSGSIZE,
	   "one byte more than the receiver's limit: -EMSGSIZE");
	tep_free_all();
}

/* Messages of every kind while the wire runs backwards. */
static void t_order(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *y;
	int xy, yx;
	uint32_t k;
	bool sent = true;

	x = pair_new(&a, &y, &xy, &yx);
	y->size_of = size_table;
	for (k = 0; k < 64; k++)
		g_sizes[k] = (k * 7919) % 3 == 0 ? 300 + k * 97 : k * 3;
	fake_reverse = true;
	y->auto_recv = true;
	for (k = 0; k < 64; k++)
		sent &= send_k(x, y, xy, k, 5000) == 0;
	settle();
	ok(sent, "64 mixed INLINE and WRITE-placed messages sent on a "
	   "reordering wire");
	ok(y->got[x->name] == 64 && !y->bad,
	   "delivered in order, intact (got %u, bad %u)", y->got[x->name],
	   y->bad);
	tep_free_all();
}

static void t_slow_receiver(void)
{
	struct swap_ep_attr a = small_attr();
	struct swap_msg held[8];
	struct swap_stats st;
	struct tep *x, *y;
	int xy, yx, ret = 0;
	uint32_t k = 0, i, n, before;
	bool intact = true;

	x = pair_new(&a, &y, &xy, &yx);
	y->size_of = size_fixed_64;
	/* INLINE: exactly buf_count go, then the sender waits. */
	while (k < 100 && (ret = send_k(x, y, xy, k, 0)) == 0)
		k++;
	ok(k == 8 && ret == -EAGAIN, "INLINE: %u sent before -EAGAIN (the "
	   "receiver's 8 buffers)", k);
	settle();
	ok(send_k(x, y, xy, k, 0) == -EAGAIN,
	   "still waits while the receiver holds them");
	for (i = 0; i < 8; i++)
		if (swap_recv_nb(y->ep, &held[i]) ||
		    !check_payload(x->name, y->name, i, held[i].data, 64))
			intact = false;
	/* Sends fail while it holds all: none may overwrite what it holds. */
	for (i = 0; i < 20; i++)
		send_k(x, y, xy, k, 0);
	settle();
	for (i = 0; i < 8; i++)
		intact &= check_payload(x->name, y->name, i, held[i].data, 64);
	ok(intact, "the 8 held messages are intact after the sender tried "
	   "20 more times");
	for (i = 0; i < 8; i++)
		swap_msg_release(y->ep, &held[i]);
	y->got[x->name] = 8;
	ok(send_k(x, y, xy, k, 1000) == 0, "released: the sender goes on");
	k++;
	settle();
	drain(y);
	ok(y->got[x->name] == k && !y->bad, "and it arrives (%u)",
	   y->got[x->name]);

	/* WRITE-placed: the pool fills, the sender waits, nothing lost. */
	y->size_of = size_table;
	for (i = 0; i < 64; i++)
		g_sizes[i] = 64;
	for (i = 0; i < 64; i++)
		g_sizes[(k + i) % 64] = 3000;
	before = k;
	while (k < before + 20 && (ret = send_k(x, y, xy, k, 0)) == 0)
		k++;
	n = k - before;
	ok(ret == -EAGAIN && n == 2, "WRITE-placed: %u of 3000 bytes fit the "
	   "8 KiB pool (pieces of 4 KiB at most) before -EAGAIN", n);
	swap_ep_stats(x->ep, &st);
	ok(st.waits > 0, "the sender counted waits (%llu)",
	   (unsigned long long)st.waits);
	y->auto_recv = true;
	for (i = 0, ret = 0; i < 10; i++, k++)
		ret |= send_k(x, y, xy, k, 5000);
	settle();
	ok(!ret && y->got[x->name] == k && !y->bad,
	   "once it reads, all %u arrive intact and in order (got %u, bad "
	   "%u)", k, y->got[x->name], y->bad);
	tep_free_all();
}

static void t_one_read(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *y;
	int xy, yx, i;
	uint32_t k = 0;

	a.spin_us = 1;
	x = pair_new(&a, &y, &xy, &yx);
	while (send_k(x, y, xy, k, 0) == 0)
		k++;
	fake_reset_counts();
	fake_hold = true;
	for (i = 0; i < 200; i++) {
		send_k(x, y, xy, k, 0);
		swap_progress(x->ep);
	}
	ok(fake_reads() == 1 && fake_read_max() == 1,
	   "a waiting sender with its READ unanswered posts no second one "
	   "(%llu READs)", (unsigned long long)fake_reads());
	fake_hold = false;
	settle();
	for (i = 0; i < 200; i++) {
		send_k(x, y, xy, k, 0);
		swap_progress(x->ep);
	}
	ok(fake_read_max() == 1 && fake_reads() > 1,
	   "answered, it reads again, one at a time (%llu READs, max %u "
	   "outstanding)", (unsigned long long)fake_reads(), fake_read_max());
	tep_free_all();
}

static void t_release_order(void)
{
	struct swap_ep_attr a = small_attr();
	uint8_t addr[SWAP_ADDR_LEN];
	struct swap_msg m[3];
	struct swap_addr ya;
	struct swap_fcb f;
	struct tep *x, *y;
	const char *why;
	int xy, yx, i;
	uint32_t r[3];

	x = pair_new(&a, &y, &xy, &yx);
	for (i = 0; i < 3; i++)
		send_k(x, y, xy, (uint32_t)i, 1000);
	settle();
	for (i = 0; i < 3; i++)
		swap_recv_nb(y->ep, &m[i]);
	swap_ep_addr(y->ep, yx, addr, sizeof(addr));
	swap_addr_get(addr, sizeof(addr), &ya, &why);
	swap_msg_release(y->ep, &m[2]);
	swap_fcb_get((void *)(uintptr_t)ya.fcb_addr, &f);
	r[0] = f.released;
	swap_msg_release(y->ep, &m[0]);
	swap_fcb_get((void *)(uintptr_t)ya.fcb_addr, &f);
	r[1] = f.released;
	swap_msg_release(y->ep, &m[1]);
	swap_fcb_get((void *)(uintptr_t)ya.fcb_addr, &f);
	r[2] = f.released;
	ok(r[0] == 0 && r[1] == 1 && r[2] == 3,
	   "released out of order, the block counts only the front "
	   "(%u, %u, %u)", r[0], r[1], r[2]);
	tep_free_all();
}

/*
 * y holds 8 unreceived messages of x's when it must wait to send x a
 * large one: they are copied aside, x gets its room back, and y still
 * hands them out first, in order.
 */
static void t_spill(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *y;
	int xy, yx, ret;
	uint32_t k = 0, i;

	x = pair_new(&a, &y, &xy, &yx);
	while (k < 100 && send_k(x, y, xy, k, 0) == 0)
		k++;
	settle();
	x->auto_recv = true;
	x->size_of = size_table;
	for (i = 0; i < 64; i++)
		g_sizes[i] = 50000;
	ret = send_k(y, x, yx, 0, 5000);
	settle();
	ok(ret == 0 && x->got[y->name] == 1,
	   "a receiver holding 8 messages sends 50000 bytes through an "
	   "8 KiB pool");
	for (i = 0; i < 8; i++, k++)
		if (send_k(x, y, xy, k, 0))
			break;
	ok(i == 8, "its partner got its 8 buffers back while it waited "
	   "(%u sent)", i);
	settle();
	drain(y);
	ok(y->got[x->name] == k && !y->bad,
	   "all %u arrive, the spilled first, in order (got %u, bad %u)", k,
	   y->got[x->name], y->bad);
	tep_free_all();
}

/*
 * The message at the front of what y holds is a large assembled one,
 * larger than what y copies aside: it moves as it is, so the small ones
 * behind it free their buffers too.
 */
static unsigned int g_big_sender;

static size_t size_first_big(unsigned int s, unsigned int d, uint32_t k)
{
	(void)d;
	return s == g_big_sender && k == 0 ? 50000 : 64;
}

static void t_spill_assembled(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *y;
	int xy, yx;
	uint32_t k, i, n;

	x = pair_new(&a, &y, &xy, &yx);
	x->size_of = y->size_of = size_first_big;
	g_big_sender = x->name;
	y->bg_progress = true;
	x->bg_progress = true;
	for (k = 0; k < 8; k++)
		if (send_k(x, y, xy, k, 1000))
			break;
	for (i = 0; i < 8; i++)
		if (send_k(y, x, yx, i, 0))
			break;
	settle();
	n = k;
	ok(k == 8 && i == 8 && send_k(x, y, xy, k, 0) == -EAGAIN,
	   "x holds 8 of y's, y holds x's 50000-byte message and 7 more");
	send_k(y, x, yx, i, 200);
	for (; k < n + 8; k++)
		if (send_k(x, y, xy, k, 0))
			break;
	ok(k == n + 8, "y waited: the assembled message moved aside, x got "
	   "its 8 buffers back (%u sent)", k - n);
	settle();
	drain(y);
	ok(y->got[x->name] == k && !y->bad,
	   "y then hands out all %u in order, intact (got %u, bad %u)", k,
	   y->got[x->name], y->bad);
	tep_free_all();
}

/* ---------------------------- hostile ----------------------------- */

static uint32_t g_victim_qpn, g_hostile_qpn;
static int g_case;
static int g_other_id;
static unsigned int g_hits;

static struct swap_addr addr_of(struct tep *t, int id)
{
	uint8_t buf[SWAP_ADDR_LEN];
	struct swap_addr a;
	const char *why;

	swap_ep_addr(t->ep, id, buf, sizeof(buf));
	swap_addr_get(buf, sizeof(buf), &a, &why);
	return a;
}

/* What the hostile partner publishes: garbage in its block. */
static bool bad_block(struct fake_op *op, bool fetched)
{
	uint8_t *b = (uint8_t *)(uintptr_t)op->laddr;

	if (op->type != FOP_READ || !fetched || op->dst_qpn != g_hostile_qpn)
		return false;
	g_hits++;
	switch (g_case) {
	case 0: b[0] ^= 0xff; break;			/* magic */
	case 1: b[4] = 9; break;			/* version */
	case 2: b[5] = 0; break;			/* state */
	case 3: b[16] = 0x7f; break;			/* released: far */
	case 4: b[19] += 9; break;			/* released: +9 */
	case 5: b[8] = 0x40; break;			/* pool: far */
	case 6: memset(b + 8, 0xff, 8); break;		/* pool: 2^64-1 */
	case 7: b[5] = 2; break;			/* closed */
	}
	return false;
}

static const char *const block_cases[] = {
	"a bad magic", "another version", "an unknown state",
	"a released count far past what was sent",
	"a released count 9 past what was sent",
	"pool space released far past what was written",
	"pool space released to 2^64-1", "closed",
};

static void t_hostile_block(void)
{
	unsigned int c;

	for (c = 0; c < sizeof(block_cases) / sizeof(block_cases[0]); c++) {
		struct swap_ep_attr a = small_attr();
		struct tep *x, *h, *z;
		int xh, hx, xz, zx, err;
		uint32_t k = 0;
		const char *why = NULL;

		x = tep_new(&a);
		h = tep_new(&a);
		z = tep_new(&a);
		link_eps(x, h, &xh, &hx);
		link_eps(x, z, &xz, &zx);
		g_hostile_qpn = addr_of(h, hx).qpn;
		g_case = (int)c;
		g_hits = 0;
		fake_tamper = bad_block;
		z->auto_recv = true;
		/* Fill the hostile one's buffers so that x must read. */
		while (k < 50 && send_k(x, h, xh, k, 0) == 0)
			k++;
		settle();
		send_k(x, h, xh, k, 0);
		settle();
		err = swap_partner_error(x->ep, xh, &why);
		ok(g_hits > 0 && err == (c == 7 ? -ECONNRESET : -EPROTO),
		   "a block with %s: that partner failed with %s (%s)",
		   block_cases[c], c == 7 ? "ECONNRESET" : "EPROTO",
		   why ? why : "not failed");
		ok(send_k(x, h, xh, k, 0) == err,
		   "  sends to it return that error at once");
		ok(send_k(x, z, xz, 0, 1000) == 0 && (settle(), 1) &&
		   z->got[x->name] == 1 && !z->bad &&
		   !swap_partner_error(x->ep, xz, NULL),
		   "  the other partner is untouched");
		tep_free_all();
	}
}

/* What the hostile partner sends: a header field wrong. */
static bool bad_header(struct fake_op *op, bool fetched)
{
	uint8_t *d = op->data;
	uint32_t v;

	(void)fetched;
	if (op->type != FOP_SEND || op->src_qpn != g_hostile_qpn ||
	    g_hits++)
		return false;
	switch (g_case) {
	case 0:	/* magic */
		d[0] = 'X';
		break;
	case 1:	/* version */
		d[2] = 7;
		break;
	case 2:	/* type */
		d[3] = 9;
		break;
	case 3:	/* INLINE !LAST */
		d[4] = SWAP_F_FIRST;
		break;
	case 4:	/* seq + window */
		d[11] += 8;
		break;
	case 5:	/* seq - 1 */
		d[11] -= 1;
		break;
	case 6:	/* len != bytes */
		d[15] += 1;
		break;
	case 7:	/* short */
		op->len = 10;
		break;
	case 8:	/* WRITE flags */
		d[4] |= 0x10;
		break;
	case 9:	/* WRITE len 0 */
		memset(d + 12, 0, 4);
		break;
	case 10:	/* len > pool */
		d[13] = 0x40;
		break;
	case 11:	/* pos moved */
		d[23] += 64;
		break;
	case 12:	/* pos half a pool on */
		d[22] += 0x20;
		break;
	case 13:	/* pos far */
		d[17] = 0x10;
		break;
	case 14:	/* total > max */
		d[28] = 0x10;
		break;
	case 15:	/* total < len */
		memset(d + 24, 0, 8);
		d[31] = 1;
		break;
	case 16:	/* WRITE + payload */
		op->len = 300;
		break;
	case 17:	/* nobody */
		v = htobe32(0xfffff);
		memcpy(&op->imm, &v, 4);
		break;
	case 18:	/* no imm */
		op->with_imm = false;
		break;
	case 19:	/* reserved */
		d[5] = 1;
		break;
	case 20:	/* another partner's id */
		v = htobe32((uint32_t)g_other_id);
		memcpy(&op->imm, &v, 4);
		break;
	case 21:	/* INLINE longer than the buffer, within its slack */
		op->data = d = realloc(d, 320);
		memset(d + op->len, 0, 320 - op->len);
		op->len = 320;
		d[14] = 288 >> 8;
		d[15] = 288 & 0xff;
		d[30] = 288 >> 8;
		d[31] = 288 & 0xff;
		break;
	}
	return false;
}

static const struct { const char *what; size_t size; bool blamed; }
hdr_cases[] = {
	{ "a bad magic", 64, true }, { "another version", 64, true },
	{ "an unknown type", 64, true },
	{ "an INLINE message that is not whole", 64, true },
	{ "a sequence number past its window", 64, true },
	{ "a sequence number before its window", 64, true },
	{ "an INLINE length that is not the SEND's", 64, true },
	{ "a SEND shorter than a header", 64, true },
	{ "unknown flags on a WRITE header", 3000, true },
	{ "a WRITE-placed piece of 0 bytes", 3000, true },
	{ "a piece larger than the pool", 3000, true },
	{ "a piece not where the last ended", 3000, true },
	{ "a piece moved half a pool on", 3000, true },
	{ "a piece far outside the pool", 3000, true },
	{ "a total above the receiver's limit", 3000, true },
	{ "a total below the piece", 3000, true },
	{ "a WRITE header with a payload", 3000, true },
	{ "an immediate naming nobody", 64, false },
	{ "no immediate", 64, false },
	{ "reserved header bytes set", 64, true },
	{ "an immediate naming another partner", 64, false },
	{ "an INLINE message longer than the buffer size", 64, true },
};

static void t_hostile_header(void)
{
	unsigned int c;

	for (c = 0; c < sizeof(hdr_cases) / sizeof(hdr_cases[0]); c++) {
		struct swap_ep_attr a = small_attr();
		struct tep *x, *h, *z;
		int xh, hx, xz, zx, err;
		const char *why = NULL;

		a.max_msg_size = 1 << 20;
		x = tep_new(&a);
		h = tep_new(&a);
		z = tep_new(&a);
		link_eps(x, h, &xh, &hx);
		link_eps(x, z, &xz, &zx);
		g_hostile_qpn = addr_of(h, hx).qpn;
		g_other_id = xz;
		g_case = (int)c;
		g_hits = 0;
		fake_tamper = bad_header;
		g_sizes[0] = g_sizes[1] = hdr_cases[c].size;
		x->size_of = size_table;
		/* The hostile partner's message is its second (seq 1). */
		g_hits = 1;
		send_k(h, x, hx, 0, 1000);
		settle();
		drain(x);
		g_hits = 0;
		send_k(h, x, hx, 1, 1000);
		settle();
		drain(x);
		err = swap_partner_error(x->ep, xh, &why);
		if (hdr_cases[c].blamed)
			ok(err == -EPROTO && x->errors == 1 &&
			   x->err_partner == xh && x->got[h->name] == 1 &&
			   !x->bad,
			   "%s: EPROTO for that partner only, reported once "
			   "(%s)", hdr_cases[c].what, why ? why : "not failed");
		else
			ok(!err && x->got[h->name] == 1 && !x->bad &&
			   !x->got[z->name] && !x->errors &&
			   !swap_partner_error(x->ep, xz, NULL),
			   "%s: dropped, nobody blamed, nothing delivered",
			   hdr_cases[c].what);
		fake_tamper = NULL;
		x->size_of = size_fixed_64;
		z->size_of = size_fixed_64;
		z->auto_recv = true;
		ok(send_k(z, x, zx, 0, 1000) == 0 &&
		   send_k(x, z, xz, 0, 1000) == 0 && (settle(), drain(x), 1) &&
		   x->got[z->name] == 1 && z->got[x->name] == 1 && !z->bad &&
		   !x->bad, "  the other partner carries on both ways");
		tep_free_all();
	}
}

/* ------------------------------ dead ------------------------------ */

static unsigned int g_ops_to_kill;

static bool kill_midway(struct fake_op *op, bool fetched)
{
	(void)fetched;
	if (op->dst_qpn == g_victim_qpn && op->type == FOP_WRITE &&
	    g_ops_to_kill && !--g_ops_to_kill)
		fake_kill_qp(g_victim_qpn);
	return false;
}

static void t_dead(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *d, *z;
	struct swap_msg m;
	int xd, dx, xz, zx, ret;
	const char *why = NULL;

	x = tep_new(&a);
	d = tep_new(&a);
	z = tep_new(&a);
	link_eps(x, d, &xd, &dx);
	link_eps(x, z, &xz, &zx);
	z->auto_recv = true;
	fake_kill_qp(addr_of(d, dx).qpn);
	send_k(x, d, xd, 0, 1000);
	settle();
	ret = swap_partner_error(x->ep, xd, &why);
	ok(ret == -ECONNRESET, "a SEND to a vanished partner fails it with "
	   "ECONNRESET (%s)", why ? why : "not failed");
	ok(send_k(x, d, xd, 1, 1000) == -ECONNRESET, "  later sends say so");
	ret = swap_recv_nb(x->ep, &m);
	ok(ret == -ECONNRESET && m.partner == xd &&
	   swap_recv_nb(x->ep, &m) == -EAGAIN,
	   "  swap_recv() reports it once");
	ok(send_k(x, z, xz, 0, 1000) == 0 && (settle(), 1) &&
	   z->got[x->name] == 1, "  the other partner is untouched");
	tep_free_all();

	/* Idle: the liveness READ finds it gone. */
	a.probe_ms = 1;
	x = pair_new(&a, &d, &xd, &dx);
	fake_kill_qp(addr_of(d, dx).qpn);
	ret = swap_recv(x->ep, &m, 200);
	ok(ret == -ECONNRESET && m.partner == xd,
	   "an idle receiver's probe READ notices a vanished partner (%d)",
	   ret);
	tep_free_all();

	/* Killed in the middle of a large message: no hang. */
	a = small_attr();
	x = pair_new(&a, &d, &xd, &dx);
	d->auto_recv = true;
	d->size_of = size_table;
	g_sizes[0] = 100000;
	g_victim_qpn = addr_of(d, dx).qpn;
	g_ops_to_kill = 5;
	fake_tamper = kill_midway;
	ret = send_k(x, d, xd, 0, -1);
	ok(ret == -ECONNRESET, "killed during a 100000-byte message: the "
	   "blocking send returns ECONNRESET (%d)", ret);
	tep_free_all();
}

static unsigned int g_write_fails;

static bool refuse_writes(struct fake_op *op, bool fetched)
{
	(void)fetched;
	if (op->type == FOP_WRITE && op->dst_qpn == g_victim_qpn &&
	    g_write_fails) {
		g_write_fails--;
		op->fail = IBV_WC_REM_OP_ERR;
	}
	return false;
}

static void t_write_refused(void)
{
	struct swap_ep_attr a = small_attr();
	struct swap_stats st;
	struct tep *x, *y;
	int xy, yx, ret;
	const char *why = NULL;

	x = pair_new(&a, &y, &xy, &yx);
	y->auto_recv = true;
	y->size_of = size_table;
	g_sizes[0] = g_sizes[1] = 10000;
	g_victim_qpn = addr_of(y, yx).qpn;
	g_write_fails = 3;
	fake_tamper = refuse_writes;
	ret = send_k(x, y, xy, 0, 5000);
	settle();
	swap_ep_stats(x->ep, &st);
	ok(!ret && y->got[x->name] == 1 && !y->bad && st.write_retries >= 1,
	   "WRITEs refused (remote operation error) are written again: the "
	   "message arrives intact (%llu retries)",
	   (unsigned long long)st.write_retries);
	g_write_fails = 1000;
	ret = send_k(x, y, xy, 1, 5000);
	swap_partner_error(x->ep, xy, &why);
	ok(ret == -ECONNRESET, "refused for good: that partner fails (%s)",
	   why ? why : "not failed");
	tep_free_all();
}

static unsigned int g_send_count;

/* The 2nd and 3rd SENDs to the victim find no receive posted. */
static bool refuse_sends(struct fake_op *op, bool fetched)
{
	(void)fetched;
	if (op->type == FOP_SEND && op->dst_qpn == g_victim_qpn) {
		g_send_count++;
		if (g_send_count == 2 || g_send_count == 3)
			op->fail = IBV_WC_RNR_RETRY_EXC_ERR;
	}
	return false;
}

static void t_send_rnr(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *y;
	int xy, yx;
	uint32_t k;
	bool sent = true;

	x = pair_new(&a, &y, &xy, &yx);
	y->auto_recv = true;
	g_victim_qpn = addr_of(y, yx).qpn;
	g_send_count = 0;
	fake_tamper = refuse_sends;
	for (k = 0; k < 5; k++)
		sent &= send_k(x, y, xy, k, 1000) == 0;
	settle();
	k = 0;
	while (y->got[x->name] < 5 && k++ < 200) {
		usleep(1000);
		settle();
	}
	ok(sent && y->got[x->name] == 5 && !y->bad &&
	   !swap_partner_error(x->ep, xy, NULL),
	   "RD: SENDs that found no receive posted go again; all 5 arrive "
	   "in order (got %u)", y->got[x->name]);
	tep_free_all();
}

/* --------------------------- 64 partners -------------------------- */

static size_t size_mixed(unsigned int s, unsigned int d, uint32_t k)
{
	uint32_t h = (s * 31 + d * 17 + k * 2654435761U) >> 7;

	/* Both sides of the 256-byte buffer, some past the pool. */
	switch (h % 8) {
	case 0: return h % 256;
	case 1: return 256;
	case 2: return 257;
	case 3: return 256 + h % 4000;
	case 4: return 5000 + h % 20000;
	default: return h % 200;
	}
}

static void t_64_partners(void)
{
	struct swap_ep_attr a = small_attr(), hub_a;
	struct tep *hub, *p[64];
	int hp[64], ph[64];
	unsigned int i, bad = 0, ok_sends = 0;
	uint32_t k, msgs = 20, got_hub = 0, got_peers = 0;
	struct swap_stats st;

	hub_a = a;
	hub_a.max_partners = 64;
	hub = tep_new(&hub_a);
	hub->size_of = size_mixed;
	for (i = 0; i < 64; i++) {
		p[i] = tep_new(&a);
		p[i]->size_of = size_mixed;
		link_eps(hub, p[i], &hp[i], &ph[i]);
	}
	ok(swap_partner_add(hub->ep) == -ENOSPC,
	   "a 65th partner: -ENOSPC");
	fake_reset_counts();
	fake_reverse = true;
	for (i = 0; i <= 64; i++)
		(i < 64 ? p[i] : hub)->auto_recv = true;
	for (k = 0; k < msgs; k++) {
		for (i = 0; i < 64; i++) {
			ok_sends += send_k(p[i], hub, ph[i], k, 5000) == 0;
			ok_sends += send_k(hub, p[i], hp[i], k, 5000) == 0;
		}
	}
	settle();
	for (i = 0; i < 64; i++) {
		got_hub += hub->got[p[i]->name];
		got_peers += p[i]->got[hub->name];
		bad += p[i]->bad;
	}
	bad += hub->bad;
	swap_ep_stats(hub->ep, &st);
	ok(ok_sends == 2 * 64 * msgs, "64 partners: %u of %u sends", ok_sends,
	   2 * 64 * msgs);
	ok(got_hub == 64 * msgs && got_peers == 64 * msgs && !bad,
	   "  every message in order and intact both ways (hub got %u, "
	   "peers %u, bad %u)", got_hub, got_peers, bad);
	ok(fake_read_max() == 1, "  one READ per block at a time (max %u)",
	   fake_read_max());
	ok(st.partners_failed == 0, "  no partner failed");
	ok(st.mem_per_partner == 8 * 320 + 4096 + 8192 + 64,
	   "  memory per partner: %llu bytes",
	   (unsigned long long)st.mem_per_partner);
	tep_free_all();
}

/*
 * RC: a partner removed while its SENDs are still out.  Its QP's error
 * state flushes them, but destroying the QP throws away completions not
 * yet polled (libwren and mlx5 do): unless the library waits for them,
 * their send slots are lost to every other partner for good.
 */
static void t_rc_remove(void)
{
	struct swap_ep_attr a = small_attr();
	struct tep *x, *y, *z;
	int xy, yx, xz, zx, sent = 0, ret;
	uint32_t k;

	a.transport = SWAP_TRANSPORT_RC;
	a.send_depth = 4;
	x = tep_new(&a);
	y = tep_new(&a);
	z = tep_new(&a);
	link_eps(x, y, &xy, &yx);
	link_eps(x, z, &xz, &zx);
	y->auto_recv = z->auto_recv = true;
	for (k = 0; k < 4; k++)
		sent += send_k(x, y, xy, k, 1000) == 0;
	settle();
	ok(swap_ep_transport(x->ep) == SWAP_TRANSPORT_RC && sent == 4 &&
	   y->got[x->name] == 4 && !y->bad,
	   "RC: messages arrive intact over a QP per partner");
	fake_hold = true;
	for (k = 4; k < 8; k++)
		sent += send_k(x, y, xy, k, 0) == 0;
	ok(sent == 8 && send_k(x, z, xz, 0, 0) == -EAGAIN,
	   "  four SENDs out take every send slot");
	ok(swap_partner_remove(x->ep, xy) == 0,
	   "  the partner is removed with them out");
	fake_hold = false;
	for (k = 0, sent = 0; k < 8; k++)
		sent += (ret = send_k(x, z, xz, k, 1000)) == 0;
	settle();
	ok(sent == 8 && z->got[x->name] == 8 && !z->bad,
	   "  the other partner gets its slots back: %d of 8 sent (%d)",
	   sent, ret);
	tep_free_all();
}

/*
 * A WRITE-placed piece's header: on RD only once the WRITE completed (a
 * SEND may overtake a WRITE there), on RC right behind it, so that
 * pieces stream through the staging ring instead of costing a round
 * trip each.  Sizes on both sides of the buffer size up to 100000 bytes
 * (pieces of half the 8 KiB pool), the ring wrapping many times.
 */
static void t_stream(void)
{
	static const enum swap_transport tps[] = { SWAP_TRANSPORT_RD,
						   SWAP_TRANSPORT_RC };
	unsigned int i;
	uint32_t k;

	for (k = 0; k < 64; k++)
		g_sizes[k] = k % 8 == 7 ? 100000 : k % 3 ? 257 + k * 97 : k;
	for (i = 0; i < 2; i++) {
		struct swap_ep_attr a = small_attr();
		struct swap_stats st;
		struct tep *x, *y;
		int xy, yx, sent = 0;
		uint64_t behind;
		bool rc = tps[i] == SWAP_TRANSPORT_RC;

		a.transport = tps[i];
		x = pair_new(&a, &y, &xy, &yx);
		y->auto_recv = true;
		y->size_of = size_table;
		fake_reset_counts();
		for (k = 0; k < 192; k++)
			sent += send_k(x, y, xy, k, 5000) == 0;
		settle();
		swap_ep_stats(x->ep, &st);
		behind = fake_sends_behind_writes();
		ok(sent == 192 && y->got[x->name] == 192 && !y->bad,
		   "%s: 192 messages to 100000 bytes intact and in order "
		   "(%d sent, %u received, %u bad)", rc ? "RC" : "RD", sent,
		   y->got[x->name], y->bad);
		if (rc)
			ok(behind == st.fragments_sent,
			   "  every piece's header posted right behind its "
			   "WRITE (%llu of %llu)", (unsigned long long)behind,
			   (unsigned long long)st.fragments_sent);
		else
			ok(behind == 0 && st.fragments_sent > 0,
			   "  no header posted before its WRITE completed "
			   "(%llu of %llu)", (unsigned long long)behind,
			   (unsigned long long)st.fragments_sent);
		tep_free_all();
	}
}

/* An application that polls swap_ep_fd() and then calls in. */
static void t_fd(void)
{
	struct swap_ep_attr a = small_attr();
	struct pollfd pfd;
	struct swap_msg m;
	struct tep *x, *y;
	int xy, yx, n0, n1, ret;

	x = pair_new(&a, &y, &xy, &yx);
	pfd.fd = swap_ep_fd(y->ep);
	pfd.events = POLLIN;
	swap_progress(y->ep);
	n0 = poll(&pfd, 1, 0);
	send_k(x, y, xy, 0, 1000);
	fake_pump();	/* the device delivers it */
	n1 = poll(&pfd, 1, 1000);
	swap_progress(y->ep);
	ret = swap_recv_nb(y->ep, &m);
	ok(n0 == 0 && n1 == 1 && ret == 0 && m.len == 64 &&
	   check_payload(x->name, y->name, 0, m.data, m.len),
	   "the fd is quiet, then readable when a message came; "
	   "swap_progress() and swap_recv_nb() take it");
	swap_msg_release(y->ep, &m);
	swap_progress(y->ep);
	ok(poll(&pfd, 1, 0) == 0 && swap_recv_nb(y->ep, &m) == -EAGAIN,
	   "and quiet again once it is taken");
	tep_free_all();
}

static void t_api(void)
{
	struct swap_ep_attr a = small_attr();
	uint8_t junk[SWAP_ADDR_LEN] = { 1, 2, 3 };
	struct tep *x, *y;
	int xy, yx, id;

	x = pair_new(&a, &y, &xy, &yx);
	ok(swap_send(x->ep, 3, "x", 1, 0) == -EINVAL,
	   "send to a partner never added: -EINVAL");
	id = swap_partner_add(x->ep);
	ok(swap_send(x->ep, id, "x", 1, 0) == -ENOTCONN,
	   "send to a partner not connected: -ENOTCONN");
	ok(swap_partner_connect(x->ep, id, junk, sizeof(junk)) == -EINVAL,
	   "connecting to garbage: -EINVAL");
	ok(swap_partner_remove(x->ep, id) == 0 &&
	   swap_partner_add(x->ep) == id, "a removed partner's id is reused");
	a.pool_size = 100;
	ok(!swap_ep_create(fake_pd(), &a) && errno == EINVAL,
	   "a pool size not a multiple of 64: EINVAL");
	ok(swap_ep_transport(x->ep) == SWAP_TRANSPORT_RD,
	   "a device with Wren's RD verbs: the RD transport");
	tep_free_all();
}

int main(void)
{
	fake_on_poll = idle;
	t_wire();
	t_pool_rules();
	t_sizes();
	t_64mib();
	t_order();
	t_slow_receiver();
	t_one_read();
	t_release_order();
	t_spill();
	t_spill_assembled();
	t_hostile_block();
	t_hostile_header();
	t_dead();
	t_write_refused();
	t_send_rnr();
	t_64_partners();
	t_rc_remove();
	t_stream();
	t_fd();
	t_api();
	printf("1..%d\n", tap_tests);
	return tap_done();
}
