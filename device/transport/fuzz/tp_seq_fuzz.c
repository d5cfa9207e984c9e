// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer target: packet sequences from several peers.
 *
 * One transport under test and three peers, each a transport of its
 * own, with a clock and timers.  The input is a script: a peer posts a
 * message to the target or the target to a peer (reliable or datagram,
 * of sizes from the input, some large enough for grants), and the
 * frames between them are delivered, dropped, duplicated, delivered
 * late (out of order) or delivered with a byte changed, the headers
 * staying the real ones the peers built; time moves on so that
 * retransmissions, delayed acks and idle closes happen.
 *
 * Beyond AddressSanitizer and UBSan, the contract of the upper-layer
 * calls (wren_tp.h) is checked on every transport: tx_done once per
 * message posted, never for another; rx_write only inside an accepted
 * message that is not done yet; and, while no frame was altered (drops,
 * duplicates and reordering are the network's right), each byte written
 * exactly once, with the sender's bytes, before rx_done says OK.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_internal.h"

#define NPEER		3
#define NTP		(NPEER + 1)	/* [0] is the transport under test */
#define MAX_TX		64		/* messages posted per transport */
#define MAX_RX		64		/* messages accepted per transport */
#define MAX_LEN		(48 * 1024)
#define QUEUE		64		/* frames in flight per direction */
#define NTIMERS		64

static uint64_t now;
static uint32_t rnd_state;

struct timer {
	bool used, armed;
	uint64_t at;
	void (*cb)(void *);
	void *arg;
};

static struct timer timers[NTIMERS];

static uint64_t env_now(void *o)
{
	(void)o;
	return now;
}

static void *env_timer_new(void *o, void (*cb)(void *), void *arg)
{
	(void)o;
	for (int i = 0; i < NTIMERS; i++) {
		if (!timers[i].used) {
			timers[i] = (struct timer){ .used = true, .cb = cb,
						    .arg = arg };
			return &timers[i];
		}
	}
	abort();	/* the target needs more: raise NTIMERS */
}

static void env_timer_arm(void *t, uint64_t at)
{
	((struct timer *)t)->armed = true;
	((struct timer *)t)->at = at;
}

static void env_timer_cancel(void *t)
{
	((struct timer *)t)->armed = false;
}

static void env_timer_free(void *t)
{
	memset(t, 0, sizeof(struct timer));
}

static void env_kick(void *o)
{
	(void)o;
}

static uint32_t env_random(void *o)
{
	(void)o;
	return rnd_state = rnd_state * 1103515245 + 12345;
}

static const struct wren_tp_env_ops env = {
	.now_ns = env_now,
	.timer_new = env_timer_new,
	.timer_arm = env_timer_arm,
	.timer_cancel = env_timer_cancel,
	.timer_free = env_timer_free,
	.tx_kick = env_kick,
	.random = env_random,
};

/* Fire the timers due up to @to, in order; the clock ends at @to. */
static void advance(uint64_t to)
{
	for (;;) {
		struct timer *next = NULL;

		for (int i = 0; i < NTIMERS; i++)
			if (timers[i].used && timers[i].armed &&
			    timers[i].at <= to &&
			    (!next || timers[i].at < next->at))
				next = &timers[i];
		if (!next)
			break;
		if (next->at > now)
			now = next->at;
		next->armed = false;
		next->cb(next->arg);
	}
	now = to;
}

/* ---- the upper layer of each transport, and its checks ----------------- */

struct tx {
	bool posted;
	uint32_t len;
};

struct rx {
	bool begun, done;
	uint32_t len, written, sender;
	uint8_t *seen;		/* a byte per byte of the message */
};

struct node {
	struct wren_tp *tp;
	uint32_t ipv4;
	struct tx tx[MAX_TX];
	struct rx rx[MAX_RX];
	uint32_t nrx;
};

static struct node nodes[NTP];
static bool altered;	/* a frame of this input was changed */

static void fail(const char *what, int n, uint64_t cookie)
{
	fprintf(stderr, "tp_seq_fuzz: transport %d, cookie %llu: %s\n", n,
		(unsigned long long)cookie, what);
	abort();
}

/* The bytes of message @cookie of @sender: a function of both. */
static uint8_t pattern(uint32_t sender, uint32_t off)
{
	return (uint8_t)(sender * 131 + off * 7 + (off >> 8));
}

static int tx_read(void *u, uint64_t c, uint32_t off, void *buf, uint32_t len)
{
	struct node *n = u;
	uint8_t *b = buf;

	if (c >= MAX_TX || !n->tx[c].posted)
		fail("tx_read of a message not posted", n - nodes, c);
	if (off > n->tx[c].len || len > n->tx[c].len - off)
		fail("tx_read outside the message", n - nodes, c);
	for (uint32_t i = 0; i < len; i++)
		b[i] = pattern((n - nodes) << 8 | (uint32_t)c, off + i);
	return 0;
}

static void tx_done(void *u, uint64_t c, enum wren_tp_status st)
{
	struct node *n = u;

	(void)st;
	if (c >= MAX_TX || !n->tx[c].posted)
		fail("tx_done of a message not posted, or twice", n - nodes, c);
	n->tx[c].posted = false;
}

static enum wren_tp_status rx_begin(void *u, const struct wren_tp_peer *p,
				    const struct wren_tp_msg *m, uint64_t *c)
{
	struct node *n = u;
	struct rx *r;

	(void)p;
	if (n->nrx == MAX_RX || m->len > MAX_LEN)
		return WREN_TP_RNR;
	if (m->dst_qpn == 13)
		return WREN_TP_BAD_DEST_QP;
	r = &n->rx[n->nrx];
	*c = n->nrx++;
	r->begun = true;
	r->len = m->len;
	r->sender = m->imm;
	r->seen = calloc(1, m->len + 1);
	if (!r->seen)
		abort();
	return WREN_TP_OK;
}

static int rx_write(void *u, uint64_t c, uint32_t off, const void *b,
		    uint32_t len)
{
	struct node *n = u;
	const uint8_t *p = b;
	struct rx *r;

	if (c >= n->nrx || !n->rx[c].begun || n->rx[c].done)
		fail("rx_write to a message not accepted or done", n - nodes,
		     c);
	r = &n->rx[c];
	if (off > r->len || len > r->len - off)
		fail("rx_write outside the message", n - nodes, c);
	for (uint32_t i = 0; i < len; i++) {
		if (altered)
			continue;
		if (r->seen[off + i])
			fail("a byte written twice", n - nodes, c);
		if (p[i] != pattern(r->sender, off + i))
			fail("a byte not the sender's", n - nodes, c);
		r->seen[off + i] = 1;
		r->written++;
	}
	return 0;
}

static void rx_done(void *u, uint64_t c, enum wren_tp_status st)
{
	struct node *n = u;

	if (c >= n->nrx || !n->rx[c].begun || n->rx[c].done)
		fail("rx_done of a message not accepted, or twice", n - nodes,
		     c);
	n->rx[c].done = true;
	if (st == WREN_TP_OK && !altered && n->rx[c].written != n->rx[c].len)
		fail("rx_done OK with bytes missing", n - nodes, c);
}

static const struct wren_tp_ulp_ops ulp = {
	.tx_read = tx_read, .tx_done = tx_done, .rx_begin = rx_begin,
	.rx_write = rx_write, .rx_done = rx_done,
};

/* ---- the wire ------------------------------------------------------------ */

struct frame {
	uint16_t len;
	uint8_t *data;
};

/* Frames from each node, by destination node, not yet delivered. */
struct queue {
	struct frame f[QUEUE];
	unsigned int n;
};

static struct queue q_out[NTP][NTP];
static size_t frame_max;

static int node_of(uint32_t ipv4)
{
	for (int i = 0; i < NTP; i++)
		if (nodes[i].ipv4 == ipv4)
			return i;
	return -1;
}

/* Pull every node's frames into the queues (a full queue drops). */
static void pull_all(void)
{
	static uint8_t buf[16384];

	for (int i = 0; i < NTP; i++) {
		size_t len;

		while ((len = wren_tp_tx_pull(nodes[i].tp, buf, sizeof(buf)))) {
			int to = len >= WREN_WIRE_L2L4_LEN ?
				 node_of(htobe32(wren_wire_get32(buf +
					WREN_WIRE_IP_DST))) : -1;
			struct queue *q;

			if (to < 0)
				continue;
			q = &q_out[i][to];
			if (q->n == QUEUE)
				continue;
			q->f[q->n].data = malloc(len);
			if (!q->f[q->n].data)
				abort();
			memcpy(q->f[q->n].data, buf, len);
			q->f[q->n++].len = len;
		}
	}
}

/* Take frame @k of @q out; the caller frees it. */
static struct frame take_frame(struct queue *q, unsigned int k)
{
	struct frame f = q->f[k];

	memmove(&q->f[k], &q->f[k + 1], (q->n - k - 1) * sizeof(f));
	q->n--;
	return f;
}

static void queues_free(void)
{
	for (int i = 0; i < NTP; i++)
		for (int j = 0; j < NTP; j++) {
			struct queue *q = &q_out[i][j];

			while (q->n)
				free(q->f[--q->n].data);
		}
}

/* Messages posted and not done yet, on any transport. */
static bool pending(void)
{
	for (int i = 0; i < NTP; i++)
		for (int c = 0; c < MAX_TX; c++)
			if (nodes[i].tx[c].posted)
				return true;
	return false;
}

/* Deliver everything, both ways, until the wire is quiet. */
static void settle(int rounds)
{
	for (int r = 0; r < rounds; r++) {
		bool moved = false;

		pull_all();
		for (int i = 0; i < NTP; i++)
			for (int j = 0; j < NTP; j++) {
				struct queue *q = &q_out[i][j];

				while (q->n) {
					struct frame f = take_frame(q, 0);

					wren_tp_rx(nodes[j].tp, f.data, f.len);
					free(f.data);
					moved = true;
				}
			}
		if (moved) {
			advance(now + 2000);
		} else {
			/* Nothing on the wire: on to the next timer. */
			struct timer *next = NULL;

			if (!pending())
				break;

			for (int i = 0; i < NTIMERS; i++)
				if (timers[i].used && timers[i].armed &&
				    (!next || timers[i].at < next->at))
					next = &timers[i];
			if (!next)
				break;
			advance(next->at > now ? next->at : now);
		}
	}
}

/* ---- the script ---------------------------------------------------------- */

static const uint8_t *in;
static size_t left;

static uint8_t byte(void)
{
	uint8_t b = 0;

	if (left) {
		b = *in++;
		left--;
	}
	return b;
}

static uint16_t word(void)
{
	return byte() | byte() << 8;
}

static void post(int from, int to, uint32_t len, bool ud, uint8_t flags)
{
	struct node *n = &nodes[from];
	struct wren_tp_dest d = { .ipv4 = nodes[to].ipv4 };
	struct wren_tp_msg m = { .opcode = WREN_WIRE_OP_SEND, .len = len,
				 .dst_qpn = 20 + (flags & 15),
				 .src_qpn = 40 + from, .flags = flags >> 7 };
	uint64_t c;

	memcpy(d.mac, "\x52\x54\x00\x00\x00", 5);
	d.mac[5] = to;
	for (c = 0; c < MAX_TX && n->tx[c].posted; c++)
		;
	if (c == MAX_TX)
		return;
	m.imm = from << 8 | (uint32_t)c;
	n->tx[c].posted = true;
	n->tx[c].len = len;
	if ((ud ? wren_tp_send_ud(n->tp, &d, &m, c) :
		  wren_tp_send(n->tp, &d, &m, c)) != 0)
		n->tx[c].posted = false;
}

static void setup(void)
{
	memset(timers, 0, sizeof(timers));
	memset(nodes, 0, sizeof(nodes));
	now = 1000000000ULL;
	rnd_state = 1;
	altered = false;
	for (int i = 0; i < NTP; i++) {
		struct wren_tp_config cfg;

		wren_tp_config_defaults(&cfg);
		cfg.ipv4 = nodes[i].ipv4 = htobe32(0xc6120001 + i);
		memcpy(cfg.mac, "\x52\x54\x00\x00\x00", 5);
		cfg.mac[5] = i;
		cfg.window = 64;
		cfg.max_ctx = 4;
		cfg.max_rx_ctx = 4;
		cfg.max_msgs = 32;
		cfg.mtu = 1024;
		cfg.grant_threshold = 8192;
		cfg.grant_window = 8192;
		cfg.grant_chunk = 4096;
		cfg.subflows = 1 + i % 2;
		frame_max = wren_tp_frame_max(&cfg);
		nodes[i].tp = wren_tp_create(&cfg, &env, &nodes[i], &ulp,
					     &nodes[i]);
		if (!nodes[i].tp)
			abort();
	}
}

static void teardown(void)
{
	queues_free();
	for (int i = 0; i < NTP; i++) {
		wren_tp_destroy(nodes[i].tp);
		for (uint32_t k = 0; k < nodes[i].nrx; k++)
			free(nodes[i].rx[k].seen);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	in = data;
	left = size;
	while (left) {
		uint8_t op = byte(), a = byte();
		int peer = 1 + a % NPEER;
		/* Frames of one direction: peer to target or back. */
		struct queue *q = a & 0x80 ? &q_out[0][peer] : &q_out[peer][0];
		int dst = a & 0x80 ? peer : 0;

		switch (op % 9) {
		case 0:		/* a peer posts to the target */
		case 1:		/* ... or the target to a peer */
			post(op % 9 ? 0 : peer, op % 9 ? peer : 0,
			     word() % MAX_LEN, a & 0x40, byte());
			break;
		case 2:		/* deliver in order */
		case 3: {	/* ... or frame k first */
			unsigned int n = 1 + byte() % 8;

			pull_all();
			while (n-- && q->n) {
				struct frame f = take_frame(q, op % 9 == 3 ?
							    byte() % q->n : 0);

				wren_tp_rx(nodes[dst].tp, f.data, f.len);
				free(f.data);
			}
			break;
		}
		case 4:		/* lose frame k */
			pull_all();
			if (q->n)
				free(take_frame(q, byte() % q->n).data);
			break;
		case 5:		/* deliver frame k and keep it: a duplicate */
			pull_all();
			if (q->n) {
				struct frame *f = &q->f[byte() % q->n];

				wren_tp_rx(nodes[dst].tp, f->data, f->len);
			}
			break;
		case 6: {	/* deliver frame k with a byte changed */
			pull_all();
			if (q->n) {
				struct frame f = take_frame(q, byte() % q->n);
				uint16_t at = word() % f.len;

				f.data[at] ^= byte() | 1;
				altered = true;
				wren_tp_rx(nodes[dst].tp, f.data, f.len);
				free(f.data);
			}
			break;
		}
		case 7:		/* time: up to 65 ms */
			advance(now + word() * 1000ULL);
			break;
		default:	/* the network delivers everything */
			settle(1 + a % 8);
			break;
		}
	}
	/*
	 * Then a clean network, until every message is done: timers
	 * (retransmissions, give-ups, idle closes) included.  A context
	 * gives a silent target up after max_retries timeouts of at most
	 * max_rto_ns, so 2 s of simulated time is ample; the rounds bound
	 * the work of an input that livelocks.
	 */
	for (uint64_t end = now + 2000000000ULL, r = 0;
	     pending() && now < end && r < 200000; r++)
		settle(1);
	/*
	 * Whatever the network did, lost, duplicated, reordered or altered,
	 * every message ends (done or failed).
	 */
	for (int i = 0; i < NTP; i++)
		for (int c = 0; c < MAX_TX; c++)
			if (nodes[i].tx[c].posted)
				fail("a message never finished", i, c);
	teardown();
	return 0;
}
