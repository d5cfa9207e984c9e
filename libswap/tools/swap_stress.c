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
		case 'n': o.peers = (unsigned int)tool_num("peers", optarg); break;
		case 'i': o.index = (unsigned int)tool_num("index", optarg); break;
		case 'H': o.hub = optarg; break;
		case 'p': o.port = (uint16_t)tool_num("port", optarg); break;
		case 'd': o.device = optarg; break;
		case 'g': o.attr.gid_index = (uint8_t)tool_num("gid-index", optarg); break;
		case 'T':
			o.attr.transport = !strcmp(optarg, "rd") ? SWAP_TRANSPORT_RD :
					   !strcmp(optarg, "rc") ? SWAP_TRANSPORT_RC :
					   SWAP_TRANSPORT_AUTO;
			break;
		case 'S': o.streams = (unsigned int)tool_num("streams", optarg); break;
		case 'm': o.messages = (uint32_t)tool_num("messages", optarg); break;
		case 'M': o.max_size = tool_num("max-size", optarg); break;
		case 'z': o.size = tool_num("size", optarg); break;
		case 's': o.seed = tool_num("seed", optarg); break;
		case 'b': o.attr.buf_size = (uint32_t)tool_num("buf-size", optarg); break;
		case 'c': o.attr.buf_count = (uint32_t)tool_num("buf-count", optarg); break;
		case 'P': o.attr.pool_size = tool_num("pool-size", optarg); break;
		case 'w': o.slow_ms = (unsigned int)tool_num("slow-ms", optarg); break;
		case 'k': o.kill = true; break;
		case 'x': o.hostile = true; break;
		case 't': o.timeout = (unsigned int)tool_num("timeout", optarg); break;
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

int main(int argc, char **argv)
{
	unsigned int np, i, p, s, odd = 0, expected_failed = 0, failed = 0;
	uint64_t corrupt = 0, bytes = 0, start, deadline;
	uint64_t sent = 0, got = 0, next_slow = 0, half;
	struct stream *st, **by_id;
	struct tool_ctl ctl;
	struct swap_stats ss;
	struct swap_msg m;
	struct swap_ep *ep;
	uint8_t *row, *col, *buf;
	bool victim, done = false, scribbled = false;
	int status;

	parse(argc, argv);
	victim = o.index == o.peers - 1 && (o.kill || o.hostile);
	np = (o.peers - 1) * o.streams;
	o.attr.max_partners = np;
	o.attr.max_msg_size = o.max_size > 64 << 20 ? o.max_size : 64 << 20;
	/* --hostile: the others look at its block often. */
	if (o.hostile)
		o.attr.probe_ms = 200;
	ep = swap_ep_create(tool_open(o.device), &o.attr);
	if (!ep)
		tool_die("swap_ep_create: %s", strerror(errno));
	st = calloc(np, sizeof(*st));
	by_id = calloc(np, sizeof(*by_id));
	row = calloc((size_t)o.peers * o.streams, SWAP_ADDR_LEN);
	col = calloc((size_t)o.peers * o.streams, SWAP_ADDR_LEN);
	buf = malloc(o.max_size ? o.max_size : 1);
	if (!st || !by_id || !row || !col || !buf)
		tool_die("out of memory");
	for (p = 0, i = 0; p < o.peers; p++) {
		for (s = 0; p != o.index && s < o.streams; s++, i++) {
			st[i].peer = p;
			st[i].stream = s;
			st[i].id = swap_partner_add(ep);
			if (st[i].id < 0 || (unsigned int)st[i].id >= np)
				tool_die("swap_partner_add: %s",
					 strerror(-st[i].id));
			by_id[st[i].id] = &st[i];
			if (swap_ep_addr(ep, st[i].id, row + ((size_t)p *
					 o.streams + s) * SWAP_ADDR_LEN,
					 SWAP_ADDR_LEN) < 0)
				tool_die("swap_ep_addr");
		}
	}
	tool_say("%s transport, %u partners, buffer %u x %u, pool %" PRIu64,
		 swap_ep_transport(ep) == SWAP_TRANSPORT_RD ? "RD" : "RC", np,
		 o.attr.buf_size ? o.attr.buf_size : 4096,
		 o.attr.buf_count ? o.attr.buf_count : 16,
		 o.attr.pool_size ? o.attr.pool_size : 1 << 20);
	tool_ctl_start(&ctl, o.peers, o.index, o.hub, o.port, 120);
	tool_ctl_exchange(&ctl, row, col, (size_t)o.streams * SWAP_ADDR_LEN);
	for (i = 0; i < np; i++) {
		int ret = swap_partner_connect(ep, st[i].id, col +
			((size_t)st[i].peer * o.streams + st[i].stream) *
			SWAP_ADDR_LEN, SWAP_ADDR_LEN);

		if (ret)
			tool_die("swap_partner_connect(participant %u): %s",
				 st[i].peer, strerror(-ret));
	}
	/* Everyone connected before anyone sends. */
	tool_ctl_barrier(&ctl, 0);

	half = (uint64_t)np * o.messages / 2;
	start = tool_now_ns();
	deadline = start + o.timeout * 1000000000ULL;
	while (!done) {
		bool moved = false;
		int ret;

		if (tool_now_ns() > deadline)
			break;
		if (victim && sent >= half) {
			if (o.kill) {
				tool_say("killing myself halfway");
				kill(getpid(), SIGKILL);
			}
			if (!scribbled) {
				/* Garbage in every block we publish. */
				for (i = 0; i < np; i++) {
					struct swap_addr a;
					const char *why;

					swap_ep_addr(ep, st[i].id, row,
						     SWAP_ADDR_LEN);
					if (!swap_addr_get(row, SWAP_ADDR_LEN,
							   &a, &why))
						memset((void *)(uintptr_t)
						       a.fcb_addr, 0x5a, 64);
				}
				tool_say("scribbled over my blocks halfway");
				scribbled = true;
			}
		}
		for (i = 0; i < np; i++) {
			struct stream *x = &st[(i + odd) % np];
			struct tool_key key = { o.seed, o.index, x->peer,
						x->stream, x->sent };
			size_t len;

			if (x->failed || x->sent == o.messages ||
			    (victim && o.hostile && scribbled))
				continue;
			len = o.size ? o.size : tool_size(&key, o.attr.buf_size ?
					o.attr.buf_size : 4096, o.max_size);
			tool_fill(&key, buf, len);
			ret = swap_send(ep, x->id, buf, len, 0);
			if (!ret) {
				x->sent++;
				sent++;
				moved = true;
			} else if (ret != -EAGAIN) {
				x->failed = true;
				x->err = ret;
			}
		}
		odd++;
		if (o.slow_ms && o.index == o.peers - 1) {
			if (tool_now_ns() < next_slow) {
				usleep(200);
				goto check_done;
			}
			next_slow = tool_now_ns() + o.slow_ms * 1000000ULL;
		}
		while ((ret = moved ? swap_recv_nb(ep, &m) :
			      swap_recv(ep, &m, 5)) != -EAGAIN) {
			struct stream *x = ret || m.partner < 0 ||
				(unsigned int)m.partner >= np ? NULL :
				by_id[m.partner];
			struct tool_key key;
			size_t len, bad;

			moved = true;
			if (ret) {
				if (m.partner >= 0 && (unsigned int)m.partner < np) {
					const char *why = NULL;

					x = by_id[m.partner];
					x->failed = true;
					x->err = ret;
					swap_partner_error(ep, m.partner, &why);
					tool_say("participant %u stream %u failed: "
						 "%s (%s)", x->peer, x->stream,
						 strerror(-ret), why ? why : "");
				}
				if (ret == -EIO)
					tool_die("the endpoint failed");
				continue;
			}
			key = (struct tool_key){ o.seed, x->peer, o.index,
						 x->stream, x->got };
			len = o.size ? o.size : tool_size(&key, o.attr.buf_size ?
					o.attr.buf_size : 4096, o.max_size);
			bad = len == m.len ? tool_check(&key, m.data, m.len) : 0;
			if (len != m.len || bad != len) {
				if (corrupt < 20)
					tool_say("participant %u stream %u message "
						 "%u: %zu bytes (expected %zu), first "
						 "wrong byte %zu", x->peer, x->stream,
						 x->got, m.len, len, bad);
				corrupt++;
			}
			x->got++;
			got++;
			bytes += m.len;
			swap_msg_release(ep, &m);
			if (o.slow_ms && o.index == o.peers - 1)
				break;
		}
check_done:
		done = true;
		for (i = 0; i < np; i++)
			if (!st[i].failed && (st[i].sent < o.messages ||
					      st[i].got < o.messages))
				done = false;
		if (victim && o.hostile && scribbled) {
			/* It keeps only its endpoint alive, sends nothing. */
			done = tool_now_ns() > start + 5000000000ULL ||
			       tool_now_ns() > deadline;
		}
	}
	swap_ep_stats(ep, &ss);
	for (i = 0; i < np; i++) {
		bool from_victim = (o.kill || o.hostile) &&
				   st[i].peer == o.peers - 1;

		if (!st[i].failed && (st[i].sent < o.messages ||
				      st[i].got < o.messages))
			tool_say("participant %u stream %u: sent %u received %u "
				 "of %u (timed out)", st[i].peer, st[i].stream,
				 st[i].sent, st[i].got, o.messages);
		if (st[i].failed && from_victim &&
		    st[i].err == (o.hostile ? -EPROTO : st[i].err))
			expected_failed++;
		else if (st[i].failed)
			failed++;
	}
	if (victim)
		failed = expected_failed = 0;
	printf("swap_stress: index %u sent %" PRIu64 " received %" PRIu64
	       " bytes %" PRIu64 " corrupt %" PRIu64
	       " failed %u expected_failed %u reads %" PRIu64 " waits %" PRIu64
	       " in %.1f s\n", o.index, sent, got, bytes, corrupt,
	       failed, expected_failed, ss.reads, ss.waits,
	       (double)(tool_now_ns() - start) / 1e9);
	printf("swap_stress: index %u memory per partner %" PRIu64
	       " shared %" PRIu64 " write_retries %" PRIu64 "\n", o.index,
	       ss.mem_per_partner, ss.mem_shared, ss.write_retries);
	status = corrupt || failed || !done ? 1 : 0;
	if (!victim && (o.kill || o.hostile) &&
	    expected_failed != o.streams)
		status = 1;
	/* Nobody closes before all are done: that would fail partners. */
	tool_ctl_barrier(&ctl, status);
	printf("swap_stress: index %u %s\n", o.index,
	       status ? "FAILED" : "PASSED");
	swap_ep_close(ep);
	return status;
}
