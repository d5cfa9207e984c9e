// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * swap_stress: libswap end to end between N participants (guests), each
 * with one endpoint and --streams partners to every other participant:
 * every participant sends --messages messages on each stream, sizes on
 * both sides of the buffer size, and checks that every message arrives
 * once, whole, intact and in order.  Modes:
 *
 *   --slow-ms MS  the last participant hands out what it received only
 *                 every MS ms: the others must wait for room (waits > 0),
 *                 nothing lost or overwritten;
 *   --kill        the last participant dies (SIGKILL) halfway: the others
 *                 see that partner fail, only it, and finish with the rest;
 *   --hostile     the last participant scribbles over the flow-control
 *                 blocks it publishes halfway: the others fail it with
 *                 EPROTO, only it, and finish with the rest.
 *
 * The summary line (scripts/guest-tests/swap.sh matches it):
 *   swap_stress: index I sent S received R bytes B corrupt C
 *   failed F expected_failed E reads X waits W in T s
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <swap/swap.h>
#include "swap_wire.h"	/* --hostile: what to scribble over */
#include "swap_tool.h"

const char *tool_prog = "swap_stress";

struct stream {
	unsigned int peer, stream;
	int id;
	uint32_t sent, got;
	bool failed;
	int err;
};

static struct {
	unsigned int peers, index, streams, timeout, slow_ms;
	const char *hub, *device;
	uint16_t port;
	struct swap_ep_attr attr;
	uint32_t messages;
	uint64_t max_size, seed, size;
	bool kill, hostile;
} o = {
	.streams = 1, .timeout = 600, .port = 18700, .messages = 1000,
	.max_size = 1 << 20, .seed = 1,
};

static void usage(void)
{
	printf("usage: swap_stress --peers N --index I [--hub IP] [--port P]\n"
	       "  [--device NAME] [--gid-index G] [--transport rd|rc|auto]\n"
	       "  [--streams S] [--messages M] [--max-size B] [--seed S]\n"
	       "  [--buf-size B] [--buf-count N] [--pool-size B]\n"
	       "  [--slow-ms MS | --kill | --hostile] [--timeout S]\n"
	       "  [--size B: every message B bytes, not drawn]\n");
}

/* An option's number. */
#define NUM(name)	tool_num(name, optarg)

static void parse(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "peers", 1, NULL, 'n' }, { "index", 1, NULL, 'i' },
		{ "hub", 1, NULL, 'H' }, { "port", 1, NULL, 'p' },
		{ "device", 1, NULL, 'd' }, { "gid-index", 1, NULL, 'g' },
		{ "transport", 1, NULL, 'T' }, { "streams", 1, NULL, 'S' },
		{ "messages", 1, NULL, 'm' }, { "max-size", 1, NULL, 'M' },
		{ "seed", 1, NULL, 's' }, { "buf-size", 1, NULL, 'b' },
		{ "buf-count", 1, NULL, 'c' }, { "pool-size", 1, NULL, 'P' },
		{ "slow-ms", 1, NULL, 'w' }, { "kill", 0, NULL, 'k' },
		{ "hostile", 0, NULL, 'x' }, { "timeout", 1, NULL, 't' },
		{ "size", 1, NULL, 'z' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n':
			o.peers = (unsigned int)NUM("peers");
			break;
		case 'i':
			o.index = (unsigned int)NUM("index");
			break;
		case 'H':
			o.hub = optarg;
			break;
		case 'p':
			o.port = (uint16_t)NUM("port");
			break;
		case 'd':
			o.device = optarg;
			break;
		case 'g':
			o.attr.gid_index = (uint8_t)NUM("gid-index");
			break;
		case 'T':
			o.attr.transport = tool_transport(optarg);
			break;
		case 'S':
			o.streams = (unsigned int)NUM("streams");
			break;
		case 'm':
			o.messages = (uint32_t)NUM("messages");
			break;
		case 'M':
			o.max_size = NUM("max-size");
			break;
		case 'z':
			o.size = NUM("size");
			break;
		case 's':
			o.seed = NUM("seed");
			break;
		case 'b':
			o.attr.buf_size = (uint32_t)NUM("buf-size");
			break;
		case 'c':
			o.attr.buf_count = (uint32_t)NUM("buf-count");
			break;
		case 'P':
			o.attr.pool_size = NUM("pool-size");
			break;
		case 'w':
			o.slow_ms = (unsigned int)NUM("slow-ms");
			break;
		case 'k':
			o.kill = true;
			break;
		case 'x':
			o.hostile = true;
			break;
		case 't':
			o.timeout = (unsigned int)NUM("timeout");
			break;
		case 'h': usage(); exit(0);
		default: usage(); exit(2);
		}
	}
	if (o.size > o.max_size)
		o.max_size = o.size;
	if (o.peers < 2 || o.index >= o.peers || (o.index && !o.hub) ||
	    !o.streams || o.streams * (o.peers - 1) > 4096) {
		usage();
		exit(2);
	}
	tool_index = o.index;
}

/* The run: the endpoint, its streams and what was counted. */
struct run {
	struct swap_ep *ep;
	struct stream *st, **by_id;
	unsigned int np;
	uint8_t *buf;
	uint64_t sent, got, bytes, corrupt;
	bool victim, scribbled;
};

static size_t size_of(const struct tool_key *key)
{
	if (o.size)
		return o.size;
	return tool_size(key, o.attr.buf_size ? o.attr.buf_size : 4096,
			 o.max_size);
}

/* Reserve every partner, and write its address into @row. */
static void add_partners(struct run *r, uint8_t *row)
{
	unsigned int p, s, i = 0;
	struct stream *x;

	for (p = 0; p < o.peers; p++) {
		for (s = 0; p != o.index && s < o.streams; s++, i++) {
			x = &r->st[i];
			x->peer = p;
			x->stream = s;
			x->id = swap_partner_add(r->ep);
			if (x->id < 0 || (unsigned int)x->id >= r->np)
				tool_die("swap_partner_add: %s",
					 strerror(-x->id));
			r->by_id[x->id] = x;
			if (swap_ep_addr(r->ep, x->id, row + ((size_t)p *
					 o.streams + s) * SWAP_ADDR_LEN,
					 SWAP_ADDR_LEN) < 0)
				tool_die("swap_ep_addr");
		}
	}
}

static void connect_partners(struct run *r, const uint8_t *col)
{
	unsigned int i;
	int ret;

	for (i = 0; i < r->np; i++) {
		const struct stream *x = &r->st[i];

		ret = swap_partner_connect(r->ep, x->id, col +
			((size_t)x->peer * o.streams + x->stream) *
			SWAP_ADDR_LEN, SWAP_ADDR_LEN);
		if (ret)
			tool_die("swap_partner_connect(participant %u): %s",
				 x->peer, strerror(-ret));
	}
}

/* --hostile: garbage in every flow-control block we publish. */
static void scribble(struct run *r)
{
	uint8_t addr[SWAP_ADDR_LEN];
	struct swap_addr a;
	const char *why;
	unsigned int i;

	for (i = 0; i < r->np; i++) {
		swap_ep_addr(r->ep, r->st[i].id, addr, sizeof(addr));
		if (!swap_addr_get(addr, sizeof(addr), &a, &why))
			memset((void *)(uintptr_t)a.fcb_addr, 0x5a, 64);
	}
	tool_say("scribbled over my blocks halfway");
	r->scribbled = true;
}

/* One message to each stream that has room: true if any went. */
static bool send_round(struct run *r, unsigned int first)
{
	bool moved = false;
	unsigned int i;
	size_t len;
	int ret;

	for (i = 0; i < r->np; i++) {
		struct stream *x = &r->st[(i + first) % r->np];
		struct tool_key key = { o.seed, o.index, x->peer, x->stream,
					x->sent };

		if (x->failed || x->sent == o.messages || r->scribbled)
			continue;
		len = size_of(&key);
		tool_fill(&key, r->buf, len);
		ret = swap_send(r->ep, x->id, r->buf, len, 0);
		if (!ret) {
			x->sent++;
			r->sent++;
			moved = true;
		} else if (ret != -EAGAIN) {
			x->failed = true;
			x->err = ret;
		}
	}
	return moved;
}

/* swap_recv()'s report that partner @m->partner failed with @err. */
static void partner_failed(struct run *r, const struct swap_msg *m, int err)
{
	const char *why = NULL;
	struct stream *x;

	if (err == -EIO)
		tool_die("the endpoint failed");
	if (m->partner < 0 || (unsigned int)m->partner >= r->np)
		return;
	x = r->by_id[m->partner];
	x->failed = true;
	x->err = err;
	swap_partner_error(r->ep, m->partner, &why);
	tool_say("participant %u stream %u failed: %s (%s)", x->peer,
		 x->stream, strerror(-err), why ? why : "");
}

/* Check a received message against what its sender drew, release it. */
static void take(struct run *r, struct swap_msg *m)
{
	struct stream *x = r->by_id[m->partner];
	struct tool_key key = { o.seed, x->peer, o.index, x->stream, x->got };
	size_t len = size_of(&key), bad;

	bad = len == m->len ? tool_check(&key, m->data, m->len) : 0;
	if (len != m->len || bad != len) {
		if (r->corrupt < 20)
			tool_say("participant %u stream %u message %u: %zu "
				 "bytes (expected %zu), first wrong byte %zu",
				 x->peer, x->stream, x->got, m->len, len, bad);
		r->corrupt++;
	}
	x->got++;
	r->got++;
	r->bytes += m->len;
	swap_msg_release(r->ep, m);
}

/*
 * Take what came: all of it, waiting up to 5 ms if nothing moved; the
 * slow receiver only one message every --slow-ms.
 */
static void receive(struct run *r, bool moved, uint64_t *next_slow)
{
	bool slow = o.slow_ms && o.index == o.peers - 1;
	struct swap_msg m;
	int ret;

	if (slow) {
		if (tool_now_ns() < *next_slow) {
			usleep(200);
			return;
		}
		*next_slow = tool_now_ns() + o.slow_ms * 1000000ULL;
	}
	while ((ret = moved ? swap_recv_nb(r->ep, &m) :
		      swap_recv(r->ep, &m, 5)) != -EAGAIN) {
		moved = true;
		if (ret) {
			partner_failed(r, &m, ret);
			continue;
		}
		take(r, &m);
		if (slow)
			break;
	}
}

static bool all_done(const struct run *r)
{
	unsigned int i;

	for (i = 0; i < r->np; i++)
		if (!r->st[i].failed && (r->st[i].sent < o.messages ||
					 r->st[i].got < o.messages))
			return false;
	return true;
}

int main(int argc, char **argv)
{
	unsigned int i, round = 0, expected_failed = 0, failed = 0;
	uint64_t start, deadline, next_slow = 0, half;
	struct run r = { 0 };
	struct tool_ctl ctl;
	struct swap_stats ss;
	uint8_t *row, *col;
	bool done = false;
	int status;

	parse(argc, argv);
	r.victim = o.index == o.peers - 1 && (o.kill || o.hostile);
	r.np = (o.peers - 1) * o.streams;
	o.attr.max_partners = r.np;
	o.attr.max_msg_size = o.max_size > 64 << 20 ? o.max_size : 64 << 20;
	/* --hostile: the others look at its block often. */
	if (o.hostile)
		o.attr.probe_ms = 200;
	r.ep = swap_ep_create(tool_open(o.device), &o.attr);
	if (!r.ep)
		tool_die("swap_ep_create: %s", strerror(errno));
	r.st = calloc(r.np, sizeof(*r.st));
	r.by_id = calloc(r.np, sizeof(*r.by_id));
	row = calloc((size_t)o.peers * o.streams, SWAP_ADDR_LEN);
	col = calloc((size_t)o.peers * o.streams, SWAP_ADDR_LEN);
	r.buf = malloc(o.max_size ? o.max_size : 1);
	if (!r.st || !r.by_id || !row || !col || !r.buf)
		tool_die("out of memory");
	add_partners(&r, row);
	tool_say("%s transport, %u partners, buffer %u x %u, pool %" PRIu64,
		 swap_ep_transport(r.ep) == SWAP_TRANSPORT_RD ? "RD" : "RC",
		 r.np, o.attr.buf_size ? o.attr.buf_size : 4096,
		 o.attr.buf_count ? o.attr.buf_count : 16,
		 o.attr.pool_size ? o.attr.pool_size : 1 << 20);
	tool_ctl_start(&ctl, o.peers, o.index, o.hub, o.port, 120);
	tool_ctl_exchange(&ctl, row, col, (size_t)o.streams * SWAP_ADDR_LEN);
	connect_partners(&r, col);
	/* Everyone connected before anyone sends. */
	tool_ctl_barrier(&ctl, 0);

	half = (uint64_t)r.np * o.messages / 2;
	start = tool_now_ns();
	deadline = start + o.timeout * 1000000000ULL;
	while (!done && tool_now_ns() <= deadline) {
		if (r.victim && r.sent >= half && o.kill) {
			tool_say("killing myself halfway");
			kill(getpid(), SIGKILL);
		}
		if (r.victim && r.sent >= half && !r.scribbled)
			scribble(&r);
		receive(&r, send_round(&r, round++), &next_slow);
		done = all_done(&r);
		/* Scribbled, it only keeps its endpoint up for a while. */
		if (r.scribbled)
			done = tool_now_ns() > start + 5000000000ULL;
	}
	swap_ep_stats(r.ep, &ss);
	for (i = 0; i < r.np; i++) {
		const struct stream *x = &r.st[i];
		bool from_victim = (o.kill || o.hostile) &&
				   x->peer == o.peers - 1;

		if (!x->failed && (x->sent < o.messages ||
				   x->got < o.messages))
			tool_say("participant %u stream %u: sent %u received "
				 "%u of %u (timed out)", x->peer, x->stream,
				 x->sent, x->got, o.messages);
		if (x->failed && from_victim &&
		    (!o.hostile || x->err == -EPROTO))
			expected_failed++;
		else if (x->failed)
			failed++;
	}
	if (r.victim)
		failed = expected_failed = 0;
	printf("swap_stress: index %u sent %" PRIu64 " received %" PRIu64
	       " bytes %" PRIu64 " corrupt %" PRIu64 " failed %u "
	       "expected_failed %u reads %" PRIu64 " waits %" PRIu64
	       " in %.1f s\n", o.index, r.sent, r.got, r.bytes, r.corrupt,
	       failed, expected_failed, ss.reads, ss.waits,
	       (double)(tool_now_ns() - start) / 1e9);
	printf("swap_stress: index %u memory per partner %" PRIu64
	       " shared %" PRIu64 " write_retries %" PRIu64 "\n", o.index,
	       ss.mem_per_partner, ss.mem_shared, ss.write_retries);
	status = r.corrupt || failed || !done ? 1 : 0;
	if (!r.victim && (o.kill || o.hostile) &&
	    expected_failed != o.streams)
		status = 1;
	/* Nobody closes before all are done: that would fail partners. */
	tool_ctl_barrier(&ctl, status);
	printf("swap_stress: index %u %s\n", o.index,
	       status ? "FAILED" : "PASSED");
	swap_ep_close(r.ep);
	return status;
}
